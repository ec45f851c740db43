"""The one name matcher: what a string that is no card name (after folding) may mean.

Scryfall's fuzzy rule (``/cards/named?fuzzy=``) is the contract: the words typed are matched, in order, as words or
word prefixes of card names ("aust com" is Austere Command, "Ragavan" is Ragavan, Nimble Pilferer); one
card matched is the answer, several are ambiguous (Scryfall: "Too many cards match ambiguous name"), and
spelling is corrected only after that, and only towards a clearly closest name. A string that shares no
word or near-word with any name matches nothing.

:class:`NameMatcher` holds the lookup keys (:func:`normalize`) of a list of names and answers:

* :meth:`~NameMatcher.match`: the names the typed words match, best first, and whether the words had to
  be corrected first (a typo) — the resolver (``names.resolver.NameResolver``) turns the names into cards;
* :meth:`~NameMatcher.suggest`: "did you mean": word and prefix matches of the whole input first, then close
  spellings (rapidfuzz's normalized Indel ratio over the keys), for every interface's misses.

One instance serves card names (the English names of ``names.resolver.SUGGESTED_VIAS``) and another token names;
every interface (CLI, library, HTTP API, web page, MCP, deck check, choose-name, token, refs) reaches it
through the resolver, so the same text gets the same answer everywhere.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

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


def normalize(text: str) -> str:
    """The lookup key of a name: what Scryfall's exact lookup ignores is folded away — case, accents
    and ligatures, punctuation (a dash or hyphen is a space, every other mark is dropped) and spacing —
    and half separators are written one way.

    'Lim-Dûl’s Vault' and 'Lim Duls Vault' -> 'lim duls vault'; 'Jace, the Mind Sculptor' ->
    'jace the mind sculptor'; 'Fire/Ice' and 'Fire  //  Ice' -> 'fire // ice'. A name that is all
    punctuation ('_____') keeps its marks, so that it still has a key. Must agree with
    ``names.build.normalize_expr`` (tested on every real name).
    """
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    folded = _SLASHES.sub(" // ", stripped.translate(FOLD).lower())
    # Punctuation is Unicode's general category P (what \p{P} matches in names.build.normalize_expr).
    unmarked = "".join(_unmark(ch) for ch in folded)
    return _SPACES.sub(" ", unmarked if unmarked.strip(" /") else folded).strip(" ")


def _unmark(ch: str) -> str:
    """A dash separates words (a space); any other punctuation but the half separator '/' goes."""
    if ch.isalnum() or ch == " " or ch == "/":
        return ch
    category = unicodedata.category(ch)
    if category == "Pd":
        return " "
    return "" if category[0] == "P" else ch


# A typed word is corrected towards a name's word only when this close (rapidfuzz ratio, 0-100):
# 'tresure' -> 'treasure' (93), 'ragavn' -> 'ragavan' (92), 'emrakull' -> 'emrakul' (93); 'asdf' has none.
WORD_CUTOFF = 80.0
# A whole string is read as a misspelt name only when this close to it and clearly closer than to any
# other name: 'tarmo goyf' -> Tarmogoyf (95); 'Ragavan' is no misspelling of Propaganda (70).
NAME_CUTOFF = 85.0
NAME_MARGIN = 5.0
# "Did you mean" offers names at least this close (as the suggestions always have); token names, which are
# short and few, only closer ones.
SUGGEST_CUTOFF = 50.0
TOKEN_SPELLING_CUTOFF = 70.0


def words(key: str) -> list[str]:
    """The words of a lookup key, without the half separator ('fire // ice' -> ['fire', 'ice'])."""
    return [w for w in key.split(" ") if w and w != "//"]


@dataclass(frozen=True)
class Match:
    """The names a string matched, best first.

    ``decisive`` are those it may be answered with: every typed word is a whole word of the name ('bolt':
    Lightning Bolt, not Boltwave), else a near word of one ('wastelan': Wasteland), else several words
    were typed ('aust com'); a single bare prefix ('aust') decides nothing. ``complete`` are the decisive
    names with no word left untyped ('wastelan' is Wasteland, of the Wasteland cards); ``corrected``: the
    words had to be corrected first (a typo).
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


# How a typed word meets a word of a name: the whole word, a near word (a prefix this close, or a
# corrected spelling), a bare prefix.
_WHOLE, _NEAR, _PREFIX = 2, 1, 0


def _fit(typed: str, own: list[str]) -> int:
    """How well ``typed`` meets its best word of a name (``own``), -1 when it starts none."""
    from rapidfuzz import fuzz

    best = -1
    for word in own:
        if word == typed:
            return _WHOLE
        if word.startswith(typed):
            best = max(best, _NEAR if fuzz.ratio(typed, word) >= WORD_CUTOFF else _PREFIX)
    return best


class NameMatcher:
    """Word, prefix and spelling matches over a fixed list of names (one lookup key per name)."""

    def __init__(self, keys: Sequence[str], names: Sequence[str], *, spelling_cutoff: float = SUGGEST_CUTOFF) -> None:
        self.keys = list(keys)
        self.names = list(names)
        self.spelling_cutoff = spelling_cutoff
        # Every key on a line of its own behind a space, so " " + w finds each word starting with w.
        lines = [f" {key}\n" for key in self.keys]
        self._blob = "".join(lines)
        self._starts = [0, *accumulate(len(line) for line in lines)]
        self._vocabulary: list[str] | None = None

    # -- words and prefixes ---------------------------------------------------------------------

    def _lines_with_prefix(self, word: str) -> set[int]:
        """The names with a word that starts with ``word``."""
        found: set[int] = set()
        needle, at = " " + word, 0
        blob, starts = self._blob, self._starts
        while (at := blob.find(needle, at)) >= 0:
            line = bisect_right(starts, at) - 1
            found.add(line)
            at = starts[line + 1]  # one hit per name is enough
        return found

    def _covering(self, typed: list[str]) -> list[int]:
        """Names each typed word is a word or word prefix of (the longest word is searched, the rest checked)."""
        if not typed:
            return []
        scan = max(typed, key=len)
        return [
            line for line in self._lines_with_prefix(scan) if _in_order([[w] for w in typed], words(self.keys[line]))
        ]

    def _ranked(self, lines: list[int], typed: list[str], *, corrected: bool = False) -> Match:
        """Rank the names ``lines`` matched (decisive first, then fewer words left untyped, then by name)
        and tell which are decisive and complete."""
        count = len(typed)
        fits = {i: min(_fit(w, words(self.keys[i])) for w in typed) for i in lines}
        if corrected:  # every word is a near word by construction
            decisive = set(lines)
        elif whole := {i for i, fit in fits.items() if fit == _WHOLE}:
            decisive = whole
        elif near := {i for i, fit in fits.items() if fit >= _NEAR}:
            decisive = near
        else:
            decisive = set(lines) if count > 1 else set()
        order = sorted(lines, key=lambda i: (i not in decisive, len(words(self.keys[i])) - count, self.names[i]))
        return Match(
            names=tuple(self.names[i] for i in order),
            decisive=tuple(self.names[i] for i in order if i in decisive),
            complete=tuple(self.names[i] for i in order if i in decisive and len(words(self.keys[i])) == count),
            corrected=corrected,
        )

    # -- spelling -------------------------------------------------------------------------------

    def _near_words(self, word: str) -> list[str]:
        """Words of the names within :data:`WORD_CUTOFF` of ``word`` (best first; none for a short word)."""
        if len(word) < 4:
            return []
        from rapidfuzz import fuzz, process

        if self._vocabulary is None:
            self._vocabulary = sorted({w for key in self.keys for w in words(key)})
        hits = process.extract(word, self._vocabulary, scorer=fuzz.ratio, limit=3, score_cutoff=WORD_CUTOFF)
        # the clearly closest only: 'brainstrom' is brainstorm (90), not brainstone (80)
        return [w for w, score, _ in hits if score >= hits[0][1] - NAME_MARGIN]

    def _corrected(self, typed: list[str]) -> list[int]:
        """Names matched once each typed word that starts no word of any name is read as a near word."""
        choices: list[list[str]] = []
        for w in typed:
            if self._lines_with_prefix(w):
                choices.append([w])
            elif near := self._near_words(w):
                choices.append(near)
            else:
                return []
        if all(len(c) == 1 and c[0] == w for c, w in zip(choices, typed)):
            return []
        scan = max(range(len(choices)), key=lambda k: len(choices[k][0]))
        candidates: set[int] = set()
        for option in choices[scan]:
            candidates |= self._lines_with_prefix(option)
        return [line for line in candidates if _in_order(choices, words(self.keys[line]))]

    def _spelling(self, key: str, limit: int, cutoff: float) -> list[tuple[int, float]]:
        from rapidfuzz import fuzz, process

        hits = process.extract(key, self.keys, scorer=fuzz.ratio, limit=limit, score_cutoff=cutoff)
        return [(index, score) for _, score, index in hits]

    # -- answers --------------------------------------------------------------------------------

    def match(self, text: str) -> Match:
        """What ``text`` matches: its words as words or prefixes of names; else, with each unknown word
        read as a near word; else one name it is clearly a misspelling of; else nothing."""
        key = normalize(text)
        typed = words(key)
        if not typed:
            return Match()
        if lines := self._covering(typed):
            return self._ranked(lines, typed)
        if lines := self._corrected(typed):
            return self._ranked(lines, typed, corrected=True)
        close = self._spelling(key, 2, NAME_CUTOFF)
        if close and (len(close) == 1 or close[0][1] - close[1][1] >= NAME_MARGIN):
            name = (self.names[close[0][0]],)
            return Match(name, name, name, corrected=True)
        return Match()

    def suggest(self, text: str, limit: int = 5) -> list[str]:
        """Did you mean: the names the input's words are words or prefixes of first (a legendary card's
        short name lists the cards it shortens, CR 201.5c), else those its near words are, then close
        spellings."""
        return self.suggest_many([text], limit)[0]

    def suggest_many(self, texts: Sequence[str], limit: int = 5, chunk: int = 256) -> list[list[str]]:
        """:meth:`suggest` for many strings: word matches per string, close spellings in one vectorised pass
        (rapidfuzz's ``cdist``: a first deck check of 3,000 real decks meets ~2,000 distinct unknown names)."""
        if limit <= 0:
            return [[] for _ in texts]
        keys = [normalize(t) for t in texts]
        offered: list[list[str]] = []
        for key in keys:
            typed = words(key)
            lines = (self._covering(typed) or self._corrected(typed)) if typed else []  # 'ragavn': Ragavan, …
            offered.append(list(self._ranked(lines, typed).names[:limit]) if lines else [])
        todo = [i for i, key in enumerate(keys) if key and len(offered[i]) < limit]
        for start in range(0, len(todo), chunk):
            rows = todo[start : start + chunk]
            for i, spelled in zip(rows, self._spelling_many([keys[i] for i in rows], limit)):
                offered[i] = list(dict.fromkeys(offered[i] + spelled))[:limit]
        return offered

    def _spelling_many(self, keys: list[str], limit: int) -> list[list[str]]:
        """The ``limit`` closest names of each key (normalized Indel ratio, at least ``spelling_cutoff``),
        best score first, then list order."""
        if len(keys) == 1:  # one miss: extract is cheaper than a matrix (and numpy's import)
            return [[self.names[i] for i, _ in self._spelling(keys[0], limit, self.spelling_cutoff)]]
        import numpy as np
        from rapidfuzz import fuzz, process

        scores = process.cdist(
            keys, self.keys, scorer=fuzz.ratio, score_cutoff=self.spelling_cutoff, dtype=np.float32, workers=-1
        )
        at, choice = np.nonzero(scores)  # below the cutoff cdist gives 0; row-major: choices ascending
        order = np.lexsort((choice, -scores[at, choice], at))  # per key: best score, then first choice
        at, choice = at[order], choice[order]
        starts = np.searchsorted(at, np.arange(len(keys) + 1))
        return [[self.names[j] for j in choice[starts[k] : starts[k + 1]][:limit]] for k in range(len(keys))]
