"""Hardening of `oracle-tools serve` against the real server on 127.0.0.1: runaway searches stop, lone
surrogates are a 400, slow and oversized requests are cut off, and answers neither leak the database path to
other origins nor take their links from the Host header; a stalled body holds up no one, no request waits
behind another's work, caches are bounded in bytes, and a stop is clean."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import random
import shutil
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from oracle_tools import OracleDB
from oracle_tools.db import MAX_BATCH_NAMES
from oracle_tools.interfaces.serve import connection_limits
from oracle_tools.interfaces.serve.app import BODIES_PER_CLIENT, BODY_TIMEOUT
from oracle_tools.interfaces.serve.responses import ApiError

from oracle_server import Server, one_answer


@pytest.fixture(scope="module")
def server(sample_db_path: Path) -> Iterator[Server]:
    srv = Server(sample_db_path)
    yield srv
    srv.stop()


def _raw(server: Server, data: bytes, *, read_for: float = 5.0) -> bytes:
    with socket.create_connection(("127.0.0.1", server.port), timeout=read_for + 5) as sock:
        sock.sendall(data)
        return _answer(sock, read_for)


def test_a_runaway_search_is_stopped_and_the_server_goes_on(sample_db_path: Path) -> None:
    """With --query-timeout, a search running longer is interrupted (DuckDB's interrupt()): 422, one line."""
    srv = Server(sample_db_path, "--query-timeout", "0.002", "--no-warm")  # a search and a lookup, nothing before
    try:
        answer = srv.client.get("/cards/search", params={"q": "unique:prints -o:zzz or a:zzzz"})
        assert answer.status_code == 422
        assert answer.json() == {
            "object": "error",
            "code": "unprocessable_entity",
            "status": 422,
            "details": "the search ran longer than 0.002 s and was stopped; narrow the query (or start the server "
            "with a longer --query-timeout)",
        }
        assert srv.client.get("/cards/named", params={"exact": "Lightning Bolt"}).status_code == 200
    finally:
        srv.stop()


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/names/resolve", b'["Fire/Ice", "\\ud800"]'),
        ("/cards/collection", b'{"identifiers": [{"name": "Lightning Bolt"}, {"name": "x\\udfff"}]}'),
        ("/cards/collection", b'{"identifiers": [{"\\ud83d": "Lightning Bolt"}]}'),
    ],
)
def test_a_lone_surrogate_in_json_is_a_400(server: Server, path: str, body: bytes) -> None:
    answer = server.client.post(path, content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == "bad_request" and "lone surrogate" in answer.json()["details"]


def test_a_json_body_with_a_number_of_thousands_of_digits_is_a_400_saying_so() -> None:
    """Valid JSON that Python refuses to read (an integer of more than 4,300 digits) was called "not valid JSON" with
    advice to call sys.set_int_max_str_digits()."""
    from oracle_tools.interfaces.serve.params import parse_json_body

    with pytest.raises(ApiError) as refused:
        parse_json_body(b'{"identifiers": [{"mtgo_id": 1' + b"0" * 5_000 + b"}]}")
    assert (refused.value.status, refused.value.details) == (
        400,
        "the request body's JSON holds a number of more than 4,300 digits, which no count or id has; send smaller "
        "numbers.",
    )


def test_a_large_answer_asked_pretty_is_indented_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """`pretty=true` re-indents an answer with Python's own JSON encoder (~0.1 s for a page of search results): on the
    event loop, 8 connections asking for it again and again took every other client's card lookup from 2 ms to
    150 ms. A large answer is re-formed on a worker thread (one at a time); a small one stays on the loop."""
    import asyncio
    import threading

    from oracle_tools.interfaces.serve import app as app_module

    made_on: list[int] = []
    real = app_module._in_form

    def recording(*args: object) -> object:
        made_on.append(threading.get_ident())
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(app_module, "_in_form", recording)

    async def answer(data: object) -> tuple[int, bytes]:
        body = json.dumps(data).encode()

        async def inner(scope: dict, receive: object, send: object) -> None:
            scope["state"]["answer_form"] = ("json", True, "", "large")  # pretty=true
            start = {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]}
            await send(start)  # type: ignore[operator]
            await send({"type": "http.response.body", "body": body})  # type: ignore[operator]

        sent: list[dict] = []

        async def send(message: dict) -> None:
            sent.append(message)

        async def receive() -> dict:
            return {"type": "http.request", "body": b""}

        scope = {"type": "http", "state": {}, "method": "GET", "path": "/cards/search", "headers": []}
        await app_module.AnswerForms(inner)(scope, receive, send)  # type: ignore[arg-type]
        return threading.get_ident(), b"".join(m.get("body", b"") for m in sent)

    large = {"object": "list", "data": [{"name": f"Card {i}", "oracle_text": "x" * 100} for i in range(1000)]}
    loop, body = asyncio.run(answer(large))
    assert json.loads(body) == large and body.startswith(b'{\n  "object": "list"')
    assert made_on == [made_on[0]] and made_on[0] != loop  # a worker thread's
    made_on.clear()
    loop, body = asyncio.run(answer({"object": "card", "name": "Lightning Bolt"}))
    assert made_on == [loop] and body.startswith(b"{\n")  # small: on the loop, no thread hop


def test_a_collection_body_is_parsed_off_the_event_loop(sample_db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """POST /cards/collection parsed its body (up to 1 MB of JSON, and the walk looking for lone surrogates) on the
    event loop: 8 connections sending 450 KB bodies took every other client's lookups from 2 ms to 70 ms (224 ms at
    worst). It is parsed on the worker thread, as POST /names/resolve's is; the answers are as before."""
    import threading

    from starlette.testclient import TestClient

    from oracle_tools.interfaces.serve import scryfall_routes
    from oracle_tools.interfaces.serve.app import create_app

    threads: dict[str, int] = {}
    read_body, parse_json_body = scryfall_routes.read_body, scryfall_routes.parse_json_body

    async def reading(request: object) -> bytes:
        threads["loop"] = threading.get_ident()
        return await read_body(request)  # type: ignore[arg-type]

    def parsing(raw: bytes) -> object:
        threads["parse"] = threading.get_ident()
        return parse_json_body(raw)

    monkeypatch.setattr(scryfall_routes, "read_body", reading)
    monkeypatch.setattr(scryfall_routes, "parse_json_body", parsing)
    with TestClient(create_app(sample_db_path, warm=False), base_url="http://127.0.0.1:8765") as http:
        found = http.post("/cards/collection", json={"identifiers": [{"name": "Lightning Bolt"}, {"name": "Nope"}]})
        assert found.status_code == 200 and [c["name"] for c in found.json()["data"]] == ["Lightning Bolt"]
        assert found.json()["not_found"] == [{"name": "Nope"}]
        assert threads["parse"] != threads["loop"]
        many = http.post("/cards/collection", json={"identifiers": [{"name": "x"}] * 30_000})
        assert (many.status_code, many.json()["details"]) == (
            422,
            "30000 identifiers were given; at most 75 are accepted per request.",
        )
        assert http.post("/cards/collection", content=b"{").status_code == 400


@pytest.mark.parametrize(
    ("path", "details"),
    [
        # a page number over the limit: "is not a page number (1, 2, …)" said it was no number
        ("/cards/search?q=t:goblin&page=100001", "page='100001' is not a page number from 1 to 100,000."),
        ("/changes?run=1&page=100001", "page='100001' is not a page number from 1 to 100,000."),
        # a long value was quoted cut at 20 characters, as if that had been the value
        (
            "/cards/search?q=t:goblin&page=" + "9" * 23,
            "page='99999999999999999999…' is not a page number from 1 to 100,000.",
        ),
        (
            "/names/resolve?q=bolt&suggest=" + "9" * 23,
            "suggest='99999999999999999999…' is not a whole number from 0 to 50.",
        ),
        ("/changes?run=" + "1" * 23, "run='11111111111111111111…' is not an ingest run number (1, 2, …)."),
        # more digits than Python's int() reads (4,300): a 500 (ValueError) on every paged route
        (
            "/cards/search?q=t:goblin&page=" + "9" * 5000,
            "page='99999999999999999999…' is not a page number from 1 to 100,000.",
        ),
        ("/changes?run=1&page=" + "9" * 5000, "page='99999999999999999999…' is not a page number from 1 to 100,000."),
    ],
)
def test_a_number_parameters_error_says_its_range_and_quotes_what_was_given(
    server: Server, path: str, details: str
) -> None:
    answer = server.client.get(path)
    assert (answer.status_code, answer.json()["details"]) == (400, details)


@pytest.mark.parametrize(
    ("path", "details"),
    [
        ("/sets/" + "a" * 150, f"No Magic set found for the given code or id “{'a' * 100}…”."),
        ("/bulk-data/" + "a" * 150, f"No bulk data found for “{'a' * 100}…”; GET /bulk-data lists them."),
        (
            "/cards/" + "a" * 150,
            f"“{'a' * 100}…” is not a Scryfall card id (a UUID); use /cards/{{set}}/{{number}} for a set and collector "
            "number.",
        ),
        ("/sets/" + "a" * 100, f"No Magic set found for the given code or id “{'a' * 100}”."),  # whole: no ellipsis
    ],
)
def test_a_long_path_part_is_quoted_with_an_ellipsis_not_cut_as_if_whole(
    server: Server, path: str, details: str
) -> None:
    answer = server.client.get(path)
    assert (answer.status_code, answer.json()["details"]) == (404, details)


def test_a_deeply_nested_search_is_a_400_and_the_server_answers_on(server: Server) -> None:
    """450 negations in 458 characters once overflowed the parser's recursion on the server's deep stack: a 500."""
    answer = server.client.get("/cards/search", params={"q": "-" * 450 + "t:goblin"})
    assert answer.status_code == 400, answer.text
    assert answer.json()["details"].startswith("the query nests negations and groups more than 100 deep")
    assert server.client.get("/cards/search", params={"q": "-" * 100 + "t:goblin"}).json()["total_cards"] > 0


@pytest.mark.parametrize(
    "path",
    [
        "/cards/named?exact=%ED%A0%80",
        "/cards/named?fuzzy=%ED%A0%80",
        "/cards/search?q=%ED%A0%80",
        "/cards/autocomplete?q=%ED%A0%80",
        "/names/resolve?q=%ED%A0%80",
        "/tokens/%ED%A0%80",
        "/choose-name?name=%ED%A0%80&constraint=nonland",
        "/changes?card=%ED%A0%80",
        "/?q=%ED%A0%80",
    ],
)
def test_a_surrogate_in_a_parameter_never_gives_a_500(server: Server, path: str) -> None:
    answer = server.client.get(path)
    assert answer.status_code < 500, (path, answer.text)
    deck = server.client.post("/decks/check?format=modern", content=b"4 Lightning Bolt\n1 \xed\xa0\x80\n")
    assert deck.status_code < 500, deck.text


def test_slow_headers_are_cut_off(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """Slowloris: a client trickling its headers is answered 408 and closed after HEADER_TIMEOUT seconds;
    the server answers others meanwhile."""
    margin = 30  # a loaded machine's: the server's timer and this loop may each be seconds late
    started = time.monotonic()  # before the connection: the server's clock cannot start earlier than this
    with socket.create_connection(("127.0.0.1", server.port), timeout=connection_limits.HEADER_TIMEOUT + 10) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        answer = b""
        while time.monotonic() - started < connection_limits.HEADER_TIMEOUT + margin:
            try:
                sock.sendall(b"X-Slow: 1\r\n")  # one header every half second, never the end
            except OSError:
                break
            assert server.client.get("/health").status_code == 200
            sock.settimeout(0.5)
            try:
                chunk = sock.recv(4096)
            except TimeoutError:
                continue
            answer += chunk
            if not chunk or answer.endswith(b"}"):
                break
        elapsed = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer
    assert connection_limits.HEADER_TIMEOUT - 0.1 <= elapsed <= connection_limits.HEADER_TIMEOUT + margin


def test_too_many_or_too_large_headers_are_a_431(server: Server) -> None:
    many = b"".join(b"X-H%d: 1\r\n" % i for i in range(connection_limits.MAX_HEADERS + 1))
    answer = _raw(server, b"GET /health HTTP/1.1\r\nHost: a\r\n" + many + b"\r\n")
    assert answer.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"), answer[:200]
    body = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert body == {
        "object": "error",
        "code": "request_header_fields_too_large",
        "status": 431,
        "details": f"more than {connection_limits.MAX_HEADERS} request headers",
    }
    big = b"X-Big: " + b"a" * (connection_limits.MAX_HEADER_BYTES + 1) + b"\r\n"
    answer = _raw(server, b"GET /health HTTP/1.1\r\nHost: a\r\n" + big + b"\r\n")
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert server.client.get("/health").status_code == 200  # and the server goes on


def test_a_websocket_upgrade_is_answered_as_plain_http_and_frees_its_connection(server: Server) -> None:
    """The server has no WebSocket endpoint: a request asking to upgrade is answered as any other (RFC 9110 §7.8
    lets a server ignore Upgrade). uvicorn handed it to its WebSocket library instead, which refused it with an
    empty 403, and the connection was never given back to its address's count: CONNECTIONS_PER_CLIENT such
    requests locked the address (every client on 127.0.0.1) out with 429 until the server restarted."""
    upgrade = (
        b"GET /cards/named?exact=Lightning+Bolt HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    for _ in range(connection_limits.CONNECTIONS_PER_CLIENT + 1):
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(upgrade)
            head, body = one_answer(sock)
        assert head.startswith(b"HTTP/1.1 200 "), head
        assert json.loads(body)["name"] == "Lightning Bolt"
        # the parser reads nothing after it: the answer closes the connection (no request waits on it unanswered)
        assert b"\r\nconnection: close" in head.lower(), head
    answer = server.client.get("/health")
    assert answer.status_code == 200, answer.text


def test_connections_are_capped(server: Server) -> None:
    """uvicorn's limit_concurrency is set: the (MAX_CONNECTIONS+1)th open connection is answered 503, Scryfall's
    error object (uvicorn's own answer is plain text). The connections come from five addresses, each under its
    own cap (CONNECTIONS_PER_CLIENT)."""
    socks = []
    try:
        for i in range(connection_limits.MAX_CONNECTIONS + 5):
            source = (f"127.0.0.{2 + i % 5}", 0)
            s = socket.create_connection(("127.0.0.1", server.port), timeout=10, source_address=source)
            socks.append(s)
        time.sleep(0.5)
        last = socks[-1]
        last.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        last.settimeout(10)
        answer = b""
        while b"}" not in answer and (chunk := last.recv(4096)):
            answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503 ") and b"content-type: application/json" in head.lower(), answer
        error = json.loads(body)
        assert (error["object"], error["code"], error["status"]) == ("error", "service_unavailable", 503)
        assert str(connection_limits.MAX_CONNECTIONS) in error["details"]
    finally:
        for s in socks:
            s.close()
    deadline = time.monotonic() + 60  # the server counts the closed connections out as it reads their ends
    while (health := server.client.get("/health")).status_code == 503:
        assert time.monotonic() < deadline, "the closed connections still count against the cap"
        time.sleep(0.05)
    assert health.status_code == 200


def test_health_names_only_the_file_and_the_page_sends_security_headers(server: Server, sample_db_path: Path) -> None:
    health = server.client.get("/health", headers={"Origin": "https://elsewhere.example"})
    assert health.headers["access-control-allow-origin"] == "*"
    assert health.json()["db"] == sample_db_path.name and str(sample_db_path.parent) not in health.text
    page = server.client.get("/")
    assert page.headers["x-content-type-options"] == "nosniff" and page.headers["x-frame-options"] == "DENY"
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy and "script-src 'self';" in policy


def test_links_never_come_from_a_foreign_host_header(server: Server) -> None:
    own = f"http://127.0.0.1:{server.port}"
    for host in ("evil.example", f"evil.example:{server.port}", "127.0.0.1:1"):
        card = server.client.get("/cards/named", params={"exact": "Lightning Bolt"}, headers={"Host": host}).json()
        assert card["uri"].startswith(own + "/cards/"), (host, card["uri"])
        assert card["prints_search_uri"].startswith(own + "/cards/search?")
        page = server.client.get("/cards/search", params={"q": "t:creature"}, headers={"Host": host}).json()
        assert page["next_page"].startswith(own + "/cards/search?")
    local = server.client.get(
        "/cards/named", params={"exact": "Lightning Bolt"}, headers={"Host": f"localhost:{server.port}"}
    ).json()
    assert local["uri"].startswith(f"http://localhost:{server.port}/cards/")


# -- a stalled client, pipelining, framing errors ------------------------------------------------------------


def _stalled_body(server: Server, source: str = "127.0.0.1") -> socket.socket:
    """A POST that promises 5,000 bytes of body, sends a line of it, then nothing."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30, source_address=(source, 0))
    sock.sendall(
        b"POST /decks/check?format=modern HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
        b"Content-Length: 5000\r\n\r\n4 Lightning Bolt\n"
    )
    return sock


def _answer(sock: socket.socket, wait: float) -> bytes:
    """What the server sends on ``sock`` until it closes it or ``wait`` seconds pass."""
    sock.settimeout(wait)
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except TimeoutError:
        pass
    return b"".join(chunks)


def _error_object(answer: bytes, status: int, code: str) -> dict:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 %d " % status), answer[:300]
    assert b"content-type: application/json" in head.lower(), head
    error = json.loads(body)
    assert error["object"] == "error" and error["status"] == status and error["code"] == code, error
    return error


def test_a_stalled_body_never_holds_up_a_reload_and_is_cut_off(server: Server) -> None:
    """A client sends headers and part of a body, then nothing; the database is reopened (SIGHUP, as after a
    re-ingest): every other request is still answered at once, from the new generation, and the stalled
    client gets Scryfall's error object (408) when its body's time is up."""
    generation = server.client.get("/health").json()["generation"]
    stalled = _stalled_body(server)
    try:
        time.sleep(0.3)  # its headers are in: the request is reading its body
        server.proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 60  # a guard: the signal reaches the event loop asynchronously
        with httpx.Client(base_url=server.base, timeout=5) as other:
            while other.get("/health").json()["generation"] == generation:
                assert time.monotonic() < deadline, "the reload did not happen"
                time.sleep(0.05)
            assert other.get("/cards/named", params={"exact": "Lightning Bolt"}).json()["name"] == "Lightning Bolt"
        error = _error_object(_answer(stalled, BODY_TIMEOUT + 5), 408, "request_timeout")
        assert f"within {BODY_TIMEOUT:g} s" in error["details"]
        stalled.settimeout(1)
        assert stalled.recv(1) == b""  # and its connection is closed (EOF), not left open
    finally:
        stalled.close()


def test_stalled_bodies_use_their_senders_budget_not_everyones(server: Server) -> None:
    """One client address (127.0.0.2) may be sending BODIES_PER_CLIENT bodies at once; one more is answered 429 at
    once (not left holding a connection), and another client is served meanwhile."""
    stalled = [_stalled_body(server, "127.0.0.2") for _ in range(BODIES_PER_CLIENT)]
    try:
        time.sleep(0.5)
        extra = _stalled_body(server, "127.0.0.2")
        try:
            error = _error_object(_answer(extra, 5), 429, "too_many_requests")
            assert f"{BODIES_PER_CLIENT} request bodies" in error["details"]
        finally:
            extra.close()
        deck = server.client.post("/decks/check", params={"format": "modern"}, content=b"4 Lightning Bolt\n")
        assert deck.status_code == 200 and deck.json()["legal"] is False  # 4 cards: too few, but answered
    finally:
        for sock in stalled:
            sock.close()


@pytest.mark.parametrize(("http", "loop"), [("httptools", "uvloop"), ("h11", "asyncio")])
def test_an_answer_its_client_leaves_unread_is_cut_off(http: str, loop: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An answer larger than the socket buffers, sent whole as every JSON answer is, to a client that never reads
    (its socket held open): once WRITE_TIMEOUT passes, the connection is reset. uvicorn would close it, which waits
    to send what is buffered, keeping the socket for as long as the client keeps its own. The server runs uvicorn's
    httptools protocol on uvloop; the same holds on h11 and asyncio's loop, uvicorn's pure-Python ones. A tiny app
    stands for the answer: any large one would do. A client that reads slowly gets the whole answer."""
    import psutil
    from starlette.responses import Response
    from starlette.types import Receive, Scope, Send
    from uvicorn.protocols.http.h11_impl import H11Protocol

    from oracle_server import loopback_socket, serving

    monkeypatch.setattr(connection_limits, "WRITE_TIMEOUT", 1.0)
    protocol = (
        connection_limits.GuardedHttpToolsProtocol
        if http == "httptools"
        else type("H11CutsOffStalledReaders", (connection_limits.CutsOffStalledReaders, H11Protocol), {})
    )

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await Response(b"x" * 8_000_000)(scope, receive, send)

    listener, port = loopback_socket()
    with serving(app, listener, http=protocol, loop=loop, lifespan="off"):
        with socket.create_connection(("127.0.0.1", port)) as stalled:
            stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            stalled.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            assert stalled.recv(1024).startswith(b"HTTP/1.1 200 OK\r\n")
            ours = stalled.getsockname()

            def held() -> bool:  # the server's end of this connection (the server runs in this process)
                connections = psutil.Process().net_connections("tcp")
                return any(c.laddr[1] == port and tuple(c.raddr or ()) == ours for c in connections)

            deadline = time.monotonic() + 15  # a generous bound on "cut off at all"
            while held():
                assert time.monotonic() < deadline, "the server still holds the stalled reader's connection"
                time.sleep(0.25)
            stalled.settimeout(15)
            received = 0
            with contextlib.suppress(ConnectionResetError):  # what its buffers held, then the end
                while chunk := stalled.recv(1 << 20):
                    received += len(chunk)
            assert received < 8_000_000
        # a client reading slowly is not one that stopped: each bit it reads gives it another WRITE_TIMEOUT
        with socket.create_connection(("127.0.0.1", port)) as slow:
            slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
            slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            head = slow.recv(1024)
            body = len(head.partition(b"\r\n\r\n")[2])
            while body < 8_000_000:  # about 5 s: much longer than WRITE_TIMEOUT
                chunk = slow.recv(65536)
                assert chunk, f"a slow reader was cut off after {body:,} bytes"
                body += len(chunk)
                time.sleep(0.01)


def test_the_next_pipelined_answer_after_its_client_left_ends_quietly(caplog: pytest.LogCaptureFixture) -> None:
    """Why the log filled: with requests pipelined, uvicorn marks only the last request it parsed as disconnected
    when the client leaves, so the answer it had started next wrote to a closed transport and raised. Made certain
    here: the first answer (8 MB) fills the buffers of a client that reads nothing, the second is begun and takes a
    second; the client closes meanwhile. The second answer is dropped without a word (no "Exception in ASGI
    application"), and the server answers the next client. uvicorn runs the protocol ``serve`` runs, in this
    process on 127.0.0.1."""
    import asyncio
    import logging

    from starlette.types import Receive, Scope, Send

    from oracle_server import loopback_socket, serving

    begun: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        begun.append(scope["path"])
        if len(begun) > 1:
            await asyncio.sleep(1.0)  # an answer being worked out (a search) when the client leaves
        body = b"x" * 8_000_000
        headers = [(b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    listener, port = loopback_socket()
    options = {
        "http": connection_limits.GuardedHttpToolsProtocol,
        "lifespan": "off",
        "log_config": None,
    }  # log: to caplog
    with caplog.at_level(logging.INFO), serving(app, listener, **options):
        with socket.socket() as client:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            client.connect(("127.0.0.1", port))
            client.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 3)
            time.sleep(0.5)
        time.sleep(1.5)
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=10).status_code == 200
    logged = "\n".join(record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING)
    assert not logged, logged


def test_a_client_that_leaves_with_answers_unread_logs_no_traceback(sample_db_path: Path) -> None:
    """The report's client against ``oracle-tools serve``: 50 searches pipelined on one connection with a 4 KB
    receive buffer, closed 3 s later. The server's log gains no traceback (it gained one of some 70 lines,
    "Exception in ASGI application … unable to perform operation on <TCPTransport closed=True>", when the client
    left while an answer was being written) and the server goes on answering."""
    srv = Server(sample_db_path, "--no-warm")
    try:
        with socket.create_connection(("127.0.0.1", srv.port)) as client:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            client.sendall(b"GET /cards/search?q=t:creature HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 50)
            time.sleep(3)
        time.sleep(1)
        assert srv.client.get("/cards/search", params={"q": "c:r"}).status_code == 200
    finally:
        log = srv.stop()
    assert "Traceback" not in log and "Exception in ASGI application" not in log, log[-2000:]
    assert len([line for line in log.splitlines() if "ERROR" in line]) <= 1, log[-2000:]


def test_pipelined_requests_each_have_their_own_header_limit(server: Server) -> None:
    """30 GETs of 5 headers each sent in one write (HTTP/1.1 pipelining) are 30 answers, not one 431."""
    one = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"".join(b"X-H%d: 1\r\n" % i for i in range(5)) + b"\r\n"
    answer = _raw(server, one * 30, read_for=3)
    assert answer.count(b"HTTP/1.1 200 OK\r\n") == 30, answer[:300]
    assert b" 431 " not in answer


@pytest.mark.parametrize(
    "framing",
    [b"Content-Length: 6\r\nTransfer-Encoding: chunked\r\n", b"Content-Length: 6\r\nContent-Length: 7\r\n"],
    ids=["length-and-chunked", "two-lengths"],
)
def test_conflicting_body_lengths_are_an_error_object(server: Server, framing: bytes) -> None:
    """A request whose body length is ambiguous (request smuggling's tool) is refused with Scryfall's error object."""
    answer = _raw(
        server,
        b"POST /names/resolve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + framing
        + b'\r\n["a"]\r\n',
    )
    error = _error_object(answer, 400, "bad_request")
    assert error["details"].startswith("the request is not valid HTTP/1.1")
    assert server.client.get("/health").status_code == 200


# -- protocol ---------------------------------------------------------------------------------------------------


def test_a_lone_surrogate_in_a_json_deck_is_a_400(server: Server) -> None:
    """JSON's "\\ud800" escape decodes to no character: the deck is refused in one true line, not a 500."""
    deck = server.client.post(
        "/decks/check", params={"format": "modern"}, content=b'{"main":[{"name":"\\ud800","count":4}]}'
    )
    assert deck.status_code == 400, deck.text
    error = deck.json()
    assert error["code"] == "bad_request" and "lone surrogate" in error["details"]
    assert "the request body" in error["details"] and "/tmp" not in error["details"]


def test_batch_resolve_takes_a_limited_count_of_names(server: Server) -> None:
    """POST /names/resolve takes at most MAX_BATCH_NAMES names (docs/serve.md); more is a 422 error object."""
    many = server.client.post("/names/resolve", json=["Lightning Bolt"] * (MAX_BATCH_NAMES + 1))
    assert many.status_code == 422, many.text[:200]
    assert many.json()["code"] == "unprocessable_entity" and f"{MAX_BATCH_NAMES:,}" in many.json()["details"]
    assert (
        len(server.client.post("/names/resolve", json=["Lightning Bolt"] * MAX_BATCH_NAMES).json()) == MAX_BATCH_NAMES
    )


# -- work that takes long holds up no one ------------------------------------------------------------------


def _cpu_seconds(server: Server) -> float:
    """The CPU time the server process has used (Linux): evidence that it is working on a request."""
    fields = Path(f"/proc/{server.proc.pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def test_a_deck_of_misspelt_names_holds_up_no_other_request(server: Server, sample_db: OracleDB) -> None:
    """While a deck of 1,000 misspelt names is being checked (seconds: a suggestion for each), a 2-line deck check
    and a card lookup are answered: both finish before it does. (Each worker thread calls its own view of the
    database; nothing is one at a time under a lock.)"""
    names = [n for (n,) in sample_db.con.execute("SELECT name FROM cards WHERE is_card ORDER BY name").fetchall()]
    rng = random.Random(0)  # any fixed seed: the same misspellings on every run

    def misspelt(name: str) -> str:
        at = rng.randrange(1, max(2, len(name) - 1))
        return name[:at] + rng.choice("qxzj") + name[at + 1 :]

    big = "".join(f"1 {misspelt(rng.choice(names))}\n" for _ in range(1_000)).encode()
    done = threading.Event()
    answers: list[httpx.Response] = []

    def check_big() -> None:
        try:
            with httpx.Client(base_url=server.base, timeout=120) as client:
                answers.append(client.post("/decks/check", params={"format": "modern"}, content=big))
        finally:
            done.set()

    while not server.client.get("/health").json()["warm"]:  # the warm-up's CPU time is not the big deck's
        time.sleep(0.1)
    cpu_before = _cpu_seconds(server)
    worker = threading.Thread(target=check_big)
    worker.start()
    try:
        while _cpu_seconds(server) < cpu_before + 0.2 and not done.is_set():  # the server is checking the big deck
            time.sleep(0.02)
        assert not done.is_set(), "the big deck was checked before the small requests could be sent"
        small = server.client.post(
            "/decks/check", params={"format": "modern"}, content=b"4 Lightning Bolt\n4 Fire // Ice\n"
        )
        named = server.client.get("/cards/named", params={"fuzzy": misspelt(names[len(names) // 2])})
        assert not done.is_set(), "the small requests waited for the big deck"
        assert small.status_code == 200 and small.json()["counts"]["main"] == 8
        assert named.status_code in (200, 404) and named.json()["object"] in ("card", "error")
    finally:
        worker.join()
    assert answers[0].status_code == 200 and len(answers[0].json()["problems"]) > 900


# -- caches in bytes ---------------------------------------------------------------------------------------


def test_one_client_takes_at_most_its_share_of_a_pools_threads() -> None:
    """One client address sending as many slow searches as the lookups pool has threads (24 at once, from one
    address, each stopped only by the query timeout) held every thread: another client's cheap search waited
    10 s. A client's requests beyond its share (half of the threads) wait for its own to end, not for every
    other client's: the other client's request runs at once."""
    import anyio

    from oracle_tools.interfaces.serve.pools import Pool

    pool = Pool("lookups", 4, 16)
    release = threading.Event()

    def slow() -> str:
        release.wait(60)
        return "slow"

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for _ in range(pool.threads):
                group.start_soon(functools.partial(pool.run, slow, client="127.0.0.2"))
            await anyio.wait_all_tasks_blocked()  # each is on a thread, or waiting for one
            try:
                with anyio.fail_after(30):  # a guard only: at once with the fix; before it, when `slow` ends
                    assert await pool.run(lambda: "quick", client="127.0.0.3") == "quick"
                assert not release.is_set()
            finally:
                release.set()
        assert pool.count == 0

    anyio.run(main)


def test_caches_are_bounded_in_bytes(sample_db_path: Path) -> None:
    """A search of every printing is one cache entry of its ids' bytes, not a slot among 512: distinct big searches
    stay within the byte limit (the oldest go), and the ids are kept compactly; card objects likewise."""
    from oracle_tools.interfaces.serve.app import search_ids
    from oracle_tools.interfaces.serve.generations import Generation
    from oracle_tools.search import SearchRequest

    generation = Generation(sample_db_path, 1)
    try:
        generation.searches.limit = 2_000_000
        first = list(search_ids(generation, SearchRequest("unique:prints -o:zz0", "prints")).slice(0, 10**9))
        assert len(first) > 1_000
        for i in range(1, 12):
            search_ids(generation, SearchRequest(f"unique:prints -o:zz{i}", "prints"))
            assert generation.searches.bytes <= generation.searches.limit
        assert 0 < len(generation.searches) < 12
        kept = generation.searches.get(SearchRequest("unique:prints -o:zz11", "prints"))
        assert kept is not None and kept.nbytes < 48 * len(kept)  # a list of str takes about 90 bytes an id
        again = search_ids(generation, SearchRequest("unique:prints -o:zz0", "prints"))  # run again: the same ids
        assert again.slice(0, len(again)) == first and again[len(first) - 1] == first[-1]

        generation.card_json.limit = 400_000
        bodies = generation.card_objects_json(first[:600])
        assert all(bodies) and generation.card_json.bytes <= 400_000 and len(generation.card_json) < 600
    finally:
        generation.close()


def test_each_threads_view_searches_on_a_cursor_of_the_one_sandbox(sample_db_path: Path) -> None:
    """Every worker thread's view (Generation.db) runs user SQL on a cursor of the generation's one sandboxed
    connection, which the generation closes with the rest: a sandbox per thread would be a DuckDB instance of up
    to sql_memory_limit each, left open after a swap or stop. Outside the server a view closes its own cursor."""
    import duckdb

    from oracle_tools.interfaces.serve.generations import Generation

    generation = Generation(sample_db_path, 1)
    views: list[OracleDB] = []

    def search_on_this_thread() -> None:
        views.append(generation.db)
        assert generation.db.user_con.execute("SELECT count(*) FROM cards").fetchall()[0][0] > 0

    try:
        for _ in range(2):
            thread = threading.Thread(target=search_on_this_thread)
            thread.start()
            thread.join()
        assert len(views) == 2 and generation.owner._user_con is not None  # the one sandbox, the owner's
    finally:
        generation.close()
    for view in views:
        with pytest.raises(duckdb.ConnectionException):
            view.user_con.execute("SELECT 1")

    with OracleDB(sample_db_path) as owner:
        view = owner.on_connection(owner.con.cursor())
        cursor = view.user_con
        assert cursor.execute("SELECT 1").fetchone() == (1,) and owner._user_con is not None
        view.close()
        with pytest.raises(duckdb.ConnectionException):
            cursor.execute("SELECT 1")


def test_a_closed_generation_builds_nothing_more_and_opens_no_connection(sample_db_path: Path) -> None:
    """The warm-up thread of a generation closed before it ran (a swap or a stop) builds neither the name index
    nor the deck checker, and the database stays closed: a connection opened for them would be closed by no one."""
    from oracle_tools.errors import OracleToolsError
    from oracle_tools.interfaces.serve.generations import Generation

    generation = Generation(sample_db_path, 1)
    generation.close()
    generation.warm()
    owner = generation.owner
    assert owner._con is None and owner._built_name_index() is None and not owner._has_deck_checker()
    with pytest.raises(OracleToolsError, match="closed"):
        _ = owner.con


def test_a_cancelled_request_is_answered_503_and_stays_cancelled() -> None:
    """A request cancelled before its answer began (the stop's grace period is over) gets Scryfall's 503 error
    object, and the cancellation goes on to whoever cancelled it: swallowed, a timeout or task group around the
    app would see the request end as if it had finished."""
    import asyncio

    from starlette.types import Message, Receive, Scope, Send

    from oracle_tools.interfaces.serve.app import AnswerServerErrors

    sent: list[Message] = []

    async def waits_forever(scope: Scope, receive: Receive, send: Send) -> None:
        await asyncio.Event().wait()

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def request() -> None:
        task = asyncio.create_task(AnswerServerErrors(waits_forever)({"type": "http"}, receive, send))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(request())
    assert sent[0]["status"] == 503 and json.loads(sent[1]["body"])["code"] == "service_unavailable"


# -- /changes per address, and a clean stop -------------------------------------------------------------------


def test_changes_follow_each_clients_address_and_a_stop_is_clean(sample_db_path: Path, tmp_path: Path) -> None:
    """/changes answers are kept per address the client used (next_page is built from it). SIGTERM with a deck
    check in flight and a client stalled mid-body stops the server (the stalled client holds it up for the grace
    period only): the deck is answered, the stalled
    request gets Scryfall's 503 error object when the grace period is over (not a bare "Internal Server Error"),
    nothing logs a traceback, and the spill folder is removed."""
    from oracle_tools.ingest import sample_dir

    db = tmp_path / "changed.duckdb"
    shutil.copy(sample_db_path, db)
    OracleDB.ingest_files(db, [sample_dir() / "cards-2025-trimmed.json.gz"], replace_anyway=True).close()
    temp = tmp_path / "temp"
    temp.mkdir()
    # the stalled body is cut by the stop's grace period, not by its own time limit (the suite's is shorter)
    srv = Server(
        db, env={"TMPDIR": str(temp), "ORACLE_TOOLS_SERVE_BODY_TIMEOUT": str(connection_limits.GRACE_PERIOD + 60)}
    )
    stopped = False
    try:
        for host in (f"127.0.0.1:{srv.port}", f"localhost:{srv.port}", f"127.0.0.1:{srv.port}"):
            page = srv.client.get("/changes", headers={"Host": host}).json()
            assert page["has_more"] and page["next_page"].startswith(f"http://{host}/changes?"), (host, page)
        assert srv.client.get("/cards/search", params={"q": "t:creature"}).status_code in (200, 404)
        assert [p.name[:19] for p in temp.iterdir()] == ["oracle-tools-spill-"]  # the sandbox's spill folder
        deck = "".join(f"1 Zzqx Card {i}\n" for i in range(1_000)).encode()
        checking = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
        checking.sendall(
            b"POST /decks/check?format=commander HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(deck), deck)
        )
        stalled = _stalled_body(srv)
        time.sleep(0.3)  # the deck is being checked, the stalled body read
        srv.proc.send_signal(signal.SIGTERM)
        srv.proc.wait(timeout=connection_limits.GRACE_PERIOD + 60)  # a guard against a hang, not a measure
        err = srv.stop()  # the process has ended: this reads what it wrote
        stopped = True
        answer = _answer(checking, 5)
        checking.close()
        cut = _answer(stalled, 5)
        stalled.close()
    finally:
        if not stopped:
            srv.stop()
    assert "Traceback" not in err and "shutdown failed" not in err and "Exception in ASGI" not in err, err
    head = answer.partition(b"\r\n")[0]
    assert head == b"HTTP/1.1 200 OK" or _error_object(answer, 503, "service_unavailable"), answer[:300]
    assert "stopping" in _error_object(cut, 503, "service_unavailable")["details"]
    assert list(temp.iterdir()) == []


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("GET", "/sets/tcgplayer/%C2%B2", None, 404),  # "²" is a digit to str.isdigit
        ("GET", "/sets/tcgplayer/" + "9" * 5000, None, 404),
        ("GET", "/symbology/parse-mana?cost=" + "9" * 400, None, 422),
        ("GET", "/symbology/parse-mana?cost=%7B" + "9" * 400 + "%7D", None, 422),
        ("GET", "/symbology/parse-mana?cost=%7B%C2%B2%7D", None, 422),
        ("POST", "/cards/collection", {"identifiers": [{"multiverse_id": 10**40}]}, 422),
        ("POST", "/cards/collection", {"identifiers": [{"mtgo_id": int("9" * 4000)}]}, 422),
        ("POST", "/cards/collection", {"identifiers": [{"mtgo_id": -1}]}, 422),
    ],
)
def test_numbers_no_id_or_cost_has_are_an_error_object(
    server: Server, method: str, path: str, body: dict | None, status: int
) -> None:
    """Unicode digits, 5,000 digits, a 400-digit generic cost, a 40-digit id: each a 4xx error object (were 500s)."""
    data = None if body is None else json.dumps(body)  # (json.dumps writes a 4,000-digit int; httpx's json= too)
    answer = server.client.request(method, path, content=data, headers={"content-type": "application/json"})
    assert answer.status_code == status, answer.text[:300]
    error = answer.json()
    assert error["object"] == "error" and error["status"] == status and len(error["details"]) < 400


def test_a_server_errors_log_line_cuts_a_long_path(caplog: pytest.LogCaptureFixture) -> None:
    """A 500 logs its path cut to responses.LOGGED_PATH characters, not a 5,000-character path whole."""
    import asyncio

    from starlette.requests import Request

    from oracle_tools.interfaces.serve.responses import LOGGED_PATH, server_error

    path = "/sets/tcgplayer/" + "9" * 5000
    request = Request({"type": "http", "method": "GET", "path": path, "headers": [], "query_string": b""})
    with caplog.at_level("ERROR", logger="oracle_tools.interfaces.serve"):
        answer = asyncio.run(server_error(request, ValueError("x" * 5000)))
    assert answer.status_code == 500
    (line,) = [r.getMessage() for r in caplog.records]
    assert len(line) < 3 * LOGGED_PATH and "(5,016 characters)" in line


def test_a_trailing_slash_redirect_is_relative_whatever_the_host_header(server: Server) -> None:
    """`/search/` with `Host: evil.example` was redirected to http://evil.example/search: now to /search."""
    for path, to in (
        ("/search/", "/search"),
        ("/cards/search/?q=t%3Agoblin", "/cards/search?q=t%3Agoblin"),
        ("/card/", "/card"),
    ):
        answer = server.client.get(path, headers={"Host": "evil.example"}, follow_redirects=False)
        assert answer.status_code == 307 and answer.headers["location"] == to, (path, answer.headers)
    assert server.client.get("/cards/search/", params={"q": "t:goblin"}, follow_redirects=True).status_code == 200


def test_a_request_line_that_never_ends_is_a_414_at_once(server: Server) -> None:
    """`GET /search?q=aaaa…` streamed without end: answered 414 once MAX_REQUEST_LINE bytes have come, and its
    connection closed; it was kept growing (the event loop joining the pieces) until the header timeout, stalling
    every other client. A request beside it is answered."""
    target = b"/search?q=" + b"a" * (connection_limits.MAX_REQUEST_LINE + 1 - len(b"/search?q="))  # one byte too many
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET " + target[:4096])
        assert server.client.get("/cards/named", params={"exact": "Lightning Bolt"}).status_code == 200
        for start in range(4096, len(target), 4096):  # the line's end never comes: the answer comes at the limit
            sock.sendall(target[start : start + 4096])
        answer = _answer(sock, 5)  # (the last byte sent is the one over: the server has read all and closes)
    assert answer.startswith(b"HTTP/1.1 414 URI Too Long\r\n"), answer[:200]
    error = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert (error["object"], error["status"], error["code"]) == ("error", 414, "uri_too_long")
    assert f"{connection_limits.MAX_REQUEST_LINE:,} bytes" in error["details"]
    # a line just under the limit is read as usual
    near = (
        b"GET /cards/named?exact=Lightning+Bolt&pretty=false"
        + b"&x="
        + b"a" * (connection_limits.MAX_REQUEST_LINE - 200)
    )
    answer = _raw(server, near + b" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]


def test_one_address_holds_at_most_its_share_of_connections(server: Server) -> None:
    """512 idle sockets from one address took every connection (every other client answered 503): one address
    holds at most CONNECTIONS_PER_CLIENT; its next connection is answered 429 and closed at once, and a client at
    another address is served meanwhile."""
    socks = []
    try:
        for _ in range(connection_limits.CONNECTIONS_PER_CLIENT):
            socks.append(
                socket.create_connection(("127.0.0.1", server.port), timeout=10, source_address=("127.0.0.2", 0))
            )
        assert server.client.get("/health").status_code == 200  # every connection above is counted by now
        extra = socket.create_connection(("127.0.0.1", server.port), timeout=10, source_address=("127.0.0.2", 0))
        try:
            error = _error_object(_answer(extra, 5), 429, "too_many_requests")
            assert f"{connection_limits.CONNECTIONS_PER_CLIENT} connections" in error["details"]
        finally:
            extra.close()
        assert server.client.get("/cards/named", params={"exact": "Lightning Bolt"}).status_code == 200
    finally:
        for sock in socks:
            sock.close()


def test_the_server_bounds_its_allocators_arenas_and_answers_big_bodies_without_a_5xx(server: Server) -> None:
    """glibc gave each of the server's threads its own malloc arena (64 MB of address space each, up to 8 a
    core): under a 4 GB address-space limit the real server reached 3.9 GB and answered 500 MemoryError. `serve`
    runs with MALLOC_ARENA_MAX set (it runs itself again when it is not: the limit holds only when set before the
    first thread); four 1 MB deck bodies at once, beside lookups, are 413s and no request is a 5xx."""
    from oracle_tools.interfaces.serve import MALLOC_ARENAS

    pid = server.proc.pid
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    assert f"MALLOC_ARENA_MAX={MALLOC_ARENAS}".encode() in environ
    big = b"4 Lightning Bolt\n" * 61_000
    statuses: list[int] = []

    def post() -> None:
        with httpx.Client(base_url=server.base, timeout=60) as c:
            statuses.append(c.post("/decks/check", params={"format": "modern"}, content=big).status_code)

    threads = [threading.Thread(target=post) for _ in range(4)]
    for t in threads:
        t.start()
    named = [server.client.get("/cards/named", params={"exact": "Lightning Bolt"}).status_code for _ in range(20)]
    for t in threads:
        t.join()
    assert statuses == [413] * 4 and named == [200] * 20
    status = Path(f"/proc/{pid}/status").read_text()
    vm_mb = int(next(line for line in status.splitlines() if line.startswith("VmSize:")).split()[1]) // 1024
    assert vm_mb < 4096, status


def test_a_refused_request_line_logs_nothing() -> None:
    """uvicorn logged "Invalid HTTP request received." for each 414 and 431 of ours: an endless request line sent
    again and again filled the log, and the server's event loop blocked writing to a full stderr pipe."""
    import logging

    from starlette.responses import Response
    from starlette.types import Receive, Scope, Send

    from oracle_server import loopback_socket, serving

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await Response(b"ok")(scope, receive, send)

    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    listener, port = loopback_socket()
    try:
        with serving(app, listener, http=connection_limits.GuardedHttpToolsProtocol, lifespan="off"):
            logging.getLogger("uvicorn.error").addHandler(handler)  # (after uvicorn configured its logging)
            for _ in range(3):
                with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                    sock.sendall(b"GET /" + b"a" * connection_limits.MAX_REQUEST_LINE)  # the last byte is the one over
                    assert _answer(sock, 5).startswith(b"HTTP/1.1 414 ")
    finally:
        logging.getLogger("uvicorn.error").removeHandler(handler)
    assert not [line for line in lines if "Invalid HTTP request" in line], lines


def _deck_post(body: bytes) -> bytes:
    return (
        b"POST /decks/check?format=modern HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    ) + body


def test_a_drain_budget_has_its_burst_then_its_rate_and_says_how_long_to_wait() -> None:
    now = [0.0]
    budget = connection_limits.DrainBudget(rate=1000, burst=2000, longest=3, clock=lambda: now[0])
    assert budget.wait("a", 1500) == 0  # within the burst
    assert budget.wait("a", 1500) == 1.0  # 1,000 bytes short: a second of its rate
    assert budget.wait("b", 2000) == 0  # another address has its own
    assert budget.wait("a", 3000) is None  # four seconds away: longer than the longest wait, and nothing taken
    now[0] = 1.0  # the debt is paid
    assert budget.wait("a", 500) == 0.5
    now[0] = 100.0
    assert budget.wait("a", 2000) == 0  # whole again, never more than the burst
    assert budget.wait("a", 1) == 0.001


def test_refused_bodies_are_answered_within_their_addresses_budget(
    sample_db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deck body is refused at its 2,001st card line, and the rest, which the route does not read, was read and
    dropped whatever came: four clients sending 1 MB decks again and again were answered as fast as they sent, 215
    times a second, and took a third of a 16-client mix's throughput. One address has the rest of its refused
    bodies read for connection_limits.DRAIN_BURST bytes and DRAIN_RATE more a second: within that the answer comes at once;
    past it, the answer waits for the budget (the connection goes on); far past it (more than DRAIN_WAIT seconds),
    the same 413 comes after DRAIN_WAIT saying ``Connection: close``, and the connection is closed unread. Another
    address has its own budget; a legitimate 1 MB deck from an address past its budget is read whole and checked;
    and a body whose Content-Length is over the limit is refused at once, unread (it was waited for until the body
    timeout)."""
    from oracle_tools.interfaces.serve.app import create_app
    from oracle_tools.interfaces.serve.params import MAX_BODY

    from oracle_server import loopback_socket, serving

    big = b"4 Lightning Bolt\n" * 61_000  # just under MAX_BODY, refused at line 2,001

    def refused(sock: socket.socket) -> bytes:
        sock.sendall(_deck_post(big))
        head, body = one_answer(sock)
        assert head.startswith(b"HTTP/1.1 413 "), head
        assert "more than 2,000 card lines" in json.loads(body)["details"]
        return head.lower()

    # the rest of one such body (not of two: each was read up to at least its line 2,001) at once, then 8 MB a second
    monkeypatch.setattr(connection_limits, "DRAIN_BURST", len(big))
    monkeypatch.setattr(connection_limits, "DRAIN_RATE", 8e6)
    monkeypatch.setattr(connection_limits, "DRAIN_WAIT", 60.0)
    listener, port = loopback_socket()
    with (
        serving(create_app(sample_db_path, warm=False), listener, **connection_limits.uvicorn_options()),
        socket.create_connection(("127.0.0.1", port), timeout=30) as sock,
    ):
        for _ in range(3):  # at once, then each after its wait for the budget: the connection goes on
            assert b"connection: close" not in refused(sock)
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert one_answer(sock)[0].startswith(b"HTTP/1.1 200 ")

    monkeypatch.setattr(connection_limits, "DRAIN_RATE", 1.0)  # a byte a second: next to nothing more
    monkeypatch.setattr(connection_limits, "DRAIN_WAIT", 0.0)  # so that past the budget is far past it
    listener, port = loopback_socket()
    with serving(create_app(sample_db_path, warm=False), listener, **connection_limits.uvicorn_options()):
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            assert b"connection: close" not in refused(sock)

            def send_on(sock: socket.socket = sock) -> None:
                with contextlib.suppress(OSError):  # cut off once answered
                    sock.sendall(_deck_post(big))

            sender = threading.Thread(target=send_on)
            sender.start()
            sock.settimeout(30)
            answer = b""
            with contextlib.suppress(ConnectionResetError):  # the end: what was not read of the body is dropped
                while chunk := sock.recv(65536):
                    answer += chunk
            sender.join()
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 413 ") and b"connection: close" in head.lower(), head
        assert "more than 2,000 card lines" in json.loads(body)["details"]
        # another address's budget is its own
        with socket.create_connection(("127.0.0.1", port), timeout=30, source_address=("127.0.0.2", 0)) as other:
            assert b"connection: close" not in refused(other)
        # a legitimate deck of 1 MB (1,500 lines) from the address past its budget: read whole and checked
        legit = (b"1 Lightning Bolt" + b" " * 680 + b"\n") * 1_500
        assert MAX_BODY // 2 < len(legit) <= MAX_BODY
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            report = client.post("/decks/check", params={"format": "modern"}, content=legit)
            assert report.status_code == 200, report.text
            assert report.json()["format"] == "modern"
        # a body said by its Content-Length to be over the limit: 413 at once, without waiting for it
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(_deck_post(b"")[: -len(b"Content-Length: 0\r\n\r\n")] + b"Content-Length: 5000000\r\n\r\n")
            answer = _answer(sock, 30)
        error = _error_object(answer, 413, "payload_too_large")
        assert "5,000,000 bytes" in error["details"]


def test_a_failure_to_open_that_is_not_the_files_is_tried_again(
    sample_db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reopen that failed for the process's own reason (too many open files, out of memory) answered 503 until the
    file changed again: it is tried again after Store.RETRY_SECONDS. A file that cannot be opened (another schema
    version, damaged) still waits for the file to change (tests/test_schema_version.py)."""
    import asyncio

    from oracle_tools.errors import OracleToolsError
    from oracle_tools.interfaces.serve.generations import Generation, Store

    served = tmp_path / "served.duckdb"
    shutil.copy(sample_db_path, served)
    store = Store(served, warm=False)
    opened = store._open
    failures = [OSError(24, "Too many open files")]

    def open_once_failing() -> Generation:
        if failures:
            raise failures.pop()
        return opened()

    monkeypatch.setattr(store, "_open", open_once_failing)
    monkeypatch.setattr(store, "RETRY_SECONDS", 0.0)
    store.request_reload()  # as SIGHUP: the file itself is unchanged

    async def two_requests() -> Generation:
        with pytest.raises(OracleToolsError, match="Too many open files"):
            await store.acquire()
        generation = await store.acquire()
        store.release()
        return generation

    generation = asyncio.run(two_requests())
    try:
        assert generation.number == 3 and generation.owner.resolve("Lightning Bolt").ok
    finally:
        generation.close()
