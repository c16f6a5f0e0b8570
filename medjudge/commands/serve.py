"""``medjudge serve``: the review and adjudication apps in a browser, behind a login per
reviewer; and the accounts for it (``--add-user``, ``--remove-user``)."""

from __future__ import annotations

import getpass
import ipaddress
import sys
from pathlib import Path
from typing import Annotated

import typer

from medjudge.store.accounts import account_names, remove_account, set_account
from medjudge.store.paths import login_name

from .common import OnlyStudyArg, UserError, err_console, opened, out, user_errors


def serve(
    study: OnlyStudyArg,
    add_user: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Create the browser account NAME, or set a new password for it (leads only); "
            "the password is asked for twice, or read from stdin with --password-stdin.",
        ),
    ] = None,
    remove_user: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="Delete the browser account NAME (leads only)."),
    ] = None,
    password_stdin: Annotated[
        bool,
        typer.Option(help="With --add-user: read the password from the first line of stdin."),
    ] = False,
    host: Annotated[
        str,
        typer.Option(
            help="The address to listen on; another than loopback needs --cert/--key or "
            "--behind-proxy."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on.", metavar="PORT")] = 8000,
    max_sessions: Annotated[
        int,
        typer.Option(min=1, help="App sessions open at once, all reviewers together.", metavar="N"),
    ] = 30,
    idle_timeout: Annotated[
        float,
        typer.Option(
            min=0.01,
            help="Minutes without a key after which a session closes and its login ends.",
            metavar="MINUTES",
        ),
    ] = 30.0,
    cert: Annotated[
        Path | None, typer.Option(help="TLS certificate chain (PEM), with --key.")
    ] = None,
    key: Annotated[Path | None, typer.Option(help="TLS private key (PEM), with --cert.")] = None,
    behind_proxy: Annotated[
        bool,
        typer.Option(
            help="A TLS reverse proxy on this machine forwards to the server (Caddy, nginx): "
            "client addresses come from X-Forwarded-For and the cookie is Secure."
        ),
    ] = False,
) -> None:
    """Serve the review app to browsers: a login per reviewer, each reviewing under their name.

    A lead creates the accounts first (--add-user). Each browser session runs `medjudge review`
    as the logged-in name, with the same roles, assignments and blinding as over SSH;
    adjudicators can open the adjudication queue instead. Listens on 127.0.0.1 unless --host
    says otherwise; see docs/guide.md "Reviewing in a browser" for TLS and proxies.

    \b
    Example:
      medjudge serve trial.db --add-user dr_lee
      medjudge serve trial.db --port 8000
      medjudge serve trial.db --host 0.0.0.0 --cert site.pem --key site.key
    """
    if add_user is not None or remove_user is not None:
        _accounts(study, add_user, remove_user, password_stdin)
        return
    if password_stdin:
        raise typer.BadParameter("--password-stdin goes with --add-user")
    with user_errors(study):
        if (cert is None) != (key is None):
            raise UserError("--cert and --key go together")
        if not _loopback(host) and cert is None and not behind_proxy:
            raise UserError(
                f"--host {host}: passwords would cross the network in clear; give --cert and "
                "--key, or put a TLS proxy in front (--behind-proxy)"
            )
    with opened(study) as s:
        names = account_names(s)
    if not names:
        raise_no_accounts(study)
    from medjudge.serve.server import ServeConfig, run  # aiohttp: only when serving

    context = None
    if cert is not None and key is not None:
        import ssl

        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        with user_errors(study):
            try:
                context.load_cert_chain(cert, key)
            except (OSError, ssl.SSLError) as exc:
                raise UserError(f"--cert/--key: cannot load them ({exc})") from None
    config = ServeConfig(
        study=study,
        host=host,
        port=port,
        max_sessions=max_sessions,
        idle_timeout=idle_timeout * 60,
        ssl_context=context,
        behind_proxy=behind_proxy,
    )
    _log_to_stderr()

    def ready(url: str) -> None:
        err_console.print(
            f"serving {study} on {url} for {len(names)} account(s); Ctrl-C stops", soft_wrap=True
        )

    with user_errors(study):
        try:
            run(config, ready=ready)
        except OSError as exc:
            raise UserError(f"cannot listen on {host}:{port} ({exc.strerror})") from None


def raise_no_accounts(study: Path) -> None:
    """Refuse to serve a study nobody can log in to."""
    with user_errors(study):
        raise UserError(
            f"{study} has no browser accounts yet; a lead adds one with "
            f"`medjudge serve {study} --add-user NAME`"
        )


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _accounts(study: Path, add: str | None, remove: str | None, from_stdin: bool) -> None:
    from medjudge.serve.passwords import WeakPassword, hash_password

    with opened(study, check=True) as s:
        if remove is not None:
            if remove_account(s, remove, by=login_name()):
                out(f"account {remove} removed")
            else:
                raise UserError(f"no account {remove!r} in this study")
        if add is None:
            return
        if from_stdin:
            password = sys.stdin.readline().rstrip("\r\n")
        else:
            if not _interactive():
                raise UserError("no terminal to ask for the password: use --password-stdin")
            password = getpass.getpass(f"Password for {add}: ")
            if getpass.getpass("Again: ") != password:
                raise UserError("the two passwords differ; nothing was changed")
        try:
            hashed = hash_password(password)
        except WeakPassword as exc:
            raise UserError(str(exc)) from None
        del password
        new = set_account(s, add, hashed, by=login_name())
        out(f"account {add} {'created' if new else 'has a new password'}")


def _interactive() -> bool:
    """Whether a password can be asked for (getpass reads the terminal)."""
    return sys.stdin.isatty()


def _log_to_stderr() -> None:
    """The server's log (logins, failures, sessions; never a password) on stderr."""
    import logging

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger = logging.getLogger("medjudge.serve")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
