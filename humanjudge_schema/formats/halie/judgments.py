"""The individual judgments of a HALIE task folder: one row per answered cell.

survey_responses.csv: every column but the ones saying whose session a row is about is a
question, the ratings and the free-text answers alike; the item is the session (dialogue: the
turn, and the session for its overall `quality`). event_blocks.csv: the few columns that judge a
block (metaphor: the sentence's ratings by third parties; summarization: the summaries' ratings by
the user and by third parties; question: the user's answer, whose item is the question, so that
the workers answering one question are compared). Crossword and dialogue event blocks hold none;
accuracies are scores computed from the puzzle, not judgments.

A rater is a person, the worker. The third parties' ratings (metaphor `apt`, `specific`,
`imageable`; summarization `*_third_party`) are aggregates over raters the file does not name:
rows of role "aggregate" with no rater (the session's worker wrote the text, and did not rate it).

Cells are typed as validation types them, by the row schema of the task the headers show (the
task is recognised as the model recognises it). An empty cell is a missing value: no row. Rows
point as findings do: `/<data row index>/<column>`, on the line the cell starts on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ...engine import Context
from ...finding import pointer
from ...judgments.view import Batch, FirstPass, Judgment, Judgments, Level, Question, batched
from ...kinds import Unit
from ...readers.csvcells import Chunk, RowBuilder
from ...readers.csvfile import CsvFile, line_breaks, read_header
from ...readers.files import display_path
from ...schemas import points
from .model import EVENTS, FILES, SURVEY, begin_task, detect, schema_name

# Survey columns that say whose session a row is about, not what was answered.
IDENTIFIERS = frozenset({"session_id", "worker_id", "model", "prompt", "prompt_dataset", "turn_id"})
# The survey's rating scales, as the row schemas describe them: 5-point Likert answers are
# ordinal; dialogue's per-turn ratings are yes / no (0.0 / 1.0), nominal. A survey column not
# listed is free text (level None): helpfulness_freetext, change_freetext, adjectives, and any other.
_LIKERT: Level = "ordinal"
_YES_NO: Level = "nominal"
SURVEY_LEVELS: dict[str, dict[str, Level]] = {
    "crossword": {"fluency": _LIKERT, "helpfulness": _LIKERT, "ease": _LIKERT, "joy": _LIKERT},
    "dialogue": {
        **{name: _YES_NO for name in ("interestingness", "boringness", "preference", "fluency")},
        **{name: _YES_NO for name in ("sensibility", "specificity", "humanness")},
        "quality": _LIKERT,  # the session's overall rating, 1 to 5
    },
    "metaphor": {
        name: _LIKERT for name in ("fluency", "helpfulness", "ease", "enjoyment", "satisfaction", "ownership", "reuse")
    },
    "question": {"fluency": _LIKERT, "helpfulness": _LIKERT, "ease": _LIKERT},
    "summarization": {"improvement": _LIKERT, "edit": _LIKERT, "helpfulness": _LIKERT},
}
_SUMMARY = [f"{s}_{q}" for s in ("original", "edited") for q in ("consistency", "coherency", "relevance")]
# The event-block columns that are judgments, from the event-block schemas. Metaphor: 0, 0.5 or
# 1, ordinal (`overall` is their mean, an aggregate). Question: the choice a-d, nominal.
# Summarization: the user's True / False, nominal; the third-party columns are means of the
# third parties' ratings (0-1 or 1-5, rounded to 2 decimals), so interval.
EVENT_LEVELS: dict[str, dict[str, Level]] = {
    "metaphor": {"apt": "ordinal", "specific": "ordinal", "imageable": "ordinal"},
    "question": {"user_answer": "nominal"},
    "summarization": {
        **{name: "nominal" for name in _SUMMARY},
        **{f"{name}_third_party": "interval" for name in _SUMMARY},
    },
}
# The columns that hold third parties' ratings: aggregates over raters the file does not name.
THIRD_PARTY = {
    "metaphor": frozenset({"apt", "specific", "imageable"}),
    "summarization": frozenset(f"{n}_third_party" for n in _SUMMARY),
}
NOT_ASKED = {("crossword", "joy"): -1}  # a cell value that means the question was not asked
_CHUNK = 1024  # rows typed at a time
# The columns that place a judgment: its item and its rater.
_PLACES = ("session_id", "worker_id", "turn_id", "order_id", "question_id")


@dataclass(frozen=True)
class _Table:
    """One file's judgments: where they are, how its cells are typed, which columns they are."""

    path: Path
    task: str
    schema: str
    questions: dict[str, Question]


def judgments(unit: Unit) -> Judgments:
    """The judgments of a task folder, read anew (a chunk of rows at a time) by each pass. A
    folder whose task cannot be recognised, or a file that cannot be read, gives no rows."""
    headers = {f.name: h for f in unit.files if f.name in FILES and (h := read_header(f))}
    task = detect(headers)
    tables = _tables(unit, task, headers)
    return _view(unit, task, tables, partial(_batches, tables, display_path(unit.root)))


def checked(unit: Unit, ctx: Context) -> Judgments:
    """The folder checked into ctx and its judgments, in one reading: the view's first pass is
    made of the chunks of rows the check reads, as the check goes (check.checking)."""
    from .check import checking

    task = begin_task(unit, ctx)
    tables = _tables(unit, task.task, task.headers)
    dataset = display_path(unit.root)
    of = {t.path: t for t in tables}  # the files with judgments; the check reads the others too
    read = checking(unit, ctx, task)
    rows = (row for t, chunk in read if t.doc.path in of for row in _chunk_rows(of[t.doc.path], chunk, dataset))
    first = batched(rows)
    again = partial(_batches, tables, dataset)
    return _view(unit, task.task, tables, FirstPass(first, again))


def _view(unit: Unit, task: str | None, tables: list[_Table], batches: Callable[[], Iterator[Batch]]) -> Judgments:
    questions = {name: q for t in tables for name, q in t.questions.items()}
    why = partial(_why_none, unit, task, tables)
    return Judgments("halie", display_path(unit.root), questions=questions, raters="person", batches=batches, none=why)


def _tables(unit: Unit, task: str | None, headers: dict[str, list[str]]) -> list[_Table]:
    return [] if task is None else [t for f in unit.files if (t := _table(f, task, headers)) is not None]


def _why_none(unit: Unit, task: str | None, tables: list[_Table]) -> str:
    if task is None:
        return "its task cannot be recognised from the headers of its CSV files (humanjudge validate says why)"
    if tables:
        return f"no cell a worker answered in {', '.join(sorted(t.path.name for t in tables))}"
    survey = unit.file(SURVEY)
    if survey is None:
        return f"no {SURVEY}, and the {task} task's {EVENTS} holds no judgments"
    return f"{SURVEY} has no column of a question" if read_header(survey) else f"{SURVEY} has no header row"


def _table(path: Path, task: str, headers: dict[str, list[str]]) -> _Table | None:
    schema = schema_name(task, path.name)
    if schema is None:
        return None
    header = dict.fromkeys(headers.get(path.name, []))
    if path.name == SURVEY:
        levels = SURVEY_LEVELS.get(task, {})
        columns = [c for c in header if c not in IDENTIFIERS]
    elif path.name == EVENTS:
        levels = EVENT_LEVELS.get(task, {})
        columns = [c for c in header if c in levels]
    else:
        return None
    questions = {c: Question(c, levels.get(c), _points(schema, task, c) if c in levels else None) for c in columns}
    return _Table(path, task, schema, questions) if questions else None


def _batches(tables: list[_Table], dataset: str) -> Iterator[Batch]:
    return batched(row for table in tables for row in _file_rows(table, dataset))


def _file_rows(table: _Table, dataset: str) -> Iterator[Judgment]:
    """The judgments of one file in file order, its rows typed a chunk at a time. The reader
    reports nothing here: what it cannot read is left out, and validation says why."""
    csv = CsvFile(table.path)
    builder: RowBuilder | None = None
    for pending in csv.chunks(_CHUNK):
        if builder is None:
            builder = RowBuilder(csv.header or [], table.schema)
        indices, rows = (list(column) for column in zip(*pending, strict=True))
        yield from _chunk_rows(table, builder.chunk(indices, rows, csv.chunk_lines), dataset)


def _chunk_rows(table: _Table, chunk: Chunk, dataset: str) -> Iterator[Judgment]:
    """The judgments of a chunk of a file's rows."""
    file = display_path(table.path)
    columns = {name: _column(chunk, name) for name in (*table.questions, *_PLACES)}
    third = THIRD_PARTY.get(table.task, frozenset()) if table.path.name == EVENTS else frozenset()
    breaks = _breaks(chunk)
    spanning = _spanning(chunk, breaks)
    position = chunk.builder.position
    tails = {name: pointer(name) for name in table.questions}  # a row's pointer is its index's, then these
    for i, (index, line) in enumerate(zip(chunk.indices, chunk.lines, strict=True)):
        item = _item(table, columns, i)
        if item is None:  # a judgment of no known item: validation reports the empty cell
            continue
        head = pointer(index)
        for name in table.questions:
            value = columns[name][i]
            if value == "" or _not_asked(table.task, name, value):
                continue
            if name in third:
                role, rater, kind = "aggregate", "", "none"
            else:
                role, rater, kind = "individual", columns["worker_id"][i], "person"
                if rater == "":
                    continue
            at = _line(line, chunk, breaks, i, position[name]) if i in spanning else line
            yield Judgment("halie", dataset, item, rater, name, "", value, file, head + tails[name], at, role, kind)


def _column(chunk: Chunk, name: str) -> list[Any] | tuple[str, ...]:
    """A column's values, typed; a column the schema does not know stays text (the chunk leaves
    it out of the rows validation checks, but an answer in it is still an answer)."""
    k = chunk.builder.position.get(name)
    if k is not None and name in chunk.builder.unknown and chunk.texts is not None:
        return chunk.texts[k]
    return chunk.column(name)


def _item(table: _Table, columns: dict[str, Any], i: int) -> str | int | None:
    """What the judgments of row `i` are about; None when the cell naming it is empty."""
    if table.task == "question" and table.path.name == EVENTS:
        question = columns["question_id"][i]
        return None if question == "" else _id(question)
    session = columns["session_id"][i]
    if session == "" or type(session) is not str:
        return None
    if table.path.name == SURVEY:
        turn = columns["turn_id"][i]
        if table.task != "dialogue" or turn == -1:  # dialogue: -1 is the session's own row
            return session
        return None if turn == "" else f"{session}/{_id(turn)}"
    order = columns["order_id"][i]
    return None if order == "" else f"{session}/{_id(order)}"


def _id(value: Any) -> str | int:
    """An id cell as an id: 3 for 3 and 3.0 (one block, however pandas wrote it), else its text."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value if type(value) in (int, str) else str(value)


def _points(schema: str, task: str, column: str) -> tuple[Any, ...] | None:
    """The values the column's schema allows a worker to choose (a value that means "not asked"
    is no choice)."""
    found = points(schema, column)
    return None if found is None else tuple(v for v in found if not _not_asked(task, column, v)) or None


def _not_asked(task: str, column: str, value: Any) -> bool:
    return (task, column) in NOT_ASKED and value == NOT_ASKED[task, column]


def _breaks(chunk: Chunk) -> list[int]:
    """The columns of a chunk with a line break in some cell (quoted cells may span lines)."""
    assert chunk.texts is not None
    return [k for k, cells in enumerate(chunk.texts) if "\n" in (text := "".join(cells)) or "\r" in text]


def _spanning(chunk: Chunk, breaks: list[int]) -> set[int]:
    """The rows of a chunk with a line break in some cell: a cell of the other rows starts on
    its row's line."""
    assert chunk.texts is not None
    return {i for k in breaks for i, cell in enumerate(chunk.texts[k]) if "\n" in cell or "\r" in cell}


def _line(start: int, chunk: Chunk, breaks: list[int], i: int, k: int) -> int:
    """The line cell `k` of row `i` of a chunk starts on, the row starting on line `start`: one
    more per line break in the cells before it."""
    assert chunk.texts is not None
    return start + line_breaks(",".join(chunk.texts[c][i] for c in breaks if c < k))
