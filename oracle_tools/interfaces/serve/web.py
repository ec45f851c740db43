"""The small web page at ``/``: a name box and a decklist box, server-rendered.

No build step: two plain HTML forms that come back to the same page; the reference pages' one script
(``/static/web.js``) adds name autocomplete to both name boxes, and the page works without it. The name
form is a GET (``/?q=Fire/Ice`` is a shareable link); the deck form is a POST of the pasted list
(``/?deck=…&format=modern`` works as a GET too). Every value reaches the HTML through Jinja2 with
autoescaping on; the two filters that emit markup (mana symbols, Oracle text paragraphs) escape
their input themselves.

The answers are the library's: :meth:`OracleDB.resolve` (CR 201), the tokens lookup (CR 111) and
:meth:`OracleDB.check_deck` — the same objects the CLI's ``--json`` and the JSON API print.
``routes`` is mounted by the HTTP app (``oracle_tools/interfaces/serve/app.py``); the page reads the database
the way the API does, in the API's worker pools (see :func:`_render_in_thread`, :func:`run_pooled`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

if TYPE_CHECKING:
    import duckdb

    from oracle_tools.decks.report import DeckReport
    from oracle_tools.names.resolver import Resolution
    from oracle_tools.tokens.answers import TokenAnswer

from oracle_tools.db import OracleDB
from oracle_tools.errors import DatabaseDamagedError, OracleToolsError
from oracle_tools.interfaces.serve.generations import Kept
from oracle_tools.interfaces.serve.pools import LARGE_WORK, PoolFull
from oracle_tools.names.kinds import RESOLVED_AS
from oracle_tools.names.resolver import MAX_NAME_CHARS

MAX_NAME = MAX_NAME_CHARS  # characters; longer names are refused, as by the JSON API
#: A deck sent without a format (``/?deck=…&format=``): said, as ``POST /decks/check`` says it, never judged as Modern.
FORMAT_MISSING = "The format is missing: choose the format to check the deck against, such as modern."
MAX_BODY = 1024 * 1024  # bytes of a posted form (a decklist); the API refuses bigger bodies with 413

TEMPLATES = Path(__file__).parent / "templates"

# How a name resolved (Resolution.via), in words for the page: the table of kinds of names.
VIA_TEXT: dict[str, str] = RESOLVED_AS

_MANA_SYMBOL = re.compile(r"\{([^{}]{1,8})\}")
_COLOUR_CLASS = {"W": "ms-w", "U": "ms-u", "B": "ms-b", "R": "ms-r", "G": "ms-g"}


def mana(text: str | None) -> Markup:
    """``{2}{U}{U}`` as small round symbols; everything outside the braces is escaped as text."""
    if not text:
        return Markup("")
    out: list[str] = []
    last = 0
    for match in _MANA_SYMBOL.finditer(text):
        out.append(str(escape(text[last : match.start()])))
        symbol = match.group(1)
        colour = next((cls for key, cls in _COLOUR_CLASS.items() if key in symbol.upper().split("/")), "")
        out.append(f'<span class="ms {colour}" title="{escape(match.group(0))}">{escape(symbol)}</span>')
        last = match.end()
    out.append(str(escape(text[last:])))
    return Markup("".join(out))


def url_quote(text: str) -> str:
    """``text`` as one segment of a URL's path (a card name with a slash stays one segment)."""
    from urllib.parse import quote

    return quote(text, safe="")


def oracle_text(text: str | None) -> Markup:
    """Oracle text as one paragraph per line, mana symbols drawn (see :func:`mana`)."""
    if not text:
        return Markup("")
    return Markup("".join(f"<p>{mana(line)}</p>" for line in text.split("\n")))


templates = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(["html"]),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
templates.filters["mana"] = mana
templates.filters["oracle_text"] = oracle_text
templates.filters["path"] = url_quote
templates.globals["via_text"] = VIA_TEXT


# -- what the page shows ---------------------------------------------------------------------------


@dataclass
class Lookup:
    """The answer to the name box: the resolution, the Oracle card, a token, or suggestions."""

    resolution: Resolution
    via_text: str = ""
    card: dict[str, Any] | None = None
    token: TokenAnswer | None = None  # of kind predefined/effect: a token by that name exists
    miss: bool = False
    suggestions: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        if self.card:
            return str(self.card["name"])
        if self.token is not None:
            return str(self.token.name)
        return str(self.resolution.query)


def card_stats(row: dict[str, Any]) -> str:
    """A card's or face's power/toughness, loyalty or defense as a card shows it ("" for none)."""
    if row.get("power") is not None or row.get("toughness") is not None:
        return f"{row.get('power')}/{row.get('toughness')}"
    if row.get("loyalty") is not None:
        return f"Loyalty {row['loyalty']}"
    if row.get("defense") is not None:
        return f"Defense {row['defense']}"
    return ""


def oracle_card(con: duckdb.DuckDBPyConnection, oracle_id: str, same_name: list[str]) -> dict[str, Any] | None:
    """The Oracle card with its faces, legalities and alternate names, for the page.

    The rows come from oracle_tools/scryfall/lookups.py (``oracle_card``); what the page shows is made here.
    """
    from oracle_tools.scryfall import lookups

    card = lookups.oracle_card(con, oracle_id)
    if card is None:
        return None
    for face in card["faces"]:
        face["stats"] = card_stats(face)
    card["stats"] = card_stats(card)
    legalities = card.pop("legalities")
    card["legal"] = [fmt for fmt, status in legalities if status == "legal"]
    card["restricted_or_banned"] = [(fmt, status) for fmt, status in legalities if status in ("banned", "restricted")]
    # CR 201.6: alternate (flavor) names resolve to the card but are not its name (lookups' flavor_names)
    card["same_name"] = same_name  # CR 201.3: the other names of its class
    return card


TOKEN_MEMO_SIZE = 10_000  # token answers kept per database generation for the page
# What the old page keeps per database generation (``Generation.cached``)
TOKEN_ANSWERS: Kept[dict[str, TokenAnswer]] = Kept("token answers by name")
RECENT_CHANGES: Kept[dict[str, Any] | None] = Kept("what the last ingest changed")


def look_up(
    db: OracleDB,
    con: duckdb.DuckDBPyConnection,
    query: str,
    *,
    fuzzy: bool,
    token_memo: dict[str, TokenAnswer] | None = None,
) -> Lookup:
    """Resolve ``query`` as a card name (CR 201) and as a token name (CR 111); the page's own SQL runs on ``con``.
    ``token_memo`` keeps token answers (the server's, per database generation): ``OracleDB.token`` runs
    20-40 ms of SQL on every call, where ``resolve`` answers from its name index."""
    resolution = db.resolve(query, fuzzy=fuzzy)
    lookup = Lookup(resolution, via_text=VIA_TEXT.get(resolution.via or "", resolution.via or ""))
    if resolution.ok and resolution.oracle_id:
        same = [n for n in resolution.names if n != resolution.english_name and n != resolution.name]
        lookup.card = oracle_card(con, resolution.oracle_id, same)
    token = token_memo.get(query) if token_memo is not None else None
    if token is None:
        token = db.token(query)
        if token_memo is not None:
            if len(token_memo) > TOKEN_MEMO_SIZE:
                token_memo.clear()
            token_memo[query] = token
    # A token by that name (predefined, CR 111.10, or named by effects, 111.4/111.9) is shown too;
    # kind 'card' (111.11) is the Oracle card already shown above.
    if token.kind in ("predefined", "effect"):
        lookup.token = token
    if resolution.status == "not_found" and lookup.token is None:
        lookup.miss = True
        seen: set[str] = set()
        for name in (*resolution.suggestions, *resolution.tokens, *token.suggestions):
            if name not in seen:
                seen.add(name)
                lookup.suggestions.append(name)
    return lookup


CHANGES_SHOWN = 8  # changes per kind in the page's "what changed" list


def recent_changes(db: OracleDB) -> dict[str, Any] | None:
    """What the last ingest changed (``oracle-tools changes --json --limit 8``), each text change with its
    word diff as pieces for the page; None when it cannot be told (``changes_report`` refused)."""
    from oracle_tools.history.changes import word_diff

    try:
        report = db.changes_report(limit=CHANGES_SHOWN)
    except OracleToolsError:
        return None
    for group in report["groups"]:
        for change in group["changes"]:
            change["pieces"] = word_diff(change["old_value"], change["new_value"]) if change["diff"] else []
    return report


def format_choices() -> list[tuple[str, str]]:
    from oracle_tools.decks.formats import FORMATS

    return [(key, rules.label or key) for key, rules in FORMATS.items()]


def check_pasted_deck(db: OracleDB, text: str, fmt: str, commander: str) -> DeckReport:
    """Check pasted decklist text (both pages'). Text is always parsed as text — never taken as a file path. Text
    that begins as JSON and does not parse raises its DecklistError, as ``deck check`` and POST /decks/check say
    it: the JSON problem alone, never a deck of 0 cards judged too."""
    from oracle_tools.decks.checker import decklist_from_text
    from oracle_tools.interfaces.serve.rules_routes import HTTP_LIFT

    deck = decklist_from_text(text, "pasted decklist", how_to_lift=HTTP_LIFT)
    return db.check_deck(deck, format=fmt, commanders=[commander] if commander else None)


def render(
    db: OracleDB, con: duckdb.DuckDBPyConnection, params: dict[str, str], *, form_error: tuple[str, int] | None = None
) -> tuple[str, int]:
    """The page for the given form values: (HTML, HTTP status). Bad input is a message on the page (400);
    ``form_error`` is a posted form that could not be read (message, status)."""
    context, status = page_context(db, con, params, form_error=form_error)
    return templates.get_template("page.html").render(context), status


def page_context(
    db: OracleDB,
    con: duckdb.DuckDBPyConnection,
    params: dict[str, str],
    *,
    form_error: tuple[str, int] | None = None,
    token_memo: dict[str, Any] | None = None,
    changes: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], int]:
    """What the page shows (plain data: the template needs no database) and its HTTP status. ``changes`` is
    :func:`recent_changes` (the server keeps it per database generation), else read here."""
    from oracle_tools.decks.checker import format_rules
    from oracle_tools.decks.decklist import echo

    q = params.get("q", "").strip()
    deck = params.get("deck", "")
    commander = params.get("commander", "").strip()
    fmt = params.get("format", "").strip() or "modern"
    context: dict[str, Any] = {
        "page_url": "/",
        "images": False,  # the header's images switch (_render_in_thread reads the request's cookie)
        "here": "/",
        "db_name": db.path.name,
        "max_name": MAX_NAME,
        "q": q,
        "fuzzy": params.get("fuzzy", "") not in ("", "0", "false"),
        "deck": deck,
        "commander": commander,
        "format": fmt,
        "format_label": fmt,
        "formats": format_choices(),
        "lookup": None,
        "report": None,
        "deck_lines": [echo(line) for line in deck.splitlines()],  # a problem's line, as every problem echoes it
        "name_error": None,
        "deck_error": None,
        "changes": changes if changes is not None else recent_changes(db),
    }
    status = 200
    if q:
        if len(q) > MAX_NAME:
            context["name_error"] = (
                f"That name is {len(q):,} characters long; a card or token name has at most {MAX_NAME:,}."
            )
            context["q"] = q[:80] + "…"
            status = 400
        else:
            try:
                context["lookup"] = look_up(db, con, q, fuzzy=context["fuzzy"], token_memo=token_memo)
            except DatabaseDamagedError:  # the server's file: the one 503 (responses.py), no form error
                raise
            except OracleToolsError as exc:
                context["name_error"] = str(exc)
                status = 400
    if form_error is not None:
        context["deck_error"], status = form_error
    elif "deck" in params:
        try:
            if not params.get("format", "").strip():  # as POST /decks/check answers: never judged as some format
                raise OracleToolsError(FORMAT_MISSING)
            rules = format_rules(fmt)
            context["format"], context["format_label"] = rules.key, rules.label or rules.key
            if not deck.strip():
                raise OracleToolsError("The decklist is empty: paste one card per line, such as '4 Lightning Bolt'.")
            if len(commander) > MAX_NAME:
                raise OracleToolsError(f"The commander name is longer than {MAX_NAME:,} characters.")
            context["report"] = check_pasted_deck(db, deck, rules.key, commander)
        except DatabaseDamagedError:  # the server's file: the one 503 (responses.py), no form error
            raise
        except OracleToolsError as exc:
            context["deck_error"] = str(exc)
            status = 400
    return context, status


# -- the route --------------------------------------------------------------------------------------


def _render_in_thread(request: Request, params: dict[str, str], form_error: tuple[str, int] | None) -> tuple[str, int]:
    """Render on a worker thread against the request's database generation (serve/generations.py), as the API reads it:
    the ``OracleDB`` calls on this thread's own view of the database (``Generation.db``), the page's SQL on this
    thread's own cursor; no request waits for another's."""
    generation = request.scope["oracle_tools.generation"]
    context, status = page_context(
        generation.db,
        generation.cursor(),
        params,
        form_error=form_error,
        token_memo=generation.cached(TOKEN_ANSWERS, dict),
        changes=generation.cached(RECENT_CHANGES, lambda: recent_changes(generation.db)),
    )
    context["images"] = request.cookies.get(IMAGES_COOKIE) == "1"
    return templates.get_template("page.html").render(context), status


async def run_pooled(request: Request, pool: str, call: Callable[..., Any], *args: Any) -> Any:
    """Run ``call(*args)`` on a worker thread of the server's pool for that kind of work (``app.state.pools``,
    pools.py), as the API's handlers do: bounded, so a burst of pages waits its turn and, past the queue, is told the
    server is busy (:class:`~oracle_tools.interfaces.serve.pools.PoolFull`) instead of piling up threads; within the
    client address's share of the pool's threads."""
    client = request.client.host if request.client is not None else None
    return await request.app.state.pools[pool].run(call, *args, client=client)


def deck_pool(deck: str) -> str:
    """The pool a deck check of this pasted text runs in, as ``POST /decks/check`` picks it: a long list is large work."""
    return "large" if deck.count("\n") > LARGE_WORK else "decks"


def busy_response(message: str, headers: dict[str, str]) -> HTMLResponse:
    """503 with a short page saying so (and when to retry), never a queue without end."""
    text = f"<!doctype html><title>Busy</title><p>{escape(message[:1].upper() + message[1:])}.</p>"
    return HTMLResponse(text, status_code=503, headers={**headers, "Retry-After": "5"})


async def read_form(request: Request) -> dict[str, str] | tuple[str, int]:
    """The posted form (application/x-www-form-urlencoded) as one value per field, or (what was wrong, status)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        return "Send the deck form as application/x-www-form-urlencoded (the page's own form does).", 415
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > MAX_BODY:
            return f"The decklist is larger than {MAX_BODY // 1024:,} KB; paste a smaller one.", 413
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=20)
    except (UnicodeDecodeError, ValueError):
        return "The form could not be read (not UTF-8, or too many fields).", 400
    return {key: values[-1] for key, values in fields.items()}


async def page(request: Request) -> Response:
    """GET / (name box: ?q=, &fuzzy=1; deck: &deck=&format=) and POST / (the deck form)."""
    params: dict[str, str] = dict(request.query_params.items())
    form_error = None
    if request.method == "POST":
        form = await read_form(request)
        if isinstance(form, tuple):
            form_error = form
        else:
            params.update(form)
            params.setdefault("deck", "")
    q = params.get("q", "").strip()
    if request.method == "GET" and "deck" not in params and q and len(q) <= MAX_NAME:
        # the name box takes a search too, as Scryfall's does: the one card it finds, else the search page
        from oracle_tools.interfaces.serve.searches import name_box_search

        generation = request.scope["oracle_tools.generation"]
        try:
            target = await run_pooled(request, "lookups", name_box_search, generation, q)
        except PoolFull as exc:
            return busy_response(str(exc), PAGE_HEADERS)
        if target is not None:
            return RedirectResponse(target, status_code=303)
    pool = deck_pool(params["deck"]) if "deck" in params and form_error is None else "lookups"
    try:
        html, status = await run_pooled(request, pool, _render_in_thread, request, params, form_error)
    except PoolFull as exc:
        return busy_response(str(exc), PAGE_HEADERS)
    return HTMLResponse(html, status_code=status, headers=PAGE_HEADERS)


#: The page loads nothing from elsewhere: its policy allows its own inline style and the pages' stylesheet
#: (``/static/web.css``: the header every page shares), the one script of the reference pages (``/static/web.js``:
#: name autocomplete, asking ``/cards/autocomplete`` of this server) and forms posting back to it, nothing else — no inline script; no other site may frame it, and no answer is sniffed as another type.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


#: The cookie of the pages' images switch (the header every page shares: templates/header.html).
IMAGES_COOKIE = "oracle_tools_images"

routes = [Route("/", page, methods=["GET", "POST"], name="web_page")]
