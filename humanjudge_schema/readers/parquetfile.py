"""Parquet read a record batch at a time (pyarrow, the `parquet` extra), in bounded memory: each
row a JSON-like record of its columns, typed as Arrow has them (integers, floats, text, booleans,
lists, structs as objects, maps as objects, null as None; timestamps, dates and times as ISO
8601 text, decimals as numbers, durations as seconds, binary values as their UTF-8 text).

Every problem is a `Problem`, never an exception: a file that is not Parquet or is damaged
(`parse/invalid-parquet`), a value JSON has no number for (NaN, an infinity:
`parse/non-finite-number`, as the JSON readers report it, and the row is not read on, as a
JSON Lines record holding one is not) and binary values that are not UTF-8 text. A Parquet
file has no lines: a problem in a row has the pointer `/ROW/column`, and no line.
"""

from __future__ import annotations

import datetime
import decimal
import math
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import IO, Any, NamedTuple

from ..finding import escape_token
from .files import DEFAULT_MAX_DOCUMENT, Problem, open_regular
from .jsonfile import BROKEN

MAGIC = b"PAR1"  # the first and the last four bytes of every Parquet file
NEEDS_PYARROW = "reading Parquet needs pyarrow, which is not installed: pip install 'humanjudge-schema[parquet]'"


def available() -> bool:
    """Whether pyarrow is installed (found without importing it)."""
    try:
        return find_spec("pyarrow") is not None
    except (ImportError, ValueError):  # a module of that name set aside (sys.modules["pyarrow"] = None)
        return False


@dataclass
class ParquetDocument:
    """A Parquet file as findings see it: the pointer of a record is its 0-based row index;
    nothing has a line."""

    path: Path

    def positions(self, pointers: list[str]) -> dict[str, tuple[int, int | None]]:
        return {}


class ParquetBatch(NamedTuple):
    """The rows of one record batch: `first` is the index of its first row; a record is BROKEN
    where a value of its row is one JSON has not (the problems say which). `columns` holds the
    same values a column at a time (a BROKEN row's as None)."""

    first: int
    records: list[Any]
    problems: list[Problem]
    columns: dict[str, list[Any]]


class _Bad(Exception):
    def __init__(self, code: str, message: str, pointer: str) -> None:
        super().__init__(message)
        self.problem = Problem(code, message, pointer)


def _not_finite(value: float) -> str:
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _plain(value: Any, at: str) -> Any:
    """A value of a row as JSON has it (raises _Bad for one JSON has not: the first found)."""
    kind = type(value)
    if value is None or kind is str or kind is int or kind is bool:
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        raise _Bad("parse/non-finite-number", f"{_not_finite(value)} is not JSON; use null", at)
    if kind is dict:
        return {k: _plain(v, f"{at}/{escape_token(k)}") for k, v in value.items()}
    if kind is list:
        if value and all(type(v) is tuple and len(v) == 2 for v in value):  # a map's entries
            return {str(k): _plain(v, f"{at}/{escape_token(str(k))}") for k, v in value}
        return [_plain(v, f"{at}/{i}") for i, v in enumerate(value)]
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        if value == value.to_integral_value():
            return int(value)
        if not math.isfinite(float(value)):
            raise _Bad("parse/number-out-of-range", "number too large for a double", at)
        return float(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as exc:
            said = f"a binary value whose byte {value[exc.start]:#04x} is not UTF-8 text"
            raise _Bad("parse/invalid-utf8", said, at) from None
    return str(value)


def _how(pa: Any, kind: Any) -> str:
    """How a column of this Arrow type is made JSON: "as-is" (null, booleans, integers, text:
    to_pylist gives them as JSON has them), "float" (as they are, once their NaN and infinities
    are looked for) or "walk" (value by value, `_plain`)."""
    if pa.types.is_float32(kind) or pa.types.is_float64(kind):
        return "float"
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    simple = (pa.types.is_null, pa.types.is_boolean, pa.types.is_integer, pa.types.is_string, pa.types.is_large_string)
    return "as-is" if any(test(kind) for test in simple) else "walk"


def _json_type(pa: Any, kind: Any) -> str | None:
    """The JSON type the values of an Arrow type are read as (None: more than one)."""
    t = pa.types
    if t.is_dictionary(kind):
        kind = kind.value_type
    if t.is_boolean(kind):
        return "boolean"
    if t.is_integer(kind):
        return "integer"
    if t.is_floating(kind) or t.is_decimal(kind) or t.is_duration(kind):
        return "number"
    if t.is_string(kind) or t.is_large_string(kind) or t.is_temporal(kind) or t.is_binary(kind):
        return "string"
    if t.is_large_binary(kind) or t.is_fixed_size_binary(kind):
        return "string"
    if t.is_list(kind) or t.is_large_list(kind) or t.is_fixed_size_list(kind):
        return "array"
    if t.is_struct(kind) or t.is_map(kind):
        return "object"
    if t.is_null(kind):
        return "null"
    return None


class ParquetRecords:
    """The rows of one Parquet file, read once, front to back, `batch` rows at a time.

    Iterating yields a `ParquetBatch` a record batch; the problems of the file itself (not
    Parquet, damaged, a column named twice) accumulate in `problems`. `complete` is False when
    the file could not be read to its end: rules that need every record say nothing then."""

    def __init__(self, path: Path, batch: int = 4096, limit: int = DEFAULT_MAX_DOCUMENT) -> None:
        self.path, self.batch, self.limit = path, batch, limit
        self.problems: list[Problem] = []
        self.complete = True
        self.columns: list[str] | None = None  # the top-level columns, once the footer is read
        self.types: list[str | None] = []  # the JSON type of each column's values (None: any)

    def _fail(self, code: str, message: str) -> None:
        self.problems.append(Problem(code, message))
        self.complete = False

    def __iter__(self) -> Iterator[ParquetBatch]:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            self._fail("parse/unreadable", NEEDS_PYARROW)
            return
        opened = open_regular(self.path)
        if isinstance(opened, Problem):
            self._fail(opened.code, opened.message)
            return
        with opened as f:
            why = _not_parquet(f)
            if why is not None:
                self._fail(why[0], why[1])
                return
            try:
                reader = pq.ParquetFile(f)
                names = list(reader.schema_arrow.names)
                hows = [_how(pa, field.type) for field in reader.schema_arrow]
                batches = reader.iter_batches(batch_size=self.batch, use_threads=False)
            except (pa.ArrowException, OSError, ValueError, MemoryError) as exc:
                self._fail("parse/invalid-parquet", f"its footer cannot be read: {_said(exc)}")
                return
            # A row group is decompressed a page at a time as it is read: one that its footer says
            # is larger than a document may be (a few kilobytes of pages can claim gigabytes) is
            # refused before a page of it is read.
            for k in range(reader.metadata.num_row_groups):
                size = reader.metadata.row_group(k).total_byte_size
                if size > self.limit:
                    self._fail(
                        "parse/decompressed-too-large",
                        f"row group {k} decompresses to {size:,} bytes, more than max-document-bytes "
                        f"({self.limit:,}): not read",
                    )
                    return
            self.columns = names
            self.types = [_json_type(pa, field.type) for field in reader.schema_arrow]
            twice = sorted({n for n in names if names.count(n) > 1})
            for name in twice:
                self.problems.append(
                    Problem(
                        "parse/duplicate-column", f"column {name!r} appears more than once; the last is the one read"
                    )
                )
            first = 0
            while True:
                try:
                    batch = next(batches, None)
                except (pa.ArrowException, OSError, ValueError, MemoryError) as exc:
                    self._fail("parse/invalid-parquet", f"damaged after row {first:,}: {_said(exc)}")
                    return
                if batch is None:
                    return
                yield _records(pa, batch, names, hows, first)
                first += batch.num_rows


def _records(pa: Any, batch: Any, names: list[str], hows: list[str], first: int) -> ParquetBatch:
    """A record batch's rows as records, each value as JSON has it."""
    import pyarrow.compute as pc

    problems: list[Problem] = []
    broken: set[int] = set()
    columns: list[list[Any]] = []
    for k, name in enumerate(names):
        array = batch.column(k)
        how = hows[k]
        tail = "/" + escape_token(name)
        try:
            values = array.to_pylist()
        except (pa.ArrowException, ValueError, OverflowError):  # a date past Python's (year 10000)
            values = []
            for i in range(len(array)):
                try:
                    values.append(array[i].as_py())
                except (pa.ArrowException, ValueError, OverflowError) as exc:
                    said = f"a value Python cannot hold: {_said(exc)}"
                    problems.append(Problem("parse/invalid-parquet", said, f"/{first + i}{tail}"))
                    broken.add(i)
                    values.append(None)
        if how == "float" and pc.all(pc.is_finite(array)).as_py() is False:
            for i, v in enumerate(values):
                if v is not None and not math.isfinite(v):
                    at = f"/{first + i}{tail}"
                    problems.append(Problem("parse/non-finite-number", f"{_not_finite(v)} is not JSON; use null", at))
                    broken.add(i)
        elif how == "walk":
            made = []
            for i, v in enumerate(values):
                try:
                    made.append(_plain(v, f"/{first + i}{tail}"))
                except _Bad as bad:
                    problems.append(bad.problem)
                    broken.add(i)
                    made.append(None)
            values = made
        columns.append(values)
    if len(names) == 1:
        records: list[Any] = [{names[0]: v} for v in columns[0]]
    else:
        records = [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]
    if not names:
        records = [{} for _ in range(batch.num_rows)]
    for i in broken:
        records[i] = BROKEN
    return ParquetBatch(first, records, problems, dict(zip(names, columns, strict=True)))


def _not_parquet(f: IO[bytes]) -> tuple[str, str] | None:
    """Why an open file is not Parquet at all, from its first and last bytes (None: it may be)."""
    head = f.read(4)
    if not head:
        return "parse/empty", "the file is empty"
    if head != MAGIC:
        if head.startswith(b"\x1f\x8b"):
            return "parse/invalid-parquet", "the file is gzipped, not Parquet (Parquet compresses its own pages)"
        return "parse/invalid-parquet", "not a Parquet file: it does not start with PAR1"
    end = f.seek(0, 2)
    if end < 12:  # the magic bytes twice and the footer's length
        return "parse/invalid-parquet", f"truncated: {end} bytes, less than a Parquet file has"
    f.seek(end - 4)
    if f.read(4) != MAGIC:
        return "parse/invalid-parquet", "truncated or damaged: it does not end with PAR1, so its footer is missing"
    f.seek(0)
    return None


def _said(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) <= 300 else text[:299] + "…"


def columns(path: Path) -> list[str] | None:
    """The top-level columns a Parquet file's footer names, its footer alone read; None where
    pyarrow is not installed, or the file is not Parquet or its footer cannot be read."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return None
    opened = open_regular(path)
    if isinstance(opened, Problem):
        return None
    with opened as f:
        if _not_parquet(f) is not None:
            return None
        try:
            return list(pq.ParquetFile(f).schema_arrow.names)
        except (pa.ArrowException, OSError, ValueError, MemoryError):
            return None


__all__ = [
    "MAGIC",
    "NEEDS_PYARROW",
    "ParquetBatch",
    "ParquetDocument",
    "ParquetRecords",
    "available",
    "columns",
]
