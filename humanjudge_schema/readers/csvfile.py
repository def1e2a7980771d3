"""CSV files as a stream of rows, each with its physical line.

Reading happens in two steps. A pass over the bytes (csvbytes.py: a few C calls per megabyte) finds
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
from dataclasses import dataclass
from functools import partial
from itertools import accumulate, islice, repeat, zip_longest
from operator import add, itemgetter, sub
from pathlib import Path
from typing import Any

from ..finding import split_pointer
from .csvbytes import scan_bytes
from .files import Problem, blank_run, open_regular
from .limits import CSV_MAX_CELL, CSV_MAX_LINE_BYTES

MAX_CELL = CSV_MAX_CELL  # see limits.py
MAX_LINE_BYTES = CSV_MAX_LINE_BYTES
_CHUNK = 1 << 20
_DELIMITERS = (";", "\t", "|")
_NAMES = {"\t": "tab", ";": "semicolon", "|": "vertical bar", ",": "comma", " ": "space"}
_NONE = "\x00"  # no cell holds it (a NUL byte is refused before the rows are read)


@dataclass(frozen=True)
class Dialect:
    """How a delimited text file is written where it is not a CSV file with a header row: its
    delimiter ("whitespace": runs of spaces and tabs, no quoting), whether a cell may be quoted,
    and, for a file with no header row, the names of its columns."""

    delimiter: str = ","
    quoting: bool = True
    columns: tuple[str, ...] | None = None

    def reader(self, lines: Iterable[str]) -> Any:
        if self.delimiter == "whitespace":
            return csv.reader(map(_spaced, lines), delimiter="\t", quoting=csv.QUOTE_NONE, strict=True)
        if self.quoting:
            return csv.reader(lines, delimiter=self.delimiter, strict=True)
        return csv.reader(lines, delimiter=self.delimiter, quoting=csv.QUOTE_NONE, strict=True)


def _spaced(line: str) -> str:
    """A line whose cells are parted by runs of spaces and tabs, parted by one tab."""
    body = line.rstrip("\r\n")
    return "\t".join(body.split()) + line[len(body) :]


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

    def __init__(self, path: Path, dialect: Dialect | None = None) -> None:
        self.path = path
        self.dialect = dialect
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
        self.chunk_lines: Callable[[], list[int]] = list  # of the chunk chunks() gave last (see there)
        if dialect is not None and dialect.columns is not None:  # no header row: its names are given
            self.header, self.header_line = list(dialect.columns), 0
            self.width, self.first = len(dialect.columns), _NONE

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
        """(0-based data row index, cells) of every row, as `rows()` gives them, `size` rows at a
        time. Rows are read in bulk and looked at one by one only when a chunk holds something
        unusual (a blank or ragged row, the header again, an error): in the usual chunk no Python
        runs per row. With each chunk, `chunk_lines` is set to the call that gives the line each
        of its rows starts on (counted only when asked: a row with a line break in a cell costs a
        count of its lines)."""
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
                first, start = self.index + 1, self.end + 1
                self.index += len(rows)
                self.end = reader.line_num
                self.chunk_lines = partial(_starts, start, self.end, rows)
                yield list(zip(range(first, first + len(rows)), rows, strict=True))
                continue
            out, starts = [], []
            single = len(rows) == 1 and error is None
            for cells in rows:
                start = self.end + 1
                end = reader.line_num if single else self.end + _lines(cells)
                row = self._one(cells, start, end)
                if row is not None:
                    out.append((row[0], row[2]))
                    starts.append(row[1])
                if self.stopped:
                    break
            if out:
                self.chunk_lines = partial(list, starts)
                yield out
            if error is not None and not self._error(error, self.end + 1, reader.line_num):
                return
            self.end = reader.line_num

    def _open(self, capture: list[str] | None) -> tuple[Any, Any] | None:
        """The open file and a csv reader over it (None when it cannot be read), after the byte
        checks."""
        scan = scan_bytes(self.path)
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
        return f, (csv.reader(lines, strict=True) if self.dialect is None else self.dialect.reader(lines))

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
        own = "," if self.dialect is None else self.dialect.delimiter
        if len(cells) == 1 and own != "whitespace":
            for d in (*_DELIMITERS, ","):
                if d != own and d in cells[0]:
                    name, sep = _NAMES[d], _NAMES.get(own, repr(own))
                    self.problems.append(
                        Problem(
                            "parse/delimiter",
                            f"the header is one cell with {name}s: the file is not {sep}-separated",
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


def _starts(start: int, end: int, rows: list[list[str]]) -> list[int]:
    """The lines rows read together from line `start` to `end` start on: one each, and one
    more per line break inside a cell, counted a column at a time (a break is in a few columns,
    free text, of a few rows: a column without one costs one join, not a join per row)."""
    if end - start + 1 == len(rows):  # a line each
        return list(range(start, end + 1))
    spans = [1] * (len(rows) - 1)
    for column in zip_longest(*rows[:-1], fillvalue=""):
        joined = "".join(column)
        if "\r" in joined:  # \r and \r\n too (line_breaks), each count in C
            breaks = map(
                sub,
                map(add, map(str.count, column, repeat("\n")), map(str.count, column, repeat("\r"))),
                map(str.count, column, repeat("\r\n")),
            )
            spans = list(map(add, spans, breaks))
        elif "\n" in joined:
            spans = list(map(add, spans, map(str.count, column, repeat("\n"))))
    return list(accumulate(spans, initial=start))


def _lines(cells: list[str]) -> int:
    """The physical lines a row spans: one, and one more per line break inside its cells."""
    return 1 + line_breaks(",".join(cells))


def line_breaks(text: str) -> int:
    """The line breaks in a text as the csv reader counts lines: \n, \r and \r\n one each."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


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


def dialect_offsets(text: str, dialect: Dialect) -> list[int]:
    """`cell_offsets` of a row written in a dialect."""
    if dialect.delimiter == ",":
        return cell_offsets(text) if dialect.quoting else _split_offsets(text, ",")
    if dialect.delimiter == "whitespace":
        return [m.start() for m in re.finditer(r"[^ \t\r\n]+", text)] or [0]
    if not dialect.quoting:
        return _split_offsets(text, dialect.delimiter)
    escaped = re.escape(dialect.delimiter)
    cell = re.compile(rf'"(?:[^"]|"")*"?|[^{escaped}\r\n]*')
    out, i = [], 0
    while True:
        out.append(i)
        m = cell.match(text, i)
        i = m.end() if m else i
        while i < len(text) and text[i] not in dialect.delimiter + "\r\n":
            i += 1
        if i >= len(text) or text[i] != dialect.delimiter:
            return out
        i += 1


def _split_offsets(text: str, delimiter: str) -> list[int]:
    line = text.split("\n", 1)[0]
    return list(accumulate((len(c) + 1 for c in line.split(delimiter)[:-1]), initial=0))


@dataclass
class CsvDocument:
    """A CSV file as findings see it: pointers are /<row>/<column>[/...] (0-based data row)."""

    path: Path
    header: list[str]
    dialect: Dialect | None = None

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
        for index, line, _ in CsvFile(self.path, self.dialect).rows(capture):
            if index in wanted:
                text = "".join(capture)
                offsets = cell_offsets(text) if self.dialect is None else dialect_offsets(text, self.dialect)
                for p, column in wanted[index]:
                    # the last of two columns of one name is the one read, as for JSON keys
                    k = len(self.header) - 1 - self.header[::-1].index(column) if column in self.header else -1
                    if 0 <= k < len(offsets):
                        head = text[: offsets[k]]
                        start = max(head.rfind("\n"), head.rfind("\r")) + 1
                        out[p] = (line + line_breaks(head), offsets[k] - start + 1)
                    else:
                        out[p] = (line, 1)
            if index >= last:
                break
        return out


__all__ = [
    "MAX_CELL",
    "MAX_LINE_BYTES",
    "CsvDocument",
    "CsvFile",
    "Dialect",
    "cell_offsets",
    "dialect_offsets",
    "header_columns",
    "read_header",
]
