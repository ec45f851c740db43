"""Tests for oracle_tools.text.comprules: CR parsing and the CR 111.10 predefined tokens.

The token-phrase grammar and CR 111.4 default names (oracle_tools.text.tokentext) are tested in test_token_text.py.

Facts asserted about the predefined tokens are read from the shipped CR text itself
(data/rules/MagicCompRules-20260116.txt, effective January 16, 2026), rule 111.10a-111.10u.
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from oracle_tools.errors import RulesFileError
from oracle_tools.interfaces.cli import main
from oracle_tools.text.comprules import RulesDocument, default_rules_path, load_rules, parse_rules
from oracle_tools.tokens.predefined import PredefinedToken, predefined_tokens

REPO = Path(__file__).resolve().parents[1]
CR_FILE = REPO / "oracle_tools" / "data" / "rules" / "MagicCompRules-20260116.txt"


@pytest.fixture(scope="module")
def doc() -> RulesDocument:
    return load_rules()


@pytest.fixture(scope="module")
def tokens(doc: RulesDocument) -> list[PredefinedToken]:
    return predefined_tokens(doc)


@pytest.fixture(scope="module")
def by_name(tokens: list[PredefinedToken]) -> dict[str, PredefinedToken]:
    return {t.name: t for t in tokens}


def _raw_cr_text() -> str:
    return CR_FILE.read_bytes().decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")


# ------------------------------------------------------------------ document


def test_default_path_is_shipped_file() -> None:
    assert default_rules_path() == CR_FILE


def test_effective_date(doc: RulesDocument) -> None:
    assert doc.effective_date == datetime.date(2026, 1, 16)


def test_rule_lookup_and_examples(doc: RulesDocument) -> None:
    assert doc.rule("111.10a").startswith("A Treasure token is a colorless Treasure artifact token")
    assert doc.rule("111.10a.") == doc.rule("111.10a")
    # CR 111.4 has three "Example:" paragraphs (Dwarven Reinforcements, Minsc, Spitting Image)
    assert len(doc.examples["111.4"]) == 3
    assert "Dwarf Berserker Token" in doc.rule("111.4")
    assert "Example:" not in doc.statement("111.4")
    assert doc.sections["111"] == "Tokens"
    assert doc.rule("201.4").startswith("If an effect instructs a player to choose a card name")
    # an indented continuation paragraph is joined to its rule (205.4c)
    assert "Eighth Edition" in doc.rule("205.4c")
    assert doc.glossary["Treasure Token"].startswith("A Treasure token is")


def test_rule_missing_is_clear_keyerror(doc: RulesDocument) -> None:
    with pytest.raises(KeyError, match=r"999\.9z.*not in the Comprehensive Rules"):
        doc.rule("999.9z")


def test_all_rule_numbers_parsed(doc: RulesDocument) -> None:
    raw = _raw_cr_text()
    body = raw[raw.index("\n100.1. ") : raw.index("\nGlossary\n", raw.index("\n100.1. "))]
    numbers = re.findall(r"(?m)^(\d{3}\.\d+[a-z]*)\.?\s", body)
    assert list(doc.rules) == numbers


# ------------------------------------------------------------------ not the rules


def test_json_file_is_rejected(tmp_path: Path) -> None:
    p = tmp_path / "cards.json"
    p.write_text(json.dumps([{"name": "Treasure"}]))
    with pytest.raises(RulesFileError, match=re.escape(str(p)) + r".*not the Comprehensive Rules.*official"):
        load_rules(p)


def test_empty_file_is_rejected(tmp_path: Path) -> None:
    p = tmp_path / "empty.txt"
    p.write_bytes(b"")
    with pytest.raises(RulesFileError, match=re.escape(str(p)) + r".*empty"):
        load_rules(p)


def test_truncated_cr_is_rejected(tmp_path: Path) -> None:
    first50 = "\n".join(_raw_cr_text().split("\n")[:50])
    p = tmp_path / "MagicCompRules-truncated.txt"
    p.write_text(first50, encoding="utf-8")
    with pytest.raises(RulesFileError, match=re.escape(str(p)) + r".*no numbered rules"):
        load_rules(p)


def test_cr_cut_before_111_10_is_rejected() -> None:
    raw = _raw_cr_text()
    cut = raw[: raw.index("\n111.10. ")]
    with pytest.raises(RulesFileError, match=r"<cut>.*111\.10.*missing"):
        parse_rules(cut, source="<cut>")


@pytest.mark.parametrize(
    ("cut_at", "stops_at", "lacks"),
    [
        (120_000, "120.10", "section 9, Glossary or Credits"),
        (300_000, "601.3e", "section 9"),
        (900_000, None, "Credits"),  # inside the Glossary
    ],
)
def test_a_cr_cut_short_is_refused_by_its_structure(
    tmp_path: Path, cut_at: int, stops_at: str | None, lacks: str
) -> None:
    """`head -c 120000 cr.txt` once replaced the whole rules with 440 of them: a whole CR runs through section 9
    and ends with the Glossary and Credits (its table of contents), so a text that stops before that is refused."""
    p = tmp_path / "MagicCompRules-cut.txt"
    p.write_bytes(CR_FILE.read_bytes()[:cut_at])
    with pytest.raises(RulesFileError) as info:
        load_rules(p)
    message = str(info.value)
    assert message.startswith(f"{p} is cut short: its rules stop at ") and "\n" not in message
    assert f"no {lacks}" in message
    assert "runs through section 9 and ends with the Glossary and Credits" in message
    if stops_at is not None:
        assert re.search(rf"stop at {re.escape(stops_at)} ", message)


def test_the_real_cr_is_whole(realdata: Path) -> None:
    doc = load_rules(realdata / "MagicCompRules-20260116.txt")
    assert doc.sections["9"] == "Casual Variants" and "Treasure Token" in doc.glossary and len(doc.rules) > 3000


def test_ingest_of_a_cut_cr_keeps_the_database(sample_db_path: Path, tmp_path: Path) -> None:
    db_path = tmp_path / "copy.duckdb"
    db_path.write_bytes(sample_db_path.read_bytes())
    before = db_path.read_bytes()
    cut = tmp_path / "crt.txt"
    cut.write_bytes(CR_FILE.read_bytes()[:120_000])
    result = CliRunner().invoke(main, ["ingest", "--db", str(db_path), "--rules-file", str(cut), "--no-progress"])
    assert result.exit_code == 2, result.output
    assert "cut short" in result.output and "wrote" not in result.output
    assert db_path.read_bytes() == before


def test_missing_file_and_binary_file(tmp_path: Path) -> None:
    with pytest.raises(RulesFileError, match=r"nope.txt"):
        load_rules(tmp_path / "nope.txt")
    p = tmp_path / "bin.txt"
    p.write_bytes(b"\xff\xfe\x00garbage\x80")
    with pytest.raises(RulesFileError, match="not UTF-8"):
        load_rules(p)


def test_directory_without_rules(tmp_path: Path) -> None:
    with pytest.raises(RulesFileError, match="no MagicCompRules"):
        load_rules(tmp_path)


# ------------------------------------------------------------------ line endings / BOM


def test_shipped_file_has_bom_and_cr_line_ends() -> None:
    raw = CR_FILE.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert raw.count(b"\r") > 1000


@pytest.mark.parametrize("eol", ["\r", "\r\n", "\n"])
@pytest.mark.parametrize("bom", [True, False])
def test_line_endings_and_bom(tmp_path: Path, eol: str, bom: bool, doc: RulesDocument) -> None:
    text = _raw_cr_text().replace("\n", eol)
    p = tmp_path / "MagicCompRules-20260116.txt"
    p.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    other = load_rules(p)
    assert other.effective_date == doc.effective_date
    assert other.rules == doc.rules
    assert [t.name for t in predefined_tokens(other)] == [t.name for t in predefined_tokens(doc)]


def test_directory_picks_newest(tmp_path: Path) -> None:
    text = _raw_cr_text()
    (tmp_path / "MagicCompRules-20250101.txt").write_text(
        text.replace("effective as of January 16, 2026", "effective as of January 1, 2025"), encoding="utf-8"
    )
    (tmp_path / "MagicCompRules-20260116.txt").write_text(text, encoding="utf-8")
    assert load_rules(tmp_path).effective_date == datetime.date(2026, 1, 16)


# ------------------------------------------------------------------ CR 111.10 predefined tokens


def test_every_111_10_subrule_yields_a_token(doc: RulesDocument, tokens: list[PredefinedToken]) -> None:
    raw = _raw_cr_text()
    subrules = re.findall(r"(?m)^(111\.10[a-z]+) ", raw)
    subjects = dict(re.findall(r"(?m)^(111\.10[a-z]+) An? (.+?) token is ", raw))
    assert len(subrules) >= 19  # a..u without l and o in the 2026-01-16 file
    assert [t.rule for t in tokens] == subrules
    for t in tokens:
        assert t.name == subjects[t.rule]
        assert t.effective_date == datetime.date(2026, 1, 16)
        assert t.type_line.startswith("Token ")
        assert t.card_types, t
        # every quoted ability of the rule is in the token's (or its faces') oracle text
        rule_text = doc.statement(t.rule)
        texts = t.oracle_text + "".join(f.oracle_text for f in t.faces)
        for q in re.findall(r"“(.+?)”(?!\w)", rule_text):
            if q.startswith("Explore"):
                continue  # cross-reference "See rule 701.44, “Explore.”"
            core = re.split(r"[‘’]", q.rstrip(",."))[0]
            assert core in texts, (t.rule, q)


def test_colorless_tokens_match_cr_words(doc: RulesDocument, tokens: list[PredefinedToken]) -> None:
    for t in tokens:
        if "is a colorless" in doc.statement(t.rule):
            assert t.colors == ()


def test_treasure(by_name: dict[str, PredefinedToken], doc: RulesDocument) -> None:
    t = by_name["Treasure"]
    assert t.rule == "111.10a"
    assert (t.colors, t.card_types, t.subtypes, t.supertypes) == ((), ("Artifact",), ("Treasure",), ())
    assert t.oracle_text == "{T}, Sacrifice this token: Add one mana of any color."
    assert f"“{t.oracle_text}”" in doc.rule("111.10a")
    assert t.type_line == "Token Artifact — Treasure"
    assert (t.power, t.toughness, t.given_name, t.faces) == (None, None, None, ())
    assert t.game_name == "Treasure Token"  # CR 111.4


def test_food_clue_blood(by_name: dict[str, PredefinedToken]) -> None:
    assert by_name["Food"].oracle_text == "{2}, {T}, Sacrifice this token: You gain 3 life."
    assert by_name["Food"].type_line == "Token Artifact — Food"
    assert by_name["Clue"].oracle_text == "{2}, Sacrifice this token: Draw a card."
    assert by_name["Blood"].oracle_text == "{1}, {T}, Discard a card, Sacrifice this token: Draw a card."
    assert by_name["Blood"].rule == "111.10g"
    assert by_name["Shard"].type_line == "Token Enchantment — Shard"


def test_walker(by_name: dict[str, PredefinedToken]) -> None:
    w = by_name["Walker"]  # CR 111.10d "a 2/2 black Zombie creature token named Walker"
    assert (w.power, w.toughness) == ("2", "2")
    assert w.colors == ("B",)
    assert w.card_types == ("Creature",) and w.subtypes == ("Zombie",)
    assert w.given_name == "Walker" and w.game_name == "Walker"
    assert w.type_line == "Token Creature — Zombie"
    assert w.oracle_text == ""


def test_incubator_faces(by_name: dict[str, PredefinedToken]) -> None:
    inc = by_name["Incubator"]  # CR 111.10i
    assert len(inc.faces) == 2
    front, back = inc.faces
    assert front.name == "Incubator" and front.colors == () and front.card_types == ("Artifact",)
    assert front.subtypes == ("Incubator",) and front.oracle_text == "{2}: Transform this token."
    assert back.name == "Phyrexian Token" and back.given_name == "Phyrexian Token"
    assert (back.power, back.toughness) == ("0", "0") and back.colors == ()
    assert back.card_types == ("Artifact", "Creature") and back.subtypes == ("Phyrexian",)
    assert inc.type_line == "Token Artifact — Incubator // Token Artifact Creature — Phyrexian"
    assert inc.card_types == front.card_types and inc.oracle_text == front.oracle_text


def test_roles(by_name: dict[str, PredefinedToken], doc: RulesDocument) -> None:
    raw_roles = re.findall(
        r"(?m)^111\.10[a-z]+ An? (\w+(?: \w+)*) Role token is .*?named (.+?) with enchant creature", _raw_cr_text()
    )
    assert len(raw_roles) >= 7
    for role, named in raw_roles:
        t = by_name[f"{role} Role"]
        assert t.card_types == ("Enchantment",) and t.subtypes == ("Aura", "Role")
        assert t.type_line == "Token Enchantment — Aura Role"
        assert t.given_name == named  # the CR says "named Cursed", not "named Cursed Role"
        assert t.oracle_text.startswith("Enchant creature\n")
    cursed = by_name["Cursed Role"]
    assert cursed.oracle_text == "Enchant creature\nEnchanted creature has base power and toughness 1/1."
    wicked = by_name["Wicked Role"]  # two quoted abilities, list comma inside the first quote
    assert wicked.oracle_text.split("\n") == [
        "Enchant creature",
        "Enchanted creature gets +1/+1.",
        "When this token is put into a graveyard from the battlefield, each opponent loses 1 life.",
    ]
    hero = by_name["Young Hero Role"]  # nested ‘…’ becomes “…” once unwrapped
    assert hero.given_name == "Young Hero"
    assert hero.oracle_text.endswith(
        "has “Whenever this creature attacks, if its toughness is 3 or less, put a +1/+1 counter on it.”"
    )


def test_map_cross_reference_is_a_note(by_name: dict[str, PredefinedToken]) -> None:
    m = by_name["Map"]
    assert m.oracle_text.endswith("Activate only as a sorcery.")
    assert m.notes == ("See rule 701.44, “Explore.”",)


def test_rules_without_111_10_subrules_raise(doc: RulesDocument) -> None:
    stripped = RulesDocument(
        effective_date=doc.effective_date,
        rules={k: v for k, v in doc.rules.items() if not k.startswith("111.10")},
        source="<stripped>",
    )
    with pytest.raises(RulesFileError, match="<stripped>"):
        predefined_tokens(stripped)


def test_unparseable_subrule_raises_rules_file_error(doc: RulesDocument) -> None:
    rules = dict(doc.rules)
    rules["111.10a"] = "Treasure tokens are shiny."
    broken = RulesDocument(effective_date=doc.effective_date, rules=rules, source="<broken>")
    with pytest.raises(RulesFileError, match=r"<broken>: rule 111\.10a"):
        predefined_tokens(broken)


def test_a_rules_address_that_fails_gets_advice_about_the_rules_address(tmp_path: Path, sample_db_path: Path) -> None:
    """`ingest --rules-url` to an address nothing answers (or that has no such file) advised building a database
    from the sample or bulk files: the rules text is what failed, so the line is about its address."""
    from scryfall_server import ScryfallServer

    db = tmp_path / "oracle.duckdb"
    db.write_bytes(sample_db_path.read_bytes())
    before = db.read_bytes()
    advice = (
        "Check the rules text's address (each release of the Comprehensive Rules has its own, linked from "
        "https://magic.wizards.com/en/rules), or give a rules text you have with --rules-file FILE; nothing was "
        "replaced.\n"
    )
    with ScryfallServer(types=()) as server:
        for url, said in [
            (
                "http://127.0.0.1:1/x.txt",
                "cannot reach 127.0.0.1:1: the connection was refused (nothing listens there)",
            ),
            (server.url + "/rules/x.txt", f"HTTP 404 Not Found for {server.url}/rules/x.txt: Scripted HTTP 404"),
        ]:
            args = ["ingest", "--rules-url", url, "--db", str(db), "--cache-dir", str(tmp_path / "c"), "--no-progress"]
            done = CliRunner().invoke(main, args)
            assert done.exit_code == 2
            assert done.stderr == f"error: --rules-url: {said}. {advice}"
    assert db.read_bytes() == before
