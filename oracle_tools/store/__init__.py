"""The store: the DuckDB file and everything that moves bytes in and out of it.

Connections (read-only, sandboxed) and the SQL files (``sqlfiles``), downloads from Scryfall (``download``), the
package's shipped data (``resources``), size-checked reading of user files (``userfiles``), the one table of layout
facts (``layouts``), the analyst views (``views``), exports to Parquet/CSV (``export``) and the kept compressed
Scryfall objects (``scryfall_objects``).

The bottom layer: it imports nothing of oracle_tools but ``oracle_tools.errors``. It knows tables, not rules.
"""
