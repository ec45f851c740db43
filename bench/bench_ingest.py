"""Ingest speed and memory against DuckDB alone, at the dump's size and at all-cards scale.

    python bench/bench_ingest.py                 # the real 2019 dump: time, CPU, peak RSS, file size
    python bench/bench_ingest.py --scale 16      # also a ~2 GB all-cards-sized file: peak RSS

For the real default-cards dump (45,851 printings, 127 MB of JSON), each command in a fresh process
(GNU time's peak RSS and CPU; run twice, interleaved, best of the two):
  * DuckDB alone: CREATE TABLE t AS SELECT * FROM read_json(file, sample_size = -1) into a file database
  * oracle-tools: the full ingest (every table, names, rules, the kept Scryfall objects) into a file database
  * the ratios, wall and CPU (target: wall <= 1.0; on a shared machine read the CPU ratio), the ingest's
    peak RSS (target <= 500 MB) and the database's size.
With --scale N (16: about 730k printings, the size of all_cards) it writes the dump N times over with fresh
ids, and measures both commands on it the same way (target: the ingest's peak RSS < 1 GB).

The change history (at most 10 % of the ingest on the dump, 15 % at x16): the dump ingested over a
database of the dump plus the 2024 objects (so there is a real difference to record: the 2024 errata undone,
the 2024 cards removed, legalities), with the history and, in the same run, interleaved, the same ingest with
the history step made a no-op (``changes.record``); printed with the step's own time. With --scale, the scaled
file over that database too (the history is per card, not per printing).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import NamedTuple

import duckdb

from realdata import require as require_realdata

REPO = Path(__file__).resolve().parents[1]
REALDATA = require_realdata(__file__)
DUMP = REALDATA / "scryfall-default-cards-2019-10-per-set-dump.json.gz"
FILE_2024 = REALDATA / "scryfall-search-2024-mh3-otj-fdn.json.gz"
TIME = "/usr/bin/time"  # GNU time: peak RSS and CPU of one process


def time_with_history(path: Path, workdir: Path, previous: Path, *, history: bool) -> tuple[float, float]:
    """(seconds of the whole ingest, seconds of its history step) of ``path`` ingested over a copy of ``previous``;
    ``history=False``: the same ingest with ``changes.record`` a no-op."""
    from oracle_tools import OracleDB
    from oracle_tools.history import changes

    db = workdir / "history.duckdb"
    shutil.copy(previous, db)
    real, spent = changes.record, [0.0]

    def timed(con: duckdb.DuckDBPyConnection, catalog: str | None) -> dict[str, int]:
        started = time.perf_counter()
        added = real(con, catalog) if history else {}
        spent[0] = time.perf_counter() - started
        return added

    changes.record = timed  # type: ignore[assignment]
    try:
        started = time.perf_counter()
        OracleDB.ingest_files(db, [path])
        return time.perf_counter() - started, spent[0]
    finally:
        changes.record = real


def history_report(label: str, on: list[tuple[float, float]], off: list[float], target: float) -> None:
    with_h, without = statistics.median(t for t, _ in on), statistics.median(off)
    step = statistics.median(s for _, s in on)
    share = (with_h - without) / without
    print(f"{label}: ingest with the change history: median {with_h:.2f}s  runs {[round(t, 2) for t, _ in on]}")
    print(f"{label}: the same ingest without it:      median {without:.2f}s  runs {[round(t, 2) for t in off]}")
    print(
        f"{label}: history step {step:.3f}s = {step / without:.1%} of the ingest without it; "
        f"difference of the medians {share:+.1%}  (target <= {target:.0%})  {'ok' if step / without <= target else 'MISSED'}"
    )


def write_scaled(path: Path, copies: int, target: Path) -> int:
    """The dump written ``copies`` times, each copy with fresh printing ids (oracle ids kept)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        objects = json.load(handle)
    count = 0
    with target.open("w", encoding="utf-8") as out:
        out.write("[\n")
        for copy in range(copies):
            for obj in objects:
                obj = dict(obj, id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"bench:{copy}:{obj['id']}")))
                out.write(("" if count == 0 else ",\n") + json.dumps(obj, ensure_ascii=False))
                count += 1
        out.write("\n]\n")
    return count


_ALONE = (
    "import sys, duckdb; con = duckdb.connect(sys.argv[1]); con.execute('SET enable_progress_bar = false'); "
    "con.execute('CREATE TABLE t AS SELECT * FROM read_json(?, sample_size = -1)', [sys.argv[2]]); "
    "con.execute('CHECKPOINT'); con.close()"
)
_INGEST = "import sys; from oracle_tools import OracleDB; OracleDB.ingest_files(sys.argv[1], [sys.argv[2]])"
# The scaled ingest over a copy of the previous database (argv 3), the history on (argv 4 == "1") or a no-op;
# prints the history step's seconds.
_INGEST_HISTORY = (
    "import shutil, sys, time; from oracle_tools import OracleDB, changes; shutil.copy(sys.argv[3], sys.argv[1]); "
    "real = changes.record; spent = [0.0]\n"
    "def timed(con, catalog):\n"
    "    t = time.perf_counter(); out = real(con, catalog) if sys.argv[4] == '1' else {}\n"
    "    spent[0] = time.perf_counter() - t; return out\n"
    "changes.record = timed; OracleDB.ingest_files(sys.argv[1], [sys.argv[2]]); print(spent[0])"
)


class Run(NamedTuple):
    """One command in a fresh process: wall seconds, CPU seconds (user + system), peak RSS in MB."""

    wall: float
    cpu: float
    peak_mb: float


def child(code: str, path: Path, db: Path, *extra: str) -> Run:
    """``code`` run in a fresh process on ``path`` into ``db``.

    Peak RSS and CPU from GNU time: a child forked from this process (which may hold the parsed dump) would
    inherit this process's high-water mark in its own rusage.
    """
    db.unlink(missing_ok=True)
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        started = time.perf_counter()
        subprocess.run(
            [TIME, "-q", "-f", "%M %U %S", "-o", rss.name, sys.executable, "-c", code, str(db), str(path), *extra],
            check=True,
        )
        seconds = time.perf_counter() - started
        kib, user, system = rss.read().split()[-3:]
    return Run(seconds, float(user) + float(system), float(kib) / 1024)


def compare(label: str, path: Path, workdir: Path, runs: int, rss_target_mb: float) -> None:
    """DuckDB alone and the ingest, ``runs`` times each, interleaved; the best of each beside the other."""
    alone, ours = [], []
    for _ in range(runs):  # interleaved, so machine load affects both alike
        alone.append(child(_ALONE, path, workdir / "alone.duckdb"))
        ours.append(child(_INGEST, path, workdir / "ours.duckdb"))
    size = (workdir / "ours.duckdb").stat().st_size / 1e6
    a_wall, o_wall = min(r.wall for r in alone), min(r.wall for r in ours)
    a_cpu, o_cpu = min(r.cpu for r in alone), min(r.cpu for r in ours)
    peak = max(r.peak_mb for r in ours)
    print(
        f"{label}: duckdb alone (read_json into one table): wall {a_wall:.2f}s  CPU {a_cpu:.2f}s  "
        f"peak {max(r.peak_mb for r in alone):.0f} MB"
    )
    print(
        f"{label}: oracle-tools ingest (every table):        wall {o_wall:.2f}s  CPU {o_cpu:.2f}s  peak {peak:.0f} MB  "
        f"database {size:.1f} MB"
    )
    print(
        f"{label}: ratio wall {o_wall / a_wall:.2f} (target <= 1.0) {'ok' if o_wall <= a_wall else 'MISSED'};  "
        f"ratio CPU {o_cpu / a_cpu:.2f};  peak RSS {peak:.0f} MB (target <= {rss_target_mb:.0f} MB) "
        f"{'ok' if peak <= rss_target_mb else 'MISSED'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, default=DUMP)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--scale", type=int, default=0, help="also measure peak RSS on N copies of the file")
    parser.add_argument("--no-history", action="store_true", help="skip the change-history figures")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        workdir = Path(tmp)
        # the machine's load beside the figures: wall ratios on a shared machine move with it (read the CPU ratio)
        load = "/".join(f"{x:.1f}" for x in os.getloadavg())
        print(
            f"file: {args.file.name} ({args.file.stat().st_size / 1e6:.1f} MB on disk); {os.cpu_count()} cores; "
            f"load average {load}"
        )
        compare("x1", args.file, workdir, args.runs, 500)
        previous = workdir / "previous-2019-2024.duckdb"
        if not args.no_history:
            from oracle_tools import OracleDB

            OracleDB.ingest_files(previous, [args.file, FILE_2024]).close()
            on: list[tuple[float, float]] = []
            off: list[float] = []
            for _ in range(args.runs):  # interleaved as above
                on.append(time_with_history(args.file, workdir, previous, history=True))
                off.append(time_with_history(args.file, workdir, previous, history=False)[0])
            history_report("x1", on, off, 0.10)
        if args.scale:
            scaled = workdir / "all-cards-scaled.json"
            rows = write_scaled(args.file, args.scale, scaled)
            print(f"scaled file (x{args.scale}): {rows:,} printings, {scaled.stat().st_size / 1e9:.2f} GB")
            compare(f"x{args.scale}", scaled, workdir, 1, 1024)
            if not args.no_history:
                scaled_db = workdir / "scaled-history.duckdb"
                with_h = _scaled_history(scaled, scaled_db, previous, "1")
                without = _scaled_history(scaled, scaled_db, previous, "0")
                history_report(f"x{args.scale}", [with_h], [without[0]], 0.15)


def _scaled_history(scaled: Path, db: Path, previous: Path, history: str) -> tuple[float, float]:
    """(seconds, history step seconds) of the scaled ingest over ``previous`` in a child process."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _INGEST_HISTORY, str(db), str(scaled), str(previous), history],
        check=True,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - started, float(done.stdout.split()[-1])


if __name__ == "__main__":
    main()
