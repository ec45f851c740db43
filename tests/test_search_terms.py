"""Search terms whose answer depends on what the database holds: a set code it does not know is said, never answered
with no card; a term whose data some printings lack says how many of the printings the query could have matched it
could not judge; the web page shows those lines; lore: and artists> read the kept fields.

Scryfall's meanings: https://scryfall.com/docs/syntax and its list object's ``warnings``
(https://scryfall.com/docs/api/lists). Every expected answer is computed from the raw JSON objects of the embedded
sample (oracle_tools/data/sample/), not through the engine.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from sample_objects import sample_objects

from oracle_tools import OracleDB
from oracle_tools.search import SearchSyntaxError

if TYPE_CHECKING:
    from oracle_server import Server

_objects = sample_objects


def _printing_ids(db: OracleDB, query: str) -> set[str]:
    """Every printing the query finds: every language, extras and memorabilia included."""
    found = db.search(f"({query}) lang:any include:extras", unique="prints")
    return set(found.get_column("id").to_list())


# -- set codes ---------------------------------------------------------------------------------------------------


def test_a_set_code_the_data_hold_answers_its_printings(sample_db: OracleDB) -> None:
    """e:/s: and in: with a set code of the sample: the printings (cards) of that set, as the objects say."""
    objects = [o for o in _objects() if o.get("set") and o.get("oracle_id")]
    codes = sorted({o["set"] for o in objects})
    assert len(codes) > 3
    for code in codes[:3] + codes[-2:]:
        assert _printing_ids(sample_db, f"e:{code}") == {o["id"] for o in objects if o["set"] == code}, code
        in_set = {o["oracle_id"] for o in objects if o["set"] == code}
        found = sample_db.search(f"in:{code} include:extras").get_column("oracle_id").to_list()
        assert set(found) == in_set, code
    from oracle_tools.scryfall.sets import shipped_sets

    table = shipped_sets()  # the set type of a printing whose object has none (the 2019 dump's)
    set_type = sorted({o["set_type"] for o in objects if o.get("set_type")})[0]
    typed = {
        o["oracle_id"] for o in objects if (o.get("set_type") or table.get(o["set"], {}).get("set_type")) == set_type
    }
    assert set(sample_db.search(f"in:{set_type} include:extras").get_column("oracle_id").to_list()) == typed


def test_a_set_type_is_read_from_the_set_table_where_the_objects_lack_it(sample_db: OracleDB) -> None:
    """Scryfall: "You can search for cards based on the type of product they appear in ... (st:core and
    st:expansion), series of products (st:masters ...)" and "The in: keyword also supports these set types".
    The 2019 dump's objects carry no set_type (Scryfall added it later): st: and in: read the shipped set table's
    set type for those printings, as b: reads its blocks, where they answered only the printings of the newer files
    ("st:masters" 0 cards though Eternal Masters is in the sample)."""
    from oracle_tools.scryfall.sets import shipped_sets

    table = shipped_sets()
    objects = [o for o in _objects() if o.get("set") and o.get("oracle_id")]
    masters = {o["id"] for o in objects if (o.get("set_type") or table.get(o["set"], {}).get("set_type")) == "masters"}
    assert masters and not any(o.get("set_type") == "masters" for o in objects)  # the objects never say it
    assert _printing_ids(sample_db, "st:masters") == masters
    cards = {o["oracle_id"] for o in objects if o["id"] in masters}
    assert set(sample_db.search("in:masters include:extras").get_column("oracle_id").to_list()) == cards
    core = {o["id"] for o in objects if (o.get("set_type") or table.get(o["set"], {}).get("set_type")) == "core"}
    assert {o["set"] for o in objects if o["id"] in core} > {"m20", "fdn"}  # older core sets too, not only typed ones
    assert _printing_ids(sample_db, "st:core") == core


def test_is_masterpiece_reads_the_set_table_where_the_objects_lack_a_set_type(tmp_path: Path) -> None:
    """Scryfall: "You can find all Masterpiece Series cards with is:masterpiece". The 2019 dump's objects carry no
    set_type, so is:masterpiece found none of its Kaladesh Inventions (the real data: 0 cards, e:mps 54): the shipped
    set table's set type answers for them, as for st:. Fixture: the dump's Aether Vial mps 6 and Grizzly Bears 6ed
    (tests/fixtures/masterpiece_2019.json)."""
    fixture = Path(__file__).parent / "fixtures" / "masterpiece_2019.json"
    with OracleDB.ingest_files(tmp_path / "mps.duckdb", [fixture]) as db:
        assert db.search("is:masterpiece").get_column("name").to_list() == ["Aether Vial"]
        assert db.search("not:masterpiece").get_column("name").to_list() == ["Grizzly Bears"]


@pytest.mark.parametrize(
    ("query", "written", "position"),
    [
        ("in:zzz", "in:zzz", 0),
        ("t:goblin (in:zzz or e:m19)", "in:zzz", 10),
        ("e:zzz", "e:zzz", 0),
        ("t:goblin set:zzz", "set:zzz", 9),
        ("date>=zzz", "date>=zzz", 0),
    ],
)
def test_an_unknown_set_code_is_said_in_one_line(sample_db: OracleDB, query: str, written: str, position: int) -> None:
    """A code no printing of the database has (and no set of Scryfall's list kept at ingest) is a typo or a set the
    data lack: one line naming the term, with its position, never "0 cards" (as an unknown format: f:zzz)."""
    assert "zzz" not in {o.get("set") for o in _objects()} | {o.get("set_type") for o in _objects()}
    with pytest.raises(SearchSyntaxError) as refused:
        sample_db.search(query)
    message = str(refused.value)
    assert message.startswith(f"{written}: unknown set code") and "\n" not in message
    assert refused.value.position == position


def test_a_negated_set_code_the_database_lacks_excludes_nothing(sample_db: OracleDB) -> None:
    """``-e:CODE`` is right whether or not the database holds the set (a query written for several databases, such as
    ``-e:om1`` on one built before that set): what it excludes is nothing, and the rest of the query answers."""
    goblins = sample_db.search("t:goblin include:extras").get_column("oracle_id").to_list()  # a set term shows extras
    assert goblins and sample_db.search("t:goblin -e:zzz").get_column("oracle_id").to_list() == goblins
    assert sample_db.search("t:goblin -(in:zzz or s:zzz)").get_column("oracle_id").to_list() == goblins
    with pytest.raises(SearchSyntaxError, match=r"^e:zzz: unknown set code"):
        sample_db.search("t:goblin -(-e:zzz)")  # negated twice: it asks for the set


def test_a_real_set_the_database_lacks_is_named(sample_db: OracleDB) -> None:
    """A set of the shipped set table (a real set) that no printing of the sample is from: said by its name, so the
    answer is not mistaken for "no card of that set matches"."""
    from oracle_tools.scryfall.sets import shipped_sets

    held = {o.get("set") for o in _objects()}
    code = next(code for code in sorted(shipped_sets()) if code not in held)
    with pytest.raises(SearchSyntaxError, match=rf"^e:{code}: this database holds no printing of .+ \({code}\)"):
        sample_db.search(f"e:{code}")


def test_an_unknown_set_code_over_http_is_a_400_with_the_line(sample_server: Server) -> None:
    answer = sample_server.client.get("/cards/search", params={"q": "in:zzz"})
    assert answer.status_code == 400
    assert answer.json()["details"].startswith("in:zzz: unknown set code or set type 'zzz'")


# -- how many printings a term could not judge ----------------------------------------------------------------------

#: Layouts of what is not a card of the Oracle reference (hidden unless asked for, CR 108.2).
_EXTRA_LAYOUTS = {"token", "double_faced_token", "emblem", "vanguard", "planar", "scheme", "art_series"}


def _is_card(o: dict[str, Any]) -> bool:
    type_line = o.get("type_line") or ""
    return (
        o.get("layout") not in _EXTRA_LAYOUTS and not type_line.startswith(("Token", "Emblem")) and type_line != "Card"
    )


def _read(*, every_language: bool = False) -> list[dict[str, Any]]:
    """The printings a search reads: cards of the reference, no memorabilia, and without lang: each printing (set
    and collector number) once — in English, else the first of its languages by code."""
    kept = [
        o
        for o in _objects()
        if o.get("set") and o.get("oracle_id") and _is_card(o) and o.get("set_type") != "memorabilia"
    ]
    if every_language:
        return kept
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for o in kept:
        groups.setdefault((o["set"], o.get("collector_number") or o["id"]), []).append(o)
    return [min(g, key=lambda o: (o.get("lang") != "en", o.get("lang") or "", o["id"])) for g in groups.values()]


def test_not_judged_counts_only_printings_the_query_could_have_matched(sample_db: OracleDB) -> None:
    """is:fullart reads full_art, which the foreign printings file lacks: without lang: a search reads a foreign
    printing only where the data hold that printing in no English (Scryfall's default), so only those are counted;
    lang:any reads every language and counts them all; and the rest of the query narrows the count (e:SET: that
    set's printings)."""
    every = _read(every_language=True)
    read = _read()
    missing = sum(1 for o in read if "frame" not in o)  # no full Scryfall object: no frame, full_art, watermark …
    missing_any = sum(1 for o in every if "frame" not in o)
    assert 0 < missing < missing_any < len(_objects())
    line = "is:fullart: {:,} of {:,} printings could not be judged (their card files have no full_art)"
    assert sample_db.search_warnings("is:fullart") == [line.format(missing, len(read))]
    assert sample_db.search_warnings("is:fullart lang:any") == [line.format(missing_any, len(every))]
    # one set with printings that lack the field: only its printings are ones the query could have matched
    code = next(o["set"] for o in read if "frame" not in o)
    in_set = [o for o in read if o["set"] == code]
    assert len(in_set) < len(read)
    expected = line.format(sum(1 for o in in_set if "frame" not in o), len(in_set))
    assert sample_db.search_warnings(f"is:fullart e:{code}") == [expected]
    # a set every printing of which has the field: nothing it could have matched went unjudged
    judged = next(o["set"] for o in read if all("frame" in p for p in read if p["set"] == o["set"]))
    assert sample_db.search_warnings(f"is:fullart e:{judged}") == []


def test_two_terms_that_cannot_judge_the_same_printings_each_say_so(sample_db: OracleDB) -> None:
    """Scryfall's example `is:datestamped is:prerelease` ("Prerelease promos with a date stamp") on data whose older
    objects have no promo_types: each term was asked whether it decided a printing with the other one as compiled
    (false where it could not judge), so neither did, and 0 cards came with no warning: "no card" said as if judged.
    Each term is now counted with the other taken either way where that one cannot judge either."""
    alone = sample_db.search_warnings("is:datestamped")
    assert len(alone) == 1
    missing = alone[0].split(": ", 1)[1].split(" of ", 1)[0]
    assert int(missing.replace(",", "")) > 0
    # no printing of the sample is a prerelease or date-stamped promo: every one it decides is one it cannot judge
    assert sample_db.search("(is:datestamped or is:prerelease) lang:any include:extras").is_empty()
    line = "{}: {} of {} printings could not be judged (their card files have no promo_types)"
    assert sample_db.search("is:datestamped is:prerelease").is_empty()
    assert sample_db.search_warnings("is:datestamped is:prerelease") == [
        line.format("is:datestamped", missing, missing),
        line.format("is:prerelease", missing, missing),
    ]
    # one term judged everywhere (t:) still narrows what the other could have matched, as before
    assert sample_db.search_warnings("is:datestamped t:creature") != alone


def test_printing_terms_count_the_printings_whose_files_lack_their_field(sample_db: OracleDB) -> None:
    """The foreign printings file names no artist, flavor text, watermark, border, promo or digital flag, and objects
    of the API before security_stamp have none: `ft:mishra lang:ja` answered no card on the real data and said
    nothing (36,210 of its 36,298 Japanese printings could not say), as did a:, wm:, border:, stamp:, is:promo and
    is:digital. Each now counts them as not judged, as artists>, has:watermark and is:full did. Scryfall's
    examples (scryfall.com/docs/syntax): a:"proce", ft:mishra, wm:orzhov, border:white, stamp:oval, is:promo,
    is:digital."""
    every = _read(every_language=True)
    no_frame = sum(1 for o in every if "frame" not in o)  # no full Scryfall object: no flavor text or watermark kept
    assert 0 < no_frame < len(every)
    cases = {
        'a:"proce"': ("a:proce", sum(1 for o in every if "artist" not in o), "artist"),
        "ft:mishra": ("ft:mishra", no_frame, "flavor_text"),
        "wm:orzhov": ("wm:orzhov", no_frame, "watermark"),
        "border:white": ("border:white", sum(1 for o in every if "border_color" not in o), "border_color"),
        "is:promo": ("is:promo", sum(1 for o in every if "promo" not in o), "promo"),
        "is:digital": ("is:digital", sum(1 for o in every if "digital" not in o), "digital"),
    }
    for query, (term, missing, data) in cases.items():
        assert missing > 0, query
        line = f"{term}: {missing:,} of {len(every):,} printings could not be judged (their card files have no {data})"
        assert sample_db.search_warnings(f"{query} lang:any") == [line], query
    (stamp,) = sample_db.search_warnings("stamp:oval lang:any")
    assert stamp.startswith("stamp:oval: ") and stamp.endswith("(their card files have no security_stamp)")


def test_produces_counts_the_cards_whose_files_predate_produced_mana(tmp_path: Path) -> None:
    """Scryfall's example produces=wu ("Cards that produce blue and white mana") found 3 cards on the real data and
    said nothing: Scryfall leaves produced_mana out of a card that adds none, and the 2019 dump's objects (22,601 of
    the 23,450 cards) predate the field, so Azorius Chancery, Glacial Fortress and Tundra were read as adding no
    mana. A card with no printing from an object of the API since then (one with promo_types) is counted as not
    judged. Fixture (tests/fixtures/produced_mana.json, objects of the embedded sample): Irrigated Farmland of the
    2019 dump ("{T}: Add {W} or {U}.", no produced_mana), Twisted Landscape (["C"]) and Warren Soultrader (WUBRG) of
    the 2024 file."""
    fixture = Path(__file__).parent / "fixtures" / "produced_mana.json"
    with OracleDB.ingest_files(tmp_path / "produced.duckdb", [fixture]) as db:
        line = "{}: 1 of 3 cards could not be judged (their card files have no produced_mana)"
        assert db.search("produces:c").get_column("name").to_list() == ["Twisted Landscape"]
        assert db.search_warnings("produces:c") == [line.format("produces:c")]
        assert db.search("produces=wu").is_empty()  # Irrigated Farmland's file cannot say: said, not "no card"
        assert db.search_warnings("produces=wu") == [line.format("produces=wu")]
        assert db.search("produces:wubrg").get_column("name").to_list() == ["Warren Soultrader"]


def test_many_terms_that_cannot_judge_the_same_printings_each_say_so(sample_db: OracleDB) -> None:
    """As two such terms, five (and a nested OR of them): each counts the printings it could not judge, with the
    others taken as unknown where they cannot judge either. With the others guessed each way only up to three of
    them, five ANDed terms each compiled the fifth as false where it had no data, and all five said nothing. The
    count costs the query twice per term, whatever their number (no query per combination of guesses)."""
    from oracle_tools import search as _search

    alone = sample_db.search_warnings("is:datestamped")
    missing = alone[0].split(": ", 1)[1].split(" of ", 1)[0]
    line = "{}: {} of {} printings could not be judged (their card files have no promo_types)"
    terms = ["is:datestamped", "is:prerelease", "is:release", "is:buyabox", "is:promopack"]
    assert sample_db.search(" ".join(terms)).is_empty()
    assert sample_db.search_warnings(" ".join(terms)) == [line.format(t, missing, missing) for t in terms]
    nested = "(is:datestamped or is:prerelease) is:release"
    assert sample_db.search_warnings(nested) == [line.format(t, missing, missing) for t in terms[:3]]
    compiled = _search.compile(" ".join(terms))
    assert all(sql.count("list_contains(p.promo_types") == 2 * (len(terms) - 1) for sql, _ in compiled.judged)


def test_a_format_some_card_files_predate_counts_the_cards_it_could_not_judge(sample_db: OracleDB) -> None:
    """Scryfall: "Use the f: or format: keywords to find cards that are legal in a given format". The sample's 2019
    objects predate Pioneer (their legalities have no pioneer key), its 2024 ones have it: f:pioneer answered the
    2024 cards alone and said nothing of the 2019 ones, a silent "not legal". A card whose kept legalities (its newest
    English object's) lack the format is counted as not judged, as is:booster counts printings; f:modern counts the
    cards the 2025 file's trimmed objects (legalities {"commander": ...} only) leave without it."""
    newest: dict[str, dict[str, Any]] = {}
    for name in ("cards-2019.json.gz", "cards-2024.json.gz", "cards-2025-trimmed.json.gz", "alternate-names.json.gz"):
        with gzip.open(Path(__file__).parents[1] / "oracle_tools" / "data" / "sample" / name, "rt") as fh:
            for o in json.load(fh):
                kept = newest.get(o.get("oracle_id") or "")
                if (
                    o.get("oracle_id")
                    and o.get("legalities") is not None
                    and (kept is None or o["released_at"] >= kept["released_at"])
                ):
                    newest[o["oracle_id"]] = o
    cards = sample_db.search("").get_column("oracle_id").to_list()  # every card of the reference (no extras)
    for fmt in ("pioneer", "modern"):
        missing = sum(1 for oid in cards if fmt not in newest.get(oid, {}).get("legalities", {}))
        assert 0 < missing < len(cards)
        line = (
            f"f:{fmt}: {missing:,} of {len(cards):,} cards could not be judged (their card files have no legalities "
            f"for {fmt})"
        )
        assert sample_db.search_warnings(f"f:{fmt}") == [line]
    goblins = sample_db.search("t:goblin").get_column("oracle_id").to_list()
    missing = sum(1 for oid in goblins if "pioneer" not in newest.get(oid, {}).get("legalities", {}))
    assert sample_db.search_warnings("t:goblin banned:pioneer") == [
        f"banned:pioneer: {missing:,} of {len(goblins):,} cards could not be judged (their card files have no "
        "legalities for pioneer)"
    ]
    assert sample_db.search_warnings("f:commander") == []  # every card's kept legalities have it


def test_the_search_page_shows_the_not_judged_lines(sample_server: Server, sample_db: OracleDB) -> None:
    """The web page says what the API list's warnings say, above its list (escaped as every text of the page), and
    on a search that matched nothing; a search every printing of which could be judged shows none."""
    import html

    read = _read()
    creatures = [o for o in read if "creature" in (o.get("type_line") or "").lower()]
    line = (
        f"is:booster: {sum(1 for o in creatures if 'booster' not in o):,} of {len(creatures):,} printings could not "
        "be judged (their card files have no booster)"
    )
    assert sample_db.search_warnings("is:booster t:creature") == [line]
    page = sample_server.client.get("/search", params={"q": "is:booster t:creature"})
    assert page.status_code == 200
    assert f'<ul class="msg unjudged" id="search-warnings"><li>{html.escape(line)}</li></ul>' in page.text
    code = next(o["set"] for o in read if all("booster" not in p for p in read if p["set"] == o["set"]))
    none = sample_server.client.get("/search", params={"q": f"is:booster e:{code}"})
    assert 'id="no-results"' in none.text and 'id="search-warnings"' in none.text
    assert html.escape(sample_db.search_warnings(f"is:booster e:{code}")[0]) in none.text
    assert 'id="search-warnings"' not in sample_server.client.get("/search", params={"q": "t:goblin"}).text


# -- lore: and artists ---------------------------------------------------------------------------------------------


def _flavor(o: dict[str, Any]) -> str:
    return "\n".join([o.get("flavor_text") or "", *((f.get("flavor_text") or "") for f in o.get("card_faces") or [])])


def _printings() -> list[dict[str, Any]]:
    return [o for o in _objects() if o.get("set") and o.get("oracle_id")]


@pytest.mark.parametrize("word", ["mishra", "urza's", "goblin", "dragon"])
def test_lore_is_name_type_line_or_flavor_text(sample_db: OracleDB, word: str) -> None:
    """Scryfall's lore: (not on its syntax page; github.com/scryfall/feedback/issues/800, taw/magic-search-engine#139)
    reads the card's name — folded, so lore:urzas and lore:"urza's" both find Urza's Tome — its type line and the
    printing's flavor text: the printings whose object says so."""
    from oracle_tools.text.matching import normalize

    key = normalize(word)
    expected = {
        o["id"]
        for o in _printings()
        if key in normalize(o["name"]) or word in (o.get("type_line") or "").lower() or word in _flavor(o).lower()
    }
    assert expected
    assert _printing_ids(sample_db, f'lore:"{word}"') == expected


def test_lore_finds_what_name_alone_does_not(sample_db: OracleDB) -> None:
    """Some printing tells of Mishra in its flavor text only: lore: finds it, name: does not."""
    by_flavor = {o["id"] for o in _printings() if "mishra" in _flavor(o).lower() and "mishra" not in o["name"].lower()}
    assert by_flavor
    assert by_flavor <= _printing_ids(sample_db, "lore:mishra")
    assert not by_flavor & _printing_ids(sample_db, "name:mishra")


def _artist_count(o: dict[str, Any]) -> int | None:
    """Scryfall's artist_ids where the object has them, else the names its artist field joins with " & "."""
    if o.get("artist_ids") is not None:
        return len(o["artist_ids"])
    if o.get("artist") is None:
        return None
    return len(o["artist"].split(" & ")) if o["artist"].strip() else 0  # the bio and decklist cards credit none


def test_artists_counts_the_printing_s_artists(sample_db: OracleDB) -> None:
    """artists>1: a printing credited to more than one artist (Order // Chaos: a half each); artists=1 one. The
    count is artist_ids' length where the object has it, which is the number of names its artist field joins."""
    printings = _printings()
    for o in printings:
        if o.get("artist_ids") is not None and o.get("artist"):
            assert len(o["artist_ids"]) == len(o["artist"].split(" & ")), o["name"]
    many = {o["id"] for o in printings if (_artist_count(o) or 0) > 1}
    one = {o["id"] for o in printings if _artist_count(o) == 1}
    assert many and one
    assert _printing_ids(sample_db, "artists>1") == many
    assert _printing_ids(sample_db, "artists=1") == one
    assert _printing_ids(sample_db, "artists>=1") == many | one
    # a printing whose file names no artist (the foreign printings file) is not judged, and counted so
    read = _read()
    line = "artists>1: {:,} of {:,} printings could not be judged (their card files have no artist)"
    missing = sum(1 for o in read if o.get("artist") is None)
    assert sample_db.search_warnings("artists>1") == [line.format(missing, len(read))]
    assert _printing_ids(sample_db, "artists=0") == {o["id"] for o in printings if _artist_count(o) == 0}


# -- cheapest: ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("money", ["usd", "eur", "tix"])
def test_cheapest_is_the_card_s_lowest_priced_printing(realdata: Path, db_2024_path: Path, money: str) -> None:
    """Scryfall's cheapest:usd (eur, tix): each card's printing whose lowest price in the currency (nonfoil, foil,
    etched, as the file gives them) is the lowest of the card's printings'; the real 2024 objects all carry prices."""
    from decimal import Decimal

    with gzip.open(realdata / "scryfall-search-2024-mh3-otj-fdn.json.gz", "rt", encoding="utf-8") as fh:
        objects = json.load(fh)
    keys = {"usd": ("usd", "usd_foil", "usd_etched"), "eur": ("eur", "eur_foil"), "tix": ("tix",)}[money]

    def lowest(o: dict[str, Any]) -> Decimal | None:
        prices = [Decimal(str(o["prices"][k])) for k in keys if (o.get("prices") or {}).get(k) is not None]
        return min(prices) if prices else None

    best: dict[str, Decimal] = {}
    for o in objects:
        price = lowest(o)
        if price is not None and (o["oracle_id"] not in best or price < best[o["oracle_id"]]):
            best[o["oracle_id"]] = price
    expected = {o["id"] for o in objects if lowest(o) is not None and lowest(o) == best[o["oracle_id"]]}
    assert expected and len(expected) < len(objects)
    with OracleDB(db_2024_path) as db:
        found = db.search(f"cheapest:{money} lang:any include:extras", unique="prints")
        assert set(found.get_column("id").to_list()) == expected
        unpriced = sum(1 for o in objects if lowest(o) is None)
        warnings = db.search_warnings(f"cheapest:{money} lang:any include:extras")
        assert warnings == (
            [
                f"cheapest:{money}: {unpriced:,} of {len(objects):,} printings could not be judged (their card files have no prices ({money}))"
            ]
            if unpriced
            else []
        )


def test_a_price_comparison_counts_the_printings_without_a_price(tmp_path: Path, sample_db: OracleDB) -> None:
    """Scryfall: "You can find prints within certain usd, eur, tix price ranges by comparing them with a numeric
    expression" (its example: usd>=0.50 e:ema). The 2019 dump has prices on 872 of its objects: usd>=0.50 e:ema
    answered 0 cards on the real data and said nothing of the printings it had no price for. As cheapest: does, a
    printing without a price in the currency is counted as not judged, and a database with no price at all (the
    sample's objects keep none) refuses the term. Fixture: three objects of the 2019 dump
    (tests/fixtures/prices_2019.json): Cliffside Rescuer usd 0.51, Commander's Insignia usd 1.02, Grizzly Bears none."""
    fixture = Path(__file__).parent / "fixtures" / "prices_2019.json"
    with OracleDB.ingest_files(tmp_path / "prices.duckdb", [fixture]) as db:
        assert db.search("usd>=0.50").get_column("name").to_list() == ["Cliffside Rescuer", "Commander's Insignia"]
        assert db.search("usd<1").get_column("name").to_list() == ["Cliffside Rescuer"]
        line = "usd<1: 1 of 3 printings could not be judged (their card files have no prices (usd))"
        assert db.search_warnings("usd<1") == [line]
        # Commander's Insignia is an enchantment: t:creature decides it, so only two are printings it could match
        assert db.search_warnings("usd<1 t:creature") == [line.replace("1 of 3", "1 of 2")]
        assert db.search_warnings("usd<1 s:c19") == []  # both c19 printings have a price
    with pytest.raises(SearchSyntaxError, match=r"^tix>15: no printing in this database has Scryfall's prices \(tix\)"):
        sample_db.search("tix>15")


def test_cheapest_takes_a_currency() -> None:
    from oracle_tools.search import compile

    with pytest.raises(SearchSyntaxError, match=r"^cheapest:gbp: use usd, eur, tix"):
        compile("cheapest:gbp")


# -- the object a search reads ---------------------------------------------------------------------------------


def test_a_printing_is_judged_by_the_object_the_search_shows(sample_db: OracleDB) -> None:
    """Without lang:, a search reads each printing (set, collector number) once: its English object, else the first
    language it was printed in (Scryfall's default; include_multilingual or lang: read every language). A field is
    judged on that object, never on a foreign copy whose value differs: Time Spiral's timeshifted cards are rare in
    English and "special" in the foreign file, so r:special finds none of them, for cards or prints."""
    shown: dict[tuple[str, str], dict[str, Any]] = {}
    for o in _objects():
        if not o.get("set") or not o.get("collector_number"):
            continue
        key = (o["set"], o["collector_number"])
        rank = (o.get("lang", "en") != "en", o.get("lang", "en"), o["id"])
        if key not in shown or rank < (
            shown[key].get("lang", "en") != "en",
            shown[key].get("lang", "en"),
            shown[key]["id"],
        ):
            shown[key] = o
    special = {o["id"] for o in shown.values() if o.get("rarity") == "special"}
    found = sample_db.search("r:special include:extras", unique="prints").get_column("id").to_list()
    assert set(found) == special and len(found) == len(special)
    # the foreign copies are there to be found when every language is asked for
    foreign = {o["id"] for o in _objects() if o.get("rarity") == "special" and o.get("lang", "en") != "en"}
    assert foreign - special and foreign <= _printing_ids(sample_db, "r:special")
    cards = set(sample_db.search("r:special include:extras").get_column("oracle_id").to_list())
    assert cards == {o["oracle_id"] for o in shown.values() if o.get("rarity") == "special" and o.get("oracle_id")}
