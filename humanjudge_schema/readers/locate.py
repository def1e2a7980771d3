"""Turn JSON pointers into offsets in the source text, only when there is something to report.

The walk descends only along the requested pointers and skips every other value with the C
scanner, so locating a few findings in a 50 MB file costs a fraction of parsing it.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import re
from collections.abc import Iterable

from ..finding import split_pointer

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]
# Tokens that matter when skipping a value by hand: whole strings and brackets.
_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
_SCALAR_END = re.compile(r"[^,\]}\s]*")


def _skip(text: str, idx: int) -> int:
    """Index just past the JSON value starting at idx."""
    try:
        return int(_DECODER.raw_decode(text, idx)[1])
    except RecursionError:
        pass
    except ValueError:
        return idx + 1
    depth = 0
    for m in _BRACKETS.finditer(text, idx):
        tok = m.group()
        if tok in "[{":
            depth += 1
        elif tok in "]}":
            depth -= 1
            if depth == 0:
                return m.end()
    return len(text)


class _Found(Exception):
    """Every pointer has been found, in a text with no key twice in one object."""


def locate(text: str, pointers: Iterable[str], *, unique: bool = False) -> dict[str, int]:
    """Offsets of the values (or, for object members, of the keys) the pointers name.

    A pointer whose target does not exist in the text is left out. When a key occurs twice in
    one object, the last occurrence is reported: it is the one every parser keeps. With
    `unique` (the text's parse found no key twice in one object), the walk ends once every
    pointer is found, instead of at the end of the text.
    """
    targets: dict[tuple[str, ...], str] = {}
    for p in pointers:
        targets[tuple(split_pointer(p))] = p
    prefixes: set[tuple[str, ...]] = set()
    for t in targets:
        prefixes.update(t[:i] for i in range(len(t)))
    found: dict[str, int] = {}

    def value(idx: int, path: tuple[str, ...], recorded: bool) -> int:
        idx = _WS.match(text, idx).end()  # type: ignore[union-attr]
        if not recorded and path in targets:
            found[targets[path]] = idx
        if unique and len(found) == len(targets):
            raise _Found
        if path not in prefixes or idx >= len(text):
            return _skip(text, idx)
        ch = text[idx]
        if ch == "{":
            idx = _WS.match(text, idx + 1).end()  # type: ignore[union-attr]
            while idx < len(text) and text[idx] == '"':
                key_at = idx
                key, idx = _scanstring(text, idx + 1)
                child = (*path, key)
                if child in targets:
                    found[targets[child]] = key_at
                    if unique and len(found) == len(targets):
                        raise _Found
                idx = _WS.match(text, idx).end()  # type: ignore[union-attr]
                idx = value(idx + 1, child, child in targets)  # past ':'
                idx = _WS.match(text, idx).end()  # type: ignore[union-attr]
                if idx < len(text) and text[idx] == ",":
                    idx = _WS.match(text, idx + 1).end()  # type: ignore[union-attr]
            return idx + 1
        if ch == "[":
            idx = _WS.match(text, idx + 1).end()  # type: ignore[union-attr]
            i = 0
            while idx < len(text) and text[idx] != "]":
                idx = value(idx, (*path, str(i)), False)
                idx = _WS.match(text, idx).end()  # type: ignore[union-attr]
                if idx < len(text) and text[idx] == ",":
                    idx += 1
                i += 1
            return idx + 1
        return _skip(text, idx)

    # A position is a courtesy: a text the walk cannot follow must never hide the finding itself.
    with contextlib.suppress(ValueError, IndexError, RecursionError, _Found):
        value(0, (), False)
    return found


class LineIndex:
    """Offsets to 1-based (line, column) in one text."""

    def __init__(self, text: str, first_line: int = 1) -> None:
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._first = first_line

    def position(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self._starts, offset) - 1
        return self._first + i, offset - self._starts[i] + 1
