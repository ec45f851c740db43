"""Every layout Scryfall documents, read from an object of its shape (CR 201.4, 709-715, 111).

One row of :data:`oracle_tools.store.layouts.LAYOUTS` per documented layout; for each, an object of that shape
(tests/fixtures/layouts/, README there: real objects where the real files have the layout, objects written
from documented facts where they do not): its card row, its faces and their roles, whether it is a card of
the Oracle reference, which of its names resolve, what "choose a card name" (CR 201.4) and "create a token
named …" (CR 111.11) answer for each name.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB
from oracle_tools.interfaces.cli import main
from oracle_tools.store import layouts, sqlfiles

FIXTURES = Path(__file__).parent / "fixtures"
FILES = [
    FIXTURES / "layouts" / "real-objects.json",
    FIXTURES / "layouts" / "shaped-objects.json",
    FIXTURES / "reversible" / "default-cards-blightsteel-okaun.json",
]

# Scryfall's documented layout values (docs: "Layouts and Faces"), as of this writing.
DOCUMENTED = (
    "normal split flip transform modal_dfc meld leveler class case saga adventure mutate prototype battle "
    "planar scheme vanguard token double_faced_token emblem augment host art_series reversible_card"
).split()

# layout -> the card: name, object kind, its faces (name, role), and for each name it has: (resolves,
# choose-name valid, the 201.4 subrule that decided). A name that is not a card's resolves to nothing.
EXPECTED: dict[str, tuple[str, str, list[tuple[str, str]], dict[str, tuple[bool, bool, str]]]] = {
    "normal": ("Lightning Bolt", "card", [("Lightning Bolt", "single")], {"Lightning Bolt": (True, True, "201.4")}),
    "split": (  # CR 709.4a: a split card's name is one of its halves' names, never both (201.4b)
        "Fire // Ice",
        "card",
        [("Fire", "split_half"), ("Ice", "split_half")],
        {"Fire // Ice": (True, False, "201.4b"), "Fire": (True, True, "201.4b"), "Ice": (True, True, "201.4b")},
    ),
    "aftermath": (  # Scryfall: layout split (CR 709: aftermath halves)
        "Dusk // Dawn",
        "card",
        [("Dusk", "split_half"), ("Dawn", "aftermath_half")],
        {"Dusk // Dawn": (True, False, "201.4b"), "Dusk": (True, True, "201.4b"), "Dawn": (True, True, "201.4b")},
    ),
    "room": (  # Scryfall: layout split (CR 709.5: Rooms are split cards)
        "Bottomless Pool // Locker Room",
        "card",
        [("Bottomless Pool", "split_half"), ("Locker Room", "split_half")],
        {"Bottomless Pool // Locker Room": (True, False, "201.4b"), "Locker Room": (True, True, "201.4b")},
    ),
    "flip": (  # CR 710.1: a normal name and an alternative name, never both (201.4c)
        "Bushi Tenderfoot // Kenzo the Hardhearted",
        "card",
        [("Bushi Tenderfoot", "flip_top"), ("Kenzo the Hardhearted", "flip_bottom")],
        {
            "Bushi Tenderfoot // Kenzo the Hardhearted": (True, False, "201.4c"),
            "Bushi Tenderfoot": (True, True, "201.4"),
            "Kenzo the Hardhearted": (True, True, "201.4c"),
        },
    ),
    "transform": (  # CR 712.19: a double-faced card's name is one face's (201.4d)
        "Delver of Secrets // Insectile Aberration",
        "card",
        [("Delver of Secrets", "front"), ("Insectile Aberration", "back")],
        {
            "Delver of Secrets // Insectile Aberration": (True, False, "201.4d"),
            "Delver of Secrets": (True, True, "201.4"),
            "Insectile Aberration": (True, True, "201.4d"),
        },
    ),
    "modal_dfc": (
        "Razorgrass Ambush // Razorgrass Field",
        "card",
        [("Razorgrass Ambush", "front"), ("Razorgrass Field", "back")],
        {"Razorgrass Ambush // Razorgrass Field": (True, False, "201.4d"), "Razorgrass Field": (True, True, "201.4d")},
    ),
    "battle": (
        "Invasion of Zendikar // Awakened Skyclave",
        "card",
        [("Invasion of Zendikar", "front"), ("Awakened Skyclave", "back")],
        {
            "Invasion of Zendikar // Awakened Skyclave": (True, False, "201.4d"),
            "Invasion of Zendikar": (True, True, "201.4"),
            "Awakened Skyclave": (True, True, "201.4d"),
        },
    ),
    "meld": (  # CR 712.4: each meld part is a card; the meld result is a card of its own (201.4e)
        "Brisela, Voice of Nightmares",
        "card",
        [("Brisela, Voice of Nightmares", "meld_result")],
        {"Brisela, Voice of Nightmares": (True, True, "201.4e"), "Bruna, the Fading Light": (True, True, "201.4")},
    ),
    "adventure": (  # CR 715.2: a normal name and an Adventure name (201.4f)
        "Bonecrusher Giant // Stomp",
        "card",
        [("Bonecrusher Giant", "adventurer"), ("Stomp", "adventure")],
        {"Bonecrusher Giant // Stomp": (True, False, "201.4f"), "Stomp": (True, True, "201.4f")},
    ),
    "leveler": ("Student of Warfare", "card", [("Student of Warfare", "single")], {}),
    "class": ("Barbarian Class", "card", [("Barbarian Class", "single")], {}),
    "case": ("Case of the Locked Hothouse", "card", [("Case of the Locked Hothouse", "single")], {}),
    "saga": ("History of Benalia", "card", [("History of Benalia", "single")], {}),
    "mutate": ("Gemrazer", "card", [("Gemrazer", "single")], {}),
    "prototype": ("Frogmyr Enforcer", "card", [("Frogmyr Enforcer", "single")], {}),
    "augment": ("Half-Kitten, Half-", "card", [("Half-Kitten, Half-", "single")], {}),
    "host": ("Adorable Kitten", "card", [("Adorable Kitten", "single")], {}),
    # not cards of the Oracle reference: no name of theirs resolves or may be chosen (CR 201.4: a card name)
    "planar": ("Celestine Reef", "plane", [("Celestine Reef", "single")], {"Celestine Reef": (False, False, "201.4")}),
    "scheme": ("Imprison This Insolent Wretch", "scheme", [("Imprison This Insolent Wretch", "single")], {}),
    "vanguard": ("Platinum Angel Avatar", "vanguard", [("Platinum Angel Avatar", "single")], {}),
    "token": ("Goblin", "token", [("Goblin", "single")], {"Goblin": (False, False, "201.4")}),
    "double_faced_token": ("Zombie // Zombie", "token", [("Zombie", "front"), ("Zombie", "back")], {}),
    "emblem": ("Ob Nixilis Reignited Emblem", "emblem", [("Ob Nixilis Reignited Emblem", "single")], {}),
    "art_series": (
        "Goldspan Dragon // Goldspan Dragon",
        "art_series",
        [("Goldspan Dragon", "front"), ("Goldspan Dragon", "back")],
        {"Goldspan Dragon": (False, False, "201.4")},
    ),
    # a printing whose sides are each the whole card (tests/test_reversible_cards.py has the rest)
    "reversible_card": ("Blightsteel Colossus", "card", [("Blightsteel Colossus", "single")], {}),
}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OracleDB]:
    built = OracleDB.ingest_files(tmp_path_factory.mktemp("layouts") / "layouts.duckdb", FILES)
    yield built
    built.close()


def test_every_documented_layout_has_a_row_and_a_fixture() -> None:
    assert [row.layout for row in layouts.LAYOUTS] == DOCUMENTED
    kinds = {row.layout: row.object_kind for row in layouts.LAYOUTS}
    assert set(EXPECTED) - {"aftermath", "room"} == set(DOCUMENTED)
    for layout, (_, object_kind, _, _) in EXPECTED.items():
        assert kinds.get(layout, "card") == object_kind, layout


def test_the_sql_names_the_printing_layouts_of_the_table() -> None:
    """build_core, build_printings and names.sql spell the printing-only layout out: the table's only one."""
    assert layouts.PRINTING_LAYOUTS == {"reversible_card"}
    sql_dir = sqlfiles.SQL_DIR
    for name in ("build_core.sql", "build_printings.sql", "names.sql"):
        assert "'reversible_card'" in (sql_dir / name).read_text(), name


@pytest.mark.parametrize("layout", list(EXPECTED))
def test_layout(db: OracleDB, layout: str) -> None:
    card, object_kind, faces, names = EXPECTED[layout]
    rows = db.con.execute(
        "SELECT c.oracle_id, c.object_kind, c.is_card FROM cards c WHERE c.name = ?", [card]
    ).fetchall()
    assert len(rows) == 1, card
    oid, kind, is_card = rows[0]
    assert (kind, is_card) == (object_kind, object_kind == "card")
    got = db.con.execute("SELECT name, role FROM faces WHERE oracle_id = ? ORDER BY face_index", [oid]).fetchall()
    assert got == faces
    for name, (resolves, valid, rule) in {**{card: (is_card, is_card and len(faces) == 1, "201.4")}, **names}.items():
        r = db.resolve(name)
        assert r.ok == resolves, (name, r)
        verdict = db.choose_name(name)
        assert (verdict.valid, verdict.rule) == (valid, rule), (name, verdict.reason)
        token = db.token(name)  # CR 111.11: "create a token that's a copy of / named" a card
        assert (token.kind == "card") == resolves, (name, token.kind)


def test_battle_faces_keep_defense_and_the_front_mana_value(db: OracleDB) -> None:
    """CR 310.4: a battle's defense; CR 202.3b: the back face of a transforming card has the front's mana value."""
    rows = db.con.execute(
        "SELECT name, defense, mana_value FROM faces WHERE name IN ('Invasion of Zendikar', 'Awakened Skyclave') "
        "ORDER BY face_index"
    ).fetchall()
    assert rows == [("Invasion of Zendikar", "3", 4.0), ("Awakened Skyclave", None, 4.0)]


def test_an_alchemy_card_is_its_own_card_and_never_shadows_the_paper_one(db: OracleDB) -> None:
    paper, alchemy = db.resolve("Gemrazer"), db.resolve("A-Gemrazer")
    assert paper.ok and alchemy.ok and paper.oracle_id != alchemy.oracle_id
    assert db.resolve("gemrazer").name == "Gemrazer" and db.resolve("a gemrazer").name == "A-Gemrazer"
    assert db.resolve("Gemrazer", fuzzy=True).name == "Gemrazer"
    assert alchemy.names == ("A-Gemrazer",)  # no 201.3 class with the paper card


def test_is_rebalanced_finds_the_printings_scryfall_marks_rebalanced(db: OracleDB) -> None:
    """Scryfall's ``is:rebalanced``: the printings whose promo_types hold "rebalanced" (Arena's Alchemy
    rebalancing), read from the objects here rather than through the engine."""
    objects = [o for f in FILES for o in json.loads(f.read_text(encoding="utf-8"))]
    expected = sorted({o["name"] for o in objects if "rebalanced" in (o.get("promo_types") or [])})
    assert expected == ["A-Gemrazer"]
    assert db.search("is:rebalanced")["name"].to_list() == expected
    assert "A-Gemrazer" not in db.search("-is:rebalanced t:beast")["name"].to_list()


def test_newer_fields_are_kept(db: OracleDB) -> None:
    rows = db.con.execute(
        "SELECT c.name, c.game_changer, p.finishes, p.security_stamp FROM cards c JOIN printings p USING (oracle_id) "
        "WHERE c.name IN ('Gemrazer', 'Case of the Locked Hothouse', 'Lightning Bolt') ORDER BY c.name"
    ).fetchall()
    assert rows == [
        ("Case of the Locked Hothouse", False, ["nonfoil", "foil"], None),
        ("Gemrazer", False, ["nonfoil", "foil"], "oval"),
        # a 2019 object: no game_changer or stamp (none invented); finishes derived from its nonfoil: true,
        # foil: false, as Scryfall documents the older fields (oracle_tools/scryfall/cardjson.py, build_printings.sql)
        ("Lightning Bolt", None, ["nonfoil"], None),
    ]


def test_an_unknown_layout_loads_with_one_warning_and_info_lists_it(tmp_path: Path) -> None:
    path = tmp_path / "future.duckdb"
    result = CliRunner().invoke(main, ["ingest", "--db", str(path), "--no-progress", "--bulk-file", str(FILES[1])])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: 1 object with layout 'kaleidoscope', which oracle-tools does not know, loaded as cards with the "
        "generic face roles (see oracle_tools/store/layouts.py)"
    ]
    with OracleDB(path) as db:
        assert db.resolve("Prismatic Oddity").ok
        assert db.info()["unknown_layouts"] == {"kaleidoscope": 1}
    info = CliRunner().invoke(main, ["info", "--db", str(path)])
    assert "unknown   kaleidoscope 1" in info.stdout
