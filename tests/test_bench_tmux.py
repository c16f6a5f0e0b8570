"""The benchmarks' terminal harness (``benchmarks/tmux.py``): every command it sends through
its tmux control client gets that command's own reply, even after a reply nobody read (one
such reply once made every screen read return the previous command's, and the sessions
benchmark timed keys at 0.3 ms)."""

from __future__ import annotations

import shutil
import time

import pytest

from benchmarks.tmux import Tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")


def _shown(tmux: Tmux, name: str, text: str) -> None:
    deadline = time.monotonic() + 20
    while text not in tmux.screen(name):
        assert time.monotonic() < deadline, f"{name} never showed {text!r}"
        time.sleep(0.05)


def test_a_reply_left_unread_is_not_taken_for_the_next_commands() -> None:
    tmux = Tmux()
    try:
        tmux.start("one", "printf 'first pane\\n'; sleep 60")
        tmux.start("two", "printf 'second pane\\n'; sleep 60")
        _shown(tmux, "one", "first pane")
        _shown(tmux, "two", "second pane")
        control = tmux._client()
        assert control.stdin is not None
        control.stdin.write("display-message -p stray\n")  # its reply is never read
        control.stdin.flush()
        assert "first pane" in tmux.screen("one")
        assert "second pane" in tmux.screen("two")
        assert tmux.command("display-message -p hello") == "hello\n"
        with pytest.raises(RuntimeError, match="no-such-session"):
            tmux.screen("no-such-session")
        assert "first pane" in tmux.screen("one")  # an error's leftovers are passed over too
    finally:
        tmux.kill()


def test_a_watched_pane_s_output_is_stamped_when_it_arrives() -> None:
    """``watch`` times what a pane writes (``%output``), and only after a key: the sessions
    benchmark takes a key's latency from these stamps, not from its polling."""
    tmux = Tmux()
    try:
        tmux.start("echo", "stty -echo; read line; printf 'got %s\\n' \"$line\"; sleep 60")
        tmux.watch("echo")  # returns once its client has attached
        time.sleep(1.0)  # the shell is up and waiting for its line
        t0 = time.perf_counter()
        assert tmux.output_since("echo", t0) == []
        tmux.send("echo", "ping")
        tmux.command("send-keys -t echo Enter")
        _shown(tmux, "echo", "got ping")
        # the watcher's thread reads its own client: it may stamp just after the screen shows
        deadline = time.monotonic() + 20
        while not (stamps := tmux.output_since("echo", t0)):
            assert time.monotonic() < deadline, "the pane wrote, and no output was stamped"
            time.sleep(0.01)
        assert t0 < stamps[0] <= stamps[-1] <= time.perf_counter()
        assert tmux.output_since("echo", stamps[-1]) == []
    finally:
        tmux.kill()
