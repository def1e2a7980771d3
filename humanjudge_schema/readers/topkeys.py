"""The top-level keys of a JSON object, read from the start of a file without building its values:
how a one-file format tells its datasets from other JSON by their keys, in any order, however
they are spelt (`"\\u0069nstances"` is `"instances"` to every reader), and after values of any
length."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Collection

BOM = b"\xef\xbb\xbf"
_SPACE = re.compile(rb"[ \t\r\n]*")
# A string with at most 64 escapes; a longer one is read where escapes are NULs (_Scan.text).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*){0,64}"', re.S)
_BARE_TEXT = rb'"[^"]*"'  # a string where escapes are NULs
_SCALAR_TEXT = rb'[^ \t\r\n,:\[\]{}"]+'  # a number, true, false or null, unchecked
_SCALAR = re.compile(_SCALAR_TEXT)
_OTHER_TEXT = rb'[^"\[\]{}]*'
_OTHER = re.compile(_OTHER_TEXT)
_CLOSE = {ord("["): ord("]"), ord("{"): ord("}")}
# What a value's end can be besides a position: the bytes end first, or they are not JSON.
_MORE = -1
_BROKEN = -2
# The characters with a short escape besides \uXXXX, and its letter.
_SHORT = {'"': '"', "\\": "\\", "/": "/", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t"}
# Steps taken one at a time (a member, a bracket, a string) before the scan takes many in one call
# of patterns compiled then (some tens of milliseconds): a dataset's first members never need them.
_FEW = 64
# Steps taken one at a time in all before the document is parsed instead (a tenth of a second):
# only values nested deeper than the patterns reach, many times over, take that many.
_STEPS = 1 << 14
_CHUNK = 1 << 16  # bytes searched at a time, from the end, for the last escape


def has_key(data: bytes, names: Collection[str]) -> bool | None:
    """Whether `data`, a JSON document or its first bytes, is an object with one of `names` among
    its top-level keys: True once such a key and its colon are read (whatever follows, so that a
    truncated dataset is still taken and its parse error reported); False when the bytes say no
    (not an object, or the object ends or breaks before such a key); None when they end before
    either, which for a whole document means no.

    Values are skipped, not built, mostly in C. Nothing is read beyond the last place where one
    of the names is written (plainly or with an escape), so a document that never names them
    costs a search of its bytes and no parse. Values too intricate to skip cheaply (nested
    deeper than six levels, many times over) are left to a parse of the whole of `data`, which
    then decides, or says None if it is not JSON (a document cut short, or broken)."""
    start = 3 if data.startswith(BOM) else 0
    pos = _past(_SPACE, data, start)
    if pos == len(data):
        return None
    if data[pos] != ord("{"):
        return False
    wanted = frozenset(names)
    last = _last_mention(data, wanted)
    try:
        return _Scan(data).members(_past(_SPACE, data, pos + 1), wanted, last)
    except _Intricate:
        return _parsed(memoryview(data)[start:], wanted)


def _parsed(data: memoryview, names: frozenset[str]) -> bool | None:
    """has_key's answer from a parse of the whole of `data`; None if it does not parse."""
    import orjson  # the readers' parser; loaded here only, since few scans come to this

    from ..gcpause import paused

    with paused():
        try:
            document = orjson.loads(data)
        except orjson.JSONDecodeError:
            return None
        found = isinstance(document, dict) and not names.isdisjoint(document)
        del document
    return found


class _Intricate(Exception):
    """The scan took _STEPS steps one at a time."""


class _Scan:
    """One scan of a document's top-level members. Keys are read from `data`; the structure from
    `text`: the same bytes, with every escape made NULs once the scan turns out long (or meets a
    string of many escapes), so that each quote left starts or ends a string and a string is one
    step of the matcher whatever it holds."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.text = data
        self.bare = False
        self.steps = 0

    def step(self) -> bool:
        """Count a step taken one at a time; whether the patterns that take many are in use."""
        self.steps += 1
        if self.steps > _STEPS:
            raise _Intricate
        if self.steps == _FEW:
            self.strip()
        return self.steps >= _FEW

    def strip(self) -> None:
        if not self.bare:
            self.text = self.data.replace(b"\\\\", b"\0\0").replace(b'\\"', b"\0\0").replace(b"\\", b"\0")
            self.bare = True

    def string_end(self, pos: int) -> int:
        """Where the string starting at `pos` ends, or _MORE."""
        string = _STRING.match(self.text, pos)
        if string is None and not self.bare:
            self.strip()
            string = _STRING.match(self.text, pos)
        return _MORE if string is None else string.end()

    def members(self, pos: int, wanted: frozenset[str], last: int) -> bool | None:
        """has_key from the first member on (`pos`), up to the one that starts at `last`."""
        text = self.text
        if text[pos : pos + 1] == b"}":
            return False
        while pos <= last:
            if self.step():
                text = self.text
                pos = _past(_plain_members(wanted), text, pos)
                if pos > last:
                    break
            if text[pos : pos + 1] != b'"':
                return None if pos == len(text) else False
            end = self.string_end(pos)
            if end == _MORE:
                return None
            name = _name(self.data[pos:end])
            text = self.text
            pos = _past(_SPACE, text, end)
            if pos == len(text):
                return None
            if text[pos] != ord(":") or name is None:
                return False
            if name in wanted:
                return True
            pos = self.value_end(_past(_SPACE, text, pos + 1))
            text = self.text
            if pos < 0:
                return None if pos == _MORE else False
            pos = _past(_SPACE, text, pos)
            if pos == len(text):
                return None
            if text[pos] != ord(","):
                return False  # the object ends (or breaks) here
            pos = _past(_SPACE, text, pos + 1)
        return None

    def value_end(self, pos: int) -> int:
        """Where the value starting at `pos` ends, or _MORE, or _BROKEN."""
        text = self.text
        if pos == len(text):
            return _MORE
        if text[pos] == ord('"'):
            return self.string_end(pos)
        if text[pos] in _CLOSE:
            return self.container_end(pos)
        scalar = _SCALAR.match(text, pos)
        if scalar is None:
            return _BROKEN
        return _MORE if scalar.end() == len(text) else scalar.end()

    def container_end(self, pos: int) -> int:
        """Where the array or object opening at `pos` closes, brackets inside strings aside."""
        opened = [self.text[pos]]
        pos += 1
        while True:
            skip = _balanced() if self.step() else _OTHER
            text = self.text
            pos = _past(skip, text, pos)
            if pos == len(text):
                return _MORE
            c = text[pos]
            if c in _CLOSE:
                opened.append(c)
                pos += 1
            elif c == ord('"'):
                pos = self.string_end(pos)
                if pos == _MORE:
                    return _MORE
            elif _CLOSE[opened.pop()] != c:
                return _BROKEN
            else:
                pos += 1
                if not opened:
                    return pos


def _past(pattern: re.Pattern[bytes], data: bytes, pos: int) -> int:
    """Where what `pattern` matches at `pos` ends (it may match nothing)."""
    found = pattern.match(data, pos)
    return pos if found is None else found.end()


def _name(raw: bytes) -> str | None:
    """A key as written (quotes included) as every JSON reader reads it; None if it is not JSON."""
    try:
        if b"\\" not in raw:
            return raw[1:-1].decode("utf-8")
        name = json.loads(raw)
    except ValueError:
        return None
    return name if isinstance(name, str) else None


def _last_mention(data: bytes, names: frozenset[str]) -> int:
    """Where the last key among `names` may start, -1 if none can: the last place one is written
    plainly, or a later escape. Both are looked for from the end, in C."""
    last = max((data.rfind(b'"' + n.encode("utf-8") + b'"') for n in names), default=-1)
    escapes = _escapes(names)
    end = len(data)
    while escapes is not None and end > last + 1:
        start = max(last + 1, end - _CHUNK)
        found = [m.start() for m in escapes.finditer(data, start, min(len(data), end + 16))]
        if found:
            return found[-1]
        end = start
    return last


@functools.cache
def _escapes(names: frozenset[str]) -> re.Pattern[bytes] | None:
    """An escape that stands for a character of one of `names`: how a key among them is written
    when not plainly (JSON writers escape no letter, so other documents seldom hold one)."""
    chars = {c for n in names for c in n}
    # \uXXXX, in either case; beyond the BMP, the first of the two that stand for the character
    units = sorted({c.encode("utf-16-be")[:2].hex() for c in chars})
    escapes = [rb"\\u(?i:" + b"|".join(u.encode() for u in units) + b")"] if units else []
    escapes += [re.escape(b"\\" + _SHORT[c].encode()) for c in sorted(chars) if c in _SHORT]
    return re.compile(b"|".join(escapes)) if escapes else None


def _nested(depth: int) -> bytes:
    """A pattern of text whose brackets close within it, nested up to `depth` deep. It doubles
    with each level ([] and {} kept apart, so that `[1}` does not close); each repeat is bounded,
    which keeps the matcher's memory small on a long array. No part of it can match a text two
    ways, so a failure backtracks in linear time."""
    inner = _OTHER_TEXT + rb"(?:" + _BARE_TEXT + _OTHER_TEXT + rb"){0,4096}"
    for _ in range(depth):
        inner = _OTHER_TEXT + rb"(?:(?:" + _BARE_TEXT + rb"|" + _group(inner) + rb")" + _OTHER_TEXT + rb"){0,4096}"
    return inner


def _group(inner: bytes) -> bytes:
    return rb"\[" + inner + rb"\]|\{" + inner + rb"\}"


@functools.cache
def _balanced() -> re.Pattern[bytes]:
    """Text whose brackets close within it, six deep: a value of common depth in one call, in C."""
    return re.compile(_nested(6), re.S)


@functools.cache
def _plain_members(names: frozenset[str]) -> re.Pattern[bytes]:
    """Members of an object, each with its comma, whose keys are written plainly (no escape, no
    NUL) and are none of `names`, and whose values nest up to six deep: up to 4096 in one call."""
    named = b"|".join(re.escape(n.encode("utf-8")) for n in sorted(names))
    key = rb'"(?!(?:' + named + rb')")[^"\\\0]*"'
    value = rb"(?:" + _BARE_TEXT + rb"|" + _group(_nested(5)) + rb"|" + _SCALAR_TEXT + rb")"
    space = _SPACE.pattern
    return re.compile(rb"(?:" + key + space + b":" + space + value + space + b"," + space + rb"){0,4096}", re.S)
