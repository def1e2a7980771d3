"""The study-1 check: stream the files into the model, then run the rules over it."""

from __future__ import annotations

from ...engine import Context
from ...kinds import Unit
from ...registry import rules_of
from . import rules  # noqa: F401  (importing the rules registers them)
from .model import Study, load_study


def check(unit: Unit, ctx: Context) -> None:
    checked(unit, ctx)


def checked(unit: Unit, ctx: Context) -> Study:
    """The study as the check read it (its judgments' view reads the tasks it kept)."""
    study = load_study(unit, ctx)
    for r in rules_of("study1", "study"):
        ctx.run(r, study)
    return study
