"""The rules endpoints: each answers exactly the JSON of the matching CLI command with ``--json`` (docs/serve.md):
names, tokens, choose-name, the deck check and the change history. Handlers parse their parameters (params.py)
and render ``OracleDB``'s answers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from oracle_tools.db import MAX_BATCH_NAMES
from oracle_tools.interfaces.answers import Answer, Param
from oracle_tools.interfaces.answers import Route as AnswerRoute
from oracle_tools.interfaces.serve.generations import Generation
from oracle_tools.interfaces.serve.params import (
    MAX_NAME,
    REFUSED_BY_HEAD,
    base_url_of,
    bool_param,
    endpoint_params,
    page_error,
    page_number,
    parse_json_body,
    quoted,
    read_body,
    suggest_param,
    text_param,
    whole_number_param,
)
from oracle_tools.interfaces.serve.pools import LARGE_WORK
from oracle_tools.interfaces.serve.responses import ApiError, answer_in_threadpool, answer_remembered, json_response
from oracle_tools.interfaces.serve.scryfall_routes import PAGE_SIZE


async def names_resolve(request: Request) -> Response:
    """GET /names/resolve?q=[&fuzzy=true][&suggest=N] (``resolve --json``); POST a JSON list[?fuzzy=true][&suggest=N]
    (``resolve --batch [--fuzzy] --json``)."""
    if request.method == "POST":
        options = endpoint_params(request, frozenset({"fuzzy", "suggest"}), scryfall=False)
        fuzzy = bool_param(options.get("fuzzy"), "fuzzy")
        suggest = suggest_param(options.get("suggest"))
        raw = await read_body(request)

        def resolve_batch(gen: Generation) -> Response:  # parsed on the worker thread: 1 MB of JSON takes a while
            body = parse_json_body(raw)
            if not isinstance(body, list) or not all(isinstance(n, str) for n in body):
                raise ApiError(400, 'send a JSON list of names, such as ["Fire/Ice", "Foudre"].')
            names = [n for n in body if n.strip()]  # the CLI's --batch skips blank lines
            if len(names) > MAX_BATCH_NAMES:
                raise ApiError(
                    422,
                    f"{len(names):,} names were given; at most {MAX_BATCH_NAMES:,} are accepted per request "
                    "(send them in several, or use oracle-tools resolve --batch on this machine).",
                )
            for i, name in enumerate(names):
                if len(name) > MAX_NAME:
                    raise ApiError(400, f"name {i} is {len(name):,} characters long; at most {MAX_NAME:,}.")
            if not names:
                return json_response([])
            return json_response(gen.db.resolve_many(names, suggest=suggest, fuzzy=fuzzy).to_dicts())

        # names are about 20 bytes of JSON each: a body of more than LARGE_WORK of them is large work
        return await answer_in_threadpool(request, resolve_batch, "large" if len(raw) > 20 * LARGE_WORK else "decks")
    params = endpoint_params(request, frozenset({"q", "fuzzy", "suggest"}), scryfall=False)
    name = text_param(params.get("q"), "q")
    fuzzy = bool_param(params.get("fuzzy"), "fuzzy")
    suggest = suggest_param(params.get("suggest"))
    return await answer_remembered(
        request,
        params,
        lambda gen: json_response(gen.db.resolve(name, fuzzy=fuzzy, suggest=suggest).to_dict()),
    )


async def tokens(request: Request) -> Response:
    """GET /tokens/{name} (``token NAME --json``)."""
    params = endpoint_params(request, frozenset(), scryfall=False)
    name = text_param(request.path_params["name"], "the token name")
    return await answer_remembered(request, params, lambda gen: json_response(gen.db.token(name).to_dict()))


async def names_references(request: Request) -> Response:
    """GET /names/references?name= (``refs NAME --json``): how the card's Oracle text names itself (CR 201.5 full
    name, 201.5c shortened name) and every card whose text names it. A name that names no one card is a 404 with
    the line ``refs`` prints when it exits 1."""
    params = endpoint_params(request, frozenset({"name"}), scryfall=False)
    name = text_param(params.get("name"), "name")

    def work(gen: Generation) -> Response:
        return json_response(gen.db.references(name))

    return await answer_remembered(request, params, work)


def _constraint_params(params: dict[str, str]) -> tuple[str | None, str | None]:
    phrase = text_param(params.get("constraint"), "constraint", required=False)
    card = text_param(params.get("card"), "card", required=False)
    if phrase is not None and card is not None:
        raise ApiError(400, "give constraint= or card=, not both.")
    return phrase, card


async def choose_name(request: Request) -> Response:
    """GET /choose-name?name=&constraint=|card= (``choose-name NAME --json``)."""
    params = endpoint_params(request, frozenset({"name", "constraint", "card"}), scryfall=False)
    name = text_param(params.get("name"), "name")
    phrase, card = _constraint_params(params)

    def work(gen: Generation) -> Response:
        return json_response(gen.db.choose_name_report(name, constraint=phrase, card=card).to_dict())

    return await answer_remembered(request, params, work)


async def choose_name_list(request: Request) -> Response:
    """GET /choose-name/list?constraint=|card= (``choose-name --list --json``)."""
    params = endpoint_params(request, frozenset({"constraint", "card"}), scryfall=False)
    phrase, card = _constraint_params(params)

    def work(gen: Generation) -> Response:
        return json_response(gen.db.nameable_rows(constraint=phrase, card=card))

    return await answer_remembered(request, params, work, "large")


#: How the deck size limits are lifted, as the HTTP doors say it (the library's argument does not apply there).
HTTP_LIFT = "oracle-tools deck check --no-limits on this machine"


def deck_refused_by_head(head: bytes) -> bool:
    """Whether a deck check's body is refused by its first bytes ``head`` whatever follows: they hold more card
    lines than a check takes (:func:`~oracle_tools.decks.checker.check_bytes_size`, which :func:`decks_check`
    applies to the body it gets). The server then reads no more of it (app.ReadBodyFirst)."""
    from oracle_tools.decks.checker import check_bytes_size
    from oracle_tools.errors import DeckTooLargeError

    try:
        check_bytes_size(head, "the request body")
    except DeckTooLargeError:
        return True
    return False


async def decks_check(request: Request) -> Response:
    """POST /decks/check?format=[&commander=…] with a decklist body (``deck check FILE --format F --json``).

    The body is read exactly as the CLI reads a file (any decklist format; a JSON tournament cache
    gives a list of reports); the reports say ``source`` "request body".
    """
    from oracle_tools.decks.checker import (
        check_bytes_size,
        check_size,
        decklists_from_bytes,
        format_rules,
        too_many_lines,
    )

    params = endpoint_params(request, frozenset({"format", "commander"}), scryfall=False)
    fmt_text = text_param(params.get("format"), "format")
    commanders = [c for c in request.query_params.getlist("commander") if c.strip()]
    for c in commanders:
        text_param(c, "commander")
    fmt = format_rules(fmt_text).key
    body = await read_body(request)
    if request.scope.get(REFUSED_BY_HEAD):  # ReadBodyFirst counted its lines: past the limit
        raise too_many_lines("the request body", HTTP_LIFT)
    # past the line limit by its bytes: 413 at once, no worker thread
    check_bytes_size(body, "the request body", how_to_lift=HTTP_LIFT)

    def work(gen: Generation) -> Response:
        import dataclasses

        # more than MAX_DECK_LINES card lines (the text's count) is refused before it is parsed (413; unreadable 400)
        decks = decklists_from_bytes(body, "the request body", how_to_lift=HTTP_LIFT)
        for deck in decks:  # before any work: a deck over the limits is refused at once
            check_size(deck, how_to_lift=HTTP_LIFT)
        reports = []
        for deck in decks:
            one = dataclasses.replace(deck, source="request body")
            reports.append(gen.db.check_deck(one, format=fmt, commanders=commanders or None).to_dict())
        return json_response(reports[0] if len(reports) == 1 else reports)

    # a deck's size is told by its lines before it is read: a long list is large work
    return await answer_in_threadpool(request, work, "large" if body.count(b"\n") > LARGE_WORK else "decks")


_CHANGES = frozenset({"run", "since", "format", "card", "page"})
CHANGES_PAGE = PAGE_SIZE  # changes per /changes page


async def changes(request: Request) -> Response:
    """GET /changes?run=|since=&format=&card=&page=: what an ingest changed (``oracle-tools changes --json``'s
    changes, in its order) as a Scryfall list object of ``change`` objects, 175 a page, with the counts."""
    params = endpoint_params(request, _CHANGES, scryfall=False)
    run_text = params.get("run")
    if run_text is not None and not (run_text.isascii() and run_text.isdigit() and len(run_text) < 10):
        raise ApiError(400, f"run={quoted(run_text)} is not an ingest run number (1, 2, …).")
    since = text_param(params.get("since"), "since", required=False)
    fmt = text_param(params.get("format"), "format", required=False)
    card = text_param(params.get("card"), "card", required=False)
    page_text = params.get("page", "1")
    page = page_number(page_text)
    if page is None:
        raise ApiError(400, page_error(page_text))
    base = base_url_of(request)

    def work(gen: Generation) -> Response:
        report = gen.db.changes_report(since=since, run=int(run_text) if run_text else None, format=fmt, card=card)
        every = [change for group in report["groups"] for change in group["changes"]]
        start = (page - 1) * CHANGES_PAGE
        if start and start >= len(every):
            raise ApiError(422, f"page {page} is past the last page of {len(every):,} changes.")
        body: dict[str, Any] = {
            "object": "list",
            "total_changes": len(every),
            "has_more": start + CHANGES_PAGE < len(every),
        }
        if body["has_more"]:
            body["next_page"] = f"{base}/changes?{urlencode({**params, 'page': str(page + 1)})}"
        body.update(selected=report["selected"], runs=report["runs"], counts=report["counts"])
        body["unchanged_later_runs"] = report["unchanged_later_runs"]  # skipped by default: they changed nothing
        body["data"] = [{"object": "change", **c} for c in every[start : start + CHANGES_PAGE]]
        return json_response(body)

    # next_page holds the address this client used: answers are kept apart per address
    return await answer_remembered(request, params, work, "large", base=base)


# -- the routes made from the table of answers ---------------------------------------------------------------


def _param_value(param: Param, value: str | None) -> Any:
    """One param of a made route, read and checked as its kind says (a 400 error object for a bad one)."""
    if param.kind == "flag":
        return bool_param(value, param.name) if value is not None else bool(param.default)
    if param.kind == "count":
        if value is None:
            if param.required:
                raise ApiError(400, f"{param.name} is missing; give it as a whole number.")
            return param.default
        return whole_number_param(value, param.name, 1, param.most)
    text = text_param(value, param.name, required=param.required)
    return param.default if text is None else text


def made_endpoint(answer: Answer, route: AnswerRoute) -> Callable[[Request], Awaitable[Response]]:
    """The handler of a route made from its row of the table of answers: the row's params from the path (those its
    path names) and the query (any other parameter is a 400), and ``OracleDB.<method>``'s answer as JSON."""
    params = answer.params or ()
    in_path = {p.name for p in params if "{" + p.name + "}" in route.path or "{" + p.name + ":" in route.path}
    in_query = frozenset(p.name for p in params if p.name not in in_path)

    async def endpoint(request: Request) -> Response:
        query = endpoint_params(request, in_query, scryfall=False)
        arguments = {
            p.name: _param_value(p, request.path_params[p.name] if p.name in in_path else query.get(p.name))
            for p in params
        }
        return await answer_remembered(request, query, lambda gen: json_response(answer.ask(gen.db, arguments)))

    endpoint.__name__ = endpoint.__qualname__ = answer.name
    endpoint.__doc__ = f"GET {route.path} (the {answer.name} answer of the table of answers): {answer.summary}"
    return endpoint
