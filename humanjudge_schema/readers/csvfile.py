"""CSV files as a stream of rows, each with its physical line.

Reading happens in two steps. A pass over the bytes (cheap: a few C calls per megabyte) finds
what the CSV parser would hide or choke on: a byte-order mark, UTF-16, bytes that are not UTF-8,
NUL bytes, lone carriage returns, runaway lines. Then the `csv` module reads the rows (quoted
cells may span lines: a row's line is the line it starts on), and every problem it meets is a
finding: unclosed quotes, text after a closing quote, ragged rows, a repeated header, a cell
larger than the reader accepts. Nothing is raised; nothing is held but the rows of the chunk
being checked. The cells stay text here: `csvcells` types them by the row schema.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from operator import itemgetter
from pathlib import Path
from typing import Any, BinaryIO

from ..finding import split_pointer
from .files import BOM, UTF16, Problem, blank_run, bom_problem, not_utf8, open_regular, utf16
from .limits import CSV_MAX_CELL, CSV_MAX_LINE_BYTES

MAX_CELL = CSV_MAX_CELL  # see limits.py
MAX_LINE_BYTES = CSV_MAX_LINE_BYTES
_CHUNK = 1 << 20
_DELIMITERS = (";", "\t", "|")


# --- the bytes --------------------------------------------------------------------------------


@dataclass
class _Scan:
    problems: list[Problem] = field(default_factory=list)
    readable: bool = True
    stop: int | None = None  # a line too long: rows from this line on are not read


_LONE_CR = re.compile(rb"\r(?!\n)")


def _breaks(data: bytes) -> int:
    return data.count(b"\n") + (len(_LONE_CR.findall(data)) if b"\r" in data else 0)


def _positions(path: Path, offsets: set[int]) -> dict[int, tuple[int, int]]:
    """(line, column) of byte offsets of a file: a second look at the bytes, only when the first
    found something to report. Lines end at LF, CR LF or a lone CR, as the CSV reader sees them."""
    out: dict[int, tuple[int, int]] = {}
    wanted = sorted(offsets)
    line, pos, tail = 1, 0, b""  # line at the chunk's start, its offset, the line's bytes before it
    f = open_regular(path)
    if isinstance(f, Problem):
        return out
    with f:
        while wanted:
            chunk = f.read(_CHUNK)
            if not chunk:
                break
            if chunk.endswith(b"\r"):
                chunk += f.read(1)  # keep CR LF together
            while wanted and wanted[0] < pos + len(chunk):
                head = chunk[: wanted[0] - pos]
                breaks = _breaks(head)
                head = head[max(head.rfind(b"\n"), head.rfind(b"\r")) + 1 :] if breaks else tail + head
                out[wanted.pop(0)] = (line + breaks, len(head.decode("utf-8", "replace")) + 1)
            line += _breaks(chunk)
            last = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
            tail = chunk[last + 1 :] if last != -1 else (tail + chunk)[-MAX_LINE_BYTES:]
            pos += len(chunk)
    return out


def _cut(chunk: bytes) -> int:
    """Where to end a chunk so that neither a CR LF nor a UTF-8 sequence is split."""
    end = len(chunk)
    if chunk.endswith(b"\r"):
        return end - 1
    for back in range(1, min(4, end) + 1):
        b = chunk[end - back]
        if b < 0x80:
            return end
        if b >= 0xC0:  # the lead byte of a multi-byte sequence
            need = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
            return end - back if need > back else end
    return end


@dataclass
class _Marks:
    """Where the pass over the bytes first saw each problem (byte offsets), and how often."""

    bad_utf8: tuple[int, int] | None = None  # (offset, byte)
    nul: int | None = None
    nuls: int = 0
    lone_cr: int | None = None
    lone_crs: int = 0
    too_long: int | None = None  # offset where the runaway line starts


def _scan(path: Path) -> _Scan:
    """The pass over the bytes; see the module docstring."""
    f = open_regular(path)
    if isinstance(f, Problem):
        return _Scan([f], False)
    with f:
        pending = f.read(_CHUNK)
        refused = _refused(f, pending)
        if refused is not None:
            return _Scan([refused], False)
        out = _Scan([bom_problem()] if pending.startswith(BOM) else [])
        marks = _mark(f, pending)
        _report(path, marks, out)
    return out


def _refused(f: BinaryIO, pending: bytes) -> Problem | None:
    """Why a file whose first chunk is `pending` is not read at all: it is empty, white space
    only, or UTF-16."""
    if not pending.strip():  # empty only if the white space goes on to the end
        more = pending
        while more and not more.strip():
            more = f.read(_CHUNK)
        if not more:
            return Problem("parse/empty", "the file is empty" if not pending else "only white space")
        f.seek(len(pending))  # _mark goes on reading after the chunk it was given
    if utf16(pending):
        return Problem("parse/invalid-utf8", UTF16, "", 1, 1)
    return None


def _mark(f: BinaryIO, pending: bytes) -> _Marks:
    """Look at the file a chunk at a time, from `pending` on."""
    marks = _Marks()
    offset, run = 0, 0  # bytes before the chunk; bytes of the current line before the chunk
    while pending:
        chunk, more = pending, f.read(_CHUNK)
        if more:
            cut = _cut(chunk)
            if cut < len(chunk):
                chunk, more = chunk[:cut], chunk[cut:] + more
        # each test is one C pass over the chunk, most of them skipped on ordinary files; lines
        # are counted only when something is found (see _positions)
        if marks.bad_utf8 is None and not chunk.isascii():
            try:
                chunk.decode("utf-8")
            except UnicodeDecodeError as exc:
                marks.bad_utf8 = (offset + exc.start, chunk[exc.start])
        if b"\x00" in chunk:
            if marks.nul is None:
                marks.nul = offset + chunk.find(b"\x00")
            marks.nuls += chunk.count(b"\x00")
        has_cr = b"\r" in chunk
        if has_cr:
            found = _LONE_CR.search(chunk)
            if found:
                if marks.lone_cr is None:
                    marks.lone_cr = offset + found.start()
                marks.lone_crs += len(_LONE_CR.findall(chunk))
        lf = chunk.find(b"\n")
        cr = chunk.find(b"\r") if has_cr else -1
        first = min(lf, cr) if lf != -1 and cr != -1 else max(lf, cr)
        if run + (len(chunk) if first == -1 else first) > MAX_LINE_BYTES:
            marks.too_long = offset - run
            break
        if first == -1:
            run += len(chunk)
        else:
            run = len(chunk) - max(chunk.rfind(b"\n"), chunk.rfind(b"\r") if has_cr else -1) - 1
        offset += len(chunk)
        pending = more
    return marks


def _report(path: Path, marks: _Marks, out: _Scan) -> None:
    """Turn what the pass found into problems, placed by a second look at the bytes."""
    bad_utf8, nul, lone_cr, too_long = marks.bad_utf8, marks.nul, marks.lone_cr, marks.too_long
    found_at = {at for at in (bad_utf8 and bad_utf8[0], nul, lone_cr, too_long) if at is not None}
    where = _positions(path, found_at) if found_at else {}
    if bad_utf8 is not None:
        at, byte = bad_utf8
        out.problems.append(not_utf8(byte, *where[at]))
    if nul is not None:
        many = f" ({marks.nuls} in all)" if marks.nuls > 1 else ""
        out.problems.append(Problem("parse/nul-byte", f"NUL byte (\\x00) in the text{many}", "", *where[nul]))
    if lone_cr is not None:
        many = f" ({marks.lone_crs} in all)" if marks.lone_crs > 1 else ""
        message = f"a carriage return without a line feed ends this line{many}"
        out.problems.append(Problem("parse/line-ending", message, "", where[lone_cr][0], 1))
    if too_long is not None:
        out.stop = where[too_long][0]
        message = f"line longer than {MAX_LINE_BYTES:,} bytes; the file is not read from here on"
        out.problems.append(Problem("parse/line-too-long", message, "", out.stop, 1))


# --- the rows ---------------------------------------------------------------------------------


def read_header(path: Path) -> list[str] | None:
    """The first row of a CSV file, read from the first 64 KiB after any blank lines; None when it
    cannot be read."""
    f = open_regular(path)
    if isinstance(f, Problem):
        return None
    try:
        with f:
            head = f.read(65536)
            while head and not head.strip(b"\r\n"):
                head = f.read(65536)
            head = head.lstrip(b"\r\n")
            head += f.read(65536 - len(head))
    except OSError:
        return None
    text = head.decode("utf-8-sig", "replace")
    try:
        return next(csv.reader(io.StringIO(text, newline="")), None)
    except csv.Error:
        return None


class CsvFile:
    """The rows of one CSV file, read front to back.

    `rows()` yields (0-based data row index, physical line the row starts on, cells); the
    header is in `header` once reading started. Problems accumulate in `problems`; `complete` is
    False when a row or the rest of the file could not be read (rules over all rows, or over
    consecutive rows, must then stay silent).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[Problem] = []
        self.header: list[str] | None = None
        self.header_line = 1
        self.complete = True
        self.padded: set[int] = set()  # rows read with empty cells for the ones they lack
        self.width, self.first = -1, ""  # of the header, once read
        self.index = -1  # of the last data row taken
        self.end = 0  # the line the last row read ended on
        # blank lines not reported yet: from line blank_from on, blanks of them (a blank line at the
        # end is not a row, so they are reported when a row follows)
        self.blank_from, self.blanks = 0, 0
        self.stopped = False

    def rows(self, capture: list[str] | None = None) -> Iterator[tuple[int, int, list[str]]]:
        """Rows with their lines, one at a time. With `capture`, the raw lines of the current
        row are kept in it (positions of cells are computed from them; it is cleared before
        each row)."""
        yield from self._reading(capture, lambda reader: self._each(reader, capture))

    def _each(self, reader: Any, capture: list[str] | None) -> Iterator[tuple[int, int, list[str]]]:
        while True:
            try:
                for cells in reader:
                    row = self._one(cells, self.end + 1, reader.line_num)
                    if row is not None:
                        yield row
                    if capture is not None:
                        capture.clear()
                    if self.stopped:
                        return
                return
            except csv.Error as exc:
                if capture is not None:
                    capture.clear()
                if not self._error(exc, self.end + 1, reader.line_num):
                    return

    def chunks(self, size: int = 1024) -> Iterator[list[tuple[int, list[str]]]]:
        """(0-based data row index, cells) of every row, `size` rows at a time. Rows are read in
        bulk and looked at one by one only when a chunk holds something unusual (a blank or
        ragged row, the header again, an error): in the usual chunk no Python runs per row."""
        yield from self._reading(None, lambda reader: self._bulk(reader, size))

    def _reading(self, capture: list[str] | None, walk: Callable[[Any], Iterator[Any]]) -> Iterator[Any]:
        """What `walk` yields over a csv reader of the file, the file closed after."""
        opened = self._open(capture)
        if opened is None:
            return
        f, reader = opened
        with f:
            yield from walk(reader)

    def _bulk(self, reader: Any, size: int) -> Iterator[list[tuple[int, list[str]]]]:
        while not self.stopped:
            rows: list[list[str]] = []
            error: csv.Error | None = None
            try:
                if self.width < 0:
                    rows.append(next(reader))  # the header, and whatever precedes it, row by row
                    if not rows[0]:  # but blank lines in bulk
                        rows.extend(islice(reader, size - 1))
                else:
                    rows.extend(islice(reader, size))  # keeps the rows read before an error
            except StopIteration:
                pass
            except csv.Error as exc:
                error = exc
            if not rows and error is None:
                return
            if error is None and not any(rows):  # blank lines only: counted, not looked at one by one
                if not self.blanks:
                    self.blank_from = self.end + 1
                self.blanks += len(rows)
                self.end = reader.line_num
                continue
            if error is None and self._plain(rows):
                if self.blanks:
                    self._blank()
                first = self.index + 1
                self.index += len(rows)
                self.end = reader.line_num
                yield list(zip(range(first, first + len(rows)), rows, strict=True))
                continue
            out = []
            single = len(rows) == 1 and error is None
            for cells in rows:
                start = self.end + 1
                end = reader.line_num if single else self.end + _lines(cells)
                row = self._one(cells, start, end)
                if row is not None:
                    out.append((row[0], row[2]))
                if self.stopped:
                    break
            if out:
                yield out
            if error is not None and not self._error(error, self.end + 1, reader.line_num):
                return
            self.end = reader.line_num

    def _open(self, capture: list[str] | None) -> tuple[Any, Any] | None:
        """The open file and a csv reader over it (None when it cannot be read), after the byte
        checks."""
        scan = _scan(self.path)
        self.problems.extend(scan.problems)
        if not scan.readable:
            self.complete = False
            return None
        if scan.stop is not None:
            self.complete = False
        if csv.field_size_limit() != MAX_CELL:
            csv.field_size_limit(MAX_CELL)
        binary = open_regular(self.path)
        if isinstance(binary, Problem):  # no longer the file the byte checks read
            self.problems.append(binary)
            self.complete = False
            return None
        f = io.TextIOWrapper(binary, encoding="utf-8-sig", errors="replace", newline="")
        lines: Iterable[str] = f if scan.stop is None else islice(f, scan.stop - 1)
        if capture is not None:
            lines = _capturing(lines, capture)
        return f, csv.reader(lines, strict=True)

    def _plain(self, rows: list[list[str]]) -> bool:
        """Whether every row of a chunk is an ordinary data row (decided in C)."""
        return set(map(len, rows)) == {self.width} and self.first not in map(itemgetter(0), rows)

    def _one(self, cells: list[str], start: int, end: int) -> tuple[int, int, list[str]] | None:
        """Take one row that ends on line `end`: the data row to yield, or None (the header, a
        blank row, a row left out), with its problems noted."""
        self.end = end
        n = len(cells)
        if n == self.width and cells[0] != self.first:  # the common case, decided first
            self.index += 1
            if self.blanks:
                self._blank()
            return self.index, start, cells
        if not n:
            if not self.blanks:
                self.blank_from = start
            self.blanks += 1
            return None
        if self.width < 0:
            if self.blanks:
                self._blank()
            header = self._header(cells, start)
            if not header:
                self.stopped = True
                return None
            self.width, self.first = len(header), header[0]
            return None
        self.index += 1
        if self.blanks:
            self._blank()
        where = f"/{self.index}"
        if cells == self.header:
            self.problems.append(Problem("parse/repeated-header", "the header row again", where, start, 1))
        elif n != self.width:
            self.problems.append(
                Problem("parse/ragged-row", f"{n} cells, the header has {self.width}", where, start, 1)
            )
            if n < self.width:
                self.padded.add(self.index)
                return self.index, start, cells + [""] * (self.width - n)
            self.complete = False  # a row is left out
        else:
            return self.index, start, cells
        return None

    def _error(self, exc: csv.Error, start: int, end: int) -> bool:
        """Note a row the csv module could not read; whether reading goes on after it."""
        self.end = end
        message = str(exc)
        where = f"/{self.index + 1}" if self.width >= 0 else ""
        stop = "unexpected end of data" in message or "field larger than field limit" in message
        if "unexpected end of data" in message:
            problem = Problem(
                "parse/unclosed-quote", "a quoted cell starting in this row is never closed", where, start, 1
            )
        elif "field larger than field limit" in message:
            problem = Problem(
                "parse/cell-too-large",
                f"a cell of this row is longer than {MAX_CELL:,} characters (an unclosed quote?); "
                "the file is not read from here on",
                where,
                start,
                1,
            )
        else:
            if "expected after" in message:
                message = 'text after the closing quote of a cell (inside a quoted cell, write a quote as "")'
            problem = Problem("parse/invalid-csv", message, where, end, 1)
        self.problems.append(problem)
        self.complete = False  # the row (or the rest of the file) is left out
        if stop or self.width < 0:
            self.stopped = True
            return False
        self.index += 1
        return True

    def _blank(self) -> None:
        self.problems.append(blank_run("parse/blank-row", self.blank_from, self.blanks, "blank", "rows"))
        self.blanks = 0

    def _header(self, cells: list[str], line: int) -> list[str]:
        self.header_line = line
        if len(cells) == 1:
            for d in _DELIMITERS:
                if d in cells[0]:
                    name = {"\t": "tab", ";": "semicolon", "|": "vertical bar"}[d]
                    self.problems.append(
                        Problem(
                            "parse/delimiter",
                            f"the header is one cell with {name}s: the file is not comma-separated",
                            "",
                            line,
                            1,
                        )
                    )
                    self.complete = False
                    return []
        seen: set[str] = set()
        for (at_line, col), name in zip(header_columns(cells, line), cells, strict=True):
            if name in seen:
                self.problems.append(
                    Problem("parse/duplicate-column", f"column {name!r} appears twice", "", at_line, col)
                )
            seen.add(name)
        self.header = cells
        return cells


def _lines(cells: list[str]) -> int:
    """The physical lines a row spans: one, and one more per line break inside its cells."""
    text = ",".join(cells)
    return 1 + text.count("\n") + text.count("\r") - text.count("\r\n")


def _capturing(lines: Iterable[str], into: list[str]) -> Iterator[str]:
    for line in lines:
        into.append(line)
        yield line


_CELL = re.compile(r'"(?:[^"]|"")*"?|[^,\r\n]*')


def cell_offsets(text: str) -> list[int]:
    """Offsets of the cells of one CSV row given as its raw text (possibly several lines)."""
    out = []
    i = 0
    while True:
        out.append(i)
        m = _CELL.match(text, i)
        i = m.end() if m else i
        while i < len(text) and text[i] not in ",\r\n":  # text after a closing quote
            i += 1
        if i >= len(text) or text[i] != ",":
            return out
        i += 1


def header_columns(cells: list[str], line: int) -> list[tuple[int, int]]:
    """(line, column) of each header cell, assuming a one-line header written without quotes
    around plain names; good enough for pointing at a column name."""
    out, col = [], 1
    for c in cells:
        out.append((line, col))
        col += len(c) + 1 + (2 + c.count('"') if any(ch in c for ch in ',"\r\n') else 0)
    return out


@dataclass
class CsvDocument:
    """A CSV file as findings see it: pointers are /<row>/<column>[/...] (0-based data row)."""

    path: Path
    header: list[str]

    def positions(self, pointers: list[str]) -> dict[str, tuple[int, int]]:
        wanted: dict[int, list[tuple[str, str | None]]] = {}
        for p in pointers:
            tokens = split_pointer(p)
            if tokens and tokens[0].isdigit():
                wanted.setdefault(int(tokens[0]), []).append((p, tokens[1] if len(tokens) > 1 else None))
        if not wanted:
            return {}
        out: dict[str, tuple[int, int]] = {}
        last = max(wanted)
        capture: list[str] = []
        for index, line, _ in CsvFile(self.path).rows(capture):
            if index in wanted:
                text = "".join(capture)
                offsets = cell_offsets(text)
                for p, column in wanted[index]:
                    # the last of two columns of one name is the one read, as for JSON keys
                    k = len(self.header) - 1 - self.header[::-1].index(column) if column in self.header else -1
                    if 0 <= k < len(offsets):
                        head = text[: offsets[k]]
                        breaks = head.count("\n") + head.count("\r") - head.count("\r\n")
                        start = max(head.rfind("\n"), head.rfind("\r")) + 1
                        out[p] = (line + breaks, offsets[k] - start + 1)
                    else:
                        out[p] = (line, 1)
            if index >= last:
                break
        return out


__all__ = ["MAX_CELL", "MAX_LINE_BYTES", "CsvDocument", "CsvFile", "cell_offsets", "header_columns", "read_header"]
