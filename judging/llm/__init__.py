"""Talking to LLMs: judge specs, providers over the official SDKs, retries, pricing, the
runner that makes and records calls, worker processes and the in-process local server.

May import ``medjudge.store`` and the other judging subpackages; never Textual or the CLI.
"""
