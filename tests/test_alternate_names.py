"""Interchangeable names (CR 201.3) and alternate names (CR 201.6) as Scryfall really records them.

Real data: ``../shared/realdata/scryfall-shaped-2025-alternate-names.json.gz`` (see its section in
SOURCES.md): 147 *Through the Omenpaths* (om1) printings recorded as printings of the Marvel's
Spider-Man Oracle card, their own English name only in ``printed_name`` (201.3), and 26 printings
with a ``flavor_name`` (201.6). Expected answers are read from that file, not from our output.
The database of the 2019 dump + the 2024 file + that file is built once for this module.
The last tests use the embedded sample (offline), which carries a handful of these printings.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from click.testing import CliRunner
from conftest import build_in_child

from oracle_tools import OracleDB
from oracle_tools.decks.decklist import parse_decklist
from oracle_tools.errors import OracleToolsError
from oracle_tools.interfaces.cli import main

ALTERNATE_FILE = "scryfall-shaped-2025-alternate-names.json.gz"
REAL_FILES = (
    "scryfall-default-cards-2019-10-per-set-dump.json.gz",
    "scryfall-search-2024-mh3-otj-fdn.json.gz",
    ALTERNATE_FILE,
)


@pytest.fixture(scope="module")
def alternate_objects(realdata: Path) -> list[dict[str, Any]]:
    with gzip.open(realdata / ALTERNATE_FILE, "rt", encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def om1(alternate_objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for c in alternate_objects if c["set"] == "om1" and c.get("printed_name")]


@pytest.fixture(scope="module")
def flavored(alternate_objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for c in alternate_objects if c.get("flavor_name")]


@pytest.fixture(scope="module")
def alt_db(realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OracleDB]:
    """The real 2019 dump + the 2024 Scryfall objects + the 2025 alternate-names printings."""
    path = tmp_path_factory.mktemp("alternate") / "alternate.duckdb"
    db = OracleDB(build_in_child(path, [realdata / f for f in REAL_FILES]))
    yield db
    db.close()


# -- ingest: the shared file goes in whole ----------------------------------------------------------


@pytest.mark.realdata
def test_ingest_keeps_every_printing_with_its_names(alt_db: OracleDB, alternate_objects: list[dict]) -> None:
    ids = [c["id"] for c in alternate_objects]
    got = alt_db.sql(
        "SELECT id, name, printed_name, flavor_name, set_code, collector_number, lang FROM printings "
        "WHERE list_contains(?, id)",
        [ids],
    )
    assert got.height == len(alternate_objects) == 173
    by_id = {row["id"]: row for row in got.iter_rows(named=True)}
    for card in alternate_objects:
        row = by_id[card["id"]]
        assert (
            row["name"],
            row["printed_name"],
            row["flavor_name"],
            row["set_code"],
            row["collector_number"],
            row["lang"],
        ) == (
            card["name"],
            card.get("printed_name"),
            card.get("flavor_name"),
            card["set"],
            card["collector_number"],
            "en",
        )


# -- the quality bar: every name resolves with the right via ----------------------------------------


@pytest.mark.realdata
def test_every_om1_name_is_an_interchangeable_name_of_its_oracle_card(alt_db: OracleDB, om1: list[dict]) -> None:
    # CR 201.3: the OM1 name (printed_name, lang en) and the Oracle name are interchangeable
    assert len(om1) == len({c["printed_name"] for c in om1}) == 147
    for card in om1:
        printed, oracle = card["printed_name"], card["name"]
        result = alt_db.resolve(printed)
        assert (result.status, result.oracle_id, result.name, result.face, result.via) == (
            "ok",
            card["oracle_id"],
            oracle,
            None,
            "interchangeable",
        ), printed
        # the class has exactly its two names, listed in both directions
        assert result.names == tuple(sorted((printed, oracle)))
        back = alt_db.resolve(oracle)
        assert (back.status, back.via, back.names) == ("ok", "name", result.names), oracle


@pytest.mark.realdata
def test_every_flavor_name_resolves_to_its_oracle_card_and_joins_no_class(
    alt_db: OracleDB, flavored: list[dict]
) -> None:
    # CR 201.6: the alternate name finds the card, which has only its Oracle name
    assert len({c["flavor_name"] for c in flavored}) == 26
    for card in flavored:
        result = alt_db.resolve(card["flavor_name"])
        assert (result.status, result.oracle_id, result.name, result.via) == (
            "ok",
            card["oracle_id"],
            card["name"],
            "flavor",
        ), card["flavor_name"]
        assert result.names == (card["name"],)
    in_classes = alt_db.sql(
        "SELECT count(*) FROM name_classes WHERE list_contains(?, name)", [[c["flavor_name"] for c in flavored]]
    ).item()
    assert in_classes == 0


@pytest.mark.realdata
def test_a_miswritten_om1_or_flavor_name_is_suggested(alt_db: OracleDB, om1: list[dict], flavored: list[dict]) -> None:
    # CR 201.3: an OM1 name is a name of the card, and a 201.6 alternate name is printed on it: a decklist
    # or a user writing either without its punctuation is pointed at it (both lookup paths alike).
    from oracle_tools.names.point import PointNames

    point = PointNames(alt_db.con)
    found = 0
    for written in [c["printed_name"] for c in om1] + [c["flavor_name"] for c in flavored]:
        typo = written.replace(",", "").replace("'", "").replace("-", " ")[:-1]  # no punctuation, last letter gone
        full = alt_db.name_index.resolve(typo)
        assert full.suggestions == point.resolve(typo).suggestions, typo
        if full.status == "not_found":
            found += written in full.suggestions
    assert found > 0.95 * (len(om1) + len(flavored))
    fuzzy = alt_db.resolve("Ruzic Booed but Victorius", fuzzy=True)
    assert (fuzzy.name, fuzzy.via, fuzzy.names) == (
        "Ultimate Green Goblin",
        "fuzzy",
        ("Ruzic, Booed but Victorious", "Ultimate Green Goblin"),
    )


@pytest.mark.realdata
def test_english_printed_names_are_not_foreign_names(alt_db: OracleDB) -> None:
    # the 2019 dump's foreign printings still resolve via 'printed' (201.2); no English name is 'printed'
    assert alt_db.sql("SELECT count(*) FROM names WHERE via = 'printed' AND lang = 'en'").item() == 0
    assert alt_db.sql("SELECT count(*) FROM names WHERE via = 'interchangeable' AND lang <> 'en'").item() == 0
    foreign = alt_db.sql(
        "SELECT printed_name, name FROM printings WHERE lang <> 'en' AND printed_name IS NOT NULL "
        "AND printed_name <> name AND layout = 'normal' ORDER BY id LIMIT 200"
    )
    checked = 0
    for printed, english in foreign.iter_rows():
        result = alt_db.resolve(printed)
        if result.status == "ok":
            assert (result.name, result.via) == (english, "printed")
            checked += 1
    assert checked > 150


# -- CR 201.3a: the same name for rules, abilities and effects ---------------------------------------


@pytest.mark.realdata
def test_201_3a_interchangeable_names_are_the_same_name(alt_db: OracleDB) -> None:
    ruzic, goblin = "Ruzic, Booed but Victorious", "Ultimate Green Goblin"
    assert alt_db.same_name(ruzic, goblin)
    assert not alt_db.have_different_names([ruzic, goblin])
    assert not alt_db.has_different_name(ruzic, [goblin, "Kumonosu, the Watchful"])
    # two different Spider-Man cards, each written by its OM1 name, still have different names
    assert alt_db.have_different_names([ruzic, "Kumonosu, the Watchful"])
    assert not alt_db.same_name(ruzic, "SP//dr, Piloted by Peni")


# -- CR 201.3b: deck construction and format legality -----------------------------------------------


@pytest.mark.realdata
def test_201_3b_four_goblins_and_one_ruzic_are_five_copies(alt_db: OracleDB) -> None:
    report = alt_db.check_deck("4 Ultimate Green Goblin\n1 Ruzic, Booed but Victorious\n55 Mountain", format="modern")
    copies = [p for p in report.problems if p.kind == "too_many_copies"]
    assert len(copies) == 1
    assert copies[0].card == "Ultimate Green Goblin" and copies[0].detail.startswith("5 copies of")
    assert "201.3b" in copies[0].detail and "Ruzic, Booed but Victorious" in copies[0].detail
    # four copies written with both names together are fine
    fine = alt_db.check_deck("3 Ultimate Green Goblin\n1 Ruzic, Booed but Victorious\n56 Mountain", format="modern")
    assert not [p for p in fine.problems if p.kind == "too_many_copies"]


COMMANDER_DECK = """Commander
1 Rakdos, Lord of Riots

Deck
1 Ultimate Green Goblin
1 Ruzic, Booed but Victorious
1 'Tis But a Scratch!
96 Swamp
"""


@pytest.mark.realdata
def test_201_3b_commander_singleton_counts_the_class_and_json_says_which_line_used_which_name(
    alt_db: OracleDB, tmp_path: Path
) -> None:
    deck = tmp_path / "goblins.txt"
    deck.write_text(COMMANDER_DECK, encoding="utf-8")
    out = CliRunner().invoke(
        main, ["deck", "check", str(deck), "--format", "commander", "--json", "--db", str(alt_db.path)]
    )
    assert out.exit_code == 1, out.output
    data = json.loads(out.output)
    # the only problem: Ultimate Green Goblin twice in a singleton format (CR 903.5b with 201.3b)
    assert [(p["kind"], p["card"], p["line"]) for p in data["problems"]] == [
        ("too_many_copies", "Ultimate Green Goblin", 5)
    ]
    assert data["problems"][0]["detail"].startswith("2 copies of Ultimate Green Goblin (lines 5, 6)")
    used = {(x["line"], x["written"]): (x["card"], x["via"]) for x in data["lines"]}
    assert used[(5, "Ultimate Green Goblin")] == ("Ultimate Green Goblin", "name")
    assert used[(6, "Ruzic, Booed but Victorious")] == ("Ultimate Green Goblin", "interchangeable")
    assert used[(7, "'Tis But a Scratch!")] == ("Dismember", "flavor")  # CR 201.6: counted as Dismember
    assert data["counts"]["main"] + data["counts"]["commander"] == 100


# -- CR 201.3c: the printings are the source of a name -----------------------------------------------


@pytest.mark.realdata
def test_201_3c_classes_cite_the_printings_that_carry_each_name(alt_db: OracleDB, om1: list[dict]) -> None:
    rows = alt_db.sql("SELECT class_id, name, oracle_id, kind, source, printings FROM name_classes")
    by_name = {row["name"]: row for row in rows.iter_rows(named=True)}
    assert rows.height == 2 * len(om1)  # the data holds no other interchangeable name
    for card in om1:
        printed = by_name[card["printed_name"]]
        assert printed["kind"] == "printed" and printed["oracle_id"] == card["oracle_id"]
        assert printed["printings"] == [
            {"id": card["id"], "set_code": "om1", "collector_number": card["collector_number"]}
        ]
        oracle = by_name[card["name"]]
        assert (oracle["kind"], oracle["class_id"]) == ("oracle", printed["class_id"])
    assert by_name["Ruzic, Booed but Victorious"]["source"] == "English printed name on om1 #153"
    # the view lists each class with those printings
    view = alt_db.sql(
        "SELECT name, set_code, collector_number, class_names FROM name_aliases "
        "WHERE rule = '201.3' AND NOT is_oracle_name"
    )
    assert view.height == len(om1)
    ruzic = view.filter(view["name"] == "Ruzic, Booed but Victorious").row(0, named=True)
    assert (ruzic["set_code"], ruzic["collector_number"]) == ("om1", "153")
    assert ruzic["class_names"] == ["Ruzic, Booed but Victorious", "Ultimate Green Goblin"]


@pytest.mark.realdata
def test_the_view_lists_every_flavor_name_with_its_printing(alt_db: OracleDB, flavored: list[dict]) -> None:
    view = alt_db.sql(
        "SELECT name, card_name, set_code, collector_number, printing_id, class_id FROM name_aliases "
        "WHERE rule = '201.6'"
    )
    got = sorted(
        (r["name"], r["card_name"], r["set_code"], r["collector_number"], r["printing_id"])
        for r in view.iter_rows(named=True)
    )
    assert got == sorted((c["flavor_name"], c["name"], c["set"], c["collector_number"], c["id"]) for c in flavored)
    assert view["class_id"].null_count() == view.height
    ozolith = view.filter(view["card_name"] == "The Ozolith")["name"].sort().to_list()
    assert ozolith == ["Adamantium Bonding Tank", "Argonath, Pillars of the Kings"]


@pytest.mark.realdata
def test_search_keywords_find_exactly_these_cards_and_printings(
    alt_db: OracleDB, om1: list[dict], flavored: list[dict]
) -> None:
    # is:interchangeable (CR 201.3): the cards with a class of interchangeable names — the OM1 cards' Oracle cards
    found = alt_db.search("is:interchangeable")
    assert set(found["oracle_id"]) == {c["oracle_id"] for c in om1} and found.height == 147
    # has:flavorname (CR 201.6): per printing, so unique:prints gives exactly the printings with a flavor_name
    prints = alt_db.search("has:flavorname", unique="prints")
    assert sorted(prints["id"]) == sorted(c["id"] for c in flavored)
    assert set(alt_db.search("has:flavorname")["oracle_id"]) == {c["oracle_id"] for c in flavored}
    # negated: the Serra Ascendant printings without the Aang name
    plain = alt_db.search('!"Serra Ascendant" -has:flavorname', unique="prints")
    aang = next(c["id"] for c in flavored if c["flavor_name"] == "Aang, Ascendant Airbender")
    assert plain.height > 0 and aang not in set(plain["id"])


# -- CR 201.4g: choosing one name of the class chooses them all ---------------------------------------


@pytest.mark.realdata
def test_201_4g_choosing_an_om1_name_chooses_its_whole_class(alt_db: OracleDB, om1: list[dict]) -> None:
    verdict = alt_db.choose_name("Ruzic, Booed but Victorious", "creature")
    assert (verdict.valid, verdict.rule) == (True, "201.4g")
    assert verdict.chosen == ("Ultimate Green Goblin", "Ruzic, Booed but Victorious")
    assert "201.4a" in verdict.rules  # the Oracle characteristics were judged (a creature)
    for card in om1:
        v = alt_db.choose_name(card["printed_name"])
        assert (v.valid, v.rule, set(v.chosen)) == (True, "201.4g", {card["name"], card["printed_name"]})
    # the class does not make an invalid choice valid: Ultimate Green Goblin is no noncreature card
    refused = alt_db.choose_name("Ruzic, Booed but Victorious", "noncreature")
    assert (refused.valid, refused.chosen) == (False, ())
    # the enumeration says the same: each Oracle card's row lists the OM1 name chosen with it
    listed = alt_db.nameable("creature").filter(pl.col("interchangeable_names").list.len() > 0)
    pairs = {(r["name"], tuple(r["interchangeable_names"])) for r in listed.iter_rows(named=True)}
    creatures = {
        (c["name"], (c["printed_name"],)) for c in om1 if alt_db.choose_name(c["printed_name"], "creature").valid
    }
    assert pairs == creatures and len(creatures) > 50


# -- CR 201.6: an alternate name is not a name of the card --------------------------------------------


@pytest.mark.realdata
def test_201_6_flavor_names_are_not_names_of_the_card(alt_db: OracleDB) -> None:
    assert alt_db.object_names("Aang, Ascendant Airbender") == frozenset({"Serra Ascendant"})
    assert alt_db.same_name("Aang, Ascendant Airbender", "Serra Ascendant")
    # The Ozolith's two alternate names are one card with one name
    assert not alt_db.have_different_names(["Adamantium Bonding Tank", "Argonath, Pillars of the Kings"])
    verdict = alt_db.choose_name("Aang, Ascendant Airbender", "creature")
    assert (verdict.valid, verdict.chosen, verdict.name) == (True, ("Serra Ascendant",), "Serra Ascendant")
    assert "201.6" in verdict.rules and "201.4g" not in verdict.rules


# -- a '//' inside a single-faced name ----------------------------------------------------------------


@pytest.mark.realdata
def test_sp_dr_resolves_to_itself_and_is_never_split(alt_db: OracleDB) -> None:
    name = "SP//dr, Piloted by Peni"
    assert alt_db.sql("SELECT layout FROM cards WHERE name = ?", [name]).item() == "normal"
    for typed, via in (
        (name, "name"),
        ("sp//dr, piloted by peni", "normalized"),
        ("SP // dr, Piloted by Peni", "normalized"),
        ("Kumonosu, the Watchful", "interchangeable"),
    ):
        result = alt_db.resolve(typed)
        assert (result.status, result.name, result.face, result.via) == ("ok", name, None, via), typed
    assert alt_db.object_names(name) == frozenset({name})  # one name, not two halves (709.4a)
    assert (
        alt_db.sql(
            "SELECT count(*) FROM names WHERE oracle_id = (SELECT oracle_id FROM cards WHERE name = ?) "
            "AND via = 'face'",
            [name],
        ).item()
        == 0
    )
    assert alt_db.resolve("SP").name != name and alt_db.resolve("dr, Piloted by Peni").status == "not_found"
    verdict = alt_db.choose_name(name)
    assert verdict.valid and verdict.rule == "201.4g"  # not 201.4b: no split card
    (entry,) = parse_decklist(f"1 {name}").entries
    assert entry.name == name
    report = alt_db.check_deck(f"1 {name}\n1 Kumonosu, the Watchful\n38 Island", format="limited")
    assert not [p for p in report.problems if p.kind == "unknown_card"]
    assert {x["card"] for x in report.lines if x["line"] in (1, 2)} == {name}


# -- the override table: only for pairs a data source lacks ------------------------------------------

SPM_PRINTING = {  # Ultimate Green Goblin as an oracle_cards-style file has it: no OM1 printing
    "object": "card",
    "id": "00000000-0000-4000-8000-00000000a153",
    "name": "Ultimate Green Goblin",
    "lang": "en",
    "layout": "normal",
    "mana_cost": "{1}{B/R}{B/R}",
    "cmc": 3.0,
    "type_line": "Legendary Creature — Goblin Villain",
    "power": "5",
    "toughness": "4",
    "oracle_text": "At the beginning of your upkeep, discard a card, then create a Treasure token.",
    "colors": ["B", "R"],
    "color_identity": ["B", "R"],
    "legalities": {"commander": "legal"},
    "set": "spm",
    "set_name": "Marvel's Spider-Man",
    "collector_number": "153",
    "released_at": "2025-09-26",
}


@pytest.mark.realdata
def test_override_table_adds_a_pair_the_data_lacks(alternate_objects: list[dict], tmp_path: Path) -> None:
    goblin = next(c for c in alternate_objects if c.get("printed_name") == "Ruzic, Booed but Victorious")
    cards = tmp_path / "spm.json"
    cards.write_text(json.dumps([{**SPM_PRINTING, "oracle_id": goblin["oracle_id"]}]), encoding="utf-8")
    table = tmp_path / "override.csv"
    table.write_text(
        "# CR 201.3 pairs this data lacks\nclass_id,name,source\n"
        'ugg,Ultimate Green Goblin,om1 #153 indicator\nugg,"Ruzic, Booed but Victorious",om1 #153\n',
        encoding="utf-8",
    )
    bare = OracleDB.ingest_files(tmp_path / "bare.duckdb", [cards])
    assert bare.resolve("Ruzic, Booed but Victorious").status == "not_found"  # the data alone lacks the name
    bare.close()
    db = OracleDB.ingest_files(tmp_path / "override.duckdb", [cards], interchangeable_file=table)
    result = db.resolve("Ruzic, Booed but Victorious")
    assert (result.status, result.name, result.via) == ("ok", "Ultimate Green Goblin", "interchangeable")
    assert result.names == ("Ruzic, Booed but Victorious", "Ultimate Green Goblin")
    kinds = dict(db.sql("SELECT name, kind FROM name_classes WHERE class_id = 'ugg'").iter_rows())
    assert kinds == {"Ultimate Green Goblin": "oracle", "Ruzic, Booed but Victorious": "override"}
    db.close()


@pytest.mark.realdata
def test_override_and_data_giving_the_same_pair_make_one_class(realdata: Path, tmp_path: Path) -> None:
    table = tmp_path / "override.csv"
    table.write_text(
        'class_id,name,source\nugg,Ultimate Green Goblin,\nugg,"Ruzic, Booed but Victorious",x\n', encoding="utf-8"
    )
    db = OracleDB.ingest_files(tmp_path / "both.duckdb", [realdata / ALTERNATE_FILE], interchangeable_file=table)
    rows = db.sql(
        "SELECT class_id, name, kind, source FROM name_classes WHERE name IN "
        "('Ultimate Green Goblin', 'Ruzic, Booed but Victorious') ORDER BY name"
    )
    assert rows["class_id"].to_list() == ["ugg", "ugg"]
    assert rows["kind"].to_list() == ["printed", "oracle"]
    assert rows["source"][0] == "English printed name on om1 #153; override.csv: x"
    assert db.resolve("Ultimate Green Goblin").names == ("Ruzic, Booed but Victorious", "Ultimate Green Goblin")
    # each name is in one class only, so SQL readers find "the class of a name" with one lookup
    assert (
        db.sql("SELECT max(n) FROM (SELECT count(DISTINCT class_id) AS n FROM name_classes GROUP BY name)").item() == 1
    )
    db.close()


def test_a_broken_override_table_is_one_clear_error(tmp_path: Path) -> None:
    from oracle_tools.names.build import read_interchangeable_file

    bad = tmp_path / "bad.csv"
    bad.write_text("class,name\nx,Ultimate Green Goblin\n", encoding="utf-8")
    with pytest.raises(OracleToolsError, match="lacks column"):
        read_interchangeable_file(bad)
    bad.write_text("class_id,name,source\nx,,\n", encoding="utf-8")
    with pytest.raises(OracleToolsError, match="empty class_id or name"):
        read_interchangeable_file(bad)


# -- the embedded sample shows 201.3 and 201.6 offline ------------------------------------------------


def test_sample_resolves_interchangeable_and_flavor_names(sample_db: OracleDB) -> None:
    # the printings exist in the sample (alternate-names.json.gz), so the answers come from its data
    assert (
        sample_db.sql(
            "SELECT count(*) FROM printings WHERE set_code = 'om1' AND lang = 'en' AND printed_name IS NOT NULL"
        ).item()
        == 4
    )
    ruzic = sample_db.resolve("Ruzic, Booed but Victorious")
    assert (ruzic.name, ruzic.via, ruzic.names) == (
        "Ultimate Green Goblin",
        "interchangeable",
        ("Ruzic, Booed but Victorious", "Ultimate Green Goblin"),
    )
    tank = sample_db.resolve("Adamantium Bonding Tank")
    assert (tank.name, tank.via, tank.names) == ("The Ozolith", "flavor", ("The Ozolith",))
    scratch = sample_db.resolve("'Tis But a Scratch!")
    assert (scratch.name, scratch.via) == ("Dismember", "flavor")
    # Dismember's 2019 printings and legalities are unchanged by its flavor-name printing
    assert (
        sample_db.sql(
            "SELECT status FROM legalities WHERE format = 'modern' AND oracle_id = ?", [scratch.oracle_id]
        ).item()
        == "legal"
    )
    spdr = sample_db.resolve("SP//dr, Piloted by Peni")
    assert (spdr.name, spdr.face, spdr.names) == (
        "SP//dr, Piloted by Peni",
        None,
        ("Kumonosu, the Watchful", "SP//dr, Piloted by Peni"),
    )
    aliases = sample_db.sql("SELECT rule, count(*) AS n FROM name_aliases GROUP BY rule ORDER BY rule")
    assert aliases.rows() == [("201.3", 8), ("201.6", 4)]


def test_sample_choose_name_201_4g(sample_db: OracleDB) -> None:
    verdict = sample_db.choose_name("Kavaero, Mind-Bitten", "nonland")
    assert (verdict.valid, verdict.rule, verdict.chosen) == (
        True,
        "201.4g",
        ("Superior Spider-Man", "Kavaero, Mind-Bitten"),
    )
