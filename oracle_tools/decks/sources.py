"""Which ingested files give the cards their legalities, and the date of each file's data: the one reading that the
deck checks' header (:meth:`OracleDB.legalities_source`) and a card that cannot be judged ("its data (FILE, DATE)
predates Pioneer") both say.

A card's legalities come from one printing (an ingest keeps its newest English printing's, else its newest in any
language: ``sql/legalities_files.sql``). Scryfall's ``legalities`` object holds every format Scryfall knew when the
file was written, so a card without a row for a format was read from a file written before Scryfall had that format
(or a trimmed file without it): its legality there is unknown, never "not legal".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import duckdb

__all__ = ["LegalityFile", "card_files", "first_knowing", "format_files", "gap", "legality_files"]


class LegalityFile(NamedTuple):
    """One file whose printings give cards their legalities."""

    file: str  # as ingested (a path)
    cards: int  # how many cards take their legalities from it
    as_of: str  # its data's date: Scryfall's ``updated_at`` (a file from the API), else its newest printing
    scryfall_update: bool  # whether ``as_of`` is Scryfall's update (else the file's newest printing)
    ingested: str | None  # when it was last ingested (YYYY-MM-DD)

    @property
    def name(self) -> str:
        return Path(self.file).name

    def label(self) -> str:
        """'FILE, data of DATE' as a problem names a file."""
        return f"{self.name}, data of {self.as_of}"


def legality_files(con: duckdb.DuckDBPyConnection) -> list[LegalityFile]:
    """Every file whose printings give cards their legalities, most cards first, each with its data's date."""
    # The files and their cards, stored at ingest (sql/legalities_files.sql): ranking every printing here cost a
    # fresh process ~45 MB and a fifth of a second.
    # Plain reads of two small tables, joined here: a join with aggregates costs a fresh process's peak ~8 MB
    # of DuckDB's hash tables and code (bench/bench_startup.py, the small deck check).
    files = con.execute("SELECT file, cards, newest_printing FROM legalities_files").fetchall()
    runs: dict[str, list[tuple[Any, Any]]] = {}
    for file, updated, started in con.execute("SELECT file, updated_at, started_at FROM ingest_runs").fetchall():
        if file is not None:
            runs.setdefault(file, []).append((updated, started))

    def newest(values: Iterable[Any]) -> Any:  # as SQL's max(): NULLs ignored, NULL when there is nothing else
        return max((v for v in values if v is not None), default=None)

    out = []
    # most cards first, then by file (NULL last, as ORDER BY puts it)
    for file, cards, newest_printing in sorted(files, key=lambda f: (-f[1], f[0] is None, f[0] or "")):
        pairs = runs.get(file, [])
        updated, ingested = newest(u for u, _ in pairs), newest(s for _, s in pairs)
        as_of = str(updated)[:10] if updated else str(newest_printing)
        out.append(LegalityFile(str(file), cards, as_of, updated is not None, str(ingested)[:10] if ingested else None))
    return out


#: The file a card's legalities come from: that of its newest English printing, else of its newest in any language
#: (the printing an ingest keeps them from, as ``sql/legalities_files.sql`` ranks it), per oracle_id of ``printings``.
_LEGALITIES_FILE = "arg_max(source_file, ((lang = 'en'), released_at))"


def card_files(con: duckdb.DuckDBPyConnection, oracle_ids: Sequence[str]) -> dict[str, str]:
    """oracle_id -> the file its legalities come from (as ``sql/legalities_files.sql`` picks it), for these cards."""
    if not oracle_ids:
        return {}
    rows = con.execute(
        f"SELECT oracle_id, {_LEGALITIES_FILE} FROM printings WHERE oracle_id IN $oids GROUP BY oracle_id",
        {"oids": list(oracle_ids)},
    ).fetchall()
    return {oid: str(file) for oid, file in rows if file is not None}


def format_files(con: duckdb.DuckDBPyConnection, fmt: str) -> set[str]:
    """The files that give some card a legality in ``fmt`` (their data knows the format)."""
    rows = con.execute(
        f"SELECT DISTINCT file FROM (SELECT {_LEGALITIES_FILE} AS file FROM printings "
        "WHERE oracle_id IN (SELECT oracle_id FROM legalities WHERE format = $fmt) GROUP BY oracle_id)",
        {"fmt": fmt},
    ).fetchall()
    return {str(f) for (f,) in rows if f is not None}


def first_knowing(files: dict[str, LegalityFile], knowing: set[str]) -> str | None:
    """The oldest data date among the files that have a format's legalities (``knowing``: :func:`format_files`)."""
    return min((files[f].as_of for f in knowing if f in files), default=None)


def gap(file: LegalityFile, label: str, oldest_knowing: str | None) -> str:
    """What a file without a format's legalities is: 'predates Pioneer' when every file that has them is newer (Scryfall
    had no such key yet), else 'holds no Pioneer legality' (a file that leaves it out)."""
    if oldest_knowing is not None and file.as_of < oldest_knowing:
        return f"predates {label}"
    return f"holds no {label} legality"
