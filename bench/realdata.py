"""Where the benchmarks find the real data (../shared/realdata beside the checkout, or $ORACLE_TOOLS_REALDATA),
and the one line each says when it is absent."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "realdata"


def require(script: str) -> Path:
    """The real-data folder, or exit with one line saying what ``script`` needs."""
    folder = Path(os.environ.get("ORACLE_TOOLS_REALDATA", DEFAULT))
    if not folder.is_dir():
        name = Path(script).name
        sys.exit(
            f"{name} needs the real card data in {folder} (../shared/realdata beside the checkout, or "
            "ORACLE_TOOLS_REALDATA): it is absent. The sample inside the package is too small to measure."
        )
    return folder


#: Every real Scryfall-shaped card file: the database the server, start-up, web and bulk benches measure on
#: (bench/out/all-real.duckdb, built once and shared by them).
ALL_CARD_FILES = (
    "scryfall-default-cards-2019-10-per-set-dump.json.gz",
    "scryfall-search-2024-mh3-otj-fdn.json.gz",
    "scryfall-foreign-printings-from-mtgjson-2022.json.gz",
    "scryfall-shaped-2025-alternate-names.json.gz",
)
ALL_REAL_DB = Path(__file__).resolve().parent / "out" / "all-real.duckdb"


def build_all_real(db: Path = ALL_REAL_DB, rebuild: bool = False) -> Path:
    """The database of :data:`ALL_CARD_FILES` at ``db``, built when absent (or ``rebuild``: after a change to what
    ingest writes)."""
    if db.exists() and not rebuild:
        return db
    import time

    from oracle_tools import OracleDB

    folder = require("the benchmarks")
    db.parent.mkdir(parents=True, exist_ok=True)
    print(f"building {db} from {', '.join(ALL_CARD_FILES)} ...", flush=True)
    started = time.perf_counter()
    OracleDB.ingest_files(db, [folder / f for f in ALL_CARD_FILES if (folder / f).exists()]).close()
    print(f"  built in {time.perf_counter() - started:.1f} s", flush=True)
    return db


def record_or_compare(
    doc: str | None, record: Callable[[Path, Path], object], compare: Callable[[Path, Path, int], int]
) -> int:
    """The command line of a script that records answers on one tree and compares two records:
    ``record --db DB --out FILE`` then ``compare BEFORE AFTER [--examples N]``; returns the exit status."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--db", type=Path, required=True)
    rec.add_argument("--out", type=Path, required=True)
    cmp = sub.add_parser("compare")
    cmp.add_argument("before", type=Path)
    cmp.add_argument("after", type=Path)
    cmp.add_argument("--examples", type=int, default=10, help="differing answers shown")
    args = parser.parse_args()
    if args.command == "record":
        record(args.db, args.out)
        return 0
    return compare(args.before, args.after, args.examples)
