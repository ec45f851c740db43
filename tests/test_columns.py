"""The columns of the core tables are named in three places that must agree: ``sql/schema.sql`` (the tables),
the ingest's SQL that fills them (``INSERT INTO t BY NAME SELECT … AS column``), and the card-object builder
(``scryfall/cardjson.py``) that reads them back. A column added to one place and not the others would otherwise
come out NULL, or missing from card objects, long after the change; here it fails at once, naming the place.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest

from oracle_tools import ingest
from oracle_tools.scryfall import cardjson

SQL = Path(ingest.__file__).parent / "sql"
BUILD_FILES = ("build_core.sql", "build_printings.sql", "build_parts.sql")

# Columns of a table the card-object builder does not read, and why: every other column of `cards` and
# `printings` must appear in the object built from the tables (or be added here, with its reason).
NOT_IN_CARD_OBJECTS = {
    "cards": {
        "oracle_id": "joined on (USING), read from the printing",
        "funny": "for search (is:funny) and deck checks; Scryfall's object has no such field",
        "object_kind": "what the object is for rules purposes (CR 108.2); not a Scryfall field",
        "is_card": "derived from object_kind",
        "first_released": "for search and ordering; the object's reprint is computed from the printings",
        "source": "where the Oracle facts came from: provenance, not a card fact",
        "game_changer": "kept objects carry it; the table serves search (is:gamechanger)",
        "attraction_lights": "kept objects carry it; the table serves search",
        "penny_rank": "kept objects carry it; the table serves search (order:penny)",
    },
    "printings": {
        "source_file": "provenance: the file the printing was read from",
        "face_oracle_ids": "for reversible cards' faces in search; kept objects carry card_faces[].oracle_id",
        "usd": "prices are for search and ordering (usd>, order=usd); kept objects carry prices",
        "eur": "likewise",
        "tix": "likewise",
        "flavor_text": "kept objects carry it (and card_faces[].flavor_text); the table serves search (ft:)",
        "face_flavor_texts": "likewise",
        "frame": "for search (frame:, is:new, is:old); kept objects carry it",
        "frame_effects": "for search (frame:legendary, is:colorshifted); kept objects carry it",
        "full_art": "for search (is:fullart); kept objects carry it",
        "textless": "for search (is:textless); kept objects carry it",
        "booster": "for search (is:booster); kept objects carry it",
        "story_spotlight": "for search (is:spotlight); kept objects carry it",
        "highres_image": "for search (is:hires); kept objects carry it",
        "scryfall_preview": "for search (is:scryfallpreview): from the object's preview; kept objects carry it",
        "promo_types": "for search (is:prerelease, is:boosterfun …); kept objects carry it",
        "block": "for search (b:); kept objects carry it where the file has it",
        "block_code": "likewise",
        "preference_rank": "for search: which printing stands for its card (computed from the card's printings)",
        "new_art": "for search (new:art): computed from the card's earlier printings, not a Scryfall field",
        "new_artist": "likewise (new:artist)",
        "new_rarity": "likewise (new:rarity)",
        "new_frame": "likewise (new:frame)",
        "new_flavor": "likewise (new:flavor)",
        "new_language": "likewise (new:language)",
        "shown_language": "for search: which row of a printing a search without lang: reads (computed at ingest)",
        **{
            f"new_{value}_pick": f"for search (new:{value}): the printing it shows for its card (computed at ingest)"
            for value in ("art", "artist", "rarity", "frame", "flavor", "language")
        },
    },
}


@pytest.fixture(scope="module")
def schema() -> dict[str, list[str]]:
    con = duckdb.connect()
    con.execute((SQL / "schema.sql").read_text(encoding="utf-8"))
    rows = con.execute(
        "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main' ORDER BY column_index"
    ).fetchall()
    tables: dict[str, list[str]] = {}
    for table, column in rows:
        tables.setdefault(table, []).append(column)
    return tables


def _output_names(node: dict) -> list[list[str]]:
    """The column names each SELECT of a parsed query gives (one list per SELECT of a UNION)."""
    if node["type"] == "SET_OPERATION_NODE":
        return [names for child in node["children"] for names in _output_names(child)]
    names = []
    for expression in node["select_list"]:
        if expression["alias"]:
            names.append(expression["alias"])
        elif expression["class"] == "COLUMN_REF":
            names.append(expression["column_names"][-1])
        else:
            names.append(f"<unnamed {expression['type']}>")
    return [names]


def _parse(query: str) -> dict:
    parsed = json.loads(duckdb.connect().execute("SELECT json_serialize_sql(?)", [query]).fetchall()[0][0])
    assert not parsed["error"], parsed
    return parsed["statements"][0]["node"]


def _inserts() -> list[tuple[str, str, str]]:
    """(file, table, query) of every INSERT of the ingest's build files."""
    found = []
    for file in BUILD_FILES:
        text = re.sub(r"--[^\n]*", "", (SQL / file).read_text(encoding="utf-8"))  # comments may hold ';'
        for insert in re.finditer(r"^INSERT INTO (\w+)(.*?);\s*$", text, re.S | re.M):
            found.append((file, insert.group(1), insert.group(2)))
    return found


def test_every_build_insert_names_its_columns() -> None:
    # By position, a column added to schema.sql in the middle shifts every later value into the wrong column.
    inserts = _inserts()
    assert {table for _, table, _ in inserts} >= {"cards", "faces", "legalities", "printings", "parts"}
    for file, table, rest in inserts:
        assert rest.lstrip().startswith("BY NAME"), f"{file}: INSERT INTO {table} must say BY NAME"


@pytest.mark.parametrize(("file", "table", "query"), _inserts(), ids=lambda v: v if "\n" not in v else "")
def test_each_build_select_gives_exactly_the_schema_columns(
    schema: dict[str, list[str]], file: str, table: str, query: str
) -> None:
    query = query.lstrip().removeprefix("BY NAME")
    for names in _output_names(_parse(query)):
        missing = sorted(set(schema[table]) - set(names))
        unknown = sorted(set(names) - set(schema[table]))
        assert not missing, f"{file} fills no {missing} of {table} (schema.sql has them: they would stay NULL)"
        assert not unknown, f"{file} names {unknown}, which {table} in schema.sql lacks"
        assert len(names) == len(set(names)), f"{file}: a column of {table} is named twice"


def test_ingest_runs_insert_lists_the_schema_columns(schema: dict[str, list[str]]) -> None:
    source = Path(ingest.__file__).read_text(encoding="utf-8")
    listed = re.search(r"INSERT INTO ingest_runs \(([^)]*)\)", source)
    assert listed, "ingest.py inserts ingest_runs without naming its columns"
    assert [c.strip() for c in listed.group(1).split(",")] == schema["ingest_runs"]


def test_card_object_builder_reads_the_schema_columns(schema: dict[str, list[str]]) -> None:
    # The builder's query binds against the schema alone: a column it reads that the tables lack fails here.
    con = duckdb.connect()
    con.execute((SQL / "schema.sql").read_text(encoding="utf-8"))
    con.execute(cardjson._PRINTING_SQL, {"ids": []})
    produced = {d[0] for d in con.description}
    for query in (cardjson._FACES_SQL, cardjson._LEGALITIES_SQL, cardjson._PARTS_SQL):
        con.execute(query, {"oids": []})
    # Every column of cards and printings reaches the object, or is listed above with the reason it does not.
    read: dict[str, set[str]] = {"p": set(), "c": set()}

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if node.get("class") == "COLUMN_REF" and len(node["column_names"]) == 2:
                alias, column = node["column_names"]
                read.setdefault(alias, set()).add(column)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(_parse(cardjson._PRINTING_SQL))
    for table, alias in (("cards", "c"), ("printings", "p")):
        unread = set(schema[table]) - read[alias] - set(NOT_IN_CARD_OBJECTS[table])
        assert not unread, (
            f"{table}.{sorted(unread)} never reach the card object: read them in cardjson._PRINTING_SQL and "
            f"_card_object, or list them in NOT_IN_CARD_OBJECTS with the reason"
        )
        stale = set(NOT_IN_CARD_OBJECTS[table]) - set(schema[table])
        assert not stale, f"NOT_IN_CARD_OBJECTS names {sorted(stale)}, which {table} no longer has"
    assert {"rarity", "reprint", "printing_name", "printing_layout"} <= produced
