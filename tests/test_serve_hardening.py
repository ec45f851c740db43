"""Hardening of `oracle-tools serve`, round two, against the real server on 127.0.0.1: runaway searches stop,
lone surrogates are a 400, slow and oversized requests are cut off, and answers neither leak the database path
to other origins nor take their links from the Host header."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from oracle_tools.interfaces.serve import limits

from oracle_server import Server


@pytest.fixture(scope="module")
def server(sample_db_path: Path) -> Iterator[Server]:
    srv = Server(sample_db_path)
    yield srv
    srv.stop()


def _raw(server: Server, data: bytes, *, read_for: float = 5.0) -> bytes:
    with socket.create_connection(("127.0.0.1", server.port), timeout=read_for + 5) as sock:
        sock.sendall(data)
        sock.settimeout(read_for)
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except TimeoutError:
            pass
        return b"".join(chunks)


def test_a_runaway_search_is_stopped_and_the_server_goes_on(sample_db_path: Path) -> None:
    """With --query-timeout, a search running longer is interrupted (DuckDB's interrupt()): 422, one line."""
    srv = Server(sample_db_path, "--query-timeout", "0.002")
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
    with socket.create_connection(("127.0.0.1", server.port), timeout=limits.HEADER_TIMEOUT + 10) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        started = time.monotonic()
        answer = b""
        while time.monotonic() - started < limits.HEADER_TIMEOUT + 5:
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
    assert limits.HEADER_TIMEOUT - 1 <= elapsed <= limits.HEADER_TIMEOUT + 3


def test_too_many_or_too_large_headers_are_a_431(server: Server) -> None:
    many = b"".join(b"X-H%d: 1\r\n" % i for i in range(limits.MAX_HEADERS + 1))
    answer = _raw(server, b"GET /health HTTP/1.1\r\nHost: a\r\n" + many + b"\r\n")
    assert answer.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"), answer[:200]
    body = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert body == {
        "object": "error",
        "code": "request_header_fields_too_large",
        "status": 431,
        "details": f"more than {limits.MAX_HEADERS} request headers",
    }
    big = b"X-Big: " + b"a" * (limits.MAX_HEADER_BYTES + 1) + b"\r\n"
    answer = _raw(server, b"GET /health HTTP/1.1\r\nHost: a\r\n" + big + b"\r\n")
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert server.client.get("/health").status_code == 200  # and the server goes on


def test_connections_are_capped(server: Server) -> None:
    """uvicorn's limit_concurrency is set: the (MAX_CONNECTIONS+1)th open connection is answered 503."""
    socks = []
    try:
        for _ in range(limits.MAX_CONNECTIONS + 5):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            socks.append(s)
        time.sleep(0.5)
        last = socks[-1]
        last.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        last.settimeout(10)
        assert last.recv(4096).startswith(b"HTTP/1.1 503 ")
    finally:
        for s in socks:
            s.close()
    time.sleep(0.5)
    assert server.client.get("/health").status_code == 200


def test_health_names_only_the_file_and_the_page_sends_security_headers(server: Server, sample_db_path: Path) -> None:
    health = server.client.get("/health", headers={"Origin": "https://elsewhere.example"})
    assert health.headers["access-control-allow-origin"] == "*"
    assert health.json()["db"] == sample_db_path.name and str(sample_db_path.parent) not in health.text
    page = server.client.get("/")
    assert page.headers["x-content-type-options"] == "nosniff" and page.headers["x-frame-options"] == "DENY"
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy and "script-src" not in policy


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
