"""Name rules (CR 201): turn any string a person typed or a card shows into its Oracle card.

The ``names`` table (built at ingest) holds every name that refers to an Oracle card:
full names, face/half names (709, 710, 712, 713, 715), foreign printed names (201.2),
alternate names (201.6) and their normalized lookup keys. ``name_classes`` holds the
interchangeable names (201.3).

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")                         # doctest: +SKIP
>>> r = db.resolve("fire/ice")                                  # doctest: +SKIP
>>> (r.status, r.name, r.face, r.via)                           # doctest: +SKIP
('ok', 'Fire // Ice', None, 'normalized')
"""
from __future__ import annotations

import csv
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
from rapidfuzz import fuzz, process

from . import sqlfiles

# How much a kind of name counts when one string matches several cards: English Oracle
# names (whole or face) first, then English alternate names, then foreign printed names.
VIA_TIER = {"name": 0, "face": 0, "flavor": 1, "alternate": 1, "interchangeable": 1, "printed": 2}

_FOLD = str.maketrans({
    "Æ": "Ae", "æ": "ae", "Œ": "Oe", "œ": "oe",
    "’": "'", "‘": "'", "ʼ": "'", "′": "'", "`": "'", "´": "'",
    "“": '"', "”": '"', "„": '"', "″": '"',
    "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-",
})
# Python's \s also matches the separators \x1c-\x1f, Rust's (Polars') does not: spell out the class.
_WS = r"[^\S\x1c-\x1f]"
_SLASHES = re.compile(rf"{_WS}*/+{_WS}*")
_SPACES = re.compile(rf"{_WS}+")


def normalize(text: str) -> str:
    """The lookup key of a name: accents, case, Æ, quotes, dashes, spaces and half separators folded.

    'Lim-Dûl’s Vault' -> "lim-dul's vault"; 'Fire/Ice' and 'Fire  //  Ice' -> 'fire // ice'.
    Must agree with :func:`normalize_expr` (tested).
    """
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    folded = stripped.translate(_FOLD).lower()
    return _SPACES.sub(" ", _SLASHES.sub(" // ", folded)).strip(" ")


def normalize_expr(column: str | pl.Expr) -> pl.Expr:
    """:func:`normalize` as a vectorised Polars expression (for batch resolution)."""
    expr = pl.col(column) if isinstance(column, str) else column
    expr = expr.str.normalize("NFKD").str.replace_all(r"\p{Mn}", "")
    expr = expr.str.replace_many([k for k, _ in _FOLD_PAIRS], [v for _, v in _FOLD_PAIRS])
    expr = expr.str.to_lowercase()
    expr = expr.str.replace_all(r"\s*/+\s*", " // ").str.replace_all(r"\s+", " ").str.strip_chars(" ")
    return expr


_FOLD_PAIRS = [(chr(k), v) for k, v in _FOLD.items()]


# -- building the tables at ingest -------------------------------------------------------------

def build(con: duckdb.DuckDBPyConnection, interchangeable_file: Path | None = None) -> None:
    """Create ``names``, ``token_names`` and ``name_classes`` in a freshly ingested database."""
    con.execute(sqlfiles.load("names.sql"))
    sources = sqlfiles.frame(con, "SELECT DISTINCT * FROM name_sources WHERE name IS NOT NULL AND name <> ''")
    names = sources.with_columns(key=normalize_expr("name"))
    con.register("names_frame", names.to_arrow())
    con.execute("CREATE OR REPLACE TABLE names AS SELECT name, key, oracle_id, face_index, via, lang FROM names_frame")
    con.unregister("names_frame")
    con.execute("DROP TABLE name_sources")
    _build_classes(con, interchangeable_file or default_interchangeable_file())


def default_interchangeable_file() -> Path:
    from .resources import INTERCHANGEABLE_CSV

    return INTERCHANGEABLE_CSV


def _build_classes(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """CR 201.3: classes of interchangeable names, from the versioned table in data/."""
    con.execute("CREATE OR REPLACE TABLE name_classes (class_id VARCHAR, name VARCHAR, oracle_id VARCHAR, "
                "source VARCHAR)")
    rows = read_interchangeable_file(path) if path.exists() else []
    for class_id, name, source in rows:
        oracle_id = con.execute("SELECT any_value(oracle_id) FROM names WHERE name = ? AND via = 'name'",
                                [name]).fetchone()[0]
        con.execute("INSERT INTO name_classes VALUES (?, ?, ?, ?)", [class_id, name, oracle_id, source])


def read_interchangeable_file(path: Path) -> list[tuple[str, str, str]]:
    """Rows (class_id, name, source) of a CSV with columns class_id,name,source; '#' lines are comments."""
    with path.open(encoding="utf-8", newline="") as handle:
        lines = [line for line in handle if line.strip() and not line.lstrip().startswith("#")]
    reader = csv.DictReader(lines)
    missing = {"class_id", "name"} - set(reader.fieldnames or [])
    if missing:
        raise ValueError(f"{path}: interchangeable-names file lacks column(s) {sorted(missing)}; "
                         "expected a header 'class_id,name,source'.")
    return [(row["class_id"].strip(), row["name"].strip(), (row.get("source") or "").strip()) for row in reader]


# -- resolving ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    name: str
    oracle_id: str
    face: str | None
    via: str


@dataclass(frozen=True)
class Resolution:
    """What a string names. ``status`` is ok, ambiguous or not_found; ``names`` is the 201.3 class."""

    query: str
    status: str
    name: str | None = None
    face: str | None = None
    face_index: int | None = None
    oracle_id: str | None = None
    via: str | None = None
    lang: str | None = None
    names: tuple[str, ...] = ()
    candidates: tuple[Candidate, ...] = ()
    suggestions: tuple[str, ...] = ()
    tokens: tuple[str, ...] = ()  # not_found: close token names (CR 111; not cards, 201.4), see `token NAME`

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def english_name(self) -> str | None:
        """The English name that matched: the face's name when a face matched, else the card's."""
        return self.face or self.name

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["names"] = list(self.names)
        data["candidates"] = [asdict(c) for c in self.candidates]
        data["suggestions"] = list(self.suggestions)
        data["tokens"] = list(self.tokens)
        return data


# A precomputed answer for one lookup string (exact name or normalized key):
# (status, oracle_id, face_index, via, lang, candidates). Plain tuples, built in bulk by zip:
# a few hundred thousand of them are made per index, and object construction would dominate.
_Target = tuple


class NameIndex:
    """In-memory index over the ``names`` table: dict lookups for single names, joins for batches."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        names = sqlfiles.frame(con, "SELECT name, key, oracle_id, face_index, via, lang FROM names")
        self.cards = {
            oid: name for oid, name in con.execute("SELECT oracle_id, name FROM cards WHERE is_card").fetchall()}
        self.face_names = {
            (oid, idx): name for oid, idx, name in con.execute(
                "SELECT f.oracle_id, f.face_index, f.name FROM faces f JOIN cards c USING (oracle_id) "
                "WHERE c.is_card").fetchall()}
        self.split_halves: dict[str, tuple[str, ...]] = {}
        for oid, halves in con.execute(
                "SELECT oracle_id, list(name ORDER BY face_index) FROM faces "
                "WHERE role IN ('split_half', 'aftermath_half') GROUP BY oracle_id").fetchall():
            self.split_halves[oid] = tuple(halves)
        self.token_names = {
            normalize(name) for (name,) in con.execute("SELECT DISTINCT name FROM token_names").fetchall()}
        # Token names for suggestions: the tokens layer owns them (CR 111); imported here, as it imports us.
        from .tokens import token_name_strings

        self._token_display: list[str] = token_name_strings(con)
        self._token_keys = [normalize(n) for n in self._token_display]
        self._classes = self._load_classes(con)
        names = names.with_columns(tier=pl.col("via").replace_strict(VIA_TIER, default=9))
        self.exact, exact_frame = self._targets(names, "name")
        self.by_key, key_frame = self._targets(names, "key")
        self._lookup_frames = (exact_frame.rename({"name": "query"}), key_frame)
        english = names.filter(pl.col("via").is_in(["name", "face"]))
        self._fuzzy_keys: list[str] = english.get_column("key").unique().sort().to_list()
        key_to_name = dict(zip(english.get_column("key").to_list(), english.get_column("name").to_list()))
        self._fuzzy_names = [key_to_name[k] for k in self._fuzzy_keys]
        self._frames: tuple[pl.DataFrame, pl.DataFrame] | None = None

    @staticmethod
    def _load_classes(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, ...]]:
        classes: dict[str, tuple[str, ...]] = {}
        for _, members in con.execute(
                "SELECT class_id, list(DISTINCT name ORDER BY name) FROM name_classes GROUP BY class_id").fetchall():
            for member in members:
                classes[member] = tuple(sorted(set(classes.get(member, ())) | set(members)))
        return classes

    @staticmethod
    def _targets(names: pl.DataFrame, column: str) -> tuple[dict[str, _Target], pl.DataFrame]:
        """Best answer per lookup string: the lowest tier wins; several cards there is ambiguity.

        Vectorised: only the (few) ambiguous lookups are walked in Python.
        """
        best = (names.filter(pl.col("tier") == pl.col("tier").min().over(column))
                .sort([column, pl.col("face_index").is_not_null(), pl.col("face_index").fill_null(0), "via"]))
        grouped = best.group_by(column, maintain_order=True).agg(
            pl.col("oracle_id").first(), pl.col("face_index").first(), pl.col("via").first(), pl.col("lang").first(),
            pl.col("oracle_id").n_unique().alias("cards"))
        ok = grouped.filter(pl.col("cards") == 1)
        lookups, oids, idxs, vias, langs = (ok.get_column(c).to_list()
                                            for c in (column, "oracle_id", "face_index", "via", "lang"))
        targets: dict[str, _Target] = dict(zip(lookups, zip(repeat("ok"), oids, idxs, vias, langs, repeat(()))))
        ambiguous = best.join(grouped.filter(pl.col("cards") > 1).select(column), on=column, how="semi")
        for (lookup,), rows in ambiguous.group_by(column, maintain_order=True):
            seen: dict[tuple[str, int | None], str] = {}
            for oid, idx, via in rows.select("oracle_id", "face_index", "via").iter_rows():
                seen.setdefault((oid, idx), via)
            targets[lookup] = ("ambiguous", None, None, None, None,
                               tuple((oid, idx, via) for (oid, idx), via in seen.items()))
        frame = grouped.select(
            column, pl.when(pl.col("cards") == 1).then(pl.lit("ok")).otherwise(pl.lit("ambiguous")).alias("status"),
            *(pl.when(pl.col("cards") == 1).then(pl.col(c)).alias(c) for c in ("oracle_id", "face_index", "via", "lang")))
        return targets, frame

    # -- single -----------------------------------------------------------------------------

    def resolve(self, text: str, *, fuzzy: bool = False, suggest: int = 5) -> Resolution:
        """Resolve one string: exact name, then normalized key, then (only with fuzzy) the closest name."""
        target = self.exact.get(text)
        normalized = False
        if target is None:
            key = normalize(text)
            target = self.by_key.get(key)
            normalized = True
        if target is not None:
            return self._answer(text, target, normalized)
        suggestions = self.suggest(text, limit=suggest)
        if fuzzy and suggestions:
            best = self.exact.get(suggestions[0])
            if best is not None and best[0] == "ok":
                resolution = self._answer(text, best, False)
                return _replace(resolution, via="fuzzy", suggestions=tuple(suggestions))
        return Resolution(query=text, status="not_found", suggestions=tuple(suggestions),
                          tokens=tuple(self.suggest_tokens(text, limit=suggest)))

    def _answer(self, text: str, target: _Target, normalized: bool) -> Resolution:
        status, oid, idx, via, lang, ambiguous_between = target
        if status == "ambiguous":
            candidates = tuple(
                Candidate(self.cards[c_oid], c_oid, self._face_name(c_oid, c_idx), c_via)
                for c_oid, c_idx, c_via in ambiguous_between)
            return Resolution(query=text, status="ambiguous", candidates=candidates,
                              suggestions=tuple(dict.fromkeys(c.name for c in candidates)))
        face = self._face_name(oid, idx)
        if normalized and via in ("name", "face"):
            via = "normalized"
        english = face or self.cards[oid]
        return Resolution(query=text, status="ok", name=self.cards[oid], face=face, face_index=idx,
                          oracle_id=oid, via=via, lang=lang, names=self.interchangeable(english))

    def _face_name(self, oid: str | None, idx: int | None) -> str | None:
        if oid is None or idx is None:
            return None
        return self.face_names.get((oid, idx))

    def interchangeable(self, name: str) -> tuple[str, ...]:
        """Every name that is the same name as ``name`` under CR 201.3a/b, itself included."""
        return self._classes.get(name, (name,))

    def suggest(self, text: str, limit: int = 5) -> list[str]:
        """The closest English Oracle names (rapidfuzz's normalized Indel ratio over lookup keys).

        Plain ratio rather than WRatio: the same top suggestions on real misspellings at about
        a twentieth of the cost (bench/bench_names.py).
        """
        key = normalize(text)
        if not key:
            return []
        hits = process.extract(key, self._fuzzy_keys, scorer=fuzz.ratio, limit=limit, score_cutoff=50)
        return [self._fuzzy_names[index] for _, _, index in hits]

    def suggest_tokens(self, text: str, limit: int = 5) -> list[str]:
        """The closest token names (predefined, named by effects, Scryfall token objects; the tokens
        layer lists them) — never cards, so kept apart from :meth:`suggest`."""
        key = normalize(text)
        hits = process.extract(key, self._token_keys, scorer=fuzz.ratio, limit=limit, score_cutoff=70) if key else []
        return list(dict.fromkeys(self._token_display[index] for _, _, index in hits))

    def is_token_name(self, text: str) -> bool:
        return normalize(text) in self.token_names

    # -- batch ------------------------------------------------------------------------------

    def frames(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        """Lookup frames (exact name and normalized key -> answer) used by :meth:`resolve_many`."""
        if self._frames is None:
            cards = pl.DataFrame({"oracle_id": list(self.cards), "name": list(self.cards.values())})
            faces = pl.DataFrame(
                {"oracle_id": [k[0] for k in self.face_names], "face_index": [k[1] for k in self.face_names],
                 "face": list(self.face_names.values())},
                schema={"oracle_id": pl.String, "face_index": pl.Int64, "face": pl.String})
            self._frames = tuple(  # type: ignore[assignment]
                f.join(cards, on="oracle_id", how="left").join(faces, on=["oracle_id", "face_index"], how="left")
                .select(f.columns[0], "status", "oracle_id", "name", "face", "face_index", "via", "lang")
                for f in self._lookup_frames)
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
        by_norm = missed.join(by_key, on="key", how="left").drop("key").with_columns(
            status=pl.col("status").fill_null("not_found"),
            via=pl.when(pl.col("via").is_in(["name", "face"])).then(pl.lit("normalized")).otherwise(pl.col("via")))
        answers = pl.concat([hit, by_norm], how="vertical_relaxed")
        return frame.join(answers, on="query", how="left", maintain_order="left")


def _replace(resolution: Resolution, **changes: Any) -> Resolution:
    data = {**resolution.__dict__, **changes}
    return Resolution(**data)


# -- same-name semantics (CR 201.2a–c, 201.3a) -----------------------------------------------------

NameSet = frozenset[str] | None
"""The names an object has: a set of English names, empty/None for an object with no name (face-down)."""


def _expanded(names: Iterable[str] | None, classes: dict[str, tuple[str, ...]]) -> frozenset[str]:
    if not names:
        return frozenset()
    out: set[str] = set()
    for name in names:
        out.update(classes.get(name, (name,)))  # CR 201.3a: interchangeable names are the same name
    return frozenset(out)


def same_name(a: Iterable[str] | None, b: Iterable[str] | None,
              classes: dict[str, tuple[str, ...]] | None = None) -> bool:
    """CR 201.2a: same name iff at least one name in common; an object with no name never has."""
    classes = classes or {}
    return bool(_expanded(a, classes) & _expanded(b, classes))


def have_different_names(objects: Sequence[Iterable[str] | None],
                         classes: dict[str, tuple[str, ...]] | None = None) -> bool:
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


def has_different_name(first: Iterable[str] | None, others: Sequence[Iterable[str] | None],
                       classes: dict[str, tuple[str, ...]] | None = None) -> bool:
    """CR 201.2c: the first has a name and shares none with the others (nameless others don't matter)."""
    classes = classes or {}
    mine = _expanded(first, classes)
    if not mine:
        return False
    return all(not (mine & _expanded(o, classes)) for o in others)
