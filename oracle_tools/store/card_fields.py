"""The one table of field rules: what type and range each card-object field the program reads must have, checked at
ingest, and what the ingest does with a card object that breaks a rule.

A card object is read twice after an ingest: its typed columns (``cards``, ``faces``, ``printings`` …, which search
and the rules read) and the object itself, kept whole and served back (``store/scryfall_objects.py``), which the
HTTP API, the web page, ``format=text`` and the MCP tools read in Python. A value of the wrong type or out of range
would load and then fail there (a string ``image_uris`` made every page showing the card answer 500), so each field
they read is checked here, once, while the ingest stages the file:

* ``refuse``: the file is refused in one line naming the file, the card, its place in the file, the field, its
  value and what it should be (an identity or an Oracle fact: a card cannot be loaded without it, and leaving it
  out would lose or merge cards). Nothing is replaced.
* ``drop``: the field is left out of every card object that breaks the rule (the typed column is null, the kept
  object loses the key), and the ingest warns once per field with the number of cards (a display field: the card
  is whole without it).

How each rule is checked (``by``): ``reader`` — DuckDB's JSON reader stages the field with a type (a list, a
number, an object) and stops at a value it cannot take; the ingest then finds the first card object breaking a
rule of this table (:func:`first_broken`: the file's objects decoded in Python, only after that error) to say
which. ``stage`` — an SQL test of the staged value, in the statement that stages the file (:func:`staged_select`:
a dropped field is staged as null there; :func:`problems_sql` reads what it found). ``image_uris``, which the typed
tables do not keep, is read as JSON for it (:data:`RAW_TYPES`). A text field DuckDB's reader writes a number or an
object into as its JSON text, so the stage only suspects those (:data:`SUSPECTED`, cheap tests no real value meets)
and the file's objects decide. The stage's tests cost about 2 % of an ingest's CPU (docs/performance.md).

README.md ("Ingest from Scryfall") shows :data:`RULES` as :func:`markdown_table` writes it (tests/test_ingest_fields.py
checks that it does).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from oracle_tools.errors import IngestError

REFUSE = "refuse"
DROP = "drop"
#: Scryfall's ids (``id``, ``oracle_id``) are UUIDs (random ones; the ids oracle-tools makes up are UUIDs too).
UUID_PATTERN = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_UUID = re.compile(UUID_PATTERN)
#: The release dates a card may have: Magic's first set (Alpha) came out in August 1993; a printing announced
#: for after 2100 is none. Python's dates (what every reader of the date is given) end at year 9999.
FIRST_YEAR, LAST_YEAR = 1993, 2100
#: Scryfall's numeric ids (``mtgo_id``, ``multiverse_ids`` …) are staged as 32-bit integers.
INT32 = (-(1 << 31), (1 << 31) - 1)


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _is_uuid(value: Any) -> bool:
    return isinstance(value, str) and _UUID.fullmatch(value) is not None


def _is_int32(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and INT32[0] <= value <= INT32[1]


def _is_number(value: Any) -> bool:
    # JSON's NaN and Infinity are read as numbers by DuckDB's reader and Python's json: no mana value is one
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


def _list_of(item: Callable[[Any], bool]) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        return isinstance(value, list) and all(v is None or item(v) for v in value)

    return check


#: Scryfall's legality statuses: what a deck check and f:, banned:, restricted: read.
STATUSES = ("legal", "not_legal", "restricted", "banned")


def _is_legalities(value: Any) -> bool:
    return isinstance(value, dict) and all(status in STATUSES for status in value.values())


def _is_parts(value: Any) -> bool:
    """``all_parts``: related-card objects, each naming its card (the pages link it by name)."""
    return isinstance(value, list) and all(isinstance(p, dict) and isinstance(p.get("name"), str) for p in value)


def _is_date(value: Any) -> bool:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return False
    try:
        return FIRST_YEAR <= dt.date.fromisoformat(value).year <= LAST_YEAR
    except ValueError:
        return False


def _is_date_text(value: Any) -> bool:
    """What DuckDB's reader takes as a date (any year): a ``released_at`` that is not refuses the file."""
    found = re.fullmatch(r"(\d{4,})-(\d{2})-(\d{2})", value) if isinstance(value, str) else None
    if found is None:
        return False
    try:
        dt.date(2000, int(found[2]), int(found[3]))  # a leap year: any month's days
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class FieldRule:
    """One field of a card object (``card_faces[].x``: the field ``x`` of each face; ``all_parts[].x`` likewise)."""

    field: str
    #: what the value must be, in words ("a UUID string"); said in the refusal and the warning
    expect: str
    #: REFUSE or DROP
    action: str
    #: "reader" (DuckDB's typed read stops at it) or "stage" (an SQL test of the staged value: :data:`_STAGE_SQL`)
    by: str
    #: what reads the field after the ingest (for the docs)
    reads: str
    #: whether a value (not null, not absent) is right: the Python form of the rule, for :func:`first_broken`
    ok: Callable[[Any], bool]
    #: for a dropped field DuckDB's reader types: what the reader takes; a value it does not take refuses the file
    readable: Callable[[Any], bool] | None = None

    @property
    def in_faces(self) -> bool:
        return self.field.startswith("card_faces[].")

    @property
    def key(self) -> str:
        """The key in its object (the card's, or each face's)."""
        return self.field.rsplit(".", 1)[-1] if self.in_faces else self.field


_LIST_OF_STRINGS = "a list of strings"
_INT = f"an integer from {INT32[0]:,} to {INT32[1]:,}"
_TRUE_FALSE = "true or false"


def _rules() -> tuple[FieldRule, ...]:
    strings = _list_of(_is_string)
    rules = [
        # identity: a card is these; a wrong one loses cards, or merges them into one
        FieldRule("id", "a UUID string", REFUSE, "stage", "every lookup of a printing, /cards/{id}", _is_uuid),
        FieldRule("oracle_id", "a UUID string", REFUSE, "stage", "the cards table: one card per Oracle id", _is_uuid),
        FieldRule(
            "card_faces[].oracle_id", "a UUID string", REFUSE, "stage", "a reversible card's Oracle id", _is_uuid
        ),
        FieldRule("name", "a string", REFUSE, "stage", "names (CR 201), every page and answer", _is_string),
        FieldRule("set", "a string", REFUSE, "stage", "printings, /sets, e: searches", _is_string),
        FieldRule("mana_cost", "a string", REFUSE, "stage", "mana searches, the pages' mana symbols", _is_string),
        FieldRule("type_line", "a string", REFUSE, "stage", "type searches, tokens, format=text", _is_string),
        FieldRule("oracle_text", "a string", REFUSE, "stage", "Oracle text searches, keywords, the pages", _is_string),
        # display fields: the card is whole without them
        FieldRule(
            "released_at",
            f"an ISO date (YYYY-MM-DD) from {FIRST_YEAR} to {LAST_YEAR}",
            DROP,
            "stage",
            "/sets, set pages, date searches, the card pages",
            _is_date,
            readable=_is_date_text,
        ),
        FieldRule(
            "image_uris", "an object (image URLs by size)", DROP, "stage", "the pages' images, format=image", _is_object
        ),
        FieldRule(
            "card_faces[].image_uris",
            "an object (image URLs by size)",
            DROP,
            "stage",
            "the pages' face images, format=image&face=back",
            _is_object,
        ),
        # typed columns: DuckDB's reader takes nothing else
        FieldRule("cmc", "a number", REFUSE, "stage", "mv: searches, deck curves", _is_number),
        FieldRule("card_faces", "a list of objects", REFUSE, "reader", "faces (CR 709-720)", _list_of(_is_object)),
        FieldRule("card_faces[].cmc", "a number", REFUSE, "stage", "a face's mana value", _is_number),
        FieldRule("card_faces[].colors", _LIST_OF_STRINGS, REFUSE, "reader", "a face's colours", strings),
        FieldRule("card_faces[].color_indicator", _LIST_OF_STRINGS, REFUSE, "reader", "a face's colours", strings),
        FieldRule(
            "all_parts",
            "a list of related-card objects, each with its name",
            REFUSE,
            "stage",
            "meld parts, tokens, related cards, every answer holding the card",
            _is_parts,
        ),
        FieldRule("prices", "an object", REFUSE, "reader", "the card page's prices, usd: searches", _is_object),
        FieldRule(
            "legalities",
            f"an object of each format's status ({', '.join(STATUSES[:-1])} or {STATUSES[-1]})",
            REFUSE,
            "stage",
            "deck checks, f: searches",
            _is_legalities,
        ),
        FieldRule("preview", "an object", REFUSE, "reader", "is:scryfallpreview searches", _is_object),
    ]
    for key, reads in (
        ("colors", "c: searches, the pages"),
        ("color_identity", "id: searches, Commander deck checks (CR 903.4)"),
        ("color_indicator", "colour searches (CR 204)"),
        ("keywords", "keyword searches"),
        ("produced_mana", "produces: searches"),
        ("games", "game: searches, deck checks"),
        ("finishes", "the objects (foil, nonfoil), the printings, is:foil searches"),
        ("frame_effects", "frame: searches"),
        ("promo_types", "is:prerelease and the other promo-type searches"),
    ):
        rules.append(FieldRule(key, _LIST_OF_STRINGS, REFUSE, "reader", reads, strings))
    rules.append(
        FieldRule(
            "multiverse_ids",
            "a list of integers",
            REFUSE,
            "reader",
            "/cards/multiverse/{id}, Gatherer links",
            _list_of(_is_int32),
        )
    )
    rules.append(
        FieldRule("attraction_lights", "a list of integers", REFUSE, "reader", "the printings", _list_of(_is_int32))
    )
    for key in ("mtgo_id", "mtgo_foil_id", "arena_id", "tcgplayer_id", "cardmarket_id", "tcgplayer_etched_id"):
        rules.append(FieldRule(key, _INT, REFUSE, "reader", "/cards/mtgo/{id} and the like, the printings", _is_int32))
    rules.append(FieldRule("edhrec_rank", _INT, REFUSE, "reader", "order=edhrec, edhrec: searches", _is_int32))
    rules.append(FieldRule("penny_rank", _INT, REFUSE, "reader", "order=penny searches", _is_int32))
    for key in ("reserved", "digital", "promo", "foil", "nonfoil", "game_changer"):
        rules.append(FieldRule(key, _TRUE_FALSE, REFUSE, "reader", "the printings, the objects", _is_bool))
    for key, reads in (
        ("full_art", "is:fullart searches"),
        ("textless", "is:textless searches"),
        ("booster", "is:booster searches"),
        ("story_spotlight", "is:spotlight searches"),
        ("highres_image", "is:hires searches"),
    ):
        rules.append(FieldRule(key, _TRUE_FALSE, REFUSE, "reader", reads, _is_bool))
    return tuple(rules)


#: Every rule, in the order a card object is checked (:func:`first_broken`).
RULES: tuple[FieldRule, ...] = _rules()
BY_FIELD = {rule.field: rule for rule in RULES}

#: The fields staged with another type than their column's, so that the stage's SQL can test them: ``image_uris``
#: as JSON (the typed tables do not keep it; a face's is read as JSON inside ``card_faces``, ingest.py's face struct).
RAW_TYPES: dict[str, str] = {"image_uris": "JSON"}


def _suspect_string(column: str) -> str:
    """True for a staged text (DuckDB's reader writes a number, ``true`` or an object as its JSON text) that may
    have been no string in the file: a number, true or false, or the JSON text of an object or list. Cheap tests of
    the staged text (its first character first), true for no real card's value; the file's objects then decide
    (:func:`first_broken`)."""
    # compared as strings (bytes): [-./0-9] starts a number (parsed only then); [ and what a JSON value starts with a
    # list (a loyalty ability's "[+1]: …" or "[0]: …" is none); {" or {} an object
    return (
        f"(CASE WHEN {column} >= '-' AND {column} < ':' THEN try_cast({column} AS DOUBLE) IS NOT NULL "
        f"ELSE ({column} >= '[' AND {column} < '\\' AND ({column}[2] IN ('\"', '[', '{{', ']', 't', 'f', 'n') "
        f"OR ({column}[-1] = ']' AND {column}[2] >= '-' AND {column}[2] < ':'))) "
        f"OR ({column} >= '{{\"' AND {column} < '{{#') "
        f"OR {column} IN ('{{}}', 'true', 'false') END)"
    )


def _not_uuid(column: str) -> str:
    return f"({column} IS NOT NULL AND (length({column}) <> 36 OR try_cast({column} AS UUID) IS NULL))"


def _in_years(column: str) -> str:
    return f"year({column}) BETWEEN {FIRST_YEAR} AND {LAST_YEAR}"


#: Each ``stage`` rule's SQL: true for a staged row (raw types: :data:`RAW_TYPES`) whose value breaks it (for the
#: strings: may break it, :func:`_suspect_string`). An object's JSON text, as DuckDB's reader writes it, starts
#: with ``{``.
_STAGE_SQL: dict[str, str] = {
    "id": _not_uuid("id"),
    "oracle_id": _not_uuid("oracle_id"),
    "card_faces[].oracle_id": f"coalesce(list_bool_or(list_transform(card_faces, lambda f: {_not_uuid('f.oracle_id')})), false)",
    "name": _suspect_string("name"),
    "set": _suspect_string('"set"'),
    "mana_cost": _suspect_string("mana_cost"),
    "type_line": _suspect_string("type_line"),
    "oracle_text": _suspect_string("oracle_text"),
    "released_at": f"(released_at IS NOT NULL AND NOT {_in_years('released_at')})",
    # (the reader refuses a value of another type: these are NaN and the infinities)
    "cmc": "coalesce(NOT isfinite(cmc), false)",
    "card_faces[].cmc": "coalesce(list_bool_or(list_transform(card_faces, lambda f: NOT isfinite(f.cmc))), false)",
    # a part that is null or has no name; one whose name may be no string in the file (the objects decide)
    "all_parts": (
        "coalesce(list_bool_or(list_transform(all_parts, lambda p: p IS NULL OR p.name IS NULL OR "
        f"{_suspect_string('p.name')})), false)"
    ),
    "legalities": (
        "coalesce(list_bool_or(list_transform(map_values(legalities), lambda s: "
        f"coalesce(s NOT IN ({', '.join(repr(v) for v in STATUSES)}), true))), false)"
    ),
    "image_uris": "(image_uris IS NOT NULL AND left(image_uris, 1) <> '{')",
    "card_faces[].image_uris": (
        "(card_faces IS NOT NULL AND coalesce(list_bool_or(list_transform(card_faces, lambda f: "
        "f.image_uris IS NOT NULL AND left(f.image_uris, 1) <> '{')), false))"
    ),
}
#: The rules the stage's SQL tests, in the order of their bits in ``field_problems``.
STAGE_RULES: tuple[FieldRule, ...] = tuple(r for r in RULES if r.by == "stage")
#: The stage rules whose SQL only suspects a value (the file's objects decide, :func:`first_broken`).
SUSPECTED = frozenset({"name", "set", "mana_cost", "type_line", "oracle_text", "all_parts"})


def staged_select() -> str:
    """The select list that stages a file's rows read with :data:`RAW_TYPES`: each column as its staged type (a
    broken dropped field null), and ``field_problems``, a bit for each rule of :data:`STAGE_RULES` the row breaks (0
    when none: :func:`problems_sql` reads them). Built from the constants above, never from user text."""
    released = f"CASE WHEN {_in_years('released_at')} THEN released_at END"
    faces = (
        f"CASE WHEN {_STAGE_SQL['card_faces[].image_uris']} THEN list_transform(card_faces, lambda f: CASE WHEN "
        "left(f.image_uris, 1) <> '{' THEN struct_update(f, image_uris := NULL::JSON) ELSE f END) ELSE card_faces END"
    )
    bits = " + ".join(f"CASE WHEN {_STAGE_SQL[r.field]} THEN {1 << i} ELSE 0 END" for i, r in enumerate(STAGE_RULES))
    return (
        f"* EXCLUDE (image_uris) REPLACE ({released} AS released_at, {faces} AS card_faces), {bits} AS field_problems"
    )


def problems_sql(table: str) -> str:
    """A query of the stage rules the rows of ``table`` (its one parameter: the file's order) break: each rule's
    field, how many rows break it and the first name (or id) among them."""
    fields = "[" + ", ".join(f"'{r.field}'" for r in STAGE_RULES) + "]"
    return (
        f"SELECT {fields}[bit + 1], count(*), min(coalesce(name, id)) FROM {table}, range({len(STAGE_RULES)}) b(bit) "
        "WHERE file_order = ? AND field_problems <> 0 AND (field_problems >> bit) & 1 = 1 GROUP BY bit"
    )


def rows_breaking_sql(table: str, fields: list[str]) -> str:
    """A query of the ids of the rows of ``table`` (its one parameter: the file's order) that break one of the stage
    rules of ``fields``."""
    mask = sum(1 << i for i, r in enumerate(STAGE_RULES) if r.field in fields)
    return f"SELECT id FROM {table} WHERE file_order = ? AND field_problems & {mask} <> 0"


def without_dropped(card: dict[str, Any]) -> dict[str, Any]:
    """``card`` (a decoded card object) without the fields that break a ``drop`` rule (a face's, from that face)."""
    for rule in RULES:
        if rule.action != DROP:
            continue
        if rule.in_faces:
            for face in card.get("card_faces") or ():
                if isinstance(face, dict) and face.get(rule.key) is not None and not rule.ok(face[rule.key]):
                    del face[rule.key]
        elif card.get(rule.key) is not None and not rule.ok(card[rule.key]):
            del card[rule.key]
    return card


def _values(card: dict[str, Any], rule: FieldRule) -> Iterator[Any]:
    """The values of ``rule``'s field in ``card`` (one per face for a face field)."""
    if rule.in_faces:
        faces = card.get("card_faces")
        if isinstance(faces, list):
            for face in faces:
                if isinstance(face, dict) and face.get(rule.key) is not None:
                    yield face[rule.key]
    elif card.get(rule.field) is not None:
        yield card[rule.field]


def broken_rules(card: Any, actions: tuple[str, ...] = (REFUSE, DROP)) -> Iterator[tuple[FieldRule, Any]]:
    """Each rule of ``actions`` that ``card`` (a decoded card object) breaks, with the value that breaks it."""
    if not isinstance(card, dict):
        return
    for rule in RULES:
        # a rule of another action still refuses a value DuckDB's reader does not take (``readable``)
        check = rule.ok if rule.action in actions else rule.readable
        if check is None:
            continue
        for value in _values(card, rule):
            if not check(value):
                yield rule, value
                break


def shown(value: Any) -> str:
    """A value as the refusal quotes it: JSON, at most 60 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:59] + "…"


def card_label(card: Any, place: int) -> str:
    """A card object as a line names it: its name (else its id) and its place in the file."""
    name = card.get("name") if isinstance(card, dict) else None
    if isinstance(name, str) and name.strip():
        return f"card {shown(name)} (object {place:,})"
    card_id = card.get("id") if isinstance(card, dict) else None
    if card_id is not None:
        return f"card with id {shown(card_id)} (object {place:,})"
    return f"object {place:,}"


def refusal(path: object, card: Any, place: int, rule: FieldRule, value: Any) -> IngestError:
    """The one line refusing the file ``path`` for ``card`` (at ``place``, from 1) breaking ``rule`` with ``value``."""
    return IngestError(
        f'{path}: {card_label(card, place)}: field "{rule.field}" is {shown(value)}, not {rule.expect}; a Scryfall '
        "card object never has that, so the file is damaged or not Scryfall's: download it again, or correct that "
        "card. Nothing was replaced."
    )


def drop_warning(path: object, rule: FieldRule, count: int, first_name: str | None) -> str:
    """The warning for ``count`` cards of ``path`` whose ``rule`` field was dropped."""
    cards = "card" if count == 1 else "cards"
    first = f" (among them {first_name})" if first_name else ""
    return f"{path}: dropped {rule.field} from {count:,} {cards}{first}: not {rule.expect}; those cards load without it"


def first_broken(
    path: str, json_format: str, compression: str, actions: tuple[str, ...] = (REFUSE,)
) -> tuple[int, dict[str, Any], FieldRule, Any] | None:
    """The first card object of a file (in file order) that breaks a rule of ``actions``: its place (from 1), the
    object, the rule and the value; None when every object keeps them. Reads the whole file once (DuckDB's reader, the
    objects decoded in Python): run only when the staging of the file failed, to say which card and field."""
    import duckdb

    from oracle_tools.store.object_limits import checked_compression

    if json_format not in ("array", "newline_delimited"):  # what ingest.sniff says; never user text
        raise ValueError(f"not a JSON format of a bulk file: {json_format!r}")
    con = duckdb.connect(":memory:")
    try:
        cursor = con.execute(
            f"SELECT json FROM read_json_objects(?, format = '{json_format}', maximum_object_size = {1 << 20}, "
            f"compression = '{checked_compression(compression)}')",
            [path],
        )
        place = 0
        while rows := cursor.fetchmany(2048):
            for (text,) in rows:
                place += 1
                try:
                    card = json.loads(text)
                except (ValueError, RecursionError):
                    continue
                for rule, value in broken_rules(card, actions):
                    return place, card, rule, value
    except duckdb.Error:
        return None
    finally:
        con.close()
    return None


def markdown_table() -> str:
    """The rules as the Markdown table docs/architecture.md shows (generated by scripts/doc_examples.py)."""
    lines = ["| Field | Must be | Else | Checked by | Read by |", "| --- | --- | --- | --- | --- |"]
    for rule in RULES:
        action = "refuse the file" if rule.action == REFUSE else "drop the field (warning)"
        if rule.readable is not None:
            action += "; no date at all: refuse the file"
        by = "DuckDB's typed read" if rule.by == "reader" else "SQL on the stage"
        lines.append(f"| `{rule.field}` | {rule.expect} | {action} | {by} | {rule.reads} |")
    return "\n".join(lines)
