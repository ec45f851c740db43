"""Data shipped inside the package (``oracle_tools/data/``), found beside this module.

The embedded sample, the Comprehensive Rules text and the versioned override table travel in the
wheel, so an installed ``oracle-tools`` works outside a checkout. The top-level ``data/`` folder of a
working directory is only where user databases and download caches go.
"""

from __future__ import annotations

import re
from pathlib import Path


def package_data() -> Path:
    """The ``oracle_tools/data`` folder of the installed package.

    The package is always a real folder (the wheel is unpacked, never imported from a zip: its DuckDB
    extension module could not be either), so ``__file__`` finds it; ``importlib.resources`` would cost
    every fresh process ~10 ms of imports for the same path."""
    return Path(__file__).parent.parent / "data"


SAMPLE_DIR = package_data() / "sample"
RULES_DIR = package_data() / "rules"
INTERCHANGEABLE_CSV = package_data() / "interchangeable_names.csv"


def newest_rules_file(directory: Path = RULES_DIR) -> Path | None:
    """The newest ``MagicCompRules-YYYYMMDD.txt`` in ``directory`` (by the date in its name), or None."""
    candidates = sorted(directory.glob("MagicCompRules*.txt"), key=lambda p: (_cr_file_date(p), p.name))
    return candidates[-1] if candidates else None


def _cr_file_date(p: Path) -> str:
    m = re.search(r"(\d{8})", p.name)
    return m.group(1) if m else ""


def package_version() -> str:
    """The installed package's version: the one version source is pyproject.toml's [project] version, read from
    the installed metadata on first use (importlib.metadata costs ~30 ms that most commands never need)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("oracle-tools")
    except PackageNotFoundError:  # pragma: no cover - a source tree on sys.path without an install
        return "0+unknown"
