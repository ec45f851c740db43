"""The server's worker pools: one bounded pool of threads per kind of work (the API's handlers and the pages').

A request's work runs on a worker thread of the pool for its kind; past the pool's threads and queue it is refused
at once (:class:`PoolFull`: the API answers Scryfall's 503 error object, a page a short 503 page) instead of
waiting without end.
"""

from __future__ import annotations

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

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        if self._limiter is None:  # made on the event loop, in the server's own async library
            self._limiter = anyio.CapacityLimiter(self.threads)
        return self._limiter

    async def run(self, call: Callable[..., Any], *args: Any) -> Any:
        if self.count >= self.threads + self.queue:
            raise PoolFull(
                f"the server is busy with {self.count:,} {POOL_WORDS[self.name]} at once; retry in a few seconds"
            )
        self.count += 1
        try:
            # a stopping server gives up waiting (the thread's queries are interrupted, its answer dropped)
            return await anyio.to_thread.run_sync(call, *args, limiter=self.limiter, abandon_on_cancel=True)
        finally:
            self.count -= 1


#: Worker threads (and waiting requests) per kind of work (docs/serve.md, "Concurrency"):
#: ``lookups`` — a card by name or id, a search page, a collection, autocomplete, sets, one name's rules answers;
#: ``decks`` — deck checks and batch resolves of at most ``LARGE_WORK`` names;
#: ``large`` — larger ones, choose-name lists, change reports.
POOLS = {"lookups": (16, 512), "decks": (4, 64), "large": (1, 16)}
POOL_WORDS = {"lookups": "lookups", "decks": "deck checks and name batches", "large": "large requests"}
#: A deck check or batch resolve of more names than this is "large" work.
LARGE_WORK = 300
