"""Reading "create … token" clauses through the Oracle-text layer (one reader of Oracle text for every feature): where a clause sits (rules text,
reminder text CR 207.2, a quoted ability CR 113.1) comes from ``oracletext.segments`` / ``sources``, and a copy
of the card itself (CR 707.2) is recognised with ``oracletext.refers_to_self`` (CR 201.5, 201.5c).

Texts are the real Oracle text of cards in the embedded sample (``sample_db``).
"""

from __future__ import annotations

import polars as pl
import pytest

from oracle_tools import OracleDB
from oracle_tools.text import comprules, oracletext, tokentext
from oracle_tools.tokens import build as tokens


def _text(db: OracleDB, name: str) -> str:
    return db.sql("SELECT oracle_text FROM cards WHERE name = ?", [name]).item()


def _source_of(text: str, phrase: str) -> str:
    return oracletext.sources(text)[text.index(phrase)]


def test_segments_cover_the_text_and_name_each_source(sample_db: OracleDB) -> None:
    # Angel of Sanctions: embalm's reminder text creates the token (CR 702.128a, reminder text CR 207.2).
    angel = _text(sample_db, "Angel of Sanctions")
    segs = oracletext.segments(angel)
    assert "".join(s.text for s in segs) == angel and all(angel[s.start : s.end] == s.text for s in segs)
    assert [s.source for s in segs if "Create a token" in s.text] == ["reminder"]
    assert _source_of(angel, "When Angel of Sanctions enters") == "text"
    # Splinter Twin: the clause is inside the quoted ability the Aura grants (CR 113.1).
    twin = _text(sample_db, "Splinter Twin")
    assert _source_of(twin, "Create a token") == "quoted" and _source_of(twin, "Enchanted creature") == "text"


def test_sources_never_raise_on_an_unclosed_quote() -> None:
    # Reading card text never fails; the strict quote_mask (token phrases) still refuses it.
    broken = 'Enchanted creature has "{T}: Create a 1/1 token'
    assert oracletext.sources(broken)[-1] == "quoted"
    with pytest.raises(ValueError, match="unbalanced quotation marks"):
        oracletext.quote_mask(broken)


def test_clauses_carry_their_source_and_span(sample_db: OracleDB) -> None:
    dark = _text(sample_db, "Dark Depths")
    (clause,) = tokens._create_clauses(dark)
    assert clause.source == "text" and clause.start is not None and clause.end is not None
    assert dark[clause.start : clause.end] == clause.text  # the span the name_references rows are matched in
    assert clause.text.startswith("Marit Lage, a legendary 20/20 black Avatar creature token")


@pytest.mark.parametrize(
    ("phrase", "this_object", "expected"),
    [
        ("this creature", True, True),  # "[this object]" (CR 603.6a)
        ("this Vehicle", True, True),  # a subtype word (CR 205.3g) — derived from the CR, not a list here
        ("this creature", False, False),  # inside a granted ability: whatever has it (Splinter Twin)
        ("target creature", True, False),
        ("this turn", True, False),
        ("CARDNAME", True, True),
        ("~", False, True),
    ],
)
def test_refers_to_self_phrases(phrase: str, this_object: bool, expected: bool) -> None:
    assert oracletext.refers_to_self(phrase, ["Polyraptor"], this_object=this_object) is expected


def test_refers_to_self_by_name(sample_db: OracleDB) -> None:
    # CR 201.5: the card's own name; CR 201.5c: a legendary card's shortened name, never a non-legendary's.
    legendary = "Legendary Planeswalker — Jace"
    assert oracletext.refers_to_self("Jace, Cunning Castaway", ["Jace, Cunning Castaway"], type_line=legendary)
    assert oracletext.refers_to_self("Jace", ["Jace, Cunning Castaway"], type_line=legendary)
    assert not oracletext.refers_to_self("Jace", ["Jace, Cunning Castaway"], type_line="Planeswalker — Jace")
    assert not oracletext.refers_to_self("Jace, Vryn's Prodigy", ["Jace, Cunning Castaway"], type_line=legendary)


def test_copies_of_the_card_itself(sample_db: OracleDB) -> None:
    # CR 707.2: a token copy of the card has the card's name — by its name (Jace, Cunning Castaway; Polyraptor),
    # by "this creature" (Herald of the Host), by "it" in reminder text (embalm); not in a granted ability.
    copies = sample_db.token_specs().filter(pl.col("rule") == "707.2")
    named = {r["creator_name"]: (r["copy_of"], r["name"]) for r in copies.iter_rows(named=True)}
    for card, said in [
        ("Jace, Cunning Castaway", "Jace, Cunning Castaway"),
        ("Polyraptor", "Polyraptor"),
        ("Herald of the Host", "this creature"),
        ("Angel of Sanctions", "it"),
    ]:
        assert said in _text(sample_db, card) or said == "it"
        assert named[card] == (said, card)
    assert named["Splinter Twin"] == ("this creature", None)


def test_the_token_phrase_grammar_has_one_home() -> None:
    # comprules parses the CR document only; the phrase grammar is tokentext's, re-exported nowhere.
    for name in ("parse_token_description", "TokenDescription", "default_token_name", "COLOR_LETTERS"):
        assert not hasattr(comprules, name) or getattr(comprules, name) is getattr(tokentext, name, None)
        assert name not in comprules.__all__
    assert tokens.parse_token_description is tokentext.parse_token_description
