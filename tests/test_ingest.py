"""Ingest: local bulk files, the embedded sample, atomic replacement, clear errors."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from oracle_tools import OracleDB
from oracle_tools.errors import IngestError
from oracle_tools.ingest import sample_dir, sniff
from oracle_tools.store import sqlfiles

from processes import wait_for_cpu

SAMPLE = sample_dir()
CARDS_2019 = SAMPLE / "cards-2019.json.gz"
CARDS_2024 = SAMPLE / "cards-2024.json.gz"
RULINGS = SAMPLE / "rulings.json.gz"


def _objects(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def _write_ndjson(path: Path, objects: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(o, ensure_ascii=False) for o in objects) + "\n", encoding="utf-8")
    return path


def _fingerprint(db_path: Path) -> tuple[int, int]:
    with OracleDB(db_path) as db:
        return db.sql("SELECT count(*) FROM cards").item(), db.sql("SELECT count(*) FROM printings").item()


@pytest.fixture(scope="module")
def db_2024(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's 2024 cards ingested once per module; the tests that ingest into it take a copy."""
    path = tmp_path_factory.mktemp("small") / "small.duckdb"
    OracleDB.ingest_files(path, [CARDS_2024]).close()
    return path


@pytest.fixture
def small_db(db_2024: Path, tmp_path: Path) -> Path:
    """A copy of ``db_2024`` (an ingest of CARDS_2024, as the old database the failing ingests must keep)."""
    path = tmp_path / "small.duckdb"
    shutil.copy(db_2024, path)
    return path


def test_sample_builds_every_table(sample_db: OracleDB) -> None:
    tables = set(sample_db.tables())
    assert {"cards", "faces", "printings", "legalities", "parts", "rulings", "ingest_runs", "names", "rules"} <= tables
    info = sample_db.info()
    assert info["tables"]["rulings"] > 1000
    assert info["rules"]["effective_date"] == "2026-01-16"
    # every layout of the real data is in the sample
    for layout in (
        "normal",
        "split",
        "flip",
        "transform",
        "modal_dfc",
        "meld",
        "adventure",
        "leveler",
        "saga",
        "token",
        "double_faced_token",
        "emblem",
        "planar",
        "scheme",
        "vanguard",
        "host",
        "augment",
    ):
        assert info["layouts"].get(layout, 0) >= 1, layout


def test_one_oracle_row_per_oracle_id_preferring_english(sample_db: OracleDB) -> None:
    dupes = sample_db.sql("SELECT oracle_id FROM cards GROUP BY 1 HAVING count(*) > 1")
    assert dupes.is_empty()
    # Lightning Bolt has foreign printings in the sample; the card row is English
    bolt = sample_db.sql(
        "SELECT c.name, c.source, count(p.id) AS printings, count(DISTINCT p.lang) AS langs "
        "FROM cards c JOIN printings p USING (oracle_id) WHERE c.name = ? GROUP BY ALL",
        ["Lightning Bolt"],
    ).row(0, named=True)
    assert bolt["source"] == "printings" and bolt["langs"] >= 4


def test_non_card_objects_are_kept_but_flagged(sample_db: OracleDB) -> None:
    kinds = dict(sample_db.sql("SELECT object_kind, bool_or(is_card) FROM cards GROUP BY 1").iter_rows())
    assert kinds["card"] is True
    for kind in ("token", "emblem", "plane", "scheme", "vanguard"):
        assert kinds[kind] is False, kind


def test_face_roles_per_layout(sample_db: OracleDB) -> None:
    roles = sample_db.sql(
        "SELECT c.name, f.face_index, f.role FROM faces f JOIN cards c USING (oracle_id) "
        "WHERE c.name IN ('Fire // Ice', 'Cut // Ribbons', 'Bushi Tenderfoot // Kenzo the Hardhearted', "
        "'Giant Killer // Chop Down', 'Delver of Secrets // Insectile Aberration', "
        "'Bruna, the Fading Light', 'Brisela, Voice of Nightmares') ORDER BY 1, 2"
    )
    got = {(r["name"], r["face_index"]): r["role"] for r in roles.iter_rows(named=True)}
    assert got[("Fire // Ice", 0)] == got[("Fire // Ice", 1)] == "split_half"  # CR 709
    assert got[("Cut // Ribbons", 1)] == "aftermath_half"  # CR 709 (aftermath)
    assert got[("Bushi Tenderfoot // Kenzo the Hardhearted", 1)] == "flip_bottom"  # CR 710
    assert got[("Giant Killer // Chop Down", 1)] == "adventure"  # CR 715
    assert got[("Delver of Secrets // Insectile Aberration", 1)] == "back"  # CR 712
    assert got[("Bruna, the Fading Light", 0)] == "meld_part"  # CR 713
    assert got[("Brisela, Voice of Nightmares", 0)] == "meld_result"


def test_flip_bottom_keeps_top_mana_cost_and_colour(sample_db: OracleDB) -> None:
    # CR 710.1c: a flip card's colour and mana cost don't change when it flips.
    kenzo = sample_db.sql("SELECT mana_cost, colors FROM faces WHERE name = 'Kenzo the Hardhearted'").row(0)
    assert kenzo == ("{W}", ["W"])


def test_split_halves_have_their_own_characteristics(sample_db: OracleDB) -> None:
    # CR 709.4 (halves) vs 709.4b (combined cost on the card)
    halves = sample_db.sql(
        "SELECT name, mana_cost, mana_value, colors FROM faces WHERE oracle_id = "
        "(SELECT oracle_id FROM cards WHERE name = 'Fire // Ice') ORDER BY face_index"
    ).rows()
    assert halves == [("Fire", "{1}{R}", 2.0, ["R"]), ("Ice", "{1}{U}", 2.0, ["U"])]
    card = sample_db.sql("SELECT mana_cost, cmc, colors FROM cards WHERE name = 'Fire // Ice'").row(0)
    assert card == ("{1}{R} // {1}{U}", 4.0, ["U", "R"])


def test_meld_parts_link_to_their_result(sample_db: OracleDB) -> None:
    links = sample_db.sql(
        "SELECT c.name, p.component, p.part_name, r.name AS resolved FROM parts p JOIN cards c USING (oracle_id) "
        "LEFT JOIN cards r ON r.oracle_id = p.part_oracle_id WHERE c.name = 'Bruna, the Fading Light' ORDER BY 2"
    )
    got = {(r["component"], r["part_name"], r["resolved"]) for r in links.iter_rows(named=True)}
    assert ("meld_result", "Brisela, Voice of Nightmares", "Brisela, Voice of Nightmares") in got
    assert ("meld_part", "Gisela, the Broken Blade", "Gisela, the Broken Blade") in got


def test_same_printing_in_two_files_is_kept_once(db_2024: Path, tmp_path: Path) -> None:
    twice_file = tmp_path / "copy-of-2024.json.gz"
    twice_file.write_bytes(CARDS_2024.read_bytes())
    twice = OracleDB.ingest_files(tmp_path / "twice.duckdb", [CARDS_2024, twice_file])
    assert _fingerprint(db_2024) == _fingerprint(twice.path)  # CARDS_2024 once
    with twice:
        assert twice.sql("SELECT count(*) FROM ingest_runs").item() == 2


def test_ndjson_plain_and_gzip_arrays_give_the_same_tables(small_db: Path, tmp_path: Path) -> None:
    objects = _objects(CARDS_2024)
    ndjson = _write_ndjson(tmp_path / "cards.ndjson", objects)
    plain = tmp_path / "cards.json"
    plain.write_text(json.dumps(objects), encoding="utf-8")
    assert sniff(ndjson).json_format == "newline_delimited"
    assert sniff(plain).json_format == "array"
    a = OracleDB.ingest_files(tmp_path / "a.duckdb", [ndjson])
    b = OracleDB.ingest_files(tmp_path / "b.duckdb", [plain])
    c = OracleDB(small_db)  # the gzip array, CARDS_2024, ingested
    assert _fingerprint(a.path) == _fingerprint(b.path) == _fingerprint(c.path)
    with a, c:
        faces_a, faces_c = a.frame("faces"), c.frame("faces")
        assert isinstance(faces_a, pl.DataFrame) and isinstance(faces_c, pl.DataFrame)  # eager unless lazy=True
        assert faces_a.sort(["oracle_id", "face_index"]).equals(faces_c.sort(["oracle_id", "face_index"]))


def test_rulings_file_is_recognised_by_content(tmp_path: Path) -> None:
    odd_name = tmp_path / "whatever.json.gz"
    odd_name.write_bytes(RULINGS.read_bytes())
    assert sniff(odd_name).kind == "rulings"
    db = OracleDB.ingest_files(tmp_path / "r.duckdb", [CARDS_2019, odd_name])
    with db:
        n = db.sql("SELECT count(*) FROM rulings").item()
        assert n == len({(o["oracle_id"], o["published_at"], o["comment"]) for o in _objects(RULINGS)})


def test_rulings_alone_are_added_to_the_existing_cards(small_db: Path, tmp_path: Path) -> None:
    before = _fingerprint(small_db)
    OracleDB.ingest_files(small_db, [RULINGS])
    assert _fingerprint(small_db) == before
    with OracleDB(small_db) as db:
        assert db.sql("SELECT count(*) FROM rulings").item() > 0
        assert db.sql("SELECT count(DISTINCT run_id) FROM ingest_runs").item() == 2


def test_oracle_cards_file_is_authoritative(tmp_path: Path) -> None:
    # An oracle_cards bulk file holds one object per card; Scryfall names it oracle-cards-<date>.json.
    printings = _objects(CARDS_2019)
    english = [o for o in printings if o["lang"] == "en"]
    oldest: dict[str, dict] = {}
    for o in sorted(english, key=lambda o: o["released_at"]):
        oldest.setdefault(o["oracle_id"], o)
    chosen = list(oldest.values())[:200]
    oracle_file = tmp_path / "oracle-cards-20191004090000.json"
    oracle_file.write_text(json.dumps(chosen), encoding="utf-8")
    db = OracleDB.ingest_files(tmp_path / "o.duckdb", [CARDS_2019, oracle_file])
    with db:
        sources = dict(db.sql("SELECT source, count(*) FROM cards GROUP BY 1").iter_rows())
        assert sources["oracle_cards"] == len(chosen)
        # the card row comes from the oracle_cards object, not from the newest printing
        first = chosen[0]
        assert db.sql(
            "SELECT edhrec_rank IS NOT DISTINCT FROM ? FROM cards WHERE oracle_id = ?",
            [first.get("edhrec_rank"), first["oracle_id"]],
        ).item()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"not json at all", "is not JSON"),
        (b'{"meta": {"version": "5"}, "data": {}}', "MTGJSON"),
        (b'{"object": "list", "data": []}', "not a bulk file"),
        (b'[{"name": "Tarmogoyf"}]', "does not look like Scryfall"),
        (b"[]", "empty"),
        (b'[{"object": "card_symbol", "symbol": "{T}"}]', "'card_symbol' objects"),
    ],
)
def test_bad_input_is_refused_and_the_old_database_kept(
    small_db: Path, tmp_path: Path, content: bytes, message: str
) -> None:
    before = _fingerprint(small_db)
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    with pytest.raises(IngestError, match=message) as info:
        OracleDB.ingest_files(small_db, [bad])
    assert str(bad) in str(info.value)
    assert _fingerprint(small_db) == before


def _zstd(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(data)


@pytest.mark.parametrize(
    ("name", "pack"),
    [
        ("cards.json", lambda plain: gzip.compress(plain)),  # a download renamed: gzip whatever the name says
        ("cards.json.zst", _zstd),  # DuckDB reads zstd itself
        ("cards.json", _zstd),
        ("cards.json.gz", lambda plain: plain),  # named .gz, but plain JSON
    ],
    ids=["gzip-named-json", "zstd", "zstd-named-json", "plain-named-gz"],
)
def test_a_bulk_file_is_read_by_its_bytes_whatever_its_name(
    db_2024: Path, tmp_path: Path, name: str, pack: Callable[[bytes], bytes]
) -> None:
    # Users rename downloads: the compression is found by the file's magic bytes (gzip 1f 8b, zstd 28 b5 2f fd),
    # not its name, and every read of the file (the typed columns, the kept objects) goes by it.
    renamed = tmp_path / name
    renamed.write_bytes(pack(gzip.decompress(CARDS_2024.read_bytes())))
    with OracleDB.ingest_files(tmp_path / "renamed.duckdb", [renamed]) as db:
        assert _fingerprint(db.path) == _fingerprint(db_2024)
        assert db.sql("SELECT count(*) FROM scryfall_objects").item() == _fingerprint(db_2024)[1]


def _zip(members: dict[str, bytes]) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    return buffer.getvalue()


def _tar_gz(member: str, data: bytes) -> bytes:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo(member)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


_CARDS_JSON = b'[{"object": "card", "id": "x", "name": "Tarmogoyf"}]'


_RANDOM = __import__("random").Random(20261126).randbytes(100_000)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        # MTGJSON ships .bz2, .xz and .zip: each format named by its magic bytes, with the command that opens it
        (__import__("bz2").compress(_CARDS_JSON), r"is a bzip2-compressed file, .*\(bunzip2 -k .*bad.json\)"),
        (__import__("lzma").compress(_CARDS_JSON), r"is an xz-compressed file, .*\(unxz -k .*bad.json\)"),
        (_zip({"AllPrintings.json": _CARDS_JSON}), r"is a zip archive holding AllPrintings.json; unzip it first"),
        (_zip({"a.json": b"[]", "b.json": b"[]"}), r"is a zip archive of 2 files \(a.json, b.json\)"),
        (_zip({"evil\x1b[2J.json": _CARDS_JSON}), r"holding evil\\x1b\[2J.json"),  # a name cannot clear the screen
        (b"7z\xbc\xaf\x27\x1c\x00\x04" + bytes(range(200)), r"is a 7z-compressed file, .*\(7z x "),
        (_tar_gz("cards.json", _CARDS_JSON), r"is a tar archive \(gzip-compressed\) whose first file is cards.json"),
        (gzip.compress(gzip.compress(_CARDS_JSON, mtime=0), mtime=0), r"is gzip-compressed twice over"),
        # what is not text is described, never printed
        (b"\x00\x01binary\xff\xfe", r"is binary data, not JSON text \(a NUL byte at offset 0; .* 00 01 62 "),
        # `head -c 100000 /dev/urandom`, and random bytes with no NUL in the first 64 KB: binary either way (a
        # control character no JSON text holds raw), not text to save as UTF-8
        (_RANDOM, r"is binary data, not JSON text \((a NUL byte|byte 0x[0-9a-f]{2}) at offset [0-9,]+"),
        (_RANDOM.replace(b"\0", b"\1"), r"is binary data, not JSON text \(byte 0x[01][0-9a-f] at offset [0-9,]+ is a "),
        ("[{}]".encode("utf-16"), r"is UTF-16 text .*; save it as UTF-8"),
        ('[{"object": "card", "name": "Æther"}]'.encode("cp1252"), r"byte 0xc6 at offset 29 is not UTF-8\); save"),
        # JSON, but not a list of card objects: said as what it holds
        (b"null", r"holds null, not a list of card objects"),
        (b" 42\n", r"holds the number 42, not a list"),
        (b'"cards"', r"holds the string 'cards', not a list"),
        (b"true", r"holds true, not a list"),
        (b"{}", r"holds an empty JSON object \(\{\}\), not a list"),
        (b"[1, 2]", r"holds a JSON array whose first item is the number 1, not a card object"),
        (b"[null]", r"holds a JSON array whose first item is null, not a card object"),
        # compressed data that gives nothing: a zstd file cut inside its first block, a gzip cut inside its header
        # (both were "the file is empty", which a look at its size belies)
        (_zstd(_CARDS_JSON * 40)[:-8], r"holds no text once zstd-decompressed: it is cut short .*; download it again"),
        (gzip.compress(_CARDS_JSON)[:6], r"holds no text once gzip-decompressed: it is cut short"),
    ],
    ids=[
        *("bzip2", "xz", "zip", "zip-of-two", "zip-hostile-name", "7z", "tar.gz", "gzip-twice"),
        *(
            "binary",
            "random",
            "random-no-nul",
            "utf-16",
            "cp1252",
            "null",
            "number",
            "string",
            "true",
            "empty-object",
            "numbers",
            "nulls",
            "zstd-cut-short",
            "gzip-cut-short",
        ),
    ],
)
def test_odd_and_hostile_files_get_one_true_printable_line(
    small_db: Path, tmp_path: Path, content: bytes, message: str
) -> None:
    before = _fingerprint(small_db)
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    with pytest.raises(IngestError, match=message) as info:
        OracleDB.ingest_files(small_db, [bad])
    line = str(info.value)
    assert line.startswith(f"{bad}: ") and line.isprintable(), line  # one line, no raw bytes, no U+FFFD
    assert "\ufffd" not in line
    assert _fingerprint(small_db) == before


def test_a_printing_twice_in_one_file_is_refused_in_one_line(small_db: Path, tmp_path: Path) -> None:
    before = _fingerprint(small_db)
    objects = _objects(CARDS_2019)[:50]
    damaged = tmp_path / "twice.json"
    damaged.write_text(json.dumps([*objects, objects[7]]), encoding="utf-8")
    with pytest.raises(IngestError, match=f"the printing {objects[7]['id']} is in the file twice") as info:
        OracleDB.ingest_files(small_db, [damaged])
    assert str(damaged) in str(info.value) and "\n" not in str(info.value)
    assert _fingerprint(small_db) == before


def test_a_failing_step_on_the_second_connection_keeps_the_old_database(
    small_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rules are stored on a second connection while the cards are staged (a faster ingest). A failure there
    # fails the ingest as one on the first would, and the old database stays. (A bad rules file does not get
    # that far: it is refused before any card file is opened, test_ingest_safety.py.)
    import duckdb

    from oracle_tools.text import stored_rules

    def failing_store(con: duckdb.DuckDBPyConnection, *_: object, **__: object) -> None:
        con.execute("SELECT * FROM no_such_table")  # a real DuckDB error, on that connection

    monkeypatch.setattr(stored_rules, "store", failing_store)
    before = _fingerprint(small_db)
    with pytest.raises(duckdb.CatalogException, match="no_such_table"):
        OracleDB.ingest_files(small_db, [CARDS_2019])
    assert _fingerprint(small_db) == before
    assert not list(small_db.parent.glob("*.tmp"))


def test_staging_is_not_kept(sample_db: OracleDB) -> None:
    # The bulk files are staged in an attached in-memory database (both ingest connections read it): none of
    # the staging tables or views is in the finished database.
    con = sample_db.con
    tables = {t for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE NOT temporary").fetchall()}
    assert not tables & {"stage_cards", "rep", "per_oracle"}
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'stage_dedup'").fetchone() == (0,)


def test_truncated_gzip_names_the_file(small_db: Path, tmp_path: Path) -> None:
    data = CARDS_2019.read_bytes()
    cut = tmp_path / "default-cards-cut.json.gz"
    cut.write_bytes(data[: len(data) // 2])
    before = _fingerprint(small_db)
    with pytest.raises(IngestError, match=r"default-cards-cut.json.gz"):
        OracleDB.ingest_files(small_db, [cut])
    assert _fingerprint(small_db) == before
    assert not list(tmp_path.glob("*.tmp"))


def test_malformed_json_in_the_middle_names_the_file(small_db: Path, tmp_path: Path) -> None:
    lines = gzip.decompress(CARDS_2024.read_bytes()).decode().splitlines()
    lines[40] = lines[40][: len(lines[40]) // 2]  # an object cut in half
    bad = tmp_path / "broken.json"
    bad.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(IngestError, match=r"broken.json: cannot be read"):
        OracleDB.ingest_files(small_db, [bad])


def test_wrong_objects_inside_a_card_file(small_db: Path, tmp_path: Path) -> None:
    objects = [*_objects(CARDS_2024)[:5], {"object": "ruling", "oracle_id": "x", "comment": "c"}]
    bad = _write_ndjson(tmp_path / "mixed.json", objects)
    with pytest.raises(IngestError, match="not Scryfall card objects"):
        OracleDB.ingest_files(small_db, [bad])


def test_killed_ingest_leaves_the_previous_database_usable(small_db: Path, realdata: Path, tmp_path: Path) -> None:
    before = _fingerprint(small_db)
    big = realdata / "scryfall-foreign-printings-from-mtgjson-2022.json.gz"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "oracle_tools.interfaces.cli",
            "ingest",
            "--db",
            str(small_db),
            "--bulk-file",
            str(big),
            "--no-progress",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not list(small_db.parent.glob(small_db.name + ".ingest-*.tmp")):
        assert proc.poll() is None, "ingest finished before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    wait_for_cpu(proc, 0.5)  # well inside the read of a 346 MB file (the child's own progress, not a sleep)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert _fingerprint(small_db) == before
    # the next ingest clears the dead process's temporary file
    OracleDB.ingest_files(small_db, [CARDS_2024])
    assert not list(small_db.parent.glob(small_db.name + ".ingest-*"))


def test_frames_and_lazy_frames(sample_db: OracleDB) -> None:
    cards = sample_db.frame("cards")
    assert isinstance(cards, pl.DataFrame) and cards.height == sample_db.sql("SELECT count(*) FROM cards").item()
    lazy = sample_db.frame("faces", lazy=True)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.filter(pl.col("role") == "adventure").collect().height >= 1


def test_unknown_table_is_a_clear_error(sample_db: OracleDB) -> None:
    with pytest.raises(Exception, match="no table or view named 'cardz'"):
        sample_db.frame("cardz")


def test_missing_database_says_how_to_build_one(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="ingest --sample"):
        OracleDB(tmp_path / "none.duckdb").tables()


def test_full_2019_dump_every_face_is_a_row(full_db: OracleDB, realdata: Path) -> None:
    # every card_faces entry of every multi-face card in the real dump has its faces row (read on the library's
    # own connection: db.sql() is the sandbox that reads no file but the database)
    missing = sqlfiles.frame(
        full_db.con,
        "WITH raw AS (SELECT DISTINCT oracle_id, unnest(card_faces).name AS name FROM read_json(?, "
        "columns = {'oracle_id': 'VARCHAR', 'card_faces': 'STRUCT(name VARCHAR)[]'})) "
        "SELECT count(*) AS n, (SELECT count(*) FROM raw) AS total FROM raw "
        "ANTI JOIN faces f ON f.oracle_id = raw.oracle_id AND f.name = raw.name",
        [str(realdata / "scryfall-default-cards-2019-10-per-set-dump.json.gz")],
    ).row(0, named=True)
    assert missing["total"] > 450  # 497 distinct (card, face) pairs in the 2019 dump
    assert missing["n"] == 0


def test_back_face_mana_value_follows_202_3(sample_db: OracleDB) -> None:
    values = dict(
        sample_db.sql(
            "SELECT name, mana_value FROM faces WHERE name IN "
            "('Insectile Aberration', 'Delver of Secrets', 'Razorgrass Field', "
            "'Brisela, Voice of Nightmares')"
        ).iter_rows()
    )
    assert values["Insectile Aberration"] == values["Delver of Secrets"] == 1.0  # CR 202.3b (nonmodal DFC)
    assert values["Razorgrass Field"] == 0.0  # modal: its own (no) cost
    assert values["Brisela, Voice of Nightmares"] == 11.0  # CR 202.3c (meld: 7 + 4)


def test_the_card_objects_are_kept_beside_the_layers_not_the_staging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept objects' read and compression ran beside the staging and the core build, which then shared the two
    cores with it, and the staging's table, the core build and the second read were in memory at once (the ingest's
    peak RSS): it runs once the core tables are built, while the names, references and tokens are read."""
    import duckdb

    from oracle_tools.store import scryfall_objects

    real, seen = scryfall_objects.keep, []

    def keep(
        cursor: duckdb.DuckDBPyConnection, files: list[scryfall_objects.CardFile], dictionary: bytes | None = None
    ) -> None:
        seen.append(cursor.execute("SELECT count(*) FROM printings").fetchall()[0][0])
        real(cursor, files, dictionary)

    monkeypatch.setattr(scryfall_objects, "keep", keep)
    with OracleDB.ingest_files(tmp_path / "new.duckdb", [sample_dir() / "cards-2024.json.gz"]) as db:
        assert db.con.execute("SELECT count(*) FROM scryfall_objects").fetchall()[0][0] == 187
    assert seen == [187]  # the printings were built when the keeping started


def test_card_objects_without_an_oracle_id_are_reported_not_dropped_silently(tmp_path: Path) -> None:
    """A card is one Oracle id, so an object without one cannot be loaded; leaving it out without a word lost
    cards. Scryfall gives every card object an oracle_id except layout reversible_card, whose faces carry it: those
    still load (tests/fixtures/reversible) without a warning."""
    objects = _objects(CARDS_2024)[:40]
    first = {k: v for k, v in objects[3].items() if k != "oracle_id"}
    weird = {"object": "card", "id": "00000000-0000-4000-8000-000000000000", "name": "Weird"}
    cards = _write_ndjson(tmp_path / "cards.json", [*objects[:3], first, *objects[4:], weird])
    reversible = Path(__file__).parent / "fixtures" / "reversible" / "default-cards-sld-reversible.json"
    report = OracleDB.ingest(tmp_path / "new.duckdb", bulk_files=[cards, reversible])
    [warning] = report.warnings
    assert warning == (
        f"{cards}: 2 card objects have no oracle_id and were left out of the cards, kept only as printings (the "
        f"first: id {first['id']}, "
        f"{first['name']!r}); Scryfall gives every card object one (a reversible card's faces carry it), so the "
        "file is damaged or not Scryfall's"
    )
    with OracleDB(tmp_path / "new.duckdb") as db:
        assert db.sql("SELECT count(*) FROM cards WHERE layout = 'reversible_card'").item() == 0
        assert db.sql("SELECT count(*) FROM printings WHERE layout = 'reversible_card'").item() > 0


def test_a_face_without_a_name_names_the_file_and_the_object(small_db: Path, tmp_path: Path) -> None:
    """CR 201.2: every face has a name. `"card_faces": [{}]` once failed on the faces table's NOT NULL and blamed
    the database; it is refused as the file's fault, naming the object, and the old database stays."""
    before = _fingerprint(small_db)
    objects = _objects(CARDS_2024)[:20]
    objects[5] = {**objects[5], "card_faces": [{}]}
    bad = _write_ndjson(tmp_path / "faceless.json", objects)
    with pytest.raises(IngestError) as info:
        OracleDB.ingest_files(small_db, [bad])
    message = str(info.value)
    assert message.startswith(f"{bad}: the object with id {objects[5]['id']} has a face (in card_faces) without a name")
    assert "CR 201.2" in message and "Nothing was replaced" in message and "\n" not in message
    assert _fingerprint(small_db) == before


# Two records of the real 2025 commander-legal trimmed list (scryfall-commander-legal-trimmed-20250925.json.gz)
TRIMMED_RECORDS = [
    {
        "name": "Llanowar Elves",
        "mana_cost": "{G}",
        "type_line": "Creature — Elf Druid",
        "oracle_text": "{T}: Add {G}.",
        "color_identity": ["G"],
        "power": "1",
        "toughness": "1",
        "legal_in_commander": "legal",
    },
    {
        "name": "Obyra's Attendants // Desperate Parry",
        "mana_cost": "{4}{U} // {1}{U}",
        "type_line": "Creature — Faerie Wizard // Instant — Adventure",
        "oracle_text": None,
        "color_identity": ["U"],
        "power": "3",
        "toughness": "4",
        "legal_in_commander": "legal",
        "card_faces": [
            {
                "name": "Obyra's Attendants",
                "mana_cost": "{4}{U}",
                "type_line": "Creature — Faerie Wizard",
                "oracle_text": "Flying",
                "power": "3",
                "toughness": "4",
                "colors": None,
            },
            {
                "name": "Desperate Parry",
                "mana_cost": "{1}{U}",
                "type_line": "Instant — Adventure",
                "oracle_text": "Target creature gets -4/-0 until end of turn. (Then exile this card. You may cast the "
                "creature later from exile.)",
                "power": None,
                "toughness": None,
                "colors": None,
            },
        ],
    },
]


def test_the_trimmed_commander_list_is_refused_with_the_command_that_converts_it(tmp_path: Path) -> None:
    """The trimmed list has no "object" field; the refusal says what it is and the exact command that turns it into
    card objects (scripts/make_sample.py --trimmed-to-cards), which then ingest."""
    trimmed = tmp_path / "commander_legal_trimmed.json.gz"
    trimmed.write_bytes(gzip.compress(json.dumps(TRIMMED_RECORDS, ensure_ascii=False).encode()))
    with pytest.raises(IngestError) as info:
        OracleDB.ingest_files(tmp_path / "refused.duckdb", [trimmed])
    message = str(info.value)
    command = f"python scripts/make_sample.py --trimmed-to-cards {trimmed} cards-trimmed.json.gz"
    assert message.startswith(f"{trimmed}: is a trimmed card list") and f"`{command}`" in message
    assert "\n" not in message and not (tmp_path / "refused.duckdb").exists()
    converted = tmp_path / "cards-trimmed.json.gz"
    script = Path(__file__).resolve().parents[1] / "scripts" / "make_sample.py"
    done = subprocess.run(
        [sys.executable, str(script), "--trimmed-to-cards", str(trimmed), str(converted)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    with OracleDB.ingest_files(tmp_path / "new.duckdb", [converted]) as db:
        rows = db.sql("SELECT name, layout FROM cards ORDER BY name").rows()
        assert rows == [("Llanowar Elves", "normal"), ("Obyra's Attendants // Desperate Parry", "adventure")]
        assert db.sql("SELECT status FROM legalities WHERE format = 'commander'")["status"].to_list() == ["legal"] * 2


CLI = [sys.executable, "-m", "oracle_tools.interfaces.cli"]


def test_a_bulk_file_from_standard_input_or_a_pipe_is_ingested_under_the_name_given(tmp_path: Path) -> None:
    """A bulk file is read several times (sniffed, staged, its objects kept), so `--bulk-file -` or
    `<(zcat cards.json.gz)` failed ("File or stream is not seekable", or a head taken as the whole file). A stream
    is copied beside the database first, read as a file, and named as given; the copy goes with the run."""
    db = tmp_path / "piped.duckdb"
    done = subprocess.run(
        [*CLI, "ingest", "--bulk-file", "-", "--no-progress", "--json", "--db", str(db)],
        input=gzip.decompress(CARDS_2024.read_bytes()),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [(f["file"], f["kind"], f["rows"]) for f in report["files"]] == [("standard input", "cards", 187)]
    with OracleDB(db) as opened:
        assert opened.sql("SELECT file FROM ingest_runs").rows() == [("standard input",)]
        assert opened.sql("SELECT DISTINCT source_file FROM printings").rows() == [("standard input",)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["piped.duckdb", "piped.duckdb.names.sqlite"]  # no copy left
    # what is not a bulk file is refused by its first bytes, naming the stream as given
    noise = subprocess.run(
        [*CLI, "ingest", "--bulk-file", "-", "--no-progress", "--db", str(db)],
        input=bytes(range(1, 256)) * 400,  # binary, and no NUL byte in its head
        capture_output=True,
        timeout=120,
    )
    assert noise.returncode == 2
    assert noise.stderr.decode().startswith(
        "error: standard input: is binary data, not JSON text (byte 0x01 at offset 0 is a control character"
    )
    assert noise.stderr.count(b"\n") == 1


def test_the_library_reads_the_streams_the_command_line_reads(tmp_path: Path) -> None:
    """`oracle-tools ingest` copies a stream before it reads it; `OracleDB.ingest_files` sniffed a named pipe's
    head, then read the rest as the whole file ("is not a valid gzip file"), and took no file object. The library
    reads what the command line reads, by one implementation: a named pipe, /dev/fd/N (what `<(zcat …)` passes),
    an open binary file object (read from where it stands, left open); each named as given, its copy removed."""
    import io
    import threading

    cards = CARDS_2024.read_bytes()

    def ingested(db: Path) -> list[tuple[str, int]]:
        with OracleDB(db) as opened:
            return opened.sql("SELECT file, rows FROM ingest_runs").rows()

    with CARDS_2024.open("rb") as handle:
        OracleDB.ingest_files(tmp_path / "handle.duckdb", [handle]).close()
        assert not handle.closed  # the caller's to close
    assert ingested(tmp_path / "handle.duckdb") == [(str(CARDS_2024), 187)]
    # OracleDB.ingest (the command line's call) takes them too; a file object without a name is named as what it is
    report = OracleDB.ingest(tmp_path / "bytes.duckdb", bulk_files=[io.BytesIO(gzip.decompress(cards))])
    assert [(f["file"], f["rows"]) for f in report.files] == [("a binary file object", 187)]
    with pytest.raises(IngestError, match=r"^a binary file object: is opened as text; open the bulk file in binary"):
        OracleDB.ingest_files(tmp_path / "text.duckdb", [io.StringIO("[]")])  # type: ignore[list-item]
    fifo = tmp_path / "cards.json.gz"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(cards,))  # opens once the ingest opened the pipe
    writer.start()
    # a reader that opens the pipe again after its writer has gone would wait forever: an empty writer ends it
    watchdog = threading.Timer(60, lambda: open(fifo, "wb").close())
    watchdog.daemon = True
    watchdog.start()
    try:
        OracleDB.ingest_files(tmp_path / "fifo.duckdb", [fifo]).close()
    finally:
        watchdog.cancel()
        writer.join()
    assert ingested(tmp_path / "fifo.duckdb") == [(str(fifo), 187)]

    read_end, write_end = os.pipe()

    def write_and_close() -> None:
        os.write(write_end, cards)
        os.close(write_end)

    writer = threading.Thread(target=write_and_close)
    writer.start()
    try:
        OracleDB.ingest_files(tmp_path / "pipe.duckdb", [f"/dev/fd/{read_end}"]).close()
    finally:
        writer.join()
        os.close(read_end)
    assert ingested(tmp_path / "pipe.duckdb") == [(f"/dev/fd/{read_end}", 187)]

    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "bytes.duckdb",
        "bytes.duckdb.names.sqlite",
        "cards.json.gz",
        "fifo.duckdb",
        "fifo.duckdb.names.sqlite",
        "handle.duckdb",
        "handle.duckdb.names.sqlite",
        "pipe.duckdb",
        "pipe.duckdb.names.sqlite",
    ]  # no copy of a stream left


def test_a_named_pipe_is_read_when_written_and_refused_in_one_line_when_nothing_writes_it(tmp_path: Path) -> None:
    """`mkfifo p.json; ingest --bulk-file p.json` with no writer waited forever. The ingest waits a few seconds
    (here, a fraction: the wait is a setting) for a program to open the pipe for writing, then says so."""
    fifo = tmp_path / "p.json"
    os.mkfifo(fifo)
    db = tmp_path / "oracle.duckdb"
    quick = "import oracle_tools.ingest as i; i.WRITER_WAIT_SECONDS = 0.3; from oracle_tools.interfaces.cli import main; main()"
    refused = subprocess.run(
        [sys.executable, "-c", quick, "ingest", "--bulk-file", str(fifo), "--no-progress", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2
    assert refused.stderr == (
        f"error: {fifo}: is a named pipe (FIFO) that no program opened for writing in 0.3 s; start the program that "
        "writes it first (or give a file). Nothing was replaced.\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json"]
    ingest = subprocess.Popen(
        [*CLI, "ingest", "--bulk-file", str(fifo), "--no-progress", "--db", str(db)],
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    with open(fifo, "wb") as writer:  # opens once the ingest has opened the pipe to read
        writer.write(gzip.decompress(CARDS_2024.read_bytes()))
    out, err = ingest.communicate(timeout=120)
    assert ingest.returncode == 0, err
    assert out.startswith(f"read       187 cards    from {fifo} (")


def test_files_that_need_more_memory_than_an_ingest_gives_are_built_again_with_more(
    sample_db: OracleDB, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ingest gives DuckDB little memory (what is over it spills to disk), and what must be held at once grows
    with the files: an ingest that runs out is built again once with more, and says so; never a failed ingest
    where the earlier, larger limit built the same files. A limit the caller gives is kept to."""
    from oracle_tools import ingest

    monkeypatch.setattr(ingest, "INGEST_MEMORY_LIMIT", "8MB")  # the sample needs more
    monkeypatch.setattr(ingest, "INGEST_MEMORY_RETRY", "512MB")
    # memory_limit=None: the library's own (the suite gives its ingests one: conftest.TEST_INGEST_MEMORY)
    report = ingest.Ingest(tmp_path / "retried.duckdb", progress=False, memory_limit=None).run(ingest.sample_sources())
    said = [w for w in report.warnings if "memory" in w]
    assert len(said) == 1 and said[0].startswith("these files needed more than the 8MB of memory"), said
    assert said[0].endswith("built again with 512MB")
    built = {t: sample_db.con.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0][0] for t in report.tables}
    assert report.tables == built  # the whole database, as a first try with enough memory builds it
    given = ingest.Ingest(tmp_path / "given.duckdb", progress=False, memory_limit="8MB")
    with pytest.raises(IngestError, match=r"^building the database needed more than the 8MB of memory the ingest"):
        given.run(ingest.sample_sources())
    assert not list(tmp_path.glob("given.duckdb*"))  # nothing written
