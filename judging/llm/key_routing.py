"""Which API key goes to which endpoint: the one place that decides it.

Rules:

* A provider's own key — its entry's ``key_env`` (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``,
  ``GEMINI_API_KEY``, ...), or for OpenAI and Anthropic the key in ``settings.toml`` — goes
  only to that provider's own endpoint: a spec without ``@URL`` (or whose ``@URL`` is the
  entry's home, see :meth:`~.provider_registry.ProviderEntry.is_home`).
* An ``@URL`` endpoint gets a key only when one is named for it: ``judge --key-env NAME`` (for
  every ``@URL`` judge of that run), else an entry of ``settings.toml``
  (``[endpoints."URL"] key_env = "NAME"``). Without one it is called with a placeholder that is
  no secret (local servers need none), and the run says so (:attr:`KeyRoute.notice`).
* The provider's base-URL variable moves its judges (``OPENAI_BASE_URL``, see below) and, as
  the SDK and every gateway's documentation expect, its own key variable
  (``OPENAI_API_KEY``) goes with it to that URL, unless a key is named for the URL.
* A key is never sent over plain ``http`` to a host that is not loopback (127.0.0.0/8, ::1,
  ``localhost``): :func:`check_transport` refuses before any connection is made — except to a
  server on a private network (10/8, 172.16/12, 192.168/16, fc00::/7, link-local) whose entry
  in ``settings.toml`` opts in (``[endpoints."URL"] allow_http = true``), which the run says
  once. A public host never gets a key over plain http.

Endpoints: the SDKs read ``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL`` themselves; medjudge
always hands them the endpoint explicitly, and :func:`resolve_endpoint` honours those variables
by writing the URL into the judge spec, so that the endpoint actually called is part of the
judge's version and of every call's cache key.

A :class:`KeyRing` holds the keys a run may use (picklable: worker processes get it); its
``repr`` shows no key. Nothing here writes a key anywhere.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from medjudge.judging.llm.provider_registry import ProviderEntry, entries, entry_for
from medjudge.judging.llm.provider_types import PLACEHOLDER_KEY, ProviderConfigError
from medjudge.judging.llm.specs import JudgeSpec, SpecError, normalise_url

if TYPE_CHECKING:
    from medjudge.store.user_settings import UserSettings

__all__ = [
    "KeyRing",
    "KeyRoute",
    "NamedKey",
    "RunAccess",
    "check_transport",
    "gather_keys",
    "is_loopback",
    "is_private_host",
    "key_notices",
    "prepare_access",
    "resolve_endpoint",
    "route_key",
]

NO_KEY_HINT = "--key-env NAME to send one"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _address(host: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | str | None:
    """``host`` as an IP address, ``"localhost"``, or None (a name, never resolved: a name may
    point anywhere)."""
    if not host:
        return None
    host = host.strip("[]").lower().rstrip(".")
    if host == "localhost":
        return host
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` is this machine: ``localhost``, 127.0.0.0/8 or ``::1``."""
    a = _address(host)
    return a == "localhost" or (not isinstance(a, str) and a is not None and a.is_loopback)


def is_private_host(host: str | None) -> bool:
    """Whether ``host`` is this machine or on a private network: ``localhost`` or an IP address
    that is loopback, private or link-local (a host name is not resolved, so never private)."""
    a = _address(host)
    if a is None or isinstance(a, str):
        return a == "localhost"
    return a.is_loopback or a.is_private or a.is_link_local


def check_transport(
    endpoint: str, has_key: bool, name: str, source: str | None, *, allow_http: bool = False
) -> None:
    """Refuse to send a key over plain ``http`` to a host that is not loopback (or, with
    ``allow_http``, not on a private network).

    Args:
        endpoint: The URL that would be called.
        has_key: Whether a real key (not the placeholder) would go with the calls.
        name: The judge, for the message.
        source: Where the key comes from, for the message (never the key).
        allow_http: ``settings.toml`` opts this endpoint in (``allow_http = true``).

    Raises:
        ProviderConfigError: the key would cross the network unencrypted.
    """
    parts = urlsplit(endpoint)
    if not has_key or parts.scheme != "http" or is_loopback(parts.hostname):
        return
    if allow_http and is_private_host(parts.hostname):
        return
    if allow_http:
        raise ProviderConfigError(
            f"{name}: refusing to send the API key ({source or 'given'}) over plain http to "
            f"{endpoint}: allow_http opts in a server on a private network only, and this is "
            "not one; use https",
            provider=name,
        )
    raise ProviderConfigError(
        f"{name}: refusing to send the API key ({source or 'given'}) over plain http to "
        f"{endpoint}: use https, or a server on this machine (127.0.0.1, ::1, localhost)",
        provider=name,
    )


@dataclass(frozen=True)
class NamedKey:
    """One key the run knows: the variable it comes from, how it was given, its value."""

    env: str
    """The environment variable's name (for a key from ``settings.toml``: the provider's)."""
    where: str
    """``env`` (a provider's own variable), ``settings`` (its key in ``settings.toml``),
    ``--key-env``, ``endpoints`` (named for an endpoint in ``settings.toml``) or ``base_url``
    (the provider's own variable, going with its base-URL variable)."""
    key: str | None = field(default=None, repr=False)
    """Its value; ``None`` when the variable is not set."""

    @property
    def source(self) -> str:
        """How messages name it (never its value)."""
        return {
            "env": self.env,
            "settings": "settings.toml",
            "--key-env": f"--key-env {self.env}",
            "endpoints": f"{self.env}, named in settings.toml",
            "base_url": f"{self.env}, with the provider's base-URL variable",
        }.get(self.where, self.env)


@dataclass(frozen=True)
class KeyRing:
    """The keys a run may send and where each may go (no ``repr`` shows a key).

    Attributes:
        defaults: Provider name → its own key (environment first, then ``settings.toml``), for
            that provider's own endpoint only.
        endpoints: Normalised ``@URL`` → the key named for it in ``settings.toml``.
        run_key: ``judge --key-env NAME``: the key for every ``@URL`` judge of the run.
        http_allowed: Normalised ``@URL`` s that ``settings.toml`` lets take a key over plain
            http (``allow_http = true``; private networks only).
    """

    defaults: Mapping[str, NamedKey] = field(default_factory=dict)
    endpoints: Mapping[str, NamedKey] = field(default_factory=dict)
    run_key: NamedKey | None = None
    http_allowed: frozenset[str] = frozenset()

    @classmethod
    def from_environment(
        cls, environ: Mapping[str, str] | None = None, file_keys: Mapping[str, str] | None = None
    ) -> KeyRing:
        """Every registry provider's own key: its environment variable, else ``file_keys``
        (the keys of ``settings.toml``, by provider). No key is named for any ``@URL``."""
        env = os.environ if environ is None else environ
        defaults: dict[str, NamedKey] = {}
        for e in entries():
            if e.key_env is None:
                continue
            if env.get(e.key_env):
                defaults[e.name] = NamedKey(e.key_env, "env", env[e.key_env])
            elif (file_keys or {}).get(e.name):
                defaults[e.name] = NamedKey(e.key_env, "settings", (file_keys or {})[e.name])
        return cls(defaults=defaults)

    @classmethod
    def placeholders(cls) -> KeyRing:
        """A ring whose every key is the placeholder (a dry run builds clients, calls nothing)."""
        return cls(
            defaults={
                e.name: NamedKey(e.key_env, "env", PLACEHOLDER_KEY) for e in entries() if e.key_env
            }
        )


@dataclass(frozen=True)
class KeyRoute:
    """The key one judge's calls carry.

    Attributes:
        key: The key; ``None``: the placeholder, no secret.
        source: Where it comes from, for messages (``OPENAI_API_KEY``, ``--key-env NAME``, ...).
        notice: What the run says about it once (an ``@URL`` called without a key), or None.
    """

    key: str | None = field(repr=False)
    source: str | None = None
    notice: str | None = None


def gather_keys(
    settings: UserSettings, key_env: str | None = None, environ: Mapping[str, str] | None = None
) -> KeyRing:
    """The key ring of a run from the user's settings, ``--key-env`` and the environment.

    Raises:
        ProviderConfigError: ``--key-env`` names a variable that is not set, or an
            ``[endpoints]`` URL of ``settings.toml`` is not a server URL.
    """
    env = os.environ if environ is None else environ
    run_key = None
    if key_env is not None:
        if not _ENV_NAME.match(key_env):  # perhaps a key pasted in place of its name: not shown
            raise ProviderConfigError(
                "--key-env takes the NAME of the environment variable that holds the key "
                "(letters, digits and _), not the key itself"
            )
        if not env.get(key_env):
            raise ProviderConfigError(
                f"--key-env {key_env}: the environment variable {key_env} is not set"
            )
        run_key = NamedKey(key_env, "--key-env", env[key_env])
    endpoints: dict[str, NamedKey] = {}
    allowed: set[str] = set()
    for url, entry in settings.endpoints.items():
        try:
            where = normalise_url(url)
        except SpecError as exc:
            raise ProviderConfigError(f"settings.toml: [endpoints.{url!r}]: {exc}") from None
        if entry.key_env is not None:
            endpoints[where] = NamedKey(entry.key_env, "endpoints", env.get(entry.key_env) or None)
        if entry.allow_http:
            allowed.add(where)
    ring = KeyRing.from_environment(env, settings.file_keys())
    return dataclasses.replace(
        ring, endpoints=endpoints, run_key=run_key, http_allowed=frozenset(allowed)
    )


def resolve_endpoint(
    spec: JudgeSpec, environ: Mapping[str, str] | None = None
) -> tuple[JudgeSpec, str | None]:
    """Honour the provider's base-URL variable (``OPENAI_BASE_URL``, ``ANTHROPIC_BASE_URL``)
    explicitly: a spec without ``@URL`` becomes one with that URL, so the study records the
    endpoint really called (a new judge version, its own cache keys).

    Returns:
        The spec (unchanged when the variable is unset, or is the provider's default URL) and a
        notice saying what happened, or None.

    Raises:
        SpecError: the variable holds no valid server URL.
    """
    entry = entry_for(spec.provider)
    env = os.environ if environ is None else environ
    if spec.base_url is not None or entry.base_url_env is None:
        return spec, None
    value = (env.get(entry.base_url_env) or "").strip()
    if not value:
        return spec, None
    try:
        url = normalise_url(value)
    except SpecError as exc:
        raise SpecError(f"{entry.base_url_env}: {exc}") from None
    if url == entry.base_url:
        return spec, None
    moved = dataclasses.replace(spec, base_url=url)
    return moved, (
        f"{spec.name}: {entry.base_url_env} is set, so this judge calls {url} "
        f"and is recorded as {moved.name}"
    )


def route_key(spec: JudgeSpec, ring: KeyRing, *, required: bool = True) -> KeyRoute:
    """The key one judge's calls carry (see the module's rules).

    Args:
        spec: The judge (its ``@URL`` already resolved, see :func:`resolve_endpoint`).
        ring: The run's keys.
        required: Refuse a provider's own endpoint without its key (a dry run passes False).

    Raises:
        ProviderConfigError: the provider's own endpoint and no key for it (``required``); a
            key named in ``settings.toml`` whose variable is not set; a key over plain http
            to a host that is not loopback.
    """
    entry = entry_for(spec.provider)
    if entry.protocol == "local":
        return KeyRoute(None)
    route = _choose(spec, entry, ring, required=required)
    endpoint = entry.endpoint(spec.base_url)
    if endpoint is not None:
        real = route.key is not None and route.key != PLACEHOLDER_KEY
        allow = spec.base_url is not None and spec.base_url in ring.http_allowed
        check_transport(endpoint, real, spec.name, route.source, allow_http=allow)
        if real and allow and urlsplit(endpoint).scheme == "http":
            host = urlsplit(endpoint).hostname
            if not is_loopback(host) and route.notice is None:
                route = dataclasses.replace(
                    route,
                    notice=f"{spec.name}: sending the key ({route.source}) over plain http to "
                    f"{endpoint}, as settings.toml allows (allow_http = true)",
                )
    return route


def _choose(spec: JudgeSpec, entry: ProviderEntry, ring: KeyRing, *, required: bool) -> KeyRoute:
    if spec.base_url is not None:
        named = ring.run_key or ring.endpoints.get(spec.base_url)
        if named is not None:
            if named.key is None:
                raise ProviderConfigError(
                    f"{spec.name}: settings.toml names {named.env} as the key for "
                    f"{spec.base_url}, but {named.env} is not set",
                    provider=spec.name,
                )
            return KeyRoute(named.key, named.source)
        if not (entry.is_home(spec.base_url) and entry.key_env):
            return KeyRoute(
                None,
                notice=f"{spec.name}: no key named for this endpoint; calling it without a key "
                f"({NO_KEY_HINT})",
            )
    if entry.key_env is None:
        return KeyRoute(None)
    own = ring.defaults.get(entry.name)
    if own is None or own.key is None:
        if required:
            raise ProviderConfigError(
                f"{spec.name}: no API key for {entry.endpoint(spec.base_url)}. Set the "
                f"{entry.key_env} environment variable (or use {entry.name}:MODEL@URL for a "
                "compatible server).",
                provider=spec.name,
            )
        return KeyRoute(None, entry.key_env)
    return KeyRoute(own.key, own.source)


def key_notices(specs: Iterable[JudgeSpec], ring: KeyRing) -> list[str]:
    """What a run says before it starts about its judges' keys (each once), checking every
    judge's route (without requiring keys: a run whose calls are all cached needs none).

    Raises:
        ProviderConfigError: as :func:`route_key` (a key that would go over plain http).
    """
    seen: dict[str, str | None] = {}
    for spec in specs:
        if spec.name not in seen:
            seen[spec.name] = route_key(spec, ring, required=False).notice
    return [n for n in seen.values() if n]


@dataclass(frozen=True)
class RunAccess:
    """A run's judges with their endpoints resolved, its keys, and what to say about them."""

    specs: list[JudgeSpec]
    keys: KeyRing
    notices: list[str]


def _key_with_base_url(
    ring: KeyRing, moved: Mapping[str, ProviderEntry], env: Mapping[str, str]
) -> KeyRing:
    """The provider's own key variable named for the URL its base-URL variable moved its
    judges to (``OPENAI_API_KEY`` with ``OPENAI_BASE_URL``), as the SDK would send it; a key
    named for that URL in ``settings.toml`` stays first."""
    endpoints = dict(ring.endpoints)
    for url, entry in moved.items():
        if url in endpoints or entry.key_env is None or not env.get(entry.key_env):
            continue
        endpoints[url] = NamedKey(entry.key_env, "base_url", env[entry.key_env])
    return dataclasses.replace(ring, endpoints=endpoints)


def prepare_access(
    specs: Iterable[JudgeSpec],
    settings: UserSettings,
    key_env: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> RunAccess:
    """Everything a front end (the CLI, the review app) does before a judge run about endpoints
    and keys: resolve each spec's endpoint (:func:`resolve_endpoint`), gather the key ring
    (:func:`gather_keys`), and check every judge's route, collecting the notices to show once.

    Raises:
        SpecError: a base-URL variable holds no valid URL (a usage error).
        ProviderConfigError: ``--key-env`` names an unset variable or is given with no ``@URL``
            judge; a key that would go over plain http to another machine; a key named in
            ``settings.toml`` whose variable is not set.
    """
    env = os.environ if environ is None else environ
    resolved: list[JudgeSpec] = []
    notices: list[str] = []
    moved_by_env: dict[str, ProviderEntry] = {}
    for spec in specs:
        moved, notice = resolve_endpoint(spec, env)
        resolved.append(moved)
        if moved is not spec and moved.base_url is not None:
            moved_by_env[moved.base_url] = entry_for(spec.provider)
        if notice and notice not in notices:
            notices.append(notice)
    if key_env is not None and not any(s.base_url for s in resolved):
        raise ProviderConfigError(
            "--key-env names the key of @URL judges (PROVIDER:MODEL@URL); this run has none"
        )
    keys = gather_keys(settings, key_env, env)
    keys = _key_with_base_url(keys, moved_by_env, env)
    notices += key_notices(resolved, keys)
    return RunAccess(resolved, keys, notices)
