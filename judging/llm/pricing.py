"""Prices per million tokens, for cost estimates and the ``--max-cost`` guard.

A price is known or said to be unknown, never guessed:

- ``--price IN,OUT`` on ``medjudge judge`` gives every judge of the run a price;
- a provider's own API (an entry of :data:`~.provider_registry.REGISTRY` whose prices are
  ``list``) is priced from :file:`prices.json`, the one maintained table of list prices, with
  the date its figures were checked: the model's own name, or its name plus a snapshot suffix
  (``-2024-08-06``, ``-20250514``, ``-latest``, ``-0``);
- a local model server is free: the ``local:`` models, and ``vllm:`` / ``ollama:`` on this
  machine or a private network (loopback, 10/8, 172.16/12, 192.168/16, link-local, IPv6
  unique-local); any other server there is free too unless its model is one the table lists
  (a hosted model's name behind ``@http://127.0.0.1:4000`` is a gateway such as LiteLLM, not a
  local model): it is priced as that model (issue #47);
- anything else — a hosted ``@URL`` endpoint, a model the table does not list, a provider
  without a table — is **unknown**: the dry run says so before anything is sent, and
  ``--max-cost`` refuses to start (a limit cannot hold on a price it does not know).

Calls sent through the providers' batch APIs cost :data:`BATCH_DISCOUNT` of the list price
(both OpenAI and Anthropic halve it).
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import math
import re
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from medjudge.judging.llm.key_routing import is_private_host
from medjudge.judging.llm.provider_registry import entry_for
from medjudge.judging.llm.provider_types import ProviderConfigError
from medjudge.judging.llm.specs import JudgeSpec

BATCH_DISCOUNT = 0.5
"""Share of the list price paid for a call sent through a batch API (OpenAI Batch, Anthropic
Message Batches: 50 % off input and output tokens). A ``--price`` override is a list price too."""

PRICE_HINT = "--price IN,OUT (USD per million input and output tokens)"
"""How messages say that a price can be given."""

_SNAPSHOT = re.compile(r"(?:-\d{4}-\d{2}-\d{2}|-\d{8}|@\d{8}|-latest|-0)$")
"""A model snapshot's suffix: the model it belongs to has the same price."""


@dataclass(frozen=True)
class PriceTable:
    """The list prices of :file:`prices.json`: per provider, per model, (input, output)."""

    date: str
    prices: dict[str, dict[str, tuple[float, float]]]

    def lookup(self, provider: str, model: str) -> tuple[float, float] | None:
        """A model's list price: its own name, else its name without a snapshot suffix."""
        table = self.prices.get(provider, {})
        if model in table:
            return table[model]
        base = _SNAPSHOT.sub("", model)
        return table.get(base)


@functools.cache
def price_table() -> PriceTable:
    """The table shipped with medjudge (read once)."""
    text = (importlib.resources.files(__package__) / "prices.json").read_text(encoding="utf-8")
    data = json.loads(text)
    prices = {
        provider: {model: (float(p[0]), float(p[1])) for model, p in models.items()}
        for provider, models in data["prices"].items()
    }
    return PriceTable(str(data["date"]), prices)


@dataclass(frozen=True)
class Price:
    """USD per 1M input and output tokens; ``known`` is False when nobody gave a price (the
    cost is then counted as 0 and ``why`` says what is missing)."""

    input_per_m: float
    output_per_m: float
    known: bool = True
    why: str = ""
    rule: str = ""
    """Which rule priced it, for ``--dry-run`` (see the module)."""

    @classmethod
    def unknown(cls, why: str) -> Price:
        """No price: counted as $0, and said so."""
        return cls(0.0, 0.0, known=False, why=why, rule=f"unknown: {why}")

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """The cost of one call in USD."""
        return (input_tokens * self.input_per_m + output_tokens * self.output_per_m) / 1_000_000

    def batch(self) -> Price:
        """The price of the same call through a batch API."""
        return replace(
            self,
            input_per_m=self.input_per_m * BATCH_DISCOUNT,
            output_per_m=self.output_per_m * BATCH_DISCOUNT,
        )


FREE = Price(0.0, 0.0, rule="free: a local model server")


def is_private_endpoint(url: str | None) -> bool:
    """Whether ``url`` names a server on this machine or on a private network
    (:func:`~medjudge.judging.llm.key_routing.is_private_host`: a host name is never)."""
    return bool(url) and is_private_host(urlsplit(url or "").hostname)


def price_for(spec: JudgeSpec, override: tuple[float, float] | None = None) -> Price:
    """The price of a judge model (see the module's rules).

    Args:
        spec: The judge's spec (its ``@URL`` resolved).
        override: ``--price IN,OUT``, for every judge of the run.
    """
    if override is not None:
        return Price(*override, rule="--price")
    entry = entry_for(spec.provider)
    if entry.protocol == "local":
        return FREE
    table = price_table()
    if entry.is_home(spec.base_url):
        if entry.prices == "free":
            return FREE
        if entry.prices == "list":
            found = table.lookup(entry.name, spec.model)
            if found is not None:
                return Price(*found, rule=f"list price (prices.json of {table.date})")
            return Price.unknown(f"{spec.model} is not in medjudge's price table of {table.date}")
        return Price.unknown(f"medjudge keeps no prices for {entry.name}")
    endpoint = entry.endpoint(spec.base_url)
    if is_private_endpoint(endpoint):
        if entry.prices == "free":  # vllm:, ollama: on another private host
            return FREE
        listed = _listed_anywhere(table, entry.name, spec.model)
        if listed is not None:  # a gateway (LiteLLM...) serving a hosted model: not free
            return Price(
                *listed,
                rule=f"list price of {spec.model} (prices.json of {table.date}): a hosted "
                "model's name on a server on this machine or a private network, priced as "
                "the hosted model (a gateway); --price 0,0 if it is a local model",
            )
        return replace(
            FREE,
            rule="free: a server on this machine or a private network, serving a model no "
            "price list names",
        )
    return Price.unknown(f"{endpoint} is not on this machine or a private network")


def _listed_anywhere(table: PriceTable, provider: str, model: str) -> tuple[float, float] | None:
    """A model's list price under ``provider``, else under any provider of the table (a
    gateway may serve Claude through OpenAI's API)."""
    found = table.lookup(provider, model)
    if found is not None:
        return found
    return next(
        (p for name in sorted(table.prices) if (p := table.lookup(name, model)) is not None),
        None,
    )


def unknown_notes(prices: dict[str, Price]) -> list[str]:
    """One line per judge without a price: which, and why."""
    return [
        f"no price known for {name} ({p.why})" for name, p in sorted(prices.items()) if not p.known
    ]


class UnknownPriceError(ProviderConfigError):
    """``--max-cost`` was asked of a run whose price is unknown: refused before anything is
    sent or written."""


def check_max_cost(prices: dict[str, Price], max_cost: float | None) -> None:
    """Refuse a cost limit that cannot hold: some judge's price is unknown.

    Raises:
        UnknownPriceError: naming the judges, why, and ``--price``.
    """
    if max_cost is None:
        return
    notes = unknown_notes(prices)
    if notes:
        raise UnknownPriceError(
            f"--max-cost {max_cost:g} cannot be kept: {'; '.join(notes)}. Give the price with "
            f"{PRICE_HINT}; nothing was sent"
        )


def estimate_tokens(text: str) -> int:
    """A rough token count (about four characters per token in English)."""
    return max(1, len(text) // 4)


def estimate_reply_tokens(max_tokens: int, criteria: int) -> int:
    """The dry run's estimate of a reply's length: 60 tokens per criterion and 40 more, at
    most ``max_tokens``."""
    return min(max_tokens, 60 * criteria + 40)


def unreported_usage(prompt: str, reply: str, max_tokens: int, criteria: int) -> tuple[int, int]:
    """The tokens a call is counted at when its server reported no usable figures (left out,
    negative, not numbers: :func:`~.provider_types.read_usage`): the dry run's estimate of its
    prompt and of its reply (the reply's own length when that is longer). Its cost at these
    counts goes into the spend and toward ``--max-cost``, which would otherwise not hold."""
    return estimate_tokens(prompt), max(
        estimate_reply_tokens(max_tokens, criteria), estimate_tokens(reply)
    )


MAX_PRICE_PER_M = 1000.0
"""The highest ``--price`` taken, in USD per million tokens (list prices of hosted models are
below $200; a figure above this is a typo, e.g. a price per thousand tokens)."""


def check_price(text: str, price: tuple[float, float]) -> None:
    """Refuse a ``--price`` that is no price: negative, not a number, infinite or above
    :data:`MAX_PRICE_PER_M`.

    Raises:
        ValueError: naming ``--price`` and the bounds.
    """
    if not all(math.isfinite(x) and 0 <= x <= MAX_PRICE_PER_M for x in price):
        raise ValueError(
            f"--price {text!r}: prices are finite numbers of USD per million tokens from 0 "
            f"to {MAX_PRICE_PER_M:,.0f}, e.g. 2.5,10"
        )
