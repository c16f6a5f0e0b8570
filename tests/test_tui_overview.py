"""Overview, agreement detail, live updates between two app instances, judge runs from the app."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import DataTable

from medjudge.store.labels import set_label
from medjudge.store.study import Study
from medjudge.tui.agreement_screen import AgreementScreen
from medjudge.tui.app import ReviewApp, make_app
from medjudge.tui.dialogs import ConfirmDialog, PromptDialog
from medjudge.tui.overview_screen import OverviewScreen
from medjudge.tui.review.screen import ReviewScreen

from .support.checks import some
from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.judges import pairwise_responder, prefer_first, rating_responder, routing
from .support.tui import add_verdicts, build_study, current, run_async, scalar, screen_text, until


def table_text(app: ReviewApp, selector: str) -> str:
    table = app.screen.query_one(selector, DataTable)
    return "\n".join(" ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count))


def seed_labels(path: Path) -> None:
    """alice and bob label p0 and p1 fully; the judge has verdicts on p0 and p1."""
    study = Study.open(path)
    for unit in range(1, 13):
        set_label(study, unit, "alice", "A" if unit % 2 else "tie")
        set_label(study, unit, "bob", "A" if unit % 3 else "B")
    study.close()
    for ext in ("p0", "p1"):
        add_verdicts(
            path,
            ext,
            {
                c: "A"
                for c in (
                    "correctness",
                    "helpfulness",
                    "harmfulness",
                    "reasoning",
                    "efficiency",
                    "bias",
                )
            },
        )


@run_async
async def test_overview_shows_items_progress_and_agreement(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    seed_labels(path)
    app = make_app(path, reviewer="carol", poll_interval=None)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.press("o")
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, OverviewScreen)
                and app.screen.query_one("#ov-agreement", DataTable).row_count > 0
            ),
        )
        await app.workers.wait_for_complete()
        await pilot.pause()
        agreement = table_text(app, "#ov-agreement")
        assert "correctness" in agreement and "openai:fake-judge" in agreement
        assert "κ" in agreement
        progress = table_text(app, "#ov-raters")
        assert "alice" in progress and "bob" in progress and "12" in progress
        items = app.screen.query_one("#ov-items", DataTable)
        assert items.row_count == 7
        # Blind: the item list shows carol's own state only, never others' labels.
        assert "tie" not in table_text(app, "#ov-items")
        items.focus()
        items.move_cursor(row=4)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        assert some(app.screen.session.item).ext_id == "s0"


@run_async
async def test_agreement_detail_for_a_pair_with_confusion_matrix(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    seed_labels(path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(120, 45)) as pilot:
        await pilot.press("o")
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, OverviewScreen)
                and app.screen.query_one("#ov-agreement", DataTable).row_count > 0
            ),
        )
        app.screen.query_one("#ov-agreement", DataTable).focus()
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, AgreementScreen) and bool(current(app, AgreementScreen).pair)
            ),
        )
        text = screen_text(app)
        assert "correctness" in text and "rows: alice" in text and "columns: bob" in text
        assert "Cohen's κ" in text and "Gwet's AC1" in text and "Confusion matrix" in text
        assert "2 units labelled by both" in text
        await pilot.press("b")  # the columns: next rater (the judge)
        await until(pilot, lambda: current(app, AgreementScreen).pair[1:] == ["openai:fake-judge"])
        await until(pilot, lambda: "columns: openai:fake-judge" in screen_text(app))
        await pilot.press("right_square_bracket")
        await until(pilot, lambda: "helpfulness" in screen_text(app))
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, OverviewScreen)


@run_async
async def test_two_reviewers_on_one_file_see_each_other_live(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    first = make_app(path, reviewer="alice", poll_interval=0.05)
    second = make_app(path, reviewer="bob", poll_interval=0.05)
    async with first.run_test(size=(120, 40)) as p1, second.run_test(size=(120, 40)) as p2:
        await p2.press("o")
        await until(p2, lambda: isinstance(second.screen, OverviewScreen))
        await second.workers.wait_for_complete()
        assert "alice" not in table_text(second, "#ov-raters")
        await p1.press(*"aaaaaa")  # alice completes p0
        await p1.pause()
        await until(p2, lambda: "alice" in table_text(second, "#ov-raters"))
        await until(p2, lambda: "6" in table_text(second, "#ov-raters"))
        # bob labels p0 too; alice's overview shows the human–human figure appear.
        await p2.press("escape")
        await p2.pause()
        await p2.press(*"aaaaaa")
        await p2.pause()
        await p1.press("o")
        await until(
            p1,
            lambda: (
                isinstance(first.screen, OverviewScreen)
                and "100%" in table_text(first, "#ov-agreement")
            ),
        )
        assert "bob" in table_text(first, "#ov-raters")


@run_async
async def test_review_screen_notices_another_reviewer_after_the_reveal(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"ttttt", "up")
        await pilot.pause()
        study = Study.open(path)
        for unit in range(1, 7):
            set_label(study, unit, "bob", "neither")
        study.close()
        await pilot.press("down", "t")  # alice completes p0; bob's labels are there now
        await until(pilot, lambda: "Other reviewers: bob neither" in screen_text(app))


@run_async
async def test_judge_run_in_the_background_keeps_the_app_responsive(tmp_path: Path) -> None:
    """The fake server holds every judge call until the reviewer's vote is in the study: the
    vote can only be saved if the app did not wait for the run (an event, not a latency)."""
    import threading

    path = build_study(tmp_path, statements=0, rating=1)
    voted = threading.Event()
    answer = routing(
        pairwise_responder(prefer_first),
        rating_responder({"completeness": ["A"], "correctness_rating": 4, "relevance": 5}),
    )

    def held(request: FakeRequest) -> Reply:
        assert voted.wait(120), "the vote never came"
        return answer(request)

    def alice_labels() -> int:
        count: int = scalar(
            path,
            "SELECT count(*) FROM labels l JOIN raters r ON r.id = l.rater_id "
            "WHERE r.name = 'alice'",
        )
        return count

    with FakeLLMServer(held) as server:
        app = make_app(path, reviewer="alice", poll_interval=0.05)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("o")
            await until(pilot, lambda: isinstance(app.screen, OverviewScreen))
            await pilot.press("J")
            await until(pilot, lambda: isinstance(app.screen, PromptDialog))
            await pilot.press(*f"openai:fake-model@{server.openai_url}", "enter")
            await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.press("y")
            await until(
                pilot, lambda: app.judge_state is not None and app.judge_state.status == "running"
            )
            await until(pilot, lambda: server.count() > 0, "the first judge call held")
            await pilot.press("escape")  # back to reviewing while the judge runs
            await pilot.press("t")
            await until(pilot, lambda: alice_labels() == 1, "the vote, saved during the run")
            assert some(app.judge_state).status == "running"
            voted.set()
            await until(
                pilot, lambda: some(app.judge_state).status in ("done", "failed"), timeout=120
            )
            assert some(app.judge_state).status == "done", some(app.judge_state).message
            await app.workers.wait_for_complete()
    assert scalar(path, "SELECT count(*) FROM verdicts") > 0
    # The vote was committed while the run was still going: the app did not wait for it.
    first_vote = scalar(path, "SELECT min(at) FROM label_history WHERE actor = 'alice'")
    assert first_vote < scalar(path, "SELECT finished_at FROM judge_runs")
    assert scalar(path, "SELECT count(DISTINCT item_id) FROM judge_calls") == 5


@run_async
async def test_a_judge_whose_calls_fail_says_why_in_the_app(tmp_path: Path) -> None:
    """A 401 stops the background run at once; the reviewer sees the cause as an error."""
    path = build_study(tmp_path, statements=0)
    with FakeLLMServer(lambda req: Reply.error(401, "Incorrect API key provided")) as server:
        app = make_app(path, reviewer="alice", poll_interval=0.05)
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            app.start_judge(f"openai:fake-model@{server.openai_url}")
            await until(
                pilot,
                lambda: app.judge_state is not None and app.judge_state.status == "failed",
                timeout=30,
            )
            await app.workers.wait_for_complete()
            failed = [n for n in app._notifications if "failed" in n.title]
            assert failed and failed[-1].severity == "error"
            assert "HTTP 401" in failed[-1].message and "Incorrect API key" in failed[-1].message
    assert scalar(path, "SELECT status FROM judge_runs") == "failed"


@run_async
async def test_j_needs_a_lead_and_confirms_calls_and_cost(tmp_path: Path) -> None:
    """a paid run from the app is a lead's decision, shown with its call count and cost
    estimate (the planner's own dry run) before anything is sent."""
    from medjudge.store.paths import login_name
    from medjudge.store.roles import grant

    path = build_study(tmp_path, statements=0, rating=0, pairwise=3)
    with Study.open(path) as s:
        grant(s, "someone-else", "lead", by="someone-else")
    with FakeLLMServer(routing(pairwise_responder(prefer_first))) as server:
        spec = f"openai:gpt-4o@{server.openai_url}"
        app = make_app(path, reviewer="alice", poll_interval=None)
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await pilot.press("o")
            await until(pilot, lambda: isinstance(app.screen, OverviewScreen))
            await pilot.press("J")
            await pilot.pause()
            assert not isinstance(app.screen, PromptDialog)
            assert any(n.title == "leads only" for n in app._notifications)
        with Study.open(path) as s:
            grant(s, login_name(), "lead", by="someone-else")
        app = make_app(path, reviewer="alice", poll_interval=None)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("o")
            await until(pilot, lambda: isinstance(app.screen, OverviewScreen))
            await pilot.press("J")
            await until(pilot, lambda: isinstance(app.screen, PromptDialog))
            await pilot.press(*spec, "enter")
            await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            text = screen_text(app)
            assert "18 calls to make (0 of 18 already cached)" in text, text  # 3 × 2 × 3
            assert "estimated cost: $" in text and "estimated tokens:" in text
            await pilot.press("n")
            await pilot.pause()
            assert app.judge_state is None and server.count() == 0, "no means nothing sent"
    assert scalar(path, "SELECT count(*) FROM judge_runs") == 0


@run_async
async def test_a_bad_judge_spec_is_reported_not_fatal(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        app.start_judge("nonsense")
        await pilot.pause()
        assert app.judge_state is None
        assert any("judge not started" in n.title for n in app._notifications)
        await pilot.press("a")
        await pilot.pause()
        assert scalar(path, "SELECT count(*) FROM labels") == 1


def test_judge_display_throttles_and_copies_state() -> None:
    from medjudge.judging.llm.runner import CallEvent, RunSummary
    from medjudge.tui.judge_run import JudgeRunState, TuiRunDisplay

    posted: list[JudgeRunState] = []
    display = TuiRunDisplay(JudgeRunState(judge="j"), posted.append, interval=60)
    display.started(RunSummary(calls_needed=10, cached=2, to_call=8))
    for _ in range(8):
        display.call_done(CallEvent("j", "t", "ok", 0.0), RunSummary())
    display.finished(RunSummary(verdicts_added=3))
    assert [s.status for s in posted] == ["running", "done"]
    assert posted[-1].done == 8 and posted[0].done == 0 and posted[0].total == 8
    assert asyncio is not None


@run_async
async def test_a_judge_run_can_be_stopped_from_the_overview(tmp_path: Path) -> None:
    path = build_study(tmp_path, statements=0, rating=0, pairwise=6)  # 6 × 2 × 3 = 36 calls
    # 0.3 s per call: the run outlasts the K press even on a loaded machine
    with FakeLLMServer(routing(pairwise_responder(prefer_first)), latency=0.3) as server:
        app = make_app(path, reviewer="alice", poll_interval=0.05)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("o")
            await until(pilot, lambda: isinstance(app.screen, OverviewScreen))
            await pilot.press("J")
            await until(pilot, lambda: isinstance(app.screen, PromptDialog))
            await pilot.press(*f"openai:fake-model@{server.openai_url}", "enter")
            await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.press("y")
            await until(pilot, lambda: app.judge_state is not None and app.judge_state.done >= 2)
            await pilot.press("K")
            await until(
                pilot, lambda: some(app.judge_state).status in ("done", "failed"), timeout=30
            )
            assert (
                some(app.judge_state).status == "done"
                and "stopped: cancelled" in some(app.judge_state).message
            )
            await app.workers.wait_for_complete()
        made = server.count()
    assert 2 <= made < 36
    assert scalar(path, "SELECT status FROM judge_runs") == "stopped"
    assert scalar(path, "SELECT count(*) FROM judge_calls") == made  # every paid call is kept


@run_async
async def test_overview_at_80x24_with_a_long_judge_name_and_plain_counts(tmp_path: Path) -> None:
    """a long judge name is clipped, not a broken layout; counts say what they count."""
    path = build_study(tmp_path, statements=0, rating=0, pairwise=1)
    long = "openai:a-very-long-fine-tuned-model-name@http://127.0.0.1:8000/v1"
    add_verdicts(path, "p0", {"correctness": "A"}, judge=long)
    with Study.open(path) as s:
        set_label(s, 1, "alice", "A")
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, OverviewScreen))
        await until(pilot, lambda: "1 verdict" in screen_text(app))
        text = screen_text(app)
        assert long not in text and long[:23] + "…" in text
        assert "1 labelled" in text and "1 verdict " in text and "1 verdicts" not in text
        assert "1 item in your queue" in text
        assert all(len(line) <= 80 for line in text.splitlines())


@run_async
async def test_agreement_detail_picks_the_judge_version_with_v(tmp_path: Path) -> None:
    """each judge version is its own rater; ``v`` cycles them in the columns, and the
    heading names the version with its key."""
    from medjudge.store.judge_versions import VersionSpec, register_version

    path = build_study(tmp_path)
    seed_labels(path)  # alice, bob and the (unversioned) openai:fake-judge
    study = Study.open(path)
    names = [
        register_version(study, VersionSpec(key=k * 64, spec="openai:m", params={"samples": n}))
        for k, n in (("a", 1), ("b", 3))
    ]
    study.close()
    assert names == ["openai:m", "openai:m#bbbbbb"]
    all_criteria = ("correctness", "helpfulness", "harmfulness", "reasoning", "efficiency", "bias")
    for name, value in zip(names, ("A", "tie"), strict=True):
        for ext in ("p0", "p1"):
            add_verdicts(path, ext, dict.fromkeys(all_criteria, value), judge=name)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(120, 45)) as pilot:
        await pilot.press("o")
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, OverviewScreen)
                and app.screen.query_one("#ov-agreement", DataTable).row_count > 0
            ),
        )
        app.screen.query_one("#ov-agreement", DataTable).focus()
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, AgreementScreen) and bool(current(app, AgreementScreen).pair)
            ),
        )
        assert "judge version" not in screen_text(app)  # alice vs bob
        await pilot.press("v")
        await until(pilot, lambda: "judge version: openai:m  key aaaaaa" in screen_text(app))
        assert current(app, AgreementScreen).pair == [
            "alice",
            "openai:m",
        ] and "(v: next version)" in screen_text(app)
        assert "2 units labelled by both" in screen_text(app)
        await pilot.press("v")
        await until(pilot, lambda: "judge version: openai:m#bbbbbb  key bbbbbb" in screen_text(app))
        await pilot.press("v")  # round again
        await until(pilot, lambda: current(app, AgreementScreen).pair == ["alice", "openai:m"])
