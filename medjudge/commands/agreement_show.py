"""``medjudge agreement``'s text output: each figure with its interval, n and method, in
columns, for two raters or three and more, per slice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from medjudge.judging.stats.figures import LABELS

from .common import out

if TYPE_CHECKING:  # the statistics (numpy, scipy) load only when the command runs
    from medjudge.judging.stats.agreement.core import Estimate, MultiRaterStats, TwoRaterStats
    from medjudge.judging.stats.label_file import SliceStats


def _fmt(e: Estimate | None, pct: bool = False) -> str:
    if e is None:
        return "–"
    if e.value is None:
        return f"undefined ({e.reason})"
    scale, unit, digits = (100.0, "%", 1) if pct else (1.0, "", 3)
    text = f"{e.value * scale:.{digits}f}{unit}"
    if e.ci_low is not None and e.ci_high is not None:
        text += f" [{e.ci_low * scale:.{digits}f}, {e.ci_high * scale:.{digits}f}]"
    elif e.reason:
        text += f" ({e.reason})"
    return text


def figure_row(name: str, e: Estimate | None, pct: bool = False) -> list[str]:
    """One printed figure: name, value [interval], n, the interval's method, a flag."""
    if e is None:
        return [name, "–", "", "", ""]
    flag = "unstable (n < 20)" if e.unstable else ""
    return [name, _fmt(e, pct), f"n={e.n}", e.method if e.has_ci else "", flag]


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def _print_two(s: TwoRaterStats) -> None:
    from medjudge.judging.stats import figures

    dropped = f" ({s.n_dropped} with a missing label left out)" if s.n_dropped else ""
    out(f"  {s.n} units labelled by both{dropped}")
    rows = [
        figure_row(f.label, getattr(s, f.key), pct=f.percent)
        for f in figures.of_group("two", s.scale)
        if getattr(s, f.key) is not None
    ]
    if s.chance is not None:
        rows.insert(1, ["chance agreement pₑ", f"{s.chance:.3f}", "", "", ""])
    for line in _columns(rows):
        out("  " + line)


def _print_multi(m: MultiRaterStats) -> None:
    from medjudge.judging.stats import figures

    out(f"  {m.n_units} units; {m.units_note}; {m.scale} scale")
    rows = [
        figure_row(f.label, getattr(m, f.key), pct=f.percent)
        for f in figures.of_group("multi", m.scale)
        if getattr(m, f.key) is not None
    ]
    chance = "–" if m.chance is None else f"{m.chance:.3f}"
    rows.insert(1, ["chance agreement pₑ (Fleiss)", chance, "", "", ""])
    for line in _columns(rows):
        out("  " + line)
    out("  Fleiss' κ per category:")
    for line in _columns([figure_row(str(c), e) for c, e in m.fleiss_per_category.items()]):
        out("    " + line)
    out("  pairwise:")
    two = figures.of_group("two", m.scale)
    table = [["rater A", "rater B", "n", *(f.label for f in two)]]
    for (a, b), s in m.pairwise.items():
        table.append(
            [str(a), str(b), str(s.n), *(_fmt(getattr(s, f.key), pct=f.percent) for f in two)]
        )
    for line in _columns(table):
        out("    " + line)
    out("  agreement with the majority of the others:")
    for line in _columns([figure_row(str(r), e, pct=True) for r, e in m.vs_majority.items()]):
        out("    " + line)
    out(f"  {LABELS['vs_majority_own'].lower()} (as some papers define it):")
    for line in _columns([figure_row(str(r), e, pct=True) for r, e in m.vs_majority_own.items()]):
        out("    " + line)


def print_slice(r: SliceStats, by: str | None) -> None:
    from medjudge.judging.stats.agreement.core import TwoRaterStats  # noqa: F811 - at run time

    if by is not None or r.without_ties:
        title = "all rows" if r.slice == "all" else f"{by} = {r.slice}"
        if r.without_ties:
            title += ", without ties"
        out("")
        out(f"{title} ({r.n_rows} units)")
    if isinstance(r.stats, TwoRaterStats):
        _print_two(r.stats)
    else:
        _print_multi(r.stats)
