#!/usr/bin/env python3
"""Cut the embedded sample ``oracle_tools/data/sample/`` out of the real data in ``../shared/realdata``.

Usage::

    python scripts/make_sample.py [--realdata ../shared/realdata] [--out oracle_tools/data/sample]
    python scripts/make_sample.py --trimmed-to-cards TRIMMED.json.gz OUT.json.gz   # a whole trimmed list, converted

Deterministic: no clocks, no unordered iteration, seeded randomness (seed 20191004) and gzip
with ``mtime=0`` and no file name in the header, so re-running gives byte-identical files.
Every ``.json.gz`` is written like a Scryfall bulk file: ``[``, one compact JSON object per line
joined by ``,\\n``, ``]``.

What is written and how it is selected
--------------------------------------
``decks/``
    Byte-for-byte copies of eight real decklists (``DECKS`` below) plus a generated
    ``decks/SOURCES.md``.  Their card names are resolved (exact name, face names, ``A/B`` ->
    ``A // B``, accents and case folded) and the cards go into the card files below.

``cards-2019.json.gz``  (``scryfall-default-cards-2019-10-per-set-dump.json.gz``)
    Real Scryfall card objects, bulky fields stripped (``strip_card``), ALL printings (every
    language in the dump) of each selected oracle_id.  Selected oracle_ids are the union of:

    * every oracle card of layout split (incl. aftermath and Who // What // When // Where // Why),
      flip, adventure and meld, and every token / double_faced_token / emblem object;
    * at least ``MIN_PER_LAYOUT`` oracle cards of every other layout (first ones by name);
    * the hand-picked ``NAMED_CARDS`` (basics, snow basics and Wastes included);
    * named-token creators: Oracle text ``create <Name>, a legendary ...`` (all of them) plus
      ``NAMED_TOKEN_CREATORS`` plus the first ones by name of the "token that's a copy"
      cards, ``TOKEN_CREATOR_TARGET`` in all;
    * every card whose Oracle text (incl. faces) contains ``card name`` or ``A deck can have``;
    * every card of the sets ``TOKEN_SETS`` whose Oracle text contains "create" and "token";
    * every card named by the copied decks;
    * ``RANDOM_2019`` further oracle_ids drawn with ``random.Random(SEED)``.

``cards-2024.json.gz``  (``scryfall-search-2024-mh3-otj-fdn.json.gz``)
    Every printing of oracle_ids with layout modal_dfc / transform / saga / prototype / adventure,
    with a ``flavor_name`` anywhere (top level or faces) or with "A deck can have"; deck cards and
    named examples absent from the 2019 dump; and ``RANDOM_2024`` seeded-random normal cards whose
    oracle_id is not in the 2019 dump.

``cards-2025-trimmed.json.gz``  (``scryfall-commander-legal-trimmed-20250925.json.gz``)
    Cards absent from both real card samples: ``TRIMMED_2025_NAMES``, named cards missing from
    2019, every "A deck can have" card and deck cards.  The trimmed file has no ids, so
    Scryfall-shaped objects are BUILT (``trimmed_to_card``) with SYNTHETIC uuid5 ids.

``alternate-names.json.gz``  (``scryfall-shaped-2025-alternate-names.json.gz``, Scryfall-shaped, partly synthetic)
    The printings carrying the names in ``ALTERNATE_NAMES`` (a ``printed_name`` of a Through the
    Omenpaths printing: CR 201.3 interchangeable names; a ``flavor_name``: CR 201.6 alternate names),
    stripped like the others, in the source's order. Their Oracle names must not name another card
    of the sample (checked).

``foreign.json.gz``  (``scryfall-foreign-printings-from-mtgjson-2022.json.gz``, itself synthetic)
    Languages de/fr/es/it/ja for the oracle_ids of the two real card files: every printing for
    ``FOREIGN_ALL_PRINTINGS`` cards, otherwise the first (earliest) printing per (oracle_id, lang);
    the seeded-random breadth cards get one language only (``random_lang``), to stay ~1 MB.

``rulings.json.gz``  (``mtgjson-v5-AllPrintings-20220425.json.gz``)
    Scryfall-shaped ruling objects built from MTGJSON card ``rulings`` for the same oracle_ids,
    deduplicated per (oracle_id, date, text); ``source`` is always "wotc" (MTGJSON has none).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import random
import re
import shutil
import sys
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec  # a dev dependency (pyproject), as this script is a dev tool

from oracle_tools.store.synthetic_ids import trimmed_oracle_id, trimmed_printing_id

REPO = Path(__file__).resolve().parents[1]
SEED = 20191004

SRC_2019 = "scryfall-default-cards-2019-10-per-set-dump.json.gz"
SRC_2024 = "scryfall-search-2024-mh3-otj-fdn.json.gz"
SRC_2025 = "scryfall-commander-legal-trimmed-20250925.json.gz"
SRC_FOREIGN = "scryfall-foreign-printings-from-mtgjson-2022.json.gz"
SRC_MTGJSON = "mtgjson-v5-AllPrintings-20220425.json.gz"
SRC_ALTERNATE = "scryfall-shaped-2025-alternate-names.json.gz"

MIN_PER_LAYOUT = 3
ALL_OF_LAYOUTS = ("split", "flip", "adventure", "meld")
TOKEN_LAYOUTS = ("token", "double_faced_token", "emblem")
TOKEN_SETS = ("m20", "eld")
RANDOM_2019 = 1500
RANDOM_2024 = 100
TOKEN_CREATOR_TARGET = 15
FOREIGN_LANGS = ("de", "fr", "es", "it", "ja")

# Hand-picked cards (exact Oracle names; faces are fine).  Missing ones are reported, not fatal.
NAMED_CARDS = (
    "Tarmogoyf",
    "Disa the Restless",
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
    "Dragon's Approach",
    "Squadron Hawk",
    "Howling Wolf",
    "Lightning Bolt",
    "Fire // Ice",
    "Lim-Dûl's Vault",
    "Aether Vial",
    "Æther Vial",
    "Jötun Grunt",
    "Brisela, Voice of Nightmares",
    "Bruna, the Fading Light",
    "Gisela, the Broken Blade",
    "Delver of Secrets",
    "Kytheon, Hero of Akros",
    "Bushi Tenderfoot",
    "Giant Killer",
    "Bonecrusher Giant",
    "Brazen Borrower",
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
    "Urza's Saga",
    "Krenko, Mob Boss",
    "Young Pyromancer",
    "Tendershoot Dryad",
    "Academy Manufactor",
    "Smothering Tithe",
    "Tireless Tracker",
    "Kolaghan's Command",
    "Ajani's Pridemate",
    "Thalia, Guardian of Thraben",
    "Kenrith, the Returned King",
    "Korvold, Fae-Cursed King",
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
    # Treasure / Food / Clue / Gold token makers
    "Pirate's Pillage",
    "Revel in Riches",
    "Gilded Goose",
    "Bake into a Pie",
    "Tamiyo's Journal",
    "Gild",
)
# Named-token creators always taken (besides every "create <Name>, a legendary" card).
NAMED_TOKEN_CREATORS = (
    "Kiki-Jiki, Mirror Breaker",
    "Minsc & Boo, Timeless Heroes",
    "Tolsimir, Friend to Wolves",
    "Ragavan, Nimble Pilferer",
    "Jace, Cunning Castaway",
    "Hazezon Tamar",
    "Mitotic Manipulation",
    "Splinter Twin",
    "Rite of Replication",
)
# 2025-only examples (taken from the trimmed file when absent from 2019 and 2024).
TRIMMED_2025_NAMES = (
    "Nazgûl",
    "Dragon's Approach",
    "Persistent Petitioners",
    "Seven Dwarves",
    "Hare Apparent",
    "Slime Against Humanity",
    "Templar Knight",
    "Tempest Hawk",
    "Cid, Timeless Artificer",
)
# Printings cut from SRC_ALTERNATE, by the name they carry (printed_name or flavor_name).
ALTERNATE_NAMES = (
    # CR 201.3: Through the Omenpaths names of Marvel's Spider-Man Oracle cards (printed_name, lang en)
    "Ruzic, Booed but Victorious",  # Ultimate Green Goblin, om1 #153 (the example)
    "Kumonosu, the Watchful",  # SP//dr, Piloted by Peni: a single-faced name containing '//'
    "Ademi of the Silkchutes",  # Spectacular Spider-Man, om1 #1
    "Kavaero, Mind-Bitten",  # Superior Spider-Man, om1 #140
    # CR 201.6: alternate names in a secondary title bar (flavor_name)
    "'Tis But a Scratch!",  # Dismember, sld #1674 (Dismember is in cards-2019 too)
    "A Promise Fulfilled",  # Light Up the Stage, fca #39 (in cards-2019 too)
    "Adamantium Bonding Tank",  # The Ozolith, sld #1741 ...
    "Argonath, Pillars of the Kings",  # ... and ltc #381z: one card, two alternate names
)
# Cards whose foreign printings are all kept (the rest: one printing per language).
FOREIGN_ALL_PRINTINGS = (
    "Lightning Bolt",
    "Fire // Ice",
    "Tarmogoyf",
    "Delver of Secrets // Insectile Aberration",
    "Bonecrusher Giant // Stomp",
    "Brazen Borrower // Petty Theft",
    "Force of Will",
    "Meddling Mage",
    "Pithing Needle",
    "Dusk // Dawn",
    "Bruna, the Fading Light",
    "Gisela, the Broken Blade",
    "Brisela, Voice of Nightmares",
)

REALDATA_DECKS = "decks"
# (file name in oracle_tools/data/sample/decks, path under realdata/decks, format, why)
DECKS = (
    (
        "22901_modern_aml.json",
        "spigushe-mtg_decklist_cache/mtgtop8.com/2019/08/23/22901_modern_aml.json",
        "Modern",
        "smallest 2019 Modern file (2 decks)",
    ),
    (
        "23176_legacy_grand-prix-atlanta.json",
        "spigushe-mtg_decklist_cache/mtgtop8.com/2019/09/21/23176_legacy_grand-prix-atlanta.json",
        "Legacy",
        "smallest 2019 Legacy file (GP Atlanta top 8)",
    ),
    (
        "23372_vintage_romancing-the-stones-15.json",
        "spigushe-mtg_decklist_cache/mtgtop8.com/2019/10/12/23372_vintage_romancing-the-stones-15.json",
        "Vintage",
        "restricted cards: Black Lotus, Ancestral Recall, Time Walk, Mana Crypt, Sol Ring",
    ),
    (
        "22963_pauper_pauper-1k.json",
        "spigushe-mtg_decklist_cache/mtgtop8.com/2019/09/01/22963_pauper_pauper-1k.json",
        "Pauper",
        "smallest 2019 Pauper file (8 decks)",
    ),
    (
        "22743_standard_monthly.json",
        "spigushe-mtg_decklist_cache/mtgtop8.com/2019/08/11/22743_standard_monthly.json",
        "Standard",
        "smallest 2019 Standard file (2 decks)",
    ),
    (
        "22643_duel-commander_lgs-dc-event.json",
        "spigushe-mtg_decklist_cache/mtgtop8.com/2019/07/25/22643_duel-commander_lgs-dc-event.json",
        "Duel Commander",
        "smallest 2019 Duel Commander file (2 decks; commander in sideboard)",
    ),
    (
        "rationelis_22650379_edwin_van_der_elessar.txt",
        "rationelis-mtg-decks/decks/22650379_edwin_van_der_elessar.txt",
        "Commander",
        "player-built; split cards as first half ('Fire', 'Wear'), MDFC front 'Sejiri Shelter', accents",
    ),
    (
        "rationelis_precon_quick_draw.txt",
        "rationelis-mtg-decks/precons/quick_draw.txt",
        "Commander",
        "unmodified OTJ precon Quick Draw; CRLF line endings",
    ),
)
DECK_REPOS = {
    "spigushe-mtg_decklist_cache": "Spigushe/mtg_decklist_cache @ 14c969dbe492fbb12907869485cd57afcf0ed269",
    "rationelis-mtg-decks": "rationelis/mtg-decks @ 0282fadec15aa1ff8538ab20141a7294ed50c2d5",
}

DROP_CARD_KEYS = {"prices", "highres_image", "illustration_id"}
DROP_FACE_KEYS = {"image_uris", "illustration_id"}

TRIMMED_SET = "oracle-tools-2025"
TRIMMED_SET_NAME = "Commander-legal list 2025-09-25 (trimmed)"
TRIMMED_RELEASED = "2025-09-25"


# --------------------------------------------------------------------------- I/O helpers
def read_bulk(path: Path) -> list[dict[str, Any]]:
    """The objects of a bulk file, decoded by msgspec (the same values as json.load, in a third less time)."""
    with gzip.open(path, "rb") as fh:
        objects: list[dict[str, Any]] = msgspec.json.decode(fh.read())
    return objects


def iter_bulk_lines(path: Path) -> Iterator[bytes]:
    """Yield the object lines of a one-object-per-line bulk file (without the trailing comma), as the file's
    UTF-8 bytes: most lines are skipped by a look at two fields, so none is decoded as a whole first."""
    with gzip.open(path, "rb") as fh:
        for line in fh:
            line = line.rstrip(b"\n")
            if line in (b"[", b"]", b""):
                continue
            yield line.removesuffix(b",")


def dump_bulk(objects: Iterable[dict[str, Any]]) -> bytes:
    lines = [json.dumps(o, ensure_ascii=False, separators=(",", ":")) for o in objects]
    return ("[\n" + ",\n".join(lines) + "\n]\n").encode("utf-8")


def write_gz(path: Path, data: bytes) -> None:
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(data)
    path.write_bytes(buf.getvalue())


# --------------------------------------------------------------------------- card helpers
def strip_card(card: dict[str, Any]) -> dict[str, Any]:
    """Drop image/price/URI fields; keep every other field (and its order) exactly."""
    out = {}
    for key, value in card.items():
        if key in DROP_CARD_KEYS or key == "uri" or key.endswith(("_uri", "_uris")):
            continue
        if key == "card_faces":
            value = [{k: v for k, v in face.items() if k not in DROP_FACE_KEYS} for face in value]
        out[key] = value
    return out


def oracle_text(card: dict[str, Any]) -> str:
    parts = [card.get("oracle_text") or ""]
    parts += [face.get("oracle_text") or "" for face in card.get("card_faces") or []]
    return "\n".join(parts)


def fold(name: str) -> str:
    """Case/accent-insensitive key: 'Lim-Dul's Vault' == 'Lim-Dûl's Vault', 'Æther' == 'Aether'."""
    name = name.replace("Æ", "Ae").replace("æ", "ae")
    name = unicodedata.normalize("NFKD", name)
    name = "".join(ch for ch in name if not unicodedata.combining(ch))
    name = re.sub(r"\s*/{1,2}\s*", " // ", name)  # "Wear/Tear" -> "Wear // Tear"
    return " ".join(name.casefold().split())


class NameIndex:
    """Maps folded full names and face names to oracle_ids (full names win over faces)."""

    def __init__(self, cards: Iterable[dict[str, Any]]):
        self.full: dict[str, set[str]] = defaultdict(set)
        self.face: dict[str, set[str]] = defaultdict(set)
        for card in cards:
            oid = card.get("oracle_id") or card["name"]
            self.full[fold(card["name"])].add(oid)
            for face in card.get("card_faces") or []:
                self.face[fold(face["name"])].add(oid)
            if " // " in card["name"]:
                for part in card["name"].split(" // "):
                    self.face[fold(part)].add(oid)

    def lookup(self, name: str) -> set[str]:
        key = fold(name)
        return set(self.full.get(key) or self.face.get(key) or ())


# --------------------------------------------------------------------------- decks
def parse_deck_names(path: Path) -> list[str]:
    """Card names of a Spigushe JSON file (main + side of every deck) or an 'N Name' text list."""
    if path.suffix == ".json":
        doc = json.loads(path.read_text(encoding="utf-8"))
        return [entry["name"] for deck in doc["decks"] for entry in deck["mainboard"] + deck["sideboard"]]
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\s*(\d+)\s+(.+?)\s*$", line)
        if match:
            names.append(match.group(2))
    return names


def copy_decks(realdata: Path, out: Path) -> list[str]:
    deck_dir = out / "decks"
    deck_dir.mkdir(parents=True, exist_ok=True)
    names: list[str] = []
    rows = []
    for target, source, fmt, why in DECKS:
        src = realdata / REALDATA_DECKS / source
        shutil.copyfile(src, deck_dir / target)
        deck_names = parse_deck_names(src)
        names += deck_names
        n_decks = len(json.loads(src.read_text(encoding="utf-8"))["decks"]) if src.suffix == ".json" else 1
        repo_key = source.split("/", 1)[0]
        rows.append(
            f"| `{target}` | {fmt} | {n_decks} | {src.stat().st_size} | {DECK_REPOS[repo_key]} | "
            f"`{source.split('/', 1)[1]}` | {why} |"
        )
    (deck_dir / "SOURCES.md").write_text(
        DECKS_SOURCES_HEADER + "\n".join(rows) + "\n" + DECKS_SOURCES_FOOTER, encoding="utf-8"
    )
    return sorted(set(names))


DECKS_SOURCES_HEADER = """\
# Sample decklists: sources

Generated by `scripts/make_sample.py`. Every deck file here is a **byte-for-byte copy** of a file from
`../shared/realdata/decks/` (see `SOURCES.md` and `MANIFEST.tsv` there), which in turn are byte-for-byte copies
from the public GitHub repositories below. Nothing was edited: original spellings (`Wear/Tear`, front-face-only
names, first-half-only split names, CRLF endings) are kept on purpose for parser tests.

| file | format | decks | bytes | repository @ commit | original path | why chosen |
|---|---|---|---|---|---|---|
"""
DECKS_SOURCES_FOOTER = """
Formats of the files:
- `*.json` (Spigushe/mtg_decklist_cache, scraped from mtgtop8.com): `{"tournament": {date, name, url, format, players},
  "decks": [{date, player, result, anchor_uri, mainboard: [{count, name}], sideboard: [{count, name}], notes}],
  "rounds": [], "standings": []}`. Split cards are written `A/B`, DFC/adventure cards by the front face only.
  **Duel Commander: the commander is the `sideboard`** (mainboard 99).
- `rationelis_*.txt` (Archidekt text export): one `N Card Name` per line, 100 cards, **commander on the first
  line**, no sections, no sideboard; split cards as first half only (`Fire`, `Wear`), MDFC front face only.

Every card these decks name is in the sample card files (`cards-2019.json.gz`, else `cards-2024.json.gz`, else
`cards-2025-trimmed.json.gz`); `tests/test_sample.py` checks that they all resolve.
"""


# --------------------------------------------------------------------------- 2019 selection
NAMED_LEGENDARY_TOKEN = re.compile(r"\bcreate [A-Z][^.\n]*?, an? legendary\b", re.IGNORECASE)
COPY_TOKEN = re.compile(r"\bcreate (?:a|two|X) tokens? that(?:'s| are) (?:a )?cop", re.IGNORECASE)


def select_2019(
    cards: list[dict[str, Any]], index: NameIndex, deck_names: list[str], report: dict[str, Any]
) -> tuple[set[str], set[str]]:
    """Return (selected oracle_ids, the seeded-random part of them)."""
    first: dict[str, dict[str, Any]] = {}
    for card in cards:  # first English printing per oracle_id represents the oracle card
        if card["oracle_id"] not in first or (first[card["oracle_id"]]["lang"] != "en" and card["lang"] == "en"):
            first[card["oracle_id"]] = card
    by_name = sorted(first.values(), key=lambda c: (c["name"], c["oracle_id"]))
    chosen: dict[str, set[str]] = defaultdict(set)  # reason -> oracle_ids

    for card in cards:
        if card["layout"] in ALL_OF_LAYOUTS or card["layout"] in TOKEN_LAYOUTS:
            chosen["layout:" + card["layout"]].add(card["oracle_id"])

    missing = []
    for name in NAMED_CARDS:
        oids = index.lookup(name)
        chosen["named"] |= oids
        if not oids:
            missing.append(name)

    creators = {c["oracle_id"] for c in by_name if NAMED_LEGENDARY_TOKEN.search(oracle_text(c))}
    for name in NAMED_TOKEN_CREATORS:
        oids = index.lookup(name)
        creators |= oids
        if not oids:
            missing.append(name)
    report["named_missing_2019"] = missing
    for card in by_name:
        if len(creators) >= TOKEN_CREATOR_TARGET:
            break
        if COPY_TOKEN.search(oracle_text(card)):
            creators.add(card["oracle_id"])
    chosen["named_token_creators"] = creators

    for card in by_name:
        text = oracle_text(card)
        if "card name" in text:
            chosen["text:card name"].add(card["oracle_id"])
        if "A deck can have" in text:
            chosen["text:A deck can have"].add(card["oracle_id"])
    for card in cards:
        text = oracle_text(card).lower()
        if card["set"] in TOKEN_SETS and "create" in text and "token" in text:
            chosen["token_sets"].add(card["oracle_id"])

    unresolved = []
    for name in deck_names:
        oids = index.lookup(name)
        chosen["decks"] |= oids
        if not oids:
            unresolved.append(name)
    report["deck_names_not_in_2019"] = unresolved

    selected = set().union(*chosen.values())
    for layout in sorted({c["layout"] for c in by_name}):
        have = sum(1 for oid in selected if first[oid]["layout"] == layout)
        for card in by_name:
            if have >= MIN_PER_LAYOUT:
                break
            if card["layout"] == layout and card["oracle_id"] not in selected:
                selected.add(card["oracle_id"])
                chosen["layout_min"].add(card["oracle_id"])
                have += 1

    rest = sorted(set(first) - selected)
    chosen["random"] = set(random.Random(SEED).sample(rest, RANDOM_2019))
    selected |= chosen["random"]
    report["reasons_2019"] = {k: len(v) for k, v in sorted(chosen.items())}
    return selected, chosen["random"]


# --------------------------------------------------------------------------- 2024 selection
def has_flavor_name(card: dict[str, Any]) -> bool:
    return "flavor_name" in card or any("flavor_name" in f for f in card.get("card_faces") or [])


def select_2024(
    cards: list[dict[str, Any]], oracle_2019: set[str], wanted: list[str], report: dict[str, Any]
) -> set[str]:
    """Layout / flavor_name showcases, 'A deck can have' cards, the ``wanted`` names that the 2019
    dump lacks (deck cards, named examples) and RANDOM_2024 new normal cards."""
    layouts = {"modal_dfc", "transform", "saga", "prototype", "adventure"}
    selected = {
        c["oracle_id"]
        for c in cards
        if c["layout"] in layouts or has_flavor_name(c) or "A deck can have" in oracle_text(c)
    }
    index = NameIndex(cards)
    for name in wanted:
        selected |= index.lookup(name)
    normals = sorted(
        {c["oracle_id"] for c in cards if c["layout"] == "normal" and c["oracle_id"] not in oracle_2019} - selected
    )
    selected |= set(random.Random(SEED).sample(normals, RANDOM_2024))
    return selected


# --------------------------------------------------------------------------- 2025 trimmed
MANA_SYMBOL = re.compile(r"\{([^}]+)\}")


def mana_value(cost: str | None) -> float:
    total = 0.0
    for sym in MANA_SYMBOL.findall(cost or ""):
        parts = sym.split("/")
        if sym.isdigit():
            total += int(sym)
        elif sym in ("X", "Y", "Z"):
            continue
        elif sym in ("½", "HW", "HR"):
            total += 0.5
        elif len(parts) == 2 and parts[0].isdigit():  # {2/W}
            total += int(parts[0])
        else:  # {W}, {C}, {S}, {W/U}, {W/P}, {G/U/P}
            total += 1
    return total


def mana_colors(cost: str | None) -> list[str]:
    found = {ch for sym in MANA_SYMBOL.findall(cost or "") for ch in sym.split("/") if ch in "WUBRG"}
    return sorted(found)


def infer_layout(card: dict[str, Any]) -> str:
    faces = card.get("card_faces") or []
    if not faces:
        return "saga" if re.search(r"\bSaga\b", card.get("type_line") or "") else "normal"
    # an Adventure (CR 715) or an Omen (CR 720): one frame with an inset spell, which Scryfall labels "adventure"
    if any(re.search(r"—.*\b(?:Adventure|Omen)\b", f.get("type_line") or "") for f in faces[1:]):
        return "adventure"
    if card.get("mana_cost") is not None:  # one-sided card with several halves
        return "split"
    text = oracle_text(card).lower()
    if any(w in text for w in ("transform", "daybound", "nightbound", "disturb")):
        return "transform"
    return "modal_dfc"


_MELDS_INTO = re.compile(r"\bthen meld them into (?P<result>[^.\n]+?)\.")
_MELDS_WITH = re.compile(r"\(Melds with (?P<other>[^.\n)]+?)\.\)")


def meld_parts(records: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """name -> Scryfall's ``all_parts`` of each card of a meld pair and of its meld result, read from the trimmed list's
    text, which has no layout: the part that melds says "then meld them into [result]", its mate "(Melds with [part].)"
    (CR 712.4). Scryfall writes all three as layout "meld" with these parts; the ingest reads the result's role from
    them, so a deck cannot hold the result (712.4b)."""
    by_name = {r["name"]: r for r in records}
    mates = {m.group("other"): r["name"] for r in by_name.values() if (m := _MELDS_WITH.search(oracle_text(r)))}
    out: dict[str, list[dict[str, Any]]] = {}
    for name, record in by_name.items():
        into = _MELDS_INTO.search(oracle_text(record))
        if into is None or into.group("result") not in by_name or mates.get(name) not in by_name:
            continue
        trio = [(name, "meld_part"), (mates[name], "meld_part"), (into.group("result"), "meld_result")]
        parts = [
            {
                "object": "related_card",
                "id": trimmed_printing_id(n),
                "component": component,
                "name": n,
                "type_line": by_name[n]["type_line"],
            }
            for n, component in trio
        ]
        for n, _ in trio:
            out[n] = parts
    return out


def trimmed_to_card(
    src: dict[str, Any],
    number: int,
    known_ids: dict[str, str] | None = None,
    melds: dict[str, list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """Build a Scryfall-shaped card object (SYNTHETIC ids) from a trimmed 2025 record; ``known_ids`` (name -> real
    Oracle id, :func:`real_oracle_ids`) gives the card its real Oracle id where another file has it; ``melds``
    (:func:`meld_parts` of the whole list) makes a meld pair's cards and its result meld objects."""
    name = src["name"]
    # SYNTHETIC ids (oracle_tools/store/synthetic_ids.py), unless another file has the card's real Oracle id
    oracle_id = (known_ids or {}).get(name) or trimmed_oracle_id(name)
    card_id = trimmed_printing_id(name)
    meld = (melds or {}).get(name)
    layout = "meld" if meld else infer_layout(src)
    faces = src.get("card_faces") or []
    mana_cost = src.get("mana_cost")
    if layout == "split":
        cmc = sum(mana_value(f.get("mana_cost")) for f in faces)
    elif faces:
        cmc = mana_value(faces[0].get("mana_cost"))
    else:
        cmc = mana_value(mana_cost)
    card: dict[str, Any] = {
        "object": "card",
        "id": card_id,
        "oracle_id": oracle_id,
        "name": name,
        "lang": "en",
        "released_at": TRIMMED_RELEASED,
        "layout": layout,
    }
    if mana_cost is not None:
        card["mana_cost"] = mana_cost
    card["cmc"] = cmc
    card["type_line"] = src["type_line"]
    for key in ("oracle_text", "power", "toughness"):
        if src.get(key) is not None:
            card[key] = src[key]
    if mana_cost is not None:
        card["colors"] = mana_colors(mana_cost)  # alphabetical, as Scryfall sorts them
    card["color_identity"] = src["color_identity"]
    if faces:
        card["card_faces"] = faces
    card["legalities"] = {"commander": src["legal_in_commander"]}
    card["games"] = ["paper"]
    card["set"] = TRIMMED_SET
    card["set_name"] = TRIMMED_SET_NAME
    card["collector_number"] = str(number)
    if meld:
        card["all_parts"] = meld
    return card


def select_2025(
    trimmed: list[dict[str, Any]],
    names_2019: NameIndex,
    names_2024: NameIndex,
    wanted: list[str],
    report: dict[str, Any],
) -> list[dict[str, Any]]:
    """``wanted`` names and every 'A deck can have' card, unless the real samples have them."""
    index = NameIndex(trimmed)
    by_name = {c["name"]: c for c in trimmed}
    wanted = wanted + [c["name"] for c in trimmed if "A deck can have" in oracle_text(c)]
    picked: set[str] = set()
    absent = []
    for name in wanted:
        if names_2019.lookup(name) or names_2024.lookup(name):
            continue  # real card objects exist; do not duplicate with synthetic ids
        hits = index.lookup(name)
        if not hits:
            absent.append(name)
        picked |= hits
    report["absent_everywhere"] = sorted(set(absent))
    chosen = sorted(picked, key=lambda n: (fold(n), n))
    melds = meld_parts(trimmed)  # CR 712.4b: a meld result is no card
    return [trimmed_to_card(by_name[name], i, melds=melds) for i, name in enumerate(chosen, 1)]


# --------------------------------------------------------------------------- alternate names
def select_alternate(
    cards: list[dict[str, Any]], others: list[dict[str, Any]], report: dict[str, Any]
) -> list[dict[str, Any]]:
    """The printings carrying ``ALTERNATE_NAMES``, in source order; each name must be found once and
    the Oracle names must not belong to another oracle_id of the sample."""
    wanted = set(ALTERNATE_NAMES)
    picked = [strip_card(c) for c in cards if (c.get("printed_name") or c.get("flavor_name")) in wanted]
    found = [c.get("printed_name") or c["flavor_name"] for c in picked]  # picked: one of the two is wanted
    if sorted(found) != sorted(wanted):
        raise SystemExit(f"{SRC_ALTERNATE}: expected each of {sorted(wanted)} once, found {sorted(found)}")
    known = {c["name"]: c["oracle_id"] for c in others}
    clash = sorted(c["name"] for c in picked if known.get(c["name"], c["oracle_id"]) != c["oracle_id"])
    if clash:
        raise SystemExit(f"{SRC_ALTERNATE}: {clash} name other cards of the sample (different oracle_id)")
    report["alternate_names"] = {
        "printings": len(picked),
        "oracle_ids": len({c["oracle_id"] for c in picked}),
        "new_oracle_ids": len({c["oracle_id"] for c in picked if c["name"] not in known}),
    }
    return picked


# --------------------------------------------------------------------------- foreign + rulings
ORACLE_ID_FIELD = re.compile(rb'"oracle_id":"([0-9a-f-]{36})"')
LANG_FIELD = re.compile(rb'"lang":"([^"]*)"')


def random_lang(oracle_id: str) -> str:
    """The one language kept for a seeded-random oracle card (rotates with the oracle_id)."""
    return FOREIGN_LANGS[int(oracle_id.replace("-", ""), 16) % len(FOREIGN_LANGS)]


def select_foreign(path: Path, oracle_ids: set[str], all_prints: set[str], one_lang: set[str]) -> list[dict[str, Any]]:
    """Printings in FOREIGN_LANGS: all of them for ``all_prints``; else the first per (oracle_id,
    lang), and for ``one_lang`` (the random breadth sample) only in ``random_lang(oracle_id)``."""
    out = []
    seen: set[tuple[str, str]] = set()
    for line in iter_bulk_lines(path):
        match = ORACLE_ID_FIELD.search(line)
        oracle_id = match.group(1).decode() if match else ""
        if oracle_id not in oracle_ids:
            continue
        langs = [lang.decode() for lang in LANG_FIELD.findall(line)]  # most lines are a language not kept
        if len(langs) == 1 and (
            langs[0] not in FOREIGN_LANGS or (oracle_id in one_lang and langs[0] != random_lang(oracle_id))
        ):
            continue
        obj = json.loads(line)
        key = (obj["oracle_id"], obj["lang"])
        if obj["lang"] not in FOREIGN_LANGS:
            continue
        if obj["oracle_id"] in one_lang and obj["lang"] != random_lang(obj["oracle_id"]):
            continue
        if obj["oracle_id"] in all_prints or key not in seen:
            seen.add(key)
            out.append(obj)
    return out


#: Where each set of an AllPrintings file begins: its code, then its object, whose first (sorted) key is baseSetSize.
MTGJSON_SET_START = re.compile(rb'[{,]"([A-Z0-9_]+)":\{"baseSetSize"')


class MtgjsonRuling(msgspec.Struct):
    date: str
    text: str


class MtgjsonIdentifiers(msgspec.Struct):
    scryfallOracleId: str | None = None  # MTGJSON's own key


class MtgjsonCard(msgspec.Struct):
    """The two fields of an MTGJSON card the rulings are built from (msgspec skips the others unparsed)."""

    identifiers: MtgjsonIdentifiers = msgspec.field(default_factory=MtgjsonIdentifiers)
    rulings: list[MtgjsonRuling] | None = None


class MtgjsonSet(msgspec.Struct):
    cards: list[MtgjsonCard] = msgspec.field(default_factory=list)


def iter_mtgjson_sets(path: Path) -> Iterator[tuple[str, list[tuple[str | None, list[tuple[str, str]]]]]]:
    """(code, [(Scryfall oracle id, [(date, text) of each ruling]) of each card]) of an AllPrintings file, one set
    decoded at a time: the whole file parsed at once takes about 1.5 GB of memory, one set at a time a few MB
    beside the compressed-away bytes. Only those two fields of a card are decoded (msgspec skips the rest
    unparsed): decoding every field of every set took most of this script's time."""
    decoder = msgspec.json.Decoder(MtgjsonSet)
    with gzip.open(path, "rb") as fh:
        raw = fh.read()
    starts = list(MTGJSON_SET_START.finditer(raw))
    for here, after in zip(starts, [*starts[1:], None], strict=True):
        chunk = raw[here.end() - len(b'{"baseSetSize"') : after.start() if after else len(raw)].rstrip()
        if after is None:  # the last set is followed by the ends of "data" and of the file's object
            assert chunk.endswith(b"}}}"), chunk[-20:]
            chunk = chunk[:-2]
        cards = decoder.decode(chunk).cards
        yield (
            here.group(1).decode(),
            [(c.identifiers.scryfallOracleId, [(r.date, r.text) for r in c.rulings or []]) for c in cards],
        )


def build_rulings(path: Path, oracle_ids: set[str]) -> list[dict[str, Any]]:
    per_set: dict[str, list[tuple[str, str, str]]] = {}
    for code, cards in iter_mtgjson_sets(path):
        per_set[code] = [(oid, date, text) for oid, rulings in cards if oid in oracle_ids for date, text in rulings]
    seen: dict[tuple[str, str, str], int] = {}
    for code in sorted(per_set):
        for key in per_set[code]:
            seen.setdefault(key, len(seen))
    order = sorted(seen, key=lambda k: (k[0], k[1], seen[k]))
    return [
        {"object": "ruling", "oracle_id": oid, "source": "wotc", "published_at": date, "comment": text}
        for oid, date, text in order
    ]


# --------------------------------------------------------------------------- main
def build(realdata: Path, out: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {}
    deck_names = copy_decks(realdata, out)

    cards19 = read_bulk(realdata / SRC_2019)
    index19 = NameIndex(cards19)
    sel19, random19 = select_2019(cards19, index19, deck_names, report)
    rows19 = [strip_card(c) for c in cards19 if c["oracle_id"] in sel19]
    write_gz(out / "cards-2019.json.gz", dump_bulk(rows19))
    oracle_2019_all = {c["oracle_id"] for c in cards19}
    del cards19

    cards24 = read_bulk(realdata / SRC_2024)
    wanted = report["deck_names_not_in_2019"] + report["named_missing_2019"] + list(TRIMMED_2025_NAMES)
    sel24 = select_2024(cards24, oracle_2019_all, wanted, report)
    rows24 = [strip_card(c) for c in cards24 if c["oracle_id"] in sel24]
    write_gz(out / "cards-2024.json.gz", dump_bulk(rows24))

    # Names already shipped as real objects (2019 or 2024 sample) are not duplicated in 2025.
    trimmed = read_bulk(realdata / SRC_2025)
    rows25 = select_2025(trimmed, NameIndex(rows19), NameIndex(rows24), wanted, report)
    write_gz(out / "cards-2025-trimmed.json.gz", dump_bulk(rows25))

    alternate = select_alternate(read_bulk(realdata / SRC_ALTERNATE), rows19 + rows24 + rows25, report)
    write_gz(out / "alternate-names.json.gz", dump_bulk(alternate))

    real_oids = sel19 | sel24
    all_prints = set()
    for name in FOREIGN_ALL_PRINTINGS:
        all_prints |= index19.lookup(name)
    foreign = select_foreign(realdata / SRC_FOREIGN, real_oids, all_prints, random19)
    write_gz(out / "foreign.json.gz", dump_bulk(foreign))

    rulings = build_rulings(realdata / SRC_MTGJSON, real_oids)
    write_gz(out / "rulings.json.gz", dump_bulk(rulings))

    def layouts(rows: list[dict[str, Any]]) -> dict[str, list[int]]:
        per: dict[str, set[str]] = defaultdict(set)
        prints: dict[str, int] = defaultdict(int)
        for r in rows:
            per[r["layout"]].add(r["oracle_id"])
            prints[r["layout"]] += 1
        return {k: [len(per[k]), prints[k]] for k in sorted(per)}

    report["counts"] = {
        "cards-2019": {
            "printings": len(rows19),
            "oracle_ids": len(sel19),
            "layouts [oracle_ids, printings]": layouts(rows19),
        },
        "cards-2024": {
            "printings": len(rows24),
            "oracle_ids": len(sel24),
            "layouts [oracle_ids, printings]": layouts(rows24),
        },
        "cards-2025-trimmed": {"cards": len(rows25), "layouts [oracle_ids, printings]": layouts(rows25)},
        "foreign": {
            "objects": len(foreign),
            "oracle_ids": len({f["oracle_id"] for f in foreign}),
            "langs": {lang: sum(1 for f in foreign if f["lang"] == lang) for lang in FOREIGN_LANGS},
        },
        "rulings": {"rulings": len(rulings), "oracle_ids": len({r["oracle_id"] for r in rulings})},
        "deck_names": len(deck_names),
    }
    return report


def real_oracle_ids(files: Iterable[Path]) -> dict[str, str]:
    """Name -> Oracle id of the card objects of Scryfall bulk files (gzipped or not), for names that one Oracle id
    carries (a name several Oracle cards print, Unstable's Sly Spies, is left out: which one is meant is not
    known). Ids made up by this converter are never taken as real."""
    seen: dict[str, set[str]] = defaultdict(set)
    for path in files:
        raw = path.read_bytes()
        for card in msgspec.json.decode(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw):
            name, oracle_id = card.get("name"), card.get("oracle_id")
            if name and oracle_id and card.get("lang", "en") == "en" and oracle_id != trimmed_oracle_id(name):
                seen[name].add(oracle_id)
    return {name: next(iter(ids)) for name, ids in seen.items() if len(ids) == 1}


def repeats_a_card(record: dict[str, Any], records: list[dict[str, Any]]) -> bool:
    """Whether ``record`` is named "A // B // A" beside the list's own "A // B" with the same faces: the 2025 list
    writes three omen cards so twice (Scavenger Regent // Exude Toxin // Scavenger Regent), and converting both made
    one card two, whose face names were each ambiguous. Such a repeat is left out (one Oracle card, CR 720.2c)."""
    parts = record["name"].split(" // ")
    if len(parts) != 3 or parts[0] != parts[2]:
        return False
    faces = [f.get("name") for f in record.get("card_faces") or ()]
    return any(r["name"] == " // ".join(parts[:2]) and faces == parts[:2] for r in records)


def convert_trimmed(src: Path, out: Path, ids_from: Iterable[Path] = ()) -> int:
    """Write every record of a trimmed commander-legal list (``src``, gzipped or not) to ``out`` as Scryfall-shaped
    card objects (:func:`trimmed_to_card`: SYNTHETIC ids, set ``TRIMMED_SET``), ``.gz`` compressed when ``out``
    ends so; the number written. A card the bulk files ``ids_from`` hold by its name keeps their real Oracle id, so
    ingesting both makes one card of it."""
    raw = src.read_bytes()
    records: list[dict[str, Any]] = msgspec.json.decode(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    chosen = sorted(records, key=lambda r: (fold(r["name"]), r["name"]))
    chosen = [r for r in chosen if not repeats_a_card(r, records)]
    known = real_oracle_ids(ids_from)
    melds = meld_parts(records)  # CR 712.4b: a meld result is no card
    data = dump_bulk(trimmed_to_card(record, i, known, melds) for i, record in enumerate(chosen, 1))
    if out.suffix == ".gz":
        write_gz(out, data)
    else:
        out.write_bytes(data)
    return len(chosen)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--realdata",
        type=Path,
        default=REPO.parent / "shared" / "realdata",
        help="folder with the real data files (default: ../shared/realdata from the repo root)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=REPO / "oracle_tools" / "data" / "sample",
        help="output folder (default: oracle_tools/data/sample)",
    )
    parser.add_argument("--quiet", action="store_true", help="do not print the selection report")
    parser.add_argument(
        "--trimmed-to-cards",
        nargs=2,
        type=Path,
        metavar=("TRIMMED", "OUT"),
        help="instead of the sample: convert a whole trimmed commander-legal list (such as "
        "scryfall-commander-legal-trimmed-20250925.json.gz) into Scryfall-shaped card objects (synthetic ids) in OUT",
    )
    parser.add_argument(
        "--ids-from",
        type=Path,
        action="append",
        default=[],
        metavar="BULK",
        help="with --trimmed-to-cards: a Scryfall bulk file whose real Oracle ids the converted cards of the same "
        "name keep (repeatable; e.g. the 2019 dump, the 2024 objects, the alternate-names file)",
    )
    args = parser.parse_args(argv)
    if args.trimmed_to_cards:
        src, out = args.trimmed_to_cards
        count = convert_trimmed(src, out, args.ids_from)
        if not args.quiet:
            print(f"wrote {count:,} card objects to {out}; ingest it with `oracle-tools ingest --bulk-file {out}`")
        return 0
    report = build(args.realdata, args.out)
    if not args.quiet:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
