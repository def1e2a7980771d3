"""Whether a file of a declared name holds what its declaration says, so that a common name
(`labels.txt`, `testset-v1.json`) claims a folder only with the content to match: the header
(or, with no header row, the number of cells) of a CSV file, the fields of the first record of
JSON Lines, the field names near the start of a JSON file, the magic bytes of Parquet and the
columns its footer names. Only the file's first 64 KiB (of Parquet, its footer too) are read:
the check reads the whole file once, later."""

from __future__ import annotations

import csv
from pathlib import Path

import orjson

from ...kinds import head
from ...readers.csvfile import Dialect
from ...readers.parquetfile import MAGIC, columns
from .held import declaration
from .records import dialect_of

HEAD = 65536


def recognised(name: str, file: str, path: Path) -> bool:
    """Whether a file named as the declaration's `file` (a name, or a glob) holds what the
    declaration of its folder says."""
    try:
        decl = declaration(name, path.parent)
    except KeyError:
        return False
    role = next((r for r, (n, _, _) in decl.names.items() if n == file), None)
    if role is None:  # another folder's declaration names it: not this one's
        return False
    spec = decl.files.get(role)
    if spec is None:  # the declaration is broken: its check says how; the name alone decides
        return True
    data = head(path, HEAD)
    if data is None:
        return False
    fields = list((spec.record.get("properties") or {}).keys())
    if spec.type == "parquet":
        return data.startswith(MAGIC) and (not fields or _parquet_columns(path, fields))
    if spec.flat:
        first = _first_row(data, dialect_of(spec) or Dialect())
        if first is None:
            return False
        if spec.columns is not None:
            return len(first) == len(spec.columns)
        return not fields or bool(set(fields) & set(first))
    if spec.gzip:
        return data.startswith(b"\x1f\x8b")
    if spec.type == "jsonl":
        line = next((line for line in data.splitlines() if line.strip()), b"")
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            return False
        return isinstance(record, dict) and (not fields or bool(set(fields) & set(record)))
    return not fields or any(orjson.dumps(f) in data for f in fields)


def _parquet_columns(path: Path, fields: list[str]) -> bool:
    """Whether a Parquet file's columns (its footer alone read) share a name with the record
    schema's fields. A footer that cannot be read (a damaged file, or no pyarrow to read it) says
    nothing against the magic bytes: the check then says what is wrong."""
    names = columns(path)
    return names is None or bool(set(fields) & set(names))


def _first_row(data: bytes, dialect: Dialect) -> list[str] | None:
    """The first row of a table's first bytes (the header, where it has one)."""
    lines = [line for line in data.decode("utf-8-sig", "replace").splitlines(keepends=True) if line.strip()]
    try:
        return next(dialect.reader(lines), None)
    except csv.Error:
        return None
