"""Every registered kind says how the judge audit treats its criteria: its report facet
(``kinds/<name>/report.py``) declares an :class:`~medjudge.judging.analysis.audit_forms.AuditForm`
as ``AUDIT``, one not audited says so (``audit_forms.NONE``), and the kind model carries no
audit string the audit would compare."""

from __future__ import annotations

import importlib

import pytest

from medjudge import kinds
from medjudge.judging.analysis import audit_forms

FORMS = (
    audit_forms.SHARES,
    audit_forms.ANSWERS,
    audit_forms.SCORES,
    audit_forms.RUBRIC_SCORES,
    audit_forms.NONE,
)


@pytest.mark.parametrize("name", kinds.NAMES)
def test_every_kind_declares_its_audit_form(name: str) -> None:
    module = importlib.import_module(f"medjudge.kinds.{name}.report")
    declared = getattr(module, "AUDIT", None)
    assert declared in FORMS, f"kinds/{name}/report.py declares no AUDIT form"
    assert audit_forms.of_kind(name) is declared
    assert not hasattr(kinds.get(name), "audit")


def test_a_form_per_answer_or_per_unit() -> None:
    assert audit_forms.SHARES.per_answer is None and audit_forms.SHARES.unit == "units"
    audited = [f for f in FORMS if f.audited]
    assert all(f.per_answer is not None for f in audited if f is not audit_forms.SHARES)
    assert not audit_forms.NONE.audited
    assert [f.name for f in FORMS if f.listed_entries] == ["rubric_scores"]
