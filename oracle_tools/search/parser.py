"""Parse a Scryfall query (grammar.lark, LALR(1) with lark) into the tree of :mod:`.tree`.

>>> parse("t:goblin -c:r")                                     # doctest: +ELLIPSIS
And(children=(Term(keyword='t', op=':', value='goblin', kind='word', position=0, exact=False, written=True), Not(...)))
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

from lark import Lark, Token, Transformer, Tree, v_args
from lark import __version__ as lark_version
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)

from oracle_tools.errors import SearchSyntaxError
from oracle_tools.search.tree import And, Empty, Node, Not, Or, Term, ValueKind

MAX_QUERY = 1000  # characters: a longer query is refused before parsing (the HTTP API has the same limit)
#: Groups and negations nested deeper than this are refused after parsing, before the tree is walked: the
#: transformer and the compiler recurse once or more per level, and a 1,000-character query of `-` or `(a (b …`
#: nests hundreds deep (Python's recursion limit: a RecursionError, a 500 on the server, where the stack starts deep).
MAX_NESTING = 100

_EXPECTED = {
    "KEYWORD": "a keyword",
    "WORD": "a word",
    "STRING": 'a "quoted phrase"',
    "REGEX": "a /regular expression/",
    "SIGNED": "a negative number",
    "LPAR": "'('",
    "RPAR": "')'",
    "NEG": "'-'",
    "BANG": "'!'",
    "OP": "an operator (: = != < <= > >=)",
    "OR": "'or'",
    "AND": "'and'",
    "PLUSPLUS": "'++'",
    "ATAT": "'@@'",
    "SLASHES": "'//'",
}


@cache
def _lark() -> Lark:
    grammar = (Path(__file__).parent / "grammar.lark").read_text(encoding="utf-8")
    return Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        propagate_positions=False,
        maybe_placeholders=False,
        cache=_grammar_cache(),
    )


def _grammar_cache() -> str | bool:
    """Where lark keeps the analysed grammar between processes (building it takes ~90 ms of a fresh
    `oracle-tools search`; loading it ~10 ms). lark stores the grammar's hash in the file and rebuilds on any
    change. The file is in the user's own cache folder, never a shared temp folder (it is a pickle); when that
    folder cannot be made, there is no cache (and lark, which logs failures only, never fails the parse)."""
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "oracle-tools"
        base.mkdir(parents=True, exist_ok=True)
    except (OSError, RuntimeError):  # RuntimeError: no HOME and no passwd entry (a container's arbitrary uid)
        return False
    return str(base / f"search-grammar-lark{lark_version}.pickle")


def _unquote(text: str) -> str:
    inner = text[1:-1]
    out, escaped = [], False
    for ch in inner:
        if escaped:
            out.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        else:
            out.append(ch)
    return "".join(out)


def _value(token: Token) -> tuple[str, ValueKind]:
    if token.type == "STRING":
        return _unquote(token.value), "phrase"
    if token.type == "REGEX":
        return token.value[1:-1].replace("\\/", "/"), "regex"
    return token.value, "word"


class _ToTree(Transformer[Token, Node]):
    def __init__(self, query: str) -> None:
        super().__init__()
        self.query = query

    @v_args(inline=True)
    def keyword(self, key: Token, op: Token, value: Token) -> Term:
        start = op.start_pos + len(op.value)  # type: ignore[operator]
        if value.start_pos != start:
            raise SearchSyntaxError(
                f"{key.value}{op.value} needs its value right after the '{op.value}' (no space): write "
                f"{key.value}{op.value}{value.value}",
                self.query,
                start,
            )
        text, kind = _value(value)
        return Term(key.value.lower(), op.value, text, kind, key.start_pos or 0, written=True)

    @v_args(inline=True)
    def value(self, token: Token) -> Token:
        return token

    @v_args(inline=True)
    def exact(self, bang: Token, token: Token) -> Term:
        text, kind = _value(token)
        return Term("name", ":", text, kind, bang.start_pos or 0, exact=True)

    @v_args(inline=True)
    def phrase(self, token: Token) -> Term:
        return Term("name", ":", _unquote(token.value), "phrase", token.start_pos or 0)

    @v_args(inline=True)
    def word(self, token: Token) -> Term:
        if token.value.lower() in _CONNECTIVES:  # lexed as a word only where no term is before it: "or t:goblin"
            raise _dangling(token.value, self.query, token.start_pos or 0)
        return Term("name", ":", token.value, "word", token.start_pos or 0)

    @v_args(inline=True)
    def slashes(self, token: Token) -> Term:  # "fire // ice": the // of a multi-face card's name
        return Term("name", ":", token.value, "word", token.start_pos or 0)

    @v_args(inline=True)
    def plusplus(self, token: Token) -> Term:
        return Term("unique", ":", "prints", "word", token.start_pos or 0)

    @v_args(inline=True)
    def atat(self, token: Token) -> Term:
        return Term("unique", ":", "art", "word", token.start_pos or 0)

    @v_args(inline=True)
    def not_(self, neg: Token, child: Node) -> Not:
        return Not(child, neg.start_pos or 0)

    def and_expr(self, children: list[Node | Token]) -> Node:
        nodes = tuple(c for c in children if not isinstance(c, Token))
        return nodes[0] if len(nodes) == 1 else And(nodes)

    def or_expr(self, children: list[Node | Token]) -> Node:
        nodes = tuple(c for c in children if not isinstance(c, Token))
        return nodes[0] if len(nodes) == 1 else Or(nodes)

    def start(self, children: list[Node]) -> Node:
        return children[0] if children else Empty()


#: The words that join terms. Scryfall's reference has them only between terms: one with no term on a side (at
#: the start or end of the query or of a group, or after another) is a syntax error, never a word of a name.
_CONNECTIVES = frozenset({"or", "and"})
_TRAILING_CONNECTIVE = re.compile(r"(?:^|[\s(])((?i:or|and))\s*$")


def _dangling(word: str, query: str, position: int) -> SearchSyntaxError:
    return SearchSyntaxError(
        f"'{word}' needs a term on both sides (to find the word in a name, quote it: \"{word}\")", query, position
    )


def _describe(exc: UnexpectedInput, query: str) -> SearchSyntaxError:
    pos = getattr(exc, "pos_in_stream", None)
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        pos = len(query)
        if (connective := _TRAILING_CONNECTIVE.search(query)) is not None:  # "t:goblin or"
            return _dangling(connective.group(1), query, connective.start(1))
        last = query.rstrip()[-1:]
        if last in ("-", "!"):
            what = "'-' (negation)" if last == "-" else "'!' (exact name)"
            return SearchSyntaxError(f"{what} must be followed by a term", query, len(query.rstrip()) - 1)
        if last in (":", "=", "<", ">"):
            return SearchSyntaxError("the last keyword needs a value after its operator, e.g. t:goblin", query, pos)
        if query.count("(") > query.count(")"):
            return SearchSyntaxError(
                f"a '(' is never closed: add ')' (opened at position {query.rfind('(')})", query, query.rfind("(")
            )
        return SearchSyntaxError("the query ends too early: a term is missing after the last operator", query, pos)
    if isinstance(exc, UnexpectedCharacters):
        pos = int(exc.pos_in_stream or 0)
        ch = query[pos] if pos < len(query) else ""
        if not ch:
            return SearchSyntaxError("the query ends too early", query, pos)
        if ch == '"':
            return SearchSyntaxError('a quotation mark (") is never closed: add the closing "', query, pos)
        if ch == "/":
            return SearchSyntaxError(
                "a regular expression is never closed: end it with / (write \\/ for a slash inside it)", query, pos
            )
        if ch == ")":
            return SearchSyntaxError("a ')' has no matching '('", query, pos)
        if ch == "!":
            return SearchSyntaxError(
                "'!' (exact name) must be followed by a name: !fire or !\"Lightning Bolt\"", query, pos
            )
        if ch == "-":
            return SearchSyntaxError("'-' (negation) must be followed by a term: -t:creature", query, pos)
        expected = sorted({_EXPECTED.get(t, t) for t in exc.allowed or ()})
        return SearchSyntaxError(
            f"unexpected {ch!r}" + (f"; expected {', '.join(expected)}" if expected else ""), query, pos
        )
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        pos = tok.start_pos or 0
        if tok.type == "RPAR" and (connective := _TRAILING_CONNECTIVE.search(query[:pos])) is not None:
            return _dangling(connective.group(1), query, connective.start(1))  # "(c:r or)"
        if tok.type == "RPAR":
            return SearchSyntaxError("a ')' has no matching '(' (or the group before it is empty)", query, pos)
        if tok.type in ("OR", "AND"):
            return _dangling(tok.value, query, pos)
        expected = sorted({_EXPECTED.get(t, t) for t in exc.expected if t != "$END"})
        return SearchSyntaxError(
            f"unexpected {tok.value!r}" + (f"; expected {', '.join(expected)}" if expected else ""), query, pos
        )
    return SearchSyntaxError("not valid search syntax", query, pos or 0)


_NESTING = frozenset({"not_", "and_expr", "or_expr"})


def _check_nesting(tree: Tree[Token], query: str) -> None:
    """Refuse a tree whose negations and groups nest deeper than MAX_NESTING (walked without recursion)."""
    stack: list[tuple[Tree[Token] | Token, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Token):
            continue
        depth += node.data in _NESTING
        if depth > MAX_NESTING:
            first = next(iter(node.scan_values(lambda value: isinstance(value, Token))), None)
            raise SearchSyntaxError(
                f"the query nests negations and groups more than {MAX_NESTING} deep; write it with fewer levels",
                query,
                (first.start_pos or 0) if isinstance(first, Token) else 0,
            )
        stack.extend((child, depth) for child in node.children)


def parse(query: str) -> Node:
    """The tree of ``query``; raises :class:`SearchSyntaxError` (with ``position``) for invalid syntax."""
    if not isinstance(query, str):
        raise SearchSyntaxError(f"a query is text, not {type(query).__name__}")
    if len(query) > MAX_QUERY:
        raise SearchSyntaxError(
            f"the query is {len(query)} characters long; at most {MAX_QUERY} are allowed", query[:MAX_QUERY], MAX_QUERY
        )
    if "\x00" in query:
        raise SearchSyntaxError("the query contains a NUL character", query, query.index("\x00"))
    try:
        tree = _lark().parse(query)
    except UnexpectedInput as exc:
        raise _describe(exc, query) from None
    _check_nesting(tree, query)
    try:
        return _ToTree(query).transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, SearchSyntaxError):
            raise exc.orig_exc from None
        raise
