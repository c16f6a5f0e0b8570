"""What the fuzz tests share (tests/test_fuzz_import.py, tests/test_fuzz_replies.py): the
hypothesis profile — derandomised (CI sees the same cases), no example database, no deadline
(a loaded machine is slow, never wrong) — and the hostile values and JSON strategy."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from medjudge.store.importing.problems import MAX_TEXT

FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
        HealthCheck.large_base_example,
    ],
)


def fuzz(examples: int) -> settings:
    """The shared profile with a number of examples sized to keep the file under a minute."""
    return settings(FUZZ, max_examples=examples)


BIG_INT = "1" * 5000  # Python's int() refuses more than 4300 digits

DEEP = "[" * 5000 + "]" * 5000
HOSTILE = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\ud800",
    "x\udfffy",
    "\x1b[2J",
    "\u202e",
    "\r\n",
    "\r",
    "[",
    "{",
    '["a", ',
    '["\\ud800"]',
    '{"A": ',
    '["one", "two"]',
    '{"A": "x", "B": "y"}',
    "@@BIGINT@@",
    "[@@BIGINT@@]",
    "@@DEEP@@",
    "-",
    "A",
    "tie",
    "entailed",
    "²",
    "1e400",
    "NaN",
    "x" * (MAX_TEXT + 1),
    "must_have",
    "human:dr:correctness",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(HOSTILE),
)
json_values = st.recursive(
    scalars,
    lambda kids: (
        st.lists(kids, max_size=3)
        | st.dictionaries(
            st.text(max_size=6)
            | st.sampled_from(
                ["rater", "criterion", "value", "statement", "type", "text", "category", "A", "B"]
            ),
            kids,
            max_size=3,
        )
    ),
    max_leaves=6,
)
