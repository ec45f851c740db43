"""Each printing's Scryfall card object, kept whole: what ``/cards/...`` answers field for field.

The typed tables (``cards``, ``faces``, ``printings`` …) keep what the rules and searches read; a card object
holds far more (image and purchase links, prices, frame, finishes, illustration ids …). Ingest keeps every
object as the bulk file gave it, in table ``scryfall_objects`` — compressed with zstandard against one
dictionary trained on the run's own objects (table ``scryfall_object_dictionary``), because card objects are
small and alike: the 2019 default-cards dump's 127 MB of JSON is kept in about 20 MB, and reading one object
back costs a few microseconds more than reading a row.

Keeping runs on a connection of its own (:func:`keep`) while the ingest reads the names, references and tokens
(Python, mostly one core): the second core reads the file again and compresses its objects meanwhile (a
vectorised DuckDB function). Compressing inside the staging query instead put the compression on the staging's
own thread and made the ingest a third slower (bench/bench_card_objects.py); one read of each file for both (the
objects' text staged beside the typed columns) saved no CPU once a value of the wrong type is still refused, and
held the text in memory (docs/performance.md, "Ingest").

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")                                        # doctest: +SKIP
>>> stored_objects(db.con, ["0000579f-7b35-4ed3-b44c-db2a538066fe"])          # doctest: +SKIP
{'0000579f-…': b'{"object":"card","id":"0000579f-…", …}'}
"""

from __future__ import annotations

import array
import hashlib
import itertools
import json
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import zstandard

from oracle_tools.store import object_limits, userfiles

if TYPE_CHECKING:
    import duckdb

# pyarrow is imported where an ingest compresses: reading an object does not need it (the point path's
# start-up stays DuckDB alone, tests/test_lookup.py).

#: The tables this module owns (an ingest of only rulings carries them over).
TABLES = ("scryfall_objects", "scryfall_object_dictionary")
#: The SQL function :func:`keep` compresses each object's JSON text with.
COMPRESS_FUNCTION = "compress_scryfall_object"
#: Objects up to this many bytes (as the staging of the typed columns reads them).
MAX_OBJECT_BYTES = 1 << 20
#: Objects read from the head of the first card file to train the dictionary, and the dictionary's size:
#: enough for the keys, link prefixes and legality lists every object repeats (more samples train slower
#: and barely shrink the table).
TRAINING_OBJECTS = 1000
TRAINING_BYTES = 4 << 20
DICTIONARY_BYTES = 112_640
#: zstandard's level: 3 (its default) compresses the dump at ~300 MB/s to ~15 % of its size; higher levels
#: save little and cost several times the time.
LEVEL = 3

_READ_SQL = """
SELECT o.id, o.object, d.digest
FROM scryfall_objects o, scryfall_object_dictionary d
WHERE o.id IN (SELECT unnest($ids))
"""
_DICTIONARY_SQL = "SELECT dictionary FROM scryfall_object_dictionary WHERE digest = ?"


class PastLimits(ValueError):
    """Raised inside the compression function to stop the read of a file with an object past store/object_limits.py's
    limits (DuckDB reports it as its own error; :func:`keep` then says which object)."""


class _Compressor:
    """One dictionary, and a zstandard compressor per DuckDB worker thread (compressors are not shared).

    It also checks the objects DuckDB flags against store/object_limits.py's size and depth (``object_limits.past_limits``: the
    objects are at hand here, so the file is not read once more only to check them)."""

    def __init__(self, dictionary: bytes) -> None:
        self.dictionary = zstandard.ZstdCompressionDict(dictionary) if dictionary else None
        self._local = threading.local()
        self.past_limits = False

    def _compressor(self) -> zstandard.ZstdCompressor:
        comp = getattr(self._local, "compressor", None)
        if comp is None:
            comp = self._local.compressor = zstandard.ZstdCompressor(level=LEVEL, dict_data=self.dictionary)
        return comp

    def compress(self, texts: Any, may_be_past: Any) -> Any:  # pyarrow arrays; untyped: DuckDB reads this signature
        """Each JSON text of an Arrow string column, compressed (null stays null); the texts ``may_be_past`` flags
        (``object_limits.may_be_past_limits_sql``, counted by DuckDB beside its read) are first measured against the
        limits. DuckDB calls this on its own thread while the ingest's layers read Oracle text in Python, and each
        call here that lets go of Python's lock waits to get it back: a batch is a few such calls, and its values
        are compressed in one of them."""
        import pyarrow as pa  # type: ignore[import-untyped]

        if isinstance(texts, pa.ChunkedArray):
            texts = texts.combine_chunks()
        if isinstance(may_be_past, pa.ChunkedArray):
            may_be_past = may_be_past.combine_chunks()
        if may_be_past.true_count and any(
            object_limits.past_limits(texts[i].as_py()) for i, flagged in enumerate(may_be_past.to_pylist()) if flagged
        ):
            self._stop()
        if texts.null_count:
            return pa.array(
                [None if t is None else self._compressor().compress(t.encode()) for t in texts.to_pylist()],
                pa.binary(),
            )
        if texts.offset:
            texts = pa.concat_arrays([texts])  # a slice: its buffers start before its first value
        _, offsets_buffer, data = texts.buffers()
        if data is None or not len(texts):
            return pa.array([self._compressor().compress(b"") for _ in range(len(texts))], pa.binary())
        offsets = memoryview(offsets_buffer).cast("q" if pa.types.is_large_string(texts.type) else "i")
        segments = array.array("Q")  # (start, length) of each text in ``data``
        for start, end in itertools.pairwise(offsets[: len(texts) + 1]):
            segments.append(start)
            segments.append(end - start)
        out = self._compressor().multi_compress_to_buffer(
            zstandard.BufferWithSegments(data, segments.tobytes()), threads=1
        )
        return pa.array([out[i].tobytes() for i in range(len(out))], pa.binary())

    def _stop(self) -> None:
        self.past_limits = True
        raise PastLimits("a card object past the size or depth limits")


class CardFile(NamedTuple):
    """A card file to keep the objects of: its path, its JSON format (``array`` or ``newline_delimited``) and its
    compression (``none``, ``gzip`` or ``zstd``, found by its first bytes; ``auto_detect`` goes by its name)."""

    path: str
    json_format: str
    compression: str = "auto_detect"


def _read_file_sql(file: CardFile) -> str:
    """A query of each object's id and compressed text in ``file``, whose path is its one parameter."""
    if file.json_format not in ("array", "newline_delimited"):  # what ingest.sniff says; never user text
        raise ValueError(f"not a JSON format of a bulk file: {file.json_format!r}")
    return (
        f"SELECT json_extract_string(json, '$.id') AS id, "
        f"{COMPRESS_FUNCTION}(json, {object_limits.may_be_past_limits_sql('json')}) AS object "
        f"FROM read_json_objects(?, format = '{file.json_format}', maximum_object_size = {MAX_OBJECT_BYTES}, "
        f"compression = '{object_limits.checked_compression(file.compression)}')"
    )


def keep(cursor: duckdb.DuckDBPyConnection, files: Sequence[CardFile], dictionary: bytes | None = None) -> None:
    """Every object of each card file, compressed, into ``scryfall_objects``; a printing id in two files keeps the
    later file's object (as the typed columns do). The ``dictionary`` (:func:`train` of the first file; trained here
    when not given) is stored in ``scryfall_object_dictionary``. Runs on a cursor of its own, beside the layers the
    ingest builds from the core tables: nothing else in an ingest reads these tables.

    A file with an object larger than store/object_limits.py's ``OBJECT_BYTES`` or nested deeper than its ``MAX_DEPTH`` is
    refused (:class:`~oracle_tools.errors.IngestError`, the line of ``object_limits.check_objects``), found while its
    objects are compressed."""
    if not files:
        return
    compressor = _register(cursor, train(files[0].path) if dictionary is None else dictionary)

    def insert(sql: str, params: list[object], file: CardFile) -> None:
        import duckdb

        try:
            cursor.execute(sql, params)
        except duckdb.Error as exc:
            # An object past the limits, found while compressing, or the reason the reader ran out of memory (its
            # buffers grow with the largest object): read once more, to say which object and why (raises)
            if compressor.past_limits or isinstance(exc, duckdb.OutOfMemoryException):
                object_limits.check_objects(
                    file.path, file.json_format, max_object_bytes=MAX_OBJECT_BYTES, compression=file.compression
                )
            raise

    try:
        if len(files) == 1:
            insert(f"INSERT INTO scryfall_objects {_read_file_sql(files[0])}", [files[0].path], files[0])
            return
        # Several files: staged, then each id once, the later file's object. (INSERT OR REPLACE would do it in
        # one pass but leaves the replaced rows' space behind: a third more file on the real data.)
        cursor.execute("CREATE TEMP TABLE staged_objects (id VARCHAR, file_order INTEGER, object BLOB)")
        for order, file in enumerate(files):
            insert(
                f"INSERT INTO staged_objects SELECT id, ?, object FROM ({_read_file_sql(file)})",
                [order, file.path],
                file,
            )
        cursor.execute(
            "INSERT INTO scryfall_objects SELECT id, arg_max(object, file_order) FROM staged_objects GROUP BY id"
        )
        cursor.execute("DROP TABLE staged_objects")
    finally:
        cursor.remove_function(COMPRESS_FUNCTION)


def rewrite(
    con: duckdb.DuckDBPyConnection, ids: Sequence[str], change: Callable[[dict[str, Any]], dict[str, Any]]
) -> None:
    """Replace the kept object of each printing of ``ids`` with ``change`` of it (decoded, changed, encoded again as
    compact JSON and compressed with the run's dictionary): the ingest drops a field that breaks a rule of
    store/card_fields.py this way, from the few objects that have one."""
    rows = con.execute(_READ_SQL, {"ids": list(ids)}).fetchall()
    if not rows:
        return
    digest = rows[0][2]
    dictionary = con.execute(_DICTIONARY_SQL, [digest]).fetchall()[0][0]
    compressor = zstandard.ZstdCompressor(
        level=LEVEL, dict_data=zstandard.ZstdCompressionDict(dictionary) if dictionary else None
    )
    decompressor = _decompressor(con, digest)
    changed = [
        (
            pid,
            compressor.compress(
                json.dumps(
                    change(json.loads(decompressor.decompress(blob))), ensure_ascii=False, separators=(",", ":")
                ).encode()
            ),
        )
        for pid, blob, _ in rows
    ]
    con.execute(
        "UPDATE scryfall_objects SET object = c.object FROM (SELECT unnest($ids) AS id, unnest($objects) AS object) c "
        "WHERE scryfall_objects.id = c.id",
        {"ids": [pid for pid, _ in changed], "objects": [blob for _, blob in changed]},
    )


def training_texts(path: str) -> list[bytes]:
    """The first objects of a card file (a JSON array or one object per line; gzip, zstd or not compressed) as JSON
    text, to train the compression dictionary on: read from the file's head in Python, which is ten times quicker
    than a DuckDB query that stops after them."""
    head = userfiles.read_head(Path(path), TRAINING_BYTES, userfiles.compression_of(Path(path)))
    text = head.decode("utf-8", errors="ignore")  # the head may end inside a character
    decoder, at = json.JSONDecoder(), 0
    samples: list[bytes] = []
    while len(samples) < TRAINING_OBJECTS and (start := text.find("{", at)) >= 0:
        try:
            _, at = decoder.raw_decode(text, start)
        except ValueError:
            break  # the object the head ends inside
        except RecursionError:
            break  # nested past store/object_limits.py's MAX_DEPTH: keep() refuses the file, saying which object
        samples.append(text[start:at].encode())
    return samples


def train(path: str) -> bytes:
    """The compression dictionary of a run, trained on the head of its first card file (:func:`training_texts`);
    empty when there is too little to train on (plain zstandard then). About half a second: the ingest trains it
    on its second connection while the cards are staged, and hands it to :func:`keep`."""
    samples = training_texts(path)
    if len(samples) < 8:  # zstandard needs a handful of samples; a tiny file goes without a dictionary
        return b""
    try:
        return zstandard.train_dictionary(DICTIONARY_BYTES, list(samples), level=LEVEL).as_bytes()
    except zstandard.ZstdError:
        return b""  # too little text to train on: plain zstandard


def _register(con: duckdb.DuckDBPyConnection, dictionary: bytes) -> _Compressor:
    """Store the run's ``dictionary`` and make ``compress_scryfall_object(json)`` available on ``con`` (its
    compressor is returned)."""
    import duckdb

    digest = hashlib.blake2b(dictionary, digest_size=8).hexdigest()
    con.execute("INSERT INTO scryfall_object_dictionary VALUES (?, ?)", [digest, dictionary])
    compressor = _Compressor(dictionary)
    # type="arrow" as a string: the enum moved between DuckDB releases (duckdb.functional, duckdb.func)
    con.create_function(  # type: ignore[call-overload]
        COMPRESS_FUNCTION,
        compressor.compress,
        [duckdb.sqltype("VARCHAR"), duckdb.sqltype("BOOLEAN")],
        duckdb.sqltype("BLOB"),
        type="arrow",
        side_effects=False,
    )
    return compressor


class _Decompressors(threading.local):
    """Per thread (decompressors are not shared across threads): one decompressor per dictionary digest."""

    def __init__(self) -> None:
        self.by_digest: dict[str, zstandard.ZstdDecompressor] = {}


_decompressors = _Decompressors()


def _decompressor(con: duckdb.DuckDBPyConnection, digest: str) -> zstandard.ZstdDecompressor:
    found = _decompressors.by_digest.get(digest)
    if found is None:
        dictionary = con.execute(_DICTIONARY_SQL, [digest]).fetchall()[0][0]
        found = zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(dictionary) if dictionary else None)
        if len(_decompressors.by_digest) > 16:  # databases come and go in a long-lived server
            _decompressors.by_digest.clear()
        _decompressors.by_digest[digest] = found
    return found


def stored_objects(con: duckdb.DuckDBPyConnection, ids: Sequence[str]) -> dict[str, bytes]:
    """``{printing id: the card object's JSON text (UTF-8)}`` as the bulk file gave it, for the ids kept."""
    if not ids:
        return {}
    rows = con.execute(_READ_SQL, {"ids": list(ids)}).fetchall()
    found: dict[str, bytes] = {}
    for pid, blob, digest in rows:
        found[pid] = _decompressor(con, digest).decompress(blob)
    return found
