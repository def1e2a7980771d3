"""Checking a large TextJudge dataset a few hundred kilobytes of instances at a time.

Parsed whole, a 50 MB dataset is four million Python objects in 550 MB, and every rule walks
them from main memory. Here the file is read once, the top-level object is parsed without its
instances, and the instances array is cut into runs of about RUN_BYTES at element boundaries.
Each run is parsed, checked for duplicate keys, validated against the schema's definition of an
instance and given to the rules while it is still in the processor's cache, then freed: the
same rules, over the same values, in a tenth of the memory.

The cuts are found with a regular expression (`}`, a comma, `{`) and proven by parsing: a run
that starts where an element starts parses as a JSON array only if it ends where an element
ends, so a match inside a string or a nested object makes a run that does not parse. Anything
unexpected (no top-level instances array, a run that does not parse, a duplicate key, a schema
error) raises GiveUp: the check (check.py) drops what was found so far and checks the file whole,
which reports the problem exactly. This path changes how fast a dataset is checked, never what is
found; tests/test_textjudge_stream.py checks every case and corpus file both ways.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from ...engine import schema_errors
from ...finding import escape_token, split_pointer
from ...readers.jsonfile import BROKEN, JsonDocument, has_duplicates, parse
from ...readers.locate import LineIndex, locate
from ...schemas import compile_schema, load_schema
from .prompts import SCHEMA, usable

RUN_BYTES = 256 * 1024  # about a thousand instances: they and their rules' lists fit in the cache
STREAM_FROM = 4 * 1024 * 1024  # smaller files are parsed whole: it is as fast

_WS = rb"[ \t\n\r]*"
_SPACE = re.compile(_WS)
_TEXT_SPACE = re.compile(_WS.decode())  # skipped in place: slicing the rest of a run at each element is quadratic
_ARRAY = re.compile(rb'"instances"' + _WS + rb":" + _WS + rb"\[")
_BETWEEN = re.compile(rb"\}" + _WS + rb"," + _WS + rb"\{")  # between two objects of an array
_BOM = b"\xef\xbb\xbf"


class GiveUp(Exception):
    """The file is not laid out as expected, or has a problem: check it whole."""


def cuts(raw: bytes, run_bytes: int) -> tuple[bytes, list[tuple[int, int]]]:
    """The document without its instances (an empty array in their place), and the byte spans
    of the runs of instances. Raises GiveUp when the file is not laid out as expected; the
    spans are candidates until each run parses."""
    m = _ARRAY.search(raw)
    if m is None or raw.startswith(_BOM):
        raise GiveUp
    opening = m.end() - 1
    start = _SPACE.match(raw, m.end()).end()  # type: ignore[union-attr]
    if raw[start : start + 1] != b"{":
        raise GiveUp  # an empty array, or instances that are not objects
    spans = []
    while True:
        nxt = _BETWEEN.search(raw, start + run_bytes)
        if nxt is None:
            break
        spans.append((start, nxt.start() + 1))
        start = nxt.end() - 1
    closing = _array_end(raw, start)
    spans.append((start, closing))
    if _ARRAY.search(raw, closing):
        # Another "instances" array after this one: this one may be nested in a declaration,
        # and the top-level one after it.
        raise GiveUp
    return raw[: opening + 1] + raw[closing:], spans


def _array_end(raw: bytes, start: int) -> int:
    """Where the array whose element starts at `start` ends: the offset of its `]`."""
    try:
        text = raw[start:].decode("utf-8")
    except UnicodeDecodeError:
        raise GiveUp from None
    decoder = json.JSONDecoder()
    at = 0
    while True:
        try:
            _, at = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):
            raise GiveUp from None
        at = _TEXT_SPACE.match(text, at).end()  # type: ignore[union-attr]
        if text[at : at + 1] == "]":
            return start + len(text[:at].encode("utf-8"))
        if text[at : at + 1] != ",":
            raise GiveUp
        at = _TEXT_SPACE.match(text, at + 1).end()  # type: ignore[union-attr]


@functools.cache
def _instances_validator() -> Any:
    """A validator for an array of instances, made from the dataset schema's own definition."""
    schema = load_schema(SCHEMA)
    items = schema["properties"]["instances"]
    return compile_schema(
        {key: schema[key] for key in ("$schema", "$id", "$defs") if key in schema}
        | {key: items[key] for key in items if key not in ("title", "description")}
    )


class RunsDocument(JsonDocument):
    """The dataset read run by run: its top level without the instances (`data`), and where each
    run read so far starts, in bytes and in instances, so that a finding about an instance is
    located within its run's bytes instead of by walking the whole file up to it."""

    def __init__(self, path: Path, raw: bytes, data: Any, spans: list[tuple[int, int]]) -> None:
        super().__init__(path, raw, data, True)  # a key twice in one object makes the runs give up
        self.spans = spans
        self.firsts: list[int] = []  # the index of each read run's first instance
        self.ends = 0  # one past the last instance read
        self._starts: list[tuple[int, int]] = []  # (line, column) at which each run starts, 0-based

    def positions(self, pointers: list[str]) -> dict[str, tuple[int, int]]:
        by_run: dict[int, list[tuple[str, str]]] = {}
        rest: list[str] = []
        for p in pointers:
            tokens = split_pointer(p)
            k = int(tokens[1]) if len(tokens) > 1 and tokens[0] == "instances" and tokens[1].isdigit() else -1
            run = bisect.bisect_right(self.firsts, k) - 1 if k >= 0 else -1
            if run < 0 or (run == len(self.firsts) - 1 and k >= self.ends):
                rest.append(p)
                continue
            inner = "/" + "/".join(escape_token(t) for t in [str(k - self.firsts[run]), *tokens[2:]])
            by_run.setdefault(run, []).append((p, inner))
        out = super().positions(rest) if rest else {}
        for run, wanted in by_run.items():
            out.update(self._in_run(run, wanted))
        return out

    def _in_run(self, run: int, wanted: list[tuple[str, str]]) -> dict[str, tuple[int, int]]:
        """The positions of pointers inside one run, from its bytes alone: its text is parsed as
        an array (a `[` before it), and its offsets moved to where the run starts in the file."""
        a, b = self.spans[run]
        text = "[" + self.raw[a:b].decode("utf-8", "replace") + "]"
        found = locate(text, [inner for _, inner in wanted], unique=True)
        index = LineIndex(text)
        line0, column0 = self._start(run)
        out: dict[str, tuple[int, int]] = {}
        for p, inner in wanted:
            if inner in found:
                line, column = index.position(found[inner])
                out[p] = (line0 + 1, column0 + column - 1) if line == 1 else (line0 + line, column)
        return out

    def _start(self, run: int) -> tuple[int, int]:
        """The line and the column (in characters) at which a run starts, 0-based, counted on
        from the run before: each byte of the file is counted once, however many runs hold
        findings (a file written on one line has its whole start before each run)."""
        while len(self._starts) <= run:
            k = len(self._starts)
            a = self.spans[k][0]
            before = self.spans[k - 1][0] if k else 0
            line, column = self._starts[-1] if k else (0, 0)
            breaks = self.raw.count(b"\n", before, a)
            if breaks:  # runs start between instances: each slice is whole characters
                column = len(self.raw[self.raw.rfind(b"\n", before, a) + 1 : a].decode("utf-8", "replace"))
            else:
                column += len(self.raw[before:a].decode("utf-8", "replace"))
            self._starts.append((line + breaks, column))
        return self._starts[run]


def open_in_runs(
    path: Path, raw: bytes, checked: Callable[[], bool] | None = None
) -> tuple[JsonDocument, Iterator[tuple[list[Any], int]]]:
    """The dataset without its instances, and its runs of instances: (instances, index of the
    first). Raises GiveUp, here or while the runs are read, when the file must be checked whole
    (a run whose instances the schema refuses, unless `checked()` says, when the run is read,
    that they need not be) or read whole (a run that does not parse, or holds a key twice, which
    the whole reading reports and reads its own way)."""
    skeleton, spans = cuts(raw, RUN_BYTES)
    data, problems = parse(skeleton)
    if problems or data is BROKEN or not isinstance(data, dict) or data.get("instances") != []:
        raise GiveUp
    if schema_errors(SCHEMA, data) or not usable(data, []):
        raise GiveUp
    doc = RunsDocument(path, raw, data, spans)
    return doc, _parsed_runs(raw, spans, doc, checked)


def _parsed_runs(
    raw: bytes, spans: list[tuple[int, int]], doc: RunsDocument, checked: Callable[[], bool] | None
) -> Iterator[tuple[list[Any], int]]:
    """The runs as parsed; where `checked()` is False, instances the schema refuses are taken as
    they are (the whole file parsed gives the same instances)."""
    validator = _instances_validator()
    offset = 0
    for a, b in spans:
        text = b"[" + raw[a:b] + b"]"
        try:
            instances = orjson.loads(text)
        except orjson.JSONDecodeError:
            raise GiveUp from None
        if has_duplicates(text, instances) or ((checked is None or checked()) and not validator.is_valid(instances)):
            raise GiveUp
        doc.firsts.append(offset)
        doc.ends = offset + len(instances)
        yield instances, offset
        offset += len(instances)
