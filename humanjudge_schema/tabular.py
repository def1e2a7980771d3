"""CSV files as a stream of rows, each with its physical line, and cells coerced by the types a
JSON Schema declares, so that the row schema stays the single source of truth.

Reading happens in two steps. A pass over the bytes (cheap: a few C calls per megabyte) finds
what the CSV parser would hide or choke on: a byte-order mark, UTF-16, bytes that are not UTF-8,
NUL bytes, lone carriage returns, runaway lines. Then the `csv` module reads the rows (quoted
cells may span lines: a row's line is the line it starts on), and every problem it meets is a
finding: unclosed quotes, text after a closing quote, ragged rows, a repeated header, a cell
larger than the reader accepts. Nothing is raised, nothing is held but the current row.

A cell becomes a JSON value by the `type` its column declares in the schema: `integer` and
`number` parse the number, `boolean` takes `True`/`False`, `array` a Python list literal such as
`['exact', 'keyword']`; an empty cell is a missing value (the key is absent). A cell that does
not convert stays text, so the schema reports it (`schema/type`).
"""

from __future__ import annotations

import ast
import csv
import io
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

import orjson

from .finding import split_pointer
from .registry import register
from .sources import Problem

# A cell longer than this (in characters) is refused, and reading stops: beyond it, an unclosed
# quote and a giant cell look the same. A line longer than this (in bytes) ends the reading too.
MAX_CELL = 8 * 1024 * 1024
MAX_LINE_BYTES = 8 * 1024 * 1024
# A list literal longer than this stays text instead of going through the Python parser.
MAX_LITERAL = 256 * 1024
_CHUNK = 1 << 20
_BOM = b"\xef\xbb\xbf"
_DELIMITERS = (";", "\t", "|")
_CACHED = 4096  # distinct cells remembered per column (conversions repeat: 0.0, 1, ['exact'])

register(
    "parse/ragged-row",
    "a row has more or fewer cells than the header",
    why="Every row of a CSV file has one cell per column. A row with fewer cells is read with the "
    "last columns empty; a row with more cannot be matched to columns and is not checked further. "
    "Usually a delimiter inside a cell that was not quoted.",
    bad="session_id,worker_id,model\ns1,w1,Jumbo,extra",
    good='session_id,worker_id,model\ns1,w1,"Jumbo, extra"',
)
register(
    "parse/unclosed-quote",
    "a quoted cell is never closed",
    why="A cell opened with a double quote runs to the next unescaped double quote; without one it "
    "swallows every line to the end of the file. The rows after it are not checked.",
    bad='s1,w1,"It helped.\ns2,w2,Fine.',
    good='s1,w1,"It helped."\ns2,w2,Fine.',
)
register(
    "parse/invalid-csv",
    "text follows the closing quote of a cell",
    why='Inside a quoted cell a double quote is written twice (`""`); a lone quote ends the cell, '
    "and readers disagree on what to do with the text after it (Python's csv module keeps it, "
    "others fail). The row is skipped.",
    bad='s1,"He said "hi" twice",3',
    good='s1,"He said ""hi"" twice",3',
)
register(
    "parse/nul-byte",
    "the file contains NUL bytes",
    why="A NUL byte is never text: it marks a binary file, a broken export or a disk error. Some "
    "CSV readers stop at it, others drop it. The message gives the first one and the count.",
    bad="s1,w1,Jumbo\\x00",
    good="s1,w1,Jumbo",
)
register(
    "parse/line-ending",
    "a line ends with a lone carriage return",
    severity="warning",
    why="Lines end with a line feed (LF) or CR LF; a carriage return alone is the line ending of "
    "classic Mac OS. Python and pandas split lines there, but grep, wc and many editors do not, so "
    "line numbers disagree between tools.",
    bad="session_id,model\\rs1,Jumbo\\r",
    good="session_id,model\\ns1,Jumbo\\n",
)
register(
    "parse/delimiter",
    "the file is not comma-separated",
    why="These CSV files are comma-separated. A header that is one cell full of semicolons (or "
    "tabs, or bars) is a file exported with another delimiter: no column can be read. Nothing "
    "else in the file is checked.",
    bad="session_id;worker_id;model",
    good="session_id,worker_id,model",
)
register(
    "parse/repeated-header",
    "the header row appears again among the data rows",
    why="A header in the middle of the data is what concatenating two CSV files leaves behind; "
    "every reader takes it for a row of data.",
    bad="session_id,model\ns1,Jumbo\nsession_id,model\ns2,Davinci",
    good="session_id,model\ns1,Jumbo\ns2,Davinci",
)
register(
    "parse/duplicate-column",
    "two columns of the header have the same name",
    why="Readers keep one of the two columns (pandas renames the second `name.1`), so the data "
    "read depends on the reader.",
    bad="session_id,model,model",
    good="session_id,model,prompt",
)
register(
    "parse/cell-too-large",
    "a cell is larger than the reader accepts",
    why=f"A cell of more than {MAX_CELL // (1024 * 1024)} Mi characters is almost always an "
    "unclosed quote that swallowed the rest of the file. Reading stops there.",
    bad='s1,"an unclosed quote ... (the rest of a large file)',
    good='s1,"a cell of ordinary length"',
)
register(
    "parse/blank-row",
    "a blank line between rows",
    severity="warning",
    why="pandas skips blank lines but Python's csv module and spreadsheets read them as empty "
    "rows, so row counts differ between readers. A final newline at the end of the file is fine.",
    bad="session_id,model\ns1,Jumbo\n\ns2,Davinci",
    good="session_id,model\ns1,Jumbo\ns2,Davinci",
)


# --- the bytes --------------------------------------------------------------------------------


@dataclass
class _Scan:
    problems: list[Problem] = field(default_factory=list)
    readable: bool = True
    stop: int | None = None  # a line too long: rows from this line on are not read


def _position(chunk: bytes, at: int, line: int) -> tuple[int, int]:
    """(line, column) of byte `at` of a chunk whose first byte is on `line` (at a line start or not)."""
    head = chunk[:at]
    breaks = head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n")
    start = max(head.rfind(b"\n"), head.rfind(b"\r")) + 1
    return line + breaks, len(head[start:].decode("utf-8", "replace")) + 1


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


def _scan(path: Path) -> _Scan:
    """The pass over the bytes; see the module docstring."""
    out = _Scan()
    try:
        f = open(path, "rb")  # noqa: SIM115  (closed by the with below)
    except IsADirectoryError:
        return _Scan([Problem("parse/unreadable", "is a folder, not a file")], False)
    except OSError as exc:
        return _Scan([Problem("parse/unreadable", f"cannot read the file: {exc.strerror or exc}")], False)
    with f:
        pending = f.read(_CHUNK)
        if not pending.strip():
            out.problems.append(Problem("parse/empty", "the file is empty" if not pending else "only white space"))
            out.readable = False
            return out
        if pending[:2] in (b"\xff\xfe", b"\xfe\xff"):
            out.problems.append(Problem("parse/invalid-utf8", "the file is UTF-16; save it as UTF-8", "", 1, 1))
            out.readable = False
            return out
        if pending.startswith(_BOM):
            out.problems.append(Problem("parse/bom", "byte-order mark at the start of the file", "", 1, 1))
        line, run = 1, 0  # the line the chunk starts on; bytes of that line before the chunk
        bad_utf8: Problem | None = None
        nul: tuple[int, int] | None = None
        lone_cr: int | None = None
        nuls = lone_crs = 0
        while pending:
            chunk, more = pending, f.read(_CHUNK)
            if more:
                cut = _cut(chunk)
                chunk, more = chunk[:cut], chunk[cut:] + more
            if bad_utf8 is None:
                try:
                    chunk.decode("utf-8")
                except UnicodeDecodeError as exc:
                    at, col = _position(chunk, exc.start, line)
                    where = (at, col + run if at == line else col)
                    bad_utf8 = Problem(
                        "parse/invalid-utf8", f"byte {chunk[exc.start]:#04x} is not valid UTF-8", "", *where
                    )
                    out.problems.append(bad_utf8)
            n = chunk.count(b"\x00")
            if n:
                if nul is None:
                    at, col = _position(chunk, chunk.find(b"\x00"), line)
                    nul = (at, col + run if at == line else col)
                nuls += n
            crs = chunk.count(b"\r") - chunk.count(b"\r\n")
            if crs:
                if lone_cr is None:
                    found = re.search(rb"\r(?!\n)", chunk)
                    lone_cr = _position(chunk, found.start() if found else 0, line)[0]
                lone_crs += crs
            breaks = [i for i in (chunk.find(b"\n"), chunk.find(b"\r")) if i != -1]
            first = min(breaks) if breaks else len(chunk)
            if run + first > MAX_LINE_BYTES:
                out.problems.append(
                    Problem(
                        "parse/line-too-long",
                        f"line longer than {MAX_LINE_BYTES:,} bytes; the file is not read from here on",
                        "",
                        line,
                        1,
                    )
                )
                out.stop = line
                break
            if breaks:
                line += chunk.count(b"\n") + crs
                run = len(chunk) - max(chunk.rfind(b"\n"), chunk.rfind(b"\r")) - 1
            else:
                run += len(chunk)
            pending = more
        if nul is not None:
            many = f" ({nuls} in all)" if nuls > 1 else ""
            out.problems.append(Problem("parse/nul-byte", f"NUL byte (\\x00) in the text{many}", "", *nul))
        if lone_cr is not None:
            many = f" ({lone_crs} in all)" if lone_crs > 1 else ""
            out.problems.append(
                Problem(
                    "parse/line-ending", f"a carriage return without a line feed ends this line{many}", "", lone_cr, 1
                )
            )
    return out


# --- the rows ---------------------------------------------------------------------------------


def read_header(path: Path) -> list[str] | None:
    """The first row of a CSV file, read from its first 64 KiB; None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
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

    def rows(self, capture: list[str] | None = None) -> Iterator[tuple[int, int, list[str]]]:
        """Rows with their lines. With `capture`, the raw lines of the current row are kept in it
        (positions of cells are computed from them; it is cleared before each row)."""
        scan = _scan(self.path)
        self.problems.extend(scan.problems)
        if not scan.readable:
            self.complete = False
            return
        if scan.stop is not None:
            self.complete = False
        if csv.field_size_limit() != MAX_CELL:
            csv.field_size_limit(MAX_CELL)
        with open(self.path, encoding="utf-8-sig", errors="replace", newline="") as f:
            lines: Iterable[str] = f if scan.stop is None else islice(f, scan.stop - 1)
            if capture is not None:
                lines = _capturing(lines, capture)
            yield from self._rows(csv.reader(lines, strict=True), capture)

    def _rows(self, reader: Any, capture: list[str] | None) -> Iterator[tuple[int, int, list[str]]]:
        header: list[str] = []
        width, first = -1, ""  # of the header, once read
        index = -1
        end = 0  # the line the previous row ended on
        blank: list[int] = []
        while True:
            try:
                for cells in reader:
                    start, end = end + 1, reader.line_num
                    n = len(cells)
                    if n == width and cells[0] != first:  # the common case, decided first
                        index += 1
                        if blank:
                            self._blank(blank)
                        yield index, start, cells
                    elif not n:
                        blank.append(start)
                    elif not header:
                        if blank:
                            self._blank(blank)
                        header = self._header(cells, start)
                        if not header:
                            return
                        width, first = len(header), header[0]
                    else:
                        index += 1
                        if blank:
                            self._blank(blank)
                        if cells == header:
                            self.problems.append(
                                Problem("parse/repeated-header", "the header row again", f"/{index}", start, 1)
                            )
                        elif n != width:
                            self.problems.append(
                                Problem("parse/ragged-row", f"{n} cells, the header has {width}", f"/{index}", start, 1)
                            )
                            if n < width:
                                yield index, start, cells + [""] * (width - n)
                            else:
                                self.complete = False  # a row is left out
                        else:
                            yield index, start, cells
                    if capture is not None:
                        capture.clear()
                return
            except csv.Error as exc:
                start, end = end + 1, reader.line_num
                if capture is not None:
                    capture.clear()
                message = str(exc)
                where = f"/{index + 1}" if header else ""
                if "unexpected end of data" in message:
                    self.problems.append(
                        Problem(
                            "parse/unclosed-quote",
                            "a quoted cell starting in this row is never closed",
                            where,
                            start,
                            1,
                        )
                    )
                    self.complete = False
                    return
                if "field larger than field limit" in message:
                    self.problems.append(
                        Problem(
                            "parse/cell-too-large",
                            f"a cell of this row is longer than {MAX_CELL:,} characters (an unclosed quote?); "
                            "the file is not read from here on",
                            where,
                            start,
                            1,
                        )
                    )
                    self.complete = False
                    return
                if "expected after" in message:
                    message = 'text after the closing quote of a cell (inside a quoted cell, write a quote as "")'
                self.problems.append(Problem("parse/invalid-csv", message, where, end, 1))
                self.complete = False  # the row is left out
                if not header:
                    return
                index += 1

    def _blank(self, lines: list[int]) -> None:
        for line in lines:
            self.problems.append(Problem("parse/blank-row", "blank line between rows", "", line, 1))
        lines.clear()

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
                    k = self.header.index(column) if column in self.header else -1
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


# --- cells to JSON values ---------------------------------------------------------------------

_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_SIMPLE_LIST = re.compile(r"\[(?:'[^'\\\n\r]*'(?:, '[^'\\\n\r]*')*)?\]")
_ITEM = re.compile(r"'([^'\\\n\r]*)'")
_BOOLEANS = {"True": True, "False": False}


def _number(text: str) -> Any:
    if text.isdigit() and text.isascii() and len(text) < 19:
        return int(text)
    if text[0].isspace() or text[-1].isspace():
        return text
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        if not _NUMBER.fullmatch(text):
            return text
        value = float(text) if any(c in text for c in ".eE") else int(text)
    if type(value) is float and not math.isfinite(value):
        return text
    return value if type(value) in (int, float) else text


def _boolean(text: str) -> Any:
    return _BOOLEANS.get(text, text)


def _jsonable(value: Any) -> bool:
    if value is None or type(value) in (str, int, bool):
        return True
    if type(value) is float:
        return math.isfinite(value)
    if type(value) is list:
        return all(_jsonable(v) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _jsonable(v) for k, v in value.items())
    return False


def _array(text: str) -> Any:
    if not (text.startswith("[") and text.endswith("]")):
        return text
    if _SIMPLE_LIST.fullmatch(text):
        return _ITEM.findall(text)
    if len(text) > MAX_LITERAL:
        return text
    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return text
    return value if type(value) is list and _jsonable(value) else text


def _either(*steps: Callable[[str], Any]) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        for step in steps:
            value = step(text)
            if value is not text:
                return value
        return text

    return convert


def _resolve(schema: dict[str, Any], prop: Any) -> dict[str, Any]:
    while isinstance(prop, dict) and isinstance(prop.get("$ref"), str) and prop["$ref"].startswith("#/$defs/"):
        target = schema.get("$defs", {}).get(prop["$ref"][len("#/$defs/") :], {})
        prop = {**target, **{k: v for k, v in prop.items() if k != "$ref"}}
    return prop if isinstance(prop, dict) else {}


def _types(prop: dict[str, Any]) -> set[str]:
    declared = prop.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return {t for t in declared if isinstance(t, str)}
    values = prop.get("enum", [prop["const"]] if "const" in prop else [])
    kinds = set()
    for v in values:
        if isinstance(v, bool):
            kinds.add("boolean")
        elif isinstance(v, (int, float)):
            kinds.add("number")
        elif isinstance(v, list):
            kinds.add("array")
    return kinds


def converters(schema: dict[str, Any]) -> dict[str, Callable[[str], Any] | None]:
    """column -> how its cells become JSON values (None: the text as it is), derived from the
    `type` each property of the row schema declares (or the types of its enum values)."""
    out: dict[str, Callable[[str], Any] | None] = {}
    for name, raw in schema.get("properties", {}).items():
        kinds = _types(_resolve(schema, raw))
        steps: list[Callable[[str], Any]] = []
        if "boolean" in kinds:
            steps.append(_boolean)
        if kinds & {"integer", "number"}:
            steps.append(_number)
        if "array" in kinds:
            steps.append(_array)
        out[name] = None if not steps else steps[0] if len(steps) == 1 else _either(*steps)
    return out


class RowBuilder:
    """Turns the cells of a row into the object its schema checks: column -> value, empty cells
    left out, columns the schema does not know left out (they are reported once, at the header)."""

    def __init__(self, header: list[str], schema: dict[str, Any]) -> None:
        known = converters(schema)
        self.header = header
        self.unknown = [name for name in header if name not in known]
        self.typed: list[tuple[int, str, Callable[[str], Any], dict[str, Any]]] = [
            (k, name, conv, {}) for k, name in enumerate(header) if (conv := known.get(name)) is not None
        ]

    def build(self, cells: list[str]) -> dict[str, Any]:
        row = dict(zip(self.header, cells, strict=False))  # cells are padded: never shorter
        for k, name, convert, cache in self.typed:
            text = cells[k]
            if text:
                value = cache.get(text)
                if value is None:
                    value = convert(text)
                    if len(cache) < _CACHED:
                        cache[text] = value
                row[name] = value
        if "" in cells:
            for name in [name for name, value in row.items() if value == ""]:
                del row[name]
        for name in self.unknown:
            row.pop(name, None)
        return row


__all__ = ["MAX_CELL", "CsvDocument", "CsvFile", "RowBuilder", "converters", "read_header"]
