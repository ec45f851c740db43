"""`sql` runs the user's query in a child process the operating system bounds: an address-space
limit from --memory-limit and a kill at --timeout, whatever DuckDB's own limits miss."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from oracle_tools.errors import OracleToolsError, QueryTimeoutError
from oracle_tools.store.boundedsql import ALLOWANCE, GRACE, BoundedQuery, size_bytes

from processes import child_pids, wait_until_busy

#: The issue's query (its range cut for the sample database): DuckDB's memory_limit does not cover these strings.
#: Before, it reached 8 GB under a 2 GB limit on the real data, and here it answered its row after 1.3 GB resident
#: under --memory-limit 300MB; in the bounded child it stops at about 700 MB.
REPEATED = "SELECT max(length(repeat(a.name, 20000))) FROM printings a, range(10000)"
CROSS_JOIN = "SELECT count(*) FROM range(100000000) a, range(100000) b"  # hours of work
MEMORY_LINE = (
    "error: the query needs more than --memory-limit 300MB of memory and was stopped; narrow it (a WHERE, a LIMIT) "
    "or give it more (--memory-limit 8GB)\n"
)


def _cli(db: Path, *args: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "oracle_tools.interfaces.cli", "sql", *args, "--db", str(db)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended: reaped, or a zombie its new parent has yet to reap (none left running)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def _children_while_running(proc: subprocess.Popen[str] | subprocess.Popen[bytes]) -> set[int]:
    """The children ``proc`` starts, watched until it has one or ends."""
    children: set[int] = set()
    while proc.poll() is None and not children:
        children.update(child_pids(proc.pid))
        time.sleep(0.001)  # a poll of /proc, not a wait for time to pass
    return children


@pytest.mark.parametrize("flag", ["", "--json"])
def test_memory_blow_up_is_bounded_and_one_line(sample_db_path: Path, flag: str) -> None:
    """The repeated strings outgrow --memory-limit 300MB: one line, exit 2, and the whole command (the child
    included, os.wait4 counts reaped descendants) stayed under the bound instead of taking gigabytes."""
    proc = _cli(sample_db_path, REPEATED, "--memory-limit", "300MB", *flag.split())
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 2 and err == MEMORY_LINE, err
    assert out == ""


def _address_space_limit(pid: int) -> int | None:
    """The soft ``RLIMIT_AS`` of process ``pid`` once it has set one (None while unlimited or once it is gone)."""
    try:
        limits = Path(f"/proc/{pid}/limits").read_text()
    except OSError:
        return None
    soft = next(line for line in limits.splitlines() if line.startswith("Max address space")).split()[3]
    return None if soft == "unlimited" else int(soft)


def _resident_peak(pid: int) -> int:
    """The high-water mark of process ``pid``'s resident memory so far (VmHWM), 0 once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    line = next((line for line in status.splitlines() if line.startswith("VmHWM:")), None)
    return int(line.split()[1]) * 1024 if line else 0


def test_memory_blow_up_peak_stays_under_the_limit(sample_db_path: Path) -> None:
    """The child's address space is bounded by what it mapped once connected, --memory-limit and ALLOWANCE (read
    from the child, since its own mapping differs between machines: thread stacks, allocator arenas), and its
    resident peak, watched while it runs, stays under that bound; unbounded, the same query peaked at 1.3 GB and
    answered. (The command's own rusage is no measure: a process forked from a large test process keeps that
    process's resident peak as its own through exec.) The child is gone after."""
    command = [sys.executable, "-m", "oracle_tools.interfaces.cli", "sql", REPEATED, "--memory-limit", "300MB"]
    proc = subprocess.Popen(
        [*command, "--db", str(sample_db_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    children = _children_while_running(proc)
    limit, peak = None, 0
    while not all(_gone(pid) for pid in children):
        for pid in children:
            limit = _address_space_limit(pid) or limit
            peak = max(peak, _resident_peak(pid))
        time.sleep(0.001)  # a poll of /proc, not a wait for time to pass
    _out, err = proc.communicate(timeout=300)
    assert proc.returncode == 2 and err == MEMORY_LINE, err
    assert limit is not None, "the child ended before it was seen bounded"
    mapped = limit - size_bytes("300MB") - ALLOWANCE
    assert 0 < mapped < 1024**3, mapped  # what the connected child had mapped: about 250-400 MB
    assert 0 < peak <= limit, (peak, limit)


class DeafChild(BoundedQuery):
    """A child that keeps no timeout of its own (as a query DuckDB's interrupt() does not reach for seconds)."""

    def child_timeout(self) -> float | None:
        return None


def _the_deaf_childs_runaway_query_is_stopped(db_path: Path) -> None:
    """A runaway query of a :class:`DeafChild` at --timeout 0.5 ends in the timeout's line, and the child is gone."""
    deaf = DeafChild(db_path, memory_limit="500MB", timeout=0.5)
    with pytest.raises(QueryTimeoutError, match=r"^the query ran longer than 0\.5 s and was stopped; narrow it"):
        deaf.rows(CROSS_JOIN, [], limit=50)
    assert deaf.pid is not None and _gone(deaf.pid)


def test_timeout_kills_the_child_even_when_the_query_ignores_its_interrupt(sample_db_path: Path) -> None:
    """A child that keeps no timeout of its own: the parent kills it at --timeout plus the grace and answers the
    timeout's line; the child is gone."""
    _the_deaf_childs_runaway_query_is_stopped(sample_db_path)


def test_a_slow_start_of_the_child_is_not_the_querys_time(
    sample_db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--timeout bounds the query, not the start of the process that runs it: on a loaded machine the child's
    Python, its imports and its connection took over the 1 s --timeout plus the grace, and the parent's kill,
    timed from the child's spawn, answered "the query ran longer than 1 s" for a query of milliseconds. The child
    here starts slowly (a sitecustomize that holds its start past the parent's old deadline) and its query
    answers; a query that does run too long is still stopped at its --timeout."""
    hold = 3 * (0.5 + GRACE)  # past the deadline a kill timed from the spawn had
    (tmp_path / "sitecustomize.py").write_text(f"import time\ntime.sleep({hold})\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    bounded = BoundedQuery(sample_db_path, memory_limit="500MB", timeout=0.5)
    assert bounded.rows("SELECT count(*) AS n FROM cards WHERE is_card", [], limit=50)[1][0][0] > 0

    _the_deaf_childs_runaway_query_is_stopped(sample_db_path)


def test_a_child_that_never_starts_is_not_said_to_have_run_too_long(
    sample_db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start's bound (STARTUP, past --timeout and the grace) kills a child that never connects; its line says
    so. It said "the query ran longer than 0.5 s", of a query that never began. The child here waits forever before
    its imports (a sitecustomize waiting on an event nothing sets); the start's bound is made 0 for the test."""
    from oracle_tools.store import boundedsql

    (tmp_path / "sitecustomize.py").write_text("import threading\nthreading.Event().wait()\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setattr(boundedsql, "STARTUP", 0.0)
    bounded = BoundedQuery(sample_db_path, memory_limit="500MB", timeout=0.5)
    with pytest.raises(OracleToolsError, match=r"^the query's process did not start within 1\.5 s") as raised:
        bounded.rows("SELECT 1", [], limit=50)
    assert not isinstance(raised.value, QueryTimeoutError)
    assert bounded.pid is not None and _gone(bounded.pid)


def test_timeout_is_one_line_and_no_child_is_left(sample_db_path: Path) -> None:
    proc = _cli(sample_db_path, CROSS_JOIN, "--timeout", "1")
    children = _children_while_running(proc)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and err.startswith("error: the query ran longer than 1 s and was stopped"), err
    assert all(_gone(pid) for pid in children)


@pytest.mark.parametrize(
    ("signame", "status", "said"), [("SIGTERM", 143, "stopped by SIGTERM"), ("SIGINT", 130, "interrupted")]
)
def test_a_signal_kills_the_child(sample_db_path: Path, signame: str, status: int, said: str) -> None:
    proc = _cli(sample_db_path, CROSS_JOIN)
    try:
        wait_until_busy(proc, 2)  # the child is scanning
        children = child_pids(proc.pid)
        proc.send_signal(getattr(signal, signame))
        _out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert children and proc.returncode == status and err == f"error: sql: {said}\n", err
    assert all(_gone(pid) for pid in children)


def test_small_queries_come_back_whole(sample_db_path: Path) -> None:
    """Rows travel back from the child as they were: the table, --json and --csv."""
    proc = _cli(sample_db_path, "SELECT 1 AS n, 'a' AS s, [1, 2] AS l", "--csv")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and out == "n,s,l\n1,a,1|2\n", err


def test_sizes_are_read_as_duckdb_reads_them() -> None:
    assert size_bytes("2GB") == 2 * 1000**3 and size_bytes("1.5GiB") == int(1.5 * 1024**3)
    assert size_bytes(" 500 mb ") == 500 * 1000**2


def test_no_spill_folder_is_left_whether_the_query_answers_times_out_or_outgrows_its_memory(
    sample_db_path: Path, tmp_path: Path
) -> None:
    """The child's spill folder is made and removed by the parent, which outlives it: a child killed at its
    deadline (or at its memory bound, or after its last batch) never runs its own exit to remove it."""
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}
    for args, status in (
        (["SELECT 1 AS n"], 0),
        ([CROSS_JOIN, "--timeout", "1"], 2),
        ([REPEATED, "--memory-limit", "300MB"], 2),
    ):
        command = [sys.executable, "-m", "oracle_tools.interfaces.cli", "sql", *args, "--db", str(sample_db_path)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == status, done.stderr
        assert list(temp.iterdir()) == [], (args, done.stderr)
