"""One browser session's app process: textual-serve's ``AppService``, started without a
shell and with the logged-in reviewer's name as its login name.

The name goes into ``LOGNAME``, ``USER``, ``LNAME`` and ``USERNAME`` (what ``getpass.getuser``
reads, which :func:`medjudge.store.paths.login_name` asks): the app process sees it exactly as
``medjudge review`` sees a login name over SSH. Only the server sets it; the browser sends keys.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual_serve.app_service import AppService

from . import SERVED_ENV

LOGIN_VARS = ("LOGNAME", "USER", "LNAME", "USERNAME")
"""What ``getpass.getuser`` reads, in its order: all set to the logged-in name."""


class SessionApp(AppService):
    """One browser session's app process, started with argv (no shell) and the reviewer's
    name as its login name; it notes when the browser last sent input (idle timeout)."""

    def __init__(self, argv: list[str], name: str, clock: Callable[[], float], **kw: object):
        """``kw`` as for textual-serve's ``AppService``."""
        super().__init__(" ".join(argv), **kw)  # type: ignore[arg-type]
        self.argv = argv
        self.name = name
        self.clock = clock
        self.last_input = clock()
        self._closing: asyncio.Task[None] | None = None

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        env = super()._build_environment(width, height)
        for var in LOGIN_VARS:
            env[var] = self.name
        env[SERVED_ENV] = "1"
        return env

    async def _open_app_process(
        self, width: int = 80, height: int = 24
    ) -> asyncio.subprocess.Process:
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def run(self) -> None:
        """textual-serve's loop, then close the websocket however the app ended (textual-serve
        closes it only on the app's "exit" message: a crashed app left the page hanging)."""
        try:
            await super().run()
        finally:
            await self.remote_close()

    async def send_bytes(self, data: bytes) -> bool:
        self.last_input = self.clock()
        return await super().send_bytes(data)

    async def close(self) -> None:
        """Ask the app to quit; kill it if it has not within ten seconds (once, however many
        ask: the idle timeout and the websocket's end may both)."""
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._close())
        await asyncio.shield(self._closing)

    async def _close(self) -> None:
        try:
            await asyncio.wait_for(self.stop(), 10)
        except TimeoutError:
            if self._process is not None and self._process.returncode is None:
                self._process.kill()
