"""App-wide messages: past-tense events that screens react to."""

from __future__ import annotations

from typing import Any

from textual.message import Message


class StudyChanged(Message):
    """Another connection committed to the study file (a reviewer, a judge run)."""


class AgreementRefreshed(Message):
    """New agreement figures and progress were computed (in a worker thread)."""

    def __init__(self, snapshot: Any) -> None:
        self.snapshot = snapshot
        super().__init__()


class JudgeRunProgressed(Message):
    """A background judge run advanced, finished or failed (see ``state``)."""

    def __init__(self, state: Any) -> None:
        self.state = state
        super().__init__()
