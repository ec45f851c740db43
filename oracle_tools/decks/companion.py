"""Companion (CR 702.139): each companion's deck-building condition, read from its Oracle text, judged against the
starting deck.

CR 702.139a: "Companion is a keyword ability that functions outside the game. It's written as
“Companion—[Condition].” Before the game begins, you may reveal one card you own from outside the game with a
companion ability whose condition is fulfilled by your starting deck." The companion itself is outside the game: its
own card is no card of the starting deck. CR 702.139b: "If a companion ability refers to your starting deck, it refers
to your deck after you've set aside any sideboard cards. In a Commander game, this is also before you've set aside
your commander." CR 103.2b: "A player may reveal no more than one card this way."

:func:`read_condition` reads the condition sentence into a :class:`Condition` of one of :data:`CONDITION_KINDS`
(a sentence it cannot read is the kind ``unread``: judged by no one, said so, never guessed). :func:`judge` judges
it on the starting deck's cards, whose characteristics are those a card has in a library (:class:`LibraryFacts`,
read by :func:`read_library_facts`):

* mana value: CR 202.3; a split card's halves combined (202.3d, 709.4b), an {X} counts 0 (202.3e), a hybrid symbol
  its largest part (202.3f), a double-faced card its front face (712.8a), an adventurer card its normal
  characteristics (715.4): Scryfall's ``cmc`` of the card, which is all of these;
* card types and subtypes: the characteristic faces (``store.layouts.FaceRole.characteristic_face``: both halves of a
  split card, 709.4c; a double-faced card's front, 712.8a; a flip card's upright half, 710.2; an adventurer, 715.4);
* mana symbols (Jegantha): each symbol of those faces' mana costs, a split card's halves seen separately (709.4b:
  "an effect such as that of Jegantha, the Wellspring sees that it contains the mana symbol {1} twice");
* an activated ability (Zirda): "[Cost]: [Effect]" in the card's own text (CR 602.1; a quoted ability is another
  object's), a keyword the rules call an activated ability (702.6a Equip, 702.29a Cycling, ...), or a basic land
  type's intrinsic mana ability (305.6);
* every creature type: changeling (702.73a), or the card's own "[this card] is every creature type" (Mistform
  Ultimus), a characteristic-defining ability that functions before the game begins (604.3).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from oracle_tools.store import layouts
from oracle_tools.text import vocabulary
from oracle_tools.text.oracletext import quote_mask

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "CONDITION_KINDS",
    "Condition",
    "LibraryFacts",
    "Verdict",
    "judge",
    "read_condition",
    "read_library_facts",
]

#: The kinds of companion condition this module reads, with what each asks of the starting deck.
CONDITION_KINDS: dict[str, str] = {
    "mana_value_parity": "only cards (or nonland cards) of even or odd mana value (Gyruda, Obosh)",
    "mana_value_at_least": "only cards (or nonland cards) of mana value N or greater (Keruga)",
    "mana_value_at_most": "each card of a kind has mana value N or less (Lurrus)",
    "different_names": "each card of a kind has a different name (Lutri)",
    "shares_card_type": "each card of a kind shares a card type (Umori)",
    "activated_ability": "each card of a kind has an activated ability (Zirda)",
    "creature_types": "each creature card is one of the creature types named (Kaheera)",
    "size_over_minimum": "at least N cards more than the minimum deck size (Yorion)",
    "no_repeated_symbol": "no card has more than one of the same mana symbol in its mana cost (Jegantha)",
    "unread": "a condition this checker cannot read: not judged",
}


@dataclass(frozen=True, slots=True)
class Condition:
    """One companion condition: its kind (a key of :data:`CONDITION_KINDS`), the sentence as printed, which cards
    it is about (``card``, ``nonland``, ``permanent``, ``creature``), a number and the words it names."""

    kind: str
    text: str
    scope: str = "card"
    number: int | None = None
    words: tuple[str, ...] = ()


_COMPANION = re.compile(r"^companion\s*[—–-]\s*(?P<condition>[^(\n]+?)\s*(?:\(|$)", re.I | re.M)
_NUMBER = r"(?P<n>\d+|[a-z]+)"
_ONLY = re.compile(r"^your starting deck contains only cards with (?P<what>.+?)(?P<lands> and land cards)?$")
_EACH = re.compile(r"^each (?P<scope>permanent|nonland|creature|land) card in your starting deck (?P<pred>.+)$")
_SIZE = re.compile(rf"^your starting deck contains at least {_NUMBER} cards more than the minimum deck size$")
_SYMBOL = re.compile(r"^no card in your starting deck has more than one of the same mana symbol in its mana cost$")
_PARITY = re.compile(r"^(?P<parity>even|odd) mana values$")
_VALUE = re.compile(rf"^(?:has )?mana value {_NUMBER} or (?P<way>greater|more|less|fewer)$")
_IS_A = re.compile(r"^is an? (?P<list>.+?) card$")
_LIST_SPLIT = re.compile(r",\s*(?:or\s+)?|\s+or\s+")


def _number(word: str) -> int | None:
    return int(word) if word.isdigit() else vocabulary.number_value(word)


def read_condition(oracle_text: str | None) -> Condition | None:
    """The companion condition of a card's Oracle text; None for a card without companion (CR 702.139a). A
    companion whose sentence none of the shapes below reads is ``Condition("unread", sentence)``.

    >>> read_condition("Companion — Your starting deck contains only cards with even mana values. (...)").kind
    'mana_value_parity'
    >>> read_condition("Flying").__class__.__name__
    'NoneType'
    """
    if not oracle_text or "ompanion" not in oracle_text:
        return None
    match = _COMPANION.search(oracle_text)
    if match is None:
        return None
    printed = match.group("condition").strip()
    sentence = printed.rstrip(".").strip()
    low = " ".join(sentence.casefold().replace("’", "'").split())
    condition = _read(low, printed)
    return condition if condition is not None else Condition("unread", printed)


def _read(low: str, printed: str) -> Condition | None:
    if m := _ONLY.match(low):
        scope = "nonland" if m.group("lands") else "card"
        what = m.group("what")
        if p := _PARITY.match(what):
            return Condition("mana_value_parity", printed, scope, 0 if p.group("parity") == "even" else 1)
        if (v := _VALUE.match(what)) and (n := _number(v.group("n"))) is not None:
            kind = "mana_value_at_least" if v.group("way") in ("greater", "more") else "mana_value_at_most"
            return Condition(kind, printed, scope, n)
        return None
    if m := _EACH.match(low):
        scope, pred = m.group("scope"), m.group("pred")
        if (v := _VALUE.match(pred)) and (n := _number(v.group("n"))) is not None:
            kind = "mana_value_at_least" if v.group("way") in ("greater", "more") else "mana_value_at_most"
            return Condition(kind, printed, scope, n)
        if pred == "has a different name":
            return Condition("different_names", printed, scope)
        if pred == "shares a card type":
            return Condition("shares_card_type", printed, scope)
        if pred == "has an activated ability":
            return Condition("activated_ability", printed, scope)
        if (i := _IS_A.match(pred)) and scope == "creature":
            words = tuple(w.strip() for w in _LIST_SPLIT.split(i.group("list")) if w.strip())
            known = {t.casefold(): t for t in vocabulary.subtypes("creature")}
            if words and all(w in known for w in words):
                return Condition("creature_types", printed, scope, words=tuple(known[w] for w in words))
        return None
    if (m := _SIZE.match(low)) and (n := _number(m.group("n"))) is not None:
        return Condition("size_over_minimum", printed, "card", n)
    if _SYMBOL.match(low):
        return Condition("no_repeated_symbol", printed, "card")
    return None


# --------------------------------------------------------------------------- a card's characteristics in a library


@dataclass(frozen=True, slots=True)
class LibraryFacts:
    """What a companion condition reads of one card: its characteristics in a library (see the module's text)."""

    mana_value: float | None
    symbols: tuple[str, ...]
    card_types: frozenset[str]
    subtypes: frozenset[str]
    every_creature_type: bool
    activated: bool

    def of(self, scope: str) -> bool:
        """Whether the card is a card of ``scope``: any card, a nonland card, a permanent card (CR 110.4a) or a
        creature card."""
        if scope == "nonland":
            return "Land" not in self.card_types
        if scope == "permanent":
            return bool(self.card_types & _permanent_types())
        if scope in ("creature", "land"):
            return scope.capitalize() in self.card_types
        return True


@functools.cache
def _permanent_types() -> frozenset[str]:
    """CR 110.4's permanent types, read from the shipped rules when a condition first asks (a deck check without a
    companion never does: a fresh process does not read the rules text for it)."""
    return frozenset(vocabulary.permanent_types())


_CHARACTERISTIC_ROLES = frozenset(r.role for r in layouts.FACE_ROLES if r.characteristic_face)
_SYMBOLS = re.compile(r"\{[^{}]+\}")
# "[Cost]: [Effect]" (CR 602.1a): a colon after something, a space after the colon (not "1:1" ratios)
_COST_COLON = re.compile(r"\S:\s")


@functools.cache
def _activated_keywords() -> frozenset[str]:
    """The keyword abilities the rules call activated abilities, read from the shipped Comprehensive Rules
    (702.6a "Equip is an activated ability", 702.29a Cycling, 702.151a "Reconfigure represents two activated
    abilities", ...), lower case."""
    from oracle_tools.store.resources import newest_rules_file

    path = newest_rules_file()
    if path is None:
        return frozenset()
    text = path.read_text(encoding="utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    found = re.findall(
        r"^702\.\d+a (?:An? (?=[a-z]))?([A-Za-z][\w' ]*?) (?:ability )?(?:is|represents) (?:an?|two|a special kind of) "
        r"(?:activated ability|activated abilities)",
        text,
        re.M,
    )
    return frozenset(k.casefold() for k in found)


def _has_activated(texts: Iterable[str], keywords: Iterable[str], subtypes: frozenset[str]) -> bool:
    """Whether a card has an activated ability: texts are its characteristic faces' Oracle text, quoted abilities
    (other objects' abilities) left out."""
    if subtypes & _BASIC_LAND_TYPES:
        return True  # CR 305.6: a basic land type gives its intrinsic "{T}: Add [mana]" ability
    activated = _activated_keywords()
    if any(k.casefold() in activated for k in keywords):
        return True
    for text in texts:
        for line in text.split("\n"):
            if _COST_COLON.search(line + " "):
                return True
            low = line.casefold()
            if any(low == k or low.startswith(k + " ") for k in activated):
                return True
    return False


_BASIC_LAND_TYPES = frozenset(vocabulary.BASIC_LAND_TYPE_MANA)  # CR 305.6


def _unquoted(text: str) -> str:
    try:
        mask = quote_mask(text, strict=False)
    except ValueError:
        return text
    return "".join(ch for ch, q in zip(text, mask) if not q)


def _library_facts(card: tuple[Any, ...], faces: list[tuple[Any, ...]]) -> LibraryFacts:
    _, cmc, mana_cost, type_line, oracle_text, keywords, name = card
    own = [f for f in faces if f[2] in _CHARACTERISTIC_ROLES]
    if own:
        costs = [f[3] or "" for f in own]
        types = {vocabulary.OBSOLETE_CARD_TYPES.get(t, t) for f in own for t in (f[4] or ())}
        subs = {s for f in own for s in (f[5] or ())}
        texts = [f[6] or "" for f in own]
    else:
        costs = (mana_cost or "").split(" // ")
        front = (type_line or "").split(" // ")[0]
        left, _, right = front.partition("—")
        known = set(vocabulary.card_types())
        types = {vocabulary.OBSOLETE_CARD_TYPES.get(w, w) for w in left.split()} & (known | {"Kindred"})
        subs = set(right.split())
        texts = [oracle_text or ""]
    keywords = list(keywords or ())
    texts = [_unquoted(t) if ('"' in t or "“" in t) else t for t in texts]
    changeling = (
        any(k.casefold() == "changeling" for k in keywords)
        or any(re.search(r"^changeling\b", t, re.I | re.M) for t in texts)
        or any(_every_creature_type(t, name or "") for t in texts)
    )
    return LibraryFacts(
        mana_value=cmc,
        symbols=tuple(s for cost in costs for s in _SYMBOLS.findall(cost)),
        card_types=frozenset(types),
        subtypes=frozenset(subs),
        every_creature_type=changeling,
        activated=_has_activated(texts, keywords, frozenset(subs)),
    )


def _every_creature_type(text: str, name: str) -> bool:
    """Whether ``text`` says the card itself "is every creature type" ("Mistform Ultimus is every creature type (even
    if this card isn't on the battlefield)."): a characteristic-defining ability, which functions "outside the game
    and before the game begins" (CR 604.3), as changeling does (702.73a). An Equipment's "Equipped creature ... is
    every creature type" is about another object."""
    if "every creature type" not in text:
        return False
    own = [re.escape(n) for n in (name, *name.split(" // ")) if n] + [r"this (?:card|creature|object)"]
    return re.search(rf"^(?:{'|'.join(own)}) is every creature type\b", text, re.I | re.M) is not None


def read_library_facts(con: duckdb.DuckDBPyConnection, oracle_ids: Sequence[str]) -> dict[str, LibraryFacts]:
    """oracle_id -> :class:`LibraryFacts` of these cards, read in two plain queries."""
    if not oracle_ids:
        return {}
    params = {"oids": list(oracle_ids)}
    cards = con.execute(
        "SELECT oracle_id, cmc, mana_cost, type_line, oracle_text, keywords, name FROM cards WHERE oracle_id IN $oids",
        params,
    ).fetchall()
    faces = con.execute(
        "SELECT oracle_id, face_index, role, mana_cost, card_types, subtypes, oracle_text FROM faces "
        "WHERE oracle_id IN $oids",
        params,
    ).fetchall()
    by_card: dict[str, list[tuple[Any, ...]]] = {}
    for face in faces:
        by_card.setdefault(face[0], []).append(face)
    return {card[0]: _library_facts(card, by_card.get(card[0], [])) for card in cards}


# --------------------------------------------------------------------------- judging


@dataclass(frozen=True, slots=True)
class Verdict:
    """A condition judged: ``fulfilled`` True/False, or None (not judged: ``why`` says why); ``why`` says how it
    fails, naming the first cards that break it."""

    fulfilled: bool | None
    why: str = ""


#: The cards a failed condition names before it counts the rest.
SHOWN = 3

# One card of the starting deck: (name, line, count, facts, class key). Lines may be None.
DeckCard = tuple[str, int | None, int, LibraryFacts, str]


def _listing(broken: list[tuple[str, int | None, str]]) -> str:
    """The first :data:`SHOWN` cards that break a condition, each with its line and why, then how many more."""

    def one(name: str, line: int | None, what: str) -> str:
        inside = ", ".join(x for x in (f"line {line}" if line else "", what) if x)
        return f"{name} ({inside})" if inside else name

    shown = ", ".join(one(*b) for b in broken[:SHOWN])
    return shown + (f" and {len(broken) - SHOWN} more" if len(broken) > SHOWN else "")


def _value(v: float) -> str:
    return f"{v:g}"


def judge(condition: Condition, deck: Sequence[DeckCard], *, size: int, minimum: int) -> Verdict:
    """Whether the starting deck ``deck`` (its cards, with ``size`` cards in all; the format's ``minimum`` deck size)
    fulfils ``condition`` (CR 702.139a)."""
    kind, n, scope = condition.kind, condition.number, condition.scope
    if kind == "unread":
        return Verdict(None, "its condition is not one this checker can read")
    if kind == "size_over_minimum":
        need = minimum + (n or 0)
        if size >= need:
            return Verdict(True)
        return Verdict(
            False,
            f"the starting deck has {size} cards; it needs at least {need} (the minimum deck size, {minimum}, plus {n})",
        )
    cards = [c for c in deck if c[3].of(scope)]
    broken: list[tuple[str, int | None, str]] = []
    if kind in ("mana_value_parity", "mana_value_at_least", "mana_value_at_most"):
        unknown = [c[0] for c in cards if c[3].mana_value is None]
        if unknown:
            return Verdict(None, f"the data has no mana value for {', '.join(unknown[:SHOWN])}")
        for name, line, _, facts, _ in cards:
            mv = facts.mana_value or 0.0
            ok = (
                (mv % 2 == n)
                if kind == "mana_value_parity"
                else (mv >= (n or 0))
                if kind == "mana_value_at_least"
                else (mv <= (n or 0))
            )
            if not ok:
                broken.append((name, line, f"mana value {_value(mv)}"))
    elif kind == "different_names":
        counts: Counter[str] = Counter()
        first: dict[str, tuple[str, int | None]] = {}
        for name, line, count, _, key in cards:
            counts[key] += count
            first.setdefault(key, (name, line))
        broken = [(first[k][0], first[k][1], f"{total} copies") for k, total in counts.items() if total > 1]
    elif kind == "shares_card_type":
        if not cards:
            return Verdict(True)
        shared = functools.reduce(lambda a, b: a & b, (c[3].card_types for c in cards))
        if shared:
            return Verdict(True)
        # the type most copies have (ties: the first in CR 205.2a's order): the cards without it break the condition
        weight: Counter[str] = Counter()
        for c in cards:
            weight.update(dict.fromkeys(c[3].card_types, c[2]))
        order = {t: i for i, t in enumerate(vocabulary.card_types())}
        common = min(weight, key=lambda t: (-weight[t], order.get(t, len(order)), t))
        broken = [
            (name, line, "/".join(sorted(f.card_types)) or "no card type")
            for name, line, _, f, _ in cards
            if common not in f.card_types
        ]
        if broken:
            return Verdict(
                False,
                f"no card type is shared by every nonland card; {len(broken)} "
                f"{'is no' if len(broken) == 1 else 'are no'} {common}: {_listing(broken)}",
            )
    elif kind == "activated_ability":
        broken = [(name, line, "") for name, line, _, f, _ in cards if not f.activated]
    elif kind == "creature_types":
        allowed = set(condition.words)
        broken = [
            (name, line, " ".join(sorted(f.subtypes)) or "no creature type")
            for name, line, _, f, _ in cards
            if not f.every_creature_type and not (f.subtypes & allowed)
        ]
    elif kind == "no_repeated_symbol":
        for name, line, _, f, _ in cards:
            twice = sorted(s for s, k in Counter(f.symbols).items() if k > 1)
            if twice:
                broken.append((name, line, " ".join(f"{s} ×{Counter(f.symbols)[s]}" for s in twice)))
    if not broken:
        return Verdict(True)
    return Verdict(
        False, f"{len(broken)} {'card breaks' if len(broken) == 1 else 'cards break'} it: {_listing(broken)}"
    )
