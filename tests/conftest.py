"""Fixtures and hooks only: an isolated data folder, small studies, the slow and terminal
marks. Helpers that test modules import live in ``tests/support/``."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from medjudge.store.study import Study

from .support.reference import Reference
from .support.studies import small_study


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point MEDJUDGE_HOME at a temporary folder and drop real API keys for every test."""
    home = tmp_path / "home"
    monkeypatch.setenv("MEDJUDGE_HOME", str(home))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return home


@pytest.fixture(scope="module")
def reference() -> Iterator[Reference]:
    """The reference libraries (statsmodels, scikit-learn, krippendorff, irrCAC, ppi_py) in a
    process of their own for this module's tests, ended with the module, so that they never
    stay in the long-lived xdist workers (tests/support/reference.py)."""
    with Reference() as ref:
        yield ref


@pytest.fixture
def study(tmp_path: Path) -> Iterator[Study]:
    """An empty study with the default criteria."""
    s = Study.create(tmp_path / "study.db", actor="tester")
    yield s
    s.close()


@pytest.fixture
def pairwise_study(tmp_path: Path) -> Iterator[Study]:
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
    "test_fuzz_replies.py",
    "test_import_found_by_fuzzing.py",
    "test_concurrency.py",
    "test_concurrent_import.py",
    "test_static_checks.py",
    "test_file_faults.py",
    "test_wheel.py",
    "test_local_model.py",
    "test_e2e_tmux.py",
    "test_e2e_ssh.py",
    "test_report_browser.py",
    "test_serve_browser.py",
}
TERMINAL_FILES = {
    "test_e2e_tmux.py",
    "test_e2e_ssh.py",
    "test_report_browser.py",
    "test_serve_browser.py",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of SLOW_FILES `slow` and those of TERMINAL_FILES `terminal`."""
    for item in items:
        name = item.path.name
        if name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
        if name in TERMINAL_FILES:
            item.add_marker(pytest.mark.terminal)


@pytest.fixture
def team() -> Iterator[tuple[str, str]]:
    """A real Unix group and a reviewer login in it, removed afterwards (needs root)."""
    from .support.unix import unix_team

    yield from unix_team()


# Memory a test freed goes back to the system before the next test: the two xdist workers run
# some 700 tests each, and a test that builds large values (a 50 MB import line, a report on
# thousands of labels) left its peak resident until the worker exited. After a test whose
# resident size grew by more than TRIM_AFTER_MB, cycles are collected (an exception's
# traceback holds the frames that hold the values) and glibc's malloc_trim returns the free
# heap. Only then: a collection costs tens of milliseconds in a full worker.
TRIM_AFTER_MB = 16
_PAGE = os.sysconf("SC_PAGE_SIZE")
_libc_name = ctypes.util.find_library("c")
_malloc_trim = getattr(ctypes.CDLL(_libc_name), "malloc_trim", None) if _libc_name else None


def _resident_mb() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * _PAGE / 2**20
    except OSError:  # not Linux: no trimming
        return 0.0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Collect and trim after a test that grew the process by more than TRIM_AFTER_MB."""
    before = _resident_mb()
    yield
    if _resident_mb() - before > TRIM_AFTER_MB:
        gc.collect()
        if _malloc_trim is not None:
            _malloc_trim(0)
