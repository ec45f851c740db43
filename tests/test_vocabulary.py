"""oracle_tools.text.vocabulary: the CR 205 word lists, read from the stored Comprehensive Rules, not typed by hand."""

from __future__ import annotations

import re

import duckdb
import pytest

from oracle_tools.store import sqlfiles
from oracle_tools.text import constraints, vocabulary

MACROS = sqlfiles.load("macros.sql")


def _sql_list(macro: str, operator: str) -> set[str]:
    """The quoted words of ``CREATE ... MACRO <macro>(...) ... w <operator> ('A', 'B')``."""
    match = re.search(rf"MACRO {macro}\(tl\) AS\s+.*?w {operator} \((?P<words>[^)]*)\)", MACROS, re.DOTALL)
    assert match, f"{macro} not found in macros.sql"
    return set(re.findall(r"'([^']*)'", match["words"]))


def test_card_types_are_cr_205_2a() -> None:
    # CR 205.2a lists fifteen card types; kindred is the current name of tribal.
    types = vocabulary.card_types()
    assert len(types) == 15
    assert {"Artifact", "Kindred", "Vanguard", "Battle"} <= set(types)
    assert "Tribal" not in types and vocabulary.OBSOLETE_CARD_TYPES == {"Tribal": "Kindred"}


def test_supertypes_are_cr_205_4a_and_macros_sql_agrees() -> None:
    # CR 205.4a: basic, legendary, ongoing, snow, world. Elite and Host (Un-set words) are not among them:
    # macros.sql reads the same list; the stored CR decides.
    assert vocabulary.supertypes() == ("Basic", "Legendary", "Ongoing", "Snow", "World")
    assert _sql_list("supertypes_of", "IN") == set(vocabulary.supertypes())
    # card_types_of drops every supertype (and 'Token', not a card type) from the words before the dash.
    assert set(vocabulary.supertypes()) <= _sql_list("card_types_of", "NOT IN")
    assert not (_sql_list("card_types_of", "NOT IN") & set(vocabulary.card_types()))


def test_macros_split_type_lines_as_the_cr_says() -> None:
    con = duckdb.connect()
    con.execute(MACROS)
    row = con.execute(
        "SELECT supertypes_of(?), card_types_of(?), subtypes_of(?)",
        ["Legendary Snow Artifact Creature — Time Lord Doctor"] * 3,
    ).fetchone()
    assert row == (["Legendary", "Snow"], ["Artifact", "Creature"], ["Time", "Lord", "Doctor"])
    # Host (Unstable) is neither a CR 205.4a supertype nor a CR 205.2a card type.
    assert con.execute(
        "SELECT supertypes_of('Host Creature — Dwarf'), card_types_of('Host Creature — Dwarf')"
    ).fetchone() == ([], ["Creature"])


@pytest.mark.parametrize(
    ("kind", "rule", "member"),
    [
        ("artifact", "205.3g", "Equipment"),
        ("enchantment", "205.3h", "Aura"),
        ("land", "205.3i", "Urza’s"),
        ("planeswalker", "205.3j", "Jace"),
        ("spell", "205.3k", "Adventure"),
        ("creature", "205.3m", "Time Lord"),
        ("planar", "205.3n", "Bolas’s Meditation Realm"),
        ("dungeon", "205.3p", "Undercity"),
        ("battle", "205.3q", "Siege"),
    ],
)
def test_subtypes_of_every_kind_from_cr_205_3(kind: str, rule: str, member: str) -> None:
    assert vocabulary.SUBTYPE_RULES[kind] == rule
    words = vocabulary.subtypes(kind)
    assert member in words
    # "(see rule 301.5)" and "and" are not subtypes; every entry is a capitalised word (or words).
    assert all(w[0].isupper() and "(" not in w and not w.startswith("and ") for w in words), words


def test_creature_types_count_and_shape() -> None:
    # CR 205.3m: one two-word creature type (Time Lord); every other one is one word.
    creature = vocabulary.subtypes("creature")
    assert [w for w in creature if " " in w] == ["Time Lord"]
    assert len(creature) > 300 and len(set(creature)) == len(creature)


def test_constraints_uses_the_vocabulary() -> None:
    # The choose-a-card-name language knows exactly the CR subtypes (planar types excluded: multi-word plane names).
    expected = {
        vocabulary.normalise_apostrophes(w).lower()
        for kind, ws in vocabulary.all_subtypes().items()
        if kind != "planar"
        for w in ws
    }
    assert set(constraints._SUBTYPES) == expected
    assert set(constraints._CARD_TYPES.values()) == set(vocabulary.card_types())
    assert set(constraints._SUPERTYPES.values()) == set(vocabulary.supertypes())


def test_permanent_types_are_cr_110_4() -> None:
    # CR 110.4: "There are six permanent types: artifact, battle, creature, enchantment, land, and planeswalker."
    types = vocabulary.permanent_types()
    assert types == ("Artifact", "Battle", "Creature", "Enchantment", "Land", "Planeswalker")
    assert set(types) < set(vocabulary.card_types())  # kindred, instant, sorcery ... are not (CR 110.4)
    assert constraints.PERMANENT_TYPES == types


def test_color_count_words_are_cr_105_2() -> None:
    # Each word's (fewest, most) colours is what the stored CR 105.2 / 105.2a-c text says.
    from oracle_tools.text.comprules import load_rules

    rules = load_rules().rules
    said = {
        "colorless": ("105.2c", "A colorless object has no color."),
        "monocolored": ("105.2a", "A monocolored object is exactly one of the five colors."),
        "multicolored": ("105.2b", "A multicolored object is two or more of the five colors."),
        "colored": ("105.2", "An object can be one or more of the five colors"),
    }
    for word, (rule, sentence) in said.items():
        assert sentence in rules[rule], (word, rule)
    assert vocabulary.COLOR_COUNT_WORDS == {
        "colorless": (0, 0),
        "monocolored": (1, 1),
        "multicolored": (2, None),
        "colored": (1, None),
    }
    # CR 105.1: five colours; the constraint language uses exactly these words
    assert len(vocabulary.COLOR_LETTERS) == 5 and "five colors" in rules["105.1"]
    assert set(constraints._COLOR_COUNTS) == set(vocabulary.COLOR_COUNT_WORDS)
    for word, (fewest, most) in vocabulary.COLOR_COUNT_WORDS.items():
        for n in range(6):
            expected = n >= fewest and (most is None or n <= most)
            assert constraints.ColorCount(word).matches({"colors": ["W", "U", "B", "R", "G"][:n]}) == expected


def test_number_words() -> None:
    assert vocabulary.number_value("seven") == 7
    assert vocabulary.number_value("Twenty") == 20
    assert vocabulary.number_value("an") == 1
    assert vocabulary.number_value("12") == 12
    assert vocabulary.number_value("many") is None


def test_unknown_subtype_kind_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown subtype kind 'tribal'"):
        vocabulary.subtypes("tribal")


def test_light_read_of_the_shipped_rules_equals_the_full_parse() -> None:
    # vocabulary reads only its rules' lines (a fast start); every list equals the one from the full
    # parse of the same shipped CR text (CR 110.4, 205.2a, 205.3g-q, 205.4a)
    from oracle_tools.text.comprules import load_rules

    full = load_rules()
    assert vocabulary.card_types() == vocabulary.card_types(full)
    assert vocabulary.permanent_types() == vocabulary.permanent_types(full)
    assert vocabulary.supertypes() == vocabulary.supertypes(full)
    assert vocabulary.all_subtypes() == vocabulary.all_subtypes(full)
    assert len(vocabulary.subtypes("creature")) > 250


def test_colour_tables_say_which_way_they_map() -> None:
    # CR 105.1: the colour words and letters, both ways; a name that did not say its direction meant word→letters
    # in the search compiler and letter→word here.
    from oracle_tools.search import compiler

    assert vocabulary.COLOR_WORD_BY_LETTER["U"] == "blue" and vocabulary.COLOR_LETTERS["blue"] == "U"
    assert compiler.COLOR_LETTERS_BY_NAME["azorius"] == "WU"
    assert not hasattr(vocabulary, "COLOR_NAMES") and not hasattr(compiler, "COLOR_NAMES")


def test_basic_land_types_and_their_mana_are_cr_305_6() -> None:
    """Each basic land type and the colour of its intrinsic mana ability, read from the stored CR 305.6: "For Plains,
    [mana symbol] is {W}; for Islands, {U}; ..." (the deck check's 903.5d and 903.12e, companion conditions)."""
    from oracle_tools.text.comprules import load_rules

    rule = load_rules().rules["305.6"]
    listed = re.search(r"The basic land types are (?P<types>[^.]+)\.", rule)
    assert listed is not None
    types = re.findall(r"[A-Z][a-z]+", listed["types"])
    assert list(vocabulary.BASIC_LAND_TYPE_MANA) == types
    # "For Plains, [mana symbol] is {W}; for Islands, {U}; for Swamps, {B}; ...": the types in the plural
    said = re.findall(r"\b([A-Z][a-z]+), (?:\[mana symbol\] is )?\{([WUBRG])\}", rule)
    assert [kind for kind, _ in said] == [t if t.endswith("s") else t + "s" for t in types]
    assert [letter for _, letter in said] == list(vocabulary.BASIC_LAND_TYPE_MANA.values())
