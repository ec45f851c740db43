"""Fresh-process start-up time and memory of every name command on the database of all the real files.

    python bench/bench_startup.py [--db PATH] [--runs N] [--rebuild] [--no-warm]

Builds once (into bench/out/, reused when present; ``--rebuild`` builds it again, needed after a
change to what ingest writes) the database of every real Scryfall-shaped file in ../shared/realdata:
the 2019 default-cards dump, the 2024 MH3/OTJ/FDN objects, the 272k foreign printings from MTGJSON and
the 2025 alternate-names file. Then runs each command as a NEW process (the installed ``oracle-tools``
script, as a user types it) ``--runs`` times and prints the median wall time, the median CPU time (user +
system: the figure to read on a shared machine) and the median peak RSS (GNU time's ``%M``), each beside the
floor ``python -c "import duckdb"`` measured in the same run, and the targets:

  * ``resolve Tarmogoyf``: <= 1.3x the floor (wall and CPU);
  * ``deck check`` of a 2-line deck: peak RSS <= 80 MB, printed beside its own floor: DuckDB's core imported, the
    database opened and one indexed point query (``python -c`` of that alone);
  * every other command (a miss, token of a card and of a predefined token, choose-name, a real 60-card 2019
    Modern list, search, sql): <= 300 ms wall and <= 250 MB peak RSS;  ``--help``: <= 150 ms.

Last, the warm library: RSS of one process after ``OracleDB(...)`` and one call of each feature
(target <= 600 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from realdata import build_all_real
from realdata import require as require_realdata

REPO = Path(__file__).resolve().parents[1]
REAL = require_realdata(__file__)
OUT = REPO / "bench" / "out"
WALL_TARGET, RSS_TARGET, HELP_TARGET, WARM_RSS_TARGET = 0.300, 250.0, 0.150, 600.0
#: ``resolve NAME`` against the floor (``import duckdb``), and the small deck check's peak RSS
RESOLVE_RATIO, SMALL_DECK_RSS = 1.3, 80.0
TIME = "/usr/bin/time"  # GNU time, for the peak RSS of one process
#: The floor of a small deck check's peak RSS: DuckDB's compiled core (as ``store.sqlfiles.engine`` imports it), a
#: read-only connection to the database and one point query by an indexed key, nothing of oracle-tools.
POINT_QUERY = (
    "import sys, _duckdb; _duckdb.connect(sys.argv[1], read_only=True)"
    ".execute('SELECT oracle_id FROM names WHERE key = ?', ['tarmogoyf']).fetchall()"
)


def sixty_card_list() -> Path:
    """A real 2019 Modern tournament list with exactly 60 main-deck cards, as decklist text."""
    import csv

    from oracle_tools.decks.decklist import read_decklists_json_cache, render_arena

    with (REAL / "decks" / "MANIFEST.tsv").open(encoding="utf-8") as handle:
        rows = [
            r
            for r in csv.DictReader(handle, delimiter="\t")
            if r["source"].startswith("spigushe") and r["format"] == "Modern" and r["path_date"][:4] == "2019"
        ]
    for row in sorted(rows, key=lambda r: r["path"]):
        for deck in read_decklists_json_cache(REAL / "decks" / row["source"] / row["path"]):
            if deck.total("main") == 60:
                path = OUT / "modern-60.txt"
                OUT.mkdir(parents=True, exist_ok=True)  # a fresh clone given --db has no bench/out/ yet
                path.write_text(render_arena(deck), encoding="utf-8")
                return path
    raise SystemExit("no 60-card 2019 Modern list in ../shared/realdata/decks")


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MB, CPU seconds) of one fresh process.

    Peak RSS comes from GNU time (``%M``): a child forked straight from this (large) Python process
    would inherit this process's high-water mark in its own rusage.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:
        started = time.perf_counter()
        proc = subprocess.run(
            [TIME, "-q", "-f", "%M %U %S", "-o", rss_file.name, *argv],
            check=False,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        wall = time.perf_counter() - started
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.strip()[:300]}")
        kilobytes, user, system = rss_file.read().split()[-3:]
    return wall, float(kilobytes) / 1024, float(user) + float(system)


def measure(commands: list[list[str]], env: dict[str, str], runs: int) -> list[tuple[float, float, float]]:
    """Median (wall seconds, peak RSS MB, CPU seconds) of each command. The commands take turns, run after run, so a
    machine that slows down for a while (this one does) slows every command and the floor alike."""
    for argv in commands:
        run_once(argv, env)  # page cache warm, like a user's second try
    samples: list[list[tuple[float, float, float]]] = [[] for _ in commands]
    for _ in range(runs):
        for argv, taken in zip(commands, samples, strict=True):
            taken.append(run_once(argv, env))
    return [tuple(statistics.median(s[i] for s in taken) for i in range(3)) for taken in samples]  # type: ignore[misc]


def has_search(cli: str, env: dict[str, str]) -> bool:
    out = subprocess.run([cli, "--help"], check=False, env=env, capture_output=True, text=True).stdout
    return any(line.split()[:1] == ["search"] for line in out.splitlines())


WARM_SCRIPT = r"""
import json, sys, time
import psutil
from oracle_tools import OracleDB
db_path, deck, with_search = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
started = time.perf_counter()
db = OracleDB(db_path)
db.resolve("Tarmogoyf")
db.resolve_many(["Tarmogoyf", "fire/ice", "Lightning Bolt"])
db.resolve("Tarmogoyff", fuzzy=True)
db.token("Tarmogoyf")
db.choose_name("Ice", "nonland")
db.check_deck(open(deck, encoding="utf-8").read(), format="modern")
db.same_name("Fire", "Fire // Ice")
if with_search:
    db.search("t:goblin c:r mv<=2")
db.sql("select count(*) from cards")
seconds = time.perf_counter() - started
print(json.dumps({"rss": psutil.Process().memory_info().rss / 2**20, "seconds": seconds}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=OUT / "all-real.duckdb")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rebuild", action="store_true", help="build the database again (after ingest changes)")
    parser.add_argument("--no-warm", action="store_true", help="skip the warm-library memory figure")
    args = parser.parse_args()
    build_all_real(args.db, args.rebuild)
    # The package's bytecode, as pip writes it when it installs the wheel: an editable install under
    # PYTHONDONTWRITEBYTECODE=1 (set on this machine) would otherwise compile every module in every process,
    # ~50 ms that no installed copy pays (the floor's duckdb and polars are pip-installed, so compiled).
    import compileall

    import oracle_tools

    compileall.compile_dir(Path(oracle_tools.__file__).parent, quiet=1)
    deck = sixty_card_list()
    two = OUT / "two-lines.txt"
    two.write_text("4 Tarmogoyf\n4 Lightning Bolt\n", encoding="utf-8")
    cli = shutil.which("oracle-tools", path=str(Path(sys.executable).parent)) or "oracle-tools"
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "ORACLE_TOOLS_DB": str(args.db), "HOME": home}
        commands: list[tuple[str, list[str], float]] = [
            ('python -c "import duckdb"  (floor)', [sys.executable, "-c", "import duckdb"], 0),
            ("python -c pass  (interpreter)", [sys.executable, "-c", "pass"], 0),
            # what any deck check must pay: DuckDB's core imported, the database opened, one indexed point query
            ("DuckDB: connect + one point query  (floor)", [sys.executable, "-c", POINT_QUERY, str(args.db)], 0),
            ("--help", [cli, "--help"], HELP_TARGET),
            ("resolve Tarmogoyf", [cli, "resolve", "Tarmogoyf"], RESOLVE_RATIO),
            ("resolve tarmogoyff (miss: suggestions)", [cli, "resolve", "tarmogoyff"], WALL_TARGET),
            ("token Tarmogoyf", [cli, "token", "Tarmogoyf"], WALL_TARGET),
            ("token Treasure (predefined, CR 111.10a)", [cli, "token", "Treasure"], WALL_TARGET),
            (
                "choose-name Ice --constraint nonland",
                [cli, "choose-name", "Ice", "--constraint", "nonland"],
                WALL_TARGET,
            ),
            ("deck check <2 lines> --format modern", [cli, "deck", "check", str(two), "--format", "modern"], 0),
            (
                "deck check <60 cards> --format modern",
                [cli, "deck", "check", str(deck), "--format", "modern"],
                WALL_TARGET,
            ),
        ]
        search_note = ""
        if has_search(cli, env):
            commands.append(('search "t:goblin c:r mv<=2"', [cli, "search", "t:goblin c:r mv<=2"], WALL_TARGET))
        else:
            search_note = "search: skipped, the installed CLI has no `search` command yet"
        commands.append(('sql "select count(*) from cards"', [cli, "sql", "select count(*) from cards"], WALL_TARGET))
        measured = measure([argv for _, argv, _ in commands], env, args.runs)
        rows = [(label, *m, target) for (label, _, target), m in zip(commands, measured, strict=True)]
    floor_wall, floor_cpu = rows[0][1], rows[0][3]
    point_floor_rss = next(r[2] for r in rows if r[0].startswith("DuckDB: connect"))
    print(
        f"\nfresh process, median of {args.runs} runs, database {args.db.name} "
        f"({args.db.stat().st_size / 1e6:.0f} MB); deck = {deck.name}; {os.cpu_count()} cores"
    )
    print(f"{'command':<44} {'wall ms':>8} {'x floor':>8} {'CPU ms':>8} {'x floor':>8} {'peak MB':>8}  target")
    for label, wall, rss, cpu, target in rows:
        if label.startswith("resolve Tarmogoyf"):
            ok = wall <= target * floor_wall and cpu <= target * floor_cpu
            verdict = f"<= {target}x the floor  {'ok' if ok else 'MISSED'}"
        elif label.startswith("deck check <2 lines>"):
            verdict = f"peak <= {SMALL_DECK_RSS:.0f} MB  {'ok' if rss <= SMALL_DECK_RSS else 'MISSED'}"
            verdict += f"  ({rss - point_floor_rss:+.0f} MB over the DuckDB floor)"
        elif target:
            ok = wall <= target and (rss <= RSS_TARGET or label == "--help")
            goal = f"<= {1000 * target:.0f} ms" + ("" if label == "--help" else f", <= {RSS_TARGET:.0f} MB")
            verdict = f"{goal}  {'ok' if ok else 'MISSED'}"
        else:
            verdict = "(baseline)"
        print(
            f"{label:<44} {1000 * wall:>8.0f} {wall / floor_wall:>8.2f} {1000 * cpu:>8.0f} {cpu / floor_cpu:>8.2f} "
            f"{rss:>8.0f}  {verdict}"
        )
    if search_note:
        print(search_note)
    if not args.no_warm:
        with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:  # peak from GNU time, as above
            out = subprocess.run(
                [
                    TIME,
                    "-q",
                    "-f",
                    "%M",
                    "-o",
                    rss_file.name,
                    sys.executable,
                    "-c",
                    WARM_SCRIPT,
                    str(args.db),
                    str(deck),
                    "1" if search_note == "" else "0",
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            warm = json.loads(out.strip().splitlines()[-1])
            warm["peak"] = float(rss_file.read().split()[-1]) / 1024
        print(
            f"\nwarm library: OracleDB + one call of each feature ({warm['seconds']:.2f} s): RSS {warm['rss']:.0f} MB, "
            f"peak {warm['peak']:.0f} MB   target <= {WARM_RSS_TARGET:.0f} MB  "
            f"{'ok' if warm['peak'] <= WARM_RSS_TARGET else 'MISSED'}"
        )


if __name__ == "__main__":
    main()
