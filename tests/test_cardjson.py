"""Scryfall card objects from the database (oracle_tools/scryfall/cardjson.py)."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest

from oracle_tools import OracleDB
from oracle_tools.scryfall.cardjson import card_objects, objects_from_tables, representative_ids


def _oid(db: OracleDB, name: str) -> str:
    ((oid,),) = db.con.execute("SELECT oracle_id FROM cards WHERE name = ?", [name]).fetchall()
    return oid


def _one(db: OracleDB, name: str) -> dict[str, Any]:
    (card,) = card_objects(db.con, oracle_ids=[_oid(db, name)])
    return card


def test_input_order_misses_and_repeats(sample_db: OracleDB) -> None:
    bolt, fire = _oid(sample_db, "Lightning Bolt"), _oid(sample_db, "Fire // Ice")
    cards = card_objects(sample_db.con, oracle_ids=[fire, "00000000-0000-0000-0000-000000000000", bolt, fire])
    assert [c["name"] for c in cards] == ["Fire // Ice", "Lightning Bolt", "Fire // Ice"]
    assert cards[0] is not cards[2] and cards[0] == cards[2]
    by_id = card_objects(sample_db.con, ids=[cards[1]["id"], cards[0]["id"]])
    assert [c["name"] for c in by_id] == ["Lightning Bolt", "Fire // Ice"]
    assert card_objects(sample_db.con, ids=[]) == []
    with pytest.raises(TypeError):
        card_objects(sample_db.con, ids=["x"], oracle_ids=["y"])


def test_representative_is_newest_english_paper_printing(sample_db: OracleDB) -> None:
    oid = _oid(sample_db, "Lightning Bolt")
    pid = representative_ids(sample_db.con, [oid])[oid]
    rows = sample_db.con.execute(
        "SELECT id, lang, released_at, games, promo FROM printings WHERE oracle_id = ?", [oid]
    ).fetchall()
    chosen = next(r for r in rows if r[0] == pid)
    assert chosen[1] == "en" and "paper" in chosen[3]
    newer = [r for r in rows if r[1] == "en" and "paper" in (r[3] or []) and not r[4] and r[2] > chosen[2]]
    assert newer == []


def test_single_faced_card(sample_db: OracleDB) -> None:
    card = _one(sample_db, "Lightning Bolt")
    assert card["object"] == "card" and card["layout"] == "normal"
    assert card["mana_cost"] == "{R}" and card["cmc"] == 1.0 and card["colors"] == ["R"]
    assert card["oracle_text"].startswith("Lightning Bolt deals 3 damage")
    assert card["legalities"]["modern"] == "legal" and "card_faces" not in card
    assert "power" not in card  # Scryfall leaves out what an instant does not have


def test_split_card_one_sided_shape(sample_db: OracleDB) -> None:
    card = _one(sample_db, "Fire // Ice")  # CR 709: halves on one side
    assert card["layout"] == "split" and card["mana_cost"] == "{1}{R} // {1}{U}" and card["colors"] == ["R", "U"]
    assert "oracle_text" not in card
    assert [f["name"] for f in card["card_faces"]] == ["Fire", "Ice"]
    assert [f["mana_cost"] for f in card["card_faces"]] == ["{1}{R}", "{1}{U}"]
    assert all("colors" not in f for f in card["card_faces"])


def test_transform_card_double_sided_shape(sample_db: OracleDB) -> None:
    card = _one(sample_db, "Delver of Secrets // Insectile Aberration")  # CR 712
    assert card["layout"] == "transform" and "mana_cost" not in card and "colors" not in card
    front, back = card["card_faces"]
    assert front["mana_cost"] == "{U}" and front["colors"] == ["U"] and front["power"] == "1"
    assert back["mana_cost"] == "" and back["color_indicator"] == ["U"] and back["power"] == "3"


def test_adventure_and_flip(sample_db: OracleDB) -> None:
    giant = _one(sample_db, "Bonecrusher Giant // Stomp")  # CR 715
    assert giant["layout"] == "adventure" and giant["power"] == "4" and giant["mana_cost"] == "{2}{R} // {1}{R}"
    assert [f["name"] for f in giant["card_faces"]] == ["Bonecrusher Giant", "Stomp"]
    flip = sample_db.con.execute("SELECT name FROM cards WHERE layout = 'flip' ORDER BY name LIMIT 1").fetchall()[0][0]
    card = _one(sample_db, flip)  # CR 710.1c: the bottom has the top's cost, Scryfall prints "" for it
    assert card["card_faces"][1]["mana_cost"] == "" and card["mana_cost"] == card["card_faces"][0]["mana_cost"]


def test_modal_dfc_and_meld(sample_db: OracleDB) -> None:
    mdfc = sample_db.con.execute("SELECT name FROM cards WHERE layout = 'modal_dfc' ORDER BY name LIMIT 1").fetchall()[
        0
    ][0]
    card = _one(sample_db, mdfc)
    front, back = card["card_faces"]  # CR 712: each face its own characteristics (a land back: no cost)
    assert front["mana_cost"] and card["name"] == f"{front['name']} // {back['name']}"
    assert "mana_cost" not in card and all("colors" in f for f in card["card_faces"])
    meld = sample_db.con.execute(
        "SELECT c.name FROM cards c JOIN faces f USING (oracle_id) WHERE f.role = 'meld_result' LIMIT 1"
    ).fetchall()
    if not meld:
        pytest.skip("the sample has no meld result")
    result = _one(sample_db, meld[0][0])  # CR 712.4: a meld result is its own card object, no faces
    assert result["layout"] == "meld" and "card_faces" not in result
    assert "meld_part" in {p["component"] for p in result["all_parts"]}


def test_foreign_printing_keeps_printed_names(sample_db: OracleDB) -> None:
    row = sample_db.con.execute(
        "SELECT id, printed_name FROM printings WHERE lang = 'fr' AND name = 'Lightning Bolt' LIMIT 1"
    ).fetchall()[0]
    (card,) = card_objects(sample_db.con, ids=[row[0]])
    assert card["lang"] == "fr" and card["printed_name"] == row[1] and card["name"] == "Lightning Bolt"


@pytest.mark.realdata
def test_matches_real_scryfall_objects(realdata: Path, db_2024_path: Path) -> None:
    """Every printing of the real 2024 Scryfall file, rebuilt from the tables (what a database built before
    whole objects were kept serves, and what completes a trimmed object), has the fields Scryfall gave it
    (the database of that file alone, so the Oracle text is the same)."""
    from oracle_tools import OracleDB

    source = realdata / "scryfall-search-2024-mh3-otj-fdn.json.gz"
    with gzip.open(source) as f:
        raw = {c["id"]: c for c in json.load(f)}
    with OracleDB(db_2024_path) as db:
        cards = list(objects_from_tables(db.con, list(raw), None).values())
    assert len(cards) == len(raw)
    top = [
        "name",
        "oracle_id",
        "lang",
        "layout",
        "mana_cost",
        "cmc",
        "type_line",
        "oracle_text",
        "colors",
        "color_identity",
        "power",
        "toughness",
        "loyalty",
        "keywords",
        "legalities",
        "reserved",
        "set",
        "set_name",
        "collector_number",
        "rarity",
        "released_at",
        "games",
        "printed_name",
    ]
    face_keys = [
        "name",
        "mana_cost",
        "type_line",
        "oracle_text",
        "colors",
        "color_indicator",
        "power",
        "toughness",
        "loyalty",
    ]
    # The three sets were fetched months apart: an Oracle fact (legality, say) may differ between two
    # printings of one card in the file; the database keeps one per card, so those are not compared.
    versions: dict[tuple[str, str], set[str]] = {}
    for c in raw.values():
        for key in top:
            versions.setdefault((c["oracle_id"], key), set()).add(json.dumps(c.get(key), sort_keys=True))
    layouts = set()
    for card in cards:
        want = raw[card["id"]]
        layouts.add(want["layout"])
        for key in top:
            if len(versions[(want["oracle_id"], key)]) > 1:
                continue
            got, expected = card.get(key), want.get(key)
            if key in ("colors", "color_identity") and got is not None and expected is not None:
                got, expected = sorted(got), sorted(expected)
            assert got == expected, (want["name"], key, got, expected)
        assert ("card_faces" in card) == ("card_faces" in want), want["name"]
        for got_face, want_face in zip(card.get("card_faces", []), want.get("card_faces", [])):
            for key in face_keys:
                assert got_face.get(key) == want_face.get(key), (want["name"], key)
    assert {"adventure", "transform", "modal_dfc"} <= layouts


def _collector_key(number: str | None) -> tuple[bool, int]:
    digits = re.match(r"[0-9]+", number or "")
    return (digits is None, int(digits.group()) if digits else 0)


def test_preferred_printings_table_follows_the_rule(sample_db: OracleDB) -> None:
    """The table built at ingest (sql/preferred_printings.sql) picks, for every card with printings, the
    printing the documented rule picks, recomputed here in Python: English, paper, not promo, not
    memorabilia, newest, lowest collector number, id."""
    rows = sample_db.con.execute(
        "SELECT oracle_id, id, lang, games, digital, promo, set_type, released_at, collector_number "
        "FROM printings WHERE oracle_id IS NOT NULL"
    ).fetchall()
    by_card: dict[str, list[tuple]] = {}
    for row in rows:
        by_card.setdefault(row[0], []).append(row)

    def rank(r: tuple) -> tuple:
        _, pid, lang, games, digital, promo, set_type, released, number = r
        paper = ("paper" in games) if games is not None else not bool(digital)
        return (
            lang != "en",
            not paper,
            bool(promo),
            set_type == "memorabilia",
            released is None,
            -(released.toordinal() if released else 0),
            _collector_key(number),
            number or "",
            pid,
        )

    expected = {oid: min(printings, key=rank)[1] for oid, printings in by_card.items()}
    table = dict(sample_db.con.execute("SELECT oracle_id, id FROM preferred_printings").fetchall())
    assert table == expected
    assert representative_ids(sample_db.con, list(expected)[:50]) == {k: expected[k] for k in list(expected)[:50]}


def test_the_newest_files_oracle_wording_wins_reversible_printings_included(tmp_path: Path) -> None:
    """The 2019 dump's Blightsteel Colossus is an "Artifact Creature — Golem"; a 2023 file's reversible Secret
    Lair printing says "Artifact Creature — Phyrexian Golem" (the February 2023 Oracle update). Oracle wording
    changes over time: the newer file's is the card's, whatever the printing's layout and the files' order."""
    fixtures = Path(__file__).parent / "fixtures" / "reversible"
    with open(fixtures / "default-cards-blightsteel-okaun.json", encoding="utf-8") as f:
        dump_2019 = [o for o in json.load(f) if o["layout"] != "reversible_card"]
    older = tmp_path / "2019.json"
    older.write_text(json.dumps(dump_2019), encoding="utf-8")
    newer = fixtures / "default-cards-2023-blightsteel-phyrexian.json"
    for number, files in enumerate(([older, newer], [newer, older])):
        with OracleDB.ingest_files(tmp_path / f"{number}.duckdb", files) as db:
            rows = db.con.execute(
                "SELECT c.type_line, f.type_line, c.layout FROM cards c JOIN faces f USING (oracle_id) "
                "WHERE c.name = 'Blightsteel Colossus'"
            ).fetchall()
            assert rows == [("Artifact Creature — Phyrexian Golem", "Artifact Creature — Phyrexian Golem", "normal")]
            okaun = db.con.execute("SELECT type_line FROM cards WHERE name = 'Okaun, Eye of Chaos'").fetchall()
            assert okaun == [("Legendary Creature — Cyclops Berserker",)]  # only in the older file: as it says


@pytest.mark.realdata
def test_keywords_derived_at_ingest_are_scryfalls_for_the_same_cards(realdata: Path, tmp_path: Path) -> None:
    """A file older than Scryfall's ``keywords`` field (the 2019 dump) gets each card's keywords derived at ingest
    from its Oracle text by the CR's lists (702 keyword abilities, 701 keyword actions, 207.2c ability words) —
    the rule its served objects get theirs by — and they are the keywords Scryfall's own 2024 objects list for
    the same cards. Measured on the 145 cards both files have: 141 agree (97 %); of the 42 Scryfall lists some
    keyword for, 38 (90 %). The four that differ, by kind:
    * errata between 2019 and 2024: Tatyova, Benthic Druid's land trigger gained its ability word (Landfall);
    * predefined token names Scryfall lists as keywords though the CR has them as token names (CR 111.10), which
      are not derived: Treasure (Brass's Bounty, Gleaming Barrier) and Food (Bake into a Pie, same text).
    Fixed on the way: "converted mana cost" (the term for mana value until 2021) was the action Convert on 463
    cards, and a card's own name ("Blighted Bat", "Reckless Abandon") an action on about 30."""
    with gzip.open(realdata / "scryfall-search-2024-mh3-otj-fdn.json.gz") as f:
        later: dict[str, set[str]] = {}
        for card in json.load(f):
            later.setdefault(card.get("oracle_id") or card["card_faces"][0]["oracle_id"], set()).update(
                card["keywords"]
            )
    oracle_id = re.compile(r'"oracle_id":"([0-9a-f-]{36})"')
    cut = tmp_path / "default-cards-2019-cut.json"
    with gzip.open(realdata / "scryfall-default-cards-2019-10-per-set-dump.json.gz", "rt", encoding="utf-8") as dump:
        lines = [line.strip().rstrip(",") for line in dump if (m := oracle_id.search(line)) and m[1] in later]
    assert '"keywords"' not in "".join(lines)  # the dump predates the field
    cut.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
    with OracleDB.ingest_files(tmp_path / "2019.duckdb", [cut]) as db:
        derived = {
            oid: set(keywords) for oid, keywords in db.con.execute("SELECT oracle_id, keywords FROM cards").fetchall()
        }
    assert len(derived) == 145
    agree = [oid for oid in derived if derived[oid] == later[oid]]
    listed = [oid for oid in derived if later[oid]]
    assert len(agree) / len(derived) >= 0.95, len(agree)
    assert len(set(agree) & set(listed)) / len(listed) >= 0.88, len(set(agree) & set(listed))
    assert all(later[oid] > derived[oid] for oid in derived.keys() - set(agree))  # only ever one missing


def test_derived_keywords_leave_out_old_terms_and_own_names(sample_db: OracleDB) -> None:
    """Real 2019 Oracle texts: "converted mana cost" is mana value's name until 2021 (CR 202.3), not the keyword
    action convert (CR 701.28); a card's own name is the card (CR 201.5), not a keyword action in it; "Enchant
    creature, land, or planeswalker" is one Enchant ability with a list of what it can enchant (CR 702.5a)."""
    from oracle_tools.scryfall.cardjson import derive_keywords, keyword_vocabulary

    vocabulary = keyword_vocabulary(sample_db.con)
    texts = {
        "Meltdown": "Destroy each artifact with converted mana cost X or less.",
        "Blighted Bat": "Flying\n{1}: Blighted Bat gains haste until end of turn.",
        "Reckless Abandon": "As an additional cost to cast this spell, sacrifice a creature.\n"
        "Reckless Abandon deals 4 damage to any target.",
        "Imprisoned in the Moon": "Enchant creature, land, or planeswalker\nEnchanted permanent is a colorless "
        'land with "{T}: Add {C}" and loses all other card types and abilities.',
    }
    derived = {name: derive_keywords([text], vocabulary, names=[name]) for name, text in texts.items()}
    assert derived == {
        "Meltdown": [],
        "Blighted Bat": ["Flying"],
        "Reckless Abandon": [],
        "Imprisoned in the Moon": ["Enchant"],
    }
    # the action itself is still read, and a name is left out only where the card names itself
    assert derive_keywords(["Convert Blighted Bat."], vocabulary, names=["Other"]) == ["Convert", "Blight"]


def test_partner_with_a_name_is_partner_and_partner_with(sample_db: OracleDB) -> None:
    """CR 702.124j: "Partner with [name]" is a variant of partner; Scryfall lists both Partner and Partner with
    (MTGJSON's 2022 copy of Scryfall's keywords: Will Kenrith, Toothy and Krav have exactly those two). The name
    after it may hold commas ("Pir, Imaginative Rascal"): still one ability, not a list of keywords that ends at
    the first item that is none (which derived nothing for 30 of the 38 real cards). Real 2019 texts."""
    from oracle_tools.scryfall.cardjson import derive_keywords, keyword_vocabulary

    vocabulary = keyword_vocabulary(sample_db.con)
    texts = {
        "Will Kenrith": "+2: Until your next turn, up to two target creatures each have base power and toughness 0/3 "
        "and lose all abilities.\nPartner with Rowan Kenrith\nWill Kenrith can be your commander.",
        "Toothy, Imaginary Friend": "Partner with Pir, Imaginative Rascal (When this creature enters the battlefield, "
        "target player may put Pir into their hand from their library, then shuffle.)\nWhenever you draw a card, put "
        "a +1/+1 counter on Toothy, Imaginary Friend.",
        "Krav, the Unredeemed": "Partner with Regna, the Redeemer (When this creature enters the battlefield, target "
        "player may put Regna into their hand from their library, then shuffle.)\n{B}, Sacrifice X creatures: Target "
        "player draws X cards and gains X life. Put X +1/+1 counters on Krav, the Unredeemed.",
    }
    for name, text in texts.items():
        assert derive_keywords([text], vocabulary, names=[name]) == ["Partner", "Partner with"], name
    # a plain "Partner" line (CR 702.124a) stays Partner alone
    assert derive_keywords(["Partner"], vocabulary) == ["Partner"]


def test_a_keyword_line_with_a_spaced_dash_is_the_keyword() -> None:
    """Keyword abilities written "[Keyword] — …" in Oracle text: CR 702.139a companion ("Companion—[Condition]";
    Kaheera's condition lists types with commas), CR 702.142a boast ("Boast — [Cost]: [Effect]"), CR 702.57a
    forecast ("Forecast — [Activated ability]"). Real texts; none of the three was derived (the line ends with a
    period, and the commas split it into items). A spaced dash after an ability word is still that word."""
    from oracle_tools.scryfall.cardjson import KeywordVocabulary, derive_keywords

    # CR 702 headings and a CR 207.2c ability word, as the rules table gives them
    vocabulary = KeywordVocabulary(["Companion", "Boast", "Forecast", "Vigilance", "Ward"], [], ["Landfall"])
    texts = {
        "Kaheera, the Orphanguard": "Companion — Each creature card in your starting deck is a Cat, Elemental, "
        "Nightmare, Dinosaur, or Beast card. (If this card is your chosen companion, you may put it into your hand "
        "from outside the game for {3} any time you could cast a sorcery.)\nVigilance\nEach other creature you "
        "control that's a Cat, Elemental, Nightmare, Dinosaur, or Beast gets +1/+1 and has vigilance.",
        "Battershield Warrior": "Boast — {1}{W}: Creatures you control get +1/+1 until end of turn. (Activate only if "
        "this creature attacked this turn and only once each turn.)",
        "Paladin of Prahv": "Whenever Paladin of Prahv deals damage, you gain that much life.\nForecast — {1}{W}, "
        "Reveal Paladin of Prahv from your hand: Whenever target creature deals damage this turn, you gain that much "
        "life. (Activate this ability only during your upkeep and only once each turn.)",
    }
    derived = {name: derive_keywords([text], vocabulary, names=[name]) for name, text in texts.items()}
    assert derived == {
        "Kaheera, the Orphanguard": ["Companion", "Vigilance"],
        "Battershield Warrior": ["Boast"],
        "Paladin of Prahv": ["Forecast"],
    }
    assert derive_keywords(["Ward—Pay 3 life."], vocabulary) == ["Ward"]
    assert derive_keywords(["Landfall — Whenever a land you control enters, scry 1."], vocabulary) == ["Landfall"]
