"""The durability benchmark's review sessions (``bench_durability.py``): each one's screen in
tmux read for its next key and for what it called saved, the kills, and the wait for every
key's effect.

A label is *called saved* when the pane's first line (the status line) says ``✓ saved
CRITERION = VALUE`` for that item (``qNNN: ✓ saved …`` once the app has moved on).
"""

from __future__ import annotations

import os
import random
import re
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.tmux import Tmux

WAIT_S = 60.0  # a key's effect not on screen by then: counted unconfirmed
KEYS = {"a": "A", "b": "B", "t": "tie", "n": "neither"}
ROW = re.compile(r"^\s*▶ (\w+)\s.*\s(\S+)\s*$")


@dataclass(frozen=True)
class Label:
    """One label key: who, on which item and criterion, the value the screen names."""

    reviewer: str
    item: str
    criterion: str
    shown: str


@dataclass
class Session:
    """One review session and what its screen said."""

    name: str
    pid: int = 0
    kill: tuple[int, str] | None = None  # (round, "SIGKILL" | "SIGHUP")
    sent: list[Label] = field(default_factory=list)
    saved: list[Label] = field(default_factory=list)
    refused: list[Label] = field(default_factory=list)
    unconfirmed: list[Label] = field(default_factory=list)
    pending: Label | None = None
    leaving: str | None = None  # Enter sent on this done item: waiting for the next
    dead: str = ""  # how it ended: "SIGKILL" / "SIGHUP" (ours), "quit", or what killed it
    ended_by: str = ""  # as tmux says: "exit 0", "signal 9"
    kill_delay: float = 0.0


def top_line(screen: str) -> str:
    return screen.splitlines()[0] if screen else ""


def said(top: str, label: Label) -> bool:
    """The status line calls ``label`` saved (on its item, or on the next: ``qNNN: ✓ saved``)."""
    said = re.escape(f"✓ saved {label.criterion} = {label.shown}") + r"(?![\w])"
    words = top.split()
    here = bool(words) and words[0] == label.item
    return re.search(said, top) is not None and (
        here or re.search(re.escape(f"{label.item}: ") + said, top) is not None
    )


def step(tmux: Tmux, s: Session, rng: random.Random) -> None:
    """Send the session its next key, read off its screen: Enter on a done item, else a label
    key on the unlabelled row under the cursor (nothing when the screen is between states)."""
    screen = tmux.screen(s.name)
    top = top_line(screen)
    words = top.split()
    item = words[0] if words else ""
    if s.leaving is not None:
        if item == s.leaving:
            return  # still on it
        s.leaving = None
    if "✓ done" in top:
        s.leaving = item
        tmux.command(f"send-keys -t {s.name} Enter")
        return
    row = next((m for line in screen.splitlines() if (m := ROW.match(line))), None)
    if row is None or row.group(2) != "—" or not re.fullmatch(r"q\d+", item):
        return
    key = rng.choice(sorted(KEYS))
    label = Label(s.name, item, row.group(1), KEYS[key])
    if said(top, label):  # the screen would say it already: not a test of this key
        return
    tmux.send(s.name, key)
    s.sent.append(label)
    s.pending = label


def kill_session(tmux: Tmux, s: Session, how: str, delay: float) -> None:
    time.sleep(delay)
    if how == "SIGKILL":
        os.kill(s.pid, signal.SIGKILL)
    else:  # a hang-up goes to the terminal's foreground process group
        os.killpg(os.getpgid(s.pid), signal.SIGHUP)
    s.dead, s.kill_delay = how, delay


def dead_panes(tmux: Tmux) -> dict[str, str]:
    """Sessions whose pane is dead (tmux has read its last output), and how its process
    ended (``exit 0``, ``signal 9``; empty while not known yet).

    tmux 3.3 at times leaves a pane's process a zombie for good when several end at once (its
    SIGCHLD handler misses one), so never learns how it ended: a zombie's own exit code
    (``/proc/PID/stat``, field 52, as ``waitpid`` gives it) is read instead.
    """
    out = tmux.command(
        "list-panes -a -F "
        "'#{session_name}|#{pane_pid}|#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}'"
    )
    ended: dict[str, str] = {}
    for line in out.splitlines():
        name, pid, dead, status, sig = line.split("|")
        if dead == "1":
            ended[name] = f"signal {sig}" if sig else f"exit {status}" if status else _zombie(pid)
    return ended


def _zombie(pid: str) -> str:
    """How a zombie process ended (empty if ``pid`` is not a zombie)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return ""
    if fields[0] != "Z":
        return ""
    code = int(fields[49])
    return f"signal {code & 0x7F}" if code & 0x7F else f"exit {code >> 8}"


def settle(tmux: Tmux, sessions: list[Session]) -> None:
    """Wait until every key of the round has shown its effect (a saved or NOT saved status,
    the next item), every killed pane is dead, or ``WAIT_S`` has passed."""
    deadline = time.monotonic() + WAIT_S
    waiting = [s for s in sessions if s.pending is not None or s.leaving is not None or s.dead]
    next_dead_check = 0.0
    while waiting:
        now = time.monotonic()
        dead = dead_panes(tmux) if now >= next_dead_check or now > deadline else None
        if dead is not None:
            next_dead_check = now + 0.5
        still = []
        for s in waiting:
            if s.dead:  # killed this round: its last screen once tmux has read all of it
                if dead is None or s.name not in dead:
                    still.append(s)
                    continue
                if s.pending is not None:
                    top = top_line(tmux.screen(s.name))
                    (s.saved if said(top, s.pending) else s.unconfirmed).append(s.pending)
                    s.pending = None
                continue
            if dead is not None and dead.get(s.name):  # died on its own: a finding
                s.dead = f"died ({dead[s.name]})"
                if s.pending is not None:
                    s.unconfirmed.append(s.pending)
                    s.pending = None
                continue
            top = tmux.command(f"capture-pane -p -S 0 -E 0 -t {s.name}")
            if s.pending is not None:
                if said(top, s.pending):
                    s.saved.append(s.pending)
                    s.pending = None
                elif "NOT saved" in top:
                    s.refused.append(s.pending)
                    s.pending = None
            elif s.leaving is not None and (top.split() or [""])[0] != s.leaving:
                s.leaving = None
            if s.pending is not None or s.leaving is not None:
                still.append(s)
        waiting = still
        if waiting and time.monotonic() > deadline:
            for s in waiting:
                if s.pending is not None:
                    s.unconfirmed.append(s.pending)
                    s.pending = None
                s.leaving = None
            return
        if waiting:
            time.sleep(0.02)
