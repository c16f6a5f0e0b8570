"""Full-text search: the FTS5 index over questions, answers and listed entries, added to
by each import in its transaction, built for an older study by migration 013 (all or nothing, also when the
process is killed halfway), and ``medjudge search`` — literal output, blind reviewers told
neither sources nor file letters, bad queries named."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store import migrations
from medjudge.store.importing.problems import ImportProblem
from medjudge.store.importing.run import import_file
from medjudge.store.paths import login_name
from medjudge.store.roles import grant
from medjudge.store.search import BadQuery, search
from medjudge.store.study import Study

from .support.kind_rows import pairwise_row, statements_row, write_jsonl
from .support.old_studies import old_study
from .support.studies import small_study

cli = CliRunner()


def _rows(tmp_path: Path) -> tuple[Path, Path]:
    pairwise = [
        pairwise_row(1, question="My toddler has a fever of 39 degrees. What should I do?"),
        pairwise_row(
            2,
            answer_a="Paracetamol can ease the pain of a sprained ankle.",
            answer_b="Rest, ice and elevation help a sprained ankle heal.",
        ),
        pairwise_row(3),
    ]
    statements = [
        statements_row(1, must_have=["Antibiotics do not treat viral infections.", "Rest."]),
    ]
    return (
        write_jsonl(tmp_path / "pw.jsonl", pairwise),
        write_jsonl(tmp_path / "st.jsonl", statements),
    )


@pytest.fixture
def study(tmp_path: Path) -> Iterator[Study]:
    s = Study.create(tmp_path / "s.db", actor="tester")
    pw, st = _rows(tmp_path)
    import_file(s, pw, "pairwise", actor="tester")
    import_file(s, st, "statements", actor="tester")
    yield s
    s.close()


def test_finds_questions_answers_and_statements_with_the_matched_words_marked(
    study: Study,
) -> None:
    (hit,) = search(study, "fever").hits
    assert (hit.ext_id, hit.kind) == ("p1", "pairwise")
    (m,) = hit.matches
    assert m.label == "question"
    assert [m.snippet[a:b] for a, b in m.marks] == ["fever"]

    # stems: "infection" finds "infections"; a statement is named by its 1-based number
    (hit,) = search(study, "infection").hits
    assert hit.ext_id == "s1" and [m.label for m in hit.matches] == ["statement 1"]

    # every place of an item, in both answers; words in any order
    (hit,) = search(study, "ankle sprained", reveal_sources=True).hits
    assert sorted(m.label for m in hit.matches) == ["answer A", "answer B"]
    assert {m.source for m in hit.matches} == {"model-x", "model-y"}
    assert {m.frame for m in hit.matches} == {"file"}


def test_limit_keeps_the_best_and_says_how_many_matched(study: Study) -> None:
    found = search(study, "question", limit=2)  # "Question N?": p2, p3 and s1 (not p1's)
    assert found.total == 3 and len(found.hits) == 2
    assert search(study, "nothingsuch").hits == []
    with pytest.raises(ValueError, match="limit"):
        search(study, "x", limit=0)


def test_only_the_items_asked_for(study: Study) -> None:
    ids = [h.item_id for h in search(study, "question").hits]
    assert [h.item_id for h in search(study, "question", within=ids[:1]).hits] == ids[:1]
    assert search(study, "question", within=[]).hits == []


@pytest.mark.parametrize("query", ["covid-19", "NOT", '"unfinished', "AND AND", "   "])
def test_a_bad_query_is_a_bad_query_never_an_sqlite_error(study: Study, query: str) -> None:
    with pytest.raises(BadQuery, match="search text"):
        search(study, query)


@pytest.mark.parametrize("query", ["*", "*x"])
def test_a_lone_star_is_a_bad_query_with_its_own_reason(study: Study, query: str) -> None:
    """FTS5's "unknown special query" reached the user as an SQLite error."""
    with pytest.raises(BadQuery, match=r"a \* ends a word's beginning, as in antibiot\*"):
        search(study, query)


def test_repeated_terms_count_once_and_a_long_query_is_refused(study: Study) -> None:
    """400 repeated prefix terms took 24 s of CPU: a plain query's repeats are dropped (all
    must occur, so a repeat adds nothing) and more than 16 distinct terms are refused, so what
    reaches FTS5 never grows with the repeats."""
    from medjudge.store.search import MAX_TERMS, bounded_query

    assert bounded_query(" ".join(["quest*"] * 400)) == "quest*"
    assert bounded_query('Quest* quest* "a b" "a b" x') == 'Quest* "a b" x'
    assert bounded_query("a OR a") == "a OR a"  # an operator: left as written

    assert search(study, " ".join(["quest*"] * 400)).total == search(study, "quest*").total
    with pytest.raises(BadQuery, match=f"the search has {MAX_TERMS + 1} terms; at most 16"):
        search(study, " ".join(f"w{i}*" for i in range(MAX_TERMS + 1)))


def test_an_import_is_searchable_at_once(study: Study, tmp_path: Path) -> None:
    rows = [pairwise_row(9, answer_b="Zinc lozenges shorten a cold by a day or so.")]
    import_file(study, write_jsonl(tmp_path / "more.jsonl", rows), "pairwise", actor="tester")
    (hit,) = search(study, "lozenges").hits
    assert hit.ext_id == "p9"


def _index_is_whole(study: Study) -> None:
    """FTS5's own check that the index holds exactly the rows' text (raises if not)."""
    for table in ("items_fts", "answers_fts", "statements_fts"):
        study.conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")


def test_the_index_agrees_with_the_tables(study: Study) -> None:
    _index_is_whole(study)


def test_a_failed_import_leaves_nothing_in_the_index(study: Study, tmp_path: Path) -> None:
    rows = [pairwise_row(7, question="Does turmeric help arthritis?"), {"id": "bad"}]
    with pytest.raises(ImportProblem):
        import_file(study, write_jsonl(tmp_path / "bad.jsonl", rows), "pairwise", actor="t")
    assert search(study, "turmeric").hits == []
    _index_is_whole(study)
    rows = [pairwise_row(7, question="Does turmeric help arthritis?")]
    import_file(study, write_jsonl(tmp_path / "good.jsonl", rows), "pairwise", actor="t")
    assert [h.ext_id for h in search(study, "turmeric").hits] == ["p7"]
    _index_is_whole(study)


# -- an older study ------------------------------------------------------------------------


def _older_study(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A study as medjudge wrote it before migration 013, with items."""
    upto = sum(1 for name, _ in migrations.MIGRATIONS if name < "013")
    old_study(path, monkeypatch, upto, pairwise=40, statements=10).close()
    conn = sqlite3.connect(path)
    assert "013_search" not in migrations.applied(conn)
    conn.close()


def test_an_older_study_gets_the_index_on_first_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    _older_study(path, monkeypatch)
    with Study.open(path) as s:
        assert "013_search" in migrations.applied(s.conn)
        found = search(s, "answer", limit=100)
        assert found.total == 50  # every item has an answer with the word "Answer"
        (hit,) = search(s, '"Must 3.2"').hits
        assert hit.ext_id == "s3"


KILLED_MIGRATION = textwrap.dedent(
    """
    import os, signal, sys
    from sqlite_utils.db import Table
    from medjudge.store.study import Study

    populate = Table.populate_fts

    def populate_then_die(self, columns):
        populate(self, columns)
        if self.name == "answers":  # the questions' index is built, the answers' too
            os.kill(os.getpid(), signal.SIGKILL)
        return self

    Table.populate_fts = populate_then_die
    Study.open(sys.argv[1])
    """
)


def test_a_migration_killed_halfway_leaves_nothing_and_runs_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    _older_study(path, monkeypatch)
    proc = subprocess.run(
        [sys.executable, "-c", KILLED_MIGRATION, str(path)], capture_output=True, timeout=60
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    conn = sqlite3.connect(path)
    left = conn.execute("SELECT name FROM sqlite_master WHERE name LIKE '%fts%'").fetchall()
    assert left == [] and "013_search" not in migrations.applied(conn)
    conn.close()
    with Study.open(path) as s:  # the next open builds the whole index
        assert "013_search" in migrations.applied(s.conn)
        assert search(s, "answer", limit=100).total == 50
        assert search(s, "must").total == 10


# -- the command ---------------------------------------------------------------------------


@pytest.fixture
def blind(tmp_path: Path) -> Path:
    """A blind study led by someone else, the login a reviewer; answers name their models."""
    path = tmp_path / "b.db"
    s = small_study(path, pairwise=0, statements=0)
    rows = [
        pairwise_row(
            i,
            answer_a=f"Ibuprofen helps (item {i}, first answer).",
            answer_b=f"Ibuprofen may upset the stomach (item {i}).",
            source_a="gpt-secret",
            source_b="claude-secret",
        )
        for i in range(8)
    ]
    import_file(s, write_jsonl(tmp_path / "b.jsonl", rows), "pairwise", actor="boss")
    grant(s, "boss", "lead", by="boss")
    grant(s, login_name(), "reviewer", by="boss")
    s.close()
    return path


def test_a_blind_reviewer_learns_no_source_and_no_file_letter(blind: Path) -> None:
    r = cli.invoke(app, ["search", str(blind), "ibuprofen", "--limit", "50"])
    assert r.exit_code == 0, r.output
    assert "secret" not in r.stdout
    assert "as shown in the review app" in r.stdout
    r = cli.invoke(app, ["search", str(blind), "ibuprofen", "--limit", "50", "-f", "json"])
    items = json.loads(r.stdout)["items"]
    assert "secret" not in r.stdout and len(items) == 8
    with Study.open(blind) as s:
        swaps = {
            row["ext_id"]: row["shown_order"] == "BA"
            for row in s.conn.execute("SELECT ext_id, shown_order FROM items")
        }
    assert len(set(swaps.values())) == 2, "the seed should swap some items and not others"
    for item in items:
        stomach = next(m for m in item["matches"] if "stomach" in m["snippet"])
        assert stomach["frame"] == "display" and "source" not in stomach
        # answer_b is shown first (as A) exactly when the item is swapped
        assert stomach["position"] == ("A" if swaps[item["id"]] else "B")


def test_a_lead_sees_sources_in_the_file_frame(blind: Path) -> None:
    with Study.open(blind) as s:
        grant(s, login_name(), "lead", by="boss")
    r = cli.invoke(app, ["search", str(blind), "stomach", "-f", "json", "-n", "1"])
    (item,) = json.loads(r.stdout)["items"]
    (m,) = item["matches"]
    assert (m["position"], m["frame"], m["source"]) == ("B", "file", "claude-secret")
    r = cli.invoke(app, ["search", str(blind), "stomach", "-n", "1"])
    assert "answer B [claude-secret]:" in r.stdout
    assert r.stdout.strip().endswith("8 matching items; 7 more (--limit 1)")


def test_study_text_prints_literally(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    s = small_study(path, pairwise=0, statements=0)
    rows = [pairwise_row(1, question="Is [bold red]aspirin[/] safe?\x1b]52;c;ZXZpbA==\x07 ok")]
    import_file(s, write_jsonl(tmp_path / "h.jsonl", rows), "pairwise", actor="t")
    s.close()
    r = cli.invoke(app, ["search", str(path), "aspirin"])
    assert r.exit_code == 0, r.output
    assert "[bold red]aspirin[/]" in r.stdout
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout and "\\x1b]52" in r.stdout
    r = cli.invoke(app, ["search", str(path), "aspirin", "-f", "json"])
    assert "\x1b" not in r.stdout
    (item,) = json.loads(r.stdout)["items"]
    assert "\x1b]52" in item["matches"][0]["snippet"]  # the JSON value itself is exact


@pytest.mark.parametrize("query", ["covid-19", '"open'])
def test_a_bad_query_names_the_field_without_a_traceback(blind: Path, query: str) -> None:
    r = cli.invoke(app, ["search", str(blind), query])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert r.stderr.startswith("error: TEXT: search text") and "double quotes" in r.stderr


def test_no_match_and_a_bad_limit(blind: Path) -> None:
    r = cli.invoke(app, ["search", str(blind), "zebra"])
    assert r.exit_code == 0 and r.stdout.strip() == "no item matches 'zebra'"
    r = cli.invoke(app, ["search", str(blind), "x", "--limit", "0"])
    assert r.exit_code == 2 and "--limit" in r.stderr
