"""Inline SVG charts for the HTML report, drawn in Python (no JavaScript, no external files).

Every text that comes from a study goes through :func:`esc` (control characters made visible,
then HTML-escaped) before it reaches the markup. Charts scale to their container via
``viewBox``; long labels are cut with an ellipsis and carry the full text in a ``<title>``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from medjudge.store.literal import printable

FONT = "font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif"
INK = "#1f2937"
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


def esc(text: object) -> str:
    """Study text made safe for HTML/SVG: visible control characters, then HTML-escaped."""
    return html.escape(printable("" if text is None else str(text)), quote=True)


def clip(text: object, width: int) -> str:
    """Cut a label to ``width`` characters (before escaping)."""
    t = " ".join(printable("" if text is None else str(text)).split())
    return t if len(t) <= width else t[: max(1, width - 1)] + "…"


def _svg(width: int, height: int, body: list[str], label: str) -> str:
    # Inline SVG in HTML needs no xmlns; leaving it out keeps the file free of any URL.
    return (
        f'<svg viewBox="0 0 {width} {height}" '
        f'width="100%" style="max-width:{width}px;{FONT}" role="img" '
        f'aria-label="{esc(label)}">' + "".join(body) + "</svg>"
    )


def _label(
    x: float,
    y: float,
    text: object,
    width: int,
    *,
    anchor: str = "end",
    size: int = 12,
    color: str = INK,
    weight: str = "normal",
) -> str:
    full = esc(text)
    short = esc(clip(text, width))
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" '
        f'fill="{color}" font-weight="{weight}" dominant-baseline="middle">'
        f"<title>{full}</title>{short}</text>"
    )


def _layout(groups: Sequence[str], top: float, row_h: float) -> tuple[list[float], list[str]]:
    """Row tops, with a header row of its own wherever the group changes; and the headers."""
    ys: list[float] = []
    headers: list[str] = []
    y = top
    last = None
    for g in groups:
        if g != last:
            headers.append(_label(0, y + row_h / 2 + 2, g, 60, anchor="start", weight="600"))
            y += row_h
            last = g
        ys.append(y)
        y += row_h
    return ys, headers


@dataclass(frozen=True)
class ForestRow:
    """One row of a coefficient plot."""

    group: str
    label: str
    estimate: dict[str, Any] | None
    color: str = COLORS["reviewers"]


def forest(
    rows: Sequence[ForestRow], *, title: str, lo: float | None = None, hi: float = 1.0
) -> str:
    """Coefficients with CI whiskers, grouped (e.g. per criterion); undefined ones say why."""
    values = [
        v
        for r in rows
        if r.estimate
        for v in (r.estimate.get("ci_low"), r.estimate.get("value"))
        if v is not None
    ]
    if lo is None:
        low = min(values) if values else 0.0
        lo = -1.0 if low < -0.2 else (-0.2 if low < 0 else 0.0)
    left, right, row_h, top = 300, 40, 22, 34
    width = 900
    plot_w = width - left - right
    ys, headers = _layout([r.group for r in rows], top, row_h)
    height = int((ys[-1] if ys else top) + row_h + 30)
    scale_lo = lo

    def x(v: float) -> float:
        return left + (max(scale_lo, min(hi, v)) - scale_lo) / (hi - scale_lo) * plot_w

    body = [f'<text x="0" y="14" font-size="14" font-weight="600" fill="{INK}">{esc(title)}</text>']
    step = 0.2 if hi - lo <= 1.2 else 0.5
    tick = lo
    while tick <= hi + 1e-9:
        xx = x(tick)
        body.append(
            f'<line x1="{xx:.1f}" y1="{top - 6}" x2="{xx:.1f}" y2="{height - 24}" '
            f'stroke="{GRID if abs(tick) > 1e-9 else "#9ca3af"}" stroke-width="1"/>'
        )
        body.append(
            f'<text x="{xx:.1f}" y="{height - 10}" font-size="11" fill="{MUTED}" '
            f'text-anchor="middle">{tick:.1f}</text>'
        )
        tick = round(tick + step, 10)
    body += headers
    for i, r in enumerate(rows):
        y = ys[i] + row_h / 2
        if i % 2 == 0:
            body.append(
                f'<rect x="{left - 200}" y="{ys[i]:.1f}" width="{width - left + 200}" '
                f'height="{row_h}" fill="#f9fafb"/>'
            )
        body.append(_label(left - 8, y, r.label, 42))
        e = r.estimate or {}
        v = e.get("value")
        if v is None:
            reason = e.get("reason") or "not available"
            body.append(
                _label(
                    left + 6, y, f"undefined: {reason}", 90, anchor="start", size=11, color=MUTED
                )
            )
            continue
        if e.get("ci_low") is not None and e.get("ci_high") is not None:
            x1, x2 = x(e["ci_low"]), x(e["ci_high"])
            body.append(
                f'<line x1="{x1:.1f}" y1="{y:.1f}" x2="{x2:.1f}" y2="{y:.1f}" '
                f'stroke="{r.color}" stroke-width="2"/>'
            )
            for xx in (x1, x2):
                body.append(
                    f'<line x1="{xx:.1f}" y1="{y - 5:.1f}" x2="{xx:.1f}" y2="{y + 5:.1f}" '
                    f'stroke="{r.color}" stroke-width="2"/>'
                )
        body.append(
            f'<circle cx="{x(v):.1f}" cy="{y:.1f}" r="4.5" fill="{r.color}">'
            f"<title>{esc(r.label)}: {v:.3f} (n = {e.get('n', 0)})</title></circle>"
        )
    return _svg(width, height, body, title)


def heatmap(conf: dict[str, Any], rater_a: str, rater_b: str, *, title: str) -> str:
    """A confusion matrix as a heatmap (rows: rater_a, columns: rater_b), counts in cells."""
    cats = [str(c) for c in conf["categories"]]
    matrix = conf["matrix"]
    k = len(cats)
    cell = 44 if k <= 5 else 30
    left, top = 110, 62
    width = left + cell * k + 20
    height = top + cell * k + 20
    peak = max([v for row in matrix for v in row] + [1])
    body = [
        _label(0, 12, title, 60, anchor="start", size=13, weight="600"),
        _label(
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
        body.append(_label(left + cell * j + cell / 2, top - 10, c, 7, anchor="middle", size=11))
    for i, row in enumerate(matrix):
        y = top + cell * i
        body.append(_label(left - 6, y + cell / 2, cats[i], 14, size=11))
        for j, v in enumerate(row):
            share = v / peak
            fill = f"rgba(37,99,235,{0.06 + 0.84 * share:.3f})"
            stroke = INK if i == j else "#ffffff"
            body.append(
                f'<rect x="{left + cell * j}" y="{y}" width="{cell}" height="{cell}" '
                f'fill="{fill}" stroke="{stroke}" stroke-width="{1.5 if i == j else 1}">'
                f"<title>{esc(cats[i])} / {esc(cats[j])}: {v}</title></rect>"
            )
            body.append(
                f'<text x="{left + cell * j + cell / 2}" y="{y + cell / 2}" '
                f'font-size="12" text-anchor="middle" dominant-baseline="middle" '
                f'fill="{"#ffffff" if share > 0.55 else INK}">{v}</text>'
            )
    body.append(
        f'<text x="12" y="{top + cell * k / 2}" font-size="11" fill="{MUTED}" '
        f'transform="rotate(-90 12 {top + cell * k / 2})" text-anchor="middle">'
        f"{esc(clip(rater_a, 24))} (rows)</text>"
    )
    return _svg(width, height, body, title)


def stacked(
    rows: Sequence[tuple[str, str, dict[str, float], int]], parts: Sequence[str], *, title: str
) -> str:
    """Horizontal 100% bars: rows of (group, label, shares by part, n)."""
    left, right, row_h, top = 300, 60, 22, 48
    width = 900
    plot_w = width - left - right
    ys, headers = _layout([r[0] for r in rows], top, row_h)
    height = int((ys[-1] if ys else top) + row_h + 12)
    body = [f'<text x="0" y="14" font-size="14" font-weight="600" fill="{INK}">{esc(title)}</text>']
    lx = left
    for p in parts:
        body.append(f'<rect x="{lx}" y="24" width="12" height="12" fill="{COLORS[p]}"/>')
        body.append(f'<text x="{lx + 16}" y="34" font-size="11" fill="{INK}">{esc(p)}</text>')
        lx += 80
    body += headers
    for i, (_, label, shares, n) in enumerate(rows):
        y = ys[i]
        body.append(_label(left - 8, y + row_h / 2, label, 42))
        x = float(left)
        for p in parts:
            w = plot_w * shares.get(p, 0.0)
            if w > 0:
                body.append(
                    f'<rect x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{row_h - 6}" '
                    f'fill="{COLORS[p]}"><title>{esc(label)} {esc(p)}: '
                    f"{100 * shares.get(p, 0.0):.1f}%</title></rect>"
                )
                if w > 34:
                    body.append(
                        f'<text x="{x + w / 2:.1f}" y="{y + row_h / 2:.1f}" font-size="10" '
                        'text-anchor="middle" dominant-baseline="middle" '
                        f'fill="{"#ffffff" if p in ("win", "loss") else INK}">'
                        f"{100 * shares.get(p, 0.0):.0f}%</text>"
                    )
            x += w
        body.append(
            f'<text x="{left + plot_w + 6}" y="{y + row_h / 2:.1f}" font-size="11" '
            f'fill="{MUTED}" dominant-baseline="middle">n={n}</text>'
        )
    return _svg(width, height, body, title)


def bars(rows: Sequence[tuple[str, str, dict[str, Any] | None, str]], *, title: str) -> str:
    """Horizontal bars of shares (0–1) with CI whiskers: rows of (group, label, estimate, color)."""
    left, right, row_h, top = 300, 120, 20, 34
    width = 900
    plot_w = width - left - right
    ys, headers = _layout([r[0] for r in rows], top, row_h)
    height = int((ys[-1] if ys else top) + row_h + 30)
    body = [f'<text x="0" y="14" font-size="14" font-weight="600" fill="{INK}">{esc(title)}</text>']
    for t in range(0, 11, 2):
        xx = left + plot_w * t / 10
        body.append(
            f'<line x1="{xx:.1f}" y1="{top - 4}" x2="{xx:.1f}" y2="{height - 24}" '
            f'stroke="{GRID}"/><text x="{xx:.1f}" y="{height - 10}" font-size="11" '
            f'fill="{MUTED}" text-anchor="middle">{t * 10}%</text>'
        )
    body += headers
    for i, (_, label, e, color) in enumerate(rows):
        y = ys[i]
        body.append(_label(left - 8, y + row_h / 2, label, 42))
        v = (e or {}).get("value")
        if v is None:
            body.append(
                _label(
                    left + 4,
                    y + row_h / 2,
                    "undefined: " + str((e or {}).get("reason") or "n/a"),
                    60,
                    anchor="start",
                    size=11,
                    color=MUTED,
                )
            )
            continue
        body.append(
            f'<rect x="{left}" y="{y + 4}" width="{plot_w * v:.1f}" height="{row_h - 8}" '
            f'fill="{color}" opacity="0.85"/>'
        )
        if e and e.get("ci_low") is not None:
            x1, x2 = left + plot_w * e["ci_low"], left + plot_w * e["ci_high"]
            body.append(
                f'<line x1="{x1:.1f}" y1="{y + row_h / 2}" x2="{x2:.1f}" '
                f'y2="{y + row_h / 2}" stroke="{INK}" stroke-width="1.2"/>'
            )
        count = f" ({e['count']}/{e['n']})" if e and "count" in e else ""
        body.append(
            f'<text x="{left + plot_w + 6}" y="{y + row_h / 2}" font-size="11" '
            f'fill="{MUTED}" dominant-baseline="middle">{100 * v:.1f}%{count}</text>'
        )
    return _svg(width, height, body, title)


SERIES = ("#2563eb", "#d97706", "#15803d", "#7c3aed", "#b91c1c", "#0f766e", "#6b7280")
"""Line colours of the series of a line chart, in order."""


def lines(
    series: Sequence[tuple[str, Sequence[tuple[str, dict[str, Any]]]]],
    *,
    title: str,
    x_label: str,
    y_max: float = 1.0,
) -> str:
    """A line chart with CI whiskers: series of (name, [(x label, estimate)]), x in the given
    order (shared categories, e.g. p = 0, 20, 40 …), y from 0 to ``y_max``."""
    xs: list[str] = []
    for _, points in series:
        for x, _ in points:
            if x not in xs:
                xs.append(x)
    left, right, top, bottom = 50, 190, 34, 44
    width, height = 760, 300
    plot_w, plot_h = width - left - right, height - top - bottom
    body = [f'<text x="0" y="14" font-size="14" font-weight="600" fill="{INK}">{esc(title)}</text>']

    def px(i: int) -> float:
        return left + (plot_w * (i + 0.5) / len(xs) if xs else 0.0)

    def py(v: float) -> float:
        return top + plot_h * (1.0 - v / y_max)

    for t in range(0, 5):
        v = y_max * t / 4
        body.append(
            f'<line x1="{left}" y1="{py(v):.1f}" x2="{left + plot_w}" y2="{py(v):.1f}" '
            f'stroke="{GRID}"/><text x="{left - 6}" y="{py(v):.1f}" font-size="11" '
            f'fill="{MUTED}" text-anchor="end" dominant-baseline="middle">{v:g}</text>'
        )
    for i, x in enumerate(xs):
        body.append(_label(px(i), height - 26, x, 12, anchor="middle", size=11, color=MUTED))
    body.append(
        _label(left + plot_w / 2, height - 8, x_label, 80, anchor="middle", size=11, color=MUTED)
    )
    for k, (name, points) in enumerate(series):
        color = SERIES[k % len(SERIES)]
        coords = []
        for x, e in points:
            value = e.get("value")
            if value is None:
                continue
            v = float(value)
            i = xs.index(x)
            coords.append(f"{px(i):.1f},{py(v):.1f}")
            if e.get("ci_low") is not None:
                body.append(
                    f'<line x1="{px(i):.1f}" y1="{py(e["ci_low"]):.1f}" x2="{px(i):.1f}" '
                    f'y2="{py(e["ci_high"]):.1f}" stroke="{color}" stroke-width="1" opacity="0.6"/>'
                )
            body.append(
                f'<circle cx="{px(i):.1f}" cy="{py(v):.1f}" r="3.5" fill="{color}">'
                f"<title>{esc(name)}: {esc(x)} → {v:.2f} (n = {e.get('n')})</title></circle>"
            )
        if len(coords) > 1:
            body.append(
                f'<polyline points="{" ".join(coords)}" fill="none" stroke="{color}" '
                'stroke-width="2"/>'
            )
        y = top + 14 + 18 * k
        body.append(
            f'<rect x="{left + plot_w + 14}" y="{y - 5}" width="12" height="10" fill="{color}"/>'
        )
        body.append(_label(left + plot_w + 32, y, name, 22, anchor="start", size=11))
    return _svg(width, height, body, title)
