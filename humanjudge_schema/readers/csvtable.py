"""A CSV file read as a table of its row schema, for any format whose files are CSV: the header is
compared once with the schema's columns (those the schema does not have, the required ones it
lacks), and the rows are checked a chunk at a time, a column at a time (`csvcells`), row by row
only in a chunk that holds an invalid row.

What the header gets wrong is reported here, once, at the header, under the codes the format
names (`Columns`, a required argument, so that no CSV format can leave a missing or an unknown
column unsaid): a required column the header lacks is one finding, never a `schema/required` on
every row. Schema errors are computed by the function the caller passes (the engine's
`schema_errors`: the readers import nothing of the engine) and reported through its callback.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from ..schemas import load_schema, validator
from .csvcells import Chunk, RowBuilder
from .csvfile import CsvFile, header_columns
from .files import Problem

# (schema name, instance) -> (code, pointer, message) of each error (engine.schema_errors)
SchemaErrors = Callable[[str, Any], list[tuple[str, str, str]]]
# Each finding about the table. A row's schema error has the pointer /<row>/<column>... and no
# line (its document places it, if it is reported); a finding about the header has the pointer ""
# and the header's line, and the column of the cell it is about.
Report = Callable[[Problem], None]
# (column, the row schema's name) -> the message of a finding about that column
Message = Callable[[str, str], str]


@dataclass(frozen=True)
class Columns:
    """The codes, and the messages, of a format's findings about a header: a required column it
    lacks (`missing`) and a column the row schema does not have (`unknown`, when the schema
    allows no others)."""

    missing: str
    unknown: str
    missing_message: Message
    unknown_message: Message


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


def header_problems(header: Header, schema: str, columns: Columns) -> list[Problem]:
    """The findings about a header: each missing column (in the schema's order), at the header's
    line, then each unknown one (in the header's order), at its cell."""
    out = [Problem(columns.missing, columns.missing_message(c, schema), "", header.line) for c in header.missing]
    cells = header_columns(header.columns, header.line)
    for c in header.unknown:
        line, column = cells[header.columns.index(c)]
        out.append(Problem(columns.unknown, columns.unknown_message(c, schema), "", line, column))
    return out


def chunks(
    csv: CsvFile,
    schema: str,
    size: int,
    errors: SchemaErrors,
    report: Report | None,
    on_header: Callable[[Header], None],
    *,
    columns: Columns,
) -> Iterator[tuple[Chunk, list[bool] | None]]:
    """Every data row of the file, `size` rows at a time, with whether each row is schema-valid
    (None: all of them). `on_header` is given the header before the first chunk (or at the end,
    for a file with a header and no rows). The header's missing and unknown columns (under the
    codes of `columns`) and each schema error of a row go to `report` (None: nothing is
    reported, as on a second reading), but for a row's message about a missing column."""
    builder: RowBuilder | None = None
    required: set[str] = set()
    for pending in csv.chunks(size):
        if builder is None:
            header = _header(csv, schema, report, on_header, columns)
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
                            report(Problem(code, message, f"/{index}{ptr}"))
        # A row short of cells passes its schema with them empty, but rules would point at cells
        # that are not in the file: it is left to parse/ragged-row.
        yield chunk, [ok and index not in csv.padded for index, ok in zip(chunk.indices, valid, strict=True)]
    if builder is None and csv.header is not None:
        _header(csv, schema, report, on_header, columns)


def _header(
    csv: CsvFile, schema: str, report: Report | None, on_header: Callable[[Header], None], columns: Columns
) -> Header:
    header = compare(schema, csv.header or [], csv.header_line)
    on_header(header)
    if report is not None:
        for problem in header_problems(header, schema, columns):
            report(problem)
    return header
