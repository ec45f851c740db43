"""Parse decklists of every common format (pure parsing: no database, no name resolution).

Formats, detected automatically by :func:`parse_decklist`:

``arena``
    MTG Arena export: headers ``About`` / ``Name X``, ``Commander``, ``Companion``, ``Deck``,
    ``Sideboard``, ``Maybeboard``; lines ``4 Lightning Bolt (M11) 149`` with an optional ``*F*``. Arena lists its
    companion in the Sideboard too: that line is the companion again, counted once (a note says so).
``mtgo_txt``
    MTGO text export: only ``N Card Name`` lines, a blank line before the sideboard.
``mtgo_dek``
    MTGO ``.dek`` XML: ``<Deck><Cards Quantity="4" Sideboard="false" Name="Lightning Bolt" .../></Deck>``
    (detected by content, whatever the file is called).
``plain``
    everything else people type or other sites export: ``4x Name``, ``4 x Name``, ``Name x4``,
    ``SB: 2 Duress``, ``#`` / ``//`` comments, Moxfield ``1x Name (SET) 123 *F* #tag``,
    Archidekt ``1x Name (set) 123 [Category] ^tag^``, ``4 Name [M20]``, MWS ``4 [M11] Name``,
    Forge ``4 Name|M11`` with ``[main]`` / ``[sideboard]`` headers, TopDeck ``~~Commanders~~`` headers,
    headers such as ``Sideboard:``, ``// Sideboard``, ``Sideboard (15)``, ``Main deck``, ``Companion``,
    and card-type group headers (``Creatures (20)``) which do not change the section.
``csv``
    the CSV exports of Moxfield (``Count,Tradelist Count,Name,Edition,Condition,Language,Foil,Tags,Last Modified,
    Collector Number,…``), Archidekt (``Quantity,Name,Finish,Condition,Date Added,Language,Purchase Price,Tags,
    Edition Name,Edition Code,Multiverse Id,Scryfall ID,Collector Number``), Deckbox (``Count,Tradelist Count,Name,
    Edition,Edition Code,Card Number,…``) and ManaBox (``Name,Set code,Set name,Collector number,Foil,Rarity,Quantity,
    ManaBox ID,Scryfall ID,…``): recognised by a header with a count column (Count, Quantity) and a Name column;
    the other columns are read where they mean something (set code, collector number, a Board column's section).
``json_cache``
    tournament JSON caches (Spigushe / barrins ``{"tournament", "decks"}``, Badaro / fbettega
    ``{"Tournament", "Decks"}``, ``{url::player: {main_deck, sideboard}}`` objects and TopDeck player
    objects), read with :func:`read_decklists_json_cache`.

Design decisions
----------------
* **Names are kept as written**: only set / collector-number suffixes, foil / etched markers
  (``*F*``), Archidekt ``[categories]`` and ``^tags^`` and Moxfield ``#tags`` are removed.
  ``Fire // Ice``, ``Fire/Ice``, ``Fire / Ice``, ``Lim-Dul's Vault``, ``swamp`` stay exactly so;
  resolving them is the name resolver's job.
* **Comments**: a line whose first non-blank characters are ``#`` or ``//`` is a comment (``// Name: X``
  sets the deck name), unless the rest is a section header (``// Sideboard``, ``# Commander``). A ``#`` after a
  blank ends a card line's name (``4 Lightning Bolt # burn``, Moxfield's ``#tag``): no card name has ``#``.
  ``Fire // Ice`` is not a comment because ``//`` is not at the start.
* **Bare names** (a line with no count): counted as 1 copy when (a) no line in the text has a count
  (a plain list of names), (b) the line is in a ``Commander`` / ``Companion`` section, or (c) the list is
  commander-style (it has a Commander section, or it has no headers and is a 99-101 card singleton list).
  Otherwise - in a list whose other lines give counts - a bare name is reported as a
  :class:`ParseProblem` rather than silently guessed, because in a 60-card list ``Lightning Bolt``
  might just as well mean a forgotten ``4``.
* **Blank lines**: the first blank line after main-deck cards starts the sideboard, unless the text
  marks its sideboard explicitly (a ``Sideboard`` header or ``SB:`` lines) or the next line is a
  header. A blank line after a ``Commander`` / ``Companion`` block returns to the main deck (Arena).
  A headerless commander-style list (99-101 cards, singleton) is not split: a last (or first)
  blank-separated block of 1-2 cards is its commander(s), as in MTGO's Commander text export;
  a larger last block is a sideboard only when the blocks before it already hold 98+ cards;
  any other block stays in the main deck (a 100-card list that someone grouped with blank lines).
* **Problems never stop parsing**: every unreadable line becomes a :class:`ParseProblem` with its
  1-based line number and a one-sentence explanation; :func:`parse_decklist` never raises for any
  ``str`` input. Only the file readers raise :class:`~oracle_tools.errors.DecklistError`, and only
  when the file cannot be read as text at all.
* **Files that are no decklist** (a Scryfall card object, other JSON, CSV without such a header, lines of
  colon-separated fields such as ``/etc/passwd``, markup, ``key=value`` settings, a Markdown document) are said to be so in one line
  (``Decklist.not_a_decklist``; the file readers raise it as a DecklistError), never judged as a deck of unknown
  cards.
* Counts must be whole numbers from 1 to 1000. A count of 0 (``0 Shock``, a cache's ``{"Count": 0}`` row) is no
  card in the deck: a note (``Decklist.notes``, a deck check's ``notes``), not a problem.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oracle_tools.errors import DecklistError, InputTooLargeError
from oracle_tools.store import userfiles
from oracle_tools.text import vocabulary
from oracle_tools.text.surrogates import lone_surrogate

__all__ = [
    "DECKLIST_FORMATS",
    "MAX_COUNT",
    "SECTIONS",
    "DeckEntry",
    "Decklist",
    "ParseProblem",
    "parse_decklist",
    "read_decklist",
    "read_decklists_json_cache",
    "render_arena",
    "render_dek",
    "render_mtgo_txt",
]

SECTIONS: tuple[str, ...] = ("main", "sideboard", "commander", "companion", "maybeboard")
DECKLIST_FORMATS: tuple[str, ...] = ("arena", "mtgo_txt", "mtgo_dek", "plain", "csv", "json_cache")
MAX_COUNT = 1000
#: Far above any decklist or tournament JSON cache (the largest real cache is a few MB); bounds a wrong file.
MAX_DECKLIST_BYTES = 128 * userfiles.MiB
_MAX_NAME_LEN = 200  # the longest real card name is 141 characters

_EXAMPLE = "'4 Lightning Bolt'"

#: How much of a decklist's own text a problem echoes: a line (or a name, a count) is shown up to this many
#: characters, then "…" — a 100,000-character line is never echoed whole.
MAX_ECHO = 200  # the longest real card name is 141 characters: a name is never cut


def echo(text: str) -> str:
    """Input as a problem shows it: the one rule for every echo of a decklist's text (at most MAX_ECHO characters)."""
    return text if len(text) <= MAX_ECHO else text[: MAX_ECHO - 1] + "…"


#: What a count-0 entry is: no card in the deck (a note, not a problem).
_ZERO_NOTE = "count 0: no card in the deck, left out"


# --------------------------------------------------------------------------- data classes


@dataclass(frozen=True)
class DeckEntry:
    count: int
    name: str  # as written, minus set / collector suffixes and markers; spelling NOT normalised
    section: str  # one of SECTIONS
    line: int  # 1-based line in the file (.dek: line of the <Cards> element; JSON: line of the name)
    raw: str  # the original line (JSON caches: "<count> <name>" as the file gives them)
    set_code: str | None = None  # upper-cased
    collector_number: str | None = None


@dataclass(frozen=True)
class ParseProblem:
    line: int
    raw: str  # the line as written, at most MAX_ECHO characters (see echo)
    detail: str  # one sentence: what is wrong and what a valid line looks like

    def __post_init__(self) -> None:
        object.__setattr__(self, "raw", echo(self.raw))


@dataclass(frozen=True)
class Decklist:
    format: str  # one of DECKLIST_FORMATS
    entries: tuple[DeckEntry, ...]
    problems: tuple[ParseProblem, ...]
    name: str | None  # deck name if the file says
    source: str  # file path or "<text>"
    player: str | None = None  # JSON caches only
    event: str | None = None  # JSON caches only: tournament name
    event_format: str | None = None  # JSON caches only: format label as the file gives it
    #: lines that are no card and no error: an entry with count 0 ("0 Shock", a cache's {"Count": 0} row) is no
    #: card in the deck, said as a note (warning) rather than a problem that would make the deck not legal
    notes: tuple[ParseProblem, ...] = ()
    #: set when the text is no decklist at all (JSON of another kind, CSV without a count and a name column, a
    #: system file): what it looks like, in one line beginning with the source (also its one problem)
    not_a_decklist: str | None = None

    def section(self, section: str) -> list[DeckEntry]:
        if section not in SECTIONS:
            raise ValueError(f"unknown section {section!r}; expected one of {', '.join(SECTIONS)}")
        return [e for e in self.entries if e.section == section]

    def main(self) -> list[DeckEntry]:
        return self.section("main")

    def sideboard(self) -> list[DeckEntry]:
        return self.section("sideboard")

    def commanders(self) -> list[DeckEntry]:
        return self.section("commander")

    def companions(self) -> list[DeckEntry]:
        return self.section("companion")

    def total(self, section: str | None = None) -> int:
        """Number of cards (sum of counts), in one section or in all of them."""
        return sum(e.count for e in self.entries if section is None or e.section == section)

    def counts(self, section: str | None = None) -> dict[str, int]:
        """Name -> summed count (names as written), in one section or in all of them."""
        out: dict[str, int] = {}
        for e in self.entries:
            if section is None or e.section == section:
                out[e.name] = out.get(e.name, 0) + e.count
        return out

    @property
    def ok(self) -> bool:
        return not self.problems


# --------------------------------------------------------------------------- vocabulary

_SECTION_WORDS: dict[str, str] = {}
for _sec, _words in {
    "main": (
        "deck",
        "main",
        "maindeck",
        "main deck",
        "mainboard",
        "main board",
        "main-deck",
        "main-board",
        "decklist",
        "deck list",
        "library",
    ),
    "sideboard": ("sideboard", "side board", "side-board", "side", "sb", "sideboard cards"),
    "commander": ("commander", "commanders", "command zone", "cmdr", "general"),
    "companion": ("companion", "companions"),
    "maybeboard": ("maybeboard", "maybe board", "maybe-board", "maybe", "considering", "wishlist"),
    "about": ("about", "metadata"),
}.items():
    for _w in _words:
        _SECTION_WORDS[_w] = _sec

# Type / category group headers (Moxfield, TappedOut, MTGGoldfish "by type" exports): no section change.
_GROUP_WORDS = frozenset(
    """creature creatures land lands instant instants sorcery sorceries artifact artifacts enchantment
    enchantments planeswalker planeswalkers battle battles spell spells other others noncreature
    non-creature tribal kindred""".split()
) | {"non-creature spells", "noncreature spells", "other spells", "mana rocks", "basic lands"}

_ARENA_HEADERS = frozenset({"Deck", "Sideboard", "Commander", "Companion", "About", "Maybeboard"})

# A count written as a word ("four Lightning Bolt"): the number words of oracle_tools.text.vocabulary, the same
# words Oracle text uses. "zero" is no count a list gives a card, so it is not read as one.
_NUMBER_WORDS = frozenset(w for w, value in vocabulary.NUMBER_WORDS.items() if value > 0)

# Cards a deck may hold any number of (plus basics): used only for the singleton test.
_ANY_NUMBER = frozenset(
    n.casefold()
    for n in (
        "Plains",
        "Island",
        "Swamp",
        "Mountain",
        "Forest",
        "Wastes",
        "Snow-Covered Plains",
        "Snow-Covered Island",
        "Snow-Covered Swamp",
        "Snow-Covered Mountain",
        "Snow-Covered Forest",
        "Snow-Covered Wastes",
        "Relentless Rats",
        "Shadowborn Apostle",
        "Persistent Petitioners",
        "Rat Colony",
        "Dragon's Approach",
        "Slime Against Humanity",
        "Hare Apparent",
        "Seven Dwarves",
        "Nazgûl",
        "Nazgul",
        "Templar Knight",
        "Tempest Hawk",
        "Cid, Timeless Artificer",
    )
)

# --------------------------------------------------------------------------- regexes

_LINE_SPLIT = re.compile(r"\r\n|\r|\n")
_WS = re.compile(r"[\s\u00a0\u2000-\u200b\u202f\u205f\u3000\ufeff]+")
_HEADER = re.compile(
    r"""^(?:~~+|//+|\#+|\*\*|\[|==+|--+)?\s*
        (?P<word>[^\W\d_][\w \-]*?)\s*
        (?:[:=])?\s*
        (?:\(\s*\d+\s*\)|\[\s*\d+\s*\]|\d+)?\s*
        (?:[:=])?\s*
        (?:~~+|\*\*|\]|==+|--+)?\s*$""",
    re.X,
)
_COMMENT_NAME = re.compile(r"^(?://+|#+)\s*(?:deck\s*)?name\s*[:=]\s*(?P<name>.+?)\s*$", re.I)
_ABOUT_NAME = re.compile(r"^name(?:\s*[:=]\s*|\s+)(?P<name>.+?)\s*$", re.I)
_SB_PREFIX = re.compile(r"^SB\s*:\s*(?P<rest>.*)$", re.I)
_COUNT_X = re.compile(r"^(?P<count>\d+)\s*[xX×]\s+(?P<rest>\S.*)$")
_COUNT = re.compile(r"^(?P<count>\d+)\s+(?P<rest>\S.*)$")
_COUNT_ONLY = re.compile(r"^\d+\s*[xX×]?$")
_TRAILING_COUNT = re.compile(r"^(?P<rest>.*\S)\s+[xX×]\s*(?P<count>\d+)$")
_NEGATIVE = re.compile(r"^[-\u2212\u2013]\s*\d")
_LEAD_DIGIT = re.compile(r"^[+]?\d")
_MWS_SET = re.compile(r"^\[(?P<set>[A-Za-z0-9]{2,8})\]\s+(?P<rest>\S.*)$")
# A "#" after a blank ends the name: Moxfield's "#tag" / "#!Commander" tags and a trailing " # comment" alike.
# No card name has "#" (the names table of the 2019 dump, the 2024 objects and the 2022 foreign printings: none).
_HASHTAG = re.compile(r"\s#")
_SUF_CARET = re.compile(r"\s*\^[^^]*\^$")
_SUF_FOIL = re.compile(r"\s*\*[A-Za-z][A-Za-z\-]*\*$")
_SUF_BRACKET = re.compile(r"\s*\[(?P<body>[^\[\]]*)\]$")
_SUF_PAREN_SET = re.compile(
    r"\s+\((?P<set>(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{2,8})\)(?:\s+(?P<cn>[A-Za-z0-9★†\-]+))?$"
)
_SUF_PIPE = re.compile(r"\s*\|(?P<set>[A-Za-z0-9]{2,8})(?:\|[^|\s]*)?$")
_BRACKET_SET = re.compile(r"^(?=[A-Z0-9]*[A-Z])[A-Z0-9]{2,6}$")
_BAD_NAME_CHARS = frozenset("<>{}[]=\\|@")


def _count(digits: str) -> int:
    """A count's digits as a number; past 9 digits only "more than any deck" matters (Python refuses to read more than
    4,300 digits at all)."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 9 else 10**9


def _clean(line: str) -> str:
    """Whitespace-normalised copy of a line for matching (NBSP, tabs, zero-width -> space)."""
    return _WS.sub(" ", line).strip()


# Unicode category Cc is exactly C0 + DEL + C1; a regex scans in C instead of a call per character.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _has_control(s: str) -> bool:
    return _CONTROL.search(s) is not None


# --------------------------------------------------------------------------- line tokens


@dataclass
class _Tok:
    kind: str  # blank | comment | header | group | card | problem
    line: int
    raw: str
    text: str = ""
    section: str | None = None  # header: target section; card: forced section ([Sideboard] category)
    count: int | None = None
    name: str = ""
    set_code: str | None = None
    cn: str | None = None
    sb: bool = False
    x_style: bool = False  # "4x" / "4 x" / "x4"
    decorated: bool = False  # had suffixes other than an Arena "(SET) 123" / "*F*"
    arena_set: bool = False  # had "(SET) 123"
    detail: str = ""
    deck_name: str | None = None
    arena_header: bool = False


def _header_section(text: str) -> tuple[str, bool] | None:
    """('main'|'sideboard'|...|'about'|'group', is_arena_style) if the line is a header."""
    m = _HEADER.match(text)
    if not m:
        return None
    word = " ".join(m.group("word").replace("_", " ").split()).casefold()
    sec = _SECTION_WORDS.get(word)
    if sec is None:
        if word in _GROUP_WORDS:
            return "group", False
        return None
    return sec, text in _ARENA_HEADERS


def _strip_suffixes(rest: str, tok: _Tok) -> str:
    cut = _HASHTAG.search(rest)
    if cut:
        rest = rest[: cut.start()]
        tok.decorated = True
    for _ in range(12):
        before = rest
        m = _SUF_CARET.search(rest)
        if m:
            rest = rest[: m.start()]
            tok.decorated = True
            continue
        m = _SUF_FOIL.search(rest)
        if m:
            rest = rest[: m.start()]
            continue
        m = _SUF_BRACKET.search(rest)
        if m and m.start() > 0:
            body = m.group("body").strip()
            rest = rest[: m.start()]
            tok.decorated = True
            if tok.set_code is None and _BRACKET_SET.match(body) and body.casefold() not in _SECTION_WORDS:
                tok.set_code = body.upper()
            else:
                first = re.sub(r"\{[^}]*\}", "", body.split(",")[0]).strip().casefold()
                sec = _SECTION_WORDS.get(first)
                if sec and sec != "about" and tok.section is None:
                    tok.section = sec
            continue
        m = _SUF_PAREN_SET.search(rest)
        if m and m.start() > 0 and tok.set_code is None:
            rest = rest[: m.start()]
            tok.set_code = m.group("set").upper()
            tok.cn = m.group("cn")
            if tok.cn:
                tok.arena_set = True
            else:
                tok.decorated = True
            continue
        m = _SUF_PIPE.search(rest)
        if m and m.start() > 0 and tok.set_code is None:
            rest = rest[: m.start()]
            tok.set_code = m.group("set").upper()
            tok.decorated = True
            continue
        if rest == before:
            break
    return rest.strip()


def _name_problem(name: str) -> str | None:
    if not name:
        return f"A count with no card name; a valid line looks like {_EXAMPLE}."
    if not any(ch.isalnum() for ch in name):
        return f"'{echo(name)}' is not a card name; a valid line looks like {_EXAMPLE}."
    if len(name) > _MAX_NAME_LEN:
        return (
            f"The card name is {len(name)} characters long, longer than any real card name; "
            f"a valid line looks like {_EXAMPLE}."
        )
    if _has_control(name) or any(ch in _BAD_NAME_CHARS for ch in name):
        return (
            f"'{echo(name)}' contains characters no card name has; "
            f"a valid line looks like {_EXAMPLE} or a header such as 'Sideboard'."
        )
    return None


def _card_tok(tok: _Tok, text: str) -> _Tok:
    """Fill a card (or problem) token from a non-header, non-comment line."""
    m = _SB_PREFIX.match(text)
    if m:
        tok.sb = True
        tok.decorated = True
        text = m.group("rest").strip()
        if not text:
            tok.kind, tok.detail = "problem", "'SB:' with nothing after it; write e.g. 'SB: 2 Duress'."
            return tok
    count: int | None = None
    rest = text
    m = _COUNT_X.match(text)
    if m:
        tok.x_style = True
    else:
        m = _COUNT.match(text)
    if m:
        count = _count(m.group("count"))
        rest = m.group("rest")
    elif _NEGATIVE.match(text):
        tok.kind = "problem"
        tok.detail = f"A negative count is not allowed; a valid line looks like {_EXAMPLE}."
        return tok
    elif _COUNT_ONLY.match(text):
        tok.kind = "problem"
        tok.detail = f"A count with no card name; a valid line looks like {_EXAMPLE}."
        return tok
    else:
        mt = _TRAILING_COUNT.match(text)
        if mt:
            count = _count(mt.group("count"))
            rest = mt.group("rest")
            tok.x_style = True
        elif _LEAD_DIGIT.match(text):
            tok.kind = "problem"
            tok.detail = f"The count must be a whole number followed by a space and the card name, like {_EXAMPLE}."
            return tok
    if count is not None:
        if count == 0:
            tok.kind = "zero"
            tok.detail = _ZERO_NOTE
            return tok
        if count > MAX_COUNT:
            tok.kind = "problem"
            tok.detail = f"The count {count if count < 10**9 else 'of ten or more digits'} is over {MAX_COUNT}, which no deck needs; a valid line looks like {_EXAMPLE}."
            return tok
    else:
        first = rest.split(" ", 1)
        if len(first) == 2 and first[0] in _NUMBER_WORDS and first[1][:1].isupper():
            tok.kind = "problem"
            tok.detail = f"The count '{first[0]}' is written as a word; write it in digits, like {_EXAMPLE}."
            return tok
    mm = _MWS_SET.match(rest)
    if mm:
        tok.set_code = mm.group("set").upper()
        rest = mm.group("rest")
        tok.decorated = True
    name = _strip_suffixes(rest, tok)
    bad = _name_problem(name)
    if bad:
        tok.kind, tok.detail = "problem", bad
        return tok
    tok.kind, tok.count, tok.name = "card", count, name
    return tok


def _tokenize(lines: Sequence[str]) -> list[_Tok]:
    toks: list[_Tok] = []
    for i, raw in enumerate(lines, start=1):
        text = _clean(raw)
        tok = _Tok("blank", i, raw, text)
        if not text:
            toks.append(tok)
            continue
        hs = _header_section(text)
        if text.startswith("//") or text.startswith("#"):
            if hs and hs[0] != "group" and hs[0] != "about":
                tok.kind, tok.section = "header", hs[0]
            else:
                tok.kind = "comment"
                m = _COMMENT_NAME.match(text)
                if m:
                    tok.deck_name = m.group("name")
            toks.append(tok)
            continue
        if hs:
            if hs[0] == "group":
                tok.kind = "group"
            else:
                tok.kind, tok.section, tok.arena_header = "header", hs[0], hs[1]
            toks.append(tok)
            continue
        toks.append(_card_tok(tok, text))
    return toks


# --------------------------------------------------------------------------- text parsing


def _bare_problem(tok: _Tok) -> str:
    first = tok.name.split(" ", 1)[0].casefold()
    if first in _NUMBER_WORDS:
        return f"The count '{tok.name.split(' ', 1)[0]}' is written as a word; write it in digits, like {_EXAMPLE}."
    return (
        f"No count: the other lines of this list give counts, so write this one as "
        f"'1 {echo(tok.name)}' (or '4 {echo(tok.name)}')."
    )


def _is_singleton(cards: Iterable[_Tok]) -> bool:
    return all(t.count in (None, 1) or t.name.casefold() in _ANY_NUMBER for t in cards)


def _parse_text(text: str, source: str) -> Decklist:
    lines = _LINE_SPLIT.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    toks = _tokenize(lines)
    cards = [t for t in toks if t.kind == "card"]
    headers = [t for t in toks if t.kind == "header"]

    section_headers = [t for t in headers if t.section != "about"]
    has_headers = bool(section_headers) or any(t.sb for t in cards) or any(t.section for t in cards)
    explicit_side = any(t.section == "sideboard" for t in headers) or any(
        t.sb or t.section == "sideboard" for t in cards
    )
    commander_header = any(t.section == "commander" for t in headers) or any(t.section == "commander" for t in cards)
    total_guess = sum(t.count or 1 for t in cards)
    headerless_commander = not has_headers and _is_singleton(cards) and 99 <= total_guess <= 101
    accept_bare = (not any(t.count is not None for t in cards)) or commander_header or headerless_commander

    # Headerless commander-style: find blank-separated blocks; a 1-2 card last/first block = commander(s).
    forced: dict[int, str] = {}
    if headerless_commander:
        blocks: list[list[_Tok]] = [[]]
        for t in toks:
            if t.kind == "blank" and blocks[-1]:
                blocks.append([])
            elif t.kind == "card":
                blocks[-1].append(t)
        blocks = [b for b in blocks if b]
        if len(blocks) >= 2:
            size = lambda b: sum(t.count or 1 for t in b)  # noqa: E731
            if size(blocks[-1]) <= 2:
                pick, target = blocks[-1], "commander"
            elif size(blocks[0]) <= 2:
                pick, target = blocks[0], "commander"
            elif total_guess - size(blocks[-1]) >= 98:
                pick, target = blocks[-1], "sideboard"  # the deck is complete without the last block
            else:
                pick, target = [], "main"
            for t in pick:
                forced[t.line] = target

    entries: list[DeckEntry] = []
    problems: list[ParseProblem] = []
    notes: list[ParseProblem] = []
    deck_name: str | None = None
    section = "main"
    pending_blank = False
    cards_in_section = False
    split_done = False
    used: list[_Tok] = []

    for t in toks:
        if t.kind == "blank":
            if cards_in_section:
                pending_blank = True
            continue
        if t.kind == "comment":
            if t.deck_name and deck_name is None:
                deck_name = t.deck_name
            continue
        if t.kind == "group":
            pending_blank = False
            continue
        if t.kind == "header":
            section = t.section or "main"
            pending_blank = False
            cards_in_section = False
            continue
        # a card or problem line
        if section == "about":
            m = _ABOUT_NAME.match(t.text)
            if m and not pending_blank:
                if deck_name is None:
                    deck_name = m.group("name")
                continue
            section, cards_in_section = "main", False
            pending_blank = False
        if pending_blank:
            pending_blank = False
            if section in ("commander", "companion"):
                section, cards_in_section = "main", False
            elif section == "main" and not explicit_side and not split_done and not headerless_commander:
                section, split_done = "sideboard", True
        if t.kind == "problem":
            problems.append(ParseProblem(t.line, t.raw, t.detail))
            continue
        if t.kind == "zero":
            notes.append(ParseProblem(t.line, t.raw, f"'{echo(t.raw.strip())}': {t.detail}"))
            continue
        sec = forced.get(t.line) or ("sideboard" if t.sb else None) or t.section or section
        count = t.count
        if count is None:
            if accept_bare or sec in ("commander", "companion"):
                count = 1
            else:
                problems.append(ParseProblem(t.line, t.raw, _bare_problem(t)))
                continue
        cards_in_section = True
        used.append(t)
        entries.append(DeckEntry(count, t.name, sec, t.line, t.raw, t.set_code, t.cn))

    fmt = _detect_text_format(toks, used)
    if fmt == "arena" and any(e.section == "companion" for e in entries):
        entries = _companion_once(entries, notes)
    return Decklist(fmt, tuple(entries), tuple(problems), deck_name, source, notes=tuple(notes))


def _companion_once(entries: list[DeckEntry], notes: list[ParseProblem]) -> list[DeckEntry]:
    """An Arena export lists its companion in the Sideboard too (in constructed play the companion is one of the
    sideboard's cards, CR 100.4a, revealed from there, 702.139a): a sideboard line of the companion's name is that
    card again, counted once (as the companion), with a note; copies beyond the companion's stay in the sideboard."""
    left: dict[str, int] = {}
    for e in entries:
        if e.section == "companion":
            left[e.name.casefold()] = left.get(e.name.casefold(), 0) + e.count
    out: list[DeckEntry] = []
    for e in entries:
        key = e.name.casefold()
        if e.section == "sideboard" and left.get(key):
            again = min(e.count, left[key])
            left[key] -= again
            notes.append(
                ParseProblem(
                    e.line,
                    e.raw,
                    f"'{echo(e.name)}' in the Sideboard is the companion again (an Arena export lists its companion "
                    "in the sideboard too): counted once, as the companion",
                )
            )
            if e.count > again:
                out.append(DeckEntry(e.count - again, e.name, e.section, e.line, e.raw, e.set_code, e.collector_number))
            continue
        out.append(e)
    return out


def _detect_text_format(toks: list[_Tok], cards: list[_Tok]) -> str:
    if not cards:
        return "plain"
    comments = any(t.kind == "comment" for t in toks)
    groups = any(t.kind == "group" for t in toks)
    headers = [t for t in toks if t.kind == "header"]
    plainish = any(t.x_style or t.decorated or t.count is None or t.sb or t.section for t in cards)
    if plainish or comments or groups:
        return "plain"
    if headers:
        if all(t.arena_header for t in headers):
            return "arena"
        return "plain"
    if any(t.arena_set for t in cards):
        return "arena"
    return "mtgo_txt"


# --------------------------------------------------------------------------- .dek XML


def _looks_like_xml(text: str) -> bool:
    # A DTD may come first (no XML declaration): it must reach the XML parser, which refuses it, not be read
    # as text lines.
    head = text.lstrip("\ufeff \t\r\n")[:200]
    return bool(re.match(r"<\?xml\b|<Deck\b|<!--|<!DOCTYPE\b|<!ENTITY\b", head, flags=re.I))


#: The encoding named in an XML declaration. The text was decoded already (UTF-16 with BOM, cp1252…) and the
#: parser is fed UTF-8, so the declaration is made to say so (else expat rejects a correct UTF-16 .dek).
_XML_DECL_ENCODING = re.compile(r"""\A(\s*<\?xml\b[^>]*?\bencoding\s*=\s*)(["'])[^"']*\2""")


def _parse_dek(text: str, source: str) -> Decklist:
    """MTGO .dek XML, parsed by defusedxml's expat reader: a DTD (``<!DOCTYPE``), entity declarations and
    external references are refused with one parse problem at their line (an entity bomb expands to
    gigabytes; a real .dek has none), never read as an empty deck."""
    from xml.sax import SAXParseException
    from xml.sax.handler import ContentHandler

    from defusedxml import DefusedXmlException
    from defusedxml.expatreader import create_parser

    lines = _LINE_SPLIT.split(text)

    def raw_at(n: int) -> str:
        return lines[n - 1] if 1 <= n <= len(lines) else ""

    entries: list[DeckEntry] = []
    problems: list[ParseProblem] = []
    notes: list[ParseProblem] = []
    root: list[str] = []
    example = '<Deck><Cards Quantity="4" Sideboard="false" Name="Lightning Bolt" /></Deck>'
    parser = create_parser(forbid_dtd=True, forbid_entities=True, forbid_external=True)

    def on_start(tag: str, attrs: dict[str, str]) -> None:
        ln = parser.getLineNumber()
        if not root:
            root.append(tag)
            if tag != "Deck":
                problems.append(
                    ParseProblem(
                        ln,
                        raw_at(ln),
                        f"The XML root element is <{tag}>, not <Deck>; a .dek file looks like {example}.",
                    )
                )
        if tag != "Cards":
            return
        raw = raw_at(ln).strip()
        name = (attrs.get("Name") or "").strip()
        q = (attrs.get("Quantity") or "").strip()
        valid = '<Cards Quantity="4" Sideboard="false" Name="Lightning Bolt" />'
        if q.isdigit() and _count(q) == 0:
            notes.append(ParseProblem(ln, raw, f"'{echo(name or raw)}': {_ZERO_NOTE}"))
            return
        if not q.isdigit() or not 1 <= _count(q) <= MAX_COUNT:
            problems.append(
                ParseProblem(
                    ln,
                    raw,
                    f"Quantity={echo(q)!r} is not a whole number from 1 to {MAX_COUNT}; a valid element looks like {valid}.",
                )
            )
            return
        bad = _name_problem(name) if name else "missing"
        if bad:
            problems.append(
                ParseProblem(
                    ln, raw, f"The <Cards> element has no usable Name attribute; a valid element looks like {valid}."
                )
            )
            return
        flag = lambda k: (attrs.get(k) or "").strip().casefold() == "true"  # noqa: E731
        sec = (
            "commander" if flag("CommandZone") or flag("Commander") else ("sideboard" if flag("Sideboard") else "main")
        )
        entries.append(DeckEntry(int(q), name, sec, ln, raw))

    class Handler(ContentHandler):
        def startElement(self, name: str, attrs: Any) -> None:  # the SAX interface
            on_start(name, dict(attrs))

    parser.setContentHandler(Handler())
    try:
        utf8 = _XML_DECL_ENCODING.sub(r"\1\2utf-8\2", text.lstrip("\ufeff"), count=1)
        parser.feed(utf8.encode("utf-8", "surrogatepass"))
        parser.close()
    except DefusedXmlException as exc:  # DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
        ln = parser.getLineNumber()
        what = "a DTD (<!DOCTYPE …>)" if type(exc).__name__ == "DTDForbidden" else "an XML entity declaration"
        problems.append(
            ParseProblem(
                ln,
                raw_at(ln),
                f"The file declares {what}, which is not allowed in a .dek "
                "file (entities can expand without limit; MTGO writes none); export the deck "
                "from MTGO again.",
            )
        )
    except SAXParseException as exc:
        ln = exc.getLineNumber() or 0
        problems.append(
            ParseProblem(
                ln,
                raw_at(ln),
                f"Malformed XML ({exc.getMessage()} at column "
                f"{(exc.getColumnNumber() or 0) + 1}); a .dek file looks like {example}.",
            )
        )
    except (ValueError, UnicodeError) as exc:  # e.g. lone surrogates that cannot be encoded
        problems.append(ParseProblem(1, raw_at(1), f"The XML text cannot be encoded ({exc}); save the file as UTF-8."))
    return Decklist("mtgo_dek", tuple(entries), tuple(problems), None, source, notes=tuple(notes))


# --------------------------------------------------------------------------- JSON caches

_COUNT_KEYS = ("count", "Count", "quantity", "Quantity", "qty", "amount")
_NAME_KEYS = ("name", "Name", "CardName", "card_name", "cardName", "card")
_SECTION_KEYS = {
    "mainboard": "main",
    "Mainboard": "main",
    "main_deck": "main",
    "maindeck": "main",
    "main": "main",
    "MainBoard": "main",
    "sideboard": "sideboard",
    "Sideboard": "sideboard",
    "SideBoard": "sideboard",
    "side": "sideboard",
    "commanders": "commander",
    "Commanders": "commander",
    "commander": "commander",
    "Commander": "commander",
    "companion": "companion",
    "Companion": "companion",
    "maybeboard": "maybeboard",
    "Maybeboard": "maybeboard",
}


class _LineFinder:
    """Finds, in order, the file line where each card name value appears (JSON gives no positions)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
        self.pos = 0

    def find(self, name: str) -> int:
        for enc in (json.dumps(name, ensure_ascii=False), json.dumps(name)):
            i = self.text.find(enc, self.pos)
            while i != -1:
                j = i - 1
                while j >= 0 and self.text[j] in " \t\r\n":
                    j -= 1
                if j >= 0 and self.text[j] == ":":
                    self.pos = i + len(enc)
                    return bisect_right(self.starts, i)
                i = self.text.find(enc, i + 1)
        return 0


def _first(d: dict[str, Any], keys: Sequence[str]) -> Any:
    for k in keys:
        if k in d:
            return d[k]
    return None


def _deck_from_json(
    deck: dict[str, Any],
    *,
    source: str,
    finder: _LineFinder | None,
    player: str | None,
    event: str | None,
    event_format: str | None,
    name: str | None,
    commander_in_sideboard: bool | None,
) -> Decklist:
    entries: list[DeckEntry] = []
    problems: list[ParseProblem] = []
    notes: list[ParseProblem] = []
    for key, value in deck.items():
        sec = _SECTION_KEYS.get(key)
        if sec is None:
            continue
        if value is None:
            continue
        if not isinstance(value, list):
            problems.append(
                ParseProblem(
                    0,
                    f"{key}: {str(value)[:MAX_ECHO]}",
                    f'\'{key}\' is not a list of {{"count": 4, "name": "Lightning Bolt"}} objects.',
                )
            )
            continue
        for item in value:
            if not isinstance(item, dict):
                problems.append(
                    ParseProblem(
                        0,
                        str(item)[:MAX_ECHO],
                        f'An item of \'{key}\' is not an object like {{"count": 4, "name": "Lightning Bolt"}}.',
                    )
                )
                continue
            cname = _first(item, _NAME_KEYS)
            count = _first(item, _COUNT_KEYS)
            line = finder.find(cname) if (finder and isinstance(cname, str)) else 0
            raw = f"{count} {cname}"
            if not isinstance(cname, str) or _name_problem(cname.strip()):
                problems.append(
                    ParseProblem(
                        line,
                        raw,
                        f"An item of '{key}' has no usable card name; "
                        'expected {"count": 4, "name": "Lightning Bolt"}.',
                    )
                )
                continue
            if isinstance(count, str) and count.strip().isdigit():
                count = _count(count.strip())
            if count == 0 and not isinstance(count, bool):
                notes.append(ParseProblem(line, raw, f"'{echo(cname.strip())}' in '{echo(key)}': {_ZERO_NOTE}"))
                continue
            if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
                problems.append(
                    ParseProblem(
                        line,
                        raw,
                        f"'{echo(cname)}' in '{echo(key)}' has count {echo(repr(count))}; a count "
                        f"must be a whole number from 1 to {MAX_COUNT}: entry skipped.",
                    )
                )
                continue
            entries.append(DeckEntry(count, cname.strip(), sec, line, raw))

    side = [e for e in entries if e.section == "sideboard"]
    if commander_in_sideboard is None:
        label = f"{event_format or ''} {event or ''}".casefold()
        auto = "commander" in label and not any(e.section == "commander" for e in entries)
        commander_in_sideboard = auto and 1 <= sum(e.count for e in side) <= 2
    if commander_in_sideboard:
        entries = [
            DeckEntry(e.count, e.name, "commander", e.line, e.raw) if e.section == "sideboard" else e for e in entries
        ]
    return Decklist(
        "json_cache",
        tuple(entries),
        tuple(problems),
        name,
        source,
        player=player,
        event=event,
        event_format=event_format,
        notes=tuple(notes),
    )


def _unescape_topdeck(text: str) -> str:
    if "\n" not in text and "\\n" in text:
        text = text.replace("\\r\\n", "\n").replace("\\n", "\n")
    return text.replace("\\'", "'").replace('\\"', '"')


def _decks_from_obj(obj: Any, text: str, source: str, commander_in_sideboard: bool | None) -> list[Decklist] | None:
    """All decks in a parsed JSON document, or None when the shape is not a known deck cache."""
    finder = _LineFinder(text)
    kw: dict[str, Any] = {"source": source, "finder": finder, "commander_in_sideboard": commander_in_sideboard}
    if isinstance(obj, dict):
        decks = obj.get("decks", obj.get("Decks"))
        if isinstance(decks, list):
            t = obj.get("tournament", obj.get("Tournament")) or {}
            t = t if isinstance(t, dict) else {}
            event = _first(t, ("name", "Name"))
            fmt = _first(t, ("format", "Format", "Formats"))
            if isinstance(fmt, list):
                fmt = ", ".join(map(str, fmt))
            out = []
            for d in decks:
                if not isinstance(d, dict):
                    continue
                out.append(
                    _deck_from_json(
                        d,
                        player=_first(d, ("player", "Player")),
                        event=event,
                        event_format=fmt,
                        name=_first(d, ("name", "deck_name")),
                        **kw,
                    )
                )
            return out
        if isinstance(obj.get("decklist"), str):  # TopDeck.gg player object
            inner = parse_decklist(_unescape_topdeck(obj["decklist"]), source=source)
            return [
                Decklist(
                    "json_cache",
                    inner.entries,
                    inner.problems,
                    inner.name,
                    source,
                    player=obj.get("name") if isinstance(obj.get("name"), str) else None,
                    notes=inner.notes,
                )
            ]
        if any(k in obj for k in _SECTION_KEYS) and any(isinstance(obj.get(k), list) for k in _SECTION_KEYS):
            return [
                _deck_from_json(
                    obj,
                    player=obj.get("player"),
                    event=None,
                    event_format=obj.get("format"),
                    name=obj.get("name") if isinstance(obj.get("name"), str) else None,
                    **kw,
                )
            ]
        vals = list(obj.values())
        if vals and all(isinstance(v, dict) and any(k in v for k in _SECTION_KEYS) for v in vals):
            return [
                _deck_from_json(
                    v,
                    player=v.get("player"),
                    event=v.get("event"),
                    event_format=v.get("format"),
                    name=v.get("archetype") or v.get("name"),
                    **kw,
                )
                for v in vals
            ]
        return None
    if isinstance(obj, list) and obj and all(isinstance(v, dict) and any(k in v for k in _SECTION_KEYS) for v in obj):
        return [
            _deck_from_json(
                v,
                player=v.get("player"),
                event=None,
                event_format=v.get("format"),
                name=v.get("name") if isinstance(v.get("name"), str) else None,
                **kw,
            )
            for v in obj
        ]
    return None


# --------------------------------------------------------------------------- public entry points


def parse_decklist(text: str, *, source: str = "<text>") -> Decklist:
    """Parse a decklist in any supported format; never raises for a ``str``: problems are reported."""
    if not isinstance(text, str):
        raise TypeError(f"parse_decklist expects str, got {type(text).__name__}; use read_decklist for files")
    if text.startswith("\ufeff"):
        text = text[1:]
    if _looks_like_xml(text):
        return _parse_dek(text, source)
    if _starts_as_json(text):
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as exc:
            line, why = _json_error(text, exc)
            return Decklist(
                "json_cache",
                (),
                (ParseProblem(line, _line_at(text, line), f"{source}: {why}"),),
                None,
                source,
            )
        if obj is not None:
            decks = _decks_from_obj(obj, text, source, None)
            if decks is None:
                return _not_a_decklist(text, source, f"is JSON but no decklist: {_json_looks_like(obj)}")
            if decks is not None:
                if len(decks) == 1:
                    return decks[0]
                return Decklist(
                    "json_cache",
                    (),
                    (
                        ParseProblem(
                            1,
                            text.split("\n", 1)[0][:200],
                            f"This JSON holds {len(decks)} decklists, not one; read it with "
                            "read_decklists_json_cache().",
                        ),
                    ),
                    None,
                    source,
                )
    first = next((line for line in _LINE_SPLIT.split(text) if line.strip()), "")
    header = _csv_header(first)
    if header is not None:
        return _parse_csv(text, source, *header)
    looks = _text_looks_like(text)
    if looks is not None:
        return _not_a_decklist(text, source, looks)
    return _parse_text(text, source)


# --------------------------------------------------------------------------- CSV exports and files that are no deck

#: A CSV export's columns (casefolded), as the sites name them (see the module docstring): the count, the name,
#: the set code (Moxfield's Edition is a code; Deckbox's is a set name, and its code is Edition Code), the
#: collector number, and a board/section column (Moxfield's deck CSV).
_CSV_COUNT = ("count", "quantity", "qty")
_CSV_NAME = ("name", "card name")
_CSV_SET = ("set code", "edition code", "edition", "set")
_CSV_NUMBER = ("collector number", "card number")
_CSV_BOARD = ("board", "section")
_SET_CODE = re.compile(r"[A-Za-z0-9]{2,6}")


def _csv_fields(line: str, delimiter: str) -> list[str]:
    """The fields of one CSV line; split at each delimiter when the csv module refuses it (a field over its limit
    of 131,072 characters raised csv.Error: no card line holds one, and the name check says why)."""
    try:
        return next(csv.reader([line], delimiter=delimiter), [])
    except csv.Error:
        return line.split(delimiter)


def _csv_header(first_line: str) -> tuple[str, list[str]] | None:
    """The delimiter and the (casefolded) columns of a first line that is a CSV export's header: one column of
    :data:`_CSV_COUNT` and one of :data:`_CSV_NAME`; None for any other line."""
    for delimiter in (",", "\t", ";"):
        if delimiter in first_line:
            columns = [c.strip().casefold() for c in _csv_fields(first_line, delimiter)]
            if any(c in _CSV_COUNT for c in columns) and any(c in _CSV_NAME for c in columns):
                return delimiter, columns
    return None


def _parse_csv(text: str, source: str, delimiter: str, columns: list[str]) -> Decklist:
    """A Moxfield, Archidekt, Deckbox or ManaBox CSV export (any CSV with a count and a name column): one entry
    a row, its line the row's line in the file; a bad row is a problem, as a bad text line is."""

    def column(names: Sequence[str]) -> int | None:
        return next((columns.index(n) for n in names if n in columns), None)

    at_count, at_name = column(_CSV_COUNT), column(_CSV_NAME)
    assert at_count is not None and at_name is not None  # _csv_header's test
    at_number, at_board = column(_CSV_NUMBER), column(_CSV_BOARD)
    set_columns = [columns.index(n) for n in _CSV_SET if n in columns]
    entries: list[DeckEntry] = []
    problems: list[ParseProblem] = []
    notes: list[ParseProblem] = []
    lines = _LINE_SPLIT.split(text)
    header_line = next(i for i, line in enumerate(lines, 1) if line.strip())
    for number, raw in enumerate(lines[header_line:], header_line + 1):
        if not raw.strip():
            continue
        row = [field.strip() for field in _csv_fields(raw, delimiter)]
        if len(row) <= max(at_count, at_name):
            problems.append(
                ParseProblem(number, raw, f"This row has {len(row)} columns; the header names {len(columns)}.")
            )
            continue
        written, name = row[at_count], row[at_name]
        if not re.fullmatch(r"\d{1,12}", written):
            problems.append(
                ParseProblem(number, raw, f"The count '{echo(written)}' is not a whole number; write e.g. 4.")
            )
            continue
        count = int(written)
        bad = _name_problem(name)
        if bad:
            problems.append(ParseProblem(number, raw, bad))
            continue
        if count == 0:
            notes.append(ParseProblem(number, raw, f"'{echo(name)}': {_ZERO_NOTE}"))
            continue
        if count > MAX_COUNT:
            problems.append(ParseProblem(number, raw, f"The count {count} is over {MAX_COUNT}, which no deck needs."))
            continue
        board = _header_section(row[at_board]) if at_board is not None and at_board < len(row) else None
        section = board[0] if board and board[0] in SECTIONS else "main"
        code = next(
            (row[i].upper() for i in set_columns if i < len(row) and _SET_CODE.fullmatch(row[i])),
            None,
        )
        collector = row[at_number] if at_number is not None and at_number < len(row) and row[at_number] else None
        entries.append(DeckEntry(count, name, section, number, raw, code, collector))
    return Decklist("csv", tuple(entries), tuple(problems), None, source, notes=tuple(notes))


def _json_looks_like(obj: Any) -> str:
    """What a JSON document that holds no deck is, in a few words (a Scryfall object says its kind)."""
    if isinstance(obj, dict):
        kind = obj.get("object")
        if kind == "card" and isinstance(obj.get("name"), str):
            return f"a Scryfall card object ({echo(obj['name'])})"
        if isinstance(kind, str) and kind:
            return f"a Scryfall {echo(kind)} object"
        if not obj:
            return "an empty object"
        keys = ", ".join(echo(str(k)) for k in list(obj)[:4])
        return f"an object with the keys {keys}" + (", …" if len(obj) > 4 else "")
    if isinstance(obj, list):
        first = obj[0] if obj else None
        if isinstance(first, dict) and first.get("object") == "card":
            return f"a list of {len(obj):,} Scryfall card objects (a bulk file: `oracle-tools ingest` reads it)"
        return f"a list of {len(obj):,} values"
    return f"a lone {type(obj).__name__} value"


#: A Markdown table's rule under its header (``|---|---:|``, ``--- | ---``): a line no decklist has.
_MARKDOWN_TABLE_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?")


def _text_looks_like(text: str) -> str | None:
    """What a text whose lines are no decklist's looks like, when it has a shape no decklist has: CSV rows with a
    count but no header naming the columns, lines of colon-separated fields (/etc/passwd), key=value settings,
    markup. None for anything else (a decklist, or text left to the line parser)."""
    lines = [line.strip() for line in _LINE_SPLIT.split(text) if line.strip()][:200]
    if not lines:
        return None
    for delimiter, what in ((",", "CSV"), ("\t", "tab-separated values"), (";", "semicolon-separated values")):
        rows = [_csv_fields(line, delimiter) for line in lines]
        widths = {len(row) for row in rows}
        numbered = all(any(re.fullmatch(r"\d+", f.strip()) for f in row) for row in rows)
        if delimiter == "\t" and all(re.fullmatch(r"\d+", row[0].strip()) for row in rows):
            continue  # "4<TAB>Lightning Bolt": a count and a name, which the line parser reads
        if len(widths) == 1 and min(widths) >= 2 and numbered:
            return (
                f"looks like {what} with {min(widths)} columns and no header naming a Count (or Quantity) column and "
                "a Name column; the CSV exports of Moxfield, Archidekt, Deckbox and ManaBox begin with such a header"
            )
    if all(line.count(":") >= 2 and " " not in line.split(":", 1)[0] for line in lines):
        return "looks like lines of colon-separated fields (like /etc/passwd), not a decklist"
    if lines[0].startswith("<") and lines[-1].endswith(">"):
        return "looks like markup (HTML or XML), not a decklist or an MTGO .dek file"
    if any(_MARKDOWN_TABLE_RULE.fullmatch(line) for line in lines):  # a README, a SOURCES.md: no deck has one
        return "looks like a Markdown document (it has a table's |---| line), not a decklist"
    settings = [bool(re.match(r"[\w.\-]+\s*=", line)) for line in lines]
    if any(settings) and all(s or line.startswith(("#", ";", "[")) for s, line in zip(settings, lines, strict=True)):
        return "looks like key=value settings, not a decklist"
    return None


def _not_a_decklist(text: str, source: str, looks: str) -> Decklist:
    """The answer for a text that is no decklist: no entries, one problem, and :attr:`Decklist.not_a_decklist`,
    said in one line that begins with the source; what a decklist is, in the same line."""
    said = f"{source}: {looks}; a decklist has lines such as {_EXAMPLE}"
    first = next((line for line in _LINE_SPLIT.split(text) if line.strip()), "")
    return Decklist("plain", (), (ParseProblem(1, first, said),), None, source, not_a_decklist=said)


#: After "[": what begins a JSON value (a Forge "[metadata]" or MWS "[M11] Name" line is text, not JSON).
_JSON_LIST_START = re.compile(r"\[\s*(?:[\[{\"\]\d-]|true|false|null|$)")


def _starts_as_json(text: str) -> bool:
    """Whether text begins as a JSON document: an object, or a list whose first value begins."""
    head = text.lstrip()
    return head.startswith("{") or _JSON_LIST_START.match(head[:64]) is not None


def _json_error(text: str, exc: ValueError | RecursionError) -> tuple[int, str]:
    """The line a JSON document fails at and the words saying why: 'is not valid JSON (…at line L column C); …'."""
    fix = "fix the file, or export the deck as text (4 Lightning Bolt a line)"
    if isinstance(exc, json.JSONDecodeError):
        return exc.lineno, f"is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); {fix}."
    if isinstance(exc, RecursionError):
        return 1, f"is not valid JSON (nested too deeply to read); {fix}."
    if "integer string conversion" in str(exc):  # Python's limit on a number's digits: valid JSON, refused
        return 1, f"holds a number of more than {sys.get_int_max_str_digits():,} digits, which no count has; {fix}."
    return 1, f"is not valid JSON ({exc}); {fix}."


def _line_at(text: str, line: int) -> str:
    """Line ``line`` (1-based) of ``text``, without reading past it."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)]


def read_decklist_text(path: Path) -> str:
    """The text of the decklist file at ``path``, size-checked and decoded; a missing, unreadable or binary file is
    one :class:`DecklistError` line."""
    path = Path(path)
    if not path.exists():
        raise DecklistError(f"{path}: no such file; check the path (relative paths start from {Path.cwd()}).")
    if path.is_dir():
        raise DecklistError(f"{path}: is a folder, not a decklist file; give the path of one file.")
    try:
        data = userfiles.read_bytes(path, limit=MAX_DECKLIST_BYTES, what="decklist or deck cache", error=DecklistError)
    except OSError as exc:
        raise DecklistError(f"{path}: cannot be read ({exc.strerror or exc}); check its permissions.") from exc
    except InputTooLargeError as exc:  # a DecklistError: check_decks makes it one parse_error row
        raise DecklistError(str(exc)) from None
    return decode_decklist(data, str(path))


def decode_decklist(data: bytes, source: str) -> str:
    """A decklist's bytes as text (UTF-8 with or without BOM, UTF-16 with BOM, Windows-1252, Latin-1), or the
    DecklistError saying why they are none (empty, binary, undecodable); messages begin with ``source``."""
    text = userfiles.decode_text(data, source, userfiles.DECKLIST)
    _refuse_lone_surrogates(source, text)
    return text


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _refuse_lone_surrogates(source: str, text: str) -> None:
    """A JSON deck whose "\\ud800" escape decodes to a lone surrogate names no card and could be printed by no
    encoding: refused in one true line (the file itself is valid UTF-8)."""
    if text.lstrip()[:1] not in ("{", "[") or not _SURROGATE_ESCAPE.search(text):
        return
    try:
        where = lone_surrogate(json.loads(text))
    except (ValueError, RecursionError):
        return  # not JSON after all: read as text
    if where is not None:
        raise DecklistError(
            f"{source}: its JSON holds a lone surrogate ({where}), which is no Unicode character; "
            "fix that name and send text"
        )


def read_decklist(path: Path) -> Decklist:
    """Read one decklist file (any format; .dek XML and JSON detected by content).

    Raises DecklistError when the file is missing, a folder, binary, undecodable or empty, or begins as JSON and
    does not parse.
    UTF-8 (with or without BOM), UTF-16 with BOM, CRLF and Windows-1252 / Latin-1 files are read.
    """
    text = read_decklist_text(Path(path))
    return refuse_unreadable(parse_decklist(text, source=str(path)))


def refuse_unreadable(deck: Decklist) -> Decklist:
    """``deck``, or the DecklistError of a file that begins as JSON and does not parse (a file readers' error, as
    for an empty or binary file: one line, never a deck of 0 cards judged)."""
    if deck.not_a_decklist is not None:
        raise DecklistError(deck.not_a_decklist)
    if deck.format == "json_cache" and not deck.entries and len(deck.problems) == 1:
        detail = deck.problems[0].detail
        if detail.startswith((f"{deck.source}: is not valid JSON (", f"{deck.source}: holds a number of more than ")):
            raise DecklistError(detail)
    return deck


def read_decklists_json_cache(path: Path, *, commander_in_sideboard: bool | None = None) -> list[Decklist]:
    """Read every deck of a tournament JSON cache file.

    Shapes: Spigushe/barrins ``{"tournament", "decks": [{"player", "mainboard": [{count, name}],
    "sideboard"}]}``, Badaro/fbettega ``{"Tournament", "Decks": [{"Player", "Mainboard": [{Count,
    CardName}], "Sideboard"}]}``, ``{key: {player, main_deck, sideboard}}`` objects, a list of deck objects,
    and TopDeck.gg player objects (``decklist`` text with ``~~Commanders~~`` sections).

    ``commander_in_sideboard``: True moves every sideboard entry to the "commander" section (mtgtop8 /
    MTGO / Melee Commander decks keep the commander(s) there); False keeps them as sideboard; None
    (default) decides per deck: True when the event's format or name says Commander and the sideboard
    holds 1 or 2 cards (so a 128-card "maybeboard" spilled into Sideboard, or Unfinity sticker sheets
    next to the commander, stay sideboard entries - pass True to force).

    Entries carry the file line of the card's name and raw = "<count> <name>". Invalid items (a missing name,
    a bad count) become ParseProblems; a count-0 item is no card in the deck: a note (``Decklist.notes``). Raises DecklistError if the file is unreadable,
    not JSON, or holds no decklists.
    """
    path = Path(path)
    return decklists_from_json(read_decklist_text(path), str(path), commander_in_sideboard=commander_in_sideboard)


def decklists_from_json(text: str, source: str, *, commander_in_sideboard: bool | None = None) -> list[Decklist]:
    """Every deck of a tournament JSON cache's text (the shapes of :func:`read_decklists_json_cache`); messages
    begin with ``source``."""
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise DecklistError(f"{source}: is not JSON ({exc}); for a text or .dek decklist use read_decklist().") from exc
    decks = _decks_from_obj(obj, text, source, commander_in_sideboard)
    if decks is None:
        raise DecklistError(
            f'{source}: is JSON but holds no decklists (expected {{"decks": [{{"mainboard": '
            '[{"count", "name"}], "sideboard": [...]}]}} or the Badaro "Decks" shape); '
            "check this is a deck cache and not e.g. match results."
        )
    return decks


# --------------------------------------------------------------------------- rendering


def _entries(deck: Decklist | Iterable[DeckEntry]) -> list[DeckEntry]:
    return list(deck.entries) if isinstance(deck, Decklist) else list(deck)


def render_mtgo_txt(deck: Decklist | Iterable[DeckEntry]) -> str:
    """MTGO text: main deck, a blank line, then sideboard + commander(s) + companion (as MTGO does).

    Maybeboard entries are left out (MTGO has no maybeboard).
    """
    es = _entries(deck)
    main = [f"{e.count} {e.name}" for e in es if e.section == "main"]
    side = [f"{e.count} {e.name}" for e in es if e.section in ("sideboard", "companion", "commander")]
    out = main + (["", *side] if side else [])
    return "\n".join(out) + "\n"


def render_arena(deck: Decklist | Iterable[DeckEntry], *, name: str | None = None) -> str:
    """MTG Arena export text (with ``(SET) 123`` where the entries have a set code)."""
    es = _entries(deck)
    if name is None and isinstance(deck, Decklist):
        name = deck.name
    blocks: list[str] = []
    if name:
        blocks.append(f"About\nName {name}")
    for sec, header in (
        ("commander", "Commander"),
        ("companion", "Companion"),
        ("main", "Deck"),
        ("sideboard", "Sideboard"),
        ("maybeboard", "Maybeboard"),
    ):
        rows = []
        for e in es:
            if e.section != sec:
                continue
            suffix = (
                f" ({e.set_code}) {e.collector_number}"
                if e.set_code and e.collector_number
                else (f" ({e.set_code})" if e.set_code else "")
            )
            rows.append(f"{e.count} {e.name}{suffix}")
        if rows:
            blocks.append(header + "\n" + "\n".join(rows))
    return "\n\n".join(blocks) + "\n"


def render_dek(deck: Decklist | Iterable[DeckEntry]) -> str:
    """MTGO .dek XML (no CatIDs: we do not know MTGO's catalogue ids; commander/companion go to the sideboard)."""
    from xml.sax.saxutils import quoteattr  # imports urllib (~30 ms): only writing a .dek needs it

    rows = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<Deck xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
        "  <NetDeckID>0</NetDeckID>",
        "  <PreconstructedDeckID>0</PreconstructedDeckID>",
    ]
    for e in _entries(deck):
        if e.section == "maybeboard":
            continue
        sb = "false" if e.section == "main" else "true"
        rows.append(f'  <Cards Quantity="{e.count}" Sideboard="{sb}" Name={quoteattr(e.name)} Annotation="0" />')
    rows.append("</Deck>")
    return "\n".join(rows) + "\n"
