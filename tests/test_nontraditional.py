"""Nontraditional cards in decklists (CR 108.2a): Attractions (717), Contraptions (701.45a), conspiracies (315, 905),
planes, phenomena, schemes and vanguards (311-314, 900.1) are no cards of a player's deck.

CR 108.2a: "Nontraditional Magic cards are not included in players' decks. They may be used in supplementary decks."
CR 717.2: "Attraction cards do not begin the game in a player's deck and do not count toward maximum or minimum deck
sizes." 717.2a: "In constructed play, an Attraction deck must contain at least ten Attraction cards and each card in
an Attraction deck must have a different English name." 717.2b: limited, at least three, names may repeat.

The cards are real: tests/fixtures/companions.json (see tests/test_companions.py): Information Booth and Kiddie
Coaster from the 2025 commander-legal list, Brago's Favor, Auto-Key, Celestine Reef and Perhaps You've Met My Cohort
from the 2019 Scryfall dump.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB
from oracle_tools.interfaces.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "companions.json"

BOOTH_EDH = "Commander\n1 Atraxa, Praetors' Voice\n\nDeck\n1 Information Booth\n98 Plains\n"


@pytest.fixture(scope="module")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("nontraditional") / "nontraditional.duckdb"
    OracleDB.ingest_files(path, [FIXTURE]).close()
    return path


@pytest.fixture(scope="module")
def db(db_path: Path) -> Iterator[OracleDB]:
    with OracleDB(db_path) as opened:
        yield opened


def test_an_attraction_among_100_cards_is_no_card_of_the_commander_deck(db: OracleDB) -> None:
    """Information Booth among 100 cards: 99 cards of the deck (CR 717.2, 903.5a) and an Attraction deck of one
    (717.2a: at least ten in constructed play); a note says where the Attraction goes."""
    report = db.check_deck(BOOTH_EDH, format="commander")
    assert report.counts["main"] == 98
    sizes = sorted(p.detail for p in report.problems if p.kind == "deck_size")
    assert sizes[0].startswith("The Attraction deck has 1 Attraction card") and "CR 717.2a" in sizes[0]
    assert sizes[1].startswith("The deck has 99 cards including the commander(s)")
    [note] = report.notes
    assert note.startswith("line 5: Information Booth is an Attraction, a nontraditional card (CR 108.2a)")
    assert "CR 717.2" in note and "do not count toward deck sizes" in note


def test_an_attraction_deck_beside_a_full_deck(db: OracleDB) -> None:
    """Limited: three Attractions, one name twice, beside 40 cards is legal (717.2b); constructed play wants ten
    different names (717.2a): Kiddie Coaster twice is one copy too many there."""
    limited = db.check_deck("2 Kiddie Coaster\n1 Information Booth\n40 Plains\n", format="limited")
    assert limited.verdict == "legal" and limited.counts["main"] == 40, limited.problems
    assert len(limited.notes) == 2
    edh = db.check_deck(BOOTH_EDH.replace("98 Plains", "2 Kiddie Coaster\n99 Plains"), format="commander")
    copies = [p for p in edh.problems if p.kind == "too_many_copies"]
    assert [(p.card, p.line) for p in copies] == [("Kiddie Coaster", 6)] and "CR 717.2a" in copies[0].detail
    assert not [p for p in edh.problems if "The deck has" in p.detail]  # 99 Plains + Atraxa: 100 cards


def test_a_conspiracy_and_a_contraption_are_set_apart(db: OracleDB) -> None:
    """CR 315.3: a conspiracy can't be included in a deck; it starts in the sideboard (905.4), where it counts.
    CR 701.45a leaves Unstable's Contraptions to the Unstable FAQ: no card of the deck either."""
    report = db.check_deck("1 Brago's Favor\n1 Auto-Key\n40 Plains\n\nSideboard\n1 Brago's Favor\n", format="limited")
    assert report.verdict == "legal" and report.counts["main"] == 40 and report.counts["sideboard"] == 1
    assert [n.split(" is ")[0] for n in report.notes] == ["line 1: Brago's Favor", "line 2: Auto-Key"]
    assert "CR 315.3, 905.4" in report.notes[0] and "CR 701.45a" in report.notes[1]


def test_a_plane_or_a_scheme_is_no_card_of_any_deck_checked(db: OracleDB) -> None:
    """Planes and schemes (the data's layouts planar and scheme, no cards of the Oracle reference) were said to be
    tokens; they are nontraditional cards of casual variants (CR 900.1): not legal, not counted as deck cards."""
    report = db.check_deck("1 Celestine Reef\n1 Perhaps You've Met My Cohort\n60 Plains\n", format="legacy")
    assert report.counts["main"] == 60
    assert [(p.kind, p.line) for p in report.problems] == [("not_legal", 1), ("not_legal", 2)]
    plane, scheme = (p.detail for p in report.problems)
    assert plane.startswith("Celestine Reef is a plane, a nontraditional card (CR 108.2a)") and "Planechase" in plane
    assert "token" not in plane and "CR 314.2, 904.3" in scheme and "Archenemy" in scheme


def test_the_attraction_rule_through_every_door(db: OracleDB, db_path: Path, tmp_path: Path) -> None:
    """Library, CLI, HTTP, the web page and MCP say the same (all ask OracleDB.check_deck)."""
    from oracle_server import Server, mcp_tool_json

    library = db.check_deck(BOOTH_EDH, format="commander").to_dict()
    deck = tmp_path / "booth.txt"
    deck.write_text(BOOTH_EDH, encoding="utf-8")
    cli = CliRunner().invoke(
        main, ["deck", "check", "--db", str(db_path), str(deck), "--format", "commander", "--json"]
    )
    assert cli.exit_code == 1, cli.output
    answer = json.loads(cli.stdout)
    assert (answer["problems"], answer["notes"]) == (library["problems"], library["notes"])
    mcp = mcp_tool_json(db, "check_deck", {"decklist": BOOTH_EDH, "format": "commander"})
    assert (mcp["problems"], mcp["notes"]) == (library["problems"], library["notes"])
    server = Server(db_path, "--no-warm")
    try:
        api = server.client.post("/decks/check", params={"format": "commander"}, content=BOOTH_EDH.encode()).json()
        assert (api["problems"], api["notes"]) == (library["problems"], library["notes"])
        page = server.client.post("/deck", data={"deck": BOOTH_EDH, "format": "commander"})
        assert page.status_code == 200 and "The Attraction deck has 1 Attraction card" in page.text
        assert "Information Booth is an Attraction, a nontraditional card" in page.text
    finally:
        assert "Traceback" not in server.stop()


def test_an_attraction_is_no_card_of_the_starting_deck_a_companion_reads(db: OracleDB) -> None:
    """Keruga: "only cards with mana value 3 or greater and land cards": the Attractions (mana value 0) are not in the
    starting deck (CR 717.2, 702.139a), so they break nothing."""
    deck = "Companion\n1 Keruga, the Macrosage\n\nDeck\n4 Kitchen Finks\n36 Forest\n2 Kiddie Coaster\n1 Information Booth\n"
    report = db.check_deck(deck, format="limited")
    assert report.verdict == "legal", report.problems
