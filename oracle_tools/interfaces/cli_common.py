"""The command line's shared parts: the ``--db``/``--json``/time-limit options, the one-line errors
and their exit statuses (the group every command runs in), and the JSON and CSV writers.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import functools
import io
import json
import math
import os
import signal
import sys
import textwrap
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from oracle_tools.db import OracleDB, default_db_path
from oracle_tools.errors import OracleToolsError, printable
from oracle_tools.interfaces.render import blob_text
from oracle_tools.store import sqlfiles, userfiles
from oracle_tools.store.stopping import SignalsNoticed, Stopped, handle_signals_as_usual, raise_stopped, stopped_how


def db_option(func: Callable[..., Any]) -> Callable[..., Any]:
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


def json_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(func)


def one_output_format(as_json: bool, as_csv: bool) -> None:
    """A command that prints JSON or CSV prints one of them: both asked for is a usage error, not one chosen."""
    if as_json and as_csv:
        raise click.UsageError("give --json or --csv, not both")


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def _debug() -> bool:
    """``--debug`` or ``ORACLE_TOOLS_DEBUG=1``: show the traceback behind an error line."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.find_root().meta.get("oracle_tools.debug"):
        return True
    return os.environ.get("ORACLE_TOOLS_DEBUG", "").strip().lower() in ("1", "true", "yes", "on")


def friendly_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn library errors into one line on stderr and exit status 2 (bad input or missing data; 1 for a name
    that names no card, :class:`NameNotFoundError`).

    Every other exception is turned into one line by the group (:class:`OracleToolsGroup`)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            try:
                return func(*args, **kwargs)
            except Exception as exc:  # a damaged --db says so whatever the command asked (exit 2)
                damaged = sqlfiles.damaged_database(exc, kwargs.get("db_path") or default_db_path())
                if damaged is None:
                    raise
                raise damaged from None
        except OracleToolsError as exc:
            _done_with_signals()  # the line is said whole
            if (first := _signal_first(exc)) is not exc:
                raise first from None  # the group says it, with the command's name
            if _debug():
                raise  # the group prints the traceback, then the same line and exit status
            line, status = _error_line(exc, "")
            echo_error(line)
            sys.exit(status)

    return wrapper


#: SIGINT and SIGTERM noticed while the ``oracle-tools`` group runs a command (:meth:`OracleToolsGroup.main`).
_signals = SignalsNoticed()


def _signal_first(exc: BaseException) -> BaseException:
    """What stopped the command: the signal, when one came, whatever exception it caused. DuckDB runs Python's
    handler itself while it connects, loads an extension or plans a query, and makes the KeyboardInterrupt an error
    of its own ("Query interrupted", "an error while initializing the extension"): Ctrl-C is never a bug."""
    signum = _signals.received()
    if signum is None or isinstance(exc, Stopped):
        return exc
    return Stopped(signum)


def _done_with_signals() -> None:
    """The command has ended (its answer written, or its error about to be): a Ctrl-C from here on stops nothing,
    so it is ignored, rather than raising in the middle of the error line or killing the exiting interpreter after
    a complete answer (exit status -2 and no line)."""
    if _signals.active:  # in the main thread, inside OracleToolsGroup.main (which puts the handler back for a test)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if signal.getsignal(signal.SIGTERM) is raise_stopped:  # the program's, not a caller's (store.stopping)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)


def echo_error(line: str) -> None:
    """An ``error:`` or ``warning:`` line on standard error, one line whatever it quotes: the newlines, escape
    sequences and other control characters a path, a name or a file's text brought are shown escaped
    (:func:`~oracle_tools.errors.printable`: ``deck\\nname.txt``), and a 100 kB argument's middle is left
    out (:func:`_shorten`)."""
    click.echo(_shorten(printable(line)), err=True)


def _shorten(line: str, limit: int = 2000) -> str:
    """An error line that quotes a 100 kB argument stays readable: its middle is left out."""
    if len(line) <= limit:
        return line
    keep = limit // 2
    return f"{line[:keep]} … ({len(line) - 2 * keep:,} characters left out) … {line[-keep:]}"


def one_line(text: object, limit: int = 300) -> str:
    """The first line of an exception's text, shortened: an error is one line, whatever the input was."""
    lines = str(text).strip().splitlines()
    first = lines[0] if lines else ""
    return first if len(first) <= limit else first[:limit] + "…"


def _error_line(exc: BaseException, command: str) -> tuple[str, int]:
    """The one line (what failed, what to do) and the exit status for an exception a command raised."""
    again = "rerun with --debug (or ORACLE_TOOLS_DEBUG=1) for the traceback"
    if isinstance(exc, OracleToolsError):
        return f"error: {exc}", exc.exit_status
    if isinstance(exc, KeyboardInterrupt):  # Ctrl-C, or SIGTERM where a command stops on it (store.stopping)
        kept = "; nothing was replaced: the database is as it was" if command == "ingest" else ""
        signum = getattr(exc, "signum", signal.SIGINT)
        return f"error: {command}: {stopped_how(signum)}{kept}", 128 + signum
    if isinstance(exc, MemoryError):
        return f"error: {command}: ran out of memory; close other programs or use a smaller input", 1
    if isinstance(exc, ValueError) and "null byte" in str(exc):  # a path or name with NUL in it
        return f"error: {command}: an argument contains a NUL character, which no file name or card name has", 2
    if isinstance(exc, UnicodeError):
        reason = getattr(exc, "reason", None) or one_line(exc)
        return f"error: {command}: a file or argument is not valid UTF-8 text ({reason}); give UTF-8 text", 1
    if "No space left on device" in str(exc) or (isinstance(exc, OSError) and exc.errno == errno.ENOSPC):
        kept = " Nothing was replaced: the database is as it was." if command == "ingest" else ""
        return f"error: {command}: the disk is full ({one_line(exc)}); free some space or write elsewhere.{kept}", 1
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        return f"error: {command}: {exc.strerror or one_line(exc)}{where}; check the path and its permissions", 1
    if type(exc).__module__.split(".")[0] in ("duckdb", "_duckdb"):
        return (
            f"error: {command}: the database failed ({type(exc).__name__}: {one_line(exc)}); check that --db "
            f"is an oracle-tools database and not being written, or rebuild it with `oracle-tools ingest`; "
            f"{again}"
        ), 1
    return (
        f"error: {command} failed unexpectedly ({type(exc).__name__}: {one_line(exc)}); this is a bug in "
        f"oracle-tools: {again} and report it"
    ), 1


def _command_word(ctx: click.Context) -> str | None:
    """The subcommand a group's context is about to run (click keeps it in its protected arguments until then)."""
    return next(iter(getattr(ctx, "_protected_args", ())), None)


class OracleToolsGroup(click.Group):
    """The ``oracle-tools`` group: any exception of any command (also commands added later) becomes one
    ``error:`` line and a non-zero exit; the traceback shows only under ``--debug`` / ``ORACLE_TOOLS_DEBUG=1``.

    Exit status: 2 for bad usage (click) and OracleToolsError (bad input, missing data), 130 for Ctrl-C,
    1 for anything else. Click's own exceptions (usage errors, --help, exit codes) pass through unchanged.
    """

    group_class = type  # `@click.group(cls=OracleToolsGroup)` groups (deck) are one too: errors name the whole command, "deck check"

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        """Click's own errors (an unknown option, a missing argument) in the one error style: one ``error: …``
        line like every other error, ending with where the help is, with click's exit status (2)."""
        given = args[0] if args else kwargs.get("args")
        # Called with the process's own arguments (the installed command, `python -m`), it is the program: a Ctrl-C
        # after the command ended stays ignored until the process exits; called with arguments (a test, a
        # caller's own process), the handler in place before is put back.
        in_main_thread = threading.current_thread() is threading.main_thread()
        previous = (
            {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)} if in_main_thread else {}
        )
        try:
            with _signals:
                return self._main(*args, standalone_mode=standalone_mode, **kwargs)
        finally:
            if given is not None or not standalone_mode:
                for signum, handler in previous.items():
                    signal.signal(signum, handler)

    def _main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        arguments = args[0] if args and args[0] is not None else kwargs.get("args") or sys.argv[1:]
        for number, argument in enumerate(arguments, 1):
            try:
                argument.encode("utf-8")
            except UnicodeEncodeError as exc:  # bytes that are no UTF-8 (Python keeps them as surrogates)
                shown = argument.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                byte = ord(argument[exc.start]) - 0xDC00  # surrogateescape keeps byte b as U+DC00 + b
                echo_error(
                    f"error: argument {number} ({shown}) is not valid UTF-8 text (byte 0x{byte:02x} at "
                    f"position {exc.start}); give UTF-8 text, or check the encoding of the terminal or script "
                    "that passed it"
                )
                sys.exit(2)
        try:
            super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        except click.exceptions.Exit as done:
            sys.exit(done.exit_code)
        except click.ClickException as exc:
            # A group given no command (`oracle-tools`, `oracle-tools deck`): click 8.2+ raises the group's help as
            # a usage error (exit 2, help on standard error); it is shown as the lines `-h` prints, not one escaped
            # error line. (Click 8.1 printed it itself and exited 0.)
            if isinstance(exc, getattr(click.exceptions, "NoArgsIsHelpError", ())):
                exc.show()
                sys.exit(exc.exit_code)
            line = f"error: {exc.format_message()}"
            if isinstance(exc, click.UsageError) and exc.ctx is not None:
                # one line, as every error is: the way to the help inside it, not click's usage lines around it
                line += f" (try '{exc.ctx.command_path} {exc.ctx.help_option_names[0]}' for help)"
            echo_error(line)
            sys.exit(exc.exit_code)
        except click.exceptions.Abort as exc:
            if isinstance(exc.__cause__, KeyboardInterrupt):  # Ctrl-C while click read the arguments
                line, status = _error_line(_signal_first(exc.__cause__), "oracle-tools")
                echo_error(line)
                sys.exit(status)
            click.echo("error: aborted", err=True)
            sys.exit(1)
        sys.exit(0)

    #: The commands that may answer without DuckDB (names/stored.py): its core is not imported before them.
    _WITHOUT_DUCKDB = frozenset({"resolve"})

    def invoke(self, ctx: click.Context) -> Any:
        try:
            try:
                if _command_word(ctx) not in self._WITHOUT_DUCKDB:
                    with contextlib.suppress(ImportError):  # a DuckDB release without its compiled core
                        # DuckDB's compiled core initialises while the program still exits at once on a signal: a
                        # Ctrl-C inside that initialisation, raised as KeyboardInterrupt, aborted the process
                        # ("Critical nanobind error", exit -6). --help and --version end before this and import
                        # nothing; `resolve` answers from the names file without DuckDB when it can (when it cannot,
                        # store.sqlfiles.engine imports the core with the signals held).
                        import _duckdb  # noqa: F401
                handle_signals_as_usual()  # the program exited at once on a signal until now (interfaces/program.py)
                return super().invoke(ctx)
            finally:
                _done_with_signals()  # the command has ended, its answer given (exit statuses too) or failed
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except BrokenPipeError:
            raise  # click closes quietly when the reader of the output went away (| head)
        except BaseException as exc:  # KeyboardInterrupt gets its line too
            if isinstance(exc, GeneratorExit):
                raise
            _done_with_signals()  # again, if the signal's own handler cut the first short
            exc = _signal_first(exc)
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
            echo_error(line)
            sys.exit(status)


def seconds_option(name: str, default: float, maximum: float, help: str) -> Callable[[Any], Any]:
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


def memory_size(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A size as DuckDB reads it (500MB, 4GB, 1.5GiB)."""
    import re

    if not re.fullmatch(r"\s*\d+(\.\d+)?\s*([KMGT]i?B|B)\s*", value, re.IGNORECASE) or not float(
        re.match(r"\s*([\d.]+)", value).group(1)  # type: ignore[union-attr]
    ):
        raise click.BadParameter(f"{value!r} is not a size; give one such as 500MB or 4GB", ctx, param)
    return value.strip()


def check_name(name: str) -> None:
    """A name argument that can be no card name is bad input (exit 2), as ``token ""`` is, not a miss."""
    from oracle_tools.names.resolver import MAX_NAME_CHARS

    if not name.strip():
        raise OracleToolsError("empty card name; give a name such as 'Lightning Bolt' or 'Fire // Ice'")
    if len(name) > MAX_NAME_CHARS:
        raise OracleToolsError(
            f"a name of {len(name):,} characters is no card name (at most {MAX_NAME_CHARS:,} are taken); "
            "check the argument"
        )


def open_db(db_path: Path | None) -> OracleDB:
    return OracleDB(db_path or default_db_path())


def echo_csv(columns: list[str], rows: Iterable[tuple[Any, ...]]) -> None:
    """CSV with a header; a list value is joined with '|' (one cell per value)."""
    stream_csv(columns, iter([list(rows)]))


def stream_csv(columns: list[str], batches: Iterable[list[tuple[Any, ...]]]) -> None:
    """:func:`echo_csv` written batch by batch (``sql --csv`` of millions of rows)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")  # LF, as every other CSV the tool writes (export, resolve)
    writer.writerow(columns)
    for rows in batches:
        for row in rows:
            writer.writerow(
                [
                    "|".join(map(str, v)) if isinstance(v, list) else blob_text(v) if isinstance(v, bytes) else v
                    for v in row
                ]
            )
        click.echo(buffer.getvalue(), nl=False)
        buffer.seek(0)
        buffer.truncate()
    click.echo(buffer.getvalue(), nl=False)


def _json_value(value: Any) -> Any:
    """A value JSON can hold: NaN and ±Infinity (no JSON numbers) become null, in lists and structs too; a BLOB is
    DuckDB's own text form of it (render.blob_text; was Python's ``b'…'``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, bytes):
        return blob_text(value)
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    return value


def stream_json(columns: list[str], batches: Iterable[list[tuple[Any, ...]]]) -> None:
    """The rows as a JSON array of objects, as :func:`echo_json` prints it, written batch by batch."""
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
