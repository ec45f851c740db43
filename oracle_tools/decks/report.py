"""What a deck check answers: each :class:`Problem` (its ``kind``, one of ``PROBLEM_KINDS``), which line used which
name (:class:`LineName`), and the :class:`DeckReport` of one deck. Plain types, built by
:mod:`oracle_tools.decks.checker`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

__all__ = ["PROBLEM_KINDS", "DeckReport", "LineName", "Problem"]

PROBLEM_KINDS: tuple[str, ...] = (
    "unknown_card",
    "not_legal",
    "banned",
    "restricted",
    "too_many_copies",
    "deck_size",
    "sideboard_size",
    "color_identity",
    "commander",
    "parse_error",
)


class Problem(NamedTuple):
    """One reason a deck is not legal: ``kind`` (see PROBLEM_KINDS), the card, its line, and why.

    A NamedTuple rather than a frozen dataclass: a batch of real decks makes ~100k of them, and a tuple is
    built four times faster (every format checks >= 5,000 decks/s)."""

    kind: str
    card: str | None
    line: int | None
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()


class LineName(NamedTuple):
    """Which decklist line used which name."""

    line: int | None
    section: str
    count: int  # type: ignore[assignment]  # the copies on the line (the JSON key); shadows tuple.count
    written: str  # the name as written
    card: str  # its Oracle name
    oracle_id: str
    via: str  # how the name resolved: name, face, interchangeable, flavor, ...; CR 201.3b / 201.6 names count as the card


@dataclass
class DeckReport:
    """The result of checking one deck. ``legal`` is True iff there are no problems."""

    format: str
    source: str
    problems: list[Problem]
    counts: dict[str, int]
    commanders: list[str] = field(default_factory=list)
    name: str | None = None
    player: str | None = None
    notes: list[str] = field(default_factory=list)
    # one per decklist line naming a card, plain tuples in LineName's field order: a batch of decks makes ~100k of
    # them and never reads them, so the named form is made on demand (line_names, lines)
    line_rows: list[tuple[Any, ...]] = field(default_factory=list)

    LINE_FIELDS: ClassVar[tuple[str, ...]] = LineName._fields

    @property
    def line_names(self) -> list[LineName]:
        """Which decklist line used which name, one per line naming a card."""
        return list(map(LineName._make, self.line_rows))

    @property
    def legal(self) -> bool:
        return not self.problems

    @property
    def lines(self) -> list[dict[str, Any]]:
        """Which decklist line used which name, one dict per line naming a card (``LINE_FIELDS``)."""
        return [x._asdict() for x in self.line_names]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "name": self.name,
            "player": self.player,
            "format": self.format,
            "legal": self.legal,
            "problems": [p.to_dict() for p in self.problems],
            "counts": dict(self.counts),
            "commanders": list(self.commanders),
            "notes": list(self.notes),
            "lines": self.lines,
        }
