"""CPU time of ``oracle-tools serve`` at rest: what the idle server costs a machine it shares.

    python bench/bench_idle.py [--db PATH] [--seconds 60] [--runs 2]

Starts the REAL server process (``oracle-tools serve``, default options) on a free loopback port over a copy of
``--db`` (default: the embedded sample, built once into a temporary folder), waits until its background warm-up
has finished (``/health`` says ``"warm": true``) and a few seconds more, then reads the process's CPU time (user +
system, every thread: /proc/PID/stat) over ``--seconds`` with no request at all. Beside it, the floor measured in
the same run: a Python process that only sleeps for as long. CPU time is the scheduler's count (ns), with
/proc/PID/stat's user + system (clock ticks) beside it. Target: the server at rest is at its floor (uvicorn's own
Server woke ten times a second).

To measure another tree's server (the one before a change), run it from that tree's folder (``python -m`` puts
the current folder first on the path): ``cd /path/to/old/tree && python /path/to/bench/bench_idle.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU time of process ``pid`` so far: the scheduler's own count, to the nanosecond (the first field of each
    thread's /proc/PID/task/TID/schedstat), and user + system as /proc/PID/stat says it (clock ticks: ten wakes a
    second of 15 µs each are under one tick a minute, so that count may say 0)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime: fields 14 and 15 of stat(5)
    ran = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):  # a thread that ended meanwhile
            ran += int((task / "schedstat").read_text().split()[0])
    return ran / 1e9, ticks


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def at_rest(command: list[str], seconds: float, ready: str | None = None) -> tuple[float, float]:
    """CPU seconds ``command``'s process spends over ``seconds`` once ``ready`` (a URL) says it is warm: the
    scheduler's count, and /proc/PID/stat's (:func:`cpu_seconds`)."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        if ready is not None:
            deadline = time.monotonic() + 120
            while True:
                try:
                    with urllib.request.urlopen(ready, timeout=5) as answer:
                        if json.load(answer).get("warm"):
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the server did not start and warm up: {proc.communicate()[1][-2000:]}")
                time.sleep(0.5)
            time.sleep(5)  # the pages' own warm-up, started by nothing here, and the last connection's close
        else:
            time.sleep(2)  # past the interpreter's start
        before = cpu_seconds(proc.pid)
        time.sleep(seconds)
        after = cpu_seconds(proc.pid)
        return after[0] - before[0], after[1] - before[1]
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="the database to serve (a copy is served); default: the sample")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-idle-") as folder:
        served = Path(folder) / "served.duckdb"
        if args.db is not None:
            shutil.copy(args.db, served)
        else:
            subprocess.run(
                [sys.executable, "-m", "oracle_tools.interfaces.cli", "ingest", "--sample", "--db", str(served)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
        for run in range(1, args.runs + 1):
            port = free_port()
            serve = [sys.executable, "-m", "oracle_tools.interfaces.cli", "serve", "--db", str(served)]
            server = at_rest([*serve, "--port", str(port)], args.seconds, f"http://127.0.0.1:{port}/health")
            floor = at_rest([sys.executable, "-c", f"import time; time.sleep({args.seconds + 30})"], args.seconds)
            print(
                f"run {run}: serve at rest {server[0] * 1000:.1f} ms CPU over {args.seconds:g} s "
                f"({100 * server[0] / args.seconds:.3f}% of a core; /proc/PID/stat: {server[1]:.2f} s); "
                f"floor (a sleeping python) {floor[0] * 1000:.1f} ms ({floor[1]:.2f} s)"
            )


if __name__ == "__main__":
    main()
