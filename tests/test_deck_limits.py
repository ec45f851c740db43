"""Hardening: one big deck cannot stall the others. A deck over the size limits is refused at once (CLI exit 2,
HTTP 413) unless the limit is lifted, and a problem never lists more than ten line numbers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from oracle_tools.decks.checker import MAX_DECK_LINES, MAX_DECK_NAMES
from oracle_tools.interfaces.cli import main

from oracle_server import Server

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
    from oracle_tools.decks.checker import DeckTooLargeError, check_text_size

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
