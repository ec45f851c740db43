"""Shared test fixtures.

Tests that read ``../shared/realdata`` use the ``realdata`` fixture and skip only
when that folder is absent (CI always has it beside the checkout).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REALDATA = Path(os.environ.get("ORACLE_TOOLS_REALDATA", REPO.parent / "shared" / "realdata"))


@pytest.fixture(scope="session")
def realdata() -> Path:
    if not REALDATA.is_dir():
        pytest.skip(f"real data folder {REALDATA} is absent")
    return REALDATA


@pytest.fixture(scope="session")
def sample_db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database built once per test session from the embedded sample (oracle_tools/data/sample/)."""
    from oracle_tools import OracleDB

    path = tmp_path_factory.mktemp("sample") / "sample.duckdb"
    OracleDB.ingest_sample(path)
    return path


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
def sample_db(sample_db_path: Path):
    from oracle_tools import OracleDB

    db = OracleDB(sample_db_path)
    yield db
    db.close()


@pytest.fixture(scope="session")
def full_db(realdata: Path, tmp_path_factory: pytest.TempPathFactory):
    """The real 2019 default-cards dump + the 2024 Scryfall objects + the foreign printings."""
    from oracle_tools import OracleDB

    path = tmp_path_factory.mktemp("full") / "full.duckdb"
    db = OracleDB.ingest_files(
        path,
        [
            realdata / "scryfall-default-cards-2019-10-per-set-dump.json.gz",
            realdata / "scryfall-search-2024-mh3-otj-fdn.json.gz",
            realdata / "scryfall-foreign-printings-from-mtgjson-2022.json.gz",
        ],
    )
    yield db
    db.close()


FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def fixture_db(tmp_path_factory: pytest.TempPathFactory):
    """The sample cards plus real-shaped fixtures: flavor names on Ikoria Godzilla printings (201.6), a
    pair of two Oracle cards joined only by the optional override table (201.3; the real pairs — om1
    printings of Spider-Man Oracle cards — are in the sample itself) and a token object named like a card
    (201.4)."""
    from oracle_tools import OracleDB
    from oracle_tools.ingest import sample_dir

    path = tmp_path_factory.mktemp("fixtures") / "fixtures.duckdb"
    files = sorted(sample_dir().glob("cards-*.json.gz")) + [
        FIXTURES / "alternate_names.json",
        FIXTURES / "interchangeable_pair.json",
        FIXTURES / "token_named_like_card.json",
    ]
    db = OracleDB.ingest_files(path, files, interchangeable_file=FIXTURES / "interchangeable_names.csv")
    yield db
    db.close()
