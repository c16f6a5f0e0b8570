"""Names are one normal form (NFC, stripped, never empty); a reviewer imports labels only under
their own name; the last lead cannot be removed."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from medjudge.store.assignments import assign, assignment_counts
from medjudge.store.importing.problems import ImportProblem
from medjudge.store.importing.run import import_file
from medjudge.store.labels import set_label
from medjudge.store.people import BadName, person_name
from medjudge.store.roles import PermissionDenied, grant, revoke, roles_of
from medjudge.store.study import Study

from .support.kind_rows import pairwise_row, write_jsonl

COMPOSED = "Jos\u00e9"
DECOMPOSED = "Jose\u0301"


def test_person_name() -> None:
    assert unicodedata.is_normalized("NFD", DECOMPOSED) and COMPOSED != DECOMPOSED
    assert person_name(f"  {DECOMPOSED}\t") == COMPOSED
    with pytest.raises(BadName, match="login is empty"):
        person_name(" \u3000 ", "login")


def test_one_person_however_the_name_was_typed(tmp_path: Path) -> None:
    s = Study.create(tmp_path / "n.db", actor="lead")
    import_file(s, write_jsonl(tmp_path / "p.jsonl", [pairwise_row(0)]), "pairwise", actor="t")
    unit = s.conn.execute("SELECT id FROM units LIMIT 1").fetchone()[0]
    set_label(s, unit, COMPOSED, "A")
    set_label(s, unit, f" {DECOMPOSED} ", "B")
    assert [r[0] for r in s.conn.execute("SELECT name FROM raters")] == [COMPOSED]
    assert s.conn.execute("SELECT count(*) FROM labels").fetchone()[0] == 1
    grant(s, "lead", "lead", by="lead")
    grant(s, DECOMPOSED, "reviewer", by=" lead")
    assert roles_of(s, COMPOSED) == {"reviewer"}
    assign(s, [COMPOSED, DECOMPOSED + " "], [1], by="lead")
    assert assignment_counts(s) == {COMPOSED: 1}
    with pytest.raises(BadName):
        set_label(s, unit, "   ", "A")
    s.close()


def _labels_file(tmp_path: Path, rater: str, kind: str = "human") -> Path:
    row = pairwise_row(
        0, labels=[{"rater": rater, "type": kind, "criterion": "correctness", "value": "A"}]
    )
    return write_jsonl(tmp_path / f"{rater}-{kind}.jsonl", [pairwise_row(1), row])


def test_a_reviewer_imports_only_their_own_labels(tmp_path: Path) -> None:
    s = Study.create(tmp_path / "o.db", actor="boss")
    grant(s, "boss", "lead", by="boss")
    grant(s, "ann", "reviewer", by="boss")
    with pytest.raises(ImportProblem) as exc:
        import_file(s, _labels_file(tmp_path, "bob"), "pairwise", actor="ann")
    assert "line 2" in str(exc.value) and "'bob'" in str(exc.value)
    assert "you (ann) may import only your own labels" in str(exc.value)
    with pytest.raises(ImportProblem, match="labels of judge 'gpt'"):
        import_file(s, _labels_file(tmp_path, "gpt", "judge"), "pairwise", actor="ann")
    assert s.conn.execute("SELECT count(*) FROM items").fetchone()[0] == 0, "all or nothing"
    import_file(s, _labels_file(tmp_path, " ann"), "pairwise", actor="ann")
    import_file(s, _labels_file(tmp_path, "bob"), "pairwise", actor="boss")
    names = {r[0] for r in s.conn.execute("SELECT name FROM raters")}
    assert names == {"ann", "bob"}
    s.close()


def test_the_last_lead_cannot_be_removed(tmp_path: Path) -> None:
    s = Study.create(tmp_path / "l.db", actor="boss")
    grant(s, "boss", "lead", by="boss")
    with pytest.raises(PermissionDenied, match="last lead"):
        revoke(s, "boss", "lead", by="boss")
    grant(s, "kim", "lead", by="boss")
    assert revoke(s, "boss", "lead", by="kim")
    with pytest.raises(PermissionDenied, match="last lead"):
        revoke(s, "kim", "lead", by="kim")
    assert roles_of(s, "kim") == {"lead"}
    s.close()
