"""Every registered kind is one package with each facet, and the facets that draw load only
with the apps: ``report`` and ``judge`` import no review facet and no Textual."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from medjudge import kinds
from medjudge.kinds import review_facet

from .support.studies import small_study

KINDS_DIR = Path(kinds.__file__).resolve().parent


@pytest.mark.parametrize("name", kinds.NAMES)
def test_every_kind_is_a_package_with_a_review_facet(name: str) -> None:
    assert (KINDS_DIR / name / "model.py").is_file(), f"{name}: no kinds/{name}/model.py"
    facet = review_facet.facet(name)
    assert facet.kind is kinds.get(name), f"{name}: its review facet is another kind's"
    assert facet.max_answers >= 1


def test_the_screen_composes_as_many_answer_panes_as_the_widest_kind() -> None:
    from medjudge.tui.review.answer_panes import AnswerPanes

    widest = max(review_facet.facet(n).max_answers for n in kinds.NAMES)
    assert AnswerPanes.count == widest


PROBE = """
import contextlib, io, json, sys
sys.argv = ["medjudge", *json.loads(sys.argv[1])]
import medjudge.cli
with contextlib.redirect_stdout(io.StringIO()):
    try:
        medjudge.cli.app()
    except SystemExit:
        pass
drawn = sorted(
    m for m in sys.modules
    if m.split(".")[0] == "textual" or m.startswith("medjudge.kinds.") and (
        m.endswith(".review") or m.endswith(".review_facet") or m.endswith(".shown")
    )
)
print(json.dumps(drawn))
"""


@pytest.mark.parametrize("args", [["report", "{study}", "-f", "md", "-o", "{out}"], ["--help"]])
def test_commands_that_draw_nothing_load_no_review_facet(tmp_path: Path, args: list[str]) -> None:
    path = tmp_path / "s.db"
    small_study(path, pairwise=2, statements=1).close()
    argv = [a.format(study=path, out=tmp_path / "r.md") for a in args]
    r = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argv)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1]) == [], " ".join(args)


@pytest.mark.parametrize("name", kinds.NAMES)
def test_every_kind_has_a_report_facet(name: str) -> None:
    from medjudge.judging.report.kind_sections import of_kind

    assert (KINDS_DIR / name / "report.py").is_file(), f"{name}: no kinds/{name}/report.py"
    assert of_kind(name), f"{name}: its report facet declares no section"
