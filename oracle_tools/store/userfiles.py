"""Reading the files a user names (decklists, ``--rules-file``, ``--interchangeable-file``, ``resolve --batch``):
at most a limit far above any real one, so ``/dev/zero``, ``/dev/urandom`` or a wrong 10 GB file is one error
line instead of every byte of memory (the read is bounded; a pipe or process substitution still works)."""

from __future__ import annotations

import io
import os
import re
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from oracle_tools.errors import DecklistError, InputTooLargeError, OracleToolsError

MiB = 1024 * 1024


def _too_large(where: object, what: str, limit: int) -> InputTooLargeError:
    return InputTooLargeError(
        f"{where}: is larger than {limit // MiB} MB, which no {what} is (or it never ends, like /dev/zero); "
        f"check you picked the right file."
    )


_PIECE = 1 << 20


def _pieces(handle: Any, most: int) -> Iterator[Any]:
    """At most ``most`` bytes or characters of ``handle``, a megabyte at a time: ``read(most)`` would ask for the
    whole limit at once (128 MB for a decklist), however small the file."""
    while most > 0 and (piece := handle.read(min(_PIECE, most))):
        most -= len(piece)
        yield piece


#: How long a read of a named pipe (FIFO) waits for a program to open it for writing before it says so: a FIFO
#: nothing writes to would otherwise be waited on forever (the open itself, then the read).
WRITER_WAIT_SECONDS = 5.0


def read_bytes(path: Path, *, limit: int, what: str, error: type[OracleToolsError] = OracleToolsError) -> bytes:
    """The bytes of ``path``; :class:`InputTooLargeError` past ``limit`` (OSError as ``open`` raises it); ``error``
    for a socket and for a named pipe no program opened for writing in :data:`WRITER_WAIT_SECONDS` (a pipe with a
    writer, such as ``<(curl …)``, is read as it comes)."""
    if stat.S_ISSOCK(os.stat(path).st_mode):  # its open fails with ENXIO, "No such device or address"
        raise error(f"{path}: is a socket, not a file; give the path of a file.")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO's blocking open waits for a writer, forever
    with open(fd, "rb") as handle:
        first = _first_piece(fd, path, error) if stat.S_ISFIFO(os.fstat(fd).st_mode) else b""
        os.set_blocking(fd, True)
        data = first + b"".join(_pieces(handle, limit + 1 - len(first)))
    if len(data) > limit:
        raise _too_large(path, what, limit)
    return data


def _first_piece(fd: int, path: Path, error: type[OracleToolsError]) -> bytes:
    """What the pipe ``fd`` (opened non-blocking) holds once a writer came, within :data:`WRITER_WAIT_SECONDS` (b"":
    none written yet, or a writer that came and went empty); ``error`` when no program opened it for writing."""
    import select

    waiting = select.poll()
    waiting.register(fd, select.POLLIN)
    waiting.poll(int(WRITER_WAIT_SECONDS * 1000))  # Linux: no POLLHUP before a writer has come and gone
    try:
        piece = os.read(fd, _PIECE)
    except BlockingIOError:
        return b""  # a writer holds it open, silent so far: read on (Ctrl-C stops it)
    if piece == b"" and not waiting.poll(0):
        raise error(
            f"{path}: is a named pipe (FIFO) that no program opened for writing in {WRITER_WAIT_SECONDS:g} s; "
            "start the program that writes it first (or give a file)."
        )
    return piece


def read_text(handle: IO[str] | io.TextIOBase, *, limit: int, what: str) -> str:
    """The text of an open text file (``click.File``, stdin), at most ``limit`` characters; a byte-order mark
    (Windows Notepad saves UTF-8 with one) is no part of the first line."""
    try:
        text = "".join(_pieces(handle, limit + 1)).removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise OracleToolsError(
            f"{getattr(handle, 'name', 'input')}: is not UTF-8 text ({exc.reason} at byte {exc.start}); "
            "save it as UTF-8, one name a line."
        ) from None
    if len(text) > limit:
        raise _too_large(getattr(handle, "name", "input"), what, limit)
    return text


_BINARY_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")  # Cc less tab, newlines, VT, FF


@dataclass(frozen=True)
class TextKind:
    """What a user's text file is, for the one line that refuses it: ``again`` (of an empty file), ``binary`` (of
    one with NUL bytes) and ``save`` (of one that decodes to no text) say what to do instead."""

    what: str
    again: str
    binary: str
    save: str
    error: type[OracleToolsError] = OracleToolsError
    empty_is_nothing: bool = False  # an empty file is read as no text (a list of no names), not refused


DECKLIST = TextKind(
    "text decklist",
    "export the decklist again",
    "export the deck as text (.txt) or MTGO XML (.dek)",
    "export the deck as UTF-8 text",
    DecklistError,
)
NAME_LIST = TextKind(
    "list of names",
    "save the names again",
    "save the names as text, one a line",
    "save it as UTF-8 text, one name a line",
    empty_is_nothing=True,
)


def decode_text(data: bytes, source: str, kind: TextKind = NAME_LIST) -> str:
    """A user's text file as text, as Windows, macOS and Linux tools save it: UTF-8 with or without BOM, UTF-16
    with BOM (Notepad, PowerShell), else Windows-1252, else Latin-1; or ``kind.error`` saying in one line why it is
    no text (empty, binary, undecodable). Messages begin with ``source``. Decklists and lists of names alike."""
    if not data.strip(b" \t\r\n\x0b\x0c") or data.strip() == b"\xef\xbb\xbf":
        if kind.empty_is_nothing:
            return ""
        raise kind.error(f"{source}: the file is empty; {kind.again} or check you picked the right file.")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise kind.error(
                f"{source}: has a UTF-16 mark but cannot be decoded ({exc.reason}); save it again as UTF-8 text."
            ) from exc
    elif b"\x00" in data:
        raise kind.error(f"{source}: is a binary file, not a {kind.what} (it contains NUL bytes); {kind.binary}.")
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            try:
                text = data.decode("cp1252")
            except UnicodeDecodeError:
                text = data.decode("latin-1")
    text = text.lstrip("\ufeff")
    ctrl = len(_BINARY_CONTROL.findall(text))
    if ctrl > max(2, len(text) // 100):
        raise kind.error(
            f"{source}: does not decode as text ({ctrl} control characters; tried UTF-8, "
            f"Windows-1252 and Latin-1); {kind.save}."
        )
    if not text.strip() and not kind.empty_is_nothing:
        raise kind.error(f"{source}: the file is empty; {kind.again} or check you picked the right file.")
    return text


def read_user_text(handle: IO[bytes], *, limit: int, what: str, kind: TextKind = NAME_LIST) -> str:
    """The text of an open binary file (``click.File("rb")``, stdin's buffer) of at most ``limit`` bytes, decoded
    as :func:`decode_text` decodes it."""
    data = b"".join(_pieces(handle, limit + 1))
    where = getattr(handle, "name", None)
    source = str(where) if isinstance(where, str) and where not in ("<stdin>", "-") else "standard input"
    if len(data) > limit:
        raise _too_large(source, what, limit)
    return decode_text(data, source, kind)


def read_user_file(path: Path, *, limit: int, what: str, kind: TextKind = NAME_LIST) -> str:
    """The text of the file at ``path`` (at most ``limit`` bytes, decoded as :func:`decode_text` decodes it); a
    named pipe no program opens for writing is one line (:func:`read_bytes`), as is a file that cannot be read."""
    try:
        data = read_bytes(path, limit=limit, what=what)
    except OSError as exc:
        raise OracleToolsError(
            f"{path}: cannot be read ({exc.strerror or exc}); check the path and its permissions."
        ) from None
    return decode_text(data, str(path), kind)


def check_database_path(path: Path) -> None:
    """Refuse a database path that exists but is no regular file (after following symlinks): opening a FIFO
    blocks until something writes to it, and a device or socket is no database. A path that does not exist yet
    passes (an ingest creates it; the other commands say there is no database)."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as exc:
        raise OracleToolsError(f"{path}: cannot be read ({exc.strerror}); check the path and its permissions") from None
    if stat.S_ISREG(mode):
        return
    kind = (
        "a named pipe (FIFO)"
        if stat.S_ISFIFO(mode)
        else "a directory"
        if stat.S_ISDIR(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    raise OracleToolsError(
        f"--db {path}: is {kind}, not a database file; give the path of a DuckDB file such as data/oracle.duckdb"
    )


#: Compressed formats by their magic bytes, in the order tried. DuckDB's JSON reader reads gzip and zstd itself
#: (``read_json(..., compression = ...)``), whatever the file is named; the others must be decompressed first.
COMPRESSION_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),  # an empty zip archive
    (b"7z\xbc\xaf\x27\x1c", "7z"),
)
#: What DuckDB reads without help; "none" is a file that is not compressed.
READABLE_COMPRESSIONS = ("none", "gzip", "zstd")


def compression_of(path: Path) -> str:
    """The compressed format ``path`` is in by its first bytes (its name says nothing: downloads get renamed),
    one of :data:`COMPRESSION_MAGIC`'s names, or ``"none"``. OSError as ``open`` raises it."""
    with open(path, "rb") as raw:
        return compression_in(raw.read(8))


def compression_in(head: bytes) -> str:
    """The compressed format of data starting with ``head`` (:func:`compression_of`), or ``"none"``."""
    return next((name for prefix, name in COMPRESSION_MAGIC if head.startswith(prefix)), "none")


def read_head(path: Path, size: int, compression: str) -> bytes:
    """About the first ``size`` bytes of the content of ``path`` (decompressed when ``compression`` is gzip or
    zstd): enough to recognise a file or train on it. A file cut short gives what it holds (the full read says
    so); ``zlib.error`` or ``zstandard.ZstdError`` when the compressed data is damaged from the start."""
    if compression not in READABLE_COMPRESSIONS:
        raise ValueError(f"not a compression the head can be read through: {compression!r}")
    with open(path, "rb") as raw:
        if compression == "none":
            return raw.read(size)
        head = bytearray()
        if compression == "zstd":
            import zstandard

            with zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True) as reader:
                while len(head) < size and (piece := reader.read(size - len(head))):  # bounded: no bomb
                    head += piece
            return bytes(head)
        inflate, pending = zlib.decompressobj(16 + zlib.MAX_WBITS), b""
        while len(head) < size and not inflate.eof and (pending or (pending := raw.read(1 << 16))):
            head += inflate.decompress(pending, size - len(head))  # at most what is asked: no bomb
            pending = inflate.unconsumed_tail
        return bytes(head)
