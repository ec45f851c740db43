"""Tests for oracle_tools.text.constraints: the "choose a card name" constraint language (CR 201.4).

Real-data tests read ../shared/realdata through the ``realdata`` fixture (skipped when the
folder is absent):

* scryfall-commander-legal-trimmed-20250925.json.gz  (29,730 cards; name, mana_cost,
  type_line, oracle_text, power, toughness, card_faces[] -- no colors / layout / cmc on
  single-faced cards, so the face builder below derives colors and mana value from the
  mana cost)
* scryfall-default-cards-2019-10-per-set-dump.json.gz (45,851 printings, full Scryfall
  objects, used for Dryad Arbor's color indicator and Black Lotus)
* scryfall-search-2024-mh3-otj-fdn.json.gz (Razorgrass Ambush // Razorgrass Field, a
  modal double-faced card whose back face is a land)
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.datatypes import DataTypeClass

from oracle_tools.errors import ConstraintError
from oracle_tools.text.constraints import (
    GRAMMAR,
    KNOWN_PHRASES,
    WHERE_LISTED,
    And,
    AnyCard,
    CardType,
    Color,
    ColorCount,
    Constraint,
    ManaValue,
    Named,
    Not,
    Or,
    Permanent,
    Subtype,
    Supertype,
    card_name_phrases,
    constraint_from_oracle_text,
    help_text,
    parse_constraint,
)

from fuzzing import examples

TRIMMED_2025 = "scryfall-commander-legal-trimmed-20250925.json.gz"
DUMP_2019 = "scryfall-default-cards-2019-10-per-set-dump.json.gz"
SEARCH_2024 = "scryfall-search-2024-mh3-otj-fdn.json.gz"

# ---------------------------------------------------------------------------
# Building faces-table rows from Scryfall JSON (a small stand-in for the ingest)
# ---------------------------------------------------------------------------

SUPERTYPES = {"Basic", "Legendary", "Snow", "World", "Ongoing"}
FACE_SCHEMA: dict[str, pl.DataType | DataTypeClass] = {
    "name": pl.String,
    "face_index": pl.Int32,
    "mana_cost": pl.String,
    "mana_value": pl.Float64,
    "type_line": pl.String,
    "supertypes": pl.List(pl.String),
    "card_types": pl.List(pl.String),
    "subtypes": pl.List(pl.String),
    "oracle_text": pl.String,
    "colors": pl.List(pl.String),
    "color_indicator": pl.List(pl.String),
    "power": pl.String,
    "toughness": pl.String,
}


def split_type_line(type_line: str | None) -> tuple[list[str], list[str], list[str]]:
    """'Legendary Artifact Creature — Equipment' -> (supertypes, card_types, subtypes)."""
    if not type_line:
        return [], [], []
    left, _, right = type_line.partition("—")
    supertypes = [w for w in left.split() if w in SUPERTYPES]
    card_types = [w for w in left.split() if w not in SUPERTYPES]
    right = right.strip()
    subtypes = ["Time Lord"] if "Time Lord" in right else []
    subtypes += right.replace("Time Lord", "").split()
    return supertypes, card_types, subtypes


def mana_value_of(mana_cost: str | None) -> float | None:
    """CR 202.3 for a printed mana cost: X is 0, hybrid counts its largest part, {W/P} is 1."""
    if mana_cost is None:
        return None
    total = 0.0
    for symbol in re.findall(r"\{([^}]*)\}", mana_cost):
        values = []
        for part in symbol.split("/"):
            if part == "P":
                continue
            if part.isdigit():
                values.append(float(part))
            elif part in ("X", "Y", "Z"):
                values.append(0.0)
            elif part == "½" or part.startswith("H"):
                values.append(0.5)
            else:
                values.append(1.0)
        total += max(values, default=0.0)
    return total


def colors_of(mana_cost: str | None) -> list[str]:
    letters = set(re.findall(r"[WUBRG]", mana_cost or ""))
    return [c for c in "WUBRG" if c in letters]


def faces_of(card: dict[str, Any]) -> list[dict[str, Any]]:
    """One faces-table row per face (card_faces split; single-faced cards give one row)."""
    sources = card.get("card_faces") or [card]
    rows = []
    for index, face in enumerate(sources):
        supertypes, card_types, subtypes = split_type_line(face.get("type_line"))
        mana_cost = face.get("mana_cost")
        if "colors" in face:
            colors = face["colors"]  # may be None (kept: NULL handling is part of the test)
        elif "colors" in card:
            colors = card["colors"]
        else:
            colors = colors_of(mana_cost)
        rows.append(
            {
                "name": face.get("name"),
                "face_index": index,
                "mana_cost": mana_cost,
                "mana_value": mana_value_of(mana_cost),
                "type_line": face.get("type_line"),
                "supertypes": supertypes,
                "card_types": card_types,
                "subtypes": subtypes,
                "oracle_text": face.get("oracle_text"),
                "colors": colors,
                "color_indicator": face.get("color_indicator", card.get("color_indicator")),
                "power": face.get("power"),
                "toughness": face.get("toughness"),
            }
        )
    return rows


#: What these tests read of a card object and of each of its faces (faces_of, card_texts)
READ_KEYS = ("name", "type_line", "mana_cost", "colors", "color_indicator", "oracle_text", "power", "toughness")


def _trimmed(card: dict[str, Any]) -> dict[str, Any]:
    kept = {key: card[key] for key in READ_KEYS if key in card}  # a key's absence means something (colors)
    if card.get("card_faces"):
        kept["card_faces"] = [{key: face[key] for key in READ_KEYS if key in face} for face in card["card_faces"]]
    return kept


@cache
def load(folder: str, filename: str) -> list[dict[str, Any]]:
    """Every card object of a real file, trimmed to what these tests read and kept for the module. A file written
    one object a line (the 2019 dump) is parsed a line at a time: the whole dump as Python objects is ~700 MB,
    which would stay the suite's peak."""
    try:
        with gzip.open(Path(folder) / filename, "rt", encoding="utf-8") as fh:
            cards = [_trimmed(json.loads(line)) for raw in fh if (line := raw.strip().rstrip(",")).startswith("{")]
        if cards:
            return cards
    except json.JSONDecodeError:  # pretty-printed: an object spans lines
        pass
    with gzip.open(Path(folder) / filename, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    return [_trimmed(card) for card in (data["data"] if isinstance(data, dict) else data)]


def real_face(realdata: Path, filename: str, face_name: str) -> dict[str, Any]:
    for card in load(str(realdata), filename):
        for face in faces_of(card):
            if face["name"] == face_name:
                return face
    raise AssertionError(f"{face_name} not found in {filename}")


def card_texts(card: dict[str, Any]) -> list[str]:
    texts = [card.get("oracle_text") or ""]
    texts += [f.get("oracle_text") or "" for f in card.get("card_faces") or []]
    return [t for t in dict.fromkeys(texts) if t]


def real_card_text(realdata: Path, name: str) -> str:
    for card in load(str(realdata), TRIMMED_2025):
        if card["name"] == name:
            return "\n".join(card_texts(card))
    raise AssertionError(f"{name} not in {TRIMMED_2025}")


@pytest.fixture(scope="module")
def sample_faces(realdata: Path) -> dict[str, dict[str, Any]]:
    """Face rows built from real cards; the key says which card (face) each one models."""
    names_2025 = [
        "Tarmogoyf",  # Creature — Lhurgoyf {1}{G}
        "Forest",  # Basic Land — Forest
        "Snow-Covered Forest",  # Basic Snow Land — Forest
        "Wastes",  # Basic Land, no subtype
        "Sol Ring",  # Artifact {1}
        "Lightning Bolt",  # Instant {R}
        "Ornithopter",  # Artifact Creature — Thopter {0}
        "Goblin Guide",  # Creature — Goblin Scout {R}
        "Crib Swap",  # Kindred Instant — Shapeshifter (not a permanent card, CR 110.4)
        "Thalia, Guardian of Thraben",  # Legendary Creature {1}{W}
        "Esika's Chariot",  # Legendary Artifact — Vehicle {3}{G}
        "Garth One-Eye",  # Legendary Creature {W}{U}{B}{R}{G}: multicolored
        "Disenchant",  # Instant {1}{W}
        "Petty Theft",  # the Adventure half of Brazen Borrower (CR 201.4f); colors NULL in file
        "Comply",  # the aftermath half of Failure // Comply (CR 201.4b)
    ]
    faces = {n: real_face(realdata, TRIMMED_2025, n) for n in names_2025}
    # Razorgrass Field: the land back face of a modal DFC (CR 201.4d), and its front face
    faces["Razorgrass Field"] = real_face(realdata, SEARCH_2024, "Razorgrass Field")
    faces["Razorgrass Ambush"] = real_face(realdata, SEARCH_2024, "Razorgrass Ambush")
    # Dryad Arbor: Land Creature — Forest Dryad, green by color indicator (2019 file has colors)
    faces["Dryad Arbor"] = real_face(realdata, DUMP_2019, "Dryad Arbor")
    faces["Black Lotus"] = real_face(realdata, DUMP_2019, "Black Lotus")
    return faces


@pytest.fixture(scope="module")
def real_frame(realdata: Path) -> tuple[pl.DataFrame, list[dict[str, Any]]]:
    """Every face of every card in the 2025 trimmed file as a faces-table frame."""
    rows = [face for card in load(str(realdata), TRIMMED_2025) for face in faces_of(card)]
    return pl.DataFrame(rows, schema=FACE_SCHEMA), rows


# ---------------------------------------------------------------------------
# The real phrases (verifying KNOWN_PHRASES against real Oracle text)
# ---------------------------------------------------------------------------


def scan(cards: list[dict[str, Any]]) -> tuple[Counter[str], dict[str, set[str]]]:
    instances: Counter[str] = Counter()
    cards_by_phrase: dict[str, set[str]] = defaultdict(set)
    for card in cards:
        for text in card_texts(card):
            for phrase in card_name_phrases(text):
                instances[phrase] += 1
                cards_by_phrase[phrase].add(card["name"])
    return instances, cards_by_phrase


@pytest.mark.realdata
def test_every_choose_instruction_in_the_real_files_is_found(realdata: Path) -> None:
    """No 'choose … card name' sentence is missed by card_name_phrases (and 'card named' is not one)."""
    for filename in (TRIMMED_2025, DUMP_2019, SEARCH_2024):
        for card in load(str(realdata), filename):
            for text in card_texts(card):
                rough = re.findall(r"\bchooses?\b[^.]*?\bcard names?\b", text, re.IGNORECASE)
                assert len(card_name_phrases(text)) == len(rough), (card["name"], text)


@pytest.mark.realdata
def test_real_phrases_2025_all_parse_and_are_known(realdata: Path) -> None:
    instances, cards_by_phrase = scan(load(str(realdata), TRIMMED_2025))
    for phrase in instances:
        assert isinstance(parse_constraint(phrase), Constraint)
        assert phrase in KNOWN_PHRASES, phrase
    counts = {p: len(names) for p, names in cards_by_phrase.items()}
    assert counts == {
        "": 32,
        "nonland": 17,
        "other than a basic land card name": 4,  # Booby Trap, Desperate Research, Necromentia, Null Chamber
        "creature": 4,
        "any": 2,  # Sorcerous Spyglass, Anointed Peacekeeper
        "artifact": 1,  # Dispossess
        "nonbasic land": 1,  # Alpine Moon
        "nonartifact, nonland": 1,  # Lost Legacy
        "noncreature, nonland": 1,  # Council of the Absolute
        KNOWN_PHRASES[-1]: 1,  # Garth One-Eye
    }
    assert len(set().union(*cards_by_phrase.values())) == 64
    assert sum(instances.values()) == 64
    # every phrase KNOWN_PHRASES lists really occurs
    assert set(KNOWN_PHRASES) == set(instances)


@pytest.mark.realdata
def test_real_phrases_2019_all_parse_and_are_known(realdata: Path) -> None:
    instances, cards_by_phrase = scan(load(str(realdata), DUMP_2019))
    for phrase in instances:
        assert isinstance(parse_constraint(phrase), Constraint)
        assert phrase in KNOWN_PHRASES, phrase
    assert len(set().union(*cards_by_phrase.values())) == 68  # distinct card names
    assert sum(instances.values()) == 117  # instances over all printings
    assert {"Summoner's Bond", "Unexpected Potential"} <= cards_by_phrase[""]  # agendas
    assert cards_by_phrase["any"] == {"Sorcerous Spyglass"}


# ---------------------------------------------------------------------------
# Each real phrase on real faces
# ---------------------------------------------------------------------------

# face -> whether each of KNOWN_PHRASES[2:9] matches it ("" and "any" match every face)
PHRASE_EXPECTATIONS: dict[str, dict[str, bool]] = {
    #                  nonland creature artifact nonbasic-land nonart,nonland noncre,nonland other-than-basic-land
    "Tarmogoyf": dict(zip(KNOWN_PHRASES[2:9], (True, True, False, False, True, False, True))),
    "Razorgrass Field": dict(zip(KNOWN_PHRASES[2:9], (False, False, False, True, False, False, True))),
    "Razorgrass Ambush": dict(zip(KNOWN_PHRASES[2:9], (True, False, False, False, True, True, True))),
    "Forest": dict(zip(KNOWN_PHRASES[2:9], (False, False, False, False, False, False, False))),
    "Snow-Covered Forest": dict(zip(KNOWN_PHRASES[2:9], (False, False, False, False, False, False, False))),
    "Wastes": dict(zip(KNOWN_PHRASES[2:9], (False, False, False, False, False, False, False))),
    "Sol Ring": dict(zip(KNOWN_PHRASES[2:9], (True, False, True, False, False, True, True))),
    "Lightning Bolt": dict(zip(KNOWN_PHRASES[2:9], (True, False, False, False, True, True, True))),
    "Ornithopter": dict(zip(KNOWN_PHRASES[2:9], (True, True, True, False, False, False, True))),
    # CR 205.4c: a land without the basic supertype is nonbasic even with a basic land type
    "Dryad Arbor": dict(zip(KNOWN_PHRASES[2:9], (False, True, False, True, False, False, True))),
    "Petty Theft": dict(zip(KNOWN_PHRASES[2:9], (True, False, False, False, True, True, True))),
}


@pytest.mark.realdata
@pytest.mark.parametrize("face_name", sorted(PHRASE_EXPECTATIONS))
def test_known_phrases_on_real_faces(sample_faces: dict[str, dict[str, Any]], face_name: str) -> None:
    face = sample_faces[face_name]
    frame = pl.DataFrame([face], schema=FACE_SCHEMA)
    expected = {"": True, "any": True, **PHRASE_EXPECTATIONS[face_name]}
    for phrase, want in expected.items():
        c = parse_constraint(phrase)
        assert c.matches(face) is want, (face_name, phrase)
        assert frame.select(c.to_polars()).to_series().to_list() == [want], (face_name, phrase)


@pytest.mark.realdata
def test_garth_one_eye_names(sample_faces: dict[str, dict[str, Any]]) -> None:
    garth = parse_constraint(KNOWN_PHRASES[-1])
    assert garth.matches(sample_faces["Disenchant"])
    assert garth.matches(sample_faces["Black Lotus"])
    assert not garth.matches(sample_faces["Lightning Bolt"])
    assert garth == Or(
        tuple(
            Named(n)
            for n in sorted(["Disenchant", "Braingeyser", "Terror", "Shivan Dragon", "Regrowth", "Black Lotus"])
        )
    )


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("phrase", "yes", "no"),
    [
        # CR 110.4a: artifact, battle, creature, enchantment, land, planeswalker
        (
            "permanent",
            ["Sol Ring", "Razorgrass Field", "Forest", "Tarmogoyf"],
            ["Lightning Bolt", "Crib Swap", "Razorgrass Ambush"],
        ),
        ("nonpermanent", ["Lightning Bolt", "Crib Swap", "Petty Theft"], ["Dryad Arbor"]),
        ("legendary", ["Thalia, Guardian of Thraben", "Esika's Chariot"], ["Tarmogoyf"]),
        ("legendary creature", ["Thalia, Guardian of Thraben", "Garth One-Eye"], ["Esika's Chariot"]),
        ("snow", ["Snow-Covered Forest"], ["Forest"]),
        ("basic land", ["Forest", "Wastes", "Snow-Covered Forest"], ["Dryad Arbor", "Razorgrass Field"]),
        ("Forest", ["Forest", "Dryad Arbor", "Snow-Covered Forest"], ["Wastes"]),
        ("Goblin", ["Goblin Guide"], ["Tarmogoyf"]),
        ("non-Goblin creature", ["Tarmogoyf"], ["Goblin Guide", "Sol Ring"]),
        ("Equipment or Vehicle", ["Esika's Chariot"], ["Sol Ring"]),
        ("kindred", ["Crib Swap"], ["Lightning Bolt"]),
        ("tribal", ["Crib Swap"], ["Lightning Bolt"]),
        ("red", ["Lightning Bolt", "Goblin Guide"], ["Tarmogoyf"]),
        ("nonred", ["Tarmogoyf", "Sol Ring"], ["Lightning Bolt"]),
        ("green", ["Dryad Arbor", "Tarmogoyf"], ["Forest"]),  # Dryad Arbor: color indicator
        ("multicolored", ["Garth One-Eye"], ["Lightning Bolt", "Sol Ring"]),
        ("monocolored", ["Lightning Bolt", "Tarmogoyf"], ["Garth One-Eye", "Sol Ring"]),
        ("colorless", ["Sol Ring", "Ornithopter", "Wastes", "Petty Theft"], ["Lightning Bolt"]),
        ("colored", ["Lightning Bolt"], ["Sol Ring", "Petty Theft"]),
        ("mana value 0", ["Ornithopter", "Forest", "Razorgrass Field"], ["Sol Ring"]),
        ("mana value 1 or less", ["Sol Ring", "Lightning Bolt", "Ornithopter"], ["Tarmogoyf"]),
        ("mana value 4 or greater", ["Esika's Chariot", "Garth One-Eye"], ["Tarmogoyf"]),
        ("creature with mana value less than 2", ["Goblin Guide", "Ornithopter"], ["Tarmogoyf"]),
        ("artifact or creature", ["Sol Ring", "Tarmogoyf", "Ornithopter"], ["Lightning Bolt"]),
        ("artifact, instant, or sorcery", ["Sol Ring", "Lightning Bolt", "Comply"], ["Tarmogoyf"]),
        ("artifact creature", ["Ornithopter"], ["Sol Ring", "Tarmogoyf"]),
        ('named "Lightning Bolt"', ["Lightning Bolt"], ["Sol Ring"]),
        ("instant other than a red card", ["Disenchant", "Crib Swap"], ["Lightning Bolt", "Sol Ring"]),
    ],
)
def test_grammar_on_real_faces(
    sample_faces: dict[str, dict[str, Any]], phrase: str, yes: list[str], no: list[str]
) -> None:
    c = parse_constraint(phrase)
    for name in yes:
        assert c.matches(sample_faces[name]), (phrase, name)
    for name in no:
        assert not c.matches(sample_faces[name]), (phrase, name)
    rows = [sample_faces[n] for n in yes + no]
    got = pl.DataFrame(rows, schema=FACE_SCHEMA).select(c.to_polars()).to_series().to_list()
    assert got == [True] * len(yes) + [False] * len(no)


# ---------------------------------------------------------------------------
# matches() and to_polars() agree on every face of a real frame
# ---------------------------------------------------------------------------

EXTRA_PHRASES = (
    "permanent",
    "nonpermanent",
    "legendary creature",
    "basic land",
    "snow",
    "nonbasic, nonsnow land",
    "Goblin or Elf",
    "non-Equipment artifact",
    "Time Lord",
    "Urza's",
    "kindred",
    "red",
    "nonred, nonblue",
    "multicolored",
    "monocolored",
    "colorless",
    "colored",
    "mana value 3",
    "mana value 3 or less",
    "mana value 4 or greater",
    "mana value less than 2",
    "mana value greater than 7",
    "artifact or creature",
    "artifact, creature, or land",
    "other than (artifact or creature)",
    "not mana value 2 or less",
    'named "Lightning Bolt" or named "Sol Ring"',
    "battle",
    "planeswalker",
)


@pytest.mark.realdata
@pytest.mark.parametrize("phrase", KNOWN_PHRASES + EXTRA_PHRASES)
def test_matches_and_polars_agree_on_every_real_face(
    real_frame: tuple[pl.DataFrame, list[dict[str, Any]]], phrase: str
) -> None:
    frame, rows = real_frame
    assert frame.height == len(rows) > 29_730  # 805 multi-faced cards add faces
    c = parse_constraint(phrase)
    polars_result = frame.select(c.to_polars().alias("ok"))["ok"]
    assert polars_result.null_count() == 0
    python_result = [c.matches(row) for row in rows]
    assert polars_result.to_list() == python_result
    if phrase not in ("", "any"):
        # a real restriction: something in the real pool is excluded unless it is a
        # plain negation that every face satisfies, which none of these is
        assert 0 < sum(python_result) < len(rows), phrase


@pytest.mark.realdata
def test_real_frame_counts_are_plausible(real_frame: tuple[pl.DataFrame, list[dict[str, Any]]]) -> None:
    frame, _ = real_frame
    count = lambda p: frame.filter(parse_constraint(p).to_polars()).height  # noqa: E731
    assert count("nonbasic land") > 1000
    assert 10 < count("basic land") < 40  # basic lands (incl. snow-covered, Wastes)
    assert count("nonland") + count("land") == frame.height
    assert count("nonartifact, nonland") + count("artifact or land") == frame.height


# ---------------------------------------------------------------------------
# constraint_from_oracle_text on real cards
# ---------------------------------------------------------------------------

NONLAND = Not(CardType("Land"))


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("card", "expected"),
    [
        ("Meddling Mage", NONLAND),
        ("Pithing Needle", AnyCard()),
        ("Phyrexian Revoker", NONLAND),
        ("Dispossess", CardType("Artifact")),
        ("Runed Halo", AnyCard()),
        ("Booby Trap", Not(Supertype("Basic") & CardType("Land"))),
        ("Null Chamber", Not(Supertype("Basic") & CardType("Land"))),
        ("Cabal Therapy", NONLAND),
        ("Sorcerous Spyglass", AnyCard()),  # "choose any card name"
        ("Alpine Moon", ~Supertype("Basic") & CardType("Land")),
        ("Lost Legacy", ~CardType("Artifact") & ~CardType("Land")),
        ("Council of the Absolute", ~CardType("Creature") & ~CardType("Land")),
        ("Petra Sphinx", AnyCard()),  # "Target player chooses a card name"
        ("Conundrum Sphinx", AnyCard()),  # "each player chooses a card name"
        ("Failure // Comply", AnyCard()),  # on the aftermath half
        (
            "Garth One-Eye",
            Named("Disenchant")
            | Named("Braingeyser")
            | Named("Terror")
            | Named("Shivan Dragon")
            | Named("Regrowth")
            | Named("Black Lotus"),
        ),
    ],
)
def test_constraint_from_real_oracle_text(realdata: Path, card: str, expected: Constraint) -> None:
    assert constraint_from_oracle_text(real_card_text(realdata, card)) == expected


@pytest.mark.realdata
def test_no_constraint_without_instruction(realdata: Path) -> None:
    for card in ("Lightning Bolt", "Tarmogoyf", "Gigantiform", "Rune Snag"):  # 'card named'
        assert constraint_from_oracle_text(real_card_text(realdata, card)) is None
    assert constraint_from_oracle_text("") is None
    assert constraint_from_oracle_text(None) is None


def test_constraint_from_oracle_text_literal() -> None:
    assert constraint_from_oracle_text("Choose a nonland card name.") == NONLAND
    assert constraint_from_oracle_text("Target opponent chooses a card name.") == AnyCard()
    assert card_name_phrases(
        "As this artifact enters, choose an opponent and a card name other than a basic land card name."
    ) == ["other than a basic land card name"]
    assert card_name_phrases("Choose a nonland card name and a number greater than 0.") == ["nonland"]
    assert card_name_phrases("Choose a creature card name and a creature type.") == ["creature"]
    assert card_name_phrases("secretly choose two different card names.") == [""]
    assert card_name_phrases("You have protection from the chosen card name.") == []
    assert card_name_phrases("search your library for a card named Forest") == []


# ---------------------------------------------------------------------------
# Parsing, describe and composition
# ---------------------------------------------------------------------------


def test_wrappers_and_case() -> None:
    assert parse_constraint("a nonland card name") == parse_constraint("nonland") == NONLAND
    assert parse_constraint("NonLand") == NONLAND
    assert parse_constraint("non-land card") == NONLAND
    assert parse_constraint("") == parse_constraint("any") == parse_constraint("any card name") == AnyCard()
    assert parse_constraint("a card name other than a basic land card name") == Not(
        Supertype("Basic") & CardType("Land")
    )
    assert parse_constraint("nonbasic land") == And((Not(Supertype("Basic")), CardType("Land")))
    assert parse_constraint("artifact or creature") == CardType("Artifact") | CardType("Creature")
    assert parse_constraint("converted mana cost 3 or less") == ManaValue("<=", 3)
    assert parse_constraint("cmc 2") == ManaValue("=", 2)
    assert parse_constraint("Time Lord") == Subtype("Time Lord")
    assert parse_constraint('subtype "Hound"') == Subtype("Hound")
    assert parse_constraint("C’tan") == Subtype("C'tan")


def test_describe_canonical_phrases() -> None:
    for phrase in KNOWN_PHRASES[:8]:
        assert parse_constraint(phrase).describe() == (phrase or "any")
    assert parse_constraint(KNOWN_PHRASES[8]).describe() == "other than basic land"
    assert (CardType("Creature") & Supertype("Legendary")).describe() == "legendary creature"
    assert (ManaValue("<=", 3) & CardType("Creature")).describe() == "creature with mana value 3 or less"
    assert (~Subtype("Goblin")).describe() == "non-Goblin"
    assert (CardType("Land") | (~CardType("Artifact") & ~CardType("Creature"))).describe() == (
        "land or (nonartifact, noncreature)"
    )
    assert str(NONLAND) == "nonland"


def test_composition_semantics() -> None:
    bolt = {
        "name": "Lightning Bolt",
        "card_types": ["Instant"],
        "supertypes": [],
        "subtypes": [],
        "colors": ["R"],
        "mana_value": 1.0,
    }
    land = CardType("Land")
    assert (~land).matches(bolt)
    assert not (land & Color("R")).matches(bolt)
    assert (land | Color("R")).matches(bolt)
    assert ~~land == land
    assert (land & AnyCard()) == land
    assert (land | AnyCard()) == AnyCard()
    assert (CardType("Artifact") & CardType("Creature")) == (CardType("Creature") & CardType("Artifact"))
    assert (land & land) == land
    assert isinstance(CardType("Artifact") & CardType("Creature") & Permanent(), And)
    # NULL-ish rows: missing lists are empty, missing mana value never compares
    empty: dict[str, Any] = {}
    assert not ManaValue(">=", 0).matches(empty)
    assert ColorCount("colorless").matches(empty)
    frame = pl.DataFrame(
        [{"mana_value": None, "colors": None, "card_types": None}],
        schema={"mana_value": pl.Float64, "colors": pl.List(pl.String), "card_types": pl.List(pl.String)},
    )
    assert frame.select(ManaValue(">=", 0).to_polars()).item() is False
    assert frame.select((~ManaValue(">=", 0)).to_polars()).item() is True
    assert frame.select(ColorCount("colorless").to_polars()).item() is True
    assert frame.select((~land).to_polars()).item() is True


def test_bad_atoms_are_constraint_errors() -> None:
    with pytest.raises(ConstraintError):
        CardType("Banana")
    with pytest.raises(ConstraintError):
        Supertype("Land")
    with pytest.raises(ConstraintError):
        ManaValue("~", 3)
    with pytest.raises(ConstraintError):
        ManaValue("=", -1)
    with pytest.raises(ConstraintError):
        Color("purple")


@pytest.mark.parametrize(
    "phrase",
    [
        "banana",
        "nonlnad",
        "or",
        "artifact or",
        "mana value",
        "mana value x",
        "(land",
        "land)",
        "not",
        "non",
        "other than",
        "3",
        "named Sol Ring",
        '"Sol Ring"',
        "land & creature",
        "()",
    ],
)
def test_unknown_phrase_error_is_one_line_pointing_at_the_known_phrases(phrase: str) -> None:
    """The error names the phrase and what was not understood in one line (the CLI's stderr, HTTP details and MCP
    errors carry it as it is); the phrases real Oracle text uses and the grammar are where it points."""
    with pytest.raises(ConstraintError) as info:
        parse_constraint(phrase)
    message = str(info.value)
    assert repr(phrase) in message and "\n" not in message and len(message) < 300, message
    assert message.endswith(f"; {WHERE_LISTED}.")
    listed = help_text()
    for known in KNOWN_PHRASES:
        if known:
            assert f'"{known}"' in listed
    assert GRAMMAR in listed


def test_typo_hint() -> None:
    with pytest.raises(ConstraintError, match="did you mean nonland"):
        parse_constraint("nonlnad")
    # the closest word only (not lander, island), and no advice to write "Nonlnd" as a subtype: "non" negates
    with pytest.raises(ConstraintError) as info:
        parse_constraint("nonlnd")
    assert 'unknown word "nonlnd" (did you mean nonland?)' in str(info.value)
    assert "subtype" not in str(info.value)


# ---------------------------------------------------------------------------
# Hypothesis
# ---------------------------------------------------------------------------

ATOMS: list[Constraint] = [
    AnyCard(),
    Permanent(),
    *(
        CardType(t)
        for t in (
            "Artifact",
            "Battle",
            "Creature",
            "Enchantment",
            "Instant",
            "Kindred",
            "Land",
            "Planeswalker",
            "Sorcery",
        )
    ),
    *(Supertype(t) for t in ("Basic", "Legendary", "Snow", "World")),
    *(Color(c) for c in "WUBRG"),
    *(ColorCount(k) for k in ("colorless", "monocolored", "multicolored", "colored")),
    Subtype("Goblin"),
    Subtype("Time Lord"),
    Subtype("Urza's"),
    Subtype("Equipment"),
    Subtype("Hound"),
    Named("Lightning Bolt"),
    Named("Tamiyo, Collector of Tales"),
    Named("Sol Ring"),
]
atoms = st.one_of(
    st.sampled_from(ATOMS),
    st.builds(
        ManaValue, st.sampled_from(["=", "<=", ">=", "<", ">"]), st.sampled_from([0, 1, 2, 3, 0.5, 4.5, 16, 1000000])
    ),
)
constraints = st.recursive(
    atoms,
    lambda children: st.one_of(
        st.tuples(children, children).map(lambda t: t[0] & t[1]),
        st.tuples(children, children).map(lambda t: t[0] | t[1]),
        children.map(lambda c: ~c),
    ),
    max_leaves=10,
)

VOCAB_WORDS = [
    "a",
    "an",
    "card",
    "name",
    "non",
    "not",
    "or",
    "and",
    ",",
    "(",
    ")",
    "other",
    "than",
    "any",
    "land",
    "nonland",
    "basic",
    "nonbasic",
    "creature",
    "artifact",
    "legendary",
    "red",
    "Goblin",
    "mana",
    "value",
    "3",
    "or less",
    "or greater",
    "less",
    "than",
    "named",
    '"Sol Ring"',
    "subtype",
    "from among",
    "time",
    "lord",
    "multicolored",
    "permanent",
    "non-",
    "with",
    ".",
    "’",
    "“",
    "”",
]


@settings(max_examples=examples(1000), deadline=None)
@given(st.one_of(st.text(), st.lists(st.sampled_from(VOCAB_WORDS), max_size=12).map(" ".join)))
def test_random_text_and_vocabulary_never_crash(text: str) -> None:
    try:
        result = parse_constraint(text)
    except ConstraintError:
        return
    assert isinstance(result, Constraint)
    assert parse_constraint(result.describe()) == result


@settings(max_examples=examples(400), deadline=None)
@given(st.text())
def test_random_oracle_text_never_crashes(text: str) -> None:
    try:
        result = constraint_from_oracle_text(text)
    except ConstraintError:
        return
    assert result is None or isinstance(result, Constraint)


@settings(max_examples=examples(500), deadline=None)
@given(constraints)
def test_describe_round_trip(c: Constraint) -> None:
    assert parse_constraint(c.describe()) == c


@pytest.mark.realdata
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(c=constraints)
def test_random_constraints_agree_on_sample_faces(sample_faces: dict[str, dict[str, Any]], c: Constraint) -> None:
    rows = list(sample_faces.values())
    frame = pl.DataFrame(rows, schema=FACE_SCHEMA)
    assert frame.select(c.to_polars()).to_series().to_list() == [c.matches(r) for r in rows]
