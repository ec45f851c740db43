"""Hardening: errors that blamed the wrong thing get their own true line (real processes, a real full disk)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from oracle_tools.errors import OracleToolsError

CLI = [sys.executable, "-m", "oracle_tools.interfaces.cli"]


def _cli(*args: str | bytes, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def test_an_empty_db_is_bad_usage_not_a_bug(sample_db_path: Path) -> None:
    done = _cli("resolve", "Foudre", "--db", "")
    assert done.returncode == 2 and "bug" not in done.stderr
    assert done.stderr == (
        "error: Invalid value for '--db' (env var: 'ORACLE_TOOLS_DB'): is empty (or the current folder); give a "
        "database file such as data/oracle.duckdb (try 'python -m oracle_tools.interfaces.cli resolve -h' for help)\n"
    )
    folder = _cli("resolve", "Foudre", "--db", str(sample_db_path.parent))
    assert folder.returncode == 2
    assert "is a directory" in folder.stderr.splitlines()[-1] and "bug" not in folder.stderr


def test_a_non_utf8_argument_is_named_not_blamed_on_the_database(sample_db_path: Path) -> None:
    done = subprocess.run(
        [*CLI, "resolve", b"\xff\xfe", "--db", str(sample_db_path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "error: argument 2 (\\xff\\xfe) is not valid UTF-8 text (byte 0xff at position 0); give UTF-8 text, or check "
        "the encoding of the terminal or script that passed it\n"
    )


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs: a real disk that fills up (mounting needs root, which CI's machine has)."""
    where = tmp_path / "tiny"
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({mounted.stderr.decode().strip()}): needs root")
    yield where
    subprocess.run(["umount", str(where)], check=False)


def test_a_full_disk_during_ingest_says_so(full_disk: Path) -> None:
    db = full_disk / "oracle.duckdb"
    done = _cli("ingest", "--sample", "--no-progress", "--db", str(db))
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    line = done.stderr
    assert line.startswith("error: ingest: the disk is full (") and "No space left on device" in line
    assert line.endswith("; free some space or write elsewhere. Nothing was replaced: the database is as it was.\n")
    assert "check that --db is an oracle-tools database" not in line
    assert not db.exists() and not any(p.name.endswith(".tmp") for p in full_disk.iterdir())
    assert os.statvfs(full_disk).f_bfree > 0  # the temp file went away with the failure


def test_a_full_disk_met_while_keeping_the_card_objects_is_said_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where DuckDB runs out of room depends on the files and the disk: a full disk met while the card objects are
    kept (or a file is read) is the same full disk — exit 1 and its one line — never "cannot be kept as Scryfall card
    objects", which blames the input."""
    import duckdb
    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main
    from oracle_tools.store import scryfall_objects

    def full(*args: object, **kwargs: object) -> None:
        raise duckdb.IOException(
            'IO Error: Could not write file "oracle.duckdb.ingest-1.tmp.wal": No space left on device'
        )

    monkeypatch.setattr(scryfall_objects, "keep", full)
    db = tmp_path / "oracle.duckdb"
    done = CliRunner().invoke(main, ["ingest", "--sample", "--no-progress", "--db", str(db)])
    assert done.exit_code == 1, done.output
    assert done.output.startswith("error: ingest: the disk is full (") and done.output.count("\n") == 1
    assert "cannot be kept" not in done.output and not db.exists()


def test_a_full_disk_met_while_writing_the_names_file_is_said_as_one(
    sample_db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite words a full disk "database or disk is full": met while the names file was written, it was "ingest
    failed unexpectedly … this is a bug". It is the full disk's one line, and the database there is as it was."""
    import shutil
    import sqlite3

    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main
    from oracle_tools.names import stored

    def full(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    db = tmp_path / "oracle.duckdb"
    shutil.copy(sample_db_path, db)
    before = db.read_bytes()
    monkeypatch.setattr(stored, "write", full)
    done = CliRunner().invoke(main, ["ingest", "--sample", "--no-progress", "--db", str(db)])
    assert done.exit_code == 1, done.output
    assert done.output.startswith("error: ingest: the disk is full ([Errno 28] No space left on device (writing ")
    assert done.output.endswith("Nothing was replaced: the database is as it was.\n") and "bug" not in done.output
    assert db.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["oracle.duckdb"]


def _library_errors() -> list[type[OracleToolsError]]:
    """Every error class the package defines: its modules imported (the doors' too), the classes walked."""
    import importlib
    import pkgutil

    import oracle_tools

    for module in pkgutil.walk_packages(oracle_tools.__path__, "oracle_tools."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    found: list[type[OracleToolsError]] = []
    todo: list[type[OracleToolsError]] = [OracleToolsError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_every_library_error_carries_its_status_for_each_door() -> None:
    """One hierarchy says how every door answers an error: a miss is the answer "no" (exit 1, HTTP 404), the
    server's database missing or older than the program is the server's fault (HTTP 503), anything else is the
    request's (exit 2, a 4XX): no door chooses a status by the error's class."""
    from oracle_tools.errors import DatabaseMissingError, DatabaseOutdatedError, NameNotFoundError, NotFoundError

    errors = _library_errors()
    assert len(errors) > 15  # the walk found the errors the layers define, not only errors.py's
    for cls in errors:
        server_side = issubclass(cls, (DatabaseMissingError, DatabaseOutdatedError))
        miss = issubclass(cls, (NameNotFoundError, NotFoundError))
        assert (cls.http_status >= 500) == server_side, cls
        assert 400 <= cls.http_status < 600, cls
        assert cls.exit_status == (1 if miss else 2), cls
        assert (cls.http_status == 404) == miss, cls
    assert NameNotFoundError("x", ambiguous=True).api_type == "ambiguous" and NameNotFoundError("x").api_type is None
