"""The user's private settings: API keys and defaults, from the environment or a TOML file.

Keys are read from ``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY`` first, then from
``settings.toml`` in the data folder (see :mod:`medjudge.store.paths`). A file that holds a key must be
readable by its owner only (mode 600), or it is refused. Keys are handed to the provider clients and
nowhere else: never to the study file, logs, exports or error messages.

These keys are for the providers' own endpoints only (api.openai.com, api.anthropic.com). A
server named in a judge spec (``openai:MODEL@URL``) gets a key only when one is named for it,
here by the environment variable that holds it::

    [endpoints."https://openrouter.ai/api/v1"]
    key_env = "OPENROUTER_API_KEY"

    [endpoints."http://10.0.0.5:4000/v1"]   # a gateway on a private network, plain http
    key_env = "GATEWAY_KEY"
    allow_http = true

(the routing itself: ``medjudge.judging.llm.key_routing``). A file that holds a key must be
readable by its owner only; one that only names variables may be shared.
"""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, SecretStr, ValidationError

from . import paths


class SettingsError(Exception):
    """The settings file cannot be used (the message says why and how to fix it)."""


class EndpointSettings(BaseModel):
    """What the user says about one server URL (as written after ``@`` in judge specs)."""

    model_config = ConfigDict(extra="forbid")

    key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """The environment variable holding the key for this endpoint (never the key itself)."""
    allow_http: bool = False
    """Let a key go to this endpoint over plain http (a gateway on a private network only)."""


class UserSettings(BaseModel):
    """A user's medjudge settings."""

    model_config = ConfigDict(extra="forbid")
    _notice: str | None = PrivateAttr(default=None)

    openai_api_key: SecretStr | None = None
    """Key for ``openai:`` judges on api.openai.com (the environment variable wins)."""
    anthropic_api_key: SecretStr | None = None
    """Key for ``anthropic:`` judges (the environment variable wins)."""
    concurrency: int = Field(default=8, ge=1, le=512)
    """Default number of judge calls in flight at once."""
    timeout_s: float = Field(default=120.0, gt=0)
    """Default per-call timeout in seconds."""
    endpoints: dict[str, EndpointSettings] = Field(default_factory=dict)
    """Server URL → the variable holding its key (``[endpoints."URL"] key_env = "NAME"``)."""

    @property
    def notice(self) -> str | None:
        """What to tell the user about where the settings were read (the old place)."""
        return self._notice

    def file_keys(self) -> dict[str, str]:
        """Provider name → the key this file holds for its own endpoint (no environment)."""
        keys: dict[str, str] = {}
        for provider, value in (
            ("openai", self.openai_api_key),
            ("anthropic", self.anthropic_api_key),
        ):
            if value is not None and value.get_secret_value():
                keys[provider] = value.get_secret_value()
        return keys


def load(path: Path | None = None) -> UserSettings:
    """Read the settings file (defaults when it does not exist).

    Raises:
        SettingsError: the file is readable by others, is not valid TOML, or has unknown keys.
    """
    p = path or paths.settings_file()
    notice = None
    if path is None and not p.exists():
        old = paths.old_settings_file()
        if old is not None and old.exists():
            notice = f"settings read from {old}, the old place; move the file to {p}"
            p = old
    if not p.exists():
        return UserSettings()
    loaded = _read(p)
    loaded._notice = notice
    return loaded


def _read(p: Path) -> UserSettings:
    """The file's settings; one that holds a key must be readable by its owner only (one that
    only names variables, defaults and endpoints holds no secret and may be shared)."""
    mode = p.stat().st_mode
    shared = bool(mode & (stat.S_IRWXG | stat.S_IRWXO))
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        if shared:  # perhaps a key in it: never guess
            raise _readable_by_others(p) from None
        raise SettingsError(f"{p}: not valid TOML ({exc})") from None
    try:
        loaded = UserSettings.model_validate(data)
    except ValidationError as exc:
        if shared:
            raise _readable_by_others(p) from None
        fields = ", ".join(".".join(str(x) for x in e["loc"]) for e in exc.errors())
        raise SettingsError(f"{p}: invalid setting(s): {fields}") from None
    if shared and loaded.file_keys():
        raise _readable_by_others(p)
    return loaded


def _readable_by_others(p: Path) -> SettingsError:
    return SettingsError(f"{p}: holds API keys but others can read it; run `chmod 600 {p}` first")
