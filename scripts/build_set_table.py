"""Build ``oracle_tools/data/sets.csv``: the per-set facts no card object carries (block, parent set, MTGO code,
TCGplayer group, printed size, icon), for set objects served without a downloaded set list.

Sources (the real data beside the checkout, ``../shared/realdata``; see its SOURCES.md):

* MTGJSON AllPrintings 2022-04-25 — each set's ``name``, ``type`` (MTGJSON copies Scryfall's set types),
  ``releaseDate``, ``block``, ``parentCode``, ``mtgoCode``, ``tcgplayerGroupId``, ``baseSetSize`` (Scryfall's
  ``printed_size``), ``totalSetSize`` (``card_count``), ``isOnlineOnly``/``isFoilOnly``/``isNonFoilOnly`` and
  ``keyruneCode`` (the set's symbol: Scryfall's ``icon_svg_uri`` is ``https://svgs.scryfall.io/sets/{symbol}.svg``);
* Scryfall's card objects (the 2019 default-cards dump and the 2024 file) — each set's Scryfall ``id`` (the
  ``set_id``, or the id its ``set_uri`` links to) and ``set_type``, which win over MTGJSON's where both are known.

Deterministic: the same inputs give a byte-identical file. Run: ``python scripts/build_set_table.py [REALDATA]``.
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "oracle_tools" / "data" / "sets.csv"
COLUMNS = (
    "code", "id", "name", "set_type", "released_at", "block", "parent_set_code", "mtgo_code", "tcgplayer_id",
    "printed_size", "card_count", "digital", "foil_only", "nonfoil_only", "icon",
)  # fmt: skip
SCRYFALL_FILES = ("scryfall-default-cards-2019-10-per-set-dump.json.gz", "scryfall-search-2024-mh3-otj-fdn.json.gz")


def _scryfall_sets(realdata: Path) -> dict[str, dict[str, str]]:
    """``{code: {"id", "set_type"}}`` from the card objects of Scryfall's own files."""
    found: dict[str, dict[str, str]] = {}
    for name in SCRYFALL_FILES:
        with gzip.open(realdata / name, "rt", encoding="utf-8") as f:
            cards = json.load(f)
        for card in cards:
            code = card.get("set")
            set_id = card.get("set_id") or str(card.get("set_uri") or "").rsplit("/", 1)[-1]
            if not code or len(set_id) != 36:
                continue
            entry = found.setdefault(code, {})
            entry.setdefault("id", set_id)
            if card.get("set_type"):
                entry["set_type"] = card["set_type"]
    return found


def _flag(value: object) -> str:
    return "true" if value else "false"


def main(realdata: Path) -> None:
    scryfall = _scryfall_sets(realdata)
    with gzip.open(realdata / "mtgjson-v5-AllPrintings-20220425.json.gz", "rt", encoding="utf-8") as f:
        mtgjson = json.load(f)["data"]
    rows = []
    for key in sorted(mtgjson):
        s = mtgjson[key]
        code = str(s.get("code") or key).lower()
        known = scryfall.get(code, {})
        rows.append(
            {
                "code": code,
                "id": known.get("id", ""),
                "name": s.get("name", ""),
                "set_type": known.get("set_type") or s.get("type", ""),
                "released_at": s.get("releaseDate", ""),
                "block": s.get("block", ""),
                "parent_set_code": str(s.get("parentCode") or "").lower(),
                "mtgo_code": str(s.get("mtgoCode") or "").lower(),
                "tcgplayer_id": s.get("tcgplayerGroupId", ""),
                "printed_size": s.get("baseSetSize", ""),
                "card_count": s.get("totalSetSize", ""),
                "digital": _flag(s.get("isOnlineOnly")),
                "foil_only": _flag(s.get("isFoilOnly")),
                "nonfoil_only": _flag(s.get("isNonFoilOnly")),
                "icon": str(s.get("keyruneCode") or "").lower(),
            }
        )
    listed = {row["code"] for row in rows}
    for code in sorted(set(scryfall) - listed):  # sets only Scryfall's files know (newer than the MTGJSON file)
        rows.append(dict.fromkeys(COLUMNS, "") | {"code": code, "id": scryfall[code]["id"],
                                                 "set_type": scryfall[code].get("set_type", "")})  # fmt: skip
    with OUT.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {len(rows)} sets to {OUT.relative_to(REPO)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "realdata")
