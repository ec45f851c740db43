"""oracle-tools beside the lightest installable peer, scry-terminal, on the same input and work.

    python bench/bench_peer.py [--tree DIR] [--runs N] [--full-db PATH]

scry-terminal ("instant, offline card lookups and deck diagnostics": Scryfall JSON lines -> an indexed SQLite
file) is installed into the bench's OWN virtualenv, never into the project's: ``$ORACLE_TOOLS_BENCH_VENVS``
(default ``~/.cache/oracle-tools/bench-peers``)``/scry-terminal-<version>``, made on first use with ``pip install``.
Each measurement is a whole fresh process under GNU time (CPU = user + system, peak RSS); the two tools and the
floors take turns, run after run, and the best (least CPU) of ``--runs`` is printed, with the machine's load
average before and after (other work shares this machine: read the CPU columns).

  (i)   load the 2019 Scryfall dump (45,851 printings): ``oracle-tools ingest --bulk-file`` vs ``scry reindex`` of
        the same objects (scry reads JSON lines, ``SCRY_ORACLE_PATH``: the dump is written once as one object a
        line, unmeasured); floors: ``python -c "import duckdb"`` and DuckDB's ``read_json(sample_size=-1)`` of the
        dump into a file database.
  (ii)  a fresh process resolving 1,000 distinct real decklist names one at a time (deterministic: every
        13th of the sorted distinct names written in the real decklists): ``OracleDB(db).resolve(name)`` in a
        loop vs scry's exact lookup (``search_name(name, exact=True, limit=1)``, what ``scry name --exact``
        runs, on its sidecar index), each on the database it built in (i); how many each found. Ours twice: as
        ``resolve`` answers unless told (each miss searched for the names it may mean: 347 of the 1,000 are no
        card of the 2019 dump) and as ``resolve(name, suggest=0)``, the exact lookup scry does (trees that have it).
  (iii) 100 real decks (every 2019 Modern, Legacy and Pauper list of the Spigushe caches, evenly spaced), checked one
        at a time in one process: ``OracleDB(db).check_deck(text, format=...)`` per deck vs scry's ``deck``
        command's analysis (``run_deck_analysis(text, target_format=..., offline=True)``) per deck; and ours as
        one batch (``check_decks``) for reference.

``--tree DIR`` measures another checkout of oracle-tools (its package first on ``PYTHONPATH``, this venv's
dependencies): run it on main's tree and on a branch's one after the other. ``--full-db PATH`` adds (ii) on that
database (the real one: 2019 + 2024 + the foreign printings).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from realdata import require as require_realdata

REPO = Path(__file__).resolve().parents[1]
REAL = require_realdata(__file__)
DUMP = REAL / "scryfall-default-cards-2019-10-per-set-dump.json.gz"
OUT = REPO / "bench" / "out" / "peer"
TIME = "/usr/bin/time"  # GNU time: the peak RSS and CPU of one process
PEER, PEER_VERSION = "scry-terminal", "1.1.0"
NAMES, DECKS = 1000, 100
BATCH_FORMATS = {"Modern": "modern", "Legacy": "legacy", "Pauper": "pauper"}


class Run(NamedTuple):
    wall: float
    cpu: float
    rss: float  # MB
    out: str


def peer_venv() -> Path:
    """The peer's own virtualenv (made and installed on first use): never a dependency of the project."""
    root = Path(os.environ.get("ORACLE_TOOLS_BENCH_VENVS", Path.home() / ".cache" / "oracle-tools" / "bench-peers"))
    venv = root / f"{PEER}-{PEER_VERSION}"
    if not (venv / "bin" / "scry").exists():
        print(f"installing {PEER}=={PEER_VERSION} into {venv} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"{PEER}=={PEER_VERSION}"], check=True)
    return venv


def run(argv: list[str], env: dict[str, str]) -> Run:
    """One fresh process under GNU time (its own peak RSS, not this process's high-water mark)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as record:
        started = time.perf_counter()
        proc = subprocess.run(
            [TIME, "-q", "-f", "%M %U %S", "-o", record.name, *argv],
            env=env,
            capture_output=True,
            text=True,
            cwd=tempfile.gettempdir(),  # not a checkout: `python -c` puts its folder first on sys.path
        )
        wall = time.perf_counter() - started
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(argv)[:200]} exited {proc.returncode}: {proc.stderr.strip()[-600:]}")
        kilobytes, user, system = record.read().split()[-3:]
    return Run(wall, float(user) + float(system), float(kilobytes) / 1024, proc.stdout)


def best(runs: list[Run]) -> Run:
    return min(runs, key=lambda r: r.cpu)


# -- the inputs, written once ---------------------------------------------------------------------------------


def dump_as_json_lines(target: Path) -> Path:
    """The dump (``[`` / one object a line with a trailing comma / ``]``) as JSON lines, scry's input format."""
    if not target.exists():
        with gzip.open(DUMP, "rt", encoding="utf-8") as source, open(f"{target}.tmp", "w", encoding="utf-8") as sink:
            for line in source:
                line = line.strip().rstrip(",")
                if line not in ("[", "]", ""):
                    sink.write(line + "\n")
        os.replace(f"{target}.tmp", target)
    return target


def real_names() -> list[str]:
    """1,000 distinct real decklist names: every 13th of the sorted distinct names of the decklists."""
    from bench_names import deck_names

    distinct = sorted(set(deck_names()))
    return distinct[:: max(1, len(distinct) // NAMES)][:NAMES]


def real_decks() -> list[tuple[str, str]]:
    """100 real decks as (decklist text, format): the 2019 Modern/Legacy/Pauper lists, evenly spaced."""
    import csv

    from oracle_tools.decks.decklist import read_decklists_json_cache, render_arena

    decks: list[tuple[str, str]] = []
    with (REAL / "decks" / "MANIFEST.tsv").open(encoding="utf-8") as handle:
        rows = [
            r
            for r in csv.DictReader(handle, delimiter="\t")
            if r["source"].startswith("spigushe") and r["format"] in BATCH_FORMATS and r["path_date"][:4] == "2019"
        ]
    for row in sorted(rows, key=lambda r: r["path"]):
        for deck in read_decklists_json_cache(REAL / "decks" / row["source"] / row["path"]):
            decks.append((render_arena(deck, name=""), BATCH_FORMATS[row["format"]]))
    return decks[:: max(1, len(decks) // DECKS)][:DECKS]


# -- the child processes ----------------------------------------------------------------------------------------

_OURS_NAMES = """
import json, sys, time
t0 = time.perf_counter()
from oracle_tools import OracleDB
names = json.load(open(sys.argv[2], encoding="utf-8"))
t1 = time.perf_counter()
db = OracleDB(sys.argv[1])
options = {"suggest": 0} if sys.argv[3] == "exact" else {}
found = sum(db.resolve(n, **options).ok for n in names)
print(json.dumps({"found": found, "import": t1 - t0, "work": time.perf_counter() - t1}))
"""
_PEER_NAMES = """
import json, sys, time
t0 = time.perf_counter()
from scry_cli import search, store
names = json.load(open(sys.argv[1], encoding="utf-8"))
t1 = time.perf_counter()
store.load_cards()
found = sum(bool(search.search_name(n, exact=True, limit=1)) for n in names)
print(json.dumps({"found": found, "import": t1 - t0, "work": time.perf_counter() - t1}))
"""
_OURS_DECKS = """
import json, sys, time
t0 = time.perf_counter()
from oracle_tools import OracleDB
decks = json.load(open(sys.argv[2], encoding="utf-8"))
t1 = time.perf_counter()
db = OracleDB(sys.argv[1])
if sys.argv[3] == "batch":
    legal = 0
    for fmt in sorted({f for _, f in decks}):
        summary = db.check_decks([t for t, f in decks if f == fmt], format=fmt, summary=True)
        legal += int(summary.get_column("legal").sum())
else:
    legal = sum(db.check_deck(text, format=fmt).legal for text, fmt in decks)
print(json.dumps({"legal": legal, "import": t1 - t0, "work": time.perf_counter() - t1}))
"""
_PEER_DECKS = """
import json, sys, time
t0 = time.perf_counter()
from scry_cli import store
from scry_cli.deck import run_deck_analysis
decks = json.load(open(sys.argv[1], encoding="utf-8"))
t1 = time.perf_counter()
store.load_cards()
legal = sum(bool(run_deck_analysis(text, target_format=fmt, offline=True).get("is_legal")) for text, fmt in decks)
print(json.dumps({"legal": legal, "import": t1 - t0, "work": time.perf_counter() - t1}))
"""
_READ_JSON = (
    "import sys, duckdb; con = duckdb.connect(sys.argv[1]); con.execute('SET enable_progress_bar = false'); "
    "con.execute('CREATE TABLE t AS SELECT * FROM read_json(?, sample_size = -1)', [sys.argv[2]]); "
    "con.execute('CHECKPOINT'); con.close()"
)

# Keeping each printing's whole object (what the Scryfall-shaped answers serve), alone: the dump read once more by
# DuckDB's object reader and compressed, as the ingest does beside its layers (trees that keep objects).
_KEEP_ALONE = (
    "import sys, duckdb; from oracle_tools.store import scryfall_objects as so; "
    "con = duckdb.connect(sys.argv[1]); con.execute('SET enable_progress_bar = false'); "
    "con.execute(\"SET memory_limit = '256MB'\"); "
    "con.execute('CREATE TABLE scryfall_objects (id VARCHAR PRIMARY KEY, "
    "object BLOB NOT NULL USING COMPRESSION uncompressed)'); "
    "con.execute('CREATE TABLE scryfall_object_dictionary (digest VARCHAR NOT NULL, dictionary BLOB NOT NULL)'); "
    "so.keep(con, [so.CardFile(sys.argv[2], 'array', 'gzip')]); con.execute('CHECKPOINT'); con.close()"
)


def _has_suggest_option(tree: Path, env: dict[str, str]) -> bool:
    """Whether the measured tree's ``OracleDB.resolve`` takes ``suggest`` (older trees always suggest)."""
    probe = "import inspect, oracle_tools as o; print('suggest' in inspect.signature(o.OracleDB.resolve).parameters)"
    found = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, cwd=tree)
    return found.stdout.strip() == "True"


def load() -> str:
    return f"{os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f}"


def row(label: str, r: Run, peer: Run | None, floor: Run | None, extra: str = "") -> None:
    line = f"  {label:<46} wall {r.wall:6.2f} s  CPU {r.cpu:6.2f} s  peak {r.rss:5.0f} MB"
    if peer is not None:
        line += f"   x peer: CPU {r.cpu / peer.cpu:5.2f}  wall {r.wall / peer.wall:5.2f}  peak {r.rss / peer.rss:5.2f}"
    if floor is not None:
        line += f"   x floor CPU {r.cpu / floor.cpu:5.2f}"
    print(line + (f"   {extra}" if extra else ""), flush=True)


def measured(output: str) -> str:
    found = json.loads(output.strip().splitlines()[-1])
    return "  ".join(f"{k} {v:.2f} s" if isinstance(v, float) else f"{k} {v}" for k, v in found.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=REPO, help="the oracle-tools checkout to measure")
    parser.add_argument("--runs", type=int, default=2, help="runs of each measurement (the best is printed)")
    parser.add_argument("--full-db", type=Path, help="also (ii) on this database (opened read-only)")
    args = parser.parse_args()
    tree = args.tree.resolve()
    venv = peer_venv()
    OUT.mkdir(parents=True, exist_ok=True)
    import compileall

    # bytecode as an installed wheel has it (PYTHONDONTWRITEBYTECODE=1 on this machine would recompile every run)
    compileall.compile_dir(tree / "oracle_tools", quiet=1)
    compileall.compile_dir(next((venv / "lib").glob("python*/site-packages/scry_cli")), quiet=1)
    lines = dump_as_json_lines(OUT / "default-cards-2019.jsonl")
    names_file, decks_file = OUT / "names.json", OUT / "decks.json"
    names_file.write_text(json.dumps(real_names()), encoding="utf-8")
    decks_file.write_text(json.dumps(real_decks()), encoding="utf-8")
    python, peer_python = sys.executable, str(venv / "bin" / "python")
    cli = str(Path(sys.executable).parent / "oracle-tools")
    work = Path(tempfile.mkdtemp(prefix="bench-peer-", dir=OUT))
    ours_db, peer_db, alone_db = work / "ours.duckdb", work / "scry.db", work / "alone.duckdb"
    kept_db = work / "kept.duckdb"
    env = {**os.environ, "PYTHONPATH": str(tree), "HOME": str(work)}
    peer_env = {
        **os.environ,
        "HOME": str(work),
        "SCRY_ORACLE_PATH": str(lines),
        "SCRY_DB_PATH": str(peer_db),
        "SCRYFALL_NO_CACHE_WARN": "1",
        "SCRY_FORMAT": "json",
    }
    commit = subprocess.run(["git", "-C", str(tree), "log", "-1", "--format=%h %s"], capture_output=True, text=True)
    print(f"tree {tree} ({commit.stdout.strip()[:70]}); peer {PEER} {PEER_VERSION}; {os.cpu_count()} cores")
    print(f"load average before: {load()}", flush=True)
    try:
        # (i) ingest
        taken: dict[str, list[Run]] = {"ours": [], "peer": [], "alone": [], "kept": [], "import": []}
        keeps = (tree / "oracle_tools" / "store" / "scryfall_objects.py").exists()
        for _ in range(args.runs):
            for path in (ours_db, peer_db, alone_db, kept_db):
                path.unlink(missing_ok=True)
            taken["ours"].append(run([cli, "ingest", "--db", str(ours_db), "--bulk-file", str(DUMP)], env))
            taken["peer"].append(run([str(venv / "bin" / "scry"), "reindex"], peer_env))
            taken["alone"].append(run([python, "-c", _READ_JSON, str(alone_db), str(DUMP)], env))
            if keeps:
                taken["kept"].append(run([python, "-c", _KEEP_ALONE, str(kept_db), str(DUMP)], env))
            taken["import"].append(run([python, "-c", "import duckdb"], env))
        ours, peer, alone, floor = (best(taken[k]) for k in ("ours", "peer", "alone", "import"))
        print(f"\n(i) load the 2019 dump ({DUMP.name}), best of {args.runs}")
        row("scry-terminal: scry reindex (JSON lines)", peer, None, None, f"file {peer_db.stat().st_size / 1e6:.0f} MB")
        row("DuckDB read_json(sample_size=-1)  (floor)", alone, peer, None)
        if keeps:
            kept = best(taken["kept"])
            row("the card objects kept alone  (floor)", kept, peer, None)
            both = kept.cpu + alone.cpu
            print(
                f"  {'the two floors together':<46} CPU {both:6.2f} s   x peer: CPU {both / peer.cpu:5.2f}", flush=True
            )
        row("oracle-tools ingest --bulk-file", ours, peer, alone, f"file {ours_db.stat().st_size / 1e6:.0f} MB")

        # (ii) 1,000 names, one at a time, in a fresh process
        dbs = [("2019 dump", ours_db)] + ([("real database", args.full_db)] if args.full_db else [])
        # "suggest": resolve as it answers unless told (a miss searched for the 5 names it may mean); "exact":
        # resolve(name, suggest=0), scry's work (whether each name is one), on trees that have the option
        modes = ("suggest", "exact") if _has_suggest_option(tree, env) else ("suggest",)
        variants = [(label, db, mode) for mode in modes for label, db in dbs]
        taken = {"peer": [], "import": [], **{f"{label} {mode}": [] for label, _, mode in variants}}
        for _ in range(args.runs):
            taken["peer"].append(run([peer_python, "-c", _PEER_NAMES, str(names_file)], peer_env))
            taken["import"].append(run([python, "-c", "import duckdb"], env))
            for label, db, mode in variants:
                taken[f"{label} {mode}"].append(run([python, "-c", _OURS_NAMES, str(db), str(names_file), mode], env))
        peer, floor = best(taken["peer"]), best(taken["import"])
        print(f"\n(ii) a fresh process resolving {NAMES:,} distinct real decklist names one at a time")
        row('python -c "import duckdb"  (floor)', floor, None, None)
        row("scry-terminal: exact lookups", peer, None, None, measured(peer.out))
        for label, _, mode in variants:
            r = best(taken[f"{label} {mode}"])
            call = "resolve(n, suggest=0)" if mode == "exact" else "resolve(n)"
            row(f"oracle-tools: {call} ({label})", r, peer, floor, measured(r.out))

        # (iii) 100 decks, one at a time
        taken = {"peer": [], "ours": [], "batch": []}
        for _ in range(args.runs):
            taken["peer"].append(run([peer_python, "-c", _PEER_DECKS, str(decks_file)], peer_env))
            taken["ours"].append(run([python, "-c", _OURS_DECKS, str(ours_db), str(decks_file), "one"], env))
            taken["batch"].append(run([python, "-c", _OURS_DECKS, str(ours_db), str(decks_file), "batch"], env))
        peer, ours, batch = best(taken["peer"]), best(taken["ours"]), best(taken["batch"])
        print(f"\n({'iii'}) {DECKS} real decks checked one at a time in one process (2019 dump)")
        row("scry-terminal: deck analysis per deck", peer, None, None, measured(peer.out))
        row("oracle-tools: check_deck per deck", ours, peer, None, measured(ours.out))
        row("oracle-tools: check_decks, one batch", batch, peer, None, measured(batch.out))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
