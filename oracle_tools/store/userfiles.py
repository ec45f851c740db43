"""Reading the files a user names (decklists, ``--rules-file``, ``--interchangeable-file``, ``resolve --batch``):
at most a limit far above any real one, so ``/dev/zero``, ``/dev/urandom`` or a wrong 10 GB file is one error
line instead of every byte of memory (the read is bounded; a pipe or process substitution still works)."""

from __future__ import annotations

import io
import os
import stat
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
