"""readers/csvtable.py, the CSV table reader any CSV format reads its files with, on a toy row
schema: a required column the header lacks and a column the schema does not have are each
reported once, at the header, under the codes the caller names (a required argument), and no row
says the required column is absent; other schema errors of a row are reported with its pointer,
and the rows are handed over a chunk at a time with their validity."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from humanjudge_schema import schemas
from humanjudge_schema.engine import schema_errors
from humanjudge_schema.readers.csvfile import CsvFile
from humanjudge_schema.readers.csvtable import Columns, Header, chunks, compare
from humanjudge_schema.readers.files import Problem

SCHEMA = "toytable/v1/rows"
COLUMNS = Columns(
    missing="toy/missing-column",
    unknown="toy/unknown-column",
    missing_message=lambda column, schema: f"no {column} in {schema}",
    unknown_message=lambda column, schema: f"{column} is not in {schema}",
)
_ROW_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "item": {"type": "string"},
        "rater": {"type": "string"},
        "rating": {"type": "integer", "minimum": 1, "maximum": 5},
    },
    "required": ["item", "rater", "rating"],
    "additionalProperties": False,
}


@pytest.fixture(autouse=True, scope="module")
def _toy_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The toy row schema, found by name as a format's schemas are."""
    path = tmp_path_factory.mktemp("schemas") / "rows.schema.json"
    path.write_text(json.dumps(_ROW_SCHEMA), encoding="utf-8")
    found = schemas.schema_path
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(schemas, "schema_path", lambda name: path if name == SCHEMA else found(name))
        yield


def _read(
    path: Path, size: int = 2, report: bool = True
) -> tuple[list[Header], list[Problem], list[list[bool] | None]]:
    headers: list[Header] = []
    reported: list[Problem] = []
    valid = []
    for chunk, ok in chunks(
        CsvFile(path), SCHEMA, size, schema_errors, reported.append if report else None, headers.append, columns=COLUMNS
    ):
        valid.append(ok)
        assert len(chunk.indices) <= size
    return headers, reported, valid


def test_a_missing_and_an_unknown_column_are_each_reported_once_at_the_header(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    rows = [f"i{k},{1 + k % 5},seen" for k in range(5)]
    path.write_text("item,rating,note\n" + "\n".join(rows) + "\n", encoding="utf-8")
    headers, reported, valid = _read(path)
    assert headers == [Header(["item", "rating", "note"], 1, ["note"], ["rater"])]
    # every row lacks "rater" and has a "note": neither is a row's finding, both are the header's
    assert reported == [
        Problem("toy/missing-column", f"no rater in {SCHEMA}", "", 1),
        Problem("toy/unknown-column", f"note is not in {SCHEMA}", "", 1, 13),
    ]
    assert len(valid) == 3  # five rows, two at a time


def test_a_second_reading_reports_nothing(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("item,rating,note\ni,9,x\n", encoding="utf-8")
    headers, reported, valid = _read(path, report=False)
    assert [h.missing for h in headers] == [["rater"]] and reported == [] and valid == [[False]]


def test_the_columns_codes_are_required(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("item,rater,rating\n", encoding="utf-8")
    with pytest.raises(TypeError, match="columns"):
        chunks(CsvFile(path), SCHEMA, 2, schema_errors, None, print)  # type: ignore[call-arg]


def test_a_rows_other_errors_are_reported_with_its_pointer(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("item,rater,rating\na,r,4\nb,r,7\n", encoding="utf-8")
    headers, reported, valid = _read(path)
    assert headers[0].unknown == [] and headers[0].missing == []
    assert [(p.code, p.pointer, p.line) for p in reported] == [("schema/maximum", "/1/rating", None)]
    assert valid == [[True, False]]


def test_a_header_without_rows_is_still_compared(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("item,rating\n", encoding="utf-8")
    headers, reported, valid = _read(path)
    assert [h.missing for h in headers] == [["rater"]] and valid == []
    assert reported == [Problem("toy/missing-column", f"no rater in {SCHEMA}", "", 1)]
    assert compare(SCHEMA, ["item", "notes"], 3).unknown == ["notes"]


_CELLS = st.sampled_from(["a", "", "1", '"q ""x"""', '"two\nlines"', '"cr\rlf\r\n"', '"a,b"', "x y"])
# rows of the header's width (the usual chunk, read in bulk), or of any width (blank and ragged
# rows: a chunk looked at row by row)
_ROWS = st.one_of(
    st.lists(st.lists(_CELLS, min_size=3, max_size=3), max_size=40),
    st.lists(st.lists(_CELLS, min_size=0, max_size=5), max_size=40),
)


@settings(max_examples=200, deadline=None)
@given(rows=_ROWS, ending=st.sampled_from(["\n", "\r\n", "\r"]), size=st.sampled_from([1, 3, 1024]))
def test_chunks_are_the_rows_with_their_lines(
    tmp_path_factory: pytest.TempPathFactory, rows: list[list[str]], ending: str, size: int
) -> None:
    """A file read in bulk chunks gives what it gives read row by row: the same indices, the
    lines the rows start on (cells with line breaks, blank and ragged rows among them), the
    cells, and the same problems."""
    path = tmp_path_factory.mktemp("chunks") / "t.csv"
    path.write_bytes(("c1,c2,c3" + ending + ending.join(",".join(r) for r in rows) + ending).encode())
    by_row, in_chunks = CsvFile(path), CsvFile(path)
    expected = list(by_row.rows())
    got = [
        (index, line, cells)
        for chunk in in_chunks.chunks(size)
        for (index, cells), line in zip(chunk, in_chunks.chunk_lines(), strict=True)
    ]
    assert got == expected
    assert in_chunks.problems == by_row.problems


def test_a_line_break_in_a_cell_moves_the_lines_of_the_rows_after_it(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text('a,b\n1,"x\ny"\n2,z\n3,w\n', encoding="utf-8", newline="")
    assert _lines(path) == [(0, 2), (1, 4), (2, 5)]
    path.write_text('a,b\n1,"x\ny"\n2,z\n\n3,w\n', encoding="utf-8", newline="")
    assert _lines(path) == [(0, 2), (1, 4), (2, 6)]


def _lines(path: Path) -> list[tuple[int, int]]:
    csv = CsvFile(path)
    return [(i, line) for chunk in csv.chunks(8) for (i, _), line in zip(chunk, csv.chunk_lines(), strict=True)]


def test_the_lines_rows_start_on_are_counted_a_column_at_a_time_as_row_by_row() -> None:
    """csvfile._starts counts a chunk's line breaks column by column (a join per column); held
    to the plain count, row by row, on rows of every mix of breaks (\\n, \\r, \\r\\n, ragged)."""
    import random
    from itertools import accumulate

    from humanjudge_schema.readers import csvfile

    rng = random.Random(5)
    cells = ["a", "b\nc", "x\r\ny", "\r", "", "q\n\n", "\r\r\n\n"]
    for _ in range(3000):
        rows = [[rng.choice(cells) for _ in range(rng.randint(0, 5))] for _ in range(rng.randint(1, 30))]
        plain = list(accumulate((1 + csvfile.line_breaks(",".join(r)) for r in rows[:-1]), initial=7))
        assert csvfile._starts(7, 10**9, rows) == plain, rows
