"""Errors raised by oracle-tools. Each message says what was wrong and what to do.

Each class carries how every door answers it: ``exit_status`` (the CLI's exit: 2 for bad input or a refusal, 1
for the answer "no") and ``http_status`` (the server's: 4XX for the request's fault, 5XX for the server's, as
Scryfall's errors do), so the doors translate an error in one place each (cli_common._error_line,
serve.responses.ApiError.of) instead of choosing by its class.
"""

from __future__ import annotations

from typing import ClassVar


class OracleToolsError(Exception):
    """Base class: every error the CLI turns into a clear message and a non-zero exit."""

    #: The CLI's exit status: bad input or a refusal.
    exit_status: ClassVar[int] = 2
    #: The HTTP status the server answers: the request's fault.
    http_status: ClassVar[int] = 400
    #: Scryfall's error ``type`` (``"ambiguous"``, ``"syntax"``), when the error has one.
    api_type: str | None = None


class ArgumentError(OracleToolsError, ValueError):
    """A library call's argument has the right type but a value no answer can come from (an empty name, text with
    a lone surrogate): a ValueError to Python callers, bad input (exit 2, HTTP 400) through the doors."""


class IngestError(OracleToolsError):
    """A source could not be ingested (corrupt, truncated, wrong shape). Nothing was replaced."""


class DownloadError(IngestError):
    """A Scryfall bulk file could not be downloaded after retries."""


class DatabaseMissingError(OracleToolsError):
    """The database file does not exist yet. Over HTTP a 503: the server's file, no mistake of the client's."""

    http_status = 503


class NotADatabaseError(DatabaseMissingError):
    """The database path names a file that is no DuckDB database (a gzip, JSON, an empty file): there is no
    database there, and no command writes over it."""


class DatabaseDamagedError(DatabaseMissingError):
    """The database file is damaged (cut short, a block that fails its checksum): DuckDB cannot read it, whatever
    the question; rebuilding it answers. Every door says the same line (the CLI exit 2, HTTP 503 as a missing
    database), naming the file by its name only, as :class:`DatabaseOutdatedError` does."""

    def __init__(self, db_name: str, detail: str) -> None:
        super().__init__(
            f"{db_name} is damaged ({detail}), so it cannot be read; rebuild it with `oracle-tools ingest "
            "--replace-anyway` (its change history goes with it), or put back a copy of it"
        )


class RulesFileError(OracleToolsError):
    """A Comprehensive Rules file is not the rules text."""


class DecklistError(OracleToolsError):
    """A decklist file could not be read at all."""


class ConstraintError(OracleToolsError):
    """A 'choose a card name' constraint phrase is not understood."""


class DatabaseOutdatedError(OracleToolsError):
    """The database was built by another version of oracle-tools than this one, whose schema version
    (store/schema_version.py) it does not carry: rebuilding it with ``oracle-tools ingest`` answers. Over HTTP a 503:
    the server's database, no mistake of the client's (Scryfall's errors: 4XX for the request, 5XX for the server).
    The message names the database by its file name only, as ``/health`` does: the same line through every door,
    no folder of the server's told to any origin."""

    http_status = 503

    def __init__(self, db_name: str, built: int | None, reads: int) -> None:
        if built is not None and built > reads:
            line = (
                f"{db_name} was built by a newer oracle-tools (schema {built}, this one reads {reads}); upgrade "
                "oracle-tools, or rebuild it with this one's `oracle-tools ingest`"
            )
        else:
            found = f"schema {built}" if built is not None else "no schema version"
            line = (
                f"{db_name} was built by an older oracle-tools ({found}, this one reads {reads}); rebuild it with "
                "`oracle-tools ingest`"
            )
        super().__init__(line)
        self.built, self.reads = built, reads


class NameNotFoundError(OracleToolsError):
    """A name that names no card (or several: ``ambiguous``): the answer "no", exit status 1 like ``resolve``'s
    miss; over HTTP a 404, of Scryfall's type "ambiguous" when several cards have the name."""

    exit_status = 1
    http_status = 404

    def __init__(self, message: str, *, ambiguous: bool = False) -> None:
        super().__init__(message)
        self.ambiguous = ambiguous
        self.api_type = "ambiguous" if ambiguous else None


class NotFoundError(OracleToolsError):
    """Something asked for by code or id (a set …) that the database does not have: exit status 1, HTTP 404."""

    exit_status = 1
    http_status = 404
