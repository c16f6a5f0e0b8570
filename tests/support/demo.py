"""The bundled demo study (an item of every kind) for tests that drive the app on it: built
once per module, copied fresh for each test (tests write labels). Wrap them per module:
``demo_master = pytest.fixture(scope="module")(demo_master_study)``,
``demo = pytest.fixture(demo_study)``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from medjudge.demo.build import build_demo


def demo_master_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo study, built once."""
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    build_demo(path, actor="lead").close()
    return path


def demo_study(demo_master: Path, tmp_path: Path) -> Path:
    """A fresh copy of ``demo_master`` for one test."""
    path = tmp_path / "demo.sqlite"
    shutil.copy(demo_master, path)
    return path
