"""How a count is worded in every answer: ``counted(1, "card")`` is "1 card", ``counted(2_822, "row")`` "2,822 rows".

One place, so no message says "wrote 1 rows" or "The main deck has 1 cards" again: every sentence that puts a
number before a noun builds the pair here.
"""

from __future__ import annotations


def counted(n: int | float, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, the noun singular for exactly one and ``plural`` (``noun`` + "s") otherwise; whole
    numbers with thousands separators ("1,000 cards"), others as they are written shortest ("1.5 copies")."""
    number = f"{int(n):,}" if float(n).is_integer() else f"{n:g}"
    return f"{number} {noun if n == 1 else plural or noun + 's'}"
