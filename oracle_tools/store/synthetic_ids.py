"""The ids oracle-tools itself makes up for card objects that come without any (the 2025 trimmed commander-legal
list, converted by ``scripts/make_sample.py --trimmed-to-cards``).

Such an id is ``uuid5(NAMESPACE_URL, "oracle-tools-trimmed-2025:" + name)``: made from the name alone, so it is
recognised again from the name (:func:`is_trimmed_oracle_id`) and never taken for one of Scryfall's (random uuid4s).
The ingest uses that to keep one Oracle card when the same card also arrives from a file with real ids: the
made-up id gives way to the real one (``ingest.py``: ``_merge_synthetic_ids``).
"""

from __future__ import annotations

import uuid

__all__ = ["TRIMMED_PREFIX", "is_trimmed_oracle_id", "trimmed_oracle_id", "trimmed_printing_id"]

TRIMMED_PREFIX = "oracle-tools-trimmed-2025:"


def trimmed_oracle_id(name: str) -> str:
    """The made-up Oracle id of the trimmed list's card ``name``."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, TRIMMED_PREFIX + name))


def trimmed_printing_id(name: str) -> str:
    """The made-up printing id of the trimmed list's card ``name``."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, TRIMMED_PREFIX + name + ":printing"))


def is_trimmed_oracle_id(oracle_id: str | None, name: str | None) -> bool:
    """Whether ``oracle_id`` is the made-up id of the trimmed list's card ``name`` (not a real Oracle id)."""
    return bool(oracle_id and name) and oracle_id == trimmed_oracle_id(str(name))
