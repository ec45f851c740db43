"""Plain-text tables for the CLI, from column names and rows of Python values.

Polars prints frames nicely, but importing it (and Arrow, to convert a DuckDB result) costs about 0.2 s:
more than a whole `sql` or `search` answer should take in a fresh process. This draws the same
box style as Polars' default (UTF8_FULL_CONDENSED) from rows fetched straight from DuckDB.
"""

from __future__ import annotations

import itertools
import json
import re
import unicodedata
from collections.abc import Sequence
from typing import Any


def blob_text(value: bytes) -> str:
    """A BLOB as DuckDB writes it as text (``CAST(b AS VARCHAR)``, its own CLI's form): printable ASCII as it is,
    every other byte and the backslash and quotes as ``\\xHH``; ``CAST(text AS BLOB)`` reads it back. What the
    table, CSV and JSON show instead of Python's ``b'…'``."""
    return "".join(chr(b) if 32 <= b <= 126 and b not in _BLOB_ESCAPED else f"\\x{b:02X}" for b in value)


_BLOB_ESCAPED = frozenset(b"\\'\"")


def cell(value: Any, max_chars: int) -> str:
    """A value as one table cell: None as null, lists and structs as JSON, control characters escaped (a
    query's text must not drive the terminal), long text cut with an ellipsis."""
    if value is None:
        text = "null"
    elif isinstance(value, bool):
        text = "true" if value else "false"  # as SQL and JSON write them
    elif isinstance(value, list | dict | tuple):
        text = json.dumps(value, ensure_ascii=False, default=str)
    elif isinstance(value, bytes):
        text = blob_text(value)
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
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    total: int | None = None,
    max_chars: int = 80,
    max_width: int | None = None,
) -> str:
    """The rows as a box table; with ``total`` larger than the rows given, a last row says how many more
    there are (the caller showed the first few). With ``max_width``, a table wider than that many terminal
    columns shows its first and last columns and one "…" column for those left out, as DuckDB's own CLI does."""
    return fitted_table(columns, rows, total=total, max_chars=max_chars, max_width=max_width)[0]


def fitted_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    total: int | None = None,
    max_chars: int = 80,
    max_width: int | None = None,
) -> tuple[str, int]:
    """:func:`table` and how many of the columns it shows."""
    shown = len(columns)
    cells = [[cell(v, max_chars) for v in row] for row in rows]
    if total is not None and total > len(rows):  # --json and --csv give every row
        cells.append([f"… {total - len(rows):,} more" if i == 0 else "…" for i in range(len(columns))])
    widths = [max([width(c)] + [width(r[i]) for r in cells]) for i, c in enumerate(columns)]
    if max_width is not None and _line_width(widths) > max_width and len(columns) > 1:
        keep = _columns_that_fit(widths, max_width)
        split = next((k for k, (a, b) in enumerate(itertools.pairwise(keep)) if b != a + 1), len(keep) - 1) + 1
        chosen = [*keep[:split], -1, *keep[split:]]
        shown = len(keep)
        columns = [columns[i] if i >= 0 else "…" for i in chosen]
        cells = [[r[i] if i >= 0 else "…" for i in chosen] for r in cells]
        widths = [widths[i] if i >= 0 else 1 for i in chosen]

    def line(values: Sequence[str]) -> str:
        return "│ " + " ┆ ".join(v + " " * (w - width(v)) for v, w in zip(values, widths)) + " │"

    out = ["┌─" + "─┬─".join("─" * w for w in widths) + "─┐", line(columns)]
    out.append("╞═" + "═╪═".join("═" * w for w in widths) + "═╡")
    out.extend(line(r) for r in cells)
    out.append("└─" + "─┴─".join("─" * w for w in widths) + "─┘")
    return "\n".join(out), shown


def _line_width(widths: Sequence[int]) -> int:
    return sum(widths) + 3 * (len(widths) - 1) + 4  # "│ " + " ┆ " between cells + " │"


def _columns_that_fit(widths: Sequence[int], max_width: int) -> list[int]:
    """Indexes of the first and last columns that fit beside a one-character "…" column: taken from the left
    and the right in turn (at least the first and the last)."""
    left, right = [0], [len(widths) - 1]
    used = _line_width([widths[0], 1, widths[-1]])
    lo, hi = 1, len(widths) - 2
    take_left = True
    while lo <= hi:
        index = lo if take_left else hi
        if used + widths[index] + 3 > max_width:
            break
        used += widths[index] + 3
        if take_left:
            left.append(lo)
            lo += 1
        else:
            right.insert(0, hi)
            hi -= 1
        take_left = not take_left
    return left + right
