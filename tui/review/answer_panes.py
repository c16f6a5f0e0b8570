"""The review screen's pane stack: :class:`AnswerPanes`, the answers of an item side by side
(as many panes as the registered kinds may show; those an item does not use are hidden), and
the list a kind labels beside them (statements, sub-questions, rubric criteria).

It owns its panes: it shows an item's answers, hides the panes the item does not use, and says
which answers are not yet seen to their end.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Container

from medjudge.kinds import review_facet
from medjudge.kinds.review_facet import Shown
from medjudge.tui.pane import Pane
from medjudge.tui.unit_rows import UnitRows


class AnswerPanes(Container):
    """The answer panes, first shown first, and the list labelled beside them."""

    count = review_facet.max_answer_panes()
    """How many answer panes there are: the most any registered kind shows."""

    def compose(self) -> ComposeResult:
        """The answer panes, then the list beside them (hidden unless the kind lists entries)."""
        for n in range(1, self.count + 1):
            yield Pane("Answer", id=f"pane-{n}")
        yield UnitRows("Entries", id="statements")

    @property
    def panes(self) -> list[Pane]:
        """The answer panes in order (hidden ones included)."""
        return list(self.query_children(Pane))

    def show(self, answers: Sequence[Shown]) -> None:
        """Show these answers in the first panes and hide the others."""
        for n, pane in enumerate(self.panes):
            pane.display = n < len(answers)
            if pane.display:
                pane.show_answer(answers[n].text, answers[n].title)

    def show_nothing(self, message: Shown) -> None:
        """One pane with a message (an empty queue), the others hidden."""
        first, *rest = self.panes
        for pane in rest:
            pane.display = False
        first.show(message.text, title=message.title)

    def unread(self) -> list[Pane]:
        """The answers on screen not yet seen to their end."""
        return [p for p in self.panes if p.display and not p.seen_to_end]
