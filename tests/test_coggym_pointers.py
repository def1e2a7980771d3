"""The statistics' pass over a CogGym experiment asks for no pointers (Judgments.without): its
individual judgments and its stored means come without theirs, every other column as it is,
and a pass begun before it asked (judgments.views reads a dataset up to its first judgment)
leaves them out from its next batch on."""

from __future__ import annotations

from pathlib import Path

import pytest

from humanjudge_schema.formats.coggym import judgments as coggym_view
from humanjudge_schema.judgments import datasets

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = [ROOT / "examples" / "coggym" / "valid", ROOT / "examples" / "coggym" / "broken"]


def _bare(rows: list[tuple]) -> list[tuple]:
    return [(*r[:8], "", *r[9:]) for r in rows]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_a_pass_without_pointers_leaves_out_only_theirs(folder: Path) -> None:
    views = list(datasets([folder], kind="coggym"))
    assert views
    for view in views:
        rows = [tuple(r) for r in view.rows()]
        assert any(r[10] == "individual" and r[8] for r in rows)
        assert any(r[10] == "aggregate" and r[8] for r in rows)
        with view.without("pointer"):
            bare = [tuple(r) for r in view.rows()]
        assert view.needs == {} and rows == [tuple(r) for r in view.rows()]
        assert bare == _bare(rows)


def test_a_pass_begun_before_leaves_them_out_from_its_next_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(coggym_view, "_BATCH", 1)  # a batch per stimulus
    (view,) = datasets([FOLDERS[0]], kind="coggym")
    batches = [list(b.tuples()) for b in view.in_batches()]
    assert len(batches) > 2
    begun = view.in_batches()
    first = list(next(begun).tuples())
    with view.without("pointer"):
        rest = [list(b.tuples()) for b in begun]
    assert first == batches[0] and first[0][8]
    assert rest == [_bare(b) for b in batches[1:]]
