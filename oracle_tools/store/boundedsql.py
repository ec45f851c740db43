"""A user's ``sql`` query run in a child process the operating system bounds.

DuckDB's ``memory_limit`` covers its buffer pool, not every allocation (a ``repeat(name, 20000)`` over a cross join
took 8 GB under a 2 GB limit), and its ``interrupt()`` is seen only between tasks (such a query ran 16-44 s past a
3 s ``--timeout``). So the query runs in a child (``sys.executable``) whose address space is limited
(``RLIMIT_AS``: what the child has mapped once connected, plus ``--memory-limit``, plus :data:`ALLOWANCE` for the
threads' stacks and allocator arenas a query adds) and which is killed :data:`GRACE` seconds after the timeout.
The sandbox is the same (:func:`~oracle_tools.store.sqlfiles.sandboxed_connection`); rows come back pickled, in
batches, over the child's standard output. The parent checks the statement first (read-only, one statement) so a
refusal costs no child.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from oracle_tools.errors import OracleToolsError, OutOfMemory

#: Address space a query may map beyond its --memory-limit and what the child holds once connected: DuckDB's
#: worker threads' stacks and malloc arenas and the batches being pickled. Measured: `SELECT 1`, a 1,000-row
#: read, a GROUP BY over every printing of the real database and a sort of it map 26-41 MB more than the
#: connected child (about 250 MB with MALLOC_ARENA_MAX=2).
ALLOWANCE = 512 * 1024 * 1024
#: Seconds past --timeout before the child is killed (DuckDB's own interrupt usually ends the query first, and
#: its "ran longer" line is the same).
GRACE = 1.0
#: Seconds the child may take to start, import and connect before the parent kills it (a bound on a start that
#: hangs, not a measure): --timeout is the query's time, counted from the child's "started" message, since on a
#: loaded machine the start alone took over a 1 s --timeout plus the grace.
STARTUP = 60.0
#: Rows per message of ``--csv``/``--json`` output.
BATCH_ROWS = 10_000

_UNITS = {"B": 1, "KB": 1000, "MB": 1000**2, "GB": 1000**3, "TB": 1000**4}
_UNITS.update({"KIB": 1024, "MIB": 1024**2, "GIB": 1024**3, "TIB": 1024**4})


def size_bytes(size: str) -> int:
    """Bytes of a DuckDB size ("2GB" is 2·10⁹, "1.5GiB" 1.5·2³⁰)."""
    import re

    found = re.fullmatch(r"\s*([\d.]+)\s*([KMGT]?i?B)\s*", size, re.IGNORECASE)
    if found is None or found.group(2).upper() not in _UNITS:
        raise OracleToolsError(f"{size!r} is not a size; give one such as 500MB or 4GB")
    return int(float(found.group(1)) * _UNITS[found.group(2).upper()])


class BoundedQuery:
    """One query in a bounded child: :meth:`rows` (the table's first rows and the count) or :meth:`stream` (every
    row, in batches). :meth:`kill` (Ctrl-C, SIGTERM: give it to ``StopOnSignals.add``) ends the child at once."""

    def __init__(self, path: str | os.PathLike[str], *, memory_limit: str, timeout: float | None) -> None:
        self.path = os.fspath(path)
        self.memory_limit = memory_limit
        self.timeout = timeout
        self.stopped: str | None = None  # "timeout", "startup" (killed before its query began) or "interrupted"
        self._started = False  # the child said its query began (the kill is then timed from there)
        self._proc: Any = None
        self._timer: Any = None
        self.pid: int | None = None  # the child's, once started
        self._stderr: Any = None
        self._spill: str | None = None  # the child's spill folder: the parent's to remove, the child may be killed

    def child_timeout(self) -> float | None:
        """The timeout the child itself keeps (DuckDB's interrupt): the parent's kill is the bound behind it."""
        return self.timeout

    # -- the parent ---------------------------------------------------------------------------------------------

    def rows(self, query: str, params: Sequence[Any] | None, *, limit: int) -> tuple[list[str], list[Any], int]:
        messages = self._start({"mode": "rows", "query": query, "params": list(params or []), "limit": limit})
        try:
            message = self._next(messages)
            return message[1], message[2], message[3]
        finally:
            self.close()

    def stream(self, query: str, params: Sequence[Any] | None) -> tuple[list[str], Iterator[list[Any]]]:
        messages = self._start({"mode": "stream", "query": query, "params": list(params or [])})
        try:
            columns = self._next(messages)[1]  # the query's errors come here, before any output
        except BaseException:
            self.close()
            raise
        return columns, self._batches(messages)

    def _batches(self, messages: Iterator[Any]) -> Iterator[list[Any]]:
        try:
            while (message := self._next(messages))[0] == "batch":
                yield message[1]
        finally:
            self.close()

    def _start(self, request: dict[str, Any]) -> Iterator[Any]:
        import subprocess
        import tempfile

        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close() or _said()
        self._spill = tempfile.mkdtemp(prefix="oracle-tools-spill-")
        request.update(path=self.path, memory_limit=self.memory_limit, timeout=self.child_timeout(), spill=self._spill)
        env = {**os.environ, "MALLOC_ARENA_MAX": "2"}  # glibc reserves 64 MB of address space per arena
        self._proc = subprocess.Popen(
            # -P: the current folder is not on the path (a folder named oracle_tools there is not imported)
            [sys.executable, "-P", "-c", "from oracle_tools.store.boundedsql import child; child()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,  # the child reports errors through its output; this keeps what a crash said
            env=env,
        )
        self.pid = self._proc.pid
        self._arm(STARTUP)  # until the child says it started its query (_next re-arms it for the query)
        assert self._proc.stdin is not None and self._proc.stdout is not None
        try:
            pickle.dump(request, self._proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self._proc.stdin.close()
        except OSError:
            pass  # the child ended already: its end is read below
        return self._messages(self._proc.stdout)

    def _arm(self, extra: float) -> None:
        """(Re)start the kill at --timeout plus the grace plus ``extra`` seconds from now (none without a timeout)."""
        import threading

        if self._timer is not None:
            self._timer.cancel()
        if self.timeout:
            self._timer = threading.Timer(self.timeout + GRACE + extra, self._deadline)
            self._timer.daemon = True
            self._timer.start()

    def _messages(self, stdout: Any) -> Iterator[Any]:
        while True:
            try:
                yield pickle.load(stdout)
            except (EOFError, pickle.UnpicklingError, OSError):
                yield ("ended",)
                return

    def _next(self, messages: Iterator[Any]) -> Any:
        message = next(messages)
        if message[0] == "started":  # connected, the query's time begins: the child keeps it, the kill is behind it
            self._started = True
            self._arm(0.0)
            message = next(messages)
        kind = message[0]
        if kind in ("rows", "columns", "batch", "end"):
            return message
        if kind == "error":
            raise message[1]
        if kind == "memory":
            raise self.out_of_memory()
        # the child ended without an answer: killed at the deadline or on a signal, or it ran out of address space
        status = self.close(keep_stderr=True)
        said = self._said()
        if self.stopped == "interrupted":
            raise KeyboardInterrupt
        if self.stopped == "timeout":
            raise self.timed_out()
        if self.stopped == "startup":  # no query ran: not "the query ran longer than --timeout"
            bound = (self.timeout or 0) + GRACE + STARTUP
            raise OracleToolsError(
                f"the query's process did not start within {bound:g} s (its Python, its imports or its connection to "
                "the database hung) and was stopped; try again"
            )
        if (status is not None and status < 0) or "MemoryError" in said or "bad_alloc" in said:
            raise self.out_of_memory()  # a failed allocation aborts (SIGABRT) or faults where no error is raised
        raise OracleToolsError(f"the query's process ended without an answer (exit status {status}): {said}")

    def _said(self) -> str:
        """The child's last line on its standard error (a crash's), if any."""
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        lines = self._stderr.read()[-4096:].decode("utf-8", "replace").strip().splitlines()
        self._stderr.close()
        self._stderr = None
        return lines[-1] if lines else "it said nothing"

    def _deadline(self) -> None:
        self.stopped = self.stopped or ("timeout" if self._started else "startup")
        self.kill()

    def interrupt(self) -> bool:
        """Ctrl-C or SIGTERM: kill the child; False when none runs."""
        if self._proc is None:
            return False
        self.stopped = self.stopped or "interrupted"
        self.kill()
        return True

    def kill(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()

    def close(self, *, keep_stderr: bool = False) -> int | None:
        """End the child (killed if still running) and wait for it: no process is left behind. Its exit status
        (negative: the signal that ended it), or None when none ran."""
        if self._timer is not None:
            self._timer.cancel()
        proc = self._proc
        if proc is None:
            return None
        self.kill()
        status = proc.wait()
        if self._spill is not None:  # the child is gone: nothing writes there now
            import shutil

            shutil.rmtree(self._spill, ignore_errors=True)
            self._spill = None
        if proc.stdout is not None:
            proc.stdout.close()
        if self._stderr is not None and not keep_stderr:
            self._stderr.close()
            self._stderr = None
        self._proc = None
        return status

    def timed_out(self) -> OracleToolsError:
        from oracle_tools.store.sqlfiles import QueryStop

        stop = QueryStop(self.timeout, what="the query")
        stop.stopped = "timeout"
        reason = stop.reason(RuntimeError())
        assert isinstance(reason, OracleToolsError)
        return reason

    def out_of_memory(self) -> OracleToolsError:
        return OutOfMemory(
            f"the query needs more than --memory-limit {self.memory_limit} of memory and was stopped; narrow it "
            "(a WHERE, a LIMIT) or give it more (--memory-limit 8GB)"
        )


# -- the child -------------------------------------------------------------------------------------------------


def _mapped_bytes() -> int:
    """The address space this process has mapped (VmSize)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _bound_address_space(memory_limit: str) -> None:
    import resource

    limit = _mapped_bytes() + size_bytes(memory_limit) + ALLOWANCE
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _die_with_parent() -> None:
    """The child is killed when the parent dies (Linux ``PR_SET_PDEATHSIG``), however the parent ends."""
    import contextlib
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def child() -> None:
    """The child's main: read the request, run it in the sandbox, write the answer as pickled messages."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides (Ctrl-C reaches the whole process group)
    _die_with_parent()
    out = sys.stdout.buffer
    request = pickle.load(sys.stdin.buffer)

    def send(message: tuple[Any, ...]) -> None:
        pickle.dump(message, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()

    try:
        _answer(request, send)
    except MemoryError:
        send(("memory",))
    except BaseException as exc:
        if _is_memory(exc):
            send(("memory",))
        else:
            send(("error", _portable(exc)))


def _answer(request: dict[str, Any], send: Any) -> None:
    from oracle_tools.store import sqlfiles

    con = sqlfiles.sandboxed_connection(
        request["path"], memory_limit=request["memory_limit"], spill_folder=request["spill"]
    )
    _bound_address_space(request["memory_limit"])
    send(("started",))  # the parent's kill is timed from here, as the query's own timeout is
    stop = sqlfiles.QueryStop(request["timeout"], what="the query")
    params = request["params"] or None
    if request["mode"] == "rows":
        columns, rows, total = sqlfiles.rows(con, request["query"], params, limit=request["limit"], stop=stop)
        send(("rows", columns, rows, total))
        return
    columns, batches = sqlfiles.stream(con, request["query"], params, batch_rows=BATCH_ROWS, stop=stop)
    send(("columns", columns))
    for batch in batches:
        send(("batch", batch))
    send(("end",))


def _is_memory(exc: BaseException) -> bool:
    """Whether ``exc`` says an allocation failed (DuckDB's OutOfMemoryException, or a failed ``new``)."""
    return type(exc).__name__ == "OutOfMemoryException" or "std::bad_alloc" in str(exc)


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling (DuckDB's exceptions, the project's), else an OracleToolsError of its line."""
    try:
        copy = pickle.loads(pickle.dumps(exc))
        if type(copy) is type(exc) and str(copy) == str(exc):
            return exc
    except Exception:
        pass
    return OracleToolsError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
