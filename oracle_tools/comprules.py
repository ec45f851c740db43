"""Parse the Magic: The Gathering Comprehensive Rules (CR) text file.

* :func:`load_rules` / :func:`parse_rules` read the official CR ``.txt`` (as published at
  https://magic.wizards.com/rules: UTF-8 with a BOM, lines ended by bare ``\\r`` with the odd
  ``\\r\\n``) into a :class:`RulesDocument` mapping rule numbers ("111.10a") to rule text.
* :func:`predefined_tokens` derives the predefined tokens of CR 111.10 (Treasure, Food, Clue,
  Role tokens, ...) by *parsing* each 111.10x subrule; nothing about the tokens is typed in here.
* :func:`parse_token_description` is the reusable phrase parser behind it. It understands the
  token phrase grammar shared by the CR and by card Oracle text, e.g. ``a 1/1 red Goblin creature
  token with haste`` or ``Marit Lage, a legendary 20/20 black Avatar creature token with flying and
  indestructible``.
* :func:`default_token_name` implements CR 111.4 (an unnamed token is named after its subtypes
  plus the word "Token").
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from oracle_tools import vocabulary
from oracle_tools.errors import RulesFileError
from oracle_tools.oracletext import number_value
from oracle_tools.oracletext import quote_mask as _quote_mask  # quoted abilities: the Oracle-text layer's reading
from oracle_tools.resources import RULES_DIR  # shipped in the package: oracle_tools/data/rules

__all__ = [
    "RulesDocument",
    "PredefinedToken",
    "TokenDescription",
    "parse_rules",
    "load_rules",
    "default_rules_path",
    "predefined_tokens",
    "parse_token_description",
    "default_token_name",
    "COLOR_LETTERS",
]

_OFFICIAL = (
    "pass the official Comprehensive Rules .txt file (MagicCompRules-YYYYMMDD.txt from https://magic.wizards.com/rules)"
)

# --------------------------------------------------------------------------------------------
# Rules document
# --------------------------------------------------------------------------------------------

# "100.1. text" (rule) / "100.1a text" (subrule; CR subrule letters skip l and o).
_RULE_RE = re.compile(r"^(?P<num>\d{3}\.\d+[a-z]*)\.?\s+(?P<text>\S.*)$")
_SECTION_RE = re.compile(r"^(?P<num>\d{3})\.\s+(?P<title>\S.*)$")  # "111. Tokens"
_CHAPTER_RE = re.compile(r"^(?P<num>[1-9])\.\s+(?P<title>\S.*)$")  # "1. Game Concepts"
_EFFECTIVE_RE = re.compile(r"These rules are effective as of\s+(?P<date>[A-Z][a-z]+\s+\d{1,2},\s+\d{4})")


@dataclass(frozen=True)
class RulesDocument:
    """The numbered rules of one Comprehensive Rules file.

    ``rules`` maps a rule number ("111.10a", "111.4", ...) to its full text: the rule's own
    paragraph(s) followed by its "Example:" paragraphs, joined with newlines. ``examples`` holds
    the example paragraphs separately and :meth:`statement` gives the text without them.
    """

    effective_date: datetime.date
    rules: dict[str, str]
    examples: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sections: dict[str, str] = field(default_factory=dict)  # "111" -> "Tokens", "1" -> "Game Concepts"
    glossary: dict[str, str] = field(default_factory=dict)  # "Treasure" -> definition text
    source: str = "<text>"

    def rule(self, number: str) -> str:
        """Full text of rule ``number`` ("111.10a"; a trailing "." is ignored)."""
        key = _rule_key(number)
        try:
            return self.rules[key]
        except KeyError:
            raise KeyError(
                f"rule {number!r} is not in the Comprehensive Rules from {self.source} "
                f"(effective {self.effective_date.isoformat()}); rule numbers look like '111.10a'"
            ) from None

    def statement(self, number: str) -> str:
        """Text of rule ``number`` without its "Example:" paragraphs."""
        full = self.rule(number)
        examples = set(self.examples.get(_rule_key(number), ()))
        return "\n".join(p for p in full.split("\n") if p not in examples)

    def subrules(self, number: str) -> list[str]:
        """Numbers of the lettered subrules of ``number`` in file order ("111.10" -> ["111.10a", ...])."""
        pattern = re.compile(re.escape(_rule_key(number)) + r"[a-z]+")
        return [n for n in self.rules if pattern.fullmatch(n)]


def _rule_key(number: str) -> str:
    return number.strip().rstrip(".")


def _normalise_text(text: str) -> str:
    """Drop a BOM and turn \\r\\n and bare \\r line ends into \\n."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_rules(text: str, *, source: str = "<text>") -> RulesDocument:
    """Parse the text of the Comprehensive Rules.

    Raises :class:`RulesFileError` naming ``source`` when the text is not the rules (no
    "These rules are effective as of ..." line, or no numbered rules 100.1 ... 111.10 ...).
    """
    text = _normalise_text(text)
    if not text.strip():
        raise RulesFileError(f"{source} is not the Comprehensive Rules: it is empty; {_OFFICIAL}")
    m = _EFFECTIVE_RE.search(text[:5000])
    if m is None:
        raise RulesFileError(
            f"{source} is not the Comprehensive Rules: it has no 'These rules are effective as of "
            f"<Month D, YYYY>.' line near the top; {_OFFICIAL}"
        )
    try:
        effective = datetime.datetime.strptime(" ".join(m.group("date").replace(",", ", ").split()), "%B %d, %Y").date()
    except ValueError:
        raise RulesFileError(
            f"{source} is not the Comprehensive Rules: its effective date {m.group('date')!r} is not a date; {_OFFICIAL}"
        ) from None

    lines = [ln.strip() for ln in text.split("\n")]
    # The table of contents lists only "100. General"-style headings; the body starts at the
    # first numbered rule. The body ends at the "Glossary" heading, which precedes "Credits".
    start = next((i for i, ln in enumerate(lines) if _RULE_RE.match(ln)), None)
    if start is None:
        raise RulesFileError(
            f"{source} is not the Comprehensive Rules: it has no numbered rules (100.1, ..., 111.10, ...); "
            f"it may be truncated; {_OFFICIAL}"
        )
    end = next((i for i in range(start, len(lines)) if lines[i] == "Glossary"), len(lines))

    rules: dict[str, list[str]] = {}
    examples: dict[str, list[str]] = {}
    sections: dict[str, str] = {}
    # Section headings that precede the first rule (e.g. "1. Game Concepts", "100. General").
    for ln in lines[max(0, start - 4) : start]:
        hm = _SECTION_RE.match(ln) or _CHAPTER_RE.match(ln)
        if hm:
            sections[hm.group("num")] = hm.group("title")
    current: str | None = None
    for ln in lines[start:end]:
        if not ln:
            continue
        rm = _RULE_RE.match(ln)
        if rm:
            current = rm.group("num")
            if current in rules:  # never happens in published files; keep both texts rather than lose one
                rules[current].append(rm.group("text"))
            else:
                rules[current] = [rm.group("text")]
            continue
        hm = _SECTION_RE.match(ln) or _CHAPTER_RE.match(ln)
        if hm:
            sections[hm.group("num")] = hm.group("title")
            current = None
            continue
        if current is None:
            continue  # stray text between a heading and its first rule (none in published files)
        rules[current].append(ln)  # "Example: ..." or an indented continuation paragraph
        if ln.startswith("Example:"):
            examples.setdefault(current, []).append(ln)

    missing = [n for n in ("100.1", "111.10") if n not in rules]
    if missing:
        raise RulesFileError(
            f"{source} is not the Comprehensive Rules: rule(s) {', '.join(missing)} are missing "
            f"(found {len(rules)} numbered rules); it may be truncated; {_OFFICIAL}"
        )

    glossary: dict[str, str] = {}
    block: list[str] = []
    for ln in lines[end + 1 :] + [""]:
        if ln == "Credits":
            break
        if ln:
            block.append(ln)
            continue
        if len(block) >= 2:
            glossary[block[0]] = "\n".join(block[1:])
        block = []

    return RulesDocument(
        effective_date=effective,
        rules={k: "\n".join(v) for k, v in rules.items()},
        examples={k: tuple(v) for k, v in examples.items()},
        sections=sections,
        glossary=glossary,
        source=source,
    )


def _cr_file_date(p: Path) -> str:
    m = re.search(r"(\d{8})", p.name)
    return m.group(1) if m else ""


def default_rules_path(directory: Path | None = None) -> Path:
    """The newest ``MagicCompRules-YYYYMMDD.txt`` in ``directory`` (default: the shipped data/rules)."""
    directory = RULES_DIR if directory is None else Path(directory)
    candidates = sorted(directory.glob("MagicCompRules*.txt"), key=lambda p: (_cr_file_date(p), p.name))
    if not candidates:
        raise RulesFileError(
            f"no MagicCompRules-*.txt file in {directory}; download the rules text from "
            f"https://magic.wizards.com/rules and put it there, or pass its path"
        )
    return candidates[-1]


def load_rules(path: Path | str | None = None) -> RulesDocument:
    """Read and parse a Comprehensive Rules file (default: newest shipped ``data/rules`` file).

    Handles the BOM and ``\\r`` / ``\\r\\n`` / ``\\n`` line ends. A directory means "the newest
    MagicCompRules-*.txt in it".
    """
    p = default_rules_path() if path is None else Path(path)
    if p.is_dir():
        p = default_rules_path(p)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise RulesFileError(f"cannot read Comprehensive Rules file {p}: {exc.strerror or exc}; {_OFFICIAL}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RulesFileError(f"{p} is not the Comprehensive Rules: it is not UTF-8 text; {_OFFICIAL}") from None
    return parse_rules(text, source=str(p))


# --------------------------------------------------------------------------------------------
# CR 111.4: default token names
# --------------------------------------------------------------------------------------------


def default_token_name(subtypes: Sequence[str] | str) -> str:
    """Name of a token whose creating effect doesn't name it.

    CR 111.4: "If the spell or ability doesn't specify the name of the token, its name is the same
    as its subtype(s) plus the word 'Token.'" So ("Dwarf", "Berserker") -> "Dwarf Berserker Token"
    (the rule's own example, Dwarven Reinforcements). Read literally, a token with no subtypes is
    named just "Token" (the CR has no separate rule for that case).
    """
    if isinstance(subtypes, str):
        subtypes = subtypes.split()
    words = [s.strip() for s in subtypes if s and s.strip()]
    return " ".join([*words, "Token"])


# --------------------------------------------------------------------------------------------
# Token phrase grammar (CR 111.9, 111.10; card Oracle text "create ..." clauses)
# --------------------------------------------------------------------------------------------

# Colours (CR 105.1), supertypes (CR 205.4a), card types (CR 205.2a) and number words come from
# oracle_tools.vocabulary (read from the stored CR); COLOR_LETTERS stays importable from here.
COLOR_LETTERS: dict[str, str] = vocabulary.COLOR_LETTERS
_WUBRG = "".join(COLOR_LETTERS.values())


@functools.cache
def _type_words() -> tuple[frozenset[str], frozenset[str]]:
    """(supertypes, card types) in lower case, card types with the obsolete "tribal" (now kindred)."""
    supertypes = frozenset(w.lower() for w in vocabulary.supertypes())
    card_types = frozenset(w.lower() for w in (*vocabulary.card_types(), *vocabulary.OBSOLETE_CARD_TYPES))
    return supertypes, card_types


# CR 205.3m: "One creature type is two words long: Time Lord. All other creature types are one word long"
MULTIWORD_SUBTYPES: tuple[str, ...] = ("Time Lord",)
_QUANTITY_RE = re.compile(
    r"^(?P<q>a number of|twice that many|twice X|that many|an?|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|thirteen|fourteen|fifteen|twenty|X|\d+)\s+",
    re.IGNORECASE,
)
_PT_PART = r"[+-]?(?:\d+|X|Y|\*|\d+\+\*|\*\+\d+)"
_PT_RE = re.compile(rf"^(?P<p>{_PT_PART})/(?P<t>{_PT_PART})$")
_COPY_RE = re.compile(
    r"^(?P<status>(?:tapped|untapped|attacking|and)\s+)*tokens?\s+(?:that's|that’s|that is|that are)\s+(?:a\s+)?cop(?:y|ies)\s+of\s+(?P<of>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_COUNTER_RE = re.compile(
    r"^(?:a|an|one|two|three|four|five|X|\d+|that many)\s+\S+(?:\s+\S+)?\s+counters?\s+on\s+(?:it|them)$"
)
_NEW_CLAUSE_RE = re.compile(
    r"\btokens?\b|^(?:create|a|an|one|two|three|four|five|six|that many|X|\d+)\s|\bor\s+(?:a|an|one|two|that many)\s"
)
# Clauses that end the description proper (outside quotes); the remainder is returned as ``rest``.
_TAIL_MARKERS = (
    " or a ",
    " or an ",
    " or one ",
    " or two ",
    " or that many ",  # a choice of two descriptions (Jinnie Fay)
    " for each ",
    " that's ",
    " that’s ",
    " that are ",
    " that is ",
    " that ",
    " attached to ",
    " under ",
    " equal to ",
    ", where ",
    " where ",
    ", then ",
    " then ",
    " if ",
    " unless ",
    " until ",
    " and put ",
    " and attach ",
    " and exile ",
    " and then ",
    ". ",
    "; ",
    " tapped and attacking",
)
_OPEN_Q = {"\u201c": "\u201d", '"': '"', "\u2018": "\u2019", "'": "'"}
_CLOSE_CHARS = "\u201d\"\u2019'"


def _sentence_stop(s: str, mask: list[bool]) -> int:
    """Index where the first sentence of ``s`` ends (a quoted ability ending in "." followed by a
    capitalised sentence or reminder text, or top-level " ("), or -1."""
    n = len(s)
    for i, ch in enumerate(s):
        if not mask[i]:
            if s.startswith(" (", i):
                return i
            continue
        if (
            ch in _CLOSE_CHARS
            and i > 0
            and s[i - 1] in ".!?"
            and i + 2 < n
            and s[i + 1] == " "
            and not mask[i + 1]
            and (s[i + 2].isupper() or s[i + 2] == "(")
        ):
            return i + 1
    return -1


def _find_top(s: str, mask: list[bool], needles: Iterable[str], start: int = 0) -> tuple[int, str]:
    """Earliest occurrence (outside quotes, at or after ``start``) of any needle: (index, needle) or (-1, "")."""
    best = (-1, "")
    for needle in needles:
        i = s.find(needle, start)
        while i != -1 and i < len(mask) and mask[i]:
            i = s.find(needle, i + 1)
        if i != -1 and (best[0] == -1 or i < best[0]):
            best = (i, needle)
    return best


def _split_top(s: str) -> list[tuple[int, str]]:
    """Split an ability list "flying, haste, and “...”" on top-level ", ", ", and " and " and ":
    (start offset, item) pairs."""
    mask = _quote_mask(s)
    parts: list[str] = []
    buf_start = 0
    i = 0
    seps = (", and ", ", ", " and ")
    while i < len(s):
        if (
            s[i] == " "
            and not mask[i]
            and 0 < i < len(s) - 1
            and mask[i - 1]
            and s[i - 1] in _CLOSE_CHARS
            and mask[i + 1]
            and s[i + 1] in _OPEN_Q
        ):
            # two quoted abilities with the list comma inside the first: “A,” “B,” and equip {2}
            parts.append(s[buf_start:i])
            i += 1
            buf_start = i
            continue
        if not mask[i]:
            for sep in seps:
                if s.startswith(sep, i):
                    parts.append(s[buf_start:i])
                    i += len(sep)
                    buf_start = i
                    break
            else:
                i += 1
            continue
        i += 1
    parts.append(s[buf_start:])
    out: list[tuple[int, str]] = []
    pos = 0
    for p in parts:
        at = s.find(p, pos)
        pos = at + len(p)
        if p.strip():
            out.append((at + len(p) - len(p.lstrip()), p.strip()))
    return out


_INNER_CURLY_RE = re.compile(r"\u2018(.*?)\u2019(?![\w])", re.DOTALL)
_INNER_STRAIGHT_RE = re.compile(r"(?<![\w])'(.*?)'(?![\w])", re.DOTALL)


def _unquote(item: str) -> tuple[str, bool]:
    """Strip the outer quotes of a quoted ability (and a list comma left inside them).

    Nested single quotes become double quotes, as they are once the outer quotes are gone:
    ‘Whenever this creature attacks, scry 1.’ -> “Whenever this creature attacks, scry 1.”
    """
    if len(item) >= 2 and item[0] in _OPEN_Q and item[-1] == _OPEN_Q[item[0]]:
        inner = item[1:-1].strip()
        if inner.endswith(","):
            # CR 111.10q: “Enchanted creature gets +1/+1,” and “...” -- the list comma stands in
            # for the ability's closing period.
            inner = inner[:-1].rstrip()
            if inner and inner[-1] not in ".!?\"\u201d'\u2019":
                inner += "."
        if item[0] == "\u201c":
            inner = _INNER_CURLY_RE.sub("\u201c\\1\u201d", inner)
        elif item[0] == '"':
            inner = _INNER_STRAIGHT_RE.sub('"\\1"', inner)
        return inner, True
    return item, False


def _strip_name(name: str) -> str:
    name = name.strip()
    if len(name) >= 2 and name[0] in _OPEN_Q and name[-1] == _OPEN_Q[name[0]]:
        name = name[1:-1].strip()  # 701.54's form: named “Phyrexian Token.”
    return name.rstrip(".,").strip()


@dataclass(frozen=True)
class TokenDescription:
    """What a token phrase says. Only characteristics the phrase states are filled in.

    ``colors`` are WUBRG letters in WUBRG order; ``colorless`` is True only when the phrase says
    "colorless" (a phrase that names no colour, such as "a Treasure token", leaves both empty).
    ``supertypes`` and ``card_types`` are capitalised ("Legendary", "Artifact"); ``subtypes``
    are as written. ``abilities`` lists every ability in order, keywords as written ("flying",
    "enchant creature") and quoted abilities without their quotes; ``keywords`` and
    ``quoted_abilities`` split them. ``rest`` is text after the description that it does not
    consume (e.g. "for each land you control").
    """

    text: str
    quantity: str | None = None  # "a", "two", "X", "that many", "a number of"
    count: int | None = None  # 1, 2, ... when the quantity is a fixed number
    given_name: str | None = None  # CR 111.9 "create [name], a ..." or "... named X"
    supertypes: tuple[str, ...] = ()
    colors: tuple[str, ...] = ()
    colorless: bool = False
    card_types: tuple[str, ...] = ()
    subtypes: tuple[str, ...] = ()
    power: str | None = None
    toughness: str | None = None
    abilities: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    quoted_abilities: tuple[str, ...] = ()
    counters: tuple[str, ...] = ()  # "X +1/+1 counters on it"
    abilities_text: str = ""  # raw text after "with"
    copy_of: str | None = None  # "a token that's a copy of <copy_of>"
    is_token: bool = False  # the phrase says "token(s)"
    plural: bool = False
    double_faced: bool = False  # CR 111.10i "a double-faced token"
    tapped: bool = False
    attacking: bool = False
    rest: str = ""

    @property
    def name(self) -> str | None:
        """The token's name by CR 111.4: the given name, else subtypes + "Token" (None for copies)."""
        if self.given_name:
            return self.given_name
        if self.copy_of is not None:
            return None  # CR 111.4 example (Spitting Image): a copy takes the original's name
        return default_token_name(self.subtypes)

    @property
    def bare_name(self) -> str | None:
        """For phrases like "a Food token" / "a Cursed Role token" / "a Tarmogoyf token" that give
        only capitalised words: those words (a predefined token, CR 111.10, or a card name, CR 111.11)."""
        if self.subtypes and not (
            self.card_types
            or self.supertypes
            or self.colors
            or self.colorless
            or self.power
            or self.given_name
            or self.copy_of
            or self.abilities
        ):
            return " ".join(self.subtypes)
        return None

    def type_line(self) -> str:
        """Scryfall token style: "Token Artifact Creature — Thopter"."""
        left = " ".join(["Token", *self.supertypes, *self.card_types])
        return f"{left} — {' '.join(self.subtypes)}" if self.subtypes else left

    def oracle_text(self) -> str:
        """The abilities as rules text: keyword runs on one line ("Flying, haste"), quoted abilities
        one per line."""
        lines: list[str] = []
        run: list[str] = []
        kw = set(self.keywords)
        for ab in self.abilities:
            if ab in kw and ab not in self.quoted_abilities:
                run.append(ab)
                continue
            if run:
                lines.append(", ".join(run))
                run = []
            lines.append(ab)
        if run:
            lines.append(", ".join(run))
        return "\n".join(ln[:1].upper() + ln[1:] for ln in lines)


def parse_token_description(text: str, *, multiword_subtypes: Sequence[str] = MULTIWORD_SUBTYPES) -> TokenDescription:
    """Parse a token phrase from the CR or from Oracle text.

    Accepts e.g. ``a 2/2 black Zombie creature token``, ``two 1/1 white Soldier creature tokens
    with lifelink``, ``Marit Lage, a legendary 20/20 black Avatar creature token with flying and
    indestructible``, ``a token that's a copy of target creature``, ``a colorless Aura Role
    enchantment token named Cursed with enchant creature and “...”`` and the CR 111.10i face
    phrases without the word "token" (``a colorless Incubator artifact with “...”``). A leading
    "create" and a final period are ignored.

    Raises :class:`ValueError` (and nothing else) when ``text`` is not a token phrase; it never
    returns None.
    """
    if not isinstance(text, str):
        raise ValueError(f"token description must be a string, not {type(text).__name__}")
    original = text
    s = " ".join(text.split())
    s = re.sub(r"^create\s+", "", s, flags=re.IGNORECASE)
    if s.endswith(".") and not _quote_mask(s)[-1]:
        s = s[:-1].rstrip()
    if not s:
        raise ValueError(f"empty token description {original!r}")
    _quote_mask(s)  # reject unbalanced quotes early

    # CR 111.9: "create [name], a . . ." -- a name, a comma, then the description.
    given_name: str | None = None
    nm = re.match(r"^(?P<name>[^\"\u201c\u201d]+?),\s+(?=(?:a|an)\s)", s)
    if nm:
        cand = nm.group("name").strip()
        first = cand.split()[0].lower() if cand.split() else ""
        if cand[:1].isupper() and number_value(first) is None and first not in COLOR_LETTERS and first != "x":
            given_name = cand
            s = s[nm.end() :]

    quantity: str | None = None
    count: int | None = None
    qm = _QUANTITY_RE.match(s)
    if qm:
        quantity = qm.group("q")
        ql = quantity.lower()
        count = number_value(ql)
        s = s[qm.end() :]

    # "a token that's a copy of target creature" (CR 111.4 example: Spitting Image)
    cm = _COPY_RE.match(s)
    if cm:
        return TokenDescription(
            text=original,
            quantity=quantity,
            count=count,
            given_name=given_name,
            copy_of=cm.group("of").strip(),
            is_token=True,
            plural=bool(re.search(r"\btokens\b", s[: cm.start("of")])),
            tapped="tapped" in s[: cm.start("of")].split(),
            attacking="attacking" in s[: cm.start("of")].split(),
        )

    mask = _quote_mask(s)
    # The core (characteristics words) ends at "token(s)" or, failing that, at "named"/"with"/a tail.
    core_end, is_token, plural, after = len(s), False, False, len(s)
    tm = None
    for m in re.finditer(r"(?:(?<=\s)|^)(tokens?)(?=\s|$|,)", s):
        if not mask[m.start()]:
            tm = m
            break
    stop, needle = _find_top(s, mask, (" named ", " with ", *_TAIL_MARKERS))
    if s.startswith(("named ", "with ")):
        stop = 0
    if tm is not None and (stop == -1 or tm.start() <= stop):
        core_end, after, is_token, plural = tm.start(), tm.end(), True, tm.group(1) == "tokens"
    elif stop != -1:
        core_end, after = stop, stop
    core = s[:core_end]
    rest = s[after:].strip()

    supertypes: list[str] = []
    colors: set[str] = set()
    colorless = False
    card_types: list[str] = []
    subtypes: list[str] = []
    power = toughness = None
    double_faced = tapped = attacking = False

    supertype_words, card_type_words = _type_words()
    words = core.replace(",", " , ").split()
    i = 0
    while i < len(words):
        w = words[i]
        lw = w.lower()
        if w in (",", "and"):
            pass
        elif lw in supertype_words:
            supertypes.append(lw.capitalize())
        elif lw in COLOR_LETTERS:
            colors.add(COLOR_LETTERS[lw])
        elif lw == "colorless":
            colorless = True
        elif lw in card_type_words:
            card_types.append(lw.capitalize())
        elif lw == "double-faced":
            double_faced = True
        elif lw == "tapped":
            tapped = True
        elif lw == "attacking":  # "a tapped and attacking 1/1 red Warrior creature token" (Dragonback Lancer)
            attacking = True
        elif _PT_RE.match(w) and power is None:
            pm = _PT_RE.match(w)
            assert pm is not None
            power, toughness = pm.group("p"), pm.group("t")
        elif w[:1].isupper() and re.fullmatch(r"[^\W\d_][\w'’\-]*", w):
            pair = f"{w} {words[i + 1]}" if i + 1 < len(words) else ""
            if pair in multiword_subtypes:
                subtypes.append(pair)
                i += 1
            else:
                subtypes.append(w)
        else:
            raise ValueError(f"unrecognised word {w!r} in token description {original!r}")
        i += 1

    # After the core: "named X", "with ...", then an unconsumed tail.
    abilities_text = ""
    while rest:
        rmask = _quote_mask(rest)
        if rest.startswith("named "):
            body = rest[len("named ") :]
            bmask = rmask[len("named ") :]
            j, _ = _find_top(body, bmask, (" with ", *_TAIL_MARKERS))
            raw_name = body if j == -1 else body[:j]
            if given_name is not None:
                raise ValueError(f"token description {original!r} names the token twice")
            given_name = _strip_name(raw_name)
            if not given_name:
                raise ValueError(f"empty name after 'named' in token description {original!r}")
            rest = "" if j == -1 else body[j:].strip()
            continue
        if rest.startswith("with ") and not re.match(r"^with (?:base )?(?:power|toughness)\b", rest):
            # (not "with power equal to ..." -- Soul Separator -- which stays in ``rest``)
            body = rest[len("with ") :]
            bmask = rmask[len("with ") :]
            j, _ = _find_top(body, bmask, (" named ", *_TAIL_MARKERS))
            k = _sentence_stop(body, bmask)  # '“{2}: Transform this token.” It transforms into ...'
            if k != -1 and (j == -1 or k < j):
                j = k
            chunk = body if j == -1 else body[:j]
            abilities_text = f"{abilities_text}, {chunk}" if abilities_text else chunk
            rest = "" if j == -1 else body[j:].strip()
            continue
        break
    rest = rest.lstrip(",; ").strip()

    # "a 1/1 token copy of it" (Agate Instigator), "a token copy that's tapped and attacking ..."
    copy_of: str | None = None
    cp = re.match(r"^cop(?:y|ies)\b(?:\s+of\s+(?P<of>.+))?(?P<more>.*)$", rest)
    if cp and is_token:
        copy_of = (cp.group("of") or "").strip()
        rest = cp.group("more").strip()

    # "an 8/8 Beast creature token that's red, green, and white" (Godsire), "... that's tapped and attacking"
    tail = re.match(r"^(?:that's|that’s|that are|that is)\s+(?P<what>.+)$", rest)
    if tail:
        what_words = tail.group("what").replace(",", " , ").split()
        if [x.lower() for x in what_words] == ["all", "colors"]:  # Mechtitan: "... that's all colors"
            colors.update(_WUBRG)
            rest = ""
        elif what_words and all(x.lower() in (*COLOR_LETTERS, "colorless", "and", ",") for x in what_words):
            for x in what_words:
                if x.lower() in COLOR_LETTERS:
                    colors.add(COLOR_LETTERS[x.lower()])
                elif x.lower() == "colorless":
                    colorless = True
            rest = ""
    ta = re.match(r"^(?:(?:that's|that’s|that are)\s+)?tapped and attacking\b[.,]?\s*(?P<more>.*)$", rest)
    if ta:
        tapped = attacking = True
        rest = ta.group("more")

    abilities: list[str] = []
    keywords: list[str] = []
    quoted: list[str] = []
    counters: list[str] = []
    for at, item in _split_top(abilities_text) if abilities_text else []:
        ab, was_quoted = _unquote(item)
        if not ab:
            continue
        if not was_quoted and not _COUNTER_RE.match(ab) and _NEW_CLAUSE_RE.search(ab):
            # "... with trample or a 3/3 ... token with vigilance": a second description or a
            # new clause starts here; it and what follows go to ``rest``.
            rest = f"{abilities_text[at:]} {rest}".strip()
            abilities_text = abilities_text[:at].rstrip(" ,")
            abilities_text = re.sub(r"(?:,? and|,? or)$", "", abilities_text).rstrip(" ,")
            break
        if was_quoted:
            quoted.append(ab)
            abilities.append(ab)
        elif _COUNTER_RE.match(ab):
            counters.append(ab)
        else:
            keywords.append(ab)
            abilities.append(ab)

    if not is_token and not card_types and not double_faced:
        raise ValueError(
            f"{original!r} is not a token description: it says neither 'token' nor a card type "
            f"(expected e.g. 'a 1/1 red Goblin creature token with haste')"
        )
    return TokenDescription(
        text=original,
        quantity=quantity,
        count=count,
        given_name=given_name,
        supertypes=tuple(supertypes),
        colors=tuple(c for c in _WUBRG if c in colors),
        colorless=colorless,
        card_types=tuple(card_types),
        subtypes=tuple(subtypes),
        power=power,
        toughness=toughness,
        abilities=tuple(abilities),
        keywords=tuple(keywords),
        quoted_abilities=tuple(quoted),
        counters=tuple(counters),
        abilities_text=abilities_text,
        copy_of=copy_of,
        is_token=is_token,
        plural=plural,
        double_faced=double_faced,
        tapped=tapped,
        attacking=attacking,
        rest=rest,
    )


# --------------------------------------------------------------------------------------------
# CR 111.10: predefined tokens
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PredefinedToken:
    """One predefined token of CR 111.10, as its subrule defines it.

    ``name`` is the token's predefined name as the subrule introduces it ("A Treasure token is",
    "A Cursed Role token is") — Scryfall's token name. ``given_name`` is the name the subrule
    assigns with "named X" (Walker; the Roles' "Cursed", ...; Incubator's back face "Phyrexian
    Token"), else None. The in-game name is :attr:`game_name` (CR 111.4).

    For a double-faced token (CR 111.10i Incubator) ``faces`` holds the front and back face; the
    token's own characteristics are those of its front face (CR 712.8a) and its ``type_line`` is
    both faces' joined by " // " (Scryfall style).
    """

    rule: str
    name: str
    given_name: str | None
    colors: tuple[str, ...]
    supertypes: tuple[str, ...]
    card_types: tuple[str, ...]
    subtypes: tuple[str, ...]
    power: str | None
    toughness: str | None
    oracle_text: str
    type_line: str
    faces: tuple[PredefinedToken, ...]
    effective_date: datetime.date
    notes: tuple[
        str, ...
    ] = ()  # sentences of the subrule that are not part of the definition ("See rule 701.44, “Explore.”")

    @property
    def game_name(self) -> str:
        """The name the token has in the game: its given name, else subtypes + "Token" (CR 111.4)."""
        return self.given_name or default_token_name(self.subtypes)


def _split_sentences(text: str) -> list[str]:
    """Split on sentence ends outside quotes; a quoted ability ending in "." followed by a capital
    ends the sentence too (“... Transform this token.” Its back face ...)."""
    mask = _quote_mask(text)
    out: list[str] = []
    start = 0
    n = len(text)
    for i, ch in enumerate(text):
        end_here = False
        nxt = text[i + 1 : i + 3]
        followed = i + 1 == n or (nxt[:1] == " " and nxt[1:2].isupper())
        if ch == "." and not mask[i] and followed:
            end_here = True
        elif (
            ch in '\u201d"'
            and mask[i]
            and i > 0
            and text[i - 1] in ".!?"
            and followed
            and (i + 1 == n or not mask[i + 1])
        ):
            end_here = True
        if end_here:
            out.append(text[start : i + 1].strip())
            start = i + 1
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


_SUBJECT_RE = re.compile(r"^(?:A|An)\s+(?P<key>.+?)\s+token\s+is\s+(?P<desc>.+)$", re.DOTALL)
_FACE_RE = re.compile(r"^(?:Its|The token's|The token’s)\s+(?P<face>front|back)\s+face\s+is\s+(?P<desc>.+)$", re.DOTALL)


def _token_from(
    desc: TokenDescription,
    *,
    rule: str,
    name: str,
    doc: RulesDocument,
    faces: tuple[PredefinedToken, ...] = (),
    notes: tuple[str, ...] = (),
) -> PredefinedToken:
    return PredefinedToken(
        rule=rule,
        name=name,
        given_name=desc.given_name,
        colors=desc.colors,
        supertypes=desc.supertypes,
        card_types=desc.card_types,
        subtypes=desc.subtypes,
        power=desc.power,
        toughness=desc.toughness,
        oracle_text=desc.oracle_text(),
        type_line=desc.type_line(),
        faces=faces,
        effective_date=doc.effective_date,
        notes=notes,
    )


def _parse_predefined(doc: RulesDocument, number: str) -> PredefinedToken:
    text = doc.statement(number)
    try:
        sentences = _split_sentences(" ".join(text.split()))
    except ValueError as exc:
        raise RulesFileError(f"{doc.source}: rule {number} is not understood: {exc}") from None
    if not sentences:
        raise RulesFileError(f"{doc.source}: rule {number} is empty")
    subject = _SUBJECT_RE.match(sentences[0])  # CR 111.10x "A Food token is a colorless Food artifact token with ..."
    if subject is None:
        raise RulesFileError(
            f"{doc.source}: rule {number} does not start 'A <name> token is ...': {sentences[0]!r}; "
            f"is this the official Comprehensive Rules text?"
        )
    key = subject.group("key").strip()
    try:
        desc = parse_token_description(subject.group("desc"))
    except ValueError as exc:
        raise RulesFileError(f"{doc.source}: rule {number} ({key} token) is not understood: {exc}") from None

    face_descs: dict[str, TokenDescription] = {}
    notes: list[str] = []
    for sent in sentences[1:]:
        fm = _FACE_RE.match(sent)  # CR 111.10i: "Its front face is ... Its back face is ..."
        if fm:
            try:
                face_descs[fm.group("face")] = parse_token_description(fm.group("desc"))
            except ValueError as exc:
                raise RulesFileError(
                    f"{doc.source}: rule {number} ({key} token) {fm.group('face')} face is not understood: {exc}"
                ) from None
        else:
            notes.append(sent)  # cross-references such as CR 111.10s "See rule 701.44, “Explore.”"

    if desc.double_faced or face_descs:
        if set(face_descs) != {"front", "back"}:
            raise RulesFileError(
                f"{doc.source}: rule {number} ({key} token) is double-faced but does not define both faces"
            )
        front_d, back_d = face_descs["front"], face_descs["back"]
        front = _token_from(front_d, rule=number, name=front_d.given_name or " ".join(front_d.subtypes) or key, doc=doc)
        back = _token_from(back_d, rule=number, name=back_d.given_name or " ".join(back_d.subtypes) or key, doc=doc)
        whole = _token_from(front_d, rule=number, name=key, doc=doc, faces=(front, back), notes=tuple(notes))
        # CR 712.8a: a double-faced permanent has its front face's characteristics; Scryfall joins type lines.
        return replace(whole, type_line=f"{front.type_line} // {back.type_line}")
    return _token_from(desc, rule=number, name=key, doc=doc, notes=tuple(notes))


def predefined_tokens(doc: RulesDocument) -> list[PredefinedToken]:
    """Every predefined token defined by the 111.10x subrules of ``doc``, in rule order."""
    numbers = doc.subrules("111.10")  # CR 111.10a, 111.10b, ... (letters l and o are skipped)
    if not numbers:
        raise RulesFileError(f"{doc.source}: rule 111.10 has no subrules defining predefined tokens")
    return [_parse_predefined(doc, n) for n in numbers]
