"""Writing judgments as CSV, JSON Lines or Parquet, a row at a time (Parquet a batch at a time).

A value keeps its JSON type in JSON Lines. In CSV and Parquet, where a column has one type, it is
written as text: a string as it is, a number or a list as JSON (3, 4.5, [0, 1]), a missing
answer (None) as an empty cell or null.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from itertools import repeat
from operator import itemgetter
from typing import IO, Any

import orjson

from .view import FIELDS, Batch


def as_text(value: Any) -> str | None:
    """A value as one CSV or Parquet cell."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return orjson.dumps(value).decode()


# Values the csv module writes as JSON would (None as an empty cell, numbers as repr): a batch of
# only these is written as it is, in C.
_AS_IS = frozenset({str, int, float, type(None)})
_VALUE = FIELDS.index("value")


def _cells(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return (*row[:_VALUE], as_text(row[_VALUE]), *row[_VALUE + 1 :])


def write_csv(batches: Iterable[Batch], out: IO[str]) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIELDS)
    n = 0
    for batch in batches:
        if not batch:
            continue
        if not _AS_IS.issuperset(map(type, map(itemgetter(_VALUE), batch))):
            batch = [row if type(row[_VALUE]) in _AS_IS else _cells(row) for row in batch]  # booleans, lists: JSON
        lines = _plain_lines(batch)
        if lines is None:
            writer.writerows(batch)
        else:
            out.write(lines)
        n += len(batch)
    return n


_PLAIN_CELL = frozenset({str, int, float})
_SPECIAL = re.compile('[,"\r\n]')


def _plain_lines(batch: Batch) -> str | None:
    """The batch as CSV lines joined column by column in C, exactly as the csv module writes them,
    when no cell needs quoting or is None; else None (the csv module writes the batch). Columns
    that hold one value (the format, the dataset, the file) are turned into text once."""
    columns: list[Iterable[str]] = []
    for column in zip(*batch, strict=True):
        first = column[0]
        if column.count(first) == len(column) and type(first) in _PLAIN_CELL | {type(None)}:
            text = "" if first is None else str(first)
            if _SPECIAL.search(text):
                return None
            columns.append(repeat(text, len(column)))
            continue
        if not _PLAIN_CELL.issuperset(map(type, column)):
            return None
        texts = list(map(str, column))
        if _SPECIAL.search("".join(texts)):
            return None
        columns.append(texts)
    return "\n".join(map(",".join, zip(*columns, strict=True))) + "\n"


def write_jsonl(batches: Iterable[Batch], out: IO[bytes]) -> int:
    n = 0
    for batch in batches:
        objects = map(dict, map(zip, repeat(FIELDS), batch))
        out.write(b"".join(map(orjson.dumps, objects, repeat(None), repeat(orjson.OPT_APPEND_NEWLINE))))
        n += len(batch)
    return n


def write_parquet(batches: Iterable[Batch], out: IO[bytes]) -> int:
    """Parquet through pyarrow (the `parquet` extra); item, rater and option are text."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(name, pa.int64() if name == "line" else pa.string()) for name in FIELDS])
    n = 0
    with pq.ParquetWriter(out, schema) as writer:
        for batch in batches:
            if batch:
                writer.write_table(_table(pa, schema, batch))
                n += len(batch)
    return n


def _table(pa: Any, schema: Any, batch: Batch) -> Any:
    columns = dict(zip(FIELDS, map(list, zip(*batch, strict=True)), strict=True))
    columns["value"] = list(map(as_text, columns["value"]))
    for name in ("item", "rater", "option"):
        columns[name] = list(map(str, columns[name]))
    return pa.table(columns, schema=schema)
