"""oracle-tools: the Magic: The Gathering Oracle card reference in DuckDB and Polars.

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")      # doctest: +SKIP
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy and ruff know the name)
if TYPE_CHECKING:
    from oracle_tools.db import OracleDB
    from oracle_tools.errors import OracleToolsError

    __version__: str

__all__ = ["OracleDB", "OracleToolsError", "__version__"]


def __getattr__(name: str) -> object:
    """``OracleDB`` and ``OracleToolsError`` imported on first use: the ``oracle-tools`` program imports this package
    first, and catches Ctrl-C before DuckDB and Polars are imported (interfaces/program.py); ``__version__``, read
    from the installed metadata on first use (no command but ``--version`` needs it)."""
    if name == "OracleDB":
        from oracle_tools.db import OracleDB

        return OracleDB
    if name == "OracleToolsError":
        from oracle_tools.errors import OracleToolsError

        return OracleToolsError
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from oracle_tools.store.resources import package_version

    return package_version()
