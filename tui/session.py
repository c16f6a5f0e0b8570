"""One reviewer's session on a study: the item queue, the current item, votes, undo and time.

Plain Python (no Textual), so the screens stay thin and the rules are testable on their own.

Storage contract: every vote goes through :func:`store.labels.set_label`, which commits before
it returns; :meth:`ReviewSession.vote` returns the :class:`Saved` row only after that commit,
and the screen shows "saved" only then. All calls run on the caller's thread with the
session's one connection.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from medjudge.store import labels as store_labels
from medjudge.store import reviewer_aids, visibility
from medjudge.store.frames import DISPLAY, shown_order
from medjudge.store.items import Item, ItemRef, get_item, list_items, seen_by
from medjudge.store.judgments import VerdictView
from medjudge.store.labels import Saved, item_labels
from medjudge.store.ledger import IDLE_GAP_S
from medjudge.store.review_queries import (
    has_assignments,
    has_others,
    labelled_counts,
    queue_signature,
    unit_counts,
)
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study


@dataclass(frozen=True)
class UndoEntry:
    """A label write this session can take back."""

    saved: Saved
    item_id: int


class ReviewSession:
    """The state of one reviewer working through a study."""

    def __init__(
        self,
        study: Study,
        reviewer: str,
        *,
        assigned_only: bool | None = None,
        batch: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Load the reviewer's queue and progress.

        Args:
            study: the open study (its connection is used from the caller's thread only).
            reviewer: the reviewer's name.
            assigned_only: show only the items assigned to the reviewer; by default, when the
                study assigns any items to them.
            batch: only the items of this batch.
            clock: a monotonic clock (tests pass a fake one).
        """
        self.study = study
        self.reviewer = reviewer
        self.clock = clock
        self.read_only = study.read_only
        """Why this login cannot save anything in the study (None: it can)."""
        self.has_assignments = has_assignments(study, reviewer)
        self._assigned_by_default = assigned_only is None
        self.assigned_only = self.has_assignments if assigned_only is None else assigned_only
        self.batch = batch
        self._signature = queue_signature(study, reviewer)
        self.refs: list[ItemRef] = list_items(
            study, assigned_to=reviewer if self.assigned_only else None, batch=batch
        )
        self._position = {r.id: i for i, r in enumerate(self.refs)}
        self._unit_total: dict[int, int] | None = None
        self.mine = labelled_counts(study, reviewer)
        self._done = self._count_done()
        self.undo_stack: list[UndoEntry] = []
        self.index = -1
        self.item: Item | None = None
        self.labels: dict[int, str] = {}
        self._revealed: set[int] = set()
        self.flagged: set[int] = reviewer_aids.flagged_items(study, reviewer)
        """Items this reviewer flagged "come back to this" (kept in the study)."""
        self._active_s = 0.0
        self._last_touch = clock()
        self._paused = False
        self._finished_at_touch = False

    def reload_queue(self) -> int:
        """Pick up items imported or assigned (or unassigned) since the queue was read.

        Cheap when nothing changed (:func:`queue_signature`). The current item stays current
        (it keeps its place if it left the queue). Returns how many items joined the queue.
        """
        signature = queue_signature(self.study, self.reviewer)
        if signature == self._signature:
            return 0
        self._signature = signature
        self.has_assignments = has_assignments(self.study, self.reviewer)
        if self._assigned_by_default:
            self.assigned_only = self.has_assignments
        refs = list_items(
            self.study,
            assigned_to=self.reviewer if self.assigned_only else None,
            batch=self.batch,
        )
        before = set(self._position)
        self.refs = refs
        self._position = {r.id: i for i, r in enumerate(refs)}
        self._unit_total = None
        if self.item is not None and self.item.id in self._position:
            self.index = self._position[self.item.id]
        else:  # the current item left the queue: it stays on screen until the next move
            self.index = min(self.index, len(refs) - 1)
        self.mine = labelled_counts(self.study, self.reviewer)
        self._done = self._count_done()
        return len(set(self._position) - before)

    # -- settings and progress -------------------------------------------------------------
    @property
    def settings(self) -> StudySettings:
        """The study's settings."""
        return self.study.settings

    @property
    def unit_total(self) -> dict[int, int]:
        """How many units each item has (read when first needed: a reviewer who has labelled
        nothing yet opens the app without counting 60,000 units)."""
        if self._unit_total is None:
            self._unit_total = unit_counts(self.study)
        return self._unit_total

    def is_done(self, item_id: int) -> bool:
        """Whether the reviewer has labelled every unit of an item."""
        mine = self.mine.get(item_id, 0)
        if mine == 0:
            return False  # nothing labelled: not done, whatever the item holds
        total = self.unit_total.get(item_id, 0)
        return total > 0 and mine >= total

    def items_done(self) -> int:
        """How many items of the queue the reviewer has completed (kept up to date)."""
        return self._done

    def _count_done(self) -> int:
        # only items the reviewer has labels on can be done: no pass over the whole queue
        return sum(
            1 for item_id in self.mine if item_id in self._position and self.is_done(item_id)
        )

    def _set_mine(self, item_id: int, count: int) -> None:
        was = self.is_done(item_id)
        self.mine[item_id] = count
        if item_id in self._position:
            self._done += int(self.is_done(item_id)) - int(was)

    def reload_progress(self) -> None:
        """Re-read the reviewer's own label counts (after another process wrote)."""
        self.mine = labelled_counts(self.study, self.reviewer)
        self._done = self._count_done()

    # -- navigation --------------------------------------------------------------------------
    def why_empty(self) -> str:
        """Why the queue has no items (for the screen that says so)."""
        if self.batch:
            mine = " assigned to you" if self.assigned_only else ""
            return f"no items in batch {self.batch!r}{mine}"
        if self.assigned_only:
            return "no items are assigned to you"
        return "the study has no items yet (medjudge import ...)"

    def first_index(self) -> int:
        """Where to start: the first item not yet completed, else the first item."""
        found = self.next_unlabelled(-1)
        return 0 if found is None else found

    def next_unlabelled(self, after: int) -> int | None:
        """The queue position of the next item (after ``after``, wrapping) not yet completed."""
        n = len(self.refs)
        for step in range(1, n + 1):
            i = (after + step) % n
            if not self.is_done(self.refs[i].id):
                return i
        return None

    def next_flagged(self, after: int) -> int | None:
        """The queue position of the next flagged item after ``after`` (wrapping), or None."""
        n = len(self.refs)
        for step in range(1, n + 1):
            i = (after + step) % n
            if self.refs[i].id in self.flagged:
                return i
        return None

    def toggle_flag(self) -> bool:
        """Flag the current item to come back to, or unflag it; committed on return.

        Returns:
            Whether the item is flagged now.
        """
        assert self.item is not None
        on = self.item.id not in self.flagged
        reviewer_aids.set_flag(self.study, self.item.id, self.reviewer, on)
        (self.flagged.add if on else self.flagged.discard)(self.item.id)
        return on

    def marked_documents(self) -> set[int]:
        """The current item's documents this reviewer marked as wrongly relied on."""
        if self.item is None:
            return set()
        return reviewer_aids.document_marks(self.study, self.item.id, self.reviewer)

    def toggle_document(self, document: int) -> bool:
        """Mark document ``document`` (1-based) of the current item, or unmark it; committed.

        Returns:
            Whether it is marked now.
        """
        assert self.item is not None
        on = document not in self.marked_documents()
        reviewer_aids.set_document_mark(self.study, self.item.id, self.reviewer, document, on)
        return on

    def guidelines_due(self) -> bool:
        """Whether the study's guidelines should open by themselves (new to this reviewer)."""
        return reviewer_aids.guidelines_unread(self.study, self.reviewer)

    def guidelines_shown(self) -> None:
        """Record that the reviewer was shown the current guidelines (not on a read-only
        study: they show again next time)."""
        if self.read_only is None:
            reviewer_aids.mark_guidelines_read(self.study, self.reviewer)

    def find(self, text: str) -> int | None:
        """A queue position from an item id (as imported) or a 1-based position number."""
        text = text.strip()
        for i, r in enumerate(self.refs):
            if r.ext_id == text:
                return i
        if text.lstrip("#").isdigit():
            pos = int(text.lstrip("#")) - 1
            if 0 <= pos < len(self.refs):
                return pos
        return None

    def position_of(self, item_id: int) -> int | None:
        """The queue position of an item (None when it is not in this reviewer's queue)."""
        return self._position.get(item_id)

    def peek(self, index: int) -> Item:
        """The item at a queue position as this reviewer sees it (with ``settings --order
        per-reviewer``, their own answer order), without making it current."""
        return seen_by(
            get_item(self.study, self.refs[index].id, paged=True),
            self.study.settings,
            self.reviewer,
        )

    def load(self, index: int) -> Item:
        """Make the item at a queue position current and read the reviewer's labels on it."""
        self.index = index
        self.item = self.peek(index)
        self.labels = item_labels(self.study, self.item.id, self.reviewer)
        self._set_mine(self.item.id, len(self.labels))
        self._active_s = 0.0
        self._last_touch = self.clock()
        self._finished_at_touch = self.complete()  # revisiting a finished item is not review
        return self.item

    def reload_labels(self) -> None:
        """Re-read the reviewer's labels on the current item."""
        if self.item is not None:
            self.labels = item_labels(self.study, self.item.id, self.reviewer)
            self._set_mine(self.item.id, len(self.labels))

    # -- time --------------------------------------------------------------------------------
    def touch(self) -> None:
        """Note activity (a keypress) and count the time since the last one, unless it was an
        idle stretch (longer than :data:`IDLE_GAP_S`), spent on a finished item, or spent on
        another screen (:meth:`pause`)."""
        now = self.clock()
        gap = max(0.0, now - self._last_touch)
        if not self._paused and not self._finished_at_touch and gap <= IDLE_GAP_S:
            self._active_s += gap
        self._last_touch = now
        self._finished_at_touch = self.item is not None and self.complete()

    def pause(self) -> None:
        """Another screen covers the item (overview, help, guidelines): count what was spent
        up to now, and nothing until :meth:`resume`."""
        if not self._paused:
            self.touch()
            self._paused = True

    def resume(self) -> None:
        """The item is on screen again: time counts from now."""
        if self._paused:
            self._paused = False
            self._last_touch = self.clock()

    def leave(self) -> tuple[int, float] | None:
        """Stop timing the current item; returns (item id, active seconds) to record."""
        if self.item is None:
            return None
        self.touch()
        spent, self._active_s = self._active_s, 0.0
        return self.item.id, spent

    def record_time(self, item_id: int, seconds: float) -> None:
        """Add a visit's time to the store (one small transaction)."""
        store_labels.add_time(self.study, item_id, self.reviewer, seconds)

    # -- labels ------------------------------------------------------------------------------
    def vote(self, unit_id: int, value: str) -> Saved:
        """Store the reviewer's label on a unit of the current item; committed on return.

        Raises:
            LabelError: the value is not allowed for the unit's criterion.
        """
        assert self.item is not None
        saved = store_labels.set_label(
            self.study, unit_id, self.reviewer, value, display_order=shown_order(self.item)
        )
        self.labels[unit_id] = saved.new_value or ""
        self._set_mine(self.item.id, len(self.labels))
        self.undo_stack.append(UndoEntry(saved, self.item.id))
        return saved

    def undo(self) -> tuple[UndoEntry, Saved | None] | None:
        """Take back the last label this session wrote.

        Returns:
            None when there is nothing to undo; else the entry and the undo's own history
            row, or None in its place when the label had changed since (nothing was written).
        """
        if not self.undo_stack:
            return None
        entry = self.undo_stack.pop()
        try:
            result = store_labels.revert(self.study, entry.saved, self.reviewer)
        except store_labels.UndoRefused:
            self.undo_stack.append(entry)
            raise
        if result is not None:
            mine = item_labels(self.study, entry.item_id, self.reviewer)
            self._set_mine(entry.item_id, len(mine))
            if self.item is not None and self.item.id == entry.item_id:
                self.labels = mine
        return entry, result

    def complete(self) -> bool:
        """Whether every unit of the current item carries the reviewer's label."""
        # (labels holds the current item's units only: counting decides; an item of 100,000
        # statements is not scanned on every key)
        return self.item is not None and len(self.labels) >= len(self.item.units)

    # -- blind review and reveal -------------------------------------------------------------
    def revealed(self) -> bool:
        """Whether the reviewer may see verdicts and others' labels on the current item.

        The rule is :func:`store.visibility.may_see_others` (not blind, or every own label
        saved), evaluated on the labels this session already holds.
        """
        if self.item is None:
            return False
        return not self.settings.blind or self.complete()

    def locked(self) -> bool:
        """Whether the current item is done and revealed: its labels change only by an
        explicit, visible act (the review screen's change key), never as a side effect of a
        key meant for the next item. The reveal must have been recorded (something was shown)
        and every unit labelled."""
        item = self.item
        return item is not None and item.id in self._revealed and self.complete()

    def anything_to_reveal(self) -> bool:
        """Whether a judge verdict or another rater's label exists on the current item."""
        return self.item is not None and has_others(self.study, self.item.id, self.reviewer)

    def reveal_if_due(self) -> bool:
        """Record the reveal once the reviewer can see something; True when it happened now.

        Blind studies reveal when the reviewer's own labels on the item are all saved; studies
        that are not blind show everything from the start. Either way the reveal is recorded
        (``mark_revealed``) when there is something to see, so later changes are flagged
        ``after_reveal`` in the history.
        """
        item = self.item
        if item is None or item.id in self._revealed or not self.revealed():
            return False
        if not self.anything_to_reveal():
            return False
        self._revealed.add(item.id)
        if store_labels.is_revealed(self.study, item.id, self.reviewer):
            return False  # seen in an earlier session; a read spares a write
        return store_labels.mark_revealed(self.study, item.id, self.reviewer)

    def verdicts(self) -> list[VerdictView]:
        """Judge verdicts on the current item (empty while blind)."""
        if self.item is None or not self.revealed():
            return []
        return visibility.visible_verdicts(self.study, self.item.id, self.reviewer)

    def others(self) -> dict[int, dict[str, str]]:
        """Other human reviewers' labels on the current item (empty while blind)."""
        if self.item is None or not self.revealed():
            return {}
        judges = {r["name"] for r in self.study.raters("judge")}
        out: dict[int, dict[str, str]] = {}
        for unit_id, by in visibility.visible_other_labels(
            self.study, self.item.id, self.reviewer
        ).items():
            humans = {k: v for k, v in by.items() if k not in judges}
            if humans:
                out[unit_id] = humans
        return out

    # -- notes -------------------------------------------------------------------------------
    def note(self) -> str:
        """The reviewer's note on the current item."""
        return (
            ""
            if self.item is None
            else store_labels.get_note(self.study, self.item.id, self.reviewer)
        )

    def unit_notes(self) -> dict[int, str]:
        """The reviewer's notes on the current item's criteria and statements."""
        if self.item is None:
            return {}
        return store_labels.label_notes(self.study, self.item.id, self.reviewer)

    def set_unit_note(self, unit_id: int, text: str) -> None:
        """Store (or clear) the reviewer's note on one unit; committed on return.

        Raises:
            LabelError: the unit has no label of the reviewer's yet.
        """
        # typed on the review screen: "A" there is the answer shown first
        store_labels.set_label_note(self.study, unit_id, self.reviewer, text, frame=DISPLAY)

    def set_note(self, text: str) -> None:
        """Store (or clear) the reviewer's note on the current item; committed on return."""
        assert self.item is not None
        # typed on the review screen: "A" there is the answer shown first
        store_labels.set_note(
            self.study,
            self.item.id,
            self.reviewer,
            text,
            frame=DISPLAY,
            display_order=shown_order(self.item),
        )
