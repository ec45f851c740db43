"""A commander whose color is chosen before the game begins (CR 903.4b), and other commanders at the edges of 903.3,
on real cards.

tests/fixtures/chosen_color.json holds real cards of the 2025 commander-legal trimmed Scryfall file in
../shared/realdata (Scryfall-shaped by scripts/make_sample.py's ``trimmed_to_card``): The Prismatic Piper, Faceless One
and Clara Oswald, whose colour identity is colorless but who say "If [this] is your commander, choose a color before
the game begins. [This] is the chosen color.", beside partners and cards of each color; and Grist, the Hunger Tide.

CR 903.4b: "If a commander has a static ability that causes a player to choose its color before the game begins, that
choice applies during deck construction and throughout the game, even as the commander changes zones. That choice
affects the commander's color identity."
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from oracle_tools import OracleDB
from oracle_tools.decks.report import DeckReport

FIXTURE = Path(__file__).parent / "fixtures" / "chosen_color.json"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OracleDB]:
    path = tmp_path_factory.mktemp("chosen_color") / "chosen_color.duckdb"
    OracleDB.ingest_files(path, [FIXTURE]).close()
    with OracleDB(path) as opened:
        yield opened


def _identity(report: DeckReport) -> list[tuple[str | None, str]]:
    return [(p.card, p.detail) for p in report.problems if p.kind == "color_identity"]


def _deck(commanders: list[str], rest: list[tuple[int, str]], basics: str) -> str:
    used = len(commanders) + sum(n for n, _ in rest)
    body = "".join(f"{n} {name}\n" for n, name in rest)
    return "Commander\n" + "".join(f"1 {c}\n" for c in commanders) + f"\nDeck\n{body}{100 - used} {basics}\n"


def test_the_chosen_color_is_the_commanders(db: OracleDB) -> None:
    """The Prismatic Piper with Counterspell and Islands: blue is chosen (903.4b), the deck is legal, a note says so."""
    report = db.check_deck(_deck(["The Prismatic Piper"], [(1, "Counterspell")], "Island"), format="commander")
    assert report.verdict == "legal", report.problems
    [note] = [n for n in report.notes if "903.4b" in n]
    assert "The Prismatic Piper" in note and "{U}" in note


def test_one_color_is_chosen_not_two(db: OracleDB) -> None:
    """One color: Islands and Counterspell make it blue; Lightning Bolt's red, and Fire // Ice's, stay outside."""
    deck = _deck(["The Prismatic Piper"], [(1, "Counterspell"), (1, "Lightning Bolt"), (1, "Fire // Ice")], "Island")
    found = _identity(db.check_deck(deck, format="commander"))
    assert [card for card, _ in found] == ["Lightning Bolt", "Fire // Ice"]
    assert all("{U}" in detail and detail.endswith("(CR 903.5c).") for _, detail in found), found


def test_a_chosen_color_beside_a_partner_background_or_doctor(db: OracleDB) -> None:
    """The chosen color adds to the other commander's (702.124c): Piper with Tymna (partner), Faceless One with
    Wilson (choose a Background), Clara Oswald with The Tenth Doctor (Doctor's companion)."""
    for pair, card, basics in (
        (["The Prismatic Piper", "Tymna the Weaver"], "Counterspell", "Plains"),
        (["Wilson, Refined Grizzly", "Faceless One"], "Counterspell", "Forest"),
        (["Clara Oswald", "The Tenth Doctor"], "Lightning Bolt", "Swamp"),
    ):
        report = db.check_deck(_deck(pair, [(1, card)], basics), format="commander")
        assert report.verdict == "legal", (pair, report.problems)
        assert len(report.commanders) == 2


def test_no_choice_for_a_card_that_is_not_the_commander(db: OracleDB) -> None:
    """ "If The Prismatic Piper is your commander": in the 99 it chooses nothing for Tymna's deck."""
    deck = _deck(["Tymna the Weaver"], [(1, "The Prismatic Piper"), (1, "Counterspell")], "Plains")
    report = db.check_deck(deck, format="commander")
    assert [card for card, _ in _identity(report)] == ["Counterspell"]
    assert not [n for n in report.notes if "903.4b" in n]


def test_a_commander_the_database_does_not_know_leaves_the_identity_unjudged(db: OracleDB) -> None:
    """A partner pair one of whose names is no card here (a card newer than the data, a typo): the deck's color
    identity is both commanders' together (CR 702.124c), so it is unknown; the cards outside the known commander's are
    not called outside it (a real 2024 cEDH list led by Rograkh and Silas Renn, with a 2019 database, had 37 such
    problems). The unknown name is the one problem, and a note says the identity was not judged."""
    deck = _deck(["Tymna the Weaver", "Kraum, Ludevic's Opus"], [(1, "Lightning Bolt"), (1, "Counterspell")], "Plains")
    report = db.check_deck(deck, format="commander")
    assert [(p.kind, p.card) for p in report.problems] == [("unknown_card", "Kraum, Ludevic's Opus")]
    [note] = [n for n in report.notes if "color identity" in n]
    assert "Kraum, Ludevic's Opus" in note and "not judged" in note and "702.124c" in note
    # a commander that is known alone still has its identity judged
    alone = db.check_deck(_deck(["Tymna the Weaver"], [(1, "Lightning Bolt")], "Plains"), format="commander")
    assert [(p.kind, p.card) for p in alone.problems] == [("color_identity", "Lightning Bolt")]


def test_a_creature_card_off_the_battlefield_is_a_commander_in_checks_and_searches(db: OracleDB) -> None:
    """Grist, the Hunger Tide: "As long as Grist isn't on the battlefield, it's a 1/1 Insect creature in addition to
    its other types." functions before the game begins (CR 113.6c): a legendary creature card, so a commander (903.3),
    in a deck check and for `is:commander` (which follows the deck check's rule)."""
    report = db.check_deck(_deck(["Grist, the Hunger Tide"], [], "Forest"), format="commander")
    assert report.commanders == ["Grist, the Hunger Tide"] and report.verdict == "legal", report.problems
    found = db.search("is:commander")["name"].to_list()
    assert "Grist, the Hunger Tide" in found and "Tymna the Weaver" in found and "Counterspell" not in found
