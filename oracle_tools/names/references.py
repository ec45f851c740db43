"""The ``name_references`` table: every name mention in every face's Oracle text, and
``oracle_text_self_replaced``: each face's text with its self-references as CARDNAME / ``~``.

Built at ingest after the names layer (it resolves "named X" through ``names``), from
:func:`oracle_tools.text.oracletext.name_mentions` — the reading rules live there, this module only stores
and queries them. Columns are documented in docs/views.md.
"""

from __future__ import annotations

from typing import Any

import duckdb
import polars as pl

from oracle_tools.names.kinds import IN_GAME_VIAS
from oracle_tools.store import sqlfiles
from oracle_tools.text import vocabulary
from oracle_tools.text.oracletext import Mention, MentionIndex, name_mentions, replace_self_references

_SCHEMA = {
    "oracle_id": pl.Utf8,
    "face_index": pl.Int32,
    "start": pl.Int32,
    "end": pl.Int32,
    "text": pl.Utf8,
    "kind": pl.Utf8,
    "target_oracle_id": pl.Utf8,
    "target_name": pl.Utf8,
}

# How a name found in text resolves to an Oracle card: by the card's names in the game (kinds.IN_GAME_VIAS, best
# first: its own name, then a face name (CR 709-715), then an interchangeable name (CR 201.3)). Flavor and foreign
# names never appear in Oracle text.
_RESOLVABLE = """
SELECT ns.name, ns.oracle_id, c.name AS card_name,
       row_number() OVER (PARTITION BY ns.name ORDER BY list_position($in_game, ns.via), ns.oracle_id) AS pick
FROM names ns JOIN cards c USING (oracle_id)
WHERE list_contains($in_game, ns.via) AND ns.lang = 'en'
"""


# Each face with its text, and whether any trigger of :func:`oracletext.name_mentions` occurs in it: "named",
# "Partner with X" or a meld pair's "Melds with X" (CR 702.124j, 712.4a), "create(s) X" (CR 111.9), one of its own names (201.5) or a legendary face's shortened name (201.5c). A face
# without any gets no mention, so most of the ~20k faces skip the Python reading; tests/test_name_references.py checks
# on every real face that name_mentions finds nothing where this says none.
_FACES = r"""
WITH multi AS (SELECT oracle_id, list(name) AS names FROM faces GROUP BY oracle_id HAVING count(*) > 1)
SELECT f.oracle_id, f.face_index, f.name, c.name, f.type_line, f.oracle_text,
       list_filter(m.names, lambda n: n IS NOT NULL AND n <> f.name) AS other_faces,
       (strpos(f.oracle_text, f.name) > 0 OR strpos(f.oracle_text, c.name) > 0
        OR strpos(f.oracle_text, 'named') > 0 OR regexp_matches(f.oracle_text, '[Cc]reates? [A-Z]')
        OR regexp_matches(f.oracle_text, 'Partner with |[Mm]elds with |meld them into ')
        OR (f.type_line LIKE '%Legendary%' AND strpos(f.name, ', ') > 0
            AND strpos(f.oracle_text, trim(split_part(f.name, ', ', 1))) > 0)) AS may_mention
FROM faces f JOIN cards c USING (oracle_id) LEFT JOIN multi m USING (oracle_id)
WHERE f.oracle_text <> ''
ORDER BY f.oracle_id, f.face_index
"""


def build(con: duckdb.DuckDBPyConnection) -> None:
    """Create ``name_references`` from ``faces``, ``cards``, ``names`` and ``token_names``."""
    resolvable = {
        name: (oid, card)
        for name, oid, card, pick in con.execute(_RESOLVABLE, {"in_game": IN_GAME_VIAS}).fetchall()
        if pick == 1
    }
    token_names = [r[0] for r in con.execute("SELECT DISTINCT name FROM token_names").fetchall()]
    index = MentionIndex([*resolvable, *token_names])
    subtypes = [*vocabulary.subtypes("land"), *vocabulary.subtypes("planeswalker")]
    faces = con.execute(_FACES).fetchall()
    replaced: dict[str, list[Any]] = {"oracle_id": [], "face_index": [], "text_cardname": [], "text_tilde": []}
    mention_rows: list[tuple[Any, ...]] = []
    for oracle_id, face_index, face_name, card_name, type_line, text, other_faces, may_mention in faces:
        if not may_mention:  # none of name_mentions' triggers is in the text: nothing to read, nothing replaced
            mentions: list[Mention] = []
        else:
            own = [face_name] if face_name == card_name else [face_name, card_name]
            mentions = name_mentions(
                text, own, type_line=type_line, names=index, subtypes=subtypes, other_names=other_faces or ()
            )
        replaced["oracle_id"].append(oracle_id)
        replaced["face_index"].append(face_index)
        replaced["text_cardname"].append(replace_self_references(text, mentions) if mentions else text)
        replaced["text_tilde"].append(replace_self_references(text, mentions, "~") if mentions else text)
        for m in mentions:
            if m.kind in ("self", "self_short"):
                target: tuple[str | None, str | None] = (oracle_id, card_name)
            else:
                target = resolvable.get(m.name, (None, None))
            mention_rows.append((oracle_id, face_index, m.start, m.end, m.text, m.kind, *target))
    frame = pl.DataFrame(mention_rows, schema=_SCHEMA, orient="row")
    sqlfiles.write_frame(con, "name_references", frame)
    # The CARDNAME / ~ form of every face's text (analysts' text clustering), from the same mentions.
    sqlfiles.write_frame(
        con,
        "oracle_text_self_replaced",
        pl.DataFrame(
            replaced,
            schema={"oracle_id": pl.Utf8, "face_index": pl.Int32, "text_cardname": pl.Utf8, "text_tilde": pl.Utf8},
        ),
    )


def references(con: duckdb.DuckDBPyConnection, oracle_id: str) -> dict[str, Any]:
    """What card ``oracle_id``'s text calls itself, and every mention in any card's text that names it
    (``OracleDB.references`` resolves the name first, as every interface does)."""
    found = con.execute("SELECT name FROM cards WHERE oracle_id = ?", [oracle_id]).fetchall()
    card_name = found[0][0] if found else None
    cols = 'r.oracle_id, c.name AS card_name, r.face_index, r.start, r."end", r.text, r.kind, r.target_name'
    own = _dicts(
        con,
        f"""SELECT {cols} FROM name_references r JOIN cards c USING (oracle_id)
        WHERE r.oracle_id = ? ORDER BY r.face_index, r.start""",
        oracle_id,
    )
    named_by = _dicts(
        con,
        f"""SELECT {cols} FROM name_references r JOIN cards c USING (oracle_id)
        WHERE r.target_oracle_id = ? AND r.kind IN ('named', 'token_name')
          AND r.oracle_id <> ?  -- the card's own mentions of its name are listed once, under own_text
        ORDER BY c.name, r.face_index, r.start""",
        oracle_id,
        oracle_id,
    )
    return {"oracle_id": oracle_id, "name": card_name, "own_text": own, "named_by": named_by}


def _dicts(con: duckdb.DuckDBPyConnection, sql: str, *params: Any) -> list[dict[str, Any]]:
    cur = con.execute(sql, list(params))
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]
