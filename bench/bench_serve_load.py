"""The server under a mixed load with adversaries beside it, on the database of all the real files.

    python bench/bench_serve_load.py [--db PATH] [--seconds 60] [--clients 16] [--procs 2] [--floor-seconds 20]

Starts the REAL server process (``oracle-tools serve``) on a free loopback port, waits for its warm-up, then runs
``--clients`` keep-alive clients (asyncio, in ``--procs`` processes) for ``--seconds``: named exact 35 %, named
fuzzy 15 %, search 15 %, a collection of 10 names 10 %, a 2-line deck check 10 %, ``/names/resolve`` 15 %.
Beside them, the whole time:

  * a stalled body: headers and part of a body, then nothing (opened again when the server cuts it off);
  * a garbage deck: 1,000 misspelt names, posted again as soon as it is answered;
  * a 20,000-name batch to ``POST /names/resolve`` (over the count limit: 422), then the largest batch taken,
    5,000 misspelt names, again and again;
  * the bulk download ``/bulk-data/oracle_cards/download``, again and again.

First, alone: a 2-line deck check and a first-asked ``/cards/named`` 40 times each while a deck of 1,000 misspelt
names is being checked again and again (goal: each <= 200 ms).

Printed: requests a second, p50 and p99 of the clients' requests (all, and of ``/cards/named`` and the 2-line
deck checks alone), every 5xx (clients and adversaries), the adversaries' answers by status, and the server's
RSS at the start, its peak (VmHWM) and at the end. The floor beside it is the same mix without adversaries,
measured in the same run (``--floor-seconds``, 0 to skip). Goals: no 5xx, p99 of the other requests <= 100 ms,
server RSS <= 1 GB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import platform
import random
import socket
import statistics
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))
from realdata import build_all_real, require

require(__file__)  # before bench_serve, whose import checks too: the one line names this script

from bench_serve import OUT, Request, _encode, free_port, start, stop, wait_for, wait_warm  # noqa: E402

GOALS = {"p99_ms": 100.0, "rss_mb": 1024.0}
SMALL_DECK = b"4 Lightning Bolt\n4 Counterspell\n"


def _kind(path: str) -> str:
    return path.split("?")[0].split("/")[2] if path.startswith("/cards/") else path.split("?")[0].strip("/")


async def _client(port: int, requests: list[Request], deadline: float, seed: int, out: dict[str, list]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    rng = random.Random(seed)
    encoded = [(_encode(r), r[3], r[1]) for r in requests]
    while time.perf_counter() < deadline:
        raw, accepted, path = encoded[rng.randrange(len(encoded))]
        started = time.perf_counter()
        writer.write(raw)
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n"):
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        if length:
            await reader.readexactly(length)
        out["latency"].append((_kind(path), time.perf_counter() - started))
        if status not in accepted:
            out["errors"].append(f"{status} {path[:80]}")
        if b"connection: close" in head.lower():
            writer.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.close()


def _worker(port: int, requests: list[Request], clients: int, seconds: float, seed: int, queue: mp.Queue) -> None:
    out: dict[str, list] = {"latency": [], "errors": []}

    async def main() -> None:
        deadline = time.perf_counter() + seconds
        await asyncio.gather(*(_client(port, requests, deadline, seed * 100 + i, out) for i in range(clients)))

    asyncio.run(main())
    queue.put(out)


def mixed_load(port: int, requests: list[Request], *, clients: int, procs: int, seconds: float) -> dict[str, float]:
    queue: mp.Queue = mp.Queue()
    per = [clients // procs + (1 if i < clients % procs else 0) for i in range(procs)]
    workers = [mp.Process(target=_worker, args=(port, requests, n, seconds, i, queue)) for i, n in enumerate(per) if n]
    for w in workers:
        w.start()
    results = [queue.get() for _ in workers]
    for w in workers:
        w.join()
    latency = [x for r in results for x in r["latency"]]
    errors = [e for r in results for e in r["errors"]]
    for e in errors[:5]:
        print(f"    unexpected answer: {e}")

    def p(values: list[float], q: int) -> float:
        if len(values) < 2:
            return float("nan")
        return statistics.quantiles(sorted(values), n=100, method="inclusive")[q - 1] * 1000

    every = [t for _, t in latency]
    named = [t for kind, t in latency if kind == "named"]
    decks = [t for kind, t in latency if kind == "decks/check"]
    return {
        "requests": len(every),
        "rps": len(every) / seconds,
        "p50_ms": p(every, 50),
        "p99_ms": p(every, 99),
        "named_p99_ms": p(named, 99),
        "deck_p99_ms": p(decks, 99),
        "deck_max_ms": max(decks, default=0.0) * 1000,
        "errors": len(errors),
        "server_errors": sum(e.startswith("5") for e in errors),
    }


def requests(db: Path) -> tuple[list[Request], list[str]]:
    """The clients' mix (weights as the docstring says) and real card names to misspell."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    names = [n for (n,) in con.execute("SELECT name FROM cards WHERE is_card ORDER BY hash(name)").fetchall()]
    con.close()
    ok, found_or_not = (200,), (200, 404)
    exact = [("GET", f"/cards/named?exact={quote(n)}", b"", ok) for n in names[:2000]]
    fuzzy = [("GET", f"/cards/named?fuzzy={quote(n.lower()[:-1])}", b"", found_or_not) for n in names[:500]]
    searches = ["t:creature c:r mv<=2", 'o:"draw a card" t:instant', "t:goblin", "f:modern t:land -t:basic"]
    search = [("GET", f"/cards/search?q={quote(q)}", b"", found_or_not) for q in searches]
    collection = [
        (
            "POST",
            "/cards/collection",
            json.dumps({"identifiers": [{"name": n} for n in names[i : i + 10]]}).encode(),
            ok,
        )
        for i in range(0, 500, 10)
    ]
    deck = [("POST", "/decks/check?format=modern", SMALL_DECK, ok)]
    resolve = [("GET", f"/names/resolve?q={quote(n)}", b"", ok) for n in names[:500]]

    def weighted(items: Sequence[Request], weight: int) -> list[Request]:
        return [items[i % len(items)] for i in range(weight * 10)]

    mix = (
        weighted(exact, 35)
        + weighted(fuzzy, 15)
        + weighted(search, 15)
        + weighted(collection, 10)
        + weighted(deck, 10)
        + weighted(resolve, 15)
    )
    return mix, names


# -- the adversaries ------------------------------------------------------------------------------------------


def _misspelt(rng: random.Random, names: list[str], count: int) -> list[str]:
    out = []
    for _ in range(count):
        name = rng.choice(names)
        at = rng.randrange(1, max(2, len(name) - 1))
        out.append(name[:at] + rng.choice("qxzj") + name[at + 1 :])
    return out


def _post(port: int, method: str, path: str, body: bytes, timeout: float = 300) -> int:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body or None, headers={"Content-Type": "application/json"} if body else {})
        response = conn.getresponse()
        response.read()
        return response.status
    except OSError:
        return 0  # cut off
    finally:
        conn.close()


def adversaries(port: int, names: list[str], stop_at: float, seen: dict[str, list[int]]) -> list[threading.Thread]:
    rng = random.Random(36)
    deck = "".join(f"1 {n}\n" for n in _misspelt(rng, names, 1_000)).encode()
    huge = json.dumps(_misspelt(rng, names, 20_000)).encode()
    largest = json.dumps(_misspelt(rng, names, 5_000)).encode()

    def again(what: str, calls: list[tuple[str, str, bytes]]) -> None:
        while time.perf_counter() < stop_at:
            for method, path, body in calls:
                seen.setdefault(what, []).append(_post(port, method, path, body))

    def stalled() -> None:
        while time.perf_counter() < stop_at:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
                sock.sendall(
                    b"POST /decks/check?format=modern HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n\r\n"
                    b"4 Lightning Bolt\n"
                )
                try:
                    answer = sock.recv(4096)
                except OSError:
                    answer = b""
                seen.setdefault("stalled body", []).append(int(answer[9:12]) if answer[:5] == b"HTTP/" else 0)

    threads = [
        threading.Thread(target=stalled, daemon=True),
        threading.Thread(
            target=again, args=("garbage deck", [("POST", "/decks/check?format=modern", deck)]), daemon=True
        ),
        threading.Thread(
            target=again,
            args=("batches", [("POST", "/names/resolve", huge), ("POST", "/names/resolve", largest)]),
            daemon=True,
        ),
        threading.Thread(
            target=again, args=("bulk download", [("GET", "/bulk-data/oracle_cards/download", b"")]), daemon=True
        ),
    ]
    for t in threads:
        t.start()
    return threads


def beside_a_big_deck(port: int, names: list[str], rounds: int = 40) -> dict[str, list[float]]:
    """Seconds of a 2-line deck check and of a first-asked /cards/named while a 1,000-misspelt-name deck is checked."""
    rng = random.Random(35)
    big = "".join(f"1 {n}\n" for n in _misspelt(rng, names, 1_000)).encode()
    done = threading.Event()

    def timed(method: str, path: str, body: bytes = b"") -> float:
        started = time.perf_counter()
        status = _post(port, method, path, body)
        assert status == 200, (status, path)
        return time.perf_counter() - started

    def big_again() -> None:
        while not done.is_set():
            timed("POST", "/decks/check?format=modern", big)

    alone = timed("POST", "/decks/check?format=modern", big)
    worker = threading.Thread(target=big_again)
    worker.start()
    time.sleep(0.5)
    got: dict[str, list[float]] = {"big deck alone": [alone], "2-line deck": [], "named": []}
    for name in names[5000 : 5000 + rounds]:
        got["2-line deck"].append(timed("POST", "/decks/check?format=modern", SMALL_DECK))
        got["named"].append(timed("GET", f"/cards/named?exact={quote(name)}"))
    done.set()
    worker.join()
    return got


# -- the server's memory ----------------------------------------------------------------------------------------


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=OUT / "all-real.duckdb")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--floor-seconds", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--procs", type=int, default=2)
    args = parser.parse_args()
    build_all_real(args.db)
    mix, names = requests(args.db)
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    port = free_port()
    server = start(
        [sys.executable, "-m", "oracle_tools.interfaces.cli", "serve", "--db", str(args.db), "--port", str(port)]
    )
    try:
        wait_for(port, "/health", server)
        warm = wait_warm(port)
        print(f"warm-up {warm:.1f} s; server RSS {rss_mb(server.pid):.0f} MB")
        beside = beside_a_big_deck(port, names)
        print(
            f"while a deck of 1,000 misspelt names is checked (alone: {beside['big deck alone'][0]:.1f} s): "
            + "; ".join(
                f"{what} median {statistics.median(xs) * 1000:.0f} ms, max {max(xs) * 1000:.0f} ms (goal <= 200)"
                for what, xs in beside.items()
                if what != "big deck alone"
            )
        )
        if args.floor_seconds > 0:
            floor = mixed_load(port, mix, clients=args.clients, procs=args.procs, seconds=args.floor_seconds)
            print(
                f"floor (the mix alone, {args.floor_seconds:g} s): {floor['rps']:,.0f} req/s, p50 {floor['p50_ms']:.1f} ms, "
                f"p99 {floor['p99_ms']:.1f} ms (named {floor['named_p99_ms']:.1f}, 2-line deck "
                f"{floor['deck_p99_ms']:.1f}), 5xx {floor['server_errors']}"
            )
        start_rss = rss_mb(server.pid)
        seen: dict[str, list[int]] = {}
        stop_at = time.perf_counter() + args.seconds
        threads = adversaries(port, names, stop_at, seen)
        time.sleep(1.0)  # the adversaries are at work
        got = mixed_load(port, mix, clients=args.clients, procs=args.procs, seconds=args.seconds - 1.0)
        end_rss, peak_rss = rss_mb(server.pid), rss_mb(server.pid, "VmHWM")
        for t in threads:
            t.join(timeout=0.1)
        print(
            f"with adversaries ({args.seconds:g} s, {args.clients} clients): {got['rps']:,.0f} req/s, "
            f"p50 {got['p50_ms']:.1f} ms, p99 {got['p99_ms']:.1f} ms (goal <= {GOALS['p99_ms']:.0f}), "
            f"named p99 {got['named_p99_ms']:.1f} ms, 2-line deck p99 {got['deck_p99_ms']:.1f} ms "
            f"(max {got['deck_max_ms']:.0f}), unexpected answers {got['errors']}, 5xx {got['server_errors']}"
        )
        for what, statuses in sorted(seen.items()):
            counts = {s: statuses.count(s) for s in sorted(set(statuses))}
            print(f"  {what}: " + ", ".join(f"{n} x {s or 'cut off'}" for s, n in counts.items()))
        adversary_5xx = sum(1 for s in (x for v in seen.values() for x in v) if 500 <= s < 600 and s != 503)
        print(
            f"server RSS: {start_rss:.0f} MB at the start, peak {peak_rss:.0f} MB (goal <= {GOALS['rss_mb']:.0f}), "
            f"{end_rss:.0f} MB at the end; adversaries' 5xx other than 503: {adversary_5xx}"
        )
    finally:
        stop(server)


if __name__ == "__main__":
    main()
