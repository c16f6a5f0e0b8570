"""Every path medjudge uses outside a study file comes from here.

The data folder is the platform's user data folder (``platformdirs``) unless the environment
variable ``MEDJUDGE_HOME`` names another; the demo study and the private settings file live
there.
"""

from __future__ import annotations

import getpass
import os
import unicodedata
from pathlib import Path

import platformdirs

HOME_ENV = "MEDJUDGE_HOME"


def home() -> Path:
    """The data folder (created on first use)."""
    override = os.environ.get(HOME_ENV)
    path = Path(override).expanduser() if override else Path(platformdirs.user_data_dir("medjudge"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def demo_study() -> Path:
    """Where ``medjudge demo`` builds its study."""
    return home() / "demo.sqlite"


def settings_file() -> Path:
    """The private settings file (API keys, defaults); must be readable by its owner only."""
    return home() / "settings.toml"


def login_name() -> str:
    """Who is at the keyboard: the login name (NFC, stripped, like every person's name)."""
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = os.environ.get("USER") or ""
    return unicodedata.normalize("NFC", name).strip() or "unknown"
