"""The server under a mixed load, alone and with each attacker beside it (a poisoning search, an endless request
line, idle sockets, 1 MB decks), on a real database.

    python bench/bench_serve_load.py [--db PATH] [--seconds 60] [--clients 16] [--procs 2] [--round-three]
                                     [--only ATTACKER]

Starts the REAL server process (``oracle-tools serve``) on a free loopback port, waits for its warm-up, then runs
``--clients`` keep-alive clients (asyncio, in ``--procs`` processes) for ``--seconds`` in each scenario. The mix:
``/cards/named`` exact 20 % and fuzzy 10 %, API search 10 %, a collection of 10 names 10 %, a 2-line deck check
10 %, the web search page 10 %, a card page 10 %, a token page 5 %, the web deck page 5 %, autocomplete 10 %.

The scenarios, one after the other: the mix alone, then with one attacker beside it the whole time:

  * poisoning search: ``/cards/search?q=o:/(.{0,1000}){1000}/`` (a regex RE2 refuses: 400), 4 at once, again and
    again (it left its worker thread's connection unusable: every later search 400);
  * endless request line: ``GET /search?q=aaaa…`` streamed in 64 KB pieces, never ending (414 at 8 KB now), and
    again when the server closes it;
  * 512 idle sockets, from another address (127.0.0.2), opened again as the server closes them;
  * 1 MB deck bodies: ``4 Lightning Bolt`` lines to ``POST /decks/check``, 4 at once, again and again (413).

``--only ATTACKER`` (repeatable: ``--only "1 MB deck bodies"``) runs the mix alone and beside those attackers only.
``--round-three`` adds round three's adversaries together (a stalled body, a deck of 1,000 misspelt names, a
20,000- and a 5,000-name batch, the bulk download). Printed for each: requests a second, p50 and p99 of the
clients' requests, their unexpected answers and 5xx, the attacker's answers by status, the server's peak
resident memory during the scenario (sampled) and its virtual size, the server's CPU time over the scenario and the
machine's load average at its end (the machine may be shared). Goals: alone >= 1,000 req/s, p99 <= 100 ms,
0 5xx, RSS <= 1 GB; beside each attacker >= 80 % of the alone throughput, p99 <= 200 ms, 0 5xx.
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
    oracle_ids = [
        i for (i,) in con.execute("SELECT oracle_id FROM cards WHERE is_card ORDER BY hash(name) LIMIT 300").fetchall()
    ]
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
    web_search = [("GET", f"/search?q={quote(q)}", b"", found_or_not) for q in searches]
    card_page = [("GET", f"/card/{i}", b"", ok) for i in oracle_ids]
    token_page = [("GET", f"/token/{quote(t)}", b"", found_or_not) for t in ("Treasure", "Goblin", "Zombie", "Food")]
    web_deck = [("GET", "/deck?format=modern&deck=" + quote(SMALL_DECK.decode()), b"", ok)]
    typed = sorted({n[:k].lower() for n in names[:400] for k in (2, 3, 4, 6)})
    autocomplete = [("GET", f"/cards/autocomplete?q={quote(t)}", b"", ok) for t in typed]

    def weighted(items: Sequence[Request], weight: int) -> list[Request]:
        return [items[i % len(items)] for i in range(weight * 10)]

    mix = (
        weighted(exact, 20)
        + weighted(fuzzy, 10)
        + weighted(search, 10)
        + weighted(collection, 10)
        + weighted(deck, 10)
        + weighted(web_search, 10)
        + weighted(card_page, 10)
        + weighted(token_page, 5)
        + weighted(web_deck, 5)
        + weighted(autocomplete, 10)
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


POISON = "/cards/search?q=" + quote("o:/(.{0,1000}){1000}/")
ONE_MB_DECK = b"4 Lightning Bolt\n" * 61_000  # just under the 1 MiB body limit
ATTACKERS = ("poisoning search", "endless request line", "512 idle sockets", "1 MB deck bodies")


def attacker(kind: str, port: int, stop_at: float, seen: list[int]) -> list[threading.Thread]:
    """The threads of one attacker (poisoning searches, endless request lines, idle sockets, deck bodies), each at work until ``stop_at``; ``seen`` gets the
    statuses it is answered (0: cut off, or no answer)."""

    def poison() -> None:
        while time.perf_counter() < stop_at:
            seen.append(_post(port, "GET", POISON, b"", timeout=30))

    def endless_line() -> None:
        piece = b"a" * 65536
        while time.perf_counter() < stop_at:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
                answer = b""
                try:
                    sock.sendall(b"GET /search?q=")
                    while time.perf_counter() < stop_at:
                        sock.sendall(piece)
                except OSError:
                    pass
                try:
                    sock.settimeout(2)
                    answer = sock.recv(4096)
                except OSError:
                    pass
                seen.append(int(answer[9:12]) if answer[:5] == b"HTTP/" else 0)

    def idle_sockets() -> None:
        import selectors

        def opened() -> socket.socket | None:
            try:
                return socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.2", 0))
            except OSError:
                return None

        held = [s for s in (opened() for _ in range(512)) if s is not None]
        with selectors.DefaultSelector() as sel:
            for s in held:
                sel.register(s, selectors.EVENT_READ)
            while time.perf_counter() < stop_at:
                for key, _ in sel.select(timeout=0.5):
                    sock = key.fileobj
                    assert isinstance(sock, socket.socket)
                    try:
                        answer = sock.recv(4096)
                    except OSError:
                        answer = b""
                    seen.append(int(answer[9:12]) if answer[:5] == b"HTTP/" else 0)
                    sel.unregister(sock)
                    sock.close()
                    again = opened()
                    if again is not None:
                        sel.register(again, selectors.EVENT_READ)
            for key in list(sel.get_map().values()):
                assert isinstance(key.fileobj, socket.socket)
                key.fileobj.close()

    def big_decks() -> None:
        while time.perf_counter() < stop_at:
            seen.append(_post(port, "POST", "/decks/check?format=modern", ONE_MB_DECK, timeout=60))

    target, count = {
        "poisoning search": (poison, 4),
        "endless request line": (endless_line, 1),
        "512 idle sockets": (idle_sockets, 1),
        "1 MB deck bodies": (big_decks, 4),
    }[kind]
    threads = [threading.Thread(target=target, daemon=True) for _ in range(count)]
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


def vm_mb(pid: int) -> float:
    return rss_mb(pid, "VmSize")


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user and system), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=OUT / "all-real.duckdb")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--round-three", action="store_true", help="round three's adversaries too, together")
    parser.add_argument(
        "--only", action="append", choices=ATTACKERS, default=[], help="the mix alone and beside this attacker only"
    )
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
        print(f"warm-up {warm:.1f} s; server RSS {rss_mb(server.pid):.0f} MB, virtual {vm_mb(server.pid):.0f} MB")
        scenarios: list[str] = ["alone", *(args.only or ATTACKERS)] + (["round three"] if args.round_three else [])
        alone_rps = float("nan")
        for scenario in scenarios:
            seen: list[int] = []
            by_kind: dict[str, list[int]] = {}
            stop_at = time.perf_counter() + args.seconds + 1.0
            threads: list[threading.Thread] = []
            if scenario == "round three":
                threads = adversaries(port, names, stop_at, by_kind)
            elif scenario != "alone":
                threads = attacker(scenario, port, stop_at, seen)
            peak = {"rss": 0.0, "vm": 0.0}
            sampling = threading.Event()

            def sample(peak: dict[str, float] = peak, sampling: threading.Event = sampling) -> None:
                while not sampling.wait(0.5):
                    peak["rss"] = max(peak["rss"], rss_mb(server.pid))
                    peak["vm"] = max(peak["vm"], vm_mb(server.pid))

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            time.sleep(1.0)  # the attacker is at work
            cpu_before = cpu_seconds(server.pid)
            got = mixed_load(port, mix, clients=args.clients, procs=args.procs, seconds=args.seconds)
            cpu = cpu_seconds(server.pid) - cpu_before
            load = os.getloadavg()[0]
            sampling.set()
            sampler.join()
            for t in threads:
                t.join(timeout=35)
            if scenario == "alone":
                alone_rps = got["rps"]
            print(
                f"{scenario:>20}: {got['rps']:,.0f} req/s ({got['rps'] / alone_rps * 100:.0f} % of alone), "
                f"p50 {got['p50_ms']:.1f} ms, p99 {got['p99_ms']:.1f} ms, 5xx {got['server_errors']}, unexpected "
                f"{got['errors']}; server RSS peak {peak['rss']:.0f} MB, virtual peak {peak['vm']:.0f} MB; server CPU "
                f"{cpu:.0f} s ({cpu / args.seconds * 100:.0f} % of a core); load average {load:.1f}",
                flush=True,
            )
            for what, statuses in ([(scenario, seen)] if seen else []) + sorted(by_kind.items()):
                counts = {st: statuses.count(st) for st in sorted(set(statuses))}
                print(f"{'':>22}{what}: " + ", ".join(f"{n} x {st or 'cut off'}" for st, n in counts.items()))
        print(f"server RSS at the end {rss_mb(server.pid):.0f} MB, peak (VmHWM) {rss_mb(server.pid, 'VmHWM'):.0f} MB")
    finally:
        stop(server)


if __name__ == "__main__":
    main()
