"""The package layout is a contract (docs/architecture.md): layers that only import downward, no import cycles at
any depth (import-linter's contracts in pyproject.toml, also run by `make lint`), no private name used across a
module boundary, every layer package saying what it holds and may import, and one place that chooses how names
are resolved."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "oracle_tools"
LAYERS = ("store", "text", "history", "names", "choose", "decks", "tokens", "scryfall", "search", "interfaces")


@cache
def _modules() -> tuple[tuple[Path, ast.Module], ...]:
    """Every module of the package, parsed once for the tests of this file (they only read the trees)."""
    return tuple((p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(PACKAGE.rglob("*.py")))


def test_import_contracts_are_kept() -> None:
    """Every contract of [tool.importlinter] holds: a layer imports only the layers below it (function-level and
    type-only imports included), the rules concepts import each other not at all, and no cycle exists."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    kinds = {c["type"] for c in config["contracts"]}
    assert kinds == {"layers", "acyclic_siblings"}
    layers = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    named = {part.strip().removeprefix("oracle_tools.") for layer in layers for part in layer.split("|")}
    assert set(LAYERS) <= named  # every layer package is placed in the order
    lint = Path(sys.executable).parent / "lint-imports"  # the venv's, also when its bin/ is not on PATH
    if not lint.exists():
        pytest.skip("import-linter is not installed (dev extra)")
    result = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:]
    assert f"Contracts: {len(config['contracts'])} kept, 0 broken." in result.stdout


def test_no_private_name_crosses_a_module_boundary() -> None:
    """What another module needs is public API of its owner: no ``from oracle_tools.x import _name`` and no
    ``module._name`` on an imported oracle_tools module."""
    found = []
    for path, tree in _modules():
        modules: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("oracle_tools"):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {alias.name}")
                    modules.add(alias.asname or alias.name)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} uses {node.value.id}.{node.attr}")
    assert found == []


def test_every_public_error_is_defined_in_errors_py() -> None:
    """Every exception class the package raises to users is defined in oracle_tools/errors.py, with its exit and
    HTTP status; the only exception classes defined elsewhere are the private control flow errors.py's docstring
    names (never seen by a user). errors.py imports nothing of the package, so every layer may import it."""
    import oracle_tools.errors as errors

    public = {name for name, value in vars(errors).items() if isinstance(value, type) and issubclass(value, Exception)}
    exception_bases = {"Exception", "ValueError", *public}
    elsewhere = {
        node.name
        for path, tree in _modules()
        if path.name != "errors.py" or path.parent != PACKAGE
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and any(isinstance(base, ast.Name) and base.id in exception_bases for base in node.bases)
    }
    assert elsewhere == {
        "_Retryable",
        "_Unsorted",
        "_ParseFailure",
        "PastLimits",
        "ApiError",
        "PageError",
        "PoolFull",
        "_Refused",
    }
    assert all(f"``{name}``" in (errors.__doc__ or "") for name in elsewhere)
    tree = ast.parse((PACKAGE / "errors.py").read_text(encoding="utf-8"))
    assert not [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and "oracle_tools" in (node.module or "")
    ]
    assert {
        "SinceDateError",
        "SearchSyntaxError",
        "DeckTooLargeError",
        "ConstraintCardError",
        "InputTooLargeError",
    } <= public
    assert {"ReadOnlySQLError", "QueryTimeoutError", "ExportError", "OutOfMemory", "ManaCostError"} <= public


def test_every_layer_package_says_what_it_holds_and_may_import() -> None:
    for layer in LAYERS:
        doc = ast.get_docstring(ast.parse((PACKAGE / layer / "__init__.py").read_text(encoding="utf-8")))
        assert doc, layer
        assert "import" in doc.lower(), layer  # what it may import (docs/architecture.md)
    flat = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert flat == ["__init__", "__main__", "db", "errors", "ingest"]  # the facade, the ingest, the shared errors


def test_one_place_chooses_how_names_are_resolved() -> None:
    """The point-query and the in-memory strategies of the one ``resolve`` are chosen in OracleDB only (the ingest
    resolves with point queries while it builds); no interface, search or rules concept constructs either."""
    makers = {
        path.relative_to(PACKAGE).as_posix()
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "attr", getattr(node.func, "id", None)) in ("PointNames", "NameIndex")
    }
    assert makers == {"db.py", "tokens/build.py"}
    resolvers = [
        path.relative_to(PACKAGE).as_posix()
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and node.name == "resolve"
        and "interfaces" not in path.parts
        and ast.unparse(node.body[-1]) != "..."  # a Protocol's declaration (chooser.ResolvesNames) implements nothing
    ]
    # OracleDB.resolve and NameResolver.resolve (the CLI command and the MCP tool of that name call OracleDB's)
    assert sorted(resolvers) == ["db.py", "names/resolver.py"]


def test_the_interfaces_run_no_sql_and_the_server_is_split_by_job() -> None:
    """The doors only parse and render: no module of ``interfaces/`` runs a statement of its own (the server's card
    and printing lookups are oracle_tools/scryfall/lookups.py, each tested without a server), and no module of the
    server grows past 800 lines (docs/architecture.md: "A new HTTP endpoint")."""
    running = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path, tree in _modules()
        if "interfaces" in path.parts
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("execute", "executemany", "sql")
    ]
    assert running == []
    long = {
        path.name: lines
        for path in (PACKAGE / "interfaces" / "serve").glob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 800
    }
    assert long == {}
