"""A private tmux server for the benchmarks that drive the real app in a real terminal, and
what ``/proc`` says of a process's memory."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


class Tmux:
    """A private tmux server (``-L``): every session of this run, ended at once.

    Screens are read and keys sent through one control-mode client (``tmux -C``) attached to
    the keeper session, a command per line on its standard input: reading a screen every few
    milliseconds no longer starts a ``tmux`` process each time (2–5 ms of CPU each, about half
    a core while a key is waited for, on the same 2 cores as the apps measured).
    """

    def __init__(self) -> None:
        self.base = ["tmux", "-L", f"mj-bench-{os.getpid()}", "-f", "/dev/null"]
        # a keeper holds the server up, so that starting the first session never races its exit
        self("new-session", "-d", "-s", "keeper", "sleep 3600")
        self._control: subprocess.Popen[str] | None = None
        self._serial = 0

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
        """The pane's text now (``capture-pane -p``)."""
        return self.command(f"capture-pane -p -t {_quoted(name)}")

    def send(self, name: str, keys: str) -> None:
        """Type ``keys`` literally into the pane (``send-keys -l``)."""
        self.command(f"send-keys -t {_quoted(name)} -l {_quoted(keys)}")

    def command(self, line: str) -> str:
        """Run one tmux command through the control client; its output (error: raised).

        The command is followed by a ``display-message`` of a token of its own, and its reply
        is the one just before the token's: a reply left unread (the attach's own, arriving
        late; one after an error) is passed over instead of being taken, from then on, for
        every next command's (each screen read returned the one before's).
        """
        control = self._client()
        assert control.stdin is not None
        self._serial += 1
        token = f"mj-{self._serial}"
        control.stdin.write(f"{line}\ndisplay-message -p {token}\n")
        control.stdin.flush()
        replies: list[str] = []
        while (reply := self._reply(control, line)) != f"{token}\n":
            replies.append(reply)
        if not replies:
            raise RuntimeError(f"tmux {line!r}: no reply")
        return replies[-1]

    @staticmethod
    def _reply(control: subprocess.Popen[str], line: str) -> str:
        """The next reply (``%begin`` … ``%end``) on the control client's output."""
        assert control.stdout is not None
        lines: list[str] = []
        inside = False
        while True:
            raw = control.stdout.readline()
            if not raw:
                raise RuntimeError(f"the tmux control client ended during {line!r}")
            text = raw.rstrip("\n")
            if text.startswith("%begin"):
                inside, lines = True, []
            elif inside and text.startswith(("%end", "%error")):
                if text.startswith("%error"):
                    raise RuntimeError(f"tmux {line!r}: {' '.join(lines)}")
                return "".join(f"{row}\n" for row in lines)
            elif inside:
                lines.append(text)
            # outside a reply: a notification (%output, %session-changed, ...), not ours

    def _client(self) -> subprocess.Popen[str]:
        if self._control is None:
            control = subprocess.Popen(
                [*self.base, "-C", "attach-session", "-t", "keeper"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
            assert control.stdin is not None
            # the attach's own reply comes first: read replies up to this command's
            control.stdin.write("display-message -p mj-sync\n")
            control.stdin.flush()
            while self._reply(control, "attach-session") != "mj-sync\n":
                pass
            self._control = control
        return self._control

    def kill(self) -> None:
        """End the server (its panes' processes get SIGHUP) and remove its socket file."""
        if self._control is not None:
            self._control.kill()
            self._control.wait()
            self._control = None
        socket = self("display-message", "-p", "#{socket_path}").stdout.strip()
        self("kill-server")
        if socket:
            Path(socket).unlink(missing_ok=True)


def _quoted(word: str) -> str:
    """A word for tmux's command parser, whatever it holds."""
    return "'" + word.replace("'", "'\\''") + "'"


def status_mb(pid: int, field: str) -> float:
    """A memory figure of ``/proc/PID/status`` in MB (``VmRSS`` now, ``VmHWM`` the peak)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")
