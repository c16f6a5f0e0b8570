"""Labels called saved, against labels stored: 30 real ``medjudge review`` sessions labelling
in tmux while a judge run writes verdicts and reports run, some sessions killed mid-label.

Setup as the sessions benchmark (``bench_sessions.py``): a study of ``ITEMS`` pairwise items
built through the real importer, reviewing under another name allowed; the fake
OpenAI-compatible server in its own process; the real ``medjudge judge`` against it (every
reply committed as it arrives) and, in a loop until the labelling ends, the real ``medjudge
report`` (md, ``--n-boot 100``, to nowhere); ``SESSIONS`` × the real ``medjudge review
--reviewer rNN``, each in its own tmux session at 80×24 with ``remain-on-exit`` (and no
"Pane is dead" line), so a pane keeps the last screen its app drew, even once it is killed.

The labelling: rounds, each a key to every live session, spread over ``PACE_S``, in random
order. What a key is comes from the screen: on a done item (``✓ done``, revealed) Enter;
otherwise a label key (``a``/``b``/``t``/``n``) on the row under the cursor (``▶``), when that
row has no label yet. A label is *called saved* when the pane's first line (the status line)
says ``✓ saved CRITERION = VALUE`` for that item (``qNNN: ✓ saved …`` once the app has moved
on); the screen says so only after the commit (``tui/review/labels.py``). Each round waits
for every key's effect on its screen (or a ``NOT saved``) before the next.

The kills: ``SIGKILLS`` sessions get SIGKILL, ``SIGHUPS`` SIGHUP to the pane's process group
(what a terminal's hang-up sends: an SSH drop), each right after a label key, 0–25 ms after it
(random), spread over the run. Once tmux has read the dead pane's last output
(``#{pane_dead}``), its screen tells whether that label was called saved. The other sessions
quit with ``q`` at the end.

Then, with every process ended, the study is opened with ``sqlite3``: each label called saved
must be the current label (``labels``, in the file frame: the item's ``shown_order`` turns a
shown A into a stored B) and in ``label_history`` (action ``label``), with the same value. Counted:
lost (called saved, not on disk or not in the history, or another value: target 0), extra
(on disk, never called saved: allowed only for a key killed between the commit and the
screen), ``PRAGMA integrity_check``. Every tmux session, the judge, the reports and the
server are ended on the way out, whatever happened.
"""

from __future__ import annotations

import json
import os
import random
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.bench_sessions import _build, _end, _wait_all  # noqa: E402
from benchmarks.durability_sessions import (  # noqa: E402
    WAIT_S,
    Session,
    dead_panes,
    kill_session,
    settle,
    step,
)
from benchmarks.tmux import Tmux  # noqa: E402
from medjudge.kinds.orders import to_display  # noqa: E402

SESSIONS = 30
SIGKILLS = 5
SIGHUPS = 5
ROUNDS = 45  # keys per session (a killed session stops at its kill)
ITEMS = 200
LATENCY = 0.5  # per judge call: 400 calls at concurrency 2, ~100 s of writing
CONCURRENCY = 2
PACE_S = 1.0  # a round's keys are spread over this long
KILL_WITHIN_S = 0.025  # a kill comes this long after its label key, at most
JUDGE_WAIT_S = 120.0  # after the labelling, for the judge run to end on its own


def _reports(study: Path, env: dict[str, str], stop: threading.Event, out: dict[str, Any]) -> None:
    """``medjudge report`` again and again until ``stop`` (once at least); counts runs and
    failures."""
    while True:
        t0 = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "medjudge", "report", str(study), "--n-boot", "100"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        out["runs"] += 1
        out["seconds"].append(time.monotonic() - t0)
        if proc.returncode != 0:
            out["failed"] += 1
            out.setdefault("error", proc.stderr[-500:])
        if stop.is_set():
            return


def _check(study: Path, sessions: list[Session], kills: list[dict[str, Any]]) -> dict[str, Any]:
    """Compare what the screens called saved with the study file (and mark each of ``kills``
    with whether its last key's label is on disk)."""
    conn = sqlite3.connect(study)
    try:
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        base = (
            "FROM {t} x JOIN raters r ON r.id = x.rater_id JOIN units u ON u.id = x.unit_id "
            "JOIN items i ON i.id = u.item_id WHERE r.kind = 'human'"
        )

        def shown(value: str, order: str | None) -> str:
            return to_display(value, order)

        disk = {
            (who, item, crit): shown(value, order)
            for who, item, crit, value, order in conn.execute(
                "SELECT r.name, i.ext_id, u.criterion, x.value, i.shown_order "
                f"{base.format(t='labels')}"
            )
        }
        history = {
            (who, item, crit, shown(value, order))
            for who, item, crit, value, order in conn.execute(
                "SELECT r.name, i.ext_id, u.criterion, x.new_value, i.shown_order "
                f"{base.format(t='label_history')} AND x.action = 'label'"
            )
        }
        verdicts = conn.execute("SELECT count(*) FROM verdicts").fetchone()[0]
    finally:
        conn.close()
    saved = {(x.reviewer, x.item, x.criterion): x.shown for s in sessions for x in s.saved}
    lost = [
        f"{who} {item} {crit} = {value}: on disk {disk.get((who, item, crit))!r}, "
        f"in history {(who, item, crit, value) in history}"
        for (who, item, crit), value in saved.items()
        if disk.get((who, item, crit)) != value or (who, item, crit, value) not in history
    ]
    for kill in kills:  # the key each kill followed: written or not, whatever the screen said
        label = kill["label"]
        kill["on_disk"] = label is not None and (
            disk.get((label["reviewer"], label["item"], label["criterion"])) == label["shown"]
        )
    return {
        "integrity": integrity,
        "on_disk": sum(disk.get(k) == v for k, v in saved.items()),
        "in_history": sum((*k, v) in history for k, v in saved.items()),
        "lost": lost,
        "extra": sorted(
            f"{w} {i} {c} = {v}" for (w, i, c), v in disk.items() if (w, i, c) not in saved
        ),
        "disk_total": len(disk),
        "verdicts": verdicts,
    }


def measure(
    folder: Path,
    *,
    sessions: int = SESSIONS,
    sigkills: int = SIGKILLS,
    sighups: int = SIGHUPS,
    rounds: int = ROUNDS,
    items: int = ITEMS,
    latency: float = LATENCY,
    pace: float = PACE_S,
    seed: int = 43,
) -> dict[str, Any]:
    """Run the whole scenario in ``folder``; the counts (see the module docstring)."""
    from benchmarks.fake_server_process import ServerProcess

    rng = random.Random(seed)
    study = _build(folder, items)
    home = folder / "home"
    home.mkdir()
    env = {**os.environ, "MEDJUDGE_HOME": str(home), "OPENAI_API_KEY": "sk-bench"}
    people = [Session(f"r{n:02d}") for n in range(sessions)]
    victims = rng.sample(people, sigkills + sighups)
    first, last = min(3, rounds - 1), max(min(3, rounds - 1), rounds - 3)
    for n, s in enumerate(victims):
        at = first + (last - first) * n // max(1, len(victims) - 1)
        s.kill = (at, "SIGKILL" if n % 2 == 0 else "SIGHUP")
    reports: dict[str, Any] = {"runs": 0, "failed": 0, "seconds": []}
    stop = threading.Event()
    out: dict[str, Any] = {}
    tmux: Tmux | None = None
    judge: subprocess.Popen[bytes] | None = None
    reporter: threading.Thread | None = None
    t_start = time.monotonic()
    with ServerProcess(latency) as server:
        try:
            judge = subprocess.Popen(
                [
                    *(sys.executable, "-m", "medjudge", "judge", str(study)),
                    *("-j", f"openai:fake@{server.url}", "--samples", "1"),
                    *("--concurrency", str(CONCURRENCY)),
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            reporter = threading.Thread(target=_reports, args=(study, env, stop, reports))
            reporter.start()
            tmux = Tmux()
            tmux("set-option", "-gw", "remain-on-exit", "on")
            tmux("set-option", "-gw", "remain-on-exit-format", "")
            shell = f"exec env MEDJUDGE_HOME={shlex.quote(str(home))} TERM=xterm-256color"
            for s in people:
                tmux.start(
                    s.name,
                    f"{shell} {shlex.quote(sys.executable)} -m medjudge review "
                    f"{shlex.quote(str(study))} --reviewer {s.name}",
                )
            _wait_all(tmux, [s.name for s in people], "labelled", 180)
            for s in people:
                s.pid = tmux.pid(s.name)
                assert b"medjudge" in Path(f"/proc/{s.pid}/cmdline").read_bytes(), s.name
            calls0, t0 = server.count(), time.monotonic()
            for n in range(rounds):
                live = [s for s in people if not s.dead]
                rng.shuffle(live)
                begun = time.monotonic()
                for k, s in enumerate(live):
                    time.sleep(max(0.0, begun + pace * k / len(live) - time.monotonic()))
                    step(tmux, s, rng)
                    if s.kill is not None and s.kill[0] <= n and s.pending is not None:
                        kill_session(tmux, s, s.kill[1], rng.uniform(0, KILL_WITHIN_S))
                settle(tmux, live)
            out["label_s"] = time.monotonic() - t0
            out["judge_calls_while_labelling"] = server.count() - calls0
            out["judge_running_at_end"] = judge.poll() is None
            for s in people:
                if not s.dead:
                    tmux.send(s.name, "q")
            deadline = time.monotonic() + WAIT_S
            while time.monotonic() < deadline:  # every pane dead, and how it ended known
                dead = dead_panes(tmux)
                for s in people:
                    s.ended_by = dead.get(s.name, "")
                if all(s.ended_by for s in people):
                    break
                time.sleep(0.05)
            for s in people:
                if not s.dead:
                    s.dead = "quit" if s.ended_by == "exit 0" else f"died ({s.ended_by})"
            stop.set()
            reporter.join()
            try:  # the judge ends on its own; one still running is stopped and said so
                out["judge_exit"] = judge.wait(JUDGE_WAIT_S)
            except subprocess.TimeoutExpired:
                out["judge_exit"] = "still running: terminated"
        finally:
            stop.set()
            if reporter is not None:
                reporter.join()
            if tmux is not None:
                tmux.kill()
            _end([s.pid for s in people if s.pid])
            if judge is not None and judge.poll() is None:
                judge.terminate()
                try:
                    judge.wait(10)
                except subprocess.TimeoutExpired:
                    judge.kill()
                    judge.wait()
    kills = [
        {
            "reviewer": s.name,
            "signal": s.dead,
            "ended_by": s.ended_by,
            "delay_ms": round(s.kill_delay * 1000, 1),
            "label": asdict(s.sent[-1]) if s.sent else None,
            "called_saved": bool(s.sent) and s.saved[-1:] == s.sent[-1:],
        }
        for s in people
        if s.dead in ("SIGKILL", "SIGHUP")
    ]
    out.update(_check(study, people, kills))
    out["kills"] = kills
    out["sessions"] = sessions
    out["reports"] = reports
    out["wall_s"] = time.monotonic() - t_start
    out["ended"] = {s.name: s.dead for s in people}
    out["sent"] = sum(len(s.sent) for s in people)
    out["saved"] = sum(len(s.saved) for s in people)
    out["refused"] = sum(len(s.refused) for s in people)
    out["unconfirmed"] = [
        asdict(x) for s in people for x in s.unconfirmed if not s.dead.startswith("SIG")
    ]
    return out


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The figures of one run, as the benchmark table's rows."""
    kills = r["kills"]
    n = r["sessions"]
    extra_ok = sum(1 for k in kills if not k["called_saved"])

    def row(name: str, value: Any, unit: str = "", target: str = "") -> dict[str, Any]:
        return {"name": f"durability ×{n}: {name}", "value": value, "unit": unit, "target": target}

    return [
        row("review sessions (tmux, 80×24)", n),
        row("killed mid-label with SIGKILL", sum(k["signal"] == "SIGKILL" for k in kills)),
        row(
            "killed mid-label with SIGHUP (process group)",
            sum(k["signal"] == "SIGHUP" for k in kills),
        ),
        row(
            "killed: last key called saved / on disk, not called saved / not written",
            f"{sum(k['called_saved'] for k in kills)} / "
            f"{sum(k['on_disk'] and not k['called_saved'] for k in kills)} / "
            f"{sum(not k['on_disk'] for k in kills)}",
        ),
        row(
            "other sessions quit cleanly at the end (q)",
            sum(v == "quit" for v in r["ended"].values()),
        ),
        row("labels sent (keys)", r["sent"]),
        row("labels called saved on screen", r["saved"]),
        row("  of them the current label on disk, same value", r["on_disk"]),
        row("  of them in label_history, same value", r["in_history"]),
        row("lost (called saved, not on disk or not in history)", len(r["lost"]), "", "0"),
        row(
            "extra (on disk, never called saved)",
            len(r["extra"]),
            "",
            f"≤ {extra_ok} (kills not called saved)",
        ),
        row("screen said NOT saved", r["refused"]),
        row(
            "keys with no effect on screen in time (live sessions)", len(r["unconfirmed"]), "", "0"
        ),
        row("judge verdicts written", r["verdicts"]),
        row("judge calls served while labelling", r["judge_calls_while_labelling"]),
        row(
            "judge run still writing when the labelling ended",
            "yes" if r["judge_running_at_end"] else "no",
        ),
        row("judge run's exit code (0: every unit judged)", r["judge_exit"]),
        row("reports run (failed)", f"{r['reports']['runs']} ({r['reports']['failed']})"),
        row(
            "a report's time, median",
            round(statistics.median(r["reports"]["seconds"]), 1)
            if r["reports"]["seconds"]
            else None,
            "s",
        ),
        row("PRAGMA integrity_check", r["integrity"], "", "ok"),
        row("labelling time", round(r["label_s"], 1), "s"),
        row("whole run", round(r["wall_s"], 1), "s"),
    ]


def run() -> list[dict[str, Any]]:
    """Start everything, label, kill, stop, check; one row per figure."""
    if shutil.which("tmux") is None:
        return [{"name": "durability: tmux missing", "value": None, "unit": "", "target": ""}]
    with tempfile.TemporaryDirectory() as tmp:
        r = measure(Path(tmp))
    for what in ("lost", "extra", "unconfirmed", "kills"):
        print(f"{what}: {json.dumps(r[what], ensure_ascii=False)}", file=sys.stderr)
    odd = {
        name: how for name, how in r["ended"].items() if how not in ("quit", "SIGKILL", "SIGHUP")
    }
    print(f"sessions that did not end by a kill or q: {odd}", file=sys.stderr)
    if r["reports"].get("error"):
        print(f"a report failed: {r['reports']['error']}", file=sys.stderr)
    return rows(r)


if __name__ == "__main__":
    for result in run():
        print(f"{result['name']:<80} {result['value']!s:>8} {result['target']}")
