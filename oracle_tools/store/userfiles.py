"""Reading the files a user names (decklists, ``--rules-file``, ``--interchangeable-file``, ``resolve --batch``):
at most a limit far above any real one, so ``/dev/zero``, ``/dev/urandom`` or a wrong 10 GB file is one error
line instead of every byte of memory (the read is bounded; a pipe or process substitution still works)."""

from __future__ import annotations

import io
import os
import stat
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from oracle_tools.errors import OracleToolsError

MiB = 1024 * 1024


class InputTooLargeError(OracleToolsError):
    """A file the user named is larger than any file of its kind."""


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


def read_bytes(path: Path, *, limit: int, what: str) -> bytes:
    """The bytes of ``path``; :class:`InputTooLargeError` past ``limit`` (OSError as ``open`` raises it)."""
    with open(path, "rb") as handle:
        data = b"".join(_pieces(handle, limit + 1))
    if len(data) > limit:
        raise _too_large(path, what, limit)
    return data


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


def printable(text: str) -> str:
    """``text`` with each character a terminal would not show as itself (control characters, the bidi overrides)
    escaped as Python escapes it, so a hostile name or byte cannot rewrite the line an error is said in."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)
