"""The card reference pages: ``/search``, ``/card/…``, ``/token/…``, ``/deck`` and ``/favicon.ico``.

Server-rendered HTML (Jinja2, autoescaped) from the ``OracleDB`` answers every other door gives: the search engine
(:meth:`OracleDB.search`, Scryfall's syntax), the kept Scryfall card objects (:meth:`OracleDB.card_objects`), the
names of a card (CR 201), the tokens it creates (CR 111), the name references in Oracle text (CR 201.5), the
choose-a-name verdicts (CR 201.4), the change history and the deck check. The handlers hold no SQL: each page
collects its answers and renders them on a worker thread of the API's pools (web.run_pooled), calling this thread's
own view of the database (``Generation.db``), as the API's handlers do: no page waits for another request's calls.

No page loads anything from another host unless the reader turns card images on (``/images?show=1``, a cookie):
the text card (name, cost, type line, Oracle text, P/T) is the default. The one script, ``/static/web.js``, adds
name autocomplete to the name boxes (Scryfall's ``/cards/autocomplete``); every page works without it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sys
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from oracle_tools.errors import DatabaseDamagedError, OracleToolsError
from oracle_tools.interfaces.serve.assets import favicon, static
from oracle_tools.interfaces.serve.generations import MB, ByteCache, Kept
from oracle_tools.interfaces.serve.params import page_error, page_number, q_not_utf8
from oracle_tools.interfaces.serve.pools import PoolFull
from oracle_tools.interfaces.serve.web import (
    IMAGES_COOKIE,
    MAX_NAME,
    busy_response,
    card_stats,
    run_pooled,
    templates,
)
from oracle_tools.names.kinds import listed_as
from oracle_tools.scryfall.card_facts import CardFacts
from oracle_tools.search import DIRECTIONS, ORDERS, UNIQUE
from oracle_tools.store import layouts
from oracle_tools.text.counts import counted

if TYPE_CHECKING:
    from oracle_tools.db import OracleDB
    from oracle_tools.interfaces.serve.generations import Generation
    from oracle_tools.names.resolver import Resolution

log = logging.getLogger("oracle_tools.interfaces.serve")
PAGE_SIZE = 60  # cards a results page shows
MAX_QUERY = 1000  # characters of a search query, as names
PRINTINGS_SHOWN = 120  # printings a card page lists (English first, newest first); search finds every one
PAGE_CACHE_BYTES = 32 * MB  # bytes of rendered pages kept per database generation (least recently used out)
MAX_DECK_URL = 6000  # characters of a decklist that still make a shareable GET link

# The orders, directions and unique modes the search page offers: the engine's own lists (search/compiler.py), each
# in words (the word itself, capitalised, unless a label below says it better).
_LABELS = {
    "released": "Release date",
    "set": "Set / number",
    "cmc": "Mana value",
    "edhrec": "EDHREC rank",
    "penny": "Penny Dreadful rank",
    "usd": "Price: USD",
    "eur": "Price: EUR",
    "tix": "Price: TIX",
    "art": "Unique art",
    "prints": "All prints",
    "asc": "Ascending",
    "desc": "Descending",
}


def _labelled(values: tuple[str, ...]) -> dict[str, str]:
    return {value: _LABELS.get(value, value.capitalize()) for value in values}


ORDER_LABELS = _labelled(ORDERS)
UNIQUE_LABELS = _labelled(UNIQUE)
DIR_LABELS = _labelled(DIRECTIONS)

LANGUAGES = {
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "de": "German",
    "it": "Italian",
    "pt": "Portuguese",
    "ja": "Japanese",
    "ko": "Korean",
    "ru": "Russian",
    "zhs": "Simplified Chinese",
    "zht": "Traditional Chinese",
    "ph": "Phyrexian",
}
# "Choose a … card name" phrases a reader checks a card's name against (CR 201.4), with a card that asks it.
CHOOSE_PHRASES = (
    (None, "a card name", "Pithing Needle"),
    ("nonland", "a nonland card name", "Meddling Mage"),
    ("nonbasic land", "a nonbasic land card name", "Alpine Moon"),
)

#: Characters of Scryfall's syntax beyond bare words (keywords, comparisons, quotes, parentheses, negation): a
#: query with none of them is a few words a reader may have meant as a card name (as web.js reads the search box).
QUERY_SYNTAX = re.compile(r'[:<>=!"()]|(?:^|\s)-')
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def page_headers(images: bool) -> dict[str, str]:
    """Security headers of a page: its own script, style and images only — other hosts' images only when the reader
    turned images on (the kept ``image_uris`` point at Scryfall's image hosts)."""
    img = "'self' data: https:" if images else "'self' data:"
    return {
        "Content-Security-Policy": (
            f"default-src 'none'; script-src 'self'; style-src 'self'; img-src {img}; connect-src 'self'; "
            "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        ),
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        "Referrer-Policy": "no-referrer",
    }


# -- running a page -------------------------------------------------------------------------------------


class PageError(Exception):
    """A reader's mistake or a miss, shown on the page in words with this HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _images(request: Request) -> bool:
    return request.cookies.get(IMAGES_COOKIE) == "1"


async def _page(
    request: Request,
    template: str,
    collect: Callable[[Any, Any], dict[str, Any]],
    title: str = "",
    pool: str = "lookups",
) -> Response:
    """Collect the page's answers on a worker thread of ``pool`` (the API's pools: see web.run_pooled) from this
    thread's view of the database, render them, answer."""
    images = _images(request)
    generation = request.scope["oracle_tools.generation"]
    # A page depends only on its address, the images setting and the read-only database: kept per generation.
    pages: ByteCache = generation.cached(PAGES, lambda: ByteCache(PAGE_CACHE_BYTES))
    key = (template, str(request.url.path) + "?" + request.url.query, images)
    warm_pages(generation)
    hit = pages.get(key) if request.method == "GET" else None
    if hit is not None:
        return HTMLResponse(hit[0], status_code=hit[1], headers=page_headers(images))

    def work() -> tuple[str, int]:
        context: dict[str, Any] = {
            "images": images,
            "here": str(request.url.path) + (f"?{request.url.query}" if request.url.query else ""),
            "db_name": generation.path.name,
            "title": title,
            "error": None,
            "max_name": MAX_NAME,
            "generation": generation,
        }
        status = 200
        try:
            context.update(collect(generation.db, context))
        except PageError as exc:
            context["error"], status = str(exc), exc.status
        except DatabaseDamagedError:  # the server's file, not the reader's mistake: the one 503 (responses.py)
            raise
        except OracleToolsError as exc:
            context["error"], status = str(exc), exc.http_status
        return templates.get_template(template).render(context), status

    try:
        html, status = await run_pooled(request, pool, work)
    except PoolFull as exc:
        return busy_response(str(exc), page_headers(images))
    if request.method == "GET" and status in (200, 404) and len(key[1]) <= 4096:  # long decklists are not kept
        pages.put(key, (html, status), sys.getsizeof(html) + len(key[1]))
    return HTMLResponse(html, status_code=status, headers=page_headers(images))


# -- /search ----------------------------------------------------------------------------------------------


def _choice(request: Request, key: str, allowed: dict[str, str], default: str) -> str:
    value = request.query_params.get(key, "").strip().lower() or default
    if value not in allowed:
        raise PageError(f"{key}={value[:40]!r} is not one of: {', '.join(allowed)}.")
    return value


def search_page_context(db: OracleDB, request: Request, context: dict[str, Any]) -> dict[str, Any]:
    """The search page's answers, written into ``context`` as they come (a query error keeps the form filled in).
    The search is the API's (:func:`searches.search_ids`): its results are kept in the same byte-bounded cache."""
    from oracle_tools import search as _search
    from oracle_tools.interfaces.serve.searches import search_ids
    from oracle_tools.search.request import SearchRequest

    context.update(
        {
            "q": "",
            "order": "name",
            "dir": "auto",
            "unique": "cards",
            "orders": ORDER_LABELS,
            "dirs": DIR_LABELS,
            "uniques": UNIQUE_LABELS,
            "results": None,
            "name_hint": None,
            "warnings": [],
        }
    )
    q = request.query_params.get("q", "").strip()
    context["q"] = q[:MAX_QUERY]
    if (problem := q_not_utf8(request)) is not None:
        raise PageError(problem)
    if len(q) > MAX_QUERY:
        raise PageError(f"The query is {len(q):,} characters long; at most {MAX_QUERY:,} are read.")
    context["order"] = _choice(request, "order", ORDER_LABELS, "name")
    context["dir"] = _choice(request, "dir", DIR_LABELS, "auto")
    context["unique"] = _choice(request, "unique", UNIQUE_LABELS, "cards")
    page_text = request.query_params.get("page", "1").strip() or "1"
    page = page_number(page_text)
    if page is None:
        raise PageError(page_error(page_text))
    if not q:
        return context
    ids = search_ids(context["generation"], SearchRequest(q, context["unique"], context["order"], context["dir"]))
    total = len(ids)
    # the printings it could not judge (a term whose data some files lack): the API list's "warnings", shown above it
    context["warnings"] = _search.cannot_judge(context["generation"].user_cursor(), q, nameable=db.nameable_ids)
    pages = max(1, (total + PAGE_SIZE - 1) // PAGE_SIZE)
    if total and page > pages:
        raise PageError(f"Page {page} is past the last page ({pages}) of {counted(total, 'card')}.", 404)
    start = (page - 1) * PAGE_SIZE if total else 0
    if not total and not QUERY_SYNTAX.search(q) and len(q) <= MAX_NAME:
        # A bare word searches the English names (Scryfall's rule): a misspelt, foreign or alternate name finds no
        # card. Read as a name (CR 201, Scryfall's fuzzy rule), it may: the page says which card it names.
        context["name_hint"] = db.resolve(q, fuzzy=True)
    # No card found: any page is the empty first page (a slice past the end of no ids is an error, not a page).
    cards = kept_card_objects(db, context.get("generation"), ids=ids.slice(start, start + PAGE_SIZE)) if total else []
    base = {"q": q, "order": context["order"], "dir": context["dir"], "unique": context["unique"]}
    defaults = {"order": "name", "dir": "auto", "unique": "cards"}
    kept = {k: v for k, v in base.items() if defaults.get(k) != v}

    def link(n: int) -> str:
        return "/search?" + urlencode({**kept, **({"page": str(n)} if n > 1 else {})})

    window = sorted({1, pages, *range(max(1, page - 2), min(pages, page + 2) + 1)})
    context["results"] = {
        "total": total,
        "page": page,
        "pages": pages,
        "first": start + 1,
        "last": start + len(cards),
        "cards": [card_view(c) for c in cards],
        "prev": link(page - 1) if page > 1 else None,
        "next": link(page + 1) if page < pages else None,
        "links": [(n, link(n)) for n in window],
    }
    context["title"] = q
    return context


async def search_page(request: Request) -> Response:
    return await _page(request, "search.html", lambda db, ctx: search_page_context(db, request, ctx), "Search")


# -- card views: a Scryfall card object as the text card shows it -----------------------------------------


def _printed(obj: dict[str, Any]) -> dict[str, str] | None:
    """What a foreign printing (or face) printed: its name, type line and text in its language (not Oracle text)."""
    printed = {k: obj.get(f"printed_{k}") or "" for k in ("name", "type_line", "text")}
    return printed if printed["type_line"] or printed["text"] else None


def card_view(card: dict[str, Any]) -> dict[str, Any]:
    """What a text card shows of a Scryfall card object: its faces (one for a one-faced card), each with name,
    cost, type line, Oracle text and P/T, and the kept image address of each face."""
    faces_in = card.get("card_faces") or []
    one_image = (card.get("image_uris") or {}).get("normal")
    if faces_in:
        faces = [
            {
                "name": f.get("name"),
                "mana_cost": f.get("mana_cost") or "",
                "type_line": f.get("type_line") or "",
                "oracle_text": f.get("oracle_text") or "",
                "flavor_text": f.get("flavor_text") or "",
                "stats": card_stats(f),
                "image": (f.get("image_uris") or {}).get("normal"),
                "printed": _printed(f),
            }
            for f in faces_in
        ]
    else:
        faces = [
            {
                "name": card.get("name"),
                "mana_cost": card.get("mana_cost") or "",
                "type_line": card.get("type_line") or "",
                "oracle_text": card.get("oracle_text") or "",
                "flavor_text": card.get("flavor_text") or "",
                "stats": card_stats(card),
                "image": one_image,
                "printed": _printed(card),
            }
        ]
    images = [one_image] if one_image else [f["image"] for f in faces if f["image"]]
    # a multi-face printing carries its printed (foreign) name on its faces only, as Scryfall's objects do
    face_printed = [f.get("printed_name") for f in faces_in]
    printed_name = card.get("printed_name") or (" // ".join(face_printed) if all(face_printed) and faces_in else None)
    return {
        "id": card.get("id"),
        "oracle_id": card.get("oracle_id") or (faces_in[0].get("oracle_id") if faces_in else None),
        "name": card.get("name"),
        "printed_name": printed_name,
        "mana_cost": card.get("mana_cost") or "",
        "layout": card.get("layout"),
        "faces": faces,
        "images": images,
        "set": card.get("set"),
        "set_name": card.get("set_name"),
        "collector_number": card.get("collector_number"),
        "lang": card.get("lang"),
        "rarity": card.get("rarity"),
        "artist": card.get("artist"),
        "released_at": card.get("released_at"),
        "legalities": card.get("legalities") or {},
        "all_parts": card.get("all_parts") or [],
        "prices": {k: v for k, v in (card.get("prices") or {}).items() if v},
    }


# -- /card/{oracle_id}, /card/{set}/{number}[/{lang}], /card?name= ------------------------------------------


def kept_card_objects(
    db: OracleDB, generation: Generation | None, *, ids: list[str] | None = None, oracle_id: str | None = None
) -> list[dict[str, Any]]:
    """:meth:`OracleDB.card_objects` (by printing ids, or an Oracle id's representative printing), read from the
    server's per-generation cache of those same objects (the API's ``/cards`` answers, built in the background for
    every card's representative printing; what a page builds is kept there too): no object is built twice."""
    if ids is None and oracle_id is None:
        raise TypeError("kept_card_objects() takes ids= or oracle_id=")
    if generation is None:
        return list(db.card_objects(ids=ids) if ids is not None else db.card_objects(oracle_ids=[str(oracle_id)]))
    if ids is None:
        ids = list(generation.representative_of([str(oracle_id)]).values())
    return [json.loads(body) for body in generation.card_objects_json(ids) if body is not None]


_FACTS_LOCK = threading.Lock()

# What the pages keep per database generation (``Generation.cached``)
PAGES: Kept[ByteCache] = Kept("rendered pages")
CARD_FACTS: Kept[CardFacts] = Kept("every card's facts")
LEGALITIES_SOURCE: Kept[str] = Kept("which files' legalities judge decks")
TOKEN_CATALOG: Kept[dict[str, list[dict[str, Any]]]] = Kept("the token catalog by normalized name")
TOKEN_NAMES: Kept[list[str]] = Kept("every token name, sorted")


def card_facts(generation: Generation | None) -> CardFacts | None:
    """The generation's :class:`CardFacts`, built by the first page that needs it (one build at a time)."""
    if generation is None:
        return None
    found = generation.peek(CARD_FACTS)
    if found is None:
        with _FACTS_LOCK:
            found = generation.cached(CARD_FACTS, lambda: CardFacts(generation.cursor()))
    return found


def warm_pages(generation: Generation) -> None:
    """What the pages read once per generation, read in the background once the server's own warm-up is done, when
    the first page is asked: every card's facts (:class:`CardFacts`), each format's legalities (the deck checker
    reads a format's on its first check, 40-100 ms), which file's legalities judge decks, the token catalog and the
    compiled templates. A reader who searches first finds the card, token and deck pages ready. A failure (the
    database closed under it) leaves each to the first page that needs it."""
    if generation.peek(CARD_FACTS) is not None or generation.warm_seconds is None or _FACTS_LOCK.locked():
        return

    def build() -> None:
        from oracle_tools.decks.formats import FORMATS

        try:
            for template in ("search.html", "card.html", "token.html", "deck.html"):
                templates.get_template(template)  # compiled once (100-150 ms each), kept by the environment
            card_facts(generation)
            db = generation.db
            generation.cached(LEGALITIES_SOURCE, db.legalities_source)
            token_catalog(db, generation)
            for rules in FORMATS.values():
                if not rules.legality:  # a format judged without a legalities column
                    continue
                # a format this database has no legalities for: the check says so
                with contextlib.suppress(OracleToolsError):
                    db.deck_checker.legality(rules.key)
        except Exception as exc:  # an optimisation: each page builds what it needs
            generation.note_damage(exc)
            log.debug("the pages' answers not read in the background: %s", exc)

    threading.Thread(target=build, name="web-warm", daemon=True).start()


def card_page_context(
    db: OracleDB, oracle_id: str, printing_id: str | None, generation: Generation | None = None
) -> dict[str, Any]:
    objects = (
        kept_card_objects(db, generation, ids=[printing_id])
        if printing_id
        else kept_card_objects(db, generation, oracle_id=oracle_id)
    )
    if not objects:
        raise PageError(f"No card with Oracle id {oracle_id} in this database.", 404)
    card = card_view(objects[0])
    oracle_id = card["oracle_id"] or oracle_id
    name = str(card["name"])
    # every name of the card and how it is one (CR 201)
    facts = card_facts(generation)
    names: dict[str, list[dict[str, Any]]] = {}
    known = facts.rows("names", oracle_id) if facts is not None else None
    for row in known if known is not None else db.card_names(oracle_id):
        names.setdefault(row["via"], []).append(row)
    face_names = [r["name"] for r in names.get("face", [])] or [name]
    # related cards (meld partners, combo pieces) and token objects from the kept all_parts
    related, token_parts = [], []
    for part in card["all_parts"]:
        if part.get("component") == "token":
            token_parts.append(part)
        elif part.get("name") != name:
            found = db.resolve(part["name"])
            related.append({**part, "oracle_id": found.oracle_id if found.ok else None})
    tokens = facts.rows("tokens", oracle_id) if facts is not None else None
    if tokens is None:
        tokens = db.tokens_created(oracle_id)
    own_text = facts.rows("own_text", oracle_id) if facts is not None else None
    named_by = facts.rows("named_by", oracle_id) if facts is not None else None
    references: dict[str, Any]
    if own_text is not None and named_by is not None:
        references = {"oracle_id": oracle_id, "name": name, "own_text": own_text, "named_by": named_by}
    else:
        try:
            references = db.references(name)
        except OracleToolsError:
            references = {"own_text": [], "named_by": []}
    choose = []
    for phrase, words, asker in CHOOSE_PHRASES:
        choose.append(
            {"phrase": words, "asker": asker, "verdicts": [db.choose_name(face, phrase) for face in face_names]}
        )
    if facts is not None and oracle_id not in facts.changed:
        history: dict[str, Any] | None = {"total": 0, "groups": []}  # nothing recorded: no query needed
    else:
        history = _card_history(db, name)
    printings = facts.rows("printings", oracle_id) if facts is not None else None
    if printings is None:
        printings = db.printings(oracle_id)
    # a basic land has over a thousand printings: the page lists the first ones (and the one shown), search the rest
    shown = printings[:PRINTINGS_SHOWN]
    if card["id"] not in {p["id"] for p in shown}:
        shown += [p for p in printings if p["id"] == card["id"]]
    return {
        "title": name,
        "card": card,
        "oracle_id": oracle_id,
        "names": names,
        "name_kinds": listed_as(
            card["layout"],
            has_faces=bool(names.get("face")),
            omen=layouts.is_omen_card(card["layout"], [f["type_line"] for f in card["faces"]]),
        ),
        "languages": LANGUAGES,
        "printings": shown,
        "printing_count": len(printings),
        "rulings": db.rulings(oracle_id),
        "tokens": tokens,
        "token_parts": token_parts,
        "related": related,
        "references": references,
        "own_mentions": mentions_once(references["own_text"]),
        "choose": choose,
        "history": history,
    }


def mentions_once(mentions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A text's name mentions (CR 201.5), each the same mention once, in the order first met, with how many times:
    Dark Depths names itself three times, and the page says so on one line."""
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for mention in mentions:
        key = (mention["kind"], mention["text"], mention.get("target_name"))
        if key in seen:
            seen[key]["times"] += 1
        else:
            seen[key] = {**mention, "times": 1}
    return list(seen.values())


def _card_history(db: OracleDB, name: str) -> dict[str, Any] | None:
    """The card's own changes (``changes --card``), each text change with its word diff; None: they could not be
    read (its name names several cards, say)."""
    from oracle_tools.history.changes import word_diff

    try:
        history = db.changes_report(card=name)
    except OracleToolsError:
        return None
    for group in history["groups"]:
        for change in group["changes"]:
            change["pieces"] = word_diff(change["old_value"], change["new_value"]) if change["diff"] else []
    return history


async def card_page(request: Request) -> Response:
    """GET /card/{oracle_id}[?printing=ID]: the Oracle card with one of its printings."""
    oracle_id = request.path_params["oracle_id"]
    printing = request.query_params.get("printing", "").strip() or None
    if not _UUID.match(oracle_id) or (printing is not None and not _UUID.match(printing)):
        return await _page(request, "card.html", _fail("That is not an Oracle id (a UUID).", 404))
    return await _page(
        request, "card.html", lambda db, ctx: card_page_context(db, oracle_id.lower(), printing, ctx["generation"])
    )


async def card_by_number(request: Request) -> Response:
    """GET /card/{set}/{number}[/{lang}]: the card of that printing (English first unless a language is given)."""
    set_code, number = request.path_params["set"], request.path_params["number"]
    lang = request.path_params.get("lang")

    def collect(db: OracleDB, ctx: dict[str, Any]) -> dict[str, Any]:
        found = db.printing_id(set_code, number, lang)  # as GET /cards/{set}/{number}/{lang} finds it
        if found is None:
            where = f"{set_code[:20].upper()} #{number[:20]}" + (f" in {lang[:10]}" if lang else "")
            raise PageError(f"No printing {where} in this database.", 404)
        return card_page_context(db, "", found, ctx["generation"])

    return await _page(request, "card.html", collect)


def _fail(message: str, status: int) -> Callable[[Any, Any], dict[str, Any]]:
    def collect(db: OracleDB, ctx: dict[str, Any]) -> dict[str, Any]:
        raise PageError(message, status)

    return collect


async def card_named(request: Request) -> Response:
    """GET /card?name=: the card a name names (any name: face, foreign, alternate; CR 201), as a redirect to its
    page; a miss or an ambiguous name is a page saying so, with suggestions. Search syntax (``t:goblin c:r``) is
    answered as a search: the one card it finds, else the search page (:func:`name_box_search`)."""
    generation = request.scope["oracle_tools.generation"]
    name = request.query_params.get("name", "").strip()
    if not name or len(name) > MAX_NAME:

        async def bad() -> Response:
            return await _page(request, "card.html", _fail("Give a card name: /card?name=Fire // Ice.", 400))

        return await bad()

    def find() -> Resolution | str:
        from oracle_tools.interfaces.serve.searches import name_box_search

        return name_box_search(generation, name) or generation.db.resolve(name, fuzzy=True)

    try:
        found = await run_pooled(request, "lookups", find)
    except PoolFull as exc:
        return busy_response(str(exc), page_headers(_images(request)))
    if isinstance(found, str):
        return RedirectResponse(found, status_code=303)
    if found.ok and found.oracle_id:
        return RedirectResponse(f"/card/{found.oracle_id}", status_code=303)

    def collect(db: OracleDB, ctx: dict[str, Any]) -> dict[str, Any]:
        return {"miss": found}

    return await _page(request, "card.html", collect)


# -- /token/{name} ------------------------------------------------------------------------------------------


def token_catalog(db: OracleDB, generation: Generation | None) -> dict[str, list[dict[str, Any]]]:
    """:meth:`OracleDB.token_list` (every token name and kind with its creators) by folded name, read once per database
    generation: the page then finds a name's rows as ``token_list(name)`` does, by the same folding."""
    from oracle_tools.text.matching import normalize

    def build() -> dict[str, list[dict[str, Any]]]:
        by_name: dict[str, list[dict[str, Any]]] = {}
        for row in db.token_list().to_dicts():
            by_name.setdefault(normalize(row["name"]), []).append(row)
        return by_name

    return generation.cached(TOKEN_CATALOG, build) if generation is not None else build()


def token_names(db: OracleDB, generation: Generation | None) -> list[str]:
    """Every token name of the catalog, sorted: the token box's suggestions (a ``<datalist>``: the browser offers
    them as the reader types, keyboard included, with no script; ``/cards/autocomplete`` knows card names only)."""

    def build() -> list[str]:
        return sorted({row["name"] for rows in token_catalog(db, generation).values() for row in rows}, key=str.lower)

    return generation.cached(TOKEN_NAMES, build) if generation is not None else build()


def token_page_context(db: OracleDB, name: str, generation: Generation | None = None) -> dict[str, Any]:
    from oracle_tools.text.matching import normalize

    answer = db.token(name)
    catalog = token_catalog(db, generation).get(normalize(name), [])
    return {
        "title": f"{answer.name or name} token",
        "query": name,
        "token": answer,
        "catalog": catalog,
        "token_names": token_names(db, generation),
    }


async def token_named(request: Request) -> Response:
    """GET /token?name=: the token page's form, answered by the page of that name (an empty box: the form alone)."""
    name = request.query_params.get("name", "").strip()
    if name and len(name) <= MAX_NAME:
        return RedirectResponse(f"/token/{quote(name, safe='')}", status_code=303)

    def collect(db: OracleDB, ctx: dict[str, Any]) -> dict[str, Any]:
        ctx["token_names"] = token_names(db, ctx["generation"])
        if name:
            raise PageError(f"A token name has at most {MAX_NAME:,} characters.")
        return {"title": "Tokens"}

    return await _page(request, "token.html", collect, "Tokens")


async def token_page(request: Request) -> Response:
    name = request.path_params["name"].strip()
    if not name or len(name) > MAX_NAME:
        return await _page(request, "token.html", _fail("Give a token name: /token/Treasure.", 400))
    return await _page(request, "token.html", lambda db, ctx: token_page_context(db, name, ctx["generation"]))


# -- /deck --------------------------------------------------------------------------------------------------


def deck_page_context(db: OracleDB, params: Mapping[str, str], context: dict[str, Any]) -> dict[str, Any]:
    """The deck page's answers for the form's ``params`` (the address's, or a posted form's), written into
    ``context`` as they come (an error keeps the form filled in)."""
    from oracle_tools.decks.checker import format_rules
    from oracle_tools.decks.decklist import echo
    from oracle_tools.interfaces.serve.web import FORMAT_MISSING, MAX_BODY, check_pasted_deck, format_choices

    deck = params.get("deck", "").replace("\r\n", "\n")  # a form posts CRLF line ends
    fmt = params.get("format", "").strip() or "modern"
    context.update(
        {
            "title": "Deck check",
            "deck": deck,
            "format": fmt,
            "commander": params.get("commander", "")[:MAX_NAME],
            "formats": format_choices(),
            "report": None,
            "share": None,
        }
    )
    commander = params.get("commander", "").strip()
    if len(commander) > MAX_NAME:
        raise PageError(f"The commander name is longer than {MAX_NAME:,} characters.")
    if "deck" not in params:
        return context
    if len(deck.encode()) > MAX_BODY:
        raise PageError(f"The decklist is larger than {MAX_BODY // 1024:,} KB; paste a smaller one.", 413)
    if not params.get("format", "").strip():  # as POST /decks/check answers: never judged as some format
        raise PageError(FORMAT_MISSING)
    rules = format_rules(fmt)
    context["format"], context["format_label"] = rules.key, rules.label or rules.key
    if not deck.strip():
        raise PageError("The decklist is empty: paste one card per line, such as '4 Lightning Bolt'.")
    report = check_pasted_deck(db, deck, rules.key, commander)
    lines = deck.splitlines()
    problems = [
        {
            "kind": p.kind,
            "card": p.card,
            "line": p.line,
            "detail": p.detail,
            "text": echo(lines[p.line - 1]) if p.line and p.line <= len(lines) else "",
        }
        for p in report.problems
    ]
    since = {(c["card"], c["line"]): c["detail"] for c in db.deck_changes(report)} if problems else {}
    for p in problems:
        p["since"] = since.get((p["card"], p["line"]))
    share = "/deck?" + urlencode({"format": rules.key, **({"commander": commander} if commander else {}), "deck": deck})
    # which file's legalities judge the deck: one answer per database (a query over every printing), kept
    generation = context.get("generation")
    legalities = (
        generation.cached(LEGALITIES_SOURCE, db.legalities_source) if generation is not None else db.legalities_source()
    )
    context.update(
        report=report,
        problems=problems,
        legalities=legalities,
        share=share if len(share) <= MAX_DECK_URL else None,
    )
    return context


async def deck_page(request: Request) -> Response:
    """GET /deck?deck=&format=&commander= (a shareable address), POST /deck (the form: a list too long for an address)."""
    from oracle_tools.interfaces.serve.web import deck_pool, read_form

    if request.method != "POST":
        params = dict(request.query_params.items())
        pool = deck_pool(params["deck"]) if "deck" in params else "lookups"
        return await _page(request, "deck.html", lambda db, ctx: deck_page_context(db, params, ctx), "Deck check", pool)
    form = await read_form(request)
    if isinstance(form, tuple):  # not a form, too big, not UTF-8: said on the empty form
        message, status = form

        def unread(db: OracleDB, ctx: dict[str, Any]) -> dict[str, Any]:
            deck_page_context(db, {}, ctx)
            raise PageError(message, status)

        return await _page(request, "deck.html", unread, "Deck check")
    pool = deck_pool(form.get("deck", ""))  # a check of many names is the API's deck work (POST /decks/check)
    return await _page(request, "deck.html", lambda db, ctx: deck_page_context(db, form, ctx), "Deck check", pool)


# -- images on / off --------------------------------------------------------------------------------------


async def images_setting(request: Request) -> Response:
    """GET /images?show=1|0&next=/path: turn card images on or off (a cookie), back to the page the reader was on."""
    show = request.query_params.get("show") == "1"
    target = request.query_params.get("next", "/search")
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        target = "/search"
    response = RedirectResponse(target, status_code=303)
    if show:
        response.set_cookie(IMAGES_COOKIE, "1", max_age=365 * 86400, samesite="strict", httponly=True)
    else:
        response.delete_cookie(IMAGES_COOKIE)
    return response


routes = [
    Route("/favicon.ico", favicon, methods=["GET"]),
    Route("/static/{name}", static, methods=["GET"]),
    Route("/search", search_page, methods=["GET"]),
    Route("/card", card_named, methods=["GET"]),
    Route("/card/{set}/{number}/{lang}", card_by_number, methods=["GET"]),
    Route("/card/{set}/{number}", card_by_number, methods=["GET"]),
    Route("/card/{oracle_id}", card_page, methods=["GET"]),
    Route("/token", token_named, methods=["GET"]),
    Route("/token/{name:path}", token_page, methods=["GET"]),
    Route("/deck", deck_page, methods=["GET", "POST"]),
    Route("/images", images_setting, methods=["GET"]),
]
