"""Scryfall set objects (``"object": "set"``): Scryfall's own where the ingest was given its set list, else built
from the printings the database holds.

``/sets`` and ``/sets/{code|id}`` answer these (https://scryfall.com/docs/api/sets). An online ``ingest`` downloads
Scryfall's ``/sets`` list (and ``ingest --bulk-file`` takes a saved one): those objects are answered as Scryfall sent
them, links pointing at the server, with every field card objects never carry (icon, block, parent set, printed
size, TCGplayer group, MTGO/Arena codes). A set with printings here but not in that list is built from them:
``id`` is the ``set_id`` (or the id ``set_uri`` links to) its card objects carry,
``name``/``set_type`` the values they give, ``released_at`` the earliest printing's date, ``card_count``
the number of distinct collector numbers, ``digital``/``foil_only``/``nonfoil_only`` what every printing
says, ``scryfall_uri`` the set page the card objects link to. What card objects never carry — the set's
icon, block, parent set, printed size, TCGplayer group, MTGO/Arena codes — is absent, never guessed; a set
known only from files without set ids (the synthetic foreign printings) has no ``id``, ``uri``.

Sets are listed newest first, as Scryfall lists them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    import duckdb

_KEPT_SQL = "SELECT code, object FROM scryfall_sets"

_SETS_SQL = """
SELECT set_code,
       mode(set_id) AS set_id,
       mode(set_name) AS set_name,
       mode(set_type) AS set_type,
       min(released_at) AS released_at,
       count(DISTINCT collector_number) AS card_count,
       bool_and(coalesce(digital, false)) AS digital,
       bool_and(finishes = ['foil']) AS foil_only,
       bool_and(NOT list_contains(finishes, 'foil') AND NOT list_contains(finishes, 'etched')) AS nonfoil_only,
       mode(regexp_replace(scryfall_set_uri, '[?].*$', '')) AS scryfall_uri
FROM printings
WHERE set_code IS NOT NULL
GROUP BY set_code
"""


def set_objects(con: duckdb.DuckDBPyConnection, base_url: str | None = None) -> list[dict[str, Any]]:
    """Every set of Scryfall's list the ingest kept, and every other set with printings in the database (built),
    as Scryfall set objects, newest first; ``base_url``: links point there."""
    import duckdb

    try:
        kept = {code: _kept_object(text, base_url) for code, text in con.execute(_KEPT_SQL).fetchall()}
    except duckdb.CatalogException:
        kept = {}  # a database built before set lists were kept
    cur = con.execute(_SETS_SQL)
    columns = [d[0] for d in cur.description]
    built = [_set_object(dict(zip(columns, row)), base_url) for row in cur.fetchall()]
    found = list(kept.values()) + [item for item in built if item["code"] not in kept]
    # newest first (ISO dates sort as text; a set without a date last), then by code
    found.sort(key=lambda item: item["code"])
    found.sort(key=lambda item: item.get("released_at") or "", reverse=True)
    return found


def _kept_object(text: str, base_url: str | None) -> dict[str, Any]:
    import json

    from oracle_tools.scryfall.cardjson import point_api_links  # the same links as in card objects

    found: dict[str, Any] = json.loads(point_api_links(text.encode(), base_url))
    return found


def _set_object(row: dict[str, Any], base_url: str | None) -> dict[str, Any]:
    code = row["set_code"]
    out: dict[str, Any] = {"object": "set"}
    if row["set_id"]:
        out["id"] = row["set_id"]
    out["code"] = code
    out["name"] = row["set_name"]
    if base_url and row["set_id"]:
        out["uri"] = f"{base_url}/sets/{row['set_id']}"
    if row["scryfall_uri"]:
        out["scryfall_uri"] = row["scryfall_uri"]
    if base_url:
        out["search_uri"] = (
            f"{base_url}/cards/search?include_extras=true&include_variations=true&order=set"
            f"&q={quote('e:' + code, safe='')}&unique=prints"
        )
    if row["released_at"] is not None:
        out["released_at"] = row["released_at"].isoformat()
    if row["set_type"]:
        out["set_type"] = row["set_type"]
    out["card_count"] = row["card_count"]
    out["digital"] = bool(row["digital"])
    if row["foil_only"] is not None:
        out["foil_only"] = bool(row["foil_only"])
    if row["nonfoil_only"] is not None:
        out["nonfoil_only"] = bool(row["nonfoil_only"])
    return out


def find_set(sets: list[dict[str, Any]], code_or_id: str) -> dict[str, Any] | None:
    """The set with this code (any case) or Scryfall id, or None."""
    wanted = code_or_id.strip().lower()
    for item in sets:
        if item["code"].lower() == wanted or item.get("id") == wanted:
            return item
    return None


def find_tcgplayer_set(sets: list[dict[str, Any]], group_id: int) -> dict[str, Any] | None:
    """The set whose TCGplayer group is ``group_id`` (known only from Scryfall's set list), or None."""
    for item in sets:
        if item.get("tcgplayer_id") == group_id:
            return item
    return None
