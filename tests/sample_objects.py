"""The embedded sample's raw Scryfall objects (oracle_tools/data/sample/), read as JSON: what tests compute their
expected answers from, never through the engine."""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

SAMPLE = Path(__file__).parent.parent / "oracle_tools" / "data" / "sample"
CARD_FILES = ("alternate-names.json.gz", "cards-2019.json.gz", "cards-2024.json.gz", "cards-2025-trimmed.json.gz",
              "foreign.json.gz")  # fmt: skip


@cache
def sample_objects() -> tuple[dict[str, Any], ...]:
    """Every card object of the sample's card files, in file order."""
    out: list[dict[str, Any]] = []
    for name in CARD_FILES:
        with gzip.open(SAMPLE / name, "rt", encoding="utf-8") as fh:
            out.extend(json.load(fh))
    return tuple(out)
