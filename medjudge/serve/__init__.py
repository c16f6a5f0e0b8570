"""``medjudge serve``: the review and adjudication apps in a browser, behind a login.

The server (:mod:`.server`) is an aiohttp application with its own login routes in front of
textual-serve's per-session app process; it never imports Textual (each browser session runs
``medjudge review`` or ``medjudge adjudicate`` in a child process, as an SSH session would).
"""

SERVED_ENV = "MEDJUDGE_SERVED"
"""Set to ``1`` in every app process the server starts: with Textual's web driver named in
``TEXTUAL_DRIVER``, the review command's terminal check knows the server's pipes from a
missing terminal by it (``medjudge.commands.common.served``)."""
