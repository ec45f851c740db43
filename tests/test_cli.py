"""The CLI: ingest from a loopback Scryfall, info, read-only SQL, errors."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

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


def test_sql_csv(sample_db_path: Path) -> None:
    code, out, _ = _run(
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
