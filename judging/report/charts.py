"""The HTML report's charts as geometry: shapes with positions, colours and texts, no markup.

Each function lays out one chart (coefficients with intervals, a confusion heatmap, 100% bars,
bars of shares, lines by a shared x) as a :class:`Chart` of :class:`Shape` s; the template
``_charts.html.j2`` writes them as inline SVG (no JavaScript, no external files), escaping
every text and making its control characters visible (the page's ``text`` filter): texts here
stay raw, except that :func:`clip` measures (and cuts) the text as it will show. Charts scale to their container via ``viewBox``; long labels are cut with an
ellipsis (:func:`clip`) and carry the full text as a tooltip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from medjudge.judging.analysis.records import Confusion, Figure, Share
from medjudge.judging.analysis.view_inputs import slice_order
from medjudge.store.literal import printable

from .chart_shapes import INK, Chart, Dot, Label, Line, Polyline, Rect, Shape

MUTED = "#6b7280"
GRID = "#e5e7eb"
COLORS = {
    "reviewers": "#2563eb",
    "judge": "#d97706",
    "win": "#15803d",
    "tie": "#9ca3af",
    "neither": "#d1d5db",
    "loss": "#b91c1c",
    "samples": "#7c3aed",
    "position": "#d97706",
    "panel": "#0f766e",
}
SERIES = ("#2563eb", "#d97706", "#15803d", "#7c3aed", "#b91c1c", "#0f766e", "#6b7280")
"""Line colours of the series of a line chart, in order."""


def clip(text: object, width: int) -> str:
    """Study text made printable and cut to ``width`` characters."""
    t = " ".join(printable("" if text is None else str(text)).split())
    return t if len(t) <= width else t[: max(1, width - 1)] + "…"


def _text(x: float, y: float, text: object, width: int, **kw: object) -> Label:
    full = "" if text is None else str(text)
    return Label(x, y, clip(text, width), full, **kw)  # type: ignore[arg-type]


def _heading(title: str) -> Label:
    return Label(0, 14, title, anchor="start", size=14, weight="600", middle=False)


def _layout(groups: Sequence[str], top: float, row_h: float) -> tuple[list[float], list[Label]]:
    """Row tops, with a header row of its own wherever the group changes; and the headers."""
    ys: list[float] = []
    headers: list[Label] = []
    y = top
    last = None
    for g in groups:
        if g != last:
            headers.append(_text(0, y + row_h / 2 + 2, g, 60, anchor="start", weight="600"))
            y += row_h
            last = g
        ys.append(y)
        y += row_h
    return ys, headers


def _whiskers(x1: float, x2: float, y: float, color: str) -> list[Shape]:
    return [
        Line(x1, y, x2, y, color, 2),
        Line(x1, y - 5, x1, y + 5, color, 2),
        Line(x2, y - 5, x2, y + 5, color, 2),
    ]


@dataclass(frozen=True)
class ForestRow:
    """One row of a coefficient plot."""

    group: str
    label: str
    estimate: Figure | None
    color: str = COLORS["reviewers"]


def forest(
    rows: Sequence[ForestRow], *, title: str, lo: float | None = None, hi: float = 1.0
) -> Chart:
    """Coefficients with CI whiskers, grouped (e.g. per criterion); undefined ones say why."""
    values = [
        v
        for r in rows
        if r.estimate
        for v in (r.estimate.ci_low, r.estimate.value)
        if v is not None
    ]
    if lo is None:
        low = min(values) if values else 0.0
        lo = -1.0 if low < -0.2 else (-0.2 if low < 0 else 0.0)
    left, right, row_h, top, width = 300, 40, 22, 34, 900
    plot_w = width - left - right
    ys, headers = _layout([r.group for r in rows], top, row_h)
    height = int((ys[-1] if ys else top) + row_h + 30)
    scale_lo = lo

    def x(v: float) -> float:
        return left + (max(scale_lo, min(hi, v)) - scale_lo) / (hi - scale_lo) * plot_w

    shapes: list[Shape] = [_heading(title)]
    step = 0.2 if hi - lo <= 1.2 else 0.5
    tick = lo
    while tick <= hi + 1e-9:
        xx = x(tick)
        shapes.append(Line(xx, top - 6, xx, height - 24, GRID if abs(tick) > 1e-9 else "#9ca3af"))
        shapes.append(
            Label(
                xx, height - 10, f"{tick:.1f}", anchor="middle", size=11, color=MUTED, middle=False
            )
        )
        tick = round(tick + step, 10)
    shapes += headers
    for i, r in enumerate(rows):
        y = ys[i] + row_h / 2
        if i % 2 == 0:
            shapes.append(Rect(left - 200, ys[i], width - left + 200, row_h, "#f9fafb"))
        shapes.append(_text(left - 8, y, r.label, 42))
        e = r.estimate
        if e is None or e.value is None:
            reason = (e.reason if e else None) or "not available"
            shapes.append(
                _text(left + 6, y, f"undefined: {reason}", 90, anchor="start", size=11, color=MUTED)
            )
            continue
        if e.ci_low is not None and e.ci_high is not None:
            shapes += _whiskers(x(e.ci_low), x(e.ci_high), y, r.color)
        shapes.append(Dot(x(e.value), y, 4.5, r.color, f"{r.label}: {e.value:.3f} (n = {e.n})"))
    return Chart(width, height, title, tuple(shapes))


def heatmap(conf: Confusion, rater_a: str, rater_b: str, *, title: str) -> Chart:
    """A confusion matrix as a heatmap (rows: rater_a, columns: rater_b), counts in cells
    (:func:`~.tables.confusion_records` gives only tables with their full matrix)."""
    matrix = conf.matrix or []
    cats = [str(c) for c in conf.categories]
    k = len(cats)
    cell = 44 if k <= 5 else 30
    left, top = 110, 62
    width, height = left + cell * k + 20, top + cell * k + 20
    peak = max([v for row in matrix for v in row] + [1])
    shapes: list[Shape] = [
        _text(0, 12, title, 60, anchor="start", size=13, weight="600"),
        _text(
            left + cell * k / 2,
            32,
            f"{rater_b} (columns)",
            40,
            anchor="middle",
            size=11,
            color=MUTED,
        ),
    ]
    for j, c in enumerate(cats):
        shapes.append(_text(left + cell * j + cell / 2, top - 10, c, 7, anchor="middle", size=11))
    for i, row in enumerate(matrix):
        y = top + cell * i
        shapes.append(_text(left - 6, y + cell / 2, cats[i], 14, size=11))
        for j, v in enumerate(row):
            share = v / peak
            shapes.append(
                Rect(
                    left + cell * j,
                    y,
                    cell,
                    cell,
                    f"rgba(37,99,235,{0.06 + 0.84 * share:.3f})",
                    INK if i == j else "#ffffff",
                    1.5 if i == j else 1,
                    tip=f"{cats[i]} / {cats[j]}: {v}",
                )
            )
            shapes.append(
                Label(
                    left + cell * j + cell / 2,
                    y + cell / 2,
                    str(v),
                    anchor="middle",
                    color="#ffffff" if share > 0.55 else INK,
                )
            )
    shapes.append(
        Label(
            12,
            top + cell * k / 2,
            f"{clip(rater_a, 24)} (rows)",
            anchor="middle",
            size=11,
            color=MUTED,
            rotate=True,
            middle=False,
        )
    )
    return Chart(width, height, title, tuple(shapes))


def stacked(
    rows: Sequence[tuple[str, str, dict[str, float], int]], parts: Sequence[str], *, title: str
) -> Chart:
    """Horizontal 100% bars: rows of (group, label, shares by part, n)."""
    left, right, row_h, top, width = 300, 60, 22, 48, 900
    plot_w = width - left - right
    ys, headers = _layout([r[0] for r in rows], top, row_h)
    height = int((ys[-1] if ys else top) + row_h + 12)
    shapes: list[Shape] = [_heading(title)]
    lx = left
    for p in parts:
        shapes.append(Rect(lx, 24, 12, 12, COLORS[p]))
        shapes.append(Label(lx + 16, 34, p, anchor="start", size=11, middle=False))
        lx += 80
    shapes += headers
    for i, (_, label, shares, n) in enumerate(rows):
        y = ys[i]
        shapes.append(_text(left - 8, y + row_h / 2, label, 42))
        x = float(left)
        for p in parts:
            w = plot_w * shares.get(p, 0.0)
            if w > 0:
                pct = 100 * shares.get(p, 0.0)
                tip = f"{label} {p}: {pct:.1f}%"
                shapes.append(Rect(x, y + 3, w, row_h - 6, COLORS[p], tip=tip))
                if w > 34:
                    color = "#ffffff" if p in ("win", "loss") else INK
                    shapes.append(
                        Label(
                            x + w / 2,
                            y + row_h / 2,
                            f"{pct:.0f}%",
                            anchor="middle",
                            size=10,
                            color=color,
                        )
                    )
            x += w
        shapes.append(
            Label(left + plot_w + 6, y + row_h / 2, f"n={n}", anchor="start", size=11, color=MUTED)
        )
    return Chart(width, height, title, tuple(shapes))


def bars(rows: Sequence[tuple[str, str, Share | None, str]], *, title: str) -> Chart:
    """Horizontal bars of shares (0–1) with CI whiskers: rows of (group, label, share, color)."""
    left, right, row_h, top, width = 300, 120, 20, 34, 900
    plot_w = width - left - right
    ys, headers = _layout([r[0] for r in rows], top, row_h)
    height = int((ys[-1] if ys else top) + row_h + 30)
    shapes: list[Shape] = [_heading(title)]
    for t in range(0, 11, 2):
        xx = left + plot_w * t / 10
        shapes.append(Line(xx, top - 4, xx, height - 24, GRID))
        shapes.append(
            Label(
                xx, height - 10, f"{t * 10}%", anchor="middle", size=11, color=MUTED, middle=False
            )
        )
    shapes += headers
    for i, (_, label, e, color) in enumerate(rows):
        y = ys[i]
        shapes.append(_text(left - 8, y + row_h / 2, label, 42))
        if e is None or e.value is None:
            reason = str((e.reason if e else None) or "n/a")
            shapes.append(
                _text(
                    left + 4,
                    y + row_h / 2,
                    "undefined: " + reason,
                    60,
                    anchor="start",
                    size=11,
                    color=MUTED,
                )
            )
            continue
        shapes.append(Rect(left, y + 4, plot_w * e.value, row_h - 8, color, opacity=0.85))
        if e.ci_low is not None and e.ci_high is not None:
            x1, x2 = left + plot_w * e.ci_low, left + plot_w * e.ci_high
            shapes.append(Line(x1, y + row_h / 2, x2, y + row_h / 2, INK, 1.2))
        shapes.append(
            Label(
                left + plot_w + 6,
                y + row_h / 2,
                f"{100 * e.value:.1f}% ({e.count}/{e.n})",
                anchor="start",
                size=11,
                color=MUTED,
            )
        )
    return Chart(width, height, title, tuple(shapes))


def lines(
    series: Sequence[tuple[str, Sequence[tuple[str, Figure]]]],
    *,
    title: str,
    x_label: str,
    y_max: float = 1.0,
) -> Chart:
    """A line chart with CI whiskers: series of (name, [(x label, figure)]), y from 0 to
    ``y_max``. The x axis holds every series' labels, ordered by value (numerically when all
    are numbers: p = 0, 20, 40 …, whichever series has which), each line drawn left to right;
    every point is labelled with its n, and its tooltip gives its interval."""
    xs = slice_order(list(dict.fromkeys(x for _, points in series for x, _ in points)))
    left, right, top, bottom = 50, 190, 34, 44
    width, height = 760, 300
    plot_w, plot_h = width - left - right, height - top - bottom
    shapes: list[Shape] = [_heading(title)]

    def px(i: int) -> float:
        return left + (plot_w * (i + 0.5) / len(xs) if xs else 0.0)

    def py(v: float) -> float:
        return top + plot_h * (1.0 - v / y_max)

    for t in range(0, 5):
        v = y_max * t / 4
        shapes.append(Line(left, py(v), left + plot_w, py(v), GRID))
        shapes.append(Label(left - 6, py(v), f"{v:g}", size=11, color=MUTED))
    for i, x in enumerate(xs):
        shapes.append(_text(px(i), height - 26, x, 12, anchor="middle", size=11, color=MUTED))
    shapes.append(
        _text(left + plot_w / 2, height - 8, x_label, 80, anchor="middle", size=11, color=MUTED)
    )
    for k, (name, points) in enumerate(series):
        color = SERIES[k % len(SERIES)]
        coords: list[tuple[float, float]] = []
        for x, e in points:
            if e.value is None:
                continue
            i = xs.index(x)
            coords.append((px(i), py(e.value)))
            interval = ""
            if e.ci_low is not None and e.ci_high is not None:
                shapes.append(Line(px(i), py(e.ci_low), px(i), py(e.ci_high), color, 1, 0.6))
                interval = f" [{e.ci_low:.2f}, {e.ci_high:.2f}]"
            tip = f"{name}: {x} → {e.value:.2f}{interval} (n = {e.n})"
            shapes.append(Dot(px(i), py(e.value), 3.5, color, tip))
            n_label = f"n={e.n}"
            shapes.append(
                _text(px(i) + 6, py(e.value) - 6, n_label, 8, anchor="start", size=9, color=color)
            )
        if len(coords) > 1:
            shapes.append(Polyline(tuple(sorted(coords)), color))
        y = top + 14 + 18 * k
        shapes.append(Rect(left + plot_w + 14, y - 5, 12, 10, color))
        shapes.append(_text(left + plot_w + 32, y, name, 22, anchor="start", size=11))
    return Chart(width, height, title, tuple(shapes))
