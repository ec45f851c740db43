"""What keeping each printing's whole Scryfall object costs, and what serving it saves (the API issue).

    python bench/bench_card_objects.py               # the real 2019 dump
    python bench/bench_card_objects.py --scale 16    # also the dump 16 times over (all-cards size)

Prints, for the real default-cards dump (45,851 objects, 127 MB of JSON):
  * the size cost: the objects' JSON text beside what table ``scryfall_objects`` keeps (zstandard with a
    dictionary trained on the run's objects, plus that dictionary) and the database file with and without it;
  * the ingest time beside the same ingest with keeping made a no-op (no object read or kept), in the same
    run, interleaved;
  * a card object served from the kept object (one query, decompress, parse, links, derivations) beside the
    same card rebuilt from the tables (four batched queries and the assembly) — per card, for one card at a
    time (``/cards/{id}``) and for pages of 175 (``/cards/search``), the same random printings for both.
With --scale N the dump is written N times over with fresh ids (bench_ingest.write_scaled) and the size
and ingest figures are printed for it too.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from realdata import require as require_realdata

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
REALDATA = require_realdata(__file__)
DUMP = REALDATA / "scryfall-default-cards-2019-10-per-set-dump.json.gz"


def _ingest(source: Path, db: Path, *, keep: bool) -> float:
    """Seconds of one ingest; ``keep=False`` makes keeping the objects a no-op (nothing read, nothing kept)."""
    from oracle_tools import OracleDB
    from oracle_tools.store import scryfall_objects

    real = scryfall_objects.keep
    if not keep:
        scryfall_objects.keep = lambda cursor, files, dictionary=None: None
    try:
        db.unlink(missing_ok=True)
        started = time.perf_counter()
        OracleDB.ingest_files(db, [source]).close()
        return time.perf_counter() - started
    finally:
        scryfall_objects.keep = real


def _sizes(db: Path) -> tuple[int, int]:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    kept = con.execute(
        "SELECT (SELECT sum(octet_length(object)) FROM scryfall_objects) + "
        "(SELECT sum(octet_length(dictionary)) FROM scryfall_object_dictionary)"
    ).fetchall()[0][0]
    con.close()
    return int(kept), db.stat().st_size


def size_and_time(label: str, source: Path, json_bytes: int, workdir: Path, rounds: int) -> None:
    on: list[float] = []
    off: list[float] = []
    for _ in range(rounds):
        on.append(_ingest(source, workdir / "on.duckdb", keep=True))
        off.append(_ingest(source, workdir / "off.duckdb", keep=False))
    kept, with_file = _sizes(workdir / "on.duckdb")
    without_file = (workdir / "off.duckdb").stat().st_size
    t_on, t_off = statistics.median(on), statistics.median(off)
    print(f"{label}: {json_bytes / 1e6:,.1f} MB of JSON kept in {kept / 1e6:,.1f} MB ({kept / json_bytes:.1%})")
    print(
        f"  database file {with_file / 1e6:,.1f} MB with the objects, {without_file / 1e6:,.1f} MB without "
        f"(+{(with_file - without_file) / 1e6:,.1f} MB)"
    )
    print(
        f"  ingest {t_on:.2f} s with the objects, {t_off:.2f} s without (median of {rounds}): "
        f"+{t_on - t_off:.2f} s = +{(t_on - t_off) / t_off:.0%}"
    )


def serve_cost(db_path: Path) -> None:
    from oracle_tools import OracleDB
    from oracle_tools.scryfall.cardjson import card_objects, objects_from_tables

    with OracleDB(db_path) as db:
        con = db.con
        ids = [r[0] for r in con.execute("SELECT id FROM printings").fetchall()]
        rng = random.Random(20191004)
        one = rng.sample(ids, 2000)
        pages = [rng.sample(ids, 175) for _ in range(20)]
        timings = {}
        for name, call in (
            ("kept, one card a call", lambda: [card_objects(con, ids=[i], base_url="http://h") for i in one]),
            ("rebuilt, one card a call", lambda: [objects_from_tables(con, [i], "http://h") for i in one]),
            ("kept, pages of 175", lambda: [card_objects(con, ids=p, base_url="http://h") for p in pages]),
            ("rebuilt, pages of 175", lambda: [objects_from_tables(con, p, "http://h") for p in pages]),
        ):
            call()  # warm
            started = time.perf_counter()
            call()
            cards = len(one) if "one card" in name else 175 * len(pages)
            timings[name] = (time.perf_counter() - started) / cards * 1e6
        for shape in ("one card a call", "pages of 175"):
            kept, rebuilt = timings[f"kept, {shape}"], timings[f"rebuilt, {shape}"]
            print(
                f"card object, {shape}: kept {kept:,.0f} µs a card, rebuilt {rebuilt:,.0f} µs ({rebuilt / kept:.1f}x)"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        with gzip.open(DUMP) as f:
            json_bytes = len(f.read())
        size_and_time("2019 dump", DUMP, json_bytes, workdir, args.rounds)
        serve_cost(workdir / "on.duckdb")
        if args.scale:
            sys.path.insert(0, str(Path(__file__).parent))
            from bench_ingest import write_scaled

            scaled = workdir / f"dump-x{args.scale}.json"
            count = write_scaled(DUMP, args.scale, scaled)
            size_and_time(f"x{args.scale} ({count:,} objects)", scaled, os.path.getsize(scaled), workdir, 1)


if __name__ == "__main__":
    main()
