"""Single lookups by SQL point queries (oracle_tools/names/point.py: a fresh process never loads every name) give the full index's answers.

The point path (``PointNames``, ``NameChooser.for_name``, ``PointDeckChecker``) answers a fresh process's
one question from a few indexed queries; the in-memory ``NameIndex`` / ``NameChooser`` / ``DeckChecker``
answer warm batches. These tests hold the two to IDENTICAL answers — every field of ``to_dict()`` —
for every name of the embedded sample's ``names`` table and many spelling variants of each, for a sample
of the real data, and for choose-name verdicts and deck reports. When the names layer changes its
semantics, these tests say where the two paths drifted apart.
"""

from __future__ import annotations

import functools
import random
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import polars as pl
import pytest

from oracle_tools import OracleDB
from oracle_tools.choose.chooser import NameChooser
from oracle_tools.decks.checker import DeckChecker, PointDeckChecker
from oracle_tools.decks.decklist import read_decklists_json_cache
from oracle_tools.ingest import sample_dir
from oracle_tools.names import build, face_notes, index, resolver, suggestions
from oracle_tools.names.point import PointLookups, PointNames
from oracle_tools.names.stored import StoredNames
from oracle_tools.text import matching

#: The two strategies of point lookups: SQL on the database, and the names file the ingest writes beside it.
STRATEGIES = ("point", "stored")


def point_lookups(db: OracleDB, strategy: str) -> PointLookups:
    """A new strategy of point lookups on ``db``: its SQL point queries, or its names file (names/stored.py)."""
    if strategy == "point":
        return PointNames(db.con)
    stored = StoredNames.open(db.path)
    assert stored is not None, f"the ingest wrote no valid names file beside {db.path}"
    return stored


def variants(name: str) -> list[str]:
    """How people type a name: case, no accents, curly quotes, slashes, spaces; plus near misses."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", name) if unicodedata.category(c) != "Mn")
    out = [
        name,
        name.lower(),
        name.upper(),
        plain,
        name.replace("'", "’"),
        name.replace(" // ", "/"),
        name.replace(" // ", " / "),
        "  " + name.replace(" ", "  ") + " ",
        name.replace("Ae", "Æ"),
        name.split(" // ")[0],
        name.rstrip("s"),
    ]
    return list(dict.fromkeys(v for v in out if v.strip()))


@contextmanager
def face_rows_read_once() -> Iterator[None]:
    """Inside it, the point path reads each card's face rows (``face_notes._one_card``: three point queries, ~2 ms
    of DuckDB) once and hands the same rows to every later ``resolve`` of that card: ``FaceNotes`` is still built
    and asked for every text, from the very rows the point path reads. The rows depend on the card alone (its
    oracle_id), so every variant of a name gets the answer a fresh lookup would; the tests compare tens of
    thousands of variants of a few thousand cards, and the queries themselves are checked one text at a time with
    a fresh ``PointNames`` outside it."""
    one_card = face_notes._one_card
    face_notes._one_card = functools.cache(one_card)
    try:
        yield
    finally:
        face_notes._one_card = one_card


def assert_same_resolution(db: OracleDB, point: PointLookups, texts: list[str], *, fuzzy: bool = False) -> int:
    full = db.name_index
    for text in texts:
        expected = full.resolve(text, fuzzy=fuzzy).to_dict()
        got = point.resolve(text, fuzzy=fuzzy).to_dict()
        assert got == expected, text
    return len(texts)


# -- one definition of the name key, two forms (Python for one name, Polars for a column) ----------


def test_persisted_keys_equal_the_point_query_key_for_every_name_and_variant(sample_db: OracleDB) -> None:
    assert index.Resolution is resolver.Resolution and index.Candidate is resolver.Candidate  # one answer type
    assert index.normalize is matching.normalize and build.normalize is matching.normalize  # one key function
    every = [n for (n,) in sample_db.con.execute("SELECT DISTINCT name FROM names").fetchall()]
    texts = [text for name in every for text in variants(name)]
    vectorised = pl.Series(texts).to_frame("t").select(build.normalize_expr("t")).to_series().to_list()
    assert [matching.normalize(t) for t in texts] == vectorised
    # the key persisted at ingest (Polars' normalize_expr) is the key a point query computes
    stored = sample_db.con.execute("SELECT name, key FROM names").fetchall()
    assert all(matching.normalize(name) == key for name, key in stored)


# -- resolve: exhaustive on the sample -------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_point_resolve_equals_index_for_every_sample_name_and_variant(sample_db: OracleDB, strategy: str) -> None:
    every = sorted(n for (n,) in sample_db.con.execute("SELECT DISTINCT name FROM names").fetchall())
    texts = list(dict.fromkeys(v for n in every for v in variants(n)))
    batch = point_lookups(sample_db, strategy)
    batch.prefetch(texts)  # one query for all of them (what a decklist does); answers come from the rows
    with face_rows_read_once():
        checked = assert_same_resolution(sample_db, batch, texts)
        assert {batch.resolve(t).status for t in texts} == {"ok", "ambiguous", "not_found"}  # every branch compared
    assert checked > 3 * len(every) > 0
    # one query per name (what `oracle-tools resolve NAME` does) answers the same: the rows it reads are the ones
    # the batch read above, so a random share of the texts (a few ms of DuckDB each) checks the queries
    assert_same_resolution(sample_db, point_lookups(sample_db, strategy), random.Random(201).sample(texts, 400))
    if strategy == "stored":  # a probe costs microseconds: every text, one at a time
        assert_same_resolution(sample_db, point_lookups(sample_db, strategy), texts)


def test_index_reads_names_in_any_order_alike(
    sample_db: OracleDB, sample_db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The warm index decides each lookup from its rows as the names table streams by in the ingest's order (key,
    # name); a table in another order (written by other code) is read again sorted, with the same answers.
    import shutil

    import duckdb

    shuffled = tmp_path / "shuffled.duckdb"
    shutil.copy(sample_db_path, shuffled)
    with duckdb.connect(str(shuffled)) as con:
        con.execute("CREATE OR REPLACE TABLE names AS SELECT * FROM names ORDER BY hash(name, oracle_id, via, lang)")
    every = sorted(n for (n,) in sample_db.con.execute("SELECT DISTINCT name FROM names").fetchall())
    texts = list(dict.fromkeys(v for n in every for v in variants(n)))
    with duckdb.connect(str(shuffled), read_only=True) as con:
        other = index.NameIndex(con)
    ordered = sample_db.name_index
    # one at a time on a random share (a miss's suggestions cost ~1 ms each); every string in the batches
    some = random.Random(92).sample(texts, min(len(texts), 3000))
    assert {ordered.resolve(t).status for t in some} == {"ok", "ambiguous", "not_found"}  # every branch compared
    assert [other.resolve(t).to_dict() for t in some] == [ordered.resolve(t).to_dict() for t in some]
    assert other.resolve_many(texts).equals(ordered.resolve_many(texts))
    # a batch answers each string as one resolve does, field for field
    batch = ordered.resolve_many(some).to_dicts()
    fields = ("status", "oracle_id", "name", "face", "face_index", "via", "lang")
    assert [{f: row[f] for f in fields} for row in batch] == [
        {f: r.to_dict()[f] for f in fields} for r in map(ordered.resolve, some)
    ]
    # a batch of many distinct strings is joined with frames of every answer instead: the same frame
    with_a_null = pl.Series("query", [*texts, None], dtype=pl.String)  # a column read from a file may hold one
    looked_up = ordered.resolve_many(with_a_null)
    monkeypatch.setattr(index, "_JOINED_FROM", 0)
    assert ordered.resolve_many(with_a_null).equals(looked_up)


def test_a_batch_whose_strings_share_a_hash_keeps_each_strings_own_answer(
    sample_db: OracleDB, monkeypatch: pytest.MonkeyPatch
) -> None:
    # resolve_many finds a batch's distinct strings and places each row's answer by a 64-bit hash of the string;
    # two strings of one hash must still get each its own answer (found and answered by the strings themselves)
    every = sorted(n for (n,) in sample_db.con.execute("SELECT DISTINCT name FROM names").fetchall())
    texts = [v for n in every for v in variants(n)] + ["Jace,the Mind Sculptor", "no such card", ""]
    batch = pl.Series("query", [*texts, None, *reversed(texts)], dtype=pl.String)
    index_ = sample_db.name_index
    expected = index_.resolve_many(batch)
    assert set(expected.get_column("status").drop_nulls()) == {"ok", "ambiguous", "not_found"}
    by_length = lambda strings: strings.str.len_bytes().cast(pl.UInt64)  # noqa: E731 -- many share one, some not
    for collide in (by_length, lambda strings: pl.zeros(len(strings), pl.UInt64, eager=True)):
        monkeypatch.setattr(index, "_hashed", collide)
        assert index_.resolve_many(batch).equals(expected)
        monkeypatch.setattr(index, "_JOINED_FROM", 0)  # a batch of many distinct strings: joined, the same
        assert index_.resolve_many(batch).equals(expected)
        monkeypatch.undo()
    # the rows of a null and of the same string each time
    assert expected.row(len(texts), named=True) == dict.fromkeys(expected.columns)
    assert expected.head(len(texts)).equals(expected.tail(len(texts)).reverse())


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_point_fuzzy_and_misses_equal_index(sample_db: OracleDB, strategy: str) -> None:
    every = sorted(
        n for (n,) in sample_db.con.execute("SELECT DISTINCT name FROM names WHERE via IN ('name', 'face')").fetchall()
    )
    rng = random.Random(14)
    misses = [n[:-1] + "x" for n in rng.sample(every, 120)] + ["", " ", "zzzz qqqq", "Goblin", "Treasure token"]
    point = point_lookups(sample_db, strategy)
    assert_same_resolution(sample_db, point, misses)
    assert_same_resolution(sample_db, point, misses, fuzzy=True)
    assert any(point.resolve(m, fuzzy=True).via == "fuzzy" for m in misses)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_point_classes_and_token_names_equal_index(sample_db: OracleDB, strategy: str) -> None:
    full = sample_db.name_index
    point, one_by_one = point_lookups(sample_db, strategy), point_lookups(sample_db, strategy)
    english = [
        n
        for (n,) in sample_db.con.execute(
            "SELECT DISTINCT name FROM names WHERE via IN ('name', 'face', 'interchangeable')"
        ).fetchall()
    ]
    classed = [n for (n,) in sample_db.con.execute("SELECT DISTINCT name FROM name_classes").fetchall()]
    assert classed, "the sample has interchangeable names (CR 201.3)"
    point.prefetch(english + classed)  # the classes of every name from one query, as a decklist reads them
    for name in english + classed:
        assert point.interchangeable(name) == full.interchangeable(name), name  # CR 201.3a
        assert point.class_id(name) == full.class_id(name), name  # CR 201.3b counts by class
    for name in classed + random.Random(2013).sample(english, 150):  # one query per name (a single lookup)
        assert one_by_one.interchangeable(name) == full.interchangeable(name), name
        assert one_by_one.class_id(name) == full.class_id(name), name
    tokens = [n for (n,) in sample_db.con.execute("SELECT DISTINCT name FROM token_names").fetchall()]
    for text in tokens + english[:200] + ["Treasure", "Goblin", "Marit Lage"]:
        assert point.is_token_name(text) == full.is_token_name(text), text
        assert point.suggest_tokens(text) == full.suggest_tokens(text), text


def test_suggest_many_equals_one_search_per_name(sample_db: OracleDB) -> None:
    full = sample_db.name_index
    every = sorted(
        n for (n,) in sample_db.con.execute("SELECT DISTINCT name FROM names WHERE via IN ('name', 'face')").fetchall()
    )
    rng = random.Random(11)
    texts = (
        [n[:-2] + "zq" for n in rng.sample(every, 400)]
        + [n.lower()[1:] for n in rng.sample(every, 300)]
        + ["", "Goblin", "Lightnin Bolt", "x"]
    )
    # a batch finds the far words of its misspelt words in one vectorised pass; one at a time, a scan each
    batch = suggestions.card_matcher(sample_db.con).suggest_many(texts, 5)
    one_by_one = suggestions.card_matcher(sample_db.con)
    assert [one_by_one.suggest(t, limit=5) for t in texts] == batch
    assert [full.suggest(t, limit=5) for t in texts] == batch  # the index's matcher is the same
    assert sum(map(bool, batch)) > 600


# -- OracleDB switches from the point path to the index, answers unchanged -----------------------------


def without_names_file(db_path: Path, folder: Path) -> Path:
    """A copy of the database ``db_path`` (a hard link) without its names file: names come from the database."""
    import os

    copy = folder / "copied.duckdb"
    os.link(db_path, copy)
    return copy


def test_oracledb_uses_point_path_then_index(sample_db_path: Path, tmp_path: Path) -> None:
    db = OracleDB(without_names_file(sample_db_path, tmp_path))
    try:
        texts = [n for (n,) in db.con.execute("SELECT DISTINCT name FROM names ORDER BY name LIMIT 80").fetchall()]
        first = [db.resolve(t).to_dict() for t in texts[: OracleDB.POINT_LOOKUPS]]
        assert db._name_index is None  # a few single lookups never build the whole index
        rest = [db.resolve(t).to_dict() for t in texts[OracleDB.POINT_LOOKUPS :]]
        assert db._name_index is not None  # a loop of many does, then runs at index speed
        assert first + rest == [db.name_index.resolve(t).to_dict() for t in texts]
    finally:
        db.close()


# -- choose a card name (CR 201.4) -----------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_point_chooser_equals_full_chooser(sample_db: OracleDB, strategy: str) -> None:
    faces = sorted(n for (n,) in sample_db.con.execute("SELECT DISTINCT name FROM faces").fetchall())
    multi = sorted(
        n for (n,) in sample_db.con.execute("SELECT DISTINCT name FROM faces WHERE role <> 'single'").fetchall()
    )  # 201.4b-f: every one of them
    texts = (
        multi
        + random.Random(4).sample(faces, 100)
        + ["Fire // Ice", "fire/ice", "Very Cryptic Command", "Treasure", "Tarmogoyff", "Nope Nope"]
    )
    point = point_lookups(sample_db, strategy)
    # the names from one query, as a decklist reads them (the one-query-per-name path is compared with the
    # index by the resolve tests above): what is compared here is the chooser of each name's faces
    point.prefetch(texts + faces)
    full = sample_db.name_chooser
    for text in texts:
        chooser = NameChooser.for_name(sample_db.con, point, text)
        for constraint in (None, "nonland", "creature", "nonartifact, nonland", "instant or sorcery"):
            expected = full.choose(text, constraint).to_dict()
            assert chooser.choose(text, constraint).to_dict() == expected, (text, constraint)


# -- token NAME (CR 111) ---------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_point_token_answers_equal_index(sample_db: OracleDB, strategy: str) -> None:
    from oracle_tools.tokens import answers as tokens

    con = sample_db.con
    texts = [n for (n,) in con.execute("SELECT DISTINCT name FROM token_names").fetchall()]
    texts += [n for (n,) in con.execute("SELECT DISTINCT name FROM effect_tokens").fetchall()]
    texts += [n for (n,) in con.execute("SELECT name FROM predefined_tokens").fetchall()]
    texts += random.Random(111).sample(
        [n for (n,) in con.execute("SELECT DISTINCT name FROM names WHERE via IN ('name', 'face')").fetchall()], 150
    )
    texts += ["Treasure", "treasure token", "Tarmogoyf", "Marit Lage", "Fire // Ice", "Goblin", "Nope Nope"]
    point = point_lookups(sample_db, strategy)
    point.prefetch(texts)  # one query for every name (the resolve tests compare the one-per-name path)
    kinds = set()
    for text in dict.fromkeys(texts):
        expected = tokens.lookup(con, sample_db.name_index, text).to_dict()
        assert tokens.lookup(con, point, text).to_dict() == expected, text
        kinds.add(expected["kind"])
    assert {"predefined", "card", "none"} <= kinds


# -- deck check -----------------------------------------------------------------------------------------


def _same_reports(db: OracleDB, decks: list, fmt: str, strategy: str = "point") -> int:
    full = db.deck_checker  # the warm checker the library keeps (DeckChecker over the name index; built once)
    point = PointDeckChecker(db.con, point_lookups(db, strategy))  # a fresh process's: new for each deck file
    for deck in decks:
        assert point.check(deck, fmt).to_dict() == full.check(deck, fmt).to_dict(), deck.source
    return len(decks)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_point_deck_checker_equals_full_checker_on_sample_decks(sample_db: OracleDB, strategy: str) -> None:
    checked = 0
    for path in sorted((sample_dir() / "decks").glob("*.json")):
        fmt = {"duel-commander": "duel"}.get(path.name.split("_")[1], path.name.split("_")[1])
        checked += _same_reports(sample_db, read_decklists_json_cache(path), fmt, strategy)
        checked += _same_reports(sample_db, read_decklists_json_cache(path), "commander", strategy)  # other rules
    assert checked > 20


def test_check_decks_batch_equals_deck_by_deck(sample_db: OracleDB) -> None:
    """check_decks prefetches all names (batch misses, vectorised suggestions); the problems it reports are
    those of checking each deck alone with a fresh checker."""
    decks = [d for path in sorted((sample_dir() / "decks").glob("*.json")) for d in read_decklists_json_cache(path)]
    for deck in decks[:10]:  # misspellings and foreign names: misses that need suggestions
        for entry in deck.entries[:3]:
            object.__setattr__(entry, "name", entry.name[:-1] + "qz")
    frame = sample_db.check_decks(decks, format="legacy")
    alone = DeckChecker(sample_db.con, sample_db.name_index)
    expected = [
        (n, d.source, d.name, d.player, p.kind, p.card, p.line, p.detail)
        for n, d in enumerate(decks)
        for p in alone.check(d, "legacy").problems
    ]
    assert frame.rows() == expected
    assert sum(1 for row in expected if row[4] == "unknown_card" and "did you mean" in row[7]) >= 20


def test_check_deck_of_one_list_builds_no_index(sample_db_path: Path) -> None:
    path = next((sample_dir() / "decks").glob("*_modern_*.json"))
    deck = read_decklists_json_cache(path)[0]
    db = OracleDB(sample_db_path)
    try:
        report = db.check_deck(deck, format="modern").to_dict()
        assert db._name_index is None and db._deck_checker is None
        assert report == DeckChecker(db.con, db.name_index).check(deck, "modern").to_dict()
    finally:
        db.close()


# -- the real data ---------------------------------------------------------------------------------------


@pytest.mark.realdata
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_point_resolve_equals_index_on_real_data(full_db: OracleDB, realdata: Path, strategy: str) -> None:
    rng = random.Random(2019)
    rows = full_db.con.execute("SELECT DISTINCT name FROM names").fetchall()
    sample = [n for (n,) in rng.sample(rows, 1500)]
    texts = list(dict.fromkeys(v for n in sample for v in variants(n)))
    texts += [
        "Tarmogoyf",
        "fire/ice",
        "Lim-Dul's Vault",
        "Jace, the Mind Sculptor",
        "Very Cryptic Command",
        "Blitz",
        "Tarmogoyff",
        "Ruzic, Booed but Victorious",
        "Lightning Bolt",
    ]
    batch = point_lookups(full_db, strategy)
    batch.prefetch(texts)  # every text from the rows of one query (a decklist's path)
    with face_rows_read_once():
        assert assert_same_resolution(full_db, batch, texts) > 5000
    # one query per text (a single `resolve`): the same code answers from its own rows; a random share and the
    # named cases cost a query each (about 10 ms on DuckDB), so not all five thousand (all of them for the names file)
    one_by_one = texts if strategy == "stored" else rng.sample(texts, 300) + texts[-9:]
    assert_same_resolution(full_db, point_lookups(full_db, strategy), one_by_one)
    assert_same_resolution(full_db, point_lookups(full_db, strategy), texts[:150], fuzzy=True)


@pytest.mark.realdata
def test_point_deck_checker_equals_full_checker_on_real_decks(full_db: OracleDB, realdata: Path) -> None:
    import csv

    checked = 0
    with (realdata / "decks" / "MANIFEST.tsv").open(encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle, delimiter="\t") if r["source"].startswith("spigushe")]
    for label, fmt in (
        ("Modern", "modern"),
        ("Legacy", "legacy"),
        ("Vintage", "vintage"),
        ("Pauper", "pauper"),
        ("Duel Commander", "duel"),
    ):
        files = sorted(r["path"] for r in rows if r["format"] == label)[:3]
        for path in files:
            checked += _same_reports(
                full_db, read_decklists_json_cache(realdata / "decks" / rows[0]["source"] / path)[:20], fmt
            )
    assert checked > 50


# -- what a fresh process imports (no timing: the modules themselves) -------------------------------------


def _after_command(args: list[str], db: Path, report: str) -> str:
    """What the Python expression ``report`` prints in a fresh process after the CLI ran ``args`` on ``db``."""
    code = (
        "import sys\nfrom oracle_tools.interfaces.cli import main\n"
        f"try:\n    main({args!r}, standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        f"print('REPORT:', {report})"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"ORACLE_TOOLS_DB": str(db), "PATH": "/usr/bin:/bin"},
    ).stdout
    return out.rsplit("REPORT:", 1)[1]


def _imports_after(args: list[str], db: Path) -> set[str]:
    heavy = "('duckdb', '_duckdb', 'polars', 'rapidfuzz', 'tqdm', 'pyarrow')"
    return set(_after_command(args, db, f"*sorted(m for m in {heavy} if m in sys.modules)").split())


def test_help_imports_neither_duckdb_nor_polars(sample_db_path: Path) -> None:
    assert _imports_after(["--help"], sample_db_path) == set()


def test_point_queries_import_only_duckdbs_engine(sample_db_path: Path, tmp_path: Path) -> None:
    # The duckdb package's Python layer (relations, expressions) costs a fresh process more than the whole
    # lookup: point queries connect through its compiled core (store.sqlfiles.engine) and never import it.
    assert _imports_after(["resolve", "Lightning Bolt"], without_names_file(sample_db_path, tmp_path)) == {"_duckdb"}
    assert _imports_after(["token", "Lightning Bolt"], sample_db_path) == {"_duckdb"}
    # a predefined token (CR 111.10a) is looked up as a card's name too, for the note of a card of that name: a
    # lookup only, not the "did you mean" of a miss (which imported rapidfuzz and built both matchers, ~70 ms)
    assert _imports_after(["token", "Treasure"], sample_db_path) == {"_duckdb"}
    deck = tmp_path / "two-lines.txt"
    deck.write_text("4 Lightning Bolt\n4 Counterspell\n", encoding="utf-8")
    assert _imports_after(["deck", "check", str(deck), "--format", "modern"], sample_db_path) == {"_duckdb"}


def _package_after(args: list[str], db: Path) -> tuple[set[str], bool]:
    """The oracle_tools modules a fresh process imported for the command ``args``, and whether it read the shipped
    Comprehensive Rules text (the vocabulary's rules: ``text.vocabulary._shipped``)."""
    out = _after_command(
        args,
        db,
        "*sorted(m for m in sys.modules if m.startswith('oracle_tools')), 'RULES-READ:', "
        "(lambda v: v is not None and v._shipped.cache_info().currsize > 0)"
        "(sys.modules.get('oracle_tools.text.vocabulary'))",
    )
    modules, read = out.split("RULES-READ:")
    return set(modules.split()), read.strip() == "True"


#: The packages a command about one name never needs unless it is its own job (a fresh process imports what its
#: command uses).
_OTHER_JOBS = ("ingest", "history", "search", "choose", "scryfall", "interfaces.serve", "interfaces.mcp_server")


def test_a_fresh_resolve_token_or_deck_check_imports_only_their_own_job(sample_db_path: Path, tmp_path: Path) -> None:
    def others(modules: set[str], *jobs: str) -> set[str]:
        return {m for m in modules if any(m == f"oracle_tools.{j}" or m.startswith(f"oracle_tools.{j}.") for j in jobs)}

    resolved, rules_read = _package_after(["resolve", "Lightning Bolt"], sample_db_path)
    assert others(resolved, *_OTHER_JOBS, "decks", "tokens", "text.comprules") == set()
    assert not rules_read  # the name rules need no word list of the Comprehensive Rules
    token, _ = _package_after(["token", "Lightning Bolt"], sample_db_path)
    assert others(token, *_OTHER_JOBS, "decks", "text.comprules") == set()
    deck = tmp_path / "two-lines.txt"
    deck.write_text("4 Lightning Bolt\n4 Counterspell\n", encoding="utf-8")
    checked, rules_read = _package_after(["deck", "check", str(deck), "--format", "modern"], sample_db_path)
    assert others(checked, *_OTHER_JOBS, "tokens", "text.comprules") == set()
    # CR 702.139a: a companion's condition may ask for permanent cards (CR 110.4's list, read from the rules);
    # a deck without a companion never asks, so its check reads no rules text
    assert not rules_read


def test_many_single_lookups_build_the_name_index_without_polars(sample_db_path: Path, tmp_path: Path) -> None:
    # A process resolving names one at a time past the point queries builds the in-memory index (dicts);
    # Polars (and DuckDB's Python layer) load with the first batch (resolve_many), not with the index
    code = (
        "import sys\nfrom oracle_tools import OracleDB\n"
        f"db = OracleDB({str(without_names_file(sample_db_path, tmp_path))!r})\n"
        "names = [n for (n,) in db.con.execute('SELECT name FROM cards WHERE is_card ORDER BY name').fetchall()]\n"
        "answers = [db.resolve(n).ok for n in names[: db.POINT_LOOKUPS + 8]]\n"
        "print(all(answers), db._built_name_index() is not None, *sorted(m for m in ('polars', 'duckdb') "
        "if m in sys.modules))\n"
        "db.resolve_many(names[:3])\n"
        "print('polars' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["True True", "True"], out


def test_sql_and_search_print_without_polars_or_arrow(sample_db_path: Path) -> None:
    # the table, --json and --csv of `sql` and `search` are drawn from DuckDB rows (oracle_tools/interfaces/render.py)
    duckdb = {"duckdb", "_duckdb"}
    assert _imports_after(["sql", "SELECT name FROM cards LIMIT 2"], sample_db_path) == duckdb
    assert _imports_after(["sql", "SELECT name, colors FROM cards LIMIT 2", "--json"], sample_db_path) == duckdb
    assert _imports_after(["search", "t:goblin c:r mv<=2"], sample_db_path) == duckdb
    assert _imports_after(["search", "t:goblin c:r mv<=2", "--json", "--limit", "2"], sample_db_path) == duckdb
