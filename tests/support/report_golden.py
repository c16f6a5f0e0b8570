"""The report of three fixed studies in every format, for the golden-file test.

``python -m tests.support.report_golden`` rewrites ``tests/golden/`` after an intended change of the
report (look at the diff before committing it). The studies: the demo study, the rich study of
``test_report`` (hostile names, three reviewers, a judge, adjudications, slices by a metadata
field), a MedRGB ``match`` study with two reviewers, a rating study with two reviewers and an
imported judge on its 1–5 scales and its completeness options, and a rubric study.
"""

from __future__ import annotations

import hashlib
import html
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
# The rich study's outputs are megabytes: kept as hashes, the others as files.
HASHED = ("rich",)


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


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d{13,}(?:e[-+]?\d+)?(?![\w.])")


def twelve_digits(text: str) -> str:
    """``text`` with every float of more than 12 decimals written to 12 significant digits: the
    hashed outputs hold Dawid-Skene estimates whose last bit differs between numpy 2.4 (the
    newest for Python 3.11) and 2.5 (Python 3.12 and later), which is not a report change."""
    return _FLOAT.sub(lambda m: f"{float(m.group()):.12g}", text)


def expected_files(produced: dict[str, str]) -> dict[str, str]:
    """What ``tests/golden`` holds for these outputs: files, and hashes for the big ones."""
    files = {k: v for k, v in produced.items() if k.split(".")[0] not in HASHED}
    hashes = "".join(
        f"{digest(twelve_digits(v))}  {k}\n"
        for k, v in sorted(produced.items())
        if k.split(".")[0] in HASHED
    )
    return {**files, "SHA256SUMS": hashes}


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        files = expected_files(outputs(Path(d)))
    GOLDEN.mkdir(exist_ok=True)
    for old in GOLDEN.iterdir():
        old.unlink()
    for name, text in files.items():
        (GOLDEN / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} files to {GOLDEN}", file=sys.stderr)
