"""The fields a declaration names, and what is done to their values: a column, a path below the
node (`text/post`), a path from the record (`/passage-id`), `@N` (the key or index the N-th `*`
of `records` and `each` matched), `@file` (what the `*` of a file's glob matched), `.` (the node
itself); renamed (`map`), written into a template (`format`), split into a list (`split`) or
read as a type (`type`). Column templates (`annotator{rater}`, `is_abuse.{value}`) name several
columns at once."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ...finding import escape_token, split_pointer
from ...judgments.view import hashable

ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "ABSENT"})()


@dataclass(frozen=True)
class Field:
    """A field as a declaration names it (`written`), where (`at`: a pointer into the
    declaration), and how its value is read."""

    written: str
    at: str
    steps: tuple[str, ...] = ()  # the path below the node, or the record (`root`)
    root: bool = False
    capture: int | None = None  # @N: 1-based
    file: bool = False  # @file
    rename: tuple[tuple[str, Any], ...] | None = None
    template: str | None = None
    split: str | None = None
    type: str | None = None
    missing: frozenset[Any] | None = None  # values that mean no answer

    @property
    def transforms(self) -> bool:
        return (
            self.rename is not None
            or self.template is not None
            or self.split is not None
            or self.type is not None
            or self.missing is not None
        )

    def pointer(self) -> str:
        """The field's path as a pointer below the node (or the record)."""
        return "".join("/" + escape_token(s) for s in self.steps)

    def convert(self, value: Any) -> Any:
        """The value as the declaration reads it (ABSENT stays ABSENT)."""
        if value is ABSENT or not self.transforms:
            return value
        if self.missing is not None and _said(value) in self.missing:
            return ABSENT
        if self.split is not None:
            if not isinstance(value, str):
                return value
            return [self._one(v.strip()) for v in value.split(self.split)] if value.strip() else []
        if isinstance(value, list):
            return [self._one(v) for v in value]
        return self._one(value)

    def _one(self, value: Any) -> Any:
        if self.rename is not None and isinstance(value, (str, int, float)) and not isinstance(value, bool):
            value = dict(self.rename).get(str(value), value)
        if self.type is not None:
            value = cast(value, self.type)
        if self.template is not None:
            value = self.template.replace("{}", text(value))
        return value


def _said(value: Any) -> str:
    """A value as it is compared with the `missing` ones: -1 and "-1" alike."""
    return text(value) if isinstance(value, (int, float, str)) and not isinstance(value, bool) else repr(value)


def text(value: Any) -> str:
    """A value as text: a whole float as the integer it is (1.0 is "1")."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def cast(value: Any, kind: str) -> Any:
    """A value as a type, where it reads as one (else as it is: the rules report it)."""
    if kind == "string":
        return text(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        if kind == "integer":
            return int(number) if number.is_integer() else value
        return int(number) if number.is_integer() and "." not in value else number
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class Known:
    """Values as the rules compare them: equal as judgments.view.hashable has it (the one
    definition of equal values), or as their texts, since a file's text "1" is a scale's 1."""

    def __init__(self, values: Iterable[Any] = ()) -> None:
        self.keys: set[Any] = set()
        self.update(values)

    def update(self, values: Iterable[Any]) -> None:
        for value in values:
            key = _key(value)
            if key is not None:
                self.keys.add(key)
            self.keys.add(text(value))

    def __contains__(self, value: Any) -> bool:
        if value is ABSENT:
            return False
        kind = type(value)
        if kind is str:  # the usual answers: their keys are themselves
            return value in self.keys
        if kind is int:
            return value in self.keys or str(value) in self.keys
        key = _key(value)
        return (key is not None and key in self.keys) or text(value) in self.keys


def _key(value: Any) -> Any:
    """A value's key, or None for one that has none (an object): its text stands for it."""
    key = hashable(value)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def key(value: Any) -> Any:
    """A value as a key of a dict: as judgments.view.hashable has it, an object as its text."""
    found = _key(value)
    return text(value) if found is None else found


def same(value: Any, other: Any) -> bool:
    """Whether two values are one answer, as Known compares them."""
    return value in Known((other,))


_CAPTURE = re.compile(r"@([0-9]+)")


def parse(spec: Any, at: str, flat: bool) -> Field:
    """A field of a declaration (a string, or a table with `field`), written at `at`. In a flat
    record (a CSV row), a name is a column's, whole."""
    if isinstance(spec, dict):
        base = parse(spec["field"], at + "/field", flat)
        rename = tuple(sorted(spec["map"].items())) if "map" in spec else None
        return Field(
            base.written,
            base.at,
            base.steps,
            base.root,
            base.capture,
            base.file,
            rename,
            spec.get("format"),
            spec.get("split"),
            spec.get("type"),
            frozenset(map(_said, spec["missing"])) if "missing" in spec else None,
        )
    written = str(spec)
    if written == ".":
        return Field(written, at)
    if written == "@file":
        return Field(written, at, file=True)
    found = _CAPTURE.fullmatch(written)
    if found:
        return Field(written, at, capture=int(found.group(1)))
    if written.startswith("/"):
        return Field(written, at, tuple(split_pointer(written)), root=True)
    if flat:
        return Field(written, at, (written,))
    return Field(written, at, tuple(t.replace("~1", "/").replace("~0", "~") for t in written.split("/")))


def resolve(node: Any, record: Any, captures: tuple[Any, ...], stem: str, field: Field) -> Any:
    """A field's value at a node (its record, the keys matched on the way, the file's `@file`),
    converted; ABSENT where there is none."""
    if field.capture is not None:
        value = captures[field.capture - 1] if field.capture <= len(captures) else ABSENT
    elif field.file:
        value = stem
    else:
        value = record if field.root else node
        for step in field.steps:
            if isinstance(value, dict):
                value = value.get(step, ABSENT)
            elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
                value = value[int(step)]
            else:
                return ABSENT
    return field.convert(value)


@dataclass(frozen=True)
class Template:
    """A column template: `annotator{rater}`, `Annotator{rater}_{question}`, `is_abuse.{value}`."""

    written: str
    at: str

    def pattern(self) -> re.Pattern[str]:
        parts = re.split(r"\{(rater|question|value)\}", self.written)
        out = []
        for k, part in enumerate(parts):
            out.append(re.escape(part) if k % 2 == 0 else f"(?P<{part}>.+?)")
        return re.compile("".join(out))

    def matches(self, names: list[str]) -> list[tuple[str, dict[str, str]]]:
        """(column, what its name says) of each name the template matches, in their order."""
        compiled = self.pattern()
        return [(n, m.groupdict()) for n in names if (m := compiled.fullmatch(n))]


__all__ = ["ABSENT", "Field", "Known", "Template", "cast", "key", "parse", "resolve", "same", "text"]
