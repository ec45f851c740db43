"""Compile a query tree into one parameterised DuckDB query over ``cards``, ``faces``, ``printings``,
``legalities``, ``names``, ``name_classes`` and ``token_specs``.

User text only ever reaches DuckDB as a bound parameter (``?``); identifiers (columns, formats' SQL,
ORDER BY terms) come from the fixed tables in this module and :mod:`.keywords`.

Shape of the generated SQL (aliases: ``c`` = cards, ``p`` = printings):

* no printing keyword, ``unique=cards``: filter ``cards c``, then join each card's preferred printing, precomputed
  at ingest in table ``preferred_printings`` (``oracle_tools/sql/preferred_printings.sql``);
* otherwise: filter ``cards c JOIN printings p`` with the whole expression, so every printing keyword of a
  query is evaluated on the same printing (``s:m19 r:mythic``); ``unique=cards`` keeps each card's
  preferred matching printing, ``unique=art`` one per card and artist, ``unique=prints`` all of them.

Printing preference (which printing stands for a card): English first, then available in paper, not a
promo, not from a memorabilia set, newest, lowest collector number, id — the rule of
``oracle_tools/sql/build_printings.sql``, which ranks every card's printings by it once at ingest
(``printings.preference_rank``; ``_PREFERENCE`` below writes the same order): a search keeps the matching printing
of smallest rank, ``preferred_printings`` holds those of rank 1, which ``oracle_tools/scryfall/cardjson.py`` reads
too, so the CLI's JSON and the table agree.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from oracle_tools.decks.formats import LEGALITY_KEYS, format_rules
from oracle_tools.errors import ConstraintError, OracleToolsError, SearchSyntaxError, UnsupportedKeywordError
from oracle_tools.names.kinds import OWN_NAME_LIST
from oracle_tools.search.keywords import (
    BY_NAME,
    EXTRA_TYPES,
    HAS_VALUES,
    IS_BY_NAME,
    IS_FAMILIES,
    IS_REVEALS,
    IS_VALUES,
    REFUSED_DISPLAY,
    REGEX_KEYWORDS,
    UNSUPPORTED,
    Keyword,
    any_face,
    supported_names,
)
from oracle_tools.search.tree import And, Empty, Node, Not, Or, Term, walk
from oracle_tools.text.matching import exact_keys, normalize
from oracle_tools.text.oracletext import REMINDER_WITH_SPACE_PATTERN

# -- colours ------------------------------------------------------------------------------------------

_LETTERS = {"w": "W", "u": "U", "b": "B", "r": "R", "g": "G"}
COLOR_LETTERS_BY_NAME: dict[str, str] = {
    "white": "W",
    "blue": "U",
    "black": "B",
    "red": "R",
    "green": "G",
    # guilds
    "azorius": "WU",
    "dimir": "UB",
    "rakdos": "BR",
    "gruul": "RG",
    "selesnya": "GW",
    "orzhov": "WB",
    "izzet": "UR",
    "golgari": "BG",
    "boros": "RW",
    "simic": "GU",
    # shards and wedges
    "bant": "GWU",
    "esper": "WUB",
    "grixis": "UBR",
    "jund": "BRG",
    "naya": "RGW",
    "abzan": "WBG",
    "jeskai": "URW",
    "sultai": "BGU",
    "mardu": "RWB",
    "temur": "GUR",
    # Strixhaven colleges
    "silverquill": "WB",
    "prismari": "UR",
    "witherbloom": "BG",
    "lorehold": "RW",
    "quandrix": "GU",
    # four-colour nicknames (Commander 2016): named after the colour they lack
    "chaos": "UBRG",
    "aggression": "WBRG",
    "altruism": "WURG",
    "growth": "WUBG",
    "artifice": "WUBR",
    "wubrg": "WUBRG",
    "rainbow": "WUBRG",
}
_COLORLESS = {"c", "colorless", "colourless"}
_MULTI = {"m", "multicolor", "multicolour", "multicolored"}

#: Layouts whose faces have their own colours (Scryfall leaves the card's colours out): any face matches.
#: sql/search_faces.sql builds dfc_face_colors from the same list (tested equal).
DFC_LAYOUTS = ("transform", "modal_dfc", "double_faced_token", "reversible_card", "art_series")

RARITY_RANK = {"common": 0, "uncommon": 1, "rare": 2, "special": 3, "mythic": 4, "bonus": 5}
_RARITY_ABBR = {"c": "common", "u": "uncommon", "r": "rare", "s": "special", "m": "mythic", "b": "bonus"}
_RARITY_SQL = (
    "CASE p.rarity WHEN 'common' THEN 0 WHEN 'uncommon' THEN 1 WHEN 'rare' THEN 2 "
    "WHEN 'special' THEN 3 WHEN 'mythic' THEN 4 WHEN 'bonus' THEN 5 END"
)

LANGUAGES = {
    "english": "en",
    "spanish": "es",
    "french": "fr",
    "german": "de",
    "italian": "it",
    "portuguese": "pt",
    "japanese": "ja",
    "korean": "ko",
    "russian": "ru",
    "chinese": "zhs",
    "simplified": "zhs",
    "traditional": "zht",
    "hebrew": "he",
    "latin": "la",
    "greek": "grc",
    "arabic": "ar",
    "sanskrit": "sa",
    "phyrexian": "ph",
}
_LANG_CODES = {
    "en",
    "es",
    "fr",
    "de",
    "it",
    "pt",
    "ja",
    "ko",
    "ru",
    "zhs",
    "zht",
    "he",
    "la",
    "grc",
    "ar",
    "sa",
    "ph",
    "qya",
}
_GAMES = {"paper", "mtgo", "arena", "astral", "sega"}

#: The values of Scryfall's closed lists (its API's border_color, security_stamp, games and set_type): any other
#: value of border:, stamp:, game: or st: is a typo, said in one line, not answered with no card.
_CLOSED_VALUES: dict[str, tuple[str, tuple[str, ...]]] = {
    "border": ("border", ("black", "white", "silver", "borderless", "gold", "yellow")),
    "stamp": ("security stamp", ("oval", "acorn", "triangle", "arena", "circle", "heart")),
    "game": ("game", ("paper", "mtgo", "arena", "astral", "sega")),
}
_SET_TYPES = (
    "core", "expansion", "masters", "eternal", "alchemy", "masterpiece", "arsenal", "from_the_vault", "spellbook",
    "premium_deck", "duel_deck", "draft_innovation", "treasure_chest", "commander", "planechase", "archenemy",
    "vanguard", "funny", "starter", "box", "promo", "token", "memorabilia", "minigame",
)  # fmt: skip


def _closed(term: Term, state: _State) -> str:
    """The term's value, lower case, when it is one of its keyword's list (_CLOSED_VALUES, set types); else the error."""
    value, family = term.value.lower(), _keyword(term, state).family
    if family == "settype":
        from oracle_tools.scryfall.sets import shipped_sets

        what = "set type"
        allowed = tuple(
            dict.fromkeys([*_SET_TYPES, *(r["set_type"] for r in shipped_sets().values() if r["set_type"])])
        )
    else:
        what, allowed = _CLOSED_VALUES[family]
    if value not in allowed:
        raise _error(
            f"{term.keyword}{term.op}{term.value}: unknown {what}; use one of {', '.join(allowed)}", state, term
        )
    return value


_OPS_SQL = {":": "=", "=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

# Numeric value of a face's power/toughness/loyalty/defense text, as Scryfall compares it: the leading
# number ('1+*' -> 1, '7-*' -> 7), '*' and 'X' -> 0, '∞' -> infinity, '½' -> 0.5. Searches compare the values
# sql/search_faces.sql stores in face_values with the same rule (tested equal); order:power sorts by this.
_NUM = (
    "(CASE WHEN {x} IS NULL THEN NULL WHEN {x} = '∞' THEN 'inf'::DOUBLE "
    "ELSE coalesce(TRY_CAST(regexp_extract(replace({x}, '½', '.5'), '^[+-]?[0-9]*\\.?[0-9]+') AS DOUBLE), 0) END)"
)
_STAT_COLUMNS = {"power": "power", "toughness": "toughness", "loyalty": "loyalty", "defense": "defense"}
_STAT_FIELDS = {
    "pow": "power",
    "power": "power",
    "tou": "toughness",
    "toughness": "toughness",
    "loy": "loyalty",
    "loyalty": "loyalty",
    "def": "defense",
    "defense": "defense",
    "pt": "powtou",
    "powtou": "powtou",
    "mv": "cmc",
    "cmc": "cmc",
    "manavalue": "cmc",
}

# Oracle text without reminder text (Scryfall's o:; fo: keeps it). Only texts with '(' pay for the regex.
# The pattern is the Oracle-text layer's (oracletext.py, CR 207.2), so search and the Python readers agree.
_NO_REMINDER = (
    "(CASE WHEN contains({x}, '(') THEN regexp_replace({x}, '"
    + REMINDER_WITH_SPACE_PATTERN
    + "', '', 'g') ELSE {x} END)"
)

# Scryfall's regex extensions (https://scryfall.com/docs/regular-expressions), in RE2 terms.
_REGEX_EXTENSIONS = {
    r"\sm": r"\{[^}]+\}",
    r"\ss": r"\{[^}]+\}",
    r"\spt": r"[+-]?[0-9X*]+/[+-]?[0-9X*]+",
    r"\spp": r"\+[0-9X*]+/\+[0-9X*]+",
    r"\smm": r"-[0-9X*]+/-[0-9X*]+",
}
_EXTENSION_RE = re.compile(r"\\(?:spt|spp|smm|sm|ss)(?![a-z])")


@dataclass
class Options:
    unique: str = "cards"
    order: str = "name"
    direction: str = "auto"
    extras: bool = False
    prefer: str = ""  # prefer: — which printing stands for a card ("": the usual preference)


@dataclass
class Compiled:
    sql: str
    params: list[Any]
    options: Options
    printing_level: bool
    formats: tuple[str, ...] = ()  # the formats whose legalities it reads: run() checks the database has them
    #: (term as written, SQL over printings p true where the data cannot say, the missing field, the term's position
    #: in the query): run() refuses a
    #: term no printing can be judged for and :func:`oracle_tools.search.cannot_judge` counts the others
    unknowns: tuple[tuple[str, str, str, int], ...] = ()
    #: (term as written, set code, position, whether a set type also answers it): run() checks the database knows each
    #: code (:func:`oracle_tools.search.check_sets`), so that a typo is said, not answered with no card
    sets: tuple[tuple[str, str, int, bool], ...] = ()
    #: per entry of ``unknowns``, the SQL and parameters that count (rows the term could not judge among those whose
    #: answer it decides, those rows): :func:`oracle_tools.search.cannot_judge` runs it
    judged: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    #: the terms of ``unknowns`` whose data no row having is refused before (``formats``: f:pioneer on a database
    #: with no pioneer legality), so run() does not count them again on every search
    checked: frozenset[str] = frozenset()


@dataclass
class _State:
    query: str
    params: list[Any] = field(default_factory=list)
    nameable: Callable[[str], list[str]] | None = None
    printing: bool = False  # the SQL has the printings alias p
    formats: list[str] = field(default_factory=list)  # the formats whose legalities the SQL reads
    unknowns: list[tuple[str, str, str, int]] = field(default_factory=list)  # Compiled.unknowns
    sets: list[tuple[str, str, int, bool]] = field(default_factory=list)  # Compiled.sets
    #: terms (as written) compiled as a constant instead: how the query answers with a term true, then false
    fixed: dict[str, str] = field(default_factory=dict)
    #: terms (as written) compiled as this constant where the row lacks their data, as themselves elsewhere: NULL, how
    #: the query answers with another not-judged term unknown where it cannot judge
    guessed: dict[str, str] = field(default_factory=dict)
    negations: int = 0  # how many negations the term being compiled is under
    extras: bool = False  # the answer shows extras (Options.extras): names are looked for among theirs too
    checked: set[str] = field(default_factory=set)  # Compiled.checked

    def set_code(self, term: Term, code: str, *, or_type: bool = False) -> None:
        """Note a set code for run() to check. A negated one is not: whether or not the code names a set, what it
        excludes is right (``-e:om1`` on a database without that set excludes nothing), so no typo can mislead."""
        if self.negations % 2 == 0:
            self.sets.append((f"{term.keyword}{term.op}{term.value}", code, term.position, or_type))

    def unknown(self, term: Term, sql: str, data: str, *, checked: bool = False) -> None:
        written = f"{term.keyword}{term.op}{term.value}"
        if all(entry[0] != written for entry in self.unknowns):
            self.unknowns.append((written, sql, data, term.position))
        if checked:
            self.checked.add(written)

    def bind(self, value: Any) -> str:
        self.params.append(value)
        return "?"


def _error(message: str, state: _State, term: Term) -> SearchSyntaxError:
    return SearchSyntaxError(message, state.query, term.position)


def _keyword(term: Term, state: _State) -> Keyword:
    kw = BY_NAME.get(term.keyword)
    if kw is None:
        if term.keyword in UNSUPPORTED:
            raise UnsupportedKeywordError(
                f"{term.keyword}: is not supported ({UNSUPPORTED[term.keyword]}); supported keywords: "
                f"{', '.join(supported_names())}",
                state.query,
                term.position,
            )
        raise SearchSyntaxError(
            f"unknown keyword {term.keyword}:; supported keywords: {', '.join(supported_names())}",
            state.query,
            term.position,
        )
    if term.op not in kw.ops:
        raise _error(f"{term.keyword} takes {' or '.join(kw.ops)}, not {term.op}", state, term)
    if term.kind == "regex" and not kw.regex:
        raise _error(f"{term.keyword}: does not take a /regular expression/ ({REGEX_KEYWORDS} do)", state, term)
    # a:"" (or a:" ", o://) would match every card: a value left out, never a search for everything
    if not (term.value.strip() if term.kind == "phrase" else term.value):
        if term.kind == "word":
            raise _error(f"{term.keyword}{term.op} needs a value", state, term)
        marks, between = ('"', "quotes") if term.kind == "phrase" else ("/", "slashes")
        written = f"{term.keyword}{term.op}" if term.written else "!" if term.exact else ""
        raise _error(
            f"{written}{marks}{term.value}{marks} has an empty value: write what to search for between the {between}",
            state,
            term,
        )
    return kw


# -- text ---------------------------------------------------------------------------------------------


def _regex(term: Term, state: _State) -> str:
    """A Scryfall regex as RE2: case-insensitive, multiline, extensions expanded; checked here so a bad
    pattern is a syntax error with a position, not a DuckDB error."""
    pattern = _EXTENSION_RE.sub(lambda m: _REGEX_EXTENSIONS[m.group(0)], term.value)
    if re.search(r"\(\?<?[=!]", pattern):
        raise _error(
            "lookahead and lookbehind ((?=…), (?!…), (?<=…), (?<!…)) are not supported by DuckDB's "
            "regular expressions (RE2)",
            state,
            term,
        )
    if re.search(r"\\[1-9]", pattern):
        raise _error("backreferences (\\1 …) are not supported in regular expressions", state, term)
    try:
        re.compile(pattern)
    except re.error as exc:
        # Python's `re` only gives the refusal its words and position: the engine that runs the pattern is RE2
        # (DuckDB's), which takes what `re` does not (\p{L}, \z, \Q…\E, \x{41}, (?U))
        if not _re2_takes("(?im)" + pattern):
            raise _error(f"bad regular expression: {exc}", state, term) from None
    return "(?im)" + pattern


@functools.lru_cache(maxsize=256)
def _re2_takes(pattern: str) -> bool:
    """Whether DuckDB's regular expressions (RE2) compile ``pattern``: asked of an in-memory database, only for a
    pattern Python's `re` refuses, once per pattern (the not-judged counts compile the query again)."""
    import duckdb

    with duckdb.connect(":memory:") as con:
        try:
            con.execute("SELECT regexp_matches('', ?)", [pattern]).fetchall()
        except duckdb.InvalidInputException:
            return False
    return True


#: An extra's name (a token, plane, vanguard …: not in the names table, which holds the reference's cards for the
#: lookups) folded as names.normalize folds a name: case, accents, a dash is a space, other punctuation goes.
_EXTRA_NAME_KEY = (
    "trim(regexp_replace(regexp_replace(regexp_replace(lower(strip_accents(c.name)), '\\p{Pd}', ' ', 'g'), "
    "'[^\\p{L}\\p{N}\\s/_]', '', 'g'), '\\s+', ' ', 'g'))"
)


def _name(term: Term, state: _State) -> str:
    if term.kind == "regex":
        return f"regexp_matches(c.name, {state.bind(_regex(term, state))})"
    if term.exact:
        return _exact_name(term.value, state)
    key = normalize(term.value)
    if not key:
        return "true"
    # Scryfall: "power include:extras — Cards with "power" in their name, including extras"
    names = f"SELECT oracle_id FROM names WHERE via = 'name' AND contains(key, {state.bind(key)})"
    if state.extras:
        names += _extras_where(f"contains({_EXTRA_NAME_KEY}, {state.bind(key)})")
    return f"c.oracle_id IN ({names})"


def _extras_where(test: str) -> str:
    """`` UNION ALL`` the oracle ids of the extras (no card of the reference: a token, a plane ...) whose name
    passes ``test``: asked only where the answer shows extras (folding every extra's name cost a plain name search
    half its time), in one IN with the names (an OR beside the IN made it a mark join over every card)."""
    return f" UNION ALL SELECT c.oracle_id FROM cards c WHERE NOT c.is_card AND {test}"


def _exact_name(value: str, state: _State) -> str:
    """``!name``: the cards whose name or a face's is the name, read as every name lookup reads it
    (:func:`~oracle_tools.text.matching.exact_keys`): its key, else the first of its re-readings with a glued comma
    or period as a word break that is a name's ('!"Jace,the Mind Sculptor"'); a name's own marks keep their answer."""

    def own(column: str) -> str:  # the card's own names (names.kinds.OWN_NAME_LIST), bound where they are written
        return f"SELECT {column} FROM names WHERE via IN ({', '.join(state.bind(v) for v in OWN_NAME_LIST)}) AND key"

    def extra() -> str:  # an extra's name (_name), bound after what is written before it
        return _extras_where(f"{_EXTRA_NAME_KEY} = {state.bind(keys[0])}") if state.extras else ""

    keys = exact_keys(value)
    cards = own("oracle_id")
    if len(keys) == 1:
        return f"c.oracle_id IN ({cards} = {state.bind(keys[0])}{extra()})"
    first = (
        f"({own('key')} IN (SELECT unnest({state.bind(list(keys))})) "
        f"ORDER BY list_position({state.bind(list(keys))}, key) LIMIT 1)"
    )
    return f"c.oracle_id IN ({cards} = {first}{extra()})"


def _type(term: Term, state: _State) -> str:
    if term.kind == "regex":
        return f"regexp_matches(coalesce(c.type_line, ''), {state.bind(_regex(term, state))})"
    return f"contains(lower(coalesce(c.type_line, '')), {state.bind(term.value.lower())})"


def _oracle(term: Term, state: _State, *, reminder: bool) -> str:
    def text(x: str) -> str:
        x = f"coalesce({x}, '')"
        return x if reminder else _NO_REMINDER.format(x=x)

    if "~" not in term.value:
        if term.kind == "regex":
            return f"regexp_matches({text('c.oracle_text')}, {state.bind(_regex(term, state))})"
        return f"contains(lower({text('c.oracle_text')}), {state.bind(term.value.lower())})"
    # '~' is the card's own name: per face, its face name or the whole card's name, or the "this spell" /
    # "this creature" / "this land" … a card uses for itself (Scryfall's regex page: "the current card name
    # or 'this spell' if the card mentions itself"; Oracle text since the 2024 templating update, as in the
    # 2024 file, says "When this creature enters" where older text says "When Llanowar Elves enters").
    # The face's text with each self-reference written as '~', so the pattern stays one constant (a
    # per-row pattern would make RE2 compile it for every face).
    named = f"replace(replace({text('f.oracle_text')}, c.name, '~'), f.name, '~')"
    own = (
        f"(CASE WHEN contains(lower(f.oracle_text), 'this ') THEN regexp_replace({named}, "
        f"'(?i)\\bthis (?:{'|'.join(_SELF_REFERENCES)})\\b', '~', 'g') ELSE {named} END)"
    )
    if term.kind == "regex":
        return any_face(f"regexp_matches({own}, {state.bind(_regex(term, state))})")
    value = term.value.lower()
    # cheap necessary condition first: every literal piece is somewhere in the card's whole text (which
    # includes reminder text, so it is a superset of what o: reads)
    prefilter = [
        f"contains(lower(coalesce(c.oracle_text, '')), {state.bind(piece)})"
        for piece in value.split("~")
        if piece.strip()
    ]
    return "(" + " AND ".join([*prefilter, any_face(f"contains(lower({own}), {state.bind(value)})")]) + ")"


#: What Oracle text calls the object it is on ("this creature", "this Equipment"): what '~' also stands for.
#: Not "this token": on a card it is always a token the card creates ("Sacrifice this token: You gain 3 life").
_SELF_REFERENCES = (
    "spell",
    "card",
    "permanent",
    "creature",
    "artifact",
    "enchantment",
    "land",
    "planeswalker",
    "battle",
    "aura",
    "equipment",
    "vehicle",
    "saga",
    "class",
    "case",
    "room",
    "siege",
    "background",
    "fortification",
    "spacecraft",
)


def _keyword_ability(term: Term, state: _State) -> str:
    return (
        f"list_contains(list_transform(coalesce(c.keywords, []), lambda k: lower(k)), {state.bind(term.value.lower())})"
    )


# -- colours ------------------------------------------------------------------------------------------


def _color_spec(term: Term, state: _State) -> tuple[str, Any]:
    """('set', ['R','G']) | ('count', 2) | ('colorless', None) | ('multi', None)."""
    v = term.value.lower().strip()
    if v in _COLORLESS:
        return "colorless", None
    if v in _MULTI:
        return "multi", None
    if v.isascii() and v.isdigit():  # str.isdigit() also takes '²', which int() refuses
        # a count past six (W U B R G, and C for produces:) is as good as seven: 40 nines are past what DuckDB binds
        return "count", min(int(v), 7)
    if v in COLOR_LETTERS_BY_NAME:
        return "set", sorted(set(COLOR_LETTERS_BY_NAME[v]))
    if v and all(ch in _LETTERS for ch in v):
        return "set", sorted({_LETTERS[ch] for ch in v})
    raise _error(
        f"{term.keyword}{term.op}{term.value}: not a colour; use letters (w u b r g), colour names, "
        "c/colorless, m/multicolor, a number, or a nickname (azorius, esper, abzan, quandrix, chaos, …)",
        state,
        term,
    )


def _color_test(col: str, op: str, kind: str, value: Any, state: _State, *, identity: bool) -> str:
    n = f"len({col})"
    if kind == "colorless":
        kind, value = "set", []
    if kind == "multi":
        if op in (":", "="):
            return f"{n} >= 2"
        if op == "!=":
            return f"{n} < 2"
        raise SearchSyntaxError("multicolor takes : = or !=")
    if kind == "count":
        return f"{n} {_OPS_SQL[op]} {state.bind(value)}"
    s = state.bind(value)
    size = len(value)
    if op == ":":
        op = "<=" if identity else ">="  # id: fits within a commander's identity; c: has at least these
        if not value:
            op = "="  # c:c and id:c: colourless
    superset = f"list_has_all({col}, {s}::VARCHAR[])"
    subset = f"list_has_all({s}::VARCHAR[], {col})"
    return {
        "=": f"({superset} AND {n} = {size})",
        "!=": f"NOT ({superset} AND {n} = {size})",
        ">=": superset,
        ">": f"({superset} AND {n} > {size})",
        "<=": subset,
        "<": f"({subset} AND {n} < {size})",
    }[op]


def _colors(term: Term, state: _State, column: str, *, identity: bool = False, faces: bool = False) -> str:
    kind, value = _color_spec(term, state)
    try:
        card = _color_test(f"coalesce(c.{column}, [])", term.op, kind, value, state, identity=identity)
        if not faces:
            return card
        face = _color_test("f.colors", term.op, kind, value, state, identity=identity)
    except SearchSyntaxError as exc:
        raise _error(f"{term.keyword}{term.op}{term.value}: {exc}", state, term) from None
    layouts = ", ".join(f"'{x}'" for x in DFC_LAYOUTS)
    # the faces' own colours count for double-faced layouts only (dfc_face_colors holds those faces alone)
    return (
        f"(CASE WHEN c.layout IN ({layouts}) THEN c.oracle_id IN (SELECT f.oracle_id FROM dfc_face_colors f "
        f"WHERE {face}) ELSE {card} END)"
    )


def _produces(term: Term, state: _State) -> str:
    """produces: — the mana a card can add (its produced_mana), where c is colourless mana, the letter C (CR 106.1b),
    not "produces no mana": produces:c, produces=colorless, produces:cg."""
    # Scryfall leaves produced_mana out of a card that adds none, and files before the field (the 2019 dump, the
    # foreign printings file) have it on no card: a card none of whose printings comes from an object of the API
    # since then (promo_types, as for is:universesbeyond) cannot say, and is counted as not judged
    state.unknown(
        term,
        "c.produced_mana IS NULL AND NOT EXISTS (SELECT 1 FROM printings x WHERE x.oracle_id = c.oracle_id "
        "AND x.promo_types IS NOT NULL)",
        "produced_mana",
    )
    v = term.value.lower().strip()
    if v in _COLORLESS or (v and "c" in v and all(ch in _LETTERS or ch == "c" for ch in v)):
        letters = sorted({_LETTERS.get(ch, "C") for ch in ("c" if v in _COLORLESS else v)})
        return _color_test("coalesce(c.produced_mana, [])", term.op, "set", letters, state, identity=False)
    return _colors(term, state, "produced_mana")


# -- numbers ------------------------------------------------------------------------------------------


#: A number as a query writes one: ASCII digits, a point, a sign, an exponent. Python's float() takes "nan", "inf",
#: "1_0" and other scripts' digits too: cmc<nan answered every card (a NaN is above every number in DuckDB).
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _number(term: Term, state: _State) -> float:
    number = float(term.value) if _NUMBER.fullmatch(term.value) else math.nan
    if not math.isfinite(number):  # (1e309 is an infinity)
        raise _error(f"{term.keyword}{term.op}{term.value}: expected a number", state, term)
    return number


def _face_stat(field_name: str, alias: str = "f") -> str:
    """A face's stat as a number, from ``face_values`` (computed at ingest with the same rule as ``_NUM``)."""
    if field_name == "powtou":
        return f"({alias}.power_value + {alias}.toughness_value)"
    if field_name == "cmc":
        return "c.cmc"
    return f"{alias}.{_STAT_COLUMNS[field_name]}_value"


def _stat(term: Term, state: _State, field_name: str) -> str:
    op = _OPS_SQL[term.op]
    value = term.value.lower()
    left = _face_stat(field_name)
    if value == "*" and field_name != "powtou":
        column = _STAT_COLUMNS[field_name]
        test = f"contains(f.{column}, '*')" if op == "=" else (f"NOT contains(f.{column}, '*')" if op == "<>" else None)
        if test is None:
            raise _error(f"{term.keyword}{term.op}*: only = and != compare with *", state, term)
    elif value in _STAT_FIELDS:
        test = f"{left} {op} {_face_stat(_STAT_FIELDS[value])}"
    else:
        test = f"{left} {op} {state.bind(_number(term, state))}"
    return f"EXISTS (SELECT 1 FROM face_values f WHERE f.oracle_id = c.oracle_id AND {test})"


def _manavalue(term: Term, state: _State) -> str:
    value = term.value.lower()
    if value in ("even", "odd") and term.op in (":", "="):
        return f"(c.cmc = floor(c.cmc) AND c.cmc::BIGINT % 2 = {0 if value == 'even' else 1})"
    if value in _STAT_FIELDS and _STAT_FIELDS[value] != "cmc":
        return (
            f"EXISTS (SELECT 1 FROM face_values f WHERE f.oracle_id = c.oracle_id AND "
            f"c.cmc {_OPS_SQL[term.op]} {_face_stat(_STAT_FIELDS[value])})"
        )
    return f"c.cmc {_OPS_SQL[term.op]} {state.bind(_number(term, state))}"


# -- mana costs ---------------------------------------------------------------------------------------

_SYMBOL_RE = re.compile(r"\{([^{}]+)\}|([0-9]+)|([A-Za-z])")
#: CR 107.4: "the hybrid symbols {W/U}, {W/B}, {U/B}, {U/R}, {B/R}, {B/G}, {R/G}, {R/W}, {G/W}, and {G/U}; the
#: monocolored hybrid symbols {2/W}, … {C/W}, …; the Phyrexian mana symbols {W/P}, …; the hybrid Phyrexian symbols
#: {W/U/P}, …". A split symbol's halves in any order ({U/W}, {P/R}) are that one symbol, spelled as costs spell it.
_SPLIT_SYMBOLS = {
    tuple(sorted(symbol.split("/"))): symbol
    for pair in ("W/U", "W/B", "U/B", "U/R", "B/R", "B/G", "R/G", "R/W", "G/W", "G/U")
    for symbol in (pair, pair + "/P")
} | {
    tuple(sorted(symbol.split("/"))): symbol
    for color in "WUBRG"
    for symbol in (f"2/{color}", f"C/{color}", f"{color}/P")
}


def _cost_symbols(term: Term, state: _State) -> tuple[int, dict[str, int]]:
    """(generic amount, {symbol: count}) of a query cost: ``2WW``, ``{2}{W}{W}``, ``{R/P}``, ``{G}{U}``.
    Scryfall: shorthand is allowed for symbols that aren't split; split symbols need braces."""
    generic, at = 0, 0
    counts: dict[str, int] = {}
    text = term.value.upper().replace(" ", "")
    for m in _SYMBOL_RE.finditer(text):
        if m.start() != at:
            break
        at = m.end()
        symbol = m.group(1) or m.group(2) or m.group(3)
        if symbol.isascii() and symbol.isdigit():
            generic += int(symbol)
        else:
            symbol = _SPLIT_SYMBOLS.get(tuple(sorted(symbol.split("/"))), symbol) if "/" in symbol else symbol
            counts["{" + symbol + "}"] = counts.get("{" + symbol + "}", 0) + 1
    if at != len(text) or not text:
        raise _error(
            f"{term.keyword}{term.op}{term.value}: not a mana cost; write symbols such as 2WW, {{G}}{{U}} "
            "or {R/P} (split symbols in braces)",
            state,
            term,
        )
    # a card's generic amount is an INTEGER: a larger one compares as one past it (40 nines are past what DuckDB binds)
    return min(generic, 1 << 31), counts


def _mana(term: Term, state: _State) -> str:
    """m: / mana: — a cost contains these symbols (':' and '>='), exactly these ('='), more ('>'), only
    some of them ('<=', '<'); generic mana compares as an amount, as Scryfall describes it."""
    generic, counts = _cost_symbols(term, state)
    cost = "coalesce(c.mana_cost, '')"

    def count(symbol: str) -> str:
        return f"((length({cost}) - length(replace({cost}, {state.bind(symbol)}, ''))) // {len(symbol)})"

    card_generic = f"coalesce(TRY_CAST(regexp_extract({cost}, '\\{{([0-9]+)\\}}', 1) AS INTEGER), 0)"
    stripped = f"regexp_replace({cost}, '\\{{[0-9]+\\}}', '', 'g')"  # the cost without its generic symbol
    card_symbols = f"(length({stripped}) - length(replace({stripped}, '{{', '')))"

    def at_least() -> str:
        return " AND ".join(
            [f"{card_generic} >= {state.bind(generic)}"]
            + [f"{count(sym)} >= {state.bind(n)}" for sym, n in counts.items()]
        )

    def exact() -> str:
        return (
            "("
            + " AND ".join(
                [f"{card_generic} = {state.bind(generic)}", f"{card_symbols} = {state.bind(sum(counts.values()))}"]
                + [f"{count(sym)} = {state.bind(n)}" for sym, n in counts.items()]
            )
            + ")"
        )

    def within() -> str:
        return " AND ".join(
            [f"{card_generic} <= {state.bind(generic)}"]
            + [f"{count(sym)} <= {state.bind(n)}" for sym, n in counts.items()]
            + [f"{card_symbols} = (" + (" + ".join(count(sym) for sym in counts) or "0") + ")"]
        )

    op = term.op
    if op in (":", ">="):
        return f"({at_least()})"
    if op == "=":
        return exact()
    if op == "!=":
        return f"(NOT {exact()})"
    if op == ">":
        return f"(({at_least()}) AND NOT {exact()})"
    if op == "<=":
        return f"({within()})"
    return f"(({within()}) AND NOT {exact()})"


# -- formats ------------------------------------------------------------------------------------------


def _legality(term: Term, state: _State, statuses: tuple[str, ...]) -> str:
    try:  # the format names deck checks take (oracle_tools/decks/formats.py): one table
        rules = format_rules(term.value)
    except OracleToolsError:  # a typo is not "no card is legal there": say so (Scryfall warns too)
        raise _error(
            f"{term.keyword}{term.op}{term.value}: unknown format; use one of {', '.join(LEGALITY_KEYS)}", state, term
        ) from None
    if not rules.legality:
        raise _error(
            f"{term.keyword}{term.op}{term.value}: {rules.label} has no legality list (any card opened in the event "
            f"may be played, CR 100.2b; `deck check --format {rules.key}` checks a deck's size); use one of "
            f"{', '.join(LEGALITY_KEYS)}",
            state,
            term,
        )
    state.formats.append(rules.key)
    # a card whose files predate the format (the 2019 dump has no pioneer) has no row for it: counted as not judged,
    # not answered "not legal" unsaid (the key is the format table's, never the user's text)
    state.unknown(
        term,
        f"c.oracle_id NOT IN (SELECT oracle_id FROM legalities WHERE format = '{rules.key}')",
        f"legalities for {rules.key}",
        checked=True,  # a database with none of the format's legalities is refused by run() (formats)
    )
    wanted = ", ".join(f"'{s}'" for s in statuses)
    return (
        f"c.oracle_id IN (SELECT oracle_id FROM legalities WHERE format = {state.bind(rules.key)} "
        f"AND status IN ({wanted}))"
    )


# -- is: / has: ----------------------------------------------------------------------------------------


def _is(term: Term, state: _State) -> str:
    value = term.value.lower()
    row = IS_BY_NAME.get(value)
    if term.keyword == "has" and value not in HAS_VALUES:
        raise _error(f"has:{term.value} is not supported; supported: {', '.join(sorted(HAS_VALUES))}", state, term)
    if term.keyword != "has" and value in HAS_VALUES:  # Scryfall spells these has:, not is:
        raise _error(f"{term.keyword}:{term.value} is not supported; use has:{term.value}", state, term)
    if row is not None and row.refused:
        raise UnsupportedKeywordError(
            f"{term.keyword}:{term.value} is not supported ({row.refused})", state.query, term.position
        )
    if row is None:
        supported = sorted(set(IS_VALUES) - HAS_VALUES)
        raise UnsupportedKeywordError(
            f"{term.keyword}:{term.value} is not supported; supported: {', '.join(supported)}",
            state.query,
            term.position,
        )
    if row.unknown:
        state.unknown(term, row.unknown, row.data)
    return f"({row.sql})"


def _in(term: Term, state: _State) -> str:
    value = term.value.lower()
    rarity = _RARITY_ABBR.get(value, value)
    if rarity in RARITY_RANK:
        test = f"q.rarity = {state.bind(rarity)}"
    elif value in _GAMES:
        test = f"list_contains(q.games, {state.bind(value)})"
    elif value == "booster":  # Scryfall: "t:legendary -in:booster — … never been printed in a booster set"
        state.unknown(term, "p.booster IS NULL", "booster")
        test = "q.booster"
    elif value in _LANG_CODES or value in LANGUAGES:
        test = f"q.lang = {state.bind(LANGUAGES.get(value, value))}"
    else:
        state.set_code(term, value, or_type=True)  # a set code or a set type the database must know
        test = f"(q.set_code = {state.bind(value)} OR {_set_type(value, 'q', state)})"
    return f"c.oracle_id IN (SELECT q.oracle_id FROM printings q WHERE {test})"


# -- printings ----------------------------------------------------------------------------------------


def _rarity(term: Term, state: _State) -> str:
    value = _RARITY_ABBR.get(term.value.lower(), term.value.lower())
    if value not in RARITY_RANK:
        raise _error(
            f"r{term.op}{term.value}: not a rarity; use common, uncommon, rare, special, mythic, bonus "
            "(or c u r s m b)",
            state,
            term,
        )
    if term.op in (":", "=", "!="):  # the plain column comparison: DuckDB can prune by it, the CASE it cannot
        return f"p.rarity {_OPS_SQL[term.op]} {state.bind(value)}"
    return f"{_RARITY_SQL} {_OPS_SQL[term.op]} {state.bind(RARITY_RANK[value])}"


#: The most digits a whole number of a query has (a BIGINT holds 18 nines).
_MOST_DIGITS = 18


def _collector_number(term: Term, state: _State) -> str:
    if term.op in (":", "="):
        return f"p.collector_number = {state.bind(term.value)}"
    if term.op == "!=":
        return f"p.collector_number <> {state.bind(term.value)}"
    # a collector number compares by its leading digits: 'nan', '1.5' are no number; nor are 19 digits and more,
    # past a BIGINT (DuckDB refused to bind 40 nines: "Python integer too large for 128-bit integer type")
    if not (term.value.isascii() and term.value.isdigit() and len(term.value) <= _MOST_DIGITS):
        raise _error(f"{term.keyword}{term.op}{term.value}: expected a whole number such as 250", state, term)
    return (
        f"TRY_CAST(regexp_extract(p.collector_number, '^[0-9]+') AS BIGINT) {_OPS_SQL[term.op]} "
        f"{state.bind(int(term.value))}"
    )


def _lang(term: Term, state: _State) -> str:
    value = term.value.lower()
    if value == "any":
        return "true"
    code = LANGUAGES.get(value, value)
    if code not in _LANG_CODES:
        raise _error(
            f"lang:{term.value}: unknown language; use a code ({', '.join(sorted(_LANG_CODES))}), an "
            "English language name, or any",
            state,
            term,
        )
    return f"p.lang = {state.bind(code)}"


_DATE_RE = re.compile(r"^\d{4}(-\d{1,2}(-\d{1,2})?)?$")


def _date(term: Term, state: _State, *, year: bool) -> str:
    value = term.value.lower()
    op = _OPS_SQL[term.op]
    if year:
        if not (value.isascii() and value.isdigit() and len(value) <= _MOST_DIGITS):
            raise _error(f"year{term.op}{term.value}: expected a year such as 1994", state, term)
        return f"year(p.released_at) {op} {state.bind(int(value))}"
    if value in ("now", "today"):
        return f"p.released_at {op} current_date"
    if _DATE_RE.match(value):
        parts = [int(x) for x in value.split("-")] + [1, 1]
        import datetime as _dt

        try:
            day = _dt.date(parts[0], parts[1], parts[2])
        except ValueError:
            raise _error(f"date{term.op}{term.value}: not a date (yyyy-mm-dd)", state, term) from None
        return f"p.released_at {op} {state.bind(day)}"
    if re.fullmatch(r"[\d-]+", value):  # digits and dashes only: a date mistyped, no set code (each has a letter)
        raise _error(f"date{term.op}{term.value}: not a date (yyyy-mm-dd)", state, term)
    # a set code stands for that set's release date
    state.set_code(term, value)
    return f"p.released_at {op} (SELECT min(released_at) FROM printings WHERE set_code = {state.bind(value)})"


def _set(term: Term, state: _State) -> str:
    value = term.value.lower()
    state.set_code(term, value)
    return f"p.set_code = {state.bind(value)}"


def _set_type(value: str, alias: str, state: _State) -> str:
    """A printing of set type ``value``: its own set_type where its file has one, else the shipped set table's
    (oracle_tools/data/sets.csv) for its set code: the 2019 dump's objects carry no set_type, as b: reads blocks."""
    from oracle_tools.scryfall.sets import shipped_codes_of_type

    return (
        f"({alias}.set_type = {state.bind(value)} OR ({alias}.set_type IS NULL "
        f"AND list_contains({state.bind(list(shipped_codes_of_type(value)))}::VARCHAR[], {alias}.set_code)))"
    )


def _simple_printing(column: str, lower: bool = True) -> Callable[[Term, _State], str]:
    def build(term: Term, state: _State) -> str:
        value = term.value.lower() if lower else term.value
        return f"p.{column} = {state.bind(value)}"

    return build


def _border(term: Term, state: _State) -> str:
    state.unknown(term, "p.border_color IS NULL", "border_color")  # the foreign printings file has none
    return f"p.border_color = {state.bind(_closed(term, state))}"


def _stamp(term: Term, state: _State) -> str:
    # Scryfall leaves security_stamp out where there is none; objects of the API before it (no promo_types: the 2019
    # dump's, the foreign printings file's) cannot say, as for is:universesbeyond
    state.unknown(term, "p.promo_types IS NULL", "security_stamp")
    return f"p.security_stamp = {state.bind(_closed(term, state))}"


def _watermark(term: Term, state: _State) -> str:
    state.unknown(term, "p.frame IS NULL", "watermark")  # as has:watermark: no full Scryfall object, no watermark
    return f"p.watermark = {state.bind(term.value.lower())}"


#: Each currency's price column (the printing's lowest price in it): what usd/eur/tix compare and order by.
_PRICE_COLUMNS = {"usd": "p.usd", "eur": "p.eur", "tix": "p.tix"}


def _price(term: Term, state: _State) -> str:
    """usd>=0.50 — the printing's lowest price in the currency; one without a price is counted as not judged, as
    cheapest: counts it (the 2019 dump has prices on few objects)."""
    money = term.keyword.lower()
    state.unknown(term, f"p.{money} IS NULL", f"prices ({money})")
    return f"{_PRICE_COLUMNS[money]} {_OPS_SQL[term.op]} {state.bind(_number(term, state))}"


def _cheapest(term: Term, state: _State) -> str:
    """cheapest:usd — a printing whose lowest price in the currency is the lowest of its card's printings'."""
    money = term.value.lower()
    if money not in _PRICE_COLUMNS:
        raise _error(f"cheapest:{term.value}: use {', '.join(_PRICE_COLUMNS)}", state, term)
    state.unknown(term, f"p.{money} IS NULL", f"prices ({money})")
    return (
        f"p.id IN (SELECT x.id FROM printings x WHERE x.{money} IS NOT NULL "
        f"QUALIFY x.{money} = min(x.{money}) OVER (PARTITION BY x.oracle_id))"
    )


def _artist(term: Term, state: _State) -> str:
    state.unknown(term, "p.artist IS NULL", "artist")  # the foreign printings file names no artist
    return f"contains(lower(coalesce(p.artist, '')), {state.bind(term.value.lower())})"


#: A printing's flavor text: its own (one-faced printings) and each face's, one paragraph each (Scryfall's
#: flavor text is per printing, so ft: is a printing keyword; a regex's ^ and $ match each paragraph).
_FLAVOR_TEXT = "concat_ws(chr(10), p.flavor_text, array_to_string(coalesce(p.face_flavor_texts, []), chr(10)))"


def _flavor(term: Term, state: _State) -> str:
    # Scryfall leaves flavor_text out of an object without one: only a printing that is no full Scryfall object (the
    # foreign printings file's) cannot say
    state.unknown(term, "p.frame IS NULL", "flavor_text")
    if term.kind == "regex":
        return f"regexp_matches({_FLAVOR_TEXT}, {state.bind(_regex(term, state))})"
    return f"contains(lower({_FLAVOR_TEXT}), {state.bind(term.value.lower())})"


def _lore(term: Term, state: _State) -> str:
    """lore: — the card's name (folded as name: folds it, so lore:urzas finds Urza's Tome), its type line or the
    printing's flavor text has the words (Scryfall's lore: reads name, type line and flavor text)."""
    tests = []  # each bound in the order it is written: the parameters follow the SQL's order
    key = normalize(term.value)
    if key:
        names = f"SELECT oracle_id FROM names WHERE via = 'name' AND contains(key, {state.bind(key)})"
        tests.append(f"c.oracle_id IN ({names})")
    tests.append(_type(term, state))
    tests.append(f"contains(lower({_FLAVOR_TEXT}), {state.bind(term.value.lower())})")
    return "(" + " OR ".join(tests) + ")"


#: How many artists a printing credits: Scryfall's artist field joins them with " & " (as artist_ids lists them); an
#: empty one (the World Championship decks' bio and decklist cards) credits none.
ARTIST_COUNT = "(CASE WHEN trim(p.artist) = '' THEN 0 ELSE len(string_split(p.artist, ' & ')) END)"


def _artists(term: Term, state: _State) -> str:
    state.unknown(term, "p.artist IS NULL", "artist")
    return f"{ARTIST_COUNT} {_OPS_SQL[term.op]} {state.bind(_number(term, state))}"


def _game(term: Term, state: _State) -> str:
    return f"list_contains(coalesce(p.games, []), {state.bind(_closed(term, state))})"


#: prints/sets count a card's printings (a set and collector number: its languages are one print) or its sets;
#: the paper- spellings only those printed on paper (Scryfall's games field).
_PRINT_COUNTS = {
    "prints": "count(DISTINCT (x.set_code, x.collector_number))",
    "sets": "count(DISTINCT x.set_code)",
    "paperprints": "count(DISTINCT (x.set_code, x.collector_number)) FILTER (WHERE list_contains(x.games, 'paper'))",
    "papersets": "count(DISTINCT x.set_code) FILTER (WHERE list_contains(x.games, 'paper'))",
}


def _prints(term: Term, state: _State) -> str:
    count = _PRINT_COUNTS[term.keyword.lower()]
    return (
        f"c.oracle_id IN (SELECT x.oracle_id FROM printings x GROUP BY x.oracle_id "
        f"HAVING {count} {_OPS_SQL[term.op]} {state.bind(_number(term, state))})"
    )


#: Scryfall's frame editions and frame effects (https://scryfall.com/docs/api/frames): what frame: takes.
FRAME_EDITIONS = ("1993", "1997", "2003", "2015", "future")
FRAME_EFFECTS = (
    "legendary", "miracle", "enchantment", "nyxtouched", "draft", "devoid", "tombstone", "colorshifted", "inverted",
    "sunmoondfc", "compasslanddfc", "originpwdfc", "mooneldrazidfc", "waxingandwaningmoondfc", "showcase",
    "extendedart", "companion", "etched", "snow", "lesson", "shatteredglass", "convertdfc", "fandfc",
    "upsidedowndfc", "spree",
)  # fmt: skip


def _frame(term: Term, state: _State) -> str:
    value = term.value.lower()
    if value in FRAME_EDITIONS:
        state.unknown(term, "p.frame IS NULL", "frame")
        return f"p.frame = {state.bind(value)}"
    if value in FRAME_EFFECTS:
        state.unknown(term, "p.frame_effects IS NULL", "frame_effects")
        return f"list_contains(p.frame_effects, {state.bind(value)})"
    raise _error(
        f"frame:{term.value}: not a frame; use an edition ({', '.join(FRAME_EDITIONS)}) or a frame effect "
        f"({', '.join(FRAME_EFFECTS)})",
        state,
        term,
    )


def _block(term: Term, state: _State) -> str:
    """b:/block: — the printing's block, named by any of its sets' codes or by its name: the printing's own block
    fields where its file has them, else the shipped set table's blocks (oracle_tools/data/sets.csv)."""
    from oracle_tools.scryfall.sets import shipped_sets

    value = term.value.lower()
    table = shipped_sets()
    block = (table.get(value) or {}).get("block") or next(
        (row["block"] for row in table.values() if row["block"] and row["block"].lower() == value), ""
    )
    tests = [
        f"lower(p.block_code) = {state.bind(value)}",
        f"lower(p.block) = {state.bind(value)}",
        f"p.block_code IN (SELECT x.block_code FROM printings x WHERE x.set_code = {state.bind(value)} "
        "AND x.block_code IS NOT NULL)",
    ]
    if block:
        codes = sorted(code for code, row in table.items() if row["block"] == block)
        tests.append(f"list_contains({state.bind(codes)}::VARCHAR[], p.set_code)")
    else:  # the table does not know it: only the printings' own block fields can answer
        data = f"block (and {term.value} is no set code or block name of the shipped set table)" if table else "block"
        state.unknown(term, "p.block IS NULL AND p.block_code IS NULL", data)
    return "(" + " OR ".join(tests) + ")"


def _illustrations(term: Term, state: _State) -> str:
    state.unknown(term, "p.illustration_id IS NULL", "illustration_id")
    return (
        "c.oracle_id IN (SELECT x.oracle_id FROM printings x GROUP BY x.oracle_id "
        f"HAVING count(DISTINCT x.illustration_id) {_OPS_SQL[term.op]} {state.bind(_number(term, state))})"
    )


#: new:X — the printings column compared with the card's earlier printings (flavor text within its language): table
#: printings has one flag new_X per value, computed at ingest (sql/build_printings.sql).
_NEW_FIELDS = {
    "art": "illustration_id",
    "artist": "artist",
    "rarity": "rarity",
    "frame": "frame",
    "flavor": "flavor_text",
    "language": "lang",
}


def _new(term: Term, state: _State) -> str:
    """A printing whose value no earlier printing of the card had: it was released on the first day the card
    had that value (Scryfall: "cards being printed with new illustrations using new:art" …)."""
    value = term.value.lower()
    if value not in _NEW_FIELDS:
        raise _error(f"new:{term.value}: use {', '.join(_NEW_FIELDS)}", state, term)
    column = _NEW_FIELDS[value]
    if column not in ("rarity", "lang"):
        state.unknown(term, f"p.{column} IS NULL", column)
    # the first printings with each value, computed at ingest (sql/build_printings.sql) by the same rule as _NEW_FIELDS
    return f"p.new_{value}"


_DEVOTION_SYMBOL = re.compile(r"\{([wubrg])(?:/([wubrg]))?\}|([wubrg])")


def _devotion(term: Term, state: _State) -> str:
    """devotion:{u}{u}{u} — a permanent card whose mana cost has at least (``:``, ``>=``) / exactly (``=``) … that
    many mana symbols of the colour, or of either colour of a hybrid ({u/b}). CR 700.5: "A player's devotion to
    [color 1] and [color 2] is equal to the number of mana symbols among the mana costs of permanents that player
    controls that are [color 1], [color 2], or both colors." """
    text = term.value.lower().replace(" ", "")
    symbols, at = [], 0
    for m in _DEVOTION_SYMBOL.finditer(text):
        if m.start() != at:
            break
        at = m.end()
        symbols.append(frozenset(x for x in m.groups() if x))
    if at != len(text) or not symbols or len(set(symbols)) != 1:
        raise _error(
            f"devotion{term.op}{term.value}: write one colour's symbols ({{u}}{{u}}{{u}}, or uuu) or one hybrid pair's "
            "({u/b}{u/b}{u/b})",
            state,
            term,
        )
    colours = "".join(sorted(symbols[0])).upper()
    op = ">=" if term.op == ":" else _OPS_SQL[term.op]
    # the front face's cost for a card without one of its own (a transforming card); each {…} symbol with a colour
    # of the query in it counts once (a hybrid {U/B} is one symbol of devotion to blue and black)
    # the permanent's cost: a split card's halves together (CR 709.4), else the front face's (an adventurer's
    # creature part, CR 715.4; a transforming card's front, CR 712.8)
    cost = (
        "coalesce(CASE WHEN c.layout = 'split' THEN c.mana_cost ELSE (SELECT f.mana_cost FROM faces f "
        "WHERE f.oracle_id = c.oracle_id ORDER BY f.face_index LIMIT 1) END, '')"
    )
    count = (
        f"len(list_filter(regexp_extract_all({cost}, '\\{{[^}}]+\\}}'), lambda s: regexp_matches(s, '[{colours}]')))"
    )
    permanent = IS_BY_NAME["permanent"].sql
    return f"({permanent}) AND {count} {op} {state.bind(len(symbols))}"


# -- the compiler ------------------------------------------------------------------------------------


def _leaf(term: Term, state: _State) -> str:
    kw = _keyword(term, state)
    family = kw.family
    handlers: dict[str, Callable[[Term, _State], str]] = {
        "name": _name,
        "type": _type,
        "oracle": lambda t, s: _oracle(t, s, reminder=False),
        "fulloracle": lambda t, s: _oracle(t, s, reminder=True),
        "keyword": _keyword_ability,
        "color": lambda t, s: _colors(t, s, "colors", faces=True),
        "identity": lambda t, s: _colors(t, s, "color_identity", identity=True),
        "produces": _produces,
        "manavalue": _manavalue,
        "mana": _mana,
        "power": lambda t, s: _stat(t, s, "power"),
        "toughness": lambda t, s: _stat(t, s, "toughness"),
        "powtou": lambda t, s: _stat(t, s, "powtou"),
        "loyalty": lambda t, s: _stat(t, s, "loyalty"),
        "defense": lambda t, s: _stat(t, s, "defense"),
        "edhrec": lambda t, s: f"c.edhrec_rank {_OPS_SQL[t.op]} {s.bind(_number(t, s))}",
        "format": lambda t, s: _legality(t, s, ("legal", "restricted")),
        "banned": lambda t, s: _legality(t, s, ("banned",)),
        "restricted": lambda t, s: _legality(t, s, ("restricted",)),
        "is": _is,
        "has": _is,
        "not": lambda t, s: f"NOT {_is(t, s)}",
        "nameable": _nameable,
        "in": _in,
        "set": _set,
        "settype": lambda t, s: _set_type(_closed(t, s), "p", s),
        "number": _collector_number,
        "rarity": _rarity,
        "lang": _lang,
        "year": lambda t, s: _date(t, s, year=True),
        "date": lambda t, s: _date(t, s, year=False),
        "artist": _artist,
        "flavor": _flavor,
        "lore": _lore,
        "artists": _artists,
        "cheapest": _cheapest,
        "game": _game,
        "border": _border,
        "stamp": _stamp,
        "price": _price,
        "oracleid": lambda t, s: f"c.oracle_id = {s.bind(t.value.lower())}",
        "watermark": _watermark,
        "frame": _frame,
        "block": _block,
        "illustrations": _illustrations,
        "new": _new,
        "devotion": _devotion,
        "prints": _prints,
    }
    sql = handlers[family](term, state)
    if _is_exists(sql):  # EXISTS is never NULL, and wrapped in coalesce DuckDB no longer plans it as a semi-join
        return sql
    return f"coalesce({sql}, false)"  # never NULL: negation stays two-valued


def _is_exists(sql: str) -> bool:
    """Is ``sql`` one ``EXISTS (…)`` as a whole (not ``EXISTS (…) AND x``)? User text is bound, never in the
    SQL; a parenthesis in one of the compiler's own literals ('(?i)…') can only make the answer False (safe)."""
    if not sql.startswith("EXISTS ("):
        return False
    depth = 0
    for i, ch in enumerate(sql):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i == len(sql) - 1
    return False


def _nameable(term: Term, state: _State) -> str:
    if state.nameable is None:
        raise _error("nameable: needs the database's choose-name rules", state, term)
    try:
        ids = state.nameable(term.value)
    except ConstraintError as exc:  # the choose-name parser's message, first line (the rest lists phrases)
        raise _error(f"{term.keyword}:{term.value}: {str(exc).splitlines()[0]}", state, term) from None
    return f"list_contains({state.bind(sorted(set(ids)))}::VARCHAR[], c.oracle_id)"


def _is_display(node: Node) -> bool:
    return isinstance(node, Term) and BY_NAME.get(node.keyword) is not None and BY_NAME[node.keyword].level == "display"


def _expr(node: Node, state: _State) -> str:
    if isinstance(node, Term):
        if _is_display(node):
            # a display option orders or picks the printings of the whole answer and matches no card: negated it
            # would filter as a constant (`-prefer:oldest` matched no card)
            if state.negations:
                raise _error(
                    f"{node.keyword}: is a display option (it orders or chooses printings, it matches no card): it "
                    "cannot be negated; write it beside the search's other terms",
                    state,
                    node,
                )
            return "true"
        if state.fixed and f"{node.keyword}{node.op}{node.value}" in state.fixed:
            return state.fixed[f"{node.keyword}{node.op}{node.value}"]
        if state.guessed and (written := f"{node.keyword}{node.op}{node.value}") in state.guessed:
            sql = _leaf(node, state)
            unknown = next(entry[1] for entry in state.unknowns if entry[0] == written)  # literal SQL, no parameter
            return f"(CASE WHEN coalesce({unknown}, false) THEN {state.guessed[written]} ELSE {sql} END)"
        return _leaf(node, state)
    if isinstance(node, Not):
        state.negations += 1
        try:
            return f"(NOT {_expr(node.child, state)})"
        finally:
            state.negations -= 1
    if isinstance(node, And | Or):
        # a display option applies to the whole answer wherever it is written (`t:elf or t:goblin unique:prints`):
        # it is no operand, so neither `true` in an OR (every card) nor anything else
        operands = [c for c in node.children if not _is_display(c)]
        for child in node.children:
            if _is_display(child):
                _expr(child, state)  # refused under a negation
        if not operands:
            return "true"
        joiner = " AND " if isinstance(node, And) else " OR "
        return "(" + joiner.join(_expr(c, state) for c in operands) + ")"
    return "true"


UNIQUE = ("cards", "prints", "art")
#: prefer:X — the key that comes first when choosing the printing that stands for a card (after English), smallest
#: first and never NULL (see _EN_FIRST).
_DAYS = "datediff('day', DATE '1900-01-01', p.released_at)"
_PREFER_SQL = {
    "oldest": f"coalesce({_DAYS}, 2147483647)",
    "newest": f"coalesce(-{_DAYS}, 2147483647)",
    **{f"{money}-low": f"coalesce(p.{money}::DOUBLE, 1e300)" for money in ("usd", "eur", "tix")},
    **{f"{money}-high": f"coalesce(-p.{money}::DOUBLE, 1e300)" for money in ("usd", "eur", "tix")},
    "promo": "NOT coalesce(p.promo, false)",
    # Universes Beyond printings carry the triangle security stamp (Scryfall's stamp:triangle)
    "ub": "NOT coalesce(p.security_stamp = 'triangle', false)",
    "universesbeyond": "NOT coalesce(p.security_stamp = 'triangle', false)",
    "notub": "coalesce(p.security_stamp = 'triangle', false)",
    "notuniversesbeyond": "coalesce(p.security_stamp = 'triangle', false)",
}
PREFER = tuple(_PREFER_SQL)
DIRECTIONS = ("auto", "asc", "desc")
#: Scryfall's default direction per order ('auto'), from its API reference (/docs/api/cards/search): released
#: "Newest → Oldest"; every other order ascends (rarity "Common → Mythic", power and toughness "null → highest",
#: cmc "0 → highest", edhrec "lowest → highest", set "AAA/#1 → ZZZ/#999").
_AUTO_DESC = {"released"}
#: Orders whose missing values come first when ascending (Scryfall: power/toughness "null → highest").
_NULLS_FIRST = {"power", "toughness"}


def _display(terms: list[Term], options: Options, state: _State) -> None:
    for term in terms:
        kw = BY_NAME.get(term.keyword)
        if kw is None or kw.level != "display":
            continue
        _keyword(term, state)
        value = term.value.lower()
        if (kw.family, value) in REFUSED_DISPLAY:
            raise UnsupportedKeywordError(
                f"{term.keyword}:{term.value} is not supported ({REFUSED_DISPLAY[kw.family, value]})",
                state.query,
                term.position,
            )
        if kw.family == "unique":
            if value not in UNIQUE:
                raise _error(f"unique:{term.value}: use {', '.join(UNIQUE)}", state, term)
            options.unique = value
        elif kw.family == "order":
            value = {
                "mv": "cmc",
                "manavalue": "cmc",
                "pow": "power",
                "tou": "toughness",
                "colour": "color",
                "date": "released",
                "edhrecrank": "edhrec",
            }.get(value, value)
            if value not in ORDERS:
                raise _error(f"order:{term.value}: use {', '.join(ORDERS)}", state, term)
            options.order = value
        elif kw.family == "direction":
            if value not in ("asc", "desc"):
                raise _error(f"direction:{term.value}: use asc or desc", state, term)
            options.direction = value
        elif kw.family == "prefer":
            if value not in PREFER:
                raise _error(f"prefer:{term.value}: use {', '.join(PREFER)}", state, term)
            options.prefer = value
        elif kw.family == "include":
            if value != "extras":
                raise _error(f"include:{term.value}: only include:extras exists", state, term)
            options.extras = True


def _reveals_extras(terms: list[Term]) -> bool:
    for term in terms:
        kw = BY_NAME.get(term.keyword)
        if kw is None:
            continue
        # is:/has: a value that reveals them (not:token keeps them hidden)
        if kw.reveals_extras or (kw.family in IS_FAMILIES and kw.family != "not" and term.value.lower() in IS_REVEALS):
            return True
        if (
            kw.family == "type"
            and term.kind != "regex"
            and len(term.value) >= 3
            and any(x.startswith(term.value.lower()) for x in EXTRA_TYPES)
        ):
            return True
    return False


def _is_printing(term: Term) -> bool:
    kw = BY_NAME.get(term.keyword)
    if kw is None:
        return False
    if kw.family in IS_FAMILIES:
        return IS_VALUES.get(term.value.lower()) == "printing"
    return kw.level == "printing"


#: Without lang: or include_multilingual, a search reads each printing once — one per set and collector number:
#: the English object, else the first language by code (a printing the data hold only in other languages, such as
#: the foreign printings of the sets after the 2019 dump) — as Scryfall lists "English or the printed language". The
#: row is chosen at ingest (printings.shown_language, sql/build_printings.sql), so a query is judged on the object it
#: shows, never on a foreign copy whose field differs. A set's card_count counts the same
#: (oracle_tools/scryfall/sets.py), so its search_uri finds card_count printings.
ONE_LANGUAGE_PER_PRINTING = "p.shown_language"


def _lone_new(tree: Node) -> str | None:
    """The value of the one ``new:`` term a query ANDs with card-level terms only (``new:art``, ``new:art
    t:creature``), else None. For such a query the printing that stands for each card is the one ingest chose for
    that value (printings.new_X_pick, sql/build_printings.sql): the same arg_min of preference_rank over the same
    printings, read instead of grouping every printing of every card (bench/bench_search.py --keywords)."""
    conjuncts = tree.children if isinstance(tree, And) else (tree,)
    news = [c for c in conjuncts if isinstance(c, Term) and c.keyword in BY_NAME and BY_NAME[c.keyword].family == "new"]
    if len(news) != 1 or any(_is_printing(t) for t in walk(tree) if t is not news[0]):
        return None
    value = news[0].value.lower()
    return value if value in _NEW_FIELDS else None


def _mentions_lang(terms: list[Term]) -> bool:
    return any(BY_NAME.get(t.keyword) is not None and BY_NAME[t.keyword].family == "lang" for t in terms)


# Printing preference (see the module docstring): the first printing in this order stands for a card.
_PREFERENCE = (
    "(p.lang = 'en') DESC NULLS LAST, "
    "(list_contains(p.games, 'paper') OR (p.games IS NULL AND NOT coalesce(p.digital, false))) DESC NULLS LAST, "
    "coalesce(p.promo, false), coalesce(p.set_type = 'memorabilia', false), p.released_at DESC NULLS LAST, "
    "TRY_CAST(regexp_extract(p.collector_number, '^[0-9]+') AS INTEGER) NULLS LAST, p.collector_number, p.id"
)

#: The key of the printing that stands for a card: its rank in _PREFERENCE among its card's printings, computed at
#: ingest (printings.preference_rank, sql/build_printings.sql; tests/test_card_history.py checks that arg_min of it
#: chooses the printing ranked first by _PREFERENCE); prefer: puts English, then its own key, before it.
_EN_FIRST = "CASE WHEN p.lang = 'en' THEN 0 WHEN p.lang IS NULL THEN 2 ELSE 1 END"

_COLOR_ORDER = (
    "CASE WHEN len(coalesce(c.colors, [])) = 0 THEN 7 WHEN len(c.colors) > 1 THEN 6 "
    "WHEN c.colors[1] = 'W' THEN 1 WHEN c.colors[1] = 'U' THEN 2 WHEN c.colors[1] = 'B' THEN 3 "
    "WHEN c.colors[1] = 'R' THEN 4 ELSE 5 END"
)
_ORDER_SQL = {
    "name": "c.name",
    "cmc": "c.cmc",
    "power": _NUM.format(x="c.power"),
    "toughness": _NUM.format(x="c.toughness"),
    "set": "p.set_code",
    "released": "p.released_at",
    "rarity": _RARITY_SQL,
    "color": _COLOR_ORDER,
    "edhrec": "c.edhrec_rank",
    "penny": "c.penny_rank",  # Scryfall: "Sort by Penny Dreadful rank", lowest first, unranked last
    "artist": "p.artist",
    # Scryfall: "lowest known price: 0.01 → highest, null last"
    **_PRICE_COLUMNS,
}
#: The orders a search takes (order:X, the API's order=X), in the order --help and errors list them.
ORDERS = tuple(_ORDER_SQL)
#: The printing columns _OUTPUT shows and _ORDER_SQL sorts by (a printing-level search carries them from the printing
#: it chooses; order=usd, eur, tix add their price).
_SHOWN_PRINTING_COLUMNS = ("id", "lang", "set_code", "collector_number", "rarity", "released_at", "artist")
_OUTPUT = (
    "c.oracle_id, p.id, c.name, p.lang, p.set_code AS set, p.collector_number, p.rarity, p.released_at, "
    "c.mana_cost, c.cmc, c.type_line, c.colors, c.color_identity, c.power, c.toughness, c.loyalty, "
    "c.layout, p.artist"
)


def _judged(
    tree: Node, query: str, state: _State, options: Options, printing_level: bool, every_language: bool
) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """For each term whose data some rows lack (``state.unknowns``), the count of the rows it could not judge among
    the rows the query could have matched: those whose answer the term decides (the query compiled with the term
    true differs from it compiled with the term false: ``is:booster t:creature`` the creature printings,
    ``-is:foil`` every printing), within what the search looks at — cards of the reference (extras when asked),
    no memorabilia unless asked, and, without lang: or include_multilingual, each printing once, in English or its
    printed language (ONE_LANGUAGE_PER_PRINTING): a foreign printing of an English one is not one the search reads."""
    out = []
    for written, unknown, _data, _position in state.unknowns:
        params: list[Any] = []
        # the other terms that cannot judge some rows are unknown there (SQL's NULL, three-valued logic): with
        # `is:datestamped is:prerelease` neither could decide a printing the other could not judge, and 0 printings
        # found was said as if every one had been judged. A row is decided by this term where its two answers differ,
        # or are both unknown for want of another term's data (it may hang on this one there). The query twice per
        # term, whatever their number (guessing each other term true and false doubled it per term).
        others = [entry for entry in state.unknowns if entry[0] != written]
        decides = []
        for constant in ("true", "false"):
            variant = _State(
                query, nameable=state.nameable, fixed={written: constant}, guessed={o[0]: "NULL" for o in others}
            )
            decides.append(_expr(tree, variant))
            params += variant.params
        guessed = " OR ".join(f"coalesce({o[1]}, false)" for o in others) or "false"
        per_card = unknown.split(".", 1)[0] == "c"
        if per_card and not printing_level:
            rows = f"cards c WHERE {'true' if options.extras else 'c.is_card'}"
            counted = "count(*)"
        else:
            domain = "true" if options.extras else "c.is_card AND NOT coalesce(p.set_type = 'memorabilia', false)"
            language = "" if every_language else f"AND {ONE_LANGUAGE_PER_PRINTING}"
            rows = f"cards c JOIN printings p ON p.oracle_id = c.oracle_id WHERE {domain} {language}"
            counted = "count(DISTINCT oracle_id)" if per_card else "count(*)"
        decided = "(if_true IS DISTINCT FROM if_false OR (if_true IS NULL AND if_false IS NULL AND guessed))"
        sql = (
            f"SELECT {counted} FILTER (WHERE unjudged AND {decided}), {counted} FILTER (WHERE {decided}) FROM ("
            f"SELECT c.oracle_id, ({decides[0]}) AS if_true, ({decides[1]}) AS if_false, coalesce({unknown}, false) "
            f"AS unjudged, ({guessed}) AS guessed FROM {rows})"
        )
        out.append((sql, tuple(params)))
    return tuple(out)


def compile_query(
    tree: Node,
    query: str,
    *,
    unique: str = "cards",
    order: str = "name",
    direction: str = "auto",
    nameable: Callable[[str], list[str]] | None = None,
    extras: bool = False,
    multilingual: bool = False,
) -> Compiled:
    """The SQL and parameters for ``tree`` (from ``parse(query)``); keywords inside the query win over the
    ``unique`` / ``order`` / ``direction`` arguments. ``extras``: as ``include:extras`` (Scryfall's
    ``include_extras``); ``multilingual``: every language, as ``lang:any`` (its ``include_multilingual``)."""
    state = _State(query, nameable=nameable)
    for name, value, allowed in (
        ("unique", unique, UNIQUE),
        ("order", order, ORDERS),
        ("direction", direction, DIRECTIONS),
    ):
        if (name, value.lower()) in REFUSED_DISPLAY:  # as the same value written in the query is refused
            raise UnsupportedKeywordError(f"{name}={value} is not supported ({REFUSED_DISPLAY[name, value.lower()]})")
        if value not in allowed:
            raise SearchSyntaxError(f"{name}={value!r}: use one of {', '.join(allowed)}")
    options = Options(unique=unique, order=order, direction=direction)
    terms = walk(tree)
    _display(terms, options, state)
    if not options.extras:
        options.extras = extras or _reveals_extras(terms)
    state.extras = options.extras
    where = _expr(tree, state) if not isinstance(tree, Empty) else "true"
    visible = "true" if options.extras else "c.is_card"
    printing_level = options.unique != "cards" or bool(options.prefer) or any(_is_printing(t) for t in terms)

    descending = options.direction == "desc" or (options.direction == "auto" and options.order in _AUTO_DESC)
    direction_sql = "DESC" if descending else "ASC"
    nulls = "NULLS FIRST" if options.order in _NULLS_FIRST and not descending else "NULLS LAST"
    # order:set is by set, then collector number (Scryfall: "AAA/#1 → ZZZ/#999"), then name
    then = (
        f"TRY_CAST(regexp_extract(p.collector_number, '^[0-9]+') AS BIGINT) {direction_sql} NULLS LAST, "
        f"p.collector_number {direction_sql}, "
        if options.order == "set"
        else ""
    )
    order_sql = (
        f"{_ORDER_SQL[options.order]} {direction_sql} {nulls}, {then}c.name, p.set_code, "
        "TRY_CAST(regexp_extract(p.collector_number, '^[0-9]+') AS INTEGER) NULLS LAST, p.collector_number, p.id"
    )

    judged = _judged(tree, query, state, options, printing_level, multilingual or _mentions_lang(terms))
    if not printing_level:
        # each card's preferred printing is precomputed at ingest (sql/preferred_printings.sql, same rule as
        # _PREFERENCE, with the printing columns shown): one join per card instead of ranking all printings
        sql = f"""
WITH hits AS (SELECT c.* FROM cards c WHERE {visible} AND {where})
SELECT {_OUTPUT}
FROM hits c LEFT JOIN preferred_printings p ON p.oracle_id = c.oracle_id
ORDER BY {order_sql}"""
        return Compiled(
            sql,
            state.params,
            options,
            False,
            tuple(state.formats),
            tuple(state.unknowns),
            tuple(state.sets),
            judged,
            frozenset(state.checked),
        )

    state.printing = True
    domain = "true"
    if not options.extras:
        domain = "NOT coalesce(p.set_type = 'memorabilia', false)"
    one_language = not multilingual and not _mentions_lang(terms)
    if one_language:
        # each printing once, in English or a language it was printed in (lang: or include_multilingual: all)
        domain += f" AND {ONE_LANGUAGE_PER_PRINTING}"
    matched = f"SELECT p.* FROM cards c JOIN printings p ON p.oracle_id = c.oracle_id WHERE {visible} AND {domain} AND {where}"
    lone_new = (
        _lone_new(tree)
        if options.unique == "cards" and not options.prefer and not options.extras and one_language
        else None
    )
    if lone_new:
        # the printing ingest chose among those the search reads (no memorabilia, one language per printing) that
        # are new for the value, smallest preference_rank: what the grouping below would choose
        sql = f"""
SELECT {_OUTPUT} FROM printings p JOIN cards c ON c.oracle_id = p.oracle_id
WHERE p.new_{lone_new}_pick AND {visible} AND {where}
ORDER BY {order_sql}"""
    elif options.unique == "prints":
        sql = f"""
WITH m AS ({matched})
SELECT {_OUTPUT} FROM m p JOIN cards c USING (oracle_id)
ORDER BY {order_sql}"""
    else:
        # unique:art is one printing per illustration (Scryfall: "every unique Forest illustration"); a printing whose
        # file has no illustration id stands for its artist's art
        partition = (
            "p.oracle_id"
            if options.unique == "cards"
            else "p.oracle_id, coalesce(p.illustration_id, 'artist: ' || coalesce(p.artist, ''))"
        )
        # the printing's rank in _PREFERENCE among its card's printings, computed at ingest (sql/build_printings.sql)
        key = ["p.preference_rank"]
        if options.prefer:  # Scryfall's prefer: (English first still: a card is shown in English where it can be)
            key = [_EN_FIRST, _PREFER_SQL[options.prefer], "p.preference_rank"]
        # each card's (or card and artist's) printing chosen by arg_min of the preference key, carrying the printing
        # columns shown (reading them again by id would scan every printing once more)
        smallest = ", ".join(key)
        carried = (*_SHOWN_PRINTING_COLUMNS, *((options.order,) if options.order in _PRICE_COLUMNS else ()))
        shown = ", ".join(f"'{column}': p.{column}" for column in carried)
        cards = "cards c"
        if options.unique == "cards" and not re.search(r"\bc\.", f"{domain} {where}"):
            # a filter of printings only: which cards are shown (is_card) is asked once, of the chosen printings' cards
            matched = f"SELECT p.* FROM printings p WHERE {domain} AND {where}"
            cards = f"(SELECT * FROM cards c WHERE {visible}) c"
        sql = f"""
WITH m AS (SELECT p.oracle_id, arg_min({{{shown}}}, ({smallest})) AS p FROM ({matched}) p GROUP BY {partition})
SELECT {_OUTPUT} FROM (SELECT m.oracle_id, unnest(m.p) FROM m) p JOIN {cards} ON c.oracle_id = p.oracle_id
ORDER BY {order_sql}"""
    return Compiled(
        sql,
        state.params,
        options,
        True,
        tuple(state.formats),
        tuple(state.unknowns),
        tuple(state.sets),
        judged,
        frozenset(state.checked),
    )
