"""Break medjudge on purpose and check that a test goes red each time.

    python scripts/sabotage.py            # every sabotage
    python scripts/sabotage.py cache      # only those whose name contains "cache"

Each sabotage edits one file in place, runs the tests that guard that promise, and restores
the file (also on Ctrl-C). A sabotage whose tests still pass is a hole in the suite and makes
the script exit 1. Run it on a clean work tree: it rewrites source files while it runs.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Sabotage:
    name: str
    file: str
    old: str
    new: str
    tests: tuple[str, ...]


SABOTAGES = [
    Sabotage(
        "skip the commit before 'saved' (label written outside any transaction, never committed)",
        "store/labels.py",
        "    with study.tx() as conn:  # the rater lookup too: every read here is classified on error\n",
        '    study.conn.execute("BEGIN")\n    if (conn := study.conn):  # sabotage: never committed\n',
        ("tests/test_labels.py", "tests/test_crash.py", "tests/test_e2e_tmux.py"),
    ),
    Sabotage(
        "drop the escape of untrusted text (printable returns its input)",
        "store/literal.py",
        "def printable(text: str) -> str:\n",
        "def printable(text: str) -> str:\n    return text\n",
        ("tests/test_tui_literal.py", "tests/test_hostile_cli.py"),
    ),
    Sabotage(
        "disable the judge-call cache (nothing counts as cached)",
        "store/judgments.py",
        "    keys = list(keys)\n    out: dict[str, StoredCall] = {}\n",
        "    keys = []\n    out: dict[str, StoredCall] = {}\n",
        ("tests/test_judge_run.py",),
    ),
    Sabotage(
        "turn a verdict with no valid sample into a silent tie instead of missing",
        "kinds/votes.py",
        '        return OrderResult(MISSING, "missing", False)\n    disagreed = len(set(votes)) > 1\n    winner = strict_majority(votes)\n    if winner is not None:\n        return OrderResult(winner, "majority", disagreed)',
        '        return OrderResult(null_verdict, "no-majority→null", False)\n    disagreed = len(set(votes)) > 1\n    winner = strict_majority(votes)\n    if winner is not None:\n        return OrderResult(winner, "majority", disagreed)',
        ("tests/test_protocol.py", "tests/test_judge_run.py"),
    ),
    Sabotage(
        "let a failed import keep the items written before the error",
        "store/importing/writer.py",
        "    unchanged = _check(study, items)\n",
        "    unchanged = {}\n",
        ("tests/test_import.py",),
    ),
    Sabotage(
        "make a judge's parameters no part of its version (a re-run replaces its verdicts)",
        "judging/protocol/plan.py",
        '                "params": self.params(),\n',
        '                "params": {},\n',
        ("tests/test_judge_versions.py",),
    ),
    Sabotage(
        "leave stored panels alone when one member is re-run (a stale panel)",
        "judging/protocol/panels.py",
        "and ran & set(v.members):",
        "and False and ran & set(v.members):",
        ("tests/test_judge_versions.py",),
    ),
    Sabotage(
        "batch: resubmit a recorded batch without looking for it at the provider first",
        "judging/llm/batching.py",
        "            found = await api.find(b.token, [c.custom_id for c in calls], since)\n",
        "            found = None  # sabotage\n",
        ("tests/test_batch.py",),
    ),
    Sabotage(
        "batch: send calls that are cached already (batches ignore the call cache)",
        "judging/llm/batching.py",
        "            if c.key not in stored or stored[c.key].status in again:\n",
        "            if True:  # sabotage\n",
        ("tests/test_batch.py",),
    ),
    Sabotage(
        "batch: charge list prices for batch calls",
        "judging/llm/batching.py",
        "        self.prices = {name: p.batch() for name, p in prices.items()}\n",
        "        self.prices = dict(prices)\n",
        ("tests/test_batch.py",),
    ),
    Sabotage(
        "pooled pairwise agreement from per-unit shares instead of label pairs",
        "judging/stats/agreement/multi.py",
        '            s[:, b["agree_pairs"]][:, 0] / np.where(all_pairs > 0, all_pairs, 1.0),\n',
        '            s[:, b["p_unit"]][:, 0] / np.where(all_pairs > 0, all_pairs, 1.0),\n',
        ("tests/test_agreement_multi.py",),
    ),
    Sabotage(
        "the report forgets the criterion's declared categories (AC1 differs from the CLI)",
        "judging/analysis/views.py",
        "            a, b, categories=cats, scale=level, intervals=intervals, confidence=confidence\n",
        "            a, b, scale=level, intervals=intervals, confidence=confidence\n",
        ("tests/test_stats_surfaces.py",),
    ),
    Sabotage(
        "the live table takes half the reviewers as a majority",
        "judging/stats/code_matrix.py",
        "(2 * held > present)",
        "(2 * held >= present)",
        ("tests/test_code_matrix.py",),
    ),
    Sabotage(
        "a match item shows its documents' kinds before the reviewer's labels are saved",
        "tui/review/screen.py",
        "        kinds = not self.session.settings.blind or self.session.revealed()\n",
        "        kinds = True\n",
        ("tests/test_match.py",),
    ),
]


def run(s: Sabotage) -> bool:
    """Apply one sabotage, run its tests, restore; True when a test went red."""
    path = REPO / s.file
    original = path.read_text(encoding="utf-8")
    if s.old not in original:
        print(f"  ?? cannot apply (the code moved): {s.file}")
        return False
    try:
        path.write_text(original.replace(s.old, s.new, 1), encoding="utf-8")
        tests = [t for t in s.tests if (REPO / t).exists()]
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
    finally:
        path.write_text(original, encoding="utf-8")
    tail = [line for line in proc.stdout.splitlines() if line.strip()][-1:] or ["(no output)"]
    print(f"  {'RED ' if proc.returncode else 'GREEN'} {tail[0]}")
    return proc.returncode != 0


def main(argv: list[str]) -> int:
    chosen = [s for s in SABOTAGES if not argv or any(a in s.name for a in argv)]
    holes = []
    for s in chosen:
        print(f"- {s.name} ({s.file})")
        if not run(s):
            holes.append(s.name)
    if holes:
        print("\nno test noticed: " + "; ".join(holes))
        return 1
    print(f"\nevery sabotage ({len(chosen)}) turned a test red")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
