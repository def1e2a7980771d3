"""JSON read whole and JSON Lines record by record, with every problem of the bytes themselves
(encoding, syntax, duplicate keys, NaN) reported as a finding, never raised.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..finding import escape_token, split_pointer
from ..gcpause import paused
from .files import BOM, DEFAULT_MAX_DOCUMENT, Problem, blank_run, bom_problem, decode_problem, iter_lines, read_bytes
from .locate import LineIndex, locate

BROKEN: Any = object()  # placeholder for a JSONL record that did not parse
_NON_FINITE = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)', re.DOTALL)


def _syntax_problem(raw: bytes, exc: orjson.JSONDecodeError, first_line: int) -> Problem:
    msg = str(exc.msg)
    line, col = first_line + exc.lineno - 1, exc.colno
    if "not valid UTF-8" in msg:
        bad = decode_problem(raw)
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

    with paused():
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
    try:
        written = orjson.dumps(data).count(b":")
    except TypeError:  # nested deeper than orjson writes (255 levels), though it reads 1024
        written = _written_colons(data)
    return raw.count(b":") != written


def _written_colons(data: Any) -> int:
    """The colons orjson.dumps(data) writes, counted without writing: one per object member and
    every one inside a key or a string."""
    count, stack = 0, [data]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            count += node.count(":")
        elif isinstance(node, dict):
            count += len(node) + sum(key.count(":") for key in node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count


def parse(raw: bytes, first_line: int = 1) -> tuple[Any, list[Problem]]:
    """Parse one JSON text. Returns (value or BROKEN, problems). Pointers in problems are
    relative to this text; line numbers start at first_line."""
    problems: list[Problem] = []
    if raw.startswith(BOM):
        problems.append(bom_problem(first_line))
        raw = raw[3:]
    try:
        with paused():
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
        try:
            dupes = _duplicate_pointers(text)
        except RecursionError:  # the exact pass recurses, and Python's limit is below orjson's depth
            said = "a key appears twice in one object, nested too deep to say which; the last value is the one read"
            return data, [*problems, Problem("parse/duplicate-key", said)]
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
    # whether its parse found no key twice in one object: positions then stop looking once found
    unique: bool = False

    def positions(self, pointers: list[str]) -> dict[str, tuple[int, int]]:
        text = self.raw.decode("utf-8", "replace")
        index = LineIndex(text)
        return {p: index.position(o) for p, o in locate(text, pointers, unique=self.unique).items()}


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


def parse_jsonl(path: Path, raw: bytes) -> tuple[JsonlDocument, list[Problem]]:
    doc = JsonlDocument(path, raw)
    problems: list[Problem] = []
    if raw.startswith(BOM):
        problems.append(bom_problem())
        raw = b"   " + raw[3:]  # keep offsets: spans index into doc.raw
        doc.raw = raw
    bad_encoding = decode_problem(raw)
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
    unique = not any(p.code == "parse/duplicate-key" for p in problems)
    return JsonDocument(path, raw[3:] if raw.startswith(BOM) else raw, data, unique), problems
