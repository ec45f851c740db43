"""oracle-tools: the Magic: The Gathering Oracle card reference in DuckDB and Polars.

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")      # doctest: +SKIP
"""
from __future__ import annotations

from .db import OracleDB
from .errors import OracleToolsError

__all__ = ["OracleDB", "OracleToolsError", "__version__"]
__version__ = "0.1.0"
