"""HALIE standardized interaction data: per task, a folder of event_blocks.csv,
survey_responses.csv and (crossword only) accuracies.csv, checked together.

The task is recognised by the headers, not by the folder's name: each file's header is compared
with the columns of every task's schema for that file. Each file is then read once, as a stream
of chunks of rows held as columns: cells are coerced by the schema's declared types and a chunk
is checked against the schema a column at a time (row by row only when a row is invalid); rules
over single rows see the schema-valid rows of a chunk; what the rules over sessions need (first
row, attributes, next block id) is kept per session, never the rows themselves. The metaphor
task's norm_order_id needs the size of each session, so its event blocks are read a second time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import compress, pairwise, repeat
from operator import add, and_, eq, itemgetter, ne, not_, or_
from pathlib import Path
from typing import Any

from ...engine import Context, Hit, schema_errors
from ...kinds import Unit
from ...numbers import decimals, same_value
from ...readers.csvfile import Chunk, CsvDocument, CsvFile, RowBuilder, header_columns, read_header
from ...registry import rule, rules_of
from ...schemas import available, load_schema, validator

TASKS = ("crossword", "dialogue", "metaphor", "question", "summarization")
EVENTS, SURVEY, ACCURACIES = "event_blocks.csv", "survey_responses.csv", "accuracies.csv"
FILES = {EVENTS: "event-blocks", SURVEY: "survey-responses", ACCURACIES: "accuracies"}
# The columns a session has on every row of every file of its task.
ATTRIBUTES = ("worker_id", "model", "prompt", "prompt_dataset")
# Block ids: (column, first id) of each task's event blocks; dialogue turns count from 1.
BLOCK_ID = {"dialogue": ("turn_id", 1)}
BLOCK_NAME = {"crossword": "crossword", "dialogue": "turn", "summarization": "summary"}
RAW_MODEL = {
    "Davinci": "davinci",
    "InstructDavinci": "text-davinci",
    "InstructBabbage": "text-babbage",
    "Jumbo": "ai2-jumbo",
}
PROMPT_DATASET = {61: "NYT-1", 151: "ELECT", 173: "NYT-2", 187: "SIT", 191: "LOVE"}
TURN_RATINGS = ("interestingness", "boringness", "preference", "fluency", "sensibility", "specificity", "humanness")
_CHUNK = 1024  # schema-valid rows handed to the row rules at a time
_DETECT = 0.5  # smallest share of shared columns (Jaccard) to recognise a task by a header


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
    unknown: list[str] = field(default_factory=list)  # columns the schema does not have
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
            if self.one_per_session:
                self.duplicates.append((index, sid, session.first))
            if attributes is not None:
                if session.attributes is None:
                    session.attributes, session.attributes_row = attributes, index
                elif attributes != session.attributes:
                    for k, first in session.attributes.items():
                        value = attributes.get(k, first)
                        if value != first:
                            self.attribute_changes.append((index, k, value, first, session.attributes_row))
        if self.one_per_session:
            return
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


@dataclass
class Task:
    folder: Path
    task: str | None
    tolerance: float
    tables: dict[str, Table] = field(default_factory=dict)
    unexpected: list[Path] = field(default_factory=list)  # files the task does not have
    unknown: Spot | None = None  # where the task could not be recognised


Rows = Chunk  # schema-valid rows: (row index, row object) pairs, and columns


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


def _runs(table: Table, sids: list[Any], blocks: list[Any], columns: list[list[Any]]) -> list[int] | None:
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
    starts = (_runs(table, sids, blocks, columns) if valid is None else None) or list(range(n))
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


def _header(table: Table, header: list[str], line: int) -> None:
    """Compare the header with the schema's columns: what is unknown, what required is missing."""
    schema = load_schema(table.schema)
    props, required = schema.get("properties", {}), schema.get("required", [])
    table.header, table.header_line = header, line
    table.doc = CsvDocument(table.doc.path, header)
    if schema.get("additionalProperties") is False:
        table.unknown = [c for c in dict.fromkeys(header) if c not in props]
    table.missing = [c for c in required if c not in header]


def _chunks(ctx: Context, table: Table, csv: CsvFile, report: bool = True) -> Iterator[tuple[Chunk, list[bool] | None]]:
    """Every data row, a chunk at a time, with whether each row is schema-valid (None: all of
    them); schema errors go to ctx. A chunk is checked by one call, on the distinct values of
    each column; only a chunk with an invalid row is checked row by row."""
    builder: RowBuilder | None = None
    required: set[str] = set()
    for pending in csv.chunks(_CHUNK):
        if builder is None:
            _header(table, csv.header or [], csv.header_line)
            builder = RowBuilder(table.header, table.schema)
            required = {f'"{c}" is a required property' for c in table.missing}
        chunk = builder.chunk(list(map(itemgetter(0), pending)), list(map(itemgetter(1), pending)))
        if not csv.padded and chunk.valid():
            yield chunk, None
            continue
        is_valid = validator(table.schema).is_valid
        valid = list(map(is_valid, chunk.objects))
        for (index, row), ok in zip(chunk, valid, strict=True) if report else ():
            if not ok:
                for code, ptr, message in schema_errors(table.schema, row):
                    if not (ptr == "" and message in required):  # a missing column: reported at the header
                        ctx.add(code, table.doc, f"/{index}{ptr}", message)
        # A row short of cells passes its schema with them empty, but rules would point at cells
        # that are not in the file: it is left to parse/ragged-row.
        yield chunk, [ok and index not in csv.padded for index, ok in zip(chunk.indices, valid, strict=True)]
    if builder is None and csv.header is not None:
        _header(table, csv.header, csv.header_line)


def _run(ctx: Context, rules: list[Callable[..., Iterator[Hit]]], task: Task, table: Table, rows: Rows) -> None:
    for r in rules:
        ctx.run(r, task, table, rows)


def _read(ctx: Context, task: Task, path: Path, schema: str) -> Table:
    """Read one file once (twice for rules that need whole sessions), keeping only evidence."""
    assert task.task is not None
    table = Table(path.name, task.task, schema, CsvDocument(path, []), True, [], 1)
    here = [r for r in rules_of("halie") if (task.task, path.name) in getattr(r, "applies", ())]
    row_rules = [r for r in here if not r.late]  # type: ignore[attr-defined]
    late_rules = [r for r in here if r.late]  # type: ignore[attr-defined]
    csv = CsvFile(path)
    for chunk, valid in _chunks(ctx, table, csv):
        _track(table, chunk, valid)
        if row_rules:
            _run(ctx, row_rules, task, table, chunk if valid is None else chunk.only(valid))
    table.complete = csv.complete
    ctx.problems(path, csv.problems)
    if late_rules and table.complete and not table.missing:
        table.sizes = {sid: s.rows for sid, s in table.sessions.items()}
        for chunk, valid in _chunks(ctx, table, CsvFile(path), report=False):
            _run(ctx, late_rules, task, table, chunk if valid is None else chunk.only(valid))
    return table


def load_task(unit: Unit, ctx: Context) -> Task:
    """Recognise the task, then read, parse and schema-check its files (findings go to ctx)."""
    headers = {f.name: h for f in unit.files if f.name in FILES and (h := read_header(f))}
    task = Task(unit.root, detect(headers), ctx.config.tolerance)
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
            task.tables[f.name] = _read(ctx, task, f, name)
    return task


def check(unit: Unit, ctx: Context) -> None:
    task = load_task(unit, ctx)
    for r in rules_of("halie"):
        if not hasattr(r, "applies"):  # a row rule has run while its file was read
            ctx.run(r, task)


def _for(
    *where: tuple[str, str], late: bool = False
) -> Callable[[Callable[..., Iterator[Hit]]], Callable[..., Iterator[Hit]]]:
    """Make a rule a row rule, run on the rows of these (task, file) as they are read; a late one
    needs whole sessions (`table.sizes`), so it runs on a second reading of the file."""

    def mark(fn: Callable[..., Iterator[Hit]]) -> Callable[..., Iterator[Hit]]:
        fn.applies = frozenset(where)  # type: ignore[attr-defined]
        fn.late = late  # type: ignore[attr-defined]
        return fn

    return mark


def _others(task: Task) -> Iterator[Table]:
    """The tables compared with the event blocks: survey responses and accuracies."""
    for name in (SURVEY, ACCURACIES):
        if name in task.tables:
            yield task.tables[name]


# --- the task and its files -------------------------------------------------------------------


@rule(
    "halie/unknown-task",
    "the headers match no HALIE task",
    why="A HALIE task folder is recognised by the columns of its files (crossword, dialogue, "
    "metaphor, question, summarization); when no header shares at least half its columns with a "
    "task's schema, nothing can be checked.",
    bad="event_blocks.csv: id,text,score",
    good="event_blocks.csv: session_id,worker_id,order_id,norm_order_id,model,prompt,...  (metaphor)",
)
def unknown_task(task: Task) -> Iterator[Hit]:
    if task.unknown is not None:
        yield (
            task.unknown,
            "",
            "the header matches the columns of no HALIE task (crossword, dialogue, metaphor, question, summarization)",
        )


@rule(
    "halie/unexpected-file",
    "a file the task does not have",
    why="Only the crossword task has accuracies.csv; the file in another task's folder belongs to "
    "a crossword folder, or is a leftover.",
    bad="dialogue/accuracies.csv",
    good="crossword/accuracies.csv",
)
def unexpected_file(task: Task) -> Iterator[Hit]:
    for path in task.unexpected:
        yield Spot(path, 1, 1), "", f"the {task.task} task has no {path.name}"


@rule(
    "halie/unknown-column",
    "a column the schema does not have",
    why="The columns of each file are fixed by the format; an unknown column is a typo of a known "
    "one (then that one is missing too) or data the format does not describe. Reported once, at "
    "the header; its cells are not checked.",
    bad="session_id,worker_id,model,prompt,prompt_dataset,letter_accuracy,clue_accuracy,notes",
    good="session_id,worker_id,model,prompt,prompt_dataset,letter_accuracy,clue_accuracy",
)
def unknown_column(task: Task) -> Iterator[Hit]:
    for table in task.tables.values():
        for column in table.unknown:
            yield table.spot(column), "", f"column {column!r} is not a column of {table.schema}"


@rule(
    "halie/missing-column",
    "a required column is missing from the header",
    why="Every row must have a value in a required column; without the column, no row has one. "
    "Reported once, at the header, instead of once per row.",
    bad="session_id,worker_id,model,prompt,prompt_dataset,fluency,helpfulness,ease  (no joy)",
    good="session_id,worker_id,model,prompt,prompt_dataset,fluency,helpfulness,ease,joy",
)
def missing_column(task: Task) -> Iterator[Hit]:
    for table in task.tables.values():
        for column in table.missing:
            yield Spot(table.doc.path, table.header_line), "", f"required column {column!r} is missing"


@rule(
    "halie/column-order",
    "the columns are in the format's order",
    severity="warning",
    why="Readers that go by position (spreadsheets, `cut`, R's read.csv with col.names) misread a "
    "file whose columns are shuffled; readers by name do not care. The order is the order of the "
    "schema's properties, which is the order of the released files.",
    bad="worker_id,session_id,model,...",
    good="session_id,worker_id,model,...",
)
def column_order(task: Task) -> Iterator[Hit]:
    for table in task.tables.values():
        order = list(load_schema(table.schema).get("properties", {}))
        present = [c for c in dict.fromkeys(table.header) if c in order]
        expected = [c for c in order if c in present]
        for got, want in zip(present, expected, strict=True):
            if got != want:
                yield (
                    table.spot(got),
                    "",
                    f"column {got!r} where the format has {want!r} (order: {', '.join(expected)})",
                )
                break


# --- sessions across rows and files -----------------------------------------------------------


@rule(
    "halie/unmatched-session",
    "event blocks, survey responses and accuracies cover the same sessions",
    why="Each session has its event blocks, one survey response (one row per turn, for dialogue) "
    "and, for crossword, one accuracy row. A session missing from one file is lost to every "
    "analysis that joins them.",
    bad="event_blocks.csv: sessions s1, s2; survey_responses.csv: s1",
    good="event_blocks.csv: sessions s1, s2; survey_responses.csv: s1, s2",
)
def unmatched_session(task: Task) -> Iterator[Hit]:
    events = task.tables.get(EVENTS)
    if events is None or not events.complete:
        return
    for other in _others(task):
        if not other.complete:
            continue
        for sid, s in other.sessions.items():
            if sid not in events.sessions:
                yield other.doc, f"/{s.first}/session_id", f"session {sid!r} has no event blocks in {EVENTS}"
        for sid, s in events.sessions.items():
            if sid not in other.sessions:
                yield events.doc, f"/{s.first}/session_id", f"session {sid!r} has no row in {other.name}"


@rule(
    "halie/session-attributes",
    "a session has one worker_id, model and prompt in every row of every file",
    why="worker_id, model, prompt (and prompt_dataset for crossword) describe the session, and are "
    "repeated on each of its rows; a row that disagrees belongs to another session or was edited "
    "by hand.",
    bad="event_blocks.csv: s1, model Jumbo; survey_responses.csv: s1, model Davinci",
    good="event_blocks.csv: s1, model Jumbo; survey_responses.csv: s1, model Jumbo",
)
def session_attributes(task: Task) -> Iterator[Hit]:
    for table in task.tables.values():
        for index, column, value, first, first_row in table.attribute_changes:
            yield (
                table.doc,
                f"/{index}/{column}",
                f"{column} {value!r}, but row {first_row} of the session has {first!r}",
            )
    events = task.tables.get(EVENTS)
    if events is None:
        return
    for other in _others(task):
        for sid, s in other.sessions.items():
            mine = events.sessions.get(sid)
            if mine is None or mine.attributes is None or s.attributes is None:
                continue
            for column, value in s.attributes.items():
                if column in mine.attributes and mine.attributes[column] != value:
                    yield (
                        other.doc,
                        f"/{s.attributes_row}/{column}",
                        f"{column} {value!r}, but the session's event blocks have {mine.attributes[column]!r}",
                    )


@rule(
    "halie/duplicate-session",
    "a survey or accuracy file has one row per session",
    why="Survey responses (except dialogue's per-turn ratings) and accuracies are one row per "
    "session; a second row for a session is a duplicate, and joins on session_id double its data.",
    bad="survey_responses.csv: s1,...\ns1,...",
    good="survey_responses.csv: s1,...\ns2,...",
)
def duplicate_session(task: Task) -> Iterator[Hit]:
    for table in task.tables.values():
        for index, sid, first in table.duplicates:
            yield table.doc, f"/{index}/session_id", f"session {sid!r} already has row {first}"


@rule(
    "halie/block-order",
    "order_id (turn_id) counts 0, 1, 2, ... (1, 2, 3, ...) within a session",
    why="Event blocks are numbered in the order they happened, without gaps or repeats; a gap is a "
    "lost block, a repeat a duplicated one, and per-position analyses (learning effects, say) "
    "shift. Dialogue turns, and the per-turn survey rows, count from 1.",
    bad="order_id of session s1: 0, 1, 3",
    good="order_id of session s1: 0, 1, 2",
)
def block_order(task: Task) -> Iterator[Hit]:
    for table in task.tables.values():
        if not table.complete:
            continue  # a row left out is a gap that is not in the data
        for index, column, got, following, start in table.order:
            if following is None:
                message = f"the session's first {column} is {got}, not {start}"
            elif got > following:
                what = f"{got - following} missing before it" if got - following > 1 else f"{following} is missing"
                message = f"{column} {got} after {following - 1} in its session: {what}"
            else:
                message = f"{column} {got} after {following - 1} in its session: a repeat, or out of order"
            yield table.doc, f"/{index}/{column}", message


@rule(
    "halie/survey-turns",
    "a dialogue session has one survey row per turn and one session row",
    why="Dialogue surveys rate every turn (turn_id 1..n, one row each) and the whole session "
    "(one row with turn_id -1 carrying quality); a turn without its rating row, or a second "
    "session row, breaks the join of ratings to turns.",
    bad="event_blocks.csv: turns 1-10 of s1; survey_responses.csv: turns 1-9 of s1 and a row with turn_id -1",
    good="survey_responses.csv: turns 1-10 of s1 and one row with turn_id -1",
)
def survey_turns(task: Task) -> Iterator[Hit]:
    events, survey = task.tables.get(EVENTS), task.tables.get(SURVEY)
    if task.task != "dialogue" or survey is None or not survey.complete:
        return
    for sid, s in survey.sessions.items():
        where = f"/{s.first}/session_id"
        if s.summary_rows != 1:
            yield survey.doc, where, f"session {sid!r} has {s.summary_rows} rows with turn_id -1, expected 1"
        turns = events.sessions.get(sid) if events is not None and events.complete else None
        if turns is not None and turns.rows != s.rows:
            yield survey.doc, where, f"session {sid!r} has {s.rows} per-turn rows for {turns.rows} turns in {EVENTS}"


# --- rules over rows: recomputable columns and documented relations ---------------------------


@_for(*((t, EVENTS) for t in BLOCK_NAME))
@rule(
    "halie/block-name",
    "a block's name (and crossword's query_index) is its zero-padded id",
    why="`name` is `crossword-07`, `turn-03` or `summary-00`: the block's order_id (turn_id) with at "
    "least two digits, and crossword's query_index is the same number as text. A name that "
    "disagrees with the id means one of the two was edited.",
    bad="name crossword-03, order_id 4",
    good="name crossword-04, order_id 4",
)
def block_name(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    prefix, column = BLOCK_NAME[table.task], table.id_column
    ids, names, numbers = rows.column(column), rows.column("name"), rows.column("query_index")
    wanted: dict[Any, tuple[str, str]] = {}  # id -> (name, zero-padded id)
    for block in set(ids):
        number = f"{int(block):02d}"
        wanted[block] = (f"{prefix}-{number}", number)
    # Compared in C first; only rows that differ are looked at (and reported) one by one.
    want = list(map(wanted.__getitem__, ids))
    bad_name = map(ne, names, map(itemgetter(0), want))
    bad_number = map(and_, map(bool, numbers), map(ne, numbers, map(itemgetter(1), want)))
    for i in compress(range(len(ids)), map(or_, bad_name, bad_number)):
        index, block, (name, number) = rows.indices[i], ids[i], want[i]
        if names[i] != name:
            yield table.doc, f"/{index}/name", f"name {names[i]!r}, but {column} is {block} ({name})"
        if numbers[i] and numbers[i] != number:
            yield (
                table.doc,
                f"/{index}/query_index",
                f"query_index {numbers[i]!r}, but order_id is {block} ({number!r})",
            )


def _crossword_sessions(task: Task) -> Iterator[tuple[Table, str, dict[str, Any], int]]:
    """(table, session id, attributes, row) of each crossword session in each file, from the
    session's first schema-valid row: the attributes are the same on its other rows
    (halie/session-attributes), so one check per session and file says it all."""
    if task.task != "crossword":
        return
    for table in task.tables.values():
        for sid, s in table.sessions.items():
            if s.attributes is not None:
                yield table, sid, s.attributes, s.attributes_row


@rule(
    "halie/session-id",
    "a crossword session_id is {prompt}_{worker_id}_{raw model name}",
    why="Crossword session ids are built from the puzzle, the worker and the raw model name "
    "(davinci, text-davinci, text-babbage, ai2-jumbo for Davinci, InstructDavinci, "
    "InstructBabbage, Jumbo); an id that disagrees with its rows was copied from another "
    "session. Reported once per session and file.",
    bad="session_id 61_657a..._ai2-jumbo, model InstructDavinci",
    good="session_id 61_657a..._text-davinci, model InstructDavinci",
)
def session_id(task: Task) -> Iterator[Hit]:
    for table, sid, attributes, index in _crossword_sessions(task):
        if not {"prompt", "worker_id", "model"} <= attributes.keys():
            continue
        want = f"{attributes['prompt']}_{attributes['worker_id']}_{RAW_MODEL[attributes['model']]}"
        if sid != want:
            yield (
                table.doc,
                f"/{index}/session_id",
                f"session_id {sid!r}, but prompt, worker_id and model give {want!r}",
            )


@rule(
    "halie/prompt-dataset",
    "a crossword prompt and its prompt_dataset correspond",
    why="Each puzzle has a number and a name: 61 NYT-1, 151 ELECT, 173 NYT-2, 187 SIT, 191 LOVE. "
    "A session pairing a number with another puzzle's name cannot say which puzzle was solved. "
    "Reported once per session and file.",
    bad="prompt 61, prompt_dataset ELECT",
    good="prompt 61, prompt_dataset NYT-1",
)
def prompt_dataset(task: Task) -> Iterator[Hit]:
    for table, _, attributes, index in _crossword_sessions(task):
        if "prompt" not in attributes or "prompt_dataset" not in attributes:
            continue
        want = PROMPT_DATASET[attributes["prompt"]]
        if attributes["prompt_dataset"] != want:
            yield (
                table.doc,
                f"/{index}/prompt_dataset",
                f"prompt_dataset {attributes['prompt_dataset']!r}, but prompt {attributes['prompt']} is {want!r}",
            )


_WORDS = {
    "dialogue": (("user_num_words", "user_input"), ("model_num_words", "model_completion")),
    "summarization": (
        ("original_length", "original_normalized_summary"),
        ("edited_length", "edited_normalized_summary"),
    ),
}


@_for(("dialogue", EVENTS), ("summarization", EVENTS))
@rule(
    "halie/word-count",
    "word counts are the number of words of their text",
    why="user_num_words and model_num_words (dialogue), original_length and edited_length "
    "(summarization, of the normalized summaries) are len(text.split()); a different count was "
    "computed on another version of the text.",
    bad='user_input "I baked a cake today!", user_num_words 4',
    good='user_input "I baked a cake today!", user_num_words 5',
)
def word_count(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    pairs = _WORDS[table.task]
    for index, row in rows:
        for count, text in pairs:
            n = len(row.get(text, "").split())
            if row[count] != n:
                yield table.doc, f"/{index}/{count}", f"{count} is {row[count]}, but {text} has {n} words"


def _cell(table: Table, index: int, columns: list[str]) -> str:
    """The pointer of the first of these (empty) cells that the file has, else of the row."""
    present = [c for c in columns if c in table.header]
    return f"/{index}/{present[0]}" if present else f"/{index}"


def _levenshtein(a: list[str], b: list[str]) -> int:
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


@_for(("summarization", EVENTS))
@rule(
    "halie/distance",
    "distance is the word-level edit distance between the summaries",
    why="distance is the Levenshtein distance, counted in words (split on white space), between "
    "original_summary and edited_summary; in the released data it is computed on these raw "
    "summaries, not on the normalized ones. A different value belongs to another edit.",
    bad='original "a new bridge has opened", edited "the new bridge opened", distance 1',
    good='original "a new bridge has opened", edited "the new bridge opened", distance 2',
)
def distance(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    for index, row in rows:
        a, b = row.get("original_summary", "").split(), row.get("edited_summary", "").split()
        if len(a) * len(b) > 10**7:
            continue  # quadratic: leave monsters alone
        d = _levenshtein(a, b)
        if row["distance"] != d:
            yield (
                table.doc,
                f"/{index}/distance",
                f"distance is {row['distance']}, but the summaries are {d} word edits apart",
            )


@_for(("summarization", EVENTS))
@rule(
    "halie/third-party-ratings",
    "a summary's three third-party ratings are given together",
    why="A third-party evaluation rates consistency, relevance and coherency of a summary at once; "
    "for the original summary and for the edited one, the three columns are all filled or all "
    "empty. One or two of three is a half-copied evaluation.",
    bad="original_consistency_third_party 1.0, original_relevance_third_party (empty), original_coherency_third_party 4.33",
    good="original_consistency_third_party 1.0, original_relevance_third_party 3.67, original_coherency_third_party 4.33",
)
def third_party_ratings(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    for index, row in rows:
        for which in ("original", "edited"):
            columns = [f"{which}_{k}_third_party" for k in ("consistency", "relevance", "coherency")]
            given = [c for c in columns if c in row]
            if given and len(given) < 3:
                missing = [c for c in columns if c not in row]
                yield (
                    table.doc,
                    _cell(table, index, missing),
                    f"{', '.join(missing)} empty, but {', '.join(given)} given",
                )


@_for(("question", EVENTS))
@rule(
    "halie/user-correct",
    "user_correct says whether user_answer is the answer",
    why="user_correct is 1 when user_answer equals answer and 0 otherwise; accuracy is computed "
    "from it, so a wrong value changes every result on the task.",
    bad="answer d, user_answer d, user_correct 0",
    good="answer d, user_answer d, user_correct 1",
)
def user_correct(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    for index, row in rows:
        want = int(row["user_answer"] == row["answer"])
        if row["user_correct"] != want:
            yield (
                table.doc,
                f"/{index}/user_correct",
                f"user_correct {row['user_correct']}, but user_answer {row['user_answer']!r} and answer {row['answer']!r} give {want}",
            )


@_for(("question", EVENTS))
@rule(
    "halie/answer-text",
    "answer_text is the text of the answer's choice",
    why="answer_text repeats choice_<answer> so the row reads on its own; when they differ, the "
    "answer letter or the choices were changed.",
    bad="answer d, choice_d thousand, answer_text millennium",
    good="answer d, choice_d thousand, answer_text thousand",
)
def answer_text(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    for index, row in rows:
        column = f"choice_{row['answer']}"
        if row["answer_text"] != row[column]:
            yield (
                table.doc,
                f"/{index}/answer_text",
                f"answer_text {row['answer_text']!r}, but {column} is {row[column]!r}",
            )


@_for(("question", EVENTS))
@rule(
    "halie/query-lists",
    "user_queries, user_query_types and lm_responses have equal lengths",
    why="The three lists are aligned: query k, its types and the model's response to it. Lists of "
    "different lengths cannot be paired up.",
    bad="user_queries ['q1', 'q2'], user_query_types ['close'], lm_responses ['r1', 'r2']",
    good="user_queries ['q1', 'q2'], user_query_types ['close', 'question'], lm_responses ['r1', 'r2']",
)
def query_lists(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    for index, row in rows:
        n = len(row["user_queries"])
        for column in ("user_query_types", "lm_responses"):
            if len(row[column]) != n:
                yield table.doc, f"/{index}/{column}", f"{len(row[column])} entries for {n} user_queries"


@_for(("question", EVENTS))
@rule(
    "halie/num-queries",
    "num_queries is the number of user_queries",
    severity="warning",
    why="num_queries counts the queries of the block, user_queries lists them; in the released "
    "data they differ in 68 rows, where a query was sent without a response being shown (or "
    "shown without a logged query). A warning: the difference is in the logs, not a copy error.",
    bad="num_queries 2, user_queries ['help me answer: ...']",
    good="num_queries 1, user_queries ['help me answer: ...']",
)
def num_queries(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    for index, row in rows:
        n = len(row["user_queries"])
        if row["num_queries"] != n:
            yield table.doc, f"/{index}/num_queries", f"num_queries {row['num_queries']}, but user_queries has {n}"


@_for(("metaphor", EVENTS))
@rule(
    "halie/overall",
    "overall is the mean of apt, specific and imageable, empty when apt is 0",
    why="A metaphor's overall score is the mean of its three ratings, and is not given for a "
    "metaphor rated not apt (apt 0); unrated metaphors have none of the four. Another value is "
    "stale or computed on other ratings.",
    bad="apt 1.0, specific 0.5, imageable 0.5, overall 0.5",
    good="apt 1.0, specific 0.5, imageable 0.5, overall 0.6666666666666666",
)
def overall(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    ratings = ("apt", "specific", "imageable")
    if "overall" not in table.header:
        return  # the column itself is absent: the header check's business, not every row's
    for index, row in rows:
        given = [r for r in ratings if r in row]
        stored = row.get("overall")
        if len(given) < 3:
            if given:
                missing = [r for r in ratings if r not in row]
                yield (
                    table.doc,
                    _cell(table, index, missing),
                    f"{', '.join(missing)} empty, but {', '.join(given)} given",
                )
            elif stored is not None:
                yield table.doc, f"/{index}/overall", f"overall {stored!r}, but the metaphor has no ratings"
        elif row["apt"] == 0:
            if stored is not None:
                yield table.doc, f"/{index}/overall", f"overall {stored!r}, but apt is 0 (no overall score)"
        else:
            mean = sum(row[r] for r in ratings) / 3
            if stored is None:
                yield table.doc, f"/{index}/overall", f"overall is empty, the mean of the ratings is {mean:.6g}"
            elif not same_value(stored, mean, task.tolerance):
                yield table.doc, f"/{index}/overall", f"overall {stored!r}, but the mean of the ratings is {mean:.6g}"


@_for(("dialogue", SURVEY))
@rule(
    "halie/missing-rating",
    "a per-turn dialogue survey row has every rating",
    severity="warning",
    why="Each turn of a dialogue is rated on seven binary questions; an empty cell is a question "
    "the worker did not answer (8 cells in the released data). A warning: the row is still "
    "usable, but averages over turns silently drop it.",
    bad="turn_id 3, interestingness (empty), boringness 0.0, ...",
    good="turn_id 3, interestingness 1.0, boringness 0.0, ...",
)
def missing_rating(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    columns = [c for c in TURN_RATINGS if c in table.header]  # a column left out is the header's business
    for index, row in rows:
        if row["turn_id"] != -1:
            for column in columns:
                if column not in row:
                    yield table.doc, f"/{index}/{column}", f"no {column} rating for turn {row['turn_id']}"


@_for(("metaphor", EVENTS), late=True)
@rule(
    "halie/norm-order-id",
    "norm_order_id is round(order_id / blocks in the session, 2)",
    why="norm_order_id places a block within its session on a 0-1 scale: order_id divided by the "
    "number of blocks of the session, rounded to 2 decimals. Another value was computed before "
    "blocks were added or removed.",
    bad="session of 3 blocks: order_id 1, norm_order_id 0.5",
    good="session of 3 blocks: order_id 1, norm_order_id 0.33",
)
def norm_order_id(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    for index, row in rows:
        n = table.sizes.get(row["session_id"])
        if not n:
            continue
        exact = row["order_id"] / n
        stored = row["norm_order_id"]
        if abs(stored - round(exact, 2)) <= 1e-9 or (decimals(stored) == 2 and abs(stored - exact) <= 0.005 + 1e-9):
            continue
        yield (
            table.doc,
            f"/{index}/norm_order_id",
            f"norm_order_id {stored!r}, but order_id {row['order_id']} of {n} blocks gives {round(exact, 2)!r}",
        )
