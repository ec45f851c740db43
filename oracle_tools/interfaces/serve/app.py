"""The HTTP API: Scryfall-compatible card endpoints and the rules endpoints, on Starlette.

``create_app(db_path)`` builds the ASGI app; ``oracle-tools serve`` runs it with uvicorn. Endpoints
(full reference: docs/serve.md):

Scryfall's paths, parameters, JSON shapes and error objects (https://scryfall.com/docs/api):
``GET /cards/named?exact=|fuzzy=[&set=]``, ``GET /cards/search?q=&unique=&order=&dir=&page=``,
``POST /cards/collection``, ``GET /cards/autocomplete?q=``, ``GET /cards/{id}``,
``GET /cards/{set}/{number}[/{lang}]``, ``GET /cards/{id}/rulings``.

The rules endpoints answer exactly the JSON of the matching CLI command with ``--json``:
``GET /names/resolve?q=[&fuzzy=true]`` (``resolve --json``), ``POST /names/resolve`` (a JSON list of
names: ``resolve --batch --json``), ``GET /tokens/{name}`` (``token --json``),
``GET /choose-name?name=&constraint=|card=`` (``choose-name --json``),
``GET /choose-name/list?constraint=|card=`` (``choose-name --list --json``),
``POST /decks/check?format=[&commander=]`` with the decklist as the body (``deck check --json``),
``GET /changes?run=|since=&format=&card=&page=`` (``changes --json``'s changes as a list object).

Every error is a Scryfall error object ``{"object": "error", "code", "status", "details"}`` (plus
``type`` where Scryfall has one): unknown paths and parameters, wrong types, invalid JSON, bodies over
1 MB (413), names over 1,000 characters. Nothing reaches the client as a traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any, overload
from urllib.parse import urlencode

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from oracle_tools.db import MAX_BATCH_NAMES
from oracle_tools.errors import DatabaseMissingError, OracleToolsError
from oracle_tools.interfaces.serve import searches
from oracle_tools.interfaces.serve.pools import LARGE_WORK, POOLS, Pool, PoolFull
from oracle_tools.interfaces.serve.store import BASE_URL, BASE_URL_BYTES, Generation, IdList, Store
from oracle_tools.names.resolver import MAX_NAME_CHARS
from oracle_tools.scryfall import cardjson
from oracle_tools.text.surrogates import lone_surrogate

log = logging.getLogger("oracle_tools.interfaces.serve")

MAX_BODY = 1024 * 1024  # bytes: a bigger request body is refused with 413
MAX_NAME = MAX_NAME_CHARS  # characters of a name, query or constraint (the names layer's limit)
MAX_COLLECTION = 75  # identifiers per POST /cards/collection, as on Scryfall
PAGE_SIZE = 175  # cards per /cards/search page, as on Scryfall
AUTOCOMPLETE_LIMIT = 20  # names per /cards/autocomplete answer, as on Scryfall

#: Scryfall's parameters of every endpoint (https://scryfall.com/docs/api/request-formats): the answer's form.
_COMMON = frozenset({"format", "pretty"})
#: The forms Scryfall serves: JSON everywhere; text and image where one card is the answer.
_JSON_ONLY = frozenset({"json"})
CARD_FORMATS = frozenset({"json", "text", "image"})
#: The image versions ``format=image`` takes (``version=``), as Scryfall names them; ``large`` by default.
IMAGE_VERSIONS = ("small", "normal", "large", "png", "art_crop", "border_crop")


class ApiError(Exception):
    """An answer with a Scryfall error object: the HTTP status, what was wrong (``details``), Scryfall's ``code``
    for the status (``_CODES``) unless given, its optional ``type`` and ``warnings``."""

    def __init__(
        self,
        status: int,
        details: str,
        type_: str | None = None,
        warnings: Sequence[str] | None = None,
        *,
        code: str | None = None,
    ) -> None:
        super().__init__(details)
        self.status, self.details, self.type, self.warnings = status, details, type_, warnings
        self.code = code or _CODES.get(status, "error")


_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "unprocessable_entity",
    500: "internal_server_error",
    503: "service_unavailable",
}


def error_body(
    status: int, details: str, code: str | None = None, type_: str | None = None, warnings: Sequence[str] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "object": "error",
        "code": code or _CODES.get(status, "error"),
        "status": status,
        "details": details,
    }
    if type_:
        body["type"] = type_
    if warnings:
        body["warnings"] = list(warnings)
    return body


def json_bytes(data: Any) -> bytes:
    """The same ``json.dumps`` as the CLI's ``--json`` (``default=str`` for dates), compact."""
    return json.dumps(data, ensure_ascii=False, default=str, separators=(",", ":")).encode("utf-8")


def json_response(data: Any, status: int = 200) -> Response:
    return Response(json_bytes(data), status_code=status, media_type="application/json")


def raw_json_response(body: bytes, status: int = 200) -> Response:
    return Response(body, status_code=status, media_type="application/json")


def error_response(exc: ApiError) -> Response:
    return json_response(error_body(exc.status, exc.details, exc.code, exc.type, exc.warnings), exc.status)


# -- parameters -------------------------------------------------------------------------------------


def _params(
    request: Request,
    allowed: frozenset[str],
    *,
    scryfall: bool = True,
    formats: frozenset[str] = _JSON_ONLY,
) -> dict[str, str]:
    """The query parameters this endpoint uses, each once.

    Scryfall's endpoints follow Scryfall's rules: a parameter the endpoint does not use is ignored (Scryfall
    ignores them, and clients send their own: scrython adds ``format=json&face=&version=&pretty=`` and its path
    values to every request); ``format`` takes the forms the endpoint documents (``formats``: json, and text and
    image on single-card endpoints), ``pretty`` indents the JSON, and ``face``/``version`` choose the image of
    ``format=image``. A used parameter given twice or with a malformed value is a 400 (an unserved format a 422).
    The rules endpoints (``scryfall=False``) are this project's own and refuse an unknown parameter with a 400.
    """
    used = allowed | _COMMON if scryfall else allowed
    out: dict[str, str] = {}
    for key, value in request.query_params.multi_items():
        if key not in used:
            if scryfall:
                continue  # as Scryfall: a parameter the endpoint does not use changes nothing
            raise ApiError(
                400,
                f"unknown parameter {key!r} for {request.url.path}; "
                f"this endpoint takes: {', '.join(sorted(used)) or 'no parameters'}.",
            )
        if key in out and key != "commander" and out[key] != value:
            raise ApiError(400, f"parameter {key!r} is given more than once; give it once.")
        out[key] = value
    if scryfall:
        _answer_form(request, out, formats)
    return out


def _answer_form(request: Request, params: dict[str, str], formats: frozenset[str]) -> None:
    """Check Scryfall's ``format``/``pretty``/``face``/``version`` and note the answer's form for
    :class:`AnswerForms` (https://scryfall.com/docs/api/request-formats)."""
    form = params.pop("format", "") or "json"
    if form not in formats:
        offered = ", ".join(f"format={f}" for f in sorted(formats))
        raise ApiError(422, f"format={form[:40]!r} is not served by {request.url.path}; it serves {offered}.")
    pretty = _bool(params.pop("pretty", None), "pretty")
    face = params.pop("face", "") or ""
    version = params.pop("version", "") or ""
    if form == "image":
        if face not in ("", "front", "back"):
            raise ApiError(400, f"face={face[:40]!r} is not a card face; give face=back (or leave it out).")
        if version and version not in IMAGE_VERSIONS:
            raise ApiError(
                400, f"version={version[:40]!r} is not an image version; give one of {', '.join(IMAGE_VERSIONS)}."
            )
    state = request.scope.setdefault("state", {})
    state["answer_form"] = (form, pretty, face, version or "large")


@overload
def _text(value: str | None, what: str) -> str: ...
@overload
def _text(value: str | None, what: str, *, required: bool) -> str | None: ...
def _text(value: str | None, what: str, *, required: bool = True) -> str | None:
    if value is None or not value.strip():
        if required:
            raise ApiError(400, f"{what} is missing; give it as a non-empty value.")
        return None
    if len(value) > MAX_NAME:
        raise ApiError(400, f"{what} is {len(value):,} characters long; at most {MAX_NAME:,} are accepted.")
    return value


def _bool(value: str | None, what: str) -> bool:
    if value is None or value == "":
        return False
    lowered = value.lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise ApiError(400, f"{what}={value!r} is not a boolean; give true or false.")


async def _body(request: Request) -> bytes:
    """The request body, refused with 413 past MAX_BODY (by Content-Length, or while reading)."""
    length = request.headers.get("content-length")
    if length is not None:
        if not (length.isascii() and length.isdigit()):  # str.isdigit alone takes "²", which int() refuses
            raise ApiError(400, "the Content-Length header is not a number.")
        if int(length) > MAX_BODY:
            raise ApiError(
                413,
                f"the request body is {int(length):,} bytes; at most {MAX_BODY:,} are accepted.",
            )
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > MAX_BODY:
            raise ApiError(413, f"the request body is over {MAX_BODY:,} bytes; send less.")
    return bytes(body)


async def _json_body(request: Request) -> Any:
    return _parse_json(await _body(request))


def _parse_json(raw: bytes) -> Any:
    """A request body as JSON, or the 400 saying why not (empty, not JSON, a lone surrogate)."""
    if not raw.strip():
        raise ApiError(400, "the request body is empty; send JSON.")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise ApiError(400, f"the request body is not valid JSON ({str(exc)[:200]}).") from None
    where = lone_surrogate(data)
    if where is not None:
        raise ApiError(
            400,
            f"the request body's JSON holds a lone surrogate ({where}), which is no Unicode character; send text",
        )
    return data


# -- running work ------------------------------------------------------------------------------------


async def _answer_in_threadpool(
    request: Request, work: Callable[[Generation], Response], pool: str = "lookups"
) -> Response:
    """Run ``work`` on a worker thread of ``pool`` against the request's database generation (see GenerationLease)."""
    generation: Generation = request.scope["oracle_tools.generation"]
    pools: dict[str, Pool] = request.app.state.pools
    return await pools[pool].run(_answer_or_error_object, work, generation)


async def _answer_remembered(
    request: Request,
    params: dict[str, str],
    work: Callable[[Generation], Response],
    pool: str = "lookups",
    *,
    base: str | None = None,
) -> Response:
    """:func:`_answer_in_threadpool` for a GET rules endpoint, whose answer depends only on the path, the parameters,
    the read-only database and (``base``, for answers holding links) the server's address the client used: a 200
    answer is kept per generation and given again without running ``work`` (a nameable list takes most of a
    second)."""
    generation: Generation = request.scope["oracle_tools.generation"]
    key = (request.url.path, tuple(sorted(params.items())), base)
    body = generation.answers.get(key)
    if body is not None:
        return raw_json_response(body)
    response = await _answer_in_threadpool(request, work, pool)
    if response.status_code == 200:
        generation.remember_answer(key, bytes(response.body))
    return response


#: Seconds a client has to send a request's whole body (408 after; stated in docs/serve.md).
BODY_TIMEOUT = 10.0
#: Request bodies one client address may be sending at once; more are answered 429 at once. A stalled body
#: then uses its sender's budget, not the connection cap every client shares (limits.MAX_CONNECTIONS).
BODIES_PER_CLIENT = 16


class ReadBodyFirst:
    """ASGI middleware outside GenerationLease: a request's body is read whole (up to MAX_BODY + 1 bytes) before
    the request takes its database generation, so a swap after a re-ingest never waits on a client still
    sending. The body has BODY_TIMEOUT seconds (408 after, and the connection is closed), and one client
    address sends at most BODIES_PER_CLIENT at once (429 beyond)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.sending: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _has_body(scope):
            await self.app(scope, receive, send)
            return
        client = str((scope.get("client") or ("",))[0])
        if self.sending.get(client, 0) >= BODIES_PER_CLIENT:
            await _refuse(
                scope,
                receive,
                send,
                429,
                f"this client is sending {BODIES_PER_CLIENT} request bodies "
                "at once already; send the next when one is answered",
                "too_many_requests",
            )
            return
        self.sending[client] = self.sending.get(client, 0) + 1
        chunks: list[bytes] = []
        size = 0
        try:
            with anyio.fail_after(BODY_TIMEOUT):
                more = True
                while more and size <= MAX_BODY:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return  # the client left: nothing to answer
                    chunks.append(message.get("body", b""))
                    size += len(chunks[-1])
                    more = message.get("more_body", False)
        except TimeoutError:
            await _refuse(
                scope,
                receive,
                send,
                408,
                f"the request body did not arrive within {BODY_TIMEOUT:g} s; send it whole, at once",
                "request_timeout",
            )
            return
        finally:
            left = self.sending[client] - 1
            if left:
                self.sending[client] = left
            else:
                del self.sending[client]
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # a disconnect, when the client leaves
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)


def _has_body(scope: Scope) -> bool:
    """Whether the request says a body follows (a Content-Length over 0, or Transfer-Encoding)."""
    for name, value in scope["headers"]:
        if name == b"transfer-encoding" or (name == b"content-length" and value.strip() not in (b"", b"0")):
            return True
    return False


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, details: str, code: str) -> None:
    """Answer a Scryfall error object and close the connection (what was sent of the body is not read on)."""
    response = error_response(ApiError(status, details, code=code))
    response.headers["connection"] = "close"
    await response(scope, receive, send)


class GenerationLease:
    """ASGI middleware: every HTTP request (API and web page) holds the current database generation
    from start to end, so a re-ingest swap waits for it (oracle_tools/interfaces/serve/store.py); it starts
    once the request's body is read (ReadBodyFirst), so a client still sending holds no swap up."""

    def __init__(self, app: ASGIApp, store: Store) -> None:
        self.app, self.store = app, store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            generation = await self.store.acquire()
        except OracleToolsError as exc:
            await error_response(ApiError(503, str(exc)))(scope, receive, send)
            return
        scope["oracle_tools.generation"] = generation
        try:
            await self.app(scope, receive, send)
        finally:
            self.store.release()


def _answer_or_error_object(work: Callable[[Generation], Response], generation: Generation) -> Response:
    """``work``'s answer, or the Scryfall error object its error means (a user's mistake is a 400, no 500)."""
    try:
        return work(generation)
    except ApiError as exc:
        return error_response(exc)
    except DatabaseMissingError as exc:
        return error_response(ApiError(503, str(exc)))
    except OracleToolsError as exc:
        return error_response(ApiError(400, str(exc)))


# -- card objects ----------------------------------------------------------------------------------


def _base_url(request: Request) -> str:
    """This server's address for the links in answers (``uri``, ``next_page`` …). The ``Host`` header is a
    client's word: it is used only when it names the address the connection came in on (or ``localhost`` at
    its port), else the links use that address itself, so no request can make answers point elsewhere."""
    server = request.scope.get("server") or ("127.0.0.1", 8765)
    host, port = str(server[0]), int(server[1])
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    given = request.headers.get("host", "").strip().lower()
    allowed = {address.lower(), f"localhost:{port}"} | ({host.lower(), "localhost"} if port == 80 else set())
    return f"http://{given if given in allowed else address}"


def card_json(generation: Generation, ids: Sequence[str]) -> list[bytes | None]:
    """Card objects as JSON bytes for printing ids (None for an unknown id), cached per generation
    (:meth:`Generation.card_objects_json`); :func:`_with_base` puts the request's base URL in."""
    return generation.card_objects_json(ids)


def representative(generation: Generation, oracle_ids: Sequence[str]) -> dict[str, str]:
    """Printing id of each Oracle id's representative printing (cardjson's rule), cached."""
    cache = generation.representative
    missing = [oid for oid in dict.fromkeys(oracle_ids) if oid not in cache]
    found = cardjson.representative_ids(generation.cursor(), missing) if missing else {}
    cache.update(found)  # the ids of cards only: a client's made-up ids are not kept
    return {oid: pid for oid in oracle_ids if (pid := cache.get(oid) or found.get(oid))}


def _list_body(items: Sequence[bytes], **fields: Any) -> bytes:
    """A Scryfall list object whose ``data`` are already-serialised card objects."""
    head = json_bytes({"object": "list", **fields})[:-1]
    return head + b',"data":[' + b",".join(items) + b"]}"


def _card_answer(generation: Generation, printing_id: str | None, base_url: str, missing: str) -> Response:
    if printing_id:
        body = card_json(generation, [printing_id])[0]
        if body is not None:
            return raw_json_response(body.replace(BASE_URL_BYTES, base_url.encode()))
    raise ApiError(404, missing)


def _printing_in_set(generation: Generation, oracle_id: str, set_code: str) -> str | None:
    row = (
        generation.cursor()
        .execute(
            "SELECT id FROM printings WHERE oracle_id = ? AND set_code = lower(?) "
            "ORDER BY (lang = 'en') DESC, coalesce(promo, false), collector_number, id LIMIT 1",
            [oracle_id, set_code],
        )
        .fetchall()
    )
    return row[0][0] if row else None


# -- Scryfall endpoints -------------------------------------------------------------------------------

#: ``face``/``version``: which image ``format=image`` redirects to (single-card endpoints).
_IMAGE_CHOICE = frozenset({"face", "version"})
_NAMED = frozenset({"exact", "fuzzy", "set"}) | _IMAGE_CHOICE


async def cards_named(request: Request) -> Response:
    """GET /cards/named?exact=|fuzzy=[&set=]: one card by name (CR 201: any face, language, alternate name)."""
    params = _params(request, _NAMED, formats=CARD_FORMATS)
    if ("exact" in params) == ("fuzzy" in params):
        raise ApiError(400, "give exactly one of exact= or fuzzy= (a card name).")
    fuzzy = "fuzzy" in params
    name = _text(params["fuzzy" if fuzzy else "exact"], "fuzzy" if fuzzy else "exact")
    assert name is not None
    set_code = _text(params.get("set"), "set", required=False)
    base = _base_url(request)
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
            pid = _named_printing(gen, name, fuzzy, set_code)
        except ApiError as exc:  # kept without its traceback (whose frames hold the request): a copy
            gen.remember_named(key, ApiError(exc.status, exc.details, exc.type, exc.warnings, code=exc.code))
            raise
        gen.remember_named(key, pid)
        return _card_answer(gen, pid, base, f"No printing of “{name}” in the database.")

    return await _answer_in_threadpool(request, work)


def _named_printing(gen: Generation, name: str, fuzzy: bool, set_code: str | None) -> str:
    """The printing id /cards/named answers with, or an ApiError (404, maybe of type "ambiguous")."""
    # The one resolver of every interface (oracle_tools.text.matching: Scryfall's fuzzy rule); what stays here is
    # the server's convention for a name several Oracle cards print identically (_one_of_same_name).
    result: Any = gen.db.resolve(name, fuzzy=fuzzy)
    same_name = None if result.ok else _one_of_same_name(gen, result, set_code)
    if same_name:
        result = SimpleNamespace(ok=True, oracle_id=same_name, name=result.candidates[0].name, status="ok")
    if result.status == "ambiguous":
        raise ApiError(
            404,
            f"Too many cards match ambiguous name “{name}”: "
            f"{', '.join(c.name for c in result.candidates[:10])}. Add more words to refine "
            "your search.",
            "ambiguous",
        )
    if not result.ok or not result.oracle_id:
        hint = f" Did you mean: {', '.join(result.suggestions)}?" if result.suggestions else ""
        raise ApiError(404, f"No cards found matching “{name}”.{hint}")
    if set_code:
        pid = _printing_in_set(gen, result.oracle_id, set_code)
        if pid is None:
            raise ApiError(404, f"No cards found matching “{name}” in set “{set_code}”.")
        return pid
    pid = representative(gen, [result.oracle_id]).get(result.oracle_id)
    if not pid:
        raise ApiError(404, f"No printing of “{result.name}” in the database.")
    return pid


def _one_of_same_name(gen: Generation, result: Any, set_code: str | None = None) -> str | None:
    """The Oracle id to answer for a name several Oracle cards print identically (Unstable's six Very
    Cryptic Commands: CR 201.2, the same name). ``resolve`` calls that ambiguous, rightly for the rules;
    Scryfall's exact lookups answer one card, so do these: the one whose printing comes first (in
    ``set_code`` when given) by English, newest, collector number. None when the candidates' names differ."""
    candidates = result.candidates or ()
    if result.status != "ambiguous" or len({c.name for c in candidates}) != 1:
        return None
    oracle_ids = sorted({c.oracle_id for c in result.candidates if getattr(c, "oracle_id", None)})
    row = (
        gen.cursor()
        .execute(
            "SELECT oracle_id FROM printings WHERE list_contains(?, oracle_id) "
            "AND (? IS NULL OR set_code = lower(?)) "
            "ORDER BY (lang = 'en') DESC, released_at DESC, collector_number, id LIMIT 1",
            [oracle_ids, set_code, set_code],
        )
        .fetchall()
    )
    return row[0][0] if row else None


_UUID_CHARS = frozenset("0123456789abcdef-")


def _looks_like_uuid(text: str) -> bool:
    return len(text) == 36 and set(text.lower()) <= _UUID_CHARS


async def card_by_id(request: Request) -> Response:
    """GET /cards/{id}: one printing by its Scryfall id."""
    _params(request, _IMAGE_CHOICE, formats=CARD_FORMATS)
    card_id = request.path_params["id"]
    if not _looks_like_uuid(card_id):
        raise ApiError(
            404,
            f"“{card_id[:100]}” is not a Scryfall card id (a UUID); "
            "use /cards/{set}/{number} for a set and collector number.",
        )
    base = _base_url(request)
    return await _answer_in_threadpool(
        request, lambda gen: _card_answer(gen, card_id.lower(), base, f"No card found with the given ID “{card_id}”.")
    )


async def card_by_number(request: Request) -> Response:
    """GET /cards/{set}/{number}[/{lang}]: one printing by set code and collector number."""
    _params(request, _IMAGE_CHOICE, formats=CARD_FORMATS)
    set_code, number = request.path_params["set"], request.path_params["number"]
    lang = request.path_params.get("lang")
    base = _base_url(request)

    def work(gen: Generation) -> Response:
        where = f"“{set_code[:20]}” #{number[:20]}" + (f" in language “{lang[:10]}”" if lang else "")
        return _card_answer(gen, gen.db.printing_id(set_code, number, lang), base, f"No card found: {where}.")

    return await _answer_in_threadpool(request, work)


async def card_rulings(request: Request) -> Response:
    """GET /cards/{id}/rulings: the rulings of a printing's Oracle card, as a list object."""
    _params(request, frozenset())
    card_id = request.path_params["id"]
    if not _looks_like_uuid(card_id):
        raise ApiError(404, f"“{card_id[:100]}” is not a Scryfall card id (a UUID).")
    return await _answer_in_threadpool(
        request, lambda gen: _rulings_answer(gen, card_id.lower(), f"No card found with the given ID “{card_id}”.")
    )


def _rulings_answer(gen: Generation, printing_id: str | None, missing: str) -> Response:
    """The rulings of a printing's Oracle card as Scryfall's list object, or a 404 saying ``missing``."""
    cur = gen.cursor()
    row = cur.execute("SELECT oracle_id FROM printings WHERE id = ?", [printing_id]).fetchall() if printing_id else []
    if not row:
        raise ApiError(404, missing)
    rulings = cardjson.rulings(cur, row[0][0]) if row[0][0] else []
    return json_response({"object": "list", "has_more": False, "data": rulings})


#: The other ids Scryfall finds a card by (/cards/multiverse/{id} …): the printings column holding each.
#: Column names are these constants, never user text.
_ID_COLUMNS = {
    "multiverse": "list_contains(multiverse_ids, ?)",
    "mtgo": "mtgo_id = ?",
    "arena": "arena_id = ?",
    "tcgplayer": "tcgplayer_id = ?",
    "cardmarket": "cardmarket_id = ?",
}


def _printing_by(gen: Generation, kind: str, value: str) -> str | None:
    """The printing a Multiverse, MTGO, Arena, TCGplayer or Cardmarket id names (English first), or None."""
    if not (value.isascii() and value.isdigit()) or len(value) > 10:
        return None  # ids are numbers: anything else names no card
    rows = (
        gen.cursor()
        .execute(
            f"SELECT id FROM printings WHERE {_ID_COLUMNS[kind]} ORDER BY (lang = 'en') DESC, id LIMIT 1",
            [int(value)],
        )
        .fetchall()
    )
    return rows[0][0] if rows else None


def _by_id_route(kind: str, *, rulings: bool) -> Callable[[Request], Awaitable[Response]]:
    label = {"multiverse": "Multiverse", "mtgo": "MTGO", "arena": "Arena", "tcgplayer": "TCGplayer"}.get(
        kind, kind.title()
    )

    async def endpoint(request: Request) -> Response:
        if rulings:
            _params(request, frozenset())
        else:
            _params(request, _IMAGE_CHOICE, formats=CARD_FORMATS)
        value = request.path_params["value"]
        missing = f"No card found with the given {label} ID “{value[:40]}”."
        base = _base_url(request)

        def work(gen: Generation) -> Response:
            found = _printing_by(gen, kind, value)
            return _rulings_answer(gen, found, missing) if rulings else _card_answer(gen, found, base, missing)

        return await _answer_in_threadpool(request, work)

    endpoint.__doc__ = f"GET /cards/{kind}/{{id}}{'/rulings' if rulings else ''}: by the printing's {label} id."
    return endpoint


async def card_number_rulings(request: Request) -> Response:
    """GET /cards/{set}/{number}/rulings: the rulings of the card a set code and collector number name."""
    _params(request, frozenset())
    set_code, number = request.path_params["set"], request.path_params["number"]

    def work(gen: Generation) -> Response:
        found = gen.db.printing_id(set_code, number, None)
        return _rulings_answer(gen, found, f"No card found: “{set_code[:20]}” #{number[:20]}.")

    return await _answer_in_threadpool(request, work)


async def card_random(request: Request) -> Response:
    """GET /cards/random[?q=]: a random card (its preferred printing), or a random card a search finds."""
    import random

    params = _params(request, frozenset({"q"}) | _IMAGE_CHOICE, formats=CARD_FORMATS)
    query = _text(params.get("q"), "q", required=False)
    base = _base_url(request)

    def work(gen: Generation) -> Response:
        if query:
            ids = search_ids(gen, query, "cards", "name", "auto")
            if not ids:
                raise ApiError(404, "Your query didn’t match any cards. Adjust your search terms.")
            return _card_answer(gen, ids[random.randrange(len(ids))], base, "No random card found.")
        row = (
            gen.cursor()
            .execute(
                "SELECT p.id FROM preferred_printings p JOIN cards c USING (oracle_id) WHERE c.is_card "
                "ORDER BY random() LIMIT 1"
            )
            .fetchall()
        )
        return _card_answer(gen, row[0][0] if row else None, base, "The database has no cards.")

    return await _answer_in_threadpool(request, work)


def _autocomplete_names(gen: Generation) -> list[tuple[str, str]]:
    """(normalized name, name) of every Oracle card name in the reference, sorted by name."""
    from oracle_tools.text.matching import normalize

    def build() -> list[tuple[str, str]]:
        rows = gen.cursor().execute("SELECT DISTINCT name FROM cards WHERE is_card ORDER BY name").fetchall()
        return [(normalize(name), name) for (name,) in rows]

    return gen.cached("autocomplete", build)


async def cards_autocomplete(request: Request) -> Response:
    """GET /cards/autocomplete?q=: a catalog of up to 20 card names starting with (then containing) q."""
    from oracle_tools.text.matching import normalize

    params = _params(request, frozenset({"q", "include_extras"}))
    query = _text(params.get("q"), "q", required=False) or ""
    _bool(params.get("include_extras"), "include_extras")
    key = normalize(query)

    def work(gen: Generation) -> Response:
        names: list[str] = []
        if len(key) >= 2:  # Scryfall: fewer than 2 characters give an empty catalog
            entries = _autocomplete_names(gen)
            names = [name for norm, name in entries if norm.startswith(key)][:AUTOCOMPLETE_LIMIT]
            if len(names) < AUTOCOMPLETE_LIMIT:
                seen = set(names)
                names += [name for norm, name in entries if key in norm and name not in seen][
                    : AUTOCOMPLETE_LIMIT - len(names)
                ]
        return json_response({"object": "catalog", "total_values": len(names), "data": names})

    return await _answer_in_threadpool(request, work)


_SEARCH = frozenset(
    {"q", "unique", "order", "dir", "page", "include_extras", "include_multilingual", "include_variations"}
)


def search_ids(gen: Generation, query: str, unique: str, order: str, direction: str) -> IdList:
    """:func:`searches.search_ids <oracle_tools.interfaces.serve.searches.search_ids>` with its errors as the API
    answers them: a search stopped by the time limit 422, a query that is not valid syntax 400 (type ``syntax``)."""
    from oracle_tools import search as _search
    from oracle_tools.store.sqlfiles import QueryTimeoutError

    try:
        return searches.search_ids(gen, query, unique, order, direction)
    except QueryTimeoutError as exc:
        raise ApiError(422, str(exc)) from None
    except OracleToolsError as exc:
        raise ApiError(400, str(exc), "syntax" if isinstance(exc, _search.SearchSyntaxError) else None) from None


async def cards_search(request: Request) -> Response:
    """GET /cards/search?q=: Scryfall search syntax (``OracleDB.search``), 175 cards a page."""
    from oracle_tools.search import DIRECTIONS, UNIQUE  # the engine's own lists

    params = _params(request, _SEARCH)
    query = _text(params.get("q"), "q")
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
    # ASCII digits only: str.isdigit alone takes "²" (int() raises) and "２" (a page nobody typed)
    if not (page_text.isascii() and page_text.isdigit()) or not 1 <= int(page_text) <= 100_000:
        raise ApiError(400, f"page={page_text[:20]!r} is not a page number (1, 2, …).")
    page = int(page_text)
    for flag in ("include_extras", "include_multilingual", "include_variations"):
        _bool(params.get(flag), flag)
    base = _base_url(request)

    def work(gen: Generation) -> Response:
        ids_all = search_ids(gen, query, unique, order, direction)
        total = len(ids_all)
        if total == 0:
            raise ApiError(404, f"Your query “{query}” didn’t match any cards.")
        start = (page - 1) * PAGE_SIZE
        if start >= total:
            raise ApiError(
                422,
                f"page {page} is past the last page ({(total + PAGE_SIZE - 1) // PAGE_SIZE}) of {total:,} cards.",
            )
        ids = ids_all.slice(start, start + PAGE_SIZE)
        items = [b for b in card_json(gen, ids) if b is not None]
        fields: dict[str, Any] = {"total_cards": total, "has_more": start + PAGE_SIZE < total}
        if fields["has_more"]:
            next_params = {k: v for k, v in params.items() if k != "page"}
            next_params["page"] = str(page + 1)
            fields["next_page"] = f"{base}/cards/search?{urlencode(next_params)}"
        return raw_json_response(_list_body(items, **fields).replace(BASE_URL_BYTES, base.encode()))

    # a page is 175 card objects (about 500 KB): kept whole, it is not joined and relinked again per request
    return await _answer_remembered(request, params, work, base=base)


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
        return representative(gen, [ident["oracle_id"].lower()]).get(ident["oracle_id"].lower())
    if "name" in ident:
        result = gen.db.resolve(ident["name"])
        oracle_id = result.oracle_id if result.ok else _one_of_same_name(gen, result, ident.get("set"))
        if not oracle_id:
            return None
        if "set" in ident:
            return _printing_in_set(gen, oracle_id, ident["set"])
        return representative(gen, [oracle_id]).get(oracle_id)
    if "collector_number" in ident:
        return gen.db.printing_id(ident["set"], ident["collector_number"], None)
    if "mtgo_id" in ident:
        row = cur.execute(
            "SELECT id FROM printings WHERE mtgo_id = ? ORDER BY id LIMIT 1", [ident["mtgo_id"]]
        ).fetchall()
        return row[0][0] if row else None
    if "illustration_id" in ident:  # the artwork's English printing first, then the newest
        row = cur.execute(
            "SELECT id FROM printings WHERE illustration_id = ? "
            "ORDER BY (lang = 'en') DESC, released_at DESC NULLS LAST, id LIMIT 1",
            [ident["illustration_id"].lower()],
        ).fetchall()
        return row[0][0] if row else None
    row = cur.execute(
        "SELECT id FROM printings WHERE list_contains(multiverse_ids, ?) ORDER BY id LIMIT 1", [ident["multiverse_id"]]
    ).fetchall()
    return row[0][0] if row else None


async def cards_collection(request: Request) -> Response:
    """POST /cards/collection: up to 75 identifiers → a list object with ``not_found``."""
    _params(request, frozenset())
    body = await _json_body(request)
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
    checked = [_check_identifier(item, i) for i, item in enumerate(identifiers)]
    base = _base_url(request)

    def work(gen: Generation) -> Response:
        found_ids: list[str] = []
        not_found: list[dict[str, Any]] = []
        # Printing ids are looked up together: their card objects are built (or read from the cache) in one
        # step, and an id that builds no object names no printing.
        by_id = [ident["id"].lower() for ident in checked if "id" in ident]
        printed = {pid for pid, body in zip(by_id, card_json(gen, by_id), strict=True) if body is not None}
        for ident in checked:
            if "id" in ident:
                pid = ident["id"].lower() if ident["id"].lower() in printed else None
            else:
                pid = _find_identifier(gen, ident)
            if pid:
                found_ids.append(pid)
            else:
                not_found.append(ident)
        items = card_json(gen, found_ids)
        body = _list_body([b for b in items if b is not None], not_found=not_found)
        return raw_json_response(body.replace(BASE_URL_BYTES, base.encode()))

    return await _answer_in_threadpool(request, work)


def _sentence(exc: Exception) -> str:
    """A library message (lower-case, no full stop: the CLI's ``error: …`` line) as a Scryfall ``details`` sentence."""
    details = str(exc)
    return f"{details[0].upper()}{details[1:]}."


async def catalog(request: Request) -> Response:
    """GET /catalog/{name}: a Scryfall catalog object computed from the database (oracle_tools/scryfall/catalogs.py)."""
    from oracle_tools.scryfall.catalogs import reader

    _params(request, frozenset())
    name = request.path_params["name"]
    try:
        reader(name)  # an unknown name, or one not offered, is answered before any work
    except OracleToolsError as exc:
        raise ApiError(404, _sentence(exc)) from None
    base = _base_url(request)

    def work(gen: Generation) -> Response:
        data = gen.cached(f"catalog:{name}", lambda: gen.db.catalog(name))
        uri = f"{base}/catalog/{name}"
        return json_response({"object": "catalog", "uri": uri, "total_values": len(data), "data": data})

    return await _answer_in_threadpool(request, work)


async def migrations(request: Request) -> Response:
    """GET /migrations: Scryfall's list of card id migrations (merges, deletions). The bulk data carries none,
    so the list is empty: a client that syncs ids finds nothing to change."""
    _params(request, frozenset({"page"}))
    return json_response({"object": "list", "has_more": False, "data": []})


def _sets(gen: Generation) -> list[dict[str, Any]]:
    """Every set object (links hold the BASE_URL placeholder), newest first; built once per generation."""
    from oracle_tools.scryfall.sets import set_objects

    return gen.cached("sets", lambda: set_objects(gen.cursor(), base_url=BASE_URL))


async def sets_list(request: Request) -> Response:
    """GET /sets: Scryfall's set list as the ingest kept it, and every other set the database has printings of
    (oracle_tools/scryfall/sets.py)."""
    _params(request, frozenset())
    base = _base_url(request)
    return await _answer_in_threadpool(
        request,
        lambda gen: raw_json_response(
            json_bytes({"object": "list", "has_more": False, "data": _sets(gen)}).replace(BASE_URL_BYTES, base.encode())
        ),
    )


async def set_by_code(request: Request) -> Response:
    """GET /sets/{code} or /sets/{id}: one set."""
    _params(request, frozenset())
    wanted = request.path_params["code"]
    base = _base_url(request)

    def work(gen: Generation) -> Response:
        from oracle_tools.scryfall.sets import find_set

        found = find_set(_sets(gen), wanted)
        if found is None:
            raise ApiError(404, f"No Magic set found for the given code or id “{wanted[:100]}”.")
        return raw_json_response(json_bytes(found).replace(BASE_URL_BYTES, base.encode()))

    return await _answer_in_threadpool(request, work)


async def set_by_tcgplayer(request: Request) -> Response:
    """GET /sets/tcgplayer/{id}: the set of a TCGplayer group, known only from Scryfall's set list (card objects
    never say it): a database ingested without that list finds none, and says why."""
    _params(request, frozenset())
    wanted = request.path_params["id"]
    base = _base_url(request)

    def work(gen: Generation) -> Response:
        from oracle_tools.scryfall.sets import find_tcgplayer_set

        sets = _sets(gen)
        found = find_tcgplayer_set(sets, int(wanted)) if wanted.isdigit() else None
        if found is None:
            why = (
                ""
                if any("tcgplayer_id" in item for item in sets)
                else ": this database was ingested without Scryfall's set list (which says each set's TCGplayer "
                "group; an online ingest downloads it), so no set is known by one; use /sets/{code}"
            )
            raise ApiError(404, f"No Magic set found for TCGplayer group id “{wanted[:100]}”{why}.")
        return raw_json_response(json_bytes(found).replace(BASE_URL_BYTES, base.encode()))

    return await _answer_in_threadpool(request, work)


async def symbology(request: Request) -> Response:
    """GET /symbology: every card symbol (oracle_tools/scryfall/symbology.py)."""
    _params(request, frozenset())

    def work(gen: Generation) -> Response:
        from oracle_tools.scryfall.symbology import symbols

        body = gen.cached(
            "symbology", lambda: json_bytes({"object": "list", "has_more": False, "data": symbols(gen.cursor())})
        )
        return raw_json_response(body)

    return await _answer_in_threadpool(request, work)


async def parse_mana(request: Request) -> Response:
    """GET /symbology/parse-mana?cost=: Scryfall's mana_cost object; 422 for a cost it cannot read."""
    from oracle_tools.scryfall.symbology import ManaCostError
    from oracle_tools.scryfall.symbology import parse_mana as parse

    params = _params(request, frozenset({"cost"}))
    cost = _text(params.get("cost"), "cost")
    try:
        return json_response(parse(cost))
    except ManaCostError as exc:
        raise ApiError(422, _sentence(exc)) from None


async def bulk_download(request: Request) -> Response:
    """GET /bulk-data/{type}/download: the file of a bulk type this server exports (oracle_tools/interfaces/serve/
    bulk.py: built once per generation, streamed, gzip when the client takes it, at most MAX_DOWNLOADS at once)."""
    from oracle_tools.interfaces.serve import bulk

    _params(request, frozenset())
    kind = bulk.type_name(request.path_params["which"])
    if kind is None:
        raise ApiError(404, f"No bulk data of type “{request.path_params['which'][:60]}”; GET /bulk-data lists them.")
    downloads: bulk.Downloads = request.app.state.downloads
    if downloads.running >= bulk.MAX_DOWNLOADS:
        raise ApiError(503, f"{bulk.MAX_DOWNLOADS} bulk downloads are running; retry in a minute.")
    downloads.running += 1  # the slot is taken before the build is awaited, so no other request counts it free
    try:
        base = _base_url(request)
        gen: Generation = request.scope["oracle_tools.generation"]
        pools: dict[str, Pool] = request.app.state.pools
        built = await pools["large"].run(bulk.bulk_file, gen, kind, base)  # built once per generation, then cached
    except BaseException:
        downloads.running -= 1  # no answer will stream: the slot is free again
        raise
    gzip_ok = "gzip" in request.headers.get("accept-encoding", "").lower()
    answer = bulk.BulkDownload(built, gzip_ok=gzip_ok, downloads=downloads, filename=f"{kind.replace('_', '-')}.json")
    return answer  # type: ignore[return-value]  # an ASGI answer Starlette sends as it is


async def bulk_data(request: Request) -> Response:
    """GET /bulk-data and /bulk-data/{id or type}: Scryfall's bulk_data objects of the types this server exports."""
    from oracle_tools.interfaces.serve import bulk

    _params(request, frozenset())
    base = _base_url(request)
    wanted = request.path_params.get("which")

    def work(gen: Generation) -> Response:
        items = [bulk.bulk_object(gen, kind, base) for kind in bulk.TYPES]
        if wanted is None:
            return json_response({"object": "list", "has_more": False, "data": items})
        kind = bulk.type_name(wanted)
        for item in items:
            if wanted == item["id"] or kind == item["type"]:
                return json_response(item)
        raise ApiError(404, f"No bulk data found for “{wanted[:100]}”; GET /bulk-data lists them.")

    return await _answer_in_threadpool(request, work)


async def health(request: Request) -> Response:
    """GET /health: the open database generation and whether its card cache is warm (for monitors, the bench)."""
    _params(request, frozenset(), scryfall=False)
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


# -- rules endpoints (exactly the CLI's --json) -----------------------------------------------------


async def names_resolve(request: Request) -> Response:
    """GET /names/resolve?q=[&fuzzy=true] (``resolve --json``); POST a JSON list[?fuzzy=true] (``resolve --batch
    [--fuzzy] --json``)."""
    if request.method == "POST":
        fuzzy = _bool(_params(request, frozenset({"fuzzy"}), scryfall=False).get("fuzzy"), "fuzzy")
        raw = await _body(request)

        def resolve_batch(gen: Generation) -> Response:  # parsed on the worker thread: 1 MB of JSON takes a while
            body = _parse_json(raw)
            if not isinstance(body, list) or not all(isinstance(n, str) for n in body):
                raise ApiError(400, 'send a JSON list of names, such as ["Fire/Ice", "Foudre"].')
            names = [n for n in body if n.strip()]  # the CLI's --batch skips blank lines
            if len(names) > MAX_BATCH_NAMES:
                raise ApiError(
                    422,
                    f"{len(names):,} names were given; at most {MAX_BATCH_NAMES:,} are accepted per request "
                    "(send them in several, or use oracle-tools resolve --batch on this machine).",
                )
            for i, name in enumerate(names):
                if len(name) > MAX_NAME:
                    raise ApiError(400, f"name {i} is {len(name):,} characters long; at most {MAX_NAME:,}.")
            if not names:
                return json_response([])
            return json_response(gen.db.resolve_many(names, suggest=5, fuzzy=fuzzy).to_dicts())

        # names are about 20 bytes of JSON each: a body of more than LARGE_WORK of them is large work
        return await _answer_in_threadpool(request, resolve_batch, "large" if len(raw) > 20 * LARGE_WORK else "decks")
    params = _params(request, frozenset({"q", "fuzzy"}), scryfall=False)
    name = _text(params.get("q"), "q")
    fuzzy = _bool(params.get("fuzzy"), "fuzzy")
    return await _answer_remembered(
        request,
        params,
        lambda gen: json_response(gen.db.resolve(name, fuzzy=fuzzy).to_dict()),
    )


async def tokens(request: Request) -> Response:
    """GET /tokens/{name} (``token NAME --json``)."""
    params = _params(request, frozenset(), scryfall=False)
    name = _text(request.path_params["name"], "the token name")
    return await _answer_remembered(request, params, lambda gen: json_response(gen.db.token(name).to_dict()))


def _constraint(gen: Generation, phrase: str | None, card: str | None) -> tuple[Any, str, str | None]:
    from oracle_tools.choose import chooser as _choose

    if card is not None:
        return _choose.constraint_from_card(gen.db, card)
    return _choose.as_constraint(phrase), phrase or "", None


def _constraint_params(params: dict[str, str]) -> tuple[str | None, str | None]:
    phrase = _text(params.get("constraint"), "constraint", required=False)
    card = _text(params.get("card"), "card", required=False)
    if phrase is not None and card is not None:
        raise ApiError(400, "give constraint= or card=, not both.")
    return phrase, card


async def choose_name(request: Request) -> Response:
    """GET /choose-name?name=&constraint=|card= (``choose-name NAME --json``)."""
    params = _params(request, frozenset({"name", "constraint", "card"}), scryfall=False)
    name = _text(params.get("name"), "name")
    phrase, card = _constraint_params(params)

    def work(gen: Generation) -> Response:
        return json_response(gen.db.choose_name_report(name, constraint=phrase, card=card).to_dict())

    return await _answer_remembered(request, params, work)


async def choose_name_list(request: Request) -> Response:
    """GET /choose-name/list?constraint=|card= (``choose-name --list --json``)."""
    params = _params(request, frozenset({"constraint", "card"}), scryfall=False)
    phrase, card = _constraint_params(params)

    def work(gen: Generation) -> Response:
        constraint, _, _ = _constraint(gen, phrase, card)
        frame = gen.db.nameable(constraint)
        return json_response(frame.drop("oracle_text").to_dicts())

    return await _answer_remembered(request, params, work, "large")


async def decks_check(request: Request) -> Response:
    """POST /decks/check?format=[&commander=…] with a decklist body (``deck check FILE --format F --json``).

    The body is read exactly as the CLI reads a file (any decklist format; a JSON tournament cache
    gives a list of reports), through a private temporary file; the reports say ``source`` "request body".
    """
    from oracle_tools.decks.checker import check_size, format_rules, to_decklists
    from oracle_tools.errors import DecklistError

    params = _params(request, frozenset({"format", "commander"}), scryfall=False)
    fmt_text = _text(params.get("format"), "format")
    commanders = [c for c in request.query_params.getlist("commander") if c.strip()]
    for c in commanders:
        _text(c, "commander")
    try:
        fmt = format_rules(fmt_text).key
    except OracleToolsError as exc:
        raise ApiError(400, str(exc)) from None
    body = await _body(request)

    def work(gen: Generation) -> Response:
        import dataclasses

        with tempfile.TemporaryDirectory(prefix="oracle-tools-deck-") as tmp:
            path = Path(tmp) / "decklist"
            path.write_bytes(body)
            try:
                decks = to_decklists(path)
            except DecklistError as exc:
                raise ApiError(400, str(exc).replace(str(path), "the request body")) from None
        for deck in decks:  # before any work: a deck over the limits is refused at once
            try:
                check_size(dataclasses.replace(deck, source="the request body"))
            except DecklistError as exc:
                raise ApiError(
                    413,
                    str(exc).removesuffix(" (deck check --no-limits, check_deck(..., limits=False))")
                    + " (oracle-tools deck check --no-limits on this machine)",
                ) from None
        reports = []
        for deck in decks:
            one = dataclasses.replace(deck, source="request body")
            reports.append(gen.db.check_deck(one, format=fmt, commanders=commanders or None).to_dict())
        return json_response(reports[0] if len(reports) == 1 else reports)

    # a deck's size is told by its lines before it is read: a long list is large work
    return await _answer_in_threadpool(request, work, "large" if body.count(b"\n") > LARGE_WORK else "decks")


_CHANGES = frozenset({"run", "since", "format", "card", "page"})
CHANGES_PAGE = PAGE_SIZE  # changes per /changes page


async def changes(request: Request) -> Response:
    """GET /changes?run=|since=&format=&card=&page=: what an ingest changed (``oracle-tools changes --json``'s
    changes, in its order) as a Scryfall list object of ``change`` objects, 175 a page, with the counts."""
    params = _params(request, _CHANGES, scryfall=False)
    run_text = params.get("run")
    if run_text is not None and not (run_text.isascii() and run_text.isdigit() and len(run_text) < 10):
        raise ApiError(400, f"run={run_text[:20]!r} is not an ingest run number (1, 2, …).")
    since = _text(params.get("since"), "since", required=False)
    fmt = _text(params.get("format"), "format", required=False)
    card = _text(params.get("card"), "card", required=False)
    page_text = params.get("page", "1")
    if not (page_text.isascii() and page_text.isdigit()) or not 1 <= int(page_text) <= 100_000:
        raise ApiError(400, f"page={page_text[:20]!r} is not a page number (1, 2, …).")
    page = int(page_text)
    base = _base_url(request)

    def work(gen: Generation) -> Response:
        report = gen.db.changes_report(since=since, run=int(run_text) if run_text else None, format=fmt, card=card)
        every = [change for group in report["groups"] for change in group["changes"]]
        start = (page - 1) * CHANGES_PAGE
        if start and start >= len(every):
            raise ApiError(422, f"page {page} is past the last page of {len(every):,} changes.")
        body: dict[str, Any] = {
            "object": "list",
            "total_changes": len(every),
            "has_more": start + CHANGES_PAGE < len(every),
        }
        if body["has_more"]:
            body["next_page"] = f"{base}/changes?{urlencode({**params, 'page': str(page + 1)})}"
        body.update(selected=report["selected"], runs=report["runs"], counts=report["counts"])
        body["data"] = [{"object": "change", **c} for c in every[start : start + CHANGES_PAGE]]
        return json_response(body)

    # next_page holds the address this client used: answers are kept apart per address
    return await _answer_remembered(request, params, work, "large", base=base)


# -- the app --------------------------------------------------------------------------------------------


async def not_found(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 404)
    if status == 405:
        return error_response(ApiError(405, f"{request.method} is not allowed on {request.url.path}."))
    return error_response(
        ApiError(
            status,
            f"no endpoint at {request.url.path[:200]}; see docs/serve.md for the API.",
            code=_CODES.get(status, "error"),
        )
    )


async def api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc)


async def pool_full(request: Request, exc: Exception) -> Response:
    """A full worker pool (pools.PoolFull): Scryfall's error object, 503."""
    return error_response(ApiError(503, str(exc)))


async def server_error(request: Request, exc: Exception) -> Response:
    log.error("%s %s: %s: %s", request.method, request.url.path, type(exc).__name__, exc)
    return error_response(
        ApiError(
            500,
            f"the server could not answer this request ({type(exc).__name__}); it keeps running.",
        )
    )


class AnswerServerErrors:
    """ASGI middleware inside the CORS one: an exception no handler turned into an answer becomes the
    Scryfall-shaped 500 here, so it carries Access-Control-Allow-Origin like every other answer and a
    browser client can read it. (Starlette answers its ``Exception`` handler from the outermost
    middleware, outside CORS, so that 500 had no CORS header; that handler stays for anything raised
    outside this one.) An exception after the answer began is raised on: nothing can be answered then."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        answering = False

        async def watched_send(message: Message) -> None:
            nonlocal answering
            answering = answering or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched_send)
        except asyncio.CancelledError:
            # The server is stopping and its grace period (limits.GRACE_PERIOD) is over: an answer not begun is a
            # 503 error object; one being sent is cut off (its connection closes). The cancellation goes on up
            # (whoever cancelled waits for it; the server's protocol ends the task quietly, limits.py).
            if not answering:
                stopping = ApiError(503, "the server is stopping; retry when it is back", code="service_unavailable")
                await error_response(stopping)(scope, receive, send)
            raise
        except Exception as exc:
            if answering:
                raise
            await (await server_error(Request(scope), exc))(scope, receive, send)


class AnswerForms:
    """ASGI middleware: the answer in the form :func:`_answer_form` noted — ``pretty=true`` indents a JSON answer;
    ``format=text`` answers a card in Scryfall's text form; ``format=image`` redirects (302) to the card's image
    URL the data kept, or answers 422 when there is none (or no back face for ``face=back``), as Scryfall does.
    Only answers whose request asked for another form than compact JSON are held here; others pass untouched, as
    do downloads, encoded bodies and streamed bodies whatever was asked."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        chunks: list[bytes] = []
        passing = False

        async def held_send(message: Message) -> None:
            nonlocal start, passing
            form = (scope.get("state") or {}).get("answer_form")
            if passing or form is None or (form[0] == "json" and not form[1]):
                passing = True
                await send(message)
                return
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message["headers"]}
                if b"content-encoding" in names or b"content-disposition" in names:
                    passing = True  # an encoded body or a file (a bulk download): not JSON to re-form
                    await send(message)
                    return
                start = message
                return
            if message.get("more_body") and not chunks:
                passing = True  # a streamed body is sent as it comes, never held whole
                assert start is not None
                await send(start)
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            assert start is not None
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in start["headers"]}
            response = _in_form(start["status"], headers, b"".join(chunks), form)
            if response is None:  # not a JSON answer: as it was
                await send(start)
                await send({"type": "http.response.body", "body": b"".join(chunks)})
            else:
                await response(scope, receive, send)

        await self.app(scope, receive, held_send)


def _in_form(status: int, headers: dict[str, str], body: bytes, form: tuple[str, bool, str, str]) -> Response | None:
    """The answer ``body`` in ``form`` (format, pretty, face, version), or None to send it unchanged."""
    if not headers.get("content-type", "").startswith("application/json"):
        return None
    kind, pretty, face, version = form
    data = json.loads(body)
    keep = {k: v for k, v in headers.items() if k.startswith("access-control-") or k == "vary"}
    if status != 200 or kind == "json" or data.get("object") != "card":
        if not pretty:
            return None
        text = json.dumps(data, ensure_ascii=False, indent=2, default=str).encode("utf-8")
        return Response(text, status_code=status, media_type="application/json", headers=keep)
    image = cardjson.image_uri(data, version, back=face == "back")
    links = {"X-Scryfall-Card": str(data.get("scryfall_uri") or "")} | (
        {"X-Scryfall-Card-Image": image} if image else {}
    )
    if kind == "text":
        return Response(cardjson.card_text(data), media_type="text/plain; charset=utf-8", headers=keep | links)
    if image is None:
        why = (
            "this card has no back face"
            if face == "back" and len(data.get("card_faces") or ()) < 2
            else "the data this server was built from kept no image of it"
        )
        return error_response(ApiError(422, f"No image for “{data.get('name')}”: {why}; ask for format=json."))
    return Response(status_code=302, headers=keep | links | {"location": image})


def api_routes() -> list[BaseRoute]:
    return [
        Route("/cards/named", cards_named, methods=["GET"]),
        Route("/cards/search", cards_search, methods=["GET"]),
        Route("/cards/autocomplete", cards_autocomplete, methods=["GET"]),
        Route("/cards/collection", cards_collection, methods=["POST"]),
        Route("/cards/random", card_random, methods=["GET"]),
        *(
            Route(f"/cards/{kind}/{{value}}{tail}", _by_id_route(kind, rulings=bool(tail)), methods=["GET"])
            for kind in _ID_COLUMNS
            for tail in ("/rulings", "")
        ),
        Route("/cards/{id}/rulings", card_rulings, methods=["GET"]),
        Route("/cards/{set}/{number}/rulings", card_number_rulings, methods=["GET"]),
        Route("/cards/{set}/{number}/{lang}", card_by_number, methods=["GET"]),
        Route("/cards/{set}/{number}", card_by_number, methods=["GET"]),
        Route("/cards/{id}", card_by_id, methods=["GET"]),
        Route("/catalog/{name}", catalog, methods=["GET"]),
        Route("/migrations", migrations, methods=["GET"]),
        Route("/sets", sets_list, methods=["GET"]),
        Route("/sets/tcgplayer/{id}", set_by_tcgplayer, methods=["GET"]),
        Route("/sets/{code}", set_by_code, methods=["GET"]),
        Route("/symbology", symbology, methods=["GET"]),
        Route("/symbology/parse-mana", parse_mana, methods=["GET"]),
        Route("/bulk-data", bulk_data, methods=["GET"]),
        Route("/bulk-data/{which}", bulk_data, methods=["GET"]),
        Route("/bulk-data/{which}/download", bulk_download, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
        Route("/names/resolve", names_resolve, methods=["GET", "POST"]),
        Route("/tokens/{name:path}", tokens, methods=["GET"]),
        Route("/choose-name", choose_name, methods=["GET"]),
        Route("/choose-name/list", choose_name_list, methods=["GET"]),
        Route("/decks/check", decks_check, methods=["POST"]),
        Route("/changes", changes, methods=["GET"]),
    ]


def create_app(db_path: str | Path, *, extra_routes: Sequence[BaseRoute] = ()) -> Starlette:
    """The ASGI app over the database at ``db_path`` (opened read-only now: a missing file raises
    DatabaseMissingError). ``extra_routes`` are added after the API, before the web page's ``/``."""
    # the pages use the request's generation too (this thread's view of it) and the same worker pools
    from oracle_tools.interfaces.serve import pages, web

    store = Store(Path(db_path))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGHUP, store.request_reload)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no SIGHUP here
            pass
        yield
        # Stopping: the answers in flight had the grace period; interrupt the queries still running, close the
        # database and remove the spill folder (SIGTERM ends the process by its signal: atexit does not run).
        from oracle_tools.store.sqlfiles import remove_spill_folder

        try:
            if store.generation is not None:
                store.generation.interrupt()
            store.close()
            remove_spill_folder()
        except Exception as exc:  # noqa: BLE001 — stopping goes on; nothing is left to answer
            log.warning("while stopping: %s", exc)

    routes: list[BaseRoute] = [*api_routes(), *extra_routes, *pages.routes, *web.routes]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[
            # As Scryfall answers (Access-Control-Allow-Origin: *): a Scryfall client running in a browser page
            # works once its base URL is changed. No credentials: the data is public and read-only.
            Middleware(
                CORSMiddleware,
                allow_origins=["*"],
                allow_methods=["GET", "POST", "OPTIONS"],
                allow_headers=["Accept", "Content-Type"],
                max_age=300,
            ),
            Middleware(AnswerServerErrors),
            Middleware(AnswerForms),
            Middleware(ReadBodyFirst),
            Middleware(GenerationLease, store=store),
        ],
        exception_handlers={
            HTTPException: not_found,
            ApiError: api_error,
            PoolFull: pool_full,
            Exception: server_error,
        },
    )
    app.state.store = store
    app.state.pools = {name: Pool(name, threads, queue) for name, (threads, queue) in POOLS.items()}
    from oracle_tools.interfaces.serve.bulk import Downloads

    app.state.downloads = Downloads()
    return app


__all__ = ["ApiError", "create_app", "error_body"]
