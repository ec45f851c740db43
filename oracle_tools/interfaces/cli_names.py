"""``oracle-tools`` commands on names: resolve and same-name (CR 201), token (CR 111), refs (CR 201.5)
and choose-name (CR 201.4).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from oracle_tools.db import DEFAULT_SUGGESTIONS, MAX_SUGGESTIONS
from oracle_tools.errors import NameNotFoundError, OracleToolsError, did_you_mean, names_listed
from oracle_tools.interfaces.cli_common import (
    check_name,
    db_option,
    echo_json,
    friendly_errors,
    json_option,
    open_db,
)
from oracle_tools.names.resolver import COUNTED_NAME
from oracle_tools.store import userfiles

#: `resolve --batch`: far above any real list of names (a million names is ~20 MB); bounds /dev/zero.
MAX_BATCH_CHARS = 256 * userfiles.MiB


# -- names (CR 201) ------------------------------------------------------------------------------


@click.command()
@db_option
@click.argument("name", required=False)
@click.option("--fuzzy", is_flag=True, help="Accept the closest name for a misspelling (via 'fuzzy').")
@click.option(
    "--batch",
    # a path, not click.File: click opened it while parsing, and a named pipe nothing writes was waited on forever
    type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=str),
    default=None,
    help="Resolve every line of a file ('-' for stdin) in one batch (with --fuzzy: each miss by the fuzzy rule).",
)
@click.option(
    "--suggest",
    type=click.IntRange(0, MAX_SUGGESTIONS),
    default=DEFAULT_SUGGESTIONS,
    show_default=True,
    help="How many names a miss suggests (0: none, only whether each name is one).",
)
@json_option
@friendly_errors
def resolve(
    db_path: Path | None, name: str | None, fuzzy: bool, batch: str | None, suggest: int, as_json: bool
) -> None:
    """Resolve a card name (any spelling, face, language or alternate name) to its Oracle card.

    Exit 0 when it resolves, 1 when it is ambiguous or not found.
    """
    if batch is not None and name is not None:
        raise click.UsageError("give a NAME, or --batch FILE, not both")
    with open_db(db_path) as db:
        if batch is not None:
            # decoded as decklists are: UTF-8, UTF-16 with BOM (Notepad, PowerShell), Windows-1252, Latin-1
            text = (
                userfiles.read_user_text(sys.stdin.buffer, limit=MAX_BATCH_CHARS, what="list of names")
                if batch == "-"
                else userfiles.read_user_file(Path(batch), limit=MAX_BATCH_CHARS, what="list of names")
            )
            frame = db.resolve_many([line for line in text.splitlines() if line.strip()], suggest=suggest, fuzzy=fuzzy)
            counted = sum(
                1
                for query, status in frame.select("query", "status").iter_rows()
                if status != "ok" and COUNTED_NAME.fullmatch(query)
            )
            if counted:  # a decklist given as the list of names: said once, the answers stay those of the names
                click.echo(
                    f"note: {counted:,} of the {frame.height:,} names {'begins' if counted == 1 else 'begin'} with a "
                    "count, as decklist lines do; "
                    "`oracle-tools deck check FILE --format F` reads a decklist",
                    err=True,
                )
            if as_json:
                echo_json(frame.to_dicts())
            else:  # CSV has no lists: a miss's suggestions joined by "; "
                import polars as pl

                flat = frame.with_columns(pl.col("suggestions").list.join("; "))
                click.echo(flat.write_csv(), nl=False)
            sys.exit(0 if frame.get_column("status").eq("ok").all() else 1)
        if name is None:
            raise click.UsageError("give a NAME, or --batch FILE")
        check_name(name)
        result = db.resolve(name, fuzzy=fuzzy, suggest=suggest)
    if as_json:
        echo_json(result.to_dict())
    elif result.ok:
        face = f" (face: {result.face})" if result.face else ""
        same = [n for n in result.names if n != result.english_name]
        click.echo(
            f"{result.name}{face}  [via {result.via}]" + (f"  same name as: {names_listed(same)}" if same else "")
        )
        if result.note:
            click.echo(f"note: {result.note}")
    else:
        click.echo(result.miss_message())
        if result.note:  # a miss that is a decklist line ('4 Lightning Bolt')
            click.echo(f"note: {result.note}")
    sys.exit(0 if result.ok else 1)


@click.command("same-name")
@db_option
@click.argument("first")
@click.argument("second")
@json_option
@friendly_errors
def same_name(db_path: Path | None, first: str, second: str, as_json: bool) -> None:
    """CR 201.2a: do two cards have the same name? Exit 0 yes, 1 no."""
    check_name(first)
    check_name(second)
    with open_db(db_path) as db:
        found = {text: db.resolve(text) for text in (first, second)}
        names: dict[str, list[str]] = {}
        for text in (first, second):  # an unknown name: resolve's answer and exit status (1), not an error
            try:
                # several cards that print this one name have it whichever is meant (201.2a)
                names[text] = sorted(db.object_names(text))
            except NameNotFoundError:
                click.echo(found[text].miss_message())
                sys.exit(1)
        answer = db.same_name(first, second)
        cards = {r.name for r in found.values()}
    # 'Fire' and 'Ice': the halves of one split card, which has both names (709.4a); 'Sly Spy' twice: one of six
    # cards each time, maybe not the same one (null: not known); 'Sly Spy' and 'Lightning Bolt': different names,
    # so different cards whichever Sly Spy is meant
    one_card = (len(cards) == 1) if None not in cards else (None if answer else False)
    if as_json:
        echo_json({"same_name": answer, "same_card": one_card, "names": names, "rule": "201.2a"})
    elif None in cards:
        shared = "; ".join(
            f"{len(r.candidates)} Oracle cards are named {r.candidates[0].name}" for r in found.values() if not r.ok
        )
        click.echo(
            f"{'same name' if answer else 'different names'}: {names[first]} / {names[second]} "
            f"({shared}: whichever is meant, that is its name, CR 201.2a)"
        )
    elif one_card and answer:
        click.echo(
            f"same name: {first!r} and {second!r} both name the card {cards.pop()}, whose names are {names[first]}"
        )
    elif one_card:
        # Delver of Secrets / Insectile Aberration: two faces of one card, but an object has only the face it shows
        # (CR 712.8a, 712.8d–e; an adventurer, 715.4; an omen card, 720.4), so the names differ (201.2a)
        click.echo(
            f"different names: {first!r} and {second!r} are faces of the one card {cards.pop()}, and an object "
            f"has only one face's name at a time: {names[first]} / {names[second]} (CR 201.2a)"
        )
    else:
        click.echo(f"{'same name' if answer else 'different names'}: {names[first]} / {names[second]}")
    sys.exit(0 if answer else 1)


# -- tokens (CR 111) -----------------------------------------------------------------------------

COPY_MAKERS_SHOWN = 8  # the cards making token copies (CR 707.2) a `token NAME` line shows; --json has them all


@click.command()
@db_option
@click.argument("name", required=False)
@click.option(
    "--collisions",
    is_flag=True,
    help="List names that are both a card (or face) name and a token name; with NAME, only that name's rows.",
)
@click.option(
    "--list",
    "list_all",
    is_flag=True,
    help="List every token name the database knows (predefined, effect-defined, token objects) with "
    "kind and creators (view token_catalog); with NAME, only that name's rows (every kind of it).",
)
@json_option
@friendly_errors
def token(db_path: Path | None, name: str | None, collisions: bool, list_all: bool, as_json: bool) -> None:
    """What "create a NAME token" makes: predefined (CR 111.10), the token effects name and define
    (111.4, 111.9), the Oracle card (111.11), or nothing.

    Exit 0 for a token, 1 when NAME is none of these (with --list: when no token has NAME; with --collisions:
    when NAME is not both a card's and a token's name), 2 for bad usage.
    """
    with open_db(db_path) as db:
        if list_all:
            # with NAME: only that name's rows, every kind of it (predefined, effect, object)
            frame = db.token_list(name)
            if as_json:
                echo_json(frame.to_dicts())
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
            frame = db.token_collisions(name)  # with NAME: only that name's rows, never every collision
            if as_json:
                echo_json(frame.to_dicts())
            elif frame.is_empty() and name is not None:
                click.echo(
                    f"{name!r} is not both a card name and a token name; `oracle-tools token {name!r}` says what "
                    "it makes."
                )
            else:
                for row in frame.iter_rows(named=True):
                    click.echo(f"[{row['token_source']} {row['token_rule']}] {row['what']}")
            if frame.is_empty() and name is not None:
                sys.exit(1)
            return
        if name is None:
            raise click.UsageError("give a NAME, or --list, or --collisions")
        answer = db.token(name)
    if as_json:
        echo_json(answer.to_dict())
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
        if answer.copy_makers:  # CR 707.2: token copies, each with what its effect adds (707.9a)
            makers = [
                m["creator"] + (f" ({m['adds']})" if m["adds"] else "") for m in answer.copy_makers[:COPY_MAKERS_SHOWN]
            ]
            more = len(answer.copy_makers) - len(makers)
            click.echo(
                f"token copies (CR 707.2) made by: {'; '.join(makers)}"
                + (f"; and {more} more (--json)" if more else "")
            )
        for note in answer.notes:
            click.echo(f"note: {note}")
    else:
        click.echo(
            f"{name!r}: no token. {answer.reason}."
            + (
                f" {did_you_mean(answer.suggestions, sentence=True)}"
                if answer.suggestions
                else " No token name is close to it."
            )
        )
    sys.exit(0 if answer.ok else 1)


# -- name references in Oracle text (CR 201.5, 201.5c) -------------------------------------------


@click.command("refs")
@db_option
@click.argument("name")
@json_option
@friendly_errors
def refs(db_path: Path | None, name: str, as_json: bool) -> None:
    """How NAME's Oracle text refers to itself (CR 201.5 full name, 201.5c shortened name, "named X",
    token names) and every card whose text names it (table name_references)."""
    with open_db(db_path) as db:
        answer = db.references(name)
    if as_json:
        echo_json(answer)
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


# -- choosing a card name (CR 201.4) -----------------------------------------------------------


class _ChooseNameCommand(click.Command):
    """choose-name, whose --help ends with the constraint phrases and grammar (read only when help is asked)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from oracle_tools.text.constraints import help_text

        super().format_epilog(ctx, formatter)
        formatter.write_paragraph()
        for line in help_text().splitlines():
            formatter.write(f"  {line}\n" if line else "\n")


@click.command("choose-name", cls=_ChooseNameCommand)
@db_option
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
@json_option
@friendly_errors
def choose_name(
    db_path: Path | None, name: str | None, phrase: str | None, card: str | None, as_list: bool, as_json: bool
) -> None:
    """CR 201.4: may NAME be chosen for "choose a [constraint] card name"? Exit 0 yes, 1 no, 2 bad usage.

    \b
    oracle-tools choose-name "Fire // Ice" --constraint nonland      (no: 201.4b, choose a half)
    oracle-tools choose-name "Razorgrass Field" --card "Meddling Mage"
    oracle-tools choose-name --constraint "nonartifact, nonland" --list
    """
    from oracle_tools.errors import ConstraintCardError

    if phrase is not None and card is not None:
        raise click.UsageError("give --constraint PHRASE or --card CARDNAME, not both")
    if phrase is not None and not phrase.strip():  # never read silently as "any card name"
        raise click.UsageError(
            'the --constraint phrase is empty: give one such as "nonland", or leave the option out for any card name'
        )
    if as_list and name is not None:
        raise click.UsageError("--list lists every valid name; give no NAME with it")
    if not as_list and name is None:
        raise click.UsageError("give a NAME to judge, or --list")
    with open_db(db_path) as db:
        try:
            if as_list and as_json:
                echo_json(db.nameable_rows(constraint=phrase, card=card))
                return
            if as_list:
                frame = db.nameable(db.constraint_for(phrase, card).constraint)
                for listed in frame.get_column("name").unique(maintain_order=True).to_list():
                    click.echo(listed)
                return
            assert name is not None  # checked above: a NAME, or --list
            report = db.choose_name_report(name, constraint=phrase, card=card)
        except ConstraintCardError as exc:  # said with this command's options
            raise OracleToolsError(exc.worded("--card", "--constraint PHRASE")) from None
    verdict = report.verdict
    if as_json:
        echo_json(report.to_dict())
    else:
        click.echo(f"{'valid' if verdict.valid else 'not valid'} ({verdict.rule}): {verdict.reason}")
        if verdict.valid and len(verdict.chosen) > 1:
            click.echo(f"chosen: {', '.join(verdict.chosen)}")
    sys.exit(0 if verdict.valid else 1)
