"""The field rules of the ingest (oracle_tools/store/card_fields.py): a card object whose field has a type or range the
program cannot read is refused in one line naming the file, the card, its place, the field and its value, or the
field is dropped with one counted warning — never a database that answers 500 later. Each case is a real card
object of Scryfall's 2024 file with one field changed, ingested by the CLI (its exit code and stderr) and by the
library (its exception); a dropped field's database is served and the pages that read the field answer 200."""

from __future__ import annotations

import copy
import gzip
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB
from oracle_tools.errors import IngestError
from oracle_tools.interfaces.cli import main

from oracle_server import Server

REAL_2024 = "scryfall-search-2024-mh3-otj-fdn.json.gz"
UUID_LINE = "not a UUID string"


@pytest.fixture(scope="module")
def real_cards(realdata: Path) -> list[dict[str, Any]]:
    """200 real card objects of Scryfall's 2024 file (MH3, OTJ, FDN: image links, prices, multi-face cards with
    each face's images), 200 different cards."""
    with gzip.open(realdata / REAL_2024, "rt", encoding="utf-8") as handle:
        objects = json.load(handle)
    chosen: dict[str, dict[str, Any]] = {}
    for card in objects:  # the multi-face cards first: their faces carry the images
        if card.get("card_faces") and "image_uris" in card["card_faces"][0]:
            chosen.setdefault(card["oracle_id"], card)
    for card in objects:
        if len(chosen) < 200:
            chosen.setdefault(card["oracle_id"], card)
    cards = list(chosen.values())[:200]
    assert len(cards) == 200 and any("image_uris" in c for c in cards) and any("prices" in c for c in cards)
    return cards


@pytest.fixture(scope="module")
def good_db(real_cards: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 200 cards as they came, ingested: the database a refused file must leave as it was."""
    folder = tmp_path_factory.mktemp("fields")
    path = folder / "good.duckdb"
    OracleDB.ingest_files(path, [_write(folder / "good.json", real_cards)]).close()
    return path


def _write(path: Path, cards: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(cards, ensure_ascii=False), encoding="utf-8")
    return path


def _changed(
    cards: list[dict[str, Any]], change: Callable[[dict[str, Any]], object], *, only: int | None = None
) -> list[dict[str, Any]]:
    """A copy of ``cards`` with ``change`` made to every card (``only``: to the card at that index)."""
    out = copy.deepcopy(cards)
    for index, card in enumerate(out):
        if only is None or index == only:
            change(card)
    return out


def _ingest(db: Path, bulk: Path) -> tuple[int, str]:
    """``oracle-tools ingest --db DB --bulk-file FILE``: its exit code and what it wrote to stderr."""
    done = CliRunner().invoke(main, ["ingest", "--db", str(db), "--bulk-file", str(bulk), "--no-progress"])
    assert done.exception is None or isinstance(done.exception, SystemExit), repr(done.exception)
    return done.exit_code, done.stderr


def _refused(tmp_path: Path, good_db: Path, cards: list[dict[str, Any]], expected: str) -> None:
    """The file of ``cards`` is refused in one line holding ``expected``, by the CLI (exit 2, the database it would
    replace as it was) and by the library (IngestError, the same line)."""
    bulk = _write(tmp_path / "cards.json", cards)
    db = tmp_path / "db.duckdb"
    shutil.copy(good_db, db)
    before = db.read_bytes()
    code, err = _ingest(db, bulk)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"error: {bulk}: ") and expected in lines[0] and "Nothing was replaced." in lines[0]
    assert db.read_bytes() == before
    with pytest.raises(IngestError) as refused:
        OracleDB.ingest_files(tmp_path / "library.duckdb", [bulk])
    assert f"error: {refused.value}" == lines[0]
    assert not (tmp_path / "library.duckdb").exists()


def test_an_oracle_id_that_is_no_uuid_is_refused_rather_than_merging_every_card_into_one(
    real_cards: list[dict[str, Any]], good_db: Path, tmp_path: Path
) -> None:
    # 200 cards with "oracle_id": 123 loaded as one card of 200 printings, without a word
    cards = _changed(real_cards, lambda c: c.__setitem__("oracle_id", 123))
    first = json.dumps(real_cards[0]["name"], ensure_ascii=False)
    _refused(tmp_path, good_db, cards, f'card {first} (object 1): field "oracle_id" is 123, {UUID_LINE}')


def test_an_id_that_is_no_uuid_is_refused(real_cards: list[dict[str, Any]], good_db: Path, tmp_path: Path) -> None:
    cards = _changed(real_cards, lambda c: c.__setitem__("id", "not-an-id"), only=7)
    name = json.dumps(real_cards[7]["name"], ensure_ascii=False)
    _refused(tmp_path, good_db, cards, f'card {name} (object 8): field "id" is "not-an-id", {UUID_LINE}')


def test_a_name_that_is_no_string_is_refused(real_cards: list[dict[str, Any]], good_db: Path, tmp_path: Path) -> None:
    # a number for a name loaded, then /cards/{id} and /cards/named answered 500 ('int' object has no 'lower')
    cards = _changed(real_cards, lambda c: c.__setitem__("name", 5), only=3)
    card_id = real_cards[3]["id"]
    _refused(tmp_path, good_db, cards, f'card with id "{card_id}" (object 4): field "name" is 5, not a string')


def test_colors_that_are_no_list_are_refused_naming_the_field_and_the_card(
    real_cards: list[dict[str, Any]], good_db: Path, tmp_path: Path
) -> None:
    # DuckDB's reader stopped at it, and the line said "in record/value 12: Expected ARRAY, but got VARCHAR"
    cards = _changed(real_cards, lambda c: c.__setitem__("colors", "G"), only=11)
    name = json.dumps(real_cards[11]["name"], ensure_ascii=False)
    _refused(tmp_path, good_db, cards, f'card {name} (object 12): field "colors" is "G", not a list of strings')


def test_a_face_that_is_no_object_is_refused(real_cards: list[dict[str, Any]], good_db: Path, tmp_path: Path) -> None:
    index = next(i for i, c in enumerate(real_cards) if c.get("card_faces"))
    cards = _changed(real_cards, lambda c: c["card_faces"].__setitem__(1, "back"), only=index)
    name = json.dumps(real_cards[index]["name"], ensure_ascii=False)
    face = json.dumps(real_cards[index]["card_faces"][0], ensure_ascii=False)[:20]
    _refused(
        tmp_path, good_db, cards, f'card {name} (object {index + 1}): field "card_faces" is [{face}'
    )  # … ", "back"], not a list of objects: the value is cut at 60 characters
    code, err = _ingest(tmp_path / "again.duckdb", _write(tmp_path / "again.json", cards))
    assert code == 2 and "not a list of objects" in err


@pytest.mark.parametrize(
    ("field", "value", "shown", "expect"),
    [
        ("mtgo_id", 10**30, str(10**30), "an integer from -2,147,483,648 to 2,147,483,647"),
        ("mtgo_id", 1 << 40, str(1 << 40), "an integer from -2,147,483,648 to 2,147,483,647"),
        ("multiverse_ids", [10**40], f"[{10**40}]", "a list of integers"),
    ],
)
def test_a_huge_integer_id_is_refused(
    real_cards: list[dict[str, Any]],
    good_db: Path,
    tmp_path: Path,
    field: str,
    value: object,
    shown: str,
    expect: str,
) -> None:
    cards = _changed(real_cards, lambda c: c.__setitem__(field, value), only=20)
    name = json.dumps(real_cards[20]["name"], ensure_ascii=False)
    _refused(tmp_path, good_db, cards, f'card {name} (object 21): field "{field}" is {shown}, not {expect}')


@pytest.mark.parametrize(
    ("part", "shown"),
    [
        (None, "[null"),
        ({"object": "related_card", "component": "combo_piece", "name": 7}, '[{"object": "related_card"'),
    ],
)
def test_a_related_card_that_is_no_object_with_a_name_is_refused(
    real_cards: list[dict[str, Any]], good_db: Path, tmp_path: Path, part: object, shown: str
) -> None:
    # it loaded, and every answer holding the card was a 500 ('NoneType' object has no attribute 'get' from
    # /cards/search, /cards/named, the bulk download; a number name failed the card page's resolve)
    index = next(i for i, c in enumerate(real_cards) if c.get("all_parts"))
    cards = _changed(real_cards, lambda c: c["all_parts"].insert(0, part), only=index)
    name = json.dumps(real_cards[index]["name"], ensure_ascii=False)
    expect = "not a list of related-card objects, each with its name"
    _refused(tmp_path, good_db, cards, f'card {name} (object {index + 1}): field "all_parts" is {shown}')
    code, err = _ingest(tmp_path / "again.duckdb", _write(tmp_path / "again.json", cards))
    assert code == 2 and expect in err


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_a_mana_value_that_is_no_finite_number_is_refused(
    real_cards: list[dict[str, Any]], good_db: Path, tmp_path: Path, value: str
) -> None:
    # DuckDB's reader takes JSON's NaN and Infinity (Python's json too): a card of mana value NaN loaded, and
    # cmc>1000 found it (a NaN is above every number)
    index = next(i for i, c in enumerate(real_cards) if c.get("card_faces"))
    for change, field, at in (
        (lambda c: c.__setitem__("cmc", float(value)), "cmc", 12),
        (lambda c: c["card_faces"][0].__setitem__("cmc", float(value)), "card_faces[].cmc", index),
    ):
        cards = _changed(real_cards, change, only=at)
        name = json.dumps(real_cards[at]["name"], ensure_ascii=False)
        _refused(tmp_path, good_db, cards, f'card {name} (object {at + 1}): field "{field}" is {value}, not a number')


@pytest.mark.parametrize("status", [None, "maybe", 5])
def test_a_legality_that_is_no_status_is_refused(
    real_cards: list[dict[str, Any]], good_db: Path, tmp_path: Path, status: object
) -> None:
    # a null status failed the ingest blaming the database ("NOT NULL constraint failed: legalities.status; check
    # that --db is an oracle-tools database"); another word loaded as a status no deck check knows
    cards = _changed(real_cards, lambda c: c["legalities"].__setitem__("modern", status), only=30)
    name = json.dumps(real_cards[30]["name"], ensure_ascii=False)
    _refused(tmp_path, good_db, cards, f'card {name} (object 31): field "legalities" is {{')
    code, err = _ingest(tmp_path / "again.duckdb", _write(tmp_path / "again.json", cards))
    assert code == 2 and "not an object of each format's status (legal, not_legal, restricted or banned)" in err, err


def _kept_object(db: Path, card_id: str) -> dict[str, Any]:
    with OracleDB(db) as opened:
        (card,) = opened.card_objects(ids=[card_id])
    return card


def _served_routes_answer(db: Path, card: dict[str, Any]) -> None:
    """Every route that read the broken field answers 200 on ``db`` (a real server on 127.0.0.1)."""
    server = Server(db)
    try:
        paths = [
            "/search?q=t:creature",
            f"/card/{card['oracle_id']}",
            f"/card?name={card['name']}",
            f"/cards/{card['id']}?format=text",
            f"/cards/{card['id']}",
            "/sets",
            f"/sets/{card['set']}",
            f"/search?q=e:{card['set']}&as=grid",
        ]
        answers = {path: server.client.get(path, follow_redirects=True).status_code for path in paths}
    finally:
        log = server.stop()
    assert answers == dict.fromkeys(paths, 200), log[-2000:]


def test_image_uris_that_are_no_object_are_dropped_with_one_warning_and_the_pages_answer(
    real_cards: list[dict[str, Any]], tmp_path: Path
) -> None:
    # a string image_uris ingested with exit 0; /search, /card/{oracle_id}, /card?name= and format=text answered 500
    with_images = [c for c in real_cards if "image_uris" in c]

    def break_images(card: dict[str, Any]) -> None:
        if "image_uris" in card:
            card["image_uris"] = "https://cards.scryfall.io/normal/front/x.jpg"
        for face in card.get("card_faces") or ():
            if "image_uris" in face:
                face["image_uris"] = [face["image_uris"]["normal"]]

    bulk = _write(tmp_path / "cards.json", _changed(real_cards, break_images))
    db = tmp_path / "db.duckdb"
    code, err = _ingest(db, bulk)
    faces = sum(1 for c in real_cards if any("image_uris" in f for f in c.get("card_faces") or ()))
    assert code == 0, err
    assert [line for line in err.splitlines() if line.startswith("warning:")] == [
        f"warning: {bulk}: dropped image_uris from {len(with_images)} cards (among them "
        f"{min(c['name'] for c in with_images)}): not an object (image URLs by size); those cards load without it",
        f"warning: {bulk}: dropped card_faces[].image_uris from {faces} cards (among them "
        f"{min(c['name'] for c in real_cards if c.get('card_faces') and 'image_uris' in c['card_faces'][0])}): not "
        "an object (image URLs by size); those cards load without it",
    ]
    card = next(c for c in with_images if "Creature" in c["type_line"])
    kept = _kept_object(db, card["id"])
    assert "image_uris" not in kept and kept["name"] == card["name"] and kept["prices"] == card["prices"]
    two_faced = next(c for c in real_cards if c.get("card_faces") and "image_uris" in c["card_faces"][0])
    assert all("image_uris" not in face for face in _kept_object(db, two_faced["id"])["card_faces"])
    _served_routes_answer(db, card)
    _served_routes_answer(db, two_faced)


def test_a_release_date_out_of_range_is_dropped_with_one_warning_and_the_set_pages_answer(
    real_cards: list[dict[str, Any]], tmp_path: Path
) -> None:
    # "released_at": "99999-01-01" ingested; /sets, /sets/{code} and the card pages answered 500 (year 99999)
    bulk = _write(tmp_path / "cards.json", _changed(real_cards, lambda c: c.__setitem__("released_at", "99999-01-01")))
    db = tmp_path / "db.duckdb"
    code, err = _ingest(db, bulk)
    assert code == 0, err
    assert [line for line in err.splitlines() if line.startswith("warning:")] == [
        f"warning: {bulk}: dropped released_at from 200 cards (among them {min(c['name'] for c in real_cards)}): "
        "not an ISO date (YYYY-MM-DD) from 1993 to 2100; those cards load without it"
    ]
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(released_at) FROM printings").fetchall() == [(0,)]
    card = next(c for c in real_cards if "Creature" in c["type_line"])
    assert "released_at" not in _kept_object(db, card["id"])
    _served_routes_answer(db, card)


@pytest.mark.parametrize("value", ["1850-01-01", "2150-06-01"])
def test_a_release_date_out_of_range_on_one_card_is_dropped_from_it(
    real_cards: list[dict[str, Any]], tmp_path: Path, value: str
) -> None:
    bulk = _write(tmp_path / "cards.json", _changed(real_cards, lambda c: c.__setitem__("released_at", value), only=0))
    code, err = _ingest(tmp_path / "db.duckdb", bulk)
    assert code == 0 and f"dropped released_at from 1 card (among them {real_cards[0]['name']})" in err, err


@pytest.mark.parametrize(
    ("value", "shown"), [("2024-13-45", '"2024-13-45"'), ("June 2024", '"June 2024"'), (20240607, "20240607")]
)
def test_a_release_date_that_is_no_date_is_refused_naming_the_card(
    real_cards: list[dict[str, Any]], good_db: Path, tmp_path: Path, value: object, shown: str
) -> None:
    # DuckDB's reader stopped at it ("date field value out of range", "Unable to cast '20240607' to DATE")
    cards = _changed(real_cards, lambda c: c.__setitem__("released_at", value), only=40)
    name = json.dumps(real_cards[40]["name"], ensure_ascii=False)
    expect = "not an ISO date (YYYY-MM-DD) from 1993 to 2100"
    _refused(tmp_path, good_db, cards, f'card {name} (object 41): field "released_at" is {shown}, {expect}')


def test_the_rules_table_is_the_documented_one_and_covers_every_typed_column() -> None:
    from oracle_tools.ingest import _FACE_STRUCT, CARD_COLUMNS
    from oracle_tools.store import card_fields

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert card_fields.markdown_table() in readme, "README's table of field rules: paste card_fields.markdown_table()"
    # every column the reader types (a list, a number, an object …) has its rule, so its refusal names the field
    typed = {key for key, sqltype in CARD_COLUMNS.items() if sqltype != "VARCHAR" and key != "released_at"}
    assert typed <= set(card_fields.BY_FIELD)
    for field in ("cmc", "colors", "color_indicator"):
        assert f" {field} " in _FACE_STRUCT and f"card_faces[].{field}" in card_fields.BY_FIELD
    for rule in card_fields.RULES:
        assert rule.by in ("reader", "stage") and rule.action in (card_fields.REFUSE, card_fields.DROP)
        assert rule.by == "stage" or rule.field.removeprefix("card_faces[].") in CARD_COLUMNS or rule.in_faces
    assert set(card_fields.RAW_TYPES) <= {r.field for r in card_fields.RULES if r.by == "stage"}


def test_real_files_are_not_read_again_for_their_text_fields(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The stage only suspects a text field that may be no string (store/card_fields.py: ``_suspect_string``); a
    suspicion reads the whole file again in Python. No real value may raise one: the foreign printings' Oracle text
    of planeswalkers starts "[+1]: …" and "[0]: …" (MTGJSON's wording), which once did, for every ingest of them."""
    from oracle_tools.ingest import sample_dir
    from oracle_tools.store import card_fields

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a real file was read again for a suspected field")

    monkeypatch.setattr(card_fields, "first_broken", never)
    files = [sample_dir() / name for name in ("foreign.json.gz", "cards-2024.json.gz", "cards-2025-trimmed.json.gz")]
    report = OracleDB.ingest(tmp_path / "db.duckdb", bulk_files=files)
    assert not [w for w in report.warnings if "dropped" in w]
    with duckdb.connect(str(tmp_path / "db.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM cards WHERE oracle_text LIKE '[+1]%'").fetchall()[0][0] > 0
