"""The ``oracle-tools`` command line: one command per library call on :class:`OracleDB`.

Every command takes ``--db PATH`` (``$ORACLE_TOOLS_DB``, else data/oracle.duckdb) and every
command that returns data takes ``--json``. Errors print one clear line and exit non-zero.
"""

from __future__ import annotations

import csv
import errno
import functools
import io
import json
import math
import os
import sys
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from oracle_tools.db import OracleDB, default_db_path
from oracle_tools.errors import OracleToolsError
from oracle_tools.store import userfiles
from oracle_tools.store.sqlfiles import SANDBOX_MEMORY_LIMIT, SERVED_QUERY_TIMEOUT

#: `resolve --batch`: far above any real list of names (a million names is ~20 MB); bounds /dev/zero.
MAX_BATCH_CHARS = 256 * userfiles.MiB


def _db_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--db",
        "db_path",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        envvar="ORACLE_TOOLS_DB",
        show_envvar=True,
        callback=_given_db,
        help="Database file [default: data/oracle.duckdb]; also accepted before the command name.",
    )(func)


def _given_db(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """The database a command uses: its own ``--db``, else the one given before the command name
    (``oracle-tools --db X resolve NAME``), else ``$ORACLE_TOOLS_DB``, else None (the default)."""
    from click.core import ParameterSource

    if value is not None and str(value).strip() in ("", "."):  # `--db ""` (click makes it ".")
        raise click.BadParameter(
            "is empty (or the current folder); give a database file such as data/oracle.duckdb", ctx, param
        )
    if not (param.name and ctx.get_parameter_source(param.name) is ParameterSource.COMMANDLINE):
        value = ctx.find_root().params.get("db_path") or value
    userfiles.check_database_path(value or default_db_path())  # a FIFO would hang the command: refused here
    return value


def _json_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(func)


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def _debug() -> bool:
    """``--debug`` or ``ORACLE_TOOLS_DEBUG=1``: show the traceback behind an error line."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.find_root().meta.get("oracle_tools.debug"):
        return True
    return os.environ.get("ORACLE_TOOLS_DEBUG", "").strip().lower() in ("1", "true", "yes", "on")


def _friendly_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn library errors into one line on stderr and exit status 2 (bad input or missing data; 1 for a name
    that names no card, :class:`NameNotFoundError`).

    Every other exception is turned into one line by the group (:class:`_OracleToolsGroup`)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except OracleToolsError as exc:
            if _debug():
                raise  # the group prints the traceback, then the same line and exit status
            line, status = _error_line(exc, "")
            click.echo(_shorten(line), err=True)
            sys.exit(status)

    return wrapper


def _shorten(line: str, limit: int = 2000) -> str:
    """An error line that quotes a 100 kB argument stays readable: its middle is left out."""
    if len(line) <= limit:
        return line
    keep = limit // 2
    return f"{line[:keep]} … ({len(line) - 2 * keep:,} characters left out) … {line[-keep:]}"


def _one_line(text: object, limit: int = 300) -> str:
    """The first line of an exception's text, shortened: an error is one line, whatever the input was."""
    lines = str(text).strip().splitlines()
    first = lines[0] if lines else ""
    return first if len(first) <= limit else first[:limit] + "…"


def _error_line(exc: BaseException, command: str) -> tuple[str, int]:
    """The one line (what failed, what to do) and the exit status for an exception a command raised."""
    again = "rerun with --debug (or ORACLE_TOOLS_DEBUG=1) for the traceback"
    if isinstance(exc, OracleToolsError):
        return f"error: {exc}", getattr(exc, "exit_status", 2)
    if isinstance(exc, KeyboardInterrupt):  # Ctrl-C, or SIGTERM where a command stops on it (store.stopping)
        kept = "; nothing was replaced: the database is as it was" if command == "ingest" else ""
        status = getattr(exc, "exit_status", 130)
        how = "interrupted" if status == 130 else f"stopped by {exc}"
        return f"error: {command}: {how}{kept}", status
    if isinstance(exc, MemoryError):
        return f"error: {command}: ran out of memory; close other programs or use a smaller input", 1
    if isinstance(exc, ValueError) and "null byte" in str(exc):  # a path or name with NUL in it
        return f"error: {command}: an argument contains a NUL character, which no file name or card name has", 2
    if isinstance(exc, UnicodeError):
        reason = getattr(exc, "reason", None) or _one_line(exc)
        return f"error: {command}: a file or argument is not valid UTF-8 text ({reason}); give UTF-8 text", 1
    if "No space left on device" in str(exc) or (isinstance(exc, OSError) and exc.errno == errno.ENOSPC):
        kept = " Nothing was replaced: the database is as it was." if command == "ingest" else ""
        return f"error: {command}: the disk is full ({_one_line(exc)}); free some space or write elsewhere.{kept}", 1
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        return f"error: {command}: {exc.strerror or _one_line(exc)}{where}; check the path and its permissions", 1
    if type(exc).__module__.split(".")[0] in ("duckdb", "_duckdb"):
        return (
            f"error: {command}: the database failed ({type(exc).__name__}: {_one_line(exc)}); check that --db "
            f"is an oracle-tools database and not being written, or rebuild it with `oracle-tools ingest`; "
            f"{again}"
        ), 1
    return (
        f"error: {command} failed unexpectedly ({type(exc).__name__}: {_one_line(exc)}); this is a bug in "
        f"oracle-tools: {again} and report it"
    ), 1


class _OracleToolsGroup(click.Group):
    """The ``oracle-tools`` group: any exception of any command (also commands added later) becomes one
    ``error:`` line and a non-zero exit; the traceback shows only under ``--debug`` / ``ORACLE_TOOLS_DEBUG=1``.

    Exit status: 2 for bad usage (click) and OracleToolsError (bad input, missing data), 130 for Ctrl-C,
    1 for anything else. Click's own exceptions (usage errors, --help, exit codes) pass through unchanged.
    """

    group_class = type  # `@main.group()` groups (deck) are one too: errors name the whole command, "deck check"

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        """Click's own errors (an unknown option, a missing argument) in the one error style: the usage line,
        then ``error: …`` in lower case like every other error, with click's exit status (2)."""
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        arguments = args[0] if args and args[0] is not None else kwargs.get("args") or sys.argv[1:]
        for number, argument in enumerate(arguments, 1):
            try:
                argument.encode("utf-8")
            except UnicodeEncodeError as exc:  # bytes that are no UTF-8 (Python keeps them as surrogates)
                shown = argument.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                byte = ord(argument[exc.start]) - 0xDC00  # surrogateescape keeps byte b as U+DC00 + b
                click.echo(
                    f"error: argument {number} ({shown}) is not valid UTF-8 text (byte 0x{byte:02x} at "
                    f"position {exc.start}); give UTF-8 text, or check the encoding of the terminal or script "
                    "that passed it",
                    err=True,
                )
                sys.exit(2)
        try:
            super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        except click.exceptions.Exit as done:
            sys.exit(done.exit_code)
        except click.ClickException as exc:
            if isinstance(exc, click.UsageError) and exc.ctx is not None:
                hint = f"Try '{exc.ctx.command_path} {exc.ctx.help_option_names[0]}' for help."
                click.echo(f"{exc.ctx.get_usage()}\n{hint}\n", err=True)
            click.echo(f"error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            click.echo("error: aborted", err=True)
            sys.exit(1)
        sys.exit(0)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except BrokenPipeError:
            raise  # click closes quietly when the reader of the output went away (| head)
        except BaseException as exc:
            if isinstance(exc, GeneratorExit):
                raise
            if isinstance(exc, KeyboardInterrupt):  # stopping: a second Ctrl-C must not print a traceback at exit
                import signal

                signal.signal(signal.SIGINT, signal.SIG_IGN)
            # The subcommand path without the program's name, which is "python -m oracle_tools.interfaces.cli" under -m.
            names, parent = [ctx.invoked_subcommand or ""], ctx
            while parent.parent is not None:
                names.insert(0, parent.info_name or "")
                parent = parent.parent
            command = " ".join(n for n in names if n)
            line, status = _error_line(exc, command or "oracle-tools")
            if _debug():
                import traceback

                traceback.print_exception(exc)
            click.echo(_shorten(line), err=True)
            sys.exit(status)


def _seconds_option(name: str, default: float, maximum: float, help: str) -> Callable[[Any], Any]:
    """A time limit in seconds, above 0 and at most ``maximum`` (click's FloatRange lets NaN through: every
    comparison with it is false, so it is refused here)."""

    def finite(ctx: click.Context, param: click.Parameter, value: float) -> float:
        if value != value:  # NaN
            raise click.BadParameter("is not a number of seconds", ctx, param)
        return value

    return click.option(
        name,
        type=click.FloatRange(min=0, max=maximum, min_open=True),
        callback=finite,
        default=default,
        show_default=True,
        metavar="SECONDS",
        help=help,
    )


def _memory_size(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A size as DuckDB reads it (500MB, 4GB, 1.5GiB)."""
    import re

    if not re.fullmatch(r"\s*\d+(\.\d+)?\s*([KMGT]i?B|B)\s*", value, re.IGNORECASE) or not float(
        re.match(r"\s*([\d.]+)", value).group(1)  # type: ignore[union-attr]
    ):
        raise click.BadParameter(f"{value!r} is not a size; give one such as 500MB or 4GB", ctx, param)
    return value.strip()


def _check_name(name: str) -> None:
    """A name argument that can be no card name is bad input (exit 2), as ``token ""`` is, not a miss."""
    from oracle_tools.names.resolver import MAX_NAME_CHARS

    if not name.strip():
        raise OracleToolsError("empty card name; give a name such as 'Lightning Bolt' or 'Fire // Ice'")
    if len(name) > MAX_NAME_CHARS:
        raise OracleToolsError(
            f"a name of {len(name):,} characters is no card name (at most {MAX_NAME_CHARS:,} are taken); "
            "check the argument"
        )


def _open(db_path: Path | None) -> OracleDB:
    return OracleDB(db_path or default_db_path())


@click.group(cls=_OracleToolsGroup, context_settings={"help_option_names": ["-h", "--help"]})
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


# -- ingest and inspection ---------------------------------------------------------------------


@main.command()
@_db_option
@click.option(
    "--sample", is_flag=True, help="Build from the real sample inside the package (oracle_tools/data/sample/), offline."
)
@click.option(
    "--bulk-file",
    "bulk_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A local Scryfall bulk file (.json/.json.gz, array or one object per line). Repeatable.",
)
@click.option(
    "--types",
    default="oracle_cards,default_cards,rulings",
    show_default=True,
    help="Bulk types to download from the Scryfall API (when no --bulk-file/--sample is given).",
)
@click.option("--api-url", default=None, help="Scryfall API base URL [default: https://api.scryfall.com].")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Download cache [default: <db folder>/cache].",
)
@click.option(
    "--rules-file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="A Comprehensive Rules .txt to use instead of the shipped one.",
)
@click.option(
    "--rules-url",
    default=None,
    help="Download the Comprehensive Rules .txt from this address (linked from magic.wizards.com/en/rules).",
)
@click.option(
    "--interchangeable-file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="Optional override CSV of interchangeable names (CR 201.3) for pairs the card data lacks; "
    "classes are derived from the data [default: the packaged data/interchangeable_names.csv].",
)
@click.option(
    "--wait", is_flag=True, help="When another ingest is writing the database, wait for it instead of failing at once."
)
@click.option(
    "--replace-anyway",
    is_flag=True,
    help="Replace the database even when the new one holds fewer than half its cards, or when the old one is "
    "damaged and cannot be read (both refused by default).",
)
@click.option("--progress/--no-progress", default=True, help="Show progress bars.")
@_json_option
@_friendly_errors
def ingest(
    db_path: Path | None,
    sample: bool,
    bulk_files: tuple[Path, ...],
    types: str,
    api_url: str | None,
    cache_dir: Path | None,
    rules_file: Path | None,
    rules_url: str | None,
    interchangeable_file: Path | None,
    wait: bool,
    replace_anyway: bool,
    progress: bool,
    as_json: bool,
) -> None:
    """Build the database from Scryfall (API, local bulk files, or the embedded sample).

    The new database replaces the old one only when everything succeeded, and not when it would hold fewer
    than half the old one's cards (--replace-anyway). One ingest at a time writes a database (--wait).
    Giving only a rulings file or --rules-file keeps the cards of the existing database.
    """
    from oracle_tools import ingest as ing
    from oracle_tools.store import download

    db_file = db_path or default_db_path()
    cache = cache_dir or Path(os.environ.get("ORACLE_TOOLS_CACHE") or db_file.parent / "cache")
    progress = progress and sys.stderr.isatty()  # bars go to stderr, and only to a person watching it
    set_list_warning = None
    if rules_url is not None:
        if rules_file is not None:
            raise click.UsageError("give --rules-file or --rules-url, not both")
        rules_file = download.fetch_text(rules_url, cache / "rules" / "MagicCompRules-downloaded.txt")
    if sample:
        sources = ing.sample_sources()
    elif bulk_files:
        sources = [ing.sniff(p) for p in bulk_files]
    elif rules_file is not None:
        if not db_file.exists():  # a rules-only ingest keeps the cards of a database: without one, say so
            raise OracleToolsError(
                f"no database at {db_file} to keep the cards of; ingest cards first (`oracle-tools ingest "
                "--sample`, `--bulk-file FILE` or from Scryfall), then --rules-file"
            )
        sources = []
    else:
        wanted = [t.strip() for t in types.split(",") if t.strip()]
        fetched = download.fetch_bulk_files(
            wanted, api_url=api_url or download.DEFAULT_API_URL, cache_dir=cache, progress=progress
        )
        sources = [ing.sniff(f.path, origin="scryfall-api", bulk_type=f.type, updated_at=f.updated_at) for f in fetched]
        set_list, set_list_warning = _fetch_set_list(api_url or download.DEFAULT_API_URL, cache)
        if set_list is not None:
            sources.append(ing.sniff(set_list, origin="scryfall-api"))
    report = ing.Ingest(
        db_file,
        progress=progress,
        interchangeable_file=interchangeable_file,
        wait=wait,
        replace_anyway=replace_anyway,
    ).run(sources, rules_file=rules_file)
    if set_list_warning:
        report.warnings.append(set_list_warning)
    if as_json:
        _echo_json(report.as_dict())
        return
    for f in report.files:
        click.echo(f"read {f['rows']:>9,} {f['kind']:<8} from {f['file']} ({f['seconds']:.2f}s)")
    sizes = ", ".join(f"{t} {n:,}" for t, n in report.tables.items() if t in ("cards", "faces", "printings", "names"))
    click.echo(f"wrote {report.db_path} in {report.seconds:.1f}s: {sizes}")
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)


def _fetch_set_list(api_url: str, cache: Path) -> tuple[Path | None, str | None]:
    """Scryfall's set list for an online ingest, and a warning when it could not be had: the cards matter more
    than the set list, so a failed download uses the copy from an earlier run, or goes without."""
    from oracle_tools.errors import DownloadError
    from oracle_tools.store import download

    try:
        return download.fetch_set_list(api_url, cache_dir=cache), None
    except DownloadError as exc:
        cached = cache / "sets.json"
        if cached.is_file():
            return cached, f"could not download Scryfall's set list ({exc}); kept the one downloaded before"
        return None, (
            f"could not download Scryfall's set list ({exc}); /sets answers sets built from the printings "
            "(without icons, blocks or TCGplayer groups)"
        )


@main.command()
@_db_option
@click.argument("name")
@_json_option
@_friendly_errors
def catalog(db_path: Path | None, name: str, as_json: bool) -> None:
    """A Scryfall catalog computed from the database, one value a line: card-names, artist-names, word-bank,
    supertypes, card-types, creature-types (and the other *-types), powers, toughnesses, loyalties,
    keyword-abilities, keyword-actions, ability-words, watermarks."""
    with _open(db_path) as db:
        data = db.catalog(name)
    if as_json:
        _echo_json({"object": "catalog", "total_values": len(data), "data": data})
        return
    for value in data:
        click.echo(value)


@main.command()
@_db_option
@click.argument("code_or_id", required=False)
@_json_option
@_friendly_errors
def sets(db_path: Path | None, code_or_id: str | None, as_json: bool) -> None:
    """The sets of the database (Scryfall's set objects where the ingest kept its set list, else built from the
    printings), newest first; or one set by code or Scryfall id."""
    with _open(db_path) as db:
        found = db.sets(code_or_id)
    if as_json:
        _echo_json(found if code_or_id else {"object": "list", "has_more": False, "data": found})
        return
    for item in [found] if code_or_id else found:
        click.echo(
            f"{item['code']:<6} {item.get('released_at', ''):<10} {item.get('set_type', ''):<16} "
            f"{item['card_count']:>5}  {item['name']}"
        )


@main.command()
@_db_option
@_json_option
@_friendly_errors
def symbology(db_path: Path | None, as_json: bool) -> None:
    """Card symbols: the ones the Comprehensive Rules define (CR 107) and the cards use, with what each means."""
    with _open(db_path) as db:
        found = db.symbology()
    if as_json:
        _echo_json({"object": "list", "has_more": False, "data": found})
        return
    for item in found:
        value = item.get("mana_value")
        click.echo(f"{item['symbol']:<9} {'' if value is None else f'{value:g}':>4}  {item['english']}")


@main.command("parse-mana")
@click.argument("cost")
@_json_option
@_friendly_errors
def parse_mana(cost: str, as_json: bool) -> None:
    """A mana cost read as Scryfall reads it (2WW, {2}{W}{W}, 2{g}2): the normalized cost, mana value, colors."""
    from oracle_tools import OracleDB

    parsed = OracleDB.parse_mana(cost)
    if as_json:
        _echo_json(parsed)
        return
    colors = "".join(parsed["colors"]) or "colorless"
    click.echo(f"{parsed['cost']}  mana value {parsed['cmc']:g}  {colors}")


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
    click.echo(f"database  {data['db']} ({data['size_bytes'] / 1e6:.1f} MB)")
    for run in data["runs"]:
        click.echo(
            f"run {run['run_id']}    {run['started_at'][:19]} {run['source']:<12} {run['kind']:<7} "
            f"{run['rows'] if run['rows'] is not None else '':>8} {run['file']}"
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
        click.echo(f"temp file {tmp['file']} ({tmp['size_bytes'] / 1e6:.1f} MB): {state}")


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
    with _open(db_path) as db:
        data = db.changes_report(since=since, run=run_id, format=fmt, card=card, limit=limit or None)
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
    click.echo(f"{data['total']:,} change{'s' if data['total'] != 1 else ''} at {runs}")
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


@main.command()
@_db_option
@click.argument("query")
@click.option("--param", "params", multiple=True, help="A value for the next ? placeholder. Repeatable.")
@_json_option
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV.")
@click.option(
    "--max-width",
    type=click.IntRange(min=20),
    default=None,
    help="Width of the table in characters [default: the terminal's, when printing to one]; a wider table "
    "leaves middle columns out.",
)
@click.option("--all-columns", is_flag=True, help="Show every column, however wide the table.")
@_seconds_option("--timeout", 60.0, 86_400, "Stop the query after this long (Ctrl-C stops it at once).")
@click.option(
    "--memory-limit",
    default=SANDBOX_MEMORY_LIMIT,
    show_default=True,
    callback=_memory_size,
    metavar="SIZE",
    help="The memory the query may use (such as 500MB or 4GB); one that needs more fails.",
)
@_friendly_errors
def sql(
    db_path: Path | None,
    query: str,
    params: tuple[str, ...],
    as_json: bool,
    as_csv: bool,
    max_width: int | None,
    all_columns: bool,
    timeout: float,
    memory_limit: str,
) -> None:
    """Run one read-only query against the database (SELECT/WITH/FROM/DESCRIBE/…; use ? and --param for values).

    The query runs in a sandbox: the database opened read-only, no other files, no network, no extensions,
    settings locked. COPY, EXPORT, ATTACH, SET, INSTALL/LOAD and DDL are refused: `oracle-tools export` writes files.
    """
    import duckdb

    from oracle_tools.store.sqlfiles import QueryStop
    from oracle_tools.store.stopping import StopOnSignals

    stop = QueryStop(timeout, what="the query")
    # Ctrl-C calls DuckDB's interrupt() from a thread at once: a Python handler would wait for DuckDB to look for
    # signals, which a nested-loop join does not do for minutes.
    with StopOnSignals() as signals, _open(db_path) as db:
        signals.add(stop.interrupt)
        db.sql_memory_limit = memory_limit
        try:
            if as_json or as_csv:  # every row, written batch by batch as DuckDB reads them
                columns, batches = db.sql_stream(query, list(params), stop=stop)
                (_stream_json if as_json else _stream_csv)(columns, batches)
                return
            # the table shows 50 rows: only those become Python values
            columns, rows, total = db.sql_rows(query, list(params), limit=50, stop=stop)
        except duckdb.OutOfMemoryException:
            raise OracleToolsError(
                f"the query needs more than --memory-limit {memory_limit} of memory and was stopped; narrow it "
                "(a WHERE, a LIMIT) or give it more (--memory-limit 8GB)"
            ) from None
        except duckdb.PermissionException as exc:  # the sandbox (sqlfiles.sandboxed_connection) said no
            raise OracleToolsError(
                f"SQL failed: {_one_line(exc)}; `sql` reads only the database — load other files with DuckDB itself"
            ) from None
        except duckdb.Error as exc:  # DuckDB's hints and the position kept, in one line
            from oracle_tools.store.sqlfiles import error_line

            raise OracleToolsError(f"SQL failed: {_one_line(error_line(exc))}") from None
    import shutil

    from oracle_tools.interfaces.render import fitted_table

    # In a terminal, the table fits its width (as DuckDB's CLI); piped or redirected, every column is printed.
    terminal = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    width = None if all_columns else (max_width or terminal)
    text, shown = fitted_table(columns, rows, total=total, max_chars=60, max_width=width)
    click.echo(text)
    left_out = (
        f", {len(columns)} columns ({shown} shown: --all-columns or --max-width N show more)"
        if shown < len(columns)
        else ""
    )
    click.echo(f"{total:,} row{'s' if total != 1 else ''}{left_out}", err=True)


def _echo_csv(columns: list[str], rows: Iterable[tuple[Any, ...]]) -> None:
    """CSV with a header; a list value is joined with '|' (one cell per value)."""
    _stream_csv(columns, iter([list(rows)]))


def _stream_csv(columns: list[str], batches: Iterable[list[tuple[Any, ...]]]) -> None:
    """:func:`_echo_csv` written batch by batch (``sql --csv`` of millions of rows)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")  # LF, as every other CSV the tool writes (export, resolve)
    writer.writerow(columns)
    for rows in batches:
        for row in rows:
            writer.writerow(["|".join(map(str, v)) if isinstance(v, list) else v for v in row])
        click.echo(buffer.getvalue(), nl=False)
        buffer.seek(0)
        buffer.truncate()
    click.echo(buffer.getvalue(), nl=False)


def _json_value(value: Any) -> Any:
    """A value JSON can hold: NaN and ±Infinity (no JSON numbers) become null, in lists and structs too."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    return value


def _stream_json(columns: list[str], batches: Iterable[list[tuple[Any, ...]]]) -> None:
    """The rows as a JSON array of objects, as :func:`_echo_json` prints it, written batch by batch."""
    first = True
    for rows in batches:
        parts = []
        for row in rows:
            item = json.dumps(
                {c: _json_value(v) for c, v in zip(columns, row, strict=True)},
                indent=2,
                ensure_ascii=False,
                default=str,
                allow_nan=False,
            )
            parts.append(("[\n" if first else ",\n") + textwrap.indent(item, "  "))
            first = False
        if parts:
            click.echo("".join(parts), nl=False)
    click.echo("[]" if first else "\n]")


# -- names (CR 201) ------------------------------------------------------------------------------


@main.command()
@_db_option
@click.argument("name", required=False)
@click.option("--fuzzy", is_flag=True, help="Accept the closest name for a misspelling (via 'fuzzy').")
@click.option(
    "--batch",
    type=click.File("r", encoding="utf-8"),
    default=None,
    help="Resolve every line of a file ('-' for stdin) in one batch (with --fuzzy: each miss by the fuzzy rule).",
)
@_json_option
@_friendly_errors
def resolve(db_path: Path | None, name: str | None, fuzzy: bool, batch: io.TextIOBase | None, as_json: bool) -> None:
    """Resolve a card name (any spelling, face, language or alternate name) to its Oracle card.

    Exit 0 when it resolves, 1 when it is ambiguous or not found.
    """
    with _open(db_path) as db:
        if batch is not None:
            text = userfiles.read_text(batch, limit=MAX_BATCH_CHARS, what="list of names")
            frame = db.resolve_many([line for line in text.splitlines() if line.strip()], suggest=5, fuzzy=fuzzy)
            if as_json:
                _echo_json(frame.to_dicts())
            else:  # CSV has no lists: a miss's suggestions joined by "; "
                import polars as pl

                flat = frame.with_columns(pl.col("suggestions").list.join("; "))
                click.echo(flat.write_csv(), nl=False)
            sys.exit(0 if frame.get_column("status").eq("ok").all() else 1)
        if name is None:
            raise click.UsageError("give a NAME, or --batch FILE")
        _check_name(name)
        result = db.resolve(name, fuzzy=fuzzy)
    if as_json:
        _echo_json(result.to_dict())
    elif result.ok:
        face = f" (face: {result.face})" if result.face else ""
        same = [n for n in result.names if n != result.english_name]
        click.echo(f"{result.name}{face}  [via {result.via}]" + (f"  same name as: {', '.join(same)}" if same else ""))
        if result.note:
            click.echo(f"note: {result.note}")
    else:
        click.echo(result.miss_message())
    sys.exit(0 if result.ok else 1)


@main.command("same-name")
@_db_option
@click.argument("first")
@click.argument("second")
@_json_option
@_friendly_errors
def same_name(db_path: Path | None, first: str, second: str, as_json: bool) -> None:
    """CR 201.2a: do two cards have the same name? Exit 0 yes, 1 no."""
    _check_name(first)
    _check_name(second)
    with _open(db_path) as db:
        for text in (first, second):  # an unknown name: resolve's answer and exit status (1), not an error
            if not (found := db.resolve(text)).ok:
                click.echo(found.miss_message())
                sys.exit(1)
        answer = db.same_name(first, second)
        names = {first: sorted(db.object_names(first)), second: sorted(db.object_names(second))}
        cards = {db.resolve(text).name for text in (first, second)}
    one_card = len(cards) == 1  # 'Fire' and 'Ice': the halves of one split card, which has both names (709.4a)
    if as_json:
        _echo_json({"same_name": answer, "same_card": one_card, "names": names, "rule": "201.2a"})
    elif one_card:
        click.echo(
            f"same name: {first!r} and {second!r} both name the card {cards.pop()}, whose names are {names[first]}"
        )
    else:
        click.echo(f"{'same name' if answer else 'different names'}: {names[first]} / {names[second]}")
    sys.exit(0 if answer else 1)


# -- tokens (CR 111) -----------------------------------------------------------------------------


@main.command()
@_db_option
@click.argument("name", required=False)
@click.option("--collisions", is_flag=True, help="List names that are both a card (or face) name and a token name.")
@click.option(
    "--list",
    "list_all",
    is_flag=True,
    help="List every token name the database knows (predefined, effect-defined, token objects) with "
    "kind and creators (view token_catalog); with NAME, only that name's rows (every kind of it).",
)
@_json_option
@_friendly_errors
def token(db_path: Path | None, name: str | None, collisions: bool, list_all: bool, as_json: bool) -> None:
    """What "create a NAME token" makes: predefined (CR 111.10), the token effects name and define
    (111.4, 111.9), the Oracle card (111.11), or nothing.

    Exit 0 for a token, 1 when NAME is none of these (with --list: when no token has NAME), 2 for bad usage.
    """
    with _open(db_path) as db:
        if list_all:
            # with NAME: only that name's rows, every kind of it (predefined, effect, object)
            frame = db.token_list(name)
            if as_json:
                _echo_json(frame.to_dicts())
            elif frame.is_empty() and name is None:
                click.echo("the database knows no token names (no predefined, effect-defined or token objects)")
            elif frame.is_empty():
                click.echo(f"{name!r}: no token name in the database; `oracle-tools token {name!r}` says more.")
            else:
                for row in frame.iter_rows(named=True):
                    creators = row["creators"] or []
                    shown = "; ".join(creators[:3]) + (f" (+{len(creators) - 3} more)" if len(creators) > 3 else "")
                    rule = f" {row['rule']}" if row["rule"] else ""
                    click.echo(
                        f"{row['name']}  [{row['kind']}{rule}]  {row['type_line'] or ''}"
                        + (f"  created by: {shown}" if shown else "")
                    )
            if frame.is_empty():
                sys.exit(1)
            return
        if collisions:
            frame = db.token_collisions()
            if as_json:
                _echo_json(frame.to_dicts())
            else:
                for row in frame.iter_rows(named=True):
                    click.echo(f"[{row['token_source']} {row['token_rule']}] {row['what']}")
            return
        if name is None:
            raise click.UsageError("give a NAME, or --list, or --collisions")
        answer = db.token(name)
    if as_json:
        _echo_json(answer.to_dict())
    elif answer.ok:
        pt = f" {answer.power}/{answer.toughness}" if answer.power is not None else ""
        colors = "".join(answer.colors) or "colorless"
        click.echo(f"{answer.name}  [{answer.kind} {answer.rule}]  {answer.type_line}{pt}  ({colors})")
        if answer.oracle_text:
            click.echo(answer.oracle_text)
        for face in answer.faces:
            click.echo(f"  face: {face.get('name')}  {face.get('type_line')}")
        if answer.created_by:
            click.echo(f"created by: {'; '.join(answer.created_by)}")
        for variant in answer.variants:
            vpt = f" {variant['power']}/{variant['toughness']}" if variant["power"] is not None else ""
            click.echo(
                f"  variant [{variant['rule']}]: {variant['type_line']}{vpt} "
                f"({''.join(variant['colors'] or []) or 'colorless'}) "
                f"{(variant['oracle_text'] or '').replace(chr(10), '; ')} — {'; '.join(variant['created_by'])}"
            )
        for note in answer.notes:
            click.echo(f"note: {note}")
    else:
        click.echo(
            f"{name!r}: no token. {answer.reason}."
            + (
                f" Did you mean: {', '.join(answer.suggestions)}?"
                if answer.suggestions
                else " No token name is close to it."
            )
        )
    sys.exit(0 if answer.ok else 1)


# -- name references in Oracle text (CR 201.5, 201.5c) -------------------------------------------


@main.command("refs")
@_db_option
@click.argument("name")
@_json_option
@_friendly_errors
def refs(db_path: Path | None, name: str, as_json: bool) -> None:
    """How NAME's Oracle text refers to itself (CR 201.5 full name, 201.5c shortened name, "named X",
    token names) and every card whose text names it (table name_references)."""
    with _open(db_path) as db:
        answer = db.references(name)
    if as_json:
        _echo_json(answer)
        return
    click.echo(f"{answer['name']}")
    for row in answer["own_text"]:
        target = f" -> {row['target_name']}" if row["target_name"] and row["kind"] not in ("self", "self_short") else ""
        click.echo(
            f"  its text [{row['kind']}] face {row['face_index']} {row['start']}-{row['end']}: {row['text']}{target}"
        )
    for row in answer["named_by"]:
        click.echo(f"  named by {row['card_name']} [{row['kind']}] face {row['face_index']}: {row['text']}")
    if not answer["own_text"] and not answer["named_by"]:
        click.echo("  no name references")


# -- export (Parquet / CSV) ----------------------------------------------------------------------


@main.command("export")
@_db_option
@click.argument("table", required=False)
@click.option("--sql", "query", default=None, help="Export the result of this read-only SQL query instead.")
@click.option("--param", "params", multiple=True, help="A value for the next ? placeholder of --sql. Repeatable.")
@click.option(
    "--parquet",
    "parquet_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write Parquet (Arrow types kept: lists, dates) to this file.",
)
@click.option(
    "--csv",
    "csv_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write CSV (header row; lists joined with '|') to this file.",
)
@_json_option
@_friendly_errors
def export_command(
    db_path: Path | None,
    table: str | None,
    query: str | None,
    params: tuple[str, ...],
    parquet_path: Path | None,
    csv_path: Path | None,
    as_json: bool,
) -> None:
    """Export a table or view (TABLE) or a query (--sql) to --parquet PATH or --csv PATH.

    \b
    oracle-tools export cards --parquet cards.parquet
    oracle-tools export card_analytics --csv analytics.csv
    oracle-tools export --sql "SELECT name, cmc FROM cards WHERE cmc > ?" --param 7 --csv big.csv
    """
    if (parquet_path is None) == (csv_path is None):
        raise click.UsageError("give exactly one of --parquet PATH or --csv PATH")
    if params and query is None:
        raise click.UsageError("--param goes with --sql")
    path, fmt = (parquet_path, "parquet") if parquet_path is not None else (csv_path, "csv")
    assert path is not None  # exactly one of the two was given (checked above)
    if str(path) == "-":
        if fmt != "csv":
            raise click.UsageError("--parquet - is not supported: Parquet is binary; give a file name")
        _export_to_stdout(db_path, table, query, params)
        return
    with _open(db_path) as db:
        result = db.export(table, path, sql=query, params=list(params) or None, format=fmt)
    if as_json:
        _echo_json({"rows": result["rows"], "path": result["path"], "format": result["format"]})
    else:
        click.echo(f"wrote {result['rows']:,} rows to {result['path']} ({result['format']})")


def _export_to_stdout(db_path: Path | None, table: str | None, query: str | None, params: tuple[str, ...]) -> None:
    """``--csv -``: the CSV on standard output (written to a private temporary file first: the export
    writes files only)."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="oracle-tools-export-") as folder, _open(db_path) as db:
        out = Path(folder) / "export.csv"
        db.export(table, out, sql=query, params=list(params) or None, format="csv")
        with out.open("rb") as written:
            sys.stdout.flush()
            shutil.copyfileobj(written, sys.stdout.buffer)


# -- choosing a card name (CR 201.4) -----------------------------------------------------------


@main.command("choose-name")
@_db_option
@click.argument("name", required=False)
@click.option(
    "--constraint",
    "phrase",
    default=None,
    help='The characteristics, as on the card: "nonland", "artifact", "nonartifact, nonland" (default: any card name).',
)
@click.option(
    "--card",
    "card",
    default=None,
    help="Take the constraint from this card's own Oracle text (Meddling Mage -> nonland).",
)
@click.option("--list", "as_list", is_flag=True, help="List every name that may be chosen instead of judging NAME.")
@_json_option
@_friendly_errors
def choose_name(
    db_path: Path | None, name: str | None, phrase: str | None, card: str | None, as_list: bool, as_json: bool
) -> None:
    """CR 201.4: may NAME be chosen for "choose a [constraint] card name"? Exit 0 yes, 1 no, 2 bad usage.

    \b
    oracle-tools choose-name "Fire // Ice" --constraint nonland      (no: 201.4b, choose a half)
    oracle-tools choose-name "Razorgrass Field" --card "Meddling Mage"
    oracle-tools choose-name --constraint "nonartifact, nonland" --list
    """
    from oracle_tools.choose import chooser as _choose

    if phrase is not None and card is not None:
        raise click.UsageError("give --constraint PHRASE or --card CARDNAME, not both")
    if as_list and name is not None:
        raise click.UsageError("--list lists every valid name; give no NAME with it")
    if not as_list and name is None:
        raise click.UsageError("give a NAME to judge, or --list")
    with _open(db_path) as db:
        if card is not None:
            constraint, phrase_used, source = _choose.constraint_from_card(db, card)
        else:
            constraint, phrase_used, source = _choose.as_constraint(phrase), phrase or "", None
        if as_list:
            frame = db.nameable(constraint)
            if as_json:
                _echo_json(frame.drop("oracle_text").to_dicts())
            else:
                for listed in frame.get_column("name").unique(maintain_order=True).to_list():
                    click.echo(listed)
            return
        verdict = db.choose_name(name, constraint)  # type: ignore[arg-type]
    if as_json:
        _echo_json({**verdict.to_dict(), "constraint_phrase": phrase_used, "constraint_from_card": source})
    else:
        click.echo(f"{'valid' if verdict.valid else 'not valid'} ({verdict.rule}): {verdict.reason}")
        if verdict.valid and len(verdict.chosen) > 1:
            click.echo(f"chosen: {', '.join(verdict.chosen)}")
    sys.exit(0 if verdict.valid else 1)


# -- decks (CR 100.2, 100.4, 201.3b, 903) ---------------------------------------------------------


@main.group()
def deck() -> None:
    """Decklists: legality checks against a format's construction rules."""


def _deck_format(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from oracle_tools.decks.checker import format_rules

    try:
        return format_rules(value).key
    except OracleToolsError as exc:
        raise click.BadParameter(str(exc).removeprefix("unknown format ")) from None


def _decklists(path: Path) -> list[Any]:
    """The decks of a decklist file, or of standard input for ``-``."""
    from oracle_tools.decks.checker import to_decklists
    from oracle_tools.decks.decklist import MAX_DECKLIST_BYTES, parse_decklist

    if str(path) == "-":
        text = userfiles.read_text(sys.stdin, limit=MAX_DECKLIST_BYTES, what="decklist")
        return [parse_decklist(text, source="standard input")]
    return to_decklists(path)


@deck.command("check")
@_db_option
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    required=True,
    callback=_deck_format,
    help="Format: standard, pioneer, modern, legacy, vintage, pauper, commander, duel, brawl, "
    "premodern, oldschool, limited, ... (Scryfall legality keys).",
)
@click.option(
    "--commander",
    "commanders",
    multiple=True,
    help="The commander, when the list has no Commander section. Repeatable (partners).",
)
@click.option(
    "--changes",
    "with_changes",
    is_flag=True,
    help="For each problem a legality change caused: since which ingest, and the status before "
    "(from the change history; `legality_changes` in --json).",
)
@click.option(
    "--no-limits",
    is_flag=True,
    help="Check decks of any size (by default at most 2,000 lines and 1,000 different names a deck).",
)
@_json_option
@_friendly_errors
def deck_check(
    db_path: Path | None,
    files: tuple[Path, ...],
    fmt: str,
    commanders: tuple[str, ...],
    with_changes: bool,
    no_limits: bool,
    as_json: bool,
) -> None:
    """Check decklist FILES (any format; a JSON tournament cache checks every deck in it; - reads standard input).

    Exit 0 when every deck is legal, 1 when any is not, 2 when a file cannot be read.
    """
    from oracle_tools.errors import DecklistError

    reports: list[dict[str, Any]] = []

    def cannot_check(path: Path, exc: DecklistError) -> None:
        """A file that cannot be read, or a deck over the size limits: said, and the others are checked."""
        click.echo(f"error: {exc}", err=True)
        reports.append({"source": str(path), "legal": False, "error": str(exc), "problems": []})

    with _open(db_path) as db:
        # which ban lists judge the decks (limited has none), said once before the first deck read
        judged_by = db.legalities_source() if not as_json and fmt != "limited" else None
        for path in files:
            try:
                decks = _decklists(path)
            except DecklistError as exc:
                cannot_check(path, exc)
                continue
            for one in decks:
                try:
                    checked = db.check_deck(one, format=fmt, commanders=commanders or None, limits=not no_limits)
                except DecklistError as exc:
                    cannot_check(path, exc)
                    continue
                reports.append(checked.to_dict())
                if with_changes:
                    reports[-1]["legality_changes"] = db.deck_changes(checked)
    if as_json:
        # one file holding one deck: the report object; several files or decks: a list of reports
        _echo_json(reports[0] if len(files) == 1 and len(reports) == 1 else reports)
    else:
        if judged_by and any("error" not in r for r in reports):
            click.echo(judged_by)
        for r in reports:
            if "error" in r:
                continue
            who = " / ".join(x for x in (r.get("name"), r.get("player")) if x)
            head = f"{r['source']}" + (f" [{who}]" if who else "")
            if r["legal"]:
                click.echo(f"{head}: legal in {fmt}")
            else:
                click.echo(
                    f"{head}: not legal in {fmt} ({len(r['problems'])} problem{'s' if len(r['problems']) != 1 else ''})"
                )
                since = {(c["card"], c["kind"]): c["detail"] for c in r.get("legality_changes", [])}
                for p in r["problems"]:
                    where = f"line {p['line']}" if p["line"] else "deck"
                    click.echo(f"  {where}: [{p['kind']}] {p['detail']}")
                    if (p["card"], p["kind"]) in since:
                        click.echo(f"    {since[p['card'], p['kind']]}")
            for note in r.get("notes", []):
                click.echo(f"  note: {note}")
    if any("error" in r for r in reports):
        sys.exit(2)
    sys.exit(0 if all(r["legal"] for r in reports) else 1)


# -- HTTP server (oracle_tools/interfaces/serve/, docs/serve.md) -----------------------------------------------


@main.command("serve")
@_db_option
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind. Only this machine can connect unless you give another (0.0.0.0: every interface).",
)
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535), help="TCP port.")
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Server processes (each opens the database read-only and keeps its own caches).",
)
@_seconds_option(
    "--query-timeout", SERVED_QUERY_TIMEOUT, 3_600, "Stop a search that runs longer than this (answered 422)."
)
@_friendly_errors
def serve_command(db_path: Path | None, host: str, port: int, workers: int, query_timeout: float) -> None:
    """Serve the Scryfall-compatible HTTP API, the rules endpoints and the web page (read-only).

    \b
    curl 'http://127.0.0.1:8765/cards/named?fuzzy=fire%20ice'
    curl 'http://127.0.0.1:8765/names/resolve?q=Foudre'
    curl --data-binary @deck.txt 'http://127.0.0.1:8765/decks/check?format=modern'

    A re-ingest of the database is picked up on the next request (or on SIGHUP). Stop with Ctrl-C.
    """
    from oracle_tools.interfaces import serve as _serve

    path = db_path or default_db_path()
    OracleDB(path).con.close()  # a missing database is one clear error line, before the server starts
    _serve.check_address(host, port)  # so is a host it cannot resolve or a port in use
    from oracle_tools.interfaces.serve.searches import QUERY_TIMEOUT_ENV

    os.environ[QUERY_TIMEOUT_ENV] = str(query_timeout)  # read per search, in every worker process
    click.echo(f"serving http://{host}:{port}/ from {path} (read-only); Ctrl-C stops", err=True)
    _serve.run(path, host=host, port=port, workers=workers)


# -- search: Scryfall's query language (oracle_tools/search/, docs/search.md) -------------------


class _SearchChoice(click.Choice):
    """One of the search engine's own lists of allowed values (``search.ORDERS``, ``UNIQUE``, ``DIRECTIONS``), read
    when an option is checked or its help shown: importing the engine when the CLI starts would cost every
    command ~100 ms."""

    def __init__(self, name: str) -> None:
        self._name = name
        super().__init__((), case_sensitive=True)

    @property
    def choices(self) -> tuple[str, ...]:
        from oracle_tools import search

        return tuple(getattr(search, self._name))

    @choices.setter
    def choices(self, value: object) -> None:
        """click.Choice sets its list in __init__: this one is always the engine's."""


class _QueryWordsCommand(click.Command):
    """A command whose trailing words are one Scryfall query: a word that starts with '-' but is none of
    the command's options is a negated term (-t:land, -is:funny, -"bolt") and goes to the query, as it
    would in Scryfall's search box, instead of failing as an unknown option (a query term never starts
    with '--', so a mistyped --option is still refused by name). The words are joined with
    spaces, so ``search t:goblin -c:r`` and ``search "t:goblin -c:r"`` ask the same; '--' still ends the
    options."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        takes_value: dict[str, bool] = {}
        for param in self.get_params(ctx):
            if isinstance(param, click.Option):
                for name in [*param.opts, *param.secondary_opts]:
                    takes_value[name] = not (param.is_flag or param.count)
        options: list[str] = []
        words: list[str] = []
        rest = iter(args)
        for arg in rest:
            if arg == "--":
                words.extend(rest)
                break
            name = arg.split("=", 1)[0]
            if name not in takes_value and not arg.startswith("--"):  # --typo stays an option: click names it
                words.append(arg)
                continue
            options.append(arg)
            if takes_value.get(name) and "=" not in arg:
                value = next(rest, None)
                if value is None:  # click says the option needs a value
                    return super().parse_args(ctx, options)
                options.append(value)
        return super().parse_args(ctx, [*options, "--", *words])


@main.command("search", cls=_QueryWordsCommand)
@_db_option
@click.argument("query_words", metavar="QUERY...", nargs=-1, required=True)
@_json_option
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV (one row per match).")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    help="Show at most N matches (total_cards still counts them all).",
)
@click.option(
    "--unique",
    type=_SearchChoice("UNIQUE"),
    default="cards",
    show_default=True,
    help="One row per card, per printing, or per card and artist (unique: in the query wins).",
)
@click.option(
    "--order",
    type=_SearchChoice("ORDERS"),
    default="name",
    show_default=True,
    help="Sort order (order: in the query wins).",
)
@click.option(
    "--dir",
    "direction",
    type=_SearchChoice("DIRECTIONS"),
    default="auto",
    show_default=True,
    help="Sort direction; auto: newest first for released, else ascending (as Scryfall).",
)
def search_command(
    db_path: Path | None,
    query_words: tuple[str, ...],
    as_json: bool,
    as_csv: bool,
    limit: int | None,
    unique: str,
    order: str,
    direction: str,
) -> None:
    """Search cards with Scryfall's query language, e.g. 't:goblin c:r mv<=2 f:modern' (docs/search.md).

    The query may be one quoted argument or several words, joined with spaces as in Scryfall's search box;
    a word starting with '-' that is not an option of this command is a negated term: search t:goblin -c:r.

    Prints name, mana cost and type line (with set and collector number for --unique prints). --json prints
    a Scryfall list object {"object": "list", "total_cards": N, "has_more": …, "data": [card objects]}.

    Exit status: 0 when cards matched; with --json also 0 when none matched (total_cards 0); the plain
    table and --csv exit 1 when nothing matched (as grep does); 2 for a query that is not valid syntax
    or names an unsupported keyword (one line, then the query with a caret under the position).
    """
    from oracle_tools.search import SearchSyntaxError

    query = " ".join(query_words)
    try:
        with _open(db_path) as db:
            columns, rows, total = db.search_rows(query, unique=unique, order=order, direction=direction)
            shown = rows[:limit] if limit is not None else rows
            if as_json:
                id_at = columns.index("id")
                ids = [row[id_at] for row in shown if row[id_at] is not None]
                cards = db.card_objects(ids=ids)
                _echo_json({"object": "list", "total_cards": total, "has_more": len(cards) < total, "data": cards})
                return
    except SearchSyntaxError as exc:
        click.echo(f"error: {exc}", err=True)
        if exc.query:
            click.echo(exc.caret(), err=True)
        sys.exit(2)
    except OracleToolsError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    wanted = ["name", "mana_cost", "type_line"] + (
        ["set", "collector_number"]
        if unique != "cards" or "unique:" in query.lower() or "++" in query or "@@" in query
        else []
    )
    if as_csv:
        _echo_csv(columns, shown)
    elif total:
        from oracle_tools.interfaces.render import table, width

        at = [columns.index(c) for c in wanted]
        cells = [[row[i] for i in at] for row in shown]
        text = table(wanted, cells)
        if sys.stdout.isatty():  # in a terminal the table fits its width (as `sql`'s): the longest cells are cut
            import shutil

            room, chars = shutil.get_terminal_size().columns, 80
            while chars > 8 and max(map(width, text.splitlines())) > room:
                chars -= 2
                text = table(wanted, cells, max_chars=chars)
        click.echo(text)
        more = f" (showing {len(shown)})" if len(shown) < total else ""
        click.echo(f"{total} card{'s' if total != 1 else ''}{more}", err=True)
    if total == 0:
        if not as_csv:
            click.echo("0 cards", err=True)  # say so (stderr, like the count line), then exit 1 as grep does
        sys.exit(1)


# -- MCP server (oracle_tools/interfaces/mcp_server.py) -----------------------------------------------------


@main.command("mcp")
@_db_option
@_seconds_option(
    "--query-timeout", SERVED_QUERY_TIMEOUT, 3_600, "Stop a search tool call that runs longer than this (a tool error)."
)
@_friendly_errors
def mcp_command(db_path: Path | None, query_timeout: float) -> None:
    """Serve search, resolve, token, choose_name, list_nameable and check_deck as tools of a Model
    Context Protocol server over stdio (for AI assistants). Each tool returns the JSON of the
    matching --json command. Runs until the client closes stdin.
    """
    from oracle_tools.interfaces import mcp_server

    mcp_server.run(db_path or default_db_path(), query_timeout=query_timeout)


if __name__ == "__main__":  # pragma: no cover
    main()
