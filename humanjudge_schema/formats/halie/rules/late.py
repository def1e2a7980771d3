"""Rules over rows that need whole sessions: they run on a second reading of the file, once the
first has counted every session's blocks (`Table.sizes`)."""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....numbers import decimals
from ....registry import rule
from ..model import EVENTS, Rows, Table, Task, on_rows


@rule(
    "halie/norm-order-id",
    "norm_order_id is round(order_id / blocks in the session, 2)",
    why="norm_order_id places a block within its session on a 0-1 scale: order_id divided by the "
    "number of blocks of the session, rounded to 2 decimals. Another value was computed before "
    "blocks were added or removed.",
    bad="session of 3 blocks: order_id 1, norm_order_id 0.5",
    good="session of 3 blocks: order_id 1, norm_order_id 0.33",
    scope=on_rows(("metaphor", EVENTS), late=True),
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
