"""Stopping long DuckDB work on Ctrl-C (SIGINT) or SIGTERM at once.

Python runs a signal handler only when the main thread executes Python code again; while it waits inside one
long DuckDB statement (a nested-loop join, a bulk file's read) DuckDB asks for pending signals only between its
tasks, which can be minutes apart, so the handler — and any ``interrupt()`` it calls — waits too. Here the C-level
handler's wake-up byte (:func:`signal.set_wakeup_fd`) is read by a thread of its own, which calls the interrupts
at once; DuckDB's ``interrupt()`` is then seen within milliseconds, and the main thread's handler raises
:class:`Stopped` when it next runs (a Python step stops there too).

>>> with StopOnSignals() as stop:            # doctest: +SKIP
...     stop.add(con.interrupt)
...     con.execute(long_query)               # Ctrl-C: the query ends, Stopped is raised
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Callable
from typing import Any

#: The signals :class:`StopOnSignals` stops on.
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopped(KeyboardInterrupt):
    """The work was stopped by a signal (``signum``): a KeyboardInterrupt, so what does not know it stops as on
    Ctrl-C; its exit status is 128 + the signal's number (130 for SIGINT, 143 for SIGTERM)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


class StopOnSignals:
    """While entered (in the main thread; elsewhere it does nothing): SIGINT and SIGTERM call every interrupt
    :meth:`add` registered, at once from a thread of its own, and raise :class:`Stopped` in the main thread.
    The first signal stops the work; the handlers in place before are put back on exit. A SIGINT the process
    inherited as ignored (a job started with ``&`` by a script) stops it too: the signal was sent to stop it."""

    def __init__(self) -> None:
        self.received: int | None = None
        self.armed = True  # False: a signal is remembered but nothing is stopped (the work is finishing)
        self._interrupts: list[Callable[[], object]] = []
        self._previous: dict[int, Any] = {}
        self._previous_fd = -1
        self._sockets: tuple[socket.socket, socket.socket] | None = None
        self._thread: threading.Thread | None = None

    def add(self, interrupt: Callable[[], object]) -> None:
        """Call ``interrupt`` (such as a connection's ``interrupt``) when a signal comes."""
        self._interrupts.append(interrupt)
        if self.received is not None and self.armed:
            interrupt()

    def _interrupt_all(self) -> None:
        for interrupt in list(self._interrupts):
            with contextlib.suppress(Exception):  # a connection already closed has nothing to stop
                interrupt()

    def _handler(self, signum: int, frame: object) -> None:
        if self.received is None:
            self.received = signum
        if self.armed:
            self._interrupt_all()
            raise Stopped(self.received)

    def _watch(self, reader: socket.socket) -> None:
        while True:
            try:
                data = reader.recv(64)
            except OSError:
                return
            if not data:
                return
            for byte in data:
                if byte in SIGNALS and self.received is None:
                    self.received = byte
            if self.received is not None and self.armed:
                self._interrupt_all()

    def __enter__(self) -> StopOnSignals:
        if threading.current_thread() is not threading.main_thread():
            return self
        reader, writer = socket.socketpair()
        writer.setblocking(False)
        self._sockets = (reader, writer)
        self._previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        for signum in SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handler)
        self._thread = threading.Thread(target=self._watch, args=(reader,), name="stop-on-signals", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if self._sockets is None:
            return
        self._restore()
        if (
            isinstance(exc, Exception | KeyboardInterrupt)
            and not isinstance(exc, Stopped)
            and self.received is not None
        ):
            # The work stopped on the interrupt the watching thread called (a query's error made KeyboardInterrupt,
            # sqlfiles.QueryStop) before the handler raised in the main thread, or DuckDB caught the handler's
            # Stopped and raised its own error ("Query interrupted", an extension that failed to load): it is still
            # the signal's stop.
            raise Stopped(self.received) from None

    def _restore(self) -> None:
        if self._sockets is None:
            return
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        signal.set_wakeup_fd(self._previous_fd)
        reader, writer = self._sockets
        writer.close()
        reader.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=1)
        reader.close()
        self._sockets = None


class SignalsNoticed:
    """While entered (in the main thread; elsewhere it notices nothing): remembers whether SIGINT or SIGTERM came,
    without handling them: the handlers in place stay (Ctrl-C still raises KeyboardInterrupt where it lands).

    Python's C-level handler writes the signal's number to the wake-up file (:func:`signal.set_wakeup_fd`) the
    moment the signal comes, before any Python code runs: when DuckDB runs the handler itself and makes its
    KeyboardInterrupt an error of its own ("Query interrupted", an extension that "failed to initialize"),
    :meth:`received` still says the signal came, with no race. A :class:`StopOnSignals` entered inside has its own
    wake-up file meanwhile (and turns what its signal caused into :class:`Stopped` itself)."""

    def __init__(self) -> None:
        self._first: int | None = None
        self._previous_fd = -1
        self._sockets: tuple[socket.socket, socket.socket] | None = None

    @property
    def active(self) -> bool:
        """Entered (in the main thread) and not yet left."""
        return self._sockets is not None

    def received(self) -> int | None:
        """The first of :data:`SIGNALS` that came since entering, else None."""
        if self._sockets is not None:
            with contextlib.suppress(OSError):  # BlockingIOError: nothing (more) came
                while data := self._sockets[0].recv(64):
                    for byte in data:
                        if byte in SIGNALS and self._first is None:
                            self._first = byte
        return self._first

    def __enter__(self) -> SignalsNoticed:
        self._first = None
        if threading.current_thread() is not threading.main_thread():
            return self
        reader, writer = socket.socketpair()
        reader.setblocking(False)
        writer.setblocking(False)
        self._sockets = (reader, writer)
        self._previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if self._sockets is None:
            return
        self.received()
        signal.set_wakeup_fd(self._previous_fd)
        for end in self._sockets:
            end.close()
        self._sockets = None


def stopped_how(signum: int) -> str:
    """How an error line says the signal ``signum`` ended a command: "interrupted" (Ctrl-C), else "stopped by
    SIGTERM" (docs/cli.md's exit table)."""
    return "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"


#: The program's handler of the moments before its command starts, and the handlers it replaced
#: (:func:`until_the_command_starts`).
_starting: tuple[Callable[[int, Any], object] | None, dict[signal.Signals, Any]] = (None, {})


def until_the_command_starts(handler: Callable[[int, Any], object], replaced: dict[signal.Signals, Any]) -> None:
    """``handler`` is in place of each handler of ``replaced`` (by signal) while the program starts
    (interfaces/program.py: it imports the command line, which takes a few hundred milliseconds, and exits with
    one line on a signal); :func:`handle_signals_as_usual` puts them back when the command starts."""
    global _starting
    _starting = (handler, dict(replaced))


def handle_signals_as_usual() -> None:
    """The command starts: the handlers the program replaced while it started are put back (Ctrl-C raises
    KeyboardInterrupt, which the command's group turns into its line), and SIGTERM, where it would end the
    process without a word, raises :class:`Stopped` as Ctrl-C does: every command ends on it with the same one
    line and exit 143 (``ingest`` and ``sql`` stop their DuckDB work on it at once, :class:`StopOnSignals`).
    Nothing happens when none were replaced (a test, a caller's own process)."""
    global _starting
    handler, replaced = _starting
    for signum, before in replaced.items():
        if signal.getsignal(signum) is handler:
            signal.signal(signum, raise_stopped if signum == signal.SIGTERM and before == signal.SIG_DFL else before)
    _starting = (None, {})


def raise_stopped(signum: int, frame: object) -> None:
    """SIGTERM in a command that does not stop on it itself: raised as Ctrl-C's KeyboardInterrupt is."""
    raise Stopped(signum)
