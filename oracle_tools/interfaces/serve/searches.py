"""The server's search: the printing ids a Scryfall-syntax query finds, run on the worker thread's own sandboxed
cursor under the served time limit and kept per generation in the byte-bounded cache ``Generation.searches``.

One implementation for every door of the server: ``GET /cards/search`` and ``/cards/random?q=`` (scryfall_routes.py, which
words its errors as Scryfall's error objects) and the ``/search`` page (pages.py, which words them on the page)
share its results, so a page of a query the API just answered costs no search.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from oracle_tools.interfaces.serve.generations import Generation, IdList

if TYPE_CHECKING:
    from oracle_tools.errors import SearchSyntaxError
    from oracle_tools.search.request import SearchRequest

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


@dataclass(frozen=True, slots=True)
class Refused:
    """A search the generation refused (its syntax, a regex the engine refuses), kept in ``Generation.searches``
    beside the results: the same query is refused again with the same error without being parsed or run (a client
    sending one bad query again and again costs a lookup). Errors that may not come again (a time limit, an
    interrupt) are never kept."""

    kind: type[SearchSyntaxError]
    message: str
    position: int

    def error(self, query: str) -> SearchSyntaxError:
        return self.kind(self.message, query, self.position)


def search_ids(gen: Generation, request: SearchRequest) -> IdList:
    """The printing ids a search finds, in order (the search on this thread's user cursor), cached (in bytes) under
    the whole request. Raises :class:`~oracle_tools.errors.QueryTimeoutError` past :func:`query_timeout`,
    and :class:`~oracle_tools.search.SearchSyntaxError` (an ``OracleToolsError``) for a query that is not valid
    syntax."""
    from oracle_tools import search as _search

    hit: IdList | Refused | None = gen.searches.get(request)
    if isinstance(hit, Refused):  # refused before: refused again at once, never parsed or planned again
        raise hit.error(request.query)
    if hit is not None:
        return hit

    cursor = gen.user_cursor()
    try:
        with _search.time_limit(query_timeout()).watching(cursor):  # a runaway query cannot hold a thread
            frame = request.run(cursor, nameable=gen.db.nameable_ids)
    except _search.SearchSyntaxError as exc:
        if exc.lasting:  # its syntax, or a regex the engine refuses: the same every time on this database
            gen.searches.put(
                request, Refused(type(exc), exc.message, exc.position), len(request.query) + len(exc.message)
            )
        raise
    ids = IdList(frame.get_column("id").to_list())
    gen.searches.put(request, ids, ids.nbytes + len(request.query))
    return ids


def refusal(gen: Generation, request: SearchRequest) -> SearchSyntaxError | None:
    """The error :func:`search_ids` gives again at once for a search this generation refused (:class:`Refused`),
    else None (not refused, or not tried yet): a lookup, which the event loop may ask before sending the request
    to a worker thread."""
    hit = gen.searches.get(request)
    return hit.error(request.query) if isinstance(hit, Refused) else None


def name_box_search(gen: Generation, text: str) -> str | None:
    """Where a name box (``/card?name=``, the name page's) sends ``text`` that is a search, as Scryfall's box takes
    both: the page of the one card it finds, else the search page of it. None for a name: a text that writes no
    keyword or does not compile (the search engine's own reading, never a second parser), or that names a card
    exactly (CR 201) though it reads as a search. Runs on a worker thread."""
    from oracle_tools import search as _search
    from oracle_tools.errors import OracleToolsError

    db = gen.db
    if not _search.written_keywords(text, nameable=db.nameable_ids) or db.resolve(text).ok:
        return None
    try:
        ids = search_ids(gen, _search.SearchRequest(text))
    except OracleToolsError:  # the search page says what went wrong
        ids = None
    if ids is not None and len(ids) == 1:
        body = gen.card_objects_json([ids[0]])[0]
        card = json.loads(body) if body is not None else {}
        oracle_id = card.get("oracle_id") or next((f.get("oracle_id") for f in card.get("card_faces") or []), None)
        if oracle_id:
            return f"/card/{oracle_id}"
    return "/search?" + urlencode({"q": text})
