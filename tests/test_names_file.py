"""The names file an ingest writes beside the database (oracle_tools/names/stored.py): a fresh process resolves names
from it without DuckDB or Polars, with the answers of the database itself; a copied, touched, other-version or
damaged one is never read (the database answers, the same); a failed ingest leaves the old pair as it was.

That the names file's answers are the in-memory index's field for field, for every name of the sample and a sample
of the real data (misses, fuzzy, faces, foreign, ambiguous, classes, tokens), is checked in tests/test_lookup.py
(its ``stored`` strategy); former names in tests/test_changes.py.
"""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from oracle_tools import OracleDB
from oracle_tools.errors import IngestError
from oracle_tools.names import stored
from oracle_tools.names.point import ANSWERS_KEPT, NameRow, PointNames
from oracle_tools.names.stored import StoredNames, names_path
from oracle_tools.store.schema_version import SCHEMA_VERSION

#: Names of every kind the sample answers: a card, a split card typed with a slash (normalized), a face of a
#: split / flip / double-faced / adventure card, a meld result (CR 712.4b) and a back face (712.8a) with their notes,
#: a foreign printed name, a misspelling (suggestions), a fragment (ambiguous when fuzzy), a token name.
TEXTS = [
    "Lightning Bolt",
    "fire/ice",
    "Ice",
    "Insectile Aberration",
    "Brisela, Voice of Nightmares",
    "Bonecrusher Giant",
    "Stomp",
    "Rayo",
    "Foudre",
    "Tarmogoyff",
    "jace",
    "Treasure",
    "Nope Nope",
]


def _answers(db: OracleDB, texts: list[str]) -> list[dict]:
    return [db.resolve(t).to_dict() for t in texts] + [db.resolve(t, fuzzy=True).to_dict() for t in texts]


def _linked_pair(db_path: Path, folder: Path, name: str = "linked.duckdb") -> Path:
    """``db_path`` and its names file as hard links in ``folder`` (the same inode: the names file stays valid)."""
    linked = folder / name
    os.link(db_path, linked)
    os.link(names_path(db_path), names_path(linked))
    return linked


def test_the_ingest_writes_a_names_file_that_answers_every_lookup(sample_db_path: Path) -> None:
    assert names_path(sample_db_path) == sample_db_path.with_name("sample.duckdb.names.sqlite")
    assert StoredNames.open(sample_db_path) is not None
    with OracleDB(sample_db_path) as db:
        names = [n for (n,) in db.con.execute("SELECT DISTINCT name FROM names ORDER BY name LIMIT 80").fetchall()]
        got = [db.resolve(t).to_dict() for t in names + TEXTS]
        assert isinstance(db._names(), StoredNames)
        assert db._name_index is None  # past OracleDB.POINT_LOOKUPS: the names file answers on, no index is built
        assert got == [db.name_index.resolve(t).to_dict() for t in names + TEXTS]


@pytest.mark.parametrize(
    "how", ["missing", "copied", "touched", "other schema", "other format", "not sqlite", "fifo", "folder", "device"]
)
def test_a_names_file_not_written_for_this_database_is_not_read(sample_db_path: Path, tmp_path: Path, how: str) -> None:
    with OracleDB(sample_db_path) as db:
        expected = _answers(db, TEXTS)
    if how == "copied":  # a copy is another file (inode), even with its names file and times copied
        path = tmp_path / "copy.duckdb"
        shutil.copy2(sample_db_path, path)
        shutil.copy2(names_path(sample_db_path), names_path(path))
    elif how == "touched":  # a copy with a names file written for it, then its time changed (a hard link's would
        path = tmp_path / "copy.duckdb"  # change the original's)
        shutil.copy(sample_db_path, path)
        stored.write(path, names_path(path))
        assert StoredNames.open(path) is not None
    else:
        path = tmp_path / "linked.duckdb"
        os.link(sample_db_path, path)
        if how != "missing":
            shutil.copy(names_path(sample_db_path), names_path(path))
    if how == "touched":
        os.utime(path, ns=(0, 0))
    elif how in ("other schema", "other format"):
        key, value = ("schema_version", SCHEMA_VERSION + 1) if how == "other schema" else ("format", stored.FORMAT + 1)
        with sqlite3.connect(names_path(path)) as con:
            con.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))
        con.close()
    elif how == "not sqlite":
        names_path(path).write_bytes(b"not a names file\n" * 100)
    elif how in ("fifo", "folder", "device"):  # a FIFO: SQLite's open waited for a writer forever, through SIGTERM
        names_path(path).unlink()
        {"fifo": os.mkfifo, "folder": os.mkdir, "device": lambda p: os.symlink("/dev/zero", p)}[how](names_path(path))
    opened: list[StoredNames | None] = []
    opening = threading.Thread(target=lambda: opened.append(StoredNames.open(path)), daemon=True)
    opening.start()
    opening.join(60)  # (returns at once: a wait here is a regression, failed rather than hung)
    assert opened == [None]
    with OracleDB(path) as db:
        assert _answers(db, TEXTS) == expected
        assert isinstance(db._names(), PointNames)  # the database's own names answered


def test_a_names_file_damaged_after_it_was_written_is_set_aside(sample_db_path: Path, tmp_path: Path) -> None:
    """A names file whose pages were damaged after the ingest wrote it (its stamp still matches) failed the lookups
    that read those pages with "this is a bug in oracle-tools" (SQLite's "database disk image is malformed"). It is
    a copy of what the database holds: every answer comes from the database then, and the file is not asked again."""
    with OracleDB(sample_db_path) as db:
        expected = _answers(db, TEXTS)
        deck = db.check_deck("4 Tarmogoyf\n4 Fire/Ice\n52 Island\n", format="legacy").to_dict()
        token = db.token("Treasure").to_dict()
    path = tmp_path / "linked.duckdb"
    os.link(sample_db_path, path)
    shutil.copy(names_path(sample_db_path), names_path(path))
    with sqlite3.connect(names_path(path)) as con:
        page, first_table = (
            con.execute("PRAGMA page_size").fetchone()[0],
            con.execute("SELECT min(rootpage) FROM sqlite_master WHERE name != 'meta'").fetchone()[0],
        )
    con.close()
    with names_path(path).open("r+b") as damaged:  # every page of every table but the stamp's, garbage
        size = damaged.seek(0, os.SEEK_END)
        damaged.seek((first_table - 1) * page)
        damaged.write(random.Random(5).randbytes(size - (first_table - 1) * page))
    assert StoredNames.open(path) is not None  # the stamp is read and matches: the damage is met by the lookups
    with OracleDB(path) as db:
        assert _answers(db, TEXTS) == expected
        assert db._names_file() is None and isinstance(db._names(), PointNames)
    for ask in (OracleDB.token, lambda db, _: db.check_deck("4 Tarmogoyf\n4 Fire/Ice\n52 Island\n", format="legacy")):
        with OracleDB(path) as db:  # each first met the damage in its own process
            assert ask(db, "Treasure").to_dict() == (token if ask is OracleDB.token else deck)
    cli = subprocess.run(
        [sys.executable, "-m", "oracle_tools", "--db", str(path), "resolve", "Tarmogoyff"],
        capture_output=True,
        text=True,
    )
    assert (cli.returncode, cli.stderr) == (1, "")
    assert "Tarmogoyf" in cli.stdout


@pytest.mark.parametrize(
    "edit",
    [
        "UPDATE suggestions SET names = 'not json'",  # JSONDecodeError said "this is a bug"
        "UPDATE suggestions SET names = '[]'",  # IndexError on the first miss
        "UPDATE suggestions SET printings = '[1]'",
        "UPDATE names SET card_name = NULL WHERE key = 'lightning bolt'",  # a card the file does not name: KeyError
        "UPDATE names SET oracle_id = 'no such card', card_name = NULL WHERE key = 'lightning bolt'",
        "UPDATE names SET face_index = 'x' WHERE key = 'lightning bolt'",  # answered face_index 'x'
        "UPDATE face_notes SET parts = 'not json'",  # the meld result's note: JSONDecodeError
        "UPDATE face_notes SET parts = '5'",  # TypeError
        "UPDATE face_notes SET card = NULL",  # the back face's note: AttributeError
        "UPDATE token_suggestions SET name = NULL",  # a miss's token names
    ],
)
def test_a_names_file_with_rows_the_ingest_did_not_write_is_set_aside(
    sample_db_path: Path, tmp_path: Path, edit: str
) -> None:
    """A names file whose rows were edited into values the ingest never writes (SQLite keeps a NULL or a text where
    a number goes) failed lookups with a traceback or answered what the edit wrote. It is damage like a broken page:
    the file is set aside and the database answers."""
    with OracleDB(sample_db_path) as db:
        expected = _answers(db, TEXTS)
    path = tmp_path / "linked.duckdb"
    os.link(sample_db_path, path)
    shutil.copy(names_path(sample_db_path), names_path(path))
    with sqlite3.connect(names_path(path)) as con:
        assert con.execute(edit).rowcount
    con.close()
    with OracleDB(path) as db:
        assert _answers(db, TEXTS) == expected
        assert db._names_file() is None


@pytest.mark.parametrize(
    ("damage", "set_aside"),
    [
        # the word index's blobs, not whole uint32s or not bytes: the matcher builds its index from the keys
        ("UPDATE word_index SET postings = substr(postings, 1, 10)", False),
        ("UPDATE word_index SET starts = 'abc'", False),
        # the suggestions row: lists not one name and one count per key, or no row (the ingest writes one)
        ("UPDATE suggestions SET names = '{\"a\": 1}'", True),
        ("UPDATE suggestions SET names = '[\"Lightning Bolt\"]'", True),
        ("UPDATE suggestions SET printings = (SELECT json_group_array('x') FROM json_each(printings))", True),
        ("UPDATE suggestions SET printings = 'null'", True),
        ("UPDATE suggestions SET keys = 'a' || char(10) || 'b'", True),
        ("DELETE FROM suggestions", True),
        # a token name row with a NULL
        ("UPDATE token_suggestions SET key = NULL", True),
        ("UPDATE token_suggestions SET name = NULL WHERE line = 3", True),
    ],
)
def test_a_names_file_whose_matcher_rows_do_not_hold_together_answers_as_the_database(
    sample_db_path: Path, tmp_path: Path, damage: str, set_aside: bool
) -> None:
    """Matcher rows of the wrong shape failed a miss with an IndexError, TypeError or ValueError ("this is a bug"),
    or offered no names at all; each miss is answered as the database answers it."""
    texts = ["Tarmogoyff", "jace", "lightnig bolt", "Nope Nope", "Rayo"]
    with OracleDB(sample_db_path) as db:
        expected = _answers(db, texts) + [db.token(t).to_dict() for t in ("Tresure", "Goblin")]
    path = tmp_path / "linked.duckdb"
    os.link(sample_db_path, path)
    shutil.copy(names_path(sample_db_path), names_path(path))
    with sqlite3.connect(names_path(path)) as con:
        con.execute(damage)
    con.close()
    with OracleDB(path) as db:
        assert _answers(db, texts) + [db.token(t).to_dict() for t in ("Tresure", "Goblin")] == expected
        assert (db._names_file() is None) == set_aside


def test_a_fresh_process_resolves_without_duckdb_or_polars(sample_db_path: Path) -> None:
    code = (
        "import sys\nfrom oracle_tools import OracleDB\n"
        f"db = OracleDB({str(sample_db_path)!r})\n"
        f"answers = [db.resolve(t, fuzzy=f).status for t in {TEXTS!r} for f in (False, True)]\n"
        "print(sorted(set(answers)), *sorted(m for m in ('duckdb', '_duckdb', 'polars', 'pyarrow') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["['ambiguous',", "'not_found',", "'ok']"], out
    # the command too: `oracle-tools resolve NAME` (a hit with a note, a miss with suggestions)
    for name in ("Insectile Aberration", "Tarmogoyff"):
        cli = (
            "import sys\nfrom oracle_tools.interfaces.cli import main\n"
            f"try:\n    main(['--db', {str(sample_db_path)!r}, 'resolve', {name!r}], standalone_mode=False)\n"
            "except SystemExit:\n    pass\n"
            "print('LOADED:', *sorted(m for m in ('duckdb', '_duckdb', 'polars', 'pyarrow') if m in sys.modules))"
        )
        out = subprocess.run([sys.executable, "-c", cli], capture_output=True, text=True, check=True).stdout
        assert out.rsplit("LOADED:", 1)[1].split() == [], out
        assert "Delver of Secrets" in out or "Tarmogoyf" in out


def test_threads_of_a_server_share_one_names_file(sample_db_path: Path) -> None:
    texts = [t for t in TEXTS for _ in range(20)]
    with OracleDB(sample_db_path) as db:
        expected = [db.name_index.resolve(t).to_dict() for t in TEXTS]
        db._name_index = None  # answered by the names file again (a server that never warmed the index)
        got: dict[int, list[dict]] = {}

        def work(number: int) -> None:
            cursor = db.con.cursor()
            view = db.on_connection(cursor)
            assert view._names_file() is db._names_file() is not None  # one SQLite connection
            got[number] = [view.resolve(t).to_dict() for t in texts]
            cursor.close()

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [got[n] for n in range(4)] == [[a for a in expected for _ in range(20)]] * 4


def test_the_answers_kept_are_bounded(sample_db_path: Path) -> None:
    names = StoredNames.open(sample_db_path)
    assert names is not None
    texts = [f"Lightning Bolt {n}" for n in range(ANSWERS_KEPT + 500)]  # a server's unbounded distinct strings
    first = names.lookup("Lightning Bolt")
    for text in texts:
        names.lookup(text)
    assert len(names._answers) <= ANSWERS_KEPT
    assert names.lookup("Lightning Bolt") == first  # asked again after it was let go: the same answer


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_failed_ingest_keeps_the_old_pair(
    sample_db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _linked_pair(sample_db_path, tmp_path)
    before = (stored.file_stamp(path), names_path(path).read_bytes())
    with OracleDB(path) as db:
        expected = _answers(db, TEXTS)

    def full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(stored, "_copy", full)  # the names file cannot be written: the ingest fails
    with pytest.raises((OSError, IngestError)):
        OracleDB.ingest_sample(path)
    monkeypatch.undo()
    assert (stored.file_stamp(path), names_path(path).read_bytes()) == before
    assert _files(tmp_path) == ["linked.duckdb", "linked.duckdb.names.sqlite"]  # no temp file left
    assert StoredNames.open(path) is not None
    # stopped between the two renames: the new names file beside the old database is stale, never read
    real = os.replace

    def stop_before_the_database(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(dst) == path:
            raise KeyboardInterrupt
        real(src, dst)

    monkeypatch.setattr(os, "replace", stop_before_the_database)
    with pytest.raises(KeyboardInterrupt):
        OracleDB.ingest_sample(path)
    monkeypatch.undo()
    assert stored.file_stamp(path) == before[0]  # the old database
    assert StoredNames.open(path) is None
    with OracleDB(path) as db:
        assert _answers(db, TEXTS) == expected
        assert isinstance(db._names(), PointNames)


def test_a_folder_where_the_names_file_goes_is_named_and_the_old_pair_kept(
    sample_db_path: Path, tmp_path: Path
) -> None:
    """The error named the ingest's temp file ("Is a directory: …ingest-PID.tmp.names.sqlite"), not the folder."""
    path = tmp_path / "linked.duckdb"
    os.link(sample_db_path, path)
    names_path(path).mkdir()
    before = stored.file_stamp(path)
    with pytest.raises(IngestError, match=r"linked\.duckdb\.names\.sqlite is a folder.*move it away"):
        OracleDB.ingest_sample(path)
    assert stored.file_stamp(path) == before and names_path(path).is_dir()
    assert _files(tmp_path) == ["linked.duckdb", "linked.duckdb.names.sqlite"]  # no temp file left


def test_a_database_opened_after_a_reingest_does_not_answer_from_the_old_names_file(
    sample_db_path: Path, tmp_path: Path
) -> None:
    path = _linked_pair(sample_db_path, tmp_path)
    with OracleDB(path) as db:
        some = random.Random(5).sample(TEXTS, 5)
        first = [db.resolve(t).to_dict() for t in some]
        assert isinstance(db._names(), StoredNames)
        OracleDB.ingest_sample(path)  # a new pair replaces the one this object opened its names file from
        assert db.con is not None  # the database opened now is the new file
        assert isinstance(db._names(), PointNames)  # the old names file is not mixed with it
        assert [db.resolve(t).to_dict() for t in some] == first  # the sample again: the same answers
    assert StoredNames.open(path) is not None  # the new pair is consistent


def _catches(pid: int, signum: int) -> bool:
    """Whether the process ``pid`` has a handler of its own for ``signum`` (its SigCgt mask in /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


def test_ctrl_c_while_resolve_imports_duckdb_after_all_is_one_line(sample_db_path: Path, tmp_path: Path) -> None:
    """`resolve NAME` no longer imports DuckDB's core before the command (the names file answers without it); on a
    database without a names file it imports it inside the command, with Ctrl-C held until the import is done:
    a KeyboardInterrupt inside the core's initialisation aborted the process ("Critical nanobind error", -6).
    Ctrl-C at any moment is one line and 130, or the whole answer."""
    import signal

    from processes import wait_for_cpu

    db = tmp_path / "copy.duckdb"  # no names file beside it: the names come from the database, through DuckDB
    shutil.copy(sample_db_path, db)
    args = [sys.executable, "-m", "oracle_tools", "resolve", "Lightning Bolt", "--db", str(db)]
    whole = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert whole.returncode == 0 and whole.stdout.startswith("Lightning Bolt"), whole.stderr
    interrupted = 0
    for moment in (0, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.15) * 2:
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            while proc.poll() is None and not _catches(proc.pid, signal.SIGTERM):  # its first line has run
                pass
            wait_for_cpu(proc, moment)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
        if proc.returncode == 130:
            interrupted += 1
            assert err in ("error: oracle-tools: interrupted\n", "error: resolve: interrupted\n"), (moment, err)
        else:
            assert (proc.returncode, out, err) == (0, whole.stdout, whole.stderr), (moment, proc.returncode, err)
    assert interrupted


def test_a_prefetch_of_more_strings_than_are_kept_keeps_its_own_answers(sample_db_path: Path) -> None:
    """A batch prefetches its strings in one read and then reads each answer: the bound let a prefetch of more than
    ANSWERS_KEPT strings lose most of them at once, so each was looked up again alone (a sample test took 300 s)."""
    names = StoredNames.open(sample_db_path)
    assert names is not None
    texts = [f"Lightning Bolt {n}" for n in range(ANSWERS_KEPT + 500)]
    reads: list[int] = []
    rows = names._rows

    def counted(keys: list[str]) -> list[NameRow]:
        reads.append(len(keys))
        return rows(keys)

    names._rows = counted  # type: ignore[method-assign]
    names.prefetch(texts)
    assert all(names.lookup(text) is None for text in texts)  # no such names: misses, from the one read
    assert len(reads) == 1
    names.lookup("Lightning Bolt")  # the next string: the oldest answers go, not beyond the bound
    assert len(names._answers) == ANSWERS_KEPT
