"""Where people err: misspelt names, answered beside rapidfuzz's extractOne, CPU time (the machine may be shared).

    python bench/bench_misses.py [--db PATH] [--batch-only]

Builds (or reuses) the database of the real 2019 dump + the 2024 objects + the foreign printings (the ``full_db``
test fixture's files), then prints, each figure beside its floor measured in the same run:

  * "did you mean" (``resolve`` of a miss: not_found with suggestions and close token names) and ``resolve
    --fuzzy``, CPU per name, median of 200 one-edit typos of real decklist names (a letter dropped, doubled,
    swapped with its neighbour or replaced), warm; floor: rapidfuzz ``extractOne(typo, english_names,
    scorer=fuzz.ratio, processor=utils.default_process)`` over the English names (table ``name_suggestions``).
    Target: <= 0.5x. And how right the answers are: the typo's own card is the ``--fuzzy`` answer (target >= 180
    of 200, at most 2 other cards answered) and among the suggestions (target >= 190 of 200).
  * one deck of 1,000 misspelt lines (``check_deck``, CPU), in a fresh OracleDB as ``oracle-tools deck check``
    runs it, and warm as the server does; floor: 1,000 extractOne calls. Target <= 0.5x.
  * the first ``check_decks`` pass over every real decklist file beside the second pass (CPU). Target <= 2x.
  * ``resolve_many`` of 1,000,000 decklist names beside a bare Polars left join of them on the names table, and
    on one row per name of it (a stricter floor). Target: >= 1.0x the join's speed on the names table (not slower
    than the join), >= 0.9x on one row per name. ``--batch-only`` measures this one alone (a few seconds).

Runs on any tree of the project (only ``OracleDB`` calls every version has), so the tree before a change and the
tree after it can be measured one after the other: ``<other venv>/bin/python bench/bench_misses.py --db OTHER``.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
from rapidfuzz import fuzz, process, utils

from oracle_tools import OracleDB

from realdata import require as require_realdata

REAL = require_realdata(__file__)  # before bench_names, whose import checks too: the one line names this script

from bench_names import FILES, _typo, deck_names  # noqa: E402


def cpu_median(fn: Callable[[Any], object], args: list[Any]) -> float:
    """Median CPU seconds of one call, each argument timed once: its first answer (a matcher may remember what it
    read, and a user does not type the same typo twice)."""
    times = []
    for a in args:
        started = time.process_time()
        fn(a)
        times.append(time.process_time() - started)
    return statistics.median(times)


def cpu(fn: Callable[[], object]) -> float:
    started = time.process_time()
    fn()
    return time.process_time() - started


def one_edit_typos(db: OracleDB, names: list[str], count: int, rng: random.Random) -> list[tuple[str, str]]:
    """``count`` (real name, typo) pairs: distinct real decklist names that resolve, each with one slip that makes
    it no name at all (a typo that is another card's name is not a miss)."""
    pairs: list[tuple[str, str]] = []
    seen: set[str] = set()
    for name in rng.sample(names, len(names)):
        if len(pairs) == count:
            break
        typo = _typo(name, rng)
        if typo == name or typo in seen or db.resolve(typo).status != "not_found":
            continue
        seen.add(typo)
        pairs.append((name, typo))
    return pairs


def report(label: str, ours: float, floor: float, target: str) -> None:
    print(f"{label:<58} {ours * 1e3:8.3f} ms   floor {floor * 1e3:8.3f} ms   {ours / floor:5.2f}x  ({target})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=Path("/tmp/oracle-tools-bench-names.duckdb"))
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--batch-only", action="store_true", help="only resolve_many of 1M names beside the join")
    args = parser.parse_args()
    if not args.db.exists():
        OracleDB.ingest_files(args.db, [REAL / f for f in FILES])
    db = OracleDB(args.db)
    english = db.sql("SELECT name FROM name_suggestions ORDER BY key").get_column("name").to_list()
    typed = sorted(set(deck_names()))
    if args.batch_only:
        print(f"database: {args.db}; {len(typed):,} distinct decklist names")
        batch_beside_join(db, typed)
        return
    known = [n for n, s in zip(typed, db.resolve_many(typed).get_column("status").to_list()) if s == "ok"]
    rng = random.Random(args.seed)
    db.name_index  # noqa: B018 -- warm: the index exists before any timing
    pairs = one_edit_typos(db, known, 1400, rng)
    typos = [t for _, t in pairs[:200]]
    print(f"database: {args.db}; {len(english):,} English names; {len(typed):,} distinct decklist names")

    def floor_one(text: str) -> object:
        return process.extractOne(text, english, scorer=fuzz.ratio, processor=utils.default_process)

    floor = cpu_median(floor_one, typos)
    report('"did you mean" (resolve of a miss), CPU per name, median', cpu_median(db.resolve, typos), floor, "<= 0.5x")
    fuzzy_typos = [t for _, t in pairs[1200:1400]]  # others: not read before
    report(
        "resolve --fuzzy, CPU per name, median",
        cpu_median(lambda t: db.resolve(t, fuzzy=True), fuzzy_typos),
        cpu_median(floor_one, fuzzy_typos),
        "<= 0.5x",
    )
    right = wrong = suggested = 0
    for name, typo in pairs[:200]:
        meant = db.resolve(name)
        answer = db.resolve(typo, fuzzy=True)
        right += answer.ok and answer.oracle_id == meant.oracle_id
        wrong += answer.ok and answer.oracle_id != meant.oracle_id
        offered = db.resolve(typo).suggestions
        suggested += any(n in offered for n in (meant.name, meant.face, *meant.names) if n)
    print(
        f"  --fuzzy answers the typo's own card for {right} of 200 (target >= 180), another card for {wrong} "
        f"(target <= 2); the card is among the suggestions for {suggested} of 200 (target >= 190)"
    )

    deck = "\n".join(f"1 {t}" for _, t in pairs[200:1200])
    floor_deck = cpu(lambda: [floor_one(t) for _, t in pairs[200:1200]])
    fresh = OracleDB(args.db)
    first = cpu(lambda: fresh.check_deck(deck, format="legacy"))
    fresh.close()
    warm_db = OracleDB(args.db)
    for _ in range(OracleDB.POINT_LOOKUPS + 1):
        warm_db.resolve("Lightning Bolt")
    warm_db.check_deck("4 Lightning Bolt", format="legacy")  # the warm checker exists before the timing
    warm = cpu(lambda: warm_db.check_deck(deck, format="legacy"))
    report("one deck of 1,000 misspelt lines, fresh OracleDB, CPU", first, floor_deck, "<= 0.5x")
    report("the same deck, warm (a server's OracleDB), CPU", warm, floor_deck, "<= 0.5x")
    warm_db.close()

    files = sorted((REAL / "decks").rglob("*.json")) + sorted((REAL / "decks").rglob("*.txt"))
    passes = OracleDB(args.db)
    first_pass = cpu(lambda: passes.check_decks(files, format="legacy"))
    second_pass = cpu(lambda: passes.check_decks(files, format="legacy"))
    decks = passes.check_decks(files, format="legacy", summary=True).height
    print(
        f"{'check_decks over the real decks: first pass, CPU':<58} {first_pass:8.2f} s    second "
        f"{second_pass:8.2f} s    {first_pass / second_pass:5.2f}x  (<= 2x; {decks:,} decks)"
    )
    passes.close()
    batch_beside_join(db, typed)


def batch_beside_join(db: OracleDB, typed: list[str]) -> None:
    """``resolve_many`` of 1,000,000 decklist names (``typed`` repeated), CPU, median of 5, beside a bare left join
    of the same names on the names table and on one row per name of it, measured here."""
    column = pl.Series("query", (typed * (1_000_000 // len(typed) + 1))[:1_000_000])
    queries = pl.DataFrame({"query": column})
    table = db.frame("names")  # every column and row of the names table
    assert isinstance(table, pl.DataFrame)  # eager unless lazy=True
    one_each = table.unique("name")  # stricter: one row per name
    db.resolve_many(column.head(1000))  # the index and its frames exist before the timing

    floors = {"the names table": (table, 1.0), "one row per name of it": (one_each, 0.9)}
    runs: dict[str, list[float]] = {"ours": [], **{label: [] for label in floors}}
    for _ in range(5):  # interleaved: a load that comes and goes weighs on each alike
        runs["ours"].append(cpu(lambda: db.resolve_many(column)))
        for label, (names, _target) in floors.items():
            runs[label].append(
                cpu(functools.partial(queries.join, names, left_on="query", right_on="name", how="left"))
            )
    ours = statistics.median(runs["ours"])
    for label, (_names, target) in floors.items():
        floor_s = statistics.median(runs[label])
        print(
            f"{'resolve_many of 1,000,000 decklist names, CPU':<58} {ours:8.3f} s    join  {floor_s:8.3f} s    "
            f"{floor_s / ours:5.2f}x a bare left join's speed on {label} (>= {target}x)"
        )
    print(json.dumps({"machine": _machine()}))


def _machine() -> str:
    import os
    import platform

    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


if __name__ == "__main__":
    main()
