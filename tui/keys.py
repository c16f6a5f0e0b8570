"""The key map of the review app, as shown by the help screen (and the README).

Keep in step with the screens' ``BINDINGS``: a test checks that every bound key appears here.
"""

from __future__ import annotations

from collections.abc import Iterable

from medjudge import kinds


def kind_keys(names: Iterable[str] | None = None) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each item kind's label keys and further keys, under its help title (from the kind); only
    the kinds ``names`` (a study's), in the registry's order, when given."""
    wanted = None if names is None else set(names)
    return [
        (
            kind.help_title or f"{kind.name.capitalize()} items",
            [
                *(
                    kind.help_keys
                    if kind.help_keys is not None
                    else [(k.key, k.help or k.label) for k in kind.keys]
                ),
                *kind.help_extra,
            ],
        )
        for kind in kinds.KINDS.values()
        if wanted is None or kind.name in wanted
    ]


GENERAL: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "After the reveal (your labels saved, the verdicts and others' labels shown)",
        [
            (
                "E",
                "change the label under the cursor: the next label key changes that one "
                "label, recorded as a change after the reveal; other keys never change it",
            ),
            ("escape", "cancel a change armed with E"),
        ],
    ),
    (
        "Moving",
        [
            ("↑ ↓", "previous / next criterion or statement (scroll, in a focused pane)"),
            ("v", "read the whole item full screen (↑ ↓ page up / down scroll; escape returns)"),
            ("] or →", "next item"),
            ("[ or ←", "previous item"),
            ("enter", "the next item — always (on an options row with unsaved ticks: save them)"),
            ("j", "jump to the next item you have not finished"),
            ("g", "go to an item by its id or number"),
            (
                "/",
                "search your items by words of the question, answers and statements; enter "
                "lists the matches, enter on one goes there",
            ),
            (
                "tab / shift+tab",
                "focus the next / previous pane (answers scroll with ↑ ↓ pgup pgdn)",
            ),
            ("pgup pgdn", "a page up / down in the focused pane or list"),
            ("home end", "the top / bottom of the focused pane"),
            ("z", "zoom the focused pane to the full screen (escape to return)"),
            ("x", "show or hide the context documents"),
            (
                "r",
                "answers drawn as Markdown (headings, lists, tables; links as text) or "
                "literally, letter for letter (the default)",
            ),
        ],
    ),
    (
        "Labels and notes",
        [
            ("u or ctrl+z", "undo your last label (repeat to go further back)"),
            ("m", "write a note on this item (enter saves, escape cancels)"),
            ("M", "write a note on this criterion or statement (kept with its label)"),
            ("f", "flag this item to come back to (f again takes the flag off)"),
            ("F", "go to the next flagged item"),
            ("G", "the study's reviewer guidelines (they open by themselves when new)"),
        ],
    ),
    (
        "Study overview (o)",
        [
            ("o", "open the overview: items, reviewers' progress, live agreement"),
            ("enter", "open the selected item, or the agreement detail of the selected criterion"),
            ("J", "run an LLM judge in the background (asks for a judge spec)"),
            ("K", "stop that judge run (calls in flight finish and are kept)"),
            ("A", "open the adjudication queue (adjudicators only)"),
            ("escape", "back to reviewing"),
        ],
    ),
    (
        "Adjudication queue (A on the overview, or medjudge adjudicate STUDY)",
        [
            ("enter", "open the selected disagreement"),
            ("k", "filter by kind of disagreement (cycles: all, each kind present, all)"),
            ("c", "filter by criterion"),
            ("s", "filter by source model"),
            ("r", "filter by reviewer"),
            ("u", "only units without a final label, or all again"),
            ("x", "clear every filter"),
            ("escape", "back to the overview"),
        ],
    ),
    (
        "Adjudication detail (every vote on one unit)",
        [
            ("a b t n", "pairwise final label: answer shown as A, as B, tie, neither"),
            ("e n c", "statements final label: entailed, neutral, contradicted"),
            ("1–5", "rating final label on the criterion's scale"),
            ("a–f, enter", "completeness: tick option letters, enter records them"),
            ("", "each then asks for the rationale (required); revisions are kept"),
            ("] / [", "next / previous unit of the queue"),
            ("tab, z, x", "focus the other pane, zoom it, show or hide context documents"),
            ("escape", "back to the queue"),
        ],
    ),
    (
        "Agreement detail",
        [
            ("[ ]", "previous / next criterion"),
            ("a / b", "next rater on side A / side B"),
            ("v", "next judge version in the columns (each version is its own rater)"),
            ("escape", "back"),
        ],
    ),
    (
        "Anywhere",
        [
            ("?", "this help"),
            ("q or ctrl+q", "quit (every label shown as saved is already on disk)"),
        ],
    ),
]
"""The sections of keys every study has, (key, what it does)."""

KEYMAP: list[tuple[str, list[tuple[str, str]]]] = [*kind_keys(), *GENERAL]
"""Every section of keys, each kind's first: the reference (docs/guide.md, the tests)."""
