"""The one name matcher: what a string that is no card name (after folding) may mean.

Scryfall's fuzzy rule (``/cards/named?fuzzy=``) is the contract: the words typed are matched, in order, as words or
word prefixes of card names ("aust com" is Austere Command, "Ragavan" is Ragavan, Nimble Pilferer); one
card matched is the answer, several are ambiguous (Scryfall: "Too many cards match ambiguous name"). A lone
fragment counts inside words too ("tarmo" is Tarmogoyf, the one name it fits; "aust" also fits Exhaust and
Holocaust, so it is ambiguous). Spelling is corrected only after that: a word one edit away from a word of the
names (Damerau: a letter dropped, added, replaced or two swapped), else a clearly closest name — unless its words
are another name's in another order and the spelling is more than one slip away ("bolt lightning": Lightning Bolt
or Ball Lightning, ambiguous), and unless a whole word of the names typed has a different word in its place there
("Circle of Protection: Red" is not Circle of Protection: Blue: another card, not a misspelling; CR 201.2). A string
that shares no word or near word with any name matches nothing.

:class:`NameMatcher` answers from a :class:`WordIndex` built once (for the card names at ingest, kept in the
database: ``names.suggestions``), never from a scan of every name:

* :meth:`~NameMatcher.match`: the names the typed words match, best first, and whether the words had to
  be corrected first (a typo) — the resolver (``names.resolver.NameResolver``) turns the names into cards;
* :meth:`~NameMatcher.suggest`: "did you mean": word and prefix matches of the whole input first (ties: the
  fewest corrections, then the more often printed card), then close spellings among the names that share a
  word beginning or a near word with it (the fewest edits first, then rapidfuzz's Indel ratio, then the more
  often printed card).

One instance serves card names (the English names of ``names.resolver.SUGGESTED_VIAS``) and another token names;
every interface (CLI, library, HTTP API, web page, MCP, deck check, choose-name, token, refs) reaches it
through the resolver, so the same text gets the same answer everywhere.
"""

from __future__ import annotations

import math
import operator
import re
import sys
import unicodedata
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import Any

FOLD = str.maketrans(
    {
        "Æ": "Ae",
        "æ": "ae",
        "Œ": "Oe",
        "œ": "oe",
        "’": "'",
        "‘": "'",
        "ʼ": "'",
        "′": "'",
        "`": "'",
        "´": "'",
        "“": '"',
        "”": '"',
        "„": '"',
        "″": '"',
        "‐": "-",
        "‑": "-",
        "‒": "-",
        "–": "-",
        "—": "-",
    }
)
# Python's \s also matches the separators \x1c-\x1f, Rust's (Polars') does not: spell out the class.
_WS = r"[^\S\x1c-\x1f]"
_SLASHES = re.compile(rf"{_WS}*/+{_WS}*")
_SPACES = re.compile(rf"{_WS}+")
_INVISIBLE = ("Mn", "Cf")
# A blank is a word of a card's name (CR 201.2: the name is what the card's name line shows): Unfinity's "_____ Goblin"
# (a name sticker fills the blank in play) is not the Goblin token, and Unhinged's "_____" is all blank. A run of
# underscores standing on its own is one blank, written "_____" however many were typed ("________ Goblin" of a real
# decklist); one glued to a letter or digit ("Jace_the_Mind_Sculptor") goes as every other mark does.
BLANK = "_____"
_BLANK_GLUED_BEFORE = re.compile(r"([^\W_])_+")  # [^\W_]: a letter or digit (Polars: [\p{L}\p{N}])
_BLANK_GLUED_AFTER = re.compile(r"_+([^\W_])")
_BLANKS = re.compile(r"_+")
# A comma or period glued between two letters is a word break the typist left out ("Jace,the Mind Sculptor" of pasted
# decklists and Cockatrice/MTGO exports): read so only when the name as typed is no name (:func:`spaced_keys`), since
# names' own marks fold away first ("B.F.M. (Big Furry Monster)", the Italian "Atalya,Maestra Samita"); between
# digits it is part of a number ("Borrowing 100,000 Arrows"). A quote mark between the letter and the comma or period
# is no word break of its own ('Kongming,"Sleeping Dragon"' is Kongming, "Sleeping Dragon" with its space left out).
_QUOTES = "\"'“”‘’„«»"
_GLUED_BREAK = {
    marks: re.compile(rf"(?:(?<=[^\W\d_])|(?<=[^\W\d_][{_QUOTES}])){marks}(?=[{_QUOTES}]?[^\W\d_])")
    for marks in ("[,.]", ",", r"\.")
}


#: Strings up to this long have their keys kept (the last few thousand): one resolve folds its text several
#: times (the lookup, each matcher's words and spellings)
_CACHED_CHARS = 200


def normalize(text: str) -> str:
    """The lookup key of a name: what Scryfall's exact lookup ignores is folded away — case, accents
    and ligatures, punctuation (a dash or hyphen is a space, every other mark is dropped), spacing and
    invisible format characters (bidi controls, zero-width spaces) — and half separators are written one way.

    'Lim-Dûl’s Vault' and 'Lim Duls Vault' -> 'lim duls vault'; 'Jace, the Mind Sculptor' ->
    'jace the mind sculptor'; 'Fire/Ice' and 'Fire  //  Ice' -> 'fire // ice'. A blank standing on its own is a word
    ('________ Goblin' -> '_____ goblin', not the Goblin token's 'goblin'; '_____' -> '_____'), and a name that is
    all punctuation ('?') keeps its marks, so that it still has a key. Must agree with
    ``names.build.normalize_expr`` (tested on every real name).
    """
    return _normalize_short(text) if len(text) <= _CACHED_CHARS else _normalize_long(text)


def _normalize(text: str) -> str:
    if text.isascii():
        stripped = text  # NFKD leaves ASCII as it is, and no ASCII character is a mark (Mn) or invisible (Cf)
    else:
        decomposed = unicodedata.normalize("NFKD", text)
        # accents (Mn) go, and so do invisible format characters (Cf): a right-to-left override or a zero-width
        # space inside a name is not part of what the reader sees
        stripped = "".join(ch for ch in decomposed if unicodedata.category(ch) not in _INVISIBLE)
    folded = _SLASHES.sub(" // ", stripped.translate(FOLD).lower())
    blanked = folded
    if "_" in folded:
        blanked = _BLANK_GLUED_AFTER.sub(r"\1", _BLANK_GLUED_BEFORE.sub(r"\1", folded))
        blanked = _BLANKS.sub(f" {BLANK} ", blanked)
    # Punctuation is Unicode's general category P (what \p{P} matches in names.build.normalize_expr).
    unmarked = blanked.translate(_UNMARKED_ASCII) if blanked.isascii() else "".join(_unmark(ch) for ch in blanked)
    return _SPACES.sub(" ", unmarked if unmarked.strip(" /") else folded).strip(" ")


_normalize_short = lru_cache(maxsize=4096)(_normalize)
# a few long ones too: a pasted page of text was folded again by each step of one answer (a second each)
_normalize_long = lru_cache(maxsize=4)(_normalize)


def _unmark(ch: str) -> str:
    """A dash separates words (a space); any other punctuation but the half separator '/' and a blank's '_' goes."""
    if ch.isalnum() or ch == " " or ch == "/" or ch == "_":
        return ch
    category = unicodedata.category(ch)
    if category == "Pd":
        return " "
    return "" if category[0] == "P" else ch


#: :func:`_unmark` of every ASCII character, as a table ``str.translate`` reads (most names are ASCII).
_UNMARKED_ASCII = {code: _unmark(chr(code)) for code in range(128) if _unmark(chr(code)) != chr(code)}


def spaced_keys(text: str) -> tuple[str, ...]:
    """The lookup keys of ``text`` read with the commas and periods glued between two letters (a quote mark between
    may stand beside the mark: 'Kongming,"Sleeping Dragon"') as word breaks, each differing from its key: all of
    them ('Jace,the Mind Sculptor' -> 'jace the mind sculptor'), else the commas alone
    or the periods alone ('Richard Garfield,Ph.D.': its comma breaks words, its periods are the name's own).
    Asked only when the key of the text as typed is no name's: a name's own glued marks keep their answers."""
    if "," not in text and "." not in text:
        return ()
    key = normalize(text)
    found: dict[str, None] = {}
    for marks in ("[,.]", ",", r"\."):
        spaced = _GLUED_BREAK[marks].sub(" ", text)
        if spaced != text and (spaced_key := normalize(spaced)) != key:
            found.setdefault(spaced_key)
    return tuple(found)


def exact_keys(text: str) -> tuple[str, ...]:
    """The keys an exact lookup of ``text`` tries, in order: its key, then its :func:`spaced_keys`; the first that is
    a name's key is the answer (CR 201.2: a comma glued between two words is the typist's, the name is the card's).
    The resolvers read them in this order, and so does search's exact-name form (``!"Jace,the Mind Sculptor"``)."""
    return (normalize(text), *spaced_keys(text))


# A typed word is corrected towards a word of the names one edit away (Damerau: a letter dropped, added, replaced,
# or two neighbours swapped: 'tresure' -> 'treasure', 'ragavn' -> 'ragavan', 'blot' -> 'bolt' and 'blow'), from
# this many letters on: shorter words are one edit from too many others ('bol': bog, bolt, sol …).
CORRECTED_LETTERS = 4
# A slip of more than one edit is read only when no word is one edit away, and only towards a word this close
# (rapidfuzz ratio, 0-100, the clearly closest only): 'griselbrnd' -> 'griselbrand' (95); 'asdf' has none.
WORD_CUTOFF = 80.0
# A whole string is read as a misspelt name only when this close to it and clearly closer than to any
# other name: 'tarmo goyf' -> Tarmogoyf (95); 'Ragavan' is no misspelling of Propaganda (70).
NAME_CUTOFF = 85.0
NAME_MARGIN = 5.0
# "Did you mean" offers names at least this close (as the suggestions always have); token names, which are
# short and few, only closer ones.
SUGGEST_CUTOFF = 50.0
TOKEN_SPELLING_CUTOFF = 70.0
# A lone fragment that begins no word is read inside words from this many letters ('ounterspell' is in
# Counterspell; 'bn', only inside Abnormal Endurance, says nothing).
INSIDE_LETTERS = 3
# A lone typed word of fewer letters is only ever a fragment, never a word of its own that decides a name ('el',
# 'li', 'zo', 'sp' are whole words of one name each, and begin or are inside hundreds of others): it answers a card
# only when every name it fits is that card's (CR 201.2: a name is the whole name; a fragment is not one).
WORD_LETTERS = 3
# Close spellings are sought among the names with a word that begins as a typed word does (its first letters,
# this many) or that is one edit from one; a typed word of fewer letters brings the names it is a whole word of,
# unless it is in more names than COMMON_WORD_NAMES ('the', 'of': no clue to which name was meant).
SPELLING_PREFIX = 4
COMMON_WORD_NAMES = 400
# A list of at most this many names (token names) is scanned whole for close spellings.
SCANNED_NAMES = 2000
# From this many misspelt words on, their far words are found in one vectorised pass (fewer: a scan each).
VECTORISED_WORDS = 16
# How many readings of typed strings a matcher remembers (a miss is matched, then suggested for: read once).
REMEMBERED_READINGS = 4096


def words(key: str) -> list[str]:
    """The words of a lookup key, without the half separator ('fire // ice' -> ['fire', 'ice'])."""
    return [w for w in key.split(" ") if w and w != "//"]


@dataclass(frozen=True)
class Match:
    """The names a string matched, best first.

    ``decisive`` are those it may be answered with: every typed word is a whole word of the name ('bolt':
    Lightning Bolt, not Boltwave), else a near word of one ('wastelan': Wasteland), else several words
    were typed ('aust com'); a lone fragment ('tarmo', 'aust') decides nothing by itself (the resolver answers
    it when every name it fits is one card's). ``complete`` are the decisive names with no word left untyped
    ('wastelan' is Wasteland, of the Wasteland cards; none when a correction was unsure, or when the typed words
    meet different words of the decisive names: 'wast' of 'waste' and 'wastes'); ``corrected``: the words had to be
    corrected first. A lone word of fewer than WORD_LETTERS letters decides nothing ('el', 'zz').
    """

    names: tuple[str, ...] = ()
    decisive: tuple[str, ...] = ()
    complete: tuple[str, ...] = ()
    corrected: bool = False


def _in_order(typed: list[list[str]], own: list[str]) -> bool:
    """Whether the typed words (each given as its spellings) start words of a name in the order typed
    ('jace sculptor' is Jace, the Mind Sculptor; 'counter spell' is not Spell Counter). Taking the earliest
    word each time is optimal for an in-order match."""
    at = 0
    for spellings in typed:
        while at < len(own) and not any(own[at].startswith(w) for w in spellings):
            at += 1
        if at == len(own):
            return False
        at += 1
    return True


# How a typed word meets a word of a name: the whole word, a near word (a prefix this close), a bare prefix.
_WHOLE, _NEAR, _PREFIX = 2, 1, 0


def _near_prefix(typed: int, word: int) -> bool:
    """Whether a prefix of ``typed`` letters of a word of ``word`` letters is a near word: its rapidfuzz ratio,
    200·typed / (typed + word) (the untyped letters are its whole Indel distance), reaches WORD_CUTOFF. A word is
    whole when typed whole; a shorter prefix is a near word (a letter or two left off, a one-edit slip) only from
    CORRECTED_LETTERS on, as a slip is read: 'ka' is no slip for 'kal', nor 'ane' for 'anew'."""
    return typed == word or (typed >= CORRECTED_LETTERS and 200 * typed >= WORD_CUTOFF * (typed + word))


def _fit(typed: str, own: list[str]) -> tuple[int, str | None]:
    """How well ``typed`` meets its best word of a name (``own``), -1 when it starts none, and that word."""
    best, met = -1, None
    for word in own:
        if word == typed:
            return _WHOLE, word
        if word.startswith(typed):
            fit = _NEAR if _near_prefix(len(typed), len(word)) else _PREFIX
            if fit > best:
                best, met = fit, word
    return best, met


# -- the index ---------------------------------------------------------------------------------------

_U32 = next(code for code in "ILQ" if array(code).itemsize == 4)


def _ascending(items: Sequence[Any], *, strictly: bool) -> bool:
    """Whether ``items`` ascend (``strictly``: no two alike). Compared pairwise in C (map over operator.lt): a
    one-shot command reads an index of a million entries, and a Python loop over them took most of its time."""
    return all(map(operator.lt if strictly else operator.le, items, items[1:]))


def _u32(data: bytes | Iterable[int] = b"") -> array[int]:
    """Unsigned 32-bit integers, from little-endian bytes (as :func:`_le_bytes` writes them) or from ints."""
    values = array(_U32)
    if isinstance(data, bytes | bytearray | memoryview):
        values.frombytes(bytes(data))
        if sys.byteorder == "big":
            values.byteswap()
    else:
        values.extend(data)
    return values


def _le_bytes(values: array[int]) -> bytes:
    if sys.byteorder == "big":
        values = array(_U32, values)
        values.byteswap()
    return values.tobytes()


class WordIndex:
    """The words of a list of lookup keys, sorted, each with the lines (positions in the list) of the keys it is a
    word of: the names a word or a word beginning is in are found by a binary search, never by a scan of the names.

    Built once — for the card names at ingest and kept in the database (:meth:`to_blobs`), for token names when
    they are read — it answers the words that start with a prefix (``vocabulary[lo:hi]``, whose lines are one
    slice of ``postings``), the words one edit from a word (SymSpell's symmetric deletes: every word with one
    letter dropped, sorted, beside the word it came from), and the words a fragment is inside.
    """

    __slots__ = ("_blob", "_longest", "_set", "dropped", "dropped_from", "postings", "starts", "vocabulary")

    def __init__(
        self,
        vocabulary: list[str],
        postings: array[int],
        starts: array[int],
        dropped: list[str],
        dropped_from: array[int],
    ) -> None:
        self.vocabulary = vocabulary
        self.postings = postings  # the lines of vocabulary[i] are postings[starts[i]:starts[i + 1]]
        self.starts = starts
        self.dropped = dropped  # a word with one letter dropped, sorted; dropped_from: the word's position
        self.dropped_from = dropped_from
        self._set = frozenset(vocabulary)
        self._longest = max(map(len, vocabulary), default=0)
        #: the vocabulary as one text and where each word starts in it (built on the first inside-word search; one
        #: attribute, so a thread that finds it set finds both halves — the index is shared by the server's threads)
        self._blob: tuple[str, list[int]] | None = None

    @classmethod
    def build(cls, keys: Sequence[str]) -> WordIndex:
        lines: dict[str, list[int]] = {}
        for line, key in enumerate(keys):
            for word in words(key):
                found = lines.get(word)
                if found is None:
                    lines[word] = [line]
                elif found[-1] != line:
                    found.append(line)
        vocabulary = sorted(lines)
        postings, starts = _u32(), _u32([0])
        for word in vocabulary:
            postings.extend(lines[word])
            starts.append(len(postings))
        dropped: list[str] = []
        dropped_from: list[int] = []
        for at, word in enumerate(vocabulary):
            if len(word) > 1:
                for shorter in dict.fromkeys([word[:i] + word[i + 1 :] for i in range(len(word))]):
                    dropped.append(shorter)
                    dropped_from.append(at)
        # sorted by the shorter word alone: a stable sort keeps equal ones in their words' order, as sorting the
        # (shorter word, position) pairs would, at two thirds of the cost
        order = sorted(range(len(dropped)), key=dropped.__getitem__)
        return cls(vocabulary, postings, starts, [dropped[i] for i in order], _u32(dropped_from[i] for i in order))

    def to_blobs(self) -> tuple[str, bytes, bytes, str, bytes]:
        """The index as stored: the words one a line, the lines and the starts as little-endian uint32, the
        words with a letter dropped one a line and the words they came from."""
        return (
            "\n".join(self.vocabulary),
            _le_bytes(self.postings),
            _le_bytes(self.starts),
            "\n".join(self.dropped),
            _le_bytes(self.dropped_from),
        )

    @classmethod
    def from_blobs(
        cls, vocabulary: str, postings: bytes, starts: bytes, dropped: str, dropped_from: bytes, lines: int
    ) -> WordIndex | None:
        """The index :meth:`to_blobs` stored over ``lines`` keys; None when the blobs do not hold together (a
        damaged or foreign file: the caller builds the index from the keys instead)."""
        blobs = (postings, starts, dropped_from)
        if not all(isinstance(blob, bytes) and len(blob) % 4 == 0 for blob in blobs) or not all(
            text is None or isinstance(text, str) for text in (vocabulary, dropped)
        ):
            return None  # not the text and whole uint32s to_blobs wrote
        words_ = vocabulary.split("\n") if vocabulary else []
        deletes = dropped.split("\n") if dropped else []
        index = cls(words_, _u32(postings), _u32(starts), deletes, _u32(dropped_from))
        at = index.starts
        consistent = (
            len(at) == len(words_) + 1
            and at[0] == 0
            and at[-1] == len(index.postings)
            and _ascending(at, strictly=True)
            and _ascending(words_, strictly=True)
            and (not index.postings or max(index.postings) < lines)
            and len(deletes) == len(index.dropped_from)
            and _ascending(deletes, strictly=False)
            and (not deletes or max(index.dropped_from) < len(words_))
        )
        return index if consistent else None

    # -- questions -----------------------------------------------------------------------------------

    def span(self, prefix: str) -> tuple[int, int]:
        """The words that start with ``prefix``: ``vocabulary[lo:hi]``."""
        lo = bisect_left(self.vocabulary, prefix)
        return lo, bisect_left(self.vocabulary, prefix + "\U0010ffff", lo)

    def lines_starting(self, prefix: str) -> set[int]:
        """The lines with a word that starts with ``prefix`` (the whole word included)."""
        lo, hi = self.span(prefix)
        return set(self.postings[self.starts[lo] : self.starts[hi]])

    def postings_starting(self, prefix: str) -> int:
        """How many (word, line) pairs start with ``prefix``: what :meth:`lines_starting` would gather."""
        lo, hi = self.span(prefix)
        return self.starts[hi] - self.starts[lo]

    def lines_of(self, word: str) -> set[int]:
        """The lines ``word`` is a whole word of."""
        lo = bisect_left(self.vocabulary, word)
        if lo == len(self.vocabulary) or self.vocabulary[lo] != word:
            return set()
        return set(self.postings[self.starts[lo] : self.starts[lo + 1]])

    def near_words(self, word: str) -> list[str]:
        """The words one edit from ``word`` (Damerau, the optimal string alignment: a letter dropped, added,
        replaced, or two neighbours swapped), sorted; ``word`` itself is not one. Two words one edit apart share
        a word with a letter dropped, or one is the other with a letter dropped: a few binary searches."""
        from rapidfuzz.distance import OSA

        if len(word) > self._longest + 1:  # one edit from no word; and its probes would cost len(word) squared
            return []
        probes = {word[:i] + word[i + 1 :] for i in range(len(word))}
        found = set(self._set.intersection(probes))  # a letter too many was typed
        dropped, dropped_from, vocabulary = self.dropped, self.dropped_from, self.vocabulary
        for probe in (word, *probes):  # a letter was left out; or replaced, or two swapped
            at = bisect_left(dropped, probe)
            while at < len(dropped) and dropped[at] == probe:
                found.add(vocabulary[dropped_from[at]])
                at += 1
        return sorted(w for w in found if w != word and OSA.distance(word, w, score_cutoff=1) <= 1)

    def words_containing(self, fragment: str) -> set[int]:
        """The lines with a word that holds ``fragment`` after its first letter ('aust' in 'exhaust')."""
        if self._blob is None:
            self._blob = ("\n".join(self.vocabulary) + "\n", [0, *accumulate(len(w) + 1 for w in self.vocabulary)])
        blob, starts = self._blob
        found: set[int] = set()
        at = blob.find(fragment)
        while at >= 0:
            word = bisect_right(starts, at) - 1
            if at != starts[word]:  # inside the word, not its beginning (that is a prefix)
                found.update(self.postings[self.starts[word] : self.starts[word + 1]])
            at = blob.find(fragment, at + 1)
        return found


# -- the matcher -------------------------------------------------------------------------------------


def _clearly_closest(hits: list[tuple[str, float]]) -> list[str]:
    """The words of the best hits (best first) that are clearly closest: 'brainstrom' is brainstorm (90), not
    brainstone (80)."""
    return [w for w, score in hits if score >= hits[0][1] - NAME_MARGIN]


def _may_reach(text: str, letters: frozenset[str], cutoff: float) -> bool:
    """Whether ``text`` may score ``cutoff`` (rapidfuzz ratio, 0-100) against some string written with
    ``letters``: the ratio is 200 x (longest common subsequence) / (both lengths), and the subsequence holds only
    the characters of ``text`` found in ``letters`` (k of them), so no string scores over 200k / (len + k). A
    typed word of characters no name has (most of a pasted or random text) is then never scanned for."""
    shared = sum(ch in letters for ch in text)
    return 200 * shared >= cutoff * (len(text) + shared) - 1e-9


@dataclass(frozen=True)
class _Reading:
    """What the typed words of one key match: the lines, and per typed word the spellings it was read as with
    their edits (each word as typed, 0 edits, unless the words had to be corrected)."""

    typed: tuple[str, ...]
    lines: tuple[int, ...]
    spellings: tuple[tuple[tuple[str, int], ...], ...]
    corrected: bool


class NameMatcher:
    """Word, prefix and spelling matches over a fixed list of names (one lookup key per name), from a
    :class:`WordIndex` of their words. ``popularity`` (one number per name, e.g. how often its card was printed)
    orders names the typed words fit equally well."""

    def __init__(
        self,
        keys: Sequence[str],
        names: Sequence[str],
        popularity: Sequence[int] | None = None,
        *,
        spelling_cutoff: float = SUGGEST_CUTOFF,
        index: WordIndex | None = None,
    ) -> None:
        self.keys = list(keys)
        self.names = list(names)
        self.popularity = list(popularity) if popularity is not None else [0] * len(self.keys)
        self.spelling_cutoff = spelling_cutoff
        self.index = index if index is not None else WordIndex.build(self.keys)
        self._readings: dict[str, _Reading] = {}
        self._far: dict[str, list[str]] = {}  # a word's far words (_far_words), once found
        self._letters: dict[str, frozenset[str]] = {}  # the characters of the vocabulary, of the keys (_may_reach)
        self._by_length: tuple[list[int], list[int], list[str]] | None = None  # the vocabulary by length (_far_words)

    # -- reading the typed words ----------------------------------------------------------------------

    def _read(self, key: str) -> _Reading:
        """The names the words of ``key`` match (remembered: a miss is matched, then suggested for)."""
        reading = self._readings.get(key)
        if reading is None:
            if len(self._readings) >= REMEMBERED_READINGS:
                self._readings.clear()
            reading = self._readings[key] = self._reading(tuple(words(key)))
        return reading

    def _typed(self, text: str) -> tuple[str, _Reading]:
        """The key of ``text`` and what its words match; when they match nothing, read with each comma or period
        glued between two letters as a word break (:func:`spaced_keys`: 'jace,the' is 'jace the') if that matches."""
        key = normalize(text)
        reading = self._read(key)
        if not reading.lines:
            for spaced in spaced_keys(text):
                spaced_reading = self._read(spaced)
                if spaced_reading.lines:
                    return spaced, spaced_reading
        return key, reading

    def _reading(self, typed: tuple[str, ...]) -> _Reading:
        as_typed = tuple(((w, 0),) for w in typed)
        if not typed:
            return _Reading(typed, (), as_typed, False)
        if lines := self._covering(typed):
            if len(typed) == 1 and not self._decides(typed[0]) and len(lines) <= COMMON_WORD_NAMES:
                # a lone fragment: the words it is found inside count too ('aust': Exhaust, Holocaust; 'zz':
                # Blizzard, Puzzle Box), so that it is one card only when no other name holds it (one that begins
                # words of hundreds of names, 'e', is ambiguous without them: they would come after those)
                lines = sorted(set(lines) | self.index.words_containing(typed[0]))
            return _Reading(typed, tuple(lines), as_typed, False)
        if corrected := self._corrected(typed):
            return corrected
        if len(typed) == 1 and len(typed[0]) >= INSIDE_LETTERS:  # 'ounterspell': inside Counterspell
            return _Reading(typed, tuple(sorted(self.index.words_containing(typed[0]))), as_typed, False)
        return _Reading(typed, (), as_typed, False)

    def _decides(self, typed: str) -> bool:
        """Whether a lone typed word is a whole or near word of some name (else it is a bare prefix); a word of
        fewer than WORD_LETTERS letters never is."""
        if len(typed) < WORD_LETTERS:
            return False
        lo, hi = self.index.span(typed)
        return any(_near_prefix(len(typed), len(word)) for word in self.index.vocabulary[lo:hi])

    def _covering(self, typed: tuple[str, ...]) -> list[int]:
        """Names each typed word is a word or word prefix of, in order (the rarest word is looked up, the
        others checked)."""
        scan = min(typed, key=self.index.postings_starting)
        lines = self.index.lines_starting(scan)
        if len(typed) == 1:
            return sorted(lines)
        spellings = [[w] for w in typed]
        return sorted(line for line in lines if _in_order(spellings, words(self.keys[line])))

    def _spellings(self, word: str) -> list[tuple[str, int]]:
        """What a typed word may be read as: itself when it begins a word of the names; else the words one edit
        away; else the clearly closest word within WORD_CUTOFF; else nothing (with its edits)."""
        if self.index.postings_starting(word):
            return [(word, 0)]
        if len(word) < CORRECTED_LETTERS:
            return []
        return [(near, 1) for near in self.index.near_words(word)] or [(far, 2) for far in self._far_words(word)]

    def _may_spell(self, text: str, of: str, cutoff: float) -> bool:
        """Whether ``text`` may score ``cutoff`` against a word of the vocabulary (``of="words"``) or a key
        (``of="keys"``) (:func:`_may_reach`). ASCII text is not asked (the names have nearly every ASCII letter):
        the characters of the names are gathered, once, only for text that has others."""
        if text.isascii():
            return True
        letters = self._letters.get(of)
        if letters is None:
            strings = self.index.vocabulary if of == "words" else self.keys
            letters = self._letters[of] = frozenset("".join(strings))
        return _may_reach(text, letters, cutoff)

    def _far_words(self, word: str) -> list[str]:
        found = self._far.get(word)
        if found is None:
            from rapidfuzz import fuzz, process

            hits: list[tuple[str, float, int]] = []
            if self._may_spell(word, "words", WORD_CUTOFF):
                reachable, places = self._reachable_words(len(word))
                scored = process.extract(word, reachable, scorer=fuzz.ratio, limit=None, score_cutoff=WORD_CUTOFF)
                # the best 3, ties in the vocabulary's order: as a scan of the whole vocabulary ranks them
                hits = sorted(((w, score, places[at]) for w, score, at in scored), key=lambda h: (-h[1], h[2]))[:3]
            if len(self._far) >= REMEMBERED_READINGS:
                self._far.clear()
            found = self._far[word] = _clearly_closest([(w, score) for w, score, _ in hits])
        return found

    def _reachable_words(self, length: int) -> tuple[list[str], list[int]]:
        """The words of the vocabulary that may score WORD_CUTOFF against a word of ``length`` letters, with their
        places in it. The ratio is 200 x (longest common subsequence) / (both lengths), and the subsequence is at
        most the shorter length: a word of 12 letters is no far word of one of 6 (at most 67). The vocabulary is
        ordered by length once, and the words a length may reach are a slice of that order."""
        if self._by_length is None:
            vocabulary = self.index.vocabulary
            order = sorted(range(len(vocabulary)), key=lambda at: len(vocabulary[at]))  # stable: in place order
            self._by_length = ([len(vocabulary[at]) for at in order], order, [vocabulary[at] for at in order])
        lengths, order, by_length = self._by_length

        def reaches(other: int) -> bool:  # a word of its own length always does
            return 200 * min(length, other) >= WORD_CUTOFF * (length + other)

        shortest = max(1, math.floor(WORD_CUTOFF * length / (200 - WORD_CUTOFF)) - 1)  # (a float may slip by one)
        while not reaches(shortest):
            shortest += 1
        longest = math.ceil((200 - WORD_CUTOFF) * length / WORD_CUTOFF) + 1
        while not reaches(longest):
            longest -= 1
        lo, hi = bisect_left(lengths, shortest), bisect_right(lengths, longest)
        return by_length[lo:hi], order[lo:hi]

    def prepare(self, texts: Iterable[str], chunk: int = 128) -> None:
        """Before many strings are matched (a batch): the far words of every word of theirs that begins no word
        of the names, found in one vectorised pass (rapidfuzz's ``cdist``) instead of a scan each, and
        remembered for :meth:`_far_words`. The answers are the same as without it."""
        keys = [normalize(text) for text in texts]
        vocabulary = self.index.vocabulary
        needed = sorted(
            {
                w
                for key in keys
                if key not in self._readings
                for w in words(key)
                if len(w) >= CORRECTED_LETTERS and w not in self._far and not self.index.postings_starting(w)
            }
        )
        if len(needed) < VECTORISED_WORDS or not vocabulary:
            return  # a few: a scan each is as cheap
        if len(self._far) + len(needed) > REMEMBERED_READINGS:
            self._far.clear()
        import numpy as np
        from rapidfuzz import fuzz, process

        for start in range(0, len(needed), chunk):
            rows = needed[start : start + chunk]
            scores = process.cdist(
                rows, vocabulary, scorer=fuzz.ratio, score_cutoff=WORD_CUTOFF, dtype=np.float64, workers=-1
            )
            for word, row in zip(rows, scores):
                at = np.flatnonzero(row)  # below the cutoff cdist gives 0
                best = at[np.lexsort((at, -row[at]))][:3]  # as extract: best score, then list order
                self._far[word] = _clearly_closest([(vocabulary[i], float(row[i])) for i in best])

    def _corrected(self, typed: tuple[str, ...]) -> _Reading | None:
        """Names matched once the typed words are read as their near words (None: nothing to correct, or a
        word that is near no word at all)."""
        read = {w: self._spellings(w) for w in dict.fromkeys(typed)}  # a word typed again is read once
        spellings = [read[w] for w in typed]
        if not all(spellings) or all(s == [(w, 0)] for s, w in zip(spellings, typed)):
            return None
        options = [[spelled for spelled, _ in s] for s in spellings]
        scan = min(range(len(options)), key=lambda k: sum(map(self.index.postings_starting, options[k])))
        lines: set[int] = set()
        for spelled in options[scan]:
            lines |= self.index.lines_starting(spelled)
        found = sorted(line for line in lines if _in_order(options, words(self.keys[line])))
        if not found:
            return None
        return _Reading(typed, tuple(found), tuple(tuple(s) for s in spellings), True)

    def _ranked(self, reading: _Reading) -> Match:
        """Rank the names a reading matched and tell which are decisive and complete: decisive first, then (read
        with corrections) the fewest edits, then the fewest words left untyped, then (corrected) the more
        popular, then by name."""
        count = len(reading.typed)
        rows = []
        met: dict[int, tuple[str | None, ...]] = {}  # line -> the word of it each typed word met
        for line in reading.lines:
            own = words(self.keys[line])
            fit, edits, words_met = _WHOLE, 0, []
            for spellings in reading.spellings:
                best, cost, best_word = -1, 0, None
                for spelled, spelled_edits in spellings:
                    f, word = _fit(spelled, own)
                    if f > best or (f == best and spelled_edits < cost):
                        best, cost, best_word = f, spelled_edits, word
                fit, edits = min(fit, best), edits + cost
                words_met.append(best_word)
            rows.append((line, fit, edits, len(own) - count))
            met[line] = tuple(words_met)
        # A correction is sure when each misspelt word was one edit from exactly one word; a word two edits
        # away, or one edit from several ('exorcise': exorcist, exorcism), decides nothing beyond the names
        # it matched (several cards stay ambiguous, never a guess).
        far = max((e for spellings in reading.spellings for _, e in spellings), default=0) > 1
        unsure = reading.corrected and (far or any(len(s) > 1 for s in reading.spellings))
        if reading.corrected and far:
            decisive = set(reading.lines)
        elif count == 1 and len(reading.typed[0]) < WORD_LETTERS:
            decisive = set()  # a fragment this short is no word of its own ('el'): the names it fits decide
        elif whole := {line for line, fit, _, _ in rows if fit == _WHOLE}:
            decisive = whole
        elif near := {line for line, fit, _, _ in rows if fit >= _NEAR}:
            decisive = near
        else:
            decisive = set(reading.lines) if reading.corrected or count > 1 else set()
        names, popularity = self.names, self.popularity
        if reading.corrected:
            rows.sort(key=lambda r: (r[0] not in decisive, r[2], r[3], -popularity[r[0]], names[r[0]]))
        else:
            # a name the fragment is only inside comes after those it begins a word of
            # (a fragment too short to decide lists the names it is a whole word of first: 'an', An-Havva Inn)
            rows.sort(key=lambda r: (r[0] not in decisive, r[1] < 0, r[1] != _WHOLE, r[3], names[r[0]]))
        # The name that is nothing but the typed words is complete ('wastelan' is Wasteland, of the Wasteland
        # cards) only when the decisive names all hold the same word for each typed word: 'wast' is a near word of
        # both 'waste' and 'wastes', so Wastes is one of several cards it fits (Waste Not, Lay Waste), not the one.
        one_word_each = all(len(set(column)) == 1 for column in zip(*(met[line] for line in decisive)))
        return Match(
            names=tuple(names[r[0]] for r in rows),
            decisive=tuple(names[r[0]] for r in rows if r[0] in decisive),
            complete=()
            if unsure or not one_word_each
            else tuple(names[r[0]] for r in rows if r[0] in decisive and r[3] == 0),
            corrected=reading.corrected,
        )

    # -- spelling -------------------------------------------------------------------------------------

    def _candidates(self, reading: _Reading) -> Iterable[int]:
        """The names a misspelling of ``reading``'s words is looked for among: every name of a short list (a
        scan of a few thousand costs less than the index's lookups), else those its words matched, those with a
        word beginning as a typed word does, holding a typed word, or one edit from one."""
        if len(self.keys) <= SCANNED_NAMES:
            return range(len(self.keys))
        index = self.index
        found = set(reading.lines)
        for word in dict.fromkeys(reading.typed):  # a word typed again brings the same names
            if len(word) >= SPELLING_PREFIX:
                found |= index.lines_starting(word[:SPELLING_PREFIX])
                found |= index.words_containing(word)
                for near in index.near_words(word):
                    found |= index.lines_of(near)
            elif index.postings_starting(word) <= COMMON_WORD_NAMES:
                found |= index.lines_starting(word)
        return sorted(found)

    def _spelling(self, key: str, reading: _Reading, limit: int, cutoff: float) -> list[tuple[int, float, int]]:
        """The ``limit`` names spelt most like ``key`` (rapidfuzz ratio at least ``cutoff``) as (line, ratio,
        edits): the fewest edits first (Damerau: a swap is one edit, as a replaced letter is), then the ratio,
        then the more popular, then list order."""
        from rapidfuzz import fuzz, process
        from rapidfuzz.distance import OSA

        if not self._may_spell(key, "keys", cutoff):
            return []  # no name has enough of its characters to be spelt like it
        lines = list(self._candidates(reading))
        keys = self.keys
        hits = process.extract(key, [keys[i] for i in lines], scorer=fuzz.ratio, score_cutoff=cutoff, limit=None)
        scored = [(lines[at], score, OSA.distance(key, keys[lines[at]])) for _, score, at in hits]
        popularity = self.popularity
        scored.sort(key=lambda s: (s[2], -s[1], -popularity[s[0]], s[0]))
        return scored[:limit]

    # -- answers --------------------------------------------------------------------------------------

    def match(self, text: str) -> Match:
        """What ``text`` matches: its words as words or prefixes of names (a lone fragment inside words too);
        else with each word read as a near word; else one name it is clearly a misspelling of; else nothing."""
        key, reading = self._typed(text)
        if not reading.typed:
            return Match()
        if reading.lines:
            return self._ranked(reading)
        close = sorted(self._spelling(key, reading, 1 << 30, NAME_CUTOFF), key=lambda s: -s[1])[:2]
        if close and (len(close) == 1 or close[0][1] - close[1][1] >= NAME_MARGIN):
            name = (self.names[close[0][0]],)
            # the typed words out of order may be another name's words: 'bolt lightning' is Lightning Bolt's words
            # swapped or Ball Lightning with two letters changed, either as likely (ambiguous, never a guess); a
            # spelling one slip away stays the answer ('counter spell' is Counterspell, not Spell Counter)
            if close[0][2] > 1 and (
                reordered := [self.names[line] for line in self._reordered(reading.typed) if line != close[0][0]]
            ):
                return Match((*name, *reordered), (*name, *reordered), (), corrected=True)
            if self._replaces_a_word(reading.typed, self.keys[close[0][0]]):
                return Match()  # another card's name, not a misspelling of it: not found, offered as "did you mean"
            return Match(name, name, name, corrected=True)
        return Match()

    def _replaces_a_word(self, typed: tuple[str, ...], key: str) -> bool:
        """Whether the name of ``key`` has a different word where a typed word is (CR 201.2: a name is its words; the
        one close spelling of a string is still another card when a word was replaced or added): a typed word that is
        a whole word of the names ('red' of Circle of Protection: Red), is nowhere in the name ('blue') and is not
        one edit from one of its words ('gods' for 'god', from CORRECTED_LETTERS letters on, as a slip is read).
        A word the name holds run together with another ('tarmo goyf', 'counter spell') is in it. A short word
        (under CORRECTED_LETTERS letters) is another card's only where it stands for a long word of the name ('red'
        for 'blue'): a small word added or swapped for another is a slip ('path of exile', 'jace of the mind
        sculptor', 'fires to yavimaya')."""
        from rapidfuzz.distance import OSA

        own = words(key)
        joined = "".join(own)
        left_out = [w for w in own if w not in typed]
        long_words_left_out = bool(left_out) and all(len(w) >= CORRECTED_LETTERS for w in left_out)
        return any(
            word not in joined
            and self.index.lines_of(word)
            and (
                long_words_left_out
                if len(word) < CORRECTED_LETTERS
                else not any(OSA.distance(word, w, score_cutoff=1) <= 1 for w in own)
            )
            for word in typed
        )

    def _reordered(self, typed: tuple[str, ...]) -> list[int]:
        """Names whose words the typed words are words or word prefixes of in another order (each a word of its
        own): asked only when the words in order match no name and a spelling would answer. Scryfall's fuzzy rule
        matches words in order, so such a name is no answer by itself, but it is one the typist may have meant."""
        if len(typed) < 2:
            return []
        scan = min(typed, key=self.index.postings_starting)
        found = []
        for line in sorted(self.index.lines_starting(scan)):
            own = words(self.keys[line])
            for word in typed:
                at = next((i for i, w in enumerate(own) if w.startswith(word)), None)
                if at is None:
                    break
                del own[at]
            else:
                found.append(line)
        return found

    def suggest(self, text: str, limit: int = 5) -> list[str]:
        """Did you mean: the names the input's words are words or prefixes of first (a legendary card's
        short name lists the cards it shortens, CR 201.5c), else those its near words are, then close
        spellings."""
        return self.suggest_many([text], limit)[0]

    def suggest_many(self, texts: Sequence[str], limit: int = 5) -> list[list[str]]:
        """:meth:`suggest` for many strings (a decklist's misses), each from the index: no string costs a scan
        of every name."""
        if limit <= 0:
            return [[] for _ in texts]
        self.prepare(texts)
        offered: list[list[str]] = []
        for text in texts:
            key, reading = self._typed(text)
            names = list(self._ranked(reading).names[:limit]) if reading.lines else []
            if key and len(names) < limit:
                for line, _, _ in self._spelling(key, reading, limit, self.spelling_cutoff):
                    if self.names[line] not in names:
                        names.append(self.names[line])
                names = names[:limit]
            offered.append(names)
        return offered
