"""Files as the readers take them: only regular files, never more than a bound, and the checks of
the bytes that every reader makes the same way (UTF-16, a byte-order mark, bytes that are not
UTF-8, runs of blank lines).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

BOM = b"\xef\xbb\xbf"
# The default of the `max-document-bytes` option: JSON and JSON Lines files are read whole.
DEFAULT_MAX_DOCUMENT = 512 * 1024 * 1024
# Blank lines from a line start on, each ending with its line feed: the class takes in the line
# feeds too, so that a run of a million blank lines is one pass of the regex engine, not a
# million (the engine then gives back the white space that starts the next line).
_BLANK_LINES = re.compile(rb"[ \t\n\r\x0b\x0c]*\n")
_GROWN = 1 << 24  # bytes read at a time from a file that grew since it was measured


class Problem(NamedTuple):
    """A finding before the engine gives it a file and a severity."""

    code: str
    message: str
    pointer: str = ""
    line: int | None = None
    column: int | None = None


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


def hash_file(path: Path, *hashers: Any) -> int | Problem:
    """Feed each of `hashers` (hashlib objects) the bytes of a regular file, read once in blocks
    of a MiB; the file's size, or the problem (not a regular file: refused unread)."""
    opened = open_regular(path)
    if isinstance(opened, Problem):
        return opened
    size = 0
    try:
        with opened as f:
            while block := f.read(1 << 20):
                for h in hashers:
                    h.update(block)
                size += len(block)
    except OSError as exc:
        return Problem("parse/unreadable", f"cannot read the file: {exc.strerror or exc}")
    return size


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
            # One read of the whole file and a byte more: a regular file gives less only when it
            # has ended. A file that grew since fstat is read on in pieces, up to the limit.
            total, step = 0, size + 1
            while total <= max_bytes:
                want = min(step, max_bytes + 1 - total)
                data = f.read(want)
                parts.append(data)
                total += len(data)
                if len(data) < want:
                    break
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


UTF16 = "the file is UTF-16; save it as UTF-8"


def utf16(head: bytes) -> bool:
    """Whether a file starting with these bytes is UTF-16 (it has a UTF-16 byte-order mark)."""
    return head[:2] in (b"\xff\xfe", b"\xfe\xff")


def bom_problem(line: int = 1) -> Problem:
    """A UTF-8 byte-order mark at the start of the file (readers skip it and read on)."""
    return Problem("parse/bom", "byte-order mark at the start of the file", "", line, 1)


def not_utf8(byte: int, line: int | None, column: int | None) -> Problem:
    return Problem("parse/invalid-utf8", f"byte {byte:#04x} is not valid UTF-8", "", line, column)


def decode_problem(raw: bytes) -> Problem | None:
    """The encoding problem of bytes held whole (UTF-16, or the first byte that is not UTF-8)."""
    if utf16(raw):
        return Problem("parse/invalid-utf8", UTF16, "", 1, 1)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = len(raw[raw.rfind(b"\n", 0, exc.start) + 1 : exc.start].decode("utf-8", "replace"))
        return not_utf8(raw[exc.start], line, col + 1)
    return None


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
