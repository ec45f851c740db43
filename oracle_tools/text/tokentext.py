"""The grammar of token phrases: "a 2/2 black Zombie creature token with …" (CR 111).

One home for reading what a token phrase says, shared by the Comprehensive Rules (the predefined
tokens of CR 111.10, parsed in :mod:`oracle_tools.text.comprules`) and card Oracle text (the "create …"
clauses read in :mod:`oracle_tools.tokens.answers`):

* :func:`parse_token_description` — ``a 1/1 red Goblin creature token with haste``, ``Marit Lage, a
  legendary 20/20 black Avatar creature token with flying and indestructible`` (CR 111.9), ``a token
  that's a copy of target creature`` (CR 707.2), ``a colorless Aura Role enchantment token named Cursed
  with …`` (CR 111.10j) → a :class:`TokenDescription`;
* :func:`default_token_name` — CR 111.4: an unnamed token is named after its subtypes plus "Token".

Quoted abilities are masked with :func:`oracle_tools.text.oracletext.quote_mask`; colours (CR 105.1), number
words, card types (CR 205.2a), supertypes (CR 205.4a) and two-word subtypes (CR 205.3m) come from
:mod:`oracle_tools.text.vocabulary`.

>>> d = parse_token_description("create two 1/1 white Soldier creature tokens with lifelink")
>>> (d.count, d.power, d.colors, d.subtypes, d.keywords, d.name)
(2, '1', ('W',), ('Soldier',), ('lifelink',), 'Soldier Token')
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from oracle_tools.text import vocabulary
from oracle_tools.text.oracletext import number_value, quote_mask

__all__ = [
    "NUMBER_PATTERN",
    "TokenDescription",
    "default_token_name",
    "parse_token_description",
]

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

# Colours (CR 105.1), supertypes (CR 205.4a), card types (CR 205.2a), subtypes (CR 205.3) and number
# words come from oracle_tools.text.vocabulary (read from the stored CR).
_COLORS: dict[str, str] = vocabulary.COLOR_LETTERS  # "white" -> "W"


@functools.cache
def _type_words() -> tuple[frozenset[str], frozenset[str]]:
    """(supertypes, card types) in lower case, card types with the obsolete "tribal" (now kindred)."""
    supertypes = frozenset(w.lower() for w in vocabulary.supertypes())
    card_types = frozenset(w.lower() for w in (*vocabulary.card_types(), *vocabulary.OBSOLETE_CARD_TYPES))
    return supertypes, card_types


@functools.cache
def _two_word_subtypes() -> tuple[str, ...]:
    """CR 205.3m: "One creature type is two words long: Time Lord." — the subtypes a phrase spells in two words."""
    return tuple(t for t in vocabulary.subtypes("creature") if " " in t)


#: A fixed number word or digits ("two", "12"), longest first; vocabulary.NUMBER_WORDS is the one list.
NUMBER_PATTERN = "|".join(sorted(vocabulary.NUMBER_WORDS, key=len, reverse=True)) + r"|\d+"
_QUANTITY_RE = re.compile(
    rf"^(?P<q>a number of|twice that many|twice X|that many|an?|{NUMBER_PATTERN}|X)\s+",
    re.IGNORECASE,
)
_PT_PART = r"[+-]?(?:\d+|X|Y|\*|\d+\+\*|\*\+\d+)"
_PT_RE = re.compile(rf"^(?P<p>{_PT_PART})/(?P<t>{_PT_PART})$")
_COPY_RE = re.compile(
    r"^(?P<status>(?:tapped|untapped|attacking|and)\s+)*tokens?\s+(?:that's|that’s|that is|that are)\s+(?:a\s+)?cop(?:y|ies)\s+of\s+(?P<of>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_COUNTER_RE = re.compile(rf"^(?:a|an|{NUMBER_PATTERN}|X|that many)\s+\S+(?:\s+\S+)?\s+counters?\s+on\s+(?:it|them)$")
_NEW_CLAUSE_RE = re.compile(
    rf"\btokens?\b|^(?:create|a|an|{NUMBER_PATTERN}|that many|X)\s|\bor\s+(?:a|an|one|two|that many)\s"
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
    mask = quote_mask(s)
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


def parse_token_description(text: str, *, multiword_subtypes: Sequence[str] | None = None) -> TokenDescription:
    """Parse a token phrase from the CR or from Oracle text.

    Accepts e.g. ``a 2/2 black Zombie creature token``, ``two 1/1 white Soldier creature tokens
    with lifelink``, ``Marit Lage, a legendary 20/20 black Avatar creature token with flying and
    indestructible``, ``a token that's a copy of target creature``, ``a colorless Aura Role
    enchantment token named Cursed with enchant creature and “...”`` and the CR 111.10i face
    phrases without the word "token" (``a colorless Incubator artifact with “...”``). A leading
    "create" and a final period are ignored. ``multiword_subtypes`` defaults to the two-word creature
    types of CR 205.3m (Time Lord).

    Raises :class:`ValueError` (and nothing else) when ``text`` is not a token phrase; it never
    returns None.
    """
    if not isinstance(text, str):
        raise ValueError(f"token description must be a string, not {type(text).__name__}")
    original = text
    s = " ".join(text.split())
    s = re.sub(r"^create\s+", "", s, flags=re.IGNORECASE)
    if s.endswith(".") and not quote_mask(s)[-1]:
        s = s[:-1].rstrip()
    if not s:
        raise ValueError(f"empty token description {original!r}")
    quote_mask(s)  # reject unbalanced quotes early
    if multiword_subtypes is None:
        multiword_subtypes = _two_word_subtypes()

    # CR 111.9: "create [name], a . . ." -- a name, a comma, then the description.
    given_name: str | None = None
    nm = re.match(r"^(?P<name>[^\"\u201c\u201d]+?),\s+(?=(?:a|an)\s)", s)
    if nm:
        cand = nm.group("name").strip()
        first = cand.split()[0].lower() if cand.split() else ""
        if cand[:1].isupper() and number_value(first) is None and first not in _COLORS and first != "x":
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

    mask = quote_mask(s)
    # The core (characteristics words) ends at "token(s)" or, failing that, at "named"/"with"/a tail.
    core_end, is_token, plural, after = len(s), False, False, len(s)
    tm = None
    for m in re.finditer(r"(?:(?<=\s)|^)(tokens?)(?=\s|$|,)", s):
        if not mask[m.start()]:
            tm = m
            break
    stop, _needle = _find_top(s, mask, (" named ", " with ", *_TAIL_MARKERS))
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
        elif lw in _COLORS:
            colors.add(_COLORS[lw])
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
        rmask = quote_mask(rest)
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
            colors.update(vocabulary.COLOR_WORD_BY_LETTER)
            rest = ""
        elif what_words and all(x.lower() in (*_COLORS, "colorless", "and", ",") for x in what_words):
            for x in what_words:
                if x.lower() in _COLORS:
                    colors.add(_COLORS[x.lower()])
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
        colors=tuple(c for c in vocabulary.COLOR_WORD_BY_LETTER if c in colors),  # CR 105.1: WUBRG order
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
