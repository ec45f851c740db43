"""Analyst views (sql/views.sql): permanent card / spell (CR 110.4), draw vs put into hand (CR 121)."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from oracle_tools import OracleDB
from oracle_tools.store import views

VIEWS = ("card_analytics", "card_faces_flat", "card_legality", "printings_per_card", "nameable_faces")


def _row(db: OracleDB, name: str) -> dict[str, Any]:
    rows = db.sql("SELECT * FROM card_analytics WHERE name = ?", [name]).to_dicts()
    assert len(rows) == 1, (name, rows)
    return rows[0]


def test_views_exist_in_the_database_file(sample_db: OracleDB) -> None:
    present = set(sample_db.views())
    assert set(VIEWS) <= present
    for view in VIEWS:
        assert sample_db.sql(f'SELECT count(*) AS n FROM "{view}"')["n"][0] > 0


def test_an_unknown_frame_lists_every_table_and_view_once(sample_db: OracleDB) -> None:
    """`tables()` lists the views too: the message listed each view twice (tables, then views again)."""
    from oracle_tools.errors import OracleToolsError

    with pytest.raises(OracleToolsError) as unknown:
        sample_db.frame("nope")
    listed = str(unknown.value).split("available: ", 1)[1].split(", ")
    assert sorted(listed) == sorted(set(listed)) == sorted(sample_db.tables())
    assert set(VIEWS) <= set(sample_db.views()) <= set(listed) and "cards" not in sample_db.views()


def test_token_creators_only_with_token_specs(sample_db: OracleDB) -> None:
    has_specs = "token_specs" in sample_db.tables()
    assert ("token_creators" in sample_db.views()) == has_specs
    if has_specs:
        made = sample_db.sql("SELECT token_name FROM token_creators WHERE name = 'Pongify'")["token_name"].to_list()
        assert made == ["Ape Token"]


def test_build_skips_views_whose_layer_is_missing() -> None:
    import duckdb

    from oracle_tools.store import sqlfiles

    con = duckdb.connect()
    con.execute(sqlfiles.load("schema.sql"))
    con.execute(sqlfiles.load("macros.sql"))
    created = views.build(con)
    assert "token_creators" not in created
    assert {"card_analytics", "card_faces_flat", "nameable_faces"} <= set(created)
    con.close()


@pytest.mark.parametrize(
    "name",
    [
        "Ancestral Recall",
        "Brainstorm",
        "Opt",
        "Preordain",
        "Faithless Looting",
        "Treasure Cruise",
        "Sensei's Divining Top",
        "Sylvan Library",
        "Mystic Remora",
        "Fire // Ice",
        "Jace, the Mind Sculptor",
    ],
)
def test_cards_that_draw(sample_db: OracleDB, name: str) -> None:
    row = _row(sample_db, name)
    assert row["draws_cards"] and not row["puts_into_hand"]
    assert row["card_flow"] == "draws"


@pytest.mark.parametrize(
    "name",
    [
        "Demonic Tutor",
        "Impulse",
        "Dark Confidant",
        "Dig Through Time",
        "Stoneforge Mystic",
        "Ad Nauseam",
        "Goblin Guide",
        "Ancient Stirrings",
    ],
)
def test_cards_that_put_into_hand_without_drawing(sample_db: OracleDB, name: str) -> None:
    # CR 121.5: library -> hand without the word "draw" is not drawing.
    row = _row(sample_db, name)
    assert row["puts_into_hand"] and not row["draws_cards"]
    assert row["card_flow"] == "puts_into_hand"


@pytest.mark.parametrize(
    "name",
    [
        "Lightning Bolt",
        "Thoughtseize",
        # tutors to the top of the library move no card into a hand
        "Sylvan Tutor",
        "Vampiric Tutor",
        "Enlightened Tutor",
        "Worldly Tutor",
        "Lim-Dûl's Vault",
        # they refer to drawing (triggers, replacements, prohibitions) but draw nothing (CR 121.6)
        "Smothering Tithe",
        "Words of Worship",
        "Possessed Portal",
        "Mad Ratter",
        "Irencrag Pyromancer",
        "Curse of Fool's Wisdom",
        "Mana Vault",
        # moves a card from exile, not from the library, into the hand
        "Parallel Thoughts",
    ],
)
def test_cards_that_do_neither(sample_db: OracleDB, name: str) -> None:
    row = _row(sample_db, name)
    assert not row["draws_cards"] and not row["puts_into_hand"], row


def test_both_draw_and_tutor(sample_db: OracleDB) -> None:
    # Tamiyo's Journal searches (121.5) and its Clues draw.
    assert _row(sample_db, "Tamiyo's Journal")["card_flow"] == "both"


def test_draw_in_a_card_name_is_not_the_verb() -> None:
    import duckdb

    from oracle_tools.store import sqlfiles
    from oracle_tools.text.oracletext import name_mentions, replace_self_references

    con = duckdb.connect()
    con.execute(sqlfiles.load("schema.sql"))
    views.build(con)

    def draws(text: str, name: str) -> bool:
        # the text as card_analytics reads it: self-references replaced from the name mentions (CR 201.5;
        # the oracle_text_self_replaced table holds the same for every face), lower-cased
        prepared = replace_self_references(text, name_mentions(text, [name])).lower()
        row = con.execute("SELECT draws_cards_text(?)", [prepared]).fetchone()
        assert row is not None  # a scalar query has one row
        return bool(row[0])

    assert draws("Quick Draw cards are fun.", "Quick Draw") is False
    assert draws("Target player draws two cards.", "Quick Draw") is True
    assert draws("Whenever you draw a card, you gain 1 life.", "X") is False
    assert draws("Whenever you draw a card, draw a card.", "X") is True
    assert draws("Each opponent can't draw more than one card each turn.", "X") is False
    assert draws("Reveal the first card you draw each turn.", "X") is False
    assert draws("At the beginning of each player's draw step, that player draws an additional card.", "X") is True
    con.close()


@pytest.mark.parametrize(
    ("name", "permanent_card", "permanent_spell"),
    [
        ("Lightning Bolt", False, False),  # instant
        ("Tarmogoyf", True, True),  # creature
        ("Forest", True, False),  # land: a permanent card, never a spell (110.4b, 305.9)
        ("Dark Depths", True, False),
        ("Sensei's Divining Top", True, True),  # artifact
        ("Fire // Ice", False, False),  # split: instant halves (709.4c)
        ("Bonecrusher Giant // Stomp", True, True),  # adventurer: creature card (715.4); Stomp is not
        ("Akki Lavarunner // Tok-Tok, Volcano Born", True, True),  # flip (710.2)
        ("Brisela, Voice of Nightmares", False, False),  # a meld result is not a card in any library
    ],
)
def test_permanent_card_and_spell(sample_db: OracleDB, name: str, permanent_card: bool, permanent_spell: bool) -> None:
    row = _row(sample_db, name)
    assert (row["is_permanent_card"], row["permanent_spell"]) == (permanent_card, permanent_spell)


def test_modal_dfc_uses_front_face_but_may_cast_either(sample_db: OracleDB) -> None:
    # Sejiri Shelter (instant) // Sejiri Glacier (land): an instant card in the library (712.8a);
    # cast only as the instant (the land face cannot be cast, 305.9).
    row = _row(sample_db, "Sejiri Shelter // Sejiri Glacier")
    assert (row["is_permanent_card"], row["permanent_spell"]) == (False, False)
    # Strength of the Harvest (Aura) // Haven of the Harvest (land): both true.
    row = _row(sample_db, "Strength of the Harvest // Haven of the Harvest")
    assert (row["is_permanent_card"], row["permanent_spell"]) == (True, True)


def test_tokens_are_never_permanent_cards(sample_db: OracleDB) -> None:
    tokens = sample_db.sql("SELECT * FROM card_analytics WHERE object_kind = 'token'")
    assert tokens.height > 0
    assert not tokens["is_permanent_card"].any()


def test_card_faces_flat_lists_faces_in_order(sample_db: OracleDB) -> None:
    row = sample_db.sql("SELECT * FROM card_faces_flat WHERE name = 'Fire // Ice'").to_dicts()[0]
    assert row["face_names"] == ["Fire", "Ice"]
    assert row["face_roles"] == ["split_half", "split_half"]
    assert row["face_count"] == 2
    assert row["all_card_types"] == ["Instant"]
    assert (
        sample_db.sql("SELECT count(*) n FROM card_faces_flat")["n"][0]
        == sample_db.sql("SELECT count(*) n FROM cards")["n"][0]
    )


def test_card_legality(sample_db: OracleDB) -> None:
    bolt = sample_db.sql("SELECT format, status, legal FROM card_legality WHERE name = 'Lightning Bolt'")
    status = dict(zip(bolt["format"], bolt["status"]))
    assert status["modern"] == "legal" and status["standard"] == "not_legal"
    restricted = sample_db.sql("SELECT legal FROM card_legality WHERE name = 'Ancestral Recall' AND format = 'vintage'")
    assert restricted["legal"].to_list() == [True]  # restricted is legal (one copy)


def test_printings_per_card(sample_db: OracleDB) -> None:
    bolt = sample_db.sql("SELECT * FROM printings_per_card WHERE name = 'Lightning Bolt'").to_dicts()[0]
    raw = sample_db.sql("SELECT count(*) n, min(released_at) d FROM printings WHERE name = 'Lightning Bolt'")
    assert bolt["printings"] == raw["n"][0]
    assert bolt["first_released"] == raw["d"][0]
    assert "en" in bolt["languages"] and len(bolt["languages"]) > 1
    assert bolt["set_count"] == len(bolt["sets"])


def test_nameable_faces_follow_cr_201_4(sample_db: OracleDB) -> None:
    fi = sample_db.sql("SELECT name, rule FROM nameable_faces WHERE card_name = 'Fire // Ice' ORDER BY face_index")
    assert fi.rows() == [("Fire", "201.4b"), ("Ice", "201.4b")]
    # never the combined split name, never a token
    assert sample_db.sql("SELECT count(*) n FROM nameable_faces WHERE name = 'Fire // Ice'")["n"][0] == 0
    token_only = sample_db.sql(
        "SELECT count(*) n FROM nameable_faces n JOIN cards c USING (oracle_id) WHERE NOT c.is_card"
    )
    assert token_only["n"][0] == 0
    stomp = sample_db.sql("SELECT rule FROM nameable_faces WHERE name = 'Stomp'")["rule"].to_list()
    assert stomp == ["201.4f"]


def test_lazy_frames(sample_db: OracleDB) -> None:
    lf = sample_db.lazy("card_analytics")
    assert isinstance(lf, pl.LazyFrame)
    drawn = lf.filter(pl.col("draws_cards") & pl.col("is_card")).select("name").collect()
    assert "Brainstorm" in drawn["name"].to_list()
    # two lazy frames of the same database join (each reads through its own cursor)
    joined = (
        sample_db.lazy("card_legality")
        .filter(pl.col("format") == "modern")
        .join(sample_db.lazy("card_analytics").select("oracle_id", "draws_cards"), on="oracle_id")
        .collect()
    )
    assert joined.height == sample_db.sql("SELECT count(*) n FROM legalities WHERE format = 'modern'")["n"][0]
    q = sample_db.lazy(sql="SELECT name, cmc FROM cards WHERE cmc >= ?", params=[10]).collect()
    assert q.height > 0 and (q["cmc"] >= 10).all()


@pytest.mark.realdata
def test_draws_on_the_full_2019_dump(full_db: OracleDB) -> None:
    names = [
        "Divination",
        "Ancestral Recall",
        "Brainstorm",
        "Demonic Tutor",
        "Sylvan Tutor",
        "Impulse",
        "Dark Confidant",
        "Lightning Bolt",
        "Consecrated Sphinx",
        "Gifts Ungiven",
        "Howling Mine",
        "Fact or Fiction",
    ]
    got = {
        r["name"]: r["card_flow"]
        for r in full_db.sql(
            "SELECT name, card_flow FROM card_analytics WHERE name IN (SELECT unnest(?::VARCHAR[]))", [names]
        ).to_dicts()
    }
    assert got == {
        "Divination": "draws",
        "Ancestral Recall": "draws",
        "Brainstorm": "draws",
        "Consecrated Sphinx": "draws",
        "Howling Mine": "draws",
        "Demonic Tutor": "puts_into_hand",
        "Impulse": "puts_into_hand",
        "Dark Confidant": "puts_into_hand",
        "Gifts Ungiven": "puts_into_hand",
        "Fact or Fiction": "puts_into_hand",
        "Sylvan Tutor": "neither",
        "Lightning Bolt": "neither",
    }
