"""Prices per million tokens, for cost estimates and the ``--max-cost`` guard.

Prices change; these are list prices in USD per 1M tokens as published by the providers when
this table was written (used for the registry entries whose prices are ``list``), and ``--price IN,OUT`` on ``medjudge judge`` overrides them. Local and
self-hosted models cost nothing here. Calls sent through the providers' batch APIs cost
:data:`BATCH_DISCOUNT` of the list price (both OpenAI and Anthropic halve it). An unknown hosted model is priced at zero and said so,
so the guard is never silently wrong about a model it does not know.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from medjudge.judging.llm.provider_registry import entry_for
from medjudge.judging.llm.specs import JudgeSpec

PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4-turbo": (10.00, 30.00),
    "o3-mini": (1.10, 4.40),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
    "claude-3-opus": (15.00, 75.00),
    "claude-3-haiku": (0.25, 1.25),
}


BATCH_DISCOUNT = 0.5
"""Share of the list price paid for a call sent through a batch API (OpenAI Batch, Anthropic
Message Batches: 50 % off input and output tokens). A ``--price`` override is a list price too."""


@dataclass(frozen=True)
class Price:
    """USD per 1M input and output tokens; ``known`` is False for a guessed zero."""

    input_per_m: float
    output_per_m: float
    known: bool = True

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


def price_for(spec: JudgeSpec, override: tuple[float, float] | None = None) -> Price:
    """The price of a judge model: ``override``; else where its registry entry's prices come
    from, at the provider's own endpoint (``list``: the longest matching prefix of the model
    name in :data:`PRICES`); any other endpoint is self-hosted and free."""
    if override is not None:
        return Price(*override)
    entry = entry_for(spec.provider)
    if entry.prices == "free" or not entry.is_home(spec.base_url):
        return Price(0.0, 0.0)
    if entry.prices == "list":
        for name in sorted(PRICES, key=len, reverse=True):
            if spec.model.startswith(name):
                return Price(*PRICES[name])
    return Price(0.0, 0.0, known=False)


def estimate_tokens(text: str) -> int:
    """A rough token count (about four characters per token in English)."""
    return max(1, len(text) // 4)
