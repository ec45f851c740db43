"""The words Oracle text and type lines are made of — one home for every parser.

Card types (CR 205.2a), subtypes of every kind (CR 205.3g-q) and supertypes (CR 205.4a) are read
from the Comprehensive Rules text stored in the package (oracle_tools/data/rules/, parsed by
:mod:`oracle_tools.text.comprules`), not typed by hand, so a new CR release brings its new subtypes
with it. Colours (CR 105.1) and number words are short closed lists kept here.

>>> from oracle_tools.text import vocabulary as v
>>> v.card_types()[:3]
('Artifact', 'Battle', 'Conspiracy')
>>> "Time Lord" in v.subtypes("creature")
True
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported lazily: comprules reads Oracle text through oracletext, which uses this module
    from oracle_tools.text.comprules import RulesDocument

__all__ = [
    "BASIC_LAND_TYPE_MANA",
    "COLOR_COUNT_WORDS",
    "COLOR_LETTERS",
    "COLOR_WORD_BY_LETTER",
    "NUMBER_WORDS",
    "OBSOLETE_CARD_TYPES",
    "SUBTYPE_RULES",
    "all_subtypes",
    "card_types",
    "number_value",
    "permanent_types",
    "subtypes",
    "supertypes",
]

# CR 105.1: the five colours and their letters (WUBRG order).
COLOR_LETTERS: dict[str, str] = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G"}
COLOR_WORD_BY_LETTER: dict[str, str] = {letter: word for word, letter in COLOR_LETTERS.items()}
# CR 305.6: "The basic land types are Plains, Island, Swamp, Mountain, and Forest. ... An object with the land card type
# and a basic land type has the intrinsic ability "{T}: Add [mana symbol]" ... For Plains, [mana symbol] is {W}; for
# Islands, {U}; for Swamps, {B}; for Mountains, {R}; and for Forests, {G}." Each type and the colour of its mana.
BASIC_LAND_TYPE_MANA: dict[str, str] = {"Plains": "W", "Island": "U", "Swamp": "B", "Mountain": "R", "Forest": "G"}

# CR 105.2a-c: the words for how many colours an object has, as (fewest, most); None: no upper bound.
# tests/test_vocabulary.py checks each against the stored rule text.
COLOR_COUNT_WORDS: dict[str, tuple[int, int | None]] = {
    "colorless": (0, 0),  # CR 105.2c: "A colorless object has no color."
    "monocolored": (1, 1),  # CR 105.2a: "exactly one of the five colors"
    "multicolored": (2, None),  # CR 105.2b: "two or more of the five colors"
    "colored": (1, None),  # CR 105.2: "one or more of the five colors"
}

# Number words as Oracle text and decklists spell them ("up to seven cards named ...", "create two ...").
NUMBER_WORDS: dict[str, int] = {
    word: value
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "dozen": 12}

# Kindred was called Tribal before the 2024 rules update; older Oracle data (the 2019 dump) says "Tribal".
OBSOLETE_CARD_TYPES: dict[str, str] = {"Tribal": "Kindred"}

#: Which CR 205.3 subrule lists the subtypes of which kind.
SUBTYPE_RULES: dict[str, str] = {
    "artifact": "205.3g",
    "enchantment": "205.3h",
    "land": "205.3i",
    "planeswalker": "205.3j",
    "spell": "205.3k",
    "creature": "205.3m",
    "planar": "205.3n",
    "dungeon": "205.3p",
    "battle": "205.3q",
}

_SEE_RULE = re.compile(r"\s*\(see rules? [^)]*\)")
# The list follows "are" / "is" / ":" and runs to the first full stop.
_LIST_AFTER = re.compile(r"(?:The [a-z]+ types are|That [a-z]+ type is|battle type is)\s+(?P<list>[^.]+)\.")
_AND = re.compile(r",\s*(?:and\s+)?|\s+and\s+")


def _split_list(text: str) -> list[str]:
    return [w.strip() for w in _AND.split(_SEE_RULE.sub("", text)) if w.strip()]


def _document(doc: RulesDocument | None) -> RulesDocument | _RuleTexts:
    return doc if doc is not None else _shipped()


class _RuleTexts:
    """The few rules the vocabulary is read from (``rules``: number -> the rule's own paragraph)."""

    def __init__(self, rules: dict[str, str]) -> None:
        self.rules = rules


#: The rules every word list here comes from.
_VOCABULARY_RULES = ("110.4", "205.2a", "205.4a", *SUBTYPE_RULES.values())


@functools.cache
def _shipped() -> _RuleTexts:
    """The vocabulary rules of the shipped Comprehensive Rules, found by their line (a numbered rule is one
    line in the published text) instead of parsing the whole 1 MB document: every command that reads a type
    line needs these lists, and a fresh process should not spend 40 ms on the rest. Tested equal
    to the full parse (:func:`oracle_tools.text.comprules.load_rules`)."""
    from oracle_tools.store.resources import newest_rules_file

    path = newest_rules_file()
    if path is None:  # a broken install: the rules reader says which folder has no rules text
        from oracle_tools.text.comprules import default_rules_path

        path = default_rules_path()  # raises RulesFileError
    data = b"\n" + path.read_bytes().replace(b"\r\n", b"\n").replace(b"\r", b"\n")  # every line after a newline
    found: dict[str, str] = {}
    for number in _VOCABULARY_RULES:
        # The first line that is the rule itself: the number, an optional full stop, then a space or tab (the
        # contents list names sections only; "110.4a" is another rule). bytes.find and decoding that one line
        # cost a tenth of decoding the whole text and scanning it with a regex.
        needle = b"\n" + number.encode()
        at = data.find(needle)
        while at != -1:
            after = data[at + len(needle) : at + len(needle) + 2]
            if after[:1] in (b" ", b"\t") or (after[:1] == b"." and after[1:2] in (b" ", b"\t")):
                end = data.find(b"\n", at + 1)
                line = data[at + 1 : end if end != -1 else len(data)].decode("utf-8")
                body = line[len(number) :].lstrip(".").strip(" \t")
                if body:  # a number with no text after it is not the rule
                    found[number] = body
                    break
            at = data.find(needle, at + 1)
    return _RuleTexts(found)


def _listed(text: str, intro: str) -> list[str]:
    """The words of a CR sentence "The card types are a, b, and c." (from ``intro`` to the full stop)."""
    start = text.index(intro) + len(intro)
    return _split_list(text[start : text.index(".", start)])


def card_types(doc: RulesDocument | None = None) -> tuple[str, ...]:
    """CR 205.2a: the card types, capitalised as on a type line."""
    words = _listed(_document(doc).rules["205.2a"], "The card types are ")
    return tuple(w.capitalize() for w in words)


def permanent_types(doc: RulesDocument | None = None) -> tuple[str, ...]:
    """CR 110.4: "There are six permanent types: artifact, battle, ..." — capitalised as on a type line.

    A permanent card has one of them (CR 110.4a); kindred alone is not enough.
    """
    words = _listed(_document(doc).rules["110.4"], "permanent types: ")
    return tuple(w.capitalize() for w in words)


def supertypes(doc: RulesDocument | None = None) -> tuple[str, ...]:
    """CR 205.4a: the supertypes, capitalised as on a type line."""
    words = _listed(_document(doc).rules["205.4a"], "The supertypes are ")
    return tuple(w.capitalize() for w in words)


def subtypes(kind: str, doc: RulesDocument | None = None) -> tuple[str, ...]:
    """CR 205.3g-q: the subtypes of one kind (``SUBTYPE_RULES`` keys), as the CR spells them.

    Apostrophes stay as the CR writes them (curly: "Urza’s", "C’tan"); compare through
    :func:`normalise_apostrophes` when the other side may use ASCII quotes.
    """
    try:
        number = SUBTYPE_RULES[kind]
    except KeyError:
        raise ValueError(f"unknown subtype kind {kind!r}; use one of {', '.join(SUBTYPE_RULES)}") from None
    text = _SEE_RULE.sub("", _document(doc).rules[number])  # "(see rule 301.5)" holds full stops
    if kind == "creature":  # CR 205.3m: "One creature type is two words long: Time Lord. All other ... long: ..."
        two_words = _listed(text, "two words long: ")
        return tuple(two_words + _listed(text, "one word long: "))
    match = _LIST_AFTER.search(text)
    if match is None:
        raise ValueError(f"CR {number} has no subtype list in the expected form: {text[:80]!r}")
    return tuple(_split_list(match["list"]))


def all_subtypes(doc: RulesDocument | None = None) -> dict[str, tuple[str, ...]]:
    """Every CR 205.3 subtype list, keyed by kind."""
    return {kind: subtypes(kind, doc) for kind in SUBTYPE_RULES}


def normalise_apostrophes(text: str) -> str:
    """Curly apostrophes as ASCII, so "Urza’s" (CR) and "Urza's" compare equal."""
    return text.replace("\u2019", "'").replace("\u2018", "'")


def number_value(word: str) -> int | None:
    """The value of a number word or digits ("seven" -> 7, "12" -> 12, "a"/"an" -> 1); None if not a number."""
    w = word.strip().lower()
    if w.isdigit():
        return int(w)
    if w in ("a", "an"):
        return 1
    return NUMBER_WORDS.get(w)
