"""Waiting for a child process to reach a state, by what it does rather than by how long it usually takes: on a
loaded machine a start that takes half a second can take five."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child_pids(pid: int) -> list[int]:
    """The live children of process ``pid`` (of all its threads), from /proc; none once it ended."""
    found: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(child) for child in (task / "children").read_text().split()]
    except OSError:  # ended while read
        pass
    return found


def tree_cpu_seconds(pid: int) -> float:
    """:func:`cpu_seconds` of ``pid`` and its live children (``sql`` runs the query in a child)."""
    total = 0.0
    for each in (pid, *child_pids(pid)):
        with contextlib.suppress(OSError):  # ended while read
            total += cpu_seconds(each)
    return total


def wait_until_busy(proc: subprocess.Popen[str] | subprocess.Popen[bytes], seconds: float, timeout: float = 60) -> None:
    """Until ``proc`` and its children have used ``seconds`` of CPU (past its start, into the work); fails if it
    ends first."""
    deadline = time.monotonic() + timeout
    while tree_cpu_seconds(proc.pid) < seconds:
        assert proc.poll() is None, "the process ended before it got busy"
        assert time.monotonic() < deadline, f"the process used under {seconds} s of CPU in {timeout} s"
        time.sleep(0.05)


def wait_until_idle(proc: subprocess.Popen[str] | subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Until ``proc`` has started and waits (its CPU time stands still for half a second): a server or a tool
    reading its standard input."""
    deadline = time.monotonic() + timeout
    before = -1.0
    while True:
        assert proc.poll() is None, "the process ended before it waited"
        assert time.monotonic() < deadline, f"the process was still busy after {timeout} s"
        now = cpu_seconds(proc.pid)
        if now == before and now > 0.1:
            return
        before = now
        time.sleep(0.5)


def wait_until_open(proc: subprocess.Popen[str] | subprocess.Popen[bytes], path: Path, timeout: float = 60) -> bool:
    """Until ``proc`` holds ``path`` open (a command has started and opened its database); False if it ended
    first."""
    deadline = time.monotonic() + timeout
    target = str(path.resolve())
    while proc.poll() is None:
        assert time.monotonic() < deadline, f"the process did not open {path} in {timeout} s"
        try:
            if any(os.readlink(fd) == target for fd in Path(f"/proc/{proc.pid}/fd").iterdir()):
                return True
        except OSError:  # a descriptor closed while read, or the process ended
            pass
        time.sleep(0.001)
    return False


def wait_for_cpu(proc: subprocess.Popen[str] | subprocess.Popen[bytes], seconds: float) -> bool:
    """Until ``proc`` has used ``seconds`` more CPU from now; False if it ended first."""
    try:
        until = cpu_seconds(proc.pid) + seconds
        while proc.poll() is None and cpu_seconds(proc.pid) < until:
            time.sleep(0.001)
    except OSError:  # ended while read
        return False
    return proc.poll() is None


def wait_until_read(proc: subprocess.Popen[str] | subprocess.Popen[bytes], timeout: float = 60) -> bool:
    """Until ``proc`` has read everything written to its standard input so far (the pipe holds no byte: a command
    reading its input has started its work); False if it ended first."""
    import fcntl
    import struct
    import termios

    assert proc.stdin is not None
    proc.stdin.flush()
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        waiting = fcntl.ioctl(proc.stdin.fileno(), termios.FIONREAD, b"\0\0\0\0")
        if struct.unpack("i", waiting)[0] == 0:
            return True
        assert time.monotonic() < deadline, f"the process did not read its input in {timeout} s"
        time.sleep(0.001)
    return False


def stop_with(proc: subprocess.Popen[str], signum: int, timeout: float = 600) -> tuple[int, str, str, float]:
    """Send ``signum`` to the running ``proc`` and wait for it to end: its exit status, output, error output and
    the CPU seconds it used after the signal (the kernel's account of the ended child, so a loaded machine, which
    makes the wall time long, does not change it). ``timeout`` only keeps a process that never stops from hanging
    the suite."""
    import resource

    def children_cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    before, accounted = cpu_seconds(proc.pid), children_cpu()
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err, children_cpu() - accounted - before
