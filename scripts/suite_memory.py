"""Measure the test suite's memory: run pytest as a child and sample its whole process tree.

    python scripts/suite_memory.py                      # the full suite: -p no:cacheprovider -n 2
    python scripts/suite_memory.py -q -n 2 tests/test_ppi.py
    python scripts/suite_memory.py --json out.json -- -n 2   # also write the figures as JSON

Every ``--interval`` seconds (0.2) it reads, for each process below this one, its proportional
set size (PSS, ``/proc/PID/smaps_rollup``: shared pages split between the processes that map
them, so the sum over processes is what they occupy together; resident size when PSS cannot
be read) and its peak resident size so far (``VmHWM``, which also catches peaks shorter than
the interval). It reports

- the peak of the summed PSS of the pytest processes: the controller and its xdist workers;
- each of those processes' own peak PSS and peak resident size;
- the peak of every other program the tests start (mypy, Chromium, ``medjudge`` commands,
  tmux, short-lived Python helpers), summed per program name, and of all of them together;
- the seconds from pytest's summary line to the controller's exit, and any process of the
  tree still alive then.

This process makes itself a child subreaper (Linux ``prctl``), so programs that detach
themselves (the tmux server, Chromium's helpers) stay in the tree and are counted; it reaps
them as they exit. The exit status is pytest's.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
XDIST_WORKER = "exec(eval(sys.stdin.readline()))"
"""The code execnet gives ``python -c`` when it starts an xdist worker."""
SUMMARY = re.compile(
    r"\b(\d+ (passed|failed|errors?|skipped|deselected|xfailed|xpassed)|no tests ran)\b"
    r".* in \d+(\.\d+)?s\b"
)
"""pytest's last line, ``=== 3 passed, 1 skipped in 4.20s ===`` (or without the rules, -q)."""
DEFAULT_ARGS = ["-p", "no:cacheprovider", "-n", "2"]


@dataclass
class Proc:
    """One process seen in the tree."""

    pid: int
    name: str
    role: str
    """'controller', 'worker' or 'other'."""
    start: int
    """Start time in clock ticks after boot (orders the workers)."""
    peak_pss_kb: int = 0
    hwm_kb: int = 0


@dataclass
class Samples:
    """What the sampler has gathered so far."""

    pytest_peak_kb: int = 0
    pytest_peak_at: float = 0.0
    others_peak_kb: int = 0
    tree_peak_kb: int = 0
    per_name_peak_kb: dict[str, int] = field(default_factory=dict)
    procs: dict[tuple[int, int], Proc] = field(default_factory=dict)
    """Keyed by (pid, start time), so a reused pid is a new process."""
    count: int = 0


def read_text(path: str) -> str | None:
    """A /proc file's text, or None once the process is gone."""
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return None


def stat_of(pid: int) -> tuple[int, int] | None:
    """(parent pid, start time) from /proc/PID/stat."""
    text = read_text(f"/proc/{pid}/stat")
    if text is None:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), int(fields[19])


def memory_of(pid: int) -> tuple[int, int] | None:
    """(PSS, peak resident size so far) in kB; resident size stands in for PSS when the
    rollup cannot be read."""
    status = read_text(f"/proc/{pid}/status")
    if status is None:
        return None
    fields = dict(
        (line.split(":", 1)[0], line.split(":", 1)[1].split()[0])
        for line in status.splitlines()
        if line.startswith(("VmRSS:", "VmHWM:"))
    )
    if "VmRSS" not in fields:  # a zombie or a kernel thread: no memory of its own
        return None
    pss = int(fields["VmRSS"])
    rollup = read_text(f"/proc/{pid}/smaps_rollup")
    if rollup:
        for line in rollup.splitlines():
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
                break
    return pss, int(fields.get("VmHWM", fields["VmRSS"]))


def program_name(pid: int) -> str:
    """A short name for a process: the program, or for Python what it runs."""
    raw = read_text(f"/proc/{pid}/cmdline") or ""
    argv = [a for a in raw.split("\0") if a]
    comm = (read_text(f"/proc/{pid}/comm") or "?").strip()
    if not argv:
        return comm
    exe = Path(argv[0]).name
    if exe.startswith("python") or comm.startswith("python"):
        rest = [a for a in argv[1:] if a not in ("-u", "-I", "-E", "-s", "-S", "-B")]
        if len(rest) >= 2 and rest[0] == "-m":
            return f"python -m {rest[1]}"
        if rest and rest[0] == "-c":
            code = " ".join(rest[1:2]).replace("\n", " ")
            return f"python -c {code[:40]}"
        if rest:
            return f"python {Path(rest[0]).name}"
        return "python"
    if exe in ("chromium", "chrome", "headless_shell") or comm.startswith("chrom"):
        return "chromium"
    return exe


def tree_below(root: int) -> list[tuple[int, int, int]]:
    """(pid, parent pid, start time) of every process below ``root``."""
    parents: dict[int, list[tuple[int, int]]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        st = stat_of(int(entry))
        if st is not None:
            parents.setdefault(st[0], []).append((int(entry), st[1]))
    found: list[tuple[int, int, int]] = []
    todo = [root]
    while todo:
        parent = todo.pop()
        for pid, start in parents.get(parent, []):
            found.append((pid, parent, start))
            todo.append(pid)
    return found


def role_of(pid: int, parent: int, controller: int) -> str:
    if pid == controller:
        return "controller"
    if parent == controller and XDIST_WORKER in (read_text(f"/proc/{pid}/cmdline") or ""):
        return "worker"
    return "other"


def sample(samples: Samples, controller: int) -> None:
    """One pass over the tree; updates the peaks."""
    pytest_kb = others_kb = 0
    per_name: dict[str, int] = {}
    for pid, parent, start in tree_below(os.getpid()):
        key = (pid, start)
        proc = samples.procs.get(key)
        if proc is None:
            role = role_of(pid, parent, controller)
            name = "pytest" if role != "other" else program_name(pid)
            proc = samples.procs[key] = Proc(pid, name, role, start)
        mem = memory_of(pid)
        if mem is None:
            continue
        pss, hwm = mem
        proc.peak_pss_kb = max(proc.peak_pss_kb, pss)
        proc.hwm_kb = max(proc.hwm_kb, hwm)
        if proc.role == "other":
            others_kb += pss
            per_name[proc.name] = per_name.get(proc.name, 0) + pss
        else:
            pytest_kb += pss
    if pytest_kb > samples.pytest_peak_kb:
        samples.pytest_peak_kb = pytest_kb
        samples.pytest_peak_at = time.monotonic()
    samples.others_peak_kb = max(samples.others_peak_kb, others_kb)
    samples.tree_peak_kb = max(samples.tree_peak_kb, pytest_kb + others_kb)
    for name, kb in per_name.items():
        samples.per_name_peak_kb[name] = max(samples.per_name_peak_kb.get(name, 0), kb)
    samples.count += 1


class Reaper:
    """Reaps every process that ends below this one (as a subreaper, orphans land here) and
    keeps the exit status of pytest itself."""

    def __init__(self, controller: int) -> None:
        self.controller = controller
        self.status: int | None = None
        self.exited_at = 0.0

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.controller:
                self.status = os.waitstatus_to_exitcode(status)
                self.exited_at = time.monotonic()


def _peaks(procs: list[Proc]) -> list[dict[str, int]]:
    return [
        {"pid": p.pid, "pss_peak_mb": round(p.peak_pss_kb / 1024), "hwm_mb": round(p.hwm_kb / 1024)}
        for p in procs
    ]


def mb(kb: int) -> str:
    return f"{kb / 1024:.0f} MB"


def report(
    samples: Samples, started: float, summary_at: float | None, reaper: Reaper, left: list[str]
) -> dict[str, object]:
    pytest_procs = [p for p in samples.procs.values() if p.role != "other"]
    workers = sorted((p for p in pytest_procs if p.role == "worker"), key=lambda p: p.start)
    controller = [p for p in pytest_procs if p.role == "controller"]
    exit_delay = reaper.exited_at - summary_at if summary_at is not None else None
    out: dict[str, object] = {
        "wall_s": round(reaper.exited_at - started, 1),
        "samples": samples.count,
        "pytest_pss_peak_mb": round(samples.pytest_peak_kb / 1024),
        "pytest_pss_peak_at_s": round(samples.pytest_peak_at - started, 1),
        "controller": _peaks(controller),
        "workers": _peaks(workers),
        "others_pss_peak_mb": round(samples.others_peak_kb / 1024),
        "others": {
            name: round(kb / 1024)
            for name, kb in sorted(samples.per_name_peak_kb.items(), key=lambda kv: -kv[1])
        },
        "tree_pss_peak_mb": round(samples.tree_peak_kb / 1024),
        "summary_to_exit_s": round(exit_delay, 2) if exit_delay is not None else None,
        "left_running": left,
        "exit_status": reaper.status,
    }
    lines = [
        "",
        "---- suite memory " + "-" * 50,
        f"wall {out['wall_s']} s, {samples.count} samples",
        f"(a) pytest processes, summed PSS peak: {mb(samples.pytest_peak_kb)}"
        f" (at {out['pytest_pss_peak_at_s']} s)",
    ]
    for p in controller:
        lines.append(
            f"(b) controller pid {p.pid}: PSS peak {mb(p.peak_pss_kb)}, resident peak {mb(p.hwm_kb)}"
        )
    for i, p in enumerate(workers):
        lines.append(
            f"(b) worker {i + 1} pid {p.pid}: PSS peak {mb(p.peak_pss_kb)},"
            f" resident peak (VmHWM) {mb(p.hwm_kb)}"
        )
    lines.append(f"(c) other programs, summed PSS peak: {mb(samples.others_peak_kb)}; per program:")
    for name, kb in sorted(samples.per_name_peak_kb.items(), key=lambda kv: -kv[1]):
        lines.append(f"      {mb(kb):>8}  {name}")
    lines.append(f"    whole tree, summed PSS peak: {mb(samples.tree_peak_kb)}")
    if exit_delay is None:
        lines.append("(d) no summary line seen")
    else:
        lines.append(f"(d) summary line to exit: {exit_delay:.2f} s")
    if left:
        lines.append(f"    still running at exit: {', '.join(left)}")
    print("\n".join(lines), file=sys.stderr, flush=True)
    return out


def split_args(argv: list[str]) -> tuple[Path | None, float, list[str]]:
    """This script's own options (--json PATH, --interval S, up to an optional --), then
    pytest's."""
    json_path: Path | None = None
    interval = 0.2
    i = 0
    while i < len(argv):
        if argv[i] == "--json" and i + 1 < len(argv):
            json_path, i = Path(argv[i + 1]), i + 2
        elif argv[i] == "--interval" and i + 1 < len(argv):
            interval, i = float(argv[i + 1]), i + 2
        elif argv[i] == "--":
            i += 1
            break
        else:
            break
    rest = argv[i:]
    return json_path, interval, rest or DEFAULT_ARGS


def main(argv: list[str]) -> int:
    json_path, interval, pytest_args = split_args(argv)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("warning: not a subreaper; detached programs are not counted", file=sys.stderr)
    # Started in the background (`nohup … &`), this process and so pytest would ignore SIGINT,
    # and a test that interrupts a command it starts would see it run on: a handler of our own
    # makes the child start with the default.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    started = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-m", "pytest", *pytest_args],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    assert child.stdout is not None
    samples = Samples()
    reaper = Reaper(child.pid)
    summary_at: list[float] = []
    done = threading.Event()

    def pump() -> None:
        assert child.stdout is not None
        out = sys.stdout.buffer
        for raw in child.stdout:
            out.write(raw)
            out.flush()
            if SUMMARY.search(raw.decode("utf-8", "replace")):
                summary_at.append(time.monotonic())
        done.set()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    next_sample = 0.0
    while reaper.status is None:
        now = time.monotonic()
        if now >= next_sample:
            sample(samples, child.pid)
            next_sample = now + interval
        reaper.reap()
        time.sleep(0.02)
    done.wait(timeout=5)
    child.returncode = reaper.status  # reaped above; Popen must not wait for it again
    left = [f"{program_name(pid)} (pid {pid})" for pid, _, _ in tree_below(os.getpid())]
    out = report(samples, started, summary_at[-1] if summary_at else None, reaper, left)
    if json_path is not None:
        json_path.write_text(json.dumps(out, indent=2) + "\n")
    return reaper.status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
