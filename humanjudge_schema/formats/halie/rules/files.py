"""The task and its files: whether the task is known, which files it has, and their headers."""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....registry import register, rule
from ....schemas import load_schema
from ..model import Spot, Task


@rule(
    "halie/unknown-task",
    "the headers match no HALIE task",
    why="A HALIE task folder is recognised by the columns of its files (crossword, dialogue, "
    "metaphor, question, summarization); when no header shares at least half its columns with a "
    "task's schema, nothing can be checked.",
    bad="event_blocks.csv: id,text,score",
    good="event_blocks.csv: session_id,worker_id,order_id,norm_order_id,model,prompt,...  (metaphor)",
    scope="task",
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
    scope="task",
)
def unexpected_file(task: Task) -> Iterator[Hit]:
    for path in task.unexpected:
        yield Spot(path, 1, 1), "", f"the {task.task} task has no {path.name}"


# A header's unknown and missing columns are reported by the table reader (readers/csvtable.py),
# under the codes the model names (model.COLUMNS); they are documented here, with the other
# findings about the files.
register(
    "halie/unknown-column",
    "a column the schema does not have",
    why="The columns of each file are fixed by the format; an unknown column is a typo of a known "
    "one (then that one is missing too) or data the format does not describe. Reported once, at "
    "the header; its cells are not checked.",
    bad="session_id,worker_id,model,prompt,prompt_dataset,letter_accuracy,clue_accuracy,notes",
    good="session_id,worker_id,model,prompt,prompt_dataset,letter_accuracy,clue_accuracy",
)

register(
    "halie/missing-column",
    "a required column is missing from the header",
    why="Every row must have a value in a required column; without the column, no row has one. "
    "Reported once, at the header, instead of once per row.",
    bad="session_id,worker_id,model,prompt,prompt_dataset,fluency,helpfulness,ease  (no joy)",
    good="session_id,worker_id,model,prompt,prompt_dataset,fluency,helpfulness,ease,joy",
)


@rule(
    "halie/column-order",
    "the columns are in the format's order",
    severity="warning",
    why="Readers that go by position (spreadsheets, `cut`, R's read.csv with col.names) misread a "
    "file whose columns are shuffled; readers by name do not care. The order is the order of the "
    "schema's properties, which is the order of the released files.",
    bad="worker_id,session_id,model,...",
    good="session_id,worker_id,model,...",
    scope="task",
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
