"""The ``oracle-tools`` program: what the console script (pyproject's ``[project.scripts]``) and ``python -m
oracle_tools`` run. Importing the command line (click, DuckDB, Polars…) takes a few hundred milliseconds, in which
Ctrl-C printed Python's KeyboardInterrupt traceback: this module imports nothing but :mod:`signal` before its
handlers are in place, and from then until the command starts a signal is one line and exit 128 + its number
(:func:`~oracle_tools.store.stopping.handle_signals_as_usual`, called by the group, takes over)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys


def _exit_at_once(signum: int, frame: object) -> None:
    """Nothing has started yet (the program is importing its libraries): say the signal in one line, worded as the
    command line says it (``stopping.stopped_how``), and exit with 128 + its number at once, wherever the import
    was (no traceback, no half-imported module to unwind, nothing written to undo)."""
    for each in (signal.SIGINT, signal.SIGTERM):
        signal.signal(each, signal.SIG_IGN)  # a second Ctrl-C does not cut the line short
    with contextlib.suppress(Exception):  # a closed or half-written stdout: the line below is what matters
        sys.stdout.flush()  # what --help or --version already wrote is kept
    how = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
    os.write(2, f"error: oracle-tools: {how}\n".encode())
    os._exit(128 + signum)


def main() -> None:
    """Run the ``oracle-tools`` command line on the process's own arguments. A signal the process inherited as
    ignored (a job started with ``&`` by a script ignores SIGINT) stays ignored until the command starts."""
    replaced = {
        signum: signal.signal(signum, _exit_at_once)
        for signum in (signal.SIGINT, signal.SIGTERM)
        if signal.getsignal(signum) in (signal.default_int_handler, signal.SIG_DFL)
    }
    from oracle_tools.interfaces.cli import main as command_line
    from oracle_tools.store.stopping import until_the_command_starts

    until_the_command_starts(_exit_at_once, replaced)
    try:
        command_line(prog_name="oracle-tools")
    except SystemExit as done:
        if done.code in (128 + signal.SIGINT, 128 + signal.SIGTERM):  # stopped by a signal, its line said
            _exit_with(done.code)
        raise


def _exit_with(status: int) -> None:
    """End the process with ``status`` after the exit functions (atexit: the spill folder) and with the output
    flushed, skipping the interpreter's teardown: under ``python -m``, CPython ends a process by killing it with
    SIGINT at the end of that teardown, whatever status it exits with, once a KeyboardInterrupt has escaped code a
    library ran through ``PyRun_*`` (DuckDB's bindings do), so an interrupted command ended by the signal instead of
    its documented status (the line said, exit -2 to a parent that is no shell) about one time in five."""
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)
