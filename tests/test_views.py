"""Agreement views of a study: the live object for the review app, comparisons, consistency."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from medjudge.judging.analysis.consistency import judge_consistency
from medjudge.judging.analysis.live import MAJORITY, LiveAgreement
from medjudge.judging.analysis.study_data import REFERENCE, load_study_data
from medjudge.judging.analysis.views import (
    ViewOptions,
    criterion_comparisons,
    reference_comparisons,
    unresolved_disagreements,
)
from medjudge.judging.stats.agreement.core import two_rater_stats, without_ties
from medjudge.store.importing.run import import_file
from medjudge.store.items import get_item, list_items
from medjudge.store.judgments import NewVerdict, write_verdicts
from medjudge.store.labels import revert, set_label
from medjudge.store.study import Study

from .support.kind_rows import pairwise_row, write_jsonl
from .support.reference import Reference
from .support.reference_calls import fleiss
from .support.studies import as_json
from .support.trails import CONFIG, JUDGE, adjudicate, pairwise_trail

PW = ["A", "B", "tie", "neither"]


def _pairwise_study(tmp_path: Path, n: int = 8) -> Study:
    rows = [
        pairwise_row(
            i, batch="b1" if i < n // 2 else "b2", source_b="model-y" if i % 2 else "model-z"
        )
        for i in range(n)
    ]
    s = Study.create(tmp_path / "v.db", actor="t")
    import_file(s, write_jsonl(tmp_path / "v.jsonl", rows), "pairwise", actor="t")
    return s


def _units(study: Study, criterion: str) -> list[int]:
    return [get_item(study, r.id).unit_for(criterion).id for r in list_items(study)]


# ------------------------------------------------------------------------------- live


def test_live_refresh_sees_another_connection(tmp_path: Path) -> None:
    s = _pairwise_study(tmp_path)
    live = LiveAgreement(s)
    assert live.rows() == []
    assert live.refresh() is False
    other = Study.open(s.path)  # another process's connection, e.g. a second reviewer
    units = _units(other, "correctness")
    ann = ["A", "A", "B", "tie", "B", "A", "neither", "A"]
    bob = ["A", "B", "B", "tie", "B", "A", "tie", "A"]
    for u, a, b in zip(units, ann, bob, strict=True):
        set_label(other, u, "ann", a)
        set_label(other, u, "bob", b)
    assert live.refresh() is True
    (row,) = live.rows()
    expected = two_rater_stats(ann, bob, categories=PW, intervals=False)
    assert (row.criterion, row.kind, row.n_units) == ("correctness", "pairwise", 8)
    assert row.human_human.value == pytest.approx(6 / 8)
    assert row.human_kappa.value == pytest.approx(expected.cohen.value)
    assert row.judge is None and row.judge_kappa.reason == "no judge verdicts"
    assert live.raters() == ["ann", "bob"]

    verdicts = []
    judge = ["A", "B", "B", "tie", "A", "A", "neither", "B"]
    for u, v in zip(units, judge, strict=True):
        value, trail = pairwise_trail(other, "correctness", [v] * 3, [v] * 3)
        verdicts.append(NewVerdict(u, value, "r", trail))
    write_verdicts(other, JUDGE, CONFIG, verdicts, run_id=None, actor="t")
    assert live.refresh() is True
    (row,) = live.rows()
    # Majority of two reviewers exists only where they agree: units 0, 2, 3, 4, 5, 7.
    majority = [a if a == b else None for a, b in zip(ann, bob, strict=True)]
    expected = two_rater_stats(majority, judge, categories=PW, intervals=False)
    assert row.judge == JUDGE
    assert row.judge_human.value == pytest.approx(4 / 6)
    assert row.judge_human.n == 6
    assert row.judge_kappa.value == pytest.approx(expected.cohen.value)
    assert live.raters("correctness") == ["ann", "bob", JUDGE]
    assert live.rater_kind(JUDGE) == "judge"

    detail = live.pair(MAJORITY, JUDGE, "correctness")
    assert detail.n == 6 and detail.percent.has_ci and detail.cohen.method == "normal_se"
    assert detail.confusion.categories == PW
    assert sum(map(sum, detail.confusion.matrix)) == 6
    assert live.pair("ann", "nobody", "correctness").n == 0
    other.close()


def test_live_recomputes_only_the_touched_criterion_and_follows_undo(tmp_path: Path) -> None:
    s = _pairwise_study(tmp_path, n=4)
    for crit in ("correctness", "helpfulness"):
        for u in _units(s, crit):
            set_label(s, u, "ann", "A")
            set_label(s, u, "bob", "B")
    live = LiveAgreement(s)
    before = {r.criterion: r for r in live.rows()}
    saved = set_label(s, _units(s, "correctness")[0], "bob", "A")
    assert live.refresh()
    after = {r.criterion: r for r in live.rows()}
    assert after["helpfulness"] is before["helpfulness"]  # untouched: not recomputed
    assert after["correctness"].human_human.value == pytest.approx(1 / 4)
    revert(s, saved, "bob")
    revert(s, set_label(s, _units(s, "helpfulness")[1], "cy", "tie"), "cy")
    assert live.refresh()
    rows = {r.criterion: r for r in live.rows()}
    assert rows["correctness"].human_human.value == 0.0
    assert "cy" not in live.raters("helpfulness")  # the undone label is gone again


def test_live_three_reviewers_use_fleiss(tmp_path: Path, reference: Reference) -> None:
    s = _pairwise_study(tmp_path, n=6)
    table = [
        ["A", "A", "A"],
        ["B", "B", "A"],
        ["tie", "tie", "tie"],
        ["A", "B", "B"],
        ["neither", "neither", "tie"],
        ["B", "B", "B"],
    ]
    for u, votes in zip(_units(s, "bias"), table, strict=True):
        for name, v in zip(("ann", "bob", "cy"), votes, strict=True):
            set_label(s, u, name, v)
    (row,) = LiveAgreement(s).rows()
    codes = [[PW.index(v) for v in r] for r in table]
    assert row.human_kappa.value == pytest.approx(reference(fleiss, codes, n_cat=4))
    pairs = [(0, 1), (0, 2), (1, 2)]
    mean_pp = sum(sum(r[i] == r[j] for r in table) / 6 for i, j in pairs) / 3
    assert row.human_human.value == pytest.approx(mean_pp)


def test_live_one_reviewer_is_undefined_with_reason(tmp_path: Path) -> None:
    s = _pairwise_study(tmp_path, n=2)
    set_label(s, _units(s, "reasoning")[0], "ann", "A")
    (row,) = LiveAgreement(s).rows()
    assert row.human_human.value is None
    assert row.human_kappa.reason == "fewer than two reviewers have labels"


# ------------------------------------------------------------------------------- views


def _judged_study(tmp_path: Path) -> tuple[Study, dict[str, list[Any]]]:
    s = _pairwise_study(tmp_path, n=8)
    units = _units(s, "correctness")
    ann = ["A", "A", "B", "tie", "B", "A", "neither", "A"]
    bob = ["A", "B", "B", "tie", "B", "A", "tie", None]
    ab = ["A", "A", "B", "tie", "A", "B", "neither", "A"]
    ba = ["A", "B", "B", "tie", "A", "B", "tie", "B"]
    for u, a, b in zip(units, ann, bob, strict=True):
        set_label(s, u, "ann", a)
        if b is not None:
            set_label(s, u, "bob", b)
    verdicts = []
    for i, u in enumerate(units):
        # Sample 3 of AB disagrees on unit 1; unit 4 has a failed sample in AB.
        ab_votes = [ab[i], ab[i], "B" if i == 1 else ab[i]]
        value, trail = pairwise_trail(
            s, "correctness", ab_votes, [ba[i]] * 3, failed=1 if i == 4 else 0
        )
        verdicts.append(NewVerdict(u, value, "r", trail))
    write_verdicts(s, JUDGE, CONFIG, verdicts, run_id=None, actor="t")
    final = [a if a == b else "tie" for a, b in zip(ab, ba, strict=True)]  # null verdict: tie
    return s, {"units": units, "ann": ann, "bob": bob, "ab": ab, "ba": ba, "judge": final}


def _find(records: list[dict[str, Any]], **want: Any) -> dict[str, Any]:
    hits = [r for r in records if all(r.get(k) == v for k, v in want.items())]
    assert len(hits) == 1, (want, [(r["view"], r["rater_a"], r["slice"]) for r in records])
    return hits[0]


def test_comparisons_match_the_statistics_functions(tmp_path: Path) -> None:
    s, d = _judged_study(tmp_path)
    data = load_study_data(s)
    recs = as_json(criterion_comparisons(data, "correctness", ViewOptions()))
    hh = _find(recs, view="human_human", ties="with", slice="all")
    expected = two_rater_stats(d["ann"], d["bob"], categories=PW)
    assert (hh["rater_a"], hh["rater_b"], hh["n"]) == ("ann", "bob", 7)
    assert hh["metrics"]["cohen"]["value"] == pytest.approx(expected.cohen.value)
    assert hh["confusion"]["matrix"] == expected.confusion.matrix
    no_ties = _find(recs, view="human_human", ties="without", slice="all")
    a, b = without_ties(d["ann"], d["bob"])
    assert no_ties["n"] == two_rater_stats(a, b).n == 5
    assert no_ties["metrics"]["percent"]["value"] == pytest.approx(4 / 5)

    hj = _find(recs, view="human_judge", rater_a="ann", ties="with", slice="all")
    assert hj["metrics"]["percent"]["value"] == pytest.approx(
        sum(x == y for x, y in zip(d["ann"], d["judge"], strict=True)) / 8
    )
    maj = _find(recs, view="majority_judge", ties="with", slice="all")
    # ann = bob on 5 units; on unit 7 only ann labelled, so her label is the majority.
    assert maj["rater_a"] == MAJORITY and maj["n"] == 6

    abba = _find(recs, view="ab_ba", ties="with", slice="all")
    assert (abba["rater_a"], abba["rater_b"]) == (f"{JUDGE} [AB]", f"{JUDGE} [BA]")
    assert abba["metrics"]["percent"]["value"] == pytest.approx(
        sum(x == y for x, y in zip(d["ab"], d["ba"], strict=True)) / 8
    )

    b1 = _find(recs, view="human_human", ties="with", slice="batch=b1")
    assert b1["n"] == 4 and b1["metrics"]["percent"]["value"] == pytest.approx(3 / 4)
    assert b1["metrics"]["cohen"]["method"] == "normal_se"  # the same method as the whole
    src = _find(recs, view="human_human", ties="with", slice="source=model-x vs model-y")
    assert src["n"] == 3  # odd items (1, 3, 5; item 7 has no second label)


def test_intervals_are_reproducible_and_one_method_per_figure(tmp_path: Path) -> None:
    s, _ = _judged_study(tmp_path)
    data = load_study_data(s)
    one = as_json(criterion_comparisons(data, "correctness", ViewOptions(n_boot=300, seed=5)))
    two = as_json(criterion_comparisons(data, "correctness", ViewOptions(n_boot=300, seed=5)))
    assert one == two
    from medjudge.judging.stats.conventions import INTERVAL_METHODS

    for rec in one:
        for name, est in rec["metrics"].items():
            assert est["method"] in (INTERVAL_METHODS[name], "none"), (rec["slice"], name)
    maj = _find(one, view="majority_judge", ties="with", slice="all")
    cl = maj["classification"]
    assert cl["n"] == maj["n"]
    assert cl["accuracy"]["value"] == pytest.approx(maj["metrics"]["percent"]["value"])


def test_reference_and_unresolved(tmp_path: Path) -> None:
    s, d = _judged_study(tmp_path)
    units = d["units"]
    # Disagreements among ann, bob and the judge: every unit where the labels differ.
    rows = list(zip(d["ann"], d["bob"], d["judge"], strict=True))
    disagreeing = [i for i, r in enumerate(rows) if len({v for v in r if v is not None}) >= 2]
    adjudicate(s, units[1], "B")
    adjudicate(s, units[1], "A")  # the latest adjudication wins
    adjudicate(s, units[6], "neither")
    data = load_study_data(s)
    assert data.adjudications[units[1]] == "A"
    assert unresolved_disagreements(data, "correctness") == len(disagreeing) - 2
    recs = as_json(reference_comparisons(data, "correctness", ViewOptions()))
    ann = _find(recs, rater_a="ann")
    assert ann["rater_b"] == REFERENCE and ann["n"] == 2
    assert ann["metrics"]["percent"]["value"] == 1.0  # ann said A and neither
    bob = _find(recs, rater_a="bob")
    assert bob["metrics"]["percent"]["value"] == 0.0  # bob said B and tie
    assert {r["rater_a"] for r in recs} == {"ann", "bob", MAJORITY, JUDGE}


def test_judge_consistency_from_trails(tmp_path: Path) -> None:
    s, d = _judged_study(tmp_path)
    write_verdicts(
        s,
        JUDGE,
        CONFIG,
        [
            NewVerdict(
                _units(s, "helpfulness")[0],
                None,
                "",
                {
                    "orders": {
                        "AB": {"votes": [], "failed": [{"key": "x"}] * 3, "verdict": None},
                        "BA": {"votes": ["A"] * 3, "verdict": "A"},
                    }
                },
            )
        ],
        run_id=None,
        actor="t",
    )
    recs = {r["criterion"]: r for r in as_json(judge_consistency(load_study_data(s)))}
    c = recs["correctness"]
    assert c["n_verdicts"] == 8 and c["missing"] == 0 and c["failed_samples"] == 1
    assert c["samples_disagreed"]["count"] == 1 and c["samples_disagreed"]["n"] == 8
    inconsistent = sum(a != b for a, b in zip(d["ab"], d["ba"], strict=True))
    assert c["position_inconsistent"]["count"] == inconsistent
    assert c["position_inconsistent"]["value"] == pytest.approx(inconsistent / 8)
    h = recs["helpfulness"]
    assert h["missing"] == 1 and h["failed_samples"] == 3
    assert h["position_inconsistent"]["value"] is None
    assert h["position_inconsistent"]["reason"] == "no unit with both orders decided"


def test_a_pair_sharing_no_unit_names_the_real_cause(tmp_path: Path) -> None:
    """Both physicians labelled every unit but never agreed: the reviewers' majority vs the
    judge shares no unit because there is no majority, not because nobody labelled."""
    from medjudge.judging.analysis.views import ALL_TIES, NO_MAJORITY_UNITS

    s = _pairwise_study(tmp_path, n=4)
    units = _units(s, "correctness")
    for u, (a, b) in zip(
        units, [("A", "B"), ("B", "A"), ("A", "tie"), ("neither", "B")], strict=True
    ):
        set_label(s, u, "ann", a)
        set_label(s, u, "bob", b)
    value, trail = pairwise_trail(s, "correctness", ["A"] * 3, ["A"] * 3)
    write_verdicts(
        s, JUDGE, CONFIG, [NewVerdict(u, value, "r", trail) for u in units], run_id=None, actor="t"
    )
    recs = as_json(criterion_comparisons(load_study_data(s), "correctness", ViewOptions(n_boot=50)))
    mj = _find(recs, view="majority_judge", ties="with", slice="all")
    assert mj["n"] == 0
    reasons = {m["reason"] for m in mj["metrics"].values()}
    assert reasons == {NO_MAJORITY_UNITS}, reasons
    assert "no units labelled by both raters" not in str(mj)
    # every shared unit a tie, ties left out
    (tmp_path / "t").mkdir()
    t = _pairwise_study(tmp_path / "t", n=2)
    for u in _units(t, "correctness"):
        set_label(t, u, "ann", "tie")
        set_label(t, u, "bob", "tie")
    recs = as_json(criterion_comparisons(load_study_data(t), "correctness", ViewOptions(n_boot=50)))
    hh = _find(recs, view="human_human", ties="without", slice="all")
    assert hh["n"] == 0 and {m["reason"] for m in hh["metrics"].values()} == {ALL_TIES}
