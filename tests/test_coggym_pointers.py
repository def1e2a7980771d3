"""The statistics' pass over a CogGym experiment asks for no pointers (`view.Needs`): its
individual judgments and its stored means come without theirs, every other column as it is; a
pass read up to its first judgment by judgments.views goes on for the needs it was begun for."""

from __future__ import annotations

from pathlib import Path

import pytest

from humanjudge_schema.formats.coggym import judgments as coggym_view
from humanjudge_schema.judgments import Dataset, datasets, units, views
from humanjudge_schema.judgments.view import Needs

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
        bare = [t for b in view.in_batches(Needs(pointer=False)) for t in b.tuples()]
        assert bare == _bare(rows)
        assert rows == [tuple(r) for r in view.rows()]  # a pass's needs are its own


def test_the_first_pass_goes_on_for_the_needs_it_was_begun_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """views() reads a dataset up to its first judgment for the needs it is given: the next pass
    with those needs goes on from there (the batches read are handed on, not read again); a pass
    with other needs reads the files anew."""
    monkeypatch.setattr(coggym_view, "_BATCH", 1)  # a batch per stimulus
    unit = Dataset(units([FOLDERS[0]], kind="coggym")[0][0], lambda *_: None)
    bare = Needs(pointer=False)
    (full,) = datasets([FOLDERS[0]], kind="coggym")
    every = [list(b.tuples()) for b in full.in_batches()]
    assert len(every) > 2 and every[0][0][8]
    (view,) = views([unit], needs=lambda _: bare)
    calls = []
    monkeypatch.setattr(coggym_view, "_all_batches", lambda *a: calls.append(a) or iter(()))
    assert [list(b.tuples()) for b in view.in_batches(bare)] == [_bare(b) for b in every]
    assert calls == []  # handed on: the files were not read again
    assert list(view.in_batches(bare)) == [] and len(calls) == 1  # a second pass reads anew
    monkeypatch.undo()
    monkeypatch.setattr(coggym_view, "_BATCH", 1)
    (view,) = views([unit], needs=lambda _: bare)
    assert [list(b.tuples()) for b in view.in_batches()] == every  # other needs: read anew, whole
