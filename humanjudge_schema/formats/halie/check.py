"""The HALIE check: read the task folder into its model, then run the rules over the task."""

from __future__ import annotations

from ...engine import Context
from ...kinds import Unit
from . import rules  # noqa: F401  (importing the rules registers them)
from .model import load_task, task_rules


def check(unit: Unit, ctx: Context) -> None:
    task = load_task(unit, ctx)
    for r in task_rules():
        ctx.run(r, task)
