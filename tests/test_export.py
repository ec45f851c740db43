"""Export (Parquet / CSV) of tables, views and queries; the database is never written."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB
from oracle_tools.errors import OracleToolsError
from oracle_tools.interfaces.cli import main


def test_parquet_round_trip_keeps_types(sample_db: OracleDB, tmp_path: Path) -> None:
    out = tmp_path / "cards.parquet"
    result = sample_db.export("cards", out)
    assert result == {
        "rows": sample_db.sql("SELECT count(*) n FROM cards")["n"][0],
        "path": str(out),
        "format": "parquet",
        "source": "cards",
    }
    back = pl.read_parquet(out).sort("oracle_id")
    original = sample_db.frame("cards").sort("oracle_id")
    assert isinstance(original, pl.DataFrame)  # frame() is eager unless lazy=True
    assert back.schema == original.schema  # lists, dates, booleans survive
    assert back.equals(original)
    lazy = pl.scan_parquet(out).filter(pl.col("name") == "Fire // Ice").collect()
    assert lazy["colors"].to_list() == [["R", "U"]] or sorted(lazy["colors"][0]) == ["R", "U"]


def test_view_to_parquet(sample_db: OracleDB, tmp_path: Path) -> None:
    out = tmp_path / "a.parquet"
    sample_db.export("card_analytics", out)
    frame = pl.read_parquet(out)
    assert frame.filter(pl.col("name") == "Brainstorm")["draws_cards"].to_list() == [True]


def test_query_to_csv_with_params(sample_db: OracleDB, tmp_path: Path) -> None:
    out = tmp_path / "big.csv"
    result = sample_db.export(
        None, out, sql="SELECT name, colors, cmc FROM cards WHERE cmc >= ? ORDER BY name", params=[10]
    )
    frame = pl.read_csv(out)
    assert frame.columns == ["name", "colors", "cmc"]
    assert frame.height == result["rows"] > 0
    assert (frame["cmc"] >= 10).all()
    multi = sample_db.export(None, tmp_path / "fi.csv", sql="SELECT name, colors FROM cards WHERE name = 'Fire // Ice'")
    assert multi["rows"] == 1
    assert (tmp_path / "fi.csv").read_text().splitlines()[1] in ("Fire // Ice,R|U", "Fire // Ice,U|R")


def test_unknown_table_lists_the_tables(sample_db: OracleDB, tmp_path: Path) -> None:
    with pytest.raises(OracleToolsError) as err:
        sample_db.export("nope", tmp_path / "x.parquet")
    message = str(err.value)
    assert "no table or view named 'nope'" in message
    for name in ("cards", "faces", "card_analytics", "printings_per_card"):
        assert name in message


def test_never_writes_the_database(sample_db: OracleDB, sample_db_path: Path, tmp_path: Path) -> None:
    before = sample_db_path.stat().st_mtime_ns, sample_db_path.stat().st_size
    with pytest.raises(OracleToolsError, match="refusing to write over the database"):
        sample_db.export("cards", sample_db_path, format="parquet")
    with pytest.raises(OracleToolsError, match=r"read-only queries only.*CREATE"):
        sample_db.export(None, tmp_path / "x.csv", sql="CREATE TABLE evil AS SELECT 1")
    with pytest.raises(OracleToolsError, match="one query at a time; this text has 2 statements"):
        sample_db.export(None, tmp_path / "x.csv", sql="SELECT 1; DROP TABLE cards")
    # in `export` the refusal of COPY says how export names its file (not "use `oracle-tools export`")
    with pytest.raises(OracleToolsError, match=r"^`export --sql` runs read-only queries only .*--csv PATH") as err:
        sample_db.export(None, tmp_path / "x.csv", sql=f"COPY (SELECT 1) TO '{tmp_path / 'y.csv'}'")
    assert "use `oracle-tools export`" not in str(err.value)
    assert "evil" not in sample_db.tables()
    assert (sample_db_path.stat().st_mtime_ns, sample_db_path.stat().st_size) == before
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM read_csv('/etc/passwd')",  # a file beside the database
        "SELECT * FROM (SELECT 1) t, read_text('/etc/hostname')",
        "SELECT 1 FROM (FROM glob('/*'))",
    ],
)
def test_export_query_runs_in_the_sandbox(sample_db: OracleDB, tmp_path: Path, query: str) -> None:
    """The export's query runs on the sandboxed connection, so it cannot read other files either."""
    out = tmp_path / "leak.csv"
    with pytest.raises(OracleToolsError, match="export failed: Permission Error"):
        sample_db.export(None, out, sql=query)
    assert not out.exists()


def test_bad_arguments(sample_db: OracleDB, tmp_path: Path) -> None:
    with pytest.raises(OracleToolsError, match="cannot tell the format"):
        sample_db.export("cards", tmp_path / "cards.xlsx")
    with pytest.raises(OracleToolsError, match="not both"):
        sample_db.export("cards", tmp_path / "c.csv", sql="SELECT 1")
    with pytest.raises(OracleToolsError, match="does not exist"):
        sample_db.export("cards", tmp_path / "missing" / "c.csv")


def test_cli_export(sample_db_path: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "faces.parquet"
    r = runner.invoke(main, ["export", "--db", str(sample_db_path), "faces", "--parquet", str(out), "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data == {"rows": pl.read_parquet(out).height, "path": str(out), "format": "parquet"}
    csv_out = tmp_path / "q.csv"
    r = runner.invoke(
        main,
        [
            "export",
            "--db",
            str(sample_db_path),
            "--sql",
            "SELECT name FROM cards WHERE name = ?",
            "--param",
            "Lightning Bolt",
            "--csv",
            str(csv_out),
        ],
    )
    assert r.exit_code == 0, r.output
    assert "wrote 1 row to " in r.output
    assert csv_out.read_text() == "name\nLightning Bolt\n"
    r = runner.invoke(main, ["export", "--db", str(sample_db_path), "nope", "--csv", str(csv_out)])
    assert r.exit_code == 2 and "available:" in r.output
    r = runner.invoke(main, ["export", "--db", str(sample_db_path), "cards"])
    assert r.exit_code == 2 and "exactly one of --parquet" in r.output


def _export_csv(db: Path, out: Path, *more: str) -> tuple[int, str]:
    r = CliRunner().invoke(main, ["export", "--db", str(db), "cards", "--csv", str(out), *more])
    return r.exit_code, r.output


def test_an_existing_file_is_replaced_only_when_asked(sample_db_path: Path, tmp_path: Path) -> None:
    """`export --csv FILE` replaced whatever FILE was (a user's Scryfall dump became a CSV): an existing file is
    now refused in one line and kept byte for byte, unless --overwrite (overwrite=True) says to replace it."""
    dump = tmp_path / "default-cards.json.gz"
    kept = (Path(__file__).resolve().parents[1] / "oracle_tools/data/sample/cards-2024.json.gz").read_bytes()
    dump.write_bytes(kept)
    code, said = _export_csv(sample_db_path, dump)
    assert (
        code == 2
        and said == f"error: {dump} exists; give another path, or --overwrite to replace it. Nothing was written.\n"
    )
    assert dump.read_bytes() == kept
    with OracleDB(sample_db_path) as db, pytest.raises(OracleToolsError, match="exists; give another path"):
        db.export("cards", dump, format="csv")
    assert dump.read_bytes() == kept
    code, said = _export_csv(sample_db_path, dump, "--overwrite")
    assert code == 0 and said.startswith("wrote 2,8")
    assert gzip.decompress(dump.read_bytes()).startswith(b"oracle_id,name,")  # DuckDB compresses a .gz name
    assert sorted(p.name for p in tmp_path.iterdir()) == [dump.name]  # written beside it, then moved into place


def test_a_failed_overwrite_keeps_the_old_file(sample_db: OracleDB, tmp_path: Path) -> None:
    """The export is written beside the file and moved into place at the end: a query that fails while it runs
    leaves the file it was to replace as it was, and no partial file."""
    out = tmp_path / "bolt.csv"
    out.write_text("name\nLightning Bolt\n")
    with pytest.raises(OracleToolsError, match="export failed: Invalid Input Error: stop here"):
        sample_db.export(None, out, sql="SELECT name, error('stop here') FROM cards", overwrite=True)
    assert out.read_text() == "name\nLightning Bolt\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bolt.csv"]


def test_a_duckdb_database_is_never_overwritten(sample_db_path: Path, tmp_path: Path) -> None:
    """Another oracle-tools database given as the export's file was replaced by a CSV; only the database read was
    protected. A DuckDB file (its magic bytes) is refused even with --overwrite: an export is never a database."""
    other = tmp_path / "other.duckdb"
    other.write_bytes(sample_db_path.read_bytes()[: 1 << 16])
    before = other.read_bytes()
    code, said = _export_csv(sample_db_path, other, "--overwrite")
    assert code == 2 and said.startswith(f"error: {other} is a DuckDB database, which an export never writes over")
    assert other.read_bytes() == before
    code, said = _export_csv(sample_db_path, sample_db_path, "--overwrite")
    assert code == 2 and "refusing to write over the database itself" in said


def test_a_pipe_is_written_to_as_it_is(sample_db: OracleDB, tmp_path: Path) -> None:
    """A named pipe (or /dev/stdout into a pipe) holds no file to lose: it is written to without --overwrite and
    never read first (a read of a pipe waits for a writer) nor renamed over."""
    import os
    import threading

    pipe = tmp_path / "rows.csv"
    os.mkfifo(pipe)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_bytes()), daemon=True)
    reader.start()
    result = sample_db.export(None, pipe, sql="SELECT 'Lightning Bolt' AS name")
    reader.join(30)
    assert result["rows"] == 1 and got == [b"name\nLightning Bolt\n"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.csv"]


def test_counts_are_worded_in_one_place(sample_db: OracleDB, sample_db_path: Path, tmp_path: Path) -> None:
    """ "wrote 1 rows" (export) and "The main deck has 1 cards" (deck check, and the web page that shows it): every
    count before a noun is worded by text/counts.py, singular for exactly one."""
    from oracle_tools.text.counts import counted

    assert [counted(1, "row"), counted(0, "row"), counted(2_822, "row")] == ["1 row", "0 rows", "2,822 rows"]
    assert [counted(1, "copy", "copies"), counted(1.5, "copy", "copies")] == ["1 copy", "1.5 copies"]
    said = CliRunner().invoke(
        main, ["export", "--db", str(sample_db_path), "--sql", "SELECT 1 AS a", "--csv", str(tmp_path / "one.csv")]
    )
    assert said.exit_code == 0 and said.output == f"wrote 1 row to {tmp_path / 'one.csv'} (csv)\n"
    report = sample_db.check_deck("1 Lightning Bolt", format="modern")
    assert [p.detail for p in report.problems if p.kind == "deck_size"] == [
        "The main deck has 1 card; Modern needs at least 60 (CR 100.2a)."
    ]
    report = sample_db.check_deck("Commander\n1 Krenko, Mob Boss", format="commander")
    assert [p.detail for p in report.problems if p.kind == "deck_size"] == [
        "The deck has 1 card including the commander(s); Commander decks have exactly 100 (CR 903.5a)."
    ]


@pytest.mark.parametrize(
    ("flag", "name", "said"),
    [
        ("--parquet", "x.csv", "'x.csv' is named as a CSV file, but this export writes Parquet: name it .parquet"),
        ("--parquet", "x.csv.gz", "'x.csv.gz' is named as a CSV file, but this export writes Parquet"),
        ("--csv", "x.parquet", "'x.parquet' is named as a Parquet file, but this export writes CSV: name it .csv"),
    ],
)
def test_a_file_named_for_the_other_format_is_refused(
    sample_db_path: Path, tmp_path: Path, flag: str, name: str, said: str
) -> None:
    """`export cards --parquet x.csv` wrote Parquet to a .csv name, which every reader then misreads by its name."""
    r = CliRunner().invoke(main, ["export", "--db", str(sample_db_path), "cards", flag, str(tmp_path / name)])
    assert r.exit_code == 2 and r.output.startswith(f"error: {said}") and r.output.count("\n") == 1
    assert "Nothing was written." in r.output and not list(tmp_path.iterdir())
    ok = CliRunner().invoke(main, ["export", "--db", str(sample_db_path), "faces", "--csv", str(tmp_path / "f.csv.gz")])
    assert ok.exit_code == 0, ok.output  # a compressed CSV is named as CSV
    kept = ["export", "--db", str(sample_db_path), "faces", "--csv", str(tmp_path / "old.parquet.bak.csv")]
    assert CliRunner().invoke(main, kept).exit_code == 0  # its name's last suffix says CSV


def test_a_named_pipe_nobody_reads_is_said_in_one_line(
    sample_db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`export card_analytics --csv FIFO` with no program reading the FIFO waited forever, silently: as ingest does
    for a FIFO nobody writes, it waits a few seconds for a reader, then says so."""
    import os

    from oracle_tools.store import export

    monkeypatch.setattr(export, "READER_WAIT_SECONDS", 0.3)
    pipe = tmp_path / "rows.csv"
    os.mkfifo(pipe)
    r = CliRunner().invoke(main, ["export", "--db", str(sample_db_path), "card_analytics", "--csv", str(pipe)])
    assert r.exit_code == 2
    assert r.output == (
        f"error: {pipe}: is a named pipe (FIFO) that no program opened for reading in 0.3 s; start the program "
        "that reads it first (or give a file). Nothing was written.\n"
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full (a device whose every write fails: disk full)")
@pytest.mark.parametrize("option", ["--csv", "--parquet"])
def test_a_full_disk_is_said_in_words(sample_db_path: Path, option: str) -> None:
    # it was "export failed: IO Error: Async write failed for range [offset=0, size=261]: {"exception_type":"IO",
    # "exception_message":"Could not write file \"/dev/full\": No space left on device","errno":"28"}"
    done = CliRunner().invoke(main, ["export", "cards", option, "/dev/full", "--db", str(sample_db_path)])
    assert done.exit_code != 0 and done.output == "error: cannot write /dev/full: No space left on device\n"
