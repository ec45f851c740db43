"""The CPU the ingest spends deriving the keywords of cards whose file predates Scryfall's ``keywords`` field.

    python bench/bench_keywords.py [--runs 7]

Ingests the real 2019 default-cards dump (which has no ``keywords`` field) into a temporary database, keeping
a copy of the representatives the step reads (the staging table ``rep``, taken as the ingest runs the step),
then in this process, with nothing else running, times the step (``ingest._derive_keywords``: the SQL
prefilter, the Python derivation of the texts it lets through, the staging table written) on that copy, and
beside it, in the same runs, its floor: the same texts only read into Python (what any derivation in Python
pays). Prints the best and median CPU seconds of each, and how many cards the prefilter let through and got
keywords. The budget is about 0.2 s CPU on the dump.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import duckdb

from realdata import require as require_realdata

DUMP = require_realdata(__file__) / "scryfall-default-cards-2019-10-per-set-dump.json.gz"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    from oracle_tools import ingest

    with tempfile.TemporaryDirectory() as tmp:
        db, kept = Path(tmp) / "dump.duckdb", Path(tmp) / "rep.duckdb"
        real_step = ingest._derive_keywords

        def keep_rep(con: duckdb.DuckDBPyConnection) -> None:
            con.execute("ATTACH ? AS kept_rep", [str(kept)])
            con.execute(f"CREATE TABLE kept_rep.main.rep AS SELECT * FROM {ingest.STAGE_CATALOG}.main.rep")
            con.execute("DETACH kept_rep")
            real_step(con)

        ingest._derive_keywords = keep_rep
        try:
            ingest.Ingest(db, progress=False).run([ingest.sniff(DUMP)])
        finally:
            ingest._derive_keywords = real_step
        con = duckdb.connect(str(db))  # the stored rules the vocabulary is read from (a temporary copy)
        con.execute(f"ATTACH ':memory:' AS {ingest.STAGE_CATALOG}")
        con.execute(f"ATTACH '{kept}' AS kept_rep (READ_ONLY)")  # a temporary path of ours
        con.execute(f"CREATE TABLE {ingest.STAGE_CATALOG}.main.rep AS SELECT * FROM kept_rep.main.rep")
        step, floor = [], []
        for _ in range(args.runs):
            con.execute(f"DROP TABLE IF EXISTS {ingest.STAGE_CATALOG}.main.derived_keywords")
            started = time.process_time()
            ingest._derive_keywords(con)
            step.append(time.process_time() - started)
            started = time.process_time()
            con.execute(
                f"SELECT oid, oracle_text, card_faces FROM {ingest.STAGE_CATALOG}.main.rep WHERE keywords IS NULL"
            ).fetchall()
            floor.append(time.process_time() - started)
        lacking, derived = con.execute(
            f"SELECT count(*) FILTER (WHERE keywords IS NULL), "
            f"(SELECT count(*) FROM {ingest.STAGE_CATALOG}.main.derived_keywords) FROM {ingest.STAGE_CATALOG}.main.rep"
        ).fetchall()[0]
        con.close()
    print(f"cards without the keywords field: {lacking:,}; with keywords derived: {derived:,}")
    print(f"step  CPU s: best {min(step):.3f}, median {statistics.median(step):.3f} (budget about 0.2)")
    print(f"floor CPU s: best {min(floor):.3f}, median {statistics.median(floor):.3f} (the same texts read only)")


if __name__ == "__main__":
    main()
