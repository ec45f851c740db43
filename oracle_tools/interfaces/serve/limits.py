"""Connection limits uvicorn does not set itself: a client must send its request headers in time (no
slowloris: a connection trickling one byte at a time would hold its socket forever, since every byte resets
uvicorn's keep-alive timer), and with a bounded number and size of headers (431 otherwise). uvicorn's own
``limit_concurrency`` caps connections (503 beyond) and ``timeout_keep_alive`` closes idle ones.

``GuardedHttpToolsProtocol`` is uvicorn's httptools protocol (uvicorn[standard] installs httptools) with
those checks; ``run`` passes it as uvicorn's ``http`` class.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: Seconds a client has to send a request's headers, from the connection's start or the previous answer.
HEADER_TIMEOUT = 10.0
#: At most this many headers, of at most this many bytes in all (names and values).
MAX_HEADERS = 100
MAX_HEADER_BYTES = 16 * 1024
#: Connections and requests in progress at once; more are answered 503 (uvicorn's limit_concurrency).
MAX_CONNECTIONS = 512
#: Seconds an idle keep-alive connection stays open.
KEEP_ALIVE = 5
#: Seconds a stopping server (SIGINT, SIGTERM) gives the answers in flight: after it, those not begun are answered
#: 503 (Scryfall's error object) and those being sent are cut off.
GRACE_PERIOD = 5


class _Refused(Exception):
    """Raised from a parser callback to stop parsing a refused request."""


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with a deadline for the headers and limits on their number and size."""

    _deadline: asyncio.TimerHandle | None = None
    _refused = False
    _header_count = 0
    _header_bytes = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.app = _quiet_once_answered(self.app)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

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
        self._header_count = self._header_bytes = 0
        super().on_message_begin()

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
            super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request's headers have the same time

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


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


def uvicorn_options() -> dict[str, Any]:
    """The limits as uvicorn.run options."""
    return {
        "http": GuardedHttpToolsProtocol,
        "limit_concurrency": MAX_CONNECTIONS,
        "timeout_keep_alive": KEEP_ALIVE,
        "timeout_graceful_shutdown": GRACE_PERIOD,
    }
