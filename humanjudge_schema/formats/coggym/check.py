"""The CogGym check: read the experiment into the model, then run every CogGym rule over it."""

from __future__ import annotations

from ...engine import Context
from ...kinds import Unit
from ...registry import rules_of
from . import rules  # noqa: F401  (importing the rules registers them)
from .model import Experiment, load_experiment


def check(unit: Unit, ctx: Context) -> None:
    """Validate one experiment folder: its files against their schemas, then the rules."""
    checked(unit, ctx)


def checked(unit: Unit, ctx: Context) -> Experiment:
    """The experiment as the check read it (its judgments' view reads the same model)."""
    exp = load_experiment(unit, ctx)
    for r in rules_of("coggym", "experiment"):
        ctx.run(r, exp)
    return exp
