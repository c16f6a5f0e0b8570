"""The audit study: a judge that favours answer A and a physician's labels on a random sample."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from typer.testing import CliRunner

from medjudge.cli import app

from .kind_rows import pairwise_row, write_jsonl

cli = CliRunner()
N_ITEMS = 300


def truth_and_judge(seed: int = 28) -> tuple[list[str], list[str]]:
    """The physicians' verdicts and a judge that favours answer A (model-x)."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(["A", "B", "tie"], size=N_ITEMS, p=[0.4, 0.45, 0.15])
    judge = []
    for t in truth:
        p_a = {"A": 0.9, "B": 0.35, "tie": 0.5}[str(t)]  # says A far too often
        u = rng.random()
        judge.append("A" if u < p_a else (str(t) if t != "A" and u < p_a + 0.45 else "B"))
    return [str(t) for t in truth], judge


def invoke(*args: str) -> Any:
    r = cli.invoke(app, list(args))
    assert r.exit_code == 0, r.output
    return r


def build(tmp_path: Path, *, sample: bool = True) -> tuple[Path, list[str], list[str], set[str]]:
    """The study; the truth and the judge per item p0 … p299; the sampled item ids."""
    db = tmp_path / "audit.db"
    invoke("init", str(db), "--name", "Audit", "-c", "overall:benefit:Which is better?")
    truth, judge = truth_and_judge()
    rows = [
        pairwise_row(i, judge_labels={"judge-x": {"overall": judge[i]}}) for i in range(N_ITEMS)
    ]
    invoke("import", str(db), str(write_jsonl(tmp_path / "items.jsonl", rows)), "-k", "pairwise")
    sampled: set[str] = set()
    if sample:
        invoke("assign", str(db), "drchen", "--sample", "80", "--seed", "7")
        out = invoke("export", str(db), "assignments").stdout
        sampled = {json.loads(line)["item"] for line in out.splitlines()}
        assert len(sampled) == 80
    # the physician labels the sampled items (re-importing the same items adds labels)
    labelled = [
        pairwise_row(i, human_labels={"drchen": {"overall": truth[i]}})
        for i in range(N_ITEMS)
        if f"p{i}" in sampled
    ]
    if labelled:
        path = write_jsonl(tmp_path / "drchen.jsonl", labelled)
        invoke("import", str(db), str(path), "-k", "pairwise")
    return db, truth, judge, sampled
