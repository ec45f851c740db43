"""oracle-tools: the Magic: The Gathering Oracle card reference in DuckDB and Polars.

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")      # doctest: +SKIP
"""

from __future__ import annotations

from oracle_tools.db import OracleDB
from oracle_tools.errors import OracleToolsError

__all__ = ["OracleDB", "OracleToolsError", "__version__"]


def __getattr__(name: str) -> str:
    """``__version__``, read from the installed metadata on first use (no command but ``--version`` needs it)."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from oracle_tools.store.resources import package_version

    return package_version()
