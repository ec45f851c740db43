"""Named tokens defined by effects: CR 111.4 "… token named X", 111.9 "create X, a legendary …".

``token NAME`` answers in the order predefined (111.10) → the token effects name and define
(kind ``effect``) → the Oracle card (111.11) → none. Tested on the real 2019 default-cards dump
(the shared ``full_db`` fixture, built once per session: 2019 dump + 2024 file + foreign names).

The expected characteristics are read in each test from the creating cards' Oracle text in the
database with a plain regular expression of the test's own — never from our parser's output.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB
from oracle_tools.interfaces.cli import main
from oracle_tools.tokens.answers import effect_answer
from oracle_tools.tokens.build import effect_token_frame, oracle_text_of

pytestmark = pytest.mark.realdata

_COLOR_WORDS = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G"}


def _creating_sentences(db: OracleDB, name: str) -> dict[str, str]:
    """Card name -> the sentence of its Oracle text that creates the token ``name``, found with the
    test's own patterns: "create … named NAME" (CR 111.4) or "create NAME, a legendary …" (111.9).
    A mere mention ("creatures you control named Kobolds of Kher Keep") is not a creation."""
    n = re.escape(name)
    pattern = re.compile(rf"\bcreate\b[^.]*?\bnamed {n}\b[^.]*|\bcreate {n}, a legendary [^.]*", re.IGNORECASE)
    rows = db.sql("SELECT name, oracle_text FROM cards WHERE is_card AND contains(oracle_text, ?)", [name])
    found: dict[str, str] = {}
    for card, text in rows.iter_rows():
        m = pattern.search(text or "")
        if m:
            found[card] = m.group(0)
    return found


def _read_sentence(sentence: str, name: str) -> dict[str, Any]:
    """The characteristics a creating sentence states, read with simple patterns."""
    head = sentence.split(" token", 1)[0]  # "create a legendary 2/1 red Monkey creature"
    pt = re.search(r"\b(\d+|X)/(\d+|X)\b", head)
    colors = sorted((_COLOR_WORDS[w] for w in re.findall(r"\b(white|blue|black|red|green)\b", head)), key="WUBRG".index)
    types = re.search(r"((?:[A-Z][a-z]+ )+)(?:artifact )?creature$", head)
    after = sentence.split(" token", 1)[1]
    keywords = re.findall(r"\b(flying|indestructible|haste|trample|defender)\b", after.replace(name, ""))
    return {
        "power": pt.group(1) if pt else None,
        "toughness": pt.group(2) if pt else None,
        "colors": colors,
        "legendary": "legendary" in head,
        "artifact": "artifact" in head.split(),
        "subtypes": types.group(1).split() if types else [],
        "keywords": keywords,
        "rule": "111.9" if sentence.lower().startswith(f"create {name.lower()}, a legendary") else "111.4",
    }


# CR 111.4 / 111.9 — each named token of the issue, checked against its creators' Oracle text.
@pytest.mark.parametrize(
    ("name", "creators"),
    [
        ("Marit Lage", {"Dark Depths", "Marit Lage's Slumber"}),  # 111.9 "create Marit Lage, a legendary …"
        ("Ragavan", {"Kari Zev, Skyship Raider"}),  # "legendary 2/1 red Monkey … named Ragavan"
        ("Stangg Twin", {"Stangg"}),
        ("Kobolds of Kher Keep", {"Kher Keep", "Prossh, Skyraider of Kher"}),  # two creators; also a card name
        ("Wasp", {"The Hive"}),  # "… token with flying named Wasp"
    ],
)
def test_named_token_is_what_its_creators_say(full_db: OracleDB, name: str, creators: set[str]) -> None:
    sentences = _creating_sentences(full_db, name)
    assert set(sentences) == creators  # the creators are exactly the cards whose text creates it
    answer = full_db.token(name)
    assert (answer.kind, answer.name, answer.mana_cost) == ("effect", name, "")  # CR 111.3: no mana cost
    assert set(answer.created_by) == creators and answer.variants == ()
    for card, sentence in sentences.items():
        said = _read_sentence(sentence, name)
        assert answer.rule == said["rule"], card
        assert (answer.power, answer.toughness) == (said["power"], said["toughness"]), card
        assert list(answer.colors) == said["colors"], card
        assert answer.type_line is not None, card
        assert ("Legendary" in answer.type_line.split()) == said["legendary"], card
        assert ("Artifact" in answer.type_line.split()) == said["artifact"], card
        assert answer.type_line.endswith("— " + " ".join(said["subtypes"])), card
        lines = {k.strip().lower() for line in (answer.oracle_text or "").split("\n") for k in line.split(",")}
        assert set(said["keywords"]) <= lines, card


def test_marit_lage_agrees_with_scryfalls_token_object(full_db: OracleDB) -> None:
    # A second, independent source: Scryfall's own Marit Lage token object in the 2019 dump.
    obj = full_db.sql("SELECT * FROM cards WHERE NOT is_card AND name = 'Marit Lage'").row(0, named=True)
    answer = full_db.token("marit lage")  # through the normalized name
    assert (answer.type_line, answer.power, answer.toughness, list(answer.colors)) == (
        obj["type_line"],
        obj["power"],
        obj["toughness"],
        obj["colors"],
    )
    ours = {a.strip().lower() for a in re.split(r"[,\n]", answer.oracle_text or "")}
    assert ours == {a.strip().lower() for a in re.split(r"[,\n]", obj["oracle_text"])}


def test_card_name_that_effects_define_is_the_effect_token(full_db: OracleDB) -> None:
    # Kobolds of Kher Keep is an Oracle card, but Kher Keep and Prossh state the token's characteristics,
    # so CR 111.11 (which applies when the effect "doesn't define any other characteristics") does not.
    assert full_db.resolve("Kobolds of Kher Keep").ok
    answer = full_db.token("Kobolds of Kher Keep")
    assert answer.kind == "effect" and answer.oracle_id is None
    assert any("111.11" in n and "Oracle card Kobolds of Kher Keep" in n for n in answer.notes)
    card = full_db.sql("SELECT type_line, mana_cost FROM cards WHERE name = 'Kobolds of Kher Keep'").row(0, named=True)
    assert card["mana_cost"] == "{0}" and answer.mana_cost == ""  # the token is not the card


def test_tarmogoyf_is_still_111_11_and_treasure_111_10a(full_db: OracleDB) -> None:
    goyf = full_db.token("Tarmogoyf")  # no effect names a token Tarmogoyf: the Oracle card (CR 111.11)
    assert (goyf.kind, goyf.rule, goyf.name) == ("card", "111.11", "Tarmogoyf")
    treasure = full_db.token("Treasure")  # CR 111.10a
    assert (treasure.kind, treasure.rule) == ("predefined", "111.10a")


def test_gold_predefined_wins_over_old_effect_definitions(full_db: OracleDB) -> None:
    # The 2019 Oracle texts of Gild, Curse of Opulence and King Macar say "a colorless artifact token
    # named Gold. It has "Sacrifice this artifact: …"" — CR 111.10c (a Gold token) still wins for
    # "create a Gold token"; the answer says the old effects define their own Gold.
    creators = set(_creating_sentences(full_db, "Gold"))
    assert creators == {"Gild", "Curse of Opulence", "King Macar, the Gold-Cursed"}
    gold = full_db.token("Gold")
    assert (gold.kind, gold.rule) == ("predefined", "111.10c")
    assert any(all(c in n for c in creators) and "111.4" in n for n in gold.notes)


def test_no_named_token_whose_creators_disagree_in_the_real_data(full_db: OracleDB) -> None:
    # The issue asks for a name whose creators disagree, if the data has one. The query over token_specs
    # found one candidate: Gold, where Curse of Opulence's abilities had swallowed the next sentence
    # ("Each opponent attacking that player does the same") — a parse error, fixed (a quoted ability's
    # own period ends the sentence). With it fixed no name has two definitions, so this test keeps the
    # query and asserts Gold's three creators now agree; the variants mechanism is tested below.
    disagreeing = full_db.sql("""
        SELECT name, count(DISTINCT (colors, supertypes, card_types, subtypes, power, toughness,
                                     lower(coalesce(abilities, '')))) AS definitions
        FROM token_specs WHERE rule IN ('111.4', '111.9') AND given_name IS NOT NULL AND copy_of IS NULL
        GROUP BY name HAVING definitions > 1""")
    assert disagreeing.height == 0, disagreeing
    gold = full_db.sql("SELECT * FROM effect_tokens WHERE name = 'Gold'").row(0, named=True)
    assert (gold["definitions"], len(gold["creators"])) == (1, 3)
    curse = full_db.sql("SELECT oracle_text FROM cards WHERE name = 'Curse of Opulence'").item()
    assert "Each opponent attacking that player does the same." in curse  # in the text, not in the token
    assert gold["oracle_text"] == "Sacrifice this artifact: Add one mana of any color."


def test_variants_when_creators_disagree(full_db: OracleDB) -> None:
    # Real token_specs rows of Kobolds of Kher Keep with Prossh's toughness changed: the data has no real
    # disagreement (see above), so this is the one constructed case — two definitions, each with its creator.
    specs = full_db.token_specs().filter(pl.col("name") == "Kobolds of Kher Keep")
    changed = specs.with_columns(
        toughness=pl.when(pl.col("creator_name").str.starts_with("Prossh"))
        .then(pl.lit("2"))
        .otherwise(pl.col("toughness"))
    )
    frame = effect_token_frame(changed, full_db.name_index)
    assert frame["definitions"].to_list() == [2, 2] and frame["definition"].to_list() == [1, 2]
    answer = effect_answer("Kobolds of Kher Keep", frame.to_dicts(), None)
    assert {(v["toughness"], tuple(v["created_by"])) for v in answer.variants} == {
        ("1", ("Kher Keep",)),
        ("2", ("Prossh, Skyraider of Kher",)),
    }
    assert set(answer.created_by) == {"Kher Keep", "Prossh, Skyraider of Kher"}
    assert any("2 different ways" in n for n in answer.notes)
    unchanged = effect_token_frame(specs, full_db.name_index)
    assert unchanged["definitions"].to_list() == [1]


@pytest.mark.parametrize(
    ("abilities", "text"),
    [
        ("flying and indestructible", "Flying, indestructible"),
        (
            'trample, haste, and "At the beginning of the end step, sacrifice this creature."',
            "Trample, haste\nAt the beginning of the end step, sacrifice this creature.",
        ),
        (
            'indestructible, "Equipped creature gets +5/+5 and has double strike," and equip {0}',
            "Indestructible\nEquipped creature gets +5/+5 and has double strike.\nEquip {0}",
        ),
        (None, None),
    ],
)
def test_abilities_as_rules_text(abilities: str | None, text: str | None) -> None:
    # CR 111.3: what the effect defines is the token's text; quoted abilities are the token's own (113.1a).
    assert oracle_text_of(abilities) == text


# -- names elsewhere: suggestions (resolve, token) and choose-name (CR 201.4) ----------------------


def test_resolve_suggests_token_names_apart_from_cards(full_db: OracleDB) -> None:
    r = full_db.resolve("Ragavan")
    assert r.status == "not_found" and "Ragavan" in r.tokens and "Ragavan" not in r.suggestions
    assert "Marit Lage" in full_db.resolve("Marit Lag").tokens
    assert full_db.resolve("Tarmogoyf").tokens == ()


def test_token_none_suggests_token_names(full_db: OracleDB) -> None:
    answer = full_db.token("Ragavn")
    assert answer.kind == "none" and "Ragavan" in answer.suggestions


def test_choose_name_token_names(full_db: OracleDB) -> None:
    # CR 201.4: a token's name may be chosen only if it is also a card's name.
    ragavan = full_db.choose_name("Ragavan")
    assert not ragavan.valid and "Kari Zev, Skyship Raider" in ragavan.reason and "token" in ragavan.reason
    assert "CR 111.4;" in ragavan.reason  # "a … token named Ragavan"
    marit = full_db.choose_name("Marit Lage")  # CR 111.9: "create Marit Lage, a legendary …"
    assert not marit.valid and "CR 111.9;" in marit.reason and "Dark Depths" in marit.reason
    kobolds = full_db.choose_name("Kobolds of Kher Keep")
    assert kobolds.valid and "token" in kobolds.reason


# -- token --list / token_catalog ---------------------------------------------------------------------


def test_token_list_has_every_kind_with_creators(full_db: OracleDB) -> None:
    catalog = full_db.token_list()
    assert catalog.equals(full_db.sql("SELECT * FROM token_catalog ORDER BY name, kind"))
    assert set(catalog["kind"]) == {"predefined", "effect", "object"}
    effect = catalog.filter(pl.col("kind") == "effect")
    assert sorted(effect["name"]) == sorted(full_db.sql("SELECT DISTINCT name FROM effect_tokens")["name"])
    marit = effect.filter(pl.col("name") == "Marit Lage").row(0, named=True)
    assert set(marit["creators"]) == set(_creating_sentences(full_db, "Marit Lage")) and marit["rule"] == "111.9"
    kobolds = effect.filter(pl.col("name") == "Kobolds of Kher Keep").row(0, named=True)
    assert kobolds["card_name"] == "Kobolds of Kher Keep" and kobolds["creator_count"] == 2
    predefined = catalog.filter(pl.col("kind") == "predefined")
    assert predefined.height == full_db.sql("SELECT count(*) FROM predefined_tokens").item()
    treasure_makers = full_db.sql("SELECT DISTINCT creator_name FROM token_specs WHERE predefined_rule = '111.10a'")
    assert predefined.filter(pl.col("name") == "Treasure")["creator_count"].item() == treasure_makers.height
    objects = catalog.filter(pl.col("kind") == "object")
    assert not objects["type_line"].str.starts_with("Card").any()  # Scryfall's ad/bio "cards" are no tokens
    assert objects.filter(pl.col("name") == "Angel")["game_name"].item() == "Angel Token"  # CR 111.4


def test_cli(full_db: OracleDB) -> None:
    runner = CliRunner()
    db = str(full_db.path)
    text = runner.invoke(main, ["token", "--db", db, "Marit Lage"])
    assert text.exit_code == 0 and "[effect 111.9]" in text.output and "Dark Depths" in text.output
    data = json.loads(runner.invoke(main, ["token", "--db", db, "Kobolds of Kher Keep", "--json"]).output)
    assert data["kind"] == "effect" and sorted(data["created_by"]) == ["Kher Keep", "Prossh, Skyraider of Kher"]
    assert data["variants"] == [] and data["power"] == "0" and data["toughness"] == "1"
    listed = runner.invoke(main, ["token", "--db", db, "--list"])
    assert listed.exit_code == 0 and "Ragavan  [effect 111.4]" in listed.output
    rows = json.loads(runner.invoke(main, ["token", "--db", db, "--list", "--json"]).output)
    assert {"name", "kind", "rule", "creators", "card_name"} <= set(rows[0])
    # --list NAME: that name's rows, every kind of it (CR 111.10c predefined Gold, Gild's 111.4 Gold, the object)
    gold = json.loads(runner.invoke(main, ["token", "--db", db, "--list", "gold", "--json"]).output)
    assert sorted((r["kind"], r["rule"]) for r in gold) == [
        ("effect", "111.4"),
        ("object", None),
        ("predefined", "111.10c"),
    ]
    assert gold == [r for r in rows if r["name"] == "Gold"]
    missing = runner.invoke(main, ["token", "--db", db, "--list", "Tarmogoyf"])  # a card (111.11), no token name
    assert missing.exit_code == 1 and "no token name" in missing.output
    resolved = json.loads(runner.invoke(main, ["resolve", "--db", db, "Ragavan", "--json"]).output)
    assert resolved["status"] == "not_found" and "Ragavan" in resolved["tokens"]


def test_a_name_several_cards_share_is_never_suggested_back(same_name_db_path: Path) -> None:
    """`token "Very Cryptic Command"`: six Oracle cards share the name (CR 201.2a), so which one a token of that name
    would copy (111.11) is not known — said plainly, never "Did you mean" the very name that was typed."""
    with OracleDB(same_name_db_path) as db:
        answer = db.token("very cryptic command")
    assert answer.kind == "none" and answer.suggestions == ()
    assert "6 Oracle cards that share the name Very Cryptic Command (the same name, CR 201.2a)" in (answer.reason or "")
    shown = CliRunner().invoke(main, ["token", "Very Cryptic Command", "--db", str(same_name_db_path)])
    assert shown.exit_code == 1 and "Did you mean" not in shown.output, shown.output


def test_collisions_with_a_name_are_that_names_rows_only(sample_db: OracleDB) -> None:
    """`token NAME --collisions`: only NAME's rows (Blood: the 111.10g predefined token and the face of Flesh //
    Blood), and for a name that is not both a card's and a token's (Marit Lage: a token only, 111.4) a line saying
    so with exit 1 — never the whole list, which ignored the name."""
    runner = CliRunner()
    blood = runner.invoke(main, ["token", "blood", "--collisions", "--json", "--db", str(sample_db.path)])
    rows = json.loads(blood.output)
    assert blood.exit_code == 0 and rows and {r["name"] for r in rows} == {"Blood"}, blood.output
    assert sample_db.token_collisions().height > len(rows)  # the whole list is longer
    marit = runner.invoke(main, ["token", "Marit Lage", "--collisions", "--db", str(sample_db.path)])
    assert marit.exit_code == 1 and marit.output.startswith("'Marit Lage' is not both a card name and a token name")
    assert marit.output.count("\n") == 1, marit.output
