"""Record the HTTP server's answers on a database, and compare two records: "no answer changes" for the server.

    python bench/serve_answers.py record --db bench/out/all-real.duckdb --out before.jsonl
    python bench/serve_answers.py compare before.jsonl after.jsonl

``record`` builds the app in-process (Starlette's TestClient, no socket) and sends a few hundred requests: every
route, each id kind (Scryfall id, set + number, Multiverse, MTGO, Arena, TCGplayer, Cardmarket, illustration in a
collection), names (exact, fuzzy, ``set=``, the same-name pick, ambiguous, missing), search pages, collections,
autocomplete, catalogs, sets, symbology, bulk data, the rules endpoints and the errors (400/404/405/413/422). The
ids and names are read from the database itself, so any real-shaped database serves. One JSON line per request:
status, the headers that matter and the body (JSON, or a SHA-256 of a download). ``/cards/random`` without a
query is random by design: only its status and object kind are kept.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from realdata import record_or_compare
from realdata import require as require_realdata

require_realdata(__file__)  # its requests are drawn from the real database (every bench says so in one line)

HEADERS = ("content-type", "location", "x-scryfall-card", "x-scryfall-card-image", "content-disposition")


def _requests(db_path: Path) -> list[tuple[str, str, Any]]:
    import duckdb

    con = duckdb.connect(str(db_path), read_only=True)

    def col(sql: str) -> list[Any]:
        return [row[0] for row in con.execute(sql).fetchall()]

    pick = "FROM printings WHERE {} IS NOT NULL ORDER BY id LIMIT 4"
    ids = col("SELECT id FROM printings ORDER BY id LIMIT 6") + col(
        "SELECT id FROM printings WHERE lang <> 'en' ORDER BY id LIMIT 3"
    )
    numbers = con.execute(
        "SELECT set_code, collector_number, lang FROM printings ORDER BY id LIMIT 8 OFFSET 100"
    ).fetchall()
    kinds = {
        "mtgo": col(f"SELECT mtgo_id {pick.format('mtgo_id')}"),
        "arena": col(f"SELECT arena_id {pick.format('arena_id')}"),
        "tcgplayer": col(f"SELECT tcgplayer_id {pick.format('tcgplayer_id')}"),
        "cardmarket": col(f"SELECT cardmarket_id {pick.format('cardmarket_id')}"),
        "multiverse": col("SELECT multiverse_ids[1] FROM printings WHERE len(multiverse_ids) > 0 ORDER BY id LIMIT 4"),
    }
    illustrations = col(f"SELECT illustration_id {pick.format('illustration_id')}")
    names = col("SELECT name FROM cards WHERE is_card ORDER BY oracle_id LIMIT 25")
    same_name = col("SELECT name FROM cards WHERE is_card GROUP BY name HAVING count(*) > 1 ORDER BY name LIMIT 3")
    oracle_ids = col("SELECT oracle_id FROM cards WHERE is_card ORDER BY oracle_id LIMIT 3")
    sets = col("SELECT DISTINCT set_code FROM printings ORDER BY set_code LIMIT 6")
    ruled = col("SELECT p.id FROM printings p JOIN rulings r USING (oracle_id) ORDER BY p.id LIMIT 3")
    out: list[tuple[str, str, Any]] = []

    def get(url: str) -> None:
        out.append(("GET", url, None))

    for pid in ids + ruled:
        get(f"/cards/{pid}")
        get(f"/cards/{pid}/rulings")
    get(f"/cards/{ids[0]}?format=text")
    get(f"/cards/{ids[0]}?format=image")
    get(f"/cards/{ids[0]}?format=image&face=back")
    get(f"/cards/{ids[0]}?pretty=true")
    get("/cards/not-a-uuid")
    get("/cards/00000000-0000-0000-0000-000000000000")
    get("/cards/00000000-0000-0000-0000-000000000000/rulings")
    for set_code, number, lang in numbers:
        get(f"/cards/{set_code}/{number}")
        get(f"/cards/{set_code.upper()}/{number}/{lang}")
        get(f"/cards/{set_code}/{number}/rulings")
    get("/cards/zzz/999999")
    get("/cards/zzz/999999/rulings")
    for kind, values in kinds.items():
        for value in [*values, "0", "abc", "99999999999"]:
            get(f"/cards/{kind}/{value}")
            get(f"/cards/{kind}/{value}/rulings")
    for name in names + same_name + ["Lightning Bolt", "Fire // Ice", "Fire", "Very Cryptic Command"]:
        get(f"/cards/named?exact={name}")
        get(f"/cards/named?fuzzy={name[: max(4, len(name) - 2)]}")
    for name in names[:5] + same_name:
        for set_code in [*sets[:2], "ust", "lea"]:
            get(f"/cards/named?exact={name}&set={set_code}")
    for bad in (
        "",
        "exact=",
        "fuzzy=bolt&exact=bolt",
        "exact=zzzzqqq",
        "fuzzy=the",
        "fuzzy=dragon",
        "exact=" + "x" * 1001,
    ):
        get(f"/cards/named?{bad}")
    for query in ("t:goblin", "c:r cmc=1", "o:draw", "nameable:nonland t:elf", "is:dfc", "t:zzznope", "(", "a" * 1001):
        get(f"/cards/search?q={query}")
    get("/cards/search?q=t:creature&page=2")
    get("/cards/search?q=t:creature&page=99999")
    get("/cards/search?q=t:goblin&order=cmc&dir=desc&unique=prints")
    get("/cards/search?q=t:goblin&unique=art")
    get("/cards/search?q=t:goblin&unique=nope")
    get("/cards/search?q=t:goblin&dir=sideways")
    get("/cards/search?q=t:goblin&page=x")
    get("/cards/search")
    get("/cards/random?q=name:zzzqqq")
    for query in ("bo", "light", "li", "l", "", "dragon", "x" * 30):
        get(f"/cards/autocomplete?q={query}")
    for cat in ("card-names", "creature-types", "keyword-abilities", "powers", "nope"):
        get(f"/catalog/{cat}")
    get("/migrations")
    get("/sets")
    for code in [*sets, "zzz", "00000000-0000-0000-0000-000000000000"]:
        get(f"/sets/{code}")
    for group in ("1", "abc", "23347"):
        get(f"/sets/tcgplayer/{group}")
    get("/symbology")
    for cost in ("{2}{W}{U}", "2WU", "{Q}{Z}", ""):
        get(f"/symbology/parse-mana?cost={cost}")
    get("/bulk-data")
    for which in ("oracle-cards", "oracle_cards", "rulings", "nope"):
        get(f"/bulk-data/{which}")
    get("/bulk-data/rulings/download")
    get("/bulk-data/nope/download")
    for name in [*names[:5], "Fire/Ice", "Foudre", "zzqq", "Lightning Blot"]:
        get(f"/names/resolve?q={name}")
        get(f"/names/resolve?q={name}&fuzzy=true")
    get("/names/resolve?q=bolt&other=1")
    get("/names/resolve?fuzzy=maybe&q=x")
    out.append(("POST", "/names/resolve", ["Fire/Ice", "Foudre", " ", "zzqq"]))
    out.append(("POST", "/names/resolve?fuzzy=true", ["Lightning Blot"]))
    out.append(("POST", "/names/resolve", {"not": "a list"}))
    out.append(("POST", "/names/resolve", b"not json"))
    for token in ("Treasure", "Goblin", "Zzzq"):
        get(f"/tokens/{token}")
    get("/choose-name?name=Lightning Bolt&constraint=nonland")
    get("/choose-name?name=Island&constraint=nonland")
    get("/choose-name?name=Lightning Bolt&card=Pithing Needle")
    get("/choose-name?name=x&card=Pithing Needle&constraint=nonland")
    get("/choose-name?name=x&card=zzzqqq")
    get("/choose-name/list?constraint=artifact")
    get("/choose-name/list?card=Meddling Mage")
    deck = b"4 Lightning Bolt\n4 Goblin Guide\n52 Mountain\n\nSideboard\n2 Pyroblast\n"
    out.append(("POST", "/decks/check?format=modern", deck))
    out.append(("POST", "/decks/check?format=legacy", b"4 Lightning Bolt\n4 Zzzqqq Card\n"))
    out.append(
        ("POST", "/decks/check?format=commander&commander=Krenko, Mob Boss", b"1 Krenko, Mob Boss\n99 Mountain\n")
    )
    out.append(("POST", "/decks/check?format=nope", deck))
    out.append(("POST", "/decks/check?format=modern", b""))
    out.append(("POST", "/decks/check?format=modern", b"\xff\xfe\x00garbage\x00"))
    out.append(("POST", "/decks/check?format=modern", b"100000 Mountain\n"))
    out.append(("POST", "/decks/check?format=modern", b"1 Mountain\n" * 20000))
    out.append(("POST", "/decks/check?format=modern", b'{"decks": 3}'))
    for query in ("", "?page=2", "?run=1", "?run=x", "?format=modern", "?card=Lightning Bolt", "?page=9999"):
        get(f"/changes{query}")
    collection = (
        [{"id": pid} for pid in ids[:3]]
        + [
            {"oracle_id": oracle_ids[0]},
            {"name": names[0]},
            {"name": names[1], "set": sets[0]},
            {"set": numbers[0][0], "collector_number": numbers[0][1]},
            {"mtgo_id": kinds["mtgo"][0]},
            {"multiverse_id": kinds["multiverse"][0]},
            {"illustration_id": illustrations[0]},
            {"illustration_id": illustrations[1].upper()},
            {"name": "zzzqqq"},
            {"id": "00000000-0000-0000-0000-000000000000"},
            {"mtgo_id": 0},
        ]
        + [{"name": name} for name in same_name]
    )
    out.append(("POST", "/cards/collection", {"identifiers": collection}))
    out.append(("POST", "/cards/collection", {"identifiers": []}))
    out.append(("POST", "/cards/collection", {"identifiers": [{"name": "x"}] * 76}))
    out.append(("POST", "/cards/collection", {"identifiers": [{"bogus": 1}]}))
    out.append(("POST", "/cards/collection", {"identifiers": [{"mtgo_id": "1"}]}))
    out.append(("POST", "/cards/collection", {"identifiers": [{"set": "lea"}]}))
    out.append(("POST", "/cards/collection", [1, 2]))
    out.append(("POST", "/cards/named?exact=bolt", None))
    get("/nowhere")
    get("/health?x=1")
    return out


def record(db_path: Path, out: Path) -> None:
    from starlette.testclient import TestClient

    from oracle_tools.interfaces.serve import create_app

    app = create_app(db_path)
    count = 0
    with TestClient(app, base_url="http://127.0.0.1:8765") as client, out.open("w", encoding="utf-8") as sink:
        client.get("/cards/random")  # the first request opens the database
        for method, url, body in _requests(db_path):
            if method == "GET":
                answer = client.get(url, follow_redirects=False)
            elif isinstance(body, bytes):
                answer = client.post(url, content=body)
            else:
                answer = client.post(url, json=body)
            kept: Any
            if "download" in url and answer.status_code == 200:
                kept = hashlib.sha256(answer.content).hexdigest()  # (httpx undoes a gzip encoding)
            elif answer.headers.get("content-type", "").startswith("application/json"):
                kept = answer.json()
            else:
                kept = answer.text
            headers = {h: answer.headers[h] for h in HEADERS if h in answer.headers}
            line = {"request": [method, url], "status": answer.status_code, "headers": headers, "body": kept}
            sink.write(json.dumps(line, ensure_ascii=False, sort_keys=True, default=str) + "\n")
            count += 1
        for _ in range(5):  # random by design: only the kind of answer is compared
            answer = client.get("/cards/random")
            line = {"request": ["GET", "/cards/random"], "status": answer.status_code, "body": answer.json()["object"]}
            sink.write(json.dumps(line, sort_keys=True) + "\n")
            count += 1
    print(f"recorded {count} answers in {out}")


def compare(before: Path, after: Path, examples: int = 10) -> int:
    old = before.read_text(encoding="utf-8").splitlines()
    new = after.read_text(encoding="utf-8").splitlines()
    differ = [(a, b) for a, b in zip(old, new, strict=False) if a != b]
    print(f"{len(old)} answers before, {len(new)} after; {len(differ)} differ")
    for a, b in differ[:examples]:
        print(f"  before: {a[:400]}\n  after:  {b[:400]}")
    return 1 if differ or len(old) != len(new) else 0


def main() -> int:
    return record_or_compare(__doc__, record, compare)


if __name__ == "__main__":
    sys.exit(main())
