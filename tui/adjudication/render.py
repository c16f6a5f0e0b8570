"""What the adjudication queue and detail show, as literal Rich text.

Pure functions over :mod:`judging.disagreements` results (no Textual). Every string that comes
from the study — item text, reviewer and judge names, notes, reasons, raw model replies,
rationales — goes through :func:`render.lit`, so markup stays as typed and escape sequences
are made visible.

Pairwise values are shown in the file frame throughout (docs/design.md §2 "Answer-letter frame",
:mod:`store.frames`): ``A`` is the import file's ``answer_a``, as in the store, the CLI and the
exports, whatever order a reviewer saw; answers are listed in file order and labelled so, with
their sources (the adjudicator may see them). Judges' AB and BA votes are stored in the same
frame (BA already mapped back) and shown as stored. Only reviewers' free-text notes may speak
in display letters; those written so say which answer their ``A`` was.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Group
from rich.padding import Padding
from rich.text import Text

from medjudge import kinds
from medjudge.judging.analysis.disagreements import (
    AdjudicationEntry,
    Disagreement,
    FailedSample,
    JudgeVote,
    UnitDetail,
)
from medjudge.kinds import review_facet
from medjudge.store.frames import DISPLAY, FILE, is_reordered, shown_order
from medjudge.store.frames import frame_hint as letters_hint
from medjudge.store.items import Item
from medjudge.store.json_types import JsonObject
from medjudge.tui.render import EMPTY, lit, shown_part

KIND_LABELS = {
    "reviewer_vs_reviewer": "R↔R",
    "reviewer_vs_judge": "R↔J",
    "judge_vs_judge": "J↔J",
    "position_inconsistency": "AB≠BA",
    "samples_disagreed": "samples",
    "failed_samples": "failed",
}
"""Short names of the disagreement kinds (the queue's column and counts; R reviewer, J judge)."""

KIND_NAMES = {
    "reviewer_vs_reviewer": "reviewer vs reviewer",
    "reviewer_vs_judge": "reviewer vs judge",
    "judge_vs_judge": "judge vs judge",
    "position_inconsistency": "judge AB vs BA",
    "samples_disagreed": "judge samples disagreed",
    "failed_samples": "failed judge samples",
}
"""Long names of the disagreement kinds (detail header, filter line)."""


def shown(value: object) -> str:
    """A stored value as shown (pairwise A/B in the file frame, as stored)."""
    if value is None:
        return EMPTY
    if isinstance(value, list):
        return ",".join(str(v) for v in value) or "-"
    return str(value)


def frame_hint(item: Item, frame: str | None, order: str | None = None) -> str:
    """What a reviewer's free text means by A and B, when that differs from the file frame.

    Values are converted; notes cannot be, so one written on the review screen of a swapped
    item (``display``: its "A" is the answer shown first, the file's B) says so, as does one
    written before frames were recorded (NULL). ``order`` is the order the writer saw the
    answers in (``AB``/``BA``, recorded with the note); None: the item's own order.
    """
    if order is None:
        order = shown_order(item) if is_reordered(item) else None
    if not order or order == "".join(sorted(order)) or frame == FILE:
        return ""
    first = "answer_" + order[0].lower()
    if frame == DISPLAY:
        return f"  (in display letters: its A = {first})"
    return f"  (frame not recorded: its A may mean {first})"


def kinds_text(kinds: list[str]) -> str:
    """A unit's kinds, short."""
    return " ".join(KIND_LABELS.get(k, k) for k in kinds)


def votes_summary(entry: Disagreement) -> str:
    """``A×2 B×1`` — how many raters gave each value (missing verdicts counted apart)."""
    tally = Counter(shown(v) for v in entry.votes.values() if v is not None)
    parts = [f"{value}×{n}" for value, n in sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))]
    missing = sum(1 for v in entry.votes.values() if v is None)
    if missing:
        parts.append(f"missing×{missing}")
    return "  ".join(parts)


def counts_text(counts: dict[str, int], selected: str | None) -> Text:
    """Units per kind; the kind filtered on is marked."""
    out = Text(end="")
    for n, (kind, count) in enumerate(counts.items()):
        if n:
            out.append(" · ", "dim")
        style = "bold reverse" if kind == selected else ("" if count else "dim")
        out.append(f"{KIND_LABELS.get(kind, kind)} {count}", style)
    out.append("   (R reviewer, J judge)", "dim")
    return out


# -- the detail: the item as reviewers saw it ------------------------------------------------


def _heading(out: Text, title: str) -> None:
    if out.plain:
        out.append("\n\n")
    out.append(title, "bold underline")
    out.append("\n")


def sources_text(item: Item, *, order_per_reviewer: bool = False) -> Text:
    """Which model wrote which answer — hidden from reviewers, shown to the adjudicator — and,
    for a pairwise item, which answer reviewers saw first."""
    out = Text("Sources (hidden from reviewers): ", style="dim italic", end="")
    if kinds.get(item.kind).shuffles_answers:
        for n, slot in enumerate(item.slots):
            out.append(("" if n == 0 else ", ") + f"{slot} = ", "dim")
            out.append_text(lit(item.answers[slot].source))
        if order_per_reviewer:
            out.append(f"   ({letters_hint(item.kind)}; each reviewer saw their own order)", "dim")
        else:
            first = (shown_order(item) or item.slots)[:1]
            out.append(f"   ({letters_hint(item.kind)}; reviewers saw {first} first)", "dim")
    else:
        out.append_text(lit(", ".join(sorted({a.source for a in item.answers.values()}))))
    return out


STATEMENTS_AROUND = 50
"""Statements shown before and after the current one in the adjudication detail."""


def item_text(item: Item, statement: int | None, *, order_per_reviewer: bool = False) -> Text:
    """Question, answers (file order), the listed entries with their badges; ``statement``
    highlighted (``order_per_reviewer``: each reviewer saw their own answer order,
    ``settings --order``)."""
    out = Text(end="")
    out.append_text(sources_text(item, order_per_reviewer=order_per_reviewer))
    kind = kinds.get(item.kind)
    facet = review_facet.facet(item.kind)
    for pane in facet.file_panes(item):
        _heading(out, pane.title)
        out.append_text(shown_part(pane.text))
    if not item.statements:
        return out
    _heading(out, kind.listed_title)
    # The entries around the current one (an item may have 100,000 of them).
    at = item.statement_index(statement) or 0
    first = max(0, at - STATEMENTS_AROUND)
    last = min(len(item.statements), at + STATEMENTS_AROUND + 1)
    plural = kind.listed_title.lower()
    if first:
        out.append(f"… {first:,} {plural} above\n", "dim")
    for n, st in enumerate(item.statements[first:last], start=first):
        if n > first:
            out.append("\n")
        out.append_text(facet.listed_line(item, st, n + 1, st.position == statement))
    if last < len(item.statements):
        out.append(f"\n… {len(item.statements) - last:,} {plural} below", "dim")
    return out


# -- the detail: every vote --------------------------------------------------------------------


def _values(item: Item, values: list[Any] | None) -> str:
    return " ".join(shown(v) for v in values or []) or "none"


class Lines:
    """Lines with a hanging indent: a long reason or raw reply wraps under its own start."""

    def __init__(self) -> None:
        """No lines yet."""
        self.rows: list[tuple[int, Text]] = []

    def add(self, indent: int, *parts: Text | str, style: str = "") -> Text:
        """One line from literal pieces (``str`` pieces are our own words, in ``style``)."""
        line = Text()
        for part in parts:
            if isinstance(part, Text):
                line.append_text(part)
            else:
                line.append(part, style)
        self.rows.append((indent, line))
        return line

    def blank(self) -> None:
        """An empty line."""
        self.rows.append((0, Text()))

    def render(self) -> Group:
        """The lines, each indented as a block."""
        return Group(*(Padding(t, (0, 0, 0, i)) if i else t for i, t in self.rows))

    @property
    def plain(self) -> str:
        """The text without styles (for tests and searching)."""
        return "\n".join(" " * i + t.plain for i, t in self.rows)


def _failed(out: Lines, failed: list[JsonObject], raw: dict[str, FailedSample], pad: int) -> None:
    for f in failed:
        stored = raw.get(str(f.get("key")))
        error = (stored["error"] if stored else None) or f.get("error") or "no error recorded"
        out.add(pad, Text(f"✗ failed sample {f.get('sample', '?')}: ", "bold"), lit(error))
        reply = stored["raw"] if stored else None
        if reply is None:
            out.add(pad + 2, "no reply stored", style="dim")
        else:
            out.add(pad + 2, "raw reply (untrusted model output, shown literally):", style="dim")
            out.add(pad + 4, lit(reply, "italic"))


def _samples(
    out: Lines, item: Item, block: JsonObject, raw: dict[str, FailedSample], pad: int
) -> None:
    votes = block.get("votes") or []
    reasons = block.get("reasons") or []
    line = out.add(pad, "votes: ", lit(_values(item, votes), "bold"))
    if block.get("verdict") is not None or block.get("rule"):
        line.append(" → ")
        line.append_text(lit(shown(block.get("verdict")), "bold"))
    if block.get("rule"):
        line.append("  (", "dim")
        line.append_text(lit(block["rule"], "dim"))
        line.append(")", "dim")
    for n, reason in enumerate(reasons, 1):
        vote = shown(votes[n - 1]) if n - 1 < len(votes) else "?"
        out.add(pad + 2, f"{n}. ", lit(vote, "bold"), " ", lit(reason))
    _failed(out, block.get("failed") or [], raw, pad)


def judge_lines(out: Lines, item: Item, judge: JudgeVote) -> None:
    """One judge's resolved verdict, its per-order samples and reasons, failed raw replies."""
    value = judge.get("value")
    out.add(
        0,
        "• ",
        lit(judge["judge"], "bold"),
        ": ",
        lit(shown(value), "bold") if value is not None else lit("missing (no valid sample)"),
    )
    got = judge.get("trail")
    trail: JsonObject = got if isinstance(got, dict) else {}
    raw = judge.get("failed_raw") or {}
    if trail.get("members"):
        members = ", ".join(f"{k}={shown(v)}" for k, v in trail["members"].items())
        out.add(4, "panel of: ", lit(members))
    orders = trail.get("orders")
    if isinstance(orders, dict) and orders:
        for order, block in orders.items():
            if not isinstance(block, dict):
                continue
            first = order[0]  # file letters: BA shows the item's answer B as Response A
            line = out.add(4, Text(f"{order} order ", "bold"))
            if order == "".join(sorted(order)):
                line.append(f"(the judge's Response A: Answer {first})", "dim")
            else:
                moved = "swapped" if len(order) == 2 else "rotated"
                line.append(f"({moved}, Response A: Answer {first}; votes mapped back)", "dim")
                if block.get("shown_votes"):
                    written = " ".join(str(v) for v in block["shown_votes"])
                    out.add(6, "judge wrote (Response letters): ", lit(written, "dim"), style="dim")
            _samples(out, item, block, raw, 6)
        if trail.get("position_inconsistent"):
            out.add(4, "position-inconsistent: " + " ≠ ".join(orders), style="bold")
    elif trail.get("votes") is not None or trail.get("failed"):
        _samples(out, item, trail, raw, 4)
    elif judge.get("reason"):
        out.add(4, Text("reason: ", "dim"), lit(judge["reason"]))


def votes_lines(item: Item, detail: UnitDetail) -> Lines:
    """Every reviewer's label (notes, changes after the reveal), every judge's verdict, and the
    adjudication history."""
    out = Lines()
    line = out.add(0, "Reviewers", style="bold underline")
    if kinds.get(item.kind).shuffles_answers:
        line.append(f"  ({letters_hint(item.kind)})", "dim")
    if not detail["reviewers"]:
        out.add(2, "none", style="dim")
    for r in detail["reviewers"]:
        line = out.add(0, "• ", lit(r["reviewer"], "bold"), ": ", lit(shown(r["value"]), "bold"))
        if r.get("changed_after_reveal"):
            line.append("  ⚑ changed after the reveal", "bold")
        seen = r.get("display_order")
        if seen and seen != shown_order(item):  # settings --order per-reviewer
            line.append(f"  (saw {seen[0]} first)", "dim")
        if r.get("note"):
            note = out.add(4, Text("note: ", "dim"), lit(r["note"]))
            note.append(frame_hint(item, r.get("note_frame"), r.get("display_order")), "dim italic")
        if r.get("item_note"):
            note = out.add(4, Text("note on the item: ", "dim"), lit(r["item_note"]))
            note.append(
                frame_hint(item, r.get("item_note_frame"), r.get("item_note_display_order")),
                "dim italic",
            )
    out.blank()
    line = out.add(0, "Judges", style="bold underline")
    if kinds.get(item.kind).shuffles_answers:
        line.append(f"  ({letters_hint(item.kind)})", "dim")
    if not detail["judges"]:
        out.add(2, "none", style="dim")
    for j in detail["judges"]:
        judge_lines(out, item, j)
    out.blank()
    history_lines(out, item, detail["adjudications"])
    return out


def votes_text(item: Item, detail: UnitDetail) -> Group:
    """:func:`votes_lines`, rendered."""
    return votes_lines(item, detail).render()


def history_lines(out: Lines, item: Item, adjudications: list[AdjudicationEntry]) -> None:
    """The adjudications of a unit, oldest first; the last is the final label."""
    out.add(0, "Adjudication history", style="bold underline")
    if not adjudications:
        out.add(2, "no final label yet", style="dim")
    for n, a in enumerate(adjudications):
        last = n == len(adjudications) - 1
        line = out.add(
            0,
            "• " if last else "  ",
            lit(shown(a["value"]), "bold"),
            "  ",
            lit(str(a["at"])[:19].replace("T", " ") + "Z", "dim"),
            Text("  by ", "dim"),
            lit(a["actor"]),
        )
        line.append("  (current)" if last else "  (revised later)", "bold" if last else "dim")
        why = out.add(4, lit(a["rationale"]))
        why.append(frame_hint(item, a.get("rationale_frame")), "dim italic")
        if a.get("settles"):
            settles = ", ".join(KIND_NAMES.get(k, k) for k in a["settles"])
            out.add(4, Text("settles: ", "dim"), lit(settles, "dim"))
