"""Real third-party Scryfall clients against the real `oracle-tools serve` on 127.0.0.1 (the API issue's
quality bar). scryfall-sdk (npm, pinned in tests/clients/js/package-lock.json, installed on first use) is
pointed at the server by setting its ENDPOINT_API export, as docs/serve.md tells users; tests/clients/js/calls.js
makes the calls each test asks for."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from oracle_tools import OracleDB
from oracle_tools.scryfall.catalogs import CATALOGS

from oracle_server import Server

JS = Path(__file__).resolve().parent / "clients" / "js"


@pytest.fixture(scope="module")
def server(sample_db_path: Path) -> Iterator[Server]:
    srv = Server(sample_db_path)
    yield srv
    srv.stop()


def _node_client() -> None:
    """scryfall-sdk installed from the npm registry (as pinned in package-lock.json) on first use."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js and npm are not installed here: the npm client tests need them")
    if not (JS / "node_modules" / "scryfall-sdk").is_dir():
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=JS, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"`npm ci` in {JS} failed (the npm registry must be reachable): {done.stderr}"


def _camel(name: str) -> str:
    first, *rest = name.split("-")
    return first + "".join(w.title() for w in rest)


def _sdk(server: Server, calls: list[tuple[str, str, list[Any]]]) -> list[dict[str, Any]]:
    """scryfall-sdk's answers to ``calls`` (api, method, arguments), each {"ok": …} or {"error": …}."""
    _node_client()
    done = subprocess.run(
        ["node", str(JS / "calls.js"), server.base, json.dumps(calls)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=JS,
    )
    assert done.returncode == 0, done.stderr
    answers: list[dict[str, Any]] = json.loads(done.stdout)
    return answers


def test_scryfall_sdk_reads_every_catalog(server: Server, sample_db_path: Path) -> None:
    """Each catalog method of scryfall-sdk answers exactly what the database computes (oracle_tools/scryfall/catalogs.py)."""
    with OracleDB(sample_db_path) as db:
        expected = {_camel(name): db.catalog(name) for name in CATALOGS}
    methods = [m for m in expected if m not in ("battleTypes", "cardTypes")]  # scryfall-sdk 5 lacks these two
    answers = _sdk(server, [("Catalog", m, []) for m in methods])
    for method, answer in zip(methods, answers, strict=True):
        assert answer == {"ok": expected[method]}, method
    assert expected["watermarks"] and "watermarks" in methods  # the printings' watermark field


def test_scryfall_sdk_finds_cards_and_rulings_by_every_id(server: Server, sample_db: OracleDB) -> None:
    """Cards.by{Multiverse,Mtgo,Arena,TcgPlayer,Cardmarket}Id, Cards.bySet, Rulings.by… and Cards.random, each
    against what SQL on the database says the id names (English first)."""
    con = sample_db.con
    kinds = {
        "Multiverse": "list_contains(multiverse_ids, ?)",
        "Mtgo": "mtgo_id = ?",
        "Arena": "arena_id = ?",
        "TcgPlayer": "tcgplayer_id = ?",
        "Cardmarket": "cardmarket_id = ?",
    }
    columns = {"Multiverse": "multiverse_ids[1]", "Mtgo": "mtgo_id", "Arena": "arena_id", "TcgPlayer": "tcgplayer_id"}
    columns["Cardmarket"] = "cardmarket_id"
    calls: list[tuple[str, str, list[Any]]] = []
    expected: list[str] = []
    for kind, where in kinds.items():
        (value,) = con.execute(
            f"SELECT {columns[kind]} FROM printings WHERE {columns[kind]} IS NOT NULL AND lang = 'en' "
            "ORDER BY id LIMIT 1"
        ).fetchall()[0]
        (printing,) = con.execute(
            f"SELECT id FROM printings WHERE {where} ORDER BY (lang = 'en') DESC, id LIMIT 1", [value]
        ).fetchall()[0]
        calls.append(("Cards", f"by{kind}Id", [value]))
        expected.append(printing)
        if kind in ("Multiverse", "Mtgo", "Arena"):  # the SDK's Rulings has these three
            calls.append(("Rulings", f"by{kind}Id", [value]))
            expected.append(f"rulings of {printing}")
    set_code, number, printing = con.execute(
        "SELECT set_code, collector_number, id FROM printings WHERE lang = 'en' AND set_code = 'm19' "
        "ORDER BY collector_number LIMIT 1"
    ).fetchall()[0]
    calls += [("Cards", "bySet", [set_code, number]), ("Rulings", "bySet", [set_code, number])]
    expected += [printing, f"rulings of {printing}"]
    answers = _sdk(server, calls)
    for (api, method, args), answer, want in zip(calls, answers, expected, strict=True):
        assert "ok" in answer, (method, args, answer)
        if api == "Cards":
            assert answer["ok"]["id"] == want and answer["ok"]["object"] == "card", (method, args)
        else:
            oracle_id = con.execute("SELECT oracle_id FROM printings WHERE id = ?", [want.split()[-1]]).fetchall()[0][0]
            count = con.execute("SELECT count(*) FROM rulings WHERE oracle_id = ?", [oracle_id]).fetchall()[0][0]
            assert len(answer["ok"]) == count and all(r["object"] == "ruling" for r in answer["ok"]), method
    goblins = {
        n
        for (n,) in con.execute(
            "SELECT DISTINCT c.name FROM cards c JOIN faces f USING (oracle_id) WHERE c.is_card AND f.type_line LIKE '%Goblin%'"
        ).fetchall()
    }
    random_answers = _sdk(server, [("Cards", "random", ["t:goblin"])] * 5 + [("Cards", "random", [])])
    assert all(a["ok"]["name"] in goblins for a in random_answers[:5])
    assert random_answers[5]["ok"]["object"] == "card"
    missing = _sdk(server, [("Cards", "byMtgoId", [999999999]), ("Cards", "random", ["zzzzqqq"])])
    assert [m["error"]["status"] for m in missing] == [404, 404]


def test_catalog_objects_and_errors_over_http(server: Server) -> None:
    answer = server.client.get("/catalog/creature-types").json()
    assert answer["object"] == "catalog" and answer["total_values"] == len(answer["data"]) > 100
    assert answer["uri"] == f"{server.base}/catalog/creature-types"
    for name, reason in (("flavor-words", "not offered here"), ("bogus", "No catalog 'bogus'")):
        missing = server.client.get(f"/catalog/{name}")
        assert missing.status_code == 404 and missing.json()["code"] == "not_found"
        assert reason in missing.json()["details"]
    assert server.client.post("/catalog/card-names").status_code == 405


def test_catalog_values_come_from_the_data_and_the_rules(sample_db: OracleDB) -> None:
    """Types are the CR 205 lists kept to those the cards use; keyword abilities are CR 702's headings."""
    used = {
        w for (t,) in sample_db.con.execute("SELECT type_line FROM faces").fetchall() for w in re.split(r"[^\w'-]+", t)
    }
    assert set(sample_db.catalog("creature-types")) <= used
    assert "Trample" in sample_db.catalog("keyword-abilities") and "Scry" in sample_db.catalog("keyword-actions")
    assert "landfall" in sample_db.catalog("ability-words")
    powers = sample_db.catalog("powers")
    assert powers.index("2") < powers.index("10") < powers.index("*")  # numbers in numeric order, then the rest


def test_migrations_is_an_empty_list(server: Server) -> None:
    """The bulk data carries no id migrations: Scryfall's list object, empty (a syncing client changes nothing)."""
    assert server.client.get("/migrations").json() == {"object": "list", "has_more": False, "data": []}
    assert server.client.get("/migrations?bogus=1").status_code == 400


def test_scryfall_sdk_names_search_autocomplete_collection_sets_symbology(server: Server, sample_db: OracleDB) -> None:
    """Cards.byName (exact, fuzzy), Cards.search across pages, Cards.autoCompleteName, Cards.collection,
    Sets.all/byCode, Symbology.all/parseMana — each against what the database says."""
    con = sample_db.con
    creatures = con.execute(
        "SELECT count(*) FROM cards WHERE is_card AND list_contains(string_split(type_line, ' '), 'Creature')"
    ).fetchall()[0][0]
    set_count = con.execute("SELECT count(DISTINCT set_code) FROM printings").fetchall()[0][0]
    answers = _sdk(
        server,
        [
            ("Cards", "byName", ["Lightning Bolt"]),
            ("Cards", "byName", ["lightnig bolt", True]),
            ("Cards", "byName", ["asdfgh qwerty", True]),
            ("Cards", "search", ["t:creature"]),
            ("Cards", "autoCompleteName", ["lightning b"]),
            ("Cards", "collection", [{"name": "Fire // Ice"}, {"name": "No Such Card Anywhere"}]),
            ("Sets", "all", []),
            ("Sets", "byCode", ["ELD"]),
            ("Symbology", "all", []),
            ("Symbology", "parseMana", ["2WW"]),
        ],
    )
    exact, fuzzy, nonsense, search, complete, collection, sets, eld, symbols, parsed = answers
    assert exact["ok"]["name"] == fuzzy["ok"]["name"] == "Lightning Bolt"
    assert nonsense["error"]["status"] == 404  # no guess for nonsense, as on Scryfall
    assert len(search["ok"]) == creatures > 175  # every page, through next_page
    assert "Lightning Bolt" in complete["ok"]
    assert [c["name"] for c in collection["ok"]] == ["Fire // Ice"]
    assert collection["not_found"] == [{"name": "No Such Card Anywhere"}]
    assert len(sets["ok"]) == set_count and eld["ok"]["name"] == "Throne of Eldraine"
    assert {"{W}", "{T}", "{W/U/P}"} <= {s["symbol"] for s in symbols["ok"]}
    assert parsed["ok"]["cost"] == "{2}{W}{W}" and parsed["ok"]["cmc"] == 4
