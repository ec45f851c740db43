"""Scryfall card objects (``"object": "card"``) from the database, for the HTTP API, the CLI and the MCP tools.

:func:`card_objects` turns printing ids, or Oracle ids, into the card objects Scryfall's API returns
(https://scryfall.com/docs/api/cards). A printing's object is **the one the bulk file gave**, kept whole at
ingest (oracle_tools/store/scryfall_objects.py), with three changes:

* links to Scryfall's API (``uri``, ``rulings_uri``, ``prints_search_uri``, ``set_uri``, ``set_search_uri``,
  ``all_parts[].uri``) point at ``base_url`` when one is given (the local server); links to scryfall.com
  pages, images and shops are left as they are;
* fields Scryfall added after the file was written are derived where Scryfall documents the rule —
  ``finishes`` from ``nonfoil``/``foil``, ``image_status`` from ``highres_image``, ``set_id`` from ``set_uri``
  (see :func:`_derive`) — and otherwise absent, never invented;
* an object that lacks what every card object has (a trimmed or hand-made file, like the embedded sample's)
  gets the missing fields from the tables, built as below; so does every printing of a database built
  before objects were kept.

The object built from the tables: the Oracle facts come from ``cards`` / ``faces`` / ``legalities`` /
``parts``, the printing facts from ``printings``; every optional field whose value is null is absent — as on
Scryfall, which leaves out ``power`` for a sorcery.

Multi-face cards follow Scryfall's two shapes (checked field by field against real Scryfall objects in
tests/test_cardjson.py):

* one-sided layouts with several parts — ``split`` (incl. aftermath), ``flip``, ``adventure``: the
  card object carries ``mana_cost`` (halves joined with `` // ``; a flip card: the top's), ``colors``
  (the union) and, for an adventurer, ``power``/``toughness``; each ``card_faces`` entry has its own
  name, cost, type line and text but no colours. A flip card's bottom half has ``mana_cost`` ""
  (CR 710.1c: it has the top's cost, but Scryfall prints none).
* double-sided layouts — ``transform``, ``modal_dfc``, ``double_faced_token``, ``reversible_card``, …:
  no top-level ``mana_cost``/``colors``/``oracle_text``; each face carries its own ``colors``,
  ``color_indicator`` and stats; a back face without a cost has ``mana_cost`` "".

Meld parts and meld results are separate card objects (one face each), as on Scryfall.
Foreign printings keep ``printed_name`` per face for multi-face cards (Scryfall has it only there) and
at the top for one-face cards.

The representative printing of an Oracle id (``oracle_ids=``): the newest English paper printing,
preferring non-promo printings — ordered by English first, then available in paper, then not a
promo, then not from a memorabilia set, then newest ``released_at``, then lowest collector number and id
so the choice is stable. It is precomputed at ingest in table ``preferred_printings``
(``oracle_tools/sql/preferred_printings.sql``), the same printing ``oracle-tools search`` shows.

One query for the kept objects, and four batched queries (printings+cards, faces, legalities, parts) only for
the printings whose object needs the tables, whatever the number of cards.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from oracle_tools.store import scryfall_objects

if TYPE_CHECKING:
    import duckdb

#: Layouts whose parts share one side of the card: the parts are in ``card_faces`` without colours,
#: and the card object itself has the (joined) mana cost and the colours.
ONE_SIDED_MULTIPART = frozenset({"split", "flip", "adventure"})

#: The representative printing of each Oracle id: precomputed at ingest (see the module docstring for the rule,
#: and oracle_tools/sql/preferred_printings.sql, its one home).
REPRESENTATIVE_SQL = """
SELECT oracle_id, id FROM preferred_printings WHERE oracle_id IN (SELECT unnest($oids))
"""

_PRINTING_SQL = """
SELECT p.id, p.oracle_id, p.name AS printing_name, p.lang, p.set_code, p.set_name, p.set_type, p.collector_number,
       p.released_at, p.rarity, p.layout AS printing_layout, p.printed_name, p.flavor_name, p.printed_type_line,
       p.printed_text, p.face_names, p.face_printed_names, p.face_flavor_names, p.games, p.digital, p.promo,
       p.border_color, p.security_stamp, p.multiverse_ids, p.mtgo_id, p.arena_id, p.artist,
       c.name, c.layout, c.mana_cost, c.cmc, c.type_line, c.oracle_text, c.colors, c.color_identity,
       c.color_indicator, c.power, c.toughness, c.loyalty, c.defense, c.keywords, c.produced_mana, c.reserved,
       c.edhrec_rank
FROM printings p LEFT JOIN cards c USING (oracle_id)
WHERE p.id IN (SELECT unnest($ids))
"""

_FACES_SQL = """
SELECT oracle_id, face_index, name, role, mana_cost, type_line, oracle_text, colors, color_indicator,
       power, toughness, loyalty, defense
FROM faces
WHERE oracle_id IN (SELECT unnest($oids))
  AND oracle_id IN (SELECT oracle_id FROM faces WHERE oracle_id IN (SELECT unnest($oids))
                    GROUP BY oracle_id HAVING count(*) > 1)
ORDER BY oracle_id, face_index
"""

_LEGALITIES_SQL = "SELECT oracle_id, format, status FROM legalities WHERE oracle_id IN (SELECT unnest($oids))"

_PARTS_SQL = """
SELECT oracle_id, component, part_name, part_type_line, part_id FROM parts
WHERE oracle_id IN (SELECT unnest($oids))
"""

_RULINGS_SQL = """
SELECT oracle_id, source, published_at, comment FROM rulings WHERE oracle_id = ?
ORDER BY published_at NULLS LAST, comment
"""


def _colours(colours: Sequence[str] | None) -> list[str]:
    """Colours in Scryfall's order (alphabetical: the real objects list Nicol Bolas as B, R, U)."""
    return sorted(colours or [])


def representative_ids(con: duckdb.DuckDBPyConnection, oracle_ids: Sequence[str]) -> dict[str, str]:
    """``{oracle_id: printing id}`` of each Oracle id's representative printing (ids not in the database are left out)."""
    if not oracle_ids:
        return {}
    return dict(con.execute(REPRESENTATIVE_SQL, {"oids": sorted(set(oracle_ids))}).fetchall())


def card_objects(
    con: duckdb.DuckDBPyConnection,
    *,
    ids: Sequence[str] | None = None,
    oracle_ids: Sequence[str] | None = None,
    base_url: str | None = None,
) -> list[dict[str, Any]]:
    """Scryfall card objects in input order: one per printing id (``ids``), or one per Oracle id
    (``oracle_ids``, each as its representative printing). Ids the database does not have are left out
    (compare the returned ``id``/``oracle_id`` to find them); a repeated id gives its card again.

    ``base_url`` (``http://127.0.0.1:8765``) points the API links (``uri``, ``rulings_uri``, ``prints_search_uri``,
    ``set_uri`` …) at the local API; without it an object keeps the links its file gave (to api.scryfall.com),
    and one built from the tables has none.
    """
    if (ids is None) == (oracle_ids is None):
        raise TypeError("card_objects() takes exactly one of ids= or oracle_ids=")
    if isinstance(ids, str) or isinstance(oracle_ids, str):
        raise TypeError("card_objects() takes a sequence of ids, not one string")
    if oracle_ids is not None:
        rep = representative_ids(con, oracle_ids)
        wanted = [rep[oid] for oid in oracle_ids if oid in rep]
    else:
        wanted = list(ids or [])
    if not wanted:
        return []
    unique_ids = sorted(set(wanted))
    built = _kept_objects(con, unique_ids, base_url)
    incomplete = [pid for pid in unique_ids if pid not in built or not ALWAYS_PRESENT <= built[pid].keys()]
    if incomplete:
        for pid, card in objects_from_tables(con, incomplete, base_url).items():
            kept = built.get(pid)
            if kept is None:
                built[pid] = card
            else:  # the kept fields first, as the file gave them; the tables fill in what it lacks
                for key, value in card.items():
                    if key == "keywords" and not value:
                        continue  # the tables' empty list may only mean no file had the field: not a fact
                    kept.setdefault(key, value)
    # a repeated id gets its own copy: callers may change one answer without touching the other
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for pid in wanted:
        answer = built.get(pid)
        if answer is not None:
            out.append(answer if pid not in seen else _copy(answer))
            seen.add(pid)
    return out


#: Fields every card object has (Scryfall's card object docs) and every file of Scryfall's gives: a kept object
#: without one of them is a trimmed or hand-made one, completed from the tables. Not here: ``oracle_id``
#: (reversible cards have it per face), ``keywords`` and ``set_type`` (files of 2019 lack them; the tables
#: could not add them truthfully, so checking them would rebuild every such object for nothing).
ALWAYS_PRESENT = frozenset(
    {
        "object", "id", "name", "lang", "released_at", "layout", "cmc", "type_line", "color_identity",
        "legalities", "games", "reserved", "digital", "promo", "set", "set_name",
        "collector_number", "rarity", "uri", "rulings_uri", "prints_search_uri",
    }
)  # fmt: skip
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: Where Scryfall's objects point for its API; replaced by the local server's address.
SCRYFALL_API = "https://api.scryfall.com"


def _kept_objects(
    con: duckdb.DuckDBPyConnection, ids: Sequence[str], base_url: str | None
) -> dict[str, dict[str, Any]]:
    """The kept object of each printing, links pointed at ``base_url``, newer fields derived."""
    texts = scryfall_objects.stored_objects(con, ids)
    out: dict[str, dict[str, Any]] = {}
    for pid, text in texts.items():
        card = json.loads(point_api_links(text, base_url))
        _derive(card)
        out[pid] = card
    return out


def point_api_links(text: bytes, base_url: str | None) -> bytes:
    """A Scryfall object's JSON text with each link to Scryfall's API (a string starting with
    ``https://api.scryfall.com/``) pointed at ``base_url`` instead; unchanged without one."""
    if not base_url:
        return text
    return text.replace(f'"{SCRYFALL_API}/'.encode(), (json.dumps(base_url, ensure_ascii=False)[:-1] + "/").encode())


def _derive(card: dict[str, Any]) -> None:
    """Fields Scryfall added later, from the older fields it documents them by — only when the file lacks them.

    * ``finishes`` (2021; "foil and nonfoil ... use finishes instead"): ``nonfoil`` then ``foil``, in
      Scryfall's order; an etched finish is not knowable from the older fields, so it is never added.
    * ``image_status`` (2021): ``highres_scan`` when ``highres_image`` is true; when it is false, ``lowres`` if
      the object has images and ``missing`` if it has none (the ``placeholder`` status came with the field).
    * ``set_id``: the id ``set_uri`` links to (a set object's ``uri`` is ``/sets/{id}``).
    """
    if "set_id" not in card and isinstance(card.get("set_uri"), str):
        set_id = card["set_uri"].rsplit("/", 1)[-1]
        if _UUID.fullmatch(set_id):
            card["set_id"] = set_id
    if "finishes" not in card and ("foil" in card or "nonfoil" in card):
        card["finishes"] = [finish for finish in ("nonfoil", "foil") if card.get(finish)]
    if "image_status" not in card and "highres_image" in card:
        if card["highres_image"]:
            card["image_status"] = "highres_scan"
        else:
            has_images = "image_uris" in card or any("image_uris" in f for f in card.get("card_faces") or ())
            card["image_status"] = "lowres" if has_images else "missing"


def objects_from_tables(
    con: duckdb.DuckDBPyConnection, unique_ids: Sequence[str], base_url: str | None
) -> dict[str, dict[str, Any]]:
    """Card objects built from the tables (the module docstring), by printing id."""
    cur = con.execute(_PRINTING_SQL, {"ids": list(unique_ids)})
    columns = [d[0] for d in cur.description]
    rows = {row[0]: dict(zip(columns, row)) for row in cur.fetchall()}
    oids = sorted({r["oracle_id"] for r in rows.values() if r["oracle_id"]})
    faces: dict[str, list[dict[str, Any]]] = {}
    legalities: dict[str, dict[str, str]] = {}
    parts: dict[str, list[tuple[Any, ...]]] = {}
    if oids:
        cur = con.execute(_FACES_SQL, {"oids": oids})
        face_columns = [d[0] for d in cur.description]
        for face in cur.fetchall():
            faces.setdefault(face[0], []).append(dict(zip(face_columns, face)))
        for oid, fmt, status in con.execute(_LEGALITIES_SQL, {"oids": oids}).fetchall():
            legalities.setdefault(oid, {})[fmt] = status
        for part in con.execute(_PARTS_SQL, {"oids": oids}).fetchall():
            parts.setdefault(part[0], []).append(part)
    built: dict[str, dict[str, Any]] = {}
    for pid in unique_ids:
        row = rows.get(pid)
        if row is not None:
            oid = row["oracle_id"]
            built[pid] = _card_object(row, faces.get(oid, []), legalities.get(oid, {}), parts.get(oid, []), base_url)
    return built


def _copy(card: dict[str, Any]) -> dict[str, Any]:
    import copy

    return copy.deepcopy(card)


def _put(obj: dict[str, Any], key: str, value: Any) -> None:
    """Set an optional field: Scryfall leaves out what a card does not have."""
    if value is not None:
        obj[key] = value


def _card_object(
    row: dict[str, Any],
    faces: list[dict[str, Any]],
    legalities: dict[str, str],
    parts: list[tuple[Any, ...]],
    base_url: str | None,
) -> dict[str, Any]:
    layout = row["printing_layout"] or row["layout"]
    multipart = len(faces) > 1
    one_sided = layout in ONE_SIDED_MULTIPART
    card: dict[str, Any] = {
        "object": "card",
        "id": row["id"],
        "oracle_id": row["oracle_id"],
        "name": row["name"] or row["printing_name"],
        "lang": row["lang"],
        "released_at": row["released_at"].isoformat() if row["released_at"] is not None else None,
    }
    if base_url:
        card["uri"] = f"{base_url}/cards/{row['id']}"
        card["rulings_uri"] = f"{base_url}/cards/{row['id']}/rulings"
        card["prints_search_uri"] = (
            f"{base_url}/cards/search?order=released&q={quote('oracleid:' + str(row['oracle_id']))}&unique=prints"
        )
    _put(card, "multiverse_ids", row["multiverse_ids"])
    _put(card, "mtgo_id", row["mtgo_id"])
    _put(card, "arena_id", row["arena_id"])
    card["layout"] = layout
    if not multipart or one_sided:
        _put(card, "mana_cost", row["mana_cost"])
    card["cmc"] = row["cmc"] if row["cmc"] is not None else 0.0
    card["type_line"] = row["type_line"]
    if not multipart:
        _put(card, "oracle_text", row["oracle_text"])
        for key in ("power", "toughness", "loyalty", "defense"):
            _put(card, key, row[key])
    elif layout == "adventure":  # the adventurer's stats are the card's (Scryfall puts them at the top)
        _put(card, "power", row["power"])
        _put(card, "toughness", row["toughness"])
    if not multipart or one_sided:
        card["colors"] = _colours(row["colors"])
        if row["color_indicator"] and not multipart:
            card["color_indicator"] = _colours(row["color_indicator"])
    card["color_identity"] = _colours(row["color_identity"])
    card["keywords"] = list(row["keywords"] or [])
    _put(card, "produced_mana", _colours(row["produced_mana"]) if row["produced_mana"] else None)
    if parts:
        card["all_parts"] = [
            {
                "object": "related_card",
                "id": part_id,
                "component": component,
                "name": name,
                "type_line": type_line,
                **({"uri": f"{base_url}/cards/{part_id}"} if base_url and part_id else {}),
            }
            for _, component, name, type_line, part_id in parts
        ]
    if multipart:
        card["card_faces"] = [_face(face, i, row, one_sided) for i, face in enumerate(faces)]
    else:
        _put(card, "printed_name", row["printed_name"])
        _put(card, "flavor_name", row["flavor_name"])
    _put(card, "printed_type_line", row["printed_type_line"])
    _put(card, "printed_text", row["printed_text"])
    card["legalities"] = dict(sorted(legalities.items()))
    card["games"] = list(row["games"] or [])
    card["reserved"] = bool(row["reserved"])
    card["digital"] = bool(row["digital"])
    card["promo"] = bool(row["promo"])
    card["set"] = row["set_code"]
    card["set_name"] = row["set_name"]
    _put(card, "set_type", row["set_type"])
    card["collector_number"] = row["collector_number"]
    card["rarity"] = row["rarity"]
    _put(card, "border_color", row["border_color"])
    _put(card, "security_stamp", row["security_stamp"])
    _put(card, "artist", row["artist"])
    _put(card, "edhrec_rank", row["edhrec_rank"])
    return card


def _face(face: dict[str, Any], index: int, row: dict[str, Any], one_sided: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"object": "card_face", "name": face["name"]}
    cost = face["mana_cost"]
    if face["role"] == "flip_bottom" or cost is None:
        cost = ""  # CR 710.1c: the bottom has the top's cost, but it is not printed (Scryfall: ""); a back face: none
    out["mana_cost"] = cost
    out["type_line"] = face["type_line"]
    out["oracle_text"] = face["oracle_text"] if face["oracle_text"] is not None else ""
    if not one_sided:
        out["colors"] = _colours(face["colors"])
        if face["color_indicator"]:
            out["color_indicator"] = _colours(face["color_indicator"])
    for key in ("power", "toughness", "loyalty", "defense"):
        _put(out, key, face[key])
    for key, column in (("printed_name", "face_printed_names"), ("flavor_name", "face_flavor_names")):
        values = row[column] or []
        names = row["face_names"] or []
        # the printing's per-face names, by position (checked by name when the printing lists its faces)
        if index < len(values) and (index >= len(names) or names[index] == face["name"]):
            _put(out, key, values[index])
    return out


def rulings(con: duckdb.DuckDBPyConnection, oracle_id: str) -> list[dict[str, Any]]:
    """Scryfall ruling objects of one Oracle card, oldest first."""
    return [
        {
            "object": "ruling",
            "oracle_id": oid,
            "source": source or "wotc",
            "published_at": published.isoformat() if published is not None else None,
            "comment": comment,
        }
        for oid, source, published, comment in con.execute(_RULINGS_SQL, [oracle_id]).fetchall()
    ]
