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

from oracle_tools.text.oracletext import CREATURE_OFF_THE_BATTLEFIELD_PATTERN

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
    reference: str = ""  # the Comprehensive Rules rule or Scryfall page it follows
    refused: str = ""  # why this database cannot answer it: the one line a search naming it says
    regex: bool = False  # takes a /regular expression/ as its value (name:/^goblin/)


KEYWORDS: tuple[Keyword, ...] = (
    Keyword(
        "name",
        ("name",),
        "card",
        EQUALITY_OPS,
        'name:"lim-dul"',
        'part of the card\'s name (accent- and case-insensitive); bare words and "phrases" mean the same; '
        '!name or !"a name" is the exact name (or a face\'s); name:/regex/',
        regex=True,
    ),
    Keyword(
        "type",
        ("t", "type"),
        "card",
        EQUALITY_OPS,
        "t:goblin",
        "part of the type line of any face (partial words allowed); t:/regex/",
        regex=True,
    ),
    Keyword(
        "oracle",
        ("o", "oracle"),
        "card",
        EQUALITY_OPS,
        'o:"draw a card"',
        "Oracle text of any face without reminder text; ~ stands for the card's (face's) name or its \"this "
        'creature"; o:/regex/',
        regex=True,
    ),
    Keyword(
        "fulloracle",
        ("fo", "fulloracle"),
        "card",
        EQUALITY_OPS,
        "fo:flash",
        "full Oracle text of any face, reminder text included; fo:/regex/",
        regex=True,
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
        "colours of mana the card can produce (same operators as c:); c is colourless mana ({C}), produces:c; a "
        "card whose files predate Scryfall's produced_mana (the 2019 dump's) is counted as not judged",
    ),
    Keyword(
        "mana",
        ("m", "mana"),
        "card",
        NUMERIC_OPS,
        "m:2WW",
        "mana cost symbols: m:2WW / mana:{G}{U} at least these, m= exactly, m>3WU more, m<= only some of them; "
        "generic mana compares as an amount; split symbols in braces ({R/P}, {2/G}; halves in either order)",
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
        "unknown format is an error, not an empty answer; a card whose files predate the format (the 2019 dump "
        "has no pioneer) is counted as not judged",
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
        "has ever been printed in this set (or set type), rarity, language or game, or in a booster (in:booster) — "
        "not the printing shown; a set code or type the database does not know is said in one line, not answered "
        "with no card",
    ),
    Keyword(
        "set",
        ("s", "set", "e", "edition"),
        "printing",
        EQUALITY_OPS,
        "s:m19",
        "printing's set code (a code the database holds no printing of is said in one line, naming the set where "
        "the shipped set table knows it; negated, it excludes nothing)",
        reveals_extras=True,
    ),
    Keyword(
        "settype",
        ("st", "settype"),
        "printing",
        EQUALITY_OPS,
        "st:core",
        "printing's set type: its file's, else the shipped set table's (the 2019 dump's objects have none)",
    ),
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
        "artists",
        ("artists",),
        "printing",
        NUMERIC_OPS,
        "artists>1",
        'how many artists the printing credits (Scryfall\'s artist field names them joined by " & ", as its '
        "artist_ids lists them; a card whose faces have different artists counts them all); a printing whose file "
        "names no artist is counted as not judged",
        reference="scryfall.com/docs/syntax, Artist, Flavor Text and Watermark",
    ),
    Keyword(
        "lore",
        ("lore",),
        "printing",
        EQUALITY_OPS,
        "lore:mishra",
        "the story a printing tells: its card's name (accent-, case- and punctuation-insensitive, as name:), type line "
        "or the printing's flavor text (Scryfall's lore: reads name, type line and flavor text)",
        reference="Scryfall's lore: (its syntax page does not list it)",
    ),
    Keyword(
        "flavor",
        ("ft", "flavor"),
        "printing",
        EQUALITY_OPS,
        "ft:mishra",
        "part of the printing's flavor text (any face's; case-insensitive); ft:/regex/",
        regex=True,
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
        "without a price never matches and is counted as not judged (the 2019 dump has prices on 996 printings, the "
        "2024 file on all; the sample keeps none, and refuses the term)",
    ),
    Keyword(
        "cheapest",
        ("cheapest",),
        "printing",
        EQUALITY_OPS,
        "cheapest:usd",
        "the card's cheapest printing in that currency (usd, eur, tix): its lowest price as the source file gave it "
        "is the lowest of the card's printings' (ties all match); a printing without a price in it never matches and "
        "is counted as not judged",
        reference="scryfall.com/docs/syntax, USD/EUR/TIX prices",
    ),
    Keyword("watermark", ("wm", "watermark"), "printing", EQUALITY_OPS, "wm:orzhov", "printing's watermark"),
    Keyword(
        "frame",
        ("frame",),
        "printing",
        EQUALITY_OPS,
        "frame:1997",
        "the printing's frame edition (1993, 1997, 2003, 2015, future) or a frame effect it has (legendary, "
        "colorshifted, showcase, extendedart, etched, …: Scryfall's frame_effects); a printing whose file has no "
        "frame is counted as not judged",
        reference="scryfall.com/docs/api/frames",
    ),
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
        "block",
        ("b", "block"),
        "printing",
        EQUALITY_OPS,
        "b:wwk",
        "printing's block, named by the code of any set in it (b:wwk is the Zendikar block) or by its name: the "
        "printing's own block where its file has one, else the shipped set table's",
        reference="scryfall.com/docs/syntax, Sets and Blocks",
    ),
    Keyword(
        "illustrations",
        ("illustrations",),
        "card",
        NUMERIC_OPS,
        "illustrations>4",
        "how many distinct illustrations (illustration_id) the card's printings have; printings whose file has no "
        "illustration id are counted as not judged",
    ),
    Keyword(
        "new",
        ("new",),
        "printing",
        EQUALITY_OPS,
        "new:art s:m19",
        "new:art, new:artist, new:rarity, new:frame, new:flavor, new:language: a printing whose illustration, artist, "
        "rarity, frame, flavor text or language no earlier printing of the card had (printings of the first day with "
        "it all count)",
    ),
    Keyword(
        "devotion",
        ("devotion",),
        "card",
        NUMERIC_OPS,
        "devotion:{g}{g}{g}",
        "permanent cards whose mana cost gives at least (devotion: or >=) / exactly (=) … this devotion: "
        "devotion:{u}{u}{u} three blue symbols, devotion:{u/b}{u/b}{u/b} three symbols that are blue, black or both; "
        "hybrid symbols count for each of their colours",
        reference="CR 700.5",
    ),
    Keyword(
        "prefer",
        ("prefer",),
        "display",
        EQUALITY_OPS,
        "prefer:oldest",
        "which printing stands for a card (unique=cards): oldest, newest, usd-low, usd-high, eur-low, eur-high, "
        "tix-low, tix-high, promo, ub/universesbeyond (the triangle security stamp), notub/notuniversesbeyond; "
        "then the usual preference",
    ),
    Keyword(
        "unique",
        ("unique",),
        "display",
        EQUALITY_OPS,
        "unique:prints",
        "cards (one row per card), prints (every printing), art (one per illustration: illustration_id, else the artist where the file has no illustration id)",
    ),
    Keyword(
        "order",
        ("order", "sort"),
        "display",
        EQUALITY_OPS,
        "order:cmc",
        "name, cmc, power, toughness, set, released, rarity, color, edhrec, penny (Penny Dreadful rank, unranked "
        "last), artist, usd, eur, tix (lowest known price, no price last)",
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

# -- is:/not:/has: values ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class IsValue:
    """One ``is:``/``not:`` (or ``has:``) value: its spellings (the first canonical), the level it is evaluated at,
    its SQL over ``c`` (cards; ``f`` a face inside ``any_face``) and ``p`` (printings, printing level only), the rule
    or page it follows and an example (default ``is:NAME``). ``refused``: why this database cannot answer it (the
    one line the search says). ``unknown``: SQL over ``p`` true where the printing's data cannot say (a file that
    predates the field): the search counts those printings as not judged (:func:`oracle_tools.search.cannot_judge`)."""

    names: tuple[str, ...]
    level: Level
    sql: str
    reference: str = ""
    keyword: Literal["is", "has"] = "is"
    reveals_extras: bool = False
    example: str = ""
    refused: str = ""
    unknown: str = ""
    data: str = ""  # the data ``unknown`` lacks, named in the line a database without any of it says

    @property
    def query(self) -> str:
        return self.example or f"{self.keyword}:{self.names[0]}"


_FRONT = "f.face_index = (SELECT min(g.face_index) FROM faces g WHERE g.oracle_id = c.oracle_id)"
_CHARACTERISTIC_ROLES = (
    "('single', 'split_half', 'aftermath_half', 'flip_top', 'front', 'meld_part', 'adventurer', 'omen_card')"
)


def any_face(test: str) -> str:
    return f"EXISTS (SELECT 1 FROM faces f WHERE f.oracle_id = c.oracle_id AND {test})"


#: A land face's Oracle text with its own name (and "this land") written as '~', for the land cycles below.
_LAND_TEXT = (
    "regexp_replace(replace(replace(coalesce(f.oracle_text, ''), c.name, '~'), f.name, '~'), "
    "'(?i)\\bthis land\\b', '~', 'g')"
)
_ETB_TAPPED = "~ enters (the battlefield )?tapped"
_BASIC_TYPES = "['Plains', 'Island', 'Swamp', 'Mountain', 'Forest']"


def _land(*patterns: str, extra: str = "") -> str:
    """A face that is a land (CR 305) whose text (self-references as '~') matches every pattern."""
    tests = " AND ".join(f"regexp_matches({_LAND_TEXT}, '{p}')" for p in patterns)
    return any_face(f"list_contains(f.card_types, 'Land') AND {tests}{extra}")


def _basic_types(n: int) -> str:
    return f" AND len(list_intersect(f.subtypes, {_BASIC_TYPES})) = {n}"


_CYCLES_REF = "Scryfall's land cycles (scryfall.com/docs/syntax), by the rules text and types that define each"


#: Every is:/not:/has: value, one row each.
IS_TABLE: tuple[IsValue, ...] = (
    IsValue(("split",), "card", "c.layout = 'split'", reference="layout split (CR 709)"),
    IsValue(("flip",), "card", "c.layout = 'flip'", reference="layout flip (CR 710)"),
    IsValue(("transform", "tdfc"), "card", "c.layout = 'transform'", reference="layout transform (CR 712)"),
    IsValue(("meld",), "card", "c.layout = 'meld'", reference="layout meld (CR 712.4, 701.42)"),
    IsValue(("mdfc",), "card", "c.layout = 'modal_dfc'", reference="layout modal_dfc (CR 712)"),
    IsValue(
        ("dfc",),
        "card",
        "c.layout IN ('transform', 'modal_dfc', 'meld', 'double_faced_token', 'reversible_card')",
        reference="a double-faced layout (CR 712)",
    ),
    IsValue(("adventure",), "card", "c.layout = 'adventure'", reference="layout adventure (CR 715)"),
    IsValue(("leveler",), "card", "c.layout = 'leveler'", reference="layout leveler (CR 711)"),
    IsValue(("class",), "card", "c.layout = 'class'", reference="layout class (CR 716)"),
    IsValue(("case",), "card", "c.layout = 'case'", reference="layout case (CR 719)"),
    IsValue(("prototype",), "card", "c.layout = 'prototype'", reference="layout prototype (CR 718)"),
    IsValue(
        ("mutate",),
        "card",
        "c.layout = 'mutate' OR list_contains(coalesce(c.keywords, []), 'Mutate')",
        reference="mutate (CR 702.140)",
    ),
    IsValue(
        ("saga",),
        "card",
        "c.layout = 'saga' OR " + any_face("list_contains(f.subtypes, 'Saga')"),
        reference="a Saga (CR 714)",
    ),
    IsValue(("meldpart",), "card", any_face("f.role = 'meld_part'"), reference="a meld pair's half (CR 712.4)"),
    IsValue(
        ("meldresult",), "card", any_face("f.role = 'meld_result'"), reference="a melded permanent's back (CR 712.4)"
    ),
    IsValue(
        ("permanent",),
        "card",
        "c.is_card AND "
        + any_face(
            f"f.role IN {_CHARACTERISTIC_ROLES} AND list_has_any(f.card_types, "
            "['Artifact', 'Battle', 'Creature', 'Enchantment', 'Land', 'Planeswalker'])"
        ),
        reference="CR 110.4a: a permanent card is judged by the characteristics it has outside the battlefield (the front face / top half / the creature part of an adventurer; both halves of a split card).",
    ),
    IsValue(
        ("spell",),
        "card",
        "c.is_card AND "
        + any_face(
            "(f.role IN ('single', 'split_half', 'aftermath_half', 'flip_top', 'front', 'meld_part', 'adventurer', "
            "'adventure', 'omen_card', 'omen') OR (f.role = 'back' AND f.layout = 'modal_dfc')) AND NOT list_contains(f.card_types, 'Land')"
        ),
        reference="Cast as a spell: a castable face (front, split half, adventure, either face of a modal DFC) that is not a land (CR 305.9: a land can't be cast).",
    ),
    IsValue(
        ("historic",),
        "card",
        any_face(
            "(list_contains(f.supertypes, 'Legendary') OR list_contains(f.card_types, 'Artifact') "
            "OR list_contains(f.subtypes, 'Saga'))"
        ),
        reference="CR 700.6: legendary, artifact or Saga.",
    ),
    IsValue(
        ("party",),
        "card",
        any_face(
            "list_contains(f.card_types, 'Creature') AND list_has_any(f.subtypes, ['Cleric', 'Rogue', 'Warrior', 'Wizard'])"
        ),
        reference="CR 700.8: party = Cleric, Rogue, Warrior, Wizard creatures",
    ),
    IsValue(
        ("outlaw",),
        "card",
        any_face("list_has_any(f.subtypes, ['Assassin', 'Mercenary', 'Pirate', 'Rogue', 'Warlock'])"),
        reference="CR 700.12: Assassin, Mercenary, Pirate, Rogue, Warlock",
    ),
    IsValue(
        ("commander",),
        "card",
        "c.is_card AND ("
        + any_face(
            f"{_FRONT} AND list_contains(f.supertypes, 'Legendary') AND (list_contains(f.card_types, 'Creature') "
            "OR list_contains(f.subtypes, 'Vehicle') OR (list_contains(f.subtypes, 'Spacecraft') AND f.power IS NOT NULL))"
        )
        + " OR regexp_matches(coalesce(c.oracle_text, ''), '(?i)\\bcan be your commander\\b')"
        # CR 113.6c: "As long as Grist isn't on the battlefield, it's a 1/1 Insect creature ..." (as decks/cardrules.py)
        + " OR (c.type_line LIKE 'Legendary%' AND regexp_matches(coalesce(c.oracle_text, ''), "
        + "'(?im)"
        + CREATURE_OFF_THE_BATTLEFIELD_PATTERN.replace("'", "''")
        + "')))",
        reference="CR 903.3 / 903.3a (the rule oracle_tools/decks/checker.py applies): a legendary creature, Vehicle or Spacecraft with power/toughness on the front face, or text saying it can be your commander.",
    ),
    IsValue(
        ("brawler",),
        "card",
        "c.is_card AND ("
        + any_face(
            f"{_FRONT} AND list_contains(f.supertypes, 'Legendary') AND (list_contains(f.card_types, 'Creature') "
            "OR list_contains(f.card_types, 'Planeswalker') OR list_contains(f.subtypes, 'Vehicle') "
            "OR (list_contains(f.subtypes, 'Spacecraft') AND f.power IS NOT NULL))"
        )
        + " OR regexp_matches(coalesce(c.oracle_text, ''), '(?i)\\bcan be your commander\\b'))",
        reference="Brawl's commander: a legendary creature or planeswalker (Brawl's rules; the creature side as is:commander, CR 903.3), or a card that says it can be your commander.",
    ),
    IsValue(
        ("oathbreaker",),
        "card",
        "c.is_card AND " + any_face(f"{_FRONT} AND list_contains(f.card_types, 'Planeswalker')"),
        reference="Oathbreaker's oathbreaker: a planeswalker card (its front face).",
    ),
    IsValue(
        ("reserved",), "card", "coalesce(c.reserved, false)", reference="the card's reserved flag (Scryfall's reserved)"
    ),
    IsValue(
        ("funny",),
        "card",
        "coalesce(c.funny, false)",
        reference="Un-cards, holiday cards (Scryfall's funny: set type funny, silver border, acorn stamp)",
    ),
    IsValue(("token",), "card", "c.object_kind = 'token'", reveals_extras=True, reference="a token (CR 111)"),
    IsValue(("emblem",), "card", "c.object_kind = 'emblem'", reveals_extras=True, reference="an emblem (CR 114)"),
    IsValue(
        ("extra",),
        "card",
        "NOT c.is_card",
        reveals_extras=True,
        reference="not a card of the Oracle reference (CR 108.2): tokens, emblems, planes, schemes …",
    ),
    IsValue(
        ("vanilla",),
        "card",
        "c.is_card AND "
        + any_face("list_contains(f.card_types, 'Creature')")
        + " AND coalesce(c.oracle_text, '') = ''",
        reference="a creature with no rules text",
    ),
    IsValue(
        ("frenchvanilla",),
        "card",
        "c.is_card AND "
        + any_face("list_contains(f.card_types, 'Creature')")
        # the regular expressions only for texts that can pass: keywords, and no '.', '—' or ':' but in reminder text
        + " AND CASE WHEN coalesce(c.oracle_text, '') <> '' AND len(coalesce(c.keywords, [])) > 0 AND (contains("
        "c.oracle_text, '(') OR NOT (contains(c.oracle_text, '.') OR contains(c.oracle_text, '—') OR contains("
        "c.oracle_text, ':'))) THEN NOT regexp_matches("
        "regexp_replace(c.oracle_text, '\\([^)]*\\)', '', 'g'), '[.—:]') AND list_bool_and(list_transform(list_filter("
        "string_split_regex(regexp_replace(c.oracle_text, ' ?\\([^)]*\\)', '', 'g'), '\\n|, |; '), lambda x: x <> ''), "
        "lambda x: NOT contains(x, '.') AND NOT contains(x, '—') AND list_bool_or(list_transform(c.keywords, "
        "lambda k: lower(x) = lower(k) OR starts_with(lower(x), lower(k) || ' '))))) ELSE false END",
        reference='A creature whose rules text is keyword abilities only (CR 702; Scryfall\'s "French vanilla"): every line, reminder text removed, is a list of the card\'s keywords, each alone or with its cost or number ("Bushido 1", "Protection from red"); an ability word\'s line ("Revolt — ...") is not a keyword ability.',
    ),
    IsValue(
        ("bear",),
        "card",
        "c.cmc = 2 AND " + any_face("list_contains(f.card_types, 'Creature') AND f.power = '2' AND f.toughness = '2'"),
        reference="a 2/2 creature with mana value 2",
    ),
    IsValue(
        ("hybrid",),
        "card",
        "regexp_matches(coalesce(c.mana_cost, ''), '\\{[WUBRGC2]/[WUBRG](/P)?\\}')",
        reference="a hybrid mana symbol in its cost (CR 107.4e), a hybrid Phyrexian one ({G/U/P}, CR 107.4f) too",
    ),
    IsValue(
        ("phyrexian",),
        "card",
        "regexp_matches(coalesce(c.mana_cost, ''), '/P\\}')",
        reference="a Phyrexian mana symbol in its cost (CR 107.4f)",
    ),
    IsValue(
        ("partner",),
        "card",
        "list_contains(coalesce(c.keywords, []), 'Partner') OR "
        "regexp_matches(coalesce(c.oracle_text, ''), '(?m)^Partner( with|—|\\b)')",
        reference="partner or partner with (CR 702.124)",
    ),
    IsValue(
        ("companion",),
        "card",
        # CR 702.139a: written "Companion—[Condition]" (Oracle text spaces the dash): its line, for a database whose
        # keyword lists an older ingest derived without it
        "list_contains(coalesce(c.keywords, []), 'Companion') "
        "OR regexp_matches(coalesce(c.oracle_text, ''), '(?m)^Companion ?—')",
        reference="companion (CR 702.139a: a card whose text has a Companion—[Condition] line)",
    ),
    IsValue(
        ("modal",),
        "card",
        # CR 700.2: "two or more options in a bulleted list preceded by instructions for a player to choose a number
        # of those options": "Choose one —", "Choose three. You may choose the same mode more than once.", "An
        # opponent chooses one —", "choose up to one —" before a bullet; CR 702.172a: spree's modes (+ lines); CR
        # 700.2i: pawprint modes ("{P} worth of modes")
        "(regexp_matches(coalesce(c.oracle_text, ''), '(?i)choose (one|two|three|four|any number|one or more)"
        " (or (more|both))? ?—') OR regexp_matches(coalesce(c.oracle_text, ''), "
        "'(?i)\\bchooses? (up to )?(one|two|three|four|five|x|any number|both)\\b[^\\n]*\\n•') "
        "OR regexp_matches(coalesce(c.oracle_text, ''), '(?m)^Spree\\b|(?i)\\bworth of modes\\b'))",
        reference='"choose one —" and the like before bulleted modes (CR 700.2), spree (CR 702.172a) and pawprint '
        "modes (CR 700.2i)",
    ),
    IsValue(
        ("interchangeable",),
        "card",
        "c.oracle_id IN (SELECT k.oracle_id FROM name_classes k WHERE k.class_id IN "
        "(SELECT class_id FROM name_classes GROUP BY class_id HAVING count(DISTINCT name) > 1))",
        reference="CR 201.3: the card's name is in a class of interchangeable names (the name_classes table, derived from the English printed names of its printings).",
    ),
    IsValue(
        ("token-maker", "tokenmaker"),
        "card",
        "c.oracle_id IN (SELECT creator_oracle_id FROM token_specs)",
        reference='Its Oracle text creates tokens (the tokens layer\'s parsed "create … token" clauses, CR 111.1).',
    ),
    IsValue(
        ("indicator",),
        "card",
        "len(coalesce(c.color_indicator, [])) > 0 OR " + any_face("len(coalesce(f.color_indicator, [])) > 0"),
        keyword="has",
        reference="a colour indicator (CR 204)",
    ),
    IsValue(("reprint",), "printing", "p.released_at > c.first_released", reference="printing facts"),
    IsValue(
        ("firstprint",),
        "printing",
        "p.released_at <= c.first_released",
        reference="the card's first printing(s): released on the day the card first was (its earliest printing's date)",
    ),
    IsValue(
        ("digital",),
        "printing",
        "coalesce(p.digital, false)",
        reference="a digital-only printing (Scryfall's digital)",
        unknown="p.digital IS NULL",  # the foreign printings file does not say
        data="digital",
    ),
    IsValue(
        ("promo",),
        "printing",
        "coalesce(p.promo, false)",
        reference="a promotional printing (Scryfall's promo)",
        unknown="p.promo IS NULL",
        data="promo",
    ),
    IsValue(
        ("flavorname", "flavor_name"),
        "printing",
        "(p.flavor_name IS NOT NULL OR len(list_filter(coalesce(p.face_flavor_names, []), lambda x: x IS NOT NULL)) > 0)",
        reference="CR 201.6: a printing with an alternate (flavor) name",
        keyword="has",
    ),
    IsValue(
        ("dual",),
        "card",
        _land("^(\\([^)]*\\))?$", extra=_basic_types(2) + " AND NOT list_contains(f.supertypes, 'Basic')"),
        reference=_CYCLES_REF
        + "; the original duals: two basic land types (CR 305.7 gives the mana ability) and no other rules text.",
    ),
    IsValue(
        ("shockland",),
        "card",
        _land("you may pay 2 life\\. If you don.t, it enters (the battlefield )?tapped", extra=_basic_types(2)),
        reference=_CYCLES_REF,
    ),
    IsValue(
        ("fetchland",),
        "card",
        _land("\\{T\\}, Pay 1 life, Sacrifice ~: Search your library for an? \\w+ or \\w+ card"),
        reference=_CYCLES_REF,
    ),
    IsValue(
        ("checkland",),
        "card",
        _land(
            _ETB_TAPPED + " unless you control an? (Plains|Island|Swamp|Mountain|Forest) or an? "
            "(Plains|Island|Swamp|Mountain|Forest)\\."
        ),
        reference=_CYCLES_REF,
    ),
    IsValue(
        ("painland",),
        "card",
        _land("\\{T\\}: Add \\{[WUBRG]\\} or \\{[WUBRG]\\}\\. ~ deals 1 damage to you\\."),
        reference=_CYCLES_REF,
    ),
    IsValue(
        ("fastland",),
        "card",
        _land(_ETB_TAPPED + " unless you control two or fewer other lands"),
        reference=_CYCLES_REF,
    ),
    IsValue(
        ("slowland",), "card", _land(_ETB_TAPPED + " unless you control two or more other lands"), reference=_CYCLES_REF
    ),
    IsValue(
        ("tangoland", "battleland"),
        "card",
        _land(_ETB_TAPPED + " unless you control two or more basic lands"),
        reference=_CYCLES_REF,
    ),
    IsValue(
        ("scryland",),
        "card",
        _land(
            _ETB_TAPPED, "When ~ enters( the battlefield)?, scry 1\\.", "\\{T\\}: Add \\{[WUBRG]\\} or \\{[WUBRG]\\}"
        ),
        reference=_CYCLES_REF,
    ),
    IsValue(
        ("surveilland",),
        "card",
        _land(_ETB_TAPPED, "When ~ enters( the battlefield)?, surveil 1\\."),
        reference=_CYCLES_REF,
    ),
    IsValue(
        ("gainland",),
        "card",
        _land(_ETB_TAPPED, "When ~ enters( the battlefield)?, you gain 1 life\\.", "\\{T\\}: Add \\{[WUBRG]\\} or"),
        reference=_CYCLES_REF,
    ),
    IsValue(
        (
            "bounceland",
            "karoo",
        ),
        "card",
        _land(_ETB_TAPPED, "When ~ enters( the battlefield)?, return a land you control to its owner.s hand"),
        reference=_CYCLES_REF,
    ),
    IsValue(
        ("filterland",),
        "card",
        _land(
            "(\\{[WUBRG]/[WUBRG]\\}, \\{T\\}: Add \\{[WUBRG]\\}\\{[WUBRG]\\}, "
            "|^\\{T\\}: Add \\{C\\}\\.\\n\\{1\\}, \\{T\\}: Add \\{[WUBRG]\\}\\{[WUBRG]\\}\\.$)"
        ),
        reference=_CYCLES_REF,
    ),
    IsValue(
        (
            "canopyland",
            "canland",
        ),
        "card",
        _land(
            "\\{T\\}, Pay 1 life: Add \\{[WUBRG]\\} or \\{[WUBRG]\\}\\.",
            "\\{1\\}, \\{T\\}, Sacrifice ~: Draw a card\\.",
        ),
        reference=_CYCLES_REF,
    ),
    IsValue(("creatureland", "manland"), "card", _land("~ becomes an? [^.]*creature"), reference=_CYCLES_REF),
    IsValue(
        ("triland",),
        "card",
        _land(_ETB_TAPPED, "\\{T\\}: Add \\{[WUBRG]\\}, \\{[WUBRG]\\}, or \\{[WUBRG]\\}\\.", extra=_basic_types(0)),
        reference=_CYCLES_REF,
    ),
    IsValue(("storageland",), "card", _land("storage counter"), reference=_CYCLES_REF),
    IsValue(
        (
            "shadowland",
            "snarl",
        ),
        "card",
        _land(
            "you may reveal an? (Plains|Island|Swamp|Mountain|Forest) or (Plains|Island|Swamp|Mountain|Forest) card from "
            "your hand\\. If you don.t, ~ enters (the battlefield )?tapped"
        ),
        reference=_CYCLES_REF,
    ),
    IsValue(
        ("bikeland", "cycleland", "bicycleland"),
        "card",
        _land(_ETB_TAPPED, "(?m)^Cycling \\{2\\}", extra=_basic_types(2)),
        reference=_CYCLES_REF,
    ),
    IsValue(
        ("bondland", "crowdland", "bbdland", "battlebondland"),
        "card",
        _land(_ETB_TAPPED + " unless you have two or more opponents"),
        reference=_CYCLES_REF,
    ),
    IsValue(
        ("tricycleland", "trikeland", "triome"),
        "card",
        _land(_ETB_TAPPED, "(?m)^Cycling \\{3\\}", extra=_basic_types(3)),
        reference=_CYCLES_REF,
    ),
    IsValue(
        ("pathway",),
        "card",
        "c.layout = 'modal_dfc' AND NOT EXISTS (SELECT 1 FROM faces f WHERE f.oracle_id = c.oracle_id "
        "AND NOT list_contains(f.card_types, 'Land'))",
        reference=_CYCLES_REF + "; a modal DFC whose faces are both lands, each tapping for one colour.",
    ),
)


def _of_set_type(set_type: str) -> str:
    """A printing of this set type: its own set_type, else (the 2019 dump's objects carry none) the shipped set
    table's (oracle_tools/data/sets.csv) for its set code, written as literals: the codes are the package's."""
    import re

    from oracle_tools.scryfall.sets import shipped_codes_of_type

    codes = [c for c in shipped_codes_of_type(set_type) if re.fullmatch(r"\w+", c)]
    listed = ", ".join(f"'{code}'" for code in codes) or "NULL"
    return f"coalesce(p.set_type = '{set_type}' OR (p.set_type IS NULL AND p.set_code IN ({listed})), false)"


#: Printing facts of the kept Scryfall objects (the printings table's columns; NULL where a file lacks the field).
_SCRYFALL_SHAPE = "p.frame IS NULL"  # not a full Scryfall object (the foreign printings file): no frame, art or mark
_FINISHES_DATA = "finishes (or foil/nonfoil)"
_PRINTING_FACTS: tuple[IsValue, ...] = (
    *(
        IsValue(
            (finish,),
            "printing",
            f"list_contains(p.finishes, '{finish}')",
            reference=f"Scryfall's finishes: available in {finish}",
            unknown="p.finishes IS NULL",
            data=_FINISHES_DATA,
        )
        for finish in ("foil", "nonfoil", "etched", "glossy")
    ),
    IsValue(
        ("full", "fullart"),
        "printing",
        "p.full_art",
        reference="Scryfall's full_art: the artwork covers the frame",
        unknown=_SCRYFALL_SHAPE,
        data="full_art",
    ),
    IsValue(
        ("textless",),
        "printing",
        "p.textless",
        reference="Scryfall's textless",
        unknown="p.textless IS NULL",
        data="textless",
    ),
    IsValue(
        ("booster",),
        "printing",
        "p.booster",
        reference="Scryfall's booster: found in the set's boosters",
        unknown="p.booster IS NULL",
        data="booster",
    ),
    IsValue(
        ("spotlight",),
        "printing",
        "p.story_spotlight",
        reference="Scryfall's story_spotlight",
        unknown=_SCRYFALL_SHAPE,
        data="story_spotlight",
    ),
    IsValue(
        ("hires",),
        "printing",
        "p.highres_image",
        reference="Scryfall's highres_image",
        unknown="p.highres_image IS NULL",
        data="highres_image",
    ),
    IsValue(
        ("scryfallpreview",),
        "printing",
        "p.scryfall_preview",
        reference="previewed on Scryfall: the printing's preview (Scryfall's preview object) names Scryfall as its "
        "source and links the preview; a printing nobody previewed, or another site did, is not",
        # Scryfall leaves preview out of a card nobody previewed: a file without it on any object cannot say
        unknown="p.scryfall_preview IS NULL",
        data="preview",
    ),
    IsValue(
        ("colorshifted",),
        "printing",
        "list_contains(p.frame_effects, 'colorshifted')",
        reference="the colorshifted frame effect (Scryfall's frame_effects)",
        unknown="p.frame_effects IS NULL",
        data="frame_effects",
    ),
    IsValue(
        ("showcase",),
        "printing",
        "list_contains(p.frame_effects, 'showcase')",
        reference="the showcase frame effect, a set's custom frame (Scryfall's frame_effects)",
        unknown="p.frame_effects IS NULL",
        data="frame_effects",
    ),
    IsValue(
        ("new",),
        "printing",
        "p.frame = '2015'",
        reference="the 2015 holofoil-stamp frame (Scryfall: is:new)",
        example="is:new r:mythic",
        unknown=_SCRYFALL_SHAPE,
        data="frame",
    ),
    IsValue(
        ("old",),
        "printing",
        "p.frame IN ('1993', '1997')",
        reference="the 1993 or 1997 classic frame (Scryfall: is:old)",
        example="is:old t:artifact",
        unknown=_SCRYFALL_SHAPE,
        data="frame",
    ),
    IsValue(
        ("watermark",),
        "printing",
        "p.watermark IS NOT NULL",
        reference="Scryfall's watermark (left out of an object without one)",
        keyword="has",
        unknown=_SCRYFALL_SHAPE,
        data="watermark",
    ),
    IsValue(
        ("masterpiece",),
        "printing",
        _of_set_type("masterpiece"),
        reference="a printing of a masterpiece set (its file's set type, else the shipped set table's)",
    ),
    IsValue(
        ("gamechanger",),
        "card",
        "coalesce(c.game_changer, false)",
        reference="Scryfall's game_changer: the Commander Game Changers list",
        unknown="c.game_changer IS NULL",
        data="game_changer",
    ),
    IsValue(
        ("universesbeyond", "ub"),
        "printing",
        "coalesce(p.security_stamp = 'triangle', false)",
        reference="a Universes Beyond printing: the triangle security stamp (Scryfall's stamp:triangle)",
        # Scryfall leaves security_stamp out when there is none; objects of the API before it (no promo_types) cannot say
        unknown="p.promo_types IS NULL",
        data="security_stamp",
    ),
    IsValue(
        ("alchemy",), "printing", "p.set_type = 'alchemy'", reference="an Arena Alchemy printing (set type alchemy)"
    ),
    *(
        IsValue((name,), "printing", "", reference="Scryfall's syntax page", refused=why)
        for name, why in (
            ("default", "Scryfall's own classification of default and atypical frames is not in the bulk data"),
            ("atypical", "Scryfall's own classification of default and atypical frames is not in the bulk data"),
            ("newinpauper", "needs the history of Pauper legality, which the bulk data does not keep"),
            ("duelcommander", "Duel Commander's commander list is not in the bulk data"),
        )
    ),
    IsValue(
        ("unique",),
        "card",
        # counted at ingest (sql/search_faces.sql)
        "c.oracle_id IN (SELECT x.oracle_id FROM card_set_counts x WHERE x.sets = 1)",
        reference="Scryfall: cards that have only been in a single set (sets=1)",
        example="is:unique s:m19",
    ),
    *(
        IsValue(
            (promo, *((spelled,) if spelled != promo else ())),
            "printing",
            f"list_contains(p.promo_types, '{promo}')",
            reference="Scryfall's promo_types",
            unknown="p.promo_types IS NULL",
            data="promo_types",
        )
        for promo, spelled in (
            ("prerelease", "prerelease"),
            ("datestamped", "datestamped"),
            ("release", "release"),
            ("buyabox", "buyabox"),
            ("giftbox", "giftbox"),
            ("intropack", "intro_pack"),
            ("gameday", "gameday"),
            ("fnm", "fnm"),
            ("judgegift", "judge_gift"),
            ("arenaleague", "arena_league"),
            ("playerrewards", "player_rewards"),
            ("mediainsert", "media_insert"),
            ("instore", "instore"),
            ("convention", "convention"),
            ("setpromo", "set_promo"),
            ("planeswalkerdeck", "planeswalker_deck"),
            ("league", "league"),
            ("bundle", "bundle"),
            ("promopack", "promopack"),
            ("boosterfun", "boosterfun"),
            ("serialized", "serialized"),
            ("stamped", "stamped"),
            ("textured", "textured"),
            ("rebalanced", "rebalanced"),  # an Alchemy card rebalanced on Arena ("A-" before its name)
        )
    ),
)
IS_TABLE = IS_TABLE + _PRINTING_FACTS

#: Scryfall's land cycles (is:shockland ...), from the table.
LAND_CYCLES = tuple(name for v in IS_TABLE if v.reference.startswith(_CYCLES_REF) for name in v.names)
#: Every spelling of an is:/has: value -> its row.
IS_BY_NAME: dict[str, IsValue] = {name: v for v in IS_TABLE for name in v.names}
#: The keyword families whose values are rows of IS_TABLE.
IS_FAMILIES = frozenset({"is", "not", "has"})
#: is:/not:/has: values this database answers: value -> level.
IS_VALUES: dict[str, Level] = {name: v.level for name, v in IS_BY_NAME.items() if not v.refused}
#: The values has: takes (the rest are is:/not: values only).
HAS_VALUES = frozenset(name for name, v in IS_BY_NAME.items() if v.keyword == "has")
#: is: values that show what is hidden by default.
IS_REVEALS = frozenset(name for name, v in IS_BY_NAME.items() if v.reveals_extras)


#: Type-line words of what Scryfall hides by default: t:<one of these> shows them (CR 108.2: not cards).
EXTRA_TYPES = ("token", "emblem", "plane", "phenomenon", "scheme", "vanguard", "dungeon", "card", "conspiracy")

#: Scryfall keywords this database cannot answer, each with why: rows of the same table (``refused``), so that a
#: keyword is answered or refused, never unknown.
REFUSED: tuple[Keyword, ...] = (
    Keyword(
        "tagger",
        ("art", "atag", "arttag", "function", "otag", "oracletag"),
        "card",
        EQUALITY_OPS,
        "otag:ramp",
        "Scryfall Tagger's art and Oracle tags",
        reference="scryfall.com/docs/syntax, Tagger Tags",
        refused="tagger tags (Scryfall's Tagger project) are not in the bulk data",
    ),
    Keyword(
        "cube",
        ("cube",),
        "card",
        EQUALITY_OPS,
        "cube:vintage",
        "in a cube list",
        refused="cube lists are not in the database",
    ),
    Keyword(
        "display",
        ("display",),
        "display",
        EQUALITY_OPS,
        "display:text",
        "how the web page shows cards",
        refused="display options belong to Scryfall's web page",
    ),
    Keyword(
        "group",
        ("g", "group"),
        "printing",
        EQUALITY_OPS,
        "g:ice",
        "the printing's set group",
        refused="set groups are not in the bulk data",
    ),
)

#: Each refused keyword spelling -> why (docs/search.md lists them).
UNSUPPORTED: dict[str, str] = {name: kw.refused for kw in REFUSED for name in kw.names}

#: Values of Scryfall's display keywords (its syntax page, "Display Keywords") this database cannot answer, each with
#: why: (keyword, value) -> the line a search naming it says.
REFUSED_DISPLAY: dict[tuple[str, str], str] = {
    ("prefer", "default"): "Scryfall's own classification of default and atypical frames is not in the bulk data",
    ("prefer", "atypical"): "Scryfall's own classification of default and atypical frames is not in the bulk data",
    (
        "order",
        "review",
    ): 'Scryfall\'s review order ("usually color & CMC", Booster Fun last) is not documented as a rule '
    "the bulk data can reproduce",
    ("order", "spoiled"): "Scryfall's spoiled order is not documented as a rule the bulk data can reproduce",
}

BY_NAME: dict[str, Keyword] = {name: kw for kw in KEYWORDS for name in kw.names}
#: The keywords that take a /regular expression/, as a search's error lists them ("name:, t:, o:, fo:, ft:").
REGEX_KEYWORDS = ", ".join(f"{kw.names[0]}:" for kw in KEYWORDS if kw.regex)


def supported_names() -> list[str]:
    """Every supported keyword spelling, for error messages."""
    return sorted(BY_NAME)


def _spellings(kw: Keyword) -> str:
    return ", ".join(f"{name}:" for name in kw.names)


def help_rows() -> list[tuple[str, str]]:
    """``oracle-tools search --help``'s keyword list: (spellings, meaning) per keyword, then the is:/has: values and
    the refused keywords, all from the table."""
    rows = [(_spellings(kw), kw.meaning) for kw in KEYWORDS]
    values = sorted(name for name, v in IS_BY_NAME.items() if not v.refused and v.keyword == "is")
    rows.append(("is:, not: values", ", ".join(values)))
    rows.append(("has: values", ", ".join(sorted(HAS_VALUES))))
    rows += [(_spellings(kw), f"refused: {kw.refused}") for kw in REFUSED]
    refused_values = sorted(name for name, v in IS_BY_NAME.items() if v.refused)
    if refused_values:
        rows.append(("is: refused", ", ".join(refused_values)))
    rows.append(("display refused", ", ".join(f"{k}:{v}" for k, v in REFUSED_DISPLAY)))
    return rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def docs_markdown(part: Literal["keywords", "values", "refused"]) -> str:
    """A part of docs/search.md's keyword list: its cog blocks render it (scripts/doc_examples.py), and
    tests/test_search.py checks the page holds what the table says."""
    if part == "keywords":
        lines = ["| keyword | level | operators | meaning |", "|---|---|---|---|"]
        for kw in KEYWORDS:
            spellings = ", ".join(f"`{name}:`" for name in kw.names)
            ops = " ".join(f"`{op}`" for op in kw.ops)
            lines.append(f"| {spellings} | {kw.level} | {ops} | {_cell(kw.meaning)} |")
    elif part == "values":
        lines = ["| value | level | rule |", "|---|---|---|"]
        for v in IS_TABLE:
            if not v.refused:
                spellings = ", ".join(f"`{v.keyword}:{name}`" for name in v.names)
                lines.append(f"| {spellings} | {v.level} | {_cell(v.reference)} |")
    else:
        lines = ["| keyword | why |", "|---|---|"]
        lines += [f"| {', '.join(f'`{name}:`' for name in kw.names)} | {_cell(kw.refused)} |" for kw in REFUSED]
        lines += [
            f"| {', '.join(f'`{v.keyword}:{name}`' for name in v.names)} | {_cell(v.refused)} |"
            for v in IS_TABLE
            if v.refused
        ]
        lines += [f"| `{keyword}:{value}` | {_cell(why)} |" for (keyword, value), why in REFUSED_DISPLAY.items()]
    return "\n".join(lines)
