"""Gzip-compressed JSON Lines, read as a stream: one record at a time, in bounded memory, whatever
the size of the file.

Every problem of the bytes (a truncated or corrupt gzip stream, a decompression bomb, gzip inside
gzip, an endless line, a record that is not JSON) is a `Problem` with the physical line of the
decompressed stream, never an exception. Nothing is kept of a record once the caller is done with
it: documents of streamed files remember only the lines (and, for the few records a finding is
about, the bytes) needed to place findings.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..finding import split_pointer
from .files import BOM, UTF16, Problem, blank_run, bom_problem, iter_lines, open_regular, utf16
from .jsonfile import BROKEN, parse
from .limits import GZ_MAX_DECOMPRESSED, GZ_MAX_LINE_BYTES
from .locate import LineIndex, locate

MAX_LINE_BYTES = GZ_MAX_LINE_BYTES  # see limits.py
DEFAULT_MAX_DECOMPRESSED = GZ_MAX_DECOMPRESSED
_READ = 1 << 16  # compressed bytes read at a time
_STEP = 1 << 20  # most decompressed bytes produced by one step
_GZIP_MAGIC = b"\x1f\x8b"
# Bytes of the raw lines kept to compute the columns of findings in streamed files.
_KEEP_BYTES = 8 * 1024 * 1024
# Lines of a decompressed step split in one call. A step of more lines than this (all of them
# short, or blank) is walked by offset instead, where runs of blank lines cost one C pass: split,
# a million newlines would be a list of a million empty lines.
_SPLIT = 1 << 14


def _colons(value: Any) -> int:
    """Colons a JSON text of this value holds: one per object member, plus those inside strings."""
    kind = type(value)
    if kind is str:
        return value.count(":")  # type: ignore[no-any-return]
    if kind is dict:
        n = len(value)
        for k, v in value.items():
            n += k.count(":")
            kind = type(v)
            if kind is str:
                n += v.count(":")
            elif kind is dict or kind is list:
                n += _colons(v)
        return n
    if kind is list:
        return sum(_colons(v) for v in value)
    return 0


def parse_record(raw: bytes, line: int) -> tuple[Any, list[Problem]]:
    """Parse one line: the common, valid case in C; every problem through `sources.parse`.

    A member dropped as a duplicate key shows as a missing colon: every member has one outside
    strings, and a colon inside a string can only be written as itself or as \\u003a. When the
    colons of the line are exactly the members of a flat object, nothing can have been dropped.
    """
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return parse(raw, line)
    colons = raw.count(b":")
    if type(value) is dict and colons == len(value):
        return value, []
    if colons == _colons(value) and b"\\u003" not in raw:
        return value, []
    return parse(raw, line)


@dataclass
class StreamedDocument:
    """A streamed file as findings see it: the line (and, when cheap, the text) of the records
    that findings point into. The pointer of a record is its 0-based index among the records."""

    path: Path
    spots: dict[int, tuple[int, bytes | None]] = field(default_factory=dict)
    kept: int = 0

    def remember(self, index: int, line: int, raw: bytes | None = None) -> None:
        """Keep where record `index` is; with its bytes (for columns) while the budget lasts."""
        if raw is not None and self.kept + len(raw) <= _KEEP_BYTES:
            self.kept += len(raw)
        else:
            raw = None
        old = self.spots.get(index)
        if old is None or old[1] is None:
            self.spots[index] = (line, raw)

    def positions(self, pointers: list[str]) -> dict[str, tuple[int, int | None]]:
        out: dict[str, tuple[int, int | None]] = {}
        for p in pointers:
            tokens = split_pointer(p)
            if not tokens or not tokens[0].isdigit() or int(tokens[0]) not in self.spots:
                continue
            line, raw = self.spots[int(tokens[0])]
            rest = p[len(tokens[0]) + 1 :]
            if raw is None:
                out[p] = (line, 1 if not rest else None)
                continue
            text = raw.decode("utf-8", "replace")
            offset = locate(text, [rest]).get(rest, 0)
            out[p] = LineIndex(text, line).position(offset)
        return out


class GzipJsonLines:
    """The records of one .jsonl.gz file, read once, front to back.

    Iterating yields (record index, physical line, value or BROKEN, raw bytes); the problems of
    the bytes accumulate in `problems` (pointers of record problems start with the record index).
    `complete` is False when the stream could not be read to its end: rules that need every
    record must then stay silent.
    """

    def __init__(self, path: Path, max_bytes: int = DEFAULT_MAX_DECOMPRESSED) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.problems: list[Problem] = []
        self.complete = True
        self.records = 0
        self.lines = 0  # physical lines read so far
        self.blank = 0  # blank lines just read, reported (as one finding) when a record follows

    def _fail(self, code: str, message: str, line: int | None = None) -> None:
        self.problems.append(Problem(code, message, "", line, None if line is None else 1))
        self.complete = False

    def _chunks(self) -> Iterator[bytes]:
        """The decompressed bytes, in steps of at most _STEP bytes (every gzip member in turn)."""
        f = open_regular(self.path)
        if isinstance(f, Problem):
            self._fail(f.code, f.message)
            return
        with f:
            data = f.read(_READ)
            if not data:
                self._fail("parse/empty", "the file is empty")
                return
            if not data.startswith(_GZIP_MAGIC):
                self._fail("parse/invalid-gzip", f"not a gzip file: it starts with {data[:8]!r}")
                return
            total = 0
            d = zlib.decompressobj(zlib.MAX_WBITS | 16)
            while True:
                try:
                    out = d.decompress(data, _STEP)
                    while True:
                        if out:
                            total += len(out)
                            if total > self.max_bytes:
                                self._fail(
                                    "parse/decompressed-too-large",
                                    f"decompresses to more than {self.max_bytes:,} bytes "
                                    "(the max-decompressed-bytes option); the rest is not read",
                                    self.lines + 1,
                                )
                                return
                            yield out
                        if not d.unconsumed_tail:
                            break
                        out = d.decompress(d.unconsumed_tail, _STEP)
                except zlib.error as exc:
                    self._fail("parse/invalid-gzip", f"corrupt gzip data: {exc}", self.lines + 1)
                    return
                if not d.eof:
                    data = f.read(_READ)
                    if not data:
                        self._fail(
                            "parse/truncated-gzip",
                            "the gzip stream ends before its end marker: the file is cut short",
                            self.lines + 1,
                        )
                        return
                    continue
                data = d.unused_data
                if len(data) < 2:
                    data += f.read(_READ)
                if not data.strip(b"\x00"):  # the end (zero padding after the stream is tolerated)
                    return
                if not data.startswith(_GZIP_MAGIC):
                    self._fail(
                        "parse/invalid-gzip", "bytes after the end of the gzip stream that are not gzip", self.lines + 1
                    )
                    return
                d = zlib.decompressobj(zlib.MAX_WBITS | 16)  # another member: concatenated gzip is valid

    def _blank_before(self, line: int) -> None:
        """Report the blank lines just before `line`."""
        self.problems.append(blank_run("parse/blank-line", line - self.blank, self.blank, "empty", "records"))
        self.blank = 0

    def _too_long(self, line: int) -> None:
        if self.blank:  # a runaway is a record, however broken: the blank lines are between records
            self._blank_before(line)
        self.problems.append(
            Problem("parse/line-too-long", f"line longer than {MAX_LINE_BYTES:,} bytes; skipped", "", line, 1)
        )

    def _take(self, piece: bytes) -> bool:
        """Count one line; whether it is a record to read (neither a runaway nor blank)."""
        self.lines += 1
        if len(piece) > MAX_LINE_BYTES:
            self._too_long(self.lines)
            return False
        if not piece.strip():
            self.blank += 1
            return False
        if self.blank:
            self._blank_before(self.lines)
        return True

    def _lines(self) -> Iterator[tuple[int, bytes]]:
        """(physical line, bytes without the line feed) of every line that is neither blank nor a
        runaway; blank lines are counted, and reported when a record follows them."""
        carry: list[bytes] = []  # pieces of the line being assembled
        size = 0
        skipping = False  # inside a line that is too long: drop bytes up to the next line feed
        first = True
        for chunk in self._chunks():
            if first:
                first = False
                if chunk.startswith(_GZIP_MAGIC):
                    self._fail(
                        "parse/nested-gzip", "the decompressed content is gzip again: the file was compressed twice", 1
                    )
                    return
                if utf16(chunk):
                    self._fail("parse/invalid-utf8", UTF16, 1)
                    return
                if chunk.startswith(BOM):
                    self.problems.append(bom_problem())
                    chunk = chunk[3:]
            if skipping:
                end = chunk.find(b"\n")
                if end == -1:
                    continue
                skipping = False
                self.lines += 1
                chunk = chunk[end + 1 :]
            pieces = chunk.split(b"\n", _SPLIT)
            last = pieces.pop()
            if len(pieces) < _SPLIT and b"" not in pieces and b"\r" not in pieces:
                # the usual step: its lines split in C, hardly one of them blank
                if carry and pieces:
                    pieces[0] = b"".join(carry) + pieces[0]
                    carry, size = [], 0
                for piece in pieces:
                    self.lines += 1
                    if len(piece) > MAX_LINE_BYTES:
                        self._too_long(self.lines)
                    elif not piece.strip():
                        self.blank += 1
                    else:
                        if self.blank:
                            self._blank_before(self.lines)
                        yield self.lines, piece
            else:
                # blank lines, or a great many short ones: walked by offset, a run of blank lines in
                # one pass (a line inside one step is shorter than a step, never a runaway)
                body = chunk.rfind(b"\n") + 1  # the end of the last whole line
                start, last = 0, chunk[body:]
                if carry:
                    start = chunk.find(b"\n") + 1
                    piece = b"".join(carry) + chunk[: start - 1]
                    carry, size = [], 0
                    if self._take(piece):
                        yield self.lines, piece
                before, n = self.lines, 0
                for n, begin, stop, blank in iter_lines(chunk, start, body):
                    self.blank += blank
                    if self.blank:
                        self._blank_before(before + n)
                    self.lines = before + n
                    yield self.lines, chunk[begin:stop]
                lines = chunk.count(b"\n", start, body)
                self.blank += lines - n
                self.lines = before + lines
            if last:
                carry.append(last)
                size += len(last)
                if size > MAX_LINE_BYTES:
                    self._too_long(self.lines + 1)
                    carry, size, skipping = [], 0, True
        if carry and self.complete:  # the end of a cut stream is half a line: not a record
            piece = b"".join(carry)
            if self._take(piece):
                yield self.lines, piece

    def __iter__(self) -> Iterator[tuple[int, int, Any, bytes]]:
        empty = True
        for line, raw in self._lines():
            empty = False
            index = self.records
            self.records += 1
            value, problems = parse_record(raw, line)
            for p in problems:
                self.problems.append(p._replace(pointer=f"/{index}{p.pointer}"))
            yield index, line, value, raw
        if empty and not self.problems:
            self.problems.append(
                Problem("parse/empty", "the file decompresses to nothing" if not self.lines else "only white space")
            )


__all__ = ["BROKEN", "DEFAULT_MAX_DECOMPRESSED", "MAX_LINE_BYTES", "GzipJsonLines", "StreamedDocument", "parse_record"]
