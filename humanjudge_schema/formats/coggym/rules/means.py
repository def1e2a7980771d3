"""Rules on human_data_mean.json: its keys name the trials' tags and options, every question that
needs a mean has one, and every value is the aggregate of the individual responses
(`aggregation`)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from itertools import compress, repeat
from operator import ne
from typing import Any

from ....engine import Hit
from ....finding import pointer
from ....numbers import fmt_number, same_value
from ....registry import rule
from ..aggregation import META_KEYS, aggregate_tag, aggregates, choice_counts, option_key, option_keys
from ..model import Experiment, Response
from ..parts import broken_of, keys_of
from .phrasing import short, some

# Query types whose mean a mean file must hold; the others' aggregates are optional.
_MEAN_REQUIRED = frozenset({"single-slider", "multi-choice", "multi-slider"})
# Query types whose mean is an object of one value per option.
_OPTION_MEANS = frozenset({"multi-choice", "multi-slider", "multi-select"})
# What a single-slider's answers may be for a mean to be computed: numbers, nulls, click lists.
_SLIDER_TYPES = frozenset({int, float, type(None), list})


def _mean_keys(q: dict[str, Any]) -> tuple[str, ...] | None:
    """The keys a mean object of this query may have, or None when the mean is a number/free.
    The query must have its options (see `_means_readable`)."""
    if q["type"] in _OPTION_MEANS:
        return option_keys(q["tag"], len(q["option"]))
    return None


@functools.lru_cache(maxsize=4096)
def _key_set(keys: tuple[str, ...]) -> frozenset[str]:
    return frozenset(keys)


def _means_readable(q: dict[str, Any]) -> bool:
    """Whether the query has what its mean keys are made from: options for the per-option types."""
    return q["type"] not in _OPTION_MEANS or "option" in q


def _stray_keys(value: dict[str, Any], keys: tuple[str, ...]) -> list[str]:
    """The keys of a mean object that are no option key, in the object's order."""
    known = _key_set(keys)
    return [k for k in keys_of(value) if k not in known]


@rule(
    "coggym/mean-key",
    "mean keys match the trial's tags and option positions",
    why="A mean file mirrors the ind file: tag -> number for sliders, tag -> {tag_K: value} for "
    "choices (K = option position, 1-based). Keys are matched against the known tags and option "
    "counts, never parsed, because tags can themselves end in _<digits>. A key that is no option "
    "key while an option key is missing is one misnumbered key: it is reported once, at the key, "
    "naming the missing ones, and its values are not compared until the keys match.",
    bad='"option": ["a", "b"]; "goal": {"goal_1": 0.5, "goal_3": 0.5}',
    good='"goal": {"goal_1": 0.5, "goal_2": 0.5}',
    scope="experiment",
)
def mean_key(exp: Experiment) -> Iterator[Hit]:
    if exp.mean is None or exp.trial_doc is None:
        return
    for sid, stimulus in exp.mean_data.items():
        if sid in META_KEYS or not isinstance(stimulus, dict):
            continue
        queries = exp.queries(sid)
        for tag, value in stimulus.items():
            q = queries.get(tag)
            if q is None or not _means_readable(q):
                continue  # coggym/unknown-tag, or the schema error that broke the options
            if _keys_match(q, value):
                continue
            for path, message in _key_problems(q, tag, value):
                yield exp.mean, pointer(sid, tag, *path), message


def _keys_match(q: dict[str, Any], value: Any) -> bool:
    """The usual case, settled by comparing key sets: an intact per-option mean whose keys are
    all option keys (and, for a multi-slider, every one of them)."""
    keys = _mean_keys(q)
    if keys is None or type(value) is not dict:
        return False
    known = _key_set(keys)
    return value.keys() == known or (q["type"] != "multi-slider" and value.keys() <= known)


def _key_problems(q: dict[str, Any], tag: str, value: Any) -> Iterator[tuple[tuple[str, ...], str]]:
    """(path below the tag, message) of what is wrong with the form or the keys of one stored mean."""
    keys = _mean_keys(q)
    if keys is None:
        if q["type"] == "single-slider" and not (value is None or isinstance(value, (int, float))):
            yield (), f"the mean of a single-slider is a number, got {short(value)}"
        return
    if not isinstance(value, dict):
        yield (), f"expected {{{keys[0] if keys else tag + '_1'}: ...}} per option, got {short(value)}"
        return
    missing = [k for k in keys if k not in value and k not in broken_of(value)] if q["type"] == "multi-slider" else []
    stray = _stray_keys(value, keys)
    note = f"; no mean for {some([repr(k) for k in missing])}" if missing else ""
    for key in stray:
        yield (key,), f"{key!r} is not {tag}_K for an option K in 1..{len(keys)}{note}"
    if not stray:
        for key in missing:
            yield (), f"no mean for {key!r}"


@rule(
    "coggym/mean-missing",
    "every slider and choice question with responses has a mean",
    why="For single-slider, multi-choice and multi-slider questions the mean file is the "
    "summary people use; a stimulus or tag left out of it is silently missing from analyses.",
    bad='ind: "trial_2": {"rating": [3, 4]}; mean: no "trial_2"',
    good='mean: "trial_2": {"rating": 3.5}',
    scope="experiment",
)
def mean_missing(exp: Experiment) -> Iterator[Hit]:
    if exp.mean is None:
        return
    absent: set[str] = set()
    for sid, tag, q, responses in exp.response_lists():
        if q["type"] not in _MEAN_REQUIRED or not responses:
            continue
        stored = exp.mean.data.get(sid)
        if stored is None and sid not in exp.mean.data:
            if sid not in absent:  # one finding per stimulus, not one per tag
                absent.add(sid)
                yield exp.mean, "", f"no mean for stimulus {sid!r}"
        elif isinstance(stored, dict) and tag not in stored:
            yield exp.mean, pointer(sid), f"no mean for tag {tag!r}"


def _choice_mismatches(
    q: dict[str, Any], stored: dict[str, Any], responses: list[Any], tol: float
) -> list[tuple[str, str]]:
    counts, total = choice_counts(responses)
    keys = {option_key(q["tag"], k + 1): k for k in range(len(q["option"]))}
    values = [v for key, v in stored.items() if key in keys and isinstance(v, (int, float))]
    # A proportion never exceeds 1; below that, a file whose every value is its count is a
    # count file (1 of 1, 0 of 3). Otherwise every value is read as a proportion.
    as_counts = any(v > 1 for v in values) or (
        bool(values) and all(same_value(v, counts[keys[key]], 0) for key, v in stored.items() if key in keys)
    )
    kind = "count" if as_counts else "proportion"
    out = []
    broken = broken_of(stored)
    for key, k in keys.items():
        want = counts[k] if as_counts else (counts[k] / total if total else None)
        if key in stored:
            if not same_value(stored[key], want, 0 if as_counts else tol):
                out.append((key, f"{kind} {fmt_number(stored[key])}, the responses give {fmt_number(want)}"))
        elif counts[k] and key not in broken:
            out.append(("", f"no {key!r}, but {counts[k]} of {total} answers chose option {k + 1}"))
    return out


def _option_mismatches(
    q: dict[str, Any], stored: dict[str, Any], exact: dict[str, Any], responses: list[Any], tol: float
) -> Iterator[tuple[str, str]]:
    """(key, message) of every stored per-option mean (multi-slider, multi-select) that is not
    what the responses give."""
    for key, want in exact.items():
        if key not in stored:
            continue
        ok = same_value(stored[key], want, tol)
        if not ok and q["type"] == "multi-select" and want is not None:
            rows = sum(isinstance(r, list) for r in responses)
            ok = same_value(stored[key], want * rows, 0)  # counts instead of proportions
        if not ok:
            yield key, f"{fmt_number(stored[key])}, the responses give {fmt_number(want)}"


@rule(
    "coggym/mean-value",
    "mean values are the aggregates of the individual responses",
    why="The mean file is derived data: every value must be what the ind file gives (a mean, or "
    "a choice proportion or count), exactly, after rounding to the stored number of decimals, "
    "or within the configured `tolerance`. A difference means one of the files is stale.",
    bad='ind: "rating": [2, 6, 3]; mean: "rating": 2.88',
    good='mean: "rating": 3.67',
    scope="experiment",
)
def mean_value(exp: Experiment) -> Iterator[Hit]:
    if exp.mean is None:
        return
    for (sid, tag, q, responses), known in _unsettled(exp):
        stored_entry = exp.mean_data.get(sid)
        if not isinstance(stored_entry, dict) or tag not in stored_entry or not _means_readable(q):
            continue
        stored = stored_entry[tag]
        base = pointer(sid, tag)
        if isinstance(stored, dict) and q["type"] in _OPTION_MEANS and _stray_keys(stored, _mean_keys(q) or ()):
            continue  # coggym/mean-key: values are compared once the keys name the options
        if q["type"] == "multi-choice":
            if isinstance(stored, dict):
                for key, message in _choice_mismatches(q, stored, responses, exp.tolerance):
                    yield exp.mean, base + (pointer(key) if key else ""), message
            continue
        if q["type"] == "single-slider" and not set(map(type, responses)) <= _SLIDER_TYPES:
            continue  # a malformed answer: response-shape reports it, no mean can be computed
        try:
            exact = aggregate_tag(q, responses) if known is _UNKNOWN else known
        except TypeError:  # a malformed value inside a click list or a label array: response-shape's
            continue
        if exact is None and q["type"] != "single-slider":
            continue
        if isinstance(exact, dict):
            if isinstance(stored, dict):  # else coggym/mean-key's
                for key, message in _option_mismatches(q, stored, exact, responses, exp.tolerance):
                    yield exp.mean, pointer(sid, tag, key), message
        elif (isinstance(stored, (int, float)) or stored is None) and not same_value(stored, exact, exp.tolerance):
            if exact is None:
                yield exp.mean, base, f"{fmt_number(stored)}, but every answer is null: the mean is null"
            else:
                yield exp.mean, base, f"{fmt_number(stored)}, the mean of the responses is {fmt_number(exact)}"


_ABSENT = object()
_UNKNOWN = object()


def _unsettled(exp: Experiment) -> list[tuple[Response, Any]]:
    """The tags, in the order of `responses`, whose stored mean is not equal to the aggregate of
    their responses, each with that aggregate (_UNKNOWN where the aggregates of its type could not
    be computed together: aggregation.aggregates). The others are right on any reading and need
    no look one by one (a true or false, which equals 1 or 0, is a schema error and never
    reaches a rule)."""
    data = exp.mean_data
    kept: dict[int, Any] = {}
    for kind in ("single-slider", "multi-choice", "multi-slider", "multi-select"):
        tags = exp.responses_of(kind)
        if not tags:
            continue
        sids, names, queries, arrays = zip(*tags, strict=True)
        exact = aggregates(kind, list(queries), list(arrays))
        if exact is None:
            kept.update(dict.fromkeys(map(id, tags), _UNKNOWN))
        else:
            differ = list(map(ne, _stored(data, sids, names), exact))
            kept.update(zip(map(id, compress(tags, differ)), compress(exact, differ), strict=True))
    return [(r, kept[id(r)]) for r in exp.responses() if id(r) in kept] if kept else []


def _stored(data: dict[str, Any], sids: tuple[str, ...], tags: tuple[str, ...]) -> list[Any]:
    """The stored mean of each (stimulus, tag); _ABSENT where there is none."""
    try:  # every stimulus of the mean file is an object: looked up in C
        return list(map(dict.get, map(data.__getitem__, sids), tags, repeat(_ABSENT)))
    except (KeyError, TypeError):
        return [
            e.get(tag, _ABSENT) if isinstance(e := data.get(sid), dict) else _ABSENT
            for sid, tag in zip(sids, tags, strict=True)
        ]
