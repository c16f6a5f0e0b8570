"""The user's private settings: API keys and defaults, from the environment or a TOML file.

Keys are read from ``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY`` first, then from
``settings.toml`` in the data folder (see :mod:`medjudge.store.paths`). The file must be readable by
its owner only (mode 600), or it is refused. Keys are handed to the provider clients and
nowhere else: never to the study file, logs, exports or error messages.
"""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from . import paths


class SettingsError(Exception):
    """The settings file cannot be used (the message says why and how to fix it)."""


class UserSettings(BaseModel):
    """A user's medjudge settings."""

    model_config = ConfigDict(extra="forbid")

    openai_api_key: SecretStr | None = None
    """Key for ``openai:`` judges on api.openai.com (the environment variable wins)."""
    anthropic_api_key: SecretStr | None = None
    """Key for ``anthropic:`` judges (the environment variable wins)."""
    concurrency: int = Field(default=8, ge=1, le=512)
    """Default number of judge calls in flight at once."""
    timeout_s: float = Field(default=120.0, gt=0)
    """Default per-call timeout in seconds."""

    def api_keys(self) -> dict[str, str]:
        """Provider name → key, environment first, then this file."""
        keys: dict[str, str] = {}
        for provider, env, value in (
            ("openai", "OPENAI_API_KEY", self.openai_api_key),
            ("anthropic", "ANTHROPIC_API_KEY", self.anthropic_api_key),
        ):
            key = os.environ.get(env) or (value.get_secret_value() if value else None)
            if key:
                keys[provider] = key
        return keys


def load(path: Path | None = None) -> UserSettings:
    """Read the settings file (defaults when it does not exist).

    Raises:
        SettingsError: the file is readable by others, is not valid TOML, or has unknown keys.
    """
    p = path or paths.settings_file()
    if not p.exists():
        return UserSettings()
    mode = p.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SettingsError(
            f"{p}: holds API keys but others can read it; run `chmod 600 {p}` first"
        )
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{p}: not valid TOML ({exc})") from None
    try:
        return UserSettings.model_validate(data)
    except ValidationError as exc:
        fields = ", ".join(".".join(str(x) for x in e["loc"]) for e in exc.errors())
        raise SettingsError(f"{p}: invalid setting(s): {fields}") from None
