"""Every notebook in notebooks/ runs top to bottom on the embedded sample without an error.

The notebooks ingest the sample into a scratch database and save their figures; both are pointed
into a temporary folder here, so the committed notebooks and PNGs are never touched.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert len(NOTEBOOKS) >= 3


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path, sample_db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each notebook reads the database it is pointed at (the session's sample database, copied) and leaves it
    as it was: it neither ingests into it nor writes it."""
    import hashlib
    import shutil

    pointed = tmp_path / "sample.duckdb"
    shutil.copy(sample_db_path, pointed)
    before = hashlib.sha256(pointed.read_bytes()).hexdigest()
    monkeypatch.setenv("ORACLE_TOOLS_NOTEBOOK_DB", str(pointed))
    monkeypatch.setenv("ORACLE_TOOLS_FIGURES", str(tmp_path / "figures"))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    # "python3" is ipykernel's own kernel: jupyter_client runs it with this interpreter (sys.executable).
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=120, resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [
        o
        for cell in nb.cells
        if cell.cell_type == "code"
        for o in cell.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors
    if path.name.startswith("03"):
        assert {p.name for p in (tmp_path / "figures").glob("*.png")} >= {
            "modern-mana-curves.png",
            "card-types-by-year.png",
        }
    assert os.environ["ORACLE_TOOLS_NOTEBOOK_DB"] == str(pointed)
    assert hashlib.sha256(pointed.read_bytes()).hexdigest() == before  # read, not rebuilt
    assert not list(tmp_path.glob("sample.duckdb.*"))  # no ingest left a lock or temporary file beside it


def test_running_a_notebook_as_a_user_does_changes_no_tracked_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`jupyter execute notebooks/03-format-analysis.ipynb` (its defaults: no environment set) writes its figures
    and database outside what git tracks; each run takes a database of its own."""
    import subprocess

    for name in ("ORACLE_TOOLS_NOTEBOOK_DB", "ORACLE_TOOLS_FIGURES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MPLBACKEND", "Agg")

    def status() -> str:
        done = subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True, check=True)
        return done.stdout

    before = status()
    path = REPO / "notebooks" / "03-format-analysis.ipynb"
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=120, resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    assert status() == before
    for notebook in NOTEBOOKS:  # the database path is a fresh temporary folder's, per run
        source = "\n".join(c.source for c in nbformat.read(notebook, as_version=4).cells if c.cell_type == "code")
        assert "tempfile.mkdtemp(" in source, notebook.name
