"""Several reviewers, a judge run and reports on one study file at once: nothing is lost.

docs/design.md §7: "several reviewers writing at once lose nothing". Eight processes label random
units of the same study in tight loops (each a different reviewer) while judge runs write
calls and verdicts and ``medjudge status --json`` / ``medjudge report`` read the file over
and over. At the end: no process met an error ("database is locked" / StudyBusyError would
have reached a physician), and label_history holds exactly the writes each process reports.

The soak lasts ``MEDJUDGE_SOAK_SECONDS`` (default 8 s in the normal suite);
``MEDJUDGE_SOAK_SECONDS=30`` runs the full 30-second soak of the issue.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from medjudge.store.importing.run import import_file
from medjudge.store.study import Study

from .support.fakellm import FakeLLMServer
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.kind_rows import pairwise_row, statements_row, write_jsonl

PROCS = Path(__file__).resolve().parent / "procs"
SOAK_SECONDS = float(os.environ.get("MEDJUDGE_SOAK_SECONDS", "8"))
REVIEWERS = 8
TROUBLE = ("locked", "busy", "Traceback", "StudyBusyError")


def test_eight_reviewers_a_judge_and_reports_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    with Study.create(path, actor="t") as s:
        rows = [pairwise_row(i, answer_a=f"GOOD answer {i}") for i in range(40)]
        import_file(s, write_jsonl(tmp_path / "pw.jsonl", rows), "pairwise", actor="t")
        import_file(
            s,
            write_jsonl(tmp_path / "st.jsonl", [statements_row(i) for i in range(5)]),
            "statements",
            actor="t",
        )
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    labellers = [
        subprocess.Popen(
            [
                sys.executable,
                str(PROCS / "labeller.py"),
                str(path),
                f"dr{i}",
                str(1000 + i),
                "--seconds",
                str(SOAK_SECONDS),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i in range(REVIEWERS)
    ]
    stop = threading.Event()
    problems: list[str] = []
    judge_runs: list[int] = []
    reads: list[str] = []
    cli = [sys.executable, "-m", "medjudge"]
    has_report = importlib.util.find_spec("medjudge.judging.report.build") is not None

    def check(what: str, r: subprocess.CompletedProcess[str]) -> None:
        if r.returncode != 0 or any(t in r.stderr for t in TROUBLE):
            problems.append(f"{what}: exit {r.returncode}: {r.stderr[-800:]}")

    def judge_loop(url: str) -> None:
        samples = 1
        while not stop.is_set():  # every run has new calls (another sample count): it writes
            r = subprocess.run(
                cli
                + [
                    "judge",
                    str(path),
                    "-j",
                    f"openai:fake@{url}",
                    "--samples",
                    str(samples),
                    "--concurrency",
                    "8",
                ],
                capture_output=True,
                text=True,
                env=env,
                timeout=300,
            )
            check(f"judge --samples {samples}", r)
            judge_runs.append(samples)
            samples += 1

    def read_loop() -> None:
        n = 0
        while not stop.is_set():
            if has_report and n % 2:
                args = ["report", str(path), "-f", "json", "--n-boot", "100"]
            else:
                args = ["status", str(path), "--json"]
            r = subprocess.run(cli + args, capture_output=True, text=True, env=env, timeout=300)
            check(" ".join(args[:1] + args[2:]), r)
            if r.returncode == 0:
                try:
                    json.loads(r.stdout)
                except ValueError:
                    problems.append(f"{args[0]}: not JSON: {r.stdout[:200]}")
            reads.append(args[0])
            n += 1

    with FakeLLMServer(routing(pairwise_responder(prefer_marked("GOOD"))), latency=0.02) as server:
        threads = [
            threading.Thread(target=judge_loop, args=(server.openai_url,)),
            threading.Thread(target=read_loop),
        ]
        for t in threads:
            t.start()
        results = []
        try:
            for p in labellers:
                out, err = p.communicate(timeout=SOAK_SECONDS + 120)
                results.append((p.returncode, out, err))
        finally:
            stop.set()
            for p in labellers:
                if p.poll() is None:
                    p.kill()
            for t in threads:
                t.join(timeout=300)

    assert not problems, "\n".join(problems)
    assert judge_runs and reads, "the judge and the readers never ran alongside the reviewers"
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        history = {
            (r[0], r[1])
            for r in conn.execute(
                "SELECT r.name, h.id FROM label_history h JOIN raters r ON r.id = h.rater_id "
                "WHERE h.action = 'label'"
            )
        }
        for i, (code, out, err) in enumerate(results):
            reviewer = f"dr{i}"
            assert code == 0 and not any(t in err for t in TROUBLE), (
                f"{reviewer}: exit {code}: {err[-800:]}"
            )
            done = json.loads(out.splitlines()[-1].removeprefix("done "))
            assert done["errors"] == {}, f"{reviewer} met errors: {done['errors']}"
            saved = [line.split() for line in out.splitlines() if line.startswith("saved ")]
            assert len(saved) == done["written"] > 0
            mine = {h for name, h in history if name == reviewer}
            assert len(mine) == done["written"], (
                f"{reviewer}: wrote {done['written']}, history has {len(mine)}"
            )
            assert {int(s[3]) for s in saved} == mine, f"{reviewer}: a saved write is missing"
            current = dict(
                conn.execute(
                    "SELECT l.unit_id, l.value FROM labels l JOIN raters r ON r.id = l.rater_id "
                    "WHERE r.name = ?",
                    (reviewer,),
                ).fetchall()
            )
            assert current == {int(k): v for k, v in done["last"].items()}, (
                f"{reviewer}: lost update"
            )
        verdicts = conn.execute("SELECT count(*) FROM verdicts").fetchone()[0]
        assert verdicts > 0
        print(
            f"soak {SOAK_SECONDS:g} s: {len(history)} labels by {REVIEWERS} reviewers, "
            f"{len(judge_runs)} judge runs ({verdicts} verdict rows), {len(reads)} status/report reads"
        )
    finally:
        conn.close()
