"""The browser door: login routes in front of textual-serve's per-session app process.

textual-serve's own ``Server`` runs one fixed shell command for every browser, with the
server's environment, and has no login; so this module keeps only its parts that do the real
work — ``AppService`` (the child process and its framed pipe protocol, proxied to the
websocket) and its static files (``textual.js``) — behind aiohttp routes of its own:

- ``/login`` checks a name and password against the study's ``accounts`` (argon2id), with the
  same answer for a wrong name and a wrong password, throttled per name and per address;
- a session is a random token in a cookie signed with a secret made at start-up (HttpOnly,
  SameSite=Strict, Secure over TLS), held in memory: a restart logs everyone out;
- ``/ws/review`` and ``/ws/adjudicate`` start ``medjudge review STUDY`` or ``medjudge
  adjudicate STUDY`` per browser session, with the logged-in name as the child's login name
  (``LOGNAME``/``USER``, what :func:`medjudge.store.paths.login_name` reads): the app runs as
  that reviewer exactly as over SSH. Neither the browser nor a command-line option names it.

Concurrency: one event loop; the study is read (accounts, roles) in a thread per request.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import secrets
import signal
import ssl
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import textual_serve
from aiohttp import WSCloseCode, web
from textual_serve.download_manager import DownloadManager

from medjudge.store.accounts import password_hash
from medjudge.store.db import StudyError
from medjudge.store.people import person_name
from medjudge.store.roles import require, roles_of
from medjudge.store.study import Study

from . import pages
from .passwords import verify
from .sessions import SessionApp
from .throttle import Throttle

log = logging.getLogger("medjudge.serve")

COOKIE = "medjudge_session"
WRONG = "wrong name or password"
"""The one answer to a failed login, whichever part was wrong."""
APPS = ("review", "adjudicate")
LOGIN_KEY = web.RequestKey("login", tuple)
"""The request's (token, :class:`Login`), set by the guard."""
REAPER_KEY = web.AppKey("reaper", asyncio.Task)
STATIC = Path(textual_serve.__file__).parent / "static"
"""textual-serve's ``textual.js``, its stylesheet and font."""


def medjudge_command(study: Path, what: str) -> list[str]:
    """The child process of a browser session: this Python's ``medjudge review STUDY`` (or
    ``adjudicate``), as a reviewer types it over SSH."""
    return [sys.executable, "-m", "medjudge", what, str(study)]


@dataclass
class ServeConfig:
    """How ``medjudge serve`` runs."""

    study: Path
    """The study file."""
    host: str = "127.0.0.1"
    """The address to listen on (loopback unless told otherwise)."""
    port: int = 8000
    """The port (0: any free one)."""
    max_sessions: int = 30
    """App processes running at once, all reviewers together."""
    idle_timeout: float = 30 * 60.0
    """Seconds without a key or click after which an app is closed and its login ends."""
    ssl_context: ssl.SSLContext | None = None
    """TLS from ``--cert``/``--key``; None: plain HTTP (loopback, or behind a TLS proxy)."""
    behind_proxy: bool = False
    """A reverse proxy in front: the client address is the last ``X-Forwarded-For`` entry and
    the cookie is marked Secure (the proxy speaks TLS to the browser)."""
    command: Callable[[Path, str], list[str]] = medjudge_command
    """The child process per session (tests replace it)."""


@dataclass
class Login:
    """A logged-in browser."""

    name: str
    last_seen: float
    apps: int = 0


@dataclass
class ReviewServer:
    """The aiohttp application of ``medjudge serve`` and its state."""

    config: ServeConfig
    throttle: Throttle = field(default_factory=Throttle)
    clock: Callable[[], float] = time.monotonic
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    logins: dict[str, Login] = field(default_factory=dict)
    running: set[SessionApp] = field(default_factory=set)
    downloads: DownloadManager = field(default_factory=DownloadManager)

    # -- the study (read in a thread) -----------------------------------------------------
    def _read(self, fn: Callable[[Study], object]) -> Awaitable[object]:
        def run() -> object:
            study = Study.open(self.config.study)
            try:
                return fn(study)
            finally:
                study.close()

        return asyncio.get_running_loop().run_in_executor(None, run)

    async def _refusal(self, name: str, what: str) -> str | None:
        """Why ``name`` may not open ``what`` now (None: they may)."""
        if len(self.running) >= self.config.max_sessions:
            return (
                f"All {self.config.max_sessions} sessions of this server are in use; "
                "try again in a few minutes."
            )
        try:
            await self._read(
                lambda s: require(s, name, "adjudicate" if what == "adjudicate" else "review")
            )
        except StudyError as exc:
            return str(exc)
        return None

    # -- sessions ---------------------------------------------------------------------------
    def _sign(self, token: str) -> str:
        mac = hmac.new(self.secret, token.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def _login_of(self, request: web.Request) -> tuple[str, Login] | None:
        value = request.cookies.get(COOKIE, "")
        token, _, sig = value.partition(".")
        if not token or not hmac.compare_digest(sig, self._sign(token)):
            return None
        login = self.logins.get(token)
        if login is None:
            return None
        if login.apps == 0 and self.clock() - login.last_seen > self.config.idle_timeout:
            del self.logins[token]
            return None
        login.last_seen = self.clock()
        return token, login

    def client(self, request: web.Request) -> str:
        """The browser's address (behind a proxy: the one the proxy saw)."""
        if self.config.behind_proxy:
            forwarded = request.headers.get("X-Forwarded-For", "")
            if forwarded:
                return forwarded.split(",")[-1].strip()
        return request.remote or "?"

    @property
    def secure(self) -> bool:
        """Whether browsers reach the server over TLS (the cookie is then Secure)."""
        return self.config.ssl_context is not None or self.config.behind_proxy

    # -- routes ---------------------------------------------------------------------------
    def make_app(self) -> web.Application:
        """The aiohttp application."""
        app = web.Application(middlewares=[self._guard], client_max_size=64 * 1024)
        app.add_routes(
            [
                web.get("/login", self.login_form),
                web.post("/login", self.login),
                web.post("/logout", self.logout),
                web.get("/", self.index),
                *(web.get(f"/{what}", self.terminal) for what in APPS),
                *(web.get(f"/ws/{what}", self.websocket) for what in APPS),
                web.static("/static", STATIC),
            ]
        )
        app.on_startup.append(self._start_reaper)
        app.on_shutdown.append(self._close_all)
        return app

    @web.middleware
    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """Every route but the login form and the static files needs a login; a POST or
        websocket from another site is refused; no page is cached or framed."""
        origin = request.headers.get("Origin")
        if origin is not None and origin.split("://", 1)[-1] != request.host:
            if request.method == "POST" or request.path.startswith("/ws/"):
                raise web.HTTPForbidden(text="cross-site request refused")
        public = request.path == "/login" or request.path.startswith("/static/")
        if not public:
            found = self._login_of(request)
            if found is None:
                if request.path.startswith("/ws/") or request.method == "POST":
                    raise web.HTTPUnauthorized(text="log in first")
                raise web.HTTPFound("/login")
            request[LOGIN_KEY] = found
        response = await handler(request)
        response.headers.setdefault("Cache-Control", "no-store")
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"  # "no-referrer" makes Origin "null"
        return response

    def _html(self, text: str, status: int = 200) -> web.Response:
        return web.Response(text=text, status=status, content_type="text/html")

    async def login_form(self, request: web.Request) -> web.StreamResponse:
        """The login form (the app list when already logged in)."""
        if self._login_of(request) is not None:
            raise web.HTTPFound("/")
        return self._html(pages.login_page(self.config.study.name))

    async def login(self, request: web.Request) -> web.StreamResponse:
        """Check a name and password; a cookie on success, one answer on any failure."""
        form = await request.post()
        raw, password = str(form.get("name", "")), str(form.get("password", ""))
        try:
            name = person_name(raw[:200], "name")
        except StudyError:
            name = ""
        addr = self.client(request)
        keys = (f"name:{name}", f"addr:{addr}")
        wait = self.throttle.wait(*keys)
        if wait > 0:
            log.warning("login refused (locked) from %s", addr)
            text = f"Too many failed logins: try again in {int(wait) + 1} seconds."
            return self._html(pages.login_page(self.config.study.name, text, raw), 429)
        stored = await self._read(lambda s: password_hash(s, name)) if name else None
        loop = asyncio.get_running_loop()
        ok = await loop.run_in_executor(
            None, verify, stored if isinstance(stored, str) else None, password
        )
        del password, form
        if not ok:
            self.throttle.failed(*keys)
            who = f"account {name!r}" if stored else "an unknown name"
            log.warning("login failed for %s from %s", who, addr)
            return self._html(
                pages.login_page(self.config.study.name, WRONG.capitalize() + ".", raw), 401
            )
        self.throttle.succeeded(keys[0])
        token = secrets.token_urlsafe(32)
        self.logins[token] = Login(name, self.clock())
        log.info("login: %s from %s", name, addr)
        response = web.Response(status=302, headers={"Location": "/"})
        response.set_cookie(
            COOKIE,
            f"{token}.{self._sign(token)}",
            httponly=True,
            samesite="Strict",
            secure=self.secure,
            path="/",
        )
        return response

    async def logout(self, request: web.Request) -> web.StreamResponse:
        """Forget the session (its apps run on until closed)."""
        token, _ = request[LOGIN_KEY]
        self.logins.pop(token, None)
        response = web.Response(status=302, headers={"Location": "/login"})
        response.del_cookie(COOKIE, path="/")
        return response

    async def index(self, request: web.Request) -> web.StreamResponse:
        """The choice of app: review, and adjudicate for adjudicators."""
        _, login = request[LOGIN_KEY]
        roles = await self._read(lambda s: roles_of(s, login.name))
        adjudicator = isinstance(roles, set) and "adjudicator" in roles
        return self._html(pages.choice_page(self.config.study.name, login.name, adjudicator))

    async def terminal(self, request: web.Request) -> web.StreamResponse:
        """The page the app is drawn in (or why it cannot open)."""
        _, login = request[LOGIN_KEY]
        what = request.path.strip("/")
        problem = await self._refusal(login.name, what)
        if problem is not None:
            return self._html(pages.message_page(f"{what}: not now", problem), 403)
        return self._html(pages.terminal_page(f"medjudge {what} · {self.config.study.name}", what))

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        """One browser session: the app process, proxied both ways until either side ends."""
        _, login = request[LOGIN_KEY]
        what = request.path.rsplit("/", 1)[-1]
        websocket = web.WebSocketResponse(heartbeat=15)
        problem = await self._refusal(login.name, what)
        await websocket.prepare(request)
        if problem is not None:
            await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=problem[:120].encode())
            return websocket
        width = _int(request.query.get("width"), 80)
        height = _int(request.query.get("height"), 24)
        service = SessionApp(
            self.config.command(self.config.study, what),
            login.name,
            self.clock,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.downloads,
        )
        self.running.add(service)
        login.apps += 1
        log.info("%s opened %s (%d sessions)", login.name, what, len(self.running))
        try:
            await service.start(width, height)
            async for message in websocket:
                if message.type != web.WSMsgType.TEXT:
                    continue
                envelope = message.json()
                if not isinstance(envelope, list) or not envelope:
                    continue
                kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
                if kind == "stdin" and isinstance(data, str):
                    login.last_seen = self.clock()
                    await service.send_bytes(data.encode("utf-8"))
                elif kind == "resize" and isinstance(data, dict):
                    await service.set_terminal_size(
                        _int(data.get("width"), 80), _int(data.get("height"), 24)
                    )
                elif kind == "ping":
                    await websocket.send_json(["pong", data])
                elif kind == "blur":
                    await service.blur()
                elif kind == "focus":
                    await service.focus()
        finally:
            # The slot is given back once the process has ended, even when aiohttp cancels
            # this handler (the browser went away) while it waits.
            closing = asyncio.ensure_future(service.close())
            closing.add_done_callback(lambda _: self._ended(service, login, what))
            await asyncio.shield(closing)
        return websocket

    def _ended(self, service: SessionApp, login: Login, what: str) -> None:
        self.running.discard(service)
        login.apps -= 1
        login.last_seen = self.clock()
        log.info("%s closed %s (%d sessions)", login.name, what, len(self.running))

    # -- idle timeout ---------------------------------------------------------------------
    async def _start_reaper(self, app: web.Application) -> None:
        app[REAPER_KEY] = asyncio.create_task(self._reap())

    async def _reap(self) -> None:
        """Close apps idle for longer than the timeout; end logins idle as long."""
        every = max(0.05, min(15.0, self.config.idle_timeout / 4))
        while True:
            await asyncio.sleep(every)
            now = self.clock()
            for service in list(self.running):
                if now - service.last_input > self.config.idle_timeout:
                    log.info("%s idle: closing the app", service.name)
                    asyncio.create_task(service.close())
            for token, login in list(self.logins.items()):
                if login.apps == 0 and now - login.last_seen > self.config.idle_timeout:
                    del self.logins[token]

    async def _close_all(self, app: web.Application) -> None:
        app[REAPER_KEY].cancel()
        await asyncio.gather(*(s.close() for s in list(self.running)), return_exceptions=True)


def _int(value: object, default: int) -> int:
    try:
        return max(1, min(1000, int(str(value))))
    except ValueError:
        return default


def run(config: ServeConfig, *, ready: Callable[[str], None] | None = None) -> None:
    """Serve until interrupted (Ctrl-C, SIGTERM); ``ready`` gets the URL once listening."""
    server = ReviewServer(config)
    scheme = "https" if config.ssl_context else "http"
    host = f"[{config.host}]" if ":" in config.host else config.host

    async def main() -> None:
        runner = web.AppRunner(server.make_app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, config.host, config.port, ssl_context=config.ssl_context)
        await site.start()
        port = runner.addresses[0][1] if runner.addresses else config.port
        if ready is not None:
            ready(f"{scheme}://{host}:{port}/")
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            await stop.wait()
        finally:
            await runner.cleanup()  # asks every app to quit: labels are saved as they are given

    asyncio.run(main())
