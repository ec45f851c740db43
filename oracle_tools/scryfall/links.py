"""Links to Scryfall's API inside its objects, pointed at this server (card and set objects share the rule)."""

from __future__ import annotations

#: Where Scryfall's objects point for its API; replaced by the local server's address.
SCRYFALL_API = "https://api.scryfall.com"


#: How a server writes the links in its answers (``serve --links``): ``server``, its own address (every client
#: follows them here); ``scryfall``, Scryfall's own (``https://api.scryfall.com/…``), for clients that follow only
#: links on Scryfall's address and send those to the base URL they were given (scryfall-client on npm: docs/serve.md).
LINK_STYLES = ("server", "scryfall")


def links_base(own: str, style: str = "server") -> str:
    """The base of every link a server writes (``uri``, ``next_page``, ``download_uri`` …): ``own`` (the address
    the client reached it on) or, for the ``scryfall`` style, Scryfall's API address."""
    if style not in LINK_STYLES:
        raise ValueError(f"links style {style!r}: give one of {', '.join(LINK_STYLES)}")
    return SCRYFALL_API if style == "scryfall" else own


def point_api_links(text: bytes, base_url: str | None) -> bytes:
    """A Scryfall object's JSON text with each link to Scryfall's API (a string starting with
    ``https://api.scryfall.com/``) pointed at ``base_url`` instead; unchanged without one."""
    if not base_url:
        return text
    import json

    return text.replace(f'"{SCRYFALL_API}/'.encode(), (json.dumps(base_url, ensure_ascii=False)[:-1] + "/").encode())


__all__ = ["LINK_STYLES", "SCRYFALL_API", "links_base", "point_api_links"]
