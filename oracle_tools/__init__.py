"""oracle-tools: the Magic: The Gathering Oracle card reference in DuckDB and Polars.

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")      # doctest: +SKIP
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from .db import OracleDB
from .errors import OracleToolsError

__all__ = ["OracleDB", "OracleToolsError", "__version__"]

try:  # the one version source is pyproject.toml's [project] version, read from the installed metadata
    __version__ = version("oracle-tools")
except PackageNotFoundError:  # pragma: no cover - a source tree on sys.path without an install
    __version__ = "0+unknown"
