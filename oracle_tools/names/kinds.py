"""The kinds of names (``via``): every way a string can name a card (CR 201), in one table.

``Resolution.via`` and the ``names`` table's ``via`` column say which kind of name a string was. Each kind's row
says how much it counts when a string matches several cards (``tier``), the rule that makes it a name of the card
(``rule``), how the pages word it, whether "did you mean" offers names of this kind, and whether it is the card's
own English name. Every reader derives its list from here: the resolver's ranking and suggestions
(``names.resolver``, ``names.point``, ``names.index``), the deck checker's rule citation, the web page's and card
page's wording (``interfaces/serve/web.py``, ``pages.py``). Plain data, no imports: the lightest layer can read it.

What else to change for a new kind of name (at most three files):

1. a row in ``KINDS`` below and its name in ``Via`` (this file; ``tests/test_names.py`` checks they agree);
2. where strings of that kind come from: a ``name_sources`` branch in ``sql/names.sql`` (a name the data gives),
   or, for a kind the resolver assigns itself (``normalized``, ``fuzzy``), ``names/resolver.py``;
3. a test with a real card in the test file of the feature (``tests/test_names.py`` or ``tests/test_alternate_names.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: Every kind of name. A new kind: add it here and a row to KINDS.
Via = Literal["name", "face", "printed", "interchangeable", "flavor", "former", "alternate", "normalized", "fuzzy"]

#: What a string names: one card, several (never a guess between them), or none.
Status = Literal["ok", "ambiguous", "not_found"]


@dataclass(frozen=True)
class NameKind:
    via: Via
    #: How much the kind counts when one string matches several cards: the lowest tier wins, several cards in it are
    #: ambiguous. None: the resolver assigns the kind itself; the ``names`` table holds no rows of it.
    tier: int | None
    #: The Comprehensive Rules rule that makes such a string name the card (None: no rule, a convenience).
    rule: str | None
    #: How the name resolved, in words (the web page's "via …" line).
    resolved_as: str
    #: What this name of the card is, in words (the card page's list of its names); None: not listed by kind.
    listed_as: str | None
    #: Offered by "did you mean" (fuzzy suggestions): the English names a decklist or a user may write.
    suggested: bool
    #: The card's own English Oracle name or a face's: read through its folded key it resolves as ``normalized``.
    own_name: bool
    #: Cited when one card's decklist lines are written with different names and counted together (CR 201.3b).
    deck_rule: str | None = None


# Ranked as Scryfall answers: a card's full English Oracle name first (CR 201.2; whatever faces of other objects
# share it), then face names, then English interchangeable (201.3) and flavor (201.6) names, then foreign printed
# names, then a renamed card's former names (no longer a name of it: only when nothing current matches).
# ('alternate' is what older databases called English printed names, before interchangeable and flavor names
# were told apart; kept so they still load.) The order of the rows is the card page's order.
KINDS: tuple[NameKind, ...] = (
    NameKind(
        "name",
        tier=0,
        rule="201.2",
        resolved_as="its Oracle name",
        listed_as="Oracle name (CR 201.2)",
        suggested=True,
        own_name=True,
    ),
    NameKind(
        "face",
        tier=1,
        rule="201.2",
        resolved_as="the name of one of its faces or halves",
        listed_as="face or half name (CR 201.2, 709.4, 712)",
        suggested=True,
        own_name=True,
    ),
    NameKind(
        "printed",
        tier=3,
        rule="201.2",
        resolved_as="a printed name of one of its printings (another language, CR 201.2)",
        listed_as="printed name in another language (CR 201.2: the card's name is its English Oracle name)",
        suggested=False,  # a translation (201.2): "did you mean" offers English names
        own_name=False,
        deck_rule="201.2",
    ),
    NameKind(
        "interchangeable",
        tier=2,
        rule="201.3",
        resolved_as="an interchangeable name: the same name in the game (CR 201.3)",
        listed_as="interchangeable name: the same name in the game (CR 201.3)",
        suggested=True,
        own_name=False,
        deck_rule="201.3b",
    ),
    NameKind(
        "flavor",
        tier=2,
        rule="201.6",
        resolved_as="an alternate (flavor) name; in the game the card has only its Oracle name (CR 201.6)",
        listed_as="alternate (flavor) name: not its name in the game (CR 201.6)",
        suggested=True,
        own_name=False,
        deck_rule="201.6",
    ),
    NameKind(
        "former",
        tier=4,
        rule=None,
        resolved_as="a former name: the card was renamed (see the note)",
        listed_as="former name: the card was renamed",
        suggested=False,
        own_name=False,
    ),
    NameKind(
        "alternate",
        tier=2,
        rule=None,
        resolved_as="alternate",
        listed_as=None,
        suggested=False,
        own_name=False,
    ),
    NameKind(
        "normalized",
        tier=None,
        rule="201.2",
        resolved_as="its Oracle name, ignoring case, accents, punctuation and spacing",
        listed_as=None,
        suggested=False,
        own_name=False,
    ),
    NameKind(
        "fuzzy",
        tier=None,
        rule=None,
        resolved_as="the closest name to what was typed",
        listed_as=None,
        suggested=False,
        own_name=False,
    ),
)

#: Each kind by its ``via``.
BY_VIA: dict[str, NameKind] = {kind.via: kind for kind in KINDS}

#: The rank of each kind stored in the ``names`` table (lower wins; see KINDS).
VIA_TIER: dict[str, int] = {kind.via: kind.tier for kind in KINDS if kind.tier is not None}

#: The English names a miss is compared with for "did you mean".
SUGGESTED_VIAS: tuple[str, ...] = tuple(kind.via for kind in KINDS if kind.suggested)

#: The kinds that are the card's own English name: through the folded key they resolve as ``normalized``.
OWN_NAME_VIAS: frozenset[str] = frozenset(kind.via for kind in KINDS if kind.own_name)

#: The rule a deck check cites when one card's lines use names of these kinds (counted together, CR 201.3b).
DECK_RULES: dict[str, str] = {kind.via: kind.deck_rule for kind in KINDS if kind.deck_rule}

#: How a name resolved, in words, by ``via`` (the web page).
RESOLVED_AS: dict[str, str] = {kind.via: kind.resolved_as for kind in KINDS}

#: What each name of a card is, in words, by the ``names`` table's ``via`` (the card page), in display order.
LISTED_AS: dict[str, str] = {kind.via: kind.listed_as for kind in KINDS if kind.listed_as}


def listed_as(layout: str | None, *, has_faces: bool, omen: bool = False) -> dict[str, str]:
    """:data:`LISTED_AS` for one card's page. A card with faces or halves (``has_faces``: it has ``face`` names) is
    named "A // B" in Scryfall's data and in decklists, but in the game that is no name of it: a split card has two
    names, a double-faced card the name of the face that is up, a flip or adventurer card a normal and an
    alternative name — the layout table's sentence (CR 201.4b-d, 709.4a, 710.1, 712.19, 715.2) says which."""
    if not has_faces:
        return LISTED_AS
    from oracle_tools.store.layouts import combined_name

    _, why = combined_name(layout or "", ("omen",) if omen else ())  # an omen card: CR 720.4
    return {
        **LISTED_AS,
        "name": f"the whole card's name in Scryfall's data and decklists, not a name in the game: {why}",
    }


def not_its_name(via: str | None, typed: str, name: str) -> tuple[str, str] | None:
    """The rule and the note of every answer (``token``, ``choose-name``) that found the card ``name`` by ``typed``,
    a string that finds it but is no name of it in the game: a printed name in another language (CR 201.2: its name
    is the English one) or an alternate (flavor) name (CR 201.6: printed on some versions, the card has only its
    Oracle name). None for every other kind (its own name, a face's, an interchangeable name: 201.3a)."""
    if via == "printed":
        return "201.2", f"'{typed}' is a printed name of {name}; its name is the English one (201.2), {name}"
    if via == "flavor":
        return "201.6", (
            f"'{typed}' is an alternate name printed on some versions of {name}, not its name (201.6); its name is "
            f"{name}"
        )
    return None
