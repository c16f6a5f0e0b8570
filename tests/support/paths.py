"""Where the repository and ../shared are, and a skip for tests that need the K-QA data."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
KQA = SHARED / "datasets" / "kqa" / "questions_w_answers.jsonl"


def needs_kqa() -> pytest.MarkDecorator:
    """Skip unless ../shared/datasets/kqa is beside the repository."""
    return pytest.mark.skipif(
        not KQA.exists(), reason=f"K-QA data not found at {KQA} (../shared absent)"
    )
