"""Same-name semantics (CR 201.2a–c with 201.3a): do objects have the same name, different names?

Pure functions over the English names of objects and the classes of interchangeable names; :class:`~oracle_tools.OracleDB` gives them the names of the cards named by strings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from oracle_tools.names.resolver import Resolution

# -- same-name semantics (CR 201.2a–c, 201.3a) -----------------------------------------------------


def _expanded(names: Iterable[str] | None, classes: dict[str, tuple[str, ...]]) -> frozenset[str]:
    if not names:
        return frozenset()
    out: set[str] = set()
    for name in names:
        out.update(classes.get(name, (name,)))  # CR 201.3a: interchangeable names are the same name
    return frozenset(out)


def same_name(
    a: Iterable[str] | None, b: Iterable[str] | None, classes: dict[str, tuple[str, ...]] | None = None
) -> bool:
    """CR 201.2a: same name iff at least one name in common; an object with no name never has."""
    classes = classes or {}
    return bool(_expanded(a, classes) & _expanded(b, classes))


def have_different_names(
    objects: Sequence[Iterable[str] | None], classes: dict[str, tuple[str, ...]] | None = None
) -> bool:
    """CR 201.2b: different names only if each has a name and no two share one."""
    classes = classes or {}
    sets = [_expanded(o, classes) for o in objects]
    if any(not s for s in sets):
        return False
    seen: set[str] = set()
    for names in sets:
        if seen & names:
            return False
        seen |= names
    return True


def has_different_name(
    first: Iterable[str] | None,
    others: Sequence[Iterable[str] | None],
    classes: dict[str, tuple[str, ...]] | None = None,
) -> bool:
    """CR 201.2c: the first has a name and shares none with the others (nameless others don't matter)."""
    classes = classes or {}
    mine = _expanded(first, classes)
    if not mine:
        return False
    return all(not (mine & _expanded(o, classes)) for o in others)


def same_named_cards(result: Resolution) -> tuple[str, ...]:
    """The Oracle ids, sorted, of the cards an ambiguous answer names when they all print one name
    (:attr:`Resolution.shared_name`: Unstable's six Very Cryptic Commands): whichever of them is meant, the name is
    one name (CR 201.2a: identical names are the same name), so a door may answer for all of them: the deck check
    counts their copies together, Scryfall's named lookup shows the first printed. Empty when the candidates' names
    differ (a foreign name two different cards print) or the answer is not ambiguous: then which card is meant
    decides the answer, and no door picks one. The one same-name rule of every door that answers such a name."""
    if result.shared_name is None:
        return ()
    return tuple(sorted({c.oracle_id for c in result.candidates if c.oracle_id}))


def shared_names(result: Resolution, split_halves: Mapping[str, tuple[str, ...]]) -> frozenset[str]:
    """The names every one of several Oracle cards has, when an ambiguous answer's cards all print one name
    (:attr:`Resolution.shared_name`: Unstable's six Sly Spies, the two halves of B.F.M.): whichever of them an
    object is, it has these names, so it has the same name as anything named so (CR 201.2a: identical names are
    the same name). Empty when the cards' names differ (a foreign name two different cards print): then which card
    is meant decides the answer."""
    if result.shared_name is None:
        return frozenset()
    # a split card has both halves' names (709.4a)
    return frozenset(split_halves.get(result.candidates[0].oracle_id) or (result.shared_name,))
