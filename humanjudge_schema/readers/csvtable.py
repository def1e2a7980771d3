"""A CSV file read as a table of its row schema, for any format whose files are CSV: the header is
compared once with the schema's columns (those the schema does not have, the required ones it
lacks), and the rows are checked a chunk at a time, a column at a time (`csvcells`), row by row
only in a chunk that holds an invalid row.

A required column the header lacks is a finding about the header, made once by the format (HALIE's
`halie/missing-column`), never a `schema/required` on every row: the rows' messages about it are
left out here. Schema errors are computed by the function the caller passes (the engine's
`schema_errors`: the readers import nothing of the engine) and reported through its callback.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from ..schemas import load_schema, validator
from .csvcells import Chunk, RowBuilder
from .csvfile import CsvFile

# (schema name, instance) -> (code, pointer, message) of each error (engine.schema_errors)
SchemaErrors = Callable[[str, Any], list[tuple[str, str, str]]]
# (row index, code, pointer within the row, message) of a schema error of a row
Report = Callable[[int, str, str, str], None]


@dataclass(frozen=True)
class Header:
    """A file's header against its row schema."""

    columns: list[str]
    line: int
    unknown: list[str]  # columns the schema does not have (when it allows no others)
    missing: list[str]  # required columns the header lacks


def compare(schema: str, columns: list[str], line: int) -> Header:
    """The header of a file (its columns, on `line`) against the row schema's columns."""
    loaded = load_schema(schema)
    props, required = loaded.get("properties", {}), loaded.get("required", [])
    unknown = (
        [c for c in dict.fromkeys(columns) if c not in props] if loaded.get("additionalProperties") is False else []
    )
    return Header(columns, line, unknown, [c for c in required if c not in columns])


def chunks(
    csv: CsvFile,
    schema: str,
    size: int,
    errors: SchemaErrors,
    report: Report | None,
    on_header: Callable[[Header], None],
) -> Iterator[tuple[Chunk, list[bool] | None]]:
    """Every data row of the file, `size` rows at a time, with whether each row is schema-valid
    (None: all of them). `on_header` is given the header before the first chunk (or at the end,
    for a file with a header and no rows); each schema error of a row goes to `report` (None:
    nothing is reported, as on a second reading), except a missing column's."""
    builder: RowBuilder | None = None
    required: set[str] = set()
    for pending in csv.chunks(size):
        if builder is None:
            header = compare(schema, csv.header or [], csv.header_line)
            on_header(header)
            builder = RowBuilder(header.columns, schema)
            required = {f'"{c}" is a required property' for c in header.missing}
        chunk = builder.chunk(list(map(itemgetter(0), pending)), list(map(itemgetter(1), pending)), csv.chunk_lines)
        if not csv.padded and chunk.valid():
            yield chunk, None
            continue
        is_valid = validator(schema).is_valid
        valid = list(map(is_valid, chunk.objects))
        if report is not None:
            for (index, row), ok in zip(chunk, valid, strict=True):
                if not ok:
                    for code, ptr, message in errors(schema, row):
                        if not (ptr == "" and message in required):  # a missing column: said at the header
                            report(index, code, ptr, message)
        # A row short of cells passes its schema with them empty, but rules would point at cells
        # that are not in the file: it is left to parse/ragged-row.
        yield chunk, [ok and index not in csv.padded for index, ok in zip(chunk.indices, valid, strict=True)]
    if builder is None and csv.header is not None:
        on_header(compare(schema, csv.header, csv.header_line))
