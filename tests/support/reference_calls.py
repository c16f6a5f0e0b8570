"""The reference libraries' figures, as the tests ask for them: each function imports its
library inside (so importing this module costs nothing) and returns plain values. They run in
the reference process (tests/support/reference.py), called as ``reference(fn, ...)``; the
inputs are the test's own, built in the test.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

Level = Literal["nominal", "ordinal", "interval"]


def cohen_kappa(a: Sequence[Any], b: Sequence[Any], **kwargs: Any) -> float:
    """scikit-learn's ``cohen_kappa_score(a, b, **kwargs)`` (``weights=``, ``labels=``)."""
    from sklearn.metrics import cohen_kappa_score

    return float(cohen_kappa_score(a, b, **kwargs))


def statsmodels_kappa(table: Any, wt: str | None = None) -> tuple[float, float]:
    """statsmodels' ``cohens_kappa(table, wt=wt)``: (κ, its standard error)."""
    from statsmodels.stats.inter_rater import cohens_kappa

    ref = cohens_kappa(table, wt=wt)
    return float(ref.kappa), float(ref.std_kappa)


def wilson(count: int, nobs: int, alpha: float = 0.05) -> tuple[float, float]:
    """statsmodels' Wilson interval, ``proportion_confint(count, nobs, alpha, "wilson")``."""
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(count, nobs, alpha=alpha, method="wilson")
    return float(low), float(high)


def category_counts(data: Any, n_cat: int | None = None) -> Any:
    """statsmodels' ``aggregate_raters(data, n_cat)``: units × categories counts (an array)."""
    from statsmodels.stats.inter_rater import aggregate_raters

    counts, _ = aggregate_raters(np.asarray(data), n_cat=n_cat)
    return np.asarray(counts)


def fleiss(data: Any, method: str = "fleiss", n_cat: int | None = None) -> float:
    """statsmodels' ``fleiss_kappa`` (``method`` "fleiss" or "randolph") of the units × raters
    labels ``data``, counted by ``aggregate_raters``."""
    from statsmodels.stats.inter_rater import fleiss_kappa

    return float(fleiss_kappa(category_counts(data, n_cat), method=method))


def krippendorff_alpha(data: Any, level: Level) -> float:
    """krippendorff's α of ``data`` (raters × units, NaN for a missing label) at ``level``
    ("nominal", "ordinal" or "interval")."""
    import krippendorff

    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


def krippendorff_alphas(datas: Sequence[Any], level: Level) -> list[float]:
    """:func:`krippendorff_alpha` of each table (a bootstrap's resamples, in one call)."""
    return [krippendorff_alpha(d, level) for d in datas]


def krippendorff_alpha_of_counts(counts: Any, distances: Any) -> float:
    """krippendorff's α of units × values ``counts`` under a custom distance:
    ``distances[i, j]`` between values ``i`` and ``j`` (krippendorff's metric callable)."""
    import krippendorff

    table = np.asarray(distances)

    def metric(v1: Any, v2: Any, i1: Any, i2: Any, n_v: Any, dtype: Any = np.float64) -> Any:
        return table[i1, i2].astype(dtype)

    return float(
        krippendorff.alpha(
            value_counts=counts,
            value_domain=list(range(len(table))),
            level_of_measurement=metric,
        )
    )


def irrcac(
    data: Any, categories: Sequence[Any], method: str, columns: Sequence[str] | None = None
) -> dict[str, float]:
    """irrCAC's ``CAC(pandas.DataFrame(data, columns=columns), categories, digits=15)``, its
    ``method`` ("gwet", "fleiss", "bp", …): the estimate's value and standard error."""
    import pandas as pd
    from irrCAC.raw import CAC

    frame = pd.DataFrame(data, columns=columns)
    est = getattr(CAC(frame, categories=list(categories), digits=15), method)()["est"]
    return {"coefficient_value": float(est["coefficient_value"]), "se": float(est["se"])}


def ols_hc1(y: Any, x: Any, alpha: float = 0.05) -> dict[str, float]:
    """statsmodels' OLS of ``y`` on ``x`` with a constant, HC1 standard errors: the slope, its
    standard error and its ``1 - alpha`` interval."""
    from statsmodels.api import OLS, add_constant

    fit = OLS(y, add_constant(x)).fit(cov_type="HC1")
    low, high = fit.conf_int(alpha=alpha)[1]
    return {
        "slope": float(fit.params[1]),
        "se": float(fit.bse[1]),
        "ci_low": float(low),
        "ci_high": float(high),
    }


_UNSET: Any = object()


def ppi_mean(
    y: Any, yhat: Any, unlabelled: Any, alpha: float = 0.05, lam: Any = _UNSET
) -> tuple[float, float, float]:
    """ppi_py's PPI++ mean: (point estimate, interval low, interval high); ``lam`` as ppi_py
    takes it (None or left out: tuned; a number: fixed)."""
    import ppi_py

    kw = {} if lam is _UNSET else {"lam": lam}
    point = float(np.asarray(ppi_py.ppi_mean_pointestimate(y, yhat, unlabelled, **kw)).item())
    low, high = ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=alpha, **kw)
    return point, float(np.asarray(low).item()), float(np.asarray(high).item())


def confusion(truth: Sequence[Any], guess: Sequence[Any], labels: Sequence[Any]) -> list[list[int]]:
    """scikit-learn's ``confusion_matrix(truth, guess, labels=labels)``."""
    from sklearn.metrics import confusion_matrix

    return [[int(x) for x in row] for row in confusion_matrix(truth, guess, labels=labels)]


def precision_recall_f1(
    truth: Sequence[Any], guess: Sequence[Any], **kwargs: Any
) -> tuple[Any, Any, Any, Any]:
    """scikit-learn's ``precision_recall_fscore_support(truth, guess, **kwargs)``: arrays per
    label, or floats (and None support) with ``average=``."""
    from sklearn.metrics import precision_recall_fscore_support

    p, r, f, s = precision_recall_fscore_support(truth, guess, **kwargs)
    p, r, f, s = (None if x is None else np.asarray(x, dtype=float).tolist() for x in (p, r, f, s))
    return p, r, f, s


def precision_and_recall(
    truth: Sequence[Any], guess: Sequence[Any], **kwargs: Any
) -> tuple[float, float]:
    """scikit-learn's ``precision_score`` and ``recall_score`` with the same ``kwargs``."""
    from sklearn.metrics import precision_score, recall_score

    return float(precision_score(truth, guess, **kwargs)), float(
        recall_score(truth, guess, **kwargs)
    )


def wilson_fractional(count: float, nobs: float, alpha: float = 0.05) -> tuple[float, float]:
    """statsmodels' Wilson interval for a fractional count and sample size (an effective
    sample size), ``proportion_confint(count, nobs, alpha, "wilson")``."""
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(count, nobs, alpha=alpha, method="wilson")
    return float(low), float(high)
