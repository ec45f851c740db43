"""The server's search: the printing ids a Scryfall-syntax query finds, run on the worker thread's own sandboxed
cursor under the served time limit and kept per generation in the byte-bounded cache ``Generation.searches``.

One implementation for every door of the server: ``GET /cards/search`` and ``/cards/random?q=`` (scryfall_routes.py, which
words its errors as Scryfall's error objects) and the ``/search`` page (pages.py, which words them on the page)
share its results, so a page of a query the API just answered costs no search.
"""

from __future__ import annotations

import os

from oracle_tools.interfaces.serve.store import Generation, IdList

#: How long one search may run before it is stopped (``serve --query-timeout``; the environment carries it
#: to worker processes).
QUERY_TIMEOUT_ENV = "ORACLE_TOOLS_QUERY_TIMEOUT"


def query_timeout() -> float:
    """Seconds one search may run: ``serve --query-timeout`` (from the environment), else the served default."""
    from oracle_tools.store.sqlfiles import SERVED_QUERY_TIMEOUT

    try:
        return float(os.environ.get(QUERY_TIMEOUT_ENV) or SERVED_QUERY_TIMEOUT)
    except ValueError:
        return SERVED_QUERY_TIMEOUT


def search_ids(gen: Generation, query: str, unique: str, order: str, direction: str) -> IdList:
    """The printing ids a search finds, in order (the search on this thread's user cursor), cached (in bytes).
    Raises :class:`~oracle_tools.store.sqlfiles.QueryTimeoutError` past :func:`query_timeout`, and
    :class:`~oracle_tools.search.SearchSyntaxError` (an ``OracleToolsError``) for a query that is not valid syntax."""
    from oracle_tools import search as _search

    key = (query, unique, order, direction)
    hit: IdList | None = gen.searches.get(key)
    if hit is not None:
        return hit

    cursor = gen.user_cursor()
    with _search.time_limit(query_timeout()).watching(cursor):  # a runaway query cannot hold a thread
        frame = _search.run(
            cursor, query, unique=unique, order=order, direction=direction, nameable=gen.db.nameable_ids
        )
    ids = IdList(frame.get_column("id").to_list())
    gen.searches.put(key, ids, ids.nbytes + len(query))
    return ids
