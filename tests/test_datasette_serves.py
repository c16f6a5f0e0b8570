"""The documented Datasette command works: the two lines of docs/schema.md — ``medjudge
backup trial.db /tmp/study.db``, then ``datasette -i /tmp/study.db -m
docs/datasette-metadata.json`` — run as written (on the demo study, in a temporary folder)
serve every table's and column's description from the metadata on its page, foreign keys
read through each table's label column (a unit as its criterion, an item as its id from the
import file, a rater as its name), and the file opened immutable: Datasette reports it so and
the file is unchanged.

The real ``datasette`` runs in a subprocess on a free port of 127.0.0.1; the test waits for
it by asking until it answers. Skipped when datasette is not installed (it is in the ``test``
extra)."""

from __future__ import annotations

import hashlib
import html
import json
import shlex
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.demo.build import build_demo

from .support.paths import REPO

pytest.importorskip("datasette", reason="datasette is not installed (the test extra has it)")

METADATA = REPO / "docs" / "datasette-metadata.json"
STARTUP_S = 60.0
"""The longest Datasette may take to answer (it answers in about a second)."""


class Served:
    """A running Datasette: its base URL and the study it serves."""

    def __init__(self, base: str, study: Path, digest: str) -> None:
        self.base, self.study, self.digest = base, study, digest

    def get(self, path: str) -> str:
        with urllib.request.urlopen(self.base + path, timeout=30) as reply:
            assert reply.status == 200, path
            text: str = reply.read().decode("utf-8")
            return text

    def json(self, path: str) -> Any:
        return json.loads(self.get(path))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _wait_until_it_answers(proc: subprocess.Popen[bytes], base: str, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_S
    while True:
        if proc.poll() is not None:
            pytest.fail(f"datasette exited ({proc.returncode}):\n{log.read_text()}")
        try:
            with urllib.request.urlopen(base + "/-/versions.json", timeout=2) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"datasette did not answer within {STARTUP_S:g} s:\n{log.read_text()}")
        time.sleep(0.1)


def documented() -> tuple[list[str], list[str]]:
    """The commands of docs/schema.md's Datasette block: the backup, then datasette."""
    text = (REPO / "docs" / "schema.md").read_text(encoding="utf-8")
    block = text.split("**In Datasette**", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    backup, serve = (shlex.split(line) for line in block.strip().splitlines())
    assert backup[:2] == ["medjudge", "backup"] and serve[0] == "datasette", block
    return backup, serve


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("datasette")
    backup, serve = documented()
    here = {backup[2]: str(folder / "trial.db"), backup[3]: str(folder / "study.db")}
    build_demo(folder / "trial.db", actor="tester").close()
    made = CliRunner().invoke(app, [here.get(a, a) for a in backup[1:]])
    assert made.exit_code == 0, made.output
    study = folder / "study.db"  # Datasette names the database after the file: "study"
    digest = _sha256(study)
    port = _free_port()
    log = folder / "datasette.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(  # as written, from the repository (-m docs/...)
            [sys.executable, "-m", *(here.get(a, a) for a in serve)]
            + ["-h", "127.0.0.1", "-p", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=REPO,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_it_answers(proc, base, log)
        yield Served(base, study, digest)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def tables() -> dict[str, Any]:
    metadata: dict[str, Any] = json.loads(METADATA.read_text(encoding="utf-8"))
    described: dict[str, Any] = metadata["databases"]["study"]["tables"]
    return described


def test_every_table_page_shows_its_descriptions(served: Served, tables: dict[str, Any]) -> None:
    for name, entry in tables.items():
        page = html.unescape(served.get(f"/study/{name}"))
        assert entry["description"] in page, f"{name}: its description is not on its page"
        for column, meaning in entry["columns"].items():
            assert f"<dt>{column}</dt><dd>{meaning}</dd>" in page, f"{name}.{column}"


def test_foreign_keys_read_through_the_label_columns(
    served: Served, tables: dict[str, Any]
) -> None:
    assert tables["units"]["label_column"] == "label"
    assert tables["items"]["label_column"] == "ext_id"
    assert tables["raters"]["label_column"] == "name"
    conn = sqlite3.connect(f"file:{served.study}?immutable=1", uri=True)  # as Datasette reads it
    try:
        criterion = dict(conn.execute("SELECT id, label FROM units"))
        # a unit reads as "item / criterion" (a listed entry with its number)
        named = dict(
            conn.execute(
                "SELECT u.id, i.ext_id || ' / ' || u.criterion FROM units u "
                "JOIN items i ON i.id = u.item_id"
            )
        )
        assert all(criterion[u].startswith(named[u]) for u in named)
        ext_id = dict(conn.execute("SELECT id, ext_id FROM items"))
        rater = dict(conn.execute("SELECT id, name FROM raters"))
    finally:
        conn.close()
    labels = served.json("/study/labels.json?_labels=on&_shape=array&_size=max")
    assert labels, "the demo study has labels"
    for row in labels:
        assert row["unit_id"]["label"] == criterion[row["unit_id"]["value"]]
        assert row["rater_id"]["label"] == rater[row["rater_id"]["value"]]
    units = served.json("/study/units.json?_labels=on&_shape=array&_size=max")
    assert {row["item_id"]["label"] for row in units} == set(ext_id.values())
    page = served.get("/study/labels")  # the page, as a reader sees it: the criterion, linked
    first = labels[0]["unit_id"]
    unit_link = f'<a href="/study/units/{first["value"]}">{html.escape(first["label"])}</a>'
    assert unit_link in page


def test_the_study_is_served_immutable_and_left_unchanged(served: Served) -> None:
    (database,) = served.json("/-/databases.json")
    assert database["name"] == "study" and database["is_mutable"] is False
    served.get("/study/items")
    served.get("/study/items.json?_search=pain")
    assert _sha256(served.study) == served.digest, "the study file changed"
    beside = sorted(p.name for p in served.study.parent.iterdir() if p.name.startswith("study."))
    assert beside == ["study.db"], f"files beside the study: {beside}"
