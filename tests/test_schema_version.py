"""The schema version (oracle_tools/store/schema_version.py): written at ingest, read once when a database is opened;
a database of another version is refused in one line through every door, and no module asks whether a table or
column exists."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB
from oracle_tools.errors import DatabaseOutdatedError, IngestError
from oracle_tools.interfaces.cli import main
from oracle_tools.store import schema_version, sqlfiles
from oracle_tools.store.schema_version import SCHEMA_VERSION

PACKAGE = Path(__file__).resolve().parents[1] / "oracle_tools"
SAMPLE = PACKAGE / "data" / "sample"


@pytest.fixture
def built_with(sample_db_path: Path, tmp_path: Path) -> Callable[[int | None], Path]:
    """``built_with(N)``: a copy of the sample database as if the ingest of schema version N had built it (None: one
    built before versions were written, with no version table)."""

    def copy(version: int | None) -> Path:
        path = tmp_path / "older.duckdb"
        shutil.copy(sample_db_path, path)
        with duckdb.connect(str(path)) as con:
            if version is None:
                con.execute(f"DROP TABLE {schema_version.TABLE}")
            else:
                con.execute(f"UPDATE {schema_version.TABLE} SET version = ?", [version])
        return path

    return copy


def older_line(name: str, built: int | None = SCHEMA_VERSION - 1) -> str:
    found = f"schema {built}" if built is not None else "no schema version"
    return (
        f"{name} was built by an older oracle-tools ({found}, this one reads {SCHEMA_VERSION}); rebuild it with "
        "`oracle-tools ingest`"
    )


def test_the_ingest_writes_the_version(sample_db: OracleDB) -> None:
    assert sqlfiles.schema_version_of(sample_db.con) == SCHEMA_VERSION
    assert sample_db.con.execute(f"SELECT count(*) FROM {schema_version.TABLE}").fetchall() == [(1,)]


def test_an_older_database_is_one_line_in_the_library_and_the_cli(built_with: Callable[[int | None], Path]) -> None:
    for built in (SCHEMA_VERSION - 1, None):
        older = built_with(built)
        line = older_line(older.name, built)
        with OracleDB(older) as db:
            with pytest.raises(DatabaseOutdatedError) as raised:
                db.resolve("Fire // Ice")
            assert str(raised.value) == line and raised.value.exit_status == 2 and raised.value.http_status == 503
            with pytest.raises(DatabaseOutdatedError, match=re.escape(line)):
                db.search("t:goblin")  # the sandboxed connection checks it too
        for argv in (["resolve", "Fire // Ice"], ["search", "t:goblin"], ["refs", "Tarmogoyf"], ["sql", "SELECT 1"]):
            result = CliRunner().invoke(main, [*argv, "--db", str(older)])
            assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"error: {line}\n"), argv


def test_a_newer_database_is_one_line(built_with: Callable[[int | None], Path]) -> None:
    newer = built_with(SCHEMA_VERSION + 1)
    result = CliRunner().invoke(main, ["resolve", "Fire // Ice", "--db", str(newer)])
    assert result.exit_code == 2 and result.stderr == (
        f"error: {newer.name} was built by a newer oracle-tools (schema {SCHEMA_VERSION + 1}, this one reads "
        f"{SCHEMA_VERSION}); upgrade oracle-tools, or rebuild it with this one's `oracle-tools ingest "
        "--replace-anyway` (its change history goes with it)\n"
    )


def test_an_ingest_over_a_newer_database_refuses_unless_asked_to_replace_it(
    built_with: Callable[[int | None], Path],
) -> None:
    """An ingest of card files carries the replaced database's history, rulings and set list over: a newer
    version's may have columns this one does not know (its INSERT failed in DuckDB's words). Refused in one line,
    nothing replaced; with --replace-anyway, as the refusal says, it is replaced and its history goes."""
    newer = built_with(SCHEMA_VERSION + 1)
    with duckdb.connect(str(newer)) as con:
        con.execute("ALTER TABLE ingest_runs ADD COLUMN written_by_a_later_version VARCHAR")
    before = newer.read_bytes()
    result = CliRunner().invoke(main, ["ingest", "--sample", "--db", str(newer), "--no-progress"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {newer.name} was built by a newer oracle-tools (schema {SCHEMA_VERSION + 1}, this one reads "
        f"{SCHEMA_VERSION}): its change history, rulings and set list cannot be carried over by this version; "
        "upgrade oracle-tools, or rerun with --replace-anyway to replace it with a new database (its history goes "
        "with it). Nothing was replaced.\n"
    )
    assert newer.read_bytes() == before
    result = CliRunner().invoke(main, ["ingest", "--sample", "--db", str(newer), "--no-progress", "--replace-anyway"])
    assert result.exit_code == 0, result.output
    assert f"replaced {newer}, built by a newer oracle-tools; its history is gone" in result.stderr
    with OracleDB(newer) as db:
        assert sqlfiles.schema_version_of(db.con) == SCHEMA_VERSION
        assert db.con.execute("SELECT count(DISTINCT run_id) FROM ingest_runs").fetchall() == [(1,)]
        assert db.resolve("Fire // Ice").ok


def test_a_duckdb_file_of_no_oracle_tools_is_said_to_be_none(tmp_path: Path) -> None:
    """A DuckDB database with neither a schema version nor a cards table was built by no oracle-tools: it was called
    "built by an older oracle-tools", whose advice (rebuild it) then failed."""
    other = tmp_path / "sales.duckdb"
    with duckdb.connect(str(other)) as con:
        con.execute("CREATE TABLE sales (id INTEGER)")
    for argv in (["resolve", "Fire // Ice"], ["info"], ["sql", "SELECT 1"]):
        result = CliRunner().invoke(main, [*argv, "--db", str(other)])
        assert (result.exit_code, result.stdout) == (2, ""), argv
        assert result.stderr == (
            f"error: --db {other}: is a DuckDB database but no oracle-tools one (it has no cards table); give --db "
            "an oracle-tools database such as data/oracle.duckdb, or build one at a new path with `oracle-tools "
            "ingest`\n"
        ), argv


def test_a_server_whose_file_becomes_older_answers_503_with_the_line(
    built_with: Callable[[int | None], Path], sample_db_path: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Over HTTP a 503 in Scryfall's error shape, as for a missing or damaged database (the server's file, no mistake
    of the client's), naming the file by its name only; the file is tried once (one warning), not at every request;
    the server answers again once the file is rebuilt."""
    from starlette.testclient import TestClient

    from oracle_tools.interfaces.serve.app import create_app

    older = built_with(SCHEMA_VERSION - 1)
    served = tmp_path / "served.duckdb"
    shutil.copy(sample_db_path, served)
    with TestClient(create_app(served, warm=False)) as client:
        assert client.get("/cards/named", params={"exact": "Lightning Bolt"}).status_code == 200
        os.replace(older, served)  # as an ingest swaps a file in
        for path, params in (("/cards/named", {"exact": "Lightning Bolt"}), ("/cards/search", {"q": "bolt"})):
            answer = client.get(path, params=params)
            assert answer.status_code == 503 and answer.headers["content-type"].startswith("application/json")
            assert answer.json() == {
                "object": "error",
                "code": "service_unavailable",
                "status": 503,
                "details": older_line(served.name),
            }
            assert str(tmp_path) not in answer.text
        assert [r.getMessage() for r in caplog.records].count(
            f"{older_line(served.name)}; every request is answered so until the file is replaced"
        ) == 1
        shutil.copy(sample_db_path, served.with_suffix(".new"))
        os.replace(served.with_suffix(".new"), served)
        assert client.get("/cards/named", params={"exact": "Lightning Bolt"}).status_code == 200


def test_serve_and_mcp_refuse_an_older_database_before_they_start(built_with: Callable[[int | None], Path]) -> None:
    older = built_with(SCHEMA_VERSION - 1)
    for command in (["mcp"], ["serve", "--port", "0", "--no-warm"]):
        done = subprocess.run(
            [sys.executable, "-m", "oracle_tools.interfaces.cli", *command, "--db", str(older)],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert (done.returncode, done.stdout, done.stderr) == (2, "", f"error: {older_line(older.name)}\n"), command


def test_an_ingest_without_card_files_refuses_an_older_database(built_with: Callable[[int | None], Path]) -> None:
    """An ingest of only rulings keeps the cards of the database it replaces: those of an older version are not
    this version's (its printings may lack columns this one computes), so it says to rebuild, and replaces nothing."""
    older = built_with(SCHEMA_VERSION - 1)
    before = older.read_bytes()
    with pytest.raises(IngestError) as raised:
        OracleDB.ingest_files(older, [SAMPLE / "rulings.json.gz"])
    assert str(raised.value) == (
        f"{older_line(older.name)} from card files (--sample, --bulk-file or the Scryfall API): an ingest without "
        "them keeps its cards, which this version cannot. Nothing was replaced."
    )
    assert older.read_bytes() == before


def test_an_ingest_of_card_files_rebuilds_an_older_database_keeping_its_history(
    built_with: Callable[[int | None], Path],
) -> None:
    """The line's advice works: an ingest with card files over an older database builds one of this version, and
    carries the older one's runs over (its change history is kept, not lost)."""
    older = built_with(None)
    with duckdb.connect(str(older), read_only=True) as con:
        runs_before = con.execute("SELECT count(*) FROM ingest_runs").fetchall()[0][0]
    done = subprocess.run(
        [sys.executable, "-m", "oracle_tools.interfaces.cli", "ingest", "--sample", "--db", str(older)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    with OracleDB(older) as db:
        assert sqlfiles.schema_version_of(db.con) == SCHEMA_VERSION
        assert db.resolve("Fire/Ice").name == "Fire // Ice"
        assert db.con.execute("SELECT count(DISTINCT run_id) FROM ingest_runs").fetchall()[0][0] == 2
        assert db.con.execute("SELECT count(*) FROM ingest_runs").fetchall()[0][0] > runs_before


def test_a_missing_version_is_read_without_aborting_a_transaction() -> None:
    """The version is read on a cursor of its own: a database without the table answers None, and a transaction
    the caller has open on the connection goes on."""
    with duckdb.connect() as con:
        con.execute("CREATE TABLE t (x INTEGER)")
        con.execute("BEGIN")
        assert sqlfiles.schema_version_of(con) is None
        assert con.execute("SELECT count(*) FROM t").fetchall() == [(0,)]
        con.execute("ROLLBACK")


def schema_shape(con: duckdb.DuckDBPyConnection) -> str:
    """The digest of every table's and view's columns (name and type), in order."""
    rows = con.execute(
        "SELECT table_name, column_name, data_type FROM duckdb_columns() "
        "WHERE database_name = current_database() AND schema_name = 'main' ORDER BY table_name, column_index"
    ).fetchall()
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


def test_a_schema_change_bumps_the_version(sample_db: OracleDB) -> None:
    """The tables, views and columns the ingest builds are those SCHEMA_SHAPE records for SCHEMA_VERSION: a change of
    them without a new version would let a database of the old shape be read as of the new one."""
    shape = schema_shape(sample_db.con)
    assert shape == schema_version.SCHEMA_SHAPE, (
        f"the database's tables or columns changed (shape {shape}): bump SCHEMA_VERSION in "
        f"oracle_tools/store/schema_version.py and set SCHEMA_SHAPE = {shape!r}"
    )


#: What asks DuckDB's catalog whether a table or column exists.
_CATALOG_PROBES = re.compile(r"has_table|duckdb_tables|duckdb_columns|information_schema")


def test_at_most_three_places_ask_whether_a_table_or_column_exists() -> None:
    """The version says which tables a database has: the catalog is listed in sqlfiles.table_names and
    sqlfiles.column_names only (for the user's `tables` and export, the views' build, and the database an ingest
    replaces, which may be older)."""
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*"))
        if path.suffix in (".py", ".sql") and "__pycache__" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _CATALOG_PROBES.search(line)
    ]
    assert len(found) <= 3, found
