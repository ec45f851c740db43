# The project's tasks, run inside the virtualenv that has the dev extra (README: the second command makes it).
# .ci/run and the pre-commit hook run `make lint`, so a check added here runs everywhere.
.PHONY: lint test test-fast ci

# ruff (lint and format), mypy (pyproject.toml [tool.mypy] files: the package, tests, bench, scripts), and the import
# contracts of pyproject.toml [tool.importlinter] (docs/architecture.md)
lint:
	ruff check .
	ruff format --check .
	mypy
	lint-imports

# the README's test command: the whole suite, in parallel (pytest-xdist: one worker a core, a test module's tests on
# one worker; the real-data databases built once for all of them)
test:
	python -m pytest -q -n auto --dist loadfile

# the inner loop (about a minute): every module's fast tests on the sample database; no real data, browsers,
# third-party clients or slow child-process tests (the `slow` mark, set in tests/conftest.py); Hypothesis at its
# quick profile. Run `make test` before a commit that touches more than one module.
test-fast:
	python -m pytest -q -m "not slow" -n auto --dist loadfile

# what CI runs on a clean checkout (install, lint, wheel smoke test, tests)
ci:
	bash .ci/run
