"""oracle-tools: the Magic: The Gathering Oracle card reference in DuckDB and Polars.

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")      # doctest: +SKIP
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

# Set before the submodules load, so they read it from here (`from . import __version__`: the User-Agent, the
# MCP server): the one version source is pyproject.toml's [project] version, read from the installed metadata.
try:
    __version__ = version("oracle-tools")
except PackageNotFoundError:  # pragma: no cover - a source tree on sys.path without an install
    __version__ = "0+unknown"

from .db import OracleDB  # noqa: E402
from .errors import OracleToolsError  # noqa: E402

__all__ = ["OracleDB", "OracleToolsError", "__version__"]
