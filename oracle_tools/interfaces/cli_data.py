"""``oracle-tools`` commands over the database itself: ingest, catalog, sets, symbology, parse-mana,
sql and export.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from oracle_tools.db import OracleDB, default_db_path
from oracle_tools.errors import OracleToolsError, printable
from oracle_tools.interfaces.cli_common import (
    db_option,
    echo_error,
    echo_json,
    friendly_errors,
    json_option,
    memory_size,
    one_line,
    one_output_format,
    open_db,
    seconds_option,
    stream_csv,
    stream_json,
)
from oracle_tools.store.sqlfiles import SANDBOX_MEMORY_LIMIT
from oracle_tools.text.counts import counted

# -- ingest and inspection ---------------------------------------------------------------------


@click.command()
@click.argument("files", metavar="[FILE]...", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@db_option
@click.option(
    "--sample", is_flag=True, help="Build from the real sample inside the package (oracle_tools/data/sample/), offline."
)
@click.option(
    "--bulk-file",
    "bulk_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A local Scryfall bulk file (.json, .json.gz or .json.zst; array or one object per line), as FILE is. "
    "Repeatable.",
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
    help="Replace the database even when the new one holds fewer than half its cards (or, from a rulings file, "
    "half its rulings), or when the old one is "
    "damaged and cannot be read (both refused by default).",
)
@click.option("--progress/--no-progress", default=True, help="Show progress bars.")
@json_option
@friendly_errors
def ingest(
    files: tuple[Path, ...],
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

    Each FILE is a local Scryfall bulk file, as with --bulk-file (`oracle-tools ingest cards.json.gz`); the
    database is --db. The new database replaces the old one only when everything succeeded, and not when it
    would hold fewer than half the old one's cards or rulings (--replace-anyway). One ingest at a time writes a database
    (--wait). Giving only a rulings file or --rules-file keeps the cards of the existing database (one this
    version built: an older one is rebuilt from card files).
    """
    if rules_url is not None and rules_file is not None:
        raise click.UsageError("give --rules-file or --rules-url, not both")
    if files and bulk_files:  # the later file wins, and click cannot tell how the two kinds were interleaved
        raise click.UsageError("give the bulk files as arguments or with --bulk-file, not both: their order matters")
    for file in files:
        if file.suffix.lower() in (".duckdb", ".db"):  # `ingest data/oracle.duckdb` meant the database
            raise click.UsageError(
                f"{file} looks like a database, not a bulk file: the arguments are the bulk files to read; give "
                f"the database to write with --db {file}"
            )
    bulk_files = bulk_files or files
    report = OracleDB.ingest(
        db_path or default_db_path(),
        sample=sample,
        bulk_files=bulk_files,
        types=[t.strip() for t in types.split(",") if t.strip()],
        api_url=api_url,
        cache_dir=cache_dir,
        rules_file=rules_file,
        rules_url=rules_url,
        interchangeable_file=interchangeable_file,
        wait=wait,
        replace_anyway=replace_anyway,
        progress=progress and sys.stderr.isatty(),  # bars go to stderr, and only to a person watching it
    )
    _finish_once_written()
    if as_json:
        echo_json(report.as_dict())
        return
    for f in report.files:  # the paths as one line each, whatever characters they hold
        click.echo(f"read {f['rows']:>9,} {f['kind']:<8} from {printable(str(f['file']))} ({f['seconds']:.2f}s)")
    sizes = ", ".join(f"{t} {n:,}" for t, n in report.tables.items() if t in ("cards", "faces", "printings", "names"))
    click.echo(f"wrote {printable(str(report.db_path))} in {report.seconds:.1f}s: {sizes}")
    for warning in report.warnings:
        echo_error(f"warning: {warning}")


def _finish_once_written() -> None:
    """The new database is in place, so the run has succeeded: from here Ctrl-C or SIGTERM no longer stops it.
    It prints its report and exits 0 (a stop would have said "nothing was replaced", or ended with 143 and no
    word, while the process frees the run's memory: half a second after the 2019 dump). Run in-process (a test,
    a caller's own process), the group puts the handlers back when the command ends (OracleToolsGroup.main)."""
    import signal

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)


@click.command()
@db_option
@click.argument("name")
@json_option
@friendly_errors
def catalog(db_path: Path | None, name: str, as_json: bool) -> None:
    """A Scryfall catalog computed from the database, one value a line: card-names, artist-names, word-bank,
    supertypes, card-types, creature-types (and the other *-types), powers, toughnesses, loyalties,
    keyword-abilities, keyword-actions, ability-words, watermarks."""
    with open_db(db_path) as db:
        data = db.catalog(name)
    if as_json:
        echo_json({"object": "catalog", "total_values": len(data), "data": data})
        return
    for value in data:
        click.echo(value)


@click.command()
@db_option
@click.argument("code_or_id", required=False)
@json_option
@friendly_errors
def sets(db_path: Path | None, code_or_id: str | None, as_json: bool) -> None:
    """The sets of the database (Scryfall's set objects where the ingest kept its set list, else built from the
    printings), newest first; or one set by code or Scryfall id."""
    with open_db(db_path) as db:
        listed = [db.sets(code_or_id)] if code_or_id is not None else db.sets()
    if as_json:
        echo_json(listed[0] if code_or_id is not None else {"object": "list", "has_more": False, "data": listed})
        return
    for item in listed:
        click.echo(
            f"{item['code']:<6} {item.get('released_at', ''):<10} {item.get('set_type', ''):<16} "
            f"{item['card_count']:>5}  {item['name']}"
        )


@click.command()
@db_option
@json_option
@friendly_errors
def symbology(db_path: Path | None, as_json: bool) -> None:
    """Card symbols: the ones the Comprehensive Rules define (CR 107) and the cards use, with what each means."""
    with open_db(db_path) as db:
        found = db.symbology()
    if as_json:
        echo_json({"object": "list", "has_more": False, "data": found})
        return
    for item in found:
        value = item.get("mana_value")
        click.echo(f"{item['symbol']:<9} {'' if value is None else f'{value:g}':>4}  {item['english']}")


@click.command("parse-mana")
@click.argument("cost")
@json_option
@friendly_errors
def parse_mana(cost: str, as_json: bool) -> None:
    """A mana cost read as Scryfall reads it (2WW, {2}{W}{W}, 2{g}2): the normalized cost, mana value, colors."""
    from oracle_tools import OracleDB
    from oracle_tools.errors import ManaCostError

    try:
        parsed = OracleDB.parse_mana(cost)
    except ManaCostError as exc:  # the symbols as this door lists them
        raise OracleToolsError(exc.worded("`oracle-tools symbology`")) from None
    if as_json:
        echo_json(parsed)
        return
    colors = "".join(parsed["colors"]) or "colorless"
    click.echo(f"{parsed['cost']}  mana value {parsed['cmc']:g}  {colors}")


@click.command()
@db_option
@click.argument("query")
@click.option("--param", "params", multiple=True, help="A value for the next ? placeholder. Repeatable.")
@json_option
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV.")
@click.option(
    "--max-width",
    type=click.IntRange(min=20),
    default=None,
    help="Width of the table in characters [default: the terminal's, when printing to one]; a wider table "
    "leaves middle columns out.",
)
@click.option("--all-columns", is_flag=True, help="Show every column, however wide the table.")
@seconds_option("--timeout", 60.0, 86_400, "Stop the query after this long (Ctrl-C stops it at once).")
@click.option(
    "--memory-limit",
    default=SANDBOX_MEMORY_LIMIT,
    show_default=True,
    callback=memory_size,
    metavar="SIZE",
    help="The memory the query may use (such as 500MB or 4GB); one that needs more fails.",
)
@friendly_errors
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

    from oracle_tools.store.boundedsql import BoundedQuery
    from oracle_tools.store.sqlfiles import check_read_only
    from oracle_tools.store.stopping import StopOnSignals

    one_output_format(as_json, as_csv)
    # The query runs in a child process the operating system bounds (store.boundedsql): its address space is
    # limited by --memory-limit and it is killed at --timeout, whatever DuckDB's own limits miss. Ctrl-C and
    # SIGTERM kill it at once.
    with StopOnSignals() as signals, open_db(db_path) as db:
        check_read_only(query)
        db._check_exists()  # the same clear line as every command's for a missing or foreign file
        bounded = BoundedQuery(db.path, memory_limit=memory_limit, timeout=timeout)
        signals.add(bounded.interrupt)
        try:
            if as_json or as_csv:  # every row, written batch by batch as DuckDB reads them
                columns, batches = bounded.stream(query, list(params))
                (stream_json if as_json else stream_csv)(columns, batches)
                return
            # the table shows 50 rows: only those become Python values
            columns, rows, total = bounded.rows(query, list(params), limit=50)
        except duckdb.OutOfMemoryException:
            raise OracleToolsError(
                f"the query needs more than --memory-limit {memory_limit} of memory and was stopped; narrow it "
                "(a WHERE, a LIMIT) or give it more (--memory-limit 8GB)"
            ) from None
        except duckdb.PermissionException as exc:  # the sandbox (sqlfiles.sandboxed_connection) said no
            raise OracleToolsError(
                f"SQL failed: {one_line(exc)}; `sql` reads only the database — load other files with DuckDB itself"
            ) from None
        except duckdb.Error as exc:  # DuckDB's hints and the position kept, in one line
            from oracle_tools.store.sqlfiles import damaged_database, error_line

            if (damaged := damaged_database(exc, db.path)) is not None:
                raise damaged from None  # the file, not the query
            if (placeholders := _placeholders_unfilled(exc, params)) is not None:
                raise OracleToolsError(placeholders) from None
            raise OracleToolsError(f"SQL failed: {one_line(error_line(exc))}") from None
        finally:
            bounded.close()  # no child is left behind, whatever ended the command
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
    click.echo(f"{counted(total, 'row')}{left_out}", err=True)


def _placeholders_unfilled(exc: Exception, params: tuple[str, ...]) -> str | None:
    """The line for a query whose ? placeholders and --param values do not pair up (DuckDB: "Values were not
    provided for the following parameters: 1"), pointing at --param; None for any other error."""
    text = str(exc)
    if "Values were not provided for the following parameters" in text:
        return (
            f"SQL failed: the query has a ? placeholder with no value ({counted(len(params), '--param value')} given); "
            'give one --param VALUE per ?, in order: oracle-tools sql "SELECT * FROM cards WHERE name = ?" '
            '--param "Lightning Bolt"'
        )
    if "Parameter argument/count mismatch" in text or "Parameter/argument count mismatch" in text:  # DuckDB: either
        return (
            f"SQL failed: {counted(len(params), '--param value')} given, more than the query's ? placeholders; "
            "give one --param VALUE per ?, in order"
        )
    return None


# -- export (Parquet / CSV) ----------------------------------------------------------------------


@click.command("export")
@db_option
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
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace the file if it exists (refused without it; a DuckDB database is never replaced).",
)
@json_option
@friendly_errors
def export_command(
    db_path: Path | None,
    table: str | None,
    query: str | None,
    params: tuple[str, ...],
    parquet_path: Path | None,
    csv_path: Path | None,
    overwrite: bool,
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
    with open_db(db_path) as db:
        result = db.export(table, path, sql=query, params=list(params) or None, format=fmt, overwrite=overwrite)
    if as_json:
        echo_json({"rows": result["rows"], "path": result["path"], "format": result["format"]})
    else:
        click.echo(f"wrote {counted(result['rows'], 'row')} to {printable(result['path'])} ({result['format']})")


def _export_to_stdout(db_path: Path | None, table: str | None, query: str | None, params: tuple[str, ...]) -> None:
    """``--csv -``: the CSV on standard output (written to a private temporary file first: the export
    writes files only)."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="oracle-tools-export-") as folder, open_db(db_path) as db:
        out = Path(folder) / "export.csv"
        db.export(table, out, sql=query, params=list(params) or None, format="csv")
        with out.open("rb") as written:
            sys.stdout.flush()
            shutil.copyfileobj(written, sys.stdout.buffer)
