"""Choosing a card name (CR 201.4, 201.4a-g): oracle_tools/choose/chooser.py, OracleDB.choose_name /
OracleDB.nameable and ``oracle-tools choose-name``.

Every card below is a real card of the embedded sample (data/sample/) unless said otherwise;
the 201.4g pair and the Tarmogoyf token object are fixtures (tests/fixtures/), because the
project's real data has neither an interchangeable pair nor a Scryfall token object that
carries a card's name.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB
from oracle_tools.choose.chooser import (
    ROLE_RULE,
    ConstraintCardError,
    Verdict,
    as_constraint,
    constraint_from_card,
)
from oracle_tools.errors import ConstraintError, OracleToolsError
from oracle_tools.interfaces.cli import main
from oracle_tools.text.constraints import (
    KNOWN_PHRASES,
    WHERE_LISTED,
    AnyCard,
    CardType,
    Constraint,
    Not,
    card_name_phrases,
    parse_constraint,
)

from oracle_server import Server

TRIMMED_2025 = "scryfall-commander-legal-trimmed-20250925.json.gz"


def check(db: OracleDB, name: str, constraint: Any, *, valid: bool, rule: str) -> Verdict:
    verdict = db.choose_name(name, constraint)
    assert (verdict.valid, verdict.rule) == (valid, rule), verdict.reason
    assert bool(verdict) is valid
    assert verdict.reason.endswith((".", "?")) and verdict.reason[0].isupper()
    if not valid:
        assert verdict.chosen == ()
    return verdict


# -- CR 201.4: names of cards in the Oracle card reference; tokens only if also a card's name ----


def test_201_4_token_only_name_is_refused(sample_db: OracleDB) -> None:
    # Marit Lage (Dark Depths) exists only as a token object: never a card name.
    assert sample_db.sql("SELECT count(*) AS n FROM token_names WHERE name = 'Marit Lage'")["n"][0] > 0
    verdict = check(sample_db, "Marit Lage", None, valid=False, rule="201.4")
    assert "token" in verdict.reason
    check(sample_db, "marit lage", "creature", valid=False, rule="201.4")
    # Treasure: a token (Scryfall object, CR 111.10a), no card has that name
    assert "token" in check(sample_db, "Treasure", None, valid=False, rule="201.4").reason


def test_201_4_stored_token_kinds_are_the_computed_ones(sample_db_path: Path) -> None:
    # For a fast start, ingest stores the kinds of non-card names (token_kinds) so a fresh choose-name reads the keys
    # it asks about; the table holds what the token tables give.
    import duckdb

    from oracle_tools.choose.chooser import stored_token_kinds, token_kinds
    from oracle_tools.text.matching import normalize

    with duckdb.connect(str(sample_db_path), read_only=True) as con:
        computed = token_kinds(con)
        assert stored_token_kinds(con) == computed and len(computed) > 100
        asked = [normalize(n) for n in ("Marit Lage", "Treasure", "Tarmogoyf", "No Such Token")]
        assert stored_token_kinds(con, asked) == {k: computed[k] for k in asked if k in computed}
        assert "marit lage" in computed and "treasure" in computed  # CR 111.4 token object, 111.10a predefined


def test_201_4_token_name_that_is_also_a_card_name_is_valid(fixture_db: OracleDB) -> None:
    # The fixture adds a Scryfall token object named Tarmogoyf (Disa the Restless makes one):
    # the name is in token_names *and* in names, and it may be chosen because it is a card's name.
    both = fixture_db.sql("SELECT t.name FROM token_names t JOIN names n ON n.name = t.name AND n.via = 'name'")[
        "name"
    ].to_list()
    assert "Tarmogoyf" in both
    verdict = check(fixture_db, "Tarmogoyf", "nonland", valid=True, rule="201.4a")
    assert verdict.chosen == ("Tarmogoyf",)
    assert "token" in verdict.reason
    assert (verdict.characteristics or {})["card_types"] == ["Creature"]  # judged as the card, not the token


def test_201_4_blood_is_a_token_and_a_split_half(sample_db: OracleDB) -> None:
    # Blood is a predefined token (CR 111.10g) and the second half of Flesh // Blood.
    verdict = check(sample_db, "Blood", "nonland", valid=True, rule="201.4b")
    assert verdict.card == "Flesh // Blood"


def test_201_4_unknown_name_has_suggestions(sample_db: OracleDB) -> None:
    verdict = check(sample_db, "Tarmogoyff", None, valid=False, rule="201.4")
    assert "Tarmogoyf" in verdict.suggestions
    assert "Tarmogoyf" in verdict.reason


def test_201_4_ambiguous_name_lists_candidates(sample_db: OracleDB) -> None:
    # "Resurgimiento" is the Spanish printed name of two different cards.
    verdict = check(sample_db, "Resurgimiento", None, valid=False, rule="201.4")
    assert len(verdict.candidates) == 2
    assert all(c in verdict.reason for c in verdict.candidates)


# -- CR 201.4a: Oracle characteristics, not game state, not legality ------------------------------


def test_201_4a_dispossess_artifact(sample_db: OracleDB) -> None:
    constraint = constraint_from_card(sample_db, "Dispossess")[0]
    assert constraint == CardType("Artifact")
    check(sample_db, "Sol Ring", constraint, valid=True, rule="201.4a")
    # The CR's own example: Island can't be named, whatever happens to an Island in a game.
    check(sample_db, "Island", constraint, valid=False, rule="201.4a")
    check(sample_db, "Lightning Bolt", constraint, valid=False, rule="201.4a")


def test_201_4a_judges_by_oracle_not_legality(sample_db: OracleDB) -> None:
    banned = sample_db.sql(
        "SELECT l.format FROM legalities l JOIN cards c USING (oracle_id) "
        "WHERE c.name = 'Black Lotus' AND l.status = 'banned'"
    )["format"].to_list()
    assert "legacy" in banned
    verdict = check(sample_db, "Black Lotus", "artifact", valid=True, rule="201.4a")
    assert verdict.chosen == ("Black Lotus",)


def test_201_4a_land_creature_is_not_nonland(sample_db: OracleDB) -> None:
    verdict = check(sample_db, "Dryad Arbor", "nonland", valid=False, rule="201.4a")
    assert "Land" in (verdict.characteristics or {})["card_types"]
    check(sample_db, "Dryad Arbor", "creature", valid=True, rule="201.4a")


def test_201_4a_permanent_card_follows_110_4a(sample_db: OracleDB) -> None:
    check(sample_db, "Sol Ring", "permanent", valid=True, rule="201.4a")
    check(sample_db, "Lightning Bolt", "permanent", valid=False, rule="201.4a")
    check(sample_db, "Razorgrass Field", "permanent", valid=True, rule="201.4d")


# -- CR 201.4b: split cards (incl. aftermath): a half, never the combined name -----------------


@pytest.mark.parametrize("text", ["Fire // Ice", "fire/ice", "FIRE // ICE"])
def test_201_4b_combined_split_name_is_refused(sample_db: OracleDB, text: str) -> None:
    assert sample_db.resolve(text).ok  # it resolves ...
    for constraint in (None, "nonland", "any"):
        verdict = check(sample_db, text, constraint, valid=False, rule="201.4b")  # ... but is no valid choice
        assert set(verdict.suggestions) == {"Fire", "Ice"}


def test_201_4b_a_half_is_judged_alone(sample_db: OracleDB) -> None:
    verdict = check(sample_db, "Fire", "nonland", valid=True, rule="201.4b")
    assert verdict.chosen == ("Fire",)
    assert verdict.card == "Fire // Ice"
    assert (verdict.characteristics or {})["mana_cost"] == "{1}{R}"
    assert (verdict.characteristics or {})["colors"] == ["R"]  # Fire alone is red, not red and blue
    check(sample_db, "Ice", "blue", valid=True, rule="201.4b")
    check(sample_db, "Ice", "red", valid=False, rule="201.4b")
    check(sample_db, "Who // What // When // Where // Why", None, valid=False, rule="201.4b")
    check(sample_db, "Why", "instant", valid=True, rule="201.4b")


def test_201_4b_aftermath_half(sample_db: OracleDB) -> None:
    verdict = check(sample_db, "Ribbons", "sorcery", valid=True, rule="201.4b")
    assert verdict.role == "aftermath_half"
    assert (verdict.characteristics or {})["card_types"] == ["Sorcery"]
    assert (verdict.characteristics or {})["colors"] == ["B"]  # Ribbons alone, not Cut's red
    check(sample_db, "Ribbons", "red", valid=False, rule="201.4b")
    check(sample_db, "Cut // Ribbons", "sorcery", valid=False, rule="201.4b")


# -- CR 201.4c: flip cards ---------------------------------------------------------------------


def test_201_4c_flip_alternative_name(sample_db: OracleDB) -> None:
    verdict = check(sample_db, "Kenzo the Hardhearted", "creature", valid=True, rule="201.4c")
    assert verdict.role == "flip_bottom"
    # as modified by the alternative characteristics: Kenzo's legendary type line, with the
    # card's mana cost and colour (CR 710.1c)
    assert (verdict.characteristics or {})["supertypes"] == ["Legendary"]
    assert (verdict.characteristics or {})["mana_cost"] == "{W}"
    assert (verdict.characteristics or {})["colors"] == ["W"]
    check(sample_db, "Kenzo the Hardhearted", "legendary", valid=True, rule="201.4c")
    check(sample_db, "Kenzo the Hardhearted", "white", valid=True, rule="201.4c")
    # the top name is judged by the normal characteristics: Bushi Tenderfoot is not legendary
    check(sample_db, "Bushi Tenderfoot", "legendary", valid=False, rule="201.4a")
    check(sample_db, "Bushi Tenderfoot // Kenzo the Hardhearted", None, valid=False, rule="201.4c")


# -- CR 201.4d: double-faced cards -------------------------------------------------------------


def test_201_4d_modal_dfc_back_face_land(sample_db: OracleDB) -> None:
    back = check(sample_db, "Razorgrass Field", "nonland", valid=False, rule="201.4d")
    assert back.role == "back" and (back.characteristics or {})["card_types"] == ["Land"]
    front = check(sample_db, "Razorgrass Ambush", "nonland", valid=True, rule="201.4a")
    assert front.role == "front" and (front.characteristics or {})["card_types"] == ["Instant"]
    check(sample_db, "Razorgrass Field", "nonbasic land", valid=True, rule="201.4d")
    check(sample_db, "Razorgrass Ambush // Razorgrass Field", None, valid=False, rule="201.4d")
    # the 2025 modal DFC of the sample: Sejiri Shelter // Sejiri Glacier
    check(sample_db, "Sejiri Glacier", "nonland", valid=False, rule="201.4d")
    check(sample_db, "Sejiri Shelter", "nonland", valid=True, rule="201.4a")


def test_201_4d_transform_back_face(sample_db: OracleDB) -> None:
    verdict = check(sample_db, "Insectile Aberration", "creature", valid=True, rule="201.4d")
    assert verdict.card == "Delver of Secrets // Insectile Aberration"
    assert "Insect" in (verdict.characteristics or {})["subtypes"]
    check(sample_db, "Insectile Aberration", "nonland", valid=True, rule="201.4d")
    check(sample_db, "Delver of Secrets // Insectile Aberration", "creature", valid=False, rule="201.4d")


# -- CR 201.4e: meld ---------------------------------------------------------------------------


def test_201_4e_meld_result(sample_db: OracleDB) -> None:
    verdict = check(sample_db, "Brisela, Voice of Nightmares", "creature", valid=True, rule="201.4e")
    assert verdict.role == "meld_result"
    assert verdict.chosen == ("Brisela, Voice of Nightmares",)
    assert (verdict.characteristics or {})["mana_value"] == 11
    assert "Bruna, the Fading Light" in verdict.reason  # the pair it is the back face of
    check(sample_db, "Brisela, Voice of Nightmares", "nonland", valid=True, rule="201.4e")
    check(sample_db, "Brisela, Voice of Nightmares", "mana value 7", valid=False, rule="201.4e")
    check(sample_db, "Bruna, the Fading Light", "mana value 7", valid=True, rule="201.4a")


# -- CR 201.4f: adventurer cards ---------------------------------------------------------------


def test_201_4f_adventure_name(sample_db: OracleDB) -> None:
    phrase = "noncreature, nonland"  # Council of the Absolute
    verdict = check(sample_db, "Chop Down", phrase, valid=True, rule="201.4f")
    assert verdict.role == "adventure"
    assert (verdict.characteristics or {})["card_types"] == ["Instant"]
    assert (verdict.characteristics or {})["mana_cost"] == "{2}{W}"
    check(sample_db, "Chop Down", "creature", valid=False, rule="201.4f")
    # the adventurer's own name is judged by its normal characteristics (CR 715.4)
    check(sample_db, "Giant Killer", phrase, valid=False, rule="201.4a")
    check(sample_db, "Giant Killer", "creature", valid=True, rule="201.4a")
    check(sample_db, "Giant Killer // Chop Down", None, valid=False, rule="201.4f")


# -- CR 201.4g: interchangeable names ----------------------------------------------------------


@pytest.mark.parametrize("typed", ["Spectacular Spider-Man", "spectacular spider-man", "Ademi of the Silkchutes"])
def test_201_4g_interchangeable_names_are_all_chosen(sample_db: OracleDB, typed: str) -> None:
    # the sample's real om1 #1: "Ademi of the Silkchutes" is printed_name of a Spectacular Spider-Man printing
    verdict = check(sample_db, typed, "creature", valid=True, rule="201.4g")
    assert set(verdict.chosen) == {"Spectacular Spider-Man", "Ademi of the Silkchutes"}
    assert verdict.chosen[0] == sample_db.resolve(typed).english_name == "Spectacular Spider-Man"
    assert "201.4g" in verdict.rules
    check(sample_db, typed, "artifact", valid=False, rule="201.4a")


def test_201_4g_override_table_class_is_chosen_whole(fixture_db: OracleDB) -> None:
    # a class the optional override table gives (two Oracle cards; tests/fixtures/interchangeable_names.csv)
    verdict = check(fixture_db, "Omenpath Web-Slinger", "creature", valid=True, rule="201.4g")
    assert set(verdict.chosen) == {"Spider-Man, Web-Slinger", "Omenpath Web-Slinger"}


def test_single_names_choose_only_themselves(sample_db: OracleDB) -> None:
    assert check(sample_db, "Tarmogoyf", None, valid=True, rule="201.4").chosen == ("Tarmogoyf",)


# -- resolver input: case, accents, foreign names; the verdict speaks English -------------------


@pytest.mark.parametrize(
    ("typed", "english"),
    [
        ("Foudre", "Lightning Bolt"),  # fr
        ("稲妻", "Lightning Bolt"),  # ja
        ("LIGHTNING BOLT", "Lightning Bolt"),
        ("Lim-Dul's Vault", "Lim-Dûl's Vault"),
    ],
)
def test_foreign_and_folded_names(sample_db: OracleDB, typed: str, english: str) -> None:
    verdict = sample_db.choose_name(typed, "nonland")
    assert verdict.valid and verdict.chosen == (english,) and verdict.name == english
    assert verdict.query == typed


def test_foreign_combined_split_name_is_refused(sample_db: OracleDB) -> None:
    printed = sample_db.sql(
        "SELECT n.name FROM names n JOIN cards c USING (oracle_id) WHERE c.name = 'Fire // Ice' "
        "AND n.via = 'printed' AND n.face_index IS NULL AND n.name LIKE '%//%' LIMIT 1"
    )["name"][0]
    check(sample_db, printed, None, valid=False, rule="201.4b")


# -- constraints: phrase, Constraint, None; bad input ------------------------------------------


def test_constraint_forms(sample_db: OracleDB) -> None:
    assert as_constraint(None) == AnyCard()
    assert as_constraint("nonland") == Not(CardType("Land"))
    for form in ("nonland", Not(CardType("Land")), parse_constraint("a nonland card name")):
        assert sample_db.choose_name("Forest", form).valid is False
    assert sample_db.choose_name("Forest", None).valid is True
    assert sample_db.choose_name("Forest").constraint == "any"
    with pytest.raises(ConstraintError):
        sample_db.choose_name("Forest", "nonlnad")
    with pytest.raises(ConstraintError):
        sample_db.choose_name("Forest", 3)  # type: ignore[arg-type]


# The real phrases (KNOWN_PHRASES, all from real Oracle text) against real names.
NAMES = (
    "Tarmogoyf",
    "Forest",
    "Snow-Covered Forest",
    "Wastes",
    "Sol Ring",
    "Lightning Bolt",
    "Black Lotus",
    "Dryad Arbor",
    "Razorgrass Field",
    "Razorgrass Ambush",
    "Chop Down",
    "Fire",
    "Kenzo the Hardhearted",
)
EXPECTED = {
    "": set(NAMES),
    "any": set(NAMES),
    "nonland": {
        "Tarmogoyf",
        "Sol Ring",
        "Lightning Bolt",
        "Black Lotus",
        "Razorgrass Ambush",
        "Chop Down",
        "Fire",
        "Kenzo the Hardhearted",
    },
    "creature": {"Tarmogoyf", "Dryad Arbor", "Kenzo the Hardhearted"},
    "artifact": {"Sol Ring", "Black Lotus"},
    "nonbasic land": {"Dryad Arbor", "Razorgrass Field"},
    "nonartifact, nonland": {
        "Tarmogoyf",
        "Lightning Bolt",
        "Razorgrass Ambush",
        "Chop Down",
        "Fire",
        "Kenzo the Hardhearted",
    },
    "noncreature, nonland": {"Sol Ring", "Lightning Bolt", "Black Lotus", "Razorgrass Ambush", "Chop Down", "Fire"},
    "other than a basic land card name": set(NAMES) - {"Forest", "Snow-Covered Forest", "Wastes"},
    KNOWN_PHRASES[-1]: {"Black Lotus"},  # Garth One-Eye: only these six names
}


@pytest.mark.parametrize("phrase", KNOWN_PHRASES)
def test_known_phrases_on_real_names(sample_db: OracleDB, phrase: str) -> None:
    assert set(EXPECTED) == set(KNOWN_PHRASES)
    valid = {name for name in NAMES if sample_db.choose_name(name, phrase).valid}
    assert valid == EXPECTED[phrase]
    listed = set(sample_db.nameable(phrase)["name"].to_list())
    assert valid == listed & set(NAMES)  # the verdict and the enumeration agree


@pytest.mark.parametrize("phrase", KNOWN_PHRASES)
def test_verdict_agrees_with_enumeration_on_many_names(sample_db: OracleDB, phrase: str) -> None:
    everything = sample_db.nameable(None)
    names = random.Random(201).sample(sorted(set(everything["name"].to_list())), 250)
    listed = set(sample_db.nameable(phrase)["name"].to_list())
    for name in names:
        verdict = sample_db.choose_name(name, phrase)
        if verdict.candidates:  # a name two cards print differently: not a choice of one card
            continue
        assert verdict.valid == (name in listed), (name, verdict.reason)


def test_nameable_frame_shape(sample_db: OracleDB) -> None:
    frame = sample_db.nameable("nonland")
    for column in (
        "name",
        "oracle_id",
        "card_name",
        "face_index",
        "role",
        "rule",
        "type_line",
        "card_types",
        "supertypes",
        "subtypes",
        "mana_cost",
        "mana_value",
        "colors",
    ):
        assert column in frame.columns
    assert set(frame["role"].unique().to_list()) <= set(ROLE_RULE)
    names = set(frame["name"].to_list())
    assert {
        "Fire",
        "Ice",
        "Chop Down",
        "Razorgrass Ambush",
        "Insectile Aberration",
        "Brisela, Voice of Nightmares",
        "Kenzo the Hardhearted",
    } <= names
    assert not names & {"Fire // Ice", "Razorgrass Field", "Forest", "Marit Lage"}
    assert (
        sample_db.nameable().height
        == sample_db.sql("SELECT count(*) AS n FROM faces JOIN cards USING (oracle_id) WHERE cards.is_card")["n"][0]
    )


# -- --card: the constraint from a card's own Oracle text ---------------------------------------


@pytest.mark.parametrize(
    ("card", "phrase"),
    [
        ("Meddling Mage", "nonland"),
        ("Pithing Needle", ""),
        ("Dispossess", "artifact"),
        ("Booby Trap", "other than a basic land card name"),
        ("Cabal Therapy", "nonland"),
        ("Runed Halo", ""),
        ("Phyrexian Revoker", "nonland"),
        ("Alpine Moon", "nonbasic land"),
        ("Lost Legacy", "nonartifact, nonland"),
        ("Council of the Absolute", "noncreature, nonland"),
        ("Sorcerous Spyglass", "any"),
    ],
)
def test_constraint_from_card(sample_db: OracleDB, card: str, phrase: str) -> None:
    constraint, used, name = constraint_from_card(sample_db, card)
    assert (used, name) == (phrase, card)
    assert constraint == parse_constraint(phrase)


def test_constraint_from_card_errors(sample_db: OracleDB) -> None:
    with pytest.raises(OracleToolsError, match="no 'choose a card name' instruction"):
        constraint_from_card(sample_db, "Lightning Bolt")
    with pytest.raises(OracleToolsError, match="did you mean"):
        constraint_from_card(sample_db, "Medling Mage")


def test_a_card_that_sets_no_constraint_is_said_in_the_librarys_words(sample_db: OracleDB) -> None:
    """The library speaks of "the card", not of the CLI's --card option (the HTTP API and MCP tools say it too);
    each door names its own option, the CLI still --card and --constraint PHRASE."""
    with pytest.raises(ConstraintCardError) as caught:
        sample_db.constraint_for(card="Medling Mage")
    assert (caught.value.problem, caught.value.suggestions[0]) == ("not_found", "Meddling Mage")
    assert str(caught.value).startswith("the card 'Medling Mage': no card has that name; did you mean 'Meddling Mage'")
    with pytest.raises(ConstraintCardError, match="give a constraint phrase instead"):
        sample_db.constraint_for(card="Lightning Bolt")
    with pytest.raises(ConstraintError, match="not both"):
        sample_db.constraint_for("nonland", "Meddling Mage")
    result = run(sample_db, "Fire", "--card", "Medling Mage")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --card 'Medling Mage': no card has that name; did you mean 'Meddling Mage'")
    result = run(sample_db, "Fire", "--card", "Lightning Bolt")
    assert result.stderr.endswith("so it sets no constraint; give --constraint PHRASE instead.\n")


def test_the_choose_name_answer_is_built_once_on_oracledb(sample_db: OracleDB) -> None:
    """The verdict and the constraint it was judged by (a card's: Meddling Mage, nonland) are one OracleDB answer;
    the CLI's --json prints it as it is, and its --list --json prints OracleDB.nameable_rows."""
    report = sample_db.choose_name_report("Razorgrass Field", card="Meddling Mage")
    # CR 201.4d: a double-faced card's back face is judged by its own characteristics (a land: not nonland)
    assert (report.verdict.valid, report.verdict.rule) == (False, "201.4d")
    assert (report.constraint.phrase, report.constraint.card) == ("nonland", "Meddling Mage")
    result = run(sample_db, "Razorgrass Field", "--card", "Meddling Mage", "--json")
    assert json.loads(result.output) == report.to_dict()
    rows = sample_db.nameable_rows(card="Meddling Mage", limit=5)
    assert len(rows) == 5 and "oracle_text" not in rows[0]
    listed = json.loads(run(sample_db, "--list", "--card", "Meddling Mage", "--json").output)
    assert listed[:5] == rows and len(listed) > 5


# -- the CLI contract --------------------------------------------------------------------------


def run(db: OracleDB, *args: str) -> Any:
    return CliRunner().invoke(main, ["choose-name", "--db", str(db.path), *args])


def test_cli_json_contract_valid(sample_db: OracleDB) -> None:
    result = run(sample_db, "Chop Down", "--constraint", "noncreature, nonland", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["valid"] is True and data["chosen"] == ["Chop Down"] and data["rule"] == "201.4f"
    assert isinstance(data["reason"], str) and data["reason"]


def test_cli_json_contract_invalid(sample_db: OracleDB) -> None:
    result = run(sample_db, "Fire // Ice", "--constraint", "nonland", "--json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert (data["valid"], data["chosen"], data["rule"]) == (False, [], "201.4b")


def test_cli_card_option(sample_db: OracleDB) -> None:
    result = run(sample_db, "Razorgrass Field", "--card", "Meddling Mage", "--json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert (data["valid"], data["rule"], data["constraint"]) == (False, "201.4d", "nonland")
    assert data["constraint_from_card"] == "Meddling Mage"
    result = run(sample_db, "Razorgrass Ambush", "--card", "Meddling Mage")
    assert result.exit_code == 0 and result.output.startswith("valid (201.4a)")


def test_cli_interchangeable(sample_db: OracleDB) -> None:
    result = run(sample_db, "Ruzic, Booed but Victorious", "--constraint", "creature", "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert (data["rule"], data["via"]) == ("201.4g", "interchangeable")
    assert data["chosen"] == ["Ultimate Green Goblin", "Ruzic, Booed but Victorious"]


def test_cli_unknown_name(sample_db: OracleDB) -> None:
    result = run(sample_db, "Tarmogoyff", "--json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["valid"] is False and data["chosen"] == [] and "Tarmogoyf" in data["suggestions"]


def test_cli_bad_usage(sample_db: OracleDB) -> None:
    result = run(sample_db, "Forest", "--constraint", "nonlnad")
    assert result.exit_code == 2
    assert "did you mean nonland?" in result.output and result.output.count("\n") == 1  # one line
    assert "nonartifact, nonland" in run(sample_db, "--help").output  # where it points: the understood phrases
    result = run(sample_db, "Forest", "--constraint", "nonland", "--card", "Meddling Mage")
    assert result.exit_code == 2 and "not both" in result.output
    result = run(sample_db, "Forest", "--card", "Lightning Bolt")
    assert result.exit_code == 2 and "no 'choose a card name' instruction" in result.output
    result = run(sample_db, "Forest", "--card", "Xyzzy Plugh")
    assert result.exit_code == 2
    assert run(sample_db).exit_code == 2
    assert run(sample_db, "Forest", "--list").exit_code == 2


def test_cli_list(sample_db: OracleDB) -> None:
    result = run(sample_db, "--constraint", "nonland", "--list")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert "Fire" in lines and "Chop Down" in lines and "Fire // Ice" not in lines and "Forest" not in lines
    assert len(lines) == len(set(lines)) == sample_db.nameable("nonland")["name"].n_unique()
    result = run(sample_db, "--card", "Dispossess", "--list", "--json")
    assert result.exit_code == 0
    rows = json.loads(result.output)
    assert {"Sol Ring", "Black Lotus"} <= {r["name"] for r in rows}
    assert all("Artifact" in r["card_types"] for r in rows)


# -- real data: the full 2019 + 2024 reference, and the 2025 phrases ----------------------------


@pytest.mark.realdata
def test_full_nameable_nonland(full_db: OracleDB) -> None:
    frame = full_db.nameable("nonland")
    names = set(frame["name"].to_list())
    combined = set(full_db.sql("SELECT name FROM cards WHERE is_card AND name LIKE '%//%'")["name"].to_list())
    assert combined and not names & combined  # never a combined split / DFC / flip / adventure name
    assert not frame.filter(frame["card_types"].list.contains("Land")).height  # never a land face
    halves = full_db.sql(
        "SELECT f.name FROM faces f JOIN cards c USING (oracle_id) WHERE c.is_card "
        "AND f.role IN ('split_half', 'aftermath_half') AND NOT list_contains(f.card_types, 'Land')"
    )["name"]
    assert halves.len() > 150 and set(halves.to_list()) <= names  # every nonland split half


@pytest.mark.realdata
def test_real_2025_phrases_all_parse_and_judge(realdata: Path, full_db: OracleDB) -> None:
    with gzip.open(realdata / TRIMMED_2025, "rt", encoding="utf-8") as handle:
        cards = json.load(handle)
    found: list[tuple[str, str]] = []
    for card in cards:
        texts = [card.get("oracle_text") or ""] + [f.get("oracle_text") or "" for f in card.get("card_faces") or []]
        for text in dict.fromkeys(t for t in texts if t):
            found += [(card["name"], phrase) for phrase in card_name_phrases(text)]
    assert len(found) == 64  # every real "choose … card name" instruction of the 2025 text
    nonland_count = full_db.nameable("nonland").height
    for card, phrase in found:
        constraint = parse_constraint(phrase)
        assert isinstance(constraint, Constraint)
        listed = full_db.nameable(constraint)
        assert 0 < listed.height, (card, phrase)
        if phrase in ("", "any"):
            assert listed.height == full_db.nameable().height
        name = listed["name"][0]
        assert full_db.choose_name(name, constraint).valid, (card, phrase, name)
    assert nonland_count > 15_000


def test_an_unknown_constraint_word_is_one_line_through_every_door(sample_db: OracleDB, sample_server: Server) -> None:
    """A phrase that is not understood is one line, alike on the CLI, in the HTTP error's details and in the MCP
    tool's error: what was not understood, the closest word ("nonlnd": nonland, whose "non" negates land, so no
    advice to write it as a subtype), and where the phrases understood are listed (choose-name --help lists them)."""
    import asyncio

    from mcp.server.mcpserver.exceptions import ToolError

    from oracle_tools.interfaces.mcp_server import build_server

    said = (
        "Could not understand the card-name constraint 'nonlnd': unknown word \"nonlnd\" (did you mean nonland?); "
        f"{WHERE_LISTED}."
    )
    result = run(sample_db, "Ice", "--constraint", "nonlnd")
    assert (result.exit_code, result.stderr) == (2, f"error: {said}\n")
    answer = sample_server.client.get("/choose-name", params={"name": "Ice", "constraint": "nonlnd"})
    assert answer.status_code == 400 and answer.json()["details"] == said, answer.text
    with pytest.raises(ToolError) as refused:
        asyncio.run(build_server(sample_db).call_tool("choose_name", {"name": "Ice", "constraint": "nonlnd"}))
    assert str(refused.value) == f"choose_name: {said}"
    listed = run(sample_db, "--help").output
    assert '"nonartifact, nonland"' in listed and "mana value N / N or less" in listed


def test_a_foreign_printed_name_is_said_to_be_no_name_through_every_door(
    sample_db: OracleDB, sample_server: Server
) -> None:
    """`choose-name Foudre --constraint nonland` finds Lightning Bolt by a French printed name: the verdict says
    that Foudre is no name of the card, its English name is (CR 201.2), in the words `token Foudre` uses — alike in
    the library, the CLI, HTTP and MCP."""
    import asyncio

    from oracle_tools.interfaces.mcp_server import build_server

    note = "'Foudre' is a printed name of Lightning Bolt; its name is the English one (201.2), Lightning Bolt"
    assert note in sample_db.token("Foudre").notes  # the wording's one source, as token says it
    verdict = sample_db.choose_name("Foudre", "nonland")
    assert verdict.valid and verdict.via == "printed" and note in verdict.reason and "201.2" in verdict.rules
    assert note not in sample_db.choose_name("Lightning Bolt", "nonland").reason  # its own name: no note
    shown = run(sample_db, "Foudre", "--constraint", "nonland")
    assert shown.exit_code == 0 and note in shown.output, shown.output
    answer = sample_server.client.get("/choose-name", params={"name": "Foudre", "constraint": "nonland"})
    assert answer.status_code == 200 and note in answer.json()["reason"], answer.text
    tool = asyncio.run(build_server(sample_db).call_tool("choose_name", {"name": "Foudre", "constraint": "nonland"}))
    assert note in json.dumps(tool, default=str, ensure_ascii=False), tool


@pytest.mark.parametrize(("via", "rule"), [("printed", "201.2"), ("flavor", "201.6")])
def test_a_name_that_is_not_the_cards_name_is_said_so_in_one_wording_by_choose_and_token(
    sample_db: OracleDB, via: str, rule: str
) -> None:
    """A printed name in another language (CR 201.2) and an alternate (flavor) name (CR 201.6) find the card but
    are no name of it: `choose-name` and `token` say so in the one note of names.kinds.not_its_name, citing the rule;
    the card's own names get no such note."""
    from oracle_tools.names.kinds import not_its_name

    typed, card = sample_db.sql(
        "SELECT n.name, c.name FROM names n JOIN cards c USING (oracle_id) WHERE n.via = ? AND c.layout = 'normal' "
        "ORDER BY n.name LIMIT 1",
        [via],
    ).row(0)
    said = not_its_name(via, typed, card)
    assert said is not None and said[0] == rule
    verdict = sample_db.choose_name(typed)
    assert verdict.via == via and said[1] in verdict.reason and rule in verdict.rules, verdict.reason
    assert said[1] in sample_db.token(typed).notes
    assert all(not_its_name(other, card, card) is None for other in ("name", "face", "interchangeable", "normalized"))


def test_an_empty_constraint_is_said_to_be_empty(sample_db: OracleDB) -> None:
    """`--constraint ""` is a phrase left empty, not "any card name": said in one line (exit 2), never answered as
    if no constraint were given (CR 201.4a needs the constraint the effect states)."""
    for phrase in ("", "   "):
        for args in (("Lightning Bolt", "--constraint", phrase), ("--list", "--constraint", phrase)):
            result = run(sample_db, *args)
            assert result.exit_code == 2, result.output
            assert "the --constraint phrase is empty" in result.output and "valid" not in result.output


def test_a_name_several_oracle_cards_print_settles_on_no_card_through_every_door(same_name_db_path: Path) -> None:
    """Unstable prints six Oracle cards named Very Cryptic Command: `resolve` (and /names/resolve) call the name
    ambiguous, naming the six oracle_ids. choose-name answers the same way: the name may be chosen (CR 201.4: it is
    a card's name; 201.4a: a constraint is met when any of the six meets it), said with "6 Oracle cards share the
    name" (CR 201.2a) and the six oracle_ids — never one card's oracle_id or characteristics, in the library, the CLI,
    HTTP and MCP alike."""
    import asyncio

    from starlette.testclient import TestClient

    from oracle_tools.interfaces.mcp_server import build_server
    from oracle_tools.interfaces.serve import create_app

    shared = "6 Oracle cards share the name Very Cryptic Command (the same name, CR 201.2a"
    with OracleDB(same_name_db_path) as db:
        oids = sorted(c.oracle_id for c in db.resolve("Very Cryptic Command").candidates if c.oracle_id)
        assert shared in db.resolve("Very Cryptic Command").miss_message() and len(oids) == 6
        for constraint, valid in ((None, True), ("instant", True), ("creature", False)):
            verdict = db.choose_name("Very Cryptic Command", constraint)
            assert verdict.valid is valid and shared in verdict.reason, verdict
            assert (verdict.oracle_id, verdict.card, verdict.characteristics) == (None, None, None)
            assert sorted(verdict.candidates) == oids and all(oid in verdict.reason for oid in oids)
        tool = asyncio.run(build_server(db).call_tool("choose_name", {"name": "Very Cryptic Command"}))
        assert shared in json.dumps(tool, default=str, ensure_ascii=False) and oids[0] in json.dumps(tool, default=str)
    shown = CliRunner().invoke(main, ["choose-name", "Very Cryptic Command", "--db", str(same_name_db_path)])
    assert shown.exit_code == 0 and shared in shown.output and "the name of a card in" not in shown.output
    with TestClient(create_app(same_name_db_path, warm=False), base_url="http://127.0.0.1:8765") as http:
        answer = http.get("/choose-name", params={"name": "Very Cryptic Command"}).json()
        assert answer["valid"] and answer["oracle_id"] is None and sorted(answer["candidates"]) == oids, answer
        assert shared in answer["reason"]
