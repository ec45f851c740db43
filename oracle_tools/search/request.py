"""One search as a door receives it: the query and how its answer is shaped (Scryfall's ``unique``, ``order``,
``dir``, ``include_extras``, ``include_multilingual``). Frozen and hashable, so a cache keys on it whole and a
new option reaches every door that passes a request along."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb
    import polars as pl


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A query with its display options; keywords inside the query (``unique:``, ``order:``) win over them."""

    query: str
    unique: str = "cards"
    order: str = "name"
    direction: str = "auto"
    #: Scryfall's include_extras (as ``include:extras`` in the query)
    extras: bool = False
    #: Scryfall's include_multilingual (as ``lang:any`` in the query)
    multilingual: bool = False

    def run(
        self, con: duckdb.DuckDBPyConnection, *, nameable: Callable[[str], list[str]] | None = None
    ) -> pl.DataFrame:
        """The cards or printings it finds (:func:`oracle_tools.search.run`)."""
        from oracle_tools import search

        return search.run(
            con,
            self.query,
            unique=self.unique,
            order=self.order,
            direction=self.direction,
            nameable=nameable,
            extras=self.extras,
            multilingual=self.multilingual,
        )
