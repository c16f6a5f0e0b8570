"""Importing items into a study: reading JSONL, CSV and JSON files into located records
(:mod:`.readers`), parsing them for each kind (:mod:`.kinds`, K-QA's own files in :mod:`.kqa`),
and storing them all or nothing (:mod:`.writer`), through one entry point (:mod:`.run`); every
problem is an :class:`~.problems.ImportProblem` naming its file, line and field.
"""
