"""The ranking kind: its values, keys, frames, import, judge and agreement figures — the
figures checked against scipy (Friedman's χ² gives Kendall's W; Kendall's τ gives the pairs two
rankings order alike)."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from medjudge.cli import app as cli_app
from medjudge.kinds import orders
from medjudge.kinds.ranking import KIND, parse_ranking, resolve
from medjudge.kinds.ranking.agreement import kendall_w, pairs_alike
from medjudge.store.study import Study

from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.kind_rows import ranking_row, write_jsonl

cli = CliRunner()
scipy_stats = pytest.importorskip("scipy.stats")


def _random_ranking(rng: random.Random, n: int) -> str:
    letters = list(orders.slots(n))
    rng.shuffle(letters)
    return ">".join(letters)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_kendalls_w_equals_friedmans_chi_square_over_m_n_minus_1(n: int) -> None:
    rng = random.Random(n)
    for m in (2, 3, 6):
        rankings = [_random_ranking(rng, n) for _ in range(m)]
        # rows: raters, columns: answers, cells: ranks
        table = [[r.split(">").index(a) + 1 for a in orders.slots(n)] for r in rankings]
        chi2, _ = scipy_stats.friedmanchisquare(*zip(*table, strict=True))
        assert kendall_w(rankings) == pytest.approx(chi2 / (m * (n - 1)), abs=1e-12)


def test_kendalls_w_is_one_for_rankers_who_agree_and_undefined_for_one() -> None:
    assert kendall_w(["B>A>C", "B>A>C", "B>A>C"]) == pytest.approx(1.0)
    assert kendall_w(["A>B>C", "C>B>A"]) == pytest.approx(0.0)
    assert kendall_w(["A>B>C"]) is None
    assert kendall_w(["A>B>C", "A>B"]) is None  # not the same answers


def test_pairs_alike_follow_kendalls_tau() -> None:
    rng = random.Random(7)
    for n in (2, 3, 5):
        for _ in range(20):
            a, b = _random_ranking(rng, n), _random_ranking(rng, n)
            alike, of = pairs_alike(a, b)
            assert of == n * (n - 1) // 2
            ra = [a.split(">").index(x) for x in orders.slots(n)]
            rb = [b.split(">").index(x) for x in orders.slots(n)]
            tau = scipy_stats.kendalltau(ra, rb).statistic
            assert alike == pytest.approx((tau + 1) / 2 * of)


def test_rankings_are_read_in_any_spelling_and_refused_with_a_reason() -> None:
    for raw in ("b>a>c", "B > A > C", "BAC", "b,a,c"):
        assert parse_ranking(raw) == "B>A>C"
    with pytest.raises(ValueError, match="twice"):
        parse_ranking("A>A>B")
    with pytest.raises(ValueError, match="not a ranking"):
        parse_ranking("first")
    assert KIND.fits_item("B>A>C", "ABC") is None
    assert "each of the item's answers" in (KIND.fits_item("B>A", "ABC") or "")


def test_keys_build_a_ranking_best_first_and_the_last_is_implied() -> None:
    partial, done = KIND.compose("", "2", 3)
    assert (partial, done) == ("2", False)
    assert KIND.compose(partial, "2", 3) == ("2", False)  # a place already ranked
    assert KIND.compose(partial, "4", 3) == ("2", False)  # no fourth answer
    assert KIND.compose(partial, "3", 3) == ("231", True)
    assert KIND.partial_text("2", 3) == "2 > …"


def test_shown_places_become_the_files_letters_and_back() -> None:
    # the item shows C first, then A, then B: "the answer shown first is best, then the third"
    order = "CAB"
    stored = KIND.to_file_frame("132", order)
    assert stored == "C>B>A"
    assert KIND.to_display_frame(stored, order) == "1 > 3 > 2"
    for places in map("".join, itertools.permutations("123")):
        for shown in map("".join, itertools.permutations("ABC")):
            back = KIND.to_display_frame(KIND.to_file_frame(places, shown), shown)
            assert back == " > ".join(places)


def test_resolve_takes_a_majority_then_mean_rank_and_never_invents_a_winner() -> None:
    assert resolve(["A>B>C", "A>B>C", "B>A>C"]) == ("A>B>C", "majority")
    value, rule = resolve(["A>B>C", "A>C>B", "B>A>C"])  # rank sums A 4, B 6, C 8
    assert value == "A>B>C" and "Borda" in rule
    assert resolve(["A>B>C", "B>C>A", "C>A>B"]) == (None, "no majority and a tie in mean rank")
    assert resolve([]) == (None, "missing")


def _import(tmp_path: Path, rows: list[dict[str, Any]]) -> Any:
    db = tmp_path / "rank.db"
    assert cli.invoke(cli_app, ["init", str(db)]).exit_code == 0
    src = write_jsonl(tmp_path / "rank.jsonl", rows)
    return db, cli.invoke(cli_app, ["import", str(db), str(src), "--kind", "ranking"])


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"answers": [{"text": "only one", "source": "m"}]}, "'answers': expected 2 to 5"),
        (
            {"answers": [{"text": "a", "source": "m"}, {"text": 5, "source": "n"}]},
            "answers[1].text",
        ),
        ({"answers": [{"text": "a", "source": "m"}, {"text": "b"}]}, "'answers[1].source'"),
        (
            {"labels": [{"rater": "dr", "criterion": "ranking", "value": "A>B"}]},
            "'labels[0].value'",
        ),
        (
            {"labels": [{"rater": "dr", "criterion": "ranking", "value": "A>A>B"}]},
            "twice",
        ),
    ],
)
def test_a_bad_record_is_refused_naming_its_line_and_field(
    tmp_path: Path, change: dict[str, Any], said: str
) -> None:
    db, r = _import(tmp_path, [ranking_row(0), {**ranking_row(1), **change}])
    assert r.exit_code != 0 and said in r.output and "line 2" in r.output, r.output
    with Study.open(db) as s:  # nothing half-written
        assert s.conn.execute("SELECT count(*) FROM items").fetchone()[0] == 0


def test_an_imported_ranking_is_stored_in_the_files_letters(tmp_path: Path) -> None:
    row = {**ranking_row(0), "labels": [{"rater": "dr", "criterion": "ranking", "value": "c>a>b"}]}
    db, r = _import(tmp_path, [row])
    assert r.exit_code == 0, r.output
    with Study.open(db) as s:
        (value,) = s.conn.execute("SELECT value FROM labels").fetchone()
        positions = [p for (p,) in s.conn.execute("SELECT position FROM answers ORDER BY 1")]
        (order,) = s.conn.execute("SELECT shown_order FROM items").fetchone()
    assert value == "C>A>B" and positions == ["A", "B", "C"] and sorted(order) == list("ABC")


def _by_content(request: FakeRequest) -> Reply:
    """A judge that ranks on content: the answer saying "emergency" first, "honey" second,
    whatever the order it is shown in."""
    text = json.dumps(request.json)
    places = {}
    for n in (1, 2, 3):
        start = text.index(f"<response_{n}>")
        body = text[start : text.index(f"</response_{n}>")]
        places[n] = 0 if "emergency" in body else 1 if "honey" in body else 2
    ranking = sorted(places, key=places.__getitem__)
    return Reply(json.dumps({"ranking": ranking, "reason": "content"}))


def _first_always(request: FakeRequest) -> Reply:
    """A judge that always ranks the responses in the order shown: pure position bias."""
    return Reply(json.dumps({"ranking": [1, 2, 3], "reason": "first is best"}))


@pytest.mark.parametrize(("responder", "want"), [(_by_content, "A>B>C"), (_first_always, None)])
def test_the_judge_ranks_every_rotation_and_a_position_bias_gets_no_verdict(
    tmp_path: Path, responder: Any, want: str | None
) -> None:
    db, r = _import(tmp_path, [ranking_row(0)])
    assert r.exit_code == 0, r.output
    with FakeLLMServer(responder) as server:
        r = cli.invoke(
            cli_app, ["judge", str(db), "-j", f"openai:fake@{server.openai_url}", "--samples", "1"]
        )
        asked = server.count()
    assert r.exit_code in (0, 4), r.output
    assert asked == 3  # each of the three answers shown first once
    with Study.open(db) as s:
        value, trail = s.conn.execute("SELECT value, trail FROM verdicts").fetchone()
    trail = json.loads(trail)
    assert value == want
    assert trail["position_inconsistent"] is (want is None)
    assert sorted(trail["orders"]) == ["ABC", "BCA", "CAB"]


def test_the_report_gives_w_pairs_and_mean_ranks_equal_to_a_recount(tmp_path: Path) -> None:
    rng = random.Random(3)
    rows, given = [], {}
    for i in range(12):
        row = ranking_row(i)
        labels = []
        for dr in ("drA", "drB", "drC"):
            value = _random_ranking(rng, 3)
            given[(i, dr)] = value
            labels.append({"rater": dr, "criterion": "ranking", "value": value})
        rows.append({**row, "labels": labels})
    db, r = _import(tmp_path, rows)
    assert r.exit_code == 0, r.output
    out = cli.invoke(cli_app, ["report", str(db), "-f", "json", "--n-boot", "200"])
    assert out.exit_code == 0, out.output
    (crit,) = json.loads(out.stdout)["ranking"]["criteria"]
    per_item = []
    for i in range(12):
        table = [
            [given[(i, dr)].split(">").index(a) + 1 for a in "ABC"] for dr in ("drA", "drB", "drC")
        ]
        chi2, _ = scipy_stats.friedmanchisquare(*zip(*table, strict=True))
        per_item.append(chi2 / (3 * 2))
    assert crit["kendall_w"]["value"] == pytest.approx(sum(per_item) / 12, abs=1e-12)
    assert crit["kendall_w"]["n"] == 12
    pair = next(p for p in crit["pairs"] if (p["rater_a"], p["rater_b"]) == ("drA", "drB"))
    shares = [pairs_alike(given[(i, "drA")], given[(i, "drB")])[0] / 3 for i in range(12)]
    assert pair["alike"]["value"] == pytest.approx(sum(shares) / 12, abs=1e-12)
    dr_a = next(r for r in crit["raters"] if r["rater"] == "drA")
    x = next(s for s in dr_a["by_source"] if s["key"] == "model-x")  # answer A of every row
    ranks_of_a = [given[(i, "drA")].split(">").index("A") + 1 for i in range(12)]
    assert x["value"] == pytest.approx(sum(ranks_of_a) / 12)
    csv_out = cli.invoke(cli_app, ["report", str(db), "-f", "csv", "--n-boot", "200"]).stdout
    assert csv_out.count("\nranking,") >= 1 + 3 + 9
