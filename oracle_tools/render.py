"""Plain-text tables for the CLI, from column names and rows of Python values.

Polars prints frames nicely, but importing it (and Arrow, to convert a DuckDB result) costs about 0.2 s:
more than a whole `sql` or `search` answer should take in a fresh process (issue 14). This draws the same
box style as Polars' default (UTF8_FULL_CONDENSED) from rows fetched straight from DuckDB.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any


def cell(value: Any, max_chars: int) -> str:
    """A value as one table cell: None as null, lists and structs as JSON, long text cut with an ellipsis."""
    if value is None:
        text = "null"
    elif isinstance(value, list | dict | tuple):
        text = json.dumps(value, ensure_ascii=False, default=str)
    else:
        text = str(value)
    text = text.replace("\n", "\\n")
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def table(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], *, max_rows: int | None = None, max_chars: int = 80
) -> str:
    """The rows as a box table; with ``max_rows``, the first ``max_rows`` rows and a line saying how many more."""
    shown = rows if max_rows is None else rows[:max_rows]
    cells = [[cell(v, max_chars) for v in row] for row in shown]
    if len(shown) < len(rows):  # a last row that says what was left out (--json and --csv give every row)
        cells.append([f"… {len(rows) - len(shown):,} more" if i == 0 else "…" for i in range(len(columns))])
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]

    def line(values: Sequence[str]) -> str:
        return "│ " + " ┆ ".join(v.ljust(w) for v, w in zip(values, widths)) + " │"

    out = ["┌─" + "─┬─".join("─" * w for w in widths) + "─┐", line(columns)]
    out.append("╞═" + "═╪═".join("═" * w for w in widths) + "═╡")
    out.extend(line(r) for r in cells)
    out.append("└─" + "─┴─".join("─" * w for w in widths) + "─┘")
    return "\n".join(out)
