"""What a name that is a face but no card is (CR 712.4b, 712.8a), said beside ``resolve``'s answer.

A meld result (Brisela, Voice of Nightmares) is printed on the backs of its two meld cards: "The back faces of a
meld pair are used only to determine the characteristics of the melded permanent" (CR 712.4b), so it is no card
of its own. A double-faced card's back face (Insectile Aberration) names the card: outside the battlefield and
stack the card has only its front face's characteristics (CR 712.8a), so a list that writes the back face counts
the card. :class:`FaceNotes` reads the faces of those roles (all of them for the name index, one card's for a point
lookup) and words the note ``resolve`` carries, the same from both strategies; the deck check says the same of a
decklist line (``decks/checker.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb

    from oracle_tools.names.resolver import Resolution

__all__ = ["FaceNotes", "back_face_note", "meld_result_note", "noted_cards", "noted_rows"]

_QUERY = """
SELECT f.oracle_id, f.name, f.role, c.name AS card,
       (SELECT list(DISTINCT p.part_name ORDER BY p.part_name) FROM parts p
         WHERE p.oracle_id = f.oracle_id AND p.component = 'meld_part') AS meld_parts
FROM faces f JOIN cards c USING (oracle_id)
WHERE f.role IN ('meld_result', 'back')
"""


#: The faces a note is about (CR 712.4b, 712.8a).
_NOTED_ROLES = ("meld_result", "back")


def noted_cards(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The cards that have a face a note is about (a meld result or a back face), by a plain read of the faces'
    roles: the only cards whose :class:`FaceNotes` can say anything."""
    return {
        oid for (oid,) in con.execute("SELECT oracle_id FROM faces WHERE role IN ('meld_result', 'back')").fetchall()
    }


def _one_card(con: duckdb.DuckDBPyConnection, oracle_id: str) -> list[tuple[Any, ...]]:
    """:data:`_QUERY`'s rows of one card, by plain reads on its key (a fresh process resolving one name pays for
    every join, aggregate and sort in its peak memory): its faces, then only for a meld result or a back face its
    name and meld cards."""
    faces = [
        (name, role)
        for name, role in con.execute(
            "SELECT name, role FROM faces WHERE oracle_id = $oid", {"oid": oracle_id}
        ).fetchall()
        if role in _NOTED_ROLES
    ]
    if not faces:
        return []
    (card,) = con.execute("SELECT name FROM cards WHERE oracle_id = $oid", {"oid": oracle_id}).fetchone() or ("",)
    parts = sorted(
        {
            n
            for (n,) in con.execute(
                "SELECT part_name FROM parts WHERE oracle_id = $oid AND component = 'meld_part'", {"oid": oracle_id}
            ).fetchall()
        }
    )
    return [(oracle_id, name, role, card, parts) for name, role in faces]


def meld_result_note(parts: list[str] | tuple[str, ...]) -> str:
    """CR 712.4b: what a meld result is."""
    pair = f" of {' and '.join(parts)}" if parts else ""
    return f"the melded back face{pair}; not a card (CR 712.4b): only its meld cards can be in a deck"


def back_face_note(front: str) -> str:
    """CR 712.8a: what a double-faced card's back face named alone is."""
    return f"the back face of {front}: counted as {front} (CR 712.8a)"


def noted_rows(con: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    """Every face a note is about: (oracle_id, face name, role, card name, meld cards), what :class:`FaceNotes` is
    made of (the names file stores them: ``names.stored``)."""
    return con.execute(_QUERY).fetchall()


class FaceNotes:
    """The meld results and double-faced back faces of one database (or of one card: ``oracle_id``), in one query
    (or from ``rows``: :func:`noted_rows`' rows, of one card or all, read elsewhere)."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection | None,
        oracle_id: str | None = None,
        *,
        rows: list[tuple[Any, ...]] | None = None,
    ) -> None:
        self._meld: dict[str, tuple[str, ...]] = {}  # oracle_id of a meld result -> its meld cards
        self._back: dict[tuple[str, str], str] = {}  # (oracle_id, back face name) -> the front face's name
        if rows is None:
            assert con is not None
            rows = noted_rows(con) if oracle_id is None else _one_card(con, oracle_id)
        for oracle_id, name, role, card, parts in rows:
            if role == "meld_result":
                self._meld[oracle_id] = tuple(parts or ())
            else:
                self._back[(oracle_id, name)] = card.split(" // ")[0]

    def note(self, res: Resolution) -> str | None:
        """The note for what ``res`` names, when it is a meld result or a back face (None otherwise)."""
        if not res.ok or not res.oracle_id:
            return None
        if res.oracle_id in self._meld:
            return meld_result_note(self._meld[res.oracle_id])
        if res.face and (front := self._back.get((res.oracle_id, res.face))):
            return back_face_note(front)
        return None
