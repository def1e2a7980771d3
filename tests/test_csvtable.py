"""readers/csvtable.py, the CSV table reader any CSV format reads its files with: a misspelt
column is found once, at the header (unknown, and the required one it replaced missing), and no
row says the required column is absent; other schema errors of a row are reported with its
index, and the rows are handed over a chunk at a time with their validity."""

from __future__ import annotations

from pathlib import Path

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
