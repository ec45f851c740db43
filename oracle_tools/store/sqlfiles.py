"""SQL helpers: load the project's SQL (``oracle_tools/sql/*.sql``) by name, run queries into Polars frames,
and the sandboxed connection that runs SQL derived from user input (``oracle-tools sql``, search, the HTTP
server and the MCP tools all run on :func:`sandboxed_connection` via ``OracleDB.user_con``)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oracle_tools.errors import (
    DatabaseDamagedError,
    NotADatabaseError,
    OracleToolsError,
    QueryTimeoutError,
    ReadOnlySQLError,
)
from oracle_tools.store import schema_version, userfiles

#: The catalog the previous database is attached as while an ingest builds the new one (the layers that carry
#: tables over from it read it by this name). DuckDB names a file's own catalog after the file
#: ("previous.duckdb" and its temp copy are both "previous"), so a fixed word can clash with it; a random name
#: per process cannot.
PREVIOUS_CATALOG = f"previous_{os.urandom(8).hex()}"  # os.urandom: `secrets` would cost every start ~4 ms

#: The SQL files of every layer's tables (package data, ``oracle_tools/sql``), read by :func:`load`.
SQL_DIR = Path(__file__).parent.parent / "sql"

if TYPE_CHECKING:  # Polars loads in .pl() when a frame is asked for: single lookups never import it
    import duckdb
    import polars as pl


#: Extension settings of the sandbox, passed at connect time so nothing can run before them.
SANDBOX_CONFIG: dict[str, Any] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}
#: DuckDB's memory for the sandbox's queries (DuckDB's own default is 80 % of the machine's memory, and one
#: `sql` query of repeated strings took 20 GB): a query that needs more fails with one line instead of taking the
#: machine's memory (`sql --memory-limit` gives another). Searches of the real data stay far below it.
SANDBOX_MEMORY_LIMIT = "2GB"
#: The most the sandbox's queries may spill to its private temp folder.
SANDBOX_TEMP_LIMIT = "4GB"

#: Set right after the database file is attached (DuckDB refuses ATTACH once external access is off), then
#: locked: no file, directory or network access beyond the database (COPY … TO, EXPORT DATABASE,
#: read_csv('/etc/passwd'), ATTACH, INSTALL all fail) and no statement can turn it back on (SET fails).
_SANDBOX_AFTER_ATTACH = ("SET enable_external_access = false", "SET lock_configuration = true")
_RESERVED_CATALOGS = frozenset({"memory", "system", "temp", "main", ""})

#: What a statement type is for, in the one line that refuses it.
_REFUSED_WHY = {
    "COPY": "COPY writes files — use `oracle-tools export`",
    "EXPORT": "EXPORT DATABASE writes files — use `oracle-tools export`",
    "LOAD": "INSTALL/LOAD fetch and load extensions, which the sandbox turns off",
    "SET": "SET, RESET and USE change settings or the current database, which are locked",
    "VARIABLE_SET": "SET changes settings, which are locked",
    "ATTACH": "ATTACH opens other databases — query this one",
    "DETACH": "DETACH closes databases — query this one",
    "PRAGMA": "PRAGMA changes or reads settings — use SELECT on duckdb_settings() instead",
    "CALL": "CALL and CHECKPOINT run procedures — query with SELECT (SELECT * FROM pragma_version())",
    # DuckDB splits a PIVOT whose values are not listed into a type-creating statement plus the query.
    "MULTI": "a PIVOT without an IN list runs several statements; name its values: "
    "PIVOT (FROM cards SELECT layout) ON layout IN ('normal', 'split') USING count(*)",
}
_QUERY_TYPES = frozenset({"SELECT", "EXPLAIN"})


def error_line(exc: BaseException) -> str:
    """A DuckDB error as one line that keeps what DuckDB says to help: the message, its hints ('Did you mean
    "cards"?', 'Candidate bindings: …') and where in the query it is ('at character 15 of line 1')."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    where = ""
    for at, line in enumerate(lines):
        if line.startswith("LINE ") and ": " in line and at + 1 < len(lines) and "^" in lines[at + 1]:
            head = line.split(": ", 1)[0]
            column = lines[at + 1].index("^") - len(head) - 2 + 1
            where = f" (at character {column} of {head.lower()})"
    hints = [line.strip() for line in lines[1:] if not line.startswith("LINE ") and set(line.strip()) != {"^"}]
    return " ".join([lines[0], *hints]) + where


def check_read_only(query: str, command: str = "sql") -> None:
    """Raise :class:`ReadOnlySQLError` unless ``query`` is exactly one query statement (SELECT/WITH/FROM/
    VALUES/DESCRIBE/SHOW/SUMMARIZE/EXPLAIN), classified by DuckDB's own parser, never by pattern matching.
    ``command`` names the command in the refusal (``sql``, ``export --sql``)."""
    import duckdb

    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as exc:
        raise OracleToolsError(f"SQL failed: {error_line(exc)}") from None
    if not statements:
        raise ReadOnlySQLError(f"`{command}` needs a query, such as SELECT name FROM cards LIMIT 5")
    if len(statements) > 1:
        raise ReadOnlySQLError(f"`{command}` runs one query at a time; this text has {len(statements)} statements")
    kind = statements[0].type.name
    if kind not in _QUERY_TYPES:
        why = _REFUSED_WHY.get(kind, f"{kind} changes the database or its settings")
        if command != "sql" and kind in ("COPY", "EXPORT"):  # already in `export`: name where the file goes
            why = f"{why.split(' — ')[0]} — give the query alone; --csv PATH or --parquet PATH names the file"
        raise ReadOnlySQLError(f"`{command}` runs read-only queries only (SELECT/WITH/FROM/DESCRIBE/…); {why}")


def opening_error(path: str | os.PathLike[str], exc: BaseException) -> Exception:
    """The error to raise when DuckDB cannot open the database at ``path``: one true line for a write-ahead log
    that belongs to another file (a writer that stopped before a checkpoint left it, or it was copied), else
    ``exc`` itself."""
    if not is_foreign_wal(exc):
        return exc if isinstance(exc, Exception) else RuntimeError(str(exc))
    wal = f"{path}.wal"
    return OracleToolsError(
        f"{wal} does not belong to {path} (a writer stopped before a checkpoint left it, or it was copied from "
        f"another database), so the database cannot be opened: move it away (mv '{wal}' '{wal}.bad') and open "
        "again, or rebuild the database with `oracle-tools ingest` (which removes it)"
    )


#: What DuckDB says, whatever the statement, when the database file itself is damaged: cut short (a copy or a
#: download that stopped), or a block whose checksum fails.
_DAMAGE = ("Could not read enough bytes from file", "Corrupt database file")


def damaged_database(exc: BaseException, path: str | os.PathLike[str] | None = None) -> DatabaseDamagedError | None:
    """The :class:`DatabaseDamagedError` a DuckDB error means when it says the database file is damaged, else None.
    The file is named by its name only: the one DuckDB's line quotes, else ``path``'s."""
    import re

    if type(exc).__module__.split(".")[0] not in ("duckdb", "_duckdb"):
        return None
    line = (str(exc).strip().splitlines() or [""])[0]
    if not any(words in line for words in _DAMAGE):
        return None
    quoted = re.search(r'from file "([^"]+)"', line)
    if quoted and path is not None and not _is_the_database(quoted.group(1), path):
        return None  # a temporary or spill file failed: the database itself is whole
    file = quoted.group(1) if quoted else os.fspath(path) if path is not None else None
    name = Path(file).name if file else "the database"
    return DatabaseDamagedError(name, line.replace(file, name) if file else line)


def _is_the_database(file: str, path: str | os.PathLike[str]) -> bool:
    """Whether DuckDB's ``file`` is the database at ``path`` or its write-ahead log."""
    database = Path(path).resolve()
    return Path(file).resolve() in (database, database.with_name(database.name + ".wal"))


def is_foreign_wal(exc: BaseException) -> bool:
    """Whether DuckDB refused a database because the write-ahead log beside it belongs to another file."""
    return "WAL does not match" in str(exc)


def _import_without_signals(name: str) -> Any:
    """``import name`` with Ctrl-C and SIGTERM held until it is done (on the main thread): a KeyboardInterrupt
    raised inside DuckDB's compiled core while it initialises aborts the process ("Critical nanobind error", exit
    -6); held, the signal is raised right after, as anywhere else. The CLI imports the core before its commands
    for the same reason, except for ``resolve``, which a fresh process answers from the names file without it."""
    import importlib
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        return importlib.import_module(name)
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        return importlib.import_module(name)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def engine() -> Any:
    """DuckDB's engine: ``connect``, the connection class and the exception types.

    The ``duckdb`` package re-exports them unchanged from its compiled core, ``_duckdb`` (``duckdb.connect is
    _duckdb.connect``), and adds a Python layer (relations, expressions, version metadata) that costs a fresh
    process ~150 ms of CPU to import — more than a one-name ``resolve`` spends on everything else. Point queries
    need only the core, so a process that has not imported the package yet connects through the core; once
    anything imports ``duckdb`` (an ingest, a search, a frame), both are the same objects. A DuckDB release
    without that core module falls back to the package (bench/bench_startup.py measures the difference).
    """
    import sys

    package = sys.modules.get("duckdb")
    if package is not None:
        return package
    try:
        core = _import_without_signals("_duckdb")
    except ImportError:
        core = None
    if core is not None and all(hasattr(core, n) for n in ("connect", "Error", "DuckDBPyConnection")):
        return core
    import duckdb

    return duckdb


#: What every DuckDB database file holds at :data:`_MAGIC_AT` (after its header's checksum).
DUCKDB_MAGIC = b"DUCK"
_MAGIC_AT = 8
EMPTY_FILE = "an empty file"
#: First bytes of the files a user is likely to give as the database by mistake, and what to call them.
_LOOKS_LIKE = (
    *((magic, f"{'an' if name == 'xz' else 'a'} {name} file") for magic, name in userfiles.COMPRESSION_MAGIC),
    (b"SQLite format 3\0", "a SQLite database"),
    (b"PAR1", "a Parquet file"),
)


def _head(path: str | os.PathLike[str], size: int) -> bytes | None:
    """The first ``size`` bytes of the regular file at ``path``; None for anything else (missing, unreadable, a
    pipe or device: reading /dev/stdout or a FIFO would wait for a writer)."""
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as handle:
            return handle.read(size)
    except OSError:
        return None


def is_duckdb_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a file that starts as every DuckDB database does (magic "DUCK" at offset 8)."""
    head = _head(path, _MAGIC_AT + len(DUCKDB_MAGIC))
    return head is not None and head[_MAGIC_AT:] == DUCKDB_MAGIC


def not_a_database(path: str | os.PathLike[str]) -> str | None:
    """What the file at ``path`` is when it is no DuckDB database, by its first bytes (DuckDB's magic "DUCK" at
    offset 8), never by an open error (DuckDB 2.0 answers a read-only open of JSON with "Cannot launch in-memory
    database"): :data:`EMPTY_FILE`, "a gzip file", "JSON text", … or "a file of another kind". None when it is a
    DuckDB file (damaged or not), does not exist, is no regular file or cannot be read (opening it says why)."""
    head = _head(path, 512)
    if head is None:
        return None
    if head[_MAGIC_AT : _MAGIC_AT + len(DUCKDB_MAGIC)] == DUCKDB_MAGIC:
        return None
    if not head:
        return EMPTY_FILE
    for start, kind in _LOOKS_LIKE:
        if head.startswith(start):
            return kind
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if text[:1] in (b"{", b"["):
        return "JSON text"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not merely a character cut at the 512th byte
            return "a file of another kind"
    return "a text file"


def check_database_file(path: str | os.PathLike[str]) -> None:
    """Raise :class:`NotADatabaseError` (one line: what the file is, what to do) when ``path`` names a file that
    is no DuckDB database (:func:`not_a_database`); the readers' check before they open it."""
    kind = not_a_database(path)
    if kind is None:
        return
    if kind == EMPTY_FILE:
        todo = (
            "build one there with `oracle-tools ingest --sample` (offline), `oracle-tools ingest` (Scryfall) or "
            "`oracle-tools ingest --bulk-file PATH`, or point --db at an existing one"
        )
    else:
        todo = "give --db an oracle-tools database such as data/oracle.duckdb, or build one at a new path"
    raise NotADatabaseError(f"--db {path}: is {kind}, not a DuckDB database; {todo}")


def connect_read_only(path: str | os.PathLike[str]) -> duckdb.DuckDBPyConnection:
    """A plain read-only connection to the database at ``path`` (:func:`opening_error` on failure,
    :class:`NotADatabaseError` for a file of another kind, and :class:`DatabaseOutdatedError` for a database of
    another schema version than this oracle-tools reads)."""
    check_database_file(path)
    duckdb = engine()
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise opening_error(path, exc) from exc
    _check_version(con, path)
    return con


def _check_version(con: duckdb.DuckDBPyConnection, path: str | os.PathLike[str]) -> None:
    """The one check of a database's schema version, as it is opened (closed when refused). A DuckDB file with no
    version and no ``cards`` table was built by no oracle-tools: that is said, not "an older oracle-tools"."""
    try:
        found = schema_version_of(con)
        if found is None and "cards" not in table_names(con):
            raise NotADatabaseError(
                f"--db {path}: is a DuckDB database but no oracle-tools one (it has no cards table); give --db an "
                "oracle-tools database such as data/oracle.duckdb, or build one at a new path with `oracle-tools "
                "ingest`"
            )
        schema_version.check(found, Path(path).name)
    except BaseException:
        con.close()
        raise


def schema_version_of(con: duckdb.DuckDBPyConnection, catalog: str | None = None) -> int | None:
    """The schema version (store/schema_version.py) the database of ``con``, or its attached ``catalog`` (one of
    ours), was built with; None for one built before versions were written. Read on a cursor of its own: a failed
    statement would abort a transaction of ``con``."""
    table = f"{catalog}.main.{schema_version.TABLE}" if catalog else schema_version.TABLE
    cursor = con.cursor()
    try:
        rows = cursor.execute(f"SELECT version FROM {table}").fetchall()  # no max(): an aggregate costs ~3 ms more
    except engine().CatalogException:
        return None
    finally:
        cursor.close()
    return int(rows[0][0]) if rows else None


@cache
def _private_spill_folder() -> str:
    """A folder only this process uses (mode 0700, removed at exit) for sandboxed queries' spills."""
    import atexit
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="oracle-tools-spill-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


def remove_spill_folder() -> None:
    """Remove this process's spill folder now, if it made one (after its sandboxed connections are closed): a
    server stopped by SIGTERM ends by that signal, and atexit never runs then."""
    import shutil

    if _private_spill_folder.cache_info().currsize:
        shutil.rmtree(_private_spill_folder(), ignore_errors=True)
        _private_spill_folder.cache_clear()


def sandboxed_connection(
    path: str | os.PathLike[str],
    *,
    memory_limit: str = SANDBOX_MEMORY_LIMIT,
    temp_limit: str = SANDBOX_TEMP_LIMIT,
    spill_folder: str | None = None,
) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the database at ``path`` for SQL that comes from users: no file, network or
    extension access, configuration locked, DuckDB's memory at most ``memory_limit`` and its spills at most
    ``temp_limit`` (DuckDB sizes such as "2GB"). Use ``.cursor()`` of it per thread. Statements should also pass
    :func:`check_read_only` first, so a refused one gets one clear line instead of DuckDB's permission error.

    DuckDB keeps one instance per file and process and refuses a second connection to the same file with a
    different configuration, so the sandbox is its own in-memory instance that attaches the file read-only
    (catalog named after the file, as a plain ``duckdb.connect`` names it) and makes it the default for every
    cursor (the in-memory catalog is detached): ``OracleDB.con`` and ``user_con`` live side by side.
    ``spill_folder``: a private empty folder its owner removes (a process that may be killed before its own exit
    runs: ``sql``'s child); by default this process's own, removed at exit.
    """
    import duckdb

    check_database_file(path)
    stem = Path(path).stem
    catalog = stem if stem.lower() not in _RESERVED_CATALOGS else "oracle"
    quoted_catalog = '"' + catalog.replace('"', '""') + '"'
    quoted_path = "'" + str(path).replace("'", "''") + "'"  # ATTACH takes no parameters; the path is ours
    # DuckDB allows its temp directory even with external access off, and its default (./.tmp) is a folder
    # anyone may have filled: spills go to a private, empty folder of this process instead.
    config = {
        **SANDBOX_CONFIG,
        "temp_directory": spill_folder or _private_spill_folder(),
        "memory_limit": memory_limit,
        "max_temp_directory_size": temp_limit,
    }
    con = duckdb.connect(":memory:", config=config)
    try:
        con.execute(f"ATTACH {quoted_path} AS {quoted_catalog} (READ_ONLY)")
        con.execute(f"USE {quoted_catalog}")
        con.execute("DETACH memory")
        for statement in _SANDBOX_AFTER_ATTACH:
            con.execute(statement)
    except duckdb.Error as exc:
        con.close()
        raise opening_error(path, exc) from exc
    except BaseException:
        con.close()
        raise
    _check_version(con, path)
    return con


def table_names(con: duckdb.DuckDBPyConnection, *, catalog: str | None = None, views: bool = False) -> list[str]:
    """The tables (and with ``views`` the views) of the main schema of ``con``'s database, or of its attached
    ``catalog``, sorted: the one listing of the catalog, for the user (``tables``, export), the views' build, and
    the database an ingest replaces (which may be older). Never asked of an opened database to learn whether it
    is older: its schema version says (store/schema_version.py)."""
    query = (
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
        "AND database_name = coalesce($catalog, current_database())"
    )
    if views:
        query += (
            " UNION SELECT view_name FROM duckdb_views() WHERE schema_name = 'main' AND NOT internal "
            "AND database_name = coalesce($catalog, current_database())"
        )
    return [n for (n,) in con.execute(query + " ORDER BY 1", {"catalog": catalog}).fetchall()]


def column_names(con: duckdb.DuckDBPyConnection, table: str, *, catalog: str) -> set[str]:
    """The columns of ``table`` in the attached ``catalog`` (the database an ingest replaces, which may be older)."""
    return {
        c
        for (c,) in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE database_name = ? AND schema_name = 'main' "
            "AND table_name = ?",
            [catalog, table],
        ).fetchall()
    }


@cache
def load(name: str) -> str:
    """The text of ``oracle_tools/sql/<name>`` (found beside this module, as resources.package_data says why)."""
    return (SQL_DIR / name).read_text(encoding="utf-8")


def frame(
    con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] | dict[str, Any] | None = None
) -> pl.DataFrame:
    """Run a query with bound parameters and return a Polars frame (works on DuckDB 1.3 and 2.x)."""
    # the package's Python layer gives connections .sql: one made through engine()'s core has none until then
    import duckdb  # noqa: F401

    with finished(con):
        return polars_frame(con.sql(sql, params=params or None))


def polars_frame(relation: duckdb.DuckDBPyRelation) -> pl.DataFrame:
    """A query's result as a Polars frame, through the Arrow C stream interface both speak (``.pl()`` goes
    through a pyarrow table: importing pyarrow costs a process ~40 MB and ~0.1 s)."""
    import polars as pl

    if len(set(relation.columns)) < len(relation.columns):  # .pl() names the second 'name' 'name_1': Polars refuses
        return relation.pl()
    return pl.DataFrame(relation)


class ArrowStream:
    """A Polars frame as DuckDB scans it (``con.register(view, ArrowStream(frame))``): through the Arrow C stream
    interface, not a pyarrow table (see :func:`polars_frame`). Each scan of the view reads the frame again."""

    def __init__(self, data: pl.DataFrame) -> None:
        self._data = data

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self._data.__arrow_c_stream__(requested_schema)


def finish(con: Any) -> None:
    """Cancel whatever result of a statement is left unread on ``con``. DuckDB 2.x keeps an unread (or failed,
    or interrupted) result of ``execute()`` open, and refuses every later query of the connection with "Resource
    In Use Error: connection has an unfinished result from execute()": one search that failed would make every
    later search of that connection (a server thread's, ``OracleDB.search``'s) fail the same way. DuckDB 1.x has
    no such state (nor ``abort``): nothing to do there."""
    abort = getattr(con, "abort", None)
    if abort is not None:
        with contextlib.suppress(Exception):  # a closed connection has nothing to finish
            abort()


@contextlib.contextmanager
def finished(con: Any) -> Iterator[None]:
    """Run the block's statements on ``con``; whatever happens in it (an error, a time limit, Ctrl-C), no result
    is left unfinished on ``con`` after it (:func:`finish`)."""
    try:
        yield
    finally:
        finish(con)


def write_frame(con: duckdb.DuckDBPyConnection, table: str, data: pl.DataFrame, *, order_by: str = "") -> None:
    """Store ``data`` as table ``table`` (replacing it), through Arrow, rows in ``order_by`` order if given.
    ``table`` and ``order_by`` are the layers' own constants, never user text (they cannot be parameters)."""
    view = f"{table}_frame"
    con.register(view, ArrowStream(data))
    try:
        con.execute(
            f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM {view}" + (f" ORDER BY {order_by}" if order_by else "")
        )
    finally:
        con.unregister(view)


#: (column names, rows as Python values, the total row count: more than the rows when a limit cut them)
Rows = tuple[list[str], list[tuple[Any, ...]], int]


def rows(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    params: Sequence[Any] | dict[str, Any] | None = None,
    *,
    limit: int | None = None,
    stop: QueryStop | None = None,
) -> Rows:
    """Run a query with bound parameters and return its rows as Python values: no Polars, no Arrow (about
    0.2 s of imports), for a fresh process that prints one answer (the CLI's ``sql``, ``search``). With
    ``limit``, only the first ``limit`` rows become Python values and DuckDB counts the rest: a table that
    shows 50 of 300,000 rows does not build 300,000 tuples. Repeated column names get ``_1``, ``_2`` … as in
    a Polars frame, so no value is lost in a dict. ``stop`` ends the query on a time limit or Ctrl-C."""
    cursor = con.cursor()
    try:
        with watching(stop, cursor):
            relation = printable(cursor.sql(sql, params=params or None))
            columns = unique_columns(relation.columns)
            if limit is None:
                every = relation.fetchall()
                return columns, every, len(every)
            head = relation.limit(limit + 1).fetchall()
            if len(head) <= limit:
                return columns, head, len(head)
            counted = relation.aggregate("count(*)").fetchall()  # DuckDB 1.3 and 2.x (no fetchone in 2.x)
            return columns, head[:limit], int(counted[0][0])
    finally:
        cursor.close()


def stream(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    params: Sequence[Any] | dict[str, Any] | None = None,
    *,
    batch_rows: int = 10_000,
    stop: QueryStop | None = None,
) -> tuple[list[str], Iterator[list[tuple[Any, ...]]]]:
    """:func:`rows` for writing every row (``sql --csv/--json``): the column names and the rows in batches
    of ``batch_rows`` (``fetchmany`` of the result), so 30 million rows never sit in memory at once. No Polars
    or Arrow is imported: a one-query process starts as fast as for the table. One watch of ``stop`` covers
    the query from its start to its last batch."""
    streamed = _streamed(con, sql, params, batch_rows, stop)
    columns: list[str] = next(streamed)  # runs the query: its errors are raised here, before any output
    return columns, streamed


def _streamed(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    params: Sequence[Any] | dict[str, Any] | None,
    batch_rows: int,
    stop: QueryStop | None,
) -> Iterator[Any]:
    """The column names, then the batches of rows (see :func:`stream`)."""
    cursor = con.cursor()
    try:
        with watching(stop, cursor):
            relation = cursor.sql(sql, params=params or None)
            projection = text_columns(relation)  # run as the relation would, with its text columns
            cursor.execute(relation.project(projection).sql_query() if projection else sql, params or None)
            yield unique_columns(relation.columns)
            while batch := cursor.fetchmany(batch_rows):
                yield batch
    finally:
        cursor.close()


def watching(stop: QueryStop | None, cursor: Any) -> contextlib.AbstractContextManager[None]:
    """``stop.watching(cursor)``, or nothing to watch with when there is no ``stop``."""
    return stop.watching(cursor) if stop is not None else contextlib.nullcontext()


#: Seconds a search from the HTTP server or an MCP tool may run by default (``serve``/``mcp --query-timeout``).
SERVED_QUERY_TIMEOUT = 10.0


class QueryStop:
    """Stops the query running on a cursor after ``timeout`` seconds or on Ctrl-C (:meth:`interrupt`, which
    the CLI calls from its SIGINT handler): DuckDB's ``interrupt()`` ends any query, a cross join included,
    within milliseconds. The query's error then becomes :meth:`reason`: KeyboardInterrupt or a
    :class:`QueryTimeoutError` saying what to do."""

    def __init__(
        self,
        timeout: float | None = None,
        *,
        what: str = "the query",
        advice: str = "narrow it (a WHERE, a LIMIT) or give it more time (--timeout SECONDS)",
    ) -> None:
        self.timeout = timeout
        self.what = what
        self.advice = advice
        self.stopped: str | None = None  # "timeout" or "interrupted"
        self._cursor: Any = None
        self._timer: Any = None
        self._done: Any = None

    def watch(self, cursor: Any) -> None:
        """Start watching the queries ``cursor`` runs until :meth:`unwatch`."""
        import threading

        self._cursor = cursor
        self._done = threading.Event()
        if self.timeout:
            self._timer = threading.Thread(target=self._deadline, args=(self._done, cursor), daemon=True)
            self._timer.start()

    def _deadline(self, done: Any, cursor: Any) -> None:
        if done.wait(self.timeout):
            return
        self.stopped = "timeout"
        while not done.is_set():  # again until unwatched: the deadline may fall between two statements
            cursor.interrupt()
            done.wait(0.02)

    @contextlib.contextmanager
    def watching(self, cursor: Any) -> Iterator[None]:
        """Watch ``cursor`` for the block; an error of a query this stopped becomes :meth:`reason` (an interrupted
        query fails as DuckDB's InterruptException, an OSError through Arrow, or whatever a caller made of it)."""
        self.watch(cursor)
        try:
            yield
        except Exception as exc:
            if self.stopped:
                raise self.reason(exc) from None
            raise
        finally:
            self.unwatch()

    def unwatch(self) -> None:
        if self._done is not None:
            self._done.set()
        self._cursor = self._timer = self._done = None

    def interrupt(self) -> bool:
        """Stop the running query (Ctrl-C); False when none runs (the caller then stops as usual)."""
        cursor = self._cursor
        if cursor is None:
            return False
        self.stopped = "interrupted"
        cursor.interrupt()
        return True

    def reason(self, exc: BaseException) -> BaseException:
        if self.stopped == "timeout":
            return QueryTimeoutError(f"{self.what} ran longer than {self.timeout:g} s and was stopped; {self.advice}")
        return KeyboardInterrupt()


#: Types whose Python value is not what DuckDB shows: 'infinity'::DATE would become 9999-12-31, an interval
#: a timedelta, a time zone a pytz object. These columns are read as DuckDB's own text instead.
_AS_TEXT = ("DATE", "TIME", "TIMESTAMP", "INTERVAL")


def printable(relation: duckdb.DuckDBPyRelation) -> duckdb.DuckDBPyRelation:
    """``relation`` with its date, time, timestamp and interval columns as DuckDB writes them (text), the rest
    unchanged; repeated column names made unique (:func:`unique_columns`)."""
    projection = text_columns(relation)
    return relation.project(projection) if projection else relation


def text_columns(relation: duckdb.DuckDBPyRelation) -> str | None:
    """The projection that reads ``relation``'s temporal columns as text (see :data:`_AS_TEXT`), or None when
    it has none."""
    types = [str(t) for t in relation.types]
    if not any(t.startswith(_AS_TEXT) for t in types):
        return None
    names = unique_columns(relation.columns)
    return ", ".join(
        f"{'CAST(#' + str(i) + ' AS VARCHAR)' if t.startswith(_AS_TEXT) else '#' + str(i)} AS {quote_identifier(n)}"
        for i, (n, t) in enumerate(zip(names, types, strict=True), 1)
    )


def quote_identifier(name: str) -> str:
    """``name`` as a quoted SQL identifier (a column name a query gave)."""
    return '"' + name.replace('"', '""') + '"'


def unique_columns(names: Iterable[str]) -> list[str]:
    """Column names with a repeated one suffixed ``_1``, ``_2`` … (``SELECT 1 AS a, 2 AS a``)."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for name in names:
        n = seen.get(name, 0)
        seen[name] = n + 1
        out.append(name if n == 0 else f"{name}_{n}")
    return out
