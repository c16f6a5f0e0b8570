"""The one list of agreement figures: what each is called, how its interval is computed, on
which scales it applies and where it shows.

Every surface iterates over :data:`FIGURES`: the ``agreement`` command (text and JSON), the
study report (tables, JSON, CSV), the app's agreement detail, and the conventions printed with
each of them. A figure's formula lives with its statistics (:mod:`.agreement`,
:mod:`.classification`); here is everything else about it but its note, once. Adding a
figure is its formula, one entry here, its note in :mod:`.figure_notes` (docs/statistics.md's
table is generated from both) and its reference test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Group = Literal["two", "multi", "per_category", "classification", "sets"]
"""Which computation gives the figure: two raters, three or more, one value per category of
the multi-rater figures, a judge scored as a classifier, or option sets (multi-select)."""

ALL_LEVELS = frozenset({"nominal", "ordinal", "interval"})
ORDERED = frozenset({"ordinal", "interval"})
INTERVAL = frozenset({"interval"})


@dataclass(frozen=True)
class Figure:
    """One agreement figure.

    Attributes:
        key: the field name in every JSON output and in the statistics' result objects.
        label: its name for people (report, CLI, app).
        group: see :data:`Group`.
        interval: its one interval method (:data:`.estimates.METHOD_TEXT` explains each).
        levels: the scales of measurement it is computed on.
        percent: shown as a percentage.
        app: shown in the app's agreement detail (two raters).
    """

    key: str
    label: str
    group: Group
    interval: str
    levels: frozenset[str] = ALL_LEVELS
    percent: bool = False
    app: bool = False
    beside: str | None = None
    """Another convention for the figure of this key, printed beside it (papers use it)."""


FIGURES: tuple[Figure, ...] = (
    Figure("percent", "% agreement", "two", "wilson", percent=True, app=True),
    Figure("cohen", "Cohen's κ", "two", "normal_se", app=True),
    Figure("gwet_ac1", "Gwet's AC1", "two", "normal_se", app=True),
    Figure("bennett_s", "Bennett's S", "two", "wilson_transform", app=True),
    Figure("weighted_kappa_linear", "Weighted κ (linear)", "two", "normal_se", ORDERED, app=True),
    Figure(
        "weighted_kappa_quadratic",
        "Weighted κ (quadratic)",
        "two",
        "normal_se",
        ORDERED,
        app=True,
    ),
    Figure("spearman", "Spearman ρ", "two", "bca_bootstrap", ORDERED, app=True),
    Figure("pearson", "Pearson r", "two", "bca_bootstrap", ORDERED, app=True),
    Figure("icc", "ICC(2,1)", "two", "f_distribution", INTERVAL, app=True),
    Figure("scott_pi", "Scott's π", "two", "normal_se", app=True, beside="cohen"),
    Figure("krippendorff_alpha", "Krippendorff's α", "two", "bca_bootstrap", app=True),
    Figure("fleiss", "Fleiss' κ", "multi", "normal_se"),
    Figure("krippendorff_alpha", "Krippendorff's α", "multi", "bca_bootstrap"),
    Figure("gwet_ac1_all_units", "Gwet's AC1 (all raters, as irrCAC)", "multi", "student_t"),
    Figure(
        "bennett_s_all_units",
        "Bennett's S (Brennan–Prediger; all raters, as irrCAC)",
        "multi",
        "student_t",
    ),
    Figure(
        "mean_pairwise_percent",
        "Mean pairwise % agreement (pooled)",
        "multi",
        "bca_bootstrap",
        percent=True,
    ),
    Figure(
        "per_unit_pairwise_percent",
        "Per-unit pairwise % agreement",
        "multi",
        "bca_bootstrap",
        percent=True,
    ),
    Figure("randolph_kappa", "Randolph's κ (free-marginal)", "multi", "bca_bootstrap"),
    Figure("unanimous_share", "Unanimous units", "multi", "wilson", percent=True),
    Figure("icc", "ICC(2,1)", "multi", "f_distribution", INTERVAL),
    Figure("light_kappa", "Light's κ (mean pairwise Cohen's κ)", "multi", "none", beside="fleiss"),
    Figure(
        "fleiss_all_units",
        "Fleiss' κ over all units (Gwet, as irrCAC)",
        "multi",
        "normal_se",
        beside="fleiss",
    ),
    Figure(
        "mean_pair_percent",
        "Mean over rater pairs of % agreement (unweighted)",
        "multi",
        "none",
        percent=True,
        beside="mean_pairwise_percent",
    ),
    Figure("fleiss_per_category", "Fleiss' κ per category", "per_category", "bca_bootstrap"),
    Figure(
        "vs_majority", "Agreement with the others' majority", "per_category", "wilson", percent=True
    ),
    Figure(
        "vs_majority_own",
        "Agreement with the majority including the rater's own vote",
        "per_category",
        "wilson",
        percent=True,
        beside="vs_majority",
    ),
    Figure("accuracy", "Accuracy", "classification", "wilson", percent=True),
    Figure("precision", "Precision", "classification", "wilson", percent=True),
    Figure("recall", "Recall", "classification", "wilson", percent=True),
    Figure("f1", "F1", "classification", "bca_bootstrap"),
    Figure("macro_f1", "Macro F1", "classification", "bca_bootstrap"),
    Figure(
        "macro_precision",
        "Macro precision",
        "classification",
        "none",
        percent=True,
        beside="macro_f1",
    ),
    Figure(
        "macro_recall", "Macro recall", "classification", "none", percent=True, beside="macro_f1"
    ),
    Figure("masi_alpha", "Krippendorff's α (MASI, option sets)", "sets", "bca_bootstrap"),
)
"""Every figure, in the order the outputs list them."""


def of_group(group: Group, level: str | None = None) -> tuple[Figure, ...]:
    """The figures of one group, in order; with ``level``, those computed on that scale."""
    return tuple(f for f in FIGURES if f.group == group and (level is None or level in f.levels))


def keys(group: Group, level: str | None = None) -> tuple[str, ...]:
    """The keys of :func:`of_group`."""
    return tuple(f.key for f in of_group(group, level))


LABELS: dict[str, str] = {f.key: f.label for f in FIGURES}
"""key → label (a key in two groups has one label)."""

PERCENT: frozenset[str] = frozenset(f.key for f in FIGURES if f.percent)
"""Keys shown as percentages."""

INTERVAL_METHODS: dict[str, str] = {f.key: f.interval for f in FIGURES}
"""Each figure's one interval method (the same in the CLI, the study report and the app)."""
