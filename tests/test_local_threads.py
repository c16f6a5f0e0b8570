"""The local judge's threads follow the free cores, not the core count."""

from __future__ import annotations

import os

import pytest

from medjudge.judging.llm import local_server
from medjudge.judging.llm.local_server import LocalModelServer, free_cores


@pytest.mark.parametrize(
    ("cores", "load", "expected"),
    [(2, 0.1, 2), (2, 1.0, 1), (2, 2.6, 1), (8, 3.2, 5), (8, 0.0, 8), (1, 5.0, 1)],
)
def test_free_cores(
    monkeypatch: pytest.MonkeyPatch, cores: int, load: float, expected: int
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(cores)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert free_cores() == expected


def test_the_server_defaults_to_the_free_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_server, "free_cores", lambda: 3)
    assert LocalModelServer("model.gguf").n_threads == 3
    assert LocalModelServer("model.gguf", n_threads=2).n_threads == 2
