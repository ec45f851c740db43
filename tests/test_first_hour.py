"""What a new user met in the first hour, each fixed (on the embedded sample)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB
from oracle_tools.errors import OracleToolsError
from oracle_tools.interfaces.cli import main

from processes import wait_until_idle


def _run(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner(env=env).invoke(main, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_db_is_accepted_before_or_after_the_command_name(sample_db_path: Path, tmp_path: Path) -> None:
    db = str(sample_db_path)
    for args in (("--db", db, "resolve", "Foudre"), ("resolve", "Foudre", "--db", db)):
        assert _run(*args) == (0, "Lightning Bolt  [via printed]\n", ""), args
    nowhere = str(tmp_path / "missing.duckdb")
    # before the command it beats $ORACLE_TOOLS_DB; the command's own --db beats both
    assert _run("--db", db, "resolve", "Foudre", env={"ORACLE_TOOLS_DB": nowhere})[0] == 0
    assert _run("--db", nowhere, "resolve", "Foudre", "--db", db)[0] == 0
    assert _run("--db", db, "deck", "check", "--help")[0] == 0  # nested groups too


def test_batch_misses_carry_suggestions(sample_db_path: Path) -> None:
    names = "Foudre\nTarmogoyff\n"
    code, out, _ = _run("resolve", "--db", str(sample_db_path), "--batch", "-", "--json", stdin=names)
    rows = json.loads(out)
    assert code == 1 and [r["status"] for r in rows] == ["ok", "not_found"]
    assert rows[0]["suggestions"] == [] and rows[1]["suggestions"][0] == "Tarmogoyf"
    code, out, _ = _run("resolve", "--db", str(sample_db_path), "--batch", "-", stdin=names)
    # the names the typo is near (one edit from Tarmogoyf), not padded with far ones
    assert out.splitlines()[2].startswith("Tarmogoyff,not_found,") and out.splitlines()[2].endswith(",Tarmogoyf")


def test_funny_is_a_boolean_for_every_card(sample_db: OracleDB) -> None:
    counts = dict(sample_db.con.execute("SELECT funny, count(*) FROM cards GROUP BY funny").fetchall())
    assert None not in counts and counts[False] > 2000 and counts[True] > 0


def test_check_decks_without_a_format_says_so(sample_db: OracleDB, tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("4 Lightning Bolt\n")
    with pytest.raises(OracleToolsError, match=r"check_decks needs the format to check against, e.g. format='modern'"):
        sample_db.check_decks([deck])


def test_commander_size_problem_reads_cleanly(sample_db: OracleDB) -> None:
    report = sample_db.check_deck("1 Lightning Bolt\n", format="commander")
    sizes = [p.detail for p in report.problems if p.kind == "deck_size"]
    assert sizes == ["The deck has 1 card including the commander(s); Commander decks have exactly 100 (CR 903.5a)."]


def test_same_name_of_two_halves_says_they_name_one_card(sample_db_path: Path) -> None:
    """CR 709.4a: a split card has both halves' names; 'Fire' and 'Ice' name the same card."""
    code, out, _ = _run("same-name", "Fire", "Ice", "--db", str(sample_db_path))
    assert (
        code == 0
        and out == "same name: 'Fire' and 'Ice' both name the card Fire // Ice, whose names are ['Fire', 'Ice']\n"
    )
    code, out, _ = _run("same-name", "Fire", "Ice", "--db", str(sample_db_path), "--json")
    assert json.loads(out)["same_card"] is True
    code, out, _ = _run("same-name", "Fire", "Lightning Bolt", "--db", str(sample_db_path))
    assert code == 1 and out.startswith("different names:")


@pytest.mark.parametrize(
    ("front", "back"), [("Delver of Secrets", "Insectile Aberration"), ("Brazen Borrower", "Petty Theft")]
)
def test_same_name_of_two_faces_of_one_card_says_different_names(sample_db_path: Path, front: str, back: str) -> None:
    """CR 201.2a with 712.8a/712.8d–e (a transforming card) and 715.4 (an adventurer): an object has one face's
    name at a time, so the two faces of one card have different names; the words agree with the exit status."""
    code, out, _ = _run("same-name", front, back, "--db", str(sample_db_path))
    assert code == 1 and out.startswith(f"different names: {front!r} and {back!r} are faces of the one card "), out
    assert f"[{front!r}] / [{back!r}] (CR 201.2a)" in out and "same name" not in out
    code, out, _ = _run("same-name", front, back, "--db", str(sample_db_path), "--json")
    assert code == 1 and json.loads(out)["same_name"] is False


def test_refs_lists_each_mention_once(sample_db: OracleDB) -> None:
    rats = sample_db.references("Relentless Rats")
    spans = [(r["oracle_id"], r["start"]) for r in rats["own_text"] + rats["named_by"]]
    assert len(spans) == len(set(spans)) == 3


def test_a_missing_database_names_the_absolute_path_tried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = _run("resolve", "Foudre", "--db", "nope.duckdb")
    assert code == 2 and err.startswith(f"error: no database at {tmp_path / 'nope.duckdb'}. Build one there: ")
    assert "ingest --sample" in err and "ORACLE_TOOLS_DB" in err


def test_info_prints_the_absolute_path_it_read(sample_db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(sample_db_path.parent)
    code, out, _ = _run("info", "--db", sample_db_path.name)
    assert code == 0 and out.startswith(f"database  {sample_db_path} (")


def test_the_data_folder_is_kept_with_its_readme() -> None:
    import subprocess

    root = Path(__file__).resolve().parents[1]
    tracked = subprocess.run(["git", "ls-files", "data"], cwd=root, capture_output=True, text=True, check=True)
    assert tracked.stdout.split() == ["data/README.md"]
    ignored = subprocess.run(
        ["git", "check-ignore", "data/oracle.duckdb", "data/cache/x.json.gz"], cwd=root, capture_output=True, text=True
    )
    assert ignored.stdout.split() == ["data/oracle.duckdb", "data/cache/x.json.gz"]


def test_dash_is_standard_input_and_output(
    sample_db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`export --csv -` writes the CSV to standard output (no file named '-'); `deck check -` reads the deck."""
    monkeypatch.chdir(tmp_path)
    code, out, _ = _run("export", "cards", "--db", str(sample_db_path), "--csv", "-")
    import csv
    import io

    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0 and rows[0][:3] == ["oracle_id", "name", "layout"] and len(rows) == 1 + 2822  # every card
    assert not (tmp_path / "-").exists()
    assert _run("export", "cards", "--db", str(sample_db_path), "--parquet", "-")[0] == 2
    code, out, _ = _run(
        "deck", "check", "-", "--format", "modern", "--db", str(sample_db_path), stdin="4 Lightning Bolt\n56 Mountain\n"
    )
    assert code == 0 and out.splitlines()[-1] == "standard input: legal in modern"


@pytest.mark.parametrize(
    "script",
    sorted(  # the benches that read the real data (bench_idle.py measures the sample's server)
        p.name
        for p in (Path(__file__).resolve().parents[1] / "bench").glob("*.py")
        if p.name != "realdata.py" and "realdata" in p.read_text(encoding="utf-8")
    ),
)
def test_a_bench_without_the_real_data_says_so_in_one_line(script: str, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    bench = Path(__file__).resolve().parents[1] / "bench" / script
    env = {**os.environ, "ORACLE_TOOLS_REALDATA": str(tmp_path / "absent")}
    done = subprocess.run([sys.executable, str(bench)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"{script} needs the real card data in {tmp_path / 'absent'}")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def _exit_table() -> dict[int, str]:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    return {int(m[1]): m[2] for m in re.finditer(r"^\| (\d+) \| (.+) \|$", doc, flags=re.M)}


def test_the_exit_status_table_of_docs_cli_md_holds(sample_db_path: Path, tmp_path: Path) -> None:
    """Each row of docs/cli.md's exit-status table, checked against the commands it names; every error is
    one lower-case ``error:`` line (click's usage errors too)."""
    db = ("--db", str(sample_db_path))
    # 130 and 143: tests/test_ingest_safety.py (signals); 3: deck check's "could not be fully judged" (tests/test_decks.py)
    assert set(_exit_table()) == {0, 1, 2, 3, 130, 143}
    args: tuple[str, ...]  # the commands below take 2 to 4 arguments
    for args in (("resolve", "Foudre"), ("same-name", "Fire", "Ice"), ("token", "Treasure"), ("choose-name", "Fire")):
        assert _run(*args, *db)[0] == 0, args
    for args in (
        ("resolve", "Xyzzyq"),
        ("same-name", "Xyzzyq", "Fire"),
        ("token", "Xyzzyq"),
        ("same-name", "Fire", "Foudre"),
    ):
        code, out, err = _run(*args, *db)
        assert code == 1 and err == "", (args, out, err)
    for args in (("changes", "--card", "Xyzzyq"), ("refs", "Xyzzyq")):  # a miss given as an option: exit 1 too
        code, out, err = _run(*args, *db)
        assert code == 1 and err.startswith("error: 'Xyzzyq' is not a card name"), (args, out, err)
    for args in (
        ("resolve", ""),
        ("token", ""),
        ("resolve", "--limt", "3"),
        ("resolve", "x", "--db", str(tmp_path / "no.duckdb")),
    ):
        code, _, err = _run(*args, *db) if "--db" not in args else _run(*args)
        assert code == 2, args
        assert err.strip().splitlines()[-1].startswith("error: "), (args, err)
        assert "Error:" not in err and "Traceback" not in err, args


def test_mcp_stops_at_the_first_ctrl_c_and_says_what_it_waits_for(sample_db_path: Path, tmp_path: Path) -> None:
    """A person who starts `oracle-tools mcp` in a terminal is told it waits for an MCP client; one Ctrl-C ends it,
    leaving nothing in the temporary folder."""
    import os
    import pty
    import signal
    import subprocess
    import sys

    command = [sys.executable, "-m", "oracle_tools.interfaces.cli", "mcp", "--db", str(sample_db_path)]
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}
    for stdin_is_terminal in (False, True):
        leader, follower = pty.openpty() if stdin_is_terminal else (None, subprocess.PIPE)
        proc = subprocess.Popen(command, stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        try:
            wait_until_idle(proc)  # started and waiting on stdin
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=60) == 130  # the first Ctrl-C, no further input line needed (60: a guard)
            err = proc.stderr.read().decode() if proc.stderr else ""
            waiting = "waiting for an MCP client on standard input" in err
            assert waiting == stdin_is_terminal, err
            assert "Traceback" not in err
            assert list(temp.iterdir()) == []
        finally:
            if proc.poll() is None:
                proc.kill()
            if leader is not None:
                os.close(leader)
                os.close(follower)


def test_offline_ingest_fails_fast_with_the_way_out(tmp_path: Path) -> None:
    """A refused connection is not retried for half a minute: one line, the offline ways, no empty cache folder."""
    import socket
    import time

    with socket.socket() as s:  # bound, never listening: refused, and no other process can take the port meanwhile
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        started = time.monotonic()
        code, _, err = _run(
            "ingest", "--db", str(tmp_path / "x.duckdb"), "--api-url", f"http://127.0.0.1:{port}", "--no-progress"
        )
    # not retried: the retries' waits (2, 4, 8, 16 and 32 s) would take a minute; the margin is a loaded machine's
    assert code == 2 and time.monotonic() - started < 30
    assert err.startswith(f"error: cannot reach 127.0.0.1:{port}: the connection was refused") and err.count("\n") == 1
    assert "`oracle-tools ingest --sample`" in err and "`oracle-tools ingest --bulk-file FILE`" in err
    assert list(tmp_path.iterdir()) == []


def test_deck_check_says_once_which_legalities_judge_the_deck(sample_db_path: Path, tmp_path: Path) -> None:
    """The sample's tournament decks are 'not legal' because its legalities are a 2019 snapshot: deck check says
    so, once, before the reports (not in --json, whose shape is the report's)."""
    decks = sorted((Path(__file__).resolve().parents[1] / "oracle_tools" / "data" / "sample" / "decks").glob("*.txt"))
    _code, out, _ = _run("deck", "check", *map(str, decks), "--format", "modern", "--db", str(sample_db_path))
    lines = out.splitlines()
    assert (
        lines[0].startswith("legalities: ")
        and "cards from cards-2019.json.gz, data of 2019-10-04 (its newest printing)" in lines[0]
    )
    assert sum(line.startswith("legalities: ") for line in lines) == 1
    _code, out, _ = _run("deck", "check", str(decks[0]), "--format", "modern", "--db", str(sample_db_path), "--json")
    assert "legalities: " not in out and json.loads(out)["source"].endswith(decks[0].name)


def test_sql_fits_the_terminal_and_keeps_duckdbs_hints(sample_db_path: Path) -> None:
    """A wide `select *` shows its first and last columns and a '…' column within --max-width (a terminal's
    width by default); --all-columns shows all; an error keeps DuckDB's 'Did you mean' in its one line."""
    db = ("--db", str(sample_db_path))
    code, out, err = _run("sql", "select * from cards limit 3", "--max-width", "100", *db)
    lines = out.splitlines()
    assert code == 0 and max(len(line) for line in lines) <= 100
    header = [c.strip() for c in lines[1].strip("│").split("┆")]
    assert header[0] == "oracle_id" and "…" in header and header[-1] == "attraction_lights"
    with OracleDB(sample_db_path) as opened:
        width = len(opened.con.execute("SELECT * FROM cards LIMIT 0").description)
    assert err == f"3 rows, {width} columns ({len(header) - 1} shown: --all-columns or --max-width N show more)\n"
    code, out, err = _run("sql", "select * from cards limit 3", "--max-width", "100", "--all-columns", *db)
    assert len(out.splitlines()[1].split("┆")) == width and err == "3 rows\n"
    code, _, err = _run("sql", "select * from cardz", *db)
    assert (
        code == 2
        and err == 'error: SQL failed: Catalog Error: Table with name cardz does not exist! Did you mean "cards"?\n'
    )


def test_a_usage_error_is_one_line_with_the_way_to_the_help(sample_db_path: Path) -> None:
    """click's usage errors were four lines (Usage:, Try …, a blank line, error: …): now one line, as every other
    error is, keeping the hint to the command's help inside it and click's exit status 2."""
    for args, said in (
        (("resolve", "--fuzy", "x"), "No such option '--fuzy'. Did you mean '--fuzzy'? (try 'oracle-tools resolve -h'"),
        (("deck", "check", "--format", "modern"), "Missing argument 'FILES...'. (try 'oracle-tools deck check -h'"),
    ):
        result = CliRunner().invoke(main, [*args, "--db", str(sample_db_path)], prog_name="oracle-tools")
        assert (result.exit_code, result.stdout) == (2, "") and result.stderr == f"error: {said} for help)\n"


def test_did_you_mean_quotes_each_name_since_names_hold_commas(sample_db: OracleDB, sample_db_path: Path) -> None:
    """'Lord of' is offered Eladamri, Lord of Leaves and Sorin, Lord of Innistrad: joined with bare commas the list
    read as six names. Each name is quoted, in the one wording (errors.did_you_mean) every door says."""
    import asyncio

    from starlette.testclient import TestClient

    from oracle_tools.interfaces.mcp_server import build_server
    from oracle_tools.interfaces.serve import create_app

    offered = "'Eladamri, Lord of Leaves', 'Sorin, Lord of Innistrad', "
    resolution = sample_db.resolve("Lord of")
    assert resolution.suggestions[:2] == ("Eladamri, Lord of Leaves", "Sorin, Lord of Innistrad")
    assert f"Did you mean {offered}" in resolution.miss_message()
    code, out, _ = _run("resolve", "Lord of", "--db", str(sample_db_path))
    assert code == 1 and f"Did you mean {offered}" in out, out
    assert f"did you mean {offered}" in sample_db.choose_name("Lord of").reason
    report = sample_db.check_deck("1 Lord of\n", format="vintage")
    assert any(f"did you mean {offered[:-2]}" in p.detail for p in report.problems), report.problems
    tool = asyncio.run(build_server(sample_db).call_tool("choose_name", {"name": "Lord of"}))
    assert f"did you mean {offered}" in json.dumps(tool, default=str, ensure_ascii=False).replace("\\'", "'")
    with TestClient(create_app(sample_db_path, warm=False), base_url="http://127.0.0.1:8765") as http:
        details = http.get("/cards/named", params={"exact": "Lord of"}).json()["details"]
        assert f"Did you mean {offered}" in details, details


def test_deck_check_reads_a_csv_export_and_refuses_a_file_that_is_no_decklist(
    sample_db: OracleDB, sample_db_path: Path, tmp_path: Path
) -> None:
    """A Moxfield CSV export is a decklist (its cards are judged); /etc/passwd-like text is no decklist: one line,
    exit 2 — alike in the CLI, HTTP and MCP (every door parses through decks.decklist)."""
    import asyncio

    from mcp.server.mcpserver.exceptions import ToolError
    from starlette.testclient import TestClient

    from oracle_tools.interfaces.mcp_server import build_server
    from oracle_tools.interfaces.serve import create_app

    csv_export = (
        "Count,Tradelist Count,Name,Edition,Condition,Language,Foil,Tags,Last Modified,Collector Number\n"
        '"4","0","Lightning Bolt","m11","Near Mint","English","","","","149"\n'
        '"56","0","Mountain","m11","Near Mint","English","","","","242"\n'
    )
    passwd = "root:x:0:0:root:/root:/bin/bash\nbin:x:2:2:bin:/bin:/usr/sbin/nologin\n"
    said = "looks like lines of colon-separated fields (like /etc/passwd), not a decklist"
    (tmp_path / "deck.csv").write_text(csv_export, encoding="utf-8")
    (tmp_path / "passwd").write_text(passwd, encoding="utf-8")
    code, out, err = _run(
        "deck", "check", str(tmp_path / "deck.csv"), "--format", "modern", "--db", str(sample_db_path)
    )
    assert code == 0 and out.endswith(f"{tmp_path / 'deck.csv'}: legal in modern\n"), (out, err)
    code, out, err = _run("deck", "check", str(tmp_path / "passwd"), "--format", "modern", "--db", str(sample_db_path))
    assert (code, out) == (
        2,
        "",
    ) and err == f"error: {tmp_path / 'passwd'}: {said}; a decklist has lines such as '4 Lightning Bolt'\n"
    with TestClient(create_app(sample_db_path, warm=False), base_url="http://127.0.0.1:8765") as http:
        legal = http.post("/decks/check", params={"format": "modern"}, content=csv_export.encode())
        assert legal.status_code == 200 and legal.json()["legal"] is True, legal.text
        refused = http.post("/decks/check", params={"format": "modern"}, content=passwd.encode())
        assert refused.status_code == 400 and said in refused.json()["details"], refused.text
    server = build_server(sample_db)
    checked = asyncio.run(server.call_tool("check_deck", {"decklist": csv_export, "format": "modern"}))
    assert '"legal": true' in json.dumps(checked, default=str).replace('\\"', '"'), checked
    with pytest.raises(ToolError, match="colon-separated fields"):
        asyncio.run(server.call_tool("check_deck", {"decklist": passwd, "format": "modern"}))


def test_the_rules_text_given_as_a_bulk_file_points_at_rules_file(tmp_path: Path) -> None:
    """`ingest --bulk-file MagicCompRules-20260116.txt` said only "is not JSON": the file is the Comprehensive Rules
    text, which `--rules-file` reads — said in the one line, nothing written."""
    rules = tmp_path / "MagicCompRules-20260116.txt"
    rules.write_bytes(
        "\ufeffMagic: The Gathering Comprehensive Rules\r\rThese rules are effective as of January 16, 2026.\r".encode()
    )
    db = tmp_path / "new.duckdb"
    for args in (("--bulk-file", str(rules)), (str(rules),)):
        code, out, err = _run("ingest", *args, "--db", str(db), "--no-progress")
        assert (code, out) == (2, "") and err == (
            f"error: {rules}: is the Comprehensive Rules text, not a bulk file of cards; give it with "
            f"`oracle-tools ingest --rules-file {rules}`.\n"
        ), err
    assert not db.exists()


def test_serve_says_so_when_it_binds_a_privileged_port_as_root_or_serves_other_machines(
    sample_db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve --port 80` as root bound a privileged port without a word, and `--host 0.0.0.0` exposed the server
    to other machines silently: each is one line on stderr before the server starts (the default says nothing)."""
    from oracle_tools.interfaces import serve as _serve

    assert _serve.address_notes("127.0.0.1", 8765, as_root=True) == []
    assert _serve.address_notes("localhost", 8765, as_root=False) == []
    assert _serve.address_notes("127.0.0.1", 80, as_root=False) == []  # not root: the bind fails, said as an error
    (privileged,) = _serve.address_notes("127.0.0.1", 80, as_root=True)
    assert privileged.startswith("note: port 80 is a privileged port (below 1024), bound only because this runs as")
    (exposed,) = _serve.address_notes("0.0.0.0", 8765, as_root=False)
    assert exposed.startswith("note: --host 0.0.0.0 serves every interface of this machine: other machines")
    served: list[tuple[str, int]] = []
    monkeypatch.setattr(_serve, "check_address", lambda host, port: None)  # port 80 may be taken on this machine
    monkeypatch.setattr(_serve, "run", lambda path, host, port, **kw: served.append((host, port)))
    monkeypatch.setattr(_serve.os, "geteuid", lambda: 0)
    result = CliRunner().invoke(main, ["serve", "--db", str(sample_db_path), "--port", "80", "--host", "0.0.0.0"])
    assert result.exit_code == 0 and served == [("0.0.0.0", 80)], result.output
    assert result.stderr.splitlines() == [
        _serve.address_notes("127.0.0.1", 80, as_root=True)[0],
        _serve.address_notes("0.0.0.0", 80, as_root=False)[0],
    ]
    result = CliRunner().invoke(main, ["serve", "--db", str(sample_db_path)])
    assert result.exit_code == 0 and result.stderr == ""


def test_a_wrong_method_names_the_ones_the_endpoint_takes(sample_db_path: Path) -> None:
    """`curl '…/decks/check?format=modern'` (a GET) answered 'GET is not allowed on /decks/check.' and no Allow
    header, which every 405 must carry (RFC 9110 15.5.6): the answer names the method to use, in the header and in
    the sentence."""
    from starlette.testclient import TestClient

    from oracle_tools.interfaces.serve import create_app

    with TestClient(create_app(sample_db_path, warm=False), base_url="http://127.0.0.1:8765") as http:
        answer = http.get("/decks/check", params={"format": "modern"})
        assert answer.status_code == 405 and answer.headers["allow"] == "POST"
        assert answer.json()["details"] == "GET is not allowed on /decks/check; it takes POST."
        answer = http.delete("/cards/named")
        assert answer.status_code == 405 and set(answer.headers["allow"].split(", ")) == {"GET", "HEAD"}
        assert answer.json()["details"] == "DELETE is not allowed on /cards/named; it takes GET or HEAD."


def test_a_name_given_with_its_count_says_it_is_a_decklist_line(sample_db: OracleDB, sample_db_path: Path) -> None:
    """`resolve "4 Lightning Bolt"` (a decklist line pasted as a name) answered only 'is not a card name. Did you mean
    'Lightning Bolt', …': it says the text begins with a count, which card the rest names, and what reads decklists;
    `resolve --batch deck.txt` says so once on stderr, for the lines that are such."""
    miss = sample_db.resolve("4 Lightning Bolt")
    assert miss.status == "not_found" and miss.suggestions[0] == "Lightning Bolt"
    assert miss.note == (
        "'4 Lightning Bolt' begins with a count, as a decklist line does: 'Lightning Bolt' is the card Lightning "
        "Bolt; a deck check reads decklists"
    )
    assert sample_db.resolve("1x Foudre").note is not None  # the rest may be any name of the card
    assert sample_db.resolve("4 Tarmogoyff").note is None  # the rest is no name: nothing to say
    assert sample_db.resolve("Tarmogoyff").note is None
    code, out, _ = _run("resolve", "4 Lightning Bolt", "--db", str(sample_db_path))
    assert code == 1 and out.splitlines()[1] == f"note: {miss.note}", out
    deck = "4 Lightning Bolt\n2 Fire // Ice\nFoudre\n"
    code, out, err = _run("resolve", "--db", str(sample_db_path), "--batch", "-", stdin=deck)
    assert code == 1 and err == (
        "note: 2 of the 3 names begin with a count, as decklist lines do; "
        "`oracle-tools deck check FILE --format F` reads a decklist\n"
    ), err
    code, _, err = _run("resolve", "--db", str(sample_db_path), "--batch", "-", stdin="Foudre\n4 Lightning Bolt\n")
    assert err.startswith("note: 1 of the 2 names begins with a count, as decklist lines do; "), err
