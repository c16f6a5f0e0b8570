"""A private tmux server for the benchmarks that drive the real app in a real terminal, and
what ``/proc`` says of a process's memory."""

from __future__ import annotations

import bisect
import os
import queue
import subprocess
import threading
import time
from pathlib import Path


class Tmux:
    """A private tmux server (``-L``): every session of this run, ended at once.

    Screens are read and keys sent through one control-mode client (``tmux -C``), a command
    per line on its standard input: reading a screen every few milliseconds no longer starts
    a ``tmux`` process each time (2–5 ms of CPU each, about half a core while a key is waited
    for, on the same 2 cores as the apps measured).

    The output of a pane is timed by a control client of its own (``watch``), attached to its
    session for the whole run: a thread stamps each ``%output`` notification (what the pane
    has just written, forwarded by tmux as it parses it into the pane's screen) with the time
    it arrived, so that a benchmark can tell when a frame reached the screen to a fraction of
    a millisecond instead of to its polling interval. (Switching one client from session to
    session instead made the app redraw its whole screen some 30 ms after each switch.)
    """

    def __init__(self) -> None:
        self.base = ["tmux", "-L", f"mj-bench-{os.getpid()}", "-f", "/dev/null"]
        # a keeper holds the server up, so that starting the first session never races its exit
        self("new-session", "-d", "-s", "keeper", "sleep 3600")
        self._control: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._watchers: dict[str, tuple[subprocess.Popen[str], list[float]]] = {}
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

    def watch(self, name: str) -> None:
        """Time the output of session ``name``'s pane from now on (once this returns: the
        client has attached), through a control client of its own (it sets no size: the pane
        keeps its own)."""
        if name in self._watchers:
            return
        client = subprocess.Popen(
            [*self.base, "-C", "attach-session", "-r", "-t", name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            errors="replace",  # a character of the pane's output may be cut in two
            bufsize=1,
        )
        times: list[float] = []
        attached = threading.Event()
        threading.Thread(target=_stamp, args=(client, times, attached), daemon=True).start()
        self._watchers[name] = (client, times)
        if not attached.wait(20):  # its attach's reply: from here on, its output is stamped
            raise RuntimeError(f"tmux: a watcher of {name!r} did not attach in 20 s")

    def output_since(self, name: str, t0: float) -> list[float]:
        """Arrival times (``time.perf_counter``) of the watched pane's output after ``t0``."""
        times = self._watchers[name][1]
        return times[bisect.bisect_right(times, t0) :]

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
        while (reply := self._reply(line)) != f"{token}\n":
            replies.append(reply)
        if not replies:
            raise RuntimeError(f"tmux {line!r}: no reply")
        return replies[-1]

    def _reply(self, line: str) -> str:
        """The next reply (``%begin`` … ``%end``) on the control client's output."""
        lines: list[str] = []
        inside = False
        while True:
            try:
                text = self._lines.get(timeout=30)
            except queue.Empty:
                raise RuntimeError(f"tmux {line!r}: no reply in 30 s") from None
            if text is None:
                raise RuntimeError(f"the tmux control client ended during {line!r}")
            if text.startswith("%begin"):
                inside, lines = True, []
            elif inside and text.startswith(("%end", "%error")):
                if text.startswith("%error"):
                    raise RuntimeError(f"tmux {line!r}: {' '.join(lines)}")
                return "".join(f"{row}\n" for row in lines)
            elif inside:
                lines.append(text)
            # outside a reply: a notification (%session-changed, ...), not ours

    def _read(self, control: subprocess.Popen[str]) -> None:
        """The command client's reader thread: every line to the queue, then an end mark."""
        assert control.stdout is not None
        try:
            for raw in control.stdout:
                self._lines.put(raw.rstrip("\n"))
        finally:
            self._lines.put(None)

    def _client(self) -> subprocess.Popen[str]:
        if self._control is None:
            control = subprocess.Popen(
                [*self.base, "-C", "attach-session", "-t", "keeper"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                errors="replace",
                bufsize=1,
            )
            threading.Thread(target=self._read, args=(control,), daemon=True).start()
            assert control.stdin is not None
            # the attach's own reply comes first: read replies up to this command's
            control.stdin.write("display-message -p mj-sync\n")
            control.stdin.flush()
            while self._reply("attach-session") != "mj-sync\n":
                pass
            self._control = control
        return self._control

    def kill(self) -> None:
        """End the server (its panes' processes get SIGHUP) and remove its socket file."""
        for client, _ in self._watchers.values():
            client.kill()
            client.wait()
        self._watchers.clear()
        if self._control is not None:
            self._control.kill()
            self._control.wait()
            self._control = None
        socket = self("display-message", "-p", "#{socket_path}").stdout.strip()
        self("kill-server")
        if socket:
            Path(socket).unlink(missing_ok=True)


def _stamp(client: subprocess.Popen[str], times: list[float], attached: threading.Event) -> None:
    """A watcher's reader thread: the arrival time of each ``%output`` line, in order (one
    writer that only appends: readers bisect the list as it is); ``attached`` is set at the
    end of the first reply (the attach's)."""
    assert client.stdout is not None
    inside = False
    try:
        for raw in client.stdout:
            now = time.perf_counter()
            if raw.startswith("%begin"):
                inside = True
            elif inside and raw.startswith(("%end", "%error")):
                inside = False
                attached.set()
            elif not inside and raw.startswith("%output "):
                times.append(now)
    finally:
        attached.set()  # an ended client: watch() does not wait for nothing


def _quoted(word: str) -> str:
    """A word for tmux's command parser, whatever it holds."""
    return "'" + word.replace("'", "'\\''") + "'"


def status_mb(pid: int, field: str) -> float:
    """A memory figure of ``/proc/PID/status`` in MB (``VmRSS`` now, ``VmHWM`` the peak)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")
