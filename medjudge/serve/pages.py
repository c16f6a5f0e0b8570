"""The server's own HTML: the login form, the choice of app, messages, the terminal page.

Every page is self-contained (no font or script from another site: hospital browsers may reach
nothing else); whatever comes from a user or the study is escaped.
"""

from __future__ import annotations

from html import escape

_STYLE = """
body { background: #0c181f; color: #e8eef2; font-family: system-ui, sans-serif; margin: 0; }
main { max-width: 26rem; margin: 12vh auto; padding: 2rem; background: #12232d; border-radius: 6px; }
h1 { font-size: 1.3rem; margin-top: 0; }
label { display: block; margin: 1rem 0 0.3rem; }
input { width: 100%; box-sizing: border-box; padding: 0.5rem; font-size: 1rem; }
button, a.button { display: inline-block; margin-top: 1.2rem; padding: 0.6rem 1.2rem; font-size: 1rem;
  background: #5e0ba7; color: #fff; border: none; border-radius: 4px; text-decoration: none; cursor: pointer; }
.problem { background: #5a1d1d; padding: 0.6rem; border-radius: 4px; }
.quiet { color: #9fb3c0; font-size: 0.9rem; }
form.inline { display: inline; }
"""


def page(title: str, body: str) -> str:
    """A whole page around ``body`` (HTML already escaped by the caller)."""
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><main>{body}</main></body></html>"
    )


def login_page(study: str, problem: str | None = None, name: str = "") -> str:
    """The login form; ``problem`` is shown above it (a refused login)."""
    shown = f"<p class='problem' role='alert'>{escape(problem)}</p>" if problem else ""
    return page(
        "medjudge: log in",
        f"<h1>medjudge · {escape(study)}</h1>{shown}"
        "<form method='post' action='login'>"
        "<label for='name'>Name</label>"
        f"<input id='name' name='name' autocomplete='username' value='{escape(name)}' required autofocus>"
        "<label for='password'>Password</label>"
        "<input id='password' name='password' type='password' autocomplete='current-password' required>"
        "<button type='submit'>Log in</button></form>",
    )


def _logout() -> str:
    return "<form class='inline' method='post' action='logout'><button type='submit'>Log out</button></form>"


def choice_page(study: str, name: str, adjudicator: bool) -> str:
    """After login: the review app, and the adjudication queue for adjudicators."""
    adjudicate = (
        " <a class='button' id='adjudicate' href='adjudicate'>Adjudicate</a>" if adjudicator else ""
    )
    return page(
        "medjudge",
        f"<h1>medjudge · {escape(study)}</h1><p>Logged in as <b>{escape(name)}</b>.</p>"
        f"<a class='button' id='review' href='review'>Review</a>{adjudicate} {_logout()}",
    )


def message_page(title: str, text: str) -> str:
    """A refusal or notice, with the way back."""
    return page(
        title,
        f"<h1>{escape(title)}</h1><p class='problem'>{escape(text)}</p>"
        f"<a class='button' href='.'>Back</a> {_logout()}",
    )


def terminal_page(title: str, what: str) -> str:
    """The page textual-serve's ``textual.js`` draws the app in, over the websocket
    ``ws/WHAT`` of this server (the URL is made from the page's own, so it is right behind a
    proxy too: wss when the page came over https)."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<link rel="stylesheet" href="static/css/xterm.css">
<script src="static/js/textual.js"></script>
<style>
@font-face {{ font-family: "Roboto Mono"; src: url("static/fonts/RobotoMono-VariableFont_wght.ttf"); }}
html, body {{ margin: 0; height: 100%; background: #0c181f; }}
.textual-terminal {{ width: 100vw; height: 100vh; opacity: 0; }}
body.-first-byte .textual-terminal {{ opacity: 1; }}
.ended {{ display: none; position: absolute; inset: 0; align-items: center; justify-content: center;
  color: #fff; font-family: system-ui, sans-serif; z-index: 10; background: #0c181fe0; }}
body.-closed .ended {{ display: flex; flex-direction: column; }}
.ended a {{ color: #fff; margin: 0.5rem; }}
#start {{ display: none; }}
</style></head>
<body>
<div class="ended"><p id="ended">Session ended (your labels are saved).</p>
<p><a href="{escape(what)}">Start again</a> · <a href=".">Back</a></p></div>
<button id="start" type="button">Start</button>
<div id="terminal" class="textual-terminal" data-font-size="16"></div>
<script>
const url = new URL("ws/{escape(what)}", window.location.href);
url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
document.getElementById("terminal").dataset.sessionWebsocketUrl = url.href;
</script>
</body></html>
"""
