"""What the review screen tells the app: a label committed or put back, an item shown, an
item's verdicts revealed (each posted only after what it says has happened)."""

from __future__ import annotations

from textual.message import Message

from medjudge.store.labels import Saved


class LabelSaved(Message):
    """A label was committed to the study file."""

    def __init__(self, saved: Saved, item_id: int) -> None:
        self.saved = saved
        self.item_id = item_id
        super().__init__()


class LabelUndone(Message):
    """A label was put back to its earlier value (``undo`` is None when refused)."""

    def __init__(self, undone: Saved | None, item_id: int) -> None:
        self.undone = undone
        self.item_id = item_id
        super().__init__()


class ItemShown(Message):
    """An item is on screen."""

    def __init__(self, item_id: int) -> None:
        self.item_id = item_id
        super().__init__()


class Revealed(Message):
    """The reviewer's labels on an item are complete and the verdicts are now shown."""

    def __init__(self, item_id: int) -> None:
        self.item_id = item_id
        super().__init__()
