"""``OracleDB``: the one central class. A read-only DuckDB connection plus one method per domain.

>>> from oracle_tools import OracleDB
>>> OracleDB.ingest_sample("data/oracle.duckdb")                # doctest: +SKIP
>>> db = OracleDB("data/oracle.duckdb")                         # doctest: +SKIP
>>> db.frame("cards").shape                                     # doctest: +SKIP
>>> db.resolve("Fire/Ice").name                                 # doctest: +SKIP
'Fire // Ice'
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from . import ingest as _ingest
from . import names as _names
from . import sqlfiles
from .errors import DatabaseMissingError, OracleToolsError

DEFAULT_DB = Path("data") / "oracle.duckdb"


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

    # -- connection ------------------------------------------------------------------------

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            if not self.path.exists():
                raise DatabaseMissingError(
                    f"no database at {self.path}. Build one first: `oracle-tools ingest --sample` "
                    "(offline), `oracle-tools ingest` (Scryfall), or `oracle-tools ingest --bulk-file PATH`; "
                    "or point --db / ORACLE_TOOLS_DB at an existing one.")
            self._con = duckdb.connect(str(self.path), read_only=True)
        return self._con

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None
        for cached in ("name_index", "deck_checker"):
            self.__dict__.pop(cached, None)

    def __enter__(self) -> OracleDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingest (the only writer) ---------------------------------------------------------------

    @classmethod
    def ingest_files(cls, path: str | os.PathLike[str] | None, files: Sequence[str | os.PathLike[str]], *,
                     rules_file: str | os.PathLike[str] | None = None, progress: bool = False,
                     interchangeable_file: str | os.PathLike[str] | None = None) -> OracleDB:
        """Build (or rebuild) the database at ``path`` from local Scryfall bulk files."""
        db = cls(path)
        sources = [_ingest.sniff(Path(f)) for f in files]
        _ingest.Ingest(db.path, progress=progress, interchangeable_file=interchangeable_file).run(
            sources, rules_file=Path(rules_file) if rules_file else None)
        return db

    @classmethod
    def ingest_sample(cls, path: str | os.PathLike[str] | None = None, *, progress: bool = False) -> OracleDB:
        """Build the database from the embedded real sample in data/sample/ (no network)."""
        db = cls(path)
        _ingest.Ingest(db.path, progress=progress).run(_ingest.sample_sources())
        return db

    # -- tables and SQL -----------------------------------------------------------------------

    def tables(self) -> list[str]:
        return [t for (t,) in self.con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1").fetchall()]

    def frame(self, table: str, *, lazy: bool = False) -> pl.DataFrame | pl.LazyFrame:
        """A whole table or view as a Polars frame (``lazy=True`` for a LazyFrame)."""
        if table not in self.tables() + self.views():
            raise OracleToolsError(f"no table or view named {table!r}; available: {', '.join(self.tables() + self.views())}")
        frame = sqlfiles.frame(self.con, f'SELECT * FROM "{table}"')  # name checked against the catalog above
        return frame.lazy() if lazy else frame

    def views(self) -> list[str]:
        return [v for (v,) in self.con.execute(
            "SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main' ORDER BY 1").fetchall()]

    def sql(self, query: str, params: Sequence[Any] | dict[str, Any] | None = None) -> pl.DataFrame:
        """Run read-only SQL (parameters bound, never pasted) and return a Polars frame."""
        return sqlfiles.frame(self.con, query, params)

    # -- analytics: lazy frames and export (oracle_tools/export.py, views in sql/views.sql) ----

    def lazy(self, table: str | None = None, *, sql: str | None = None,
             params: Sequence[Any] | dict[str, Any] | None = None) -> pl.LazyFrame:
        """A Polars LazyFrame over a table/view (name checked against the catalog) or a query."""
        from . import export as _export

        return _export.lazy(self.con, _export.source_sql(self.con, table, sql), params)

    def export(self, table: str | None, path: str | os.PathLike[str], *, sql: str | None = None,
               params: Sequence[Any] | dict[str, Any] | None = None, format: str | None = None) -> dict[str, Any]:
        """Write a table/view or a query to Parquet or CSV (format from the suffix unless given)."""
        from . import export as _export

        return _export.export(self.con, table, path, sql=sql, params=params, format=format, db_path=self.path)

    def info(self) -> dict[str, Any]:
        """Sources, snapshot dates, row counts per table and per layout."""
        con = self.con
        runs = con.execute(
            "SELECT run_id, started_at, source, kind, file, bulk_type, updated_at, rows, round(seconds, 3) "
            "FROM ingest_runs ORDER BY run_id, file").fetchall()
        rules = con.execute("SELECT effective_date, source, rule_count FROM rules_meta").fetchone()
        return {
            "db": str(self.path),
            "size_bytes": self.path.stat().st_size,
            "runs": [dict(zip(("run_id", "started_at", "source", "kind", "file", "bulk_type", "updated_at", "rows",
                               "seconds"), (r[0], str(r[1]), *r[2:]))) for r in runs],
            "newest_printing": str(con.execute("SELECT max(released_at) FROM printings").fetchone()[0]),
            "rules": {"effective_date": str(rules[0]), "source": rules[1], "rules": rules[2]} if rules else None,
            "tables": {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in self.tables()},
            "layouts": dict(con.execute(
                "SELECT layout, count(*) FROM cards GROUP BY layout ORDER BY count(*) DESC, layout").fetchall()),
            "object_kinds": dict(con.execute(
                "SELECT object_kind, count(*) FROM cards GROUP BY 1 ORDER BY 2 DESC").fetchall()),
            "languages": dict(con.execute(
                "SELECT lang, count(*) FROM printings GROUP BY 1 ORDER BY 2 DESC").fetchall()),
        }

    # -- names (CR 201) -----------------------------------------------------------------------

    @cached_property
    def name_index(self) -> _names.NameIndex:
        return _names.NameIndex(self.con)

    def resolve(self, text: str, *, fuzzy: bool = False) -> _names.Resolution:
        """Resolve any card name (English, face, foreign, alternate; normalized) to its Oracle card."""
        return self.name_index.resolve(text, fuzzy=fuzzy)

    def resolve_many(self, texts: Iterable[str] | pl.Series) -> pl.DataFrame:
        """Resolve a column of names in one join, keeping input order."""
        return self.name_index.resolve_many(texts)

    def object_names(self, text: str | None) -> frozenset[str]:
        """The English names an object named by ``text`` has (CR 201.2a; split cards have two, 709.4a).

        ``None`` or '' is an object with no name (a face-down card).
        """
        if not text:
            return frozenset()
        r = self.resolve(text)
        if not r.ok:
            raise OracleToolsError(f"{text!r} is {r.status.replace('_', ' ')}; suggestions: {', '.join(r.suggestions)}")
        if r.oracle_id in self.name_index.split_halves:
            return frozenset(self.name_index.split_halves[r.oracle_id])
        return frozenset([r.english_name])

    def same_name(self, a: str | None, b: str | None) -> bool:
        """CR 201.2a (with 201.3a): do the objects named ``a`` and ``b`` have the same name?"""
        return _names.same_name(self.object_names(a), self.object_names(b), self.name_index._classes)

    def have_different_names(self, objects: Sequence[str | None]) -> bool:
        """CR 201.2b: do these objects all have different names?"""
        return _names.have_different_names([self.object_names(o) for o in objects], self.name_index._classes)

    def has_different_name(self, first: str | None, others: Sequence[str | None]) -> bool:
        """CR 201.2c: does ``first`` have a name different from every one of ``others``?"""
        return _names.has_different_name(self.object_names(first), [self.object_names(o) for o in others],
                                         self.name_index._classes)

    # -- choosing a card name (CR 201.4; oracle_tools/choose.py) ------------------------------

    @property
    def name_chooser(self) -> "_choose.NameChooser":
        """The nameable faces, built once per database (rebuilt when the name index is)."""
        from . import choose as _choose

        chooser = self.__dict__.get("_name_chooser")
        if chooser is None or chooser.name_index is not self.name_index:
            chooser = self.__dict__["_name_chooser"] = _choose.NameChooser(self.con, self.name_index)
        return chooser

    def choose_name(self, name: str, constraint: "str | _choose.Constraint | None" = None) -> "_choose.Verdict":
        """CR 201.4: may ``name`` be chosen for "choose a [constraint] card name"? (None: any card name.)

        ``constraint`` is a phrase ("nonland", "nonartifact, nonland") or a Constraint. Returns a
        Verdict (``valid``, ``chosen`` incl. interchangeable names, ``rule``, ``reason``).
        """
        return self.name_chooser.choose(name, constraint)

    def nameable(self, constraint: "str | _choose.Constraint | None" = None) -> pl.DataFrame:
        """Every name that may be chosen under ``constraint``: one row per face, with oracle_id,
        card_name, face_index, role, rule and the characteristics it was judged by."""
        return self.name_chooser.nameable(constraint)

    # -- deck legality (CR 100.2, 100.4, 201.3b, 903, 702.124) -----------------------------------

    @cached_property
    def deck_checker(self) -> "_decks.DeckChecker":
        """Per-card deck-construction facts (limits, basics, identity, commander rules), built once."""
        from . import decks as _decks

        return _decks.DeckChecker(self.con, self.name_index)

    def check_deck(self, deck: "_decks.DeckInput", *, format: str,
                   commanders: Sequence[str] | None = None) -> "_decks.DeckReport":
        """Check one deck (a Decklist, a file path or decklist text) against a format's rules.

        Returns a DeckReport (``legal``, ``problems`` of kind/card/line/detail, ``counts``, ``to_dict()``).
        Raises DecklistError for an unreadable file and OracleToolsError for an unknown format.
        """
        from . import decks as _decks

        return _decks.check_deck(self.deck_checker, deck, format, commanders=commanders)

    def check_decks(self, decks: "Iterable[_decks.DeckInput]", *, format: str, summary: bool = False) -> pl.DataFrame:
        """Check many decks: a Polars frame with one row per problem (deck, source, name, player, kind,
        card, line, detail), or one row per deck with ``summary=True``. JSON caches give every deck."""
        from . import decks as _decks

        return _decks.check_decks(self.deck_checker, decks, format, summary=summary)

    # -- tokens (CR 111) ----------------------------------------------------------------------

    def token(self, name: str) -> "_tokens.TokenAnswer":
        """What "create a <name> token" makes: a predefined token (CR 111.10x, wins over a card of
        the same name), else the token effects create with that name and stated characteristics
        (kind 'effect', 111.4 / 111.9: Marit Lage, Ragavan; ``created_by``, ``variants``), else the
        Oracle card with that name (111.11), else kind 'none' with a reason and card and token names
        as suggestions.

        The name goes through :meth:`resolve` (case, accents, foreign and face names work).
        Raises OracleToolsError for an empty name.
        """
        from . import tokens as _tokens

        return _tokens.lookup(self.con, self.name_index, name)

    def token_specs(self) -> pl.DataFrame:
        """Every "create … token(s)" clause of every card's Oracle text, parsed (table ``token_specs``):
        creator, count, name by CR 111.4/111.9/111.10/111.11 (copies: 707.2), characteristics, rule."""
        return self.frame("token_specs")  # type: ignore[return-value]

    def token_list(self) -> pl.DataFrame:
        """Every token name the database knows (view ``token_catalog``; ``oracle-tools token --list``):
        one row per name and kind — predefined (CR 111.10), effect (named and defined by effects,
        111.4 / 111.9), object (Scryfall token objects) — with rule, characteristics and creators."""
        if "token_catalog" not in self.views():
            raise OracleToolsError(f"{self.path} has no token_catalog view (built before it existed); rebuild it "
                                   "with `oracle-tools ingest`.")
        return self.sql("SELECT * FROM token_catalog ORDER BY name, kind")

    def token_collisions(self) -> pl.DataFrame:
        """Names that are both a card/face name and a token name (Blood, Tarmogoyf, …), with what
        each rule (111.10, 111.11, 111.4/111.9, 201.4) does with them (table ``token_collisions``)."""
        return self.frame("token_collisions")  # type: ignore[return-value]
