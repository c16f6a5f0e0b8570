"""The judge protocol (docs/design.md §3): which calls an item needs and their prompts, reading
replies, and the voting rules that turn samples into verdicts.

May import ``medjudge.store``; never Textual or the CLI.
"""
