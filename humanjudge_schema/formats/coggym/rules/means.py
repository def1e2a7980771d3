"""Rules on human_data_mean.json: its keys name the trials' tags and options, every question that
needs a mean has one, and every value is the aggregate of the individual responses
(`aggregation`). A mean stored under keys that are not the format's is still compared where its
keys tell which option or tag each value is (`_Reading`); where they do not, coggym/not-checked
says that it was not compared, and why (`unread_means`)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
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
    "naming the missing ones. The values are still compared where the keys tell which option each "
    "stands for (every key an option's text, or one key per option, the n-th for option n, none "
    "naming another option); otherwise coggym/not-checked says that they were not.",
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
    "summary people use; a stimulus or tag left out of it is silently missing from analyses. A "
    "tag whose mean is stored under a misspelt name or as per-option keys beside it is not "
    "missing: coggym/misnamed-tag or coggym/flat-option-keys reports the keys, and its values are "
    "compared.",
    bad='ind: "trial_2": {"rating": [3, 4]}; mean: no "trial_2"',
    good='mean: "trial_2": {"rating": 3.5}',
    scope="experiment",
)
def mean_missing(exp: Experiment) -> Iterator[Hit]:
    if exp.mean is None:
        return
    absent: set[str] = set()
    # A tag stored under other keys (a misspelt name, per-option keys) is reported as such.
    explained = {stray.sid: stray.explained for stray in exp.stray if stray.doc is exp.mean}
    for sid, tag, q, responses in exp.response_lists():
        if q["type"] not in _MEAN_REQUIRED or not responses:
            continue
        stored = exp.mean.data.get(sid)
        if stored is None and sid not in exp.mean.data:
            if sid not in absent:  # one finding per stimulus, not one per tag
                absent.add(sid)
                yield exp.mean, "", f"no mean for stimulus {sid!r}"
        elif isinstance(stored, dict) and tag not in stored and tag not in explained.get(sid, ()):
            yield exp.mean, pointer(sid), f"no mean for tag {tag!r}"


def _choice_mismatches(
    q: dict[str, Any], stored: dict[str, Any], responses: list[Any], tol: float, keyed: bool = True
) -> list[tuple[str, str]]:
    """(key, message) of every stored choice mean that is not what the responses give; key "" for
    an option the responses chose that has no mean (named by its key, or by its number where the
    file does not use the option keys: `keyed` False)."""
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
            named = repr(key) if keyed else f"mean for option {k + 1}"
            out.append(("", f"no {named}, but {counts[k]} of {total} answers chose option {k + 1}"))
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
    "or within the configured `tolerance`. A difference means one of the files is stale. A mean "
    "stored under keys that are not the format's is compared too where the keys tell which tag "
    "or option each value is (a misspelt tag, per-option keys beside the tag, the options' texts, "
    "or one key per option in order; coggym/misnamed-tag, flat-option-keys or mean-key reports "
    "the keys), and the message says how it was read; so are the means of a multi-slider whose "
    "answers are one object per participant (coggym/response-shape reports the layout).",
    bad='ind: "rating": [2, 6, 3]; mean: "rating": 2.88',
    good='mean: "rating": 3.67',
    scope="experiment",
)
def mean_value(exp: Experiment) -> Iterator[Hit]:
    if exp.mean is None:
        return
    beside: dict[tuple[str, str], tuple[str, _Reading | str]] | None = None
    laid_out = [(r, _UNKNOWN) for r in _laid_out(exp)]
    for (sid, tag, q, responses), known in [*_unsettled(exp), *laid_out]:
        stored_entry = exp.mean_data.get(sid)
        if not isinstance(stored_entry, dict) or not _means_readable(q):
            continue
        if tag in stored_entry:
            reading = _reading(q, stored_entry[tag], pointer(sid, tag))
        else:  # its mean may be stored under other keys of the stimulus
            beside = _beside(exp) if beside is None else beside
            reading = beside.get((sid, tag), ("", ""))[1]
        if isinstance(reading, _Reading):  # else coggym/not-checked, or no mean: coggym/mean-missing
            for at, message in _mismatches(q, reading, responses, known, exp.tolerance):
                yield exp.mean, at, message


def _mismatches(
    q: dict[str, Any], reading: _Reading, responses: list[Any], known: Any, tol: float
) -> Iterator[tuple[str, str]]:
    """(pointer, message) of every value of one stored mean that is not what the responses give."""
    stored = reading.value
    if q["type"] == "multi-choice":
        if isinstance(stored, dict):
            for key, message in _choice_mismatches(q, stored, responses, tol, reading.keys is None):
                yield reading.at(key), message + reading.how(key)
        return
    if q["type"] == "single-slider" and not set(map(type, responses)) <= _SLIDER_TYPES:
        return  # a malformed answer: response-shape reports it, no mean can be computed
    try:
        exact = aggregate_tag(q, responses) if known is _UNKNOWN else known
    except TypeError:  # a malformed value inside a click list or a label array: response-shape's
        return
    if exact is None and q["type"] != "single-slider":
        return
    if isinstance(exact, dict):
        if isinstance(stored, dict):  # else coggym/mean-key's
            for key, message in _option_mismatches(q, stored, exact, responses, tol):
                yield reading.at(key), message + reading.how(key)
    elif (isinstance(stored, (int, float)) or stored is None) and not same_value(stored, exact, tol):
        if exact is None:
            yield reading.base, f"{fmt_number(stored)}, but every answer is null: the mean is null{reading.how('')}"
        else:
            yield (
                reading.base,
                f"{fmt_number(stored)}, the mean of the responses is {fmt_number(exact)}{reading.how('')}",
            )


@dataclass(frozen=True)
class _Reading:
    """A stored mean as it is compared: a number, or per option under the option keys (`<tag>_K`)
    whatever keys the file stored it under."""

    value: Any
    base: str  # the pointer of the stored mean (of its stimulus, for per-option keys beside the tag)
    # <tag>_K -> (the pointer of the value read as it, how it was read), where the file does not
    # store it as <tag>_K under the tag; None where it does
    keys: dict[str, tuple[str, str]] | None = None
    note: str = ""  # how the mean as a whole was read: "read as the mean of 'x'", or "" under its tag

    def at(self, key: str) -> str:
        """The pointer of the value of option key `key` ("" for the whole mean)."""
        if not key:
            return self.base
        if self.keys is None:
            return self.base + pointer(key)
        return self.keys[key][0] if key in self.keys else self.base

    def how(self, key: str) -> str:
        """How the value of `key` was read, for the end of a message; "" when read as stored."""
        said = [self.note, self.keys[key][1] if self.keys is not None and key in self.keys else ""]
        words = ", ".join(w for w in said if w)
        return f" ({words})" if words else ""


def _reading(q: dict[str, Any], value: Any, base: str, note: str = "") -> _Reading | str:
    """A stored mean (at `base`) as it is compared with the responses of query `q`; or why its
    values cannot be (its per-option keys do not tell which option each is)."""
    if isinstance(value, dict) and q["type"] in _OPTION_MEANS and not _keys_match(q, value):
        stray = _stray_keys(value, _mean_keys(q) or ())
        if stray:
            read = _option_reading(q, value)
            if isinstance(read, str):
                return read
            keys = {name: (base + pointer(key), how) for name, (key, how) in read.items()}
            return _Reading({name: value[key] for name, (key, _) in read.items()}, base, keys, note)
    return _Reading(value, base, None, note)


def _option_reading(q: dict[str, Any], value: dict[str, Any]) -> dict[str, tuple[str, str]] | str:
    """How a per-option mean whose keys are not all option keys is read: <tag>_K -> (the key read
    as option K, how). By its text where every key is an option's text; by its place where there
    is one key per option and none names another option (the n-th key is option n); otherwise
    why it cannot be read without a guess."""
    tag, options = q["tag"], q["option"]
    names = option_keys(tag, len(options))
    keys = keys_of(value)
    texts = {o: k for k, o in enumerate(options) if isinstance(o, str)}
    if broken_of(value):
        return "some of its values broke the schema, so the place of each key is unknown"
    if len(texts) == len(options) and all(key in texts for key in keys):
        return {names[texts[key]]: (key, f"read by its text as option {texts[key] + 1}") for key in keys}
    stray = _stray_keys(value, names)
    spelt = (
        f"{some([repr(k) for k in stray])} {'is' if len(stray) == 1 else 'are'} neither {tag}_K for an "
        f"option K in 1..{len(options)} nor an option's text"
    )
    if len(keys) != len(options):
        return f"{spelt}, and the mean has {len(keys)} key{'s' if len(keys) > 1 else ''} for {len(options)} options"
    place = {name: k for k, name in enumerate(names)} | texts
    for k, key in enumerate(keys):
        if place.get(key, k) != k:
            return f"{spelt}, and {key!r}, key {k + 1} of {len(keys)}, names option {place[key] + 1}"
    return {names[k]: (key, f"read by its place as option {k + 1}, {options[k]!r}") for k, key in enumerate(keys)}


def _beside(exp: Experiment) -> dict[tuple[str, str], tuple[str, _Reading | str]]:
    """(stimulus, tag) -> (where, the reading) of the tag's mean stored under other keys of the
    mean file's stimulus, as keys.py sorts them: a misspelt tag (coggym/misnamed-tag), or
    per-option keys beside the tag (coggym/flat-option-keys), `<tag>_K` or a run `<name>_1` ...
    `<name>_N` of one key per option."""
    out: dict[tuple[str, str], tuple[str, _Reading | str]] = {}
    for stray in exp.stray:
        if stray.doc is not exp.mean:
            continue
        stimulus = exp.mean_data.get(stray.sid)
        queries = exp.queries(stray.sid)
        if not isinstance(stimulus, dict):
            continue
        for key, tag in stray.misnamed.items():
            q = queries[tag]
            if key in stimulus and _means_readable(q):
                at = pointer(stray.sid, key)
                out[(stray.sid, tag)] = at, _reading(q, stimulus[key], at, f"read as the mean of {tag!r}")
        for tag, keys in stray.flat.items():
            q = queries[tag]
            if q["type"] not in _OPTION_MEANS or not _means_readable(q):
                continue
            names = option_keys(tag, len(q["option"]))
            # `<tag>_K` is option K; a run of another name has one key per option, in order
            read = [(key if key in names else names[k], key) for k, key in enumerate(keys) if key in stimulus]
            where = {
                name: (pointer(stray.sid, key), f"read as option {names.index(name) + 1} of {tag!r}")
                for name, key in read
            }
            out[(stray.sid, tag)] = (
                pointer(stray.sid),
                _Reading({name: stimulus[key] for name, key in read}, pointer(stray.sid), where),
            )
    return out


def unread_means(exp: Experiment) -> Iterator[tuple[str, str]]:
    """(pointer, message) of every stored mean of a question with responses whose values
    coggym/mean-value could not compare: its per-option keys do not tell which option each is."""
    if exp.mean is None:
        return
    beside: dict[tuple[str, str], tuple[str, _Reading | str]] | None = None
    for sid, tag, q, responses in [*exp.responses_of(*_OPTION_MEANS), *_laid_out(exp)]:
        entry = exp.mean_data.get(sid)
        if not responses or not isinstance(entry, dict) or not _means_readable(q):
            continue
        if tag in entry:
            value = entry[tag]
            if not isinstance(value, dict) or _keys_match(q, value):
                continue
            at, reading = pointer(sid, tag), _reading(q, value, pointer(sid, tag))
        else:
            beside = _beside(exp) if beside is None else beside
            at, reading = beside.get((sid, tag), ("", ""))
        if isinstance(reading, str) and reading:
            yield at, f"the means of {tag!r} were not compared with the responses: {reading}"


def _laid_out(exp: Experiment) -> list[Response]:
    """The multi-slider tags whose answers are one object of numbers per participant (layout.py:
    coggym/response-shape reports the layout), each with its answers as the format lays them
    out, one object of every participant's ratings per label: the means are the same data's, so
    they are compared all the same."""
    if exp.ind is None:
        return []
    out = []
    for layout in exp.layouts:
        q = exp.queries(layout.sid).get(layout.tag)
        if q is not None:
            by_label: dict[str, list[Any]] = {}
            for answer in exp.ind.data[layout.sid][layout.tag]:
                for label, value in answer.items():
                    by_label.setdefault(label, []).append(value)
            out.append((layout.sid, layout.tag, q, [by_label]))
    return out


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
