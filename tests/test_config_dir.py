"""The settings file with API keys lives in the config folder: `$XDG_CONFIG_HOME/medjudge`
on Linux, not the data folder; one left in the data folder (medjudge 0.1's place) is still read,
with a note to move it; `MEDJUDGE_HOME` keeps everything in one folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from medjudge.store import paths, user_settings

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="XDG folders are Linux's")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o600)


def test_settings_live_in_xdg_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEDJUDGE_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert paths.settings_file() == tmp_path / "config" / "medjudge" / "settings.toml"
    assert paths.demo_study().parent == tmp_path / "data" / "medjudge"
    _write(paths.settings_file(), "concurrency = 3\n")
    loaded = user_settings.load()
    assert loaded.concurrency == 3 and loaded.notice is None


def test_the_old_place_is_read_with_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEDJUDGE_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    old = tmp_path / "data" / "medjudge" / "settings.toml"
    _write(old, "concurrency = 5\n")
    loaded = user_settings.load()
    assert loaded.concurrency == 5
    assert loaded.notice == (
        f"settings read from {old}, the old place; move the file to {paths.settings_file()}"
    )
    _write(paths.settings_file(), "concurrency = 7\n")  # once moved, the new place wins
    assert user_settings.load().concurrency == 7


def test_medjudge_home_keeps_one_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDJUDGE_HOME", str(tmp_path / "mj"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert paths.settings_file() == tmp_path / "mj" / "settings.toml"
    assert paths.old_settings_file() is None
