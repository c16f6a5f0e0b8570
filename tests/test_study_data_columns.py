"""The report's study data as columns: a few bytes per unit, the same answers.

:class:`CriterionLabels` is checked against :class:`LabelMatrix` (the live app's dict-based
store, the reference) on random label sets; :class:`UnitTable` against the units it was
given; and loading a real study creates no Python object per unit.
"""

from __future__ import annotations

import gc
import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medjudge.judging.analysis.label_columns import CriterionLabels
from medjudge.judging.analysis.study_data import load_study_data, strict_majority
from medjudge.judging.analysis.trail_facts import TrailFacts, trail_facts
from medjudge.judging.analysis.unit_table import ItemFacts, UnitInfo, UnitTable
from medjudge.judging.stats.agreement.core import LabelMatrix
from medjudge.kinds.statements import CRITERION as STATEMENT_CRITERION
from medjudge.store.judge_versions import verdict_call_totals
from medjudge.store.judgments import NewVerdict, write_verdicts
from medjudge.store.study import Study

RATERS = ("ann", "bob", "cy", "dee")
VALUES = ("A", "B", "tie", 1, 2, 3)

labels_st = st.lists(
    st.tuples(
        st.integers(0, 29),  # position among the criterion's units
        st.sampled_from(RATERS),
        st.one_of(st.none(), st.sampled_from(VALUES)),  # None: the label is removed
    ),
    max_size=120,
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    ids=st.lists(st.integers(1, 10_000), min_size=1, max_size=30, unique=True),
    records=labels_st,
    wanted=st.lists(st.integers(0, 10_050), max_size=40),
)
def test_criterion_labels_answer_like_the_label_matrix(
    ids: list[int], records: list[tuple[int, str, object]], wanted: list[int]
) -> None:
    units = sorted(ids)
    got, want = CriterionLabels(units), LabelMatrix()
    for pos, rater, value in records:
        unit = units[pos % len(units)]
        got.set(unit, rater, value)
        want.set(unit, rater, value)
    assert sorted(got.raters()) == sorted(want.raters())  # type: ignore[type-var]
    assert {r: got.count(r) for r in RATERS} == {r: want.count(r) for r in RATERS}
    assert len(got) == len(want)
    assert list(got.units()) == sorted(want.units())  # type: ignore[type-var]
    for unit in units:
        for rater in RATERS:
            assert got.get(unit, rater) == want.get(unit, rater)
    # any units, in any order, some of them not this criterion's: no label there
    for rater in RATERS:
        assert got.column(rater, wanted) == [want.get(u, rater) for u in wanted]
    for humans in (RATERS[:2], RATERS[:3], RATERS):
        assert got.majority(humans, wanted) == [
            strict_majority(want.get(u, h) for h in humans) for u in wanted
        ]
    differ = [u for u in units if len({want.get(u, r) for r in RATERS} - {None}) >= 2]
    assert list(got.disagreeing()) == differ


def test_criterion_labels_refuse_a_foreign_unit() -> None:
    labels = CriterionLabels([2, 4, 6])
    with pytest.raises(KeyError):
        labels.set(5, "ann", "A")
    assert labels.column("ann", [5]) == [None] and labels.get(5, "ann") is None


def test_unit_table_gives_back_every_unit() -> None:
    table = UnitTable()
    pair = table.add_item(ItemFacts(10, "q1", "pairwise", "b1", ("m1", "m2"), {"site": "x"}))
    stmt = table.add_item(ItemFacts(11, "q2", "statements", None, ("m1",), {}))
    table.add(3, pair, "correctness", None, None)
    table.add(4, pair, "harm", None, None)
    table.add(9, stmt, "statement", "must_have", 77)
    table.add(12, stmt, "statement", "nice_to_have", 78)
    assert len(table) == 4 and list(table) == [3, 4, 9, 12]
    assert table[3] == UnitInfo(3, 10, "q1", "pairwise", "correctness", "b1", ("m1", "m2"))
    assert table[3].meta == {"site": "x"} and table[3].source_label == "m1 vs m2"
    assert table[12] == UnitInfo(
        12, 11, "q2", "statements", "statement", None, ("m1",), "nice_to_have", 78
    )
    keys: set[object] = set(table)
    assert 9 in table and 5 not in table and "9" not in keys
    assert table.get(5) is None
    with pytest.raises(KeyError):
        table[13]
    assert table.criterion_of(4) == "harm" and table.item_of(9).ext_id == "q2"  # type: ignore[union-attr]
    assert table.criterion_of(5) is None and table.item_of(5) is None
    assert {c: list(ids) for c, ids in table.criterion_units().items()} == {
        "correctness": [3],
        "harm": [4],
        "statement": [9, 12],
    }
    assert table.kind_counts() == {"pairwise": 2, "statements": 2}
    with pytest.raises(ValueError, match="increasing"):
        table.add(12, stmt, "statement", None, None)


def _statements_study(tmp: Path, items: int) -> Path:
    """``items`` statements items of 10 statements, each labelled by two reviewers."""
    src = tmp / f"s{items}.jsonl"
    values = ("entailed", "neutral", "contradicted")
    with src.open("w", encoding="utf-8") as fh:
        for i in range(items):
            row = {
                "id": f"s{i}",
                "question": f"Q{i}?",
                "answer": f"A{i}.",
                "source": f"model-{i % 3}",
                "statements": [
                    {"text": f"S{i}.{k}", "category": "must_have" if k < 6 else "nice_to_have"}
                    for k in range(10)
                ],
                "labels": [
                    {"rater": r, "statement": k, "value": values[(i + k + len(r)) % 3]}
                    for k in range(10)
                    for r in ("ann", "bob")
                ],
            }
            fh.write(json.dumps(row) + "\n")
    from medjudge.store.importing.run import import_file

    path = tmp / f"s{items}.db"
    with Study.create(path) as s:
        import_file(s, src, kind="statements", actor="lead")
    return path


def _judge_every_unit(path: Path) -> None:
    """A judge's verdict on every unit, each trail with its own call keys and reasons."""
    with Study.open(path) as s:
        verdicts = [
            NewVerdict(
                unit_id,
                "entailed",
                "",
                {
                    "calls": [f"{unit_id:08d}{k}" * 8 for k in range(3)],
                    "votes": ["entailed", "entailed", "neutral"],
                    "reasons": [f"reason {unit_id}.{k}" for k in range(3)],
                    "samples_disagreed": True,
                    "failed": [],
                },
            )
            for (unit_id,) in s.conn.execute("SELECT id FROM units")
        ]
        write_verdicts(s, "openai:j", {"spec": "openai:j"}, verdicts, run_id=None, actor="lead")


def test_loading_a_study_makes_no_object_per_unit(tmp_path: Path) -> None:
    """A report holds a study's units and labels as columns and its verdicts without their
    trails: the objects the collector tracks grow with the items (one record each), not with
    the statements, the labels or the verdicts."""
    path = _statements_study(tmp_path, 300)  # 3,000 statements, 6,000 labels
    _judge_every_unit(path)  # 3,000 verdicts
    with Study.open(path) as s:
        load_study_data(s)  # warm: modules, caches
        gc.collect()
        before = Counter(type(o).__name__ for o in gc.get_objects())
        data = load_study_data(s)
        gc.collect()
        after = Counter(type(o).__name__ for o in gc.get_objects())
        grown = sum((after - before).values())
        assert len(data.units) == 3_000 and len(data.labels[STATEMENT_CRITERION]) == 9_000
        assert len(data.verdicts["openai:j"]) == 3_000
        assert grown < 1_000, (after - before).most_common(5)


@pytest.mark.parametrize(
    ("trail", "facts"),
    [
        (
            {
                "orders": {
                    "AB": {"verdict": "A", "votes": ["A", "B"], "samples_disagreed": True},
                    "BA": {"verdict": "B", "votes": ["B"], "failed": [{"key": "k"}] * 2},
                }
            },
            TrailFacts(
                "orders",
                "A",
                "B",
                failed=2,
                voted=True,
                disagreed=True,
                sampled=True,
                inconsistent=True,
            ),
        ),
        # a ranking's rotations are its orders: every one counts, none is AB or BA
        (
            {
                "orders": {
                    "ABC": {"verdict": "A>B>C", "votes": ["A>B>C"]},
                    "BCA": {"verdict": "A>B>C", "votes": ["A>B>C"], "failed": [{}]},
                    "CAB": {"verdict": "B>A>C", "votes": ["B>A>C", "A>B>C"]},
                }
            },
            TrailFacts("orders", failed=1, voted=True, sampled=True, inconsistent=True),
        ),
        # a broken order counts as absent; a verdict that is no label is no verdict
        (
            {"orders": {"AB": ["A"], "BA": {"verdict": ["B"], "failed": "x"}}},
            TrailFacts("orders", None, None),
        ),
        ({"orders": {}}, TrailFacts("orders")),
        (
            {"members": {"a": "A", "b": "B"}, "judges_disagreed": True, "failed": [1]},
            TrailFacts("panel", disagreed=True),
        ),
        (
            {"votes": ["x"], "samples_disagreed": False, "failed": [{}, {}, {}]},
            TrailFacts("plain", failed=3, voted=True),
        ),
        ({"source": "import"}, TrailFacts("plain")),
    ],
)
def test_trail_facts(trail: dict[str, object], facts: TrailFacts) -> None:
    assert trail_facts(trail) == facts


def _trail_keys(trail: object) -> set[str]:
    """Reference: every ``calls`` entry and every ``key`` text, at any depth."""
    out: set[str] = set()
    if isinstance(trail, dict):
        for k, v in trail.items():
            if k == "calls" and isinstance(v, list):
                out |= {x for x in v if isinstance(x, str)}
            elif k == "key" and isinstance(v, str):
                out.add(v)
            else:
                out |= _trail_keys(v)
    elif isinstance(trail, list):
        for v in trail:
            out |= _trail_keys(v)
    return out


def test_call_totals_of_a_judge_come_from_its_current_trails(tmp_path: Path) -> None:
    """The calls a judge's verdicts were made from are summed inside SQLite; the same sums as
    collecting every key of every current trail in Python and adding up those calls."""
    from .support.rich_study import PANEL, build_rich_study
    from .support.trails import JUDGE

    with Study.open(build_rich_study(tmp_path)) as s:
        trails = [
            json.loads(t)
            for (t,) in s.conn.execute(
                "SELECT v.trail FROM current_verdicts v JOIN raters r ON r.id = v.rater_id "
                "WHERE r.name = ?",
                (JUDGE,),
            )
        ]
        keys = set().union(*(_trail_keys(t) for t in trails))
        stored = sorted(keys)[::2] + ["not-named-1", "not-named-2"]  # half the keys + others
        with s.tx() as conn:
            for i, key in enumerate(stored):
                conn.execute(
                    "INSERT INTO judge_calls (key, judge, provider, model, template, "
                    "template_hash, params, messages, task, sample, status, input_tokens, "
                    "output_tokens, cost_usd, latency_s, created_at) VALUES (?, ?, 'openai', "
                    "'m', 't', 'h', '{}', '[]', 'x', 0, ?, ?, 5, 0.25, 1.5, 'now')",
                    (key, JUDGE, "failed" if i % 3 == 0 else "ok", 100 + i),
                )
        rows = [
            r
            for r in s.conn.execute(
                "SELECT key, status, input_tokens, output_tokens, cost_usd, latency_s "
                "FROM judge_calls"
            )
            if r[0] in keys
        ]
        totals = verdict_call_totals(s, JUDGE)
        assert totals is not None and totals.calls == len(rows) > 0
        assert totals.failed == sum(r[1] == "failed" for r in rows) > 0
        assert totals.input_tokens == sum(r[2] for r in rows)
        assert totals.cost_usd == pytest.approx(sum(r[4] for r in rows))
        assert verdict_call_totals(s, PANEL) is None  # a panel's trails name no call


def test_verdict_table_is_a_mapping_of_shared_verdicts() -> None:
    from medjudge.judging.analysis.verdict_table import VerdictInfo, VerdictTable

    facts = TrailFacts("plain", voted=True)
    table, want = VerdictTable(), {}
    for unit in (2, 5, 9, 40):
        verdict = VerdictInfo("A" if unit % 2 else "B", "ok", facts)
        table.add(unit, verdict)
        want[unit] = verdict
    assert dict(table) == want and dict(table.items()) == want and len(table) == 4
    assert list(table) == [2, 5, 9, 40] and table.get(3) is None and 3 not in table
    assert table[5] is table[9]  # equal verdicts: one object
    with pytest.raises(KeyError):
        table[41]
    with pytest.raises(ValueError, match="increasing"):
        table.add(40, want[40])
