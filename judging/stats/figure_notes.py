"""What each agreement figure of :data:`.figures.FIGURES` means, for people: its definition
and the units it is computed over (its n).

The figures table of ``docs/statistics.md`` is generated from :data:`.figures.FIGURES` and
these notes by ``scripts/gen_docs.py`` (label, raters, scales and interval method from the
figure, the two texts from here); a figure without a note, or a note without a figure, fails
its ``--check`` and ``tests/test_docs_registries.py``.
"""

from __future__ import annotations

from medjudge.judging.stats.figures import Group

BOTH = "both labelled"
ALL = "labelled by every rater"
TWO_LABELS = "≥ 2 labels"
ANY_LABEL = "≥ 1 label (agreement from ≥ 2)"
PAIRS = "each pair's units"
JUDGED = "units with a majority and a verdict"

NOTES: dict[tuple[Group, str], tuple[str, str]] = {
    ("two", "percent"): ("p_o over units both labelled", BOTH),
    ("two", "cohen"): (
        "(p_o − p_e)/(1 − p_e), p_e from each rater's marginals (printed as pₑ); SE of "
        "Fleiss–Cohen–Everitt (statsmodels' `std_kappa`)",
        BOTH,
    ),
    ("two", "gwet_ac1"): ("Q = the declared categories; SE of Gwet 2008 (irrCAC)", BOTH),
    ("two", "bennett_s"): ("(p_o − 1/q)/(1 − 1/q), q declared categories", BOTH),
    ("two", "weighted_kappa_linear"): (
        "linear weights on the declared scale positions (sklearn `labels=`); SE of statsmodels",
        BOTH,
    ),
    ("two", "weighted_kappa_quadratic"): (
        "quadratic weights on the declared scale positions; SE of statsmodels",
        BOTH,
    ),
    ("two", "spearman"): (
        "rank correlation; bootstrap, as Fisher's z under-covers on tied scales (82–85 % on "
        "three categories)",
        BOTH,
    ),
    ("two", "pearson"): ("linear correlation of the scale values; bootstrap as Spearman's", BOTH),
    ("two", "icc"): (
        "two-way random, absolute agreement, single rater (Shrout & Fleiss)",
        ALL,
    ),
    ("two", "scott_pi"): (
        "chance from the pooled marginals; = Fleiss' κ for two raters; SE by Gwet's "
        "linearisation (irrCAC)",
        BOTH,
    ),
    ("two", "krippendorff_alpha"): ("α at the criterion's scale", BOTH),
    ("multi", "fleiss"): ("Fleiss 1971; SE by Gwet's linearisation (irrCAC)", ALL),
    ("multi", "krippendorff_alpha"): ("nominal, ordinal or interval metric", TWO_LABELS),
    ("multi", "gwet_ac1_all_units"): (
        "irrCAC `gwet`: p_e = Σ_k π_k(1 − π_k)/(q − 1), q declared categories; t on n − 1 df",
        ANY_LABEL,
    ),
    ("multi", "bennett_s_all_units"): (
        "irrCAC `bp`: (p_a − 1/q)/(1 − 1/q), q declared categories; t on n − 1 df",
        ANY_LABEL,
    ),
    ("multi", "mean_pairwise_percent"): (
        "pooled over every pair of labels on a unit: each rater pair weighs by the units it shares",
        TWO_LABELS,
    ),
    ("multi", "per_unit_pairwise_percent"): (
        "mean over units of the share of agreeing label pairs",
        TWO_LABELS,
    ),
    ("multi", "randolph_kappa"): ("(per-unit agreement − 1/q)/(1 − 1/q)", TWO_LABELS),
    ("multi", "unanimous_share"): ("units whose labels are all equal", TWO_LABELS),
    ("multi", "icc"): ("two-way random, absolute agreement, single rater (Shrout & Fleiss)", ALL),
    ("multi", "light_kappa"): (
        "mean of the pairwise Cohen's κ (Light 1971); each pair's κ has its own interval",
        PAIRS,
    ),
    ("multi", "fleiss_all_units"): (
        "Gwet's generalisation to missing labels (irrCAC `fleiss`)",
        ANY_LABEL,
    ),
    ("multi", "mean_pair_percent"): ("unweighted mean of each pair's percent agreement", PAIRS),
    ("per_category", "fleiss_per_category"): (
        "Fleiss' κ of one category against the others",
        ALL,
    ),
    ("per_category", "vs_majority"): (
        "a rater's label against the strict majority of the others",
        "that rater's units where the others hold a majority",
    ),
    ("per_category", "vs_majority_own"): (
        "a rater's label against the strict majority of all raters, its own vote included "
        "(inflated: a rater always agrees with itself)",
        "that rater's units with a majority",
    ),
    ("classification", "accuracy"): ("share of units where the verdict is the majority", JUDGED),
    ("classification", "precision"): (
        "per verdict: of the units the judge gave it, the share where the majority did",
        JUDGED,
    ),
    ("classification", "recall"): (
        "per verdict: of the units the majority gave it, the share where the judge did",
        JUDGED,
    ),
    ("classification", "f1"): ("per verdict: harmonic mean of precision and recall", JUDGED),
    ("classification", "macro_f1"): ("mean of the F1 over the reference's labels", JUDGED),
    ("classification", "macro_precision"): (
        "mean over the reference's labels (0 where the judge never gave one, scikit-learn "
        "`zero_division=0`)",
        JUDGED,
    ),
    ("classification", "macro_recall"): ("mean over the reference's labels", JUDGED),
    ("sets", "masi_alpha"): (
        "multi-select labels as sets: α with the MASI distance (Passonneau 2006)",
        "items with ≥ 2 labels",
    ),
}
"""(group, key) → (definition, units): one note per figure of :data:`.figures.FIGURES`."""

GROUP_TEXT: dict[Group, str] = {
    "two": "two raters",
    "multi": "three or more raters",
    "per_category": "three or more, per category",
    "classification": "judge vs reviewers' majority",
    "sets": "option sets (multi-select)",
}
"""How each :data:`.figures.Group` is named in the docs."""
