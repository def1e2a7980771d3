"""Writing judgments as CSV, JSON Lines or Parquet, a row at a time (Parquet a batch at a time).

A value keeps its JSON type in JSON Lines. In CSV and Parquet, where a column has one type, it is
written as text: a string as it is, a number or a list as JSON (3, 4.5, [0, 1]), a missing
answer (None) as an empty cell or null.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from typing import IO, Any

import orjson

from .view import FIELDS, Judgment

FORMATS = ("csv", "jsonl", "parquet")
_BATCH = 65_536


def as_text(value: Any) -> str | None:
    """A value as one CSV or Parquet cell."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def write_csv(rows: Iterable[Judgment], out: IO[str]) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIELDS)
    n = 0
    for row in rows:
        value = as_text(row.value)
        writer.writerow(
            (*row[:6], "" if value is None else value, row.file, row.pointer, "" if row.line is None else row.line)
        )
        n += 1
    return n


def write_jsonl(rows: Iterable[Judgment], out: IO[bytes]) -> int:
    n = 0
    for row in rows:
        out.write(orjson.dumps(row._asdict(), option=orjson.OPT_APPEND_NEWLINE))
        n += 1
    return n


def write_parquet(rows: Iterable[Judgment], out: IO[bytes]) -> int:
    """Parquet through pyarrow (the `parquet` extra); item, rater and option are text."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [(name, pa.int64() if name == "line" else pa.string()) for name in FIELDS],
    )
    n = 0
    with pq.ParquetWriter(out, schema) as writer:
        batch: list[Judgment] = []
        for row in rows:
            batch.append(row)
            if len(batch) == _BATCH:
                writer.write_table(_table(pa, schema, batch))
                n += len(batch)
                batch = []
        writer.write_table(_table(pa, schema, batch))
        n += len(batch)
    return n


def _table(pa: Any, schema: Any, batch: list[Judgment]) -> Any:
    columns: dict[str, list[Any]] = {name: [] for name in FIELDS}
    for row in batch:
        for name, value in zip(FIELDS, row, strict=True):
            if name == "value":
                value = as_text(value)
            elif name in ("item", "rater", "option"):
                value = str(value)
            columns[name].append(value)
    return pa.table(columns, schema=schema)
