"""The point-query strategy of the one ``resolve``: names answered by SQL, for a fresh process.

A fresh process that looks up one name (``oracle-tools resolve NAME``, ``token``, ``choose-name``, ``deck check``
of one list) should not load 200k names into Python first. :class:`PointNames` answers with one query on the
``names`` table (exact name or folded ``key``: the keys are persisted at ingest) joined to ``cards``/``faces``, and
reads 201.3 classes from ``name_classes`` the same way. It imports neither Polars nor rapidfuzz: those load only
for a miss. The answers are :class:`~oracle_tools.names.index.NameIndex`'s, field for field
(``tests/test_lookup.py`` checks every name of the sample and a real-data sample).
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from oracle_tools.names.kinds import OWN_NAME_VIAS, VIA_TIER, Via
from oracle_tools.names.resolver import (
    Candidate,
    NameResolver,
    Resolution,
)
from oracle_tools.text.matching import normalize, spaced_keys

if TYPE_CHECKING:
    import duckdb

    from oracle_tools.text.matching import NameMatcher

# -- point queries --------------------------------------------------------------------------------

# Every ``names`` row with one of the keys (index ``names_key``): an exact name match has the key of the
# name, so the rows of both lookups come in one probe. The rows are put in the table's order (key, name, oracle_id,
# face_index NULLS FIRST, via, lang) here, which is the order the full index breaks ties in (:func:`_table_order`):
# a sort in the query costs a fresh process's peak ~2 MB of DuckDB's sort code and buffers.
_MATCH_SQL = "SELECT name, key, oracle_id, face_index, via, lang FROM names WHERE key IN $keys"
# English card and face names of the matched cards, as NameIndex.cards / face_names. The cards by their primary key
# alone (``is_card`` is read, not filtered: DuckDB probes the key's index only when the key is the whole filter).
_CARDS_SQL = "SELECT oracle_id, name, is_card FROM cards WHERE oracle_id IN $oids"
_FACES_SQL = "SELECT oracle_id, face_index, name FROM faces WHERE oracle_id IN $oids AND is_card"

# The 201.3 classes: every (class_id, name) of the small ``name_classes`` table (a few hundred rows), read once and
# grouped here; a self-join with a GROUP BY per lookup cost a fresh process's peak more than the table.
_CLASSES_SQL = "SELECT class_id, name FROM name_classes WHERE name IS NOT NULL AND class_id IS NOT NULL"


def _table_order(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """The sort key of a ``names`` row in the table's order: key, name, oracle_id, via, lang (NULLs last, as DuckDB's
    ORDER BY puts them), with face_index NULLS FIRST."""
    name, key, oracle_id, face_index, via, lang = row[:6]
    return (
        *((v is None, v) for v in (key, name, oracle_id)),
        (face_index is not None, face_index),
        *((v is None, v) for v in (via, lang)),
    )


class NameRow(NamedTuple):
    """One ``names`` row a lookup matched, with the English names of its card and face."""

    name: str
    key: str
    oracle_id: str
    face_index: int | None
    via: Via
    lang: str
    card_name: str
    face_name: str | None


#: How many strings' answers a point strategy keeps (a server resolves unbounded distinct strings): the oldest go
#: first, and a string asked again is looked up again.
ANSWERS_KEPT = 4096

Answer = tuple[str, Any]  # ("exact" | "key", its rows) or ("miss", None)


class PointLookups(NameResolver):
    """The single-name half of :class:`~oracle_tools.names.index.NameIndex`, answered by point lookups on stored
    rows: every decision of a lookup (which rows answer, in which order, the 201.3 classes) is made here once, over
    a row source its subclass supplies — :class:`PointNames` (SQL on the database) or
    :class:`~oracle_tools.names.stored.StoredNames` (the names file ingest writes beside it).

    Same methods and answers as the index for ``resolve``, ``interchangeable``, ``class_id``,
    ``suggest``, ``suggest_tokens`` and ``is_token_name``; :meth:`prefetch` answers a whole
    decklist in one query. The last :data:`ANSWERS_KEPT` strings' answers are kept.
    """

    def __init__(self) -> None:
        self._answers: dict[str, Answer] = {}
        self._answers_lock = threading.Lock()
        self._classes: dict[str, tuple[tuple[str, ...], str | None]] = {}
        self._class_ids: dict[str, set[str]] | None = None  # name -> the ids of the classes it belongs to
        self._class_names: dict[str, set[str]] = {}  # class id -> its names
        self._matcher: NameMatcher | None = None
        self._token_matcher: NameMatcher | None = None

    # -- the row source -----------------------------------------------------------------------

    @abstractmethod
    def _rows(self, keys: list[str]) -> list[NameRow]:
        """Every ``names`` row with one of ``keys`` (sorted), with its card's and face's English names."""

    @abstractmethod
    def _class_pairs(self) -> list[tuple[str, str]]:
        """Every (class_id, name) of ``name_classes`` (both set)."""

    @abstractmethod
    def _card_matcher(self) -> NameMatcher: ...

    @abstractmethod
    def _made_token_matcher(self) -> NameMatcher: ...

    # -- resolving --------------------------------------------------------------------------

    def prefetch(self, texts: Iterable[str]) -> None:
        """Look up many strings in one query (a decklist); later :meth:`resolve` calls hit the cache."""
        self._fetch([t for t in dict.fromkeys(texts) if t not in self._answers])

    def _fetch(self, wanted: list[str]) -> dict[str, Answer]:
        """The answers of ``wanted`` from one read of the rows, kept."""
        if not wanted:
            return {}
        keys = {t: normalize(t) for t in wanted}
        # the key a miss is read with again ('Jace,the Mind Sculptor'), asked in the same query
        spaced = {t: s for t in wanted if (s := spaced_keys(t))}
        asked = {*keys.values(), *(k for ks in spaced.values() for k in ks)}
        by_name: dict[str, list[NameRow]] = {}
        by_key: dict[str, list[NameRow]] = {}
        for row in sorted(self._rows(sorted(asked)), key=_table_order):
            by_name.setdefault(row.name, []).append(row)
            by_key.setdefault(row.key, []).append(row)
        english: set[str] = set()
        found: dict[str, Answer] = {}
        for text in wanted:
            exact = by_name.get(text)
            if exact:
                found[text] = ("exact", exact)
            elif keys[text] in by_key:
                found[text] = ("key", by_key[keys[text]])
            elif hit := next((k for k in spaced.get(text, ()) if k in by_key), None):
                found[text] = ("key", by_key[hit])
            else:
                found[text] = ("miss", None)
                continue
            best = _best(found[text][1])
            if best is not None:
                english.add(best.face_name or best.card_name)
        self._load_classes(english)
        with self._answers_lock:
            for text in found:  # asked again: kept as the newest
                self._answers.pop(text, None)
            self._answers.update(found)
            # the oldest go first, never this fetch's own: a prefetch of more strings than are kept (a batch) would
            # lose its answers before they are read, and every string would be looked up again one by one
            while len(self._answers) > max(ANSWERS_KEPT, len(found)):
                del self._answers[next(iter(self._answers))]
        return found

    def lookup(self, text: str) -> Resolution | None:
        answer = self._answers.get(text)
        if answer is None:
            answer = self._fetch([text])[text]
        how, rows = answer
        return None if how == "miss" else self._answer(text, rows, normalized=how == "key")

    def _answer(self, text: str, rows: list[NameRow], normalized: bool) -> Resolution:
        best = _best(rows)
        if best is None:
            seen: dict[tuple[str, int | None], tuple[str, str | None, Via]] = {}
            for row in _ordered(rows):
                seen.setdefault((row.oracle_id, row.face_index), (row.card_name, row.face_name, row.via))
            candidates = tuple(Candidate(card, oid, face, via) for (oid, _), (card, face, via) in seen.items())
            return Resolution(
                query=text,
                status="ambiguous",
                candidates=candidates,
                suggestions=tuple(dict.fromkeys(c.name for c in candidates)),
            )
        via = "normalized" if normalized and best.via in OWN_NAME_VIAS else best.via
        return Resolution(
            query=text,
            status="ok",
            name=best.card_name,
            face=best.face_name,
            face_index=best.face_index,
            oracle_id=best.oracle_id,
            via=via,
            lang=best.lang,
            names=self.interchangeable(best.face_name or best.card_name),
        )

    # -- classes (CR 201.3) -------------------------------------------------------------------

    def _load_classes(self, names: Iterable[str]) -> None:
        wanted = [n for n in names if n and n not in self._classes]
        if not wanted:
            return
        if self._class_ids is None:
            class_ids: dict[str, set[str]] = {}
            class_names: dict[str, set[str]] = {}
            for class_id, name in self._class_pairs():
                class_ids.setdefault(name, set()).add(class_id)
                class_names.setdefault(class_id, set()).add(name)
            self._class_names, self._class_ids = class_names, class_ids  # whole before seen (threads)
        for name in wanted:
            ids = self._class_ids.get(name)
            if ids:
                members = sorted({member for class_id in ids for member in self._class_names[class_id]})
                self._classes[name] = (tuple(members), min(ids))
            self._classes.setdefault(name, ((name,), None))

    def interchangeable(self, name: str) -> tuple[str, ...]:
        """Every name that is the same name as ``name`` under CR 201.3a/b, itself included (sorted)."""
        self._load_classes([name])
        return self._classes[name][0]

    def class_id(self, name: str) -> str | None:
        """The ``name_classes.class_id`` of ``name``, None when it has no interchangeable names."""
        self._load_classes([name])
        return self._classes[name][1]

    # -- misses: fuzzy suggestions and token names (rapidfuzz loads only here) -------------------

    def matcher(self) -> NameMatcher:
        if self._matcher is None:
            self._matcher = self._card_matcher()
        return self._matcher

    def token_matcher(self) -> NameMatcher:
        if self._token_matcher is None:
            self._token_matcher = self._made_token_matcher()
        return self._token_matcher


class PointNames(PointLookups):
    """:class:`PointLookups` over SQL point queries on the database: one query on the ``names`` table (exact name or
    folded ``key``: the keys are persisted at ingest) joined to ``cards``/``faces``."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        super().__init__()
        self.con = con
        self._token_objects: set[str] | None = None
        self._noted_cards: set[str] | None = None  # the cards that have a meld result or a back face
        self._notes: dict[str, Any] = {}  # oracle_id -> its FaceNotes

    def _rows(self, keys: list[str]) -> list[NameRow]:
        matched = self.con.execute(_MATCH_SQL, {"keys": keys}).fetchall()
        oids = sorted({oid for _, _, oid, *_ in matched})
        cards = (
            {oid: name for oid, name, is_card in self.con.execute(_CARDS_SQL, {"oids": oids}).fetchall() if is_card}
            if oids
            else {}
        )
        face_oids = sorted({oid for _, _, oid, idx, *_ in matched if idx is not None})  # most names are no face's
        faces = (
            {(oid, idx): name for oid, idx, name in self.con.execute(_FACES_SQL, {"oids": face_oids}).fetchall()}
            if face_oids
            else {}
        )
        return [
            NameRow(name, key, oid, idx, via, lang, cards[oid], faces.get((oid, idx)) if idx is not None else None)
            for name, key, oid, idx, via, lang in matched
        ]

    def _class_pairs(self) -> list[tuple[str, str]]:
        return self.con.execute(_CLASSES_SQL).fetchall()

    def face_note(self, found: Resolution) -> str | None:
        from oracle_tools.names.face_notes import FaceNotes, noted_cards

        oid = found.oracle_id
        if not oid:
            return None
        if self._noted_cards is None:
            # one scan of the faces' roles, not one query per name (a deck's names each asked about their faces
            # cost it ~2 ms a name): most cards have no face a note is about
            self._noted_cards = noted_cards(self.con)
        if oid not in self._noted_cards:
            return None
        if oid not in self._notes:
            self._notes[oid] = FaceNotes(self.con, oid)
        return self._notes[oid].note(found)

    def former_note(self, oracle_id: str | None) -> str | None:
        from oracle_tools.history.changes import former_notes

        return former_notes(self.con, [oracle_id]).get(oracle_id) if oracle_id else None

    def _card_matcher(self) -> NameMatcher:
        from oracle_tools.names import suggestions

        return suggestions.card_matcher(self.con)

    def _made_token_matcher(self) -> NameMatcher:
        from oracle_tools.names import suggestions

        return suggestions.token_matcher(self.con)

    def _token_object_keys(self) -> set[str]:
        if self._token_objects is None:
            names = self.con.execute("SELECT DISTINCT name FROM token_names").fetchall()
            self._token_objects = {normalize(n) for (n,) in names}
        return self._token_objects

    def is_token_name(self, text: str) -> bool:
        return normalize(text) in self._token_object_keys()


def _ordered(rows: list[NameRow]) -> list[NameRow]:
    """The lowest tier's rows in the full index's order: whole card first, then by face, via, card, language."""
    tiers = [VIA_TIER.get(row.via, 9) for row in rows]
    low = min(tiers)
    best = [row for row, tier in zip(rows, tiers) if tier == low]
    # NameIndex's order of targets
    best.sort(key=lambda r: (r.face_index is not None, r.face_index or 0, r.via, r.oracle_id, r.lang))
    return best


def _best(rows: list[NameRow]) -> NameRow | None:
    """The one answer, or None when the lowest tier names several cards (ambiguous)."""
    best = _ordered(rows)
    return best[0] if len({row.oracle_id for row in best}) == 1 else None
