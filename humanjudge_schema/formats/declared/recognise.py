"""Whether a file of a declared name holds what its declaration says, so that a common name
(`labels.txt`, `testset-v1.json`) claims a folder only with the content to match: the header
(or, with no header row, the number of cells) of a CSV file, the fields of the first record of
JSON Lines, the field names near the start of a JSON file."""

from __future__ import annotations

from pathlib import Path

import orjson

from ...readers.csvfile import CsvFile
from .held import declaration
from .records import dialect_of


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
    fields = list((spec.record.get("properties") or {}).keys())
    if spec.flat:
        csv = CsvFile(path, dialect_of(spec))
        for _, _, cells in csv.rows():
            if spec.columns is not None:
                return len(cells) == len(spec.columns)
            return not fields or bool(set(fields) & set(csv.header or []))
        return csv.header is not None and (not fields or bool(set(fields) & set(csv.header)))
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
    except OSError:
        return False
    if spec.gzip:
        return head.startswith(b"\x1f\x8b")
    if spec.type == "jsonl":
        first = next((line for line in head.splitlines() if line.strip()), b"")
        try:
            record = orjson.loads(first)
        except orjson.JSONDecodeError:
            return False
        return isinstance(record, dict) and (not fields or bool(set(fields) & set(record)))
    return not fields or any(orjson.dumps(f) in head for f in fields)
