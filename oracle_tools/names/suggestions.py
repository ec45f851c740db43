"""The names a miss is offered (CR 201: a misspelt or partial name), and the index that finds them fast.

A string that names no card is matched against the English names (``resolver.SUGGESTED_VIAS``: Oracle and face
names, interchangeable names of CR 201.3, flavor names of 201.6) by :class:`~oracle_tools.text.matching.NameMatcher`.
Ingest builds, once:

* ``name_suggestions`` — those names, one per lookup key, with how many English printings the card has (ties
  between names a typo fits equally well go to the more commonly printed card: "lightning blot" offers Lightning
  Bolt before Lightning Blow);
* ``name_word_index`` — one row: the :class:`~oracle_tools.text.matching.WordIndex` of their words (the words
  sorted, for each the lines of ``name_suggestions`` it is in, and the words with a letter dropped that find the
  words one edit from a typo), so a miss is answered by binary searches in a fresh process too, never by building
  an index or scanning every name.

Both strategies of the one ``resolve`` (``point.PointNames`` and ``index.NameIndex``) read their matchers here,
so they offer the same names. Token names (CR 111: never cards) get a matcher of their own, built when read
(a thousand names).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from oracle_tools.names.resolver import SUGGESTED_VIAS
from oracle_tools.text.matching import TOKEN_SPELLING_CUTOFF, NameMatcher, WordIndex

if TYPE_CHECKING:
    import duckdb

# Those names, one per lookup key (the name shown for it: the greatest), with the English printings of the most
# printed card it names.
_SUGGESTIONS_SQL = """
SELECT n.key, max(n.name) AS name, coalesce(max(p.printings), 0)::INTEGER AS printings
FROM names n
LEFT JOIN (SELECT oracle_id, count(*) AS printings FROM printings WHERE lang = 'en' GROUP BY oracle_id) p
    USING (oracle_id)
WHERE list_contains($vias, n.via)
GROUP BY n.key
ORDER BY n.key
"""
# Every row of a suggestions table in one fetch: keys hold no newline (text.matching.normalize folds whitespace).
_READ_SQL = """
SELECT string_agg(key, chr(10) ORDER BY key), to_json(list(name ORDER BY key)), to_json(list(printings ORDER BY key)),
       count(*)
FROM ({rows})
"""


def build(con: duckdb.DuckDBPyConnection) -> None:
    """Create ``name_suggestions`` and ``name_word_index`` (after the ``names`` table and the printings)."""
    con.execute(f"CREATE OR REPLACE TABLE name_suggestions AS {_SUGGESTIONS_SQL}", {"vias": list(SUGGESTED_VIAS)})
    keys = _read(con, "SELECT key, name, printings FROM name_suggestions")[0]
    con.execute(
        "CREATE OR REPLACE TABLE name_word_index (lines INTEGER, vocabulary VARCHAR, postings BLOB, starts BLOB, "
        "dropped VARCHAR, dropped_from BLOB)"
    )
    con.execute("INSERT INTO name_word_index VALUES (?, ?, ?, ?, ?, ?)", [len(keys), *WordIndex.build(keys).to_blobs()])


def _read(
    con: duckdb.DuckDBPyConnection, rows: str, params: dict[str, object] | None = None
) -> tuple[list[str], list[str], list[int]]:
    """(keys, names, printings) of a fixed query's rows of key, name, printings, in key order."""
    keys, names, printings, count = con.execute(_READ_SQL.format(rows=rows), params).fetchall()[0]
    if not count:
        return [], [], []
    return keys.split("\n"), json.loads(names), json.loads(printings)


def suggestion_rows(con: duckdb.DuckDBPyConnection) -> tuple[list[str], list[str], list[int]]:
    """(keys, names, printings) of ``name_suggestions`` in key order: what a card matcher is made of."""
    return _read(con, "SELECT key, name, printings FROM name_suggestions")


def word_index_row(con: duckdb.DuckDBPyConnection) -> tuple[object, ...] | None:
    """The one row of ``name_word_index`` (None: none)."""
    return next(iter(con.execute("SELECT * FROM name_word_index").fetchall()), None)  # read to its end


def card_matcher(con: duckdb.DuckDBPyConnection) -> NameMatcher:
    """The matcher over the English card names, from the suggestions and word index ingest built."""
    return card_matcher_from(*suggestion_rows(con), word_index_row(con))


def card_matcher_from(
    keys: list[str], names: list[str], printings: list[int], index_row: tuple[object, ...] | None
) -> NameMatcher:
    """The card matcher from the rows of ``name_suggestions`` in key order and the one row of ``name_word_index``
    (None: none), wherever they are stored (the database, or its names file: ``names.stored``)."""
    index = None
    if index_row is not None and len(index_row) == 6 and index_row[0] == len(keys):
        index = WordIndex.from_blobs(*index_row[1:], lines=len(keys))  # type: ignore[arg-type]
    return NameMatcher(keys, names, printings, index=index)


#: The rows of ``token_suggestions`` a token matcher is made of, in its order.
TOKEN_SUGGESTIONS_SQL = "SELECT key, name FROM token_suggestions ORDER BY name"


def token_matcher(con: duckdb.DuckDBPyConnection) -> NameMatcher:
    """The matcher over token names (predefined, named by effects, Scryfall token objects), in name order."""
    return token_matcher_from(con.execute(TOKEN_SUGGESTIONS_SQL).fetchall())


def token_matcher_from(rows: list[tuple[str, str]]) -> NameMatcher:
    """The token matcher from the rows (key, name) of :data:`TOKEN_SUGGESTIONS_SQL`, wherever they are stored."""
    return NameMatcher([k for k, _ in rows], [n for _, n in rows], spelling_cutoff=TOKEN_SPELLING_CUTOFF)
