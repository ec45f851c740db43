"""The kinds of names (``via``): every way a string can name a card (CR 201), in one table.

``Resolution.via`` and the ``names`` table's ``via`` column say which kind of name a string was. Each kind's row
says how much it counts when a string matches several cards (``tier``), the rule that makes it a name of the card
(``rule``), how the pages word it, whether "did you mean" offers names of this kind, and whether it is the card's
own English name. Every reader derives its list from here: the resolver's ranking and suggestions
(``names.resolver``, ``names.point``, ``names.index``), the deck checker's rule citation, the web page's and card
page's wording (``interfaces/serve/web.py``, ``pages.py``), and the SQL that needs a set of kinds (bound from
:data:`OWN_NAME_LIST` or :data:`IN_GAME_VIAS`, or the ``own_name_via`` macro ``names.build`` writes for a view);
``tests/test_extension_tables.py`` fails for a list of kinds written anywhere else. Plain data, no imports: every
layer from ``names/`` up reads it.

What else to change for a new kind of name (at most three files):

1. a row in ``KINDS`` below and its name in ``Via`` (this file; ``tests/test_names.py`` checks they agree), with
   its flags: the card's own name, a name in the game, a printed title (each derived list follows);
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
    #: A name of the card in the game (CR 201.2 its English name, 201.3 an interchangeable one): a name written in
    #: rules text means the card by a name of this kind (``names.references``).
    in_game: bool = False
    #: Printed as the title of an English printing (its own name, a face's, an alternate name, CR 201.6): an English
    #: printed name that differs from one of these only in typography is this name, not an interchangeable one.
    title: bool = False
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
        in_game=True,
        title=True,
    ),
    NameKind(
        "face",
        tier=1,
        rule="201.2",
        resolved_as="the name of one of its faces or halves",
        listed_as="face or half name (CR 201.2, 709.4, 712)",
        suggested=True,
        own_name=True,
        in_game=True,
        title=True,
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
        in_game=True,
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
        title=True,
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

#: The same, as a list to bind into SQL (``via IN (SELECT unnest(?))``, ``list_contains(?, via)``).
OWN_NAME_LIST: list[str] = sorted(OWN_NAME_VIAS)

#: The kinds a string that was the card's own name resolves as: exactly, or through its folded key.
OWN_NAME_READINGS: frozenset[str] = OWN_NAME_VIAS | {"normalized"}

#: The card's names in the game (CR 201.2, 201.3), best first (by tier): what a name in rules text may be.
IN_GAME_VIAS: list[str] = [kind.via for kind in sorted(KINDS, key=lambda k: k.tier or 0) if kind.in_game]

#: The names printed as an English printing's title: a printed name equal to one (in typography) is no new name.
TITLE_VIAS: list[str] = [kind.via for kind in KINDS if kind.title]

#: The kinds a single reader names (each one kind, never a list): a renamed card's former names (written by
#: ``names.build.add_former_names`` from the change history), alternate names (the card objects' ``flavor_names``)
#: and the interchangeable names the build joins into classes (CR 201.3).
FORMER: Via = "former"
FLAVOR: Via = "flavor"
INTERCHANGEABLE: Via = "interchangeable"

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


def printed_name_note(printed: str, name: str) -> str:
    """What every answer that found a card by a printed name in another language says (``token``, ``choose-name``):
    that name is no name of the card; its English Oracle name is (CR 201.2)."""
    return f"'{printed}' is a printed name of {name}; its name is the English one (201.2), {name}"


def alternate_name_note(alternate: str, name: str) -> str:
    """What every answer that found a card by an alternate (flavor) name says (``token``, ``choose-name``): that
    name is printed on some versions of the card but is no name of it; the card has only its Oracle name (CR 201.6)."""
    return f"'{alternate}' is an alternate name printed on some versions of {name}, not its name (201.6); its name is {name}"


def not_its_name(via: str | None, typed: str, name: str, card: str | None = None) -> tuple[str, str] | None:
    """The rule and the note every answer adds (``token``, ``choose-name``) when ``typed`` found a card by a name
    that is no name of it in the game: a printed name in another language (CR 201.2: its name is the English one,
    ``name``) or an alternate name (CR 201.6: printed on some versions of ``card``, default ``name``, which has only
    its Oracle name). None for every other kind."""
    if via == "printed":
        return "201.2", printed_name_note(typed, name)
    if via == FLAVOR:
        return "201.6", alternate_name_note(typed, card or name)
    return None
