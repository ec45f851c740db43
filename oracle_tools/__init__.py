"""oracle-tools: the Magic: The Gathering Oracle card reference in DuckDB and Polars.

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")      # doctest: +SKIP
"""

from __future__ import annotations

from .db import OracleDB
from .errors import OracleToolsError

__all__ = ["OracleDB", "OracleToolsError", "__version__"]


def __getattr__(name: str) -> str:
    """``__version__``: the one version source is pyproject.toml's [project] version, read from the installed
    metadata on first use (importlib.metadata costs ~30 ms that no command but ``--version`` needs)."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("oracle-tools")
    except PackageNotFoundError:  # pragma: no cover - a source tree on sys.path without an install
        return "0+unknown"
