"""Reading bytes: every problem of the file itself is a finding with a position, never a raise."""

from __future__ import annotations

from pathlib import Path

import pytest

from humanjudge_schema.sources import BROKEN, JsonDocument, load, parse, parse_jsonl


def _codes(raw: bytes) -> list[tuple[str, str, int | None, int | None]]:
    _, problems = parse(raw)
    return [(p.code, p.pointer, p.line, p.column) for p in problems]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"", [("parse/empty", "", None, None)]),
        (b"  \n\t ", [("parse/empty", "", None, None)]),
        (b'{"a": 1,}', [("parse/invalid-json", "", 1, 8)]),
        (b'{"a": 1}\n{"b": 2}', [("parse/trailing-content", "", 2, 1)]),
        (b'{"a": NaN}', [("parse/non-finite-number", "", 1, 7)]),
        (
            b'{"a": [Infinity,\n -Infinity], "s": "NaN"}',
            [("parse/non-finite-number", "", 1, 8), ("parse/non-finite-number", "", 2, 2)],
        ),
        (b'{"a": 1e400}', [("parse/number-out-of-range", "", 1, 7)]),
        (b'{"a": ' + b"9" * 400 + b"}", [("parse/number-out-of-range", "", 1, 7)]),
        (b"[" * 2000 + b"]" * 2000, [("parse/too-deep", "", 1, 1026)]),
        (b'{"a": "caf\xe9"}', [("parse/invalid-utf8", "", 1, 11)]),
        ('{"a": 1}'.encode("utf-16"), [("parse/invalid-utf8", "", 1, 1)]),
        (b'\xef\xbb\xbf{"a": 1}', [("parse/bom", "", 1, 1)]),
    ],
    ids=[
        "empty",
        "blank",
        "syntax",
        "trailing",
        "nan",
        "infinities",
        "1e400",
        "bigint",
        "deep",
        "latin1",
        "utf16",
        "bom",
    ],
)
def test_problems_of_the_bytes(raw: bytes, expected: list[tuple[str, str, int, int]]) -> None:
    assert _codes(raw) == expected


def test_bom_is_reported_and_the_rest_still_parsed() -> None:
    data, problems = parse(b'\xef\xbb\xbf{"a": 1}')
    assert data == {"a": 1}
    assert [p.code for p in problems] == ["parse/bom"]


@pytest.mark.parametrize(
    ("raw", "pointers"),
    [
        (b'{"a": 1, "a": 2}', ["/a"]),
        (b'{"x": {"k/1": [1], "k/1": [2]}, "y": [{"z": 1, "z": 1}]}', ["/x/k~11", "/y/0/z"]),
        (b'{"t": "a:b", "u": "c:d", "t": "e"}', ["/t"]),
        (b'{"a\\u003a": 1, "a:": 2}', ["/a:"]),  # an escaped colon cannot fool the count
    ],
    ids=["top", "nested-escaped", "colons-in-strings", "escaped-colon"],
)
def test_duplicate_keys_at_any_depth(raw: bytes, pointers: list[str]) -> None:
    data, problems = parse(raw)
    assert data is not BROKEN
    assert [p.pointer for p in problems] == pointers
    assert {p.code for p in problems} == {"parse/duplicate-key"}


def test_duplicate_key_position_is_the_second_occurrence() -> None:
    _, problems = parse(b'{\n  "a": 1,\n  "b": {\n    "c": 1,\n    "c": 2\n  }\n}')
    assert [(p.pointer, p.line, p.column) for p in problems] == [("/b/c", 5, 5)]


def test_no_duplicates_no_problem_even_with_colons_in_text() -> None:
    assert _codes(b'{"url": "http://x", "t": "10:30", "n": {"k": "a:b:c"}}') == []


def test_positions_of_pointers(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(b'{\n  "t1": {\n    "rating": [1, 2,\n      3]\n  },\n  "a/b": 5\n}\n')
    doc, problems = load(path)
    assert problems == [] and isinstance(doc, JsonDocument)
    spots = doc.positions(["", "/t1", "/t1/rating", "/t1/rating/2", "/a~1b", "/missing"])
    assert spots == {"": (1, 1), "/t1": (2, 3), "/t1/rating": (3, 5), "/t1/rating/2": (4, 7), "/a~1b": (6, 3)}


def test_jsonl_records_lines_and_problems(tmp_path: Path) -> None:
    raw = b'{"id": "a"}\n\n{"id": "b", "id": "c"}\r\n{"id": \n{"id": "d"}\n'
    doc, problems = parse_jsonl(tmp_path / "t.jsonl", raw)
    assert doc.lines == [1, 3, 4, 5]
    assert doc.records[0] == {"id": "a"} and doc.records[2] is BROKEN
    assert sorted((p.code, p.pointer, p.line) for p in problems) == [
        ("parse/blank-line", "", 2),
        ("parse/duplicate-key", "/1/id", 3),
        ("parse/invalid-json", "/2", 4),
    ]
    assert doc.positions(["/3/id", "/1"]) == {"/3/id": (5, 2), "/1": (3, 1)}


def test_unreadable_file_is_a_problem(tmp_path: Path) -> None:
    doc, problems = load(tmp_path / "nope.json")
    assert doc is None and [p.code for p in problems] == ["parse/unreadable"]
    doc, problems = load(tmp_path)
    assert doc is None and [p.code for p in problems] == ["parse/unreadable"]
