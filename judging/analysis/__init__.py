"""The statistics applied to a study: the data loaded once, agreement views, live
agreement for the app, the adjudication queue, judge consistency, K-QA and model metrics.

May import ``medjudge.store`` and ``stats``/``protocol``; never Textual or the CLI.
"""
