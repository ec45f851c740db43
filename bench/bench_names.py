"""Name resolution speed on the real data (CR 201 resolver).

    python bench/bench_names.py [--db PATH]

Builds (or reuses) a database of the real 2019 dump + 2024 objects + foreign printings, then prints:
  * single resolve, warm, exact and normalized (target <= 20 us), and by SQL point query (a fresh process)
  * batch resolve of 1,000,000 real decklist names as typed (target >= 1M names/s), and of every
    name in the names table with realistic noise applied (case, accents, quotes, slashes)
  * fuzzy suggestions per miss over ~30k English names (target <= 5 ms)
  * how every face name of every multi-face card resolves, per layout
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import time
import unicodedata
from pathlib import Path

import polars as pl

from oracle_tools import OracleDB
from oracle_tools.names import normalize

REPO = Path(__file__).resolve().parents[1]
REAL = REPO.parent / "shared" / "realdata"
FILES = [
    "scryfall-default-cards-2019-10-per-set-dump.json.gz",
    "scryfall-search-2024-mh3-otj-fdn.json.gz",
    "scryfall-foreign-printings-from-mtgjson-2022.json.gz",
]


def deck_names() -> list[str]:
    """Every card name as written in the real decklists (their spellings are what users type)."""
    names: list[str] = []
    for path in sorted((REAL / "decks").rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
        for deck in data.get("decks", data.get("Decks", [])) if isinstance(data, dict) else []:
            for board in ("mainboard", "sideboard", "Mainboard", "Sideboard"):
                for entry in deck.get(board) or []:
                    name = entry.get("name") or entry.get("CardName")
                    if name:
                        names.append(name)
    return names


def noisy(name: str, rng: random.Random) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return name.lower()
    if kind == 1:
        return "".join(c for c in unicodedata.normalize("NFKD", name) if unicodedata.category(c) != "Mn")
    if kind == 2:
        return name.replace("'", "’")
    if kind == 3:
        return name.replace(" // ", "/")
    return name.upper()


def per_call(fn, args: list, repeat: int = 5) -> float:
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        for a in args:
            fn(a)
        runs.append((time.perf_counter() - started) / len(args))
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=Path("/tmp/oracle-tools-bench-names.duckdb"))
    args = parser.parse_args()
    if not args.db.exists():
        OracleDB.ingest_files(args.db, [REAL / f for f in FILES])
    db = OracleDB(args.db)
    index = db.name_index
    exact = (
        db.sql("SELECT name FROM names WHERE via IN ('name', 'face') ORDER BY hash(name) LIMIT 5000")
        .get_column("name")
        .to_list()
    )
    rng = random.Random(7)
    normalized = [noisy(n, rng) for n in exact]
    print(f"database: {args.db} ({db.sql('SELECT count(*) FROM names').item():,} names)")
    print(f"single resolve, exact:      {per_call(db.resolve, exact) * 1e6:6.2f} us  (target <= 20 us)")
    print(f"single resolve, normalized: {per_call(db.resolve, normalized) * 1e6:6.2f} us  (target <= 20 us)")
    from oracle_tools.lookup import PointNames

    some = exact[:300] + normalized[:300]  # a fresh resolver per call: nothing cached, as in a new process
    print(
        f"single resolve by SQL point query (no index in memory; oracle_tools/lookup.py): "
        f"{per_call(lambda t: PointNames(db.con).resolve(t), some, 3) * 1e3:5.2f} ms"
    )

    typed = deck_names()
    column = pl.Series("query", (typed * (1_000_000 // len(typed) + 1))[:1_000_000])
    db.resolve_many(column.head(1000))  # warm: builds the lookup frames once
    runs = []
    for _ in range(5):
        started = time.perf_counter()
        result = db.resolve_many(column)
        runs.append(time.perf_counter() - started)
    rate = len(column) / statistics.median(runs)
    ok = result.get_column("status").eq("ok").mean()
    print(
        f"batch, 1,000,000 decklist names as typed ({len(set(typed)):,} distinct): {rate / 1e6:5.2f} M names/s "
        f"(target >= 1M/s), {ok:.1%} resolved"
    )
    every = db.sql("SELECT DISTINCT name FROM names").get_column("name").to_list()
    noisy_all = pl.Series("query", [noisy(n, rng) for n in every])
    started = time.perf_counter()
    result = db.resolve_many(noisy_all)
    seconds = time.perf_counter() - started
    print(
        f"batch, every name with noise ({len(noisy_all):,} mostly distinct): "
        f"{len(noisy_all) / seconds / 1e6:5.2f} M names/s, {result.get_column('status').eq('ok').mean():.1%} ok"
    )

    # fuzzy: ~30k choices = the database's English names plus the 2025 commander-legal names
    with gzip.open(REAL / "scryfall-commander-legal-trimmed-20250925.json.gz", "rt", encoding="utf-8") as handle:
        extra = [c["name"] for c in json.load(handle)]
    keys = sorted(set(index._fuzzy_keys) | {normalize(n) for n in extra})
    index._fuzzy_keys, index._fuzzy_names = keys, keys
    misses = [n[:-1] + "x" if len(n) > 4 else n + "x" for n in rng.sample(exact, 200)]
    from rapidfuzz import fuzz, process

    def rapidfuzz_alone(text: str) -> object:  # the floor: the same scorer over the same keys, nothing around it
        return process.extract(normalize(text), keys, scorer=fuzz.ratio, limit=5, score_cutoff=50)

    print(
        f"fuzzy suggestions per miss over {len(keys):,} names: {per_call(index.suggest, misses, 3) * 1e3:5.2f} ms "
        f"(target <= 5 ms; rapidfuzz's extract alone: {per_call(rapidfuzz_alone, misses, 3) * 1e3:5.2f} ms)"
    )

    faces = db.sql(
        "SELECT f.name, f.oracle_id, c.layout FROM faces f JOIN cards c USING (oracle_id) "
        "WHERE c.is_card AND f.role NOT IN ('single', 'meld_part', 'meld_result')"
    )
    res = db.resolve_many(faces.get_column("name"))
    table = faces.with_columns(
        ok=(res.get_column("status") == "ok") & (res.get_column("oracle_id") == pl.col("oracle_id"))
    )
    print("face names of multi-face cards resolving to their own card:")
    for row in table.group_by("layout").agg(pl.len().alias("faces"), pl.col("ok").sum()).sort("layout").iter_rows():
        print(f"  {row[0]:<10} {row[2]:>4} / {row[1]:>4}")
    melds = db.sql("SELECT count(*) FROM faces WHERE role IN ('meld_part', 'meld_result')").item()
    print(f"  meld parts and results (their own cards): {melds}")


if __name__ == "__main__":
    main()
