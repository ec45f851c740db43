"""The example outputs of README.md and docs/*.md, generated from real runs on the embedded sample.

Each example is a cog block (https://cog.readthedocs.io, the approach of sqlite-utils' docs): the commands
are written once, in the block's generator, and the output below them is what those commands print::

    <!-- [[[cog shell('''
    oracle-tools resolve Foudre
    oracle-tools resolve "Lim-Dul's Vault" --json  #| 6
    ''')]]] -->
    ```
    $ oracle-tools resolve Foudre
    Lightning Bolt  [via printed]
    ...
    ```
    <!-- [[[end]]] -->

``python scripts/doc_examples.py`` rewrites every block; ``--check`` changes nothing and exits 1 when a
block differs from what the commands print now (``tests/test_doc_examples.py`` runs it, so the docs cannot
drift). All blocks run in order in one fresh folder whose ``data/oracle.duckdb`` is built by ``ingest
--sample`` (what a new user has after the README's first command), so a block may use files an earlier one
wrote; ``--sample-db=PATH`` copies a database ``ingest --sample`` built already instead. A command that
needs no shell (no pipe, redirection or variable but ``$SAMPLE``) runs in this process, as the CLI runs it.
``python`` blocks run ``>>>`` lines in one interpreter, as the REPL shows them.

A command line may end with ``#| N``: show only the first N lines of its output, then ``…`` (``#| 0``: the
command alone). Values that differ from run to run are shown as one fixed example: the folder (``~/oracle-
tools``), the package folder (``…/oracle_tools``), the clock (``2026-11-24 12:00:00``) and file sizes.
"""

from __future__ import annotations

import atexit
import code
import contextlib
import datetime as dt
import io
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLE_DAY = "2026-11-24"
SHOWN_HOME = "~/oracle-tools"
DOC_PORT = 8765  # the port the docs show; the server of the examples runs on a free one

_state: dict[str, Any] = {}


def _workdir() -> Path:
    """The folder every example runs in: a fresh one with the sample database, made once per run."""
    if "dir" not in _state:
        folder = Path(tempfile.mkdtemp(prefix="oracle-tools-docs-"))
        atexit.register(shutil.rmtree, folder, True)
        _state["dir"] = folder
        from oracle_tools.store import resources

        sample = str(resources.SAMPLE_DIR)
        _state["env"] = {k: v for k, v in os.environ.items() if k != "ORACLE_TOOLS_DB"} | {
            "COLUMNS": "120",
            "SAMPLE": sample,
        }
        if _state.get("sample_db"):  # a database `ingest --sample` built already (--sample-db): copied, not rebuilt
            (folder / "data").mkdir()
            shutil.copy(_state["sample_db"], folder / "data" / "oracle.duckdb")
        else:
            _run("oracle-tools ingest --sample")
    return _state["dir"]


def _normalize(text: str) -> str:
    import oracle_tools

    package = str(Path(oracle_tools.__file__).resolve().parent)
    folder = str(_state["dir"])
    text = text.replace(package, "…/oracle_tools").replace(folder, SHOWN_HOME)
    text = text.replace(f"127.0.0.1:{_state.get('port', DOC_PORT)}", f"127.0.0.1:{DOC_PORT}")
    today = dt.date.today().isoformat()
    text = re.sub(rf"{today}[ T]\d\d:\d\d:\d\d(\.\d+)?", f"{EXAMPLE_DAY} 12:00:00", text)
    text = text.replace(today, EXAMPLE_DAY)
    return re.sub(r"\(\d+(\.\d+)? [kMG]?B\)", "(… MB)", text)


def _server_port() -> int:
    """A real `oracle-tools serve` on the example database, started at the first curl of the docs (--no-warm: the
    docs ask it a few questions, and what it answers does not depend on what it built beforehand)."""
    if "port" not in _state:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen(
            [_exe(), "serve", "--port", str(port), "--no-warm"],
            cwd=_state["dir"],
            env=_state["env"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        atexit.register(proc.terminate)
        for _ in range(200):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            time.sleep(0.05)
        _state["port"] = port
    return int(_state["port"])


def _exe() -> str:
    return str(Path(sys.executable).with_name("oracle-tools"))


def _run(command: str) -> str:
    """What ``command`` prints (stdout, then stderr), run in the example folder."""
    folder = _state["dir"]
    if f"127.0.0.1:{DOC_PORT}" in command:
        command = command.replace(f"127.0.0.1:{DOC_PORT}", f"127.0.0.1:{_server_port()}")
    args = _in_process_args(command)
    if args is not None:
        from click.testing import CliRunner

        from oracle_tools.interfaces.cli import main

        cwd = os.getcwd()
        os.chdir(folder)
        try:
            result = CliRunner(env={"COLUMNS": "120", "ORACLE_TOOLS_DB": None}).invoke(main, args)
        finally:
            os.chdir(cwd)
        return result.stdout + result.stderr
    path = f"{Path(sys.executable).parent}{os.pathsep}{_state['env'].get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=folder,
        env={**_state["env"], "PATH": path},
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.stdout + done.stderr


def _in_process_args(command: str) -> list[str] | None:
    """The arguments of an ``oracle-tools`` command that needs no shell (run in this process, as the CLI would
    run it), or None: a pipe, a redirection or any shell word but ``$SAMPLE`` (the sample's folder) needs bash."""
    if not command.startswith("oracle-tools ") or "'" in command:
        return None
    expanded = command.replace("$SAMPLE", _state["env"]["SAMPLE"])
    if "$" in expanded or "`" in expanded or "\\" in expanded:
        return None
    lexer = shlex.shlex(expanded, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words = list(lexer)
    if any(word and all(c in lexer.punctuation_chars for c in word) for word in words):
        return None  # an operator outside quotes: |, <, >, ;, &, ( or )
    return shlex.split(expanded)[1:]


def _commands(text: str) -> list[str]:
    """The commands of a block, one per line, or over several lines until their quotes close."""
    commands: list[str] = []
    pending: list[str] = []
    for line in text.strip("\n").splitlines():
        pending.append(line)
        try:
            shlex.split(re.sub(r"\s{2,}# .*$", "", "\n".join(pending).partition("#|")[0]))
        except ValueError:
            continue  # an open quote: the command goes on
        commands.append("\n".join(pending))
        pending = []
    return commands + (["\n".join(pending)] if pending else [])


def shell(commands: str, setup: tuple[str, ...] | list[str] = ()) -> None:
    """A block of ``$ command`` lines, each followed by what it prints; ``setup`` commands run first, unshown
    (the text around the block says what they did; ``$SAMPLE`` is the embedded sample's folder)."""
    import cog

    _workdir()
    for command in setup:
        _run(command)
    out = ["```"]
    for line in _commands(commands):
        command, _, limit = line.partition("#|")
        shown = command.rstrip() if limit else line.rstrip()
        out.append(f"$ {shown}")
        runnable = re.sub(r"\s{2,}# .*$", "", command).strip()  # a comment after the command (two spaces)
        printed = _normalize(_run(runnable)).rstrip("\n").splitlines()
        if limit.strip():
            keep = int(limit)
            if keep == 0:
                printed = []
            elif len(printed) > keep:
                printed = [*printed[:keep], "…"]
        out.extend(printed)
    out.append("```")
    cog.outl("\n".join(out))


def python(source: str) -> None:
    """A block of ``>>>`` lines run in one interpreter (shared by every python block), with what each shows."""
    import cog

    folder = _workdir()
    console = _state.setdefault("console", code.InteractiveInterpreter({}))
    out = ["```python"]
    for line in source.strip("\n").splitlines():
        out.append(f">>> {line}")
        buffer = io.StringIO()
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
                console.runsource(line, symbol="single")
        finally:
            os.chdir(cwd)
        out.extend(_normalize(buffer.getvalue()).rstrip("\n").splitlines())
    out.append("```")
    cog.outl("\n".join(out))


def search_rows(rows: list[tuple[str, str]]) -> None:
    """Rows of docs/search.md's example table, ``(keyword, query)`` each, with what the query answers on the sample:
    the first three cards (with set and collector number when the query is evaluated per printing) and the count."""
    import cog

    from oracle_tools import OracleDB
    from oracle_tools.search import SearchSyntaxError
    from oracle_tools.search import compile as compile_query

    db = OracleDB(_workdir() / "data" / "oracle.duckdb")
    try:
        for keyword, query in rows:
            try:
                found = db.search(query)
            except SearchSyntaxError as exc:  # a keyword whose data the sample lacks says so: its row shows the line
                cog.outl(f"| `{keyword}` | `{query}` | refused: {str(exc).replace('|', '/')} (0 cards) |")
                continue
            first = found.head(3)
            if compile_query(query).printing_level:
                shown = [f"{n} {s} {cn}" for n, s, cn in first.select("name", "set", "collector_number").iter_rows()]
            else:
                shown = first.get_column("name").to_list()
            more = " …" if found.height > 3 else ""
            count = f"{found.height} card" + ("" if found.height == 1 else "s")
            cells = "; ".join(shown).replace("|", "\\|")
            written = query.replace("|", "\\|")
            cog.outl(f"| `{keyword}` | `{written}` | {cells}{more} ({count}) |")
    finally:
        db.close()


def main(argv: list[str]) -> int:
    from cogapp import Cog

    check = "--check" in argv
    sample_db = next((a.partition("=")[2] for a in argv if a.startswith("--sample-db=")), "")
    if sample_db:
        _state["sample_db"] = Path(sample_db)
    given = [Path(a) for a in argv if not a.startswith("-")]  # default: README.md and docs/*.md
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.modules.setdefault("doc_examples", sys.modules[__name__])  # cog's blocks import this module: its _state
    args = [
        "cog",
        "-I",
        str(Path(__file__).resolve().parent),
        "-p",
        "from doc_examples import shell, python, search_rows",
    ]
    args += ["--check", "--diff"] if check else ["-r"]
    files = [str(f) for f in given or FILES if "[[[cog" in f.read_text(encoding="utf-8")]
    status = Cog().main([*args, *files])
    if check and status:
        print("the docs' examples differ from what the commands print: run `python scripts/doc_examples.py`")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
