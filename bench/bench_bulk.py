"""Bulk downloads from ``oracle-tools serve`` on the database of all the real files: the cost of building the
``oracle_cards`` file once per generation, then of concurrent downloads, in the server's CPU time and memory.

    python bench/bench_bulk.py [--db PATH] [--clients 4]

Builds once (bench/out/all-real.duckdb, shared with bench_serve.py) the database of the real files, starts the
REAL server process on a free loopback port and measures:

  * the first ``GET /bulk-data`` (it builds every file of the generation): server CPU seconds, wall seconds;
  * ``--clients`` downloads of ``oracle_cards`` at once, gzip-encoded (as Scryfall's clients ask) and then plain:
    server CPU seconds per download and the server's peak RSS against its RSS before;
  * the floor, measured in the same run: decompressing the same gzip body once in this process (what a plain
    download cannot do with less), and reading it from memory (a gzip download).

Before this file was built once per generation, each download built its whole body: 68 MB and about 9 s of CPU
each, and 4 at once took the server from 127 MB to 1 GB: the figures this script's output is read against.
"""

from __future__ import annotations

import argparse
import gzip
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import psutil

from realdata import build_all_real
from realdata import require as require_realdata

REPO = Path(__file__).resolve().parents[1]
REAL = require_realdata(__file__)
OUT = REPO / "bench" / "out"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return float(times.user + times.system)


def _downloads(proc: psutil.Process, url: str, encoding: str, clients: int) -> tuple[float, float, int]:
    """``clients`` downloads of ``url`` at once: server CPU seconds, wall seconds, the server's peak RSS."""
    peak = [proc.memory_info().rss]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], proc.memory_info().rss)
            time.sleep(0.05)

    def download() -> None:
        with httpx.stream("GET", url, headers={"accept-encoding": encoding}, timeout=600) as answer:
            for _ in answer.iter_raw(1 << 20):
                pass

    watcher = threading.Thread(target=sample)
    watcher.start()
    cpu, wall = _cpu(proc), time.perf_counter()
    threads = [threading.Thread(target=download) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    spent, took = _cpu(proc) - cpu, time.perf_counter() - wall
    done.set()
    watcher.join()
    return spent, took, peak[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=OUT / "all-real.duckdb")
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    build_all_real(args.db)
    port = _port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "oracle_tools.interfaces.cli", "serve", "--db", str(args.db), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        proc = psutil.Process(server.pid)
        client = httpx.Client(base_url=base, timeout=600)
        while True:
            try:
                client.get("/health")
                break
            except httpx.TransportError:
                time.sleep(0.2)
        while not client.get("/health").json().get("warm", True):
            time.sleep(0.5)  # the card cache warms in the background at open: not part of the figures
        rss_before = proc.memory_info().rss
        cpu, wall = _cpu(proc), time.perf_counter()
        listed = {item["type"]: item for item in client.get("/bulk-data").json()["data"]}
        build_cpu, build_wall = _cpu(proc) - cpu, time.perf_counter() - wall
        oracle = listed["oracle_cards"]
        print(
            f"build once per generation: {build_cpu:.1f} s server CPU, {build_wall:.1f} s wall; oracle_cards "
            f"{oracle['size'] / 1e6:.1f} MB ({oracle['compressed_size'] / 1e6:.1f} MB gzip)"
        )
        for encoding in ("gzip", "identity"):
            spent, took, peak = _downloads(proc, oracle["download_uri"], encoding, args.clients)
            print(
                f"{args.clients} {encoding} downloads at once: {spent / args.clients:.2f} s server CPU each, "
                f"{took:.1f} s wall; server RSS {rss_before / 1e6:.0f} MB before, peak {peak / 1e6:.0f} MB"
            )
        packed = gzip.compress(client.get(oracle["download_uri"], headers={"accept-encoding": "identity"}).content)
        started = time.process_time()
        gzip.decompress(packed)
        print(
            f"floor: decompressing the body once in-process {time.process_time() - started:.2f} s CPU; "
            "a gzip download only copies the kept bytes"
        )
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
