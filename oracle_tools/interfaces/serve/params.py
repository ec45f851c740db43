"""The server's request parameters: the query parameters an endpoint takes (Scryfall's rules, or the rules
endpoints' strict ones), the answer's form (``format``/``pretty``/``face``/``version``), text and boolean values,
the request body (size-limited, JSON) and the base URL the answer's links use. Each refuses a bad value with an
:class:`~oracle_tools.interfaces.serve.responses.ApiError` saying what was wrong.
"""

from __future__ import annotations

import json
import sys
from typing import Any, overload

from starlette.requests import Request

from oracle_tools.db import DEFAULT_SUGGESTIONS, MAX_SUGGESTIONS
from oracle_tools.interfaces.serve.responses import ApiError
from oracle_tools.names.resolver import MAX_NAME_CHARS
from oracle_tools.scryfall.links import links_base
from oracle_tools.text.surrogates import lone_surrogate

MAX_BODY = 1024 * 1024  # bytes: a bigger request body is refused with 413
MAX_NAME = MAX_NAME_CHARS  # characters of a name, query or constraint (the names layer's limit)

#: Scryfall's parameters of every endpoint (https://scryfall.com/docs/api/request-formats): the answer's form.
_COMMON = frozenset({"format", "pretty"})
#: The forms Scryfall serves: JSON everywhere; text and image where one card is the answer.
_JSON_ONLY = frozenset({"json"})
CARD_FORMATS = frozenset({"json", "text", "image"})
#: The image versions ``format=image`` takes (``version=``), as Scryfall names them; ``large`` by default.
IMAGE_VERSIONS = ("small", "normal", "large", "png", "art_crop", "border_crop")


def endpoint_params(
    request: Request,
    allowed: frozenset[str],
    *,
    scryfall: bool = True,
    formats: frozenset[str] = _JSON_ONLY,
) -> dict[str, str]:
    """The query parameters this endpoint uses, each once.

    Scryfall's endpoints follow Scryfall's rules: a parameter the endpoint does not use is ignored (Scryfall
    ignores them, and clients send their own: scrython adds ``format=json&face=&version=&pretty=`` and its path
    values to every request); ``format`` takes the forms the endpoint documents (``formats``: json, and text and
    image on single-card endpoints), ``pretty`` indents the JSON, and ``face``/``version`` choose the image of
    ``format=image``. A used parameter given twice or with a malformed value is a 400 (an unserved format a 422).
    The rules endpoints (``scryfall=False``) are this project's own and refuse an unknown parameter with a 400.
    """
    used = allowed | _COMMON if scryfall else allowed
    out: dict[str, str] = {}
    for key, value in request.query_params.multi_items():
        if key not in used:
            if scryfall:
                continue  # as Scryfall: a parameter the endpoint does not use changes nothing
            raise ApiError(
                400,
                f"unknown parameter {key!r} for {request.url.path}; "
                f"this endpoint takes: {', '.join(sorted(used)) or 'no parameters'}.",
            )
        if key in out and key != "commander" and out[key] != value:
            raise ApiError(400, f"parameter {key!r} is given more than once; give it once.")
        out[key] = value
    if scryfall:
        _answer_form(request, out, formats)
    return out


def _answer_form(request: Request, params: dict[str, str], formats: frozenset[str]) -> None:
    """Check Scryfall's ``format``/``pretty``/``face``/``version`` and note the answer's form for
    :class:`AnswerForms` (https://scryfall.com/docs/api/request-formats)."""
    form = params.pop("format", "") or "json"
    if form not in formats:
        offered = ", ".join(f"format={f}" for f in sorted(formats))
        raise ApiError(422, f"format={form[:40]!r} is not served by {request.url.path}; it serves {offered}.")
    pretty = bool_param(params.pop("pretty", None), "pretty")
    face = params.pop("face", "") or ""
    version = params.pop("version", "") or ""
    if form == "image":
        if face not in ("", "front", "back"):
            raise ApiError(400, f"face={face[:40]!r} is not a card face; give face=back (or leave it out).")
        if version and version not in IMAGE_VERSIONS:
            raise ApiError(
                400, f"version={version[:40]!r} is not an image version; give one of {', '.join(IMAGE_VERSIONS)}."
            )
    state = request.scope.setdefault("state", {})
    state["answer_form"] = (form, pretty, face, version or "large")


@overload
def text_param(value: str | None, what: str) -> str: ...
@overload
def text_param(value: str | None, what: str, *, required: bool) -> str | None: ...
def text_param(value: str | None, what: str, *, required: bool = True) -> str | None:
    if value is None or not value.strip():
        if required:
            raise ApiError(400, f"{what} is missing; give it as a non-empty value.")
        return None
    if len(value) > MAX_NAME:
        raise ApiError(400, f"{what} is {len(value):,} characters long; at most {MAX_NAME:,} are accepted.")
    return value


def q_not_utf8(request: Request) -> str | None:
    """What is wrong with the raw ``q=`` when it is no UTF-8 (``q=t:goblin%ff``), else None: Starlette decodes it
    with U+FFFD in place of the bad bytes, a search for a name with that character, which answered "didn't match
    any cards" (the API's searches and the search page alike)."""
    from urllib.parse import parse_qsl

    raw = request.scope.get("query_string", b"").decode("latin-1")  # one character per byte: nothing lost
    for key, value in parse_qsl(raw, keep_blank_values=True, encoding="latin-1"):
        if key == "q":
            try:
                value.encode("latin-1").decode("utf-8")
            except UnicodeDecodeError as exc:
                return (
                    f"q= is not valid UTF-8 text (byte 0x{exc.object[exc.start]:02X} at byte {exc.start} of the "
                    "query); percent-encode the query's UTF-8 bytes."
                )
    return None


def bool_param(value: str | None, what: str) -> bool:
    if value is None or value == "":
        return False
    lowered = value.lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise ApiError(400, f"{what}={value!r} is not a boolean; give true or false.")


#: The highest page number a paged answer takes (a page past the last one is a 422 of its own).
MAX_PAGE = 100_000


def quoted(value: str, most: int = 20) -> str:
    """``value`` as a message quotes a parameter: its first ``most`` characters, an ellipsis saying there were more
    (a bare cut would quote a value that was not given)."""
    return repr(cut(value, most))


def cut(value: str, most: int = 100) -> str:
    """``value`` as a message quotes a path's part between “ ”: at most ``most`` characters, then an ellipsis."""
    return value[:most] + ("…" if len(value) > most else "")


def page_error(value: str) -> str:
    """What is wrong with ``page=value`` when it is no page number from 1 to :data:`MAX_PAGE`."""
    return f"page={quoted(value)} is not a page number from 1 to {MAX_PAGE:,}."


def page_number(value: str) -> int | None:
    """The page ``page=value`` names, from 1 to :data:`MAX_PAGE` in ASCII digits (``str.isdigit`` alone takes "²",
    which ``int`` refuses, and "２", a page nobody typed); None for any other value (:func:`page_error` says why).
    Its length is bounded first: ``int`` refuses more than 4,300 digits with a ValueError."""
    if not (value.isascii() and value.isdigit() and len(value) <= len(str(MAX_PAGE))):
        return None
    page = int(value)
    return page if 1 <= page <= MAX_PAGE else None


def whole_number_param(value: str, what: str, lowest: int, highest: int) -> int:
    """A whole number from ``lowest`` to ``highest`` written in ASCII digits (``int`` alone takes '²' and '1_0'),
    else the 400 saying so."""
    if not (value.isascii() and value.isdigit() and len(value) < 10) or not lowest <= int(value) <= highest:
        raise ApiError(400, f"{what}={quoted(value)} is not a whole number from {lowest} to {highest:,}.")
    return int(value)


def suggest_param(value: str | None) -> int:
    """``suggest=N``: how many names a miss suggests, 0 to MAX_SUGGESTIONS (DEFAULT_SUGGESTIONS left out)."""
    if value is None or value == "":
        return DEFAULT_SUGGESTIONS
    return whole_number_param(value, "suggest", 0, MAX_SUGGESTIONS)


#: The request scope's key by which app.ReadBodyFirst says the body's first bytes (all the route gets) are refused by
#: the route's ``refused_by_head``: the route refuses them without looking at them again.
REFUSED_BY_HEAD = "oracle_tools.refused_by_head"


async def read_body(request: Request) -> bytes:
    """The request body, refused with 413 past MAX_BODY (by Content-Length, or while reading)."""
    length = request.headers.get("content-length")
    if length is not None:
        if not (length.isascii() and length.isdigit()):  # str.isdigit alone takes "²", which int() refuses
            raise ApiError(400, "the Content-Length header is not a number.")
        if int(length) > MAX_BODY:
            raise ApiError(
                413,
                f"the request body is {int(length):,} bytes; at most {MAX_BODY:,} are accepted.",
            )
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > MAX_BODY:
            raise ApiError(413, f"the request body is over {MAX_BODY:,} bytes; send less.")
    return bytes(body)


def parse_json_body(raw: bytes) -> Any:
    """A request body as JSON, or the 400 saying why not (empty, not JSON, a lone surrogate)."""
    if not raw.strip():
        raise ApiError(400, "the request body is empty; send JSON.")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        if "integer string conversion" in str(exc):  # Python's limit on a number's digits: valid JSON, refused
            raise ApiError(
                400,
                f"the request body's JSON holds a number of more than {sys.get_int_max_str_digits():,} digits, "
                "which no count or id has; send smaller numbers.",
            ) from None
        raise ApiError(400, f"the request body is not valid JSON ({str(exc)[:200]}).") from None
    where = lone_surrogate(data)
    if where is not None:
        raise ApiError(
            400,
            f"the request body's JSON holds a lone surrogate ({where}), which is no Unicode character; send text",
        )
    return data


def address_base(host: str, port: int) -> str:
    """The links' base for a connection that came in on ``host``:``port`` (:func:`base_url_of` without a Host
    header); a server bound to every address (``0.0.0.0``, ``::``) is reached on this machine by loopback."""
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def base_url_of(request: Request) -> str:
    """This server's address for the links in answers (``uri``, ``next_page`` …); Scryfall's with ``serve --links
    scryfall`` (oracle_tools/scryfall/links.py). The ``Host`` header is a
    client's word: it is used only when it names the address the connection came in on (or ``localhost`` at
    its port), else the links use that address itself, so no request can make answers point elsewhere."""
    server = request.scope.get("server") or ("127.0.0.1", 8765)
    host, port = str(server[0]), int(server[1])
    address = address_base(host, port).removeprefix("http://")
    given = request.headers.get("host", "").strip().lower()
    allowed = {address.lower(), f"localhost:{port}"} | ({host.lower(), "localhost"} if port == 80 else set())
    own = f"http://{given if given in allowed else address}"
    return links_base(own, getattr(request.app.state, "links", "server"))  # serve --links
