"""Every card's facts a card page shows, read once and sliced per card: its names (CR 201), printings, tokens
created (CR 111) and name references (CR 201.5).

Each of ``OracleDB``'s per-card methods (``card_names``, ``printings``, ``tokens_created``, ``references``) scans its
whole table for one card: 20-90 ms a card on the real data. A server that shows many cards reads each table once per
database generation instead (a second or two on the real data) and slices it per card in microseconds. The statements
are those methods' own without their card filter, sorted by the card first and then in the method's own order;
tests/test_web.py checks the rows against the methods on cards of the sample.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from oracle_tools.store import sqlfiles

if TYPE_CHECKING:
    import duckdb


class _Grouped:
    """A query's rows sorted by a key column, kept as one Polars frame with where each key's rows start: a key's
    rows are a slice (microseconds), where a DuckDB filter on the compressed key column scans the whole table."""

    def __init__(self, frame: Any, key: str) -> None:
        self.frame = frame.drop(key)
        self.spans: dict[str, tuple[int, int]] = {}
        start = 0
        for run in frame.get_column(key).rle().to_list():
            self.spans[run["value"]] = (start, run["len"])
            start += run["len"]

    def rows(self, key: str) -> list[dict[str, Any]]:
        span = self.spans.get(key)
        return self.frame.slice(*span).to_dicts() if span else []


#: What a card page reads of each card, one statement a table: the statements of OracleDB.card_names, printings,
#: tokens_created and (names/references.py) references without their card filter, sorted by the card first and then
#: in the method's own order. tests/test_web.py checks them against those methods on every card of the sample.
_CARD_FACTS_SQL = {
    "names": (
        "SELECT DISTINCT oracle_id, name, via, lang, face_index FROM names "
        "ORDER BY oracle_id, via, lang NULLS FIRST, face_index NULLS FIRST, name"
    ),
    "printings": (
        "SELECT oracle_id, id, set_code AS set, set_name, collector_number, lang, rarity, artist, released_at, "
        "printed_name, usd, eur, tix FROM printings "
        "ORDER BY oracle_id, lang <> 'en', released_at DESC, set_code, collector_number, lang, id"
    ),
    "tokens": (
        "SELECT creator_oracle_id AS oracle_id, name, base_name, count, rule, clause, face_name, face_index "
        "FROM token_specs WHERE name IS NOT NULL ORDER BY creator_oracle_id, face_index, clause_no"
    ),
    "own_text": (
        'SELECT r.oracle_id AS key, r.oracle_id, c.name AS card_name, r.face_index, r.start, r."end", r.text, r.kind, '
        "r.target_name FROM name_references r JOIN cards c USING (oracle_id) ORDER BY r.oracle_id, r.face_index, r.start"
    ),
    "named_by": (
        'SELECT r.target_oracle_id AS key, r.oracle_id, c.name AS card_name, r.face_index, r.start, r."end", r.text, '
        "r.kind, r.target_name FROM name_references r JOIN cards c USING (oracle_id) "
        "WHERE r.kind IN ('named', 'token_name') AND r.oracle_id <> r.target_oracle_id AND r.target_oracle_id IS NOT NULL "
        "ORDER BY r.target_oracle_id, c.name, r.face_index, r.start"
    ),
}
_CARD_FACTS_KEY = {"own_text": "key", "named_by": "key"}


class CardFacts:
    """Every card's names (CR 201), printings, tokens created (CR 111) and name references (CR 201.5), read once per
    database generation (a second or two on the real data), then sliced per card. Each of OracleDB's per-card methods
    scans its whole table: 20-90 ms a card on the real data, most of a first-seen card page."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.tables: dict[str, _Grouped] = {
            kind: _Grouped(sqlfiles.polars_frame(con.sql(sql)), _CARD_FACTS_KEY.get(kind, "oracle_id"))
            for kind, sql in _CARD_FACTS_SQL.items()
        }
        #: cards with a recorded change
        self.changed: set[str] = {oid for (oid,) in con.execute("SELECT DISTINCT oracle_id FROM changes").fetchall()}

    def rows(self, kind: str, oracle_id: str) -> list[dict[str, Any]]:
        return self.tables[kind].rows(oracle_id)
