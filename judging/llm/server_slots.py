"""How many calls a self-hosted server works on at once: llama.cpp's ``GET /props``.

llama.cpp's server (``llama-server``) decodes ``total_slots`` sequences at once
(``--parallel``) and queues every request beyond them inside the server. A queued request's
wait counts toward the client's timeout, so at ``--concurrency 8`` the calls a 2-slot server
queues time out and are sent again while the server still works on the first copies: it ends
up doing them twice. So before a run's calls, :func:`server_slots` asks each self-hosted
endpoint's ``GET /props`` once (a short timeout), and the run sends no more of that endpoint's
calls at once than its ``total_slots``; the calls beyond them wait in the run, where no
timeout runs (the per-attempt timeout starts once a call has its slot: :mod:`.retrying`).

Any failure is no answer and the run keeps ``--concurrency``: no server there, a 404 (vLLM,
Ollama), a reply that is not JSON, no positive integer ``total_slots``.

Self-hosted: an endpoint of the OpenAI or Anthropic protocol that is no hosted vendor's own
(those of the registry's entries that take a key: api.openai.com, api.anthropic.com, Gemini,
OpenRouter); ``azure:`` judges never (their API is Azure's deployments, wherever it is). The
in-process ``local:`` server is not asked: its provider knows its slots. ``/props`` is asked
beside the API, at the root the OpenAI SDK's ``…/v1`` sits under, with the key the run's calls
carry to that endpoint (a llama.cpp server started with ``--api-key`` wants it there too; the
placeholder when they carry none).

Several judges on one endpoint share its slots (:func:`~.calls.execute`). The endpoints are
asked all at once, and only when the run has calls to make (not for a dry run, a batch run or
a run whose calls are all cached).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable
from urllib.parse import urlsplit

from medjudge.judging.llm.key_routing import KeyRing, route_key
from medjudge.judging.llm.provider_registry import entries, entry_for
from medjudge.judging.llm.provider_types import PLACEHOLDER_KEY
from medjudge.judging.llm.specs import JudgeSpec

__all__ = ["PROBE_TIMEOUT_S", "endpoint_of", "is_self_hosted", "props_url", "server_slots"]

log = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 3.0
"""The longest ``GET /props`` may take (connecting, answering and reading)."""

MAX_PROPS_BYTES = 1 << 20
"""The most of a ``/props`` reply read (it carries the chat template: a few kilobytes)."""


def endpoint_of(spec: JudgeSpec) -> str | None:
    """The URL a judge's calls go to (``None``: an in-process ``local:`` model)."""
    entry = entry_for(spec.provider)
    if entry.protocol == "local":
        return None
    return entry.endpoint(spec.base_url)


def _hosted(url: str) -> bool:
    """Whether ``url`` is a hosted vendor's own endpoint (see the module)."""
    host = (urlsplit(url).hostname or "").lower()
    for entry in entries():
        if entry.key_env is None:
            continue
        if entry.is_home(url):
            return True
        if entry.base_url and host == (urlsplit(entry.base_url).hostname or "").lower():
            return True
    return False


def is_self_hosted(spec: JudgeSpec) -> bool:
    """Whether a judge's server is asked for its slots (see the module)."""
    url = endpoint_of(spec)
    if url is None or entry_for(spec.provider).home_hosts:  # Azure: its deployments' API
        return False
    return not _hosted(url)


def props_url(spec: JudgeSpec) -> str:
    """Where a judge's server answers ``GET /props``: beside ``/v1``, at its root."""
    url = endpoint_of(spec) or ""
    root = url.rstrip("/").removesuffix("/v1")
    return f"{root}/props"


def slots_of(body: bytes) -> int | None:
    """``total_slots`` of a ``/props`` reply, when it is a positive integer."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    slots = data.get("total_slots") if isinstance(data, dict) else None
    if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
        return None
    return slots


async def _ask(url: str, headers: dict[str, str], timeout: float) -> int | None:
    """``GET url``, its ``total_slots`` (``None`` for anything else)."""
    try:
        import httpx2 as http
    except ImportError:  # an SDK release on plain httpx
        import httpx as http  # type: ignore[no-redef]

    from medjudge.judging.llm.client_spread import shared_tls_context

    try:
        async with (
            http.AsyncClient(
                timeout=timeout, verify=shared_tls_context(), follow_redirects=False
            ) as client,
            client.stream("GET", url, headers=headers) as reply,
        ):
            if reply.status_code != 200:
                return None
            body = b""
            async for chunk in reply.aiter_bytes():
                body += chunk
                if len(body) > MAX_PROPS_BYTES:
                    return None
    except Exception as exc:  # noqa: BLE001 - no answer: the run keeps --concurrency
        log.debug("%s: no slots (%s)", url, type(exc).__name__)
        return None
    return slots_of(body)


def _headers(spec: JudgeSpec, keys: KeyRing) -> dict[str, str] | None:
    """The key the judge's calls carry (the placeholder when they carry none) as a bearer
    token, which llama.cpp's server reads for either protocol (and both SDKs send now);
    ``None``: it may not be sent, so the server is not asked."""
    try:
        key = route_key(spec, keys, required=False).key
    except Exception:  # noqa: BLE001 - the run itself says why; nothing asked here
        return None
    return {"Authorization": f"Bearer {key or PLACEHOLDER_KEY}"}


async def server_slots(
    specs: Iterable[JudgeSpec], keys: KeyRing, timeout: float = PROBE_TIMEOUT_S
) -> dict[str, int]:
    """The slots each self-hosted judge's server reports, by endpoint URL (each asked once, all
    at the same time); servers that report none are left out."""
    asks: dict[str, tuple[str, dict[str, str]]] = {}
    for spec in specs:
        url = endpoint_of(spec)
        if url is None or url in asks or not is_self_hosted(spec):
            continue
        headers = _headers(spec, keys)
        if headers is not None:
            asks[url] = (props_url(spec), headers)
    found = await asyncio.gather(*(_ask(where, h, timeout) for where, h in asks.values()))
    return {url: n for url, n in zip(asks, found, strict=True) if n is not None}


def caps(reported: dict[str, int], concurrency: int) -> dict[str, int]:
    """The endpoints whose slots are fewer than ``concurrency``, each with its slots (what
    the run caps), and the run says so once for each (the judge calls' log: ``-v``)."""
    capped = {url: n for url, n in reported.items() if n < concurrency}
    for note in cap_notes(capped, concurrency):
        log.info("%s", note)
    return capped


def cap_notes(capped: dict[str, int], concurrency: int) -> list[str]:
    """What the run says of each capped endpoint, before its calls."""
    return [
        f"{url}: server reports {n} slots: running {n} calls at a time, not {concurrency}"
        for url, n in capped.items()
    ]
