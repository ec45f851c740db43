"""Analyst views (``sql/views.sql``), created inside the database at ingest.

Views live in the DuckDB file, so every reader sees them: ``oracle-tools sql``, the DuckDB CLI,
``OracleDB.frame("card_analytics")`` and notebooks. They are documented column by column in
``docs/views.md``.

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")                                   # doctest: +SKIP
>>> db.frame("card_analytics", lazy=True).filter(pl.col("draws_cards")).collect()  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from oracle_tools.store import layouts, sqlfiles


@dataclass(frozen=True)
class ViewBlock:
    """One ``-- name:`` block of ``sql/views.sql``."""

    name: str
    sql: str
    requires: tuple[str, ...] = ()


def blocks() -> list[ViewBlock]:
    """The blocks of ``sql/views.sql`` in file order (macros first, then the views using them)."""
    out: list[ViewBlock] = []
    name: str | None = None
    requires: list[str] = []
    lines: list[str] = []

    def flush() -> None:
        if name:
            out.append(ViewBlock(name, "\n".join(lines).strip(), tuple(requires)))

    for line in sqlfiles.load("views.sql").splitlines():
        if line.startswith("-- name:"):
            flush()
            name, requires, lines = line.split(":", 1)[1].strip(), [], []
        elif line.startswith("-- requires:") and name:
            requires.extend(t.strip() for t in line.split(":", 1)[1].split(",") if t.strip())
        elif name:
            lines.append(line)
    flush()
    return out


def build(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Create the macros and views of ``sql/views.sql``; return the names created.

    A block whose ``-- requires:`` tables are missing (such as ``token_creators`` without
    ``token_specs``) is skipped, so the views never depend on a layer that was not built.
    """
    layouts.build(con)  # the face_roles table (CR 201.4, 709-715 facts per face role) the views join
    # card_analytics reads each face's CARDNAME text from references.py's table, built earlier at ingest;
    # a database without that layer (a bare schema in tests) gets it empty, so the views still bind.
    con.execute(
        "CREATE TABLE IF NOT EXISTS oracle_text_self_replaced "
        "(oracle_id VARCHAR, face_index INTEGER, text_cardname VARCHAR, text_tilde VARCHAR)"
    )
    tables = set(sqlfiles.table_names(con))  # this database's: at ingest the replaced one is attached beside it
    created = []
    for block in blocks():
        if all(t in tables for t in block.requires):
            con.execute(block.sql)
            created.append(block.name)
    return created


def create(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Create the one view ``name`` of ``sql/views.sql`` (a layer built after :func:`build` adds its own)."""
    (block,) = [b for b in blocks() if b.name == name]
    con.execute(block.sql)
