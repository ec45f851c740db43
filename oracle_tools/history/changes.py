"""What changed in the Oracle reference from one ingest to the next: Oracle text, names, legalities.

Every ingest writes a new database beside the old one; :func:`record` (one step of the ingest, before the
swap) compares the new reference with the database it replaces and appends what differs to history tables
that it first copies from that database, so the history goes on from file to file (``sql/changes.sql``):

* ``card_changes``: a characteristic of a card that changed (:data:`FIELDS`), old and new value;
* ``legality_changes``: a format status that changed (legal, not_legal, banned, restricted);
* ``new_removed_cards``: cards that appeared in or left the reference;
* ``change_runs``: which runs compared, with which earlier run; the view ``changes`` lists everything.

No false changes (``sql/changes_compare.sql``): text is compared with whitespace folded, lists as sets, and
keywords only where the Oracle text changed and both lists have some (a list is a reading of the text).

Readers: :func:`select` (``OracleDB.changes()``, a Polars frame), :func:`report` (``oracle-tools changes``,
the HTTP ``/changes``, MCP ``changes``), :func:`legality_since` (``deck check --changes``) and
:func:`former_notes` (``resolve`` of a renamed card's former name: ``via: "former"``); :func:`renames` gives the
names layer the former names it adds to ``names`` (``names.build.add_former_names``).

>>> from oracle_tools import OracleDB
>>> OracleDB("data/oracle.duckdb").changes(format="modern")            # doctest: +SKIP
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from oracle_tools.errors import OracleToolsError, SinceDateError
from oracle_tools.store import sqlfiles

if TYPE_CHECKING:
    import duckdb
    import polars as pl

#: The tables of the history, carried from database to database.
HISTORY_TABLES = ("change_runs", "card_changes", "legality_changes", "new_removed_cards")


@dataclass(frozen=True)
class Field:
    """One characteristic compared: its name in ``card_changes.field``, the ``cards`` columns it is made of,
    its value as stored (SQL over the alias ``x``) and the macro that says two values are the same (given
    ``context`` too, old and new, when there is one)."""

    name: str
    columns: tuple[str, ...]
    value: str
    same: str
    context: str = ""


FIELDS: tuple[Field, ...] = (
    Field("name", ("name",), "x.name", "same_text"),
    Field("mana_cost", ("mana_cost",), "x.mana_cost", "same_text"),
    Field("type_line", ("type_line",), "x.type_line", "same_text"),
    Field("oracle_text", ("oracle_text",), "x.oracle_text", "same_text"),
    Field("power/toughness", ("power", "toughness"), "change_stats(x.power, x.toughness)", "same_text"),
    Field("loyalty", ("loyalty",), "x.loyalty", "same_text"),
    Field("defense", ("defense",), "x.defense", "same_text"),
    Field("colors", ("colors",), "x.colors", "same_set"),
    Field("color_identity", ("color_identity",), "x.color_identity", "same_set"),
    Field("keywords", ("keywords", "oracle_text"), "x.keywords", "same_keywords", context="x.oracle_text"),
    Field("layout", ("layout",), "x.layout", "same_text"),
)
_LISTS = {"same_set", "same_keywords"}

#: How the kinds of change are shown, in order (the view's ``kind_order``).
KINDS: dict[str, str] = {
    "ban": "Bans",
    "unban": "Unbans",
    "restriction": "Restrictions",
    "unrestriction": "Unrestrictions",
    "legality": "Other legality changes",
    "rename": "Renames",
    "errata": "Oracle text errata",
    "characteristic": "Other characteristics",
    "new": "New cards",
    "removed": "Removed cards",
}


# -- at ingest ---------------------------------------------------------------------------------------


def record(con: duckdb.DuckDBPyConnection, previous: str | None) -> dict[str, int]:
    """Create the history tables and the ``changes`` view in the new database; with ``previous`` (the catalog
    the replaced database is attached as) copy its history and append what changed in this run (the newest
    ``ingest_runs.run_id``). Returns the number of rows this run added per table."""
    from oracle_tools.store import views

    con.execute(sqlfiles.load("changes.sql"))
    views.create(con, "changes")  # built with the other views before these tables existed
    added = dict.fromkeys(HISTORY_TABLES, 0)
    # the replaced database may be older (its schema version another): what it has is carried and compared
    if previous is None or "cards" not in (kept := set(sqlfiles.table_names(con, catalog=previous))):
        return added
    for table in HISTORY_TABLES:
        if table in kept:  # a database built before the history has none to carry
            con.execute(f"INSERT INTO main.{table} BY NAME SELECT * FROM {previous}.main.{table}")
    before = {t: _count(con, f"main.{t}") for t in HISTORY_TABLES}
    run = con.execute("SELECT max(run_id) FROM ingest_runs").fetchall()[0][0]
    compare = sqlfiles.load("changes_compare.sql").replace("previous.main.", f"{previous}.main.")
    head, *blocks = re.split(r"^-- name: .*$", compare, flags=re.M)
    con.execute(head)  # the comparison macros
    con.execute(_card_changes_sql(con, previous), {"run": run})
    for block in blocks:
        con.execute(block, {"run": run})
    con.execute(
        f"""INSERT INTO change_runs
            SELECT $run, (SELECT max(run_id) FROM {previous}.main.ingest_runs),
                   (SELECT count(*) FROM {previous}.main.cards WHERE is_card),
                   (SELECT count(*) FROM cards WHERE is_card)""",
        {"run": run},
    )
    return {t: _count(con, f"main.{t}") - before[t] for t in HISTORY_TABLES}


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    return int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])  # our table names only


def _card_changes_sql(con: duckdb.DuckDBPyConnection, previous: str) -> str:
    """The statement comparing each card's :data:`FIELDS` (built from those constants, never from user text).
    A characteristic the replaced database has no column for (built before it existed) is not compared."""
    columns = sqlfiles.column_names(con, "cards", catalog=previous)
    compared = [f for f in FIELDS if set(f.columns) <= columns]

    def shown(field: Field, alias: str) -> str:
        value = field.value.replace("x.", f"{alias}.")
        return f"change_list({value})" if field.same in _LISTS else value

    def same(field: Field) -> str:
        args = [expr.replace("x.", f"{alias}.") for expr in (field.value, field.context) if expr for alias in "on"]
        return f"{field.same}({', '.join(args)})"

    structs = ",\n".join(
        f"{{'field': '{f.name}', 'old': {shown(f, 'o')}, 'new': {shown(f, 'n')}, 'same': {same(f)}}}" for f in compared
    )
    return f"""INSERT INTO card_changes
        WITH pairs AS (
            SELECT n.oracle_id, n.name, [{structs}] AS fields
            FROM cards n JOIN {previous}.main.cards o ON o.oracle_id = n.oracle_id
            WHERE n.is_card AND o.is_card
        ), each AS (SELECT oracle_id, name, unnest(fields) AS f FROM pairs)
        SELECT $run, oracle_id, name, f.field, f.old, f.new FROM each WHERE NOT f.same"""


def renames(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """Every former name of a card in the reference (a rename in the history) with its oracle_id, in order: the
    names layer makes them names of kind ``former`` (``names.build.add_former_names``, after :func:`record`)."""
    return [
        (name, oid)
        for name, oid in con.execute(
            """SELECT DISTINCT h.old_value, h.oracle_id FROM card_changes h
               JOIN cards c ON c.oracle_id = h.oracle_id AND c.is_card
               WHERE h.field = 'name' AND coalesce(h.old_value, '') <> ''
               ORDER BY 1, 2"""
        ).fetchall()
    ]


# -- reading -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """Which changes were asked for, as :func:`select` understood the options."""

    runs: list[dict[str, Any]]  # the runs shown: run_id, ingested_at, compared_with
    where: str  # in words, for the text output
    format: str | None = None
    oracle_id: str | None = None
    #: By default, the runs after the one shown that compared and found nothing (a rules-only or rulings-only
    #: ingest, the same files again): skipped so that they do not hide the last change, and named.
    unchanged_later_runs: tuple[int, ...] = ()


def selection(
    con: duckdb.DuckDBPyConnection,
    *,
    since: str | dt.date | None = None,
    run: int | None = None,
    format: str | None = None,
    oracle_id: str | None = None,
) -> Selection:
    """The runs the options select: ``run``, or every run ingested on or after ``since``, or (neither) every
    run for one card, else the newest run that changed something (in ``format``, when given): later runs that
    changed nothing are named in ``unchanged_later_runs``; with no change recorded at all, the newest run that
    compared. Bad options raise OracleToolsError (one line)."""
    if since is not None and run is not None:
        raise OracleToolsError("give --since DATE or --run N, not both")
    runs = [
        {"run_id": r, "ingested_at": at, "compared_with": prev}
        for r, at, prev in con.execute(
            """SELECT c.run_id, min(i.started_at), c.compared_with FROM change_runs c
               LEFT JOIN ingest_runs i USING (run_id) GROUP BY ALL ORDER BY c.run_id"""
        ).fetchall()
    ]
    if format is not None:
        known = [f for (f,) in con.execute("SELECT DISTINCT format FROM legalities ORDER BY 1").fetchall()]
        if format not in known:
            close = difflib.get_close_matches(format.casefold(), known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise OracleToolsError(f"unknown format {format!r}{hint}; the legalities here have: {', '.join(known)}")
    if run is not None:
        chosen = [r for r in runs if r["run_id"] == run]
        if not chosen:
            compared = ", ".join(str(r["run_id"]) for r in runs) or "none yet"
            raise OracleToolsError(f"ingest run {run} recorded no comparison; runs that did: {compared}")
        where = f"run {run}"
    elif since is not None:
        day = _date(since)
        chosen = [r for r in runs if r["ingested_at"] is not None and r["ingested_at"].date() >= day]
        where = f"ingests since {day.isoformat()}"
    elif oracle_id is not None:
        chosen, where = runs, "every ingest"
    else:
        # The newest run is often one that changed nothing (rules or rulings only, the same files again): showing
        # it would hide the last real change behind "0 changes", so the default is the last run that changed
        # something, and the runs after it are named.
        changed = {
            r
            for (r,) in con.execute(
                "SELECT DISTINCT run_id FROM changes WHERE $format IS NULL OR (kind_order <= 5 AND field = $format)",
                {"format": format},
            ).fetchall()
        }
        last = [r for r in runs if r["run_id"] in changed][-1:] or runs[-1:]
        later = tuple(r["run_id"] for r in runs if last and r["run_id"] > last[0]["run_id"])
        where = (
            "the last ingest"
            if not later
            else "the last ingest that changed something" + (f" in {format}" if format is not None else "")
        )
        return Selection(last, where, format, oracle_id, later)
    return Selection(chosen, where, format, oracle_id)


def _date(value: str | dt.date) -> dt.date:
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(value.strip())
    except ValueError:
        raise SinceDateError(value) from None


_SELECT = """
SELECT run_id, ingested_at, kind, oracle_id, name, field, old_value, new_value FROM changes
WHERE list_contains($runs, run_id)
  AND ($format IS NULL OR (kind_order <= 5 AND field = $format))
  AND ($oracle_id IS NULL OR oracle_id = $oracle_id)
ORDER BY run_id, kind_order, name, field, oracle_id
"""


def rows(con: duckdb.DuckDBPyConnection, chosen: Selection, *, diff: bool = True) -> list[dict[str, Any]]:
    """The changes of a selection, in the order they are shown, each with a word ``diff`` of changed text
    (``diff=False``: None, for :func:`with_diff` on the rows shown only)."""
    params = {
        "runs": [r["run_id"] for r in chosen.runs],
        "format": chosen.format,
        "oracle_id": chosen.oracle_id,
    }
    cursor = con.execute(_SELECT, params)
    columns = [d[0] for d in cursor.description]
    out = []
    for values in cursor.fetchall():
        row = dict(zip(columns, values), diff=None)
        out.append(with_diff(row) if diff else row)
    return out


def with_diff(row: dict[str, Any]) -> dict[str, Any]:
    """The row with its word ``diff`` (:func:`plain_diff`) when a text changed (name, type line, Oracle text)."""
    if row["field"] in _TEXT_FIELDS and row["kind"] not in _LEGALITY_KINDS:
        row["diff"] = plain_diff(row["old_value"], row["new_value"])
    return row


_TEXT_FIELDS = {"oracle_text", "type_line", "name"}
_LEGALITY_KINDS = {"ban", "unban", "restriction", "unrestriction", "legality"}


def select(con: duckdb.DuckDBPyConnection, chosen: Selection) -> pl.DataFrame:
    """:func:`rows` as a Polars frame (``OracleDB.changes()``)."""
    import polars as pl

    schema: dict[str, Any] = {
        "run_id": pl.Int32,
        "ingested_at": pl.Datetime("us"),
        "kind": pl.String,
        "oracle_id": pl.String,
        "name": pl.String,
        "field": pl.String,
        "old_value": pl.String,
        "new_value": pl.String,
        "diff": pl.String,
    }
    return pl.DataFrame(rows(con, chosen), schema=schema, orient="row")


def report(con: duckdb.DuckDBPyConnection, chosen: Selection, *, limit: int | None = None) -> dict[str, Any]:
    """The changes grouped by kind (bans and unbans first, then renames, errata, new cards), with counts:
    what ``oracle-tools changes --json`` prints. ``limit`` keeps the first changes of each group."""
    every = rows(con, chosen, diff=False)  # word diffs for the rows kept only
    groups: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    for row in every:
        groups[row["kind"]].append(row)
    return {
        "selected": chosen.where,
        "runs": [{**r, "ingested_at": _day(r["ingested_at"])} for r in chosen.runs],
        "unchanged_later_runs": list(chosen.unchanged_later_runs),
        "format": chosen.format,
        "oracle_id": chosen.oracle_id,
        "total": len(every),
        "counts": {kind: len(found) for kind, found in groups.items() if found},
        "groups": [
            {
                "kind": kind,
                "title": KINDS[kind],
                "count": len(found),
                "changes": [with_diff({**r, "ingested_at": _day(r["ingested_at"])}) for r in found[:limit]],
            }
            for kind, found in groups.items()
            if found
        ],
    }


def _day(value: Any) -> str | None:
    return None if value is None else str(value)[:10]


# -- word-level diff ---------------------------------------------------------------------------------

_WORDS = re.compile(r"\s+|[^\s]+")


def word_diff(old: str | None, new: str | None) -> list[tuple[str, str]]:
    """(op, text) pieces from ``old`` to ``new`` by words: op is ``=`` (kept), ``-`` (removed), ``+`` (added).
    Changes separated only by spaces are one change ("[-enters the battlefield under your control,-]{+you
    control enters,+}", not word by word)."""
    a, b = _WORDS.findall(old or ""), _WORDS.findall(new or "")
    spans: list[list[int]] = []  # [i1, i2, j1, j2] of each change, merged across whitespace-only gaps
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if spans and "".join(a[spans[-1][1] : i1]).isspace():
            spans[-1][1], spans[-1][3] = i2, j2
        else:
            spans.append([i1, i2, j1, j2])
    out: list[tuple[str, str]] = []
    at = 0
    for i1, i2, j1, j2 in spans:
        if i1 > at:
            out.append(("=", "".join(a[at:i1])))
        if i2 > i1:
            out.append(("-", "".join(a[i1:i2])))
        if j2 > j1:
            out.append(("+", "".join(b[j1:j2])))
        at = i2
    if at < len(a):
        out.append(("=", "".join(a[at:])))
    return out


def plain_diff(old: str | None, new: str | None) -> str:
    """:func:`word_diff` as text, as ``git diff --word-diff=plain`` writes it: ``[-removed-]{+added+}``."""
    marks = {"=": ("", ""), "-": ("[-", "-]"), "+": ("{+", "+}")}
    return "".join(marks[op][0] + text + marks[op][1] for op, text in word_diff(old, new))


# -- deck check: when a legality changed -----------------------------------------------------------------


def legality_since(con: duckdb.DuckDBPyConnection, oracle_ids: Sequence[str], format: str) -> dict[str, dict[str, Any]]:
    """For each card whose status in ``format`` is what the newest recorded change made it: that change
    (run_id, ingested_at, old_status, new_status). Cards whose status was never seen changing are absent."""
    if not oracle_ids:
        return {}
    found = con.execute(
        """SELECT h.oracle_id, h.run_id, r.ingested_at, h.old_status, h.new_status
           FROM legality_changes h
           JOIN legalities l ON l.oracle_id = h.oracle_id AND l.format = h.format
           LEFT JOIN (SELECT run_id, min(started_at) AS ingested_at FROM ingest_runs GROUP BY run_id) r USING (run_id)
           WHERE h.format = $format AND list_contains($oids, h.oracle_id)
           QUALIFY row_number() OVER (PARTITION BY h.oracle_id ORDER BY h.run_id DESC) = 1
               AND h.new_status = l.status""",
        {"format": format, "oids": list(dict.fromkeys(oracle_ids))},
    ).fetchall()
    return {
        oid: {"run_id": run, "ingested_at": _day(at), "old_status": old, "new_status": new}
        for oid, run, at, old, new in found
    }


def since_sentence(card: str, format_label: str, change: dict[str, Any]) -> str:
    """The line a deck check gives: 'Mox Opal is banned in Modern since the ingest of 2026-03-31 (run 4); legal
    before.'"""
    now, before = (change[k].replace("_", " ") for k in ("new_status", "old_status"))
    return (
        f"{card} is {now} in {format_label} since the ingest of {change['ingested_at']} (run {change['run_id']}); "
        f"{before} before."
    )


# -- resolve: former names ---------------------------------------------------------------------------------


def former_notes(con: duckdb.DuckDBPyConnection, oracle_ids: Iterable[str] | None = None) -> dict[str, str]:
    """oracle_id -> the note a former name's resolution carries: which names the card had and when it was
    renamed. All renamed cards, or those of ``oracle_ids``."""
    found = con.execute(
        """SELECT h.oracle_id, h.old_value, h.new_value, h.run_id, r.ingested_at
           FROM card_changes h
           LEFT JOIN (SELECT run_id, min(started_at) AS ingested_at FROM ingest_runs GROUP BY run_id) r USING (run_id)
           WHERE h.field = 'name' AND ($oids IS NULL OR list_contains($oids, h.oracle_id))
           ORDER BY h.oracle_id, h.run_id""",
        {"oids": None if oracle_ids is None else list(oracle_ids)},
    ).fetchall()
    notes: dict[str, list[str]] = {}
    for oid, old, new, run, at in found:
        notes.setdefault(oid, []).append(f"renamed from {old!r} to {new!r} at the ingest of {_day(at)} (run {run})")
    return {oid: "a former name: " + "; ".join(parts) for oid, parts in notes.items()}
