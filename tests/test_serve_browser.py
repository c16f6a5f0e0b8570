"""``medjudge serve`` in a real browser (headless Chromium driven by Playwright): log in,
label with a key in the terminal page, reload and find the label kept; a second reviewer
sees none of the first's labels before the reveal (and does after it); a wrong password is
refused (issue #47).

Needs Chromium at /usr/bin/chromium and the ``playwright`` package (the test extras); it
downloads no browser. WebGL is off so that xterm.js draws the terminal as DOM text, which
the test reads; every wait is for text to appear.
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from medjudge.serve.passwords import hash_password
from medjudge.store.accounts import set_account
from medjudge.store.study import Study

from .support.tui import build_study

CHROMIUM = Path("/usr/bin/chromium")
CRITERIA = ("correctness", "helpfulness", "harmfulness", "reasoning", "efficiency", "bias")

try:
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # pragma: no cover - the test extras install it
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Chromium not installed at /usr/bin/chromium (apt-get install -y chromium)",
    ),
    pytest.mark.skipif(
        sync_playwright is None, reason="playwright not installed (pip install playwright)"
    ),
]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """``medjudge serve`` on a free port of 127.0.0.1, for alice and bob; yields its URL."""
    study = build_study(tmp_path, override=False, pairwise=2, statements=0, rating=0)
    with Study.open(study) as s:
        set_account(s, "alice", hash_password("alice-password"), by="lead")
        set_account(s, "bob", hash_password("bob-password"), by="lead")
    proc = subprocess.Popen(
        [sys.executable, "-m", "medjudge", "serve", str(study), "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    assert proc.stderr is not None
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in proc.stderr or []:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    try:
        url = None
        while url is None:
            line = lines.get(timeout=60)
            found = re.search(r"on (http://127\.0\.0\.1:\d+/)", line)
            url = found.group(1) if found else None
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def screen(page: Page) -> str:
    text: str = page.evaluate(
        "() => { const r = document.querySelector('.xterm-rows'); return r ? r.innerText : ''; }"
    )
    return text


def wait_for(page: Page, text: str) -> None:
    page.wait_for_function(
        "s => { const r = document.querySelector('.xterm-rows'); return !!r && r.innerText.includes(s); }",
        arg=text,
        timeout=60_000,
    )


def log_in(browser: Any, url: str, name: str, password: str) -> Page:
    page: Page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.goto(url + "login")
    page.fill("#name", name)
    page.fill("#password", password)
    page.click("button[type=submit]")
    return page


def open_review(page: Page) -> None:
    page.click("#review")
    wait_for(page, "labelled")  # the app's first frame
    page.focus(".xterm-helper-textarea")  # keys go to the terminal


def test_review_in_a_browser_keeps_labels_and_blinds_others(server: str) -> None:
    assert sync_playwright is not None
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu", "--disable-webgl"]
        )
        try:
            refused = log_in(browser, server, "alice", "not-alice-password")
            refused.wait_for_selector("text=Wrong name or password.")
            assert refused.url.endswith("/login")

            alice = log_in(browser, server, "alice", "alice-password")
            alice.wait_for_selector("#review")
            open_review(alice)
            alice.keyboard.press("a")
            wait_for(alice, "saved correctness = A")
            alice.reload()
            wait_for(alice, "(5 to go)")  # a new session on the same item: the label is there
            assert re.search(r"correctness\s+better\? A", screen(alice))

            bob = log_in(browser, server, "bob", "bob-password")
            bob.wait_for_selector("#review")
            open_review(bob)
            wait_for(bob, "(6 to go)")
            assert "alice" not in screen(bob)
            assert not re.search(r"correctness\s+better\? A", screen(bob))
            for criterion in CRITERIA:
                bob.keyboard.press("b")
                wait_for(bob, f"saved {criterion} = B")
            for _ in CRITERIA[1:]:
                bob.keyboard.press("ArrowUp")
            wait_for(bob, "alice")  # revealed: alice's label on correctness shows now
        finally:
            browser.close()
