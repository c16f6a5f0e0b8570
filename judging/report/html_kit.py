"""Building blocks of the HTML report: the stylesheet, tables and figure cells.

:func:`table` writes a :class:`.report_cells.Table` with the cells in :data:`STYLE` (every text
from the study escaped); :func:`cell` and :func:`share` format estimate dicts. Header wording
and :class:`.report_cells.Label` cells are medjudge's own and written as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from medjudge.judging.report.svg import esc

from . import cells as rc
from . import text as rt

CSS = """
:root{--ink:#1f2937;--muted:#6b7280;--line:#e5e7eb;--soft:#f9fafb;--accent:#2563eb}
*{box-sizing:border-box}
body{margin:0;color:var(--ink);background:#fff;
font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
header{background:#0f172a;color:#f8fafc;padding:28px 40px 22px}
header h1{margin:0 0 4px;font-size:24px;font-weight:650}
header p{margin:0;color:#cbd5e1;font-size:13px}
nav{position:sticky;top:0;background:#fff;border-bottom:1px solid var(--line);
padding:8px 40px;font-size:13px;z-index:1}
nav{display:flex;flex-wrap:wrap;gap:4px 16px}
nav a{color:var(--accent);text-decoration:none;white-space:nowrap}
main{padding:8px 40px 40px;max-width:1180px}
h2{font-size:19px;margin:34px 0 10px;padding-bottom:6px;border-bottom:2px solid var(--line)}
h3{font-size:16px;margin:26px 0 6px}
h4{font-size:13px;margin:16px 0 6px;color:var(--muted);text-transform:uppercase;
letter-spacing:.04em}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:12px;
margin:18px 0}
.card{border:1px solid var(--line);border-radius:8px;padding:12px 14px;background:var(--soft)}
.card b{display:block;font-size:20px;font-weight:650}
.card span{color:var(--muted);font-size:12px}
table{border-collapse:collapse;width:100%;margin:8px 0 14px;font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600}
tbody tr:nth-child(even){background:#fcfcfd}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.muted{color:var(--muted)}
.note{color:var(--muted);font-size:12.5px;margin:4px 0 10px}
.quote{border-left:3px solid var(--line);padding:2px 10px;color:var(--muted);margin:6px 0}
details{margin:8px 0 12px}
summary{cursor:pointer;color:var(--accent);font-size:13px}
.figs{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start;margin:10px 0}
.figs figure{margin:0;border:1px solid var(--line);border-radius:8px;padding:10px}
.chart{margin:10px 0 18px}
.scroll{overflow-x:auto;max-width:100%}
td small{display:block;color:var(--muted);font-size:11.5px;line-height:1.3}
td .undef{color:#92400e}
td .undef+small{white-space:normal;min-width:9em;max-width:14em;margin-left:auto}
th.group{text-align:center;border-bottom:1px solid #cbd5e1}
footer{color:var(--muted);font-size:12px;padding:20px 40px;border-top:1px solid var(--line)}
@media print{nav{display:none}header{background:#fff;color:#000}}
"""

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def table(t: rc.Table) -> str:
    """A :class:`.report_cells.Table` as HTML: short headers, groups, figures aligned right."""
    if not t.rows:
        return '<p class="muted">None.</p>'
    num = set(t.numeric_columns)
    cls = [' class="num"' if i in num else "" for i in range(len(t.columns))]
    head = "".join(f"<th{cls[i]}>{c.short or c.name}</th>" for i, c in enumerate(t.columns))
    body = "".join(
        "<tr>" + "".join(f"<td{cls[i]}>{STYLE.cell(c)}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in t.rows
    )
    top = f"<tr>{group}</tr>" if (group := _groups(t.groups)) else ""
    return (
        f'<div class="scroll"><table><thead>{top}<tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def _groups(spec: Sequence[tuple[str, int]]) -> str:
    return "".join(
        f'<th colspan="{n}" class="group">{t}</th>' if t else f'<th colspan="{n}"></th>'
        for t, n in spec
    )


def cell(e: dict[str, Any] | None, *, pct: bool = False) -> str:
    """An estimate for a table cell.

    The value with its interval below in small type, or "undefined" with the reason below.
    """
    if e is None:
        return "–"
    if e.get("value") is None:
        return f'<span class="undef">undefined</span><small>{esc(e.get("reason") or "")}</small>'
    value = rt.est(e, pct=pct, ci=False)
    if e.get("ci_low") is None or e.get("ci_high") is None:
        return esc(value)
    lo, hi = (f"{100 * e[k]:.1f}" if pct else f"{e[k]:.2f}" for k in ("ci_low", "ci_high"))
    return f"{esc(value)}<small>[{lo}, {hi}]</small>"


def share(s: dict[str, Any] | None) -> str:
    """A share (count of n) for a table cell: percent, then count and interval below."""
    if s is None:
        return "–"
    if s.get("value") is None or s.get("ci_low") is None:
        return cell(s, pct=True)
    return (
        f"{100 * s['value']:.1f}%<small>{s['count']:,}/{s['n']:,} · "
        f"[{100 * s['ci_low']:.1f}, {100 * s['ci_high']:.1f}]</small>"
    )


def _est(e: dict[str, Any] | None, pct: bool, note: str | None) -> str:
    return cell(e, pct=pct) + (f"<small>{note}</small>" if note else "")


STYLE = rc.Style("html", text=esc, code=lambda v: f"<code>{esc(v)}</code>", est=_est, share=share)
"""HTML cells: study text through :func:`.report_svg.esc`, intervals in small type."""
