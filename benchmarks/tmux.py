"""A private tmux server for the benchmarks that drive the real app in a real terminal, and
what ``/proc`` says of a process's memory."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


class Tmux:
    """A private tmux server (``-L``): every session of this run, ended at once."""

    def __init__(self) -> None:
        self.base = ["tmux", "-L", f"mj-bench-{os.getpid()}", "-f", "/dev/null"]
        # a keeper holds the server up, so that starting the first session never races its exit
        self("new-session", "-d", "-s", "keeper", "sleep 3600")

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.base, *args], capture_output=True, text=True, timeout=20)

    def start(self, name: str, command: str, width: int = 80, height: int = 24) -> None:
        # the pane gets its size just after the command starts: start once it has it
        size = ("-x", str(width), "-y", str(height))
        r = self("new-session", "-d", "-s", name, *size, f"sleep 0.3; {command}")
        if r.returncode != 0:
            raise RuntimeError(f"tmux new-session {name}: {r.stderr}")

    def pid(self, name: str) -> int:
        return int(self("display-message", "-p", "-t", name, "#{pane_pid}").stdout.strip())

    def screen(self, name: str) -> str:
        return self("capture-pane", "-p", "-t", name).stdout

    def kill(self) -> None:
        """End the server (its panes' processes get SIGHUP) and remove its socket file."""
        socket = self("display-message", "-p", "#{socket_path}").stdout.strip()
        self("kill-server")
        if socket:
            Path(socket).unlink(missing_ok=True)


def status_mb(pid: int, field: str) -> float:
    """A memory figure of ``/proc/PID/status`` in MB (``VmRSS`` now, ``VmHWM`` the peak)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")
