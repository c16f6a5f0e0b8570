"""The reference libraries in a process of their own.

The statistics are checked against independent libraries (statsmodels, scikit-learn,
krippendorff, irrCAC on pandas, ppi_py on numba), which together hold some 250 MB once
imported. Imported by a test module they would stay in the xdist worker until the suite ends,
so the tests call them through :class:`Reference` instead: a Python process started at the
first call of a test module (the ``reference`` fixture of tests/conftest.py) and ended with the
module, which imports the libraries once and answers every call of that module's tests. Each
reference is still computed by its library at test time, on the test's own inputs.

    def test_kappa(reference: Reference) -> None:
        assert two_rater_stats(a, b).cohen.value == approx(reference(cohen_kappa, a, b))

The functions called (tests/support/reference_calls.py) import their library inside, take and
return plain values (lists, numpy arrays, floats, dicts), and are pickled by name.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import subprocess
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import IO, ParamSpec, TypeVar, cast

P = ParamSpec("P")
R = TypeVar("R")
REPO = Path(__file__).resolve().parents[2]


class ReferenceFailed(AssertionError):
    """The reference library raised; the message carries its traceback."""


class Reference:
    """Calls functions in a separate Python process, started at the first call."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None

    def __call__(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """``fn(*args, **kwargs)``, run in the reference process."""
        proc = self._start()
        stdin, stdout = cast(IO[bytes], proc.stdin), cast(IO[bytes], proc.stdout)
        pickle.dump((fn, args, kwargs), stdin)
        stdin.flush()
        try:
            ok, value = pickle.load(stdout)
        except EOFError:
            self._proc = None
            raise ReferenceFailed(
                f"the reference process ended (exit status {proc.wait()})"
            ) from None
        if not ok:
            raise ReferenceFailed(f"{fn.__qualname__} raised in the reference process:\n{value}")
        return cast(R, value)

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "tests.support.reference"],
                cwd=REPO,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        return self._proc

    def close(self) -> None:
        """End the process (it exits when its input closes)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        cast(IO[bytes], proc.stdin).close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        cast(IO[bytes], proc.stdout).close()

    def __enter__(self) -> Reference:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def missing(*modules: str) -> str | None:
    """The first of ``modules`` that is not installed, or None (found, not imported: the
    reference process imports them)."""
    return next((name for name in modules if importlib.util.find_spec(name) is None), None)


def needs(*modules: str) -> None:
    """Skip the test unless every one of ``modules`` is installed."""
    import pytest  # here, not at the top: the reference process has no use for it

    name = missing(*modules)
    if name is not None:
        pytest.skip(f"{name} is not installed (a reference library)")


def serve() -> None:
    """The reference process: answer calls from standard input until it closes. Replies go
    to the original standard output; what the libraries print goes to standard error."""
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    requests = sys.stdin.buffer
    while True:
        try:
            fn, args, kwargs = pickle.load(requests)
        except EOFError:
            return
        try:
            reply: tuple[bool, object] = (True, fn(*args, **kwargs))
        except Exception:
            reply = (False, traceback.format_exc())
        pickle.dump(reply, replies)
        replies.flush()


if __name__ == "__main__":
    serve()
