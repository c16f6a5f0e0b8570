"""Random physician samples: drawn, recorded and assigned in one transaction.

``medjudge assign STUDY REVIEWER… --sample N --seed S`` draws a uniform random sample of N
items from its *frame*: the items the command's filters select (kind, batch, first N) that no
earlier sample holds. The draw is ``random.Random(seed).sample(frame, N)`` over the frame's
item ids in import order, so the same study, filters and seed give the same sample; the
sample's item ids are recorded anyway (``sample_items``), with the seed, the frame (its item
ids and size), N, the inclusion probability N / frame size, the filters and the batch
(migration ``011_samples``). Samples are append-only: the statistics rely on them.

Drawing again from the items not yet sampled (a second ``--sample``) extends the first: when
both frames come from the same item set, the two samples together are one uniform random sample
of it (the report checks this before it uses them, see ``judging.analysis.audit``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import NamedTuple

from .assignments import insert_assignments, reviewer_logins
from .db import StudyError
from .json_types import JsonObject
from .roles import require
from .study import Study, audit, dumps, utcnow


class SampleError(StudyError):
    """A sample that cannot be drawn (e.g. more items asked for than the frame holds)."""


class Sample(NamedTuple):
    """A recorded sample.

    Attributes:
        id: its number in the study (1, 2, … in the order drawn).
        seed: the random seed of the draw.
        frame: the item ids it was drawn from, in import order.
        items: the item ids drawn, in the order drawn.
        inclusion_probability: each frame item's chance to be drawn (``size / frame size``).
        filters: the filters that selected the frame (``kind``, ``batch``, ``first``).
        batch: the assignment batch it was assigned as.
        drawn_by: who drew it.
        at: when (UTC).
    """

    id: int
    seed: int
    frame: tuple[int, ...]
    items: tuple[int, ...]
    inclusion_probability: float
    filters: JsonObject
    batch: str | None
    drawn_by: str
    at: str

    @property
    def size(self) -> int:
        """The number of items drawn."""
        return len(self.items)


def recorded_samples(study: Study) -> list[Sample]:
    """Every recorded sample, in the order drawn."""
    drawn: dict[int, list[int]] = {}
    for sample_id, item_id in study.conn.execute(
        "SELECT sample_id, item_id FROM sample_items ORDER BY sample_id, draw"
    ):
        drawn.setdefault(int(sample_id), []).append(int(item_id))
    out = []
    for row in study.conn.execute(
        "SELECT id, seed, frame, inclusion_probability, filters, batch, drawn_by, at "
        "FROM samples ORDER BY id"
    ):
        frame = json.loads(row["frame"])
        filters = json.loads(row["filters"])
        out.append(
            Sample(
                id=int(row["id"]),
                seed=int(row["seed"]),
                frame=tuple(int(i) for i in frame),
                items=tuple(drawn.get(int(row["id"]), ())),
                inclusion_probability=float(row["inclusion_probability"]),
                filters=filters if isinstance(filters, dict) else {},
                batch=row["batch"],
                drawn_by=row["drawn_by"],
                at=row["at"],
            )
        )
    return out


def new_seed() -> int:
    """A seed for a draw that was given none (recorded with the sample, so it can be repeated)."""
    return random.SystemRandom().randrange(1, 2**31)


def draw_sample(
    study: Study,
    logins: Sequence[str],
    candidates: Sequence[int],
    size: int,
    seed: int,
    *,
    by: str,
    batch: str | None = None,
    overlap: int | None = None,
    filters: JsonObject | None = None,
) -> tuple[Sample, dict[str, int]]:
    """Draw a uniform random sample of ``size`` items, record it and assign it.

    Args:
        study: the open study.
        logins: the reviewers the sample is assigned to.
        candidates: the items the command's filters select, in import order; the frame is
            those that no earlier sample holds.
        size: how many to draw (N).
        seed: the random seed.
        by: who draws (must be a lead).
        batch: the assignment batch name.
        overlap: reviewers per item (default: every reviewer gets every sampled item).
        filters: the filters, recorded with the sample.

    Returns:
        The recorded sample and, per reviewer, how many items were newly assigned.

    Raises:
        SampleError: ``size`` is not positive or larger than the frame.
    """
    require(study, by, "assign")
    reviewers = reviewer_logins(logins)
    k = len(reviewers) if overlap is None else max(1, min(overlap, len(reviewers)))
    with study.tx() as conn:  # the frame is read in the transaction that records the draw
        taken = {r[0] for r in conn.execute("SELECT item_id FROM sample_items")}
        frame = [i for i in dict.fromkeys(candidates) if i not in taken]
        if size < 1:
            raise SampleError(f"--sample {size}: draw at least one item")
        if size > len(frame):
            earlier = len(set(candidates) & taken)
            raise SampleError(
                f"--sample {size}: only {len(frame):,} item(s) are left to sample "
                f"({len(set(candidates)):,} match the filters, {earlier:,} of them already in "
                "an earlier sample)"
            )
        drawn = random.Random(seed).sample(frame, size)
        now = utcnow()
        cur = conn.execute(
            "INSERT INTO samples (seed, frame_size, size, inclusion_probability, frame, filters, batch, drawn_by, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                seed,
                len(frame),
                size,
                size / len(frame),
                dumps(frame),
                dumps(filters or {}),
                batch,
                by,
                now,
            ),
        )
        sample_id = int(cur.lastrowid or 0)
        conn.executemany(
            "INSERT INTO sample_items (sample_id, item_id, draw) VALUES (?, ?, ?)",
            [(sample_id, item, i) for i, item in enumerate(drawn, start=1)],
        )
        added = insert_assignments(
            conn, reviewers, sorted(drawn), by=by, batch=batch, overlap=k, sample_id=sample_id
        )
        audit(
            conn,
            by,
            "sample",
            f"sample:{sample_id}",
            None,
            dumps(
                {
                    "seed": seed,
                    "frame_size": len(frame),
                    "size": size,
                    "reviewers": reviewers,
                    "overlap": k,
                    "batch": batch,
                    "filters": filters or {},
                }
            ),
        )
    sample = Sample(
        sample_id,
        seed,
        tuple(frame),
        tuple(drawn),
        size / len(frame),
        filters or {},
        batch,
        by,
        now,
    )
    return sample, added
