"""The hostile-input matrix: every kind of broken or hostile file a stranger's pull request can
hold, for every reader (JSON, JSON Lines, gzip JSON Lines, CSV), through the command line.

Each file is built here, at test time, in a folder of its own, and checked by
`python -m humanjudge_schema validate --format json` in a child process whose address space is
capped (RLIMIT_AS); the child's peak resident memory comes from wait4. Every case asserts the
exit code, that no traceback reaches the user (stderr is empty or one line), the finding codes,
a time bound and a peak-memory bound, and that the checked files are byte for byte unchanged,
modification times included. docs/hostile-input.md holds the same table with measured numbers;
regenerate it with

    python -m tests.test_matrix > /tmp/matrix.md

and a test below keeps its case, reader, code and exit columns equal to what is asserted here.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import sys
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .conftest import CASES, ROOT, snapshot
from .helpers import SENTENCE, log_line, measured, writing_log

ADDRESS_SPACE = 1 << 30  # the child's address space: a runaway fails instead of swapping
TIMEOUT = 120  # seconds before a child is killed (a hang fails its case long before that)
DOC = ROOT / "docs" / "hostile-input.md"


# --- running the command line ---------------------------------------------------------------


@dataclass
class Run:
    rc: int
    out: str
    err: str
    seconds: float
    rss_mb: float
    in_process: bool = False
    text: str = ""  # the same run's output in the text format, for cases that ask for it

    @property
    def findings(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = json.loads(self.out)["findings"] if self.out.strip() else []
        return found

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(sorted({f["code"] for f in self.findings}))


# A case is one file, often without the rest of its dataset: whether a dataset is complete
# (dataset/missing-file) is tested in test_nothing_silent; here only what the reader finds counts.
_READER_ONLY = ("--ignore", "dataset")


def run_cli(*args: str, cwd: Path, fmt: str = "json") -> Run:
    """`python -m humanjudge_schema validate --format json ARGS` with its address space capped;
    its wall time, and its own peak resident memory (from wait4)."""
    command = ["validate", "--format", fmt, "--no-progress", *_READER_ONLY, *args]
    run = measured(command, cwd=cwd, limit=ADDRESS_SPACE, timeout=TIMEOUT)
    return Run(run.rc, run.out, run.err, run.seconds, run.rss_mb)


def run_in_process(*args: str) -> Run:
    """The same command in this process (for cases that patch the library); memory is the
    tracemalloc peak of the run."""
    from humanjudge_schema.commands import main

    out, err = io.StringIO(), io.StringIO()
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            main(["validate", "--format", "json", "--no-progress", *_READER_ONLY, *args])
        rc = 0
    except SystemExit as exc:
        rc = exc.code if isinstance(exc.code, int) else 2
    finally:
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return Run(rc, out.getvalue(), err.getvalue(), seconds, peak / (1 << 20), in_process=True)


# --- the four readers and their valid files ---------------------------------------------------


def _ind() -> bytes:
    """human_data_ind.json of a small CogGym experiment (valid alone)."""
    data = {
        "participants_info": {"count": 3, "age": 31.7, "gender": {"female": 2, "male": 1}},
        "judgment_count": 12,
        "trial_1": {
            "hungry": [80, 60, 20],
            "goal": [
                {"idx": 0, "option_text": "Red box"},
                {"idx": 1, "option_text": "Exit"},
                {"idx": 0, "option_text": "Red box"},
            ],
        },
        "trial_2": {
            "hungry": [10, 30, 90],
            "why": ["It went straight for the box.", "It looked lost.", "It seemed to be leaving."],
        },
    }
    return json.dumps(data, indent=2).encode() + b"\n"


def _trials() -> bytes:
    """trial.jsonl of a small CogGym experiment with text stimuli only (valid alone)."""
    records = []
    for k in range(1, 4):
        records.append(
            {
                "id": f"trial_{k}",
                "delay": 500,
                "stimuli": [{"input_type": "text", "text": f"<p>The agent walks past box {k}.</p>"}],
                "queries": [
                    {
                        "type": "single-slider",
                        "prompt": "How hungry is it?",
                        "tag": "hungry",
                        "slider_config": {"min": 0, "max": 100},
                    },
                    {
                        "type": "multi-choice",
                        "prompt": "Where is it going?",
                        "tag": "goal",
                        "option": ["Red box", "Exit"],
                    },
                ],
            }
        )
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _events() -> bytes:
    """event_blocks.csv of the HALIE crossword task (valid alone)."""
    return (CASES / "halie" / "valid" / "crossword" / "event_blocks.csv").read_bytes()


@dataclass(frozen=True)
class Reader:
    name: str
    file: str
    base: Callable[[], bytes]
    gz: bool = False

    def write(self, folder: Path, data: bytes) -> Path:
        path = folder / self.file
        path.write_bytes(gzip.compress(data, mtime=0) if self.gz else data)
        return path


JSON = Reader("JSON", "human_data_ind.json", _ind)
JSONL = Reader("JSONL", "trial.jsonl", _trials)
GZ = Reader("JSONL.gz", "study1_responses_human.jsonl.gz", lambda: writing_log(6), gz=True)
CSV = Reader("CSV", "event_blocks.csv", _events)
READERS = (JSON, JSONL, GZ, CSV)


# --- the cases ----------------------------------------------------------------------------------

Make = Callable[[Path, Reader], None]  # writes the case's files into an empty folder


@dataclass(frozen=True)
class Case:
    kind: str  # the row of the matrix, e.g. "empty file"
    reader: Reader
    make: Make
    codes: tuple[str, ...]  # the distinct finding codes, sorted; () for none
    exit: int
    seconds: float = 10.0
    rss_mb: float = 100.0
    note: str = ""
    in_process: Callable[[pytest.MonkeyPatch, Path], None] | None = None  # patches for an in-process run
    xfail: str = ""
    # (code, line, message) of every finding of these codes, in order, beyond the codes alone
    findings: tuple[tuple[str, int | None, str], ...] = ()
    text: bool = False  # the text format too: a line a finding, no control character printed raw

    @property
    def id(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", self.kind.lower()).strip("-")
        return f"{slug}[{self.reader.name}]"


def content(transform: Callable[[bytes], bytes]) -> Make:
    """A case whose file is the reader's valid file, transformed (before compression)."""

    def make(folder: Path, reader: Reader) -> None:
        reader.write(folder, transform(reader.base()))

    return make


def raw(build: Callable[[Reader], bytes]) -> Make:
    """A case whose file's bytes on disk (after any compression) are built directly."""

    def make(folder: Path, reader: Reader) -> None:
        (folder / reader.file).write_bytes(build(reader))

    return make


def sub(old: bytes, new: bytes, count: int = 1, *more: tuple[bytes, bytes]) -> Callable[[bytes], bytes]:
    """Replace `old` (which must be there) by `new`, then each further (old, new) pair."""

    def transform(data: bytes) -> bytes:
        for a, b in ((old, new), *more):
            assert a in data, a
            data = data.replace(a, b, count)
        return data

    return transform


def _lines(data: bytes) -> list[bytes]:
    return data.rstrip(b"\n").split(b"\n")


BIG = 50 * 1024 * 1024
MB = 1024 * 1024


def _bomb(reader: Reader) -> bytes:
    """1 GiB of zeros, gzip-compressed (about 1 MB)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(MB)
    parts = [c.compress(zeros) for _ in range(1024)]
    parts.append(c.flush())
    return b"".join(parts)


def _symlink_loop(folder: Path, reader: Reader) -> None:
    # A folder that contains its own parent, and the dataset file as a link to itself.
    (folder / "nested").mkdir()
    (folder / "nested" / "up").symlink_to("..", target_is_directory=True)
    (folder / reader.file).symlink_to(reader.file)


def _dangling(folder: Path, reader: Reader) -> None:
    # The tests run as root, for whom chmod 000 does not stop reading: a link to nothing is the
    # unreadable file every user can build.
    (folder / reader.file).symlink_to("no-such-file")


def _disappears(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """The file is deleted after the units are found and before any of them is read."""
    from humanjudge_schema.kinds import survey as found

    def then_delete(paths: list[Path], kind: str | None = None, **options: Any) -> Any:
        survey = found(paths, kind, **options)
        for unit in survey.units:
            for f in unit.files:
                f.unlink()
        return survey

    monkeypatch.setattr("humanjudge_schema.validation.survey", then_delete)


# The rows: kind -> {reader: (make, codes, exit, extra)}; "n/a" entries say why a row does not
# apply to a reader, and appear in the table as such.
E = "parse/empty"
U8 = "parse/invalid-utf8"
NA: dict[tuple[str, str], str] = {}
CASES_: list[Case] = []


def case(kind: str, reader: Reader, make: Make, codes: tuple[str, ...] | str, exit: int, **extra: Any) -> None:
    CASES_.append(Case(kind, reader, make, (codes,) if isinstance(codes, str) else tuple(sorted(codes)), exit, **extra))


def na(kind: str, reader: Reader, reason: str) -> None:
    NA[(kind, reader.name)] = reason


# -- the bytes of the text
for r in READERS:
    case("empty file", r, content(lambda b: b""), E, 1)
    case("whitespace only", r, content(lambda b: b" \n\t \r\n  \n"), E, 1)
    case("byte-order mark", r, content(lambda b: b"\xef\xbb\xbf" + b), "parse/bom", 1)
    case("UTF-16", r, content(lambda b: b.decode().encode("utf-16")), U8, 1)

case("invalid UTF-8", JSON, content(sub(b"It looked lost.", b"It looked l\xf6st.")), U8, 1)
case("invalid UTF-8", JSONL, content(sub(b"box 2", b"b\xf6x 2")), U8, 1)
case("invalid UTF-8", GZ, content(sub(b"waggle", b"w\xe4ggle")), U8, 1)
case("invalid UTF-8", CSV, content(sub(b"Lima", b"L\xedma")), U8, 1)

case("NUL bytes", JSON, content(sub(b"It looked lost.", b"It looked\x00lost.")), "parse/invalid-json", 1)
case("NUL bytes", JSONL, content(sub(b"box 2", b"box\x002")), "parse/invalid-json", 1)
case("NUL bytes", GZ, content(sub(b"waggle", b"wag\x00gle")), "parse/invalid-json", 1)
case("NUL bytes", CSV, content(sub(b"Lima", b"Li\x00ma")), "parse/nul-byte", 1)

case("truncated document", JSON, content(lambda b: b[: len(b) // 2]), "parse/invalid-json", 1)
case("truncated document", JSONL, content(lambda b: b[: len(b) - 40]), "parse/invalid-json", 1)
case("truncated document", GZ, content(lambda b: b[: len(b) - 40]), "parse/invalid-json", 1)
case("truncated document", CSV, content(lambda b: b[: b.index(b"Glad, joyful")]), "parse/unclosed-quote", 1)

case("trailing garbage", JSON, content(lambda b: b + b"\x01garbage}"), "parse/trailing-content", 1)
case("trailing garbage", JSONL, content(lambda b: b.rstrip(b"\n") + b" garbage}\n"), "parse/trailing-content", 1)
case("trailing garbage", GZ, raw(lambda r: gzip.compress(r.base(), mtime=0) + b"garbage"), "parse/invalid-gzip", 1)
case(
    "trailing garbage",
    CSV,
    content(lambda b: b + b"\x01garbage\n"),
    ("parse/ragged-row", "schema/pattern", "schema/required"),
    1,
    note="a short row is read with its last cells empty, so the schema reports them",
)

case(
    "duplicate keys at any depth",
    JSON,
    content(sub(b'"male": 1', b'"male": 1, "male": 2')),
    "parse/duplicate-key",
    1,
)
case(
    "duplicate keys at any depth",
    JSONL,
    content(sub(b'"max": 100}', b'"max": 100, "max": 99}')),
    "parse/duplicate-key",
    1,
)
case(
    "duplicate keys at any depth",
    GZ,
    content(sub(b'"style":"essay"', b'"style":"essay","style":"news"')),
    "parse/duplicate-key",
    1,
)
case(
    "duplicate keys at any depth",
    CSV,
    content(sub(b"clue_type", b"clue_num")),
    ("parse/duplicate-column", "schema/required", "schema/type"),
    1,
    note="a CSV file's keys are its column names; the second column of a name is the one read",
)

case(
    "NaN, Infinity, -Infinity",
    JSON,
    content(sub(b"80,", b"NaN,", 1, (b"60,", b"Infinity,"), (b"20\n", b"-Infinity\n"))),
    "parse/non-finite-number",
    1,
)
case("NaN, Infinity, -Infinity", JSONL, content(sub(b'"delay": 500', b'"delay": NaN', 3)), "parse/non-finite-number", 1)
case("NaN, Infinity, -Infinity", GZ, content(sub(b"1728671105500", b"-Infinity")), "parse/non-finite-number", 1)
case(
    "NaN, Infinity, -Infinity",
    CSV,
    content(lambda b: b.replace(b",0.0,1,2,0,", b",NaN,1,2,0,").replace(b",0.0,1,3,1,", b",Infinity,1,3,1,")),
    "schema/type",
    1,
    note="a cell that is not a finite number stays text",
)

for r, old in ((JSON, b"31.7"), (JSONL, b"500"), (GZ, b"1728671105500"), (CSV, b",0.0,1,2,0,")):
    new = b",1e400,1,2,0," if r is CSV else b"1e400"
    codes = "schema/type" if r is CSV else "parse/number-out-of-range"
    case("1e400", r, content(sub(old, new)), codes, 1)
for r, old in (
    (JSON, b'"count": 3'),
    (JSONL, b'"delay": 500'),
    (GZ, b'"timestamp":1728671105500'),
    (CSV, b",0,NYT-1,capital"),
):
    digits = b"9" * 400
    new = {JSON: b'"count": ' + digits, JSONL: b'"delay": ' + digits, GZ: b'"timestamp":' + digits}.get(
        r, b"," + digits + b",NYT-1,capital"
    )
    codes = "schema/type" if r is CSV else "parse/number-out-of-range"
    case("400-digit integer", r, content(sub(old, new)), codes, 1, note="stays text" if r is CSV else "")

DEEP = b"[" * 100_000 + b"]" * 100_000
case("nesting 100,000 levels deep", JSON, content(sub(b"31.7", DEEP)), "parse/too-deep", 1)
case("nesting 100,000 levels deep", JSONL, content(sub(b"500", DEEP)), "parse/too-deep", 1)
case("nesting 100,000 levels deep", GZ, content(sub(b"1728671105500", DEEP)), "parse/too-deep", 1)
case(
    "nesting 100,000 levels deep",
    CSV,
    content(sub(b"['meaning']", b'"' + DEEP + b'"')),
    "schema/type",
    1,
    note="a list cell too deep for the literal parser stays text",
)


def huge(old: bytes, before: bytes = b"", after: bytes = b"") -> Make:
    """`old` replaced by a string of 50 MB (built only when the case runs)."""
    return content(lambda b: sub(old, before + b"x" * BIG + after)(b))


case("50 MB single string", JSON, huge(b"It looked lost."), (), 0, rss_mb=400, seconds=20)
case("50 MB single string", JSONL, huge(b"How hungry is it?"), (), 0, rss_mb=400, seconds=20)
case(
    "50 MB single string",
    GZ,
    huge(b'"text":""', b'"text":"', b'"'),
    "parse/line-too-long",
    1,
    rss_mb=100,
    seconds=20,
    note="streamed: a line over 16 MiB is skipped unread",
)
case(
    "50 MB single string",
    CSV,
    huge(b"capital of peru"),
    "parse/line-too-long",
    1,
    rss_mb=100,
    seconds=20,
    note="streamed: a line over 8 MiB ends the reading",
)

case("wrong top-level type", JSON, content(lambda b: b"[" + b + b"]"), "schema/type", 1)
case("wrong top-level type", JSONL, content(lambda b: b'["trial_0", 1]\n' + b), "schema/type", 1)
case("wrong top-level type", GZ, content(lambda b: b'"a snapshot"\n' + b), "schema/type", 1)
na("wrong top-level type", CSV, "every CSV row is read as an object of its cells; see 'file of the wrong kind'")

# -- gzip
for r in (JSON, JSONL, CSV):
    codes_ = ("parse/delimiter", "parse/invalid-utf8", "parse/line-ending", "parse/nul-byte") if r is CSV else U8
    case("gzip where text is expected", r, raw(lambda r: gzip.compress(r.base(), mtime=0)), codes_, 1)
    for kind in ("gzip truncated", "gzip bomb (1 GB of zeros)", "gzip inside gzip"):
        na(kind, r, "not a gzip reader: gzip bytes are not text (see 'gzip where text is expected')")
na("gzip where text is expected", GZ, "the gzip reader expects gzip")
case(
    "gzip truncated",
    GZ,
    raw(lambda r: (lambda z: z[: len(z) // 2])(gzip.compress(writing_log(3000), mtime=0))),
    "parse/truncated-gzip",
    1,
)
case(
    "gzip bomb (1 GB of zeros)",
    GZ,
    raw(_bomb),
    ("parse/decompressed-too-large", "parse/line-too-long"),
    1,
    seconds=60,
    rss_mb=120,
    note="refused at 512 MiB decompressed (the max-decompressed-bytes option)",
)
case(
    "gzip inside gzip",
    GZ,
    raw(lambda r: gzip.compress(gzip.compress(r.base(), mtime=0), mtime=0)),
    "parse/nested-gzip",
    1,
)

# -- line endings and CSV structure
for r in READERS:
    case("CRLF line endings", r, content(lambda b: b.replace(b"\n", b"\r\n")), (), 0)
case("lone CR line endings", JSON, content(lambda b: b.replace(b"\n", b"\r")), (), 0, note="CR is JSON white space")
case(
    "lone CR line endings",
    JSONL,
    content(lambda b: b.replace(b"\n", b"\r")),
    "parse/trailing-content",
    1,
    note="JSON Lines ends lines with LF: the file is one line",
)
case("lone CR line endings", GZ, content(lambda b: b.replace(b"\n", b"\r")), "parse/trailing-content", 1)
case("lone CR line endings", CSV, content(lambda b: b.replace(b"\n", b"\r")), "parse/line-ending", 0, note="a warning")

case("ragged rows", CSV, content(lambda b: b.replace(b",knowledge\n", b",knowledge,extra\n")), "parse/ragged-row", 1)
case("unclosed quote", CSV, content(lambda b: b.rstrip(b"\n") + b',"knowledge\n'), "parse/unclosed-quote", 1)
case("semicolon delimiter", CSV, content(lambda b: b.replace(b",", b";")), "parse/delimiter", 1)
case(
    "header repeated mid-file",
    CSV,
    content(lambda b: b"\n".join([*_lines(b)[:3], _lines(b)[0], *_lines(b)[3:]]) + b"\n"),
    "parse/repeated-header",
    1,
)
case(
    "1 MB cells",
    CSV,
    content(
        lambda b: b.replace(b"capital of peru", b"y" * MB).replace(b"word for happy", b'"' + b"z\n" * (MB // 2) + b'"')
    ),
    (),
    0,
)
for r in (JSON, JSONL, GZ):
    for kind in ("ragged rows", "unclosed quote", "semicolon delimiter", "header repeated mid-file", "1 MB cells"):
        na(kind, r, "CSV only")

# -- the files themselves
for r in READERS:
    case(
        "folder with a symlink loop",
        r,
        _symlink_loop,
        "parse/unreadable",
        1,
        note="a link to its parent folder is not followed; the data file linking to itself is reported",
    )
    case(
        "unreadable file",
        r,
        _dangling,
        "parse/unreadable",
        1,
        note="a dangling symlink: the tests run as root, for whom chmod 000 does not stop reading",
    )
    case(
        "file disappears during the run",
        r,
        content(lambda b: b),
        "parse/unreadable",
        1,
        in_process=_disappears,
        note="deleted between discovery and reading (in-process; memory is the tracemalloc peak)",
    )

case("file of the wrong kind named like a known one", JSON, content(lambda b: _events()), "parse/invalid-json", 1)
case(
    "file of the wrong kind named like a known one",
    JSONL,
    content(lambda b: _ind()),
    ("parse/invalid-json", "parse/trailing-content", "schema/type"),
    1,
    note="an indented JSON document: each of its lines is a record",
)
case("file of the wrong kind named like a known one", GZ, raw(lambda r: r.base()), "parse/invalid-gzip", 1)
case(
    "file of the wrong kind named like a known one",
    CSV,
    content(lambda b: _ind()),
    "parse/ragged-row",
    1,
    note="a JSON document: its first line `{` is a header of one column",
)

# -- bounded time and memory
N_BLANK = 3_000_000


def blank_lines(after: int) -> Callable[[bytes], bytes]:
    """Three million empty lines after line `after` of the valid file."""

    def transform(data: bytes) -> bytes:
        lines = data.split(b"\n")
        return b"\n".join([*lines[:after], *[b""] * N_BLANK, *lines[after:]])

    return transform


case("3 million blank lines", JSON, content(blank_lines(1)), (), 0, note="white space inside the document")
case(
    "3 million blank lines",
    JSONL,
    content(blank_lines(1)),
    "parse/blank-line",
    0,
    findings=(("parse/blank-line", 2, "3,000,000 empty lines between records (lines 2-3000001)"),),
    note="one warning for the run, at its first line; the lines are skipped in bulk",
)
case(
    "3 million blank lines",
    GZ,
    content(blank_lines(1)),
    "parse/blank-line",
    0,
    findings=(("parse/blank-line", 2, "3,000,000 empty lines between records (lines 2-3000001)"),),
    note="one warning for the run, at its first line; the lines are skipped in bulk",
)
case(
    "3 million blank lines",
    CSV,
    content(blank_lines(2)),
    "parse/blank-row",
    0,
    findings=(("parse/blank-row", 3, "3,000,000 blank lines between rows (lines 3-3000002)"),),
    note="one warning for the run, at its first line; blank rows are counted a chunk at a time",
)


def _newlines(reader: Reader) -> bytes:
    """1 GiB of line feeds, gzip-compressed (about 1 MB)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    lines = b"\n" * MB
    return b"".join([*(c.compress(lines) for _ in range(1024)), c.flush()])


case(
    "gzip bomb of line feeds (1 GB)",
    GZ,
    raw(_newlines),
    "parse/decompressed-too-large",
    1,
    seconds=60,
    rss_mb=120,
    findings=(
        (
            "parse/decompressed-too-large",
            535_937_761,
            "decompresses to more than 536,870,912 bytes (the max-decompressed-bytes option); the rest is not read",
        ),
    ),
    note="refused at 512 MiB decompressed; half a billion blank lines before that cost no finding each",
)
for r in (JSON, JSONL, CSV):
    na("gzip bomb of line feeds (1 GB)", r, "not a gzip reader: see '3 million blank lines'")


def _fifo(folder: Path, reader: Reader) -> None:
    os.mkfifo(folder / reader.file)


def _dev_zero(folder: Path, reader: Reader) -> None:
    (folder / reader.file).symlink_to("/dev/zero")


def _sparse(folder: Path, reader: Reader) -> None:
    # A file one byte over the default max-document-bytes, made without writing it: nothing but
    # its size may be looked at.
    with open(folder / reader.file, "wb") as f:
        f.truncate(512 * MB + 1)


for r in READERS:
    case(
        "named pipe (FIFO)",
        r,
        _fifo,
        "parse/unreadable",
        1,
        findings=(("parse/unreadable", None, "is a named pipe (FIFO), not a regular file"),),
        note="refused before a byte is read: a pipe would wait for a writer forever",
    )
    case(
        "link to /dev/zero",
        r,
        _dev_zero,
        "parse/unreadable",
        1,
        findings=(("parse/unreadable", None, "is a character device, not a regular file"),),
        note="refused before a byte is read: the device never ends",
    )
for r in (JSON, JSONL):
    case(
        "larger than max-document-bytes (512 MiB)",
        r,
        _sparse,
        "parse/too-large",
        1,
        findings=(
            (
                "parse/too-large",
                None,
                "536,870,913 bytes: more than the 536,870,912 bytes a document read whole may have "
                "(the max-document-bytes option); not read",
            ),
        ),
        note="a sparse file: refused by its size, unread",
    )
na("larger than max-document-bytes (512 MiB)", GZ, "streamed: bounded by max-decompressed-bytes instead")
na("larger than max-document-bytes (512 MiB)", CSV, "streamed: memory does not grow with the file")

# -- output that cannot be forged
FORGED = "x\n::error::forged\r\x1b[2K\u2028\u202e"  # what a key or a folder name may hold


def _forging(transform: Callable[[bytes], bytes]) -> Make:
    """The reader's valid file, transformed, in a folder whose name holds control characters."""

    def make(folder: Path, reader: Reader) -> None:
        inner = folder / f"exp{FORGED}"
        inner.mkdir()
        reader.write(inner, transform(reader.base()))

    return make


KEY = json.dumps(f"k{FORGED}").encode()  # JSON escapes of the control characters
case(
    "control characters in names and keys",
    JSON,
    _forging(sub(b'"male": 1', b'"male": 1, ' + KEY + b": 1, " + KEY + b": 2")),
    "parse/duplicate-key",
    1,
    text=True,
)
case(
    "control characters in names and keys",
    JSONL,
    _forging(sub(b'"delay": 500', b'"delay": 500, ' + KEY + b": 1, " + KEY + b": 2")),
    "parse/duplicate-key",
    1,
    text=True,
)
case(
    "control characters in names and keys",
    GZ,
    _forging(sub(b'"style":"essay"', b'"style":"essay",' + KEY + b":1," + KEY + b":2")),
    ("parse/duplicate-key", "schema/additional-properties"),
    1,
    text=True,
    note="the schema's message quotes the key as it is: the text format escapes it",
)
case(
    "control characters in names and keys",
    CSV,
    _forging(lambda b: b.replace(b",knowledge\n", b',knowledge,"' + FORGED.encode() + b'"\n', 1)),
    ("parse/line-ending", "parse/ragged-row"),
    1,
    text=True,
    note="in the text format every finding is one line, its control characters escaped",
)

MATRIX = tuple(CASES_)
KINDS = tuple(dict.fromkeys([c.kind for c in MATRIX] + [k for k, _ in NA]))


# --- the test ---------------------------------------------------------------------------------


def execute(c: Case, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    """Build the case in folder/data and validate it; the files must come out unchanged."""
    data = folder / "data"
    data.mkdir()
    c.make(data, c.reader)
    if c.in_process is not None:
        c.in_process(monkeypatch, data)
        return run_in_process(str(data))
    before = snapshot(data)
    run = run_cli("data", cwd=folder)
    if c.text:
        run.text = run_cli("data", cwd=folder, fmt="text").out
    assert snapshot(data) == before, "the validator changed a file it checked"
    return run


def check_bounds(c: Case, run: Run) -> None:
    """Whatever the verdict: no traceback, at most one line on stderr, in time and memory."""
    assert "Traceback" not in run.out + run.err, run.err
    assert run.err.count("\n") <= 1, run.err
    assert run.seconds < c.seconds, f"{run.seconds:.1f} s"
    assert run.rss_mb < c.rss_mb, f"{run.rss_mb:.0f} MB"


# Never printed raw in the text format: control characters but the line feeds that end lines.
_RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def check_verdict(c: Case, run: Run) -> None:
    assert (run.rc, run.codes) == (c.exit, c.codes), run.err + run.out[:3000]
    if c.findings:
        codes = {code for code, _, _ in c.findings}
        found = [(f["code"], f["line"], f["message"]) for f in run.findings if f["code"] in codes]
        assert found == list(c.findings)
    if c.text:
        assert not _RAW_CONTROL.search(run.text), run.text
        assert run.text.count("\n") == len(run.findings) + 1, run.text  # a line a finding, and the tally


_RUNS: dict[str, Run] = {}


def _run(c: Case, tmp_path_factory: pytest.TempPathFactory) -> Run:
    """Each case runs once; its bounds and its verdict are two tests (a known bug in the
    verdict is an xfail, and must not hide a regression of the bounds)."""
    if c.id not in _RUNS:
        with pytest.MonkeyPatch.context() as mp:
            _RUNS[c.id] = execute(c, tmp_path_factory.mktemp(c.id), mp)
    return _RUNS[c.id]


@pytest.mark.parametrize("c", MATRIX, ids=[c.id for c in MATRIX])
def test_bounded(c: Case, tmp_path_factory: pytest.TempPathFactory) -> None:
    check_bounds(c, _run(c, tmp_path_factory))


@pytest.mark.parametrize(
    "c",
    [pytest.param(c, marks=[pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else []) for c in MATRIX],
    ids=[c.id for c in MATRIX],
)
def test_verdict(c: Case, tmp_path_factory: pytest.TempPathFactory) -> None:
    check_verdict(c, _run(c, tmp_path_factory))


def test_the_matrix_is_complete() -> None:
    """Every row has an entry for every reader: a case, or a reason it does not apply."""
    for kind in KINDS:
        for r in READERS:
            have = [c for c in MATRIX if c.kind == kind and c.reader is r]
            assert len(have) + ((kind, r.name) in NA) == 1, (kind, r.name)


# --- streaming: memory does not grow with the input --------------------------------------------

_SESSION = "61_0a1b2c3d4e5f60718293a4b5c6d7e8f9_text-davinci"


def _large_events(folder: Path, megabytes: int) -> None:
    """A valid crossword event_blocks.csv of one long session, about `megabytes` large."""
    with open(folder / CSV.file, "w", encoding="utf-8", newline="") as f:
        f.write(_events().decode().split("\n", 1)[0] + "\n")
        k, size = 0, 0
        while size < megabytes * MB:
            line = (
                f"crossword-{k:02d},{_SESSION},0a1b2c3d4e5f60718293a4b5c6d7e8f9,InstructDavinci,61,{k * 1.5},1,2,{k},"
                'NYT-1,capital of peru,"Lima, the capital of Peru.",'
                f"\"['question', 'keyword']\",{k:02d},1,across,knowledge\n"
            )
            f.write(line)
            size += len(line)
            k += 1


def _large_log(folder: Path, megabytes: int) -> None:
    """A valid writing log of one response, about `megabytes` decompressed."""
    with gzip.open(folder / GZ.file, "wb", compresslevel=1) as f:
        k, size = 0, 0
        while size < megabytes * MB:
            line = log_line(k, SENTENCE * 8)
            f.write(line)
            size += len(line)
            k += 1


STREAMED: dict[str, Callable[[Path, int], None]] = {GZ.name: _large_log, CSV.name: _large_events}
SIZES = (8, 64)  # megabytes (decompressed)
GROWTH_MB = 16  # most the peak may grow from the smaller file to the 8 times larger one


def measure_growth(reader: str, tmp: Path) -> list[Run]:
    runs = []
    for megabytes in SIZES:
        folder = tmp / f"{megabytes}MB"
        (folder / "data").mkdir(parents=True)
        STREAMED[reader](folder / "data", megabytes)
        runs.append(run_cli("data", cwd=folder))
    return runs


@pytest.mark.parametrize("reader", sorted(STREAMED))
def test_streamed_readers_do_not_grow_with_the_input(reader: str, tmp_path: Path) -> None:
    small, large = measure_growth(reader, tmp_path)
    for run in (small, large):
        assert (run.rc, run.codes, run.err) == (0, (), ""), run.out[:2000]
    assert large.rss_mb - small.rss_mb < GROWTH_MB, (small.rss_mb, large.rss_mb)
    assert large.seconds < 60


# --- the table in docs/hostile-input.md ---------------------------------------------------------

HEADER = "| case | reader | finding codes | exit | time (s) | peak memory (MB) | bound (s / MB) | note |"


def _codes_cell(codes: tuple[str, ...]) -> str:
    return ", ".join(f"`{c}`" for c in codes) if codes else "none"


def row(c: Case, run: Run | None) -> str:
    note = c.note
    if c.xfail:
        note = ("**known bug, xfail**: " + c.xfail + (f"; {note}" if note else "")).strip()
    measured = (
        ("-", "-") if run is None else (f"{run.seconds:.2f}", f"{run.rss_mb:.0f}" + ("†" if run.in_process else ""))
    )
    return (
        f"| {c.kind} | {c.reader.name} | {_codes_cell(c.codes)} | {c.exit} | {measured[0]} | {measured[1]} "
        f"| {c.seconds:g} / {c.rss_mb:g} | {note} |"
    )


def na_row(kind: str, reader: str) -> str:
    return f"| {kind} | {reader} | n/a | | | | | {NA[(kind, reader)]} |"


def _ordered() -> Iterator[tuple[str, Reader, Case | None]]:
    for kind in KINDS:
        for r in READERS:
            match = [c for c in MATRIX if c.kind == kind and c.reader is r]
            yield kind, r, match[0] if match else None


def _asserted(line: str) -> tuple[str, ...]:
    """The columns of a table row that tests assert (not the measured ones)."""
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return (cells[0], cells[1], cells[2], cells[3], cells[6])


def test_the_docs_table_matches_the_matrix() -> None:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(HEADER)
    lines = text[start:].splitlines()[2:]
    lines = lines[: next((i for i, line in enumerate(lines) if not line.startswith("|")), len(lines))]
    expected = [row(c, None) if c else na_row(k, r.name) for k, r, c in _ordered()]
    assert [_asserted(line) for line in lines] == [_asserted(line) for line in expected]


GROWTH_HEADER = "| reader | valid file | peak memory (MB) | time (s) |"


def main() -> None:
    """Run every case and print the Markdown tables for docs/hostile-input.md."""
    import tempfile

    print(HEADER)
    print("|---|---|---|---:|---:|---:|---:|---|")
    for kind, r, c in _ordered():
        if c is None:
            print(na_row(kind, r.name))
            continue
        with tempfile.TemporaryDirectory() as tmp:
            mp = pytest.MonkeyPatch()
            try:
                run = execute(c, Path(tmp), mp)
            finally:
                mp.undo()
        try:
            check_bounds(c, run)
            check_verdict(c, run)
        except AssertionError as exc:
            print(f"{c.id}: {'(xfail) ' if c.xfail else ''}{exc} {run.codes} rc={run.rc}", file=sys.stderr)
        print(row(c, run), flush=True)
    print()
    print(GROWTH_HEADER)
    print("|---|---:|---:|---:|")
    for reader in sorted(STREAMED):
        with tempfile.TemporaryDirectory() as tmp:
            for megabytes, run in zip(SIZES, measure_growth(reader, Path(tmp)), strict=True):
                print(f"| {reader} | {megabytes} MB | {run.rss_mb:.0f} | {run.seconds:.2f} |", flush=True)


if __name__ == "__main__":
    main()
