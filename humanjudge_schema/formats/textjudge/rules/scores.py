"""Each score object against its metric's category, scale and labels.

A rule here walks the score objects its screen keeps (`Run.scores`): the screen asks a question of
a whole column at once (columns.py) that rules out every object where the rule cannot find
anything, and the rule's own code says what a finding is.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import repeat
from operator import is_
from typing import Any

from ....engine import Hit
from ....numbers import fmt_number
from ....registry import rule
from ..aggregate import NUMERIC, is_number, label_map
from ..columns import NUMBER_TYPES, MetricColumn, positions, union
from ..model import DatasetFacts, Run, score_pointer
from .words import names

CATEGORICAL = ("categorical",)
GRADED = ("graded",)


def _numbers_among_labels(col: MetricColumn) -> list[int]:
    return union(col.unlabelled, col.having("mean_human"), col.majority_of(NUMBER_TYPES))


def _strings_among_numbers(col: MetricColumn) -> list[int]:
    return union(col.not_only(NUMBER_TYPES), col.majority_of(frozenset({str})))


@rule(
    "textjudge/score-type",
    "score types match the metric's category",
    why="Continuous and graded metrics are scored with numbers and aggregated by their mean; "
    "categorical metrics are scored with labels and aggregated by majority vote. The schema "
    "cannot tell which metric a score object belongs to, so it allows both; a number for a "
    "categorical metric, a string for a graded one, or a mean for a categorical metric means "
    "the scores or the declaration are wrong.",
    bad='{"metric": "fluency", "category": "graded", ...}; '
    '"fluency": {"mean_human": 3, "individual_human_scores": ["3", "4"]}',
    good='"fluency": {"mean_human": 3.5, "individual_human_scores": [3, 4]}',
    scope="run",
)
def score_type(run: Run) -> Iterator[Hit]:
    for i, m, _, s in run.scores(_numbers_among_labels, CATEGORICAL):
        for j, x in enumerate(s["individual_human_scores"]):
            if is_number(x):
                yield (
                    run.doc,
                    score_pointer(i, m, "individual_human_scores", j),
                    f"{x!r} is a number; the scores of categorical metric {m!r} are labels from its labels_list",
                )
        if "mean_human" in s:
            yield (
                run.doc,
                score_pointer(i, m, "mean_human"),
                f"categorical metric {m!r} is aggregated by majority vote; a mean_human does not belong to it",
            )
        majority = s.get("majority_human")
        if is_number(majority):
            yield (
                run.doc,
                score_pointer(i, m, "majority_human"),
                f"{majority!r} is a number; the majority of categorical metric {m!r} is a label",
            )
    for i, m, decl, s in run.scores(_strings_among_numbers, NUMERIC):
        category = decl["category"]
        for j, x in enumerate(s["individual_human_scores"]):
            if isinstance(x, str):
                yield (
                    run.doc,
                    score_pointer(i, m, "individual_human_scores", j),
                    f"{x!r} is a string; the scores of {category} metric {m!r} are numbers",
                )
        majority = s.get("majority_human")
        if isinstance(majority, str):
            yield (
                run.doc,
                score_pointer(i, m, "majority_human"),
                f"{majority!r} is a label; the majority of {category} metric {m!r} is a number (or is left out)",
            )


@rule(
    "textjudge/missing-aggregate",
    "each score has the aggregate its category needs",
    why="Continuous and graded metrics are evaluated against `mean_human`, categorical ones "
    "against a label in `majority_human`. Without it the instance cannot be evaluated on that "
    "metric. The schema requires one of the two; which one depends on the declaration.",
    bad='{"metric": "safety", "category": "categorical", ...}; '
    '"safety": {"mean_human": 0.5, "individual_human_scores": []}',
    good='"safety": {"majority_human": "No", "individual_human_scores": []}',
    scope="run",
)
def missing_aggregate(run: Run) -> Iterator[Hit]:
    for col in run.columns_of(CATEGORICAL):
        for k in positions(map(is_, col.majorities, repeat(None))):  # absent or null
            message = f"no majority_human label: categorical metric {col.metric!r} is aggregated by majority vote"
            yield run.doc, score_pointer(col.rows[k], col.metric), message
    for col in run.columns_of(NUMERIC):
        for k in col.lacking("mean_human"):
            message = f"no mean_human: {col.category} metric {col.metric!r} is aggregated by the mean"
            yield run.doc, score_pointer(col.rows[k], col.metric), message


def _floats(col: MetricColumn) -> list[int]:
    return union(col.fractional(), col.majority_of(frozenset({float})))


@rule(
    "textjudge/graded-not-integer",
    "the scores of a graded metric are whole numbers",
    why="A graded scale has integer steps (1, 2, ... 5); a score of 3.5 on it was averaged or "
    "rescaled somewhere. Means are of course not whole numbers. A scale with fractional steps "
    "is `continuous`.",
    bad='{"category": "graded", "worst": 1, "best": 5}; "individual_human_scores": [3, 3.5]',
    good='"individual_human_scores": [3, 4]',
    scope="run",
)
def graded_not_integer(run: Run) -> Iterator[Hit]:
    for i, m, _, s in run.scores(_floats, GRADED):
        scores = s["individual_human_scores"]
        for j, x in enumerate(scores):
            if isinstance(x, float) and not x.is_integer():
                yield (
                    run.doc,
                    score_pointer(i, m, "individual_human_scores", j),
                    f"{x!r} is not a whole number; metric {m!r} is graded",
                )
        majority = s.get("majority_human")
        if isinstance(majority, float) and not majority.is_integer() and not any(map(is_number, scores)):
            yield (
                run.doc,
                score_pointer(i, m, "majority_human"),
                f"{majority!r} is not a whole number; metric {m!r} is graded",
            )


def _scale(decl: dict[str, Any]) -> tuple[Any, Any]:
    """The ends of a metric's scale, lowest first (`worst` may be the higher)."""
    lo, hi = sorted((decl["worst"], decl["best"]))
    return lo, hi


def _off_scale(col: MetricColumn) -> list[int]:
    # aggregates are checked where there are no numbers to check instead
    return union(col.outside(*_scale(col.decl)), col.empty)


@rule(
    "textjudge/score-range",
    "numeric scores lie within [worst, best]",
    why="`worst` and `best` are the ends of the scale (in either order); a score outside them "
    "was given on another scale or mistyped. Aggregates are checked against the scale only "
    "when there are no individual scores to recompute them from.",
    bad='{"worst": 1, "best": 5}; "individual_human_scores": [4, 6]',
    good='"individual_human_scores": [4, 5]',
    scope="run",
)
def score_range(run: Run) -> Iterator[Hit]:
    for i, m, decl, s in run.scores(_off_scale, NUMERIC):
        lo, hi = _scale(decl)
        scale = f"[{fmt_number(lo)}, {fmt_number(hi)}]"
        numbers = False
        for j, x in enumerate(s["individual_human_scores"]):
            if is_number(x):
                numbers = True
                if not lo <= x <= hi:
                    yield (
                        run.doc,
                        score_pointer(i, m, "individual_human_scores", j),
                        f"{x!r} is outside the scale {scale} of metric {m!r}",
                    )
        for key in () if numbers else ("mean_human", "majority_human"):
            x = s.get(key)
            if is_number(x) and not lo <= x <= hi:
                yield run.doc, score_pointer(i, m, key), f"{key} {x!r} is outside the scale {scale} of metric {m!r}"


def _not_labels(col: MetricColumn) -> list[int]:
    return union(col.unlabelled, col.odd_majority)


@rule(
    "textjudge/unknown-label",
    "categorical scores are labels from labels_list",
    why="A categorical metric is scored with the labels its declaration lists; any other "
    "string cannot be compared with a model's answer, which is parsed against labels_list. "
    "Labels that differ only in case are `textjudge/label-case`. The majority is checked "
    "against labels_list when there are no individual labels to recompute it from.",
    bad='"labels_list": ["Yes", "No"]; "individual_human_scores": ["Yes", "Unsure"]',
    good='"labels_list": ["Yes", "No", "Unsure"]',
    scope="run",
)
def unknown_label(run: Run) -> Iterator[Hit]:
    for i, m, decl, s in run.scores(_not_labels, CATEGORICAL):
        labels, folded = label_map(decl)
        declared = names(decl["labels_list"])
        strings = False
        for j, x in enumerate(s["individual_human_scores"]):
            if isinstance(x, str):
                strings = True
                if x not in labels and x.casefold() not in folded:
                    yield (
                        run.doc,
                        score_pointer(i, m, "individual_human_scores", j),
                        f"{x!r} is not a label of metric {m!r} ({declared})",
                    )
        majority = s.get("majority_human")
        if not strings and isinstance(majority, str) and majority not in labels and majority.casefold() not in folded:
            yield (
                run.doc,
                score_pointer(i, m, "majority_human"),
                f"{majority!r} is not a label of metric {m!r} ({declared})",
            )


@rule(
    "textjudge/label-case",
    "labels are written as in labels_list",
    severity="warning",
    why='A label that matches one of labels_list only when case is ignored ("yes" for '
    '"Yes") is almost always the same label, and it is counted as that label when the '
    "majority is recomputed; but code that compares labels exactly treats it as another one.",
    bad='"labels_list": ["Yes", "No"]; "majority_human": "yes"',
    good='"majority_human": "Yes"',
    scope="run",
)
def label_case(run: Run) -> Iterator[Hit]:
    for i, m, decl, s in run.scores(_not_labels, CATEGORICAL):
        labels, folded = label_map(decl)
        values: list[tuple[tuple[object, ...], Any]] = [
            (("individual_human_scores", j), x) for j, x in enumerate(s["individual_human_scores"])
        ]
        values.append((("majority_human",), s.get("majority_human")))
        for rest, x in values:
            if isinstance(x, str) and x not in labels and x.casefold() in folded:
                message = f"{x!r} differs from the label {folded[x.casefold()]!r} only in case"
                yield run.doc, score_pointer(i, m, *rest), message


@rule(
    "textjudge/empty-scores",
    "an instance lacks the individual scores its metric has elsewhere",
    severity="warning",
    why="With no individual scores, nothing about the instance's aggregate can be checked. A "
    "metric that publishes only aggregates everywhere (toxic_chat's labels) is a choice and "
    "is not reported; a metric whose individual scores are missing for some instances only "
    "has usually lost them in conversion.",
    bad='instance 1: "individual_human_scores": [3, 4]; instance 2: "mean_human": 4, "individual_human_scores": []',
    good='instance 2: "mean_human": 4, "individual_human_scores": [4, 4]',
    scope="dataset",
)
def empty_scores(ds: DatasetFacts) -> Iterator[Hit]:
    for m, where in ds.empty.items():
        n = ds.filled[m]
        if not n:
            continue
        others = f"{n} other instance{'s have' if n > 1 else ' has'}"
        for i in where:
            yield (
                ds.doc,
                score_pointer(i, m, "individual_human_scores"),
                f"no individual scores for metric {m!r}, which {others}: the aggregate cannot be checked",
            )
