"""A search that fails leaves nothing behind. DuckDB 2.x keeps the result of a statement that
failed, was stopped by a time limit or interrupted open on its connection, and then refuses every later query of
that connection ("Resource In Use Error: connection has an unfinished result from execute()"): one bad search made
every later search of ``OracleDB.search()``, or of the server's worker thread, fail. Each kind of failure is
followed here by good searches on the same connection (the library's sandboxed connection; the server's thread)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from oracle_tools import OracleDB
from oracle_tools.errors import OracleToolsError, QueryTimeoutError
from oracle_tools.search import SearchRequest, SearchSyntaxError, time_limit

from oracle_server import Server

#: A pattern Python's `re` (the search's own check) takes and RE2 refuses: a repetition over its limit of 1,000.
RE2_REFUSES_SIZE = "o:/(.{0,1000}){1000}/"
#: Syntax the engine refuses and Python's `re` takes: a possessive repetition ("bad repetition operator").
ENGINE_REFUSES_SYNTAX = "o:/fly++ing/"
#: A search that runs for about 20 s on the sample (forty patterns of 30 bounded repetitions on every printing's
#: flavor text, within the 1,000 characters a query may have; many small batches of rows: an interrupt ends it
#: within one): it is always stopped long before its end, however busy the machine.
SLOW = " or ".join([f"ft:/(.{{0,30}}){{30}}{a}{b}q/" for a in "abcdefghij" for b in "klmn"])


def _good(db: OracleDB, n: int) -> None:
    """Good searches on the same connection (a new query each time: no answer comes from a cache)."""
    assert db.search(f"t:goblin -o:zzzq{n}").height == db.search("t:goblin").height > 0
    assert db.search_list(f"t:goblin -o:zzzr{n}", limit=1)["total_cards"] > 0


@pytest.fixture
def db(sample_db_path: Path) -> Iterator[OracleDB]:
    opened = OracleDB(sample_db_path)
    yield opened
    opened.close()


@pytest.mark.parametrize("query", [RE2_REFUSES_SIZE, ENGINE_REFUSES_SYNTAX])
def test_a_search_the_engine_refuses_then_good_searches(db: OracleDB, query: str) -> None:
    _good(db, 0)
    for n in range(1, 4):
        with pytest.raises(SearchSyntaxError, match="the database could not run this search: Invalid Input Error"):
            db.search(query)
        _good(db, n)
        with pytest.raises(SearchSyntaxError, match="the database could not run this search"):
            db.search_list(query, limit=1)
        _good(db, n + 10)


def test_a_search_the_engine_refuses_costs_one_statement(db: OracleDB, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's refusal is read as such at once: the database file's name (a statement of its own) is looked up
    only for an error that says a file is damaged."""
    from oracle_tools import search as _search

    looked_up: list[object] = []
    monkeypatch.setattr(_search, "_database_file", lambda con: looked_up.append(con))
    for query in (RE2_REFUSES_SIZE, ENGINE_REFUSES_SYNTAX):
        with pytest.raises(SearchSyntaxError, match="Invalid Input Error") as caught:
            db.search(query)
        assert caught.value.lasting  # the same query is refused the same way again: a caller may remember it
    assert looked_up == []
    _good(db, 0)


def test_a_search_stopped_by_its_time_limit_then_good_searches(db: OracleDB) -> None:
    """The time limit of ``search_list``, and one watching the connection ``search`` runs on (as the server's)."""
    for n in range(3):
        with pytest.raises(QueryTimeoutError, match=r"the search ran longer than 0\.2 s and was stopped"):
            db.search_list(SLOW, timeout=0.2)
        _good(db, n)
        stop = time_limit(0.2)
        with (
            pytest.raises(QueryTimeoutError, match=r"the search ran longer than 0\.2 s and was stopped"),
            stop.watching(db.user_con),
        ):
            db.search(SLOW)
        _good(db, n + 10)


def test_an_interrupted_search_then_good_searches(db: OracleDB) -> None:
    """DuckDB's interrupt() of the connection (what Ctrl-C calls) ends the running search; the next ones run."""
    con = db.user_con
    for n in range(3):
        failed: list[BaseException] = []

        def search(failed: list[BaseException] = failed) -> None:
            try:
                db.search(SLOW)
            except OracleToolsError as exc:
                failed.append(exc)

        thread = threading.Thread(target=search)
        thread.start()
        while thread.is_alive():  # again until it ends: an interrupt before the query starts does nothing
            con.interrupt()
            thread.join(0.02)
        assert len(failed) == 1 and "INTERRUPT" in str(failed[0]).upper(), failed
        assert not getattr(failed[0], "lasting", False)  # not the query's fault: never remembered as its refusal
        _good(db, n)


# -- the same through a real server: a worker thread that ran a bad search answers the next ones -------------------


@pytest.fixture(scope="module")
def server(sample_db_path: Path) -> Iterator[Server]:
    # a limit the good searches (~10 ms) are far within even on a loaded machine, and SLOW far beyond
    srv = Server(sample_db_path, "--query-timeout", "3")
    yield srv
    srv.stop()


def _search(client: httpx.Client, q: str) -> httpx.Response:
    return client.get("/cards/search", params={"q": q})


def _good_answers(server: Server, n: int) -> None:
    answer = _search(server.client, f"t:goblin -o:zzzs{n}")
    assert answer.status_code == 200, answer.text
    assert answer.json()["total_cards"] > 0
    page = server.client.get("/search", params={"q": f"t:goblin -o:zzzt{n}"})
    assert page.status_code == 200 and "Resource In Use" not in page.text
    assert server.client.get("/cards/random", params={"q": f"t:goblin -o:zzzu{n}"}).status_code == 200


def _one_clients_threads() -> int:
    """The lookup threads one client address may hold at once."""
    from oracle_tools.interfaces.serve.pools import POOLS, Pool

    threads, queue = POOLS["lookups"]
    return Pool("lookups", threads, queue).share


@pytest.mark.parametrize(
    ("query", "status", "said"),
    [
        (RE2_REFUSES_SIZE, 400, "invalid repetition size"),
        (ENGINE_REFUSES_SYNTAX, 400, "bad repetition operator"),
        (SLOW, 422, "the search ran longer than 3 s and was stopped"),
    ],
)
def test_a_bad_search_leaves_the_servers_threads_answering(server: Server, query: str, status: int, said: str) -> None:
    """One client, one request at a time: the server's idle worker thread that answered the bad search answers
    the next request too (anyio reuses the last idle thread), and then many at once: three times the threads one
    client address may hold (pools.CLIENT_SHARE of the lookups' 16), each of them answering bad searches in turn."""
    for n in range(3):
        answer = _search(server.client, query)
        assert answer.status_code == status and said in answer.json()["details"], answer.text
        _good_answers(server, n)
    with ThreadPoolExecutor(32) as pool, httpx.Client(base_url=server.base, timeout=60) as client:
        bad = list(pool.map(lambda _: _search(client, query).status_code, range(3 * _one_clients_threads())))
        good = list(pool.map(lambda i: _search(client, f"t:goblin -o:zzzv{i}{status}").status_code, range(48)))
    assert set(bad) == {status} and set(good) == {200}, (bad, good)


# -- a refused search is remembered: sent again and again, it costs the server a lookup --------------------------


def test_a_refused_search_is_refused_again_without_reaching_the_engine(
    sample_db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's search (every door's: the API, the page, /cards/random) keeps a refusal that comes again on the
    same database (bad syntax, a keyword it cannot answer, a regex RE2 refuses) beside the results: the same query
    is answered the same error without being parsed or run again, until the database changes (a new generation).
    A time limit is never kept: the same query may finish when the server is less busy."""
    from oracle_tools import search as _search
    from oracle_tools.interfaces.serve import searches
    from oracle_tools.interfaces.serve.generations import Generation
    from oracle_tools.search import UnsupportedKeywordError

    compiled: list[str] = []
    ran: list[str] = []
    compile_query, execute = _search.compile, _search._execute

    def counting_compile(query: str, **options: object) -> object:
        compiled.append(query)
        return compile_query(query, **options)  # type: ignore[arg-type]

    def counting_execute(fetch: object, con: object, compiled: object, query: str) -> object:
        ran.append(query)
        return execute(fetch, con, compiled, query)  # type: ignore[arg-type]

    monkeypatch.setattr(_search, "compile", counting_compile)
    monkeypatch.setattr(_search, "_execute", counting_execute)
    refused: list[tuple[str, type[SearchSyntaxError], str | None]] = [
        (RE2_REFUSES_SIZE, SearchSyntaxError, "the database could not run this search: Invalid Input Error"),
        (ENGINE_REFUSES_SYNTAX, SearchSyntaxError, "bad repetition operator"),
        ("t:goblin (c:r", SearchSyntaxError, None),
        ("otag:ramp", UnsupportedKeywordError, "tagger tags"),
    ]
    for number in (1, 2):  # the second generation: the database changed, every query is tried again
        compiled.clear()
        ran.clear()
        generation = Generation(sample_db_path, number)
        try:
            for query, kind, said in refused:
                errors = []
                for _ in range(3):
                    with pytest.raises(kind, match=said) as caught:
                        searches.search_ids(generation, SearchRequest(query))
                    errors.append((type(caught.value), caught.value.message, caught.value.position))
                    assert caught.value.query == query
                assert errors[0] == errors[1] == errors[2]
            assert compiled == [query for query, _, _ in refused]
            assert ran == [RE2_REFUSES_SIZE, ENGINE_REFUSES_SYNTAX]
            with pytest.raises(SearchSyntaxError, match="Invalid Input Error"):  # other options: another search
                searches.search_ids(generation, SearchRequest(RE2_REFUSES_SIZE, "prints"))
            assert ran == [RE2_REFUSES_SIZE, ENGINE_REFUSES_SYNTAX, RE2_REFUSES_SIZE]
        finally:
            generation.close()

    ran.clear()
    monkeypatch.setenv(searches.QUERY_TIMEOUT_ENV, "0.2")
    generation = Generation(sample_db_path, 3)
    try:
        for _ in range(2):
            with pytest.raises(QueryTimeoutError):
                searches.search_ids(generation, SearchRequest(SLOW))
    finally:
        generation.close()
    assert ran == [SLOW, SLOW]
