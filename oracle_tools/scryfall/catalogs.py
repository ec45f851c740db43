"""Scryfall's catalogs (https://scryfall.com/docs/api/catalogs), computed from the database: the values a
field of a card can take, as aids for other Magic software (``GET /catalog/{name}``, ``oracle-tools catalog``,
``OracleDB.catalog``).

Each catalog is read from the ingested cards, or from the Comprehensive Rules stored beside them where the
rules are the list (keyword abilities are the headings of CR 702, keyword actions of CR 701, ability words
the list of CR 207.2c; types are the CR 205 lists, kept to the ones the cards use). Catalogs whose values
the bulk data does not give (flavor words) are not offered: a client asking
for them gets a clear "not kept" instead of an invented list.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from oracle_tools.errors import OracleToolsError
from oracle_tools.text import vocabulary

if TYPE_CHECKING:
    import duckdb

__all__ = ["CATALOGS", "NOT_KEPT", "catalog", "reader"]

_NUMBERED = re.compile(r"^(?P<sign>[-+])?(?P<num>\d+(?:\.\d+)?)")


def _value_order(value: str) -> tuple[int, float, str]:
    """Numbers in numeric order first ("-1", "0", "1.5", "2", "10"), then the rest ("*", "1+*", "X")."""
    m = _NUMBERED.match(value)
    if m and m.end() == len(value):
        return (0, float(value), value)
    return (1, 0.0, value)


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[str]:
    return [v for (v,) in con.execute(sql).fetchall() if v]


def _card_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    return sorted(set(_rows(con, "SELECT name FROM cards WHERE is_card")))


def _artist_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    # a printing by two artists names both ("Lars Grant-West & ..."): the catalog lists each artist once
    names = _rows(con, "SELECT DISTINCT unnest(string_split(artist, ' & ')) FROM printings WHERE artist IS NOT NULL")
    return sorted({n.strip() for n in names if n.strip()})


def _word_bank(con: duckdb.DuckDBPyConnection) -> list[str]:
    names = _rows(con, "SELECT f.name FROM faces f JOIN cards c USING (oracle_id) WHERE c.is_card")
    words = {w.strip(',:;"!?.()') for name in names for w in name.split()}  # words, not their punctuation
    return sorted(w for w in words if len(w) >= 2 and any(ch.isalpha() for ch in w))


def _used_types(con: duckdb.DuckDBPyConnection) -> tuple[set[str], set[str]]:
    """The words before and after the dash of every face's type line (types and supertypes; subtypes)."""
    lines = _rows(con, "SELECT DISTINCT f.type_line FROM faces f JOIN cards c USING (oracle_id) WHERE c.is_card")
    before: set[str] = set()
    after: set[str] = set()
    for line in lines:
        head, _, tail = line.partition("—")
        before.update(head.split())
        after.update(vocabulary.normalise_apostrophes(tail).split())
    return before, after


def _subtypes(kind: str) -> Callable[[duckdb.DuckDBPyConnection], list[str]]:
    def read(con: duckdb.DuckDBPyConnection) -> list[str]:
        _, used = _used_types(con)
        # CR 205.3: multiword subtypes (Time Lord) are matched word by word on the type line
        return sorted(t for t in vocabulary.subtypes(kind) if all(w in used for w in t.split()))

    return read


def _types(listed: Callable[[], tuple[str, ...]]) -> Callable[[duckdb.DuckDBPyConnection], list[str]]:
    def read(con: duckdb.DuckDBPyConnection) -> list[str]:
        used, _ = _used_types(con)
        return sorted(t for t in listed() if t in used)

    return read


def _face_values(column: str) -> Callable[[duckdb.DuckDBPyConnection], list[str]]:
    def read(con: duckdb.DuckDBPyConnection) -> list[str]:
        # column is one of this module's constants, never user text
        values = _rows(con, f"SELECT DISTINCT f.{column} FROM faces f JOIN cards c USING (oracle_id) WHERE c.is_card")
        return sorted(set(values), key=_value_order)

    return read


def _rule_headings(section: str) -> Callable[[duckdb.DuckDBPyConnection], list[str]]:
    def read(con: duckdb.DuckDBPyConnection) -> list[str]:
        rows = con.execute(
            "SELECT text FROM rules WHERE regexp_matches(number, ?) AND number <> ? ORDER BY text",
            [rf"^{re.escape(section)}\.[0-9]+$", f"{section}.1"],  # x.1 is the section's general rule
        ).fetchall()
        return [t for (t,) in rows]

    return read


def _watermarks(con: duckdb.DuckDBPyConnection) -> list[str]:
    rows = con.execute("SELECT DISTINCT watermark FROM printings WHERE watermark IS NOT NULL ORDER BY 1").fetchall()
    return [w for (w,) in rows]


def _ability_words(con: duckdb.DuckDBPyConnection) -> list[str]:
    found = con.execute("SELECT text FROM rules WHERE number = '207.2c'").fetchall()
    if not found:
        return []
    m = re.search(r"The ability words are (?P<list>[^.]+)\.", found[0][0])
    if not m:
        return []
    words = re.split(r",\s*(?:and\s+)?|\s+and\s+", m["list"])
    return sorted(w.strip() for w in words if w.strip())


#: Scryfall's catalog names and how each is read.
CATALOGS: dict[str, Callable[[duckdb.DuckDBPyConnection], list[str]]] = {
    "card-names": _card_names,
    "artist-names": _artist_names,
    "word-bank": _word_bank,
    "supertypes": _types(vocabulary.supertypes),
    "card-types": _types(vocabulary.card_types),
    "artifact-types": _subtypes("artifact"),
    "battle-types": _subtypes("battle"),
    "creature-types": _subtypes("creature"),
    "enchantment-types": _subtypes("enchantment"),
    "land-types": _subtypes("land"),
    "planeswalker-types": _subtypes("planeswalker"),
    "spell-types": _subtypes("spell"),
    "powers": _face_values("power"),
    "toughnesses": _face_values("toughness"),
    "loyalties": _face_values("loyalty"),
    "keyword-abilities": _rule_headings("702"),
    "keyword-actions": _rule_headings("701"),
    "ability-words": _ability_words,
    "watermarks": _watermarks,
}

#: Catalogs Scryfall has whose values the database does not keep, with why.
NOT_KEPT: dict[str, str] = {
    "flavor-words": "flavor words are not a field of the bulk data's card objects",
}


def catalog(con: duckdb.DuckDBPyConnection, name: str) -> list[str]:
    """The values of Scryfall's catalog ``name`` in this database; OracleToolsError names the known ones."""
    return reader(name)(con)


def reader(name: str) -> Callable[[duckdb.DuckDBPyConnection], list[str]]:
    """How catalog ``name`` is read; OracleToolsError for a catalog not offered (why) or unknown (the names)."""
    read = CATALOGS.get(name)
    if read is None:
        why = NOT_KEPT.get(name)
        if why:
            raise OracleToolsError(f"the catalog {name!r} is not offered here: {why}")
        raise OracleToolsError(f"no catalog {name[:60]!r}; the catalogs are {', '.join(CATALOGS)}")
    return read
