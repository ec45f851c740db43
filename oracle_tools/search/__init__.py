"""Scryfall's search syntax over the local database.

``parse`` (grammar.lark, lark LALR) -> tree (tree.py) -> ``compile_query`` (compiler.py, one parameterised
DuckDB query; the keyword facts are in keywords.py) -> :func:`search` runs it and returns a Polars frame.

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")                               # doctest: +SKIP
>>> db.search("t:goblin c:r mv<=2 f:modern").select("name", "mana_cost").head(3)   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from oracle_tools.errors import SearchSyntaxError, UnsupportedKeywordError
from oracle_tools.search.compiler import DIRECTIONS, ORDERS, UNIQUE, Compiled, compile_query
from oracle_tools.search.keywords import KEYWORDS, UNSUPPORTED
from oracle_tools.search.parser import parse
from oracle_tools.search.request import SearchRequest

if TYPE_CHECKING:
    import duckdb
    import polars as pl

    from oracle_tools.store.sqlfiles import QueryStop, Rows

_T = TypeVar("_T")

__all__ = [
    "DIRECTIONS",
    "KEYWORDS",
    "ORDERS",
    "UNIQUE",
    "UNSUPPORTED",
    "Compiled",
    "SearchRequest",
    "SearchSyntaxError",
    "UnsupportedKeywordError",
    "cannot_judge",
    "compile",
    "parse",
    "run",
    "run_rows",
    "time_limit",
    "written_keywords",
]


def time_limit(seconds: float) -> QueryStop:
    """The stop for a search served to others (``with time_limit(s).watching(cursor): run(cursor, …)``): after
    ``seconds`` the query is interrupted and fails with a QueryTimeoutError that says what to do."""
    from oracle_tools.store.sqlfiles import QueryStop

    return QueryStop(
        seconds, what="the search", advice="narrow the query (or start the server with a longer --query-timeout)"
    )


def compile(
    query: str,
    *,
    unique: str = "cards",
    order: str = "name",
    direction: str = "auto",
    nameable: Callable[[str], list[str]] | None = None,
    extras: bool = False,
    multilingual: bool = False,
) -> Compiled:
    """Parse and compile ``query`` (raises :class:`SearchSyntaxError`). Queries without ``nameable:`` (whose
    answer depends on the database's choose-name rules) are compiled once and cached. ``extras`` and
    ``multilingual``: Scryfall's ``include_extras`` and ``include_multilingual`` (as ``include:extras`` and
    ``lang:any`` in the query)."""
    if "nameable" not in query.lower():
        return _compile_cached(query, unique, order, direction, extras, multilingual)
    return compile_query(
        parse(query),
        query,
        unique=unique,
        order=order,
        direction=direction,
        nameable=nameable,
        extras=extras,
        multilingual=multilingual,
    )


def written_keywords(query: str, *, nameable: Callable[[str], list[str]] | None = None) -> list[str]:
    """The keywords ``query`` writes (``t:goblin c:r`` -> ``["t", "c"]``) when it compiles as a search; ``[]`` when
    it writes none (bare words and phrases: what a card name reads as) or does not compile ("Circle of Protection:
    Red" writes no value after ``protection:``). A name box reads a text with keywords as a search, as Scryfall's
    box does."""
    from oracle_tools.search.tree import walk

    try:
        compile(query, nameable=nameable)
    except SearchSyntaxError:
        return []
    return [term.keyword for term in walk(parse(query)) if term.written]


@lru_cache(maxsize=1024)
def _compile_cached(
    query: str, unique: str, order: str, direction: str, extras: bool = False, multilingual: bool = False
) -> Compiled:
    return compile_query(
        parse(query), query, unique=unique, order=order, direction=direction, extras=extras, multilingual=multilingual
    )


def run(
    con: duckdb.DuckDBPyConnection,
    query: str,
    *,
    unique: str = "cards",
    order: str = "name",
    direction: str = "auto",
    nameable: Callable[[str], list[str]] | None = None,
    extras: bool = False,
    multilingual: bool = False,
) -> pl.DataFrame:
    """The cards (or printings) ``query`` finds, one row per match, in the query's order (``extras``,
    ``multilingual``: as :func:`compile`)."""
    from oracle_tools.store.sqlfiles import frame

    compiled = compile(
        query,
        unique=unique,
        order=order,
        direction=direction,
        nameable=nameable,
        extras=extras,
        multilingual=multilingual,
    )
    return _execute(frame, con, compiled, query)


def run_rows(con: duckdb.DuckDBPyConnection, query: str, *, stop: QueryStop | None = None, **options: Any) -> Rows:
    """:func:`run` (same options) as (column names, rows of Python values, count), without Polars: the CLI's
    path, where a fresh process prints one answer. ``stop`` (:func:`time_limit`) ends a search that runs too long:
    it runs on a cursor of ``con``, which a stop watching ``con`` itself would not reach."""
    from functools import partial

    from oracle_tools.store.sqlfiles import rows

    return _execute(partial(rows, stop=stop), con, compile(query, **options), query)


def _execute(fetch: Callable[..., _T], con: duckdb.DuckDBPyConnection, compiled: Compiled, query: str) -> _T:
    """Run a compiled search with ``fetch`` (sqlfiles.frame or sqlfiles.rows); database errors become one line.
    Every statement it runs is finished whatever happens (:func:`~oracle_tools.store.sqlfiles.finished`): a
    search the engine refuses, stopped by a time limit or by Ctrl-C leaves ``con`` ready for the next one."""
    from oracle_tools.store.sqlfiles import finished

    with finished(con):
        return _run_compiled(fetch, con, compiled, query)


def _run_compiled(fetch: Callable[..., _T], con: duckdb.DuckDBPyConnection, compiled: Compiled, query: str) -> _T:
    import duckdb as _duckdb

    if compiled.formats:
        _check_legalities(con, compiled.formats)
    if compiled.sets:
        _check_sets(con, compiled, query)
    try:
        if compiled.unknowns:
            _unjudged_counts(con, compiled, query)  # refuses a term no printing of the database can be judged for
        return fetch(con, compiled.sql, list(compiled.params))
    except _duckdb.Error as exc:  # a regex RE2 refuses, say: still one line
        from oracle_tools.store.sqlfiles import damaged_database

        # the file's name is looked up (a statement of its own) only for an error that says a file is damaged
        if damaged_database(exc) is not None and (damaged := damaged_database(exc, _database_file(con))) is not None:
            raise damaged from None  # the file, not the query: no caret under it
        raise SearchSyntaxError(
            f"the database could not run this search: {str(exc).splitlines()[0]}",
            query,
            0,
            lasting=isinstance(exc, _lasting_refusals()),
        ) from None


#: What a term's not-judged SQL is over, by its alias: (what one row is, the table).
_JUDGED = {"p": ("printing", "printings p"), "c": ("card", "cards c WHERE c.is_card")}


def _unjudged_counts(
    con: duckdb.DuckDBPyConnection, compiled: Compiled, query: str
) -> list[tuple[str, str, str, int, int]]:
    """Per term whose data some rows lack: (term, "printings" or "cards", missing field, rows that cannot be judged,
    rows). A term no row has the data for is refused, naming the field: "no card matches" would be a confident
    wrong answer."""
    cursor = con.cursor()
    try:
        out = []
        for term, unknown, data, position in compiled.unknowns:
            if term in compiled.checked:
                continue
            things = _JUDGED[unknown.split(".", 1)[0]]
            row = cursor.execute(f"SELECT count(*) FILTER (WHERE {unknown}), count(*) FROM {things[1]}").fetchone()
            missing, total = (int(row[0]), int(row[1])) if row else (0, 0)
            if total and missing == total:
                raise UnsupportedKeywordError(
                    f"{term}: no {things[0]} in this database has Scryfall's {data} (its card files predate the field "
                    "or leave it out); ingest files that have it",
                    query,
                    position,
                )
            out.append((term, f"{things[0]}s", data, missing, total))
        return out
    finally:
        cursor.close()


def cannot_judge(con: duckdb.DuckDBPyConnection, query: str, **options: Any) -> list[str]:
    """One line per term of ``query`` whose data some printings lack (``is:booster``: the 2019 dump has no booster
    field on most objects), saying how many printings it could not judge, as ``deck check`` says cannot_judge —
    counted among the printings the query could have matched: those whose answer the term decides, within what the
    search reads (no foreign printing of an English one without ``lang:`` or ``multilingual``; no memorabilia or
    extras unless asked), so ``is:booster s:m19`` counts M19's printings only. ``[]`` when every term could judge
    every one of them. Same options as :func:`compile`."""
    compiled = compile(query, **options)
    if not compiled.unknowns:
        return []
    _unjudged_counts(con, compiled, query)  # a term no row of the database has the data for is refused
    lines = []
    cursor = con.cursor()
    try:
        for (term, unknown, data, _), (sql, params) in zip(compiled.unknowns, compiled.judged, strict=True):
            row = cursor.execute(sql, list(params)).fetchone()
            missing, total = (int(row[0]), int(row[1])) if row else (0, 0)
            things = _JUDGED[unknown.split(".", 1)[0]][0]
            if missing:
                lines.append(
                    f"{term}: {missing:,} of {total:,} {things}s could not be judged (their card files have no {data})"
                )
    finally:
        cursor.close()
    return lines


def _lasting_refusals() -> tuple[type[Exception], ...]:
    """The engine's errors that refuse the query itself (its regex, a value it cannot convert or bind): the same
    query on the same database fails the same way again. An interrupt, memory or I/O error may not come again."""
    import duckdb as _duckdb

    return (
        _duckdb.InvalidInputException,
        _duckdb.ParserException,
        _duckdb.BinderException,
        _duckdb.ConversionException,
        _duckdb.OutOfRangeException,
    )


def _database_file(con: duckdb.DuckDBPyConnection) -> str | None:
    """The file of ``con``'s database (None: in memory, or not known)."""
    import duckdb as _duckdb

    cursor = con.cursor()  # its own: the statement that failed may still hold ``con``
    try:
        rows = cursor.execute(
            "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
        ).fetchall()  # every row read: a result left unread would hold the connection (sqlfiles.finish)
    except _duckdb.Error:
        return None
    finally:
        cursor.close()
    return rows[0][0] if rows and rows[0][0] else None


def _check_sets(con: duckdb.DuckDBPyConnection, compiled: Compiled, query: str) -> None:
    """A set code (``e:``/``s:``, ``in:``, ``date>=SET``) that no printing of the database has and that Scryfall's set
    list kept at ingest does not name is said in one line, as an unknown format is: "no card" would be a confident
    wrong answer to a typo. ``in:`` also takes a set type (``in:core``)."""
    codes = sorted({code for _, code, _, _ in compiled.sets})
    cursor = con.cursor()
    try:
        sql = "SELECT DISTINCT {0} FROM printings WHERE list_contains(?, {0})"
        known = {v for (v,) in cursor.execute(sql.format("set_code"), [codes]).fetchall()}
        types = {v for (v,) in cursor.execute(sql.format("set_type"), [codes]).fetchall()}
        from oracle_tools.scryfall.sets import shipped_sets

        types |= {row.get("set_type") for row in shipped_sets().values()}  # the set type of sets whose objects lack it
        listed = "SELECT code FROM scryfall_sets WHERE list_contains(?, code)"
        known |= {v for (v,) in cursor.execute(listed, [codes]).fetchall()}
    finally:
        cursor.close()
    for written, code, position, or_type in compiled.sets:
        if code in known or (or_type and code in types):
            continue
        from oracle_tools.scryfall.sets import shipped_set

        shipped = shipped_set(code)
        if shipped is not None:  # a real set this database holds no printing of: "no card" would be wrong too
            message = (
                f"{written}: this database holds no printing of {shipped.get('name') or code} ({code}); ingest a card "
                "file that has it (`oracle-tools sets` lists the sets it holds)"
            )
        else:
            what = "set code or set type" if or_type else "set code"
            message = f"{written}: unknown {what} {code!r} (`oracle-tools sets` lists the sets this database holds)"
        raise SearchSyntaxError(message, query, position)


def _check_legalities(con: duckdb.DuckDBPyConnection, wanted: tuple[str, ...]) -> None:
    """A format the search reads legalities of and the database holds none of is said, as deck checks say it
    (its files predate the format): "no card is legal there" would be a confident wrong answer."""
    from oracle_tools.decks.formats import no_legalities

    cursor = con.cursor()
    try:
        held = {
            f
            for (f,) in cursor.execute(
                "SELECT DISTINCT format FROM legalities WHERE list_contains(?, format)", [list(wanted)]
            ).fetchall()
        }
        for fmt in wanted:
            if fmt not in held:
                known = sorted(f for (f,) in cursor.execute("SELECT DISTINCT format FROM legalities").fetchall())
                raise no_legalities(fmt, known)
    finally:
        cursor.close()
