"""Where the benchmarks find the real data (../shared/realdata beside the checkout, or $ORACLE_TOOLS_REALDATA),
and the one line each says when it is absent."""

from __future__ import annotations

import os
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "realdata"


def require(script: str) -> Path:
    """The real-data folder, or exit with one line saying what ``script`` needs."""
    folder = Path(os.environ.get("ORACLE_TOOLS_REALDATA", DEFAULT))
    if not folder.is_dir():
        name = Path(script).name
        sys.exit(
            f"{name} needs the real card data in {folder} (../shared/realdata beside the checkout, or "
            "ORACLE_TOOLS_REALDATA): it is absent. The sample inside the package is too small to measure."
        )
    return folder
