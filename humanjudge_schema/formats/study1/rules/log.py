"""The writing log: every response a task's, its snapshots together and in time order, its final
text citing references that exist."""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....readers.gzjsonl import StreamedDocument
from ....registry import rule
from ..model import HUMAN, MAX_FINAL_TEXTS, TASKS, Study


@rule(
    "study1/unknown-response",
    "every response of the writing log is a task",
    why="Snapshots are the writing of one task's worker; a response UUID that no task has cannot "
    "be tied to a worker, a topic or the survey answers.",
    bad='log: {"response": "00000000-0000-0000-0000-000000000000", ...}  (no such task)',
    good='log: {"response": "ae54d7e0-62df-3e53-9bea-3e107a6e5801", ...}  (a task)',
    scope="study",
)
def unknown_response(study: Study) -> Iterator[Hit]:
    if study.tasks_doc is None or not study.complete.get(TASKS):
        return
    tasks = study.task_of()
    for run in study.runs:
        if run.response not in tasks and run.earlier is None:
            yield study.human_doc, f"/{run.first}/response", f"response {run.response!r} is not a task in {TASKS}"


@rule(
    "study1/task-mismatch",
    "a snapshot's topic and style are its task's",
    why="The log repeats the task's topic and style on every snapshot; a snapshot that disagrees "
    "belongs to another task or was relabelled, and analyses by topic or style split it wrongly.",
    bad='task: {"response": "ae54d7e0-...", "topic": "2024-105741", "style": "bullet"}; log: {"response": "ae54d7e0-...", "style": "essay", ...}',
    good='log: {"response": "ae54d7e0-...", "topic": "2024-105741", "style": "bullet", ...}',
    scope="study",
)
def task_mismatch(study: Study) -> Iterator[Hit]:
    tasks = study.task_of()
    for run in study.runs:
        task = tasks.get(run.response)
        if task is None:
            continue
        for (topic, style), index in run.pairs.items():
            if topic is not None and task.topic is not None and topic != task.topic:
                yield study.human_doc, f"/{index}/topic", f"topic {topic!r}, but the task's topic is {task.topic!r}"
            if style is not None and task.style is not None and style != task.style:
                yield study.human_doc, f"/{index}/style", f"style {style!r}, but the task's style is {task.style!r}"


@rule(
    "study1/no-snapshots",
    "every task has snapshots in the writing log",
    why="A task's response text exists only in the writing log; a task without snapshots has no response at all.",
    bad="tasks: 903 records; log: snapshots of 902 responses",
    good="tasks: 903 records; log: snapshots of the same 903 responses",
    scope="study",
)
def no_snapshots(study: Study) -> Iterator[Hit]:
    if study.human_doc is None or not study.complete.get(HUMAN):
        return
    logged = {run.response for run in study.runs}
    for r in study.tasks:
        if r.response is not None and r.response not in logged:
            yield study.tasks_doc, f"/{r.index}/response", f"no snapshot of response {r.response!r} in {HUMAN}"


@rule(
    "study1/snapshots-not-contiguous",
    "a response's snapshots are consecutive lines",
    why="The log is written response by response; snapshots of one response split by another's "
    "are a merge of two logs or a sorting accident, and the order of the writing is lost.",
    bad="lines 1-40: response A; lines 41-80: response B; lines 81-90: response A again",
    good="lines 1-50: response A; lines 51-90: response B",
    scope="study",
)
def snapshots_not_contiguous(study: Study) -> Iterator[Hit]:
    for run in study.runs:
        if run.earlier is not None:
            yield (
                study.human_doc,
                f"/{run.first}/response",
                f"snapshots of response {run.response!r} resume here after other responses (they start at record {run.earlier})",
            )


@rule(
    "study1/timestamp-order",
    "a response's snapshot timestamps never decrease",
    why="Snapshots are taken in order while the worker writes; a timestamp smaller than the one "
    "before puts the writing out of order (the text shown as final may not be the last).",
    bad='{"timestamp": 1728671105900, ...}\n{"timestamp": 1728671105600, ...}',
    good='{"timestamp": 1728671105600, ...}\n{"timestamp": 1728671105900, ...}',
    scope="study",
)
def timestamp_order(study: Study) -> Iterator[Hit]:
    for index, ts, previous in study.decreases:
        yield (
            study.human_doc,
            f"/{index}/timestamp",
            f"timestamp {ts!r} is earlier than the snapshot before ({previous!r})",
        )


@rule(
    "study1/citation-range",
    "citation indices are within the topic's references",
    why="Responses cite references by 0-based index, `[0, 10]`; a topic has 20 references, so "
    "an index of 20 or more cites nothing (often a typo: `[1516]` for `[15, 16]`). The final text "
    "of every human response (its last snapshot) and every LLM response is checked.",
    bad='"text": "... are at risk [0,21]."  (topic with 20 references)',
    good='"text": "... are at risk [0, 12]."',
    scope="study",
)
def citation_range(study: Study) -> Iterator[Hit]:
    refs = study.references()
    found: list[tuple[StreamedDocument | None, int, str | None, tuple[tuple[str, int], ...]]] = [
        (study.human_doc, run.last, run.topic, run.citations) for run in study.runs
    ]
    found += [(study.llm_doc, r.index, r.topic, r.citations) for r in study.llm]
    for doc, index, topic, cited in found:
        n = refs.get(topic) if topic is not None else None
        if n is None:
            continue
        for text, largest in cited:
            if largest >= n:
                yield (
                    doc,
                    f"/{index}/text",
                    f"citation {text} cites reference {largest}; topic {topic!r} has {n} (0 to {n - 1})",
                )


@rule(
    "study1/ambiguous-final-text",
    "several different texts share a response's final timestamp",
    severity="warning",
    why="The submitted text of a response is its last snapshot; when snapshots with different "
    "texts share the final timestamp, which one was submitted depends on their order in the file. "
    "The last line is taken.",
    bad='{"timestamp": 1728551131680, "text": "... final."}\n{"timestamp": 1728551131680, "text": "... final.\\n"}',
    good='{"timestamp": 1728551131600, "text": "... final"}\n{"timestamp": 1728551131680, "text": "... final."}',
    scope="study",
)
def ambiguous_final_text(study: Study) -> Iterator[Hit]:
    for run in study.runs:
        if run.final_texts > 1:
            many = f"{run.final_texts}" if run.final_texts < MAX_FINAL_TEXTS else f"{MAX_FINAL_TEXTS} or more"
            yield (
                study.human_doc,
                f"/{run.final}/timestamp",
                f"{many} different texts share the final timestamp {run.final_timestamp!r} of response {run.response!r}; "
                "the last line is taken as the submitted text",
            )
