"""A pairwise study for judge runs, a judge on the fake LLM server, and one run of it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from medjudge.judging.llm.runner import RunOptions, RunSummary, run_judges
from medjudge.judging.llm.specs import parse_judge_spec
from medjudge.judging.protocol.plan import JudgeConfig
from medjudge.store.importing.run import import_file
from medjudge.store.study import Study

from .fakellm import FakeLLMServer
from .kind_rows import pairwise_row, write_jsonl


def judged_study(tmp_path: Path, n: int = 4) -> Study:
    s = Study.create(tmp_path / "j.db")
    rows = [
        pairwise_row(i, answer_a=f"GOOD answer {i}", answer_b=f"Plain answer {i}") for i in range(n)
    ]
    import_file(s, write_jsonl(tmp_path / "pw.jsonl", rows), "pairwise", actor="t")
    return s


def judge_for(
    server: FakeLLMServer, provider: str = "openai", samples: int = 3, **kw: Any
) -> JudgeConfig:
    """A judge on the fake server; ``kw`` are further JudgeConfig fields."""
    url = server.openai_url if provider == "openai" else server.anthropic_url
    return JudgeConfig(parse_judge_spec(f"{provider}:fake@{url}"), samples=samples, **kw)


def run(study: Study, judges: list[JudgeConfig], **kw: Any) -> RunSummary:
    """One run of ``judges`` over ``study`` (8 at a time); ``kw`` are further RunOptions."""
    return asyncio.run(run_judges(study, judges, RunOptions(concurrency=8, **kw)))
