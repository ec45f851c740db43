"""The ``oracle-tools`` program: what the console script (pyproject's ``[project.scripts]``) and ``python -m
oracle_tools`` run. It imports nothing heavy: Ctrl-C (or SIGTERM) is one line from its first moment
(:func:`~oracle_tools.store.stopping.exit_at_once_on_signals`), also while the command line imports click, DuckDB
and Polars, which takes a few hundred milliseconds; the command's group takes over when the command starts."""

from __future__ import annotations


def main() -> None:
    """Run the ``oracle-tools`` command line on the process's own arguments."""
    from oracle_tools.store.stopping import exit_at_once_on_signals

    exit_at_once_on_signals()
    from oracle_tools.interfaces.cli import main as command_line

    command_line(prog_name="oracle-tools")
