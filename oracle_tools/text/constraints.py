"""The constraint language for "choose a card name" (CR 201.4).

Cards such as Pithing Needle, Meddling Mage, Cabal Therapy, Dispossess, Runed Halo,
Booby Trap and Phyrexian Revoker tell a player to *choose a card name*, often "with
certain characteristics" ("Choose a nonland card name."). CR 201.4 says the player
must choose the name of a card in the Oracle card reference, and CR 201.4a says that
card's Oracle text must match those characteristics.

This module models those characteristics as small, immutable, composable predicates
(:class:`Constraint`) over **one face row** of the ``faces`` table::

    oracle_id, face_index, name, role, layout, mana_cost, mana_value, type_line,
    supertypes[], card_types[], subtypes[], oracle_text, colors[], color_indicator[],
    power, toughness, loyalty, defense, is_card

A constraint is judged by the characteristics of the face it is given and nothing
else.  That is exactly what CR 201.4b-f ask for: a split-card half is judged by that
half's characteristics only (201.4b), a flip card's alternative name and an adventurer
card's Adventure by the characteristics as modified by the alternative characteristics
(201.4c, 201.4f), a double-faced card's back face by the back face only (201.4d), and a
meld pair's combined back face by that face only (201.4e).  Picking the right face row
for a name is the caller's job (the validator module does it against the database);
this module never looks beyond the row it is handed.  It needs no database.

The same predicate is available three ways: :meth:`Constraint.matches` (one face as a
mapping), :meth:`Constraint.to_polars` (a ``pl.Expr`` over a frame with the faces
columns; both agree on every row, including rows with NULLs) and
:meth:`Constraint.describe` (a canonical phrase; ``parse_constraint(c.describe()) == c``).

Grammar accepted by :func:`parse_constraint` (case-insensitive; see ``GRAMMAR``)::

    phrase   := wrapper* [ expr ]            empty or "any" -> any card name
    expr     := [ disj ] "other than" expr   X other than Y = X and not Y
              | disj
    disj     := conj { "or" conj }           "A, B, or C" (a comma list ending in "or")
                                             is a list of alternatives
    conj     := term { ("," | "and") term }  "nonartifact, nonland" = both
    term     := unit { unit }                "nonbasic land", "legendary creature"
    unit     := "not" unit | "(" expr ")" | ["non" | "non-"] word
              | mana-value | 'named "Card Name"' | 'subtype "Xyz"'
              | [ "that hasn't been chosen" ] "from among" A, B, and C   (end only)
    word     := card type (CR 205.2a; "tribal" = "kindred") | supertype (CR 205.4a)
              | subtype (CR 205.3g-q, e.g. Goblin, Equipment, Time Lord)
              | color: white blue black red green | colorless monocolored
                multicolored colored | "permanent" (CR 110.4a) | "any"
    mana-value := "mana value" N [ "or less" | "or greater" | "or more" | "or fewer" ]
              | "mana value" ("less than" | "greater than" | "at least" | "at most") N
                ("converted mana cost" and "cmc" are accepted for "mana value")
    wrapper  := a | an | the | card | cards | name | names | with

A word that is neither a type, a supertype, a colour nor one of the subtypes listed in
CR 205.3g-q (Comprehensive Rules 2026-01-16) is rejected with a "did you mean" hint
rather than silently read as a subtype, so typos such as "nonlnad" fail loudly; an
obsolete or brand-new subtype can still be named explicitly: ``subtype "Hound"``.
"""

from __future__ import annotations

import difflib
import functools
import math
import operator
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar

from oracle_tools.errors import ConstraintError
from oracle_tools.store.lazy import LazyModule
from oracle_tools.text import vocabulary

if TYPE_CHECKING:
    import polars as pl
else:
    pl = LazyModule("polars")  # to_polars() only: judging one face needs no Polars

__all__ = [
    "GRAMMAR",
    "KNOWN_PHRASES",
    "PERMANENT_TYPES",
    "WHERE_LISTED",
    "And",
    "AnyCard",
    "CardType",
    "Color",
    "ColorCount",
    "Constraint",
    "ManaValue",
    "Named",
    "Not",
    "Or",
    "Permanent",
    "Subtype",
    "Supertype",
    "card_name_phrases",
    "constraint_from_oracle_text",
    "help_text",
    "parse_constraint",
]

# ---------------------------------------------------------------------------
# Vocabulary (Comprehensive Rules 2026-01-16)
# ---------------------------------------------------------------------------

#: Every phrase the Oracle text of real cards puts between "choose(s) a/an/any" and
#: "card name", plus the qualifier that may follow "card name".  Verified against the
#: 2025-09 commander-legal dump (29,730 cards) and the 2019-10 default-cards dump
#: (45,851 printings) -- see tests/test_constraints.py.  "" is plain "choose a card
#: name" (any card name).
KNOWN_PHRASES: tuple[str, ...] = (
    "",
    "any",
    "nonland",
    "creature",
    "artifact",
    "nonbasic land",
    "nonartifact, nonland",
    "noncreature, nonland",
    "other than a basic land card name",
    "that hasn't been chosen from among Disenchant, Braingeyser, Terror, Shivan Dragon, Regrowth, and Black Lotus",
)

# Card types (CR 205.2a), supertypes (CR 205.4a), colours (CR 105.1) and the CR 205.3g-q subtypes all
# come from oracle_tools.text.vocabulary, which reads them from the stored Comprehensive Rules.
_CARD_TYPES: dict[str, str] = {w.lower(): w for w in vocabulary.card_types()}
# Kindred was called Tribal before 2024; older Oracle data (and the 2019 dump) says
# "Tribal".  They are the same card type, so "kindred" matches either spelling.
_CARD_TYPE_ALIASES: dict[str, str] = {old.lower(): new for old, new in vocabulary.OBSOLETE_CARD_TYPES.items()}
_CARD_TYPE_SPELLINGS: dict[str, tuple[str, ...]] = {
    new: (new, old) for old, new in vocabulary.OBSOLETE_CARD_TYPES.items()
}

_SUPERTYPES: dict[str, str] = {w.lower(): w for w in vocabulary.supertypes()}

# CR 110.4 / 110.4a: "There are six permanent types: artifact, battle, creature,
# enchantment, land, and planeswalker."  A permanent card is a card with one of them.
PERMANENT_TYPES: tuple[str, ...] = vocabulary.permanent_types()

_COLOR_WORDS: dict[str, str] = dict(vocabulary.COLOR_LETTERS)
_COLOR_WORD_BY_LETTER: dict[str, str] = dict(vocabulary.COLOR_WORD_BY_LETTER)
# CR 105.2a-c: colorless, monocolored, multicolored, colored -> (fewest, most) colours.
_COLOR_COUNTS: dict[str, tuple[int, int | None]] = dict(vocabulary.COLOR_COUNT_WORDS)

# CR 205.3g-q (planar types, 205.3n, are left out: they are multi-word names of planes;
# use subtype "..." for them).  Apostrophes are normalised to ASCII "'".
_CR_SUBTYPES: dict[str, tuple[str, ...]] = {
    kind: tuple(vocabulary.normalise_apostrophes(w) for w in words)
    for kind, words in vocabulary.all_subtypes().items()
    if kind != "planar"
}

_SUBTYPES: dict[str, str] = {w.lower(): w for ws in _CR_SUBTYPES.values() for w in ws}

_OPS: dict[str, Any] = {
    "=": operator.eq,
    "<=": operator.le,
    ">=": operator.ge,
    "<": operator.lt,
    ">": operator.gt,
}


def _norm(text: str) -> str:
    """Case- and apostrophe-insensitive key for names and subtypes."""
    return text.replace("\u2019", "'").lower()


def _as_list(value: Any) -> list[Any]:
    """A list column value (None -> [])."""
    if value is None:
        return []
    return list(value)


def _list_contains(column: str, values: tuple[str, ...]) -> pl.Expr:
    exprs = [pl.col(column).list.contains(pl.lit(v, dtype=pl.String)) for v in values]
    return functools.reduce(operator.or_, exprs).fill_null(False)


# Numbers in phrases: plain decimals (mana values go up to Gleemax's 1,000,000 and down
# to the half-mana of Un-cards).
_NUMBER = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,12})?", re.ASCII)


def _fmt_number(value: float) -> str:
    if value.is_integer():
        return str(int(value))
    return format(Decimal(repr(value)), "f")


# ---------------------------------------------------------------------------
# Constraint model
# ---------------------------------------------------------------------------


class Constraint:
    """An immutable predicate over one face row.  Compose with ``&``, ``|`` and ``~``.

    Equality is structural and insensitive to the order of ``&``/``|`` operands:
    ``CardType("Artifact") & CardType("Creature") == CardType("Creature") & CardType("Artifact")``.
    """

    __slots__ = ()
    _rank: ClassVar[int] = 50

    def matches(self, face: Mapping[str, Any]) -> bool:
        """Whether this face's own characteristics satisfy the constraint (CR 201.4a-f)."""
        raise NotImplementedError

    def to_polars(self) -> pl.Expr:
        """The same predicate as a boolean, never-null ``pl.Expr`` over the faces columns."""
        raise NotImplementedError

    def describe(self) -> str:
        """Canonical phrase; ``parse_constraint(c.describe()) == c``."""
        return self._describe(top=True)

    # -- internals -------------------------------------------------------
    def _describe(self, top: bool = False) -> str:
        raise NotImplementedError

    def _non_word(self) -> str | None:
        """The "nonX" word for the negation of this atom, if English has one."""
        return None

    def _sort_key(self) -> tuple[int, str]:
        return (self._rank, self._describe())

    # -- composition -----------------------------------------------------
    def __and__(self, other: Constraint) -> Constraint:
        if not isinstance(other, Constraint):
            return NotImplemented
        return _and(self, other)

    def __or__(self, other: Constraint) -> Constraint:
        if not isinstance(other, Constraint):
            return NotImplemented
        return _or(self, other)

    def __invert__(self) -> Constraint:
        return _not(self)

    def __str__(self) -> str:
        return self.describe()


@dataclass(frozen=True)
class AnyCard(Constraint):
    """Any card name ("choose a card name", "choose any card name")."""

    _rank: ClassVar[int] = 0

    def matches(self, face: Mapping[str, Any]) -> bool:
        return True

    def to_polars(self) -> pl.Expr:
        # one value per row (a bare pl.lit(True) would be a single row in .select())
        return pl.repeat(True, pl.len())

    def _describe(self, top: bool = False) -> str:
        return "any"


@dataclass(frozen=True)
class CardType(Constraint):
    """The face has this card type (CR 205.2a), e.g. ``CardType("Land")``."""

    name: str
    _rank: ClassVar[int] = 5

    def __post_init__(self) -> None:
        key = self.name.lower()
        canonical = _CARD_TYPES.get(key) or _CARD_TYPE_ALIASES.get(key)
        if canonical is None:
            raise ConstraintError(
                f"{self.name!r} is not a card type; the card types (CR 205.2a) are " + ", ".join(_CARD_TYPES.values())
            )
        object.__setattr__(self, "name", canonical)

    def _spellings(self) -> tuple[str, ...]:
        return _CARD_TYPE_SPELLINGS.get(self.name, (self.name,))

    def matches(self, face: Mapping[str, Any]) -> bool:
        types = _as_list(face.get("card_types"))
        return any(s in types for s in self._spellings())

    def to_polars(self) -> pl.Expr:
        return _list_contains("card_types", self._spellings())

    def _describe(self, top: bool = False) -> str:
        return self.name.lower()

    def _non_word(self) -> str:
        return "non" + self.name.lower()


@dataclass(frozen=True)
class Supertype(Constraint):
    """The face has this supertype (CR 205.4a), e.g. ``Supertype("Basic")``."""

    name: str
    _rank: ClassVar[int] = 1

    def __post_init__(self) -> None:
        canonical = _SUPERTYPES.get(self.name.lower())
        if canonical is None:
            raise ConstraintError(
                f"{self.name!r} is not a supertype; the supertypes (CR 205.4a) are " + ", ".join(_SUPERTYPES.values())
            )
        object.__setattr__(self, "name", canonical)

    def matches(self, face: Mapping[str, Any]) -> bool:
        return self.name in _as_list(face.get("supertypes"))

    def to_polars(self) -> pl.Expr:
        return _list_contains("supertypes", (self.name,))

    def _describe(self, top: bool = False) -> str:
        return self.name.lower()

    def _non_word(self) -> str:
        return "non" + self.name.lower()


@dataclass(frozen=True)
class Subtype(Constraint):
    """The face has this subtype (CR 205.3), compared case- and apostrophe-insensitively.

    Subtypes listed in CR 205.3g-q are spelled canonically (``Subtype("goblin") ==
    Subtype("Goblin")``); any other name is kept as given (obsolete or future subtypes).
    """

    name: str
    _rank: ClassVar[int] = 4

    def __post_init__(self) -> None:
        name = " ".join(self.name.replace("\u2019", "'").split())
        if not name or '"' in name:
            raise ConstraintError(f"{self.name!r} is not a usable subtype name")
        object.__setattr__(self, "name", _SUBTYPES.get(name.lower(), name))

    @property
    def is_known(self) -> bool:
        """Whether the subtype is one CR 205.3g-q lists (so it parses as a bare word)."""
        return _SUBTYPES.get(self.name.lower()) == self.name

    def matches(self, face: Mapping[str, Any]) -> bool:
        key = _norm(self.name)
        return any(isinstance(s, str) and _norm(s) == key for s in _as_list(face.get("subtypes")))

    def to_polars(self) -> pl.Expr:
        normed = pl.col("subtypes").list.eval(
            pl.element().str.replace_all("\u2019", "'", literal=True).str.to_lowercase()
        )
        return normed.list.contains(pl.lit(_norm(self.name), dtype=pl.String)).fill_null(False)

    def _describe(self, top: bool = False) -> str:
        return self.name if self.is_known else f'subtype "{self.name}"'

    def _non_word(self) -> str | None:
        return "non-" + self.name if self.is_known else None


@dataclass(frozen=True)
class Color(Constraint):
    """The face is this color (a W/U/B/R/G letter in ``colors``)."""

    letter: str
    _rank: ClassVar[int] = 2

    def __post_init__(self) -> None:
        letter = _COLOR_WORDS.get(self.letter.lower(), self.letter.upper())
        if letter not in _COLOR_WORD_BY_LETTER:
            raise ConstraintError(f"{self.letter!r} is not a color (W, U, B, R, G or its name)")
        object.__setattr__(self, "letter", letter)

    def matches(self, face: Mapping[str, Any]) -> bool:
        return self.letter in _as_list(face.get("colors"))

    def to_polars(self) -> pl.Expr:
        return _list_contains("colors", (self.letter,))

    def _describe(self, top: bool = False) -> str:
        return _COLOR_WORD_BY_LETTER[self.letter]

    def _non_word(self) -> str:
        return "non" + _COLOR_WORD_BY_LETTER[self.letter]


@dataclass(frozen=True)
class ColorCount(Constraint):
    """colorless (0 colors), monocolored (1), multicolored (2+) or colored (1+)."""

    kind: str
    _rank: ClassVar[int] = 2

    def __post_init__(self) -> None:
        kind = self.kind.lower()
        if kind not in _COLOR_COUNTS:
            raise ConstraintError(f"{self.kind!r} is not one of {', '.join(_COLOR_COUNTS)}")
        object.__setattr__(self, "kind", kind)

    def _test(self, n: Any) -> Any:
        fewest, most = _COLOR_COUNTS[self.kind]  # CR 105.2a-c
        if most is None:
            return n >= fewest
        return n == fewest if fewest == most else (n >= fewest) & (n <= most)

    def matches(self, face: Mapping[str, Any]) -> bool:
        return bool(self._test(len(_as_list(face.get("colors")))))

    def to_polars(self) -> pl.Expr:
        return self._test(pl.col("colors").list.len().fill_null(0)).fill_null(False)

    def _describe(self, top: bool = False) -> str:
        return self.kind

    def _non_word(self) -> str:
        return "non" + self.kind


@dataclass(frozen=True)
class Permanent(Constraint):
    """A permanent card: artifact, battle, creature, enchantment, land or planeswalker.

    CR 110.4a: 'The term "permanent card" is used to refer to a card that could be put
    onto the battlefield. Specifically, it means an artifact, battle, creature,
    enchantment, land, or planeswalker card.'  (Kindred alone is not enough: a kindred
    instant is not a permanent card, CR 110.4.)
    """

    _rank: ClassVar[int] = 6

    def matches(self, face: Mapping[str, Any]) -> bool:
        types = _as_list(face.get("card_types"))
        return any(t in types for t in PERMANENT_TYPES)

    def to_polars(self) -> pl.Expr:
        return _list_contains("card_types", PERMANENT_TYPES)

    def _describe(self, top: bool = False) -> str:
        return "permanent"

    def _non_word(self) -> str:
        return "nonpermanent"


@dataclass(frozen=True)
class ManaValue(Constraint):
    """Compare the face's ``mana_value`` (CR 202.3) with a number.

    ``op`` is one of ``=``, ``<=``, ``>=``, ``<``, ``>``.  The row's ``mana_value`` is
    used as stored (the database applies CR 202.3a-d: no mana cost -> 0, a transforming
    back face uses its front face's, a split half its own); a NULL never matches.
    """

    op: str
    value: float
    _rank: ClassVar[int] = 9

    def __post_init__(self) -> None:
        if self.op not in _OPS:
            raise ConstraintError(f"mana value comparison {self.op!r} is not one of {list(_OPS)}")
        value = float(self.value)
        if not math.isfinite(value) or value < 0 or not _NUMBER.fullmatch(_fmt_number(value)):
            raise ConstraintError(
                f"mana value {self.value!r} is not a number from 0 to 999999999999 with at most 12 decimals"
            )
        object.__setattr__(self, "value", value)

    def matches(self, face: Mapping[str, Any]) -> bool:
        mv = face.get("mana_value")
        if mv is None or (isinstance(mv, float) and math.isnan(mv)):
            return False
        return bool(_OPS[self.op](float(mv), self.value))

    def to_polars(self) -> pl.Expr:
        # NaN -> NULL first: polars orders NaN above every number, Python compares it False.
        col = pl.col("mana_value").cast(pl.Float64).fill_nan(None)
        return _OPS[self.op](col, pl.lit(self.value)).fill_null(False)

    def _describe(self, top: bool = False) -> str:
        n = _fmt_number(self.value)
        return {
            "=": f"mana value {n}",
            "<=": f"mana value {n} or less",
            ">=": f"mana value {n} or greater",
            "<": f"mana value less than {n}",
            ">": f"mana value greater than {n}",
        }[self.op]


@dataclass(frozen=True)
class Named(Constraint):
    """The face has exactly this name (case- and apostrophe-insensitive).

    Used for Garth One-Eye's "choose a card name that hasn't been chosen from among
    Disenchant, Braingeyser, ..." (the "hasn't been chosen" part is game history, not a
    characteristic, and is not modelled).

    The name comes from the constraint language (``named "X"``, quotes required) or a
    "from among" list, never from Oracle text's "named X" phrase: that phrase (and what X
    it names) is read in one place, :func:`oracle_tools.text.oracletext.name_mentions`.
    """

    name: str
    _rank: ClassVar[int] = 10

    def __post_init__(self) -> None:
        name = " ".join(self.name.split())
        if not name or '"' in name:
            raise ConstraintError(f"{self.name!r} is not a usable card name")
        object.__setattr__(self, "name", name)

    def matches(self, face: Mapping[str, Any]) -> bool:
        name = face.get("name")
        return isinstance(name, str) and _norm(name) == _norm(self.name)

    def to_polars(self) -> pl.Expr:
        normed = pl.col("name").str.replace_all("\u2019", "'", literal=True).str.to_lowercase()
        return (normed == pl.lit(_norm(self.name), dtype=pl.String)).fill_null(False)

    def _describe(self, top: bool = False) -> str:
        return f'named "{self.name}"'


@dataclass(frozen=True)
class Not(Constraint):
    """Negation.  Build with ``~c`` (which also folds ``~~c`` to ``c``)."""

    inner: Constraint
    _rank: ClassVar[int] = 8

    def matches(self, face: Mapping[str, Any]) -> bool:
        return not self.inner.matches(face)

    def to_polars(self) -> pl.Expr:
        return ~self.inner.to_polars()

    def _sort_key(self) -> tuple[int, str]:
        inner = self.inner
        if isinstance(inner, (Supertype, Color, ColorCount)):
            rank = inner._rank
        elif isinstance(inner, (CardType, Permanent, Subtype)) and inner._non_word():
            rank = 3
        else:
            rank = self._rank
        return (rank, self._describe())

    def _describe(self, top: bool = False) -> str:
        word = self.inner._non_word()
        if word is not None:
            return word
        if isinstance(self.inner, (And, Or)):
            inner = self.inner._describe(top=True)
            return f"other than {inner}" if top else f"not ({inner})"
        return "not " + self.inner._describe()


def _is_non_atom(c: Constraint) -> bool:
    return isinstance(c, Not) and c.inner._non_word() is not None


@dataclass(frozen=True)
class And(Constraint):
    """Conjunction.  Build with ``a & b`` (flattened, de-duplicated, canonically ordered)."""

    parts: tuple[Constraint, ...]
    _rank: ClassVar[int] = 7

    def matches(self, face: Mapping[str, Any]) -> bool:
        return all(p.matches(face) for p in self.parts)

    def to_polars(self) -> pl.Expr:
        return functools.reduce(operator.and_, (p.to_polars() for p in self.parts))

    def _describe(self, top: bool = False) -> str:
        out: list[str] = []
        prev: Constraint | None = None
        for part in self.parts:
            text = part._describe()
            if isinstance(part, Or):
                text = f"({text})"
            if prev is not None:
                if isinstance(part, (ManaValue, Named)):
                    text = "with " + text if isinstance(part, ManaValue) else text
                out.append(", " if _is_non_atom(prev) and _is_non_atom(part) else " ")
            out.append(text)
            prev = part
        return "".join(out)


@dataclass(frozen=True)
class Or(Constraint):
    """Disjunction.  Build with ``a | b`` (flattened, de-duplicated, canonically ordered)."""

    parts: tuple[Constraint, ...]
    _rank: ClassVar[int] = 7

    def matches(self, face: Mapping[str, Any]) -> bool:
        return any(p.matches(face) for p in self.parts)

    def to_polars(self) -> pl.Expr:
        return functools.reduce(operator.or_, (p.to_polars() for p in self.parts))

    def _describe(self, top: bool = False) -> str:
        texts = []
        for part in self.parts:
            text = part._describe()
            if isinstance(part, And) and "," in text:
                text = f"({text})"
            texts.append(text)
        return " or ".join(texts)


def _and(*parts: Constraint) -> Constraint:
    flat: dict[Constraint, None] = {}
    for p in parts:
        for q in p.parts if isinstance(p, And) else (p,):
            if not isinstance(q, AnyCard):
                flat[q] = None
    if not flat:
        return AnyCard()
    if len(flat) == 1:
        return next(iter(flat))
    return And(tuple(sorted(flat, key=lambda c: c._sort_key())))


def _or(*parts: Constraint) -> Constraint:
    flat: dict[Constraint, None] = {}
    for p in parts:
        for q in p.parts if isinstance(p, Or) else (p,):
            if isinstance(q, AnyCard):
                return AnyCard()
            flat[q] = None
    if len(flat) == 1:
        return next(iter(flat))
    return Or(tuple(sorted(flat, key=lambda c: c._sort_key())))


def _not(c: Constraint) -> Constraint:
    return c.inner if isinstance(c, Not) else Not(c)


# ---------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------

GRAMMAR = """\
A constraint is a phrase such as "nonland", "nonartifact, nonland", "nonbasic land",
"artifact or creature", "legendary creature with mana value 3 or less",
"other than a basic land", 'named "Disenchant" or named "Terror"'.
  - terms side by side or separated by "," / "and" must all hold ("nonbasic land");
  - "or" between terms means either ("artifact or creature"; "A, B, or C" is a list);
  - "other than X" / "not X" / "nonX" / "non-X" negate; parentheses group;
  - a term is a card type (artifact, battle, creature, enchantment, instant, kindred,
    land, planeswalker, sorcery, ...), a supertype (basic, legendary, snow, world,
    ongoing), a subtype from CR 205.3 (Goblin, Equipment, Aura, Forest, Time Lord, ...;
    subtype "Xyz" for any other), a color (white, blue, black, red, green, colorless,
    monocolored, multicolored, colored), "permanent" (CR 110.4a), "any",
    mana value N / N or less / N or greater / less than N / greater than N,
    or named "Card Name";
  - "a", "an", "the", "card", "name", "with" are ignored, so "a nonland card name" is
    the same as "nonland"; the empty phrase means any card name."""

_WRAPPERS = frozenset({"a", "an", "the", "card", "cards", "name", "names", "with"})

_RAW_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | "(?P<q1>[^"]*)"
  | \u201c(?P<q2>[^\u201d]*)\u201d
  | (?P<lp>\()
  | (?P<rp>\))
  | (?P<comma>,)
  | (?P<word>[^\W_](?:[\w'\u2019.\-]*[^\W_])?)
    """,
    re.VERBOSE,
)
_FROM_AMONG = re.compile(
    r"(?:\bthat\s+hasn['\u2019]?t\s+been\s+chosen\s+)?\bfrom\s+among\b(?P<names>.*)$",
    re.IGNORECASE | re.DOTALL,
)


@dataclass(frozen=True)
class _Tok:
    kind: str  # word, atom, lp, rp, comma, or, and, not, non, other_than
    text: str = ""
    atom: Constraint | None = field(default=None, compare=False)


class _ParseFailure(Exception):
    pass


def _fail(reason: str) -> _ParseFailure:
    return _ParseFailure(reason)


def _known_phrases_text() -> str:
    return "; ".join(f'"{p}"' if p else '"" (plain "choose a card name")' for p in KNOWN_PHRASES)


#: Where a phrase that is not understood is sent: one line (CLI, HTTP details and MCP errors alike), the phrases and
#: the grammar are printed by ``choose-name --help`` (:func:`help_text`).
WHERE_LISTED = "the phrases understood are listed by `oracle-tools choose-name --help`"


def help_text() -> str:
    """The phrases real Oracle text uses and the grammar, as ``choose-name --help`` prints them."""
    return f"Phrases real Oracle text uses: {_known_phrases_text()}.\n\n{GRAMMAR}"


def parse_constraint(phrase: str) -> Constraint:
    """Parse a characteristics phrase ("nonland", "a nonbasic land card name", ...).

    Raises :class:`ConstraintError` naming the problem, the phrases real Oracle text
    uses (``KNOWN_PHRASES``) and the grammar when the phrase is not understood.
    """
    if not isinstance(phrase, str):
        raise ConstraintError(f"a card-name constraint must be a string, not {type(phrase).__name__}")
    try:
        tokens = _lex(phrase)
        if not tokens:
            return AnyCard()
        return _expr(tokens)
    except RecursionError:
        raise ConstraintError(
            f"The card-name constraint {phrase[:80]!r}... is nested too deeply to understand."
        ) from None
    except _ParseFailure as exc:
        raise ConstraintError(
            f"Could not understand the card-name constraint {phrase!r}: {exc}; {WHERE_LISTED}."
        ) from None


def _split_names(text: str) -> list[str]:
    quoted = re.findall(r'"([^"]*)"|\u201c([^\u201d]*)\u201d', text)
    if quoted:
        names = [a or b for a, b in quoted]
    else:
        names = []
        for item in text.split(","):
            item = re.sub(r"^\s*(?:and|or)\s+", "", item, flags=re.IGNORECASE).strip()
            names.append(item)
    names = [n.strip() for n in names]
    if not names or any(not n or '"' in n for n in names):
        raise _fail("'from among' needs a comma-separated list of card names")
    return names


def _lex(phrase: str) -> list[_Tok]:
    text = phrase.strip()
    while text.endswith("."):
        text = text[:-1].rstrip()
    tail: Constraint | None = None
    m = _FROM_AMONG.search(text)
    if m and text[: m.start()].count('"') % 2 == 0:
        names = _split_names(m.group("names").strip().rstrip("."))
        tail = _or(*(Named(n) for n in names))
        text = text[: m.start()]

    raw: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _RAW_TOKEN.match(text, pos)
        if m is None:
            raise _fail(f"unexpected character {text[pos]!r} at position {pos}")
        pos = m.end()
        kind = m.lastgroup
        if kind == "ws":
            continue
        if kind in ("q1", "q2"):
            raw.append(("quoted", m.group(kind)))
        elif kind == "word":
            raw.append(("word", m.group("word").replace("\u2019", "'")))
        else:
            raw.append((kind or "", m.group(0)))

    toks: list[_Tok] = []
    i = 0

    def word_at(j: int) -> str | None:
        return raw[j][1].lower() if j < len(raw) and raw[j][0] == "word" else None

    while i < len(raw):
        kind, value = raw[i]
        if kind == "quoted":
            raise _fail(f'a quoted name ("{value}") must follow "named" or "subtype"')
        if kind in ("lp", "rp", "comma"):
            toks.append(_Tok(kind, value))
            i += 1
            continue
        w = value.lower()
        if w in _WRAPPERS:
            i += 1
        elif w in ("mana", "converted", "cmc"):
            atom, i = _lex_mana_value(raw, i, word_at)
            toks.append(_Tok("atom", w, atom))
        elif w == "other" and word_at(i + 1) == "than":
            toks.append(_Tok("other_than", "other than"))
            i += 2
        elif w in ("or", "and", "not", "non"):
            toks.append(_Tok(w, w))
            i += 1
        elif w == "any":
            toks.append(_Tok("atom", w, AnyCard()))
            i += 1
        elif w in ("named", "subtype"):
            if i + 1 >= len(raw) or raw[i + 1][0] != "quoted":
                raise _fail(f'"{w}" must be followed by a name in double quotes, e.g. {w} "Goblin"')
            try:
                atom = Named(raw[i + 1][1]) if w == "named" else Subtype(raw[i + 1][1])
            except ConstraintError as exc:
                raise _fail(str(exc)) from None
            toks.append(_Tok("atom", w, atom))
            i += 2
        elif w in ("time", "non-time", "nontime") and word_at(i + 1) == "lord":
            atom = Subtype("Time Lord")
            toks.append(_Tok("atom", "time lord", atom if w == "time" else Not(atom)))
            i += 2
        else:
            toks.append(_Tok("word", w))
            i += 1
    if tail is not None:
        toks.append(_Tok("atom", "from among", tail))
    return toks


def _lex_mana_value(raw: list[tuple[str, str]], i: int, word_at: Any) -> tuple[Constraint, int]:
    w = word_at(i)
    if w == "mana":
        if word_at(i + 1) != "value":
            raise _fail('"mana" must be followed by "value" ("mana value 3 or less")')
        i += 2
    elif w == "converted":
        if word_at(i + 1) != "mana" or word_at(i + 2) != "cost":
            raise _fail('"converted" must be followed by "mana cost"')
        i += 3
    else:  # cmc
        i += 1
    if word_at(i) in ("of", "is"):
        i += 1
    op = "="
    pre = word_at(i)
    if pre in ("less", "greater") and word_at(i + 1) == "than":
        op = "<" if pre == "less" else ">"
        i += 2
    elif pre == "at" and word_at(i + 1) in ("least", "most"):
        op = ">=" if word_at(i + 1) == "least" else "<="
        i += 2
    number = word_at(i)
    if number is None or not _NUMBER.fullmatch(number):
        raise _fail(
            '"mana value" must be followed by a number ("mana value 3", '
            '"mana value 3 or less", "mana value 4 or greater")'
        )
    i += 1
    if op == "=" and word_at(i) == "or" and word_at(i + 1) in ("less", "fewer", "greater", "more"):
        op = "<=" if word_at(i + 1) in ("less", "fewer") else ">="
        i += 2
    return ManaValue(op, float(number)), i


def _split_top(toks: list[_Tok], kinds: frozenset[str]) -> list[list[_Tok]]:
    parts: list[list[_Tok]] = [[]]
    depth = 0
    for t in toks:
        if t.kind == "lp":
            depth += 1
        elif t.kind == "rp":
            depth -= 1
            if depth < 0:
                raise _fail("unbalanced ')'")
        if depth == 0 and t.kind in kinds:
            parts.append([])
        else:
            parts[-1].append(t)
    if depth != 0:
        raise _fail("unbalanced '('")
    return parts


_OR = frozenset({"or"})
_COMMA = frozenset({"comma"})
_CONJ = frozenset({"comma", "and"})
_OTHER = frozenset({"other_than"})


def _expr(toks: list[_Tok]) -> Constraint:
    pieces = _split_top(toks, _OTHER)
    if len(pieces) == 1:
        return _disj(toks)
    cut = len(pieces[0])  # the first top-level "other than"
    left, right = toks[:cut], toks[cut + 1 :]
    if not right:
        raise _fail('"other than" must be followed by what to exclude')
    excluded = _not(_expr(right))
    return _and(_disj(left), excluded) if left else excluded


def _disj(toks: list[_Tok]) -> Constraint:
    segments = _split_top(toks, _OR)
    if len(segments) == 1:
        return _conj(toks)
    alternatives: list[Constraint] = []
    for seg in segments:
        if seg and seg[-1].kind == "comma":  # Oxford comma: "A, B, or C"
            seg = seg[:-1]
        if not seg:
            raise _fail('"or" needs a term on each side')
        # once "or" is present, a comma list is a list of alternatives
        for item in _split_top(seg, _COMMA):
            alternatives.append(_conj(item))
    return _or(*alternatives)


def _conj(toks: list[_Tok]) -> Constraint:
    items = _split_top(toks, _CONJ)
    if any(not item for item in items):
        raise _fail('"," and "and" need a term on each side')
    return _and(*(_term(item) for item in items))


def _term(toks: list[_Tok]) -> Constraint:
    units: list[Constraint] = []
    i = 0
    while i < len(toks):
        unit, i = _unit(toks, i)
        units.append(unit)
    return _and(*units)


def _unit(toks: list[_Tok], i: int) -> tuple[Constraint, int]:
    t = toks[i]
    if t.kind == "not":
        if i + 1 >= len(toks):
            raise _fail('"not" must be followed by a term')
        inner, j = _unit(toks, i + 1)
        return _not(inner), j
    if t.kind == "non":
        if i + 1 >= len(toks) or toks[i + 1].kind != "word":
            raise _fail('"non" must be followed by a type, supertype, subtype or color')
        return _not(_word(toks[i + 1].text)), i + 2
    if t.kind == "lp":
        depth = 0
        for j in range(i, len(toks)):
            if toks[j].kind == "lp":
                depth += 1
            elif toks[j].kind == "rp":
                depth -= 1
                if depth == 0:
                    inner_toks = toks[i + 1 : j]
                    if not inner_toks:
                        raise _fail("empty parentheses")
                    return _expr(inner_toks), j + 1
        raise _fail("unbalanced '('")
    if t.kind == "atom" and t.atom is not None:
        return t.atom, i + 1
    if t.kind == "word":
        return _word(t.text), i + 1
    raise _fail(f'unexpected "{t.text or t.kind}"')


_VOCAB: dict[str, Constraint] = {}


def _vocab() -> dict[str, Constraint]:
    if not _VOCAB:
        for key in (*_CARD_TYPES, *_CARD_TYPE_ALIASES):
            _VOCAB[key] = CardType(key)
        for key in _SUPERTYPES:
            _VOCAB[key] = Supertype(key)
        for key in _COLOR_WORDS:
            _VOCAB[key] = Color(key)
        for key in _COLOR_COUNTS:
            _VOCAB[key] = ColorCount(key)
        _VOCAB["permanent"] = Permanent()
        for key, name in _SUBTYPES.items():
            if " " not in key:
                assert key not in _VOCAB, key
                _VOCAB[key] = Subtype(name)
    return _VOCAB


def _word(w: str) -> Constraint:
    vocab = _vocab()
    if w in vocab:
        return vocab[w]
    for prefix in ("non-", "non"):
        if w.startswith(prefix) and w[len(prefix) :] in vocab:
            return _not(vocab[w[len(prefix) :]])
    if _NUMBER.fullmatch(w):
        raise _fail(f'a number ({w}) must follow "mana value"')
    negated = w.startswith("non")
    hint = ["non" + h for h in _closest(w[3:].lstrip("-"), vocab)] if negated else []
    hint = hint or _closest(w, vocab)
    if hint:
        raise _fail(f'unknown word "{w}" (did you mean {" or ".join(hint)}?)')
    if negated:  # "nonXyz" negates a word of the vocabulary; Xyz is none
        raise _fail(f'unknown word "{w}": "{w[3:].lstrip("-")}" is no card type, supertype, color or subtype')
    raise _fail(
        f'unknown word "{w}": it is no card type, supertype, color or subtype listed in CR 205.3 '
        f'(write subtype "{w.capitalize()}" for another subtype)'
    )


def _closest(word: str, vocab: Mapping[str, Constraint]) -> list[str]:
    """The words of the vocabulary closest to ``word``: the best, and any nearly as close (a tie is offered, never
    the third-best: 'lnd' is land, not lander or island)."""
    scored = sorted(
        ((difflib.SequenceMatcher(None, word, known).ratio(), known) for known in vocab), key=lambda s: -s[0]
    )
    if not scored or scored[0][0] < 0.6:
        return []
    return [known for ratio, known in scored[:3] if ratio >= scored[0][0] - 0.05]


# ---------------------------------------------------------------------------
# Oracle text
# ---------------------------------------------------------------------------

_NOT_IN_PHRASE = r"[^.;:\"()\u201c\u201d]"
_CHOOSE_RE = re.compile(
    rf"""
    \b(?:chooses?)\b
    (?P<lead>{_NOT_IN_PHRASE}*?)                 # " an opponent and" (Booby Trap)
    \s(?P<art>an?|any|two\s+different)\s+
    (?P<words>(?:(?!\b(?:a|an|and|any|the|card)\b){_NOT_IN_PHRASE})*?)
    \bcard\s+names?\b
    (?P<qual>
        \s+other\s+than\s+(?:an?\s+)?(?:(?!\bcard\b){_NOT_IN_PHRASE})+?\bcard\s+names?\b
      | \s+that\s+hasn['\u2019]t\s+been\s+chosen\s+from\s+among\s+{_NOT_IN_PHRASE}+
    )?
    """,
    re.IGNORECASE | re.VERBOSE,
)


def _iter_choices(oracle_text: str) -> Iterator[str]:
    for m in _CHOOSE_RE.finditer(oracle_text):
        words = " ".join(m.group("words").split())
        if m.group("art").lower() == "any":
            words = f"any {words}".strip()
        qual = " ".join((m.group("qual") or "").split())
        yield f"{words} {qual}".strip()


def card_name_phrases(oracle_text: str) -> list[str]:
    """Every "choose(s) a/an/any … card name" instruction's characteristics phrase.

    The phrase is the words between "choose(s) a/an" and "card name" ("nonland",
    "nonartifact, nonland", "" for plain "choose a card name", "any" for "choose any
    card name"), followed by the qualifier after "card name" when there is one
    ("other than a basic land card name").  Each phrase is accepted by
    :func:`parse_constraint`.  "chooses" (said of another player: "target player
    chooses a card name") and "choose two different card names" count too.
    """
    if not oracle_text:
        return []
    return list(_iter_choices(oracle_text))


def constraint_from_oracle_text(oracle_text: str | None) -> Constraint | None:
    """The constraint a card's own Oracle text puts on "choose a card name".

    ``"Choose a nonland card name."`` -> nonland; ``"choose a card name"`` -> any;
    ``None`` when the text has no choose-a-card-name instruction.  When a text has
    several such instructions with different phrases, the first one wins (no real card
    has that; :func:`card_name_phrases` lists them all).  Raises :class:`ConstraintError`
    when the text has an instruction whose phrase the grammar does not understand.
    """
    phrases = card_name_phrases(oracle_text or "")
    if not phrases:
        return None
    return parse_constraint(phrases[0])
