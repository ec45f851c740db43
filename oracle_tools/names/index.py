"""The warm strategy of the one ``resolve``: every name of the ``names`` table in memory.

:class:`NameIndex` answers single names from dicts in microseconds and columns of names with two Polars joins
(:meth:`NameIndex.resolve_many`); :class:`~oracle_tools.OracleDB` builds it once many lookups come (the point
queries of :mod:`oracle_tools.names.point` answer the first few, with the same answers).

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")                         # doctest: +SKIP
>>> r = db.resolve("fire/ice")                                  # doctest: +SKIP
>>> (r.status, r.name, r.face, r.via)                           # doctest: +SKIP
('ok', 'Fire // Ice', None, 'normalized')
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import repeat
from typing import Any, NamedTuple

import duckdb
import polars as pl

from oracle_tools.history.changes import former_notes
from oracle_tools.names import suggestions
from oracle_tools.names.build import normalize_expr
from oracle_tools.names.kinds import OWN_NAME_VIAS, VIA_TIER, Status, Via
from oracle_tools.names.resolver import (
    Candidate,
    NameResolver,
    Resolution,
)
from oracle_tools.store import sqlfiles
from oracle_tools.text.matching import NameMatcher, normalize

# -- resolving ---------------------------------------------------------------------------------


class Target(NamedTuple):
    """The precomputed answer for one lookup string (an exact name or a folded key). A few hundred thousand are
    made per index, in bulk (``Target._make`` over zipped columns): a tuple with names, no per-object dict."""

    status: Status  # ok | ambiguous
    oracle_id: str | None
    face_index: int | None
    via: Via | None
    lang: str | None
    ambiguous_between: tuple[tuple[str, int | None, Via], ...]  # (oracle_id, face_index, via) of each card


def _shared(values: list[Any]) -> list[Any]:
    """``values`` with equal strings made one object (what ``sys.intern`` does, without immortal strings)."""
    seen: dict[Any, Any] = {}
    return [seen.setdefault(v, v) for v in values]


class NameIndex(NameResolver):
    """In-memory index over the ``names`` table: dict lookups for single names, joins for batches."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        names = sqlfiles.frame(con, "SELECT name, key, oracle_id, face_index, via, lang FROM names")
        self.cards = dict(con.execute("SELECT oracle_id, name FROM cards WHERE is_card").fetchall())
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
        self._classes = self._load_classes(con)
        self._former_notes = former_notes(con)  # renamed cards (the ingest's change history)
        names = names.with_columns(tier=pl.col("via").replace_strict(VIA_TIER, default=9))
        self.exact, exact_frame = self._targets(names, "name")
        self.by_key, key_frame = self._targets(names, "key")
        self._lookup_frames = (exact_frame.rename({"name": "query"}), key_frame)
        self._frames: tuple[pl.DataFrame, pl.DataFrame] | None = None
        # read now, on the connection the index is built on (the matchers answer from any thread later)
        self._matcher = suggestions.card_matcher(con)
        self._token_matcher = suggestions.token_matcher(con)

    def known_classes(self) -> dict[str, tuple[str, ...]]:
        return self.classes

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
    def _targets(names: pl.DataFrame, column: str) -> tuple[dict[str, Target], pl.DataFrame]:
        """Best answer per lookup string: the lowest tier wins; several cards there is ambiguity.

        Vectorised: only the (few) ambiguous lookups are walked in Python.
        """
        best = names.filter(pl.col("tier") == pl.col("tier").min().over(column)).sort(
            [column, pl.col("face_index").is_not_null(), pl.col("face_index").fill_null(0), "via", "oracle_id", "lang"]
        )  # a total order: point.py's queries break ties alike
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
        # 200k names about 100 MB smaller (the warm library stays within 600 MB).
        oids, vias, langs = _shared(oids), _shared(vias), _shared(langs)
        targets: dict[str, Target] = dict(
            zip(lookups, map(Target._make, zip(repeat("ok"), oids, idxs, vias, langs, repeat(()))))
        )
        ambiguous = best.join(grouped.filter(pl.col("cards") > 1).select(column), on=column, how="semi")
        for (lookup,), rows in ambiguous.group_by(column, maintain_order=True):
            seen: dict[tuple[str, int | None], Via] = {}
            for oid, idx, via in rows.select("oracle_id", "face_index", "via").iter_rows():
                seen.setdefault((oid, idx), via)
            targets[lookup] = Target(
                "ambiguous", None, None, None, None, tuple((oid, idx, via) for (oid, idx), via in seen.items())
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

    def _answer(self, text: str, target: Target, normalized: bool) -> Resolution:
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
        if normalized and via in OWN_NAME_VIAS:
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
        return self._matcher

    def token_matcher(self) -> NameMatcher:
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
