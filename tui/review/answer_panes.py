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
from textual.reactive import reactive

from medjudge.kinds import review_facet
from medjudge.kinds.review_facet import Shown
from medjudge.kinds.shown import EMPTY_ANSWER
from medjudge.tui.pane import Pane
from medjudge.tui.unit_rows import UnitRows


class AnswerPanes(Container):
    """The answer panes, first shown first, and the list labelled beside them."""

    count = review_facet.max_answer_panes()
    """How many answer panes there are: the most any registered kind shows."""

    rendered: reactive[bool] = reactive(False, init=False, repaint=False)
    """Whether the answers are drawn as Markdown (``r``); literally, letter for letter, by
    default (and again for every new session)."""

    def __init__(self, *, id: str | None = None) -> None:
        """No answers yet."""
        super().__init__(id=id)
        self._answers: Sequence[Shown] = ()

    def compose(self) -> ComposeResult:
        """The answer panes, then the list beside them (hidden unless the kind lists entries)."""
        for n in range(1, self.count + 1):
            yield Pane("Answer", id=f"pane-{n}", tells_drawn=True)
        yield UnitRows("Entries", id="statements")

    @property
    def panes(self) -> list[Pane]:
        """The answer panes in order (hidden ones included)."""
        return list(self.query_children(Pane))

    def show(self, answers: Sequence[Shown]) -> None:
        """Show these answers in the first panes and hide the others (as Markdown while
        :attr:`rendered`; an empty answer stays as it is)."""
        self._answers = answers
        for n, pane in enumerate(self.panes):
            pane.display = n < len(answers)
            if pane.display:
                text = answers[n].text
                as_markdown = self.rendered and text.plain != EMPTY_ANSWER
                pane.show_answer(text, answers[n].title, rendered=as_markdown)

    def watch_rendered(self) -> None:
        """Literal or rendered: the answers on screen are drawn again."""
        self.show(self._answers)

    def show_nothing(self, message: Shown) -> None:
        """One pane with a message (an empty queue), the others hidden."""
        self._answers = ()
        first, *rest = self.panes
        for pane in rest:
            pane.display = False
        first.show(message.text, title=message.title)

    def unread(self) -> list[Pane]:
        """The answers on screen not yet seen to their end."""
        return [p for p in self.panes if p.display and not p.seen_to_end]
