"""Layout and face-role facts: one table of what each Scryfall layout is, one of what the rules say
about each kind of card face.

:data:`LAYOUTS` has a row for every ``layout`` value Scryfall documents (docs: "Layouts and Faces"): what
kind of object it is (a card of the Oracle reference, or a token, emblem, plane, scheme, vanguard, art
series card), and what its ``card_faces`` are — faces of the card (split halves, flip halves, double faces,
an Adventure), sides of one printing that are each the whole card (``reversible_card``), or none. Ingest
writes it as the ``layouts`` table, which ``sql/build_core.sql`` joins for ``cards.object_kind``; a layout
value it has no row for still loads, as a card with the generic face roles, and ingest warns about it.

A row of ``faces`` has a ``role`` (assigned from Scryfall's layout in ``sql/build_core.sql``). What the
Comprehensive Rules say about a face of that role lives here and nowhere else:

* ``cr_rule``          -- the rule for that kind of card (709 split, 710 flip, 712 double-faced and meld,
  715 adventurer, 720 omen; 201.4 for an ordinary one-faced card);
* ``name_rule``        -- the CR 201.4 subrule that lets a player choose that face's name (read by
  ``choose/chooser.py`` and the ``nameable_faces`` view; an Omen's name is allowed by 720.5, which 201.4 lacks);
* ``characteristics``  -- ``normal`` (the card's characteristics in every zone but the stack/battlefield
  special cases), ``alternative`` (used only in special cases: a flipped permanent, an Adventure spell) or
  ``own`` (a set of its own: a split half, a DFC back face, a meld result);
* ``characteristic_face`` -- CR 110.4a: the face whose types decide what the *card* is outside the stack
  and battlefield (709.4c, 710.2, 712.8a, 715.4);
* ``castable`` / ``castable_layouts`` -- CR 110.4b: the face can be cast by the card's own rules
  (709.3, 712.11b for a modal DFC's back face, 715.3, 710.2, 720.3);
* ``token_copy`` / ``token_copy_rule`` -- what a token copy of a card with such a face copies (CR 111.11,
  707.2): the whole card, the face that is up (front: 707.8a, 712.8d), both halves combined (709.4) or the
  normal characteristics (710.2, 715.4, 720.4).

Omen cards (CR 720, Tarkir: Dragonstorm 2025) share the adventurer's frame, and Scryfall labels them with the
``adventure`` layout; the rules are their own: ``sql/build_core.sql`` gives the faces of an ``adventure`` card whose
second face has the subtype Omen the roles ``omen_card`` and ``omen`` (the rows below, with :data:`OMEN_SUBTYPE`).

At ingest ``views.build`` writes :data:`FACE_ROLES` into the ``face_roles`` table (documented in
docs/views.md) so SQL joins it; Python reads this module.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "COMBINED_NAME",
    "COMBINED_NAME_DFC",
    "COMBINED_NAME_OMEN",
    "FACE_ROLES",
    "LAYOUTS",
    "NORMAL_ROLES",
    "OMEN_SUBTYPE",
    "STICKER_SHEET_TYPE",
    "FaceRole",
    "Layout",
    "build",
    "combined_name",
    "is_omen_card",
    "is_sticker_sheet",
    "name_rule",
    "role",
    "rows",
    "token_copy",
]


@dataclass(frozen=True, slots=True)
class Layout:
    """What one Scryfall ``layout`` value is (a row of the ``layouts`` table)."""

    layout: str
    object_kind: str  # 'card' (in the Oracle card reference), or token, emblem, plane, scheme, vanguard, art_series
    faces: str  # 'card_faces': faces of the card; 'sides': sides of one printing, each the whole card; 'none'
    description: str  # Scryfall's words for it


LAYOUTS: tuple[Layout, ...] = (
    Layout("normal", "card", "none", "A standard Magic card with one face"),
    Layout("split", "card", "card_faces", "A split-faced card (also aftermath cards and Rooms; CR 709)"),
    Layout("flip", "card", "card_faces", "Cards that invert vertically with the flip keyword (CR 710)"),
    Layout("transform", "card", "card_faces", "Double-sided cards that transform (CR 712)"),
    Layout("modal_dfc", "card", "card_faces", "Double-sided cards that can be played either-side (CR 712)"),
    Layout("meld", "card", "none", "Cards with meld parts printed on the back (CR 712.4; each part its own object)"),
    Layout("leveler", "card", "none", "Cards with Level Up"),
    Layout("class", "card", "none", "Class-type enchantment cards"),
    Layout("case", "card", "none", "Case-type enchantment cards"),
    Layout("saga", "card", "none", "Saga-type cards"),
    Layout(
        "adventure",
        "card",
        "card_faces",
        "Cards with an Adventure spell part (CR 715); Scryfall labels omen cards so too (CR 720: roles omen_card, omen)",
    ),
    Layout("mutate", "card", "none", "Cards with Mutate"),
    Layout("prototype", "card", "none", "Cards with Prototype"),
    Layout("battle", "card", "card_faces", "Battle-type cards (a back face once defeated: CR 712)"),
    Layout("planar", "plane", "none", "Plane and Phenomenon-type cards (CR 901; not in a deck)"),
    Layout("scheme", "scheme", "none", "Scheme-type cards (CR 904; not in a deck)"),
    Layout("vanguard", "vanguard", "none", "Vanguard-type cards (CR 902; not in a deck)"),
    Layout("token", "token", "none", "Token cards (CR 111)"),
    Layout("double_faced_token", "token", "card_faces", "Tokens with another token printed on the back"),
    Layout("emblem", "emblem", "none", "Emblem cards (CR 114)"),
    Layout("augment", "card", "none", "Cards with Augment"),
    Layout("host", "card", "none", "Host-type cards"),
    Layout("art_series", "art_series", "card_faces", "Art Series collectable double-faced cards (no game object)"),
    Layout("reversible_card", "card", "sides", "A Magic card with two sides that are unrelated (printings only)"),
)

_BY_LAYOUT: dict[str, Layout] = {row.layout: row for row in LAYOUTS}

#: Layouts whose objects are printings only: their sides are each the whole Oracle card (a reversible card's
#: two sides, each with the card's own oracle_id), never a card, a name or a face of their own.
PRINTING_LAYOUTS: frozenset[str] = frozenset(row.layout for row in LAYOUTS if row.faces == "sides")


def layout(name: str) -> Layout | None:
    """The facts of Scryfall layout ``name`` (None for a value this table does not know)."""
    return _BY_LAYOUT.get(name)


@dataclass(frozen=True, slots=True)
class FaceRole:
    """The rules facts of one face role (a row of the ``face_roles`` table)."""

    role: str
    layouts: tuple[str, ...]  # Scryfall layouts that give this role; () = any layout (see build_core.sql)
    cr_rule: str
    name_rule: str
    characteristics: str  # 'normal' | 'alternative' | 'own'
    characteristic_face: bool
    castable: bool
    castable_layouts: tuple[str, ...]  # layouts where a face that is otherwise not castable is
    token_copy: str  # 'whole_card' | 'face_up' | 'halves_combined' | 'normal_face'
    token_copy_rule: str


FACE_ROLES: tuple[FaceRole, ...] = (
    # CR 201.4: an ordinary card (normal, leveler, saga, class, ... and tokens without card_faces).
    FaceRole("single", (), "201.4", "201.4", "normal", True, True, (), "whole_card", "111.11, 707.2"),
    # CR 712.4 / 712.8: a meld card's front face; its back is the meld result, a separate object in the data.
    FaceRole("meld_part", ("meld",), "712.8", "201.4", "normal", True, True, (), "whole_card", "111.11, 707.2"),
    # CR 712.8g: the combined back face of a meld pair, no card in any library (712.4) and never cast.
    FaceRole("meld_result", ("meld",), "712.8g", "201.4e", "own", False, False, (), "whole_card", "111.11, 707.8"),
    # CR 712.8a: a double-faced card has only its front face's characteristics outside the battlefield/stack.
    FaceRole("front", (), "712.8a", "201.4", "normal", True, True, (), "face_up", "707.8a, 712.8d"),
    # CR 712.8e-f: a back face has its own characteristics; only a modal DFC's back face is cast (712.11b).
    FaceRole("back", (), "712.8e", "201.4d", "own", False, False, ("modal_dfc",), "face_up", "707.8a, 712.8d"),
    # CR 709.3 / 709.4: each half is cast alone; elsewhere the halves are combined.
    FaceRole("split_half", ("split",), "709.4", "201.4b", "own", True, True, (), "halves_combined", "709.4, 709.4b-c"),
    FaceRole(
        "aftermath_half", ("split",), "709.4", "201.4b", "own", True, True, (), "halves_combined", "709.4, 709.4b-c"
    ),
    # CR 710.1a / 710.2: the upright half is the card's normal characteristics.
    FaceRole("flip_top", ("flip",), "710.2", "201.4", "normal", True, True, (), "normal_face", "710.2, 710.1a"),
    # CR 710.1b: the alternative name and characteristics, used only by a flipped permanent.
    FaceRole(
        "flip_bottom", ("flip",), "710.1b", "201.4c", "alternative", False, False, (), "normal_face", "710.2, 710.1a"
    ),
    # CR 715.4: an adventurer card has only its normal characteristics except as an Adventure on the stack.
    FaceRole("adventurer", ("adventure",), "715.4", "201.4", "normal", True, True, (), "normal_face", "715.4"),
    # CR 715.2 / 715.3: the Adventure is alternative characteristics, cast as an Adventure.
    FaceRole("adventure", ("adventure",), "715.2", "201.4f", "alternative", False, True, (), "normal_face", "715.4"),
    # CR 720.4: "In every zone except the stack, and while on the stack not as an Omen, an omen card has only its
    # normal characteristics" -- its name outside the stack is the creature's, never the Omen's (201.2).
    FaceRole("omen_card", ("adventure",), "720.4", "201.4", "normal", True, True, (), "normal_face", "720.4"),
    # CR 720.2 / 720.3: the Omen is alternative characteristics, cast as an Omen (720.3a); 720.5 lets a player
    # choose its name ("choose a card name"), judged by those characteristics.
    FaceRole("omen", ("adventure",), "720.2", "720.5", "alternative", False, True, (), "normal_face", "720.4"),
)

#: The subtype of an omen card's inset spell (CR 720.1-720.2: "Sorcery — Omen", "Instant — Omen"): how an omen card
#: is told from an adventurer card, which Scryfall gives the same layout.
OMEN_SUBTYPE = "Omen"

_BY_ROLE: dict[str, FaceRole] = {r.role: r for r in FACE_ROLES}


def is_omen_card(layout: str | None, face_type_lines: Iterable[str | None]) -> bool:
    """Whether a card of Scryfall ``layout`` with faces of these type lines is an omen card (CR 720.1: its inset
    spell has the subtype Omen), as ``sql/build_core.sql`` assigns the omen roles."""
    lines = list(face_type_lines)
    return layout == "adventure" and len(lines) > 1 and OMEN_SUBTYPE in (lines[1] or "").partition("—")[2].split()


#: Roles of a face that carries the card's normal characteristics and so its normal name (CR 201.4, 710.2,
#: 712.8a, 715.4): a card with none of them (a split card) is known only by its combined name.
NORMAL_ROLES: frozenset[str] = frozenset(r.role for r in FACE_ROLES if r.characteristics == "normal")

#: Why a multi-face card's combined name ("Fire // Ice") can't be chosen, by layout (CR 201.4b-f);
#: any other multi-face layout is double-faced (201.4d, 712.19).
COMBINED_NAME: dict[str, tuple[str, str]] = {
    "split": ("201.4b", "a split card's name is one of its halves' names, never both (CR 709.4a)"),
    "flip": ("201.4c", "a flip card has a normal name and an alternative name, never both at once (CR 710.1)"),
    "adventure": (
        "201.4f",
        "an adventurer card has a normal name and an Adventure name, never both at once (CR 715.2)",
    ),
}
#: An omen card's combined name ("Stormshriek Feral // Flush Out"), by its roles rather than Scryfall's layout.
COMBINED_NAME_OMEN: tuple[str, str] = (
    "720.4",
    "an omen card has its normal name, and its Omen name only as an Omen on the stack, never both (CR 720.4, 720.5)",
)
COMBINED_NAME_DFC: tuple[str, str] = (
    "201.4d",
    "a double-faced card's name is the name of one face, never both (CR 712.19)",
)


# Scryfall's type line of an Unfinity sticker sheet (set sunf, layout normal; it even gives the sheets a Commander
# legality). CR 123.2: "Sticker sheets are not cards and have no characteristics": no deck or sideboard holds one
# (a player who plays with stickers brings ten or more sheets beside the deck, CR 123.2a) and no "choose a card
# name" names one (201.4: the name of a card). The deck check and the chooser both ask :func:`is_sticker_sheet`.
STICKER_SHEET_TYPE = "Stickers"


def is_sticker_sheet(type_line: str | None) -> bool:
    """Whether an object with this (front) type line is an Unfinity sticker sheet: no card (CR 123.2)."""
    return (type_line or "").strip() == STICKER_SHEET_TYPE


def role(name: str) -> FaceRole | None:
    """The facts of face role ``name`` (None for a role this table does not know)."""
    return _BY_ROLE.get(name)


def name_rule(role_name: str) -> str:
    """CR 201.4 subrule for choosing the name of a face with this role (201.4 when unknown)."""
    found = _BY_ROLE.get(role_name)
    return found.name_rule if found else "201.4"


def combined_name(layout: str, roles: Iterable[str] = ()) -> tuple[str, str]:
    """(rule, why) refusing a multi-face card's combined name for this layout (CR 201.4b-d), or for an omen card
    (its faces' ``roles`` hold ``omen``: CR 720.4)."""
    if "omen" in roles:
        return COMBINED_NAME_OMEN
    return COMBINED_NAME.get(layout, COMBINED_NAME_DFC)


def token_copy(roles: set[str] | frozenset[str]) -> str:
    """What a token copy of a card whose faces have these roles copies (CR 111.11, 707.2, 707.8a).

    'face_up' (double-faced: both faces, front face up), 'halves_combined' (split), 'normal_face'
    (adventurer, flip) or 'whole_card'.
    """
    kinds = {r.token_copy for name in roles if (r := _BY_ROLE.get(name))}
    for kind in ("face_up", "halves_combined", "normal_face"):  # the same precedence as the tokens layer always had
        if kind in kinds:
            return kind
    return "whole_card"


def rows() -> list[dict[str, Any]]:
    """:data:`FACE_ROLES` as dicts (the ``face_roles`` table's rows)."""
    return [{k: list(v) if isinstance(v, tuple) else v for k, v in asdict(r).items()} for r in FACE_ROLES]


_COLUMNS = (
    "role VARCHAR PRIMARY KEY, layouts VARCHAR[], cr_rule VARCHAR, name_rule VARCHAR, characteristics VARCHAR, "
    "characteristic_face BOOLEAN, castable BOOLEAN, castable_layouts VARCHAR[], token_copy VARCHAR, "
    "token_copy_rule VARCHAR"
)


def build(con: duckdb.DuckDBPyConnection) -> None:
    """(Re)create the ``face_roles`` table from :data:`FACE_ROLES` and the ``layouts`` table from :data:`LAYOUTS`."""
    con.execute(f"CREATE OR REPLACE TABLE face_roles ({_COLUMNS})")
    _insert_rows(con, "face_roles", [list(r.values()) for r in rows()])
    con.execute(
        "CREATE OR REPLACE TABLE layouts (layout VARCHAR PRIMARY KEY, object_kind VARCHAR, faces VARCHAR, "
        "description VARCHAR)"
    )
    _insert_rows(con, "layouts", [list(asdict(r).values()) for r in LAYOUTS])


def _insert_rows(con: duckdb.DuckDBPyConnection, table: str, values: list[list[Any]]) -> None:
    """``values`` into ``table`` (a constant name above) in one statement: ``executemany`` runs one statement per
    row, which into an ingest's file database cost 0.15 s per call, on the ingest's critical path."""
    row = "(" + ", ".join("?" * len(values[0])) + ")"
    con.execute(f"INSERT INTO {table} VALUES " + ", ".join([row] * len(values)), [v for r in values for v in r])
