"""Choosing a card name (CR 201.4): enumeration and single-validation speed on the real data.

    python bench/bench_choose_name.py                    # builds a DB from the real files (~20 s)
    python bench/bench_choose_name.py --db PATH          # or reuse one built from them

The database is built like the tests' ``full_db``: the real 2019 default-cards dump + the 2024
MH3/OTJ/FDN objects + the foreign printings. Prints (median of several warm runs):
  * enumerate: every name that may be chosen for "nonland" (``db.nameable("nonland")``)
    target <= 100 ms
  * validate: one verdict (``db.choose_name(name, "nonland")``), over a mix of names
    (single cards, split halves, back faces, adventures, foreign names, combined names,
    unknown names without suggestions being asked for are not in the mix) -- target <= 50 us
and the ratio of each figure to its target (<= 1.0 meets it). "Warm" means the per-database
cache (the nameable faces frame and its dicts, the name index) is built; the first call
that builds it is reported separately as "cold".
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from realdata import require as require_realdata

REPO = Path(__file__).resolve().parents[1]
REALDATA = require_realdata(__file__)
FILES = (
    "scryfall-default-cards-2019-10-per-set-dump.json.gz",
    "scryfall-search-2024-mh3-otj-fdn.json.gz",
    "scryfall-foreign-printings-from-mtgjson-2022.json.gz",
)
ENUMERATE_TARGET_S = 0.100
VALIDATE_TARGET_S = 50e-6
NAMES = (
    "Tarmogoyf",
    "Fire",
    "Fire // Ice",
    "Ribbons",
    "Kenzo the Hardhearted",
    "Insectile Aberration",
    "Razorgrass Field",
    "Razorgrass Ambush",
    "Brisela, Voice of Nightmares",
    "Chop Down",
    "Island",
    "lightning bolt",
    "Foudre",
    "Black Lotus",
    "Delver of Secrets",
    "Giant Killer",
)


def build(path: Path) -> None:
    from oracle_tools import OracleDB

    OracleDB.ingest_files(path, [REALDATA / f for f in FILES])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=None, help="A database built from the real files.")
    parser.add_argument("--runs", type=int, default=15, help="Warm runs per figure (median reported).")
    args = parser.parse_args()

    from oracle_tools import OracleDB

    with tempfile.TemporaryDirectory() as tmp:
        path = args.db
        if path is None:
            if not REALDATA.is_dir():
                print(f"real data folder {REALDATA} is absent; give --db PATH", file=sys.stderr)
                return 2
            path = Path(tmp) / "full.duckdb"
            started = time.perf_counter()
            build(path)
            print(f"built {path.name} from the real files in {time.perf_counter() - started:.1f}s")
        db = OracleDB(path)
        started = time.perf_counter()
        db.name_index  # noqa: B018 - the resolver's own cache, shared with resolve()
        index_s = time.perf_counter() - started
        started = time.perf_counter()
        first = db.nameable("nonland")
        cold_s = time.perf_counter() - started
        print(
            f"cold: name index {index_s * 1e3:.0f} ms, nameable-faces cache + first enumeration "
            f"{cold_s * 1e3:.0f} ms ({db.name_chooser.frame.height:,} faces)"
        )

        enum_times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            frame = db.nameable("nonland")
            enum_times.append(time.perf_counter() - started)
        assert frame.height == first.height
        enum_s = statistics.median(enum_times)

        for name in NAMES:  # warm the parse cache and the resolver paths once
            db.choose_name(name, "nonland")
        per_call = []
        loops = 200
        for _ in range(args.runs):
            started = time.perf_counter()
            for _ in range(loops):
                for name in NAMES:
                    db.choose_name(name, "nonland")
            per_call.append((time.perf_counter() - started) / (loops * len(NAMES)))
        validate_s = statistics.median(per_call)
        db.close()

    print(
        f"enumerate 'nonland': {frame.height:,} names, median {enum_s * 1e3:.2f} ms "
        f"(target {ENUMERATE_TARGET_S * 1e3:.0f} ms, ratio {enum_s / ENUMERATE_TARGET_S:.3f})"
    )
    print(
        f"validate one name:   median {validate_s * 1e6:.1f} us over {len(NAMES)} names "
        f"(target {VALIDATE_TARGET_S * 1e6:.0f} us, ratio {validate_s / VALIDATE_TARGET_S:.3f})"
    )
    ok = enum_s <= ENUMERATE_TARGET_S and validate_s <= VALIDATE_TARGET_S
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
