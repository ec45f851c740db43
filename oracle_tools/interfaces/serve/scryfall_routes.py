"""The Scryfall-compatible endpoints: Scryfall's paths, parameters, JSON shapes and error objects
(https://scryfall.com/docs/api). Each handler parses its parameters (params.py), runs its work on a worker pool
against the request's database generation, and renders the answer: the card and printing lookups are
oracle_tools/scryfall/lookups.py, the answers' objects the library's (card objects, sets, catalogs, symbols).
"""

from __future__ import annotations

import bisect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NamedTuple
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from oracle_tools.errors import NameNotFoundError, NotFoundError, OracleToolsError
from oracle_tools.interfaces.serve import searches
from oracle_tools.interfaces.serve.generations import BASE_URL, BASE_URL_BYTES, ByteCache, Generation, Kept
from oracle_tools.interfaces.serve.params import (
    CARD_FORMATS,
    MAX_NAME,
    base_url_of,
    bool_param,
    cut,
    endpoint_params,
    page_error,
    page_number,
    parse_json_body,
    q_not_utf8,
    read_body,
    text_param,
)
from oracle_tools.interfaces.serve.pools import Pool
from oracle_tools.interfaces.serve.responses import (
    ApiError,
    answer_in_threadpool,
    answer_remembered,
    error_response,
    json_bytes,
    json_response,
    raw_json_response,
    sentence,
)
from oracle_tools.scryfall import cardjson, lookups
from oracle_tools.text.counts import counted

MAX_COLLECTION = 75  # identifiers per POST /cards/collection, as on Scryfall
PAGE_SIZE = 175  # cards per /cards/search page, as on Scryfall
AUTOCOMPLETE_LIMIT = 20  # names per /cards/autocomplete answer, as on Scryfall
# What these routes keep per database generation (``Generation.cached``)
AUTOCOMPLETE_NAMES: Kept[NameText] = Kept("every card name, normalized, in one text")
AUTOCOMPLETE_ANSWERS: Kept[ByteCache] = Kept("autocomplete answers by normalized query")
AUTOCOMPLETE_CACHE_BYTES = 4 * 1024 * 1024  # bytes of autocomplete answers kept per generation
CATALOGS: Kept[list[str]] = Kept("catalogs")  # per catalog name
SETS: Kept[list[dict[str, Any]]] = Kept("set objects")
SYMBOLOGY: Kept[bytes] = Kept("the symbology list as JSON")


# -- card objects ----------------------------------------------------------------------------------


def list_body(items: Sequence[bytes], **fields: Any) -> bytes:
    """A Scryfall list object whose ``data`` are already-serialised card objects."""
    head = json_bytes({"object": "list", **fields})[:-1]
    return head + b',"data":[' + b",".join(items) + b"]}"


def _card_answer(generation: Generation, printing_id: str | None, base_url: str, missing: str) -> Response:
    if printing_id:
        body = generation.card_objects_json([printing_id])[0]
        if body is not None:
            return raw_json_response(body.replace(BASE_URL_BYTES, base_url.encode()))
    raise ApiError(404, missing)


#: ``face``/``version``: which image ``format=image`` redirects to (single-card endpoints).
_IMAGE_CHOICE = frozenset({"face", "version"})
_NAMED = frozenset({"exact", "fuzzy", "set"}) | _IMAGE_CHOICE


async def cards_named(request: Request) -> Response:
    """GET /cards/named?exact=|fuzzy=[&set=]: one card by name (CR 201: any face, language, alternate name)."""
    params = endpoint_params(request, _NAMED, formats=CARD_FORMATS)
    if ("exact" in params) == ("fuzzy" in params):
        raise ApiError(400, "give exactly one of exact= or fuzzy= (a card name).")
    fuzzy = "fuzzy" in params
    name = text_param(params["fuzzy" if fuzzy else "exact"], "fuzzy" if fuzzy else "exact")
    assert name is not None
    set_code = text_param(params.get("set"), "set", required=False)
    base = base_url_of(request)
    key = ("fuzzy" if fuzzy else "exact", name, (set_code or "").lower())
    # An answer seen before is served on the event loop: the database is read-only, so the name's printing
    # (or its 404) is exact for the generation, and the hop to the threadpool would cost more than the answer.
    gen_now: Generation = request.scope["oracle_tools.generation"]
    seen = gen_now.named.get(key)
    if isinstance(seen, ApiError):
        return error_response(seen)
    if seen is not None:
        body = gen_now.card_json.get(seen)
        if body:
            return raw_json_response(body.replace(BASE_URL_BYTES, base.encode()))

    def work(gen: Generation) -> Response:
        try:
            pid = gen.db.named_printing(name, fuzzy=fuzzy, set_code=set_code, representatives=gen.representative_of)
        except (NameNotFoundError, NotFoundError) as exc:
            refused = ApiError.of(exc)  # kept, never raised: no traceback of it holds the request's frames
            gen.remember_named(key, refused)
            return error_response(refused)
        gen.remember_named(key, pid)
        return _card_answer(gen, pid, base, f"No printing of “{name}” in the database.")

    return await answer_in_threadpool(request, work)


_UUID_CHARS = frozenset("0123456789abcdef-")


def _looks_like_uuid(text: str) -> bool:
    return len(text) == 36 and set(text.lower()) <= _UUID_CHARS


async def card_by_id(request: Request) -> Response:
    """GET /cards/{id}: one printing by its Scryfall id."""
    endpoint_params(request, _IMAGE_CHOICE, formats=CARD_FORMATS)
    card_id = request.path_params["id"]
    if not _looks_like_uuid(card_id):
        raise ApiError(
            404,
            f"“{cut(card_id)}” is not a Scryfall card id (a UUID); "
            "use /cards/{set}/{number} for a set and collector number.",
        )
    base = base_url_of(request)
    return await answer_in_threadpool(
        request, lambda gen: _card_answer(gen, card_id.lower(), base, f"No card found with the given ID “{card_id}”.")
    )


async def card_by_number(request: Request) -> Response:
    """GET /cards/{set}/{number}[/{lang}]: one printing by set code and collector number."""
    endpoint_params(request, _IMAGE_CHOICE, formats=CARD_FORMATS)
    set_code, number = request.path_params["set"], request.path_params["number"]
    lang = request.path_params.get("lang")
    base = base_url_of(request)

    def work(gen: Generation) -> Response:
        where = f"“{set_code[:20]}” #{number[:20]}" + (f" in language “{lang[:10]}”" if lang else "")
        return _card_answer(gen, gen.db.printing_id(set_code, number, lang), base, f"No card found: {where}.")

    return await answer_in_threadpool(request, work)


async def card_rulings(request: Request) -> Response:
    """GET /cards/{id}/rulings: the rulings of a printing's Oracle card, as a list object."""
    endpoint_params(request, frozenset())
    card_id = request.path_params["id"]
    if not _looks_like_uuid(card_id):
        raise ApiError(404, f"“{cut(card_id)}” is not a Scryfall card id (a UUID).")
    return await answer_in_threadpool(
        request, lambda gen: _rulings_answer(gen, card_id.lower(), f"No card found with the given ID “{card_id}”.")
    )


def _rulings_answer(gen: Generation, printing_id: str | None, missing: str) -> Response:
    """The rulings of a printing's Oracle card as Scryfall's list object, or a 404 saying ``missing``."""
    cur = gen.cursor()
    known, oracle_id = lookups.printing_oracle_id(cur, printing_id) if printing_id else (False, None)
    if not known:
        raise ApiError(404, missing)
    rulings = cardjson.rulings(cur, oracle_id) if oracle_id else []
    return json_response({"object": "list", "has_more": False, "data": rulings})


def by_id_route(kind: str, *, rulings: bool) -> Callable[[Request], Awaitable[Response]]:
    label = {"multiverse": "Multiverse", "mtgo": "MTGO", "arena": "Arena", "tcgplayer": "TCGplayer"}.get(
        kind, kind.title()
    )

    async def endpoint(request: Request) -> Response:
        if rulings:
            endpoint_params(request, frozenset())
        else:
            endpoint_params(request, _IMAGE_CHOICE, formats=CARD_FORMATS)
        value = request.path_params["value"]
        missing = f"No card found with the given {label} ID “{value[:40]}”."
        base = base_url_of(request)

        def work(gen: Generation) -> Response:
            found = lookups.printing_by_id(gen.cursor(), kind, value)
            return _rulings_answer(gen, found, missing) if rulings else _card_answer(gen, found, base, missing)

        return await answer_in_threadpool(request, work)

    endpoint.__doc__ = f"GET /cards/{kind}/{{id}}{'/rulings' if rulings else ''}: by the printing's {label} id."
    return endpoint


async def card_number_rulings(request: Request) -> Response:
    """GET /cards/{set}/{number}/rulings: the rulings of the card a set code and collector number name."""
    endpoint_params(request, frozenset())
    set_code, number = request.path_params["set"], request.path_params["number"]

    def work(gen: Generation) -> Response:
        found = gen.db.printing_id(set_code, number, None)
        return _rulings_answer(gen, found, f"No card found: “{set_code[:20]}” #{number[:20]}.")

    return await answer_in_threadpool(request, work)


async def card_random(request: Request) -> Response:
    """GET /cards/random[?q=]: a random card (its preferred printing), or a random card a search finds."""
    import random

    _query_is_utf8(request)
    params = endpoint_params(request, frozenset({"q"}) | _IMAGE_CHOICE, formats=CARD_FORMATS)
    query = text_param(params.get("q"), "q", required=False)
    base = base_url_of(request)

    def work(gen: Generation) -> Response:
        from oracle_tools.search.request import SearchRequest

        if query:
            ids = searches.search_ids(gen, SearchRequest(query))
            if not ids:
                raise ApiError(404, "Your query didn’t match any cards. Adjust your search terms.")
            return _card_answer(gen, ids[random.randrange(len(ids))], base, "No random card found.")
        return _card_answer(gen, lookups.random_printing(gen.cursor()), base, "The database has no cards.")

    return await answer_in_threadpool(request, work)


class NameText(NamedTuple):
    """Every Oracle card name sorted by name, and their normalized forms in one text (each after a line break), so
    the names starting with or containing a query are found by ``str.find`` (the C loop), in name order, stopping
    at the 20th: no Python loop over every name on each keystroke."""

    text: str
    starts: list[int]  # where each normalized name begins in ``text``
    names: list[str]

    def find(self, needle: str, limit: int, *, prefix: bool, skip: frozenset[str] = frozenset()) -> list[str]:
        """Up to ``limit`` names (in name order, none of ``skip``) whose normalized form starts with ``needle``
        (``prefix``) or contains it."""
        if not needle or "\n" in needle:
            return []
        wanted = "\n" + needle if prefix else needle
        found: list[str] = []
        pos = 0
        while len(found) < limit:
            at = self.text.find(wanted, pos)
            if at < 0:
                break
            i = bisect.bisect_right(self.starts, at + 1 if prefix else at) - 1
            if self.names[i] not in skip:
                found.append(self.names[i])
            pos = self.starts[i + 1] - 1 if i + 1 < len(self.starts) else len(self.text)  # the next name on
        return found


def _autocomplete_names(gen: Generation) -> NameText:
    """Every Oracle card name in the reference, sorted by name, as a :class:`NameText`."""
    from oracle_tools.text.matching import normalize

    def build() -> NameText:
        names = list(lookups.card_names(gen.cursor()))
        starts: list[int] = []
        pos = 1
        for name in names:
            starts.append(pos)
            pos += len(normalize(name)) + 1
        text = "\n" + "\n".join(normalize(name) for name in names)
        return NameText(text, starts, names)

    return gen.cached(AUTOCOMPLETE_NAMES, build)


def autocomplete(gen: Generation, key: str) -> list[str]:
    """Up to 20 card names whose normalized form starts with ``key``, then more that contain it (Scryfall's
    autocomplete); fewer than 2 characters give none, as on Scryfall."""
    if len(key) < 2:
        return []
    index = _autocomplete_names(gen)
    names = index.find(key, AUTOCOMPLETE_LIMIT, prefix=True)
    if len(names) < AUTOCOMPLETE_LIMIT:
        names += index.find(key, AUTOCOMPLETE_LIMIT - len(names), prefix=False, skip=frozenset(names))
    return names


async def cards_autocomplete(request: Request) -> Response:
    """GET /cards/autocomplete?q=: a catalog of up to 20 card names starting with (then containing) q. Each answer
    is kept per database generation (every keystroke of every reader asks again)."""
    from oracle_tools.text.matching import normalize

    params = endpoint_params(request, frozenset({"q", "include_extras"}))
    query = text_param(params.get("q"), "q", required=False) or ""
    bool_param(params.get("include_extras"), "include_extras")
    key = normalize(query)

    def work(gen: Generation) -> Response:
        answers = gen.cached(AUTOCOMPLETE_ANSWERS, lambda: ByteCache(AUTOCOMPLETE_CACHE_BYTES))
        body: bytes | None = answers.get(key)
        if body is None:
            names = autocomplete(gen, key)
            body = json_bytes({"object": "catalog", "total_values": len(names), "data": names})
            answers.put(key, body, len(body) + len(key))
        return raw_json_response(body)

    return await answer_in_threadpool(request, work)


_SEARCH = frozenset(
    {"q", "unique", "order", "dir", "page", "include_extras", "include_multilingual", "include_variations"}
)


def _query_is_utf8(request: Request) -> None:
    """A 400 when the raw ``q=`` is no UTF-8 (``q=t:goblin%ff``): :func:`params.q_not_utf8`."""
    if (problem := q_not_utf8(request)) is not None:
        raise ApiError(400, problem)


async def cards_search(request: Request) -> Response:
    """GET /cards/search?q=: Scryfall search syntax (``OracleDB.search``), 175 cards a page."""
    from oracle_tools.search import DIRECTIONS, UNIQUE, SearchRequest  # the engine's own lists

    _query_is_utf8(request)
    params = endpoint_params(request, _SEARCH)
    query = text_param(params.get("q"), "q")
    assert query is not None
    unique = params.get("unique", "cards")
    if unique not in UNIQUE:
        raise ApiError(400, f"unique={unique!r} is not one of {', '.join(UNIQUE)}.")
    direction = params.get("dir", "auto")
    if direction not in DIRECTIONS:
        raise ApiError(400, f"dir={direction!r} is not one of {', '.join(DIRECTIONS)}.")
    order = params.get("order", "name")
    if len(order) > 40:
        raise ApiError(400, "order= is too long; give a sort order such as name, cmc or released.")
    page_text = params.get("page", "1")
    page = page_number(page_text)
    if page is None:
        raise ApiError(400, page_error(page_text))
    # Scryfall's include_extras and include_multilingual (as include:extras and lang:any in the query);
    # include_variations is checked and changes nothing: the data mark no printing as a variation to leave out
    extras, multilingual, _ = (
        bool_param(params.get(flag), flag) for flag in ("include_extras", "include_multilingual", "include_variations")
    )
    base = base_url_of(request)
    generation: Generation = request.scope["oracle_tools.generation"]
    search = SearchRequest(query, unique, order, direction, extras=extras, multilingual=multilingual)
    refused = searches.refusal(generation, search)
    if refused is not None:  # refused before on this database: the same 400 at once, no worker thread
        raise ApiError(400, str(refused), "syntax")

    def work(gen: Generation) -> Response:
        from oracle_tools import search as _search

        ids_all = searches.search_ids(gen, search)
        total = len(ids_all)
        # printings whose files lack a field a term reads (is:booster on the 2019 objects): Scryfall's "warnings"
        warnings = _search.cannot_judge(
            gen.user_cursor(), query, nameable=gen.db.nameable_ids, extras=extras, multilingual=multilingual
        )
        if total == 0:
            raise ApiError(404, f"Your query “{query}” didn’t match any cards.", warnings=warnings or None)
        start = (page - 1) * PAGE_SIZE
        if start >= total:
            raise ApiError(
                422,
                f"page {page} is past the last page ({(total + PAGE_SIZE - 1) // PAGE_SIZE}) of {counted(total, 'card')}.",
            )
        ids = ids_all.slice(start, start + PAGE_SIZE)
        items = [b for b in gen.card_objects_json(ids) if b is not None]
        fields: dict[str, Any] = {"total_cards": total, "has_more": start + PAGE_SIZE < total}
        if warnings:
            fields["warnings"] = warnings
        if fields["has_more"]:
            next_params = {k: v for k, v in params.items() if k != "page"}
            next_params["page"] = str(page + 1)
            fields["next_page"] = f"{base}/cards/search?{urlencode(next_params)}"
        return raw_json_response(list_body(items, **fields).replace(BASE_URL_BYTES, base.encode()))

    # a page is 175 card objects (about 500 KB): kept whole, it is not joined and relinked again per request
    return await answer_remembered(request, params, work, base=base)


_IDENTIFIER_KEYS = frozenset(
    {"id", "oracle_id", "name", "set", "collector_number", "mtgo_id", "multiverse_id", "illustration_id"}
)


def _check_identifier(item: Any, index: int) -> dict[str, Any]:
    where = f"identifiers[{index}]"
    if not isinstance(item, dict):
        raise ApiError(422, f'{where} is not an object; give e.g. {{"name": "Ancient Tomb"}}.')
    unknown = set(item) - _IDENTIFIER_KEYS
    if unknown:
        raise ApiError(
            422,
            f"{where} has unknown keys {sorted(unknown)}; identifiers take {', '.join(sorted(_IDENTIFIER_KEYS))}.",
        )
    for key, value in item.items():
        expected = int if key in ("mtgo_id", "multiverse_id") else str
        if not isinstance(value, expected) or isinstance(value, bool):
            raise ApiError(422, f"{where}.{key} must be a {'number' if expected is int else 'string'}.")
        if isinstance(value, int) and not 0 <= value < 10**lookups.MAX_ID_DIGITS:
            raise ApiError(
                422, f"{where}.{key} is not an id: give a whole number of at most {lookups.MAX_ID_DIGITS} digits."
            )
        if isinstance(value, str) and (len(value) > MAX_NAME or not value.strip()):
            raise ApiError(422, f"{where}.{key} is empty or longer than {MAX_NAME:,} characters.")
    keys = frozenset(item)
    valid = [
        frozenset({"id"}),
        frozenset({"oracle_id"}),
        frozenset({"name"}),
        frozenset({"name", "set"}),
        frozenset({"set", "collector_number"}),
        frozenset({"mtgo_id"}),
        frozenset({"multiverse_id"}),
        frozenset({"illustration_id"}),
    ]
    if keys not in valid:
        raise ApiError(
            422,
            f"{where} is not a valid identifier ({', '.join(sorted(keys)) or 'empty'}); "
            "use id, oracle_id, illustration_id, name, name + set, set + collector_number, mtgo_id or multiverse_id.",
        )
    return item


def _find_identifier(gen: Generation, ident: dict[str, Any]) -> str | None:
    """The printing id one collection identifier other than ``id`` names, or None."""
    cur = gen.cursor()
    if "oracle_id" in ident:  # (printing ids are looked up together, in cards_collection)
        return gen.representative_of([ident["oracle_id"].lower()]).get(ident["oracle_id"].lower())
    if "name" in ident:  # the printing /cards/named answers (OracleDB.named_printing), or none
        try:
            return gen.db.named_printing(
                ident["name"], set_code=ident.get("set"), representatives=gen.representative_of
            )
        except (NameNotFoundError, NotFoundError):
            return None
    if "collector_number" in ident:
        return gen.db.printing_id(ident["set"], ident["collector_number"], None)
    if "mtgo_id" in ident:
        return lookups.printing_by_id(cur, "mtgo", ident["mtgo_id"])
    if "illustration_id" in ident:
        return lookups.printing_by_illustration(cur, ident["illustration_id"])
    return lookups.printing_by_id(cur, "multiverse", ident["multiverse_id"])


def _collection_identifiers(raw: bytes) -> list[dict[str, Any]]:
    """The checked identifiers of a collection request's body, or the 400/422 saying what is wrong with it."""
    body = parse_json_body(raw)
    if not isinstance(body, dict) or set(body) != {"identifiers"} or not isinstance(body["identifiers"], list):
        raise ApiError(422, 'send {"identifiers": [...]} with up to 75 card identifiers.')
    identifiers = body["identifiers"]
    if not identifiers:
        raise ApiError(422, "identifiers is empty; give between 1 and 75 card identifiers.")
    if len(identifiers) > MAX_COLLECTION:
        raise ApiError(
            422,
            f"{len(identifiers)} identifiers were given; at most {MAX_COLLECTION} are accepted per request.",
        )
    return [_check_identifier(item, i) for i, item in enumerate(identifiers)]


async def cards_collection(request: Request) -> Response:
    """POST /cards/collection: up to 75 identifiers → a list object with ``not_found``."""
    endpoint_params(request, frozenset())
    raw = await read_body(request)
    base = base_url_of(request)

    def work(gen: Generation) -> Response:
        checked = _collection_identifiers(raw)  # parsed here, on the worker thread: 1 MB of JSON holds the loop
        found_ids: list[str] = []
        not_found: list[dict[str, Any]] = []
        # Printing ids are looked up together: their card objects are built (or read from the cache) in one
        # step, and an id that builds no object names no printing.
        by_id = [ident["id"].lower() for ident in checked if "id" in ident]
        printed = {pid for pid, body in zip(by_id, gen.card_objects_json(by_id), strict=True) if body is not None}
        for ident in checked:
            if "id" in ident:
                pid = ident["id"].lower() if ident["id"].lower() in printed else None
            else:
                pid = _find_identifier(gen, ident)
            if pid:
                found_ids.append(pid)
            else:
                not_found.append(ident)
        items = gen.card_objects_json(found_ids)
        body = list_body([b for b in items if b is not None], not_found=not_found)
        return raw_json_response(body.replace(BASE_URL_BYTES, base.encode()))

    return await answer_in_threadpool(request, work)


async def catalog(request: Request) -> Response:
    """GET /catalog/{name}: a Scryfall catalog object computed from the database (oracle_tools/scryfall/catalogs.py)."""
    from oracle_tools.scryfall.catalogs import reader

    endpoint_params(request, frozenset())
    name = request.path_params["name"]
    try:
        reader(name)  # an unknown name, or one not offered, is answered before any work
    except OracleToolsError as exc:
        raise ApiError(404, sentence(exc)) from None
    base = base_url_of(request)

    def work(gen: Generation) -> Response:
        data = gen.cached(CATALOGS.of(name), lambda: gen.db.catalog(name))
        uri = f"{base}/catalog/{name}"
        return json_response({"object": "catalog", "uri": uri, "total_values": len(data), "data": data})

    return await answer_in_threadpool(request, work)


async def migrations(request: Request) -> Response:
    """GET /migrations: Scryfall's list of card id migrations (merges, deletions). The bulk data carries none,
    so the list is empty: a client that syncs ids finds nothing to change."""
    endpoint_params(request, frozenset({"page"}))
    return json_response({"object": "list", "has_more": False, "data": []})


def _sets(gen: Generation) -> list[dict[str, Any]]:
    """Every set object (links hold the BASE_URL placeholder), newest first; built once per generation."""
    return gen.cached(SETS, lambda: gen.db.sets(base_url=BASE_URL))


async def sets_list(request: Request) -> Response:
    """GET /sets: Scryfall's set list as the ingest kept it, and every other set the database has printings of
    (oracle_tools/scryfall/sets.py)."""
    endpoint_params(request, frozenset())
    base = base_url_of(request)
    return await answer_in_threadpool(
        request,
        lambda gen: raw_json_response(
            json_bytes({"object": "list", "has_more": False, "data": _sets(gen)}).replace(BASE_URL_BYTES, base.encode())
        ),
    )


async def set_by_code(request: Request) -> Response:
    """GET /sets/{code} or /sets/{id}: one set."""
    endpoint_params(request, frozenset())
    wanted = request.path_params["code"]
    base = base_url_of(request)

    def work(gen: Generation) -> Response:
        from oracle_tools.scryfall.sets import find_set

        found = find_set(_sets(gen), wanted)
        if found is None:
            raise ApiError(404, f"No Magic set found for the given code or id “{cut(wanted)}”.")
        return raw_json_response(json_bytes(found).replace(BASE_URL_BYTES, base.encode()))

    return await answer_in_threadpool(request, work)


async def set_by_tcgplayer(request: Request) -> Response:
    """GET /sets/tcgplayer/{id}: the set of a TCGplayer group, known only from Scryfall's set list (card objects
    never say it): a database ingested without that list finds none, and says why."""
    endpoint_params(request, frozenset())
    wanted = request.path_params["id"]
    base = base_url_of(request)

    def work(gen: Generation) -> Response:
        from oracle_tools.scryfall.sets import find_tcgplayer_set

        sets = _sets(gen)
        # a group id is a number of ASCII digits ("²" is a digit to str.isdigit, and int() refuses it and 5,000 digits)
        number = wanted.isascii() and wanted.isdigit() and len(wanted) <= lookups.MAX_ID_DIGITS
        found = find_tcgplayer_set(sets, int(wanted)) if number else None
        if found is None:
            why = (
                ""
                if any("tcgplayer_id" in item for item in sets)
                else ": this database was ingested without Scryfall's set list (which says each set's TCGplayer "
                "group; an online ingest downloads it), so no set is known by one; use /sets/{code}"
            )
            raise ApiError(404, f"No Magic set found for TCGplayer group id “{cut(wanted)}”{why}.")
        return raw_json_response(json_bytes(found).replace(BASE_URL_BYTES, base.encode()))

    return await answer_in_threadpool(request, work)


async def symbology(request: Request) -> Response:
    """GET /symbology: every card symbol (oracle_tools/scryfall/symbology.py)."""
    endpoint_params(request, frozenset())

    def work(gen: Generation) -> Response:
        from oracle_tools.scryfall.symbology import symbols

        body = gen.cached(
            SYMBOLOGY, lambda: json_bytes({"object": "list", "has_more": False, "data": symbols(gen.cursor())})
        )
        return raw_json_response(body)

    return await answer_in_threadpool(request, work)


async def parse_mana(request: Request) -> Response:
    """GET /symbology/parse-mana?cost=: Scryfall's mana_cost object; 422 for a cost it cannot read."""
    from oracle_tools.errors import ManaCostError
    from oracle_tools.scryfall.symbology import parse_mana as parse

    params = endpoint_params(request, frozenset({"cost"}))
    cost = text_param(params.get("cost"), "cost")
    try:
        return json_response(parse(cost))
    except ManaCostError as exc:  # the symbols as this door lists them
        raise ApiError(422, sentence(ValueError(exc.worded("/symbology")))) from None


async def bulk_download(request: Request) -> Response:
    """GET /bulk-data/{type}/download: the file of a bulk type this server exports (oracle_tools/interfaces/serve/
    bulk.py: built once per generation, streamed, gzip when the client takes it, at most MAX_DOWNLOADS at once)."""
    from oracle_tools.interfaces.serve import bulk

    endpoint_params(request, frozenset())
    kind = bulk.type_name(request.path_params["which"])
    if kind is None:
        raise ApiError(404, f"No bulk data of type “{request.path_params['which'][:60]}”; GET /bulk-data lists them.")
    return await _download(request, kind, jsonl=False)


async def bulk_download_jsonl(request: Request) -> Response:
    """GET /bulk-data/{type}/download.jsonl.gz (a bulk_data object's ``jsonl_download_uri``): the same objects as a
    gzip file of JSON Lines, one object a line, as Scryfall hosts them (its bytes are the file: no
    Content-Encoding), made from the kept file as it streams."""
    from oracle_tools.interfaces.serve import bulk

    endpoint_params(request, frozenset())
    kind = bulk.type_name(request.path_params["which"])
    if kind is None:
        raise ApiError(404, f"No bulk data of type “{request.path_params['which'][:60]}”; GET /bulk-data lists them.")
    return await _download(request, kind, jsonl=True)


async def _download(request: Request, kind: str, *, jsonl: bool) -> Response:
    from oracle_tools.interfaces.serve import bulk

    downloads: bulk.Downloads = request.app.state.downloads
    if downloads.running >= bulk.MAX_DOWNLOADS:
        raise ApiError(503, f"{bulk.MAX_DOWNLOADS} bulk downloads are running; retry in a minute.")
    downloads.running += 1  # the slot is taken before the build is awaited, so no other request counts it free
    try:
        base = base_url_of(request)
        gen: Generation = request.scope["oracle_tools.generation"]
        pools: dict[str, Pool] = request.app.state.pools
        built = await pools["large"].run(bulk.bulk_file, gen, kind, base)  # built once per generation, then cached
    except BaseException:
        downloads.running -= 1  # no answer will stream: the slot is free again
        raise
    gzip_ok = "gzip" in request.headers.get("accept-encoding", "").lower()
    name = kind.replace("_", "-") + (".jsonl.gz" if jsonl else ".json")
    answer = bulk.BulkDownload(built, gzip_ok=gzip_ok, downloads=downloads, filename=name, jsonl=jsonl)
    return answer  # type: ignore[return-value]  # an ASGI answer Starlette sends as it is


async def bulk_data(request: Request) -> Response:
    """GET /bulk-data and /bulk-data/{id or type}: Scryfall's bulk_data objects of the types this server exports;
    one object's route with ``format=file`` answers its file (Scryfall documents ``json`` and ``file`` there)."""
    from oracle_tools.interfaces.serve import bulk

    wanted = request.path_params.get("which")
    endpoint_params(request, frozenset(), formats=frozenset({"json", "file"}) if wanted else frozenset({"json"}))
    base = base_url_of(request)
    if wanted is not None and request.scope["state"]["answer_form"][0] == "file":
        kind = bulk.type_name(wanted)
        if kind is None:  # an id: the type it names (its date is read from the database, on a worker thread)
            gen: Generation = request.scope["oracle_tools.generation"]
            pools: dict[str, Pool] = request.app.state.pools
            ids = {await pools["lookups"].run(bulk.bulk_id, gen, k): k for k in bulk.TYPES}
            kind = ids.get(wanted)
        if kind is None:
            raise ApiError(404, f"No bulk data found for “{cut(wanted)}”; GET /bulk-data lists them.")
        return await _download(request, kind, jsonl=False)

    def work(gen: Generation) -> Response:
        items = [bulk.bulk_object(gen, kind, base) for kind in bulk.TYPES]
        if wanted is None:
            return json_response({"object": "list", "has_more": False, "data": items})
        kind = bulk.type_name(wanted)
        for item in items:
            if wanted == item["id"] or kind == item["type"]:
                return json_response(item)
        raise ApiError(404, f"No bulk data found for “{cut(wanted)}”; GET /bulk-data lists them.")

    return await answer_in_threadpool(request, work)


async def health(request: Request) -> Response:
    """GET /health: the open database generation and whether its card cache is warm (for monitors, the bench)."""
    endpoint_params(request, frozenset(), scryfall=False)
    gen: Generation = request.scope["oracle_tools.generation"]
    return json_response(
        {
            "object": "health",
            "db": gen.path.name,  # the file name only: the answer is readable from any origin (CORS)
            "generation": gen.number,
            "warm": gen.warm_seconds is not None,
            "warm_seconds": gen.warm_seconds,
            "cards_cached": len(gen.card_json),
        }
    )
