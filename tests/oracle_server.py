"""``oracle-tools serve`` as a child process on a free loopback port, for the tests that talk HTTP to it; and
uvicorn in a thread of the test process (:func:`serving`), for a test that watches the server's own sockets or
logs."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import httpx


def loopback_socket() -> tuple[socket.socket, int]:
    """A socket bound to a loopback port the system chose, and that port: for :func:`serving`, which listens on
    it. The socket stays bound from here on, so no other process (another xdist worker's server or client) can
    take the port between the choice and the server's start, as it could when a port found free was closed and
    handed on."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock, int(sock.getsockname()[1])


@contextlib.contextmanager
def serving(app: Any, sock: socket.socket, **options: Any) -> Iterator[Any]:
    """uvicorn serving ``app`` on ``sock`` (from :func:`loopback_socket`) in a thread of this process
    (``options``: uvicorn.Config's), started when the block begins and stopped when it ends; yields the server,
    the class ``serve`` runs (which is handed its bound socket as here)."""
    import uvicorn

    from oracle_tools.interfaces.serve.connection_limits import WakesOnlyWhenNeeded

    port = sock.getsockname()[1]
    server = WakesOnlyWhenNeeded(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **options))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        yield server
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()
    assert not thread.is_alive(), "setting should_exit did not stop the server"


class Server:
    """``oracle-tools serve --db PATH --port P`` as a child process."""

    def __init__(self, db: Path, *options: str, env: dict[str, str] | None = None) -> None:
        self.db = db
        # The child's output goes to files, not pipes: a pipe nobody reads fills at 64 KB and then blocks the
        # server's event loop on its next log line (a flood of refused requests did exactly that).
        self._err = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 -- closed by stop(), after the child
        # --port 0: the system chooses the port as the server binds it, and the server names it in its first line.
        # (A port found free here and handed on was free only until another process took it: under xdist another
        # worker's server or client could, and the server then failed to start or the test talked to the wrong one.)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "oracle_tools.interfaces.cli", "serve", "--db", str(db), "--port", "0", *options],
            stdin=subprocess.DEVNULL,  # not the test process's: under xdist that is the worker's pipe to pytest
            stdout=subprocess.DEVNULL,
            stderr=self._err,
            env={**os.environ, **env} if env else None,
        )
        deadline = time.monotonic() + 120  # a deadline, not a wait: a loaded machine may take long to start it
        self.port = self._bound_port(deadline)
        self.base = f"http://127.0.0.1:{self.port}"
        self.client = httpx.Client(base_url=self.base, timeout=30)
        while True:  # the port is bound before uvicorn listens on it
            try:
                self.client.get("/cards/autocomplete?q=li")
                break
            except httpx.TransportError:
                self._fail_if_ended_or_late(deadline)
                time.sleep(0.1)

    def _bound_port(self, deadline: float) -> int:
        """The port in the server's line ``serving http://127.0.0.1:PORT/ from …``, printed once it is bound."""
        import re

        while True:
            found = re.search(r"^serving http://127\.0\.0\.1:(\d+)/", self._read(self._err), re.MULTILINE)
            if found:
                return int(found[1])
            self._fail_if_ended_or_late(deadline)
            time.sleep(0.05)

    def _fail_if_ended_or_late(self, deadline: float) -> None:
        if self.proc.poll() is not None or time.monotonic() > deadline:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError(f"server did not start: {self._read(self._err)[-2000:]}")

    def stop(self) -> str:
        self.client.close()
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        err = self._read(self._err)
        self._err.close()
        return err

    @staticmethod
    def _read(file: IO[str]) -> str:
        file.flush()
        file.seek(0)
        return file.read()


def mcp_tool_json(db: Any, tool: str, arguments: dict[str, object]) -> Any:
    """The JSON the MCP tool ``tool`` answers on ``db`` (an ``OracleDB``), the server built in process as
    ``oracle-tools mcp`` builds it."""
    import asyncio
    import json

    from mcp.types import CallToolResult, TextContent

    from oracle_tools.interfaces.mcp_server import build_server

    result = asyncio.run(build_server(db).call_tool(tool, arguments))
    assert isinstance(result, CallToolResult)
    (content,) = result.content
    assert isinstance(content, TextContent)
    return json.loads(content.text)


def one_answer(sock: socket.socket) -> tuple[bytes, bytes]:
    """The head and body of the next answer on a kept-alive connection (read to its Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"the connection closed before an answer: {data[:200]!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line[15:]) for line in head.split(b"\r\n") if line[:15].lower() == b"content-length:")
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "the connection closed within an answer"
        body += chunk
    return head, body[:length]
