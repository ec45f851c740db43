"""What a deck check answers: each :class:`Problem` (its ``kind``, one of ``PROBLEM_KINDS``), which line used which
name (:class:`LineName`), and the :class:`DeckReport` of one deck. Plain types, built by
:mod:`oracle_tools.decks.checker`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = ["PROBLEM_KINDS", "UNJUDGED_KINDS", "VERDICTS", "DeckReport", "LineName", "Problem"]

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
    "companion",
    "parse_error",
    "cannot_judge",
)

#: The kinds that say a card's legality is unknown (its data predates the format), not that the deck breaks a rule:
#: alone, they leave the deck neither legal nor illegal (``DeckReport.legal`` is None, the verdict "cannot_judge").
UNJUDGED_KINDS: frozenset[str] = frozenset({"cannot_judge"})

#: A deck's verdict: legal, not legal, or not fully judged (no rule broken, some card's legality unknown).
VERDICTS: tuple[str, ...] = ("legal", "not_legal", "cannot_judge")


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
    """The result of checking one deck. ``legal`` is True when there are no problems, False when a rule is broken,
    None when no rule is broken but some card could not be judged (``verdict`` says which in one word)."""

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

    @property
    def line_names(self) -> list[LineName]:
        """Which decklist line used which name, one per line naming a card."""
        return list(map(LineName._make, self.line_rows))

    @property
    def verdict(self) -> str:
        """One of VERDICTS: ``legal``, ``not_legal`` (a rule is broken) or ``cannot_judge`` (no rule is broken, but
        the legality of some card is unknown: its data predates the format)."""
        if not self.problems:
            return "legal"
        if all(p.kind in UNJUDGED_KINDS for p in self.problems):
            return "cannot_judge"
        return "not_legal"

    @property
    def legal(self) -> bool | None:
        """True: legal; False: not legal; None: could not be fully judged (see ``verdict``)."""
        verdict = self.verdict
        return None if verdict == "cannot_judge" else verdict == "legal"

    @property
    def lines(self) -> list[dict[str, Any]]:
        """Which decklist line used which name, one dict per line naming a card (``LineName``'s fields)."""
        return [x._asdict() for x in self.line_names]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "name": self.name,
            "player": self.player,
            "format": self.format,
            "legal": self.legal,
            "verdict": self.verdict,
            "problems": [p.to_dict() for p in self.problems],
            "counts": dict(self.counts),
            "commanders": list(self.commanders),
            "notes": list(self.notes),
            "lines": self.lines,
        }
