"""Hardening, data safety: what an adversarial run broke in ingest, each with real processes and real files —
a stale write-ahead log, two ingests at once, a source that would wipe the database, leftovers of killed
ingests."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import pytest

from oracle_tools.ingest import lock_path
from oracle_tools.names.stored import StoredNames, names_path

from processes import wait_for_cpu

_T = TypeVar("_T")

CLI = [sys.executable, "-m", "oracle_tools.interfaces.cli"]


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


def _cli_here(*args: str) -> subprocess.CompletedProcess[str]:
    """What the command prints, run in this process (CliRunner), for the tests that check what an ingest or
    `info` says of files rather than what a process does (each child cost a second of start-up)."""
    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main

    done = CliRunner().invoke(main, list(args))
    assert done.exception is None or isinstance(done.exception, SystemExit), repr(done.exception)
    return subprocess.CompletedProcess(list(args), done.exit_code, done.stdout, done.stderr)


def _runs(db: Path) -> list[int]:
    with duckdb.connect(str(db), read_only=True) as con:
        return [r for (r,) in con.execute("SELECT DISTINCT run_id FROM ingest_runs ORDER BY 1").fetchall()]


def _cards(db: Path) -> int:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT count(*) FROM cards WHERE is_card").fetchall()[0][0]


def _foreign_wal(folder: Path) -> Path:
    """A real write-ahead log of another database: a writer killed before its checkpoint leaves it."""
    other = folder / "other.duckdb"
    code = (
        "import duckdb, os\n"
        f"c = duckdb.connect({str(other)!r})\n"
        "c.execute(\"SET checkpoint_threshold = '1TB'\")\n"
        "c.execute('CREATE TABLE t AS SELECT range AS x FROM range(1000)')\n"
        "os._exit(9)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=False)
    wal = Path(str(other) + ".wal")
    assert wal.exists()
    return wal


SAMPLE = Path(__file__).resolve().parents[1] / "oracle_tools/data/sample"


@pytest.fixture(scope="module")
def small_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Real-shaped files of a few hundred cards — the sample's small ones and Lightning Bolt's foreign printings
    (`Foudre`) — for the ingests these tests run in a child: what a lock, a log or a signal does to an ingest does
    not depend on how many cards it reads, and each ingest of the whole sample cost its child twice the CPU."""
    folder = tmp_path_factory.mktemp("small")
    with gzip.open(SAMPLE / "foreign.json.gz", "rt", encoding="utf-8") as f:
        bolt = [c for c in json.load(f) if c["name"] == "Lightning Bolt"]
    assert "Foudre" in {c.get("printed_name") for c in bolt}
    (folder / "foreign-bolt.json").write_text(json.dumps(bolt), encoding="utf-8")
    return [SAMPLE / "cards-2024.json.gz", SAMPLE / "alternate-names.json.gz", folder / "foreign-bolt.json"]


@pytest.fixture(scope="module")
def small_db_path(small_files: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    from oracle_tools import ingest

    path = tmp_path_factory.mktemp("small-db") / "oracle.duckdb"
    ingest.Ingest(path, progress=False).run([ingest.sniff(f) for f in small_files])
    return path


def _ingest_small(small_files: list[Path]) -> list[str]:
    """The arguments of an ingest of ``small_files`` (the same cards as ``db``: a re-ingest, as --sample was)."""
    return ["ingest", *(a for f in small_files for a in ("--bulk-file", str(f))), "--no-progress"]


@pytest.fixture
def db(small_db_path: Path, tmp_path: Path) -> Path:
    """A copy of the database of ``small_files``."""
    path = tmp_path / "oracle.duckdb"
    shutil.copy(small_db_path, path)
    return path


@pytest.fixture
def whole_sample(sample_db_path: Path, tmp_path: Path) -> Path:
    """A copy of the whole sample's database, for the ingests of the whole sample."""
    path = tmp_path / "oracle.duckdb"
    shutil.copy(sample_db_path, path)
    return path


def test_a_stale_wal_is_one_clear_line_and_the_next_ingest_leaves_a_consistent_pair(
    db: Path, small_files: list[Path]
) -> None:
    wal = Path(str(db) + ".wal")
    shutil.copy(_foreign_wal(db.parent), wal)
    done = _cli("resolve", "Foudre", "--db", str(db))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"error: {wal} does not belong to {db}") and "mv '" in done.stderr
    ingested = _cli(*_ingest_small(small_files), "--db", str(db))
    assert ingested.returncode == 0, ingested.stderr
    assert "removed" in ingested.stderr and ".wal" in ingested.stderr  # said, not silent
    assert not wal.exists()
    assert _cli("resolve", "Foudre", "--db", str(db)).stdout == "Lightning Bolt  [via printed]\n"
    # a writer of this very file killed before its checkpoint: its log matches the old file, not the new one
    code = (
        "import duckdb, os\n"
        f"c = duckdb.connect({str(db)!r})\n"
        "c.execute(\"SET checkpoint_threshold = '1TB'\")\n"
        "c.execute('CREATE TABLE scratch AS SELECT range AS x FROM range(1000)')\n"
        "os._exit(9)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=False)
    assert wal.exists()
    assert _cli(*_ingest_small(small_files), "--db", str(db)).returncode == 0
    assert not wal.exists()
    assert _cli("resolve", "Foudre", "--db", str(db)).stdout == "Lightning Bolt  [via printed]\n"


def _stopped_holding_the_lock(proc: subprocess.Popen[str], db: Path, timeout: float = 60) -> None:
    """Until ``proc`` (an ingest) holds ``db``'s lock, then stopped there (SIGSTOP; SIGCONT lets it go on): an
    ingest of a few hundred cards can end before another process has even started, on a loaded machine."""
    import signal

    lock, deadline = lock_path(db), time.monotonic() + timeout
    while True:
        assert proc.poll() is None, "the ingest ended before it was seen holding the lock"
        assert time.monotonic() < deadline, f"the ingest did not take the lock in {timeout} s"
        proc.send_signal(signal.SIGSTOP)
        while Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("T", "t", "Z"):
            time.sleep(0.001)  # a poll of /proc until the stop has taken effect
        with contextlib.suppress(OSError):
            if lock.read_text().strip() == str(proc.pid):
                return
        proc.send_signal(signal.SIGCONT)
        time.sleep(0.01)


def test_a_second_ingest_fails_at_once_or_waits_and_no_run_is_lost(db: Path, small_files: list[Path]) -> None:
    import signal

    before = _runs(db)
    first = subprocess.Popen(
        [*CLI, *_ingest_small(small_files), "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    waiting = None
    try:
        _stopped_holding_the_lock(first, db)  # held mid-ingest while the others try: they cannot be too late
        at_once = _cli(*_ingest_small(small_files), "--db", str(db))
        waiting = subprocess.Popen(
            [*CLI, *_ingest_small(small_files), "--wait", "--db", str(db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert waiting.stderr is not None
        stderr, lines = waiting.stderr, []

        def read_until_it_waits() -> None:  # its lines until it says it waits (or ends, had it gone ahead)
            while line := stderr.readline():
                lines.append(line)
                if "waiting for" in line:
                    return

        reader = threading.Thread(target=read_until_it_waits, daemon=True)
        reader.start()
        reader.join(120)
        said = "".join(lines)
        first.send_signal(signal.SIGCONT)
        out, err = waiting.communicate(timeout=120)
        waited = subprocess.CompletedProcess(waiting.args, waiting.returncode, out, said + err)
    finally:
        first.send_signal(signal.SIGCONT)
        _out, first_err = first.communicate(timeout=120)
        if waiting is not None and waiting.poll() is None:
            waiting.kill()
            waiting.communicate()
    assert first.returncode == 0, first_err
    assert at_once.returncode == 2
    assert at_once.stderr == (
        f"error: another ingest (pid {first.pid}) is writing {db.name}; wait for it to finish, or rerun with "
        "--wait to wait for it\n"
    )
    assert waited.returncode == 0, waited.stderr
    assert f"waiting for the ingest of pid {first.pid} to finish" in said, waited.stderr
    runs = _runs(db)
    assert runs == [*before, before[-1] + 1, before[-1] + 2]  # both ingests' runs are kept


def test_no_lock_file_stays_beside_the_database_and_a_stale_one_is_removed(db: Path, small_files: list[Path]) -> None:
    """The lock file stayed, empty, beside every database after its first ingest. It now exists only while an
    ingest runs; one left by an older version (which kept it) or a killed ingest (its pid) goes at the next."""
    for stale in ("", str(2**22 + 12345)):  # above Linux's default pid_max: no such process
        lock_path(db).write_text(stale, encoding="utf-8")
        done = _cli(*_ingest_small(small_files), "--db", str(db))
        assert done.returncode == 0, done.stderr
        assert sorted(p.name for p in db.parent.iterdir()) == [db.name, names_path(db).name]  # and its names file


def test_the_lock_still_excludes_when_its_holder_removes_the_file(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An ingest waiting on the lock file has it open when the holder removes it and lets go: its lock is then on
    a file no longer at the path, while a third ingest creates a new one there. The waiter must take the lock on
    the file at the path, so that the third is refused while the waiter runs."""
    import io
    import threading

    from oracle_tools.errors import IngestError
    from oracle_tools.ingest import _IngestLock

    said = io.StringIO()
    monkeypatch.setattr(sys, "stderr", said)
    first = _IngestLock(db, wait=False).__enter__()
    holding, release = threading.Event(), threading.Event()

    def waiter() -> None:
        with _IngestLock(db, wait=True):
            holding.set()
            release.wait(30)

    thread = threading.Thread(target=waiter)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while "waiting for the ingest of pid" not in said.getvalue():  # it opened the file that is about to go
            assert time.monotonic() < deadline
            time.sleep(0.01)
        first.__exit__(None, None, None)
        assert holding.wait(30)
        assert lock_path(db).read_text(encoding="utf-8") == str(os.getpid())  # the waiter's, at the path
        with pytest.raises(IngestError, match="another ingest"):
            _IngestLock(db, wait=False).__enter__()
    finally:
        release.set()
        thread.join(30)
    assert not lock_path(db).exists()


def test_an_ingest_that_would_lose_most_cards_is_refused(db: Path, tmp_path: Path) -> None:
    with gzip.open(Path(__file__).resolve().parents[1] / "oracle_tools/data/sample/cards-2019.json.gz") as f:
        one = [c for c in json.load(f) if c["name"] == "Lightning Bolt"][:1]
    small = tmp_path / "one-card.json"
    small.write_text(json.dumps(one), encoding="utf-8")
    cards = _cards(db)
    refused = _cli_here("ingest", "--bulk-file", str(small), "--no-progress", "--db", str(db))
    assert refused.returncode == 2
    assert refused.stderr == (
        f"error: refusing to replace {db} ({cards:,} cards) with a database of 1 card built from one-card.json: "
        f"that would lose {cards - 1:,} cards. Check the source files, or rerun with --replace-anyway if that is "
        "what you want. Nothing was replaced.\n"
    )
    assert _cards(db) == cards
    replaced = _cli_here("ingest", "--bulk-file", str(small), "--replace-anyway", "--no-progress", "--db", str(db))
    assert replaced.returncode == 0, replaced.stderr
    assert _cards(db) == 1


def _rulings(db: Path) -> int:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT count(*) FROM rulings").fetchall()[0][0]


def test_a_rulings_file_that_would_lose_most_rulings_is_refused(whole_sample: Path, tmp_path: Path) -> None:
    """A rulings file replaces every ruling: one of a single ruling replaced the sample's thousands with no word
    (exit 0). It is refused as a card file that would lose most cards is, and a ruling naming no card is said."""
    db = whole_sample
    one = tmp_path / "r.json"
    one.write_text('[{"object":"ruling","oracle_id":"x","comment":"y"}]', encoding="utf-8")
    rulings = _rulings(db)
    assert rulings > 1_000
    refused = _cli_here("ingest", "--bulk-file", str(one), "--no-progress", "--db", str(db))
    assert refused.returncode == 2
    assert refused.stderr == (
        f"error: refusing to replace {db} ({rulings:,} rulings) with a database of 1 ruling built from r.json: "
        f"that would lose {rulings - 1:,} rulings. Check the source files, or rerun with --replace-anyway if that "
        "is what you want. Nothing was replaced.\n"
    )
    assert _rulings(db) == rulings
    replaced = _cli_here("ingest", "--bulk-file", str(one), "--replace-anyway", "--no-progress", "--db", str(db))
    assert replaced.returncode == 0, replaced.stderr
    assert replaced.stderr == (
        "warning: r.json: 1 ruling names an Oracle id that no card in the database has (the first: x); kept, but "
        "no card shows it; ingest rulings with the card files of the same Scryfall dump\n"
    )
    assert _rulings(db) == 1


def test_a_name_of_megabytes_is_a_bad_input_not_a_card(db: Path, tmp_path: Path) -> None:
    with gzip.open(Path(__file__).resolve().parents[1] / "oracle_tools/data/sample/cards-2019.json.gz") as f:
        cards = json.load(f)
    cards[5] = {**cards[5], "name": "Bolt " * 1_000}  # 5,000 characters: 35 times the longest real name
    bad = tmp_path / "huge-name.json"
    bad.write_text(json.dumps(cards), encoding="utf-8")
    size = db.stat().st_size
    done = _cli_here("ingest", "--bulk-file", str(bad), "--no-progress", "--db", str(db))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr == (
        f"error: {bad}: the object with id {cards[5]['id']} has a name of 5,000 characters, which no card has "
        "(at most 2,820); the file is damaged or not Scryfall's. Nothing was replaced.\n"
    )
    assert db.stat().st_size == size


# -- the side files a user names are checked before any card file is opened --------------------------------------

#: A bad file of each kind and the words of the one line that refuses it (the lines of test_hardening.py and
#: test_tokens.py, unchanged: only when they come changed).
_BAD_SIDE_FILES = {
    "rules-file": (b"These are not the Comprehensive Rules.\n", "not the Comprehensive Rules"),
    "interchangeable-file": (b"class_id,name,source\n1\n", "data row 1 has 1 field(s)"),
}


def _blocks_if_read_first(call: Callable[[], _T], pipe: Path) -> _T:
    """``call()``'s result, given that ``pipe`` (a named pipe nobody writes to) is the card file: opening it for
    reading waits for a writer, so an ingest that opens a card file before the side files waits forever. Such a
    call fails the test after a while (then the pipe is opened and closed to let it end on an empty file)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = call()
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(20)
    blocked = thread.is_alive()
    while thread.is_alive():  # release the reader: a writer that opens and closes the pipe is an end of file
        with contextlib.suppress(OSError):  # ENXIO: no reader has it open yet
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(0.1)
    assert not blocked, "the ingest opened the card file before it checked the side files"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


@pytest.mark.parametrize("kind", sorted(_BAD_SIDE_FILES))
def test_a_bad_side_file_is_refused_before_any_card_file_is_opened(tmp_path: Path, kind: str) -> None:
    """`ingest --bulk-file BIG --rules-file BAD` (or --interchangeable-file BAD) refused the side file only after
    the whole card build: minutes on all_cards, for a typo in a file of a few kB. The side files are small, so
    they are read first; the card file (a pipe nobody writes to, which would block its reader) is never opened,
    and nothing beside the database is created or changed."""
    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main

    content, words = _BAD_SIDE_FILES[kind]
    bad = tmp_path / "side.txt"
    bad.write_bytes(content)
    cards = tmp_path / "all-cards.json"
    os.mkfifo(cards)
    db = tmp_path / "oracle.duckdb"
    db.write_bytes(b"the previous database")  # never opened either: the refusal comes before the lock
    before = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    args = ["ingest", "--bulk-file", str(cards), f"--{kind}", str(bad), "--no-progress", "--db", str(db)]
    result = _blocks_if_read_first(lambda: CliRunner().invoke(main, args), cards)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert result.output.startswith("error: ") and str(bad) in result.output and words in result.output
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == before  # no temp file, no lock
    assert db.read_bytes() == b"the previous database"


@pytest.mark.parametrize(
    ("kind", "content", "words"),
    [
        *((kind, content, words) for kind, (content, words) in sorted(_BAD_SIDE_FILES.items())),
        ("rules-file", None, "cannot read Comprehensive Rules file"),
        # a missing override table was left out without a word (the CLI refuses it; the library did not)
        ("interchangeable-file", None, "cannot read the interchangeable-names file (No such file or directory)"),
    ],
    ids=["bad-rules", "bad-interchangeable", "missing-rules", "missing-interchangeable"],
)
def test_ingest_files_refuses_a_bad_side_file_before_opening_a_card_file(
    tmp_path: Path, kind: str, content: bytes | None, words: str
) -> None:
    from oracle_tools import OracleDB
    from oracle_tools.errors import OracleToolsError

    side = tmp_path / "side.txt"
    if content is not None:
        side.write_bytes(content)
    cards = tmp_path / "all-cards.json"
    os.mkfifo(cards)
    db = tmp_path / "oracle.duckdb"
    rules, interchangeable = (side, None) if kind == "rules-file" else (None, side)
    with pytest.raises(OracleToolsError) as info:
        _blocks_if_read_first(
            lambda: OracleDB.ingest_files(db, [cards], rules_file=rules, interchangeable_file=interchangeable), cards
        )
    assert words in str(info.value) and str(side) in str(info.value) and "\n" not in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["all-cards.json", *(["side.txt"] * bool(content))])


def test_info_lists_what_killed_ingests_left_and_the_next_ingest_removes_it(db: Path, small_files: list[Path]) -> None:
    left = db.with_name(f"{db.name}.ingest-{2**22 + 12345}.tmp")  # above Linux's default pid_max: no such process
    left.write_bytes(b"\0" * 4096)
    done = _cli_here("info", "--db", str(db))
    assert f"temp file {left} (0.0 MB): left by an ingest that was stopped; the next ingest removes it" in done.stdout
    listed = json.loads(_cli_here("info", "--json", "--db", str(db)).stdout)["temp_files"]
    assert listed == [{"file": str(left), "size_bytes": 4096, "ingest_running": False}]
    assert _cli_here(*_ingest_small(small_files), "--db", str(db)).returncode == 0
    assert not left.exists()
    assert os.path.exists(db)


def test_an_ingest_through_a_symlink_replaces_the_real_file_under_its_lock(
    db: Path, tmp_path: Path, small_files: list[Path]
) -> None:
    """The path is resolved once: the swap replaced the link with a regular file (the real database stayed stale)
    and the lock was taken per link name, so an ingest through another name ran at the same time."""
    import fcntl

    link = tmp_path / "links" / "via-link.duckdb"
    link.parent.mkdir()
    link.symlink_to(db)
    before = _runs(db)
    with open(lock_path(db), "a+") as held:  # an ingest through the real path holds the real file's lock
        fcntl.flock(held, fcntl.LOCK_EX)
        refused = _cli(*_ingest_small(small_files), "--db", str(link))
    assert refused.returncode == 2 and refused.stderr.startswith("error: another ingest"), refused.stderr
    done = _cli(*_ingest_small(small_files), "--db", str(link))
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and link.resolve() == db.resolve()
    assert _runs(db) == [*before, before[-1] + 1]
    assert sorted(p.name for p in link.parent.iterdir()) == ["via-link.duckdb"]  # no lock or temp file by the link
    assert StoredNames.open(link) is not None  # the names file is the real file's, beside it


def _ignore_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a shell script's `cmd &` starts a job


@pytest.mark.parametrize(
    ("signame", "inherit_ignored", "status", "said", "times"),
    [
        ("SIGINT", False, 130, "interrupted", 1),
        ("SIGINT", False, 130, "interrupted", 3),  # Ctrl-C pressed again while it stops: still one line
        ("SIGINT", True, 130, "interrupted", 1),
        ("SIGTERM", False, 143, "stopped by SIGTERM", 1),
    ],
)
def test_a_signal_stops_an_ingest_keeps_the_old_database_and_removes_every_file(
    whole_sample: Path, signame: str, inherit_ignored: bool, status: int, said: str, times: int
) -> None:
    """The first Ctrl-C (also to a job started with `&`, which inherits SIGINT ignored) or SIGTERM stops the
    ingest: exit 128 + the signal, the old database as it was, no temp file, log or checkpoint marker left.
    Before, SIGINT was ignored (the new database replaced the old) and SIGTERM left the temp file and its log.
    The ingest also removes what a killed one left (kill -9 skips every handler) — a log and its checkpoint
    marker without their database too — before it starts writing."""
    import signal

    db = whole_sample

    for leftover in (".tmp.wal", ".tmp.wal.checkpoint"):  # a pid above Linux's default pid_max: no such process
        db.with_name(f"{db.name}.ingest-{2**22 + 12345}{leftover}").write_bytes(b"")
    before = db.read_bytes()
    proc = subprocess.Popen(
        [*CLI, "ingest", "--sample", "--no-progress", "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ignore_sigint if inherit_ignored else None,
    )
    tmp = db.with_name(f"{db.name}.ingest-{proc.pid}.tmp")
    deadline = time.monotonic() + 60
    while not tmp.exists():  # writing the new database
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.01)
    wait_for_cpu(proc, 0.3)  # into the writing, by the child's own progress (not a sleep a loaded machine outlasts)
    for _ in range(times):
        proc.send_signal(getattr(signal, signame))
        wait_for_cpu(proc, 0.01)  # the next Ctrl-C comes while it stops (False when it has already ended)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert err == f"error: ingest: {said}; nothing was replaced: the database is as it was\n"
    assert out == ""
    assert db.read_bytes() == before
    assert sorted(p.name for p in db.parent.iterdir()) == [db.name]  # no lock file left either


#: Child programs that send the ingest a signal at a set point of its run, not after a guessed sleep: right after the
#: new database is swapped in (os.replace), and right after the report's "wrote" line (then the process frees the
#: run's memory: half a second after the 2019 dump, when a SIGTERM ended it with 143 and no word).
_SIGNAL_AT = {
    "swap": (
        "import os, signal\n"
        "real = os.replace\n"
        "def replace(src, dst):\n"
        "    real(src, dst)\n"
        "    os.kill(os.getpid(), signal.{sig})\n"
        "os.replace = replace\n"
    ),
    "report": (
        "import os, signal, click\n"
        "real = click.echo\n"
        "def echo(message=None, *args, **kwargs):\n"
        "    real(message, *args, **kwargs)\n"
        "    if str(message).startswith('wrote '):\n"
        "        os.kill(os.getpid(), signal.{sig})\n"
        "click.echo = echo\n"
    ),
}


@pytest.mark.parametrize(("point", "signame"), [("swap", "SIGTERM"), ("report", "SIGTERM"), ("report", "SIGINT")])
def test_a_signal_once_the_new_database_is_in_place_lets_the_ingest_finish(
    db: Path, small_files: list[Path], point: str, signame: str
) -> None:
    """Once the new database is swapped in the run has succeeded: a signal then does not stop it: exit 143
    would say the old database was kept (docs/cli.md) while the new one is in place, and a Ctrl-C must not say
    "nothing was replaced"."""
    code = _SIGNAL_AT[point].format(sig=signame) + "from oracle_tools.interfaces.cli import main\nmain()\n"
    done = subprocess.run(
        [sys.executable, "-c", code, *_ingest_small(small_files), "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert f"wrote {db} in " in done.stdout
    assert _runs(db) == [1, 2]  # the new database, with the run that wrote it
    assert sorted(p.name for p in db.parent.iterdir()) == [db.name, names_path(db).name]
    assert StoredNames.open(db) is not None  # and its names file, written for it


def test_a_damaged_database_is_replaced_when_asked(db: Path, small_db_path: Path, small_files: list[Path]) -> None:
    """A truncated file at --db: every command said "rebuild it with oracle-tools ingest", and the ingest (even
    with --replace-anyway) failed the same way — advice that looped. The ingest now says what is wrong and what
    to do, and --replace-anyway builds a new database in its place (of the small files: what replacing does
    does not depend on how many cards the new database holds)."""
    assert db.stat().st_size > 2_000_000
    with db.open("r+b") as f:
        f.truncate(1_000_000)
    damaged = db.read_bytes()
    refused = _cli_here(*_ingest_small(small_files), "--db", str(db))  # refused whatever it reads
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith(f"error: {db} is damaged (IO Error: ")
    assert refused.stderr.endswith(
        "so it cannot be read or added to; rerun with --replace-anyway to replace it with a new database (its "
        "change history goes with it), or move it away. Nothing was replaced.\n"
    )
    assert db.read_bytes() == damaged
    replaced = _cli_here(*_ingest_small(small_files), "--replace-anyway", "--db", str(db))
    assert replaced.returncode == 0, replaced.stderr
    assert f"warning: replaced {db}, which was damaged (IO Error: " in replaced.stderr
    assert _runs(db) == [1] and _cards(db) == _cards(small_db_path) > 100
    assert sorted(p.name for p in db.parent.iterdir()) == [db.name, names_path(db).name]  # no lock file left either


def _sample_cards(count: int) -> list[dict]:
    with gzip.open(Path(__file__).resolve().parents[1] / "oracle_tools/data/sample/cards-2019.json.gz") as f:
        return json.load(f)[:count]


def _bulk_file(folder: Path, cards: list[dict], name: str = "bad-cards.json.gz") -> Path:
    path = folder / name
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("[\n" + ",\n".join(json.dumps(c) for c in cards) + "\n]\n")
    return path


def _refused(db: Path, bulk: Path, *, child: bool = False) -> str:
    """The one error line of an ingest of ``bulk`` into ``db`` (new: no old database to compare with). Run in this
    process (CliRunner): what is checked is what the ingest says of a bad file, not the process (a child each cost
    a second of start-up); in a ``child`` when what the file holds would swell this process for the session."""
    args = ["ingest", "--bulk-file", str(bulk), "--no-progress", "--db", str(db)]
    if child:
        ran = _cli(*args)
        code, stderr, exception = ran.returncode, ran.stderr, None
    else:
        from click.testing import CliRunner

        from oracle_tools.interfaces.cli import main

        done = CliRunner().invoke(main, args)
        code, stderr, exception = done.exit_code, done.stderr, done.exception
    assert code == 2 and stderr.count("\n") == 1, (stderr, exception)
    assert not db.exists() and sorted(p.name for p in db.parent.iterdir()) == [bulk.name]
    return stderr


def test_a_compression_bomb_is_refused(tmp_path: Path) -> None:
    """12 cards with 3 MB of flavor_text each gzip to a few kB; ingested, every answer and bulk download holding
    them was megabytes (the server grew by a GB). A card object is at most object_limits.OBJECT_BYTES."""
    cards = [{**c, "flavor_text": "Z" * 3_000_000} for c in _sample_cards(12)]
    bulk = _bulk_file(tmp_path, cards)
    assert bulk.stat().st_size < 200_000
    line = _refused(tmp_path / "new.duckdb", bulk, child=True)  # 36 MB of text read: not in the test process
    size = len(json.dumps(cards[0]).encode())
    assert line == (
        f"error: {bulk}: object 1 (id {cards[0]['id']}) is {size:,} bytes of JSON, which no card object is (at most "
        "1,048,576); the file is damaged or not Scryfall's. Nothing was replaced.\n"
    )


@pytest.mark.parametrize("memory", ["48MB", "96MB", "192MB"])
def test_a_compression_bomb_is_refused_whatever_memory_the_ingest_has(tmp_path: Path, memory: str) -> None:
    """Objects past the size limit fill DuckDB's memory wherever the build is when they do, sometimes before the
    ingest's keep has measured them (a loaded machine's CI met it at 256 MB, in a commit): that the file holds such
    an object is the true cause, and the line says it, never that the ingest needed more memory."""
    cards = [{**c, "flavor_text": "Z" * 3_000_000} for c in _sample_cards(12)]
    bulk = _bulk_file(tmp_path, cards)
    db = tmp_path / "new.duckdb"
    script = (  # a child: the 36 MB of text it reads does not stay in this process for the session
        "import sys\nfrom pathlib import Path\nfrom oracle_tools import ingest\nfrom oracle_tools.errors import IngestError\n"
        f"try:\n    ingest.Ingest(Path({str(db)!r}), progress=False, memory_limit={memory!r})"
        f".run([ingest.sniff({str(bulk)!r})])\n"
        "except IngestError as exc:\n    print(exc)\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    size = len(json.dumps(cards[0]).encode())
    assert ran.stdout == (
        f"{bulk}: object 1 (id {cards[0]['id']}) is {size:,} bytes of JSON, which no card object is (at most "
        "1,048,576); the file is damaged or not Scryfall's. Nothing was replaced.\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [bulk.name]


@pytest.mark.parametrize(
    "error",
    [  # DuckDB's words, as the ingest met them
        duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block of size 2.8 MiB (61.2/61.0 used)"),
        duckdb.TransactionException(
            "TransactionContext Error: Failed to commit: failed to allocate data of size 4.0 KiB (243.1/244.1 used)"
        ),
    ],
)
def test_running_out_of_memory_is_known_in_every_error_duckdb_says_it_in(error: Exception) -> None:
    from oracle_tools import ingest

    assert ingest._out_of_memory(error)
    assert not ingest._out_of_memory(duckdb.TransactionException("TransactionContext Error: Failed to commit"))


def test_every_text_field_has_a_limit(tmp_path: Path) -> None:
    every = _sample_cards(10_000)
    faced = next(i for i, c in enumerate(every) if c.get("card_faces"))
    cards = every[: faced + 1]
    cards[faced]["card_faces"][1]["oracle_text"] = "Draw a card. " * 1_000
    line = _refused(tmp_path / "new.duckdb", _bulk_file(tmp_path, cards))
    assert f"the object with id {cards[faced]['id']} has a face.oracle_text of 13,000 characters, which no card" in line
    assert "(at most 10,100)" in line


@pytest.mark.parametrize(("place", "zstd"), [(5, False), (1_050, False), (5, True)])
def test_an_object_nested_deep_is_refused_naming_the_file_and_the_object(
    tmp_path: Path, place: int, zstd: bool
) -> None:
    """Nested 100,000 deep: within the first 1,000 objects the ingest failed with "this is a bug" (RecursionError
    while training the compression dictionary, no file named); after them it was ingested and every answer
    holding it failed with RecursionError. A card object nests at most object_limits.MAX_DEPTH levels. A zstd file named
    .json is read as zstd by every read, the one that finds which object too."""
    import zstandard

    cards = _sample_cards(1_100)
    bulk = tmp_path / "deep.json"
    texts = [json.dumps(c) for c in cards]
    deep = "[" * 100_000 + "]" * 100_000
    texts[place - 1] = texts[place - 1][:-1] + ', "extra": ' + deep + "}"
    data = ("[\n" + ",\n".join(texts) + "\n]\n").encode()
    bulk.write_bytes(zstandard.ZstdCompressor().compress(data) if zstd else data)
    line = _refused(tmp_path / "new.duckdb", bulk)
    assert line == (
        f"error: {bulk}: object {place:,} (id {cards[place - 1]['id']}) is nested more than 32 levels deep, which no "
        "card object is (real ones nest 4); the file is damaged or not Scryfall's. Nothing was replaced.\n"
    )


@pytest.mark.parametrize("name", ["", "   ", "\u200b\u3000"])
def test_a_card_without_a_name_is_refused(tmp_path: Path, name: str) -> None:
    """CR 201.2: every card has a name. Objects named "" or "   " were ingested as cards."""
    cards = _sample_cards(20)
    cards[3]["name"] = name
    line = _refused(tmp_path / "new.duckdb", _bulk_file(tmp_path, cards))
    assert line == (
        f"error: {tmp_path / 'bad-cards.json.gz'}: the object with id {cards[3]['id']} has an empty name (or only "
        "spaces), which no card has; the file is damaged or not Scryfall's. Nothing was replaced.\n"
    )


def test_the_limits_are_checked_on_the_objects_kept_not_by_another_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size and depth limits were checked by a third read of each card file before the ingest (about 0.8 s of
    CPU for the 2019 dump): they are checked on the objects the ingest compresses to keep, and a file within them is
    never read again for them (the refusals above still name the file, the object and the limit)."""
    from oracle_tools import OracleDB
    from oracle_tools.store import object_limits

    def read_again(*_: object, **__: object) -> None:
        raise AssertionError("a file within the limits was read again to check them")

    monkeypatch.setattr(object_limits, "check_objects", read_again)
    sample = Path(__file__).resolve().parents[1] / "oracle_tools/data/sample/cards-2024.json.gz"
    with OracleDB.ingest_files(tmp_path / "new.duckdb", [sample]) as db:
        assert db.con.execute("SELECT count(*) FROM scryfall_objects").fetchall()[0][0] == 187


@pytest.mark.parametrize(
    ("texts", "past"),
    [
        (["{}", "", '{"a": [1, {"b": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}]}'], False),  # brackets in a string
        (["", '{"a": ' + "[" * 40 + "]" * 40 + "}", "{}"], True),
        (["{}", '{"a": "' + "x" * (1 << 20) + '"}'], True),
        ([], False),
        ([""], False),
    ],
)
def test_duckdb_flags_each_object_that_may_be_past_the_limits_and_those_are_measured(
    texts: list[str], past: bool
) -> None:
    """DuckDB flags the texts that may be past the limits (larger than object_limits.OBJECT_BYTES, or more opening brackets
    than object_limits.MAX_DEPTH: real objects nest 4), and only those are measured exactly: brackets inside a string are
    no nesting."""
    import duckdb

    from oracle_tools.store import object_limits

    flagged = (
        duckdb.connect()
        .execute(f"SELECT {object_limits.may_be_past_limits_sql('t')} FROM unnest(?::VARCHAR[]) AS u(t)", [texts])
        .fetchall()
    )
    assert any(object_limits.past_limits(text) for text, (flag,) in zip(texts, flagged, strict=True) if flag) is past
    assert all(flag or not object_limits.past_limits(text) for text, (flag,) in zip(texts, flagged, strict=True))


@pytest.mark.parametrize(
    ("name", "content", "kind"),
    [
        ("cards.json.gz", (SAMPLE / "cards-2024.json.gz").read_bytes(), "a gzip file"),
        ("cards.json", b'[{"object": "card", "name": "Shock"}]\n', "JSON text"),
        ("notes.duckdb", b"name,count\nShock,4\n", "a text file"),
    ],
)
@pytest.mark.parametrize("anyway", [False, True])
def test_a_file_that_is_no_database_is_never_replaced(
    tmp_path: Path, small_files: list[Path], name: str, content: bytes, kind: str, anyway: bool
) -> None:
    """A Scryfall gzip given as --db was called "damaged" (DuckDB's read-only open of it fails with "Cannot launch
    in-memory database"), and following the advice, --replace-anyway, replaced the user's file with a database.
    What a file is comes from its first bytes (DuckDB's magic at offset 8): a file of another kind is refused in
    one line, whatever the options, and nothing is written beside it either."""
    user_file = tmp_path / name
    user_file.write_bytes(content)
    args = [*_ingest_small(small_files), "--db", str(user_file), *(["--replace-anyway"] if anyway else [])]
    refused = _cli_here(*args)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith(f"error: --db {user_file}: is {kind}, not a DuckDB database")
    assert "not even with --replace-anyway; nothing was written. Give --db a new path" in refused.stderr
    assert "damaged" not in refused.stderr
    assert user_file.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_an_empty_file_at_db_becomes_the_new_database(tmp_path: Path, small_files: list[Path]) -> None:
    """An empty file (`touch`, `mktemp`) holds no one's data: DuckDB 2.0 refuses it as "not a valid DuckDB database
    file", and the ingest called it damaged. It is built into as a path that does not exist yet."""
    empty = tmp_path / "oracle.duckdb"
    empty.touch()
    done = _cli_here(*_ingest_small(small_files), "--db", str(empty))
    assert done.returncode == 0, done.stderr
    assert "damaged" not in done.stderr
    assert _runs(empty) == [1] and _cards(empty) > 100
    assert sorted(p.name for p in tmp_path.iterdir()) == [empty.name, names_path(empty).name]


def _state(pid: int) -> bytes:
    """The state letter of a Linux process (R, S, Z …) from /proc/PID/stat."""
    return Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[0]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="zombies are told apart through Linux's /proc")
def test_a_killed_ingest_not_yet_reaped_is_not_running(db: Path) -> None:
    """An ingest killed with SIGKILL whose parent has not reaped it yet is a zombie: `kill(pid, 0)` still succeeds,
    so `info` said an ingest was building the database and the next ingest left the killed one's files. A real
    zombie (a child killed and not waited for) counts as stopped; a running child as running."""
    import signal

    from oracle_tools.ingest import temp_files

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        left = db.with_name(f"{db.name}.ingest-{child.pid}.tmp")
        left.write_bytes(b"\0" * 4096)
        assert temp_files(db) == [(left, True)]
        child.send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 30
        while _state(child.pid) != b"Z":  # killed, not reaped: nobody has called wait()
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert temp_files(db) == [(left, False)]
        done = _cli_here("info", "--db", str(db))
        assert (
            f"temp file {left} (0.0 MB): left by an ingest that was stopped; the next ingest removes it" in done.stdout
        )
    finally:
        child.kill()
        child.wait()
