"""Real Unix users for the sharing tests: a group with a reviewer in it, and a Python that
reviewer may run (tests using them skip where the suite is not root or lacks the tools)."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator

import pytest

CAN_ADD_USERS = (
    os.name == "posix"
    and os.geteuid() == 0
    and all(shutil.which(t) for t in ("useradd", "userdel", "groupadd", "groupdel", "runuser"))
)
NEEDS_USERS = "needs root and useradd/groupadd/runuser to act as a second Unix user in a group"


def unix_team() -> Iterator[tuple[str, str]]:
    """A Unix group and a reviewer in it (removed afterwards)."""
    tag = secrets.token_hex(3)
    group, user = "mjteam" + tag, "mjrev" + tag
    subprocess.run(["groupadd", group], check=True, capture_output=True)
    try:
        subprocess.run(
            ["useradd", "--no-create-home", "-G", group, user], check=True, capture_output=True
        )
        try:
            yield group, user
        finally:
            subprocess.run(["userdel", user], check=False, capture_output=True)
    finally:
        subprocess.run(["groupdel", group], check=False, capture_output=True)


def python_for(user: str) -> list[str]:
    """A Python of this version the user may run, with this environment's packages on its path
    (the test's own interpreter may sit in a folder only root can enter, e.g. under /root)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for exe in (sys.executable, shutil.which(version, path="/usr/local/bin:/usr/bin")):
        if (
            exe
            and subprocess.run(
                ["runuser", "-u", user, "--", exe, "-c", "pass"], capture_output=True
            ).returncode
            == 0
        ):
            return [exe]
    pytest.skip(f"no {version} the test user may run (the interpreter's folder is private)")
    raise AssertionError  # unreachable
