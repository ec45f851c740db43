"""The printing and card lookups Scryfall's endpoints answer with (oracle_tools/scryfall/lookups.py), on a cursor of
the sample database, without a server: which printing answers when several match is decided there, once.

Where the sample has no case of a rule (no illustration ids, no printing in two languages under one id), a copy of
the sample gets real-shaped rows: an existing printing copied under a new id and language.
"""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from oracle_tools.scryfall import lookups

COUNTERSPELL = "cc187110-1148-4090-bbb8-e205694a39f5"
COUNTERSPELL_3ED_EN = "0a1b4e2e-5459-4fae-81d9-1e882647daac"  # 3ed #54 is printed in English, German and French
COUNTERSPELL_EMA = "0c9a7cb0-5bff-48ff-b620-2838816ac9b5"  # MTGO id 60895


@pytest.fixture(scope="module")
def cur(sample_db_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect(str(sample_db_path), read_only=True)
    yield con.cursor()
    con.close()


@pytest.fixture(scope="module")
def two_languages(
    sample_db_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[duckdb.DuckDBPyConnection]:
    """The sample plus a Japanese copy of Counterspell's EMA printing under a lower id, sharing its MTGO, Multiverse
    and Arena ids and an artwork with it, as Scryfall's foreign printings do for one artwork."""
    path = tmp_path_factory.mktemp("lookups") / "two-languages.duckdb"
    shutil.copy(sample_db_path, path)
    con = duckdb.connect(str(path))
    con.execute(
        "UPDATE printings SET illustration_id = 'aaaaaaaa-0000-4000-8000-000000000001', arena_id = 7 WHERE id = ?",
        [COUNTERSPELL_EMA],
    )
    con.execute("CREATE TEMP TABLE copy AS SELECT * FROM printings WHERE id = ?", [COUNTERSPELL_EMA])
    con.execute("UPDATE copy SET id = '00000000-0000-4000-8000-00000000000a', lang = 'ja'")
    con.execute("INSERT INTO printings SELECT * FROM copy")
    yield con.cursor()
    con.close()


def test_printing_in_set_is_the_english_one_in_any_case_of_the_code(cur: duckdb.DuckDBPyConnection) -> None:
    assert lookups.printing_in_set(cur, COUNTERSPELL, "3ed") == COUNTERSPELL_3ED_EN
    assert lookups.printing_in_set(cur, COUNTERSPELL, "3ED") == COUNTERSPELL_3ED_EN
    assert lookups.printing_in_set(cur, COUNTERSPELL, "zzz") is None


@pytest.mark.parametrize(
    ("kind", "value", "printing"),
    [
        ("mtgo", "60895", COUNTERSPELL_EMA),
        ("multiverse", "1196", COUNTERSPELL_3ED_EN),
        ("tcgplayer", "1373", COUNTERSPELL_3ED_EN),
        ("cardmarket", "764041", "0020c31b-002a-4121-bc61-2c2c16e9afc8"),
        ("arena", "69235", "9287b848-2aeb-4c70-ac4a-acafb871b7a4"),  # two printings: the lower id
    ],
)
def test_printing_by_each_id_kind(cur: duckdb.DuckDBPyConnection, kind: str, value: str, printing: str) -> None:
    assert lookups.printing_by_id(cur, kind, value) == printing
    assert lookups.printing_by_id(cur, kind, int(value)) == printing  # a collection's identifier is a number


@pytest.mark.parametrize("value", ["abc", "", "٣", "12345678901", "-1", "0"])
def test_text_that_is_no_id_names_no_printing(cur: duckdb.DuckDBPyConnection, value: str) -> None:
    # ids are at most 10 ASCII digits: "٣" is a digit to str.isdigit, and "12345678901" would overflow the column
    assert all(lookups.printing_by_id(cur, kind, value) is None for kind in lookups.ID_KINDS)


def test_an_id_printed_in_two_languages_answers_english_first(two_languages: duckdb.DuckDBPyConnection) -> None:
    # One answer for every door: /cards/mtgo/{id} and a collection's {"mtgo_id": …} name the same printing.
    for kind, value in (("mtgo", "60895"), ("arena", "7"), ("multiverse", "413585")):
        assert lookups.printing_by_id(two_languages, kind, value) == COUNTERSPELL_EMA


@pytest.mark.parametrize(
    ("kind", "value", "printing"),
    [
        ("mtgo", 60896, COUNTERSPELL_EMA),  # its mtgo_foil_id (mtgo_id 60895)
        ("tcgplayer", 548629, "72a86d7d-a7a4-4a26-b92a-0518af2d9646"),  # Herigast's tcgplayer_etched_id (no plain id)
    ],
)
def test_an_mtgo_foil_or_tcgplayer_etched_id_finds_its_printing(
    cur: duckdb.DuckDBPyConnection, kind: str, value: int, printing: str
) -> None:
    # Scryfall's /cards/mtgo/{id} and a collection's mtgo_id: "the card's mtgo_id or its mtgo_foil_id";
    # /cards/tcgplayer/{id}: "the card's tcgplayer_id or its tcgplayer_etched_id".
    assert lookups.printing_by_id(cur, kind, value) == printing
    assert lookups.printing_by_id(cur, kind, str(value)) == printing


def test_an_artwork_answers_its_english_printing_in_any_case(two_languages: duckdb.DuckDBPyConnection) -> None:
    art = "AAAAAAAA-0000-4000-8000-000000000001"
    assert lookups.printing_by_illustration(two_languages, art) == COUNTERSPELL_EMA
    assert lookups.printing_by_illustration(two_languages, "bbbbbbbb-0000-4000-8000-000000000001") is None


def test_first_of_same_name_is_the_newest_english_printing(cur: duckdb.DuckDBPyConnection) -> None:
    # CR 201.2: three Oracle tokens are named Soldier; the newest English printing is Duel Decks: Elspeth vs.
    # Kiora's (ddo, 2015), whose Soldier is eac25f12; in Magic 2014's token set (l14) only cca22679 is printed
    soldiers = [
        oid
        for (oid,) in cur.execute("SELECT oracle_id FROM cards WHERE name = 'Soldier' ORDER BY oracle_id").fetchall()
    ]
    assert len(soldiers) == 3
    assert lookups.first_of_same_name(cur, soldiers) == "eac25f12-6459-438c-a09e-93e23d2cf80d"
    assert lookups.first_of_same_name(cur, soldiers, "L14") == "cca22679-fb67-4a43-b824-0f8faac0f319"
    assert lookups.first_of_same_name(cur, soldiers, "lea") is None


def test_printing_oracle_id_tells_an_unknown_printing_apart(cur: duckdb.DuckDBPyConnection) -> None:
    assert lookups.printing_oracle_id(cur, COUNTERSPELL_EMA) == (True, COUNTERSPELL)
    assert lookups.printing_oracle_id(cur, "00000000-0000-0000-0000-000000000000") == (False, None)


def test_random_printing_is_a_cards_preferred_printing(cur: duckdb.DuckDBPyConnection) -> None:
    preferred = set(lookups.preferred_printing_ids(cur))
    cards = {
        pid
        for (pid,) in cur.execute(
            "SELECT p.id FROM preferred_printings p JOIN cards c USING (oracle_id) WHERE c.is_card"
        ).fetchall()
    }
    picks = {lookups.random_printing(cur) for _ in range(20)}
    assert picks <= cards <= preferred
    assert len(picks) > 1  # random, not the first row


def test_card_names_are_the_cards_own_sorted_once(cur: duckdb.DuckDBPyConnection) -> None:
    names = lookups.card_names(cur)
    assert names == sorted(set(names))
    assert "Counterspell" in names
    assert "Soldier" not in names  # a token: not a card (CR 111), so autocomplete does not offer it


def test_every_oracle_card_and_its_preferred_printing(cur: duckdb.DuckDBPyConnection) -> None:
    oids = lookups.oracle_ids(cur)
    assert len(oids) == len(set(oids)) == cur.execute("SELECT count(*) FROM cards").fetchone()[0]  # type: ignore[index]
    ids = lookups.preferred_printing_ids(cur)
    assert ids == sorted(ids)
    assert len(ids) == len(oids)


def test_every_ruling_in_scryfall_shape(cur: duckdb.DuckDBPyConnection) -> None:
    rulings = list(lookups.every_ruling(cur))
    assert len(rulings) == cur.execute("SELECT count(*) FROM rulings").fetchone()[0]  # type: ignore[index]
    first = rulings[0]
    assert set(first) == {"object", "oracle_id", "source", "published_at", "comment"}
    assert first["object"] == "ruling" and first["source"] in ("wotc", "scryfall")
    assert [r["oracle_id"] for r in rulings] == sorted(r["oracle_id"] for r in rulings)


def test_last_cards_ingest(cur: duckdb.DuckDBPyConnection) -> None:
    when = lookups.last_cards_ingest(cur)
    assert isinstance(when, dt.datetime)


def test_oracle_card_with_faces_legalities_and_flavor_names(cur: duckdb.DuckDBPyConnection) -> None:
    card = lookups.oracle_card(cur, COUNTERSPELL)
    assert card is not None
    assert (card["name"], card["mana_cost"], card["type_line"]) == ("Counterspell", "{U}{U}", "Instant")
    assert [face["name"] for face in card["faces"]] == ["Counterspell"]
    assert ("legacy", "legal") in card["legalities"] and ("standard", "not_legal") in card["legalities"]
    assert card["flavor_names"] == []
    ozolith = lookups.oracle_card(cur, "1946ded1-5f53-409f-b0a6-5433bb0357d2")
    assert ozolith is not None
    # CR 201.6: the Ozolith's alternate (flavor) names
    assert ozolith["flavor_names"] == ["Adamantium Bonding Tank", "Argonath, Pillars of the Kings"]
    assert lookups.oracle_card(cur, "00000000-0000-0000-0000-000000000000") is None
