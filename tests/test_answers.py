"""The table of answers (oracle_tools/interfaces/answers.py) and the doors made from it: every row's route is a
route of the app with the handler it names, its tool a tool of the MCP server, its command a command of the
``oracle-tools`` group, its docs section a heading of the file it names that shows its paths and command; and an
answer whose doors are made from its params gives the same JSON at its HTTP route, its command and its tool."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from starlette.routing import Route as StarletteRoute
from starlette.testclient import TestClient

from oracle_tools import OracleDB
from oracle_tools.interfaces.answers import ANSWERS, Answer, Param, Route
from oracle_tools.interfaces.cli import answer_command, main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def app_routes(sample_db_path: Path) -> dict[str, StarletteRoute]:
    from oracle_tools.interfaces.serve.app import create_app

    app = create_app(sample_db_path, warm=False)
    app.state.store.close()
    return {r.path: r for r in app.routes if isinstance(r, StarletteRoute)}


def _command(path: str) -> click.Command | None:
    command: click.Command | None = main
    for word in path.split():
        command = command.commands.get(word) if isinstance(command, click.Group) else None
    return command


def test_the_names_of_the_table_are_unique_and_each_row_has_two_doors() -> None:
    assert len({row.name for row in ANSWERS}) == len(ANSWERS)
    tools = [row.tool for row in ANSWERS if row.tool]
    assert len(set(tools)) == len(tools)
    for row in ANSWERS:  # an answer with one door is not in the table: its door holds it
        assert sum((bool(row.routes), row.command is not None, row.tool is not None)) >= 2, row.name
        assert callable(getattr(OracleDB, row.method, None)), f"{row.name}: OracleDB has no method {row.method}"


@pytest.mark.parametrize("row", ANSWERS, ids=[row.name for row in ANSWERS])
def test_every_route_of_a_row_is_a_route_of_the_app_with_its_handler(
    row: Answer, app_routes: dict[str, StarletteRoute]
) -> None:
    from oracle_tools.interfaces.serve.app import endpoint_of

    for route in row.routes:
        served = app_routes.get(route.path)
        assert served is not None, f"{row.name}: the app has no route {route.path}"
        assert set(route.methods) <= (served.methods or set()), (row.name, route.path, served.methods)
        if route.endpoint is not None:
            assert served.endpoint is endpoint_of(row, route), (row.name, route.endpoint)
        assert route.example.startswith(route.path.split("{")[0]), (row.name, route.example)


def test_every_tool_of_the_table_is_a_tool_of_the_server_and_no_other(sample_db: OracleDB) -> None:
    from oracle_tools.interfaces.mcp_server import build_server

    listed = asyncio.run(build_server(sample_db).list_tools())
    assert [t.name for t in listed] == [row.tool for row in ANSWERS if row.tool]


@pytest.mark.parametrize("row", ANSWERS, ids=[row.name for row in ANSWERS])
def test_every_command_of_the_table_is_a_command_of_the_group(row: Answer) -> None:
    if row.command is not None:
        assert _command(row.command) is not None, f"{row.name}: `oracle-tools {row.command}` is no command"


def _headings(path: Path) -> dict[str, str]:
    """A Markdown file's sections by their anchor (GitHub's: lower case, punctuation dropped, spaces as dashes)."""
    sections: dict[str, str] = {}
    anchor = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            anchor = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
            sections[anchor] = line + "\n"
        elif anchor:
            sections[anchor] += line + "\n"
    return sections


@pytest.mark.parametrize("row", ANSWERS, ids=[row.name for row in ANSWERS])
def test_every_row_is_documented_in_its_section(row: Answer) -> None:
    """The section a row names exists and names each of its routes (a parameter as any `{…}`) and its command."""
    file, _, anchor = row.docs.partition("#")
    sections = _headings(ROOT / file)
    assert anchor in sections, f"{row.name}: {file} has no section #{anchor}"
    text = re.sub(r"\{[^}]*\}", "{}", sections[anchor])
    for route in row.routes:
        assert re.sub(r"\{[^}]*\}", "{}", route.path) in text, (row.name, route.path, row.docs)
    if row.command is not None:
        assert f"oracle-tools {row.command}" in sections[anchor], (row.name, row.command, row.docs)


# -- the doors made from a row -------------------------------------------------------------------------------

#: Rows whose doors are made from their params, over answers the sample database has: a name argument and a flag
#: (resolve), optional text and a count (the nameable list).
MADE = (
    Answer(
        "made_resolve",
        "resolve",
        "docs/serve.md#rules-endpoints",
        (Route("/made/resolve/{text:path}"),),
        command="made-resolve",
        tool="made_resolve",
        summary="Resolve a name.",
        params=(Param("text", "The name."), Param("fuzzy", "Read a miss fuzzily.", "flag", required=False)),
    ),
    Answer(
        "made_nameable",
        "nameable_rows",
        "docs/serve.md#rules-endpoints",
        (Route("/made/nameable"),),
        command="made-nameable",
        tool="made_nameable",
        summary="Nameable names.",
        params=(
            Param("constraint", "The constraint.", "text", required=False),
            Param("limit", "At most this many.", "count", required=False, default=3, most=50),
        ),
    ),
)


@pytest.fixture(scope="module")
def made_client(sample_db_path: Path) -> Iterator[TestClient]:
    from oracle_tools.interfaces.serve.app import create_app
    from oracle_tools.interfaces.serve.rules_routes import made_endpoint

    extra = [StarletteRoute(r.path, made_endpoint(row, r), methods=list(r.methods)) for row in MADE for r in row.routes]
    with TestClient(create_app(sample_db_path, warm=False, extra_routes=extra)) as client:
        yield client


def _tool(row: Answer, db: OracleDB, arguments: dict[str, Any]) -> tuple[list[dict[str, Any]], Any]:
    """The made tool's listing and its answer (its text content parsed, or its one error line)."""
    from oracle_tools.interfaces.mcp_server import OracleMCPServer, Tools, made_tool

    server = OracleMCPServer("made")
    server.add_tool(made_tool(row, Tools(db)), name=row.tool, description=row.summary)
    listed = [t.model_dump(mode="json") for t in asyncio.run(server.list_tools())]
    try:
        result = asyncio.run(server.call_tool(str(row.tool), arguments))
    except Exception as exc:
        return listed, str(exc)
    return listed, json.loads(result.content[0].text)


@pytest.mark.parametrize(
    ("row", "path", "cli", "arguments", "library"),
    [
        (MADE[0], "/made/resolve/fire%2Fice", ["fire/ice"], {"text": "fire/ice"}, {"text": "fire/ice"}),
        (
            MADE[0],
            "/made/resolve/Tarmogoyff?fuzzy=true",
            ["Tarmogoyff", "--fuzzy"],
            {"text": "Tarmogoyff", "fuzzy": True},
            {"text": "Tarmogoyff", "fuzzy": True},
        ),
        (MADE[1], "/made/nameable", [], {}, {"constraint": None, "limit": 3}),
        (
            MADE[1],
            "/made/nameable?constraint=nonland&limit=5",
            ["--constraint", "nonland", "--limit", "5"],
            {"constraint": "nonland", "limit": 5},
            {"constraint": "nonland", "limit": 5},
        ),
    ],
)
def test_a_made_answer_is_the_same_json_at_its_three_doors(
    row: Answer,
    path: str,
    cli: list[str],
    arguments: dict[str, Any],
    library: dict[str, Any],
    made_client: TestClient,
    sample_db: OracleDB,
    sample_db_path: Path,
) -> None:
    expected = json.loads(json.dumps(row.ask(sample_db, library), default=str))
    http = made_client.get(path)
    assert http.status_code == 200 and http.json() == expected
    done = CliRunner().invoke(answer_command(row), [*cli, "--db", str(sample_db_path), "--json"])
    assert done.exit_code == 0 and json.loads(done.stdout) == expected, done.output
    _, answered = _tool(row, sample_db, arguments)
    assert answered == expected


def test_a_made_answers_bad_arguments_are_one_line_at_each_door(
    made_client: TestClient, sample_db: OracleDB, sample_db_path: Path
) -> None:
    row = MADE[1]
    http = made_client.get("/made/nameable?limit=51")
    assert http.status_code == 400 and http.json()["details"] == "limit='51' is not a whole number from 1 to 50."
    assert made_client.get("/made/nameable?colour=red").status_code == 400  # an unknown parameter
    done = CliRunner().invoke(answer_command(row), ["--limit", "51", "--db", str(sample_db_path)])
    assert done.exit_code == 2 and "51 is not in the range 1<=x<=50" in done.output
    listed, said = _tool(row, sample_db, {"limit": 51})
    assert "limit" in said and "\n" not in said.strip()
    schema = listed[0]["input_schema"]["properties"]
    assert schema["limit"]["maximum"] == 50 and schema["limit"]["default"] == 3 and listed[0]["description"]
    assert (
        CliRunner().invoke(answer_command(MADE[0]), ["", "--db", str(sample_db_path)]).exit_code == 2
    )  # an empty name is bad input, as every command says it


def test_a_made_command_prints_a_line_per_field_without_json(sample_db_path: Path) -> None:
    done = CliRunner().invoke(answer_command(MADE[0]), ["fire/ice", "--db", str(sample_db_path)])
    assert done.exit_code == 0 and "name: Fire // Ice" in done.stdout.splitlines()
