"""``oracle-tools mcp``: the real server process, driven by the MCP SDK's own client.

One stdio session against ``oracle-tools mcp --db <sample db>`` lists the tools and calls each of
them (plus bad inputs); the tests then check the answers against the embedded sample's real cards
and against the CLI's ``--json`` output for the same question (the contract: the same JSON).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from oracle_tools.db import MAX_BATCH_NAMES
from oracle_tools.interfaces.answers import ANSWERS
from oracle_tools.search import DIRECTIONS, ORDERS, UNIQUE

from oracle_server import Server

CLI = [sys.executable, "-m", "oracle_tools.interfaces.cli"]

DECK = "Deck\n8 Seven Dwarves\n52 Mountain\n"
# names whose Oracle text names themselves or other cards (CR 201.5): a meld card (its text and another's name
# it), a card another names twice, a token name, a shortened name (201.5c) holding "//"
REFS_NAMES = ("Graf Rats", "Flame Burst", "Verix Bladewing", "SP//dr, Piloted by Peni")

# (tool, arguments) called in one session; results are keyed by the label
CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "resolve_split": ("resolve", {"name": "fire/ice"}),
    "resolve_interchangeable": ("resolve", {"name": "Ruzic, Booed but Victorious"}),
    "resolve_miss": ("resolve", {"name": "Tarmogoyff"}),
    "resolve_fuzzy": ("resolve", {"name": "Tarmogoyff", "fuzzy": True}),
    "resolve_miss_unsuggested": ("resolve", {"name": "Tarmogoyff", "suggest": 0}),
    "resolve_batch_one_suggestion": ("resolve_batch", {"names": ["Tarmogoyff", "qwzx"], "suggest": 1}),
    "resolve_batch_fuzzy": ("resolve_batch", {"names": ["Tarmogoyff", "fire/ice", "qwzx"], "fuzzy": True}),
    "token_treasure": ("token", {"name": "Treasure"}),
    "token_marit_lage": ("token", {"name": "Marit Lage"}),
    **{f"references {name}": ("references", {"name": name}) for name in REFS_NAMES},
    "references_miss": ("references", {"name": "Tarmogoyff"}),
    "choose_half": ("choose_name", {"name": "Fire // Ice", "constraint": "nonland"}),
    "choose_from_card": ("choose_name", {"name": "Lightning Bolt", "card": "Meddling Mage"}),
    "list_nameable": ("list_nameable", {"constraint": "nonartifact, nonland", "limit": 25}),
    "check_deck": ("check_deck", {"decklist": DECK, "format": "future"}),
    "search": ("search", {"query": "t:goblin c:r mv<=2", "limit": 5}),
    "search_prints": ("search", {"query": '!"Lightning Bolt"', "unique": "prints", "limit": 175}),
    # bad inputs: each an MCP tool error, never a crash
    "bad_empty_name": ("resolve", {"name": ""}),
    "bad_long_name": ("token", {"name": "x" * 1001}),
    "bad_type": ("list_nameable", {"limit": "many"}),
    "bad_suggest": ("resolve", {"name": "Tarmogoyff", "suggest": 51}),
    "bad_format": ("check_deck", {"decklist": DECK, "format": "nosuchformat"}),
    "bad_constraint": ("choose_name", {"name": "Fire", "constraint": "blorp"}),
    "bad_both": ("choose_name", {"name": "Fire", "constraint": "nonland", "card": "Meddling Mage"}),
    "bad_card": ("choose_name", {"name": "Fire", "card": "Medling Mage"}),
    "bad_tool": ("no_such_tool", {}),
    "bad_search_syntax": ("search", {"query": "t:goblin mv<="}),
    "bad_search_limit": ("search", {"query": "t:goblin", "limit": 176}),
    "bad_search_order": ("search", {"query": "t:goblin", "order": "price"}),
    # a quoted value holding a line break: the library's message holds it, and its "did you mean" after it
    "bad_search_value_lines": ("search", {"query": 'nameable:"x\ny"'}),
    "bad_json_deck": ("check_deck", {"decklist": '{"main": [4 Lightning Bolt', "format": "modern"}),
    "after_errors": ("resolve", {"name": "Lightning Bolt"}),
}


async def _session(db_path: Path) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=CLI[0], args=[*CLI[1:], "mcp", "--db", str(db_path)])
    out: dict[str, Any] = {}
    with anyio.fail_after(120):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            out["initialize"] = await session.initialize()
            out["tools"] = (await session.list_tools()).tools
            for label, (tool, arguments) in CALLS.items():
                out[label] = await session.call_tool(tool, arguments)
    return out


@pytest.fixture(scope="module")
def mcp_results(sample_db_path: Path) -> dict[str, Any]:
    return anyio.run(_session, sample_db_path)


def _cli_json(db_path: Path, *args: str, stdin: str | None = None) -> str:
    """The CLI's --json output, run in-process: what the tools are compared with is its answer, not the process."""
    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main

    done = CliRunner().invoke(main, [*args, "--db", str(db_path), "--json"], input=stdin)
    assert done.exit_code in (0, 1), done.stderr
    return done.stdout


def _text(result: Any) -> str:
    assert not result.is_error, result.content
    assert len(result.content) == 1 and result.content[0].type == "text"
    return str(result.content[0].text)


def _error(result: Any) -> str:
    assert result.is_error
    text = str(result.content[0].text)
    assert "\n" not in text and "Traceback" not in text
    return text


def test_server_lists_its_tools_with_input_schemas(mcp_results: dict[str, Any]) -> None:
    assert mcp_results["initialize"].server_info.name == "oracle-tools"
    tools = {t.name: t for t in mcp_results["tools"]}
    assert set(tools) == {row.tool for row in ANSWERS if row.tool}  # the table of answers' tools, no other
    assert {"search", "resolve", "resolve_batch", "check_deck", "changes"} <= set(tools)
    assert tools["search"].input_schema["properties"]["limit"]["maximum"] == 175
    # the search engine's own lists of orders, unique modes and directions (usd, eur and tix orders included)
    search = tools["search"].input_schema["properties"]
    assert (search["order"]["enum"], search["unique"]["enum"], search["direction"]["enum"]) == (
        list(ORDERS),
        list(UNIQUE),
        list(DIRECTIONS),
    )
    assert tools["resolve"].input_schema["required"] == ["name"]
    assert tools["resolve"].input_schema["properties"]["name"]["maxLength"] == 1000
    assert tools["references"].input_schema["required"] == ["name"]
    # the same batch limit as POST /names/resolve (both call OracleDB.resolve_many)
    assert tools["resolve_batch"].input_schema["properties"]["names"]["maxItems"] == MAX_BATCH_NAMES
    assert set(tools["check_deck"].input_schema["required"]) == {"decklist", "format"}
    assert all(t.annotations and t.annotations.read_only_hint for t in tools.values())
    assert all(t.description for t in tools.values())


def test_resolve_is_the_cli_json(mcp_results: dict[str, Any], sample_db_path: Path) -> None:
    text = _text(mcp_results["resolve_split"])
    assert text == _cli_json(sample_db_path, "resolve", "fire/ice").rstrip("\n")
    data = mcp_results["resolve_split"].structured_content
    assert (data["status"], data["name"], data["via"]) == ("ok", "Fire // Ice", "normalized")
    # CR 201.3: the Omenpaths name is the same name as the Oracle card's
    inter = mcp_results["resolve_interchangeable"].structured_content
    assert (inter["name"], inter["via"]) == ("Ultimate Green Goblin", "interchangeable")
    assert "Ruzic, Booed but Victorious" in inter["names"]
    miss = mcp_results["resolve_miss"].structured_content
    assert miss["status"] == "not_found" and miss["suggestions"][0] == "Tarmogoyf"
    assert _text(mcp_results["resolve_miss"]) == _cli_json(sample_db_path, "resolve", "Tarmogoyff").rstrip("\n")
    fuzzy = mcp_results["resolve_fuzzy"].structured_content
    assert (fuzzy["status"], fuzzy["name"], fuzzy["via"]) == ("ok", "Tarmogoyf", "fuzzy")


def test_resolve_batch_is_the_cli_json_and_keeps_fuzzy(mcp_results: dict[str, Any], sample_db_path: Path) -> None:
    """A batch never drops --fuzzy: the MCP tool answers as `resolve --batch - --fuzzy --json`."""
    printed = _cli_json(sample_db_path, "resolve", "--batch", "-", "--fuzzy", stdin="Tarmogoyff\nfire/ice\nqwzx\n")
    assert _text(mcp_results["resolve_batch_fuzzy"]) == printed.rstrip("\n")
    rows = json.loads(printed)
    assert [(r["status"], r["name"], r["via"]) for r in rows] == [
        ("ok", "Tarmogoyf", "fuzzy"),
        ("ok", "Fire // Ice", "normalized"),
        ("not_found", None, None),
    ]


def test_suggest_is_the_cli_option(mcp_results: dict[str, Any], sample_db_path: Path) -> None:
    """``suggest`` asks a miss for that many names, 0 for none (an exact lookup), as ``--suggest`` does."""
    unsuggested = mcp_results["resolve_miss_unsuggested"].structured_content
    assert (unsuggested["status"], unsuggested["suggestions"], unsuggested["tokens"]) == ("not_found", [], [])
    assert _text(mcp_results["resolve_miss_unsuggested"]) == _cli_json(
        sample_db_path, "resolve", "Tarmogoyff", "--suggest", "0"
    ).rstrip("\n")
    printed = _cli_json(sample_db_path, "resolve", "--batch", "-", "--suggest", "1", stdin="Tarmogoyff\nqwzx\n")
    assert _text(mcp_results["resolve_batch_one_suggestion"]) == printed.rstrip("\n")
    assert json.loads(printed)[0]["suggestions"] == ["Tarmogoyf"]
    assert "suggest" in _error(mcp_results["bad_suggest"])


def test_token_is_the_cli_json(mcp_results: dict[str, Any], sample_db_path: Path) -> None:
    assert _text(mcp_results["token_treasure"]) == _cli_json(sample_db_path, "token", "Treasure").rstrip("\n")
    treasure = mcp_results["token_treasure"].structured_content
    # CR 111.10a
    assert (treasure["kind"], treasure["rule"], treasure["type_line"]) == (
        "predefined",
        "111.10a",
        "Token Artifact — Treasure",
    )
    # CR 111.4 / 111.9: Marit Lage is named and defined by the effects that create it
    marit = mcp_results["token_marit_lage"].structured_content
    assert marit["kind"] == "effect" and (marit["power"], marit["toughness"]) == ("20", "20")
    assert "Dark Depths" in marit["created_by"]
    assert _text(mcp_results["token_marit_lage"]) == _cli_json(sample_db_path, "token", "Marit Lage").rstrip("\n")


def test_references_is_the_cli_json_and_the_http_answer(
    mcp_results: dict[str, Any], sample_db_path: Path, sample_server: Server
) -> None:
    """One implementation, three doors: the tool, `refs --json` and GET /names/references give the same JSON."""
    for name in REFS_NAMES:
        result = mcp_results[f"references {name}"]
        assert _text(result) == _cli_json(sample_db_path, "refs", name).rstrip("\n")
        assert result.structured_content == sample_server.client.get("/names/references", params={"name": name}).json()
    rats = mcp_results["references Graf Rats"].structured_content
    # CR 712.4a: Midnight Scavengers' meld text names Graf Rats
    assert [r["card_name"] for r in rats["named_by"]] == ["Midnight Scavengers"]
    verix = mcp_results["references Verix Bladewing"].structured_content
    assert [r["text"] for r in verix["own_text"] if r["kind"] == "token_name"] == ["Karox Bladewing"]


def test_references_to_no_card_is_the_cli_line_as_a_tool_error(
    mcp_results: dict[str, Any], sample_db_path: Path
) -> None:
    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main

    refs = CliRunner().invoke(main, ["refs", "Tarmogoyff", "--db", str(sample_db_path), "--json"])
    assert refs.exit_code == 1 and refs.stderr.startswith("error: ")
    # as choose_name's unknown card: the tool's name, then the library's line
    assert _error(mcp_results["references_miss"]) == "references: " + refs.stderr.removeprefix("error: ").rstrip("\n")


def test_choose_name_and_list_nameable_are_the_cli_json(mcp_results: dict[str, Any], sample_db_path: Path) -> None:
    half = mcp_results["choose_half"].structured_content
    # CR 201.4b: a split card's name as a whole is not a name that can be chosen; its halves' names are
    assert half["valid"] is False and half["constraint_phrase"] == "nonland"
    assert _text(mcp_results["choose_half"]) == _cli_json(
        sample_db_path, "choose-name", "Fire // Ice", "--constraint", "nonland"
    ).rstrip("\n")
    # Meddling Mage: "Choose a nonland card name" — Lightning Bolt is one (CR 201.4a)
    from_card = mcp_results["choose_from_card"].structured_content
    assert from_card["valid"] is True and from_card["rule"] == "201.4a"
    assert (from_card["constraint_phrase"], from_card["constraint_from_card"]) == ("nonland", "Meddling Mage")
    assert _text(mcp_results["choose_from_card"]) == _cli_json(
        sample_db_path, "choose-name", "Lightning Bolt", "--card", "Meddling Mage"
    ).rstrip("\n")
    rows = json.loads(_text(mcp_results["list_nameable"]))
    cli_rows = json.loads(_cli_json(sample_db_path, "choose-name", "--list", "--constraint", "nonartifact, nonland"))
    assert len(cli_rows) > 25 and rows == cli_rows[:25]
    assert mcp_results["list_nameable"].structured_content == {"result": rows}


def test_check_deck_is_the_cli_json(mcp_results: dict[str, Any], sample_db_path: Path, tmp_path: Path) -> None:
    report = mcp_results["check_deck"].structured_content
    assert report["legal"] is False
    # Seven Dwarves' own Oracle text allows seven copies (CR 100.2a "unless…"); eight is over the limit
    assert [(p["kind"], p["card"], p["line"]) for p in report["problems"]] == [("too_many_copies", "Seven Dwarves", 2)]
    deck_file = tmp_path / "deck.txt"
    deck_file.write_text(DECK, encoding="utf-8")
    cli = json.loads(_cli_json(sample_db_path, "deck", "check", str(deck_file), "--format", "future"))
    # the same report; only its source differs (a file for the CLI, the text given for the tool)
    assert cli.pop("source") == str(deck_file) and report.pop("source") == "decklist"
    assert report == cli


def test_search_is_the_cli_json(mcp_results: dict[str, Any], sample_db_path: Path) -> None:
    text = _text(mcp_results["search"])
    assert text == _cli_json(sample_db_path, "search", "t:goblin c:r mv<=2", "--limit", "5").rstrip("\n")
    found = mcp_results["search"].structured_content
    assert found["object"] == "list" and len(found["data"]) == 5 and found["total_cards"] > 5 and found["has_more"]
    for card in found["data"]:  # a Scryfall card object: red Goblins with mana value 2 or less
        assert card["object"] == "card" and "Goblin" in card["type_line"]
        assert "R" in card["colors"] and card["cmc"] <= 2
    prints = mcp_results["search_prints"].structured_content
    assert {c["name"] for c in prints["data"]} == {"Lightning Bolt"}
    assert len({c["id"] for c in prints["data"]}) == prints["total_cards"] > 1 and not prints["has_more"]


def test_bad_input_is_one_line_tool_error_and_the_server_keeps_answering(mcp_results: dict[str, Any]) -> None:
    assert (
        _error(mcp_results["bad_empty_name"]) == "resolve: bad arguments: name: String should have at least 1 character"
    )
    assert _error(mcp_results["bad_long_name"]).startswith(
        "token: bad arguments: name: String should have at most 1000"
    )
    assert _error(mcp_results["bad_type"]).startswith(
        "list_nameable: bad arguments: limit: Input should be a valid integer"
    )
    assert _error(mcp_results["bad_format"]).startswith("check_deck: unknown format 'nosuchformat'; known formats:")
    assert _error(mcp_results["bad_constraint"]).startswith(
        "choose_name: Could not understand the card-name constraint 'blorp'"
    )
    assert _error(mcp_results["bad_both"]) == "choose_name: give constraint or card, not both"
    assert "no_such_tool" in _error(mcp_results["bad_tool"])
    assert _error(mcp_results["bad_search_syntax"]).startswith("search: the last keyword needs a value")
    assert (
        _error(mcp_results["bad_search_limit"])
        == "search: bad arguments: limit: Input should be less than or equal to 175"
    )
    assert _error(mcp_results["bad_search_order"]).startswith("search: bad arguments: order: Input should be 'name'")
    assert mcp_results["after_errors"].structured_content["name"] == "Lightning Bolt"


def test_missing_database_is_one_line_before_the_server_starts(tmp_path: Path) -> None:
    # in this process (CliRunner): the check comes before any server, so no stdio is taken over
    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main

    done = CliRunner().invoke(main, ["mcp", "--db", str(tmp_path / "absent.duckdb")], input="")
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr.startswith("error: no database at ") and done.stderr.count("\n") == 1


def _raw_session(sample_db_path: Path, lines: list[str], wanted: int, *options: str) -> list[dict[str, Any]]:
    """The answers, as they came, of `oracle-tools mcp` to ``lines`` (stdin stays open, as a client keeps it)."""
    import threading

    proc = subprocess.Popen(
        [sys.executable, "-m", "oracle_tools.interfaces.cli", "mcp", "--db", str(sample_db_path), *options],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    guard = threading.Timer(30, proc.kill)  # a silent server: readline then returns '' and the test fails
    guard.start()
    try:
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()
        answers: list[dict[str, Any]] = []
        while len(answers) < wanted:
            answers.append(json.loads(proc.stdout.readline()))
        return answers
    finally:
        # the end of its input (communicate closes it) ends the server, which removes its spill folder (a kill
        # would leave it behind); the guard kills one that does not end
        proc.communicate()
        guard.cancel()


_INIT = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
)
_INITIALIZED = '{"jsonrpc": "2.0", "method": "notifications/initialized"}'


def test_search_and_choose_name_are_oracledbs_answers(mcp_results: dict[str, Any], sample_db_path: Path) -> None:
    """The tools translate only: the list object and the choose-name report are OracleDB's, and a card that
    names no card is said without the CLI's --card option."""
    from oracle_tools import OracleDB

    with OracleDB(sample_db_path) as db:
        assert mcp_results["search"].structured_content == db.search_list("t:goblin c:r mv<=2", limit=5)
        report = db.choose_name_report("Lightning Bolt", card="Meddling Mage").to_dict()
        assert mcp_results["choose_from_card"].structured_content == report
    assert _error(mcp_results["bad_card"]).startswith(
        "choose_name: the card 'Medling Mage': no card has that name; did you mean 'Meddling Mage'"
    )


def test_a_runaway_search_is_a_tool_error(sample_db_path: Path) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": "unique:prints -o:zzz or a:zzzz"}},
    }
    answers = _raw_session(sample_db_path, [_INIT, _INITIALIZED, json.dumps(call)], 2, "--query-timeout", "0.002")
    result = next(a for a in answers if a.get("id") == 2)["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        "search: the search ran longer than 0.002 s and was stopped; narrow the query (or start the server with a "
        "longer --query-timeout)"
    )


def test_calls_read_before_stdin_closes_are_answered_then_it_exits(sample_db_path: Path) -> None:
    """`printf '%s\\n' INIT INITIALIZED CALL … | oracle-tools mcp`: the SDK cancelled the calls still running when
    its input ended, and printed the initialize answer only. Every call read is answered, then it exits 0; a call
    the client cancelled gets no answer (MCP: it must not) and does not hold the server open."""
    calls = [
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "resolve", "arguments": {"name": n}}}
        for n in ("Foudre", "fire/ice")
    ] + [
        {"jsonrpc": "2.0", "id": "deck", "method": "tools/call", "params": {"name": "check_deck", "arguments": {}}},
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "t:goblin", "limit": 1}},
        },
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "check_deck", "arguments": {"decklist": DECK, "format": "commander"}},
        },
        {"jsonrpc": "2.0", "id": 6, "method": "tools/list"},
        {  # a search of seconds, cancelled by the next line at once
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {
                "name": "search",
                "arguments": {"query": "unique:prints ft:/(.{0,30}){30}aq/ or ft:/(.{0,30}){30}bq/"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}},
    ]
    lines = [_INIT, _INITIALIZED, *(json.dumps(call) for call in calls)]
    done = subprocess.run(
        [*CLI, "mcp", "--db", str(sample_db_path)],
        input="\n".join(lines) + "\n",  # then stdin closes
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    by_id = {answer["id"]: answer for answer in answers}
    assert 1 in by_id and 6 in by_id and 7 not in by_id, answers
    assert sorted(map(str, by_id)) == sorted(map(str, [1, 2, "deck", 4, 5, 6])), answers  # id 2 twice: both
    assert [a["id"] for a in answers].count(2) == 2
    texts = [json.loads(a["result"]["content"][0]["text"])["name"] for a in answers if a["id"] == 2]
    assert sorted(texts) == ["Fire // Ice", "Lightning Bolt"]
    assert by_id["deck"]["result"]["isError"] is True  # bad arguments: a tool error, answered all the same
    assert json.loads(by_id[4]["result"]["content"][0]["text"])["total_cards"] > 0
    assert "legal" in json.loads(by_id[5]["result"]["content"][0]["text"])
    assert {tool["name"] for tool in by_id[6]["result"]["tools"]} >= {"resolve", "search", "check_deck"}


@pytest.fixture(scope="module")
def raw_answers(sample_db_path: Path) -> list[dict[str, Any]]:
    """What one `oracle-tools mcp` answered to messages a client should never send, each followed by a good one
    (the server must answer every message and keep answering): one process for the tests below."""
    lines = [
        _INIT,
        _INITIALIZED,
        "not json at all",
        '{"jsonrpc": "2.0", "id": 7}',
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "resolve", "arguments": {"name": "\\ud800"}}}',
        '{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "resolve", "arguments": {"name": "Foudre"}}}',
        '{"jsonrpc": "2.0", "id": {"x": 1}, "method": "tools/list"}',
        '{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "resolve", "arguments": {"name": "Foudre"}}}',
    ]
    return _raw_session(sample_db_path, lines, 7)


def test_every_message_gets_an_answer(raw_answers: list[dict[str, Any]]) -> None:
    """Malformed JSON: -32700; JSON that is no JSON-RPC message: -32600 (with its id); a tool call holding a lone
    surrogate: a tool error. Before, the SDK dropped each without a word and the client waited forever."""
    answers = {a.get("id"): a for a in raw_answers if a.get("id") is not None}
    done = json.dumps(raw_answers)
    assert set(answers) == {1, 7, 3, 4, 5}, done
    assert -32700 in [a["error"]["code"] for a in raw_answers if a.get("id") is None], done
    assert answers[7]["error"]["code"] == -32600
    assert answers[3]["result"]["isError"] is True
    assert answers[3]["result"]["content"][0]["text"].startswith("resolve: bad arguments: a string holds a lone")
    assert json.loads(answers[4]["result"]["content"][0]["text"])["name"] == "Lightning Bolt"


@pytest.mark.parametrize("bad_id", ['{"a": 1}', "1.5", "2.0", "null", "[1]", "true"])
def test_an_id_that_is_no_string_or_integer_is_an_invalid_request(bad_id: str) -> None:
    """JSON-RPC 2.0: an id is a string or a number without a fraction; the SDK took any other id for a notification
    and never answered. The answer is -32600 with id null (the id cannot be echoed)."""
    from oracle_tools.interfaces.mcp_server import bad_message_reply

    reply = bad_message_reply(f'{{"jsonrpc": "2.0", "id": {bad_id}, "method": "tools/list"}}')
    assert reply is not None and reply["id"] is None and reply["error"]["code"] == -32600, reply
    assert reply["error"]["message"] == f"Invalid Request: the id must be a string or an integer, not {bad_id}"


def test_a_request_with_an_object_id_is_answered_and_the_server_keeps_answering(
    raw_answers: list[dict[str, Any]],
) -> None:
    unnamed = [a["error"]["code"] for a in raw_answers if a.get("id") is None]
    assert sorted(unnamed) == [-32700, -32600], raw_answers  # the malformed line's, and the object id's
    after = next(a for a in raw_answers if a.get("id") == 5)  # the call sent after the object id
    assert json.loads(after["result"]["content"][0]["text"])["name"] == "Lightning Bolt"


def test_a_damaged_database_is_the_clis_line_from_every_tool(
    sample_db_path: Path, tmp_path: Path, cut_short: Callable[..., re.Pattern[str]]
) -> None:
    """A database file cut short (a copy that stopped) answered "Error executing tool resolve" (the SDK's words for
    a crash, its traceback on stderr); every tool now says the CLI's line: the file is damaged, and how to rebuild
    it, after the tool's name. The server has answered every tool from the whole file before it is damaged in
    place: it notices the change (size, mtime) and reads the file again, instead of answering from what it kept."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    served = tmp_path / "cut.duckdb"
    shutil.copy(sample_db_path, served)
    calls = {row.tool: dict(row.tool_example) for row in ANSWERS if row.tool}  # every tool, asked well
    line: list[re.Pattern[str]] = []

    async def session() -> tuple[dict[str, Any], dict[str, Any]]:
        params = StdioServerParameters(command=CLI[0], args=[*CLI[1:], "mcp", "--db", str(served)])
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
                await client.initialize()
                before = {tool: await client.call_tool(tool, arguments) for tool, arguments in calls.items()}
                line.append(cut_short(served))
                return before, {tool: await client.call_tool(tool, arguments) for tool, arguments in calls.items()}

    before, after = anyio.run(session)
    assert not [tool for tool, result in before.items() if result.is_error]  # answered from the whole file
    said = {tool: _error(result) for tool, result in after.items() if result.is_error}
    assert set(said) == set(calls)
    for tool, text in said.items():
        assert re.fullmatch(f"{tool}: {line[0].pattern}", text), text


def test_a_library_message_of_several_lines_is_the_clis_and_the_https_whole(
    mcp_results: dict[str, Any], sample_db_path: Path, sample_server: Server
) -> None:
    """A search whose quoted value holds a line break: the library's message holds it too, and its "did you mean"
    comes after it. The tool kept only the first line ("search: nameable:x"), dropping what was wrong and the
    names offered; it now says the whole message, as the CLI prints it and the HTTP API's details give it."""
    from click.testing import CliRunner

    from oracle_tools.errors import printable
    from oracle_tools.interfaces.cli import main

    query = 'nameable:"x\ny"'
    result = mcp_results["bad_search_value_lines"]
    assert result.is_error
    said = str(result.content[0].text)
    assert (
        said.startswith("search: nameable:x\ny: Could not understand the card-name constraint")
        and "did you mean" in said
    )
    http = sample_server.client.get("/cards/search", params={"q": query})
    assert http.status_code == 400 and said == f"search: {http.json()['details']}"
    cli = CliRunner().invoke(main, ["search", query, "--db", str(sample_db_path), "--json"])
    # the CLI's error line shows the line break escaped (one line on a terminal), the same message
    assert cli.exit_code == 2 and cli.stderr.startswith(printable(said.replace("search: ", "error: ", 1)) + "\n")


def test_a_decklist_that_begins_as_json_and_does_not_parse_is_the_clis_one_error(
    mcp_results: dict[str, Any], sample_db_path: Path, tmp_path: Path
) -> None:
    """As `deck check` says of such a file: the JSON problem alone, never a report of a deck of 0 cards beside it."""
    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main

    deck_file = tmp_path / "deck.json"
    deck_file.write_text('{"main": [4 Lightning Bolt', encoding="utf-8")
    cli = CliRunner().invoke(main, ["deck", "check", str(deck_file), "--format", "modern", "--db", str(sample_db_path)])
    assert cli.exit_code == 2
    said = _error(mcp_results["bad_json_deck"])
    assert said == cli.stderr.strip().replace(f"error: {deck_file}", "check_deck: decklist")
