"""A run of TextJudge instances turned into the columns of its judgments in a few passes of
built-in functions (map, chain, repeat: loops in C), for the shape nearly every file has: every
instance an object with an `annotations` object and an id that is a string or an integer, every
score object an object with a non-empty list of scalar scores, and the same aggregates stored in
every score object. Anything else returns None, and the view reads the run instance by instance
(judgments.py), which handles every shape; tests/test_textjudge_flatten.py asserts both give the
same rows.

Per score list, the loop instance by instance costs a few Python calls (five list.extend, a type
check, a pointer's prefix); on 200,000 score lists that was a third of the view's time.
"""

from __future__ import annotations

from itertools import chain, compress, repeat
from operator import add, itemgetter
from typing import Any, NamedTuple

import orjson

from ...finding import escape_token
from ...judgments.view import Column, Counting, JudgmentCounts, Repeated, positions

_ANNOTATIONS = itemgetter("annotations")
_IDS = frozenset({int, str})
_DICT = frozenset({dict})
_LIST = frozenset({list})
SCALARS = frozenset({int, float, str, bool, type(None)})  # what a score may be, schema or not
AGGREGATES = ("mean_human", "majority_human")  # what a score object stores beside its scores
_ABSENT = object()

Columns = dict[str, list[Any]]
Given = dict[str, list[Any] | Column]  # columns of which some are given as their runs


class _Shape(NamedTuple):
    """A run of the usual shape taken apart: per instance its number of score objects; per score
    object its instance's id (the item), its metric, the object, its number of scores and its
    list of them."""

    per_instance: list[int]
    items: list[Any]
    metrics: list[str]
    objs: list[dict[str, Any]]
    lengths: list[int]
    lists: list[list[Any]]


def _shape(instances: list[Any]) -> _Shape | None:
    """The run taken apart where it is of the usual shape, else None."""
    if not instances or set(map(type, instances)) != _DICT:
        return None
    try:
        annotations = list(map(_ANNOTATIONS, instances))
    except KeyError:
        return None
    ids = list(map(dict.get, instances, repeat("id")))
    if set(map(type, annotations)) != _DICT or not set(map(type, ids)) <= _IDS:
        return None
    per_instance = list(map(len, annotations))
    metrics = list(chain.from_iterable(annotations))
    objs = list(chain.from_iterable(map(dict.values, annotations)))
    if not objs:
        return _Shape(per_instance, [], [], [], [], [])
    if set(map(type, objs)) != _DICT:
        return None
    lists: list[Any] = list(map(dict.get, objs, repeat("individual_human_scores")))
    if set(map(type, lists)) != _LIST:
        return None
    lengths = list(map(len, lists))
    if 0 in lengths or not _scalars(lists):
        return None
    items = list(chain.from_iterable(map(repeat, ids, per_instance)))
    return _Shape(per_instance, items, metrics, objs, lengths, lists)


def _scalars(lists: list[list[Any]]) -> bool:
    """Whether every score of the lists is a scalar. The lists written as JSON have one `[` each
    (and the outer one) and no `{` where no score is an array or an object: checked on their
    bytes, in C, at half the cost of a look at each score's type. A text holding a bracket
    fails the count, and is looked at score by score."""
    try:
        text = orjson.dumps(lists)
    except orjson.JSONEncodeError:  # what orjson does not write (an integer beyond 64 bits)
        text = b"{"
    if text.count(b"[") == len(lists) + 1 and b"{" not in text:
        return True
    return SCALARS.issuperset(map(type, chain.from_iterable(lists)))


def flatten(instances: list[Any], offset: int, pointers: bool = True) -> tuple[Columns, Columns] | None:
    """The individual judgments and the stored aggregates of a run (item, rater, question,
    value, pointer; the aggregates without rater; the individual judgments without pointer when
    `pointers` is False), or None where the run is of another shape."""
    shape = _shape(instances)
    if shape is None:
        return None
    per_instance, obj_items, metrics, objs, lengths, lists = shape
    if not objs:
        return {}, {}
    prefixes = _prefixes(metrics, per_instance, offset, len(instances))
    bases = map(add, prefixes, repeat("individual_human_scores/"))
    individual: Columns = {
        "item": list(chain.from_iterable(map(repeat, obj_items, lengths))),
        "rater": list(chain.from_iterable(map(range, lengths))),
        "question": list(chain.from_iterable(map(repeat, metrics, lengths))),
        "value": list(chain.from_iterable(lists)),
    }
    if pointers:
        places = chain.from_iterable(map(positions, lengths))
        individual["pointer"] = list(map(add, chain.from_iterable(map(repeat, bases, lengths)), places))
    return individual, _stored(objs, obj_items, metrics, prefixes)


def by_metric(instances: list[Any]) -> tuple[list[tuple[str, Given]], Columns] | None:
    """The individual judgments of a run metric by metric (item, rater, value: each metric's rows
    in file order, the metrics in the order they first come), and the stored aggregates as
    `flatten` gives them, all without pointers; None where the run is of another shape. For a
    pass that needs each question's rows but not the file's order across questions
    (`view.Needs`): the rows are made apart per metric here, in C, rather than made together
    and parted again row by row by the pass (an instance's scores change metric every few rows)."""
    shape = _shape(instances)
    if shape is None:
        return None
    _, obj_items, metrics, objs, lengths, lists = shape
    if not objs:
        return [], {}
    objects: dict[str, list[int]] = {}
    for k, metric in enumerate(metrics):  # a Python step per score object, not per score
        found = objects.get(metric)
        if found is None:
            objects[metric] = [k]
        else:
            found.append(k)
    out: list[tuple[str, Given]] = []
    for metric, ks in objects.items():
        sizes = list(map(lengths.__getitem__, ks))
        out.append(
            (
                metric,
                {  # the items, places and scores as their runs: the pass codes an object, not a row
                    "item": Repeated(list(map(obj_items.__getitem__, ks)), sizes),
                    "rater": Counting(sizes),
                    "value": list(chain.from_iterable(map(lists.__getitem__, ks))),
                },
            )
        )
    return out, _stored(objs, obj_items, metrics, None)


def tally(instances: list[Any]) -> JudgmentCounts | None:
    """What the individual judgments of a run of the usual shape add up to (view.JudgmentCounts), without
    making their rows; None where the run is of another shape."""
    shape = _shape(instances)
    if shape is None:
        return None
    counts: dict[str, int] = dict.fromkeys(shape.metrics, 0)
    widest: dict[str, int] = dict.fromkeys(counts, 0)
    for metric, n in zip(shape.metrics, shape.lengths, strict=True):
        counts[metric] += n
        if n > widest[metric]:
            widest[metric] = n
    return JudgmentCounts(counts, {(metric, r) for metric, n in widest.items() for r in range(n)})


def _prefixes(metrics: list[str], per_instance: list[int], offset: int, n: int) -> list[str]:
    """Each score object's pointer, ending in "/": its instance's index in the file, its metric."""
    obj_index = chain.from_iterable(map(repeat, range(offset, offset + n), per_instance))
    escaped = {m: escape_token(m) for m in set(metrics)}
    return list(map("/instances/{}/annotations/{}/".format, obj_index, map(escaped.__getitem__, metrics)))


def _stored(objs: list[Any], items: list[Any], metrics: list[str], prefixes: list[str] | None) -> Columns:
    """The aggregate rows, a score object's in the order of AGGREGATES: each one it stores that is
    a value (an object or an array there is a schema error, not a value); without their pointers
    where `prefixes` is None."""
    k = len(AGGREGATES)
    # an aggregate the object lacks is read as _ABSENT, which is no value (not a scalar)
    stored = (map(dict.get, objs, repeat(name), repeat(_ABSENT)) for name in AGGREGATES)
    value = list(chain.from_iterable(zip(*stored, strict=True)))
    kept = list(map(SCALARS.__contains__, map(type, value)))
    if not any(kept):
        return {}
    names = chain.from_iterable(repeat(AGGREGATES, len(objs)))
    columns = {
        "item": chain.from_iterable(map(repeat, items, repeat(k))),
        "question": chain.from_iterable(map(repeat, metrics, repeat(k))),
        "value": value,
    }
    if prefixes is not None:
        columns["pointer"] = map(add, chain.from_iterable(map(repeat, prefixes, repeat(k))), names)
    return {name: list(compress(column, kept)) for name, column in columns.items()}
