"""Tests for oracle_tools.text.tokentext: the grammar of token phrases (CR 111.9, 111.10, 707.2) and CR 111.4 names.

The phrases are real: Oracle text of the cards named beside each test, and the CR's own rules and examples.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle_tools.text.comprules import RulesDocument, load_rules
from oracle_tools.text.tokentext import default_token_name, parse_token_description

from fuzzing import examples


@pytest.fixture(scope="module")
def doc() -> RulesDocument:
    return load_rules()


# ------------------------------------------------------------------ CR 111.4 default names


def test_default_token_name_cr_111_4(doc: RulesDocument) -> None:
    # CR 111.4 example: Dwarven Reinforcements' tokens "are each named Dwarf Berserker Token"
    assert "named Dwarf Berserker Token" in doc.rule("111.4")
    assert default_token_name(("Dwarf", "Berserker")) == "Dwarf Berserker Token"
    assert default_token_name(["Saproling"]) == "Saproling Token"
    assert default_token_name("Dwarf Berserker") == "Dwarf Berserker Token"
    assert default_token_name(()) == "Token"  # literal reading: no subtypes + the word "Token"


def test_description_name_follows_111_4() -> None:
    assert parse_token_description("two 2/1 red Dwarf Berserker creature tokens").name == "Dwarf Berserker Token"
    # CR 111.4 example (Minsc): the given name replaces subtype + "Token"
    assert (
        parse_token_description("Boo, a legendary 1/1 red Hamster creature token with trample and haste").name == "Boo"
    )
    # CR 111.4 example (Spitting Image): a copy's name is the original's, so unknown here
    assert parse_token_description("a token that's a copy of target creature").name is None


# ------------------------------------------------------------------ token phrases from real Oracle text


def test_phrase_dark_depths_marit_lage() -> None:
    # Dark Depths: "create Marit Lage, a legendary 20/20 black Avatar creature token with flying and indestructible."
    d = parse_token_description(
        "Marit Lage, a legendary 20/20 black Avatar creature token with flying and indestructible"
    )
    assert d.given_name == "Marit Lage" and d.supertypes == ("Legendary",)
    assert (d.power, d.toughness, d.colors) == ("20", "20", ("B",))
    assert d.card_types == ("Creature",) and d.subtypes == ("Avatar",)
    assert d.keywords == ("flying", "indestructible") and d.count == 1
    assert d.type_line() == "Token Legendary Creature — Avatar"
    assert d.oracle_text() == "Flying, indestructible"


def test_phrase_raise_the_alarm() -> None:
    # Raise the Alarm: "Create two 1/1 white Soldier creature tokens."
    d = parse_token_description("Create two 1/1 white Soldier creature tokens.")
    assert (d.quantity, d.count, d.plural) == ("two", 2, True)
    assert (d.power, d.toughness, d.colors, d.subtypes) == ("1", "1", ("W",), ("Soldier",))


def test_phrase_hornet_queen() -> None:
    # Hornet Queen: "create four 1/1 green Insect creature tokens with flying and deathtouch."
    d = parse_token_description("four 1/1 green Insect creature tokens with flying and deathtouch")
    assert d.count == 4 and d.colors == ("G",) and d.keywords == ("flying", "deathtouch")


def test_phrase_pia_nalaar_artifact_creature() -> None:
    # Pia Nalaar: "create a 1/1 colorless Thopter artifact creature token with flying."
    d = parse_token_description("a 1/1 colorless Thopter artifact creature token with flying")
    assert d.colorless and d.colors == ()
    assert d.card_types == ("Artifact", "Creature") and d.subtypes == ("Thopter",)
    assert d.type_line() == "Token Artifact Creature — Thopter"


def test_phrase_dragon_broodmother_two_colors() -> None:
    # Dragon Broodmother: "create a 1/1 red and green Dragon creature token with flying and devour 2."
    d = parse_token_description("a 1/1 red and green Dragon creature token with flying and devour 2")
    assert d.colors == ("R", "G") and d.keywords == ("flying", "devour 2")


def test_phrase_godsire_colors_after_token() -> None:
    # Godsire: "Create an 8/8 Beast creature token that's red, green, and white."
    d = parse_token_description("an 8/8 Beast creature token that's red, green, and white")
    assert d.colors == ("W", "R", "G") and (d.power, d.toughness) == ("8", "8") and d.rest == ""


def test_phrase_tireless_tracker_predefined_reference() -> None:
    # Tireless Tracker: "(Create a Clue token. ...)"
    d = parse_token_description("a Clue token")
    assert d.bare_name == "Clue" and d.card_types == () and d.is_token


def test_phrase_tataru_taru_tapped_treasure() -> None:
    # Tataru Taru: "create a tapped Treasure token."
    d = parse_token_description("a tapped Treasure token")
    assert d.tapped and d.bare_name == "Treasure"


def test_phrase_spiteful_hexmage_role() -> None:
    # Spiteful Hexmage: "create a Cursed Role token attached to target creature you control."
    d = parse_token_description("a Cursed Role token attached to target creature you control")
    assert d.bare_name == "Cursed Role" and d.rest == "attached to target creature you control"


def test_phrase_spitting_image_copy() -> None:
    # Spitting Image: "Create a token that's a copy of target creature."
    d = parse_token_description("a token that's a copy of target creature")
    assert d.copy_of == "target creature" and d.count == 1 and d.is_token


def test_phrase_kiki_jiki_copy_except() -> None:
    # Kiki-Jiki, Mirror Breaker: "Create a token that's a copy of target nonlegendary creature you control, except it has haste."
    d = parse_token_description(
        "a token that's a copy of target nonlegendary creature you control, except it has haste"
    )
    assert d.copy_of == "target nonlegendary creature you control, except it has haste"


def test_phrase_dragonback_lancer_tapped_and_attacking() -> None:
    # Dragonback Lancer (mobilize reminder): "create a tapped and attacking 1/1 red Warrior creature token."
    d = parse_token_description("a tapped and attacking 1/1 red Warrior creature token")
    assert d.tapped and d.attacking and d.subtypes == ("Warrior",)


def test_phrase_avenger_of_zendikar_for_each() -> None:
    # Avenger of Zendikar: "create a 0/1 green Plant creature token for each land you control."
    d = parse_token_description("a 0/1 green Plant creature token for each land you control")
    assert (d.power, d.toughness) == ("0", "1") and d.rest == "for each land you control"


def test_phrase_vulshok_factory_xx_where() -> None:
    # Vulshok Factory: "Create an X/X colorless Golem artifact creature token with haste, where X is ..."
    d = parse_token_description(
        "an X/X colorless Golem artifact creature token with haste, where X is the number of charge counters on Vulshok Factory"
    )
    assert (d.power, d.toughness) == ("X", "X") and d.keywords == ("haste",)
    assert d.rest.startswith("where X is")


def test_phrase_stinging_hivemaster_keyword_and_quoted() -> None:
    # Stinging Hivemaster: 'create a 1/1 colorless Phyrexian Mite artifact creature token with toxic 1 and "This token can't block."'
    d = parse_token_description(
        'a 1/1 colorless Phyrexian Mite artifact creature token with toxic 1 and "This token can\'t block."'
    )
    assert d.subtypes == ("Phyrexian", "Mite") and d.keywords == ("toxic 1",)
    assert d.quoted_abilities == ("This token can't block.",)
    assert d.oracle_text() == "Toxic 1\nThis token can't block."


def test_phrase_pest_infestation_twice_x() -> None:
    # Pest Infestation: 'Create twice X 1/1 black and green Pest creature tokens with "When this token dies, you gain 1 life."'
    d = parse_token_description(
        'twice X 1/1 black and green Pest creature tokens with "When this token dies, you gain 1 life."'
    )
    assert d.quantity == "twice X" and d.count is None and d.colors == ("B", "G")
    assert d.quoted_abilities == ("When this token dies, you gain 1 life.",)


def test_phrase_icingdeath_equipment_two_quoted_and_equip() -> None:
    # Icingdeath, Frost Tyrant: 'create Icingdeath, Frost Tongue, a legendary white Equipment artifact token with
    # "Equipped creature gets +2/+0," "Whenever equipped creature attacks, tap target creature defending player controls," and equip {2}.'
    d = parse_token_description(
        'Icingdeath, Frost Tongue, a legendary white Equipment artifact token with "Equipped creature gets +2/+0," '
        '"Whenever equipped creature attacks, tap target creature defending player controls," and equip {2}'
    )
    assert d.given_name == "Icingdeath, Frost Tongue" and d.subtypes == ("Equipment",)
    assert d.card_types == ("Artifact",) and d.colors == ("W",)
    assert d.abilities == (
        "Equipped creature gets +2/+0.",
        "Whenever equipped creature attacks, tap target creature defending player controls.",
        "equip {2}",
    )


def test_phrase_furnace_gremlin_counters_and_next_sentence() -> None:
    # Furnace Gremlin (incubate reminder): '(Create an Incubator token with X +1/+1 counters on it and
    # "{2}: Transform this token." It transforms into a 0/0 Phyrexian artifact creature.)'
    d = parse_token_description(
        'an Incubator token with X +1/+1 counters on it and "{2}: Transform this token." '
        "It transforms into a 0/0 Phyrexian artifact creature."
    )
    assert d.bare_name is None and d.subtypes == ("Incubator",)
    assert d.counters == ("X +1/+1 counters on it",)
    assert d.quoted_abilities == ("{2}: Transform this token.",)
    assert d.rest.startswith("It transforms")


def test_phrase_kher_keep_named() -> None:
    # Kher Keep: "Create a 0/1 red Kobold creature token named Kobolds of Kher Keep."
    d = parse_token_description("a 0/1 red Kobold creature token named Kobolds of Kher Keep")
    assert d.given_name == "Kobolds of Kher Keep" and d.name == "Kobolds of Kher Keep"


def test_phrase_toggo_nested_quotes() -> None:
    # Toggo, Goblin Weaponsmith: 'create a colorless Equipment artifact token named Rock with "Equipped creature has
    # '{1}, {T}, Sacrifice Rock: This creature deals 2 damage to any target'" and equip {1}.'
    d = parse_token_description(
        'a colorless Equipment artifact token named Rock with "Equipped creature has '
        "'{1}, {T}, Sacrifice Rock: This creature deals 2 damage to any target'\" and equip {1}"
    )
    assert d.given_name == "Rock" and d.keywords == ("equip {1}",)
    assert d.quoted_abilities == (
        'Equipped creature has "{1}, {T}, Sacrifice Rock: This creature deals 2 damage to any target"',
    )


def test_phrase_jinnie_fay_choice_goes_to_rest() -> None:
    # Jinnie Fay, Jetmir's Second: "create that many 2/2 green Cat creature tokens with haste or that many 3/1 green Dog ..."
    d = parse_token_description(
        "that many 2/2 green Cat creature tokens with haste or that many 3/1 green Dog creature tokens with vigilance"
    )
    assert d.quantity == "that many" and d.keywords == ("haste",)
    assert d.rest == "or that many 3/1 green Dog creature tokens with vigilance"


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("a 2/2 black Zombie creature token", {"colors": ("B",), "subtypes": ("Zombie",), "power": "2"}),
        (
            "a colorless Treasure artifact token",
            {"colorless": True, "card_types": ("Artifact",), "subtypes": ("Treasure",)},
        ),
        ("a 1/1 colorless Spirit creature token", {"colorless": True, "subtypes": ("Spirit",)}),
        ("a white and blue Bird creature token", {"colors": ("W", "U"), "power": None}),
        ("a white, blue, and black Bird creature token", {"colors": ("W", "U", "B")}),
        ("a 1/1 white Spirit enchantment creature token with flying", {"card_types": ("Enchantment", "Creature")}),
        ("a snow 2/2 blue Wolf creature token", {"supertypes": ("Snow",)}),
        (
            "a red Aura enchantment token named Mark of the Rani attached to another target creature",
            {"subtypes": ("Aura",), "given_name": "Mark of the Rani", "rest": "attached to another target creature"},
        ),
        ("a 2/2 Time Lord Doctor creature token", {"subtypes": ("Time Lord", "Doctor")}),  # CR 205.3m
        (
            'a 4/4 red Dragon creature token with flying and "{R}: This creature gets +1/+0 until end of turn."',
            {
                "keywords": ("flying",),
                "quoted_abilities": ("{R}: This creature gets +1/+0 until end of turn.",),
                "rest": "",
            },
        ),
    ],
)
def test_phrase_grammar(phrase: str, expected: dict[str, Any]) -> None:
    d = parse_token_description(phrase)
    for attr, value in expected.items():
        assert getattr(d, attr) == value, (attr, d)


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "   ",
        "five of those tokens instead",
        "Flying",
        "hello world",
        'a 1/1 "unclosed creature token',
        "one or more tokens",
    ],
)
def test_not_a_token_phrase_raises_value_error(bad: str) -> None:
    with pytest.raises(ValueError, match="token description"):
        parse_token_description(bad)


# ------------------------------------------------------------------ robustness (hypothesis)
# Contract: parse_token_description either returns a TokenDescription or raises ValueError; it
# never returns None and never raises anything else.

_VOCAB = [
    "a",
    "an",
    "two",
    "X",
    "1/1",
    "X/X",
    "*/*",
    "legendary",
    "snow",
    "white",
    "and",
    ",",
    "colorless",
    "Zombie",
    "Aura",
    "Role",
    "artifact",
    "creature",
    "enchantment",
    "token",
    "tokens",
    "named",
    "with",
    "flying",
    '"',
    "“",
    "”",
    "'",
    "‘",
    "’",
    "that's",
    "a copy of",
    "for each",
    "copy",
    ".",
    "Marit Lage,",
    "tapped",
    "attacking",
    "double-faced",
    "{T}:",
    "+1/+1 counters on it",
    "or a",
    "It",
    "(",
    ")",
    "Time",
    "Lord",
]


def _check(text: str) -> None:
    try:
        result = parse_token_description(text)
    except ValueError:
        return
    assert result is not None
    result.type_line()
    result.oracle_text()
    _ = result.name, result.bare_name


@settings(max_examples=examples(400), deadline=None)
@given(st.text(max_size=120))
def test_random_text_only_value_error(text: str) -> None:
    _check(text)


@settings(max_examples=examples(600), deadline=None)
@given(st.lists(st.sampled_from(_VOCAB), max_size=25))
def test_random_vocabulary_only_value_error(words: list[str]) -> None:
    _check(" ".join(words))
    _check("".join(words))
