"""The quality bar of name_references (names in rules text, CR 201.5 / 201.5c), measured on real data.

    python bench/bench_references.py [--db PATH]

Builds (or reuses) a database of the real 2019 Scryfall dump + the 2024 objects (the files of the
``real_db`` fixture of tests/test_name_references.py) and prints:

  * rows per kind of ``name_references``;
  * own-name occurrences: every occurrence of a card face's own full name (or its card's full name) in its
    Oracle text, counted by a regex independent of oracletext.py, and how many have no ``self`` / ``named`` row;
  * shortened names (CR 201.5c): legendary cards whose name has a comma and whose text contains the part
    before the comma as a word, how many of them got ``self_short`` rows, and the rows for Thalia, Kenrith,
    Emry and friends;
  * ``named`` mentions: how many, how many resolve to a card, and how many whose text is a card's exact
    name do *not* resolve to that card (the issue's bar: 0);
  * how long building the table takes.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

import duckdb

from oracle_tools import OracleDB
from oracle_tools.names import references

from realdata import require as require_realdata

REPO = Path(__file__).resolve().parents[1]
REAL = require_realdata(__file__)
FILES = ["scryfall-default-cards-2019-10-per-set-dump.json.gz", "scryfall-search-2024-mh3-otj-fdn.json.gz"]
LEGENDS = [
    "Thalia, Guardian of Thraben",
    "Thalia, Heretic Cathar",
    "Kenrith, the Returned King",
    "Emry, Lurker of the Loch",
    "Etrata, the Silencer",
    "Gisela, the Broken Blade",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("/tmp/bench_references.duckdb"))
    args = parser.parse_args()
    if not args.db.exists():
        OracleDB.ingest_files(args.db, [REAL / f for f in FILES]).close()
    con = duckdb.connect(str(args.db))
    started = time.perf_counter()
    references.build(con)
    print(f"references.build: {time.perf_counter() - started:.1f} s")
    print(
        "rows per kind:",
        dict(con.execute("SELECT kind, count(*) FROM name_references GROUP BY kind ORDER BY kind").fetchall()),
    )

    faces = con.execute("""
        SELECT f.oracle_id, f.face_index, f.name, c.name, f.oracle_text FROM faces f JOIN cards c USING (oracle_id)
        WHERE c.is_card AND f.oracle_text IS NOT NULL""").fetchall()
    found = set(
        con.execute(
            "SELECT oracle_id, face_index, start FROM name_references WHERE kind IN ('self', 'named')"
        ).fetchall()
    )
    self_rows = set(
        con.execute("SELECT oracle_id, face_index, start FROM name_references WHERE kind = 'self'").fetchall()
    )
    occurrences = missing = as_named = 0
    cards_with_own_name: set[str] = set()
    for oracle_id, face_index, face_name, card_name, text in faces:
        for own in {face_name, card_name}:
            for m in re.finditer(rf"(?<![\w-]){re.escape(own)}(?![\w-])", text):
                occurrences += 1
                cards_with_own_name.add(oracle_id)
                key = (oracle_id, face_index, m.start())
                missing += key not in found
                as_named += key in found and key not in self_rows
    print(
        f"own full name: {occurrences} occurrences on {len(cards_with_own_name)} cards; "
        f"{occurrences - missing - as_named} self rows, {as_named} 'named <own name>' rows, {missing} with no row"
    )

    short = con.execute(r"""
        WITH legends AS (
            SELECT f.oracle_id, f.face_index, f.name, split_part(f.name, ', ', 1) AS short, f.oracle_text
            FROM faces f JOIN cards c USING (oracle_id)
            WHERE c.is_card AND f.type_line LIKE '%Legendary%' AND f.name LIKE '%, %'
        )
        SELECT count(*) FILTER (WHERE regexp_matches(oracle_text, '(^|[^\w-])' || short || '([^\w-]|$)')),
               count(*) FILTER (WHERE regexp_matches(oracle_text, '(^|[^\w-])' || short || '([^\w-]|$)')
                                AND EXISTS (SELECT 1 FROM name_references r WHERE r.kind = 'self_short'
                                            AND r.oracle_id = l.oracle_id AND r.face_index = l.face_index))
        FROM legends l""").fetchall()[0]
    total_short = con.execute("SELECT count(*) FROM name_references WHERE kind = 'self_short'").fetchall()[0][0]
    print(
        f"CR 201.5c: {short[0]} legendary faces whose text contains the part before the comma; "
        f"{short[1]} of them have self_short rows ({total_short} rows in all)"
    )
    for name in LEGENDS:
        rows = con.execute(
            """SELECT r.kind, r.text FROM name_references r JOIN cards c USING (oracle_id) WHERE c.name = ?
               ORDER BY r.face_index, r.start""",
            [name],
        ).fetchall()
        print(f"  {name}: {rows}")

    named = con.execute("""
        SELECT count(*), count(r.target_oracle_id),
               count(*) FILTER (WHERE c.oracle_id IS NOT NULL),
               count(*) FILTER (WHERE c.oracle_id IS NOT NULL AND r.target_name IS DISTINCT FROM r.text)
        FROM name_references r LEFT JOIN cards c ON c.name = r.text AND c.is_card
        WHERE r.kind = 'named'""").fetchall()[0]
    print(
        f"named: {named[0]} mentions, {named[1]} resolve to a card; {named[2]} are a card's exact name, "
        f"{named[3]} of those not resolved to it"
    )
    con.close()


if __name__ == "__main__":
    main()
