"""Connection limits uvicorn does not set itself: a client must send its request headers in time (no
slowloris: a connection trickling one byte at a time would hold its socket forever, since every byte resets
uvicorn's keep-alive timer), with a request line of at most MAX_REQUEST_LINE bytes (414 at once otherwise) and a
bounded number and size of headers (431 otherwise); one client address holds at most CONNECTIONS_PER_CLIENT
connections (429 beyond). uvicorn's own
``limit_concurrency`` caps connections (503 beyond) and ``timeout_keep_alive`` closes idle ones.

The rest of a body the app answers without reading it whole (a deck refused at its 2,001st line, a body over the
limit) is read and dropped, so that a client which reads no answer before it has sent its whole body gets it and the
connection goes on, within its address's ``DrainBudget`` (DRAIN_BURST bytes, DRAIN_RATE more a second): past it, the
answer waits until the budget has the rest, doing nothing meanwhile (app.ReadBodyFirst). A client sending refused
1 MB deck after 1 MB deck was answered as fast as it sent, 215 times a second, and took a third of the server's
throughput from everyone else.

A client that stops reading is cut off: when what the server has to send it stays unsent for WRITE_TIMEOUT
seconds, the connection is reset (``CutsOffStalledReaders``). uvicorn only ever ``close()``s a connection, which
waits to send what is buffered first — for as long as a stalled client keeps its socket open.

``GuardedHttpToolsProtocol`` is uvicorn's httptools protocol (uvicorn[standard] installs httptools) with
those checks; ``run`` passes it as uvicorn's ``http`` class.

At rest the server sleeps (:class:`WakesOnlyWhenNeeded`): uvicorn's Server woke ten times a second to look at
its stop flag and to put the second into its Date header (0.17% of a core at rest, for nothing). Its loop now waits
for the flag to be set, and each request's protocol puts the current second in the Date header itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import struct
import sys
import time
from collections.abc import Callable
from email.utils import formatdate
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.protocols.http.flow_control import service_unavailable
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import Server, ServerState


def seconds_from_env(name: str, default: float) -> float:
    """A time limit, ``default`` unless the environment variable ``name`` gives a positive number of seconds (the
    test suite shortens the limits so that its tests of them do not wait out ten seconds each)."""
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if 0 < value < float("inf") else default


#: Seconds a client has to send a request's headers, from the connection's start or the previous answer
#: (ORACLE_TOOLS_SERVE_HEADER_TIMEOUT changes it).
HEADER_TIMEOUT = seconds_from_env("ORACLE_TOOLS_SERVE_HEADER_TIMEOUT", 10.0)
#: At most this many headers, of at most this many bytes in all (names and values).
MAX_HEADERS = 100
MAX_HEADER_BYTES = 16 * 1024
#: Connections and requests in progress at once; more are answered 503 (uvicorn's limit_concurrency).
MAX_CONNECTIONS = 512
#: Connections one client address may hold at once (a quarter of MAX_CONNECTIONS); its next one is answered 429 and
#: closed at once, so one address holding idle sockets cannot take the connections every other client shares.
CONNECTIONS_PER_CLIENT = MAX_CONNECTIONS // 4
#: The longest request line (method, target, version) read: a longer one is answered 414 and the connection closed
#: as soon as that many bytes have come (as common servers: nginx and Apache take 8 KB), never kept in memory whole.
MAX_REQUEST_LINE = 8 * 1024
#: Seconds an idle keep-alive connection stays open.
KEEP_ALIVE = 5
#: Seconds a stopping server (SIGINT, SIGTERM) gives the answers in flight: after it, those not begun are answered
#: 503 (Scryfall's error object) and those being sent are cut off.
GRACE_PERIOD = 5
#: The unread rest of answered bodies one client address has read and dropped (DRAIN_BURST bytes at once, DRAIN_RATE
#: more a second): a client with a body refused now and then is answered at once; one sending refused bodies again and
#: again has each answer wait until its budget has the rest (at most DRAIN_WAIT seconds: past that, the answer comes
#: then and the connection is closed, the rest unread).
DRAIN_BURST = 2 * 1024 * 1024
DRAIN_RATE = 2 * 1024 * 1024
DRAIN_WAIT = 10.0
#: Seconds what the server sends a client may stay unread (the connection's send buffer full) before the connection
#: is reset: a download, or any answer larger than the buffers (the environment variable sets it for tests).
WRITE_TIMEOUT = float(os.environ.get("ORACLE_TOOLS_BULK_WRITE_TIMEOUT", "30"))


class _Refused(Exception):
    """Raised from a parser callback to stop parsing a refused request."""


class CutsOffStalledReaders(asyncio.Protocol):
    """A mixin for uvicorn's HTTP protocols (httptools or h11): a connection whose client reads nothing of what
    is sent for WRITE_TIMEOUT seconds is reset. The transport pauses the protocol's writing while its buffer is
    over its high-water mark; if, WRITE_TIMEOUT seconds into a pause, the socket took nothing more from that
    buffer (as nginx's send_timeout: the time between two writes), the transport is aborted with SO_LINGER 0,
    so the kernel drops what it still holds too: a reset, not a close that would wait for ever to send it. A
    client reading slowly gets another WRITE_TIMEOUT each time the socket takes more. uvicorn then ends the
    answer as for a client that left (a download stops there: bulk.py)."""

    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    _write_deadline: asyncio.TimerHandle | None = None

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._write_deadline is None:
            self._write_deadline = self.loop.call_later(
                WRITE_TIMEOUT, self._unread, self.transport.get_write_buffer_size()
            )

    def resume_writing(self) -> None:
        self._stop_write_deadline()
        super().resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_write_deadline()
        super().connection_lost(exc)

    def _stop_write_deadline(self) -> None:
        if self._write_deadline is not None:
            self._write_deadline.cancel()
            self._write_deadline = None

    def _unread(self, unsent_then: int) -> None:
        unsent = self.transport.get_write_buffer_size()
        if unsent < unsent_then:  # the client read some, so the socket took more: another WRITE_TIMEOUT
            self._write_deadline = self.loop.call_later(WRITE_TIMEOUT, self._unread, unsent)
            return
        self._write_deadline = None
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):  # the socket is gone already: the abort is all there is to do
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()


class DrainBudget:
    """What each client address may have read and dropped of bodies answered unread: DRAIN_BURST bytes at once,
    DRAIN_RATE more a second (a token bucket, which may run into debt up to DRAIN_WAIT seconds of its rate)."""

    #: Addresses remembered at most; past it, those whose budget is whole again are forgotten.
    KEPT = 4096

    def __init__(self, rate: float, burst: float, longest: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.longest, self.clock = rate, burst, longest, clock
        self.left: dict[str, tuple[float, float]] = {}  # address: (bytes left, when)

    def wait(self, client: str, size: int) -> float | None:
        """Seconds until the address's budget has ``size`` bytes more (0: it has them), which are then taken from
        it; or None, taking nothing, when that is longer than ``longest`` seconds."""
        now = self.clock()
        left, then = self.left.get(client, (self.burst, now))
        left = min(self.burst, left + (now - then) * self.rate) - size
        wait = max(0.0, -left / self.rate)
        if len(self.left) >= self.KEPT and client not in self.left:
            self.left = {c: (n, t) for c, (n, t) in self.left.items() if n + (now - t) * self.rate < self.burst}
        if wait > self.longest:
            self.left[client] = (left + size, now)  # nothing taken
            return None
        self.left[client] = (left, now)
        return wait


class GuardedHttpToolsProtocol(CutsOffStalledReaders, HttpToolsProtocol):
    """uvicorn's httptools protocol, with a deadline for the headers and limits on their number and size, and
    stalled readers cut off."""

    _deadline: asyncio.TimerHandle | None = None
    _refused = False
    _header_count = 0
    _header_bytes = 0
    _url_bytes = 0
    _counted_as: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.app = _quiet_once_answered(self.app)
        self.logger = _QuietOnceRefused(self, self.logger)  # type: ignore[assignment]  # a Logger to uvicorn

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()
        peer = transport.get_extra_info("peername")
        client = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        held = _connections_by_client(self.server_state)
        if held.get(client, 0) >= CONNECTIONS_PER_CLIENT:
            self._refuse(
                429,
                "Too Many Requests",
                f"this client address holds {CONNECTIONS_PER_CLIENT} connections already; "
                "send the next request on one of them",
            )
            return
        held[client] = held.get(client, 0) + 1
        self._counted_as = client

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(HEADER_TIMEOUT, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        self._refuse(408, "Request Timeout", f"the request headers did not arrive within {HEADER_TIMEOUT:g} s")

    def _refuse(self, status: int, reason: str, detail: str) -> None:
        """Answer a Scryfall-style error and close the connection (the request never reaches the app)."""
        if self._refused or self.transport.is_closing():
            return
        self._refused = True
        self._disarm()
        code = reason.lower().replace(" ", "_")
        body = json.dumps({"object": "error", "code": code, "status": status, "details": detail}).encode()
        head = (
            f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
        ).encode()
        self.transport.write(head + body)
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        super().data_received(data)

    def on_message_begin(self) -> None:
        # Each request has its own header limits: pipelined requests arrive in one read, before any answer.
        self._header_count = self._header_bytes = self._url_bytes = 0
        super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        # The parser hands the target over in pieces as they arrive (each read's part of it): a line that never
        # ends is refused at MAX_REQUEST_LINE bytes, not appended to without end (uvicorn joins the pieces).
        self._url_bytes += len(url)
        if self._url_bytes > MAX_REQUEST_LINE:
            self._refuse(
                414,
                "URI Too Long",
                f"the request line is longer than {MAX_REQUEST_LINE:,} bytes; send a shorter address "
                "(a long list of names or a decklist goes in a POST body)",
            )
            raise _Refused
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_count += 1
        self._header_bytes += len(name) + len(value)
        if self._header_count > MAX_HEADERS:
            self._refuse(431, "Request Header Fields Too Large", f"more than {MAX_HEADERS} request headers")
        elif self._header_bytes > MAX_HEADER_BYTES:
            self._refuse(
                431, "Request Header Fields Too Large", f"request headers of more than {MAX_HEADER_BYTES:,} bytes"
            )
        if self._refused:
            raise _Refused  # stops the parser (uvicorn then calls send_400_response, which stays quiet)
        super().on_header(name, value)

    def _unsupported_upgrade_warning(self) -> None:
        """Nothing: a request asking to upgrade (to a WebSocket: the server has none, ``ws="none"``) is answered as
        plain HTTP, as RFC 9110 §7.8 lets a server do; uvicorn's two warnings for each would let a client fill the
        log."""

    def send_400_response(self, msg: str) -> None:
        """A request the parser refused (both Content-Length and Transfer-Encoding, Content-Length twice, a
        malformed line …): Scryfall's error object, naming what the parser found, instead of uvicorn's text."""
        if self._refused:
            return
        error = sys.exc_info()[1]  # called while uvicorn handles the parser's error
        found = str(error).strip().rstrip(".") if error is not None and str(error).strip() else msg.rstrip(".")
        self._refuse(400, "Bad Request", f"the request is not valid HTTP/1.1 ({found}); send one well-formed request")

    def on_headers_complete(self) -> None:
        self._disarm()
        if not self._refused:
            date_this_second(self.server_state, self.config)  # the answer's headers are taken here
            super().on_headers_complete()
            if self.parser.should_upgrade() and self.cycle is not None:
                # The parser reads nothing after a request asking to upgrade: its answer closes the connection,
                # or a request sent next on it would wait unanswered until the header deadline.
                self.cycle.keep_alive = False

    def _start_asgi_task(self, cycle: Any, app: Any) -> None:
        # Past MAX_CONNECTIONS uvicorn answers with its own plain-text 503: Scryfall's error object instead.
        answer: Any = _over_the_connection_limit if app is service_unavailable else app  # ASGI apps: typed alike
        guarded: Any = _until_the_client_leaves(answer, cycle, self.transport)
        super()._start_asgi_task(cycle, guarded)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request's headers have the same time

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._counted_as is not None:
            held = _connections_by_client(self.server_state)
            left = held.get(self._counted_as, 1) - 1
            if left > 0:
                held[self._counted_as] = left
            else:
                held.pop(self._counted_as, None)
            self._counted_as = None
        super().connection_lost(exc)


def _connections_by_client(state: ServerState) -> dict[str, int]:
    """The open connections of each client address, kept on the server's state (one count per server)."""
    held: dict[str, int] | None = getattr(state, "oracle_tools_connections_by_client", None)
    if held is None:
        held = {}
        setattr(state, "oracle_tools_connections_by_client", held)  # noqa: B010 - no attribute of uvicorn's class
    return held


class _QuietOnceRefused:
    """uvicorn's logger for one connection, without the "Invalid HTTP request received." warning uvicorn logs when
    a refusal of ours (414, 431) stops the parser: the client was answered, and a line for each would let an
    attacker fill the log — and block the event loop on a full stderr pipe (the server stalled so under an endless
    request line sent again and again)."""

    def __init__(self, protocol: GuardedHttpToolsProtocol, logger: Any) -> None:
        self._protocol, self._logger = protocol, logger

    def warning(self, msg: str, *args: Any, **kwargs: Any) -> None:
        if not self._protocol._refused:
            self._logger.warning(msg, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._logger, name)


async def _over_the_connection_limit(scope: Scope, receive: Receive, send: Send) -> None:
    """The answer to a request beyond MAX_CONNECTIONS (uvicorn's limit_concurrency), as Scryfall's error object."""
    body = json.dumps(
        {
            "object": "error",
            "code": "service_unavailable",
            "status": 503,
            "details": f"The server has {MAX_CONNECTIONS} connections and requests in progress; retry in a moment.",
        }
    ).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 503, "headers": [*headers, (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _until_the_client_leaves(app: ASGIApp, cycle: Any, transport: asyncio.Transport) -> ASGIApp:
    """``app`` answering one request of a connection, its answer dropped once the client has gone. A client that
    closes its connection with answers unread (pipelined requests, a small receive buffer) closes the transport
    before uvicorn hears of it (``connection_lost`` comes on a later turn of the loop): a write then raised
    RuntimeError ("unable to perform operation on <TCPTransport closed=True>"), logged with a traceback for every
    request still answering. The request is marked disconnected instead, as uvicorn marks it when it hears: the rest
    of the answer is dropped, quietly (a client leaving is no error of the app)."""

    async def run(scope: Scope, receive: Receive, send: Send) -> None:
        async def send_while_connected(message: Message) -> None:
            if transport.is_closing() and not cycle.response_complete:
                cycle.disconnected = True  # uvicorn's send then drops the message
            try:
                await send(message)
            except RuntimeError:
                if not transport.is_closing():
                    raise
                cycle.disconnected = True

        await app(scope, receive, send_while_connected)

    return run


def _quiet_once_answered(app: ASGIApp) -> ASGIApp:
    """``app``, ending without a traceback when the stop's grace period cancels a request it has answered (the
    app answers 503 then re-raises the cancellation; uvicorn would log that as "Exception in ASGI application")."""

    async def run(scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await app(scope, receive, watched_send)
        except asyncio.CancelledError:
            if not started:
                raise
            # the top of the request's task: nothing above waits for the cancellation, the task just ends

    return run


def date_this_second(state: ServerState, config: Config) -> None:
    """uvicorn's default headers (``state.default_headers``: Date, then the configured ones), with this second's
    date: what uvicorn's tick put there each second, done by the request that needs it (once a second at most)."""
    now = int(time.time())
    if getattr(state, "oracle_tools_date_second", None) == now:
        return
    date = [(b"date", formatdate(now, usegmt=True).encode())] if config.date_header else []
    state.default_headers = date + config.encoded_headers
    setattr(state, "oracle_tools_date_second", now)  # noqa: B010 - no attribute of uvicorn's class


class WakesOnlyWhenNeeded(Server):
    """uvicorn's Server, whose main loop waits for the stop flag instead of looking at it ten times a second: setting
    ``should_exit`` (uvicorn's signal handler, SIGINT/SIGTERM; or any thread) wakes the loop, which then stops as
    uvicorn's does. The Date header is put in by each request (:func:`date_this_second`); the tick's other work,
    ``limit_max_requests`` and the old worker class's ``callback_notify``, the server does not use."""

    _wake_loop: Any = None

    @property
    def should_exit(self) -> bool:
        return bool(self.__dict__.get("_should_exit", False))

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        self.__dict__["_should_exit"] = value
        wake = self._wake_loop
        if value and wake is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nothing waits any more
                wake()

    async def main_loop(self) -> None:
        loop = asyncio.get_running_loop()
        stopping = asyncio.Event()
        self._wake_loop = lambda: loop.call_soon_threadsafe(stopping.set)  # safe from a signal handler too
        try:
            await self.on_tick(0)  # the headers, as uvicorn's first tick
            while not self.should_exit:
                await stopping.wait()
        finally:
            self._wake_loop = None


def uvicorn_options() -> dict[str, Any]:
    """The limits as uvicorn.run options."""
    return {
        "http": GuardedHttpToolsProtocol,
        # No WebSocket: an Upgrade request is answered as plain HTTP. Handed to the WebSocket library, it was an
        # empty 403, and its connection never left its address's count (it leaves the protocol that counted it).
        "ws": "none",
        "limit_concurrency": MAX_CONNECTIONS,
        "timeout_keep_alive": KEEP_ALIVE,
        "timeout_graceful_shutdown": GRACE_PERIOD,
    }
