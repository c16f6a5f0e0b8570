"""The durability benchmark (``benchmarks/bench_durability.py``) at a tiny size, issue #43:
review sessions in tmux labelling while a judge run and reports run, one killed with SIGKILL
and one with SIGHUP right after a label key; every label a screen called saved is the current
label on disk and in ``label_history``, and the file passes ``PRAGMA integrity_check``.

The benchmark waits on events only (a screen's status line, a pane's death, a process's
exit), each bounded by a generous timeout; its pauses pace the keys and time the kills.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bench_durability import measure

from .support.terminal import NEEDS_TMUX

pytestmark = [NEEDS_TMUX, pytest.mark.slow, pytest.mark.terminal]


def test_labels_called_saved_survive_sigkill_and_sighup_mid_label(tmp_path: Path) -> None:
    r = measure(
        tmp_path,
        sessions=3,
        sigkills=1,
        sighups=1,
        rounds=10,
        items=6,
        latency=0.05,
        pace=0.2,
    )
    assert r["integrity"] == "ok"
    assert r["lost"] == []
    assert r["saved"] > 0
    assert r["on_disk"] == r["in_history"] == r["saved"]
    assert r["unconfirmed"] == [], "a key whose effect never reached its screen"
    kills = {k["signal"]: k for k in r["kills"]}
    assert set(kills) == {"SIGKILL", "SIGHUP"}
    assert kills["SIGKILL"]["ended_by"] == "signal 9"
    assert kills["SIGHUP"]["ended_by"] == "signal 1"
    assert r["sent"] == r["saved"] + r["refused"] + sum(not k["called_saved"] for k in r["kills"])
    # on disk without having been called saved: only a kill's key, between commit and screen
    unconfirmed_kills = [k for k in r["kills"] if not k["called_saved"]]
    assert len(r["extra"]) == sum(k["on_disk"] for k in unconfirmed_kills)
    assert sorted(r["ended"].values()) == ["SIGHUP", "SIGKILL", "quit"]
    assert r["judge_exit"] == 0 and r["verdicts"] > 0
    assert r["reports"]["runs"] >= 1 and r["reports"]["failed"] == 0, r["reports"].get("error")
