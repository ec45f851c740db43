"""Links to Scryfall's API inside its objects, pointed at this server (card and set objects share the rule)."""

from __future__ import annotations

#: Where Scryfall's objects point for its API; replaced by the local server's address.
SCRYFALL_API = "https://api.scryfall.com"


def point_api_links(text: bytes, base_url: str | None) -> bytes:
    """A Scryfall object's JSON text with each link to Scryfall's API (a string starting with
    ``https://api.scryfall.com/``) pointed at ``base_url`` instead; unchanged without one."""
    if not base_url:
        return text
    import json

    return text.replace(f'"{SCRYFALL_API}/'.encode(), (json.dumps(base_url, ensure_ascii=False)[:-1] + "/").encode())


__all__ = ["SCRYFALL_API", "point_api_links"]
