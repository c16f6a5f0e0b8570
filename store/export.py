"""Exporting a study's tables as JSONL or CSV rows (streamed, any size).

Pairwise values are in the file frame (docs/design.md §2 "Answer-letter frame", :mod:`store.frames`):
``A`` is the import file's ``answer_a``. The ``labels`` table adds, per label:

- ``display_order``: the order the reviewer saw the item's answers in, in file letters, first
  shown first (``AB``, or ``BA`` when answer B was on the left); empty for judges, for labels
  that came in with an import (never shown in the app) and for items that are not pairwise;
- ``note`` and ``note_frame``: the label's note and the frame its letters are in (``file`` /
  ``display``; empty when unknown);
- ``item_note`` and ``item_note_frame``: the rater's note on the whole item (the review app's
  note) and its frame;
- ``meta``: the item's metadata (the import row's extra fields) as a JSON object, or empty.

Every table with an item (``labels``, ``verdicts``, ``calls``, ``adjudications``,
``assignments``) ends with ``retired``: 1 when the item is retired now (``medjudge retire``:
out of every queue and figure, its rows kept), else 0.

The ``assignments`` table lists item, reviewer, batch and how the item was assigned (see
``_QUERIES["assignments"]``).

The ``verdicts`` table names the judge version on every row: ``judge`` (the version's
rater name), ``version`` (its key; empty for a judge recorded before versions and not run
since, or imported with labels), ``judge_spec``, ``judge_params`` and, for panels,
``panel_members``.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from typing import IO

from medjudge import kinds

from .json_types import JsonObject
from .ledger import LEDGER_SQL
from .literal import json_line, spreadsheet_cell
from .study import Study

_SWAPPED = kinds.sql_names(kinds.where("shuffles_answers"))
"""The kinds whose answers a reviewer sees in a per-item order (``display_order``)."""

_RETIRED = (
    "coalesce((SELECT t.retired FROM item_retirements t WHERE t.item_id = i.id "
    "ORDER BY t.id DESC LIMIT 1), 0) AS retired"
)
"""1 when the row's item is retired now (``medjudge retire``), else 0: exports keep a retired
item's rows (nothing is deleted) and say so."""

_QUERIES = {
    "labels": f"""
        SELECT i.ext_id AS item, i.kind, i.batch, u.criterion, s.position AS statement,
               s.category AS statement_category, r.name AS rater, r.kind AS rater_kind,
               l.value, l.note, l.updated_at,
               (SELECT group_concat(a.position || '=' || a.source, ';') FROM answers a
                 WHERE a.item_id = i.id) AS sources,
               coalesce(l.display_order, CASE WHEN i.kind IN {_SWAPPED} AND r.kind = 'human' AND (
                   SELECT h.action FROM label_history h WHERE h.unit_id = l.unit_id
                   AND h.rater_id = l.rater_id ORDER BY h.id DESC LIMIT 1) != 'import'
                 THEN i.shown_order END) AS display_order,
               l.note_frame, n.note AS item_note, n.note_frame AS item_note_frame,
               json_extract(i.data, '$.meta') AS meta, {_RETIRED}
        FROM labels l JOIN units u ON u.id = l.unit_id JOIN items i ON i.id = u.item_id
        JOIN raters r ON r.id = l.rater_id LEFT JOIN statements s ON s.id = u.statement_id
        LEFT JOIN item_notes n ON n.item_id = i.id AND n.rater_id = l.rater_id
        ORDER BY i.id, u.position, r.name""",
    "verdicts": f"""
        SELECT v.id, i.ext_id AS item, i.kind, u.criterion, s.position AS statement,
               r.name AS judge, jv.key AS version, jv.spec AS judge_spec,
               jv.params AS judge_params, jv.members AS panel_members,
               v.value, v.status, v.reason, v.trail, v.run_id, v.created_at,
               v.id IN (SELECT c.id FROM current_verdicts c
                        WHERE c.unit_id = v.unit_id AND c.rater_id = v.rater_id) AS current,
               {_RETIRED}
        FROM verdicts v JOIN units u ON u.id = v.unit_id JOIN items i ON i.id = u.item_id
        JOIN raters r ON r.id = v.rater_id LEFT JOIN statements s ON s.id = u.statement_id
        LEFT JOIN judge_versions jv ON jv.rater_id = v.rater_id
        ORDER BY i.id, u.position, r.name, v.id""",
    "calls": f"""
        SELECT c.key, c.judge, c.provider, c.model, c.template, c.template_hash, c.params,
               i.ext_id AS item, c.task, c.sample, c.status, c.raw, c.parsed, c.error,
               c.input_tokens, c.output_tokens, c.cost_usd, c.latency_s, c.attempts, c.run_id,
               c.created_at, c.messages, {_RETIRED}
        FROM judge_calls c LEFT JOIN items i ON i.id = c.item_id ORDER BY c.created_at, c.key""",
    "history": """
        SELECT * FROM (
            SELECT h.at, h.actor, 'label:' || h.action AS action,
                   i.ext_id || '/' || u.criterion || coalesce('/' || s.position, '') AS entity,
                   r.name AS rater, h.old_value AS old, h.new_value AS new, h.note,
                   h.after_reveal
            FROM label_history h JOIN units u ON u.id = h.unit_id JOIN items i ON i.id = u.item_id
            JOIN raters r ON r.id = h.rater_id LEFT JOIN statements s ON s.id = u.statement_id
            UNION ALL
            SELECT a.at, a.actor, a.action, a.entity, NULL, a.old, a.new, NULL, 0 FROM audit a
        ) ORDER BY at""",
    "adjudications": f"""
        SELECT d.id, i.ext_id AS item, i.kind, u.criterion, s.position AS statement, d.value,
               d.rationale, d.settles, d.actor, d.at,
               d.id = (SELECT max(d2.id) FROM adjudications d2 WHERE d2.unit_id = d.unit_id) AS current,
               {_RETIRED}
        FROM adjudications d JOIN units u ON u.id = d.unit_id JOIN items i ON i.id = u.item_id
        LEFT JOIN statements s ON s.id = u.statement_id ORDER BY d.id""",
}


_QUERIES["ledger"] = LEDGER_SQL
_QUERIES["assignments"] = f"""
    SELECT i.ext_id AS item, i.kind, a.login AS reviewer, a.batch,
           CASE WHEN a.sample_id IS NULL THEN 'manual' ELSE 'sample:' || sm.seed END AS assigned,
           a.sample_id AS sample, sm.inclusion_probability, a.assigned_by, a.at, {_RETIRED}
    FROM assignments a JOIN items i ON i.id = a.item_id
    LEFT JOIN samples sm ON sm.id = a.sample_id
    ORDER BY i.id, a.login"""
"""Who reviews which item, in which batch, and how it was assigned: ``manual`` (``assign``) or
``sample:SEED`` (``assign --sample``: a recorded random sample, its number in ``sample`` and
each frame item's chance to be drawn in ``inclusion_probability``)."""


def rows(study: Study, table: str, *, only_rater: str | None = None) -> Iterator[JsonObject]:
    """Rows of one export table as dicts (``only_rater``: the labels of that rater only — what
    a reviewer may export of a blind study — with the ``sources`` column left empty, since a
    blind reviewer is not told which model wrote which answer).

    Raises:
        KeyError: unknown table.
    """
    cur = study.conn.execute(_QUERIES[table])
    names = [d[0] for d in cur.description]
    for row in cur:
        record = dict(zip(names, row, strict=True))
        if only_rater is None:
            yield record
        elif record.get("rater") == only_rater:
            if "sources" in record:
                record["sources"] = None
            yield record


def write(
    study: Study, table: str, fmt: str, out: IO[str], *, only_rater: str | None = None
) -> int:
    """Write one table as ``jsonl`` or ``csv``; returns the number of rows. A CSV text cell
    never starts a spreadsheet formula (:func:`~medjudge.store.literal.spreadsheet_cell`)."""
    n = 0
    if fmt == "jsonl":
        for row in rows(study, table, only_rater=only_rater):
            for key in (
                "trail",
                "parsed",
                "params",
                "settles",
                "messages",
                "meta",
                "judge_params",
                "panel_members",
            ):
                if isinstance(row.get(key), str):
                    try:
                        row[key] = json.loads(row[key])
                    except json.JSONDecodeError:
                        pass
            out.write(json_line(row))
            n += 1
        return n
    if fmt == "csv":
        it = rows(study, table, only_rater=only_rater)
        writer: csv.DictWriter[str] | None = None
        for row in it:
            if writer is None:
                writer = csv.DictWriter(out, fieldnames=list(row))
                writer.writeheader()
            writer.writerow({k: spreadsheet_cell(v) for k, v in row.items()})
            n += 1
        if writer is None:
            cur = study.conn.execute(_QUERIES[table] + " LIMIT 0")
            csv.writer(out).writerow([d[0] for d in cur.description])
        return n
    raise ValueError(f"unknown format {fmt!r}")
