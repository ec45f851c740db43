"""Companions (CR 702.139) in deck checks, on real cards.

tests/fixtures/companions.json holds real card objects, one English printing each: the ten Ikoria companions (their
Oracle text, types and legalities from the 2022 MTGJSON-derived file in ../shared/realdata, ``lang`` set to "en"
and the foreign printed fields left out), older cards from the 2019 Scryfall dump, and two Unfinity Attractions from
the 2025 commander-legal list (Scryfall-shaped by scripts/make_sample.py's ``trimmed_to_card``).

CR 702.139a: "Before the game begins, you may reveal one card you own from outside the game with a companion ability
whose condition is fulfilled by your starting deck." CR 702.139b: "If a companion ability refers to your starting
deck, it refers to your deck after you've set aside any sideboard cards. In a Commander game, this is also before
you've set aside your commander." CR 103.2b: "A player may reveal no more than one card this way."
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB
from oracle_tools.decks import companion
from oracle_tools.decks.report import DeckReport, Problem
from oracle_tools.interfaces.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "companions.json"
CARDS: dict[str, dict[str, Any]] = {c["name"]: c for c in json.loads(FIXTURE.read_text(encoding="utf-8"))}


@pytest.fixture(scope="module")
def companion_db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("companions") / "companions.duckdb"
    OracleDB.ingest_files(path, [FIXTURE]).close()
    return path


@pytest.fixture(scope="module")
def db(companion_db_path: Path) -> Iterator[OracleDB]:
    with OracleDB(companion_db_path) as opened:
        yield opened


def _kind(report: DeckReport, kind: str) -> list[Problem]:
    return [p for p in report.problems if p.kind == kind]


# --------------------------------------------------------------------------- reading the conditions


EXPECTED = {
    "Gyruda, Doom of Depths": ("mana_value_parity", "card", 0),
    "Jegantha, the Wellspring": ("no_repeated_symbol", "card", None),
    "Kaheera, the Orphanguard": ("creature_types", "creature", None),
    "Keruga, the Macrosage": ("mana_value_at_least", "nonland", 3),
    "Lurrus of the Dream-Den": ("mana_value_at_most", "permanent", 2),
    "Lutri, the Spellchaser": ("different_names", "nonland", None),
    "Obosh, the Preypiercer": ("mana_value_parity", "nonland", 1),
    "Umori, the Collector": ("shares_card_type", "nonland", None),
    "Yorion, Sky Nomad": ("size_over_minimum", "card", 20),
    "Zirda, the Dawnwaker": ("activated_ability", "permanent", None),
}


def test_every_companion_condition_is_read_from_its_oracle_text() -> None:
    """CR 702.139a: "Companion—[Condition]": each of the ten real sentences is one kind of condition."""
    for name, (kind, scope, number) in EXPECTED.items():
        condition = companion.read_condition(CARDS[name]["oracle_text"])
        assert condition is not None, name
        assert (condition.kind, condition.scope, condition.number) == (kind, scope, number), name
        assert CARDS[name]["oracle_text"].startswith("Companion — " + condition.text)
    kaheera = companion.read_condition(CARDS["Kaheera, the Orphanguard"]["oracle_text"])
    assert kaheera is not None and kaheera.words == ("Cat", "Elemental", "Nightmare", "Dinosaur", "Beast")
    assert companion.read_condition(CARDS["Lightning Bolt"]["oracle_text"]) is None


def test_a_condition_no_shape_reads_is_unread_and_never_judged() -> None:
    """A companion sentence none of the shapes reads is said to be unread: judged neither way (no guess)."""
    condition = companion.read_condition("Companion — Your starting deck contains only cards with prime mana values.")
    assert condition is not None and condition.kind == "unread"
    verdict = companion.judge(condition, [], size=60, minimum=60)
    assert verdict.fulfilled is None and "not one this checker can read" in verdict.why


def test_a_companion_whose_condition_cannot_be_read_cannot_be_judged(
    companion_db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A companion printed after this reader (a sentence it has no shape for): the deck is "cannot_judge" with the
    sentence quoted, never legal or not legal by a guess. Gyruda's text is read as such a sentence here."""
    from oracle_tools.decks import cardrules

    unread = companion.Condition("unread", "Your starting deck contains only cards with prime mana values.")
    monkeypatch.setattr(cardrules, "read_condition", lambda text: unread if text and "Companion" in text else None)
    with OracleDB(companion_db_path) as fresh:
        report = fresh.check_deck("Companion\n1 Gyruda, Doom of Depths\n\nDeck\n60 Island\n", format="limited")
    [p] = report.problems
    assert (p.kind, p.card, p.line, report.verdict) == ("cannot_judge", "Gyruda, Doom of Depths", 2, "cannot_judge")
    assert "prime mana values" in p.detail and "CR 702.139a" in p.detail


# --------------------------------------------------------------------------- the decks


def test_yorion_beside_a_60_card_deck_and_in_commander_is_no_companion(db: OracleDB) -> None:
    """Yorion: "at least twenty cards more than the minimum deck size": 60 cards in Legacy (minimum 60) fail, 80
    pass; a Commander deck has exactly 100 (903.5a), so Yorion can never be a Commander companion."""
    sixty = db.check_deck("Companion\n1 Yorion, Sky Nomad\n\nDeck\n4 Counterspell\n56 Island\n", format="legacy")
    [p] = sixty.problems
    assert (p.kind, p.card, p.line) == ("companion", "Yorion, Sky Nomad", 2)
    assert "CR 702.139a" in p.detail and "60 cards" in p.detail and "at least 80" in p.detail
    eighty = db.check_deck("Companion\n1 Yorion, Sky Nomad\n\nDeck\n4 Counterspell\n76 Island\n", format="legacy")
    assert eighty.verdict == "legal", eighty.problems
    edh = db.check_deck(
        "Commander\n1 Atraxa, Praetors' Voice\n\nCompanion\n1 Yorion, Sky Nomad\n\nDeck\n99 Island\n",
        format="commander",
    )
    [p] = edh.problems
    assert p.kind == "companion" and "100 cards" in p.detail and "at least 120" in p.detail and "702.139b" in p.detail


def test_lurrus_with_a_mana_value_4_commander_is_no_companion(db: OracleDB) -> None:
    """CR 702.139b: in Commander the commander is part of the starting deck: Atraxa (mana value 4) breaks Lurrus's
    "Each permanent card in your starting deck has mana value 2 or less"."""
    deck = "Commander\n1 Atraxa, Praetors' Voice\n\nCompanion\n1 Lurrus of the Dream-Den\n\nDeck\n99 Plains\n"
    [p] = db.check_deck(deck, format="commander").problems
    assert (p.kind, p.line) == ("companion", 5)
    assert "Atraxa, Praetors' Voice (line 2, mana value 4)" in p.detail and "CR 702.139b" in p.detail
    fine = "Commander\n1 Atraxa, Praetors' Voice\n\nCompanion\n1 Lurrus of the Dream-Den\n\nDeck\n99 Plains\n"
    fine = fine.replace("Atraxa, Praetors' Voice", "Thalia, Guardian of Thraben")
    report = db.check_deck(fine, format="commander")
    assert not _kind(report, "companion"), report.problems


# One deck that breaks each condition (the first card named is the first that breaks it) and one that keeps it;
# Limited judges no legality, so only the companion rule speaks.
CASES = [
    # Gyruda: every card (lands too: mana value 0 is even) of even mana value (CR 202.3)
    ("Gyruda, Doom of Depths", "20 Counterspell\n20 Island\n1 Lightning Bolt", "Lightning Bolt (line 7, mana value 1)"),
    ("Gyruda, Doom of Depths", "20 Counterspell\n20 Fire // Ice\n20 Island", None),  # Fire // Ice: 4 (202.3d)
    # Jegantha: Fire // Ice has the symbol {1} twice (CR 709.4b's own example); Walking Ballista {X}{X}
    ("Jegantha, the Wellspring", "4 Fire // Ice\n4 Walking Ballista\n52 Island", "Fire // Ice (line 5, {1} ×2)"),
    ("Jegantha, the Wellspring", "4 Lightning Bolt\n4 Sol Ring\n52 Mountain", None),
    # Kaheera: a changeling is every creature type (702.73a)
    ("Kaheera, the Orphanguard", "4 Masked Vandal\n4 Tarmogoyf\n52 Forest", "Tarmogoyf (line 6, Lhurgoyf)"),
    ("Kaheera, the Orphanguard", "4 Masked Vandal\n4 Lightning Bolt\n52 Forest", None),
    # "Mistform Ultimus is every creature type (even if this card isn't on the battlefield)": a characteristic-defining
    # ability, which functions "outside the game and before the game begins" (CR 604.3), as changeling does
    ("Kaheera, the Orphanguard", "1 Mistform Ultimus\n4 Masked Vandal\n55 Island", None),
    # Keruga: nonland cards of mana value 3 or greater
    ("Keruga, the Macrosage", "4 Kitchen Finks\n4 Sol Ring\n52 Forest", "Sol Ring (line 6, mana value 1)"),
    ("Keruga, the Macrosage", "4 Kitchen Finks\n4 Ajani Vengeant\n52 Forest", None),
    # Lurrus: permanent cards only (an instant of any mana value is no permanent card, CR 110.4a)
    ("Lurrus of the Dream-Den", "4 Kitchen Finks\n4 Fire // Ice\n52 Plains", "Kitchen Finks (line 5, mana value 3)"),
    ("Lurrus of the Dream-Den", "4 Thalia, Guardian of Thraben\n4 Fire // Ice\n52 Plains", None),
    # Lutri: each nonland card a different name (lands may repeat)
    ("Lutri, the Spellchaser", "1 Counterspell\n2 Lightning Bolt\n57 Island", "Lightning Bolt (line 6, 2 copies)"),
    ("Lutri, the Spellchaser", "1 Counterspell\n1 Lightning Bolt\n58 Island", None),
    # Obosh: nonland cards of odd mana value
    ("Obosh, the Preypiercer", "4 Lightning Bolt\n4 Tarmogoyf\n52 Mountain", "Tarmogoyf (line 6, mana value 2)"),
    ("Obosh, the Preypiercer", "4 Lightning Bolt\n4 Kitchen Finks\n52 Mountain", None),
    # Umori: the nonland cards share a card type (Walking Ballista is an artifact and a creature)
    ("Umori, the Collector", "4 Tarmogoyf\n4 Walking Ballista\n4 Sol Ring\n48 Forest", "Tarmogoyf (line 5, Creature)"),
    ("Umori, the Collector", "4 Walking Ballista\n4 Sol Ring\n52 Forest", None),
    # Zirda: each permanent card an activated ability (Equip 702.6a; a basic land type's mana ability, 305.6)
    ("Zirda, the Dawnwaker", "4 Umezawa's Jitte\n4 Tarmogoyf\n52 Mountain", "Tarmogoyf (line 6)"),
    ("Zirda, the Dawnwaker", "4 Umezawa's Jitte\n4 Grim Lavamancer\n4 Lightning Bolt\n48 Mountain", None),
]


@pytest.mark.parametrize(("name", "deck", "breaks"), CASES)
def test_each_condition_is_judged_on_the_starting_deck(db: OracleDB, name: str, deck: str, breaks: str | None) -> None:
    report = db.check_deck(f"Companion\n1 {name}\n\nDeck\n{deck}\n", format="limited")
    found = _kind(report, "companion")
    if breaks is None:
        assert report.verdict == "legal", report.problems
        return
    [p] = found
    assert (p.card, p.line) == (name, 2) and breaks in p.detail and p.detail.endswith("(CR 702.139a).")
    assert "cannot be your companion" in p.detail


def test_a_failed_condition_names_the_first_cards_and_counts_the_rest(db: OracleDB) -> None:
    deck = "4 Kitchen Finks\n1 Ajani Vengeant\n1 Atraxa, Praetors' Voice\n1 Elspeth, Sun's Champion\n53 Plains"
    [p] = db.check_deck(f"Companion\n1 Lurrus of the Dream-Den\n\nDeck\n{deck}\n", format="limited").problems
    assert "4 cards break it: Kitchen Finks (line 5, mana value 3)" in p.detail and "and 1 more" in p.detail


def test_the_companion_is_outside_the_starting_deck(db: OracleDB) -> None:
    """CR 702.139a: the companion is revealed from outside the game: its own card (Lurrus, mana value 3) breaks no
    condition of its own, and the sideboard is set aside first (702.139b)."""
    deck = "Companion\n1 Lurrus of the Dream-Den\n\nDeck\n4 Thalia, Guardian of Thraben\n56 Plains\n\n"
    deck += "Sideboard\n4 Kitchen Finks\n"
    report = db.check_deck(deck, format="limited")
    assert report.verdict == "legal", report.problems


def test_one_companion_at_most_and_only_a_card_with_companion(db: OracleDB) -> None:
    """CR 103.2b: no more than one companion; a card without companion cannot be revealed as one (702.139a)."""
    two = db.check_deck("Companion\n1 Lurrus of the Dream-Den\n1 Lightning Bolt\n\nDeck\n60 Plains\n", format="limited")
    found = _kind(two, "companion")
    assert any("103.2b" in p.detail for p in found)
    assert any(p.card == "Lightning Bolt" and "has no companion ability" in p.detail for p in found)


def test_a_companion_banned_in_the_format_is_judged_by_its_legalities(db: OracleDB) -> None:
    """Lutri's Commander status in the data is "banned" (it was banned as a companion): the Companion section's card
    is judged by the format's legalities like every card of the list."""
    deck = "Commander\n1 Atraxa, Praetors' Voice\n\nCompanion\n1 Lutri, the Spellchaser\n\nDeck\n99 Island\n"
    report = db.check_deck(deck, format="commander")
    assert [(p.kind, p.card, p.line) for p in report.problems if p.kind == "banned"] == [
        ("banned", "Lutri, the Spellchaser", 5)
    ]


def test_a_companion_in_a_sideboard_without_a_companion_section_is_not_taken_for_one(db: OracleDB) -> None:
    """MTGO's lists carry the companion in the sideboard, but so may a list that only sideboards the card: without a
    Companion section it is not judged as the companion (the verdict stays), and a note says what its condition
    would be."""
    report = db.check_deck("4 Counterspell\n56 Island\n\n1 Yorion, Sky Nomad\n", format="legacy")
    assert report.verdict == "legal", report.problems
    [note] = report.notes
    assert note.startswith("line 4: Yorion, Sky Nomad in the sideboard has companion") and "not fulfilled" in note
    assert "CR 702.139a" in note


def test_an_arena_export_counts_its_companion_once(db: OracleDB) -> None:
    """Arena's export lists the companion in its Sideboard too: a 15-card sideboard (the companion one of them, CR
    100.4a) is no sideboard of 16."""
    side = "1 Jegantha, the Wellspring (IKO) 222\n4 Counterspell\n4 Lightning Bolt\n4 Fire // Ice\n2 Tarmogoyf\n"
    text = f"Companion\n1 Jegantha, the Wellspring (IKO) 222\n\nDeck\n60 Island\n\nSideboard\n{side}"
    report = db.check_deck(text, format="legacy")
    assert report.verdict == "legal", report.problems
    assert (report.counts["sideboard"], report.counts["companion"]) == (14, 1)
    assert any("line 8:" in n and "is the companion again" in n for n in report.notes), report.notes


def _melee_cache(side: list[str]) -> str:
    """One Commander deck as MTGmelee's caches write it (the Badaro shape): the commander and the companion are the
    sideboard, which the cache reader takes for the Commander section."""
    deck = {
        "Player": "a player",
        "Mainboard": [{"Count": 99, "CardName": "Plains"}],
        "Sideboard": [{"Count": 1, "CardName": name} for name in side],
    }
    return json.dumps({"Tournament": {"Name": "Commander Full Power"}, "Decks": [deck]}, indent=1)


def test_a_companion_kept_beside_the_commander_is_read_as_the_companion(db: OracleDB) -> None:
    """MTGmelee's and MTGO's Commander lists keep the commander and the companion in the sideboard (a real one: Sisay,
    Weatherlight Captain beside Jegantha, the Wellspring, in ../shared/realdata/decks' commander-full-power-76544
    cache), which the cache reader takes for the Commander section. Of two cards there that share no partner
    ability, one with companion beside one that can be the commander alone is the companion (CR 702.139a), not a
    second commander without a partner ability (702.124a) in a deck of 101 cards (903.5a)."""
    report = db.check_deck(_melee_cache(["Atraxa, Praetors' Voice", "Keruga, the Macrosage"]), format="commander")
    assert report.verdict == "legal", report.problems
    assert report.commanders == ["Atraxa, Praetors' Voice"] and report.counts["companion"] == 1
    [note] = [n for n in report.notes if "Keruga" in n]
    assert "read as the companion" in note and "CR 702.139a" in note
    # so read, it is judged as the companion: Atraxa (mana value 4) is part of the starting deck (702.139b)
    lurrus = db.check_deck(_melee_cache(["Atraxa, Praetors' Voice", "Lurrus of the Dream-Den"]), format="commander")
    [p] = _kind(lurrus, "companion")
    assert p.card == "Lurrus of the Dream-Den" and "Atraxa, Praetors' Voice" in p.detail
    assert not _kind(lurrus, "commander") and not _kind(lurrus, "deck_size"), lurrus.problems
    # a partner pair stays two commanders; two cards with companion are left as the list says
    two = db.check_deck(_melee_cache(["Keruga, the Macrosage", "Lurrus of the Dream-Den"]), format="commander")
    assert len(two.commanders) == 2 and _kind(two, "commander"), two.problems


# --------------------------------------------------------------------------- every door


LURRUS_EDH = "Commander\n1 Atraxa, Praetors' Voice\n\nCompanion\n1 Lurrus of the Dream-Den\n\nDeck\n99 Plains\n"


def _the_problem(problems: list[dict[str, Any]]) -> dict[str, Any]:
    [p] = [p for p in problems if p["kind"] == "companion"]
    assert p["card"] == "Lurrus of the Dream-Den" and p["line"] == 5 and "CR 702.139a" in p["detail"]
    return p


def test_the_companion_rule_through_every_door(db: OracleDB, companion_db_path: Path, tmp_path: Path) -> None:
    """Library, CLI, MCP, HTTP and the web page give the same companion problem (all ask OracleDB.check_deck)."""
    from oracle_server import Server, mcp_tool_json

    library = db.check_deck(LURRUS_EDH, format="commander").to_dict()
    detail = _the_problem(library["problems"])["detail"]
    deck = tmp_path / "lurrus.txt"
    deck.write_text(LURRUS_EDH, encoding="utf-8")
    cli = CliRunner().invoke(
        main, ["deck", "check", "--db", str(companion_db_path), str(deck), "--format", "commander", "--json"]
    )
    assert cli.exit_code == 1, cli.output
    assert _the_problem(json.loads(cli.stdout)["problems"])["detail"] == detail
    assert _the_problem(mcp_tool_json(db, "check_deck", {"decklist": LURRUS_EDH, "format": "commander"})["problems"])
    server = Server(companion_db_path, "--no-warm")
    try:
        api = server.client.post("/decks/check", params={"format": "commander"}, content=LURRUS_EDH.encode())
        assert api.status_code == 200 and _the_problem(api.json()["problems"])["detail"] == detail
        page = httpx.post(server.base + "/deck", data={"deck": LURRUS_EDH, "format": "commander"}, timeout=30)
        assert page.status_code == 200 and "Lurrus of the Dream-Den cannot be your companion" in page.text
        assert "CR 702.139a" in page.text
    finally:
        assert "Traceback" not in server.stop()


@pytest.mark.parametrize(
    "text",
    [
        # MTG Arena's export (Moxfield's "Export for MTGA" too)
        "Companion\n1 Yorion, Sky Nomad (IKO) 232\n\nDeck\n4 Counterspell (MP2) 8\n56 Island (AKH) 255\n",
        # Moxfield's and Archidekt's text exports: "Companion (1)" / "1x" lines
        "Companion (1)\n1x Yorion, Sky Nomad (iko) 232\n\nMainboard (60)\n4x Counterspell\n56x Island\n",
        # a plain list with a comment header
        "// Companion\n1 Yorion, Sky Nomad\n// Main deck\n4 Counterspell\n56 Island\n",
    ],
)
def test_the_companion_section_of_each_decklist_format(db: OracleDB, text: str) -> None:
    [p] = db.check_deck(text, format="legacy").problems
    assert (p.kind, p.card) == ("companion", "Yorion, Sky Nomad") and "at least 80" in p.detail


# --------------------------------------------------------------------------- a companion in a Commander game


def test_a_commander_companion_is_bound_by_903_11a_not_by_the_deck_rules(db: OracleDB) -> None:
    """The companion is outside the game (CR 702.139a), no card of the Commander deck, so 903.5b and 903.5c ("A card
    can be included in a Commander deck only if ...") do not speak of it. CR 903.11a does: "that player can't bring a
    card into the game this way if it has the same name as a card that player had in their starting deck, ... or if
    any color in its color identity isn't in the color identity of the player's commander"."""
    jegantha = "Commander\n1 Thalia, Guardian of Thraben\n\nCompanion\n1 Jegantha, the Wellspring\n\nDeck\n99 Plains\n"
    [p] = db.check_deck(jegantha, format="commander").problems
    assert (p.kind, p.card, p.line) == ("color_identity", "Jegantha, the Wellspring", 5)
    assert "{W}{U}{B}{R}{G}" in p.detail and "outside the game" in p.detail
    assert p.detail.endswith("(CR 903.11a).") and "903.5c" not in p.detail
    # the same name as a card of the starting deck: one copy in the deck is no second copy of the deck (903.5b)
    keruga = "Commander\n1 Atraxa, Praetors' Voice\n\nCompanion\n1 Keruga, the Macrosage\n\nDeck\n"
    [p] = db.check_deck(keruga + "1 Keruga, the Macrosage\n98 Island\n", format="commander").problems
    assert (p.kind, p.card, p.line) == ("companion", "Keruga, the Macrosage", 5)
    assert "line 8" in p.detail and p.detail.endswith("(CR 903.11a).") and "903.5b" not in p.detail
    # two copies in the deck are still two copies of the deck (903.5b), and the companion's name is 903.11a's
    two = db.check_deck(keruga + "2 Keruga, the Macrosage\n97 Island\n", format="commander")
    assert sorted((p.kind, p.line) for p in two.problems) == [("companion", 5), ("too_many_copies", 8)]
    [copies] = _kind(two, "too_many_copies")
    assert copies.detail.startswith("2 copies of Keruga, the Macrosage (line 8)") and "903.5b" in copies.detail
    # in constructed play the companion is one of the sideboard's cards (100.4a): it counts toward the four
    five = "Companion\n1 Keruga, the Macrosage\n\nDeck\n4 Keruga, the Macrosage\n56 Island\n"
    [p] = _kind(db.check_deck(five, format="legacy"), "too_many_copies")
    assert p.detail.startswith("5 copies") and "100.4a" in p.detail


def test_is_companion_and_kw_companion_find_the_ten(db: OracleDB) -> None:
    """CR 702.139a: "Companion is a keyword ability … It's written as 'Companion—[Condition].'" The real objects
    here carry no keywords field (as the foreign printings file and the 2019 dump): is:companion found none of the
    ten, kw:companion none either (the derived list missed a keyword line spaced "Companion — …")."""
    companions = {name for name in CARDS if CARDS[name].get("oracle_text", "").startswith("Companion — ")}
    assert len(companions) == 10
    assert set(db.search("is:companion").get_column("name").to_list()) == companions
    assert set(db.search("kw:companion").get_column("name").to_list()) == companions
    assert "Lightning Bolt" in db.search("not:companion").get_column("name").to_list()
