"""Download Scryfall bulk data files (https://scryfall.com/docs/api/bulk-data).

Flow: ``GET {api_url}/bulk-data`` lists the daily exports; for each requested type
we compare the entry's ``updated_at``/``size`` with a sidecar written after the
last successful download and only fetch the file when it changed.

Design points, each driven by how Scryfall (and networks) behave:

* Every request carries a descriptive ``User-Agent`` and an ``Accept`` header:
  Scryfall requires both and may block clients that let the HTTP library choose.
* Requests to one host are spaced by ``request_interval`` (default 100 ms) because
  Scryfall asks for 50-100 ms between API calls. A 429 is never powered through:
  we wait ``Retry-After`` (or 30 s, the lock-out Scryfall documents) first.
* Files are streamed in 1 MiB chunks to a temp file in the cache directory and
  moved into place with :func:`os.replace` only after the whole body arrived and
  was verified, so a failed or interrupted download never leaves a half file
  under the final name and never destroys the previous cached copy.
* Scryfall serves ``*.json`` with ``Content-Encoding: gzip``. We keep the bytes
  exactly as served (``<type>.json.gz``, roughly 6x smaller on disk) and check the
  gzip stream runs to its end, because a connection that drops without a
  ``Content-Length`` would otherwise look like a complete (short) file.
"""

from __future__ import annotations

import contextlib
import email.utils
import functools
import json
import os
import socket
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import requests
import urllib3.exceptions
from tqdm import tqdm

from oracle_tools.errors import DownloadError, IngestError
from oracle_tools.store.resources import package_version

__all__ = [
    "ACCEPT",
    "BULK_TYPES",
    "CHUNK_SIZE",
    "DEFAULT_API_URL",
    "USER_AGENT",
    "BulkFile",
    "check_bulk_types",
    "check_ours",
    "fetch_bulk_files",
    "fetch_index",
    "fetch_rules_text",
    "fetch_set_list",
]

BULK_TYPES: tuple[str, ...] = ("oracle_cards", "unique_artwork", "default_cards", "all_cards", "rulings")
DEFAULT_API_URL = "https://api.scryfall.com"


def check_bulk_types(types: Sequence[str]) -> None:
    """Refuse an unknown bulk type (with a "did you mean" from :data:`BULK_TYPES`) or no type at all, in one line,
    before anything is downloaded: an unknown one would otherwise be found only after reaching Scryfall."""
    import difflib

    known = ", ".join(BULK_TYPES)
    if not types:
        raise IngestError(f"no bulk type given to download; give one or more of {known} (--types a,b)")
    for kind in types:
        if kind not in BULK_TYPES:
            close = difflib.get_close_matches(kind, BULK_TYPES, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise IngestError(f"unknown Scryfall bulk type {kind!r}{hint}; known bulk types: {known}")


#: Scryfall: "Your User-Agent header must be accurate to your usage context ...
#: Do not allow HTTP libraries to choose the header for you."
USER_AGENT = f"oracle-tools/{package_version()} (+https://github.com/oracle-tools/oracle-tools)"
#: Scryfall requires an Accept header; this generic preference is the one its docs give.
ACCEPT = "application/json;q=0.9,*/*;q=0.8"
#: Read size for streamed downloads: big enough to keep syscalls few on 2 GB files,
#: small enough that the progress bar moves.
CHUNK_SIZE = 1 << 20

#: Never wait longer than this for one Retry-After, whatever the server says.
MAX_RETRY_AFTER = 120.0
#: Scryfall documents that a 429 locks the client out for 30 seconds; used when a
#: 429 comes without Retry-After.
DEFAULT_429_WAIT = 30.0
#: Upper bound for one exponential-backoff sleep.
MAX_BACKOFF = 60.0

#: The first retry's wait in seconds (then doubled per retry), unless a caller passes ``backoff``. Tests and
#: impatient users set ``ORACLE_TOOLS_BACKOFF`` (e.g. 0.01) to exercise the same retry path without sleeping.
DEFAULT_BACKOFF = 1.0
BACKOFF_ENV = "ORACLE_TOOLS_BACKOFF"


def default_backoff() -> float:
    """``$ORACLE_TOOLS_BACKOFF`` (seconds, >= 0), else :data:`DEFAULT_BACKOFF`; the one place it is read."""
    text = os.environ.get(BACKOFF_ENV, "").strip()
    if not text:
        return DEFAULT_BACKOFF
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= MAX_BACKOFF:
        raise DownloadError(
            f"{BACKOFF_ENV}={text!r} is not a number of seconds from 0 to {MAX_BACKOFF:g}; "
            f"unset it or give e.g. {BACKOFF_ENV}=0.5"
        )
    return value


#: Default spacing between requests to one host (Scryfall asks for 50-100 ms).
DEFAULT_REQUEST_INTERVAL = 0.1

Sleep = Callable[[float], None]
_T = TypeVar("_T")


@dataclass(frozen=True)
class BulkFile:
    """One bulk file available locally after :func:`fetch_bulk_files`."""

    type: str
    """Bulk type, e.g. ``"oracle_cards"``."""
    path: Path
    """Local cached file: ``<type>.json.gz`` when the bytes are gzip (as served), else ``<type>.json``."""
    updated_at: str
    """The index's ``updated_at`` for the copy on disk."""
    size: int | None
    """The index's ``size`` (bytes, as Scryfall reports it), if given."""
    download_uri: str
    """The URI the file was (or would have been) downloaded from."""
    from_cache: bool
    """True when the cached copy was reused because ``updated_at`` and ``size`` were unchanged."""


# --------------------------------------------------------------------------- HTTP plumbing


class _Retryable(Exception):
    """A failure worth another attempt (network, 5xx, 429, truncated body)."""

    def __init__(self, reason: str, wait: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        # Minimum wait the server asked for (Retry-After); None means plain backoff.
        self.wait = wait


class _Throttle:
    """Keeps at least ``interval`` seconds between the starts of requests to one host."""

    def __init__(self, interval: float, sleep: Sleep) -> None:
        self.interval = max(0.0, interval)
        self._sleep = sleep
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def wait(self, url: str) -> None:
        if self.interval <= 0:
            return
        host = urlsplit(url).netloc
        with self._lock:
            last = self._last.get(host)
            if last is not None:
                remaining = self.interval - (time.monotonic() - last)
                if remaining > 0:
                    self._sleep(remaining)
            self._last[host] = time.monotonic()


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP-date).

    Returns None when absent or unparseable; never negative; capped at
    :data:`MAX_RETRY_AFTER` so a hostile or broken header cannot hang the tool.
    """
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # HTTP-dates are GMT by definition
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


class _Client:
    """Session + headers + throttle + retry policy shared by index and file requests."""

    def __init__(
        self,
        session: requests.Session | None,
        *,
        max_retries: int,
        backoff: float | None,
        timeout: float,
        request_interval: float,
        sleep: Sleep,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self._own_session = session is None
        self.session = session if session is not None else requests.Session()
        self.max_retries = max_retries
        self.backoff = default_backoff() if backoff is None else backoff
        self.timeout = timeout
        self.sleep = sleep
        self.notice: Callable[[str], None] = _notice
        self.throttle = _Throttle(request_interval, sleep)

    def close(self) -> None:
        if self._own_session:
            self.session.close()

    def __enter__(self) -> _Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _backoff_delay(self, attempt: int) -> float:
        # attempt is 1 for the first retry: backoff, 2*backoff, 4*backoff, ...
        return min(self.backoff * (2 ** (attempt - 1)), MAX_BACKOFF)

    def get(self, url: str, *, stream: bool) -> requests.Response:
        """One GET (redirects followed). Raises _Retryable or DownloadError on a bad status."""
        self.throttle.wait(url)
        headers = {
            "User-Agent": USER_AGENT,
            "Accept": ACCEPT,
            # Only gzip: it is what Scryfall serves, and the one encoding we store as-is.
            "Accept-Encoding": "gzip",
        }
        try:
            resp = self.session.get(url, headers=headers, stream=stream, timeout=self.timeout, allow_redirects=True)
        except requests.Timeout as exc:
            raise _Retryable(f"timed out after {self.timeout:g} s ({exc})") from exc
        except requests.ConnectionError as exc:
            if (why := _unreachable(exc)) is not None:  # no answer will come by waiting: say so at once
                host = urlsplit(url).netloc or url
                raise DownloadError(f"cannot reach {host}: {why}. {OFFLINE_HINT}") from exc
            raise _Retryable(f"connection failed ({exc})") from exc
        except requests.TooManyRedirects as exc:
            raise DownloadError(f"{url}: too many redirects ({exc})") from exc
        except requests.RequestException as exc:
            raise DownloadError(f"{url}: request failed ({exc})") from exc

        status = resp.status_code
        if status < 400:
            return resp
        detail = _error_detail(resp)
        resp.close()
        where = url if resp.url == url else f"{url} (redirected to {resp.url})"
        if status == 429:
            wait = parse_retry_after(resp.headers.get("Retry-After"))
            raise _Retryable(f"HTTP 429 Too Many Requests{detail}", DEFAULT_429_WAIT if wait is None else wait)
        if status >= 500:
            raise _Retryable(f"HTTP {status} {resp.reason}{detail}", parse_retry_after(resp.headers.get("Retry-After")))
        # Other 4xx: retrying cannot help (wrong URL, blocked client, ...).
        raise DownloadError(f"HTTP {status} {resp.reason} for {where}{detail}")

    def run(self, url: str, what: Callable[[], _T]) -> _T:
        """Call ``what`` until it succeeds, retrying _Retryable up to max_retries times."""
        attempt = 0
        while True:
            try:
                return what()
            except _Retryable as exc:
                attempt += 1
                if attempt > self.max_retries:
                    tries = self.max_retries + 1
                    raise DownloadError(
                        f"could not download {url} after {tries} attempt{'s' if tries != 1 else ''}: {exc.reason}. "
                        f"{OFFLINE_HINT}"
                    ) from exc
                delay = self._backoff_delay(attempt)
                if exc.wait is not None:
                    # The server said how long (Retry-After); waiting less would only earn
                    # another 429, and Scryfall may block clients that ignore it.
                    delay = max(delay, exc.wait)
                self.notice(f"{exc.reason}; retrying in {delay:g} s (attempt {attempt + 1} of {self.max_retries + 1})")
                self.sleep(delay)


def _notice(line: str) -> None:
    """A line for the person waiting (a retry and its wait), on stderr, around any progress bar."""
    tqdm.write(line, file=sys.stderr)


#: What the last line of a failed download says: how to build a database without the network.
OFFLINE_HINT = (
    "Without the network, build a database from the sample inside the package (`oracle-tools ingest --sample`) "
    "or from Scryfall bulk files you have (`oracle-tools ingest --bulk-file FILE`)."
)


#: What the last line of a failed download of the rules text says instead: the cards are not what failed.
RULES_HINT = (
    "Check the rules text's address (each release of the Comprehensive Rules has its own, linked from "
    "https://magic.wizards.com/en/rules), or give a rules text you have with --rules-file FILE; "
    "nothing was replaced."
)


def _unreachable(exc: BaseException) -> str | None:
    """Why a host cannot be reached at all (its name does not resolve, the connection is refused), else None
    (a timeout or a reset may pass: those are retried)."""
    seen: set[int] = set()
    todo: list[object] = [exc]
    while todo:
        current = todo.pop()
        if not isinstance(current, BaseException) or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, socket.gaierror) or type(current).__name__ == "NameResolutionError":
            return "its name does not resolve (no DNS: this machine may be offline)"
        if isinstance(current, ConnectionRefusedError):
            return "the connection was refused (nothing listens there)"
        todo += [current.__cause__, current.__context__, getattr(current, "reason", None), *current.args]
    return None


def _error_detail(resp: requests.Response) -> str:
    """Scryfall error objects carry a human ``details`` string; include it when present."""
    try:
        body = resp.json() if "json" in resp.headers.get("Content-Type", "") else None
    except ValueError:
        return ""
    if isinstance(body, dict) and isinstance(body.get("details"), str):
        return f": {body['details']}"
    return ""


# --------------------------------------------------------------------------- what the cache wrote

#: The download cache's record of the files it wrote: their names (relative to the cache folder) and sizes. The
#: cache's names are fixed (``oracle_cards.json.gz``, ``sets.json``, ...) and ``--cache-dir`` may be any folder, so a
#: file at one of them that the record does not hold (a user's own ``sets.json`` in ~/Downloads) is never replaced,
#: removed or read as a download: the download is refused in one line instead.
MANIFEST = "oracle-tools-downloads.json"
#: Where ``ingest --rules-url`` keeps the rules text it downloads, in the cache folder.
RULES_NAME = "rules/MagicCompRules-downloaded.txt"
_META_SUFFIX = ".meta.json"


def _size(path: Path) -> int | None:
    """The size of the regular file at ``path`` (a symlink is not followed), None when nothing is there."""
    import stat

    try:
        status = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else -1  # -1: a link, folder, ... never ours


def _earlier_cache(cache_dir: Path) -> dict[str, int]:
    """The files a cache written before the record existed holds: each ``<type>.meta.json`` sidecar of ours, the
    file it names, and beside them ``sets.json`` and the rules text (downloaded with them)."""
    found: dict[str, int] = {}
    for bulk_type in BULK_TYPES:
        meta = _read_meta(cache_dir, bulk_type)
        if meta is None or meta.get("type") != bulk_type or not {"updated_at", "download_uri", "path"} <= set(meta):
            continue
        for name in (bulk_type + _META_SUFFIX, Path(str(meta["path"])).name):
            if (size := _size(cache_dir / name)) is not None and size >= 0:
                found[name] = size
    if found:
        for name in ("sets.json", RULES_NAME):
            if (size := _size(cache_dir / name)) is not None and size >= 0:
                found[name] = size
    return found


def _written(cache_dir: Path) -> dict[str, int]:
    """The record of what the cache at ``cache_dir`` wrote (a damaged record holds nothing)."""
    try:
        data = json.loads((cache_dir / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return _earlier_cache(cache_dir)
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}
    return {name: size for name, size in files.items() if isinstance(name, str) and isinstance(size, int)}


def check_ours(cache_dir: Path, name: str) -> None:
    """Refuse (one :class:`IngestError` line) when a file is at ``cache_dir/name`` that this cache did not write,
    or that changed since (another size): it is someone's own file, and the cache would replace or read it."""
    size = _size(cache_dir / name)
    if size is None or _written(cache_dir).get(name) == size:
        return
    raise IngestError(
        f"{cache_dir / name}: is not a file oracle-tools downloaded, so the download cache neither replaces nor "
        "reads it; move it elsewhere, or give --cache-dir a folder of its own (the default is cache/ beside the "
        "database). Nothing was replaced."
    )


@contextlib.contextmanager
def _locked(cache_dir: Path) -> Iterator[None]:
    """The cache folder locked while its record is read and rewritten (two ingests may share a cache)."""
    import fcntl

    fd = os.open(cache_dir, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing lets go of the lock


def _record(cache_dir: Path, name: str) -> None:
    """Note in the record that the cache wrote ``cache_dir/name`` (or, when it is gone, that it removed it)."""
    with _locked(cache_dir):
        files = _written(cache_dir)
        size = _size(cache_dir / name)
        if size is None or size < 0:
            files.pop(name, None)
        else:
            files[name] = size
        _atomic_write_text(cache_dir / MANIFEST, json.dumps({"files": files}, indent=2, sort_keys=True) + "\n")


# --------------------------------------------------------------------------- index


def fetch_index(
    api_url: str = DEFAULT_API_URL,
    *,
    session: requests.Session | None = None,
    max_retries: int = 5,
    backoff: float | None = None,
    timeout: float = 60.0,
    request_interval: float = DEFAULT_REQUEST_INTERVAL,
    sleep: Sleep = time.sleep,
) -> list[dict[str, Any]]:
    """Return the ``bulk_data`` objects listed by ``GET {api_url}/bulk-data``.

    Raises :class:`DownloadError` when the index cannot be fetched after retries or
    is not a Scryfall list of bulk_data objects.
    """
    with _Client(
        session,
        max_retries=max_retries,
        backoff=backoff,
        timeout=timeout,
        request_interval=request_interval,
        sleep=sleep,
    ) as client:
        return _fetch_index(client, api_url)


def _fetch_index(client: _Client, api_url: str) -> list[dict[str, Any]]:
    url = api_url.rstrip("/") + "/bulk-data"
    entries = _fetch_list(client, url, "bulk-data index")  # one page today; next_page followed in case that changes
    for entry in entries:
        if not isinstance(entry, dict) or not all(
            isinstance(entry.get(k), str) for k in ("type", "download_uri", "updated_at")
        ):
            raise DownloadError(f"{url}: bulk_data entry lacks type/download_uri/updated_at: {str(entry)[:200]!r}")
    return entries


def _fetch_list(client: _Client, url: str, what: str) -> list[Any]:
    """The ``data`` of a Scryfall list object at ``url`` and of every page after it."""
    next_url: str | None = url
    entries: list[Any] = []
    seen: set[str] = set()
    while next_url is not None:
        if next_url in seen:  # a next_page loop would otherwise never end
            raise DownloadError(f"{what} at {next_url} pages in a loop")
        seen.add(next_url)
        page_url = next_url
        page = client.run(page_url, functools.partial(_get_json, client, page_url))
        if not isinstance(page, dict) or page.get("object") != "list" or not isinstance(page.get("data"), list):
            raise DownloadError(f"{page_url} did not return a Scryfall list object (got {str(page)[:200]!r})")
        entries.extend(page["data"])
        next_url = page.get("next_page") if page.get("has_more") else None
    return entries


def fetch_set_list(
    api_url: str = DEFAULT_API_URL,
    *,
    cache_dir: Path,
    session: requests.Session | None = None,
    max_retries: int = 5,
    backoff: float | None = None,
    timeout: float = 60.0,
    request_interval: float = DEFAULT_REQUEST_INTERVAL,
    sleep: Sleep = time.sleep,
) -> Path:
    """Download Scryfall's set list (``GET {api_url}/sets``, https://scryfall.com/docs/api/sets) to
    ``cache_dir/sets.json``, written whole or not at all: a JSON array of its set objects, which ``ingest`` keeps
    (oracle_tools/scryfall/sets.py). Raises :class:`DownloadError` as :func:`fetch_bulk_files` does."""
    with _Client(
        session,
        max_retries=max_retries,
        backoff=backoff,
        timeout=timeout,
        request_interval=request_interval,
        sleep=sleep,
    ) as client:
        check_ours(Path(cache_dir), "sets.json")  # before the download: it would be refused after it
        url = api_url.rstrip("/") + "/sets"
        sets = _fetch_list(client, url, "set list")
    if not all(isinstance(item, dict) and item.get("object") == "set" for item in sets):
        raise DownloadError(f"{url} listed something other than set objects")
    if not sets:
        raise DownloadError(f"{url} listed no sets")
    path = Path(cache_dir) / "sets.json"
    check_ours(path.parent, path.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    _atomic_write_text(path, json.dumps(sets, ensure_ascii=False) + "\n")
    _record(path.parent, path.name)
    return path


def _get_json(client: _Client, url: str) -> Any:
    resp = client.get(url, stream=False)
    try:
        return resp.json()
    except ValueError as exc:
        # A captive portal or proxy error page; retrying rarely helps but a CDN hiccup might.
        raise _Retryable(f"response is not JSON ({exc})") from exc
    finally:
        resp.close()


# --------------------------------------------------------------------------- files


def fetch_bulk_files(
    types: Sequence[str],
    *,
    api_url: str = DEFAULT_API_URL,
    cache_dir: Path,
    progress: bool = True,
    max_retries: int = 5,
    backoff: float | None = None,
    timeout: float = 60.0,
    session: requests.Session | None = None,
    request_interval: float = DEFAULT_REQUEST_INTERVAL,
    sleep: Sleep = time.sleep,
) -> list[BulkFile]:
    """Make the given bulk types available in ``cache_dir``, downloading only what changed.

    ``types`` are Scryfall bulk types (see :data:`BULK_TYPES`); duplicates are ignored and
    the result follows their order. ``max_retries`` counts retries after the first
    attempt; waits grow as ``backoff * 2**n`` (capped at 60 s) except after a 429, where
    ``Retry-After`` is honoured. ``timeout`` applies to connecting and to each read,
    not to the whole download. ``request_interval`` spaces requests to one host
    (Scryfall asks for 50-100 ms). ``sleep`` is injectable for tests.

    Raises :class:`DownloadError` for a type the index does not offer (listing the
    ones it does), a non-429 4xx, or when retries run out; files already in
    ``cache_dir`` are left untouched in every failure.
    """
    wanted = list(dict.fromkeys(types))
    if not wanted:
        return []
    cache_dir = Path(cache_dir)  # created when the first file is written: a failed index leaves no empty folder
    for bulk_type in wanted:  # the names known before the download (its file's depends on how it is served)
        check_ours(cache_dir, bulk_type + _META_SUFFIX)

    with _Client(
        session,
        max_retries=max_retries,
        backoff=backoff,
        timeout=timeout,
        request_interval=request_interval,
        sleep=sleep,
    ) as client:
        index = {entry["type"]: entry for entry in _fetch_index(client, api_url)}
        # Check every type before downloading anything: a typo should not cost a 2 GB download first.
        unknown = [t for t in wanted if t not in index]
        if unknown:
            raise DownloadError(
                f"unknown bulk type{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
                f"{api_url.rstrip('/')}/bulk-data offers: {', '.join(sorted(index)) or '(nothing)'}"
            )
        return [_fetch_one(client, index[t], cache_dir, progress) for t in wanted]


def fetch_rules_text(
    url: str,
    *,
    cache_dir: Path,
    max_retries: int = 5,
    backoff: float | None = None,
    timeout: float = 60.0,
    session: requests.Session | None = None,
    sleep: Sleep = time.sleep,
) -> Path:
    """Download the Comprehensive Rules .txt at ``url`` to :data:`RULES_NAME` in ``cache_dir``, atomically, with
    retries; its path.

    The rules text is published at a new address with each release (linked from
    https://magic.wizards.com/en/rules), so the caller passes that address.
    """
    check_ours(cache_dir, RULES_NAME)
    dest = cache_dir / RULES_NAME
    with _Client(
        session, max_retries=max_retries, backoff=backoff, timeout=timeout, request_interval=0.0, sleep=sleep
    ) as client:

        def attempt() -> bytes:
            resp = client.get(url, stream=False)
            try:
                return resp.content
            except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
                raise _Retryable(f"truncated download ({exc})") from exc
            finally:
                resp.close()

        try:
            body = client.run(url, attempt)
        except DownloadError as exc:  # the advice is about the rules address, not about building from the sample
            said = str(exc).replace(OFFLINE_HINT, "").rstrip(". ")
            raise DownloadError(f"--rules-url: {said}. {RULES_HINT}") from None
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")  # a name no one else has
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(body)
        check_ours(cache_dir, RULES_NAME)  # still: the download took a while
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _record(cache_dir, RULES_NAME)
    return dest


def _meta_path(cache_dir: Path, bulk_type: str) -> Path:
    return cache_dir / f"{bulk_type}.meta.json"


def _read_meta(cache_dir: Path, bulk_type: str) -> dict[str, Any] | None:
    try:
        meta = json.loads(_meta_path(cache_dir, bulk_type).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # absent or damaged sidecar: treat as "not cached"
    return meta if isinstance(meta, dict) else None


def _cached_file(cache_dir: Path, meta: dict[str, Any] | None) -> Path | None:
    if meta is None or not isinstance(meta.get("path"), str):
        return None
    # The sidecar stores a name relative to cache_dir so the folder can be moved.
    path = cache_dir / Path(meta["path"]).name
    return path if path.is_file() else None


def _fetch_one(client: _Client, entry: dict[str, Any], cache_dir: Path, progress: bool) -> BulkFile:
    bulk_type: str = entry["type"]
    updated_at: str = entry["updated_at"]
    download_uri: str = entry["download_uri"]
    size = entry.get("size") if isinstance(entry.get("size"), int) else None

    meta = _read_meta(cache_dir, bulk_type)
    cached = _cached_file(cache_dir, meta)
    if cached is not None:
        check_ours(cache_dir, cached.name)  # never read (or later remove) a file put there under the cache's name
    if cached is not None and meta is not None and meta.get("updated_at") == updated_at and meta.get("size") == size:
        return BulkFile(bulk_type, cached, updated_at, size, str(meta.get("download_uri", download_uri)), True)

    path = client.run(download_uri, lambda: _download(client, download_uri, cache_dir, bulk_type, size, progress))

    new_meta = {
        "type": bulk_type,
        "updated_at": updated_at,
        "size": size,
        "download_uri": download_uri,
        "path": path.name,
    }
    check_ours(cache_dir, bulk_type + _META_SUFFIX)
    _atomic_write_text(_meta_path(cache_dir, bulk_type), json.dumps(new_meta, indent=2) + "\n")
    _record(cache_dir, bulk_type + _META_SUFFIX)
    # The encoding may have changed between runs (.json <-> .json.gz); drop the stale copy
    # only now that the new one and its sidecar are in place.
    if cached is not None and cached != path:
        cached.unlink(missing_ok=True)
        _record(cache_dir, cached.name)
    return BulkFile(bulk_type, path, updated_at, size, download_uri, False)


def _atomic_write_text(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class _GzipChecker:
    """Feeds the compressed bytes through zlib to prove the gzip stream is complete and valid.

    The decompressed output is discarded chunk by chunk, so memory stays flat even
    for the 2 GB all_cards file.
    """

    def __init__(self) -> None:
        self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self.members = 0
        self._in_member = False  # bytes of a not-yet-finished member have been fed

    def feed(self, data: bytes) -> None:
        while data:
            self._in_member = True
            try:
                self._d.decompress(data)
            except zlib.error as exc:
                raise _Retryable(f"corrupt gzip data ({exc})") from exc
            if not self._d.eof:
                return
            # A gzip file may hold several members back to back (RFC 1952); go on with the rest.
            self.members += 1
            self._in_member = False
            data = self._d.unused_data
            self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)

    def finish(self) -> None:
        # Without a Content-Length, a dropped connection looks like a normal end of body;
        # only the missing gzip trailer (CRC + length) tells us the file is cut short.
        if self.members == 0 or self._in_member:
            raise _Retryable("truncated download: gzip stream ends before its trailer")


def _download(
    client: _Client, url: str, cache_dir: Path, bulk_type: str, index_size: int | None, progress: bool
) -> Path:
    """One download attempt: stream to a temp file, verify, then atomically rename."""
    resp = client.get(url, stream=True)
    tmp_path: Path | None = None
    try:
        encoding = resp.headers.get("Content-Encoding", "").strip().lower()
        # Keep gzip as served: Content-Encoding gzip (Scryfall's .json files) or a .gz file.
        gz_name = urlsplit(resp.url).path.endswith(".gz") or urlsplit(url).path.endswith(".gz")
        is_gzip = encoding in ("gzip", "x-gzip") or gz_name
        # Any other encoding (we only ask for gzip, but servers may ignore that) is decoded
        # by urllib3 so what we store is plain JSON.
        decode = not is_gzip and encoding not in ("", "identity")
        final = cache_dir / f"{bulk_type}.json{'.gz' if is_gzip else ''}"
        check_ours(cache_dir, final.name)  # before the body: a file of the user's at the name is refused at once
        expected = _content_length(resp)
        total = expected if expected is not None else index_size

        cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=f".{bulk_type}.", suffix=".tmp")
        tmp_path = Path(tmp)
        checker = _GzipChecker() if is_gzip else None
        received = 0
        with (
            os.fdopen(fd, "wb") as fh,
            tqdm(
                total=total,
                unit="B",
                unit_scale=True,
                unit_divisor=1024,
                desc=bulk_type,
                # None lets tqdm hide itself when stderr is not a terminal (CI logs).
                disable=True if not progress else None,
                leave=False,
            ) as bar,
        ):
            for chunk in _stream(resp, decode):
                fh.write(chunk)
                received += len(chunk)
                if checker is not None:
                    checker.feed(chunk)
                bar.update(len(chunk))
            # urllib3 also enforces Content-Length, but be explicit: a short body is a
            # truncated download however the connection happened to end.
            if expected is not None and not decode and received != expected:
                raise _Retryable(f"truncated download: got {received} of {expected} bytes")
            if checker is not None:
                checker.finish()
            if received == 0:
                raise _Retryable("empty response body")
            fh.flush()
            # Make the bytes durable before the rename makes them visible under the final name.
            os.fsync(fh.fileno())
        check_ours(cache_dir, final.name)  # still: the download took a while
        os.replace(tmp_path, final)
        tmp_path = None
        _record(cache_dir, final.name)
        return final
    finally:
        resp.close()
        if tmp_path is not None:
            tmp_path.unlink(missing_ok=True)


def _content_length(resp: requests.Response) -> int | None:
    value = resp.headers.get("Content-Length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _stream(resp: requests.Response, decode: bool) -> Iterator[bytes]:
    """Yield body chunks, turning mid-body network failures into _Retryable."""
    try:
        # resp.raw.stream(decode_content=False) yields the bytes exactly as sent on the
        # wire (still gzip), unlike iter_content which always decodes.
        yield from resp.raw.stream(CHUNK_SIZE, decode_content=decode)
    except (urllib3.exceptions.ProtocolError, urllib3.exceptions.IncompleteRead) as exc:
        raise _Retryable(f"truncated download: connection closed mid-body ({exc})") from exc
    except (urllib3.exceptions.ReadTimeoutError, TimeoutError) as exc:
        raise _Retryable(f"read timed out mid-body ({exc})") from exc
    except (urllib3.exceptions.HTTPError, requests.RequestException, ConnectionError) as exc:
        raise _Retryable(f"connection failed mid-body ({exc})") from exc
