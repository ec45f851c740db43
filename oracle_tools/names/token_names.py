"""The token names a card-name miss is told about (CR 111: tokens are not cards, 201.4 never names them).

The tokens layer builds the tables these names come from at ingest; the name rules read them to say "that is a
token's name" beside "did you mean", so the list lives with its reader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

_NAME_LIST_SQL = {
    "effect_tokens": "SELECT DISTINCT name FROM effect_tokens",
    "predefined_tokens": "SELECT name FROM predefined_tokens UNION SELECT given_name FROM predefined_tokens",
    "token_names": "SELECT DISTINCT t.name FROM token_names t JOIN cards c USING (oracle_id) "
    "WHERE t.object_kind = 'token' AND c.type_line LIKE 'Token%'",  # not Scryfall's ad/bio 'Card's
    "parts": "SELECT DISTINCT part_name FROM parts WHERE component = 'token'",
}


def token_name_strings(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every token name the database knows (predefined, named by an effect, Scryfall token objects
    and the tokens Scryfall links to cards), for suggestions (read at ingest, once the tokens layer is built)."""
    found: set[str] = set()
    for sql in _NAME_LIST_SQL.values():  # fixed statements
        found.update(name for (name,) in con.execute(sql).fetchall() if name)
    return sorted(found)
