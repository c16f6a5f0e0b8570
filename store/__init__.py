"""The study file and everything that touches disk.

Owns: the SQLite schema and its migrations, every SQL query (reads return typed objects),
imports and exports, roles and visibility rules, where medjudge keeps files outside a study
(:mod:`.paths`) and the user's private settings (:mod:`.user_settings`).

May import: the standard library, pydantic, platformdirs. Never judging/, tui/,
the CLI or Textual (checked by import-linter, see pyproject.toml).
"""
