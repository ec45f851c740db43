"""``oracle-tools deck``: decklists checked against a format's construction rules (CR 100.2, 100.4,
201.3b, 903).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from oracle_tools.errors import OracleToolsError
from oracle_tools.interfaces.cli_common import (
    OracleToolsGroup,
    db_option,
    echo_error,
    echo_json,
    friendly_errors,
    json_option,
    open_db,
)

if TYPE_CHECKING:
    from oracle_tools.decks.decklist import Decklist
from oracle_tools.errors import printable
from oracle_tools.store import userfiles
from oracle_tools.text.counts import counted

# -- decks (CR 100.2, 100.4, 201.3b, 903) ---------------------------------------------------------


@click.group(cls=OracleToolsGroup)
def deck() -> None:
    """Decklists: legality checks against a format's construction rules."""


def _deck_format(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from oracle_tools.decks.checker import format_rules

    try:
        return format_rules(value).key
    except OracleToolsError as exc:
        raise click.BadParameter(str(exc).removeprefix("unknown format ")) from None


def _decklists(path: Path, *, limits: bool = True) -> list[Decklist]:
    """The decks of a decklist file, or of standard input for ``-``; with ``limits``, text of more than
    MAX_DECK_LINES card lines is refused before it is parsed (DeckTooLargeError)."""
    from oracle_tools.decks.checker import LIFT_LIMITS, decklists_from_text, to_decklists
    from oracle_tools.decks.decklist import MAX_DECKLIST_BYTES

    if str(path) == "-":
        text = userfiles.read_user_text(
            sys.stdin.buffer, limit=MAX_DECKLIST_BYTES, what="decklist", kind=userfiles.DECKLIST
        )
        return decklists_from_text(text, "standard input", how_to_lift=LIFT_LIMITS if limits else None)
    return to_decklists(path, limits=limits)


@deck.command("check")
@db_option
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
@json_option
@friendly_errors
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

    Exit 0 when every deck is legal, 1 when any is not, 2 when a file cannot be read, 3 when no deck breaks a rule
    but some card cannot be judged (its data predates the format: ingest newer data).
    """
    from oracle_tools.errors import DecklistError

    reports: list[dict[str, Any]] = []

    def cannot_check(path: Path, exc: DecklistError) -> None:
        """A file that cannot be read, or a deck over the size limits: said, and the others are checked."""
        echo_error(f"error: {exc}")
        reports.append({"source": str(path), "legal": False, "error": str(exc), "problems": []})

    with open_db(db_path) as db:
        # which ban lists judge the decks (limited has none), said once before the first deck read
        judged_by = db.legalities_source() if not as_json and fmt != "limited" else None
        for path in files:
            try:
                decks = _decklists(path, limits=not no_limits)
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
        if judged_by and any(p["kind"] == "cannot_judge" for r in reports for p in r["problems"]):
            judged_by = db.legalities_source(fmt)  # which files lack the format's legalities, said too
    if as_json:
        # one file holding one deck: the report object; several files or decks: a list of reports
        echo_json(reports[0] if len(files) == 1 and len(reports) == 1 else reports)
    else:
        if judged_by and any("error" not in r for r in reports):
            click.echo(judged_by)
        for r in reports:
            if "error" in r:
                continue
            who = " / ".join(x for x in (r.get("name"), r.get("player")) if x)
            head = printable(f"{r['source']}" + (f" [{who}]" if who else ""))  # a file named with a newline
            if r["legal"]:
                click.echo(f"{head}: legal in {fmt}")
            else:
                n = len(r["problems"])
                if r["legal"] is None:  # no rule broken; some card's data predates the format
                    verdict = f"could not be fully judged in {fmt} ({counted(n, 'card')} cannot be judged)"
                else:
                    verdict = f"not legal in {fmt} ({counted(n, 'problem')})"
                click.echo(f"{head}: {verdict}")
                since = {(c["card"], c["kind"]): c["detail"] for c in r.get("legality_changes", [])}
                for p in r["problems"]:
                    where = f"line {p['line']}" if p["line"] else "deck"
                    click.echo(printable(f"  {where}: [{p['kind']}] {p['detail']}"))
                    if (p["card"], p["kind"]) in since:
                        click.echo(f"    {since[p['card'], p['kind']]}")
            for note in r.get("notes", []):
                click.echo(printable(f"  note: {note}"))
    if any("error" in r for r in reports):
        sys.exit(2)
    if any(r["legal"] is False for r in reports):
        sys.exit(1)
    sys.exit(3 if any(r["legal"] is None for r in reports) else 0)
