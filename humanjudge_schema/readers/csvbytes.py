"""The pass over a CSV file's bytes before its rows are read (csvfile.py): cheap, a few C calls
per megabyte, it finds what the CSV parser would hide or choke on: a byte-order mark, UTF-16,
bytes that are not UTF-8, NUL bytes, lone carriage returns, runaway lines."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from .files import BOM, UTF16, Problem, bom_problem, not_utf8, open_regular, utf16
from .limits import CSV_MAX_LINE_BYTES

MAX_LINE_BYTES = CSV_MAX_LINE_BYTES
_CHUNK = 1 << 20


@dataclass
class Scan:
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


def scan_bytes(path: Path) -> Scan:
    """The pass over the bytes; see the module docstring."""
    f = open_regular(path)
    if isinstance(f, Problem):
        return Scan([f], False)
    with f:
        pending = f.read(_CHUNK)
        refused = _refused(f, pending)
        if refused is not None:
            return Scan([refused], False)
        out = Scan([bom_problem()] if pending.startswith(BOM) else [])
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


def _report(path: Path, marks: _Marks, out: Scan) -> None:
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
