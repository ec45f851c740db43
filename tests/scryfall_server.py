"""A loopback stand-in for api.scryfall.com + data.scryfall.io, for download tests.

It is a real HTTP/1.1 server (``ThreadingHTTPServer`` on 127.0.0.1, ephemeral port)
so the client under test goes through requests/urllib3/sockets exactly as it would
in production; nothing is mocked.

What it serves:

* ``GET /bulk-data`` -- a Scryfall ``list`` of ``bulk_data`` objects, one per
  registered bulk type (all of :data:`BULK_TYPES` by default);
* ``GET /file/<type>.json`` (or the path given to :meth:`ScryfallServer.add_bulk`)
  -- the payload, gzip-encoded when the route says so and the client accepts it;
* any extra route added with :meth:`ScryfallServer.add_route`.

Per-path scripting (:meth:`ScryfallServer.script`) queues :class:`Reply` objects
that are used, in order, for the next requests to that path -- a redirect, a 429
with Retry-After, a 500, a body cut short, a 404, a slow reply -- after which the
path serves normally (or keeps repeating the last reply with ``repeat_last=True``).

Every request's headers and time are recorded per path (:meth:`requests_for`,
:meth:`count`).

Usage::

    with ScryfallServer(payload=sample_payload()) as srv:
        srv.script(srv.file_path("oracle_cards"), Reply.error(500))
        fetch_bulk_files(["oracle_cards"], api_url=srv.url, cache_dir=tmp)
"""

from __future__ import annotations

import gzip
import json
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
REALDATA_DUMP = REPO.parent / "shared" / "realdata" / "scryfall-default-cards-2019-10-per-set-dump.json.gz"
SAMPLE_DIR = REPO / "oracle_tools" / "data" / "sample"

BULK_TYPES = ("oracle_cards", "unique_artwork", "default_cards", "all_cards", "rulings")
DEFAULT_UPDATED_AT = "2024-10-12T09:01:35.443+00:00"

# Last resort when neither the real-data dump nor oracle_tools/data/sample is present: two card
# objects copied in Scryfall's shape (trimmed) so the tests still exercise real JSON.
_FALLBACK_CARDS: list[dict[str, Any]] = [
    {
        "object": "card",
        "id": "09dd7aab-c0ac-4566-bf99-c49931eeea2a",
        "oracle_id": "f27d52e6-aab9-4f95-ae46-33d1173bf4fe",
        "name": "Submerged Boneyard",
        "lang": "en",
        "released_at": "2017-01-20",
        "layout": "normal",
        "mana_cost": "",
        "cmc": 0.0,
        "type_line": "Land",
        "oracle_text": "Submerged Boneyard enters the battlefield tapped.\n{T}: Add {U} or {B}.",
        "colors": [],
        "color_identity": ["B", "U"],
        "set": "aer",
        "collector_number": "194",
        "rarity": "uncommon",
    },
    {
        "object": "card",
        "id": "e3285e6b-3e79-4d7c-bf96-d920f973b122",
        "oracle_id": "4457ed35-7c10-48c8-9776-456485fdf070",
        "name": "Lightning Bolt",
        "lang": "en",
        "released_at": "2010-07-16",
        "layout": "normal",
        "mana_cost": "{R}",
        "cmc": 1.0,
        "type_line": "Instant",
        "oracle_text": "Lightning Bolt deals 3 damage to any target.",
        "colors": ["R"],
        "color_identity": ["R"],
        "set": "m11",
        "collector_number": "149",
        "rarity": "common",
    },
]


def _bulk_file_bytes(objects: list[Any]) -> bytes:
    """Serialise like a Scryfall bulk file: ``[``, one compact object per line, ``]``."""
    lines = ",\n".join(json.dumps(o, ensure_ascii=False, separators=(",", ":")) for o in objects)
    return ("[\n" + lines + "\n]\n").encode("utf-8")


def _objects_from_dump(path: Path, n: int) -> list[Any]:
    # The dump is written one object per line, so the first n objects need only a few
    # hundred KB of the 127 MB stream -- no full json.load.
    objects: list[Any] = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            line = line.strip().rstrip(",")
            if line in ("", "[", "]"):
                continue
            objects.append(json.loads(line))
            if len(objects) >= n:
                break
    return objects


def _objects_from_sample(folder: Path, n: int) -> list[Any]:
    for path in sorted(folder.glob("*.json.gz")):
        try:
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("data"), list):
            data = data["data"]
        if isinstance(data, list) and data and all(isinstance(o, dict) for o in data[:n]):
            return data[:n]
    return []


def sample_payload(n: int = 50) -> bytes:
    """About ``n`` real Scryfall card objects as bulk-file bytes.

    Source, first found: the 2019 default-cards dump in ../shared/realdata, then
    oracle_tools/data/sample/*.json.gz, then two built-in card objects.
    """
    objects: list[Any] = []
    if REALDATA_DUMP.is_file():
        objects = _objects_from_dump(REALDATA_DUMP, n)
    if not objects and SAMPLE_DIR.is_dir():
        objects = _objects_from_sample(SAMPLE_DIR, n)
    if not objects:
        objects = list(_FALLBACK_CARDS)
    return _bulk_file_bytes(objects)


@dataclass
class Reply:
    """One scripted response.

    ``body=None`` means "the route's normal body". ``truncate_to`` sends only that many
    bytes of the (possibly gzip-encoded) body, still announcing the full Content-Length
    unless ``content_length=False``, then closes the connection. ``delay`` sleeps
    before answering (to provoke client read timeouts).
    """

    status: int = 200
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    truncate_to: int | None = None
    content_length: bool = True
    delay: float = 0.0
    gzip: bool | None = None  # None: as the route says

    @classmethod
    def redirect(cls, location: str, status: int = 302) -> Reply:
        return cls(status=status, body=b"", headers={"Location": location})

    @classmethod
    def too_many_requests(cls, retry_after: str | None = "1") -> Reply:
        headers = {"Content-Type": "application/json"}
        if retry_after is not None:
            headers["Retry-After"] = retry_after
        return cls(status=429, body=_error_json(429, "too_many_requests", "Slow down."), headers=headers)

    @classmethod
    def error(cls, status: int = 500) -> Reply:
        code = "not_found" if status == 404 else "server_error"
        return cls(
            status=status,
            body=_error_json(status, code, f"Scripted HTTP {status}."),
            headers={"Content-Type": "application/json"},
        )

    @classmethod
    def truncated(cls, keep: int, *, content_length: bool = True, gzip: bool | None = None) -> Reply:
        return cls(truncate_to=keep, content_length=content_length, gzip=gzip)

    @classmethod
    def slow(cls, delay: float) -> Reply:
        return cls(delay=delay)


def _error_json(status: int, code: str, details: str) -> bytes:
    return json.dumps({"object": "error", "code": code, "status": status, "details": details}).encode()


@dataclass
class Route:
    body: bytes
    content_type: str = "application/json"
    gzip: bool = False  # send Content-Encoding: gzip when the client accepts it


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    time: float  # time.monotonic() when the request line was read


@dataclass
class _Bulk:
    type: str
    file_path: str
    updated_at: str
    size: int
    content_encoding: str | None


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up (a test that stops a download, a retry that gives up) is no error of the server: without
    this, socketserver prints the reset's traceback into the test run's output."""

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class ScryfallServer:
    """Loopback Scryfall: bulk-data index + files, scriptable per path, recording requests."""

    def __init__(
        self,
        payload: bytes | None = None,
        *,
        types: tuple[str, ...] = BULK_TYPES,
        gzip_files: bool = False,
        updated_at: str = DEFAULT_UPDATED_AT,
    ) -> None:
        self.payload = payload if payload is not None else sample_payload()
        self._lock = threading.Lock()
        self._routes: dict[str, Route] = {}
        self._scripts: dict[str, tuple[deque[Reply], bool]] = {}
        self._requests: list[RecordedRequest] = []
        self._bulk: dict[str, _Bulk] = {}
        self._httpd = _QuietServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None
        for t in types:
            self.add_bulk(t, gzip=gzip_files, updated_at=updated_at)

    # ------------------------------------------------------------------ configuration

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        assert isinstance(host, str)  # an AF_INET address: (host, port)
        return f"http://{host}:{port}"

    @staticmethod
    def file_path(bulk_type: str) -> str:
        return f"/file/{bulk_type}.json"

    def add_route(self, path: str, body: bytes, *, gzip: bool = False, content_type: str = "application/json") -> None:
        with self._lock:
            self._routes[path] = Route(body, content_type, gzip)

    def add_bulk(
        self,
        bulk_type: str,
        payload: bytes | None = None,
        *,
        path: str | None = None,
        gzip: bool = False,
        updated_at: str = DEFAULT_UPDATED_AT,
        size: int | None = None,
    ) -> str:
        """Register a bulk type in the index and serve its file; returns the file's path."""
        body = payload if payload is not None else self.payload
        path = path or self.file_path(bulk_type)
        content_type = "application/gzip" if path.endswith(".gz") else "application/json"
        self.add_route(path, body, gzip=gzip, content_type=content_type)
        with self._lock:
            self._bulk[bulk_type] = _Bulk(
                bulk_type, path, updated_at, len(body) if size is None else size, "gzip" if gzip else None
            )
        return path

    def remove_bulk(self, bulk_type: str) -> None:
        with self._lock:
            del self._bulk[bulk_type]

    def set_bulk(
        self,
        bulk_type: str,
        *,
        updated_at: str | None = None,
        size: int | None = None,
        download_path: str | None = None,
        payload: bytes | None = None,
    ) -> None:
        """Change what the index says about a type (and optionally the file it serves)."""
        with self._lock:
            b = self._bulk[bulk_type]
            if updated_at is not None:
                b.updated_at = updated_at
            if download_path is not None:
                b.file_path = download_path
            if payload is not None:
                route = self._routes[b.file_path]
                self._routes[b.file_path] = Route(payload, route.content_type, route.gzip)
                b.size = len(payload)
            if size is not None:
                b.size = size

    def script(self, path: str, *replies: Reply, repeat_last: bool = False) -> None:
        """Answer the next requests to ``path`` with ``replies`` in order.

        Afterwards the path serves normally, or with ``repeat_last`` keeps answering
        with the last reply forever (always-500, always-truncated, ...).
        """
        with self._lock:
            self._scripts[path] = (deque(replies), repeat_last)

    def index(self) -> dict[str, Any]:
        """The bulk-data list object, shaped like api.scryfall.com/bulk-data."""
        with self._lock:
            bulks = list(self._bulk.values())
        data = []
        for b in bulks:
            data.append(
                {
                    "object": "bulk_data",
                    "id": f"00000000-0000-4000-8000-{abs(hash(b.type)) % 10**12:012d}",
                    "type": b.type,
                    "updated_at": b.updated_at,
                    "uri": f"{self.url}/bulk-data/{b.type}",
                    "name": b.type.replace("_", " ").title(),
                    "description": f"Loopback test copy of {b.type}.",
                    "size": b.size,
                    "download_uri": f"{self.url}{b.file_path}",
                    "content_type": "application/json",
                    "content_encoding": b.content_encoding or "identity",
                }
            )
        return {"object": "list", "has_more": False, "data": data}

    # ------------------------------------------------------------------ inspection

    def requests_for(self, path: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self._requests if r.path == path]

    def count(self, path: str) -> int:
        return len(self.requests_for(path))

    @property
    def all_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> ScryfallServer:
        # A short poll interval keeps shutdown() (hence each test's teardown) fast.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="scryfall-loopback", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScryfallServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ request handling

    def _next_reply(self, path: str) -> Reply | None:
        with self._lock:
            queued = self._scripts.get(path)
            if queued is None:
                return None
            replies, repeat_last = queued
            if not replies:
                return None
            if len(replies) == 1 and repeat_last:
                return replies[0]
            return replies.popleft()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the real CDN does

            def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                with server._lock:
                    server._requests.append(RecordedRequest(path, dict(self.headers.items()), time.monotonic()))
                reply = server._next_reply(path) or Reply()
                if reply.delay:
                    time.sleep(reply.delay)
                if path == "/bulk-data" and reply.body is None and reply.status == 200:
                    self._send(reply, Route(json.dumps(server.index()).encode()))
                    return
                with server._lock:
                    route = server._routes.get(path)
                if route is None and reply.body is None:
                    self._send(Reply.error(404), Route(b""))
                    return
                self._send(reply, route or Route(b""))

            def _send(self, reply: Reply, route: Route) -> None:
                body = reply.body if reply.body is not None else route.body
                headers = {"Content-Type": route.content_type}
                use_gzip = route.gzip if reply.gzip is None else reply.gzip
                if use_gzip and reply.body is None and "gzip" in self.headers.get("Accept-Encoding", ""):
                    body = gzip.compress(body, mtime=0)
                    headers["Content-Encoding"] = "gzip"
                headers.update(reply.headers)
                headers.setdefault("Date", formatdate(usegmt=True))
                self.send_response(reply.status)
                for k, v in headers.items():
                    self.send_header(k, v)
                cut = reply.truncate_to is not None or not reply.content_length
                if reply.content_length:
                    self.send_header("Content-Length", str(len(body)))
                if cut:
                    # The body ends when we close; tell the client not to reuse the socket.
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()
                try:
                    self.wfile.write(body if reply.truncate_to is None else body[: reply.truncate_to])
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

        return Handler
