"""The CLI: ingest from a loopback Scryfall, info, read-only SQL, errors."""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB
from oracle_tools.ingest import sample_dir
from oracle_tools.interfaces.cli import main

from scryfall_server import Reply, ScryfallServer

SAMPLE = sample_dir()


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_ingest_from_the_scryfall_api_over_http(tmp_path: Path) -> None:
    cards = gzip.decompress((SAMPLE / "cards-2024.json.gz").read_bytes())
    rulings = gzip.decompress((SAMPLE / "rulings.json.gz").read_bytes())
    with ScryfallServer(payload=cards, types=("default_cards",), gzip_files=True) as server:
        server.add_bulk("rulings", rulings, gzip=True)
        # a redirect to the file and a 500 before it is served: both handled by the downloader
        server.script(server.file_path("default_cards"), Reply.error(500))
        db = tmp_path / "api.duckdb"
        code, out, err = _run(
            "ingest",
            "--db",
            str(db),
            "--types",
            "default_cards,rulings",
            "--api-url",
            server.url,
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-progress",
            "--json",
        )
        assert code == 0, err
        report = json.loads(out)
        assert {f["kind"] for f in report["files"]} == {"cards", "rulings"}
        requests = server.requests_for("/bulk-data")
        assert requests and "oracle-tools" in requests[0].headers["User-Agent"]
        # a second ingest uses the download cache: no second file request
        before = server.count(server.file_path("default_cards"))
        code, _, err = _run(
            "ingest",
            "--db",
            str(db),
            "--types",
            "default_cards,rulings",
            "--api-url",
            server.url,
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-progress",
        )
        assert code == 0, err
        assert server.count(server.file_path("default_cards")) == before
    with OracleDB(db) as opened:
        runs = opened.sql("SELECT DISTINCT source, bulk_type FROM ingest_runs ORDER BY 2").rows()
        assert runs == [("scryfall-api", "default_cards"), ("scryfall-api", "rulings")]
        assert opened.resolve("Razorgrass Field").name == "Razorgrass Ambush // Razorgrass Field"


def test_api_failure_keeps_the_old_database(
    tmp_path: Path, sample_db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "keep.duckdb"
    db.write_bytes(sample_db_path.read_bytes())
    monkeypatch.setenv("ORACLE_TOOLS_BACKOFF", "0.01")  # the same retries, 0.31 s of waiting instead of 31 s
    with ScryfallServer(types=("oracle_cards",)) as server:
        server.script(server.file_path("oracle_cards"), Reply.error(503), repeat_last=True)
        code, _, err = _run(
            "ingest",
            "--db",
            str(db),
            "--types",
            "oracle_cards",
            "--api-url",
            server.url,
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-progress",
        )
        assert server.count(server.file_path("oracle_cards")) == 6  # the first try and 5 retries
    assert code == 2 and "error:" in err and "503" in err
    with OracleDB(db) as opened:
        assert opened.resolve("Tarmogoyf").ok


def test_the_library_ingests_from_the_scryfall_api_without_the_cli(tmp_path: Path) -> None:
    """Download, sniffing and the set-list fallback are the library's (OracleDB.ingest): a server without a set
    list gives a database built from the printings, and a warning saying so."""
    cards = gzip.decompress((SAMPLE / "cards-2024.json.gz").read_bytes())
    db = tmp_path / "online.duckdb"
    with ScryfallServer(payload=cards, types=("default_cards",)) as server:
        report = OracleDB.ingest(db, types=["default_cards"], api_url=server.url, cache_dir=tmp_path / "cache")
    assert [(f["kind"], Path(f["file"]).name) for f in report.files] == [("cards", "default_cards.json")]
    [warning] = report.warnings
    assert warning.startswith("could not download Scryfall's set list (HTTP 404")
    with OracleDB(db) as opened:
        assert opened.resolve("Razorgrass Field").name == "Razorgrass Ambush // Razorgrass Field"
        assert opened.sets("mh3")["code"] == "mh3"  # built from the printings


def test_the_command_line_is_split_by_job_and_runs_no_sql() -> None:
    """Each CLI module holds one job and stays readable (under 800 lines); none runs SQL of its own: every
    question goes to OracleDB (help texts may show SQL, as `sql` and `export` do)."""
    import ast

    import oracle_tools.interfaces as interfaces

    modules = sorted(Path(interfaces.__file__).parent.glob("cli*.py"))
    assert {m.stem for m in modules} >= {"cli", "cli_common", "cli_data", "cli_names", "cli_search", "cli_decks"}
    for module in modules:
        text = module.read_text(encoding="utf-8")
        assert len(text.splitlines()) < 800, module.name
        calls = [
            node.func.attr
            for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        ]
        assert not {"execute", "executemany", "fetchall", "fetchone"} & set(calls), module.name
    assert set(main.commands) == {
        "catalog", "changes", "choose-name", "deck", "export", "info", "ingest", "mcp", "parse-mana", "refs",
        "resolve", "same-name", "search", "serve", "sets", "sql", "symbology", "token",
    }  # fmt: skip


def test_info_json(sample_db_path: Path) -> None:
    code, out, _ = _run("info", "--db", str(sample_db_path), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["tables"]["cards"] > 2000 and data["layouts"]["split"] >= 1
    assert {r["source"] for r in data["runs"]} == {"sample"}


def test_sql_is_read_only_and_parameterised(sample_db_path: Path) -> None:
    code, out, _ = _run(
        "sql", "--db", str(sample_db_path), "SELECT name FROM cards WHERE name = ?", "--param", "Tarmogoyf", "--json"
    )
    assert code == 0 and json.loads(out) == [{"name": "Tarmogoyf"}]
    # an injection attempt stays a value
    code, out, _ = _run(
        "sql",
        "--db",
        str(sample_db_path),
        "SELECT count(*) AS n FROM cards WHERE name = ?",
        "--param",
        "x' OR '1'='1",
        "--json",
    )
    assert json.loads(out) == [{"n": 0}]
    for statement in ("DELETE FROM cards", "CREATE TABLE t (x INT)", "DROP TABLE cards"):
        code, _, err = _run("sql", "--db", str(sample_db_path), statement)
        assert code == 2 and "read-only" in err.lower(), err


def test_sql_json_writes_a_blob_as_duckdb_writes_it(sample_db_path: Path) -> None:
    """`sql "SELECT 'a'::BLOB b" --json` printed "b'a'" (Python's repr). A BLOB is DuckDB's own text form of it
    (what CAST(b AS VARCHAR) and DuckDB's CLI show, and CAST(... AS BLOB) reads back) in JSON, CSV and the table."""
    import duckdb

    every_byte = "SELECT ?::BLOB AS b"
    code, out, _ = _run("sql", "--db", str(sample_db_path), every_byte, "--param", "x", "--json")
    assert code == 0 and json.loads(out) == [{"b": "x"}]
    query = "SELECT 'a'::BLOB AS a, '\\xFF\\x00\\x27\\x5C\\x22z'::BLOB AS b"
    con = duckdb.connect()  # its own: a result left unread on duckdb's default connection fails later tests' queries
    expected = con.execute(f"SELECT a::VARCHAR, b::VARCHAR FROM ({query})").fetchone()
    assert expected == ("a", "\\xFF\\x00\\x27\\x5C\\x22z")
    code, out, _ = _run("sql", "--db", str(sample_db_path), query, "--json")
    assert code == 0 and json.loads(out) == [{"a": "a", "b": expected[1]}]
    code, out, _ = _run("sql", "--db", str(sample_db_path), query, "--csv")
    assert code == 0 and out == f"a,b\na,{expected[1]}\n"
    code, out, _ = _run("sql", "--db", str(sample_db_path), query, "--max-width", "80")
    assert code == 0 and expected[1] in out and "b'" not in out
    blob = con.execute("SELECT ?::VARCHAR::BLOB", [expected[1]]).fetchone()
    assert blob == (b"\xff\x00'\\\"z",)  # the text reads back as the same bytes


def test_every_byte_of_a_blob_is_written_as_duckdb_writes_it() -> None:
    import duckdb

    from oracle_tools.interfaces.render import blob_text

    every = bytes(range(256))
    with duckdb.connect() as con:  # its own connection: nothing left unread on duckdb's default one
        assert blob_text(every) == con.execute("SELECT ?::BLOB::VARCHAR", [every]).fetchone()[0]  # type: ignore[index]


@pytest.mark.parametrize(
    ("query", "params", "said"),
    [
        ("SELECT ?", [], "the query has a ? placeholder with no value (0 --param values given); give one --param"),
        ("SELECT ?, ?", ["1"], "the query has a ? placeholder with no value (1 --param value given); give one"),
        ("SELECT ?", ["1", "2"], "2 --param values given, more than the query's ? placeholders; give one --param"),
        ("SELECT 1", ["1"], "1 --param value given, more than the query's ? placeholders; give one --param"),
    ],
)
def test_sql_placeholders_without_values_point_at_param(
    sample_db_path: Path, query: str, params: list[str], said: str
) -> None:
    """`sql "SELECT ?"` without --param said DuckDB's "Values were not provided for the following parameters: 1"."""
    given = [a for p in params for a in ("--param", p)]
    code, out, err = _run("sql", "--db", str(sample_db_path), query, *given)
    assert code == 2 and out == "" and err.startswith(f"error: SQL failed: {said}") and err.count("\n") == 1


def test_sql_csv(sample_db_path: Path) -> None:
    _code, out, _ = _run(
        "sql",
        "--db",
        str(sample_db_path),
        "--csv",
        "SELECT name, colors FROM cards WHERE name IN ('Fire // Ice', 'Tarmogoyf') ORDER BY name",
    )
    rows = list(csv.reader(io.StringIO(out)))
    assert rows == [["name", "colors"], ["Fire // Ice", "U|R"], ["Tarmogoyf", "G"]]


def test_missing_database_is_one_clear_line(tmp_path: Path) -> None:
    code, _, err = _run("info", "--db", str(tmp_path / "nothing.duckdb"))
    assert code == 2
    assert err.startswith("error: no database at") and "ingest --sample" in err


def test_bad_bulk_file_exit_code_and_message(tmp_path: Path) -> None:
    bad = tmp_path / "cards.json"
    bad.write_text("<html>rate limited</html>")
    code, _, err = _run("ingest", "--db", str(tmp_path / "x.duckdb"), "--bulk-file", str(bad), "--no-progress")
    assert code == 2 and str(bad) in err and "is not JSON" in err


@pytest.mark.parametrize("compressed", [False, True], ids=["json", "gzip"])
@pytest.mark.parametrize("kind", ["cards", "rulings"])
def test_a_bulk_file_that_ends_early_is_said_in_one_line(
    sample_db_path: Path, tmp_path: Path, compressed: bool, kind: str
) -> None:
    """A download cut short said "… Malformed JSON … unexpected end of data.. Nothing was replaced." (DuckDB's
    words, two full stops); a gzip cut short "Unexpected end of GZIP stream". Both are a file that ends early."""
    whole = gzip.decompress((SAMPLE / ("cards-2024.json.gz" if kind == "cards" else "rulings.json.gz")).read_bytes())
    name = "default-cards.json" if kind == "cards" else "rulings.json"
    cut = tmp_path / (name + (".gz" if compressed else ""))
    cut.write_bytes(gzip.compress(whole)[:-2000] if compressed else whole[: len(whole) // 2])
    db = tmp_path / "x.duckdb"
    if kind == "rulings":  # rulings are added to a database of cards
        shutil.copy(sample_db_path, db)
    code, out, err = _run("ingest", "--db", str(db), "--bulk-file", str(cut), "--no-progress")
    what = "card" if kind == "cards" else "ruling"
    assert code == 2 and out == ""
    assert err == (
        f"error: {cut}: the file ends in the middle of its {what} objects: it is incomplete (an interrupted "
        "download?); download it again. Nothing was replaced.\n"
    )


def test_parse_mana_names_the_symbol_list_of_the_command_line() -> None:
    """`parse-mana "{2}{Q}"` said "see /symbology", the HTTP server's path: the CLI's list is `symbology`."""
    code, out, err = _run("parse-mana", "{2}{Q}")
    assert (code, out) == (2, "")
    assert err == "error: {Q} in '{2}{Q}' is not a mana symbol (see `oracle-tools symbology` for the symbols)\n"


def test_env_var_names_the_database(sample_db_path: Path) -> None:
    result = CliRunner(env={"ORACLE_TOOLS_DB": str(sample_db_path)}).invoke(main, ["resolve", "Tarmogoyf"])
    assert result.exit_code == 0 and result.stdout.startswith("Tarmogoyf")


def test_same_name_command(sample_db_path: Path) -> None:
    code, out, _ = _run("same-name", "Fire // Ice", "Ice", "--db", str(sample_db_path), "--json")
    assert code == 0 and json.loads(out)["same_name"] is True
    code, _, _ = _run("same-name", "Tarmogoyf", "Ice", "--db", str(sample_db_path))
    assert code == 1


def test_resolve_batch(sample_db_path: Path, tmp_path: Path) -> None:
    names = tmp_path / "names.txt"
    names.write_text("Fire/Ice\nFoudre\nnot a card\n", encoding="utf-8")
    code, out, _ = _run("resolve", "--db", str(sample_db_path), "--batch", str(names), "--json")
    assert code == 1
    rows = json.loads(out)
    assert [(r["query"], r["status"], r["name"]) for r in rows] == [
        ("Fire/Ice", "ok", "Fire // Ice"),
        ("Foudre", "ok", "Lightning Bolt"),
        ("not a card", "not_found", None),
    ]


def test_resolve_batch_of_a_file_saved_with_a_byte_order_mark(sample_db_path: Path, tmp_path: Path) -> None:
    """Windows Notepad starts a UTF-8 file with a byte-order mark: it is no part of the first name, from a file
    or from stdin (as decklists read it)."""
    names = tmp_path / "names.txt"
    names.write_bytes("\ufeffFire/Ice\r\nFoudre\r\n".encode())
    code, out, _ = _run("resolve", "--db", str(sample_db_path), "--batch", str(names), "--json")
    assert code == 0 and [(r["query"], r["name"]) for r in json.loads(out)] == [
        ("Fire/Ice", "Fire // Ice"),
        ("Foudre", "Lightning Bolt"),
    ]
    both = CliRunner().invoke(main, ["resolve", "Shock", "--db", str(sample_db_path), "--batch", str(names)])
    assert both.exit_code == 2 and "not both" in both.output  # NAME was silently left out
    piped = CliRunner().invoke(
        main, ["resolve", "--db", str(sample_db_path), "--batch", "-"], input="\ufeffFire/Ice\n".encode()
    )
    assert piped.exit_code == 0 and piped.output.splitlines()[1].startswith("Fire/Ice,ok,")


def test_resolve_batch_of_a_named_pipe_nothing_writes_is_one_line(
    sample_db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """click opened --batch while it parsed the arguments, and the open of a named pipe no program writes waited
    forever (Ctrl-C aside); it is read as the decklists are: a writer is waited for, then one line. One that is
    written is read."""
    import os
    import threading

    from oracle_tools.store import userfiles

    monkeypatch.setattr(userfiles, "WRITER_WAIT_SECONDS", 0.2)
    fifo = tmp_path / "names.fifo"
    os.mkfifo(fifo)
    result: list[object] = []
    run = threading.Thread(
        target=lambda: result.append(
            CliRunner().invoke(main, ["resolve", "--db", str(sample_db_path), "--batch", str(fifo)])
        ),
        daemon=True,
    )
    run.start()
    run.join(60)
    assert result, "resolve --batch waited on the pipe"
    refused = result[0]
    assert refused.exit_code == 2, refused.output  # type: ignore[attr-defined]
    assert refused.output.startswith(f"error: {fifo}: is a named pipe (FIFO) that no program opened for writing")  # type: ignore[attr-defined]

    def write() -> None:
        with open(fifo, "w", encoding="utf-8") as pipe:  # waits for the reader, then writes
            pipe.write("Fire/Ice\n")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    written = CliRunner().invoke(main, ["resolve", "--db", str(sample_db_path), "--batch", str(fifo)])
    writer.join(60)
    assert written.exit_code == 0 and written.output.splitlines()[1].startswith("Fire/Ice,ok,"), written.output


@pytest.mark.parametrize("command", [["search", "t:goblin"], ["sql", "SELECT 1"]])
def test_json_and_csv_together_is_a_usage_error(sample_db_path: Path, command: list[str]) -> None:
    """Each prints one format: asked for both, the command says so instead of printing JSON as if --csv were not
    there."""
    result = CliRunner().invoke(main, [*command, "--json", "--csv", "--db", str(sample_db_path)])
    assert result.exit_code == 2 and "give --json or --csv, not both" in result.output


def test_rules_downloaded_over_http_refresh_the_rules_only(tmp_path: Path, sample_db_path: Path) -> None:
    # CR 111.10: the predefined tokens come from whatever rules text the database holds
    db = tmp_path / "rules.duckdb"
    db.write_bytes(sample_db_path.read_bytes())
    shipped = Path(__file__).resolve().parents[1] / "oracle_tools" / "data" / "rules" / "MagicCompRules-20260116.txt"
    with ScryfallServer(types=()) as server:
        server.add_route("/rules/cr.txt", shipped.read_bytes(), content_type="text/plain")
        server.script("/rules/cr.txt", Reply.error(500))
        code, _, err = _run(
            "ingest",
            "--db",
            str(db),
            "--rules-url",
            server.url + "/rules/cr.txt",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-progress",
        )
        assert code == 0, err
        assert server.count("/rules/cr.txt") == 2  # the 500 was retried
        server.add_route("/rules/bad.txt", b"<html>moved</html>", content_type="text/html")
        code, _, err = _run(
            "ingest",
            "--db",
            str(db),
            "--rules-url",
            server.url + "/rules/bad.txt",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-progress",
        )
        assert code == 2 and "not the Comprehensive Rules" in err
    with OracleDB(db) as opened:
        meta = opened.sql("SELECT effective_date::VARCHAR AS d, source FROM rules_meta").row(0, named=True)
        assert meta["d"] == "2026-01-16" and meta["source"].endswith("MagicCompRules-downloaded.txt")
        assert opened.sql("SELECT count(*) FROM cards").item() > 2000  # cards kept
        assert opened.token("Treasure").rule == "111.10a"


def test_sql_table_shows_every_column_and_says_how_many_rows_were_left_out(sample_db_path: Path) -> None:
    expected = OracleDB(sample_db_path).sql("SELECT name, colors FROM cards WHERE is_card ORDER BY name LIMIT 60")
    code, out, err = _run(
        "sql", "--db", str(sample_db_path), "SELECT name, colors FROM cards WHERE is_card ORDER BY name LIMIT 60"
    )
    assert code == 0 and err.strip() == "60 rows"
    lines = out.splitlines()
    assert [c.strip() for c in lines[1].strip("│").split("┆")] == ["name", "colors"]
    body = [[c.strip() for c in line.strip("│").split("┆")] for line in lines[3:-1]]
    first = expected.head(50).rows()
    assert [row[0] for row in body[:50]] == [name for name, _ in first]
    assert [row[1] for row in body[:50]] == [json.dumps(colors) for _, colors in first]  # lists shown as JSON
    assert body[50][0] == "… 10 more"  # the first 50 rows; --json and --csv give them all


def test_sql_keeps_repeated_column_names_apart(sample_db_path: Path) -> None:
    code, out, _ = _run("sql", "--db", str(sample_db_path), "SELECT 1 AS a, 2 AS a", "--json")
    assert code == 0 and json.loads(out) == [{"a": 1, "a_1": 2}]  # as a Polars frame names them


def test_sql_table_lines_up_wide_characters_and_escapes_control_characters(sample_db_path: Path) -> None:
    from oracle_tools.interfaces.render import width

    query = (
        "SELECT printed_name, 'a' || chr(27) || '[31m' AS ctl FROM printings "
        "WHERE lang IN ('ja', 'zhs', 'ko') AND printed_name IS NOT NULL ORDER BY printed_name LIMIT 5"
    )
    code, out, _ = _run("sql", "--db", str(sample_db_path), query)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 9  # header, 5 rows, 3 rules
    assert len({width(line) for line in lines}) == 1  # every line as wide on a terminal
    assert "\x1b" not in out and "a\\x1b[31m" in out


def test_ingest_help_says_where_the_sample_is() -> None:
    """--sample reads the sample inside the package (oracle_tools/data/sample/); ./data/ is where the database
    goes, so the help must not name data/sample/ as if it were beside it."""
    result = CliRunner().invoke(main, ["ingest", "--help"], terminal_width=200)
    sample_help = next(line for line in result.output.splitlines() if "--sample" in line)
    assert "oracle_tools/data/sample/" in sample_help, sample_help
    assert " data/sample/" not in result.output


def test_every_csv_the_cli_prints_ends_lines_with_lf(sample_db_path: Path, tmp_path: Path) -> None:
    """One line ending everywhere: `sql --csv` and `search --csv` end lines with LF as `export --csv` and
    `resolve --batch` do (Python's csv module writes CRLF unless told otherwise)."""
    db = ["--db", str(sample_db_path)]
    printed = {
        "sql": CliRunner().invoke(main, ["sql", *db, "--csv", "SELECT name FROM cards ORDER BY name LIMIT 3"]),
        "search": CliRunner().invoke(main, ["search", *db, "--csv", "t:goblin c:r mv<=2"]),
        "resolve": CliRunner().invoke(main, ["resolve", *db, "--batch", "-"], input="Tarmogoyf\nfire/ice\n"),
    }
    for command, result in printed.items():
        data = result.stdout_bytes
        assert result.exit_code == 0 and data.count(b"\n") >= 2, (command, result.output)
        assert b"\r" not in data, command
    exported = tmp_path / "cards.csv"
    assert CliRunner().invoke(main, ["export", "cards", *db, "--csv", str(exported)]).exit_code == 0
    assert b"\r\n" not in exported.read_bytes()


def test_search_in_a_terminal_fits_its_width(sample_db_path: Path) -> None:
    """`search` in an 80-column terminal prints a table of at most 80 columns (as `sql` does); piped, the cells
    are whole. The terminal is a real pseudo-terminal, as a user's shell gives the command."""
    import os
    import pty
    import subprocess
    import sys

    from oracle_tools.interfaces.render import width

    query = ["search", "c:m t:legendary mv<=2", "--db", str(sample_db_path)]
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "80", "LINES": "24"}
    with subprocess.Popen(
        [sys.executable, "-m", "oracle_tools.interfaces.cli", *query],
        stdout=follower,
        stderr=subprocess.DEVNULL,
        env=env,
    ) as child:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        child.wait(timeout=60)
    os.close(leader)
    shown = b"".join(chunks).decode("utf-8").replace("\r\n", "\n").splitlines()
    assert len(shown) > 4 and shown[0].startswith("┌"), shown
    assert max(width(line) for line in shown) <= 80, shown
    piped = CliRunner().invoke(main, query)
    assert max(width(line) for line in piped.output.splitlines()) > 80  # the cells the terminal cut, whole


def test_ingest_json_is_json_and_progress_only_for_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`ingest --json > out.json`: standard output holds the report alone; the bars are drawn (on stderr) only
    when stderr is a terminal — here it is not, so the ingest runs without them."""
    from oracle_tools import ingest

    asked: list[bool] = []
    real_init = ingest.Ingest.__init__

    def recording_init(self: ingest.Ingest, *args: object, **kwargs: object) -> None:
        asked.append(bool(kwargs.get("progress")))
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ingest.Ingest, "__init__", recording_init)
    # one small file of the sample (what is checked is the output, not how much is ingested)
    small = str(SAMPLE / "cards-2024.json.gz")
    result = CliRunner().invoke(main, ["ingest", "--bulk-file", small, "--json", "--db", str(tmp_path / "x.duckdb")])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["tables"]["cards"] > 0
    assert asked == [False]


def test_a_rules_file_without_a_database_says_to_ingest_cards_first(tmp_path: Path) -> None:
    """`ingest --rules-file X` keeps the cards of a database; where there is none it says so in one line, at
    once, instead of going to Scryfall (which fails offline with a message about the network)."""
    rules = Path(__file__).resolve().parents[1] / "oracle_tools" / "data" / "rules" / "MagicCompRules-20260116.txt"
    new = tmp_path / "new.duckdb"
    result = CliRunner().invoke(
        main, ["ingest", "--rules-file", str(rules), "--db", str(new), "--api-url", "http://127.0.0.1:9"]
    )
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert lines == [
        f"error: no database at {new} to keep the cards of; ingest cards first (`oracle-tools ingest "
        "--sample`, `--bulk-file FILE` or from Scryfall), then --rules-file"
    ], result.output
    assert not new.exists() and not (tmp_path / "cache").exists()


@pytest.mark.parametrize(
    ("types", "said"),
    [
        ("all_card", "error: unknown Scryfall bulk type 'all_card' (did you mean all_cards?); known bulk types: "),
        ("bogus", "error: unknown Scryfall bulk type 'bogus'; known bulk types: "),
        ("oracle_cards,rullings", "error: unknown Scryfall bulk type 'rullings' (did you mean rulings?)"),
        ("", "error: no bulk type given to download; give one or more of "),
    ],
    ids=["close", "far", "second", "empty"],
)
def test_ingest_types_are_checked_before_the_network(tmp_path: Path, types: str, said: str) -> None:
    """An unknown --types once reported "cannot reach api.scryfall.com", and `--types ""` wrote nothing with exit 0:
    the bulk types are checked against the one table of them (store.download.BULK_TYPES) first."""
    db = tmp_path / "new.duckdb"
    args = ["ingest", "--db", str(db), "--types", types, "--api-url", "http://127.0.0.1:9", "--no-progress"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and result.output.startswith(said), result.output
    assert "oracle_cards, unique_artwork, default_cards, all_cards, rulings" in result.output
    assert not db.exists() and not (tmp_path / "cache").exists()


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--sample", "--bulk-file", "BULK"], "not both: the sample is built alone"),
        (["--sample", "--types", "rulings"], "an ingest of the sample downloads nothing"),
        (["--bulk-file", "BULK", "--api-url", "http://127.0.0.1:9"], "an ingest of local bulk files downloads nothing"),
        (["--bulk-file", "BULK", "--types", "oracle_cards"], "an ingest of local bulk files downloads nothing"),
    ],
    ids=["sample-and-bulk-file", "sample-and-types", "bulk-file-and-api-url", "bulk-file-and-types"],
)
def test_an_ingest_option_another_overrides_is_refused_not_ignored(tmp_path: Path, extra: list[str], said: str) -> None:
    # --sample was built alone and --bulk-file, --types, --api-url silently left out: one line, nothing written
    bulk = tmp_path / "cards.json"
    bulk.write_text("[]", encoding="utf-8")
    db = tmp_path / "new.duckdb"
    args = ["ingest", "--db", str(db), "--no-progress", *(str(bulk) if a == "BULK" else a for a in extra)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and said in result.output, result.output
    assert not db.exists()


@pytest.mark.parametrize(
    ("content", "kind"),
    [(b"[]\n", "JSON text"), (gzip.compress(b"[]\n", mtime=0), "a gzip file"), (b"", "an empty file")],
)
@pytest.mark.parametrize("command", [["resolve", "Shock"], ["sql", "SELECT 1"], ["info"]])
def test_a_db_that_is_no_duckdb_file_is_said_in_one_line(
    tmp_path: Path, content: bytes, kind: str, command: list[str]
) -> None:
    """A JSON or gzip file given as --db printed DuckDB's "Catalog Error: Cannot launch in-memory database in
    read-only mode!" (exit 1); the readers (plain and sandboxed connections) now say what the file is, by its
    first bytes, and exit 2 as for a missing database."""
    wrong = tmp_path / "cards.json"
    wrong.write_bytes(content)
    code, out, err = _run(*command, "--db", str(wrong))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"error: --db {wrong}: is {kind}, not a DuckDB database; ")
    assert "Catalog Error" not in err
    assert wrong.read_bytes() == content


def test_bulk_files_may_be_given_as_arguments(tmp_path: Path) -> None:
    """`oracle-tools ingest cards.json` was click's "Got unexpected extra argument": the files are arguments too
    (as check-deck's decklists are), the same bulk_files of OracleDB.ingest as --bulk-file's, in their order."""
    cards, rulings = SAMPLE / "cards-2024.json.gz", SAMPLE / "rulings.json.gz"
    by_argument, by_option = tmp_path / "arguments.duckdb", tmp_path / "option.duckdb"
    code, out, err = _run("ingest", str(cards), str(rulings), "--db", str(by_argument), "--no-progress", "--json")
    assert code == 0, err
    _run("ingest", "--bulk-file", str(cards), "--bulk-file", str(rulings), "--db", str(by_option), "--no-progress")
    files = [(f["file"], f["kind"], f["rows"]) for f in json.loads(out)["files"]]
    assert files == [(str(cards), "cards", 187), (str(rulings), "rulings", files[1][2])]
    with OracleDB(by_argument) as a, OracleDB(by_option) as b:
        query = "SELECT count(*) FROM cards UNION ALL SELECT count(*) FROM rulings"
        assert a.sql(query).to_series().to_list() == b.sql(query).to_series().to_list()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["DB.duckdb"],
            "DB.duckdb looks like a database, not a bulk file: the arguments are the bulk files to read; "
            "give the database to write with --db DB.duckdb",
        ),
        (["CARDS", "--bulk-file", "CARDS"], "give the bulk files as arguments or with --bulk-file, not both"),
    ],
    ids=["database-as-argument", "arguments-and-option"],
)
def test_an_argument_that_is_no_bulk_file_is_a_usage_error(tmp_path: Path, args: list[str], said: str) -> None:
    cards = str(SAMPLE / "cards-2024.json.gz")
    db = tmp_path / "new.duckdb"
    code, out, err = _run("ingest", *(cards if a == "CARDS" else a for a in args), "--db", str(db), "--no-progress")
    assert code == 2 and out == "" and err.splitlines()[-1].startswith(f"error: {said}"), err
    assert not db.exists()


def test_a_duckdb_database_given_as_a_bulk_file_is_named(sample_db_path: Path, tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    code, _, err = _run("ingest", "--bulk-file", str(sample_db_path), "--db", str(db), "--no-progress")
    assert code == 2 and err == (
        f"error: {sample_db_path}: is a DuckDB database, not a Scryfall bulk file; give the database with --db.\n"
    )
    assert not db.exists()


def test_ingest_into_a_cache_folder_holding_the_users_own_sets_json_keeps_it(tmp_path: Path) -> None:
    """`ingest --cache-dir ~/Downloads` replaced a sets.json of the user's with Scryfall's set list (the cache's
    names are fixed): now one line, the file and any database kept, and nothing downloaded into the folder."""
    folder = tmp_path / "Downloads"
    folder.mkdir()
    (folder / "sets.json").write_text('{"my": "own set list"}\n', encoding="utf-8")
    cards = gzip.decompress((SAMPLE / "cards-2024.json.gz").read_bytes())
    db = tmp_path / "api.duckdb"
    with ScryfallServer(payload=cards, types=("default_cards",)) as server:
        code, out, err = _run(
            "ingest", "--db", str(db), "--types", "default_cards", "--api-url", server.url,
            "--cache-dir", str(folder), "--no-progress",
        )  # fmt: skip
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"error: {folder / 'sets.json'}: is not a file oracle-tools downloaded")
    assert (folder / "sets.json").read_text(encoding="utf-8") == '{"my": "own set list"}\n'
    assert not db.exists() and [p.name for p in folder.iterdir()] == ["sets.json"]


def _groups(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """``()`` (the program itself) and the path of every group under it (``("deck",)``)."""
    found = [path]
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += _groups(command, (*path, name))
    return found


@pytest.mark.parametrize("path", _groups(main), ids=lambda path: " ".join(("oracle-tools", *path)))
def test_a_group_without_a_command_prints_its_help_as_lines(path: tuple[str, ...]) -> None:
    """`oracle-tools` alone (the first thing a newcomer types) and `oracle-tools deck` printed one escaped line
    (`error: Usage: oracle-tools [OPTIONS] COMMAND [ARGS]...\\n\\n  The Magic: …`): click 8.2+ raises a group's
    help as a usage error. The help is printed as `-h` prints it, with the exit status click documents for a group
    given no command (2 and standard error since click 8.2, which has NoArgsIsHelpError; 0 and standard output
    before)."""
    import subprocess
    import sys

    script = shutil.which("oracle-tools", path=str(Path(sys.executable).parent))
    assert script is not None
    helped = subprocess.run([script, *path, "-h"], capture_output=True, text=True, timeout=60)
    bare = subprocess.run([script, *path], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and helped.stdout.startswith(f"Usage: {' '.join(('oracle-tools', *path))} ")
    if hasattr(click.exceptions, "NoArgsIsHelpError"):
        assert (bare.returncode, bare.stdout, bare.stderr) == (2, "", helped.stdout)
    else:
        assert (bare.returncode, bare.stdout, bare.stderr) == (0, helped.stdout, "")
