"""Deck legality (oracle_tools/decks/checker.py): CR 100.2a, 100.4a, 201.3b, 903, 702.124 on real cards.

Decklists are written as text in the tests from real card names in oracle_tools/data/sample. The sample's
legalities are a real (preview-era) Scryfall snapshot, so tests that need a status *query* the
``legalities`` table for a card with that status instead of hard-coding it.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle_tools import OracleDB
from oracle_tools.decks.cardrules import CardRules, CardRulesTable, _partner_abilities
from oracle_tools.decks.checker import (
    FORMATS,
    PROBLEM_KINDS,
    CardHit,
    DeckChecker,
    DeckReport,
    _pair_problem,
    card_rules,
    deck_limit_from_text,
    format_rules,
    stored_deck_limits,
)
from oracle_tools.decks.decklist import parse_decklist, read_decklists_json_cache
from oracle_tools.errors import DecklistError, OracleToolsError
from oracle_tools.ingest import sample_dir
from oracle_tools.interfaces.cli import main
from oracle_tools.text.oracletext import deck_limit_before, name_mentions

from fuzzing import examples

SAMPLE_DECKS = Path(__file__).resolve().parents[1] / "oracle_tools" / "data" / "sample" / "decks"


def kinds(report: DeckReport, kind: str | None = None) -> list:
    return [p for p in report.problems if kind is None or p.kind == kind]


def with_status(db: OracleDB, fmt: str, status: str) -> str:
    """A real card (not a split card) with this status in this format in the ingested legalities."""
    names = db.sql(
        "SELECT c.name FROM legalities l JOIN cards c USING (oracle_id) WHERE l.format = ? AND "
        "l.status = ? AND c.is_card AND c.name NOT LIKE '%//%' ORDER BY c.name",
        [fmt, status],
    )
    assert names.height, f"the sample has no card with status {status} in {fmt}"
    return names["name"][0]


def status(db: OracleDB, name: str, fmt: str) -> str | None:
    r = db.resolve(name)
    rows = db.sql("SELECT status FROM legalities WHERE oracle_id = ? AND format = ?", [r.oracle_id, fmt])
    return rows["status"][0] if rows.height else None


def legal_format(db: OracleDB, *names: str, among: tuple[str, ...] = ("legacy", "vintage", "modern", "pauper")) -> str:
    """A constructed format where every one of these real cards is legal in the data."""
    for fmt in among:
        if all(status(db, n, fmt) == "legal" for n in names):
            return fmt
    pytest.skip(f"no format where {names} are all legal in the data")


# --------------------------------------------------------------------------- names (201.3b, resolver)


def test_split_card_spelled_three_ways_counts_as_one_card(sample_db: OracleDB) -> None:
    # Fire // Ice (real split card, CR 709): "Fire/Ice", "Fire // Ice" and the half "Fire" are one card
    fmt = legal_format(sample_db, "Fire // Ice", "Mountain")
    ok = sample_db.check_deck("2 Fire/Ice\n1 Fire // Ice\n1 Fire\n56 Mountain\n", format=fmt)
    assert ok.legal, ok.problems
    bad = sample_db.check_deck("2 Fire/Ice\n2 Fire // Ice\n1 Fire\n55 Mountain\n", format=fmt)
    [p] = kinds(bad)
    assert (p.kind, p.card, p.line) == ("too_many_copies", "Fire // Ice", 1)
    assert "5 copies" in p.detail and "lines 1, 2, 3" in p.detail and "100.2a" in p.detail


def test_deck_name_with_three_segments_uses_the_front_name(sample_db: OracleDB) -> None:
    # decks write omen cards "Scavenger Regent // Exude Toxin // Scavenger Regent" (realdata MANIFEST);
    # the same shape on a sample card: the part before " // " names the card
    fmt = legal_format(sample_db, "Fire // Ice", "Mountain")
    report = sample_db.check_deck("4 Fire // Ice // Fire\n56 Mountain\n", format=fmt)
    assert report.legal, report.problems


def test_foreign_name_counts_with_the_english_name(sample_db: OracleDB) -> None:
    # "Foudre" is the French printed name of Lightning Bolt (CR 201.2: the English name is the name)
    fmt = legal_format(sample_db, "Lightning Bolt", "Mountain")
    report = sample_db.check_deck("3 Lightning Bolt\n2 Foudre\n55 Mountain\n", format=fmt)
    [p] = kinds(report)
    assert (p.kind, p.card) == ("too_many_copies", "Lightning Bolt")


def test_accent_free_spelling_resolves(sample_db: OracleDB) -> None:
    # "Nazgul" typed without the circumflex is Nazgûl
    report = sample_db.check_deck("9 Nazgul\n51 Swamp\n", format="limited")
    assert report.legal, report.problems


def test_a_comma_glued_to_the_next_word_is_a_word_break(sample_db: OracleDB, tmp_path: Path) -> None:
    # Cockatrice/MTGO exports and pasted lists write "Jace,the Mind Sculptor": the card (CR 201.2), not a miss
    report = sample_db.check_deck("4 Jace,the Mind Sculptor\n56 Island\n", format="limited")
    assert report.legal, report.problems
    assert [(x["written"], x["card"]) for x in report.lines[:1]] == [
        ("Jace,the Mind Sculptor", "Jace, the Mind Sculptor")
    ]
    deck = tmp_path / "glued.txt"
    deck.write_text("4 Jace,the Mind Sculptor\n56 Island\n", encoding="utf-8")
    out = _run(sample_db, str(deck), "--format", "limited", "--json")
    assert out.exit_code == 0 and json.loads(out.output)["problems"] == [], out.output


def test_201_3b_interchangeable_names_count_as_one_name(sample_db: OracleDB) -> None:
    # the sample's real pair: Scryfall records om1 #153 as a printing of the Oracle card Ultimate Green
    # Goblin with "Ruzic, Booed but Victorious" in printed_name; the two names are one card's (CR 201.3b)
    a, b = "Ultimate Green Goblin", "Ruzic, Booed but Victorious"
    ok = sample_db.check_deck(f"2 {a}\n2 {b}\n56 Mountain\n", format="modern")
    assert not kinds(ok, "too_many_copies"), ok.problems
    bad = sample_db.check_deck(f"2 {a}\n3 {b}\n55 Mountain\n", format="modern")
    [p] = kinds(bad, "too_many_copies")
    assert "5 copies" in p.detail and "201.3b" in p.detail and p.line == 1
    assert [(x["written"], x["card"], x["via"]) for x in bad.lines[:2]] == [
        (a, a, "name"),
        (b, a, "interchangeable"),
    ]


def test_201_3b_override_table_pair_of_two_oracle_cards_counts_together(fixture_db: OracleDB) -> None:
    # the optional override table (tests/fixtures/interchangeable_names.csv) may join two Oracle cards a
    # data source keeps apart; deck checks count them as one name too
    a, b = "Spider-Man, Web-Slinger", "Omenpath Web-Slinger"
    assert fixture_db.resolve(a).oracle_id != fixture_db.resolve(b).oracle_id
    bad = fixture_db.check_deck(f"2 {a}\n3 {b}\n55 Plains\n", format="standard")
    [p] = kinds(bad, "too_many_copies")
    assert "5 copies" in p.detail and p.line == 1


def test_unknown_name_is_a_problem_with_suggestions(sample_db: OracleDB) -> None:
    report = sample_db.check_deck("4 Lightnig Bolt\n56 Mountain\n", format="modern")
    [p] = kinds(report)
    assert (p.kind, p.card, p.line) == ("unknown_card", "Lightnig Bolt", 1)
    assert "did you mean 'Lightning Bolt'" in p.detail


def test_token_is_not_a_card(sample_db: OracleDB) -> None:
    # real decklists list tokens in the sideboard ("Eldrazi Spawn Token", "Food Token": realdata MANIFEST)
    report = sample_db.check_deck("4 Lightning Bolt\n56 Mountain\n\n1 Food Token\n", format="limited")
    [p] = kinds(report)
    assert p.kind == "unknown_card" and p.line == 4 and "token" in p.detail and "111.1" in p.detail


def test_a_blank_name_the_database_lacks_is_no_token(sample_db: OracleDB) -> None:
    # Unfinity's "_____ Goblin" (real decklists write it) is not in the sample; its blank is a word of its name
    # (CR 201.2), so it is not the Goblin token's name (CR 111.1): a card name the database does not know
    assert sample_db.resolve("Goblin Token").status == "not_found" and sample_db.name_index.is_token_name("Goblin")
    report = sample_db.check_deck("1 _____ Goblin\n1 ________ Goblin\n1 Goblin\n", format="limited")
    first, second, token = kinds(report, "unknown_card")
    for p in (first, second):
        assert "is not a card name in the database" in p.detail and "token" not in p.detail, p.detail
    assert "is a token, not a card" in token.detail


def test_an_insert_of_type_card_is_no_token(sample_db: OracleDB) -> None:
    # Scryfall's player decklists, bios and ads (type line "Card", the 2019 dump's World Championship inserts) are
    # neither cards nor tokens (a token represents a permanent, CR 111.1): a list naming one is told what it is
    report = sample_db.check_deck("1 Paul McCabe Decklist\n1 Ob Nixilis Reignited Emblem\n", format="limited")
    insert, emblem = kinds(report, "unknown_card")
    assert (insert.card, insert.line) == ("Paul McCabe Decklist", 1)
    assert "is an insert printed beside cards" in insert.detail and "token" not in insert.detail, insert.detail
    assert "is an emblem, not a card" in emblem.detail and "(CR 114.5)" in emblem.detail


def test_a_sideboard_in_gladiator_cites_no_commander_rule(sample_db: OracleDB) -> None:
    # Gladiator (100-card singleton, no sideboard) is no Commander format: CR 903.5e ("Commander games do not use
    # sideboards") is not the rule its sideboard breaks, as its deck size cites the format's rules, not 903.5a
    report = sample_db.check_deck("100 Mountain\n\nSideboard\n1 Lightning Bolt\n", format="gladiator")
    [p] = kinds(report, "sideboard_size")
    assert "Gladiator uses no sideboard" in p.detail and "903.5e" not in p.detail, p.detail
    assert p.detail.endswith("(Gladiator rules).")
    edh = sample_db.check_deck(
        "Commander\n1 Isamaru, Hound of Konda\n99 Plains\n\nSideboard\n1 Plains\n", format="commander"
    )
    assert kinds(edh, "sideboard_size")[0].detail.endswith("uses no sideboard (CR 903.5e).")


def test_ambiguous_name_lists_the_candidates(sample_db: OracleDB) -> None:
    keys = sample_db.sql("SELECT key FROM names GROUP BY key HAVING count(DISTINCT oracle_id) > 1 ORDER BY key")
    amb = next((k for k in keys["key"].to_list() if sample_db.resolve(k).status == "ambiguous"), None)
    if amb is None:
        pytest.skip("the sample has no ambiguous name")
    report = sample_db.check_deck(f"1 {amb}\n", format="limited")
    [p] = kinds(report, "unknown_card")
    assert "could be several cards" in p.detail


SAME_NAME_FIXTURE = Path(__file__).parent / "fixtures" / "same_name_unstable.json"


def test_a_name_several_cards_print_is_judged_and_counted_as_one_name(same_name_db_path: Path) -> None:
    """Unstable's six Very Cryptic Commands share one name: a list cannot say which it means, and need not when
    they are alike in the format — judged (not legal in Legacy) and their copies counted together (CR 201.2a,
    100.2a), never the advice to "write the full English name" the list already wrote. Both checkers: a fresh
    process's point checker and the whole-database one."""
    text = "3 Very Cryptic Command\n2 very cryptic command\n"
    with OracleDB(same_name_db_path) as db:
        point = db.check_deck(text, format="legacy")  # a fresh process: the point checker
        assert db.deck_checker is not None  # built: the next check is the whole-database checker's
        for report in (point, db.check_deck(text, format="legacy")):
            assert not kinds(report, "unknown_card"), report.problems
            [bad] = kinds(report, "not_legal")
            assert bad.card == "Very Cryptic Command" and bad.line == 1
            [copies] = kinds(report, "too_many_copies")
            assert copies.detail.startswith("5 copies of Very Cryptic Command (lines 1, 2)"), copies.detail


def test_cards_of_one_name_that_differ_in_legality_are_not_judged(tmp_path: Path) -> None:
    """When the cards sharing a name differ in legality in the format, a list cannot tell them apart: the check
    says so and which cards they are (cannot_judge), neither a guess nor impossible advice. Fixture: the real
    Unstable objects, one of the six made legal in Vintage."""
    cards = json.loads(SAME_NAME_FIXTURE.read_text(encoding="utf-8"))
    changed = next(c for c in cards if c["name"] == "Very Cryptic Command")
    changed["legalities"]["vintage"] = "legal"
    (tmp_path / "cards.json").write_text(json.dumps(cards), encoding="utf-8")
    with OracleDB.ingest_files(tmp_path / "db.duckdb", [tmp_path / "cards.json"]) as db:
        report = db.check_deck("1 Very Cryptic Command\n", format="vintage")
    assert not kinds(report, "unknown_card") and not kinds(report, "not_legal"), report.problems
    [unknown] = kinds(report, "cannot_judge")
    assert "6 Oracle cards are named Very Cryptic Command and differ in legality" in unknown.detail
    assert f"oracle_id {changed['oracle_id']}: legal" in unknown.detail and "full English name" not in unknown.detail


def test_parse_problems_are_parse_errors_with_lines(sample_db: OracleDB) -> None:
    report = sample_db.check_deck("4 Lightning Bolt\n-2 Mountain\n0 Island\n56 Mountain\n", format="limited")
    errors = kinds(report, "parse_error")
    assert [p.line for p in errors] == [2]
    assert not report.legal
    assert report.notes == ["line 3: '0 Island': count 0: no card in the deck, left out"]  # no card: a note


def test_count_zero_rows_of_a_real_cache_are_notes_not_problems(sample_db: OracleDB, realdata: Path) -> None:
    # a real Melee cache lists two sideboard cards with "Count": 0: no card in the deck, never a reason it is
    # not legal
    melee = next((realdata / "decks").rglob("weekly-legacy-mont-70412-2024-03-14.json"))
    [deck] = [d for d in read_decklists_json_cache(melee) if any(n.line == 1151 for n in d.notes)]
    report = sample_db.check_deck(deck, format="limited", limits=False)
    assert not kinds(report, "parse_error")
    assert "line 1151: 'Red Elemental Blast' in 'Sideboard': count 0: no card in the deck, left out" in report.notes
    assert "line 1155: 'The Stone Brain' in 'Sideboard': count 0: no card in the deck, left out" in report.notes


# --------------------------------------------------------------------------- legality


def test_banned_modern_card_is_reported(sample_db: OracleDB) -> None:
    card = with_status(sample_db, "modern", "banned")  # e.g. a card on the snapshot's Modern ban list
    report = sample_db.check_deck(f"1 Mountain\n1 {card}\n58 Mountain\n", format="modern")
    [p] = kinds(report)
    assert (p.kind, p.card, p.line) == ("banned", card, 2)


def test_not_legal_card_is_reported(sample_db: OracleDB) -> None:
    card = with_status(sample_db, "standard", "not_legal")
    report = sample_db.check_deck(f"2 {card}\n58 Plains\n", format="standard")
    assert [(p.kind, p.card) for p in report.problems] == [("not_legal", card)]


def test_restricted_vintage_card_one_copy_main_and_sideboard_together(sample_db: OracleDB) -> None:
    card = with_status(sample_db, "vintage", "restricted")  # Black Lotus, Time Walk, ... in the snapshot
    one = sample_db.check_deck(f"1 {card}\n59 Island\n", format="vintage")
    assert one.legal, one.problems
    two = sample_db.check_deck(f"2 {card}\n58 Island\n", format="vintage")
    assert [p.kind for p in two.problems] == ["restricted"]
    split = sample_db.check_deck(f"1 {card}\n59 Island\n\nSideboard\n1 {card}\n", format="vintage")
    [p] = split.problems
    assert p.kind == "restricted" and "lines 1, 5" in p.detail


def test_a_card_whose_data_predates_the_format_cannot_be_judged(sample_db: OracleDB, tmp_path: Path) -> None:
    # The sample's 2019 cards carry Scryfall's 2019 legalities, which have no historic key (Historic came after);
    # only its 2024 cards have one. Jace and Island are legal in Historic: "not legal" would be a confident
    # wrong answer, so their legality is unknown, said with the file and the date of their data.
    assert status(sample_db, "Jace, the Mind Sculptor", "historic") is None
    report = sample_db.check_deck("4 Jace, the Mind Sculptor\n56 Island\n", format="historic")
    assert [(p.kind, p.card) for p in report.problems] == [
        ("cannot_judge", "Jace, the Mind Sculptor"),
        ("cannot_judge", "Island"),
    ]
    assert "its data (cards-2019.json.gz, 2019-10-04) predates Historic" in report.problems[0].detail
    assert report.legal is None and report.verdict == "cannot_judge"  # no rule broken, not judged either
    assert report.to_dict()["legal"] is None and report.to_dict()["verdict"] == "cannot_judge"
    # a rule broken beside them: not legal, whatever the unknown cards are
    over = sample_db.check_deck("5 Jace, the Mind Sculptor\n55 Island\n", format="historic")
    assert over.legal is False and over.verdict == "not_legal"
    assert {p.kind for p in over.problems} == {"cannot_judge", "too_many_copies"}
    # the CLI: its own headline and exit code (3), distinct from "not legal" (1)
    deck = tmp_path / "jace.txt"
    deck.write_text("4 Jace, the Mind Sculptor\n56 Island\n", encoding="utf-8")
    out = _run(sample_db, str(deck), "--format", "historic")
    assert out.exit_code == 3, out.output
    assert "jace.txt: could not be fully judged in historic (2 cards cannot be judged)" in out.output
    # the header names the file that lacks the format's legalities
    assert "cards-2019.json.gz, data of 2019-10-04 (its newest printing)" in out.output
    assert "(no Historic legalities: its data predates Historic)" in out.output
    assert "not legal" not in out.output
    # a batch's summary: neither legal nor illegal
    frame = sample_db.check_decks([deck], format="historic", summary=True)
    assert frame["legal"].to_list() == [None]


def test_no_card_name_has_a_hash_so_a_trailing_comment_is_cut(full_db: OracleDB) -> None:
    # the parser ends a name at " #" (a trailing comment, Moxfield's #tags): true only while no name of any kind
    # (Oracle, face, printed, flavor, alternate) in the real data has "#"
    assert full_db.sql("SELECT count(*) AS n FROM names WHERE name LIKE '%#%'")["n"][0] == 0
    report = full_db.check_deck("4 Lightning Bolt # main\n56 Mountain # lands\n", format="legacy")
    assert not kinds(report, "unknown_card"), report.problems


def test_opt_in_pioneer_on_the_real_data_of_several_dates_cannot_be_judged(full_db: OracleDB) -> None:
    # 2019 dump + 2024 objects + 2022 foreign printings: Opt's legalities come from the 2019 dump, written before
    # Scryfall had Pioneer, Historic or Timeless; the format exists in the database (the newer files have it).
    for fmt, label in (("pioneer", "Pioneer"), ("historic", "Historic"), ("timeless", "Timeless")):
        report = full_db.check_deck("4 Opt\n56 Island\n", format=fmt)
        assert [(p.kind, p.card) for p in report.problems] == [("cannot_judge", "Opt")], fmt
        assert f"(scryfall-default-cards-2019-10-per-set-dump.json.gz, 2019-10-04) predates {label}" in (
            report.problems[0].detail
        )
        assert report.legal is None


def test_limited_checks_no_legality(sample_db: OracleDB) -> None:
    # a banned card of the deck (not a conspiracy: no card of a deck at all, CR 315.3, set apart)
    card = sample_db.sql(
        "SELECT c.name FROM legalities l JOIN cards c USING (oracle_id) WHERE l.format = 'vintage' AND "
        "l.status = 'banned' AND c.is_card AND c.type_line NOT LIKE '%Conspiracy%' ORDER BY c.name LIMIT 1"
    )["name"][0]
    report = sample_db.check_deck(f"7 {card}\n33 Swamp\n", format="limited")
    assert report.legal, report.problems


# --------------------------------------------------------------------------- copy limits (100.2a, 100.4a)


def test_four_copies_in_constructed_sideboard_counts(sample_db: OracleDB) -> None:
    fmt = legal_format(sample_db, "Lightning Bolt", "Mountain")
    main_only = sample_db.check_deck("4 Lightning Bolt\n56 Mountain\n", format=fmt)
    assert main_only.legal, main_only.problems
    # CR 100.4a: the four-card limit applies to the combined deck and sideboard
    with_side = sample_db.check_deck("4 Lightning Bolt\n56 Mountain\n\nSideboard\n1 Lightning Bolt\n", format=fmt)
    [p] = with_side.problems
    assert p.kind == "too_many_copies" and "100.4a" in p.detail


def test_basic_lands_snow_basics_and_wastes_are_unlimited(sample_db: OracleDB) -> None:
    # basics come from the Basic supertype of the faces, not from a name list
    basics = set(
        sample_db.sql("SELECT DISTINCT f.name FROM faces f WHERE list_contains(f.supertypes, 'Basic')")[
            "name"
        ].to_list()
    )
    assert {"Wastes", "Snow-Covered Swamp", "Plains"} <= basics
    checker = sample_db.deck_checker
    assert {c.name for c in checker.cards.values() if c.basic} == basics
    report = sample_db.check_deck("30 Wastes\n20 Snow-Covered Swamp\n10 Swamp\n", format="modern")
    assert not kinds(report, "too_many_copies"), report.problems


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("A deck can have any number of cards named Relentless Rats.", math.inf),
        (
            "Seven Dwarves gets +1/+1 for each other creature named Seven Dwarves you control.\n"
            "A deck can have up to seven cards named Seven Dwarves.",
            7,
        ),
        ("Deathtouch\nA deck can have up to nine cards named Nazgûl.", 9),
        ("DCI ruling — A deck can have only one card named Once More with Feeling.", 1),
        (
            "When Squadron Hawk enters the battlefield, you may search your library for up to three cards named "
            "Squadron Hawk, reveal them, put them into your hand, then shuffle your library.",
            None,
        ),
        (
            "Draw a card, then draw cards equal to the number of cards named Accumulated Knowledge in all graveyards.",
            None,
        ),
    ],
)
def test_deck_limit_text(text: str, limit: float | None) -> None:
    assert deck_limit_from_text(text) == limit


def test_deck_limits_are_read_from_the_ingested_oracle_text(sample_db: OracleDB) -> None:
    limits = {c.name: c.limit for c in sample_db.deck_checker.cards.values() if c.limit is not None}
    assert limits["Relentless Rats"] == math.inf and limits["Shadowborn Apostle"] == math.inf
    assert limits["Seven Dwarves"] == 7 and limits["Nazgûl"] == 9
    assert "Squadron Hawk" not in limits and "Howling Wolf" not in limits


# Hand-checked against each card's Oracle text (printed in the sample / real files): the deck limit its
# "A deck can have ..." sentence sets, overriding CR 100.2a's four copies (and 903.5b's one in Commander).
HAND_CHECKED_LIMITS: dict[str, float] = {
    "Relentless Rats": math.inf,  # "A deck can have any number of cards named Relentless Rats."
    "Shadowborn Apostle": math.inf,
    "Persistent Petitioners": math.inf,
    "Rat Colony": math.inf,
    "Dragon's Approach": math.inf,
    "Hare Apparent": math.inf,  # FDN 2024
    "Seven Dwarves": 7,  # "up to seven cards named Seven Dwarves"
    "Once More with Feeling": 1,  # "DCI ruling — A deck can have only one card named Once More with Feeling."
    # 2025 texts (oracle_tools/data/sample/cards-2025-trimmed.json.gz, from the 2025-09-25 commander list)
    "Nazgûl": 9,  # "up to nine cards named Nazgûl"
    "Templar Knight": math.inf,
    "Slime Against Humanity": math.inf,
    "Tempest Hawk": math.inf,
    "Cid, Timeless Artificer": math.inf,  # a comma in the name: read whole, through the known names
}


def _deck_limit_facts(db: OracleDB) -> tuple[dict[str, float], dict[str, list[tuple[str, bool]]]]:
    """(name -> limit the deck checker uses, name -> [(kind, names itself)] of its name_references rows)
    for every card whose Oracle text has a deck-limit sentence."""
    cards = db.sql(
        "SELECT oracle_id, name FROM cards WHERE is_card AND oracle_text ILIKE '%A deck can have%' ORDER BY name"
    )
    refs: dict[str, list[tuple[str, bool]]] = {}
    for oracle_id, name in cards.iter_rows():
        rows = db.sql(
            "SELECT kind, target_oracle_id = oracle_id AS own FROM name_references WHERE oracle_id = ? ORDER BY start",
            [oracle_id],
        )
        refs[name] = list(rows.iter_rows())
    limits = {c.name: c.limit for c in db.deck_checker.cards.values() if c.limit is not None}
    return limits, refs


def test_deck_limits_read_the_stored_named_mentions(sample_db: OracleDB) -> None:
    # CR 100.2a + the card's own text. The "cards named X" span is the name_references row of kind `named`
    # (oracletext.name_mentions: one home for "named X"), and it names the card itself.
    limits, refs = _deck_limit_facts(sample_db)
    assert set(refs) == set(HAND_CHECKED_LIMITS)  # every deck-limit card of the sample (make_sample keeps them all)
    for name, rows in refs.items():
        assert ("named", True) in rows, (name, rows)
    assert limits == HAND_CHECKED_LIMITS
    # the checker's limits are the stored reading, which agrees with reading the text itself
    by_id = {c.oracle_id: c for c in sample_db.deck_checker.cards.values()}
    stored = stored_deck_limits(sample_db.con)
    assert stored is not None
    assert {by_id[oid].name: limit for oid, limit in stored.items()} == HAND_CHECKED_LIMITS
    texts = sample_db.sql("SELECT oracle_id, oracle_text FROM cards WHERE is_card AND oracle_text IS NOT NULL")
    from_text = {
        by_id[oid].name: limit
        for oid, text in texts.iter_rows()
        if (limit := deck_limit_from_text(text, [by_id[oid].name])) is not None
    }
    assert from_text == HAND_CHECKED_LIMITS


def test_deck_limit_is_read_at_the_named_mention() -> None:
    # the lead-in right before the `named` span decides; another "named" mention in the card is no limit
    text = (
        "Relentless Rats gets +1/+1 for each other creature on the battlefield named Relentless Rats.\n"
        "A deck can have any number of cards named Relentless Rats."
    )
    first, second = (m for m in name_mentions(text, ["Relentless Rats"]) if m.kind == "named")
    assert deck_limit_before(text, first.start) is None
    assert deck_limit_before(text, second.start) == math.inf
    # a name with a comma is read whole when the card's names are known (a capitalised-words guess would stop at it)
    cid = "A deck can have any number of cards named Cid, Timeless Artificer."
    assert deck_limit_from_text(cid, ["Cid, Timeless Artificer"]) == math.inf
    assert deck_limit_from_text(cid, ["Cid"]) is None  # the text limits another name


@pytest.mark.realdata
def test_deck_limits_on_real_data(full_db: OracleDB, realdata: Path) -> None:
    # 2019 dump + 2024 file: every deck-limit card has its own `named` row, and the limits are the hand-checked ones
    limits, refs = _deck_limit_facts(full_db)
    assert set(refs) == {
        "Relentless Rats",
        "Shadowborn Apostle",
        "Persistent Petitioners",
        "Rat Colony",
        "Dragon's Approach",
        "Hare Apparent",
        "Seven Dwarves",
        "Once More with Feeling",
    }
    for name, rows in refs.items():
        assert ("named", True) in rows, (name, rows)
    assert limits == {name: HAND_CHECKED_LIMITS[name] for name in refs}
    # the 2025 commander list (no database: its text read through the same layer, names from its own cards)
    trimmed = json.loads(gzip.decompress((realdata / "scryfall-commander-legal-trimmed-20250925.json.gz").read_bytes()))
    found = {
        c["name"]: limit
        for c in trimmed
        if (limit := deck_limit_from_text(c.get("oracle_text"), [c["name"]])) is not None
    }
    assert {n: found[n] for n in HAND_CHECKED_LIMITS if n != "Once More with Feeling"} == {
        n: v for n, v in HAND_CHECKED_LIMITS.items() if n != "Once More with Feeling"
    }  # Once More with Feeling is banned in Commander, so not on the commander-legal list
    assert "Squadron Hawk" in {c["name"] for c in trimmed} and "Squadron Hawk" not in found


def test_relentless_rats_any_number(sample_db: OracleDB) -> None:
    fmt = legal_format(sample_db, "Relentless Rats", "Swamp")
    report = sample_db.check_deck("36 Relentless Rats\n24 Swamp\n", format=fmt)
    assert report.legal, report.problems
    # its text also beats Commander's singleton rule (903.5b)
    cmd = sample_db.check_deck("1 Tymna the Weaver\n60 Relentless Rats\n39 Swamp\n", format="commander")
    assert not kinds(cmd, "too_many_copies"), cmd.problems


def test_seven_dwarves_up_to_seven(sample_db: OracleDB) -> None:
    # Seven Dwarves is in oracle_tools/data/sample cards-2019 (preview-era: not_legal everywhere; only copies matter here)
    seven = sample_db.check_deck("7 Seven Dwarves\n53 Mountain\n", format="legacy")
    assert not kinds(seven, "too_many_copies")
    eight = sample_db.check_deck("7 Seven Dwarves\n53 Mountain\n\n1 Seven Dwarves\n", format="legacy")
    [p] = kinds(eight, "too_many_copies")
    assert "8 copies" in p.detail and "at most 7" in p.detail


def test_nazgul_up_to_nine_from_the_2025_text(sample_db: OracleDB) -> None:
    # Nazgûl (LTR) is in oracle_tools/data/sample/cards-2025-trimmed.json.gz with its 2025 Oracle text
    assert (
        "up to nine cards named Nazgûl"
        in sample_db.sql("SELECT oracle_text FROM cards WHERE name = 'Nazgûl'")["oracle_text"][0]
    )
    nine = sample_db.check_deck("Commander\n1 Tymna the Weaver\n\nDeck\n9 Nazgûl\n90 Swamp\n", format="commander")
    assert nine.legal, nine.problems
    ten = sample_db.check_deck("Commander\n1 Tymna the Weaver\n\nDeck\n10 Nazgûl\n89 Swamp\n", format="commander")
    [p] = ten.problems
    assert (p.kind, p.card, p.line) == ("too_many_copies", "Nazgûl", 5)


def test_squadron_hawk_search_text_is_no_deck_limit(sample_db: OracleDB) -> None:
    fmt = legal_format(sample_db, "Squadron Hawk", "Plains")
    report = sample_db.check_deck("5 Squadron Hawk\n55 Plains\n", format=fmt)
    [p] = report.problems
    assert p.kind == "too_many_copies" and "at most 4" in p.detail


# --------------------------------------------------------------------------- sizes


def test_deck_size_minimums(sample_db: OracleDB) -> None:
    assert [p.kind for p in sample_db.check_deck("59 Mountain\n", format="modern").problems] == ["deck_size"]
    assert sample_db.check_deck("40 Mountain\n", format="limited").legal
    small = sample_db.check_deck("39 Mountain\n", format="limited")
    assert [p.kind for p in small.problems] == ["deck_size"] and "100.2b" in small.problems[0].detail
    assert sample_db.check_deck("200 Mountain\n", format="modern").legal  # 100.5: no maximum


def test_sideboard_at_most_fifteen(sample_db: OracleDB) -> None:
    fifteen = sample_db.check_deck("60 Mountain\n\n15 Island\n", format="modern")
    assert fifteen.legal, fifteen.problems
    sixteen = sample_db.check_deck("60 Mountain\n\n16 Island\n", format="modern")
    [p] = sixteen.problems
    assert (p.kind, p.line) == ("sideboard_size", 3) and "100.4a" in p.detail


def test_maybeboard_is_not_part_of_the_deck(sample_db: OracleDB) -> None:
    report = sample_db.check_deck("Deck\n60 Mountain\n\nMaybeboard\n9 Lightnig Bolt\n", format="modern")
    assert report.legal and report.counts["maybeboard"] == 9


# --------------------------------------------------------------------------- Commander (903, 702.124)


def commander_deck(commanders: list[str], rest: str, basics: str = "Swamp", total: int = 100) -> str:
    body = [f"1 {c}" for c in commanders]
    used = sum(int(line.split(" ", 1)[0]) for line in rest.strip().splitlines()) if rest.strip() else 0
    n = total - len(commanders) - used
    return (
        "Commander\n"
        + "\n".join(body)
        + "\n\nDeck\n"
        + rest.strip()
        + ("\n" if rest.strip() else "")
        + f"{n} {basics}\n"
    )


def test_commander_deck_legal_with_partners(sample_db: OracleDB) -> None:
    # Tymna the Weaver (W/B) and Thrasios, Triton Hero (U/G) both have plain partner (702.124h)
    text = commander_deck(
        ["Tymna the Weaver", "Thrasios, Triton Hero"], "1 Counterspell\n1 Llanowar Elves\n", basics="Plains"
    )
    report = sample_db.check_deck(text, format="commander")
    assert report.legal, report.problems
    assert report.commanders == ["Tymna the Weaver", "Thrasios, Triton Hero"]


def test_two_commanders_without_partner_say_which_lack_it_in_grammar(sample_db: OracleDB) -> None:
    # CR 702.124a: both need a partner ability; two lacking it "have none", one "has none"
    both = sample_db.check_deck(commander_deck(["Kenrith, the Returned King", "Tarmogoyf"], ""), format="commander")
    assert any(
        p.detail.endswith("Kenrith, the Returned King and Tarmogoyf have none (CR 702.124a).") for p in both.problems
    ), both.problems
    one = sample_db.check_deck(
        commander_deck(["Tymna the Weaver", "Kenrith, the Returned King"], ""), format="commander"
    )
    assert any(p.detail.endswith("Kenrith, the Returned King has none (CR 702.124a).") for p in one.problems)


def test_a_commander_given_for_a_format_without_one_is_said_not_ignored(sample_db: OracleDB, tmp_path: Path) -> None:
    deck = tmp_path / "ok.txt"
    deck.write_text("4 Tarmogoyf\n56 Forest\n", encoding="utf-8")
    out = _run(sample_db, str(deck), "--format", "modern", "--commander", "Tarmogoyf")
    assert out.exit_code == 0, out.output  # the deck is judged as a Modern deck, and the option is not hidden
    assert "note: a commander was given (--commander), but Modern has no commander" in out.output
    report = sample_db.check_deck(deck, format="modern", commanders=["Tarmogoyf"])
    assert report.legal and any("applies only to the commander formats (commander, duel" in n for n in report.notes)


def test_commander_exactly_100(sample_db: OracleDB) -> None:
    for total in (99, 101):
        report = sample_db.check_deck(commander_deck(["Tymna the Weaver"], "", total=total), format="commander")
        [p] = report.problems
        assert p.kind == "deck_size" and "903.5a" in p.detail and str(total) in p.detail


def test_commander_singleton(sample_db: OracleDB) -> None:
    report = sample_db.check_deck(commander_deck(["Tymna the Weaver"], "2 Dark Ritual\n"), format="commander")
    [p] = report.problems
    assert p.kind == "too_many_copies" and "903.5b" in p.detail


def test_color_identity_outside_the_commanders(sample_db: OracleDB) -> None:
    # Lightning Bolt is red; Tymna the Weaver is white-black (903.5c)
    report = sample_db.check_deck(commander_deck(["Tymna the Weaver"], "1 Lightning Bolt\n"), format="commander")
    [p] = report.problems
    assert (p.kind, p.card) == ("color_identity", "Lightning Bolt") and "{R}" in p.detail and "903.5c" in p.detail


def test_a_colorless_brawl_commander_may_have_basic_lands_of_one_type(sample_db: OracleDB) -> None:
    """CR 903.12e (the Brawl option): "If a player's commander has no colors in its color identity, that player's deck
    may contain any number of basic lands of one basic land type of their choice. This is an exception to rule
    903.5d." Ugin, the Spirit Dragon is a colorless legendary planeswalker: in Brawl its deck may hold Islands (snow
    ones too: the same basic land type), not Islands and Mountains; Commander has no such exception."""

    def identity(deck: str, fmt: str) -> list[tuple[str | None, int | None, str]]:
        report = sample_db.check_deck(f"Commander\n1 Ugin, the Spirit Dragon\n\nDeck\n{deck}", format=fmt)
        return [(p.card, p.line, p.detail) for p in report.problems if p.kind == "color_identity"]

    for fmt, size in (("brawl", 100), ("standardbrawl", 60)):
        assert identity(f"{size - 21} Island\n10 Snow-Covered Island\n10 Wastes\n", fmt) == []
        [(card, line, detail)] = identity(f"{size - 11} Island\n10 Mountain\n", fmt)
        assert (card, line) == ("Mountain", 6) and detail.endswith("(CR 903.12e).") and "Island" in detail
        # a nonbasic land of the chosen type is no basic land: the exception is not for it
        [(card, _, detail)] = identity(f"{size - 2} Island\n1 Tundra\n", fmt)
        assert card == "Tundra" and "903.5d" in detail
    [(card, _, detail)] = identity("99 Island\n", "commander")
    assert card == "Island" and "903.12e" not in detail


def test_a_land_with_a_basic_land_type_is_kept_out_by_903_5d(sample_db: OracleDB) -> None:
    """An Island's "({T}: Add {U}.)" is reminder text, which color identity ignores (CR 903.4c): what keeps a basic
    land type's color out of a Commander deck is 903.5d ("A card with a basic land type may be included in a Commander
    deck only if each color of mana it could produce is included in the commander's color identity."). Tymna the
    Weaver is white-black: an Island and Tundra's {U} break 903.5d; Lightning Bolt's {R} 903.5c."""
    rest = "1 Island\n1 Tundra\n1 Lightning Bolt\n"
    report = sample_db.check_deck(commander_deck(["Tymna the Weaver"], rest), format="commander")
    found = {p.card: p.detail for p in report.problems if p.kind == "color_identity"}
    assert found["Island"].endswith("; its basic land type (Island) could produce {U} (CR 903.5d).")
    assert found["Tundra"].endswith("; its basic land type (Plains/Island) could produce {U} (CR 903.5d).")
    assert found["Lightning Bolt"].endswith("(CR 903.5c).") and len(found) == 3


def test_color_identity_includes_both_faces(sample_db: OracleDB) -> None:
    # a multi-face card's identity covers every face (903.4d/e): Fire // Ice is {U}{R}
    report = sample_db.check_deck(commander_deck(["Tymna the Weaver"], "1 Fire // Ice\n"), format="commander")
    [p] = report.problems
    assert p.kind == "color_identity" and "{U}{R}" in p.detail


def test_commander_must_be_eligible(sample_db: OracleDB) -> None:
    report = sample_db.check_deck(commander_deck(["Lightning Bolt"], "", basics="Mountain"), format="commander")
    assert [p.kind for p in report.problems] == ["commander"] and "903.3" in report.problems[0].detail
    # "can be your commander" (903.3a): Minsc & Boo, Timeless Heroes is a planeswalker that says so
    minsc = sample_db.check_deck(
        commander_deck(["Minsc & Boo, Timeless Heroes"], "", basics="Mountain"), format="commander"
    )
    assert not kinds(minsc, "commander"), minsc.problems


def test_partner_abilities_cannot_be_mixed(sample_db: OracleDB) -> None:
    # Rowan Kenrith has "Partner with Will Kenrith" and "can be your commander"; Tymna has plain partner
    report = sample_db.check_deck(
        commander_deck(["Rowan Kenrith", "Tymna the Weaver"], "", basics="Plains"), format="commander"
    )
    [p] = kinds(report, "commander")
    assert "702.124j" in p.detail or "702.124f" in p.detail
    # two commanders without any partner ability
    two = sample_db.check_deck(
        commander_deck(["Tymna the Weaver", "Minsc & Boo, Timeless Heroes"], ""), format="commander"
    )
    assert kinds(two, "commander")


def test_missing_commander_and_inferred_first_line(sample_db: OracleDB) -> None:
    none = sample_db.check_deck("100 Swamp\n", format="commander")
    assert [p.kind for p in none.problems] == ["commander"]
    # Archidekt export: the commander on the first line (rationelis deck in oracle_tools/data/sample/decks)
    report = sample_db.check_deck(SAMPLE_DECKS / "rationelis_22650379_edwin_van_der_elessar.txt", format="commander")
    assert report.commanders == ["Aragorn, the Uniter"] and report.notes
    assert not kinds(report, "commander") and not kinds(report, "deck_size")
    # and --commander / commanders= for a list without it first (the Quick Draw precon)
    precon = sample_db.check_deck(
        SAMPLE_DECKS / "rationelis_precon_quick_draw.txt", format="commander", commanders=["Stella Lee, Wild Card"]
    )
    assert precon.commanders == ["Stella Lee, Wild Card"]
    assert not kinds(precon, "commander") and not kinds(precon, "deck_size") and not kinds(precon, "color_identity")


def test_a_commander_given_as_an_option_and_not_in_the_list_is_the_100th_card(sample_db: OracleDB) -> None:
    """99 Mountains with --commander Kiki-Jiki (not in the list): the note said "counted as the 100th card", and the
    deck size said "The deck has 99 cards including the commander(s)": not legal. The commander is counted, as the
    same 100 cards with Kiki-Jiki on the first line are (CR 903.5a "Each deck must contain exactly 100 cards,
    including its commander.")."""
    given = sample_db.check_deck("99 Mountain\n", format="commander", commanders=["Kiki-Jiki, Mirror Breaker"])
    listed = sample_db.check_deck("1 Kiki-Jiki, Mirror Breaker\n99 Mountain\n", format="commander")
    assert given.legal and listed.legal, (given.problems, listed.problems)
    assert given.notes == [
        "commander Kiki-Jiki, Mirror Breaker given as an option and not in the list; counted as the 100th card"
    ]
    short = sample_db.check_deck("98 Mountain\n", format="commander", commanders=["Kiki-Jiki, Mirror Breaker"])
    assert [p.detail for p in kinds(short, "deck_size")] == [
        "The deck has 99 cards including the commander(s); Commander decks have exactly 100 (CR 903.5a)."
    ]


def test_commander_formats_use_no_sideboard(sample_db: OracleDB) -> None:
    text = commander_deck(["Tymna the Weaver"], "") + "\nSideboard\n1 Dark Ritual\n"
    report = sample_db.check_deck(text, format="commander")
    assert [p.kind for p in report.problems] == ["sideboard_size"] and "903.5e" in report.problems[0].detail


def _rules_from_trimmed(rows: dict[str, dict[str, Any]], name: str) -> CardRules:
    """CardRules from a card of the real 2025 commander-legal trimmed Scryfall file."""
    card = rows[name]
    faces = card.get("card_faces") or []
    text = card.get("oracle_text") or "\n//\n".join(f.get("oracle_text") or "" for f in faces)
    return card_rules(
        {
            "oracle_id": name,
            "name": name,
            "oracle_text": text,
            "color_identity": card.get("color_identity") or [],
            "front_type": faces[0]["type_line"] if faces else card.get("type_line"),
            "front_power": faces[0].get("power") if faces else card.get("power"),
            "basic": "Basic" in (card.get("type_line") or ""),
            "face_names": [f["name"] for f in faces],
        }
    )


def test_partner_variants_on_real_2025_cards(realdata: Path) -> None:
    # the ingested dumps predate Backgrounds and Doctor's companion: read those real cards' 2025
    # Oracle text from the trimmed commander-legal Scryfall file (CR 702.124h-m)
    rows = {
        c["name"]: c
        for c in json.loads(
            gzip.decompress((realdata / "scryfall-commander-legal-trimmed-20250925.json.gz").read_bytes())
        )
    }
    r = lambda n: _rules_from_trimmed(rows, n)  # noqa: E731
    assert _pair_problem(r("Pir, Imaginative Rascal"), r("Toothy, Imaginary Friend")) is None  # partner with
    assert "702.124j" in (_pair_problem(r("Pir, Imaginative Rascal"), r("Tymna the Weaver")) or "")
    assert _pair_problem(r("Tymna the Weaver"), r("Thrasios, Triton Hero")) is None  # partner
    assert _pair_problem(r("Wernog, Rider's Chaplain"), r("Cecily, Haunted Mage")) is None  # friends forever
    assert _pair_problem(r("Wernog, Rider's Chaplain"), r("Tymna the Weaver")) is not None  # 702.124f
    wilson, giants = r("Wilson, Refined Grizzly"), r("Raised by Giants")
    assert ("background", "") in wilson.partners and giants.background and not giants.commander_ok
    assert _pair_problem(wilson, giants) is None  # choose a Background
    assert _pair_problem(wilson, r("Tymna the Weaver")) is not None
    doctor = next(
        n
        for n in rows
        if "Time Lord Doctor" in (rows[n].get("type_line") or "")
        and rows[n]["type_line"].endswith("— Time Lord Doctor")
    )
    assert r(doctor).time_lord_doctor
    assert _pair_problem(r("Rose Tyler"), r(doctor)) is None  # Doctor's companion
    assert ("with", "toothy, imaginary friend") in _partner_abilities(rows["Pir, Imaginative Rascal"]["oracle_text"])


def test_a_card_that_is_a_creature_off_the_battlefield_can_be_a_commander(realdata: Path) -> None:
    """CR 903.3: the commander "must be either (a) a creature card, ...". Grist, the Hunger Tide is a legendary
    planeswalker that says "As long as Grist isn't on the battlefield, it's a 1/1 Insect creature in addition to its
    other types": that ability functions everywhere but the battlefield, "even outside the game and before the game
    begins" (CR 113.6c), so Grist is a legendary creature card when the commander is chosen and can be the commander;
    other legendary planeswalkers cannot."""
    rows = {
        c["name"]: c
        for c in json.loads(
            gzip.decompress((realdata / "scryfall-commander-legal-trimmed-20250925.json.gz").read_bytes())
        )
    }
    grist = _rules_from_trimmed(rows, "Grist, the Hunger Tide")
    assert grist.commander_ok and grist.creature
    assert not _rules_from_trimmed(rows, "Karn Liberated").commander_ok
    # an Equipment that makes its creature one, or a card that is a creature only on the battlefield, is not
    assert not _rules_from_trimmed(rows, "Gideon, Ally of Zendikar").commander_ok


def test_a_creature_off_the_battlefield_named_in_full_can_be_a_commander(realdata: Path) -> None:
    """CR 113.6c, as above, on Grist's earlier Oracle wording, which names it in full: "As long as Grist, the Hunger
    Tide isn't on the battlefield, it's a 1/1 Insect creature ..." (the 2022 foreign printings file, ingested into the
    real-data database). The name's comma stopped the phrase being read, and Grist was refused as a planeswalker."""
    with gzip.open(realdata / "scryfall-foreign-printings-from-mtgjson-2022.json.gz", "rt", encoding="utf-8") as lines:
        card = json.loads(next(line for line in lines if '"name":"Grist, the Hunger Tide"' in line).rstrip(",\n"))
    assert card["oracle_text"].startswith("As long as Grist, the Hunger Tide isn't on the battlefield")
    grist = _rules_from_trimmed({card["name"]: card}, card["name"])
    assert grist.commander_ok and grist.creature


def test_a_commander_line_naming_no_deck_card_leaves_the_identity_unjudged_truthfully(sample_db: OracleDB) -> None:
    """A Commander section beside a meld result (CR 712.4b: no card of a deck): the identity is its commanders'
    together (CR 702.124c), so it is not judged, and the note says why without calling a card of the database "no card
    of the database" (Brisela is one: its problem names its meld cards)."""
    deck = "Commander\n1 Krenko, Mob Boss\n1 Brisela, Voice of Nightmares\n\nDeck\n1 Counterspell\n97 Mountain\n"
    report = sample_db.check_deck(deck, format="commander")
    assert "Brisela, Voice of Nightmares" in sample_db.search('include:extras !"Brisela, Voice of Nightmares"')["name"]
    assert not [p for p in report.problems if p.kind == "color_identity"]
    [note] = [n for n in report.notes if "color identity not judged" in n]
    assert "Brisela, Voice of Nightmares" in note and "702.124c" in note
    assert "no card of the database" not in note


def test_background_alone_is_no_commander(realdata: Path) -> None:
    rows = {
        c["name"]: c
        for c in json.loads(
            gzip.decompress((realdata / "scryfall-commander-legal-trimmed-20250925.json.gz").read_bytes())
        )
    }
    giants = _rules_from_trimmed(rows, "Raised by Giants")
    assert giants.background and not giants.commander_ok  # 702.124k


# --------------------------------------------------------------------------- real decks


def test_sample_real_decks_resolve_every_name(sample_db: OracleDB) -> None:
    for path in sorted(SAMPLE_DECKS.iterdir()):
        if path.suffix not in (".json", ".txt"):
            continue
        frame = sample_db.check_decks([path], format="limited")
        unknown = frame.filter(pl.col("kind") == "unknown_card")
        assert unknown.is_empty(), (path.name, unknown.to_dicts())


def test_sample_duel_commander_decks(sample_db: OracleDB) -> None:
    # mtgtop8 Duel Commander: the commander sits in the sideboard; read_decklists_json_cache moves it
    decks = read_decklists_json_cache(SAMPLE_DECKS / "22643_duel-commander_lgs-dc-event.json")
    for deck in decks:
        report = sample_db.check_deck(deck, format="duel")
        assert len(report.commanders) == 1
        assert not {p.kind for p in report.problems} & {
            "deck_size",
            "commander",
            "color_identity",
            "unknown_card",
            "too_many_copies",
            "sideboard_size",
        }, report.problems


def test_sample_vintage_decks_respect_the_restricted_list(sample_db: OracleDB) -> None:
    frame = sample_db.check_decks([SAMPLE_DECKS / "23372_vintage_romancing-the-stones-15.json"], format="vintage")
    assert frame.filter(pl.col("kind").is_in(["restricted", "too_many_copies", "unknown_card"])).is_empty()


def test_check_decks_frame(sample_db: OracleDB) -> None:
    decks: list[str | Path] = [
        "4 Lightnig Bolt\n56 Mountain\n",
        "60 Mountain\n",
        SAMPLE_DECKS / "22963_pauper_pauper-1k.json",
    ]
    frame = sample_db.check_decks(decks, format="pauper")
    assert frame.columns == ["deck", "source", "name", "player", "kind", "card", "line", "detail"]
    assert frame.filter(pl.col("deck") == 0)["kind"].to_list() == ["unknown_card"]
    assert frame.filter(pl.col("deck") == 1).is_empty()
    summary = sample_db.check_decks(decks, format="pauper", summary=True)
    assert summary.height == 2 + 8 and summary["legal"][1] is True
    missing = sample_db.check_decks([Path("/nonexistent/deck.txt")], format="pauper")
    assert missing["kind"].to_list() == ["parse_error"]


def test_many_real_decks_unknown_rate(full_db: OracleDB, realdata: Path) -> None:
    """Every real 2019 decklist (Spigushe mtgtop8 caches) against the real 2019 dump: names all resolve.

    Decks of later years name cards newer than the data (reported below, not failures)."""
    with (realdata / "decks" / "MANIFEST.tsv").open(encoding="utf-8") as handle:
        rows = [line.rstrip("\n").split("\t") for line in handle][1:]
    files = sorted(realdata / "decks" / r[0] / r[1] for r in rows if r[0].startswith("spigushe") and r[3][:4] == "2019")
    assert len(files) > 100
    frame = full_db.check_decks(files, format="limited")
    decks = [d for f in files for d in read_decklists_json_cache(f)]
    entries = sum(1 for d in decks for e in d.entries if e.section != "maybeboard")
    unknown = frame.filter(pl.col("kind") == "unknown_card")
    top = Counter(unknown["card"].to_list()).most_common(10)
    print(f"\n{len(decks)} decks, {entries} entries, {unknown.height} unknown: {top}")
    assert len(decks) > 1500
    assert unknown.height / entries < 0.005, top


def test_every_real_deck_file_is_checked_without_crashing(full_db: OracleDB, realdata: Path) -> None:
    files = [
        p for p in sorted((realdata / "decks").rglob("*")) if p.is_file() and p.suffix in (".json", ".txt", ".dek")
    ]
    frame = full_db.check_decks(files, format="legacy", summary=True)
    assert frame.height >= 3000
    problems = full_db.check_decks(files, format="legacy")
    assert set(problems["kind"].unique().to_list()) <= set(PROBLEM_KINDS)


# --------------------------------------------------------------------------- CLI


def _run(db: OracleDB, *args: str) -> Result:
    return CliRunner().invoke(main, ["deck", "check", *args, "--db", str(db.path)])


def test_cli_a_cut_short_json_deck_is_one_error_line(sample_db: OracleDB, tmp_path: Path) -> None:
    # it was read as a text list: "'{"main":…' contains characters no card name has"
    deck = tmp_path / "j.json"
    deck.write_text('{"main":[{"name":"Lightning Bolt","count":4}', encoding="utf-8")
    out = CliRunner().invoke(main, ["deck", "check", str(deck), "--format", "modern", "--db", str(sample_db.path)])
    assert out.exit_code == 2, out.output
    assert f"error: {deck}: is not valid JSON (Expecting ',' delimiter at line 1 column 45);" in out.stderr
    huge = tmp_path / "x.json"
    huge.write_text("[" * 100_000 + "\n", encoding="utf-8")
    out = CliRunner().invoke(main, ["deck", "check", str(huge), "--format", "legacy", "--db", str(sample_db.path)])
    assert out.exit_code == 2 and "is not valid JSON (nested too deeply to read)" in out.stderr
    assert len(out.output) < 500


def test_no_deck_problem_echoes_a_huge_line_whole(sample_db: OracleDB) -> None:
    for text in ("4 Lightning Bolt\n" + "@" * 100_000 + "\n56 Mountain\n", "4 Lightning Bolt\nSB: " + "[" * 100_000):
        report = sample_db.check_deck(text, format="legacy", limits=False)
        assert kinds(report, "parse_error")
        for p in report.problems:
            assert len(p.card or "") <= 200 and len(p.detail) <= 400, p
    given = sample_db.check_deck("1 Tymna the Weaver\n", format="commander", commanders=["Q" * 100_000])
    assert all(len(p.card or "") <= 200 and len(p.detail) <= 400 for p in given.problems)


def test_cli_json_contract_and_exit_codes(sample_db: OracleDB, tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("4 Lightning Bolt\n56 Mountain\n", encoding="utf-8")
    bad = tmp_path / "bad.txt"
    bad.write_text("5 Lightning Bolt\n55 Mountain\n", encoding="utf-8")
    out = _run(sample_db, str(good), "--format", "modern", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["legal"] is True and data["problems"] == []
    out = _run(sample_db, str(bad), "--format", "modern", "--json")
    assert out.exit_code == 1
    [p] = json.loads(out.output)["problems"]
    assert set(p) >= {"kind", "card", "line", "detail"} and (p["kind"], p["card"], p["line"]) == (
        "too_many_copies",
        "Lightning Bolt",
        1,
    )
    out = _run(sample_db, str(good), str(bad), "--format", "modern", "--json")
    assert out.exit_code == 1 and [r["legal"] for r in json.loads(out.output)] == [True, False]
    out = _run(sample_db, str(bad), "--format", "modern")
    assert out.exit_code == 1 and "line 1" in out.output and "too_many_copies" in out.output
    out = _run(sample_db, str(good), "--format", "modern")
    assert out.exit_code == 0 and "legal" in out.output


def test_cli_unreadable_file_and_bad_format_exit_2(sample_db: OracleDB, tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    assert _run(sample_db, str(empty), "--format", "modern").exit_code == 2
    assert _run(sample_db, str(tmp_path / "missing.txt"), "--format", "modern").exit_code == 2
    good = tmp_path / "good.txt"
    good.write_text("60 Mountain\n", encoding="utf-8")
    out = _run(sample_db, str(good), "--format", "nonsense")
    assert out.exit_code == 2 and "modern" in out.output and "commander" in out.output


def test_cli_commander_option_and_json_cache(sample_db: OracleDB) -> None:
    out = _run(
        sample_db,
        str(SAMPLE_DECKS / "rationelis_precon_quick_draw.txt"),
        "--format",
        "edh",
        "--commander",
        "Stella Lee, Wild Card",
        "--json",
    )
    data = json.loads(out.output)
    assert data["commanders"] == ["Stella Lee, Wild Card"] and data["format"] == "commander"
    out = _run(sample_db, str(SAMPLE_DECKS / "22901_modern_aml.json"), "--format", "modern", "--json")
    assert isinstance(json.loads(out.output), list) and len(json.loads(out.output)) == 2


def test_standard_input_is_read_as_a_file_is(sample_db: OracleDB) -> None:
    """Every door reads decklist text through one function (checker.decklists_from_text): a tournament cache piped
    to ``deck check -`` gives all its decks, as the file does, and JSON that does not parse is one line, not a deck
    of 0 cards judged."""
    cache = SAMPLE_DECKS / "22901_modern_aml.json"
    from_file = json.loads(_run(sample_db, str(cache), "--format", "modern", "--json").output)
    piped = CliRunner().invoke(
        main,
        ["deck", "check", "-", "--format", "modern", "--json", "--db", str(sample_db.path)],
        input=cache.read_bytes(),
    )
    from_stdin = json.loads(piped.output)
    assert len(from_stdin) == len(from_file) == 2
    assert [{**r, "source": None} for r in from_stdin] == [{**r, "source": None} for r in from_file]
    broken = CliRunner().invoke(
        main, ["deck", "check", "-", "--format", "modern", "--db", str(sample_db.path)], input='{"decks": [1, '
    )
    assert broken.exit_code == 2 and broken.output.startswith("error: standard input: is not valid JSON ("), (
        broken.output
    )


def test_format_table() -> None:
    assert format_rules("Duel Commander").key == "duel" and format_rules("EDH").key == "commander"
    assert FORMATS["commander"].min_size == FORMATS["commander"].max_size == 100
    assert FORMATS["modern"].copies == 4 and FORMATS["modern"].sideboard_max == 15
    with pytest.raises(OracleToolsError, match="known formats"):
        format_rules("modernish")


def test_unreadable_path_raises(sample_db: OracleDB, tmp_path: Path) -> None:
    with pytest.raises(DecklistError):
        sample_db.check_deck(tmp_path / "nope.txt", format="modern")


# --------------------------------------------------------------------------- fuzzing


_REAL_NAMES = [
    "Lightning Bolt",
    "Fire/Ice",
    "Fire // Ice",
    "Fire",
    "Nazgûl",
    "Seven Dwarves",
    "Relentless Rats",
    "Squadron Hawk",
    "Tymna the Weaver",
    "Plains",
    "Wastes",
    "Foudre",
    "Food Token",
    "Lightnig Bolt",
]
_line = st.one_of(
    st.builds(lambda n, name: f"{n} {name}", st.integers(-3, 2000), st.sampled_from(_REAL_NAMES)),
    st.sampled_from(["", "Sideboard", "Commander", "Deck", "// comment", "SB: 2 Duress", "Maybeboard", "Companion"]),
    st.text(max_size=40),
)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_line, max_size=30), fmt=st.sampled_from(["modern", "vintage", "commander", "limited", "duel"]))
def test_fuzzed_decklists_never_crash(sample_db: OracleDB, lines: list[str], fmt: str) -> None:
    report = sample_db.check_deck("\n".join(lines) + "\n", format=fmt)
    assert isinstance(report.legal, bool)
    for p in report.problems:
        assert p.kind in PROBLEM_KINDS and isinstance(p.detail, str) and p.detail
        assert p.line is None or p.line >= 1
    json.dumps(report.to_dict())


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=300))
def test_fuzzed_text_never_crashes(sample_db: OracleDB, text: str) -> None:
    report = sample_db.check_deck(parse_decklist(text), format="commander")
    assert isinstance(report.legal, bool)


def test_an_oversized_file_is_one_parse_error_row_of_a_batch(
    sample_db: OracleDB, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # check_decks: an unreadable file is a row, not an exception that loses the other decks' answers
    from oracle_tools.decks import decklist

    good = tmp_path / "good.txt"
    good.write_text("4 Lightning Bolt\n", encoding="utf-8")
    big = tmp_path / "big.txt"
    big.write_text("4 Lightning Bolt\n" * 100, encoding="utf-8")
    monkeypatch.setattr(decklist, "MAX_DECKLIST_BYTES", 1000)  # big.txt is 1,700 bytes
    frame = sample_db.check_decks([big, good], format="modern", summary=True)
    assert frame.height == 2
    assert frame.row(0, named=True)["problems"] == 1 and not frame.row(0, named=True)["legal"]
    problems = sample_db.check_decks([big, good], format="modern")
    first = problems.filter(pl.col("deck") == 0).row(0, named=True)
    assert first["kind"] == "parse_error" and "larger than" in first["detail"]
    assert problems.filter(pl.col("deck") == 1).height > 0  # the good deck was checked too (60 cards short)


def test_a_json_deck_with_a_lone_surrogate_is_refused_in_one_true_line(tmp_path: Path, sample_db_path: Path) -> None:
    """JSON's "\\ud800" escape decodes to a lone surrogate, no character: the file is valid UTF-8, so the line says
    what is wrong (not "not valid UTF-8"), and the --json report carries the same error."""
    deck = tmp_path / "deck.json"
    deck.write_text('{"main": [{"name": "\\ud800", "count": 4}]}', encoding="utf-8")
    with pytest.raises(DecklistError, match="lone surrogate"):
        OracleDB(sample_db_path).check_deck(deck, format="modern")
    result = CliRunner().invoke(
        main, ["deck", "check", str(deck), "--format", "modern", "--db", str(sample_db_path), "--json"]
    )
    assert result.exit_code == 2 and "UTF-8" not in result.output
    report = json.loads(result.stdout)
    assert "lone surrogate" in report["error"] and report["legal"] is False


def test_the_legalities_header_is_read_from_what_the_ingest_stored(sample_db_path: Path) -> None:
    """deck check's header ranked every printing of the database in each fresh process (about 45 MB of a 2-line
    deck check's 108 MB on the real data): the ingest stores which files give the cards their legalities, and the
    header is read from that table."""
    with OracleDB(sample_db_path) as db:
        stored = db.con.execute("SELECT file, cards, newest_printing FROM legalities_files").fetchall()
        header = db.legalities_source()
        judged = db.con.execute(
            "SELECT count(DISTINCT l.oracle_id) FROM legalities l JOIN cards c USING (oracle_id) WHERE c.is_card"
        ).fetchall()[0][0]
    assert sum(cards for _, cards, _ in stored) == judged > 2000
    assert header.startswith(f"legalities: {judged:,} cards; "), header
    for file, cards, _ in stored:
        assert f"{cards:,} cards from {Path(file).name}, data of " in header


@pytest.mark.realdata
def test_the_legalities_header_counts_every_card_and_names_every_file(
    full_db: OracleDB, ingest_steps: dict[str, Path]
) -> None:
    """deck check's header line: every card the legalities judge is counted, and every file that gives cards
    their legalities is named — a card known only from foreign printings (Ragavan in the 2022 file) too; a
    database of the foreign printings alone has its cards (22,011), not "no card"."""
    header = full_db.legalities_source()
    judged = full_db.con.execute(
        "SELECT count(DISTINCT l.oracle_id) FROM legalities l JOIN cards c USING (oracle_id) WHERE c.is_card"
    ).fetchall()[0][0]
    assert header.startswith(f"legalities: {judged:,} cards; "), header
    counted = sum(int(n.replace(",", "")) for n in re.findall(r"; ([\d,]+) cards from ", header))
    assert counted == judged, header
    for file in ("scryfall-default-cards-2019", "scryfall-search-2024", "scryfall-foreign-printings-from-mtgjson"):
        assert file in header, (file, header)
    ragavan = full_db.con.execute(
        "SELECT DISTINCT p.source_file FROM printings p JOIN cards c USING (oracle_id) WHERE c.name = ?",
        ["Ragavan, Nimble Pilferer"],
    ).fetchall()
    assert [Path(f).name for (f,) in ragavan] == ["scryfall-foreign-printings-from-mtgjson-2022.json.gz"]
    with OracleDB(ingest_steps["foreign"]) as foreign:
        alone = foreign.legalities_source()
        cards = foreign.con.execute("SELECT count(*) FROM cards WHERE is_card").fetchall()[0][0]
    assert cards > 20_000  # of the file's 22,092 oracle_ids, the cards (not tokens, emblems, …)
    assert alone.startswith(f"legalities: {cards:,} cards; {cards:,} cards from scryfall-foreign-printings"), alone


def test_a_decklist_name_is_a_card_hit_with_its_fields_named(sample_db: OracleDB) -> None:
    # CR 201.2: "Fire/Ice" is Fire // Ice, read through its folded key; the copies count under the card's key
    hit = sample_db.deck_checker.card("Fire/Ice")
    assert isinstance(hit, CardHit)  # a name the sample has
    assert (hit.rules.name, hit.via) == ("Fire // Ice", "normalized")
    assert hit.class_key == hit.rules.oracle_id


class _RecordingConnection:
    """A DuckDB connection that keeps the text of every statement it runs (and runs it)."""

    def __init__(self, con: Any) -> None:
        self._con = con
        self.queries: list[str] = []

    def execute(self, query: str, *args: Any) -> _RecordingConnection:
        self.queries.append(query)
        self._con.execute(query, *args)
        return self

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


def test_a_small_deck_check_reads_plain_rows_without_joins_aggregates_or_sorts(sample_db_path: Path) -> None:
    # A fresh process checking one list (`oracle-tools deck check`) pays for each join, aggregate and sort DuckDB
    # runs — its hash tables, sort buffers and the code behind them — in its peak memory (a GROUP BY over two cards
    # cost ~10 MB): the header, the name lookup and the cards' rules are plain reads, joined in Python.
    with OracleDB(sample_db_path) as db:
        recording = _RecordingConnection(db.con)
        db._con = recording  # type: ignore[assignment]
        header = db.legalities_source()
        report = db.check_deck("4 Lightning Bolt\n4 Fire/Ice\n4 Fire\n1 Jace, Vryn's Prodigy\n", format="legacy")
        db._con = recording._con
    assert header.startswith("legalities: "), header
    assert [p.kind for p in report.problems] == ["too_many_copies", "deck_size"], report.problems  # Fire is Fire // Ice
    heavy = re.compile(r"\b(JOIN|GROUP\s+BY|ORDER\s+BY|DISTINCT|OVER|UNION)\b|\(\s*SELECT\b", re.I)
    assert recording.queries, "the check ran no query"
    assert [q for q in recording.queries if heavy.search(q)] == []


def _queries_of_decks(db_path: Path, count: int) -> list[str]:
    """The statements ``count`` small decks (ten sample cards each, legacy and modern in turn), checked one at a time
    in one OracleDB (the point checker: fewer than OracleDB.POINT_LOOKUPS checks), ran."""
    with OracleDB(db_path) as db:
        names = [n for (n,) in db.con.execute("SELECT name FROM cards WHERE is_card ORDER BY name").fetchall()]
        assert len(names) >= 10 * count
        recording = _RecordingConnection(db.con)
        db._con = recording  # type: ignore[assignment]
        for deck in range(count):
            text = "".join(f"1 {name}\n" for name in names[10 * deck : 10 * deck + 10])
            db.check_deck(text, format=("legacy", "modern")[deck % 2])
        db._con = recording._con
    return recording.queries


def test_one_deck_at_a_time_costs_what_its_names_cost(sample_db_path: Path) -> None:
    # Each deck checked one at a time reads its own cards, not again what a batch reads once: a format's
    # legalities are read whole from the second deck on (not per deck for each format met so far), and the meld
    # results and back faces a resolved name may be (CR 712.4b, 712.8a) come from one read of the faces' roles, not
    # one query per name.
    four, eight = _queries_of_decks(sample_db_path, 4), _queries_of_decks(sample_db_path, 8)
    legalities = [q for q in eight if re.search(r"FROM legalities\b", q)]
    assert len(legalities) == len([q for q in four if re.search(r"FROM legalities\b", q)]) <= 6, legalities
    notes = [q for q in eight if "FROM faces WHERE oracle_id = $oid" in q or "role IN" in q]
    assert len(notes) <= 1 + 3 * 2, notes  # the roles once; three queries for a card that has such a face
    assert (len(eight) - len(four)) / 4 <= 6  # a deck: its names (names, cards, faces) and its cards' rules (2)


def test_decks_after_the_first_read_no_card_facts_of_their_own(sample_db_path: Path) -> None:
    # From the second deck on, every card's facts are read once (cards and faces whole), not again for the cards of
    # each deck (a query by oracle_id scans both tables: ~5 ms a deck); a later deck reads only its names
    eight = _queries_of_decks(sample_db_path, 8)
    facts = [q for q in eight if "oracle_text, color_identity" in q and "WHERE oracle_id IN" in q]
    assert len(facts) == 1, facts  # the first deck's cards only
    whole = [q for q in eight if "oracle_text, color_identity" in q and "WHERE" not in q]
    assert len(whole) == 1, whole


def test_many_decks_one_at_a_time_keep_one_checker(sample_db_path: Path) -> None:
    # More lists than OracleDB.POINT_LOOKUPS, one at a time: the name strategy turns to the warm index, but the
    # checker that read the cards' facts and the formats' legalities keeps them (no second checker reads every card
    # again), and its answers are the warm checker's
    path = next((sample_dir() / "decks").glob("*_legacy_*.json"))
    decks = read_decklists_json_cache(path)
    decks = (decks * (OracleDB.POINT_LOOKUPS // len(decks) + 2))[: OracleDB.POINT_LOOKUPS + 4]
    with OracleDB(sample_db_path) as db:
        reports, checkers = [], set()
        for deck in decks:
            reports.append(db.check_deck(deck, format="legacy").to_dict())
            checkers.add(id(db._point_deck_checker))
        assert db._deck_checker is None and len(checkers) == 1 and db._point_deck_checker is not None
        warm = DeckChecker(db.con, db.name_index)
        assert reports == [warm.check(deck, "legacy").to_dict() for deck in decks]


def test_the_warm_checker_makes_the_rules_of_the_cards_it_meets(sample_db_path: Path) -> None:
    # The warm checker reads every card's facts at once but makes a card's rules when a deck first names it (making
    # them for every card first was most of its start); each is the rules the facts give (the point checker's,
    # test_the_point_checker_reads_each_card_as_the_warm_checker_does)
    with OracleDB(sample_db_path) as db:
        checker = db.deck_checker
        assert isinstance(checker.cards, CardRulesTable)
        report = checker.check(parse_decklist("4 Lightning Bolt\n4 Counterspell\n"), "legacy")
        assert [p.kind for p in report.problems] == ["deck_size"]
        made = len(checker.cards._made)
        assert 2 <= made < len(checker.cards) / 10, made


def test_the_point_checker_reads_each_card_as_the_warm_checker_does(sample_db_path: Path) -> None:
    # The two strategies of one deck check (the rules of a list's cards only, for a fresh process; every card's,
    # warm) read the same facts: front face, basic supertype, colour identity, the deck limit of the card's text
    with OracleDB(sample_db_path) as db:
        warm = db.deck_checker.cards
        point = db._point_checker(db.name_index)
        point.load(sorted(warm))
        assert point.cards == warm
        assert len(warm) > 100


def test_a_commander_option_beside_a_commander_section_is_said_not_ignored(sample_db: OracleDB, tmp_path: Path) -> None:
    """A list with a Commander section (Kiki-Jiki) checked with --commander Tarmogoyf: the section's commander is
    used (CR 903.3), and a note says the option was ignored — never silently. The same card given again: nothing
    is contradicted, no note."""
    deck = tmp_path / "kiki.txt"
    deck.write_text("Commander\n1 Kiki-Jiki, Mirror Breaker\n\nDeck\n98 Mountain\n1 Lightning Bolt\n", encoding="utf-8")
    out = _run(sample_db, str(deck), "--format", "commander", "--commander", "Tarmogoyf")
    assert out.exit_code == 0, out.output
    assert (
        "note: --commander 'Tarmogoyf' ignored: the list's Commander section names Kiki-Jiki, Mirror Breaker, "
        "which is used" in out.output
    )
    report = sample_db.check_deck(deck, format="commander", commanders=["Tarmogoyf"])
    assert report.commanders == ["Kiki-Jiki, Mirror Breaker"] and any("ignored" in n for n in report.notes)
    again = sample_db.check_deck(deck, format="commander", commanders=["Kiki-Jiki, Mirror Breaker"])
    assert again.legal and again.notes == []
    huge = sample_db.check_deck(deck, format="commander", commanders=["Q" * 100_000])
    assert all(len(n) <= 400 for n in huge.notes), huge.notes


def test_a_commander_option_that_names_no_card_is_not_told_to_pass_the_option(sample_db: OracleDB) -> None:
    """--commander "Kiki Jiki" (no such card name): the line saying so, and not the advice to "pass it with
    --commander", which was followed already (CR 903.3)."""
    report = sample_db.check_deck("1 Lightning Bolt\n99 Mountain\n", format="commander", commanders=["Kiki Jiki"])
    problems = kinds(report, "commander")
    assert len(problems) == 1 and "'Kiki Jiki'" in problems[0].detail, problems
    assert not any("--commander" in p.detail for p in report.problems), report.problems
    alone = sample_db.check_deck("1 Lightning Bolt\n99 Mountain\n", format="commander")
    assert any("pass it with --commander" in p.detail for p in kinds(alone, "commander"))  # not given: still said
