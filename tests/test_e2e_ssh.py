"""Over real SSH: OpenSSH's server on 127.0.0.1 with a throwaway key, ``ssh -tt`` in tmux.

A reviewer connects, runs ``medjudge review``, labels with keystrokes, and the connection is
cut abruptly (the client is killed, as when a laptop lid closes). Every label the app had
shown as saved must be in the study; the server-side app must not linger; reconnecting at
80×24 gives a usable app that continues where the reviewer was.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .support.terminal import Terminal
from .support.tui import build_study, history, labels

SSHD = "/usr/sbin/sshd"
REPO = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.skipif(
        not Path(SSHD).exists(),
        reason="OpenSSH server not installed (apt-get install openssh-server)",
    ),
    pytest.mark.skipif(shutil.which("ssh") is None, reason="ssh client not installed"),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed"),
    pytest.mark.skipif(os.geteuid() != 0, reason="the throwaway sshd setup needs root"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SSHServer:
    """sshd on loopback with its own host key, client key and config."""

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.host_key = root / "host_ed25519"
        self.client_key = root / "client_ed25519"
        for key in (self.host_key, self.client_key):
            subprocess.run(
                ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True
            )
        (root / "authorized_keys").write_text((root / "client_ed25519.pub").read_text())
        self.port = _free_port()
        config = root / "sshd_config"
        config.write_text(
            "\n".join(
                [
                    "ListenAddress 127.0.0.1",
                    f"Port {self.port}",
                    f"HostKey {self.host_key}",
                    f"AuthorizedKeysFile {root / 'authorized_keys'}",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PermitRootLogin yes",
                    "StrictModes no",
                    "UsePAM no",
                    f"PidFile {root / 'sshd.pid'}",
                    "ClientAliveInterval 1",
                    "ClientAliveCountMax 2",
                    "LogLevel ERROR",
                ]
            )
            + "\n"
        )
        Path("/run/sshd").mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                    pytest.skip(f"sshd did not start: {err.strip()[:300]}")
                time.sleep(0.05)

    def command(self, remote: str) -> str:
        """The local command line that runs ``remote`` over ssh with a pty."""
        opts = (
            f"-tt -i {self.client_key} -p {self.port} -o StrictHostKeyChecking=no "
            "-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes"
        )
        return f"ssh {opts} root@127.0.0.1 {shlex.quote(remote)}"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


@pytest.fixture
def sshd(tmp_path: Path) -> Iterator[SSHServer]:
    server = SSHServer(tmp_path / "ssh")
    yield server
    server.stop()


def _remote_review(path: Path, home: Path) -> str:
    return (
        f"cd {shlex.quote(str(REPO))} && env MEDJUDGE_HOME={shlex.quote(str(home))} TERM=xterm-256color "
        f"{shlex.quote(sys.executable)} -m medjudge review {shlex.quote(str(path))} --reviewer ssh-doc"
    )


def _app_processes(path: Path) -> list[int]:
    out = subprocess.run(
        ["pgrep", "-f", f"medjudge review {path}"], capture_output=True, text=True
    ).stdout
    return [int(p) for p in out.split()]


def test_review_over_ssh_survives_an_abrupt_disconnect(sshd: SSHServer, tmp_path: Path) -> None:
    path = build_study(tmp_path, pairwise=3, statements=1, rating=0)
    home = tmp_path / "home"
    home.mkdir()
    term = Terminal(sshd.command(_remote_review(path, home)), home, 80, 24)
    try:
        term.wait(lambda s: "p0" in s and "a A" in s, "the app over ssh")
        term.keys(*"abtnab")  # item p0, all six criteria
        term.wait(lambda s: s.lstrip().startswith("p1"), "item p1")
        term.keys(*"tta")  # half of p1
        deadline = time.monotonic() + 10
        while len(labels(path, "ssh-doc")) < 9 and time.monotonic() < deadline:
            time.sleep(0.05)
        term.wait(lambda s: "saved" in s.lower(), "the saved state")
    finally:
        # Cut the connection abruptly: kill the ssh client, as a dropped link would.
        for pid in subprocess.run(
            ["pgrep", "-f", f"-p {sshd.port} "], capture_output=True, text=True
        ).stdout.split():
            os.kill(int(pid), signal.SIGKILL)
        term.kill()
    got = labels(path, "ssh-doc")
    assert len(got) == 9
    assert [
        got[("p0", c)]
        for c in ("correctness", "helpfulness", "harmfulness", "reasoning", "efficiency", "bias")
    ] == [v for v in _as_item_values(path, "p0", "abtnab")]
    deadline = time.monotonic() + 15
    while _app_processes(path) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _app_processes(path) == [], "the server-side app outlived the connection"

    again = Terminal(sshd.command(_remote_review(path, home)), home, 80, 24)
    try:
        text = again.wait(
            lambda s: "p1" in s and "a A" in s, "the app after reconnecting", timeout=30
        )
        assert "3/6 labelled" in text, text  # back at the unfinished item, its labels shown
        again.keys(*"nab")
        again.wait(lambda s: s.lstrip().startswith("p2"), "item p2")
        again.keys("q")
        again.wait_closed()
    finally:
        again.kill()
    assert len(labels(path, "ssh-doc")) == 12
    assert len(history(path, "ssh-doc")) == 12


def _as_item_values(path: Path, ext_id: str, keys: str) -> list[str]:
    """What the keys mean for an item, given its stored display order (a = left answer)."""
    import sqlite3

    order = (
        sqlite3.connect(path)
        .execute("SELECT shown_order FROM items WHERE ext_id = ?", (ext_id,))
        .fetchone()[0]
    )
    left, right = order
    return [{"a": left, "b": right, "t": "tie", "n": "neither"}[k] for k in keys]
