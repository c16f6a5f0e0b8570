"""The report in every format says what the golden files say: the same text, and the same
numbers to within a relative 1e-9 (last bits differ between processors); HTML is compared by
its text (its markup may change). Regenerate with ``python -m tests.support.report_golden``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .support.report_golden import GOLDEN, differences, outputs, read_golden, stored_name


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return outputs(tmp_path_factory.mktemp("golden"))


def test_golden_files_are_all_there(produced: dict[str, str]) -> None:
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(map(stored_name, produced))


@pytest.mark.parametrize("name", sorted(p.name.removesuffix(".gz") for p in GOLDEN.iterdir()))
def test_report_output_matches_golden(produced: dict[str, str], name: str) -> None:
    diff = differences(read_golden(name), produced[name], name)
    if diff is not None:
        pytest.fail("report output changed:\n" + diff)


def test_a_golden_number_matches_within_the_tolerance_only() -> None:
    """Floats may differ in their last bits between processors; nothing else may differ."""
    line = "kappa,0.19513659561693195,,-1.245692535757978,12"
    assert differences(line, "kappa,0.19513659561693197,,-1.2456925357579784,12", "x") is None
    assert differences("w,0.0,3", "w,2.220446049250313e-16,3", "x") is None
    assert differences(line, "kappa,0.1951366,,-1.245692535757978,12", "x") is not None
    assert differences(line, "kappa,0.19513659561693195,,-1.245692535757978,13", "x") is not None
    assert differences(line, "kappa,0.19513659561693195;,-1.245692535757978,12", "x") is not None
    assert differences(line, line + "\nmore", "x") is not None


def test_streamed_json_equals_the_whole_dump(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`report -f json` writes the JSON piece by piece; every way of cutting it gives the text
    json.dumps writes for the whole model."""
    from medjudge.judging.report.build import build_report
    from medjudge.judging.report.render import json as render_json
    from medjudge.store.study import Study

    from .support.rich_study import NOW, build_rich_study

    with Study.open(build_rich_study(tmp_path)) as s:
        report = build_report(s, now=NOW)
    whole = json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
    for cut in (0, 1, 64, 10**9):  # 0: every list record by record; 10**9: no list streamed
        monkeypatch.setattr(render_json, "STREAM_LIST", cut)
        pieces = list(render_json.json_chunks(report))
        assert "".join(pieces) == whole
        assert cut > 1 or len(pieces) > 1000  # cut record by record
        # no list is dumped whole, however deep it sits (K-QA answers are inside `kqa`)
        assert cut > 1 or max(map(len, pieces)) * 100 < len(whole)


def test_streamed_csv_equals_the_whole_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`report -f csv` writes the table in pieces of CHUNK_ROWS rows; joined they are the text
    `render` gives, however it is cut."""
    from medjudge.judging.report.build import build_report, render
    from medjudge.judging.report.render import csv as render_csv
    from medjudge.store.study import Study

    from .support.rich_study import NOW, build_rich_study

    with Study.open(build_rich_study(tmp_path)) as s:
        report = build_report(s, now=NOW)
    whole = render(report, "csv")
    rows = whole.count("\n")
    for cut in (1, 7, 10**9):
        monkeypatch.setattr(render_csv, "CHUNK_ROWS", cut)
        pieces = list(render_csv.csv_chunks(report))
        assert "".join(pieces) == whole
        assert len(pieces) == rows // cut + 1  # a piece every `cut` rows, then the rest
