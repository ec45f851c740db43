"""Errors raised by oracle-tools. Each message says what was wrong and what to do.

Each class carries how every door answers it: ``exit_status`` (the CLI's exit: 2 for bad input or a refusal, 1
for the answer "no") and ``http_status`` (the server's: 4XX for the request's fault, 5XX for the server's, as
Scryfall's errors do), so the doors translate an error in one place each (cli_common._error_line,
serve.responses.ApiError.of) instead of choosing by its class. Every public error the package raises is defined
here, with the wording of its line (a list of names, "did you mean", untrusted text made printable); this module
imports nothing of the package, so every layer may import it.

Private control flow stays in its module, never seen by a user: ``_Retryable`` (store/download.py),
``_Unsorted`` (names/index.py), ``_ParseFailure`` (text/constraints.py), ``PastLimits`` (store/scryfall_objects.py,
turned into an IngestError), and the server's own ``ApiError``, ``PageError``, ``PoolFull`` and ``_Refused``
(interfaces/serve/: what a route answers, rendered there).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from typing import ClassVar

# -- the wording of an error's line ------------------------------------------------------------------


def names_listed(names: Iterable[str]) -> str:
    """Card names as one list inside a sentence, each quoted as the CLI quotes what was typed (``repr``): names hold
    commas ("Boseiju, Who Shelters All", "Half-Orc, Half-"), so a list joined with bare commas cannot be read back.
    The one wording of such a list, for every door (CLI, library messages, HTTP error details, MCP, pages)."""
    return ", ".join(repr(name) for name in names)


def did_you_mean(names: Iterable[str], *, sentence: bool = False) -> str:
    """ "did you mean 'Boseiju, Who Shelters All', 'Those Who Serve'?" — the names a miss is offered (see
    :func:`names_listed`); ``sentence``: begun with a capital, as a sentence of its own."""
    return f"{'Did' if sentence else 'did'} you mean {names_listed(names)}?"


#: Unicode categories a terminal does not show as themselves: control and format characters (the bidi overrides),
#: line and paragraph separators, surrogates, private and unassigned code points. Spaces of other scripts (the
#: ideographic space of a Japanese name, a no-break space) are shown as they are.
_UNSHOWN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def printable(text: str) -> str:
    """``text`` with each character a terminal would not show as itself (control characters, the bidi overrides)
    escaped as Python escapes it, so a hostile name or byte cannot rewrite the line an error is said in."""
    return "".join(repr(char)[1:-1] if unicodedata.category(char) in _UNSHOWN else char for char in text)


# -- the errors --------------------------------------------------------------------------------------


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


class NamesFileDamagedError(DatabaseMissingError):
    """The names file beside the database (``names/stored.py``) failed a read after it was taken: a page damaged
    since the ingest wrote it. OracleDB sets the file aside and asks the database again, so a user meets this line
    only where nothing can (HTTP 503: the server's file)."""


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
                "oracle-tools, or rebuild it with this one's `oracle-tools ingest --replace-anyway` (its change "
                "history goes with it)"
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


class SinceDateError(ArgumentError):
    """``since`` is no date. It carries the ``value``; :meth:`worded` names the parameter as the caller's door
    spells it (the library, HTTP and MCP: ``since``; the CLI: ``--since``), as ConstraintCardError does."""

    def __init__(self, value: str) -> None:
        self.value = value
        super().__init__(self.worded())

    def worded(self, parameter: str = "since") -> str:
        return f"{parameter} {self.value!r} is not a date; give it as YYYY-MM-DD, such as 2026-03-31"


class SearchSyntaxError(OracleToolsError):
    """The query is not valid search syntax, or names a keyword or value this database cannot answer: one line
    saying what is wrong.

    ``position`` is the 0-based offset in ``query`` where the problem is; :meth:`caret` draws it. ``lasting``: the
    same query on the same database is refused the same way every time (its syntax, a regex the engine refuses),
    so a caller may remember the refusal; False when the engine's refusal may not come again (an interrupt, memory).
    """

    api_type = "syntax"

    def __init__(self, message: str, query: str = "", position: int = 0, *, lasting: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.query = query
        self.position = max(0, min(position, len(query)))
        self.lasting = lasting

    def caret(self) -> str:
        """The query and a caret under the position, two lines (for the CLI); a newline or other control character
        of the query shown escaped, so the query stays one line and the caret under its place."""
        return f"  {printable(self.query)}\n  {' ' * len(printable(self.query[: self.position]))}^"


class UnsupportedKeywordError(SearchSyntaxError):
    """A keyword Scryfall has but this database cannot answer (prices, tagger tags, ...)."""


class DeckTooLargeError(DecklistError):
    """A decklist over ``decks.checker.MAX_DECK_LINES`` lines or ``MAX_DECK_NAMES`` different names (HTTP 413)."""

    http_status = 413


class ConstraintCardError(ConstraintError):
    """A card asked to set a constraint by its own Oracle text does not: no card has that name, several do, or
    its text has no "choose a card name" instruction. :meth:`worded` names the caller's own options."""

    def __init__(self, problem: str, card: str, *, name: str | None = None, suggestions: Sequence[str] = ()) -> None:
        self.problem = problem  # "not_found" | "ambiguous" | "no_instruction"
        self.card = card
        self.name = name
        self.suggestions = tuple(suggestions)
        super().__init__(self.worded())

    def worded(self, card_option: str = "the card", phrase_option: str = "a constraint phrase") -> str:
        """The message, naming the card as ``card_option`` gave it (the CLI: "--card") and what to give instead
        (the CLI: "--constraint PHRASE")."""
        if self.problem == "not_found":
            hint = f"; {did_you_mean(self.suggestions)}" if self.suggestions else "."
            return f"{card_option} {self.card!r}: no card has that name{hint}"
        if self.problem == "ambiguous":
            return (
                f"{card_option} {self.card!r} could be any of {names_listed(self.suggestions)}; give the English name."
            )
        return (
            f"{self.name}'s Oracle text has no 'choose a card name' instruction, so it sets no constraint; "
            f"give {phrase_option} instead."
        )


class InputTooLargeError(OracleToolsError):
    """A file the user named is larger than any file of its kind (HTTP 413)."""

    http_status = 413


class ReadOnlySQLError(OracleToolsError):
    """A statement given to ``sql`` is not a read-only query (COPY, ATTACH, SET, INSTALL, CREATE, …)."""


class QueryTimeoutError(OracleToolsError):
    """A query ran longer than its time limit and was stopped: over HTTP a 422, the request understood and too
    costly to answer (a narrower one is)."""

    http_status = 422


class ExportError(OracleToolsError):
    """An export was asked for something that does not exist or cannot be written."""


class OutOfMemory(OracleToolsError):
    """The ``sql`` child ran out of the address space its --memory-limit gives (store/boundedsql.py)."""


class ManaCostError(OracleToolsError, ValueError):
    """A mana cost that cannot be read (HTTP 422, as Scryfall answers an unreadable cost; CLI exit status 2).

    A ``symbol`` that is no mana symbol carries the ``cost``; :meth:`worded` names where the symbols are listed
    as the caller's door has them (HTTP: ``/symbology``; the CLI: ``oracle-tools symbology``), as
    ConstraintCardError names its options."""

    def __init__(self, message: str | None = None, *, cost: str = "", symbol: str | None = None) -> None:
        self.cost = cost
        self.symbol = symbol
        super().__init__(message if message is not None else self.worded())

    def worded(self, symbols: str = "OracleDB.symbology()") -> str:
        if self.symbol is None:
            return str(self)
        return f"{self.symbol} in {self.cost!r} is not a mana symbol (see {symbols} for the symbols)"
