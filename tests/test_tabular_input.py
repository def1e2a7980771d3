"""Broken and hostile input for the streamed formats (gzipped JSON Lines, CSV): every problem is a
finding with a line, never a traceback; memory stays bounded and time reasonable.

Each bad file is built here, at test time, and checked by the command line in a child process
whose address space is capped at 1 GiB; the child's peak resident memory is measured too.
"""

from __future__ import annotations

import gzip
import io
import json
import shutil
import subprocess
import sys
import time
import zlib
from collections import Counter
from pathlib import Path

import pytest

from humanjudge_schema.readers.csvfile import CsvFile, read_header
from humanjudge_schema.readers.files import Problem
from humanjudge_schema.readers.gzjsonl import GzipJsonLines

from .conftest import CASES
from .helpers import writing_log
from .test_sources import _fifo, _zero, within

CROSSWORD = CASES / "halie" / "valid" / "crossword"
STUDY1 = CASES / "study1" / "valid" / "minimal"
HUMAN = "study1_responses_human.jsonl.gz"
EVENTS = "event_blocks.csv"
ADDRESS_SPACE = 1 << 30

# Runs the command line with its address space capped, and reports its peak resident memory:
# ru_maxrss of RUSAGE_CHILDREN is the largest child of this probe, i.e. the command itself.
_PROBE = """
import json, resource, subprocess, sys, time
limit = int(sys.argv[1])
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
t = time.perf_counter()
p = subprocess.run([sys.executable, "-m", "humanjudge_schema", *sys.argv[2:]], capture_output=True, text=True,
                   preexec_fn=cap)
print(json.dumps({"rc": p.returncode, "out": p.stdout, "err": p.stderr, "seconds": time.perf_counter() - t,
                  "rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


# These files are checked for what their reader finds; whether a dataset is complete
# (dataset/missing-file) is tested elsewhere.
_READER_ONLY = ("--ignore", "dataset")


def validate(path: Path, *extra: str) -> dict[str, object]:
    command = ["validate", "--format", "json", *_READER_ONLY, *extra, str(path)]
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, str(ADDRESS_SPACE), *command],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    run = json.loads(proc.stdout)
    assert "Traceback" not in run["err"] + run["out"], run["err"]
    assert run["rc"] in (0, 1), run["err"]
    assert run["seconds"] < 120, "far slower than it should be, even on a loaded CI machine"
    report = json.loads(run["out"])
    run["findings"], run["errors"] = report["findings"], report["summary"]["errors"]
    return run


def codes(run: dict[str, object]) -> Counter[str]:
    return Counter(f["code"] for f in run["findings"])  # type: ignore[attr-defined]


def where(run: dict[str, object], code: str) -> list[tuple[str, int | None]]:
    return [(f["pointer"], f["line"]) for f in run["findings"] if f["code"] == code]  # type: ignore[attr-defined]


# --- gzipped JSON Lines ------------------------------------------------------------------------


def _study(tmp_path: Path, human: bytes) -> Path:
    """A study-1 folder whose writing log is the given (compressed) bytes."""
    folder = tmp_path / "study1"
    folder.mkdir()
    (folder / HUMAN).write_bytes(human)
    return folder


def test_valid_log_alone_has_no_findings(tmp_path: Path) -> None:
    run = validate(_study(tmp_path, gzip.compress(writing_log(300))))
    assert codes(run) == Counter()


def test_truncated_gzip(tmp_path: Path) -> None:
    whole = gzip.compress(writing_log(3000))
    run = validate(_study(tmp_path, whole[: len(whole) // 2]))
    assert codes(run) == Counter({"parse/truncated-gzip": 1})
    [(_, line)] = where(run, "parse/truncated-gzip")
    assert line is not None and 1 < line < 3000


def test_corrupt_gzip(tmp_path: Path) -> None:
    whole = bytearray(gzip.compress(writing_log(3000)))
    middle = len(whole) // 2
    whole[middle : middle + 64] = bytes(64)
    run = validate(_study(tmp_path, bytes(whole)))
    assert set(codes(run)) <= {"parse/invalid-gzip", "parse/invalid-json", "parse/invalid-utf8", "schema/required"}
    assert codes(run)["parse/invalid-gzip"] == 1


def test_not_gzip_at_all(tmp_path: Path) -> None:
    run = validate(_study(tmp_path, writing_log(10)))
    assert codes(run) == Counter({"parse/invalid-gzip": 1})


def test_empty_gzip_file(tmp_path: Path) -> None:
    assert codes(validate(_study(tmp_path, b""))) == Counter({"parse/empty": 1})
    other = tmp_path / "other"
    other.mkdir()
    assert codes(validate(_study(other, gzip.compress(b"")))) == Counter({"parse/empty": 1})


def test_gzip_inside_gzip(tmp_path: Path) -> None:
    run = validate(_study(tmp_path, gzip.compress(gzip.compress(writing_log(10)))))
    assert codes(run) == Counter({"parse/nested-gzip": 1})


def test_concatenated_gzip_members_are_one_stream(tmp_path: Path) -> None:
    log = writing_log(20)
    half = log.index(b"\n", len(log) // 2) + 1
    run = validate(_study(tmp_path, gzip.compress(log[:half]) + gzip.compress(log[half:])))
    assert codes(run) == Counter()


def test_garbage_after_the_gzip_stream(tmp_path: Path) -> None:
    run = validate(_study(tmp_path, gzip.compress(writing_log(10)) + b"not gzip"))
    assert codes(run) == Counter({"parse/invalid-gzip": 1})


def _bomb(path: Path, size: int) -> None:
    """`size` bytes of zeros, gzip-compressed a megabyte at a time (the test stays small too)."""
    zeros = bytes(1 << 20)
    with open(path, "wb") as f:
        c = zlib.compressobj(9, zlib.DEFLATED, 31)
        for _ in range(size >> 20):
            f.write(c.compress(zeros))
        f.write(c.flush())


def test_gzip_bomb_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    folder = tmp_path / "study1"
    folder.mkdir()
    _bomb(folder / HUMAN, 1 << 30)
    assert (folder / HUMAN).stat().st_size < 2 << 20
    run = validate(folder)
    assert codes(run) == Counter({"parse/decompressed-too-large": 1, "parse/line-too-long": 1})
    assert run["rss_mb"] < 150  # type: ignore[operator]
    assert run["seconds"] < 60  # type: ignore[operator]


def test_decompressed_limit_is_configurable(tmp_path: Path) -> None:
    folder = _study(tmp_path, gzip.compress(writing_log(3000)))
    (folder / "humanjudge.toml").write_text("[study1]\nmax-decompressed-bytes = 100000\n")
    run = validate(folder)
    assert codes(run) == Counter({"parse/decompressed-too-large": 1})


def test_runaway_line_is_skipped(tmp_path: Path) -> None:
    log = writing_log(4)
    first, rest = log.split(b"\n", 1)
    runaway = b"x" * (17 << 20)
    run = validate(_study(tmp_path, gzip.compress(first + b"\n" + runaway + b"\n" + rest)))
    assert codes(run) == Counter({"parse/line-too-long": 1})
    assert where(run, "parse/line-too-long") == [("", 2)]


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda b: b"\xef\xbb\xbf" + b, {"parse/bom": 1}),
        (lambda b: b.replace(b"\n", b"\r\n"), {}),
        (lambda b: b.replace(b"waggle", b"wag\x00gle", 1), {"parse/invalid-json": 1}),
        (lambda b: b.replace(b"waggle", b"wag\xe9gle", 1), {"parse/invalid-utf8": 1}),
        (lambda b: b.replace(b"\n", b"\n\n", 1), {"parse/blank-line": 1}),
        (lambda b: b.replace(b'"style"', b'"style":"essay","style"', 1), {"parse/duplicate-key": 1}),
    ],
    ids=["bom", "crlf", "nul", "latin1", "blank-line", "duplicate-key"],
)
def test_bad_bytes_inside_the_stream(tmp_path: Path, mutate, expected: dict[str, int]) -> None:  # type: ignore[no-untyped-def]
    run = validate(_study(tmp_path, gzip.compress(mutate(writing_log(10)))))
    assert codes(run) == Counter(expected)
    for f in run["findings"]:  # type: ignore[attr-defined]
        assert f["line"] is not None


def _parse_findings(run: dict[str, object]) -> list[tuple[str, str, int | None, str]]:
    return [
        (f["code"], f["pointer"], f["line"], f["message"])
        for f in run["findings"]  # type: ignore[attr-defined]
        if f["code"].startswith("parse/")
    ]


def test_a_run_of_blank_lines_in_a_log_is_one_finding(tmp_path: Path) -> None:
    records = writing_log(6).split(b"\n")[:6]
    data = b"\n".join(
        [records[0], b"", records[1], *[b""] * 1000, records[2], b"\r", b"  ", b"\r", *records[3:], b"", b"", b""]
    )
    run = validate(_study(tmp_path, gzip.compress(data)))
    assert _parse_findings(run) == [
        ("parse/blank-line", "", 2, "empty line between records"),
        ("parse/blank-line", "", 4, "1,000 empty lines between records (lines 4-1003)"),
        ("parse/blank-line", "", 1005, "3 empty lines between records (lines 1005-1007)"),
    ]
    assert run["rc"] == 0  # warnings


@pytest.mark.parametrize("make", [_fifo, _zero], ids=["fifo", "link-to-dev-zero"])
def test_the_streamed_readers_refuse_anything_but_a_regular_file(make, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = make(tmp_path)
    expected = "is a named pipe (FIFO)" if make is _fifo else "is a character device"
    stream = GzipJsonLines(path)
    assert within(10, lambda: list(stream)) == []
    assert stream.problems == [Problem("parse/unreadable", f"{expected}, not a regular file")] and not stream.complete
    table = CsvFile(path)
    assert within(10, lambda: list(table.rows()) + list(CsvFile(path).chunks())) == []
    assert table.problems == [Problem("parse/unreadable", f"{expected}, not a regular file")] and not table.complete
    assert within(10, lambda: read_header(path)) is None


def test_large_log_streams_in_constant_memory(tmp_path: Path) -> None:
    folder = tmp_path / "study1"
    folder.mkdir()
    record = writing_log(300)
    with gzip.open(folder / HUMAN, "wb", compresslevel=1) as f:
        for _ in range(800):  # ~130 MB decompressed, one response
            f.write(record)
    run = validate(folder)
    # the same 300 snapshots again and again: timestamps jump back at every repetition
    assert set(codes(run)) == {"study1/timestamp-order"}
    assert run["rss_mb"] < 150  # type: ignore[operator]


# --- CSV ---------------------------------------------------------------------------------------


def _task(tmp_path: Path, events: bytes) -> Path:
    """The valid crossword case with its event_blocks.csv replaced."""
    folder = tmp_path / "crossword"
    shutil.copytree(CROSSWORD, folder)
    (folder / EVENTS).write_bytes(events)
    return folder


def _events() -> bytes:
    return (CROSSWORD / EVENTS).read_bytes()


def test_valid_task_has_no_findings(tmp_path: Path) -> None:
    assert codes(validate(_task(tmp_path, _events()))) == Counter()


def _replace_line(data: bytes, k: int, new: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[k] = new
    return b"\n".join(lines)


def _line(k: int) -> bytes:
    return _events().split(b"\n")[k]


@pytest.mark.parametrize(
    ("make", "expected", "lines"),
    [
        (lambda e: _replace_line(e, 2, _line(2) + b",extra"), {"parse/ragged-row": 1}, [("/1", 3)]),
        (
            lambda e: _replace_line(e, 2, _line(2).rsplit(b",", 2)[0]),
            {"parse/ragged-row": 1, "schema/required": 1},
            [("/1", 3)],
        ),
        (lambda e: e.rstrip(b"\n") + b'"knowledge\n', {"parse/unclosed-quote": 1}, [("/4", 6)]),
        (
            lambda e: _replace_line(e, 3, _line(3).replace(b"synonym of glad", b'"synonym of glad')),
            {"parse/invalid-csv": 1},
            [("/2", 4)],
        ),
        (lambda e: e.replace(b"Lima", b"Li\x00ma"), {"parse/nul-byte": 1}, [("", 2)]),
        (lambda e: b"\xef\xbb\xbf" + e, {"parse/bom": 1}, [("", 1)]),
        (lambda e: e.replace(b"\n", b"\r\n"), {}, []),
        (lambda e: e.replace(b"\n", b"\r"), {"parse/line-ending": 1}, [("", 1)]),
        (lambda e: e.replace(b",", b";"), {"parse/delimiter": 1}, [("", 1)]),
        (
            lambda e: _replace_line(e, 3, e.split(b"\n")[0] + b"\n" + _line(3)),
            {"parse/repeated-header": 1},
            [("/2", 4)],
        ),
        (
            lambda e: _replace_line(e, 2, _line(2).replace(b'"Glad, joyful, cheerful."', b'"Glad" joyful')),
            {"parse/invalid-csv": 1},
            [("/1", 3)],
        ),
        (lambda e: e.replace(b"Lima", b"L\xedma"), {"parse/invalid-utf8": 1}, [("", 2)]),
        (lambda e: e.decode().encode("utf-16"), {"parse/invalid-utf8": 1}, [("", 1)]),
        (lambda e: _replace_line(e, 2, b"\n" + _line(2)), {"parse/blank-row": 1}, [("", 3)]),
        (
            lambda e: e.replace(b"clue_type", b"clue_num", 1),
            {"parse/duplicate-column": 1, "schema/type": 2, "schema/required": 3},
            [("", 1)],
        ),
        (lambda e: b"", {"parse/empty": 1}, [("", None)]),
    ],
    ids=[
        "ragged-more",
        "ragged-fewer",
        "unclosed-quote",
        "quote-closed-early",
        "nul",
        "bom",
        "crlf",
        "lone-cr",
        "semicolons",
        "header-repeated",
        "text-after-quote",
        "latin1",
        "utf16",
        "blank-row",
        "duplicate-column",
        "empty",
    ],
)
def test_bad_csv(tmp_path: Path, make, expected: dict[str, int], lines: list[tuple[str, int]]) -> None:  # type: ignore[no-untyped-def]
    run = validate(_task(tmp_path, make(_events())))
    found = Counter(c for c in codes(run).elements() if c != "halie/unmatched-session")
    assert found == Counter(expected)
    parse = [
        (p, line) for f in run["findings"] if f["code"].startswith("parse/") for p, line in [(f["pointer"], f["line"])]
    ]  # type: ignore[attr-defined]
    assert parse == lines


def test_a_run_of_blank_rows_is_one_finding(tmp_path: Path) -> None:
    lines = _events().rstrip(b"\n").split(b"\n")
    data = b"\n".join([*lines[:2], *[b""] * 1000, lines[2], b"\r", b"", *lines[3:], b"", b"", b""])
    run = validate(_task(tmp_path, data))
    assert _parse_findings(run) == [
        ("parse/blank-row", "", 3, "1,000 blank lines between rows (lines 3-1002)"),
        ("parse/blank-row", "", 1004, "2 blank lines between rows (lines 1004-1005)"),
    ]
    assert codes(run) == Counter({"parse/blank-row": 2})


def test_blank_lines_before_the_header(tmp_path: Path) -> None:
    """The task is still recognised by its header, and the blank lines are one finding."""
    run = validate(_task(tmp_path, b"\r\n" * 5000 + _events()))
    assert _parse_findings(run) == [("parse/blank-row", "", 1, "5,000 blank lines between rows (lines 1-5000)")]
    assert codes(run) == Counter({"parse/blank-row": 1})


def test_more_than_a_chunk_of_blank_lines_before_the_header(tmp_path: Path) -> None:
    """The first chunk read (1 MiB) is all blank: the reader goes on after it, not back over it
    (read twice, its line numbers were counted twice, and a NUL byte further on crashed the run)."""
    header, first, *rest = _events().split(b"\n")
    blank = 1 << 20
    data = b"\n" * blank + header + b"\n" + first.replace(b",", b",\x00", 1) + b"\n" + b"\n".join(rest)
    run = validate(_task(tmp_path, data))
    found = {(code, line) for code, _, line, _ in _parse_findings(run)}
    assert ("parse/nul-byte", blank + 2) in found
    assert ("parse/blank-row", 1) in found


def test_a_file_broken_on_every_row_is_counted_not_listed(tmp_path: Path) -> None:
    """100,000 rows of two cells: 16 findings a row. Past 1,000 of a code per file (the default
    max-per-code), findings are counted in one more finding of the code, so memory stays bounded
    (listing all 1.6 million took gigabytes) and the totals stay exact."""
    header = _events().split(b"\n")[0]
    run = validate(_task(tmp_path, header + b"\n" + b"a,b\n" * 100_000))
    rows = [f for f in run["findings"] if f["code"].startswith(("parse/", "schema/"))]  # type: ignore[attr-defined]
    listed = Counter(f["code"] for f in rows if "more" not in f)
    more = {f["code"]: f["more"] for f in rows if "more" in f}
    assert listed == {"parse/ragged-row": 1000, "schema/pattern": 1000, "schema/required": 1000}
    assert more == {"parse/ragged-row": 99_000, "schema/pattern": 99_000, "schema/required": 14 * 100_000 - 1000}
    sessions = sum(f["code"].startswith("halie/") for f in run["findings"])  # type: ignore[attr-defined]
    assert run["errors"] == 16 * 100_000 + sessions
    assert run["rss_mb"] < 150  # type: ignore[operator]


def test_every_finding_is_listed_on_request(tmp_path: Path) -> None:
    header = _events().split(b"\n")[0]
    run = validate(_task(tmp_path, header + b"\n" + b"a,b\n" * 1500), "--max-per-code", "0")
    assert codes(run)["parse/ragged-row"] == 1500
    assert not any("more" in f for f in run["findings"])  # type: ignore[attr-defined]


def test_cells_of_a_megabyte_are_read(tmp_path: Path) -> None:
    big = "x" * 1_000_000
    lines = _events().decode().split("\n")
    lines[1] = lines[1].replace("Lima is the capital of Peru.", big)
    lines[2] = lines[2].replace("word for happy", f'"{big}\n{big}"')
    run = validate(_task(tmp_path, "\n".join(lines).encode()))
    assert codes(run) == Counter()
    assert run["rss_mb"] < 150  # type: ignore[operator]


def test_a_cell_beyond_the_limit_stops_the_reading(tmp_path: Path) -> None:
    lines = _events().split(b"\n")
    lines[2] = lines[2].replace(b"word for happy", b'"' + b"y\n" * (5 << 20) + b'"')
    run = validate(_task(tmp_path, b"\n".join(lines)))
    assert where(run, "parse/cell-too-large") == [("/1", 3)]


def test_runaway_csv_line(tmp_path: Path) -> None:
    lines = _events().split(b"\n")
    lines[3] = lines[3] + b"z" * (9 << 20)
    run = validate(_task(tmp_path, b"\n".join(lines)))
    assert where(run, "parse/line-too-long") == [("", 4)]
    assert run["rss_mb"] < 150  # type: ignore[operator]


@pytest.mark.parametrize(
    "cell",
    ["[" * 100_000 + "]" * 100_000, "[b'exact']", "[1j]", "['exact', 'keyword'", "[" + "'exact', " * 100_000 + "]"],
    ids=["deep", "bytes", "complex", "unclosed", "huge"],
)
def test_hostile_list_literals_stay_text(tmp_path: Path, cell: str) -> None:
    out = io.StringIO()
    text = _events().decode()
    out.write(text.replace("['meaning']", '"' + cell + '"', 1))
    started = time.perf_counter()
    run = validate(_task(tmp_path, out.getvalue().encode()))
    assert codes(run) == Counter({"schema/type": 1})
    assert where(run, "schema/type") == [("/1/query_type", 3)]
    assert time.perf_counter() - started < 60
