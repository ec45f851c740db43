"""Scryfall's land cycles (is:checkland ...) by rules text: expected answers computed here from the sample's raw
Scryfall JSON objects (plain Python string tests on each face's Oracle text), not through the search engine."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from oracle_tools.search.keywords import IS_TABLE, IS_VALUES, LAND_CYCLES

if TYPE_CHECKING:
    from collections.abc import Iterator

    from oracle_tools import OracleDB

SAMPLE = Path(__file__).parent.parent / "oracle_tools" / "data" / "sample"
BASICS = {"Plains", "Island", "Swamp", "Mountain", "Forest"}


def _faces() -> list[tuple[str, str, str, str]]:
    """(card name, face name, type line, Oracle text with the face's name as '~') of every land face."""
    out = []
    for path in sorted(SAMPLE.glob("cards-*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            objects: list[dict[str, Any]] = json.load(fh)
        for card in objects:
            for face in card.get("card_faces") or [card]:
                type_line = face.get("type_line") or card.get("type_line", "")
                if "Land" not in type_line:
                    continue
                text = (face.get("oracle_text") or "").replace(face["name"], "~").replace("This land", "~")
                out.append((card["name"], face["name"], type_line, text))
    return out


def _expected(test: Any) -> set[str]:
    return {name for name, _, type_line, text in _faces() if test(type_line, text)}


def _two_basic_types(type_line: str) -> bool:
    return len(BASICS & set(type_line.split("—")[-1].split())) == 2 if "—" in type_line else False


EXPECTED = {
    # "enters tapped unless you control a Swamp or a Mountain"
    "checkland": lambda tl, t: bool(re.search(r"tapped unless you control an? \w+ or an? \w+\.", t)),
    # "{T}: Add {G} or {W}. ~ deals 1 damage to you."
    "painland": lambda tl, t: "} or {" in t and "}. ~ deals 1 damage to you." in t,
    # Temples: enter tapped, scry 1, tap for one of two colours
    "scryland": lambda tl, t: "scry 1." in t and "enters the battlefield tapped" in t and "} or {" in t,
    # Battle for Zendikar duals
    "tangoland": lambda tl, t: "tapped unless you control two or more basic lands" in t,
    # Amonkhet cycling duals
    "cycleland": lambda tl, t: _two_basic_types(tl) and "\nCycling {2}" in t,
}


@pytest.mark.parametrize("cycle", sorted(EXPECTED))
def test_land_cycle_matches_its_rules_text_in_the_raw_objects(sample_db: OracleDB, cycle: str) -> None:
    expected = _expected(EXPECTED[cycle])
    assert expected, f"the sample holds a {cycle}"
    got = set(sample_db.search(f"is:{cycle}").get_column("name").to_list())
    assert got == expected


def test_every_is_value_is_one_row_of_the_table_with_its_sql() -> None:
    spellings = [name for v in IS_TABLE for name in v.names]
    assert len(spellings) == len(set(spellings))  # no value in two rows
    assert all(v.sql or v.refused for v in IS_TABLE)
    assert set(LAND_CYCLES) <= set(IS_VALUES)


# -- is:frenchvanilla ------------------------------------------------------------------------------------

COMP_RULES = Path("/work/shared/realdata/MagicCompRules-20260116.txt")


def _cr_keyword_abilities() -> list[str]:
    """The keyword abilities CR 702 names ("702.9. Flying"), lower-cased; 702.1's preamble is not one."""
    found = re.findall(r"^702\.\d+\. (.+)$", COMP_RULES.read_text(encoding="utf-8-sig"), re.M)
    return [k.lower() for k in found if len(k) < 40]


def _french_vanilla(card: dict[str, Any], keywords: list[str]) -> bool:
    if card.get("card_faces") or "Creature" not in card.get("type_line", ""):
        return False
    text = re.sub(r" ?\([^)]*\)", "", card.get("oracle_text") or "").strip()
    if not text:
        return False

    def is_keyword(item: str) -> bool:
        low = item.lower()
        return "." not in item and "—" not in item and any(low == k or low.startswith(k + " ") for k in keywords)

    return all(is_keyword(item) for item in re.split(r"\n|, |; ", text))


@pytest.mark.skipif(not COMP_RULES.exists(), reason="needs the Comprehensive Rules text")
def test_french_vanilla_is_a_creature_with_keyword_abilities_only(sample_db: OracleDB) -> None:
    # CR 702.1: "the object lists only the name of the ability as a 'keyword'"; expected from the raw objects
    # against CR 702's own list of keyword abilities (landwalk spelt out: "Swampwalk", CR 702.14).
    keywords = [*_cr_keyword_abilities(), *(f"{t.lower()}walk" for t in BASICS)]
    expected = set()
    for path in sorted(SAMPLE.glob("cards-*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for card in json.load(fh):
                if card.get("layout") not in ("token", "emblem", "art_series") and _french_vanilla(card, keywords):
                    expected.add(card["name"])
    assert "Serra Angel" in expected or len(expected) > 20
    got = set(sample_db.search("is:frenchvanilla").get_column("name").to_list())
    assert got == expected


# -- is:brawler / is:oathbreaker -------------------------------------------------------------------------

NOT_CARDS = ("token", "double_faced_token", "emblem", "art_series", "vanguard", "planar", "scheme")


def _cards() -> list[dict[str, Any]]:
    out = []
    for path in sorted(SAMPLE.glob("*.json.gz")):
        if path.name == "rulings.json.gz":
            continue
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            out += [c for c in json.load(fh) if c.get("layout") not in NOT_CARDS]
    return out


def _front_type(card: dict[str, Any]) -> str:
    faces = card.get("card_faces") or [card]
    return str(faces[0].get("type_line") or card.get("type_line", "").split(" // ")[0])


def _all_text(card: dict[str, Any]) -> str:
    return " ".join(f.get("oracle_text") or "" for f in card.get("card_faces") or [card])


@pytest.mark.parametrize(
    ("query", "test"),
    [
        # Brawl's commander: a legendary creature or planeswalker (or Vehicle; CR 903.3 as is:commander).
        (
            "is:brawler",
            lambda c: (
                (
                    "Legendary" in _front_type(c)
                    and any(w in _front_type(c) for w in ("Creature", "Planeswalker", "Vehicle"))
                )
                or "can be your commander" in _all_text(c)
            ),
        ),
        # Oathbreaker's: a planeswalker card.
        ("is:oathbreaker", lambda c: "Planeswalker" in _front_type(c)),
    ],
)
def test_commander_of_brawl_and_oathbreaker_from_the_raw_objects(sample_db: OracleDB, query: str, test: Any) -> None:
    expected = {c["name"] for c in _cards() if test(c)}
    assert expected
    assert set(sample_db.search(query).get_column("name").to_list()) == expected


# -- prints / sets --------------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["sets>12", "prints>=15", "papersets>20", "sets=1 t:dragon"])
def test_print_and_set_counts_from_the_raw_objects(sample_db: OracleDB, query: str) -> None:
    # Every printing object of the sample (any language: one print per set and collector number), by oracle id.
    prints: dict[str, set[tuple[str, str]]] = {}
    paper: dict[str, set[tuple[str, str]]] = {}
    name_of: dict[str, str] = {}
    for card in _cards():
        oid = card.get("oracle_id") or (card.get("card_faces") or [{}])[0].get("oracle_id")
        if not oid:
            continue
        name_of[oid] = card["name"]
        key = (card["set"], card["collector_number"])
        prints.setdefault(oid, set()).add(key)
        if "paper" in card.get("games", []):
            paper.setdefault(oid, set()).add(key)

    def sets(keys: set[tuple[str, str]]) -> int:
        return len({s for s, _ in keys})

    tests = {
        "sets>12": lambda oid: sets(prints[oid]) > 12,
        "prints>=15": lambda oid: len(prints[oid]) >= 15,
        "papersets>20": lambda oid: sets(paper.get(oid, set())) > 20,
        "sets=1 t:dragon": lambda oid: sets(prints[oid]) == 1,
    }
    expected = {name_of[oid] for oid in prints if tests[query](oid)}
    got = set(sample_db.search(query).get_column("name").to_list())
    if query == "sets=1 t:dragon":
        dragons = set(sample_db.search("t:dragon").get_column("name").to_list())
        expected &= dragons
    assert expected
    assert got == expected


def test_firstprint_is_a_printing_of_the_cards_first_release_day(sample_db: OracleDB) -> None:
    # is:firstprint s:m19: the M19 printings of cards whose earliest printing (in the sample's raw objects, by
    # released_at, any language) is that day; is:reprint is the rest.
    first: dict[str, str] = {}
    in_m19: set[tuple[str, str]] = set()
    for card in _cards():
        oid = card.get("oracle_id") or (card.get("card_faces") or [{}])[0].get("oracle_id")
        if oid:
            first[oid] = min(first.get(oid, card["released_at"]), card["released_at"])
    for card in _cards():
        oid = card.get("oracle_id") or (card.get("card_faces") or [{}])[0].get("oracle_id")
        if card["set"] == "m19" and oid:
            in_m19.add((card["name"], "first" if card["released_at"] <= first[oid] else "reprint"))
    expected = {name for name, kind in in_m19 if kind == "first"}
    assert expected and expected != {name for name, _ in in_m19}
    got = set(sample_db.search("is:firstprint s:m19").get_column("name").to_list())
    assert got == expected


# -- the land cycles the sample has no member of, on the real lands ---------------------------------------------


@pytest.fixture(scope="module")
def real_lands(realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Every land object of the real 2019 dump and the English-text foreign printings of 2022 (which hold the 2020
    Ikoria triomes), one per Oracle id."""
    seen: dict[str, dict[str, Any]] = {}
    for name in (
        "scryfall-default-cards-2019-10-per-set-dump.json.gz",
        "scryfall-foreign-printings-from-mtgjson-2022.json.gz",
    ):
        with gzip.open(realdata / name, "rt", encoding="utf-8") as fh:
            for line in fh:
                line = line.strip().rstrip(",")
                if line in ("[", "]") or '"Land' not in line:
                    continue
                card = json.loads(line)
                if "Land" in card.get("type_line", "") and not card.get("card_faces"):
                    seen.setdefault(card["oracle_id"], card)
    return list(seen.values())


@pytest.fixture(scope="module")
def real_lands_db(real_lands: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> Iterator[OracleDB]:
    from conftest import build_in_child

    from oracle_tools import OracleDB

    folder = tmp_path_factory.mktemp("lands")
    (folder / "lands.json").write_text(json.dumps(real_lands), encoding="utf-8")
    db = OracleDB(build_in_child(folder / "lands.duckdb", [folder / "lands.json"]))
    yield db
    db.close()


@pytest.mark.parametrize(
    ("cycle", "test"),
    [
        # Battlebond: "This land enters tapped unless you have two or more opponents."
        ("bondland", lambda tl, t: "tapped unless you have two or more opponents" in t),
        # Ikoria's triomes: three basic land types, enter tapped, cycling {3}
        ("triome", lambda tl, t: len(BASICS & set(tl.split("—")[-1].split())) == 3 and "\nCycling {3}" in t),
    ],
)
def test_land_cycle_on_the_real_lands(
    real_lands: list[dict[str, Any]], real_lands_db: OracleDB, cycle: str, test: Any
) -> None:
    expected = {c["name"] for c in real_lands if test(c["type_line"], c.get("oracle_text") or "")}
    assert len(expected) == 5, expected  # the five of Battlebond, the five of Ikoria
    assert set(real_lands_db.search(f"is:{cycle}").get_column("name").to_list()) == expected
