"""The commands of the ``medjudge`` command line, one module per command or group (listed in
``medjudge.cli.COMMANDS``, which imports only the one asked for): each parses its options,
calls the store, judging or the review app, prints and picks the exit code. What they share
(consoles, errors, the study argument) is :mod:`.common`.

Never imports Textual at start-up (``review`` and ``demo`` load the app inside the call).
"""
