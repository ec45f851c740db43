"""Build the database from Scryfall bulk files (local, downloaded, or the embedded sample).

Every ingest writes a new database next to the old one and swaps it in with one
``os.replace`` only when everything succeeded: a failed or killed ingest leaves the
previous database as it was.

Parsing is DuckDB's native JSON reader with an explicit schema (no Python loop over
objects); the tables are then derived in SQL (``sql/build_*.sql``) and by the
later layers (names, references, tokens), partly on a second connection (``_SecondConnection``).

>>> from oracle_tools import OracleDB
>>> db = OracleDB.ingest_sample("data/oracle.duckdb")       # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import json
import os
import re
import secrets
import shlex
import shutil
import stat
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

import duckdb
from tqdm import tqdm

from oracle_tools.errors import DatabaseOutdatedError, IngestError, printable
from oracle_tools.names import stored as stored_names
from oracle_tools.scryfall import sets as _sets
from oracle_tools.store import card_fields, object_limits, schema_version, scryfall_objects, sqlfiles, userfiles
from oracle_tools.store.sqlfiles import PREVIOUS_CATALOG
from oracle_tools.store.stopping import StopOnSignals, Stopped

if TYPE_CHECKING:
    from oracle_tools.text.comprules import RulesDocument

# The Scryfall card-object fields the schema uses. Unknown keys are ignored by the reader,
# so new Scryfall fields never break an ingest.
_FACE_STRUCT = (
    "STRUCT(object VARCHAR, name VARCHAR, printed_name VARCHAR, flavor_name VARCHAR, oracle_id VARCHAR, "
    "mana_cost VARCHAR, cmc DOUBLE, type_line VARCHAR, printed_type_line VARCHAR, oracle_text VARCHAR, "
    "printed_text VARCHAR, flavor_text VARCHAR, colors VARCHAR[], color_indicator VARCHAR[], power VARCHAR, "
    "toughness VARCHAR, loyalty VARCHAR, defense VARCHAR, layout VARCHAR, image_uris JSON)[]"
)
CARD_COLUMNS: dict[str, str] = {
    "object": "VARCHAR",
    "id": "VARCHAR",
    "oracle_id": "VARCHAR",
    "name": "VARCHAR",
    "printed_name": "VARCHAR",
    "flavor_name": "VARCHAR",
    "lang": "VARCHAR",
    "released_at": "DATE",
    "layout": "VARCHAR",
    "mana_cost": "VARCHAR",
    "cmc": "DOUBLE",
    "type_line": "VARCHAR",
    "printed_type_line": "VARCHAR",
    "oracle_text": "VARCHAR",
    "printed_text": "VARCHAR",
    "power": "VARCHAR",
    "toughness": "VARCHAR",
    "loyalty": "VARCHAR",
    "defense": "VARCHAR",
    "colors": "VARCHAR[]",
    "color_identity": "VARCHAR[]",
    "color_indicator": "VARCHAR[]",
    "keywords": "VARCHAR[]",
    "produced_mana": "VARCHAR[]",
    "reserved": "BOOLEAN",
    "games": "VARCHAR[]",
    "set": "VARCHAR",
    "set_name": "VARCHAR",
    "set_type": "VARCHAR",
    "collector_number": "VARCHAR",
    "rarity": "VARCHAR",
    "digital": "BOOLEAN",
    "promo": "BOOLEAN",
    "border_color": "VARCHAR",
    "security_stamp": "VARCHAR",
    "artist": "VARCHAR",
    "multiverse_ids": "INTEGER[]",
    "mtgo_id": "INTEGER",
    "mtgo_foil_id": "INTEGER",
    "arena_id": "INTEGER",
    "tcgplayer_id": "INTEGER",
    "cardmarket_id": "INTEGER",
    "tcgplayer_etched_id": "INTEGER",
    "edhrec_rank": "INTEGER",
    "penny_rank": "INTEGER",
    "game_changer": "BOOLEAN",
    "attraction_lights": "INTEGER[]",
    "finishes": "VARCHAR[]",
    "foil": "BOOLEAN",
    "nonfoil": "BOOLEAN",
    "set_id": "VARCHAR",
    "set_uri": "VARCHAR",
    "scryfall_set_uri": "VARCHAR",
    "illustration_id": "VARCHAR",
    "watermark": "VARCHAR",
    "flavor_text": "VARCHAR",
    "frame": "VARCHAR",
    "frame_effects": "VARCHAR[]",
    "frame_effect": "VARCHAR",  # the one effect of objects from before frame_effects (the 2019 dump)
    "full_art": "BOOLEAN",
    "textless": "BOOLEAN",
    "booster": "BOOLEAN",
    "story_spotlight": "BOOLEAN",
    "highres_image": "BOOLEAN",
    "promo_types": "VARCHAR[]",
    # who previewed the card (Scryfall leaves it out of a card nobody previewed; files older than 2019 have none)
    "preview": "STRUCT(source VARCHAR, source_uri VARCHAR, previewed_at VARCHAR)",
    "block": "VARCHAR",
    "block_code": "VARCHAR",
    "prices": "STRUCT(usd VARCHAR, usd_foil VARCHAR, usd_etched VARCHAR, eur VARCHAR, eur_foil VARCHAR, tix VARCHAR)",
    "legalities": "MAP(VARCHAR, VARCHAR)",
    "card_faces": _FACE_STRUCT,
    "all_parts": "STRUCT(object VARCHAR, id VARCHAR, component VARCHAR, name VARCHAR, type_line VARCHAR)[]",
}
RULING_COLUMNS: dict[str, str] = {
    "object": "VARCHAR",
    "oracle_id": "VARCHAR",
    "source": "VARCHAR",
    "published_at": "DATE",
    "comment": "VARCHAR",
}

# Scryfall names its bulk files after their type: oracle-cards-20241122100000.json(.gz).
#: The in-memory database the bulk files are staged in: attached, not TEMP, so the second connection sees it too.
#: The SQL files call it ``ingest_stage``; the run uses a random name for the reason above (a database file
#: named ingest_stage.duckdb is itself the catalog "ingest_stage"), put in by :func:`_staged_sql`.
STAGE_CATALOG = f"ingest_stage_{secrets.token_hex(8)}"

_BULK_NAME = re.compile(r"(oracle[-_]cards|unique[-_]artwork|default[-_]cards|all[-_]cards|rulings)", re.I)
_OBJECT_KEY = re.compile(r'"object"\s*:\s*"([A-Za-z_]+)"')
_SNIFF_BYTES = 1 << 16

#: Tables a card ingest rebuilds; kept from the previous database when only rulings or rules are given.
CARD_TABLES = ("cards", "faces", "printings", "legalities", "parts")


@dataclass(frozen=True)
class SourceFile:
    """One local file to ingest, with what sniffing its content found."""

    path: Path
    kind: str  # "cards" | "rulings" | "sets"
    json_format: str  # "array" | "newline_delimited"
    compression: str = "none"  # "none" | "gzip" | "zstd": by the file's first bytes, whatever its name
    bulk_type: str | None = None  # oracle_cards, default_cards, ... when known
    origin: str = "bulk-file"  # bulk-file | scryfall-api | sample
    updated_at: str | None = None
    given_as: str | None = None  # what the user named when ``path`` is the copy of a stream (/dev/fd/63, -)

    @property
    def shown(self) -> str:
        """The file as the user named it: in messages and in the records of the ingest."""
        return self.given_as or str(self.path)

    @property
    def short(self) -> str:
        """The file's name in a line that lists files (a stream's as given: /dev/fd/63's name is 63)."""
        return self.given_as or self.path.name

    @property
    def is_oracle(self) -> bool:
        return self.bulk_type == "oracle_cards"


@dataclass
class IngestReport:
    """What one ingest did: per-file row counts and timings, table sizes."""

    db_path: Path
    files: list[dict] = field(default_factory=list)
    tables: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "db": str(self.db_path),
            "files": self.files,
            "tables": self.tables,
            "seconds": round(self.seconds, 3),
            "warnings": self.warnings,
        }


#: What a bulk file is, said after each refusal of a file that is not one.
_EXPECTED = "expected a Scryfall bulk file (a JSON array of card or ruling objects, or one object per line)"
#: The command that decompresses each compressed format DuckDB does not read (their magic bytes: store/userfiles.py).
_DECOMPRESS = {"bzip2": "bunzip2 -k", "xz": "unxz -k", "7z": "7z x"}


def _unreadable_compression(path: Path, compression: str) -> str:
    """The line refusing a file in a compressed format DuckDB does not read (MTGJSON ships .zip, .bz2 and .xz):
    which format, and the command that makes a file the ingest reads."""
    quoted = shlex.quote(str(path))
    give = "or give the .json, .json.gz or .json.zst file"
    if compression != "zip":
        return (
            f"{path}: is {'an' if compression == 'xz' else 'a'} {compression}-compressed file, which oracle-tools does not read; decompress it first "
            f"({_DECOMPRESS[compression]} {quoted}) and give the file that makes, {give}."
        )
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            names = [printable(n) for n in archive.namelist() if not n.endswith("/")]
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        return f"{path}: is a zip archive that cannot be opened ({printable(str(exc))}); download it again, {give}."
    if not names:
        return f"{path}: is an empty zip archive; there are no card objects in it, {give}."
    if len(names) == 1:
        return (
            f"{path}: is a zip archive holding {names[0]}; unzip it first (unzip {quoted}) and give {names[0]}, {give}."
        )
    shown = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
    return (
        f"{path}: is a zip archive of {len(names)} files ({shown}); unzip it first (unzip {quoted}) and give the "
        f"Scryfall bulk file among them."
    )


def _read_head(path: Path) -> tuple[str, bytes]:
    """The compression of ``path`` (by its first bytes, whatever its name) and the first bytes of its content
    (decompressed), for sniffing; a file in a format DuckDB does not read is refused here, saying which."""
    import zstandard

    if sqlfiles.is_duckdb_file(path):  # `ingest data/oracle.duckdb`, meaning the database to write
        raise IngestError(f"{path}: is a DuckDB database, not a Scryfall bulk file; give the database with --db.")
    try:
        compression = userfiles.compression_of(path)
        if compression not in userfiles.READABLE_COMPRESSIONS:
            raise IngestError(_unreadable_compression(path, compression))
        # A short read of the head is enough to sniff; truncation later is DuckDB's to report.
        head = userfiles.read_head(path, _SNIFF_BYTES, compression)
    except FileNotFoundError:
        raise IngestError(f"{path}: no such file; check the path of the bulk file.") from None
    except IsADirectoryError:
        raise IngestError(f"{path}: is a directory, not a Scryfall bulk file.") from None
    except zlib.error as exc:
        raise IngestError(f"{path}: is not a valid gzip file ({exc}). Download it again.") from None
    except zstandard.ZstdError as exc:
        raise IngestError(f"{path}: is not a valid zstd file ({exc}). Download it again.") from None
    inner = userfiles.compression_in(head)
    if compression != "none" and inner != "none":  # a server that compressed a .json.gz once more, say
        raise IngestError(
            f"{path}: is {compression}-compressed twice over (what the {compression} holds is {inner}-compressed "
            f"again); decompress it once (e.g. {'gunzip' if compression == 'gzip' else 'unzstd'} -c "
            f"{shlex.quote(str(path))} > cards.json.{'gz' if inner == 'gzip' else inner}) and give that file."
        )
    if head[257:262] == b"ustar":  # POSIX tar: its magic at offset 257 of the first header
        inside = printable(head[:100].split(b"\0")[0].decode("utf-8", errors="replace"))
        packed = "" if compression == "none" else f" ({compression}-compressed)"
        raise IngestError(
            f"{path}: is a tar archive{packed} whose first file is {inside}; extract it first "
            f"(tar -xf {shlex.quote(str(path))}) and give the Scryfall bulk file inside."
        )
    return compression, head


#: The control characters JSON text never holds raw (RFC 8259: whitespace is tab, line feed, carriage return).
_RAW_CONTROL = re.compile(rb"[\x01-\x08\x0b\x0c\x0e-\x1f]")


def _head_text(path: Path, head: bytes) -> str:
    """The head of a bulk file as text; a file that is not UTF-8 text (binary data, UTF-16) is refused here,
    describing its bytes rather than printing them."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise IngestError(
            f"{path}: is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8 (a Scryfall bulk "
            "file is JSON in UTF-8)."
        )
    if b"\0" in head:  # no JSON text holds a NUL byte
        raise IngestError(
            f"{path}: is binary data, not JSON text (a NUL byte at offset {head.index(0):,}; its first bytes are "
            f"{head[:12].hex(' ')}); {_EXPECTED}."
        )
    control = _RAW_CONTROL.search(head)
    if control is not None:  # JSON allows no raw control character, even in a string: no encoding of it has one
        raise IngestError(
            f"{path}: is binary data, not JSON text (byte 0x{head[control.start()]:02x} at offset "
            f"{control.start():,} is a control character, which JSON text never holds; its first bytes are "
            f"{head[:12].hex(' ')}); {_EXPECTED}."
        )
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if len(head) == _SNIFF_BYTES and exc.start > len(head) - 4:  # the head ends inside a character
            text = head[: exc.start].decode("utf-8")
        else:
            raise IngestError(
                f"{path}: is not UTF-8 text (byte 0x{head[exc.start]:02x} at offset {exc.start:,} is not UTF-8); "
                "save it as UTF-8 (a Scryfall bulk file is JSON in UTF-8)."
            ) from None
    return text.lstrip("\ufeff")


def _describe_json(value: object) -> str:
    """What a JSON value is, in words, for a line saying a file holds it instead of card objects."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}" + ("…" if len(value) > 40 else "")
    if isinstance(value, dict):
        return "an empty JSON object ({})" if not value else "a JSON object"
    return "an empty JSON array" if not value else "a JSON array"


def _whole_json(text: str) -> tuple[bool, object]:
    """Whether ``text`` (the head of a file) is one whole JSON value, and that value."""
    try:
        value, end = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):
        return False, None
    return not text[end:].strip(), value


def sniff(
    path: Path | str, *, origin: str = "bulk-file", bulk_type: str | None = None, updated_at: str | None = None
) -> SourceFile:
    """Recognise a Scryfall bulk file by content: card or ruling objects, JSON array or one per line; gzip or zstd
    compressed or not, found by its first bytes whatever its name."""
    path = Path(path)
    compression, raw_head = _read_head(path)
    head = _head_text(path, raw_head)
    stripped = head.lstrip()
    if not stripped and compression != "none":  # (a zstd file cut inside its first block decompresses to nothing)
        raise IngestError(
            f"{path}: holds no text once {compression}-decompressed: it is cut short (a download that stopped) or "
            "compresses an empty file; download it again."
        )
    if not stripped:
        raise IngestError(f"{path}: the file is empty; expected a Scryfall bulk file (a JSON array of card objects).")
    first = stripped[0]
    whole, value = _whole_json(stripped)
    if first not in "[{":
        if whole:  # null, a number, a string, true or false: JSON, but not a list of anything
            raise IngestError(f"{path}: holds {_describe_json(value)}, not a list of card objects; {_EXPECTED}.")
        if re.match(r"Magic(?::| -)? The Gathering Comprehensive Rules", stripped.lstrip("\ufeff")):
            # the CR text (MagicCompRules-*.txt) given as a bulk file: it has its own option
            raise IngestError(
                f"{path}: is the Comprehensive Rules text, not a bulk file of cards; give it with "
                f"`oracle-tools ingest --rules-file {path}`."
            )
        raise IngestError(f"{path}: is not JSON (it starts with {stripped[:30]!r}); {_EXPECTED}.")
    if stripped.startswith("{") and re.match(r'\{\s*"meta"\s*:', stripped):
        raise IngestError(f"{path}: is an MTGJSON file; oracle-tools ingests Scryfall bulk files (card objects).")
    match = _OBJECT_KEY.search(stripped)
    if match is None:
        if re.fullmatch(r"\[\s*\]\s*", stripped):
            raise IngestError(f"{path}: the JSON array is empty; there are no card objects to ingest.")
        if whole and value == {}:
            raise IngestError(f"{path}: holds an empty JSON object ({{}}), not a list of card objects; {_EXPECTED}.")
        if whole and isinstance(value, list) and value and not isinstance(value[0], dict):
            raise IngestError(
                f"{path}: holds a JSON array whose first item is {_describe_json(value[0])}, not a card object; "
                f"{_EXPECTED}."
            )
        if '"legal_in_commander"' in stripped[:4000]:  # the trimmed commander-legal list (name, type_line, ...)
            raise IngestError(
                f'{path}: is a trimmed card list (name, type_line, oracle_text, legal_in_commander; no "object" '
                "field), not Scryfall card objects; convert it in the oracle-tools source tree with `python "
                f"scripts/make_sample.py --trimmed-to-cards {path} cards-trimmed.json.gz` and ingest that file."
            )
        raise IngestError(
            f'{path}: does not look like Scryfall card or ruling objects (no "object" field in the first '
            f"object: {stripped[:80]!r})."
        )
    object_type = match.group(1)
    if object_type == "list" and [m.group(1) for m in _OBJECT_KEY.finditer(stripped, match.end())][:1] == ["set"]:
        object_type = "set"  # Scryfall's /sets answer saved as it came: a list of set objects
    elif object_type == "list":
        raise IngestError(
            f"{path}: is a Scryfall list (such as the bulk-data index), not a bulk file; "
            "ingest the file its download_uri points to."
        )
    if object_type not in ("card", "ruling", "set"):
        raise IngestError(
            f"{path}: holds Scryfall '{object_type}' objects; expected 'card', 'ruling' or 'set' objects."
        )
    kind = {"card": "cards", "ruling": "rulings", "set": "sets"}[object_type]
    if bulk_type is None:
        named = _BULK_NAME.search(path.name)
        bulk_type = named.group(1).lower().replace("-", "_") if named else None
    return SourceFile(
        path=path,
        kind=kind,
        compression=compression,
        json_format="array" if first == "[" else "newline_delimited",
        bulk_type=bulk_type,
        origin=origin,
        updated_at=updated_at,
    )


#: How long an ingest waits for a program to open a named pipe (FIFO) it is given for writing, before it says so:
#: a FIFO nothing writes to would otherwise be waited on forever.
WRITER_WAIT_SECONDS = 5.0
#: How much of a stream is copied before it is sniffed: a compressed head is enough of its content to recognise.
_STREAM_HEAD = 1 << 20
STDIN = "-"
_NO_WAIT = os.O_RDONLY | os.O_NONBLOCK


#: A bulk file to ingest: a path (``-``: standard input) or an open binary file object.
BulkFile = Path | BinaryIO


def is_stream(path: BulkFile) -> bool:
    """Whether ``path`` is a stream rather than a file (``-``, a pipe such as ``<(zcat …)``, a named pipe, a
    device, an open binary file object): it can be read once only, and the ingest reads a bulk file several times,
    so it is copied first."""
    if not isinstance(path, Path) or str(path) == STDIN:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # sniff says what is wrong with it
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)


def _first_piece(fd: int, given: str) -> bytes | None:
    """Wait, at most :data:`WRITER_WAIT_SECONDS`, for a writer of the pipe ``fd`` (opened non-blocking); then make
    ``fd`` blocking. The first bytes when they came in the wait (b"" for a pipe closed empty), None when a writer
    is there but has not written yet (``<(curl …)`` still connecting: read on, Ctrl-C stops it). A named pipe
    nothing opened for writing is refused: reading it would wait forever."""
    import select

    if not stat.S_ISFIFO(os.fstat(fd).st_mode):
        os.set_blocking(fd, True)
        return None
    waiting = select.poll()
    waiting.register(fd, select.POLLIN)
    waiting.poll(int(WRITER_WAIT_SECONDS * 1000))  # Linux: no POLLHUP before a writer has come and gone
    try:
        piece: bytes | None = os.read(fd, _STREAM_HEAD)
    except BlockingIOError:
        piece = None  # a writer holds it open, silent so far
    if piece == b"" and not waiting.poll(0):
        raise IngestError(
            f"{given}: is a named pipe (FIFO) that no program opened for writing in {WRITER_WAIT_SECONDS:g} s; "
            "start the program that writes it first (or give a file). Nothing was replaced."
        )
    os.set_blocking(fd, True)
    return piece


def _stream_name(stream: BulkFile) -> str:
    """A stream as messages and records name it: ``-`` and standard input's file object are "standard input", a
    file object its ``name`` (an open file's path) or "a binary file object"."""
    if isinstance(stream, Path):
        return "standard input" if str(stream) == STDIN else str(stream)
    name = getattr(stream, "name", None)
    if name in ("<stdin>", 0):
        return "standard input"
    return name if isinstance(name, str) else "a binary file object"


def copy_stream(path: BulkFile, folder: Path, number: int) -> SourceFile:
    """The bulk file the stream ``path`` carries (``-``: standard input; a binary file object, read from where
    it stands and left open), copied into ``folder`` and sniffed (:func:`sniff`, as soon as its first megabyte is
    in: a stream that is no bulk file is refused at once); at most :data:`~oracle_tools.store.object_limits.STREAM_BYTES`.
    Its messages and records name ``path`` as given."""
    given = _stream_name(path)
    copy = folder / f"stream-{number}"
    folder.mkdir(exist_ok=True)
    try:  # a path opened non-blocking (a FIFO is not waited on to open); a file object is read by its own read
        fd = None if not isinstance(path, Path) else 0 if str(path) == STDIN else os.open(path, _NO_WAIT)
    except OSError as exc:
        raise IngestError(f"{given}: cannot be read ({exc.strerror}); check the path and its permissions.") from None
    sniffed: SourceFile | None = None
    try:
        if os.isatty(fd) if fd is not None else path.isatty():  # type: ignore[union-attr]  # fd None: a file object
            raise IngestError(
                f"{given}: is a terminal, not a bulk file; pipe the file in (zcat cards.json.gz | oracle-tools "
                "ingest --bulk-file -) or give its path."
            )
        read: Callable[[int], bytes]
        piece: bytes | None
        if fd is None:  # from where the file object stands, what it holds read ahead too
            piece, read = None, path.read  # type: ignore[union-attr]
        else:
            piece, read = _first_piece(fd, given), functools.partial(os.read, fd)
        copied = 0
        with open(copy, "wb") as out:
            while True:
                if piece is None:
                    piece = read(_STREAM_HEAD)  # blocking: Ctrl-C stops it
                    if not isinstance(piece, bytes | bytearray | memoryview):
                        raise IngestError(
                            f"{given}: is opened as text; open the bulk file in binary mode ('rb') or give its path."
                        )
                if piece:
                    out.write(piece)
                    copied += len(piece)
                    if copied > object_limits.STREAM_BYTES:
                        raise IngestError(
                            f"{given}: is a stream longer than {object_limits.STREAM_BYTES >> 30} GB, which no Scryfall "
                            "bulk file is (or it never ends); check what writes it. Nothing was replaced."
                        )
                if sniffed is None and (copied >= _STREAM_HEAD or not piece):
                    out.flush()
                    sniffed = _sniff_copy(copy, given)
                if not piece:
                    break
                piece = None
    except OSError as exc:
        _raise_if_disk_full(exc)
        raise IngestError(f"{given}: cannot be read ({exc.strerror or exc}). Nothing was replaced.") from None
    finally:
        if fd is not None and fd != 0:  # a file object stays its caller's, open
            os.close(fd)
    assert sniffed is not None  # the loop ends only at the end of the stream, sniffed by then
    return sniffed


def _sniff_copy(copy: Path, given: str) -> SourceFile:
    named = _BULK_NAME.search(given)
    try:
        found = sniff(copy, bulk_type=named.group(1).lower().replace("-", "_") if named else None)
    except IngestError as exc:
        raise IngestError(str(exc).replace(str(copy), given)) from None
    return replace(found, given_as=given)


def _columns_literal(columns: dict[str, str]) -> str:
    # Built only from the constant schemas above, never from user text.
    return "{" + ", ".join(f"'{name}': '{sqltype}'" for name, sqltype in columns.items()) + "}"


def temp_files(db_path: Path) -> list[tuple[Path, bool]]:
    """The files ingests are building beside ``db_path`` (``<db>.ingest-PID.tmp`` and DuckDB's files beside it:
    ``.tmp.wal``, ``.tmp.wal.checkpoint``, the ``.tmp.spill`` folder), each with whether its ingest still runs:
    the others were left by killed ingests, and the next ingest removes them."""
    db_path = Path(os.path.realpath(db_path))
    found = []
    for candidate in sorted(db_path.parent.glob(db_path.name + ".ingest-*.tmp*")):
        pid_text, _, rest = candidate.name.split(".ingest-", 1)[1].partition(".")
        if pid_text.isdigit() and (rest == "tmp" or rest.startswith("tmp.")):
            found.append((candidate, _pid_alive(int(pid_text))))
    return found


def _pid_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs. A zombie (killed, not yet reaped by its parent) answers ``kill(pid,
    0)`` as a live process would, but runs no more: on Linux its state in /proc/PID/stat is Z (or X)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            state = stat.read().rpartition(b")")[2].split()[:1]  # after the name, which may hold ") "
    except FileNotFoundError:  # ended meanwhile (Linux), or no /proc at all (macOS: kill's answer stands)
        return not os.path.exists("/proc/self/stat")
    except OSError:
        return True
    return state not in ([b"Z"], [b"X"])


#: A new database with fewer than this share of the cards of the one it replaces is refused (a truncated or
#: wrong source that still parses) unless the ingest is told to replace anyway.
MIN_KEPT_SHARE = 0.5


def lock_path(db_path: Path) -> Path:
    """The lock file of ``db_path``'s ingests while one runs (it holds the pid of the ingest holding it)."""
    return db_path.with_name(db_path.name + ".ingest.lock")


class _IngestLock:
    """One ingest at a time per database: an exclusive lock (``flock``) on a file beside it for the whole
    ingest, the swap included. A second ingest fails at once naming the holder, or with ``wait`` says so and
    waits. The lock goes with the process, however it ends (kill -9 too), so no stale lock is ever held.

    The file exists only while an ingest runs: the holder removes it before it lets go (a file left by a killed
    ingest or by an older version, which kept it, is taken over and removed the same way). An ingest that
    opened the file before it was removed then holds a lock on a file no longer at the path, which excludes
    nobody: so a lock counts only when the path still names the file locked, else it is taken again on the
    file now there."""

    def __init__(self, db_path: Path, *, wait: bool) -> None:
        self.path = lock_path(db_path)
        self.wait = wait
        self._file: Any = None

    def __enter__(self) -> _IngestLock:
        import fcntl

        said_waiting = False
        while True:
            self._file = open(self.path, "a+", encoding="utf-8")  # held until __exit__
            try:
                fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                self._file.seek(0)
                holder = self._file.read().strip() or "another process"
                if not self.wait:
                    self._file.close()
                    raise IngestError(
                        f"another ingest (pid {holder}) is writing {self.path.name.removesuffix('.ingest.lock')}; "
                        "wait for it to finish, or rerun with --wait to wait for it"
                    ) from None
                if not said_waiting:
                    print(f"waiting for the ingest of pid {holder} to finish…", file=sys.stderr, flush=True)
                    said_waiting = True
                fcntl.flock(self._file, fcntl.LOCK_EX)
            if self._names_the_locked_file():
                break
            self._file.close()  # its holder removed it as it finished: lock the file now at the path
        self._file.seek(0)
        self._file.truncate()
        self._file.write(str(os.getpid()))
        self._file.flush()
        return self

    def _names_the_locked_file(self) -> bool:
        try:
            at_path = os.stat(self.path)
        except FileNotFoundError:
            return False
        held = os.fstat(self._file.fileno())
        return (at_path.st_dev, at_path.st_ino) == (held.st_dev, held.st_ino)

    def __exit__(self, *exc: object) -> None:
        import fcntl

        try:
            self.path.unlink(missing_ok=True)  # removed while still locked: no one can hold it in between
        except OSError:  # another user's file in a sticky folder (/tmp): leave it, empty
            self._file.seek(0)
            self._file.truncate()
        fcntl.flock(self._file, fcntl.LOCK_UN)
        self._file.close()


def _remove(path: Path) -> None:
    """An ingest's temp database and DuckDB's files beside it (its log, the log's checkpoint marker, spills)."""
    for leftover in (
        path,
        Path(str(path) + ".wal"),
        Path(str(path) + ".wal.checkpoint"),
        stored_names.names_path(path),
    ):
        leftover.unlink(missing_ok=True)
    shutil.rmtree(str(path) + ".spill", ignore_errors=True)


def _remove_leftover(path: Path) -> None:
    """One file or folder :func:`temp_files` found."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


#: DuckDB's memory during an ingest; what is over it spills to ``<db>.ingest-PID.tmp.spill``. Python's own
#: (the names, references and tokens frames) comes on top. Peak RSS at 256 MB (and at 512 MB): the 2019 dump
#: 453–475 MB (467–508), 16 copies of it (730k printings, all_cards' size) 517 MB (773), the real files 615–617 MB
#: (763–770); for up to a tenth more CPU on the large inputs, where the core tables and the kept objects spill, and
#: ~5 % on the dump (docs/performance.md, "Ingest"). At 192 MB the core tables of 16 copies no longer fit (DuckDB's
#: "failed to pin block"); DuckDB's default (80 % of the machine's memory) let them reach 2 GB.
INGEST_MEMORY_LIMIT = "256MB"
#: An ingest whose files need more than INGEST_MEMORY_LIMIT (DuckDB's "Out of Memory Error": what must be held at
#: once grows with the files) is run again once with this, said in the report: never less than the 512 MB every
#: earlier release built with.
INGEST_MEMORY_RETRY = "1GB"


def read_side_files(rules_file: Path | None, interchangeable_file: Path | None) -> RulesDocument | None:
    """Read and check the small files a user names beside the card files (``--rules-file``,
    ``--interchangeable-file``) before any card file is opened: a typo in one is one line at once, not after the
    minutes a card build takes. Returns the parsed rules (stored by the build, so the file is read once); the
    interchangeable-names file (about 1 kB) is read again where the names are built."""
    rules = None
    if rules_file is not None:
        from oracle_tools.text.comprules import load_rules

        rules = load_rules(rules_file)
    if interchangeable_file is not None:
        from oracle_tools.names.build import read_interchangeable_file

        try:
            read_interchangeable_file(interchangeable_file)
        except OSError as exc:  # missing, a directory, unreadable: the file a user named is never left out
            raise IngestError(
                f"{interchangeable_file}: cannot read the interchangeable-names file ({exc.strerror or exc}); "
                "check the path and its permissions."
            ) from None
    return rules


class Ingest:
    """One ingest run into a temporary database, swapped in on success."""

    def __init__(
        self,
        db_path: Path,
        *,
        progress: bool = True,
        memory_limit: str | None = None,
        interchangeable_file: str | os.PathLike[str] | None = None,
        wait: bool = False,
        replace_anyway: bool = False,
    ) -> None:
        # Resolved once: through a symlink the lock, the temp file and the swap act on the real file (a swap of the
        # link's name would put a regular file in its place and leave the real database stale).
        self.db_path = Path(os.path.realpath(db_path))
        self.wait = wait
        self.replace_anyway = replace_anyway
        self._previous_cards = 0
        self._previous_rulings = 0
        self.interchangeable_file = Path(interchangeable_file) if interchangeable_file else None
        self.progress = progress
        # DuckDB's memory: INGEST_MEMORY_LIMIT unless given, then INGEST_MEMORY_RETRY once if that was too little
        self.memory_limit = memory_limit or INGEST_MEMORY_LIMIT
        self._memory_retry = INGEST_MEMORY_RETRY if memory_limit is None else None
        self.report = IngestReport(db_path=self.db_path)
        self._run_rows: list[tuple] = []
        self._started = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        self._stop = StopOnSignals()
        self._replacing_damaged = False
        self._side_files: tuple[Path | None, RulesDocument | None] | None = None  # (rules_file, its parse)
        self._dropped: set[str] = set()  # printings a field was dropped from (store/card_fields.py)

    def check_side_files(self, rules_file: Path | None) -> None:
        """:func:`read_side_files` for ``rules_file`` and the interchangeable-names file, once: call it before
        sniffing the card files (which opens them); :meth:`run` calls it when nobody did."""
        if self._side_files is None or self._side_files[0] != rules_file:
            self._side_files = (rules_file, read_side_files(rules_file, self.interchangeable_file))

    def run(self, sources: Sequence[SourceFile], *, rules_file: Path | None = None) -> IngestReport:
        """Build and swap in the new database. SIGINT (Ctrl-C) or SIGTERM stops the run at once, removes its files
        and keeps the old database as it was: :class:`~oracle_tools.store.stopping.Stopped` (a KeyboardInterrupt)."""
        self.check_side_files(rules_file)
        userfiles.check_database_path(self.db_path)
        self._check_is_database()
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        with StopOnSignals() as self._stop:
            try:
                with _IngestLock(self.db_path, wait=self.wait):
                    return self._run(sources, rules_file)
            except BaseException as exc:
                # Cleaning up: once more, out of reach of a second Ctrl-C (which may have cut the first cleanup short).
                self._stop.armed = False
                _remove(self._temp_path())
                # DuckDB turns a signal it noticed itself into its own error ("Query interrupted", an
                # InterruptException, or the IngestError a step made of it): the signal is what stopped the run.
                if self._stop.received is not None and not isinstance(exc, Stopped):
                    raise Stopped(self._stop.received) from None
                raise

    def _check_is_database(self) -> None:
        """Refuse a --db that names a file of another kind (a Scryfall gzip, JSON) before anything is written:
        it is no damaged database, so not even --replace-anyway writes over it. An empty file holds no one's
        data: the new database is built in its place (as into a path that does not exist yet)."""
        kind = sqlfiles.not_a_database(self.db_path)
        if kind is None or kind == sqlfiles.EMPTY_FILE:
            return
        card_file = " (a card file goes after --bulk-file)" if kind in ("a gzip file", "JSON text") else ""
        raise IngestError(
            f"--db {self.db_path}: is {kind}, not a DuckDB database{card_file}, so the ingest does not write over "
            "it, not even with --replace-anyway; nothing was written. Give --db a new path (such as "
            "data/oracle.duckdb) or an oracle-tools database."
        )

    @property
    def _rules_read(self) -> RulesDocument | None:
        """The parse of ``--rules-file`` :meth:`check_side_files` made (None: no rules file was given)."""
        return self._side_files[1] if self._side_files is not None else None

    def _temp_path(self) -> Path:
        """The new database this process builds beside the old one (see :func:`temp_files`)."""
        return self.db_path.with_name(f"{self.db_path.name}.ingest-{os.getpid()}.tmp")

    def _run(self, sources: Sequence[SourceFile], rules_file: Path | None) -> IngestReport:
        card_files = [s for s in sources if s.kind == "cards"]
        ruling_files = [s for s in sources if s.kind == "rulings"]
        set_files = [s for s in sources if s.kind == "sets"]
        previous = self.db_path if self.db_path.exists() and not self._replacing_damaged else None
        if previous is not None and sqlfiles.not_a_database(previous) == sqlfiles.EMPTY_FILE:
            previous = None  # an empty file: nothing to carry over, the new database takes its place
        if not card_files and previous is None:
            raise IngestError(
                f"no card files to ingest and no database at {self.db_path} to add to; "
                "give --bulk-file with Scryfall card objects, --sample, or ingest from the Scryfall API."
            )
        for leftover, running in temp_files(self.db_path):
            if not running:  # left by a killed ingest
                _remove_leftover(leftover)
        tmp = self._temp_path()
        _remove(tmp)
        started = time.perf_counter()
        try:
            # Settings go in through the config (no SQL text built from paths); the spill folder
            # lets a bulk file larger than memory_limit ingest without growing the process.
            con = duckdb.connect(
                str(tmp),
                config={
                    "memory_limit": self.memory_limit,
                    "temp_directory": str(tmp) + ".spill",
                    "preserve_insertion_order": False,
                },
            )
            self._stop.add(con.interrupt)  # a signal ends the statement under way at once
            try:
                self._build(con, card_files, ruling_files, set_files, previous, rules_file)
                self._check_not_shrunk(con, card_files)
                self._check_rulings_not_shrunk(con, ruling_files)
                con.execute("CHECKPOINT")
            finally:
                con.close()
            self._write_names_file(tmp)
            # A write-ahead log beside the old file belongs to it (no reader writes one; the lock keeps other
            # ingests out): applied to the new file it would make every reader fail, so it goes with the old
            # file, and goes first, so a reader never sees the new file beside it.
            if self._stop.received is not None:  # its Stopped was swallowed (raised in a callback Python ignores)
                raise Stopped(self._stop.received)
            self._stop.armed = False  # built and checked: a signal now no longer undoes the run
            Path(str(self.db_path) + ".wal").unlink(missing_ok=True)
            # the names file first: beside the old database it is stale (its stamp is the new file's), never wrong
            names_file = stored_names.names_path(self.db_path)
            try:
                os.replace(stored_names.names_path(tmp), names_file)
            except IsADirectoryError:  # said of the temp file it would have moved
                raise IngestError(
                    f"{names_file} is a folder, where the ingest puts the database's names file; move it away and "
                    "run the ingest again. Nothing was replaced."
                ) from None
            os.replace(tmp, self.db_path)
        except BaseException as exc:
            _remove(tmp)
            stopped = self._stop.received is not None  # a signal's interrupt fails DuckDB's statement too
            if _out_of_memory(exc) and not stopped:
                # An object past the size or depth limits (a compression bomb) fills DuckDB's memory wherever the
                # build is when it does, maybe before keep has found it: said as what it is, not as memory
                _check_card_objects(s for s in sources if s.kind == "cards")
            if _out_of_memory(exc) and not stopped and self._memory_retry is not None:
                tried, self.memory_limit, self._memory_retry = self.memory_limit, self._memory_retry, None
                self._start_over()
                self.report.warnings.append(
                    f"these files needed more than the {tried} of memory an ingest gives DuckDB unless told "
                    f"({_first_line(exc)}): built again with {self.memory_limit}"
                )
                return self._run(sources, rules_file)
            if _out_of_memory(exc) and not stopped:
                raise IngestError(
                    f"building the database needed more than the {self.memory_limit} of memory the ingest gave DuckDB "
                    f"({_first_line(exc)}). Nothing was replaced. From Python, Ingest(memory_limit=...) gives it more."
                ) from None
            damage = _damage(previous) if previous and isinstance(exc, duckdb.Error) and not stopped else None
            if damage is None:
                raise
            if not self.replace_anyway:
                raise IngestError(
                    f"{self.db_path} is damaged ({damage}), so it cannot be read or added to; rerun with "
                    "--replace-anyway to replace it with a new database (its change history goes with it), or move "
                    "it away. Nothing was replaced."
                ) from None
            # Asked for: build as into an empty place, then swap it in over the damaged file.
            self._replacing_damaged = True
            self._start_over()
            self.report.warnings.append(f"replaced {self.db_path}, which was damaged ({damage}); its history is gone")
            return self._run(sources, rules_file)
        self.report.seconds = time.perf_counter() - started
        return self.report

    def _start_over(self) -> None:
        """Forget what a failed build found, before the run is built again."""
        self._run_rows.clear()
        self.report = IngestReport(db_path=self.db_path)
        self._previous_cards = 0
        self._previous_rulings = 0
        self._dropped.clear()

    def _write_names_file(self, tmp: Path) -> None:
        """The names file of the finished database ``tmp`` (``names.stored``: what ``resolve`` reads in a fresh
        process without DuckDB), written beside it and stamped with it; the two are put in place together."""
        import errno
        import sqlite3

        target = stored_names.names_path(tmp)
        try:
            stored_names.write(tmp, target)
        except sqlite3.OperationalError as exc:  # SQLite words a full disk its own way: said as every full disk is
            if "disk is full" not in str(exc):
                raise
            raise OSError(errno.ENOSPC, f"No space left on device (writing {target})") from None

    # -- steps ---------------------------------------------------------------------------------

    def _build(
        self,
        con: duckdb.DuckDBPyConnection,
        card_files: list[SourceFile],
        ruling_files: list[SourceFile],
        set_files: list[SourceFile],
        previous: Path | None,
        rules_file: Path | None,
    ) -> None:
        # DuckDB's own bar shows progress inside one long read; tqdm shows the steps.
        try:
            # DuckDB draws its bar on standard output: only into a terminal, never into a report or JSON file
            shown = self.progress and sys.stdout.isatty()
            con.execute("SET enable_progress_bar = true" if shown else "SET enable_progress_bar = false")
        except duckdb.InvalidInputException:
            pass  # inside Jupyter without ipywidgets DuckDB refuses any progress-bar setting; it is cosmetic
        con.execute(sqlfiles.load("schema.sql"))
        schema_version.write(con)
        con.execute(sqlfiles.load("macros.sql"))
        from oracle_tools.store import layouts

        layouts.build(con)  # what each Scryfall layout is: build_core.sql joins it
        if previous is not None:
            try:
                con.execute(f"ATTACH ? AS {PREVIOUS_CATALOG} (READ_ONLY)", [str(previous)])
            except duckdb.Error as exc:
                if not sqlfiles.is_foreign_wal(exc):
                    raise
                # the old file's log is stale: the old database as it was checkpointed is what it holds
                Path(str(previous) + ".wal").unlink()
                self.report.warnings.append(f"removed {previous}.wal, a write-ahead log that did not match it")
                con.execute(f"ATTACH ? AS {PREVIOUS_CATALOG} (READ_ONLY)", [str(previous)])
            if self._newer_replaced(con):
                previous = None  # asked for: built as into an empty place
            elif not card_files:
                self._check_cards_can_be_kept(con)
            try:  # how many cards the replaced database holds (for _check_not_shrunk)
                self._previous_cards = (
                    con.cursor()
                    .execute(f"SELECT count(*) FILTER (WHERE is_card) FROM {PREVIOUS_CATALOG}.main.cards")
                    .fetchall()[0][0]
                )
            except duckdb.Error:
                self._previous_cards = 0  # not a database of cards (an ingest will say so) or a very old one
            try:  # how many rulings it holds (for _check_rulings_not_shrunk)
                self._previous_rulings = (
                    con.cursor().execute(f"SELECT count(*) FROM {PREVIOUS_CATALOG}.main.rulings").fetchall()[0][0]
                )
            except duckdb.Error:
                self._previous_rulings = 0
        steps = len(card_files) + len(ruling_files) + len(set_files) + 3
        with (
            tqdm(total=steps, desc="ingest", unit="step", disable=not self.progress, leave=False) as bar,
            _SecondConnection(con) as second,
            _SecondConnection(con) as keeper,
        ):
            self._stop.add(second.interrupt)
            self._stop.add(keeper.interrupt)
            from oracle_tools.text import (
                stored_rules as rules,  # the CR does not depend on the cards: it is read while they are
            )

            rules_stored = second.submit(
                lambda c: rules.store(
                    c, rules_file, keep_previous=previous is not None and rules_file is None, document=self._rules_read
                )
            )
            second.submit(_warm_up)
            # the kept objects' compression dictionary, trained while the cards are staged (keep runs later)
            trained = second.submit(lambda c: scryfall_objects.train(str(card_files[0].path))) if card_files else None
            if card_files:
                con.execute(f"ATTACH ':memory:' AS {STAGE_CATALOG}")
                self._stage_cards(con, card_files, bar)
                bar.set_description("building cards, faces, printings")
                self._build_core(con, second, rules_stored)
                con.execute(f"DETACH {STAGE_CATALOG}")
                # Each printing's whole object, kept while the names, references and tokens are read (Python,
                # mostly one core): nothing in the ingest reads it, so it is waited for at the end. It also refuses
                # a file with an object too large or too deep to keep and serve (store/object_limits.py), found while
                # compressing.
                dictionary = trained.result() if trained is not None else None
                objects_kept = keeper.submit(
                    lambda c: scryfall_objects.keep(
                        c,
                        [scryfall_objects.CardFile(str(f.path), f.json_format, f.compression) for f in card_files],
                        dictionary,
                    )
                )
            else:
                self._keep(con, (*CARD_TABLES, *scryfall_objects.TABLES))
            # Each card's preferred printing and the per-face values searches compare: read by search and
            # cardjson only, so built while the names are read.
            second.submit(lambda c: c.execute(sqlfiles.load("preferred_printings.sql")))
            second.submit(lambda c: c.execute(sqlfiles.load("search_faces.sql")))
            # which files give the cards their legalities: deck check's header reads it (OracleDB.legalities_source)
            second.submit(lambda c: c.execute(sqlfiles.load("legalities_files.sql")))
            bar.update(1)
            if ruling_files:
                self._load_rulings(con, ruling_files, bar)
                self._warn_rulings_without_card(con, ruling_files)
            elif previous is not None:
                self._keep(con, ("rulings",))
            if set_files:
                self._load_sets(con, set_files, bar)
            elif previous is not None:  # sets do not go away: the list an earlier ingest was given still holds
                self._keep(con, ("scryfall_sets",), missing_ok=True)
            if rules_file is not None:
                self._run_rows.append(("rules-file", "rules", str(rules_file), None, None, None, 0.0))
            bar.update(1)
            bar.set_description("names, tokens")
            self._build_layers(con, second, rules_stored)
            # The runs and the change history (which never read the kept objects) while the keep finishes.
            self._record_runs(con, previous)
            from oracle_tools.history import (
                changes,  # what changed since the database this one replaces, written before the swap
            )

            changes.record(con, PREVIOUS_CATALOG if previous is not None else None)
            from oracle_tools.names import build as names

            names.add_former_names(con, changes.renames(con))  # a renamed card's former names (via former)
            if card_files:
                self._objects_kept(objects_kept)
                if self._dropped:  # the kept objects lose the fields the stage dropped
                    scryfall_objects.rewrite(con, sorted(self._dropped), card_fields.without_dropped)
            bar.update(1)
        if previous is not None:
            con.execute(f"DETACH {PREVIOUS_CATALOG}")
        self.report.tables = {  # tables: counting the views costs ~0.1 s
            t: con.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0][0]  # table names from the catalog
            for t in sqlfiles.table_names(con)
        }

    @staticmethod
    def _objects_kept(kept: Future[None]) -> None:
        """The card objects are kept; a failure as one line (a file past store/object_limits.py's limits: its own)."""
        try:
            kept.result()
        except duckdb.Error as exc:
            _raise_if_disk_full(exc)
            raise IngestError(
                f"the card files cannot be kept as Scryfall card objects: {_first_line(exc)}. Nothing was replaced."
            ) from None

    def _build_layers(
        self, con: duckdb.DuckDBPyConnection, second: _SecondConnection, rules_stored: Future[None]
    ) -> None:
        """The layers derived from the core tables: names (CR 201), name mentions, then tokens (CR 111)."""
        from oracle_tools.names import build as names
        from oracle_tools.tokens import build as tokens

        classes = names.build(con, self.interchangeable_file, store_classes=False)
        # The CR 201.3 classes (read by the tokens' name lookups, not by the name mentions), then the indexes
        # of single lookups (oracle_tools/names/point.py); nothing below changes names or name_classes.
        classes_stored = second.submit(lambda c: names.write_classes(c, classes))
        second.submit(lambda c: c.execute(sqlfiles.load("lookup_indexes.sql")))
        from oracle_tools.names import (
            references,  # name mentions in Oracle text (CR 201.5, 201.5c), read by oracletext.py
        )

        references.build(con)
        classes_stored.result()
        rules_stored.result()  # tokens read CR 111.10 from the stored rules
        tokens.build(con)  # after references: token names are read from the name_references spans (CR 111.4, 111.9)
        from oracle_tools.choose import chooser as choose

        # After tokens: the kinds of non-card names choose-name refuses (CR 201.4); no view reads them.
        second.submit(choose.build)
        from oracle_tools.store import views  # analyst views over every layer: after all of them

        views.build(con)
        second.wait()

    def _build_core(
        self, con: duckdb.DuckDBPyConnection, second: _SecondConnection, rules_stored: Future[None]
    ) -> None:
        """cards, faces and legalities here while the second connection builds printings; then parts. Between
        the representatives and the cards, the keywords the representatives lack, by the stored rules."""
        con.execute(_staged_sql("build_stage.sql"))
        # A layout Scryfall added after this table was written still loads (a card, generic face roles): said once.
        for layout, count in con.execute(
            f"SELECT layout, count(*) FROM {STAGE_CATALOG}.main.stage_dedup "
            "WHERE layout NOT IN (SELECT layout FROM layouts) GROUP BY layout ORDER BY layout"
        ).fetchall():
            self.report.warnings.append(
                f"{count:,} object{'s' if count != 1 else ''} with layout {layout!r}, which oracle-tools does not "
                "know, loaded as cards with the generic face roles (see oracle_tools/store/layouts.py)"
            )
        printings_built = second.submit(lambda c: c.execute(_staged_sql("build_printings.sql")))
        representatives, tables = re.split(r"^-- name: cards$", _staged_sql("build_core.sql"), flags=re.M)
        con.execute(representatives)
        rules_stored.result()  # stored before the printings were begun (the second connection runs in order)
        _derive_keywords(con)
        con.execute(tables)
        printings_built.result()
        con.execute(_staged_sql("build_parts.sql"))

    def _check_not_shrunk(self, con: duckdb.DuckDBPyConnection, card_files: list[SourceFile]) -> None:
        """Refuse to replace a database with one holding far fewer cards (a bad source that still parses)."""
        if card_files:
            count = "SELECT count(*) FILTER (WHERE is_card) FROM cards"
            self._refuse_shrinking("card", self._previous_cards, con.execute(count).fetchall()[0][0], card_files)

    def _check_rulings_not_shrunk(self, con: duckdb.DuckDBPyConnection, ruling_files: list[SourceFile]) -> None:
        """The same refusal for the rulings: a ruling file replaces every ruling the old database held, so a
        small or wrong one (one ruling, another kind of file) would lose them all."""
        if ruling_files:
            count = "SELECT count(*) FROM rulings"
            self._refuse_shrinking("ruling", self._previous_rulings, con.execute(count).fetchall()[0][0], ruling_files)

    def _refuse_shrinking(self, what: str, before: int, now: int, files: list[SourceFile]) -> None:
        """Refuse (unless --replace-anyway) a new database holding fewer than MIN_KEPT_SHARE of the old one's
        ``what``s, built from ``files``."""
        if self.replace_anyway or not before or now >= before * MIN_KEPT_SHARE:
            return
        raise IngestError(
            f"refusing to replace {self.db_path} ({before:,} {what}s) with a database of {now:,} "
            f"{what}{'s' if now != 1 else ''} built from {', '.join(f.short for f in files)}: that would lose "
            f"{before - now:,} {what}s. Check the source files, or rerun with --replace-anyway if that is what "
            "you want. Nothing was replaced."
        )

    def _warn_rulings_without_card(self, con: duckdb.DuckDBPyConnection, ruling_files: list[SourceFile]) -> None:
        """Say so when rulings name an Oracle id no card in the new database has: they are kept, but no card
        shows them (a rulings file of another dump, or cards left out of the card files)."""
        count, first = con.execute(
            "SELECT count(*), min(oracle_id) FROM rulings WHERE oracle_id NOT IN (SELECT oracle_id FROM cards)"
        ).fetchall()[0]
        if count:
            files = ", ".join(f.short for f in ruling_files)
            self.report.warnings.append(
                f"{files}: {count:,} ruling{'s name an Oracle id' if count != 1 else ' names an Oracle id'} that no "
                f"card in the database has (the first: {first}); kept, but no card shows "
                f"{'them' if count != 1 else 'it'}; ingest rulings with the card files of the same Scryfall dump"
            )

    def _stage_cards(self, con: duckdb.DuckDBPyConnection, files: list[SourceFile], bar: tqdm) -> None:
        # read with the raw types the field rules test (store/card_fields.py), staged with the columns' types
        raw = _columns_literal({**CARD_COLUMNS, **card_fields.RAW_TYPES})
        con.execute(f"""CREATE TABLE {STAGE_CATALOG}.main.stage_cards AS
            SELECT *, 0 AS file_order, false AS is_oracle_file, ''::VARCHAR AS source_file,
                   0 AS field_problems
            FROM read_json('/dev/null', format = 'array', columns = {_columns_literal(CARD_COLUMNS)}) LIMIT 0""")
        for order, source in enumerate(files):
            bar.set_description(f"reading {source.path.name}")
            started = time.perf_counter()
            try:
                con.execute(
                    f"""INSERT INTO {STAGE_CATALOG}.main.stage_cards BY NAME
                        SELECT {card_fields.staged_select()}, ? AS file_order, ? AS is_oracle_file, ? AS source_file
                        FROM read_json(?, format = '{source.json_format}', columns = {raw},
                                       maximum_object_size = {scryfall_objects.MAX_OBJECT_BYTES},
                                       compression = '{object_limits.checked_compression(source.compression)}')""",
                    [order, source.is_oracle, source.shown, str(source.path)],
                )
            except duckdb.Error as exc:
                _raise_if_disk_full(exc)
                if "JSON transform error" in str(exc):  # a value of a type the reader does not take: which one
                    self._refuse_broken_field(source)
                raise _unreadable(source.path, "card", exc) from None
            bad = con.execute(
                f"SELECT count(*), any_value(coalesce(object, '(missing)')) FROM {STAGE_CATALOG}.main.stage_cards "
                "WHERE file_order = ? AND (object IS DISTINCT FROM 'card' OR id IS NULL)",
                [order],
            ).fetchall()[0]
            if bad[0]:
                raise IngestError(
                    f"{source.path}: {bad[0]} object(s) are not Scryfall card objects (object = {bad[1]!r} "
                    "or no id); a bulk file must hold only card objects. Nothing was replaced."
                )
            self._check_fields(con, source, order)
            # CR 201.2: every card has a name; each text field at most object_limits.FIELD_CHARS
            oversized = con.execute(
                object_limits.first_oversized_field_sql(f"{STAGE_CATALOG}.main.stage_cards"), [order]
            ).fetchall()
            if oversized:
                card_id, (field_name, chars) = oversized[0]
                raise object_limits.field_error(source.path, card_id, field_name, chars)
            twice = con.execute(
                f"SELECT id FROM {STAGE_CATALOG}.main.stage_cards WHERE file_order = ? GROUP BY id "
                "HAVING count(*) > 1 LIMIT 1",
                [order],
            ).fetchall()
            if twice:
                raise IngestError(
                    f"{source.path}: the printing {twice[0][0]} is in the file twice; a bulk file holds each printing "
                    "once, so the file is damaged or not Scryfall's. Nothing was replaced."
                )
            self._warn_without_oracle_id(con, source, order)
            rows = con.execute(
                f"SELECT count(*) FROM {STAGE_CATALOG}.main.stage_cards WHERE file_order = ?", [order]
            ).fetchall()[0][0]
            if order:
                # A printing id seen in an earlier file is kept once: the later file wins.
                con.execute(
                    f"DELETE FROM {STAGE_CATALOG}.main.stage_cards WHERE file_order < ? AND id IN "
                    f"(SELECT id FROM {STAGE_CATALOG}.main.stage_cards WHERE file_order = ?)",
                    [order, order],
                )
            self._note(source, rows, time.perf_counter() - started)
            bar.update(1)
        self._merge_synthetic_ids(con)

    def _refuse_broken_field(self, source: SourceFile) -> None:
        """Raise the one line naming the first card object of ``source`` that breaks a ``refuse`` rule of the field
        rules (store/card_fields.py); return when none does (another fault: the caller says DuckDB's)."""
        found = card_fields.first_broken(str(source.path), source.json_format, source.compression)
        if found is not None:
            place, card, rule, value = found
            raise card_fields.refusal(source.path, card, place, rule, value) from None

    def _check_fields(self, con: duckdb.DuckDBPyConnection, source: SourceFile, order: int) -> None:
        """The field rules the stage tested (store/card_fields.py): a broken ``refuse`` rule refuses the file in one
        line; a broken ``drop`` rule was staged as null, is said in one warning per field, and its cards' kept
        objects lose the field once they are kept (``scryfall_objects.rewrite``)."""
        stage = f"{STAGE_CATALOG}.main.stage_cards"
        found = con.execute(card_fields.problems_sql(stage), [order]).fetchall()
        if not found:
            return
        problems = {field: (count, first) for field, count, first in found}
        refused = [r for r in card_fields.RULES if r.field in problems and r.action == card_fields.REFUSE]
        if refused:
            self._refuse_broken_field(source)  # the first object breaking a rule, read from the file
            exact = [r for r in refused if r.field not in card_fields.SUSPECTED]  # (a suspected string was one)
            if exact:  # the objects read in Python found none: said from the stage
                count, first = problems[exact[0].field]
                raise IngestError(
                    f'{source.path}: card {card_fields.shown(first)}: field "{exact[0].field}" is not '
                    f"{exact[0].expect} ({count:,} card{'s' if count != 1 else ''}); the file is damaged or not "
                    "Scryfall's. Nothing was replaced."
                )
        dropped = [r for r in card_fields.RULES if r.field in problems and r.action == card_fields.DROP]
        for rule in dropped:
            count, first = problems[rule.field]
            self.report.warnings.append(card_fields.drop_warning(source.path, rule, count, first))
        if dropped:
            self._dropped.update(
                card_id
                for (card_id,) in con.execute(
                    card_fields.rows_breaking_sql(stage, [r.field for r in dropped]), [order]
                ).fetchall()
            )

    def _merge_synthetic_ids(self, con: duckdb.DuckDBPyConnection) -> None:
        """One Oracle card per identity when sources are combined: a card object whose Oracle id the trimmed list's
        converter made up from its name (store/synthetic_ids.py) takes the real Oracle id of the card of that name
        in another file, so the same card is never two. A name several real Oracle cards print (Unstable's Sly
        Spies) is merged only into the one with the same Oracle text, else kept apart; two real ids are never
        merged. The report says what was merged."""
        from oracle_tools.store.synthetic_ids import is_trimmed_oracle_id

        stage = f"{STAGE_CATALOG}.main.stage_cards"
        # Only a version-5 uuid (a made-up id; Scryfall's are random, version 4) can be one: the names and texts
        # of every card are read only when a file has such ids (the trimmed list)
        candidates = con.execute(
            f"SELECT DISTINCT name, oracle_id FROM {stage} WHERE oracle_id LIKE '________-____-5%' AND name IS NOT NULL"
        ).fetchall()
        if not any(is_trimmed_oracle_id(oid, name) for name, oid in candidates):
            return
        signature = (
            "coalesce(oracle_text, '') || '|' || "
            "coalesce(array_to_string(list_transform(card_faces, lambda f: coalesce(f.oracle_text, '')), '|'), '')"
        )
        rows = con.execute(
            f"SELECT DISTINCT name, oracle_id, {signature} FROM {stage} WHERE oracle_id IS NOT NULL AND name IS NOT NULL"
        ).fetchall()
        made_up = {(name, oid): text for name, oid, text in rows if is_trimmed_oracle_id(oid, name)}
        if not made_up:
            return
        real: dict[str, dict[str, set[str]]] = {}  # name -> real oracle_id -> its texts
        for name, oid, text in rows:
            if (name, oid) not in made_up:
                real.setdefault(name, {}).setdefault(oid, set()).add(text)
        merges: dict[str, str] = {}
        apart: list[str] = []
        for (name, oid), text in made_up.items():
            ids = real.get(name)
            if not ids:
                continue  # a card no other file has: its made-up id stays its only one
            if len(ids) == 1:
                merges[oid] = next(iter(ids))
                continue
            same_text = [real_id for real_id, texts in ids.items() if text in texts]
            if len(same_text) == 1:
                merges[oid] = same_text[0]
            else:
                apart.append(name)
        if merges:
            con.execute(
                f"UPDATE {stage} SET oracle_id = m.real_id FROM (SELECT unnest($made) AS made_up, unnest($real) AS "
                f"real_id) m WHERE {stage}.oracle_id = m.made_up",
                {"made": list(merges), "real": list(merges.values())},
            )
            named = sorted(name for (name, oid) in made_up if oid in merges)
            self.report.warnings.append(
                f"{len(merges):,} card{'s' if len(merges) != 1 else ''} with an Oracle id made up by the trimmed list's "
                "converter (scripts/make_sample.py --trimmed-to-cards) are the same Oracle card as another file's of "
                f"that name and were merged into its real Oracle id (one card each): {', '.join(named[:5])}"
                + (f" and {len(named) - 5:,} more" if len(named) > 5 else "")
            )
        if apart:
            self.report.warnings.append(
                f"{len(apart):,} card{'s' if len(apart) != 1 else ''} with a made-up Oracle id share a name with several "
                "Oracle cards of another file and none with the same Oracle text, so they were kept apart: "
                + ", ".join(sorted(apart)[:5])
            )

    def _warn_without_oracle_id(self, con: duckdb.DuckDBPyConnection, source: SourceFile, order: int) -> None:
        """Say so when card objects of ``source`` have no Oracle id: a card is one Oracle id, so such an object
        cannot be loaded as a card (its printing is kept), and leaving it out silently loses a card. Scryfall gives
        every card object an ``oracle_id``, except layout ``reversible_card``, whose faces carry it (build_stage.sql
        takes the first face's); such objects are left out of the cards with a warning rather than refusing a whole
        bulk file for one odd object."""
        count, first_id, first_name = con.execute(
            f"""SELECT count(*), first(id ORDER BY rowid), first(name ORDER BY rowid)
                FROM {STAGE_CATALOG}.main.stage_cards
                WHERE file_order = ? AND coalesce(oracle_id, card_faces[1].oracle_id) IS NULL""",
            [order],
        ).fetchall()[0]
        if count:
            objects = "card object has" if count == 1 else "card objects have"
            self.report.warnings.append(
                f"{source.path}: {count:,} {objects} no oracle_id and {'was' if count == 1 else 'were'} left out of "
                f"the cards, kept only as printings (the first: id {first_id}, {first_name!r}); Scryfall gives every "
                "card object one (a reversible card's faces carry it), so the file is damaged or not Scryfall's"
            )

    def _load_rulings(self, con: duckdb.DuckDBPyConnection, files: list[SourceFile], bar: tqdm) -> None:
        cols = _columns_literal(RULING_COLUMNS)
        for source in files:
            bar.set_description(f"reading {source.path.name}")
            started = time.perf_counter()
            try:
                rows = con.execute(
                    f"""INSERT INTO rulings
                        SELECT DISTINCT oracle_id, source, published_at, comment
                        FROM read_json(?, format = '{source.json_format}', columns = {cols},
                                       compression = '{object_limits.checked_compression(source.compression)}')
                        WHERE object = 'ruling' AND oracle_id IS NOT NULL AND comment IS NOT NULL""",
                    [str(source.path)],
                ).fetchall()[0][0]
            except duckdb.Error as exc:
                _raise_if_disk_full(exc)
                raise _unreadable(source.path, "ruling", exc) from None
            self._note(source, rows, time.perf_counter() - started)
            bar.update(1)

    def _load_sets(self, con: duckdb.DuckDBPyConnection, files: list[SourceFile], bar: tqdm) -> None:
        """Scryfall's set objects, from its /sets answer (a list object, saved as it came, indented or not) or an
        array of them; a code in two files: the later file's object."""
        for source in files:
            bar.set_description(f"reading {source.path.name}")
            started = time.perf_counter()
            try:
                texts = con.execute(
                    f"""SELECT object::VARCHAR FROM (
                            SELECT unnest(CASE WHEN json_extract_string(json, '$.object') = 'list'
                                               THEN json_extract(json, '$.data[*]') ELSE [json] END) AS object
                            FROM read_json_objects(?, format = 'auto',
                                                   maximum_object_size = {scryfall_objects.MAX_OBJECT_BYTES},
                                                   compression = '{object_limits.checked_compression(source.compression)}'))
                        WHERE json_extract_string(object, '$.object') = 'set'""",
                    [str(source.path)],
                ).fetchall()
            except duckdb.Error as exc:
                _raise_if_disk_full(exc)
                raise _unreadable(source.path, "set", exc) from None
            # each object checked as card objects are: a set list that breaks /sets later is refused now, in one line
            kept: dict[str, tuple[str, str | None, str]] = {}
            for number, (text,) in enumerate(texts, 1):
                item, problem = _sets.parse_set_object(text)
                if item is None:
                    raise IngestError(
                        f"{source.path}: set object {number} is not a Scryfall set object: {problem}. "
                        "Nothing was replaced."
                    )
                kept[item["code"]] = (item["code"], item.get("id"), text)  # a code twice: the later object
            con.executemany("INSERT OR REPLACE INTO scryfall_sets VALUES (?, ?, ?)", list(kept.values()))
            rows = len(kept)
            self._note(source, rows, time.perf_counter() - started)
            bar.update(1)

    def _newer_replaced(self, con: duckdb.DuckDBPyConnection) -> bool:
        """Whether the database being replaced was built by a newer oracle-tools and is replaced without carrying
        anything over (asked for with ``replace_anyway``): its history, rulings and set list are in a shape this
        version cannot read. Without ``replace_anyway`` that is refused, and nothing is replaced."""
        found = sqlfiles.schema_version_of(con, PREVIOUS_CATALOG)
        if found is None or found <= schema_version.SCHEMA_VERSION:
            return False
        line = str(DatabaseOutdatedError(self.db_path.name, found, schema_version.SCHEMA_VERSION))
        if not self.replace_anyway:
            raise IngestError(
                f"{line.split(';')[0]}: its change history, rulings and set list cannot be carried over by this "
                "version; upgrade oracle-tools, or rerun with --replace-anyway to replace it with a new database "
                "(its history goes with it). Nothing was replaced."
            )
        con.execute(f"DETACH {PREVIOUS_CATALOG}")
        self.report.warnings.append(f"replaced {self.db_path}, built by a newer oracle-tools; its history is gone")
        return True

    def _check_cards_can_be_kept(self, con: duckdb.DuckDBPyConnection) -> None:
        """An ingest without card files keeps the cards of the database it replaces: only one of this schema
        version holds them as this version builds them (store/schema_version.py); an older one is rebuilt from
        card files instead, and nothing is replaced."""
        found = sqlfiles.schema_version_of(con, PREVIOUS_CATALOG)
        if found != schema_version.SCHEMA_VERSION:
            line = str(DatabaseOutdatedError(self.db_path.name, found, schema_version.SCHEMA_VERSION))
            raise IngestError(
                f"{line} from card files (--sample, --bulk-file or the Scryfall API): an ingest without them keeps "
                "its cards, which this version cannot. Nothing was replaced."
            )

    def _keep(self, con: duckdb.DuckDBPyConnection, tables: Iterable[str], *, missing_ok: bool = False) -> None:
        """Carry tables over from the previous database (the cards of one of this schema version, for an ingest
        of only rulings or rules; its rulings and set list otherwise); ``missing_ok``: a table that databases
        built by older versions lack stays empty."""
        for table in tables:
            try:
                con.execute(f"INSERT INTO main.{table} BY NAME SELECT * FROM {PREVIOUS_CATALOG}.main.{table}")
            except duckdb.CatalogException:
                if not missing_ok:
                    raise

    def _note(self, source: SourceFile, rows: int, seconds: float) -> None:
        self._run_rows.append(
            (source.origin, source.kind, source.shown, source.bulk_type, source.updated_at, rows, seconds)
        )
        self.report.files.append(
            {
                "file": source.shown,
                "kind": source.kind,
                "bulk_type": source.bulk_type,
                "rows": rows,
                "seconds": round(seconds, 3),
            }
        )

    def _record_runs(self, con: duckdb.DuckDBPyConnection, previous: Path | None) -> None:
        run_id = 1
        if previous is not None:
            con.execute(f"INSERT INTO ingest_runs BY NAME SELECT * FROM {PREVIOUS_CATALOG}.main.ingest_runs")
            run_id = con.execute("SELECT coalesce(max(run_id), 0) + 1 FROM ingest_runs").fetchall()[0][0]
        for origin, kind, file, bulk_type, updated_at, rows, seconds in self._run_rows:
            con.execute(
                "INSERT INTO ingest_runs (run_id, started_at, source, kind, file, bulk_type, updated_at, rows, seconds)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [run_id, self._started, origin, kind, file, bulk_type, updated_at, rows, seconds],
            )


def _damage(path: Path) -> str | None:
    """What DuckDB says is wrong with the database at ``path`` (not a DuckDB file, truncated, a damaged block), or
    None when every table of it reads. Asked only after an ingest failed: reading every column of every table
    costs about a second per 100 MB."""
    probe = duckdb.connect(":memory:")
    try:
        probe.execute("ATTACH ? AS damaged_probe (READ_ONLY)", [str(path)])
        for table in sqlfiles.table_names(probe, catalog="damaged_probe"):  # names from the file's catalog, quoted
            quoted = '"' + table.replace('"', '""') + '"'
            probe.execute(f"SELECT max(hash(t)) FROM damaged_probe.main.{quoted} t").fetchall()
    except duckdb.Error as exc:
        if sqlfiles.is_foreign_wal(exc):
            return None  # the ingest removes a stale log itself
        return _first_line(exc)
    finally:
        probe.close()
    return None


def _derive_keywords(con: duckdb.DuckDBPyConnection) -> None:
    """The keywords of the cards whose representative object lacks Scryfall's ``keywords`` field (NULL: files
    older than it, the 2019 dump; a given [] is kept), derived from its Oracle text (all faces) by the CR's lists
    the new database holds, by cardjson.derive_keywords — the rule the served card objects lacking the field get
    theirs by, so ``kw:`` search and the objects agree — into the staging table ``derived_keywords`` (only the
    cards with some) that build_core.sql's cards read. Only the texts the SQL prefilter
    (KeywordVocabulary.prefilters) finds a possible keyword line or keyword action in are read in Python: about
    0.2 s CPU on the 2019 dump (bench/bench_keywords.py)."""
    from oracle_tools.scryfall.cardjson import NOT_AN_ACTION, derive_keywords, keyword_vocabulary

    vocabulary = keyword_vocabulary(con)
    patterns = vocabulary.prefilters()
    derived: list[tuple[str, list[str]]] = []
    if patterns is not None:
        rows = con.execute(
            f"""SELECT oid, text, names, uses_actions FROM (
                    SELECT oid, text, names, regexp_matches(low, $lines) AS keyword_line,
                           regexp_matches(replace(low, $not_an_action, ' '), $actions) AS uses_actions
                    FROM (SELECT oid, text, names, lower(text) AS low FROM (
                        SELECT oid,
                               array_to_string(list_concat([oracle_text], list_transform(card_faces,
                                   lambda f: f.oracle_text)), chr(10)) AS text,
                               array_to_string(list_concat([name], list_transform(card_faces, lambda f: f.name)),
                                   chr(31)) AS names
                        FROM {STAGE_CATALOG}.main.rep WHERE keywords IS NULL AND oid IS NOT NULL)))
                WHERE keyword_line OR uses_actions""",
            {"lines": patterns[0], "actions": patterns[1], "not_an_action": NOT_AN_ACTION},
        ).fetchall()
        # the faces' texts as one (derive_keywords reads line by line), the names apart (a unit separator)
        derived = [
            (oid, keywords)
            for oid, text, names, uses_actions in rows
            if (keywords := derive_keywords([text], vocabulary, names=names.split(chr(31)), actions=uses_actions))
        ]
    con.execute(
        f"CREATE TABLE {STAGE_CATALOG}.main.derived_keywords AS "
        "SELECT unnest($oids::VARCHAR[]) AS oid, unnest($keywords::VARCHAR[][]) AS keywords",
        {"oids": [oid for oid, _ in derived], "keywords": [keywords for _, keywords in derived]},
    )


def _staged_sql(name: str) -> str:
    """``sql/<name>`` reading this run's staging database (the files say ``ingest_stage``; see STAGE_CATALOG)."""
    return sqlfiles.load(name).replace("ingest_stage.main.", f"{STAGE_CATALOG}.main.")


def _warm_up(cursor: duckdb.DuckDBPyConnection) -> None:
    """While the first connection reads the cards: import the Oracle-text layers, read their CR vocabulary,
    and take the path they store their tables by once (Polars -> Arrow C stream -> DuckDB: DuckDB's first Arrow
    scan, that names.build would otherwise pay). About 0.25 s off the ingest."""
    import polars as pl

    from oracle_tools.choose import chooser  # noqa: F401
    from oracle_tools.names import build, index, references  # noqa: F401
    from oracle_tools.store import views  # noqa: F401
    from oracle_tools.text import vocabulary
    from oracle_tools.tokens import build as token_build  # noqa: F401

    vocabulary.subtypes("land")
    cursor.register("warm_up_frame", sqlfiles.ArrowStream(pl.DataFrame({"x": [1]})))
    cursor.execute("SELECT * FROM warm_up_frame").fetchall()
    cursor.unregister("warm_up_frame")


_T = TypeVar("_T")


class _SecondConnection:
    """SQL steps run, in the order submitted, on a second connection to the new database.

    While the first connection stages the cards, builds cards and faces, or Python reads Oracle text
    (names, references, tokens), what that work does not read runs here: the rules, the printings,
    preferred printings, search's face values, the name classes, the lookup indexes, choose-name's token
    kinds. At the size of a bulk file DuckDB
    runs most statements on one thread, so the second core would otherwise sit idle; on a
    one-core machine the steps simply take turns. A step that fails fails the ingest (``wait``, or the
    future the first connection waits on); a failed ingest interrupts the SQL statement under way here
    (a Python step, such as parsing the CR, finishes first) and waits for it before the file is removed.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._cursor = con.cursor()
        with contextlib.suppress(duckdb.InvalidInputException):  # inside Jupyter without ipywidgets (Ingest._build)
            self._cursor.execute("SET enable_progress_bar = false")  # one bar: the first connection's
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ingest-sql")
        self._submitted: list[Future[Any]] = []

    def submit(self, step: Callable[[duckdb.DuckDBPyConnection], _T]) -> Future[_T]:
        def run() -> _T:
            return step(self._cursor)

        future = self._pool.submit(run)
        self._submitted.append(future)
        return future

    def interrupt(self) -> None:
        """Stop the SQL statement under way (a signal stops the ingest)."""
        self._cursor.interrupt()

    def wait(self) -> None:
        """Every step submitted so far has finished; the first failure is raised here."""
        for future in self._submitted:
            future.result()

    def __enter__(self) -> _SecondConnection:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        if exc_type is not None:
            self._cursor.interrupt()  # the ingest failed: stop at once, the new database is removed
        self._pool.shutdown(wait=True, cancel_futures=exc_type is not None)
        self._cursor.close()
        if exc_type is None:
            self.wait()


def _raise_if_disk_full(exc: BaseException) -> None:
    """A full disk is said as one (the CLI's "the disk is full" line, exit 1), never as a damaged input file: where
    DuckDB runs out of room depends on the file and the disk, so any step that reads a file can meet it. DuckDB out
    of memory is no fault of the file either: the run is built again with more (``Ingest._run``)."""
    if "No space left on device" in str(exc) or _out_of_memory(exc):
        raise exc


#: How DuckDB words a want of memory under its limit, in an OutOfMemoryException or inside another error (a commit
#: that could not allocate is a TransactionException: "Failed to commit: failed to allocate data of size ...").
_OUT_OF_MEMORY_WORDS = ("could not allocate block", "failed to allocate data", "failed to pin block", "Out of Memory")


def _out_of_memory(exc: BaseException) -> bool:
    """Whether DuckDB failed for want of memory under its limit (in a statement, or at its commit)."""
    return isinstance(exc, duckdb.OutOfMemoryException) or (
        isinstance(exc, duckdb.Error) and any(words in str(exc) for words in _OUT_OF_MEMORY_WORDS)
    )


def _check_card_objects(card_files: Iterable[SourceFile]) -> None:
    """Refuse a card file with an object past the size or depth limits (``object_limits.check_objects``)."""
    for file in card_files:
        object_limits.check_objects(
            str(file.path),
            file.json_format,
            max_object_bytes=scryfall_objects.MAX_OBJECT_BYTES,
            compression=file.compression,
        )


#: What DuckDB says of a file that stops early: JSON cut in the middle, or a gzip stream without its end.
_ENDS_EARLY = ("unexpected end of data", "unexpected end of gzip stream")


def _unreadable(path: Path, what: str, exc: BaseException) -> IngestError:
    """The one line for a file DuckDB could not read as ``what`` objects: one that ends early (the common case: a
    download cut short) is said in those words, anything else with DuckDB's first line (one full stop, not two)."""
    line = _first_line(exc)
    if any(early in line.lower() for early in _ENDS_EARLY):
        return IngestError(
            f"{path}: the file ends in the middle of its {what} objects: it is incomplete (an interrupted "
            "download?); download it again. Nothing was replaced."
        )
    return IngestError(f"{path}: cannot be read as Scryfall {what} objects: {line.rstrip('.')}. Nothing was replaced.")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def sample_dir() -> Path:
    """The embedded sample shipped inside the package (oracle_tools/data/sample/)."""
    from oracle_tools.store.resources import SAMPLE_DIR

    env = os.environ.get("ORACLE_TOOLS_SAMPLE")
    return Path(env) if env else SAMPLE_DIR


def sample_sources() -> list[SourceFile]:
    folder = sample_dir()
    files = sorted(p for p in folder.glob("*.json*") if p.is_file())
    if not files:
        raise IngestError(f"the embedded sample is missing: no .json/.json.gz files in {folder}.")
    return [sniff(p, origin="sample") for p in files]


# -- the whole of `oracle-tools ingest`: which sources, downloaded when they are Scryfall's ------------------------

#: The bulk files an ingest from the Scryfall API downloads when none are named.
DEFAULT_BULK_TYPES = ("oracle_cards", "default_cards", "rulings")


def default_cache_dir(db_path: Path) -> Path:
    """Where downloads are kept between ingests: ``$ORACLE_TOOLS_CACHE``, else ``cache`` beside the database."""
    return Path(os.environ.get("ORACLE_TOOLS_CACHE") or db_path.parent / "cache")


def scryfall_sources(
    types: Sequence[str], *, api_url: str | None = None, cache_dir: Path, progress: bool = False
) -> tuple[list[SourceFile], list[str]]:
    """The bulk files of ``types`` downloaded from the Scryfall API (or taken from ``cache_dir`` when still
    current), and Scryfall's set list, with the warnings to report: the cards matter more than the set list, so a
    set list that cannot be downloaded is taken from an earlier download, or left out (a warning either way)."""
    from oracle_tools.store import download

    url = api_url or download.DEFAULT_API_URL
    download.check_ours(cache_dir, "sets.json")  # a file of the user's there is said before anything is downloaded
    fetched = download.fetch_bulk_files(list(types), api_url=url, cache_dir=cache_dir, progress=progress)
    sources = [sniff(f.path, origin="scryfall-api", bulk_type=f.type, updated_at=f.updated_at) for f in fetched]
    set_list, warning = _set_list(url, cache_dir)
    if set_list is not None:
        sources.append(sniff(set_list, origin="scryfall-api"))
    return sources, [warning] if warning else []


def _set_list(api_url: str, cache_dir: Path) -> tuple[Path | None, str | None]:
    """Scryfall's set list, and a warning when it could not be downloaded (then the copy of an earlier run)."""
    from oracle_tools.errors import DownloadError
    from oracle_tools.store import download

    try:
        return download.fetch_set_list(api_url, cache_dir=cache_dir), None
    except DownloadError as exc:
        cached = cache_dir / "sets.json"
        if cached.is_file():
            download.check_ours(cache_dir, cached.name)  # only the cache's own copy stands in for the download
            return cached, f"could not download Scryfall's set list ({exc}); kept the one downloaded before"
        return None, (
            f"could not download Scryfall's set list ({exc}); /sets answers sets built from the printings "
            "(without icons, blocks or TCGplayer groups)"
        )


def build(
    db_path: Path,
    *,
    sample: bool = False,
    bulk_files: Sequence[BulkFile] = (),
    types: Sequence[str] = DEFAULT_BULK_TYPES,
    api_url: str | None = None,
    cache_dir: Path | None = None,
    rules_file: Path | None = None,
    rules_url: str | None = None,
    interchangeable_file: Path | None = None,
    wait: bool = False,
    replace_anyway: bool = False,
    progress: bool = False,
) -> IngestReport:
    """Build the database at ``db_path`` from the first of: the embedded sample, local ``bulk_files``, only
    a rules file (the cards of the existing database kept), or the Scryfall API's bulk files of ``types`` and its
    set list. ``rules_url`` downloads the Comprehensive Rules text (into ``cache_dir``) to use as ``rules_file``."""
    from oracle_tools.store import download

    # Each source is built alone: a choice that another one overrides would be silently left out
    if sample and bulk_files:
        raise IngestError(
            "give the embedded sample (--sample) or bulk files (--bulk-file), not both: the sample is built alone, "
            "so the files would be left out"
        )
    if types or not (sample or bulk_files or rules_file or rules_url):  # CLI `--types ""` is no type at all
        download.check_bulk_types(types)  # before the network or the database: an unknown one named at once
    if (sample or bulk_files) and (api_url is not None or list(types) != list(DEFAULT_BULK_TYPES)):
        raise IngestError(
            "--types and --api-url choose what is downloaded from Scryfall, and an ingest of "
            f"{'the sample' if sample else 'local bulk files'} downloads nothing: leave them out"
        )
    cache = cache_dir or default_cache_dir(db_path)
    if rules_url is not None:
        if rules_file is not None:
            raise IngestError("give a rules file or a rules address to download, not both")
        rules_file = download.fetch_rules_text(rules_url, cache_dir=cache)
    ingest = Ingest(
        db_path,
        progress=progress,
        interchangeable_file=interchangeable_file,
        wait=wait,
        replace_anyway=replace_anyway,
    )
    ingest.check_side_files(rules_file)  # before a card file is opened or downloaded: a bad one is said at once
    if bulk_files:
        return ingest_bulk_files(ingest, bulk_files, rules_file=rules_file)
    warnings: list[str] = []
    sources: list[SourceFile] = []
    if sample:
        sources = sample_sources()
    elif rules_file is not None:
        if not db_path.exists():  # a rules-only ingest keeps the cards of a database: without one, say so
            raise IngestError(
                f"no database at {db_path} to keep the cards of; ingest cards first (`oracle-tools ingest "
                "--sample`, `--bulk-file FILE` or from Scryfall), then --rules-file"
            )
    else:
        sources, warnings = scryfall_sources(types, api_url=api_url, cache_dir=cache, progress=progress)
    report = ingest.run(sources, rules_file=rules_file)
    report.warnings.extend(warnings)
    return report


def ingest_bulk_files(ingest: Ingest, files: Sequence[BulkFile], *, rules_file: Path | None = None) -> IngestReport:
    """Run ``ingest`` on local bulk files: each path sniffed where it is, and each stream (``-``: standard input, a
    pipe such as ``<(zcat …)`` or ``/dev/fd/N``, a named pipe, an open binary file object) copied first
    (:func:`copy_stream`), beside the new database, removed when the run ends. Messages and warnings name each
    stream as given. ``OracleDB.ingest_files``, ``OracleDB.ingest`` and ``oracle-tools ingest FILE...`` alike."""
    streams = Path(f"{ingest._temp_path()}.streams")  # copies of streams: a killed ingest's go as its temp files do
    sources: list[SourceFile] = []
    try:
        for number, path in enumerate(files, 1):
            if is_stream(path):
                with StopOnSignals():  # Ctrl-C (or SIGTERM) stops a stream's copy at once: Stopped
                    sources.append(copy_stream(path, streams, number))
            else:
                sources.append(sniff(path))  # type: ignore[arg-type]  # is_stream: a path
        try:
            report = ingest.run(sources, rules_file=rules_file)
        except IngestError as exc:
            if not any(s.given_as for s in sources):
                raise
            raise IngestError(_as_given(str(exc), sources)) from None
    finally:
        shutil.rmtree(streams, ignore_errors=True)
    report.warnings[:] = [_as_given(w, sources) for w in report.warnings]
    return report


def _as_given(text: str, sources: Sequence[SourceFile]) -> str:
    """``text`` naming each stream as the user gave it, not by the copy the ingest read."""
    for source in sources:
        if source.given_as is not None:
            text = text.replace(str(source.path), source.given_as)
    return text
