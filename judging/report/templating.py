"""The Jinja2 environment the report's templates (``templates/``) are rendered in.

The templates get the typed :class:`.model.Report` as ``report`` and, as globals, the modules
that define the report's tables (``tb``, ``st``, ``jt``, ``at``: which columns and cells), the
kinds' own sections (``ks``) and wording (``rt``). Filters format numbers (``money``, ``duration``, ``plural``) and, per format, write
study text literally: ``md`` escapes it for Markdown; in HTML, autoescaping is on and ``text``
also makes control characters visible. No markup is written in Python: HTML lives in
``report.html.j2`` and its macros, Markdown in ``report.md.j2``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import jinja2

from medjudge.store.literal import plural

from . import audit_tables, judge_tables, kind_sections, section_tables, tables
from . import text as rt
from .model import Report, StudyInfo

TEMPLATES = Path(__file__).with_name("templates")


def items_line(study: StudyInfo) -> str:
    """``12 pairwise, 4 rating`` (or ``no items``)."""
    return ", ".join(f"{v:,} {k}" for k, v in study.items.items()) or "no items"


@cache
def environment() -> jinja2.Environment:
    """The report's template environment (HTML autoescaped; undefined names are errors)."""
    from medjudge.judging.report.render import html as format_html
    from medjudge.judging.report.render.md import md, md_cell

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "html.j2", "svg.j2")),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        md=md,
        cell=md_cell,
        plural=plural,
        money=rt.money,
        duration=rt.duration,
        **format_html.html_filters(),
    )
    env.globals.update(
        tb=tables,
        st=section_tables,
        jt=judge_tables,
        at=audit_tables,
        rt=rt,
        items_line=items_line,
        cards=format_html.cards,
        kappa_chart=format_html.kappa_chart,
        heatmaps=format_html.heatmaps,
        consistency_chart=format_html.consistency_chart,
        sections=format_html.sections,
        ks=kind_sections,
    )
    return env


def macro(template: str, name: str) -> Callable[..., str]:
    """A macro of one of the templates (e.g. ``table`` of ``_tables.html.j2``), callable."""
    found: Callable[..., str] = getattr(environment().get_template(template).module, name)
    return found


def render_template(name: str, report: Report) -> str:
    """Render one of the report's templates with the report."""
    return environment().get_template(name).render(report=report)
