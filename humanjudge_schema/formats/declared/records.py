"""A declared file's records, read with the library's readers and checked against the record
schema as they are read: CSV and TSV (with or without a header row, any delimiter, quoting on or
off) a chunk of rows at a time, each cell typed by the record schema (readers/csvtable.py);
JSON read whole, its records where `records` points; JSON Lines, gzipped or not, a record a line;
Parquet a record batch at a time, each row a record of its columns (readers/parquetfile.py).

What a block reads is `Rows`: the records (or the nodes `each` finds below them) of one piece of
a file, with each field's values as a list, and where each one is (a pointer, a line)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ...engine import Context, Document, schema_errors
from ...finding import escape_token
from ...readers.csvcells import Chunk
from ...readers.csvfile import CsvDocument, CsvFile, Dialect
from ...readers.csvtable import Columns, Header, chunks
from ...readers.files import Problem, open_regular
from ...readers.gzjsonl import GzipJsonLines, StreamedDocument
from .declaration import FileSpec
from .fields import ABSENT, Field, resolve

CHUNK = 4096  # rows of a CSV file typed and mapped at a time


def _role(schema: str) -> str:
    """The role a record schema's name is of ("ratings" of "example/v1/ratings@3f2a9c1d")."""
    return schema.rpartition("/")[2].partition("@")[0]


COLUMNS = Columns(
    missing="declared/missing-column",
    unknown="declared/unknown-column",
    missing_message=lambda column, schema: (
        f"required column {column!r} is missing ({_role(schema)}'s record schema requires it)"
    ),
    unknown_message=lambda column, schema: f"column {column!r} is not in {_role(schema)}'s record schema",
)


def stem_of(path: Path, spec: FileSpec) -> str:
    """What `@file` is for a file: the part of its name the glob's `*` matched (the name
    without its suffixes where the glob has no `*`)."""
    if spec.glob and "*" in spec.name:
        head, _, tail = spec.name.partition("*")
        tail = tail.split("*")[-1]
        return path.name[len(head) : len(path.name) - len(tail) if tail else None]
    return path.name.split(".")[0]


class CsvRows:
    """A chunk of a CSV or TSV file's rows."""

    def __init__(self, path: Path, doc: CsvDocument, chunk: Chunk, stem: str) -> None:
        self.path, self.doc, self.chunk, self.stem = path, doc, chunk, stem

    def __len__(self) -> int:
        return len(self.chunk)

    def below(self, each: tuple[str, ...]) -> CsvRows:
        return self

    def values(self, field: Field) -> list[Any]:
        if field.file:
            return [field.convert(self.stem)] * len(self.chunk)
        if not field.steps:
            return [ABSENT] * len(self.chunk)
        column = self.chunk.column(field.steps[0])
        if "" in column:
            column = [ABSENT if v == "" else v for v in column]
        return list(map(field.convert, column)) if field.transforms else list(column)

    def pointers(self, field: Field | None) -> list[str]:
        tail = "/" + escape_token(field.steps[0]) if field is not None and field.steps else ""
        return [f"/{i}{tail}" for i in self.chunk.indices]

    def lines(self) -> list[int | None]:
        return list(self.chunk.lines)


# A node of a JSON record: (the node, its record, the keys matched on the way, the node's
# pointer, the record's pointer, the record's line).
Node = tuple[Any, Any, tuple[Any, ...], str, str, int | None]


class JsonRows:
    """Records of a JSON or JSON Lines file, or the nodes below them."""

    def __init__(self, path: Path, doc: Document, nodes: list[Node], stem: str) -> None:
        self.path, self.doc, self.nodes, self.stem = path, doc, nodes, stem

    def __len__(self) -> int:
        return len(self.nodes)

    def below(self, each: tuple[str, ...]) -> JsonRows:
        if not each:
            return self
        out: list[Node] = []
        for node in self.nodes:
            out += _walk(node, each)
        return JsonRows(self.path, self.doc, out, self.stem)

    def values(self, field: Field) -> list[Any]:
        stem = self.stem
        return [resolve(n[0], n[1], n[2], stem, field) for n in self.nodes]

    def pointers(self, field: Field | None) -> list[str]:
        if field is None or field.capture is not None or field.file:
            return [n[3] for n in self.nodes]
        tail = field.pointer()
        return [(n[4] if field.root else n[3]) + tail for n in self.nodes]

    def lines(self) -> list[int | None]:
        return [n[5] for n in self.nodes]


Rows = CsvRows | JsonRows


def _walk(node: Node, steps: tuple[str, ...]) -> list[Node]:
    """The nodes `steps` lead to below a node ("*": every key or index, each a capture)."""
    found = [node]
    for step in steps:
        deeper: list[Node] = []
        for value, record, caps, at, rec_at, line in found:
            if step == "*":
                if isinstance(value, dict):
                    deeper += [
                        (v, record, (*caps, k), f"{at}/{escape_token(k)}", rec_at, line) for k, v in value.items()
                    ]
                elif isinstance(value, list):
                    deeper += [(v, record, (*caps, k), f"{at}/{k}", rec_at, line) for k, v in enumerate(value)]
            elif isinstance(value, dict) and step in value:
                deeper.append((value[step], record, caps, f"{at}/{escape_token(step)}", rec_at, line))
            elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
                deeper.append((value[int(step)], record, caps, f"{at}/{step}", rec_at, line))
        found = deeper
    return found


def dialect_of(spec: FileSpec) -> Dialect | None:
    """The CSV dialect of a file; None for a comma-separated file with a header row."""
    if spec.delimiter == "," and spec.quoting and spec.columns is None:
        return None
    return Dialect(spec.delimiter, spec.quoting, spec.columns)


class _Missing(CsvFile):
    """A CSV file whose cells of the declared texts (`missing`: "None", "NA") read as empty."""

    def __init__(self, path: Path, dialect: Dialect | None, missing: frozenset[str]) -> None:
        super().__init__(path, dialect)
        self.missing = missing

    def chunks(self, size: int = 1024) -> Iterator[list[tuple[int, list[str]]]]:
        missing = self.missing
        for pending in super().chunks(size):
            yield [(i, [("" if c in missing else c) for c in cells]) for i, cells in pending]


class ReadCompleteness:
    """Whether the last file read was read whole: rules over every record of it (references to
    it) say nothing where it was not (its parse/ findings say why)."""

    def __init__(self) -> None:
        self.complete = True


def read(
    path: Path, spec: FileSpec, max_bytes: int, ctx: Context | None, reading: ReadCompleteness | None = None
) -> Iterator[Rows]:
    """The records of one file, a piece at a time, each checked against the record schema:
    what is wrong is reported into ctx (None: nothing is reported, as on a second reading)."""
    stem = stem_of(path, spec)
    reading = reading or ReadCompleteness()
    if spec.flat:
        yield from _csv(path, spec, stem, ctx, reading)
    elif spec.type == "parquet":
        yield from _parquet(path, spec, stem, ctx, reading, max_bytes)
    elif spec.gzip:
        yield from _lines(GzipJsonLines(path), path, spec, stem, ctx, reading)
    elif spec.type == "jsonl":
        yield from _lines(_PlainLines(path), path, spec, stem, ctx, reading)
    else:
        yield from _json(path, spec, max_bytes, stem, ctx, reading)


def _csv(path: Path, spec: FileSpec, stem: str, ctx: Context | None, reading: ReadCompleteness) -> Iterator[Rows]:
    dialect = dialect_of(spec)
    csv = CsvFile(path, dialect) if not spec.missing else _Missing(path, dialect, spec.missing)
    doc = CsvDocument(path, list(spec.columns or ()), dialect)

    def header(found: Header) -> None:
        doc.header = found.columns

    said: Callable[[Problem], None] | None = None
    if ctx is not None:
        ctx.parsed(doc)

        def said(problem: Problem) -> None:
            if problem.line is None:
                ctx.add(problem.code, doc, problem.pointer, problem.message)
            else:
                ctx.problems(path, [problem])

    for chunk, _valid in chunks(csv, spec.schema, CHUNK, schema_errors, said, header, columns=COLUMNS):
        yield CsvRows(path, doc, chunk, stem)
    reading.complete = csv.complete and csv.header is not None
    if ctx is not None:
        ctx.problems(path, csv.problems)


def _records(data: Any, steps: tuple[str, ...], line: int | None = None, base: str = "") -> list[Node]:
    return _walk((data, data, (), base, base, line), steps)


def _json(
    path: Path, spec: FileSpec, max_bytes: int, stem: str, ctx: Context | None, reading: ReadCompleteness
) -> Iterator[Rows]:
    from ...readers.files import read_bytes
    from ...readers.jsonfile import JsonlDocument, document

    raw = read_bytes(path, max_bytes)
    # read as its type says, whatever its name ends in
    doc, problems = document(path.with_name(path.name + (".json" if spec.type == "json" else ".jsonl")), raw)
    if doc is not None:
        doc.path = path
    if ctx is not None:
        ctx.problems(path, problems, doc)
    if doc is None:
        reading.complete = False
        return
    if isinstance(doc, JsonlDocument):
        nodes: list[Node] = []
        for i, (record, line) in enumerate(zip(doc.records, doc.lines, strict=True)):
            nodes += _records(record, spec.records, line, f"/{i}")
    else:
        nodes = _records(doc.data, spec.records)
    if ctx is not None:
        for node in nodes:
            ctx.schema(spec.schema, doc, node[0], node[3])
    reading.complete = all(_parsed(n[0]) for n in nodes)
    yield JsonRows(path, doc, [n for n in nodes if _parsed(n[0])], stem)


def _parsed(value: Any) -> bool:
    from ...readers.jsonfile import BROKEN

    return value is not BROKEN


class ParquetRows(JsonRows):
    """Rows of a Parquet file: records as JSON Lines has them, whose columns are at hand a
    column at a time (a field that names one is read whole, not record by record)."""

    def __init__(self, path: Path, doc: Document, nodes: list[Node], stem: str, columns: dict[str, list[Any]]) -> None:
        super().__init__(path, doc, nodes, stem)
        self.columns = columns

    def values(self, field: Field) -> list[Any]:
        if field.capture is not None or field.file or len(field.steps) != 1:
            return super().values(field)
        column = self.columns.get(field.steps[0])
        if column is None:
            return [ABSENT] * len(self.nodes)
        return list(map(field.convert, column)) if field.transforms else list(column)


def _parquet(
    path: Path, spec: FileSpec, stem: str, ctx: Context | None, reading: ReadCompleteness, max_bytes: int
) -> Iterator[Rows]:
    """The rows of a Parquet file, a record batch at a time, each a record of its columns; a row
    group that decompresses past `max_bytes` (max-document-bytes) is refused unread."""
    from ...readers.jsonfile import BROKEN
    from ...readers.parquetfile import ParquetDocument, ParquetRecords
    from ...schemas import validator

    doc = ParquetDocument(path)
    if ctx is not None:
        ctx.parsed(doc)
    valid = validator(spec.schema).is_valid
    stream = ParquetRecords(path, CHUNK, max_bytes)
    for batch in stream:
        records, columns = batch.records, batch.columns
        if any(r is BROKEN for r in records):
            reading.complete = False
            kept = [i for i, r in enumerate(records) if r is not BROKEN]
            columns = {name: [column[i] for i in kept] for name, column in columns.items()}
        else:
            kept = list(range(len(records)))
        nodes: list[Node] = []
        for i in kept:
            record, at = records[i], f"/{batch.first + i}"
            if spec.records:
                nodes += _records(record, spec.records, None, at)
            else:
                nodes.append((record, record, (), at, at, None))
        if ctx is not None:
            for node in nodes:
                if not valid(node[0]):
                    ctx.schema(spec.schema, doc, node[0], node[3])
            for problem in batch.problems:
                ctx.add(problem.code, doc, problem.pointer, problem.message)
        if nodes:
            yield ParquetRows(path, doc, nodes, stem, columns) if not spec.records else JsonRows(path, doc, nodes, stem)
    reading.complete = reading.complete and stream.complete
    if ctx is not None:
        ctx.problems(path, stream.problems, doc)


class _PlainLines(GzipJsonLines):
    """A JSON Lines file read as GzipJsonLines reads a gzipped one, with the same limits and
    problems (a line too long, blank lines, UTF-16, a byte-order mark), its bytes as they are."""

    def _chunks(self) -> Iterator[bytes]:
        f = open_regular(self.path)
        if isinstance(f, Problem):
            self._fail(f.code, f.message)
            return
        with f:
            block = f.read(_BLOCK)
            if not block:
                self._fail("parse/empty", "the file is empty")
            elif block.startswith(b"\x1f\x8b"):
                self._fail("parse/invalid-utf8", "the file is gzipped: name it .gz, or declare gzip = true")
            while block and self.complete:
                yield block
                block = f.read(_BLOCK)


_BLOCK = 1 << 20  # bytes of a JSON Lines file read at a time


def _lines(
    stream: Any, path: Path, spec: FileSpec, stem: str, ctx: Context | None, reading: ReadCompleteness
) -> Iterator[Rows]:
    """The records of a JSON Lines file, gzipped or not, a chunk of them at a time."""
    doc = StreamedDocument(path)
    if ctx is not None:
        ctx.parsed(doc)
    nodes: list[Node] = []
    for index, line, value, raw in stream:
        doc.remember(index, line, raw if ctx is not None else None)
        if not _parsed(value):
            reading.complete = False
            continue
        found = _records(value, spec.records, line, f"/{index}")
        if ctx is not None:
            for node in found:
                ctx.schema(spec.schema, doc, node[0], node[3])
        nodes += found
        if len(nodes) >= CHUNK:
            yield JsonRows(path, doc, nodes, stem)
            nodes = []
    if nodes:
        yield JsonRows(path, doc, nodes, stem)
    reading.complete = reading.complete and stream.complete
    if ctx is not None:
        ctx.problems(path, stream.problems, doc)


__all__ = ["COLUMNS", "CsvRows", "JsonRows", "ReadCompleteness", "Rows", "dialect_of", "read", "stem_of"]
