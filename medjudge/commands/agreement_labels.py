"""``medjudge agreement``'s reading of its options against the labels: the declared
categories (given, or a study criterion's), the tie label, and option sets as binary units."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import UserError

if TYPE_CHECKING:  # the statistics (numpy, scipy) load only when the command runs
    from collections.abc import Hashable

    from medjudge.judging.stats.agreement.core import Estimate
    from medjudge.judging.stats.label_file import LabelTable


def read_categories(text: str | None, scale: str) -> tuple[list[Any] | None, bool]:
    """Parse ``--categories`` → (declared categories, labels are numbers).

    Each category is read as the file's labels will be (:func:`read_label`): numbers on an
    interval scale, and on an ordinal one when every category is a number; else text.
    """
    from medjudge.judging.stats.label_file import read_label

    if text is None:
        return None, scale != "nominal"
    cats = [c.strip() for c in text.split(",")]
    if any(not c for c in cats):
        raise UserError("--categories: an empty category (two commas in a row?)")
    if scale == "nominal":
        return [read_label(c, numeric=False) for c in cats], False
    numbers = []
    for c in cats:
        try:
            numbers.append(read_label(c, numeric=True))
        except ValueError:
            if scale == "interval":
                raise UserError(
                    f"--categories: an interval scale needs finite numbers, e.g. 1,2,3,4,5 "
                    f"(not {c!r})"
                ) from None
            return [read_label(c, numeric=False) for c in cats], False
    return numbers, True


def study_categories(path: Path, criterion: str) -> tuple[str | None, str, str]:
    """``--study S --criterion C`` → (C's categories as ``--categories`` text, C's scale, where
    they come from)."""
    from .common import opened

    with opened(path) as s:
        try:
            crit = s.settings.criterion(criterion)
        except KeyError:
            names = ", ".join(c.name for c in s.settings.criteria)
            raise UserError(f"--criterion {criterion!r}: not in {path} ({names})") from None
    counted = crit.counted_categories()
    how = "declared" if crit.categories is not None else "default"
    text = ",".join(counted) if counted is not None else None
    return text, crit.level, f"the {how} categories of {criterion} in {path}"


def read_tie(text: str | None, table: LabelTable, numeric: bool) -> Hashable | None:
    """``--tie`` read as the file's labels are; a label no rater gave is an error."""
    from medjudge.judging.stats.label_file import option_label, table_label

    if text is None:
        return None
    try:
        tie = table_label(table, option_label("--tie", text, numeric))
    except ValueError as exc:
        raise UserError(str(exc)) from None
    seen = table.labels()
    if tie not in seen:
        kind = "text" if isinstance(tie, str) else "number"
        have = ", ".join(sorted(map(str, seen))[:12]) + (", …" if len(seen) > 12 else "")
        raise UserError(
            f"--tie {text!r}: no rater gave the label {tie!r} ({kind}) in {table.path} "
            f"(its labels: {have or 'none'})"
        )
    return tie


def option_units(
    table: LabelTable, options: list[Any] | None, n_boot: int, seed: int
) -> tuple[LabelTable, Estimate]:
    """``--sets``: each declared option of each unit as a binary unit (its option as the
    slice), and MASI α of the sets as wholes."""
    from medjudge.judging.stats.agreement.sets import OptionUnits, masi_alpha_estimate, parse_ticks
    from medjudge.judging.stats.label_file import LabelTable

    if not options:
        raise UserError("--sets needs the options: --categories A,B,C,D")
    letters = [str(o) for o in options]
    parsed = []
    for rater, column in zip(table.raters, table.columns, strict=True):
        sets = [parse_ticks(None if v is None else str(v).replace(" ", "")) for v in column]
        for i, s in enumerate(sets):
            stray = sorted((s or frozenset()) - set(letters))
            if stray:
                raise UserError(
                    f"{table.path}: row {i + 1}, rater {rater!r}: option "
                    f"{', '.join(stray)} is not one of --categories {','.join(letters)}"
                )
        parsed.append(sets)
    expand = OptionUnits.of([letters] * table.n_units)
    units = LabelTable(
        table.path,
        table.raters,
        [expand.column(c) for c in table.columns],
        expand.spread(table.groups) if table.groups else expand.letters(),
    )
    return units, masi_alpha_estimate(parsed, n_boot=n_boot, seed=seed)
