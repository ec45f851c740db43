"""Deck construction and names at the edges of the Comprehensive Rules (2026-01-16), asked through every door:
meld results and back faces (CR 712.4b, 712.8a), sticker sheets (123.2), omens (720), token copies (707.2,
111.10r). The cards are real objects of ../shared/realdata (tests/fixtures/layouts/real-objects.json,
tests/fixtures/sticker_names.json) and Scryfall-shaped objects written from documented facts
(tests/fixtures/omens.json)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB

FIXTURES = Path(__file__).parent / "fixtures"
# omens.json: Stormshriek Feral // Flush Out and Scavenger Regent // Exude Toxin (Tarkir: Dragonstorm, 2025) written in
# Scryfall's shape for omen cards (layout "adventure", as Scryfall labels them) from the real 2025 trimmed list's
# faces (../shared/realdata/scryfall-commander-legal-trimmed-20250925.json.gz); ids, oracle_ids (uuid5) and
# collector numbers are made up. token_copies.json: the real 2019 objects of Tarmogoyf and of cards that make token
# copies (Mirror March, Cackling Counterpart, Rite of Replication, Kiki-Jiki) or copy themselves (Adorned Pouncer).
FILES = [
    FIXTURES / "layouts" / "real-objects.json",
    FIXTURES / "sticker_names.json",
    FIXTURES / "omens.json",
    FIXTURES / "token_copies.json",
]


@pytest.fixture(scope="module")
def edges_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("edges") / "edges.duckdb"
    OracleDB.ingest_files(path, FILES).close()
    return path


@pytest.fixture(scope="module")
def edges(edges_path: Path) -> Iterator[OracleDB]:
    with OracleDB(edges_path) as db:
        yield db


def cli(path: Path, *args: str, stdin: str | None = None) -> Any:
    from oracle_tools.interfaces.cli import main

    done = CliRunner().invoke(main, [*args, "--db", str(path), "--json"], input=stdin)
    assert done.exit_code in (0, 1), (done.stdout, done.stderr)
    return json.loads(done.stdout)


def http(path: Path, method: str, url: str, **kwargs: Any) -> Any:
    from starlette.testclient import TestClient

    from oracle_tools.interfaces.serve.app import create_app

    with TestClient(create_app(path, warm=False)) as client:
        return client.request(method, url, **kwargs)


def mcp(path: Path, tool: str, arguments: dict[str, Any]) -> Any:
    from oracle_tools.interfaces.mcp_server import build_server

    async def call() -> Any:
        with OracleDB(path) as db:
            return await build_server(db).call_tool(tool, arguments)

    result = anyio.run(call)
    content = result.content if hasattr(result, "content") else result[0]
    return json.loads(content[0].text)


def one_deck(answer: Any) -> dict[str, Any]:
    """The one deck of a deck check's JSON answer (a list, or an object with ``decks``, or the deck)."""
    if isinstance(answer, list):
        return one_deck(answer[0])
    return one_deck(answer["decks"]) if "decks" in answer else dict(answer)


# -- CR 712.4b / 712.8a: a meld result is no card; a back face names its card -----------------------

MELD_DECK = "4 Delver of Secrets\n1 Brisela, Voice of Nightmares\n3 Insectile Aberration\n1 Bruna, the Fading Light\n"


def test_712_4b_a_meld_result_is_no_card_of_a_deck(edges: OracleDB, edges_path: Path) -> None:
    """CR 712.4b: "The back faces of a meld pair are used only to determine the characteristics of the melded
    permanent": Brisela is printed on the backs of Bruna and Gisela and no deck holds it, as a card or as the
    commander. CR 712.8a: a transforming card's back face written alone names the card (counted as it)."""
    report = edges.check_deck(MELD_DECK, format="legacy")
    meld = [p for p in report.problems if p.card == "Brisela, Voice of Nightmares"]
    assert [(p.kind, p.line) for p in meld] == [("unknown_card", 2)], report.problems
    assert "melded back face of Bruna, the Fading Light and Gisela, the Broken Blade" in meld[0].detail
    assert "not a card (CR 712.4b)" in meld[0].detail
    back = [n for n in report.notes if "Insectile Aberration" in n]
    assert back == [
        "line 3: 'Insectile Aberration' is the back face of Delver of Secrets: counted as Delver of Secrets (CR 712.8a)"
    ]
    delver = [p for p in report.problems if p.kind == "too_many_copies"]
    assert delver and "7 copies" in delver[0].detail  # 4 + 3: one card
    # as the commander (CR 903.3: a commander is a card)
    cmd = edges.check_deck("1 Island\n", format="commander", commanders=["Brisela, Voice of Nightmares"])
    assert any(p.kind == "commander" and "CR 712.4b" in p.detail for p in cmd.problems), cmd.problems
    # the same answer through the CLI, HTTP and MCP
    answers = [
        cli(edges_path, "deck", "check", "-", "--format", "legacy", stdin=MELD_DECK),
        http(edges_path, "POST", "/decks/check", params={"format": "legacy"}, content=MELD_DECK.encode()).json(),
        mcp(edges_path, "check_deck", {"decklist": MELD_DECK, "format": "legacy"}),
    ]
    for answer in map(one_deck, answers):
        assert [p["detail"] for p in answer["problems"] if p["card"] == "Brisela, Voice of Nightmares"] == [
            meld[0].detail
        ]
        assert back[0] in answer["notes"]


def test_712_resolve_says_what_a_meld_result_and_a_back_face_are(edges: OracleDB, edges_path: Path) -> None:
    """resolve names the card and says what the name is: a meld result no card (CR 712.4b), a back face its
    card's (712.8a); the CLI's and the HTTP API's answers carry the same note."""
    meld = edges.resolve("Brisela, Voice of Nightmares")
    assert meld.note == (
        "the melded back face of Bruna, the Fading Light and Gisela, the Broken Blade; not a card (CR 712.4b): "
        "only its meld cards can be in a deck"
    )
    back = edges.resolve("insectile aberration")
    assert back.note == "the back face of Delver of Secrets: counted as Delver of Secrets (CR 712.8a)"
    assert edges.resolve("Delver of Secrets").note is None and edges.resolve("Bruna, the Fading Light").note is None
    from oracle_tools.names.point import PointNames

    for text, note in (("Brisela, Voice of Nightmares", meld.note), ("Insectile Aberration", back.note)):
        # both strategies of the one resolve (point queries, the name index) say it
        assert PointNames(edges.con).resolve(text).note == edges.name_index.resolve(text).note == note
    assert cli(edges_path, "resolve", "Brisela, Voice of Nightmares")["note"] == meld.note
    answer = http(edges_path, "GET", "/names/resolve", params={"q": "Insectile Aberration"}).json()
    assert answer["note"] == back.note, answer
    page = http(edges_path, "GET", "/", params={"q": "Brisela, Voice of Nightmares"}).text  # the web page
    assert f'<p class="muted" id="resolved-note">note: {meld.note}</p>' in page
    deck_page = http(edges_path, "GET", "/", params={"deck": MELD_DECK, "format": "legacy"}).text
    assert "melded back face of Bruna, the Fading Light and Gisela, the Broken Blade" in deck_page
    assert "is the back face of Delver of Secrets: counted as Delver of Secrets (CR 712.8a)" in deck_page


# -- CR 123.2: a sticker sheet is no card, so its name is no card name to choose ---------------------

SHEET = "Misunderstood Trapeze Elf"  # a real Unfinity sticker sheet (type line "Stickers")


def test_123_2_a_sticker_sheet_is_no_name_to_choose(edges: OracleDB, edges_path: Path) -> None:
    """CR 123.2: "Sticker sheets are not cards and have no characteristics": choose-name refuses a sheet's name
    (the deck check's own test, layouts.is_sticker_sheet) and never lists one among the nameable names."""
    verdict = edges.choose_name(SHEET)
    assert (verdict.valid, verdict.rule) == (False, "123.2")
    assert "sticker sheet" in verdict.reason and "CR 123.2" in verdict.reason
    assert not edges.choose_name("misunderstood trapeze elf", "nonland").valid
    assert SHEET not in edges.nameable().get_column("name").to_list()
    assert '"Name Sticker" Goblin' in edges.nameable().get_column("name").to_list()  # a card, with "Sticker" in it
    assert edges.choose_name("Lightning Bolt").valid
    for answer in (
        cli(edges_path, "choose-name", SHEET),
        http(edges_path, "GET", "/choose-name", params={"name": SHEET}).json(),
        mcp(edges_path, "choose_name", {"name": SHEET}),
    ):
        assert (answer["valid"], answer["rule"], answer["reason"]) == (False, "123.2", verdict.reason), answer


def test_111_10r_a_predefined_tokens_given_name_is_said_to_be_one(edges: OracleDB, edges_path: Path) -> None:
    """CR 111.10r: "A Young Hero Role token is ... named Young Hero": choose-name refuses the name and says why
    (a token's name may be chosen only if it is also a card's, 201.4), as it says of "Treasure" (111.10a)."""
    verdict = edges.choose_name("Young Hero")
    assert not verdict.valid
    assert "predefined token: the Young Hero Role token is named Young Hero (CR 111.10r)" in verdict.reason
    assert "a predefined token (CR 111.10)" in edges.choose_name("Treasure").reason
    assert cli(edges_path, "choose-name", "young hero")["reason"].endswith(verdict.reason.split("”", 1)[1])


def test_114_5_an_emblem_in_a_decklist_is_said_to_be_an_emblem_not_a_token(edges: OracleDB) -> None:
    """CR 114.5: "An emblem is neither a card nor a permanent. Emblem isn't a card type." An emblem written in a list
    is no card of the deck, and what it is is said: an emblem, not a token (a token represents a permanent, 111.1)."""
    report = edges.check_deck("1 Ob Nixilis Reignited Emblem\n1 Goblin\n", format="legacy")
    [emblem, goblin] = [p for p in report.problems if p.kind == "unknown_card"]
    assert (emblem.card, emblem.line) == ("Ob Nixilis Reignited Emblem", 1)
    assert "is an emblem, not a card" in emblem.detail and "(CR 114.5)" in emblem.detail
    assert "token" not in emblem.detail
    assert (goblin.card, goblin.line) == ("Goblin", 2) and "is a token, not a card" in goblin.detail


# -- CR 720: omen cards ----------------------------------------------------------------------------


def test_720_4_an_omen_cards_name_is_its_normal_name_only(edges: OracleDB, edges_path: Path) -> None:
    """CR 720.4: "In every zone except the stack, and while on the stack not as an Omen, an omen card has only its
    normal characteristics": Stormshriek Feral and Flush Out are different names (201.2a), as an adventurer's are
    (715.4); the faces have the omen roles of store/layouts.py."""
    assert not edges.same_name("Stormshriek Feral", "Flush Out")
    assert edges.same_name("Flush Out", "flush out")
    roles = edges.sql("SELECT name, role FROM faces WHERE layout = 'adventure' ORDER BY name").rows()
    assert ("Flush Out", "omen") in roles and ("Stormshriek Feral", "omen_card") in roles
    assert ("Stomp", "adventure") in roles and ("Bonecrusher Giant", "adventurer") in roles  # adventures stay
    assert cli(edges_path, "same-name", "Stormshriek Feral", "Flush Out")["same_name"] is False
    # the card page says what "A // B" is for an omen card (not an adventurer's sentence)
    oracle_id = edges.resolve("Stormshriek Feral").oracle_id
    page = http(edges_path, "GET", f"/card/{oracle_id}").text
    assert "an omen card has its normal name, and its Omen name only as an Omen on the stack" in page
    assert "adventurer card" not in page


def test_720_5_an_omen_name_may_be_chosen_by_the_omens_characteristics(edges: OracleDB, edges_path: Path) -> None:
    """CR 720.5: "If an effect instructs a player to choose a card name and the player wants to choose an omen
    card's alternative name, the player may do so" -- judged by the Omen's characteristics (a sorcery), as
    201.4f judges an Adventure; the combined name is refused (720.4)."""
    verdict = edges.choose_name("Exude Toxin", "noncreature")
    assert (verdict.valid, verdict.rule, verdict.role) == (True, "720.5", "omen")
    assert "720.5" in verdict.rules and "Omen name of Scavenger Regent // Exude Toxin" in verdict.reason
    assert not edges.choose_name("Exude Toxin", "creature").valid
    assert edges.choose_name("Scavenger Regent", "creature").valid
    combined = edges.choose_name("Scavenger Regent // Exude Toxin")
    assert (combined.valid, combined.rule) == (False, "720.4")
    for answer in (
        cli(edges_path, "choose-name", "Exude Toxin", "--constraint", "noncreature"),
        http(edges_path, "GET", "/choose-name", params={"name": "Exude Toxin", "constraint": "noncreature"}).json(),
        mcp(edges_path, "choose_name", {"name": "Exude Toxin", "constraint": "noncreature"}),
    ):
        assert (answer["valid"], answer["rule"], answer["reason"]) == (True, "720.5", verdict.reason), answer


def test_720_2c_an_omen_card_is_one_card_in_a_deck(edges: OracleDB, edges_path: Path) -> None:
    """CR 720.2c: "each omen card is only one card": its normal name, its Omen name and the "A // B // A" some
    sites write count together as one card's copies (100.2a)."""
    deck = "2 Scavenger Regent\n2 Exude Toxin\n1 Scavenger Regent // Exude Toxin // Scavenger Regent\n"
    report = edges.check_deck(deck, format="legacy")
    copies = [p for p in report.problems if p.kind == "too_many_copies"]
    assert len(copies) == 1 and copies[0].detail.startswith("5 copies of Scavenger Regent // Exude Toxin")
    answer = one_deck(
        http(edges_path, "POST", "/decks/check", params={"format": "legacy"}, content=deck.encode()).json()
    )
    assert [p["detail"] for p in answer["problems"] if p["kind"] == "too_many_copies"] == [copies[0].detail]


# the real 2025 trimmed list's record of an omen card (its fields as the file has them)
TRIMMED_OMEN = {
    "name": "Stormshriek Feral // Flush Out",
    "mana_cost": "{4}{R} // {1}{R}",
    "type_line": "Creature — Dragon // Sorcery — Omen",
    "oracle_text": None,
    "color_identity": ["R"],
    "power": "3",
    "toughness": "3",
    "legal_in_commander": "legal",
    "card_faces": [
        {
            "name": "Stormshriek Feral",
            "mana_cost": "{4}{R}",
            "type_line": "Creature — Dragon",
            "oracle_text": "Flying, haste\n{1}{R}: This creature gets +1/+0 until end of turn.",
            "power": "3",
            "toughness": "3",
            "colors": None,
        },
        {
            "name": "Flush Out",
            "mana_cost": "{1}{R}",
            "type_line": "Sorcery — Omen",
            "oracle_text": "Discard a card. If you do, draw two cards. (Then shuffle this card into its owner's library.)",
            "power": None,
            "toughness": None,
            "colors": None,
        },
    ],
}


def _converted(tmp_path: Path, trimmed_records: list[Any]) -> Path:
    """The trimmed list's ``trimmed_records`` converted to Scryfall card objects by scripts/make_sample.py."""
    import subprocess
    import sys

    trimmed = tmp_path / "trimmed.json"
    trimmed.write_text(json.dumps(trimmed_records), encoding="utf-8")
    converted = tmp_path / "cards.json"
    script = Path(__file__).resolve().parents[1] / "scripts" / "make_sample.py"
    done = subprocess.run(
        [sys.executable, str(script), "--trimmed-to-cards", str(trimmed), str(converted), "--quiet"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return converted


def test_720_the_trimmed_lists_converter_makes_an_omen_card_as_scryfall_does(tmp_path: Path) -> None:
    """The 2025 trimmed list has no layout: its converter read an omen card (mana cost "{4}{R} // {1}{R}") as a split
    card, whose halves are both its names (709.4a), so Stormshriek Feral and Flush Out had the same name. It makes
    an omen card an "adventure" object, as Scryfall does, and the ingest gives its faces the omen roles (CR 720.4)."""

    # the list also writes the card "A // B // A" (its faces: the same two), which made one omen card two
    repeated = {**TRIMMED_OMEN, "name": "Stormshriek Feral // Flush Out // Stormshriek Feral"}
    converted = _converted(tmp_path, [TRIMMED_OMEN, repeated])
    cards = json.loads(converted.read_text(encoding="utf-8"))
    assert [(c["name"], c["layout"]) for c in cards] == [("Stormshriek Feral // Flush Out", "adventure")]
    with OracleDB.ingest_files(tmp_path / "omen.duckdb", [converted]) as db:
        assert not db.same_name("Stormshriek Feral", "Flush Out")
        assert db.resolve("Flush Out").ok  # one card, not two sharing the face names
        assert db.choose_name("Flush Out").rule == "720.5"


# Three real records of the 2025 trimmed commander-legal list (../shared/realdata), verbatim: a meld pair and its result.
TRIMMED_MELD = [
    {
        "name": "Urza, Lord Protector",
        "mana_cost": "{1}{W}{U}",
        "type_line": "Legendary Creature — Human Artificer",
        "oracle_text": "Artifact, instant, and sorcery spells you cast cost {1} less to cast.\n{7}: If you both own and "
        "control Urza, Lord Protector and an artifact named The Mightstone and Weakstone, exile them, then meld them "
        "into Urza, Planeswalker. Activate only as a sorcery.",
        "color_identity": ["U", "W"],
        "power": "2",
        "toughness": "4",
        "legal_in_commander": "legal",
    },
    {
        "name": "The Mightstone and Weakstone",
        "mana_cost": "{5}",
        "type_line": "Legendary Artifact — Powerstone",
        "oracle_text": "When The Mightstone and Weakstone enters, choose one —\n• Draw two cards.\n• Target creature "
        "gets -5/-5 until end of turn.\n{T}: Add {C}{C}. This mana can't be spent to cast nonartifact spells.\n"
        "(Melds with Urza, Lord Protector.)",
        "color_identity": [],
        "power": None,
        "toughness": None,
        "legal_in_commander": "legal",
    },
    {
        "name": "Urza, Planeswalker",
        "mana_cost": "",
        "type_line": "Legendary Planeswalker — Urza",
        "oracle_text": "You may activate the loyalty abilities of Urza twice each turn rather than only once.\n+2: "
        "Artifact, instant, and sorcery spells you cast this turn cost {2} less to cast. You gain 2 life.\n+1: Draw "
        "two cards, then discard a card.\n0: Create two 1/1 colorless Soldier artifact creature tokens.\n−3: Exile "
        "target nonland permanent.\n−10: Artifacts and planeswalkers you control gain indestructible until end of "
        "turn. Destroy all nonland permanents.",
        "color_identity": ["U", "W"],
        "power": None,
        "toughness": None,
        "legal_in_commander": "legal",
    },
]


def test_712_4b_the_trimmed_lists_converter_makes_a_meld_result_no_card(tmp_path: Path) -> None:
    """The 2025 trimmed list writes a meld result (Urza, Planeswalker) as a record like any card's, and its converter
    made it a normal card: a deck could hold it, or be led by it. CR 712.4b: "The back faces of a meld pair are used
    only to determine the characteristics of the melded permanent". The converter reads the pair from its text
    ("then meld them into Urza, Planeswalker", "(Melds with Urza, Lord Protector.)") and writes the three as
    Scryfall does (layout "meld", all_parts naming the meld parts and the meld result)."""

    converted = _converted(tmp_path, TRIMMED_MELD)
    cards = {c["name"]: c for c in json.loads(converted.read_text(encoding="utf-8"))}
    assert {c["layout"] for c in cards.values()} == {"meld"}
    parts = {(p["component"], p["name"]) for p in cards["Urza, Planeswalker"]["all_parts"]}
    assert parts == {
        ("meld_part", "Urza, Lord Protector"),
        ("meld_part", "The Mightstone and Weakstone"),
        ("meld_result", "Urza, Planeswalker"),
    }
    with OracleDB.ingest_files(tmp_path / "meld.duckdb", [converted]) as db:
        # the list holds no Island: only the problems of the three cards are looked at
        report = db.check_deck("Commander\n1 Urza, Planeswalker\n\nDeck\n99 Island\n", format="commander")
        [p] = [p for p in report.problems if p.card in cards]
        assert p.kind == "unknown_card" and "CR 712.4b" in p.detail and "Urza, Lord Protector" in p.detail
        deck = "Commander\n1 Urza, Lord Protector\n\nDeck\n1 The Mightstone and Weakstone\n98 Island\n"
        report = db.check_deck(deck, format="commander")
        assert report.commanders == ["Urza, Lord Protector"]
        assert not [p for p in report.problems if p.card in cards], report.problems


# -- CR 111.11 and 707.2: a token named after a card, and token copies --------------------------------


def test_707_2_token_copies_are_named_with_their_rule(edges: OracleDB, edges_path: Path) -> None:
    """CR 111.11 answers "create a Tarmogoyf token" (a token created by name takes the Oracle card's characteristics);
    it is no copy effect. A token named Tarmogoyf in a game is a copy of one (CR 707.2), made by the cards the
    token tables record (token_specs.copy_of), each with what its effect adds (707.9a: Kiki-Jiki's "except it has
    haste"; Mirror March's "Those tokens gain haste. Exile them at the beginning of the next end step."). A card
    that copies only itself (Adorned Pouncer's eternalize) makes no copy of Tarmogoyf."""
    answer = edges.token("Tarmogoyf")
    assert (answer.kind, answer.rule) == ("card", "111.11")
    makers = {m["creator"]: m for m in answer.copy_makers}
    assert set(makers) == {"Cackling Counterpart", "Kiki-Jiki, Mirror Breaker", "Mirror March", "Rite of Replication"}
    assert makers["Mirror March"]["rule"] == "707.2"
    assert (
        makers["Mirror March"]["adds"] == "Those tokens gain haste. Exile them at the beginning of the next end step."
    )
    assert makers["Kiki-Jiki, Mirror Breaker"]["rule"] == "707.2, 707.9a"
    assert any("CR 707.2" in note for note in answer.notes)
    assert cli(edges_path, "token", "Tarmogoyf")["copy_makers"] == [dict(m) for m in answer.copy_makers]
    assert http(edges_path, "GET", "/tokens/Tarmogoyf").json()["copy_makers"] == [dict(m) for m in answer.copy_makers]
    assert mcp(edges_path, "token", {"name": "Tarmogoyf"})["copy_makers"] == [dict(m) for m in answer.copy_makers]
    page = http(edges_path, "GET", "/token/Tarmogoyf").text
    assert "a copy of the card with that name" not in page
    assert "a token created by name: the Oracle card with that name determines its characteristics (CR 111.11)" in page
    assert "Token copies (CR 707.2)" in page and "Those tokens gain haste." in page


# -- one Oracle card per identity when sources are combined ------------------------------------------

# records of the real 2025 trimmed commander-legal list (their fields as the file has them)
TRIMMED_BOLT = {
    "name": "Lightning Bolt",
    "mana_cost": "{R}",
    "type_line": "Instant",
    "oracle_text": "Lightning Bolt deals 3 damage to any target.",
    "color_identity": ["R"],
    "power": None,
    "toughness": None,
    "legal_in_commander": "legal",
}
TRIMMED_SPDR = {
    "name": "SP//dr, Piloted by Peni",
    "mana_cost": "{3}{W}{U}",
    "type_line": "Legendary Artifact Creature — Spider Hero",
    "oracle_text": "Vigilance\nWhen SP//dr enters, put a +1/+1 counter on target creature.\nWhenever a modified "
    "creature you control deals combat damage to a player, draw a card. (Equipment, Auras you control, and counters "
    "are modifications.)",
    "color_identity": ["U", "W"],
    "power": "4",
    "toughness": "4",
    "legal_in_commander": "legal",
}
REAL_BOLT = "4457ed35-7c10-48c8-9776-456485fdf070"  # Lightning Bolt's Oracle id (the 2019 Scryfall dump)


def convert(tmp_path: Path, records: list[dict[str, Any]], *ids_from: Path) -> Path:
    """The trimmed records through the project's converter (scripts/make_sample.py --trimmed-to-cards)."""
    import subprocess
    import sys

    trimmed = tmp_path / "trimmed.json"
    trimmed.write_text(json.dumps(records), encoding="utf-8")
    out = tmp_path / "converted.json"
    script = Path(__file__).resolve().parents[1] / "scripts" / "make_sample.py"
    extra = [arg for path in ids_from for arg in ("--ids-from", str(path))]
    done = subprocess.run(
        [sys.executable, str(script), "--trimmed-to-cards", str(trimmed), str(out), "--quiet", *extra],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return out


def test_one_oracle_card_from_a_converted_list_and_a_real_file(tmp_path: Path) -> None:
    """The converter makes up an Oracle id per name (store/synthetic_ids.py); ingested beside files with real ids,
    the same card was two (resolve "Lightning Bolt": ambiguous). The ingest recognises the made-up id and keeps the
    real one, with every format's legality (the converted object has only commander), and says what it merged;
    SP//dr and its interchangeable OM1 name Kumonosu, the Watchful (CR 201.3) are one card too."""
    converted = convert(tmp_path, [TRIMMED_BOLT, TRIMMED_SPDR])
    assert {c["oracle_id"] for c in json.loads(converted.read_text(encoding="utf-8"))}.isdisjoint({REAL_BOLT})
    files = [FIXTURES / "layouts" / "real-objects.json", FIXTURES / "spdr_om1.json", converted]
    path = tmp_path / "combined.duckdb"
    report = cli(path, "ingest", "--no-progress", *(arg for f in files for arg in ("--bulk-file", str(f))))
    merged = [w for w in report["warnings"] if "merged into its real Oracle id" in w]
    assert len(merged) == 1 and merged[0].startswith("2 cards with an Oracle id made up by the trimmed list's")
    assert "Lightning Bolt, SP//dr, Piloted by Peni" in merged[0]
    with OracleDB(path) as db:
        bolt = db.resolve("Lightning Bolt")
        assert (bolt.status, bolt.oracle_id) == ("ok", REAL_BOLT)
        assert db.sql("SELECT count(*) AS n FROM cards WHERE name = 'Lightning Bolt'").rows() == [(1,)]
        legal = dict(db.sql(f"SELECT format, status FROM legalities WHERE oracle_id = '{REAL_BOLT}'").rows())
        assert legal["commander"] == "legal" and legal["legacy"] == "legal" and legal["modern"] == "legal"
        spdr = db.resolve("SP//dr, Piloted by Peni")
        assert spdr.ok and db.resolve("Kumonosu, the Watchful").oracle_id == spdr.oracle_id
        assert db.sql("SELECT count(*) AS n FROM cards WHERE name = 'SP//dr, Piloted by Peni'").rows() == [(1,)]
        deck = db.check_deck(
            "Commander\n1 SP//dr, Piloted by Peni\nDeck\n1 Kumonosu, the Watchful\n", format="commander"
        )
        assert any(p.kind == "too_many_copies" for p in deck.problems)  # one card, written twice (201.3b)
        assert cli(path, "resolve", "Lightning Bolt")["oracle_id"] == REAL_BOLT
    # the Scryfall door: the converted printing's object is the merged card's (its Oracle id, every format)
    named = http(path, "GET", "/cards/named", params={"exact": "Lightning Bolt"}).json()
    assert (named["oracle_id"], named["legalities"]["legacy"], named["legalities"]["commander"]) == (
        REAL_BOLT,
        "legal",
        "legal",
    )


def test_two_real_cards_are_never_merged(tmp_path: Path) -> None:
    """Unstable prints six Oracle cards named Very Cryptic Command (real ids): a converted record of that name merges
    only into the one with its Oracle text, and the six stay six."""
    unstable = json.loads((FIXTURES / "same_name_unstable.json").read_text(encoding="utf-8"))
    one = next(c for c in unstable if c["name"] == "Very Cryptic Command")
    record = {
        "name": one["name"],
        "mana_cost": one["mana_cost"],
        "type_line": one["type_line"],
        "oracle_text": one["oracle_text"],
        "color_identity": one["color_identity"],
        "power": None,
        "toughness": None,
        "legal_in_commander": "not_legal",
    }
    converted = convert(tmp_path, [record])
    with OracleDB.ingest_files(tmp_path / "vcc.duckdb", [FIXTURES / "same_name_unstable.json", converted]) as db:
        ids = {oid for (oid,) in db.sql("SELECT oracle_id FROM cards WHERE name = 'Very Cryptic Command'").rows()}
        assert len(ids) == 6 and one["oracle_id"] in ids


def test_the_converter_reuses_the_real_ids_other_files_have(tmp_path: Path) -> None:
    """--ids-from: a converted card that a bulk file holds by its name keeps that file's Oracle id."""
    converted = convert(tmp_path, [TRIMMED_BOLT, TRIMMED_SPDR], FIXTURES / "layouts" / "real-objects.json")
    ids = {c["name"]: c["oracle_id"] for c in json.loads(converted.read_text(encoding="utf-8"))}
    from oracle_tools.store.synthetic_ids import trimmed_oracle_id

    assert ids == {"Lightning Bolt": REAL_BOLT, "SP//dr, Piloted by Peni": trimmed_oracle_id("SP//dr, Piloted by Peni")}
