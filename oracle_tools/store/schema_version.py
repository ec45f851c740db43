"""The schema version: one integer each ingest writes into the database it builds, read once when a database is
opened. A reader opened on a database of another version is refused in one line (rebuild it with ``oracle-tools
ingest``), so no module asks whether a table or column exists: every table and column of this version is there.

Bump :data:`SCHEMA_VERSION` whenever what an ingest builds changes: a table, view or column added, removed,
renamed or retyped (``sql/*.sql`` or a layer's ``build``), or a column's values computed by another rule. Then
record the new :data:`SCHEMA_SHAPE`: ``tests/test_schema_version.py`` digests the sample database's tables, views
and columns, and fails, printing the digest, when they change while the version does not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oracle_tools.errors import DatabaseOutdatedError

if TYPE_CHECKING:
    import duckdb

#: The version of the database this oracle-tools builds and reads. Bump it with any change of the schema (above).
SCHEMA_VERSION = 2
#: The digest of the tables, views and columns (name and type) of a database of :data:`SCHEMA_VERSION`.
SCHEMA_SHAPE = "3e3868503bdc9c61"

#: The one-row table that holds the version: reading it costs about 1 ms in a fresh process (as a probe of one
#: table by name did), where listing DuckDB's catalog costs 6-16 ms. Named as no Python variable is: DuckDB looks
#: a missing table up among the caller's variables (a module ``schema_version``) before it says it is missing.
TABLE = "oracle_tools_schema"


def write(con: duckdb.DuckDBPyConnection) -> None:
    """Record :data:`SCHEMA_VERSION` in the database ``con`` builds (an ingest)."""
    con.execute(f"CREATE TABLE {TABLE} (version INTEGER NOT NULL)")
    con.execute(f"INSERT INTO {TABLE} VALUES (?)", [SCHEMA_VERSION])


def check(found: int | None, db_name: str) -> None:
    """Refuse a database built with version ``found`` (None: none written) unless it is this one's
    (:class:`DatabaseOutdatedError`, naming it ``db_name``). The version is read by ``sqlfiles.schema_version_of``
    when a database is opened (``sqlfiles.connect_read_only``, ``sqlfiles.sandboxed_connection``)."""
    if found != SCHEMA_VERSION:
        raise DatabaseOutdatedError(db_name, found, SCHEMA_VERSION)
