"""A card as `card --check` reads it: through the reader every validated file goes through (a
regular file only, within max-document-bytes, its bytes checked as validate checks a JSON file),
and its text fields with where each of their strings starts, so that a phrase found in one is
pointed at in one step, however many strings the field holds."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..finding import escape_token
from ..readers.files import BOM, UTF16, Problem, decode_problem, read_bytes, utf16
from ..readers.jsonfile import BROKEN, parse

UNREADABLE = "card/unreadable"
# What the reader reports and the card is read on after: validate's own findings of the bytes
_READ_ON = {"parse/bom", "parse/invalid-utf8", "parse/duplicate-key"}


@dataclass
class Card:
    """A card read: its object (None when it cannot be compared), its text (where the pointers'
    lines are found) and the problems of its bytes."""

    doc: dict[str, Any] | None
    text: str
    problems: list[Problem]


def read_card(path: Path, max_bytes: int) -> Card:
    """The card at `path`. A card that cannot be read as a JSON object is one `card/unreadable`
    problem saying why (not a regular file, too large, not UTF-8 but UTF-16, not JSON, nested too
    deep, a number out of range); a duplicate key, a byte that is not UTF-8 or a byte-order mark
    is validate's `parse/` problem, and the card is read on (the last of two keys, each bad byte
    replaced)."""
    raw = read_bytes(path, max_bytes)
    if isinstance(raw, Problem):
        return Card(None, "", [Problem(UNREADABLE, f"cannot read the card: {raw.message}")])
    if utf16(raw):
        return Card(None, "", [Problem(UNREADABLE, f"cannot read the card: {UTF16}", "", 1, 1)])
    problems = []
    bad = decode_problem(raw)
    if bad is not None:
        problems.append(bad)
        raw = raw.decode("utf-8", "replace").encode("utf-8")
    data, found = parse(raw)
    problems += [p for p in found if p.code in _READ_ON]
    text = (raw[len(BOM) :] if raw.startswith(BOM) else raw).decode("utf-8")
    if data is BROKEN:
        first = next((p for p in found if p.code not in _READ_ON), Problem("parse/invalid-json", "not JSON"))
        said = "the card is not JSON" if first.code == "parse/invalid-json" else "cannot read the card"
        problems.append(first._replace(code=UNREADABLE, message=f"{said}: {first.message}"))
        return Card(None, text, problems)
    if not isinstance(data, dict):
        problems.append(Problem(UNREADABLE, "the card is not a JSON object", "", 1))
        return Card(None, text, problems)
    return Card(data, text, problems)


@dataclass(frozen=True)
class FieldText:
    """The text of one field of a card: its string, or the strings of its list one per line (its
    other values left out); and the pointer of the string a stretch of that text is in."""

    key: str
    text: str
    # for a list: where each of its strings starts and ends in the text, and its index in the list
    starts: tuple[int, ...] = ()
    ends: tuple[int, ...] = ()
    indices: tuple[int, ...] = ()

    @classmethod
    def of(cls, doc: dict[str, Any], key: str) -> FieldText:
        value = doc.get(key)
        if isinstance(value, str):
            return cls(key, value)
        if not isinstance(value, list):
            return cls(key, "")
        parts, starts, ends, indices, at = [], [], [], [], 0
        for i, v in enumerate(value):
            if isinstance(v, str):
                parts.append(v)
                starts.append(at)
                ends.append(at + len(v))
                indices.append(i)
                at += len(v) + 1
        return cls(key, "\n".join(parts), tuple(starts), tuple(ends), tuple(indices))

    def pointer(self, start: int, end: int) -> str:
        """The pointer of the string that holds the text from `start` to `end`: an item of the
        list, or the field itself (its string, or a stretch across two items)."""
        at = "/" + escape_token(self.key)
        i = bisect.bisect_right(self.starts, start) - 1
        if i >= 0 and end <= self.ends[i]:
            return f"{at}/{self.indices[i]}"
        return at
