"""Printing properties of the kept Scryfall objects as search keywords: frame:, is:foil/nonfoil/etched, is:fullart,
is:textless, is:booster, is:spotlight, is:new/is:old, has:watermark, promo types (is:boosterfun …), is:masterpiece.

Scryfall's meanings: https://scryfall.com/docs/syntax ("Border, Frame, Foil & Resolution", "Games, Promos, &
Spotlights", "Sets and Blocks") and https://scryfall.com/docs/api/frames. Every expected answer is computed from the
raw JSON objects of the embedded sample (oracle_tools/data/sample/), not through the engine: the set of printing ids
whose object says so. A printing whose file lacks the field never matches, and the search says how many it could not
judge (as deck check's cannot_judge); a database where no printing has the field refuses the keyword, naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from sample_objects import sample_objects

from oracle_tools import OracleDB
from oracle_tools.search import UnsupportedKeywordError

if TYPE_CHECKING:
    from oracle_server import Server

_objects = sample_objects


def _finishes(o: dict[str, Any]) -> list[str]:
    """Scryfall's finishes; an object older than the field has the foil and nonfoil booleans instead."""
    if "finishes" in o:
        return list(o["finishes"])
    return [f for f in ("nonfoil", "foil") if o.get(f)]


def _effects(o: dict[str, Any]) -> list[str]:
    """Scryfall's frame_effects; the 2019 objects carry one frame_effect instead."""
    return list(o.get("frame_effects") or ([o["frame_effect"]] if o.get("frame_effect") else []))


def _shipped_set_types() -> dict[str, str]:
    from oracle_tools.scryfall.sets import shipped_sets

    return {code: row["set_type"] for code, row in shipped_sets().items()}


_SHIPPED_SET_TYPES = _shipped_set_types()


EXPECTED: dict[str, Callable[[dict[str, Any]], bool]] = {
    "is:foil": lambda o: "foil" in _finishes(o),
    "is:nonfoil": lambda o: "nonfoil" in _finishes(o),
    "is:etched": lambda o: "etched" in _finishes(o),
    "frame:1993": lambda o: o.get("frame") == "1993",
    "frame:1997": lambda o: o.get("frame") == "1997",
    "frame:2015": lambda o: o.get("frame") == "2015",
    "frame:future": lambda o: o.get("frame") == "future",
    "frame:legendary": lambda o: "legendary" in _effects(o),
    "frame:showcase": lambda o: "showcase" in _effects(o),
    "frame:extendedart": lambda o: "extendedart" in _effects(o),
    "frame:colorshifted": lambda o: "colorshifted" in _effects(o),
    "is:colorshifted": lambda o: "colorshifted" in _effects(o),
    "is:showcase": lambda o: "showcase" in _effects(o),
    "is:fullart": lambda o: o.get("full_art") is True,
    "is:full": lambda o: o.get("full_art") is True,
    "is:booster": lambda o: o.get("booster") is True,
    "is:spotlight": lambda o: o.get("story_spotlight") is True,
    "has:watermark": lambda o: bool(o.get("watermark")),
    "is:new": lambda o: o.get("frame") == "2015",  # Scryfall: "is:new r:mythic — … the 2015 holofoil-stamp frame"
    "is:old": lambda o: o.get("frame") in ("1993", "1997"),  # "either the 1993 or 1997 variant of the classic frame"
    "is:boosterfun": lambda o: "boosterfun" in (o.get("promo_types") or []),
    "is:bundle": lambda o: "bundle" in (o.get("promo_types") or []),
    # the object's set type, else the shipped set table's (the 2019 dump's objects carry none)
    "is:masterpiece": lambda o: (o.get("set_type") or _SHIPPED_SET_TYPES.get(o.get("set") or "")) == "masterpiece",
}


#: Layouts of what is not a card of the Oracle reference (hidden unless asked for, CR 108.2).
_EXTRA_LAYOUTS = {"token", "double_faced_token", "emblem", "vanguard", "planar", "scheme", "art_series"}


def _is_card(o: dict[str, Any]) -> bool:
    type_line = o.get("type_line") or ""
    return (
        o.get("layout") not in _EXTRA_LAYOUTS and not type_line.startswith(("Token", "Emblem")) and type_line != "Card"
    )


def searched(objects: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """The printings a search reads without lang: or include:extras: cards of the reference, no memorabilia, each
    printing (set and collector number) once — in English, else the first of its languages by code (Scryfall's
    "English or the printed language")."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for o in objects:
        if o.get("set") and o.get("oracle_id") and _is_card(o) and o.get("set_type") != "memorabilia":
            groups.setdefault((o["set"], o.get("collector_number") or o["id"]), []).append(o)
    return [min(g, key=lambda o: (o.get("lang") != "en", o.get("lang") or "", o["id"])) for g in groups.values()]


def _printing_ids(db: OracleDB, query: str) -> set[str]:
    """Every printing the query finds: every language, extras and memorabilia included."""
    found = db.search(f"({query}) lang:any include:extras", unique="prints")
    return set(found.get_column("id").to_list())


@pytest.mark.parametrize("query", sorted(EXPECTED))
def test_printing_property_matches_the_raw_objects(sample_db: OracleDB, query: str) -> None:
    expected = {o["id"] for o in _objects() if EXPECTED[query](o)}
    assert expected or query == "frame:future", f"the sample has a printing for {query}"
    assert _printing_ids(sample_db, query) == expected


def test_printing_properties_are_judged_on_the_same_printing(sample_db: OracleDB) -> None:
    """Printing keywords of one query hold for one printing (as s:m19 r:mythic): frame:1997 s:tmp is a Tempest
    printing in the 1997 frame."""
    expected = {o["id"] for o in _objects() if o.get("frame") == "2015" and o.get("set") == "m19"}
    assert expected
    assert _printing_ids(sample_db, "frame:2015 s:m19") == expected
    assert _printing_ids(sample_db, "frame:1993 s:m19") == set()


def test_a_printing_without_the_field_is_counted_as_not_judged(sample_db: OracleDB) -> None:
    """The sample's 2019 objects (most of them) have no booster field: they never match is:booster, and the
    search says how many printings it could not judge among those it could have matched (the creature printings it
    reads: searched()); the JSON list object carries the same line in warnings."""
    creatures = [o for o in searched(_objects()) if "creature" in (o.get("type_line") or "").lower()]
    missing = sum(1 for o in creatures if "booster" not in o)
    assert 0 < missing < len(creatures)
    line = (
        f"is:booster: {missing:,} of {len(creatures):,} printings could not be judged (their card files have no "
        "booster)"
    )
    assert sample_db.search_warnings("is:booster t:creature") == [line]
    assert sample_db.search_list("is:booster t:creature", limit=1)["warnings"] == [line]
    read = searched(_objects())  # -is:foil: every printing read could have matched
    no_finishes = sum(1 for o in read if "finishes" not in o and "foil" not in o and "nonfoil" not in o)
    assert sample_db.search_warnings("-is:foil") == [
        f"is:foil: {no_finishes:,} of {len(read):,} printings could not be judged (their card files have no "
        "finishes (or foil/nonfoil))"
    ]
    assert sample_db.search_warnings("t:goblin") == []
    assert "warnings" not in sample_db.search_list("t:goblin", limit=1)


def test_a_field_no_printing_has_is_refused_naming_it(sample_db: OracleDB) -> None:
    """The sample keeps no highres_image: is:hires cannot be judged on any printing, and says so (never 0 cards)."""
    assert not any("highres_image" in o for o in _objects())
    with pytest.raises(UnsupportedKeywordError) as refused:
        sample_db.search("t:goblin is:hires")
    assert str(refused.value).startswith("is:hires: no printing in this database has Scryfall's highres_image")
    assert refused.value.position == 9


def test_frame_names_its_editions_and_effects() -> None:
    from oracle_tools.search import SearchSyntaxError, compile

    with pytest.raises(SearchSyntaxError, match=r"frame:2020: not a frame; use an edition \(1993, 1997, 2003"):
        compile("frame:2020")


def test_card_facts_a_file_lacks_are_counted_per_card(sample_db: OracleDB) -> None:
    """is:gamechanger reads the card's game_changer (Scryfall's Commander Game Changers): none of the sample's files
    has it, so the search refuses it naming the field; is:ub reads the security stamp, which objects older than the
    promo_types field cannot say anything about (Scryfall leaves an absent stamp out)."""
    assert not any("game_changer" in o for o in _objects())
    with pytest.raises(
        UnsupportedKeywordError, match=r"^is:gamechanger: no card in this database has Scryfall's game_"
    ):
        sample_db.search("is:gamechanger")
    objects = _objects()
    read = searched(objects)
    older = sum(1 for o in read if "finishes" not in o)
    assert sample_db.search_warnings("is:ub") == [
        f"is:ub: {older:,} of {len(read):,} printings could not be judged (their card files have no security_stamp)"
    ]
    expected = {o["id"] for o in objects if o.get("security_stamp") == "triangle"}
    assert _printing_ids(sample_db, "is:ub") == expected


def test_the_api_list_carries_the_not_judged_count_in_warnings(sample_server: Server, sample_db: OracleDB) -> None:
    """GET /cards/search answers the same line in the list object's warnings (Scryfall's field), and in the error
    object of a search that matched nothing."""
    line = sample_db.search_warnings("is:booster t:creature")
    assert line
    answer = sample_server.client.get("/cards/search", params={"q": "is:booster t:creature"})
    assert answer.status_code == 200 and answer.json()["warnings"] == line
    # a set none of whose printings says booster: nothing matches, and every printing of it could not be judged
    code = sorted({o["set"] for o in searched(_objects())} - {o["set"] for o in _objects() if "booster" in o})[0]
    none = sample_server.client.get("/cards/search", params={"q": f"is:booster e:{code}"})
    assert none.status_code == 404 and none.json()["warnings"] == sample_db.search_warnings(f"is:booster e:{code}")
    assert none.json()["warnings"][0].startswith("is:booster: ")
    assert "warnings" not in sample_server.client.get("/cards/search", params={"q": "t:goblin"}).json()


def test_in_booster_is_a_card_with_a_booster_printing(sample_db: OracleDB) -> None:
    """Scryfall: "t:legendary -in:booster — Legendary cards that have never been printed in a booster set"; a card
    printing's booster flag, where its file has one (the others counted as not judged)."""
    boosted = {o["oracle_id"] for o in _objects() if o.get("booster") is True and o.get("oracle_id")}
    assert boosted
    found = set(sample_db.search("in:booster include:extras").get_column("oracle_id").to_list())
    assert found == boosted
    assert sample_db.search_warnings("-in:booster")[0].startswith("in:booster: ")


def _scryfall_preview(o: dict[str, Any]) -> bool:
    """Scryfall's is:scryfallpreview from the raw object: its preview names Scryfall as the source and links it."""
    preview = o.get("preview") or {}
    return preview.get("source") == "Scryfall" and bool(preview.get("source_uri"))


def test_scryfallpreview_on_the_sample_is_judged_where_the_file_carries_previews(sample_db: OracleDB) -> None:
    """The sample's Scryfall files carry preview objects (Eldraine's in the 2019 dump, the 2024 sets'), none of them
    Scryfall's own: is:scryfallpreview finds what the raw objects say (no printing), and counts as not judged the
    printings read from files with no preview on any object (the foreign printings, the alternate names)."""
    import gzip
    import json

    from sample_objects import CARD_FILES, SAMPLE

    objects = _objects()
    assert any("preview" in o for o in objects)
    assert _printing_ids(sample_db, "is:scryfallpreview") == {o["id"] for o in objects if _scryfall_preview(o)}
    without = set()  # the ids of the objects of files that carry no preview
    for name in CARD_FILES:
        with gzip.open(SAMPLE / name, "rt", encoding="utf-8") as fh:
            read = json.load(fh)
        if not any("preview" in o for o in read):
            without |= {o.get("id") for o in read}
    creatures = [o for o in searched(objects) if "creature" in (o.get("type_line") or "").lower()]
    missing = sum(1 for o in creatures if o["id"] in without)
    assert 0 < missing < len(creatures)
    assert sample_db.search_warnings("is:scryfallpreview t:creature") == [
        f"is:scryfallpreview: {missing:,} of {len(creatures):,} printings could not be judged (their card files "
        "have no preview)"
    ]


def test_scryfallpreview_is_a_printing_scryfall_previewed(tmp_path: Path) -> None:
    """Scryfall's is:scryfallpreview: the printings Scryfall itself previewed — their preview object names Scryfall as
    the source and links the preview (a preview entry naming Scryfall without a link is none, as on scryfall.com);
    a printing another site previewed, or nobody, is not. Real 2024 objects, two of them given Scryfall's own
    preview (the shape of the real ones: source, source_uri, previewed_at); real 2019 objects of sets without
    previews, in a file of their own, cannot be judged; a database of only such files refuses the keyword."""
    import json

    objects = _objects()
    recent = [o for o in objects if "preview" in o and o.get("set") in ("mh3", "otj", "fdn") and _is_card(o)][:4]
    older = [o for o in objects if "preview" not in o and o.get("frame") == "2015" and _is_card(o)][:3]
    assert len(recent) == 4 and len(older) == 3
    recent = [dict(o) for o in recent]
    recent[0]["preview"] = {
        "source": "Scryfall",
        "source_uri": f"https://scryfall.com/card/{recent[0]['set']}/{recent[0]['collector_number']}",
        "previewed_at": recent[0]["preview"]["previewed_at"],
    }
    recent[1]["preview"] = {
        "source": "Scryfall",
        "source_uri": "",
        "previewed_at": recent[1]["preview"]["previewed_at"],
    }
    new_file, old_file = tmp_path / "cards-2024.json", tmp_path / "cards-2019.json"
    new_file.write_text(json.dumps(recent), encoding="utf-8")
    old_file.write_text(json.dumps(older), encoding="utf-8")
    expected = {o["id"] for o in recent + older if _scryfall_preview(o)}
    assert expected == {recent[0]["id"]}
    with OracleDB.ingest_files(tmp_path / "both.duckdb", [new_file, old_file]) as db:
        assert _printing_ids(db, "is:scryfallpreview") == expected
        assert _printing_ids(db, "-is:scryfallpreview") == {o["id"] for o in recent[1:] + older}
        assert db.search_warnings("is:scryfallpreview") == [
            "is:scryfallpreview: 3 of 7 printings could not be judged (their card files have no preview)"
        ]
    with (
        OracleDB.ingest_files(tmp_path / "old.duckdb", [old_file]) as db,
        pytest.raises(UnsupportedKeywordError) as refused,
    ):
        db.search("is:scryfallpreview")
    assert str(refused.value).startswith("is:scryfallpreview: no printing in this database has Scryfall's preview")
