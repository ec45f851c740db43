"""The keyword table: every search keyword this database answers, and every Scryfall keyword it does not.

One row per keyword family (:class:`Keyword`): its spellings, the level it is evaluated at, the operators
it accepts and an example. The compiler (``compiler.py``) has one function per ``family``; nothing else
about a keyword lives anywhere else. Levels:

* ``card``     — a fact of the Oracle card (evaluated once per card; face-level keywords match when
                 **any** face matches, as on Scryfall);
* ``printing`` — a fact of one printing (set, rarity, language, artist…): every printing keyword of a
                 query is evaluated on the **same** printing (``s:m19 r:mythic`` = a mythic M19 printing);
* ``display``  — not a filter: ``unique:``, ``order:``, ``direction:``, ``include:``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["card", "printing", "display"]

NUMERIC_OPS = (":", "=", "!=", "<", "<=", ">", ">=")
EQUALITY_OPS = (":", "=")


@dataclass(frozen=True)
class Keyword:
    family: str  # the compiler function that answers it
    names: tuple[str, ...]  # spellings, the first is the canonical one
    level: Level
    ops: tuple[str, ...]
    example: str  # used in docs/search.md and tests/test_search.py
    meaning: str
    reveals_extras: bool = False  # mentioning it shows tokens, planes, … (Scryfall: "search for their type or set")


KEYWORDS: tuple[Keyword, ...] = (
    Keyword(
        "name",
        ("name",),
        "card",
        EQUALITY_OPS,
        'name:"lim-dul"',
        'part of the card\'s name (accent- and case-insensitive); bare words and "phrases" mean the same; '
        '!name or !"a name" is the exact name (or a face\'s); name:/regex/',
    ),
    Keyword(
        "type",
        ("t", "type"),
        "card",
        EQUALITY_OPS,
        "t:goblin",
        "part of the type line of any face (partial words allowed); t:/regex/",
    ),
    Keyword(
        "oracle",
        ("o", "oracle"),
        "card",
        EQUALITY_OPS,
        'o:"draw a card"',
        "Oracle text of any face without reminder text; ~ stands for the card's (face's) name or its \"this "
        'creature"; o:/regex/',
    ),
    Keyword(
        "fulloracle",
        ("fo", "fulloracle"),
        "card",
        EQUALITY_OPS,
        "fo:flash",
        "full Oracle text of any face, reminder text included; fo:/regex/",
    ),
    Keyword(
        "keyword",
        ("kw", "keyword", "keywords"),
        "card",
        EQUALITY_OPS,
        "kw:flying",
        "has this keyword (Scryfall's keywords list; for a card whose file predates that field, as the 2019 dump, "
        "the list derived from its Oracle text by the CR's keywords, as its card object has it: docs/serve.md)",
    ),
    Keyword(
        "color",
        ("c", "color", "colour", "colors"),
        "card",
        NUMERIC_OPS,
        "c:rg",
        "colours: c:rg at least red and green, c=rg exactly, c<=rg within, c:c colourless, c:m multicolour, "
        "c=2 two colours; letters, colour names and guild/shard/wedge/college/four-colour nicknames; a "
        "double-faced card matches when any face does",
    ),
    Keyword(
        "identity",
        ("id", "identity", "ci", "commander_identity"),
        "card",
        NUMERIC_OPS,
        "id:esper",
        "colour identity (CR 903.4): id:esper (':' means fits within, for a commander deck), id=rg exactly, "
        "id>=rg at least, id:c colourless identity",
    ),
    Keyword(
        "produces",
        ("produces",),
        "card",
        NUMERIC_OPS,
        "produces=wu",
        "colours of mana the card can produce (same operators as c:)",
    ),
    Keyword(
        "mana",
        ("m", "mana"),
        "card",
        NUMERIC_OPS,
        "m:2WW",
        "mana cost symbols: m:2WW / mana:{G}{U} at least these, m= exactly, m>3WU more, m<= only some of them; "
        "generic mana compares as an amount; split symbols in braces ({R/P}, {2/G})",
    ),
    Keyword(
        "manavalue", ("mv", "cmc", "manavalue"), "card", NUMERIC_OPS, "mv<=2", "mana value (CR 202.3); mv:even / mv:odd"
    ),
    Keyword(
        "power",
        ("pow", "power"),
        "card",
        NUMERIC_OPS,
        "pow>=8",
        "power of any face; * counts as 0 and 1+* as 1 (as Scryfall); pow=* has a * in it; pow>tou compares fields",
    ),
    Keyword("toughness", ("tou", "toughness"), "card", NUMERIC_OPS, "tou<pow", "toughness of any face"),
    Keyword("powtou", ("pt", "powtou"), "card", NUMERIC_OPS, "pt>=10", "power plus toughness of any face"),
    Keyword("loyalty", ("loy", "loyalty"), "card", NUMERIC_OPS, "loy=3", "starting loyalty of any face"),
    Keyword("defense", ("def", "defense"), "card", NUMERIC_OPS, "def>=5", "defense of any face (battles)"),
    Keyword("edhrec", ("edhrec", "edhrecrank"), "card", NUMERIC_OPS, "edhrec<=100", "EDHREC rank"),
    Keyword(
        "format",
        ("f", "format", "legal"),
        "card",
        EQUALITY_OPS,
        "f:modern",
        "legal in the format (restricted counts as legal); the format names `deck check --format` takes "
        "(Scryfall's keys; `edh`, `pdh`, `duel commander` too); `f:limited` says it has no legality list; an "
        "unknown format is an error, not an empty answer",
    ),
    Keyword("banned", ("banned",), "card", EQUALITY_OPS, "banned:legacy", "banned in the format"),
    Keyword("restricted", ("restricted",), "card", EQUALITY_OPS, "restricted:vintage", "restricted in the format"),
    Keyword("is", ("is",), "card", EQUALITY_OPS, "is:split", "a property of the card or printing (see the list)"),
    Keyword("not", ("not",), "card", EQUALITY_OPS, "not:reprint", "the same as -is:"),
    Keyword("has", ("has",), "card", EQUALITY_OPS, "has:flavorname", "has:indicator, has:flavorname"),
    Keyword(
        "nameable",
        ("nameable",),
        "card",
        EQUALITY_OPS,
        'nameable:"nonland"',
        'may be chosen for "choose a [phrase] card name" (CR 201.4; the choose-name rules)',
    ),
    Keyword(
        "in",
        ("in",),
        "card",
        EQUALITY_OPS,
        "in:lea",
        "has ever been printed in this set, rarity, language or game (not the printing shown)",
    ),
    Keyword(
        "set",
        ("s", "set", "e", "edition"),
        "printing",
        EQUALITY_OPS,
        "s:m19",
        "printing's set code",
        reveals_extras=True,
    ),
    Keyword("settype", ("st", "settype"), "printing", EQUALITY_OPS, "st:core", "printing's set type"),
    Keyword("number", ("cn", "number"), "printing", NUMERIC_OPS, "cn>=250", "collector number"),
    Keyword(
        "rarity",
        ("r", "rarity"),
        "printing",
        NUMERIC_OPS,
        "r>=r",
        "rarity: common < uncommon < rare < special < mythic < bonus; letters c u r s m b",
    ),
    Keyword(
        "lang",
        ("lang", "language"),
        "printing",
        EQUALITY_OPS,
        "lang:ja",
        "printing's language (code or English name); lang:any for every language",
    ),
    Keyword("year", ("year",), "printing", NUMERIC_OPS, "year<=1994", "printing's release year"),
    Keyword(
        "date",
        ("date",),
        "printing",
        NUMERIC_OPS,
        "date>=2015-08-18",
        "printing's release date (yyyy-mm-dd, a set code for that set's date, now/today)",
    ),
    Keyword("artist", ("a", "artist"), "printing", EQUALITY_OPS, 'a:"proce"', "part of the artist's name"),
    Keyword(
        "flavor",
        ("ft", "flavor"),
        "printing",
        EQUALITY_OPS,
        "ft:mishra",
        "part of the printing's flavor text (any face's; case-insensitive); ft:/regex/",
    ),
    Keyword("game", ("game",), "printing", EQUALITY_OPS, "game:arena", "printing is available in paper/mtgo/arena"),
    Keyword("border", ("border",), "printing", EQUALITY_OPS, "border:white", "printing's border colour"),
    Keyword("stamp", ("stamp",), "printing", EQUALITY_OPS, "stamp:oval", "printing's security stamp"),
    Keyword(
        "price",
        ("usd", "eur", "tix"),
        "printing",
        NUMERIC_OPS,
        "usd<0.50",
        "printing's lowest price in that currency (nonfoil, foil, etched) as the source file gave it; a printing "
        "without a price never matches (the 2019 dump has prices on 996 printings, the 2024 file on all)",
    ),
    Keyword("watermark", ("wm", "watermark"), "printing", EQUALITY_OPS, "wm:orzhov", "printing's watermark"),
    Keyword(
        "prints",
        ("prints", "sets", "paperprints", "papersets"),
        "card",
        NUMERIC_OPS,
        "sets>12",
        "how many printings (distinct set and collector number, any language) or sets the card has; paperprints/"
        "papersets count those printed on paper",
    ),
    Keyword(
        "oracleid",
        ("oracleid",),
        "card",
        EQUALITY_OPS,
        "oracleid:4457ed35-7c10-48c8-9776-456485fdf070",
        "the card with this Oracle id (what every card object's prints_search_uri asks for)",
    ),
    Keyword(
        "unique",
        ("unique",),
        "display",
        EQUALITY_OPS,
        "unique:prints",
        "cards (one row per card), prints (every printing), art (one per card and artist)",
    ),
    Keyword(
        "order",
        ("order", "sort"),
        "display",
        EQUALITY_OPS,
        "order:cmc",
        "name, cmc, power, toughness, set, released, rarity, color, edhrec, artist",
    ),
    Keyword("direction", ("direction", "dir"), "display", EQUALITY_OPS, "direction:desc", "asc or desc"),
    Keyword(
        "include",
        ("include",),
        "display",
        EQUALITY_OPS,
        "include:extras",
        "show tokens, emblems, planes, schemes, vanguards, art cards (hidden by default)",
        reveals_extras=True,
    ),
)

#: Scryfall's land cycles (is:shockland ...); the compiler defines each by its rules text.
LAND_CYCLES = (
    "dual",
    "shockland",
    "fetchland",
    "checkland",
    "painland",
    "fastland",
    "slowland",
    "tangoland",
    "battleland",
    "scryland",
    "surveilland",
    "gainland",
    "bounceland",
    "filterland",
    "canopyland",
    "creatureland",
    "manland",
    "triland",
    "storageland",
    "shadowland",
    "bikeland",
    "cycleland",
    "pathway",
)

#: is:/not:/has: values: value -> (level, family of the predicate). The compiler has the SQL for each.
IS_VALUES: dict[str, Level] = {
    "split": "card",
    "flip": "card",
    "transform": "card",
    "tdfc": "card",
    "meld": "card",
    "mdfc": "card",
    "dfc": "card",
    "adventure": "card",
    "leveler": "card",
    "saga": "card",
    "meldpart": "card",
    "meldresult": "card",
    "class": "card",
    "case": "card",
    "prototype": "card",
    "mutate": "card",
    "permanent": "card",
    "spell": "card",
    "historic": "card",
    "party": "card",
    "outlaw": "card",
    "commander": "card",
    "brawler": "card",
    "oathbreaker": "card",
    "reserved": "card",
    "funny": "card",
    "token": "card",
    "emblem": "card",
    "extra": "card",
    "vanilla": "card",
    "frenchvanilla": "card",
    "bear": "card",
    "hybrid": "card",
    "phyrexian": "card",
    "partner": "card",
    "companion": "card",
    "modal": "card",
    "interchangeable": "card",
    "token-maker": "card",
    "tokenmaker": "card",
    "reprint": "printing",
    "firstprint": "printing",
    "digital": "printing",
    "promo": "printing",
    "indicator": "card",
    "flavorname": "printing",
    "flavor_name": "printing",
    **dict.fromkeys(LAND_CYCLES, "card"),
}
#: The values has: takes (the rest of IS_VALUES are is:/not: values only).
HAS_VALUES = frozenset({"indicator", "flavorname", "flavor_name"})
#: is: values that show what is hidden by default.
IS_REVEALS = frozenset({"token", "emblem", "extra"})

#: Type-line words of what Scryfall hides by default: t:<one of these> shows them (CR 108.2: not cards).
EXTRA_TYPES = ("token", "emblem", "plane", "phenomenon", "scheme", "vanguard", "dungeon", "card", "conspiracy")

#: Scryfall keywords this database cannot answer, with why (docs/search.md lists them).
UNSUPPORTED: dict[str, str] = {
    "cheapest": "needs every printing's price in every currency at once; use usd/eur/tix",
    "art": "tagger tags (Scryfall's Tagger project) are not in the bulk data",
    "atag": "tagger tags are not in the bulk data",
    "arttag": "tagger tags are not in the bulk data",
    "function": "tagger tags are not in the bulk data",
    "otag": "tagger tags are not in the bulk data",
    "oracletag": "tagger tags are not in the bulk data",
    "cube": "cube lists are not in the database",
    "frame": "frames and frame effects are not stored",
    "new": "needs per-printing history Scryfall computes",
    "devotion": "devotion search is not implemented",
    "prefer": "preferred-printing choice is fixed (English, paper, non-promo, newest)",
    "display": "display options belong to Scryfall's web page",
    "b": "blocks are not in the bulk data",
    "block": "blocks are not in the bulk data",
    "g": "set groups are not in the bulk data",
    "group": "set groups are not in the bulk data",
    "illustrations": "illustration ids are not stored",
    "artists": "only one artist per printing is stored",
    "lore": "lore search is not implemented",
    "spellpower": "not a Scryfall keyword we answer",
}

BY_NAME: dict[str, Keyword] = {name: kw for kw in KEYWORDS for name in kw.names}


def supported_names() -> list[str]:
    """Every supported keyword spelling, for error messages."""
    return sorted(BY_NAME)
