"""Reading files into documents: JSON whole, JSON Lines record by record, with every problem of
the bytes themselves (encoding, syntax, duplicate keys, NaN) reported as a finding, never raised.
"""

from __future__ import annotations

import gc
import json
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import orjson

from .config import Config
from .finding import escape_token, split_pointer
from .locate import LineIndex, locate
from .registry import register


class Problem(NamedTuple):
    """A finding before the engine gives it a file and a severity."""

    code: str
    message: str
    pointer: str = ""
    line: int | None = None
    column: int | None = None


BROKEN: Any = object()  # placeholder for a JSONL record that did not parse
_BOM = b"\xef\xbb\xbf"
_NON_FINITE = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)', re.DOTALL)
# The default of the `max-document-bytes` option: JSON and JSON Lines files are read whole.
DEFAULT_MAX_DOCUMENT = Config.max_document_bytes
# Blank lines from a line start on, each ending with its line feed: the class takes in the line
# feeds too, so that a run of a million blank lines is one pass of the regex engine, not a
# million (the engine then gives back the white space that starts the next line).
_BLANK_LINES = re.compile(rb"[ \t\n\r\x0b\x0c]*\n")
_GROWN = 1 << 24  # bytes read at a time from a file that grew since it was measured

register(
    "parse/unreadable",
    "the file cannot be read",
    why="A file the validator cannot open (permissions, a broken link, a folder named like a "
    "file) cannot be checked; it is reported instead of skipped so that nothing passes unseen. "
    "Only regular files are read: a named pipe would wait forever for a writer, and a link to a "
    "device such as /dev/zero would be read until memory runs out.",
    bad="human_data_ind.json  (mode 000, or a link to /dev/zero)",
    good="human_data_ind.json  (a readable regular file)",
)
register(
    "parse/too-large",
    "the file is larger than a document read whole may be",
    why="JSON and JSON Lines files are read whole, and parsing one takes several times its size "
    "in memory (a 50 MB CogGym file peaks at about 360 MB). A file larger than "
    "`max-document-bytes` (default 512 MiB, ten times the largest real dataset) is refused "
    "before a byte of it is read; raise the option for a genuinely larger dataset.",
    bad="human_data_ind.json  (2 GB)",
    good="human_data_ind.json  (55 MB)",
)
register(
    "parse/empty",
    "the file is empty or only white space",
    why="An empty file is never a valid document of any format; it is usually an export that failed half-way.",
    bad="(0 bytes)",
    good='{"participants_info": {"count": 2}}',
)
register(
    "parse/bom",
    "the file starts with a byte-order mark",
    why="RFC 8259 forbids a byte-order mark in JSON text, and several parsers reject it; it "
    "usually comes from an editor on Windows. The rest of the file is still checked.",
    bad="\\xef\\xbb\\xbf{...}",
    good="{...}",
)
register(
    "parse/invalid-utf8",
    "the file is not valid UTF-8",
    why="JSON exchanged between systems must be UTF-8 (RFC 8259). Latin-1 or UTF-16 exports "
    "read as garbage or fail elsewhere.",
    bad='{"text": "caf\\xe9"}  (Latin-1 byte)',
    good='{"text": "café"}  (UTF-8)',
)
register(
    "parse/invalid-json",
    "the text is not valid JSON",
    why="A syntax error stops every consumer of the file; the position says where parsing failed.",
    bad='{"id": "t1",}',
    good='{"id": "t1"}',
)
register(
    "parse/trailing-content",
    "there is more text after the JSON document",
    why="Two documents concatenated, or a JSON Lines file named .json: a strict parser rejects "
    "the file, a lenient one silently drops the rest.",
    bad='{"id": 1}\n{"id": 2}',
    good='[{"id": 1}, {"id": 2}]',
)
register(
    "parse/duplicate-key",
    "an object has the same key twice",
    why="Parsers keep one of the two values (most the last, some the first) without a word, so "
    "the data read depends on the reader. Plain schema validators cannot see it.",
    bad='{"t1": {"rating": [1, 2]}, "t1": {"rating": [3]}}',
    good='{"t1": {"rating": [1, 2]}, "t2": {"rating": [3]}}',
)
register(
    "parse/non-finite-number",
    "NaN or Infinity, which JSON does not have",
    why="pandas and Python's json module write NaN and Infinity by default, but they are not "
    "JSON: strict parsers reject the file and lenient ones disagree on the value. Use null.",
    bad='{"mean_human": NaN}',
    good='{"mean_human": null}',
)
register(
    "parse/number-out-of-range",
    "a number too large to be represented as a double",
    why="1e400 or a 400-digit integer becomes infinity or loses its digits in every reader.",
    bad='{"count": 1e400}',
    good='{"count": 1000}',
)
register(
    "parse/too-deep",
    "the document is nested too deeply",
    why="More than 1024 levels of nesting is never a real dataset and exhausts the stack of recursive parsers.",
    bad="[[[[ ... 2000 levels ... ]]]]",
    good="[[1, 2], [3, 4]]",
)
register(
    "parse/blank-line",
    "a JSON Lines file has an empty line between records",
    severity="warning",
    why="JSON Lines has one JSON value per line; readers differ on blank lines (some stop, some "
    "fail, some skip). A final newline at the end of the file is fine. Consecutive blank lines "
    "are one finding, at the first of them, that says how many there are.",
    bad='{"id": "t1"}\n\n{"id": "t2"}',
    good='{"id": "t1"}\n{"id": "t2"}',
)


@contextmanager
def _gc_paused() -> Iterator[None]:
    # Parsing allocates millions of containers that all survive; letting the cyclic collector
    # scan them during the parse costs two to three times the parse itself.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_SPECIAL = {
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def _not_regular(mode: int) -> Problem:
    if stat.S_ISDIR(mode):
        return Problem("parse/unreadable", "is a folder, not a file")
    return Problem("parse/unreadable", f"is {_SPECIAL.get(stat.S_IFMT(mode), 'a special file')}, not a regular file")


def open_regular(path: Path) -> BinaryIO | Problem:
    """The file opened for reading in binary, or the problem: anything but a regular file (after
    links) is refused before a byte of it is read, since a named pipe blocks the reader forever
    and a device such as /dev/zero never ends."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return Problem("parse/unreadable", f"cannot read the file: {exc.strerror or exc}")
    if not stat.S_ISREG(mode):
        return _not_regular(mode)
    # Swapped for a pipe since the stat: opening without blocking, then looking again at what was
    # opened, keeps the run from hanging on it.
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        return Problem("parse/unreadable", f"cannot read the file: {exc.strerror or exc}")
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        return _not_regular(mode)
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_bytes(path: Path, max_bytes: int = DEFAULT_MAX_DOCUMENT) -> bytes | Problem:
    """The bytes of a file read whole, or the problem: not a regular file, or more than
    `max_bytes` (the max-document-bytes option), in which case nothing is read."""
    opened = open_regular(path)
    if isinstance(opened, Problem):
        return opened
    with opened as f:
        size = os.fstat(f.fileno()).st_size
        if size > max_bytes:
            return _too_large(size, max_bytes)
        try:
            parts: list[bytes] = []
            total, step = 0, size + 1  # one read of the whole file, and one to see that it ended
            while total <= max_bytes:
                data = f.read(min(step, max_bytes + 1 - total))
                if not data:
                    break
                parts.append(data)
                total += len(data)
                step = _GROWN
        except OSError as exc:
            return Problem("parse/unreadable", f"cannot read the file: {exc.strerror or exc}")
    if total > max_bytes:
        return _too_large(None, max_bytes)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _too_large(size: int | None, max_bytes: int) -> Problem:
    what = f"{size:,} bytes" if size is not None else "grew while it was read"
    return Problem(
        "parse/too-large",
        f"{what}: more than the {max_bytes:,} bytes a document read whole may have "
        "(the max-document-bytes option); not read",
    )


def _decode_problem(raw: bytes) -> Problem | None:
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return Problem("parse/invalid-utf8", "the file is UTF-16; save it as UTF-8", "", 1, 1)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = len(raw[raw.rfind(b"\n", 0, exc.start) + 1 : exc.start].decode("utf-8", "replace"))
        return Problem(
            "parse/invalid-utf8",
            f"byte {raw[exc.start]:#04x} is not valid UTF-8",
            "",
            line,
            col + 1,
        )
    return None


def _syntax_problem(raw: bytes, exc: orjson.JSONDecodeError, first_line: int) -> Problem:
    msg = str(exc.msg)
    line, col = first_line + exc.lineno - 1, exc.colno
    if "not valid UTF-8" in msg:
        bad = _decode_problem(raw)
        if bad is not None:
            return bad._replace(line=(bad.line or 1) + first_line - 1)
    if not raw.strip():
        return Problem("parse/empty", "the file is empty" if not raw else "only white space")
    text = raw.decode("utf-8", "replace")
    at = text[exc.pos : exc.pos + 9]
    if at.startswith(("NaN", "Infinity", "-Infinity")) or (
        msg.startswith("no digit after sign") and text[exc.pos - 1 : exc.pos + 8] == "-Infinity"
    ):
        return Problem("parse/non-finite-number", "NaN and Infinity are not JSON; use null", "", line, col)
    if "infinity when parsed" in msg:
        return Problem("parse/number-out-of-range", "number too large for a double", "", line, col)
    if "depth limit" in msg:
        return Problem("parse/too-deep", "nested more than 1024 levels deep", "", line, col)
    if "unexpected content after document" in msg:
        return Problem("parse/trailing-content", "more text after the end of the JSON document", "", line, col)
    return Problem("parse/invalid-json", msg, "", line, col)


def _duplicate_pointers(text: str) -> list[str]:
    """Pointers of every key that occurs more than once in its object (the slow, exact pass)."""
    dupes: dict[int, list[str]] = {}

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        d = dict(items)
        if len(d) != len(items):
            seen: set[str] = set()
            dupes[id(d)] = [k for k, _ in items if k in seen or seen.add(k)]  # type: ignore[func-returns-value]
        return d

    with _gc_paused():
        root = json.loads(text, object_pairs_hook=pairs, parse_constant=lambda _: None)
    out: list[str] = []
    stack: list[tuple[Any, str]] = [(root, "")]
    while stack and dupes:
        node, ptr = stack.pop()
        if isinstance(node, dict):
            for key in dupes.pop(id(node), ()):
                out.append(ptr + "/" + escape_token(key))
            stack.extend((v, ptr + "/" + escape_token(k)) for k, v in node.items() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, f"{ptr}/{i}") for i, v in enumerate(node) if isinstance(v, (dict, list)))
    return sorted(set(out))


_ESCAPED_COLON = re.compile(rb"\\u003[aA]")  # JSON escapes are a lower-case u, then any hex digits


def has_duplicates(raw: bytes, data: Any) -> bool:
    # Every object member has exactly one ':' outside strings, and re-serialising keeps every ':'
    # inside strings, so the counts differ exactly when the parse dropped a duplicate member.
    # A colon written as the escape \u003a would fool the count: take the exact path then.
    if _ESCAPED_COLON.search(raw):
        return True
    return raw.count(b":") != orjson.dumps(data).count(b":")


def parse(raw: bytes, first_line: int = 1) -> tuple[Any, list[Problem]]:
    """Parse one JSON text. Returns (value or BROKEN, problems). Pointers in problems are
    relative to this text; line numbers start at first_line."""
    problems: list[Problem] = []
    if raw.startswith(_BOM):
        problems.append(Problem("parse/bom", "byte-order mark at the start of the file", "", first_line, 1))
        raw = raw[3:]
    try:
        with _gc_paused():
            data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        problem = _syntax_problem(raw, exc, first_line)
        if problem.code == "parse/non-finite-number":
            problems.extend(_all_non_finite(raw.decode("utf-8", "replace"), first_line))
        else:
            problems.append(problem)
        return BROKEN, problems
    if has_duplicates(raw, data):
        text = raw.decode("utf-8")
        dupes = _duplicate_pointers(text)
        offsets = locate(text, dupes)
        index = LineIndex(text, first_line)
        for ptr in dupes:
            line, col = index.position(offsets[ptr]) if ptr in offsets else (None, None)
            key = split_pointer(ptr)[-1]
            problems.append(
                Problem(
                    "parse/duplicate-key",
                    f"key {key!r} appears more than once; the last value is the one read",
                    ptr,
                    line,
                    col,
                )
            )
    return data, problems


def _all_non_finite(text: str, first_line: int) -> list[Problem]:
    index = LineIndex(text, first_line)
    out = []
    for m in _NON_FINITE.finditer(text):
        if m.group(1):
            line, col = index.position(m.start(1))
            out.append(Problem("parse/non-finite-number", f"{m.group(1)} is not JSON; use null", "", line, col))
    return out


@dataclass
class JsonDocument:
    """A whole-file JSON document that parsed."""

    path: Path
    raw: bytes
    data: Any

    def positions(self, pointers: list[str]) -> dict[str, tuple[int, int]]:
        text = self.raw.decode("utf-8", "replace")
        index = LineIndex(text)
        return {p: index.position(o) for p, o in locate(text, pointers).items()}


@dataclass
class JsonlDocument:
    """A JSON Lines file held in memory: records (BROKEN where a line did not parse) with the
    physical line of each. The pointer of a record is its 0-based index among the records."""

    path: Path
    raw: bytes
    records: list[Any] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)

    @property
    def data(self) -> list[Any]:
        return self.records

    def positions(self, pointers: list[str]) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        for p in pointers:
            tokens = split_pointer(p)
            if not tokens or not tokens[0].isdigit() or int(tokens[0]) >= len(self.records):
                continue
            i = int(tokens[0])
            start, end = self.spans[i]
            text = self.raw[start:end].decode("utf-8", "replace")
            rest = p[len(tokens[0]) + 1 :]
            offset = locate(text, [rest]).get(rest, 0)
            out[p] = LineIndex(text, self.lines[i]).position(offset)
        return out


def blank_run(code: str, first: int, count: int, blank: str, between: str) -> Problem:
    """One finding for `count` consecutive blank lines from line `first` on."""
    if count == 1:
        return Problem(code, f"{blank} line between {between}", "", first, 1)
    last = first + count - 1
    return Problem(code, f"{count:,} {blank} lines between {between} (lines {first}-{last})", "", first, 1)


def iter_lines(raw: bytes, start: int = 0, size: int | None = None) -> Iterator[tuple[int, int, int, int]]:
    """(line number, start, end, blank lines just before it) of every line of raw[start:size]
    that is not blank, without its line ending; lines are numbered from 1 at `start`. Runs of
    blank lines are skipped in bulk."""
    size = len(raw) if size is None else size
    n, blank = 1, 0
    while start < size:
        skipped = _BLANK_LINES.match(raw, start, size)
        if skipped is not None:
            lines = raw.count(b"\n", start, skipped.end())
            blank, n, start = blank + lines, n + lines, skipped.end()
            continue
        end = raw.find(b"\n", start, size)
        if end == -1:
            end = size
        stop = end - 1 if end > start and raw[end - 1 : end] == b"\r" else end
        if end < size or raw[start:stop].strip():  # not the last line, white space without a line feed
            yield n, start, stop, blank
            blank = 0
        start, n = end + 1, n + 1


def parse_jsonl(path: Path, raw: bytes) -> tuple[JsonlDocument, list[Problem]]:
    doc = JsonlDocument(path, raw)
    problems: list[Problem] = []
    if raw.startswith(_BOM):
        problems.append(Problem("parse/bom", "byte-order mark at the start of the file", "", 1, 1))
        raw = b"   " + raw[3:]  # keep offsets: spans index into doc.raw
        doc.raw = raw
    bad_encoding = _decode_problem(raw)
    if bad_encoding is not None:
        problems.append(bad_encoding)
        return doc, problems
    if not raw.strip():
        problems.append(Problem("parse/empty", "the file is empty" if not raw else "only white space"))
        return doc, problems
    for line, start, end, blank in iter_lines(raw):
        if blank:
            problems.append(blank_run("parse/blank-line", line - blank, blank, "empty", "records"))
        index = len(doc.records)
        value, line_problems = parse(raw[start:end], line)
        for p in line_problems:
            problems.append(p._replace(pointer=f"/{index}{p.pointer}"))
        doc.records.append(value)
        doc.lines.append(line)
        doc.spans.append((start, end))
    # After the last record, line endings alone are the end of the file; blank lines up to the
    # last one that holds anything else (white space) are reported.
    tail = raw[doc.spans[-1][1] :].rstrip(b"\r\n")
    if b"\n" in tail:
        problems.append(blank_run("parse/blank-line", doc.lines[-1] + 1, tail.count(b"\n"), "empty", "records"))
    return doc, problems


def load(
    path: Path, max_bytes: int = DEFAULT_MAX_DOCUMENT
) -> tuple[JsonDocument | JsonlDocument | None, list[Problem]]:
    """Read and parse a .json or .jsonl file of at most `max_bytes` (the max-document-bytes
    option). The document is None when nothing can be checked."""
    return document(path, read_bytes(path, max_bytes))


def document(path: Path, raw: bytes | Problem) -> tuple[JsonDocument | JsonlDocument | None, list[Problem]]:
    """`load` of bytes already read (or of the problem reading them)."""
    if isinstance(raw, Problem):
        return None, [raw]
    if path.name.endswith(".jsonl"):
        return parse_jsonl(path, raw)
    data, problems = parse(raw)
    if data is BROKEN:
        return None, problems
    return JsonDocument(path, raw[3:] if raw.startswith(_BOM) else raw, data), problems


def display_path(path: Path, cwd: str | None = None) -> str:
    """The path as findings show it: relative to the working folder when inside it."""
    cwd = cwd or os.getcwd()
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        rel = ".."
    shown = str(path) if rel.startswith("..") else rel
    # A name that is not UTF-8 reaches Python as lone surrogates, which no output can encode:
    # its bytes are written as escapes (b'exp\xff' -> 'exp\\xff').
    return shown.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
