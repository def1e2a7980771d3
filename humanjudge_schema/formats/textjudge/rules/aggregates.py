"""The stored aggregates (mean_human, majority_human) against the individual scores.

Aggregation is defined once, in aggregate.py: continuous and graded scores by their arithmetic
mean, categorical ones by majority vote. These rules compare against it, and `humanjudge aggregate
DATASET.json` writes it.
"""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....numbers import fmt_number
from ....registry import rule
from ..aggregate import NUMERIC, majority_fix, mean_fix
from ..columns import MetricColumn, union
from ..model import Run, score_pointer
from .words import names, scores_list

EVERY_CATEGORY = ("categorical", *sorted(NUMERIC))


def _inexact_means(col: MetricColumn) -> list[int]:
    return col.inexact_means()


@rule(
    "textjudge/mean-value",
    "mean_human is the mean of the individual scores",
    why="mean_human is derived data: it must be the arithmetic mean of individual_human_scores, "
    "exactly, after rounding to the stored number of decimals (datasets round to 2 or 3), or "
    "within the configured `tolerance`. A difference means the scores or the mean were changed "
    "after aggregation. `humanjudge aggregate DATASET.json` recomputes it.",
    bad='"mean_human": 2.88, "individual_human_scores": [2, 6, 3]',
    good='"mean_human": 3.67, "individual_human_scores": [2, 6, 3]',
    scope="run",
)
def mean_value(run: Run) -> Iterator[Hit]:
    for i, m, decl, s in run.scores(_inexact_means, NUMERIC):
        exact = mean_fix(s, decl, run.ds.tolerance)
        if exact is not None:
            yield (
                run.doc,
                score_pointer(i, m, "mean_human"),
                f"mean_human is {fmt_number(s['mean_human'])}, the mean of "
                f"{scores_list(s['individual_human_scores'])} is {fmt_number(exact)}",
            )


def _outvoted(col: MetricColumn) -> list[int]:
    if col.category == "categorical":  # and majorities that are not labels as written
        return union(col.unlabelled, col.odd_majority, col.outvoted())
    return col.outvoted()


@rule(
    "textjudge/majority-value",
    "majority_human is a most frequent individual score",
    why="majority_human is the majority vote of individual_human_scores: one of the most "
    "frequent scores (any of them when several tie). Labels are compared as declared, ignoring "
    "case differences (those are `textjudge/label-case`). An absent or null majority is not "
    "checked: newsroom leaves it out when all ratings differ. `humanjudge aggregate "
    "DATASET.json` recomputes it.",
    bad='"majority_human": "No", "individual_human_scores": ["Yes", "Yes", "No"]',
    good='"majority_human": "Yes", "individual_human_scores": ["Yes", "Yes", "No"]',
    scope="run",
)
def majority_value(run: Run) -> Iterator[Hit]:
    for i, m, decl, s in run.scores(_outvoted, EVERY_CATEGORY):
        top = majority_fix(s, decl)
        if top is None:
            continue
        winners, count = top
        n = len(s["individual_human_scores"])
        if len(winners) == 1:
            most = f"the most frequent score is {fmt_number(winners[0])} ({count} of {n})"
        else:
            most = f"the most frequent scores are {names(winners)} ({count} each of {n})"
        message = f"majority_human is {fmt_number(s['majority_human'])}, but {most}"
        yield run.doc, score_pointer(i, m, "majority_human"), message
