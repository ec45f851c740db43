"""Checks on the embedded sample in ``oracle_tools/data/sample/`` (cut by ``scripts/make_sample.py``).

The shipped files are checked without the real data; the byte-for-byte regeneration test uses
the ``realdata`` fixture and skips when ``../shared/realdata`` is absent.
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import json
import re
import subprocess
import sys
import uuid
from collections import Counter, defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "oracle_tools" / "data" / "sample"
SCRIPT = REPO / "scripts" / "make_sample.py"

GZ_FILES = (
    "alternate-names.json.gz",
    "cards-2019.json.gz",
    "cards-2024.json.gz",
    "cards-2025-trimmed.json.gz",
    "foreign.json.gz",
    "rulings.json.gz",
)
DECK_FILES = (
    "22901_modern_aml.json",
    "23176_legacy_grand-prix-atlanta.json",
    "23372_vintage_romancing-the-stones-15.json",
    "22963_pauper_pauper-1k.json",
    "22743_standard_monthly.json",
    "22643_duel-commander_lgs-dc-event.json",
    "rationelis_22650379_edwin_van_der_elessar.txt",
    "rationelis_precon_quick_draw.txt",
)
LAYOUTS_2019 = (
    "normal",
    "transform",
    "token",
    "split",
    "vanguard",
    "leveler",
    "flip",
    "adventure",
    "saga",
    "host",
    "meld",
    "augment",
    "planar",
    "double_faced_token",
    "scheme",
    "emblem",
)
# oracle cards of that layout in the whole 2019 dump, when fewer than 3
LAYOUTS_2019_SCARCE = {"emblem": 1}
STRIPPED = (
    "image_uris",
    "prices",
    "purchase_uris",
    "related_uris",
    "uri",
    "scryfall_uri",
    "set_uri",
    "set_search_uri",
    "scryfall_set_uri",
    "rulings_uri",
    "prints_search_uri",
    "highres_image",
    "illustration_id",
)
REQUIRED_2019 = (
    "Tarmogoyf",
    "Flesh // Blood",
    "Meddling Mage",
    "Pithing Needle",
    "Dispossess",
    "Cabal Therapy",
    "Runed Halo",
    "Booby Trap",
    "Phyrexian Revoker",
    "Sorcerous Spyglass",
    "Nevermore",
    "Voidslime",
    "Relentless Rats",
    "Rat Colony",
    "Shadowborn Apostle",
    "Persistent Petitioners",
    "Seven Dwarves",
    "Squadron Hawk",
    "Howling Wolf",
    "Lightning Bolt",
    "Fire // Ice",
    "Lim-Dûl's Vault",
    "Aether Vial",
    "Jötun Grunt",
    "Brisela, Voice of Nightmares",
    "Bruna, the Fading Light",
    "Gisela, the Broken Blade",
    "Delver of Secrets // Insectile Aberration",
    "Kytheon, Hero of Akros // Gideon, Battle-Forged",
    "Bushi Tenderfoot // Kenzo the Hardhearted",
    "Giant Killer // Chop Down",
    "Bonecrusher Giant // Stomp",
    "Brazen Borrower // Petty Theft",
    "Black Lotus",
    "Ancestral Recall",
    "Mana Crypt",
    "Sol Ring",
    "Force of Will",
    "Plains",
    "Island",
    "Swamp",
    "Mountain",
    "Forest",
    "Snow-Covered Plains",
    "Snow-Covered Island",
    "Snow-Covered Swamp",
    "Snow-Covered Mountain",
    "Snow-Covered Forest",
    "Wastes",
    "Dark Depths",
    "Marit Lage",
    "Hanweir Battlements",
    "Hanweir Garrison",
    "Hanweir, the Writhing Township",
    "Krenko, Mob Boss",
    "Young Pyromancer",
    "Tendershoot Dryad",
    "Smothering Tithe",
    "Tireless Tracker",
    "Kolaghan's Command",
    "Ajani's Pridemate",
    "Thalia, Guardian of Thraben",
    "Atraxa, Praetors' Voice",
    "Thrasios, Triton Hero",
    "Tymna the Weaver",
    "Kraum, Ludevic's Opus",
    "Ishai, Ojutai Dragonspeaker",
    "Bruse Tarl, Boorish Herder",
    "Sylvan Tutor",
    "Dusk // Dawn",
    "Cut // Ribbons",
    "Who // What // When // Where // Why",
    "Kiki-Jiki, Mirror Breaker",
    "Tolsimir, Friend to Wolves",
    "Jace, Cunning Castaway",
    "Hazezon Tamar",
    "Mitotic Manipulation",
    "Gilded Goose",
    "Bake into a Pie",
    "Pirate's Pillage",
    "Gild",
    "Tamiyo's Journal",
)
# absent from the 2019 dump, shipped (synthetic ids) in cards-2025-trimmed
REQUIRED_2025 = (
    "Nazgûl",
    "Dragon's Approach",
    "Slime Against Humanity",
    "Templar Knight",
    "Tempest Hawk",
    "Cid, Timeless Artificer",
    "Disa the Restless",
    "Urza's Saga",
    "Academy Manufactor",
    "Kenrith, the Returned King",
    "Korvold, Fae-Cursed King",
    "Minsc & Boo, Timeless Heroes",
    "Ragavan, Nimble Pilferer",
)
FOREIGN_LANGS = {"de", "fr", "es", "it", "ja"}


@functools.lru_cache(maxsize=1)
def _load_script() -> ModuleType:
    """Import scripts/make_sample.py (not a package module) for its name resolver and deck list."""
    spec = importlib.util.spec_from_file_location("make_sample", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _raw(name: str) -> bytes:
    return gzip.decompress((SAMPLE / name).read_bytes())


def _load(name: str) -> list[dict]:
    return json.loads(_raw(name))


@pytest.fixture(scope="module")
def cards19() -> list[dict]:
    return _load("cards-2019.json.gz")


@pytest.fixture(scope="module")
def cards24() -> list[dict]:
    return _load("cards-2024.json.gz")


@pytest.fixture(scope="module")
def cards25() -> list[dict]:
    return _load("cards-2025-trimmed.json.gz")


@pytest.fixture(scope="module")
def alternate() -> list[dict]:
    return _load("alternate-names.json.gz")


@pytest.fixture(scope="module")
def foreign() -> list[dict]:
    return _load("foreign.json.gz")


@pytest.fixture(scope="module")
def rulings() -> list[dict]:
    return _load("rulings.json.gz")


def _names(cards: list[dict]) -> set[str]:
    return {c["name"] for c in cards}


def _text(card: dict) -> str:
    return "\n".join(
        [card.get("oracle_text") or ""] + [f.get("oracle_text") or "" for f in card.get("card_faces") or []]
    )


# --------------------------------------------------------------------------- files, sizes, format
def test_files_exist() -> None:
    for name in (*GZ_FILES, "README.md", "decks/SOURCES.md"):
        assert (SAMPLE / name).is_file(), name
    for name in DECK_FILES:
        assert (SAMPLE / "decks" / name).is_file(), name


def test_total_size_under_5mb() -> None:
    total = sum(p.stat().st_size for p in SAMPLE.rglob("*") if p.is_file())
    assert total < 5_000_000, total
    assert (SAMPLE / "foreign.json.gz").stat().st_size < 1_250_000
    assert (SAMPLE / "cards-2019.json.gz").stat().st_size < 2_500_000


@pytest.mark.parametrize("name", GZ_FILES)
def test_bulk_file_format(name: str) -> None:
    blob = (SAMPLE / name).read_bytes()
    assert blob[:2] == b"\x1f\x8b"
    assert blob[4:8] == b"\x00\x00\x00\x00", "gzip mtime must be 0"
    assert not blob[3] & 0x08, "no file name in the gzip header"
    raw = gzip.decompress(blob).decode("utf-8")
    assert raw.startswith("[\n") and raw.endswith("\n]\n")
    lines = raw[2:-3].split(",\n")
    for line in lines:
        assert "\n" not in line
        obj = json.loads(line)
        assert isinstance(obj, dict)
        assert json.dumps(obj, ensure_ascii=False, separators=(",", ":")) == line
    assert len(json.loads(raw)) == len(lines)


@pytest.mark.parametrize("name", GZ_FILES)
def test_duckdb_reads_it(name: str) -> None:
    duckdb = pytest.importorskip("duckdb")
    n = duckdb.sql(f"select count(*) from read_json('{SAMPLE / name}', format='array')").fetchall()[0][0]
    assert n == len(_load(name))


def test_readme_documents_every_file() -> None:
    text = (SAMPLE / "README.md").read_text(encoding="utf-8")
    for name in GZ_FILES:
        assert name in text
    assert "synthetic" in text.lower()
    sources = (SAMPLE / "decks" / "SOURCES.md").read_text(encoding="utf-8")
    for name in DECK_FILES:
        assert name in sources


# --------------------------------------------------------------------------- cards-2019
def test_2019_shape(cards19: list[dict[str, Any]]) -> None:
    ids = [c["id"] for c in cards19]
    assert len(ids) == len(set(ids))
    for card in cards19:
        assert card["object"] == "card"
        assert re.fullmatch(r"[0-9a-f-]{36}", card["oracle_id"])
        for key in ("name", "lang", "layout", "set", "collector_number", "legalities", "type_line"):
            assert key in card
        for key in STRIPPED:
            assert key not in card, key
        for face in card.get("card_faces") or []:
            assert "image_uris" not in face and "illustration_id" not in face
    assert 2000 < len({c["oracle_id"] for c in cards19}) < 4000


def test_2019_layouts(cards19: list[dict[str, Any]]) -> None:
    per: defaultdict[str, set[str]] = defaultdict(set)
    prints: Counter[str] = Counter()
    for c in cards19:
        per[c["layout"]].add(c["oracle_id"])
        prints[c["layout"]] += 1
    for layout in LAYOUTS_2019:
        assert len(per[layout]) >= LAYOUTS_2019_SCARCE.get(layout, 3), layout
    # "all of" layouts: every card of the 2019 dump
    assert prints["flip"] == 32
    assert len(per["adventure"]) == 30
    assert len(per["meld"]) == 9 and prints["meld"] == 18
    assert len(per["split"]) == 85 and prints["split"] == 137
    assert prints["token"] + prints["double_faced_token"] + prints["emblem"] == 159


def test_2019_required_cards(cards19: list[dict[str, Any]]) -> None:
    names = _names(cards19)
    missing = [n for n in REQUIRED_2019 if n not in names]
    assert not missing


def test_2019_all_printings_of_each_oracle_id(cards19: list[dict[str, Any]]) -> None:
    by_name = Counter(c["name"] for c in cards19)
    assert by_name["Forest"] == 608 and by_name["Lightning Bolt"] == 28 and by_name["Wastes"] == 4
    assert {c["lang"] for c in cards19} > {"en", "es", "fr"}


def test_2019_text_selections(cards19: list[dict[str, Any]]) -> None:
    first: dict[str, dict[str, Any]] = {}
    for c in cards19:
        first.setdefault(c["oracle_id"], c)
    card_name = {c["name"] for c in first.values() if "card name" in _text(c)}
    deck_limit = {c["name"] for c in first.values() if "A deck can have" in _text(c)}
    assert len(card_name) == 144
    assert {"Pithing Needle", "Meddling Mage", "Cabal Therapy", "Runed Halo"} <= card_name
    assert deck_limit == {
        "Once More with Feeling",
        "Persistent Petitioners",
        "Rat Colony",
        "Relentless Rats",
        "Seven Dwarves",
        "Shadowborn Apostle",
    }
    token_makers = {
        c["oracle_id"]
        for c in cards19
        if c["set"] in ("m20", "eld") and "create" in _text(c).lower() and "token" in _text(c).lower()
    }
    assert len(token_makers) >= 60


def test_2019_split_and_meld_shapes(cards19: list[dict[str, Any]]) -> None:
    by_name = {c["name"]: c for c in cards19 if c["lang"] == "en"}
    assert [f["name"] for f in by_name["Fire // Ice"]["card_faces"]] == ["Fire", "Ice"]
    assert len(by_name["Who // What // When // Where // Why"]["card_faces"]) == 5
    parts = {p["component"] for p in by_name["Brisela, Voice of Nightmares"]["all_parts"]}
    assert parts == {"meld_part", "meld_result"}


# --------------------------------------------------------------------------- cards-2024
def test_2024(cards19: list[dict[str, Any]], cards24: list[dict[str, Any]]) -> None:
    layouts = Counter(c["layout"] for c in cards24)
    for layout in ("modal_dfc", "transform", "saga", "prototype", "adventure", "normal"):
        assert layouts[layout] >= 1, layout
    assert layouts["modal_dfc"] == 20 and layouts["transform"] == 15
    flavor = [c for c in cards24 if "flavor_name" in c or any("flavor_name" in f for f in c.get("card_faces", []))]
    assert len(flavor) == 36
    assert "Hare Apparent" in _names(cards24)  # FDN: the 2024 deck-limit card is a real object
    assert not {c["oracle_id"] for c in cards24} & {c["oracle_id"] for c in cards19}
    for card in cards24:
        for key in STRIPPED:
            assert key not in card
        assert card["set"] in ("mh3", "otj", "fdn")


# --------------------------------------------------------------------------- cards-2025-trimmed
def test_2025_trimmed(
    cards19: list[dict[str, Any]], cards24: list[dict[str, Any]], cards25: list[dict[str, Any]]
) -> None:
    names = _names(cards25)
    assert set(REQUIRED_2025) <= names
    assert not names & (_names(cards19) | _names(cards24))
    for i, card in enumerate(cards25, 1):
        oid = str(uuid.uuid5(uuid.NAMESPACE_URL, "oracle-tools-trimmed-2025:" + card["name"]))
        assert card["oracle_id"] == oid
        assert card["id"] == str(uuid.uuid5(uuid.NAMESPACE_URL, f"oracle-tools-trimmed-2025:{card['name']}:printing"))
        assert card["object"] == "card" and card["lang"] == "en"
        assert card["set"] == "oracle-tools-2025" and card["collector_number"] == str(i)
        assert card["released_at"] == "2025-09-25" and card["games"] == ["paper"]
        assert set(card["legalities"]) == {"commander"}
    by_name = {c["name"]: c for c in cards25}
    assert by_name["Nazgûl"]["cmc"] == 3 and by_name["Nazgûl"]["colors"] == ["B"]
    assert by_name["Disa the Restless"]["colors"] == ["B", "G", "R"]
    assert by_name["Urza's Saga"]["layout"] == "saga"
    assert by_name["Sejiri Shelter // Sejiri Glacier"]["layout"] == "modal_dfc"
    deck_limit = {c["name"] for c in cards25 if "A deck can have" in _text(c)}
    assert deck_limit == {
        "Cid, Timeless Artificer",
        "Dragon's Approach",
        "Nazgûl",
        "Slime Against Humanity",
        "Templar Knight",
        "Tempest Hawk",
    }


# --------------------------------------------------------------------------- alternate-names
def test_alternate_names(
    cards19: list[dict[str, Any]],
    cards24: list[dict[str, Any]],
    cards25: list[dict[str, Any]],
    alternate: list[dict[str, Any]],
) -> None:
    mod = _load_script()
    # CR 201.3: Through the Omenpaths printings of Spider-Man Oracle cards, their own name in printed_name
    om1 = {c["printed_name"]: c["name"] for c in alternate if c["set"] == "om1"}
    assert om1 == {
        "Ruzic, Booed but Victorious": "Ultimate Green Goblin",
        "Kumonosu, the Watchful": "SP//dr, Piloted by Peni",
        "Ademi of the Silkchutes": "Spectacular Spider-Man",
        "Kavaero, Mind-Bitten": "Superior Spider-Man",
    }
    assert all(c["lang"] == "en" and "flavor_name" not in c for c in alternate if c["set"] == "om1")
    # CR 201.6: flavor names, The Ozolith with two of them
    flavor = sorted(
        (c["name"], c["flavor_name"], c["set"], c["collector_number"]) for c in alternate if "flavor_name" in c
    )
    assert flavor == [
        ("Dismember", "'Tis But a Scratch!", "sld", "1674"),
        ("Light Up the Stage", "A Promise Fulfilled", "fca", "39"),
        ("The Ozolith", "Adamantium Bonding Tank", "sld", "1741"),
        ("The Ozolith", "Argonath, Pillars of the Kings", "ltc", "381z"),
    ]
    assert len(alternate) == len(mod.ALTERNATE_NAMES) == 8
    for card in alternate:
        for key in STRIPPED:
            assert key not in card
    # an Oracle name of these printings never names another card of the sample
    others = {c["name"]: c["oracle_id"] for c in cards19 + cards24 + cards25}
    assert all(others.get(c["name"], c["oracle_id"]) == c["oracle_id"] for c in alternate)
    assert {"Dismember", "Light Up the Stage"} <= others.keys()


@pytest.mark.realdata
def test_alternate_names_are_cut_from_the_shared_file(realdata: Path, alternate: list[dict[str, Any]]) -> None:
    mod = _load_script()
    shared = {c["id"]: c for c in mod.read_bulk(realdata / mod.SRC_ALTERNATE)}
    for card in alternate:
        assert card == mod.strip_card(shared[card["id"]])


# --------------------------------------------------------------------------- foreign, rulings
def test_foreign(cards19: list[dict[str, Any]], cards24: list[dict[str, Any]], foreign: list[dict[str, Any]]) -> None:
    real_oids = {c["oracle_id"] for c in cards19 + cards24}
    assert {f["lang"] for f in foreign} == FOREIGN_LANGS
    assert {f["oracle_id"] for f in foreign} <= real_oids
    assert len({f["id"] for f in foreign}) == len(foreign)
    for name in (
        "Lightning Bolt",
        "Fire // Ice",
        "Tarmogoyf",
        "Delver of Secrets // Insectile Aberration",
        "Bonecrusher Giant // Stomp",
    ):
        assert {f["lang"] for f in foreign if f["name"] == name} == FOREIGN_LANGS, name
    assert sum(f["name"] == "Lightning Bolt" for f in foreign) > 5
    # the rest: at most one printing per (oracle_id, lang)
    pairs = Counter((f["oracle_id"], f["lang"]) for f in foreign if f["name"] == "Abrupt Decay")
    assert pairs and max(pairs.values()) == 1


def test_rulings(cards19: list[dict[str, Any]], cards24: list[dict[str, Any]], rulings: list[dict[str, Any]]) -> None:
    real_oids = {c["oracle_id"] for c in cards19 + cards24}
    keys = set()
    for r in rulings:
        assert list(r) == ["object", "oracle_id", "source", "published_at", "comment"]
        assert r["object"] == "ruling" and r["source"] == "wotc"
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", r["published_at"])
        assert r["oracle_id"] in real_oids and r["comment"]
        keys.add((r["oracle_id"], r["published_at"], r["comment"]))
    assert len(keys) == len(rulings) > 3000
    goyf = next(c["oracle_id"] for c in cards19 if c["name"] == "Tarmogoyf")
    assert any(r["oracle_id"] == goyf for r in rulings)


# --------------------------------------------------------------------------- decks
def test_every_deck_card_resolves(
    cards19: list[dict[str, Any]], cards24: list[dict[str, Any]], cards25: list[dict[str, Any]]
) -> None:
    mod = _load_script()
    index = mod.NameIndex(cards19 + cards24 + cards25)
    unresolved = []
    for name in DECK_FILES:
        for card in mod.parse_deck_names(SAMPLE / "decks" / name):
            if not index.lookup(card):
                unresolved.append((name, card))
    assert not unresolved


def test_vintage_deck_has_restricted_card() -> None:
    doc = json.loads((SAMPLE / "decks" / "23372_vintage_romancing-the-stones-15.json").read_text(encoding="utf-8"))
    names = {e["name"] for d in doc["decks"] for e in d["mainboard"]}
    assert {"Black Lotus", "Ancestral Recall"} <= names


# --------------------------------------------------------------------------- regeneration
@pytest.mark.realdata
def test_decks_are_byte_copies(realdata: Path) -> None:
    mod = _load_script()
    for target, source, _fmt, _why in mod.DECKS:
        assert (SAMPLE / "decks" / target).read_bytes() == (realdata / "decks" / source).read_bytes()


@pytest.mark.realdata
def test_script_reproduces_sample(realdata: Path, tmp_path: Path) -> None:
    out = tmp_path / "sample"
    subprocess.run(
        [sys.executable, str(SCRIPT), "--realdata", str(realdata), "--out", str(out), "--quiet"],
        check=True,
        cwd=tmp_path,
    )
    generated = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    shipped = sorted(p.relative_to(SAMPLE).as_posix() for p in SAMPLE.rglob("*") if p.is_file())
    shipped.remove("README.md")  # hand-written, not generated
    assert generated == shipped
    for rel in generated:
        assert (out / rel).read_bytes() == (SAMPLE / rel).read_bytes(), rel
