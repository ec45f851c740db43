"""How large and how deep a Scryfall card object may be: checked at ingest, as the objects are compressed to keep
(a file with an object past a limit is refused, and nothing is replaced).

A card object is kept whole and served back as it came (``store/scryfall_objects.py``), so one object of
megabytes (a compression bomb: 60 MB of ``flavor_text`` gzips to a few hundred kB) would make every answer,
cache and bulk download that holds it megabytes too, and one nested 100,000 deep cannot be read back at all
(Python's JSON reader recurses). Each limit is the largest value in the real data (``../shared/realdata``:
the 2019 default-cards dump, the 2024 Scryfall search results, the foreign printings, the 2025 alternate
names; ``bench/measure_card_fields.py`` measures them) times a margin for what newer cards may hold:

* the whole object: :data:`OBJECT_BYTES` (1 MB; the largest real one is 6,993 bytes — a token's ``all_parts``
  lists every card that makes it, so the margin is wide). This bounds every field, also those the typed
  tables do not read (image links …) and the flavor text, which only ``ft:`` reads;
* nesting: :data:`MAX_DEPTH` levels (real objects nest 4: card, ``card_faces``, a face, its ``image_uris``);
* each text field the typed tables read: :data:`FIELD_CHARS`, :data:`LONGEST` × :data:`MARGIN`, at least
  :data:`MIN_FIELD_CHARS` characters.

A file with an object past a limit is refused with one line naming the file, the object and the limit.
"""

from __future__ import annotations

from typing import Any

from oracle_tools.errors import IngestError

#: The longest value of each text field in the real data (characters; ``face.`` a face of ``card_faces``,
#: ``part.`` an entry of ``all_parts``). Oracle text: the longest in Scryfall's oracle-cards file is about
#: 1,300 characters, longer than any in these files.
LONGEST: dict[str, int] = {
    "name": 141,
    "printed_name": 44,
    "flavor_name": 30,
    "mana_cost": 46,
    "type_line": 79,
    "printed_type_line": 55,
    "oracle_text": 1300,
    "printed_text": 693,
    "artist": 50,
    "set_name": 44,
    "watermark": 21,
    "face.name": 34,
    "face.printed_name": 40,
    "face.mana_cost": 20,
    "face.type_line": 39,
    "face.printed_type_line": 45,
    "face.oracle_text": 505,
    "face.printed_text": 491,
    "part.name": 57,
    "part.type_line": 71,
    "flavor_text": 448,  # printings keep it (ft:), bounded by OBJECT_BYTES as the whole object is
}
MARGIN = 20
MIN_FIELD_CHARS = 1000
#: The most characters each text field the typed tables read may hold (``flavor_text``, which only ``ft:`` searches,
#: has the object's limit).
FIELD_CHARS: dict[str, int] = {
    field: max(MIN_FIELD_CHARS, longest * MARGIN) for field, longest in LONGEST.items() if field != "flavor_text"
}
#: The largest card object, in bytes of its JSON text (the largest real one: 6,993).
OBJECT_BYTES = 1 << 20
#: The deepest nesting of objects and arrays in a card object (real ones: 4).
MAX_DEPTH = 32
#: The most bytes a bulk file given as a stream (a pipe, ``<(zcat …)``, ``-`` for standard input) is copied to
#: disk before it is refused: a file on disk has its size already, a stream that never ends (``<(cat /dev/zero)``
#: … whose head is JSON) would fill the disk. Scryfall's largest bulk file, all_cards, is about 2.3 GB of JSON
#: (2024); 32 GB leaves it room to grow many times over. Each object of the copy is then checked as a file's are.
STREAM_BYTES = 32 << 30


def _field_sql(field: str) -> str:
    """The length of ``field`` in a row of the staged cards (the longest of the faces' or parts' values)."""
    if field.startswith("face."):
        return f"list_max(list_transform(card_faces, lambda f: length(f.{field[5:]})))"
    if field.startswith("part."):
        return f"list_max(list_transform(all_parts, lambda p: length(p.{field[5:]})))"
    return f'length("{field}")'


def first_oversized_field_sql(table: str) -> str:
    """A query of the first object of ``table`` (staged card rows; its one parameter: the file's order) with a
    text field past :data:`FIELD_CHARS` or an empty name: its id, the field and its length. Built only from the
    constant field names above, never from user text."""
    whens = " ".join(
        f"WHEN {_field_sql(field)} > {limit} THEN ['{field}', {_field_sql(field)}::VARCHAR]"
        for field, limit in FIELD_CHARS.items()
    )
    blank = r"regexp_full_match(coalesce(name, ''), '[\s\p{Z}\p{Cc}\p{Cf}]*')"
    # CR 201.2: each face of a multi-face card has its own name too; a face without one ("card_faces": [{}])
    # would otherwise stop the build on the faces table's NOT NULL, blaming the database.
    blank_face = (
        r"coalesce(list_bool_or(list_transform(card_faces, lambda f: "
        r"regexp_full_match(coalesce(f.name, ''), '[\s\p{Z}\p{Cc}\p{Cf}]*'))), false)"
    )
    return (
        f"SELECT id, problem FROM (SELECT id, CASE WHEN {blank} THEN ['name', NULL] "
        f"WHEN {blank_face} THEN ['face.name', NULL] {whens} END AS problem "
        f"FROM {table} WHERE file_order = ?) WHERE problem IS NOT NULL LIMIT 1"
    )


def field_error(path: object, card_id: str, field: str, chars: str | None) -> IngestError:
    """The one line for the object ``card_id`` of the file ``path`` whose ``field`` is too long (or empty)."""
    if chars is None and field == "face.name":
        return IngestError(
            f"{path}: the object with id {card_id} has a face (in card_faces) without a name, which no card has "
            "(CR 201.2: every face has its own name); the file is damaged or not Scryfall's. Nothing was replaced."
        )
    if chars is None:
        return IngestError(
            f"{path}: the object with id {card_id} has an empty name (or only spaces), which no card has; the "
            "file is damaged or not Scryfall's. Nothing was replaced."
        )
    return IngestError(
        f"{path}: the object with id {card_id} has a {field} of {int(chars):,} characters, which no card has (at "
        f"most {FIELD_CHARS[field]:,}); the file is damaged or not Scryfall's. Nothing was replaced."
    )


def may_be_past_limits_sql(column: str) -> str:
    """SQL that is true for a JSON text in ``column`` that may be past the limits: larger than :data:`OBJECT_BYTES`,
    or with more opening brackets than :data:`MAX_DEPTH` (brackets inside strings count too, so only those few texts
    are measured exactly, by :func:`past_limits`). DuckDB counts them beside its read of the file, on its own
    threads: the ingest's keep (``store/scryfall_objects.py``) judges in Python only the texts this flags, so the
    compressing function holds Python's lock briefly while the layers read Oracle text in Python."""
    brackets = f"strlen({column}) - strlen(replace(replace({column}, '{{', ''), '[', ''))"
    return f"(strlen({column}) > {OBJECT_BYTES} OR {brackets} > {MAX_DEPTH})"


def past_limits(text: str) -> bool:
    """Whether the JSON ``text`` is larger than :data:`OBJECT_BYTES` or nested deeper than :data:`MAX_DEPTH`."""
    return len(text.encode()) > OBJECT_BYTES or json_depth(text, stop_after=MAX_DEPTH) > MAX_DEPTH


def checked_compression(compression: str) -> str:
    """``compression`` when it is one DuckDB's JSON reader takes (put into SQL: never user text), else ValueError."""
    if compression not in ("none", "gzip", "zstd", "auto_detect"):
        raise ValueError(f"not a compression DuckDB reads: {compression!r}")
    return compression


def check_objects(path: str, json_format: str, *, max_object_bytes: int, compression: str = "auto_detect") -> None:
    """Refuse the card file at ``path`` when an object in it is larger than :data:`OBJECT_BYTES` or nested deeper
    than :data:`MAX_DEPTH`: one :class:`IngestError` line naming the file, the first such object (its place and
    id) and the limit. One pass of DuckDB's JSON reader over the file (about 0.8 s of CPU for the 127 MB 2019 dump):
    the ingest runs it only for a file it found an object past a limit in, while keeping its objects; only an object
    :func:`may_be_past_limits_sql` flags (a few real ones) is measured exactly, here."""
    import duckdb

    if json_format not in ("array", "newline_delimited"):  # what ingest.sniff says; never user text
        raise ValueError(f"not a JSON format of a bulk file: {json_format!r}")
    con = duckdb.connect(":memory:")
    try:
        suspects = con.execute(
            f"""SELECT place, json_extract_string(json, '$.id'), strlen(json),
                       CASE WHEN strlen(json) <= {OBJECT_BYTES} THEN json END
                FROM (SELECT row_number() OVER () AS place, json
                      FROM read_json_objects(?, format = '{json_format}', maximum_object_size = {max_object_bytes},
                                             compression = '{checked_compression(compression)}'))
                WHERE {may_be_past_limits_sql("json")}""",
            [path],
        ).fetchall()
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise IngestError(f"{path}: cannot be read as Scryfall card objects: {first}. Nothing was replaced.") from None
    finally:
        con.close()
    for place, card_id, size, text in suspects:
        which = f"object {place:,}" + (f" (id {card_id})" if card_id else "")
        if size > OBJECT_BYTES:
            raise IngestError(
                f"{path}: {which} is {size:,} bytes of JSON, which no card object is (at most {OBJECT_BYTES:,}); "
                "the file is damaged or not Scryfall's. Nothing was replaced."
            )
        if json_depth(text, stop_after=MAX_DEPTH) > MAX_DEPTH:
            raise IngestError(
                f"{path}: {which} is nested more than {MAX_DEPTH} levels deep, which no card object is (real ones "
                "nest 4); the file is damaged or not Scryfall's. Nothing was replaced."
            )


def json_depth(text: Any, *, stop_after: int) -> int:
    """How deep the objects and arrays of the JSON ``text`` nest, counted without recursion (strings skipped);
    counting stops past ``stop_after``."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop_after:
                    return deepest
        elif char in "]}":
            depth -= 1
    return deepest
