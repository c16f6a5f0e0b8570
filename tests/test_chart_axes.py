"""A chart's x axis is ordered by value (MedRGB's p: 0, 40, 80 — not the order in which the
series happen to hold them), each line is drawn left to right, and every point shows its n
and its interval."""

from __future__ import annotations

from medjudge.judging.analysis.records import Figure
from medjudge.judging.report.chart_shapes import Dot, Label, Polyline
from medjudge.judging.report.charts import lines


def _fig(value: float, n: int) -> Figure:
    return Figure(
        value=value,
        ci_low=value - 0.1,
        ci_high=value + 0.1,
        n=n,
        reason=None,
        method="bca_bootstrap",
        se=None,
        unstable=n < 20,
    )


def test_the_x_axis_is_ordered_by_value_whichever_series_comes_first() -> None:
    chart = lines(
        [
            ("model-x", [("40", _fig(0.5, 12)), ("80", _fig(0.7, 14))]),  # no p = 0
            ("model-y", [("0", _fig(0.2, 10)), ("40", _fig(0.4, 11)), ("80", _fig(0.6, 13))]),
        ],
        title="Mean score by p",
        x_label="p",
    )
    ticks = [s for s in chart.shapes if isinstance(s, Label) and s.y == chart.height - 26]
    assert [t.text for t in sorted(ticks, key=lambda t: t.x)] == ["0", "40", "80"]
    for line in (s for s in chart.shapes if isinstance(s, Polyline)):
        xs = [x for x, _ in line.points]
        assert xs == sorted(xs), "a line drawn right to left"
    dots = [s for s in chart.shapes if isinstance(s, Dot)]
    assert len(dots) == 5
    assert "model-y: 0 → 0.20 [0.10, 0.30] (n = 10)" in [d.tip for d in dots]
    n_labels = {s.text for s in chart.shapes if isinstance(s, Label) and s.text.startswith("n=")}
    assert n_labels == {"n=10", "n=11", "n=12", "n=13", "n=14"}


def test_text_categories_keep_their_order_as_text() -> None:
    chart = lines(
        [("a", [("sufficiency", _fig(0.5, 3)), ("integration", _fig(0.6, 3))])],
        title="t",
        x_label="test",
    )
    ticks = [
        s for s in chart.shapes if isinstance(s, Label) and s.text in ("sufficiency", "integration")
    ]
    assert [t.text for t in sorted(ticks, key=lambda t: t.x)] == ["integration", "sufficiency"]
