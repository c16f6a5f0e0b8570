"""irrCAC's full estimate (value, standard error and its own 95% interval), called in the
reference process (tests/support/reference.py) as ``reference(irrcac_interval, ...)``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def irrcac_interval(data: Any, categories: Sequence[Any], method: str) -> dict[str, float]:
    """irrCAC's ``CAC(pandas.DataFrame(data), categories, digits=15)``, its ``method``
    ("gwet", "bp", …): ``value``, ``se``, ``low`` and ``high`` of its interval."""
    import pandas as pd
    from irrCAC.raw import CAC

    est = getattr(CAC(pd.DataFrame(data), categories=list(categories), digits=15), method)()
    low, high = est["est"]["confidence_interval"]
    return {
        "value": float(est["est"]["coefficient_value"]),
        "se": float(est["est"]["se"]),
        "low": float(low),
        "high": float(high),
    }
