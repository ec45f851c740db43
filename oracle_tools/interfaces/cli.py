"""The ``oracle-tools`` command line: one command per library call on :class:`OracleDB`.

Every command takes ``--db PATH`` (``$ORACLE_TOOLS_DB``, else data/oracle.duckdb) and every
command that returns data takes ``--json``. Errors print one clear line and exit non-zero.

This module holds the ``oracle-tools`` group, ``info`` and ``changes``; the other commands live in a module per
job (``cli_data``: ingest, catalog, sets, symbology, parse-mana, sql, export; ``cli_names``: resolve, same-name,
token, refs, choose-name; ``cli_search``; ``cli_decks``; ``cli_servers``: serve, mcp), and what they share (options,
the one-line errors, the JSON and CSV writers) in ``cli_common``. A row of the table of answers
(``interfaces/answers.py``) with params has its command made here (:func:`answer_command`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from oracle_tools.errors import OracleToolsError, printable
from oracle_tools.interfaces import cli_data, cli_decks, cli_names, cli_search, cli_servers
from oracle_tools.interfaces.answers import ANSWERS, Answer
from oracle_tools.interfaces.cli_common import OracleToolsGroup
from oracle_tools.interfaces.cli_common import check_name as _check_name
from oracle_tools.interfaces.cli_common import db_option as _db_option
from oracle_tools.interfaces.cli_common import echo_json as _echo_json
from oracle_tools.interfaces.cli_common import friendly_errors as _friendly_errors
from oracle_tools.interfaces.cli_common import json_option as _json_option
from oracle_tools.interfaces.cli_common import open_db as _open
from oracle_tools.text.counts import counted


@click.group(cls=OracleToolsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="oracle-tools")
@click.option(
    "--debug",
    is_flag=True,
    envvar="ORACLE_TOOLS_DEBUG",
    show_envvar=True,
    help="Show the Python traceback behind an error line.",
)
@click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Database file for the command (as the command's own --db) [default: $ORACLE_TOOLS_DB, else data/oracle.duckdb].",
)
@click.pass_context
def main(ctx: click.Context, debug: bool, db_path: Path | None) -> None:
    """The Magic: The Gathering Oracle card reference in DuckDB and Polars."""
    ctx.meta["oracle_tools.debug"] = debug


@main.command()
@_db_option
@_json_option
@_friendly_errors
def info(db_path: Path | None, as_json: bool) -> None:
    """What is in the database: sources, snapshot dates, row counts per table and per layout."""
    with _open(db_path) as db:
        data = db.info()
    if as_json:
        _echo_json(data)
        return
    click.echo(f"database  {printable(str(data['db']))} ({data['size_bytes'] / 1e6:.1f} MB)")
    for run in data["runs"]:
        click.echo(
            f"run {run['run_id']}    {run['started_at'][:19]} {run['source']:<12} {run['kind']:<7} "
            f"{run['rows'] if run['rows'] is not None else '':>8} {printable(str(run['file']))}"
        )
    click.echo(f"newest printing  {data['newest_printing']}")
    if data["rules"]:
        click.echo(f"rules     CR effective {data['rules']['effective_date']} ({data['rules']['rules']} rules)")
    click.echo("tables    " + ", ".join(f"{t} {n:,}" for t, n in data["tables"].items()))
    click.echo("layouts   " + ", ".join(f"{k} {v:,}" for k, v in data["layouts"].items()))
    if data["unknown_layouts"]:
        click.echo(
            "unknown   "
            + ", ".join(f"{k} {v:,}" for k, v in data["unknown_layouts"].items())
            + "  (layouts oracle-tools does not know: loaded as cards with the generic face roles)"
        )
    for tmp in data["temp_files"]:
        state = (
            "an ingest is building it"
            if tmp["ingest_running"]
            else "left by an ingest that was stopped; the next ingest removes it"
        )
        click.echo(f"temp file {printable(str(tmp['file']))} ({tmp['size_bytes'] / 1e6:.1f} MB): {state}")


@main.command()
@_db_option
@click.option("--since", default=None, metavar="DATE", help="Every ingest on or after DATE (YYYY-MM-DD).")
@click.option("--run", "run_id", type=int, default=None, metavar="N", help="The ingest run N (see `info`).")
@click.option("--format", "fmt", default=None, metavar="F", help="Only legality changes in format F (modern, ...).")
@click.option("--card", default=None, metavar="NAME", help="Only this card (any name of it, a former name too).")
@click.option(
    "--limit",
    type=click.IntRange(0),
    default=None,
    help="At most this many changes per kind (0: all) [default: 20 in text, all with --json].",
)
@_json_option
@_friendly_errors
def changes(
    db_path: Path | None,
    since: str | None,
    run_id: int | None,
    fmt: str | None,
    card: str | None,
    limit: int | None,
    as_json: bool,
) -> None:
    """What changed in the Oracle reference at the last ingest that changed something (or --run N, or --since
    DATE; later ingests that changed nothing are named): bans and unbans,
    other legality changes, renames, Oracle text errata (word by word), other characteristics, new and
    removed cards, with counts. Each ingest records what differs from the database it replaces."""
    if card is not None:
        _check_name(card)
    from oracle_tools.errors import SinceDateError

    with _open(db_path) as db:
        try:
            data = db.changes_report(since=since, run=run_id, format=fmt, card=card, limit=limit or None)
        except SinceDateError as exc:  # said with this command's option
            raise OracleToolsError(exc.worded("--since")) from None
    if as_json:
        _echo_json(data)
        return
    if not data["runs"]:
        click.echo(
            f"No comparison recorded for {data['selected']}: an ingest records what changed since the database it "
            "replaces (the first ingest of a database has nothing to compare with)."
        )
        return
    several = len(data["runs"]) > 1
    if several:
        runs = f"{data['selected']} (runs {', '.join(str(r['run_id']) for r in data['runs'])})"
    else:
        (one,) = data["runs"]
        runs = f"the ingest of {one['ingested_at']} (run {one['run_id']}, compared with run {one['compared_with']})"
    click.echo(f"{counted(data['total'], 'change')} at {runs}")
    if later := data["unchanged_later_runs"]:  # skipped so that they do not hide the last change
        click.echo(
            f"  {data['selected']}; run{'s' if len(later) > 1 else ''} {', '.join(map(str, later))} after it changed nothing"
        )
    if data["total"]:
        click.echo("  " + " · ".join(f"{g['title'].lower()} {g['count']:,}" for g in data["groups"]))
    shown = 20 if limit is None else limit
    for group in data["groups"]:
        click.echo(f"\n{group['title']} ({group['count']:,})")
        rows = group["changes"] if not shown else group["changes"][:shown]
        for row in rows:
            when = f"  [run {row['run_id']}, {row['ingested_at']}]" if several else ""
            click.echo(f"  {_change_line(row)}{when}")
        if len(rows) < group["count"]:
            click.echo(f"  … {group['count'] - len(rows):,} more (--limit 0 shows all)")


def _change_line(row: dict[str, Any]) -> str:
    """One change as text: a status, a rename, a word diff of text, or a new/removed card."""
    kind, name, field = row["kind"], row["name"], row["field"]
    if kind in ("new", "removed"):
        return name
    if row["diff"] is not None and kind != "rename":
        return f"{name}  {field}: " + row["diff"].replace("\n", "\n      ")
    if kind == "rename":
        return f"{row['old_value']} → {row['new_value']}"
    old = row["old_value"] if row["old_value"] not in (None, "") else "(none)"
    new = row["new_value"] if row["new_value"] not in (None, "") else "(none)"
    return f"{name}  {field}: {old} → {new}"


for _command in (
    cli_data.ingest,
    cli_data.catalog,
    cli_data.sets,
    cli_data.symbology,
    cli_data.parse_mana,
    cli_data.sql,
    cli_data.export_command,
    cli_names.resolve,
    cli_names.same_name,
    cli_names.token,
    cli_names.refs,
    cli_names.choose_name,
    cli_decks.deck,
    cli_search.search_command,
    cli_servers.serve_command,
    cli_servers.mcp_command,
):
    main.add_command(_command)


def answer_command(row: Answer) -> click.Command:
    """The command of a row of the table of answers whose doors are made from its params: a required ``name``
    param is its argument, any other an option (``--the-name``); it prints ``OracleDB.<method>``'s answer as the
    JSON the HTTP route and the MCP tool give (``--json``), or as text: a line per field (or per item of a list),
    a value that is no string or number as JSON."""

    def run(db_path: Path | None, as_json: bool, **arguments: Any) -> None:
        for param in row.params or ():
            if param.kind == "name" and arguments.get(param.name) is not None:
                _check_name(arguments[param.name])
            if param.kind == "text" and not (arguments.get(param.name) or "").strip():
                arguments[param.name] = param.default  # a blank text is left out, as at the HTTP door
        with _open(db_path) as db:
            data = row.ask(db, arguments)
        if as_json:
            _echo_json(data)
            return
        for key, value in (
            data.items() if isinstance(data, dict) else enumerate(data if isinstance(data, list) else [data])
        ):
            shown = (
                value if isinstance(value, (str, int, float)) else json.dumps(value, ensure_ascii=False, default=str)
            )
            click.echo(f"{key}: {shown}" if isinstance(data, dict) else shown)

    command = _friendly_errors(run)
    for param in reversed(row.params or ()):
        if param.kind == "name" and param.required:
            command = click.argument(param.name)(command)
            continue
        option = "--" + param.name.replace("_", "-")
        if param.kind == "flag":
            command = click.option(option, param.name, is_flag=True, help=param.help)(command)
        else:
            kind = click.IntRange(1, param.most) if param.kind == "count" else str
            command = click.option(
                option,
                param.name,
                type=kind,
                default=param.default,
                required=param.required,
                show_default=param.default is not None,
                help=param.help,
            )(command)
    command = _json_option(_db_option(command))
    return click.command(row.command, help=row.summary)(command)


for _row in ANSWERS:
    if _row.made and _row.command:
        main.add_command(answer_command(_row))


if __name__ == "__main__":  # pragma: no cover
    main()
