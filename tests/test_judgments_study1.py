"""The study-1 judgments view: one row per task and rating of study1_tasks.jsonl.gz. The rows per
question equal a count made here with gzip and json; every row's value is the one at its line
and pointer; rows point where findings point; broken files give their readable rows and no
exception; rows are read lazily, anew by each call, in bounded memory."""

from __future__ import annotations

import gzip
import json
import tracemalloc
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import catalog, validate
from humanjudge_schema.judgments.view import Judgment, Judgments
from humanjudge_schema.kinds import survey
from humanjudge_schema.readers.files import display_path

from .conftest import CASES, ROOT, corpus

TASKS = "study1_tasks.jsonl.gz"
EXAMPLES = ROOT / "examples" / "study1"
RATINGS = (
    "query_answerable",
    "query_controversial",
    "worker_knowledge",
    "worker_expertise",
    "worker_satisfaction",
    "references_quality",
    "references_extra",
    "references_omission",
)
WORKER = "5a3455b7-2b53-5002-bede-253b2c26b582"


def _view(folder: Path) -> Judgments:
    unit = survey([folder]).units[0]
    view = catalog.get(unit.family).view(unit)
    assert isinstance(view, Judgments)
    return view


def _folder(name: str) -> Path:
    """A study-1 folder: a bundled example, or the corpus (skipped when it is absent)."""
    return corpus("study1", "raw") if name == "corpus" else EXAMPLES / name


def _lines(path: Path) -> list[bytes]:
    return gzip.decompress(path.read_bytes()).split(b"\n")


def _counts(path: Path) -> Counter[str]:
    """Rows per question, counted from the file: every rating key of every record that is an
    object with a string topic and worker, null values included."""
    counts: Counter[str] = Counter()
    for raw in _lines(path):
        if not raw.strip():
            continue
        record = json.loads(raw)
        if isinstance(record, dict) and isinstance(record.get("topic"), str) and isinstance(record.get("worker"), str):
            counts.update(name for name in RATINGS if name in record)
    return counts


def _task(topic: str, worker: str = WORKER, **ratings: Any) -> bytes:
    record: dict[str, Any] = {"response": "41099caa-0d8a-5c07-ae18-b41a8567db38", "worker": worker, "topic": topic}
    record["style"] = "essay"
    record.update(dict.fromkeys(RATINGS, 1.0))
    record.update(ratings)
    return json.dumps(record).encode() + b"\n"


def _placed(row: Judgment) -> tuple[Any, ...]:
    """A row but for the paths of its dataset and file."""
    return row.item, row.rater, row.question, row.option, row.value, row.pointer, row.line


def _write(folder: Path, data: bytes) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / TASKS
    path.write_bytes(gzip.compress(data))
    return path


@pytest.mark.parametrize("name", ["valid", "broken", "corpus"])
def test_rows_per_question_equal_a_count_of_the_file(name: str) -> None:
    folder = _folder(name)
    rows = list(_view(folder).rows())
    expected = _counts(folder / TASKS)
    assert Counter(r.question for r in rows) == expected
    assert sum(expected.values()) > 0


@pytest.mark.parametrize("name", ["valid", "broken", "corpus"])
def test_every_value_is_the_one_at_its_line_and_pointer(name: str) -> None:
    folder = _folder(name)
    lines = _lines(folder / TASKS)
    records = [n for n, raw in enumerate(lines, 1) if raw.strip()]  # record index -> its line
    for row in _view(folder).rows():
        _, index, field = row.pointer.split("/")
        assert row.line == records[int(index)]
        record = json.loads(lines[row.line - 1])
        assert field == row.question
        assert (row.item, row.rater, row.option) == (record["topic"], record["worker"], "")
        # as in the file: 1.0 stays a float, null is None
        assert row.value == record[field] and type(row.value) is type(record[field])
        assert (row.format, row.file, row.dataset) == ("study1", display_path(folder / TASKS), display_path(folder))


def test_questions_are_the_eight_ratings_all_ordinal() -> None:
    view = _view(EXAMPLES / "valid")
    assert list(view.questions) == list(RATINGS)
    assert {q.level for q in view.questions.values()} == {"ordinal"}
    assert (view.format, view.dataset) == ("study1", display_path(EXAMPLES / "valid"))


def test_known_rows_of_the_corpus() -> None:
    folder = corpus("study1", "raw")
    view = _view(folder)
    file, dataset = display_path(folder / TASKS), display_path(folder)
    rows = {r.pointer: r for r in view.rows()}
    assert len(rows) == 903 * 8
    first = Judgment(
        "study1",
        dataset,
        "2024-105741",
        "76074975-c49a-36df-8fbc-c6f0d9f3bb97",
        "query_answerable",
        "",
        0.0,
        file,
        "/0/query_answerable",
        1,
        "individual",
        "person",
    )
    assert rows["/0/query_answerable"] == first
    # line 16: a task whose eight ratings are null, each still a row
    nulls = [rows[f"/15/{name}"] for name in RATINGS]
    assert {(r.item, r.rater, r.value, r.line) for r in nulls} == {
        ("2024-113646", "94fac56b-d0d3-3baf-acc5-92911e34e070", None, 16)
    }
    # lines 67 and 69: one worker wrote two of the topic's three tasks, and answered differently
    twice = [rows[f"/{i}/query_answerable"] for i in (66, 67, 68)]
    assert [(str(r.rater)[:8], r.value) for r in twice] == [("76074975", 1.0), ("ef9ffb3c", 1.0), ("76074975", 0.0)]
    assert len({r.item for r in twice}) == 1


def test_rows_point_where_findings_point() -> None:
    folder = CASES / "study1" / "invalid" / "schema-tasks-scale-above-five"
    [finding] = [f for f in validate([folder]).findings if f.file.endswith(TASKS)]
    [row] = [r for r in _view(folder).rows() if r.pointer == finding.pointer]
    assert (row.file, row.line, row.value) == (finding.file, finding.line, 7.0)  # out of scale, still a judgment


def test_records_that_cannot_be_placed_are_left_out(tmp_path: Path) -> None:
    data = [
        _task("2024-1", worker_knowledge=3.0),
        b"{not json\n",
        b'["an", "array"]\n',
        _task("2024-1", worker=None),  # type: ignore[arg-type]
        b"\n",
        json.dumps({"topic": 7, "worker": WORKER, "query_answerable": 1.0}).encode() + b"\n",
        json.dumps({"topic": "2024-2", "worker": WORKER, "references_extra": None}).encode() + b"\n",
    ]
    _write(tmp_path, b"".join(data))
    rows = list(_view(tmp_path).rows())
    assert [(r.pointer, r.line, r.value) for r in rows if r.question == "worker_knowledge"] == [
        ("/0/worker_knowledge", 1, 3.0)
    ]
    # the blank line is no record: the last one is index 5, on line 7; the ratings it lacks are no rows
    assert list(map(_placed, rows[8:])) == [("2024-2", WORKER, "references_extra", "", None, "/5/references_extra", 7)]
    assert len(rows) == 9


def test_a_truncated_file_gives_the_records_before_the_cut(tmp_path: Path) -> None:
    records = [_task(f"2024-{k}", worker_expertise=float(k % 5 + 1)) for k in range(6)]
    whole = list(_view(_write(tmp_path / "whole", b"".join(records)).parent).rows())
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    head = packer.compress(b"".join(records[:4])) + packer.flush(zlib.Z_SYNC_FLUSH)
    tail = packer.compress(b"".join(records[4:])) + packer.flush()
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / TASKS).write_bytes(head + tail[:2])  # too little of the fifth record to read a line of it
    rows = list(_view(cut).rows())
    assert list(map(_placed, rows)) == list(map(_placed, whole[: 4 * 8]))


@pytest.mark.parametrize("data", [b"", b"not gzip at all\n", gzip.compress(b"")], ids=["empty", "not-gzip", "no-lines"])
def test_an_unreadable_file_gives_no_rows(tmp_path: Path, data: bytes) -> None:
    (tmp_path / TASKS).write_bytes(data)
    view = _view(tmp_path)
    assert list(view.rows()) == []
    assert list(view.questions) == list(RATINGS)


def test_rows_are_read_lazily_and_anew(tmp_path: Path) -> None:
    path = _write(tmp_path, _task("2024-1"))
    view = _view(tmp_path)
    rows = view.rows()
    assert isinstance(rows, Iterator)
    first = list(view.rows())
    assert first == list(view.rows())
    assert [r.item for r in first] == ["2024-1"] * 8
    path.write_bytes(gzip.compress(_task("2024-2") + _task("2024-3")))  # after rows() was called
    assert [r.item for r in rows] == ["2024-2"] * 8 + ["2024-3"] * 8
    path.unlink()
    assert list(view.rows()) == []


def _peak(folder: Path, records: int) -> tuple[int, int]:
    """(bytes decompressed, peak bytes allocated while counting the rows) of a tasks file."""
    data = b"".join(_task(f"2024-{k}", worker_knowledge=float(k % 5 + 1)) for k in range(records))
    folder.mkdir()
    (folder / TASKS).write_bytes(gzip.compress(data, 1))
    view = _view(folder)
    tracemalloc.start()
    try:
        assert sum(1 for _ in view.rows()) == records * 8
        return len(data), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_rows_are_streamed_in_bounded_memory(tmp_path: Path) -> None:
    _, small = _peak(tmp_path / "small", 10_000)
    size, large = _peak(tmp_path / "large", 40_000)
    assert large < small * 1.5, (small, large)  # four times the records, about the same memory
    assert large < size / 2, (large, size)


def test_the_view_is_declared_in_the_catalog() -> None:
    assert catalog.get("study1").judgments == "humanjudge_schema.formats.study1.judgments:judgments"
