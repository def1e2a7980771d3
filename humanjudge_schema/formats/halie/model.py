"""What the HALIE rules read: a task folder, its CSV files and the facts the rules share.

The task is recognised by the headers, not by the folder's name: each file's header is compared
with the columns of every task's schema for that file. Each file is then read once, as a stream
of chunks of rows held as columns: cells are coerced by the schema's declared types and a chunk
is checked against the schema a column at a time (row by row only when a row is invalid); rules
over single rows see the schema-valid rows of a chunk; what the rules over sessions need (first
row, attributes, next block id) is kept per session, never the rows themselves. The metaphor
task's norm_order_id needs the size of each session, so its event blocks are read a second time.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from functools import reduce
from itertools import compress, pairwise, repeat
from operator import add, and_, eq, itemgetter, ne, not_, or_
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ...engine import Context, Hit, schema_errors
from ...kinds import Unit
from ...readers.csvcells import Chunk
from ...readers.csvfile import CsvDocument, CsvFile, header_columns, read_header
from ...readers.csvtable import Columns, Header, chunks
from ...readers.files import Problem
from ...schemas import available, load_schema

TASKS = ("crossword", "dialogue", "metaphor", "question", "summarization")
EVENTS, SURVEY, ACCURACIES = "event_blocks.csv", "survey_responses.csv", "accuracies.csv"
FILES = {EVENTS: "event-blocks", SURVEY: "survey-responses", ACCURACIES: "accuracies"}
# The columns a session has on every row of every file of its task.
ATTRIBUTES = ("worker_id", "model", "prompt", "prompt_dataset")
# Block ids: (column, first id) of each task's event blocks; dialogue turns count from 1.
BLOCK_ID = {"dialogue": ("turn_id", 1)}
_CHUNK = 1024  # schema-valid rows handed to the row rules at a time
_DETECT = 0.5  # smallest share of shared columns (Jaccard) to recognise a task by a header

_T = TypeVar("_T")
Rows = Chunk  # schema-valid rows: (row index, row object) pairs, and columns
RowRule = Callable[..., Iterator[Hit]]


@dataclass(frozen=True)
class Spot:
    """A place in a file known when the finding is made (a header cell, say)."""

    path: Path
    line: int
    column: int | None = None

    def positions(self, pointers: list[str]) -> dict[str, tuple[int, int | None]]:
        return {p: (self.line, self.column) for p in pointers}


@dataclass(slots=True)
class Session:
    first: int  # row index of the session's first row
    attributes: dict[str, Any] | None  # of its first schema-valid row
    rows: int = 0  # rows (dialogue survey: per-turn rows)
    next_id: int | None = None  # the block (turn) id expected next
    summary_rows: int = 0  # dialogue survey: rows with turn_id -1
    attributes_row: int = -1  # the row the attributes are from


@dataclass
class Table:
    """One CSV file of the task, as the rules see it after reading."""

    name: str
    task: str
    schema: str
    doc: CsvDocument
    complete: bool
    header: list[str]
    header_line: int
    sessions: dict[str, Session] = field(default_factory=dict)
    # evidence gathered while reading
    missing: list[str] = field(default_factory=list)  # required columns the header lacks
    # (row, column, id, the id that should have come (None for a session's first row), first id)
    order: list[tuple[int, str, int, int | None, int]] = field(default_factory=list)
    attribute_changes: list[tuple[int, str, Any, Any, int]] = field(default_factory=list)
    duplicates: list[tuple[int, str, int]] = field(default_factory=list)  # (row, session, first row)
    sizes: dict[str, int] = field(default_factory=dict)  # metaphor: blocks per session

    @property
    def id_column(self) -> str:
        return BLOCK_ID.get(self.task, ("order_id", 0))[0]

    @property
    def one_per_session(self) -> bool:
        """Whether a session has one row in this file (a summary of it), not one per block."""
        return self.name == ACCURACIES or (self.name == SURVEY and self.task != "dialogue")

    def track(self, index: int, sid: str, block: Any, attributes: dict[str, Any] | None) -> None:
        """Keep what the session rules need of one row: its session, its block id and (for a
        schema-valid row only: a value the schema rejects is reported already) its attributes."""
        session = self.sessions.get(sid)
        if session is None:
            session = self.sessions[sid] = Session(
                index, attributes, attributes_row=-1 if attributes is None else index
            )
        else:
            self._again(session, index, sid, attributes)
        if not self.one_per_session:
            self._block(session, index, block)

    def _again(self, session: Session, index: int, sid: str, attributes: dict[str, Any] | None) -> None:
        """A further row of a known session: a duplicate, or attributes to compare."""
        if self.one_per_session:
            self.duplicates.append((index, sid, session.first))
        if attributes is None:
            return
        if session.attributes is None:
            session.attributes, session.attributes_row = attributes, index
        elif attributes != session.attributes:
            for k, first in session.attributes.items():
                value = attributes.get(k, first)
                if value != first:
                    self.attribute_changes.append((index, k, value, first, session.attributes_row))

    def _block(self, session: Session, index: int, block: Any) -> None:
        """Count a row in its session, and compare its block id with the one expected next."""
        column, start = BLOCK_ID.get(self.task, ("order_id", 0))
        if type(block) is not int:
            if type(block) is float and block.is_integer():
                block = int(block)
            else:  # the schema reports it; the row still takes the next place in its session
                session.rows += 1
                session.next_id = (start if session.next_id is None else session.next_id) + 1
                return
        if block == -1 and self.name == SURVEY:  # the dialogue session row
            session.summary_rows += 1
            return
        session.rows += 1
        expected = start if session.next_id is None else session.next_id
        if block != expected:
            self.order.append((index, column, block, session.next_id, start))
        session.next_id = block + 1

    def spot(self, column: str) -> Spot:
        cells = header_columns(self.header, self.header_line)
        k = self.header.index(column) if column in self.header else 0
        return Spot(self.doc.path, *cells[k]) if cells else Spot(self.doc.path, self.header_line)

    def cell(self, index: int, columns: list[str]) -> str:
        """The pointer of the first of these (empty) cells that the file has, else of the row."""
        present = [c for c in columns if c in self.header]
        return f"/{index}/{present[0]}" if present else f"/{index}"


@dataclass
class Task:
    folder: Path
    task: str | None
    tolerance: float
    tables: dict[str, Table] = field(default_factory=dict)
    unexpected: list[Path] = field(default_factory=list)  # files the task does not have
    unknown: Spot | None = None  # where the task could not be recognised
    headers: dict[str, list[str]] = field(default_factory=dict)  # of its files, by name

    def others(self) -> Iterator[Table]:
        """The tables compared with the event blocks: survey responses and accuracies."""
        for name in (SURVEY, ACCURACIES):
            if name in self.tables:
                yield self.tables[name]


def schema_name(task: str, file: str) -> str | None:
    name = f"halie/v1/{task}/{FILES[file]}"
    return name if name in available() else None


def detect(headers: dict[str, list[str]]) -> str | None:
    """The task whose schemas share the most columns with the files' headers."""
    best, score = None, 0.0
    for task in TASKS:
        total, matched = 0.0, False
        for file, header in headers.items():
            name = schema_name(task, file)
            if name is None:
                continue
            columns, props = set(header), set(load_schema(name).get("properties", {}))
            share = len(columns & props) / len(columns | props)
            total += share
            matched = matched or share >= _DETECT
        if matched and total > score:
            best, score = task, total
    return best


# --- rules over rows ----------------------------------------------------------------------------


@dataclass(frozen=True)
class OnRows:
    """The scope of a row rule (`@rule(..., scope=on_rows(...))`): it runs on the schema-valid
    rows of these (task, file) as they are read; a late one needs whole sessions
    (`table.sizes`), so it runs on a second reading of the file."""

    where: frozenset[tuple[str, str]]
    late: bool = False


def on_rows(*where: tuple[str, str], late: bool = False) -> OnRows:
    return OnRows(frozenset(where), late)


class RowRules(Protocol):
    """What the reader asks of the check about row rules (check.py runs them): which run on the
    rows of a file, and to run them on a chunk."""

    def of(self, task: str, file: str, late: bool) -> list[RowRule]: ...

    def run(self, chosen: list[RowRule], task: Task, table: Table, rows: Rows) -> None: ...


def mismatches(
    rows: Rows, key: str, want: Callable[[Any], tuple[str, ...]], columns: tuple[str, ...]
) -> Iterator[tuple[int, Any, tuple[str, ...], tuple[str, ...]]]:
    """(row index, value of `key`, its cells of `columns`, what `want` gives for the value) of the
    rows where a cell of `columns` is not what `want` gives: an empty cell is not compared (the
    column is optional, or the file lacks it). `want` runs once per distinct value, and the
    columns are compared in C: only rows that differ are looked at one by one."""
    keys = rows.column(key)
    wanted = {value: want(value) for value in set(keys)}
    expected = list(map(wanted.__getitem__, keys))
    cells = [rows.column(c) for c in columns]
    differ = []
    for j, col in enumerate(cells):
        empty = col.count("")
        if empty == len(col):  # a column the file lacks, say: nothing to compare
            continue
        given = map(itemgetter(j), expected)
        differ.append(map(and_, map(ne, col, repeat("")), map(ne, col, given)) if empty else map(ne, col, given))
    if not differ:
        return
    for i in compress(range(len(keys)), reduce(lambda a, b: map(or_, a, b), differ)):
        yield rows.indices[i], keys[i], tuple(col[i] for col in cells), expected[i]


# --- reading --------------------------------------------------------------------------------------


def _run_starts(table: Table, sids: list[Any], blocks: list[Any], columns: list[list[Any]]) -> list[int] | None:
    """Where the runs of schema-valid rows start in a chunk, a run being rows that continue the
    row before them: the same session and attributes, the next block id (compared in C). None
    when the rows must be taken one by one (ids that are not integers, rows without a session,
    files with one row per session or with session rows)."""
    if table.one_per_session or table.name == SURVEY or "" in sids or set(map(type, blocks)) != {int}:
        return None
    steady = zip(
        map(eq, sids[1:], sids),
        map(eq, blocks[1:], map(add, blocks, repeat(1))),
        *(map(eq, c[1:], c) for c in columns),
        strict=True,
    )
    return [0, *compress(range(1, len(sids)), map(not_, map(all, steady)))]


def _track(table: Table, chunk: Chunk, valid: list[bool] | None) -> None:
    """Keep what the session rules need of a chunk of rows (`valid`: whether each row is
    schema-valid; None: all are). A run of rows that continue one another changes only its
    session's counts: its first row is taken, and the rest at once."""
    sids, blocks = chunk.column("session_id"), chunk.column(table.id_column)
    names = [a for a in ATTRIBUTES if a in table.header]
    columns = [chunk.column(a) for a in names]
    n = len(sids)
    starts = (_run_starts(table, sids, blocks, columns) if valid is None else None) or list(range(n))
    for a, b in pairwise([*starts, n]):
        for i in range(a, b):
            sid = sids[i]
            if type(sid) is not str or not sid:  # the schema reports it
                continue
            attributes = None
            if valid is None or valid[i]:
                attributes = {k: c[i] for k, c in zip(names, columns, strict=True) if c[i] != ""}
            changes = len(table.attribute_changes)
            table.track(chunk.indices[i], sid, blocks[i], attributes)
            if b - i > 1 and len(table.attribute_changes) == changes:
                session = table.sessions[sid]  # the rest of the run: as the row before, one id on
                session.rows += b - i - 1
                session.next_id = blocks[b - 1] + 1
                break


# The codes of a header's missing and unknown columns, which the table reader reports
# (documented in rules/files.py).
COLUMNS = Columns(
    missing="halie/missing-column",
    unknown="halie/unknown-column",
    missing_message=lambda column, schema: f"required column {column!r} is missing",
    unknown_message=lambda column, schema: f"column {column!r} is not a column of {schema}",
)


def _header(table: Table, header: Header) -> None:
    """Keep the header, and the required columns it lacks (a late rule needs them all)."""
    table.header, table.header_line = header.columns, header.line
    table.doc = CsvDocument(table.doc.path, header.columns)
    table.missing = header.missing


def _chunks(ctx: Context, table: Table, csv: CsvFile, report: bool = True) -> Iterator[tuple[Chunk, list[bool] | None]]:
    """Every data row, a chunk at a time, with whether each row is schema-valid (None: all of
    them); schema errors go to ctx (readers/csvtable.py reads the table)."""

    def said(problem: Problem) -> None:
        if problem.line is None:  # a row's: the document places it
            ctx.add(problem.code, table.doc, problem.pointer, problem.message)
        else:  # the header's
            ctx.problems(table.doc.path, [problem])

    return chunks(
        csv, table.schema, _CHUNK, schema_errors, said if report else None, lambda h: _header(table, h), columns=COLUMNS
    )


def _read(ctx: Context, task: Task, path: Path, schema: str, row_rules: RowRules) -> Reading[Table]:
    """Read one file once (twice for rules that need whole sessions), keeping only evidence;
    each chunk of rows is handed on once its row rules have run."""
    assert task.task is not None
    table = Table(path.name, task.task, schema, CsvDocument(path, []), True, [], 1)
    now, late = row_rules.of(task.task, path.name, False), row_rules.of(task.task, path.name, True)
    csv = CsvFile(path)
    for chunk, valid in _chunks(ctx, table, csv):
        _track(table, chunk, valid)
        if now:
            row_rules.run(now, task, table, chunk if valid is None else chunk.only(valid))
        yield table, chunk
    table.complete = csv.complete
    ctx.problems(path, csv.problems)
    if late and table.complete and not table.missing:
        table.sizes = {sid: s.rows for sid, s in table.sessions.items()}
        for chunk, valid in _chunks(ctx, table, CsvFile(path), report=False):
            row_rules.run(late, task, table, chunk if valid is None else chunk.only(valid))
    return table


# What a reading of the task's files hands on as it goes: each chunk of rows of each file, with
# the table it is of (a view builds its judgments from them), and at the end what it read.
Reading = Generator[tuple[Table, Chunk], None, _T]


def begin_task(unit: Unit, ctx: Context) -> Task:
    """The task recognised from the files' headers, nothing else read yet."""
    headers = {f.name: h for f in unit.files if f.name in FILES and (h := read_header(f))}
    return Task(unit.root, detect(headers), ctx.config.tolerance, headers=headers)


def read_task(unit: Unit, ctx: Context, task: Task, row_rules: RowRules) -> Reading[Task]:
    """Read, parse and schema-check the task's files (findings go to ctx), handing the rows of
    each file to the row rules, and on, as they are read."""
    if task.task is None:
        for f in unit.files:
            csv = CsvFile(f)
            for _ in csv.rows():
                pass
            ctx.problems(f, csv.problems)
            if csv.header is not None and len(csv.header) > 1 and task.unknown is None:
                task.unknown = Spot(f, csv.header_line, 1)
        return task
    for f in unit.files:
        name = schema_name(task.task, f.name)
        if name is None:
            task.unexpected.append(f)
        else:
            task.tables[f.name] = yield from _read(ctx, task, f, name, row_rules)
    return task
