"""The report CSV's `value` column holds numbers only: text figures (a judge's key, the
counted categories, flags) are in the `text` column, so a spreadsheet can sum `value`."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from typer.testing import CliRunner

from medjudge.cli import app

cli = CliRunner()


def test_value_is_numeric_and_text_holds_the_rest(tmp_path: Path) -> None:
    home = tmp_path / "home"
    r = cli.invoke(app, ["demo", "--build-only"], env={"MEDJUDGE_HOME": str(home)})
    assert r.exit_code == 0, r.output
    r = cli.invoke(app, ["report", str(home / "demo.sqlite"), "-f", "csv", "--n-boot", "200"])
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert rows and {"value", "text"} <= set(rows[0])
    for row in rows:
        if row["value"]:
            assert not math.isnan(float(row["value"])) or row["value"] == "nan", row
    assert any(r["section"] == "categories" and r["text"] == "A|B|tie" for r in rows)
    keys = [r for r in rows if r["section"] == "judge_version" and r["metric"] == "key"]
    assert keys and all(r["text"] and not r["value"] for r in keys)
