"""Reading Oracle text: THE layer every feature reads card text through.

What lives here, so a new reading rule has one home:

* reminder text (CR 207.2: italic parenthesised text, never rules) — :func:`reminder_spans`,
  :func:`strip_reminders`, :func:`mask_reminders` (same length, so spans stay valid);
* quoted abilities (an ability a token or object gains, CR 113.1) — :func:`quote_mask`;
* where a piece of text sits — rules text, reminder text or a quoted ability — :func:`sources`,
  :func:`segments` (the tokens layer reads its "create …" clauses with them);
* number words — :func:`number_value` (from :mod:`oracle_tools.text.vocabulary`);
* name mentions — :func:`name_mentions`: the card's own full name (``self``, CR 201.5), a shortened
  name of a legendary card (``self_short``, CR 201.5c: the part before the comma — "Thalia" on Thalia,
  Guardian of Thraben), "named X" (``named``: "a card named X", "cards named X", "token named X";
  ``named`` even when X is the card's own name, as on Relentless Rats, because it means every object
  with that name, so CR 201.5 does not make it a self-reference) and a token's given name
  (``token_name``, CR 111.9: "create Marit Lage, a legendary 20/20 ...").
* whether a phrase means the object itself ("this creature", its name, CR 201.5) — :func:`refers_to_self`.
* a card's own deck limit ("A deck can have up to seven cards named Seven Dwarves") — :func:`deck_limit_before`,
  read at the ``named`` mention, so "cards named X" is recognised in one place (the deck checker uses it).

The ``name_references`` table (docs/views.md) stores :func:`name_mentions` for every face at ingest;
:func:`replace_self_references` gives the CARDNAME / ``~`` form analysts use for clustering.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from oracle_tools.text.vocabulary import number_value

__all__ = [
    "CREATURE_OFF_THE_BATTLEFIELD_PATTERN",
    "KINDS",
    "REMINDER_WITH_SPACE_PATTERN",
    "SELF_PLACEHOLDERS",
    "SOURCES",
    "Mention",
    "MentionIndex",
    "Segment",
    "deck_limit_before",
    "mask_reminders",
    "name_mentions",
    "number_value",
    "quote_mask",
    "refers_to_self",
    "reminder_spans",
    "replace_self_references",
    "segments",
    "short_name",
    "sources",
    "strip_reminders",
]

#: The kinds of name mention, in the order a reader meets them in docs/views.md.
KINDS: tuple[str, ...] = ("self", "self_short", "named", "token_name")

#: CR 207.2 reminder text and the space before it, as a regular expression that Python ``re`` and DuckDB's RE2
#: read alike (search/compiler.py strips reminder text in SQL with it, for Scryfall's ``o:``).
REMINDER_WITH_SPACE_PATTERN = r"\s*\([^)]*\)"
_REMINDER = re.compile(r"\([^)]*\)")
#: CR 113.6c: "An ability that states which zones it doesn't function in functions everywhere except for the specified
#: zones, even outside the game and before the game begins." Grist, the Hunger Tide's "As long as Grist isn't on the
#: battlefield, it's a 1/1 Insect creature in addition to its other types." (an earlier wording names it in full,
#: "Grist, the Hunger Tide", comma and all) makes it a creature card off the battlefield. Case-insensitive, line by
#: line; Python ``re`` and DuckDB's RE2 read it alike (decks/cardrules.py, is:commander).
CREATURE_OFF_THE_BATTLEFIELD_PATTERN = r"^as long as [^.\n]+? isn't on the battlefield, it's an? [^.\n]*?\bcreature\b"
_REMINDER_WITH_SPACE = re.compile(REMINDER_WITH_SPACE_PATTERN)


def reminder_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each parenthesised reminder text (CR 207.2), parentheses included."""
    return [m.span() for m in _REMINDER.finditer(text)]


def strip_reminders(text: str) -> str:
    """``text`` without its reminder text (and the space before it)."""
    return _REMINDER_WITH_SPACE.sub("", text)


def mask_reminders(text: str, fill: str = " ") -> str:
    """``text`` with each reminder text replaced by ``fill`` characters: same length, so offsets still hold."""
    return _REMINDER.sub(lambda m: fill * len(m.group()), text)


def quote_mask(s: str, *, strict: bool = True) -> list[bool]:
    """in_quote[i] is True when s[i] lies inside a quoted ability.

    Double quotes (straight or curly) must balance, else ValueError (with ``strict=False`` an unclosed
    one runs to the end of ``s``: reading card text never fails on a typo). Single quotes (as used for
    abilities nested in an Oracle quote: 'This token gets +1/+1 ...') count only when an opening
    one (at the start or after a space or "(") has a closing one not followed by a letter; other
    single quotes are apostrophes ("can't", "opponents'").
    """
    n = len(s)
    mask = [False] * n
    after = 0  # the first character not yet inside a quote: an opening mark before it is inside one
    for found in _OPENING_MARKS.finditer(s):  # only the quote marks are looked at, not every character
        i = found.start()
        if i < after:
            continue
        ch = s[i]
        if ch in '"\u201c':
            closer = '"' if ch == '"' else "\u201d"
            j = s.find(closer, i + 1)
            if j == -1:
                if strict:
                    raise ValueError(f"unbalanced quotation marks in token description {s!r}")
                j = n - 1
        elif ch == "\u2018" or ((i == 0 or s[i - 1] in " (") and i + 1 < n and not s[i + 1].isspace()):
            closer = "\u2019" if ch == "\u2018" else "'"
            j = s.find(closer, i + 1)
            while j != -1 and j + 1 < n and s[j + 1].isalnum():
                j = s.find(closer, j + 1)
            if j == -1:
                continue
        else:
            continue  # an apostrophe
        mask[i : j + 1] = [True] * (j + 1 - i)
        after = j + 1
    return mask


_OPENING_MARKS = re.compile("[\"\u201c\u2018']")


#: Where a piece of Oracle text sits: rules text, reminder text (CR 207.2) or a quoted ability (CR 113.1).
SOURCES: tuple[str, ...] = ("text", "reminder", "quoted")


@dataclass(frozen=True)
class Segment:
    """A run of one face's text from one source: ``text[start:end]``; quotes and parentheses included."""

    start: int
    end: int
    text: str
    source: str  # one of SOURCES


def sources(text: str) -> list[str]:
    """The source of each character of ``text``: ``quoted`` inside a quoted ability (also within reminder
    text), else ``reminder`` inside parentheses, else ``text``. Never raises (see :func:`quote_mask`)."""
    quoted = quote_mask(text, strict=False)
    if "(" not in text:  # no reminder text: each character is quoted or not
        return ["quoted" if q else "text" for q in quoted]
    out: list[str] = []
    depth = 0
    for ch, q in zip(text, quoted, strict=True):
        if q:
            out.append("quoted")
            continue
        if ch == "(":
            depth += 1
        out.append("reminder" if depth else "text")
        if ch == ")":
            depth = max(0, depth - 1)
    return out


def segments(text: str) -> list[Segment]:
    """``text`` cut into runs of one source each (:data:`SOURCES`), in order; together they cover ``text``.

    >>> [(s.text, s.source) for s in segments('Flying (It can fly.) and "Create a Food token."')]
    [('Flying ', 'text'), ('(It can fly.)', 'reminder'), (' and ', 'text'), ('"Create a Food token."', 'quoted')]
    """
    out: list[Segment] = []
    start = 0
    marks = sources(text)
    for i in range(1, len(text) + 1):
        if i == len(text) or marks[i] != marks[start]:
            out.append(Segment(start, i, text[start:i], marks[start]))
            start = i
    return out


# --------------------------------------------------------------------------- name mentions


@dataclass(frozen=True, order=True)
class Mention:
    """One mention of a name in one face's Oracle text: ``text[start:end] == text_as_written``."""

    start: int
    end: int
    text: str
    kind: str  # one of KINDS
    name: str  # the name mentioned: the full name for self_short, the quoted-off name for named


class MentionIndex:
    """Known names (cards, faces, interchangeable names, tokens) for reading "named X".

    "named " is followed by a name that may itself hold commas and lower-case words
    ("named Gisela, the Broken Blade", "named Kobolds of Kher Keep"), so the longest known name the
    text continues with wins; an unknown name is read as a run of capitalised words.
    """

    def __init__(self, names: Iterable[str]) -> None:
        self._names = frozenset(n for n in names if n)
        self._longest = max(map(len, self._names), default=0)

    def longest_at(self, text: str, at: int) -> str | None:
        """The longest known name ``text`` continues with at ``at`` (ending at a word boundary), or None.

        A name ends where a word does, so only the word ends within the longest name's length are tried,
        longest first: a few set lookups instead of a scan of every name with the same first letter."""
        rest = text[at : at + self._longest + 1]
        for end in range(min(len(rest), self._longest), 0, -1):
            ends = (end == len(rest) and at + end == len(text)) or (end < len(rest) and not _is_word(rest[end]))
            if ends and rest[:end] in self._names:
                return rest[:end]
        return None


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch in "_-"


_NAMED = re.compile(r"\bnamed\s+")
# Another card named without "named": "Partner with X" (CR 702.124j: "... search their library for a card named X"),
# a meld card's "(Melds with X.)" and "meld them into X" (CR 701.42a, 712.4a). Only a known name is read here.
_NAMES_ANOTHER = re.compile(r"(?:\bPartner with|\b[Mm]elds with|\bmeld them into) ")
# An unknown name after "named": capitalised words, joined by spaces, "of"/"the"/"and"/"de", apostrophes.
_CAPITALISED_NAME = re.compile(
    r"[\"\u201c]?(?P<name>[A-Z0-9][\w'\u2019-]*(?:,? (?:(?:of|the|and|de|du|a|an|in|to|from) )*[A-Z0-9][\w'\u2019-]*)*)"
)
# CR 111.9: "create Marit Lage, a legendary 20/20 black Avatar creature token" — a token's given name.
# The name may hold a comma and lower-case joining words: "create Voja, Friend to Elves, a legendary 3/3 …"
# (Tolsimir, Friend to Wolves), "create Scion of the Deep, a legendary 8/8 …" (Kiora, the Rising Tide); "Create
# Tamiyo's Notebook, a legendary …" starts a sentence (Tamiyo, Compleated Sage).
_TOKEN_GIVEN_NAME = re.compile(
    r"\b[Cc]reates? (?P<name>[A-Z][\w'\u2019-]*(?:,? (?:(?:of|the|to|and|from|in) )*[A-Z][\w'\u2019-]*)*),"
    r" (?:a|an) (?:legendary )?[^.]*?\btoken\b"
)
# A known name followed directly by more capitalised words is the start of a longer name: "a … token named
# Stangg Twin" (Stangg), "… token named Smoke Blessing" (Smoke Spirits' Aid) — not the cards Stangg / Smoke.
_MORE_CAPITALISED = re.compile(r"(?: [A-Z][\w'\u2019-]*)+")


def short_name(name: str, type_line: str | None) -> str | None:
    """CR 201.5c: the shortened name of a legendary card — the part of its name before the comma."""
    if not type_line or "Legendary" not in type_line or ", " not in name:
        return None
    short = name.split(", ", 1)[0].strip()
    return short or None


def _occurrences(text: str, needle: str) -> list[tuple[int, int]]:
    """Every occurrence of ``needle`` in ``text`` that starts and ends at a word boundary (case-sensitive)."""
    out: list[tuple[int, int]] = []
    if not needle:
        return out
    start = text.find(needle)
    while start != -1:
        end = start + len(needle)
        if (start == 0 or not _is_word(text[start - 1])) and (end == len(text) or not _is_word(text[end])):
            out.append((start, end))
        start = text.find(needle, start + 1)
    return out


def _overlaps(span: tuple[int, int], taken: Sequence[tuple[int, int]]) -> bool:
    return any(span[0] < e and s < span[1] for s, e in taken)


def name_mentions(
    text: str | None,
    self_names: Sequence[str],
    *,
    type_line: str | None = None,
    names: MentionIndex | None = None,
    subtypes: Iterable[str] = (),
    other_names: Iterable[str] = (),
) -> list[Mention]:
    """Every name mention in one face's Oracle text, in text order.

    ``self_names``: the names this object has (the face's name first, then the card's full name and
    its other faces' names — CR 201.5 makes each of them a self-reference). ``type_line`` decides
    whether CR 201.5c shortened names apply (legendary only). ``names`` reads "named X" against the
    known names; ``subtypes`` (e.g. "Urza’s") keep a shortened name that is really a subtype word
    from being read as the card ("Urza’s Mine" on Urza, Lord High Artificer; "each Garruk you control").
    ``other_names`` (the card's other faces) are never read as shortened names ("Itlimoc" inside
    "transforms from Growing Rites of Itlimoc").
    """
    if not text:
        return []
    mentions: list[Mention] = []
    taken: list[tuple[int, int]] = []
    # 1. "named X": every object with that name (never a self-reference, even for the card's own name).
    for m in _NAMED.finditer(text):
        at = m.end()
        quoted = text[at : at + 1] in ("\u201c", '"')
        found = names.longest_at(text, at + quoted) if names is not None else None
        more = _MORE_CAPITALISED.match(text, at + quoted + len(found)) if found and found[-1].isalnum() else None
        if found is not None and more is not None:  # not after "S.N.O.T.": there the next sentence starts
            found += more.group()
        if found is None:
            cap = _CAPITALISED_NAME.match(text, at)
            if cap is None:
                continue
            found = cap.group("name").rstrip(",")
            if not found:
                continue
        start = at + quoted
        mentions.append(Mention(start, start + len(found), found, "named", found))
        taken.append((start, start + len(found)))
    # 1b. "Partner with X", "Melds with X", "meld them into X": that card, by one of its names.
    if names is not None:
        for m in _NAMES_ANOTHER.finditer(text):
            other = names.longest_at(text, m.end())
            if other is None:
                continue
            span = (m.end(), m.end() + len(other))
            if not _overlaps(span, taken):
                mentions.append(Mention(span[0], span[1], other, "named", other))
                taken.append(span)
    # 2. CR 111.9: "create X, a [legendary] ... token" gives the token the name X.
    for m in _TOKEN_GIVEN_NAME.finditer(text):
        span = m.span("name")
        if not _overlaps(span, taken):
            mentions.append(Mention(span[0], span[1], m.group("name"), "token_name", m.group("name")))
            taken.append(span)
    # 3. CR 201.5: the object's own names, longest first so "Fire // Ice" beats "Fire".
    for own in sorted(dict.fromkeys(n for n in self_names if n), key=len, reverse=True):
        for span in _occurrences(text, own):
            if not _overlaps(span, taken):
                mentions.append(Mention(span[0], span[1], own, "self", self_names[0] if self_names else own))
                taken.append(span)
    # 4. CR 201.5c: a legendary card's shortened name.
    short = short_name(self_names[0], type_line) if self_names else None
    if short is not None:
        subtype_words = {w.replace("\u2019", "'") for w in subtypes}
        blocked = [span for other in other_names if other for span in _occurrences(text, other)]
        for span in _occurrences(text, short):
            if _overlaps(span, taken) or _overlaps(span, blocked) or _is_subtype_use(text, span, subtype_words):
                continue
            longer = names.longest_at(text, span[0]) if names is not None else None
            if longer is not None and len(longer) > len(short):
                continue  # the start of another card's name: "Ajani’s Pridemate" on Ajani, Strength of the Pride
            mentions.append(Mention(span[0], span[1], short, "self_short", self_names[0]))
            taken.append(span)
    return sorted(mentions)


def _is_subtype_use(text: str, span: tuple[int, int], subtype_words: set[str]) -> bool:
    """The shortened name used as a subtype: "Urza’s" land type (CR 205.3i), "Jace planeswalker" (205.3j)."""
    word = text[span[0] : span[1]]
    after = text[span[1] : span[1] + 14].replace("\u2019", "'")
    if after.startswith("'s") and f"{word}'s" in subtype_words:
        return True
    if word not in subtype_words:
        return False
    before = text[max(0, span[0] - 9) : span[0]]
    return after.startswith(" planeswalker") or bool(_DETERMINER_BEFORE.search(before))


# "each Garruk you control", "another Jace": a determiner makes the word a subtype (CR 205.3j), not a name.
_DETERMINER_BEFORE = re.compile(r"\b(?:each|a|an|another|target|other|all|no)\s$", re.IGNORECASE)


#: The placeholders :func:`replace_self_references` writes for a self-reference (and older text used).
SELF_PLACEHOLDERS: tuple[str, ...] = ("CARDNAME", "~")
_THIS_OBJECT = re.compile(r"this (?P<word>[a-z][a-z’'-]*)", re.IGNORECASE)


@functools.cache
def _object_words() -> frozenset[str]:
    """Words of "[this object]" (CR 603.6a, 607.2a): card types (205.2a), subtypes (205.3), object words."""
    from oracle_tools.text import vocabulary

    kinds = [*vocabulary.card_types(), *vocabulary.OBSOLETE_CARD_TYPES]
    kinds += [t for types in vocabulary.all_subtypes().values() for t in types]
    return frozenset(w.lower() for w in (*kinds, "card", "permanent", "spell", "token", "object"))


def refers_to_self(
    phrase: str, self_names: Sequence[str], *, type_line: str | None = None, this_object: bool = True
) -> bool:
    """Whether ``phrase`` as a whole means the object whose text it is on: its own name (CR 201.5), its
    shortened name (201.5c, legendary only), a :data:`SELF_PLACEHOLDERS` form, or — with ``this_object`` —
    "this creature" / "this card" / "this Vehicle" (the "[this object]" of CR 603.6a). Pass
    ``this_object=False`` inside a quoted ability an object grants: there "this creature" is whatever has
    the ability (Splinter Twin), while a name still means the granting object (201.5a).
    """
    text = " ".join(phrase.split())
    if text.upper() in SELF_PLACEHOLDERS:
        return True
    this = _THIS_OBJECT.fullmatch(text)
    if this is not None:
        return this_object and this.group("word").lower() in _object_words()
    found = name_mentions(text, self_names, type_line=type_line)
    return any(m.kind in ("self", "self_short") and (m.start, m.end) == (0, len(text)) for m in found)


def replace_self_references(text: str | None, mentions: Iterable[Mention], token: str = "CARDNAME") -> str:
    """``text`` with each ``self`` / ``self_short`` mention replaced by ``token`` (CARDNAME or ``~``)."""
    if not text:
        return text or ""
    out: list[str] = []
    pos = 0
    for m in sorted(mentions):
        if m.kind in ("self", "self_short") and m.start >= pos:
            out.append(text[pos : m.start])
            out.append(token)
            pos = m.end
    out.append(text[pos:])
    return "".join(out)


# --------------------------------------------------------------------------- deck limits

# CR 100.2a limits a constructed deck to four cards of one English name; a card's own text can override that
# ("A deck can have any number of cards named Relentless Rats", "... up to seven cards named Seven Dwarves",
# "... only one card named Once More with Feeling"). The lead-in is read right before the ``named`` mention
# that :func:`name_mentions` found, so X is read by the same rules as the ``name_references`` table.
_DECK_LIMIT_LEAD = re.compile(
    r"\bA deck can have (?:(?P<any>any number of)|up to (?P<upto>[\w-]+)|only (?P<only>[\w-]+)) cards? named \Z",
    re.IGNORECASE,
)


def deck_limit_before(text: str, start: int) -> float | None:
    """The copy limit a deck-limit sentence sets for the ``named`` mention starting at ``start``, or None.

    ``math.inf`` for "any number of", else the number ("up to seven" -> 7, "only one" -> 1, via
    :func:`number_value`). "Search your library for up to three cards named X" is no deck limit.

    >>> text = "A deck can have up to nine cards named Nazgûl."
    >>> deck_limit_before(text, text.index("Nazgûl"))
    9
    """
    m = _DECK_LIMIT_LEAD.search(text, 0, start)
    if m is None:
        return None
    if m.group("any"):
        return math.inf
    return number_value(m.group("upto") or m.group("only"))
