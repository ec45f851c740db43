"""The largest real values the card-object limits of ``oracle_tools/store/object_limits.py`` are built from.

    python bench/measure_card_fields.py

For each Scryfall-shaped file of the real data: the largest object (bytes of JSON), its deepest nesting, and
the longest value of each text field the typed tables read (``face.`` a face of ``card_faces``, ``part.`` an
entry of ``all_parts``) and of ``flavor_text``; then each figure beside its limit in ``limits`` (the limit is the
largest value times limits.MARGIN, at least limits.MIN_FIELD_CHARS), and the CPU time of ``limits.check_objects``
(the extra pass an ingest makes over each card file) beside the same file's ingest-style read of the typed
columns, in the same run.
"""

from __future__ import annotations

import time

import duckdb

from oracle_tools import ingest
from oracle_tools.store import object_limits as limits

from realdata import require as require_realdata

FILES = [
    "scryfall-default-cards-2019-10-per-set-dump.json.gz",
    "scryfall-search-2024-mh3-otj-fdn.json.gz",
    "scryfall-foreign-printings-from-mtgjson-2022.json.gz",
    "scryfall-shaped-2025-alternate-names.json.gz",
]


def main() -> None:
    folder = require_realdata(__file__)
    con = duckdb.connect()
    cols = ingest._columns_literal(ingest.CARD_COLUMNS)
    longest: dict[str, int] = {}
    largest = deepest = 0
    for name in FILES:
        path = str(folder / name)
        started = time.process_time()
        con.execute(
            f"CREATE OR REPLACE TABLE t AS SELECT * FROM read_json(?, format = 'auto', columns = {cols})", [path]
        )
        read_cpu = time.process_time() - started
        fields = [f for f in limits.LONGEST if f != "flavor_text"]
        row = con.execute("SELECT " + ", ".join(f"max({limits._field_sql(f)})" for f in fields) + " FROM t").fetchall()[
            0
        ]
        for field, value in zip(fields, row, strict=True):
            longest[field] = max(longest.get(field, 0), value or 0)
        objects = con.execute(
            "SELECT max(strlen(json)), max(length(json_extract_string(json, '$.flavor_text'))) "
            "FROM read_json_objects(?, format = 'auto')",
            [path],
        ).fetchall()[0]
        largest = max(largest, objects[0])
        longest["flavor_text"] = max(longest.get("flavor_text", 0), objects[1] or 0)
        for (text,) in con.execute("SELECT json FROM read_json_objects(?, format = 'auto')", [path]).fetchall():
            deepest = max(deepest, limits.json_depth(text, stop_after=limits.MAX_DEPTH))
        started = time.process_time()
        limits.check_objects(path, ingest.sniff(path).json_format, max_object_bytes=1 << 26)
        print(
            f"{name}: check_objects {time.process_time() - started:.2f} s CPU beside the typed read's "
            f"{read_cpu:.2f} s CPU"
        )
    print(
        f"largest object {largest:,} bytes (limit {limits.OBJECT_BYTES:,}); deepest {deepest} (limit {limits.MAX_DEPTH})"
    )
    for field, value in sorted(longest.items()):
        limit = limits.FIELD_CHARS.get(field, limits.OBJECT_BYTES)
        print(f"  {field:<24} longest {value:>6,}  limit {limit:>9,}  (limits.LONGEST says {limits.LONGEST[field]:,})")


if __name__ == "__main__":
    main()
