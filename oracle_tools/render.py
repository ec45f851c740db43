"""Plain-text tables for the CLI, from column names and rows of Python values.

Polars prints frames nicely, but importing it (and Arrow, to convert a DuckDB result) costs about 0.2 s:
more than a whole `sql` or `search` answer should take in a fresh process (issue 14). This draws the same
box style as Polars' default (UTF8_FULL_CONDENSED) from rows fetched straight from DuckDB.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from typing import Any


def cell(value: Any, max_chars: int) -> str:
    """A value as one table cell: None as null, lists and structs as JSON, control characters escaped (a
    query's text must not drive the terminal), long text cut with an ellipsis."""
    if value is None:
        text = "null"
    elif isinstance(value, bool):
        text = "true" if value else "false"  # as SQL and JSON write them
    elif isinstance(value, list | dict | tuple):
        text = json.dumps(value, ensure_ascii=False, default=str)
    else:
        text = str(value)
    text = _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def width(text: str) -> int:
    """Terminal columns of ``text``: East Asian wide and fullwidth characters take two (Japanese, Chinese and
    Korean printed names), combining marks none."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def table(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], *, total: int | None = None, max_chars: int = 80
) -> str:
    """The rows as a box table; with ``total`` larger than the rows given, a last row says how many more
    there are (the caller showed the first few)."""
    cells = [[cell(v, max_chars) for v in row] for row in rows]
    if total is not None and total > len(rows):  # --json and --csv give every row
        cells.append([f"… {total - len(rows):,} more" if i == 0 else "…" for i in range(len(columns))])
    widths = [max([width(c)] + [width(r[i]) for r in cells]) for i, c in enumerate(columns)]

    def line(values: Sequence[str]) -> str:
        return "│ " + " ┆ ".join(v + " " * (w - width(v)) for v, w in zip(values, widths)) + " │"

    out = ["┌─" + "─┬─".join("─" * w for w in widths) + "─┐", line(columns)]
    out.append("╞═" + "═╪═".join("═" * w for w in widths) + "═╡")
    out.extend(line(r) for r in cells)
    out.append("└─" + "─┴─".join("─" * w for w in widths) + "─┘")
    return "\n".join(out)
