"""The change history: what changed in the Oracle reference from one ingest to the next (oracle_tools/history/changes.py).

Real data: the 2019 default-cards dump, then the dump plus the 2024 MH3/OTJ/FDN objects (whose reprints carry
2024 Oracle text), the same files again, the foreign printings of 2022 (MTGJSON's April 2022 legalities), a
failed ingest and the embedded sample, one after the other into one database.
"""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from oracle_tools import OracleDB
from oracle_tools.errors import OracleToolsError
from oracle_tools.history import changes
from oracle_tools.names.point import PointNames

DUMP_2019 = "scryfall-default-cards-2019-10-per-set-dump.json.gz"
FILE_2024 = "scryfall-search-2024-mh3-otj-fdn.json.gz"
FOREIGN_2022 = "scryfall-foreign-printings-from-mtgjson-2022.json.gz"
HISTORY = ("change_runs", "card_changes", "legality_changes", "new_removed_cards")


def _history(path: Path) -> dict[str, list[tuple]]:
    with duckdb.connect(str(path), read_only=True) as con:
        return {t: sorted(con.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in HISTORY}


def _folded(text: str | None) -> str:
    return " ".join((text or "").split())


@pytest.fixture(scope="module")
def steps(ingest_steps: dict[str, Path]) -> dict[str, Path]:
    """The database after each ingest, copied: first (2019), second (2019 + 2024), again (the same files),
    foreign (2022 foreign printings alone), failed (a broken file), sample (ingest --sample); built once per
    session (tests/conftest.py)."""
    return ingest_steps


def test_first_ingest_records_nothing(steps: dict[str, Path]) -> None:
    assert all(rows == [] for rows in _history(steps["first"]).values())
    with OracleDB(steps["first"]) as db:
        assert db.changes().height == 0
        assert db.changes_report()["runs"] == []


def test_reprints_show_the_real_2024_errata(steps: dict[str, Path]) -> None:
    with OracleDB(steps["second"]) as db:
        frame = db.changes()
        text = {r["name"]: r for r in frame.filter(frame["field"] == "oracle_text").to_dicts()}
        # real errata of reprinted cards: the 2020 shuffle wording, "mana value" (2021), "enters" (2024)
        assert text["Polluted Delta"]["diff"].endswith("then [-shuffle your library.-]{+shuffle.+}")
        assert "[-converted -]mana [-cost-]{+value+}" in text["Meltdown"]["diff"]
        assert "When Affectionate Indrik [-enters the battlefield,-]{+enters,+}" in text["Affectionate Indrik"]["diff"]
        krrik = frame.filter(
            (frame["name"] == "K'rrik, Son of Yawgmoth") & (frame["kind"] == "characteristic")
        ).to_dicts()
        assert [(r["field"], r["old_value"], r["new_value"]) for r in krrik] == [
            ("type_line", "Legendary Creature — Horror Minion", "Legendary Creature — Phyrexian Horror Minion")
        ]
        assert set(frame["kind"]) == {"errata", "characteristic", "legality", "new"}  # no rename, no removal
        assert set(frame.filter(frame["kind"] == "new")["name"]) >= {"Breaker of Creation"}  # an MH3 card


def test_the_errata_are_exactly_the_texts_that_differ_beyond_whitespace(steps: dict[str, Path]) -> None:
    """Checked against the two databases' cards themselves, compared here in Python."""
    with (
        duckdb.connect(str(steps["first"]), read_only=True) as before,
        duckdb.connect(str(steps["second"]), read_only=True) as after,
    ):
        old = dict(before.execute("SELECT oracle_id, oracle_text FROM cards WHERE is_card").fetchall())
        new = dict(after.execute("SELECT oracle_id, oracle_text FROM cards WHERE is_card").fetchall())
        recorded = {
            oid
            for (oid,) in after.execute(
                "SELECT oracle_id FROM card_changes WHERE field = 'oracle_text' AND run_id = 2"
            ).fetchall()
        }
    differ = {oid for oid in old.keys() & new.keys() if _folded(old[oid]) != _folded(new[oid])}
    assert recorded == differ
    assert len(differ) > 40


def test_no_false_changes_whitespace_list_order_or_a_missing_keywords_field(tmp_path: Path) -> None:
    """Whitespace-only and order-only differences are not changes, nor keywords a file did not carry."""
    charm: dict[str, Any] = {
        "object": "card",
        "id": "f5a4a9b6-6e8c-4b47-a0ba-4b1f0a4e1b77",
        "oracle_id": "a0a6de1b-7b96-4a3a-9a0f-7b1f3fd3c0b4",
        "name": "Golgari Charm",
        "lang": "en",
        "released_at": "2019-01-25",
        "layout": "normal",
        "mana_cost": "{B}{G}",
        "cmc": 2.0,
        "type_line": "Instant",
        "oracle_text": "Choose one —\n• All creatures get -1/-1 until end of turn.\n• Destroy target enchantment.\n"
        "• Regenerate each creature you control.",
        "colors": ["B", "G"],
        "color_identity": ["B", "G"],
        "legalities": {"modern": "legal", "legacy": "legal"},
        "set": "uma",
        "collector_number": "199",
    }
    spaced = dict(
        reversed(list(charm.items())),  # every field in the other order
        oracle_text=charm["oracle_text"].replace("\n", " \r\n").replace(" —", "  —") + "\n",
        colors=["G", "B"],
        color_identity=["G", "G", "B"],
        type_line=" Instant ",
        keywords=["Regenerate"],  # the first file has no keywords field (as the 2019 dump)
    )
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps([charm]), encoding="utf-8")
    b.write_text(json.dumps([spaced]), encoding="utf-8")
    db_path = tmp_path / "db.duckdb"
    OracleDB.ingest_files(db_path, [a])
    OracleDB.ingest_files(db_path, [b])
    with OracleDB(db_path) as db:
        assert db.sql("SELECT oracle_text FROM cards").item() != charm["oracle_text"]  # it did differ
        assert db.changes().height == 0
        assert db.sql("SELECT count(*) FROM change_runs").item() == 1  # compared, found nothing
    changed = dict(spaced, oracle_text=charm["oracle_text"].replace("Destroy", "Exile"), colors=["B"])
    b.write_text(json.dumps([changed]), encoding="utf-8")
    OracleDB.ingest_files(db_path, [b])
    with OracleDB(db_path) as db:
        rows = db.changes().select("kind", "field", "old_value", "new_value", "diff").rows()
    assert [r[:2] for r in rows] == [("errata", "oracle_text"), ("characteristic", "colors")]
    assert rows[0][2:4] == (spaced["oracle_text"], changed["oracle_text"])  # stored as the files have them
    assert "[-Destroy-]{+Exile+}" in rows[0][4]
    assert rows[1][2:] == ("B, G", "B", None)


def test_keywords_of_one_text_are_no_change_those_of_an_errata_are(tmp_path: Path) -> None:
    """A file older than Scryfall's keywords field gets its keywords derived from the Oracle text (CR 702, 701,
    207.2c); Scryfall's list for the same text also names the Food token (CR 111.10: a token name, no keyword).
    Two readings of one text are no change of the card; the 2020 "mill" errata changes the text and the list."""
    goose: dict[str, Any] = {
        "object": "card",
        "id": "30377bf0-d9b1-4c14-8dde-f74b1e02d604",
        "oracle_id": "f2f09757-1931-47c0-a5f0-39280445489d",
        "name": "Gilded Goose",
        "lang": "en",
        "released_at": "2019-10-04",
        "layout": "normal",
        "mana_cost": "{G}",
        "cmc": 1.0,
        "type_line": "Creature — Bird",
        "oracle_text": "Flying\nWhen Gilded Goose enters the battlefield, create a Food token.\n"
        "{1}{G}, {T}: Create a Food token.\n{T}, Sacrifice a Food: Add one mana of any color.",
        "colors": ["G"],
        "color_identity": ["G"],
        "set": "eld",
        "collector_number": "160",
    }
    older, newer = tmp_path / "a.json", tmp_path / "b.json"
    older.write_text(json.dumps([goose]), encoding="utf-8")  # no keywords field, as the 2019 dump
    newer.write_text(json.dumps([dict(goose, keywords=["Flying", "Food"])]), encoding="utf-8")
    db_path = tmp_path / "db.duckdb"
    OracleDB.ingest_files(db_path, [older])
    with OracleDB(db_path) as db:
        assert db.sql("SELECT keywords FROM cards").item().to_list() == ["Flying"]  # derived
    OracleDB.ingest_files(db_path, [newer])
    with OracleDB(db_path) as db:
        assert db.changes().height == 0
    milled = dict(goose, oracle_text=goose["oracle_text"] + "\nWhen Gilded Goose dies, mill two cards.")
    older.write_text(json.dumps([milled]), encoding="utf-8")
    OracleDB.ingest_files(db_path, [older])
    with OracleDB(db_path) as db:
        rows = db.changes().select("field", "old_value", "new_value").rows()
    assert rows[0][0] == "oracle_text" and rows[1] == ("keywords", "Flying, Food", "Flying, Mill")


def test_re_ingesting_the_same_files_records_nothing(steps: dict[str, Path]) -> None:
    second, again = _history(steps["second"]), _history(steps["again"])
    for table in ("card_changes", "legality_changes", "new_removed_cards"):
        assert again[table] == second[table]
    assert [r[:2] for r in again["change_runs"]] == [(2, 1), (3, 2)]
    with OracleDB(steps["again"]) as db:
        assert db.changes_report(run=3)["total"] == 0  # compared, nothing changed
        default = db.changes_report()  # so by default the ingest before it, which did change something
        assert ([r["run_id"] for r in default["runs"]], default["unchanged_later_runs"]) == ([2], [3])


def test_a_real_ban_and_unban_between_two_real_files(steps: dict[str, Path]) -> None:
    """2019 dump (September 2019 ban lists) vs MTGJSON's April 2022 legalities, same oracle_ids."""
    with OracleDB(steps["foreign"]) as db:
        modern = db.changes(format="modern")
        bans = {r["name"]: (r["old_value"], r["new_value"]) for r in modern.filter(modern["kind"] == "ban").to_dicts()}
        assert bans["Mox Opal"] == ("legal", "banned")  # banned in Modern, January 2020
        assert bans["Faithless Looting"] == ("legal", "banned")
        unbans = modern.filter(modern["kind"] == "unban")
        assert unbans.select("name", "old_value", "new_value").rows() == [("Stoneforge Mystic", "banned", "legal")]
        assert set(modern["field"]) == {"modern"}
        report = db.changes_report(format="modern")
        kinds = [g["kind"] for g in report["groups"]]
        assert kinds[:2] == ["ban", "unban"]
        # the same card's whole history, by name
        opal = db.changes(card="Mox Opal")
        assert ("ban", "modern") in opal.select("kind", "field").rows()
        assert ("errata", "oracle_text") in opal.select("kind", "field").rows()


def test_the_history_survives_later_ingests_a_failed_one_and_the_sample(steps: dict[str, Path]) -> None:
    second, foreign, failed, sample = (_history(steps[s]) for s in ("second", "foreign", "failed", "sample"))
    for table in HISTORY:
        assert set(second[table]) <= set(foreign[table])  # carried over
        assert failed[table] == foreign[table]  # the failed ingest replaced nothing
        assert set(foreign[table]) <= set(sample[table])
    assert [r[:2] for r in sample["change_runs"]] == [(2, 1), (3, 2), (4, 3), (5, 4)]  # the failed run left no trace
    removed = [r for r in sample["new_removed_cards"] if r[0] == 5 and r[3] == "removed"]
    assert len(removed) > 15_000  # the sample holds a few thousand of the 22,092 cards: the rest left


def test_a_failure_while_recording_keeps_the_old_database(
    steps: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from oracle_tools.ingest import sample_dir

    db_path = tmp_path / "db.duckdb"
    shutil.copy(steps["second"], db_path)
    before = _history(db_path)

    from oracle_tools.names import build as names

    def broken(con: duckdb.DuckDBPyConnection, renames: list[tuple[str, str]]) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(names, "add_former_names", broken)  # the last step after the history is recorded
    with pytest.raises(RuntimeError, match="disk full"):  # the sample's share of the 2024 file reaches it as well
        OracleDB.ingest_files(db_path, [sample_dir() / "cards-2024.json.gz"], replace_anyway=True)
    assert _history(db_path) == before
    assert not list(tmp_path.glob("*.tmp"))


# -- renames: real objects, one renamed ----------------------------------------------------------------------


def _real_objects(path: Path, names: set[str]) -> list[dict]:
    """The printings of these cards in a real bulk file (one object per line)."""
    found = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            line = line.strip().rstrip(",")
            if line.startswith("{") and any(f'"name":"{n}"' in line for n in names):
                obj = json.loads(line)
                if obj["name"] in names:
                    found.append(obj)
    return found


@pytest.fixture(scope="module")
def renamed(realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real 2019 printings of three cards, ingested, then again with Meltdown renamed (its text follows)."""
    folder = tmp_path_factory.mktemp("renamed")
    objects = _real_objects(realdata / DUMP_2019, {"Meltdown", "Mox Opal", "Fire // Ice"})
    assert {o["name"] for o in objects} == {"Meltdown", "Mox Opal", "Fire // Ice"}
    before, after = folder / "before.json", folder / "after.json"
    before.write_text(json.dumps(objects), encoding="utf-8")
    renamed = [
        dict(o, name="Molten Collapse", oracle_text=o["oracle_text"].replace("Meltdown", "Molten Collapse"))
        if o["name"] == "Meltdown"
        else o
        for o in objects
    ]
    after.write_text(json.dumps(renamed), encoding="utf-8")
    db = folder / "db.duckdb"
    OracleDB.ingest_files(db, [before])
    OracleDB.ingest_files(db, [after])
    return db


def test_a_former_name_resolves_with_via_former_and_a_note(renamed: Path) -> None:
    with OracleDB(renamed) as db:
        old = db.resolve("Meltdown")
        assert (old.status, old.name, old.via) == ("ok", "Molten Collapse", "former")
        assert old.note is not None and "renamed from 'Meltdown' to 'Molten Collapse'" in old.note
        assert "(run 2)" in old.note
        assert db.resolve("meltdown").via == "former"  # folded like every name
        current = db.resolve("Molten Collapse")
        assert (current.via, current.note) == ("name", None)
        assert db._names_file() is not None  # answered from the names file, its note written at ingest
        assert PointNames(db.con).resolve("Meltdown") == old  # the database's point queries answer the same
        db.name_index  # the in-memory strategy answers the same  # noqa: B018
        assert db.name_index.resolve("Meltdown") == old
        report = db.changes_report()
        assert report["groups"][0]["kind"] == "rename"
        assert report["groups"][0]["changes"][0]["old_value"] == "Meltdown"
        assert db.changes(card="Meltdown").height == 1  # the rename; the text kept its self-reference
    with OracleDB(renamed) as db:
        assert db.resolve_many(["Meltdown"]).row(0, named=True)["via"] == "former"


@pytest.fixture(scope="module")
def quiet_after_rename(renamed: Path, realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The renamed database, then a rules-only ingest (run 3) and a rulings-only ingest (run 4): both compare
    the cards and find nothing changed."""
    from oracle_tools.ingest import sample_dir

    db = tmp_path_factory.mktemp("quiet") / "db.duckdb"
    shutil.copy(renamed, db)
    OracleDB.ingest_files(db, [], rules_file=realdata / "MagicCompRules-20260116.txt")
    OracleDB.ingest_files(db, [sample_dir() / "rulings.json.gz"])
    return db


def test_changes_defaults_to_the_last_ingest_that_changed_something(quiet_after_rename: Path) -> None:
    """A rules-only or rulings-only ingest compares the cards too and records nothing: shown by default, it hid
    the last card update behind "0 changes (run 4, compared with run 3)". Every interface answers the library's
    one default: the rename of run 2, with runs 3 and 4 named as the later runs that changed nothing."""
    db_path = str(quiet_after_rename)
    with OracleDB(quiet_after_rename) as db:
        assert _history(quiet_after_rename)["change_runs"][-2:] == [(3, 2, 3, 3), (4, 3, 3, 3)]
        report = db.changes_report()
        assert [r["run_id"] for r in report["runs"]] == [2]
        assert report["runs"][0]["compared_with"] == 1
        assert report["unchanged_later_runs"] == [3, 4]
        assert report["selected"] == "the last ingest that changed something"
        assert report["counts"] == {"rename": 1}
        assert db.changes().select("run_id", "kind").rows() == [(2, "rename")]
        assert db.changes_report(run=4)["total"] == 0  # still there when asked for
        assert db.changes_report(format="modern")["runs"][0]["run_id"] == 4  # nothing in modern ever: the last
    code, out, _ = _cli("changes", "--db", db_path)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].endswith(" (run 2, compared with run 1)") and lines[0].startswith("1 change at the ingest of ")
    assert lines[1] == "  the last ingest that changed something; runs 3, 4 after it changed nothing"
    assert "  Meltdown → Molten Collapse" in lines
    code, out, _ = _cli("changes", "--db", db_path, "--json")
    assert json.loads(out) == json.loads(json.dumps(report, default=str))
    from oracle_server import Server

    server = Server(quiet_after_rename, "--no-warm")  # two answers: no card object built before it is asked
    try:
        answer = server.client.get("/changes").json()
        page = server.client.get("/").text
    finally:
        server.stop()
    assert [r["run_id"] for r in answer["runs"]] == [2] and answer["unchanged_later_runs"] == [3, 4]
    assert [(c["kind"], c["new_value"]) for c in answer["data"]] == [("rename", "Molten Collapse")]
    shown = "(run 2, compared with run 1; the last ingest that changed something: runs 3, 4 after it changed nothing)"
    assert shown in " ".join(page.split())


def test_changes_refuses_bad_options_in_one_line(renamed: Path) -> None:
    with OracleDB(renamed) as db:
        with pytest.raises(ValueError, match=r"^since 'last week' is not a date; give it as YYYY-MM-DD"):
            db.changes(since="last week")  # the library's own argument, no CLI flag (the CLI says --since)
        with pytest.raises(OracleToolsError, match="ingest run 7 recorded no comparison; runs that did: 2"):
            db.changes(run=7)
        with pytest.raises(OracleToolsError, match="unknown format 'modren'"):
            db.changes(format="modren")
        with pytest.raises(OracleToolsError, match="not a card name"):
            db.changes(card="Lightning Bolt")


def test_changes_takes_the_format_names_deck_check_and_search_take(sample_db: OracleDB) -> None:
    # one table of formats (oracle_tools/decks/formats.py) for deck check --format, f: and changes --format: an
    # alias is its format (edh is commander), a typo is told the closest format, as deck check tells it
    assert sample_db.changes_report(format="edh")["format"] == "commander"
    assert sample_db.changes_report(format="Duel Commander")["format"] == "duel"
    with pytest.raises(OracleToolsError, match=r"^unknown format 'modrn' \(did you mean modern\?\); the legalities"):
        sample_db.changes_report(format="modrn")
    code, out, err = _cli("changes", "--db", str(sample_db.path), "--format", "edh", "--json")
    assert (code, json.loads(out)["format"], err) == (0, "commander", "")


def test_word_diff_joins_changes_split_by_spaces() -> None:
    assert changes.plain_diff(
        "Whenever a land enters the battlefield under your control, you gain 1 life.",
        "Landfall — Whenever a land you control enters, you gain 1 life.",
    ) == (
        "{+Landfall — +}Whenever a land [-enters the battlefield under your control,-]{+you control enters,+} "
        "you gain 1 life."
    )
    assert changes.word_diff(None, "Flying") == [("+", "Flying")]
    assert changes.word_diff("Flying", "Flying") == [("=", "Flying")]


# -- the command line ------------------------------------------------------------------------------------------


def _cli(*args: str) -> tuple[int, str, str]:
    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main

    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_changes_prints_the_library_report_grouped_bans_first(steps: dict[str, Path]) -> None:
    db = str(steps["foreign"])
    code, out, _ = _cli("changes", "--db", db, "--json")
    assert code == 0
    with OracleDB(steps["foreign"]) as library:
        assert json.loads(out) == json.loads(json.dumps(library.changes_report(), default=str))
    code, text, _ = _cli("changes", "--db", db, "--limit", "2")
    assert code == 0
    titles = [line.split(" (")[0] for line in text.splitlines() if line and not line.startswith(" ")][1:]
    assert titles == [
        "Bans",
        "Unbans",
        "Restrictions",
        "Unrestrictions",
        "Other legality changes",
        "Oracle text errata",
        "Other characteristics",
        "New cards",
        "Removed cards",
    ]
    assert "(run 4, compared with run 3)" in text.splitlines()[0]
    code, text, _ = _cli("changes", "--db", db, "--card", "Stoneforge Mystic", "--format", "modern")
    assert text.splitlines()[-1].startswith("  Stoneforge Mystic  modern: banned → legal  [run 4, ")
    code, _, err = _cli("changes", "--db", db, "--since", "yesterday")
    assert (code, err.strip()) == (
        2,
        "error: --since 'yesterday' is not a date; give it as YYYY-MM-DD, such as 2026-03-31",
    )
    code, text, _ = _cli("changes", "--db", str(steps["first"]))
    assert code == 0 and text.startswith("No comparison recorded for the last ingest")


def test_cli_resolve_says_a_former_name_is_one(renamed: Path) -> None:
    code, out, _ = _cli("resolve", "--db", str(renamed), "Meltdown")
    lines = out.splitlines()
    assert (code, lines[0]) == (0, "Molten Collapse  [via former]")
    assert lines[1].startswith("note: a former name: renamed from 'Meltdown' to 'Molten Collapse' at the ingest of")
    code, out, _ = _cli("changes", "--db", str(renamed), "--card", "Meltdown")
    assert "  Meltdown → Molten Collapse" in out.splitlines()


def test_deck_check_changes_says_since_when_a_card_is_banned(steps: dict[str, Path], tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("4 Mox Opal\n4 Stoneforge Mystic\n4 Ornithopter\n48 Island\n", encoding="utf-8")
    code, out, _ = _cli("deck", "check", "--db", str(steps["foreign"]), str(deck), "--format", "modern", "--changes")
    assert code == 1
    lines = out.splitlines()
    at = lines.index("  line 1: [banned] Mox Opal is banned in Modern.")
    with OracleDB(steps["foreign"]) as db:
        day = db.sql("SELECT min(started_at)::DATE::VARCHAR FROM ingest_runs WHERE run_id = 4").item()
    assert lines[at + 1] == f"    Mox Opal is banned in Modern since the ingest of {day} (run 4); legal before."
    assert len(lines) == at + 2  # Stoneforge Mystic is legal again (its unban is no problem), Ornithopter never moved
    code, out, _ = _cli("deck", "check", "--db", str(steps["foreign"]), str(deck), "--format", "modern", "--json")
    assert "legality_changes" not in json.loads(out)  # only asked for


# -- the HTTP server, the web page, MCP ------------------------------------------------------------------------


def test_mcp_changes_is_the_cli_json(renamed: Path) -> None:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from test_mcp import CLI

    async def call() -> Any:
        params = StdioServerParameters(command=CLI[0], args=[*CLI[1:], "mcp", "--db", str(renamed)])
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                bad = await session.call_tool("changes", {"since": "soon"})
                return bad, await session.call_tool("changes", {"card": "Meltdown", "limit": 5})

    bad, result = anyio.run(call)
    # the tool's own parameter, not the CLI's flag ("--since 'soon' is not a date")
    assert bad.is_error and "since 'soon' is not a date; give it as YYYY-MM-DD" in bad.content[0].text
    assert "--since" not in bad.content[0].text
    assert not result.is_error
    _code, out, _ = _cli("changes", "--db", str(renamed), "--card", "Meltdown", "--limit", "5", "--json")
    assert json.loads(result.content[0].text) == json.loads(out)
    assert json.loads(out)["groups"][0]["changes"][0]["new_value"] == "Molten Collapse"


def test_http_changes_names_its_own_since_parameter(renamed: Path) -> None:
    """/changes?since=x said "--since 'x' is not a date", the CLI's flag: the parameter is since."""
    from oracle_server import Server

    server = Server(renamed, "--no-warm")
    try:
        bad = server.client.get("/changes", params={"since": "soon"})
    finally:
        server.stop()
    assert bad.status_code == 400 and bad.json()["object"] == "error"
    assert bad.json()["details"] == "since 'soon' is not a date; give it as YYYY-MM-DD, such as 2026-03-31"


def test_the_web_page_says_a_former_name_is_one(renamed: Path) -> None:
    from oracle_tools.interfaces.serve import web

    with OracleDB(renamed) as db:
        html, status = web.render(db, db.con.cursor(), {"q": "Meltdown"})
    assert status == 200
    assert 'via <strong class="via">former</strong>' in html
    assert "note: a former name: renamed from &#39;Meltdown&#39; to &#39;Molten Collapse&#39;" in html
    assert '<details class="change-group" data-kind="rename" open>' in html


# The server on the foreign step answers the change history and the page: it builds no card object before one is
# asked for (--no-warm); its tests come last, so it is stopped as soon as they end.
@pytest.fixture(scope="module")
def served(steps: dict[str, Path]) -> Iterator[object]:
    from oracle_server import Server

    server = Server(steps["foreign"], "--no-warm")
    yield server
    server.stop()


def test_http_changes_is_a_list_object_of_the_cli_changes_in_order(served: object, steps: dict[str, Path]) -> None:
    client = served.client  # type: ignore[attr-defined]
    first = client.get("/changes", params={"format": "modern"}).json()
    assert (first["object"], first["has_more"], first["total_changes"]) == ("list", True, 965)
    assert first["counts"] == {"ban": 11, "unban": 1, "legality": 953}
    second = client.get(first["next_page"].removeprefix(served.base)).json()  # type: ignore[attr-defined]
    with OracleDB(steps["foreign"]) as db:
        report = db.changes_report(format="modern")
    every = [c for g in report["groups"] for c in g["changes"]]
    got = first["data"] + second["data"]
    assert [c["object"] for c in got[:2]] == ["change", "change"]
    assert [(c["kind"], c["name"]) for c in got[:12]] == [(c["kind"], c["name"]) for c in every[:12]]
    assert len(first["data"]) == 175 and len(got) == 350
    bad = client.get("/changes", params={"since": "soon"})
    assert bad.status_code == 400 and bad.json()["object"] == "error" and "not a date" in bad.json()["details"]
    assert client.get("/changes", params={"run": "x"}).status_code == 400
    assert client.get("/changes", params={"colour": "red"}).status_code == 400


def test_the_web_page_shows_what_the_last_ingest_changed(served: object) -> None:
    html = served.client.get("/").text  # type: ignore[attr-defined]
    assert 'id="changes-panel"' in html
    assert "(run 4, compared with run 3)" in html
    assert '<details class="change-group" data-kind="ban" open>' in html
    assert "<del>converted </del>mana <del>cost</del><ins>value</ins>" in html  # an errata's word diff
