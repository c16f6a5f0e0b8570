"""An empty answer is an answer a physician can judge (PandaLM has 54 empty model responses):
every kind imports it, stores it empty, shows it as empty in the review app, and a judge
dry run still plans its calls; a missing answer field is still an error that names it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from medjudge import kinds
from medjudge.kinds import review_facet
from medjudge.kinds.shown import EMPTY_ANSWER
from medjudge.store.importing.problems import ImportProblem
from medjudge.store.importing.run import import_file
from medjudge.store.items import find_item, get_item
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study
from tests.support.kind_rows import ROWS, write_jsonl
from tests.support.tui import run_async


def _blank(field: str) -> Callable[[dict[str, Any]], None]:
    def blank(row: dict[str, Any]) -> None:
        row[field] = ""

    return blank


def _blank_ranked(row: dict[str, Any]) -> None:
    row["answers"][0]["text"] = ""


BLANK: dict[str, Callable[[dict[str, Any]], None]] = {
    "pairwise": _blank("answer_a"),
    "statements": _blank("answer"),
    "rating": _blank("explanation"),
    "match": _blank("prediction"),
    "rubric": _blank("answer"),
    "ranking": _blank_ranked,
}
"""How each kind's first answer is made empty (a new kind must say how, or this fails)."""


def test_every_kind_says_how_its_answer_is_blanked() -> None:
    assert set(BLANK) == set(kinds.NAMES)


def _study(tmp_path: Path) -> Study:
    settings = StudySettings(name="empty", allow_reviewer_override=True)
    return Study.create(tmp_path / "s.db", settings, actor="lead")


@pytest.mark.parametrize("name", kinds.NAMES)
def test_an_empty_answer_is_imported_and_shown_as_empty(tmp_path: Path, name: str) -> None:
    row = ROWS[name](0)
    BLANK[name](row)
    study = _study(tmp_path)
    summary = import_file(study, write_jsonl(tmp_path / "in.jsonl", [row]), name, actor="lead")
    assert summary.items_added == 1
    item_id = find_item(study, str(row["id"]))
    assert item_id is not None
    item = get_item(study, item_id)
    assert "" in [a.text for a in item.answers.values()], f"{name}: the empty answer was not kept"
    shown = review_facet.facet(name).answers(item)
    assert any(s.text.plain == EMPTY_ANSWER for s in shown), f"{name}: not shown as empty"
    assert sum(s.text.plain == EMPTY_ANSWER for s in shown) == 1, f"{name}: the others are not"
    study.close()


def test_whitespace_only_is_empty_and_a_missing_field_is_still_an_error(tmp_path: Path) -> None:
    study = _study(tmp_path)
    row = ROWS["pairwise"](0)
    row["answer_b"] = "  \n "
    import_file(study, write_jsonl(tmp_path / "a.jsonl", [row]), "pairwise", actor="lead")
    item_id = find_item(study, str(row["id"]))
    assert item_id is not None
    assert get_item(study, item_id).answers["B"].text == ""
    missing = ROWS["pairwise"](1)
    del missing["answer_a"]
    with pytest.raises(ImportProblem, match=r"line 1, field 'answer_a': missing \(required\)"):
        import_file(study, write_jsonl(tmp_path / "b.jsonl", [missing]), "pairwise", actor="lead")
    study.close()


@run_async
async def test_the_review_app_shows_the_empty_answer(tmp_path: Path) -> None:
    from medjudge.tui.app import make_app
    from medjudge.tui.pane import Pane

    row = ROWS["pairwise"](0)
    row["answer_b"] = ""
    study = _study(tmp_path)
    import_file(study, write_jsonl(tmp_path / "in.jsonl", [row]), "pairwise", actor="lead")
    study.close()
    app = make_app(tmp_path / "s.db", reviewer="drA", poll_interval=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        texts = [p.plain for p in app.screen.query(Pane) if p.display]
        assert any(EMPTY_ANSWER in t for t in texts), texts
