# The project's tasks, run inside the virtualenv that has the dev extra (README: the second command makes it).
# .ci/run and the pre-commit hook run `make lint`, so a check added here runs everywhere.
.PHONY: lint test ci

# ruff (lint and format), mypy (pyproject.toml [tool.mypy] files: the package, tests, bench, scripts), and the import
# contracts of pyproject.toml [tool.importlinter] (docs/architecture.md)
lint:
	ruff check .
	ruff format --check .
	mypy
	lint-imports

# the README's test command
test:
	python -m pytest -q

# what CI runs on a clean checkout (install, lint, wheel smoke test, tests)
ci:
	bash .ci/run
