"""The shapes a chart is made of (:mod:`.charts` lays them out, ``_charts.html.j2`` draws them).

Each shape has a ``kind`` the template dispatches on; positions are in the chart's own units
(its ``viewBox``); texts are raw: the template escapes them and makes control characters
visible (the page's ``text`` filter).
"""

from __future__ import annotations

from dataclasses import dataclass, field

INK = "#1f2937"


@dataclass(frozen=True)
class Label:
    """A text; ``tip`` (the full text of a clipped label) shows on hover."""

    x: float
    y: float
    text: str
    tip: str | None = None
    anchor: str = "end"
    size: int = 12
    color: str = INK
    weight: str = "normal"
    rotate: bool = False  # turned 90° counter-clockwise about (x, y)
    middle: bool = True  # vertically centred on y
    kind: str = field(default="label", init=False)


@dataclass(frozen=True)
class Rect:
    """A filled rectangle with an optional tooltip."""

    x: float
    y: float
    width: float
    height: float
    fill: str
    stroke: str | None = None
    stroke_width: float = 1
    opacity: float | None = None
    tip: str | None = None
    kind: str = field(default="rect", init=False)


@dataclass(frozen=True)
class Line:
    """A straight line."""

    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str
    stroke_width: float = 1
    opacity: float | None = None
    kind: str = field(default="line", init=False)


@dataclass(frozen=True)
class Dot:
    """A point with a tooltip."""

    x: float
    y: float
    r: float
    fill: str
    tip: str
    kind: str = field(default="dot", init=False)


@dataclass(frozen=True)
class Polyline:
    """Points joined by a line."""

    points: tuple[tuple[float, float], ...]
    stroke: str
    kind: str = field(default="polyline", init=False)


Shape = Label | Rect | Line | Dot | Polyline


@dataclass(frozen=True)
class Chart:
    """One chart: its size, its accessible name and its shapes, in drawing order."""

    width: int
    height: int
    title: str
    shapes: tuple[Shape, ...]
