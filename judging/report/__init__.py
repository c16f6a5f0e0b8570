"""The study report: one typed model with every figure, rendered as Markdown, HTML, JSON and CSV.

``build`` reads the study once into :class:`.model.Report` (pydantic); ``templates/`` hold the
Markdown and HTML pages (Jinja2, HTML autoescaped: no markup in Python), ``tables`` /
``section_tables`` / ``judge_tables`` say which columns and cells each table has, ``charts``
lays out the HTML charts, ``render_csv`` writes the long CSV, JSON is the model's own dump.

May import ``analysis``, ``stats`` and ``medjudge.store``; never Textual or the CLI.
"""
