"""Shared fixtures: an isolated data folder, study builders, and the path to ../shared."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from medjudge.store.study import Study

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
KQA = SHARED / "datasets" / "kqa" / "questions_w_answers.jsonl"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point MEDJUDGE_HOME at a temporary folder and drop real API keys for every test."""
    home = tmp_path / "home"
    monkeypatch.setenv("MEDJUDGE_HOME", str(home))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return home


def needs_kqa() -> pytest.MarkDecorator:
    """Skip unless ../shared/datasets/kqa is beside the repository."""
    return pytest.mark.skipif(
        not KQA.exists(), reason=f"K-QA data not found at {KQA} (../shared absent)"
    )


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    """Write rows as JSONL and return the path."""
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def pairwise_row(i: int, **extra: object) -> dict:
    """A valid pairwise record."""
    row = {
        "id": f"p{i}",
        "question": f"Question {i}?",
        "answer_a": f"Answer A {i}.",
        "answer_b": f"Answer B {i}.",
        "source_a": "model-x",
        "source_b": "model-y",
    }
    row.update(extra)
    return row


def statements_row(i: int, **extra: object) -> dict:
    """A valid statements record with two must-have and one nice-to-have statement."""
    row = {
        "id": f"s{i}",
        "question": f"Question {i}?",
        "answer": f"Answer {i}.",
        "source": "model-x",
        "must_have": [f"Must {i}.1", f"Must {i}.2"],
        "nice_to_have": [f"Nice {i}.1"],
    }
    row.update(extra)
    return row


def small_study(path: Path, *, pairwise: int, statements: int, actor: str = "tester") -> Study:
    """A new study at ``path`` with ``pairwise_row`` and ``statements_row`` items, open."""
    from medjudge.store.importing.run import import_file

    s = Study.create(path, actor=actor)
    for kind, rows in (
        ("pairwise", [pairwise_row(i) for i in range(pairwise)]),
        ("statements", [statements_row(i) for i in range(statements)]),
    ):
        if rows:
            import_file(
                s, write_jsonl(path.with_name(f"{path.stem}-{kind}.jsonl"), rows), kind, actor=actor
            )
    return s


@pytest.fixture
def study(tmp_path: Path) -> Study:
    """An empty study with the default criteria."""
    s = Study.create(tmp_path / "study.db", actor="tester")
    yield s
    s.close()


@pytest.fixture
def pairwise_study(tmp_path: Path) -> Study:
    """A study with 5 pairwise and 2 statements items."""
    s = small_study(tmp_path / "pw.db", pairwise=5, statements=2)
    yield s
    s.close()


# The fast lane (`pytest -m "not slow"`) leaves out whole files whose tests each take seconds:
# real processes killed mid-write, fuzzing, soak, real terminals, SSH, a browser, a wheel build.
# They still run in CI (the full command). Terminal tests are also marked `terminal`.
SLOW_FILES = {
    "test_crash.py",
    "test_secrets.py",
    "test_fuzz_import.py",
    "test_concurrency.py",
    "test_concurrent_import.py",
    "test_static_checks.py",
    "test_file_faults.py",
    "test_wheel.py",
    "test_local_model.py",
    "test_e2e_tmux.py",
    "test_e2e_ssh.py",
    "test_report_browser.py",
}
TERMINAL_FILES = {"test_e2e_tmux.py", "test_e2e_ssh.py", "test_report_browser.py"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of SLOW_FILES `slow` and those of TERMINAL_FILES `terminal`."""
    for item in items:
        name = item.path.name
        if name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
        if name in TERMINAL_FILES:
            item.add_marker(pytest.mark.terminal)


def as_json(value: Any) -> Any:
    """A record (or list of records) of the analyses as its JSON: what the report writes."""
    from pydantic import BaseModel

    if isinstance(value, list):
        return [as_json(v) for v in value]
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


@pytest.fixture
def team() -> Iterator[tuple[str, str]]:
    """A real Unix group and a reviewer login in it, removed afterwards (needs root)."""
    from .support.unix import unix_team

    yield from unix_team()
