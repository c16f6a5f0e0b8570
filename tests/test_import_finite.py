"""An import accepts only finite numbers; every JSON text a study holds is real JSON.

Python's ``json.loads`` reads ``NaN``, ``Infinity`` and ``-Infinity`` (and reads ``1e999`` as
infinity). Stored as Python writes them back, they are not JSON: SQLite's JSON functions reject
the text, and one such row made every ``report`` on the study fail with "the study file is
damaged". Such a row is refused with its file, line and field, and nothing is written.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.study import dumps

from .support.kind_rows import pairwise_row
from .support.studies import small_study

cli = CliRunner()
HEADER = "id,question,answer_a,answer_b,source_a,source_b,context\n"


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    small_study(path, pairwise=2, statements=0).close()
    return path


def _state(study: Path) -> tuple[int, int, str]:
    conn = sqlite3.connect(study)
    try:
        items, imports = conn.execute(
            "SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM imports)"
        ).fetchone()
        data = "".join(r[0] for r in conn.execute("SELECT data FROM items ORDER BY id"))
        return items, imports, hashlib.sha256(data.encode()).hexdigest()
    finally:
        conn.close()


def _refused(study: Path, path: Path, where: str, *args: str) -> str:
    before = _state(study)
    r = cli.invoke(app, ["import", str(study), str(path), "-k", "pairwise", *args])
    assert r.exit_code == 1, r.output
    assert "Traceback" not in r.output
    assert r.stderr.startswith(f"error: {path}, {where}: "), r.stderr
    assert _state(study) == before, "a refused import wrote something"
    return r.stderr


def _row(i: int, **extra: object) -> str:
    """One JSONL line; ``@NAME@`` placeholders become bare JSON tokens (NaN, Infinity)."""
    text = json.dumps(pairwise_row(i, **extra))
    for token in ("NaN", "-Infinity", "Infinity", "1e999", "-1e999"):
        text = text.replace(f'"@{token}@"', token)
    return text + "\n"


TOKENS = {
    "NaN": "NaN",
    "Infinity": "Infinity",
    "-Infinity": "-Infinity",
    "1e999": "Infinity",  # too large for a double: json.loads reads it as infinity
    "-1e999": "-Infinity",
}


@pytest.mark.parametrize("token", TOKENS)
def test_a_metadata_number_that_is_not_finite_is_refused(
    study: Path, tmp_path: Path, token: str
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(_row(100) + _row(101, p=f"@{token}@") + _row(102), encoding="utf-8")
    err = _refused(study, path, "line 2, field 'p'")
    assert TOKENS[token] in err and "finite" in err, err
    r = cli.invoke(app, ["report", str(study), "-f", "json"])
    assert r.exit_code == 0, r.output  # the study is as it was: reports work


@pytest.mark.parametrize(
    "extra,field",
    [
        ({"scores": {"a": [1, "@NaN@"]}}, "scores"),
        ({"context": ["fine", {"x": "@Infinity@"}]}, "context"),
        ({"labels": [{"rater": "ann", "criterion": "bias", "value": "@NaN@"}]}, "labels"),
        ({"human_labels": {"ann": {"bias": "@-Infinity@"}}}, "human_labels"),
    ],
)
def test_nested_values_name_their_field(
    study: Path, tmp_path: Path, extra: dict[str, object], field: str
) -> None:
    path = tmp_path / "nested.jsonl"
    path.write_text(_row(100) + _row(101, **extra), encoding="utf-8")
    _refused(study, path, f"line 2, field {field!r}")


def test_a_csv_cell_of_json_is_checked_too(study: Path, tmp_path: Path) -> None:
    path = tmp_path / "in.csv"
    path.write_text(HEADER + 'c1,q,a,b,m,n,"[""x""]"\nc2,q,a,b,m,n,"[1, NaN]"\n')
    err = _refused(study, path, "line 3, field 'context'")
    assert "NaN" in err


def test_a_json_array_file_names_the_line(study: Path, tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    rows = [_row(100).strip(), _row(101, p="@Infinity@").strip()]
    path.write_text("[\n" + ",\n".join(rows) + "\n]\n", encoding="utf-8")
    _refused(study, path, "line 3, field 'p'")


def test_standard_input_too(study: Path) -> None:
    before = _state(study)
    r = cli.invoke(app, ["import", str(study), "-", "-k", "pairwise"], input=_row(100, p="@NaN@"))
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert r.stderr.startswith("error: standard input, line 1, field 'p': "), r.stderr
    assert _state(study) == before


def test_a_new_study_is_not_left_behind(tmp_path: Path) -> None:
    """All or nothing: importing into a new study file that fails leaves no file."""
    path = tmp_path / "in.jsonl"
    path.write_text(_row(1, p="@NaN@"), encoding="utf-8")
    new = tmp_path / "new.db"
    r = cli.invoke(app, ["import", str(new), str(path), "-k", "pairwise"])
    assert r.exit_code == 1 and "line 1, field 'p'" in r.stderr, r.output
    assert not new.exists()


def test_finite_numbers_and_the_text_nan_are_kept(study: Path, tmp_path: Path) -> None:
    """Finite numbers (large, small, negative) stay numbers; "NaN" as text is just text."""
    path = tmp_path / "ok.jsonl"
    path.write_text(
        _row(100, p=1e308, q=-2.5e-300, r=0, s="NaN") + _row(101, p=3, s="Infinity"),
        encoding="utf-8",
    )
    r = cli.invoke(app, ["import", str(study), str(path), "-k", "pairwise"])
    assert r.exit_code == 0, r.output
    conn = sqlite3.connect(study)
    try:
        assert conn.execute("SELECT count(*) FROM items WHERE NOT json_valid(data)").fetchone() == (
            0,
        )
        metas = [
            json.loads(m)
            for (m,) in conn.execute(
                "SELECT json_extract(data, '$.meta') FROM items WHERE ext_id IN ('p100', 'p101') "
                "ORDER BY ext_id"
            )
        ]
    finally:
        conn.close()
    assert metas == [{"p": 1e308, "q": -2.5e-300, "r": 0, "s": "NaN"}, {"p": 3, "s": "Infinity"}]
    r = cli.invoke(app, ["report", str(study), "-f", "json", "--by", "p"])
    assert r.exit_code == 0, r.output


def test_every_json_text_the_store_writes_is_valid_json() -> None:
    """The store's one JSON writer refuses what is not JSON rather than writing Python's NaN."""
    for bad in (math.nan, math.inf, -math.inf, {"a": [math.nan]}):
        with pytest.raises(ValueError):
            dumps(bad)
    conn = sqlite3.connect(":memory:")
    for good in ({"a": [1, 2.5, None, "NaN"]}, [1e308, -1e-308], "x"):
        assert conn.execute("SELECT json_valid(?)", (dumps(good),)).fetchone() == (1,)


def test_a_price_that_is_not_finite_is_refused(study: Path) -> None:
    for price in ("nan,1", "1,inf", "-1,2"):
        r = cli.invoke(app, ["judge", str(study), "-j", "openai:m", "--price", price, "--dry-run"])
        assert r.exit_code == 1 and "Traceback" not in r.output, r.output
        assert "--price" in r.stderr and "finite" in r.stderr, r.stderr


def test_slice_values_nan_and_inf_sort_as_text_whatever_the_order() -> None:
    """A metadata value "NaN" or "inf" (text, e.g. from a CSV cell) reads as a float; among
    numbers it made the order of slices depend on the order of the items."""
    import itertools

    from medjudge.judging.analysis.views import slice_order
    from medjudge.store.slices import MISSING, sort_values

    values = ["10", "NaN", "2", "inf"]
    for perm in itertools.permutations(values):
        assert slice_order(list(perm)) == ["10", "2", "NaN", "inf"]
        assert sort_values([*perm, MISSING]) == ["10", "2", "NaN", "inf", MISSING]
    for perm in itertools.permutations(["10", "2", "0.5", "-1"]):
        assert slice_order(list(perm)) == ["-1", "0.5", "2", "10"]
        assert sort_values(list(perm)) == ["-1", "0.5", "2", "10"]
