"""The HALIE check: read the task folder into its model, running the row rules on the rows of
each file as it is read, then run the rules over the task. The rules say what they look at
(`scope` on @rule): "task", or the rows of some files of some tasks (model.on_rows)."""

from __future__ import annotations

import functools

from ...engine import Context
from ...kinds import Unit
from ...registry import rules_of, scopes_of
from . import rules  # noqa: F401  (importing the rules registers them)
from .model import OnRows, Reading, RowRule, Rows, Table, Task, begin_task, read_task


class _RowRules:
    """The row rules, for the reader (model.RowRules): run here, on what it hands over."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def of(self, task: str, file: str, late: bool) -> list[RowRule]:
        return _row_rules(task, file, late)

    def run(self, chosen: list[RowRule], task: Task, table: Table, rows: Rows) -> None:
        for r in chosen:
            self.ctx.run(r, task, table, rows)


@functools.cache
def _row_rules(task: str, file: str, late: bool) -> list[RowRule]:
    return [
        r
        for scope, r in scopes_of("halie")
        if isinstance(scope, OnRows) and scope.late == late and (task, file) in scope.where
    ]


def check(unit: Unit, ctx: Context) -> None:
    for _ in checking(unit, ctx, begin_task(unit, ctx)):
        pass


def checking(unit: Unit, ctx: Context, task: Task) -> Reading[None]:
    """The check, handing on each chunk of rows of each file as it is read (a view of the
    judgments reads them, model.Reading); the rules over the task run after the last."""
    yield from read_task(unit, ctx, task, _RowRules(ctx))
    for r in rules_of("halie", "task"):
        ctx.run(r, task)
