"""An item read ``paged`` (the review app's way) is the same item as one read at once: the
same statements and units in the same order, by index, slice, negative index and iteration,
and a unit's index found through the units index matches its place in the list."""

from __future__ import annotations

from pathlib import Path

import pytest

from medjudge.store.importing.run import import_file
from medjudge.store.items import get_item, list_items, unit_index
from medjudge.store.paged import PAGE, Paged
from medjudge.store.study import Study

from .support.kind_rows import ROWS, write_jsonl


def _big_statements(n: int) -> dict[str, object]:
    return {
        "id": "big",
        "question": "Q?",
        "answer": "An answer.",
        "source": "m",
        "must_have": [f"S{i + 1} must." for i in range(n // 2)],
        "nice_to_have": [f"S{i + 1} nice." for i in range(n - n // 2)],
    }


def test_a_paged_item_equals_the_item_read_at_once(tmp_path: Path) -> None:
    n = 2 * PAGE + 37  # three pages, the last one partial
    s = Study.create(tmp_path / "s.db", actor="t")
    import_file(s, write_jsonl(tmp_path / "s.jsonl", [_big_statements(n)]), "statements", actor="t")
    (ref,) = list_items(s)
    eager = get_item(s, ref.id)
    paged = get_item(s, ref.id, paged=True)
    assert isinstance(paged.statements, Paged) and isinstance(paged.units, Paged)
    assert len(paged.statements) == len(eager.statements) == n
    assert len(paged.units) == len(eager.units)
    assert paged.statements[0] == eager.statements[0]
    assert paged.statements[PAGE] == eager.statements[PAGE]  # the first row of page 2
    assert paged.statements[-1] == eager.statements[-1]
    assert paged.statements.rows_read == 2 * PAGE + (n - 2 * PAGE)  # pages 1, 2 and 3 only
    assert paged.statements[PAGE - 3 : PAGE + 3] == list(eager.statements[PAGE - 3 : PAGE + 3])
    assert paged.statements[::250] == list(eager.statements[::250])
    with pytest.raises(IndexError):
        paged.statements[n]
    with pytest.raises(IndexError):
        paged.statements[-n - 1]
    assert list(paged.units) == list(eager.units)  # iteration reads every row once
    assert paged.units.rows_read == len(eager.units)
    assert paged == eager  # the dataclass compares the sequences by content
    for i in (0, 1, PAGE - 1, PAGE, n - 1):
        unit = eager.units[i]
        assert unit_index(s, ref.id, unit.id) == i
    assert unit_index(s, ref.id, 10**9) is None
    for i in (0, PAGE + 1, n - 1):  # a statement's index from its position, both ways read
        position = eager.statements[i].position
        assert paged.statement_index(position) == eager.statement_index(position) == i
    assert paged.statement_index(-5) is None and paged.statement_index(None) is None
    s.close()


@pytest.mark.parametrize("kind", sorted(ROWS))
def test_every_kind_reads_the_same_paged(tmp_path: Path, kind: str) -> None:
    s = Study.create(tmp_path / "s.db", actor="t")
    import_file(
        s, write_jsonl(tmp_path / "s.jsonl", [ROWS[kind](i) for i in range(3)]), kind, actor="t"
    )
    for ref in list_items(s):
        eager, paged = get_item(s, ref.id), get_item(s, ref.id, paged=True)
        assert list(paged.statements) == list(eager.statements)
        assert [paged.units[i] for i in range(len(paged.units))] == list(eager.units)
        for i, unit in enumerate(eager.units):
            assert unit_index(s, ref.id, unit.id) == i
    s.close()
