"""``oracle-tools search``: Scryfall's query language (oracle_tools/search/, docs/search.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from oracle_tools.errors import OracleToolsError
from oracle_tools.interfaces.cli_common import (
    db_option,
    echo_csv,
    echo_error,
    echo_json,
    friendly_errors,
    json_option,
    one_output_format,
    open_db,
)
from oracle_tools.text.counts import counted

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

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The keyword list, from the search engine's one table of keywords (oracle_tools/search/keywords.py), read
        only when the help is shown."""
        from oracle_tools.search.keywords import help_rows

        with formatter.section("Keywords (docs/search.md)"):
            formatter.write_dl(help_rows())
        super().format_epilog(ctx, formatter)


@click.command("search", cls=_QueryWordsCommand)
@db_option
@click.argument("query_words", metavar="QUERY...", nargs=-1, required=True)
@json_option
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
    help="One row per card, per printing, or per illustration (unique: in the query wins).",
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
@friendly_errors  # a damaged --db is said as every command says it, wherever DuckDB meets the damage
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
    from oracle_tools.errors import SearchSyntaxError

    one_output_format(as_json, as_csv)
    query = " ".join(query_words)
    try:
        with open_db(db_path) as db:
            if as_json:
                echo_json(db.search_list(query, unique=unique, order=order, direction=direction, limit=limit))
                return
            columns, rows, total = db.search_rows(query, unique=unique, order=order, direction=direction)
            shown = rows[:limit] if limit is not None else rows
            for warning in db.search_warnings(query):  # printings whose files lack a field a term reads
                echo_error(f"warning: {warning}")
    except SearchSyntaxError as exc:
        echo_error(f"error: {exc}")
        if exc.query:
            click.echo(exc.caret(), err=True)
        sys.exit(2)
    except OracleToolsError as exc:
        echo_error(f"error: {exc}")
        sys.exit(2)
    wanted = ["name", "mana_cost", "type_line"] + (
        ["set", "collector_number"]
        if unique != "cards" or "unique:" in query.lower() or "++" in query or "@@" in query
        else []
    )
    if as_csv:
        echo_csv(columns, shown)
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
        click.echo(f"{counted(total, 'card')}{more}", err=True)
    if total == 0:
        if not as_csv:
            click.echo("0 cards", err=True)  # say so (stderr, like the count line), then exit 1 as grep does
        sys.exit(1)
