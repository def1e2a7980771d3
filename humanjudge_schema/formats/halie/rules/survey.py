"""Rules over the rows of survey responses."""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....registry import rule
from ..model import SURVEY, Rows, Table, Task, on_rows

TURN_RATINGS = ("interestingness", "boringness", "preference", "fluency", "sensibility", "specificity", "humanness")


@rule(
    "halie/missing-rating",
    "a per-turn dialogue survey row has every rating",
    severity="warning",
    why="Each turn of a dialogue is rated on seven binary questions; an empty cell is a question "
    "the worker did not answer (8 cells in the released data). A warning: the row is still "
    "usable, but averages over turns silently drop it.",
    bad="turn_id 3, interestingness (empty), boringness 0.0, ...",
    good="turn_id 3, interestingness 1.0, boringness 0.0, ...",
    scope=on_rows(("dialogue", SURVEY)),
)
def missing_rating(task: Task, table: Table, rows: Rows) -> Iterator[Hit]:
    columns = [c for c in TURN_RATINGS if c in table.header]  # a column left out is the header's business
    for index, row in rows:
        if row["turn_id"] != -1:
            for column in columns:
                if column not in row:
                    yield table.doc, f"/{index}/{column}", f"no {column} rating for turn {row['turn_id']}"
