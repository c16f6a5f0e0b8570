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


def config_dir() -> Path:
    """Where the private settings live: the platform's user config folder (``platformdirs``;
    on Linux ``$XDG_CONFIG_HOME/medjudge``, else ``~/.config/medjudge``), or the data folder
    when ``MEDJUDGE_HOME`` names one (everything of medjudge's in one place)."""
    override = os.environ.get(HOME_ENV)
    if override:
        return home()
    return Path(platformdirs.user_config_dir("medjudge"))


def settings_file() -> Path:
    """The private settings file (API keys, defaults); must be readable by its owner only."""
    return config_dir() / "settings.toml"


def old_settings_file() -> Path | None:
    """Where medjudge 0.1 kept the settings file (the data folder), if that is not where it
    is kept now: still read, with a notice to move it."""
    old = home() / "settings.toml"
    return None if old == settings_file() else old


def login_name() -> str:
    """Who is at the keyboard: the login name (NFC, stripped, like every person's name)."""
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = os.environ.get("USER") or ""
    return unicodedata.normalize("NFC", name).strip() or "unknown"
