"""The report's Markdown, JSON and CSV are byte-identical to the golden files; HTML says the
same text (its markup may change). Regenerate with ``python -m tests.report_golden``."""

from __future__ import annotations

import difflib

import pytest

from .report_golden import GOLDEN, expected_files, outputs

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return expected_files(outputs(tmp_path_factory.mktemp("golden")))


def test_golden_files_are_all_there(produced: dict[str, str]) -> None:
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(produced)


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.iterdir()))
def test_report_output_matches_golden(produced: dict[str, str], name: str) -> None:
    want = (GOLDEN / name).read_text(encoding="utf-8")
    got = produced[name]
    if got != want:
        diff = difflib.unified_diff(
            want.splitlines(), got.splitlines(), f"golden/{name}", "now", lineterm="", n=1
        )
        pytest.fail("report output changed:\n" + "\n".join(list(diff)[:60]))
