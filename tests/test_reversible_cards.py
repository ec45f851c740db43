"""Reversible cards (Scryfall layout ``reversible_card``): printings, never Oracle cards of their own.

Scryfall's reversible printings carry no top-level ``oracle_id``, mana cost or type line; each side is a
face of the same Oracle card, with its own art and maybe its own flavor name (CR 201.6). Fixtures:
tests/fixtures/reversible/ (README there): the real Blightsteel Colossus and Okaun, Eye of Chaos objects and
Secret Lair reversible printings of both in Scryfall's documented shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from oracle_tools import OracleDB

FIXTURES = Path(__file__).parent / "fixtures" / "reversible"
BUILDS = {
    # oracle_cards objects (authoritative) beside the reversible printings
    "oracle_cards": ["oracle-cards-blightsteel-okaun.json", "default-cards-sld-reversible.json"],
    # default_cards: the ordinary printings and the reversible ones (the reversible ones are newer)
    "default_cards": ["default-cards-blightsteel-okaun.json"],
    # only reversible printings: the card's facts come from a side
    "reversible only": ["default-cards-sld-reversible.json"],
}
CARD_COLUMNS = (
    "oracle_id, name, layout, mana_cost, cmc, type_line, oracle_text, colors, color_identity, color_indicator, power, "
    "toughness, loyalty, defense, keywords, object_kind, is_card"
)


@pytest.fixture(scope="module")
def dbs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, OracleDB]]:
    folder = tmp_path_factory.mktemp("reversible")
    built = {
        kind: OracleDB.ingest_files(folder / f"{i}.duckdb", [FIXTURES / f for f in files])
        for i, (kind, files) in enumerate(BUILDS.items())
    }
    yield built
    for db in built.values():
        db.close()


def _rows(db: OracleDB, sql: str) -> list[tuple]:
    return db.con.execute(sql).fetchall()


def test_the_card_is_the_same_whichever_bulk_file_it_came_from(dbs: dict[str, OracleDB]) -> None:
    """cards, faces and names rows are equal built from oracle_cards, default_cards or reversible printings only."""
    for sql in (
        f"SELECT {CARD_COLUMNS} FROM cards ORDER BY oracle_id",
        "SELECT * FROM faces ORDER BY oracle_id, face_index",
        "SELECT name, key, oracle_id, face_index, via, lang FROM names ORDER BY ALL",
        "SELECT * FROM name_classes ORDER BY ALL",
    ):
        answers = {kind: _rows(db, sql) for kind, db in dbs.items()}
        assert answers["default_cards"] == answers["oracle_cards"], sql
        assert answers["reversible only"] == answers["oracle_cards"], sql
    cards = _rows(dbs["reversible only"], "SELECT name, layout, type_line FROM cards ORDER BY name")
    assert cards == [
        ("Blightsteel Colossus", "normal", "Artifact Creature — Golem"),
        ("Okaun, Eye of Chaos", "normal", "Legendary Creature — Cyclops Berserker"),
    ]


@pytest.mark.parametrize("kind", list(BUILDS))
def test_a_reversible_printing_adds_no_name_face_or_class(dbs: dict[str, OracleDB], kind: str) -> None:
    db = dbs[kind]
    r = db.resolve("Blightsteel Colossus")
    assert (r.status, r.name, r.face, r.via) == ("ok", "Blightsteel Colossus", None, "name")  # no face: 712 is no DFC
    for joined in ("Blightsteel Colossus // Blightsteel Colossus", "Megatron // Megatron"):
        assert db.resolve(joined).status == "not_found", joined
    assert _rows(db, "SELECT count(*) FROM faces WHERE face_index > 0") == [(0,)]
    verdict = db.choose_name("Blightsteel Colossus")  # CR 201.4: an ordinary card's name, no "front face"
    assert verdict.valid and "face" not in verdict.reason.lower()


@pytest.mark.parametrize("kind", list(BUILDS))
def test_a_sides_flavor_name_is_an_alternate_name_of_the_card(dbs: dict[str, OracleDB], kind: str) -> None:
    """CR 201.6: "Megatron", printed on both sides, names Blightsteel Colossus (via flavor), as a whole card."""
    r = dbs[kind].resolve("Megatron")
    assert (r.status, r.name, r.face, r.via) == ("ok", "Blightsteel Colossus", None, "flavor")


def test_reversible_printings_are_printings(dbs: dict[str, OracleDB]) -> None:
    db = dbs["default_cards"]
    rows = _rows(
        db,
        "SELECT c.name, p.layout, p.set_code, p.collector_number, p.face_names, p.flavor_name, "
        "p.face_oracle_ids = [c.oracle_id, c.oracle_id] FROM printings p "
        "JOIN cards c USING (oracle_id) WHERE p.layout = 'reversible_card' ORDER BY c.name",
    )
    assert rows == [
        ("Blightsteel Colossus", "reversible_card", "sld", "1450", ["Blightsteel Colossus"] * 2, "Megatron", True),
        ("Okaun, Eye of Chaos", "reversible_card", "sld", "1091", ["Okaun, Eye of Chaos"] * 2, None, True),
    ]
    found = db.search("set:sld", unique="prints")  # per-printing search finds them as their card
    assert sorted(found.get_column("name").to_list()) == ["Blightsteel Colossus", "Okaun, Eye of Chaos"]
