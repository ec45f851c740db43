"""``oracle-tools serve``: the real server process on a free loopback port, spoken to over HTTP."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.client import HTTPConnection
from pathlib import Path
from typing import Any, Protocol

import httpx
import pytest

from oracle_tools import OracleDB

from oracle_server import Server, loopback_socket, serving

ROOT = Path(__file__).resolve().parents[1]
DECKS = ROOT / "oracle_tools" / "data" / "sample" / "decks"


@pytest.fixture(scope="module")
def server(sample_server: Server) -> Server:
    """The session's server on a copy of the sample database (conftest), whose log holds no traceback when it
    stops: malformed input never printed one."""
    return sample_server


@pytest.fixture(scope="module")
def http(server: Server) -> httpx.Client:
    return server.client


class _Answer(Protocol):
    """An HTTP answer as httpx and Starlette's TestClient both give it."""

    @property
    def status_code(self) -> int: ...

    @property
    def text(self) -> str: ...

    def json(self) -> Any: ...


def is_error(r: _Answer, status: int, code: str | None = None) -> dict:
    """A Scryfall error object with this status."""
    assert r.status_code == status, r.text
    body = r.json()
    assert body["object"] == "error" and body["status"] == status and body["details"], body
    if code:
        assert body["code"] == code
    return body


def cli_json(db: Path, *args: str) -> Any:
    """The CLI's --json answer (any JSON), run in-process: what is compared is the answer, not the process (the
    tests below that are about the process run it as one)."""
    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main

    return json.loads(CliRunner().invoke(main, [*args, "--db", str(db), "--json"]).stdout)


# -- Scryfall endpoints ------------------------------------------------------------------------------


def test_named_exact_face_and_foreign(http: httpx.Client) -> None:
    card = http.get("/cards/named", params={"exact": "Fire // Ice"}).json()
    assert card["object"] == "card" and card["name"] == "Fire // Ice" and len(card["card_faces"]) == 2
    # CR 201: a half or face name finds its card; so does a printed foreign name (201.2)
    assert http.get("/cards/named", params={"exact": "Stomp"}).json()["name"] == "Bonecrusher Giant // Stomp"
    assert http.get("/cards/named", params={"exact": "Insectile Aberration"}).json()["layout"] == "transform"
    assert http.get("/cards/named", params={"exact": "Foudre"}).json()["name"] == "Lightning Bolt"
    assert http.get("/cards/named", params={"exact": "lightning BOLT"}).json()["name"] == "Lightning Bolt"
    is_error(http.get("/cards/named", params={"exact": "Lightnin Bolt"}), 404, "not_found")


def test_named_interchangeable_flavor_and_dfc_back(http: httpx.Client) -> None:
    # CR 201.3: an interchangeable name is the same name — the printing that carries it can be asked for
    card = http.get("/cards/named", params={"exact": "Ruzic, Booed but Victorious"}).json()
    assert card["name"] == "Ultimate Green Goblin"
    # CR 201.6: a flavor name finds its card, which has only its Oracle name
    assert http.get("/cards/named", params={"exact": "Adamantium Bonding Tank"}).json()["name"] == "The Ozolith"
    # CR 712: the back face's name finds the double-faced card, faces in Scryfall's double-sided shape
    mdfc = http.get("/cards/named", params={"exact": "Razorgrass Field"}).json()
    assert mdfc["name"] == "Razorgrass Ambush // Razorgrass Field" and mdfc["layout"] == "modal_dfc"
    assert "mana_cost" not in mdfc and [f["name"] for f in mdfc["card_faces"]] == [
        "Razorgrass Ambush",
        "Razorgrass Field",
    ]


def test_named_fuzzy_and_ambiguous(http: httpx.Client) -> None:
    assert http.get("/cards/named", params={"fuzzy": "lightnin bolt"}).json()["name"] == "Lightning Bolt"
    assert http.get("/cards/named", params={"fuzzy": "lightnig bolt"}).json()["name"] == "Lightning Bolt"
    body = is_error(http.get("/cards/named", params={"fuzzy": "goblin"}), 404, "not_found")
    assert body["type"] == "ambiguous"  # as on Scryfall: several card names hold "goblin"
    is_error(http.get("/cards/named", params={"fuzzy": "qqqqzzzzxxxx"}), 404)
    is_error(http.get("/cards/named", params={"exact": "a", "fuzzy": "b"}), 400)
    is_error(http.get("/cards/named"), 400)


def test_named_in_set(http: httpx.Client, sample_db: OracleDB) -> None:
    sets = [
        s
        for (s,) in sample_db.con.execute(
            "SELECT DISTINCT set_code FROM printings WHERE name = 'Lightning Bolt' AND lang = 'en'"
        ).fetchall()
    ]
    for code in sets[:3]:
        card = http.get("/cards/named", params={"exact": "Lightning Bolt", "set": code}).json()
        assert card["set"] == code
    is_error(http.get("/cards/named", params={"exact": "Lightning Bolt", "set": "nosuchset"}), 404)


def test_a_name_several_cards_print_is_one_name_to_the_named_lookup_and_the_deck_check(same_name_db_path: Path) -> None:
    """Unstable prints six Oracle cards named Very Cryptic Command: one name (CR 201.2a), whichever card is meant.
    The deck check counts them as one (names.same_name.same_named_cards), and /cards/named, a collection's name and
    OracleDB.named_printing answer one card for it, the first printed (UST #49a), exact or fuzzy, in its set; in a
    set none of them is printed in, "no card in that set", as for any card (not "too many cards match": the six
    names are one name)."""
    from starlette.testclient import TestClient

    from oracle_tools.errors import NotFoundError
    from oracle_tools.interfaces.serve.app import create_app
    from oracle_tools.names.same_name import same_named_cards

    first = "9a650610-20e2-4f16-b59c-2ea7779f6e47"  # UST #49a, the first of UST #49a-f by collector number
    with OracleDB(same_name_db_path) as db:
        oids = same_named_cards(db.resolve("Very Cryptic Command"))
        assert len(oids) == 6 and same_named_cards(db.resolve("Lightning Bolt")) == ()
        assert (
            db.named_printing("Very Cryptic Command") == db.named_printing("very cryptic comand", fuzzy=True) == first
        )
        assert db.named_printing("Very Cryptic Command", set_code="UST") == first
        with pytest.raises(NotFoundError) as not_there:
            db.named_printing("Very Cryptic Command", set_code="lea")
        assert str(not_there.value) == "No cards found matching “Very Cryptic Command” in set “lea”."
        report = db.check_deck("2 Very Cryptic Command\n3 very cryptic command\n", format="legacy")
        [copies] = [p for p in report.problems if p.kind == "too_many_copies"]
        assert copies.detail.startswith("5 copies of Very Cryptic Command"), copies.detail
    with TestClient(create_app(same_name_db_path, warm=False), base_url="http://127.0.0.1:8765") as http:
        for params in (
            {"exact": "Very Cryptic Command"},
            {"fuzzy": "very cryptic comand"},
            {"exact": "VERY CRYPTIC COMMAND", "set": "ust"},
        ):
            card = http.get("/cards/named", params=params).json()
            assert (card["id"], card["collector_number"]) == (first, "49a") and card["oracle_id"] in oids, card
        body = is_error(
            http.get("/cards/named", params={"exact": "Very Cryptic Command", "set": "lea"}), 404, "not_found"
        )
        assert body["details"] == "No cards found matching “Very Cryptic Command” in set “lea”." and "type" not in body
        body = is_error(http.get("/cards/named", params={"exact": "Lightning Bolt", "set": "ust"}), 404, "not_found")
        assert body["details"] == "No cards found matching “Lightning Bolt” in set “ust”."
        asked = [{"name": "Very Cryptic Command"}, {"name": "Very Cryptic Command", "set": "lea"}]
        found = http.post("/cards/collection", json={"identifiers": asked}).json()
        assert [c["id"] for c in found["data"]] == [first] and found["not_found"] == asked[1:], found


def test_card_by_id_number_lang_and_rulings(http: httpx.Client, sample_db: OracleDB) -> None:
    pid, code, number = sample_db.con.execute(
        "SELECT id, set_code, collector_number FROM printings WHERE name = 'Fire // Ice' AND lang = 'en' "
        "ORDER BY id LIMIT 1"
    ).fetchall()[0]
    card = http.get(f"/cards/{pid}").json()
    assert card["id"] == pid and card["name"] == "Fire // Ice"
    assert http.get(f"/cards/{code}/{number}").json()["id"] == pid
    foreign = sample_db.con.execute(
        "SELECT any_value(id), set_code, collector_number, lang FROM printings WHERE lang <> 'en' "
        "AND name = 'Lightning Bolt' GROUP BY ALL HAVING count(*) = 1 ORDER BY ALL LIMIT 1"
    ).fetchall()[0]
    got = http.get(f"/cards/{foreign[1]}/{foreign[2]}/{foreign[3]}").json()
    assert got["id"] == foreign[0] and got["lang"] == foreign[3]
    oid_with_rulings = sample_db.con.execute(
        "SELECT p.id, count(*) FROM rulings r JOIN printings p USING (oracle_id) GROUP BY p.id ORDER BY 2 DESC LIMIT 1"
    ).fetchall()[0]
    rulings = http.get(f"/cards/{oid_with_rulings[0]}/rulings").json()
    assert rulings["object"] == "list" and rulings["data"] and all(r["object"] == "ruling" for r in rulings["data"])
    is_error(http.get("/cards/00000000-0000-0000-0000-000000000000"), 404)
    is_error(http.get("/cards/not-an-id"), 404)
    is_error(http.get("/cards/zzz/99999"), 404)
    is_error(http.get("/cards/00000000-0000-0000-0000-000000000000/rulings"), 404)


def test_autocomplete(http: httpx.Client) -> None:
    cat = http.get("/cards/autocomplete", params={"q": "light"}).json()
    assert cat["object"] == "catalog" and 0 < cat["total_values"] == len(cat["data"]) <= 20
    assert "Lightning Bolt" in cat["data"]
    assert all("light" in n.lower() for n in cat["data"])
    starts = [n.lower().startswith("light") for n in cat["data"]]
    assert starts == sorted(starts, reverse=True)  # names starting with the text come first
    assert http.get("/cards/autocomplete", params={"q": "l"}).json()["data"] == []


def test_collection(http: httpx.Client, sample_db: OracleDB) -> None:
    pid = sample_db.con.execute("SELECT id FROM printings WHERE name = 'Fire // Ice' LIMIT 1").fetchall()[0][0]
    oid = sample_db.con.execute("SELECT oracle_id FROM cards WHERE name = 'Lightning Bolt'").fetchall()[0][0]
    code, number = sample_db.con.execute(
        "SELECT set_code, collector_number FROM printings WHERE name = 'Bonecrusher Giant // Stomp' AND lang = 'en' "
        "LIMIT 1"
    ).fetchall()[0]
    missing = {"name": "No Such Card Anywhere"}
    body = {
        "identifiers": [
            {"id": pid},
            {"oracle_id": oid},
            missing,
            {"name": "Stomp"},
            {"set": code, "collector_number": number},
        ]
    }
    answer = http.post("/cards/collection", json=body).json()
    assert answer["object"] == "list"
    assert [c["name"] for c in answer["data"]] == [
        "Fire // Ice",
        "Lightning Bolt",
        "Bonecrusher Giant // Stomp",
        "Bonecrusher Giant // Stomp",
    ]
    assert answer["not_found"] == [missing]
    # printing ids are looked up together: a known one in any case, an unknown one in not_found as it was given
    unknown = {"id": "00000000-0000-4000-8000-000000000000"}
    answer = http.post("/cards/collection", json={"identifiers": [unknown, {"id": pid.upper()}, {"id": pid}]}).json()
    assert [c["id"] for c in answer["data"]] == [pid, pid] and answer["not_found"] == [unknown]
    is_error(http.post("/cards/collection", json={"identifiers": [{"name": "Island"}] * 76}), 422)
    is_error(http.post("/cards/collection", json={"identifiers": [{"colour": "red"}]}), 422)
    is_error(http.post("/cards/collection", json={"identifiers": [{"id": 12}]}), 422)
    is_error(http.post("/cards/collection", json=[1, 2]), 422)
    is_error(http.post("/cards/collection", content=b"{not json", headers={"content-type": "application/json"}), 400)


def test_search(http: httpx.Client, sample_db: OracleDB) -> None:
    page = http.get("/cards/search", params={"q": "t:creature"}).json()
    assert page["object"] == "list" and page["total_cards"] > 175 and page["has_more"] is True
    assert len(page["data"]) == 175 and "page=2" in page["next_page"]
    second = http.get(page["next_page"].replace(str(http.base_url).rstrip("/"), "")).json()
    assert not {c["id"] for c in second["data"]} & {c["id"] for c in page["data"]}
    expected = sample_db.search("t:creature").height
    assert page["total_cards"] == expected
    is_error(http.get("/cards/search", params={"q": "t:nosuchtypeanywhere"}), 404)
    is_error(http.get("/cards/search", params={"q": "(t:creature"}), 400)
    is_error(http.get("/cards/search", params={"q": "t:creature", "page": "x"}), 400)


# -- rules endpoints: exactly the CLI's --json ---------------------------------------------------------------


def test_rules_endpoints_equal_cli_json(http: httpx.Client, server: Server, sample_db_path: Path) -> None:
    db = sample_db_path
    assert http.get("/names/resolve", params={"q": "Foudre"}).json() == cli_json(db, "resolve", "Foudre")
    assert http.get("/names/resolve", params={"q": "Lightnig Bolt", "fuzzy": "true"}).json() == cli_json(
        db, "resolve", "Lightnig Bolt", "--fuzzy"
    )
    assert http.get("/names/resolve", params={"q": "Tarmogoyff", "suggest": "0"}).json() == cli_json(
        db, "resolve", "Tarmogoyff", "--suggest", "0"
    )
    assert http.get("/tokens/Blood").json() == cli_json(db, "token", "Blood")
    assert http.get("/tokens/Blood").json() == cli_json(db, "token", "Blood")  # the kept answer is the same
    assert http.get("/tokens/Marit Lage").json() == cli_json(db, "token", "Marit Lage")
    assert http.get("/choose-name", params={"name": "Fire // Ice", "constraint": "nonland"}).json() == cli_json(
        db, "choose-name", "Fire // Ice", "--constraint", "nonland"
    )
    assert http.get("/choose-name", params={"name": "Stomp", "card": "Meddling Mage"}).json() == cli_json(
        db, "choose-name", "Stomp", "--card", "Meddling Mage"
    )
    listed = http.get("/choose-name/list", params={"constraint": "artifact"}).json()
    assert listed == cli_json(db, "choose-name", "--list", "--constraint", "artifact") and listed
    assert http.get("/choose-name/list", params={"constraint": "artifact"}).json() == listed
    from_card = http.get("/choose-name/list", params={"card": "Meddling Mage"}).json()
    assert from_card == cli_json(db, "choose-name", "--list", "--card", "Meddling Mage") and from_card


# names whose Oracle text names themselves or other cards (CR 201.5): a meld pair naming each other, a card another
# names twice, a token name, a shortened name (201.5c) holding "//", a face of a two-face card
REFS_NAMES = ("Graf Rats", "Flame Burst", "Verix Bladewing", "SP//dr, Piloted by Peni", "Stomp")


def test_names_references_equal_cli_json(http: httpx.Client, sample_db_path: Path) -> None:
    answers = {}
    for name in REFS_NAMES:
        answer = http.get("/names/references", params={"name": name})
        assert answer.status_code == 200, answer.text
        assert answer.json() == cli_json(sample_db_path, "refs", name)
        answers[name] = answer.json()
    # CR 712.4a: each meld card's text names the other; the answer holds both directions
    rats = answers["Graf Rats"]
    assert [r["target_name"] for r in rats["own_text"] if r["kind"] == "named"] == [
        "Midnight Scavengers",
        "Chittering Host",
    ]
    assert [r["card_name"] for r in rats["named_by"]] == ["Midnight Scavengers"]
    assert [r["card_name"] for r in answers["Flame Burst"]["named_by"]] == ["Pardic Firecat"] * 2
    assert [r["text"] for r in answers["SP//dr, Piloted by Peni"]["own_text"] if r["kind"] == "self_short"] == [
        "SP//dr"
    ]
    assert answers["Stomp"]["name"] == "Bonecrusher Giant // Stomp"


def test_names_references_errors(http: httpx.Client, sample_db_path: Path) -> None:
    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main

    for params in ({}, {"name": "  "}):
        body = is_error(http.get("/names/references", params=params), 400, "bad_request")
        assert body["details"] == "name is missing; give it as a non-empty value."
    # a name that names no card: the 404 says what `refs` says when it exits 1
    refs = CliRunner().invoke(main, ["refs", "Tarmogoyff", "--db", str(sample_db_path), "--json"])
    assert refs.exit_code == 1 and refs.stdout == ""
    miss = is_error(http.get("/names/references", params={"name": "Tarmogoyff"}), 404, "not_found")
    assert f"error: {miss['details']}\n" == refs.stderr
    assert "Did you mean 'Tarmogoyf'?" in miss["details"] and "type" not in miss
    # a name several cards have (Spanish printed names of two cards, CR 201.2): never one of them, the 404 is
    # Scryfall's "ambiguous" one
    several = is_error(http.get("/names/references", params={"name": "vinculo vital"}), 404, "not_found")
    assert several["type"] == "ambiguous" and "Lifelink" in several["details"] and "Creature Bond" in several["details"]
    unknown = is_error(http.get("/names/references", params={"name": "Graf Rats", "q": "Graf Rats"}), 400)
    assert unknown["details"] == "unknown parameter 'q' for /names/references; this endpoint takes: name."
    is_error(http.get("/names/references", params={"name": "x" * 1001}), 400)
    is_error(http.post("/names/references", params={"name": "Graf Rats"}), 405)


def test_batch_resolve_equals_cli(http: httpx.Client, sample_db_path: Path, tmp_path: Path) -> None:
    names = ["Fire/Ice", "Foudre", "Tarmogoyff", "Stomp"]
    batch = tmp_path / "names.txt"
    batch.write_text("\n".join(names) + "\n")
    assert http.post("/names/resolve", json=names).json() == cli_json(sample_db_path, "resolve", "--batch", str(batch))
    assert http.post("/names/resolve", params={"suggest": "2"}, json=names).json() == cli_json(
        sample_db_path, "resolve", "--batch", str(batch), "--suggest", "2"
    )
    is_error(http.post("/names/resolve", json={"q": "x"}), 400)
    is_error(http.post("/names/resolve", json=[1, 2]), 400)


def test_deck_check_equals_cli(http: httpx.Client, sample_db_path: Path, sample_db: OracleDB, tmp_path: Path) -> None:
    for deck, fmt in (("rationelis_precon_quick_draw.txt", "commander"), ("22901_modern_aml.json", "modern")):
        path = DECKS / deck
        answer = http.post("/decks/check", params={"format": fmt}, content=path.read_bytes()).json()
        expected = cli_json(sample_db_path, "deck", "check", str(path), "--format", fmt)

        def without_source(report: Any) -> list[dict[str, Any]]:
            return [
                {k: v for k, v in r.items() if k != "source"}
                for r in (report if isinstance(report, list) else [report])
            ]

        assert without_source(answer) == without_source(expected)
        assert all(r["source"] == "request body" for r in (answer if isinstance(answer, list) else [answer]))
    # the commander given as a parameter, as --commander is given to the CLI (repeatable for partners)
    commander = sample_db.con.execute(
        "SELECT c.name FROM cards c JOIN legalities l USING (oracle_id) WHERE c.type_line LIKE 'Legendary Creature%' "
        "AND c.is_card AND l.format = 'commander' AND l.status = 'legal' ORDER BY c.name LIMIT 1"
    ).fetchall()[0][0]
    listing = tmp_path / "no-commander-section.txt"
    listing.write_text("1 Lightning Bolt\n4 Lightning Bolt\n30 Mountain\n")
    answer = http.post(
        "/decks/check", params={"format": "commander", "commander": commander}, content=listing.read_bytes()
    )
    expected = cli_json(
        sample_db_path, "deck", "check", str(listing), "--format", "commander", "--commander", commander
    )
    assert {k: v for k, v in answer.json().items() if k != "source"} == {
        k: v for k, v in expected.items() if k != "source"
    }
    is_error(http.post("/decks/check", params={"format": "nosuchformat"}, content=b"4 Lightning Bolt\n"), 400)
    is_error(http.post("/decks/check", content=b"4 Lightning Bolt\n"), 400)
    is_error(http.post("/decks/check", params={"format": "modern"}, content=b""), 400)


def test_health_and_web_page_mounted(http: httpx.Client) -> None:
    health = http.get("/health").json()
    assert health["object"] == "health" and health["generation"] == 1
    page = http.get("/", params={"q": "Fire/Ice"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "Fire // Ice" in page.text


# -- malformed input: never a 500, never a traceback; the server keeps answering ------------------


def test_malformed_input(http: httpx.Client) -> None:
    is_error(http.get("/no/such/path"), 404, "not_found")
    # a parameter the endpoint does not use is ignored, as Scryfall ignores it (tests/test_clients.py)
    assert http.get("/cards/named", params={"exact": "Island", "colour": "blue"}).status_code == 200
    is_error(http.get("/names/resolve", params={"q": "x" * 1001}), 400)
    is_error(http.get("/cards/named", params={"exact": "x" * 5000}), 400)
    is_error(http.get(f"/tokens/{'y' * 1001}"), 400)
    is_error(http.get("/names/resolve", params={"q": "Island", "fuzzy": "maybe"}), 400)
    for suggest in ("-1", "51", "five", "²"):
        is_error(http.get("/names/resolve", params={"q": "Island", "suggest": suggest}), 400)
        is_error(http.post("/names/resolve", params={"suggest": suggest}, json=["Island"]), 400)
    is_error(http.get("/cards/named", params={"exact": "Island", "format": "image"}), 422)
    is_error(http.post("/decks/check", params={"format": "modern"}, content=b"4 Island\n" * 150_000), 413)
    is_error(http.post("/names/resolve", content=b"[" * 100_000, headers={"content-type": "application/json"}), 400)
    is_error(http.post("/names/resolve", content="é".encode("latin-1")), 400)
    is_error(http.delete("/cards/named"), 405)
    is_error(http.get("/choose-name", params={"name": "Island", "constraint": "nonland", "card": "Meddling Mage"}), 400)
    is_error(http.get("/choose-name", params={"name": "Island", "constraint": "blorp gleep"}), 400)
    # a body over 1 MB sent in chunks (no Content-Length) is refused while it is read
    chunks = (b"4 Island\n" * 10_000 for _ in range(20))
    is_error(http.post("/decks/check", params={"format": "modern"}, content=chunks), 413)
    is_error(http.post("/names/resolve", json=["Island", "x" * 1001]), 400)
    is_error(http.post("/cards/collection", json={"identifiers": [{"name": "x" * 1001}]}), 422)
    is_error(http.get("/tokens/Treasure", params={"fuzzy": "true"}), 400)  # rules endpoints take no extras
    is_error(http.get("/choose-name/list", params={"constraint": "nonland", "limit": "5"}), 400)
    # a page number is ASCII digits: "²" passes str.isdigit but not int() (it was a 500), "２" is no page either
    for page in ("\u00b2", "\uff12", "-1", "1.5"):
        is_error(http.get("/cards/search", params={"q": "t:creature", "page": page}), 400)
    assert http.get("/cards/named", params={"exact": "Lightning Bolt"}).status_code == 200  # still answering


def test_named_answers_repeat_exactly_with_each_requests_base_url(http: httpx.Client, server: Server) -> None:
    """A repeated /cards/named is served from the generation's cache: the same card, the same 404 (and
    "ambiguous" type), and the URIs inside name the address the client used."""
    first = http.get("/cards/named", params={"exact": "Stomp"})
    again = http.get("/cards/named", params={"exact": "Stomp"})
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    via_localhost = http.get("/cards/named", params={"exact": "Stomp"}, headers={"host": f"localhost:{server.port}"})
    card = via_localhost.json()
    assert card["id"] == first.json()["id"] and card["uri"] == f"http://localhost:{server.port}/cards/{card['id']}"
    assert first.json()["uri"] == f"{server.base}/cards/{card['id']}"
    for params in ({"exact": "Lightnin Bolt"}, {"fuzzy": "goblin"}):
        one, two = http.get("/cards/named", params=params), http.get("/cards/named", params=params)
        assert one.status_code == two.status_code == 404 and one.json() == two.json()
    assert two.json()["type"] == "ambiguous"
    # exact and fuzzy answers are kept apart: "lightnin bolt" is a 404 exactly, Lightning Bolt fuzzily
    assert http.get("/cards/named", params={"fuzzy": "Lightnin Bolt"}).json()["name"] == "Lightning Bolt"
    is_error(http.get("/cards/named", params={"exact": "Lightnin Bolt"}), 404)


def test_cors_as_scryfall(http: httpx.Client) -> None:
    """Scryfall answers with Access-Control-Allow-Origin: *, so browser clients can switch their base URL."""
    origin = {"origin": "https://deckbuilder.example"}
    r = http.get("/cards/named", params={"exact": "Lightning Bolt"}, headers=origin)
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "*"
    assert http.get("/no/such/path", headers=origin).headers["access-control-allow-origin"] == "*"
    preflight = http.options(
        "/cards/collection",
        headers={**origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type"},
    )
    assert preflight.status_code == 200 and "POST" in preflight.headers["access-control-allow-methods"]
    refused = http.options("/cards/collection", headers={**origin, "access-control-request-method": "DELETE"})
    assert refused.status_code == 400
    # Scryfall's error object, as every error (it was Starlette's plain text "Disallowed CORS method")
    assert refused.json() == {
        "object": "error",
        "code": "bad_request",
        "status": 400,
        "details": "the CORS preflight asks for its method, which this server does not allow; it allows the methods "
        "GET, OPTIONS, POST and the headers accept, accept-language, content-language, content-type.",
    }
    assert refused.headers["access-control-allow-origin"] == "*"


def test_a_server_error_is_scryfall_shaped_with_cors_and_the_server_keeps_answering(
    sample_db_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An exception no endpoint answered is a Scryfall error object (status 500) that a browser client can
    read: it carries Access-Control-Allow-Origin like every answer. The app is served by uvicorn on a free
    loopback port with one extra route that fails, since no real endpoint should ever raise."""
    from starlette.requests import Request
    from starlette.routing import Route

    from oracle_tools.interfaces.serve import create_app

    async def fails(request: Request) -> None:
        raise RuntimeError("a failure no handler expected")

    app = create_app(sample_db_path, extra_routes=[Route("/test-only/fails", fails)])
    listener, port = loopback_socket()
    with serving(app, listener), httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        origin = {"origin": "https://deckbuilder.example"}
        failed = client.get("/test-only/fails", headers=origin)
        assert failed.status_code == 500 and failed.headers["access-control-allow-origin"] == "*"
        body = failed.json()
        assert body["object"] == "error" and body["status"] == 500 and body["code"] == "internal_server_error"
        assert "RuntimeError" in body["details"] and "a failure no handler expected" not in body["details"]
        after = client.get("/cards/named", params={"exact": "Lightning Bolt"}, headers=origin)
        assert after.status_code == 200 and after.json()["name"] == "Lightning Bolt"
    # logged as one line naming the request and the exception (no traceback unless asked for)
    assert any("GET /test-only/fails: RuntimeError" in r.getMessage() for r in caplog.records)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="127.0.0.2 reaches the loopback only on Linux")
def test_binds_only_127_0_0_1_by_default(server: Server) -> None:
    """No --host given: the socket is bound to 127.0.0.1, so even another loopback address is refused
    (a server bound to every interface would accept 127.0.0.2)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=5):
        pass
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.2", server.port), timeout=5):
        pass


def test_database_file_is_only_read(http: httpx.Client, server: Server, sample_db_path: Path) -> None:
    """The server opens the file read-only: after lookups, searches, deck checks and page views the file is
    byte for byte the one copied in, and nothing (no WAL, no temp file) was written beside it."""
    http.get("/cards/named", params={"fuzzy": "lightnig bolt"})
    http.post("/decks/check", params={"format": "modern"}, content=b"4 Lightning Bolt\n56 Mountain\n")
    http.get("/", params={"q": "Treasure"})
    if hasattr(OracleDB, "search"):
        http.get("/cards/search", params={"q": "t:creature"})
    assert server.db.read_bytes() == sample_db_path.read_bytes()
    assert sorted(p.name for p in server.db.parent.iterdir()) == [server.db.name]


def test_concurrent_clients(server: Server) -> None:
    """16 threads x 200 requests of mixed kinds; every answer is checked."""
    expected = {
        "/cards/named?exact=Lightning%20Bolt": ("name", "Lightning Bolt"),
        "/cards/named?fuzzy=fire%20ice": ("name", "Fire // Ice"),
        "/names/resolve?q=Foudre": ("name", "Lightning Bolt"),
        "/tokens/Blood": ("kind", "predefined"),
        "/cards/autocomplete?q=bonecrusher": ("data", ["Bonecrusher Giant // Stomp"]),
        "/cards/named?exact=Stomp": ("name", "Bonecrusher Giant // Stomp"),
        "/choose-name?name=Stomp&constraint=nonland": ("valid", True),
    }
    if hasattr(OracleDB, "search"):
        expected["/cards/search?q=t%3Agoblin"] = ("object", "list")
    urls = list(expected)
    failures: list[str] = []

    def client(n: int) -> None:
        # the standard library's client, one kept-alive connection per thread: what is tested is the server
        # under 16 clients at once, and httpx's own work per request was most of this test's CPU
        c = HTTPConnection("127.0.0.1", server.port, timeout=60)
        try:
            for i in range(200):
                url = urls[(n + i) % len(urls)]
                c.request("GET", url)
                r = c.getresponse()
                body = r.read()
                key, value = expected[url]
                if r.status != 200 or json.loads(body).get(key) != value:
                    failures.append(f"{url}: {r.status} {body[:200]!r}")
        except Exception as exc:  # a thread's error is a failure of the test, not a warning
            failures.append(f"client {n}: {exc!r}")
        finally:
            c.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_a_name_several_oracle_cards_print_alike_finds_one_card(tmp_path: Path) -> None:
    """Unstable prints six Very Cryptic Commands, six Oracle ids under one name (CR 201.2: the same name).
    ``resolve`` calls the name ambiguous (the rules answer); /cards/named and the collection's name
    identifier answer one card, as Scryfall's exact lookups do: the first by collector number (49a).
    Fixture: the real card objects from the 2019 Scryfall dump (tests/fixtures/same_name_unstable.json)."""
    from starlette.testclient import TestClient

    from oracle_tools.interfaces.serve import create_app

    db = tmp_path / "unstable.duckdb"
    OracleDB.ingest_files(db, [ROOT / "tests" / "fixtures" / "same_name_unstable.json"]).close()
    # the app in this process (what is asked is its answers, not the process; an exception fails the test)
    with TestClient(create_app(db, warm=False), base_url="http://127.0.0.1:8765") as http:
        assert http.get("/names/resolve", params={"q": "Very Cryptic Command"}).json()["status"] == "ambiguous"
        for params in ({"exact": "Very Cryptic Command"}, {"fuzzy": "very cryptic"}, {"exact": "very cryptic command"}):
            card = http.get("/cards/named", params=params).json()
            assert (card["name"], card["set"], card["collector_number"]) == ("Very Cryptic Command", "ust", "49a")
        found = http.post(
            "/cards/collection", json={"identifiers": [{"name": "Very Cryptic Command"}, {"name": "Lightning Bolt"}]}
        ).json()
        assert [c["collector_number"] for c in found["data"]] == ["49a", "149"] and found["not_found"] == []
        is_error(http.get("/cards/named", params={"exact": "Very Cryptic Command", "set": "m11"}), 404)
        # "i" is inside both names but starts no word of either: Scryfall's word rule matches nothing
        assert "type" not in is_error(http.get("/cards/named", params={"fuzzy": "i"}), 404)


# -- re-ingest while serving -------------------------------------------------------------------------


def test_reingest_swap_is_picked_up_without_failing_requests(sample_db_path: Path, tmp_path: Path) -> None:
    """ingest writes a new file and renames it over the old one; the next request reads the new one,
    requests in flight during the swap all succeed; SIGHUP reopens too."""
    from oracle_tools.ingest import sample_dir

    served = tmp_path / "served.duckdb"
    shutil.copy(sample_db_path, served)
    smaller = tmp_path / "smaller.duckdb"
    OracleDB.ingest_files(smaller, [sample_dir() / "cards-2025-trimmed.json.gz"]).close()
    with OracleDB(smaller) as new:
        kept = {n for (n,) in new.con.execute("SELECT name FROM cards WHERE is_card").fetchall()}
    assert "Lightning Bolt" not in kept  # a card only the old database has
    srv = Server(served)
    try:
        assert srv.client.get("/cards/named", params={"exact": "Lightning Bolt"}).status_code == 200
        assert srv.client.get("/names/resolve", params={"q": "Lightning Bolt"}).json()["status"] == "ok"  # now kept
        if hasattr(OracleDB, "search"):  # a search opens this thread's user cursor: the swap must close it too
            assert srv.client.get("/cards/search", params={"q": "Lightning Bolt"}).status_code == 200
        assert srv.client.get("/", params={"q": "Lightning Bolt"}).status_code == 200  # the page's cursor too
        stop = threading.Event()
        bad: list[str] = []
        answered = [0] * 4  # each thread's answers so far

        def hammer(index: int) -> None:
            with httpx.Client(base_url=srv.base, timeout=60) as c:
                while not stop.is_set():
                    r = c.get("/cards/autocomplete", params={"q": "an"})
                    if r.status_code != 200 or r.json()["object"] != "catalog":
                        bad.append(r.text[:200])
                    answered[index] += 1

        def each_answered(more_than: list[int]) -> None:
            """Until every thread has had answers past ``more_than`` (theirs), however slow the machine."""
            deadline = time.monotonic() + 120
            while any(now <= then for now, then in zip(answered, more_than, strict=True)):
                assert time.monotonic() < deadline and not bad, bad
                time.sleep(0.01)

        threads = [threading.Thread(target=hammer, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        each_answered([0] * 4)  # all four are asking
        staged = tmp_path / "staged.duckdb"
        shutil.copy(smaller, staged)
        swapped = list(answered)
        os.replace(staged, served)  # what ingest does: an atomic rename over the served file
        each_answered([n + 2 for n in swapped])  # and each has asked again across the swap and after it
        stop.set()
        for t in threads:
            t.join()
        assert bad == []
        is_error(srv.client.get("/cards/named", params={"exact": "Lightning Bolt"}), 404)
        assert srv.client.get("/health").json()["generation"] == 2
        # the answers kept for the old file went with it
        assert srv.client.get("/names/resolve", params={"q": "Lightning Bolt"}).json()["status"] == "not_found"
        if hasattr(OracleDB, "search"):
            is_error(srv.client.get("/cards/search", params={"q": '!"Lightning Bolt"'}), 404)
        one_new = min(kept)
        assert srv.client.get("/cards/named", params={"exact": one_new}).json()["name"] == one_new
        srv.proc.send_signal(signal.SIGHUP)  # forces a reopen; the server keeps answering
        assert srv.client.get("/cards/named", params={"exact": one_new}).status_code == 200
        deadline = time.monotonic() + 60  # the signal reaches the event loop asynchronously (60: a guard)
        while srv.client.get("/health").json()["generation"] != 3:
            assert time.monotonic() < deadline, "SIGHUP did not reopen the database"
            time.sleep(0.05)
    finally:
        err = srv.stop()
    assert "Traceback" not in err, err


def test_the_test_servers_ports_are_never_free_for_another_process_to_take(sample_db_path: Path) -> None:
    """The suite's servers (tests/oracle_server.py) hold their port from the moment it is chosen: the in-process
    server's socket is bound before it is handed on, and the child ``serve`` binds port 0 and names the port it got.
    (A port found free, closed and handed on could be taken by another xdist worker before the server bound it.)"""
    import errno

    from oracle_tools.interfaces.serve.app import create_app

    listener, port = loopback_socket()
    try:
        with socket.socket() as other, pytest.raises(OSError, match="in use") as taken:
            other.bind(("127.0.0.1", port))
        assert taken.value.errno == errno.EADDRINUSE
        with serving(create_app(sample_db_path, warm=False), listener):
            assert httpx.get(f"http://127.0.0.1:{port}/health", timeout=60).status_code == 200
    finally:
        listener.close()
    srv = Server(sample_db_path, "--no-warm")
    try:
        assert srv.client.get("/health").status_code == 200
        with socket.socket() as other, pytest.raises(OSError, match="in use") as taken:
            other.bind(("127.0.0.1", srv.port))
        assert taken.value.errno == errno.EADDRINUSE
    finally:
        err = srv.stop()
    assert f"serving http://127.0.0.1:{srv.port}/ from " in err


def test_missing_database_is_one_line(tmp_path: Path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "oracle_tools.interfaces.cli",
            "serve",
            "--db",
            str(tmp_path / "none.duckdb"),
            "--port",
            "0",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and out.stderr.startswith("error: no database at") and "Traceback" not in out.stderr


@pytest.mark.parametrize("taken", [False, True])
def test_unusable_address_is_one_line_before_serving(sample_db_path: Path, taken: bool) -> None:
    """A port in use, or a host that does not resolve, is refused before uvicorn starts (no traceback, no banner)."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        host = "127.0.0.1" if taken else "no-such-host.invalid"
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "oracle_tools.interfaces.cli",
                "serve",
                "--db",
                str(sample_db_path),
                "--host",
                host,
                "--port",
                str(port),
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert out.returncode == 2 and "Traceback" not in out.stderr and "serving" not in out.stderr
    assert out.stderr.startswith(f"error: cannot serve on {'127.0.0.1:' if taken else 'host'}")


def test_port_0_prints_the_port_bound_and_serves_there(sample_db_path: Path) -> None:
    """`serve --port 0` lets the system choose a free port; the line a user reads names the port bound (never
    ":0"), and the server answers there."""
    import re

    proc = subprocess.Popen(
        [sys.executable, "-m", "oracle_tools.interfaces.cli", "serve", "--db", str(sample_db_path), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # printed once the socket is bound
        found = re.match(r"serving (http://127\.0\.0\.1:(\d+)/) from ", line)
        assert found and int(found[2]) > 0, line
        deadline = time.monotonic() + 60
        while True:
            try:
                named = httpx.get(f"{found[1]}cards/named", params={"exact": "Lightning Bolt"}, timeout=30)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.1)
        assert named.status_code == 200 and named.json()["name"] == "Lightning Bolt"
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "Traceback" not in err


def test_no_warm_builds_nothing_at_open_and_answers_on_first_use(sample_db_path: Path) -> None:
    """`serve --no-warm`: no background build of every card object, name index and deck rules at open (a lighter
    server for a few lookups); each answer builds what it needs, the same answer as a warm server's."""
    from click.testing import CliRunner
    from starlette.testclient import TestClient

    from oracle_tools.interfaces.cli import main
    from oracle_tools.interfaces.serve import create_app

    answers: dict[bool, Any] = {}
    for warm in (False, True):
        app = create_app(sample_db_path, warm=warm)
        generation = app.state.store.generation
        assert (generation.warm_thread is None) is not warm
        with TestClient(app) as client:
            if warm:
                generation.warm_thread.join(timeout=60)
            else:
                assert len(generation.card_json) == 0 and generation.owner._name_index is None
            named = client.get("/cards/named", params={"fuzzy": "fire ice"})
            assert named.status_code == 200
            answers[warm] = named.json()
            assert client.get("/health").json()["warm"] is warm
    assert answers[False] == answers[True]
    assert "--no-warm" in CliRunner().invoke(main, ["serve", "--help"]).output


# -- a damaged database file ------------------------------------------------------------------------------

#: An address (method, path, body) for each route of the API that is no route of the table of answers (whose rows
#: give theirs), the pages and the web page, by the route's pattern: a route added without one fails the test below.
_DAMAGED_ASKS: dict[str, tuple[str, str, bytes | None]] = {
    "/cards/named": ("GET", "/cards/named?exact=Lightning%20Bolt", None),
    "/cards/autocomplete": ("GET", "/cards/autocomplete?q=goblin", None),
    "/cards/collection": ("POST", "/cards/collection", b'{"identifiers":[{"name":"Lightning Bolt"}]}'),
    "/cards/random": ("GET", "/cards/random", None),
    "/cards/multiverse/{value}/rulings": ("GET", "/cards/multiverse/452924/rulings", None),
    "/cards/multiverse/{value}": ("GET", "/cards/multiverse/452924", None),
    "/cards/mtgo/{value}/rulings": ("GET", "/cards/mtgo/69721/rulings", None),
    "/cards/mtgo/{value}": ("GET", "/cards/mtgo/69721", None),
    "/cards/arena/{value}/rulings": ("GET", "/cards/arena/68635/rulings", None),
    "/cards/arena/{value}": ("GET", "/cards/arena/68635", None),
    "/cards/tcgplayer/{value}/rulings": ("GET", "/cards/tcgplayer/175583/rulings", None),
    "/cards/tcgplayer/{value}": ("GET", "/cards/tcgplayer/175583", None),
    "/cards/cardmarket/{value}/rulings": ("GET", "/cards/cardmarket/1/rulings", None),
    "/cards/cardmarket/{value}": ("GET", "/cards/cardmarket/1", None),
    "/cards/{id}/rulings": ("GET", "/cards/0ae987da-e4b5-4b82-843c-6aaa87262fc8/rulings", None),
    "/cards/{set}/{number}/rulings": ("GET", "/cards/grn/174/rulings", None),
    "/cards/{set}/{number}/{lang}": ("GET", "/cards/grn/174/en", None),
    "/cards/{set}/{number}": ("GET", "/cards/grn/174", None),
    "/cards/{id}": ("GET", "/cards/0ae987da-e4b5-4b82-843c-6aaa87262fc8", None),
    "/migrations": ("GET", "/migrations", None),
    "/sets/tcgplayer/{id}": ("GET", "/sets/tcgplayer/1", None),
    "/bulk-data": ("GET", "/bulk-data", None),
    "/bulk-data/{which}": ("GET", "/bulk-data/oracle-cards", None),
    "/bulk-data/{which}/download": ("GET", "/bulk-data/oracle-cards/download", None),
    "/bulk-data/{which}/download.jsonl.gz": ("GET", "/bulk-data/oracle-cards/download.jsonl.gz", None),
    "/health": ("GET", "/health", None),
    "/favicon.ico": ("GET", "/favicon.ico", None),
    "/static/{name}": ("GET", "/static/web.css", None),
    "/search": ("GET", "/search?q=t%3Agoblin", None),
    "/card": ("GET", "/card?name=Lightning%20Bolt", None),
    "/card/{set}/{number}/{lang}": ("GET", "/card/grn/174/en", None),
    "/card/{set}/{number}": ("GET", "/card/grn/174", None),
    "/card/{oracle_id}": ("GET", "/card/81f06f84-1580-43c0-89d5-08d34541a519", None),
    "/token": ("GET", "/token?name=Goblin", None),
    "/token/{name:path}": ("GET", "/token/Goblin", None),
    "/deck": ("POST", "/deck", b"deck=4+Lightning+Bolt%0A56+Mountain&format=modern"),
    "/images": ("GET", "/images", None),
    "/": ("POST", "/", b"q=Lightning+Bolt"),
}


def test_a_damaged_database_is_one_503_on_every_route(
    sample_db_path: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, cut_short: Callable[..., re.Pattern[str]]
) -> None:
    """A database file cut short (a copy that stopped) was answered 500 "the server could not answer this request
    (IOException)" on most routes, with a line logged for each. Every route now answers the one line the CLI says
    (the file is damaged, how to rebuild it) as Scryfall's error object, 503 as a missing database. The server has
    answered every route from the whole file first, and kept what it read (its caches, its open connections): it
    notices the file changed in place (its size, its mtime) and reads it again, so no answer comes from what it
    kept. Nothing is logged as an error; the server keeps answering."""
    import logging

    from oracle_tools.interfaces.answers import ANSWERS
    from oracle_tools.interfaces.serve import create_app
    from oracle_tools.interfaces.serve.app import api_routes
    from oracle_tools.interfaces.serve.pages import routes as page_routes
    from oracle_tools.interfaces.serve.web import routes as web_routes

    asks = [
        (route.path, (method, route.example, route.body))
        for row in ANSWERS
        for route in row.routes
        for method in route.methods
    ]  # each route of the table of answers, by each of its methods
    asks += list(_DAMAGED_ASKS.items())
    assert {getattr(r, "path", "") for r in [*api_routes(), *page_routes, *web_routes]} == {path for path, _ in asks}
    served = tmp_path / "cut.duckdb"
    shutil.copy(sample_db_path, served)
    app = create_app(served, warm=False)
    listener, port = loopback_socket()
    caplog.set_level(logging.WARNING)
    with serving(app, listener), httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:

        def ask(method: str, path: str, body: bytes | None) -> httpx.Response:
            kind = "application/x-www-form-urlencoded" if path in ("/", "/deck") else "application/json"
            return client.request(method, path, content=body, headers={"content-type": kind} if body else {})

        for route, (method, path, body) in asks:  # the whole file: every route answers
            assert ask(method, path, body).status_code < 500, route
        line = cut_short(served)
        for route, (method, path, body) in asks:
            answer = ask(method, path, body)
            assert line.fullmatch(is_error(answer, 503, "service_unavailable")["details"]), (route, answer.text[:300])
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], caplog.text


# -- at rest -----------------------------------------------------------------------------------------------


def test_at_rest_nothing_wakes_the_server_and_a_stop_still_does(sample_db_path: Path) -> None:
    """uvicorn's Server woke ten times a second to look at its stop flag and put the second into the Date header:
    0.17% of a core at rest (bench/bench_idle.py measures it). The server `serve` runs has no timer left once its
    connections are gone; setting the stop flag from another thread (as the signal handler sets it) still stops it
    at once, and each answer's Date is the second it was given in."""
    import asyncio
    from email.utils import parsedate_to_datetime

    from starlette.requests import Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from oracle_tools.interfaces.serve import create_app
    from oracle_tools.interfaces.serve.connection_limits import uvicorn_options

    loops: list[asyncio.AbstractEventLoop] = []

    async def note_loop(request: Request) -> PlainTextResponse:
        loops.append(asyncio.get_running_loop())
        return PlainTextResponse("noted")

    app = create_app(sample_db_path, warm=False, extra_routes=[Route("/test-only/loop", note_loop)])
    listener, port = loopback_socket()
    with serving(app, listener, **uvicorn_options(), loop="asyncio") as server:  # stopped by should_exit when it ends
        deadline = time.monotonic() + 30
        dates = []
        for _ in range(2):
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
                asked = int(time.time())  # the Date header's whole second
                answer = client.get("/test-only/loop")
                answered = time.time()
                assert answer.status_code == 200
                dates.append(parsedate_to_datetime(answer.headers["date"]))
                assert asked <= dates[-1].timestamp() <= answered  # the clock's when it answered, not the start's
            time.sleep(1.1)  # into another second
        assert dates[0] < dates[1]
        while server.server_state.connections:  # the client has closed: its keep-alive timer goes with it
            assert time.monotonic() < deadline + 30
            time.sleep(0.05)

        async def timers() -> list[asyncio.TimerHandle]:
            return [handle for handle in loops[0]._scheduled if not handle.cancelled()]  # type: ignore[attr-defined]

        assert asyncio.run_coroutine_threadsafe(timers(), loops[0]).result(10) == []


def test_autocomplete_finds_in_one_text_what_a_scan_found_and_keeps_its_answers(
    sample_db_path: Path, http: httpx.Client
) -> None:
    """Autocomplete scanned every name in Python on each keystroke (~30 ms on the real data): the names are now
    found by str.find in one text of every normalized name, in name order — the same names a scan finds, for
    every two- and three-letter start and inner piece of the sample's names — and each answer is kept per
    database generation."""
    from oracle_tools.interfaces.serve import scryfall_routes as routes
    from oracle_tools.interfaces.serve.generations import Generation
    from oracle_tools.scryfall import lookups
    from oracle_tools.text.matching import normalize

    generation = Generation(sample_db_path, 1)
    try:
        entries = [(normalize(n), n) for n in lookups.card_names(generation.cursor())]

        def scanned(key: str) -> list[str]:
            if len(key) < 2:
                return []
            names = [name for norm, name in entries if norm.startswith(key)][:20]
            seen = set(names)
            return names + [n for norm, n in entries if key in norm and n not in seen][: 20 - len(names)]

        keys = {norm[i : i + k] for norm, _ in entries[::7] for k in (2, 3, 6) for i in (0, 1, 4)} | {"zzqx", "a"}
        for key in sorted(keys):
            assert routes.autocomplete(generation, key) == scanned(key), key
    finally:
        generation.close()
    first = http.get("/cards/autocomplete", params={"q": "Bonecrusher"}).json()
    assert first["data"] == ["Bonecrusher Giant // Stomp"]
    assert http.get("/cards/autocomplete", params={"q": "bonecrusher "}).json() == first  # the kept answer
