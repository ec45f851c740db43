"""The database behind the HTTP server: one read-only ``OracleDB`` per process, safe across requests.

Concurrency (reliability):

* Handlers run on worker threads, in a bounded pool per kind of work (pools.py's ``POOLS``). Card objects,
  lookups by id/set and searches use a DuckDB **cursor per worker thread** (``Generation.cursor()``: a
  connection of its own to the same database, created once per thread), so concurrent requests never share a
  DuckDB connection (one serves one thread at a time).
* The ``OracleDB`` rules methods (resolve, token, choose_name, check_deck …) run on **this thread's own
  view** of the database (``Generation.db``: ``OracleDB.on_connection`` over the thread's cursor). The views
  share what the generation's ``OracleDB`` builds once (the name index, the name chooser, the deck checker:
  built under its own lock, in the background at open, then read from memory only), so no request waits for
  another's: a deck of 1,000 misspelt names takes one thread, and a 2-line deck or a lookup goes beside it.
* Answers that depend only on the database are cached per generation (card objects as JSON bytes,
  representative printings, search results, the autocomplete name list): the database is read-only, so a
  cache is exact until the file changes, and it is dropped with the generation. Every cache a request can
  grow is bounded in **bytes** (:class:`ByteCache`, least recently used out), not in entries: a search of
  300,000 printings is one entry of 12 MB where a named lookup is 200 bytes.

Re-ingest while the server runs (``oracle-tools ingest`` writes a new file and renames it over the
old one): every request first compares the file's identity (device, inode, size, mtime — one
``stat``) with the open generation's; SIGHUP forces the same check to reopen. On a change, new
requests wait until the requests in flight on the old database have finished (they are never
failed), the old connections are closed and the new file is opened — **picked up on the next
request**. A request takes its generation only once its body has been read (app.py's ``ReadBodyFirst``),
so a client that stalls while sending never holds a swap up. Waiting for the in-flight requests is needed, not just tidy: DuckDB keeps one database
instance per path in a process, so the new file is only read once every connection to the old one is
closed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import threading
import time
from array import array
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from oracle_tools.db import OracleDB
from oracle_tools.errors import DatabaseDamagedError, DatabaseOutdatedError, OracleToolsError

if TYPE_CHECKING:
    import duckdb

    from oracle_tools.names import stored as _stored

log = logging.getLogger("oracle_tools.interfaces.serve")
_Built = TypeVar("_Built")


@dataclass(frozen=True)
class Kept(Generic[_Built]):
    """The key of a value a generation computes once (``Generation.cached``): its type parameter is the value's type,
    so each kept value has one type and mypy checks every builder against it. ``part`` tells apart the values kept
    per something (a catalog's name, a bulk file's kind and address)."""

    name: str
    part: str = ""

    def of(self, part: str) -> Kept[_Built]:
        """The key of this value for ``part``."""
        return Kept(self.name, part)


MB = 1024 * 1024
#: Bytes of card objects kept as JSON per generation (every Oracle card's representative printing of the real
#: data is about 70 MB; printings other requests asked for fill the rest).
CARD_CACHE_BYTES = 160 * MB
#: Bytes of /cards/named answers kept per generation (a name's printing id or its error).
NAMED_CACHE_BYTES = 16 * MB
#: Bytes of rules-endpoint answers (GET /names/resolve, /tokens, /choose-name[/list], /changes) kept per generation.
ANSWER_CACHE_BYTES = 64 * MB
#: Bytes of search results (printing ids, :class:`IdList`) kept per generation.
SEARCH_CACHE_BYTES = 64 * MB
#: What one cache entry costs beside its value's bytes (the key, the dict and order slots), roughly.
ENTRY_BYTES = 200
#: Cached card JSON holds this in place of the server's address; each answer puts the request's base URL in
#: (a client may reach the server as localhost or 127.0.0.1).
BASE_URL = "http://oracle-tools.base.invalid"
BASE_URL_BYTES = BASE_URL.encode()
#: Seconds a stopping server waits for a warm-up still running (it stops at its next step once interrupted).
STOP_WARM_WAIT = 3.0
#: Oracle cards whose representative printing's JSON is built at open, in the background, in chunks.
WARM_CHUNK = 2000


class ByteCache:
    """A cache bounded in bytes: each entry is kept with its size, and the least recently used go first when a new
    one would pass ``limit``; an entry over a quarter of the limit is not kept at all. Safe across threads (one
    short lock around the dictionary, never around building a value)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.bytes = 0
        self._items: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable, default: Any = None) -> Any:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return default
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: Hashable, value: Any, size: int) -> None:
        size += ENTRY_BYTES
        if size > self.limit // 4:
            return
        with self._lock:
            previous = self._items.pop(key, None)
            if previous is not None:
                self.bytes -= previous[1]
            while self._items and self.bytes + size > self.limit:
                self.bytes -= self._items.popitem(last=False)[1][1]
            self._items[key] = (value, size)
            self.bytes += size

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.bytes = 0


class IdList:
    """A search's printing ids in order, compact: one string of them all and where each ends (about 40 bytes an
    id, where a list of strings takes about 90), sliced a page at a time."""

    def __init__(self, ids: Sequence[str]) -> None:
        self._text = "".join(ids)
        self._ends = array("Q", accumulate(map(len, ids)))

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, at: int) -> str:
        return self.slice(at, at + 1)[0]

    def slice(self, start: int, stop: int) -> list[str]:
        stop = min(stop, len(self._ends))
        ends = self._ends
        out = []
        begin = ends[start - 1] if start > 0 else 0
        for at in range(start, stop):
            out.append(self._text[begin : ends[at]])
            begin = ends[at]
        return out

    @property
    def nbytes(self) -> int:
        return sys.getsizeof(self._text) + self._ends.itemsize * len(self._ends)


def card_bytes(card: dict[str, Any]) -> bytes:
    return json.dumps(card, ensure_ascii=False, default=str, separators=(",", ":")).encode("utf-8")


def file_identity(path: Path) -> tuple[int, int, int, int] | None:
    """What changes when ingest swaps a new file in: (device, inode, size, mtime); None if absent."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class _GenerationDB(OracleDB):
    """A generation's one OracleDB: once the generation is closed its connections stay closed (``OracleDB.con``
    would quietly open a new one for whatever is still building, and nothing would close it)."""

    closed = False

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        if self.closed:
            raise OracleToolsError("the database was closed (reopened after a re-ingest); retry")
        return super().con

    @property
    def user_con(self) -> duckdb.DuckDBPyConnection:
        if self.closed:
            raise OracleToolsError("the database was closed (reopened after a re-ingest); retry")
        return super().user_con

    def _names_file(self) -> _stored.StoredNames | None:
        if self.closed:  # nor its names file (a new one would be the next file's)
            raise OracleToolsError("the database was closed (reopened after a re-ingest); retry")
        return super()._names_file()


class Generation:
    """One opened database file, with its per-thread cursors and caches."""

    def __init__(self, path: Path, number: int) -> None:
        self.path = path
        self.number = number
        self.identity = file_identity(path)
        #: the one OracleDB of this file: what it builds once is shared by every thread's view (``db``)
        self.owner = _GenerationDB(path)
        _ = self.owner.con  # open now (raises DatabaseMissingError), not concurrently in the first requests
        self._cursor_lock = threading.Lock()
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        #: card objects as JSON by printing id (b"": asked for, not in the database)
        self.card_json = ByteCache(CARD_CACHE_BYTES)
        #: Oracle id -> its representative printing's id (one per Oracle card: bounded by the database)
        self.representative: dict[str, str] = {}
        self._kept: dict[Kept[Any], Any] = {}
        #: /cards/named answers by (exact|fuzzy, name, set): a printing id or the ApiError to answer
        self.named = ByteCache(NAMED_CACHE_BYTES)
        #: 200 answers of the GET rules endpoints as JSON bytes, by (path, parameters)
        self.answers = ByteCache(ANSWER_CACHE_BYTES)
        #: search results (IdList) by (q, unique, order, dir)
        self.searches = ByteCache(SEARCH_CACHE_BYTES)
        self.closed = False
        self.warm_thread: threading.Thread | None = None
        self._owner_closed = False
        self.warm_seconds: float | None = None  # set when the background warm-up has finished
        #: run at the end of the warm-up, once every card object is built (the app's: the bulk files' prebuild)
        self.on_warm: Callable[[Generation], None] | None = None
        #: the damage the first read that met it found (:meth:`note_damage`): every request then answers it
        self.damage: DatabaseDamagedError | None = None

    def note_damage(self, exc: BaseException) -> DatabaseDamagedError | None:
        """The :class:`DatabaseDamagedError` ``exc`` means (a DuckDB error saying the file is cut short or a block
        fails its checksum, or that error already), else None. The first is kept: every later request of this
        generation answers the same line at once (Store.acquire), whatever it asks, until the file changes."""
        from oracle_tools.store.sqlfiles import damaged_database

        found = exc if isinstance(exc, DatabaseDamagedError) else damaged_database(exc, self.path)
        if found is None:
            return None
        if self.damage is None:
            self.damage = found
            log.warning("%s; every request is answered so until the file is replaced", found)
        return self.damage

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """This thread's own DuckDB connection to the database (created on first use)."""
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            with self._cursor_lock:
                if self.closed:
                    raise OracleToolsError("the database was closed (reopened after a re-ingest); retry")
                cur = self.owner.con.cursor()
                self._cursors.append(cur)
            self._local.cursor = cur
        return cur

    @property
    def db(self) -> OracleDB:
        """This thread's view of the database (``OracleDB.on_connection`` over :meth:`cursor`): rules calls on it
        never wait for another thread's."""
        view = getattr(self._local, "db", None)
        if view is None:
            view = self._local.db = self.owner.on_connection(self.cursor(), self.user_cursor)
        return view

    def user_cursor(self) -> duckdb.DuckDBPyConnection:
        """This thread's own connection for user-derived SQL (search): a cursor of the sandboxed
        ``OracleDB.user_con`` when the database has it, else of the read-only connection."""
        cur = getattr(self._local, "user_cursor", None)
        if cur is None:
            with self._cursor_lock:
                if self.closed:
                    raise OracleToolsError("the database was closed (reopened after a re-ingest); retry")
                base = self.owner.user_con  # the sandbox: searches run user-derived SQL
                cur = base.cursor()
                self._cursors.append(cur)
            self._local.user_cursor = cur
        return cur

    def store_cards(self, cards: list[dict[str, Any]], asked: list[str]) -> dict[str, bytes]:
        """Keep built card objects as JSON; ids asked for but not found are remembered as misses (b"").
        Returns them by id (the cache may let some go at once)."""
        found = {card["id"]: card_bytes(card) for card in cards}
        answers = {pid: found.get(pid, b"") for pid in asked}
        for pid, body in answers.items():
            self.card_json.put(pid, body, len(body) + len(pid))
        return answers

    def card_objects_json(self, ids: Sequence[str]) -> list[bytes | None]:
        """Card objects as JSON bytes for printing ids (None for an unknown id), from the cache or built and kept.
        The links inside hold the placeholder BASE_URL; each answer puts its request's base URL in."""
        from oracle_tools.scryfall import cardjson

        found: dict[str, bytes | None] = {pid: self.card_json.get(pid) for pid in dict.fromkeys(ids)}
        missing = [pid for pid, body in found.items() if body is None]
        if missing:
            built = cardjson.card_objects(self.cursor(), ids=missing, base_url=BASE_URL)
            found.update(self.store_cards(built, missing))
        return [found[pid] or None for pid in ids]

    def representative_of(self, oracle_ids: Sequence[str]) -> dict[str, str]:
        """Printing id of each Oracle id's representative printing (cardjson's rule), kept; unknown ids are left
        out (and not kept: a client's made-up ids would fill the cache)."""
        from oracle_tools.scryfall import cardjson

        cache = self.representative
        missing = [oid for oid in dict.fromkeys(oracle_ids) if oid not in cache]
        found = cardjson.representative_ids(self.cursor(), missing) if missing else {}
        cache.update(found)
        return {oid: pid for oid in oracle_ids if (pid := cache.get(oid) or found.get(oid))}

    def remember_named(self, key: tuple[str, str, str], answer: Any) -> None:
        """Keep what /cards/named answered for ``key`` (see Generation.named)."""
        size = sum(len(part) for part in key) + (len(answer) if isinstance(answer, str) else 400)
        self.named.put(key, answer, size)

    def remember_answer(self, key: Hashable, body: bytes) -> None:
        """Keep a rules endpoint's 200 answer (see Generation.answers)."""
        self.answers.put(key, body, len(body) + len(repr(key)))

    def warm(self) -> None:
        """Build every Oracle card's representative printing and its JSON (background thread after open):
        /cards/named and /cards/collection then answer from memory. Stops when the generation closes."""
        import time

        from oracle_tools.scryfall import cardjson, lookups

        started = time.perf_counter()
        try:
            # the name index first (every name lookup reads it), built once for every thread's view
            if not self._open_still():
                return
            _ = self.owner.name_index
            with self._cursor_lock:  # registered, so close() ends it (and the swap can open the new file)
                if self.closed:
                    return
                cur = self.owner.con.cursor()
                self._cursors.append(cur)
            try:
                oids = lookups.oracle_ids(cur)
                reps = cardjson.representative_ids(cur, oids)
                for oid in oids:
                    self.representative.setdefault(oid, reps.get(oid, ""))
                ids = [pid for pid in reps.values() if self.card_json.get(pid) is None]
                for start in range(0, len(ids), WARM_CHUNK):
                    if self.closed:
                        return
                    chunk = ids[start : start + WARM_CHUNK]
                    self.store_cards(cardjson.card_objects(cur, ids=chunk, base_url=BASE_URL), chunk)
            finally:
                with self._cursor_lock:
                    if cur in self._cursors:
                        self._cursors.remove(cur)
                        cur.close()
            if not self._open_still():
                return
            _ = self.owner.deck_checker  # each card's deck rules, for deck checks
            if self.on_warm is not None and self._open_still():
                self.on_warm(self)
            self.warm_seconds = time.perf_counter() - started
            log.info(
                "generation %d warm: %d card objects in %.1f s", self.number, len(self.card_json), self.warm_seconds
            )
        except Exception as exc:  # warming is an optimisation; requests build what they need
            if not self.closed and self.note_damage(exc) is None:
                log.warning("warming the card cache stopped: %s", exc)

    def _open_still(self) -> bool:
        """Whether the generation is still open (asked under the lock close() takes)."""
        with self._cursor_lock:
            return not self.closed

    def cached(self, key: Kept[_Built], build: Callable[[], _Built]) -> _Built:
        """The value kept under ``key``, computed once per generation (built again if two threads race: both answers
        are equal)."""
        try:
            found: _Built = self._kept[key]
            return found
        except KeyError:
            value = self._kept[key] = build()
            return value

    def peek(self, key: Kept[_Built]) -> _Built | None:
        """The value kept under ``key`` if it was built already, else None (nothing is built)."""
        found: _Built | None = self._kept.get(key)
        return found

    def interrupt(self) -> None:
        """Stop the queries running on this generation's cursors and the warm-up's (the server is stopping)."""
        with self._cursor_lock:
            for cur in [*self._cursors, *([] if self._owner_closed else [self.owner.con])]:
                try:
                    cur.interrupt()
                except Exception as exc:  # the others must be interrupted too
                    log.debug("interrupting a cursor: %s", exc)

    def close(self, *, warm_wait: float | None = None) -> None:
        """Close every connection to the file. The warm-up builds the name index and deck checker on the owner's
        connection: it is interrupted and waited for (up to ``warm_wait`` seconds, None: until it ends) first,
        since a connection closed under a running query is no safe state, and DuckDB reads a new file at this
        path only once every connection to the old one is closed."""
        self.closed = True  # no new cursor, and the warm-up builds nothing more
        self.interrupt()
        warming = self.warm_thread
        if warming is not None and warming is not threading.current_thread():
            warming.join(warm_wait)
        with self._cursor_lock:
            self.owner.closed = True  # nothing reopens a connection from now on
            for cur in self._cursors:
                try:
                    cur.close()
                except Exception as exc:  # closing must go on for the others
                    log.debug("closing a cursor: %s", exc)
            self._cursors.clear()
            self._owner_closed = True
        self.owner.close()


class Store:
    """The current generation, the count of requests using it, and the swap to a new file."""

    #: how long after a failure to open that was not the file's (out of memory, too many open files) it is tried
    #: again; a file that cannot be opened (another schema version, damaged) is tried again once it changes
    RETRY_SECONDS = 5.0

    def __init__(self, path: Path, *, warm: bool = True, on_warm: Callable[[Generation], None] | None = None) -> None:
        self.path = Path(path)
        #: each generation builds every card object, the name index and the deck rules in the background at open
        #: (False: each is built when a request first needs it), then runs ``on_warm``
        self.warm = warm
        self.on_warm = on_warm
        self._number = 1
        self.generation: Generation | None = self._open()
        self.open_error: str | None = None
        #: the new file is of another schema version (store/schema_version.py): every request answers its line
        self.outdated: DatabaseOutdatedError | None = None
        #: the file that could not be opened: tried again once it changes, not at every request
        self.failed_identity: tuple[int, int, int, int] | None = None
        #: when a failure that was not the file's (out of memory, too many open files) is tried again
        self.retry_at: float | None = None
        self.active = 0
        self._reload_requested = False
        self._swap_task: asyncio.Task[None] | None = None
        self._idle: asyncio.Event | None = None
        self.on_swap: list[Callable[[Generation | None], None]] = []

    def _open(self) -> Generation:
        generation = Generation(self.path, self._number)
        generation.on_warm = self.on_warm
        if self.warm:
            generation.warm_thread = threading.Thread(target=generation.warm, name=f"warm-{self._number}", daemon=True)
            generation.warm_thread.start()
        return generation

    # -- called on the event loop only (no locking needed: one thread) ------------------------

    def request_reload(self) -> None:
        """SIGHUP: reopen the database on the next request, even if the file looks unchanged."""
        self._reload_requested = True

    def _needs_swap(self) -> bool:
        if self._reload_requested:
            return True
        if self.retry_at is not None and time.monotonic() >= self.retry_at:
            return True
        identity = file_identity(self.path)
        if identity is None:  # between unlink and rename, or removed: keep answering from the open file
            return False
        current = self.generation.identity if self.generation is not None else self.failed_identity
        return identity != current

    async def acquire(self) -> Generation:
        """The generation a request uses; swaps first when the file changed (see the module docstring)."""
        if self._swap_task is None and self._needs_swap():
            self._reload_requested = False
            self._swap_task = asyncio.ensure_future(self._swap())
        if self._swap_task is not None:
            await asyncio.shield(self._swap_task)
        if self.generation is None:
            if self.outdated is not None:  # a new instance each time: a raised one keeps every traceback it met
                raise DatabaseOutdatedError(self.path.name, self.outdated.built, self.outdated.reads)
            raise OracleToolsError(self.open_error or "the database could not be opened")
        if self.generation.damage is not None:  # known damaged: the one line, not the query's own failure
            raise self.generation.damage
        self.active += 1
        return self.generation

    def release(self) -> None:
        self.active -= 1
        if self.active == 0 and self._idle is not None:
            self._idle.set()

    async def _swap(self) -> None:
        try:
            while self.active:
                self._idle = asyncio.Event()
                await self._idle.wait()
            self._idle = None
            old = self.generation
            if old is not None:  # on a thread: the warm-up may take a moment to stop (new requests wait)
                await asyncio.to_thread(old.close)
            self._number += 1
            try:
                self.generation = self._open()
                self.open_error = None
                self.outdated = None
                self.failed_identity = None
                self.retry_at = None
                log.info("database %s reopened (generation %d)", self.path, self._number)
            except Exception as exc:  # a bad new file: answer 503 until it changes again
                from oracle_tools.store.sqlfiles import damaged_database

                self.generation = None
                self.failed_identity = file_identity(self.path)
                self.retry_at = None
                damaged = damaged_database(exc, self.path)
                if isinstance(exc, DatabaseOutdatedError):  # a database of another version: rebuild it
                    self.open_error, self.outdated = str(exc), exc
                    log.warning("%s; every request is answered so until the file is replaced", exc)
                elif damaged is not None:  # the file was damaged in place (cut short): every door's one line
                    self.open_error = str(damaged)
                    log.warning("%s; every request is answered so until the file is replaced", damaged)
                else:
                    self.open_error = f"the database {self.path} could not be opened after it changed: {exc}"
                    log.error("%s", self.open_error)
                    if not isinstance(exc, OracleToolsError):  # not the file's fault: tried again after a while
                        self.retry_at = time.monotonic() + self.RETRY_SECONDS
            for hook in self.on_swap:
                hook(self.generation)
        finally:
            self._swap_task = None

    def close(self) -> None:
        """The server is stopping: a warm-up still running gets a few seconds to notice."""
        if self.generation is not None:
            self.generation.close(warm_wait=STOP_WARM_WAIT)
            self.generation = None
