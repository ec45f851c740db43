"""Each extension point has one table, and nothing else in the package writes out a list of its values: the kinds of
names (``via``) live in ``names/kinds.py``, the search keywords and ``is:`` values in ``search/keywords.py``. Every
other module derives its list from the table, so a new kind or keyword is one row, not a hunt (docs/architecture.md,
"A new name kind", "A new search keyword")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from oracle_tools.names.kinds import KINDS
from oracle_tools.search.keywords import BY_NAME, IS_BY_NAME, KEYWORDS, REFUSED, UNSUPPORTED

PACKAGE = Path(__file__).resolve().parent.parent / "oracle_tools"

#: A bracketed group: a Python list, tuple or set, or SQL's IN (...).
_GROUP = re.compile(r"[(\[{]([^()\[\]{}]*)[)\]}]")
_QUOTED = re.compile(r"""(['"])([^'"\n]*)\1""")
#: SQL's CASE over a via column, WHEN by WHEN: a list of kinds written as a ranking.
_CASE_ON_VIA = re.compile(r"CASE\s+[\w.]*\bvia\s+WHEN\s+'", re.IGNORECASE)
#: A term's keyword or family compared with a written set of them.
_KEYWORD_TEST = re.compile(r"\.(?:keyword|family)\s+(?:not\s+)?in\s+(?=[(\[{])")


def _sources(*under: str) -> Iterator[tuple[Path, str]]:
    for folder in under:
        base = PACKAGE / folder
        paths = [base] if base.is_file() else sorted([*base.rglob("*.py"), *base.rglob("*.sql")])
        for path in paths:
            yield path, path.read_text(encoding="utf-8")


def _where(path: Path, text: str, offset: int) -> str:
    return f"{path.relative_to(PACKAGE.parent)}:{text.count(chr(10), 0, offset) + 1}"


def _literal_lists(text: str) -> Iterator[tuple[int, list[str]]]:
    """Every bracketed group of two or more different quoted strings and nothing else, with its offset (a pair of
    one word, ``("rebalanced", "rebalanced")``, is a spelling and its data value, not a list)."""
    for match in _GROUP.finditer(text):
        inside = match.group(1)
        items = [quoted[1] for quoted in _QUOTED.findall(inside)]
        if len(set(items)) >= 2 and not re.search(r"[^\s,]", _QUOTED.sub("", inside)):
            yield match.start(), items


def via_lists(files: Iterator[tuple[Path, str]]) -> list[str]:
    """file:line of every literal list of two or more kinds of names, outside their table."""
    vias = {kind.via for kind in KINDS}
    found = []
    for path, text in files:
        if path == PACKAGE / "names" / "kinds.py":
            continue
        found += [_where(path, text, at) for at, items in _literal_lists(text) if set(items) <= vias]
        found += [_where(path, text, m.start()) for m in _CASE_ON_VIA.finditer(text)]
    return found


def keyword_lists(files: Iterator[tuple[Path, str]]) -> list[str]:
    """file:line of every literal list of two or more ``is:`` values, and of every written set of keywords a term
    is tested against, outside the keyword table."""
    keywords = set(BY_NAME) | set(UNSUPPORTED) | {kw.family for kw in (*KEYWORDS, *REFUSED)}
    found = []
    for path, text in files:
        if path == PACKAGE / "search" / "keywords.py":
            continue
        found += [_where(path, text, at) for at, items in _literal_lists(text) if set(items) <= set(IS_BY_NAME)]
        for test in _KEYWORD_TEST.finditer(text):
            group = next(_literal_lists(text[test.end() :]), None)
            if group is not None and group[0] == 0 and set(group[1]) <= keywords:
                found.append(_where(path, text, test.start()))
    return found


def test_no_list_of_kinds_of_names_outside_names_kinds() -> None:
    # The layers that may read names/kinds.py and the SQL they run: every list of kinds is derived from the table.
    found = via_lists(_sources("."))
    assert not found, "a list of kinds of names (via) written outside names/kinds.py: " + ", ".join(found)


def test_no_list_of_is_values_or_keywords_outside_the_keyword_table() -> None:
    # The layers that see the keyword table (search and above); below them "foil" or "split" are data values
    # (finishes, layouts), not is: values.
    found = keyword_lists(_sources("search", "db.py", "ingest.py", "interfaces"))
    assert not found, "a list of is: values or keywords written outside search/keywords.py: " + ", ".join(found)


def test_the_scans_find_what_they_look_for(tmp_path: Path) -> None:
    """The scans name the file and line of a written list, and pass a derived one."""
    written = PACKAGE / "example.py"
    text = "x = 1\nown = n.via IN ('name', 'face')\nif r.via in (\"name\", \"normalized\"):\n"
    text += "CASE ns.via WHEN 'name' THEN 0 ELSE 1 END\nok = list_contains(?, via)\n"
    assert via_lists(iter([(written, text)])) == [
        "oracle_tools/example.py:2",
        "oracle_tools/example.py:3",
        "oracle_tools/example.py:4",
    ]
    text = 'a = ("foil", "nonfoil")\nif node.keyword in ("order", "sort"):\nif kw.family in FAMILIES:\n'
    assert keyword_lists(iter([(written, text)])) == ["oracle_tools/example.py:1", "oracle_tools/example.py:2"]
