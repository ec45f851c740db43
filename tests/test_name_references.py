"""The name_references table: name mentions in Oracle text, CR 201.5 / 201.5c, on real data."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB
from oracle_tools.errors import OracleToolsError
from oracle_tools.interfaces.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "shortened_names_sample.csv"


@pytest.fixture(scope="module")
def real_db(ingest_steps: dict[str, Path]) -> Iterator[OracleDB]:
    """The 2019 default-cards dump + the 2024 Scryfall file (built once per session, tests/conftest.py)."""
    db = OracleDB(ingest_steps["second"])
    yield db
    db.close()


@pytest.mark.realdata
def test_every_own_full_name_occurrence_is_a_self_row(real_db: OracleDB) -> None:
    # CR 201.5: every occurrence of a face's own name (or its card's full name) in its text is a mention — `self`,
    # or `named` when the text says "named <its name>" (Relentless Rats). Counted here independently, by regex.
    faces = real_db.con.execute("""
        SELECT f.oracle_id, f.face_index, f.name, c.name, f.oracle_text FROM faces f JOIN cards c USING (oracle_id)
        WHERE c.is_card AND f.oracle_text IS NOT NULL""").fetchall()
    found = {
        (o, i, s)
        for o, i, s in real_db.con.execute(
            "SELECT oracle_id, face_index, start FROM name_references WHERE kind IN ('self', 'named')"
        ).fetchall()
    }
    # An own name inside another name mentioned as "named X" is not this object: "Kher Keep" in "token named
    # Kobolds of Kher Keep" (Kher Keep), "Kookus" in "a creature named Keeper of Kookus" (Kookus).
    named_spans: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for o, i, s, e in real_db.con.execute(
        "SELECT oracle_id, face_index, start, \"end\" FROM name_references WHERE kind = 'named'"
    ).fetchall():
        named_spans.setdefault((o, i), []).append((s, e))
    checked = missing = inside_named = 0
    for oracle_id, face_index, face_name, card_name, text in faces:
        for own in {face_name, card_name}:
            for m in re.finditer(rf"(?<![\w-]){re.escape(own)}(?![\w-])", text):
                if any(s < m.start() and m.end() <= e for s, e in named_spans.get((oracle_id, face_index), [])):
                    inside_named += 1
                    continue
                checked += 1
                missing += (oracle_id, face_index, m.start()) not in found
    assert checked > 5000  # thousands of cards say their own name ("When Llanowar Elves enters ...")
    assert missing == 0
    assert inside_named == 2  # exactly the two cards above in the 2019 + 2024 data


@pytest.mark.realdata
def test_shortened_names_hand_checked_sample(real_db: OracleDB) -> None:
    # CR 201.5c: the 100 cards of the fixture were checked by reading their Oracle text; the count is how many
    # times the text uses the part of the name before the comma for the card itself (0 = never, with why).
    rows = list(csv.DictReader(FIXTURE.open(encoding="utf-8")))
    assert len(rows) == 100 and all(r["why"] for r in rows)
    got = dict(
        real_db.con.execute(
            """
        SELECT c.name, count(r.kind) FILTER (WHERE r.kind = 'self_short')
        FROM cards c LEFT JOIN name_references r USING (oracle_id) WHERE c.name IN (SELECT unnest(?::VARCHAR[]))
        GROUP BY c.name""",
            [[r["card"] for r in rows]],
        ).fetchall()
    )
    wrong = {
        r["card"]: (got.get(r["card"]), int(r["self_short_count"]))
        for r in rows
        if got.get(r["card"]) != int(r["self_short_count"])
    }
    assert wrong == {}


@pytest.mark.realdata
def test_shortened_names_on_named_legends(real_db: OracleDB) -> None:
    refs = real_db.references("Etrata, the Silencer")
    assert [(r["kind"], r["text"]) for r in refs["own_text"]] == [
        ("self", "Etrata, the Silencer"),
        ("self_short", "Etrata"),
        ("self_short", "Etrata"),
        ("self_short", "Etrata"),
    ]
    # Every self_short row is a legendary face whose name has a comma, and its text is the part before the comma.
    bad = real_db.con.execute("""
        SELECT r.text, f.name FROM name_references r JOIN faces f USING (oracle_id, face_index)
        WHERE r.kind = 'self_short' AND (f.type_line NOT LIKE '%Legendary%' OR split_part(f.name, ', ', 1) <> r.text)
        """).fetchall()
    assert bad == []


@pytest.mark.realdata
def test_every_named_mention_of_a_real_card_resolves_to_it(real_db: OracleDB) -> None:
    # A `named X` mention whose X is a card name (as written) resolves to that card; spans are exact.
    rows = real_db.con.execute("""
        SELECT r.text, r.target_name, c.name IS NOT NULL AS is_card_name,
               substr(f.oracle_text, r.start + 1, r."end" - r.start) AS span_text
        FROM name_references r JOIN faces f USING (oracle_id, face_index)
        LEFT JOIN cards c ON c.name = r.text AND c.is_card
        WHERE r.kind = 'named'""").fetchall()
    assert len(rows) > 150
    assert all(span == text for text, _, _, span in rows)
    unresolved = [text for text, target, is_card, _ in rows if is_card and target != text]
    assert unresolved == []
    # Gisela's text names Bruna (a meld pair, CR 712.5a): both directions of `refs`.
    bruna = real_db.references("Bruna, the Fading Light")
    assert [r["card_name"] for r in bruna["named_by"]] == ["Gisela, the Broken Blade"]
    gisela = real_db.references("Gisela, the Broken Blade")
    assert ("named", "Bruna, the Fading Light") in [(r["kind"], r["target_name"]) for r in gisela["own_text"]]


@pytest.mark.realdata
def test_partner_with_and_meld_texts_name_the_other_card(real_db: OracleDB) -> None:
    # "Partner with X" means "... search their library for a card named X" (CR 702.124j); a meld card's reminder
    # text "(Melds with X.)" and its "meld them into X" (CR 701.42a, 712.4a) name the other card and the melded
    # result. Each is a `named` mention of that card, so `refs` lists both directions. Counted here by regex.
    phrase = re.compile(r"(?:Partner with|[Mm]elds with|meld them into) (?P<rest>[^.(\n]+)")
    faces = real_db.con.execute(
        "SELECT f.oracle_id, f.face_index, f.oracle_text FROM faces f JOIN cards c USING (oracle_id) "
        "WHERE c.is_card AND regexp_matches(f.oracle_text, '(Partner with|[Mm]elds with|meld them into) ')"
    ).fetchall()
    named = {
        (o, i, s): t
        for o, i, s, t in real_db.con.execute(
            "SELECT oracle_id, face_index, start, target_name FROM name_references WHERE kind = 'named'"
        ).fetchall()
    }
    card_names = {n for (n,) in real_db.con.execute("SELECT name FROM cards WHERE is_card").fetchall()}
    checked = 0
    for oracle_id, face_index, text in faces:
        for m in phrase.finditer(text):
            written = m.group("rest").strip()
            if written not in card_names:  # "Partner with Amy Pond (When this creature enters, …)": up to the name
                written = max((n for n in card_names if written.startswith(n)), key=len, default=written)
            checked += 1
            assert named.get((oracle_id, face_index, m.start("rest"))) == written, (text, written)
    assert checked >= 25  # Battlebond's partners and the meld pairs of Eldritch Moon in the 2019 + 2024 data
    bruna = real_db.references("Bruna, the Fading Light")
    assert ("named", "Gisela, the Broken Blade") in [(r["kind"], r["target_name"]) for r in bruna["own_text"]]
    brisela = real_db.references("Brisela, Voice of Nightmares")
    assert [r["card_name"] for r in brisela["named_by"]] == ["Gisela, the Broken Blade"]


@pytest.mark.realdata
def test_relentless_rats_names_itself_but_is_not_a_self_reference(real_db: OracleDB) -> None:
    rats = real_db.references("Relentless Rats")
    assert [r["kind"] for r in rats["own_text"]] == ["self", "named", "named"]
    # its own two "named Relentless Rats" mentions are listed once, under its text, not again as "named by"
    assert rats["named_by"] == []


@pytest.mark.realdata
def test_refs_cli_json_and_text(real_db: OracleDB) -> None:
    env = {"ORACLE_TOOLS_DB": str(real_db.path)}
    real_db.close()
    result = CliRunner(env=env).invoke(main, ["refs", "Dark Depths", "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert ("token_name", "Marit Lage") in [(r["kind"], r["text"]) for r in answer["own_text"]]
    result = CliRunner(env=env).invoke(main, ["refs", "Not A Card At All"])
    assert result.exit_code != 0 and result.output.startswith("error: ") and "Traceback" not in result.output


def test_unknown_name_is_one_clear_error(sample_db: OracleDB) -> None:
    with pytest.raises(OracleToolsError) as raised:
        sample_db.references("Nonexistent Card Name Xyzzy")
    assert str(raised.value) == "'Nonexistent Card Name Xyzzy' is not a card name. No card name is close to it."
    with pytest.raises(OracleToolsError, match=r"^'Tarmogoyff' is not a card name\. Did you mean 'Tarmogoyf'"):
        sample_db.references("Tarmogoyff")


@pytest.mark.realdata
def test_cardname_form_comes_from_the_mentions(real_db: OracleDB) -> None:
    # Every self / self_short span is replaced, nothing else: Relentless Rats keeps "named Relentless Rats".
    rows = dict(
        real_db.con.execute("""
        SELECT c.name, s.text_tilde FROM oracle_text_self_replaced s JOIN cards c USING (oracle_id)
        WHERE c.name IN ('Relentless Rats', 'Etrata, the Silencer')""").fetchall()
    )
    assert rows["Relentless Rats"].startswith(
        "~ gets +1/+1 for each other creature on the battlefield named Relentless Rats."
    )
    assert rows["Etrata, the Silencer"].endswith("~'s owner shuffles ~ into their library.")
    # Length check on every face: replacing n self spans of total length L by "~" shortens the text by L - n.
    bad = real_db.con.execute("""
        SELECT count(*) FROM oracle_text_self_replaced s JOIN faces f USING (oracle_id, face_index)
        LEFT JOIN (SELECT oracle_id, face_index, sum("end" - start - 1) AS shrink FROM name_references
                   WHERE kind IN ('self', 'self_short') GROUP BY ALL) r USING (oracle_id, face_index)
        WHERE length(f.oracle_text) - coalesce(r.shrink, 0) <> length(s.text_tilde)""").fetchall()[0][0]
    assert bad == 0


@pytest.mark.realdata
def test_choose_name_and_nameable_faces_agree_on_every_row(real_db: OracleDB) -> None:
    # CR 201.4b-f: the nameable_faces view (views.sql) and choose/chooser.py must give the same subrule for every name a
    # player may choose; both read the face roles, so a change to one without the other fails here.
    rows = real_db.con.execute("SELECT name, rule FROM nameable_faces").fetchall()
    assert len(rows) > 20000
    assert {rule for _, rule in rows} == {"201.4", "201.4b", "201.4c", "201.4d", "201.4e", "201.4f"}
    disagree = [
        (name, rule, v.valid, v.rule)
        for name, rule in rows
        if not (v := real_db.choose_name(name)).valid or v.rule != rule
    ]
    assert disagree == []


@pytest.mark.realdata
def test_every_face_with_text_gets_its_cardname_form_from_the_mentions(real_db: OracleDB) -> None:
    # Self-references are substituted in one place, so every reader sees the same text. Every face with Oracle text — tokens and
    # vanguards name themselves too (CR 201.5) — has an oracle_text_self_replaced row built from its mentions.
    missing = real_db.con.execute("""
        SELECT count(*) FROM faces f LEFT JOIN oracle_text_self_replaced s USING (oracle_id, face_index)
        WHERE f.oracle_text <> '' AND s.oracle_id IS NULL""").fetchall()[0][0]
    assert missing == 0
    rows = real_db.con.execute("""
        SELECT c.name, s.text_tilde, count(r.kind) FROM cards c JOIN oracle_text_self_replaced s USING (oracle_id)
        JOIN name_references r USING (oracle_id, face_index)
        WHERE c.object_kind = 'token' AND c.name = 'Minotaur Goreseeker' AND r.kind = 'self' GROUP BY ALL""").fetchall()
    assert rows == [("Minotaur Goreseeker", "Haste\n~ attacks each turn if able.", 1)]
    # card_analytics reads that text: the draw classifier sees CARDNAME, never the raw name
    assert (
        "text_for_analysis"
        not in real_db.con.execute("SELECT sql FROM duckdb_views() WHERE view_name = 'card_analytics'").fetchall()[0][0]
    )


@pytest.mark.realdata
def test_faces_the_prefilter_skips_have_no_mention(real_db: OracleDB) -> None:
    # To build fast, references.build reads only the faces where a trigger of name_mentions occurs (CR 201.5 own names,
    # 201.5c shortened names, 111.9 given names, "named X"). Every skipped real face, read in full, has none.
    from oracle_tools.names import references
    from oracle_tools.text import vocabulary
    from oracle_tools.text.oracletext import MentionIndex, name_mentions

    known = MentionIndex(name for (name,) in real_db.con.execute("SELECT DISTINCT name FROM names").fetchall())
    subtypes = [*vocabulary.subtypes("land"), *vocabulary.subtypes("planeswalker")]
    faces = real_db.con.execute(references._FACES).fetchall()
    skipped = [f for f in faces if not f[-1]]
    assert len(skipped) > 5000  # about half of the ~20k faces say no name at all
    found = [
        (face_name, mentions)
        for _oid, _idx, face_name, card_name, type_line, text, others, _ in skipped
        if (
            mentions := name_mentions(
                text,
                [face_name, card_name],
                type_line=type_line,
                names=known,
                subtypes=subtypes,
                other_names=others or (),
            )
        )
    ]
    assert found == []
