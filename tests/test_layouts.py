"""The one table of layout / face-role facts (oracle_tools/store/layouts.py, table ``face_roles``): what a layout means is decided once.

Checked against the embedded sample: every face role the ingest assigns has a row, the rules it cites exist
in the stored Comprehensive Rules, and choose/chooser.py, the ``nameable_faces`` view, ``card_analytics`` and the
token-copy answer all read their facts from it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from oracle_tools import OracleDB
from oracle_tools.choose.chooser import ROLE_RULE
from oracle_tools.store import layouts


def test_table_in_the_database_is_the_module(sample_db: OracleDB) -> None:
    table = sample_db.con.execute("SELECT * FROM face_roles ORDER BY role").fetchall()
    cols = [d[0] for d in sample_db.con.description]
    assert [dict(zip(cols, row, strict=True)) for row in table] == sorted(layouts.rows(), key=lambda r: r["role"])


def test_every_role_the_ingest_assigns_has_a_row(sample_db: OracleDB, tmp_path: Path) -> None:
    roles = {r for (r,) in sample_db.con.execute("SELECT DISTINCT role FROM faces").fetchall()}
    # the sample has no omen card (2025): its roles (CR 720) are assigned on tests/fixtures/omens.json
    fixture = Path(__file__).parent / "fixtures" / "omens.json"
    with OracleDB.ingest_files(tmp_path / "omens.duckdb", [fixture]) as omens:
        roles |= {r for (r,) in omens.con.execute("SELECT DISTINCT role FROM faces").fetchall()}
    assert roles == {r.role for r in layouts.FACE_ROLES}  # and no row for a role that never occurs


def test_roles_come_from_the_layouts_they_name(sample_db: OracleDB) -> None:
    # CR 709 split, 710 flip, 712 meld, 715 adventurer: a role tied to layouts is only ever given by them.
    for r in layouts.FACE_ROLES:
        if not r.layouts:
            continue
        seen = {
            lay
            for (lay,) in sample_db.con.execute("SELECT DISTINCT layout FROM faces WHERE role = ?", [r.role]).fetchall()
        }
        assert seen <= set(r.layouts), r.role


def test_every_cited_rule_is_in_the_stored_comprehensive_rules(sample_db: OracleDB) -> None:
    numbers = {n for (n,) in sample_db.con.execute("SELECT number FROM rules").fetchall()}
    for r in layouts.FACE_ROLES:
        cited = {r.cr_rule, r.name_rule, *re.findall(r"\d{3}\.\d+[a-z]?", r.token_copy_rule)}
        assert cited <= numbers, (r.role, cited - numbers)
    for rule, why in [*layouts.COMBINED_NAME.values(), layouts.COMBINED_NAME_DFC]:
        citation = re.search(r"CR (\d{3}\.\d+[a-z]?)", why)
        assert rule in numbers and citation is not None and citation.group(1) in numbers


def test_name_rules_follow_cr_201_4() -> None:
    # CR 201.4b split half, 201.4c flip alternative name, 201.4d DFC back face, 201.4e meld result,
    # 201.4f Adventure; a normal name (single, front, flip top, adventurer, meld part) is 201.4 itself.
    assert {r.role: r.name_rule for r in layouts.FACE_ROLES if r.name_rule != "201.4"} == {
        "split_half": "201.4b",
        "aftermath_half": "201.4b",
        "flip_bottom": "201.4c",
        "back": "201.4d",
        "meld_result": "201.4e",
        "adventure": "201.4f",
        "omen": "720.5",  # CR 720.5: an omen card's alternative name (201.4 has no subrule for it)
    }
    assert ROLE_RULE == {r.role: r.name_rule for r in layouts.FACE_ROLES}  # the chooser reads the module
    assert layouts.name_rule("no such role") == "201.4"


def test_nameable_faces_reads_the_table(sample_db: OracleDB) -> None:
    # CR 201.4: the view's rule is the face_roles name_rule of each row's role.
    rows = sample_db.con.execute("SELECT role, rule FROM nameable_faces").fetchall()
    assert len(rows) > 2000
    assert all(rule == layouts.name_rule(role) for role, rule in rows)


@pytest.mark.parametrize(
    ("layout", "rule"),
    [
        ("split", "201.4b"),
        ("flip", "201.4c"),
        ("adventure", "201.4f"),
        ("transform", "201.4d"),
        ("modal_dfc", "201.4d"),
    ],
)
def test_combined_name_rule_by_layout(sample_db: OracleDB, layout: str, rule: str) -> None:
    # CR 201.4b-f, 709.4a, 710.1, 712.19, 715.2: a multi-face card's combined name is never chosen.
    assert layouts.combined_name(layout)[0] == rule
    ((name,),) = sample_db.con.execute(
        "SELECT min(name) FROM cards WHERE layout = ? AND is_card AND name LIKE '% // %'", [layout]
    ).fetchall()
    verdict = sample_db.choose_name(name)
    assert not verdict.valid and verdict.rule == rule


def test_alternative_and_normal_characteristics() -> None:
    # CR 710.1b: a flip card's bottom and CR 715.2: an Adventure are alternative characteristics;
    # CR 710.1a / 715.4 / 712.8a: the top, the adventurer and a DFC's front are the normal ones.
    by = {r.role: r for r in layouts.FACE_ROLES}
    # CR 720.2 / 720.4: an Omen is alternative characteristics, the omen card's creature the normal ones.
    assert {role for role, r in by.items() if r.characteristics == "alternative"} == {
        "flip_bottom",
        "adventure",
        "omen",
    }
    assert all(
        by[role].characteristics == "normal" for role in ("single", "front", "flip_top", "adventurer", "omen_card")
    )
    # CR 110.4a: only normal faces and split halves decide what the card is.
    assert {role for role, r in by.items() if r.characteristic_face} == {
        "single",
        "meld_part",
        "front",
        "split_half",
        "aftermath_half",
        "flip_top",
        "adventurer",
        "omen_card",
    }


def test_castable_faces(sample_db: OracleDB) -> None:
    # CR 712.11b: a modal DFC's back face is cast; a transforming DFC's back face is not (712.8c).
    back = layouts.role("back")
    assert back is not None and not back.castable and back.castable_layouts == ("modal_dfc",)
    # CR 110.4b: a modal DFC's castable faces decide; a land face is never cast (305.9).
    spell = dict(
        sample_db.con.execute(
            "SELECT name, permanent_spell FROM card_analytics WHERE name IN (?, ?)",
            ["Pinnacle Monk // Mystic Peak", "Sink into Stupor // Soporific Springs"],
        ).fetchall()
    )
    assert spell == {"Pinnacle Monk // Mystic Peak": True, "Sink into Stupor // Soporific Springs": False}


@pytest.mark.parametrize(
    ("card", "copied"),
    [
        ("Delver of Secrets // Insectile Aberration", "face_up"),  # CR 707.8a, 712.8d
        ("Fire // Ice", "halves_combined"),  # CR 709.4
        ("Akki Lavarunner // Tok-Tok, Volcano Born", "normal_face"),  # CR 710.2
        ("Bonecrusher Giant // Stomp", "normal_face"),  # CR 715.4
        ("Tarmogoyf", "whole_card"),  # CR 111.11, 707.2
    ],
)
def test_token_copy_rule(sample_db: OracleDB, card: str, copied: str) -> None:
    roles = {
        r
        for (r,) in sample_db.con.execute(
            "SELECT f.role FROM faces f JOIN cards c USING (oracle_id) WHERE c.name = ? AND c.is_card", [card]
        ).fetchall()
    }
    assert roles, card
    assert layouts.token_copy(roles) == copied
