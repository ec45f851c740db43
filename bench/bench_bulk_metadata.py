"""The bulk-data metadata calls of ``oracle-tools serve`` on real data: ``GET /bulk-data`` and
``GET /bulk-data/{type}`` before any download, in the server's CPU time and wall time.

    python bench/bench_bulk_metadata.py [--db PATH] [--no-warm]

Starts the REAL server process on a free loopback port over ``--db`` (default: bench/out/all-real.duckdb, built once
and shared with the other server benches; any ingested database will do, e.g. the 2019 dump alone), waits for its
background warm-up (the card objects every answer reads: not part of the figures), then measures on a fresh
generation, as a client that asks what is there before it downloads:

  * the first ``GET /bulk-data`` (every type's object), then ``GET /bulk-data/oracle-cards`` and ``/bulk-data/rulings``;
  * the floor, in the same run: ``GET /health`` (an answer that reads nothing), averaged over 20 calls.

A bulk_data object reports its file's ``size`` and ``compressed_size``. When the metadata call built the whole file
(every card object joined and gzip-compressed) to report them, the first call on the 2019 dump cost seconds of
server CPU: the figure this script's output is read against.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil

from realdata import ALL_REAL_DB, build_all_real
from realdata import require as require_realdata

REAL = require_realdata(__file__)  # the database it builds when absent is the real files'


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return float(times.user + times.system)


def _timed(
    proc: psutil.Process, client: httpx.Client, path: str, times: int = 1
) -> tuple[float, float, httpx.Response]:
    """Server CPU seconds and wall seconds per call of ``GET path`` (the mean of ``times`` calls)."""
    cpu, wall = _cpu(proc), time.perf_counter()
    for _ in range(times):
        answer = client.get(path)
        answer.raise_for_status()
    return (_cpu(proc) - cpu) / times, (time.perf_counter() - wall) / times, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=ALL_REAL_DB)
    parser.add_argument("--no-warm", action="store_true", help="serve --no-warm: nothing built in the background")
    args = parser.parse_args()
    if args.db == ALL_REAL_DB:
        build_all_real(args.db)
    port = _port()
    server = subprocess.Popen(
        [sys.executable, "-m", "oracle_tools.interfaces.cli", "serve", "--db", str(args.db), "--port", str(port)]
        + (["--no-warm"] if args.no_warm else []),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        proc = psutil.Process(server.pid)
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600)
        while True:
            try:
                client.get("/health")
                break
            except httpx.TransportError:
                time.sleep(0.2)
        while not args.no_warm and not client.get("/health").json().get("warm", True):
            time.sleep(0.5)  # the card cache warms in the background at open: not part of the figures
        warm_seconds = client.get("/health").json().get("warm_seconds")
        if warm_seconds is not None:
            print(f"background warm-up at open: {warm_seconds:.1f} s wall (not counted below)")
        floor_cpu, floor_wall, _ = _timed(proc, client, "/health", 20)
        for path in ("/bulk-data", "/bulk-data/oracle-cards", "/bulk-data/rulings"):
            cpu, wall, answer = _timed(proc, client, path)
            items = answer.json().get("data") or [answer.json()]
            sizes = ", ".join(
                f"{i['type']} {i['size'] / 1e6:.1f} MB ({i['compressed_size'] / 1e6:.1f} gzip)" for i in items
            )
            print(f"GET {path}: {cpu:.3f} s server CPU, {wall:.3f} s wall; {sizes}")
        print(f"floor: GET /health {floor_cpu * 1000:.1f} ms server CPU, {floor_wall * 1000:.1f} ms wall per call")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
