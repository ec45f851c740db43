"""Scryfall's set list, kept by the ingest (oracle_tools/scryfall/sets.py): downloaded by an online ingest or given as a
file, answered by /sets, ``db.sets()`` and ``oracle-tools sets`` with the fields card objects never carry.

The set list is tests/fixtures/sets/scryfall-sets.json: six set objects in Scryfall's documented shape, written
from the sets' real card objects and MTGJSON (its README says which field comes from where).
"""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB
from oracle_tools.errors import DownloadError
from oracle_tools.ingest import sample_dir
from oracle_tools.interfaces.cli import main
from oracle_tools.scryfall.sets import set_object_problem, shipped_set
from oracle_tools.store.download import fetch_set_list

from oracle_server import Server
from scryfall_server import Reply, ScryfallServer

SET_LIST = Path(__file__).parent / "fixtures" / "sets" / "scryfall-sets.json"
SCRYFALL_SETS = {s["code"]: s for s in json.loads(SET_LIST.read_text())["data"]}


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def with_set_list(sample_db_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded sample (a copy of the session's), then Scryfall's set list ingested offline on its own
    (``ingest --bulk-file`` of a saved list: the cards stay, the list is kept)."""
    path = tmp_path_factory.mktemp("sets") / "oracle.duckdb"
    shutil.copy(sample_db_path, path)
    OracleDB.ingest_files(path, [SET_LIST]).close()
    return path


@pytest.fixture(scope="module")
def server(with_set_list: Path) -> Iterator[Server]:
    srv = Server(with_set_list, "--no-warm")  # a few sets and a search: no card object built before it is asked
    yield srv
    srv.stop()


def test_a_kept_set_is_scryfalls_object_and_the_others_are_built(with_set_list: Path) -> None:
    with OracleDB(with_set_list) as db:
        eld = db.sets("eld")
        # Scryfall's object as the list gave it: the fields no card object carries are there; its card_count is
        # what this database holds (one per collector number), which the set's search_uri finds
        held = db.sql("SELECT count(DISTINCT collector_number) FROM printings WHERE set_code = 'eld'").rows()[0][0]
        assert eld == SCRYFALL_SETS["eld"] | {"card_count": held} and 0 < held < SCRYFALL_SETS["eld"]["card_count"]
        assert len(db.search("e:eld include:extras", unique="prints")) == held
        assert eld["icon_svg_uri"] == "https://svgs.scryfall.io/sets/eld.svg" and eld["tcgplayer_id"] == 2494
        listed = db.sets()
        codes = [s["code"] for s in listed]
        assert set(SCRYFALL_SETS) <= set(codes)  # every set of the list, those without printings here too
        printed = {c for (c,) in db.sql("SELECT DISTINCT set_code FROM printings").rows()}
        assert printed <= set(codes)  # and every set with printings here
        built = next(s for s in listed if s["code"] == "psal")  # not in the list: built from its printings
        assert built["card_count"] > 0 and built["icon_svg_uri"].startswith("https://svgs.scryfall.io/sets/")
        dates = [s.get("released_at") or "" for s in listed]
        assert dates == sorted(dates, reverse=True)  # newest first, as Scryfall lists them
        assert db.sets(SCRYFALL_SETS["war"]["id"])["code"] == "war"


def test_a_later_ingest_without_a_set_list_keeps_it(with_set_list: Path, tmp_path: Path) -> None:
    db = tmp_path / "again.duckdb"
    db.write_bytes(with_set_list.read_bytes())
    OracleDB.ingest_files(db, [sample_dir() / "rulings.json.gz"]).close()  # rulings only
    # cards only, and none of ELD's (the sample's small 2024 file): the set can come from the kept list only
    OracleDB.ingest_files(db, [sample_dir() / "cards-2024.json.gz"], replace_anyway=True).close()
    with OracleDB(db) as opened:
        assert opened.sql("SELECT count(*) FROM printings WHERE set_code = 'eld'").item() == 0
        assert opened.sets("eld")["icon_svg_uri"] == SCRYFALL_SETS["eld"]["icon_svg_uri"]


def test_the_server_answers_the_kept_objects_with_its_own_links(server: Server) -> None:
    eld = server.client.get("/sets/eld").json()
    expected = json.loads(json.dumps(SCRYFALL_SETS["eld"]).replace("https://api.scryfall.com/", server.base + "/"))
    assert eld == expected | {"card_count": eld["card_count"]}  # the count of what this database holds
    assert server.client.get(eld["uri"]).json() == eld  # /sets/{id}
    search = server.client.get(eld["search_uri"]).json()  # the set's search_uri works here, and finds card_count
    assert search["object"] == "list" and all(c["set"] == "eld" for c in search["data"])
    assert search["total_cards"] == eld["card_count"]
    assert server.client.get("/sets/tcgplayer/2494").json() == eld
    missing = server.client.get("/sets/tcgplayer/999999")
    # the list says TCGplayer groups, so an unknown group is plainly not found
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert "without Scryfall's set list" not in missing.json()["details"]
    listed = server.client.get("/sets").json()
    assert listed["object"] == "list" and listed["has_more"] is False
    assert next(s for s in listed["data"] if s["code"] == "mh3")["icon_svg_uri"].endswith("/mh3.svg")


def test_the_cli_shows_a_kept_set(with_set_list: Path) -> None:
    code, out, _ = _run("sets", "eld", "--db", str(with_set_list), "--json")
    shown = json.loads(out)
    assert code == 0 and shown == SCRYFALL_SETS["eld"] | {"card_count": shown["card_count"]}
    with OracleDB(with_set_list) as db:
        assert shown["card_count"] == len(db.search("e:eld include:extras", unique="prints"))


def test_fetch_set_list_follows_pages_and_writes_one_array(tmp_path: Path) -> None:
    data = list(SCRYFALL_SETS.values())
    with ScryfallServer() as srv:
        first = {"object": "list", "has_more": True, "next_page": srv.url + "/sets/page-2", "data": data[:4]}
        srv.add_route("/sets", json.dumps(first).encode())
        srv.add_route("/sets/page-2", json.dumps({"object": "list", "has_more": False, "data": data[4:]}).encode())
        path = fetch_set_list(srv.url, cache_dir=tmp_path, sleep=lambda _: None)
        assert srv.count("/sets") == 1 and srv.count("/sets/page-2") == 1
    assert json.loads(path.read_text()) == data


def test_fetch_set_list_refuses_what_is_not_a_set_list(tmp_path: Path) -> None:
    with ScryfallServer() as srv:
        cards = json.loads(gzip.decompress((sample_dir() / "cards-2024.json.gz").read_bytes()))[:2]
        srv.add_route("/sets", json.dumps({"object": "list", "has_more": False, "data": cards}).encode())
        with pytest.raises(DownloadError, match="listed something other than set objects"):
            fetch_set_list(srv.url, cache_dir=tmp_path, sleep=lambda _: None)
    assert not (tmp_path / "sets.json").exists()  # nothing half-written


def _online_ingest(srv: ScryfallServer, db: Path, cache: Path) -> dict:
    code, out, err = _run(
        "ingest", "--db", str(db), "--types", "default_cards", "--api-url", srv.url,
        "--cache-dir", str(cache), "--no-progress", "--json",
    )  # fmt: skip
    assert code == 0, err
    report: dict = json.loads(out)
    return report


def test_an_online_ingest_downloads_and_keeps_the_set_list(tmp_path: Path) -> None:
    cards = gzip.decompress((sample_dir() / "cards-2024.json.gz").read_bytes())
    db, cache = tmp_path / "online.duckdb", tmp_path / "cache"
    with ScryfallServer(payload=cards, types=("default_cards",)) as srv:
        srv.add_route("/sets", SET_LIST.read_bytes())
        report = _online_ingest(srv, db, cache)
        assert {f["kind"] for f in report["files"]} == {"cards", "sets"} and not report["warnings"]
        with OracleDB(db) as opened:
            held = opened.sql("SELECT count(DISTINCT collector_number) FROM printings WHERE set_code = 'mh3'").rows()
            assert opened.sets("mh3") == SCRYFALL_SETS["mh3"] | {"card_count": held[0][0]}
        # Scryfall's /sets fails on the next run: the list downloaded before is used, and the ingest says so
        srv.script("/sets", Reply.error(404), repeat_last=True)
        report = _online_ingest(srv, db, cache)
        assert [w for w in report["warnings"] if "set list" in w] == [
            next(w for w in report["warnings"] if "kept the one downloaded before" in w)
        ]
    with OracleDB(db) as opened:
        assert opened.sets("mh3")["icon_svg_uri"] == SCRYFALL_SETS["mh3"]["icon_svg_uri"]


def test_an_online_ingest_without_a_set_list_builds_the_sets_and_says_so(tmp_path: Path) -> None:
    cards = gzip.decompress((sample_dir() / "cards-2024.json.gz").read_bytes())
    with ScryfallServer(payload=cards, types=("default_cards",)) as srv:  # no /sets: a 404
        report = _online_ingest(srv, tmp_path / "db.duckdb", tmp_path / "cache")
    assert any(
        "could not download Scryfall's set list" in w and "built from the printings" in w for w in report["warnings"]
    )
    with OracleDB(tmp_path / "db.duckdb") as opened:
        mh3 = opened.sets("mh3")  # newer than the shipped table: Scryfall's generic set symbol
        assert mh3["icon_svg_uri"].endswith("/default.svg") and mh3["name"] == "Modern Horizons 3"


def test_built_sets_are_whole_set_objects(sample_db: OracleDB) -> None:
    """Without Scryfall's set list every set is still a whole set object: the facts its card objects carry, then
    the set table shipped in the package (MTGJSON 2022) for what no card carries (block, parent set, MTGO code,
    TCGplayer group, printed size, icon); the links are the set's own (a set's scryfall_uri is its page by code,
    never another set's a card object happened to carry)."""
    listed = sample_db.sets()
    required = ("object", "id", "code", "name", "set_type", "card_count", "digital", "foil_only", "icon_svg_uri",
                "scryfall_uri")  # fmt: skip
    for item in listed:
        assert set_object_problem(item) is None, item
        missing = [k for k in required if k not in item]
        assert missing == [] or (missing == ["set_type"] and not (shipped_set(item["code"]) or {}).get("set_type"))
        assert item["scryfall_uri"] == f"https://scryfall.com/sets/{item['code']}"
    by_code = {s["code"]: s for s in listed}
    eld = by_code["eld"]
    assert (eld["set_type"], eld["mtgo_code"], eld["tcgplayer_id"], eld["printed_size"]) == (
        "expansion",
        "eld",
        2494,
        269,
    )
    assert eld["icon_svg_uri"] == "https://svgs.scryfall.io/sets/eld.svg"
    war = by_code["war"]
    assert war["block"] == "Guilds of Ravnica"  # MTGJSON's and Scryfall's block for War of the Spark
    assert len({s["id"] for s in listed}) == len(listed)  # every set has its own id


_SET = '"object": "set", "name": "A", "digital": false, "foil_only": false'


@pytest.mark.parametrize(
    ("objects", "problem"),
    [
        ("{" + _SET + ', "code": "abc"}', 'no "card_count"'),
        ("{" + _SET + ', "code": 12345, "card_count": 1}', '"code" is a number, not a string'),
        ("{" + _SET + ', "code": "abc", "card_count": 1, "released_at": 20240101}', '"released_at" is a number'),
        ("{" + _SET + ', "code": "abc", "card_count": 1, "x": ' + "[" * 5000 + "]" * 5000 + "}", "nest"),
    ],
)
def test_a_malformed_set_list_is_refused_at_ingest_in_one_line(objects: str, problem: str, tmp_path: Path) -> None:
    """A set list the server could not answer later (/sets 500, `sets` "this is a bug") is refused by the ingest
    with one line naming the file, the object and what is wrong; the database is left as it was."""
    bad = tmp_path / "sets.json"
    bad.write_text('{"object": "list", "has_more": false, "data": [' + objects + "]}", encoding="utf-8")
    code, out, err = _run("ingest", "--db", str(tmp_path / "o.duckdb"), "--bulk-file",
                          str(sample_dir() / "cards-2024.json.gz"), "--bulk-file", str(bad))  # fmt: skip
    message = (out + err).strip()
    assert code != 0 and problem in message and str(bad) in message, message
    assert "bug" not in message and "Traceback" not in message
    assert message.count("error:") == 1 and message.endswith("Nothing was replaced."), message  # one line
    assert not (tmp_path / "o.duckdb").exists()


def test_a_malformed_set_kept_by_an_older_version_is_set_aside(sample_db_path: Path, tmp_path: Path) -> None:
    """A database built before set objects were checked may hold one without card_count, or with a number for a
    code: `sets` and /sets build that set from its printings instead of failing ("this is a bug", a 500)."""
    import shutil

    import duckdb

    path = tmp_path / "older.duckdb"
    shutil.copy(sample_db_path, path)
    with duckdb.connect(str(path)) as con:
        con.execute("DELETE FROM scryfall_sets")
        bad = {"object": "set", "code": "eld", "name": "Throne of Eldraine", "digital": False, "foil_only": False}
        con.execute("INSERT INTO scryfall_sets VALUES ('eld', NULL, ?), ('x', NULL, ?)",
                    [json.dumps(bad), '{"object": "set", "code": 12345}'])  # fmt: skip
    code, out, err = _run("sets", "--db", str(path))
    assert code == 0 and "bug" not in out + err, out + err
    with OracleDB(path) as db:
        eld = db.sets("eld")
    assert eld["card_count"] > 0 and set_object_problem(eld) is None


def test_brackets_inside_a_string_are_no_nesting() -> None:
    """A set's name or text may hold brackets ("[[" in a joke set's name): only the object's own nesting is limited,
    so such a set object is read, while one that really nests too deep is refused before json.loads recurses."""
    from oracle_tools.scryfall.sets import MAX_SET_DEPTH, parse_set_object

    brackets = "[{" * MAX_SET_DEPTH
    item, problem = parse_set_object("{" + _SET.replace('"A"', f'"{brackets}"') + ', "code": "abc", "card_count": 1}')
    assert problem is None and item is not None and item["name"] == brackets
    deep = "{" + _SET + ', "code": "abc", "card_count": 1, "x": ' + "[" * 30 + "]" * 30 + "}"
    assert parse_set_object(deep) == (None, f"it nests more than {MAX_SET_DEPTH} levels deep")
