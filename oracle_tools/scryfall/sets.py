"""Scryfall set objects (``"object": "set"``): Scryfall's own where the ingest was given its set list, else built
from the printings the database holds and the set table shipped in the package.

``/sets`` and ``/sets/{code|id}`` answer these (https://scryfall.com/docs/api/sets). An online ``ingest`` downloads
Scryfall's ``/sets`` list (and ``ingest --bulk-file`` takes a saved one): those objects are answered as Scryfall sent
them, links pointing at the server. A set with printings here but not in that list is built, each field from the
first of these that knows it:

* the set facts its card objects carry, kept per set: ``id`` (the ``set_id``, or the id ``set_uri`` links to),
  ``name``, ``set_type``, ``released_at`` (the earliest printing's date), ``card_count`` (the distinct collector
  numbers here: what the set's ``search_uri`` finds, each printing once, in English or a printed language; a set of
  Scryfall's list gets this count too), ``digital``/``foil_only``/``nonfoil_only`` (what every
  printing says);
* the set table shipped in the package (``oracle_tools/data/sets.csv``, built by ``scripts/build_set_table.py``
  from MTGJSON AllPrintings 2022 and Scryfall's own card objects): what no card object carries — ``block``,
  ``parent_set_code``, ``mtgo_code``, ``tcgplayer_id``, ``printed_size``, and ``icon_svg_uri``
  (``https://svgs.scryfall.io/sets/{symbol}.svg`` with the set's symbol code, or Scryfall's ``default`` symbol
  for a set without one) — and the facts above for a set whose printings lack them;
* a set neither knows an id for (a set after the table, from files without set ids) gets a local, stable id made
  from its code (``local_set_id``: never one of Scryfall's); ``scryfall_uri`` is the set's page by its code.

Sets are listed newest first, as Scryfall lists them. A kept object that is not a whole set object (a database
built before set objects were checked at ingest) is set aside and the set built instead.
"""

from __future__ import annotations

import functools
import re
import uuid
from collections.abc import Mapping
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
       count(DISTINCT coalesce(collector_number, id)) AS card_count,
       bool_and(digital) AS digital,
       bool_and(finishes = ['foil']) AS foil_only,
       bool_and(NOT list_contains(finishes, 'foil') AND NOT list_contains(finishes, 'etched')) AS nonfoil_only
FROM printings
WHERE set_code IS NOT NULL
GROUP BY set_code
"""
#: Scryfall's set symbols; ``default`` is the symbol Scryfall shows for a set without one of its own.
ICON_URI = "https://svgs.scryfall.io/sets/{}.svg"


def set_objects(con: duckdb.DuckDBPyConnection, base_url: str | None = None) -> list[dict[str, Any]]:
    """Every set of Scryfall's list the ingest kept, and every other set with printings in the database (built),
    as Scryfall set objects, newest first; ``base_url``: links point there."""
    kept: dict[str, dict[str, Any]] = {}
    for code, text in con.execute(_KEPT_SQL).fetchall():
        whole = _kept_object(text, base_url)
        if whole is not None:
            kept[code] = whole
    cur = con.execute(_SETS_SQL)
    columns = [d[0] for d in cur.description]
    rows = [dict(zip(columns, row)) for row in cur.fetchall()]
    built = [_set_object(row, base_url) for row in rows]
    # card_count is what the set's search_uri finds here (one per collector number, in English or a printed
    # language: search/compiler.py ONE_LANGUAGE_PER_PRINTING), also for a set of Scryfall's list, whose own count
    # names printings this database may not hold (a client pages a set's search by it)
    counts = {row["set_code"]: row["card_count"] for row in rows}
    for code, item in kept.items():
        item["card_count"] = counts.get(code, 0)
    found = list(kept.values()) + [item for item in built if item["code"] not in kept]
    # newest first (ISO dates sort as text; a set without a date last), then by code
    found.sort(key=lambda item: item["code"])
    found.sort(key=lambda item: item.get("released_at") or "", reverse=True)
    return found


def _kept_object(text: str, base_url: str | None) -> dict[str, Any] | None:
    import json

    from oracle_tools.scryfall.links import point_api_links  # the same links as in card objects

    try:
        found = json.loads(point_api_links(text.encode(), base_url))
    except (ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) and set_object_problem(found) is None else None


def _set_object(row: dict[str, Any], base_url: str | None) -> dict[str, Any]:
    code = row["set_code"]
    table = shipped_set(code) or {}
    set_id = row["set_id"] or table.get("id") or local_set_id(code)
    out: dict[str, Any] = {"object": "set", "id": set_id, "code": code}
    if table.get("mtgo_code"):
        out["mtgo_code"] = table["mtgo_code"]
    if table.get("tcgplayer_id"):
        out["tcgplayer_id"] = int(table["tcgplayer_id"])
    out["name"] = row["set_name"] or table.get("name") or code.upper()
    if base_url:
        out["uri"] = f"{base_url}/sets/{set_id}"
    out["scryfall_uri"] = f"https://scryfall.com/sets/{quote(code)}"
    if base_url:
        out["search_uri"] = (
            f"{base_url}/cards/search?include_extras=true&include_variations=true&order=set"
            f"&q={quote('e:' + code, safe='')}&unique=prints"
        )
    released = row["released_at"].isoformat() if row["released_at"] is not None else table.get("released_at")
    if released:
        out["released_at"] = released
    set_type = row["set_type"] or table.get("set_type")
    if set_type:
        out["set_type"] = set_type
    for key in ("block", "parent_set_code"):
        if table.get(key):
            out[key] = table[key]
    out["card_count"] = row["card_count"]
    if table.get("printed_size"):
        out["printed_size"] = int(table["printed_size"])
    out["digital"] = _flag(row["digital"], table.get("digital"))
    out["foil_only"] = _flag(row["foil_only"], table.get("foil_only"))
    out["nonfoil_only"] = _flag(row["nonfoil_only"], table.get("nonfoil_only"))
    out["icon_svg_uri"] = ICON_URI.format(quote(table.get("icon") or "default"))
    return out


def _flag(from_printings: bool | None, from_table: str | None) -> bool:
    """What every printing says, else the set table's value, else false (Scryfall's value for most sets)."""
    if from_printings is not None:
        return bool(from_printings)
    return from_table == "true"


#: A set object's fields and their JSON types (https://scryfall.com/docs/api/sets): the required ones, then the
#: optional ones (absent, or null where Scryfall marks them nullable).
_SET_REQUIRED: dict[str, type | tuple[type, ...]] = {
    "code": str, "name": str, "card_count": int, "digital": bool, "foil_only": bool,
}  # fmt: skip
_SET_OPTIONAL: dict[str, type | tuple[type, ...]] = {
    "id": str, "mtgo_code": str, "arena_code": str, "tcgplayer_id": int, "set_type": str, "released_at": str,
    "block_code": str, "block": str, "parent_set_code": str, "printed_size": int, "nonfoil_only": bool,
    "icon_svg_uri": str, "search_uri": str, "scryfall_uri": str, "uri": str,
}  # fmt: skip


def set_object_problem(item: Any) -> str | None:
    """What makes ``item`` not a Scryfall set object (one short phrase), or None when it is one."""
    if not isinstance(item, dict):
        return f"a set object is a JSON object, not {type(item).__name__}"
    if item.get("object") != "set":
        return 'its "object" is not "set"'
    for key, kind in _SET_REQUIRED.items():
        value = item.get(key)
        if value is None:
            return f'it has no "{key}", which every set object has'
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f'its "{key}" is {json_type(value)}, not {json_type(kind)}'
    for key, kind in _SET_OPTIONAL.items():
        value = item.get(key)
        if value is not None and (not isinstance(value, kind) or (kind is int and isinstance(value, bool))):
            return f'its "{key}" is {json_type(value)}, not {json_type(kind)}'
    if not item["code"].strip() or len(item["code"]) > 20:
        return f'its "code" {item["code"][:30]!r} is not a set code'
    released = item.get("released_at")
    if released is not None and not _ISO_DATE.fullmatch(released):
        return f'its "released_at" {released[:30]!r} is not a date (YYYY-MM-DD)'
    if item["card_count"] < 0:
        return 'its "card_count" is negative'
    return None


#: How deep a set object may nest (Scryfall's are flat: 1); deeper is no set object, refused before it is parsed.
MAX_SET_DEPTH = 20


def parse_set_object(text: str) -> tuple[dict[str, Any], None] | tuple[None, str]:
    """A set object's JSON text read and checked: ``(object, None)``, or ``(None, what is wrong)``."""
    import json

    from oracle_tools.store.object_limits import json_depth

    if json_depth(text, stop_after=MAX_SET_DEPTH) > MAX_SET_DEPTH:  # before json.loads, which recurses
        return None, f"it nests more than {MAX_SET_DEPTH} levels deep"
    try:
        item = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return None, f"it is not valid JSON ({str(exc)[:100]})"
    problem = set_object_problem(item)
    return (None, problem) if problem is not None else (item, None)


def json_type(value: Any) -> str:
    """The JSON name of a value's type (or of a Python type)."""
    kind = value if isinstance(value, type) else type(value)
    names = {str: "a string", int: "a number", float: "a number", bool: "true/false", list: "a list",
             dict: "an object", type(None): "null"}  # fmt: skip
    return names.get(kind, kind.__name__)


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@functools.cache
@functools.cache
def shipped_sets() -> Mapping[str, Mapping[str, str]]:
    """The set table shipped in the package (oracle_tools/data/sets.csv, built by scripts/build_set_table.py from
    MTGJSON AllPrintings 2022 and Scryfall's card objects): per set code, the facts no card object carries (read
    once: searches ask it on every run)."""
    import csv

    from oracle_tools.store.resources import package_data

    path = package_data() / "sets.csv"
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8", newline="") as f:
        return {row["code"]: row for row in csv.DictReader(f)}


@functools.cache
def shipped_codes_of_type(set_type: str) -> tuple[str, ...]:
    """The codes of the shipped table's sets of ``set_type`` (any case), sorted: a printing whose object has no
    set_type (the 2019 dump's) has its set's (st:, in:, is:masterpiece)."""
    wanted = set_type.lower()
    return tuple(sorted(code for code, row in shipped_sets().items() if (row.get("set_type") or "").lower() == wanted))


def shipped_set(code: str) -> Mapping[str, str] | None:
    """The shipped table's row of set ``code`` (any case), or None."""
    return shipped_sets().get(code.lower()) if code else None


def local_set_id(code: str) -> str:
    """The id of a set Scryfall's id is not known for here (no card object or table gives one): a UUID made from
    the code, stable across databases and servers, and never one of Scryfall's (uuid5 of ``oracle-tools-set:``)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"oracle-tools-set:{code.lower()}"))


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
