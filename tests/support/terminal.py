"""A real terminal: a detached tmux session at a fixed size, typed at and read."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

NEEDS_TMUX = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


WAIT_S = 120.0
"""How long a wait for the screen may last before the test fails: an event (what the screen
shows), never a pause; the bound only ends a test that would wait forever, so it is generous
(a loaded machine starts the app and paints later, never wrongly)."""


def tmux(
    *args: str, server: str | None = None, config: str = "/dev/null"
) -> subprocess.CompletedProcess[str]:
    """``tmux`` with ``args``; ``server``: a private server's socket name (``-L``), started
    with ``config`` instead of the user's configuration."""
    base = ["tmux"] if server is None else ["tmux", "-L", server, "-f", config]
    return subprocess.run([*base, *args], capture_output=True, text=True, timeout=WAIT_S)


class Terminal:
    """One detached tmux session running a command at a fixed size, on a tmux server of its
    own whose windows keep the size they were made with (``window-size manual``): no other
    session, client or server default resizes the pane under the app.

    The server starts with ``default-size`` set to the terminal's size: a detached window
    whose size tmux recalculates falls back to ``default-size`` (80×24 unless set), which
    resized the pane under a running app on a loaded machine. (``window-size manual`` cannot
    go in that file: tmux 3.3a exits at ``new-session`` when it does, so it is set once the
    session exists.)"""

    def __init__(self, command: str, home: Path, width: int = 80, height: int = 24) -> None:
        self.name = f"mj-e2e-{uuid.uuid4().hex[:8]}"
        # tmux may apply -x/-y to a detached session just after the command starts; a program
        # that starts faster than that reads 80×24 and can miss the resize. Start it once the
        # pane has its size (waited for, not a pause a loaded machine may outlast).
        size = shlex.quote(f"{height} {width}")
        fd, self.config = tempfile.mkstemp(prefix=f"{self.name}-", suffix=".conf")
        with os.fdopen(fd, "w") as f:
            f.write(f"set-option -g default-size {width}x{height}\n")
        env = (
            f'until [ "$(stty size)" = {size} ]; do sleep 0.05; done; '
            f"env MEDJUDGE_HOME={shlex.quote(str(home))} TERM=xterm-256color"
        )
        r = self.tmux(
            "new-session",
            "-d",
            "-s",
            self.name,
            "-x",
            str(width),
            "-y",
            str(height),
            f"{env} {command}",
            ";",  # and from now on its windows keep the size they were made with
            "set-option",
            "-g",
            "window-size",
            "manual",
        )
        assert r.returncode == 0, r.stderr

    def tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        return tmux(*args, server=self.name, config=self.config)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name).stdout

    def alive(self) -> bool:
        return self.tmux("has-session", "-t", self.name).returncode == 0

    def wait(self, condition: Callable[[str], bool], what: str, timeout: float = WAIT_S) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if condition(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen:\n{text}")
            time.sleep(0.05)

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", self.name, key)

    def wait_closed(self, timeout: float = WAIT_S) -> None:
        deadline = time.monotonic() + timeout
        while self.alive():
            assert time.monotonic() < deadline, "the app did not quit"
            time.sleep(0.05)

    def kill(self) -> None:
        self.tmux("kill-server")
        Path(self.config).unlink(missing_ok=True)
