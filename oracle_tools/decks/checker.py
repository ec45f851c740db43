"""Deck legality: check a parsed decklist against a format's construction rules.

Every card name goes through the name resolver (:meth:`OracleDB.resolve`), so ``Fire/Ice``,
``Fire // Ice``, ``Fire``, foreign printed names and alternate names all count as the one Oracle
card; names that stay unknown are problems with suggestions, never a crash.

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")                                     # doctest: +SKIP
>>> report = db.check_deck("4 Lightning Bolt\\n4 Fire/Ice\\n52 Mountain", format="modern")  # doctest: +SKIP
>>> report.legal, [p.kind for p in report.problems]                        # doctest: +SKIP
(True, [])
>>> db.check_decks(["decks/a.txt", "decks/b.dek"], format="legacy")       # doctest: +SKIP
shape: (…, 8)   # one row per problem: deck, source, name, player, kind, card, line, detail

What is checked (each :class:`Problem` has a ``kind``, the ``card``, the decklist ``line`` and a
one-sentence ``detail`` citing the rule):

* ``parse_error``: lines :func:`~oracle_tools.decks.decklist.parse_decklist` could not read.
* ``unknown_card``: a name that does not resolve (suggestions in the detail), an ambiguous name
  (candidates), or a token (tokens are not cards, CR 111.1).
* ``not_legal`` / ``banned`` / ``restricted``: the ingested ``legalities`` table; a restricted
  card may appear once (main deck and sideboard together).
* ``cannot_judge``: a card whose legalities have no row for the format: they come from a file written before
  Scryfall had the format (its data predates it) or that leaves it out. The legality is unknown, not "not legal":
  alone, these leave the deck "could not be fully judged" (``DeckReport.legal`` None, ``verdict`` cannot_judge).
* ``too_many_copies``: 4 in constructed (CR 100.2a; the sideboard counts, 100.4a), 1 in singleton
  formats (903.5b). Basic lands (the Basic supertype: snow basics and Wastes included) are
  unlimited. A card's own Oracle text overrides the limit: "A deck can have any number of cards
  named X" (unlimited), "A deck can have up to seven/nine cards named X" (that number), "A deck can
  have only one card named X" (1). "Search your library for up to three cards named X" (Squadron
  Hawk) is not a deck limit. X is the card's own ``named`` mention in the ``name_references`` table
  (read by :mod:`oracle_tools.text.oracletext`, the one home of "named X"). Interchangeable names count
  as one name (CR 201.3b).
* ``deck_size``: the format's minimum (60 constructed, 100.2a; 40 limited, 100.2b) or exact size
  (100 in Commander including the commander(s), 903.5a / 702.124b).
* ``sideboard_size``: at most 15 in constructed (100.4a); Commander uses no sideboard (903.5e).
* ``commander``: Commander formats only: a commander must be a legendary creature (front face),
  a legendary Vehicle or Spacecraft with power/toughness (903.3), or say it "can be your commander"
  (903.3a); two commanders must be a partner pair (702.124: partner, partner with [name],
  partner—[text] / friends forever, choose a Background + legendary Background, Doctor's companion +
  Time Lord Doctor).
* ``color_identity``: every card's color identity (all faces, as Scryfall computes it: 903.4d/e)
  within the commander's (both commanders' together, 702.124c) (903.5c; the color of a basic land type's mana,
  903.5d, whose reminder text identity ignores, 903.4c); in Brawl, a colorless commander's deck
  may hold basic lands of one basic land type, the one most of its basic lands have (903.12e). A commander whose
  color is chosen before the game begins (The Prismatic Piper) adds the color most of the cards outside need, with a
  note (903.4b). A Commander section name that is no deck card (unknown, a meld result) leaves the identity
  unjudged, with a note (702.124c).

* ``companion``: the card of the list's Companion section (Arena's, Moxfield's, a plain ``Companion`` header) must
  have companion and its condition must be fulfilled by the starting deck (CR 702.139a; the main deck, the
  commander included in a commander format, 702.139b; the companion itself is outside the game); one at most
  (103.2b). The condition is read from the card's Oracle text (:mod:`oracle_tools.decks.companion`); one no shape
  reads is ``cannot_judge``. A card with companion in the sideboard of a list without a Companion section (MTGO's
  lists) is not taken for the companion: a note says whether its condition would be fulfilled. In a commander
  format, a Commander section of two cards sharing no partner ability, one with companion beside one that can lead
  alone (MTGmelee's and MTGO's caches keep both in the sideboard), is read as the commander and the companion.
  A Commander companion is no card of the deck (903.5b, 903.5c), but one brought in from outside the game: a color
  outside the commander's identity (``color_identity``) or the name of a card of the starting deck (``companion``)
  refuses it (903.11a).

* Nontraditional cards (CR 108.2a: "not included in players' decks"): an Attraction (717.2), a Contraption
  (701.45a), a conspiracy outside the sideboard (315.3, 905.4) is set apart: not counted in its section, with a
  note saying where the rules put it; an Attraction deck has at least ten cards of different English names in
  constructed play (717.2a), three in limited (717.2b) (``deck_size``, ``too_many_copies``). A plane, phenomenon,
  scheme or vanguard (the data's no-card objects) is ``not_legal``: its variant is casual (900.1).

Copies are counted over the main deck, sideboard, commander and companion together; the maybeboard
is not part of the deck and is ignored.

The per-card facts the checks read are :mod:`oracle_tools.decks.cardrules` (:class:`CardRules`); the answers'
types are :mod:`oracle_tools.decks.report`. This module is the checker.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from oracle_tools.decks import companion
from oracle_tools.decks.cardrules import (
    NONTRADITIONAL,
    CardRules,
    CardRulesTable,
    Nontraditional,
    card_rules,
    color_bits,
    deck_limit_from_text,
    identity_letters,
    read_card_facts,
    stored_deck_limits,
)
from oracle_tools.decks.decklist import (
    DeckEntry,
    Decklist,
    decklists_from_json,
    decode_decklist,
    echo,
    parse_decklist,
    refuse_unreadable,
)
from oracle_tools.decks.formats import ALIASES, FORMATS, FormatRules, format_rules, no_legalities
from oracle_tools.decks.report import PROBLEM_KINDS, DeckReport, Problem
from oracle_tools.errors import DecklistError, DeckTooLargeError, did_you_mean, names_listed
from oracle_tools.names.face_notes import back_face_note, meld_result_note
from oracle_tools.names.kinds import DECK_RULES, Via
from oracle_tools.names.same_name import same_named_cards
from oracle_tools.store import layouts
from oracle_tools.text import vocabulary
from oracle_tools.text.counts import counted

if TYPE_CHECKING:
    import duckdb
    import polars as pl

    from oracle_tools.names.resolver import NameResolver, Resolution

__all__ = [
    "FORMATS",
    "FORMAT_ALIASES",
    "PROBLEM_KINDS",
    "DeckChecker",
    "DeckReport",
    "FormatRules",
    "Problem",
    "deck_limit_from_text",
    "format_rules",
    "stored_deck_limits",
    "to_decklists",
]

DeckInput = Decklist | str | Path

# --------------------------------------------------------------------------- formats


# The formats and their construction rules live in oracle_tools/decks/formats.py (one table for search and decks).
FORMAT_ALIASES = ALIASES


# --------------------------------------------------------------------------- inputs


def to_decklists(item: DeckInput, *, limits: bool = False) -> list[Decklist]:
    """A Decklist, a file path (a JSON cache gives all its decks) or decklist text, as Decklists.

    A ``str`` is a path when it has no line break and names an existing file; otherwise it is text.
    Raises DecklistError when a file cannot be read; with ``limits``, DeckTooLargeError for text or a file of more
    than MAX_DECK_LINES card lines, before it is parsed (:func:`check_text_size`).
    """
    if isinstance(item, Decklist):
        return [item]
    if isinstance(item, Path) or (isinstance(item, str) and "\n" not in item and len(item) < 4096 and _is_file(item)):
        from oracle_tools.decks.decklist import read_decklist_text

        path = Path(item)
        return decklists_from_text(read_decklist_text(path), str(path), how_to_lift=LIFT_LIMITS if limits else None)
    if isinstance(item, str):
        if limits:
            check_text_size(item, "decklist text")
        return [parse_decklist(item)]
    raise TypeError(f"expected a Decklist, a path or decklist text, got {type(item).__name__}")


def decklist_from_text(text: str, source: str, *, how_to_lift: str | None = None) -> Decklist:
    """One deck's text as every door reads it (a file, standard input, a request body, a pasted list, an MCP
    argument): any decklist format, parsed as text, never taken for a path. ``source`` names the text in the deck
    and in the DecklistError of text that begins as JSON and does not parse (one line, never a deck of 0 cards
    judged). With ``how_to_lift`` (the door's way to lift the limits), text of more than MAX_DECK_LINES card lines
    raises DeckTooLargeError before it is parsed."""
    if how_to_lift is not None:
        check_text_size(text, source, how_to_lift=how_to_lift)
    return refuse_unreadable(parse_decklist(text, source=source))


def decklists_from_text(text: str, source: str, *, how_to_lift: str | None = None) -> list[Decklist]:
    """:func:`decklist_from_text` for the doors that check many decks: a JSON tournament cache gives all its
    decks."""
    deck = decklist_from_text(text, source, how_to_lift=how_to_lift)
    return decklists_from_json(text, source) if _holds_several(deck) else [deck]


def decklists_from_bytes(data: bytes, source: str, *, how_to_lift: str | None = None) -> list[Decklist]:
    """:func:`decklists_from_text` of a decklist's bytes (a request body), decoded as a file is (UTF-8, UTF-16 with
    a BOM, Windows-1252; DecklistError when they are no decklist: empty, binary, undecodable). With
    ``how_to_lift``, bytes of more than MAX_DECK_LINES card lines are refused before they are decoded."""
    if how_to_lift is not None:
        check_bytes_size(data, source, how_to_lift=how_to_lift)
    return decklists_from_text(decode_decklist(data, source), source, how_to_lift=how_to_lift)


def _holds_several(deck: Decklist) -> bool:
    """Whether a parsed file was a JSON cache of several decks (read again with the cache reader)."""
    return (
        deck.format == "json_cache"
        and not deck.entries
        and bool(deck.problems)
        and "decklists, not one" in deck.problems[0].detail
    )


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


# --------------------------------------------------------------------------- the checker


@dataclass(frozen=True, slots=True)
class _Miss:
    detail: str
    apart: bool = False  # a nontraditional card the data holds as no card (a plane): set apart, not_legal


class CardHit(NamedTuple):
    """A decklist name that is a card: its rules, the key its copies count under and how the name resolved."""

    rules: CardRules
    class_key: str  # CR 201.3b: the name class's id (name_classes.class_id), else the card's oracle_id
    via: Via | None  # None only for a resolution that carries no kind (never from the resolver)


class _Tally(NamedTuple):
    """What one pass over a deck's entries finds (:meth:`DeckChecker._tally`)."""

    counts: dict[str, int]  # each section's card count
    copies: dict[str, _Copies]  # the copies per 201.3 name class, by class key
    found: list[tuple[DeckEntry, CardRules]]  # each entry that is a card
    used: list[tuple[Any, ...]]  # LineName rows: which line used which name


class _Copies:
    """The copies of one 201.3 name class in a deck: the card and each decklist entry naming it, with how its name
    resolved. Lines and names are gathered only for the message of a problem (most classes have none)."""

    __slots__ = ("card", "uses")

    def __init__(self, card: CardRules, uses: list[tuple[DeckEntry, Via | None]]) -> None:
        self.card, self.uses = card, uses

    @property
    def total(self) -> int:
        uses = self.uses
        return uses[0][0].count if len(uses) == 1 else sum(e.count for e, _ in uses)

    @property
    def lines(self) -> list[int]:
        return [e.line for e, _ in self.uses]

    @property
    def written(self) -> dict[str, tuple[Via | None, list[int]]]:
        """Each name written for the card, with how it resolved and its lines."""
        out: dict[str, tuple[Via | None, list[int]]] = {}
        for e, via in self.uses:
            out.setdefault(e.name, (via, []))[1].append(e.line)
        return out


class DeckChecker:
    """Per-database precomputed facts (built once, cached on :class:`OracleDB`) and the checks."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, names: NameResolver, cards: dict[str, CardRules] | None = None
    ) -> None:
        """``cards``: the per-card rules to start from; None builds them for every card of the database (a
        :class:`PointDeckChecker` starts from none and loads the cards of the decks it checks)."""
        self._con = con
        self._names = names
        self.cards: Mapping[str, CardRules] = CardRulesTable(con) if cards is None else cards
        self._legal: dict[str, dict[str, str]] = {}
        self._resolved: dict[str, CardHit | _Miss] = {}
        self._misses: dict[str, Any] = {}  # names prefetch() found unknown, as not_found Resolutions
        self._details: dict[tuple[str, str, str | None], str] = {}  # not_legal sentences, made once
        self._card_file: dict[str, str] = {}  # oracle_id -> the file its legalities come from (cards not judged)
        self._files: dict[str, Any] = {}  # file -> its sources.LegalityFile (read when a card cannot be judged)
        self._knowing: dict[str, str | None] = {}  # format -> the oldest date of the files that have its legalities
        # the card a name several Oracle cards print stands for (its lowest oracle_id) -> every one of them
        self._same_named: dict[str, tuple[str, ...]] = {}
        # oracle_id -> its characteristics in a library, read for the decks that name a companion (CR 702.139)
        self._library: dict[str, companion.LibraryFacts] = {}
        self._back_face: dict[str, str] = {}  # decklist name -> the DFC back face it named (CR 712.8a; a note says so)

    def on_connection(self, con: duckdb.DuckDBPyConnection) -> DeckChecker:
        """This checker reading what it loads lazily (a format's legalities) on ``con``, one thread's cursor: the
        card rules and every cache are shared (their entries are written whole, so threads may fill them)."""
        import copy

        view = copy.copy(self)
        view._con = con
        return view

    # -- per-format legality, loaded on first use ---------------------------------------------

    def legality(self, fmt: str) -> dict[str, str]:
        """oracle_id -> status (legal, not_legal, banned, restricted) in one format."""
        table = self._legal.get(fmt)
        if table is None:
            # one row of the format says it is there (reading every row's format cost a fresh process ~4 MB); the
            # formats the table has are read for the error only
            if not self._con.execute("SELECT 1 FROM legalities WHERE format = $fmt LIMIT 1", {"fmt": fmt}).fetchall():
                known = sorted(f for (f,) in self._con.execute("SELECT DISTINCT format FROM legalities").fetchall())
                raise no_legalities(fmt, known)
            table = self._legal[fmt] = dict(self._format_statuses(fmt))
        return table

    def _format_statuses(self, fmt: str) -> list[tuple[str, str]]:
        """(oracle_id, status) in ``fmt`` of the cards this checker holds: every card of the database."""
        return self._con.execute("SELECT oracle_id, status FROM legalities WHERE format = ?", [fmt]).fetchall()

    # -- names ---------------------------------------------------------------------------------

    def card(self, name: str) -> CardHit | _Miss:
        """The card a decklist name is, or a _Miss saying why it is no card."""
        hit = self._resolved.get(name)
        if hit is None:
            hit = self._resolve(name)
            if len(self._resolved) < 200_000:
                self._resolved[name] = hit
        return hit

    def _found(self, res: Resolution) -> CardHit | None:
        rules = self.cards.get(res.oracle_id or "")
        if rules is None:
            return None
        # CR 201.3b: a name of an interchangeable class counts with the others of its class
        # (name_classes.class_id; an OM1 name and its Spider-Man Oracle name are one class)
        key = (
            (res.name and self._names.class_id(res.name))
            or (res.face and self._names.class_id(res.face))
            or rules.oracle_id
        )
        return CardHit(rules, key, res.via)

    @property
    def names(self) -> NameResolver:
        """The strategy of the one ``resolve`` this checker reads names with."""
        return self._names

    def prefetch(self, names: Iterable[str]) -> None:
        """Look up the names not seen yet together (a batch of decks): the strategy reads them in one go (one
        query for the point strategy, dicts for the warm index), and the misses' suggestions come from one
        :meth:`~oracle_tools.text.matching.NameMatcher.suggest_many` (a first ``check_decks`` of 3,000 real
        decks meets ~2,000 distinct unknown names)."""
        todo = self._unseen(names)
        if len(todo) < 64:
            return
        self._names.prefetch(todo)
        missed = [text for text in todo if self._names.lookup(text) is None]
        if not missed:
            return
        from oracle_tools.names.resolver import Resolution

        found = self._names.matcher().suggest_many(missed, 5)  # as resolve's
        for text, suggestions in zip(missed, found):
            self._misses[text] = Resolution(query=text, status="not_found", suggestions=tuple(suggestions))

    def _unseen(self, names: Iterable[str]) -> list[str]:
        """The names (and the parts before " // " a miss is retried with) not judged yet."""
        todo = [n for n in dict.fromkeys(names) if n not in self._resolved and n not in self._misses]
        return todo + [h for n in todo if "/" in n and (h := _head(n))]

    def _resolve(self, name: str) -> CardHit | _Miss:
        index = self._names
        res = self._misses.get(name) or index.resolve(name)
        if res.status == "ok" and (found := self._found(res)):
            if found.rules.meld_result:
                return self._meld_result(name, found.rules)
            if res.face and res.face in found.rules.back_faces:
                self._back_face[name] = res.face
            return _sticker_sheet(name, found.rules) or found
        first = res
        # mtgtop8 writes an Unfinity sticker sheet's three words with slashes ("Misunderstood/Trapeze/Elf"): read so
        # only to say it is a sheet, never to make a card of it
        if res.status != "ok" and "/" in name:
            sheet = index.lookup(re.sub(r"\s*/+\s*", " ", name.strip()))
            if (
                sheet is not None
                and sheet.ok
                and (found := self._found(sheet))
                and (miss := _sticker_sheet(name, found.rules))
            ):
                return miss
        # Decks write "Scavenger Regent // Exude Toxin // Scavenger Regent" (omen) and
        # "Clarion Conqueror // Clarion Conqueror": try the part before the first " // ".
        if res.status != "ok" and "/" in name:
            head = _head(name)
            if head and head != name:
                res2 = self._misses.get(head) or index.resolve(head)
                if res2.status == "ok" and (found := self._found(res2)):
                    return found
        stripped = name.strip()
        if stripped.casefold().endswith(" token") or index.is_token_name(stripped):
            # the data's planes, schemes, vanguards and emblems are no cards of the Oracle reference, named as tokens are
            if apart := self._no_card_of_a_deck(stripped):
                return apart
            return _Miss(f"'{echo(name)}' is a token, not a card; tokens are not part of a deck (CR 111.1).")
        if first.status == "ambiguous" and (shared := self._one_of_same_name(first)):
            return shared
        if first.status == "ambiguous":
            cands = names_listed(dict.fromkeys(c.name for c in first.candidates))
            return _Miss(f"'{echo(name)}' could be several cards: {cands}; write the full English name.")
        if first.status == "ok":
            return _Miss(f"'{echo(name)}' names {first.name}, which is not a card that can be in a deck.")
        sugg = first.suggestions[:3]  # resolve's own closest names (the top 3 of its 5)
        hint = did_you_mean(sugg) if sugg else "no card name is close."
        return _Miss(f"'{echo(name)}' is not a card name in the database; {hint}")

    def _meld_result(self, name: str, card: CardRules) -> _Miss:
        """CR 712.4b: "The back faces of a meld pair are used only to determine the characteristics of the melded
        permanent" -- a meld result is printed on the back of its two meld cards and is no card of its own, so no
        deck holds it (712.8: a meld card's front face alone is the card in every zone but the battlefield)."""
        parts = [
            n
            for (n,) in self._con.execute(
                "SELECT DISTINCT part_name FROM parts WHERE oracle_id = ? AND component = 'meld_part' ORDER BY 1",
                [card.oracle_id],
            ).fetchall()
        ]
        which = "" if name.strip().casefold() == card.name.casefold() else f" ({card.name})"
        return _Miss(f"'{echo(name)}'{which} is {meld_result_note(parts)}.")

    def _back_face_notes(self, found: Iterable[tuple[DeckEntry, CardRules]]) -> list[str]:
        """A note for each line that names a double-faced card by its back face: the card is counted (CR 712.8a:
        outside the battlefield and stack a double-faced card has only its front face's characteristics)."""
        notes = []
        for e, card in found:
            if card.back_faces and (face := self._back_face.get(e.name)):
                front = card.name.split(" // ")[0]
                at = f"line {e.line}: " if e.line else ""
                which = "" if e.name.strip().casefold() == face.casefold() else f" ({face})"
                notes.append(f"{at}'{echo(e.name)}'{which} is {back_face_note(front)}")
        return notes

    def _one_of_same_name(self, res: Resolution) -> CardHit | None:
        """A name several Oracle cards print alike (Unstable's six Sly Spies): a list cannot say which one it
        means, but it names them all by one name, so their copies count together (CR 201.2a, 201.3b) under the
        card of the lowest oracle_id; their legality is judged once all of them are looked at (see
        :meth:`_same_name_status`). None when the cards' names differ (a foreign name two cards print)."""
        from oracle_tools.names.resolver import Resolution

        oids = same_named_cards(res)
        if not oids:
            return None
        self.load(oids)
        first = next(c for c in res.candidates if c.oracle_id == oids[0])
        hit = self._found(
            Resolution(query=res.query, status="ok", name=first.name, face=first.face, oracle_id=first.oracle_id)
        )
        if hit is None or any(oid not in self.cards for oid in oids):
            return None
        self._same_named[first.oracle_id] = oids
        return CardHit(hit.rules, hit.class_key, first.via)

    def _no_card_of_a_deck(self, name: str) -> _Miss | None:
        """The note of a name of an object the data holds as no card that is a nontraditional card (a plane, a
        scheme, a vanguard: CR 108.2a), an emblem (114.5) or one of Scryfall's inserts of type line "Card" (a
        decklist, a bio, an ad), None for anything else (a token)."""
        row = self._con.execute(
            "SELECT name, type_line, object_kind FROM cards WHERE NOT is_card AND lower(name) = lower($name) "
            "ORDER BY name LIMIT 1",
            {"name": name},
        ).fetchone()
        if row is None:
            return None
        name, type_line, object_kind = row
        if object_kind == "emblem":
            # CR 114.5: "An emblem is neither a card nor a permanent." (a token represents a permanent, 111.1)
            return _Miss(
                f"'{echo(name)}' is an emblem, not a card; an emblem is neither a card nor a permanent and is not "
                "part of a deck (CR 114.5)."
            )
        if type_line == "Card" or (type_line or "").startswith("Card //"):
            return _Miss(
                f"'{echo(name)}' is an insert printed beside cards (a player's decklist, a bio or an ad: type line "
                "“Card”), not a Magic card; it is not part of a deck."
            )
        words = (type_line or "").split(" // ")[0].replace("—", " ").split()
        kind = next((w for w in words if w in NONTRADITIONAL), None)
        if kind is None:
            return None
        what = NONTRADITIONAL[kind]
        variant = f"; {what.variant} is a casual variant (CR 900.1), played in no format a deck is checked against"
        return _Miss(_apart_sentence(name, what) + (variant if what.variant else "") + ".", apart=True)

    def load(self, oids: Sequence[str]) -> None:
        """Make sure these cards' rules are held: every card's already are (a point checker loads them)."""
        return

    def _same_name_status(self, card: CardRules, legal: Mapping[str, str]) -> tuple[str | None, str | None]:
        """The legality of the card a name several Oracle cards print stands for: theirs when they all have the
        same (judged), else no status and the sentence saying the list cannot tell them apart."""
        oids = self._same_named.get(card.oracle_id, (card.oracle_id,))
        statuses = {legal.get(oid) for oid in oids}
        if len(statuses) == 1:
            return statuses.pop(), None
        each = "; ".join(f"oracle_id {oid}: {legal.get(oid) or 'no status'}" for oid in oids)
        return None, (
            f"{len(oids)} Oracle cards are named {card.name} and differ in legality here ({each}); a decklist "
            "cannot tell them apart (the same name, CR 201.2a): check the one you play yourself."
        )

    # -- the checks ----------------------------------------------------------------------------

    def check(self, deck: Decklist, fmt: str | FormatRules, *, commanders: Iterable[str] | None = None) -> DeckReport:
        rules = format_rules(fmt)
        problems: list[Problem] = []
        notes: list[str] = []
        add = problems.append
        for p in deck.problems:
            add(Problem("parse_error", p.raw or None, p.line or None, p.detail))  # raw: at most MAX_ECHO characters
        notes.extend(f"line {n.line}: {n.detail}" if n.line else n.detail for n in deck.notes)
        if rules.commander:
            deck = self._companion_beside_the_commander(deck, rules, notes)
        counts, tally, found, used = self._tally(deck, add, notes)
        if self._back_face:
            notes.extend(self._back_face_notes(found))
        # commander designation first: commander formats count the commander as part of the deck
        cmd_cards: list[tuple[DeckEntry | None, CardRules]] = []
        if rules.commander:
            cmd_cards = self._commanders(deck, found, commanders, notes, add, rules)
        elif commanders and any(c.strip() for c in commanders):
            notes.append(_not_a_commander_format(rules))
        self._check_legality_and_copies(tally, rules, cmd_cards, add)
        self._check_deck_size(counts, rules, cmd_cards, add)
        self._check_sideboard(deck, counts, rules, add)
        self._check_attraction_deck(found, rules, add)
        if rules.commander and cmd_cards:
            unknown = _unknown_commanders(deck, found, rules)
            if unknown:
                # CR 702.124c: two commanders' color identities combine; one that is no deck card leaves it unknown
                notes.append(
                    f"color identity not judged: the Commander section's {', '.join(unknown)} is no card a deck "
                    "can hold here (see its problem), and a deck's color identity is its commanders' together "
                    "(CR 702.124c, 903.5c)"
                )
            else:
                self._check_color_identity(found, cmd_cards, rules, add, notes)
        if counts["companion"] or any(c.companion is not None for e, c in found if e.section == "sideboard"):
            self._check_companion(found, cmd_cards, counts, rules, add, notes)
        problems.sort(key=lambda p: (p.line is None, p.line or 0))  # stable: same line keeps check order
        return DeckReport(
            format=rules.key,
            source=deck.source,
            problems=problems,
            counts=counts,
            commanders=[c.name for _, c in cmd_cards],
            name=deck.name,
            player=deck.player,
            notes=notes,
            line_rows=used,
        )

    def _companion_beside_the_commander(self, deck: Decklist, rules: FormatRules, notes: list[str]) -> Decklist:
        """A list whose Commander section holds two single cards that share no partner ability (CR 702.124a), one of
        them with companion beside one that can be the commander alone, and no Companion section: the companion is
        read as the companion (CR 702.139a), with a note. MTGmelee's and MTGO's Commander lists keep the commander
        and the companion in the sideboard, which the cache reader takes for the Commander section; read as two
        commanders, the deck had a pair without partner and 101 cards (903.5a)."""
        listed = [e for e in deck.entries if e.section == "commander"]
        if len(listed) != 2 or any(e.count != 1 for e in listed) or any(e.section == "companion" for e in deck.entries):
            return deck
        hits = [self.card(e.name) for e in listed]
        if not (isinstance(hits[0], CardHit) and isinstance(hits[1], CardHit)):
            return deck
        cards = [hits[0].rules, hits[1].rules]
        with_companion = [i for i, c in enumerate(cards) if c.companion is not None]
        if len(with_companion) != 1 or _pair_problem(cards[0], cards[1]) is None:
            return deck
        i = with_companion[0]
        mate, leader = cards[i], cards[1 - i]
        if not _can_lead(leader, rules):
            return deck
        moved = listed[i]
        at = f"line {moved.line}: " if moved.line else ""
        notes.append(
            f"{at}{mate.name} has companion and shares no partner ability with {leader.name}: read as the companion, "
            f"not a second commander (CR 702.139a, 702.124a)"
        )
        entries = tuple(replace(e, section="companion") if e is moved else e for e in deck.entries)
        return replace(deck, entries=entries)

    def _tally(self, deck: Decklist, add: Callable[[Problem], None], notes: list[str]) -> _Tally:
        """Each section's card count, the copies per 201.3 name class, the cards found and which line used which
        name; a name that is no card is a problem. A nontraditional card (CR 108.2a: an Attraction, a plane, ...) is
        set apart: not counted in its section (no deck or sideboard holds it; a conspiracy starts in the sideboard,
        905.4), and a note says where the rules put it."""
        counts = {"main": 0, "sideboard": 0, "commander": 0, "companion": 0, "maybeboard": 0}
        tally: dict[str, _Copies] = {}  # class key -> its copies
        found: list[tuple[DeckEntry, CardRules]] = []
        used: list[tuple[Any, ...]] = []  # LineName rows: which line used which name (201.3 / 201.6 names count)
        for e in deck.entries:
            counts[e.section] += e.count
            if e.section == "maybeboard":
                continue
            hit = self.card(e.name)
            if isinstance(hit, _Miss):
                if hit.apart:  # a plane, a scheme, a vanguard: no card of the deck, of a variant no format plays
                    counts[e.section] -= e.count
                add(Problem("not_legal" if hit.apart else "unknown_card", e.name, e.line or None, hit.detail))
                continue
            card, key, via = hit
            kind = card.nontraditional
            if kind is not None and not (kind == "Conspiracy" and e.section == "sideboard"):
                counts[e.section] -= e.count
                notes.append(_set_apart(card, e))
            found.append((e, card))
            used.append((e.line or None, e.section, e.count, e.name, card.name, card.oracle_id, via))
            copies = tally.get(key)
            if copies is None:
                tally[key] = _Copies(card, [(e, via)])
            else:
                copies.uses.append((e, via))
        return _Tally(counts, tally, found, used)

    def _check_legality_and_copies(
        self,
        tally: dict[Any, _Copies],
        rules: FormatRules,
        cmd_cards: list[tuple[DeckEntry | None, CardRules]],
        add: Callable[[Problem], None],
    ) -> None:
        """Legality and copies, per 201.3 name class (main + sideboard + commander + companion)."""
        legal = self.legality(rules.key) if rules.legality else None
        unjudged: list[tuple[CardRules, int]] = []
        for copies in tally.values():
            card, total, line = copies.card, copies.total, copies.uses[0][0].line
            if rules.commander and len(copies.uses) > 1 and any(e.section == "companion" for e, _ in copies.uses):
                copies, total, line = self._companion_of_the_same_name(copies, add)
            status = legal.get(card.oracle_id) if legal is not None else "legal"
            apart = None  # several Oracle cards of one name that differ in legality: not judged
            if legal is not None and card.oracle_id in self._same_named:
                status, apart = self._same_name_status(card, legal)
            restricted = False
            if apart is not None:
                add(Problem("cannot_judge", card.name, line or None, apart))
            elif status is None:
                # no row for the format: the card's data was written before Scryfall had the format (or leaves it
                # out); its legality there is unknown, not "not legal". Its copies are still counted.
                unjudged.append((card, line))
            elif status == "not_legal":
                add(Problem("not_legal", card.name, line or None, self._not_legal_detail(card, rules, status)))
            elif status == "banned":
                add(Problem("banned", card.name, line or None, f"{card.name} is banned in {rules.label}."))
            elif status == "restricted" and rules.restricted_means_commander_only:
                if card.oracle_id not in {c.oracle_id for _, c in cmd_cards}:
                    add(
                        Problem(
                            "not_legal",
                            card.name,
                            line or None,
                            f"{card.name} may be only the commander in {rules.label} (an uncommon: Scryfall lists "
                            "it as restricted there).",
                        )
                    )
            elif status == "restricted":
                restricted = True
                if total > 1:
                    add(
                        Problem(
                            "restricted",
                            card.name,
                            line or None,
                            f"{card.name} is restricted in {rules.label}: at most 1 copy in the deck and "
                            f"sideboard together, found {total}{_at(copies.lines)}.",
                        )
                    )
            if restricted:
                continue
            if total > self._limit(card, rules):
                add(
                    Problem(
                        "too_many_copies",
                        card.name,
                        line or None,
                        f"{counted(total, 'copy', 'copies')} of {card.name}{_at(copies.lines)}{_names_used(copies.written)}; "
                        f"{self._limit_reason(card, rules)}.",
                    )
                )
        if unjudged:
            for card, line in unjudged:
                add(Problem("cannot_judge", card.name, line or None, self._unjudged_detail(card, rules, unjudged)))

    @staticmethod
    def _companion_of_the_same_name(copies: _Copies, add: Callable[[Problem], None]) -> tuple[_Copies, int, int]:
        """A Commander list whose companion has the name of a card of its deck: the companion is outside the game
        (CR 702.139a), no second copy of the deck (903.5b), but CR 903.11a: "that player can't bring a card into the
        game this way if it has the same name as a card that player had in their starting deck". A ``companion``
        problem says so; the deck's own copies (returned: copies, total, first line) are counted as before."""
        mates = [(e, via) for e, via in copies.uses if e.section == "companion"]
        held = _Copies(copies.card, [(e, via) for e, via in copies.uses if e.section != "companion"])
        starting = [e.line for e, _ in held.uses if e.section in ("main", "commander")]  # CR 702.139b
        if starting:
            e = mates[0][0]
            add(
                Problem(
                    "companion",
                    copies.card.name,
                    e.line or None,
                    f"{copies.card.name} cannot be your companion: the starting deck has a card of the same name"
                    f"{_at(starting)}, and a card brought into a Commander game from outside it may not share a "
                    "name with a card of the starting deck (CR 903.11a).",
                )
            )
        if held.uses:
            return held, held.total, held.uses[0][0].line
        return copies, copies.total, copies.uses[0][0].line

    @staticmethod
    def _check_deck_size(
        counts: dict[str, int],
        rules: FormatRules,
        cmd_cards: list[tuple[DeckEntry | None, CardRules]],
        add: Callable[[Problem], None],
    ) -> None:
        main, cmd = counts["main"], counts["commander"]
        if rules.commander or rules.max_size == rules.min_size:
            in_deck = main + (cmd if rules.commander else 0)
            if not cmd and rules.commander and cmd_cards and cmd_cards[0][0] is not None:
                in_deck = main  # commander inferred from the main deck: already counted
            # CR 903.5a "Each deck must contain exactly 100 cards, including its commander.": a commander given as
            # an option and not in the list is the 100th card
            if rules.commander:
                in_deck += sum(1 for entry, _ in cmd_cards if entry is None)
            if in_deck != rules.min_size:
                what = " including the commander(s)" if rules.commander else ""
                add(
                    Problem(
                        "deck_size",
                        None,
                        None,
                        f"The deck has {counted(in_deck, 'card')}{what}; {rules.label} decks "
                        f"have exactly {rules.min_size} ({rules.size_rule or rules.label + ' rules'}).",
                    )
                )
        elif main < rules.min_size:
            rule = "100.2b" if rules.key == "limited" else "100.2a"
            add(
                Problem(
                    "deck_size",
                    None,
                    None,
                    f"The main deck has {counted(main, 'card')}; {rules.label} needs at least {rules.min_size} "
                    f"(CR {rule}).",
                )
            )

    @staticmethod
    def _check_sideboard(
        deck: Decklist, counts: dict[str, int], rules: FormatRules, add: Callable[[Problem], None]
    ) -> None:
        side, comp = counts["sideboard"], counts["companion"]
        side_total = side + (0 if rules.commander else comp)
        if side_total > rules.sideboard_max:
            first = next((e.line for e in deck.entries if e.section == "sideboard"), None)
            if rules.sideboard_max == 0:
                add(
                    Problem(
                        "sideboard_size",
                        None,
                        first or None,
                        f"The deck has {counted(side_total, 'sideboard card')}; {rules.label} uses no sideboard "
                        + ("(CR 903.5e)." if rules.commander else f"({rules.label} rules)."),
                    )
                )
            else:
                add(
                    Problem(
                        "sideboard_size",
                        None,
                        first or None,
                        f"The sideboard has {counted(side_total, 'card')}{' (companion included)' if comp else ''}; "
                        f"{rules.label} allows at most {rules.sideboard_max:g} (CR 100.4a).",
                    )
                )

    @staticmethod
    def _check_attraction_deck(
        found: list[tuple[DeckEntry, CardRules]], rules: FormatRules, add: Callable[[Problem], None]
    ) -> None:
        """The Attraction deck of a list that names Attractions (CR 717.2): at least ten in constructed play
        (717.2a), at least three in limited play (717.2b)."""
        attractions = [(e, c) for e, c in found if c.nontraditional == "Attraction"]
        if not attractions:
            return
        total = sum(e.count for e, _ in attractions)
        play, need, rule = ("limited", 3, "717.2b") if rules.key == "limited" else ("constructed", 10, "717.2a")
        if total < need:
            add(
                Problem(
                    "deck_size",
                    None,
                    attractions[0][0].line or None,
                    f"The Attraction deck has {counted(total, 'Attraction card')}; in {play} play an Attraction deck "
                    f"has at least {need} (CR {rule}).",
                )
            )

    @staticmethod
    def _check_color_identity(
        found: list[tuple[DeckEntry, CardRules]],
        cmd_cards: list[tuple[DeckEntry | None, CardRules]],
        rules: FormatRules,
        add: Callable[[Problem], None],
        notes: list[str],
    ) -> None:
        """Color identity (903.5c) against the commander(s); in Brawl, a colorless commander's deck may hold basic
        lands of one basic land type (903.12e). A commander whose player chooses its color before the game begins
        adds that color (903.4b): the one most of the deck's cards outside the identity need."""
        allowed = 0
        for _, c in cmd_cards:
            allowed |= c.identity
        names = " and ".join(c.name for _, c in cmd_cards)
        cmd_ids = {c.oracle_id for _, c in cmd_cards}
        for _, chooser in cmd_cards:
            if chooser.chooses_color:
                allowed |= _chosen_color(found, allowed, cmd_ids, chooser, notes)
        chosen = _chosen_basic_type(found) if rules.colorless_basics and not allowed else None
        for e, c in found:
            if c.identity & ~allowed and c.oracle_id not in cmd_ids:
                outside = f"{c.name} has color identity {identity_letters(c.identity)}, outside {names}'s "
                outside += identity_letters(allowed)
                basic_type = _basic_land_type(c) if chosen is not None and e.section != "companion" else None
                if basic_type is not None and basic_type == chosen:
                    continue  # CR 903.12e: basic lands of the one basic land type chosen
                if basic_type is not None:
                    outside += (
                        f"; a colorless commander's {rules.label} deck may hold basic lands of one basic land type "
                        f"only, here {chosen} (the type most of its basic lands have) (CR 903.12e)."
                    )
                elif e.section == "companion":
                    # CR 903.11a: the companion is outside the game (702.139a), no card of the deck (903.5c), but "that
                    # player can't bring a card into the game this way if ... any color in its color identity isn't in
                    # the color identity of the player's commander"
                    outside += "; a companion comes from outside the game, which a card of a color outside the "
                    outside += "commander's color identity cannot (CR 903.11a)."
                else:
                    outside += _identity_rule(c, c.identity & ~allowed)
                add(Problem("color_identity", c.name, e.line or None, outside))

    def _check_companion(
        self,
        found: list[tuple[DeckEntry, CardRules]],
        cmd_cards: list[tuple[DeckEntry | None, CardRules]],
        counts: dict[str, int],
        rules: FormatRules,
        add: Callable[[Problem], None],
        notes: list[str],
    ) -> None:
        """The companion (CR 702.139): the card named in the list's Companion section must have companion and its
        condition must be fulfilled by the starting deck; one at most (103.2b). A card with companion in the
        sideboard of a list without a Companion section (MTGO lists its companion there) is not taken for the
        companion: a note says whether its condition would be fulfilled."""
        named = [(e, c) for e, c in found if e.section == "companion"]
        aside = [] if counts["companion"] else [(e, c) for e, c in found if e.section == "sideboard" and c.companion]
        if not named and not aside:
            return
        total = sum(e.count for e, _ in named)
        if total > 1:
            line = (named[1][0] if len(named) > 1 else named[0][0]).line
            add(
                Problem(
                    "companion",
                    ", ".join(dict.fromkeys(c.name for _, c in named)),
                    line or None,
                    f"{counted(total, 'companion')} in the Companion section; a player may reveal no more than one "
                    "card with companion (CR 103.2b).",
                )
            )
        deck, size = self._starting_deck(found, cmd_cards, counts, rules)
        whose = " (the commander included, CR 702.139b)" if rules.commander else ""
        for e, c in named:
            condition = c.companion
            if condition is None:
                add(
                    Problem(
                        "companion",
                        c.name,
                        e.line or None,
                        f"{c.name} has no companion ability; only a card with companion can be revealed as your "
                        "companion (CR 702.139a).",
                    )
                )
                continue
            verdict = companion.judge(condition, deck, size=size, minimum=rules.min_size)
            if verdict.fulfilled is False:
                add(
                    Problem(
                        "companion",
                        c.name,
                        e.line or None,
                        f"{c.name} cannot be your companion: its condition “{condition.text}” is not fulfilled by "
                        f"the starting deck{whose}; {verdict.why} (CR 702.139a).",
                    )
                )
            elif verdict.fulfilled is None:
                add(
                    Problem(
                        "cannot_judge",
                        c.name,
                        e.line or None,
                        f"{c.name}'s companion condition “{condition.text}” cannot be judged: {verdict.why} "
                        "(CR 702.139a); check it yourself.",
                    )
                )
        for e, c in aside:
            assert c.companion is not None
            verdict = companion.judge(c.companion, deck, size=size, minimum=rules.min_size)
            state = {
                True: "fulfilled",
                False: f"not fulfilled ({verdict.why})",
                None: f"not judged ({verdict.why})",
            }[verdict.fulfilled]
            at = f"line {e.line}: " if e.line else ""
            notes.append(
                f"{at}{c.name} in the sideboard has companion, but the list has no Companion section, so it is not "
                f"taken for your companion; if it is, its condition is {state} (CR 702.139a)"
            )

    def _starting_deck(
        self,
        found: list[tuple[DeckEntry, CardRules]],
        cmd_cards: list[tuple[DeckEntry | None, CardRules]],
        counts: dict[str, int],
        rules: FormatRules,
    ) -> tuple[list[companion.DeckCard], int]:
        """The starting deck's cards and its size (CR 702.139b): the main deck without the sideboard, the commander
        included in a commander format; the companion itself is outside the game (702.139a)."""
        held: list[tuple[DeckEntry | None, CardRules]] = [
            (e, c)
            for e, c in found
            if (e.section == "main" or (rules.commander and e.section == "commander")) and c.nontraditional is None
        ]
        size = counts["main"] + (counts["commander"] if rules.commander else 0)  # nontraditional cards set apart
        for e, c in cmd_cards:
            if e is None:  # given as an option and not in the list: the 100th card
                held.append((None, c))
                size += 1
        facts = self._library_facts([c.oracle_id for _, c in held])
        deck: list[companion.DeckCard] = []
        for e, c in held:
            hit = self.card(e.name) if e is not None else None
            key = hit.class_key if isinstance(hit, CardHit) else c.oracle_id
            deck.append((c.name, (e.line or None) if e else None, e.count if e else 1, facts[c.oracle_id], key))
        return deck, size

    def _library_facts(self, oids: Sequence[str]) -> dict[str, companion.LibraryFacts]:
        """These cards' characteristics in a library (read once per card, in one query for those not read yet)."""
        todo = [oid for oid in dict.fromkeys(oids) if oid not in self._library]
        if todo:
            self._library.update(companion.read_library_facts(self._con, todo))
        return {oid: self._library[oid] for oid in oids}

    def _not_legal_detail(self, card: CardRules, rules: FormatRules, status: str | None) -> str:
        """Why ``card`` is not legal in ``rules``' format: the same sentence for every deck, made once."""
        key = (card.oracle_id, rules.key, status)
        detail = self._details.get(key)
        if detail is None:
            detail = self._details[key] = (
                f"{card.name} is not legal in {rules.label} (status not_legal in the ingested legalities)."
            )
        return detail

    def _unjudged_detail(self, card: CardRules, rules: FormatRules, deck_cards: Sequence[tuple[CardRules, int]]) -> str:
        """Why ``card``'s legality in ``rules``' format is unknown: the file its legalities come from, with its data's
        date, has no row of the format (it predates the format when every file that has one is newer)."""
        key = (card.oracle_id, rules.key, "unjudged")
        detail = self._details.get(key)
        if detail is not None:
            return detail
        from oracle_tools.decks import sources

        todo = [c.oracle_id for c, _ in deck_cards if c.oracle_id not in self._card_file]
        self._card_file.update(sources.card_files(self._con, todo))  # the deck's unjudged cards in one query
        if not self._files:
            self._files.update({f.file: f for f in sources.legality_files(self._con)})
        if rules.key not in self._knowing:
            self._knowing[rules.key] = sources.first_knowing(self._files, sources.format_files(self._con, rules.key))
        file = self._files.get(self._card_file.get(card.oracle_id, ""))
        if file is None:
            why = f"the ingested legalities have no {rules.label} row for it"
        else:
            why = f"its data ({file.name}, {file.as_of}) {sources.gap(file, rules.label, self._knowing[rules.key])}"
        detail = self._details[key] = f"{card.name} cannot be judged: {why}; ingest newer Scryfall data to judge it."
        return detail

    @staticmethod
    def _limit(card: CardRules, rules: FormatRules) -> float:
        """How many copies of ``card`` a deck of this format may have (its 201.3 class counted together)."""
        if card.basic:
            return math.inf
        if card.nontraditional == "Attraction":  # CR 717.2a: different English names; 717.2b: limited may repeat
            return math.inf if rules.key == "limited" else 1
        if card.limit is not None:  # read from its Oracle text ("A deck can have any number of cards named ~")
            return card.limit
        if rules.singleton:
            return 1 if rules.copies != math.inf else math.inf
        return rules.copies

    @staticmethod
    def _limit_reason(card: CardRules, rules: FormatRules) -> str:
        """Why :meth:`_limit` is what it is, for a deck over it (a finite limit)."""
        if card.nontraditional == "Attraction":
            return "each card in an Attraction deck must have a different English name in constructed play (CR 717.2a)"
        if card.limit is not None:
            return f"its Oracle text allows at most {card.limit:g} in a deck"
        if rules.singleton:
            rule = rules.singleton_rule or f"{rules.label} rules"
            return f"{rules.label} allows 1 copy of each card other than basic lands ({rule})"
        return (
            f"{rules.label} allows at most {rules.copies:g} of a card other than basic lands, "
            "main deck and sideboard together (CR 100.2a, 100.4a)"
        )

    def _commanders(
        self,
        deck: Decklist,
        found: list[tuple[DeckEntry, CardRules]],
        given: Iterable[str] | None,
        notes: list[str],
        add: Any,
        rules: FormatRules,
    ) -> list[tuple[DeckEntry | None, CardRules]]:
        """The commander(s): the Commander section, else ``given`` names, else an eligible first card.

        Oathbreaker's signature spell, in the Commander section too, is no commander: it is checked here and
        left to the color identity check like any other card of the deck."""
        listed = [(e, c) for e, c in found if e.section == "commander"]
        cmds: list[tuple[DeckEntry | None, CardRules]] = list(listed)
        if rules.signature_spell:
            spells = [(e, c) for e, c in listed if c.instant_or_sorcery]
            cmds = [(e, c) for e, c in listed if not c.instant_or_sorcery]
            if any(e.section == "commander" for e in deck.entries) and len(spells) != 1:
                add(
                    Problem(
                        "commander",
                        ", ".join(c.name for _, c in spells) or None,
                        (spells[1][0].line if len(spells) > 1 else None) or None,
                        f"{rules.label} decks have one signature spell, an instant or sorcery, in the command "
                        f"zone beside the oathbreaker; found {len(spells)} (Oathbreaker rules).",
                    )
                )
        given = [name for name in given or () if name.strip()]
        if cmds and given:
            _given_beside_the_section(self, given, cmds, notes)
        if not cmds and given:
            for name in given:
                hit = self.card(name)
                if isinstance(hit, _Miss):
                    add(Problem("commander", echo(name), None, hit.detail))
                    continue
                entry = next((e for e, c in found if c.oracle_id == hit[0].oracle_id), None)
                cmds.append((entry, hit[0]))
                if entry is None:
                    notes.append(
                        f"commander {hit[0].name} given as an option and not in the list; counted as the {rules.min_size}th card"
                    )
        if not cmds and not any(e.section == "commander" for e in deck.entries):
            mains = [(e, c) for e, c in found if e.section == "main"]
            if mains and _can_lead(mains[0][1], rules) and mains[0][0].count == 1:
                cmds = [mains[0]]
                # a partner on the second line (MTGO / Archidekt write both commanders first)
                if len(mains) > 1 and mains[1][0].count == 1 and _pair_problem(mains[0][1], mains[1][1]) is None:
                    cmds.append(mains[1])
                notes.append(
                    "no Commander section: took "
                    + " and ".join(c.name for _, c in cmds)
                    + f" (first line) as the {rules.commander_word}"
                )
        if not cmds:
            # a --commander that names no card has said so: "pass it with --commander" would be advice already followed
            if not given and not any(e.section == "commander" for e in deck.entries):
                add(
                    Problem(
                        "commander",
                        None,
                        None,
                        f"No {rules.commander_word}: mark it with a 'Commander' section "
                        f"(or pass it with --commander); each {rules.label} deck has one"
                        + (" (CR 903.3)." if rules.commander_word == "commander" else "."),
                    )
                )
            return []
        total = sum(e.count if e is not None else 1 for e, _ in cmds)
        rule_line = cmds[0][0].line if cmds[0][0] is not None else None
        if total > 2:
            add(
                Problem(
                    "commander",
                    ", ".join(c.name for _, c in cmds),
                    rule_line or None,
                    f"{total} commanders; a deck has one, or two with a partner ability (CR 903.3, 702.124g).",
                )
            )
            return cmds
        if len(cmds) == 1:
            e, c = cmds[0]
            if c.background:
                add(
                    Problem(
                        "commander",
                        c.name,
                        (e.line if e else None) or None,
                        f"{c.name} is a Background: it can be a commander only beside a commander with "
                        "'Choose a Background' (CR 702.124k).",
                    )
                )
            elif not _can_lead(c, rules):
                add(Problem("commander", c.name, (e.line if e else None) or None, _not_eligible(c, rules)))
            return cmds
        (e1, c1), (e2, c2) = cmds
        for e, c, other in ((e1, c1, c2), (e2, c2, c1)):
            if c.background and ("background", "") in other.partners:
                continue
            if not _can_lead(c, rules):
                add(Problem("commander", c.name, (e.line if e else None) or None, _not_eligible(c, rules)))
        why = _pair_problem(c1, c2)
        if why:
            add(Problem("commander", f"{c1.name}, {c2.name}", (e2.line if e2 else None) or None, why))
        return cmds


def _given_beside_the_section(
    checker: DeckChecker, given: list[str], cmds: list[tuple[DeckEntry | None, CardRules]], notes: list[str]
) -> None:
    """A list with a Commander section and commanders given as an option too: the list's section is used; when
    the option names other cards (or none), a note says it was ignored, never silently."""
    hits = [checker.card(name) for name in given]
    named = {hit.rules.oracle_id for hit in hits if isinstance(hit, CardHit)}
    if named == {c.oracle_id for _, c in cmds} and len(named) == len(hits):
        return  # the option names the section's commanders: nothing is contradicted
    written = ", ".join(f"'{echo(name)}'" for name in given)
    notes.append(
        f"--commander {written} ignored: the list's Commander section names "
        f"{' and '.join(c.name for _, c in cmds)}, which is used (remove the section to use the option)"
    )


def _names_used(written: Mapping[str, tuple[Via | None, list[int]]]) -> str:
    """' (written as “A” on line 1 and “B” on line 2, counted together, CR 201.3b)' when the lines of one
    card (or 201.3 class) use different names (interchangeable, alternate, foreign, face names), else ''."""
    if len(written) < 2:
        return ""
    shown = [f"“{name}”{_at(lines).replace(' (', ' on ').rstrip(')')}" for name, (_, lines) in written.items()]
    rules = sorted({DECK_RULES[via] for via, _ in written.values() if via in DECK_RULES})
    cite = f", CR {', '.join(rules)}" if rules else ""
    return f" (written as {', '.join(shown[:-1])} and {shown[-1]}, counted together{cite})"


#: Line numbers a problem lists before it summarises the rest ("… and 51,190 more").
MAX_LINES_SHOWN = 10


def _basic_land_type(card: CardRules) -> str | None:
    """The basic land type of a basic land card (Island, Snow-Covered Island), None for another card or Wastes."""
    if not card.basic:
        return None
    kinds = _basic_land_types(card)
    return next((t for t in vocabulary.BASIC_LAND_TYPE_MANA if t in kinds), None)


def _basic_land_types(card: CardRules) -> list[str]:
    """The basic land types (CR 305.6) among the subtypes of the card's front face, in their order there."""
    return [t for t in card.front_type.partition("—")[2].split() if t in vocabulary.BASIC_LAND_TYPE_MANA]


# CR 305.6: each basic land type's intrinsic "{T}: Add [mana]" ability, as color bits
_BASIC_TYPE_BITS = {kind: color_bits(letter) for kind, letter in vocabulary.BASIC_LAND_TYPE_MANA.items()}


def _unknown_commanders(deck: Decklist, found: Iterable[tuple[DeckEntry, CardRules]], rules: FormatRules) -> list[str]:
    """The names of the Commander section that are no card a deck can hold (a name the database does not know, a meld
    result, a plane: each a problem of its own), quoted; none in
    Oathbreaker, whose section holds the signature spell too (a spell adds no color identity)."""
    if rules.signature_spell:
        return []
    known = {id(e) for e, _ in found}
    return [f"'{echo(e.name)}'" for e in deck.entries if e.section == "commander" and id(e) not in known]


def _chosen_color(
    found: Iterable[tuple[DeckEntry, CardRules]], allowed: int, cmd_ids: set[str], chooser: CardRules, notes: list[str]
) -> int:
    """The color a commander's player is taken to have chosen before the game begins (CR 903.4b: "that choice applies
    during deck construction ... That choice affects the commander's color identity."): the one that lets the most
    copies of the deck's cards outside ``allowed`` in (ties: WUBRG order), with a note; 0 when no card needs one."""
    need: dict[int, int] = {}
    for e, c in found:
        outside = c.identity & ~allowed
        if outside and c.oracle_id not in cmd_ids and outside & (outside - 1) == 0:  # one color short
            need[outside] = need.get(outside, 0) + e.count
    if not need:
        return 0
    color = max(sorted(need), key=lambda bit: need[bit])
    notes.append(
        f"{chooser.name}'s color, chosen before the game begins, is taken as {identity_letters(color)}, the color "
        f"{counted(need[color], 'card')} of the deck need; it is part of the commander's color identity (CR 903.4b)"
    )
    return color


def _identity_rule(card: CardRules, outside: int) -> str:
    """The rule a card whose color identity leaves the commander's breaks, as the end of the problem's sentence. A
    card's basic land types give it mana abilities (CR 305.6) whose text is reminder text, which color identity
    ignores (903.4c): an Island or a Tundra is kept out by 903.5d ("A card with a basic land type may be included in
    a Commander deck only if each color of mana it could produce is included in the commander's color identity."),
    the colors of its other mana symbols and color indicator by 903.5c."""
    if card.front_type and "Land" in card.front_type:
        kinds = _basic_land_types(card)
        produced = 0
        for t in kinds:
            produced |= _BASIC_TYPE_BITS[t]
        if outside & produced:
            rules = "903.5d" if not outside & ~produced else "903.5c, 903.5d"
            return (
                f"; its basic land type ({'/'.join(kinds)}) could produce {identity_letters(outside & produced)} "
                f"(CR {rules})."
            )
    return " (CR 903.5c)."


def _chosen_basic_type(found: Iterable[tuple[DeckEntry, CardRules]]) -> str | None:
    """The basic land type a Brawl deck led by a colorless commander is taken to have chosen (CR 903.12e: "any number
    of basic lands of one basic land type of their choice"): the type most of its basic land cards have (ties: the
    first listed); None when it has no basic land of a type."""
    counts: dict[str, int] = {}
    for e, c in found:
        kind = _basic_land_type(c) if e.section in ("main", "commander") else None
        if kind is not None:
            counts[kind] = counts.get(kind, 0) + e.count
    return max(counts, key=lambda k: counts[k]) if counts else None


def _at(lines: list[int]) -> str:
    good = [ln for ln in lines if ln]
    if not good:
        return ""
    shown = ", ".join(map(str, good[:MAX_LINES_SHOWN]))
    more = f" and {len(good) - MAX_LINES_SHOWN:,} more" if len(good) > MAX_LINES_SHOWN else ""
    return f" (line{'s' if len(good) > 1 else ''} {shown}{more})"


def _not_a_commander_format(rules: FormatRules) -> str:
    """The note for a commander given (``--commander``) with a format that has none: said, never silently ignored."""
    led = ", ".join(k for k, r in FORMATS.items() if r.commander)
    return (
        f"a commander was given (--commander), but {rules.label} has no commander: it applies only to the "
        f"commander formats ({led}); ignored"
    )


def _can_lead(c: CardRules, rules: FormatRules) -> bool:
    """Whether ``c`` can be the format's commander (its oathbreaker in Oathbreaker)."""
    kind = rules.commander_kind
    if kind == "planeswalker":
        return c.planeswalker
    if kind == "creature":
        return c.creature
    return c.commander_ok or (kind == "legendary_or_planeswalker" and c.planeswalker)


def _not_eligible(c: CardRules, rules: FormatRules) -> str:
    what = f"{c.name} cannot be {'an' if rules.commander_word == 'oathbreaker' else 'a'} {rules.commander_word}: "
    what += f"it is a {c.front_type or 'card'}, and "
    kind = rules.commander_kind
    if kind == "planeswalker":
        return what + f"an oathbreaker must be a planeswalker ({rules.label} rules)."
    if kind == "creature":
        return what + f"a {rules.label} commander must be a creature (an uncommon; {rules.label} rules)."
    walker = " or a legendary planeswalker (Brawl)" if kind == "legendary_or_planeswalker" else ""
    return what + (
        "a commander must be a legendary creature, a legendary Vehicle or Spacecraft with power/toughness, "
        f"or say it can be your commander (CR 903.3, 903.3a){walker}."
    )


def _pair_problem(a: CardRules, b: CardRules) -> str | None:
    """Why two cards cannot be commanders together (CR 702.124), or None when they can."""
    if a.oracle_id == b.oracle_id:
        return f"{a.name} is listed twice as commander; two commanders must be two different cards (CR 702.124a)."
    pa, pb = set(a.partners), set(b.partners)
    if ("plain", "") in pa and ("plain", "") in pb:
        return None  # 702.124h
    if ("with", b.name.casefold()) in pa and ("with", a.name.casefold()) in pb:
        return None  # 702.124j
    if {p for p in pa if p[0] == "text"} & {p for p in pb if p[0] == "text"}:
        return None  # 702.124i (partner—Friends forever, ...)
    if (("background", "") in pa and b.background) or (("background", "") in pb and a.background):
        return None  # 702.124k
    if (("doctor", "") in pa and b.time_lord_doctor) or (("doctor", "") in pb and a.time_lord_doctor):
        return None  # 702.124m
    with_a = [p[1] for p in pa if p[0] == "with"]
    with_b = [p[1] for p in pb if p[0] == "with"]
    if with_a or with_b:
        detail = "; ".join(
            f"{x.name} partners only with {w.title()}" for x, ws in ((a, with_a), (b, with_b)) for w in ws
        )
        return f"{a.name} and {b.name} are not a partner pair: {detail} (CR 702.124j)."
    if not pa or not pb:
        lacking = [c.name for c, p in ((a, pa), (b, pb)) if not p]
        verb = "has" if len(lacking) == 1 else "have"
        return f"Two commanders need a partner ability on both: {' and '.join(lacking)} {verb} none (CR 702.124a)."
    return f"{a.name} and {b.name} have different partner abilities, which cannot be combined (CR 702.124f)."


# --------------------------------------------------------------------------- public API used by OracleDB


#: The largest deck a check takes unless told otherwise (``deck check --no-limits``, ``limits=False``): real
#: lists fit with room (a 720-card cube, a 250-card battle box), while a 1 MB paste of one line repeated is
#: refused at once instead of holding a server thread for minutes.
MAX_DECK_LINES = 2_000
MAX_DECK_NAMES = 1_000


#: How the size limits are lifted, in :func:`check_size`'s message: the CLI's flag and the library's argument.
LIFT_LIMITS = "deck check --no-limits, check_deck(..., limits=False)"


#: A line with something on it (blank lines are no card lines), found by the regex engine: blank stretches cost no
#: Python work. Each match runs from a line's first non-blank character to its end: a long blank line is passed over
#: once (a match begun at the line's start was tried again from each of its characters: 40,000 spaces and a line
#: break took 21 s). Text that begins as JSON (a deck, or a cache of many decks) is measured deck by deck (check_size).
_FILLED_LINE = re.compile(r"\S[^\n]*")
_JSON_START = re.compile(r"\s*[\[{]")


def check_text_size(text: str, source: str, *, how_to_lift: str = LIFT_LIMITS) -> None:
    """Raise :class:`DeckTooLargeError` for decklist text of more than :data:`MAX_DECK_LINES` lines with something
    on them, before any parse work: the lines are counted as the text is read and the count stops at the first one
    over (a 100 MB file of one line repeated is refused in a moment; parsed, it took minutes). JSON text passes:
    its decks are measured once read (:func:`check_size`)."""
    if _JSON_START.match(text):
        return
    if next(itertools.islice(_FILLED_LINE.finditer(text), MAX_DECK_LINES, None), None) is not None:
        raise too_many_lines(source, how_to_lift)


def too_many_lines(source: str, how_to_lift: str) -> DeckTooLargeError:
    """The refusal of a decklist of more than MAX_DECK_LINES card lines (the server's, of a body it read no further:
    serve.app.ReadBodyFirst)."""
    return DeckTooLargeError(
        f"{source}: more than {MAX_DECK_LINES:,} card lines; a deck check takes at most "
        f"{MAX_DECK_LINES:,} lines and {MAX_DECK_NAMES:,} names. Check a smaller list, or lift the limit "
        f"({how_to_lift})."
    )


#: Printable ASCII (``!`` to ``~``): a byte that is a non-blank character whatever the decoder reads the bytes as
#: (UTF-8, Windows-1252 and Latin-1 read it, and the line break, alike). _TO_MARKS keeps those bytes (as ``x``) and
#: the line breaks only: a line holding one is a card line, and each such line ends ``x\n`` there.
_PRINTABLE = bytes(range(0x21, 0x7F))
_TO_MARKS = bytes(ord("x") if 0x21 <= b <= 0x7E else b for b in range(256))
_NOT_MARKS = bytes(b for b in range(256) if b not in _PRINTABLE and b != 0x0A)
_ASCII_BLANKS = re.compile(rb"[ \t\n\r\x0b\x0c]*+")
_BLOCK = 64 * 1024


def check_bytes_size(data: bytes, source: str, *, how_to_lift: str = LIFT_LIMITS) -> None:
    """:func:`check_text_size` on a decklist's bytes before they are decoded: raise :class:`DeckTooLargeError` when
    they hold more than :data:`MAX_DECK_LINES` card lines, without decoding them (a 1 MB body of one line repeated
    was decoded and scanned character by character before its refusal). Counted are the lines that are card lines
    whatever the decoder reads the bytes as, so that the first bytes of a body refused here are refused alike
    (the server reads no more of it: serve.app.ReadBodyFirst). Bytes the decoder might read otherwise (UTF-16, a
    start that may be JSON) are left to it and to :func:`check_text_size`."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or data.count(b"\n") < MAX_DECK_LINES:
        return  # UTF-16; or too few lines to be over
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    blanks = _ASCII_BLANKS.match(data, start)
    assert blanks is not None  # it matches the empty string
    first = data[blanks.end() : blanks.end() + 1]
    if not b"!" <= first <= b"~" or first in b"[{":
        return  # JSON (measured once read), or a first character that might be a blank before JSON
    lines, at = 0, start
    while at < len(data) and lines <= MAX_DECK_LINES:  # a block of whole lines at a time: stops soon after the limit
        end = data.rfind(b"\n", at, at + _BLOCK) + 1 or data.find(b"\n", at + _BLOCK) + 1 or len(data)
        marks = data[at:end].translate(_TO_MARKS, _NOT_MARKS)  # "x" and line breaks: C loops, no Python work a line
        while b"\n\n" in marks:  # a line of no "x" is no card line: one break is left of each run of them
            marks = marks.replace(b"\n\n", b"\n")
        # each break now ends a card line, but the block's first when the block began with blank lines; and the last
        # card line of all may have no break (counting b"x\n" instead was a slow search: "x" is nearly every byte)
        lines += marks.count(b"\n") - marks.startswith(b"\n") + marks.endswith(b"x")
        at = end
    if lines > MAX_DECK_LINES:
        raise too_many_lines(source, how_to_lift)


def check_size(deck: Decklist, *, how_to_lift: str = LIFT_LIMITS) -> None:
    """Raise :class:`DeckTooLargeError` for a deck over the limits; its message ends saying ``how_to_lift`` them
    (a door where the library's ways do not apply, such as the HTTP API, says its own)."""
    lines = len(deck.entries) + len(deck.problems)
    names = len({e.name for e in deck.entries})
    if lines > MAX_DECK_LINES or names > MAX_DECK_NAMES:
        raise DeckTooLargeError(
            f"{deck.source}: {counted(lines, 'card line')} with {counted(names, 'different name')}; a deck check "
            f"takes at most {MAX_DECK_LINES:,} lines and {MAX_DECK_NAMES:,} names. Check a smaller list, or lift the "
            f"limit ({how_to_lift})."
        )


def check_deck(
    checker: DeckChecker,
    deck: DeckInput,
    format: str | FormatRules,
    *,
    commanders: Iterable[str] | None = None,
    limits: bool = True,
) -> DeckReport:
    """Check one deck (a Decklist, a path or decklist text). Raises DecklistError for an unreadable file and
    DeckTooLargeError past the size limits (unless ``limits`` is False)."""
    decks = to_decklists(deck, limits=limits)
    if len(decks) != 1:
        raise DecklistError(f"{decks[0].source}: holds {len(decks)} decklists; check them with check_decks().")
    if limits:
        check_size(decks[0])
    return _check(checker, decks[0], format, commanders)


def _check(
    checker: DeckChecker, deck: Decklist, fmt: str | FormatRules, commanders: Iterable[str] | None
) -> DeckReport:
    return checker.check(deck, fmt, commanders=commanders)


# Polars dtype names (Polars is imported by check_decks only: one deck check stays light)
_PROBLEM_SCHEMA = {
    "deck": "Int64",
    "source": "String",
    "name": "String",
    "player": "String",
    "kind": "String",
    "card": "String",
    "line": "Int64",
    "detail": "String",
}
_SUMMARY_SCHEMA = {
    "deck": "Int64",
    "source": "String",
    "name": "String",
    "player": "String",
    "legal": "Boolean",
    "problems": "Int64",
    "main": "Int64",
    "sideboard": "Int64",
    "commander": "Int64",
    "companion": "Int64",
}


def check_decks(
    checker: DeckChecker,
    decks: Iterable[DeckInput] | Mapping[str, DeckInput],
    format: str | FormatRules,
    *,
    summary: bool = False,
) -> pl.DataFrame:
    """Check many decks; one row per problem (``summary=True``: one row per deck instead).

    Items are Decklists, paths (a JSON tournament cache contributes every deck in it) or decklist
    text; a mapping's keys become the ``source`` column. ``deck`` numbers the decks from 0 in order.
    An unreadable file is one row of kind ``parse_error`` (line null) rather than an exception.
    """
    rules = format_rules(format)
    if rules.legality:
        checker.legality(rules.key)  # fail early on a format the database lacks
    items: Iterable[tuple[str | None, DeckInput]]
    items = ((str(k), v) for k, v in decks.items()) if isinstance(decks, Mapping) else ((None, d) for d in decks)
    read: list[tuple[str | None, DeckInput, list[Decklist] | DecklistError]] = []
    for label, item in items:
        try:
            read.append((label, item, to_decklists(item)))
        except DecklistError as exc:
            read.append((label, item, exc))
    checker.prefetch(e.name for _, _, got in read if isinstance(got, list) for d in got for e in d.entries)
    dtypes = _SUMMARY_SCHEMA if summary else _PROBLEM_SCHEMA
    # gathered by column (a frame from column lists builds 5x faster than orient="row"); one deck's problems
    # are one zip (Problem is a tuple), not a tuple each
    columns: list[list[Any]] = [[] for _ in dtypes]

    def add_row(*values: Any) -> None:
        for column, value in zip(columns, values, strict=True):
            column.append(value)

    number = 0
    for label, item, expanded in read:
        if isinstance(expanded, DecklistError):
            src = label or str(item)
            if summary:
                add_row(number, src, None, None, False, 1, 0, 0, 0, 0)
            else:
                add_row(number, src, None, None, "parse_error", None, None, str(expanded))
            number += 1
            continue
        for deck in expanded:
            report = _check(checker, deck, rules, None)
            src = label or deck.source
            if summary:
                c = report.counts
                add_row(
                    number,
                    src,
                    deck.name,
                    deck.player,
                    report.legal,
                    len(report.problems),
                    c["main"],
                    c["sideboard"],
                    c["commander"],
                    c["companion"],
                )
            elif report.problems:
                n = len(report.problems)
                for column, value in zip(columns, (number, src, deck.name, deck.player)):
                    column.extend([value] * n)
                for column, values in zip(columns[4:], zip(*report.problems)):
                    column.extend(values)
            number += 1
    import polars as pl

    schema = {column: getattr(pl, dtype) for column, dtype in dtypes.items()}
    return pl.DataFrame(dict(zip(schema, columns)), schema=schema)


def _sticker_sheet(name: str, card: CardRules) -> _Miss | None:
    """The miss of a decklist name that is a sticker sheet (CR 123.2: not a card; ``layouts.is_sticker_sheet``, the
    chooser's test too), None for a card."""
    if not layouts.is_sticker_sheet(card.front_type):
        return None
    return _Miss(
        f"'{echo(name)}' is the sticker sheet {card.name}, not a card (CR 123.2); sticker sheets are not part of a "
        "deck or sideboard: list them apart (CR 123.2a)."
    )


def _apart_sentence(name: str, what: Nontraditional) -> str:
    kind = what.kind if what.kind in ("Attraction", "Contraption") else what.kind.lower()  # subtypes as written
    article = "an" if kind[0] in "AEIOUaeiou" else "a"
    return (
        f"{name} is {article} {kind}, a nontraditional card (CR 108.2a): {what.where} ({what.rules}); "
        "set apart, not counted as a card of the deck"
    )


def _set_apart(card: CardRules, e: DeckEntry) -> str:
    """The note of a nontraditional card a decklist names (CR 108.2a)."""
    sentence = _apart_sentence(card.name, NONTRADITIONAL[card.nontraditional or ""])
    return f"line {e.line}: {sentence}" if e.line else sentence


def _head(name: str) -> str:
    """The part of a decklist name before its first " // " (or "/")."""
    return re.split(r"\s*/+\s*", name.strip(), maxsplit=1)[0]


class PointDeckChecker(DeckChecker):
    """A :class:`DeckChecker` that loads the rules and legalities of the cards of the first deck it checks only (one
    query each), not those of the whole card pool: a fresh process checking one list. From the second deck on it
    reads what a batch reads once: every card's facts (:class:`CardRulesTable`) and each format's legalities, whole,
    so a deck checked after it costs what its names cost (bench/bench_peer.py (iii): 100 decks one at a time).

    The name strategy may change under it (:meth:`use_names`: the point queries of a fresh process, then the warm
    index): the strategies give the same answers, so what it has read and judged stays."""

    def __init__(self, con: duckdb.DuckDBPyConnection, names: NameResolver) -> None:
        self._cards: dict[str, CardRules] = {}  # the cards loaded so far (self.cards), until every card's are read
        super().__init__(con, names, cards=self._cards)
        self._looked_up: set[str] = set()  # the names whose cards are loaded (or that name none)
        self._checked = 0  # decks checked so far
        self._whole: set[str] = set()  # the formats whose legalities are read for every card
        self._all_cards = False  # every card's rules are held (self.cards is a CardRulesTable)

    def use_names(self, names: NameResolver) -> None:
        """Read names with ``names`` from now on (the same answers as the strategy before it)."""
        self._names = names

    def check(self, deck: Decklist, fmt: str | FormatRules, *, commanders: Iterable[str] | None = None) -> DeckReport:
        self._checked += 1
        if self._checked == 2:
            # A second deck: each format's legalities are read whole (one scan, ~10 ms), not again for the cards of
            # every later deck (a scan of the whole table each time: the legalities have no index by card)
            for key in list(self._legal):
                self._legal[key] = dict(self._format_statuses(key))
        texts = [e.name for e in deck.entries if e.section != "maybeboard"] + list(commanders or ())
        todo = [t for t in self._unseen(texts) if t not in self._looked_up]
        if todo and self._checked > 1 and not self._all_cards:
            # A second deck with names not met yet (not a batch: prefetch() read all of its names): every card's
            # rules are read, in one read of the cards and one of their faces, and made per card when a deck first
            # names it; a query of a deck's cards by oracle_id scans both tables again for every deck
            self.cards = CardRulesTable(self._con)
            self._all_cards = True
        self._load_names(todo)  # one query for the whole list
        return super().check(deck, fmt, commanders=commanders)

    def prefetch(self, names: Iterable[str]) -> None:
        """A batch of decks: every name looked up in one query, the rules of every card found in one more."""
        todo = self._unseen(names)
        self._load_names(todo)
        super().prefetch(todo)

    def _load_names(self, texts: list[str]) -> None:
        """Look these names up (one query) and load their cards' rules (one more), once per name."""
        texts = [t for t in texts if t not in self._looked_up]
        if not texts:
            return
        self._names.prefetch(texts)
        if not self._all_cards:
            self.load([r.oracle_id for t in texts if (r := self._names.lookup(t)) is not None and r.oracle_id])
        self._looked_up.update(texts)

    def load(self, oids: Sequence[str]) -> None:
        """Rules and (already used formats') legalities of these cards (every card's are held once read whole)."""
        if self._all_cards:
            return
        new = sorted({oid for oid in oids if oid not in self.cards})
        if not new:
            return
        for row in read_card_facts(self._con, new):
            self._cards[row["oracle_id"]] = card_rules(row)
        partial = [fmt for fmt in self._legal if fmt not in self._whole]
        if partial:  # the formats read for the cards loaded so far, in one scan
            for fmt, oracle_id, status in self._con.execute(
                "SELECT format, oracle_id, status FROM legalities WHERE format IN $fmts AND oracle_id IN $oids",
                {"fmts": partial, "oids": new},
            ).fetchall():
                self._legal[fmt][oracle_id] = status

    def _format_statuses(self, fmt: str) -> list[tuple[str, str]]:
        if self._checked > 1:  # every card's (see _read_whole)
            self._whole.add(fmt)
            return super()._format_statuses(fmt)
        # the first deck: the cards loaded so far; load() adds the later ones
        return self._con.execute(
            "SELECT oracle_id, status FROM legalities WHERE format = $fmt AND oracle_id IN $oids",
            {"fmt": fmt, "oids": list(self.cards)},
        ).fetchall()

    def _found(self, res: Any) -> Any:
        if res.oracle_id and res.oracle_id not in self.cards:
            self.load([res.oracle_id])
        return super()._found(res)
