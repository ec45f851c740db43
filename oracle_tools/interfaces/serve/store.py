"""The database behind the HTTP server: one read-only ``OracleDB`` per process, safe across requests.

Concurrency (reliability):

* Handlers run in Starlette's threadpool. Card objects, lookups by id/set and searches use a DuckDB
  **cursor per worker thread** (``Generation.cursor()``: a connection of its own to the same database,
  created once per thread), so concurrent requests never share a DuckDB connection.
* The ``OracleDB`` rules methods (resolve, token, choose_name, check_deck, search) keep per-object
  state (the name index, lazily built checkers, their connection); they run one at a time under
  ``Generation.rules_lock``. Once the in-memory name index is built a resolve takes microseconds.
* Answers that depend only on the database are cached per generation (card objects as JSON bytes,
  representative printings, the autocomplete name list): the database is read-only, so a cache is
  exact until the file changes, and it is dropped with the generation.

Re-ingest while the server runs (``oracle-tools ingest`` writes a new file and renames it over the
old one): every request first compares the file's identity (device, inode, size, mtime — one
``stat``) with the open generation's; SIGHUP forces the same check to reopen. On a change, new
requests wait until the requests in flight on the old database have finished (they are never
failed), the old connections are closed and the new file is opened — **picked up on the next
request**. Waiting for the in-flight requests is needed, not just tidy: DuckDB keeps one database
instance per path in a process, so the new file is only read once every connection to the old one is
closed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from oracle_tools.db import OracleDB
from oracle_tools.errors import OracleToolsError

log = logging.getLogger("oracle_tools.interfaces.serve")

#: Card objects kept as JSON per generation; the whole cache is dropped when it grows past this.
CARD_CACHE_SIZE = 100_000
#: /cards/named answers kept per generation (a name's printing id or its error); cleared when it grows past this.
NAMED_CACHE_SIZE = 100_000
#: Bytes of rules-endpoint answers (GET /names/resolve, /tokens, /choose-name[/list]) kept per generation;
#: the cache is emptied when it would grow past this, and an answer over a quarter of it is not kept.
ANSWER_CACHE_BYTES = 64 * 1024 * 1024
#: Cached card JSON holds this in place of the server's address; each answer puts the request's base URL in
#: (a client may reach the server as localhost or 127.0.0.1).
BASE_URL = "http://oracle-tools.base.invalid"
BASE_URL_BYTES = BASE_URL.encode()
#: Oracle cards whose representative printing's JSON is built at open, in the background, in chunks.
WARM_CHUNK = 2000


def card_bytes(card: dict[str, Any]) -> bytes:
    return json.dumps(card, ensure_ascii=False, default=str, separators=(",", ":")).encode("utf-8")


def file_identity(path: Path) -> tuple[int, int, int, int] | None:
    """What changes when ingest swaps a new file in: (device, inode, size, mtime); None if absent."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class Generation:
    """One opened database file, with its per-thread cursors and caches."""

    def __init__(self, path: Path, number: int, rules_lock: threading.Lock | None = None) -> None:
        self.path = path
        self.number = number
        self.identity = file_identity(path)
        self.db = OracleDB(path)
        _ = self.db.con  # open now (raises DatabaseMissingError), not concurrently in the first requests
        self.rules_lock = rules_lock or threading.Lock()
        self._cursor_lock = threading.Lock()
        self._local = threading.local()
        self._cursors: list[Any] = []
        self.card_json: dict[str, bytes] = {}
        self.representative: dict[str, str] = {}
        self.caches: dict[str, Any] = {}
        #: /cards/named answers by (exact|fuzzy, name, set): a printing id or the ApiError to answer
        self.named: dict[tuple[str, str, str], Any] = {}
        #: 200 answers of the GET rules endpoints as JSON bytes, by (path, parameters); event loop only
        self.answers: dict[tuple[str, tuple[tuple[str, str], ...]], bytes] = {}
        self.answer_bytes = 0
        self.closed = False
        self.warm_seconds: float | None = None  # set when the background warm-up has finished

    def cursor(self) -> Any:
        """This thread's own DuckDB connection to the database (created on first use)."""
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            with self._cursor_lock:
                if self.closed:
                    raise OracleToolsError("the database was closed (reopened after a re-ingest); retry")
                cur = self.db.con.cursor()
                self._cursors.append(cur)
            self._local.cursor = cur
        return cur

    def user_cursor(self) -> Any:
        """This thread's own connection for user-derived SQL (search): a cursor of the sandboxed
        ``OracleDB.user_con`` when the database has it, else of the read-only connection."""
        cur = getattr(self._local, "user_cursor", None)
        if cur is None:
            with self._cursor_lock:
                if self.closed:
                    raise OracleToolsError("the database was closed (reopened after a re-ingest); retry")
                base = self.db.user_con  # the sandbox: searches run user-derived SQL
                cur = base.cursor()
                self._cursors.append(cur)
            self._local.user_cursor = cur
        return cur

    def store_cards(self, cards: list[dict[str, Any]], asked: list[str]) -> None:
        """Keep built card objects as JSON; ids asked for but not found are remembered as misses (b"")."""
        if len(self.card_json) > CARD_CACHE_SIZE:
            self.card_json.clear()
        found = {card["id"]: card_bytes(card) for card in cards}
        for pid in asked:
            self.card_json[pid] = found.get(pid, b"")

    def remember_named(self, key: tuple[str, str, str], answer: Any) -> None:
        """Keep what /cards/named answered for ``key`` (see Generation.named); the cache is bounded."""
        if len(self.named) > NAMED_CACHE_SIZE:
            self.named.clear()
        self.named[key] = answer

    def remember_answer(self, key: tuple[str, tuple[tuple[str, str], ...]], body: bytes) -> None:
        """Keep a rules endpoint's 200 answer (see Generation.answers), within ANSWER_CACHE_BYTES."""
        if len(body) > ANSWER_CACHE_BYTES // 4:
            return
        if self.answer_bytes + len(body) > ANSWER_CACHE_BYTES:
            self.answers.clear()
            self.answer_bytes = 0
        previous = self.answers.get(key)  # two requests may fill the same key: count its bytes once
        self.answers[key] = body
        self.answer_bytes += len(body) - (len(previous) if previous is not None else 0)

    def warm(self) -> None:
        """Build every Oracle card's representative printing and its JSON (background thread after open):
        /cards/named and /cards/collection then answer from memory. Stops when the generation closes."""
        import time

        from oracle_tools.scryfall import cardjson

        started = time.perf_counter()
        try:
            with self._cursor_lock:  # registered, so close() ends it (and the swap can open the new file)
                if self.closed:
                    return
                cur = self.db.con.cursor()
                self._cursors.append(cur)
            try:
                oids = [oid for (oid,) in cur.execute("SELECT oracle_id FROM cards").fetchall()]
                reps = cardjson.representative_ids(cur, oids)
                for oid in oids:
                    self.representative.setdefault(oid, reps.get(oid, ""))
                ids = [pid for pid in reps.values() if pid not in self.card_json]
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
            self.warm_seconds = time.perf_counter() - started
            log.info(
                "generation %d warm: %d card objects in %.1f s", self.number, len(self.card_json), self.warm_seconds
            )
        except Exception as exc:  # noqa: BLE001 — warming is an optimisation; requests build what they need
            if not self.closed:
                log.warning("warming the card cache stopped: %s", exc)

    def cached(self, key: str, build: Callable[[], Any]) -> Any:
        """A value computed once per generation (built again if two threads race: both answers are equal)."""
        try:
            return self.caches[key]
        except KeyError:
            value = self.caches[key] = build()
            return value

    def close(self) -> None:
        with self._cursor_lock:
            self.closed = True
            for cur in self._cursors:
                try:
                    cur.close()
                except Exception as exc:  # noqa: BLE001 — closing must go on for the others
                    log.debug("closing a cursor: %s", exc)
            self._cursors.clear()
        self.db.close()


class Store:
    """The current generation, the count of requests using it, and the swap to a new file."""

    def __init__(self, path: Path, *, rules_lock: threading.Lock | None = None) -> None:
        self.path = Path(path)
        #: one lock for every ``OracleDB`` rules call of the process (API and web page alike)
        self.rules_lock = rules_lock or threading.Lock()
        self._number = 1
        self.generation: Generation | None = self._open()
        self.open_error: str | None = None
        self.active = 0
        self._reload_requested = False
        self._swap_task: asyncio.Task[None] | None = None
        self._idle: asyncio.Event | None = None
        self.on_swap: list[Callable[[Generation | None], None]] = []

    def _open(self) -> Generation:
        generation = Generation(self.path, self._number, self.rules_lock)
        threading.Thread(target=generation.warm, name=f"warm-{self._number}", daemon=True).start()
        return generation

    # -- called on the event loop only (no locking needed: one thread) ------------------------

    def request_reload(self) -> None:
        """SIGHUP: reopen the database on the next request, even if the file looks unchanged."""
        self._reload_requested = True

    def _needs_swap(self) -> bool:
        if self._reload_requested:
            return True
        identity = file_identity(self.path)
        if identity is None:  # between unlink and rename, or removed: keep answering from the open file
            return False
        current = self.generation.identity if self.generation is not None else None
        return identity != current

    async def acquire(self) -> Generation:
        """The generation a request uses; swaps first when the file changed (see the module docstring)."""
        if self._swap_task is None and self._needs_swap():
            self._reload_requested = False
            self._swap_task = asyncio.ensure_future(self._swap())
        if self._swap_task is not None:
            await asyncio.shield(self._swap_task)
        if self.generation is None:
            raise OracleToolsError(self.open_error or "the database could not be opened")
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
            if old is not None:
                old.close()
            self._number += 1
            try:
                self.generation = self._open()
                self.open_error = None
                log.info("database %s reopened (generation %d)", self.path, self._number)
            except Exception as exc:  # noqa: BLE001 — a bad new file: answer 503 until it changes again
                self.generation = None
                self.open_error = f"the database {self.path} could not be opened after it changed: {exc}"
                log.error("%s", self.open_error)
            for hook in self.on_swap:
                hook(self.generation)
        finally:
            self._swap_task = None

    def close(self) -> None:
        if self.generation is not None:
            self.generation.close()
            self.generation = None
