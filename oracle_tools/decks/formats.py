"""The formats: one table of every format name that search (``f:``, ``banned:``, ``restricted:``), deck checks
(``--format``), the HTTP server, the web page and MCP accept, with each format's construction rules.

Keys are Scryfall's legality keys (the ``legalities`` object of a card), plus ``limited``, which has no
legality list (any card opened in the event may be played, CR 100.2b) and so is a deck-check format only.
One table instead of a list per interface: a format added here is known everywhere at once.

>>> format_rules("EDH").key, format_rules("pdh").label
('commander', 'Pauper Commander')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from oracle_tools.errors import OracleToolsError

__all__ = ["ALIASES", "FORMATS", "LEGALITY_KEYS", "CommanderKind", "FormatRules", "format_rules"]

#: Which cards can lead a deck: "legendary" (CR 903.3), "legendary_or_planeswalker" (Brawl), "planeswalker"
#: (Oathbreaker's oathbreaker), "creature" (Pauper Commander: a creature; Scryfall marks the uncommon ones
#: "restricted": legal only as the commander).
CommanderKind = Literal["legendary", "legendary_or_planeswalker", "planeswalker", "creature"]


@dataclass(frozen=True)
class FormatRules:
    """Construction rules of one format."""

    key: str
    label: str
    min_size: int
    max_size: float = math.inf  # exact size when equal to min_size (Commander: 100)
    copies: float = 4  # per English name (math.inf: no limit)
    sideboard_max: float = 15  # 0: no sideboard at all
    legality: bool = True  # the format has a legality list: the ingested legalities table judges its cards
    commander: bool = False  # needs a commander in the command zone (CR 903)
    commander_kind: CommanderKind = "legendary"  # which cards can lead the deck (see CommanderKind)
    signature_spell: bool = False  # Oathbreaker: one instant or sorcery beside the oathbreaker
    restricted_means_commander_only: bool = False  # Pauper Commander's "restricted" (see commander_kind)
    # CR 903.12e (the Brawl option): "If a player's commander has no colors in its color identity, that player's deck
    # may contain any number of basic lands of one basic land type of their choice."
    colorless_basics: bool = False
    # the rule a deck's size and a singleton format's one copy are judged by, as a problem cites it: the CR's rule
    # ("CR 903.5a") or the format's own rules ("Oathbreaker rules"); "" for the format's rules by its label
    size_rule: str = ""
    singleton_rule: str = ""
    note: str = ""  # what a user should know about the key

    @property
    def singleton(self) -> bool:
        return self.copies == 1

    @property
    def commander_word(self) -> str:
        return "oathbreaker" if self.commander_kind == "planeswalker" else "commander"


def _constructed(key: str, label: str, note: str = "") -> FormatRules:
    return FormatRules(key=key, label=label, min_size=60, note=note)  # CR 100.2a


def _commander_format(
    key: str,
    label: str,
    *,
    size: int = 100,
    commander_kind: CommanderKind = "legendary",
    commander_only: bool = False,
    signature_spell: bool = False,
    colorless_basics: bool = False,
    size_rule: str = "CR 903.5a",
    singleton_rule: str = "CR 903.5b",
) -> FormatRules:
    """A singleton format led from the command zone, of exactly ``size`` cards, no sideboard (CR 903.5a,
    903.5b, 903.5e; Brawl, Oathbreaker and Pauper Commander by their own rules)."""
    return FormatRules(
        key=key,
        label=label,
        min_size=size,
        max_size=size,
        copies=1,
        sideboard_max=0,
        commander=True,
        commander_kind=commander_kind,
        restricted_means_commander_only=commander_only,
        signature_spell=signature_spell,
        colorless_basics=colorless_basics,
        size_rule=size_rule,
        singleton_rule=singleton_rule,
    )


FORMATS: dict[str, FormatRules] = {
    r.key: r
    for r in (
        _constructed("standard", "Standard"),
        _constructed("future", "Future Standard"),
        _constructed("historic", "Historic"),
        _constructed("timeless", "Timeless"),
        _constructed("pioneer", "Pioneer"),
        _constructed("explorer", "Explorer"),
        _constructed("modern", "Modern"),
        _constructed("legacy", "Legacy"),
        _constructed("pauper", "Pauper"),
        _constructed("vintage", "Vintage"),
        _constructed("penny", "Penny Dreadful"),
        _constructed("alchemy", "Alchemy"),
        _constructed("oldschool", "Old School"),
        _constructed("premodern", "Premodern"),
        _constructed("frontier", "Frontier", note="a key of Scryfall's legalities until 2020"),
        _commander_format("commander", "Commander"),
        _commander_format("duel", "Duel Commander"),
        _commander_format("predh", "PreDH"),
        # Scryfall's `brawl` (MTG Arena's Brawl, Historic Brawl until 2023) is 100 cards by Arena's rules; the CR's
        # Brawl option is 60 (903.12d: "A player's deck must contain exactly 60 cards, including its commander.")
        _commander_format(
            "brawl",
            "Brawl",
            commander_kind="legendary_or_planeswalker",
            colorless_basics=True,
            size_rule="MTG Arena's Brawl rules",
        ),
        _commander_format("paupercommander", "Pauper Commander", commander_kind="creature", commander_only=True),
        _commander_format(
            "standardbrawl",
            "Standard Brawl",
            size=60,
            commander_kind="legendary_or_planeswalker",
            colorless_basics=True,
            size_rule="CR 903.12d",
        ),
        _commander_format(
            "oathbreaker",
            "Oathbreaker",
            size=60,
            commander_kind="planeswalker",
            signature_spell=True,
            size_rule="Oathbreaker rules",
            singleton_rule="Oathbreaker rules",
        ),
        FormatRules(key="gladiator", label="Gladiator", min_size=100, max_size=100, copies=1, sideboard_max=0),
        FormatRules(
            key="limited",
            label="Limited",
            min_size=40,  # CR 100.2b
            copies=math.inf,
            sideboard_max=math.inf,
            legality=False,
        ),
    )
}

#: Other spellings people use, lower case.
ALIASES: dict[str, str] = {
    "edh": "commander",
    "cedh": "commander",
    "duel commander": "duel",
    "duelcommander": "duel",
    "pdh": "paupercommander",
    "pauper commander": "paupercommander",
    "pre modern": "premodern",
    "old school": "oldschool",
    "penny dreadful": "penny",
    "pennydreadful": "penny",
    "sealed": "limited",
    "draft": "limited",
    "historic brawl": "brawl",  # Scryfall's `brawl` since 2023
    "historicbrawl": "brawl",  # Scryfall's key for Historic Brawl until 2023
    "standard brawl": "standardbrawl",
}

#: The keys with a legality list: what search's ``f:``/``banned:``/``restricted:`` take.
LEGALITY_KEYS: tuple[str, ...] = tuple(k for k, r in FORMATS.items() if r.legality)


def format_rules(name: str | FormatRules) -> FormatRules:
    """The rules of a format by key or alias (case, spaces, dashes and underscores do not count); an unknown
    name is an :class:`OracleToolsError` listing the known ones."""
    if isinstance(name, FormatRules):
        return name
    key = " ".join(str(name).replace("_", " ").replace("-", " ").split()).casefold()
    key = ALIASES.get(key, key)
    rules = FORMATS.get(key) or FORMATS.get(key.replace(" ", ""))
    if rules is None:
        import difflib

        close = difflib.get_close_matches(key, [*FORMATS, *ALIASES], n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise OracleToolsError(
            f"unknown format {name!r}{hint}; known formats: {', '.join(FORMATS)} (also: {', '.join(ALIASES)})."
        )
    return rules


def no_legalities(fmt: str, known: list[str]) -> OracleToolsError:
    """The one line for a format this database holds no legalities of (its files predate the format, or hold none):
    said by deck checks and by searches (``f:``, ``banned:``, ``restricted:``), never answered as "no card"."""
    return OracleToolsError(
        f"the database has no legalities for format {fmt!r}; it has: {', '.join(known) or '(none)'}. "
        "Re-ingest newer Scryfall data."
    )
