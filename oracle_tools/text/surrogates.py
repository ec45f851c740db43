"""Strings that are not text: a lone surrogate (JSON's "\\ud800" escape decodes to one, and Python keeps
bytes that are no UTF-8 as them) can be encoded by no Unicode encoding, so an answer quoting it could not be
sent. The HTTP server and the MCP server refuse such input with one clear answer instead."""

from __future__ import annotations

from typing import Any


def lone_surrogate(value: Any, depth: int = 0) -> str | None:
    """Where a JSON-like value (strings, lists, dicts, their keys) holds a lone surrogate, or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"\\u{ord(value[exc.start]):04x} at character {exc.start} of a string"
        return None
    if depth > 100:  # deeper than any message we take
        return None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = (lone_surrogate(key, depth + 1) if isinstance(key, str) else None) or lone_surrogate(item, depth + 1)
        if found:
            return found
    return None
