"""Name rules (CR 201): turn any string a person typed or a card shows into its Oracle card.

The ``names`` table (built at ingest, SQL in ``sql/names.sql``) holds every name that refers to an
Oracle card with its normalized lookup key and ``via``: full names (``name``), face/half names
(``face``; 709, 710, 712, 713, 715), foreign printed names (``printed``; 201.2), English printed names
that differ from the Oracle name (``interchangeable``; 201.3: Scryfall's Through the Omenpaths
printings), flavor names (``flavor``; 201.6 alternate names) and, added by the change history
(``oracle_tools/changes.py``), the former names of renamed cards (``former``: no name of the card any
more, answered with a note saying so). ``name_classes``
(``sql/name_classes.sql``) holds the classes of interchangeable names (201.3): per card its own name
and every interchangeable name, with the printings carrying each, plus the optional override table.
These two tables are the single source of ``via`` and classes for every reader (:class:`NameIndex`,
SQL lookups, the ``name_aliases`` view).

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")                         # doctest: +SKIP
>>> r = db.resolve("fire/ice")                                  # doctest: +SKIP
>>> (r.status, r.name, r.face, r.via)                           # doctest: +SKIP
('ok', 'Fire // Ice', None, 'normalized')
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Sequence
from itertools import repeat
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from . import sqlfiles, userfiles
from .errors import IngestError
from .lookup import SUGGESTED_VIAS, SUGGESTION_NAMES_SQL, VIA_TIER, Candidate, NameResolver, Resolution, normalize
from .matching import FOLD, TOKEN_SPELLING_CUTOFF, NameMatcher


def normalize_expr(column: str | pl.Expr) -> pl.Expr:
    """:func:`normalize` as a vectorised Polars expression (for batch resolution)."""
    expr = pl.col(column) if isinstance(column, str) else column
    expr = expr.str.normalize("NFKD").str.replace_all(r"\p{Mn}", "")
    expr = expr.str.replace_many([k for k, _ in _FOLD_PAIRS], [v for _, v in _FOLD_PAIRS])
    folded = expr.str.to_lowercase().str.replace_all(r"\s*/+\s*", " // ")
    unmarked = folded.str.replace_all(r"\p{Pd}", " ").str.replace_all(r"[\p{P}&&[^/]]", "")
    kept = pl.when(unmarked.str.strip_chars(" /") == "").then(folded).otherwise(unmarked)
    return kept.str.replace_all(r"\s+", " ").str.strip_chars(" ")


_FOLD_PAIRS = [(chr(k), v) for k, v in FOLD.items()]


# -- building the tables at ingest -------------------------------------------------------------

#: What a ``name_classes`` row is: the card's own (Oracle or face) name, an English printed name found
#: in the data (CR 201.3), or a name only the override table gives (a pair the data source lacks).
CLASS_KINDS = ("oracle", "printed", "override")

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
    own = sources.filter(pl.col("via").is_in(["name", "face", "flavor"])).select("oracle_id", "key").unique()
    printed = sources.filter(pl.col("via") == "interchangeable").join(own, on=["oracle_id", "key"], how="anti")
    others = sources.filter(pl.col("via") != "interchangeable")
    path = interchangeable_file or default_interchangeable_file()
    override = read_interchangeable_file(path) if path.exists() else []
    classes, extra_names = _classes(con, others, printed, override, path.name)
    names = (
        pl.concat([others, printed, extra_names], how="diagonal_relaxed")
        .select("name", "key", "oracle_id", pl.col("face_index").cast(pl.Int32), "via", "lang")
        .unique()
    )
    sqlfiles.write_frame(con, "names", names, order_by="key, name, oracle_id, face_index NULLS FIRST, via, lang")
    # The English names a miss is offered (lookup.SUGGESTED_VIAS), one per key: a fresh process reads these
    # ~25k rows instead of grouping the whole names table for one misspelt name (issue 14).
    con.execute(f"CREATE OR REPLACE TABLE name_suggestions AS {SUGGESTION_NAMES_SQL}", [list(SUGGESTED_VIAS)])
    if store_classes:
        write_classes(con, classes)
    return classes


def default_interchangeable_file() -> Path:
    from .resources import INTERCHANGEABLE_CSV

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
    cards: dict[str, str] = dict(con.execute("SELECT oracle_id, name FROM cards WHERE is_card").fetchall())
    face_names: dict[tuple[str, int], str] = {
        (oid, idx): name
        for oid, idx, name in con.execute("SELECT oracle_id, face_index, name FROM faces WHERE is_card").fetchall()
    }

    def own_name(oid: str, idx: int | None) -> str:
        return cards[oid] if idx is None else face_names.get((oid, idx), cards[oid])

    union = _Union()
    # name -> {(oracle_id, face_index)} it refers to, kind, printings, override class ids and sources
    refers: dict[str, set[tuple[str, int | None]]] = {}
    kinds: dict[str, str] = {}
    printings: dict[str, dict[str, tuple[str, str | None, str | None]]] = {}
    csv_ids: dict[str, set[str]] = {}
    csv_sources: dict[str, list[str]] = {}
    for name, oid, idx, pid, set_code, number in printed.select(
        "name", "oracle_id", "face_index", "printing_id", "set_code", "collector_number"
    ).iter_rows():
        anchor = own_name(oid, idx)
        union.union(anchor, name)
        refers.setdefault(anchor, set()).add((oid, idx))
        refers.setdefault(name, set()).add((oid, idx))
        kinds[anchor] = "oracle"
        kinds.setdefault(name, "printed")
        printings.setdefault(name, {})[pid] = (pid, set_code, number)

    extra: list[dict[str, Any]] = []
    if override:
        english = others.filter(pl.col("via").is_in(["name", "face"]))
        exact: dict[str, set[tuple[str, int | None]]] = {}
        for name, oid, idx in english.select("name", "oracle_id", "face_index").iter_rows():
            exact.setdefault(name, set()).add((oid, idx))
        by_class: dict[str, list[str]] = {}
        for class_id, name, source in override:
            by_class.setdefault(class_id, []).append(name)
            csv_ids.setdefault(name, set()).add(class_id)
            csv_sources.setdefault(name, []).append(f"{override_name}: {source}" if source else override_name)
            if name in exact:
                refers.setdefault(name, set()).update(exact[name])
                kinds[name] = "oracle"
            elif name not in refers:
                refers[name] = set()
                kinds[name] = "override"
        for members in by_class.values():
            union.find(members[0])
            for other in members[1:]:
                union.union(members[0], other)

    groups: dict[str, list[str]] = {}
    for name in union.parent:
        groups.setdefault(union.find(name), []).append(name)
    rows: list[dict[str, Any]] = []
    for members in groups.values():
        targets = set().union(*(refers.get(m, set()) for m in members))
        for name in members:
            if not refers.get(name) and len(targets) == 1:
                # a name only the override gives: it names the one card its class names (CR 201.3)
                refers[name] = set(targets)
                ((oid, idx),) = targets
                extra.append(
                    {
                        "name": name,
                        "key": normalize(name),
                        "oracle_id": oid,
                        "face_index": idx,
                        "via": "interchangeable",
                        "lang": "en",
                    }
                )
        ids = sorted(set().union(*(csv_ids.get(m, set()) for m in members)))
        oids = sorted({oid for oid, _ in targets})
        if ids:
            class_id = ids[0]
        elif len(targets) == 1:
            ((oid, idx),) = targets
            class_id = oid if idx is None else f"{oid}/{idx}"
        else:
            class_id = oids[0] if oids else members[0]
        for name in sorted(members):
            kind = kinds.get(name, "override")
            found = sorted(printings.get(name, {}).values(), key=lambda p: (p[1] or "", _number_key(p[2]), p[0]))
            where = ", ".join(f"{s} #{n}" if n else f"{s} (collector number unknown)" for _, s, n in found)
            source = {
                "oracle": "Oracle name",
                "printed": f"English printed name on {where}",
                "override": "override table",
            }[kind]
            if name in csv_sources:
                source += "; " + "; ".join(csv_sources[name])
            named: list[tuple[str | None, int | None]] = sorted(
                refers.get(name, set()), key=lambda t: (t[0], -1 if t[1] is None else t[1])
            ) or [(None, None)]
            for oid, idx in named:
                rows.append(
                    {
                        "class_id": class_id,
                        "name": name,
                        "oracle_id": oid,
                        "face_index": idx,
                        "kind": kind,
                        "source": source,
                        "printings": [{"id": p[0], "set_code": p[1], "collector_number": p[2]} for p in found],
                    }
                )
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


def _number_key(number: str | None) -> tuple[int, str]:
    digits = re.match(r"\d+", number or "")
    return (int(digits.group()) if digits else 1 << 30, number or "")


def write_classes(con: duckdb.DuckDBPyConnection, classes: pl.DataFrame) -> None:
    """Write ``name_classes``; the card's own names get its English printings that show that name."""
    con.register("classes_frame", classes.to_arrow())
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


# -- resolving ---------------------------------------------------------------------------------

# Candidate and Resolution (the answers) live in lookup.py, shared with the point-query path.

# A precomputed answer for one lookup string (exact name or normalized key):
# (status, oracle_id, face_index, via, lang, candidates). Plain tuples, built in bulk by zip:
# a few hundred thousand of them are made per index, and object construction would dominate.
_Target = tuple


def _shared(values: list[Any]) -> list[Any]:
    """``values`` with equal strings made one object (what ``sys.intern`` does, without immortal strings)."""
    seen: dict[Any, Any] = {}
    return [seen.setdefault(v, v) for v in values]


class NameIndex(NameResolver):
    """In-memory index over the ``names`` table: dict lookups for single names, joins for batches."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        names = sqlfiles.frame(con, "SELECT name, key, oracle_id, face_index, via, lang FROM names")
        self.cards = {
            oid: name for oid, name in con.execute("SELECT oracle_id, name FROM cards WHERE is_card").fetchall()
        }
        self.face_names = {
            (oid, idx): name
            for oid, idx, name in con.execute(
                "SELECT f.oracle_id, f.face_index, f.name FROM faces f JOIN cards c USING (oracle_id) WHERE c.is_card"
            ).fetchall()
        }
        self.split_halves: dict[str, tuple[str, ...]] = {}
        for oid, halves in con.execute(
            "SELECT oracle_id, list(name ORDER BY face_index) FROM faces "
            "WHERE role IN ('split_half', 'aftermath_half') GROUP BY oracle_id"
        ).fetchall():
            self.split_halves[oid] = tuple(halves)
        self.token_names = {
            normalize(name) for (name,) in con.execute("SELECT DISTINCT name FROM token_names").fetchall()
        }
        # Token names for suggestions: the tokens layer owns them (CR 111); imported here, as it imports us.
        from .tokens import token_name_strings

        self._token_display: list[str] = token_name_strings(con)
        self._token_keys = [normalize(n) for n in self._token_display]
        self._classes = self._load_classes(con)
        from .changes import former_notes  # renamed cards (the ingest's change history)

        self._former_notes = former_notes(con)
        names = names.with_columns(tier=pl.col("via").replace_strict(VIA_TIER, default=9))
        self.exact, exact_frame = self._targets(names, "name")
        self.by_key, key_frame = self._targets(names, "key")
        self._lookup_frames = (exact_frame.rename({"name": "query"}), key_frame)
        english = names.filter(pl.col("via").is_in(SUGGESTED_VIAS)).sort("key", "name")
        self._suggestion_keys: list[str] = english.get_column("key").unique().sort().to_list()
        key_to_name = dict(zip(english.get_column("key").to_list(), english.get_column("name").to_list()))
        self._suggestion_names = [key_to_name[k] for k in self._suggestion_keys]
        self._frames: tuple[pl.DataFrame, pl.DataFrame] | None = None
        self._matcher: NameMatcher | None = None
        self._token_matcher: NameMatcher | None = None

    def _load_classes(self, con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, ...]]:
        """name -> its CR 201.3 class (sorted names, itself included), read from ``name_classes``.

        Also fills ``class_ids`` (name -> class_id), the key deck checks count copies by (201.3b).
        """
        classes: dict[str, tuple[str, ...]] = {}
        self.class_ids: dict[str, str] = {}
        for class_id, members in con.execute(
            "SELECT class_id, list(DISTINCT name ORDER BY name) FROM name_classes WHERE name IS NOT NULL "
            "GROUP BY class_id ORDER BY class_id"
        ).fetchall():
            for member in members:
                # a database built before classes were merged may list a name in two classes: unite them
                classes[member] = tuple(sorted(set(classes.get(member, ())) | set(members)))
                self.class_ids.setdefault(member, class_id)
        return classes

    @staticmethod
    def _targets(names: pl.DataFrame, column: str) -> tuple[dict[str, _Target], pl.DataFrame]:
        """Best answer per lookup string: the lowest tier wins; several cards there is ambiguity.

        Vectorised: only the (few) ambiguous lookups are walked in Python.
        """
        best = names.filter(pl.col("tier") == pl.col("tier").min().over(column)).sort(
            [column, pl.col("face_index").is_not_null(), pl.col("face_index").fill_null(0), "via", "oracle_id", "lang"]
        )  # a total order: lookup.py's point queries break ties alike
        grouped = best.group_by(column, maintain_order=True).agg(
            pl.col("oracle_id").first(),
            pl.col("face_index").first(),
            pl.col("via").first(),
            pl.col("lang").first(),
            pl.col("oracle_id").n_unique().alias("cards"),
        )
        ok = grouped.filter(pl.col("cards") == 1)
        lookups, oids, idxs, vias, langs = (
            ok.get_column(c).to_list() for c in (column, "oracle_id", "face_index", "via", "lang")
        )
        # Polars gives every row its own str object; sharing one per distinct value keeps the warm index of
        # 200k names about 100 MB smaller (issue 14: warm library <= 600 MB).
        oids, vias, langs = _shared(oids), _shared(vias), _shared(langs)
        targets: dict[str, _Target] = dict(zip(lookups, zip(repeat("ok"), oids, idxs, vias, langs, repeat(()))))
        ambiguous = best.join(grouped.filter(pl.col("cards") > 1).select(column), on=column, how="semi")
        for (lookup,), rows in ambiguous.group_by(column, maintain_order=True):
            seen: dict[tuple[str, int | None], str] = {}
            for oid, idx, via in rows.select("oracle_id", "face_index", "via").iter_rows():
                seen.setdefault((oid, idx), via)
            targets[lookup] = (
                "ambiguous",
                None,
                None,
                None,
                None,
                tuple((oid, idx, via) for (oid, idx), via in seen.items()),
            )
        frame = grouped.select(
            column,
            pl.when(pl.col("cards") == 1).then(pl.lit("ok")).otherwise(pl.lit("ambiguous")).alias("status"),
            *(
                pl.when(pl.col("cards") == 1).then(pl.col(c)).alias(c)
                for c in ("oracle_id", "face_index", "via", "lang")
            ),
        )
        return targets, frame

    # -- single -----------------------------------------------------------------------------

    def lookup(self, text: str) -> Resolution | None:
        target = self.exact.get(text)
        normalized = False
        if target is None:
            target = self.by_key.get(normalize(text))
            normalized = True
        return None if target is None else self._answer(text, target, normalized)

    def _answer(self, text: str, target: _Target, normalized: bool) -> Resolution:
        status, oid, idx, via, lang, ambiguous_between = target
        if status == "ambiguous":
            candidates = tuple(
                Candidate(self.cards[c_oid], c_oid, self._face_name(c_oid, c_idx), c_via)
                for c_oid, c_idx, c_via in ambiguous_between
            )
            return Resolution(
                query=text,
                status="ambiguous",
                candidates=candidates,
                suggestions=tuple(dict.fromkeys(c.name for c in candidates)),
            )
        face = self._face_name(oid, idx)
        if normalized and via in ("name", "face"):
            via = "normalized"
        english = face or self.cards[oid]
        return Resolution(
            query=text,
            status="ok",
            name=self.cards[oid],
            face=face,
            face_index=idx,
            oracle_id=oid,
            via=via,
            lang=lang,
            names=self.interchangeable(english),
        )

    def former_note(self, oracle_id: str | None) -> str | None:
        return self._former_notes.get(oracle_id) if oracle_id else None

    def _face_name(self, oid: str | None, idx: int | None) -> str | None:
        if oid is None or idx is None:
            return None
        return self.face_names.get((oid, idx))

    def interchangeable(self, name: str) -> tuple[str, ...]:
        """Every name that is the same name as ``name`` under CR 201.3a/b, itself included (sorted)."""
        return self._classes.get(name, (name,))

    def class_id(self, name: str) -> str | None:
        """The ``name_classes.class_id`` of ``name`` (an English Oracle, face or interchangeable name),
        None when the name has no interchangeable names."""
        return self.class_ids.get(name)

    @property
    def classes(self) -> dict[str, tuple[str, ...]]:
        """name -> its class of interchangeable names (CR 201.3), for every name that has one."""
        return self._classes

    def matcher(self) -> NameMatcher:
        if self._matcher is None:
            self._matcher = NameMatcher(self._suggestion_keys, self._suggestion_names)
        return self._matcher

    def token_matcher(self) -> NameMatcher:
        if self._token_matcher is None:
            self._token_matcher = NameMatcher(
                self._token_keys, self._token_display, spelling_cutoff=TOKEN_SPELLING_CUTOFF
            )
        return self._token_matcher

    def is_token_name(self, text: str) -> bool:
        return normalize(text) in self.token_names

    # -- batch ------------------------------------------------------------------------------

    def frames(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        """Lookup frames (exact name and normalized key -> answer) used by :meth:`resolve_many`."""
        if self._frames is None:
            cards = pl.DataFrame({"oracle_id": list(self.cards), "name": list(self.cards.values())})
            faces = pl.DataFrame(
                {
                    "oracle_id": [k[0] for k in self.face_names],
                    "face_index": [k[1] for k in self.face_names],
                    "face": list(self.face_names.values()),
                },
                schema={"oracle_id": pl.String, "face_index": pl.Int64, "face": pl.String},
            )
            self._frames = tuple(  # type: ignore[assignment]
                f.join(cards, on="oracle_id", how="left")
                .join(faces, on=["oracle_id", "face_index"], how="left")
                .select(f.columns[0], "status", "oracle_id", "name", "face", "face_index", "via", "lang")
                for f in self._lookup_frames
            )
        return self._frames  # type: ignore[return-value]

    def resolve_many(self, texts: Iterable[str] | pl.Series) -> pl.DataFrame:
        """Resolve a whole column in two joins (exact, then normalized), keeping input order.

        Returns columns query, status, name, face, oracle_id, via (no fuzzy matching here:
        misses are ``not_found``; call :meth:`resolve` on them for suggestions).
        """
        exact, by_key = self.frames()
        series = texts if isinstance(texts, pl.Series) else pl.Series("query", list(texts), dtype=pl.String)
        frame = pl.DataFrame({"query": series.alias("query").cast(pl.String)})
        unique = frame.unique("query")
        hit = unique.join(exact, on="query", how="inner")
        missed = unique.join(exact, on="query", how="anti").with_columns(key=normalize_expr("query"))
        by_norm = (
            missed.join(by_key, on="key", how="left")
            .drop("key")
            .with_columns(
                status=pl.col("status").fill_null("not_found"),
                via=pl.when(pl.col("via").is_in(["name", "face"])).then(pl.lit("normalized")).otherwise(pl.col("via")),
            )
        )
        answers = pl.concat([hit, by_norm], how="vertical_relaxed")
        return frame.join(answers, on="query", how="left", maintain_order="left")


# -- same-name semantics (CR 201.2a–c, 201.3a) -----------------------------------------------------


def _expanded(names: Iterable[str] | None, classes: dict[str, tuple[str, ...]]) -> frozenset[str]:
    if not names:
        return frozenset()
    out: set[str] = set()
    for name in names:
        out.update(classes.get(name, (name,)))  # CR 201.3a: interchangeable names are the same name
    return frozenset(out)


def same_name(
    a: Iterable[str] | None, b: Iterable[str] | None, classes: dict[str, tuple[str, ...]] | None = None
) -> bool:
    """CR 201.2a: same name iff at least one name in common; an object with no name never has."""
    classes = classes or {}
    return bool(_expanded(a, classes) & _expanded(b, classes))


def have_different_names(
    objects: Sequence[Iterable[str] | None], classes: dict[str, tuple[str, ...]] | None = None
) -> bool:
    """CR 201.2b: different names only if each has a name and no two share one."""
    classes = classes or {}
    sets = [_expanded(o, classes) for o in objects]
    if any(not s for s in sets):
        return False
    seen: set[str] = set()
    for names in sets:
        if seen & names:
            return False
        seen |= names
    return True


def has_different_name(
    first: Iterable[str] | None,
    others: Sequence[Iterable[str] | None],
    classes: dict[str, tuple[str, ...]] | None = None,
) -> bool:
    """CR 201.2c: the first has a name and shares none with the others (nameless others don't matter)."""
    classes = classes or {}
    mine = _expanded(first, classes)
    if not mine:
        return False
    return all(not (mine & _expanded(o, classes)) for o in others)
