"""The query tree the parser builds and the compiler reads (plain frozen dataclasses)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

#: How a value was written: a bare word, a "quoted phrase" or a /regular expression/.
ValueKind = Literal["word", "phrase", "regex"]


@dataclass(frozen=True)
class Term:
    """``keyword op value`` (``t:goblin``, ``mv<=2``, ``o:/^{T}:/``); a bare word or phrase is the
    keyword ``name`` (``exact`` for ``!fire``). ``position`` is the 0-based offset of the term."""

    keyword: str
    op: str
    value: str
    kind: ValueKind
    position: int
    exact: bool = False
    #: the keyword was written (``t:goblin``, ``name:bolt``), not implied by a bare word or phrase of a name
    written: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class Not:
    child: Node
    position: int


@dataclass(frozen=True)
class And:
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Empty:
    """The empty query: matches every card (Scryfall answers an empty query with an error; we list all)."""


Node = Term | Not | And | Or | Empty


def walk(node: Node) -> list[Term]:
    """Every term of a tree, left to right."""
    if isinstance(node, Term):
        return [node]
    if isinstance(node, Not):
        return walk(node.child)
    if isinstance(node, (And, Or)):
        return [t for child in node.children for t in walk(child)]
    return []
