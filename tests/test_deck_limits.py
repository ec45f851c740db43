"""Hardening: one big deck cannot stall the others. A deck over the size limits is refused at once (CLI exit 2,
HTTP 413) unless the limit is lifted, and a problem never lists more than ten line numbers."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle_tools.decks.checker import MAX_DECK_LINES, MAX_DECK_NAMES
from oracle_tools.interfaces.cli import main

from oracle_server import Server, one_answer

ONE_MB_DECK = "4 Lightning Bolt\n" * 61_000  # 1,037,000 bytes: just under the server's 1 MiB body limit


@pytest.fixture(scope="module")
def server(sample_server: Server) -> Server:
    """The session's server on a copy of the sample database (conftest)."""
    return sample_server


def _deck_check(db: Path, deck: str, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "oracle_tools.interfaces.cli",
            "deck",
            "check",
            "-",
            "--format",
            "modern",
            "--db",
            str(db),
            *options,
        ],
        input=deck,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _deck_check_in_process(db: Path, deck: str, *options: str) -> Result:
    runner = CliRunner()
    return runner.invoke(main, ["deck", "check", "-", "--format", "modern", "--db", str(db), *options], input=deck)


def test_the_cli_refuses_a_deck_over_the_limits_unless_told(sample_db_path: Path) -> None:
    refused = _deck_check(sample_db_path, ONE_MB_DECK)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == (
        f"error: standard input: more than {MAX_DECK_LINES:,} card lines; a deck check takes at most {MAX_DECK_LINES:,} lines "
        f"and {MAX_DECK_NAMES:,} names. Check a smaller list, or lift the limit (deck check --no-limits, "
        "check_deck(..., limits=False)).\n"
    )
    # the refusal above is the process's own (exit status, stderr from a real pipe); these two are the answers
    lifted = _deck_check_in_process(sample_db_path, ONE_MB_DECK, "--no-limits")
    assert lifted.exit_code == 1
    (problem,) = [line for line in lifted.stdout.splitlines() if "[too_many_copies]" in line]
    assert "(lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 60,990 more)" in problem and len(problem) < 400
    at_the_limit = "".join(f"1 {n}\n" for n in ["Lightning Bolt"] * MAX_DECK_LINES)
    assert _deck_check_in_process(sample_db_path, at_the_limit).exit_code == 1  # checked (not legal), not refused


def test_the_server_answers_413_at_once_and_goes_on(server: Server) -> None:
    big = server.client.post("/decks/check?format=modern", content=ONE_MB_DECK.encode())
    assert big.status_code == 413
    details = big.json()["details"]
    assert details.startswith("the request body: more than 2,000 card lines; a deck check takes at most")
    assert details.endswith("(oracle-tools deck check --no-limits on this machine).")
    small = server.client.post("/decks/check?format=modern", content=b"4 Lightning Bolt\n56 Mountain\n")
    assert small.status_code == 200 and small.json()["legal"] is True


def test_the_line_limit_is_counted_as_the_text_is_read(sample_db_path: Path, tmp_path: Path) -> None:
    """A 20 MB file of one line repeated took 13-65 s and 900 MB before its refusal (a 100 MB one never answered):
    the lines are counted before any parse work, stopping at line 2,001, for a file, standard input (above), a
    posted body (below) and the MCP tool's argument. Blank lines are no card lines, and a JSON deck is measured
    once read, deck by deck."""
    from oracle_tools.decks.checker import check_text_size
    from oracle_tools.errors import DeckTooLargeError

    big = tmp_path / "big.txt"
    big.write_text("4 Lightning Bolt\n" * 1_200_000)  # 20 MB
    runner = CliRunner()
    refused = runner.invoke(main, ["deck", "check", str(big), "--format", "modern", "--db", str(sample_db_path)])
    assert refused.exit_code == 2, refused.output
    assert f"{big}: more than {MAX_DECK_LINES:,} card lines" in refused.output
    blank_padded = "\n\n".join(["1 Lightning Bolt"] * MAX_DECK_LINES) + "\n" * 100_000
    check_text_size(blank_padded, "x")  # 2,000 card lines and blank ones: taken
    check_text_size("[" + "{}," * 10_000 + "{}]", "x")  # JSON: measured once read
    with pytest.raises(DeckTooLargeError, match="more than 2,000 card lines"):
        check_text_size(blank_padded + "1 Mountain\n", "decklist")


def test_the_mcp_tool_refuses_a_long_deck_before_reading_it(sample_db_path: Path) -> None:
    import anyio
    from mcp import Client

    from oracle_tools import OracleDB
    from oracle_tools.interfaces.mcp_server import build_server

    async def call() -> Any:
        with OracleDB(sample_db_path) as db:
            async with Client(build_server(db)) as client:
                return await client.call_tool("check_deck", {"decklist": ONE_MB_DECK, "format": "modern"})

    result = anyio.run(call)
    assert result.is_error and "decklist: more than 2,000 card lines" in result.content[0].text


def test_a_deck_body_past_the_line_limit_is_answered_before_the_rest_is_sent(server: Server) -> None:
    """The server reads a deck check's body only as far as its 2,001st card line: the 413 comes while most of a 1 MB
    body is still unsent (it waited for all of it, then decoded and scanned every byte: a client that never sent
    the rest got a 408), with the same words as for the whole body; the rest, sent after the answer, is passed over
    unread and the connection answers its next request."""
    import json

    body = ONE_MB_DECK.encode()
    head = body[: len(b"4 Lightning Bolt\n") * (MAX_DECK_LINES + 500)]  # about 42 KB of the 1,037,000 bytes
    whole = server.client.post("/decks/check?format=modern", content=body)
    assert whole.status_code == 413
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
        sock.sendall(
            b"POST /decks/check?format=modern HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body) + head
        )
        answered, answer = one_answer(sock)
        status = int(answered[9:12])
        assert status == 413 and json.loads(answer) == whole.json()
        small = b"4 Lightning Bolt\n56 Mountain\n"
        sock.sendall(
            body[len(head) :] + b"POST /decks/check?format=modern HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Length: %d\r\n\r\n" % len(small) + small
        )
        answered, answer = one_answer(sock)
        status = int(answered[9:12])
        assert status == 200 and json.loads(answer)["legal"] is True


def test_a_long_blank_line_is_counted_at_once() -> None:
    """A blank stretch before a line break was scanned again from each of its characters (40,000 spaces took 21 s;
    a 1 MB body of them would have held the deck pool for hours): counted in one pass now, in a child process
    that is given two minutes."""
    code = (
        "from oracle_tools.decks import checker\n"
        "text = ' ' * 1_000_000 + '\\n4 Lightning Bolt\\n'\n"
        "checker.check_text_size(text, 'x'); checker.check_bytes_size(text.encode(), 'x'); print('counted')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout == "counted\n", done.stderr


_PIECES = [
    b"4 Bolt",
    b" ",
    b"\t",
    b"\r",
    b"\n",
    b"\n",
    b"\n\n",
    b"\xc2\xa0",
    b"\xe2\x80\x83",
    b"\x1c",
    b"\xa0",
    b"{",
    b"\x00",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=80), st.integers(0, 80))
def test_the_bytes_count_refuses_only_what_the_text_count_refuses(pieces: list[bytes], cut: int) -> None:
    """check_bytes_size counts, before any decoding, only lines that are card lines whatever the bytes decode as:
    what it refuses, the decoded text's count (check_text_size) refuses too, with the same words; and what it refuses
    of a body's first bytes it refuses of the whole body (the server reads no further). The limit is lowered to 3
    lines here so that short bodies reach it."""
    from oracle_tools.decks import checker
    from oracle_tools.decks.decklist import decode_decklist
    from oracle_tools.errors import DecklistError, DeckTooLargeError

    data = b"".join(pieces)
    head = b"".join(pieces[:cut])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(checker, "MAX_DECK_LINES", 3)

        def refused(check: Any, value: Any) -> str | None:
            try:
                check(value, "the body")
            except DeckTooLargeError as exc:
                return str(exc)
            return None

        by_bytes = refused(checker.check_bytes_size, data)
        if refused(checker.check_bytes_size, head) is not None:
            assert by_bytes is not None
        if by_bytes is not None:
            assert "more than 3 card lines" in by_bytes
            try:
                text = decode_decklist(data, "the body")
            except DecklistError:
                return  # no text (a NUL, control characters): the decoder's error, had the bytes not been over
            assert refused(checker.check_text_size, text) == by_bytes


def test_refusals_known_at_once_take_no_worker_thread(sample_db_path: Path) -> None:
    """A deck body past the line limit (by its bytes) and a search this database refused before are answered on the
    event loop, the same answers as before: the worker pools, which the well-behaved requests wait for, never see
    them (a client sending them again and again costs a lookup or a count each)."""
    from starlette.testclient import TestClient

    from oracle_tools.interfaces.serve.app import create_app
    from oracle_tools.interfaces.serve.pools import Pool

    ran: list[str] = []

    class Watched(Pool):
        async def run(self, call: Any, *args: Any, client: str | None = None) -> Any:
            ran.append(self.name)
            return await super().run(call, *args, client=client)

    poison = {"q": "o:/(.{0,1000}){1000}/"}
    with TestClient(create_app(sample_db_path, warm=False), base_url="http://127.0.0.1:8765") as http:
        pools = http.app.state.pools  # type: ignore[attr-defined]
        for name, pool in list(pools.items()):
            pools[name] = Watched(name, pool.threads, pool.queue)
        first = http.get("/cards/search", params=poison)
        assert first.status_code == 400 and ran == ["lookups"]  # tried once, on a worker thread
        for _ in range(3):
            again = http.get("/cards/search", params=poison)
            assert again.status_code == 400 and again.json() == first.json()
        big = http.post("/decks/check?format=modern", content=ONE_MB_DECK.encode())
        assert big.status_code == 413 and "more than 2,000 card lines" in big.json()["details"]
        assert ran == ["lookups"]
        small = http.post("/decks/check?format=modern", content=b"4 Lightning Bolt\n56 Mountain\n")
        assert small.status_code == 200 and ran == ["lookups", "decks"]
