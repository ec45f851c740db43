"""The one ``resolve`` (CR 201), and its point-query strategy for a fresh process.

:class:`NameResolver` makes every decision about a string once — exact name, then its folded key
(:func:`~oracle_tools.matching.normalize`), then with ``fuzzy`` Scryfall's word rule and a clear spelling
correction (:class:`~oracle_tools.matching.NameMatcher`), then "did you mean" — over lookups two strategies
provide with the same answers: :class:`PointNames` here, and the in-memory
:class:`~oracle_tools.names.NameIndex`.

A fresh process that looks up one name (``oracle-tools resolve NAME``, ``token``, ``choose-name``,
``deck check`` of one list) should not load 200k names into Python first. :class:`PointNames` answers with
one query on the ``names`` table (exact name or folded ``key``: the keys are persisted at ingest) joined to
``cards``/``faces``, and reads 201.3 classes from ``name_classes`` the same way. It imports neither Polars
nor rapidfuzz: those load only for a miss. The answers are the full index's, field for field
(``tests/test_lookup.py`` checks every name of the sample and a real-data sample); :class:`OracleDB` uses
this path until a batch call or many single calls build the full index (then the warm path takes over).

:func:`point_chooser` and :func:`point_deck_checker` give ``choose-name`` and ``deck check`` the
same treatment: they fetch the faces, rules and legalities of only the cards asked about.

``Candidate`` and ``Resolution`` (the answer types) and ``VIA_TIER`` live here, Polars-free, and
``oracle_tools.names`` imports them (``names.normalize_expr`` is the key's vectorised Polars form, tested equal).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from .matching import normalize

if TYPE_CHECKING:
    import duckdb

    from .choose import NameChooser
    from .decklist import Decklist
    from .decks import DeckChecker, DeckReport, FormatRules
    from .matching import NameMatcher
    from .names import NameIndex

# -- the name rules, light ------------------------------------------------------------------------

# How much a kind of name counts when one string matches several cards: English Oracle
# names (whole or face) first, then English interchangeable (201.3) and flavor (201.6) names, then
# foreign printed names, then a renamed card's former names (no longer a name of it: only when nothing
# current matches). ('alternate' is what databases built before issue 11 called English printed names;
# kept so they still load.)
VIA_TIER = {"name": 0, "face": 0, "flavor": 1, "alternate": 1, "interchangeable": 1, "printed": 2, "former": 3}

# The English names a miss is compared with for "did you mean" (fuzzy suggestions): Oracle names (whole
# or face), interchangeable names (CR 201.3: names of the card in their own right, "Ruzic, Booed but
# Victorious") and alternate names (201.6: printed on the card, "Aang, Ascendant Airbender"), since a
# decklist or a user may write any of them. Foreign printed names stay out (201.2: a translation).
SUGGESTED_VIAS = ("name", "face", "interchangeable", "flavor")
# Those names, one per lookup key (the name shown for it: the greatest, as NameIndex keeps the last in name
# order). Ingest stores the rows as table ``name_suggestions`` (names.build); a database built before that
# table gets them from this query itself (PointNames.suggest).
SUGGESTION_NAMES_SQL = "SELECT key, max(name) AS name FROM names WHERE list_contains(?, via) GROUP BY key ORDER BY key"


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
    note: str | None = None  # via "former": the card's names and when it was renamed (oracle_tools/changes.py)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def english_name(self) -> str | None:
        """The English name that matched: the face's name when a face matched, else the card's."""
        return self.face or self.name

    def miss_message(self) -> str:
        """One line for a string that names no one card: what it could be, or the names it is close to."""
        if self.status == "ambiguous":
            return f"{self.query!r} is ambiguous: " + "; ".join(
                c.name + (f" (face {c.face})" if c.face else "") + f" [{c.via}]" for c in self.candidates
            )
        close = (
            f" Did you mean: {', '.join(self.suggestions)}?" if self.suggestions else " No card name is close to it."
        )
        tokens = (
            f" Token names (not cards; see `oracle-tools token NAME`): {', '.join(self.tokens)}." if self.tokens else ""
        )
        return f"{self.query!r} is not a card name.{close}{tokens}"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["names"] = list(self.names)
        data["candidates"] = [asdict(c) for c in self.candidates]
        data["suggestions"] = list(self.suggestions)
        data["tokens"] = list(self.tokens)
        return data


#: The longest string taken as a name (the longest real card name has 141 characters): longer is bad input
#: (the CLI's exit 2, the server's 400), never a miss whose suggestions would repeat it.
MAX_NAME_CHARS = 1000


# -- one resolve ----------------------------------------------------------------------------------

# How many of the names a fuzzy string matched are looked up to tell whether they are one card: more
# names than this are several cards in practice ('jace' matches about 40) and answered as ambiguous.
FUZZY_LOOKUPS = 48


class NameResolver:
    """What a string names: the one ``resolve`` behind every interface.

    Two strategies implement the lookups it is made of — :class:`PointNames` (SQL point queries, for a
    fresh process) and :class:`~oracle_tools.names.NameIndex` (everything in memory, for many calls) —
    and give the same answers; the decisions (exact name, then the folded key, then with ``fuzzy``
    Scryfall's word rule and a clear spelling correction, then "did you mean") are made here once,
    with :class:`~oracle_tools.matching.NameMatcher`.
    """

    def prefetch(self, texts: Iterable[str]) -> None:
        """Look many strings up at once (a decklist); a no-op where everything is in memory."""

    def lookup(self, text: str) -> Resolution | None:
        """The exact name, else the folded key (:func:`normalize`): ok or ambiguous; None when neither."""
        raise NotImplementedError

    def matcher(self) -> NameMatcher:
        """The word and spelling matcher over the English card names (``SUGGESTED_VIAS``)."""
        raise NotImplementedError

    def token_matcher(self) -> NameMatcher:
        """The same over token names (CR 111: never cards, 201.4), for token misses."""
        raise NotImplementedError

    def resolve(self, text: str, *, fuzzy: bool = False, suggest: int = 5) -> Resolution:
        """Resolve one string: exact name, then its folded key, then (only with ``fuzzy``) the card its words
        match (Scryfall's fuzzy rule; several cards are ``ambiguous``, never a guess); else ``not_found``
        with suggestions (cards) and close token names."""
        found = self.lookup(text)
        if found is not None:
            # a former name answers the card, saying so: never silently as its current name
            return _replace(found, note=self.former_note(found.oracle_id)) if found.via == "former" else found
        if fuzzy and (answer := self._fuzzy(text)) is not None:
            return answer
        return Resolution(
            query=text,
            status="not_found",
            suggestions=tuple(self.suggest(text, limit=suggest)),
            tokens=tuple(self.suggest_tokens(text, limit=suggest)),
        )

    def _fuzzy(self, text: str) -> Resolution | None:
        """Scryfall's fuzzy rule (``matching``): the one card the typed words decide, else ambiguous
        between the cards they may mean; None when they mean no card, or one only by a bare prefix (a
        ``not_found`` that suggests it: 'aust' is no name, Austere Command is offered)."""
        match = self.matcher().match(text)
        if not match.decisive:  # a bare prefix ('aust', 'i'): ambiguous between several cards, else a miss
            several = self._one_card(text, match.names) if match.names else None
            return several if several is not None and several.status == "ambiguous" else None
        answer = self._one_card(text, match.decisive)
        if not answer.ok and match.complete:  # 'wastelan': Wasteland, of the Wasteland cards
            complete = self._one_card(text, match.complete)
            answer = complete if complete.ok else answer
        return _replace(answer, via="fuzzy", suggestions=match.names[:5]) if answer.ok else answer

    def _one_card(self, text: str, names: Sequence[str]) -> Resolution:
        """The one card ``names`` are names of, else ambiguous between their cards."""
        looked = list(names[:FUZZY_LOOKUPS])
        self.prefetch(looked)
        answers = [r for name in looked if (r := self.lookup(name)) is not None]
        cards: dict[str, Candidate] = {}
        for r in answers:
            if r.ok and r.oracle_id:
                cards.setdefault(r.oracle_id, Candidate(r.name or "", r.oracle_id, r.face, r.via or "name"))
            for c in r.candidates:
                cards.setdefault(c.oracle_id, c)
        if len(cards) == 1 and len(names) <= FUZZY_LOOKUPS:
            return _replace(answers[0], query=text)
        candidates = tuple(cards.values())
        return Resolution(
            query=text,
            status="ambiguous",
            candidates=candidates,
            suggestions=tuple(dict.fromkeys(c.name for c in candidates)),
        )

    def former_note(self, oracle_id: str | None) -> str | None:
        """The note a renamed card's former name resolves with (its names, when it was renamed)."""
        raise NotImplementedError

    def suggest(self, text: str, limit: int = 5) -> list[str]:
        """Did you mean: English names whose words the input's words start (a legendary card's short name,
        CR 201.5c, lists the cards it shortens), then close spellings."""
        return self.matcher().suggest(text, limit)

    def suggest_tokens(self, text: str, limit: int = 5) -> list[str]:
        """The closest token names (predefined, named by effects, Scryfall token objects) — never cards."""
        return self.token_matcher().suggest(text, limit)


# -- point queries --------------------------------------------------------------------------------

# Every ``names`` row with one of the keys (index ``names_key``): an exact name match has the key of the
# name, so the rows of both lookups come in one probe. The row order is the table's (key, name, oracle_id,
# face_index NULLS FIRST, via, lang), which is the order the full index breaks ties in.
_MATCH_SQL = """
SELECT name, key, oracle_id, face_index, via, lang FROM names WHERE key IN $keys
ORDER BY key, name, oracle_id, face_index NULLS FIRST, via, lang
"""
# English card and face names of the matched cards (primary-key probes), as NameIndex.cards / face_names.
_CARDS_SQL = "SELECT oracle_id, name FROM cards WHERE oracle_id IN $oids AND is_card"
_FACES_SQL = "SELECT oracle_id, face_index, name FROM faces WHERE oracle_id IN $oids AND is_card"

# The 201.3 class of each given name: every name of every class it belongs to (sorted), and the
# first class_id (the key deck checks count copies by, 201.3b).
_CLASS_SQL = """
SELECT m.name, list(DISTINCT o.name ORDER BY o.name), min(m.class_id)
FROM name_classes m JOIN name_classes o ON o.class_id = m.class_id AND o.name IS NOT NULL
WHERE m.name IN $names
GROUP BY m.name
"""

_Row = tuple[Any, ...]  # (name, key, oracle_id, face_index, via, lang, card_name, face_name)


class PointNames(NameResolver):
    """The single-name half of :class:`~oracle_tools.names.NameIndex`, answered by point queries.

    Same methods and answers as the index for ``resolve``, ``interchangeable``, ``class_id``,
    ``suggest``, ``suggest_tokens`` and ``is_token_name``; :meth:`prefetch` answers a whole
    decklist in one query. Answers are cached per instance.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self._answers: dict[str, tuple[str, Any]] = {}  # text -> ("exact" | "key", rows) or ("miss", None)
        self._classes: dict[str, tuple[tuple[str, ...], str | None]] = {}
        self._matcher: NameMatcher | None = None
        self._token_matcher: NameMatcher | None = None
        self._token_objects: set[str] | None = None

    # -- resolving --------------------------------------------------------------------------

    def prefetch(self, texts: Iterable[str]) -> None:
        """Look up many strings in one query (a decklist); later :meth:`resolve` calls hit the cache."""
        wanted = [t for t in dict.fromkeys(texts) if t not in self._answers]
        if not wanted:
            return
        keys = {t: normalize(t) for t in wanted}
        matched = self.con.execute(_MATCH_SQL, {"keys": sorted(set(keys.values()))}).fetchall()
        oids = sorted({row[2] for row in matched})
        cards = dict(self.con.execute(_CARDS_SQL, {"oids": oids}).fetchall()) if oids else {}
        faces = (
            {(oid, idx): name for oid, idx, name in self.con.execute(_FACES_SQL, {"oids": oids}).fetchall()}
            if oids
            else {}
        )
        by_name: dict[str, list[_Row]] = {}
        by_key: dict[str, list[_Row]] = {}
        for row in matched:
            full = (*row, cards.get(row[2]), faces.get((row[2], row[3])) if row[3] is not None else None)
            by_name.setdefault(row[0], []).append(full)
            by_key.setdefault(row[1], []).append(full)
        english: set[str] = set()
        for text in wanted:
            exact = by_name.get(text)
            if exact:
                self._answers[text] = ("exact", exact)
            elif keys[text] in by_key:
                self._answers[text] = ("key", by_key[keys[text]])
            else:
                self._answers[text] = ("miss", None)
                continue
            best = _best(self._answers[text][1])
            if best is not None:
                english.add(best[7] or best[6])
        self._load_classes(english)

    def lookup(self, text: str) -> Resolution | None:
        self.prefetch([text])
        how, rows = self._answers[text]
        return None if how == "miss" else self._answer(text, rows, normalized=how == "key")

    def _answer(self, text: str, rows: list[_Row], normalized: bool) -> Resolution:
        best = _best(rows)
        if best is None:
            seen: dict[tuple[str, int | None], tuple[str, str | None, str]] = {}
            for row in _ordered(rows):
                seen.setdefault((row[2], row[3]), (row[6], row[7], row[4]))
            candidates = tuple(Candidate(card, oid, face, via) for (oid, _), (card, face, via) in seen.items())
            return Resolution(
                query=text,
                status="ambiguous",
                candidates=candidates,
                suggestions=tuple(dict.fromkeys(c.name for c in candidates)),
            )
        _, _, oid, idx, via, lang, card, face = best
        if normalized and via in ("name", "face"):
            via = "normalized"
        english = face or card
        return Resolution(
            query=text,
            status="ok",
            name=card,
            face=face,
            face_index=idx,
            oracle_id=oid,
            via=via,
            lang=lang,
            names=self.interchangeable(english),
        )

    def former_note(self, oracle_id: str | None) -> str | None:
        from .changes import former_notes

        return former_notes(self.con, [oracle_id]).get(oracle_id) if oracle_id else None

    # -- classes (CR 201.3) -------------------------------------------------------------------

    def _load_classes(self, names: Iterable[str]) -> None:
        wanted = [n for n in names if n and n not in self._classes]
        if not wanted:
            return
        for name, members, class_id in self.con.execute(_CLASS_SQL, {"names": wanted}).fetchall():
            self._classes[name] = (tuple(members), class_id)
        for name in wanted:
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
            from . import sqlfiles
            from .matching import NameMatcher

            if sqlfiles.has_table(self.con, "name_suggestions"):
                rows = self.con.execute("SELECT key, name FROM name_suggestions ORDER BY key").fetchall()
            else:  # a database built before the table existed: the same rows, grouped here
                rows = self.con.execute(SUGGESTION_NAMES_SQL, [list(SUGGESTED_VIAS)]).fetchall()
            self._matcher = NameMatcher([k for k, _ in rows], [n for _, n in rows])
        return self._matcher

    def token_matcher(self) -> NameMatcher:
        if self._token_matcher is None:
            from . import sqlfiles
            from .matching import TOKEN_SPELLING_CUTOFF, NameMatcher

            if sqlfiles.has_table(self.con, "token_suggestions"):
                rows = self.con.execute("SELECT key, name FROM token_suggestions ORDER BY name").fetchall()
            else:  # a database built before the table existed: list them as the tokens layer does
                from .tokens import token_name_strings

                rows = [(normalize(n), n) for n in token_name_strings(self.con)]
            keys, names = [k for k, _ in rows], [n for _, n in rows]
            self._token_matcher = NameMatcher(keys, names, spelling_cutoff=TOKEN_SPELLING_CUTOFF)
        return self._token_matcher

    def _token_object_keys(self) -> set[str]:
        if self._token_objects is None:
            names = self.con.execute("SELECT DISTINCT name FROM token_names").fetchall()
            self._token_objects = {normalize(n) for (n,) in names}
        return self._token_objects

    def is_token_name(self, text: str) -> bool:
        key = normalize(text)
        return (
            bool(self.con.execute("SELECT 1 FROM token_names WHERE name = ? LIMIT 1", [text]).fetchall())
            or key in self._token_object_keys()
        )


def _ordered(rows: list[_Row]) -> list[_Row]:
    """The lowest tier's rows in the full index's order: whole card first, then by face, via, card, language."""
    tiers = [VIA_TIER.get(row[4], 9) for row in rows]
    low = min(tiers)
    best = [row for row, tier in zip(rows, tiers) if tier == low]
    best.sort(key=lambda r: (r[3] is not None, r[3] or 0, r[4], r[2], r[5]))  # NameIndex._targets' order
    return best


def _best(rows: list[_Row]) -> _Row | None:
    """The one answer, or None when the lowest tier names several cards (ambiguous)."""
    best = _ordered(rows)
    return best[0] if len({row[2] for row in best}) == 1 else None


def _replace(resolution: Resolution, **changes: Any) -> Resolution:
    return Resolution(**{**resolution.__dict__, **changes})


# -- choose a card name (CR 201.4) for one name ------------------------------------------------------


def point_chooser(con: duckdb.DuckDBPyConnection, names: PointNames | NameIndex, text: str) -> NameChooser:
    """A :class:`~oracle_tools.choose.NameChooser` holding only the faces ``text`` can be judged by:
    the faces of the card(s) it resolves to and of every card sharing one of their names (201.4a)."""
    from .choose import _FACES_SQL, NameChooser

    r = names.resolve(text)
    oids = sorted({r.oracle_id} if r.oracle_id else {c.oracle_id for c in r.candidates})
    own = (
        [
            n
            for (n,) in con.execute(
                "SELECT DISTINCT name FROM faces WHERE oracle_id IN $oids", {"oids": oids}
            ).fetchall()
        ]
        if oids
        else []
    )
    query = f"SELECT * FROM ({_FACES_SQL}\n) WHERE name IN $names ORDER BY name, oracle_id, face_index"
    cursor = con.execute(query, {"names": own})
    columns = [d[0] for d in cursor.description]
    rows = [dict(zip(columns, values)) for values in cursor.fetchall()]
    return NameChooser.from_rows(con, names, rows, text)  # type: ignore[arg-type]  # NameIndex's single-name methods


# -- deck check of one list ----------------------------------------------------------------------------


def point_deck_checker(con: duckdb.DuckDBPyConnection, names: PointNames | NameIndex) -> DeckChecker:
    """A :class:`~oracle_tools.decks.DeckChecker` that loads the rules and legalities of the cards of the
    decks it checks only (one query each per deck), not those of the whole card pool."""
    return _point_checker_class()(con, names)  # type: ignore[arg-type]  # the NameIndex methods it calls


@cache
def _point_checker_class() -> type[DeckChecker]:
    from . import sqlfiles
    from .decks import DeckChecker, _card_rules

    class PointDeckChecker(DeckChecker):
        def __init__(self, con: duckdb.DuckDBPyConnection, names: PointNames | NameIndex) -> None:
            super().__init__(con, names, cards={})  # type: ignore[arg-type]  # the NameIndex methods it calls
            self._point_names = names

        def check(
            self, deck: Decklist, fmt: str | FormatRules, *, commanders: Iterable[str] | None = None
        ) -> DeckReport:
            texts = [e.name for e in deck.entries if e.section != "maybeboard"] + list(commanders or ())
            heads = [re.split(r"\s*/+\s*", t.strip(), maxsplit=1)[0] for t in texts if "/" in t]
            if isinstance(self._point_names, PointNames):  # (a NameIndex answers from memory)
                self._point_names.prefetch(texts + heads)
            self.load([r.oracle_id for t in texts + heads if (r := self._point_names.resolve(t)).oracle_id])
            return super().check(deck, fmt, commanders=commanders)

        def load(self, oids: Sequence[str]) -> None:
            """Rules and (already used formats') legalities of these cards."""
            new = sorted(set(oids) - set(self.cards))
            if not new:
                return
            cursor = self._con.execute(
                f"SELECT * FROM ({sqlfiles.load('deck_rules.sql')}\n) WHERE oracle_id IN $oids", {"oids": new}
            )
            columns = [d[0] for d in cursor.description]
            for values in cursor.fetchall():
                row = dict(zip(columns, values))
                self.cards[row["oracle_id"]] = _card_rules(row)
            for fmt, table in self._legal.items():
                table.update(self._statuses(fmt, new))

        def _statuses(self, fmt: str, oids: Sequence[str]) -> list[tuple[str, str]]:
            return self._con.execute(
                "SELECT oracle_id, status FROM legalities WHERE format = $fmt AND oracle_id IN $oids",
                {"fmt": fmt, "oids": list(oids)},
            ).fetchall()

        def legality(self, fmt: str) -> dict[str, str]:
            if fmt not in self._legal:
                if self._formats_in_db is None:
                    self._formats_in_db = {
                        f for (f,) in self._con.execute("SELECT DISTINCT format FROM legalities").fetchall()
                    }
                if fmt in self._formats_in_db:
                    self._legal[fmt] = dict(self._statuses(fmt, list(self.cards)))
            return super().legality(fmt)

        def _found(self, res: Any) -> Any:
            if res.oracle_id and res.oracle_id not in self.cards:
                self.load([res.oracle_id])
            return super()._found(res)

    return PointDeckChecker
