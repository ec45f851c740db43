"""Parse the Magic: The Gathering Comprehensive Rules (CR) text file.

* :func:`load_rules` / :func:`parse_rules` read the official CR ``.txt`` (as published at
  https://magic.wizards.com/rules: UTF-8 with a BOM, lines ended by bare ``\\r`` with the odd
  ``\\r\\n``) into a :class:`RulesDocument` mapping rule numbers ("111.10a") to rule text.
* :func:`predefined_tokens` derives the predefined tokens of CR 111.10 (Treasure, Food, Clue,
  Role tokens, ...) by *parsing* each 111.10x subrule; nothing about the tokens is typed in here.
  The token-phrase grammar it reads them with ("a colorless Food artifact token with …") and CR 111.4's
  default token names live in :mod:`oracle_tools.tokentext`, shared with the Oracle-text "create …"
  clauses of :mod:`oracle_tools.tokens`.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from oracle_tools import userfiles
from oracle_tools.errors import RulesFileError
from oracle_tools.oracletext import quote_mask  # quoted abilities: the Oracle-text layer's reading
from oracle_tools.resources import RULES_DIR, newest_rules_file  # shipped in the package: oracle_tools/data/rules
from oracle_tools.tokentext import TokenDescription, default_token_name, parse_token_description

__all__ = [
    "RulesDocument",
    "PredefinedToken",
    "parse_rules",
    "load_rules",
    "default_rules_path",
    "predefined_tokens",
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


def default_rules_path(directory: Path | None = None) -> Path:
    """The newest ``MagicCompRules-YYYYMMDD.txt`` in ``directory`` (default: the shipped data/rules)."""
    directory = RULES_DIR if directory is None else Path(directory)
    newest = newest_rules_file(directory)
    if newest is None:
        raise RulesFileError(
            f"no MagicCompRules-*.txt file in {directory}; download the rules text from "
            f"https://magic.wizards.com/rules and put it there, or pass its path"
        )
    return newest


#: The Comprehensive Rules text is about 1 MB; 32 MB bounds a wrong file (/dev/zero) without refusing a real one.
MAX_RULES_BYTES = 32 * userfiles.MiB


def load_rules(path: Path | str | None = None) -> RulesDocument:
    """Read and parse a Comprehensive Rules file (default: newest shipped ``data/rules`` file).

    Handles the BOM and ``\\r`` / ``\\r\\n`` / ``\\n`` line ends. A directory means "the newest
    MagicCompRules-*.txt in it".
    """
    p = default_rules_path() if path is None else Path(path)
    if p.is_dir():
        p = default_rules_path(p)
    try:
        raw = userfiles.read_bytes(p, limit=MAX_RULES_BYTES, what="Comprehensive Rules text")
    except OSError as exc:
        raise RulesFileError(f"cannot read Comprehensive Rules file {p}: {exc.strerror or exc}; {_OFFICIAL}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RulesFileError(f"{p} is not the Comprehensive Rules: it is not UTF-8 text; {_OFFICIAL}") from None
    return parse_rules(text, source=str(p))


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
    mask = quote_mask(text)
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
