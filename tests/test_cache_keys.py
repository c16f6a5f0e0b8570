"""The per-prompt key shortcut (``sample_keys``) gives exactly :func:`cache_key`'s keys.

A key that changed would make every stored call look new: a re-run would pay again for all of
it. So the shortcut is compared with the reference on arbitrary text, specs and parameters.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from medjudge.judging.llm.specs import parse_judge_spec
from medjudge.judging.protocol.plan import JudgeConfig, cache_key, call_params, sample_keys

SPECS = [
    "openai:gpt-4o",
    "openai:llama3@http://127.0.0.1:8000/v1",
    "anthropic:claude-3-5-sonnet-20241022",
    "local:smollm2",
]


@settings(max_examples=150, deadline=None)
@given(
    spec=st.sampled_from(SPECS),
    system=st.text(),
    user=st.text(),
    samples=st.integers(1, 5),
    temperature=st.floats(0.0, 2.0),
    max_tokens=st.integers(16, 4000),
    schema=st.sampled_from(
        [None, {"type": "object", "properties": {"verdict": {"enum": ["A", "B"]}}}]
    ),
    template_hash=st.text(alphabet='0123456789abcdef"\\é', min_size=1, max_size=16),
)
def test_sample_keys_equal_cache_key(
    spec: str,
    system: str,
    user: str,
    samples: int,
    temperature: float,
    max_tokens: int,
    schema: dict[str, Any] | None,
    template_hash: str,
) -> None:
    judge = JudgeConfig(
        parse_judge_spec(spec), samples=samples, temperature=temperature, max_tokens=max_tokens
    )
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    expected = [
        cache_key(judge.spec, call_params(judge, s, schema), template_hash, messages, s)
        for s in range(samples)
    ]
    assert sample_keys(judge.spec, judge, schema, template_hash, messages) == expected
