"""App-wide messages: past-tense events that screens react to.

The app posts them to each screen on the stack; they do not bubble back up to the app.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message


class StudyChanged(Message, bubble=False):
    """Another connection committed to the study file (a reviewer, a judge run)."""


class AgreementRefreshed(Message, bubble=False):
    """New agreement figures and progress were computed (in a worker thread)."""

    def __init__(self, snapshot: Any) -> None:
        self.snapshot = snapshot
        super().__init__()


class JudgeRunProgressed(Message, bubble=False):
    """A background judge run advanced, finished or failed (see ``state``)."""

    def __init__(self, state: Any) -> None:
        self.state = state
        super().__init__()
