"""The names file: what ``resolve`` reads, stored at ingest in a SQLite file beside the database.

A fresh process that resolves names (``oracle-tools resolve NAME``, a script's loop of ``OracleDB.resolve``) should
pay for neither DuckDB (~0.1 s of CPU to import) nor the in-memory index (Polars, 0.4–1.3 s). The ingest writes,
beside ``oracle.duckdb``, ``oracle.duckdb.names.sqlite`` (:func:`names_path`): exactly what a lookup reads,
denormalised for one indexed probe per name — the ``names`` rows by folded key with their card's and face's English
names, the 201.3 classes (``name_classes``), the faces a note is about (CR 712.4b meld results, 712.8a back faces)
and the former names' notes, the rows the miss matchers are made of (``name_suggestions``, ``name_word_index``,
``token_suggestions``) and the token names' keys. :class:`StoredNames` answers from it with Python's own
``sqlite3``: every decision is :class:`~oracle_tools.names.point.PointLookups`', shared with the point queries on
the database, so the answers are :class:`~oracle_tools.names.index.NameIndex`'s field for field
(``tests/test_lookup.py and tests/test_names_file.py``).

The file records the database file it was written for (its inode, size and modification time, which ``os.replace``
keeps) and the schema version: :meth:`StoredNames.open` takes it only when both match the database about to be
answered for, and otherwise answers None (a copied database without its names file, an older file, a database
rebuilt by another version): the caller then uses the database itself, with the same answers. An ingest writes the
names file after the database is built and closed, and puts it in place before the database (``ingest.py``): a
reader sees either the old pair, or a new names file beside the old database (whose stamp it does not match).
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oracle_tools.errors import NamesFileDamagedError, OracleToolsError
from oracle_tools.names.face_notes import FaceNotes
from oracle_tools.names.point import NameRow, PointLookups
from oracle_tools.names.resolver import Resolution
from oracle_tools.store.schema_version import SCHEMA_VERSION
from oracle_tools.text.matching import normalize

if TYPE_CHECKING:
    import duckdb

    from oracle_tools.text.matching import NameMatcher

__all__ = ["FORMAT", "StoredNames", "file_stamp", "names_path", "write"]

#: The layout of the names file (its tables below); a file of another layout is not read.
FORMAT = 1

#: The names file of the database ``<db>``: ``<db>.names.sqlite``.
SUFFIX = ".names.sqlite"

Stamp = tuple[int, int, int]  # st_ino, st_size, st_mtime_ns of the database file

_TABLES = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE names (
    key TEXT NOT NULL, seq INTEGER NOT NULL, name TEXT, oracle_id TEXT, face_index INTEGER, via TEXT, lang TEXT,
    card_name TEXT, face_name TEXT, PRIMARY KEY (key, seq)
) WITHOUT ROWID;
CREATE TABLE name_classes (class_id TEXT, name TEXT);
CREATE TABLE face_notes (oracle_id TEXT NOT NULL, name TEXT, role TEXT, card TEXT, parts TEXT);
CREATE INDEX face_notes_card ON face_notes (oracle_id);
CREATE TABLE former_notes (oracle_id TEXT PRIMARY KEY, note TEXT) WITHOUT ROWID;
CREATE TABLE suggestions (keys TEXT, names TEXT, printings TEXT);  -- one row: keys a line each, the rest JSON
CREATE TABLE word_index (lines INTEGER, vocabulary TEXT, postings BLOB, starts BLOB, dropped TEXT, dropped_from BLOB);
CREATE TABLE token_suggestions (line INTEGER PRIMARY KEY, key TEXT, name TEXT);
CREATE TABLE token_keys (key TEXT PRIMARY KEY) WITHOUT ROWID;
"""

# The names rows with their card's and face's English names (PointNames' three queries, joined once at ingest).
_NAMES_SQL = """
SELECT n.key, n.name, n.oracle_id, n.face_index, n.via, n.lang, c.name AS card_name, f.name AS face_name
FROM names n
LEFT JOIN cards c ON c.oracle_id = n.oracle_id AND c.is_card
LEFT JOIN faces f ON f.oracle_id = n.oracle_id AND f.face_index = n.face_index AND f.is_card
ORDER BY n.key
"""
_ROWS_PER_FETCH = 10_000
# SQLite's limit of bound parameters is 32,766 (since 3.32; 999 before): a decklist's keys are asked in chunks
_KEYS_PER_QUERY = 900


def names_path(db_file: str | os.PathLike[str]) -> Path:
    """The names file of the database ``db_file``: ``oracle.duckdb`` -> ``oracle.duckdb.names.sqlite``."""
    path = Path(db_file)
    return path.with_name(path.name + SUFFIX)


def file_stamp(db_file: str | os.PathLike[str]) -> Stamp:
    """What identifies one version of a database file: its inode, size and modification time (``os.replace`` keeps
    them; a read-only open changes none). OSError when there is no such file."""
    st = os.stat(db_file)
    return (st.st_ino, st.st_size, st.st_mtime_ns)


# -- writing (at ingest) ------------------------------------------------------------------------------


def write(db_file: Path, names_file: Path) -> None:
    """Write the names file of the finished, closed database ``db_file`` at ``names_file`` (a temp path the ingest
    then puts in place), stamped with ``db_file``'s stamp as it is after this read."""
    from oracle_tools.history.changes import former_notes
    from oracle_tools.names import suggestions
    from oracle_tools.names.face_notes import noted_rows
    from oracle_tools.store import sqlfiles

    names_file.unlink(missing_ok=True)
    out = sqlite3.connect(names_file)
    try:
        out.execute("PRAGMA journal_mode = OFF")  # a new temp file: it is whole when renamed, or removed
        out.execute("PRAGMA synchronous = OFF")
        out.executescript(_TABLES)
        con = sqlfiles.connect_read_only(db_file)
        try:
            _copy(con, out, former_notes, suggestions, noted_rows)
        finally:
            con.close()
        stamp = file_stamp(db_file)
        out.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [
                ("format", FORMAT),
                ("schema_version", SCHEMA_VERSION),
                ("db_ino", stamp[0]),
                ("db_size", stamp[1]),
                ("db_mtime_ns", stamp[2]),
            ],
        )
        out.commit()
        out.execute("PRAGMA optimize")
    finally:
        out.close()
    with open(names_file, "rb") as written:
        os.fsync(written.fileno())


def _copy(
    con: duckdb.DuckDBPyConnection, out: sqlite3.Connection, former_notes: Any, suggestions: Any, noted: Any
) -> None:
    out.executemany(
        "INSERT INTO names VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ((row[0], seq, *row[1:]) for seq, row in enumerate(_streamed(con, _NAMES_SQL))),
    )
    out.executemany(
        "INSERT INTO name_classes VALUES (?, ?)",
        con.execute(
            "SELECT class_id, name FROM name_classes WHERE name IS NOT NULL AND class_id IS NOT NULL"
        ).fetchall(),
    )
    out.executemany(
        "INSERT INTO face_notes VALUES (?, ?, ?, ?, ?)",
        [(oid, name, role, card, json.dumps(list(parts or ()))) for oid, name, role, card, parts in noted(con)],
    )
    out.executemany("INSERT INTO former_notes VALUES (?, ?)", sorted(former_notes(con).items()))
    keys, names, printings = suggestions.suggestion_rows(con)
    # one row (a read of 24k rows cost a fresh process's first miss ~30 ms): keys hold no newline (normalize)
    out.execute("INSERT INTO suggestions VALUES (?, ?, ?)", ("\n".join(keys), json.dumps(names), json.dumps(printings)))
    row = suggestions.word_index_row(con)
    if row is not None:
        out.execute("INSERT INTO word_index VALUES (?, ?, ?, ?, ?, ?)", row)
    tokens = con.execute(suggestions.TOKEN_SUGGESTIONS_SQL).fetchall()
    out.executemany("INSERT INTO token_suggestions VALUES (?, ?, ?)", ((i, *t) for i, t in enumerate(tokens)))
    token_keys = sorted({normalize(n) for (n,) in con.execute("SELECT DISTINCT name FROM token_names").fetchall()})
    out.executemany("INSERT INTO token_keys VALUES (?)", ((k,) for k in token_keys))


def _streamed(con: duckdb.DuckDBPyConnection, sql: str) -> Iterator[tuple[Any, ...]]:
    cursor = con.cursor()
    try:
        cursor.execute(sql)
        while rows := cursor.fetchmany(_ROWS_PER_FETCH):
            yield from rows
    finally:
        cursor.close()


# -- reading ------------------------------------------------------------------------------------------


class StoredNames(PointLookups):
    """:class:`~oracle_tools.names.point.PointLookups` over the names file: one indexed probe per name, no DuckDB.

    One read-only SQLite connection, shared by the threads that share the :class:`~oracle_tools.OracleDB` (each
    read under a lock)."""

    def __init__(self, con: sqlite3.Connection, stamp: Stamp, path: str | os.PathLike[str] = "") -> None:
        super().__init__()
        self._con = con
        self._stamp = stamp
        self._path = path
        # a read failed: the file is no longer asked (OracleDB's names then come from the database)
        self.damaged = False
        self._lock = threading.Lock()
        self._noted_cards: frozenset[str] | None = None  # the cards that have a face a note is about
        self._notes: dict[str, FaceNotes] = {}  # oracle_id -> its FaceNotes (of the noted cards only)

    @classmethod
    def open(cls, db_file: str | os.PathLike[str], stamp: Stamp | None = None) -> StoredNames | None:
        """The names of the database ``db_file`` (whose stamp is ``stamp`` when the caller has it open; else it is
        read now) from its names file, when that file was written for this very file by this schema version;
        else None."""
        path = names_path(os.path.realpath(db_file))  # an ingest through a symbolic link writes beside the real file
        try:
            if stamp is None:
                stamp = file_stamp(db_file)
            # a regular file only: SQLite's open of a FIFO waits for a writer forever, and retries through the
            # signals that would stop it (a folder or a device is no names file either)
            if not stat.S_ISREG(os.stat(path).st_mode):
                return None
            uri = Path(os.path.abspath(path)).as_uri() + "?mode=ro&immutable=1"
            con = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except (OSError, sqlite3.Error):
            return None
        try:
            meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.Error:  # no such file (SQLite made none: mode=ro), or not a names file
            con.close()
            return None
        written = (meta.get("db_ino"), meta.get("db_size"), meta.get("db_mtime_ns"))
        if meta.get("format") != FORMAT or meta.get("schema_version") != SCHEMA_VERSION or written != stamp:
            con.close()
            return None
        return cls(con, stamp, path)

    def stamp_is(self, stamp: Stamp | None) -> bool:
        """Whether this names file was written for the database file of ``stamp``."""
        return stamp == self._stamp

    def close(self) -> None:
        with self._lock:
            self._con.close()

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._con.execute(sql, params).fetchall()
            except sqlite3.ProgrammingError:  # closed under a thread still answering (a server's old generation)
                raise OracleToolsError("the database was closed (reopened after a re-ingest); retry") from None
            except sqlite3.DatabaseError as exc:  # "database disk image is malformed", a table gone
                raise self._damaged(exc) from None

    def _damaged(self, exc: Exception) -> NamesFileDamagedError:
        """The error of a read that failed (the file is set aside from now on)."""
        self.damaged = True
        return NamesFileDamagedError(
            f"{Path(self._path).name}: the names file beside the database cannot be read ({exc}); delete it (the "
            "database answers the same without it) or run `oracle-tools ingest` again"
        )

    def _rows(self, keys: list[str]) -> list[NameRow]:
        rows: list[NameRow] = []
        for at in range(0, len(keys), _KEYS_PER_QUERY):
            chunk = keys[at : at + _KEYS_PER_QUERY]
            for row in self._query(
                "SELECT name, key, oracle_id, face_index, via, lang, card_name, face_name FROM names "
                f"WHERE key IN ({', '.join('?' * len(chunk))})",
                tuple(chunk),
            ):
                if not _is_name_row(row):  # SQLite keeps what an edit wrote: a NULL, a text face number
                    raise self._damaged(ValueError(f"a names row the ingest did not write: {row!r}"))
                rows.append(NameRow(*row))
        return rows

    def _class_pairs(self) -> list[tuple[str, str]]:
        pairs = self._query("SELECT class_id, name FROM name_classes")
        if not all(isinstance(class_id, str) and isinstance(name, str) for class_id, name in pairs):
            raise self._damaged(ValueError("a name_classes row without its class or name"))
        return pairs

    def face_note(self, found: Resolution) -> str | None:
        oid = found.oracle_id
        if not oid:
            return None
        if self._noted_cards is None:
            self._noted_cards = frozenset(oid for (oid,) in self._query("SELECT DISTINCT oracle_id FROM face_notes"))
        if oid not in self._noted_cards:
            return None
        notes = self._notes.get(oid)
        if notes is None:
            rows = self._query("SELECT oracle_id, name, role, card, parts FROM face_notes WHERE oracle_id = ?", (oid,))
            try:
                noted = [(*row[:4], json.loads(row[4])) for row in rows]
            except (TypeError, ValueError) as exc:  # not the JSON the ingest wrote
                raise self._damaged(exc) from None
            if not all(_is_face_note(row) for row in noted):
                raise self._damaged(ValueError(f"a face_notes row the ingest did not write: {rows!r}"))
            notes = self._notes[oid] = FaceNotes(None, rows=noted)
        return notes.note(found)

    def former_note(self, oracle_id: str | None) -> str | None:
        if not oracle_id:
            return None
        found = self._query("SELECT note FROM former_notes WHERE oracle_id = ?", (oracle_id,))
        return found[0][0] if found else None

    def _card_matcher(self) -> NameMatcher:
        from oracle_tools.names import suggestions

        packed = next(iter(self._query("SELECT keys, names, printings FROM suggestions")), None)
        if packed is None:  # the ingest writes the one row, empty for a database of no names
            raise self._damaged(ValueError("its suggestions row is gone"))
        try:
            keys, names, printings = (
                (packed[0].split("\n"), json.loads(packed[1]), json.loads(packed[2])) if packed[0] else ([], [], [])
            )
        except (AttributeError, TypeError, ValueError) as exc:  # not the text and JSON the ingest wrote
            raise self._damaged(exc) from None
        # one name and one printing count per key, as the ingest wrote them (else a miss's suggestions fail)
        if not (
            isinstance(names, list)
            and isinstance(printings, list)
            and len(keys) == len(names) == len(printings)
            and all(isinstance(name, str) for name in names)
            and all(type(count) is int for count in printings)
        ):
            raise self._damaged(ValueError("a suggestions row whose names and printings do not match its keys"))
        index_row = next(
            iter(self._query("SELECT lines, vocabulary, postings, starts, dropped, dropped_from FROM word_index")),
            None,
        )
        return suggestions.card_matcher_from(keys, names, printings, index_row)

    def _made_token_matcher(self) -> NameMatcher:
        from oracle_tools.names import suggestions

        rows = self._query("SELECT key, name FROM token_suggestions ORDER BY line")
        if not all(isinstance(key, str) and isinstance(name, str) for key, name in rows):
            raise self._damaged(ValueError("a token_suggestions row without its key or name"))
        return suggestions.token_matcher_from(rows)

    def is_token_name(self, text: str) -> bool:
        return bool(self._query("SELECT 1 FROM token_keys WHERE key = ?", (normalize(text),)))


def _is_name_row(row: tuple[Any, ...]) -> bool:
    """Whether ``row`` (name, key, oracle_id, face_index, via, lang, card_name, face_name) has the types the ingest
    writes: a row of a card the file does not name (no card_name) or a face number that is text is damage."""
    name, key, oracle_id, face_index, via, lang, card_name, face_name = row
    return (
        isinstance(name, str)
        and isinstance(key, str)
        and isinstance(oracle_id, str)
        and (face_index is None or type(face_index) is int)
        and isinstance(via, str)
        and (lang is None or isinstance(lang, str))
        and isinstance(card_name, str)
        and (face_name is None or isinstance(face_name, str))
    )


def _is_face_note(row: tuple[Any, ...]) -> bool:
    """Whether a face note (oracle_id, name, role, card, parts) has the types the ingest writes."""
    oracle_id, name, role, card, parts = row
    return (
        isinstance(oracle_id, str)
        and isinstance(name, str)
        and isinstance(role, str)
        and isinstance(card, str)
        and isinstance(parts, list)
        and all(isinstance(part, str) for part in parts)
    )
