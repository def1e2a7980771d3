"""The individual judgments of a study-1 folder: the eight survey ratings of every task.

Only study1_tasks.jsonl.gz holds judgments; the other files hold texts. A task is one worker
writing one response for a topic in one style, and each topic has three tasks (one per style),
so the topic is the item the workers rated alike, and a rater is a person (a worker id). The same
worker may hold two tasks of a topic (52 of the 301 real topics): both ratings are rows, and
agreement counts the first one given, in file order (judgments/gather.py, `first_answers`;
`quality/repeated-answer` names both). A rating the file states as null is a row with the value
None, which is no answer: a worker whose first task of a topic is null and whose second is rated
has rated the topic once. A rating the record lacks is no row (the schema reports it).

Rows point as findings do: the record's 0-based index and the field (`/12/worker_knowledge`), on
the record's line of the decompressed file.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from ...config import discover
from ...engine import Context
from ...finding import pointer
from ...judgments.view import Judgment, Judgments, Question
from ...kinds import Unit
from ...readers.files import display_path
from ...readers.gzjsonl import GzipJsonLines
from ...schemas import points
from .model import TASKS

# In the order the file writes them: the entry survey, then the exit survey. The data's README
# gives 1 / 0 / -1 (true, maybe, false) for the query and satisfaction questions and 1 (low) to
# 5 (high) for the scales: every one of them is ordinal.
RATINGS = (
    "query_answerable",
    "query_controversial",
    "worker_knowledge",
    "worker_expertise",
    "worker_satisfaction",
    "references_quality",
    "references_extra",
    "references_omission",
)
# The questions whose raters judge no object they share, in the data README's words: a worker's
# self-assessment, or a rating of the response the worker wrote (each worker writes their own).
# They get their distribution and no agreement (Question.shared).
OWN = {
    "worker_knowledge": 'a self-assessment of the worker ("Self-assessed knowledge of the worker on the topic")',
    "worker_expertise": 'a self-assessment of the worker ("Self-assessed experties of the worker on the topic")',
    "worker_satisfaction": "about the worker's own response (\"If the worker was satisfied was with the answer "
    'they wrote")',
    "references_extra": "about the worker's own response (\"How much extra information from worker experience or "
    'memory contributed to the response that is not provided in the references")',
    "references_omission": "about the worker's own response (\"Whether workers omitted information given in the "
    'references when answering the query")',
}
TASKS_SCHEMA = "study1/v1/tasks"


@functools.cache
def questions() -> dict[str, Question]:
    """Each rating's question, its points from the tasks schema (the choices a worker had)."""
    return {
        name: Question(name, "ordinal", points(TASKS_SCHEMA, name), shared=name not in OWN, why=OWN.get(name))
        for name in RATINGS
    }


def judgments(unit: Unit) -> Judgments:
    """The ratings of the folder's tasks, one row per task and rating, read anew (streamed) by
    each call of `rows()`; a tasks file that is missing or cannot be read gives no rows."""
    dataset = display_path(unit.root)
    limit = discover(unit.root).option("study1", "max-decompressed-bytes")  # read as validate reads it
    tasks = unit.file(TASKS)
    rows = partial(_rows, tasks, dataset, limit)
    return Judgments("study1", dataset, rows, dict(questions()), raters="person", none=partial(_why_none, unit))


def checked(unit: Unit, ctx: Context) -> Judgments:
    """The folder checked into ctx and its ratings, read from the tasks' records the check kept."""
    from .check import checked as check

    study = check(unit, ctx)
    dataset = display_path(unit.root)
    tasks = unit.file(TASKS)
    file = display_path(tasks) if tasks is not None else ""
    rows = partial(_judgments, study.rated, dataset, file)
    return Judgments("study1", dataset, rows, dict(questions()), raters="person", none=partial(_why_none, unit))


def _why_none(unit: Unit) -> str:
    if unit.file(TASKS) is None:
        others = ", ".join(sorted(f.name for f in unit.files))
        return f"no {TASKS}, the file of the ratings" + (f" (only {others})" if others else "")
    return f"no record of {TASKS} is a rating of a topic by a worker (humanjudge validate says why)"


def _rows(path: Path | None, dataset: str, limit: int) -> Iterator[Judgment]:
    if path is None:
        return
    records = ((index, line, record) for index, line, record, _ in GzipJsonLines(path, limit))
    # a broken line, or JSON that is not a task, is no task: validation says so
    yield from _judgments((r for r in records if type(r[2]) is dict), dataset, display_path(path))


def _judgments(records: Iterable[tuple[int, int, dict[str, Any]]], dataset: str, file: str) -> Iterator[Judgment]:
    """The ratings of the tasks' records that are objects."""
    for index, line, record in records:
        topic, worker = record.get("topic"), record.get("worker")
        if not isinstance(topic, str) or not isinstance(worker, str):  # a rating of no known item or rater
            continue
        for name in RATINGS:
            if name in record:
                where = pointer(index, name)
                yield Judgment(
                    "study1", dataset, topic, worker, name, "", record[name], file, where, line, "individual", "person"
                )
