"""The project's SQL lives in ``oracle_tools/sql/*.sql``; this loads it by name."""
from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    import duckdb


@cache
def load(name: str) -> str:
    """The text of ``oracle_tools/sql/<name>``."""
    return resources.files(__package__).joinpath("sql", name).read_text(encoding="utf-8")


@cache
def query(name: str) -> str:
    """One named query from ``sql/queries.sql`` (blocks start with ``-- name: <query name>``)."""
    blocks: dict[str, str] = {}
    current: str | None = None
    lines: list[str] = []
    for line in load("queries.sql").splitlines():
        if line.startswith("-- name:"):
            if current:
                blocks[current] = "\n".join(lines).strip().rstrip(";")
            current, lines = line.split(":", 1)[1].strip(), []
        elif current:
            lines.append(line)
    if current:
        blocks[current] = "\n".join(lines).strip().rstrip(";")
    try:
        return blocks[name]
    except KeyError:
        raise KeyError(f"no query named {name!r} in sql/queries.sql") from None


def frame(con: "duckdb.DuckDBPyConnection", sql: str, params: Sequence[Any] | dict[str, Any] | None = None) -> pl.DataFrame:
    """Run a query with bound parameters and return a Polars frame (works on DuckDB 1.3 and 2.x)."""
    return con.sql(sql, params=params or None).pl()
