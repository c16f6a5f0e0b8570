"""The conventions behind every agreement figure, worded once for the CLI, report and README.

Nothing here computes; it states what :mod:`.agreement.two`, :mod:`.agreement.multi`,
:mod:`.classification` and :mod:`.estimates` do, so every output can carry it.
"""

from __future__ import annotations

from medjudge.judging.stats import figures

INTERVAL_METHODS = figures.INTERVAL_METHODS
"""Each figure's one interval method, from :data:`.figures.FIGURES`."""

STATISTICS: list[str] = [
    "Categories: a study criterion's declared label set and order (`settings --categories "
    "CRITERION=A,B,tie`; `agreement --categories` for a file, inferred from the labels only "
    "when not given, and then said so). Undeclared, a criterion counts its kind's labels — a "
    "pairwise criterion A, B and tie, and neither only on a risk criterion — plus any label "
    "raters gave outside them, as each criterion's categories line says. AC1, Bennett's S and "
    "Randolph's κ count these categories; weighted κ uses their positions.",
    "Scales: nominal (percent, Cohen's κ, Gwet's AC1, Bennett's S, α), ordinal (+ weighted κ "
    "linear and quadratic, Spearman, Pearson, ordinal α) or interval (+ ICC(2,1), interval α); "
    "a rating criterion is ordinal unless `settings --scale` says otherwise.",
    "Two raters are compared over the units both labelled: percent agreement p_o, chance "
    "agreement p_e from each rater's own marginals, Cohen's κ, Gwet's AC1, Bennett's S.",
    "Three or more raters: Fleiss' κ overall and per category (units labelled by every rater), "
    "Krippendorff's α, mean pairwise agreement pooled over every pair of labels on the same "
    "unit (each rater pair weighted by the units it shares) and the per-unit mean, Randolph's "
    "free-marginal κ and the share of unanimous units (every unit with at least two labels), "
    "and each rater's agreement with the strict majority of the others. Each figure prints "
    "its own n; they differ because of these definitions.",
    "The reviewers' majority on a unit is the label held by more than half of the reviewers "
    "who labelled it; units without one are left out of majority comparisons. A judge "
    "against that majority is also scored as a classifier: accuracy, precision, recall and "
    "F1 per verdict, with the confusion matrix.",
    "Pairwise criteria are reported with ties and, labelled 'without ties', without the units "
    "where either side said tie (as the long-form medical QA benchmark reports); without "
    "ties, tie is no category either, so the chance agreement of Bennett's S, Gwet's AC1 and "
    "Randolph's κ counts one category fewer.",
    "Intervals (95%), one method per figure everywhere: Wilson for proportions (percent "
    "agreement, agreement with the majority, unanimous share, accuracy, precision, recall); "
    "estimate ± 1.96·SE for Cohen's κ and weighted κ (Fleiss–Cohen–Everitt), Gwet's AC1 and "
    "Fleiss' κ (Gwet's linearisation); the Wilson interval mapped through the formula for "
    "Bennett's S; the McGraw–Wong F interval for ICC(2,1); BCa bootstrap over units (2,000 "
    "resamples, fixed seed) for Krippendorff's α, both pairwise figures, Randolph's κ, Fleiss' "
    "κ per category, F1, Spearman's ρ and Pearson's r (Fisher's z assumes normal data and "
    "under-covers on a few tied categories). A zero-width interval is not "
    "shown; a figure from fewer than 20 units is marked unstable (†).",
]
"""The statistics conventions, one sentence group per topic (report methods section)."""
