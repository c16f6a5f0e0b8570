# One command for every check. Run `make check` before a commit (static checks, the generated
# docs and the fast lane, golden reports included); `make test` runs the full suite, as CI does.
# The tools come from the project venv (the README's set-up line); VENV=… for another one.
VENV ?= .venv
BIN := $(VENV)/bin
PYTEST := $(BIN)/python -m pytest -p no:cacheprovider

.PHONY: check lint typecheck layers vulture docs-check fast test docs

check: lint typecheck layers vulture docs-check fast

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck:  ## product, tests, benchmarks (strict: kinds/ store/ judging/ tests/support/; pyproject.toml)
	$(BIN)/mypy

layers:  ## the import-linter contracts of pyproject.toml
	$(BIN)/lint-imports

vulture:  ## dead code: no name unused ([tool.vulture] in pyproject.toml; scripts/vulture_allow.py)
	$(BIN)/vulture

docs-check:  ## docs/cli.md and the key tables match the commands' --help and the bindings
	$(BIN)/python scripts/gen_docs.py --check

fast:  ## the fast lane: everything not marked slow (tests/conftest.py), golden reports included
	$(PYTEST) -q -m "not slow" -n 2

test:  ## the full suite (what CI runs)
	$(PYTEST) -q -n 2

docs:  ## rewrite the generated references after changing a command or a key
	$(BIN)/python scripts/gen_docs.py
