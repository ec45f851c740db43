"""Tests for oracle_tools.tokens.answers: CR 111.4, 111.9, 111.10, 111.11, copies (707.2), collisions, the CLI.

Built on the shared ``sample_db`` fixture (the embedded real sample, data/sample/). Disa the
Restless ("create a Tarmogoyf token") and Tarmogoyf are both in the sample, as are Dark Depths
(Marit Lage, 111.9) and Flesh // Blood. Expected predefined tokens are read from the shipped CR
text here, never from a hand-typed list.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB, OracleToolsError
from oracle_tools.interfaces.cli import main
from oracle_tools.text.comprules import default_rules_path


def _cr_text() -> str:
    raw = default_rules_path().read_bytes().decode("utf-8-sig")
    return raw.replace("\r\n", "\n").replace("\r", "\n")


def _specs(db: OracleDB, creator: str) -> pl.DataFrame:
    return db.token_specs().filter(pl.col("creator_name") == creator)


# -- CR 111.10: predefined tokens ---------------------------------------------------------------


def test_every_111_10_entry_has_a_predefined_tokens_row(sample_db: OracleDB) -> None:
    # CR 111.10x "A Treasure token is …" — expected list derived from the CR text itself.
    expected = re.findall(r"(?m)^(111\.10[a-z]+) An? (.+?) token is ", _cr_text())
    assert len(expected) >= 15
    rows = sample_db.sql("SELECT rule, name FROM predefined_tokens ORDER BY rule")
    assert sorted(zip(rows["rule"], rows["name"])) == sorted(expected)
    meta = sample_db.sql("SELECT effective_date FROM rules_meta").item()
    assert set(sample_db.sql("SELECT effective_date FROM predefined_tokens")["effective_date"]) == {meta}


@pytest.mark.parametrize(
    "name", ["Treasure", "Food", "Clue", "Blood", "Powerstone", "Incubator", "Map", "Junk", "Lander", "Cursed Role"]
)
def test_predefined_names_answer_with_their_rule(sample_db: OracleDB, name: str) -> None:
    rule = re.search(rf"(?m)^(111\.10[a-z]+) An? {re.escape(name)} token is ", _cr_text())
    if rule is None:
        pytest.skip(f"{name} is not predefined in the shipped CR")
    answer = sample_db.token(name)
    assert (answer.kind, answer.rule, answer.token_type) == ("predefined", rule.group(1), name)
    assert answer.colors == () and (answer.type_line or "").startswith("Token ")


def test_role_given_name_and_incubator_faces(sample_db: OracleDB) -> None:
    cursed = sample_db.token("cursed")  # CR 111.10j "… token named Cursed"
    assert cursed.kind == "predefined" and cursed.name == "Cursed" and cursed.token_type == "Cursed Role"
    inc = sample_db.token("Incubator")  # CR 111.10i: double-faced; back face named Phyrexian Token
    assert [f["name"] for f in inc.faces] == ["Incubator", "Phyrexian Token"]
    assert inc.faces[1]["power"] == "0" and inc.faces[1]["toughness"] == "0"


def test_blood_is_the_predefined_token_not_flesh_blood(sample_db: OracleDB) -> None:
    # CR 111.10g wins; 111.11 applies only to "a name [that] is not one of the types in the list".
    assert sample_db.resolve("Blood").name == "Flesh // Blood"
    answer = sample_db.token("Blood")
    assert (answer.kind, answer.rule) == ("predefined", "111.10g")
    assert answer.oracle_text == "{1}, {T}, Discard a card, Sacrifice this token: Draw a card."
    assert any("Flesh // Blood" in n for n in answer.notes)
    blood = sample_db.token_collisions().filter(pl.col("name") == "Blood")
    assert blood.filter(pl.col("token_rule") == "111.10g")["card"].to_list() == ["Flesh // Blood"]
    assert "201.4" in blood["what"][0]


# -- CR 111.11: a token by card name ------------------------------------------------------------


def test_tarmogoyf_token_from_disa_the_restless(sample_db: OracleDB) -> None:
    # Disa the Restless (in the sample): "create a Tarmogoyf token" -> CR 111.11, the Oracle card.
    spec = _specs(sample_db, "Disa the Restless").row(0, named=True)
    goyf = sample_db.sql("SELECT oracle_id, power, toughness FROM cards WHERE name = 'Tarmogoyf'").row(0, named=True)
    assert (spec["rule"], spec["name"], spec["card_oracle_id"]) == ("111.11", "Tarmogoyf", goyf["oracle_id"])
    assert (spec["power"], spec["toughness"], spec["colors"]) == (goyf["power"], goyf["toughness"], ["G"])
    answer = sample_db.token("tarmogoyf")  # through the name resolver
    assert (answer.kind, answer.rule, answer.name, answer.mana_cost) == ("card", "111.11", "Tarmogoyf", "{1}{G}")
    collision = sample_db.token_collisions().filter(pl.col("name") == "Tarmogoyf")
    assert collision["token_rule"].to_list() == ["111.11"] and "Disa the Restless" in collision["creators"][0]


def test_111_11_split_and_double_faced_cards(sample_db: OracleDB) -> None:
    fire = sample_db.token("Fire")  # a half name: the card with that name is Fire // Ice (709.4)
    assert fire.kind == "card" and fire.name == "Fire // Ice" and len(fire.faces) == 2
    assert any("709.4" in n for n in fire.notes) and any("304.4" in n for n in fire.notes)
    dfc = sample_db.sql("SELECT name FROM cards WHERE is_card AND layout = 'transform' ORDER BY name LIMIT 1").item()
    answer = sample_db.token(dfc)
    front = dfc.split(" // ")[0]
    assert answer.name == front and len(answer.faces) == 2  # 707.8a both faces, 712.8d front face up
    assert any("707.8a" in n for n in answer.notes)


def _first_name_by(sample_db: OracleDB, via: str) -> tuple[str, str]:
    """The first name of the ``names`` table that a single-faced card has by ``via``, with its Oracle name."""
    row = sample_db.sql(
        "SELECT n.name, c.name FROM names n JOIN cards c USING (oracle_id) WHERE n.via = ? AND c.layout = 'normal' "
        "ORDER BY n.name LIMIT 1",
        [via],
    ).row(0)
    return row[0], row[1]


@pytest.mark.parametrize(
    ("via", "rule", "note"),
    [
        ("printed", "201.2", "'{name}' is a printed name of {card}; its name is the English one (201.2), {card}"),
        (
            "flavor",
            "201.6",
            "'{name}' is an alternate name printed on some versions of {card}, not its name (201.6); its name is {card}",
        ),
    ],
)
def test_a_foreign_or_alternate_name_gives_the_cards_token_and_says_it_is_no_name(
    sample_db: OracleDB, via: str, rule: str, note: str
) -> None:
    # A foreign printed name (CR 201.2) and an alternate name (CR 201.6) find the card, but neither is its
    # name: the token named after it (111.11) has the card's English Oracle name, and the answer says why.
    name, card = _first_name_by(sample_db, via)
    answer = sample_db.token(name)
    assert (answer.kind, answer.rule, answer.name, answer.matched) == ("card", "111.11", card, via)
    assert note.format(name=name, card=card) in answer.notes
    assert not any(rule in n for n in sample_db.token(card).notes)  # by its own name: no such note


# -- CR 111.4 and 111.9: names of described tokens ---------------------------------------------


def test_111_4_default_name_is_subtypes_plus_token(sample_db: OracleDB) -> None:
    specs = sample_db.token_specs().filter((pl.col("rule") == "111.4") & pl.col("given_name").is_null())
    assert specs.height > 100
    for row in specs.head(200).iter_rows(named=True):
        assert row["name"] == " ".join([*row["subtypes"], "Token"])  # CR 111.4
    marit = _specs(sample_db, "Ajani, Strength of the Pride").row(0, named=True)
    # "… token named Ajani's Pridemate": the effect names it; the card Ajani's Pridemate is irrelevant
    assert (marit["name"], marit["rule"], marit["power"], marit["subtypes"]) == (
        "Ajani's Pridemate",
        "111.4",
        "2",
        ["Cat", "Soldier"],
    )


def test_111_9_legendary_named_token_marit_lage(sample_db: OracleDB) -> None:
    # Dark Depths: "create Marit Lage, a legendary 20/20 black Avatar creature token with flying and indestructible"
    spec = _specs(sample_db, "Dark Depths").row(0, named=True)
    assert (spec["rule"], spec["name"], spec["supertypes"], spec["colors"]) == (
        "111.9",
        "Marit Lage",
        ["Legendary"],
        ["B"],
    )
    assert (spec["power"], spec["toughness"]) == ("20", "20") and "indestructible" in spec["abilities"]


def test_predefined_in_specs_and_counts(sample_db: OracleDB) -> None:
    specs = sample_db.token_specs()
    treasure = specs.filter(pl.col("rule") == "111.10a")
    assert treasure.height > 0 and set(treasure["base_name"]) == {"Treasure"}
    assert set(specs["rule"].drop_nulls()) <= {"111.4", "111.9", "111.11", "707.2"} | set(
        sample_db.sql("SELECT rule FROM predefined_tokens")["rule"]
    )
    assert specs.filter(pl.col("count") == "X").height > 0
    stored = sample_db.frame("token_specs")
    assert isinstance(stored, pl.DataFrame) and stored.shape == specs.shape  # eager unless lazy=True


# -- copies (CR 707.2, 111.4 example) ----------------------------------------------------------


def test_copy_tokens(sample_db: OracleDB) -> None:
    copies = sample_db.token_specs().filter(pl.col("rule") == "707.2")
    assert copies.height > 0 and copies["copy_of"].null_count() == 0
    other = copies.filter(pl.col("copy_of").str.starts_with("target"))
    assert other.height > 0 and other["name"].null_count() == other.height  # named when it resolves
    embalm = copies.filter(pl.col("creator_name") == "Angel of Sanctions").row(0, named=True)
    # 702.128a: "a token that's a copy of it, except it's a white Zombie Angel" — the card's name, white
    assert (embalm["name"], embalm["colors"]) == ("Angel of Sanctions", ["W"])
    twin = copies.filter(pl.col("creator_name") == "Splinter Twin").row(0, named=True)
    assert twin["name"] is None  # "this creature" in a granted ability is the enchanted creature


# -- bad input ---------------------------------------------------------------------------------


def test_empty_name_is_an_error(sample_db: OracleDB) -> None:
    with pytest.raises(OracleToolsError):
        sample_db.token("   ")


def test_unknown_name_gives_kind_none_with_suggestions(sample_db: OracleDB) -> None:
    answer = sample_db.token("Tarmogoyff")
    assert answer.kind == "none" and answer.reason and "Tarmogoyf" in answer.suggestions
    goblin = sample_db.token("Goblin")  # only a token object's name: 111.4 needs stated characteristics
    assert goblin.kind == "none" and "111.4" in (goblin.reason or "")


def test_cli_token(sample_db_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(main, ["token", "--db", str(sample_db_path), "Blood", "--json"])
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.output)
    assert {
        "kind",
        "rule",
        "name",
        "type_line",
        "colors",
        "power",
        "toughness",
        "mana_cost",
        "oracle_text",
        "faces",
    } <= set(data) and data["rule"] == "111.10g"
    none = runner.invoke(main, ["token", "--db", str(sample_db_path), "Xyzzy Qwerty"])
    assert none.exit_code == 1 and "neither" in none.output
    assert runner.invoke(main, ["token", "--db", str(sample_db_path)]).exit_code == 2
    assert runner.invoke(main, ["token", "--db", str(sample_db_path), ""]).exit_code == 2
    coll = runner.invoke(main, ["token", "--db", str(sample_db_path), "--collisions", "--json"])
    assert coll.exit_code == 0 and any(r["name"] == "Blood" for r in json.loads(coll.output))


def test_collisions_in_a_fresh_process_are_the_librarys(sample_db_path: Path) -> None:
    """`token --collisions` as a user runs it, in a fresh process (whose point path connects through DuckDB's
    core, without the package's relations): the same table as OracleDB.token_collisions (CR 111.10, 201.4)."""
    import subprocess
    import sys

    command = ["token", "--collisions", "--json", "--db", str(sample_db_path)]
    done = subprocess.run(
        [sys.executable, "-m", "oracle_tools.interfaces.cli", *command],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    with OracleDB(sample_db_path) as db:
        expected = db.token_collisions()
    assert pl.DataFrame(json.loads(done.stdout)).equals(expected) and expected.height > 0


def test_rules_file_that_is_not_the_rules_keeps_the_old_db(sample_db_path: Path, tmp_path: Path) -> None:
    db_path = tmp_path / "copy.duckdb"
    shutil.copy(sample_db_path, db_path)
    before = db_path.read_bytes()
    bogus = tmp_path / "rules.txt"
    bogus.write_text("These are not the rules.\n111.10a A Treasure token is nothing.\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["ingest", "--db", str(db_path), "--rules-file", str(bogus), "--no-progress"])
    assert result.exit_code == 2 and "not the Comprehensive Rules" in result.output
    assert db_path.read_bytes() == before
    with OracleDB(db_path) as db:
        assert db.token("Treasure").kind == "predefined"


# -- tokens that effects name and define (CR 111.4, 111.9; real data: test_named_tokens.py) --


def test_sample_marit_lage_is_the_effect_defined_token(sample_db: OracleDB) -> None:
    # Dark Depths and Marit Lage's Slumber (both in the sample): "create Marit Lage, a legendary 20/20
    # black Avatar creature token with flying and indestructible" — CR 111.9; no Oracle card is involved.
    texts = sample_db.sql("SELECT name, oracle_text FROM cards WHERE contains(oracle_text, 'create Marit Lage, a')")
    answer = sample_db.token("Marit Lage")
    assert (answer.kind, answer.rule, answer.type_line) == ("effect", "111.9", "Token Legendary Creature — Avatar")
    assert set(answer.created_by) == set(texts["name"]) == {"Dark Depths", "Marit Lage's Slumber"}
    for text in texts["oracle_text"]:
        assert "20/20 black Avatar" in text and (answer.power, answer.toughness, answer.colors) == ("20", "20", ("B",))
    assert answer.oracle_text == "Flying, indestructible"


def test_sample_token_catalog_and_cli_list(sample_db: OracleDB, sample_db_path: Path) -> None:
    catalog = sample_db.token_list()
    marit = catalog.filter((pl.col("name") == "Marit Lage") & (pl.col("kind") == "effect")).row(0, named=True)
    assert marit["creators"] == ["Dark Depths", "Marit Lage's Slumber"] and marit["definitions"] == 1
    blood = catalog.filter((pl.col("name") == "Blood") & (pl.col("kind") == "predefined")).row(0, named=True)
    assert (blood["rule"], blood["card_name"]) == ("111.10g", "Flesh // Blood")
    result = CliRunner().invoke(main, ["token", "--db", str(sample_db_path), "--list"])
    assert result.exit_code == 0 and "Marit Lage  [effect 111.9]" in result.output


def test_token_list_on_a_database_without_the_view(tmp_path: Path) -> None:
    import duckdb

    path = tmp_path / "old.duckdb"
    duckdb.connect(str(path)).close()
    result = CliRunner().invoke(main, ["token", "--db", str(path), "--list"])
    assert result.exit_code == 2 and "ingest" in result.output and "Traceback" not in result.output


def test_every_name_token_list_shows_gets_one_answer(sample_db: OracleDB) -> None:
    """`token NAME` answers every name `token --list` shows (view token_catalog) as a token, never with "neither
    a predefined token … nor a card": a token Scryfall's all_parts links to its creators (Thopter, Servo) is a
    token object as Goblin is (CR 111.4: the effect that creates it gives its characteristics)."""
    catalog = sample_db.sql("SELECT DISTINCT name, kind FROM token_catalog").rows()
    assert ("Thopter", "object") in catalog and ("Servo", "object") in catalog
    for name, kind in catalog:
        answer = sample_db.token(name)
        assert answer.ok or "is the name of a token object" in (answer.reason or ""), (name, kind, answer.reason)
    thopter = CliRunner().invoke(main, ["token", "Thopter", "--db", str(sample_db.path)])
    assert "is the name of a token object" in thopter.output and "token --list Thopter" in thopter.output
