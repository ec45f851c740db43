"""The card reference pages on a real database: page weight and answer times (docs/web.md).

    python bench/bench_web.py [--db PATH] [--cards 150] [--rebuild]

Builds once (bench/out/all-real.duckdb, shared with bench_serve.py) the database of the real files, opens the
app in-process (Starlette's TestClient: no sockets, the same handlers and threadpool as ``oracle-tools serve``),
waits for its background warm-up, then measures

  * the first load of ``/search`` (page, stylesheet, script, favicon) in bytes      target <= 150 KB
  * a results page of 60 text cards, in bytes
  * first-seen pages, warm database (wall ms p50/p95, CPU ms a page): card pages of ``--cards`` real cards,
    search result pages, token pages, deck checks                                    target p50 <= 100 ms
  * the same pages asked again (kept per database generation)

The pages' own warm-up (pages.warm_pages, started by the first page asked) is waited for, as the server's is.

beside the floor measured in the same run: the JSON API answering the same questions (``/cards/{id}``,
``/cards/search``, ``/tokens/{name}``), whose card objects the pages show.
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from realdata import build_all_real
from realdata import require as require_realdata

REPO = Path(__file__).resolve().parents[1]
REAL = require_realdata(__file__)
OUT = REPO / "bench" / "out"
SEARCHES = ["t:goblin", "t:creature c:r", 'o:"draw a card" c:u', "f:modern mv<=2 t:instant", "t:angel", "r:mythic"]
TOKENS = ["Treasure", "Marit Lage", "Goblin", "Clue", "Food", "Zombie", "Soldier", "Thopter"]
DECK = "4 Lightning Bolt\n4 Tarmogoyf\n4 Mox Opal\n4 Fire // Ice\n44 Mountain\n\nSideboard\n2 Pithing Needle\n"
FIRST_LOAD_KB = 150
TARGET_MS = 100  # a first-seen page, warm server (p50 wall)


def timed(client: Any, paths: list[str]) -> dict[str, float]:
    walls, cpu_start = [], time.process_time()
    for path in paths:
        started = time.perf_counter()
        answer = client.get(path)
        walls.append((time.perf_counter() - started) * 1000)
        if answer.status_code not in (200, 303):
            raise SystemExit(f"{path}: status {answer.status_code}")
    cpu = (time.process_time() - cpu_start) * 1000 / len(paths)
    walls.sort()
    return {"n": len(paths), "p50": statistics.median(walls), "p95": walls[int(len(walls) * 0.95) - 1], "cpu": cpu}


def forget(generation: Any) -> None:
    """Drop the answers the server kept of the questions asked (searches, API answers, pages); the card objects the
    warm-up built stay, as in a server that has run a while."""
    from oracle_tools.interfaces.serve.pages import PAGES

    for cache in (generation.searches, generation.answers, generation.named, generation.peek(PAGES)):
        if cache is not None:
            cache.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=OUT / "all-real.duckdb")
    parser.add_argument("--cards", type=int, default=150)
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    build_all_real(args.db, args.rebuild)

    from starlette.testclient import TestClient

    from oracle_tools import OracleDB
    from oracle_tools.interfaces.serve.app import create_app

    with OracleDB(args.db) as db:
        rows = db.sql_rows("SELECT oracle_id FROM cards WHERE is_card ORDER BY oracle_id")[1]
        printings = db.sql_rows(
            "SELECT oracle_id, arg_max(id, released_at) FROM printings GROUP BY oracle_id ORDER BY oracle_id"
        )[1]
    rng = random.Random(38)
    oids = rng.sample([r[0] for r in rows], min(args.cards, len(rows)))
    printing_of: dict[str, str] = dict(printings)
    app = create_app(args.db)
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        started = time.perf_counter()
        while not client.get("/health").json()["warm"]:
            time.sleep(0.2)
        print(f"database {args.db.name}: {len(rows):,} cards; warm-up {time.perf_counter() - started:.1f} s")
        # the first page asked starts the pages' own warm-up in the background (pages.warm_pages: every card's names,
        # printings, tokens and references, each format's legalities); a card page outside the sample waits for it
        started = time.perf_counter()
        client.get(f"/card/{next(r[0] for r in rows if r[0] not in oids)}")
        while any(t.name == "web-warm" for t in threading.enumerate()):
            time.sleep(0.1)
        print(f"the pages' warm-up (from the first page asked): {time.perf_counter() - started:.1f} s")
        first = sum(
            len(client.get(p).content) for p in ("/search", "/static/web.css", "/static/web.js", "/favicon.ico")
        )
        grid = len(client.get("/search", params={"q": "t:creature"}).content)
        print(
            f"first load of /search: {first / 1024:.1f} KB (target <= {FIRST_LOAD_KB} KB); 60 text cards: {grid / 1024:.1f} KB"
        )
        searches = [f"/search?q={quote(q)}{o}" for q in SEARCHES for o in ("", "&order=cmc&dir=desc")]
        decks = [f"/deck?format={f}&deck={quote(DECK)}" for f in ("modern", "legacy", "vintage", "pauper", "commander")]
        pages = {
            "card pages": [f"/card/{oid}" for oid in oids],
            "search pages": searches,
            "token pages": [f"/token/{quote(t)}" for t in TOKENS],
            "deck checks": decks,
        }
        floors = {
            "card pages": [f"/cards/{printing_of[oid]}" for oid in oids if oid in printing_of],
            "search pages": [p.replace("/search?", "/cards/search?") for p in searches[::2]],
            "token pages": [f"/tokens/{quote(t)}" for t in TOKENS],
        }
        print(
            f"{'':14} {'n':>4} {'p50 ms':>8} {'p95 ms':>8} {'CPU ms':>8}   floor (JSON API): p50 / CPU ms   again: p50 ms"
            f"   p50 <= {TARGET_MS} ms"
        )
        generation = app.state.store.generation
        for label, paths in pages.items():
            first_seen = timed(client, paths)
            again = timed(client, paths)
            forget(generation)  # the floor answers its questions the first time too
            floor = timed(client, floors[label]) if label in floors else None
            floor_text = f"{floor['p50']:8.1f} / {floor['cpu']:6.1f}" if floor else f"{'—':>17}"
            print(
                f"{label:14} {first_seen['n']:4d} {first_seen['p50']:8.1f} {first_seen['p95']:8.1f} "
                f"{first_seen['cpu']:8.1f}   {floor_text:>30}   {again['p50']:8.1f}"
                f"   {'met' if first_seen['p50'] <= TARGET_MS else 'NOT MET'}"
            )
        while not client.get("/health").json()["warm"]:
            time.sleep(0.2)
    print(f"target: answers <= {TARGET_MS} ms warm (p50 of first-seen pages); read CPU ms on a shared machine")


if __name__ == "__main__":
    main()
