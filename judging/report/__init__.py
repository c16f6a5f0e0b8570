"""The study report: one structure with every figure, rendered as Markdown, HTML, JSON and CSV.

May import ``analysis``, ``stats`` and ``medjudge.store``; never Textual or the CLI.
"""
