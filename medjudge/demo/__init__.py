"""The bundled demo study (``medjudge demo``): its JSONL items and recorded judge calls, and
:mod:`.build`, which makes the study from them through the same importers as user data.
"""
