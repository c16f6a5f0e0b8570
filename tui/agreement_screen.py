"""Agreement detail: two raters on one criterion, coefficients with intervals, confusion matrix.

Raters are named by side (rows, columns), never "A"/"B": those letters are answers. Pairwise
values are in the file frame (docs/design.md §2 "Answer-letter frame", :mod:`store.frames`): ``A`` is the
import file's ``answer_a`` for every rater, whichever order each reviewer saw, as stored.

The figures come from the app's agreement feed in a thread worker and arrive as
:class:`AgreementScreen.PairComputed`; a judge on either side also gets its alternative
annotator test's decision in one line (computed in ``judging``, as the report's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from medjudge import kinds
from medjudge.store.frames import frame_hint
from medjudge.tui.widgets import KeyFooter

from . import render
from .messages import StudyChanged

if TYPE_CHECKING:
    from .app import ReviewApp


class AgreementScreen(Screen[None]):
    """One pair of raters on one criterion."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("left_square_bracket", "criterion(-1)", "Prev criterion", key_display="["),
        Binding("right_square_bracket", "criterion(1)", "Next criterion", key_display="]"),
        Binding("a", "rater(0)", "Rows rater"),
        Binding("b", "rater(1)", "Columns rater"),
        Binding("v", "version", "Judge version"),
        Binding("question_mark", "app.help", "Help", key_display="?"),
    ]

    class PairComputed(Message):
        """Figures for the pair arrived (``stats`` None when fewer than two raters)."""

        def __init__(
            self,
            criterion: str,
            raters: list[str],
            pair: tuple[str, str] | None,
            stats: Any,
            error: str | None,
            versions: dict[str, str] | None = None,
            alt_tests: dict[str, str] | None = None,
        ) -> None:
            self.criterion = criterion
            self.raters = raters
            self.pair = pair
            self.stats = stats
            self.error = error
            self.versions = versions or {}
            """Judge versions: rater name → short key."""
            self.alt_tests = alt_tests or {}
            """Each judge of the pair → its alt-test decision in one line."""
            super().__init__()

    def __init__(self, criteria: list[str], criterion: str) -> None:
        """Start on ``criterion``; ``[``/``]`` move through ``criteria``."""
        super().__init__()
        self.criteria = criteria
        self.criterion = criterion
        self.raters: list[str] = []
        self.pair: list[str] = []
        self.versions: dict[str, str] = {}
        """Judge versions of the study: rater name → short key (``v`` cycles them)."""

    @property
    def _blind(self) -> bool:
        return self.review_app.session.settings.blind

    @property
    def review_app(self) -> ReviewApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        """Heading and the figures."""
        yield Static("", id="ag-head")
        with VerticalScroll(id="ag-body"):
            yield Static(Text("computing…"), id="ag-figures")
        yield KeyFooter(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        """Compute the first pair."""
        self.compute()

    @work(thread=True, exclusive=True, group="pair", exit_on_error=False)
    def compute(self) -> None:
        """Read raters and the pair's statistics off the main thread."""
        feed = self.review_app.agreement
        criterion, wanted = self.criterion, list(self.pair)
        versions: dict[str, str] = {}
        alt: dict[str, str] = {}
        try:
            raters = feed.raters(criterion)
            versions = feed.versions()
            pair = self._choose(raters, wanted)
            stats = feed.pair(pair[0], pair[1], criterion) if pair else None
            alt = feed.alt_tests(pair, criterion) if pair else {}
            error = None
        except Exception as exc:  # noqa: BLE001 - shown on screen
            raters, pair, stats, error = [], None, None, str(exc)
        self.post_message(self.PairComputed(criterion, raters, pair, stats, error, versions, alt))

    def _choose(self, raters: list[str], wanted: list[str]) -> tuple[str, str] | None:
        if len(raters) < 2:
            return None
        me = self.review_app.session.reviewer
        if self._blind:  # side A is always the reviewer: only units they labelled are compared
            if me not in raters:
                return None
            if len(wanted) == 2 and wanted[1] in raters and wanted[1] != me:
                return me, wanted[1]
            return me, next(r for r in raters if r != me)
        if (
            len(wanted) == 2
            and wanted[0] in raters
            and wanted[1] in raters
            and wanted[0] != wanted[1]
        ):
            return wanted[0], wanted[1]
        first = me if me in raters else raters[0]
        second = next(r for r in raters if r != first)
        return first, second

    @on(PairComputed)
    def _show(self, message: PairComputed) -> None:
        if message.criterion != self.criterion:
            return
        self.raters = message.raters
        self.pair = list(message.pair) if message.pair else []
        self.versions = message.versions
        head = Text(end="")
        head.append("Agreement  ", "bold")
        head.append_text(render.lit(self.criterion, "bold"))
        head.append(
            f"  ({self.criteria.index(self.criterion) + 1}/{len(self.criteria)})"
            if self.criterion in self.criteria
            else ""
        )
        if message.pair:
            head.append("\nrows: ")
            head.append_text(render.lit(message.pair[0], "bold"))
            head.append("   columns: ")
            head.append_text(render.lit(message.pair[1], "bold"))
            for side in message.pair:
                if side in message.versions:
                    head.append("\njudge version: ")
                    head.append_text(render.lit(side, "bold"))
                    head.append(f"  key {message.versions[side]}", "dim")
            if len(self._judge_versions()) > 1:
                head.append("  (v: next version)", "dim")
            for side in message.pair:
                if side in message.alt_tests:
                    head.append("\n")
                    head.append_text(render.lit(side, "bold"))
                    head.append(": ")
                    head.append_text(render.lit(message.alt_tests[side]))
        self.query_one("#ag-head", Static).update(head)
        figures = self.query_one("#ag-figures", Static)
        if message.error:
            figures.update(render.lit(f"Could not compute: {message.error}"))
        elif message.stats is None or message.pair is None:
            figures.update(
                Text(
                    "Label some of these yourself first: in a blind study the detail compares you "
                    "with the others."
                    if self._blind and len(message.raters) >= 2
                    else "Fewer than two raters have labelled this criterion yet."
                )
            )
        else:
            figures.update(self._figures(message.stats, *message.pair))

    def _figures(self, stats: Any, a: str, b: str) -> Group:
        from medjudge.judging.stats.estimates import METHOD_SHORT  # loaded with the stats

        table = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 2))
        table.add_column("coefficient", style="bold", no_wrap=True)
        table.add_column("value [95% CI]")
        table.add_column("n", justify="right")
        table.add_column("interval")
        from medjudge.judging.stats import figures

        rows = [
            (f.label, getattr(stats, f.key))
            for f in figures.of_group("two", stats.scale)
            if f.app and getattr(stats, f.key, None) is not None
        ]
        unstable = False
        for name, est in rows:
            n = f"{est.n}†" if est.unstable else str(est.n)
            unstable = unstable or est.unstable
            method = METHOD_SHORT[est.method] if est.has_ci else ""
            table.add_row(Text(name), render.lit(est.format(2, flag=False)), Text(n), Text(method))
        confusion = render.confusion_table(stats.confusion.categories, stats.confusion.matrix, a, b)
        dropped = getattr(stats, "n_dropped", 0)
        note = Text(
            f"\n{stats.n} unit{'s' if stats.n != 1 else ''} labelled by both"
            + (f"; {dropped} labelled by only one left out" if dropped else "")
            + ("; † fewer than 20 units: unstable" if unstable else "")
            + "\n"
        )
        title = Text("Confusion matrix", style="bold")
        title.append(" (rows: ", "dim")
        title.append_text(render.lit(a))
        title.append(", columns: ", "dim")
        title.append_text(render.lit(b))
        title.append(")", "dim")
        if self._lettered is not None:
            hint = frame_hint(self._lettered)
            title.append(f"\nletters: {hint}, as stored; not the order reviewers saw", "dim")
        title.append("\n")
        return Group(table, note, title, confusion)

    @property
    def _lettered(self) -> str | None:
        """The criterion's kind when its labels name answers by letter in the file's frame."""
        try:
            kind = self.review_app.study.settings.criterion(self.criterion).kind
        except KeyError:
            return None
        return kind if kinds.get(kind).shuffles_answers else None

    # -- actions ---------------------------------------------------------------------------
    def action_back(self) -> None:
        """Back to the overview."""
        self.dismiss(None)

    def action_criterion(self, step: int) -> None:
        """Previous / next criterion."""
        if not self.criteria:
            return
        i = self.criteria.index(self.criterion) if self.criterion in self.criteria else 0
        self.criterion = self.criteria[(i + step) % len(self.criteria)]
        self.query_one("#ag-figures", Static).update(Text("computing…"))
        self.compute()

    def action_rater(self, side: int) -> None:
        """The next rater on one side of the pair (skipping the other side's)."""
        if len(self.raters) < 2 or len(self.pair) != 2:
            return
        if side == 0 and self._blind:
            self.notify("Blind review: the rows are you; b picks whom you are compared with.")
            return
        other = self.pair[1 - side]
        i = self.raters.index(self.pair[side]) if self.pair[side] in self.raters else -1
        for step in range(1, len(self.raters) + 1):
            cand = self.raters[(i + step) % len(self.raters)]
            if cand != other:
                self.pair[side] = cand
                break
        self.compute()

    def _judge_versions(self) -> list[str]:
        """Judge versions with labels on this criterion, in the study's order."""
        return [name for name in self.versions if name in self.raters]

    def action_version(self) -> None:
        """The next judge version in the columns (the rows stay)."""
        versions = [v for v in self._judge_versions() if not self.pair or v != self.pair[0]]
        if not versions or len(self.pair) != 2:
            self.notify("No judge version has verdicts on this criterion.")
            return
        current = self.pair[1]
        i = versions.index(current) if current in versions else -1
        self.pair[1] = versions[(i + 1) % len(versions)]
        self.compute()

    @on(StudyChanged)
    def _changed(self) -> None:
        self.compute()
