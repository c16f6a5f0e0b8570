"""Judging and the statistics: LLM judges over a study (:mod:`.llm`), the judge protocol —
which calls an item needs, their templates, the votes (:mod:`.protocol`) — the agreement
statistics (:mod:`.stats`), their application to a study (:mod:`.analysis`) and the report
(:mod:`.report`). Plain Python, no terminal.

May import ``medjudge.store``, ``medjudge.kinds`` and the prompt templates; never Textual, the
review app or the CLI (checked by import-linter, see pyproject.toml).
"""
