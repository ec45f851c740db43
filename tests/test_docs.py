"""Docs as a contract (issue 10.7): every CLI command and option is documented in README.md or docs/*.md, and
docs/views.md lists exactly the views a freshly built database has. Both walk the live objects (the click group,
the database), so a command, option or view added without its documentation fails here."""

from __future__ import annotations

import re
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


def test_docs_views_are_exactly_the_database_views(tmp_path: Path) -> None:
    db = OracleDB.ingest_sample(tmp_path / "fresh.duckdb")  # fresh: not a fixture other tests share
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
