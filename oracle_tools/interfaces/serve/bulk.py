"""Bulk data as Scryfall serves it (https://scryfall.com/docs/api/bulk-data): ``GET /bulk-data`` lists one
``bulk_data`` object per type this server exports — ``oracle_cards`` (one card object per Oracle card, its
preferred printing) and ``rulings`` — and ``GET /bulk-data/{type}/download`` answers the file.

Each file is built once per database generation (and per server address, which its links name), one build at a
time — for the address the server was started on, in the generation's warm-up (so listing the files reads kept
facts); for another address, or without the warm-up (``--no-warm``), on first use — and kept gzip-compressed in
memory (the 2019 dump's Oracle cards: about 9 MB for 63 MB of JSON); a download streams it — as it is to a client that accepts gzip (``Content-Encoding:
gzip``), decompressed chunk by chunk to one that does not — so no request builds or holds a whole body. At most
``MAX_DOWNLOADS`` downloads run at once (more: 503, retry). A client that reads nothing for ``connection_limits.WRITE_TIMEOUT``
seconds has its connection reset by the server's protocol (connection_limits.py, as for any answer), and a download whose
client has left or was cut off stops at once, so a stalled reader holds neither memory, nor a socket, nor a
download slot for long.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gzip
import io
import json
import threading
import uuid
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
from starlette.types import Receive, Scope, Send

from oracle_tools.interfaces.serve.generations import BASE_URL_BYTES, Kept
from oracle_tools.scryfall import lookups

if TYPE_CHECKING:
    from oracle_tools.interfaces.serve.generations import Generation

#: Scryfall's bulk types this server exports, with the name and description Scryfall gives each.
TYPES: dict[str, tuple[str, str]] = {
    "oracle_cards": (
        "Oracle Cards",
        "A JSON file containing one Scryfall card object for each Oracle ID in this database (its preferred "
        "printing), as /cards answers it.",
    ),
    "rulings": (
        "Rulings",
        "A JSON file containing all Rulings of this database: each ruling refers to cards by their oracle_id.",
    ),
}
MAX_DOWNLOADS = 4  # downloads at once; more are answered 503
CHUNK = 256 * 1024  # bytes sent per write
BULK_FILES: Kept[BulkFile] = Kept("bulk files")  # per kind and base address
_BUILD_LOCK = threading.Lock()  # one build at a time: a second request for the same file waits, then reuses it


def type_name(which: str) -> str | None:
    """Scryfall's type a route names, in either spelling (``oracle-cards`` as in Scryfall's docs, or
    ``oracle_cards`` as in its ``type`` field); None for no type exported here."""
    name = which.replace("-", "_")
    return name if name in TYPES else None


@dataclass(frozen=True)
class BulkFile:
    """One built file: its gzip bytes, its size uncompressed and when the database was built."""

    compressed: bytes
    size: int
    updated_at: str


def bulk_file(gen: Generation, kind: str, base: str) -> BulkFile:
    """The ``kind`` file of this generation, built on first use (links pointing at ``base``)."""
    key = BULK_FILES.of(f"{kind} {base}")
    found = gen.peek(key)
    if found is not None:
        return found
    with _BUILD_LOCK:
        return gen.cached(key, lambda: _build(gen, kind, base))


def prebuild(gen: Generation, bases: Sequence[str]) -> None:
    """Build every exported file for each of ``bases`` (the generation's warm-up, once its card objects are built):
    a client that asks ``GET /bulk-data`` what is there (each file's ``size`` and ``compressed_size``) reads kept
    facts, as Scryfall's files are made before they are listed, instead of waiting for every object to be joined
    and compressed."""
    for base in bases:
        for kind in TYPES:
            if gen.closed:
                return
            bulk_file(gen, kind, base)


def _updated_at(gen: Generation) -> str:
    when = lookups.last_cards_ingest(gen.cursor()) or dt.datetime.fromtimestamp(gen.path.stat().st_mtime, dt.UTC)
    return str(when.replace(tzinfo=dt.UTC).isoformat())


def _build(gen: Generation, kind: str, base: str) -> BulkFile:
    out = io.BytesIO()
    size = 0
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=6, mtime=0) as packed:

        def write(data: bytes) -> None:
            nonlocal size
            packed.write(data)
            size += len(data)

        write(b"[")
        first = True
        for item in _items(gen, kind, base):
            if b"\n" in item:  # one object a line (JSON escapes a newline in a string): JSON Lines are cut there
                item = _json(json.loads(item))
            write(item if first else b",\n" + item)
            first = False
        write(b"]")
    return BulkFile(out.getvalue(), size, _updated_at(gen))


def _items(gen: Generation, kind: str, base: str) -> Iterator[bytes]:
    """Each object of the file as JSON bytes, in a stable order."""
    cur = gen.cursor()
    if kind == "rulings":
        for ruling in lookups.every_ruling(cur):
            yield _json(ruling)
        return
    # the card objects the server keeps as JSON (every Oracle card's is built at open): the file is written from
    # them, not built again (a second build of every object took most of a download's first 12 s)
    ids = lookups.preferred_printing_ids(cur)
    base_bytes = base.encode()
    for start in range(0, len(ids), 1000):
        for body in gen.card_objects_json(ids[start : start + 1000]):
            if body is not None:
                yield body.replace(BASE_URL_BYTES, base_bytes)


def _json(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, default=str, separators=(",", ":")).encode("utf-8")


def _bulk_id(updated_at: str, kind: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"oracle-tools-bulk:{updated_at}:{kind}"))


def bulk_id(gen: Generation, kind: str) -> str:
    """The id of the ``kind`` bulk_data object of this generation (without building its file)."""
    return _bulk_id(_updated_at(gen), kind)


def bulk_object(gen: Generation, kind: str, base: str) -> dict[str, Any]:
    """Scryfall's ``bulk_data`` object of ``kind`` (the file is built if it was not)."""
    built = bulk_file(gen, kind, base)
    name, description = TYPES[kind]
    item_id = _bulk_id(built.updated_at, kind)
    return {
        "object": "bulk_data",
        "id": item_id,
        "type": kind,
        "updated_at": built.updated_at,
        "uri": f"{base}/bulk-data/{item_id}",
        "name": name,
        "description": description,
        "size": built.size,
        "compressed_size": len(built.compressed),
        "download_uri": f"{base}/bulk-data/{kind.replace('_', '-')}/download",
        "jsonl_download_uri": f"{base}/bulk-data/{kind.replace('_', '-')}/download.jsonl.gz",
        "content_type": "application/json",
        "content_encoding": "gzip",
    }


class Downloads:
    """The downloads running now, at most MAX_DOWNLOADS (one per app, used on the event loop only)."""

    def __init__(self) -> None:
        self.running = 0


def jsonl_chunks(compressed: bytes) -> Iterator[bytes]:
    """The gzip file of JSON Lines made from a built file (``compressed``: the gzip of ``[``, the objects joined by
    ``,\n``, ``]``, no object holding a newline), piece by piece: each line's ``[``, ``,`` or ``]`` taken off."""
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    deflate = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    rest = b""
    first = True
    for start in range(0, len(compressed), CHUNK // 8):
        text = rest + inflate.decompress(compressed[start : start + CHUNK // 8])
        *lines, rest = text.split(b"\n")
        out = []
        for line in lines:
            if first:
                line, first = line[1:], False  # the array's "["
            out.append(line[:-1] + b"\n")  # the "," between two objects
        piece = deflate.compress(b"".join(out))
        if piece:
            yield piece
    rest += inflate.flush()
    last = rest[1:] if first else rest
    last = last[:-1]  # the array's "]"
    yield deflate.compress(last + b"\n" if last else b"") + deflate.flush()


class BulkDownload:
    """An ASGI answer streaming one built file, gzip as it is or decompressed, or made into a gzip file of JSON Lines
    (``jsonl``), until it ends or its client leaves (or is cut off: connection_limits.CutsOffStalledReaders); its slot in
    ``downloads`` was taken by the caller (before building the file) and is released when the answer ends."""

    def __init__(
        self, built: BulkFile, *, gzip_ok: bool, downloads: Downloads, filename: str, jsonl: bool = False
    ) -> None:
        self.built, self.gzip_ok, self.downloads, self.filename = built, gzip_ok, downloads, filename
        self.jsonl = jsonl

    def _chunks(self) -> Any:
        data = self.built.compressed
        if self.jsonl:
            yield from jsonl_chunks(data)
            return
        if self.gzip_ok:
            for start in range(0, len(data), CHUNK):
                yield data[start : start + CHUNK]
            return
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        for start in range(0, len(data), CHUNK // 8):
            piece = inflate.decompress(data[start : start + CHUNK // 8])
            if piece:
                yield piece
        rest = inflate.flush()
        if rest:
            yield rest

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = [
            (b"content-type", b"application/gzip" if self.jsonl else b"application/json"),
            (b"content-disposition", f'attachment; filename="{self.filename}"'.encode()),
        ]
        if self.jsonl:  # a .jsonl.gz file, sent as its bytes whatever the client accepts (its length unknown)
            pass
        elif self.gzip_ok:
            headers.append((b"vary", b"Accept-Encoding"))
            headers += [
                (b"content-encoding", b"gzip"),
                (b"content-length", str(len(self.built.compressed)).encode()),
            ]
        else:
            headers += [(b"vary", b"Accept-Encoding"), (b"content-length", str(self.built.size).encode())]
        try:
            async with anyio.create_task_group() as answer:

                async def stream() -> None:
                    with contextlib.suppress(OSError):  # a server on ASGI 2.4 says so when the client has gone
                        await self._stream(send, headers)
                    answer.cancel_scope.cancel()

                async def watch() -> None:
                    # the server's send does not fail once the client has gone: its disconnect, read here, ends
                    # the stream instead of every chunk left being sent (inflated) into nothing
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    answer.cancel_scope.cancel()

                answer.start_soon(stream)
                answer.start_soon(watch)
        finally:
            self.downloads.running -= 1

    async def _stream(self, send: Send, headers: list[tuple[bytes, bytes]]) -> None:
        # A reader that stops reading stalls a send here (the transport's flow control) until the server's protocol
        # resets its connection (connection_limits.CutsOffStalledReaders); its disconnect then ends the answer (watch, above).
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        chunks = self._chunks()
        while True:
            # a JSON Lines piece is compressed again on a worker thread (about 20 ms of CPU a piece), not on the loop
            chunk = await anyio.to_thread.run_sync(next, chunks, None) if self.jsonl else next(chunks, None)
            if chunk is None:
                break
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
