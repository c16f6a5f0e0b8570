"""Building the bundled demo study from the JSONL files shipped in this package.

The demo goes through the same importers as user data. Its content is illustrative, written
for medjudge, and not medical advice (some answers are wrong on purpose).
"""

from __future__ import annotations

import importlib.resources
import shutil
import tempfile
from pathlib import Path

from medjudge.store.importing.run import import_file
from medjudge.store.roles import grant
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study

DEMO_FILES = (
    ("pairwise.jsonl", "pairwise"),
    ("statements.jsonl", "statements"),
    ("rating.jsonl", "rating"),
    ("match.jsonl", "match"),
    ("rubric.jsonl", "rubric"),
    ("ranking.jsonl", "ranking"),
)


def build_demo(path: Path, *, actor: str) -> Study:
    """Create the demo study at ``path`` (which must not exist) and return it open.

    The study is built in a temporary file and moved into place only when complete, so an
    interrupted build never leaves a half-made demo behind.
    """
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        tmp_path = Path(tmp) / path.name
        settings = StudySettings(
            name="medjudge demo (illustrative content, not medical advice)",
            allow_reviewer_override=True,
        )
        study = Study.create(tmp_path, settings, actor=actor)
        try:
            files = importlib.resources.files("medjudge.demo")
            for name, kind in DEMO_FILES:
                with importlib.resources.as_file(files / name) as src:
                    import_file(study, src, kind, actor=actor)
            _add_recorded_verdicts(study, files)
            for role in (
                "lead",
                "reviewer",
                "adjudicator",
            ):  # whoever runs the demo may try everything
                grant(study, actor, role, by=actor)
        finally:
            study.close()
        shutil.move(str(tmp_path), path)
    return Study.open(path)


def _add_recorded_verdicts(study: Study, files: importlib.resources.abc.Traversable) -> None:
    """Import judge calls recorded from a real run of the bundled local model, if shipped."""
    recorded = files / "recorded_calls.jsonl"
    if not recorded.is_file():
        return
    from medjudge.judging.llm.recorded import load_recorded_run  # judging, not the UI

    with importlib.resources.as_file(recorded) as src:
        load_recorded_run(study, src)
