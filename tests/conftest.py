"""Shared test fixtures.

Tests that read ``../shared/realdata`` use the ``realdata`` fixture and skip only
when that folder is absent (CI always has it beside the checkout).
"""

from __future__ import annotations

import os

# Polars' allocator (jemalloc) hands freed pages back to the system at once instead of keeping them for reuse: a test
# module's frames are gone when it ends, and the suite's peak stays what one module needs, not what all of them kept.
# Read when Polars loads, so set before anything imports it.
os.environ.setdefault("_RJEM_MALLOC_CONF", "background_thread:true,dirty_decay_ms:0,muzzy_decay_ms:0")

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # imported inside the fixtures: collecting the tests does not load the package
    from oracle_tools import OracleDB

    from oracle_server import Server

REPO = Path(__file__).resolve().parents[1]
REALDATA = Path(os.environ.get("ORACLE_TOOLS_REALDATA", REPO.parent / "shared" / "realdata"))

#: DuckDB's memory limit for the ingests the tests run (the library's default is 2 GB): the real files build
#: within it by spilling, and the suite stays under 1 GB of resident memory on a CI machine.
TEST_INGEST_MEMORY = "600MB"

DUMP_2019 = "scryfall-default-cards-2019-10-per-set-dump.json.gz"
FILE_2024 = "scryfall-search-2024-mh3-otj-fdn.json.gz"
FOREIGN_2022 = "scryfall-foreign-printings-from-mtgjson-2022.json.gz"

_BUILD_IN_CHILD = """
import json, sys
from pathlib import Path
from oracle_tools import ingest
spec = json.loads(sys.argv[1])
sources = ingest.sample_sources() if spec["sample"] else [ingest.sniff(Path(f)) for f in spec["files"]]
ingest.Ingest(
    Path(spec["path"]), progress=False, memory_limit=spec["memory"], replace_anyway=spec["replace_anyway"]
).run(sources)
"""


def pytest_configure(config: pytest.Config) -> None:
    # The ingests a test runs in this process build within the same limit as the shared databases below.
    from oracle_tools import ingest

    defaults = ingest.Ingest.__init__.__kwdefaults__
    assert defaults is not None and "memory_limit" in defaults
    defaults["memory_limit"] = TEST_INGEST_MEMORY


def build_in_child(
    path: Path, files: Sequence[Path] = (), *, sample: bool = False, replace_anyway: bool = False
) -> Path:
    """Ingest ``files`` (or the embedded sample) into ``path`` in a child process: what the build takes (DuckDB's
    buffers, the parsed objects) goes back to the system when the child ends, instead of staying in the test
    process for the rest of the session. Used for the real-data databases, each built once per session."""
    spec = {
        "path": str(path),
        "files": [str(f) for f in files],
        "sample": sample,
        "memory": TEST_INGEST_MEMORY,
        "replace_anyway": replace_anyway,
    }
    done = subprocess.run(
        [sys.executable, "-c", _BUILD_IN_CHILD, json.dumps(spec)], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return path


@pytest.fixture(scope="session")
def realdata() -> Path:
    if not REALDATA.is_dir():
        pytest.skip(f"real data folder {REALDATA} is absent")
    return REALDATA


@pytest.fixture(scope="session")
def sample_db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database built once per test session from the embedded sample (oracle_tools/data/sample/), in a child
    process as the real-data ones are (an ingest's peak, ~300 MB, stays out of the test process)."""
    return build_in_child(tmp_path_factory.mktemp("sample") / "sample.duckdb", sample=True)


@pytest.fixture
def built_before(sample_db_path: Path, tmp_path: Path) -> Callable[..., Path]:
    """``built_before("TABLE name_suggestions", "VIEW token_catalog")``: a copy of the sample database as an
    older version built it, without those layers (what the "database built before this table" checks meet)."""
    import shutil

    import duckdb

    def copy_without(*drops: str) -> Path:
        older = tmp_path / "older.duckdb"
        shutil.copy(sample_db_path, older)
        with duckdb.connect(str(older)) as con:
            for drop in drops:
                con.execute(f"DROP {drop}")
        return older

    return copy_without


@pytest.fixture(scope="session")
def sample_db(sample_db_path: Path) -> Iterator[OracleDB]:
    from oracle_tools import OracleDB

    db = OracleDB(sample_db_path)
    yield db
    db.close()


@pytest.fixture(scope="session")
def full_db(realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OracleDB]:
    """The real 2019 default-cards dump + the 2024 Scryfall objects + the foreign printings."""
    from oracle_tools import OracleDB

    path = tmp_path_factory.mktemp("full") / "full.duckdb"
    db = OracleDB(build_in_child(path, [realdata / DUMP_2019, realdata / FILE_2024, realdata / FOREIGN_2022]))
    _CLOSED_AFTER_EACH_MODULE.append(db)
    yield db
    db.close()


#: Session databases whose connection and answerers (name index, chooser, deck checker, …) are let go at the end of
#: every test module: the next module that reads one opens it again and builds only what it asks for. Without
#: this, everything any module built on the real data stayed in the test process for the rest of the session.
_CLOSED_AFTER_EACH_MODULE: list[OracleDB] = []


@pytest.fixture(scope="module", autouse=True)
def _let_go_after_the_module(request: pytest.FixtureRequest) -> Iterator[None]:
    """What a module kept for its own tests goes when it ends: the shared databases' answerers (above) and the
    module's ``functools`` caches (parsed real files, source trees), which would otherwise last the session."""
    yield
    for db in _CLOSED_AFTER_EACH_MODULE:
        db.close()  # OracleDB reopens on first use
    for value in vars(request.module).values():
        if (
            callable(getattr(value, "cache_clear", None))
            and getattr(value, "__module__", None) == request.module.__name__
        ):
            value.cache_clear()


@pytest.fixture(scope="session")
def db_2024_path(realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real 2024 Scryfall objects alone (MH3, OTJ, FDN), built once per session: the whole objects kept
    and the ones rebuilt from the tables are each compared with that file's own."""
    return build_in_child(tmp_path_factory.mktemp("2024") / "2024.duckdb", [realdata / FILE_2024])


@pytest.fixture(scope="session")
def ingest_steps(realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One database after each of a sequence of ingests, copied: ``first`` (2019), ``second`` (2019 + 2024),
    ``again`` (the same files), ``foreign`` (the 2022 foreign printings alone), ``failed`` (a broken file),
    ``sample`` (ingest --sample). The change history reads the sequence; ``second`` is also the 2019 + 2024
    database the tests of name mentions read."""
    from oracle_tools import OracleDB
    from oracle_tools.errors import IngestError

    folder = tmp_path_factory.mktemp("steps")
    db = folder / "oracle.duckdb"
    out: dict[str, Path] = {}

    def keep(step: str) -> None:
        out[step] = folder / f"{step}.duckdb"
        shutil.copy(db, out[step])

    build_in_child(db, [realdata / DUMP_2019])
    keep("first")
    build_in_child(db, [realdata / DUMP_2019, realdata / FILE_2024])
    keep("second")
    build_in_child(db, [realdata / DUMP_2019, realdata / FILE_2024])
    keep("again")
    build_in_child(db, [realdata / FOREIGN_2022])
    keep("foreign")
    broken = folder / "default-cards-broken.json"
    broken.write_text('[{"object": "card", "id": "x", "name": "Half', encoding="utf-8")
    with pytest.raises(IngestError):
        OracleDB.ingest_files(db, [broken])
    keep("failed")
    build_in_child(db, sample=True, replace_anyway=True)  # far fewer cards than the real files: said explicitly
    keep("sample")
    return out


FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def fixture_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OracleDB]:
    """The sample cards plus real-shaped fixtures: flavor names on Ikoria Godzilla printings (201.6), a
    pair of two Oracle cards joined only by the optional override table (201.3; the real pairs — om1
    printings of Spider-Man Oracle cards — are in the sample itself) and a token object named like a card
    (201.4)."""
    from oracle_tools import OracleDB
    from oracle_tools.ingest import sample_dir

    path = tmp_path_factory.mktemp("fixtures") / "fixtures.duckdb"
    files = [
        *sorted(sample_dir().glob("cards-*.json.gz")),
        FIXTURES / "alternate_names.json",
        FIXTURES / "interchangeable_pair.json",
        FIXTURES / "token_named_like_card.json",
    ]
    db = OracleDB.ingest_files(path, files, interchangeable_file=FIXTURES / "interchangeable_names.csv")
    yield db
    db.close()


@pytest.fixture(scope="session")
def same_name_db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Unstable's six Very Cryptic Commands (six Oracle cards printed under one name, CR 201.2a) and Lightning
    Bolt: the real card objects of the 2019 Scryfall dump (tests/fixtures/same_name_unstable.json)."""
    from oracle_tools import OracleDB

    path = tmp_path_factory.mktemp("same_name") / "same_name.duckdb"
    OracleDB.ingest_files(path, [FIXTURES / "same_name_unstable.json"]).close()
    return path


@pytest.fixture(scope="session")
def full_server(full_db: OracleDB) -> Iterator[Server]:
    """One ``oracle-tools serve --no-warm`` on ``full_db`` for the session (an ``oracle_server.Server``), for every
    module that talks HTTP to the real data: it builds the card objects the tests ask for, not every one. A
    traceback in its log at the end fails the session's last test."""
    from oracle_server import Server as ServeProcess

    srv = ServeProcess(full_db.path, "--no-warm")  # what the tests ask is built on first use (warm: test_serve)
    yield srv
    assert "Traceback" not in srv.stop()


@pytest.fixture(scope="session")
def sample_server(sample_db_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One ``oracle-tools serve`` for the session on a copy of the sample database, alone in its folder (so a
    test can tell the served file was only read), shared by the modules whose tests do not stop, signal or
    stress it. A traceback in its log at the end fails the session's last test."""
    from oracle_server import Server as ServeProcess

    served = tmp_path_factory.mktemp("served") / "served.duckdb"
    shutil.copy(sample_db_path, served)
    srv = ServeProcess(served, "--no-warm")
    yield srv
    err = srv.stop()
    assert "Traceback" not in err, err  # malformed input never printed a traceback


#: DuckDB's file headers: the main header and two database headers of 4 KiB each. A file cut just after them is a
#: database DuckDB starts to open and cannot read (its first block is missing), whatever the layout of its blocks:
#: damage that every read meets at once, in every door (cutting a file in half left it to the block layout which
#: reads met it).
DUCKDB_HEADER_BYTES = 3 * 4096


@pytest.fixture
def cut_short() -> Callable[..., re.Pattern[str]]:
    """``cut_short(path)`` damages the database at ``path`` in place (a server that has it open sees its size and
    mtime change); ``cut_short(path, source=db)`` writes such a damaged copy of ``db`` at ``path``. Returns the
    line every door says for it (the CLI after "error: ", HTTP's details, MCP after the tool's name)."""

    def cut(path: Path, source: Path | None = None) -> re.Pattern[str]:
        if source is not None:
            with source.open("rb") as whole:
                path.write_bytes(whole.read(DUCKDB_HEADER_BYTES))
        else:
            os.truncate(path, DUCKDB_HEADER_BYTES)
        name = re.escape(path.name)
        return re.compile(
            rf'{name} is damaged \(IO Error: Could not read enough bytes from file "{name}": attempted to read '
            r"\d+ bytes from location \d+\), so it cannot be read; rebuild it with `oracle-tools ingest "
            r"--replace-anyway` \(its change history goes with it\), or put back a copy of it"
        )

    return cut
