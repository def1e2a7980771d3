"""CSV cells as JSON values, typed by the JSON Schema of a file's rows, so that the row schema
stays the single source of truth.

A cell becomes a JSON value by the `type` its column declares in the schema: `integer` and
`number` parse the number, `boolean` takes `True`/`False` (pandas) or `true`/`false` (JSON),
`array` a Python list literal such as `['exact', 'keyword']`; an empty cell is a missing value
(the key is absent). A cell that does not convert stays text, so the schema reports it
(`schema/type`). Rows are taken a chunk at a time as columns (`Chunk`): a chunk is checked
against the row schema a column at a time when the schema allows it, and row objects are built
only when asked for.
"""

from __future__ import annotations

import ast
import functools
import math
import re
from collections.abc import Callable, Iterator
from itertools import compress, repeat
from operator import eq
from typing import Any

import orjson

from ..schemas import declared_types, resolved

# A list literal longer than this stays text instead of going through the Python parser.
MAX_LITERAL = 256 * 1024
_CACHED = 4096  # distinct cells remembered per column (conversions repeat: 0.0, 1, ['exact'])


_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_SIMPLE_LIST = re.compile(r"\[(?:'[^'\\\n\r]*'(?:, '[^'\\\n\r]*')*)?\]")
_ITEM = re.compile(r"'([^'\\\n\r]*)'")
_BOOLEANS = {"True": True, "False": False, "true": True, "false": False}  # pandas', JSON's


def _number(text: str) -> Any:
    if text.isdigit() and text.isascii() and len(text) < 19:
        return int(text)
    if text[0].isspace() or text[-1].isspace():
        return text
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        # Python's spellings JSON lacks (".5", "5.", "+1", "007"), and numbers out of range
        if not _NUMBER.fullmatch(text):
            return text
        value = float(text) if any(c in text for c in ".eE") else int(text)
        if type(value) is int and not -(2**63) <= value < 2**64:
            return text  # as the JSON readers refuse it: no reader holds such an integer exactly
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


def converters(schema: dict[str, Any]) -> dict[str, Callable[[str], Any] | None]:
    """column -> how its cells become JSON values (None: the text as it is), derived from the
    `type` each property of the row schema declares (or the types of its enum values)."""
    out: dict[str, Callable[[str], Any] | None] = {}
    for name, raw in schema.get("properties", {}).items():
        kinds = declared_types(resolved(schema, raw))
        steps: list[Callable[[str], Any]] = []
        if "boolean" in kinds:
            steps.append(_boolean)
        if kinds & {"integer", "number"}:
            steps.append(_number)
        if "array" in kinds:
            steps.append(_array)
        out[name] = None if not steps else steps[0] if len(steps) == 1 else _either(*steps)
    return out


_MISSING = object()
_DRAFT = "https://json-schema.org/draft/2020-12/schema"
# Keywords that say nothing about the rows a schema accepts.
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "$defs", "title", "description", "examples", "default", "deprecated"}
)
# A row schema of these keywords alone checks every cell on its own: a chunk of rows is valid when
# every column's values are, so it can be checked a column at a time.
_PER_CELL = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties"}


def _any_string(prop: Any) -> bool:
    """Whether a property accepts every string (a cell kept as text needs no check)."""
    return prop is True or (
        isinstance(prop, dict) and {k: v for k, v in prop.items() if k not in _ANNOTATIONS} in ({}, {"type": "string"})
    )


class RowBuilder:
    """How the cells of a file's rows become the objects its row schema checks: column -> value,
    empty cells left out, columns the schema does not know left out (they are reported once, at
    the header). Conversions are remembered per column, since values repeat (0.0, 1, ['exact'])."""

    def __init__(self, header: list[str], name: str) -> None:
        from ..schemas import load_schema

        schema = load_schema(name)
        known = converters(schema)
        self.name = name
        self.header = header
        self.unknown = {name for name in header if name not in known}
        self.convert: list[Callable[[str], Any] | None] = [known.get(name) for name in header]
        self.caches: list[dict[str, Any]] = [{} for _ in header]
        # a column of a name given twice is read from its last column, as a JSON object's key
        self.position = {name: k for k, name in enumerate(header)}
        self.required: list[int] = []  # columns whose cells must not be empty
        self.checked, self.by_columns = self._per_cell(schema)

    def _per_cell(self, schema: dict[str, Any]) -> tuple[list[int], Any]:
        """The columns whose values need checking, and a validator of their values a column at a
        time (None when the schema's rows cannot be checked that way: rows are checked whole)."""
        props = schema.get("properties", {})
        if (
            not set(schema) <= _PER_CELL
            or schema.get("$schema", _DRAFT) != _DRAFT
            or schema.get("type", "object") != "object"
            or len(self.position) < len(self.header)
            or not isinstance(props, dict)
            or not isinstance(schema.get("required", []), list)
            or not set(schema.get("required", [])) <= self.position.keys()
        ):
            return [], None
        self.required = [self.position[name] for name in schema.get("required", [])]
        checked = [k for k, name in enumerate(self.header) if name in props and not _any_string(props[name])]
        derived = {
            "$schema": _DRAFT,
            "$defs": schema.get("$defs", {}),
            "type": "array",
            "prefixItems": [{"type": "array", "items": props[self.header[k]]} for k in checked],
        }
        from ..schemas import compile_schema

        try:
            return checked, compile_schema(derived)
        except ValueError:  # a reference the derived schema cannot resolve: rows are checked whole
            return [], None

    def chunk(self, indices: list[int], rows: list[list[str]], lines: Callable[[], list[int]] = list) -> Chunk:
        """Rows (each as long as the header) taken together, with their indices and the call that
        gives the lines they start on (CsvFile.chunk_lines)."""
        return Chunk(self, indices, list(zip(*rows, strict=True)) if rows else [() for _ in self.header], lines=lines)


class Chunk:
    """Consecutive data rows of a file, taken together: their data row indices, their cells a
    column at a time, and, built only when asked for, their row objects. A column's values are
    JSON values, each distinct text converted once, and "" where a cell is empty (the row object
    leaves it out)."""

    def __init__(
        self,
        builder: RowBuilder,
        indices: list[int],
        texts: list[tuple[str, ...]] | None,
        objects: list[dict[str, Any]] | None = None,
        lines: Callable[[], list[int]] = list,
    ) -> None:
        self.builder, self.indices, self.texts = builder, indices, texts
        self._lines_of = lines  # the call that gives the line each row starts on
        self._objects = objects
        self._columns: dict[str, list[Any]] = {}
        self._distinct: dict[int, dict[str, Any]] = {}

    def __len__(self) -> int:
        return len(self.indices)

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        return zip(self.indices, self.objects, strict=True)

    def _values(self, k: int) -> dict[str, Any]:
        """Each distinct text of a typed column -> its value ("" -> "")."""
        if k in self._distinct:
            return self._distinct[k]
        assert self.texts is not None
        convert, cache = self.builder.convert[k], self.builder.caches[k]
        assert convert is not None
        values = self._distinct[k] = {}
        for text in set(self.texts[k]):
            if not text:
                values[text] = text
                continue
            value = cache.get(text, _MISSING)
            if value is _MISSING:
                value = convert(text)
                if len(cache) < _CACHED:
                    cache[text] = value
            values[text] = value
        return values

    def _column(self, k: int) -> list[Any] | tuple[str, ...]:
        assert self.texts is not None
        if self.builder.convert[k] is None:
            return self.texts[k]
        return list(map(self._values(k).__getitem__, self.texts[k]))

    def column(self, name: str) -> list[Any]:
        """The values of a column, "" where a cell is empty or the file lacks the column."""
        if name not in self._columns:
            k = self.builder.position.get(name)
            if k is None or name in self.builder.unknown:
                values: Any = [""] * len(self.indices)
            elif self.texts is None:
                values = list(map(dict.get, self.objects, repeat(name), repeat("")))
            else:
                values = self._column(k)
            self._columns[name] = values
        return self._columns[name]

    @functools.cached_property
    def lines(self) -> list[int]:
        """The line each row starts on."""
        return self._lines_of()

    @property
    def objects(self) -> list[dict[str, Any]]:
        """The row objects, in order."""
        if self._objects is None:
            assert self.texts is not None
            header, texts = self.builder.header, self.texts
            columns = list(map(self._column, range(len(header))))
            out = list(map(dict, map(zip, repeat(header), zip(*columns, strict=True))))
            for k, name in enumerate(header):
                if name in self.builder.unknown:
                    list(map(dict.pop, out, repeat(name), repeat(None)))
                elif "" in texts[k]:  # rows without this cell: it is left out of their objects
                    list(map(dict.pop, compress(out, map(eq, texts[k], repeat(""))), repeat(name), repeat(None)))
            self._objects = out
        return self._objects

    def valid(self) -> bool:
        """Whether every row is valid against the row schema: decided a column at a time, on the
        distinct values of each column, when the schema checks cells one by one."""
        builder = self.builder
        if builder.by_columns is None or self.texts is None:
            return bool(rows_validator(builder.name).is_valid(self.objects))
        texts = self.texts
        if any("" in texts[k] for k in builder.required):
            return False
        values = [
            [v for t, v in self._values(k).items() if t] if builder.convert[k] else [t for t in set(texts[k]) if t]
            for k in builder.checked
        ]
        return bool(builder.by_columns.is_valid(values))

    def only(self, keep: list[bool]) -> Chunk:
        """The rows marked in `keep`."""
        objects = list(compress(self.objects, keep))
        return Chunk(
            self.builder, list(compress(self.indices, keep)), None, objects, lambda: list(compress(self.lines, keep))
        )


def rows_validator(name: str) -> Any:
    """A validator of a list of rows of the named row schema: one call checks a whole chunk."""
    from ..schemas import generation

    return _rows_validator(name, generation())


@functools.cache
def _rows_validator(name: str, generation: int) -> Any:
    from ..schemas import compile_schema, load_schema

    # the row schema has its own $id, so its references still resolve inside it
    return compile_schema({"type": "array", "items": load_schema(name)})


__all__ = ["Chunk", "RowBuilder", "converters", "rows_validator"]
