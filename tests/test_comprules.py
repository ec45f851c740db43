"""Tests for oracle_tools.comprules: CR parsing, CR 111.10 predefined tokens, token phrases, CR 111.4.

Facts asserted about the predefined tokens are read from the shipped CR text itself
(data/rules/MagicCompRules-20260116.txt, effective January 16, 2026), rule 111.10a-111.10u.
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle_tools.comprules import (
    RulesDocument,
    default_rules_path,
    default_token_name,
    load_rules,
    parse_rules,
    parse_token_description,
    predefined_tokens,
)
from oracle_tools.errors import RulesFileError

REPO = Path(__file__).resolve().parents[1]
CR_FILE = REPO / "oracle_tools" / "data" / "rules" / "MagicCompRules-20260116.txt"


@pytest.fixture(scope="module")
def doc() -> RulesDocument:
    return load_rules()


@pytest.fixture(scope="module")
def tokens(doc: RulesDocument):
    return predefined_tokens(doc)


@pytest.fixture(scope="module")
def by_name(tokens):
    return {t.name: t for t in tokens}


def _raw_cr_text() -> str:
    return CR_FILE.read_bytes().decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")


# ------------------------------------------------------------------ document


def test_default_path_is_shipped_file():
    assert default_rules_path() == CR_FILE


def test_effective_date(doc):
    assert doc.effective_date == datetime.date(2026, 1, 16)


def test_rule_lookup_and_examples(doc):
    assert doc.rule("111.10a").startswith("A Treasure token is a colorless Treasure artifact token")
    assert doc.rule("111.10a.") == doc.rule("111.10a")
    # CR 111.4 has three "Example:" paragraphs (Dwarven Reinforcements, Minsc, Spitting Image)
    assert len(doc.examples["111.4"]) == 3
    assert "Dwarf Berserker Token" in doc.rule("111.4")
    assert "Example:" not in doc.statement("111.4")
    assert doc.sections["111"] == "Tokens"
    assert doc.rule("201.4").startswith("If an effect instructs a player to choose a card name")
    # an indented continuation paragraph is joined to its rule (205.4c)
    assert "Eighth Edition" in doc.rule("205.4c")
    assert doc.glossary["Treasure Token"].startswith("A Treasure token is")


def test_rule_missing_is_clear_keyerror(doc):
    with pytest.raises(KeyError, match=r"999\.9z.*not in the Comprehensive Rules"):
        doc.rule("999.9z")


def test_all_rule_numbers_parsed(doc):
    raw = _raw_cr_text()
    body = raw[raw.index("\n100.1. ") : raw.index("\nGlossary\n", raw.index("\n100.1. "))]
    numbers = re.findall(r"(?m)^(\d{3}\.\d+[a-z]*)\.?\s", body)
    assert list(doc.rules) == numbers


# ------------------------------------------------------------------ not the rules


def test_json_file_is_rejected(tmp_path):
    p = tmp_path / "cards.json"
    p.write_text(json.dumps([{"name": "Treasure"}]))
    with pytest.raises(RulesFileError, match=re.escape(str(p)) + r".*not the Comprehensive Rules.*official"):
        load_rules(p)


def test_empty_file_is_rejected(tmp_path):
    p = tmp_path / "empty.txt"
    p.write_bytes(b"")
    with pytest.raises(RulesFileError, match=re.escape(str(p)) + r".*empty"):
        load_rules(p)


def test_truncated_cr_is_rejected(tmp_path):
    first50 = "\n".join(_raw_cr_text().split("\n")[:50])
    p = tmp_path / "MagicCompRules-truncated.txt"
    p.write_text(first50, encoding="utf-8")
    with pytest.raises(RulesFileError, match=re.escape(str(p)) + r".*no numbered rules"):
        load_rules(p)


def test_cr_cut_before_111_10_is_rejected():
    raw = _raw_cr_text()
    cut = raw[: raw.index("\n111.10. ")]
    with pytest.raises(RulesFileError, match=r"<cut>.*111\.10.*missing"):
        parse_rules(cut, source="<cut>")


def test_missing_file_and_binary_file(tmp_path):
    with pytest.raises(RulesFileError, match="nope.txt"):
        load_rules(tmp_path / "nope.txt")
    p = tmp_path / "bin.txt"
    p.write_bytes(b"\xff\xfe\x00garbage\x80")
    with pytest.raises(RulesFileError, match="not UTF-8"):
        load_rules(p)


def test_directory_without_rules(tmp_path):
    with pytest.raises(RulesFileError, match="no MagicCompRules"):
        load_rules(tmp_path)


# ------------------------------------------------------------------ line endings / BOM


def test_shipped_file_has_bom_and_cr_line_ends():
    raw = CR_FILE.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert raw.count(b"\r") > 1000


@pytest.mark.parametrize("eol", ["\r", "\r\n", "\n"])
@pytest.mark.parametrize("bom", [True, False])
def test_line_endings_and_bom(tmp_path, eol, bom, doc):
    text = _raw_cr_text().replace("\n", eol)
    p = tmp_path / "MagicCompRules-20260116.txt"
    p.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    other = load_rules(p)
    assert other.effective_date == doc.effective_date
    assert other.rules == doc.rules
    assert [t.name for t in predefined_tokens(other)] == [t.name for t in predefined_tokens(doc)]


def test_directory_picks_newest(tmp_path):
    text = _raw_cr_text()
    (tmp_path / "MagicCompRules-20250101.txt").write_text(
        text.replace("effective as of January 16, 2026", "effective as of January 1, 2025"), encoding="utf-8"
    )
    (tmp_path / "MagicCompRules-20260116.txt").write_text(text, encoding="utf-8")
    assert load_rules(tmp_path).effective_date == datetime.date(2026, 1, 16)


# ------------------------------------------------------------------ CR 111.10 predefined tokens


def test_every_111_10_subrule_yields_a_token(doc, tokens):
    raw = _raw_cr_text()
    subrules = re.findall(r"(?m)^(111\.10[a-z]+) ", raw)
    subjects = dict(re.findall(r"(?m)^(111\.10[a-z]+) An? (.+?) token is ", raw))
    assert len(subrules) >= 19  # a..u without l and o in the 2026-01-16 file
    assert [t.rule for t in tokens] == subrules
    for t in tokens:
        assert t.name == subjects[t.rule]
        assert t.effective_date == datetime.date(2026, 1, 16)
        assert t.type_line.startswith("Token ")
        assert t.card_types, t
        # every quoted ability of the rule is in the token's (or its faces') oracle text
        rule_text = doc.statement(t.rule)
        texts = t.oracle_text + "".join(f.oracle_text for f in t.faces)
        for q in re.findall(r"“(.+?)”(?!\w)", rule_text):
            if q.startswith("Explore"):
                continue  # cross-reference "See rule 701.44, “Explore.”"
            core = re.split(r"[‘’]", q.rstrip(",."))[0]
            assert core in texts, (t.rule, q)


def test_colorless_tokens_match_cr_words(doc, tokens):
    for t in tokens:
        if "is a colorless" in doc.statement(t.rule):
            assert t.colors == ()


def test_treasure(by_name, doc):
    t = by_name["Treasure"]
    assert t.rule == "111.10a"
    assert (t.colors, t.card_types, t.subtypes, t.supertypes) == ((), ("Artifact",), ("Treasure",), ())
    assert t.oracle_text == "{T}, Sacrifice this token: Add one mana of any color."
    assert f"“{t.oracle_text}”" in doc.rule("111.10a")
    assert t.type_line == "Token Artifact — Treasure"
    assert (t.power, t.toughness, t.given_name, t.faces) == (None, None, None, ())
    assert t.game_name == "Treasure Token"  # CR 111.4


def test_food_clue_blood(by_name):
    assert by_name["Food"].oracle_text == "{2}, {T}, Sacrifice this token: You gain 3 life."
    assert by_name["Food"].type_line == "Token Artifact — Food"
    assert by_name["Clue"].oracle_text == "{2}, Sacrifice this token: Draw a card."
    assert by_name["Blood"].oracle_text == "{1}, {T}, Discard a card, Sacrifice this token: Draw a card."
    assert by_name["Blood"].rule == "111.10g"
    assert by_name["Shard"].type_line == "Token Enchantment — Shard"


def test_walker(by_name):
    w = by_name["Walker"]  # CR 111.10d "a 2/2 black Zombie creature token named Walker"
    assert (w.power, w.toughness) == ("2", "2")
    assert w.colors == ("B",)
    assert w.card_types == ("Creature",) and w.subtypes == ("Zombie",)
    assert w.given_name == "Walker" and w.game_name == "Walker"
    assert w.type_line == "Token Creature — Zombie"
    assert w.oracle_text == ""


def test_incubator_faces(by_name):
    inc = by_name["Incubator"]  # CR 111.10i
    assert len(inc.faces) == 2
    front, back = inc.faces
    assert front.name == "Incubator" and front.colors == () and front.card_types == ("Artifact",)
    assert front.subtypes == ("Incubator",) and front.oracle_text == "{2}: Transform this token."
    assert back.name == "Phyrexian Token" and back.given_name == "Phyrexian Token"
    assert (back.power, back.toughness) == ("0", "0") and back.colors == ()
    assert back.card_types == ("Artifact", "Creature") and back.subtypes == ("Phyrexian",)
    assert inc.type_line == "Token Artifact — Incubator // Token Artifact Creature — Phyrexian"
    assert inc.card_types == front.card_types and inc.oracle_text == front.oracle_text


def test_roles(by_name, doc):
    raw_roles = re.findall(
        r"(?m)^111\.10[a-z]+ An? (\w+(?: \w+)*) Role token is .*?named (.+?) with enchant creature", _raw_cr_text()
    )
    assert len(raw_roles) >= 7
    for role, named in raw_roles:
        t = by_name[f"{role} Role"]
        assert t.card_types == ("Enchantment",) and t.subtypes == ("Aura", "Role")
        assert t.type_line == "Token Enchantment — Aura Role"
        assert t.given_name == named  # the CR says "named Cursed", not "named Cursed Role"
        assert t.oracle_text.startswith("Enchant creature\n")
    cursed = by_name["Cursed Role"]
    assert cursed.oracle_text == "Enchant creature\nEnchanted creature has base power and toughness 1/1."
    wicked = by_name["Wicked Role"]  # two quoted abilities, list comma inside the first quote
    assert wicked.oracle_text.split("\n") == [
        "Enchant creature",
        "Enchanted creature gets +1/+1.",
        "When this token is put into a graveyard from the battlefield, each opponent loses 1 life.",
    ]
    hero = by_name["Young Hero Role"]  # nested ‘…’ becomes “…” once unwrapped
    assert hero.given_name == "Young Hero"
    assert hero.oracle_text.endswith(
        "has “Whenever this creature attacks, if its toughness is 3 or less, put a +1/+1 counter on it.”"
    )


def test_map_cross_reference_is_a_note(by_name):
    m = by_name["Map"]
    assert m.oracle_text.endswith("Activate only as a sorcery.")
    assert m.notes == ("See rule 701.44, “Explore.”",)


def test_rules_without_111_10_subrules_raise(doc):
    stripped = RulesDocument(
        effective_date=doc.effective_date,
        rules={k: v for k, v in doc.rules.items() if not k.startswith("111.10")},
        source="<stripped>",
    )
    with pytest.raises(RulesFileError, match="<stripped>"):
        predefined_tokens(stripped)


def test_unparseable_subrule_raises_rules_file_error(doc):
    rules = dict(doc.rules)
    rules["111.10a"] = "Treasure tokens are shiny."
    broken = RulesDocument(effective_date=doc.effective_date, rules=rules, source="<broken>")
    with pytest.raises(RulesFileError, match=r"<broken>: rule 111\.10a"):
        predefined_tokens(broken)


# ------------------------------------------------------------------ CR 111.4 default names


def test_default_token_name_cr_111_4(doc):
    # CR 111.4 example: Dwarven Reinforcements' tokens "are each named Dwarf Berserker Token"
    assert "named Dwarf Berserker Token" in doc.rule("111.4")
    assert default_token_name(("Dwarf", "Berserker")) == "Dwarf Berserker Token"
    assert default_token_name(["Saproling"]) == "Saproling Token"
    assert default_token_name("Dwarf Berserker") == "Dwarf Berserker Token"
    assert default_token_name(()) == "Token"  # literal reading: no subtypes + the word "Token"


def test_description_name_follows_111_4():
    assert parse_token_description("two 2/1 red Dwarf Berserker creature tokens").name == "Dwarf Berserker Token"
    # CR 111.4 example (Minsc): the given name replaces subtype + "Token"
    assert (
        parse_token_description("Boo, a legendary 1/1 red Hamster creature token with trample and haste").name == "Boo"
    )
    # CR 111.4 example (Spitting Image): a copy's name is the original's, so unknown here
    assert parse_token_description("a token that's a copy of target creature").name is None


# ------------------------------------------------------------------ token phrases from real Oracle text


def test_phrase_dark_depths_marit_lage():
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


def test_phrase_raise_the_alarm():
    # Raise the Alarm: "Create two 1/1 white Soldier creature tokens."
    d = parse_token_description("Create two 1/1 white Soldier creature tokens.")
    assert (d.quantity, d.count, d.plural) == ("two", 2, True)
    assert (d.power, d.toughness, d.colors, d.subtypes) == ("1", "1", ("W",), ("Soldier",))


def test_phrase_hornet_queen():
    # Hornet Queen: "create four 1/1 green Insect creature tokens with flying and deathtouch."
    d = parse_token_description("four 1/1 green Insect creature tokens with flying and deathtouch")
    assert d.count == 4 and d.colors == ("G",) and d.keywords == ("flying", "deathtouch")


def test_phrase_pia_nalaar_artifact_creature():
    # Pia Nalaar: "create a 1/1 colorless Thopter artifact creature token with flying."
    d = parse_token_description("a 1/1 colorless Thopter artifact creature token with flying")
    assert d.colorless and d.colors == ()
    assert d.card_types == ("Artifact", "Creature") and d.subtypes == ("Thopter",)
    assert d.type_line() == "Token Artifact Creature — Thopter"


def test_phrase_dragon_broodmother_two_colors():
    # Dragon Broodmother: "create a 1/1 red and green Dragon creature token with flying and devour 2."
    d = parse_token_description("a 1/1 red and green Dragon creature token with flying and devour 2")
    assert d.colors == ("R", "G") and d.keywords == ("flying", "devour 2")


def test_phrase_godsire_colors_after_token():
    # Godsire: "Create an 8/8 Beast creature token that's red, green, and white."
    d = parse_token_description("an 8/8 Beast creature token that's red, green, and white")
    assert d.colors == ("W", "R", "G") and (d.power, d.toughness) == ("8", "8") and d.rest == ""


def test_phrase_tireless_tracker_predefined_reference():
    # Tireless Tracker: "(Create a Clue token. ...)"
    d = parse_token_description("a Clue token")
    assert d.bare_name == "Clue" and d.card_types == () and d.is_token


def test_phrase_tataru_taru_tapped_treasure():
    # Tataru Taru: "create a tapped Treasure token."
    d = parse_token_description("a tapped Treasure token")
    assert d.tapped and d.bare_name == "Treasure"


def test_phrase_spiteful_hexmage_role():
    # Spiteful Hexmage: "create a Cursed Role token attached to target creature you control."
    d = parse_token_description("a Cursed Role token attached to target creature you control")
    assert d.bare_name == "Cursed Role" and d.rest == "attached to target creature you control"


def test_phrase_spitting_image_copy():
    # Spitting Image: "Create a token that's a copy of target creature."
    d = parse_token_description("a token that's a copy of target creature")
    assert d.copy_of == "target creature" and d.count == 1 and d.is_token


def test_phrase_kiki_jiki_copy_except():
    # Kiki-Jiki, Mirror Breaker: "Create a token that's a copy of target nonlegendary creature you control, except it has haste."
    d = parse_token_description(
        "a token that's a copy of target nonlegendary creature you control, except it has haste"
    )
    assert d.copy_of == "target nonlegendary creature you control, except it has haste"


def test_phrase_dragonback_lancer_tapped_and_attacking():
    # Dragonback Lancer (mobilize reminder): "create a tapped and attacking 1/1 red Warrior creature token."
    d = parse_token_description("a tapped and attacking 1/1 red Warrior creature token")
    assert d.tapped and d.attacking and d.subtypes == ("Warrior",)


def test_phrase_avenger_of_zendikar_for_each():
    # Avenger of Zendikar: "create a 0/1 green Plant creature token for each land you control."
    d = parse_token_description("a 0/1 green Plant creature token for each land you control")
    assert (d.power, d.toughness) == ("0", "1") and d.rest == "for each land you control"


def test_phrase_vulshok_factory_xx_where():
    # Vulshok Factory: "Create an X/X colorless Golem artifact creature token with haste, where X is ..."
    d = parse_token_description(
        "an X/X colorless Golem artifact creature token with haste, where X is the number of charge counters on Vulshok Factory"
    )
    assert (d.power, d.toughness) == ("X", "X") and d.keywords == ("haste",)
    assert d.rest.startswith("where X is")


def test_phrase_stinging_hivemaster_keyword_and_quoted():
    # Stinging Hivemaster: 'create a 1/1 colorless Phyrexian Mite artifact creature token with toxic 1 and "This token can't block."'
    d = parse_token_description(
        'a 1/1 colorless Phyrexian Mite artifact creature token with toxic 1 and "This token can\'t block."'
    )
    assert d.subtypes == ("Phyrexian", "Mite") and d.keywords == ("toxic 1",)
    assert d.quoted_abilities == ("This token can't block.",)
    assert d.oracle_text() == "Toxic 1\nThis token can't block."


def test_phrase_pest_infestation_twice_x():
    # Pest Infestation: 'Create twice X 1/1 black and green Pest creature tokens with "When this token dies, you gain 1 life."'
    d = parse_token_description(
        'twice X 1/1 black and green Pest creature tokens with "When this token dies, you gain 1 life."'
    )
    assert d.quantity == "twice X" and d.count is None and d.colors == ("B", "G")
    assert d.quoted_abilities == ("When this token dies, you gain 1 life.",)


def test_phrase_icingdeath_equipment_two_quoted_and_equip():
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


def test_phrase_furnace_gremlin_counters_and_next_sentence():
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


def test_phrase_kher_keep_named():
    # Kher Keep: "Create a 0/1 red Kobold creature token named Kobolds of Kher Keep."
    d = parse_token_description("a 0/1 red Kobold creature token named Kobolds of Kher Keep")
    assert d.given_name == "Kobolds of Kher Keep" and d.name == "Kobolds of Kher Keep"


def test_phrase_toggo_nested_quotes():
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


def test_phrase_jinnie_fay_choice_goes_to_rest():
    # Jinnie Fay, Jetmir's Second: "create that many 2/2 green Cat creature tokens with haste or that many 3/1 green Dog ..."
    d = parse_token_description(
        "that many 2/2 green Cat creature tokens with haste or that many 3/1 green Dog creature tokens with vigilance"
    )
    assert d.quantity == "that many" and d.keywords == ("haste",)
    assert d.rest == "or that many 3/1 green Dog creature tokens with vigilance"


@pytest.mark.parametrize(
    "phrase,expected",
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
def test_phrase_grammar(phrase, expected):
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
def test_not_a_token_phrase_raises_value_error(bad):
    with pytest.raises(ValueError):
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


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=120))
def test_random_text_only_value_error(text):
    _check(text)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_VOCAB), max_size=25))
def test_random_vocabulary_only_value_error(words):
    _check(" ".join(words))
    _check("".join(words))
