"""Real third-party Scryfall clients against the real `oracle-tools serve` on 127.0.0.1 (the API issue's
quality bar). scryfall-sdk (npm, pinned in tests/clients/js/package-lock.json; `.ci/run` installs it) is
pointed at the server by setting its ENDPOINT_API export, as docs/serve.md tells users."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from oracle_tools import OracleDB
from oracle_tools.catalogs import CATALOGS

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


def test_scryfall_sdk_reads_every_catalog(server: Server, sample_db_path: Path) -> None:
    """Each catalog method of scryfall-sdk answers exactly what the database computes (oracle_tools/catalogs.py)."""
    _node_client()
    done = subprocess.run(
        ["node", str(JS / "catalogs.js"), server.base], capture_output=True, text=True, timeout=120, cwd=JS
    )
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    with OracleDB(sample_db_path) as db:
        expected = {_camel(name): db.catalog(name) for name in CATALOGS}
    asked = {m: v for m, v in answers.items() if m in expected}
    assert len(asked) >= 15  # every catalog the SDK has a method for, but watermarks (not kept)
    for method, values in asked.items():
        assert values == expected[method], method
    assert "Goblin" in answers["creatureTypes"] and "Trample" in answers["keywordAbilities"]


def test_catalog_objects_and_errors_over_http(server: Server) -> None:
    answer = server.client.get("/catalog/creature-types").json()
    assert answer["object"] == "catalog" and answer["total_values"] == len(answer["data"]) > 100
    assert answer["uri"] == f"{server.base}/catalog/creature-types"
    for name, reason in (("watermarks", "not offered here"), ("bogus", "No catalog 'bogus'")):
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
