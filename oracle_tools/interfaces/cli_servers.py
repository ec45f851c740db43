"""``oracle-tools serve`` (the HTTP API and web page) and ``oracle-tools mcp`` (MCP tools over stdio)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from oracle_tools.db import OracleDB, default_db_path
from oracle_tools.interfaces.cli_common import (
    db_option,
    friendly_errors,
    seconds_option,
)
from oracle_tools.store.sqlfiles import SERVED_QUERY_TIMEOUT

# -- HTTP server (oracle_tools/interfaces/serve/, docs/serve.md) -----------------------------------------------


@click.command("serve")
@db_option
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
@seconds_option(
    "--query-timeout", SERVED_QUERY_TIMEOUT, 3_600, "Stop a search that runs longer than this (answered 422)."
)
@click.option(
    "--warm/--no-warm",
    default=True,
    show_default=True,
    help="Build every card's Scryfall object, the name index and the deck rules in the background at start, so "
    "first answers are quick (on the full real data: about 10 s of CPU and 500 MB of memory). --no-warm builds "
    "each when a request first needs it: a lighter server for a few lookups.",
)
@click.option(
    "--links",
    type=click.Choice(["server", "scryfall"]),
    default="server",
    show_default=True,
    help="How answers write their links (uri, next_page, set_uri …): server, this server's address; scryfall, "
    "Scryfall's (https://api.scryfall.com/…), for clients that follow only those and send them to the base URL "
    "they were given, such as scryfall-client (npm).",
)
@friendly_errors
def serve_command(
    db_path: Path | None, host: str, port: int, workers: int, query_timeout: float, warm: bool, links: str
) -> None:
    """Serve the Scryfall-compatible HTTP API, the rules endpoints and the web page (read-only).

    \b
    curl 'http://127.0.0.1:8765/cards/named?fuzzy=fire%20ice'
    curl 'http://127.0.0.1:8765/names/resolve?q=Foudre'
    curl --data-binary @deck.txt 'http://127.0.0.1:8765/decks/check?format=modern'

    A re-ingest of the database is picked up on the next request (or on SIGHUP). Stop with Ctrl-C.
    """
    from oracle_tools.interfaces import serve as _serve

    if _serve.arenas_unbounded() and _this_process_is_the_command():
        # glibc's arena limit holds only when set before the first thread: run again so
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, sys.orig_argv, {**os.environ, "MALLOC_ARENA_MAX": str(_serve.MALLOC_ARENAS)})
    path = db_path or default_db_path()
    OracleDB(path).con.close()  # a missing database is one clear error line, before the server starts
    _serve.check_address(host, port)  # so is a host it cannot resolve or a port in use
    for note in _serve.address_notes(host, port):  # a privileged port bound as root, a host others can reach
        click.echo(note, err=True)
    from oracle_tools.interfaces.serve.searches import QUERY_TIMEOUT_ENV

    os.environ[QUERY_TIMEOUT_ENV] = str(query_timeout)  # read per search, in every worker process

    def announce(url: str) -> None:  # once the socket is bound: the port bound (--port 0: the one the system chose)
        click.echo(f"serving {url} from {path} (read-only); Ctrl-C stops", err=True)

    _serve.run(path, host=host, port=port, workers=workers, warm=warm, announce=announce, links=links)


# -- MCP server (oracle_tools/interfaces/mcp_server.py) -----------------------------------------------------


@click.command("mcp")
@db_option
@seconds_option(
    "--query-timeout", SERVED_QUERY_TIMEOUT, 3_600, "Stop a search tool call that runs longer than this (a tool error)."
)
@friendly_errors
def mcp_command(db_path: Path | None, query_timeout: float) -> None:
    """Serve search, resolve, token, choose_name, list_nameable and check_deck as tools of a Model
    Context Protocol server over stdio (for AI assistants). Each tool returns the JSON of the
    matching --json command. Runs until the client closes stdin.
    """
    from oracle_tools.interfaces import mcp_server

    mcp_server.run(db_path or default_db_path(), query_timeout=query_timeout)


def _this_process_is_the_command() -> bool:
    """Whether this process was started as ``oracle-tools serve`` (the console script, ``python -m oracle_tools`` or
    ``python -m oracle_tools.interfaces.cli``), so that running its own arguments again runs the server again. The
    command called inside another program (click's CliRunner in a test, a notebook) must not replace that
    program's process."""
    program = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path()
    ours = program.name == "oracle-tools" or (
        program.name in ("cli.py", "__main__.py") and program.parent.name in ("oracle_tools", "interfaces")
    )
    return ours and "serve" in sys.argv[1:]
