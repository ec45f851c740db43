"""The Comprehensive Rules inside the database: tables ``rules`` and ``rules_meta``.

The shipped CR text (data/rules/) is the default; ``ingest --rules-file PATH`` replaces it,
and an ingest of cards alone keeps whatever rules the previous database had.

>>> db.sql("SELECT text FROM rules WHERE number = '111.10a'")      # doctest: +SKIP
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import polars as pl

from oracle_tools.store.sqlfiles import ArrowStream
from oracle_tools.text.comprules import RulesDocument, load_rules

_CREATE = """
CREATE TABLE IF NOT EXISTS rules (number VARCHAR NOT NULL, text VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS rules_meta (effective_date DATE NOT NULL, source VARCHAR NOT NULL, rule_count INTEGER);
"""


def store(
    con: duckdb.DuckDBPyConnection,
    rules_file: Path | None,
    *,
    keep_previous: bool,
    document: RulesDocument | None = None,
) -> None:
    """Fill ``rules``: from ``rules_file`` (``document``: its parse, made before the ingest opened a card file),
    else from the previous database, else the shipped CR."""
    con.execute(_CREATE)
    if rules_file is None and keep_previous and _previous_has_rules(con):
        from oracle_tools.store.sqlfiles import PREVIOUS_CATALOG

        con.execute(f"INSERT INTO rules SELECT * FROM {PREVIOUS_CATALOG}.main.rules")
        con.execute(f"INSERT INTO rules_meta SELECT * FROM {PREVIOUS_CATALOG}.main.rules_meta")
        return
    doc = document if document is not None and rules_file is not None else load_rules(rules_file)
    frame = pl.DataFrame({"number": list(doc.rules), "text": list(doc.rules.values())})
    con.register("rules_frame", ArrowStream(frame))
    con.execute("INSERT INTO rules SELECT number, text FROM rules_frame")
    con.unregister("rules_frame")
    con.execute(
        "INSERT INTO rules_meta VALUES (?, ?, ?)",
        [doc.effective_date, str(rules_file) if rules_file else "shipped", len(doc.rules)],
    )


def _previous_has_rules(con: duckdb.DuckDBPyConnection) -> bool:
    from oracle_tools.store import sqlfiles
    from oracle_tools.store.sqlfiles import PREVIOUS_CATALOG

    return "rules" in sqlfiles.table_names(con, catalog=PREVIOUS_CATALOG)


def document(con: duckdb.DuckDBPyConnection) -> RulesDocument:
    """The rules stored in a database, as a RulesDocument."""
    effective: dt.date = con.execute("SELECT effective_date FROM rules_meta").fetchall()[0][0]
    rules = dict(con.execute("SELECT number, text FROM rules").fetchall())
    return RulesDocument(effective_date=effective, rules=rules)
