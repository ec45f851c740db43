"""One table of formats (oracle_tools/decks/formats.py): search's f: and deck check's --format take the same names,
and each format's construction rules hold on real cards of the embedded sample (Scryfall's 2024 objects carry
the oathbreaker and paupercommander legalities)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracle_tools import OracleDB
from oracle_tools.decks.checker import DeckReport
from oracle_tools.decks.formats import ALIASES, FORMATS, LEGALITY_KEYS, format_rules
from oracle_tools.errors import OracleToolsError
from oracle_tools.search import SearchSyntaxError


def _kinds(report: DeckReport) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for p in report.problems:
        out.setdefault(p.kind, []).append(p.detail)
    return out


def test_search_and_deck_check_take_the_same_format_names(sample_db: OracleDB) -> None:
    """Every key and alias of the table works in both (f:oathbreaker, f:pdh and --format paupercommander
    included); limited, which has no legality list, is a deck-check format and search says why."""
    in_db = {f for (f,) in sample_db.con.execute("SELECT DISTINCT format FROM legalities").fetchall()}
    for name in [*FORMATS, *ALIASES]:
        rules = format_rules(name)
        if rules.legality:
            assert rules.key in LEGALITY_KEYS
            found = sample_db.search(f"f:{name.replace(' ', '')}").height if " " not in name else None
            if found is not None and rules.key in in_db:
                legal = sample_db.con.execute(
                    "SELECT count(*) FROM legalities l JOIN cards c USING (oracle_id) "
                    "WHERE l.format = ? AND l.status IN ('legal', 'restricted') AND c.is_card",
                    [rules.key],
                ).fetchall()[0][0]
                assert found == legal, (name, found, legal)
        else:
            with pytest.raises(SearchSyntaxError, match="no legality list"):
                sample_db.search(f"f:{name}")
    assert sample_db.search("f:oathbreaker").height > 0 and sample_db.search("f:pdh").height > 0
    with pytest.raises(SearchSyntaxError, match="unknown format"):
        sample_db.search("f:modrn")
    with pytest.raises(OracleToolsError, match="unknown format 'modrn'"):
        format_rules("modrn")


def test_pauper_commander_an_uncommon_creature_leads_and_is_restricted_elsewhere(sample_db: OracleDB) -> None:
    """Scryfall lists an uncommon creature as "restricted" in paupercommander: legal only as the commander."""
    deck = "Commander\n1 Stromkirk Bloodthief\n\nDeck\n1 Mourner's Surprise\n1 Ambush Gigapede\n"
    report = sample_db.check_deck(deck, format="pdh")
    kinds = _kinds(report)
    assert report.format == "paupercommander" and report.commanders == ["Stromkirk Bloodthief"]
    assert "commander" not in kinds and "not_legal" not in kinds and "color_identity" not in kinds
    assert kinds["deck_size"] == [
        "The deck has 3 cards including the commander(s); Pauper Commander decks have exactly 100 (CR 903.5a)."
    ]
    # the same uncommon in the 99 of another commander: only the commander may be one
    other = sample_db.check_deck("Commander\n1 Visage Bandit\n\nDeck\n1 Outlaw Stitcher\n", format="paupercommander")
    assert _kinds(other)["not_legal"] == [
        "Outlaw Stitcher may be only the commander in Pauper Commander (an uncommon: Scryfall lists it as "
        "restricted there)."
    ]
    # a non-creature cannot lead
    walker = sample_db.check_deck("Commander\n1 Take Up the Shield\n", format="paupercommander")
    assert any("must be a creature" in d for d in _kinds(walker)["commander"])


def test_oathbreaker_a_planeswalker_and_one_signature_spell(sample_db: OracleDB) -> None:
    """Oathbreaker: 60 cards, singleton, a planeswalker leads with one instant or sorcery beside it, both in the
    command zone, the spell within the oathbreaker's color identity."""
    good = "Commander\n1 Oko, the Ringleader\n1 Consign to Memory\n\nDeck\n1 Three Steps Ahead\n"
    report = sample_db.check_deck(good, format="oathbreaker")
    kinds = _kinds(report)
    assert report.commanders == ["Oko, the Ringleader"]
    assert "commander" not in kinds and "color_identity" not in kinds and "not_legal" not in kinds
    assert kinds["deck_size"] == [
        # CR 903.5a is Commander's 100 cards: Oathbreaker's 60 are its own rules'
        "The deck has 3 cards including the commander(s); Oathbreaker decks have exactly 60 (Oathbreaker rules)."
    ]
    two_spells = sample_db.check_deck(good.replace("\n\nDeck", "\n1 Three Steps Ahead\n\nDeck"), format="oathbreaker")
    assert any("one signature spell" in d and "found 2" in d for d in _kinds(two_spells)["commander"])
    outside = sample_db.check_deck("Commander\n1 Oko, the Ringleader\n1 Take Up the Shield\n", format="oathbreaker")
    assert any(d.startswith("Take Up the Shield has color identity {W}") for d in _kinds(outside)["color_identity"])
    creature = sample_db.check_deck("Commander\n1 Ambush Gigapede\n1 Consign to Memory\n", format="oathbreaker")
    assert any(d.startswith("Ambush Gigapede cannot be an oathbreaker") for d in _kinds(creature)["commander"])


def test_each_commander_format_cites_the_rule_of_its_own_size(sample_db: OracleDB) -> None:
    """CR 903.5a's "exactly 100 cards" is Commander's: Standard Brawl's 60 are the Brawl option's 903.12d ("A player's
    deck must contain exactly 60 cards, including its commander."), Oathbreaker's 60 and Scryfall's 100-card Brawl
    (MTG Arena's) their own rules; Gladiator, no Commander format, cites its rules (it said "CR format rules" and
    "CR singleton format")."""
    walker = "Commander\n1 Teferi, Hero of Dominaria\n\nDeck\n"
    expected = {
        "commander": "Commander decks have exactly 100 (CR 903.5a).",
        "standardbrawl": "Standard Brawl decks have exactly 60 (CR 903.12d).",
        "brawl": "Brawl decks have exactly 100 (MTG Arena's Brawl rules).",
        "oathbreaker": "Oathbreaker decks have exactly 60 (Oathbreaker rules).",
    }
    for fmt, ending in expected.items():
        [size] = _kinds(sample_db.check_deck(walker + "9 Island\n", format=fmt))["deck_size"]
        assert size == "The deck has 10 cards including the commander(s); " + ending, fmt
    gladiator = _kinds(sample_db.check_deck("2 Counterspell\n8 Island\n", format="gladiator"))
    assert gladiator["deck_size"] == ["The deck has 10 cards; Gladiator decks have exactly 100 (Gladiator rules)."]
    [copies] = gladiator["too_many_copies"]
    assert copies.endswith("Gladiator allows 1 copy of each card other than basic lands (Gladiator rules)."), copies
    # a commander given as an option and not in the list is one of the deck's cards, the 60th in Standard Brawl
    given = sample_db.check_deck("59 Island\n", format="standardbrawl", commanders=["Teferi, Hero of Dominaria"])
    assert "deck_size" not in _kinds(given) and any("counted as the 60th card" in n for n in given.notes), given


def test_limited_needs_forty_cards_and_has_no_legality_list(sample_db: OracleDB) -> None:
    report = sample_db.check_deck("17 Island\n4 Consign to Memory\n", format="draft")  # CR 100.2b
    assert report.format == "limited"
    assert _kinds(report) == {"deck_size": ["The main deck has 21 cards; Limited needs at least 40 (CR 100.2b)."]}


def test_a_misspelt_format_offers_the_closest_name(sample_db_path: Path) -> None:
    """`deck check --format modren` says which format was probably meant, as a mistyped command does; a name
    close to none is listed with the known formats only."""
    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main

    with pytest.raises(OracleToolsError, match=r"unknown format 'modren' \(did you mean modern\?\); known formats"):
        format_rules("modren")
    with pytest.raises(OracleToolsError, match=r"unknown format 'comander' \(did you mean commander\?\)"):
        format_rules("comander")
    with pytest.raises(OracleToolsError, match=r"^unknown format 'nosuchformat'; known formats: "):
        format_rules("nosuchformat")
    result = CliRunner().invoke(
        main, ["deck", "check", "-", "--format", "modren", "--db", str(sample_db_path)], input="4 Lightning Bolt\n"
    )
    assert result.exit_code == 2 and "did you mean modern?" in result.output, result.output
    assert "Traceback" not in result.output
