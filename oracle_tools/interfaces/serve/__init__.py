"""``oracle-tools serve``: the local Scryfall-compatible HTTP API, the rules endpoints and the web page.

:func:`create_app` (oracle_tools/interfaces/serve/app.py) builds the Starlette app; :func:`run` serves it with
uvicorn (httptools and uvloop when installed). Reference: docs/serve.md.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oracle_tools.errors import OracleToolsError
from oracle_tools.interfaces.serve.app import create_app

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ["app_factory", "create_app", "run"]

_DB_ENV = "ORACLE_TOOLS_SERVE_DB"
_WARM_ENV = "ORACLE_TOOLS_SERVE_WARM"  # the worker processes' `--warm/--no-warm`, as the database path above
_ADDRESS_ENV = "ORACLE_TOOLS_SERVE_ADDRESS"  # the worker processes' bound "port host"
_LINKS_ENV = "ORACLE_TOOLS_SERVE_LINKS"  # the worker processes' `--links`
#: Seconds a thread holds the GIL before another may take it, in the server process (Python's default: 0.005).
SWITCH_INTERVAL = 0.001


def app_factory() -> Starlette:
    """The app for uvicorn's worker processes (``--workers N``): the database path comes from the environment."""
    port, _, host = os.environ.get(_ADDRESS_ENV, "").partition(" ")
    return create_app(
        Path(os.environ[_DB_ENV]),
        warm=os.environ.get(_WARM_ENV, "1") == "1",
        links=os.environ.get(_LINKS_ENV, "server"),
        address=(host, int(port)) if port.isdigit() else None,
    )


def check_address(host: str, port: int) -> None:
    """Fail with one clear line before uvicorn starts: it would log a traceback for a host it cannot resolve
    and a bare errno for a port in use."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError, ValueError) as exc:
        raise OracleToolsError(
            f"cannot serve on host {host[:80]!r}: {exc}; give an address of this machine, such as 127.0.0.1 or 0.0.0.0"
        ) from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT is no conflict
        try:
            probe.bind(address)
        except OSError as exc:
            raise OracleToolsError(
                f"cannot serve on {host}:{port}: {exc.strerror or exc}; stop what uses it or give another --port"
            ) from None


def address_notes(host: str, port: int, *, as_root: bool | None = None) -> list[str]:
    """What serving on ``host``:``port`` does that a user may not mean, one line each (the CLI says them on stderr
    before it serves): a privileged port (below 1024) bound because the process runs as root, and a host other
    machines can reach (0.0.0.0, a LAN address) — the server has no authentication. ``as_root``: None asks the
    process (its effective user id)."""
    import ipaddress

    if as_root is None:
        as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    notes = []
    if 0 < port < 1024 and as_root:
        notes.append(
            f"note: port {port} is a privileged port (below 1024), bound only because this runs as root; the server "
            "needs no root: run it as an ordinary user with a port from 1024 up (the default is 8765)"
        )
    try:
        addresses = {str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)}
    except (OSError, UnicodeError, ValueError):
        return notes  # check_address says so
    if any(not ipaddress.ip_address(a.split("%", 1)[0]).is_loopback for a in addresses):
        shown = "every interface of this machine" if addresses <= {"0.0.0.0", "::"} else f"{host}"
        notes.append(
            f"note: --host {host} serves {shown}: other machines that can reach it can use this server (read-only, "
            "with no authentication); the default, 127.0.0.1, serves this machine only"
        )
    return notes


def run(
    db_path: str | os.PathLike[str],
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    workers: int = 1,
    log_level: str = "warning",
    warm: bool = True,
    announce: Callable[[str], None] | None = None,
    links: str = "server",
) -> None:
    """Serve until interrupted. Opens the database read-only first, so a missing file fails at once. ``warm``:
    build every card object, the name index and the deck rules in the background at start (``--no-warm``: on first
    use). ``announce`` is given the server's address once its socket is bound: the port bound, which ``port=0``
    (any free port) leaves to the system. ``links``: ``scryfall`` writes the links in answers as Scryfall's
    (``https://api.scryfall.com/…``), for clients that follow only those (docs/serve.md)."""
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess

    check_address(host, port)
    bound_malloc_arenas()
    path = Path(db_path).resolve()
    # The event loop hands the GIL to a worker thread and waits for it back: with long rules work (a deck of
    # misspelt names) on other threads, a 1 ms turn instead of Python's 5 ms keeps the cheap answers quick.
    sys.setswitchinterval(SWITCH_INTERVAL)
    from oracle_tools.interfaces.serve.connection_limits import (
        WakesOnlyWhenNeeded,  # no tick ten times a second at rest
        uvicorn_options,  # httptools (uvicorn[standard]) with our header limits
    )

    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        **uvicorn_options(),
        "loop": loop,
        "log_level": log_level,
        "access_log": False,
        "server_header": False,
    }
    # The socket is bound here, so the address announced is the one bound (--port 0: the port the system chose)
    # and the app knows it (the bulk files its warm-up builds name it); the server, or each worker process, then
    # serves on it.
    sock = _bind(host, port)
    bound = (str(sock.getsockname()[0]), int(sock.getsockname()[1]))  # the address, where the host was a name
    if announce is not None:
        announce(f"http://[{host}]:{bound[1]}/" if ":" in host else f"http://{host}:{bound[1]}/")
    if workers > 1:
        os.environ[_DB_ENV] = str(path)
        os.environ[_WARM_ENV] = "1" if warm else "0"
        os.environ[_ADDRESS_ENV] = f"{bound[1]} {bound[0]}"
        os.environ[_LINKS_ENV] = links
        config = uvicorn.Config("oracle_tools.interfaces.serve:app_factory", factory=True, workers=workers, **options)
    else:
        config = uvicorn.Config(create_app(path, warm=warm, address=bound, links=links), **options)
    server = WakesOnlyWhenNeeded(config)
    try:
        if workers > 1:
            Multiprocess(config, sockets=[sock]).run()
        else:
            server.run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C: the server has shut down
        pass
    finally:
        sock.close()
    if workers == 1 and not server.started:
        sys.exit(STARTUP_FAILURE)


#: The C allocator's arenas the server's threads share (glibc's ``M_ARENA_MAX``). glibc gives each thread that
#: allocates at once its own arena, up to eight a core, each reserving 64 MB of address space and keeping what it
#: freed: with 21 worker threads, the server's address space neared 4 GB and its resident memory passed 1 GB under
#: a mixed load. Two arenas (this machine's cores) keep it inside 4 GB of address space and 1 GB resident
#: (docs/serve.md); ``MALLOC_ARENA_MAX`` in the environment, when set, is left to rule. ``oracle-tools serve`` sets
#: it and runs itself again (:func:`arenas_unbounded`); ``run`` in a process started otherwise sets it with mallopt,
#: which holds only if no second thread has allocated yet.
MALLOC_ARENAS = 2
_M_ARENA_MAX = -8  # mallopt's parameter number (glibc's malloc.h)


def arenas_unbounded() -> bool:
    """Whether this process runs on glibc without ``MALLOC_ARENA_MAX`` set: ``oracle-tools serve`` then runs itself
    again with it set (glibc reads its arena limit once, when a second thread first allocates: DuckDB's and Polars'
    threads start before the server does, so a later ``mallopt`` is too late)."""
    import platform

    return (
        sys.platform.startswith("linux")
        and platform.libc_ver()[0] == "glibc"
        and not os.environ.get("MALLOC_ARENA_MAX")
    )


def bound_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """Bound glibc's malloc arenas to ``arenas`` for this process (before its threads start); whether it was
    done (False elsewhere than glibc, or when MALLOC_ARENA_MAX is set)."""
    import ctypes
    import ctypes.util

    if os.environ.get("MALLOC_ARENA_MAX") or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(_M_ARENA_MAX, arenas))
    except (OSError, AttributeError):  # no glibc (musl has no mallopt): its allocator has no such arenas
        return False


def _bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port``, as uvicorn binds one (``Config.bind_socket``), inheritable by worker
    processes."""
    sock = socket.socket(family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:  # taken since check_address probed it
        sock.close()
        raise OracleToolsError(
            f"cannot serve on {host}:{port}: {exc.strerror or exc}; stop what uses it or give another --port"
        ) from None
    sock.set_inheritable(True)
    return sock
