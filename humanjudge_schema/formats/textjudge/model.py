"""What the TextJudge check gathers: a dataset's declarations (`DatasetFacts`), its instances one run at
a time (`Run`), and the facts about all of its instances that rules about the whole dataset need.

A large dataset is read a few hundred kilobytes of instances at a time (stream.py), a small one as
one run. Each run is shown to the rules about instances and scores, which report as they go, and
then the dataset gathers from it what it keeps (`DatasetFacts.gather`): the index of each id's first
instance and the instances that repeat one, the fields of unexpected types, the metrics' empty
score lists, and what every template was rendered with. The rules about the whole dataset run
once, after the last run, over those facts: no rule carries anything from run to run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, repeat
from operator import ge, itemgetter
from typing import Any

from ...finding import pointer
from .columns import MetricColumn, Screen, columns, kept
from .prompts import fields_of, template_fields
from .sandbox import TemplateCheck, inspect_template

Instance = dict[str, Any]
ScoreObject = tuple[int, str, dict[str, Any], dict[str, Any]]  # instance index, metric, declaration, object


def score_pointer(i: int, metric: str, *rest: object) -> str:
    """The pointer to instance i's score object of a metric, or into it."""
    return pointer("instances", i, "annotations", metric, *rest)


class Run:
    """A run of consecutive instances of a dataset: what the rules about instances and score
    objects look at. `offset` is the index in the dataset of the run's first instance."""

    def __init__(self, ds: DatasetFacts, instances: list[Instance], offset: int = 0):
        self.ds = ds
        self.doc = ds.doc
        self.instances = instances
        self.offset = offset

    def indexed(self) -> enumerate[Instance]:
        """(index in the dataset, instance) of every instance of the run."""
        return enumerate(self.instances, self.offset)

    @cached_property
    def columns(self) -> list[MetricColumn]:
        """The score objects of each declared metric (see columns.py)."""
        return columns(self.ds.metrics, self.instances, self.offset)

    def columns_of(self, categories: Collection[str]) -> list[MetricColumn]:
        """The columns of the metrics of these categories."""
        return [col for col in self.columns if col.category in categories]

    def scores(self, screen: Screen, categories: Collection[str]) -> Iterator[ScoreObject]:
        """(instance index, metric, declaration, score object) of the score objects of metrics of
        these categories that the screen keeps: those where a rule may find something."""
        return kept(self.columns_of(categories), screen)

    @cached_property
    def ids(self) -> list[Any]:
        return list(map(itemgetter("id"), self.instances))

    @cached_property
    def texts(self) -> list[Any]:
        """Each instance's `instance`: its text or its fields."""
        return list(map(itemgetter("instance"), self.instances))

    @cached_property
    def text_types(self) -> set[type]:
        return set(map(type, self.texts))

    @cached_property
    def fields(self) -> set[str]:
        """The template variables of the run's instances, together."""
        if self.text_types == {dict}:
            return set(chain.from_iterable(self.texts))
        if self.text_types == {str}:
            return {"instance"}
        return set().union(*map(fields_of, self.texts))

    @cached_property
    def field_sets(self) -> list[frozenset[str]]:
        """The template variables of each instance."""
        return list(map(fields_of, self.texts))

    def all_have(self, names: frozenset[str]) -> bool:
        """Whether every instance gives a template these variables (found without a loop)."""
        if self.text_types == {dict}:
            return all(map(ge, map(dict.keys, self.texts), repeat(names)))
        return self.text_types == {str} and names <= {"instance"}


@dataclass
class OddField:
    """An instance field holding something other than a string or null."""

    first: int  # the index of the first instance where it does
    types: set[str]  # what it holds, in words ("a number", "a list")
    count: int = 0  # in how many instances


@dataclass
class Rendering:
    """One template that needs variables, and what it was rendered with over the whole dataset."""

    index: int  # of its declaration
    name: str  # the template field: prompt, prompt_fsp, prompt_paraphrase_N
    check: TemplateCheck
    excluded: frozenset[Any] = frozenset()  # ids it is not rendered with: prompt_fsp's few-shot examples
    targets: int = 0  # instances it is rendered with
    missing: dict[str, tuple[int, int]] = field(default_factory=dict)  # variable -> (instances lacking it, the first)
    fields: set[str] = field(default_factory=set)  # every field of those instances

    def gather(self, run: Run) -> None:
        """Add a run."""
        targets = range(len(run.instances))
        if self.excluded:
            targets = [j for j, ident in enumerate(run.ids) if ident not in self.excluded]  # type: ignore[assignment]
        self.targets += len(targets)
        if len(targets) == len(run.instances) and run.all_have(self.check.required):
            self.fields |= run.fields
            return
        field_sets = run.field_sets
        for j in targets:
            self.fields |= field_sets[j]
            for var in self.check.required - field_sets[j]:
                n, first = self.missing.get(var, (0, run.offset + j))
                self.missing[var] = (n + 1, first)


@dataclass
class DatasetFacts:
    """A dataset's declarations, and the facts gathered from its instances run by run."""

    doc: Any  # what findings point into: a JsonDocument
    tolerance: float
    data: dict[str, Any]  # the top-level object (in a streamed dataset, without its instances)
    # id -> index of its first instance (12 and "12" are two ids, as in upstream's evaluation)
    first_index: dict[Any, int] = field(default_factory=dict)
    repeated_ids: list[tuple[int, Any]] = field(default_factory=list)  # (index, id) of a later instance
    odd_fields: dict[str, OddField] = field(default_factory=dict)
    filled: Counter[str] = field(default_factory=Counter)  # metric -> score objects with scores
    empty: dict[str, list[int]] = field(default_factory=dict)  # metric -> instances with none

    @property
    def declarations(self) -> list[dict[str, Any]]:
        return self.data["annotations"]  # type: ignore[no-any-return]

    @cached_property
    def metrics(self) -> dict[str, dict[str, Any]]:
        """metric -> declaration; the last of two with one name, as upstream's evaluation reads."""
        return {d["metric"]: d for d in self.declarations}

    @cached_property
    def templates(self) -> list[tuple[int, str, TemplateCheck]]:
        """(declaration index, template field, check) of every non-empty template, parsed once."""
        return [
            (k, name, inspect_template(decl[name]))
            for k, decl in enumerate(self.declarations)
            for name in template_fields(decl)
            if isinstance(decl[name], str) and decl[name]
        ]

    @cached_property
    def renderings(self) -> list[Rendering]:
        """The templates that need variables (and parse, and are safe)."""
        return [
            Rendering(k, name, check, _few_shot(self.declarations[k]) if name == "prompt_fsp" else frozenset())
            for k, name, check in self.templates
            if check.usable and check.required
        ]

    def gather(self, run: Run) -> None:
        """Keep what the rules about the whole dataset need to know of a run."""
        self._gather_ids(run)
        self._gather_field_types(run)
        for col in run.columns:
            self.filled[col.metric] += len(col) - len(col.empty)
            if col.empty:
                self.empty.setdefault(col.metric, []).extend(col.rows[k] for k in col.empty)
        for r in self.renderings:
            r.gather(run)

    def _gather_ids(self, run: Run) -> None:
        seen, ids = self.first_index, run.ids
        here = dict(zip(ids, range(run.offset, run.offset + len(ids)), strict=True))
        if len(here) == len(ids) and seen.keys().isdisjoint(here):
            seen.update(here)
            return
        for i, ident in enumerate(ids, run.offset):
            if ident in seen:
                self.repeated_ids.append((i, ident))
            else:
                seen[ident] = i

    def _gather_field_types(self, run: Run) -> None:
        kinds = run.text_types
        if kinds <= {str}:
            return
        if kinds == {dict} and set(map(type, chain.from_iterable(map(dict.values, run.texts)))) <= {str, type(None)}:
            return
        for i, text in enumerate(run.texts, run.offset):
            if not isinstance(text, dict):
                continue
            for name, v in text.items():
                if v is None or isinstance(v, str):
                    continue
                odd = self.odd_fields.get(name)
                if odd is None:
                    odd = self.odd_fields[name] = OddField(i, set())
                odd.types.add(json_type(v))
                odd.count += 1


def _few_shot(decl: dict[str, Any]) -> frozenset[Any]:
    """The ids of a declaration's few-shot examples, which prompt_fsp is not rendered with."""
    return frozenset(decl.get("fsp_examples_id") or ())


def json_type(v: Any) -> str:
    """What a JSON value is, in words."""
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, list):
        return "a list"
    return "an object"
