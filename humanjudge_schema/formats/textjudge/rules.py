"""TextJudge / JUDGE-BENCH datasets: one JSON file of metric declarations and scored instances.

The rules run when the declarations and the instances passed the schema (a missing
`expert_annotator` does not stop them), so they index those parts without guarding. They yield
(document, pointer, message) and the engine does the rest.

Aggregation is defined here once: continuous and graded scores by their arithmetic mean, categorical
ones by majority vote. `textjudge/mean-value` and `textjudge/majority-value` compare against it,
and `humanjudge aggregate DATASET.json` writes it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, repeat
from operator import ge, is_, itemgetter
from typing import Any

from ...engine import Context, Hit, schema_errors
from ...finding import pointer
from ...kinds import Unit
from ...numbers import fmt_number as _fmt
from ...readers.files import read_bytes
from ...readers.jsonfile import JsonDocument, document
from ...registry import rule, rules_of
from . import stream
from .aggregate import NUMERIC
from .aggregate import label_map as _label_map
from .aggregate import majority_fix as _majority_fix
from .aggregate import mean_fix as _mean_fix
from .columns import NUMBER_TYPES, Column, Screen, columns, kept, positions, union
from .prompts import (
    SCHEMA,
    TemplateCheck,
    describe_unsafe,
    fields_of,
    inspect_template,
    template_fields,
    usable,
)


def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _list(values: list[Any], limit: int = 10) -> str:
    if len(values) <= limit:
        return "[" + ", ".join(map(_fmt, values)) + "]"
    return "[" + ", ".join(map(_fmt, values[:limit])) + f", ... ({len(values)} scores)]"


def _names(values: Any, limit: int = 6) -> str:
    items = [repr(v) for v in values]
    return ", ".join(items[:limit]) + (", ..." if len(items) > limit else "")


class per_run(cached_property[Any]):  # a decorator, named like cached_property
    """A cached property of the current run of instances, forgotten when the next run begins."""


@dataclass
class Dataset:
    """A dataset's declarations, and its instances one run at a time.

    The rules are called once per run of instances (see `begin`): a large file is checked a few
    hundred kilobytes of instances at a time (stream.py), a small one in one run. Rules
    about single instances and score objects report as they go, using `offset` for the index of
    the run's first instance; rules about the whole dataset (duplicate ids, a field missing from
    some instances, declarations alone) keep what they need in `state` and report on the last
    run.
    """

    doc: Any  # what findings point into: a JsonDocument
    tolerance: float
    data: dict[str, Any]  # the top-level object; its instances are those of the current run
    instances: list[dict[str, Any]] = field(default_factory=list)
    offset: int = 0
    last: bool = True
    state: dict[str, Any] = field(default_factory=dict)

    def begin(self, instances: list[dict[str, Any]], offset: int, last: bool) -> None:
        """Make the next run of instances current."""
        self.instances, self.offset, self.last = instances, offset, last
        for name, attribute in vars(type(self)).items():
            if isinstance(attribute, per_run):
                self.__dict__.pop(name, None)

    def carried(self, key: str, factory: Any) -> Any:
        """What a rule carries from run to run, made by factory() the first time."""
        if key not in self.state:
            self.state[key] = factory()
        return self.state[key]

    def indexed(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(index in the dataset, instance) of the current run."""
        return enumerate(self.instances, self.offset)

    @property
    def declarations(self) -> list[dict[str, Any]]:
        return self.data["annotations"]  # type: ignore[no-any-return]

    @cached_property
    def metrics(self) -> dict[str, dict[str, Any]]:
        """metric -> declaration; the last of two with one name, as upstream's evaluation reads."""
        return {d["metric"]: d for d in self.declarations}

    @per_run
    def columns(self) -> list[Column]:
        """The score objects of each declared metric (see textjudge_columns)."""
        return columns(self.metrics, self.instances, self.offset)

    def scores(self, screen: Screen) -> Iterator[tuple[int, str, dict[str, Any], dict[str, Any]]]:
        """(instance index, metric, declaration, score object) of the declared metrics' score
        objects that the screen keeps: those where a rule may find something."""
        return kept(self.columns, screen)

    @per_run
    def texts(self) -> list[Any]:
        """Each instance's `instance`: its text or its fields."""
        return list(map(itemgetter("instance"), self.instances))

    @per_run
    def text_types(self) -> set[type]:
        return set(map(type, self.texts))

    @per_run
    def fields(self) -> set[str]:
        """The template variables of the run's instances, together."""
        if self.text_types == {dict}:
            return set(chain.from_iterable(self.texts))
        return set().union(*map(fields_of, self.texts))

    @cached_property
    def templates(self) -> list[tuple[int, str, TemplateCheck]]:
        """(declaration index, template field, check) of every non-empty template, parsed once."""
        return [
            (k, name, inspect_template(decl[name]))
            for k, decl in enumerate(self.declarations)
            for name in template_fields(decl)
            if isinstance(decl[name], str) and decl[name]
        ]


def _sp(i: int, metric: str, *rest: object) -> str:
    return pointer("instances", i, "annotations", metric, *rest)


def check(unit: Unit, ctx: Context) -> None:
    path = unit.files[0]
    # A Git LFS pointer never gets here: the core reports it and leaves it out (coverage.py).
    raw = read_bytes(path, ctx.config.max_document_bytes)
    big = isinstance(raw, bytes) and len(raw) >= stream.STREAM_FROM
    if big and stream.check_in_runs(path, raw, ctx, Dataset, rules_of("textjudge")):  # type: ignore[arg-type]
        return
    doc, problems = document(path, raw)
    ctx.problems(path, problems, doc)
    if not isinstance(doc, JsonDocument):
        return
    errors = schema_errors(SCHEMA, doc.data)
    for code, ptr, message in errors:
        ctx.add(code, doc, ptr, message)
    if not usable(doc.data, errors):
        return
    ds = Dataset(doc, ctx.config.tolerance, doc.data)
    ds.begin(doc.data["instances"], 0, last=True)
    for r in rules_of("textjudge"):
        ctx.run(r, ds)


# --- declarations and instances ----------------------------------------------------------------


@rule(
    "textjudge/duplicate-metric",
    "each metric is declared once",
    why="Scores are keyed by metric name, so two declarations of one name describe the same "
    "scores twice, usually with different scales or prompts. Upstream's evaluation silently "
    "uses the last one.",
    bad='"annotations": [{"metric": "fluency", "worst": 1, "best": 5, ...}, '
    '{"metric": "fluency", "worst": 1, "best": 7, ...}]',
    good='"annotations": [{"metric": "fluency", ...}, {"metric": "grammaticality", ...}]',
)
def duplicate_metric(ds: Dataset) -> Iterator[Hit]:
    if not ds.last:  # about the declarations: once
        return
    seen: dict[str, int] = {}
    for k, decl in enumerate(ds.declarations):
        name = decl["metric"]
        if name in seen:
            yield (
                ds.doc,
                pointer("annotations", k, "metric"),
                (f"metric {name!r} is already declared at /annotations/{seen[name]}"),
            )
        else:
            seen[name] = k


@rule(
    "textjudge/undeclared-metric",
    "every metric an instance is scored on is declared",
    why="A metric without a declaration has no category, scale or labels: its scores cannot "
    "be aggregated, checked or evaluated, and upstream's evaluation never prompts for it. It is "
    "usually a misspelt metric name.",
    bad='"annotations": [{"metric": "fluency", ...}]; instance: "annotations": {"Fluency": {...}}',
    good='instance: "annotations": {"fluency": {...}}',
)
def undeclared_metric(ds: Dataset) -> Iterator[Hit]:
    metrics = ds.metrics
    if metrics.keys() >= set(chain.from_iterable(map(itemgetter("annotations"), ds.instances))):
        return
    folded = {m.casefold().strip(): m for m in metrics}
    for i, inst in ds.indexed():
        for name in inst["annotations"]:
            if name not in metrics:
                near = folded.get(name.casefold().strip())
                hint = f"; did you mean {near!r}?" if near else f" (declared: {_names(metrics)})"
                yield ds.doc, _sp(i, name), f"metric {name!r} is not declared{hint}"


@rule(
    "textjudge/missing-metric",
    "every instance has scores for every declared metric",
    why="The format keys every instance's `annotations` by the declared metrics. An instance "
    "without a metric's scores is left out of that metric's evaluation, and upstream's "
    "evaluation script stops with a KeyError when it stores a model's answer for it.",
    bad='"annotations": [{"metric": "fluency", ...}, {"metric": "adequacy", ...}]; '
    'instance: "annotations": {"fluency": {...}}',
    good='instance: "annotations": {"fluency": {...}, "adequacy": {...}}',
)
def missing_metric(ds: Dataset) -> Iterator[Hit]:
    if all(len(col) == len(ds.instances) for col in ds.columns):
        return
    metrics = list(ds.metrics)
    for i, inst in ds.indexed():
        scored = inst["annotations"]
        missing = [m for m in metrics if m not in scored]
        if missing:
            yield (
                ds.doc,
                pointer("instances", i, "annotations"),
                (f"no scores for declared metric{'s' if len(missing) > 1 else ''} {_names(missing)}"),
            )


@rule(
    "textjudge/duplicate-id",
    "instance ids are unique",
    why="Results, few-shot exclusions (`fsp_examples_id`) and model answers are matched to "
    "instances by id; with two instances of one id, one of them is matched to the other's "
    "answers or dropped.",
    bad='{"id": 7, ...}, {"id": 7, ...}',
    good='{"id": 7, ...}, {"id": 8, ...}',
)
def duplicate_id(ds: Dataset) -> Iterator[Hit]:
    # id -> index of its first instance (12 and "12" are two keys, as in upstream's evaluation)
    seen: dict[Any, int] = ds.carried("duplicate-id", dict)
    ids = list(map(itemgetter("id"), ds.instances))
    here = dict(zip(ids, range(ds.offset, ds.offset + len(ids)), strict=True))
    if len(here) == len(ids) and seen.keys().isdisjoint(here):
        seen.update(here)
        return
    for i, ident in enumerate(ids, ds.offset):
        if ident in seen:
            yield ds.doc, pointer("instances", i, "id"), f"id {ident!r} is already used by /instances/{seen[ident]}"
        else:
            seen[ident] = i


@rule(
    "textjudge/fsp-example-id",
    "fsp_examples_id names existing instances",
    why="`fsp_examples_id` lists the instances shown as worked examples in `prompt_fsp`; they "
    "are left out when the few-shot prompt is evaluated. An id that matches no instance leaves "
    'an example in the test set. Ids are compared with their type: 12 and "12" differ, as '
    "they do in upstream's evaluation.",
    bad='"fsp_examples_id": [12, 99]  (no instance has id 99)',
    good='"fsp_examples_id": [12, 40]',
)
def fsp_example_id(ds: Dataset) -> Iterator[Hit]:
    wanted = [(k, decl["fsp_examples_id"]) for k, decl in enumerate(ds.declarations) if decl.get("fsp_examples_id")]
    if not wanted:
        return
    ids: set[Any] = ds.carried("fsp-example-id", set)
    ids.update(map(itemgetter("id"), ds.instances))
    if not ds.last:
        return
    # Ids are integers and strings, and a string never equals a number: 12 and "12" are two ids.
    for k, examples in wanted:
        for j, ident in enumerate(examples):
            if ident in ids:
                continue
            hint = ""
            if isinstance(ident, str) and re.fullmatch(r"-?[0-9]+", ident) and int(ident) in ids:
                hint = f" (an instance has the number {int(ident)} as its id)"
            elif not isinstance(ident, str) and str(ident) in ids:
                hint = f" (an instance has the string {str(ident)!r} as its id)"
            yield (
                ds.doc,
                pointer("annotations", k, "fsp_examples_id", j),
                (f"{ident!r} is not the id of an instance{hint}"),
            )


@rule(
    "textjudge/instance-field-type",
    "object instances hold strings (or null) in their fields",
    severity="warning",
    why="Each field of an object instance is a template variable. Upstream's evaluation code "
    "fills templates by text replacement over every field: it turns null, false, 0 and empty "
    'lists into "", and stops with a TypeError on any other value that is not a string, even '
    "one the template does not use. `humanjudge render` shows such values as Python prints "
    "them. One finding per field, at its first occurrence.",
    bad='"instance": {"question": "...", "turn": 1, "conversation": [{"role": "user", ...}]}',
    good='"instance": {"question": "...", "turn": "1", "conversation": "user: ..."}',
)
def instance_field_type(ds: Dataset) -> Iterator[Hit]:
    # field -> (index of its first instance with another type, the types); field -> count
    first: dict[str, tuple[int, set[str]]]
    counts: Counter[str]
    first, counts = ds.carried("instance-field-type", lambda: ({}, Counter()))
    kinds = ds.text_types
    plain = kinds <= {str} or (
        kinds == {dict} and set(map(type, chain.from_iterable(map(dict.values, ds.texts)))) <= {str, type(None)}
    )
    for i, value in [] if plain else enumerate(ds.texts, ds.offset):
        if not isinstance(value, dict):
            continue
        for name, v in value.items():
            if v is None or isinstance(v, str):
                continue
            counts[name] += 1
            kind = _json_type(v)
            if name in first:
                first[name][1].add(kind)
            else:
                first[name] = (i, {kind})
    if not ds.last:
        return
    for name, (i, types) in first.items():
        n = counts[name]
        yield (
            ds.doc,
            pointer("instances", i, "instance", name),
            (
                f"field {name!r} is {' or '.join(sorted(types))} in {n} instance{'s' if n > 1 else ''}; "
                "upstream's evaluation code renders only strings and null"
            ),
        )


def _json_type(v: Any) -> str:
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, list):
        return "a list"
    return "an object"


# --- scores ----------------------------------------------------------------------------------


def _score_type_suspects(col: Column) -> list[int]:
    if col.category == "categorical":
        return union(col.unlabelled, col.having("mean_human"), col.majority_of(NUMBER_TYPES))
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
)
def score_type(ds: Dataset) -> Iterator[Hit]:
    for i, m, decl, s in ds.scores(_score_type_suspects):
        scores = s["individual_human_scores"]
        category = decl["category"]
        majority = s.get("majority_human")
        if category == "categorical":
            for j, x in enumerate(scores):
                if _num(x):
                    yield (
                        ds.doc,
                        _sp(i, m, "individual_human_scores", j),
                        (f"{x!r} is a number; the scores of categorical metric {m!r} are labels from its labels_list"),
                    )
            if "mean_human" in s:
                yield (
                    ds.doc,
                    _sp(i, m, "mean_human"),
                    (f"categorical metric {m!r} is aggregated by majority vote; a mean_human does not belong to it"),
                )
            if _num(majority):
                yield (
                    ds.doc,
                    _sp(i, m, "majority_human"),
                    (f"{majority!r} is a number; the majority of categorical metric {m!r} is a label"),
                )
        else:
            for j, x in enumerate(scores):
                if isinstance(x, str):
                    yield (
                        ds.doc,
                        _sp(i, m, "individual_human_scores", j),
                        (f"{x!r} is a string; the scores of {category} metric {m!r} are numbers"),
                    )
            if isinstance(majority, str):
                yield (
                    ds.doc,
                    _sp(i, m, "majority_human"),
                    (f"{majority!r} is a label; the majority of {category} metric {m!r} is a number (or is left out)"),
                )


def _missing_aggregate_suspects(col: Column) -> list[int]:
    if col.category == "categorical":
        return positions(map(is_, col.majorities, repeat(None)))
    return col.lacking("mean_human")


@rule(
    "textjudge/missing-aggregate",
    "each score has the aggregate its category needs",
    why="Continuous and graded metrics are evaluated against `mean_human`, categorical ones "
    "against a label in `majority_human`. Without it the instance cannot be evaluated on that "
    "metric. The schema requires one of the two; which one depends on the declaration.",
    bad='{"metric": "safety", "category": "categorical", ...}; '
    '"safety": {"mean_human": 0.5, "individual_human_scores": []}',
    good='"safety": {"majority_human": "No", "individual_human_scores": []}',
)
def missing_aggregate(ds: Dataset) -> Iterator[Hit]:
    for i, m, decl, s in ds.scores(_missing_aggregate_suspects):
        if decl["category"] == "categorical":
            if s.get("majority_human") is None:
                yield (
                    ds.doc,
                    _sp(i, m),
                    (f"no majority_human label: categorical metric {m!r} is aggregated by majority vote"),
                )
        elif "mean_human" not in s:
            yield ds.doc, _sp(i, m), (f"no mean_human: {decl['category']} metric {m!r} is aggregated by the mean")


def _graded_not_integer_suspects(col: Column) -> list[int]:
    if col.category != "graded":
        return []
    return union(col.any_of(frozenset({float})), col.majority_of(frozenset({float})))


@rule(
    "textjudge/graded-not-integer",
    "the scores of a graded metric are whole numbers",
    why="A graded scale has integer steps (1, 2, ... 5); a score of 3.5 on it was averaged or "
    "rescaled somewhere. Means are of course not whole numbers. A scale with fractional steps "
    "is `continuous`.",
    bad='{"category": "graded", "worst": 1, "best": 5}; "individual_human_scores": [3, 3.5]',
    good='"individual_human_scores": [3, 4]',
)
def graded_not_integer(ds: Dataset) -> Iterator[Hit]:
    for i, m, decl, s in ds.scores(_graded_not_integer_suspects):
        if decl["category"] != "graded":
            continue
        scores = s["individual_human_scores"]
        for j, x in enumerate(scores):
            if isinstance(x, float) and not x.is_integer():
                yield (
                    ds.doc,
                    _sp(i, m, "individual_human_scores", j),
                    (f"{x!r} is not a whole number; metric {m!r} is graded"),
                )
        majority = s.get("majority_human")
        if isinstance(majority, float) and not majority.is_integer() and not any(map(_num, scores)):
            yield ds.doc, _sp(i, m, "majority_human"), (f"{majority!r} is not a whole number; metric {m!r} is graded")


def _score_range_suspects(col: Column) -> list[int]:
    if col.category not in NUMERIC:
        return []
    lo, hi = sorted((col.decl["worst"], col.decl["best"]))
    # aggregates are checked where there are no numbers to check instead
    return union(col.outside(lo, hi), col.empty)


@rule(
    "textjudge/score-range",
    "numeric scores lie within [worst, best]",
    why="`worst` and `best` are the ends of the scale (in either order); a score outside them "
    "was given on another scale or mistyped. Aggregates are checked against the scale only "
    "when there are no individual scores to recompute them from.",
    bad='{"worst": 1, "best": 5}; "individual_human_scores": [4, 6]',
    good='"individual_human_scores": [4, 5]',
)
def score_range(ds: Dataset) -> Iterator[Hit]:
    for i, m, decl, s in ds.scores(_score_range_suspects):
        if decl["category"] not in NUMERIC:
            continue
        lo, hi = sorted((decl["worst"], decl["best"]))
        scores = s["individual_human_scores"]
        numeric = False
        for j, x in enumerate(scores):
            if _num(x):
                numeric = True
                if not lo <= x <= hi:
                    yield (
                        ds.doc,
                        _sp(i, m, "individual_human_scores", j),
                        (f"{x!r} is outside the scale [{_fmt(lo)}, {_fmt(hi)}] of metric {m!r}"),
                    )
        if numeric:
            continue
        for key in ("mean_human", "majority_human"):
            x = s.get(key)
            if _num(x) and not lo <= x <= hi:
                yield (
                    ds.doc,
                    _sp(i, m, key),
                    (f"{key} {x!r} is outside the scale [{_fmt(lo)}, {_fmt(hi)}] of metric {m!r}"),
                )


def _label_suspects(col: Column) -> list[int]:
    if col.category != "categorical":
        return []
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
)
def unknown_label(ds: Dataset) -> Iterator[Hit]:
    for i, m, decl, s in ds.scores(_label_suspects):
        if decl["category"] != "categorical":
            continue
        labels, folded = _label_map(decl)
        strings = False
        for j, x in enumerate(s["individual_human_scores"]):
            if isinstance(x, str):
                strings = True
                if x not in labels and x.casefold() not in folded:
                    yield (
                        ds.doc,
                        _sp(i, m, "individual_human_scores", j),
                        (f"{x!r} is not a label of metric {m!r} ({_names(decl['labels_list'])})"),
                    )
        majority = s.get("majority_human")
        if not strings and isinstance(majority, str) and majority not in labels and majority.casefold() not in folded:
            yield (
                ds.doc,
                _sp(i, m, "majority_human"),
                (f"{majority!r} is not a label of metric {m!r} ({_names(decl['labels_list'])})"),
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
)
def label_case(ds: Dataset) -> Iterator[Hit]:
    for i, m, decl, s in ds.scores(_label_suspects):
        if decl["category"] != "categorical":
            continue
        labels, folded = _label_map(decl)
        values: list[tuple[tuple[object, ...], Any]] = [
            (("individual_human_scores", j), x) for j, x in enumerate(s["individual_human_scores"])
        ]
        values.append((("majority_human",), s.get("majority_human")))
        for rest, x in values:
            if isinstance(x, str) and x not in labels and x.casefold() in folded:
                yield ds.doc, _sp(i, m, *rest), (f"{x!r} differs from the label {folded[x.casefold()]!r} only in case")


def _mean_suspects(col: Column) -> list[int]:
    return col.inexact_means() if col.category in NUMERIC else []


@rule(
    "textjudge/mean-value",
    "mean_human is the mean of the individual scores",
    why="mean_human is derived data: it must be the arithmetic mean of individual_human_scores, "
    "exactly, after rounding to the stored number of decimals (datasets round to 2 or 3), or "
    "within the configured `tolerance`. A difference means the scores or the mean were changed "
    "after aggregation. `humanjudge aggregate DATASET.json` recomputes it.",
    bad='"mean_human": 2.88, "individual_human_scores": [2, 6, 3]',
    good='"mean_human": 3.67, "individual_human_scores": [2, 6, 3]',
)
def mean_value(ds: Dataset) -> Iterator[Hit]:
    for i, m, decl, s in ds.scores(_mean_suspects):
        exact = _mean_fix(s, decl, ds.tolerance)
        if exact is not None:
            yield (
                ds.doc,
                _sp(i, m, "mean_human"),
                (
                    f"mean_human is {_fmt(s['mean_human'])}, the mean of "
                    f"{_list(s['individual_human_scores'])} is {_fmt(exact)}"
                ),
            )


def _majority_suspects(col: Column) -> list[int]:
    if col.category == "categorical":
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
)
def majority_value(ds: Dataset) -> Iterator[Hit]:
    for i, m, decl, s in ds.scores(_majority_suspects):
        top = _majority_fix(s, decl)
        if top is None:
            continue
        winners, count = top
        n = len(s["individual_human_scores"])
        if len(winners) == 1:
            most = f"the most frequent score is {_fmt(winners[0])} ({count} of {n})"
        else:
            most = f"the most frequent scores are {_names(winners)} ({count} each of {n})"
        yield ds.doc, _sp(i, m, "majority_human"), f"majority_human is {_fmt(s['majority_human'])}, but {most}"


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
)
def empty_scores(ds: Dataset) -> Iterator[Hit]:
    filled: Counter[str]
    empty: dict[str, list[int]]
    filled, empty = ds.carried("empty-scores", lambda: (Counter(), {}))
    for col in ds.columns:
        filled[col.metric] += len(col) - len(col.empty)
        if col.empty:
            empty.setdefault(col.metric, []).extend(col.rows[k] for k in col.empty)
    if not ds.last:
        return
    for m, where in empty.items():
        n = filled[m]
        if not n:
            continue
        others = f"{n} other instance{'s have' if n > 1 else ' has'}"
        for i in where:
            yield (
                ds.doc,
                _sp(i, m, "individual_human_scores"),
                (f"no individual scores for metric {m!r}, which {others}: the aggregate cannot be checked"),
            )


# --- templates -------------------------------------------------------------------------------


@rule(
    "textjudge/template-syntax",
    "every prompt template parses",
    why="`prompt`, `prompt_fsp` and `prompt_paraphrase_N` are Jinja templates. One that does "
    "not parse cannot be rendered, and a stray `{{` or `{%` in the text is usually meant "
    "literally: write it as {{ '{{' }} or inside {% raw %}.",
    bad='"prompt": "Rate this sentence: {{ instance }"',
    good='"prompt": "Rate this sentence: {{ instance }}"',
)
def template_syntax(ds: Dataset) -> Iterator[Hit]:
    for k, name, check in ds.templates if ds.last else ():
        if check.syntax_error is not None:
            yield (
                ds.doc,
                pointer("annotations", k, name),
                (f"{name} is not a valid Jinja template: {check.syntax_error}"),
            )


@rule(
    "textjudge/template-unsafe",
    "templates stay within the safe subset of Jinja",
    why="Templates come with datasets, from pull requests: they are untrusted. A template may "
    "use {{ field }} placeholders, {% if %}, comparisons, attribute or item access by literal "
    "name, and a few filters (upper, lower, trim, default, ...). Anything else is refused, "
    "found by reading the parsed template, never by running it: names and attributes starting "
    "with `_` (the way to Python internals), Jinja's globals (range, lipsum, cycler, joiner, "
    "namespace, dict), `self` and `config`, calls, arithmetic (`'a' * 10**9`), loops, and "
    "filters such as attr and format. `humanjudge render` refuses such templates.",
    bad='"prompt": "{{ \'\'.__class__.__mro__[1].__subclasses__() }} {{ instance }}"',
    good='"prompt": "Rate this sentence: {{ instance }}"',
)
def template_unsafe(ds: Dataset) -> Iterator[Hit]:
    for k, name, check in ds.templates if ds.last else ():
        if check.unsafe:
            yield ds.doc, pointer("annotations", k, name), f"{name} {describe_unsafe(check)}"


def _render_set(ds: Dataset, k: int, name: str) -> list[int]:
    """Positions in the current run of the instances a template is rendered with: all, except
    the few-shot examples for prompt_fsp."""
    if name != "prompt_fsp":
        return list(range(len(ds.instances)))
    excluded = set(ds.declarations[k].get("fsp_examples_id") or ())
    return [j for j, inst in enumerate(ds.instances) if inst["id"] not in excluded]


def _fields_everywhere(ds: Dataset, names: frozenset[str]) -> bool:
    """Whether every instance gives a template these variables (found without a loop)."""
    kinds = ds.text_types
    if kinds == {dict}:
        return all(map(ge, map(dict.keys, ds.texts), repeat(names)))
    return kinds == {str} and names <= {"instance"}


class _Rendered:
    """What template-variable keeps about one template from run to run."""

    def __init__(self) -> None:
        self.targets = 0  # instances it is rendered with
        self.missing: dict[str, tuple[int, int]] = {}  # variable -> (instances lacking it, the first)
        self.fields: set[str] = set()  # every field of those instances


@rule(
    "textjudge/template-variable",
    "every variable a template uses exists in every instance",
    why="A template is rendered with each instance's fields as variables (`instance` for a "
    "string instance). A variable that an instance lacks is an error when rendering here; "
    "upstream's text replacement leaves it in the prompt as `{{ target }}`, and the model never "
    "sees the text. That is how the wmt-23 datasets' prompt_paraphrase_2 asked for "
    "{{ target }} while the instances have source, reference and translation. For prompt_fsp "
    "the few-shot examples are left out. A variable used only under `default` or an `is "
    "defined` test is optional.",
    bad='"prompt_paraphrase_2": "Translation: {{ target }}"; "instance": {"source": "...", '
    '"reference": "...", "translation": "..."}',
    good='"prompt_paraphrase_2": "Translation: {{ translation }}"',
)
def template_variable(ds: Dataset) -> Iterator[Hit]:
    checks = ds.carried(
        "template-variable",
        lambda: [(k, name, check, _Rendered()) for k, name, check in ds.templates if check.usable and check.required],
    )
    if not checks:
        return
    everywhere = _fields_everywhere(ds, frozenset().union(*(c.required for _, _, c, _ in checks)))
    field_sets: list[frozenset[str]] | None = None
    for k, name, check, seen in checks:
        targets = _render_set(ds, k, name)
        seen.targets += len(targets)
        if everywhere and len(targets) == len(ds.instances):
            seen.fields |= ds.fields
            continue
        if field_sets is None:
            field_sets = [fields_of(text) for text in ds.texts]
        for j in targets:
            seen.fields |= field_sets[j]
            for var in check.required - field_sets[j]:
                n, first = seen.missing.get(var, (0, ds.offset + j))
                seen.missing[var] = (n + 1, first)
    if not ds.last:
        return
    for k, name, _, seen in checks:
        if not seen.targets or not seen.missing:
            continue
        parts = []
        for var in sorted(seen.missing):
            n, first = seen.missing[var]
            if n == seen.targets:
                parts.append(f"{var!r}, which no instance has")
            else:
                parts.append(f"{var!r}, which {n} of {seen.targets} instances lack (first /instances/{first})")
        have = seen.fields
        yield (
            ds.doc,
            pointer("annotations", k, name),
            (f"{name} uses {'; '.join(parts)} (instance fields: {', '.join(sorted(have)) or 'none'})"),
        )


@rule(
    "textjudge/template-constant",
    "every template uses the instance",
    why="A template without any variable gives every instance the same prompt: the model never "
    "sees what it is asked to judge. Upstream's evaluation stops on it with 'Prompt was "
    "incorrectly processed'.",
    bad='"prompt": "Is the following sentence grammatical? Answer yes or no."',
    good='"prompt": "Is the following sentence grammatical? Answer yes or no.\\n{{ instance }}"',
)
def template_constant(ds: Dataset) -> Iterator[Hit]:
    for k, name, check in ds.templates if ds.last else ():
        if check.usable and not check.variables:
            yield (
                ds.doc,
                pointer("annotations", k, name),
                (f"{name} uses no instance field, so every instance gets the same prompt"),
            )


@rule(
    "textjudge/template-not-plain",
    "templates are plain text with {{ name }} placeholders",
    severity="warning",
    why="Upstream's evaluation code does not run Jinja: it replaces the exact text "
    "`{{ field }}` (one space inside each brace pair) by the field's value. A template using "
    "anything else (`{{instance}}`, filters, {% if %}, comments, whitespace control) renders "
    "differently there than in Jinja, and the difference is silent.",
    bad='"prompt": "Judge the answer.\\n\\n{{instance}}"',
    good='"prompt": "Judge the answer.\\n\\n{{ instance }}"',
)
def template_not_plain(ds: Dataset) -> Iterator[Hit]:
    for k, name, check in ds.templates if ds.last else ():
        if check.usable and check.plain_problem is not None:
            yield (
                ds.doc,
                pointer("annotations", k, name),
                (f"{name} renders differently in upstream's evaluation code: {check.plain_problem}"),
            )
