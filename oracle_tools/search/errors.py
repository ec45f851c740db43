"""Search errors: one line saying what is wrong, with the 0-based ``position`` in the query."""

from __future__ import annotations

from oracle_tools.errors import OracleToolsError


class SearchSyntaxError(OracleToolsError):
    """The query is not valid search syntax, or names a keyword or value this database cannot answer.

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
        from oracle_tools.store.userfiles import printable

        return f"  {printable(self.query)}\n  {' ' * len(printable(self.query[: self.position]))}^"


class UnsupportedKeywordError(SearchSyntaxError):
    """A keyword Scryfall has but this database cannot answer (prices, tagger tags, ...)."""
