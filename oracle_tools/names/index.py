"""The warm strategy of the one ``resolve``: every name of the ``names`` table in memory.

:class:`NameIndex` answers single names from two dicts (exact name, folded key -> one packed int) in microseconds and
columns of names from the same dicts (:meth:`NameIndex.resolve_many`); :class:`~oracle_tools.OracleDB` builds it
once many lookups come (the point queries of :mod:`oracle_tools.names.point` answer the first few, with the same
answers). On the database of every real file it adds ~130 MB to a process (``bench/bench_names.py``).

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")                         # doctest: +SKIP
>>> r = db.resolve("fire/ice")                                  # doctest: +SKIP
>>> (r.status, r.name, r.face, r.via)                           # doctest: +SKIP
('ok', 'Fire // Ice', None, 'normalized')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import groupby
from operator import itemgetter
from typing import TYPE_CHECKING

from oracle_tools.history.changes import former_notes
from oracle_tools.names import suggestions
from oracle_tools.names.face_notes import FaceNotes
from oracle_tools.names.kinds import OWN_NAME_VIAS, VIA_TIER, Via
from oracle_tools.names.resolver import (
    Candidate,
    NameResolver,
    Resolution,
)
from oracle_tools.store.lazy import LazyModule
from oracle_tools.text.matching import NameMatcher, normalize, spaced_keys

if TYPE_CHECKING:
    import duckdb
    import polars as pl

    from oracle_tools.names import build as _build
else:
    # Single lookups (dicts) need neither: Polars (~0.2 s of a fresh process's CPU) loads with the first batch
    # (resolve_many), and names.build (which imports DuckDB's Python layer and Polars) with its key expression
    pl, _build = LazyModule("polars"), LazyModule("oracle_tools.names.build")

# -- resolving ---------------------------------------------------------------------------------

# The rows of ``names`` in the order the ingest writes them (``names.build``): each key's rows together, and within
# them each name's. Read in that order, without a sort, each lookup string's answer is decided from its own few rows
# as they stream by, and DuckDB neither sorts nor holds the table for Python (a frame of it cost the index ~100 MB of
# RSS that stayed). A table in another order (written by other code) is read again and sorted here, in the order the
# reading checks (Python's; DuckDB's ORDER BY under a collation could differ).
_ROWS_SQL = "SELECT key, name, oracle_id, face_index, via, lang FROM names"
_ROWS_PER_FETCH = 10_000
# A batch of fewer distinct strings looks each up in the dicts (~1.5 us each); more are joined with frames of every
# lookup string's packed answer, made from the dicts on the first such batch (~0.1 s), then vectorised.
_JOINED_FROM = 50_000
_COLUMNS = ("query", "status", "oracle_id", "name", "face", "face_index", "via", "lang")  # of resolve_many

Row = tuple[str, str, str, int | None, Via, str | None]  # key, name, oracle_id, face_index, via, lang


def _hashed(strings: pl.Series) -> pl.Series:
    """A 64-bit hash of each string, the same for the same string in every batch (resolve_many places answers by it)."""
    return strings.hash(0x7AC1E)


class _Unsorted(Exception):
    """The rows of ``names`` came in another order than key, name."""


def _streamed(con: duckdb.DuckDBPyConnection, sql: str) -> Iterator[Row]:
    """The rows of ``sql``, fetched a few thousand at a time. On a cursor of its own: the query stays open while
    Python reads, and DuckDB's progress bar (printed to stdout once a query takes 2 s) is turned off there only."""
    cursor = con.cursor()
    try:
        cursor.execute("SET enable_progress_bar = false")
        cursor.execute(sql)
        while rows := cursor.fetchmany(_ROWS_PER_FETCH):
            yield from rows
    finally:
        cursor.close()


def _best(rows: list[Row]) -> list[Row]:
    """The lowest tier's rows (VIA_TIER; unknown kinds last) in a total order: whole card first, then by face, via,
    card, language (no language first). point.py's queries break ties alike."""
    if len(rows) == 1:
        return rows
    low = min(VIA_TIER.get(row[4], 9) for row in rows)
    best = [row for row in rows if VIA_TIER.get(row[4], 9) == low]
    best.sort(key=lambda r: (r[3] is not None, r[3] or 0, r[4], r[2], r[5] is not None, r[5] or ""))
    return best


class _Packing:
    """An answer (card, face_index, via, lang) packed in one integer in mixed radix, and unpacked.

    The two dicts of an index hold one value per lookup string (about 200k each on the real data): a small int,
    one object shared by every lookup with that answer, costs a few bytes where a tuple of the five fields cost
    about a hundred, and the answer is unpacked only for the lookup asked.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        vias, langs, last_face = con.execute(
            "SELECT list(DISTINCT via ORDER BY via), list(DISTINCT lang ORDER BY lang) FILTER (lang IS NOT NULL), "
            "max(face_index) FROM names"
        ).fetchall()[0]
        self.oracle_ids: list[str] = []  # card number -> its oracle_id (numbered as met)
        self._cards: dict[str, int] = {}
        self.vias: tuple[Via, ...] = tuple(vias or ())
        self.langs: tuple[str | None, ...] = (None, *(langs or ()))  # 0: no language
        self.faces = (last_face or 0) + 2  # 0: the whole card; i + 1: face i
        self._via_digit = {via: i for i, via in enumerate(self.vias)}
        self._lang_digit = {lang: i for i, lang in enumerate(self.langs)}
        self._via_radix, self._lang_radix = len(self.vias), len(self.langs)
        self._columns: tuple[pl.Series, ...] | None = None  # for unpack_column, made on the first batch

    def pack(self, oid: str, idx: int | None, via: Via, lang: str | None) -> int:
        card = self._cards.get(oid)
        if card is None:
            card = self._cards[oid] = len(self.oracle_ids)
            self.oracle_ids.append(oid)
        face = 0 if idx is None else idx + 1
        digits = (card * self.faces + face) * len(self.vias) + self._via_digit[via]
        return digits * len(self.langs) + self._lang_digit[lang]

    def unpack(self, code: int) -> tuple[str, int | None, Via, str | None]:
        """(oracle_id, face_index, via, lang) of a packed answer (on every single lookup: kept to a few steps)."""
        rest, lang = divmod(code, self._lang_radix)
        rest, via = divmod(rest, self._via_radix)
        card, face = divmod(rest, self.faces)
        return self.oracle_ids[card], (face - 1 if face else None), self.vias[via], self.langs[lang]

    def unpack_column(self, code: pl.Series, cards: dict[str, str], faces: dict[tuple[str, int], str]) -> pl.DataFrame:
        """The same, vectorised over a column of packed answers (>= 0), with the English card and face names
        (``cards``: oracle_id -> name, ``faces``: (oracle_id, face_index) -> name): oracle_id, name, face,
        face_index, via, lang. Each is a gather by position from a short column, no join."""
        if self._columns is None:
            oids = pl.Series(self.oracle_ids, dtype=pl.String)
            slots = [  # card number * faces + face digit -> the face's name
                faces.get((oid, face - 1)) if face else None for oid in self.oracle_ids for face in range(self.faces)
            ]
            self._columns = (
                oids,
                pl.Series([cards.get(oid) for oid in self.oracle_ids], dtype=pl.String),
                pl.Series(slots, dtype=pl.String),
                pl.Series(self.vias, dtype=pl.String),
                pl.Series(self.langs, dtype=pl.String),
            )
        oids, names, face_names, vias, langs = self._columns
        slot = code // (len(self.langs) * len(self.vias))  # card number * faces + face digit
        card, face = slot // self.faces, slot % self.faces
        return pl.DataFrame(
            {
                "oracle_id": oids.gather(card),
                "name": names.gather(card),
                "face": face_names.gather(slot),
                "face_index": face,
                "via": vias.gather(code // len(self.langs) % len(self.vias)),
                "lang": langs.gather(code % len(self.langs)),
            }
        ).with_columns(face_index=pl.when(pl.col("face_index") > 0).then(pl.col("face_index") - 1).cast(pl.Int32))


class NameIndex(NameResolver):
    """In-memory index over the ``names`` table: dict lookups for single names, joins for batches."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.cards = dict(con.execute("SELECT oracle_id, name FROM cards WHERE is_card").fetchall())
        self.face_names = {
            (oid, idx): name
            # faces.is_card is its card's (a join with cards cost ~4 MB of DuckDB's memory more)
            for oid, idx, name in con.execute("SELECT oracle_id, face_index, name FROM faces WHERE is_card").fetchall()
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
        self._face_notes = FaceNotes(con)  # meld results and back faces (CR 712.4b, 712.8a)
        self._packing = _Packing(con)
        # answer -1 - i: ambiguous between row i's cards, each (oracle_id, face_index, via of its first row)
        self._ambiguous: list[tuple[tuple[str, int | None, Via], ...]] = []
        self.exact: dict[str, int] = {}  # exact name -> its answer
        self.by_key: dict[str, int] = {}  # folded key (normalize) -> its answer
        try:
            self._read_lookups(_streamed(con, _ROWS_SQL))
        except _Unsorted:
            self.exact, self.by_key, self._ambiguous = {}, {}, []
            self._read_lookups(iter(sorted(_streamed(con, _ROWS_SQL), key=itemgetter(0, 1))))
        self._lookup_frames: tuple[pl.DataFrame, pl.DataFrame] | None = None  # for batches of many strings
        # read now, on the connection the index is built on (the matchers answer from any thread later)
        self._matcher = suggestions.card_matcher(con)
        self._token_matcher = suggestions.token_matcher(con)

    def _read_lookups(self, rows: Iterator[Row]) -> None:
        """Fill ``exact`` and ``by_key`` from the rows of ``names`` in key, name order."""
        shared: dict[int, int] = {}  # one int object per answer, for both dicts
        pack = self._packing.pack
        last_key: str | None = None
        for key, key_group in groupby(rows, itemgetter(0)):
            if last_key is not None and key <= last_key:
                raise _Unsorted
            last_key = key
            key_rows = list(key_group)
            if len(key_rows) == 1:  # most keys: one name of one card, its one answer under both lookups
                _, name, oid, idx, via, lang = key_rows[0]
                code = pack(oid, idx, via, lang)
                self.by_key[key] = self.exact[key if name == key else name] = shared.setdefault(code, code)
                continue
            self.by_key[key] = self._decided(key_rows, shared)
            last_name: str | None = None
            for name, name_rows in groupby(key_rows, itemgetter(1)):
                if last_name is not None and name <= last_name:
                    raise _Unsorted
                last_name = name
                # a name that is its own key (most names in Japanese, Chinese, Korean) is stored once for both
                self.exact[key if name == key else name] = self._decided(list(name_rows), shared)

    def _decided(self, rows: list[Row], shared: dict[int, int]) -> int:
        """The answer of a lookup string whose rows are ``rows``: the first best row, packed; ambiguous when the best
        rows are of several cards (-1 - its row in ``_ambiguous``: each card and face once, with its first via)."""
        best = _best(rows)
        if len({row[2] for row in best}) == 1:
            code = self._packing.pack(*best[0][2:])
            return shared.setdefault(code, code)
        seen: dict[tuple[str, int | None], Via] = {}
        for _, _, oid, idx, via, _ in best:
            seen.setdefault((oid, idx), via)
        self._ambiguous.append(tuple((oid, idx, via) for (oid, idx), via in seen.items()))
        return -len(self._ambiguous)

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

    # -- single -----------------------------------------------------------------------------

    def lookup(self, text: str) -> Resolution | None:
        answer = self.exact.get(text)
        normalized = False
        if answer is None:
            answer = self.by_key.get(normalize(text))
            normalized = True
            if answer is None:  # 'Jace,the Mind Sculptor'
                answer = self._second_answer(text)
        return None if answer is None else self._answer(text, answer, normalized)

    def _answer(self, text: str, answer: int, normalized: bool) -> Resolution:
        if answer < 0:
            candidates = tuple(
                Candidate(self.cards[c_oid], c_oid, self._face_name(c_oid, c_idx), c_via)
                for c_oid, c_idx, c_via in self._ambiguous[-1 - answer]
            )
            return Resolution(
                query=text,
                status="ambiguous",
                candidates=candidates,
                suggestions=tuple(dict.fromkeys(c.name for c in candidates)),
            )
        oid, idx, via, lang = self._packing.unpack(answer)
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

    def face_note(self, found: Resolution) -> str | None:
        return self._face_notes.note(found)

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

    def _unpacked(self, found: pl.DataFrame) -> pl.DataFrame:
        """The answer columns (:data:`_COLUMNS`) of ``found``: query, packed answer (null: not found), normalized."""
        answer = pl.col("answer")
        ok = found.filter(answer >= 0)
        ok = pl.concat(
            [ok, self._packing.unpack_column(ok.get_column("answer"), self.cards, self.face_names)], how="horizontal"
        ).with_columns(
            status=pl.lit("ok"),
            via=pl.when(pl.col("normalized") & pl.col("via").is_in(sorted(OWN_NAME_VIAS)))
            .then(pl.lit("normalized"))
            .otherwise(pl.col("via")),
        )
        others = found.filter(answer.is_null() | (answer < 0)).select(
            "query", status=pl.when(answer.is_null()).then(pl.lit("not_found")).otherwise(pl.lit("ambiguous"))
        )
        # one chunk: the join of a batch's every row with two chunks of gathered strings took twice as long
        return pl.concat([ok.select(_COLUMNS), others], how="diagonal_relaxed").select(_COLUMNS).rechunk()

    def _looked_up(self, unique: pl.Series) -> pl.DataFrame:
        """The answers of the distinct strings ``unique``, each looked up in the dicts (the misses' keys folded in
        one vectorised step); only their answers are unpacked."""
        queries = unique.to_list()
        exact = list(map(self.exact.get, queries))
        missed = [q for q, answer in zip(queries, exact) if answer is None]
        keys = pl.DataFrame({"query": missed}, schema={"query": pl.String}).select(_build.normalize_expr("query"))
        found = pl.DataFrame(
            {
                "query": [q for q, answer in zip(queries, exact) if answer is not None] + missed,
                "answer": [answer for answer in exact if answer is not None]
                + self._spaced_retried(missed, list(map(self.by_key.get, keys.get_column("query").to_list()))),
                "normalized": [False] * (len(queries) - len(missed)) + [True] * len(missed),
            },
            schema={"query": pl.String, "answer": pl.Int64, "normalized": pl.Boolean},
        )
        return self._unpacked(found)

    def _joined(self, unique: pl.Series) -> pl.DataFrame:
        """The same for many strings: two joins with frames of every lookup string's packed answer, made from the
        dicts on the first such batch and kept (~30 MB: a process that resolves one such batch often resolves
        more); only the batch's answers are unpacked."""
        if self._lookup_frames is None:
            exact_answers, key_answers = (
                pl.DataFrame(
                    {column: list(lookups), "answer": list(lookups.values())},
                    schema={column: pl.String, "answer": pl.Int64},
                )
                for column, lookups in (("query", self.exact), ("key", self.by_key))
            )
            self._lookup_frames = (exact_answers, key_answers)
        exact, by_key = self._lookup_frames
        queries = unique.to_frame("query")
        hit = queries.join(exact, on="query", how="inner").with_columns(normalized=pl.lit(False))
        missed = queries.join(exact, on="query", how="anti").with_columns(key=_build.normalize_expr("query"))
        by_norm = missed.join(by_key, on="key", how="left").select("query", "answer", normalized=pl.lit(True))
        unanswered = by_norm.filter(pl.col("answer").is_null()).get_column("query").to_list()
        retried = pl.DataFrame(
            {"query": unanswered, "answer": self._spaced_retried(unanswered, [None] * len(unanswered))},
            schema={"query": pl.String, "answer": pl.Int64},
        )
        by_norm = by_norm.update(retried, on="query", how="left")
        return self._unpacked(pl.concat([hit, by_norm]))

    def _spaced_retried(self, queries: list[str | None], answers: list[int | None]) -> list[int | None]:
        """``answers`` with each miss read again as :meth:`lookup` reads it (:meth:`_second_answer`)."""
        return [
            self._second_answer(query) if answer is None and query is not None else answer  # a null stays one
            for query, answer in zip(queries, answers)
        ]

    def _second_answer(self, text: str) -> int | None:
        """The answer of a text whose key is no name's: that of the first of its :func:`spaced_keys` that is a name's
        key ('Jace,the Mind Sculptor')."""
        for spaced in spaced_keys(text):
            answer = self.by_key.get(spaced)
            if answer is not None:
                return answer
        return None

    def resolve_many(self, texts: Iterable[str] | pl.Series) -> pl.DataFrame:
        """Resolve a whole column (exact name, then the folded key), keeping input order.

        Returns columns query, status, oracle_id, name, face, face_index, via, lang (no fuzzy matching here:
        misses are ``not_found``; call :meth:`resolve` on them for suggestions). A batch of fewer than
        ``_JOINED_FROM`` distinct strings is looked up in the dicts single lookups use, no 200k-row frame made.
        """
        series = texts if isinstance(texts, pl.Series) else pl.Series("query", list(texts), dtype=pl.String)
        column = series.alias("query").cast(pl.String)
        frame = column.to_frame()
        # The column's strings are hashed once, and its distinct strings found and each row's answer placed by their
        # 64-bit hashes: hashing the strings twice (a unique, then a join of every row on the strings) was most of
        # a batch's time. Two strings of one hash would share an answer: each row's answer is checked to be its own
        # string's, and the batch resolved by the strings themselves if one is not.
        hashes = _hashed(column)
        answers = self._answers(column.gather(hashes.arg_unique()))
        answers = answers.filter(pl.col("query").is_not_null())  # a null is no name: its row stays null, as a join's
        keyed = _hashed(answers.get_column("query")).to_frame("hash").with_row_index("row")
        rows = hashes.to_frame("hash").join(keyed, on="hash", how="left", maintain_order="left").get_column("row")
        placed = answers[rows]
        if placed.get_column("query").eq_missing(column).all():
            return pl.concat([frame, placed.drop("query")], how="horizontal")
        return frame.join(self._answers(column.unique()), on="query", how="left", maintain_order="left")

    def _answers(self, unique: pl.Series) -> pl.DataFrame:
        """The answer rows (:data:`_COLUMNS`) of the distinct strings ``unique``, in no particular order."""
        return self._looked_up(unique) if len(unique) < _JOINED_FROM else self._joined(unique)
