"""The Textual review app: the review and adjudication screens, the overview, search, live
agreement and judge runs started from the app. It presents and dispatches; what it shows comes
from ``medjudge.store`` and ``medjudge.judging``, and every label it saves is written by the
store.

May import the store, judging, kinds and Textual; never the CLI (``medjudge.cli``,
``medjudge.commands``) or the demo (checked by import-linter, see pyproject.toml).
"""
