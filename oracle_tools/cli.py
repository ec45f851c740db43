"""The ``oracle-tools`` command line: one command per library call on :class:`OracleDB`.

Every command takes ``--db PATH`` (``$ORACLE_TOOLS_DB``, else data/oracle.duckdb) and every
command that returns data takes ``--json``. Errors print one clear line and exit non-zero.
"""
from __future__ import annotations

import csv
import functools
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from .db import OracleDB, default_db_path
from .errors import OracleToolsError


def _db_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=None, envvar="ORACLE_TOOLS_DB",
        show_envvar=True, help="Database file [default: data/oracle.duckdb].")(func)


def _json_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(func)


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def _friendly_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn library errors into one line on stderr and exit status 2 (bad input or missing data)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except OracleToolsError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)

    return wrapper


def _open(db_path: Path | None) -> OracleDB:
    return OracleDB(db_path or default_db_path())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="oracle-tools")
def main() -> None:
    """The Magic: The Gathering Oracle card reference in DuckDB and Polars."""


# -- ingest and inspection ---------------------------------------------------------------------

@main.command()
@_db_option
@click.option("--sample", is_flag=True, help="Build from the embedded real sample in data/sample/ (offline).")
@click.option("--bulk-file", "bulk_files", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="A local Scryfall bulk file (.json/.json.gz, array or one object per line). Repeatable.")
@click.option("--types", default="oracle_cards,default_cards,rulings", show_default=True,
              help="Bulk types to download from the Scryfall API (when no --bulk-file/--sample is given).")
@click.option("--api-url", default=None, help="Scryfall API base URL [default: https://api.scryfall.com].")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Download cache [default: <db folder>/cache].")
@click.option("--rules-file", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="A Comprehensive Rules .txt to use instead of the shipped one.")
@click.option("--rules-url", default=None,
              help="Download the Comprehensive Rules .txt from this address (linked from magic.wizards.com/en/rules).")
@click.option("--interchangeable-file", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="CSV of interchangeable names (CR 201.3) [default: data/interchangeable_names.csv].")
@click.option("--progress/--no-progress", default=True, help="Show progress bars.")
@_json_option
@_friendly_errors
def ingest(db_path: Path | None, sample: bool, bulk_files: tuple[Path, ...], types: str, api_url: str | None,
           cache_dir: Path | None, rules_file: Path | None, rules_url: str | None, interchangeable_file: Path | None,
           progress: bool, as_json: bool) -> None:
    """Build the database from Scryfall (API, local bulk files, or the embedded sample).

    The new database replaces the old one only when everything succeeded. Giving only a
    rulings file or --rules-file keeps the cards of the existing database.
    """
    from . import download
    from . import ingest as ing

    db_file = db_path or default_db_path()
    cache = cache_dir or Path(os.environ.get("ORACLE_TOOLS_CACHE") or db_file.parent / "cache")
    if rules_url is not None:
        if rules_file is not None:
            raise click.UsageError("give --rules-file or --rules-url, not both")
        rules_file = download.fetch_text(rules_url, cache / "rules" / "MagicCompRules-downloaded.txt")
    if sample:
        sources = ing.sample_sources()
    elif bulk_files:
        sources = [ing.sniff(p) for p in bulk_files]
    elif rules_file is not None and db_file.exists():
        sources = []
    else:
        wanted = [t.strip() for t in types.split(",") if t.strip()]
        fetched = download.fetch_bulk_files(wanted, api_url=api_url or download.DEFAULT_API_URL, cache_dir=cache,
                                            progress=progress)
        sources = [ing.sniff(f.path, origin="scryfall-api", bulk_type=f.type, updated_at=f.updated_at)
                   for f in fetched]
    report = ing.Ingest(db_file, progress=progress, interchangeable_file=interchangeable_file).run(
        sources, rules_file=rules_file)
    if as_json:
        _echo_json(report.as_dict())
        return
    for f in report.files:
        click.echo(f"read {f['rows']:>9,} {f['kind']:<8} from {f['file']} ({f['seconds']:.2f}s)")
    sizes = ", ".join(f"{t} {n:,}" for t, n in report.tables.items() if t in ("cards", "faces", "printings", "names"))
    click.echo(f"wrote {report.db_path} in {report.seconds:.1f}s: {sizes}")


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
        click.echo(f"run {run['run_id']}    {run['started_at'][:19]} {run['source']:<12} {run['kind']:<7} "
                   f"{run['rows'] if run['rows'] is not None else '':>8} {run['file']}")
    click.echo(f"newest printing  {data['newest_printing']}")
    if data["rules"]:
        click.echo(f"rules     CR effective {data['rules']['effective_date']} ({data['rules']['rules']} rules)")
    click.echo("tables    " + ", ".join(f"{t} {n:,}" for t, n in data["tables"].items()))
    click.echo("layouts   " + ", ".join(f"{k} {v:,}" for k, v in data["layouts"].items()))


@main.command()
@_db_option
@click.argument("query")
@click.option("--param", "params", multiple=True, help="A value for the next ? placeholder. Repeatable.")
@_json_option
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV.")
@_friendly_errors
def sql(db_path: Path | None, query: str, params: tuple[str, ...], as_json: bool, as_csv: bool) -> None:
    """Run read-only SQL against the database (opened read-only; use ? and --param for values)."""
    import duckdb

    with _open(db_path) as db:
        try:
            frame = db.sql(query, list(params))
        except duckdb.Error as exc:
            raise OracleToolsError(f"SQL failed: {str(exc).splitlines()[0]}") from None
    if as_json:
        _echo_json(frame.to_dicts())
    elif as_csv:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(frame.columns)
        for row in frame.iter_rows():
            writer.writerow(["|".join(map(str, v)) if isinstance(v, list) else v for v in row])
        click.echo(buffer.getvalue(), nl=False)
    else:
        import polars as pl

        with pl.Config(tbl_rows=50, tbl_cols=20, fmt_str_lengths=60, tbl_width_chars=160):
            click.echo(str(frame))


# -- names (CR 201) ------------------------------------------------------------------------------

@main.command()
@_db_option
@click.argument("name", required=False)
@click.option("--fuzzy", is_flag=True, help="Accept the closest name for a misspelling (via 'fuzzy').")
@click.option("--batch", type=click.File("r", encoding="utf-8"), default=None,
              help="Resolve every line of a file ('-' for stdin) in one batch.")
@_json_option
@_friendly_errors
def resolve(db_path: Path | None, name: str | None, fuzzy: bool, batch: io.TextIOBase | None, as_json: bool) -> None:
    """Resolve a card name (any spelling, face, language or alternate name) to its Oracle card.

    Exit 0 when it resolves, 1 when it is ambiguous or not found.
    """
    with _open(db_path) as db:
        if batch is not None:
            frame = db.resolve_many([line.rstrip("\n") for line in batch if line.strip()])
            if as_json:
                _echo_json(frame.to_dicts())
            else:
                click.echo(frame.write_csv(), nl=False)
            sys.exit(0 if frame.get_column("status").eq("ok").all() else 1)
        if name is None:
            raise click.UsageError("give a NAME, or --batch FILE")
        result = db.resolve(name, fuzzy=fuzzy)
    if as_json:
        _echo_json(result.to_dict())
    elif result.ok:
        face = f" (face: {result.face})" if result.face else ""
        same = [n for n in result.names if n != result.english_name]
        click.echo(f"{result.name}{face}  [via {result.via}]" + (f"  same name as: {', '.join(same)}" if same else ""))
    elif result.status == "ambiguous":
        click.echo(f"{name!r} is ambiguous: " + "; ".join(
            f"{c.name}" + (f" (face {c.face})" if c.face else "") + f" [{c.via}]" for c in result.candidates))
    else:
        click.echo(f"{name!r} is not a card name. Did you mean: {', '.join(result.suggestions) or '(nothing close)'}?"
                   + (f" Token names (not cards; see `oracle-tools token NAME`): {', '.join(result.tokens)}."
                      if result.tokens else ""))
    sys.exit(0 if result.ok else 1)


@main.command("same-name")
@_db_option
@click.argument("first")
@click.argument("second")
@_json_option
@_friendly_errors
def same_name(db_path: Path | None, first: str, second: str, as_json: bool) -> None:
    """CR 201.2a: do two cards have the same name? Exit 0 yes, 1 no."""
    with _open(db_path) as db:
        answer = db.same_name(first, second)
        names = {first: sorted(db.object_names(first)), second: sorted(db.object_names(second))}
    if as_json:
        _echo_json({"same_name": answer, "names": names, "rule": "201.2a"})
    else:
        click.echo(f"{'same name' if answer else 'different names'}: {names[first]} / {names[second]}")
    sys.exit(0 if answer else 1)


# -- tokens (CR 111) -----------------------------------------------------------------------------

@main.command()
@_db_option
@click.argument("name", required=False)
@click.option("--collisions", is_flag=True, help="List names that are both a card (or face) name and a token name.")
@click.option("--list", "list_all", is_flag=True,
              help="List every token name the database knows (predefined, effect-defined, token objects) with "
                   "kind and creators (view token_catalog).")
@_json_option
@_friendly_errors
def token(db_path: Path | None, name: str | None, collisions: bool, list_all: bool, as_json: bool) -> None:
    """What "create a NAME token" makes: predefined (CR 111.10), the token effects name and define
    (111.4, 111.9), the Oracle card (111.11), or nothing.

    Exit 0 for a token, 1 when NAME is none of these, 2 for bad usage.
    """
    with _open(db_path) as db:
        if list_all:
            frame = db.token_list()
            if as_json:
                _echo_json(frame.to_dicts())
            else:
                for row in frame.iter_rows(named=True):
                    creators = row["creators"] or []
                    shown = "; ".join(creators[:3]) + (f" (+{len(creators) - 3} more)" if len(creators) > 3 else "")
                    rule = f" {row['rule']}" if row["rule"] else ""
                    click.echo(f"{row['name']}  [{row['kind']}{rule}]  {row['type_line'] or ''}"
                               + (f"  created by: {shown}" if shown else ""))
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
            click.echo(f"  variant [{variant['rule']}]: {variant['type_line']}{vpt} "
                       f"({''.join(variant['colors'] or []) or 'colorless'}) "
                       f"{(variant['oracle_text'] or '').replace(chr(10), '; ')} — {'; '.join(variant['created_by'])}")
        for note in answer.notes:
            click.echo(f"note: {note}")
    else:
        click.echo(f"{name!r}: no token. {answer.reason}. "
                   f"Did you mean: {', '.join(answer.suggestions) or '(nothing close)'}?")
    sys.exit(0 if answer.ok else 1)


# -- export (Parquet / CSV) ----------------------------------------------------------------------

@main.command("export")
@_db_option
@click.argument("table", required=False)
@click.option("--sql", "query", default=None, help="Export the result of this read-only SQL query instead.")
@click.option("--param", "params", multiple=True, help="A value for the next ? placeholder of --sql. Repeatable.")
@click.option("--parquet", "parquet_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write Parquet (Arrow types kept: lists, dates) to this file.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write CSV (header row; lists joined with '|') to this file.")
@_json_option
@_friendly_errors
def export_command(db_path: Path | None, table: str | None, query: str | None, params: tuple[str, ...],
                   parquet_path: Path | None, csv_path: Path | None, as_json: bool) -> None:
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
    with _open(db_path) as db:
        result = db.export(table, path, sql=query, params=list(params) or None, format=fmt)
    if as_json:
        _echo_json({"rows": result["rows"], "path": result["path"], "format": result["format"]})
    else:
        click.echo(f"wrote {result['rows']:,} rows to {result['path']} ({result['format']})")


# -- choosing a card name (CR 201.4) -----------------------------------------------------------

@main.command("choose-name")
@_db_option
@click.argument("name", required=False)
@click.option("--constraint", "phrase", default=None,
              help='The characteristics, as on the card: "nonland", "artifact", "nonartifact, nonland" '
                   '(default: any card name).')
@click.option("--card", "card", default=None,
              help="Take the constraint from this card's own Oracle text (Meddling Mage -> nonland).")
@click.option("--list", "as_list", is_flag=True, help="List every name that may be chosen instead of judging NAME.")
@_json_option
@_friendly_errors
def choose_name(db_path: Path | None, name: str | None, phrase: str | None, card: str | None, as_list: bool,
                as_json: bool) -> None:
    """CR 201.4: may NAME be chosen for "choose a [constraint] card name"? Exit 0 yes, 1 no, 2 bad usage.

    \b
    oracle-tools choose-name "Fire // Ice" --constraint nonland      (no: 201.4b, choose a half)
    oracle-tools choose-name "Razorgrass Field" --card "Meddling Mage"
    oracle-tools choose-name --constraint "nonartifact, nonland" --list
    """
    from . import choose as _choose

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
    from .decks import format_rules

    try:
        return format_rules(value).key
    except OracleToolsError as exc:
        raise click.BadParameter(str(exc).removeprefix("unknown format ")) from None


@deck.command("check")
@_db_option
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", required=True, callback=_deck_format,
              help="Format: standard, pioneer, modern, legacy, vintage, pauper, commander, duel, brawl, "
                   "premodern, oldschool, limited, ... (Scryfall legality keys).")
@click.option("--commander", "commanders", multiple=True,
              help="The commander, when the list has no Commander section. Repeatable (partners).")
@_json_option
@_friendly_errors
def deck_check(db_path: Path | None, files: tuple[Path, ...], fmt: str, commanders: tuple[str, ...],
               as_json: bool) -> None:
    """Check decklist FILES (any format; a JSON tournament cache checks every deck in it).

    Exit 0 when every deck is legal, 1 when any is not, 2 when a file cannot be read.
    """
    from .decks import to_decklists
    from .errors import DecklistError

    reports: list[dict[str, Any]] = []
    unreadable = False
    with _open(db_path) as db:
        for path in files:
            try:
                decks = to_decklists(path)
            except DecklistError as exc:
                unreadable = True
                click.echo(f"error: {exc}", err=True)
                reports.append({"source": str(path), "legal": False, "error": str(exc), "problems": []})
                continue
            for one in decks:
                reports.append(db.check_deck(one, format=fmt, commanders=commanders or None).to_dict())
    if as_json:
        # one file holding one deck: the report object; several files or decks: a list of reports
        _echo_json(reports[0] if len(files) == 1 and len(reports) == 1 else reports)
    else:
        for r in reports:
            if "error" in r:
                continue
            who = " / ".join(x for x in (r.get("name"), r.get("player")) if x)
            head = f"{r['source']}" + (f" [{who}]" if who else "")
            if r["legal"]:
                click.echo(f"{head}: legal in {fmt}")
            else:
                click.echo(f"{head}: not legal in {fmt} ({len(r['problems'])} problem"
                           f"{'s' if len(r['problems']) != 1 else ''})")
                for p in r["problems"]:
                    where = f"line {p['line']}" if p["line"] else "deck"
                    click.echo(f"  {where}: [{p['kind']}] {p['detail']}")
            for note in r.get("notes", []):
                click.echo(f"  note: {note}")
    if unreadable:
        sys.exit(2)
    sys.exit(0 if all(r["legal"] for r in reports) else 1)


if __name__ == "__main__":  # pragma: no cover
    main()
