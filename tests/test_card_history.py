"""Blocks, printing history and printing choice as search keywords: b:/block:, illustrations>N, new:art/artist/
rarity/frame/flavor/language, is:unique, devotion:, prefer:.

Scryfall's meanings: https://scryfall.com/docs/syntax ("Sets and Blocks", "Artist, Flavor Text and Watermark",
"Reprints", "Mana Costs", "Display Keywords"); devotion is CR 700.5. Every expected answer is computed from the raw
JSON objects (the embedded sample's, or the real 2024 Scryfall file's where the sample lacks the data: it keeps no
illustration ids and no prices) or from the shipped set table read as CSV, never through the engine.
"""

from __future__ import annotations

import csv
import gzip
import json
import re
from collections import defaultdict
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from oracle_tools import OracleDB
from oracle_tools.search import SearchSyntaxError, UnsupportedKeywordError

ROOT = Path(__file__).parent.parent
SAMPLE = ROOT / "oracle_tools" / "data" / "sample"
SAMPLE_FILES = ("alternate-names.json.gz", "cards-2019.json.gz", "cards-2024.json.gz", "cards-2025-trimmed.json.gz",
                "foreign.json.gz")  # fmt: skip
REAL_2024 = "scryfall-search-2024-mh3-otj-fdn.json.gz"
NOT_CARDS = {"token", "double_faced_token", "emblem", "art_series", "planar", "scheme", "vanguard"}


def _read(paths: Iterable[Path]) -> tuple[dict[str, Any], ...]:
    out: list[dict[str, Any]] = []
    for path in paths:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            out.extend(json.load(fh))
    return tuple(out)


@cache
def _sample() -> tuple[dict[str, Any], ...]:
    return _read(SAMPLE / name for name in SAMPLE_FILES)


def _oracle_id(o: dict[str, Any]) -> str | None:
    return o.get("oracle_id") or ((o.get("card_faces") or [{}])[0].get("oracle_id"))


def _printing_ids(db: OracleDB, query: str) -> set[str]:
    found = db.search(f"({query}) lang:any include:extras", unique="prints")
    return set(found.get_column("id").to_list())


def _oracle_ids(db: OracleDB, query: str) -> set[str]:
    return set(db.search(f"({query}) include:extras").get_column("oracle_id").to_list())


def _first_with(objects: Iterable[dict[str, Any]], field: str, *, per_language: bool = False) -> set[str]:
    """The printings whose ``field`` value no earlier printing of the card had (new:…): released on the first day
    the card had that value."""
    first: dict[tuple[Any, ...], str] = {}
    rows = [o for o in objects if o.get(field) is not None and o.get("released_at") and _oracle_id(o)]
    for o in rows:
        key = (_oracle_id(o), o[field], o.get("lang") if per_language else None)
        first[key] = min(first.get(key, o["released_at"]), o["released_at"])
    return {
        o["id"]
        for o in rows
        if o["released_at"] == first[(_oracle_id(o), o[field], o.get("lang") if per_language else None)]
    }


# -- b: / block: -------------------------------------------------------------------------------------------


def test_block_is_every_set_of_the_block_named_by_one_of_its_codes(sample_db: OracleDB) -> None:
    """Scryfall: "b:wwk — Cards in Zendikar Block (but using the Worldwake code)"; the sample's objects carry no block,
    so the shipped set table's blocks answer."""
    with (ROOT / "oracle_tools" / "data" / "sets.csv").open(encoding="utf-8", newline="") as fh:
        table = {row["code"]: row["block"] for row in csv.DictReader(fh)}
    zendikar = {code for code, block in table.items() if block == table["wwk"]}
    assert {"zen", "wwk", "roe"} <= zendikar
    expected = {o["id"] for o in _sample() if o.get("set") in zendikar}
    assert expected
    assert _printing_ids(sample_db, "b:wwk") == expected
    assert _printing_ids(sample_db, "block:zendikar") == expected  # the block's name
    assert _printing_ids(sample_db, "b:wwk s:roe") == {o["id"] for o in _sample() if o.get("set") == "roe"}


def test_a_block_nobody_knows_is_refused_naming_the_data(sample_db: OracleDB) -> None:
    with pytest.raises(UnsupportedKeywordError, match=r"^b:xyz: no printing in this database has Scryfall's block"):
        sample_db.search("b:xyz")


# -- is:unique, new:rarity on the sample ------------------------------------------------------------------------


def test_unique_is_a_card_printed_in_a_single_set(sample_db: OracleDB) -> None:
    """Scryfall: "cards that have only been in a single set with is:unique" (sets=1)."""
    sets: dict[str, set[str]] = defaultdict(set)
    for o in _sample():
        if _oracle_id(o) and o.get("set"):
            sets[_oracle_id(o)].add(o["set"])  # type: ignore[index]
    expected = {oid for oid, codes in sets.items() if len(codes) == 1}
    assert _oracle_ids(sample_db, "is:unique") == expected
    assert _oracle_ids(sample_db, "is:unique") == _oracle_ids(sample_db, "sets=1")


def test_new_rarity_is_the_first_printing_at_that_rarity(sample_db: OracleDB) -> None:
    """Scryfall: "new:rarity to find reprint cards printed at a new rarity for the first time"."""
    expected = _first_with(_sample(), "rarity")
    assert _printing_ids(sample_db, "new:rarity") == expected
    reprinted_rarer = _printing_ids(sample_db, "new:rarity is:reprint")
    assert reprinted_rarer and reprinted_rarer < expected


def test_new_frame_and_new_language(sample_db: OracleDB) -> None:
    objects = _sample()
    assert _printing_ids(sample_db, "new:frame") == _first_with(objects, "frame")
    assert _printing_ids(sample_db, "new:language") == _first_with(objects, "lang")


def test_new_takes_its_fields_only(sample_db: OracleDB) -> None:
    with pytest.raises(SearchSyntaxError, match="new:color: use art, artist, rarity, frame, flavor, language"):
        sample_db.search("new:color")


# -- illustrations, new:art, new:artist, new:flavor, prefer: prices — the real 2024 file ---------------------


@pytest.fixture(scope="module")
def db_2024(db_2024_path: Path) -> OracleDB:
    return OracleDB(db_2024_path)


@pytest.fixture(scope="module")
def objects_2024(realdata: Path) -> tuple[dict[str, Any], ...]:
    return _read([realdata / REAL_2024])


def test_illustrations_counts_distinct_illustration_ids(db_2024: OracleDB, objects_2024: tuple[dict, ...]) -> None:
    arts: dict[str, set[str]] = defaultdict(set)
    for o in objects_2024:
        arts[str(_oracle_id(o))].add(str(o.get("illustration_id")))
    for query, test in (("illustrations>1", lambda n: n > 1), ("illustrations=1", lambda n: n == 1)):
        expected = {oid for oid, ids in arts.items() if test(len(ids - {"None"}))}
        assert expected, query
        assert _oracle_ids(db_2024, query) == expected, query


def test_new_art_artist_flavor_are_the_first_printings_with_them(
    db_2024: OracleDB, objects_2024: tuple[dict, ...]
) -> None:
    assert _printing_ids(db_2024, "new:art") == _first_with(objects_2024, "illustration_id")
    assert _printing_ids(db_2024, "new:artist") == _first_with(objects_2024, "artist")
    assert _printing_ids(db_2024, "new:flavor") == _first_with(objects_2024, "flavor_text", per_language=True)
    reprinted = _printing_ids(db_2024, "new:art is:reprint")
    assert reprinted and reprinted < _printing_ids(db_2024, "new:art")


def _lowest_usd(o: dict[str, Any]) -> float | None:
    prices = [float(v) for k, v in (o.get("prices") or {}).items() if k in ("usd", "usd_foil", "usd_etched") and v]
    return min(prices) if prices else None


def test_prefer_chooses_the_printing_that_stands_for_each_card(
    db_2024: OracleDB, objects_2024: tuple[dict, ...]
) -> None:
    """Scryfall: "prefer:oldest, prefer:newest, prefer:usd-low or prefer:usd-high … what printings of cards to
    preferentially show". Each card with several English printings in the file shows the one the preference picks."""
    by_card: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for o in objects_2024:
        if o.get("lang") == "en":
            by_card[_oracle_id(o)].append(o)  # type: ignore[index]
    several = {oid: ps for oid, ps in by_card.items() if len(ps) > 1}
    assert len(several) > 20
    for prefer, key, pick in (
        ("usd-low", _lowest_usd, min),
        ("usd-high", _lowest_usd, max),
        ("oldest", lambda o: o["released_at"], min),
        ("newest", lambda o: o["released_at"], max),
    ):
        shown = dict(db_2024.search(f"prefer:{prefer} include:extras").select("oracle_id", "id").iter_rows())
        for oid, printings in several.items():
            known = [o for o in printings if key(o) is not None]
            best = pick(key(o) for o in known)  # type: ignore[type-var]
            assert key(next(o for o in printings if o["id"] == shown[oid])) == best, (prefer, oid)
    # unique=prints lists every printing whatever is preferred
    every = db_2024.search("include:extras", unique="prints").height
    assert db_2024.search("prefer:usd-high include:extras", unique="prints").height == every


def test_prefer_takes_scryfalls_values_only() -> None:
    from oracle_tools.search import compile

    with pytest.raises(SearchSyntaxError, match=r"^prefer:cheapest: use oldest, newest, usd-low"):
        compile("prefer:cheapest")


# -- devotion: ------------------------------------------------------------------------------------------------


def _permanent_cost(o: dict[str, Any]) -> tuple[str, str]:
    """The mana cost a permanent card counts for devotion (a split card's halves, else the front face's), and the
    type line its permanence is judged by."""
    faces = o.get("card_faces") or []
    if faces and o.get("layout") != "split":
        return faces[0].get("mana_cost") or "", faces[0].get("type_line") or ""
    return o.get("mana_cost") or "", o.get("type_line") or ""


PERMANENT_TYPES = ("Artifact", "Battle", "Creature", "Enchantment", "Land", "Planeswalker")


@pytest.mark.parametrize(
    ("query", "colours", "test"),
    [
        ("devotion:{g}{g}{g}", "G", lambda n: n >= 3),
        ("devotion={u}{u}", "U", lambda n: n == 2),
        ("devotion:{u/b}{u/b}{u/b}", "UB", lambda n: n >= 3),
        ("devotion>=rr", "R", lambda n: n >= 2),
    ],
)
def test_devotion_counts_the_mana_symbols_of_a_permanent(sample_db: OracleDB, query: str, colours: str, test) -> None:  # type: ignore[no-untyped-def]
    """CR 700.5: "A player's devotion to [color 1] and [color 2] is equal to the number of mana symbols among the
    mana costs of permanents that player controls that are [color 1], [color 2], or both colors." A hybrid symbol
    counts once for each colour it has; only permanent cards give devotion."""
    expected = set()
    for o in _sample():
        if o.get("layout") in NOT_CARDS or o.get("lang", "en") != "en" or not _oracle_id(o):
            continue
        cost, type_line = _permanent_cost(o)
        front_types = type_line.split(" // ")[0]
        if not any(t in front_types for t in PERMANENT_TYPES):
            continue
        symbols = re.findall(r"\{([^}]+)\}", cost)
        if test(sum(1 for s in symbols if any(c in s for c in colours))):
            expected.add(_oracle_id(o))
    assert expected
    assert _oracle_ids(sample_db, query) == expected


def _shown_is_first_in_preference_order(db: OracleDB, query: str) -> None:
    from oracle_tools.search.compiler import _PREFERENCE

    ids = db.search(query, unique="prints").get_column("id").to_list()
    chosen = db.con.execute(
        "SELECT p.oracle_id, p.id FROM printings p WHERE list_contains(?, p.id) "
        f"QUALIFY row_number() OVER (PARTITION BY p.oracle_id ORDER BY {_PREFERENCE}) = 1",
        [ids],
    ).fetchall()
    by_order = dict(chosen)
    assert by_order
    shown = dict(db.search(query).select("oracle_id", "id").iter_rows())
    assert shown == by_order


@pytest.mark.parametrize(
    "query",
    ["t:goblin", "s:m19", "a:proce", "lang:ja", "is:foil", "new:rarity", "r>=r year<=2003", "new:frame", "new:artist",
     "new:language", "new:rarity t:creature", "new:frame -t:land c:r", "new:language order:released"],
)  # fmt: skip
def test_the_printing_chosen_by_the_preference_key_is_the_first_in_the_preference_order(
    sample_db: OracleDB, query: str
) -> None:
    """A printing-level search picks each card's printing by arg_min of one key (_PREFERENCE_KEY), a card-level one reads
    preferred_printings, and new:X with card-level terms only the printing ingest chose for it (new_X_pick); the rule
    is the order
    _PREFERENCE writes (English, paper, not a promo, not memorabilia, newest, lowest collector number, id): ranked here
    by that order with a window over the printings the search reads (each printing once, in English or its printed
    language, without lang:), every card gets the same printing."""
    _shown_is_first_in_preference_order(sample_db, query)


@pytest.mark.parametrize("query", ["new:art", "new:flavor", "new:art t:creature", "new:artist r:mythic"])
def test_the_printing_new_art_shows_is_the_first_in_the_preference_order(db_2024: OracleDB, query: str) -> None:
    """new:art (the sample keeps no illustration ids: the real 2024 file) and new:flavor read the printing ingest
    chose (new_art_pick): the same as ranking the printings the search reads by _PREFERENCE."""
    _shown_is_first_in_preference_order(db_2024, query)


def test_unique_art_is_one_printing_per_illustration(db_2024: OracleDB, objects_2024: tuple[dict, ...]) -> None:
    """Scryfall: "t:forest a:avon unique:art — Every unique Forest illustration by John Avon": one row per
    illustration (two printings of one card by one artist with different art are two rows)."""
    lands = {
        (_oracle_id(o), o.get("illustration_id") or f"artist: {o.get('artist')}")
        for o in objects_2024
        if "Land" in o.get("type_line", "")
    }
    found = db_2024.search("t:land include:extras", unique="art")
    assert found.height == len(lands)
    by_artist = {(_oracle_id(o), o.get("artist")) for o in objects_2024 if "Land" in o.get("type_line", "")}
    assert len(lands) > len(by_artist)  # the file has cards with two illustrations by the same artist


def _desc(text: str) -> tuple[int, ...]:
    """A key that sorts ``text`` (an ISO date) newest first."""
    return tuple(-ord(ch) for ch in text)


def test_order_penny_is_the_penny_dreadful_rank_lowest_first(db_2024: OracleDB, objects_2024: tuple[dict, ...]) -> None:
    """Scryfall's order:penny (its syntax page, "Display Keywords"; the API's order=penny): cards by their Penny
    Dreadful rank (the card object's penny_rank), lowest first, cards without one last; direction:desc reverses the
    ranked ones. Expected from the raw 2024 objects' penny_rank."""
    # the file's sets were fetched months apart, so a card's printings may carry different ranks: the card's is its
    # newest English printing's, as its other Oracle facts (the card object's, build_core.sql)
    newest: dict[str, dict[str, Any]] = {}
    for o in sorted(objects_2024, key=lambda o: (o.get("lang") != "en", _desc(o.get("released_at") or ""), o["id"])):
        newest.setdefault(str(_oracle_id(o)), o)
    rank = {oid: o["penny_rank"] for oid, o in newest.items() if o.get("penny_rank") is not None}
    assert len(rank) > 100
    shown = db_2024.search("order:penny include:extras").get_column("oracle_id").to_list()
    ranked = [oid for oid in shown if oid in rank]
    assert ranked == shown[: len(ranked)] and set(ranked) == set(rank)  # every ranked card first, unranked last
    assert [rank[oid] for oid in ranked] == sorted(rank.values())
    descending = db_2024.search("order:penny direction:desc include:extras").get_column("oracle_id").to_list()
    assert [rank[oid] for oid in descending if oid in rank] == sorted(rank.values(), reverse=True)
