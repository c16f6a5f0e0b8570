"""The report of three fixed studies in every format, for the golden-file test.

``python -m tests.support.report_golden`` rewrites ``tests/golden/`` after an intended change of the
report (look at the diff before committing it). The studies: the demo study, the rich study of
``test_report`` (hostile names, three reviewers, a judge, adjudications, slices by a metadata
field), a MedRGB ``match`` study with two reviewers, a rating study with two reviewers and an
imported judge on its 1–5 scales and its completeness options, and a rubric study.
"""

from __future__ import annotations

import difflib
import gzip
import html
import math
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from medjudge.demo.build import build_demo
from medjudge.judging.report.build import ReportOptions, build_report, render
from medjudge.store.labels import set_label
from medjudge.store.study import Study

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
FORMATS = ("md", "json", "csv")
# The rich study's outputs are megabytes: kept gzipped, the others as text.
GZIPPED = ("rich",)


def html_text(page: str) -> str:
    """What an HTML report says, without its markup: tag-free text, one line per block."""
    body = re.sub(r"<style.*?</style>", "", page, flags=re.S)
    body = re.sub(
        r"<(br|/p|/tr|/h[1-6]|/li|/div|/figure|/text|/title|/summary)\b[^>]*>", "\n", body
    )
    body = re.sub(r"<[^>]+>", " ", body)
    lines = (" ".join(html.unescape(line).split()) for line in body.splitlines())
    return "\n".join(line for line in lines if line) + "\n"


def studies(tmp: Path) -> dict[str, tuple[Path, ReportOptions]]:
    """Build the three studies under ``tmp``; their paths and report options."""
    from tests.support.match import match_study
    from tests.support.rich_study import build_rich_study

    demo = build_demo(tmp / "demo.sqlite", actor="lead")
    with demo.tx() as conn:  # the demo's judge run took however long it took: fix it
        conn.execute("UPDATE judge_runs SET finished_at = started_at")
    demo.close()
    (tmp / "m").mkdir()
    s = match_study(tmp / "m")
    units = s.conn.execute(
        "SELECT u.id, a.text FROM units u JOIN answers a ON a.item_id = u.item_id "
        "AND a.position = 'answer' WHERE u.criterion = 'match' ORDER BY u.id"
    ).fetchall()
    for i, (unit, text) in enumerate(units):
        refusal = "insufficient" in text.lower()  # scored 0 by both: an abstention
        set_label(s, unit, "ann", "0" if refusal else "1")
        set_label(s, unit, "bob", "1" if i % 3 and not refusal else "0")
    match = s.path
    s.close()
    return {
        "demo": (tmp / "demo.sqlite", ReportOptions(n_boot=300)),
        "rating": (_rating_study(tmp), ReportOptions(n_boot=300)),
        "rubric": (_rubric_study(tmp), ReportOptions(n_boot=300)),
        "rich": (build_rich_study(tmp), ReportOptions(n_boot=300, by=("specialty",))),
        "match": (match, ReportOptions(n_boot=300)),
    }


def _rating_study(tmp: Path) -> Path:
    """Twelve rating items, two models; two reviewers and a judge on every criterion."""
    from medjudge.store.importing.run import import_file
    from tests.support.kind_rows import rating_row, write_jsonl

    ticks = ["A", "A,B", "A,C", "A,B,C", "B"]
    rows = []
    for i in range(12):
        row = rating_row(i)
        row["source"] = "model-x" if i % 2 else "model-y"
        labels: list[dict[str, Any]] = []
        for r, shift in (("ann", 0), ("bob", 1), ("judge-x", 2)):
            scale = 1 + (i + shift * (i % 3)) % 5
            labels += [
                {"rater": r, "criterion": "correctness_rating", "value": scale},
                {"rater": r, "criterion": "relevance", "value": 1 + (scale + shift) % 5},
                {
                    "rater": r,
                    "criterion": "completeness",
                    "value": ticks[(i + shift) % len(ticks)].split(","),
                },
            ]
            if r == "judge-x":
                for lab in labels[-3:]:
                    lab["type"] = "judge"
        row["labels"] = labels
        rows.append(row)
    path = tmp / "rating.sqlite"
    with Study.create(path, actor="lead") as s:
        import_file(s, write_jsonl(tmp / "rating.jsonl", rows), "rating", actor="lead")
    return path


def _rubric_study(tmp: Path) -> Path:
    """The rubric study of ``test_rubric``: four answers, two models, two reviewers, a judge."""
    from medjudge.store.importing.run import import_file
    from tests.support.kind_rows import write_jsonl
    from tests.support.rubric import MARKS, rubric_item

    path = tmp / "rubric.sqlite"
    with Study.create(path, actor="lead") as s:
        rows = [rubric_item(e) for e in MARKS]
        import_file(s, write_jsonl(tmp / "rubric.jsonl", rows), "rubric", actor="lead")
    return path


def outputs(tmp: Path) -> dict[str, str]:
    """Every golden output by file name: ``demo.md`` … and ``<study>.html.txt``."""
    from tests.support.rich_study import NOW

    out: dict[str, str] = {}
    for name, (path, options) in studies(tmp).items():
        with Study.open(path) as s:
            report = build_report(s, options, now=NOW)
        for fmt in FORMATS:
            out[f"{name}.{fmt}"] = render(report, fmt)
        out[f"{name}.html.txt"] = html_text(render(report, "html"))
    return out


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
REL_TOL = 1e-9
"""Numbers in a golden file match within this relative difference …"""
ABS_TOL = 1e-12
"""… or this absolute one. The report's floats may differ in their last bits from one
processor to another (numpy's and OpenBLAS's kernels sum in different orders), which is not
a change of the report; anything larger is."""


def _same_line(want: str, got: str) -> bool:
    """Whether two lines say the same: equal text between the numbers, equal numbers (floats
    within the tolerance)."""
    if want == got:
        return True
    w_text, g_text = _NUMBER.split(want), _NUMBER.split(got)
    if w_text != g_text:
        return False
    for w, g in zip(_NUMBER.findall(want), _NUMBER.findall(got), strict=True):
        if w == g:
            continue
        if not any(c in w + g for c in ".eE"):
            return False  # integers (counts, ids) match exactly
        if not math.isclose(float(w), float(g), rel_tol=REL_TOL, abs_tol=ABS_TOL):
            return False
    return True


def differences(want: str, got: str, name: str) -> str | None:
    """``None`` when ``got`` says what ``want`` says (see :func:`_same_line`); otherwise the
    lines that differ (a unified diff when lines were added or removed), at most 60 lines."""
    w_lines, g_lines = want.splitlines(), got.splitlines()
    if len(w_lines) == len(g_lines):
        changed = [
            f"golden/{name}:{i}:\n- {w}\n+ {g}"
            for i, (w, g) in enumerate(zip(w_lines, g_lines, strict=True), 1)
            if not _same_line(w, g)
        ]
        return "\n".join(changed[:20]) if changed else None
    diff = difflib.unified_diff(w_lines, g_lines, f"golden/{name}", "now", lineterm="", n=1)
    return "\n".join(list(diff)[:60])


def stored_name(name: str) -> str:
    """The file in ``tests/golden`` that holds the output ``name`` (the big ones gzipped)."""
    return f"{name}.gz" if name.split(".")[0] in GZIPPED else name


def read_golden(name: str) -> str:
    """The golden text of the output ``name``."""
    path = GOLDEN / stored_name(name)
    if path.suffix == ".gz":
        return gzip.decompress(path.read_bytes()).decode("utf-8")
    return path.read_text(encoding="utf-8")


def write_golden(outputs: dict[str, str]) -> None:
    """Replace ``tests/golden`` with ``outputs`` (gzip without a time stamp, so an unchanged
    output rewrites the same bytes)."""
    GOLDEN.mkdir(exist_ok=True)
    for old in GOLDEN.iterdir():
        old.unlink()
    for name, text in outputs.items():
        path = GOLDEN / stored_name(name)
        if path.suffix == ".gz":
            path.write_bytes(gzip.compress(text.encode("utf-8"), 9, mtime=0))
        else:
            path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        files = outputs(Path(d))
    write_golden(files)
    print(f"wrote {len(files)} files to {GOLDEN}", file=sys.stderr)
