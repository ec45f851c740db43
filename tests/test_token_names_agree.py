"""Token names and name mentions agree (one reading of Oracle text for both): ``effect_tokens`` reads the names effects give tokens
(CR 111.4 "… token named X", CR 111.9 "create X, a legendary …") from the same spans as ``name_references``
(kinds ``named`` and ``token_name``), so the two tables cannot disagree.

Checked both ways on the embedded sample (``sample_db``) and on the real 2019 dump + 2024 file + foreign
printings (``full_db``, ``@pytest.mark.realdata``). Which mentions sit in a "token named X" phrase is decided
here with the test's own pattern on the card's Oracle text, not with the code under test.
"""

from __future__ import annotations

import re

import pytest

from oracle_tools import OracleDB

# "… token named X", "… tokens named X", "… token with flying named X" (The Hive) — "named" right after the
# token or its "with …" abilities, outside quoted abilities; not "tokens equal to the number of other creatures
# you control named Hare Apparent" (a count of other objects).
_TOKEN_NAMED_BEFORE = re.compile(r"\btokens? (?:with [^.\"“”]*? )?named $")


def _effect_names(db: OracleDB) -> set[tuple[str, str]]:
    """(creator oracle_id, token name) of every effect_tokens row."""
    return {
        (oid, name)
        for name, oids in db.sql("SELECT name, creator_oracle_ids FROM effect_tokens").iter_rows()
        for oid in oids
    }


def _token_mentions(db: OracleDB) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(oracle_id, text) of the token_name mentions and of the 'named' mentions inside a "token named X" phrase;
    and (oracle_id, text) of every named / token_name mention."""
    rows = db.sql("""
        SELECT r.oracle_id, r.kind, r.start, r.text, f.oracle_text
        FROM name_references r JOIN faces f USING (oracle_id, face_index)
        WHERE r.kind IN ('named', 'token_name')""")
    in_phrase: set[tuple[str, str]] = set()
    every: set[tuple[str, str]] = set()
    for oid, kind, start, text, oracle_text in rows.iter_rows():
        every.add((oid, text))
        sentence_start = max(oracle_text.rfind(". ", 0, start), oracle_text.rfind("\n", 0, start)) + 1
        before = oracle_text[sentence_start:start]
        if kind == "token_name" or (_TOKEN_NAMED_BEFORE.search(before) and re.search(r"\b[Cc]reates?\b", before)):
            in_phrase.add((oid, text))
    return in_phrase, every


def _check(db: OracleDB) -> tuple[int, int]:
    effect = _effect_names(db)
    in_phrase, every = _token_mentions(db)
    # Every name an effect gives a token (CR 111.4 / 111.9) is a name_references span on the creating card.
    assert effect - every == set()
    # And every "create … token named X" / "create X, a legendary …" mention is a token an effect names:
    # the two sets are the same.
    assert in_phrase - effect == set()
    assert effect == in_phrase
    # No token_specs row lost its name for want of a span (the error the tokens layer writes then).
    lost = db.sql("SELECT count(*) FROM token_specs WHERE error LIKE '%not a name mention in name_references%'")
    assert lost.item() == 0
    return len(effect), len(in_phrase)


def test_sample_effect_token_names_are_name_references(sample_db: OracleDB) -> None:
    effect, _ = _check(sample_db)
    # The sample has Dark Depths and Marit Lage's Slumber (111.9) and Ajani, Strength of the Pride (111.4).
    assert effect >= 10
    marit = sample_db.sql("""
        SELECT c.name FROM name_references r JOIN cards c USING (oracle_id)
        WHERE r.kind = 'token_name' AND r.text = 'Marit Lage' ORDER BY c.name""")
    assert marit["name"].to_list() == ["Dark Depths", "Marit Lage's Slumber"]


@pytest.mark.realdata
def test_real_effect_token_names_are_name_references(full_db: OracleDB) -> None:
    effect, _ = _check(full_db)
    assert effect >= 50


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("creator", "name"),
    [
        ("Stangg", "Stangg Twin"),  # "token named Stangg Twin": not the card Stangg (CR 111.4)
        ("Smoke Spirits' Aid", "Smoke Blessing"),  # not the card Smoke
        ("Tolsimir, Friend to Wolves", "Voja, Friend to Elves"),  # CR 111.9 with a comma in the name
        ("Kiora, the Rising Tide", "Scion of the Deep"),  # CR 111.9 with "of the"
        ("Tamiyo, Compleated Sage", "Tamiyo's Notebook"),  # "Create …" at a sentence start; not Tamiyo herself
        ("Mechtitan Core", "Mechtitan"),
    ],
)
def test_real_token_names_read_whole(full_db: OracleDB, creator: str, name: str) -> None:
    text = full_db.sql("SELECT oracle_text FROM cards WHERE name = ?", [creator]).item()
    assert re.search(rf"(?:named {re.escape(name)}\b|[Cc]reate {re.escape(name)}, an? )", text)  # the card says so
    mention = full_db.sql(
        """SELECT r.text, r.kind FROM name_references r JOIN cards c USING (oracle_id)
        WHERE c.name = ? AND r.kind IN ('named', 'token_name')""",
        [creator],
    )
    assert name in mention["text"].to_list()
    effect = full_db.sql("SELECT creators FROM effect_tokens WHERE name = ?", [name])
    assert effect.height == 1 and creator in effect["creators"][0]
