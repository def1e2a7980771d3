"""Names and ids made of other columns: a block's name of its id, a crossword session's id of its
prompt, worker and model, a puzzle's name of its number."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....engine import Hit
from ....registry import rule
from ..model import EVENTS, Rows, Table, Task, mismatches, on_rows

BLOCK_NAME = {"crossword": "crossword", "dialogue": "turn", "summarization": "summary"}
RAW_MODEL = {
    "Davinci": "davinci",
    "InstructDavinci": "text-davinci",
    "InstructBabbage": "text-babbage",
    "Jumbo": "ai2-jumbo",
}
PROMPT_DATASET = {61: "NYT-1", 151: "ELECT", 173: "NYT-2", 187: "SIT", 191: "LOVE"}


@rule(
    "halie/block-name",
    "a block's name (and crossword's query_index) is its zero-padded id",
    why="`name` is `crossword-07`, `turn-03` or `summary-00`: the block's order_id (turn_id) with at "
    "least two digits, and crossword's query_index is the same number as text. A name that "
    "disagrees with the id means one of the two was edited.",
    bad="name crossword-03, order_id 4",
    good="name crossword-04, order_id 4",
    scope=on_rows(*((t, EVENTS) for t in BLOCK_NAME)),
)
def block_name(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    prefix, column = BLOCK_NAME[table.task], table.id_column

    def named(block: Any) -> tuple[str, str]:  # (name, zero-padded id)
        number = f"{int(block):02d}"
        return f"{prefix}-{number}", number

    for index, block, (name, number), (want, padded) in mismatches(rows, column, named, ("name", "query_index")):
        if name != want:
            yield table.doc, f"/{index}/name", f"name {name!r}, but {column} is {block} ({want})"
        if number and number != padded:
            yield (
                table.doc,
                f"/{index}/query_index",
                f"query_index {number!r}, but order_id is {block} ({padded!r})",
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
    scope="task",
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
    scope="task",
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
