"""``OracleDB``: the one central class. A read-only DuckDB connection plus one method per domain.

>>> from oracle_tools import OracleDB
>>> OracleDB.ingest_sample("data/oracle.duckdb")                # doctest: +SKIP
>>> db = OracleDB("data/oracle.duckdb")                         # doctest: +SKIP
>>> db.frame("cards").shape                                     # doctest: +SKIP
>>> db.resolve("Fire/Ice").name                                 # doctest: +SKIP
'Fire // Ice'
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar, overload

from oracle_tools.errors import (
    ArgumentError,
    DatabaseMissingError,
    DecklistError,
    NameNotFoundError,
    NamesFileDamagedError,
    NotFoundError,
    OracleToolsError,
)
from oracle_tools.store.lazy import LazyModule
from oracle_tools.text.counts import counted

if TYPE_CHECKING:
    import duckdb
    import polars as pl

    from oracle_tools import ingest as _ingest
    from oracle_tools.choose import chooser as _choose
    from oracle_tools.decks import checker as _decks
    from oracle_tools.history import changes as _changes
    from oracle_tools.names import index as _index
    from oracle_tools.names import point as _point
    from oracle_tools.names import resolver as _resolver
    from oracle_tools.names import same_name as _same_name
    from oracle_tools.names import stored as _stored
    from oracle_tools.store import sqlfiles
    from oracle_tools.tokens import answers as _tokens
else:  # imported on first use: `--help` imports none of them, a single lookup neither Polars nor rapidfuzz
    duckdb, pl, _ingest, _index, _point, _same_name, _stored, sqlfiles = (
        LazyModule(m)
        for m in (
            "duckdb",
            "polars",
            "oracle_tools.ingest",
            "oracle_tools.names.index",
            "oracle_tools.names.point",
            "oracle_tools.names.same_name",
            "oracle_tools.names.stored",
            "oracle_tools.store.sqlfiles",
        )
    )

DEFAULT_DB = Path("data") / "oracle.duckdb"
#: Names one batch resolve (:meth:`OracleDB.resolve_many`) takes from a client of the HTTP server or the MCP
#: server, each the same number (a deck check takes 1,000: decks.MAX_DECK_NAMES; a decklist a few hundred).
MAX_BATCH_NAMES = 5_000


def _name_argument(value: object, argument: str, *, nameless: bool = False) -> str:
    """The one check of a name a method is given: a ``str`` (TypeError naming the argument otherwise: a None or a
    number is a caller's slip, not a name that names nothing), not blank (unless ``nameless``: an object with no
    name), and Unicode text that can be written as UTF-8 (a lone surrogate, from bytes decoded with
    ``surrogateescape`` or a JSON ``\\ud800``, reached DuckDB as its own conversion error): ArgumentError, a
    ValueError."""
    if not isinstance(value, str):
        raise TypeError(f"{argument} must be a str (a card name), not {type(value).__name__}")
    if not nameless and not value.strip():
        raise ArgumentError(f"{argument} is empty; give a card name such as 'Lightning Bolt' or 'Fire // Ice'")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ArgumentError(
            f"{argument} is not valid Unicode text: a lone surrogate (U+{ord(value[exc.start]):04X}) at position "
            f"{exc.start}; give it as text (bytes decoded as UTF-8)"
        ) from None
    return value


T = TypeVar("T")

#: How many names a miss suggests unless told (``resolve``, and every door's ``suggest``), and the most it may ask for.
DEFAULT_SUGGESTIONS, MAX_SUGGESTIONS = 5, 50


def _suggest_argument(value: object) -> int:
    """How many suggestions a miss is given: an int from 0 (none: a caller that only asks whether each name is one,
    as an exact lookup does) to MAX_SUGGESTIONS."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"suggest must be an int (how many names a miss suggests), not {type(value).__name__}")
    if not 0 <= value <= MAX_SUGGESTIONS:
        raise ArgumentError(f"suggest={value} is out of range; give 0 (no suggestions) to {MAX_SUGGESTIONS}")
    return value


def _query_argument(value: object) -> str:
    """A search query's check: :func:`_name_argument`'s kinds (TypeError for no ``str``, ArgumentError for a lone
    surrogate, which DuckDB refused as a "Python Conversion Failure" and which left the connection unusable for
    the next search); an empty query is allowed (it finds every card, as Scryfall's empty search box)."""
    if not isinstance(value, str):
        raise TypeError(f"query must be a str (a Scryfall search such as 't:goblin c:r'), not {type(value).__name__}")
    return _name_argument(value, "query", nameless=True)


#: What a decklist file is named, as ``check_deck``'s one-line ``str`` that names no file is told from a decklist.
_DECK_FILE_SUFFIXES = (".txt", ".dek", ".dec", ".json", ".csv", ".mwdeck", ".cod", ".deck")


def _missing_deck_file(deck: object) -> str | None:
    """A one-line ``str`` that reads as the path of a decklist file which does not exist: text of one card line
    is never written so (``decks/nope.txt``, ``./deck``, ``~/lists/x``); None otherwise."""
    if not isinstance(deck, str) or "\n" in deck or len(deck) > 4096:
        return None
    line = deck.strip()
    looks_like_path = line.lower().endswith(_DECK_FILE_SUFFIXES) or line.startswith(("/", "./", "../", "~"))
    if not looks_like_path or " // " in line:
        return None
    try:
        return None if Path(line).expanduser().exists() else line
    except (OSError, ValueError):  # a name too long for the system, a NUL
        return line


def _bulk_file(file: str | os.PathLike[str] | BinaryIO) -> Path | BinaryIO:
    """A bulk file argument as the ingest takes it: an open binary file object as it is, else a path."""
    if isinstance(file, str | os.PathLike):
        return Path(file)
    return file


def _file_stamp(path: Path) -> tuple[int, int, int] | None:
    """The stamp (names/stored.py) of the database file at ``path``, None when it cannot be read."""
    try:
        return _stored.file_stamp(path)
    except OSError:
        return None


def default_db_path() -> Path:
    """``$ORACLE_TOOLS_DB``, else ``data/oracle.duckdb`` under the current directory."""
    return Path(os.environ.get("ORACLE_TOOLS_DB") or DEFAULT_DB)


class OracleDB:
    """The Oracle card reference in a DuckDB file, opened read-only.

    Only ``ingest`` writes, and it writes a new file that replaces the old one atomically,
    so any number of readers (notebooks, the CLI) can have the database open.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self._con: duckdb.DuckDBPyConnection | None = None
        self._con_stamp: tuple[int, int, int] | None = None  # the stamp of the file self._con reads (names.stored)
        self._stored_names: _stored.StoredNames | None = None  # the names file's strategy (names/stored.py)
        self._stored_looked = False  # whether it was looked for
        self._user_con: duckdb.DuckDBPyConnection | None = None
        #: The memory :attr:`user_con`'s queries may use (a DuckDB size; set before its first use).
        self.sql_memory_limit = sqlfiles.SANDBOX_MEMORY_LIMIT
        self._build_lock = threading.RLock()  # the name index, chooser and deck checker are built once
        self._forget_answerers()

    def _forget_answerers(self) -> None:
        """The objects that answer names (CR 201) and the questions built on them, each built on first need:
        the strategies of the one ``resolve`` built here — SQL point queries for the first few single lookups, the
        warm in-memory index after them or for batches (:meth:`_names` chooses; the names file, when the ingest
        wrote a valid one, answers every single lookup instead of both: :meth:`_names_file`) — and the choosers and
        deck checkers over each."""
        self._name_index: _index.NameIndex | None = None
        self._point_names: _point.PointNames | None = None
        self._single_lookups = 0
        self._name_chooser: _choose.NameChooser | None = None
        self._deck_checker: _decks.DeckChecker | None = None
        self._point_deck_checker: _decks.PointDeckChecker | None = None

    # -- connection ------------------------------------------------------------------------

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            self._check_exists()
            before = _file_stamp(self.path)
            con = sqlfiles.connect_read_only(self.path)
            after = _file_stamp(self.path)
            self._con_stamp = before if before == after else None  # replaced while opening: which one is unknown
            if self._stored_names is not None and (
                self._con_stamp is None or not self._stored_names.stamp_is(self._con_stamp)
            ):
                # an ingest replaced the file since the names file was opened: names come from the database read
                self._stored_names.close()
                self._stored_names = None
                self._forget_answerers()
            self._con = con
        return self._con

    def _names_file(self) -> _stored.StoredNames | None:
        """The names file's strategy (names/stored.py), when the ingest wrote one for this very database file
        (opened once: it answers for the file :attr:`con` reads, or would open now)."""
        if not self._stored_looked:
            with self._build_lock:
                if not self._stored_looked:
                    stamp = self._con_stamp if self._con is not None else None
                    if self._con is None or stamp is not None:
                        self._stored_names = _stored.StoredNames.open(self.path, stamp)
                    self._stored_looked = True
        stored = self._stored_names
        return None if stored is None or stored.damaged else stored

    def _asking_names(self, answer: Callable[[], T]) -> T:
        """``answer()``, asked again of the database when the names file failed a read under it (damaged since the
        ingest wrote it: :meth:`_names_file` no longer gives it): a names file is a copy, never the only source."""
        try:
            return answer()
        except NamesFileDamagedError:
            return answer()

    def _check_exists(self) -> None:
        if self.path.is_dir():
            raise DatabaseMissingError(
                f"{self.path.absolute()} is a folder, not a database file; give the file, such as "
                f"{self.path / 'oracle.duckdb'}"
            )
        if not self.path.exists():
            raise DatabaseMissingError(
                f"no database at {self.path.absolute()}. Build one there: `oracle-tools ingest --sample` "
                "(offline), `oracle-tools ingest` (Scryfall), or `oracle-tools ingest --bulk-file PATH`; "
                "or point --db / ORACLE_TOOLS_DB at an existing one."
            )
        from oracle_tools.store.userfiles import check_database_path

        check_database_path(self.path)  # a FIFO would block the open forever

    @property
    def user_con(self) -> duckdb.DuckDBPyConnection:
        """The sandboxed connection for SQL derived from user input (``sql``, search, the HTTP server):
        read-only, no file/network access, no extensions, configuration locked (``sqlfiles.SANDBOX_CONFIG``).
        Opened on first use; use ``.cursor()`` of it per thread."""
        if self._user_con is None:
            self._check_exists()  # the same clear error as `con`, without opening a second connection
            self._user_con = sqlfiles.sandboxed_connection(self.path, memory_limit=self.sql_memory_limit)
        return self._user_con

    def close(self) -> None:
        if self._user_con is not None:
            self._user_con.close()
            self._user_con = None
        if self._con is not None:
            self._con.close()
            self._con = None
        if self._stored_names is not None:
            self._stored_names.close()
        self._stored_names, self._stored_looked = None, False
        self._forget_answerers()

    def on_connection(
        self,
        con: duckdb.DuckDBPyConnection,
        user_cursor: Callable[[], duckdb.DuckDBPyConnection] | None = None,
    ) -> OracleDB:
        """This database answering on ``con``, a cursor of :attr:`con` for one thread (a DuckDB connection serves
        one thread at a time). The name index, name chooser and deck checker are this object's, built once and
        shared: they read the database while being built, then answer from memory; whatever reads the database
        per call (point lookups, tokens, changes, a format's legalities) reads it on ``con``. The HTTP server
        gives each worker thread one, so no request waits for another's (docs/serve.md).

        Its :attr:`user_con` is a cursor of this object's one sandbox, not a sandboxed instance of its own (each
        may take ``sql_memory_limit``): ``user_cursor()`` when given (the caller then registers and closes it),
        else a cursor the view opens on first use and closes in ``close()``."""
        return _OnConnection(self, con, user_cursor)

    def __enter__(self) -> OracleDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingest (the only writer) ---------------------------------------------------------------

    @classmethod
    def ingest_files(
        cls,
        path: str | os.PathLike[str] | None,
        files: Sequence[str | os.PathLike[str] | BinaryIO],
        *,
        rules_file: str | os.PathLike[str] | None = None,
        progress: bool = False,
        interchangeable_file: str | os.PathLike[str] | None = None,
        wait: bool = False,
        replace_anyway: bool = False,
    ) -> OracleDB:
        """Build (or rebuild) the database at ``path`` from local Scryfall bulk files (``wait``: for another
        ingest writing it; ``replace_anyway``: even with fewer than half its cards, as ``ingest`` options). A file
        may be a stream, as ``oracle-tools ingest`` reads it: a named pipe, ``/dev/fd/N`` (a pipe such as
        ``<(zcat …)``), ``-`` (standard input) or an open binary file object (read from where it stands, left
        open); a stream is copied first, at most :data:`~oracle_tools.store.object_limits.STREAM_BYTES`."""
        db = cls(path)
        ingest = _ingest.Ingest(
            db.path,
            progress=progress,
            interchangeable_file=interchangeable_file,
            wait=wait,
            replace_anyway=replace_anyway,
        )
        rules = Path(rules_file) if rules_file else None
        ingest.check_side_files(rules)  # before sniffing opens a card file: a bad side file is said at once
        _ingest.ingest_bulk_files(ingest, [_bulk_file(f) for f in files], rules_file=rules)
        return db

    @classmethod
    def ingest_sample(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        progress: bool = False,
        wait: bool = False,
        replace_anyway: bool = False,
    ) -> OracleDB:
        """Build the database from the embedded real sample in data/sample/ (no network)."""
        db = cls(path)
        _ingest.Ingest(db.path, progress=progress, wait=wait, replace_anyway=replace_anyway).run(
            _ingest.sample_sources()
        )
        return db

    @staticmethod
    def ingest(
        path: str | os.PathLike[str] | None = None,
        *,
        sample: bool = False,
        bulk_files: Sequence[str | os.PathLike[str] | BinaryIO] = (),
        types: Sequence[str] = ("oracle_cards", "default_cards", "rulings"),
        api_url: str | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        rules_file: str | os.PathLike[str] | None = None,
        rules_url: str | None = None,
        interchangeable_file: str | os.PathLike[str] | None = None,
        wait: bool = False,
        replace_anyway: bool = False,
        progress: bool = False,
    ) -> _ingest.IngestReport:
        """Build (or rebuild) the database at ``path`` as ``oracle-tools ingest`` does, and say what was read and
        written: from the embedded ``sample``, local ``bulk_files``, only a rules file (the existing cards kept), or
        else the Scryfall API's bulk files of ``types`` and its set list, downloaded into ``cache_dir`` (default:
        ``$ORACLE_TOOLS_CACHE``, else ``cache`` beside the database). ``rules_url`` downloads the rules text. A bulk
        file may be a stream (:meth:`ingest_files`)."""
        return _ingest.build(
            Path(path) if path is not None else default_db_path(),
            sample=sample,
            bulk_files=[_bulk_file(f) for f in bulk_files],
            types=types,
            api_url=api_url,
            cache_dir=Path(cache_dir) if cache_dir is not None else None,
            rules_file=Path(rules_file) if rules_file is not None else None,
            rules_url=rules_url,
            interchangeable_file=Path(interchangeable_file) if interchangeable_file is not None else None,
            wait=wait,
            replace_anyway=replace_anyway,
            progress=progress,
        )

    # -- tables and SQL -----------------------------------------------------------------------

    def tables(self) -> list[str]:
        return sqlfiles.table_names(self.con, views=True)

    def frame(self, table: str, *, lazy: bool = False) -> pl.DataFrame | pl.LazyFrame:
        """A whole table or view as a Polars frame (``lazy=True`` for a LazyFrame)."""
        available = self.tables()  # the views too
        if table not in available:
            raise OracleToolsError(f"no table or view named {table!r}; available: {', '.join(available)}")
        frame = sqlfiles.frame(self.con, f'SELECT * FROM "{table}"')  # name checked against the catalog above
        return frame.lazy() if lazy else frame

    def views(self) -> list[str]:
        tables = set(sqlfiles.table_names(self.con))
        return [name for name in sqlfiles.table_names(self.con, views=True) if name not in tables]

    def sql(self, query: str, params: Sequence[Any] | dict[str, Any] | None = None) -> pl.DataFrame:
        """Run one read-only query (parameters bound, never pasted) on the sandboxed :attr:`user_con` and
        return a Polars frame. Anything but a query (COPY, EXPORT, ATTACH, SET, INSTALL, CREATE, …) raises
        ``ReadOnlySQLError``; writing files is what :meth:`export` is for."""
        sqlfiles.check_read_only(query)
        return sqlfiles.frame(self.user_con, query, params)

    def sql_rows(
        self,
        query: str,
        params: Sequence[Any] | dict[str, Any] | None = None,
        *,
        limit: int | None = None,
        stop: sqlfiles.QueryStop | None = None,
    ) -> sqlfiles.Rows:
        """:meth:`sql` as (column names, rows of Python values, total row count): the same checks and sandbox,
        without loading Polars (what ``oracle-tools sql`` prints from); ``limit`` keeps the first rows only;
        ``stop`` ends the query on a time limit or Ctrl-C."""
        sqlfiles.check_read_only(query)
        return sqlfiles.rows(self.user_con, query, params, limit=limit, stop=stop)

    def sql_stream(
        self,
        query: str,
        params: Sequence[Any] | dict[str, Any] | None = None,
        *,
        stop: sqlfiles.QueryStop | None = None,
    ) -> tuple[list[str], Iterator[list[tuple[Any, ...]]]]:
        """:meth:`sql_rows` of every row, in batches (what ``oracle-tools sql --csv/--json`` writes as it reads)."""
        sqlfiles.check_read_only(query)
        return sqlfiles.stream(self.user_con, query, params, stop=stop)

    # -- analytics: lazy frames and export (oracle_tools/store/export.py, views in sql/views.sql) ----

    def lazy(
        self, table: str | None = None, *, sql: str | None = None, params: Sequence[Any] | dict[str, Any] | None = None
    ) -> pl.LazyFrame:
        """A Polars LazyFrame over a table/view (name checked against the catalog) or a query. A query is the
        caller's text: like :meth:`sql` it must be one read-only query and runs on the sandboxed :attr:`user_con`."""
        from oracle_tools.store import export as _export

        if sql is None:
            return _export.lazy(self.con, _export.source_sql(self.con, table, None), params)
        query = _export.source_sql(self.user_con, table, sql)
        sqlfiles.check_read_only(query, command="lazy(sql=…)")
        return _export.lazy(self.user_con, query, params)

    def export(
        self,
        table: str | None,
        path: str | os.PathLike[str],
        *,
        sql: str | None = None,
        params: Sequence[Any] | dict[str, Any] | None = None,
        format: str | None = None,
        overwrite: bool = False,
    ) -> dict[str, Any]:
        """Write a table/view or a query to Parquet or CSV (format from the suffix unless given). An existing file
        at ``path`` is refused unless ``overwrite`` (a DuckDB database, the one read above all, always is)."""
        from oracle_tools.store import export as _export

        return _export.export(
            self.user_con, table, path, sql=sql, params=params, format=format, db_path=self.path, overwrite=overwrite
        )

    def info(self) -> dict[str, Any]:
        """Sources, snapshot dates, row counts per table and per layout."""
        con = self.con
        runs = con.execute(
            "SELECT run_id, started_at, source, kind, file, bulk_type, updated_at, rows, round(seconds, 3) "
            "FROM ingest_runs ORDER BY run_id, file"
        ).fetchall()
        rules = next(iter(con.execute("SELECT effective_date, source, rule_count FROM rules_meta").fetchall()), None)
        return {
            "db": str(self.path.absolute()),
            "size_bytes": self.path.stat().st_size,
            "runs": [
                dict(
                    zip(
                        (
                            "run_id",
                            "started_at",
                            "source",
                            "kind",
                            "file",
                            "bulk_type",
                            "updated_at",
                            "rows",
                            "seconds",
                        ),
                        (r[0], str(r[1]), *r[2:]),
                    )
                )
                for r in runs
            ],
            "newest_printing": str(con.execute("SELECT max(released_at) FROM printings").fetchall()[0][0]),
            "rules": {"effective_date": str(rules[0]), "source": rules[1], "rules": rules[2]} if rules else None,
            "tables": {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0][0] for t in self.tables()},
            "layouts": dict(
                con.execute(
                    "SELECT layout, count(*) FROM cards GROUP BY layout ORDER BY count(*) DESC, layout"
                ).fetchall()
            ),
            "unknown_layouts": dict(
                con.execute(
                    "SELECT layout, count(*) FROM cards WHERE layout NOT IN (SELECT layout FROM layouts) "
                    "GROUP BY layout ORDER BY layout"
                ).fetchall()
            ),
            "object_kinds": dict(
                con.execute("SELECT object_kind, count(*) FROM cards GROUP BY 1 ORDER BY 2 DESC").fetchall()
            ),
            "languages": dict(
                con.execute("SELECT lang, count(*) FROM printings GROUP BY 1 ORDER BY 2 DESC").fetchall()
            ),
            "temp_files": [
                {"file": str(path), "size_bytes": path.stat().st_size, "ingest_running": running}
                for path, running in _ingest.temp_files(self.path)
                if path.exists()
            ],
        }

    def card_objects(
        self, *, ids: Sequence[str] | None = None, oracle_ids: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """Scryfall card objects in input order: one per printing id (``ids``), or one per Oracle id (``oracle_ids``,
        its representative printing); ids the database does not have are left out (oracle_tools/scryfall/cardjson.py).
        Read on the sandboxed :attr:`user_con`, where searches run."""
        from oracle_tools.scryfall.cardjson import card_objects

        return card_objects(self.user_con, ids=ids, oracle_ids=oracle_ids)

    def named_printing(
        self,
        name: str,
        *,
        fuzzy: bool = False,
        set_code: str | None = None,
        representatives: Callable[[Sequence[str]], Mapping[str, str]] | None = None,
    ) -> str:
        """The printing id Scryfall's ``/cards/named?exact=|fuzzy=[&set=]`` answers for ``name``
        (oracle_tools/scryfall/lookups.py ``named_printing``): the card :meth:`resolve` names, a name several Oracle
        cards print (CR 201.2a) answered by the first printed, then its printing in ``set_code`` or its
        representative printing. NameNotFoundError when no card or several have the name (``ambiguous``),
        NotFoundError when no printing (in the set) is in the database; each message in Scryfall's words.
        ``representatives``: a caller's kept ``{oracle_id: printing id}`` lookup (the server's per database
        generation) instead of asking the database each time."""
        from oracle_tools.scryfall import cardjson, lookups

        result = self.resolve(name, fuzzy=fuzzy)
        con = self.con
        if representatives is None:

            def representatives(oracle_ids: Sequence[str]) -> Mapping[str, str]:
                return cardjson.representative_ids(con, oracle_ids)

        return lookups.named_printing(con, name, result, set_code, representatives)

    def catalog(self, name: str) -> list[str]:
        """Scryfall's catalog ``name`` (``creature-types``, ``card-names``, ``keyword-abilities`` …) computed from
        this database (oracle_tools/scryfall/catalogs.py); OracleToolsError for a name Scryfall has no catalog for."""
        from oracle_tools.scryfall import catalogs

        return catalogs.catalog(self.con, name)

    @overload
    def sets(self, code_or_id: None = None, *, base_url: str | None = None) -> list[dict[str, Any]]: ...
    @overload
    def sets(self, code_or_id: str, *, base_url: str | None = None) -> dict[str, Any]: ...
    def sets(
        self, code_or_id: str | None = None, *, base_url: str | None = None
    ) -> list[dict[str, Any]] | dict[str, Any]:
        """Scryfall set objects (oracle_tools/scryfall/sets.py), newest first: Scryfall's own where the ingest kept its set
        list, else built from the printings; with ``code_or_id`` the one set with that code or Scryfall id
        (NotFoundError when there is none). ``base_url``: the objects' API links point there (the server's address)."""
        from oracle_tools.scryfall import sets as _sets

        found = _sets.set_objects(self.con, base_url=base_url)
        if code_or_id is None:
            return found
        one = _sets.find_set(found, code_or_id)
        if one is None:
            raise NotFoundError(
                f"no set with code or id {code_or_id!r} in this database: `oracle-tools sets` lists the ones it has"
            )
        return one

    def symbology(self) -> list[dict[str, Any]]:
        """Scryfall's card symbol objects: the symbols the Comprehensive Rules define and the cards use
        (oracle_tools/scryfall/symbology.py)."""
        from oracle_tools.scryfall import symbology

        return symbology.symbols(self.con)

    @staticmethod
    def parse_mana(cost: str) -> dict[str, Any]:
        """Scryfall's ``mana_cost`` object of ``cost`` (``2WW``, ``{2}{W}{W}``, ``2{g}2`` …); ManaCostError when a part
        is not a mana symbol."""
        from oracle_tools.scryfall import symbology

        return symbology.parse_mana(cost)

    # -- what changed from one ingest to the next (oracle_tools/history/changes.py) ------------------------

    def _change_selection(
        self, since: str | dt.date | None, run: int | None, format: str | None, card: str | None
    ) -> _changes.Selection:
        from oracle_tools.history import changes as _changes

        oracle_id = None
        if card is not None:
            found = self.resolve(card)  # a former name finds the renamed card too
            if not found.ok:
                raise NameNotFoundError(found.miss_message(), ambiguous=found.status == "ambiguous")
            oracle_id = found.oracle_id
        if format is not None:
            format = self._legality_key(format)
        return _changes.selection(self.con, since=since, run=run, format=format, oracle_id=oracle_id)

    def _legality_key(self, format: str) -> str:
        """The legalities' key of a format named as deck checks and ``f:`` name it (one table,
        ``decks/formats.py``: ``edh`` is commander, ``Duel Commander`` duel); a key the legalities hold is kept as
        it is (``historicbrawl`` in a file of 2019), and a name neither knows is left for the caller to refuse."""
        from oracle_tools.decks.formats import format_rules

        if self.con.execute("SELECT 1 FROM legalities WHERE format = ? LIMIT 1", [format]).fetchone():
            return format
        try:
            return format_rules(format).key
        except OracleToolsError:
            return format

    def changes(
        self,
        *,
        since: str | dt.date | None = None,
        run: int | None = None,
        format: str | None = None,
        card: str | None = None,
    ) -> pl.DataFrame:
        """What changed in the Oracle reference at an ingest, one row per change (view ``changes``, plus a
        word-level ``diff`` of changed text): the last ingest that changed something (in ``format``, when given;
        the report names the later runs, which changed nothing: a rules-only ingest), or ingest ``run``, or every
        ingest on or after ``since`` (a date); ``format`` keeps the legality changes in that format;
        ``card`` (any name of it, a former name too) one card's changes, at every ingest unless ``run`` or
        ``since`` is given. Rows in the order :meth:`changes_report` groups them (bans and unbans first,
        then renames, text errata, other characteristics, new and removed cards)."""
        from oracle_tools.history import changes as _changes

        return _changes.select(self.con, self._change_selection(since, run, format, card))

    def changes_report(
        self,
        *,
        since: str | dt.date | None = None,
        run: int | None = None,
        format: str | None = None,
        card: str | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """:meth:`changes` grouped by kind with counts: what ``oracle-tools changes --json`` prints (``limit``:
        the first changes of each group)."""
        from oracle_tools.history import changes as _changes

        return _changes.report(self.con, self._change_selection(since, run, format, card), limit=limit)

    def deck_changes(self, report: _decks.DeckReport) -> list[dict[str, Any]]:
        """For each legality problem of a checked deck (banned, not legal, restricted) whose status a recorded
        ingest changed: when, and what it was before ("banned in Modern since the ingest of 2026-03-31;
        legal before"). Problems whose status never changed in the history are not listed."""
        from oracle_tools.decks import checker as _decks
        from oracle_tools.history import changes as _changes

        rules = _decks.format_rules(report.format)
        oids = {line.card: line.oracle_id for line in report.line_names if line.oracle_id}  # Oracle name -> oracle_id
        wanted = [p for p in report.problems if p.kind in ("banned", "not_legal", "restricted") and p.card]
        for p in wanted:  # a commander given apart from the list has no line: its Oracle name resolves
            if p.card not in oids and (oid := self.resolve(p.card or "").oracle_id):
                oids[p.card or ""] = oid
        since = _changes.legality_since(self.con, [oids[p.card or ""] for p in wanted if p.card in oids], rules.key)
        out = []
        for p in wanted:
            change = since.get(oids.get(p.card or "", ""))
            if change is not None:
                detail = _changes.since_sentence(p.card or "", rules.label or rules.key, change)
                out.append(
                    {"card": p.card, "line": p.line, "kind": p.kind, "format": rules.key, **change, "detail": detail}
                )
        return out

    # -- names (CR 201) -----------------------------------------------------------------------

    @property
    def name_index(self) -> _index.NameIndex:
        """Every name in memory (the warm strategy of :meth:`resolve`), built once."""
        if self._name_index is None:
            with self._build_lock:  # threads sharing this object (on_connection) build it once
                if self._name_index is None:
                    self._name_index = _index.NameIndex(self.con)
        return self._name_index

    def _built_name_index(self) -> _index.NameIndex | None:
        """The name index if it is built (it is not built here)."""
        return self._name_index

    #: Single lookups (resolve, token, choose_name, check_deck) answered by SQL point queries
    #: (oracle_tools/names/point.py) before the in-memory NameIndex is built: a fresh process that asks about
    #: a few names never loads them all; a loop of many gets the microsecond index after these.
    #: choose_name and check_deck also judge their first calls from the faces/rules of the cards asked
    #: about only, so one call of each does not build the whole chooser or checker beside the index.
    POINT_LOOKUPS = 32

    def _names(self) -> _resolver.NameResolver:
        """The strategy that answers this single lookup — the one place it is chosen: the name index if built;
        else the names file the ingest wrote beside this database (names/stored.py: one SQLite probe a name, no
        DuckDB) for every lookup; else without it the point queries for the first few, the index once many
        single lookups came. All give the same answers."""
        self._single_lookups += 1
        if self._built_name_index() is not None:
            return self.name_index
        if (stored := self._names_file()) is not None:
            return stored
        if not self._few_lookups():
            return self.name_index
        if self._point_names is None:
            self._point_names = _point.PointNames(self.con)
        return self._point_names

    def _few_lookups(self) -> bool:
        """Whether single lookups are still few enough to be judged from the cards asked about only."""
        return self._single_lookups <= self.POINT_LOOKUPS

    def resolve(self, text: str, *, fuzzy: bool = False, suggest: int = DEFAULT_SUGGESTIONS) -> _resolver.Resolution:
        """Resolve any card name (English, face, foreign, alternate; normalized) to its Oracle card.

        A miss lists up to ``suggest`` card names and as many token names it may mean; ``suggest=0`` answers
        whether the name is one and skips that work (an exact lookup: most of a miss's cost).

        Raises TypeError when ``text`` is no str, ArgumentError (a ValueError) when it is empty or not valid text.
        A meld result (CR 712.4b) and a double-faced card's back face (712.8a) carry a ``note`` saying what they
        are."""
        limit = _suggest_argument(suggest)
        _name_argument(text, "text")
        return self._asking_names(lambda: self._names().resolve(text, fuzzy=fuzzy, suggest=limit))

    def resolve_many(self, texts: Iterable[str] | pl.Series, *, suggest: int = 0, fuzzy: bool = False) -> pl.DataFrame:
        """Resolve a column of names in one join, keeping input order (exact name, then the folded key).

        With ``fuzzy`` the names that are no name are read by Scryfall's fuzzy rule, as :meth:`resolve` reads them
        (``via`` fuzzy; several cards stay ``ambiguous``). With ``suggest=N`` a ``suggestions`` column lists up to
        N names for each miss, ranked as :meth:`resolve` ranks them (word and prefix matches first, then close
        spellings); an ambiguous fuzzy reading suggests the cards it may mean. The misses' misspelt words are
        corrected in one vectorised pass.

        ``texts`` is a collection of names: one ``str`` is refused (TypeError), not read letter by letter."""
        if isinstance(texts, str | bytes):
            raise TypeError(
                f"texts must be a list or Series of names, not one {type(texts).__name__}: give [{texts!r:.60}] "
                "or use resolve(text)"
            )
        suggest = _suggest_argument(suggest)
        index = self.name_index
        try:
            frame = index.resolve_many(texts)
        except UnicodeEncodeError:  # where Polars met it: the name is found and named
            for text in texts:
                if isinstance(text, str):
                    _name_argument(text, f"texts[{text!r:.60}]", nameless=True)
            raise
        if suggest <= 0 and not fuzzy:
            return frame
        missed = frame.filter(pl.col("status") == "not_found").get_column("query").unique(maintain_order=True).to_list()
        matcher = index.matcher()
        matcher.prepare(missed)
        read = {q: r for q in missed if (r := index.fuzzy(q)) is not None} if fuzzy else {}
        if read:
            answers = pl.DataFrame(
                [
                    {
                        "query": q,
                        "status": r.status,
                        "oracle_id": r.oracle_id,
                        "name": r.name,
                        "face": r.face,
                        "face_index": r.face_index,
                        "via": r.via,
                        "lang": r.lang,
                    }
                    for q, r in read.items()
                ],
                schema=frame.schema,
            )
            frame = frame.update(answers, on="query", how="left", include_nulls=True)
        if suggest <= 0:
            return frame
        unread = [q for q in missed if q not in read]
        offered = dict(zip(unread, matcher.suggest_many(unread, suggest)))
        offered.update((q, list(r.suggestions[:suggest])) for q, r in read.items() if not r.ok)
        column = [offered.get(q, []) for q in frame.get_column("query").to_list()]
        return frame.with_columns(pl.Series("suggestions", column, dtype=pl.List(pl.String)))

    def object_names(self, text: str | None) -> frozenset[str]:
        """The English names an object named by ``text`` has (CR 201.2a; split cards have two, 709.4a).

        ``None`` or '' is an object with no name (a face-down card, CR 708.2).
        """
        if text is not None:
            _name_argument(text, "name", nameless=True)
        if not text:
            return frozenset()
        r = self.resolve(text)
        if shared := _same_name.shared_names(r, self.name_index.split_halves):
            return shared  # several cards print this one name: whichever is meant, its name is this (CR 201.2a)
        if not r.ok:
            raise NameNotFoundError(r.miss_message(), ambiguous=r.status == "ambiguous")
        if r.oracle_id in self.name_index.split_halves:
            return frozenset(self.name_index.split_halves[r.oracle_id])
        return frozenset(name for name in (r.english_name,) if name)  # set whenever r.ok

    def same_name(self, a: str | None, b: str | None) -> bool:
        """CR 201.2a (with 201.3a): do the objects named ``a`` and ``b`` have the same name?"""
        return _same_name.same_name(self.object_names(a), self.object_names(b), self.name_index.classes)

    def have_different_names(self, objects: Sequence[str | None]) -> bool:
        """CR 201.2b: do these objects all have different names?"""
        return _same_name.have_different_names([self.object_names(o) for o in objects], self.name_index.classes)

    def has_different_name(self, first: str | None, others: Sequence[str | None]) -> bool:
        """CR 201.2c: does ``first`` have a name different from every one of ``others``?"""
        return _same_name.has_different_name(
            self.object_names(first), [self.object_names(o) for o in others], self.name_index.classes
        )

    # -- choosing a card name (CR 201.4; oracle_tools/choose/chooser.py) ------------------------------

    @property
    def name_chooser(self) -> _choose.NameChooser:
        """The nameable faces, built once per database (rebuilt when the name index is)."""
        from oracle_tools.choose import chooser as _choose

        if self._name_chooser is None or self._name_chooser.name_index is not self.name_index:
            with self._build_lock:
                if self._name_chooser is None or self._name_chooser.name_index is not self.name_index:
                    self._name_chooser = _choose.NameChooser(self.con, self.name_index)
        return self._name_chooser

    def choose_name(self, name: str, constraint: str | _choose.Constraint | None = None) -> _choose.Verdict:
        """CR 201.4: may ``name`` be chosen for "choose a [constraint] card name"? (None: any card name.)

        ``constraint`` is a phrase ("nonland", "nonartifact, nonland") or a Constraint. Returns a
        Verdict (``valid``, ``chosen`` incl. interchangeable names, ``rule``, ``reason``).
        """
        from oracle_tools.choose import chooser as _choose

        _name_argument(name, "name")

        def choose() -> _choose.Verdict:
            names = self._names()
            if not self._has_name_chooser() and self._few_lookups():
                return _choose.NameChooser.for_name(self.con, names, name).choose(name, constraint)
            return self.name_chooser.choose(name, constraint)

        return self._asking_names(choose)

    def nameable(self, constraint: str | _choose.Constraint | None = None) -> pl.DataFrame:
        """Every name that may be chosen under ``constraint``: one row per face, with oracle_id,
        card_name, face_index, role, rule and the characteristics it was judged by."""
        return self.name_chooser.nameable(constraint)

    def constraint_for(self, phrase: str | None = None, card: str | None = None) -> _choose.ChosenConstraint:
        """The constraint of a phrase ("nonland"; None: any card name) or of a card's own Oracle text (Meddling
        Mage: nonland), with the phrase and the card it came from."""
        from oracle_tools.choose import chooser as _choose

        return _choose.constraint_for(self, phrase, card)

    def choose_name_report(
        self, name: str, *, constraint: str | None = None, card: str | None = None
    ) -> _choose.ChoiceReport:
        """:meth:`choose_name` with the constraint given as a phrase or by a card (``choose-name --card``): the
        verdict and the constraint used (``to_dict()``: what ``choose-name --json`` prints)."""
        from oracle_tools.choose import chooser as _choose

        chosen = self.constraint_for(constraint, card)
        return _choose.ChoiceReport(self.choose_name(name, chosen.constraint), chosen)

    def nameable_rows(
        self, *, constraint: str | None = None, card: str | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """:meth:`nameable` as JSON rows, without the Oracle text (``choose-name --list --json``), the first
        ``limit`` of them; the constraint given as a phrase or by a card."""
        frame = self.nameable(self.constraint_for(constraint, card).constraint).drop("oracle_text")
        return (frame if limit is None else frame.head(limit)).to_dicts()

    # -- deck legality (CR 100.2, 100.4, 201.3b, 903, 702.124) -----------------------------------

    @property
    def deck_checker(self) -> _decks.DeckChecker:
        """Per-card deck-construction facts (limits, basics, identity, commander rules), built once."""
        from oracle_tools.decks import checker as _decks

        if self._deck_checker is None:
            with self._build_lock:
                if self._deck_checker is None:
                    self._deck_checker = _decks.DeckChecker(self.con, self.name_index)
        return self._deck_checker

    def _has_name_chooser(self) -> bool:
        return self._name_chooser is not None

    def _has_deck_checker(self) -> bool:
        return self._deck_checker is not None

    def legalities_source(self, format: str | None = None) -> str:
        """One line saying which data the legalities come from: every file whose printings give cards their
        facts (the printing an ingest keeps a card's legalities from: its newest English printing, else its
        newest in any language, so a card known only from foreign printings counts too), most cards first, each
        with the date of its data (Scryfall's ``updated_at`` when the file came from the API, else its newest
        printing) and when it was ingested. Deck checks print it: a 2019 snapshot judges a deck by 2019's ban
        lists. With ``format``, a file without that format's legalities says so ("no Pioneer legalities: its data
        predates Pioneer"): its cards cannot be judged there."""
        from oracle_tools.decks.sources import legality_files

        rows = legality_files(self.con)
        if not rows:
            return "legalities: no card is in this database"
        lacking: dict[str, str] = {}  # file -> what it is to the format, for the files without its legalities
        if format is not None:
            from oracle_tools.decks import sources
            from oracle_tools.decks.formats import format_rules

            rules = format_rules(format)
            knowing = sources.format_files(self.con, rules.key) if rules.legality else {r.file for r in rows}
            oldest = sources.first_knowing({r.file: r for r in rows}, knowing)
            for r in rows:
                if r.file not in knowing:
                    why = sources.gap(r, rules.label, oldest)
                    lacking[r.file] = f"no {rules.label} legalities" + (
                        f": its data {why}" if why.startswith("predates") else ""
                    )
        total = sum(r.cards for r in rows)
        parts = []
        for r in rows:
            as_of = f"{r.as_of} (Scryfall's update)" if r.scryfall_update else f"{r.as_of} (its newest printing)"
            when = f", ingested {r.ingested}" if r.ingested else ""
            gap = f" ({lacking[r.file]})" if r.file in lacking else ""
            parts.append(f"{counted(r.cards, 'card')} from {r.name}, data of {as_of}{when}{gap}")
        return f"legalities: {total:,} cards; " + "; ".join(parts)

    def check_deck(
        self,
        deck: _decks.DeckInput,
        *,
        format: str,
        commanders: Sequence[str] | None = None,
        limits: bool = True,
    ) -> _decks.DeckReport:
        """Check one deck (a Decklist, a file path or decklist text) against a format's rules.

        Returns a DeckReport (``legal``, ``problems`` of kind/card/line/detail, ``counts``, ``to_dict()``).
        Raises DecklistError for an unreadable file, DeckTooLargeError for a deck over the size limits
        (``decks.MAX_DECK_LINES`` lines, ``MAX_DECK_NAMES`` names; ``limits=False`` lifts them) and
        OracleToolsError for an unknown format. A one-line ``str`` that reads as the path of a decklist file
        (``decks/x.txt``, ``./deck``) but names none is a DecklistError, not the text of a deck of one card.
        """
        from oracle_tools.decks import checker as _decks

        if (missing := _missing_deck_file(deck)) is not None:
            raise DecklistError(
                f"deck {missing!r}: no such file (relative paths start from {Path.cwd()}); give the path of a "
                "decklist file, or the decklist's text (lines such as '4 Lightning Bolt')"
            )

        def check() -> _decks.DeckReport:
            names = self._names()
            if self._has_deck_checker():  # built already (a batch over the warm index, a server): every card's rules
                return _decks.check_deck(self.deck_checker, deck, format, commanders=commanders, limits=limits)
            # the rules and legalities of the first list's cards only; from the second list on every card's, read
            # once (never again when the name strategy changes: the checker keeps what it read)
            return _decks.check_deck(self._point_checker(names), deck, format, commanders=commanders, limits=limits)

        return self._asking_names(check)

    def _point_checker(self, names: _resolver.NameResolver) -> _decks.PointDeckChecker:
        """The deck checker that loads the rules of the cards it meets only, over the strategy ``names``: one per
        database, kept when the strategy changes."""
        from oracle_tools.decks import checker as _decks

        if self._point_deck_checker is None:
            self._point_deck_checker = _decks.PointDeckChecker(self.con, names)
        elif self._point_deck_checker.names is not names:
            self._point_deck_checker.use_names(names)
        return self._point_deck_checker

    def check_decks(
        self, decks: Iterable[_decks.DeckInput], *, format: str | None = None, summary: bool = False
    ) -> pl.DataFrame:
        """Check many decks: a Polars frame with one row per problem (deck, source, name, player, kind,
        card, line, detail), or one row per deck with ``summary=True``. JSON caches give every deck."""
        from oracle_tools.decks import checker as _decks

        if format is None:
            raise OracleToolsError(
                f"check_decks needs the format to check against, e.g. format='modern'; known formats: "
                f"{', '.join(_decks.FORMATS)}."
            )

        # A batch reads every name in one query and loads the rules of the cards it meets only; once the name
        # index is warm (many single lookups came first), the warm checker answers (the same answers).
        decks = list(decks)  # read again if the names file fails under the first pass

        def check() -> pl.DataFrame:
            if self._built_name_index() is not None:
                checker: _decks.DeckChecker = self.deck_checker
            elif (stored := self._names_file()) is not None:
                checker = self._point_checker(stored)
            else:
                if self._point_names is None:
                    self._point_names = _point.PointNames(self.con)
                checker = self._point_checker(self._point_names)
            return _decks.check_decks(checker, decks, format, summary=summary)

        return self._asking_names(check)

    # -- tokens (CR 111) ----------------------------------------------------------------------

    def token(self, name: str) -> _tokens.TokenAnswer:
        """What "create a <name> token" makes: a predefined token (CR 111.10x, wins over a card of
        the same name), else the token effects create with that name and stated characteristics
        (kind 'effect', 111.4 / 111.9: Marit Lage, Ragavan; ``created_by``, ``variants``), else the
        Oracle card with that name (111.11), else kind 'none' with a reason and card and token names
        as suggestions.

        The name goes through :meth:`resolve` (case, accents, foreign and face names work).
        Raises OracleToolsError for an empty name.
        """
        from oracle_tools.tokens import answers as _tokens

        if name is not None:
            _name_argument(name, "name", nameless=True)  # a blank name: the token lookup's own line
        return self._asking_names(lambda: _tokens.lookup(self.con, self._names(), name))

    def token_specs(self) -> pl.DataFrame:
        """Every "create … token(s)" clause of every card's Oracle text, parsed (table ``token_specs``):
        creator, count, name by CR 111.4/111.9/111.10/111.11 (copies: 707.2), characteristics, rule."""
        return self.frame("token_specs")  # type: ignore[return-value]

    def token_list(self, name: str | None = None) -> pl.DataFrame:
        """Every token name the database knows (view ``token_catalog``; ``oracle-tools token --list``):
        one row per name and kind — predefined (CR 111.10), effect (named and defined by effects,
        111.4 / 111.9), object (Scryfall token objects) — with rule, characteristics and creators.
        With ``name`` (any spelling: case, accents, punctuation as ``resolve`` normalizes them) only that
        name's rows, every kind of it (Gold: predefined 111.10c, Gild's effect-defined Gold, the object)."""
        catalog = self.sql("SELECT * FROM token_catalog ORDER BY name, kind")
        if name is None:
            return catalog
        from oracle_tools.names.build import normalize_expr
        from oracle_tools.text.matching import normalize

        return catalog.filter(normalize_expr("name") == normalize(name))

    def token_collisions(self, name: str | None = None) -> pl.DataFrame:
        """Names that are both a card/face name and a token name (Blood, Tarmogoyf, …), with what
        each rule (111.10, 111.11, 111.4/111.9, 201.4) does with them (table ``token_collisions``). With ``name``
        (any spelling, normalized as in :meth:`token_list`) only that name's rows: none when it is no such name."""
        frame: pl.DataFrame = self.frame("token_collisions")  # type: ignore[assignment]
        if name is None:
            return frame
        from oracle_tools.names.build import normalize_expr
        from oracle_tools.text.matching import normalize

        return frame.filter(normalize_expr("name") == normalize(name))

    # -- name references in Oracle text (CR 201.5, 201.5c; oracle_tools/text/oracletext.py) ------------

    def references(self, name: str) -> dict[str, Any]:
        """What card ``name``'s Oracle text calls itself (``own_text``: self, self_short, named,
        token_name mentions) and every mention in any card's text that names it (``named_by``), from
        table ``name_references``. ``name`` may be any name of the card (face, interchangeable, foreign).
        Raises OracleToolsError for a name that is no card's."""
        from oracle_tools.names import references as _references

        found = self.resolve(_name_argument(name, "name"))
        if not found.ok or found.oracle_id is None:
            raise NameNotFoundError(found.miss_message(), ambiguous=found.status == "ambiguous")
        return _references.references(self.con, found.oracle_id)

    # -- search: Scryfall's query language (oracle_tools/search/) ------------------------------

    def search(
        self, query: str, *, unique: str = "cards", order: str = "name", direction: str = "auto"
    ) -> pl.DataFrame:
        """Cards matching a Scryfall search query (``t:goblin c:r mv<=2 f:modern``), one row per card
        (``unique="prints"``: per printing; ``"art"``: per illustration), in ``order``.

        Columns: oracle_id, id (the printing shown), name, lang, set, collector_number, rarity,
        released_at, mana_cost, cmc, type_line, colors, color_identity, power, toughness, loyalty, layout,
        artist. ``unique:``/``order:``/``direction:`` inside the query win over the arguments. Raises
        :class:`~oracle_tools.search.SearchSyntaxError` (``.position``) for a query that is not valid
        syntax or names a keyword this database cannot answer. See docs/search.md.
        """
        from oracle_tools import search as _search

        return _search.run(
            self.user_con,
            _query_argument(query),
            unique=unique,
            order=order,
            direction=direction,
            nameable=self.nameable_ids,
        )

    def search_rows(
        self, query: str, *, unique: str = "cards", order: str = "name", direction: str = "auto"
    ) -> sqlfiles.Rows:
        """:meth:`search` as (column names, rows of Python values, count), without loading Polars: what
        ``oracle-tools search`` prints from (a fresh process answers one query in a blink)."""
        from oracle_tools import search as _search

        return _search.run_rows(
            self.user_con,
            _query_argument(query),
            unique=unique,
            order=order,
            direction=direction,
            nameable=self.nameable_ids,
        )

    def search_list(
        self,
        query: str,
        *,
        unique: str = "cards",
        order: str = "name",
        direction: str = "auto",
        limit: int | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """A Scryfall list object of the first ``limit`` cards :meth:`search` finds (``search --json``):
        ``{"object": "list", "total_cards": N, "has_more": …, "data": [card objects]}``. With ``timeout``, a
        search that runs longer is stopped (:class:`~oracle_tools.errors.QueryTimeoutError`)."""
        from oracle_tools import search as _search

        stop = _search.time_limit(timeout) if timeout is not None else None
        columns, rows, total = _search.run_rows(
            self.user_con,
            _query_argument(query),
            unique=unique,
            order=order,
            direction=direction,
            nameable=self.nameable_ids,
            stop=stop,
        )
        id_at = columns.index("id")
        shown = rows[:limit] if limit is not None else rows
        cards = self.card_objects(ids=[row[id_at] for row in shown if row[id_at] is not None])
        answer: dict[str, Any] = {"object": "list", "total_cards": total, "has_more": len(cards) < total, "data": cards}
        warnings = self.search_warnings(query)
        if warnings:  # Scryfall's list object carries its warnings in "warnings"
            answer["warnings"] = warnings
        return answer

    def search_warnings(self, query: str) -> list[str]:
        """One line per term of ``query`` whose data some printings lack (``is:booster`` on the 2019 dump's
        objects, which have no booster field): how many printings it could not judge, as ``deck check`` says
        cannot_judge. ``[]`` when every printing could be judged."""
        from oracle_tools import search as _search

        return _search.cannot_judge(self.user_con, _query_argument(query), nameable=self.nameable_ids)

    def nameable_ids(self, phrase: str) -> list[str]:
        """``nameable:"nonland"``: the oracle_ids with a name that may be chosen (CR 201.4, choose-name rules)."""
        return self.nameable(phrase).get_column("oracle_id").unique().to_list()

    # -- one card's page: its names, printings, rulings and tokens (the web page's card reference) ----------

    def card_names(self, oracle_id: str) -> list[dict[str, Any]]:
        """Every name that finds the Oracle card ``oracle_id`` and how (table ``names``, CR 201): ``name``, ``via``
        (name, face, printed, interchangeable, flavor, former …), ``lang`` and ``face_index`` (None: the whole card)."""
        rows = self.con.execute(
            "SELECT DISTINCT name, via, lang, face_index FROM names WHERE oracle_id = ? "
            "ORDER BY via, lang NULLS FIRST, face_index NULLS FIRST, name",
            [oracle_id],
        ).fetchall()
        return [dict(zip(("name", "via", "lang", "face_index"), row)) for row in rows]

    def printings(self, oracle_id: str) -> list[dict[str, Any]]:
        """Every printing of the Oracle card ``oracle_id``, English first, newest first: id, set, set_name,
        collector_number, lang, rarity, artist, released_at, printed_name and prices (usd, eur, tix) when known."""
        cur = self.con.execute(
            "SELECT id, set_code AS set, set_name, collector_number, lang, rarity, artist, released_at, printed_name, "
            "usd, eur, tix FROM printings WHERE oracle_id = ? "
            "ORDER BY lang <> 'en', released_at DESC, set_code, collector_number, lang, id",
            [oracle_id],
        )
        columns = [d[0] for d in cur.description]
        return [dict(zip(columns, row)) for row in cur.fetchall()]

    def printing_id(self, set_code: str, collector_number: str, lang: str | None = None) -> str | None:
        """The printing with this set code and collector number (English first unless ``lang`` is given), or None.
        Set codes and languages are matched in any case (Scryfall's are lower case); without a language, several
        printings are taken English first, then by language code and id: one answer for every door that asks."""
        if len(set_code) > 20 or len(collector_number) > 20 or (lang is not None and len(lang) > 10):
            return None  # no set code, collector number or language is this long
        rows = self.con.execute(
            "SELECT id FROM printings WHERE set_code = lower(?) AND collector_number = ? "
            "AND (? IS NULL OR lang = lower(?)) ORDER BY lang <> 'en', lang, id LIMIT 1",
            [set_code, collector_number, lang, lang],
        ).fetchall()
        return str(rows[0][0]) if rows else None

    def rulings(self, oracle_id: str) -> list[dict[str, Any]]:
        """Scryfall's ruling objects of the Oracle card ``oracle_id``, oldest first (what ``/cards/…/rulings`` lists)."""
        from oracle_tools.scryfall.cardjson import rulings

        return rulings(self.con, oracle_id)

    def tokens_created(self, oracle_id: str) -> list[dict[str, Any]]:
        """The tokens the Oracle text of ``oracle_id`` creates (table ``token_specs``, CR 111): one row per clause
        with ``name`` (the token's name in the game), ``base_name`` (what ``token`` looks up), ``count``, ``rule``,
        ``clause`` and the creating face."""
        cur = self.con.execute(
            "SELECT name, base_name, count, rule, clause, face_name, face_index FROM token_specs "
            "WHERE creator_oracle_id = ? AND name IS NOT NULL ORDER BY face_index, clause_no",
            [oracle_id],
        )
        columns = [d[0] for d in cur.description]
        return [dict(zip(columns, row)) for row in cur.fetchall()]


class _OnConnection(OracleDB):
    """:meth:`OracleDB.on_connection`: ``owner``'s built name index, chooser and deck checker, ``con`` for the rest."""

    def __init__(
        self,
        owner: OracleDB,
        con: duckdb.DuckDBPyConnection,
        user_cursor: Callable[[], duckdb.DuckDBPyConnection] | None = None,
    ) -> None:
        super().__init__(owner.path)
        self._owner = owner
        self._con = con
        self._user_cursor = user_cursor

    @property
    def user_con(self) -> duckdb.DuckDBPyConnection:
        """A cursor of the owner's sandbox (see :meth:`OracleDB.on_connection`), opened on first use."""
        if self._user_con is None:
            self._user_con = self._user_cursor() if self._user_cursor is not None else self._owner.user_con.cursor()
        return self._user_con

    @property
    def name_index(self) -> _index.NameIndex:
        return self._owner.name_index

    def _built_name_index(self) -> _index.NameIndex | None:
        return self._owner._built_name_index()

    def _names_file(self) -> _stored.StoredNames | None:
        return self._owner._names_file()  # one SQLite connection, shared (its reads are locked)

    @property
    def name_chooser(self) -> _choose.NameChooser:
        return self._owner.name_chooser  # reads the database while being built only

    def _has_name_chooser(self) -> bool:
        return self._owner._has_name_chooser()

    @property
    def deck_checker(self) -> _decks.DeckChecker:
        if self._deck_checker is None:  # the owner's facts; a format's legalities are read on this connection
            self._deck_checker = self._owner.deck_checker.on_connection(self.con)
        return self._deck_checker

    def _has_deck_checker(self) -> bool:
        return self._deck_checker is not None or self._owner._has_deck_checker()

    def on_connection(
        self,
        con: duckdb.DuckDBPyConnection,
        user_cursor: Callable[[], duckdb.DuckDBPyConnection] | None = None,
    ) -> OracleDB:
        return self._owner.on_connection(con, user_cursor)

    def close(self) -> None:
        """The connection is the caller's (a cursor it closes); the sandbox cursor is closed here (the names file
        is the owner's)."""
        if self._user_con is not None:
            self._user_con.close()
            self._user_con = None
        self._con = None
        self._forget_answerers()
