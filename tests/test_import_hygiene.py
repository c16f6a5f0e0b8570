"""Start-up stays light: `medjudge --help`, `--version` and `status` load none of the
heavy libraries (the statistics, the terminal UI, the provider SDKs); each command imports what
it needs when it runs. Checked in a fresh process, as harlequin does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .support.studies import small_study

HEAVY = ("scipy", "numpy", "textual", "openai", "anthropic", "httpx")

PROBE = """
import contextlib, io, json, sys
sys.argv = ["medjudge", *json.loads(sys.argv[1])]
import medjudge.cli
with contextlib.redirect_stdout(io.StringIO()):
    try:
        medjudge.cli.app()
    except SystemExit:
        pass
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {heavy})))
"""


@pytest.mark.parametrize(
    "args", [["--help"], ["--version"], ["status", "{study}"], ["judge", "--help"]]
)
def test_light_commands_load_no_heavy_library(tmp_path: Path, args: list[str]) -> None:
    path = tmp_path / "s.db"
    small_study(path, pairwise=2, statements=1).close()
    argv = [a.format(study=path) for a in args]
    r = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=set(HEAVY)), json.dumps(argv)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    loaded = json.loads(r.stdout.strip().splitlines()[-1])
    assert loaded == [], f"{' '.join(args)} loaded {sorted({m.split('.')[0] for m in loaded})}"


APP_PROBE = """
import json, sys
from medjudge.tui.app import make_app
app = make_app(sys.argv[1], reviewer="tester")
heavy = {"scipy", "numpy", "openai", "anthropic", "httpx", "httpx2", "markdown_it"}
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules} & heavy)))
"""


def test_the_review_app_opens_without_the_statistics_sdks_or_markdown(tmp_path: Path) -> None:
    """what `medjudge review` needs before the first item is the app and the store; the
    statistics (live agreement), the provider SDKs (judge runs) and the Markdown widget
    (guidelines) load when first used."""
    from medjudge.store.settings import StudySettings
    from medjudge.store.study import Study

    path = tmp_path / "app.db"
    Study.create(path, StudySettings(allow_reviewer_override=True), actor="tester").close()
    r = subprocess.run(
        [sys.executable, "-c", APP_PROBE, str(path)], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1]) == []
