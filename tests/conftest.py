"""Shared test fixtures.

Tests that read ``../shared/realdata`` use the ``realdata`` fixture and skip only
when that folder is absent (CI always has it beside the checkout).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REALDATA = Path(os.environ.get("ORACLE_TOOLS_REALDATA", REPO.parent / "shared" / "realdata"))


@pytest.fixture(scope="session")
def realdata() -> Path:
    if not REALDATA.is_dir():
        pytest.skip(f"real data folder {REALDATA} is absent")
    return REALDATA
