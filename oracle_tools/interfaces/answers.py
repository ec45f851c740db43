"""The one table of answers: each answer of :class:`~oracle_tools.db.OracleDB` that has several doors (an HTTP
route, a CLI command, an MCP tool), one row each, with where it is documented.

Every door reads this table: ``serve/app.py`` makes its routes from the rows (the Scryfall routes with no CLI twin
stay in its own list), ``mcp_server.py`` registers the rows' tools, ``cli.py`` adds the commands made from rows,
and the tests ask every row's doors (``tests/test_answers.py``: each route, tool and command exists and answers).

A row whose ``params`` is a tuple has its three doors made from it: ``GET`` on its route (the params as query
parameters, or path parameters its path names), a command (a ``name`` param is its argument, others options) and
a tool (the params as arguments), each answering ``OracleDB.<method>(**params)`` as the same JSON. Adding such an
answer takes its method in ``db.py``, its row here and its section in the docs (docs/architecture.md, "A new
route with CLI and MCP doors"). A row whose ``params`` is None names its hand-written doors: the route's
``endpoint`` in ``serve/`` (``module.function``), the command in the ``oracle-tools`` group and the tool, a method
of ``mcp_server.Tools`` of the tool's name.

This module imports no door (the doors import it): the table is data, names and strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from oracle_tools.db import OracleDB

#: How a param is read and checked at every door: ``name`` a card or token name (non-empty, at most
#: MAX_NAME_CHARS characters), ``text`` any other short text, ``flag`` true or false, ``count`` a positive integer.
ParamKind = Literal["name", "text", "flag", "count"]


@dataclass(frozen=True)
class Param:
    """One argument of an answer whose doors are made from its row, named alike at every door (``--the-name`` on
    the command line for an option)."""

    name: str
    help: str
    kind: ParamKind = "name"
    required: bool = True  # a required name is the command's argument; any other param is an option
    default: int | bool | str | None = None
    most: int = 5000  # a count's highest value


@dataclass(frozen=True)
class Route:
    """One HTTP route of an answer. ``endpoint``: its hand-written handler as ``module.function`` of
    ``interfaces/serve/`` (None: made from the row's params). ``example``: a request (path and query) that the
    embedded sample database answers, and ``body`` its body for a POST: the tests ask every route with them."""

    path: str
    methods: tuple[str, ...] = ("GET",)
    endpoint: str | None = None
    example: str = ""
    body: bytes | None = None


@dataclass(frozen=True)
class Answer:
    """One answer and its doors. ``command`` is the CLI command's path in the ``oracle-tools`` group (``deck
    check``), ``tool`` the MCP tool's name, ``tool_example`` arguments the sample database answers, ``docs`` the
    file and section (``docs/serve.md#rules-endpoints``) that documents it."""

    name: str
    method: str
    docs: str
    routes: tuple[Route, ...] = ()
    command: str | None = None
    tool: str | None = None
    tool_example: Mapping[str, Any] = field(default_factory=dict)
    summary: str = ""  # made doors: the command's --help and the tool's description
    params: tuple[Param, ...] | None = None  # a tuple: the doors are made from it; None: hand-written

    @property
    def made(self) -> bool:
        """Whether this answer's doors are made from its row (not hand-written)."""
        return self.params is not None

    def ask(self, db: OracleDB, arguments: Mapping[str, Any]) -> Any:
        """The answer as JSON data (a ``to_dict()`` object as its dict), as every made door gives it."""
        value = getattr(db, self.method)(**arguments)
        return value.to_dict() if hasattr(value, "to_dict") else value


_SERVE = "docs/serve.md#rules-endpoints"
_SETS = "docs/serve.md#sets-symbols-bulk-data"

#: Every answer with several doors, in the order of their routes (before the Scryfall-only routes) and tools.
ANSWERS: tuple[Answer, ...] = (
    Answer(
        "resolve",
        "resolve",
        _SERVE,
        (Route("/names/resolve", ("GET",), "rules_routes.names_resolve", "/names/resolve?q=fire%2Fice"),),
        command="resolve",
        tool="resolve",
        tool_example={"name": "fire/ice"},
    ),
    Answer(
        "resolve_batch",
        "resolve_many",
        _SERVE,
        (Route("/names/resolve", ("POST",), "rules_routes.names_resolve", "/names/resolve", b'["Lightning Bolt"]'),),
        command="resolve",
        tool="resolve_batch",
        tool_example={"names": ["Tarmogoyff", "fire/ice", "qwzx"], "fuzzy": True},
    ),
    Answer(
        "token",
        "token",
        _SERVE,
        (Route("/tokens/{name:path}", ("GET",), "rules_routes.tokens", "/tokens/Goblin"),),
        command="token",
        tool="token",
        tool_example={"name": "Treasure"},
    ),
    Answer(
        "references",
        "references",
        _SERVE,
        (
            Route(
                "/names/references",
                ("GET",),
                "rules_routes.names_references",
                "/names/references?name=Lightning%20Bolt",
            ),
        ),
        command="refs",
        tool="references",
        tool_example={"name": "Graf Rats"},
    ),
    Answer(
        "choose_name",
        "choose_name_report",
        _SERVE,
        (
            Route(
                "/choose-name",
                ("GET",),
                "rules_routes.choose_name",
                "/choose-name?name=Lightning%20Bolt&constraint=nonland",
            ),
        ),
        command="choose-name",
        tool="choose_name",
        tool_example={"name": "Fire // Ice", "constraint": "nonland"},
    ),
    Answer(
        "list_nameable",
        "nameable_rows",
        _SERVE,
        (
            Route(
                "/choose-name/list", ("GET",), "rules_routes.choose_name_list", "/choose-name/list?constraint=nonland"
            ),
        ),
        command="choose-name",
        tool="list_nameable",
        tool_example={"constraint": "nonartifact, nonland", "limit": 25},
    ),
    Answer(
        "check_deck",
        "check_deck",
        _SERVE,
        (
            Route(
                "/decks/check",
                ("POST",),
                "rules_routes.decks_check",
                "/decks/check?format=modern",
                b"4 Lightning Bolt\n56 Mountain\n",
            ),
        ),
        command="deck check",
        tool="check_deck",
        tool_example={"decklist": "Deck\n8 Seven Dwarves\n52 Mountain\n", "format": "future"},
    ),
    Answer(
        "changes",
        "changes_report",
        _SERVE,
        (Route("/changes", ("GET",), "rules_routes.changes", "/changes"),),
        command="changes",
        tool="changes",
    ),
    Answer(
        "search",
        "search_list",
        "docs/search.md#search-scryfalls-query-language-over-the-database",
        (Route("/cards/search", ("GET",), "scryfall_routes.cards_search", "/cards/search?q=t%3Agoblin"),),
        command="search",
        tool="search",
        tool_example={"query": "t:goblin c:r mv<=2", "limit": 5},
    ),
    Answer(
        "catalog",
        "catalog",
        _SERVE,
        (Route("/catalog/{name}", ("GET",), "scryfall_routes.catalog", "/catalog/card-names"),),
        command="catalog",
    ),
    Answer(
        "sets",
        "sets",
        _SETS,
        (
            Route("/sets", ("GET",), "scryfall_routes.sets_list", "/sets"),
            Route("/sets/{code}", ("GET",), "scryfall_routes.set_by_code", "/sets/grn"),
        ),
        command="sets",
    ),
    Answer(
        "symbology",
        "symbology",
        _SETS,
        (Route("/symbology", ("GET",), "scryfall_routes.symbology", "/symbology"),),
        command="symbology",
    ),
    Answer(
        "parse_mana",
        "parse_mana",
        _SETS,
        (Route("/symbology/parse-mana", ("GET",), "scryfall_routes.parse_mana", "/symbology/parse-mana?cost=RUG"),),
        command="parse-mana",
    ),
)


__all__ = ["ANSWERS", "Answer", "Param", "ParamKind", "Route"]
