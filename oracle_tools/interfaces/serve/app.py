"""The HTTP API: Scryfall-compatible card endpoints and the rules endpoints, on Starlette.

``create_app(db_path)`` builds the ASGI app; ``oracle-tools serve`` runs it with uvicorn. Its routes (full
reference: docs/serve.md) are the routes of the table of answers, ``oracle_tools/interfaces/answers.py`` (each
answer with a CLI command or an MCP tool beside it: the rules endpoints, search, catalogs, sets, symbols), then
Scryfall's routes that have no other door (:func:`scryfall_only`), with Scryfall's paths, parameters, JSON shapes
and error objects (https://scryfall.com/docs/api).

Every error is a Scryfall error object ``{"object": "error", "code", "status", "details"}`` (plus
``type`` where Scryfall has one): unknown paths and parameters, wrong types, invalid JSON, bodies over
1 MB (413), names over 1,000 characters. Nothing reaches the client as a traceback.

The modules, by job: params.py (parameters), responses.py (answers, the one error type and its rendering),
scryfall_routes.py and rules_routes.py (the handlers); this one holds the middleware, the routes (:func:`api_routes`)
and :func:`create_app`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Match, Route, Router
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from oracle_tools.errors import OracleToolsError
from oracle_tools.interfaces.answers import ANSWERS, Answer
from oracle_tools.interfaces.answers import Route as AnswerRoute
from oracle_tools.interfaces.serve import connection_limits
from oracle_tools.interfaces.serve import rules_routes as rules
from oracle_tools.interfaces.serve import scryfall_routes as scryfall
from oracle_tools.interfaces.serve.connection_limits import seconds_from_env
from oracle_tools.interfaces.serve.generations import Store
from oracle_tools.interfaces.serve.params import MAX_BODY, REFUSED_BY_HEAD
from oracle_tools.interfaces.serve.pools import POOLS, Pool, PoolFull
from oracle_tools.interfaces.serve.responses import (
    ApiError,
    api_error,
    error_body,
    error_response,
    json_bytes,
    library_error,
    log,
    not_found,
    pool_full,
    server_error,
)
from oracle_tools.interfaces.serve.searches import search_ids
from oracle_tools.scryfall import cardjson, lookups

#: A route's handler.
Endpoint = Callable[[Request], Awaitable[Response]]

#: Seconds a client has to send a request's whole body (408 after; stated in docs/serve.md;
#: ORACLE_TOOLS_SERVE_BODY_TIMEOUT changes it).
BODY_TIMEOUT = seconds_from_env("ORACLE_TOOLS_SERVE_BODY_TIMEOUT", 10.0)
#: Request bodies one client address may be sending at once; more are answered 429 at once. A stalled body
#: then uses its sender's budget, not the connection cap every client shares (connection_limits.MAX_CONNECTIONS).
BODIES_PER_CLIENT = 16


#: The first body size at which a route's ``refused_by_head`` is asked (then at each doubling of what has come).
FIRST_HEAD_CHECK = 16 * 1024


class ReadBodyFirst:
    """ASGI middleware outside GenerationLease: a request's body is read whole (up to MAX_BODY + 1 bytes; none of it
    when its Content-Length says more, which its route refuses by that) before
    the request takes its database generation, so a swap after a re-ingest never waits on a client still
    sending. The body has BODY_TIMEOUT seconds (408 after, and the connection is closed), and one client
    address sends at most BODIES_PER_CLIENT at once (429 beyond).

    ``refused_by_head`` maps a path to what says whether the first bytes of a body are enough for the route to
    refuse it whatever follows (``POST /decks/check``: its card lines past the limit). Such a body is read no
    further: the route gets those bytes and refuses them as it would the whole. A 1 MB deck is not received, copied
    and decoded whole to be refused at its 2,001st line.

    The rest of a body answered unread is read and dropped after the answer (the connection goes on) within the
    client address's connection_limits.DrainBudget: past it, the answer waits until the budget has the rest. A client that
    sends refused bodies again and again is answered no faster than its budget, and costs the server next to
    nothing meanwhile."""

    def __init__(self, app: ASGIApp, refused_by_head: Mapping[str, Callable[[bytes], bool]] | None = None) -> None:
        self.app = app
        self.sending: dict[str, int] = {}
        self.refused_by_head = dict(refused_by_head or {})
        self.drains = connection_limits.DrainBudget(
            connection_limits.DRAIN_RATE, connection_limits.DRAIN_BURST, connection_limits.DRAIN_WAIT
        )

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
        refused_by_head = self.refused_by_head.get(scope["path"])
        check_at = FIRST_HEAD_CHECK
        declared = _declared_length(scope)
        over = declared is not None and declared > MAX_BODY  # its route refuses it by its Content-Length: not read
        more = True
        try:
            with anyio.fail_after(BODY_TIMEOUT):
                while more and not over and size <= MAX_BODY:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return  # the client left: nothing to answer
                    chunks.append(message.get("body", b""))
                    size += len(chunks[-1])
                    more = message.get("more_body", False)
                    if more and refused_by_head is not None and size >= check_at:
                        chunks = [b"".join(chunks)]
                        if refused_by_head(chunks[0]):
                            scope[REFUSED_BY_HEAD] = True  # the route need not count them again
                            break  # the route refuses these bytes as it would the whole body
                        check_at = 2 * size
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
        unread = MAX_BODY if declared is None else declared - size  # (sent in chunks: MAX_BODY, as a guess)
        if more and unread > 0:  # answered unread: the rest is read and dropped within the address's budget
            wait = self.drains.wait(client, unread)
            if wait is None:  # far past it: the answer comes in DRAIN_WAIT seconds and the rest is not read
                wait, send = connection_limits.DRAIN_WAIT, _closing(send)
            if wait:
                await anyio.sleep(wait)  # no work meanwhile: the client, which waits for its answer, sends no more
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


def _declared_length(scope: Scope) -> int | None:
    """The request's Content-Length (None: none, or not a number)."""
    for name, value in scope["headers"]:
        digits = value.strip()
        if name == b"content-length" and digits.isdigit() and len(digits) < 19:
            return int(digits)
    return None


def _closing(send: Send) -> Send:
    """``send``, its answer saying ``Connection: close`` (uvicorn then closes the connection after it)."""

    async def closing_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
        await send(message)

    return closing_send


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, details: str, code: str) -> None:
    """Answer a Scryfall error object and close the connection (what was sent of the body is not read on)."""
    response = error_response(ApiError(status, details, code=code))
    response.headers["connection"] = "close"
    await response(scope, receive, send)


class GenerationLease:
    """ASGI middleware: every HTTP request (API and web page) holds the current database generation
    from start to end, so a re-ingest swap waits for it (oracle_tools/interfaces/serve/generations.py); it starts
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


#: What a refused CORS preflight asked for, by Starlette's word for it.
_CORS_REFUSED = {
    "origin": "its origin",
    "method": "its method",
    "headers": "a header",
    "private-network": "private network access",
}


class ScryfallCors(CORSMiddleware):
    """Starlette's CORS middleware, whose refused preflight (a method or header the server does not allow: plain text
    "Disallowed CORS method") is answered as every other error is, Scryfall's error object saying what was refused."""

    def preflight_response(self, request_headers: Headers) -> Response:
        response = super().preflight_response(request_headers)
        if response.status_code != 400:
            return response
        failures = bytes(response.body).decode().removeprefix("Disallowed CORS ").split(", ")
        refused = " and ".join(_CORS_REFUSED.get(failure, failure) for failure in failures)
        details = (
            f"the CORS preflight asks for {refused}, which this server does not allow; it allows the methods "
            f"{', '.join(sorted(self.allow_methods))} and the headers {', '.join(sorted(self.allow_headers))}."
        )
        headers = {k: v for k, v in response.headers.items() if k not in ("content-length", "content-type")}
        return Response(json_bytes(error_body(400, details)), 400, headers, media_type="application/json")


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
            # The server is stopping and its grace period (connection_limits.GRACE_PERIOD) is over: an answer not begun is a
            # 503 error object; one being sent is cut off (its connection closes). The cancellation goes on up
            # (whoever cancelled waits for it; the server's protocol ends the task quietly, connection_limits.py).
            if not answering:
                stopping = ApiError(503, "the server is stopping; retry when it is back", code="service_unavailable")
                await error_response(stopping)(scope, receive, send)
            raise
        except Exception as exc:
            if answering:
                raise
            await (await server_error(Request(scope), exc))(scope, receive, send)


#: An answer larger than this is put in another form (``pretty=true``, ``format=text``) on a worker thread.
REFORM_ON_LOOP_BYTES = 32 * 1024


class AnswerForms:
    """ASGI middleware: the answer in the form :func:`params._answer_form <oracle_tools.interfaces.serve.params._answer_form>` noted — ``pretty=true`` indents a JSON answer;
    ``format=text`` answers a card in Scryfall's text form; ``format=image`` redirects (302) to the card's image
    URL the data kept, or answers 422 when there is none (or no back face for ``face=back``), as Scryfall does.
    Only answers whose request asked for another form than compact JSON are held here; others pass untouched, as
    do downloads, encoded bodies and streamed bodies whatever was asked."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._limiter: anyio.CapacityLimiter | None = None  # made on the event loop, at the first large answer

    async def _reformed(
        self, status: int, headers: dict[str, str], body: bytes, form: tuple[str, bool, str, str]
    ) -> Response | None:
        """:func:`_in_form` of the answer: on the event loop for a small one; a larger one on a worker thread, one
        at a time (``pretty=true`` re-indents with Python's own JSON encoder, ~0.1 s for a page of search results:
        on the event loop, one client asking for it again and again held up every other client's requests)."""
        if len(body) <= REFORM_ON_LOOP_BYTES:
            return _in_form(status, headers, body, form)
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(1)
        reformed: Response | None = await anyio.to_thread.run_sync(
            _in_form, status, headers, body, form, limiter=self._limiter, abandon_on_cancel=True
        )
        return reformed

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
            response = await self._reformed(start["status"], headers, b"".join(chunks), form)
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


def relative_slash_redirects(router: Router) -> None:
    """A path one slash away from a route's (``/search/``, ``/cards/search/``) is redirected (307) to that route's
    path by a relative ``Location`` (the path and query as sent): Starlette's own redirect named the request's Host
    header (``Host: evil.example`` → ``Location: http://evil.example/search``), and no request makes an answer point
    elsewhere. Other misses are the 404 error object, as before."""
    router.redirect_slashes = False
    fallback = router.default

    async def default(scope: Scope, receive: Receive, send: Send) -> None:
        raw = scope.get("raw_path") or scope["path"].encode("utf-8")
        path = scope["path"]
        if scope["type"] == "http" and path != "/":
            swapped = {**scope, "path": path.rstrip("/") if path.endswith("/") else path + "/"}
            if any(route.matches(swapped)[0] is not Match.NONE for route in router.routes):
                sent = raw.decode("latin-1")
                target = sent.rstrip("/") if sent.endswith("/") else sent + "/"
                query = scope.get("query_string", b"").decode("latin-1")
                # one leading slash: "//host/…" would be a protocol-relative address, another host's
                location = "/" + target.lstrip("/") + (f"?{query}" if query else "")
                await RedirectResponse(location, status_code=307)(scope, receive, send)
                return
        await fallback(scope, receive, send)

    router.default = default


def scryfall_only() -> list[BaseRoute]:
    """Scryfall's routes that have no CLI or MCP twin, in the order Starlette matches them (after the answers')."""
    return [
        Route("/cards/named", scryfall.cards_named, methods=["GET"]),
        Route("/cards/autocomplete", scryfall.cards_autocomplete, methods=["GET"]),
        Route("/cards/collection", scryfall.cards_collection, methods=["POST"]),
        Route("/cards/random", scryfall.card_random, methods=["GET"]),
        *(
            Route(f"/cards/{kind}/{{value}}{tail}", scryfall.by_id_route(kind, rulings=bool(tail)), methods=["GET"])
            for kind in lookups.ID_KINDS
            for tail in ("/rulings", "")
        ),
        Route("/cards/{id}/rulings", scryfall.card_rulings, methods=["GET"]),
        Route("/cards/{set}/{number}/rulings", scryfall.card_number_rulings, methods=["GET"]),
        Route("/cards/{set}/{number}/{lang}", scryfall.card_by_number, methods=["GET"]),
        Route("/cards/{set}/{number}", scryfall.card_by_number, methods=["GET"]),
        Route("/cards/{id}", scryfall.card_by_id, methods=["GET"]),
        Route("/migrations", scryfall.migrations, methods=["GET"]),
        Route("/sets/tcgplayer/{id}", scryfall.set_by_tcgplayer, methods=["GET"]),
        Route("/bulk-data", scryfall.bulk_data, methods=["GET"]),
        Route("/bulk-data/{which}", scryfall.bulk_data, methods=["GET"]),
        Route("/bulk-data/{which}/download", scryfall.bulk_download, methods=["GET"]),
        Route("/bulk-data/{which}/download.jsonl.gz", scryfall.bulk_download_jsonl, methods=["GET"]),
        Route("/health", scryfall.health, methods=["GET"]),
    ]


#: The modules of ``interfaces/serve/`` a row of the table of answers names its hand-written handler in.
_HANDLERS = {"rules_routes": rules, "scryfall_routes": scryfall}


def endpoint_of(answer: Answer, route: AnswerRoute) -> Endpoint:
    """The handler of one route of the table of answers: the hand-written one it names, or made from the row."""
    if route.endpoint is None:
        return rules.made_endpoint(answer, route)
    module, function = route.endpoint.split(".")
    found: Endpoint = getattr(_HANDLERS[module], function)
    return found


def answer_routes() -> list[BaseRoute]:
    """The routes of the table of answers (:data:`~oracle_tools.interfaces.answers.ANSWERS`), in its order; the
    answers one handler serves by method on one path (``GET`` and ``POST /names/resolve``) are one route."""
    routes: dict[str, tuple[Endpoint, list[str]]] = {}
    for answer in ANSWERS:
        for route in answer.routes:
            endpoint = endpoint_of(answer, route)
            if route.path in routes and routes[route.path][0] is not endpoint:
                raise ValueError(f"two handlers for {route.path} in the table of answers")
            methods = routes.setdefault(route.path, (endpoint, []))[1]
            methods += [m for m in route.methods if m not in methods]
    return [Route(path, endpoint, methods=methods) for path, (endpoint, methods) in routes.items()]


def api_routes() -> list[BaseRoute]:
    """Every API route, in the order Starlette matches them: the table of answers' routes, then Scryfall's others."""
    return [*answer_routes(), *scryfall_only()]


def create_app(
    db_path: str | Path,
    *,
    extra_routes: Sequence[BaseRoute] = (),
    warm: bool = True,
    address: tuple[str, int] | None = None,
    links: str = "server",
) -> Starlette:
    """The ASGI app over the database at ``db_path`` (opened read-only now: a missing file raises
    DatabaseMissingError). ``extra_routes`` are added after the API, before the web page's ``/``. ``warm``: build
    every card object, the name index and the deck rules in the background at open (see ``serve --no-warm``), and
    the bulk files for ``address`` (the host and port the server is bound to), which their links name. ``links``:
    ``server`` writes links on the address a client used, ``scryfall`` Scryfall's (``serve --links``)."""
    # the pages use the request's generation too (this thread's view of it) and the same worker pools
    from oracle_tools.interfaces.serve import bulk, pages, web
    from oracle_tools.interfaces.serve.params import address_base
    from oracle_tools.scryfall.links import links_base

    bases = [links_base(address_base(*address), links)] if address is not None else []
    store = Store(Path(db_path), warm=warm, on_warm=(lambda gen: bulk.prebuild(gen, bases)) if bases else None)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no SIGHUP
            loop.add_signal_handler(signal.SIGHUP, store.request_reload)
        yield
        # Stopping: the answers in flight had the grace period; interrupt the queries still running, close the
        # database and remove the spill folder (SIGTERM ends the process by its signal: atexit does not run).
        from oracle_tools.store.sqlfiles import remove_spill_folder

        try:
            if store.generation is not None:
                store.generation.interrupt()
            store.close()
            remove_spill_folder()
        except Exception as exc:  # stopping goes on; nothing is left to answer
            log.warning("while stopping: %s", exc)

    routes: list[BaseRoute] = [*api_routes(), *extra_routes, *pages.routes, *web.routes]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[
            # As Scryfall answers (Access-Control-Allow-Origin: *): a Scryfall client running in a browser page
            # works once its base URL is changed. No credentials: the data is public and read-only.
            Middleware(
                ScryfallCors,
                allow_origins=["*"],
                allow_methods=["GET", "POST", "OPTIONS"],
                allow_headers=["Accept", "Content-Type"],
                max_age=300,
            ),
            Middleware(AnswerServerErrors),
            Middleware(AnswerForms),
            Middleware(ReadBodyFirst, refused_by_head={"/decks/check": rules.deck_refused_by_head}),
            Middleware(GenerationLease, store=store),
        ],
        exception_handlers={
            HTTPException: not_found,
            ApiError: api_error,
            OracleToolsError: library_error,
            PoolFull: pool_full,
            Exception: server_error,
        },
    )
    relative_slash_redirects(app.router)
    app.state.store = store
    app.state.links = links
    app.state.pools = {name: Pool(name, threads, queue) for name, (threads, queue) in POOLS.items()}
    from oracle_tools.interfaces.serve.bulk import Downloads

    app.state.downloads = Downloads()
    return app


__all__ = [
    "BODIES_PER_CLIENT",
    "BODY_TIMEOUT",
    "AnswerServerErrors",
    "ApiError",
    "answer_routes",
    "api_routes",
    "create_app",
    "error_body",
    "search_ids",
]
