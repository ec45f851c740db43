"""``deck check`` of a deck with a Companion section beside the same deck without it (CR 702.139).

    python bench/bench_companion.py [--db PATH] [--runs N]

Runs ``oracle-tools deck check FILE --format legacy`` as a NEW process (as a user types it), alternately on a real
80-card 2024 Legacy list with its companion (Yorion, Sky Nomad, in an Arena-style ``Companion`` section: its
condition holds, so the whole judgement runs) and on the same list without the section, ``--runs`` times each, and
prints the median wall and CPU time (user + system: the figure to read on a shared machine) of each and their
ratio. Target: with the companion <= 1.2x without.

The database is the real-data one (the 2019 dump + the 2024 objects + the foreign printings, where the Ikoria
companions come from): ``--db`` (default /work/cache/full.duckdb), opened read-only.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from oracle_tools.decks.decklist import read_decklists_json_cache

from realdata import require as require_realdata

REAL = require_realdata(__file__)
# A real MTGmelee Legacy list of 2024 whose sideboard holds Yorion (MTGO's convention for a companion).
SOURCE = (
    REAL / "decks/fbettega-MTG_decklistcache/Tournaments/MTGmelee/2024/03/14/weekly-legacy-mont-70412-2024-03-14.json"
)
COMPANION = "Yorion, Sky Nomad"


def _lists() -> tuple[str, str]:
    """(with the Companion section, without it): the deck whose sideboard has Yorion, Yorion moved to the section."""
    deck = next(d for d in read_decklists_json_cache(SOURCE) if any(e.name == COMPANION for e in d.sideboard()))
    main = "".join(f"{e.count} {e.name}\n" for e in deck.main())
    side = "".join(f"{e.count} {e.name}\n" for e in deck.sideboard() if e.name != COMPANION)
    without = f"Deck\n{main}\nSideboard\n{side}"
    return f"Companion\n1 {COMPANION}\n\n{without}", without


def _run(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, default=Path("/work/cache/full.duckdb"))
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    exe = shutil.which("oracle-tools") or str(Path(sys.executable).with_name("oracle-tools"))
    with_section, without = _lists()
    folder = Path(tempfile.mkdtemp(prefix="bench-companion-"))
    files = {"with companion": folder / "with.txt", "without": folder / "without.txt"}
    files["with companion"].write_text(with_section, encoding="utf-8")
    files["without"].write_text(without, encoding="utf-8")
    env_note = f"{os.cpu_count()} cores"
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in files}
    for name, path in files.items():  # one run each first: the file in the page cache, the answer shown
        shown = subprocess.run(
            [exe, "deck", "check", "--db", str(args.db), str(path), "--format", "legacy"],
            capture_output=True,
            text=True,
        )
        print(f"{name}: exit {shown.returncode}; " + " | ".join(shown.stdout.strip().splitlines()[1:4]))
    for _ in range(args.runs):
        for name, path in files.items():  # alternated: both see the same load of the machine
            times[name].append(_run([exe, "deck", "check", "--db", str(args.db), str(path), "--format", "legacy"]))
    print(f"deck check, {args.runs} runs each, fresh processes ({env_note}):")
    medians = {}
    for name, runs in times.items():
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        medians[name] = (wall, cpu)
        print(f"  {name:15} wall {wall * 1000:7.1f} ms   cpu {cpu * 1000:7.1f} ms")
    (w1, c1), (w0, c0) = medians["with companion"], medians["without"]
    print(f"  ratio           wall {w1 / w0:.2f}x   cpu {c1 / c0:.2f}x   (target <= 1.2x)")
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
