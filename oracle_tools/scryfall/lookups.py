"""The printing and card lookups Scryfall's endpoints answer with: each a fixed, parameterised statement on a
cursor of the reference database, returning ids or rows (never answers' shapes, never HTTP).

The server's handlers (oracle_tools/interfaces/serve/) and the web page call these; each is tested on its own
in tests/test_scryfall_lookups.py. Which printing answers when several match is decided here, once per lookup:

* by a set (``printing_in_set``): English first, then non-promo, then collector number;
* by a Multiverse, MTGO, Arena, TCGplayer or Cardmarket id (``printing_by_id``): English first, then the lowest
  printing id, for its route and a collection's identifier alike;
* by an illustration (``printing_by_illustration``): the artwork's English printing, then the newest;
* several Oracle cards printed under one name (``first_of_same_name``): English, newest, collector number;
* by a name (``named_printing``, what ``/cards/named`` and a collection's name identifier answer): the card the one
  resolve names, or of several printed under one name (CR 201.2a) the first printed, then its printing in the set
  or its representative printing; a miss is the library's error (NameNotFoundError, NotFoundError) in Scryfall's
  words.

Column names come from ``ID_KINDS`` (constants), never from user text.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from oracle_tools.errors import NameNotFoundError, NotFoundError, did_you_mean, names_listed
from oracle_tools.names.kinds import FLAVOR
from oracle_tools.names.same_name import same_named_cards

if TYPE_CHECKING:
    import duckdb

    from oracle_tools.names.resolver import Resolution

    Cursor = duckdb.DuckDBPyConnection

#: The numeric ids Scryfall finds a printing by (``/cards/{kind}/{id}``): the condition on ``printings`` each
#: kind is matched with (``?``: the id asked, once). An MTGO id is the printing's ``mtgo_id`` or its ``mtgo_foil_id``, a
#: TCGplayer id its ``tcgplayer_id`` or ``tcgplayer_etched_id`` (Scryfall's API docs, "Get a card by MTGO ID" and
#: "by TCGplayer ID"). Adding a kind here adds its two routes (oracle_tools/interfaces/serve/scryfall_routes.py).
ID_KINDS = {
    "multiverse": "list_contains(multiverse_ids, ?)",
    "mtgo": "? IN (mtgo_id, mtgo_foil_id)",
    "arena": "arena_id = ?",
    "tcgplayer": "? IN (tcgplayer_id, tcgplayer_etched_id)",
    "cardmarket": "cardmarket_id = ?",
}
#: The most digits a numeric id may have (any such number fits DuckDB's BIGINT; a longer one names no printing).
MAX_ID_DIGITS = 18


def _first(cur: Cursor, sql: str, params: Sequence[Any] = ()) -> Any:
    rows = cur.execute(sql, list(params)).fetchall()
    return rows[0][0] if rows else None


def printing_in_set(cur: Cursor, oracle_id: str, set_code: str) -> str | None:
    """The printing of an Oracle card in a set (any case), English first, then non-promo, then by collector number;
    None when the card has none there."""
    return _first(
        cur,
        "SELECT id FROM printings WHERE oracle_id = ? AND set_code = lower(?) "
        "ORDER BY (lang = 'en') DESC, coalesce(promo, false), collector_number, id LIMIT 1",
        [oracle_id, set_code],
    )


def first_of_same_name(cur: Cursor, oracle_ids: Sequence[str], set_code: str | None = None) -> str | None:
    """Of several Oracle cards printed under one name (Unstable's six Very Cryptic Commands: CR 201.2), the one
    whose printing comes first (in ``set_code`` when given) by English, newest, collector number; None when none is
    printed (there)."""
    return _first(
        cur,
        "SELECT oracle_id FROM printings WHERE list_contains(?, oracle_id) "
        "AND (? IS NULL OR set_code = lower(?)) "
        "ORDER BY (lang = 'en') DESC, released_at DESC, collector_number, id LIMIT 1",
        [sorted(oracle_ids), set_code, set_code],
    )


def named_printing(
    cur: Cursor,
    name: str,
    result: Resolution,
    set_code: str | None,
    representatives: Callable[[Sequence[str]], Mapping[str, str]],
) -> str:
    """The printing id Scryfall's named lookup answers for ``name``, given ``result``, what the one resolve said of it
    (exact or fuzzy), and ``set_code`` (any case) when given: its card's printing in that set (:func:`printing_in_set`),
    else its representative printing (``representatives``: ``{oracle_id: printing id}`` of the ids asked, as
    ``cardjson.representative_ids`` answers, or a caller's kept copy of it).

    A name several Oracle cards print (Unstable's Very Cryptic Commands) is one name (CR 201.2a,
    ``same_named_cards``): Scryfall answers one card for it, the first printed (in the set) by
    :func:`first_of_same_name`. Misses, in Scryfall's words: NameNotFoundError for no card or several (``ambiguous``),
    NotFoundError for no printing (in the set)."""
    oracle_id, card_name = result.oracle_id, result.name
    same_named = () if result.ok else same_named_cards(result)
    if same_named:
        oracle_id, card_name = first_of_same_name(cur, same_named, set_code), result.candidates[0].name
    elif result.status == "ambiguous":
        raise NameNotFoundError(
            f"Too many cards match ambiguous name “{name}”: "
            f"{names_listed(c.name for c in result.candidates[:10])}. Add more words to refine your search.",
            ambiguous=True,
        )
    elif not result.ok or not oracle_id:
        hint = f" {did_you_mean(result.suggestions, sentence=True)}" if result.suggestions else ""
        raise NameNotFoundError(f"No cards found matching “{name}”.{hint}")
    if set_code:
        pid = printing_in_set(cur, oracle_id, set_code) if oracle_id else None
        if pid is None:
            raise NotFoundError(f"No cards found matching “{name}” in set “{set_code}”.")
        return pid
    pid = representatives([oracle_id]).get(oracle_id) if oracle_id else None
    if not pid:
        raise NotFoundError(f"No printing of “{card_name}” in the database.")
    return pid


def printing_by_id(cur: Cursor, kind: str, value: int | str) -> str | None:
    """The printing a Multiverse, MTGO, Arena, TCGplayer or Cardmarket id (``kind``, a key of ``ID_KINDS``) names,
    English first, then the lowest printing id, or None. Text that is not a number of at most 10 digits, and a
    number outside 0 … 10**MAX_ID_DIGITS, names no printing."""
    if isinstance(value, str):
        if not (value.isascii() and value.isdigit()) or len(value) > 10:
            return None  # ids are numbers: anything else names no card
        value = int(value)
    if not 0 <= value < 10**MAX_ID_DIGITS:
        return None  # past BIGINT (a 40-digit number): DuckDB would refuse the parameter; no printing has it
    sql = "SELECT id FROM printings WHERE {} ORDER BY (lang = 'en') DESC, id LIMIT 1"
    return _first(cur, sql.format(ID_KINDS[kind]), [value])


def printing_by_illustration(cur: Cursor, illustration_id: str) -> str | None:
    """A printing of an artwork (any case): English first, then the newest, or None."""
    return _first(
        cur,
        "SELECT id FROM printings WHERE illustration_id = ? "
        "ORDER BY (lang = 'en') DESC, released_at DESC NULLS LAST, id LIMIT 1",
        [illustration_id.lower()],
    )


def printing_oracle_id(cur: Cursor, printing_id: str) -> tuple[bool, str | None]:
    """Whether the printing exists, and its Oracle id (None for a printing of no Oracle card)."""
    rows = cur.execute("SELECT oracle_id FROM printings WHERE id = ?", [printing_id]).fetchall()
    return (True, rows[0][0]) if rows else (False, None)


def random_printing(cur: Cursor) -> str | None:
    """The preferred printing of a random card (not a token, emblem or other non-card), or None in an empty
    database."""
    return _first(
        cur,
        "SELECT p.id FROM preferred_printings p JOIN cards c USING (oracle_id) WHERE c.is_card "
        "ORDER BY random() LIMIT 1",
    )


def card_names(cur: Cursor) -> list[str]:
    """Every Oracle card's name (cards only), each once, sorted: what autocomplete picks from."""
    return [name for (name,) in cur.execute("SELECT DISTINCT name FROM cards WHERE is_card ORDER BY name").fetchall()]


def oracle_ids(cur: Cursor) -> list[str]:
    """Every Oracle id of the ``cards`` table."""
    return [oid for (oid,) in cur.execute("SELECT oracle_id FROM cards").fetchall()]


def preferred_printing_ids(cur: Cursor) -> list[str]:
    """The preferred printing of every Oracle card, by printing id (Scryfall's Oracle Cards bulk file)."""
    return [pid for (pid,) in cur.execute("SELECT id FROM preferred_printings ORDER BY id").fetchall()]


def every_ruling(cur: Cursor) -> Iterator[dict[str, Any]]:
    """Every ruling as Scryfall's ruling object, by Oracle id, date and text (Scryfall's Rulings bulk file)."""
    rows = cur.execute(
        "SELECT oracle_id, source, published_at, comment FROM rulings "
        "ORDER BY oracle_id, published_at NULLS LAST, comment"
    ).fetchall()
    for oracle_id, source, published, comment in rows:
        yield {
            "object": "ruling",
            "oracle_id": oracle_id,
            "source": source or "wotc",
            "published_at": published.isoformat() if published is not None else None,
            "comment": comment,
        }


def last_cards_ingest(cur: Cursor) -> dt.datetime | None:
    """When the last ingest of card data started, or None when the database records none."""
    found: dt.datetime | None = _first(cur, "SELECT max(started_at) FROM ingest_runs WHERE kind = 'cards'")
    return found


def oracle_card(cur: Cursor, oracle_id: str) -> dict[str, Any] | None:
    """An Oracle card's row (name, layout, cost, type line, text, stats) with ``faces`` (its face rows, in order),
    ``legalities`` ((format, status) pairs by format) and ``flavor_names`` (CR 201.6: alternate names that resolve
    to it but are not its name); None for an unknown id."""
    found = cur.execute(
        "SELECT oracle_id, name, layout, mana_cost, type_line, oracle_text, power, toughness, loyalty, defense "
        "FROM cards WHERE oracle_id = ?",
        [oracle_id],
    )
    columns = [d[0] for d in found.description]
    rows = found.fetchall()  # every row read: an unread result would hold the cursor (sqlfiles.finish)
    if not rows:
        return None
    card = dict(zip(columns, rows[0], strict=True))
    found = cur.execute(
        "SELECT face_index, name, role, mana_cost, type_line, oracle_text, power, toughness, loyalty, defense "
        "FROM faces WHERE oracle_id = ? ORDER BY face_index",
        [oracle_id],
    )
    columns = [d[0] for d in found.description]
    card["faces"] = [dict(zip(columns, face, strict=True)) for face in found.fetchall()]
    card["legalities"] = cur.execute(
        "SELECT format, status FROM legalities WHERE oracle_id = ? ORDER BY format", [oracle_id]
    ).fetchall()
    card["flavor_names"] = [
        name
        for (name,) in cur.execute(
            "SELECT DISTINCT name FROM names WHERE oracle_id = ? AND via = ? ORDER BY name", [oracle_id, FLAVOR]
        ).fetchall()
    ]
    return card
