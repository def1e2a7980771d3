"""readers/csvtable.py, the CSV table reader any CSV format reads its files with: a misspelt
column is found once, at the header (unknown, and the required one it replaced missing), and no
row says the required column is absent; other schema errors of a row are reported with its
index, and the rows are handed over a chunk at a time with their validity."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from humanjudge_schema.engine import schema_errors
from humanjudge_schema.readers.csvfile import CsvFile
from humanjudge_schema.readers.csvtable import Header, chunks, compare

SCHEMA = "halie/v1/crossword/accuracies"
COLUMNS = "session_id,worker_id,model,prompt,prompt_dataset,letter_accuracy"


def _read(path: Path, size: int = 2) -> tuple[list[Header], list[tuple[int, str, str]], list[list[bool] | None]]:
    headers: list[Header] = []
    reported: list[tuple[int, str, str]] = []
    valid = []

    def report(index: int, code: str, ptr: str, message: str) -> None:
        reported.append((index, code, ptr))

    for chunk, ok in chunks(CsvFile(path), SCHEMA, size, schema_errors, report, headers.append):
        valid.append(ok)
        assert len(chunk.indices) <= size
    return headers, reported, valid


def test_a_misspelt_column_is_found_once_at_the_header(tmp_path: Path) -> None:
    path = tmp_path / "accuracies.csv"
    rows = [f"s{k},w,Davinci,61,NYT-1,0.5,0.25" for k in range(5)]
    path.write_text(f"{COLUMNS},clue_acuracy\n" + "\n".join(rows) + "\n", encoding="utf-8")
    headers, reported, valid = _read(path)
    assert headers == [Header([*COLUMNS.split(","), "clue_acuracy"], 1, ["clue_acuracy"], ["clue_accuracy"])]
    # every row lacks the required column and has one the schema forbids: only the latter is a
    # row's finding (the forbidden cell), never five schema/required about the missing column
    assert {code for _, code, _ in reported} <= {"schema/additional-properties"}
    assert not any(code == "schema/required" for _, code, _ in reported)
    assert len(valid) == 3  # five rows, two at a time


def test_a_rows_other_errors_are_reported_with_its_index(tmp_path: Path) -> None:
    path = tmp_path / "accuracies.csv"
    rows = "s1,w,Davinci,61,NYT-1,0.5,0.25\ns2,w,Davinci,61,NYT-1,7,0.25\n"
    path.write_text(f"{COLUMNS},clue_accuracy\n{rows}", encoding="utf-8")
    headers, reported, valid = _read(path)
    assert headers[0].unknown == [] and headers[0].missing == []
    assert reported == [(1, "schema/maximum", "/letter_accuracy")]
    assert valid == [[True, False]]


def test_a_header_without_rows_is_still_compared(tmp_path: Path) -> None:
    path = tmp_path / "accuracies.csv"
    path.write_text(COLUMNS + "\n", encoding="utf-8")
    headers, reported, valid = _read(path)
    assert [h.missing for h in headers] == [["clue_accuracy"]] and reported == [] and valid == []
    assert compare(SCHEMA, ["session_id", "notes"], 3).unknown == ["notes"]


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
