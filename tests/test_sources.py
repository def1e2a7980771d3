"""Reading bytes: every problem of the file itself is a finding with a position, never a raise."""

from __future__ import annotations

import os
import socket
import stat
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema.config import Config, ConfigError, parse_config
from humanjudge_schema.readers import files as sources
from humanjudge_schema.readers.files import Problem, read_bytes
from humanjudge_schema.readers.jsonfile import BROKEN, JsonDocument, load, parse, parse_jsonl


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


# --- runs of blank lines ----------------------------------------------------------------------------


def _blank(raw: bytes) -> list[tuple[int | None, str]]:
    _, problems = parse_jsonl(Path("t.jsonl"), raw)
    assert {p.code for p in problems} <= {"parse/blank-line"}
    return [(p.line, p.message) for p in problems]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"{}\n\n{}\n", [(2, "empty line between records")]),
        (b"{}\n\n\n\n{}\n", [(2, "3 empty lines between records (lines 2-4)")]),
        (b"{}\r\n\r\n \t\r\n\r\n{}\r\n", [(2, "3 empty lines between records (lines 2-4)")]),
        (b"{}\n\n{}\n\n\n{}", [(2, "empty line between records"), (4, "2 empty lines between records (lines 4-5)")]),
        (b"\n\n{}\n", [(1, "2 empty lines between records (lines 1-2)")]),
        (b"{}\n\n\n", []),
        (b"{}\r\n\r\n", []),
        (b"{}\n  \n\n", [(2, "empty line between records")]),
        (b"{}\n\n  ", [(2, "2 empty lines between records (lines 2-3)")]),
        (b"  {}\n{}\n", []),
    ],
    ids=[
        "one",
        "three",
        "crlf-and-white-space",
        "two-runs",
        "leading",
        "final-newlines",
        "final-crlf",
        "trailing-white-space",
        "trailing-white-space-without-newline",
        "indented-record",
    ],
)
def test_a_run_of_blank_lines_is_one_finding(raw: bytes, expected: list[tuple[int, str]]) -> None:
    assert _blank(raw) == expected


def test_records_keep_their_lines_around_runs_of_blank_lines() -> None:
    doc, _ = parse_jsonl(Path("t.jsonl"), b'{"a": 1}\n\n\n{"a": 2}\r\n\n{"a": \n')
    assert doc.lines == [1, 4, 6]
    assert doc.records[:2] == [{"a": 1}, {"a": 2}] and doc.records[2] is BROKEN


def test_three_million_blank_lines_are_skipped_in_bulk() -> None:
    """One finding, read in a fraction of a second: the lines are skipped by the regex engine and
    counted in C, and nothing is kept per line (this took 10 s and 450 MB, a finding a line)."""
    raw = b'{"a": 1}\n' + b"\n" * 3_000_000 + b'{"a": 2}\n' + b"\r\n" * 1_000_000 + b'{"a": 3}\n'
    tracemalloc.start()
    started = time.perf_counter()
    try:
        doc, problems = parse_jsonl(Path("t.jsonl"), raw)
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [(p.code, p.line, p.message) for p in problems] == [
        ("parse/blank-line", 2, "3,000,000 empty lines between records (lines 2-3000001)"),
        ("parse/blank-line", 3_000_003, "1,000,000 empty lines between records (lines 3000003-4000002)"),
    ]
    assert doc.lines == [1, 3_000_002, 4_000_003]
    assert seconds < 5  # about 0.03 s; a line at a time in Python took 10 s
    # the text is decoded once to check its encoding, and nothing is kept per line (the line
    # numbers alone took 100 MB)
    assert peak < 2 * len(raw)


# --- only regular files are read -------------------------------------------------------------------


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A folder with a short path: a Unix socket's path is limited to about 100 bytes."""
    with tempfile.TemporaryDirectory(prefix="hj") as folder:
        yield Path(folder)


def _fifo(folder: Path) -> Path:
    path = folder / "human_data_mean.json"
    os.mkfifo(path)
    return path


def _zero(folder: Path) -> Path:
    path = folder / "human_data_ind.json"
    path.symlink_to("/dev/zero")
    return path


def _socket(folder: Path) -> Path:
    path = folder / "trial.jsonl"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()  # the file stays
    return path


def _folder(folder: Path) -> Path:
    path = folder / "config.json"
    path.mkdir()
    return path


def within(seconds: float, call: Callable[[], Any]) -> Any:
    """call(), failing instead of hanging when it blocks (a thread that never returns is left
    behind as a daemon)."""
    box: list[Any] = []
    thread = threading.Thread(target=lambda: box.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert box, f"still blocked after {seconds} s"
    return box[0]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_fifo, "is a named pipe (FIFO), not a regular file"),
        (_zero, "is a character device, not a regular file"),
        (_socket, "is a socket, not a regular file"),
        (_folder, "is a folder, not a file"),
    ],
    ids=["fifo", "link-to-dev-zero", "socket", "folder"],
)
def test_anything_but_a_regular_file_is_refused_unread(
    make: Callable[[Path], Path], message: str, short_tmp: Path
) -> None:
    path = make(short_tmp)
    assert within(10, lambda: read_bytes(path)) == Problem("parse/unreadable", message)
    assert within(10, lambda: load(path)) == (None, [Problem("parse/unreadable", message)])


def test_a_file_swapped_for_a_fifo_after_its_stat_is_refused(short_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between the look at the path and the open, a regular file can be replaced: the open does
    not block, and what was opened is looked at again."""
    regular = short_tmp / "regular"
    regular.write_bytes(b"{}")
    fifo = _fifo(short_tmp)
    real_stat = os.stat
    monkeypatch.setattr(sources.os, "stat", lambda p, *a, **k: real_stat(regular if p == fifo else p, *a, **k))
    assert stat.S_ISREG(sources.os.stat(fifo).st_mode)
    assert within(10, lambda: read_bytes(fifo)) == Problem(
        "parse/unreadable", "is a named pipe (FIFO), not a regular file"
    )


# --- documents read whole are bounded ------------------------------------------------------------


def test_a_document_over_the_limit_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "human_data_ind.json"
    path.write_bytes(b'{"a": 1}')
    assert read_bytes(path, max_bytes=8) == b'{"a": 1}'
    assert read_bytes(path, max_bytes=7) == Problem(
        "parse/too-large",
        "8 bytes: more than the 7 bytes a document read whole may have (the max-document-bytes option); not read",
    )
    assert load(path, max_bytes=7)[0] is None


def test_the_default_limit_refuses_a_file_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "human_data_ind.json"
    with open(path, "wb") as f:
        f.truncate(sources.DEFAULT_MAX_DOCUMENT + 1)  # sparse: nothing written, nothing to read
    tracemalloc.start()
    try:
        problem = read_bytes(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(problem, Problem) and problem.code == "parse/too-large"
    assert problem.message.startswith("536,870,913 bytes: more than the 536,870,912 bytes")
    assert peak < 1 << 20


def test_a_file_that_grows_while_read_is_read_on_within_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size measured first is only where reading starts: a file that grew since is read to
    its end, and refused as soon as it passes the limit."""
    path = tmp_path / "trial.jsonl"
    path.write_bytes(b"x" * 100)
    real_fstat = os.fstat

    def measured_early(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        return os.stat_result((st.st_mode, *st[1:6], 10, *st[7:]))  # st_size: 10

    monkeypatch.setattr(sources.os, "fstat", measured_early)
    assert read_bytes(path, max_bytes=200) == b"x" * 100
    assert read_bytes(path, max_bytes=50) == Problem(
        "parse/too-large",
        "grew while it was read: more than the 50 bytes a document read whole may have "
        "(the max-document-bytes option); not read",
    )


def test_the_limit_is_a_setting() -> None:
    assert Config().max_document_bytes == sources.DEFAULT_MAX_DOCUMENT == 512 * 1024 * 1024
    assert parse_config({"max-document-bytes": 1000}, Path("humanjudge.toml")).max_document_bytes == 1000
    for bad in (0, -1, "1000", True, 1.5):
        with pytest.raises(ConfigError, match="max-document-bytes must be an integer > 0"):
            parse_config({"max-document-bytes": bad}, Path("humanjudge.toml"))
