"""Name rules (CR 201): the names table, the resolver, same-name semantics."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle_tools import OracleDB
from oracle_tools.errors import ArgumentError
from oracle_tools.interfaces.cli import main
from oracle_tools.names.build import normalize_expr
from oracle_tools.names.index import normalize
from oracle_tools.names.stored import StoredNames

from fuzzing import examples

# -- CR 201.2: a card's name is its English name, whatever the printed language ------------------


def _stored_names(db: OracleDB) -> StoredNames:
    """The names file the ingest wrote beside ``db`` (names/stored.py), the third strategy of the one resolve."""
    stored = StoredNames.open(db.path)
    assert stored is not None
    return stored


@pytest.mark.parametrize(
    ("printed", "english"),
    [
        ("Relámpago", "Lightning Bolt"),  # es
        ("Foudre", "Lightning Bolt"),  # fr
        ("Blitzschlag", "Lightning Bolt"),  # de
        ("Fulmine", "Lightning Bolt"),  # it
        ("稲妻", "Lightning Bolt"),  # ja
    ],
)
def test_201_2_foreign_printed_name_resolves_to_english(sample_db: OracleDB, printed: str, english: str) -> None:
    # Each printed name is checked against the sample's own printings first, so the test fails
    # if the data stops saying so rather than passing on a hard-coded answer.
    assert (
        sample_db.sql("SELECT count(*) FROM printings WHERE printed_name = ? AND name = ?", [printed, english]).item()
        >= 1
    )
    result = sample_db.resolve(printed)
    assert (result.status, result.name, result.via) == ("ok", english, "printed")


def test_201_2_foreign_names_in_several_languages_on_real_printings(full_db: OracleDB) -> None:
    # a deterministic sample of real foreign printings (MTGJSON foreignData in Scryfall shape)
    rows = full_db.sql(
        "SELECT printed_name, name, lang FROM printings WHERE lang IN ('de', 'fr', 'es', 'it', 'ja', 'pt', 'ru') "
        "AND printed_name IS NOT NULL AND layout = 'normal' ORDER BY hash(id) LIMIT 700"
    )
    resolved = full_db.resolve_many(rows.get_column("printed_name"))
    joined = rows.with_columns(status=resolved.get_column("status"), got=resolved.get_column("name"))
    ok = joined.filter(pl.col("status") == "ok")
    # every unambiguous foreign name lands on its English Oracle name
    assert ok.filter(pl.col("got") != pl.col("name")).is_empty()
    assert ok.height / joined.height > 0.97
    assert set(ok.get_column("lang")) >= {"de", "fr", "es", "it", "ja"}
    # the rest are real translation collisions (two cards sharing one foreign name): reported, not guessed
    for text in joined.filter(pl.col("status") != "ok").get_column("printed_name").to_list()[:20]:
        result = full_db.resolve(text)
        assert result.status == "ambiguous" and len({c.name for c in result.candidates}) >= 2


# -- CR 201.2a–c: same name / different names ------------------------------------------------------


def test_201_2a_objects_share_a_name_if_any_name_is_shared(sample_db: OracleDB) -> None:
    assert sample_db.same_name("Fire // Ice", "Ice")  # a split card has both halves' names (709.4a)
    assert sample_db.same_name("Relámpago", "Lightning Bolt")  # printed language doesn't matter (201.2)
    assert not sample_db.same_name("Lightning Bolt", "Tarmogoyf")


def test_201_2a_an_object_with_no_name_never_shares_a_name(sample_db: OracleDB) -> None:
    assert not sample_db.same_name(None, "Tarmogoyf")
    assert not sample_db.same_name(None, None)  # not even another nameless object


def test_201_2b_different_names_needs_every_object_named(sample_db: OracleDB) -> None:
    assert sample_db.have_different_names(["Lightning Bolt", "Tarmogoyf", "Fire // Ice"])
    assert not sample_db.have_different_names(["Lightning Bolt", "Tarmogoyf", "Relámpago"])
    assert not sample_db.have_different_names(["Lightning Bolt", None])  # a face-down card has no name


def test_201_2c_different_from_a_group(sample_db: OracleDB) -> None:
    assert sample_db.has_different_name("Tarmogoyf", ["Lightning Bolt", None])  # nameless others don't matter
    assert not sample_db.has_different_name(None, ["Lightning Bolt"])  # a nameless first never differs
    assert not sample_db.has_different_name("Ice", ["Fire // Ice"])


# -- CR 201.3: interchangeable names ----------------------------------------------------------------


def test_201_3a_interchangeable_names_are_the_same_name(sample_db: OracleDB) -> None:
    # the sample's real om1 printing: Scryfall records "Kavaero, Mind-Bitten" as printed_name (lang en) of a
    # printing of the Marvel's Spider-Man Oracle card Superior Spider-Man — one card, two names
    a, b = "Superior Spider-Man", "Kavaero, Mind-Bitten"
    assert sample_db.resolve(a).oracle_id == sample_db.resolve(b).oracle_id
    assert (sample_db.resolve(a).via, sample_db.resolve(b).via) == ("name", "interchangeable")
    assert sample_db.same_name(a, b)
    assert not sample_db.have_different_names([a, b])
    assert set(sample_db.resolve(a).names) == {a, b} == set(sample_db.resolve(b).names)
    assert sample_db.have_different_names([b, "Ruzic, Booed but Victorious"])  # two cards' OM1 names


def test_201_3a_override_table_joins_two_oracle_cards(fixture_db: OracleDB) -> None:
    # the optional override table (tests/fixtures/interchangeable_names.csv) for a pair a data source lacks:
    # here two Oracle cards (a placeholder pair), which it makes one 201.3 class
    a, b = "Spider-Man, Web-Slinger", "Omenpath Web-Slinger"
    assert fixture_db.resolve(a).oracle_id != fixture_db.resolve(b).oracle_id  # two Oracle cards
    assert fixture_db.same_name(a, b)
    assert set(fixture_db.resolve(a).names) == {a, b} == set(fixture_db.resolve(b).names)


def test_201_3b_class_is_exposed_on_the_cli(sample_db: OracleDB) -> None:
    out = CliRunner().invoke(main, ["resolve", "kavaero, mind-bitten", "--json", "--db", str(sample_db.path)])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert (data["name"], data["via"]) == ("Superior Spider-Man", "interchangeable")
    assert data["names"] == ["Kavaero, Mind-Bitten", "Superior Spider-Man"]


def test_a_name_without_a_class_is_its_own_class(sample_db: OracleDB) -> None:
    assert sample_db.resolve("Tarmogoyf").names == ("Tarmogoyf",)
    assert sample_db.resolve("Ice").names == ("Ice",)


# -- CR 201.6: alternate names in a secondary title bar ---------------------------------------------


def test_201_6_flavor_name_resolves_to_the_oracle_name(fixture_db: OracleDB) -> None:
    # fixture modelling the Godzilla Series printing of Zilortha, Strength Incarnate (Scryfall flavor_name)
    result = fixture_db.resolve("Godzilla, King of the Monsters")
    assert (result.status, result.name, result.via) == ("ok", "Zilortha, Strength Incarnate", "flavor")
    # the alternate name has no effect on game play: same name as the Oracle card, and not a name of its own
    assert result.names == ("Zilortha, Strength Incarnate",)
    assert fixture_db.same_name("Godzilla, King of the Monsters", "Zilortha, Strength Incarnate")


def test_201_6_an_english_printed_name_repeating_a_flavor_name_stays_an_alternate_name(fixture_db: OracleDB) -> None:
    # the fixture's second printing carries the same alternate name in printed_name (English): it is the
    # card's 201.6 alternate name, not a 201.3 interchangeable name, so it joins no class
    assert (
        fixture_db.sql(
            "SELECT count(*) FROM printings WHERE lang = 'en' AND printed_name = ?", ["Godzilla, King of the Monsters"]
        ).item()
        == 1
    )
    vias = set(
        fixture_db.sql("SELECT via FROM names WHERE name = ?", ["Godzilla, King of the Monsters"]).get_column("via")
    )
    assert vias == {"flavor"}
    assert (
        fixture_db.sql("SELECT count(*) FROM name_classes WHERE name = ?", ["Godzilla, King of the Monsters"]).item()
        == 0
    )


# -- every face layout: 709, 710, 712, 713, 715 -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "card", "face", "role"),
    [
        ("Fire", "Fire // Ice", "Fire", "split_half"),  # CR 709
        ("Ribbons", "Cut // Ribbons", "Ribbons", "aftermath_half"),  # CR 709 (aftermath)
        (
            "Kenzo the Hardhearted",
            "Bushi Tenderfoot // Kenzo the Hardhearted",
            "Kenzo the Hardhearted",
            "flip_bottom",
        ),  # CR 710
        ("Insectile Aberration", "Delver of Secrets // Insectile Aberration", "Insectile Aberration", "back"),  # 712
        ("Razorgrass Field", "Razorgrass Ambush // Razorgrass Field", "Razorgrass Field", "back"),  # CR 712 (modal)
        ("Chop Down", "Giant Killer // Chop Down", "Chop Down", "adventure"),  # CR 715
    ],
)
def test_face_names_resolve_to_card_and_face(sample_db: OracleDB, text: str, card: str, face: str, role: str) -> None:
    result = sample_db.resolve(text)
    assert (result.status, result.name, result.face, result.via) == ("ok", card, face, "face")
    assert (
        sample_db.sql(
            "SELECT role FROM faces WHERE oracle_id = ? AND face_index = ?", [result.oracle_id, result.face_index]
        ).item()
        == role
    )


def test_713_meld_result_is_its_own_card_linked_to_its_parts(sample_db: OracleDB) -> None:
    result = sample_db.resolve("Brisela, Voice of Nightmares")
    assert (result.status, result.name, result.face) == ("ok", "Brisela, Voice of Nightmares", None)
    parts = sample_db.sql(
        "SELECT c.name FROM parts p JOIN cards c USING (oracle_id) "
        "WHERE p.component = 'meld_result' AND p.part_oracle_id = ? ORDER BY 1",
        [result.oracle_id],
    )
    assert parts.get_column("name").to_list() == ["Bruna, the Fading Light", "Gisela, the Broken Blade"]


def test_five_part_split_card(full_db: OracleDB) -> None:
    name = "Who // What // When // Where // Why"
    if not full_db.sql("SELECT count(*) FROM cards WHERE name = ?", [name]).item():
        pytest.skip("the 5-part split card is not in the 2019 dump")
    for half in name.split(" // "):
        assert full_db.resolve(half).name == name


def test_every_face_name_of_every_multiface_card_resolves(full_db: OracleDB) -> None:
    faces = full_db.sql(
        "SELECT f.name, f.oracle_id, f.face_index, c.layout FROM faces f JOIN cards c USING (oracle_id) "
        "WHERE c.is_card AND f.role NOT IN ('single', 'meld_part', 'meld_result')"
    )
    resolved = full_db.resolve_many(faces.get_column("name"))
    table = faces.with_columns(status=resolved.get_column("status"), got=resolved.get_column("oracle_id"))
    wrong = table.filter((pl.col("status") == "ok") & (pl.col("got") != pl.col("oracle_id")))
    assert wrong.is_empty()
    per_layout = (
        table.group_by("layout")
        .agg(pl.len().alias("faces"), (pl.col("status") == "ok").sum().alias("ok"))
        .sort("layout")
    )
    not_ok = table.filter(pl.col("status") != "ok")
    # the only faces that don't resolve uniquely are names two cards really share (reported as ambiguous)
    for name in not_ok.get_column("name").to_list():
        assert full_db.resolve(name).status == "ambiguous"
    assert per_layout.get_column("faces").sum() > 600  # 615 faces of multi-face cards in 2019 + 2024
    assert not_ok.height <= 5, not_ok


# -- normalization and ambiguity ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("lim-dul's vault", "Lim-Dûl's Vault"),
        ("LIM-DÛL’S VAULT", "Lim-Dûl's Vault"),
        ("Aether Vial", "Aether Vial"),
        ("Æther Vial", "Aether Vial"),
        ("fire/ice", "Fire // Ice"),
        ("Fire / Ice", "Fire // Ice"),
        ("  Fire   //   Ice ", "Fire // Ice"),
        ("jotun grunt", "Jötun Grunt"),
    ],
)
def test_normalized_lookup(sample_db: OracleDB, typed: str, expected: str) -> None:
    result = sample_db.resolve(typed)
    assert (result.status, result.name) == ("ok", expected)
    assert result.via in ("normalized", "name")


def test_a_shared_name_is_ambiguous_not_guessed(full_db: OracleDB) -> None:
    shared = full_db.sql("SELECT name FROM cards WHERE is_card GROUP BY name HAVING count(*) > 1 ORDER BY name")
    assert shared.height >= 1
    for name in shared.get_column("name").to_list():
        result = full_db.resolve(name)
        assert result.status == "ambiguous"
        assert len({c.oracle_id for c in result.candidates}) >= 2


def test_tokens_are_never_returned_as_cards(sample_db: OracleDB) -> None:
    only_tokens = sample_db.sql("SELECT DISTINCT name FROM token_names EXCEPT SELECT name FROM names ORDER BY 1")
    assert only_tokens.height > 10
    for name in only_tokens.get_column("name").to_list()[:40]:
        assert sample_db.resolve(name).status != "ok" or sample_db.resolve(name).name != name


def test_misspelling_is_not_found_with_suggestions_unless_fuzzy(sample_db: OracleDB) -> None:
    result = sample_db.resolve("Tarmogoyff")
    assert result.status == "not_found" and result.suggestions[0] == "Tarmogoyf"
    fuzzy = sample_db.resolve("Tarmogoyff", fuzzy=True)
    assert (fuzzy.status, fuzzy.name, fuzzy.via) == ("ok", "Tarmogoyf", "fuzzy")


def test_suggest_zero_answers_only_whether_a_name_is_one(sample_db: OracleDB) -> None:
    """An exact lookup (``suggest=0``) gives every hit as the default does and a miss without the names it may
    mean; ``suggest=N`` gives the first N of the default's names."""
    for name in ("Fire/Ice", "Foudre", "Ice", "Ruzic, Booed but Victorious"):
        assert sample_db.resolve(name, suggest=0) == sample_db.resolve(name)
    miss, one, none = (sample_db.resolve("Tarmogoyff", suggest=n) for n in (5, 1, 0))
    assert miss.suggestions[0] == "Tarmogoyf" and one.suggestions == miss.suggestions[:1]
    assert (none.status, none.suggestions, none.tokens) == ("not_found", (), ())
    assert sample_db.resolve_many(["Tarmogoyff", "qwzx"], suggest=1).get_column("suggestions").to_list() == [
        ["Tarmogoyf"],
        [],
    ]
    for bad, error in ((-1, ArgumentError), (51, ArgumentError), (True, TypeError), ("5", TypeError)):
        with pytest.raises(error, match="suggest"):
            sample_db.resolve("Tarmogoyff", suggest=bad)  # type: ignore[arg-type]
        with pytest.raises(error, match="suggest"):
            sample_db.resolve_many(["Tarmogoyff"], suggest=bad)  # type: ignore[arg-type]
    refused = CliRunner().invoke(main, ["resolve", "Tarmogoyff", "--suggest", "-1", "--db", str(sample_db.path)])
    assert refused.exit_code == 2 and "--suggest" in refused.output and "Traceback" not in refused.output


def test_cli_contract(sample_db: OracleDB) -> None:
    runner = CliRunner()
    ok = runner.invoke(main, ["resolve", "Ice", "--json", "--db", str(sample_db.path)])
    assert ok.exit_code == 0
    data = json.loads(ok.output)
    assert {k: data[k] for k in ("status", "name", "face", "via", "names")} == {
        "status": "ok",
        "name": "Fire // Ice",
        "face": "Ice",
        "via": "face",
        "names": ["Ice"],
    }
    assert data["oracle_id"] == sample_db.resolve("Fire // Ice").oracle_id
    missing = runner.invoke(main, ["resolve", "Lightening Bolt", "--json", "--db", str(sample_db.path)])
    assert missing.exit_code == 1
    assert "Lightning Bolt" in json.loads(missing.output)["suggestions"]


def test_batch_agrees_with_single_and_keeps_order(sample_db: OracleDB) -> None:
    names = sample_db.sql("SELECT name FROM names ORDER BY hash(name) LIMIT 3000").get_column("name").to_list()
    noisy = names + [n.upper() for n in names[:500]] + [n.replace("'", "’") for n in names[:500]] + ["nope"]
    batch = sample_db.resolve_many(noisy)
    assert batch.get_column("query").to_list() == noisy
    for row in batch.sample(400, seed=1).iter_rows(named=True):
        single = sample_db.resolve(row["query"])
        assert (single.status, single.oracle_id) == (row["status"], row["oracle_id"])


def test_batch_reads_every_encoding_a_decklist_is_read_in(sample_db_path: Path, tmp_path: Path) -> None:
    """A list of names saved by Windows tools (Windows-1252 with CRLF, UTF-16 with BOM from Notepad or
    PowerShell), from a file or standard input, is read as ``deck check`` reads a decklist: the same decoding,
    the same answers as UTF-8; a file that is no text is one line, exit 2."""
    db = ["--db", str(sample_db_path), "--json"]
    listed = "Lim-Dûl’s Vault\r\nLightning Bolt\r\n"
    expected = ["Lim-Dûl's Vault", "Lightning Bolt"]
    for encoding in ("cp1252", "utf-16", "utf-8-sig", "utf-8"):
        data = listed.encode(encoding)
        names = tmp_path / f"names-{encoding}.txt"
        names.write_bytes(data)
        for args, stdin in ((["--batch", str(names)], None), (["--batch", "-"], data)):
            result = CliRunner().invoke(main, ["resolve", *db, *args], input=stdin)
            assert result.exit_code == 0, (encoding, args, result.output)
            assert [row["name"] for row in json.loads(result.output)] == expected, encoding
        decklist = "".join(f"4 {line}\r\n" for line in listed.splitlines()).encode(encoding)
        deck = CliRunner().invoke(main, ["deck", "check", "-", "--format", "legacy", *db], input=decklist)
        read = [line["card"] for line in json.loads(deck.output)["lines"]]
        assert read == expected, (encoding, deck.output[-300:])
    binary = tmp_path / "names.bin"
    binary.write_bytes(b"Lightning Bolt\n\x00\x01\x02")
    refused = CliRunner().invoke(main, ["resolve", *db, "--batch", str(binary)])
    assert refused.exit_code == 2 and refused.output.count("\n") == 1, refused.output
    assert "binary file" in refused.output and "one a line" in refused.output
    nothing = CliRunner().invoke(main, ["resolve", *db, "--batch", "-"], input=b"\r\n")
    assert (nothing.exit_code, json.loads(nothing.output)) == (0, [])  # a list of no names, as before


# Characters this Python's unicodedata knows (Polars may know a newer Unicode: 'Cn' there differs).
@given(st.text(st.characters(exclude_categories=("Cn", "Cs")), max_size=40))
@settings(max_examples=examples(300), deadline=None)
def test_python_and_polars_normalization_agree(text: str) -> None:
    assert pl.Series([text]).to_frame("t").select(normalize_expr("t")).item() == normalize(text)


# ASCII text (most names) takes normalize's short way, without Unicode decomposition: the same keys.
@given(st.text(st.characters(max_codepoint=127), max_size=40))
@settings(max_examples=examples(300), deadline=None)
def test_python_and_polars_normalization_agree_on_ascii(text: str) -> None:
    assert pl.Series([text]).to_frame("t").select(normalize_expr("t")).item() == normalize(text)


@given(st.text(max_size=60))
@settings(max_examples=examples(10_000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_strings_never_crash_the_resolver(sample_db: OracleDB, text: str) -> None:
    if not text.strip():  # an empty name is bad input, as the CLI's `resolve ""` (tests/test_hardening.py)
        with pytest.raises(ValueError, match=r"^text is empty"):
            sample_db.resolve(text)
        return
    result = sample_db.resolve(text)
    assert result.status in ("ok", "ambiguous", "not_found")


# -- CR 201.2 (and Scryfall): a card's full name is that card, whatever faces of other objects share it ---------


def test_a_full_name_beats_other_cards_face_names(tmp_path: Path) -> None:
    """The 2025 commander-legal list writes reversible printings as cards of their own ('Sol Ring // Sol Ring',
    converted by scripts/make_sample.py as it converts the whole list), so the name 'Sol Ring' is one card's full
    name and another object's face name: it is the card whose full name it is (Scryfall's /cards/named answers
    Sol Ring), in both strategies; only equals are ambiguous."""
    from oracle_tools.names.point import PointNames

    fixture = __import__("pathlib").Path(__file__).parent / "fixtures" / "full_name_and_faces.json"
    objects = json.loads(fixture.read_text(encoding="utf-8"))
    whole = {o["name"]: o["oracle_id"] for o in objects}
    db = OracleDB.ingest_files(tmp_path / "faces.duckdb", [fixture])
    try:
        faced = db.sql("SELECT DISTINCT name FROM names WHERE via = 'face' AND name IN ('Sol Ring', 'Forest')")
        assert sorted(faced.get_column("name").to_list()) == ["Forest", "Sol Ring"]  # the data has the collision
        for resolver in (PointNames(db.con), _stored_names(db), db.name_index):
            for name in ("Sol Ring", "Forest", "sol ring"):
                answer = resolver.resolve(name)
                assert (answer.status, answer.oracle_id) == ("ok", whole[name.title()]), (name, answer)
            double = resolver.resolve("Sol Ring // Sol Ring")
            assert double.oracle_id == whole["Sol Ring // Sol Ring"]
        deck = db.check_deck("1 Sol Ring\n1 Forest\n", format="commander")
        assert not [p for p in deck.problems if p.kind == "unknown_card"]
    finally:
        db.close()


def test_a_name_with_a_bidi_override_resolves_by_its_visible_text(tmp_path: Path) -> None:
    """A card object whose name carries a right-to-left override (U+202E … U+202C) resolves by the text a reader
    sees, and a query carrying one resolves too: name keys fold format characters (Cf) out, at ingest and at
    lookup alike (CR 201.2: the name is the words, not invisible controls)."""
    import gzip

    from oracle_tools.store.resources import SAMPLE_DIR

    with gzip.open(SAMPLE_DIR / "cards-2019.json.gz") as f:
        cards = json.load(f)[:40]
    visible = cards[2]["name"]
    cards[2]["name"] = "\u202e" + visible + "\u202c"
    bulk = tmp_path / "bidi-cards.json"
    bulk.write_text(json.dumps(cards), encoding="utf-8")
    db_path = tmp_path / "bidi.duckdb"
    with OracleDB.ingest_files(db_path, [bulk]) as db:
        for query in (visible, visible.upper(), "\u202e" + visible, visible[:3] + "\u202e" + visible[3:]):
            found = db.resolve(query)
            assert found.status == "ok" and found.oracle_id == cards[2]["oracle_id"], query
    result = CliRunner().invoke(main, ["resolve", visible, "--json", "--db", str(db_path)])
    assert json.loads(result.output)["oracle_id"] == cards[2]["oracle_id"]


# -- the kinds of names (via): one table every reader derives from --------------------------------------------


def test_the_kinds_table_and_the_via_type_name_the_same_kinds() -> None:
    from typing import get_args

    from oracle_tools.names import kinds

    assert [k.via for k in kinds.KINDS] == list(dict.fromkeys(k.via for k in kinds.KINDS))  # each kind once
    assert set(get_args(kinds.Via)) == set(kinds.BY_VIA)
    # CR 201.2: the full Oracle name outranks a face's, which outranks the names that are not the card's own
    assert kinds.VIA_TIER["name"] < kinds.VIA_TIER["face"] < kinds.VIA_TIER["interchangeable"]
    assert kinds.VIA_TIER["interchangeable"] < kinds.VIA_TIER["printed"] < kinds.VIA_TIER["former"]
    # "did you mean" offers English names only: never a translation (201.2) or a name the card no longer has
    assert set(kinds.SUGGESTED_VIAS) == {"name", "face", "interchangeable", "flavor"}
    # the sets SQL reads, derived from the rows: the card's own names; its names in the game (CR 201.2, 201.3), best
    # first, as a name in rules text is read; the printed titles an English printed name may repeat (201.6)
    assert kinds.OWN_NAME_LIST == ["face", "name"] and kinds.OWN_NAME_READINGS == {"name", "face", "normalized"}
    assert kinds.IN_GAME_VIAS == ["name", "face", "interchangeable"]
    assert kinds.TITLE_VIAS == ["name", "face", "flavor"]


def test_every_kind_the_names_table_holds_is_in_the_table(sample_db: OracleDB) -> None:
    from oracle_tools.names import kinds

    stored = set(sample_db.sql("SELECT DISTINCT via FROM names").get_column("via"))
    assert {"name", "face", "printed"} <= stored
    assert stored <= {k.via for k in kinds.KINDS if k.tier is not None}, "a kind of name with no tier"
    # the macro the token_catalog view reads the own-name kinds through is the table's
    own = sample_db.sql(
        "SELECT list(via ORDER BY via) AS v FROM (SELECT DISTINCT via FROM names) WHERE own_name_via(via)"
    )
    assert own.item().to_list() == kinds.OWN_NAME_LIST


def test_every_reader_of_the_kinds_derives_from_the_table() -> None:
    # A copy of the list in one reader drifts from the others (a kind worded on one page, not on the other):
    # the resolver, the lookups, the deck check and the pages all read names/kinds.py.
    from oracle_tools.decks import checker
    from oracle_tools.interfaces.serve import pages, web
    from oracle_tools.names import index, kinds, point, resolver

    assert resolver.VIA_TIER is index.VIA_TIER is point.VIA_TIER is kinds.VIA_TIER
    assert resolver.SUGGESTED_VIAS is kinds.SUGGESTED_VIAS
    assert web.VIA_TEXT is kinds.RESOLVED_AS
    assert pages.listed_as is kinds.listed_as
    assert kinds.listed_as("normal", has_faces=False) is kinds.LISTED_AS
    assert checker.DECK_RULES is kinds.DECK_RULES
    assert not hasattr(checker, "_NAME_RULE")
    # every kind a resolution can carry is worded on the page
    assert set(kinds.RESOLVED_AS) == set(kinds.BY_VIA)


def test_a_lookup_strategy_must_implement_every_lookup() -> None:
    # The strategies' contract is the abstract methods of NameResolver: a strategy that forgets one fails when it
    # is made, not at the first name that needs the missing lookup.
    from oracle_tools.names.index import NameIndex
    from oracle_tools.names.point import PointNames
    from oracle_tools.names.resolver import NameResolver

    class OnlyExactNames(NameResolver):
        def lookup(self, text: str) -> None:
            return None

    with pytest.raises(TypeError, match="abstract"):
        OnlyExactNames()  # type: ignore[abstract]
    assert not NameIndex.__abstractmethods__ and not PointNames.__abstractmethods__
    assert not StoredNames.__abstractmethods__


# -- names as pasted: a comma or period glued between two letters is a word break (CR 201.2) ---------------------

GLUED = {
    "Jace,the Mind Sculptor": "Jace, the Mind Sculptor",  # Cockatrice/MTGO exports, pasted decklists
    "jace,the mind sculptor": "Jace, the Mind Sculptor",
    "Thalia,Guardian of Thraben": "Thalia, Guardian of Thraben",
}


def test_a_glued_comma_is_a_word_break_through_every_door(sample_db: OracleDB, monkeypatch: pytest.MonkeyPatch) -> None:
    """'Jace,the Mind Sculptor' folds to 'jacethe mind sculptor', no name's key; read with the comma as a space it is
    Jace, the Mind Sculptor (CR 201.2), by both strategies, both batch paths, the CLI and MCP. The stored keys are
    untouched: a database built before reads it too."""
    from oracle_tools.names import index as index_module
    from oracle_tools.names.point import PointNames

    from oracle_server import mcp_tool_json

    assert all(sample_db.resolve(name).name == name for name in set(GLUED.values()))
    for resolver in (PointNames(sample_db.con), _stored_names(sample_db), sample_db.name_index):
        for typed, name in GLUED.items():
            r = resolver.resolve(typed)
            assert (r.status, r.name, r.via) == ("ok", name, "normalized"), (typed, type(resolver).__name__)
    frame = sample_db.resolve_many([*GLUED, "Jace,the Mind Sculpto"])
    assert frame.get_column("name").to_list() == [*GLUED.values(), None]
    monkeypatch.setattr(index_module, "_JOINED_FROM", 1)  # the vectorised path of large batches
    assert sample_db.resolve_many([*GLUED]).get_column("name").to_list() == list(GLUED.values())
    monkeypatch.undo()
    runner = CliRunner()
    one = runner.invoke(main, ["resolve", "--db", str(sample_db.path), "--json", "--", "Jace,the Mind Sculptor"])
    assert one.exit_code == 0 and json.loads(one.stdout)["name"] == "Jace, the Mind Sculptor"
    batch = runner.invoke(
        main, ["resolve", "--db", str(sample_db.path), "--batch", "-", "--json"], input="\n".join(GLUED)
    )
    assert [row["name"] for row in json.loads(batch.stdout)] == list(GLUED.values())
    assert mcp_tool_json(sample_db, "resolve", {"name": "Jace,the Mind Sculptor"})["name"] == "Jace, the Mind Sculptor"
    answers = mcp_tool_json(sample_db, "resolve_batch", {"names": list(GLUED)})
    assert [row["name"] for row in answers] == list(GLUED.values())
    # fuzzy reads the words the same way: 'jace,the mind' is Jace, the Mind Sculptor's words
    assert sample_db.resolve("jace,the mind", fuzzy=True).name == "Jace, the Mind Sculptor"


def test_marks_between_digits_or_of_the_name_itself_keep_their_answers(sample_db: OracleDB) -> None:
    """The second reading is only for a text that as typed is no name: a comma between digits is part of a number,
    and a name's own glued marks ('B.F.M.', 'Ph.D.') fold away as before; the comma alone or the periods alone are
    read as breaks when both together are not ('Richard Garfield,Ph.D.'). The real names: test_typed_names."""
    from oracle_tools.text.matching import spaced_keys

    assert spaced_keys("Borrowing 100,000 Arrows") == ()
    assert spaced_keys("Ach! Hans, Run!") == () and spaced_keys("Question Elemental?") == ()
    assert spaced_keys("Jace,the Mind Sculptor") == ("jace the mind sculptor",)
    assert "richard garfield phd" in spaced_keys("Richard Garfield,Ph.D.")
    assert normalize("B.F.M. (Big Furry Monster)") == "bfm big furry monster"  # the stored key, unchanged
    assert normalize("Jace,the Mind Sculptor") == "jacethe mind sculptor"
    # a quote mark between the word and the glued comma is no break of its own: the space left out is the same
    assert spaced_keys('Kongming,"Sleeping Dragon"') == ("kongming sleeping dragon",)
    assert spaced_keys("Kongming,“Sleeping Dragon”") == ("kongming sleeping dragon",)
    assert spaced_keys('Henzie "Toolbox",Torre') == ("henzie toolbox torre",)
    assert spaced_keys('"100",000') == ()  # digits: a number
    assert sample_db.resolve('Jace,"the Mind Sculptor"').name == "Jace, the Mind Sculptor"
    r = sample_db.resolve("Question Elemental?")
    assert (r.status, r.name, r.via) == ("ok", "Question Elemental?", "name")


# -- a blank is a word of the name: "_____ Goblin" is no Goblin token (CR 201.2, 111.1) -------------------------

FIXTURES = Path(__file__).parent / "fixtures"
# Unfinity's blank names, Scryfall-shaped from the real 2025 commander-legal list (scripts/make_sample.py's
# trimmed_to_card: synthetic ids and set): a blank at the start, the end, twice, three times, before a dash
BLANK_NAMES = [card["name"] for card in json.loads((FIXTURES / "blank_names.json").read_text(encoding="utf-8"))]


@pytest.fixture(scope="module")
def blank_db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's cards (the Goblin token and Unhinged's "_____" among them), the blank-named cards, and the
    2025 list's "Name Sticker" Goblin and two sticker sheets (sticker_names.json)."""
    from oracle_tools.ingest import sample_dir

    path = tmp_path_factory.mktemp("blanks") / "blanks.duckdb"
    files = [
        *sorted(sample_dir().glob("cards-*.json.gz")),
        FIXTURES / "blank_names.json",
        FIXTURES / "sticker_names.json",
    ]
    OracleDB.ingest_files(path, files).close()
    return path


def _blank_typings() -> dict[str, str]:
    typed = {name: name for name in BLANK_NAMES}
    typed.update({name.upper(): name for name in BLANK_NAMES})
    typed["________ Goblin"] = "_____ Goblin"  # as a real decklist writes it (realdata decks, test_decklist)
    typed["___ goblin"] = "_____ Goblin"
    typed["_____ - o - saurus"] = "_____-o-saurus"
    return typed


def test_a_blank_is_a_word_of_the_name_through_every_door(blank_db_path: Path) -> None:
    """Every blank name is its card by both strategies, batches, deck check, the CLI, MCP and HTTP, however many
    underscores make the blank; the words without the blank are no card's name: "Goblin" is the token's (not a
    card, CR 111.1), never _____ Goblin's."""
    from oracle_tools.names.point import PointNames

    from oracle_server import Server, mcp_tool_json

    typed = _blank_typings()
    with OracleDB(blank_db_path) as db:
        assert db.sql("SELECT count(*) FROM token_names WHERE name = 'Goblin'").item() > 0
        for resolver in (PointNames(db.con), _stored_names(db), db.name_index):
            for text, name in typed.items():
                r = resolver.resolve(text)
                assert (r.status, r.name) == ("ok", name), (text, type(resolver).__name__, r)
            for text in ("Goblin", "Rocketship", "Wizards of the", "o-saurus"):
                assert resolver.resolve(text).status == "not_found", text
            assert resolver.resolve("_____").name == "_____"  # Unhinged's, all blank: its own card
            assert resolver.is_token_name("Goblin") and not resolver.is_token_name("_____ Goblin")
        assert db.resolve_many(list(typed)).get_column("name").to_list() == list(typed.values())
        deck = "".join(f"1 {text}\n" for text in ("_____ Goblin", "________ Goblin", *BLANK_NAMES[:5]))
        report = db.check_deck(deck, format="limited")
        assert not [p for p in report.problems if p.kind == "unknown_card"], report.problems
        assert mcp_tool_json(db, "resolve", {"name": "________ Goblin"})["name"] == "_____ Goblin"
    runner = CliRunner()
    one = runner.invoke(main, ["resolve", "--db", str(blank_db_path), "--json", "--", "_____ goblin"])
    assert one.exit_code == 0 and json.loads(one.stdout)["name"] == "_____ Goblin"
    token = runner.invoke(main, ["resolve", "--db", str(blank_db_path), "--json", "--", "Goblin"])
    assert token.exit_code == 1 and json.loads(token.stdout)["status"] == "not_found"
    server = Server(blank_db_path, "--no-warm")
    try:
        named = server.client.get("/cards/named", params={"exact": "________ Goblin"})
        assert named.status_code == 200 and named.json()["name"] == "_____ Goblin"
        assert server.client.get("/cards/named", params={"exact": "Goblin"}).status_code == 404
        answer = server.client.get("/names/resolve", params={"q": "_____ goblin"}).json()
        assert answer["name"] == "_____ Goblin"
    finally:
        assert "Traceback" not in server.stop()


def test_name_sticker_goblin_is_a_card_of_its_own_not_the_blank(blank_db_path: Path) -> None:
    """'"Name Sticker" Goblin' (a real mtgtop8 Legacy list writes it) is no spelling of _____ Goblin: Scryfall's data
    holds both (the 2025 list), different Oracle cards with different text (the first is Unfinity's MTGO card, its
    d20 roll). CR 201.2: a card's name is its name: each resolves to itself, never to the other, through every
    door, and the quotes of its name are folded away as any mark is."""
    from oracle_tools.names.point import PointNames

    from oracle_server import Server

    sticker, blank = '"Name Sticker" Goblin', "_____ Goblin"
    typed = {sticker: sticker, "“Name Sticker” Goblin": sticker, "name sticker goblin": sticker, blank: blank}
    with OracleDB(blank_db_path) as db:
        for resolver in (PointNames(db.con), _stored_names(db), db.name_index):
            ids = set()
            for text, name in typed.items():
                r = resolver.resolve(text)
                assert (r.status, r.name) == ("ok", name), (text, type(resolver).__name__, r)
                ids.add(r.oracle_id)
            assert len(ids) == 2  # two cards
        assert db.resolve_many(list(typed)).get_column("name").to_list() == list(typed.values())
        report = db.check_deck(f"4 {sticker}\n4 {blank}\n", format="limited")
        assert not [p for p in report.problems if p.kind == "unknown_card"], report.problems
        assert db.search('!"\\"Name Sticker\\" Goblin"').get_column("name").to_list() == [sticker]
    server = Server(blank_db_path, "--no-warm")
    try:
        named = server.client.get("/cards/named", params={"exact": sticker})
        assert named.status_code == 200 and named.json()["name"] == sticker
        found = server.client.post("/cards/collection", json={"identifiers": [{"name": sticker}, {"name": blank}]})
        assert [c["name"] for c in found.json()["data"]] == [sticker, blank]
    finally:
        assert "Traceback" not in server.stop()


def test_a_sticker_sheet_in_a_decklist_is_no_card(blank_db_path: Path) -> None:
    """Scryfall models Unfinity's sticker sheets as cards (layout normal, type line "Stickers", even a Commander
    legality), and real decklists list them in sideboards, as mtgtop8 writes them ('Misunderstood/Trapeze/Elf') or
    with spaces (Melee). CR 123.2: sticker sheets are not cards: the deck check says so, never counts one as a card
    of the deck or sideboard, and never offers one as the card meant."""
    with OracleDB(blank_db_path) as db:
        deck = "1 _____ Goblin\nSideboard\n1 Misunderstood/Trapeze/Elf\n1 Phyrexian Midway Bamboozle\n"
        report = db.check_deck(deck, format="commander", commanders=["_____ Goblin"])
        sheets = [p for p in report.problems if "sticker sheet" in p.detail]
        assert [p.line for p in sheets] == [3, 4], report.problems
        assert all("CR 123.2" in p.detail and "not a card" in p.detail for p in sheets)
        assert "Misunderstood Trapeze Elf" in sheets[0].detail


def test_blank_keys_agree_in_python_and_polars() -> None:
    texts = [*BLANK_NAMES, *_blank_typings(), "_____", "_", "Jace_the_Mind_Sculptor", "a_?", "__ __", "x_ _y"]
    assert pl.Series(texts).to_frame("t").select(normalize_expr("t")).to_series().to_list() == [
        normalize(t) for t in texts
    ]
    assert normalize("_____ Goblin") == normalize("________ Goblin") == "_____ goblin" != normalize("Goblin")
    assert normalize("_____") == "_____" and normalize("Jace_the_Mind_Sculptor") == "jacethemindsculptor"


# -- several Oracle cards printed under one English name (Unstable) ----------------------------------


def test_201_2a_identical_names_are_the_same_name_when_several_cards_print_it(same_name_db_path: Path) -> None:
    """Unstable prints six Oracle cards named Very Cryptic Command: whichever one an object is, its name is that
    name, so two of them have the same name (CR 201.2a) — yes, never "ambiguous" and no."""
    with OracleDB(same_name_db_path) as db:
        assert db.resolve("Very Cryptic Command").status == "ambiguous"  # which card: not known
        assert db.same_name("Very Cryptic Command", "Very Cryptic Command")  # its name: known (201.2a)
        assert db.same_name("very cryptic command", "Very Cryptic Command")
        assert not db.same_name("Very Cryptic Command", "Lightning Bolt")
        assert not db.have_different_names(["Very Cryptic Command", "Very Cryptic Command"])  # 201.2b
        assert db.has_different_name("Lightning Bolt", ["Very Cryptic Command"])  # 201.2c
    runner = CliRunner()
    same = runner.invoke(
        main, ["same-name", "Very Cryptic Command", "very cryptic command", "--db", str(same_name_db_path)]
    )
    assert same.exit_code == 0 and same.output.startswith("same name:"), same.output
    assert "6 Oracle cards are named Very Cryptic Command" in same.output
    answer = runner.invoke(
        main, ["same-name", "Very Cryptic Command", "Very Cryptic Command", "--json", "--db", str(same_name_db_path)]
    )
    assert json.loads(answer.output)["same_name"] is True and json.loads(answer.output)["same_card"] is None
    other = runner.invoke(main, ["same-name", "Very Cryptic Command", "Lightning Bolt", "--db", str(same_name_db_path)])
    assert other.exit_code == 1 and other.output.startswith("different names:"), other.output
    other_json = runner.invoke(
        main, ["same-name", "Very Cryptic Command", "Lightning Bolt", "--json", "--db", str(same_name_db_path)]
    )
    # different names: different cards, whichever of the six is meant
    assert json.loads(other_json.output)["same_card"] is False, other_json.output


def test_the_one_test_of_a_shared_name_every_door_asks() -> None:
    """Resolution.shared_name: the same-name answer, the deck checker, `token` and the HTTP named lookup each
    asked "do these candidates print one name?" their own way (by name, by name and face, by face or name); now all
    ask it. One name and face for all: that name (CR 201.2a); different names or faces, or no ambiguity: None."""
    from oracle_tools.names.resolver import Candidate, Resolution

    spy = [Candidate("Sly Spy", f"oid-{i}", None, "name") for i in range(6)]
    assert Resolution("sly spy", "ambiguous", candidates=tuple(spy)).shared_name == "Sly Spy"
    faced = (Candidate("A // X", "a", "X", "face"), Candidate("A // X", "b", "X", "face"))
    assert Resolution("x", "ambiguous", candidates=faced).shared_name == "X"
    other_card = (Candidate("A // X", "a", "X", "face"), Candidate("B // X", "b", "X", "face"))
    assert Resolution("x", "ambiguous", candidates=other_card).shared_name is None
    foreign = (Candidate("Lightning Bolt", "a", None, "printed"), Candidate("Lightning Strike", "b", None, "printed"))
    assert Resolution("rayo", "ambiguous", candidates=foreign).shared_name is None
    assert Resolution("Sly Spy", "ok", name="Sly Spy", oracle_id="oid-0").shared_name is None


def test_several_cards_of_one_name_are_told_apart_in_the_ambiguous_answer(same_name_db_path: Path) -> None:
    """`resolve` of a name six Oracle cards print stays ambiguous (which card is not known), but says plainly that
    they share the name and tells them apart by oracle_id, never six identical entries."""
    with OracleDB(same_name_db_path) as db:
        oids = {
            oid
            for (oid,) in db.con.execute("SELECT oracle_id FROM cards WHERE name = 'Very Cryptic Command'").fetchall()
        }
        result = db.resolve("Very Cryptic Command")
    assert result.status == "ambiguous" and {c.oracle_id for c in result.candidates} == oids and len(oids) == 6
    message = result.miss_message()
    assert "6 Oracle cards share the name Very Cryptic Command (the same name, CR 201.2a)" in message
    assert all(f"oracle_id {oid}" in message for oid in oids), message
    shown = CliRunner().invoke(main, ["resolve", "Very Cryptic Command", "--db", str(same_name_db_path)])
    assert shown.exit_code == 1 and shown.output.strip() == message
