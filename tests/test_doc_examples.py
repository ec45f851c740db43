"""The example outputs of README.md and docs/*.md are what the commands print (scripts/doc_examples.py, cog)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "doc_examples.py"


def _check(sample_db: Path, *files: Path) -> subprocess.CompletedProcess[str]:
    """The script's --check, starting from a copy of the session's sample database (what `ingest --sample`
    builds: conftest's sample_db_path) rather than a second `ingest --sample`."""
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--check", f"--sample-db={sample_db}", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_docs_show_what_the_commands_print(sample_db_path: Path) -> None:
    """Every example block of README.md and docs/*.md, run again on a fresh sample database, prints exactly
    what the docs show; when this fails, `python scripts/doc_examples.py` rewrites them (then read the diff)."""
    done = _check(sample_db_path)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    blocks = sum((ROOT / name).read_text(encoding="utf-8").count("[[[cog") for name in ("README.md", "docs/cli.md"))
    assert blocks >= 15


def test_a_drifted_example_is_caught(sample_db_path: Path, tmp_path: Path) -> None:
    """The check fails when a shown output is not what the command prints (here: one changed word). The drifted
    block is the README's own example, alone in a page: the check runs one command, not every example again."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = "Lightning Bolt  [via printed]"
    assert readme.count(shown) >= 1
    block = "<!-- [[[cog\nshell(commands=r'''\noracle-tools resolve Foudre\n''')\n]]] -->\n"
    output = f"```\n$ oracle-tools resolve Foudre\n{shown}\n```\n<!-- [[[end]]] -->\n"
    assert f"$ oracle-tools resolve Foudre\n{shown}\n" in readme
    page = tmp_path / "page.md"
    page.write_text(block + output, encoding="utf-8")
    page.write_text(block + output.replace(shown, "Lightning Bolt  [via name]"), encoding="utf-8")
    done = _check(sample_db_path, page)
    assert done.returncode != 0 and "[via name]" in done.stdout
