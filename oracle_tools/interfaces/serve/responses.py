"""The server's answers: JSON bodies, the one error type (:class:`ApiError`, Scryfall's error object) and where
it is rendered (:func:`error_response`), the exception handlers, and running a request's work on a worker pool with
the library's errors turned into error objects.

Every error answer of the server is an ``ApiError`` rendered by ``error_response``: handlers raise it, the
library's errors become one in :func:`answer_or_error_object`, and the app's middleware and exception handlers
(app.py) answer theirs through it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from oracle_tools.errors import OracleToolsError
from oracle_tools.interfaces.serve.generations import Generation
from oracle_tools.interfaces.serve.pools import Pool

log = logging.getLogger("oracle_tools.interfaces.serve")
#: Characters of a path (and of an error's text) a log line shows: a 5,000-character path is not repeated whole.
LOGGED_PATH = 200


class ApiError(Exception):
    """An answer with a Scryfall error object: the HTTP status, what was wrong (``details``), Scryfall's ``code``
    for the status (``CODES``) unless given, its optional ``type`` and ``warnings``."""

    def __init__(
        self,
        status: int,
        details: str,
        type_: str | None = None,
        warnings: Sequence[str] | None = None,
        *,
        code: str | None = None,
    ) -> None:
        super().__init__(details)
        self.status, self.details, self.type, self.warnings = status, details, type_, warnings
        self.code = code or CODES.get(status, "error")

    @classmethod
    def of(cls, exc: OracleToolsError) -> ApiError:
        """The answer to a library error: its own HTTP status and Scryfall type (errors.py)."""
        return cls(exc.http_status, str(exc), exc.api_type)


CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "unprocessable_entity",
    500: "internal_server_error",
    503: "service_unavailable",
}


def error_body(
    status: int, details: str, code: str | None = None, type_: str | None = None, warnings: Sequence[str] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "object": "error",
        "code": code or CODES.get(status, "error"),
        "status": status,
        "details": details,
    }
    if type_:
        body["type"] = type_
    if warnings:
        body["warnings"] = list(warnings)
    return body


def json_bytes(data: Any) -> bytes:
    """The same ``json.dumps`` as the CLI's ``--json`` (``default=str`` for dates), compact."""
    return json.dumps(data, ensure_ascii=False, default=str, separators=(",", ":")).encode("utf-8")


def json_response(data: Any, status: int = 200) -> Response:
    return Response(json_bytes(data), status_code=status, media_type="application/json")


def raw_json_response(body: bytes, status: int = 200) -> Response:
    return Response(body, status_code=status, media_type="application/json")


def error_response(exc: ApiError) -> Response:
    return json_response(error_body(exc.status, exc.details, exc.code, exc.type, exc.warnings), exc.status)


def sentence(exc: Exception) -> str:
    """A library message (lower-case, no full stop: the CLI's ``error: …`` line) as a Scryfall ``details`` sentence."""
    details = str(exc)
    return f"{details[0].upper()}{details[1:]}."


# -- running work ------------------------------------------------------------------------------------


async def answer_in_threadpool(
    request: Request, work: Callable[[Generation], Response], pool: str = "lookups"
) -> Response:
    """Run ``work`` on a worker thread of ``pool`` against the request's database generation (see GenerationLease),
    within the client address's share of the pool's threads."""
    generation: Generation = request.scope["oracle_tools.generation"]
    pools: dict[str, Pool] = request.app.state.pools
    client = request.client.host if request.client is not None else None
    return await pools[pool].run(answer_or_error_object, work, generation, client=client)


async def answer_remembered(
    request: Request,
    params: dict[str, str],
    work: Callable[[Generation], Response],
    pool: str = "lookups",
    *,
    base: str | None = None,
) -> Response:
    """:func:`answer_in_threadpool` for a GET rules endpoint, whose answer depends only on the path, the parameters,
    the read-only database and (``base``, for answers holding links) the server's address the client used: a 200
    answer is kept per generation and given again without running ``work`` (a nameable list takes most of a
    second)."""
    generation: Generation = request.scope["oracle_tools.generation"]
    key = (request.url.path, tuple(sorted(params.items())), base)
    body = generation.answers.get(key)
    if body is not None:
        return raw_json_response(body)
    response = await answer_in_threadpool(request, work, pool)
    if response.status_code == 200:
        generation.remember_answer(key, bytes(response.body))
    return response


def answer_or_error_object(work: Callable[[Generation], Response], generation: Generation) -> Response:
    """``work``'s answer, or the Scryfall error object its error means (a user's mistake is a 400, no 500; a
    damaged database file the 503 :func:`damage_answer` gives)."""
    try:
        return work(generation)
    except ApiError as exc:
        return error_response(exc)
    except Exception as exc:
        damaged = damage_answer(exc, generation)
        if damaged is not None:
            return damaged
        if isinstance(exc, OracleToolsError):  # the request's fault (4XX) or the server's database (5XX)
            return error_response(ApiError.of(exc))
        raise


def damage_answer(exc: BaseException, generation: Generation | None) -> Response | None:
    """The answer when ``exc`` says the database file is damaged (Generation.note_damage): 503, as a missing
    database (the server's file, no mistake of the client's), the same line as every door; else None."""
    if generation is None:
        return None
    damage = generation.note_damage(exc)
    return None if damage is None else error_response(ApiError(503, str(damage)))


# -- exception handlers (app.py registers them) -------------------------------------------------------


async def not_found(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 404)
    if status == 405:  # every 405 carries Allow (RFC 9110 15.5.6); the sentence names the methods too
        allowed = sorted({m.strip() for m in (getattr(exc, "headers", None) or {}).get("Allow", "").split(",")} - {""})
        takes = f"; it takes {' or '.join(allowed)}" if allowed else ""
        response = error_response(ApiError(405, f"{request.method} is not allowed on {request.url.path[:200]}{takes}."))
        if allowed:
            response.headers["Allow"] = ", ".join(allowed)
        return response
    return error_response(
        ApiError(
            status,
            f"no endpoint at {request.url.path[:200]}; see docs/serve.md for the API.",
            code=CODES.get(status, "error"),
        )
    )


async def api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc)


async def library_error(request: Request, exc: Exception) -> Response:
    """A library error a route raised before its work (a format, a body's size): its own status (errors.py);
    a damaged database file as every door says it."""
    assert isinstance(exc, OracleToolsError)
    damaged = damage_answer(exc, request.scope.get("oracle_tools.generation"))
    return damaged if damaged is not None else error_response(ApiError.of(exc))


async def pool_full(request: Request, exc: Exception) -> Response:
    """A full worker pool (pools.PoolFull): Scryfall's error object, 503."""
    return error_response(ApiError(503, str(exc)))


async def server_error(request: Request, exc: Exception) -> Response:
    damaged = damage_answer(exc, request.scope.get("oracle_tools.generation"))
    if damaged is not None:  # the file, not the server: no error logged for each request (the first is warned of)
        return damaged
    path = request.url.path
    shown = path if len(path) <= LOGGED_PATH else f"{path[:LOGGED_PATH]}… ({len(path):,} characters)"
    log.error("%s %s: %s: %s", request.method, shown, type(exc).__name__, str(exc)[:LOGGED_PATH])
    return error_response(
        ApiError(
            500,
            f"the server could not answer this request ({type(exc).__name__}); it keeps running.",
        )
    )
