"""Docs as a contract (what is undocumented is unusable): every CLI command and option is documented in README.md or docs/*.md, and
docs/views.md lists exactly the views a freshly built database has. Both walk the live objects (the click group,
the database), so a command, option or view added without its documentation fails here."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import click
import pytest

from oracle_tools import OracleDB
from oracle_tools.interfaces.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _docs() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])


def _commands(group: click.Group = main, prefix: tuple[str, ...] = ()) -> list[tuple[str, click.Command]]:
    """Every command and subcommand as ("deck check", command), groups included."""
    out: list[tuple[str, click.Command]] = []
    for name, command in sorted(group.commands.items()):
        path = (*prefix, name)
        out.append((" ".join(path), command))
        if isinstance(command, click.Group):
            out += _commands(command, path)
    return out


def _long_options(command: click.Command) -> list[str]:
    return sorted(
        {
            opt
            for p in command.params
            if isinstance(p, click.Option)
            for opt in (*p.opts, *p.secondary_opts)
            if opt.startswith("--") and opt != "--help"
        }
    )


COMMANDS = _commands()


def test_the_walk_sees_the_commands() -> None:
    names = [path for path, _ in COMMANDS]
    assert {"ingest", "resolve", "sql", "deck", "deck check", "token", "choose-name"} <= set(names)


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[p for p, _ in COMMANDS])
def test_every_command_is_documented(path: str, command: click.Command) -> None:
    docs = _docs()
    assert f"oracle-tools {path}" in docs or f"`{path}`" in docs or f"`{path} " in docs, (
        f"`oracle-tools {path}` appears in neither README.md nor docs/*.md: document it (an example or a reference)"
    )
    missing = [opt for opt in _long_options(command) if not re.search(re.escape(opt) + r"(?![\w-])", docs)]
    assert not missing, f"options of `oracle-tools {path}` documented nowhere: {', '.join(missing)}"


def test_the_group_options_are_documented() -> None:
    docs = _docs()
    assert [opt for opt in _long_options(main) if not re.search(re.escape(opt) + r"(?![\w-])", docs)] == []


def _documented_views() -> set[str]:
    """The views of the table at the top of docs/views.md (rows marked "(table)" are tables, not views)."""
    text = (ROOT / "docs" / "views.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| \[`(\w+)`\]\(#\w+\)( \(table\))? \|", text, flags=re.M)
    return {name for name, is_table in rows if not is_table}


def test_docs_views_are_exactly_the_database_views(sample_db_path: Path, tmp_path: Path) -> None:
    # a copy of the sample database (its ingest made the views), not the file other tests share
    shutil.copy(sample_db_path, tmp_path / "fresh.duckdb")
    db = OracleDB(tmp_path / "fresh.duckdb")
    with db:
        views = set(db.views())
    documented = _documented_views()
    assert documented == views, (
        f"in docs/views.md but not in the database: {sorted(documented - views)}; "
        f"in the database but not in docs/views.md: {sorted(views - documented)}"
    )
    text = (ROOT / "docs" / "views.md").read_text(encoding="utf-8")
    for view in views:  # and each has its section
        assert f"## `{view}`" in text, f"docs/views.md has no section for {view}"


def test_views_come_from_views_sql_only() -> None:
    """One source: the views are the blocks of sql/views.sql (views.VIEW_NAMES, a hand-kept copy, is gone)."""
    from oracle_tools.store import views

    assert not hasattr(views, "VIEW_NAMES")
    assert {b.name for b in views.blocks()} >= _documented_views()


def test_every_environment_variable_is_documented() -> None:
    """Every ORACLE_TOOLS_* variable the package reads is in the docs (ORACLE_TOOLS_SAMPLE was read, never named)."""
    used = {
        m
        for path in (ROOT / "oracle_tools").rglob("*.py")
        for m in re.findall(r"ORACLE_TOOLS_[A-Z_]+", path.read_text())
    }
    assert {"ORACLE_TOOLS_DB", "ORACLE_TOOLS_DEBUG", "ORACLE_TOOLS_BACKOFF"} <= used
    docs = _docs()
    assert sorted(v for v in used if f"`{v}`" not in docs) == []


# -- the `oracle-tools sql` examples in the docs print what the command prints on the sample -------------------


def _readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but hyphens dropped, spaces as hyphens."""
    kept = "".join(c for c in heading.strip().lower() if c.isalnum() or c in " -_")
    return "#" + kept.replace(" ", "-")


def test_the_readme_has_a_table_of_contents_of_its_sections() -> None:
    """A newcomer finds a section of the long README from its top: every ## and ### heading is linked, in order."""
    readme = _readme()
    headings = re.findall(r"^#{2,3} (.+)$", readme.split("\n## Contents\n", 1)[-1], flags=re.M)
    assert "\n## Contents\n" in readme and len(headings) > 10
    contents = readme.split("\n## Contents\n", 1)[1].split("\n## ", 1)[0]
    links = re.findall(r"\[([^\]]+)\]\((#[^)]+)\)", contents)
    assert [text for text, _ in links] == headings
    assert all(anchor == _anchor(text) for text, anchor in links), links


def test_the_readme_test_command_says_what_it_needs_and_how_long_it_takes() -> None:
    """The second command needs the first one's virtualenv, takes minutes, and its browser tests need Chromium."""
    intro = _readme().split("\n## ", 1)[0]
    second = next(b for b in re.findall(r"```bash\n(.*?)```", intro, flags=re.S) if "-e '.[dev]'" in b)
    assert second.startswith(". .venv/bin/activate"), second
    assert re.search(r"about \d+ CPU-minutes", intro)
    assert "Chromium" in intro and "chromedriver" in intro


def test_shell_completion_is_documented_and_works() -> None:
    """The documented line prints click's completion script for bash (zsh and fish the same way)."""
    import os
    import subprocess
    import sys

    docs = _docs()
    for shell in ("bash", "zsh", "fish"):
        assert f"_ORACLE_TOOLS_COMPLETE={shell}_source oracle-tools" in docs, shell
    env = {**os.environ, "_ORACLE_TOOLS_COMPLETE": "bash_source"}
    done = subprocess.run(
        [sys.executable, "-c", "from oracle_tools.interfaces.cli import main; main(prog_name='oracle-tools')"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "_oracle_tools_completion" in done.stdout, done.stderr


def test_a_card_list_not_in_scryfalls_shape_is_pointed_at_its_converter() -> None:
    """The trimmed commander-legal list of 2025 is no Scryfall card objects (ingest refuses it: no "object"
    field); the docs name the converter that turns it into Scryfall's shape."""
    docs = _docs()
    assert "scryfall-commander-legal-trimmed-20250925.json.gz" in docs
    assert "scripts/make_sample.py" in docs and "trimmed_to_card" in docs
    # the command the docs give is the one the refusal gives (test_ingest.py) and the script runs
    assert "python scripts/make_sample.py --trimmed-to-cards TRIMMED.json.gz cards-trimmed.json.gz" in docs
    assert (ROOT / "scripts" / "make_sample.py").read_text(encoding="utf-8").count("def trimmed_to_card(") == 1


# -- the HTTP routes and the MCP tools: each one the server answers is documented -------------------------------

_HTTP_DOCS = ("serve.md", "web.md")  # the API (docs/serve.md) and the pages it links to (docs/web.md)


def _documented_paths() -> set[str]:
    """Every path written in backquotes in the HTTP docs, with an optional tail (`/cards/{set}/{number}[/{lang}]`)
    counted both without and with it, and each parameter written as `{}`."""
    text = "\n".join((ROOT / "docs" / name).read_text(encoding="utf-8") for name in _HTTP_DOCS)
    paths: set[str] = set()
    for quoted in re.findall(r"`(?:GET |POST )?(/(?:\{[^}]*\}|[^`\s?{])*)", text):
        quoted = re.sub(r"\{[^}]*\}", "{}", quoted)
        if "[" in quoted:  # an optional tail: the path without it and with it
            head, tail = quoted.split("[", 1)
            paths |= {head, head + tail.split("]", 1)[0]}
        else:
            paths.add(quoted)
    return paths


@pytest.fixture(scope="module")
def app_routes(sample_db_path: Path) -> list[tuple[str, frozenset[str]]]:
    from starlette.routing import Route

    from oracle_tools.interfaces.serve.app import create_app

    # no background warm-up: it would still be running DuckDB when the process ends (daemon threads stopped in
    # DuckDB's C++ abort the interpreter: "FATAL: exception not rethrown")
    app = create_app(sample_db_path, warm=False)
    app.state.store.close()
    return [(r.path, frozenset(r.methods or ())) for r in app.routes if isinstance(r, Route)]


def test_every_http_route_is_documented(app_routes: list[tuple[str, frozenset[str]]]) -> None:
    paths = {path for path, _ in app_routes}
    assert {"/cards/named", "/cards/search", "/decks/check", "/", "/card/{oracle_id}"} <= paths
    documented = _documented_paths()
    missing = sorted(path for path in paths if re.sub(r"\{[^}]*\}", "{}", path) not in documented)
    assert not missing, f"routes the server answers that neither docs/serve.md nor docs/web.md names: {missing}"


def test_every_posted_route_is_documented_as_post(app_routes: list[tuple[str, frozenset[str]]]) -> None:
    text = (ROOT / "docs" / "serve.md").read_text(encoding="utf-8")
    posted = {re.sub(r"\{[^}]*\}", "{}", p) for p in re.findall(r"`POST (/[^`\s?\[]*)", text)}
    pages = {"/", "/deck"}  # the pages' forms (docs/web.md): the same page, posted
    missing = sorted(
        path for path, methods in app_routes if "POST" in methods and path not in pages and path not in posted
    )
    assert not missing, f"routes that take POST without `POST …` in docs/serve.md: {missing}"


def test_every_mcp_tool_and_argument_is_documented(sample_db: OracleDB) -> None:
    """Each tool has a row in the README's table of tools naming its arguments, or its row of the table of answers
    names a docs section that names the tool and its arguments (an answer whose doors are made from its row)."""
    import asyncio

    from oracle_tools.interfaces.answers import ANSWERS
    from oracle_tools.interfaces.mcp_server import build_server

    tools = asyncio.run(build_server(sample_db).list_tools())
    assert {"resolve", "search", "check_deck"} <= {t.name for t in tools}
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `(\w+)` \|.*$", _readme(), flags=re.M)}
    for answer in ANSWERS:
        if answer.tool is not None and answer.tool not in rows:
            file, _, anchor = answer.docs.partition("#")
            text = (ROOT / file).read_text(encoding="utf-8")
            heading = next(
                (
                    m
                    for m in re.finditer(r"^#+ .*$", text, flags=re.M)
                    if _anchor(m.group(0).lstrip("#")) == f"#{anchor}"
                ),
                None,
            )
            assert heading is not None, f"{answer.name}: {file} has no section #{anchor}"
            rows[answer.tool] = re.split(r"^#", text[heading.end() :], maxsplit=1, flags=re.M)[0]
    for tool in tools:
        assert tool.name in rows, f"the MCP tool {tool.name!r} has no row in the README's table of tools"
        assert f"`{tool.name}`" in rows[tool.name]
        missing = [a for a in tool.input_schema.get("properties", {}) if f"`{a}`" not in rows[tool.name]]
        assert not missing, f"arguments of the MCP tool {tool.name!r} its README row does not name: {missing}"


def test_every_run_the_change_history_page_shows_is_made_by_commands_it_shows() -> None:
    """docs/changes.md showed "run 4, compared with run 3" with no ingest before it: a reader could not make that
    history. Every run its `changes` and `deck check --changes` outputs name is generated (a cog block, checked
    by test_doc_examples.py) after as many ingests, shown, into the same database."""
    ingests: dict[str, int] = {}
    inside, database, runs_shown = False, None, 0
    for line in (ROOT / "docs" / "changes.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("<!-- [[[cog"):
            inside = True
        elif line.startswith("<!-- [[[end]]]"):
            inside = False
        elif line.startswith("$ oracle-tools "):
            found = re.search(r"--db (\S+)", line)
            database = found[1] if found else None
            if line.startswith("$ oracle-tools ingest ") and database:
                ingests[database] = ingests.get(database, 0) + 1
        for run in re.findall(r"\(run (\d+)(?:, compared with run \d+)?\)", line):
            if "changes at the ingest of" in line or "since the ingest of" in line:
                runs_shown += 1
                assert inside, f"not generated: {line}"
                assert database and int(run) <= ingests.get(database, 0), f"no ingests shown make: {line}"
    assert runs_shown >= 4


def test_an_example_that_needs_setup_says_so_before_its_output() -> None:
    """The README's `changes --limit 2` showed its output first and the two ingests it needs only after it: every
    generated example with setup commands has them named in the prose just before the example."""
    for path in (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))):
        text = path.read_text(encoding="utf-8")
        for block in re.finditer(r"<!-- \[\[\[cog\s*\nshell\(setup=\[(?P<setup>[^\]]*)\]", text):
            before = text[: block.start()].rsplit("<!-- [[[end]]] -->", 1)[-1].rsplit("\n#", 1)[-1]
            prose = " ".join(before.split())
            for command in re.findall(r'"([^"]+)"', block.group("setup")):
                shown = command.replace("$SAMPLE", "oracle_tools/data/sample")
                assert f"`{shown}`" in prose, (path.name, command, prose[-300:])


def _architecture_rows() -> dict[str, str]:
    """docs/architecture.md's table of packages: the package (``store``, ``interfaces``, ``db.py`` …) -> its row."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    return {m[1].rstrip("/"): m[0] for m in re.finditer(r"^\| `([^`]+)` \|.*$", text, flags=re.M)}


def test_the_architecture_names_every_module_in_its_packages_row() -> None:
    """A newcomer finds each module where its layer is described: every module of the package is named, in
    backticks, in the row of the top-level package that holds it (interfaces/serve/ in interfaces' row)."""
    rows = _architecture_rows()
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    package = ROOT / "oracle_tools"
    unnamed = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package).parts
        if path.name == "__init__.py":
            continue
        if len(parts) == 1:  # a top-level module has its own row, or is named in the text (errors.py, `__main__`)
            if path.name not in rows and path.name not in text and f"`{path.stem}`" not in text:
                unnamed.append(path.name)
            continue
        if f"`{path.stem}`" not in rows.get(parts[0], ""):
            unnamed.append("/".join(parts))
    assert rows and not unnamed, f"not named in docs/architecture.md's row of its package: {unnamed}"
    # the package's data that is code too: every SQL file and the search grammar, each named in backticks
    data = [*sorted(package.rglob("*.sql")), *sorted(package.rglob("*.lark"))]
    assert data and not [p.name for p in data if f"`{p.name}`" not in text and f"/{p.name}`" not in text]
