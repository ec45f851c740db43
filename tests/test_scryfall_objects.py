"""Each printing's whole Scryfall object, kept at ingest and answered field for field (oracle_tools/store/scryfall_objects.py,
oracle_tools/scryfall/cardjson.py), and the endpoints built beside it: /sets, /symbology, /symbology/parse-mana, /bulk-data."""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from oracle_tools import OracleDB
from oracle_tools.ingest import sample_dir
from oracle_tools.scryfall.cardjson import ALWAYS_PRESENT, card_objects, derive_keywords, keyword_vocabulary
from oracle_tools.scryfall.sets import shipped_set

from oracle_server import Server

#: Fields Scryfall's card-object docs list without "Nullable" (present on every card object today).
#: oracle_id is left out (reversible cards have it per face); so are cmc/type_line for the same reason.
DOCUMENTED_ALWAYS = (
    "object id lang layout prints_search_uri rulings_uri scryfall_uri uri color_identity keywords legalities name "
    "reserved booster border_color card_back_id collector_number digital finishes frame full_art games "
    "highres_image image_status oversized prices promo rarity related_uris released_at reprint scryfall_set_uri "
    "set_name set_search_uri set_type set_uri set set_id story_spotlight textless variation"
).split()


def _objects(path: Path) -> dict[str, dict[str, Any]]:
    with gzip.open(path) as f:
        return {c["id"]: c for c in json.load(f)}


def _object_lines(path: Path, keep: Callable[[str], bool] = lambda line: True) -> Iterator[str]:
    """Each object's JSON text, as the real files write it: one object a line. A test that reads a share of
    the 2019 dump parses only that share (the whole dump as Python objects is ~700 MB, the suite's peak)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            line = line.strip().rstrip(",")
            if line.startswith("{") and keep(line):
                yield line


@pytest.mark.realdata
def test_kept_object_is_the_one_the_file_gave(realdata: Path, db_2024_path: Path) -> None:
    """The real 2024 objects come back exactly as sent; with a base URL only the API links change."""
    raw = _objects(realdata / "scryfall-search-2024-mh3-otj-fdn.json.gz")
    with OracleDB(db_2024_path) as db:
        plain = card_objects(db.con, ids=list(raw))
        linked = card_objects(db.con, ids=list(raw), base_url="http://127.0.0.1:9")
        size = db.con.execute("SELECT sum(octet_length(object)) FROM scryfall_objects").fetchall()[0][0]
    assert [c["id"] for c in plain] == list(raw) and all(c == raw[c["id"]] for c in plain)
    for card in linked:
        sent = json.dumps(raw[card["id"]]).replace('"https://api.scryfall.com/', '"http://127.0.0.1:9/')
        assert json.dumps(card) == sent
        assert card["set_uri"] == f"http://127.0.0.1:9/sets/{card['set_id']}"
    text = sum(len(json.dumps(c).encode()) for c in raw.values())
    assert size < text / 4  # kept compactly (the dictionary-trained zstandard frames)


def test_a_printing_in_two_files_keeps_the_later_files_object(tmp_path: Path) -> None:
    """As the typed columns do: the later file wins, and each printing is kept once."""
    objects = list(_objects(sample_dir() / "cards-2024.json.gz").values())
    first, later = tmp_path / "first.json", tmp_path / "later.json"
    first.write_text(json.dumps(objects), encoding="utf-8")
    changed = [dict(o, flavor_text="printed again") for o in objects[:5]]
    later.write_text(json.dumps(changed), encoding="utf-8")
    with OracleDB.ingest_files(tmp_path / "two.duckdb", [first, later]) as db:
        kept = {c["id"]: c for c in card_objects(db.con, ids=[o["id"] for o in objects])}
        assert db.con.execute("SELECT count(*) FROM scryfall_objects").fetchall()[0][0] == len(objects)
    # every field the file gave, as it gave it (the sample's objects are trimmed: the rest is completed)
    assert [{k: kept[o["id"]][k] for k in o} for o in changed] == changed
    assert [{k: kept[o["id"]][k] for k in o} for o in objects[5:]] == objects[5:]


@pytest.mark.realdata
def test_newer_fields_derived_by_the_documented_rules(full_db: OracleDB, realdata: Path) -> None:
    """The 2019 dump predates finishes, image_status and set_id: each is derived from the older field Scryfall
    documents it by. It also predates keywords, so its objects are completed from the tables — which add only
    Oracle facts a newer file of the database gave (the 2024 objects' produced_mana, keywords); every field the
    file gave is answered as it was."""
    dump = realdata / "scryfall-default-cards-2019-10-per-set-dump.json.gz"

    def id_of(line: str) -> str:
        return line.split('"id":"', 1)[1][:36]  # the id follows "object"

    # every ninth printing: ~5,000 objects of every layout the dump has; the file is read twice rather than kept
    # whole (its lines are ~130 MB of text)
    ids = sorted(id_of(line) for line in _object_lines(dump))[::9]
    chosen = set(ids)
    raw = {i: json.loads(line) for line in _object_lines(dump) if (i := id_of(line)) in chosen}
    assert len(ids) > 5_000 and all(raw[i]["id"] == i for i in ids)
    derived = {"finishes", "image_status", "set_id"}
    # what the dump predates and Scryfall documents a default or a rule for (docs/serve.md, "Whole card objects")
    completed = derived | {"keywords", "booster", "textless", "variation", "prices", "set_type"}
    cards = (
        card for start in range(0, len(ids), 1000) for card in card_objects(full_db.con, ids=ids[start : start + 1000])
    )
    for card in cards:
        sent = raw[card["id"]]
        assert {k: card[k] for k in sent} == sent, sent["name"]
        assert derived <= card.keys() - sent.keys() <= completed | {"produced_mana"}, sent["name"]
        assert {"keywords", "booster", "textless", "variation", "prices"} <= card.keys(), sent["name"]
        assert all(card[k] is False for k in ("booster", "textless", "variation") if k not in sent)
        if "prices" not in sent:
            assert card["prices"] == dict.fromkeys(("usd", "usd_foil", "usd_etched", "eur", "eur_foil", "tix"))
        assert card["finishes"] == [f for f in ("nonfoil", "foil") if sent[f]]
        assert card["image_status"] == ("highres_scan" if sent["highres_image"] else "lowres")
        assert sent["set_uri"].endswith("/" + card["set_id"])


def test_trimmed_objects_are_completed_from_the_tables(sample_db: OracleDB) -> None:
    """The sample's objects lack Scryfall's links: the tables add them (and what else every object has);
    the fields the file gave are kept as they were."""
    with gzip.open(sample_dir() / "cards-2019.json.gz") as f:
        raw = {c["id"]: c for c in json.load(f)}
    ids = sorted(raw)[:300]
    for card in card_objects(sample_db.con, ids=ids, base_url="http://h"):
        sent = json.loads(json.dumps(raw[card["id"]]).replace('"https://api.scryfall.com/', '"http://h/'))
        assert ALWAYS_PRESENT <= card.keys()
        assert card["uri"] == f"http://h/cards/{card['id']}"
        assert all(card[k] == v for k, v in sent.items()), sent["name"]
        assert isinstance(card["keywords"], list) and isinstance(card.get("rarity", ""), str)


def test_an_ingest_of_rulings_alone_keeps_the_objects(sample_db_path: Path, tmp_path: Path) -> None:
    import shutil

    db_path = tmp_path / "copy.duckdb"
    shutil.copy(sample_db_path, db_path)
    with OracleDB(db_path) as db:
        before = db.con.execute("SELECT count(*), sum(octet_length(object)) FROM scryfall_objects").fetchall()
    OracleDB.ingest_files(db_path, [sample_dir() / "rulings.json.gz"]).close()
    with OracleDB(db_path) as db:
        after = db.con.execute("SELECT count(*), sum(octet_length(object)) FROM scryfall_objects").fetchall()
        (pid,) = db.con.execute("SELECT id FROM printings WHERE name = 'Fire // Ice' LIMIT 1").fetchall()[0]
        assert card_objects(db.con, ids=[pid])[0]["frame"]  # a field only the kept object has
    assert after == before and before[0][0] > 10_000


@pytest.mark.realdata
def test_every_layout_answers_every_field_scryfall_always_sends(full_db: OracleDB, full_server: Server) -> None:
    """A sample of every layout of every real file (the foreign printings too), through the API: each holds every
    field Scryfall documents as always present — derived or defaulted where the file predates it (docs/serve.md);
    only card_back_id (no rule gives it) and a set_type no file or set table knows may be absent."""
    con = full_db.con
    rows = con.execute(
        "SELECT layout, id, source_file FROM printings "
        "QUALIFY row_number() OVER (PARTITION BY layout, source_file ORDER BY id) <= 3"
    ).fetchall()
    layouts = {layout for layout, _, _ in rows}
    assert {"normal", "split", "flip", "transform", "modal_dfc", "meld", "adventure", "saga", "token"} <= layouts
    for layout, pid, source in rows:
        card = full_server.client.get(f"/cards/{pid}").json()
        missing = [k for k in DOCUMENTED_ALWAYS if k not in card]
        unknown_set_type = not (shipped_set(card["set"]) or {}).get("set_type")
        assert set(missing) <= {"card_back_id"} | ({"set_type"} if unknown_set_type else set()), (
            layout,
            card["name"],
            missing,
        )
        assert all(card[k] is not None for k in DOCUMENTED_ALWAYS if k in card and k != "prices")
        assert all(f["object"] == "card_face" and isinstance(f["mana_cost"], str) for f in card.get("card_faces", []))
        if source.endswith("2024-mh3-otj-fdn.json.gz"):
            assert missing == [] or missing == ["card_back_id"], (layout, missing)  # reversible-style: per face


@pytest.mark.realdata
def test_sets_from_the_printings(full_server: Server, full_db: OracleDB) -> None:
    listed = full_server.client.get("/sets").json()
    assert listed["object"] == "list" and listed["has_more"] is False
    by_code = {s["code"]: s for s in listed["data"]}
    eld = by_code["eld"]
    count, set_id = full_db.con.execute(
        "SELECT count(DISTINCT collector_number), any_value(set_id) FROM printings WHERE set_code = 'eld'"
    ).fetchall()[0]
    assert eld["card_count"] == count and eld["id"] == set_id and eld["name"] == "Throne of Eldraine"
    assert eld["uri"] == f"{full_server.base}/sets/{set_id}"
    # what no card object carries, from the set table shipped in the package (MTGJSON 2022)
    assert eld["icon_svg_uri"] == "https://svgs.scryfall.io/sets/eld.svg" and eld["tcgplayer_id"] == 2494
    typed = [s for s in listed["data"] if "set_type" in s]
    assert len(typed) > 0.95 * len(listed["data"]) and all("id" in s and "uri" in s for s in listed["data"])
    assert full_server.client.get(f"/sets/{set_id}").json() == eld == full_server.client.get("/sets/ELD").json()
    dates = [s["released_at"] for s in listed["data"] if "released_at" in s]
    assert dates == sorted(dates, reverse=True)  # newest first, as Scryfall lists them
    search = full_server.client.get(eld["search_uri"]).json()  # the set's search_uri works here
    assert search["total_cards"] >= count - 5 and all(c["set"] == "eld" for c in search["data"])
    missing = full_server.client.get("/sets/zzz")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert full_server.client.get("/sets/tcgplayer/2494").json()["code"] == "eld"  # the set table's group
    assert full_server.client.get("/sets/tcgplayer/999999").status_code == 404


def test_symbology_and_parse_mana(sample_server: Server) -> None:
    srv = sample_server
    listed = srv.client.get("/symbology").json()
    symbols = {s["symbol"]: s for s in listed["data"]}
    # CR 107.4: every mana symbol the rules list is there, with its mana value (CR 202.3)
    for symbol, value in (("{W}", 1), ("{2/W}", 2), ("{W/U/P}", 1), ("{C/W}", 1), ("{X}", 0), ("{S}", 1)):
        assert symbols[symbol]["mana_value"] == value and symbols[symbol]["appears_in_mana_costs"]
    assert symbols["{T}"]["represents_mana"] is False  # CR 107.5
    assert {"{E}", "{Q}", "{TK}", "{P}"} <= symbols.keys()  # CR 107.14, 107.6, 107.17, 107.18
    parsed = srv.client.get("/symbology/parse-mana", params={"cost": "2{g}2"}).json()
    assert parsed == {
        "object": "mana_cost",
        "cost": "{4}{G}",
        "cmc": 5.0,
        "colors": ["G"],
        "colorless": False,
        "monocolored": True,
        "multicolored": False,
    }
    assert srv.client.get("/symbology/parse-mana", params={"cost": "wxu"}).json()["cost"] == "{X}{W}{U}"
    bad = srv.client.get("/symbology/parse-mana", params={"cost": "2{T}"})
    assert bad.status_code == 422 and bad.json()["details"] == (
        "{T} in '2{T}' is not a mana symbol (see /symbology for the symbols)."  # this door's list of symbols
    )
    assert srv.client.post("/symbology").status_code == 405


def test_listing_the_bulk_files_reads_kept_facts_and_builds_nothing(
    sample_db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bulk_data object reports its file's size and compressed_size. The files for the address the server is bound
    to are built in the warm-up (as Scryfall makes its files before listing them), so GET /bulk-data — a client
    asking what is there — joins and compresses nothing; the sizes are those of the file a download sends."""
    from starlette.testclient import TestClient

    from oracle_tools.interfaces.serve import bulk
    from oracle_tools.interfaces.serve.app import create_app

    app = create_app(sample_db_path, address=("127.0.0.1", 8765))
    generation = app.state.store.generation
    generation.warm_thread.join(timeout=120)
    kept = {kind: generation.peek(bulk.BULK_FILES.of(f"{kind} http://127.0.0.1:8765")) for kind in bulk.TYPES}
    assert all(kept.values()), kept.keys()

    def no_build(*args: Any) -> None:
        raise AssertionError("a metadata call built a bulk file")

    monkeypatch.setattr(bulk, "_build", no_build)
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        listed = {item["type"]: item for item in client.get("/bulk-data").json()["data"]}
        assert client.get("/bulk-data/oracle-cards").json() == listed["oracle_cards"]
        for kind, built in kept.items():
            assert built is not None
            assert (listed[kind]["size"], listed[kind]["compressed_size"]) == (built.size, len(built.compressed))
        packed = client.get("/bulk-data/oracle-cards/download", headers={"accept-encoding": "gzip"})
        assert int(packed.headers["content-length"]) == listed["oracle_cards"]["compressed_size"]
        assert len(packed.content) == listed["oracle_cards"]["size"]  # as the client decoded it


def test_bulk_data_as_scryfall_serves_it(sample_db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One bulk_data object per Scryfall type exported (oracle_cards, rulings), under both spellings of the route,
    with size and compressed_size; download_uri is this server over HTTP (no local path in any answer); the file
    streams gzip-encoded to a client that takes it and plain to one that does not, the same JSON both ways."""
    monkeypatch.setenv("ORACLE_TOOLS_BULK_WRITE_TIMEOUT", "2")
    srv = Server(sample_db_path, "--no-warm")  # the file builds the card objects: not a second time in the background
    try:
        answer = srv.client.get("/bulk-data")
        assert str(sample_db_path.parent) not in answer.text and "file:" not in answer.text
        listed = answer.json()["data"]
        assert [item["type"] for item in listed] == ["oracle_cards", "rulings"]
        export, rulings = listed
        for spelling in ("oracle_cards", "oracle-cards", export["id"]):
            assert srv.client.get(f"/bulk-data/{spelling}").json() == export
        assert export["download_uri"] == f"{srv.base}/bulk-data/oracle-cards/download"
        assert export["uri"] == f"{srv.base}/bulk-data/{export['id']}" and export["content_encoding"] == "gzip"
        packed = srv.client.get(export["download_uri"], headers={"accept-encoding": "gzip"}, timeout=120)
        assert packed.headers["content-encoding"] == "gzip" and len(packed.content) > 0
        assert int(packed.headers["content-length"]) == export["compressed_size"] < export["size"]
        plain = httpx.get(export["download_uri"], headers={"accept-encoding": "identity"}, timeout=120)
        assert "content-encoding" not in plain.headers and len(plain.content) == export["size"]
        cards = plain.json()
        assert cards == packed.json()
        for encoding, whole in (("gzip", packed), ("identity", plain)):  # a file is sent as built, in any form
            pretty = httpx.get(
                export["download_uri"] + "?pretty=true", headers={"accept-encoding": encoding}, timeout=120
            )
            assert pretty.status_code == 200 and pretty.content == whole.content, pretty.text[:200]
        with OracleDB(sample_db_path) as db:
            oracle_ids = {o for (o,) in db.con.execute("SELECT oracle_id FROM preferred_printings").fetchall()}
            ruling_count = db.con.execute("SELECT count(*) FROM rulings").fetchall()[0][0]
        assert {c["oracle_id"] for c in cards} == oracle_ids and len(cards) == len(oracle_ids)
        assert all(c["uri"] == f"{srv.base}/cards/{c['id']}" for c in cards)
        assert len(srv.client.get(rulings["download_uri"], timeout=60).json()) == ruling_count
        assert srv.client.get("/bulk-data/nothing").status_code == 404
        assert srv.client.get("/bulk-data/default_cards/download").status_code == 404
        # at most four downloads at once: a fifth is told to retry (503), and a slot frees when a reader stalls out
        stalled_readers = []
        for _ in range(4):
            reader = socket.create_connection(("127.0.0.1", srv.port))
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            reader.sendall(b"GET /bulk-data/oracle-cards/download HTTP/1.1\r\nHost: x\r\n\r\n")
            reader.recv(1024)
            stalled_readers.append(reader)
        busy = srv.client.get(export["download_uri"])
        assert busy.status_code == 503 and busy.json()["object"] == "error" and "retry" in busy.json()["details"]
        deadline = time.monotonic() + 60  # the write timeout frees a slot: waited for, not slept through
        while (freed := srv.client.get(rulings["download_uri"])).status_code == 503:
            assert time.monotonic() < deadline, "no download slot freed after the stalled readers' write timeout"
            time.sleep(0.1)
        assert freed.status_code == 200
        for reader in stalled_readers:
            reader.close()
    finally:
        srv.stop()


def test_bulk_data_has_a_json_lines_download_and_format_file(sample_db_path: Path) -> None:
    """Scryfall's bulk_data object carries ``jsonl_download_uri``: a gzip file of JSON Lines (scrython 3.1's
    download() and mtgtools read the body as gzip whatever HTTP says, so the bytes are the file, not a
    Content-Encoding) holding the objects of the JSON file, one a line, in its order. ``/bulk-data/{type}`` and
    ``/bulk-data/{id}`` with ``format=file`` answer the file (Scryfall documents json and file there)."""
    from starlette.testclient import TestClient

    from oracle_tools.interfaces.serve import bulk
    from oracle_tools.interfaces.serve.app import create_app

    with TestClient(create_app(sample_db_path, warm=False), base_url="http://127.0.0.1:8765") as client:
        listed = client.get("/bulk-data").json()["data"]
        for item in listed:
            kind = item["type"].replace("_", "-")
            assert item["jsonl_download_uri"] == f"http://127.0.0.1:8765/bulk-data/{kind}/download.jsonl.gz"
            whole = client.get(item["download_uri"], headers={"accept-encoding": "identity"}).json()
            for encoding in ("gzip", "identity"):
                lines = client.get(item["jsonl_download_uri"], headers={"accept-encoding": encoding})
                assert lines.status_code == 200 and "content-encoding" not in lines.headers
                assert lines.headers["content-type"] == "application/gzip"
                text = gzip.decompress(lines.content).decode()
                assert text.endswith("\n") and [json.loads(line) for line in text.splitlines()] == whole
            for which in (kind, item["id"]):
                file = client.get(
                    f"/bulk-data/{which}", params={"format": "file"}, headers={"accept-encoding": "identity"}
                )
                assert file.status_code == 200 and file.json() == whole, which
        assert client.get("/bulk-data/oracle-cards", params={"format": "text"}).status_code == 422
        assert client.get("/bulk-data", params={"format": "file"}).status_code == 422  # a list is JSON only
        assert client.get("/bulk-data/nothing", params={"format": "file"}).status_code == 404
        assert client.get("/bulk-data/nothing/download.jsonl.gz").status_code == 404
    # the JSON Lines are made piece by piece from the kept file, whatever the pieces' edges: none, one, many objects
    for objects in ([], [{"a": 1}], [{"a": "x,\ny"}, {"b": [1, 2]}, {"c": "]["}] * 5000):
        array = b"[" + b",\n".join(json.dumps(o, separators=(",", ":")).encode() for o in objects) + b"]"
        made = gzip.decompress(b"".join(bulk.jsonl_chunks(gzip.compress(array))))
        assert [json.loads(line) for line in made.splitlines()] == objects


def test_a_download_whose_reader_stops_reading_is_cut_off(
    sample_db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client asks for the file and never reads it (a small receive buffer, its socket held open): once the
    write timeout passes its connection is reset — the server holds no socket for it (a close would wait for
    ever to send what it buffered), the client's reads end, and it never got the whole file; the server answers
    others meanwhile and after."""
    monkeypatch.setenv("ORACLE_TOOLS_BULK_WRITE_TIMEOUT", "2")
    srv = Server(sample_db_path)
    server = psutil.Process(srv.proc.pid)
    try:
        size = srv.client.get("/bulk-data/oracle_cards").json()["size"]  # sent plain: more than the buffers hold
        with socket.create_connection(("127.0.0.1", srv.port)) as stalled:
            stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            stalled.sendall(b"GET /bulk-data/oracle-cards/download HTTP/1.1\r\nHost: x\r\n\r\n")
            assert stalled.recv(1024).startswith(b"HTTP/1.1 200 OK\r\n")
            ours = stalled.getsockname()
            assert srv.client.get("/cards/named", params={"exact": "Lightning Bolt"}).status_code == 200
            deadline = time.monotonic() + 15  # the timeout is 2 s: a generous bound on "cut off at all"
            while any(tuple(c.raddr or ()) == ours for c in server.net_connections("tcp")):
                assert time.monotonic() < deadline, "the server still holds the stalled reader's connection"
                time.sleep(0.25)
            # the client, its socket still open, reads what its buffers held, then the end (a reset, or EOF)
            stalled.settimeout(15)
            received = 0
            with contextlib.suppress(ConnectionResetError):
                while chunk := stalled.recv(1 << 20):
                    received += len(chunk)
        assert received < size  # the whole file was never sent
        assert srv.client.get("/health").status_code == 200
    finally:
        srv.stop()


def test_a_download_whose_client_has_gone_stops_at_once() -> None:
    """uvicorn's send returns at once, sending nothing, once the client has gone (or was cut off): the download
    reads the client's disconnect and stops there, rather than inflating and "sending" every chunk left, and its
    slot frees."""
    import asyncio
    import random

    from starlette.types import Message

    from oracle_tools.interfaces.serve.bulk import CHUNK, BulkDownload, BulkFile, Downloads

    data = b'["' + random.Random(1).randbytes(4 * CHUNK).hex().encode() + b'"]'  # sent decompressed: ~30 sends
    built = BulkFile(gzip.compress(data, compresslevel=1), len(data), "2026-01-01T00:00:00+00:00")
    downloads = Downloads()
    downloads.running = 1  # the slot the route took
    sent_after_gone = 0

    async def run() -> None:
        gone = asyncio.Event()
        asked = sent = 0

        async def receive() -> Message:
            nonlocal asked
            asked += 1
            if asked == 1:
                return {"type": "http.request", "body": b"", "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            nonlocal sent, sent_after_gone
            if gone.is_set():
                sent_after_gone += 1
                return  # as uvicorn: nothing sent, nothing raised
            sent += 1
            if sent == 3:
                gone.set()  # the client leaves (or its connection is reset) while this write waits
                await asyncio.sleep(0)

        download = BulkDownload(built, gzip_ok=False, downloads=downloads, filename="f.json")
        await asyncio.wait_for(download({"type": "http"}, receive, send), 5)

    asyncio.run(run())
    assert sent_after_gone <= 1 and downloads.running == 0


def test_downloads_asked_for_while_the_file_is_built_are_still_at_most_four(
    sample_db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six downloads asked for at once on a fresh server all arrive while the file is first built: each takes its
    slot before waiting for the build, so four stream and two are told to retry (503), rather than six streaming."""
    from oracle_tools.interfaces.serve.bulk import MAX_DOWNLOADS

    monkeypatch.setenv("ORACLE_TOOLS_BULK_WRITE_TIMEOUT", "5")
    srv = Server(sample_db_path, "--no-warm")  # the file builds the card objects: not a second time in the background
    readers = []
    try:
        for _ in range(MAX_DOWNLOADS + 2):
            reader = socket.create_connection(("127.0.0.1", srv.port), timeout=60)
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a stalled reader keeps its slot
            reader.sendall(b"GET /bulk-data/oracle-cards/download HTTP/1.1\r\nHost: x\r\n\r\n")
            readers.append(reader)
        heads = sorted(reader.recv(1024).partition(b"\r\n")[0] for reader in readers)
        assert heads == [b"HTTP/1.1 200 OK"] * MAX_DOWNLOADS + [b"HTTP/1.1 503 Service Unavailable"] * 2, heads
    finally:
        for reader in readers:
            reader.close()
        srv.stop()


def test_a_bulk_files_date_without_an_ingest_run_is_the_files_time_in_utc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no ingest run recorded, updated_at is the database file's modification time: the same instant in UTC
    wherever the server runs (the local time labelled UTC was hours off east or west of Greenwich)."""
    import datetime as dt
    import os
    import types

    from oracle_tools.interfaces.serve import bulk

    file = tmp_path / "oracle.duckdb"
    file.write_bytes(b"")
    os.utime(file, (1_700_000_000, 1_700_000_000))
    no_runs = types.SimpleNamespace(execute=lambda *_: types.SimpleNamespace(fetchall=lambda: [(None,)]))
    gen = types.SimpleNamespace(path=file, cursor=lambda: no_runs)
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        assert bulk._updated_at(gen) == "2023-11-14T22:13:20+00:00"  # type: ignore[arg-type]
    finally:
        monkeypatch.undo()
        time.tzset()
    assert dt.datetime.fromtimestamp(1_700_000_000, dt.UTC).isoformat() == "2023-11-14T22:13:20+00:00"


def _has_watermark(line: str) -> bool:
    return '"watermark":' in line


@pytest.mark.realdata
def test_watermarks_catalog_and_search_from_the_files(full_db: OracleDB, realdata: Path) -> None:
    """/catalog/watermarks and wm: read each printing's watermark as the real files give it."""
    files = ("scryfall-default-cards-2019-10-per-set-dump.json.gz", "scryfall-search-2024-mh3-otj-fdn.json.gz")
    # only the objects with a watermark count (whole, the dump is ~700 MB of Python objects)
    objects = [json.loads(line) for name in files for line in _object_lines(realdata / name, _has_watermark)]
    assert full_db.catalog("watermarks") == sorted({c["watermark"] for c in objects if c.get("watermark")})
    orzhov = {c["oracle_id"] for c in objects if c.get("watermark") == "orzhov"}
    assert set(full_db.search("wm:orzhov include:extras").get_column("oracle_id").to_list()) == orzhov


@pytest.mark.realdata
def test_derived_keywords_agree_with_scryfalls(realdata: Path, sample_db: OracleDB) -> None:
    """Keywords derived from the Oracle text by the CR's lists (702 abilities, 701 actions, 207.2c ability words)
    match the ones Scryfall lists on its real 2024 objects — the rule the 2019 dump's objects get theirs by.
    Scryfall also lists predefined token names (Treasure, Food: CR 111.10, not keywords) and variants such as
    typecycling that the CR folds into one heading; those are not derived."""
    vocabulary = keyword_vocabulary(sample_db.con)
    raw = _objects(realdata / "scryfall-search-2024-mh3-otj-fdn.json.gz")
    agree = 0
    for card in raw.values():
        texts = [card.get("oracle_text")] + [f.get("oracle_text") for f in card.get("card_faces", [])]
        got = set(derive_keywords([t for t in texts if t], vocabulary))
        want = set(card["keywords"]) - {"Treasure", "Food", "Clue", "Blood", "Map", "Typecycling", "Landcycling"}
        agree += got == want
    assert agree / len(raw) > 0.9, agree
