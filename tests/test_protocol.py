"""docs/design.md §3 voting rules, case by case."""

from __future__ import annotations

import pytest

from medjudge.kinds import votes as p
from medjudge.kinds.orders import to_file


@pytest.mark.parametrize(
    ("votes", "null", "expected", "rule"),
    [
        (["A", "A", "B"], "tie", "A", "majority"),
        (["B", "B", "B"], "tie", "B", "majority"),
        (["tie", "tie", "A"], "tie", "tie", "majority"),
        (["A", "B"], "tie", "tie", "no-majority→null"),  # benefit null
        (["A", "B"], "neither", "neither", "no-majority→null"),  # risk null
        (["A", "B", "tie"], "neither", "tie", "no-majority→tie"),
        (["A", "B", "neither"], "tie", "neither", "no-majority→neither"),
        (["A", "tie", "neither"], "tie", "tie", "no-majority→null"),
        (["A", "tie", "neither"], "neither", "neither", "no-majority→null"),
        (["A"], "tie", "A", "majority"),  # one valid sample left
        (["A", "A", "B", "B"], "neither", "neither", "no-majority→null"),
        ([], "tie", None, "missing"),  # never silently a tie
    ],
)
def test_order_majority(votes: list[str], null: str, expected: str | None, rule: str) -> None:
    r = p.order_majority(votes, null)
    assert (r.verdict, r.rule) == (expected, rule)
    assert r.disagreed == (len(set(votes)) > 1)


def test_the_ba_order_maps_votes_back() -> None:
    assert [to_file(v, "BA") for v in ("A", "B", "tie", "neither")] == ["B", "A", "tie", "neither"]


@pytest.mark.parametrize(
    ("ab", "ba", "null", "expected", "inconsistent"),
    [
        ("A", "A", "tie", "A", False),
        ("A", "B", "tie", "tie", True),
        ("A", "B", "neither", "neither", True),
        ("tie", "neither", "tie", "tie", True),
        (None, "A", "tie", None, False),
        ("A", None, "tie", None, False),
    ],
)
def test_reconcile(ab, ba, null, expected, inconsistent) -> None:  # type: ignore[no-untyped-def]
    r = p.reconcile(ab, ba, null)
    assert (r.verdict, r.position_inconsistent) == (expected, inconsistent)


def test_panel_rules() -> None:
    assert p.panel(["A", "A"], "tie").verdict == "A"
    split = p.panel(["A", "B", "A"], "tie")
    assert (split.verdict, split.disagreed) == ("tie", True)
    assert p.panel(["A", "B", "A"], "tie", "plurality").verdict == "A"
    assert p.panel(["A", "B"], "neither", "plurality").verdict == "neither"  # tied plurality
    assert p.panel(["A", None], "tie").verdict is None
    with pytest.raises(ValueError):
        p.panel(["A"], "tie", "random")


def test_statements_and_kqa() -> None:
    assert p.statement_majority(["entailed", "entailed", "neutral"]).verdict == "entailed"
    assert p.statement_majority(["entailed", "contradicted", "neutral"]).verdict == "neutral"
    assert p.statement_majority(["entailed", "contradicted"]).verdict == "neutral"
    assert p.statement_majority([]).verdict is None
    assert p.kqa_label("yes", "yes") == "contradicted"
    assert p.kqa_label("yes", "no") == "entailed"
    assert p.kqa_label("no", "no") == "neutral"


def test_ratings() -> None:
    assert p.rating_median([4, 2, 5]) == 4
    assert p.rating_median([4, 2]) == 2
    assert p.rating_median([]) is None
    assert p.options_majority([["A", "B"], ["A"], ["A", "C"]]) == ["A"]
    assert p.options_majority([["A"], []]) == []
    assert p.options_majority([]) is None


def test_a_split_panel_on_a_match_unit_gives_the_lowest_score_not_a_statement_label() -> None:
    """A panel of judges that split on a MedRGB score used to record "neutral" (a statement
    label) on the match unit; the kind now settles it at the most critical member's score."""
    from medjudge import kinds
    from medjudge.store.settings import default_criteria

    match = kinds.get("match")
    crit = default_criteria("match")[0]
    members = ["1", "0.5"]
    null = match.panel_null(None, None, crit, members)  # type: ignore[arg-type]
    assert null == "0.5"
    assert p.panel(members, null).verdict == "0.5"
    assert p.panel(["0", "1"], match.panel_null(None, None, crit, ["0", "1"])).verdict == "0"  # type: ignore[arg-type]
