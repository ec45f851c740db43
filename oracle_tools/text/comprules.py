"""Parse the Magic: The Gathering Comprehensive Rules (CR) text file.

* :func:`load_rules` / :func:`parse_rules` read the official CR ``.txt`` (as published at
  https://magic.wizards.com/rules: UTF-8 with a BOM, lines ended by bare ``\\r`` with the odd
  ``\\r\\n``) into a :class:`RulesDocument` mapping rule numbers ("111.10a") to rule text.

The rules document is the bottom of the text layer: the vocabulary (:mod:`oracle_tools.text.vocabulary`) reads
its word lists from it, and the predefined tokens of CR 111.10 are read from it by the tokens concept
(:mod:`oracle_tools.tokens.predefined`).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from pathlib import Path

from oracle_tools.errors import RulesFileError
from oracle_tools.store import userfiles
from oracle_tools.store.resources import RULES_DIR, newest_rules_file  # shipped in the package: oracle_tools/data/rules

__all__ = [
    "RulesDocument",
    "default_rules_path",
    "load_rules",
    "parse_rules",
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

    _refuse_cut_short(lines, start, end, rules, sections, source)

    glossary: dict[str, str] = {}
    block: list[str] = []
    for ln in [*lines[end + 1 :], ""]:
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


def _refuse_cut_short(
    lines: list[str], start: int, end: int, rules: dict[str, list[str]], sections: dict[str, str], source: str
) -> None:
    """Refuse a rules text that stops before its end, so a cut file never replaces the whole rules.

    The CR's own table of contents gives its structure: nine numbered sections ("1. Game Concepts" ...
    "9. Casual Variants", rules 100-905), then "Glossary", then "Credits" (which ends with the "These rules are
    effective as of ..." line). A whole file therefore has a section 9 heading among its rules, a Glossary heading
    after them and a Credits heading after the Glossary; a count of rules would be a guess that changes with every
    release, the structure does not.
    """
    missing: list[str] = []
    if "9" not in sections:
        missing.append("section 9")
    if end >= len(lines):
        missing.append("Glossary")
    if "Credits" not in lines[end + 1 :]:
        missing.append("Credits")
    if not missing:
        return
    last = next(reversed(rules))
    raise RulesFileError(
        f"{source} is cut short: its rules stop at {last} and it has no {_or(missing)} — a whole Comprehensive "
        f"Rules text runs through section 9 and ends with the Glossary and Credits; {_OFFICIAL}"
    )


def _or(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


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
