"""The server's worker pools: one bounded pool of threads per kind of work (the API's handlers and the pages').

A request's work runs on a worker thread of the pool for its kind; past the pool's threads and queue it is refused
at once (:class:`PoolFull`: the API answers Scryfall's 503 error object, a page a short 503 page) instead of
waiting without end.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread


class PoolFull(Exception):
    """Every thread and queue place of a pool is taken: answer 503, the client retries in a few seconds."""


class Pool:
    """Worker threads for one kind of work: at most ``threads`` of its requests run at once, at most ``queue``
    more wait (503 beyond). Each kind waits for its own only: a deck of 1,000 misspelt names
    never holds up a card lookup (the threads share no lock: each calls its own view of the database,
    store.Generation.db)."""

    def __init__(self, name: str, threads: int, queue: int) -> None:
        self.name, self.threads, self.queue = name, threads, queue
        self.count = 0  # running and waiting
        self._limiter: anyio.CapacityLimiter | None = None
        #: each client address's share of the threads and how many of its requests are in the pool (running and
        #: waiting); an address leaves the map with its last request
        self._clients: dict[str, tuple[anyio.CapacityLimiter, int]] = {}

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        if self._limiter is None:  # made on the event loop, in the server's own async library
            self._limiter = anyio.CapacityLimiter(self.threads)
        return self._limiter

    @property
    def share(self) -> int:
        """The threads one client address may hold at once (:data:`CLIENT_SHARE` of them, at least one)."""
        return max(1, int(self.threads * CLIENT_SHARE))

    async def run(self, call: Callable[..., Any], *args: Any, client: str | None = None) -> Any:
        """``call(*args)`` on a thread of the pool. A ``client`` (its address) holds at most :attr:`share` threads at
        once: its requests past that wait for its own to end, so one client's slow searches never hold every
        thread while another's cheap lookup waits."""
        if self.count >= self.threads + self.queue:
            raise PoolFull(
                f"the server is busy with {self.count:,} {POOL_WORDS[self.name]} at once; retry in a few seconds"
            )
        self.count += 1
        own: anyio.CapacityLimiter | None = None
        if client is not None:
            own, held = self._clients.get(client) or (anyio.CapacityLimiter(self.share), 0)
            self._clients[client] = (own, held + 1)
        try:
            async with own if own is not None else contextlib.nullcontext():
                # a stopping server gives up waiting (the thread's queries are interrupted, its answer dropped)
                return await anyio.to_thread.run_sync(call, *args, limiter=self.limiter, abandon_on_cancel=True)
        finally:
            self.count -= 1
            if client is not None:
                own, held = self._clients[client]
                if held > 1:
                    self._clients[client] = (own, held - 1)
                else:
                    del self._clients[client]


#: Worker threads (and waiting requests) per kind of work (docs/serve.md, "Concurrency"):
#: ``lookups`` — a card by name or id, a search page, a collection, autocomplete, sets, one name's rules answers;
#: ``decks`` — deck checks and batch resolves of at most ``LARGE_WORK`` names;
#: ``large`` — larger ones, choose-name lists, change reports.
POOLS = {"lookups": (16, 512), "decks": (4, 64), "large": (1, 16)}
#: The part of a pool's threads one client address may hold at once (its other requests wait for its own): 8 of the
#: 16 lookup threads, 2 of the 4 deck threads. 24 slow searches from one address held all 16, and another client's
#: cheap search waited for the first to be stopped (10 s). Half, not less: behind a reverse proxy every client has
#: the proxy's address, and a local bot's parallel requests are one address too.
CLIENT_SHARE = 0.5
POOL_WORDS = {"lookups": "lookups", "decks": "deck checks and name batches", "large": "large requests"}
#: A deck check or batch resolve of more names than this is "large" work.
LARGE_WORK = 300
