"""The name tables, built at ingest (CR 201): every string that names an Oracle card, and the classes of
interchangeable names.

The ``names`` table (built at ingest, SQL in ``sql/names.sql``) holds every name that refers to an
Oracle card with its normalized lookup key and ``via``: full names (``name``), face/half names
(``face``; 709, 710, 712, 713, 715), foreign printed names (``printed``; 201.2), English printed names
that differ from the Oracle name (``interchangeable``; 201.3: Scryfall's Through the Omenpaths
printings), flavor names (``flavor``; 201.6 alternate names) and, added by the change history
(``oracle_tools/history/changes.py``), the former names of renamed cards (``former``: no name of the card any
more, answered with a note saying so). ``name_classes``
(``sql/name_classes.sql``) holds the classes of interchangeable names (201.3): per card its own name
and every interchangeable name, with the printings carrying each, plus the optional override table.
These two tables are the single source of ``via`` and classes for every reader (:class:`NameIndex`,
SQL lookups, the ``name_aliases`` view).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any, Literal

import duckdb
import polars as pl

from oracle_tools.errors import IngestError
from oracle_tools.names import suggestions
from oracle_tools.names.kinds import FORMER, INTERCHANGEABLE, OWN_NAME_LIST, TITLE_VIAS
from oracle_tools.store import sqlfiles, userfiles
from oracle_tools.text.matching import BLANK, FOLD, normalize


def normalize_expr(column: str | pl.Expr) -> pl.Expr:
    """:func:`normalize` as a vectorised Polars expression (for batch resolution)."""
    expr = pl.col(column) if isinstance(column, str) else column
    expr = expr.str.normalize("NFKD").str.replace_all(r"[\p{Mn}\p{Cf}]", "")
    expr = expr.str.replace_many([k for k, _ in _FOLD_PAIRS], [v for _, v in _FOLD_PAIRS])
    folded = expr.str.to_lowercase().str.replace_all(r"\s*/+\s*", " // ")
    # a blank standing on its own is a word, one glued to a letter or digit goes (matching.BLANK)
    blanked = (
        folded.str.replace_all(r"([\p{L}\p{N}])_+", "${1}")
        .str.replace_all(r"_+([\p{L}\p{N}])", "${1}")
        .str.replace_all("_+", f" {BLANK} ", literal=False)
    )
    unmarked = blanked.str.replace_all(r"\p{Pd}", " ").str.replace_all(r"[\p{P}&&[^/_]]", "")
    kept = pl.when(unmarked.str.strip_chars(" /") == "").then(folded).otherwise(unmarked)
    return kept.str.replace_all(r"\s+", " ").str.strip_chars(" ")


_FOLD_PAIRS = [(chr(k), v) for k, v in FOLD.items()]


# -- building the tables at ingest -------------------------------------------------------------

#: What a ``name_classes`` row is: the card's own (Oracle or face) name, an English printed name found
#: in the data (CR 201.3), or a name only the override table gives (a pair the data source lacks).
ClassKind = Literal["oracle", "printed", "override"]

_PRINTINGS_TYPE = pl.List(pl.Struct({"id": pl.String, "set_code": pl.String, "collector_number": pl.String}))


def build(
    con: duckdb.DuckDBPyConnection, interchangeable_file: Path | None = None, *, store_classes: bool = True
) -> pl.DataFrame:
    """Create ``names``, ``token_names`` and ``name_classes`` in a freshly ingested database.

    ``names`` is one row per (name, card, face, via, lang); ``name_classes`` one row per name of every
    class of interchangeable names (CR 201.3), derived from the English printed names in the data
    plus the optional override table. Both are what every reader (``NameIndex``, SQL lookups, views)
    takes ``via`` and classes from. Returns the classes; with ``store_classes=False`` the caller writes
    them with :func:`write_classes` (ingest does, on its second connection, while name mentions are read).
    """
    con.execute(sqlfiles.load("names.sql"))
    sources = sqlfiles.frame(con, "SELECT * FROM name_sources WHERE name IS NOT NULL AND name <> ''")
    con.execute("DROP TABLE name_sources")
    sources = sources.with_columns(key=normalize_expr("name"))
    # An English printed name that differs from the card's own names only in typography (case,
    # accents, quotes, dashes) is the same name, not an interchangeable one (CR 201.3 needs a
    # different English name).
    own = sources.filter(pl.col("via").is_in(TITLE_VIAS)).select("oracle_id", "key").unique()
    printed = sources.filter(pl.col("via") == INTERCHANGEABLE).join(own, on=["oracle_id", "key"], how="anti")
    others = sources.filter(pl.col("via") != INTERCHANGEABLE)
    path = interchangeable_file or default_interchangeable_file()
    override = read_interchangeable_file(path) if path.exists() else []
    classes, extra_names = _classes(con, others, printed, override, path.name)
    names = (
        pl.concat([others, printed, extra_names], how="diagonal_relaxed")
        .select("name", "key", "oracle_id", pl.col("face_index").cast(pl.Int32), "via", "lang")
        .unique()
    )
    sqlfiles.write_frame(con, "names", names, order_by="key, name, oracle_id, face_index NULLS FIRST, via, lang")
    con.execute(own_name_macro())
    # The English names a miss is offered, one per key, and the index of their words: a fresh process finds the
    # names close to a misspelt one by binary searches, never by grouping or scanning the names table.
    suggestions.build(con)
    if store_classes:
        write_classes(con, classes)
    return classes


def add_former_names(con: duckdb.DuckDBPyConnection, renames: list[tuple[str, str]]) -> None:
    """A renamed card's former names (``history.changes.renames``: name, oracle_id) as ``names`` rows of kind
    ``former``, unless one is again a name of the card. Resolved only when no current name matches (its tier)."""
    if not renames:
        return
    con.execute(
        """INSERT INTO names (name, key, oracle_id, face_index, via, lang)
           SELECT r.name, r.key, r.oracle_id, NULL, $via, 'en' FROM (SELECT unnest($rows, recursive := true)) r
           WHERE NOT EXISTS (SELECT 1 FROM names n WHERE n.oracle_id = r.oracle_id AND n.name = r.name)
           ORDER BY r.name, r.oracle_id""",
        {
            "via": FORMER,
            "rows": [{"name": name, "key": normalize(name), "oracle_id": oid} for name, oid in renames],
        },
    )


def own_name_macro() -> str:
    """The SQL macro ``own_name_via(via)``: whether a ``names`` row's kind is the card's own name or a face's
    (``kinds.OWN_NAME_VIAS``), for SQL stored in the database that cannot take the list as a parameter (a view:
    ``token_catalog`` in ``sql/views.sql``). Written from the table, never from user text."""
    assert all(via.isidentifier() for via in OWN_NAME_LIST)  # the kinds' own names: quoted as they are
    return f"CREATE OR REPLACE MACRO own_name_via(via) AS via IN ({', '.join(repr(v) for v in OWN_NAME_LIST)})"


def default_interchangeable_file() -> Path:
    from oracle_tools.store.resources import INTERCHANGEABLE_CSV

    return INTERCHANGEABLE_CSV


class _Union:
    """Union-find over names: CR 201.3a makes "is interchangeable with" an equivalence."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, name: str) -> str:
        root = self.parent.setdefault(name, name)
        while root != self.parent[root]:
            root = self.parent[root]
        while name != root:
            self.parent[name], name = root, self.parent[name]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _classes(
    con: duckdb.DuckDBPyConnection,
    others: pl.DataFrame,
    printed: pl.DataFrame,
    override: list[tuple[str, str, str]],
    override_name: str,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The rows of ``name_classes`` and the ``names`` rows only the override table gives.

    Data: every English printed name (CR 201.3) joins the class of its card's (or face's) own name,
    with the printings that carry it. Override: names sharing a ``class_id`` join one class; a name
    the data lacks takes the card of the class's known names (when they are one card).
    """
    classes = _ClassBuilder(con)
    classes.add_printed(printed)
    if override:
        classes.add_override(others, override, override_name)
    rows, extra = classes.rows()
    schema = pl.Schema(
        {
            "class_id": pl.String(),
            "name": pl.String(),
            "oracle_id": pl.String(),
            "face_index": pl.Int32(),
            "kind": pl.String(),
            "source": pl.String(),
            "printings": _PRINTINGS_TYPE,
        }
    )
    extra_schema = pl.Schema(
        {
            "name": pl.String,
            "key": pl.String,
            "oracle_id": pl.String,
            "face_index": pl.Int32,
            "via": pl.String,
            "lang": pl.String,
        }
    )
    return pl.DataFrame(rows, schema=schema), pl.DataFrame(extra, schema=extra_schema)


class _ClassBuilder:
    """The classes of interchangeable names (CR 201.3a: an equivalence, kept by union-find), and per name what the
    rows of ``name_classes`` say of it: the cards (or faces) it refers to, its kind, the printings showing it, and
    the override table's class ids and sources."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.cards: dict[str, str] = dict(con.execute("SELECT oracle_id, name FROM cards WHERE is_card").fetchall())
        self.face_names: dict[tuple[str, int], str] = {
            (oid, idx): name
            for oid, idx, name in con.execute("SELECT oracle_id, face_index, name FROM faces WHERE is_card").fetchall()
        }
        self.union = _Union()
        self.refers: dict[str, set[tuple[str, int | None]]] = {}  # name -> {(oracle_id, face_index)}
        self.kinds: dict[str, ClassKind] = {}
        self.printings: dict[str, dict[str, tuple[str, str | None, str | None]]] = {}  # name -> id -> (id, set, #)
        self.override_ids: dict[str, set[str]] = {}
        self.override_sources: dict[str, list[str]] = {}

    def own_name(self, oid: str, idx: int | None) -> str:
        return self.cards[oid] if idx is None else self.face_names.get((oid, idx), self.cards[oid])

    def add_printed(self, printed: pl.DataFrame) -> None:
        """Every English printed name joins the class of its card's (or face's) own name."""
        for name, oid, idx, pid, set_code, number in printed.select(
            "name", "oracle_id", "face_index", "printing_id", "set_code", "collector_number"
        ).iter_rows():
            anchor = self.own_name(oid, idx)
            self.union.union(anchor, name)
            self.refers.setdefault(anchor, set()).add((oid, idx))
            self.refers.setdefault(name, set()).add((oid, idx))
            self.kinds[anchor] = "oracle"
            self.kinds.setdefault(name, "printed")
            self.printings.setdefault(name, {})[pid] = (pid, set_code, number)

    def add_override(self, others: pl.DataFrame, override: list[tuple[str, str, str]], override_name: str) -> None:
        """Names sharing a ``class_id`` of the override table join one class."""
        english = others.filter(pl.col("via").is_in(OWN_NAME_LIST))
        exact: dict[str, set[tuple[str, int | None]]] = {}
        for name, oid, idx in english.select("name", "oracle_id", "face_index").iter_rows():
            exact.setdefault(name, set()).add((oid, idx))
        by_class: dict[str, list[str]] = {}
        for class_id, name, source in override:
            by_class.setdefault(class_id, []).append(name)
            self.override_ids.setdefault(name, set()).add(class_id)
            self.override_sources.setdefault(name, []).append(f"{override_name}: {source}" if source else override_name)
            if name in exact:
                self.refers.setdefault(name, set()).update(exact[name])
                self.kinds[name] = "oracle"
            elif name not in self.refers:
                self.refers[name] = set()
                self.kinds[name] = "override"
        for members in by_class.values():
            self.union.find(members[0])
            for other in members[1:]:
                self.union.union(members[0], other)

    def rows(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The ``name_classes`` rows of every class, and the ``names`` rows of names only the override gives."""
        groups: dict[str, list[str]] = {}
        for name in self.union.parent:
            groups.setdefault(self.union.find(name), []).append(name)
        rows: list[dict[str, Any]] = []
        extra: list[dict[str, Any]] = []
        for members in groups.values():
            targets = set().union(*(self.refers.get(m, set()) for m in members))
            extra.extend(self._names_of_the_class_card(members, targets))
            class_id = self._class_id(members, targets)
            for name in sorted(members):
                rows.extend(self._name_rows(name, class_id))
        return rows, extra

    def _names_of_the_class_card(
        self, members: list[str], targets: set[tuple[str, int | None]]
    ) -> list[dict[str, Any]]:
        """A name only the override gives names the one card its class names (CR 201.3)."""
        extra = []
        for name in members:
            if not self.refers.get(name) and len(targets) == 1:
                self.refers[name] = set(targets)
                ((oid, idx),) = targets
                extra.append(
                    {
                        "name": name,
                        "key": normalize(name),
                        "oracle_id": oid,
                        "face_index": idx,
                        "via": INTERCHANGEABLE,
                        "lang": "en",
                    }
                )
        return extra

    def _class_id(self, members: list[str], targets: set[tuple[str, int | None]]) -> str:
        """The override's class id, else the one card (or face) the class names, else its first card or name."""
        ids = sorted(set().union(*(self.override_ids.get(m, set()) for m in members)))
        if ids:
            return ids[0]
        if len(targets) == 1:
            ((oid, idx),) = targets
            return oid if idx is None else f"{oid}/{idx}"
        oids = sorted({oid for oid, _ in targets})
        return oids[0] if oids else members[0]

    def _name_rows(self, name: str, class_id: str) -> list[dict[str, Any]]:
        """One row per card (or face) ``name`` refers to, saying where the name comes from."""
        kind = self.kinds.get(name, "override")
        found = sorted(self.printings.get(name, {}).values(), key=lambda p: (p[1] or "", _number_key(p[2]), p[0]))
        where = ", ".join(f"{s} #{n}" if n else f"{s} (collector number unknown)" for _, s, n in found)
        source = {"oracle": "Oracle name", "printed": f"English printed name on {where}", "override": "override table"}[
            kind
        ]
        if name in self.override_sources:
            source += "; " + "; ".join(self.override_sources[name])
        named: list[tuple[str | None, int | None]] = sorted(
            self.refers.get(name, set()), key=lambda t: (t[0], -1 if t[1] is None else t[1])
        ) or [(None, None)]
        return [
            {
                "class_id": class_id,
                "name": name,
                "oracle_id": oid,
                "face_index": idx,
                "kind": kind,
                "source": source,
                "printings": [{"id": p[0], "set_code": p[1], "collector_number": p[2]} for p in found],
            }
            for oid, idx in named
        ]


def _number_key(number: str | None) -> tuple[int, str]:
    digits = re.match(r"\d+", number or "")
    return (int(digits.group()) if digits else 1 << 30, number or "")


def write_classes(con: duckdb.DuckDBPyConnection, classes: pl.DataFrame) -> None:
    """Write ``name_classes``; the card's own names get its English printings that show that name."""
    con.register("classes_frame", sqlfiles.ArrowStream(classes))
    con.execute(sqlfiles.load("name_classes.sql"))
    con.unregister("classes_frame")


#: The shipped override is about 1 kB; 16 MB bounds a wrong file (/dev/zero) without refusing a real one.
MAX_INTERCHANGEABLE_BYTES = 16 * userfiles.MiB


def read_interchangeable_file(path: Path) -> list[tuple[str, str, str]]:
    """Rows (class_id, name, source) of a CSV with columns class_id,name,source; '#' lines are comments.

    Anything malformed (not UTF-8 text, a row with too few or too many fields, an empty class_id or name)
    raises IngestError naming the file and the row.
    """
    expected = "expected UTF-8 CSV with a header 'class_id,name,source' and one row per name"
    try:
        data = userfiles.read_bytes(path, limit=MAX_INTERCHANGEABLE_BYTES, what="interchangeable-names file")
        text = data.decode("utf-8-sig")  # a BOM (Excel) is not part of the header
        lines = [line for line in text.splitlines(keepends=True) if line.strip() and not line.lstrip().startswith("#")]
        records = list(csv.reader(lines, strict=True))
    except UnicodeDecodeError as exc:
        raise IngestError(
            f"{path}: interchangeable-names file is not UTF-8 text ({exc.reason} at byte {exc.start}); {expected}."
        ) from None
    except csv.Error as exc:
        raise IngestError(f"{path}: interchangeable-names file is not valid CSV ({exc}); {expected}.") from None
    header = [h.strip() for h in records[0]] if records else []
    missing = {"class_id", "name"} - set(header)
    if missing:
        raise IngestError(f"{path}: interchangeable-names file lacks column(s) {sorted(missing)}; {expected}.")
    rows = []
    for number, record in enumerate(records[1:], 1):
        if len(record) != len(header):
            raise IngestError(
                f"{path}: data row {number} has {len(record)} field(s), the header {len(header)}; {expected}."
            )
        row = dict(zip(header, record))
        rows.append((row["class_id"].strip(), row["name"].strip(), row.get("source", "").strip()))
    blank = [n for n, (class_id, name, _) in enumerate(rows, 1) if not class_id or not name]
    if blank:
        raise IngestError(f"{path}: data row {blank[0]} has an empty class_id or name; every row needs both.")
    return rows
