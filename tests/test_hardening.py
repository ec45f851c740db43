"""Hardening: the sandboxed `sql`, one-line errors instead of tracebacks, safe .dek parsing, the packaged version."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from oracle_tools import OracleDB
from oracle_tools.errors import InputTooLargeError, OracleToolsError
from oracle_tools.interfaces.cli import main

from processes import stop_with, wait_for_cpu, wait_until_busy, wait_until_open, wait_until_read

# -- `sql` is really read-only: user SQL must not write or read files ------------------------------------------------

#: (statement, a word the refusal line must contain). Each ran (or tried the network) before the sandbox.
REFUSED = [
    ("COPY (SELECT 1 AS a) TO '{out}/x.csv'", "COPY"),
    ("EXPORT DATABASE '{out}/dump'", "EXPORT"),
    ("INSTALL httpfs", "INSTALL"),
    ("LOAD httpfs", "LOAD"),
    ("SET threads=1", "SET"),
    ("ATTACH '{out}/other.duckdb' AS other", "ATTACH"),
    ("CREATE TABLE t AS SELECT 1 AS a", "CREATE"),
    ("SELECT 1; COPY (SELECT 1) TO '{out}/y.csv'", "one query"),
    ("CHECKPOINT", "CHECKPOINT"),
    ("USE memory", "USE"),
    ("PIVOT cards ON layout USING count(*)", "IN ('normal', 'split')"),  # the advice, not "MULTI changes …"
]


@pytest.fixture
def db_copy(sample_db_path: Path, tmp_path: Path) -> Path:
    """A copy of the sample database (its own file, so a write would show)."""
    path = tmp_path / "db" / "sample.duckdb"
    path.parent.mkdir()
    shutil.copy(sample_db_path, path)
    return path


@pytest.mark.parametrize(("statement", "word"), REFUSED)
def test_sql_refuses_everything_but_queries(db_copy: Path, tmp_path: Path, statement: str, word: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    before = sorted(p.name for p in db_copy.parent.iterdir())
    result = CliRunner().invoke(main, ["sql", statement.format(out=out), "--db", str(db_copy)])
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: `sql` runs read-only queries only") or "one query" in lines[0]
    assert word in lines[0]
    assert "Traceback" not in result.output
    assert list(out.iterdir()) == []  # no file written
    assert sorted(p.name for p in db_copy.parent.iterdir()) == before


def test_sql_cannot_read_other_files(db_copy: Path) -> None:
    """A query statement passes the statement check, but the sandbox forbids file access: /etc/passwd stays shut."""
    result = CliRunner().invoke(main, ["sql", "SELECT * FROM read_csv('/etc/passwd')", "--db", str(db_copy)])
    assert result.exit_code != 0
    assert "root:" not in result.output
    assert result.output.startswith("error: SQL failed:") and "disabled" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_user_con_is_sandboxed(sample_db_path: Path, tmp_path: Path) -> None:
    import duckdb

    with OracleDB(sample_db_path) as db:
        settings = dict(
            db.user_con.execute(
                "SELECT name, value FROM duckdb_settings() WHERE name IN ('enable_external_access', 'lock_configuration',"
                " 'autoload_known_extensions', 'autoinstall_known_extensions')"
            ).fetchall()
        )
        assert settings == {
            "enable_external_access": "false",
            "lock_configuration": "true",
            "autoload_known_extensions": "false",
            "autoinstall_known_extensions": "false",
        }
        # the database file, read-only, is the only catalog, and the default of every cursor
        assert db.user_con.execute(
            "SELECT database_name, readonly FROM duckdb_databases() WHERE NOT internal"
        ).fetchall() == [("sample", True)]
        assert (
            db.con.execute("SELECT count(*) FROM cards").fetchone()
            == db.user_con.cursor().execute("SELECT count(*) FROM cards").fetchone()
        )
        # the sandbox holds even for a statement that skips the check (a search, the HTTP server)
        with pytest.raises(duckdb.Error):
            db.user_con.execute(f"COPY (SELECT 1) TO '{tmp_path / 'z.csv'}'")
        assert not (tmp_path / "z.csv").exists()
        with pytest.raises(OracleToolsError, match="read-only queries only"):
            db.sql("PRAGMA threads=1")


def test_lazy_sql_is_sandboxed_too(sample_db_path: Path, tmp_path: Path) -> None:
    """OracleDB.lazy(sql=…) ran the caller's text on the unsandboxed connection: COPY wrote, read_csv read."""
    import duckdb

    with OracleDB(sample_db_path) as db:
        with pytest.raises(OracleToolsError, match=r"read-only queries only .*COPY"):
            db.lazy(sql=f"COPY (SELECT 1) TO '{tmp_path / 'x.csv'}'")
        with pytest.raises(duckdb.Error, match="disabled by configuration"):
            db.lazy(sql="SELECT * FROM read_csv('/etc/passwd')").collect()
        assert not (tmp_path / "x.csv").exists()
        frame = db.lazy(sql="SELECT name, cmc FROM cards WHERE cmc >= ?", params=[10]).filter(pl_col("cmc") > 11)
        assert frame.collect().height == db.sql("SELECT count(*) AS n FROM cards WHERE cmc > 11").item()
        assert db.lazy("cards").select("name").head(1).collect().height == 1  # tables still read


def pl_col(name: str):  # type: ignore[no-untyped-def]
    import polars as pl

    return pl.col(name)


def test_sql_queries_still_work(sample_db_path: Path) -> None:
    for query in (
        "SELECT name FROM cards WHERE name = ?",
        "WITH c AS (SELECT name FROM cards) SELECT * FROM c WHERE name = ?",
        "FROM cards SELECT name WHERE name = ?",
    ):
        result = CliRunner().invoke(main, ["sql", query, "--param", "Tarmogoyf", "--db", str(sample_db_path), "--json"])
        assert result.exit_code == 0, result.output
        assert '"Tarmogoyf"' in result.output
    result = CliRunner().invoke(main, ["sql", "DESCRIBE cards", "--db", str(sample_db_path), "--csv"])
    assert result.exit_code == 0 and "oracle_id" in result.output
    result = CliRunner().invoke(
        main,
        [
            "sql",
            "PIVOT (FROM cards SELECT layout) ON layout IN ('split') USING count(*)",
            "--db",
            str(sample_db_path),
            "--json",
        ],
    )
    assert result.exit_code == 0 and json.loads(result.output)[0]["split"] > 0  # the advice of the refusal works


def test_export_still_writes(db_copy: Path, tmp_path: Path) -> None:
    """`export` is the command that writes files, on the normal connection."""
    out = tmp_path / "cards.csv"
    result = CliRunner().invoke(
        main,
        ["export", "--sql", "SELECT name FROM cards WHERE name = 'Tarmogoyf'", "--csv", str(out), "--db", str(db_copy)],
    )
    assert result.exit_code == 0, result.output
    assert out.read_text().splitlines() == ["name", "Tarmogoyf"]


# -- MTGO .dek: no DTDs, no entities (XML bombs, file reads) ---------------------------------------------------------

#: The shape MTGO writes (the same as tests/test_decklist.py's DEK), with a "billion laughs" DTD in front.
DEK_BODY = """<Deck xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <NetDeckID>0</NetDeckID>
  <PreconstructedDeckID>0</PreconstructedDeckID>
  <Cards CatID="50372" Quantity="4" Sideboard="false" Name="Lightning Bolt" Annotation="0" />
  <Cards CatID="250" Quantity="18" Sideboard="false" Name="&lol9;" Annotation="0" />
</Deck>
"""
BOMB_DTD = (
    '<!DOCTYPE Deck [\n  <!ENTITY lol "lol">\n'
    + "".join(f'  <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n' for i in range(1, 10))
    + "]>\n"
)
EXTERNAL_DTD = '<!DOCTYPE Deck SYSTEM "http://127.0.0.1:9/deck.dtd">\n'


@pytest.mark.parametrize("doctype", [BOMB_DTD, EXTERNAL_DTD], ids=["entity-bomb", "external-dtd"])
def test_dek_with_a_dtd_is_a_parse_error(sample_db_path: Path, tmp_path: Path, doctype: str) -> None:
    from oracle_tools.decks.decklist import read_decklist

    path = tmp_path / "bomb.dek"
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n' + doctype + DEK_BODY.replace("&lol9;", "Mountain")
        if doctype is EXTERNAL_DTD
        else '<?xml version="1.0" encoding="utf-8"?>\n' + doctype + DEK_BODY,
        encoding="utf-8",
    )
    deck = read_decklist(path)
    assert deck.format == "mtgo_dek" and deck.entries == ()
    assert [p.line for p in deck.problems] == [2]  # the <!DOCTYPE line
    assert "DTD" in deck.problems[0].detail and "not allowed in a .dek file" in deck.problems[0].detail
    result = CliRunner().invoke(
        main, ["deck", "check", str(path), "--format", "legacy", "--db", str(sample_db_path), "--json"]
    )
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["problems"][0]["kind"] == "parse_error" and report["problems"][0]["line"] == 2


def test_dek_bomb_without_xml_declaration_is_a_parse_error(tmp_path: Path) -> None:
    """A .dek that starts with the DTD itself (no `<?xml …?>`) was read as 17 text lines of junk, not refused."""
    from oracle_tools.decks.decklist import read_decklist

    path = tmp_path / "bare.dek"
    path.write_text(BOMB_DTD + DEK_BODY, encoding="utf-8")
    deck = read_decklist(path)
    assert deck.format == "mtgo_dek" and deck.entries == ()
    assert [p.line for p in deck.problems] == [1]
    assert "DTD" in deck.problems[0].detail and "not allowed in a .dek file" in deck.problems[0].detail


def test_utf16_dek_reads_and_its_bomb_is_refused(tmp_path: Path) -> None:
    """The file is decoded before parsing, so its `encoding="utf-16"` declaration does not make expat fail."""
    from oracle_tools.decks.decklist import read_decklist

    decl = '<?xml version="1.0" encoding="utf-16"?>\n'
    ok, bomb = tmp_path / "ok.dek", tmp_path / "bomb.dek"
    ok.write_bytes((decl + DEK_BODY.replace("&lol9;", "Mountain")).encode("utf-16"))
    bomb.write_bytes((decl + BOMB_DTD + DEK_BODY).encode("utf-16"))
    deck = read_decklist(ok)
    assert deck.problems == ()
    assert [(e.count, e.name) for e in deck.entries] == [(4, "Lightning Bolt"), (18, "Mountain")]
    deck = read_decklist(bomb)
    assert deck.entries == () and [p.line for p in deck.problems] == [2]
    assert "DTD" in deck.problems[0].detail


def test_dek_without_dtd_still_reads(tmp_path: Path) -> None:
    from oracle_tools.decks.decklist import read_decklist

    path = tmp_path / "ok.dek"
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n' + DEK_BODY.replace("&lol9;", "Lim-D&#251;l's Vault"),
        encoding="utf-8",
    )
    deck = read_decklist(path)
    assert deck.problems == ()
    assert [(e.count, e.name, e.line) for e in deck.entries] == [(4, "Lightning Bolt", 5), (18, "Lim-Dûl's Vault", 6)]


# -- no tracebacks: bad input gets one line --------------------------------------------------------------------------


@pytest.fixture
def small_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    """`ingest --sample` reads the sample's small files (HOSTILE_SAMPLE): what these tests check — a database's
    file name, a bad side file — does not depend on how many cards the ingest reads."""
    from oracle_tools import ingest

    small = [source for source in ingest.sample_sources() if source.path.name in HOSTILE_SAMPLE]
    assert len(small) == len(HOSTILE_SAMPLE)
    monkeypatch.setattr(ingest, "sample_sources", lambda: list(small))


@pytest.mark.parametrize("file_name", ["previous.duckdb", "ingest_stage.duckdb", "Ingest_Stage.v2.db"])
def test_ingest_twice_into_a_database_named_like_an_internal_one(
    tmp_path: Path, file_name: str, small_sample: None
) -> None:
    """A database named previous.duckdb clashed with the internal `ATTACH … AS previous` (BinderException); one
    named ingest_stage.* would clash with the staging database had it a fixed name."""
    db = tmp_path / file_name
    for _ in range(2):
        result = CliRunner().invoke(main, ["ingest", "--sample", "--no-progress", "--db", str(db)])
        assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["info", "--db", str(db), "--json"])
    assert [r["run_id"] for r in json.loads(result.output)["runs"]][-1] == 2  # the second run kept the first's


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'class_id,name,source\n1,"unterminated\n', "not valid CSV"),
        (b"\xff\xfeclass_id,name\n", "not UTF-8 text"),
        (b"class_id,name,source\n1\n", "data row 1 has 1 field(s)"),
        (b"class_id,name,source\n1,Fire // Ice,x,extra\n", "data row 1 has 4 field(s)"),
        (b"", "lacks column(s)"),
    ],
)
def test_malformed_interchangeable_file(tmp_path: Path, content: bytes, expected: str, small_sample: None) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_bytes(content)
    result = CliRunner().invoke(
        main,
        ["ingest", "--sample", "--no-progress", "--db", str(tmp_path / "x.duckdb"), "--interchangeable-file", str(bad)],
    )
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and result.output.startswith(f"error: {bad}: ")
    assert expected in result.output
    assert not (tmp_path / "x.duckdb").exists()


def test_unexpected_errors_are_one_line_and_debug_shows_the_traceback(sample_db_path: Path, tmp_path: Path) -> None:
    """A DuckDB file damaged past its header (a file that is no database at all is said as such before DuckDB
    opens it): the file named as damaged, one line, exit 2 (as every command says it); --debug shows the
    traceback."""
    garbage = tmp_path / "garbage.duckdb"
    garbage.write_bytes(sample_db_path.read_bytes()[:4096] + b"<html>not a database</html>\n" * 400)
    result = CliRunner().invoke(main, ["info", "--db", str(garbage)])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert result.output.startswith("error: garbage.duckdb is damaged (Corrupt database file")
    assert "rebuild it with `oracle-tools ingest --replace-anyway`" in result.output
    for args, env in ((["--debug", "info"], {}), (["info"], {"ORACLE_TOOLS_DEBUG": "1"})):
        result = CliRunner().invoke(main, [*args, "--db", str(garbage)], env=env)
        assert result.exit_code == 2 and "Traceback (most recent call last)" in result.output
        assert result.output.splitlines()[-1].startswith("error: garbage.duckdb is damaged")


@pytest.mark.parametrize(
    ("args", "limit", "what"),
    [
        (
            ["deck", "check", "/dev/zero", "--format", "legacy"],
            "oracle_tools.decks.decklist.MAX_DECKLIST_BYTES",
            "decklist",
        ),
        (["resolve", "--batch", "/dev/zero"], "oracle_tools.interfaces.cli_names.MAX_BATCH_CHARS", "list of names"),
        (
            ["ingest", "--sample", "--no-progress", "--rules-file", "/dev/zero"],
            "oracle_tools.text.comprules.MAX_RULES_BYTES",
            "Comprehensive Rules",
        ),
        (
            ["ingest", "--sample", "--no-progress", "--interchangeable-file", "/dev/zero"],
            "oracle_tools.names.build.MAX_INTERCHANGEABLE_BYTES",
            "interchangeable-names",
        ),
    ],
    ids=["deck-check", "resolve-batch", "rules-file", "interchangeable-file"],
)
def test_endless_input_files_are_one_line(
    sample_db_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    limit: str,
    what: str,
    small_sample: None,
) -> None:
    """/dev/zero (or a wrong 10 GB file) was read whole: the memory of the machine, then MemoryError. Every file
    a user names is read up to a limit far above real ones (lowered to 1 MB here to keep the test light)."""
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    module, _, name = limit.rpartition(".")
    monkeypatch.setattr(f"{module}.{name}", 1024 * 1024)
    db = sample_db_path if args[0] != "ingest" else tmp_path / "new.duckdb"
    result = CliRunner().invoke(main, [*args, "--db", str(db)])
    assert result.exit_code == 2, result.output
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("error: /dev/zero: is larger than 1 MB, which no ") and what in line, line
    assert "never ends" in line


def test_a_small_file_costs_its_size_not_the_limit(tmp_path: Path) -> None:
    """The limit bounds a read; it is no buffer to allocate: a 2-line decklist under the 128 MB decklist limit was
    read with read(limit + 1), which asks Python for 128 MB at once."""
    import io
    import tracemalloc

    from oracle_tools.store import userfiles

    deck = tmp_path / "deck.txt"
    deck.write_text("4 Lightning Bolt\n4 Counterspell\n", encoding="utf-8")
    limit = 128 * userfiles.MiB
    tracemalloc.start()
    try:
        assert userfiles.read_bytes(deck, limit=limit, what="decklist") == deck.read_bytes()
        with deck.open(encoding="utf-8") as text:
            assert userfiles.read_text(text, limit=limit, what="decklist") == deck.read_text(encoding="utf-8")
        assert userfiles.read_text(io.StringIO("x" * 3000), limit=2048 + 952, what="names list") == "x" * 3000
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * userfiles.MiB, peak
    with pytest.raises(InputTooLargeError):
        userfiles.read_text(io.StringIO("x" * 3001), limit=3000, what="names list")


def test_resolve_batch_of_bytes_is_one_line(sample_db_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["resolve", "--batch", "-", "--db", str(sample_db_path)], input=b"\xff\xfe\x00x\n"
    )
    assert (result.exit_code, result.output) == (
        2,
        "error: standard input: has a UTF-16 mark but cannot be decoded (truncated data); save it again as UTF-8 text.\n",
    )


def test_a_path_or_text_with_control_characters_is_said_in_one_line(sample_db_path: Path, tmp_path: Path) -> None:
    """A file named with a newline (or an escape sequence) split the error line in two, or let the name rewrite the
    terminal: every line that quotes a path, a name or a query shows its control characters escaped."""
    runner = CliRunner()
    db = ["--db", str(sample_db_path)]

    def said(args: list[str]) -> str:
        result = runner.invoke(main, args)
        assert result.exit_code in (1, 2), (args, result.output)
        return result.stderr

    missing = tmp_path / "deck\nname.txt"
    assert said(["deck", "check", str(missing), "--format", "modern", *db]) == (
        f"error: {tmp_path}/deck\\nname.txt: no such file; check the path (relative paths start from {Path.cwd()}).\n"
    )
    empty_object = tmp_path / "a\nb.json"
    empty_object.write_text("{}", encoding="utf-8")
    line = said(["ingest", str(empty_object), "--db", str(tmp_path / "new.duckdb"), "--no-progress"])
    assert line.startswith(f"error: {tmp_path}/a\\nb.json: holds an empty JSON object") and line.count("\n") == 1
    line = said(["info", "--db", str(tmp_path / "x\ny.duckdb")])
    assert line.startswith(f"error: no database at {tmp_path}/x\\ny.duckdb. Build one") and line.count("\n") == 1
    # click's own refusal of an option's value, in one line too
    assert said(["resolve", "--batch", str(tmp_path / "no\x1b[2Jfile"), *db]) == (
        f"error: Invalid value for '--batch': File '{tmp_path}/no\\x1b[2Jfile' does not exist. "
        "(try 'main resolve -h' for help)\n"
    )
    # the query under its caret stays one line, the caret under the word it points at
    assert said(["search", "t:gob\nlin foo:bar", *db]).endswith("\n  t:gob\\nlin foo:bar\n             ^\n")
    # the deck report names the file in one line too
    deck = tmp_path / "red\x1b[31m.txt"
    deck.write_text("4 Lightning Bolt\n", encoding="utf-8")
    result = runner.invoke(main, ["deck", "check", str(deck), "--format", "modern", *db])
    assert f"{tmp_path}/red\\x1b[31m.txt: not legal in modern (1 problem)\n" in result.stdout
    # a space of another script (a Japanese name's ideographic space, a no-break space) is shown as itself
    spaced = said(["deck", "check", str(tmp_path / "稲妻\u3000ボルト\u00a0デッキ.txt"), "--format", "modern", *db])
    assert "/稲妻\u3000ボルト\u00a0デッキ.txt: no such file" in spaced and "\\u" not in spaced, spaced


def test_error_lines_stay_short_and_name_the_whole_command(sample_db_path: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["same-name", "x" * 100_000, "Ice", "--db", str(sample_db_path)])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert (
        result.output
        == "error: a name of 100,000 characters is no card name (at most 1,000 are taken); check the argument\n"
    )
    result = CliRunner().invoke(
        main, ["deck", "check", "a\x00b.txt", "--format", "legacy", "--db", str(sample_db_path)]
    )
    assert (result.exit_code, result.output) == (
        2,
        "error: deck check: an argument contains a NUL character, which no file name or card name has\n",
    )
    # under `python -m oracle_tools.interfaces.cli` the program name is three words: the line still names only the command
    deck = tmp_path / "deck.txt"
    deck.write_text("4 Lightning Bolt\n", encoding="utf-8")
    # a DuckDB file damaged past its header: named as damaged (a file of another kind is refused before it opens)
    not_a_database = tmp_path / "garbage.duckdb"
    not_a_database.write_bytes(sample_db_path.read_bytes()[:4096] + b"not a database" * 1000)
    child = subprocess.run(
        [
            sys.executable,
            "-m",
            "oracle_tools.interfaces.cli",
            "deck",
            "check",
            str(deck),
            "--format",
            "legacy",
            "--db",
            str(not_a_database),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert child.returncode == 2 and child.stderr.startswith("error: garbage.duckdb is damaged ("), child.stderr


# Every command (walked from the click group, so commands added later are covered too) runs with hostile
# arguments in a child process (a command that would start a server cannot hang the test run); no output
# may contain a traceback, every exit status is 0, 1 or 2, and a failure says `error:` (or click's `Error:`).

HUGE = "Lightning Bolt" * 7000  # ~100 kB: under Linux's 128 kB limit for one argument
ODD = "\u202eÆ\u0301ther\u200b 🂡 ﷽ \\\"'; DROP TABLE cards; --\t\u0000"
#: The arguments a command needs to get past "nothing to do" without touching the network.
BASE_ARGS = {"ingest": ["--sample", "--no-progress"]}


def _commands() -> list[str]:
    import click

    def walk(cmd: click.Command, path: list[str]) -> list[str]:
        if isinstance(cmd, click.Group):
            return [p for name, sub in sorted(cmd.commands.items()) for p in walk(sub, [*path, name])]
        return [" ".join(path)]

    return walk(main, [])


def _hostile_vectors(path: str, db: Path, garbage: Path, garbage_db: Path, missing_db: Path) -> list[list[str]]:
    import click

    cmd: click.Command = main
    for part in path.split():
        cmd = cmd.commands[part]  # type: ignore[attr-defined]
    base = [*path.split(), *BASE_ARGS.get(path, [])]
    arguments = [p for p in cmd.params if isinstance(p, click.Argument)]
    options = [p for p in cmd.params if isinstance(p, click.Option) and not p.is_flag and p.name != "db_path"]

    def normal(arg: click.Argument) -> list[str]:
        kind = getattr(arg.type, "name", "")
        return [str(garbage)] if kind in ("path", "file", "filename") else ["Fire // Ice"]

    def positional(override: dict[str, str] | None = None) -> list[str]:
        out = []
        for arg in arguments:
            out += [override[arg.name]] if override and arg.name in override else normal(arg)
        return out

    vectors = [
        [*base, *positional(), "--db", str(missing_db)],
        [*base, *positional(), "--db", str(garbage_db)],
        [*base, *positional(), "--db", str(db), "--no-such-option"],
    ]
    for arg in arguments:
        for value in (HUGE, ODD, str(garbage)):
            vectors.append([*base, *positional({arg.name: value}), "--db", str(db)])
    for opt in options:
        kind = getattr(opt.type, "name", "")
        if kind in ("file", "filename", "path"):
            values = [str(garbage), str(garbage.parent)]
        elif kind == "directory":
            values = [str(garbage)]
        elif "integer" in kind or "float" in kind:
            values = ["-5", "99999999999999999999", "NaN"]
        elif kind == "choice":
            values = ["bogus", ODD]
        else:
            values = [HUGE, ODD]
        for value in values:
            vectors.append([*base, *positional(), opt.opts[0], value, "--db", str(db)])
    return vectors


def _run_hostile(path: str, workdir: Path) -> list[dict[str, object]]:
    """In a child process: run every hostile vector of one command and report what each printed."""
    garbage = workdir / "garbage.json"
    garbage.write_bytes(b"\xff\xfe<html>rate limited</html>\x00\n" + bytes(range(256)))
    garbage_db = workdir / "garbage.duckdb"
    garbage_db.write_bytes(b"<html>not a database</html>\n" * 200)
    results = []
    for vector in _hostile_vectors(
        path, workdir / "sample.duckdb", garbage, garbage_db, workdir / "missing" / "none.duckdb"
    ):
        result = CliRunner().invoke(main, vector, input="")
        results.append(
            {
                "args": [a if len(a) < 200 else a[:40] + f"…({len(a)} chars)" for a in vector],
                "exit": result.exit_code,
                "output": result.output
                if len(result.output) < 4000
                else result.output[:2000] + "…" + result.output[-2000:],
                "exception": None
                if result.exception is None or isinstance(result.exception, SystemExit)
                else repr(result.exception),
            }
        )
    return results


@pytest.fixture(scope="module")
def hostile_results(sample_db_path: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict]]:
    """What every command printed for its hostile vectors, each command in its own folder (the working directory
    while its vectors run) with its own copy of the sample database. Two children run them: one for `ingest`
    (its sample made small), one for every other command — a child per command paid its start 17 times."""
    folder = tmp_path_factory.mktemp("hostile")
    env = {k: v for k, v in os.environ.items() if k not in ("ORACLE_TOOLS_DEBUG", "ORACLE_TOOLS_DB")}
    commands = _commands()
    results: dict[str, list[dict]] = {}
    for group in ([c for c in commands if c == "ingest"], [c for c in commands if c != "ingest"]):
        for command in group:
            workdir = folder / command.replace(" ", "-")
            workdir.mkdir()
            shutil.copy(sample_db_path, workdir / "sample.duckdb")
        child = subprocess.run(
            [sys.executable, __file__, json.dumps(group), str(folder)],
            capture_output=True,
            text=True,
            timeout=600,
            env=env,
            cwd=folder,
        )
        assert child.returncode == 0, child.stderr[-3000:]
        results.update(json.loads(child.stdout))
    return results


@pytest.mark.parametrize(
    "command",
    _commands(),
)
def test_no_command_prints_a_traceback(command: str, hostile_results: dict[str, list[dict]]) -> None:
    results = hostile_results[command]
    assert len(results) >= 3
    for r in results:
        where = f"{r['args']}: {r['output']!r}"
        assert "Traceback" not in r["output"], where
        assert r["exception"] is None, where
        assert r["exit"] in (0, 1, 2), where
        if r["exit"] == 2:
            assert "error: " in r["output"] or "Error: " in r["output"], where


#: The sample's files `ingest --sample` reads in the hostile child: its small ones (200 cards, every layer
#: built). Each vector that gets past the arguments runs a whole ingest, and what the arguments do to one does
#: not depend on how many cards it reads; the whole sample made this the suite's slowest test.
HOSTILE_SAMPLE = ("alternate-names.json.gz", "cards-2024.json.gz", "cards-2025-trimmed.json.gz", "rulings.json.gz")


def _small_sample_for_ingest(workdir: Path) -> None:
    """`ingest --sample` in this child reads HOSTILE_SAMPLE, and the database the vectors name is one built
    from it: a vector meets the same re-ingest of the same sample as with the whole one (not the "far fewer
    cards" refusal)."""
    from oracle_tools import ingest

    small = [source for source in ingest.sample_sources() if source.path.name in HOSTILE_SAMPLE]
    assert len(small) == len(HOSTILE_SAMPLE)
    ingest.sample_sources = lambda: list(small)
    (workdir / "sample.duckdb").unlink(missing_ok=True)
    ingest.Ingest(workdir / "sample.duckdb", progress=False).run(small)


if __name__ == "__main__":  # a child process of hostile_results: the commands named, each in its own folder
    printed = {}
    for command in json.loads(sys.argv[1]):
        workdir = Path(sys.argv[2]) / command.replace(" ", "-")
        os.chdir(workdir)
        if command == "ingest":
            _small_sample_for_ingest(workdir)
        printed[command] = _run_hostile(command, workdir)
    json.dump(printed, sys.stdout)


# -- injectable backoff (a test would otherwise sleep 31 s through real backoff) ------------------------------


def test_backoff_comes_from_one_place(monkeypatch: pytest.MonkeyPatch) -> None:
    from oracle_tools.store import download

    waits: list[float] = []
    monkeypatch.setenv("ORACLE_TOOLS_BACKOFF", "0.25")
    with download._Client(None, max_retries=3, backoff=None, timeout=1, request_interval=0, sleep=waits.append) as c:
        assert [c._backoff_delay(n) for n in (1, 2, 3)] == [0.25, 0.5, 1.0]
    with download._Client(None, max_retries=3, backoff=2.0, timeout=1, request_interval=0, sleep=waits.append) as c:
        assert c.backoff == 2.0  # an explicit argument wins
    monkeypatch.delenv("ORACLE_TOOLS_BACKOFF")
    assert download.default_backoff() == 1.0
    monkeypatch.setenv("ORACLE_TOOLS_BACKOFF", "soon")
    with pytest.raises(OracleToolsError, match="ORACLE_TOOLS_BACKOFF='soon' is not a number of seconds"):
        download.default_backoff()


# -- the habits of a kept library -----------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_one_version_source() -> None:
    from importlib.metadata import version

    import oracle_tools

    assert oracle_tools.__version__ == version("oracle-tools") == _pyproject()["project"]["version"]
    # no module keeps a copy or reads the metadata itself (download.py kept "0.1.0" as a fallback): one reader,
    # store/resources.package_version, which oracle_tools.__version__ and the User-Agent use
    readers = []
    for path in sorted((ROOT / "oracle_tools").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert f'"{_pyproject()["project"]["version"]}"' not in text, path
        if 'version("oracle-tools")' in text:
            readers.append(path.relative_to(ROOT).as_posix())
    assert readers == ["oracle_tools/store/resources.py"]
    from oracle_tools.store import download

    assert f"oracle-tools/{oracle_tools.__version__} " in download.USER_AGENT


def test_every_runtime_dependency_has_the_lower_bound_that_was_tested() -> None:
    """CI resolves the newest versions (and prints them, .ci/run): each runtime dependency names a lower bound, and
    the version installed here (the one the suite runs against) meets it; no bound is below a major version that
    was never tested (click 8.5's groups without a command raise their help, 8.1's printed it)."""
    from importlib.metadata import version

    for requirement in _pyproject()["project"]["dependencies"]:
        found = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[[a-z,]+\])?>=([0-9.]+)", requirement)
        assert found, f"{requirement}: no lower bound"
        name, bound = found.groups()
        installed = tuple(int(part) for part in re.findall(r"\d+", version(name))[:2])
        wanted = tuple(int(part) for part in bound.split(".")[:2])
        assert installed >= wanted, (requirement, version(name))
        assert installed[0] == wanted[0], f"{requirement}: tested with {version(name)}, another major version"
    assert "pip freeze" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_readme_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)
    assert blocks[0].startswith("python3 -m venv .venv && ")  # not python3.11: a new machine may have 3.12/3.13 only
    assert "3.11, 3.12 and 3.13" in readme
    assert _pyproject()["project"]["requires-python"] == ">=3.11"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # the second block activates the first command's virtualenv, then runs the exact command CI runs
    command = blocks[1].splitlines()[-1]
    assert blocks[1].splitlines()[0].startswith(". .venv/bin/activate")
    assert any(line.startswith(command + " ") for line in ci.splitlines())


def test_notebooks_extra_covers_what_the_notebooks_import() -> None:
    """Every module a notebook imports comes from the standard library, the package's dependencies or the
    `notebooks` extra (matplotlib was only in `dev`); `dev` includes `notebooks` (CI executes the notebooks)."""
    import ast
    from importlib.metadata import packages_distributions

    import nbformat
    from packaging.requirements import Requirement

    extras = _pyproject()["project"]["optional-dependencies"]
    assert "oracle-tools[notebooks]" in extras["dev"]
    allowed = {Requirement(r).name.lower() for r in _pyproject()["project"]["dependencies"] + extras["notebooks"]}
    distributions = packages_distributions()
    imported: set[str] = set()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                for node in ast.walk(ast.parse(cell.source)):
                    if isinstance(node, ast.Import):
                        imported |= {a.name.split(".")[0] for a in node.names}
                    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                        imported.add(node.module.split(".")[0])
    assert "matplotlib" in imported
    third_party = {m for m in imported if m not in sys.stdlib_module_names and m != "oracle_tools"}
    missing = {
        m: distributions.get(m) for m in third_party if not {d.lower() for d in distributions.get(m, [m])} & allowed
    }
    assert missing == {}, f"imported by notebooks but in neither dependencies nor the notebooks extra: {missing}"


# -- every connection that runs user-derived SQL is the sandbox (search, the HTTP server, MCP) ----------


def _record_search_connections(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Wrap oracle_tools.search._execute (what search.run and search.run_rows both run a compiled query with):
    record the sandbox settings of the connection each search runs on."""
    from oracle_tools import search

    seen: list[tuple[str, str]] = []
    real = search._execute

    def spy(fetch, con, compiled, query):  # type: ignore[no-untyped-def]
        seen.append(
            con.execute(
                "SELECT current_setting('enable_external_access')::VARCHAR, current_setting('lock_configuration')::VARCHAR"
            ).fetchall()[0]
        )
        return real(fetch, con, compiled, query)

    monkeypatch.setattr(search, "_execute", spy)
    return seen


SANDBOXED = ("false", "true")


def test_searches_run_in_the_sandbox(sample_db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`search` (CLI and OracleDB), the HTTP server's /cards/search and the MCP `search` tool compile the
    user's query to SQL: each runs on a connection with external access off and the configuration locked."""
    import asyncio

    from oracle_tools.interfaces.mcp_server import build_server
    from oracle_tools.interfaces.serve.app import search_ids
    from oracle_tools.interfaces.serve.generations import Generation
    from oracle_tools.search import SearchRequest

    seen = _record_search_connections(monkeypatch)
    result = CliRunner().invoke(main, ["search", "t:goblin c:r", "--db", str(sample_db_path), "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["total_cards"] > 0
    assert seen == [SANDBOXED]

    generation = Generation(sample_db_path, 1)
    try:
        assert search_ids(generation, SearchRequest("t:goblin c:r"))
    finally:
        generation.db.close()
    assert seen == [SANDBOXED] * 2

    with OracleDB(sample_db_path) as db:
        answer = asyncio.run(build_server(db).call_tool("search", {"query": "t:goblin c:r", "limit": 2}))
        assert '"total_cards"' in str(answer)
    assert seen == [SANDBOXED] * 3


def test_every_shipped_file_is_in_the_wheel() -> None:
    """The package ships its data inside it: every non-Python file in the
    package folder matches a [tool.setuptools.package-data] pattern, so `python -m build` puts it in the wheel
    (.ci/run then installs that wheel outside the checkout and runs `ingest --sample` + `resolve`)."""
    patterns: dict[str, list[str]] = _pyproject()["tool"]["setuptools"]["package-data"]
    package = ROOT / "oracle_tools"
    files = {
        p
        for p in package.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    }
    assert any(p.name.endswith(".json.gz") for p in files) and any(p.suffix == ".sql" for p in files)
    # setuptools expands each pattern as a glob in its package's folder (`*` does not cross a `/`)
    shipped = {p for key, globs in patterns.items() for g in globs for p in ROOT.joinpath(*key.split(".")).glob(g)}
    unshipped = sorted(str(p.relative_to(ROOT)) for p in files - shipped)
    assert unshipped == [], f"not in the wheel (add a package-data pattern): {unshipped}"
    # and no module finds data beside the package (the checkout's layout) instead of inside it
    for path in package.rglob("*.py"):
        assert "parents[1]" not in path.read_text(encoding="utf-8"), path


def test_the_sandbox_has_no_readable_folder(sample_db_path: Path, tmp_path: Path) -> None:
    """DuckDB allows its temp directory (default ./.tmp) even with external access off: a file put there was
    readable through `sql`. Sandboxed spills now go to a private, empty folder of the process."""
    planted = tmp_path / ".tmp"
    planted.mkdir()
    (planted / "x.csv").write_text("secret,1\n", encoding="utf-8")
    for query in ("SELECT * FROM read_csv('.tmp/x.csv')", "SELECT * FROM glob('.tmp/*')", "SELECT * FROM glob('*')"):
        done = subprocess.run(
            [sys.executable, "-m", "oracle_tools.interfaces.cli", "sql", query, "--db", str(sample_db_path)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
        assert done.returncode == 2 and "secret" not in done.stdout, (query, done.stdout)
        assert "Permission Error" in done.stderr or "file system operations are disabled" in done.stderr, done.stderr
    with OracleDB(sample_db_path) as db:
        (folder,) = db.user_con.execute("SELECT current_setting('temp_directory')").fetchall()[0]
        assert Path(folder).is_dir() and Path(folder).stat().st_mode & 0o777 == 0o700
        assert Path(folder).parent != Path.cwd() and not any(Path(folder).iterdir())
        assert db.user_con.execute("SELECT count(*) FROM glob(?)", [f"{folder}/*"]).fetchall()[0][0] == 0


def _sql(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "oracle_tools.interfaces.cli", "sql", *args, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_every_result_type_prints(sample_db_path: Path) -> None:
    """now() (a time zone), NaN and infinities, 'infinity' dates and intervals print in every output: the table,
    CSV and JSON that json.loads reads (no NaN token: null), with dates as DuckDB writes them."""
    query = (
        "SELECT now() IS NOT NULL AS has_now, now() AS at, 'nan'::DOUBLE AS x, '-inf'::DOUBLE AS y, "
        "'infinity'::DATE AS d, '-infinity'::TIMESTAMP AS ts, INTERVAL 3 DAY AS i, ['nan'::DOUBLE, 1.5] AS l"
    )
    table = _sql(sample_db_path, query)
    assert table.returncode == 0 and "infinity" in table.stdout and "-infinity" in table.stdout, table.stderr
    assert "9999-12-31" not in table.stdout and "3 days" in table.stdout
    as_json = _sql(sample_db_path, query, "--json")
    assert as_json.returncode == 0, as_json.stderr

    def refuse(token: str) -> None:
        raise AssertionError(f"{token} is not JSON")

    (row,) = json.loads(as_json.stdout, parse_constant=refuse)
    assert row["has_now"] is True and row["at"].startswith(str(__import__("datetime").date.today().year))
    assert (row["x"], row["y"], row["d"], row["ts"], row["i"], row["l"]) == (
        None,
        None,
        "infinity",
        "-infinity",
        "3 days",
        [None, 1.5],
    )
    as_csv = _sql(sample_db_path, "SELECT 'infinity'::DATE AS d, INTERVAL 3 DAY AS i", "--csv")
    assert as_csv.stdout == "d,i\ninfinity,3 days\n"


def test_csv_and_json_stream_rows_instead_of_holding_them(sample_db_path: Path) -> None:
    """`sql --csv` of 400,000 rows (`--json` of 140,000) writes them as DuckDB reads them: the process grows
    by little more than for 10 rows (the child's peak resident memory: 12 MB and 8 MB more); held at once (one
    fetch of every row) they took 90 MB and 48 MB more, over the bound."""

    def peak(rows: int, flag: str) -> tuple[int, int]:
        """The lines the child printed and its own peak resident memory (KB), from os.wait4 on that child alone:
        this process's peak, and other children's, do not count."""
        sql = f"SELECT range AS n, range * 2 AS m FROM range({rows})"
        child = subprocess.Popen(
            [sys.executable, "-m", "oracle_tools.interfaces.cli", "sql", sql, flag, "--db", str(sample_db_path)],
            stdout=subprocess.PIPE,
        )
        out = child.stdout
        assert out is not None
        lines = sum(block.count(b"\n") for block in iter(lambda: out.read(1 << 16), b""))
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
        out.close()
        assert child.returncode == 0
        return lines, usage.ru_maxrss

    for flag, rows, lines_per_row in (("--csv", 400_000, 1), ("--json", 140_000, 4)):
        _small_lines, small_kb = peak(10, flag)
        big_lines, big_kb = peak(rows, flag)
        assert big_lines >= rows * lines_per_row
        assert big_kb - small_kb < 25_000, (flag, small_kb, big_kb)


CROSS_JOIN = "SELECT count(*) FROM range(100000000) a, range(100000) b"  # hours of work


@pytest.mark.parametrize(
    ("flag", "signame", "status", "said"),
    [
        ("", "SIGINT", 130, "interrupted"),
        ("--csv", "SIGINT", 130, "interrupted"),
        ("", "SIGTERM", 143, "stopped by SIGTERM"),
    ],
)
def test_ctrl_c_stops_a_runaway_query_at_once(
    sample_db_path: Path, flag: str, signame: str, status: int, said: str
) -> None:
    """A real SIGINT (or SIGTERM) during a cross join: DuckDB's interrupt() ends it; one line, exit 128 + the
    signal's number (docs/cli.md), no 'bug'."""
    import signal

    args = [
        sys.executable,
        "-m",
        "oracle_tools.interfaces.cli",
        "sql",
        CROSS_JOIN,
        "--db",
        str(sample_db_path),
        *flag.split(),
    ]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until_busy(proc, 2)  # past the start (~0.5 s CPU) and scanning: a signal before is another test
    except AssertionError:
        proc.kill()
        raise
    try:
        returncode, _out, err, cpu_after = stop_with(proc, getattr(signal, signame))
    finally:
        proc.kill()
    assert cpu_after < 3, cpu_after  # at once: the query has hours of work left
    assert returncode == status and err == f"error: sql: {said}\n", err


@pytest.mark.parametrize(
    "made_of_it",
    [KeyboardInterrupt, lambda: RuntimeError("Query interrupted")],  # QueryStop.reason; DuckDB's own error
)
def test_a_signal_is_the_stop_whichever_thread_stops_the_work_first(made_of_it: Callable[[], BaseException]) -> None:
    """A signal calls the registered interrupts from a thread at once: the query then fails, and QueryStop makes
    that a plain KeyboardInterrupt, possibly before the main thread's handler raises; DuckDB, when it runs the
    handler itself (connecting, planning), makes its Stopped a RuntimeError. It is still the signal's stop:
    its exit status is 128 + the signal's number (docs/cli.md: 143 for SIGTERM), not Ctrl-C's 130."""
    import os
    import signal
    import time

    from oracle_tools.store.stopping import StopOnSignals, Stopped

    def stopped_by_the_interrupt_alone() -> None:
        with StopOnSignals() as signals:
            signals.armed = False  # the handler only remembers the signal, as if the interrupt had won the race
            os.kill(os.getpid(), signal.SIGTERM)
            deadline = time.monotonic() + 5
            while signals.received is None and time.monotonic() < deadline:
                time.sleep(0.01)
            raise made_of_it()  # what QueryStop.reason or DuckDB makes of the interrupted query

    with pytest.raises(Stopped) as stopped:
        stopped_by_the_interrupt_alone()
    assert stopped.value.exit_status == 143


@pytest.mark.parametrize("command", [["search", "t:goblin"], ["info"]])
def test_ctrl_c_just_after_the_database_opens_is_an_interrupt_not_a_bug(
    sample_db_path: Path, tmp_path: Path, command: list[str]
) -> None:
    """While DuckDB connects, loads an extension or plans the query, it runs Python's SIGINT handler itself and
    makes the KeyboardInterrupt its own error ("Query interrupted", "an error while initializing the extension"):
    that was "search failed unexpectedly …; this is a bug", exit 1, about one time in three. Ctrl-C at any moment
    from the opening of the database to the answer: "interrupted", exit 130, one line, or the whole answer
    (exit 0) when the signal came after it, never killed by the signal while exiting."""
    import signal

    db = tmp_path / "copy.duckdb"  # a file of its own: the moment it is opened is the moment the work starts
    shutil.copy(sample_db_path, db)
    args = [sys.executable, "-m", "oracle_tools.interfaces.cli", *command, "--db", str(db)]
    whole = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert whole.returncode == 0, whole.stderr
    interrupted = 0
    # The moments are counted in the child's own CPU time from when this test saw the file open (a loaded machine
    # slows both alike); seeing it late can still skip the work's first moments, so the sweep is run again (at
    # most three times) until one signal came during the work.
    moments = (0, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.08)
    for cpu_after_opening in moments * 3:
        if interrupted and cpu_after_opening == 0:
            break
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            if wait_until_open(proc, db):
                wait_for_cpu(proc, cpu_after_opening)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
        outcome = (proc.returncode, out, err)
        if proc.returncode == 130:
            interrupted += 1
            assert err == f"error: {command[0]}: interrupted\n", (cpu_after_opening, outcome)
        else:
            assert outcome == (0, whole.stdout, whole.stderr), (cpu_after_opening, outcome)
    assert interrupted  # the signal came during the work at least once: not a test of finished processes only


def _catches(pid: int, signum: int) -> bool:
    """Whether the process ``pid`` has a handler of its own for ``signum`` (its SigCgt mask in /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


@pytest.mark.parametrize("program", ["oracle-tools", "python -m oracle_tools"])
@pytest.mark.parametrize(("signame", "said"), [("SIGINT", "interrupted"), ("SIGTERM", "stopped by SIGTERM")])
def test_a_signal_while_the_program_starts_is_one_line(
    sample_db_path: Path, tmp_path: Path, program: str, signame: str, said: str
) -> None:
    """Ctrl-C while the program still imported click, DuckDB and Polars (its first few hundred milliseconds)
    printed Python's KeyboardInterrupt traceback. From the moment the program's own first line runs (it catches
    SIGTERM from then on: the marker, read in /proc, so that no delay depends on the machine's speed), a signal at
    any moment is one line and 128 + its number (docs/cli.md: 130, 143), or the whole answer when it came after
    it; never the process ended by the signal without a word."""
    import signal
    import time

    signum = getattr(signal, signame)
    db = tmp_path / "copy.duckdb"
    shutil.copy(sample_db_path, db)
    script = shutil.which("oracle-tools", path=str(Path(sys.executable).parent))
    assert script is not None
    start = [script] if program == "oracle-tools" else [sys.executable, "-m", "oracle_tools"]
    args = [*start, "search", "t:goblin", "--db", str(db)]
    whole = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert whole.returncode == 0, whole.stderr
    starting = 0
    # As above: the sweep runs again (at most three times) until one signal came while the program started.
    moments = (0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.2)
    for cpu_after_the_first_line in moments * 3:
        if starting and cpu_after_the_first_line == 0:
            break
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            while proc.poll() is None and not _catches(proc.pid, signal.SIGTERM):
                time.sleep(0.0005)
            wait_for_cpu(proc, cpu_after_the_first_line)
            proc.send_signal(signum)
            out, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
        outcome = (proc.returncode, out, err)
        if err == f"error: oracle-tools: {said}\n":  # before the command started
            starting += 1
            assert outcome[:2] == (128 + signum, ""), (cpu_after_the_first_line, outcome)
        elif proc.returncode == 128 + signum:
            assert err == f"error: search: {said}\n", (cpu_after_the_first_line, outcome)
        else:
            assert outcome == (0, whole.stdout, whole.stderr), (cpu_after_the_first_line, outcome)
    assert starting  # the signal came while the program started at least once


@pytest.mark.parametrize(
    ("command", "line"),
    [(["resolve", "--batch", "-"], "lightnig bolt"), (["deck", "check", "--format", "legacy", "-"], "4 Opt")],
)
def test_sigterm_stops_a_long_command_with_one_line(sample_db_path: Path, command: list[str], line: str) -> None:
    """SIGTERM (a service manager stopping a job, `timeout`) ended `deck check` and `resolve --batch` without a
    word (the shell said 143), while `ingest` and `sql` said so. Every command says it, as Ctrl-C: one line, 143.

    The command is one that cannot end before the signal: it reads its list from a pipe this test keeps open (a
    file of 100,000 lines stopped being long when `deck check` got its 2,000-line limit). The signal is sent once
    the command has read the lines written so far (the pipe is empty: it has started, whatever the machine's
    load)."""
    import signal

    script = shutil.which("oracle-tools", path=str(Path(sys.executable).parent))
    assert script is not None
    proc = subprocess.Popen(
        [script, *command, "--db", str(sample_db_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write(f"{line}\n" * 1000)  # a list under way: the rest never comes
        assert wait_until_read(proc), "the command ended before it read its list"
        proc.send_signal(signal.SIGTERM)
        assert proc.stderr is not None
        err = proc.stderr.read()
        proc.wait(timeout=60)
    finally:
        proc.kill()
    assert (proc.returncode, err) == (
        143,
        f"error: {' '.join(command[: 2 if command[0] == 'deck' else 1])}: stopped by SIGTERM\n",
    )


def test_serve_stops_gracefully_on_sigterm(sample_db_path: Path) -> None:
    """`serve` is the one command that SIGTERM does not stop with an error once it serves (docs/cli.md): a service
    manager's stop finishes the answers under way, and the server exits 0, without a line."""
    import signal
    import time

    import httpx

    script = shutil.which("oracle-tools", path=str(Path(sys.executable).parent))
    assert script is not None
    proc = subprocess.Popen(
        [script, "serve", "--db", str(sample_db_path), "--port", "0", "--no-warm"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        served = re.match(r"serving (http://127\.0\.0\.1:\d+/)", proc.stderr.readline())
        assert served, "serve did not say where it serves"
        deadline = time.monotonic() + 60
        while True:  # the socket is bound before uvicorn listens on it
            try:
                assert httpx.get(f"{served[1]}health", timeout=30).status_code == 200  # uvicorn's handlers in place
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline and proc.poll() is None, "serve never answered"
                time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0 and "error:" not in err and "Traceback" not in err, (proc.returncode, err)


def test_sql_timeout_stops_a_runaway_query(sample_db_path: Path) -> None:
    import time

    started = time.monotonic()
    done = _sql(sample_db_path, CROSS_JOIN, "--timeout", "1")
    assert time.monotonic() - started < 60  # the cross join is hours of work; 60: a loaded machine's margin
    assert done.returncode == 2 and done.stderr == (
        "error: the query ran longer than 1 s and was stopped; narrow it (a WHERE, a LIMIT) or give it more time "
        "(--timeout SECONDS)\n"
    )
    assert _sql(sample_db_path, "SELECT count(*) AS n FROM cards", "--timeout", "1", "--json").returncode == 0


# -- `--db` must be a regular file -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [["info"], ["resolve", "Lightning Bolt"], ["sql", "SELECT 1"], ["ingest", "--sample", "--no-progress"], ["serve"]],
)
def test_a_db_that_is_a_fifo_is_refused_in_one_line(command: list[str], tmp_path: Path) -> None:
    """Opening a FIFO blocks until something writes to it: every command hung, Ctrl-C ignored."""
    fifo = tmp_path / "pipe.duckdb"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "oracle_tools.interfaces.cli", *command, "--db", str(fifo)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and done.stderr == (
        f"error: --db {fifo}: is a named pipe (FIFO), not a database file; give the path of a DuckDB file such as "
        "data/oracle.duckdb\n"
    )


def test_a_db_that_is_a_device_is_refused_before_or_after_the_command_name() -> None:
    for args in (["--db", "/dev/null", "info"], ["info", "--db", "/dev/null"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2 and result.output.startswith("error: --db /dev/null: is a device, not a"), args


def test_a_damaged_database_is_named_as_damaged_by_every_command(
    sample_db_path: Path, tmp_path: Path, cut_short: Callable[..., re.Pattern[str]]
) -> None:
    """A database cut short (a copy that stopped) made `search` blame the query ("the database could not run this
    search: IO Error…" with a caret under it, exit 2) and `resolve` say "the database failed" (exit 1). Every
    command now says the same line: the file is damaged, and how to rebuild it (as ingest says it), exit 2."""
    import duckdb

    from oracle_tools.store.sqlfiles import damaged_database

    damaged = tmp_path / "cut.duckdb"
    line = cut_short(damaged, source=sample_db_path)
    for command in (["search", "t:goblin"], ["resolve", "Tarmogoyf"], ["info"], ["same-name", "Fire", "Ice"]):
        done = subprocess.run(
            [sys.executable, "-m", "oracle_tools.interfaces.cli", *command, "--db", str(damaged)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2 and re.fullmatch(f"error: {line.pattern}\n", done.stderr), (command, done.stderr)
    checksum = duckdb.Error("Corrupt database file: computed checksum 1 does not match stored checksum 2 in block")
    assert str(damaged_database(checksum, tmp_path / "oracle.duckdb")).startswith(
        "oracle.duckdb is damaged (Corrupt database file: computed checksum 1 does not match"
    )
    assert damaged_database(duckdb.CatalogException("Table with name x does not exist!")) is None
    # a server keeps answering "damaged" until the file changes: only the database's own files are its damage,
    # never a spill file that failed once
    short_read = 'IO Error: Could not read enough bytes from file "{}": attempted to read 4096 bytes from location 0'
    spill = duckdb.IOException(short_read.format(tmp_path / "duckdb_temp_storage-0.tmp"))
    assert damaged_database(spill, damaged) is None
    for own in (damaged, tmp_path / "cut.duckdb.wal"):
        assert damaged_database(duckdb.IOException(short_read.format(own)), damaged) is not None


#: A nested-loop join: DuckDB looks for pending signals only between its tasks, and this plan is one long task
#: (on the sample, 15,000 x 45,000 names: half a minute of CPU).
NESTED_LOOP = (
    "SELECT count(*) FROM printings a, (FROM printings UNION ALL FROM printings UNION ALL FROM printings) b "
    "WHERE a.name || b.name LIKE '%zzqq%'"
)


@pytest.mark.parametrize("flag", ["", "--json"])
def test_ctrl_c_stops_a_nested_loop_join(sample_db_path: Path, flag: str) -> None:
    """Before, SIGINT waited for DuckDB to look for signals (two Ctrl-C did nothing, only kill -9 stopped it): the
    interrupt is now called from a thread the signal wakes at once. One line, exit 130."""
    import signal

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "oracle_tools.interfaces.cli",
            "sql",
            NESTED_LOOP,
            "--timeout",
            "86400",
            "--db",
            str(sample_db_path),
            *flag.split(),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until_busy(proc, 2)  # past the start (~0.5 s CPU) and joining
        returncode, _out, err, cpu_after = stop_with(proc, signal.SIGINT)
    finally:
        proc.kill()
    assert cpu_after < 5, cpu_after  # the whole query takes half a minute of CPU
    assert returncode == 130 and err == "error: sql: interrupted\n", err


def test_sql_has_a_memory_and_spill_limit(sample_db_path: Path) -> None:
    """DuckDB's default is 80 % of the machine's memory: one `sql` query of repeated strings took 20 GB and the
    machine with it. The sandbox has a documented limit (sqlfiles.SANDBOX_MEMORY_LIMIT, `--memory-limit`) and a
    limit on what it spills."""
    settings = "SELECT current_setting('memory_limit') AS m, current_setting('max_temp_directory_size') AS t"
    assert json.loads(_sql(sample_db_path, settings, "--json").stdout) == [{"m": "1.8 GiB", "t": "3.7 GiB"}]
    assert json.loads(_sql(sample_db_path, settings, "--json", "--memory-limit", "500MB").stdout)[0]["m"] == "476.8 MiB"
    refused = _sql(sample_db_path, "SELECT 1", "--memory-limit", "lots")
    assert refused.returncode == 2 and "'lots' is not a size; give one such as 500MB or 4GB" in refused.stderr


def test_a_query_past_the_memory_limit_is_one_line(sample_db_path: Path) -> None:
    query = (
        "SELECT max(length(s)) FROM (SELECT repeat(name, 20000) s FROM printings, range(100000) ORDER BY s LIMIT 10)"
    )
    done = _sql(sample_db_path, query, "--memory-limit", "200MB")
    assert done.returncode == 2 and done.stderr == (
        "error: the query needs more than --memory-limit 200MB of memory and was stopped; narrow it (a WHERE, a "
        "LIMIT) or give it more (--memory-limit 8GB)\n"
    )


def test_the_library_refuses_a_fifo_too(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.duckdb"
    os.mkfifo(fifo)
    with pytest.raises(OracleToolsError, match="is a named pipe \\(FIFO\\), not a database file"):
        OracleDB(fifo).info()


# -- the library refuses arguments of the wrong type or value, naming the argument ------------------------------


def test_the_library_refuses_wrong_name_arguments_instead_of_answering(sample_db_path: Path) -> None:
    """Each gave a wrong answer or a stranger's error: resolve_many("Tarmogoyf") resolved 9 letters, resolve(None)
    said "object of type 'NoneType' has no len()", resolve("\\ud800") was DuckDB's InvalidInputException and
    resolve("") not_found where the CLI calls an empty name bad input (as token("") does)."""
    from oracle_tools.errors import ArgumentError

    db = OracleDB(sample_db_path)  # fresh: its first lookups are the point queries, which met DuckDB's error
    try:
        with pytest.raises(TypeError, match=r"^texts must be a list or Series of names, not one str: give"):
            db.resolve_many("Tarmogoyf")
        with pytest.raises(TypeError, match=r"^text must be a str \(a card name\), not NoneType$"):
            db.resolve(None)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"^name must be a str \(a card name\), not int$"):
            db.same_name("Fire // Ice", 42)  # type: ignore[arg-type]
        for call in (lambda: db.resolve("\ud800"), lambda: db.token("\ud800"), lambda: db.choose_name("\udcff")):
            with pytest.raises(ArgumentError, match=r"is not valid Unicode text: a lone surrogate \(U\+D[8C][0F]{2}\)"):
                call()
        with pytest.raises(ValueError, match=r"^texts\['\\ud800x'\] is not valid Unicode text"):
            db.resolve_many(["Fire // Ice", "\ud800x"])
        for empty in ("", "   "):
            with pytest.raises(ArgumentError, match=r"^text is empty; give a card name such as 'Lightning Bolt'"):
                db.resolve(empty)
        # CR 201.2a, 708.2: None or '' is an object with no name (a face-down card), documented: it shares no name
        assert db.same_name("Fire // Ice", None) is False and db.object_names("") == frozenset()
        assert db.resolve("fire // ice").ok and db.resolve_many(["Fire", ""]).get_column("status").to_list() == [
            "ok",
            "not_found",
        ]
    finally:
        db.close()


def test_check_deck_refuses_the_path_of_a_missing_file_given_as_text(sample_db: OracleDB, tmp_path: Path) -> None:
    """check_deck reads a one-line str as a path when the file exists, else as decklist text (its docstring):
    "decks/nope.txt" was checked as a deck of one card, "'decks/nope.txt' is not a card name"."""
    from oracle_tools.errors import DecklistError

    for missing in ("decks/nope.txt", str(tmp_path / "gone.dek"), "./deck"):
        with pytest.raises(DecklistError, match=rf"^deck '{re.escape(missing)}': no such file \(relative paths"):
            sample_db.check_deck(missing, format="modern")
    deck = tmp_path / "deck.txt"
    deck.write_text("4 Lightning Bolt\n", encoding="utf-8")
    assert sample_db.check_deck(str(deck), format="modern").source == str(deck)  # an existing file is read
    one_line = sample_db.check_deck("4 Lightning Bolt", format="modern")  # decklist text of one line stays text
    assert one_line.source == "<text>" and not any(p.kind == "unknown_card" for p in one_line.problems)
