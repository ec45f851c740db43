"""Whether two ingested databases hold the same tables: the check that an ingest change keeps every answer.

    python scripts/compare_ingests.py OLD.duckdb NEW.duckdb [-v]

Per table of the ``main`` schema: its row count and an order-independent checksum (the sum of each row's hash), so
a change of row order alone is no difference. Left out: what differs from run to run by design — ingest times
(columns ending ``_at`` other than the data's ``released_at`` / ``published_at``, ``ingest_runs.seconds`` and
``run_id``) — and the folders of source paths (``source_file``, ``file``: the file names are compared). The view
names are compared too. Exit status 1 when anything differs.
"""

from __future__ import annotations

import sys

import duckdb

#: Columns that differ between two runs of the same ingest.
_RUN_COLUMNS = {"ingest_runs": {"seconds", "run_id"}}
_DATA_DATES = {"released_at", "published_at"}
_PATH_COLUMNS = {"source_file", "file"}


def _kept(table: str, column: str) -> bool:
    if column in _RUN_COLUMNS.get(table, set()):
        return False
    return not column.endswith("_at") or column in _DATA_DATES


def _value(column: str) -> str:
    quoted = '"' + column.replace('"', '""') + '"'
    return f"regexp_extract({quoted}, '[^/]*$')" if column in _PATH_COLUMNS else quoted


def checksums(path: str) -> tuple[dict[str, tuple[int, int | None]], list[str]]:
    """``{table: (rows, checksum)}`` and the view names of the database at ``path``."""
    con = duckdb.connect(path, read_only=True)
    try:
        found: dict[str, tuple[int, int | None]] = {}
        tables = con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
            "AND database_name = current_database() ORDER BY 1"
        ).fetchall()
        for (table,) in tables:  # names from the file's own catalog, quoted
            columns = [
                c
                for (c,) in con.execute(
                    "SELECT column_name FROM duckdb_columns() WHERE table_name = ? AND schema_name = 'main' "
                    "AND database_name = current_database() ORDER BY column_index",
                    [table],
                ).fetchall()
                if _kept(table, c)
            ]
            row = "struct_pack(" + ", ".join(f'"{c}" := {_value(c)}' for c in columns) + ")"
            quoted = '"' + table.replace('"', '""') + '"'
            rows, checksum = con.execute(f"SELECT count(*), sum(hash({row}))::HUGEINT FROM {quoted}").fetchall()[0]
            found[table] = (rows, checksum)
        views = sorted(
            v
            for (v,) in con.execute(
                "SELECT view_name FROM duckdb_views() WHERE NOT internal AND database_name = current_database()"
            ).fetchall()
        )
        return found, views
    finally:
        con.close()


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: python scripts/compare_ingests.py OLD.duckdb NEW.duckdb [-v]", file=sys.stderr)
        return 2
    old_path, new_path, *rest = sys.argv[1:]
    old, old_views = checksums(old_path)
    new, new_views = checksums(new_path)
    differ = 0
    for table in sorted(set(old) | set(new)):
        same = old.get(table) == new.get(table)
        differ += not same
        if not same or "-v" in rest:
            print(f"{'same' if same else 'DIFFERS'}  {table}: {old.get(table)} vs {new.get(table)}")
    if old_views != new_views:
        differ += 1
        print(f"DIFFERS  views: {sorted(set(old_views) ^ set(new_views))}")
    print(f"{len(set(old) | set(new))} tables: {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
