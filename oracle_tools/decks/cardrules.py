"""The deck rules of each card, read once per database from its Oracle facts (:class:`CardRules`).

What a deck check needs to know about a card, and nothing about a deck: its deck limit from its own Oracle text
("A deck can have any number of cards named X", CR 100.2a's exceptions), whether it can be a commander (CR 903.3,
903.3a), its partner abilities (702.124), its colour identity (903.4) as bits. :mod:`oracle_tools.decks.checker`
judges decks with them; :mod:`oracle_tools.decks.report` holds the answers' types.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from oracle_tools.decks.companion import Condition, read_condition
from oracle_tools.store import sqlfiles
from oracle_tools.text import vocabulary
from oracle_tools.text.oracletext import (
    CREATURE_OFF_THE_BATTLEFIELD_PATTERN,
    MentionIndex,
    deck_limit_before,
    name_mentions,
    strip_reminders,
)

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "NONTRADITIONAL",
    "CardRules",
    "CardRulesTable",
    "Nontraditional",
    "card_facts",
    "card_rules",
    "deck_limit_from_text",
    "identity_letters",
    "read_card_facts",
    "stored_deck_limits",
]


def deck_limit_from_text(oracle_text: str | None, names: Iterable[str] = ()) -> float | None:
    """The deck limit a card's Oracle text sets for itself, or None when it sets none.

    "A deck can have any number of cards named X" -> ``math.inf``; "... up to seven cards named X" -> 7;
    "... only one card named X" -> 1 (overriding CR 100.2a's four copies). When ``names`` is given, X must
    be one of them (a card's text limits its own name). "Search your library for up to three cards named
    X" is no deck limit. X is the ``named`` mention :func:`oracle_tools.text.oracletext.name_mentions` reads
    (the ``name_references`` table stores the same spans; :class:`DeckChecker` reads those), the limit the
    lead-in :func:`oracle_tools.text.oracletext.deck_limit_before` reads right before it.

    >>> deck_limit_from_text("A deck can have up to nine cards named Nazgûl.")
    9
    """
    if not oracle_text or "deck can have" not in oracle_text.casefold():
        return None
    own = list(dict.fromkeys(n for n in names if n))
    wanted = {n.casefold() for n in own}
    for mention in name_mentions(oracle_text, (), names=MentionIndex(own) if own else None):
        if mention.kind != "named" or (wanted and mention.name.casefold() not in wanted):
            continue
        if wanted and not _ends_sentence(oracle_text, mention.end):
            continue  # "cards named Cid, Timeless Artificer." does not limit a card named Cid
        limit = deck_limit_before(oracle_text, mention.start)
        if limit is not None:
            return limit
    return None


def _ends_sentence(text: str, end: int) -> bool:
    """The deck-limit sentence names exactly the mention: "... cards named X." ends right after X."""
    return text.startswith(".", end) and (end + 1 == len(text) or text[end + 1].isspace())


def stored_deck_limits(con: duckdb.DuckDBPyConnection) -> dict[str, float]:
    """oracle_id -> the deck limit its own text sets, read from the stored ``name_references`` rows
    (oracle_tools/sql/deck_limits.sql)."""
    limits: dict[str, float] = {}
    for oracle_id, start, end, text in con.execute(sqlfiles.load("deck_limits.sql")).fetchall():
        limit = deck_limit_before(text, start) if _ends_sentence(text, end) else None
        if limit is not None:
            limits.setdefault(oracle_id, limit)  # rows come in text order: the first sentence wins
    return limits


_PARTNER_TEXT = re.compile(r"^partner\s*(?:—|–|-)\s*(?P<text>.+)$")
_CAN_BE_COMMANDER = re.compile(r"\bcan be your commander\b", re.I)
# CR 903.4b: a commander's static ability that has its player choose its color before the game begins
_CHOOSES_COLOR = re.compile(r"\bis your commander, choose a colou?r before the game begins\b", re.I)
# CR 113.6c: a legendary card that is a creature card off the battlefield (Grist, the Hunger Tide)
_CREATURE_OFF_THE_BATTLEFIELD = re.compile(CREATURE_OFF_THE_BATTLEFIELD_PATTERN, re.I | re.M)
# CR 105.1: the five colours, WUBRG order (vocabulary.COLOR_LETTERS); bit i for the i-th (W=1 U=2 B=4 R=8 G=16).
_COLOR_ORDER = "".join(vocabulary.COLOR_LETTERS.values())
_COLOR_BITS = {letter: 1 << i for i, letter in enumerate(_COLOR_ORDER)}


def _partner_abilities(oracle_text: str) -> tuple[tuple[str, str], ...]:
    """Partner abilities (CR 702.124a) as (kind, argument): plain, with, text, background, doctor."""
    found: list[tuple[str, str]] = []
    low_text = oracle_text.casefold()
    if not any(
        w in low_text
        for w in (
            "partner",
            "friends forever",
            "father & son",
            "survivors",
            "background",
            "companion",
            "character select",
        )
    ):
        return ()
    for line in oracle_text.split("\n"):
        line = strip_reminders(line).strip()
        if not line:
            continue
        items = [i.strip() for i in line.split(",")] if "partner with" not in line.casefold() else [line]
        for item in items:
            low = item.casefold().rstrip(".")
            if low == "partner":
                found.append(("plain", ""))
            elif low.startswith("partner with "):
                found.append(("with", item[len("partner with ") :].strip().rstrip(".").casefold()))
            elif m := _PARTNER_TEXT.match(low):
                found.append(("text", m.group("text").strip()))
            elif low in ("friends forever", "father & son", "survivors", "character select"):
                found.append(("text", low))
            elif low == "choose a background":
                found.append(("background", ""))
            elif low == "doctor's companion" or low == "doctor’s companion":
                found.append(("doctor", ""))
    return tuple(dict.fromkeys(found))


def color_bits(colors: Iterable[str]) -> int:
    """Color letters (W, U, B, R, G; others ignored) as the bits of ``CardRules.identity``."""
    out = 0
    for c in colors or ():
        out |= _COLOR_BITS.get(c, 0)
    return out


def identity_letters(bits: int) -> str:
    return "".join(f"{{{c}}}" for c in _COLOR_ORDER if bits & _COLOR_BITS[c]) or "colorless"


@dataclass(frozen=True, slots=True)
class CardRules:
    """What deck construction needs to know about one Oracle card."""

    oracle_id: str
    name: str
    basic: bool
    limit: float | None  # from the card's own text (None: the format's limit)
    identity: int  # color identity bit set (W=1 U=2 B=4 R=8 G=16)
    front_type: str
    commander_ok: bool  # can be a commander on its own (903.3 / 903.3a)
    planeswalker: bool  # legendary planeswalker front face (Brawl, Oathbreaker)
    creature: bool  # creature front face (Pauper Commander)
    instant_or_sorcery: bool  # Oathbreaker's signature spell
    background: bool  # legendary Background enchantment (702.124k)
    time_lord_doctor: bool  # legendary Time Lord Doctor creature, no other creature types (702.124m)
    partners: tuple[tuple[str, str], ...]
    companion: Condition | None = None  # its companion condition (CR 702.139a), None without companion
    nontraditional: str | None = None  # a key of NONTRADITIONAL: a card that is no card of a deck (CR 108.2a)
    # CR 712.4b: the combined back face of a meld pair is no card (only the melded permanent's characteristics)
    meld_result: bool = False
    # CR 712.8a: the names of a transforming or modal double-faced card's back face (a deck counts it as the card)
    back_faces: tuple[str, ...] = ()
    # CR 903.4b: "If [this] is your commander, choose a color before the game begins." (The Prismatic Piper)
    chooses_color: bool = False


# The facts a card's deck rules are read from: its ``cards`` row and its ``faces`` rows. Plain reads, joined by
# :func:`card_facts`: a fresh process checking one list reads its cards by primary key (DuckDB probes the index only
# when the key is the whole filter, so ``is_card`` is read, not filtered), and a join with a GROUP BY cost that
# process's peak ~8 MB of DuckDB's hash tables and scanned columns (bench/bench_startup.py).
_CARD_COLUMNS = "SELECT oracle_id, name, is_card, oracle_text, color_identity, type_line, power FROM cards"
_FACE_COLUMNS = "SELECT oracle_id, face_index, name, type_line, power, supertypes, role FROM faces"


def read_card_facts(con: duckdb.DuckDBPyConnection, oracle_ids: list[str] | None = None) -> list[dict[str, Any]]:
    """:func:`card_facts` of these cards (None: of every card of the database), read in two queries."""
    if oracle_ids is not None and not oracle_ids:
        return []
    where, params = ("", {}) if oracle_ids is None else (" WHERE oracle_id IN $oids", {"oids": oracle_ids})
    cards = con.execute(_CARD_COLUMNS + where, params).fetchall()
    faces = con.execute(_FACE_COLUMNS + where, params).fetchall()
    return card_facts(cards, faces)


class CardRulesTable(Mapping[str, CardRules]):
    """Every card's :class:`CardRules` (oracle_id -> rules; Oracle cards only, ``is_card``), read from the database
    in two plain reads at once and made per card when first asked: a checker that meets a few thousand cards does not
    make the rules of all of them first (that was most of a warm checker's start: ~0.3 s of CPU for 20k cards).
    The same rules as :func:`card_facts` + :func:`card_rules` of every card (the deck limit from ``limits``, as
    :func:`stored_deck_limits` reads it). Threads may share it: an entry is written whole
    and made the same by whichever thread makes it."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._limits = stored_deck_limits(con)
        self._cards = {row[0]: row for row in con.execute(_CARD_COLUMNS).fetchall() if row[2]}
        self._faces: dict[str, list[tuple[Any, ...]]] = {}
        for face in con.execute(_FACE_COLUMNS).fetchall():
            self._faces.setdefault(face[0], []).append(face)
        self._made: dict[str, CardRules] = {}

    def __getitem__(self, oracle_id: str) -> CardRules:
        made = self._made.get(oracle_id)
        if made is None:
            (row,) = card_facts([self._cards[oracle_id]], list(self._faces.get(oracle_id, ())))
            row["deck_limit"] = self._limits.get(oracle_id)
            made = self._made[oracle_id] = card_rules(row)
        return made

    def __contains__(self, oracle_id: object) -> bool:
        return oracle_id in self._cards

    def __iter__(self) -> Iterator[str]:
        return iter(self._cards)

    def __len__(self) -> int:
        return len(self._cards)


def _face_order(face: tuple[Any, ...]) -> tuple[bool, int]:
    """Faces by face_index, a face without one last (as ORDER BY puts NULLs)."""
    return (face[1] is None, face[1] or 0)


def card_facts(cards: Iterable[tuple[Any, ...]], faces: Iterable[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """One row per Oracle card (``is_card``) with the facts :func:`card_rules` reads: oracle_id, name, oracle_text
    ('' when none), color_identity ([] when none), front_type (the type line of the lowest-indexed face that has one
    (face 0: split first half, flip top, DFC front, adventurer, meld part), else the card's, else ''), front_power
    (the same for power), basic (any face has the Basic supertype: basics, snow basics, Wastes) and face_names (in
    face order; [None] for a card without faces, as a left join gives it), meld_result (a face has the role
    meld_result, CR 712.4b) and back_faces (the names of the faces with the role back, CR 712.8a).

    ``cards``: rows of (oracle_id, name, is_card, oracle_text, color_identity, type_line, power); ``faces``: rows of
    (oracle_id, face_index, name, type_line, power, supertypes, role) of those cards."""
    by_card: dict[str, list[tuple[Any, ...]]] = {}
    for face in faces:
        by_card.setdefault(face[0], []).append(face)
    rows = []
    for oracle_id, name, is_card, oracle_text, color_identity, type_line, power in cards:
        if not is_card:
            continue
        front_type = front_power = None
        basic = False
        face_names: list[str | None] = [None]
        roles: list[tuple[str | None, str | None]] = []
        card_faces = by_card.get(oracle_id)
        if card_faces:  # most cards have one face
            if len(card_faces) > 1:
                card_faces.sort(key=_face_order)
            face_names = [f[2] for f in card_faces]
            roles = [(f[6], f[2]) for f in card_faces]
            for _, face_index, _, face_type, face_power, supertypes, _ in card_faces:
                if face_index is not None:
                    front_type = face_type if front_type is None else front_type
                    front_power = face_power if front_power is None else front_power
                basic = basic or (supertypes is not None and "Basic" in supertypes)
        rows.append(
            {
                "oracle_id": oracle_id,
                "name": name,
                "oracle_text": oracle_text if oracle_text is not None else "",
                "color_identity": color_identity if color_identity is not None else [],
                "front_type": front_type if front_type is not None else (type_line if type_line is not None else ""),
                "front_power": front_power if front_power is not None else power,
                "basic": basic,
                "face_names": face_names,
                "meld_result": any(r == "meld_result" for r, _ in roles),
                "back_faces": tuple(n for r, n in roles if r == "back" and n),
            }
        )
    return rows


def card_rules(row: dict[str, Any]) -> CardRules:
    text = row["oracle_text"] or ""
    front = row["front_type"] or ""
    front_l = front.split(" // ")[0]
    legendary = "Legendary" in front_l
    supertypes_types, _, subtypes = front_l.partition("—")
    creature = "Creature" in supertypes_types
    if not creature and "isn" in text and _CREATURE_OFF_THE_BATTLEFIELD.search(text.replace("’", "'")):
        creature = True  # CR 113.6c: a creature card in the library and the command zone (903.3's "creature card")
    subtypes_l = subtypes.split()
    vehicle = "Vehicle" in subtypes_l
    spacecraft = "Spacecraft" in subtypes_l and row.get("front_power") is not None
    names = [row["name"], *(row["face_names"] or [])]
    return CardRules(
        oracle_id=row["oracle_id"],
        name=row["name"],
        basic=bool(row["basic"]),
        # the stored name_references reading when the checker passes it (DeckChecker), else the same reading of the text
        limit=row["deck_limit"] if "deck_limit" in row else deck_limit_from_text(text, names),
        identity=color_bits(row["color_identity"]),
        front_type=front_l,
        commander_ok=(legendary and (creature or vehicle or spacecraft)) or bool(_CAN_BE_COMMANDER.search(text)),
        planeswalker=legendary and "Planeswalker" in supertypes_types,
        creature=creature,
        instant_or_sorcery="Instant" in supertypes_types or "Sorcery" in supertypes_types,
        background=legendary and "Enchantment" in supertypes_types and "Background" in subtypes_l,
        time_lord_doctor=legendary and creature and subtypes.strip() == "Time Lord Doctor",
        partners=_partner_abilities(text),
        companion=read_condition(text),
        nontraditional=_nontraditional(supertypes_types.split(), subtypes_l),
        meld_result=bool(row.get("meld_result")),
        back_faces=tuple(row.get("back_faces") or ()),
        chooses_color="before the game begins" in text and bool(_CHOOSES_COLOR.search(text)),
    )


@dataclass(frozen=True, slots=True)
class Nontraditional:
    """A kind of card that is no card of a player's deck (CR 108.2a: "Nontraditional Magic cards are not included
    in players' decks. They may be used in supplementary decks."), and where the rules put it."""

    kind: str  # the type or subtype that makes it one, as on the type line
    rules: str  # the rules that say so
    where: str  # where the rules put it, one clause
    variant: str = ""  # the casual variant (CR 900.1) that alone plays it


#: Every kind, by the type (or artifact subtype) on its type line.
NONTRADITIONAL: dict[str, Nontraditional] = {
    n.kind: n
    for n in (
        Nontraditional(
            "Attraction",
            "CR 717.2",
            "Attraction cards do not begin the game in a player's deck and do not count toward deck sizes: they form "
            "a supplementary Attraction deck in the command zone",
        ),
        Nontraditional(
            "Contraption",
            "CR 701.45a",
            "the Comprehensive Rules leave Unstable's Contraptions to the Unstable FAQ, which keeps them in a "
            "Contraption deck of their own, apart from the deck",
        ),
        Nontraditional(
            "Conspiracy",
            "CR 315.3, 905.4",
            "conspiracy cards can't be included in a deck: each starts in the sideboard and may be put into the "
            "command zone, in Conspiracy Draft (limited) only",
        ),
        Nontraditional(
            "Plane",
            "CR 311.2, 901.3",
            "plane cards stay in the command zone, in a planar deck of their own",
            "Planechase",
        ),
        Nontraditional(
            "Phenomenon",
            "CR 312.2, 901.3",
            "phenomenon cards stay in the command zone, in a planar deck of their own",
            "Planechase",
        ),
        Nontraditional(
            "Scheme", "CR 314.2, 904.3", "scheme cards stay in the command zone, in a scheme deck", "Archenemy"
        ),
        Nontraditional(
            "Vanguard", "CR 313.2, 902.3", "a vanguard card stays in the command zone, beside the deck", "Vanguard"
        ),
        Nontraditional("Dungeon", "CR 309.2", "dungeon cards aren't part of a player's deck or sideboard"),
    )
}


def _nontraditional(types: list[str], subtypes: list[str]) -> str | None:
    """The :data:`NONTRADITIONAL` kind of a card's front type line words, None for a card of a deck."""
    for word in (*subtypes, *types):
        if word in NONTRADITIONAL:
            return word
    return None
