"""HALIE files are read by two paths that must agree: the fast one checks a chunk of rows a column
at a time (the distinct values of each column against its property) and takes runs of rows that
continue one another at once; the plain one builds every row object, checks it against the row
schema and tracks sessions row by row. Here the two are compared finding for finding, on every
HALIE test case at several chunk sizes, on mutations of the valid cases, and on files built to
put the run logic on its edges (an attribute changing mid-session, ids out of order or written
as floats, a session resumed later, chunk boundaries inside a session).
"""

from __future__ import annotations

import csv
import io
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from humanjudge_schema import validate
from humanjudge_schema.finding import Finding
from humanjudge_schema.formats.halie import model as halie
from humanjudge_schema.readers.csvcells import RowBuilder
from humanjudge_schema.readers.csvfile import CsvFile
from humanjudge_schema.schemas import validator

from .conftest import CASES, corpus
from .test_fuzz import FUZZ, mutate_csv

FOLDERS = sorted(p for kind in ("valid", "invalid") for p in (CASES / "halie" / kind).iterdir() if p.is_dir())
VALID = sorted(p for p in (CASES / "halie" / "valid").iterdir() if p.is_dir())


def _plain(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read row by row: no checks by column, no runs."""
    monkeypatch.setattr(RowBuilder, "_per_cell", lambda self, schema: ([], None))
    monkeypatch.setattr(halie, "_run_starts", lambda *args: None)


def _both(folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Finding], list[Finding]]:
    fast = validate([folder], kind="halie").findings
    with monkeypatch.context() as m:
        _plain(m)
        plain = validate([folder], kind="halie").findings
    return fast, plain


@pytest.mark.parametrize("size", [1, 2, 3, 1024])
@pytest.mark.parametrize("folder", FOLDERS, ids=[f"{p.parent.name}/{p.name}" for p in FOLDERS])
def test_the_fast_path_finds_what_row_by_row_finds(folder: Path, size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(halie, "_CHUNK", size)
    fast, plain = _both(folder, monkeypatch)
    assert fast == plain


def test_the_fast_path_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above means something only if the fast path runs: chunks of the valid
    cases are decided by column, and sessions are taken a run at a time."""
    by_column: dict[str, bool] = {}
    runs: list[list[int] | None] = []
    decide, find = halie.Chunk.valid, halie._run_starts

    def valid(self: halie.Chunk) -> bool:
        by_column[self.builder.name] = self.builder.by_columns is not None
        return decide(self)

    def starts(*args: object) -> list[int] | None:
        runs.append(find(*args))  # type: ignore[arg-type]
        return runs[-1]

    monkeypatch.setattr(halie.Chunk, "valid", valid)
    monkeypatch.setattr(halie, "_run_starts", starts)
    for folder in VALID:
        assert validate([folder], kind="halie").findings == []
    # every file of every task, but the dialogue survey, whose schema has if/then
    assert len(by_column) == 11
    assert [name for name, yes in by_column.items() if not yes] == ["halie/v1/dialogue/survey-responses"]
    assert any(r is not None and len(r) < 1024 and len(r) > 1 for r in runs)


def _files(folder: Path) -> Iterator[tuple[Path, str]]:
    for f in sorted(folder.glob("*.csv")):
        for task in halie.TASKS:
            name = halie.schema_name(task, f.name)
            if name and (header := halie.read_header(f)) and set(header) <= set(halie.load_schema(name)["properties"]):
                yield f, name
                break


@pytest.mark.parametrize("folder", FOLDERS, ids=[f"{p.parent.name}/{p.name}" for p in FOLDERS])
def test_a_chunk_is_valid_by_column_exactly_when_every_row_is(folder: Path) -> None:
    for path, name in _files(folder):
        csv_file = CsvFile(path)
        rows = [cells for chunk in csv_file.chunks(1024) for _, cells in chunk]
        assert csv_file.header is not None
        builder = RowBuilder(csv_file.header, name)
        for size in (1, 2, 5):
            for k in range(0, len(rows), size):
                chunk = builder.chunk(list(range(k, k + len(rows[k : k + size]))), rows[k : k + size])
                every = all(validator(name).is_valid(row) for _, row in chunk)
                assert chunk.valid() == every, (path, k, size)


@pytest.mark.parametrize("folder", VALID, ids=[p.name for p in VALID])
@FUZZ
@given(data=st.data())
def test_mutations_find_the_same_on_both_paths(
    folder: Path, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    copy = tmp_path_factory.mktemp("halie") / folder.name
    shutil.copytree(folder, copy)
    name = data.draw(st.sampled_from(sorted(p.name for p in copy.glob("*.csv"))))
    rows = list(csv.reader(io.StringIO((copy / name).read_text(encoding="utf-8"), newline="")))
    for _ in range(data.draw(st.integers(1, 3))):
        rows = mutate_csv(data.draw, rows)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    (copy / name).write_text(out.getvalue(), encoding="utf-8")
    with pytest.MonkeyPatch.context() as m:
        m.setattr(halie, "_CHUNK", data.draw(st.sampled_from([1, 2, 4, 1024])))
        fast, plain = _both(copy, m)
    assert fast == plain


# --- runs of rows on their edges -------------------------------------------------------------------


def _crossword(tmp_path: Path, edit: dict[int, dict[str, str]], order: list[int] | None = None) -> Path:
    """The valid crossword case, its event blocks edited: row -> column -> new text, then the
    rows put in `order`."""
    folder = tmp_path / "crossword"
    shutil.copytree(CASES / "halie" / "valid" / "crossword", folder)
    path = folder / "event_blocks.csv"
    header, *rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    for r, cells in edit.items():
        for column, text in cells.items():
            rows[r][header.index(column)] = text
    if order is not None:
        rows = [rows[k] for k in order]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([header, *rows])
    path.write_text(out.getvalue(), encoding="utf-8")
    return folder


def _sessions(folder: Path) -> list[int]:
    """The number of rows of each session of the case's event blocks, in order."""
    path = folder / "event_blocks.csv"
    sids = [row["session_id"] for row in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"), newline=""))]
    out: list[int] = []
    for k, sid in enumerate(sids):
        if k and sid == sids[k - 1]:
            out[-1] += 1
        else:
            out.append(1)
    return out


# edge -> (row -> column -> new text, order of the rows, the findings: code and pointer); the
# case's event blocks are two sessions, of three rows (0-2) and two (3-4)
EDGES: dict[str, tuple[dict[int, dict[str, str]], list[int] | None, set[tuple[str, str]]]] = {
    "an attribute changes in the middle of a session": (
        {1: {"model": "Jumbo"}},
        None,
        {("halie/session-attributes", "/1/model")},
    ),
    "and stays changed to the session's end": (
        {1: {"model": "Jumbo"}, 2: {"model": "Jumbo"}},
        None,
        {("halie/session-attributes", "/1/model"), ("halie/session-attributes", "/2/model")},
    ),
    "an id is skipped": (
        {1: {"order_id": "5", "name": "crossword-05", "query_index": "05"}},
        None,
        {("halie/block-order", "/1/order_id"), ("halie/block-order", "/2/order_id")},
    ),
    "an id written as a float (an integer to JSON Schema)": ({1: {"order_id": "1.0"}}, None, set()),
    "an id that is not a number": ({1: {"order_id": "one"}}, None, {("schema/type", "/1/order_id")}),
    "a session id left empty": (
        {1: {"session_id": ""}},
        None,
        {("schema/required", "/1"), ("halie/block-order", "/2/order_id")},
    ),
    "the rows reversed": ({}, [4, 3, 2, 1, 0], {("halie/block-order", f"/{k}/order_id") for k in range(5)}),
    "a session resumed after another": ({}, [0, 1, 3, 2, 4], set()),
    "a session resumed out of order": ({}, [0, 3, 2, 4, 1], {("halie/block-order", f"/{k}/order_id") for k in (2, 4)}),
}


@pytest.mark.parametrize("size", [1, 2, 3, 1024])
@pytest.mark.parametrize("edge", list(EDGES))
def test_runs_on_their_edges(edge: str, size: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _sessions(CASES / "halie" / "valid" / "crossword") == [3, 2]
    edit, order, expected = EDGES[edge]
    folder = _crossword(tmp_path, edit, order)
    monkeypatch.setattr(halie, "_CHUNK", size)
    fast, plain = _both(folder, monkeypatch)
    assert fast == plain
    assert {(f.code, f.pointer) for f in fast} == expected


def test_the_real_tasks_find_the_same_on_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    data = corpus("halie", "data", "std")
    fast, plain = _both(data, monkeypatch)
    assert fast == plain
    assert len(fast) == 76  # the documented warnings (docs/conformance-study1-halie.md)


def test_block_name_names_each_row_its_own_id(tmp_path: Path) -> None:
    """halie/block-name works on columns; each message names the id of its own row."""
    folder = _crossword(tmp_path, {0: {"name": "crossword-07"}, 4: {"name": "crossword-09", "query_index": "03"}})
    found = sorted((f.pointer, f.message) for f in validate([folder], kind="halie").findings)
    assert found == [
        ("/0/name", "name 'crossword-07', but order_id is 0 (crossword-00)"),
        ("/4/name", "name 'crossword-09', but order_id is 1 (crossword-01)"),
        ("/4/query_index", "query_index '03', but order_id is 1 ('01')"),
    ]
