"""The one ``resolve`` (CR 201): what a string names, decided once over three lookup strategies.

:class:`NameResolver` makes every decision about a string once — exact name, then its folded key
(:func:`~oracle_tools.text.matching.normalize`), then with ``fuzzy`` Scryfall's word rule and a clear spelling
correction (:class:`~oracle_tools.text.matching.NameMatcher`), then "did you mean" — over lookups that three
strategies provide with the same answers: :class:`~oracle_tools.names.point.PointNames` (SQL point queries, for
a fresh process that asks about a few names), :class:`~oracle_tools.names.stored.StoredNames` (the same point
lookups on the names file the ingest writes beside the database: no DuckDB) and
:class:`~oracle_tools.names.index.NameIndex` (every name in memory, for many calls).
:class:`~oracle_tools.OracleDB` chooses between them in one place.

The answer types (:class:`Candidate`, :class:`Resolution`) and the ranking of kinds of names (``VIA_TIER``, from the
one table of kinds of names, :mod:`oracle_tools.names.kinds`) live here, Polars-free, so the point path imports
neither Polars nor rapidfuzz until a miss needs suggestions.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from oracle_tools.names.kinds import FORMER, SUGGESTED_VIAS, VIA_TIER, Status, Via

#: A decklist line's count before a name ('4 Lightning Bolt', '4x Lightning Bolt'): the name is group 1.
COUNTED_NAME = re.compile(r"\s*\d{1,4}\s*[xX]?\s+(\S.*?)\s*")

if TYPE_CHECKING:
    from oracle_tools.text.matching import NameMatcher


# -- the name rules, light ------------------------------------------------------------------------

# The kinds of names (``via``: tier, CR rule, wording, suggested or not) are one table, names/kinds.py; the
# resolver ranks by its VIA_TIER and suggests its SUGGESTED_VIAS.
__all__ = [
    "FUZZY_LOOKUPS",
    "MAX_NAME_CHARS",
    "SUGGESTED_VIAS",
    "VIA_TIER",
    "Candidate",
    "NameResolver",
    "Resolution",
    "Status",
    "Via",
]


@dataclass(frozen=True)
class Candidate:
    name: str
    oracle_id: str
    face: str | None
    via: Via


@dataclass(frozen=True)
class Resolution:
    """What a string names. ``status`` is ok, ambiguous or not_found; ``names`` is the 201.3 class."""

    query: str
    status: Status
    name: str | None = None
    face: str | None = None
    face_index: int | None = None
    oracle_id: str | None = None
    via: Via | None = None
    lang: str | None = None
    names: tuple[str, ...] = ()
    candidates: tuple[Candidate, ...] = ()
    suggestions: tuple[str, ...] = ()
    tokens: tuple[str, ...] = ()  # not_found: close token names (CR 111; not cards, 201.4), see `token NAME`
    # via "former": the card's names and when it was renamed (oracle_tools/history/changes.py); a meld result's or a
    # back face's note; a miss that is a decklist line ('4 Lightning Bolt'): the card the rest names (count_note)
    note: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def english_name(self) -> str | None:
        """The English name that matched: the face's name when a face matched, else the card's."""
        return self.face or self.name

    @property
    def shared_name(self) -> str | None:
        """The one name every candidate of an ambiguous answer has, when they are all the same card name and face
        (Unstable's six Sly Spies, the two B.F.M. halves): several Oracle cards print it, and whichever is meant,
        this is its name (CR 201.2a: identical names are the same name). None when the candidates' names differ
        (a foreign name two different cards print) or the answer is not ambiguous. Every door asks this one."""
        if self.status != "ambiguous" or len({(c.name, c.face) for c in self.candidates}) != 1:
            return None
        return self.candidates[0].face or self.candidates[0].name

    def miss_message(self) -> str:
        """One line for a string that names no one card: what it could be, or the names it is close to."""
        from oracle_tools.errors import did_you_mean, names_listed

        if self.status == "ambiguous":
            labels = [c.name + (f" (face {c.face})" if c.face else "") for c in self.candidates]
            repeated = {label for label in labels if labels.count(label) > 1}
            listed = "; ".join(
                # several Oracle cards printing one name (Unstable's Sly Spies) are told apart by their oracle_id
                label + (f" [{c.via}, oracle_id {c.oracle_id}]" if label in repeated else f" [{c.via}]")
                for label, c in zip(labels, self.candidates, strict=True)
            )
            if self.shared_name is not None:
                return (
                    f"{self.query!r} is ambiguous: {len(labels)} Oracle cards share the name {labels[0]} (the same "
                    f"name, CR 201.2a); `search oracleid:ID` shows each: {listed}"
                )
            return f"{self.query!r} is ambiguous: {listed}"
        close = (
            f" {did_you_mean(self.suggestions, sentence=True)}" if self.suggestions else " No card name is close to it."
        )
        tokens = (
            f" Token names (not cards; see `oracle-tools token NAME`): {names_listed(self.tokens)}."
            if self.tokens
            else ""
        )
        return f"{self.query!r} is not a card name.{close}{tokens}"

    def to_dict(self) -> dict[str, Any]:
        # the fields read directly: dataclasses.asdict deep-copies every value, which made a batch's answers
        # (one dict per line of a decklist or of `resolve --batch`) cost more than resolving them
        data = {name: getattr(self, name) for name in _RESOLUTION_FIELDS}
        data["names"] = list(self.names)
        data["candidates"] = [{name: getattr(c, name) for name in _CANDIDATE_FIELDS} for c in self.candidates]
        data["suggestions"] = list(self.suggestions)
        data["tokens"] = list(self.tokens)
        return data


_RESOLUTION_FIELDS = tuple(f.name for f in fields(Resolution))
_CANDIDATE_FIELDS = tuple(f.name for f in fields(Candidate))


#: The longest string taken as a name (the longest real card name has 141 characters): longer is bad input
#: (the CLI's exit 2, the server's 400), never a miss whose suggestions would repeat it.
MAX_NAME_CHARS = 1000


# -- one resolve ----------------------------------------------------------------------------------

# How many of the names a fuzzy string matched are looked up to tell whether they are one card: more
# names than this are several cards in practice ('jace' matches about 40) and answered as ambiguous.
FUZZY_LOOKUPS = 48


class NameResolver(ABC):
    """What a string names: the one ``resolve`` behind every interface.

    Two strategies implement the lookups it is made of (its abstract methods) —
    :class:`~oracle_tools.names.point.PointNames` (SQL point queries, for a fresh process) and :class:`~oracle_tools.names.index.NameIndex` (everything in memory, for many calls) —
    and give the same answers; the decisions (exact name, then the folded key, then with ``fuzzy``
    Scryfall's word rule and a clear spelling correction, then "did you mean") are made here once,
    with :class:`~oracle_tools.text.matching.NameMatcher`.
    """

    def prefetch(self, texts: Iterable[str]) -> None:
        """Look many strings up at once (a decklist); a no-op where everything is in memory."""
        return  # a no-op by default, not abstract: the in-memory strategy needs nothing

    @abstractmethod
    def lookup(self, text: str) -> Resolution | None:
        """The exact name, else the folded key (:func:`normalize`), else a key of its :func:`spaced_keys` (a comma or
        period glued between two letters read as a word break): ok or ambiguous; None when none is a name's."""

    @abstractmethod
    def matcher(self) -> NameMatcher:
        """The word and spelling matcher over the English card names (``SUGGESTED_VIAS``)."""

    @abstractmethod
    def token_matcher(self) -> NameMatcher:
        """The same over token names (CR 111: never cards, 201.4), for token misses."""

    def resolve(self, text: str, *, fuzzy: bool = False, suggest: int = 5) -> Resolution:
        """Resolve one string: exact name, then its folded key, then (only with ``fuzzy``) the card its words
        match (Scryfall's fuzzy rule; several cards are ``ambiguous``, never a guess); else ``not_found``
        with suggestions (cards) and close token names."""
        found = self.lookup(text)
        if found is not None:
            # a former name answers the card, saying so: never silently as its current name
            if found.via == FORMER:
                return replace(found, note=self.former_note(found.oracle_id))
            return self._noted(found)
        if fuzzy and (answer := self.fuzzy(text)) is not None:
            return self._noted(answer)
        return Resolution(
            query=text,
            status="not_found",
            # suggest=0 (the ingest's own lookups, before the suggestions' tables exist): no matcher is built
            suggestions=tuple(self.suggest(text, limit=suggest)) if suggest else (),
            tokens=tuple(self.suggest_tokens(text, limit=suggest)) if suggest else (),
            note=self.count_note(text) if suggest else None,
        )

    def count_note(self, text: str) -> str | None:
        """What a miss that is a decklist line ('4 Lightning Bolt', '1x Foudre') is: a count, then the name of a card;
        None for any other miss (a name that begins with a number, '1996 World Champion', is found before this)."""
        counted = COUNTED_NAME.fullmatch(text)
        found = self.lookup(counted.group(1)) if counted else None
        if counted is None or found is None or not found.ok:
            return None
        return (
            f"{text!r} begins with a count, as a decklist line does: {counted.group(1)!r} is the card {found.name}; "
            "a deck check reads decklists"
        )

    def fuzzy(self, text: str) -> Resolution | None:
        """Scryfall's fuzzy rule (``matching``): the one card the typed words decide, else ambiguous
        between the cards they may mean; None when they mean no card. A lone fragment decides by the names it
        fits, as a word beginning or inside a word: 'tarmo' fits Tarmogoyf only, so it is Tarmogoyf; 'aust'
        fits Austere Command, Exhaust and Holocaust, so it is ambiguous."""
        match = self.matcher().match(text)
        if not match.decisive:
            if not match.names:
                return None
            answer = self._one_card(text, match.names)
        else:
            answer = self._one_card(text, match.decisive)
            if not answer.ok and match.complete:  # 'wastelan': Wasteland, of the Wasteland cards
                complete = self._one_card(text, match.complete)
                answer = complete if complete.ok else answer
        return replace(answer, via="fuzzy", suggestions=match.names[:5]) if answer.ok else answer

    def _one_card(self, text: str, names: Sequence[str]) -> Resolution:
        """The one card ``names`` are names of, else ambiguous between their cards."""
        looked = list(names[:FUZZY_LOOKUPS])
        self.prefetch(looked)
        answers = [r for name in looked if (r := self.lookup(name)) is not None]
        cards: dict[str, Candidate] = {}
        for r in answers:
            if r.ok and r.oracle_id:
                cards.setdefault(r.oracle_id, Candidate(r.name or "", r.oracle_id, r.face, r.via or "name"))
            for c in r.candidates:
                cards.setdefault(c.oracle_id, c)
        if len(cards) == 1 and len(names) <= FUZZY_LOOKUPS:
            return replace(answers[0], query=text)
        candidates = tuple(cards.values())
        return Resolution(
            query=text,
            status="ambiguous",
            candidates=candidates,
            suggestions=tuple(dict.fromkeys(c.name for c in candidates)),
        )

    def _noted(self, found: Resolution) -> Resolution:
        """``found`` with the note saying what a meld result (CR 712.4b) or a back face (712.8a) is."""
        note = self.face_note(found) if found.ok and found.note is None else None
        return replace(found, note=note) if note else found

    @abstractmethod
    def face_note(self, found: Resolution) -> str | None:
        """What a meld result or a double-faced card's back face is (names/face_notes.py), None for another name."""

    @abstractmethod
    def former_note(self, oracle_id: str | None) -> str | None:
        """The note a renamed card's former name resolves with (its names, when it was renamed)."""

    @abstractmethod
    def interchangeable(self, name: str) -> tuple[str, ...]:
        """Every name that is the same name as ``name`` under CR 201.3a/b, itself included (sorted)."""

    @abstractmethod
    def class_id(self, name: str) -> str | None:
        """The ``name_classes.class_id`` of ``name`` (an English Oracle, face or interchangeable name), None when
        the name has no interchangeable names: the key deck checks count copies by (CR 201.3b)."""

    @abstractmethod
    def is_token_name(self, text: str) -> bool:
        """Whether ``text`` (any spelling) is the name of a token the database knows (CR 111)."""

    def known_classes(self) -> Mapping[str, tuple[str, ...]]:
        """Every name's CR 201.3 class (sorted names, itself included) when the strategy holds them all in memory;
        empty for a strategy that looks names up one at a time (the choosers' lists read it, 201.4g)."""
        return {}

    def suggest(self, text: str, limit: int = 5) -> list[str]:
        """Did you mean: English names whose words the input's words start (a legendary card's short name,
        CR 201.5c, lists the cards it shortens), then close spellings."""
        return self.matcher().suggest(text, limit)

    def suggest_tokens(self, text: str, limit: int = 5) -> list[str]:
        """The closest token names (predefined, named by effects, Scryfall token objects) — never cards."""
        return self.token_matcher().suggest(text, limit)
