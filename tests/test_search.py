"""Scryfall's search syntax over the database: parser, keywords, per-printing evaluation, CLI.

Expected cards are real cards of the embedded sample (oracle_tools/data/sample/) or of ../shared/realdata,
each with why it must (or must not) match, taken from the card itself (printed characteristics), not
from this code's output. Scryfall's semantics: https://scryfall.com/docs/syntax (tests/fixtures/
scryfall_syntax_examples.txt lists its example queries).
"""

from __future__ import annotations

import contextlib
import html
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle_tools import OracleDB
from oracle_tools.search import SearchSyntaxError, UnsupportedKeywordError, compile, parse
from oracle_tools.search.keywords import IS_TABLE, KEYWORDS, REFUSED, UNSUPPORTED, docs_markdown, help_rows
from oracle_tools.search.tree import And, Not, Or, Term
from oracle_tools.text.matching import normalize

from fuzzing import examples

if TYPE_CHECKING:
    from oracle_server import Server

EXAMPLES = Path(__file__).parent / "fixtures" / "scryfall_syntax_examples.txt"


def names(db: OracleDB, query: str, **kw: str) -> list[str]:
    return db.search(query, **kw).get_column("name").to_list()


# -- parser ------------------------------------------------------------------------------------------


def test_tree_shape_implicit_and_or_negation_and_nesting() -> None:
    tree = parse("t:legendary (t:goblin or -t:elf)")
    assert isinstance(tree, And)
    first, group = tree.children
    assert first == Term("t", ":", "legendary", "word", 0)
    assert isinstance(group, Or) and isinstance(group.children[1], Not)
    # OR binds looser than the implicit AND (Scryfall: "terms not separated by OR are still combined")
    tree = parse("a or b c")
    assert isinstance(tree, Or) and isinstance(tree.children[1], And)


def test_values_words_phrases_regexes_and_exact_rows() -> None:
    assert parse('o:"draw a card"') == Term("o", ":", "draw a card", "phrase", 0)
    assert parse(r"o:/^{T}:/") == Term("o", ":", "^{T}:", "regex", 0)
    regex = parse(r"name:/a\/b/")
    assert isinstance(regex, Term) and regex.value == "a/b"  # \/ is a slash inside a regex (Scryfall's rule)
    assert parse('!"Lightning Bolt"') == Term("name", ":", "Lightning Bolt", "phrase", 0, exact=True)
    assert parse("Ach! Hans, Run!") == And(
        (
            Term("name", ":", "Ach!", "word", 0),
            Term("name", ":", "Hans,", "word", 5),
            Term("name", ":", "Run!", "word", 11),
        )
    )
    mv, color = parse("mv<=2"), parse("c!=r")
    assert isinstance(mv, Term) and isinstance(color, Term) and mv.op == "<=" and color.op == "!="
    assert parse("++") == Term("unique", ":", "prints", "word", 0)  # Scryfall's old spelling


@pytest.mark.parametrize(
    ("query", "position", "words"),
    [
        ('t:goblin "bolt', 9, "never closed"),
        ("(t:goblin or t:elf", 0, "never closed"),
        ("t:goblin)", 8, "no matching"),
        ("o:/abc", 2, "regular expression is never closed"),
        ("t: goblin", 2, "right after"),
        ("t:goblin -", 9, "negation"),
    ],
)
def test_syntax_errors_say_what_and_where(query: str, position: int, words: str) -> None:
    with pytest.raises(SearchSyntaxError) as info:
        parse(query)
    assert info.value.position == position
    assert words in str(info.value)
    assert "\n" not in str(info.value)  # one line
    assert info.value.caret().splitlines()[1].index("^") == position + 2


@pytest.mark.parametrize(
    ("query", "position"),
    [
        ("-" * 990 + "t:goblin", 100),  # the 101st negation
        ("(-" * 330 + "a" + ")" * 330, 201),
        ("(t:a " * 150 + ")" * 150, 501),  # groups, each an implicit AND
        ("(a or " * 120 + "b" + ")" * 120, 601),
    ],
)
def test_a_query_nested_too_deep_is_one_syntax_error_not_a_recursion_error(query: str, position: int) -> None:
    """A short query can nest hundreds deep (each `-` a level): refused in one line before any tree walk recurses
    (a RecursionError was a 500 on the server, whose stack is already deep)."""
    with pytest.raises(SearchSyntaxError, match="nests negations and groups more than 100 deep") as info:
        compile(query)
    assert info.value.position == position
    assert isinstance(parse("-" * 100 + "t:goblin"), Not)  # 100 levels are fine


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(alphabet=st.sampled_from(list('abtco:!=<>-()"/\\ ~{}*+@0123456789ÿ\t')), max_size=40) | st.text(max_size=40)
)
def test_random_strings_never_crash_the_parser(query: str) -> None:
    try:
        parse(query)
    except SearchSyntaxError as exc:
        assert 0 <= exc.position <= len(query)  # noqa: PT017 -- raising is allowed here; a raised error must be well-formed


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list('tcoidmvpwrg:!=<>-()"/ 0123456789')), max_size=30))
def test_random_strings_never_crash_the_compiler(query: str) -> None:
    """Parsing and compiling never raise anything but SearchSyntaxError (an unknown keyword, a bad value)."""
    with contextlib.suppress(SearchSyntaxError):
        compile(query, nameable=lambda phrase: [])


def test_every_keyword_operator_and_odd_value_runs_or_says_why(sample_db: OracleDB) -> None:
    """Each keyword with each operator and awkward values either runs or is one SearchSyntaxError with a
    position: never a Python error (cn<nan once raised ValueError) nor a database error (nameable:x once
    leaked the choose-name parser's multi-line ConstraintError)."""
    values = [
        "",
        "x",
        "2",
        "*",
        "nan",
        "inf",
        "tou",
        "rg",
        "m19",
        "/a/",
        '"~ x"',
        "99999999999999999999",
        "²",
        "٣",
        "{²}",
    ]
    for kw in KEYWORDS:
        for op in ("=", "!=", "<", ">="):
            for value in values:
                query = f"{kw.names[0]}{op}{value}"
                try:
                    sample_db.search(query)
                except SearchSyntaxError as exc:
                    assert "could not run" not in str(exc) and "\n" not in str(exc), query  # noqa: PT017 -- raising is allowed here; a raised error must be well-formed
                    assert 0 <= exc.position <= len(query), query  # noqa: PT017 -- raising is allowed here; a raised error must be well-formed


def test_every_example_on_scryfalls_syntax_page_parses() -> None:
    examples = [line for line in EXAMPLES.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    assert len(examples) > 90
    for query in examples:
        parse(query)  # raises on any failure


def test_unsupported_keyword_names_itself_and_lists_the_supported_ones() -> None:
    with pytest.raises(UnsupportedKeywordError) as info:
        compile("art:squirrel")
    message = str(info.value)
    assert message.startswith("art: is not supported (tagger tags")
    assert "t, " in message and "mv" in message and "f, " in message
    with pytest.raises(SearchSyntaxError, match="unknown keyword frobnicate:"):
        compile("frobnicate:3")


def test_user_text_is_only_ever_a_bound_parameter() -> None:
    evil = "x'); DROP TABLE cards; --"
    for query in (f'"{evil}"', f'o:"{evil}"', f't:"{evil}"', f'a:"{evil}"', f's:"{evil}"'):
        compiled = compile(query)
        assert "DROP" not in compiled.sql
        # a name is looked up by its folded key (punctuation dropped, as Scryfall's name search does)
        assert any(evil.lower() in str(p).lower() or normalize(evil) in str(p) for p in compiled.params)


def test_every_keyword_family_has_an_example_that_compiles() -> None:
    for kw in KEYWORDS:
        compile(kw.example, nameable=lambda phrase: [])


# -- keywords on the embedded sample -------------------------------------------------------------------


def test_bare_words_are_accent_and_case_insensitive_name_parts(sample_db: OracleDB) -> None:
    assert names(sample_db, "lim-dul") == ["Lim-Dûl's Vault"]  # û folded, as Scryfall folds accents
    assert "Lightning Bolt" in names(sample_db, "LIGHTNING bolt")
    assert "Forked Bolt" in names(sample_db, "bolt") and "Lightning Bolt" not in names(sample_db, "bolt -lightning")


def test_exact_name_matches_a_whole_name_or_a_face(sample_db: OracleDB) -> None:
    assert names(sample_db, "!fire") == ["Fire // Ice"]  # Scryfall: "!fire — The card Fire" (a half's name)
    assert names(sample_db, '!"lightning bolt"') == ["Lightning Bolt"]
    assert names(sample_db, "!lightning") == []


def test_exact_name_reads_a_glued_comma_as_every_name_lookup_does(sample_db: OracleDB) -> None:
    """'!"Jace,the Mind Sculptor"' (a comma glued between two words, as pasted lists write it) is the card resolve
    finds for the same text (CR 201.2: the name is the card's, not the typist's marks); a name's own marks keep
    their answer and a near miss stays none."""
    assert sample_db.resolve("Jace,the Mind Sculptor").name == "Jace, the Mind Sculptor"
    assert names(sample_db, '!"Jace,the Mind Sculptor"') == ["Jace, the Mind Sculptor"]
    assert names(sample_db, '!"jace,the mind sculptor" or !fire') == ["Fire // Ice", "Jace, the Mind Sculptor"]
    assert names(sample_db, '!"Ach! Hans,Run!"') == ['"Ach! Hans, Run!"']
    assert names(sample_db, '!"Jace,the Mind Sculpto"') == []


def test_type_partial_words_and_extras_hidden(sample_db: OracleDB) -> None:
    found = sample_db.search("t:goblin c:r mv<=2")
    # Goblin Artisans: {R}, Creature — Goblin Artificer, 1/1 (ATQ) — red, Goblin, mana value 1
    assert "Goblin Artisans" in found.get_column("name").to_list()
    assert all("Goblin" in t for t in found.get_column("type_line"))
    assert all(v <= 2 for v in found.get_column("cmc")) and all("R" in c for c in found.get_column("colors"))
    # the Goblin token (Token Creature — Goblin) is an extra: hidden unless asked for
    assert "Goblin" not in names(sample_db, "t:goblin")
    assert "Goblin" in names(sample_db, "t:goblin include:extras")
    assert "Goblin" in names(sample_db, "t:token t:goblin")  # searching for the type shows them
    assert "Legendary Creature — Goblin" in sample_db.search("t:legend t:goblin").get_column("type_line").to_list()


def test_name_words_find_extras_where_extras_are_shown(sample_db: OracleDB) -> None:
    """Scryfall's example `power include:extras`: "Cards with "power" in their name, including extras". The names
    table (what resolve reads) holds the cards of the reference only, so a name word never found a token, plane,
    vanguard or emblem: `t:token goblin` and `t:plane reef` answered 0 cards (the sample's Goblin token,
    Celestine Reef, Platinum Angel Avatar, Ob Nixilis Reignited Emblem)."""
    assert names(sample_db, "t:token goblin") == names(sample_db, "t:token t:goblin name:/goblin/") != []
    assert "Goblin" in names(sample_db, "t:token goblin") and "Goblin" in names(sample_db, "t:token !goblin")
    assert names(sample_db, "t:plane reef") == ["Celestine Reef"]
    assert "Platinum Angel Avatar" in names(sample_db, "platinum include:extras")
    assert "Ob Nixilis Reignited Emblem" in names(sample_db, '"nixilis reignited" include:extras')
    assert "Platinum Angel Avatar" not in names(sample_db, "platinum")  # extras stay hidden unless asked for
    assert "Goblin" not in names(sample_db, "!goblin")


def test_oracle_text_tilde_and_reminder_text(sample_db: OracleDB) -> None:
    # Blooming Marsh: "Blooming Marsh enters the battlefield tapped unless you control two or fewer other lands."
    assert "Blooming Marsh" in names(sample_db, 'o:"~ enters the battlefield tapped"')
    # Delver of Secrets // Insectile Aberration: the back face has "Flying" only; the front looks at the top card of your library
    assert "Delver of Secrets // Insectile Aberration" in names(sample_db, 'o:"look at the top card of your library"')
    # Goblin Guide's "Haste" has no reminder text in Oracle, Tarmogoyf has none: reminder text is only for fo:
    with_reminder = set(names(sample_db, 'fo:"this creature can attack and"'))
    assert with_reminder and not with_reminder & set(names(sample_db, 'o:"this creature can attack and"'))


def test_tilde_is_the_cards_own_name_or_this_object(sample_db: OracleDB) -> None:
    """Scryfall: ~ is "the current card name or 'this spell' if the card mentions itself"; Oracle text since
    the 2024 templating update says "this creature" / "this land" where older text repeats the name."""
    # Lightning Bolt: "Lightning Bolt deals 3 damage to any target."; Fire // Ice: "Fire deals 2 damage …"
    assert "Lightning Bolt" in names(sample_db, 'o:"~ deals 3 damage"')
    assert "Fire // Ice" not in names(sample_db, 'o:"~ deals 3 damage"')
    assert "Fire // Ice" in names(sample_db, 'o:"~ deals 2 damage"')  # the half's own name
    # Cat Collector (FDN, 2024 text): "When this creature enters, create a Food token."
    assert "Cat Collector" in names(sample_db, 'o:"when ~ enters"')
    # the same in a regular expression: Blooming Marsh "Blooming Marsh enters the battlefield tapped …"
    assert "Blooming Marsh" in names(sample_db, "o:/^~ enters/")
    assert "Cat Collector" not in names(sample_db, "o:/^~ enters/")  # its line starts with "When"
    # Black Lotus: "{T}, Sacrifice Black Lotus: …"; Cat Collector's Food reminder "Sacrifice this token" is the
    # token's ability, not the card's
    sacrifice_self = names(sample_db, 'fo:"sacrifice ~"')
    assert "Black Lotus" in sacrifice_self and "Cat Collector" not in sacrifice_self


@pytest.mark.parametrize(
    "pattern",
    [r"^l\pL+ \p{Latin}olt\z", r"^\QLightning Bolt\E$", r"^lightning\x{20}bolt$", r"(?U)^lightning bo.+t$"],
)
def test_a_regular_expression_the_engine_takes_is_searched(sample_db: OracleDB, pattern: str) -> None:
    # RE2's syntax (DuckDB's engine, which runs it; Scryfall's regexes are its kind too): Unicode classes, \z, \Q…\E,
    # \x{..}, (?U). The search checked them with Python's `re`, which refused each ("bad escape \p at position 0")
    assert names(sample_db, f"name:/{pattern}/") == ["Lightning Bolt"]


def test_a_regular_expression_python_refuses_is_asked_of_the_engine_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """RE2 is asked about a pattern Python's `re` refuses on an in-memory database; a query compiles a regex for its
    SQL and again for each other not-judged term's count (a: here, twice), and each asked again: 3 databases opened
    for one search (15 ms each), more with more such terms. A pattern is asked about once."""
    import duckdb

    from oracle_tools import search as _search

    opened: list[str] = []
    connect = duckdb.connect

    def counting(database: str = ":memory:", *args: object, **kwargs: object) -> duckdb.DuckDBPyConnection:
        opened.append(database)
        return connect(database, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(duckdb, "connect", counting)
    compiled = _search.compile(r"ft:/\p{Lu}ire\z/ a:once")
    assert len(compiled.unknowns) == 2
    assert opened == [":memory:"]


def test_a_regular_expression_neither_engine_takes_is_one_syntax_error(sample_db: OracleDB) -> None:
    with pytest.raises(SearchSyntaxError, match="bad regular expression") as refused:
        sample_db.search("t:goblin o:/[unclosed/")
    assert refused.value.position == 9


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "infinity", "1e309", "1_0", "\uff13", "\u0663"])
def test_a_number_is_written_in_ascii_digits_and_finite(sample_db: OracleDB, value: str) -> None:
    # Python's float() took each: cmc<nan and cmc<1e309 answered every card (a NaN is above every number in DuckDB),
    # cmc=1_0 the cards of mana value 10, cmc=\uff13 (a full-width 3) those of 3
    for query in (f"cmc<{value}", f"pow>{value}", f"usd<{value}"):
        with pytest.raises(SearchSyntaxError, match="expected a number") as refused:
            sample_db.search(f"t:goblin {query}")
        assert refused.value.position == 9
    assert names(sample_db, "cmc=1e1") == names(sample_db, "cmc=10") == names(sample_db, "cmc=+10.")


@pytest.mark.parametrize("value", ["99999-01-01", "2019-1-1-1", "20190101", "2019-"])
def test_a_mistyped_date_is_said_to_be_no_date(sample_db: OracleDB, value: str) -> None:
    # digits and dashes name no set (every set code has a letter): "unknown set code '99999-01-01'" sent the user to
    # the list of sets
    with pytest.raises(SearchSyntaxError, match=rf"^date>{value}: not a date \(yyyy-mm-dd\)") as refused:
        sample_db.search(f"t:goblin date>{value}")
    assert refused.value.position == 9
    assert names(sample_db, "date>=2019-01-01 t:goblin") == names(sample_db, "date>=2019 t:goblin") != []


def test_a_whole_number_of_more_digits_than_a_bigint_is_one_syntax_error(sample_db: OracleDB) -> None:
    # DuckDB refused to bind it: "the database could not run this search: … too large for 128-bit integer type"
    nines = "9" * 40
    for query, said in ((f"cn>{nines}", "expected a whole number such as 250"), (f"year>{nines}", "expected a year")):
        with pytest.raises(SearchSyntaxError, match=said) as refused:
            sample_db.search(f"t:goblin {query}")
        assert refused.value.position == 9
    assert names(sample_db, f"cn<{'9' * 18}") and not names(sample_db, f"year>{'9' * 18}")
    # a colour count: no card has more than five colours (or produces more than six kinds of mana)
    assert not names(sample_db, f"c>{nines}") and not names(sample_db, f"id={nines}")
    assert names(sample_db, f"c<{nines}") == names(sample_db, "c<7")
    assert not names(sample_db, f"produces>{nines}")
    # a generic mana amount likewise
    assert not names(sample_db, f"m>={nines}") and names(sample_db, f"m<={{{nines}}}") == names(sample_db, "m<=99")


def test_bare_double_slash_is_part_of_a_multi_face_name(sample_db: OracleDB) -> None:
    # Scryfall finds "fire // ice" by name; the // is not an empty regular expression here
    assert names(sample_db, "fire // ice") == ["Fire // Ice"]
    assert names(sample_db, "(fire // ice)") == ["Fire // Ice"]


def test_regular_expressions(sample_db: OracleDB) -> None:
    tappers = names(sample_db, "t:creature o:/^{T}:/")
    assert "Llanowar Elves" in tappers  # "{T}: Add {G}." on its own line
    assert "Goblin Guide" not in tappers
    assert names(sample_db, r"name:/\bbolt$/") and all(
        n.lower().endswith("bolt") for n in names(sample_db, r"name:/\bbolt$/")
    )
    with pytest.raises(SearchSyntaxError, match="lookahead"):
        sample_db.search("o:/draw(?= a)/")


def test_colors_scryfall_meanings(sample_db: OracleDB) -> None:
    # Fire // Ice is blue and red (its halves are {1}{R} and {1}{U})
    assert "Fire // Ice" in names(sample_db, "c:ur")  # at least blue and red
    assert "Fire // Ice" in names(sample_db, "c:izzet")  # guild nickname
    assert "Fire // Ice" not in names(sample_db, "c=r")  # exactly red: no
    assert "Fire // Ice" in names(sample_db, "c<=grixis")  # within blue-black-red
    assert "Lightning Bolt" in names(sample_db, "c=r") and "Lightning Bolt" not in names(sample_db, "c:m")
    assert "Fire // Ice" in names(sample_db, "c:m") and "Fire // Ice" in names(sample_db, "c=2")
    assert "Black Lotus" in names(sample_db, "c:c") and "Black Lotus" not in names(sample_db, "c:r")


def test_produces_c_is_colorless_mana_not_no_mana(sample_db: OracleDB) -> None:
    """Scryfall: "You can also find cards that produce specific types of mana, with produces:"; a card object's
    produced_mana lists the letters of the mana it can add, C for colourless ({C}, CR 106.1b). produces:c found the
    cards that produce no mana at all (Lightning Bolt), not Idol of False Gods ("{T}: Add {C}.", produced_mana [C])."""
    found = names(sample_db, "produces:c")
    assert {"Idol of False Gods", "Foreboding Landscape", "Drowner of Truth // Drowned Jungle"} <= set(found)
    assert "Lightning Bolt" not in found and "Forest" not in found
    exactly = names(sample_db, "produces=colorless")
    assert "Idol of False Gods" in exactly and "Drowner of Truth // Drowned Jungle" not in exactly  # [C, G, U]
    assert "Drowner of Truth // Drowned Jungle" in names(sample_db, "produces:cg")
    assert "Idol of False Gods" not in names(sample_db, "produces:cg")


def test_identity_colon_means_fits_within(sample_db: OracleDB) -> None:
    # Blooming Marsh has identity black-green; Forest green; Black Lotus colourless (CR 903.4)
    golgari = names(sample_db, "id:golgari t:land")
    assert {"Blooming Marsh", "Forest"} <= set(golgari)
    assert "Blooming Marsh" not in names(sample_db, "id:g t:land")
    assert "Black Lotus" in names(sample_db, "id:c") and "Forest" not in names(sample_db, "id:c")
    assert "Blooming Marsh" in names(sample_db, "id>=bg") and "Forest" not in names(sample_db, "id>=bg")


def test_numbers_stars_and_field_comparisons(sample_db: OracleDB) -> None:
    # Tarmogoyf is */1+*: Scryfall compares * as 0 and 1+* as 1
    assert "Tarmogoyf" in names(sample_db, "pow=0 tou=1")
    assert "Tarmogoyf" in names(sample_db, "pow=*") and "Goblin Guide" not in names(sample_db, "pow=*")
    # Goblin Guide 2/2, Krenko, Mob Boss 3/3: not top-heavy; Bruna, the Fading Light 5/7
    assert "Goblin Guide" in names(sample_db, "pow=tou") and "Goblin Guide" not in names(sample_db, "pow>tou")
    assert "Bruna, the Fading Light" in names(sample_db, "tou>pow") and "Bruna, the Fading Light" in names(
        sample_db, "pt=12"
    )
    assert "Krenko, Mob Boss" in names(sample_db, "mv=4 pow>=3") and "Krenko, Mob Boss" not in names(
        sample_db, "mv:odd"
    )
    assert "Goblin Guide" in names(sample_db, "mv:odd")


def test_a_negative_number_is_a_value(tmp_path: Path) -> None:
    """Scryfall: "You can use numeric expressions (>, <, =, >=, <=, and !=) to find cards with certain power ...
    toughness"; a printed power or toughness may be negative (Spinal Parasite -1/-1, Char-Rumbler -1/3: their
    objects of the 2019 dump, tests/fixtures/negative_power.json, with Grizzly Bears 2/2). `tou=-1` was a syntax
    error ("unexpected '-'"): a '-' right after the operator is the number's sign, not a negation."""
    tree = parse("tou=-1")
    assert isinstance(tree, Term) and (tree.keyword, tree.op, tree.value) == ("tou", "=", "-1")
    assert parse("-pow>1") == Not(Term("pow", ">", "1", "word", 1), 0)  # a negated term still is one
    with OracleDB.ingest_files(
        tmp_path / "negative.duckdb", [Path(__file__).parent / "fixtures" / "negative_power.json"]
    ) as db:
        assert names(db, "tou=-1") == ["Spinal Parasite"]
        assert names(db, "pow=-1") == ["Char-Rumbler", "Spinal Parasite"]
        assert names(db, "pow>-1") == ["Grizzly Bears"] and names(db, "tou>=-1 pow<0") == names(db, "pow=-1")
    with pytest.raises(SearchSyntaxError, match="expected a number"):
        compile("pow>-1x")


def test_mana_cost_symbols(sample_db: OracleDB) -> None:
    # Gut Shot costs {R/P} (one Phyrexian red); Cloudblazer {3}{W}{U}; Lightning Bolt {R}; Searing Blaze {R}{R}
    assert names(sample_db, "m:{R/P}") == ["Gut Shot"]
    assert "Cloudblazer" in names(sample_db, "m=3WU") and "Cloudblazer" not in names(sample_db, "m>3WU")
    assert "Cloudblazer" in names(sample_db, "mana:{W}{U}")  # at least these symbols
    assert "Lightning Bolt" in names(sample_db, "m=R") and "Lightning Bolt" not in names(sample_db, "m=RR")
    assert "Searing Blaze" in names(sample_db, "m=RR") and "Searing Blaze" in names(sample_db, "m>R")
    assert "Lightning Bolt" in names(sample_db, "m<=RR") and "Searing Blaze" not in names(sample_db, "m<RR")
    with pytest.raises(SearchSyntaxError, match="not a mana cost"):
        sample_db.search("m:2W%")


def test_a_split_symbol_written_in_either_order_is_that_symbol(sample_db: OracleDB) -> None:
    """CR 107.4: "the hybrid symbols {W/U}, {W/B}, …, {G/U}; the monocolored hybrid symbols {2/W}, …; the Phyrexian
    mana symbols {W/P}, …": one symbol each, whichever half is written first. m:{U/W}, m:{B/W}, m:{P/R} found no
    card (the cost's text holds {W/U}, {W/B}, {R/P} only). Sample: Thopter Foundry {W/B}{U}, Gut Shot {R/P},
    Oversoul of Dusk {G/W}{G/W}{G/W}{G/W}{G/W}."""
    for written, canonical in (("{B/W}", "{W/B}"), ("{P/R}", "{R/P}"), ("{U/G}", "{G/U}"), ("{W/G}", "{G/W}")):
        assert names(sample_db, f"m:{written}") == names(sample_db, f"m:{canonical}") != [], written
    assert "Thopter Foundry" in names(sample_db, "m={B/W}U")
    assert names(sample_db, "m:{P/R}") == ["Gut Shot"]
    assert "Oversoul of Dusk" in names(sample_db, "m={W/G}{W/G}{W/G}{W/G}{W/G}")


def test_a_hybrid_phyrexian_symbol_is_hybrid_and_phyrexian(tmp_path: Path) -> None:
    """CR 107.4: the mana symbols include "the hybrid Phyrexian symbols {W/U/P}, … {G/U/P}"; CR 107.4f: "A hybrid
    Phyrexian mana symbol represents a cost that can be paid with one mana of either of its component colors or by
    paying 2 life." is:hybrid missed Tamiyo, Compleated Sage ({2}{G}{G/U/P}{U}, its real Oracle card in
    tests/fixtures/hybrid_phyrexian.json beside the 2019 objects of Selesnya Guildmage {G/W}{G/W} and Gut Shot {R/P})."""
    with OracleDB.ingest_files(
        tmp_path / "hp.duckdb", [Path(__file__).parent / "fixtures" / "hybrid_phyrexian.json"]
    ) as db:
        assert names(db, "is:hybrid") == ["Selesnya Guildmage", "Tamiyo, Compleated Sage"]
        assert names(db, "is:phyrexian") == ["Gut Shot", "Tamiyo, Compleated Sage"]
        assert names(db, "m:{U/G/P}") == names(db, "m:{G/U/P}") == ["Tamiyo, Compleated Sage"]


def test_is_modal_is_a_choice_of_bulleted_modes(sample_db: OracleDB) -> None:
    """CR 700.2: "A spell or ability is modal if it has two or more options in a bulleted list preceded by
    instructions for a player to choose a number of those options, such as 'Choose one —.'" CR 702.172a: "Spree is a
    static ability found on some modal spells". is:modal read only "choose one —" and the like, and missed the
    sample's Mystic Confluence ("Choose three. You may choose the same mode more than once."), Demonic Pact ("choose
    one that hasn't been chosen —"), Depth Defiler and the spree cards Rustler Rampage and Three Steps Ahead."""
    modal = names(sample_db, "is:modal")
    for name in ("Mystic Confluence", "Demonic Pact", "Rustler Rampage", "Three Steps Ahead", "Depth Defiler"):
        assert name in modal, name
    assert "Abzan Charm" in modal or "Cryptic Command" in modal  # "Choose one —" / "Choose two —" still
    assert "Lightning Bolt" not in modal and "Lightning Bolt" in names(sample_db, "not:modal")


def test_formats_banned_restricted(sample_db: OracleDB) -> None:
    # Black Lotus: banned in Legacy, restricted in Vintage (restricted is legal in Vintage)
    assert "Black Lotus" in names(sample_db, "banned:legacy")
    assert "Black Lotus" in names(sample_db, "restricted:vintage")
    assert "Black Lotus" in names(sample_db, "f:vintage") and "Black Lotus" not in names(sample_db, "f:legacy")


def test_unknown_format_is_an_error_not_an_empty_answer(sample_db: OracleDB) -> None:
    with pytest.raises(SearchSyntaxError, match="f:modren: unknown format; use one of standard") as info:
        sample_db.search("t:goblin f:modren")
    assert info.value.position == 9
    # Scryfall's edh alias: Black Lotus is banned in Commander
    assert "Black Lotus" in names(sample_db, "banned:edh") and "Black Lotus" not in names(sample_db, "f:edh")


def test_printing_keywords(sample_db: OracleDB) -> None:
    mythic_m19 = sample_db.search("s:m19 r:mythic")
    assert "Nicol Bolas, the Ravager // Nicol Bolas, the Arisen" in mythic_m19.get_column("name").to_list()
    assert set(mythic_m19.get_column("set")) == {"m19"} and set(mythic_m19.get_column("rarity")) == {"mythic"}
    assert "Nicol Bolas, the Ravager // Nicol Bolas, the Arisen" in names(sample_db, "s:m19 r>=r")
    # Lightning Bolt: first printed 1993 (LEA); Alpha has it at common
    # each printing once by default: in English where the data hold it, else in a language it was printed in
    bolts = sample_db.search('!"lightning bolt" unique:prints')
    printings = list(zip(bolts.get_column("set"), bolts.get_column("collector_number"), strict=True))
    assert bolts.height > 5 and len(set(printings)) == len(printings)
    english = set(
        sample_db.con.execute(
            "SELECT set_code, collector_number FROM printings WHERE name = 'Lightning Bolt' AND lang = 'en'"
        ).fetchall()
    )
    assert english and all(
        (lang == "en") == (printing in english)
        for printing, lang in zip(printings, bolts.get_column("lang"), strict=True)
    )
    assert "Lightning Bolt" in names(sample_db, 'year<=1994 !"lightning bolt"')
    assert "Lightning Bolt" in names(sample_db, '!"lightning bolt" not:reprint')
    french = sample_db.search('lang:fr !"lightning bolt" unique:prints')
    assert set(french.get_column("lang")) == {"fr"}  # "Foudre" (3ED, FBB)
    assert sample_db.search('!"lightning bolt" s:3ed').get_column("set").to_list() == ["3ed"]


def test_is_layouts_and_any_face_matching(sample_db: OracleDB) -> None:
    assert "Fire // Ice" in names(sample_db, "is:split")
    assert "Student of Elements // Tobita, Master of Winds" in names(sample_db, "is:flip")
    assert "Delver of Secrets // Insectile Aberration" in names(sample_db, "is:transform")
    assert "Delver of Secrets // Insectile Aberration" in names(sample_db, "is:dfc")
    assert "Bruna, the Fading Light" in names(sample_db, "is:meld")
    assert "Giant Killer // Chop Down" in names(sample_db, "is:adventure")
    # Razorgrass Ambush // Razorgrass Field (MH3): instant front, land back: t:land finds it by its back face
    assert "Razorgrass Ambush // Razorgrass Field" in names(sample_db, "is:mdfc t:land")
    assert "Razorgrass Ambush // Razorgrass Field" in names(sample_db, "is:spell")


def test_colours_of_a_transforming_card_are_those_of_its_faces(sample_db: OracleDB) -> None:
    # Ajani, Nacatl Pariah ({1}{W}, white) transforms into Ajani, Nacatl Avenger (colour indicator white and
    # red): Scryfall matches either face, so c:r finds it by its back and c=w by its front
    ajani = "Ajani, Nacatl Pariah // Ajani, Nacatl Avenger"
    assert ajani in names(sample_db, "c:r is:transform") and ajani in names(sample_db, "c=w is:transform")
    assert ajani in names(sample_db, "c=rw") and ajani not in names(sample_db, "c:u")
    assert ajani in names(sample_db, "has:indicator")  # the back face's colour indicator (CR 204)


def test_is_leveler_saga_funny_token_and_keyword_abilities(sample_db: OracleDB) -> None:
    assert "Hexdrinker" in names(sample_db, "is:leveler")  # MH1 "Level up {1}" (layout leveler)
    assert "Chainer's Torment" in names(sample_db, "is:saga")  # Enchantment — Saga
    assert "Assquatch" in names(sample_db, "is:funny t:creature")  # Unhinged
    assert "Assquatch" not in names(sample_db, "not:funny t:creature")
    # the Goblin token is not a card: only is:token (or include:extras) shows it
    assert names(sample_db, "is:token t:goblin") == ["Goblin", "Goblin Soldier"]
    # Arbiter of Woe (2024 file, keywords ["Flying"]); Abbey Griffin's 2019 record has no keywords list: derived
    assert "Arbiter of Woe" in names(sample_db, "kw:flying") and "Arbiter of Woe" in names(sample_db, "keyword:FLYING")
    assert "Abbey Griffin" in names(sample_db, "kw:flying")  # "Flying, vigilance"


def test_kw_finds_every_card_whose_object_lists_the_keyword(
    sample_db: OracleDB, sample_db_path: Path, sample_server: Server
) -> None:
    """The sample's 2019 cards come from a file older than Scryfall's ``keywords`` field: the ingest derives
    theirs by the rule their served card objects get theirs by (CR 702 keyword abilities, 701 actions, 207.2c
    ability words), so ``kw:flying`` finds exactly the cards whose object lists Flying — through OracleDB.search,
    the CLI and the HTTP /cards/search alike. (Before, it found only the 12 cards of the 2024 file.)"""
    from oracle_tools.scryfall.cardjson import card_objects

    every = [oid for (oid,) in sample_db.con.execute("SELECT oracle_id FROM cards").fetchall()]
    flying = {c["oracle_id"] for c in card_objects(sample_db.con, oracle_ids=every) if "Flying" in c["keywords"]}
    cards = {oid for (oid,) in sample_db.con.execute("SELECT oracle_id FROM cards WHERE is_card").fetchall()}
    found = set(sample_db.search("kw:flying").get_column("oracle_id").to_list())
    assert found == flying & cards and len(found) > 200
    assert set(sample_db.search("kw:flying include:extras").get_column("oracle_id").to_list()) == flying
    listed = json.loads(_cli_in_process("search", "--db", str(sample_db_path), "kw:flying", "--json").stdout)
    assert {c["oracle_id"] for c in listed["data"]} == found
    served: set[str] = set()
    page = sample_server.client.get("/cards/search", params={"q": "kw:flying"}).json()
    while True:
        served |= {c["oracle_id"] for c in page["data"]}
        if not page["has_more"]:
            break
        page = sample_server.client.get(page["next_page"]).json()
    assert served == found


def test_is_permanent_spell_historic_commander_reserved(sample_db: OracleDB) -> None:
    assert "Forest" in names(sample_db, "is:permanent -is:spell")  # a land: permanent, never cast (305.9)
    assert "Lightning Bolt" in names(sample_db, "is:spell -is:permanent")  # an instant (110.4)
    assert "Black Lotus" in names(sample_db, "is:historic")  # an artifact (700.6)
    assert "Krenko, Mob Boss" in names(sample_db, "is:commander")  # legendary creature (903.3)
    assert "Goblin Guide" not in names(sample_db, "is:commander")
    assert {"Black Lotus", "Ancestral Recall"} <= set(names(sample_db, "is:reserved"))


def test_project_keywords(sample_db: OracleDB) -> None:
    # Krenko, Mob Boss creates Goblin tokens (token_specs); Lightning Bolt creates none
    assert "Krenko, Mob Boss" in names(sample_db, "is:token-maker") and "Lightning Bolt" not in names(
        sample_db, "is:token-maker"
    )
    # CR 201.3: Ultimate Green Goblin's OM1 printing is named "Ruzic, Booed but Victorious" (sample README)
    assert "Ultimate Green Goblin" in names(sample_db, "is:interchangeable")
    # CR 201.6: The Ozolith has flavor names (SLD "Adamantium Bonding Tank", LTC "Argonath, …")
    flavored = sample_db.search("has:flavorname")
    assert "The Ozolith" in flavored.get_column("name").to_list()
    assert "Lightning Bolt" not in flavored.get_column("name").to_list()
    # CR 201.4: "choose a nonland card name" — Razorgrass Ambush is nonland; Forest is a land
    nonland = names(sample_db, 'nameable:"nonland"')
    assert "Lightning Bolt" in nonland and "Forest" not in nonland


def _sample_objects() -> list[dict[str, object]]:
    import gzip

    from oracle_tools.ingest import sample_dir

    objects: list[dict[str, object]] = []
    for path in sorted(sample_dir().glob("*.json.gz")):
        data = json.loads(gzip.decompress(path.read_bytes()))
        objects += data if isinstance(data, list) else data.get("data", [])
    return [o for o in objects if isinstance(o, dict) and o.get("object") == "card"]


def _flavor_texts(card: dict[str, object]) -> list[str]:
    """A Scryfall card object's flavor text: its own, and each face's (a multi-face printing has them there)."""
    faces = card.get("card_faces") or []
    assert isinstance(faces, list)
    return [str(t) for t in [card.get("flavor_text"), *(f.get("flavor_text") for f in faces)] if t]


def test_flavor_text_is_searched_as_scryfall_does(sample_db: OracleDB) -> None:
    """ft:/flavor: (Scryfall's syntax page, "Flavor Text"; ft:/regex/ on its regular-expressions page) match
    words of a printing's flavor text, as the card objects the sample's files hold have it, faces' included."""
    objects = _sample_objects()
    found = sample_db.search("ft:fire include:extras unique:prints lang:any")
    expected = {str(o["id"]) for o in objects if any("fire" in t.lower() for t in _flavor_texts(o))}
    assert expected and set(found.get_column("id").to_list()) == expected
    assert names(sample_db, "flavor:fire") == names(sample_db, "ft:fire")
    # Mishra's Toy Workshop (HHO) and Staff of Zegon (ATQ): "Mishra" in their printed flavor text, not their rules
    assert names(sample_db, "ft:mishra") == ["Mishra's Toy Workshop", "Staff of Zegon"]
    assert names(sample_db, 'ft:"MISHRA"') == names(sample_db, "ft:mishra")  # case-insensitive
    # a face's flavor text counts: every multi-face printing with one is found by a regex of its own first words
    faced = next(o for o in objects if o.get("card_faces") and not o.get("flavor_text") and _flavor_texts(o))
    first_words = re.escape(" ".join(_flavor_texts(faced)[0].split()[:3]))
    assert (
        str(faced["id"])
        in sample_db.search(f"ft:/^{first_words}/ unique:prints lang:any include:extras").get_column("id").to_list()
    )
    # a printing keyword: evaluated on the same printing as s: (Lightning Bolt's flavor text differs by printing)
    bolts = {
        str(o["set"])
        for o in objects
        if o.get("name") == "Lightning Bolt" and any("spark" in t.lower() for t in _flavor_texts(o))
    }
    shown = sample_db.search('!"lightning bolt" ft:spark unique:prints').get_column("set").to_list()
    assert bolts and set(shown) == bolts
    assert names(sample_db, "-ft:/./ s:m19 r:mythic")  # printings without flavor text


def test_boolean_logic(sample_db: OracleDB) -> None:
    either = set(names(sample_db, '!fire or !"lightning bolt"'))
    assert either == {"Fire // Ice", "Lightning Bolt"}
    assert set(names(sample_db, '(!fire or !"lightning bolt") -c:u')) == {"Lightning Bolt"}
    assert "Lightning Bolt" in names(sample_db, '-(c:u or c:g) !"lightning bolt"')


def test_unique_order_direction_inside_the_query_win(sample_db: OracleDB) -> None:
    by_cmc = sample_db.search("t:goblin c:r order:cmc")
    cmcs = by_cmc.get_column("cmc").to_list()
    assert cmcs == sorted(cmcs)
    desc = sample_db.search("t:goblin c:r", order="cmc", direction="desc").get_column("cmc").to_list()
    assert desc == sorted(desc, reverse=True)
    assert sample_db.search("bolt unique:prints").height > sample_db.search("bolt").height
    released = sample_db.search('!"lightning bolt" unique:prints order:released').get_column("released_at").to_list()
    assert released == sorted(released, reverse=True)  # auto: newest first


def test_every_order_runs_in_every_unique_mode(sample_db: OracleDB) -> None:
    # One card a row is answered from each card's preferred printing (a precomputed table): an order by a
    # printing's column (the prices: usd, eur, tix) must find it there too, not only in printings.
    from oracle_tools.search import DIRECTIONS, ORDERS, UNIQUE

    for unique in UNIQUE:
        for order in ORDERS:
            for direction in DIRECTIONS:
                found = sample_db.search("t:goblin c:r", unique=unique, order=order, direction=direction)
                assert found.height > 0, (unique, order, direction)


def test_auto_direction_is_scryfalls(sample_db: OracleDB) -> None:
    """Scryfall's API reference: released "Newest → Oldest", rarity "Common → Mythic", power "null → highest",
    set "AAA/#1 → ZZZ/#999"."""
    rank = {"common": 0, "uncommon": 1, "rare": 2, "special": 3, "mythic": 4, "bonus": 5}
    rarities = [rank[r] for r in sample_db.search("s:m19 order:rarity").get_column("rarity")]
    assert rarities == sorted(rarities) and rarities[0] == 0  # commons first
    assert next(rank[r] for r in sample_db.search("s:m19 order:rarity dir:desc").get_column("rarity")) == 4
    # Goblins by power: Warren Weirding (Tribal Sorcery — Goblin, no power) before the creatures, then 0 → highest
    powers = sample_db.search("t:goblin order:power").get_column("power").to_list()
    assert powers[0] is None and names(sample_db, "t:goblin order:power")[0] == "Warren Weirding"
    numbers = [int(p) for p in powers if p is not None and p.isdigit()]
    assert numbers == sorted(numbers)
    # order:set: by collector number within a set (M19: Ajani's Pridemate is 5, Alpine Moon 128)
    m19 = sample_db.search("s:m19 order:set unique:prints").get_column("collector_number").to_list()
    assert [int(n) for n in m19] == sorted(int(n) for n in m19)


def test_no_match_is_an_empty_frame(sample_db: OracleDB) -> None:
    frame = sample_db.search("zzzqqq")
    assert frame.height == 0 and {"oracle_id", "id", "name", "set", "collector_number"} <= set(frame.columns)


def test_bad_values_are_syntax_errors_with_positions(sample_db: OracleDB) -> None:
    with pytest.raises(SearchSyntaxError, match="not a colour") as info:
        sample_db.search("t:goblin c:purple")
    assert info.value.position == 9
    with pytest.raises(SearchSyntaxError, match="not a rarity"):
        sample_db.search("r:epic")
    with pytest.raises(SearchSyntaxError, match="unknown language"):
        sample_db.search("lang:klingon")


@pytest.mark.parametrize(
    ("query", "position", "said"),
    [
        ("st:bogus", 0, "st:bogus: unknown set type; use one of "),
        (
            "t:goblin border:purple",
            9,
            "border:purple: unknown border; use one of black, white, silver, borderless, gold",
        ),
        ("stamp:square", 0, "stamp:square: unknown security stamp; use one of oval, acorn, triangle, arena"),
        ("game:chess", 0, "game:chess: unknown game; use one of paper, mtgo, arena"),
    ],
)
def test_a_value_outside_a_closed_list_is_said_not_answered_with_no_card(
    sample_db: OracleDB, query: str, position: int, said: str
) -> None:
    """Scryfall lists these keywords' values: "Use the border: keyword to find cards with a black, white, silver, or
    borderless border"; "Search for a card's security stamp with stamp:oval, stamp:acorn, stamp:triangle, or
    stamp:arena"; "The games paper, mtgo, and arena are supported"; st: takes a set type (st:core, st:expansion,
    st:masters …). Any other value is a typo: one line naming it, as r:epic and frame:bogus are, where it answered
    0 cards."""
    with pytest.raises(SearchSyntaxError) as refused:
        sample_db.search(query)
    assert str(refused.value).startswith(said) and "\n" not in str(refused.value)
    assert refused.value.position == position
    for good in ("st:core", "border:black", "stamp:oval", "game:paper", "border:Borderless"):
        assert sample_db.search(good).height > 0, good


# -- the CLI -------------------------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own: its exit status and the bytes of its real stdout and stderr pipes."""
    return subprocess.run(
        [sys.executable, "-m", "oracle_tools.interfaces.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _cli_in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """The same command run by click's CliRunner in this process (exit code, stdout and stderr apart), for what
    the words and options mean rather than what the process does: no interpreter started per call."""
    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main

    result = CliRunner().invoke(main, list(args), prog_name="oracle-tools")
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def test_cli_table_json_exit_codes(sample_db_path: Path) -> None:
    db = str(sample_db_path)
    table = _cli_in_process("search", "--db", db, "t:goblin c:r mv<=2")
    assert table.returncode == 0 and "Goblin Artisans" in table.stdout
    listed = _cli_in_process("search", "--db", db, "bolt", "--json", "--limit", "2")
    data = json.loads(listed.stdout)
    assert data["object"] == "list" and len(data["data"]) == 2 and data["total_cards"] > 2 and data["has_more"]
    assert {"name", "oracle_id", "mana_cost", "cmc", "type_line", "colors", "legalities"} <= set(data["data"][0])
    fire = json.loads(_cli_in_process("search", "--db", db, "!fire", "--json").stdout)["data"][0]
    assert fire["name"] == "Fire // Ice" and len(fire["card_faces"]) == 2
    none_json = _cli_in_process("search", "--db", db, "zzzqqq", "--json")
    assert none_json.returncode == 0 and json.loads(none_json.stdout)["total_cards"] == 0
    nothing = _cli("search", "--db", db, "zzzqqq")  # a process of its own: its exit status and its two pipes
    assert nothing.returncode == 1 and nothing.stdout == "" and nothing.stderr == "0 cards\n"  # like grep
    bad = _cli_in_process("search", "--db", db, 't:goblin "bolt')
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.splitlines()[0].startswith("error: ") and bad.stderr.splitlines()[2].index("^") == 11
    unsupported = _cli_in_process("search", "--db", db, "otag:ramp")
    assert unsupported.returncode == 2 and "otag: is not supported" in unsupported.stderr


def _rows(out: str) -> list[str]:
    return out.splitlines()[1:]  # CSV rows without the header


def test_cli_query_words_and_negated_terms_are_the_query_not_options(sample_db_path: Path) -> None:
    """Scryfall's search box negates with a leading '-': `search t:goblin -c:r` is the query 't:goblin -c:r'
    on the command line too, without '--'; the words may come before, between or after the options."""
    db = str(sample_db_path)
    quoted = _cli_in_process("search", "--db", db, "t:goblin -c:r -is:funny", "--csv")
    assert quoted.returncode == 0 and _rows(quoted.stdout)
    for words in (
        ["-c:r", "t:goblin", "--csv", "-is:funny"],
        ["--csv", "t:goblin", "-c:r", "-is:funny"],
        ["t:goblin", "-c:r", "--db", db, "-is:funny", "--csv"],
    ):
        out = _cli_in_process("search", "--db", db, *words)
        assert out.returncode == 0 and _rows(out.stdout) == _rows(quoted.stdout), words
    red = _rows(_cli_in_process("search", "--db", db, "t:goblin c:r", "--csv").stdout)
    assert red and not set(red) & set(_rows(quoted.stdout))  # the '-' negated: no red goblin is left
    limited = _cli_in_process("search", "--db", db, "--limit", "2", "-t:land", "--csv", "c:r")
    assert len(_rows(limited.stdout)) == 2
    # after '--' every word is the query, as usual; a mistyped --option is still refused by its name
    assert _rows(_cli_in_process("search", "--db", db, "--csv", "--", "t:goblin", "-c:r", "-is:funny").stdout) == _rows(
        quoted.stdout
    )
    typo = _cli_in_process("search", "--db", db, "t:goblin", "--limt", "2")
    assert typo.returncode == 2 and "No such option '--limt'" in typo.stderr
    missing = _cli_in_process("search", "--db", db, "t:goblin", "--limit")
    assert missing.returncode == 2 and "'--limit' requires an argument" in missing.stderr
    nothing = _cli_in_process("search", "--db", db)
    assert nothing.returncode == 2 and "Missing argument 'QUERY...'" in nothing.stderr


def test_cli_csv_and_unique_prints(sample_db_path: Path) -> None:
    out = _cli("search", "--db", str(sample_db_path), '!"lightning bolt"', "--unique", "prints", "--csv")
    lines = out.stdout.splitlines()
    assert lines[0].startswith("oracle_id,id,name") and len(lines) > 6


# -- real data ----------------------------------------------------------------------------------------


@pytest.mark.realdata
def test_printing_keywords_are_evaluated_on_one_printing(full_db: OracleDB) -> None:
    """`s:m19 r:mythic` = cards with a mythic printing IN M19, not "a printing in M19 and a mythic one"."""
    found = set(full_db.search("s:m19 r:mythic").get_column("oracle_id"))
    same = {
        oid
        for (oid,) in full_db.sql(
            "SELECT DISTINCT oracle_id FROM printings WHERE set_code = 'm19' AND rarity = 'mythic'"
        ).iter_rows()
    }
    naive = {
        oid
        for (oid,) in full_db.sql(
            "SELECT oracle_id FROM printings GROUP BY oracle_id HAVING bool_or(set_code = 'm19') AND bool_or(rarity = 'mythic')"
        ).iter_rows()
    }
    assert found == same
    assert naive - same  # e.g. cards rare in M19 but mythic in a masters set: must not match


@pytest.mark.realdata
def test_real_queries(full_db: OracleDB) -> None:
    # Goblin Guide: {R} 2/2 Goblin Scout, legal in Modern (2019 dump)
    assert "Goblin Guide" in full_db.search("t:goblin c:r mv<=2 f:modern").get_column("name").to_list()
    # foreign printings: Japanese Lightning Bolt printings exist in the 2022 MTGJSON-derived file
    ja = full_db.search('lang:ja !"lightning bolt" unique:prints')
    assert ja.height >= 1 and set(ja.get_column("lang")) == {"ja"}
    # a card first printed after the 2019 dump, known only from foreign printings, is still found by set
    khm = full_db.search("s:khm t:legendary")
    assert khm.height > 0 and set(khm.get_column("set")) == {"khm"}
    # MDFC lands of MH3 (2024 file): Razorgrass Ambush // Razorgrass Field
    assert (
        "Razorgrass Ambush // Razorgrass Field" in full_db.search("is:mdfc t:land s:mh3").get_column("name").to_list()
    )


@pytest.mark.realdata
def test_a_format_the_files_predate_is_said_not_answered_with_no_card(ingest_steps: dict[str, Path]) -> None:
    """The 2019 dump predates Historic and Pioneer: `f:historic` on its database says the database has no
    legalities for it (as `deck check --format historic` does), where it answered "0 cards"; a format it has
    still answers."""
    from click.testing import CliRunner

    from oracle_tools import OracleToolsError
    from oracle_tools.interfaces.cli import main

    with OracleDB(ingest_steps["first"]) as db:
        for query in ("f:historic", "t:goblin banned:pioneer", "-f:historic"):
            with pytest.raises(OracleToolsError, match=r"no legalities for format '(historic|pioneer)'; it has: brawl"):
                db.search(query)
        assert "Goblin Guide" in names(db, "t:goblin f:modern")
        with pytest.raises(OracleToolsError) as from_decks:
            db.deck_checker.legality("historic")
    with pytest.raises(OracleToolsError) as from_search:
        OracleDB(ingest_steps["first"]).search("f:historic")
    assert str(from_search.value) == str(from_decks.value)  # one line, one implementation
    result = CliRunner().invoke(main, ["search", "f:historic", "--db", str(ingest_steps["first"])])
    assert result.exit_code != 0 and result.output.strip() == f"error: {from_decks.value}"


# -- docs/search.md as a contract -----------------------------------------------------------------------

DOCS = Path(__file__).parents[1] / "docs" / "search.md"
_EXAMPLE_ROW = re.compile(r"^\| `(?P<keyword>[^`]+)` \| `(?P<query>.+)` \| (?P<cards>.*) \((?P<count>\d+) cards?\) \|$")


def _doc_examples() -> list[tuple[str, str, list[str], int]]:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## Examples and their output on the embedded sample", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        m = _EXAMPLE_ROW.match(line)
        if m:
            shown = [x for x in m["cards"].removesuffix(" …").split("; ") if x.strip()]
            rows.append((m["keyword"], m["query"].replace("\\|", "|"), shown, int(m["count"])))
    return rows


def test_docs_list_every_keyword_with_an_example() -> None:
    text = DOCS.read_text(encoding="utf-8")
    documented = {keyword for keyword, *_ in _doc_examples()}
    for kw in KEYWORDS:
        assert f"`{kw.names[0]}:`" in text or f"`{kw.names[0]}`" in text, kw.names[0]
        assert kw.names[0] in documented, f"docs/search.md has no example row for {kw.names[0]}:"
    for name in UNSUPPORTED:
        assert f"`{name}:`" in text, f"docs/search.md does not say why {name}: is not supported"


#: Keywords the sample (and the real 2019/2024 data) has nothing for: docs/search.md says why.
NO_DATA_IN_SAMPLE = {"def", "usd"}  # no battles; the sample's objects keep no prices (tests/test_python_client.py)
#: is: values the sample has no card of (no Class, Case, mutate card, companion, slowland, surveilland, gainland or
#: pathway among its cards): their rows show 0, and the land cycles' own tests judge them on the real data.
NO_IS_DATA_IN_SAMPLE = {
    "is:class", "is:case", "is:mutate", "is:companion", "is:slowland", "is:surveilland", "is:gainland", "is:pathway",
    "is:glossy", "is:textless",  # nor a glossy or textless printing
    "is:bondland", "is:tricycleland",  # nor a Battlebond land or an Ikoria triome (test_land_cycles: the real lands)
    "is:universesbeyond", "is:alchemy",  # nor a Universes Beyond (triangle stamp) or Alchemy printing
    "is:scryfallpreview",  # nor a printing Scryfall itself previewed (the sample's previews are other sites')
    # the sample's few 2024 objects with promo types are boosterfun, bundle, promopack, … (test_printing_properties)
    *(f"is:{v.names[0]}" for v in IS_TABLE if v.data == "promo_types"),
}  # fmt: skip


def test_every_spelling_of_the_table_is_a_keyword_the_parser_reads() -> None:
    """The parser's keywords, the compiler's, the refusals, --help and docs/search.md all come from one table
    (oracle_tools/search/keywords.py): every spelling parses as its own keyword term, compiles or is refused with
    its reason, and is listed by --help and the docs."""
    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main

    help_text = CliRunner().invoke(main, ["search", "--help"], terminal_width=200).output
    docs = DOCS.read_text(encoding="utf-8")
    for kw in (*KEYWORDS, *REFUSED):
        for name in kw.names:
            term = parse(f"{name}:x")
            assert isinstance(term, Term) and term.keyword == name and term.written
            assert f"{name}:" in help_text, name
            assert f"`{name}:`" in docs, name
        if kw.refused:
            with pytest.raises(UnsupportedKeywordError, match=re.escape(kw.refused)):
                compile(kw.example)
    for value in IS_TABLE:
        for name in value.names:
            assert name in help_text, name
            assert f"`{value.keyword}:{name}`" in docs, name
            if value.refused:
                with pytest.raises(UnsupportedKeywordError, match=re.escape(value.refused)):
                    compile(f"{value.keyword}:{name}")
            else:
                compile(f"{value.keyword}:{name}")
    assert len(help_rows()) > len(KEYWORDS)


def test_docs_keyword_lists_are_the_tables_rendering() -> None:
    """docs/search.md's keyword, value and refusal lists are cog blocks rendering the table (scripts/doc_examples.py
    rewrites them); a keyword added to the table and not to the page fails here, without running the examples."""
    docs = DOCS.read_text(encoding="utf-8")
    for part in ("keywords", "values", "refused"):  # the parts docs_markdown renders
        block = f'cog.outl(docs_markdown("{part}"))\n]]] -->\n'
        assert block in docs, part
        shown = docs.split(block, 1)[1].split("\n<!-- [[[end]]] -->", 1)[0]
        assert shown == docs_markdown(part), part


def test_docs_examples_show_the_real_output_on_the_sample(sample_db: OracleDB) -> None:
    """Each example row of docs/search.md is what the query answers on the embedded sample: the count and the
    first three cards (with set and collector number where the row shows them)."""
    rows = _doc_examples()
    assert len(rows) > 60
    for keyword, query, shown, count in rows:
        if shown and shown[0].startswith("refused: "):  # a keyword whose data the sample lacks: the line it says
            with pytest.raises(SearchSyntaxError) as refused:
                sample_db.search(query)
            assert "; ".join(shown) == f"refused: {refused.value}" and count == 0, query
            continue
        # an example that finds nothing could not show a broken keyword; def: and usd: have no data on the sample
        assert count > 0 or keyword in NO_DATA_IN_SAMPLE or query in NO_IS_DATA_IN_SAMPLE, (query, "finds no card")
        found = sample_db.search(query)
        assert found.height == count, (query, found.height, count)
        first = found.head(len(shown))
        plain = first.get_column("name").to_list()
        with_set = [f"{n} {s} {cn}" for n, s, cn in first.select("name", "set", "collector_number").iter_rows()]
        assert shown in (plain, with_set), (query, shown, plain, with_set)


def test_every_format_the_legalities_hold_is_a_search_format(sample_db: OracleDB) -> None:
    # f:frontier (a Scryfall legality key of the 2019 data) answers what the legalities table says; as on
    # Scryfall, f: counts a restricted card as playable (Vintage's restricted list)
    formats = [f for (f,) in sample_db.con.execute("SELECT DISTINCT format FROM legalities").fetchall()]
    assert "frontier" in formats
    for fmt in formats:
        expected = sample_db.con.execute(
            "SELECT count(DISTINCT oracle_id) FROM legalities WHERE format = ? AND status IN ('legal', 'restricted')",
            [fmt],
        ).fetchall()[0][0]
        assert sample_db.search(f"f:{fmt} include:extras").height == expected, fmt


def test_stored_face_values_follow_the_search_rule(sample_db: OracleDB) -> None:
    # sql/search_faces.sql computes at ingest what the compiler's _NUM rule computes from text, for every face
    from oracle_tools.search import compiler

    stats = ("power", "toughness", "loyalty", "defense")
    computed = ", ".join(compiler._NUM.format(x=f"f.{s}") for s in stats)
    stored = ", ".join(f"v.{s}_value" for s in stats)
    rows = sample_db.con.execute(
        f"SELECT [{computed}], [{stored}] FROM faces f JOIN face_values v USING (oracle_id, face_index)"
    ).fetchall()
    assert (
        len(rows)
        == sample_db.con.execute(
            "SELECT count(*) FROM faces WHERE coalesce(power, toughness, loyalty, defense) IS NOT NULL"
        ).fetchall()[0][0]
    )
    assert all(a == b for a, b in rows)
    assert {"∞", "*"} <= {p for (p,) in sample_db.con.execute("SELECT DISTINCT power FROM face_values").fetchall()}
    # the faces whose own colours count for c: are the compiler's DFC layouts, every one of them
    dfc = sample_db.con.execute(
        "SELECT count(*) FROM faces WHERE layout IN (SELECT unnest(?::VARCHAR[]))", [list(compiler.DFC_LAYOUTS)]
    ).fetchall()[0][0]
    assert dfc > 0 and dfc == sample_db.con.execute("SELECT count(*) FROM dfc_face_colors").fetchall()[0][0]


def test_is_lists_only_is_values_and_points_has_values_to_has() -> None:
    from oracle_tools.search.keywords import HAS_VALUES

    with pytest.raises(SearchSyntaxError) as unknown:
        compile("is:frobnicate")
    listed = str(unknown.value).split("supported: ", 1)[1].split("\n", 1)[0]
    assert "split" in listed and not set(listed.replace(",", " ").split()) & HAS_VALUES
    with pytest.raises(SearchSyntaxError, match="is:indicator is not supported; use has:indicator"):
        compile("is:indicator")
    assert compile("has:indicator").sql


# -- imperfect input: every door says what was wrong ------------------------------------------------------


def test_a_query_that_is_no_text_is_refused_as_a_name_is(sample_db: OracleDB) -> None:
    """db.search takes the checks db.resolve takes (db.py's one argument check): None is a TypeError naming the
    argument (it was an AttributeError from inside the compiler), a lone surrogate an ArgumentError saying so (it
    was DuckDB's "Python Conversion Failure", and the connection then refused every later search)."""
    from oracle_tools.errors import ArgumentError

    with pytest.raises(TypeError, match=r"^query must be a str \(a Scryfall search such as 't:goblin c:r'\), not "):
        sample_db.search(None)  # type: ignore[arg-type]
    for call in (sample_db.search, sample_db.search_rows, sample_db.search_list):
        with pytest.raises(ArgumentError) as bad:
            call("t:goblin\ud800")
        assert str(bad.value) == (
            "query is not valid Unicode text: a lone surrogate (U+D800) at position 8; give it as text (bytes "
            "decoded as UTF-8)"
        )
        with pytest.raises(ArgumentError, match="lone surrogate"):
            sample_db.resolve("Bolt\ud800")  # the same kind of error as a name's
    assert sample_db.search("t:goblin c:r mv<=2").height == 22  # the connection still answers


@pytest.mark.parametrize(
    ("query", "position", "word"),
    [
        ("or t:goblin", 0, "or"),  # read as a name word before: 3 cards with "or" in their names
        ("t:goblin or", 9, "or"),
        ("OR t:goblin", 0, "OR"),
        ("and t:goblin", 0, "and"),
        ("t:goblin and", 9, "and"),
        ("t:goblin (or c:r)", 10, "or"),
        ("t:goblin (c:r or)", 14, "or"),
        ("t:goblin or or c:r", 12, "or"),
        ("or", 0, "or"),
    ],
)
def test_a_dangling_or_is_a_syntax_error_at_either_end(query: str, position: int, word: str) -> None:
    """Scryfall's reference has `or` only between terms and says nothing of one at an end: both ends are the same
    syntax error with a caret under the word (before, a leading `or` was a word of the name, a trailing one an
    error). Quoted, "or" is still a word of a name."""
    with pytest.raises(SearchSyntaxError) as dangling:
        compile(query)
    assert str(dangling.value).splitlines()[0] == (
        f"'{word}' needs a term on both sides (to find the word in a name, quote it: \"{word}\")"
    )
    assert dangling.value.position == position


def test_or_between_terms_and_quoted_or_still_work(sample_db: OracleDB) -> None:
    assert set(names(sample_db, "t:goblin or t:elf")) >= {"Goblin Guide", "Llanowar Elves"}
    assert "Fire // Ice" in names(sample_db, "fire or ice")
    assert names(sample_db, '"or" t:goblin') == names(sample_db, "name:or t:goblin")


@pytest.mark.parametrize(
    ("query", "position", "message"),
    [
        ('a:""', 0, 'a:"" has an empty value: write what to search for between the quotes'),
        ('t:goblin o:""', 9, 'o:"" has an empty value: write what to search for between the quotes'),
        ('ft:" "', 0, 'ft:" " has an empty value: write what to search for between the quotes'),
        ("o://", 0, "o:// has an empty value: write what to search for between the slashes"),
        ('""', 0, '"" has an empty value: write what to search for between the quotes'),
        ('t:goblin !""', 9, '!"" has an empty value: write what to search for between the quotes'),
    ],
)
def test_an_empty_value_is_an_error_not_every_card(query: str, position: int, message: str) -> None:
    """a:"" matched every card (every artist's name contains the empty text): an empty value is an error with a
    caret under its term, for every keyword that takes a value."""
    with pytest.raises(SearchSyntaxError) as empty:
        compile(query)
    assert str(empty.value).splitlines()[0] == message
    assert empty.value.position == position
    for kw in KEYWORDS:
        with pytest.raises(SearchSyntaxError, match="has an empty value"):
            compile(f'{kw.names[0]}:""', nameable=lambda phrase: [])


def test_a_query_that_is_no_utf8_is_a_400_over_http(sample_server: Server) -> None:
    """`q=t:goblin%ff` (a byte that is no UTF-8) reached the search as U+FFFD, a name nobody has: "didn't match
    any cards" (404). It is a 400 in Scryfall's error shape saying what is wrong."""
    answer = sample_server.client.get("/cards/search?q=t:goblin%ff")
    assert answer.status_code == 400
    error = answer.json()
    assert error["object"] == "error" and error["code"] == "bad_request" and error["status"] == 400
    assert error["details"] == (
        "q= is not valid UTF-8 text (byte 0xFF at byte 8 of the query); percent-encode the query's UTF-8 bytes."
    )
    assert sample_server.client.get("/cards/search?q=t:goblin%20c:r").status_code == 200
    assert sample_server.client.get("/cards/search?q=Lim-D%C3%BBl").status_code == 200  # real UTF-8: Lim-Dûl


@pytest.mark.parametrize("path", ["/cards/random?q=t:goblin%ff", "/search?q=t:goblin%ff"])
def test_a_query_that_is_no_utf8_is_a_400_on_the_other_searches_too(sample_server: Server, path: str) -> None:
    """The random card of a search and the search page read `t:goblin%ff` as U+FFFD too: "didn't match any cards"
    (a 404, or the page saying so). Each is the 400 /cards/search answers."""
    answer = sample_server.client.get(path)
    assert answer.status_code == 400, answer.text[:300]
    details = "q= is not valid UTF-8 text (byte 0xFF at byte 8 of the query); percent-encode the query's UTF-8 bytes."
    if path.startswith("/cards/"):
        assert answer.json() == {"object": "error", "code": "bad_request", "status": 400, "details": details}
    else:
        assert details in html.unescape(answer.text) and "match any cards" not in answer.text
    assert sample_server.client.get(path.replace("%ff", "")).status_code == 200


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("t:goblin prefer:default", "default and atypical frames"),
        ("prefer:atypical", "default and atypical frames"),
        ("order:review", "review order"),
        ("t:elf order:spoiled", "spoiled order"),
    ],
)
def test_display_values_of_scryfalls_syntax_page_without_data_are_refused_naming_it(query: str, names: str) -> None:
    """Scryfall's syntax page ("Display Keywords") lists prefer:default/atypical and order:review/spoiled: each
    is refused in one line naming the data this database lacks, at the term's position (never an unknown value)."""
    from oracle_tools.search import UnsupportedKeywordError, compile

    with pytest.raises(UnsupportedKeywordError) as refused:
        compile(query)
    term = query.split()[-1]
    assert str(refused.value).startswith(f"{term} is not supported (") and names in str(refused.value)
    assert refused.value.position == query.index(term)


@pytest.mark.parametrize(
    ("query", "term"),
    [
        ("t:goblin -prefer:oldest", "prefer:oldest"),
        ("t:goblin -order:cmc", "order:cmc"),
        ("t:goblin -(c:r unique:prints)", "unique:prints"),
        ("t:goblin (c:r or -include:extras)", "include:extras"),
    ],
)
def test_a_negated_display_option_is_refused_at_its_position(query: str, term: str) -> None:
    """A display option orders or chooses printings; it matches no card. Negated, it filtered as `NOT true`:
    `t:goblin -prefer:oldest` found no card."""
    from oracle_tools.search import SearchSyntaxError, compile

    with pytest.raises(SearchSyntaxError) as refused:
        compile(query)
    assert str(refused.value).startswith(f"{term.split(':')[0]}: is a display option")
    assert str(refused.value).splitlines()[0].endswith("cannot be negated; write it beside the search's other terms")
    assert refused.value.position == query.index(term)


@pytest.mark.parametrize(
    ("query", "same"),
    [
        ("t:goblin (order:cmc or c:r)", "t:goblin c:r order:cmc"),
        ("t:elf or t:goblin unique:prints", "t:elf or t:goblin unique:prints"),
        ("unique:prints t:elf or t:goblin", "(t:elf or t:goblin) unique:prints"),
        ("t:goblin (order:cmc or unique:prints)", "t:goblin order:cmc unique:prints"),
    ],
)
def test_a_display_option_inside_or_applies_to_the_whole_answer(sample_db: OracleDB, query: str, same: str) -> None:
    """A display option is no operand wherever it is written: as one side of an OR it was `true`, so
    `t:goblin (order:cmc or c:r)` listed every goblin, and `unique:prints t:elf or t:goblin` (AND binds first)
    printed the elves' printings and the goblins' cards."""
    found = sample_db.search(query)
    assert found.height > 0
    assert found.equals(sample_db.search(same))


@pytest.mark.parametrize("value", ["review", "spoiled"])
def test_an_api_display_parameter_without_data_is_refused_as_the_same_query_keyword(value: str) -> None:
    """The API's `order=review` says what `q=order:review` says (the data it needs is not in the bulk files),
    not that the value is unknown."""
    from oracle_tools.search import UnsupportedKeywordError, compile

    with pytest.raises(UnsupportedKeywordError) as refused:
        compile("t:goblin", order=value)
    with pytest.raises(UnsupportedKeywordError) as written:
        compile(f"t:goblin order:{value}")
    assert str(refused.value).startswith(f"order={value} is not supported (")
    assert str(refused.value).split(" (", 1)[1] == str(written.value).split(" (", 1)[1]
