"""Many reviewers at once: 30 real ``medjudge review`` sessions on one study while a
judge run writes to it, in the same run as a bare Textual app for reference.

Setup: one study of 300 pairwise items (answers of 2–12 sentences, varying from item to item)
built through the real importer, reviewing under another name allowed; the fake OpenAI-compatible server in its own process, answering each
call after ``LATENCY`` seconds; the real ``medjudge judge`` against it (600 calls at
concurrency 2, every reply committed as it arrives, so the study changes a few times a
second throughout); then 30 review sessions, each the real ``medjudge review --reviewer rNN``
in its own tmux session at 80×24 (one private tmux server), plus ``BARE`` bare Textual apps
(a counter that goes up on ``]``, the script below) started the same way.

Measured, all while the judge run is still writing (checked: it served calls during each
phase and had not finished):

- resident memory (``VmRSS``) of each review process once every session is up, idle, and
  again at the end, median and max;
- idle CPU: over a quiet window of ``IDLE_S`` seconds with no keys sent, each process's
  ``utime + stime`` (``/proc/PID/stat``) as % of one core, median and max;
- key → screen: ``]`` (next item), then ``a`` (label; five per item, then an untimed ``]``
  and a pause, so no item is completed and revealed and no key follows a frame within
  Textual's 1/60 s between frames), ``KEYS`` of each, sent with ``tmux send-keys`` to one
  session at a time, round robin over the 30, timed to the end of the pane output that
  changed its first line. That time is stamped as the output reaches tmux: each session has
  a control client of its own (``Tmux.watch``) whose ``%output`` notifications a thread
  stamps as they arrive, so a latency is known to a fraction of a millisecond (the screen
  read every 5 ms, as before, made each one a whole number of polls: the bare app one, the
  review app two or three, and their ratio jumped between 2 and 3 from run to run).
  Interleaved key for key, in random order, with the same key to the bare apps and to the
  two screenful apps (``benchmarks/screenful_app.py``: the review screen's change made by
  stock Textual widgets; ``saving`` also commits each label to the study file first, with
  the review app's ``synchronous=FULL``, as the review app must before it says "saved"), so
  all see the same load; p50 / p95 and the ratios of the p95s.

Targets: idle ≤ 0.5 % of a core per session, ≤ 80 MB per session, key → screen p95
≤ 33 ms (two frames at 60 Hz) and ≤ 1.0× the stock widgets making the same change: for the
label key, the reference that makes the same durable write (the one without it is reported
beside, to tell drawing from saving). Every tmux session, the judge and the server are ended on the way
out, whatever happened.
"""

from __future__ import annotations

import json
import os
import random
import shlex
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.tmux import Tmux, status_mb  # noqa: E402

SESSIONS = 30
BARE = 2
ITEMS = 300
IDLE_S = 20.0
KEYS = 300  # per key (] and a) to the review sessions; as many again to the bare apps
LATENCY = 0.5  # per judge call; 600 calls at concurrency 2: ~150 s of writing
CONCURRENCY = 2
TICK = os.sysconf("SC_CLK_TCK")
SCREEN_APP = Path(__file__).with_name("screenful_app.py")
SCREENFUL = ("screenful", "saving")
"""The stock-widget references: drawing only, and drawing after the same durable commit."""
QUIET = 0.010  # a frame's output is over once the pane has written nothing for this long

BARE_APP = """
from textual.app import App
from textual.widgets import Static


class Bare(App):
    def compose(self):
        self.count = 0
        yield Static("count 0", id="n")

    def on_key(self, event):
        if event.character in ("]", "a"):
            self.count += 1
            self.query_one("#n", Static).update(f"count {self.count}")


Bare().run()
"""


def _build(folder: Path, items: int = ITEMS) -> Path:
    """The study: ``items`` pairwise items through the real importer, reviewing under
    another name allowed (``--reviewer``)."""
    from medjudge.store.importing.run import import_file
    from medjudge.store.settings import StudySettings
    from medjudge.store.study import Study

    source = folder / "items.jsonl"
    with source.open("w", encoding="utf-8") as fh:
        for i in range(items):
            row = {
                "id": f"q{i:03d}",
                "question": f"Question {i}: my child has a fever of 38.6 °C, what should I do?",
                # answers of 2–12 sentences, different from item to item, as real ones are:
                # the next item's panes change height, so showing it lays the screen out
                "answer_a": f"GOOD answer {i}: offer fluids often and check her temperature. "
                * (2 + (i * 7) % 11),
                "answer_b": f"Plain answer {i}: wait and see how she does overnight. "
                * (2 + (i * 5) % 9),
                "source_a": "model-x",
                "source_b": "model-y",
            }
            fh.write(json.dumps(row) + "\n")
    path = folder / "sessions.db"
    study = Study.create(
        path, StudySettings(name="sessions", allow_reviewer_override=True), actor="bench"
    )
    import_file(study, source, "pairwise", actor="bench")
    study.close()
    with closing(sqlite3.connect(path)) as conn:  # the saving screenful app's votes
        conn.execute(
            "CREATE TABLE screenful_votes (id INTEGER PRIMARY KEY, item INTEGER, "
            "criterion TEXT, value TEXT)"
        )
        conn.commit()
    return path


def _first_line(screen: str) -> str:
    return next((line.strip() for line in screen.splitlines() if line.strip()), "")


def _cpu_s(pid: int) -> float:
    """utime + stime of a process, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _key_to_screen(tmux: Tmux, name: str, key: str, timeout: float = 10.0) -> float:
    """Seconds from ``send-keys KEY`` to the end of the pane output that changed its first
    line: the time the last piece of that output reached tmux (stamped as it arrives, see
    ``Tmux.watch``), once the pane has been quiet for ``QUIET`` seconds and its first
    line differs. Output that follows within ``QUIET`` (a second frame) is counted in."""
    before = _first_line(tmux.screen(name))
    t0 = time.perf_counter()
    tmux.send(name, key)
    while True:
        time.sleep(0.002)
        now = time.perf_counter()
        times = tmux.output_since(name, t0)
        if times and now - times[-1] >= QUIET and _first_line(tmux.screen(name)) != before:
            return times[-1] - t0
        if now - t0 > timeout:
            raise TimeoutError(f"{name}: no change on screen {timeout} s after the key")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def _wait_all(tmux: Tmux, names: list[str], ready: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    pending = list(names)
    while pending:
        pending = [n for n in pending if ready not in tmux.screen(n)]
        if time.monotonic() > deadline:
            raise TimeoutError(f"not up after {timeout} s: {pending}")
        time.sleep(0.2)


def _end(pids: list[int]) -> None:
    """Wait for processes ended by the tmux server's exit; kill those still there."""
    deadline = time.monotonic() + 5
    for pid in pids:
        while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
            try:  # a zombie whose parent (the tmux server) is gone is reaped by init
                if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                    break
            except OSError:
                break
            time.sleep(0.05)
        if os.path.exists(f"/proc/{pid}"):
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _measure(folder: Path) -> dict[str, Any]:
    from benchmarks.fake_server_process import ServerProcess

    study = _build(folder)
    home = folder / "home"
    home.mkdir()
    bare_script = folder / "bare.py"
    bare_script.write_text(BARE_APP, encoding="utf-8")
    env = f"exec env MEDJUDGE_HOME={shlex.quote(str(home))} TERM=xterm-256color"
    py = shlex.quote(sys.executable)
    reviewers = [f"r{n:02d}" for n in range(SESSIONS)]
    bares = [f"bare{n}" for n in range(BARE)]
    out: dict[str, Any] = {}
    pids: dict[str, int] = {}
    tmux: Tmux | None = None
    judge: subprocess.Popen[bytes] | None = None
    with ServerProcess(LATENCY) as server:
        try:
            judge = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "medjudge",
                    "judge",
                    str(study),
                    "-j",
                    f"openai:fake@{server.url}",
                    "--samples",
                    "1",
                    "--concurrency",
                    str(CONCURRENCY),
                ],
                env={**os.environ, "MEDJUDGE_HOME": str(home), "OPENAI_API_KEY": "sk-bench"},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            tmux = Tmux()
            t0 = time.monotonic()
            for name in reviewers:
                tmux.start(
                    name,
                    f"{env} {py} -m medjudge review {shlex.quote(str(study))} --reviewer {name}",
                )
            for name in bares:
                tmux.start(name, f"{env} {py} {shlex.quote(str(bare_script))}")
            tmux.start("screenful", f"{env} {py} {shlex.quote(str(SCREEN_APP))}")
            tmux.start(
                "saving",
                f"{env} {py} {shlex.quote(str(SCREEN_APP))} --save {shlex.quote(str(study))}",
            )
            _wait_all(tmux, reviewers, "q000", 120)
            _wait_all(tmux, bares, "count 0", 30)
            _wait_all(tmux, list(SCREENFUL), "q000", 30)
            out["startup_s"] = time.monotonic() - t0
            pids = {name: tmux.pid(name) for name in [*reviewers, *bares, *SCREENFUL]}
            for name, pid in pids.items():
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                script = b"screenful_app.py" if name in SCREENFUL else b"medjudge"
                script = b"bare.py" if name in bares else script
                assert script in cmd, (name, cmd)
                tmux.watch(name)
            time.sleep(2.0)  # let the last starts (and the watchers' attaching) settle

            # -- idle: no keys, the judge writing
            calls0 = server.count()
            cpu0 = {name: _cpu_s(pid) for name, pid in pids.items()}
            w0 = time.monotonic()
            time.sleep(IDLE_S)
            window = time.monotonic() - w0
            cpu1 = {name: _cpu_s(pid) for name, pid in pids.items()}
            out["idle_calls"] = server.count() - calls0
            out["idle_pct"] = {n: (cpu1[n] - cpu0[n]) / window * 100 for n in pids}
            out["rss_idle"] = {n: status_mb(pid, "VmRSS") for n, pid in pids.items()}
            assert judge.poll() is None, "the judge run ended before the idle window did"

            # -- key → screen, review and bare interleaved
            calls0 = server.count()
            rng = random.Random(27)
            keyed: dict[str, list[float]] = {
                f"{who} {key}": [] for key in ("]", "a") for who in ("review", "bare", *SCREENFUL)
            }
            screen_votes = 0
            votes = dict.fromkeys(reviewers, 0)
            for key in ("]", "a"):
                for k in range(KEYS):
                    review = reviewers[k % SESSIONS]
                    if key == "a" and votes[review] == 5:  # never the 6th: no reveal
                        _key_to_screen(tmux, review, "]")  # the next item, untimed
                        votes[review] = 0
                        # Textual draws at most 60 frames a second: a key sent within 1/60 s
                        # of the frame just seen waits for the next one (12 ms more here at
                        # the median). No reviewer labels that fast, and no key of the bare
                        # apps follows a frame that closely: leave the usual pause.
                        time.sleep(0.1)
                    if key == "a" and screen_votes == 5:  # the screenful apps alike
                        for name in SCREENFUL:
                            _key_to_screen(tmux, name, "]")
                        screen_votes = 0
                        time.sleep(0.1)
                    apps = [
                        (review, f"review {key}"),
                        (bares[k % BARE], f"bare {key}"),
                        *((name, f"{name} {key}") for name in SCREENFUL),
                    ]
                    rng.shuffle(apps)
                    for name, into in apps:
                        keyed[into].append(_key_to_screen(tmux, name, key) * 1000)
                        time.sleep(rng.uniform(0.01, 0.04))
                    if key == "a":
                        votes[review] += 1
                        screen_votes += 1
            out["key_calls"] = server.count() - calls0
            out["keys_ms"] = keyed
            out["rss_end"] = {n: status_mb(pid, "VmRSS") for n, pid in pids.items()}
            out["judge_running"] = judge.poll() is None
        finally:
            if tmux is not None:
                tmux.kill()
            _end(list(pids.values()))
            if judge is not None:
                judge.terminate()
                try:
                    judge.wait(10)
                except subprocess.TimeoutExpired:
                    judge.kill()
                    judge.wait()
    return out


def run() -> list[dict[str, Any]]:
    """Start everything, measure, end everything; one row per figure."""
    if shutil.which("tmux") is None:
        return [
            {
                "name": "sessions: tmux missing",
                "value": None,
                "unit": "",
                "target": "",
                "peak_mb": None,
            }
        ]
    with tempfile.TemporaryDirectory() as tmp:
        r = _measure(Path(tmp))
    review = [n for n in r["idle_pct"] if n.startswith("r")]
    bare = [n for n in r["idle_pct"] if n.startswith("bare")]
    idle = [r["idle_pct"][n] for n in review]
    rss = [r["rss_end"][n] for n in review]
    rss_idle = [r["rss_idle"][n] for n in review]
    judged = (
        f"judge writing: {r['idle_calls']} calls in the idle window, {r['key_calls']} during "
        f"the keys, still running at the end: {'yes' if r['judge_running'] else 'no'}"
    )

    def row(name: str, value: float, unit: str, target: str, digits: int = 2) -> dict[str, Any]:
        return {
            "name": f"sessions ×{SESSIONS}: {name}",
            "value": round(value, digits),
            "unit": unit,
            "target": target,
            "peak_mb": None,
        }

    return (
        [
            row(
                f"all up ({SESSIONS} reviews + {BARE} bare apps + 2 screenful apps, first screen)",
                r["startup_s"],
                "s",
                "(setup)",
                1,
            ),
            row(
                f"idle CPU per review session, median ({IDLE_S:.0f} s, no keys)",
                statistics.median(idle),
                "% core",
                "≤ 0.5 %",
            ),
            row("idle CPU per review session, max", max(idle), "% core", "≤ 0.5 %"),
            row(
                "idle CPU, bare Textual app, median (reference)",
                statistics.median(r["idle_pct"][n] for n in bare),
                "% core",
                "(reference)",
            ),
            row(
                "RSS per review session after idle, median",
                statistics.median(rss_idle),
                "MB",
                "≤ 80 MB",
                1,
            ),
            row(
                "RSS per review session after the keys, median",
                statistics.median(rss),
                "MB",
                "≤ 80 MB",
                1,
            ),
            row("RSS per review session, max", max(rss + rss_idle), "MB", "≤ 80 MB", 1),
            row(
                "RSS, bare Textual app (reference)",
                max(r["rss_end"][n] for n in bare),
                "MB",
                "(reference)",
                1,
            ),
        ]
        + [
            row(
                f"key {key} ({what}) → screen, {who}, {q} ({KEYS} keys)",
                fn(r["keys_ms"][f"{who} {key}"]),
                "ms",
                "(reference)" if who != "review" else ("≤ 33 ms" if q == "p95" else ""),
                1,
            )
            for key, what in (("]", "next item"), ("a", "label"))
            for who in ("review", "bare", *SCREENFUL)
            for q, fn in (("p50", statistics.median), ("p95", lambda v: _pct(v, 0.95)))
        ]
        + [
            row(
                f"key {key} → screen p95, review / bare" + (f" ({judged})" if key == "a" else ""),
                _pct(r["keys_ms"][f"review {key}"], 0.95) / _pct(r["keys_ms"][f"bare {key}"], 0.95),
                "×",
                "(reference)",
            )
            for key in ("]", "a")
        ]
        + [
            row(
                f"key {key} → screen p95, review / {ref} ({what})",
                _pct(r["keys_ms"][f"review {key}"], 0.95)
                / _pct(r["keys_ms"][f"{ref} {key}"], 0.95),
                "×",
                target,
            )
            for key, ref, what, target in (
                ("]", "screenful", "stock widgets, the same change", "≤ 1.0×"),
                (
                    "a",
                    "screenful",
                    "stock widgets drawing the same change, no write",
                    "(reference)",
                ),
                ("a", "saving", "stock widgets, the same change after the same commit", "≤ 1.0×"),
            )
        ]
    )


if __name__ == "__main__":
    for result in run():
        print(json.dumps(result, ensure_ascii=False))
