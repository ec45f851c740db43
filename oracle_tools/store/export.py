"""Export any table, view or query to Parquet (Arrow) or CSV, and read them as Polars LazyFrames.

The query runs on the sandboxed read-only connection (``OracleDB.user_con``: no file, network or
extension access) and streams as Arrow record batches into a second in-memory DuckDB that runs
``COPY (SELECT …) TO ? (FORMAT …)``: nothing is loaded into Python whole, the writing connection never
sees user text, and the database itself is never written (a target path equal to the database file
is refused before anything runs).

* a table or view name is checked against the catalog and quoted; user text is never pasted in;
* ``sql=`` is the user's own query: one read-only statement (``sqlfiles.check_read_only``), run as
  given in the sandbox (parameters bound with ``params``);
* CSV has a header row; list columns are joined with ``|`` (as ``oracle-tools sql --csv`` does),
  other nested values are written in DuckDB's text form. Parquet keeps every type (lists,
  dates, structs) and reads back with ``pl.read_parquet`` / ``pl.scan_parquet`` / pyarrow.

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")                                     # doctest: +SKIP
>>> db.export("cards", "cards.parquet")                                     # doctest: +SKIP
{'rows': 2817, 'path': 'cards.parquet', 'format': 'parquet', 'source': 'cards'}
>>> db.export(None, "bolt.csv", sql="SELECT * FROM cards WHERE name = ?", params=["Lightning Bolt"])  # doctest: +SKIP
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from oracle_tools.errors import ExportError
from oracle_tools.store import sqlfiles

EXPORT_FORMATS = ("parquet", "csv")
_SUFFIX_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}


def catalog(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every table and view of the main schema, sorted."""
    return sqlfiles.table_names(con, views=True)


def source_sql(con: duckdb.DuckDBPyConnection, target: str | None, sql: str | None) -> str:
    """The SELECT to run: a checked table/view name, or the user's query (exactly one of them)."""
    if (target is None) == (sql is None):
        raise ExportError("give either a table or view name, or a SQL query (--sql), not both and not neither.")
    if sql is not None:
        query = sql.strip().rstrip(";").strip()
        if not query:
            raise ExportError("the SQL query is empty.")
        return query
    names = catalog(con)
    if target not in names:
        raise ExportError(f"no table or view named {target!r}; available: {', '.join(names)}")
    return f'SELECT * FROM "{target}"'  # the name is one of the catalog's names


def infer_format(path: Path, format: str | None) -> str:
    if format is not None:
        fmt = format.lower()
        if fmt not in EXPORT_FORMATS:
            raise ExportError(f"unknown export format {format!r}; use one of: {', '.join(EXPORT_FORMATS)}.")
        # Parquet written to cards.csv (or CSV to cards.parquet) is a file every reader then misreads by its name
        # the name's last suffix, or the one before a compression's ('x.csv.gz'); 'x.parquet.bak.csv' is CSV
        suffixes = [suffix.lower() for suffix in path.suffixes]
        while len(suffixes) > 1 and suffixes[-1] in (".gz", ".zst", ".bz2", ".xz"):
            suffixes.pop()
        other = _SUFFIX_FORMATS.get(suffixes[-1], fmt) if suffixes else fmt
        if other != fmt:
            shown = {"csv": "CSV", "parquet": "Parquet"}
            raise ExportError(
                f"{path.name!r} is named as a {shown[other]} file, but this export writes {shown[fmt]}: name it "
                f".{fmt}, or export {shown[other]}. Nothing was written."
            )
        return fmt
    by_suffix = _SUFFIX_FORMATS.get(path.suffix.lower())
    if by_suffix is None:
        raise ExportError(f"cannot tell the format from {path.name!r}; name it .parquet or .csv, or give the format.")
    return by_suffix


def _check_path(path: Path, db_path: Path | None, overwrite: bool) -> None:
    """Refuse a target that is a folder, the database read (always), a DuckDB database (even with ``overwrite``:
    an export is never a database, and an oracle-tools database was replaced this way), or any existing file
    unless ``overwrite`` (a user's Scryfall dump was replaced by a CSV): nothing is written then."""
    if path.is_dir():
        raise ExportError(f"{path} is a directory; give a file path to write.")
    if db_path is not None and path.resolve() in {db_path.resolve(), Path(str(db_path) + ".wal").resolve()}:
        raise ExportError(f"refusing to write over the database itself ({db_path}); exports are read-only.")
    if not path.parent.exists():
        raise ExportError(f"the folder {path.parent} does not exist; create it first.")
    if sqlfiles.is_duckdb_file(path):
        raise ExportError(
            f"{path} is a DuckDB database, which an export never writes over (not even with --overwrite); give "
            "another path, or remove it yourself first if it is not needed. Nothing was written."
        )
    if os.path.lexists(path) and not overwrite and not _is_stream(path):
        raise _exists(path)


def _is_stream(path: Path) -> bool:
    """Whether ``path`` names a device or a pipe (``/dev/stdout``, ``>(gzip > x)``): written to as it is, never
    moved over (as root, a rename over /dev/null would replace the device), and holding no file to lose."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


#: How long an export waits for a program to open a named pipe (FIFO) it is given, for reading, before it says so
#: (the ingest's wait for a FIFO's writer, the other way round): a FIFO nothing reads would block the export forever.
READER_WAIT_SECONDS = 5.0


def _hold_fifo(path: Path) -> int | None:
    """For a named pipe: wait, at most :data:`READER_WAIT_SECONDS`, for a reader, and return a write end held open
    until the export has written (closed earlier, it would end the reader's input before DuckDB's first byte);
    None for anything else. A FIFO no program reads is refused in one line."""
    import errno
    import time

    try:
        if not stat.S_ISFIFO(os.stat(path).st_mode):
            return None
    except OSError:
        return None
    deadline = time.monotonic() + READER_WAIT_SECONDS
    while True:
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO while no program has it open for reading
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise ExportError(
                    f"{path}: cannot be opened for writing: {exc.strerror}. Nothing was written."
                ) from None
        if time.monotonic() >= deadline:
            raise ExportError(
                f"{path}: is a named pipe (FIFO) that no program opened for reading in {READER_WAIT_SECONDS:g} s; "
                "start the program that reads it first (or give a file). Nothing was written."
            )
        time.sleep(0.05)


def _exists(path: Path) -> ExportError:
    return ExportError(f"{path} exists; give another path, or --overwrite to replace it. Nothing was written.")


def _move_into_place(written: Path, path: Path, overwrite: bool) -> None:
    """``written`` (finished, beside ``path``) becomes ``path``: only now is a file there replaced, so a failed
    export leaves nothing half-written. Without ``overwrite`` a file made there meanwhile is kept (a hard link
    fails on an existing name, where a rename would replace it; a file system without links gets the rename)."""
    if overwrite:
        os.replace(written, path)
        return
    try:
        os.link(written, path)
    except FileExistsError:
        raise _exists(path) from None
    except OSError:
        if os.path.lexists(path):
            raise
        os.replace(written, path)
        return
    written.unlink()


def _io_reason(exc: Exception) -> str:
    """Why DuckDB could not write the file, in the system's words where its error holds the errno (in a JSON object:
    ``{"exception_type":"IO", …, "errno":"28"}``), else its first line."""
    found = re.search(r'"errno"\s*:\s*"?([0-9]+)', str(exc))
    if found is not None:
        return os.strerror(int(found[1]))
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return first.removeprefix("IO Error: ")


def _csv_select(con: duckdb.DuckDBPyConnection, source: str) -> str:
    """A SELECT over the registered ``source`` with list columns '|'-joined (as `oracle-tools sql --csv`)."""
    rel = con.sql(f"SELECT * FROM {source} LIMIT 0")
    cols = []
    for name, dtype in zip(rel.columns, rel.types):
        quoted = '"' + name.replace('"', '""') + '"'
        if dtype.id == "list" and str(dtype).count("[]") == 1 and "STRUCT" not in str(dtype).upper():
            cols.append(f"array_to_string({quoted}, '|') AS {quoted}")
        else:
            cols.append(quoted)
    return f"SELECT {', '.join(cols)} FROM {source}"


def export(
    con: duckdb.DuckDBPyConnection,
    target: str | None,
    path: str | os.PathLike[str],
    *,
    sql: str | None = None,
    params: Sequence[Any] | dict[str, Any] | None = None,
    format: str | None = None,
    db_path: Path | None = None,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Write a table, view or query to ``path``; return {"rows", "path", "format", "source"}. An existing file
    at ``path`` is replaced only with ``overwrite`` (and never a DuckDB database: :func:`_check_path`).

    ``con`` is the sandboxed connection (``OracleDB.user_con``): the user's query runs there, with no file or
    network access, and streams as Arrow batches into a separate in-memory connection that writes the file
    and never sees user text — so a query can neither read other files nor write anywhere but ``path``."""
    out = Path(path)
    fmt = infer_format(out, format)
    # Written beside the file (through a symlink: beside the file it names), then moved into place; the name
    # ends as the file's does, as DuckDB picks the compression by it (--csv cards.csv.gz).
    final = Path(os.path.realpath(out)) if out.is_symlink() else out
    partial = out if _is_stream(out) else final.with_name(f".export-{os.getpid()}-{final.name}")
    query = source_sql(con, target, sql)
    if sql is not None:
        sqlfiles.check_read_only(query, command="export --sql")
    _check_path(out, db_path, overwrite)
    bound = list(params) if isinstance(params, (list, tuple)) else params
    held = _hold_fifo(out)
    try:
        result = con.cursor().sql(query, params=bound or None)
        batches = result.to_arrow_reader() if hasattr(result, "to_arrow_reader") else result.fetch_arrow_reader()
        writer = duckdb.connect(":memory:")
        try:
            writer.register("export_source", batches)
            if fmt == "csv":
                select, options = _csv_select(writer, "export_source"), "FORMAT csv, HEADER true"
            else:
                select, options = "SELECT * FROM export_source", "FORMAT parquet, COMPRESSION zstd"
            rows = writer.execute(f"COPY ({select}) TO ? ({options})", [str(partial)]).fetchall()[0][0]
        finally:
            writer.close()
        if partial != out:
            _move_into_place(partial, final, overwrite)
    except duckdb.IOException as exc:  # writing the file: a full disk, say
        raise ExportError(f"cannot write {out}: {_io_reason(exc)}") from None
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ExportError(f"export failed: {first}") from None
    finally:
        if held is not None:
            os.close(held)
        if partial != out:
            partial.unlink(missing_ok=True)
    return {"rows": int(rows), "path": str(out), "format": fmt, "source": target if sql is None else "sql"}


def lazy(
    con: duckdb.DuckDBPyConnection, query: str, params: Sequence[Any] | dict[str, Any] | None = None
) -> pl.LazyFrame:
    """A Polars LazyFrame over a DuckDB query: filters and column selections made in Polars are
    pushed down to DuckDB when it supports it (DuckDB >= 1.4), else the result is fetched once.

    Each frame reads through its own cursor, so two lazy frames of one database can be joined
    (one DuckDB connection refuses a second query while a result is streaming)."""
    rel = con.cursor().sql(query, params=params or None)
    try:
        return rel.pl(lazy=True)
    except TypeError:  # older DuckDB without lazy Polars
        return rel.pl().lazy()
