"""Name resolution speed on the real data (CR 201 resolver).

    python bench/bench_names.py [--db PATH]

Builds (or reuses) a database of the real 2019 dump + 2024 objects + foreign printings, then prints:
  * the warm index's memory: RSS of a fresh process after opening the database (the floor), and what building
    the index (and a first batch) adds to it, after and at the peak (target: half of the 332 MB, 367 MB with a
    first batch, it added before)
  * single resolve, warm, exact and normalized (target <= 5 us), and by SQL point query (a fresh process); the lookup
    alone of exact names, of misses and of names pasted with a comma glued to the next word (read again as a space)
  * batch resolve of 1,000,000 real decklist names as typed (target >= 1M names/s), and of every
    name in the names table with realistic noise applied (case, accents, quotes, slashes)
  * the fuzzy answer for 500 real typos and partial names, warm (target <= 1 ms median), beside rapidfuzz's
    extractOne over the same names; a cold `oracle-tools resolve` of a miss (target <= 200 ms) beside the floor
  * how every face name of every multi-face card resolves, per layout
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from oracle_tools import OracleDB
from oracle_tools.names.index import normalize

from realdata import require as require_realdata

REPO = Path(__file__).resolve().parents[1]
REAL = require_realdata(__file__)
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
        for deck in (data.get("decks", data.get("Decks", [])) if isinstance(data, dict) else []) or []:
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


def per_call(fn: Callable[..., object], args: list[Any], repeat: int = 5) -> float:
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        for a in args:
            fn(a)
        runs.append((time.perf_counter() - started) / len(args))
    return statistics.median(runs)


def _typo(name: str, rng: random.Random) -> str:
    """One slip inside one word of a real name: a letter dropped, doubled, swapped or replaced."""
    words = name.split()
    at = rng.randrange(len(words))
    word = words[at]
    if len(word) >= 4:
        i = rng.randrange(1, len(word) - 1)
        kind = rng.randrange(4)
        word = (
            word[:i] + word[i + 1 :]
            if kind == 0
            else word[:i] + word[i] + word[i:]
            if kind == 1
            else word[: i - 1] + word[i] + word[i - 1] + word[i + 1 :]
            if kind == 2
            else word[:i] + rng.choice("aeiourstln") + word[i + 1 :]
        )
    words[at] = word
    return " ".join(words)


def _partial(name: str, rng: random.Random) -> str:
    """Part of a real name as people shorten it: its first word, or the first letters of its first words."""
    words = [w.strip(",.'\"") for w in name.split() if w != "//"]
    if len(words) > 1 and rng.random() < 0.5:
        return words[0]
    return " ".join(w[: max(3, len(w) - rng.randrange(3))] for w in words[:3])


def _median_call(fn: Callable[..., object], args: list[Any]) -> float:
    """Median seconds of one call (each argument timed alone, twice; the faster kept)."""
    times = []
    for a in args:
        best = float("inf")
        for _ in range(2):
            started = time.perf_counter()
            fn(a)
            best = min(best, time.perf_counter() - started)
        times.append(best)
    return statistics.median(times)


# A fresh process opens the database and answers one name by point query (the floor), then builds the warm index
# and answers a first batch: RSS after each step (gc'd) and the peak (ru_maxrss), in MB.
INDEX_MEMORY_SCRIPT = r"""
import gc, json, resource, sys
import psutil
import polars
from oracle_tools import OracleDB

def rss():
    gc.collect()
    return psutil.Process().memory_info().rss / 2**20

db = OracleDB(sys.argv[1])
db.resolve("Tarmogoyf")
opened = rss()
db.name_index
built = rss()
db.resolve_many(["Tarmogoyf", "fire/ice", "Lightning Bolt"])
batch = rss()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"opened": opened, "built": built, "batch": batch, "peak": peak}))
"""


def _index_memory(db: Path) -> dict[str, float]:
    """RSS figures of :data:`INDEX_MEMORY_SCRIPT` on ``db``, in a fresh process (the median of 3 runs each)."""
    import subprocess
    import sys

    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", INDEX_MEMORY_SCRIPT, str(db)], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(3)
    ]
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def _cold(db: Path | None, name: str, runs: int = 7) -> float:
    """Median wall time of a fresh `oracle-tools resolve NAME` (or, with no db, of importing duckdb)."""
    import subprocess
    import sys

    if db is None:
        command = [sys.executable, "-c", "import duckdb"]
    else:
        command = [sys.executable, "-m", "oracle_tools.interfaces.cli", "resolve", "--db", str(db), name]
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=Path("/tmp/oracle-tools-bench-names.duckdb"))
    args = parser.parse_args()
    if not args.db.exists():
        OracleDB.ingest_files(args.db, [REAL / f for f in FILES])
    memory = _index_memory(args.db)
    print(
        f"warm index memory, fresh process: the opened database {memory['opened']:.0f} MB RSS (the floor); "
        f"the index adds {memory['built'] - memory['opened']:.0f} MB, "
        f"{memory['batch'] - memory['opened']:.0f} MB with a first batch, "
        f"peak {memory['peak'] - memory['opened']:.0f} MB (before: 332 MB, 367 MB with a first batch; target: half)"
    )
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
    db.resolve_many(exact[:10])  # the index is built before timing: warm calls
    for _ in range(OracleDB.POINT_LOOKUPS + 1):
        db.resolve(exact[0])
    print(f"single resolve, exact:      {per_call(db.resolve, exact) * 1e6:6.2f} us  (target <= 5 us)")
    print(f"single resolve, normalized: {per_call(db.resolve, normalized) * 1e6:6.2f} us  (target <= 5 us)")
    # the lookup alone of strings that are no name's key: plain misses, and names pasted with the space after a comma
    # left out ('Jace,the Mind Sculptor', read again with the comma as a space), beside the exact names' lookup
    glued = [n.replace(", ", ",") for n in exact if ", " in n]
    missed = [n + " qz" for n in exact]
    print(
        f"lookup alone: exact {per_call(index.lookup, exact) * 1e6:5.2f} us, a miss {per_call(index.lookup, missed) * 1e6:5.2f}"
        f" us, a glued comma ({len(glued):,}) {per_call(index.lookup, glued) * 1e6:5.2f} us; "
        f"found: {sum(index.lookup(n) is not None for n in glued):,} of the glued"
    )
    from oracle_tools.names.point import PointNames

    some = exact[:300] + normalized[:300]  # a fresh resolver per call: nothing cached, as in a new process
    print(
        f"single resolve by SQL point query (no index in memory; oracle_tools/names/point.py): "
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
    ok = result.get_column("status").eq("ok").sum() / result.height
    print(
        f"batch, 1,000,000 decklist names as typed ({len(set(typed)):,} distinct): {rate / 1e6:5.2f} M names/s "
        f"(target >= 1M/s), {ok:.1%} resolved"
    )
    every = db.sql("SELECT DISTINCT name FROM names").get_column("name").to_list()
    noisy_all = pl.Series("query", [noisy(n, rng) for n in every])
    # the first batch of this many distinct strings also makes the index's join frames (names/index.py): timed
    # apart, then the median of 3
    started = time.perf_counter()
    result = db.resolve_many(noisy_all)
    first = time.perf_counter() - started
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        db.resolve_many(noisy_all)
        runs.append(time.perf_counter() - started)
    seconds = statistics.median(runs)
    print(
        f"batch, every name with noise ({len(noisy_all):,} mostly distinct): "
        f"{len(noisy_all) / seconds / 1e6:5.2f} M names/s (the first call {first:4.2f} s), "
        f"{result.get_column('status').eq('ok').sum() / result.height:.1%} ok"
    )

    # fuzzy: 500 real typos and partial names, answered warm by the one matcher (oracle_tools/text/matching.py)
    english = sorted(index.matcher().names)
    typo_sources = rng.sample(english, 250)
    typos = [_typo(n, rng) for n in typo_sources]
    partials = [_partial(n, rng) for n in rng.sample(english, 250)]
    fuzzy_texts = typos + partials
    index.matcher().match("warm up")  # the word list of the spelling stage is built on first use
    from rapidfuzz import fuzz, process

    keys = index.matcher().keys

    def fuzzy_answer(text: str) -> object:
        return index.resolve(text, fuzzy=True)

    def extract_one(text: str) -> object:  # the baseline: rapidfuzz's extractOne over the same names, nothing else
        return process.extractOne(normalize(text), keys, scorer=fuzz.ratio)

    print(
        f"fuzzy answer per typo or partial name, warm, over {len(keys):,} names: "
        f"{_median_call(fuzzy_answer, fuzzy_texts) * 1e3:5.3f} ms median (target <= 1 ms; "
        f"rapidfuzz extractOne alone: {_median_call(extract_one, fuzzy_texts) * 1e3:5.3f} ms)"
    )
    for label, texts in (("typos", typos), ("partial names", partials)):
        answers = [index.resolve(t, fuzzy=True) for t in texts]
        counts = {status: sum(a.status == status for a in answers) for status in ("ok", "ambiguous", "not_found")}
        print(f"  {label}: " + ", ".join(f"{k} {v}" for k, v in counts.items()), end="")
        if texts is typos:  # a typo answered must be the card it was typed from
            meant = [index.resolve(n).oracle_id for n in typo_sources]
            right = sum(a.ok and a.oracle_id == oid for a, oid in zip(answers, meant))
            print(f" (the card typed: {right}, another card: {counts['ok'] - right})", end="")
        print()
    for miss in ("tarmogoyff", "Tarmogoyf"):
        print(
            f"cold `oracle-tools resolve {miss}` (a fresh process): {_cold(args.db, miss) * 1e3:4.0f} ms median", end=""
        )
        print(" (target <= 200 ms for a miss)" if miss == "tarmogoyff" else "")
    print(f"  floor, `python -c 'import duckdb'`: {_cold(None, '') * 1e3:4.0f} ms median")

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
