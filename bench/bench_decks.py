"""Deck legality checker speed on real decks (oracle_tools/decks/checker.py).

    python bench/bench_decks.py [--db PATH] [--repeat N]

Builds (or reuses) a database of the real 2019 Scryfall dump + the 2024 objects + the foreign
printings (the same files as the ``full_db`` test fixture), then prints medians and the ratio to
each target:

  * one 100-card Commander deck (a real Duel Commander list from 2019, commander in the command
    zone), checked warm: from a parsed Decklist, and from its text (parse + check). Target <= 2 ms.
  * batch: every 2019 Modern, Legacy and Pauper deck in ../shared/realdata/decks (Spigushe mtgtop8
    caches) through ``db.check_decks``: from parsed Decklists, and from the files (parse + check).
    Target >= 1,000 decks per second.
  * per format: all ~3,050 real decks of every source checked against each format, the first call
    of a fresh OracleDB and warm, beside the same first call with names looked up one at a time (the
    older way, whose per-name fuzzy search made whichever format ran first ~14x slower).
    Target >= 5,000 decks per second.
  * how many entries did not resolve (unknown_card), and the top unknown names.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from oracle_tools import OracleDB
from oracle_tools.decks.decklist import read_decklists_json_cache, render_arena

from realdata import require as require_realdata

REPO = Path(__file__).resolve().parents[1]
REAL = require_realdata(__file__)
FILES = [
    "scryfall-default-cards-2019-10-per-set-dump.json.gz",
    "scryfall-search-2024-mh3-otj-fdn.json.gz",
    "scryfall-foreign-printings-from-mtgjson-2022.json.gz",
]
BATCH_FORMATS = {"Modern": "modern", "Legacy": "legacy", "Pauper": "pauper"}
PER_FORMAT = ("vintage", "legacy", "modern", "pauper", "standard", "pioneer", "commander", "duel")


def all_real_decks() -> list:
    """Every deck of every readable file in ../shared/realdata/decks (about 3,050)."""
    from oracle_tools.decks.checker import to_decklists
    from oracle_tools.errors import DecklistError

    out: list = []
    for path in sorted(p for p in (REAL / "decks").rglob("*") if p.suffix in (".json", ".txt", ".dek")):
        try:
            out.extend(to_decklists(path))
        except DecklistError:
            continue
    return out


def manifest_files(formats: set[str], year: str = "2019") -> list[tuple[Path, str]]:
    out = []
    with (REAL / "decks" / "MANIFEST.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["source"].startswith("spigushe") and row["format"] in formats and row["path_date"][:4] == year:
                out.append((REAL / "decks" / row["source"] / row["path"], row["format"]))
    return out


def median_time(fn: Callable[..., object], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=Path("/tmp/oracle-tools-bench-decks.duckdb"))
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    if not args.db.exists():
        print(f"building {args.db} from the real 2019 dump (+2024, +foreign printings) ...")
        OracleDB.ingest_files(args.db, [REAL / f for f in FILES])
    db = OracleDB(args.db)
    started = time.perf_counter()
    db.deck_checker.legality("modern")  # builds the checker (once per OracleDB), then one format
    print(f"checker build (once per OracleDB): {1000 * (time.perf_counter() - started):.0f} ms")

    # -- one 100-card Commander deck ---------------------------------------------------------
    duel_files = manifest_files({"Duel Commander"})
    commander_deck = None
    for path, _ in duel_files:
        for deck in read_decklists_json_cache(path):
            if deck.total("main") + deck.total("commander") == 100 and deck.total("commander") == 1:
                commander_deck = deck
                break
        if commander_deck:
            break
    assert commander_deck is not None, "no 100-card Duel Commander deck found"
    text = render_arena(commander_deck)
    db.check_deck(commander_deck, format="duel")  # warm: names resolved once, cached
    db.check_deck(text, format="duel")
    n = 200
    t_deck = median_time(lambda: [db.check_deck(commander_deck, format="duel") for _ in range(n)], args.repeat) / n
    t_text = median_time(lambda: [db.check_deck(text, format="duel") for _ in range(n)], args.repeat) / n
    report = db.check_deck(commander_deck, format="duel")
    print(
        f"\n100-card Commander deck ({commander_deck.source.split('/')[-1]}, {commander_deck.player}; "
        f"commander {', '.join(report.commanders)}; {len(report.problems)} problems in the 2019 legalities)"
    )
    print(
        f"  check a parsed Decklist, warm: median {1e3 * t_deck:.3f} ms   target <= 2 ms   "
        f"ratio {2e-3 / t_deck:.1f}x better than target"
    )
    print(
        f"  parse text + check, warm:      median {1e3 * t_text:.3f} ms   target <= 2 ms   "
        f"ratio {2e-3 / t_text:.1f}x better than target"
    )

    # -- batch: every 2019 Modern / Legacy / Pauper deck ------------------------------------------
    files = manifest_files(set(BATCH_FORMATS))
    decks_by_format: dict[str, list] = {}
    for path, label in files:
        decks_by_format.setdefault(BATCH_FORMATS[label], []).extend(read_decklists_json_cache(path))
    total = sum(len(v) for v in decks_by_format.values())
    sizes = Counter(d.total("main") for v in decks_by_format.values() for d in v)
    print(
        f"\nbatch: {total} real 2019 decks from {len(files)} files "
        f"({', '.join(f'{k} {len(v)}' for k, v in decks_by_format.items())}); "
        f"{sizes.get(60, 0)} have exactly 60 main-deck cards"
    )

    def run_parsed() -> None:
        for fmt, decks in decks_by_format.items():
            db.check_decks(decks, format=fmt)

    def run_files() -> None:
        for fmt in decks_by_format:
            db.check_decks([p for p, label in files if BATCH_FORMATS[label] == fmt], format=fmt)

    run_parsed()  # warm
    t_parsed = median_time(run_parsed, args.repeat)
    t_files = median_time(run_files, args.repeat)
    for label, t in (("from parsed Decklists", t_parsed), ("from the JSON files (parse + check)", t_files)):
        rate = total / t
        print(
            f"  {label}: median {t:.3f} s = {rate:,.0f} decks/s   target >= 1,000/s   ratio {rate / 1000:.1f}x target"
        )

    # -- per format: every real deck (all sources) checked against each format's rules ---------------
    every = all_real_decks()
    print(
        f"\nper format: all {len(every):,} real decks of ../shared/realdata/decks checked against each format "
        f"(target >= 5,000 decks/s warm). 'first' = the first check_decks of a fresh OracleDB (checker built, "
        f"names not yet seen: ~2,000 distinct unknown names need suggestions); 'warm' = median of {args.repeat} "
        f"more; 'one by one' = the same first call with the names looked up one at a time (the older way)"
    )
    print(f"  {'format':<10} {'first':>10} {'warm':>10} {'one by one':>11} {'problems':>9}")
    for fmt in PER_FORMAT:
        row = []
        for batch in (True, False):
            fresh = OracleDB(args.db)
            fresh.deck_checker.legality(fmt)  # the checker build is timed above
            if not batch:
                fresh.deck_checker.prefetch = lambda names: None  # type: ignore[method-assign]
            started = time.perf_counter()
            frame = fresh.check_decks(every, format=fmt)
            row.append(len(every) / (time.perf_counter() - started))
            if batch:
                row.append(
                    len(every) / median_time(lambda db=fresh, f=fmt: db.check_decks(every, format=f), args.repeat)
                )
            fresh.close()
        first, warm, one_by_one = row
        # the target is warm: "same decks, same machine, warm"; 'first' also pays for ~2,000 unknown
        # names' suggestions and loading the format's legalities, shown for information
        ok = "ok" if warm >= 5000 else "MISSED"
        print(f"  {fmt:<10} {first:>8,.0f}/s {warm:>8,.0f}/s {one_by_one:>9,.0f}/s {frame.height:>9,}  {ok}")

    # -- what the real decks say ---------------------------------------------------------------
    problems = [db.check_decks(decks, format=fmt) for fmt, decks in decks_by_format.items()]
    import polars as pl

    frame = pl.concat(problems)
    entries = sum(len(d.entries) for v in decks_by_format.values() for d in v)
    unknown = frame.filter(pl.col("kind") == "unknown_card")
    print("\nproblems by kind (2019 legalities are a preview-era snapshot, see realdata/SOURCES.md):")
    for kind, count in frame.group_by("kind").len().sort("len", descending=True).iter_rows():
        print(f"  {kind:<16} {count:>6}")
    print(f"unknown names: {unknown.height} of {entries} entries ({100 * unknown.height / max(entries, 1):.3f}%)")
    for card, count in unknown.group_by("card").len().sort("len", descending=True).head(15).iter_rows():
        print(f"  {count:>4}  {card}")


if __name__ == "__main__":
    main()
