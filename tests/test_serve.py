"""``medjudge serve`` over real HTTP on 127.0.0.1: logins, throttling, the session cap, the
idle timeout, the cookie, the identity the app runs under, and the accounts in the study
(issue #47). The app process is a small fake speaking textual-serve's pipe protocol, except
in the last test, where it is the real ``medjudge review``."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer
from typer.testing import CliRunner

from medjudge.cli import app as cli
from medjudge.commands.common import WEB_DRIVER, terminal_problem
from medjudge.serve import SERVED_ENV
from medjudge.serve.passwords import hash_password
from medjudge.serve.server import WRONG, ReviewServer, ServeConfig, medjudge_command
from medjudge.serve.throttle import Throttle
from medjudge.store.accounts import set_account
from medjudge.store.roles import grant
from medjudge.store.study import Study

from .support.tui import build_study

PASSWORD = "correct horse battery"
FAKE_APP = (
    r"""
import json, os, sys
out = sys.stdout.buffer
out.write(b"__GANGLION__\n")
seen = {v: os.environ.get(v) for v in ("LOGNAME", "USER", "USERNAME", "%s", "TEXTUAL_DRIVER")}
seen["argv"] = sys.argv[1:]
who = json.dumps(seen).encode()
out.write(b"D" + len(who).to_bytes(4, "big") + who)
out.flush()
for chunk in iter(lambda: os.read(0, 4096), b""):
    if b'"quit"' in chunk:
        break
"""
    % SERVED_ENV
)
"""An app process: says what it was started with (environment, argv), then waits to quit."""


def fake_command(study: Path, what: str) -> list[str]:
    return [sys.executable, "-c", FAKE_APP, what, str(study)]


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = build_study(tmp_path, override=False, pairwise=2, statements=0, rating=0)
    with Study.open(path) as s:
        set_account(s, "alice", hash_password(PASSWORD), by="lead")
        set_account(s, "bob", hash_password(PASSWORD + " 2"), by="lead")
    return path


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@asynccontextmanager
async def served(
    study: Path, **options: Any
) -> AsyncIterator[tuple[ReviewServer, TestClient[Any, Any]]]:
    clock = options.pop("clock", time.monotonic)
    server = ReviewServer(ServeConfig(study=study, command=fake_command, **options), clock=clock)
    async with TestClient(TestServer(server.make_app(), host="127.0.0.1")) as client:
        yield server, client


async def log_in(client: TestClient[Any, Any], name: str, password: str, **headers: str) -> Any:
    return await client.post(
        "/login",
        data={"name": name, "password": password},
        allow_redirects=False,
        headers=headers,
    )


async def first_packet(ws: Any) -> dict[str, Any]:
    msg = await ws.receive(timeout=60)
    assert msg.type == WSMsgType.BINARY, msg
    data: dict[str, Any] = json.loads(msg.data)
    return data


def run(coro: Callable[[], Any]) -> None:
    asyncio.run(coro())


def test_a_wrong_password_and_a_wrong_name_get_the_same_answer(study: Path) -> None:
    async def go() -> None:
        async with served(study) as (_, client):
            wrong_password = await log_in(client, "alice", "not the password")
            wrong_name = await log_in(client, "mallory", PASSWORD)
            for r in (wrong_password, wrong_name):
                assert r.status == 401 and "medjudge_session" not in r.cookies
                body = await r.text()
                assert WRONG.capitalize() + "." in body
            texts = [
                (await r.text()).replace(n, "")
                for r, n in ((wrong_password, "alice"), (wrong_name, "mallory"))
            ]
            assert texts[0] == texts[1]
            ok = await log_in(client, "alice", PASSWORD)
            assert ok.status == 302 and ok.headers["Location"] == "/"
            page = await client.get("/")
            assert "Logged in as <b>alice</b>" in await page.text()

    run(go)


def test_every_page_but_the_login_needs_a_login(study: Path) -> None:
    async def go() -> None:
        async with served(study) as (_, client):
            for path in ("/", "/review", "/adjudicate"):
                r = await client.get(path, allow_redirects=False)
                assert r.status == 302 and r.headers["Location"] == "/login", path
            r = await client.get("/ws/review")
            assert r.status == 401
            assert (await client.get("/static/js/textual.js")).status == 200

    run(go)


def test_the_cookie_is_httponly_samesite_strict_and_secure_behind_tls(study: Path) -> None:
    async def go(**options: Any) -> str:
        async with served(study, **options) as (_, client):
            r = await log_in(client, "alice", PASSWORD)
            return str(r.headers["Set-Cookie"])

    plain = asyncio.run(go())
    assert "HttpOnly" in plain and "SameSite=Strict" in plain and "Secure" not in plain
    proxied = asyncio.run(go(behind_proxy=True))
    assert "HttpOnly" in proxied and "SameSite=Strict" in proxied and "Secure" in proxied


def test_a_forged_cookie_or_another_site_is_refused(study: Path) -> None:
    async def go() -> None:
        async with served(study) as (_, client):
            client.session.cookie_jar.update_cookies({"medjudge_session": "abc.def"})
            r = await client.get("/", allow_redirects=False)
            assert r.status == 302
            r = await log_in(client, "alice", PASSWORD, Origin="https://evil.example")
            assert r.status == 403

    run(go)


def test_failed_logins_lock_the_name_and_the_address(study: Path) -> None:
    async def go() -> None:
        async with served(study, behind_proxy=True) as (_, client):
            for _ in range(5):
                r = await log_in(client, "alice", "guess", **{"X-Forwarded-For": "10.0.0.1"})
                assert r.status == 401
            # the right password, from another address: the name is locked
            r = await log_in(client, "alice", PASSWORD, **{"X-Forwarded-For": "10.0.0.2"})
            assert r.status == 429 and "try again in" in await r.text()
            # another name from the first address: the address is locked
            r = await log_in(client, "bob", PASSWORD + " 2", **{"X-Forwarded-For": "10.0.0.1"})
            assert r.status == 429
            # a name without an account locks alike (a lock-out tells no name exists)
            for _ in range(5):
                await log_in(client, "nobody", "guess", **{"X-Forwarded-For": "10.0.0.3"})
            r = await log_in(client, "nobody", "guess", **{"X-Forwarded-For": "10.0.0.4"})
            assert r.status == 429
            r = await log_in(client, "bob", PASSWORD + " 2", **{"X-Forwarded-For": "10.0.0.5"})
            assert r.status == 302

    run(go)


def test_a_lock_lasts_a_minute_then_doubles() -> None:
    clock = Clock()
    throttle = Throttle(clock=clock)
    for _ in range(4):
        throttle.failed("name:a")
    assert throttle.wait("name:a") == 0
    throttle.failed("name:a")
    assert throttle.wait("name:a") == 60
    clock.now += 61
    assert throttle.wait("name:a") == 0
    for _ in range(5):
        throttle.failed("name:a")
    assert throttle.wait("name:a") == 120
    throttle.succeeded("name:a")
    assert throttle.wait("name:a") == 0


def test_the_throttle_forgets_the_oldest_keys_beyond_its_bound() -> None:
    throttle = Throttle(max_keys=100, clock=Clock())
    for i in range(1000):
        throttle.failed(f"name:{i}")
    assert len(throttle._keys) <= 100


def test_the_app_runs_as_the_logged_in_name_and_nothing_else(study: Path) -> None:
    async def go() -> None:
        async with served(study) as (_, client):
            await log_in(client, "alice", PASSWORD)
            ws = await client.ws_connect("/ws/review?width=100&height=30&reviewer=bob")
            seen = await first_packet(ws)
            await ws.close()
        assert seen["LOGNAME"] == seen["USER"] == seen["USERNAME"] == "alice"
        assert seen[SERVED_ENV] == "1" and seen["TEXTUAL_DRIVER"] == WEB_DRIVER
        assert seen["argv"] == ["review", str(study)]

    run(go)
    argv = medjudge_command(study, "review")
    assert argv[1:] == ["-m", "medjudge", "review", str(study)]  # no --reviewer, no name


def test_the_session_cap_refuses_one_more(study: Path) -> None:
    async def go() -> None:
        async with served(study, max_sessions=1) as (server, client):
            await log_in(client, "alice", PASSWORD)
            first = await client.ws_connect("/ws/review")
            await first_packet(first)
            page = await client.get("/review")
            assert page.status == 403 and "All 1 sessions" in await page.text()
            second = await client.ws_connect("/ws/review")
            msg = await second.receive(timeout=30)
            assert msg.type == WSMsgType.CLOSE and msg.data == 1013
            await first.close()
            deadline = time.monotonic() + 30
            while server.running and time.monotonic() < deadline:
                await asyncio.sleep(0.02)  # until the first session's process has ended
            third = await client.ws_connect("/ws/review")
            await first_packet(third)
            await third.close()

    run(go)


def test_an_idle_session_closes_and_its_login_ends(study: Path) -> None:
    clock = Clock()

    async def go() -> None:
        async with served(study, idle_timeout=0.4, clock=clock) as (server, client):
            await log_in(client, "alice", PASSWORD)
            ws = await client.ws_connect("/ws/review")
            await first_packet(ws)
            clock.now += (
                1  # the fake clock: real time does not matter, the reaper looks every 0.1 s
            )
            msg = await ws.receive(timeout=30)
            assert msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING)
            deadline = time.monotonic() + 30
            while server.running and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            assert (await client.get("/", allow_redirects=False)).status == 200
            clock.now += 1
            assert (await client.get("/", allow_redirects=False)).status == 302

    run(go)


def test_adjudication_is_offered_to_adjudicators_only(study: Path) -> None:
    with Study.open(study) as s:
        grant(s, "bob", "adjudicator", by="lead")

    async def go() -> None:
        async with served(study) as (_, client):
            await log_in(client, "alice", PASSWORD)
            assert "id='adjudicate'" not in await (await client.get("/")).text()
            r = await client.get("/adjudicate")
            assert r.status == 403 and "not an adjudicator" in await r.text()
            ws = await client.ws_connect("/ws/adjudicate")
            assert (await ws.receive(timeout=30)).type == WSMsgType.CLOSE
        async with served(study) as (_, client):
            await log_in(client, "bob", PASSWORD + " 2")
            assert "id='adjudicate'" in await (await client.get("/")).text()
            assert (await client.get("/adjudicate")).status == 200
            ws = await client.ws_connect("/ws/adjudicate")
            assert (await first_packet(ws))["argv"][0] == "adjudicate"
            await ws.close()

    run(go)


def test_no_clear_text_password_in_the_study_file(tmp_path: Path) -> None:
    path = build_study(tmp_path, override=False, pairwise=1, statements=0, rating=0)
    secret = "Zebra-Quince-7781"
    r = CliRunner().invoke(
        cli, ["serve", str(path), "--add-user", "carol", "--password-stdin"], input=secret + "\n"
    )
    assert r.exit_code == 0 and "account carol created" in r.output, r.output
    for f in path.parent.glob(path.name + "*"):
        assert secret.encode() not in f.read_bytes(), f
    grep = subprocess.run(["grep", "-a", "-c", secret, str(path)], capture_output=True, text=True)
    assert grep.stdout.strip() == "0"
    with Study.open(path) as s:
        (stored,) = s.conn.execute("SELECT password_hash FROM accounts").fetchone()
        assert stored.startswith("$argon2id$")
        actions = [r[0] for r in s.conn.execute("SELECT action FROM audit")]
    assert "account:add" in actions


def test_add_user_asks_twice_and_refuses_a_mismatch_or_a_short_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = build_study(tmp_path, override=False, pairwise=1, statements=0, rating=0)
    answers = iter(["first password", "second password"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(answers))
    monkeypatch.setattr("medjudge.commands.serve._interactive", lambda: True)
    r = CliRunner().invoke(cli, ["serve", str(path), "--add-user", "dan"])
    assert r.exit_code == 1 and "differ" in r.output, r.output
    r = CliRunner().invoke(
        cli, ["serve", str(path), "--add-user", "dan", "--password-stdin"], input="short\n"
    )
    assert r.exit_code == 1 and "at least 10 characters" in r.output


def test_serve_refuses_a_study_without_accounts_and_clear_text_over_the_network(
    tmp_path: Path,
) -> None:
    path = build_study(tmp_path, override=False, pairwise=1, statements=0, rating=0)
    r = CliRunner().invoke(cli, ["serve", str(path)])
    assert r.exit_code == 1 and "--add-user NAME" in r.output
    r = CliRunner().invoke(cli, ["serve", str(path), "--host", "0.0.0.0"])
    assert r.exit_code == 1 and "in clear" in r.output
    r = CliRunner().invoke(cli, ["serve", str(path), "--cert", "x.pem"])
    assert r.exit_code == 1 and "go together" in r.output


def test_only_a_lead_adds_accounts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = build_study(tmp_path, override=False, pairwise=1, statements=0, rating=0)
    with Study.open(path) as s:
        grant(s, "someone_else", "lead", by="someone_else")
    r = CliRunner().invoke(
        cli, ["serve", str(path), "--add-user", "eve", "--password-stdin"], input=PASSWORD + "\n"
    )
    assert r.exit_code == 1 and "not a lead" in r.output


def test_the_terminal_check_passes_the_served_app_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # the test's stdin/stdout are not a terminal
    monkeypatch.delenv(SERVED_ENV, raising=False)
    monkeypatch.setenv("TEXTUAL_DRIVER", WEB_DRIVER)
    assert terminal_problem() is not None  # the driver alone is not the server
    monkeypatch.delenv("TEXTUAL_DRIVER")
    monkeypatch.setenv(SERVED_ENV, "1")
    assert terminal_problem() is not None  # nor the marker alone
    monkeypatch.setenv("TEXTUAL_DRIVER", WEB_DRIVER)
    assert terminal_problem() is None


def packet(kind: bytes, payload: bytes) -> bytes:
    return kind + len(payload).to_bytes(4, "big") + payload


def test_the_real_review_app_runs_served_as_the_given_login(study: Path) -> None:
    """``medjudge review`` under the web driver, as the server starts it: it passes the
    terminal check, draws, saves a key's label under the login name of its environment."""
    env = dict(os.environ, TEXTUAL_DRIVER=WEB_DRIVER, COLUMNS="140", ROWS="40")
    env.update({SERVED_ENV: "1", "LOGNAME": "alice", "USER": "alice"})
    child = subprocess.Popen(
        medjudge_command(study, "review"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        assert child.stdout.readline() == b"__GANGLION__\n"
        seen = b""
        while b"labelled" not in seen:  # the first frame
            kind, size = child.stdout.read(1), int.from_bytes(child.stdout.read(4), "big")
            assert kind, child.stderr.read() if child.stderr else ""
            seen += child.stdout.read(size) if kind == b"D" else b""
        child.stdin.write(packet(b"D", b"a"))
        child.stdin.flush()
        deadline = time.monotonic() + 60
        labels: list[tuple[str, str]] = []
        while not labels and time.monotonic() < deadline:
            with Study.open(study) as s:
                labels = s.conn.execute(
                    "SELECT r.name, l.value FROM labels l JOIN raters r ON r.id = l.rater_id"
                ).fetchall()
        assert labels and labels[0][0] == "alice"
        child.stdin.write(packet(b"M", json.dumps({"type": "quit"}).encode()))
        child.stdin.flush()
        assert child.wait(timeout=60) == 0
    finally:
        if child.poll() is None:
            child.kill()
        child.communicate()
