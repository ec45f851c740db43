"""``oracle-tools mcp``: the rules answers as tools of a Model Context Protocol server over stdio.

Built on the official ``mcp`` Python SDK (2.x, ``MCPServer``). Its tools are the ``tool`` column of the table of
answers, ``oracle_tools/interfaces/answers.py``: each returns exactly the JSON that the matching CLI command prints
with ``--json`` (the same ``to_dict()`` objects), as the text content of the result and, parsed, as its structured
content. A hand-written tool is the method of :class:`Tools` of its name; a row with params has its tool made from
them (:func:`made_tool`).

Arguments are checked against each tool's input schema; a bad argument or a library error
(unknown format, unreadable constraint, …) is a tool error with one line saying what was wrong —
the server keeps running. The database is opened read-only; tools run one at a time.
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter
from collections.abc import AsyncIterable, AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from oracle_tools.db import DEFAULT_SUGGESTIONS, MAX_BATCH_NAMES, MAX_SUGGESTIONS, OracleDB
from oracle_tools.errors import OracleToolsError
from oracle_tools.interfaces.answers import ANSWERS, Answer
from oracle_tools.names.resolver import MAX_NAME_CHARS
from oracle_tools.search import DIRECTIONS, ORDERS, UNIQUE
from oracle_tools.store.resources import package_version
from oracle_tools.store.sqlfiles import SERVED_QUERY_TIMEOUT, damaged_database

MAX_NAME = MAX_NAME_CHARS  # characters of a name (the names layer's limit, as the HTTP API's)
if TYPE_CHECKING:  # mypy reads plain strings; pydantic, at run time, the search engine's own lists as Literals
    import anyio

    SearchUnique: TypeAlias = str
    SearchOrder: TypeAlias = str
    SearchDirection: TypeAlias = str
else:
    SearchUnique, SearchOrder, SearchDirection = Literal[UNIQUE], Literal[ORDERS], Literal[DIRECTIONS]
MAX_DECKLIST = 1024 * 1024  # characters of decklist text, as the HTTP API's body limit
SEARCH_PAGE = 175  # Scryfall's page size: the most cards one search call returns

Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME, description="A card or token name, any spelling.")]
Phrase = Annotated[
    str | None,
    Field(
        max_length=MAX_NAME,
        description=(
            'The characteristics the name must have, as printed on the card: "nonland", "artifact", '
            '"nonartifact, nonland", "creature". Omit for "choose a card name".'
        ),
    ),
]
Suggest = Annotated[
    int,
    Field(ge=0, le=MAX_SUGGESTIONS, description="How many names a miss suggests (0: none, only whether it is a name)."),
]
CardWithConstraint = Annotated[
    str | None,
    Field(
        max_length=MAX_NAME,
        description=("Take the constraint from this card's own Oracle text instead (Meddling Mage -> nonland)."),
    ),
]

_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

T = TypeVar("T")


def cli_json(data: Any) -> CallToolResult:
    """The CLI's ``--json`` text (same ``json.dumps`` call) as text content, and parsed as structured content."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    parsed = json.loads(text)
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=parsed if isinstance(parsed, dict) else {"result": parsed},
    )


def _one_line(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ())) or "arguments"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "; ".join(parts)


class OracleMCPServer(MCPServer[Any]):
    """An MCPServer whose tool errors name the tool, then what was wrong with the arguments (one line) or the
    library's message whole, as the CLI and the HTTP API say it (a "did you mean" after a line break the query
    held stays in)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(f"{name}: bad arguments: {_one_line(cause)}") from None
            if type(cause) is ToolError:  # raised by answer(): the library's OracleToolsError text
                raise ToolError(f"{name}: {str(cause).strip()}") from None
            raise

    async def run_stdio_async(self) -> None:
        """The SDK's stdio loop with every incoming line checked first (:class:`CheckedLines`): the SDK drops
        a line it cannot read without a word, and the client waits forever for the answer."""
        import io
        import sys

        import anyio
        from mcp.server.stdio import stdio_server

        stdin = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
        stdout = anyio.wrap_file(io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", line_buffering=True))
        # The SDK cancels the requests still running when its input ends: a client that writes its calls and closes
        # stdin (`printf … | oracle-tools mcp`) got no answer to them. The input ends only once they are answered.
        in_flight = InFlight()
        async with stdio_server(stdin=CheckedLines(stdin, stdout, in_flight), stdout=stdout) as (read, write):  # type: ignore[arg-type]
            server = self._lowlevel_server
            await server.run(read, Answers(write, in_flight), server.create_initialization_options())


class InFlight:
    """The requests read from the client and not answered yet (by id; a request the client cancels needs no
    answer): :class:`CheckedLines` counts them in, :class:`Answers` out, and the input ends after the last."""

    def __init__(self) -> None:
        self.waiting: Counter[str | int] = Counter()
        self._none_left: anyio.Event | None = None

    def read(self, message: Any) -> None:
        """Count a message read from the client: a request waits for its answer; a cancellation is its answer."""
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return
        if message["method"] == "notifications/cancelled" and isinstance(message.get("params"), dict):
            self.answered(message["params"].get("requestId"))
        elif _rpc_id(message.get("id")) is not None:
            self.waiting[message["id"]] += 1

    def answered(self, message_id: Any) -> None:
        if _rpc_id(message_id) is None or not self.waiting[message_id]:
            return
        self.waiting[message_id] -= 1
        if not self.waiting[message_id]:
            del self.waiting[message_id]
        if not self.waiting and self._none_left is not None:
            self._none_left.set()

    async def none_left(self) -> None:
        """Return once every request read has been answered (at once when none is waiting)."""
        import anyio

        while self.waiting:
            self._none_left = anyio.Event()
            await self._none_left.wait()


def _rpc_id(value: Any) -> str | int | None:
    """``value`` when it is a JSON-RPC id (a string or an integer), else None."""
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


class Answers:
    """The SDK's stream of messages to the client, counting each answer out of :class:`InFlight`."""

    def __init__(self, inner: Any, in_flight: InFlight) -> None:
        self.inner = inner
        self.in_flight = in_flight

    async def send(self, item: Any, /) -> None:
        from mcp import types

        await self.inner.send(item)
        message = getattr(item, "message", None)
        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
            self.in_flight.answered(message.id)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> Answers:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class CheckedLines:
    """The lines of standard input for the SDK, less those it would drop: each of those is answered here, as
    JSON-RPC says — text that is not JSON: -32700 (parse error); JSON that is no JSON-RPC message: -32600
    (invalid request, with its id when it has one; an id that is no string or integer — an object, a fraction,
    null — with id null); a message holding a lone surrogate (a "\\ud800" escape,
    which no text can hold): a tool error for a tool call, else -32602 (invalid params)."""

    def __init__(self, lines: AsyncIterable[str], out: anyio.AsyncFile[str], in_flight: InFlight | None = None) -> None:
        self.lines = lines
        self.out = out
        self.in_flight = in_flight if in_flight is not None else InFlight()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._checked()

    async def _checked(self) -> AsyncIterator[str]:
        async for line in self.lines:
            if not line.strip():
                continue
            reply = bad_message_reply(line)
            if reply is None:
                self.in_flight.read(json.loads(line))
                yield line
            elif reply:
                await self.out.write(json.dumps(reply) + "\n")
                await self.out.flush()
        await self.in_flight.none_left()  # stdin closed: the calls already read are answered, then the server ends


def bad_message_reply(line: str) -> dict[str, Any] | None:
    """The JSON-RPC answer to a line the SDK cannot take (``{}`` for one that gets no answer: a notification),
    or None for a good line."""
    from mcp import types

    from oracle_tools.text.surrogates import lone_surrogate

    try:
        value = json.loads(line)
    except (ValueError, RecursionError) as exc:
        return _rpc_error(None, -32700, f"Parse error: the line is not JSON ({str(exc)[:200]})")
    message_id = value.get("id") if isinstance(value, dict) else None
    if not isinstance(message_id, (str, int)) or isinstance(message_id, bool):
        if isinstance(value, dict) and "id" in value:
            # JSON-RPC 2.0: an id is a string or an integer; the SDK would take any other as a notification and
            # never answer, so the client would wait forever. The id cannot be echoed: null, as the spec says.
            return _rpc_error(
                None, -32600, f"Invalid Request: the id must be a string or an integer, not {json.dumps(message_id)}"
            )
        message_id = None
    try:
        types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValueError as exc:
        return _rpc_error(
            message_id, -32600, f"Invalid Request: not a JSON-RPC 2.0 message ({str(exc).splitlines()[0][:200]})"
        )
    if lone_surrogate(value) is None:
        return None
    if message_id is None:
        return {}  # a notification gets no answer
    if value.get("method") == "tools/call":
        name = str((value.get("params") or {}).get("name", "tool")).encode("utf-8", "replace").decode()
        text = f"{name}: bad arguments: a string holds a lone surrogate, which is no Unicode character; send text"
        return {
            "jsonrpc": "2.0",
            "id": message_id,
            "result": {"content": [{"type": "text", "text": text}], "isError": True},
        }
    return _rpc_error(message_id, -32602, "Invalid params: a string holds a lone surrogate; send text")


def _rpc_error(message_id: str | int | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": message}}


def build_server(db: OracleDB, *, query_timeout: float = SERVED_QUERY_TIMEOUT) -> MCPServer[Any]:
    """The MCP server with the oracle-tools tools, answering from ``db``: one tool for each row of the table of
    answers that has one, in its order."""
    server = OracleMCPServer(
        "oracle-tools",
        version=package_version(),
        log_level="WARNING",
        instructions=(
            "Magic: The Gathering Oracle card reference (Scryfall data) with the Comprehensive Rules' name rules "
            "(CR 201), tokens (CR 111), 'choose a card name' (CR 201.4) and deck legality. Resolve names before "
            "reasoning about a card; answers are JSON."
        ),
    )
    tools = Tools(db, query_timeout=query_timeout)
    for row in ANSWERS:
        if row.tool is None:
            continue
        if row.made:
            server.add_tool(made_tool(row, tools), name=row.tool, description=row.summary, annotations=_READ_ONLY)
        else:
            server.add_tool(getattr(tools, row.tool), name=row.tool, annotations=_READ_ONLY)
    return server


class Tools:
    """The hand-written tools over one database, a method each (its name, arguments and docstring are the tool's
    name, input schema and description, as the SDK reads them), and :meth:`answer`, which every tool runs its work
    through."""

    def __init__(self, db: OracleDB, *, query_timeout: float = SERVED_QUERY_TIMEOUT) -> None:
        self.db = db
        self.query_timeout = query_timeout
        self.lock = threading.Lock()  # one DuckDB connection: tools run on worker threads, one at a time
        self.opened = self.identity()

    def identity(self) -> tuple[int, int, int, int] | None:
        """What changes when the file is replaced (a re-ingest) or damaged in place (cut short): device, inode,
        size, mtime, as the HTTP server compares them (serve/generations.py); None while the file is absent."""
        try:
            st = os.stat(self.db.path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def answer(self, work: Callable[[], T]) -> T:
        db = self.db
        with self.lock:
            now = self.identity()
            if now is not None and now != self.opened:  # the file changed: what this process read of it is stale
                self.opened = now
                db.close()  # reopened by the work below: the new file's answers, or its damage said
            try:
                return work()
            except OracleToolsError as exc:
                raise ToolError(str(exc)) from None
            except Exception as exc:  # a damaged database file: the line every door says, not "Error executing"
                damaged = damaged_database(exc, db.path)
                if damaged is None:
                    raise
                raise ToolError(str(damaged)) from None

    def resolve(
        self,
        name: Name,
        fuzzy: Annotated[bool, Field(description=("Accept the closest name for a misspelling (via 'fuzzy')."))] = False,
        suggest: Suggest = DEFAULT_SUGGESTIONS,
    ) -> CallToolResult:
        """Resolve a card name in any spelling, face, language or alternate name to its Oracle card (CR 201).

        Returns status ok / ambiguous / not_found, the Oracle name, how it matched (`via`), the class of
        interchangeable names (CR 201.3) and suggestions on a miss. Same JSON as `oracle-tools resolve --json`.
        """
        return cli_json(self.answer(lambda: self.db.resolve(name, fuzzy=fuzzy, suggest=suggest).to_dict()))

    def resolve_batch(
        self,
        names: Annotated[
            list[Name], Field(min_length=1, max_length=MAX_BATCH_NAMES, description="The names to resolve.")
        ],
        fuzzy: Annotated[bool, Field(description=("Read each miss by the fuzzy rule, as resolve does."))] = False,
        suggest: Suggest = DEFAULT_SUGGESTIONS,
    ) -> CallToolResult:
        """Resolve many card names at once (a decklist's): one row per name, in order, with status, the Oracle
        name, how it matched and suggestions for a miss. Same JSON as `oracle-tools resolve --batch FILE --json`."""
        return cli_json(self.answer(lambda: self.db.resolve_many(names, suggest=suggest, fuzzy=fuzzy).to_dicts()))

    def token(self, name: Name) -> CallToolResult:
        """What "create a NAME token" makes (CR 111): a predefined token (111.10), the token effects name and
        define (111.4, 111.9), the Oracle card of that name (111.11), or kind 'none' with suggestions.
        Same JSON as `oracle-tools token NAME --json`."""
        return cli_json(self.answer(lambda: self.db.token(name).to_dict()))

    def references(self, name: Name) -> CallToolResult:
        """How a card's Oracle text names itself (CR 201.5 full name, 201.5c shortened name), the cards and
        tokens it names, and every card whose text names it. Same JSON as `oracle-tools refs NAME --json`."""
        return cli_json(self.answer(lambda: self.db.references(name)))

    def choose_name(self, name: Name, constraint: Phrase = None, card: CardWithConstraint = None) -> CallToolResult:
        """May NAME be chosen for "choose a [constraint] card name" (CR 201.4)? Returns valid, the names chosen
        (interchangeable names too, 201.4g), the rule and the reason. Same JSON as
        `oracle-tools choose-name NAME --json`."""

        _one_constraint(constraint, card)
        return cli_json(
            self.answer(lambda: self.db.choose_name_report(name, constraint=constraint, card=card).to_dict())
        )

    def list_nameable(
        self,
        constraint: Phrase = None,
        card: CardWithConstraint = None,
        limit: Annotated[int, Field(ge=1, le=5000, description="At most this many rows.")] = 100,
    ) -> CallToolResult:
        """Every name that may be chosen under a constraint (CR 201.4): one row per face with its
        characteristics. The first `limit` rows of `oracle-tools choose-name --list --json`."""

        _one_constraint(constraint, card)
        return cli_json(self.answer(lambda: self.db.nameable_rows(constraint=constraint, card=card, limit=limit)))

    def check_deck(
        self,
        decklist: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_DECKLIST,
                description=("The decklist text: Arena, MTGO .txt or .dek XML, a plain list, or a JSON deck."),
            ),
        ],
        format: Annotated[
            str,
            Field(
                min_length=1,
                max_length=40,
                description=(
                    "standard, pioneer, modern, legacy, vintage, pauper, commander, duel, brawl, premodern, "
                    "oldschool, limited, ... (Scryfall legality keys; edh and other aliases work)."
                ),
            ),
        ],
        commanders: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=MAX_NAME)]] | None,
            Field(max_length=2, description="The commander(s), when the list has no Commander section."),
        ] = None,
    ) -> CallToolResult:
        """Check a decklist against a format's construction rules (CR 100.2, 100.4, 201.3b, 903): legal, and
        each problem with its kind, card, line and detail; `lines` gives every card line as resolved.
        Same JSON as `oracle-tools deck check FILE --format F --json`."""

        def work() -> dict[str, Any]:
            from oracle_tools.decks.checker import decklist_from_text, format_rules

            rules = format_rules(format)
            deck = decklist_from_text(decklist, "decklist", how_to_lift="oracle-tools deck check --no-limits")
            return self.db.check_deck(deck, format=rules.key, commanders=commanders or None).to_dict()

        return cli_json(self.answer(work))

    def changes(
        self,
        run: Annotated[int | None, Field(ge=1, description="The ingest run (see `oracle-tools info`).")] = None,
        since: Annotated[
            str | None, Field(max_length=40, description="Every ingest on or after this date (YYYY-MM-DD).")
        ] = None,
        format: Annotated[
            str | None, Field(max_length=40, description="Only legality changes in this format (modern, ...).")
        ] = None,
        card: Annotated[
            str | None, Field(max_length=MAX_NAME, description="Only this card (any name of it, a former one too).")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=5000, description="At most this many changes per kind.")] = 50,
    ) -> CallToolResult:
        """What changed in the Oracle reference at the last ingest that changed something (or `run`, or every
        ingest since a date): bans and unbans, other legality changes, renames, Oracle text errata (word diff
        `[-old-]{+new+}`),
        other characteristics, new and removed cards, grouped with counts. Same JSON as
        `oracle-tools changes [--run N | --since DATE] [--format F] [--card NAME] --limit N --json`."""
        return cli_json(
            self.answer(lambda: self.db.changes_report(since=since, run=run, format=format, card=card, limit=limit))
        )

    def search(
        self,
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_NAME,
                description=('Scryfall search syntax: t:goblin c:r mv<=2 f:modern, o:"draw a card", name words, ...'),
            ),
        ],
        limit: Annotated[int, Field(ge=1, le=SEARCH_PAGE, description="At most this many cards.")] = 20,
        unique: SearchUnique = "cards",
        order: SearchOrder = "name",
        direction: SearchDirection = "auto",
    ) -> CallToolResult:
        """Search cards with Scryfall's query language. Returns a Scryfall list object (object, total_cards,
        has_more, data: Scryfall card objects) with the first `limit` cards: the JSON of
        `oracle-tools search QUERY --limit N --json`."""

        # a runaway search cannot hold the one connection every tool shares (timeout: DuckDB's interrupt())
        return cli_json(
            self.answer(
                lambda: self.db.search_list(
                    query, unique=unique, order=order, direction=direction, limit=limit, timeout=self.query_timeout
                )
            )
        )


def made_tool(row: Answer, tools: Tools) -> Callable[..., CallToolResult]:
    """The tool of a row of the table of answers whose doors are made from its params: its arguments are the params
    (a ``name`` as a card name, ``text`` at most MAX_NAME characters, ``flag`` a boolean, ``count`` from 1 to the
    param's ``most``), and it answers ``OracleDB.<method>(**arguments)`` as the CLI's ``--json``."""
    import inspect

    parameters = []
    for param in sorted(row.params or (), key=lambda p: not p.required):  # (those with defaults after)
        kind: Any = {"name": str, "text": str, "flag": bool, "count": int}[param.kind]
        limits: dict[str, Any] = {"description": param.help}
        if param.kind in ("name", "text"):
            limits |= {"min_length": 1, "max_length": MAX_NAME}
        if param.kind == "count":
            limits |= {"ge": 1, "le": param.most}
        default: Any = bool(param.default) if param.kind == "flag" else param.default
        nullable = not param.required and default is None  # (text left out: None, as at the other doors)
        annotation: Any = Annotated[kind | None if nullable else kind, Field(**limits)]
        if param.required:
            default = inspect.Parameter.empty
        parameters.append(
            inspect.Parameter(param.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        )

    def tool(**arguments: Any) -> CallToolResult:
        return cli_json(tools.answer(lambda: row.ask(tools.db, arguments)))

    tool.__name__ = tool.__qualname__ = row.tool or row.name
    tool.__doc__ = row.summary
    tool.__signature__ = inspect.Signature(parameters, return_annotation=CallToolResult)  # type: ignore[attr-defined]
    return tool


def _one_constraint(phrase: str | None, card: str | None) -> None:
    """A constraint is given as a phrase or by a card, not both (a tool error, as the CLI's usage error)."""
    if phrase is not None and card is not None:
        raise ToolError("give constraint or card, not both")


def run(db_path: str | Path, *, query_timeout: float = SERVED_QUERY_TIMEOUT) -> None:
    """Serve the tools over stdio until the client closes stdin or Ctrl-C. The database must exist (checked first)."""
    import os
    import signal
    import sys

    db = OracleDB(db_path)
    db.con  # noqa: B018 - open now: a missing database is one error line before the server starts
    if sys.stdin.isatty():  # a person started it, not an MCP client: say what it is waiting for
        print(
            f"oracle-tools mcp: serving {db.path} as MCP tools; waiting for an MCP client on standard input "
            "(an AI assistant starts this command itself). Ctrl-C stops it.",
            file=sys.stderr,
            flush=True,
        )

    def stop(signum: int, frame: object) -> None:
        # The SDK reads stdin in a worker thread that a cancelled event loop cannot interrupt: without this the
        # first Ctrl-C waited for one more input line. The database is read-only: nothing is left half-written; the
        # sandbox's spill folder, which an exit function would remove, goes first.
        from oracle_tools.store.sqlfiles import remove_spill_folder

        remove_spill_folder()
        os._exit(130)

    previous = signal.signal(signal.SIGINT, stop)
    try:
        build_server(db, query_timeout=query_timeout).run("stdio")
    finally:
        signal.signal(signal.SIGINT, previous)
        db.close()
