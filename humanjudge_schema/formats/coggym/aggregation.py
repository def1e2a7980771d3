"""CogGym aggregation, defined once: the `coggym/mean-value` rule (rules/means.py) compares
against it and `humanjudge aggregate` (aggregate.py) writes it.

Per query type (the seed's rules):
- single-slider: the arithmetic mean of the non-null values (every click when num_clicks > 1);
  null when there is none.
- multi-choice: {tag_K: proportion of the answers that chose option K}, K = idx + 1, written for
  every chosen option; a stored file may hold counts instead, which the rule accepts.
- multi-slider: {tag_K: mean of the values for option K's label}.
- multi-select: {tag_K: proportion of the rows that selected option K}.
- textbox and ranking: no aggregate.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable
from itertools import chain, repeat
from operator import itemgetter, truediv
from typing import Any

META_KEYS = ("participants_info", "judgment_count")
_IDX = itemgetter("idx")


def mean(values: list[Any]) -> float | None:
    """The arithmetic mean of the values that are not null; None when there is none."""
    numbers = [v for v in values if v is not None] if None in values else values
    if not numbers:
        return None
    try:
        return math.fsum(numbers) / len(numbers)
    except OverflowError:  # values near the largest double: their sum is not one, their mean is
        return math.fsum(v / len(numbers) for v in numbers)


def option_key(tag: str, k: int) -> str:
    """The mean-file key of option K (1-based) of a tag."""
    return f"{tag}_{k}"


@functools.lru_cache(maxsize=4096)
def option_keys(tag: str, n: int) -> tuple[str, ...]:
    """The mean-file keys of options 1..n of a tag (made once per tag and count)."""
    return tuple(option_key(tag, k) for k in range(1, n + 1))


def choice_index(answer: Any) -> int | None:
    """The option index an answer chose: its idx, or the answer itself when it is a bare index."""
    if isinstance(answer, dict):
        answer = answer.get("idx")
    return answer if isinstance(answer, int) and not isinstance(answer, bool) else None


def choices(responses: list[Any]) -> list[int | None]:
    """The option index each answer chose (`choice_index`; None for no answer): for answers that
    are all {"idx": N, ...} objects, taken in C."""
    try:
        chosen = list(map(_IDX, responses))
    except (TypeError, KeyError):  # a bare index, a missing answer, an object without idx
        chosen = None
    if chosen is not None and set(map(type, chosen)) <= _INT:
        return chosen
    return [None if answer is None else choice_index(answer) for answer in responses]


def choice_counts(responses: list[Any]) -> tuple[Counter[int], int]:
    """How many answers chose each option index, and how many answers chose one."""
    try:  # all {idx, ...} objects: count in C
        counts = Counter(map(_IDX, responses))
        if all(type(k) is int for k in counts):
            return counts, sum(counts.values())
    except (TypeError, KeyError):
        pass
    counts = Counter()
    for r in responses:
        idx = choice_index(r)
        if idx is not None:
            counts[idx] += 1
    return counts, sum(counts.values())


def aggregate_tag(query: dict[str, Any], responses: list[Any]) -> Any:
    """The aggregate of one tag's responses; None means the type has no aggregate."""
    kind, tag = query["type"], query["tag"]
    options = query.get("option", [])
    if kind == "single-slider":
        if list not in set(map(type, responses)):
            return mean(responses)
        return mean([v for r in responses for v in (r if isinstance(r, list) else [r])])
    if kind == "multi-choice":
        counts, total = choice_counts(responses)
        return {option_key(tag, i + 1): counts[i] / total for i in sorted(counts) if total}
    if kind == "multi-slider":
        labels = responses[0] if responses and isinstance(responses[0], dict) else {}
        return {option_key(tag, i + 1): mean(labels.get(str(label), [])) for i, label in enumerate(options)}
    if kind == "multi-select":
        rows = responses if set(map(type, responses)) == {list} else [r for r in responses if isinstance(r, list)]
        if not rows:
            return None
        if set(map(len, rows)) == {len(options)}:
            columns = [sum(c) for c in zip(*rows, strict=True)]  # in C
        else:
            columns = [sum(r[i] for r in rows if i < len(r)) for i in range(len(options))]
        return {option_key(tag, i + 1): columns[i] / len(rows) for i in range(len(options))}
    return None


_INT = frozenset({int})
_FIRST = itemgetter(0)


def aggregates(kind: str, queries: list[dict[str, Any]], arrays: list[list[Any]]) -> list[Any] | None:
    """[aggregate_tag(q, r) for q, r in zip(queries, arrays)] for tags of one query type, when
    every answer has its type's usual form; None otherwise (aggregate_tag then says, tag by tag,
    what it makes of each). A file of many small stimuli has tens of thousands of tags: their
    aggregates are computed together, the work done in C (tests/test_coggym_aggregates.py
    compares both on random tags)."""
    fast = _FAST.get(kind)
    if fast is None or not arrays:
        return None if fast is None else []
    return fast(queries, arrays)


def _means(arrays: list[list[Any]]) -> list[float] | None:
    """mean() of each array when every array is a list of at least one number; else None. (fsum
    refuses a null, a list, a string: the screen is the sum itself.)"""
    if not all(arrays) or set(map(type, arrays)) != {list}:
        return None
    try:
        return list(map(truediv, map(math.fsum, arrays), map(len, arrays)))
    except (TypeError, OverflowError):
        return None


def _slider_means(queries: list[dict[str, Any]], arrays: list[list[Any]]) -> list[Any] | None:
    return _means(arrays)


def _choice_shares(queries: list[dict[str, Any]], arrays: list[list[Any]]) -> list[Any] | None:
    try:  # each tag's choices counted in C, as choice_counts does when every answer has an idx
        counts = list(map(Counter, map(map, repeat(_IDX), arrays)))
    except (TypeError, KeyError):
        return None
    if not set(map(type, chain.from_iterable(counts))) <= _INT:
        return None
    out: list[Any] = []
    for q, n, chosen in zip(queries, map(len, arrays), counts, strict=True):
        tag = q["tag"]
        out.append({option_key(tag, i + 1): chosen[i] / n for i in sorted(chosen)} if n else {})
    return out


def _label_means(queries: list[dict[str, Any]], arrays: list[list[Any]]) -> list[Any] | None:
    if not all(arrays) or set(map(type, map(_FIRST, arrays))) != {dict}:
        return None
    keys: list[str] = []
    values: list[Any] = []
    for q, answers in zip(queries, arrays, strict=True):  # each option's values, in the options' order
        options = q.get("option", [])
        keys += option_keys(q["tag"], len(options))
        values += map(answers[0].get, map(str, options), repeat(_NO_VALUES))
    means = _means(values)
    if means is None:
        return None
    out, at = [], 0
    for q in queries:
        size = len(q.get("option", []))
        out.append(dict(zip(keys[at : at + size], means[at : at + size], strict=True)))
        at += size
    return out


_NO_VALUES: list[Any] = []


def _select_shares(queries: list[dict[str, Any]], arrays: list[list[Any]]) -> list[Any] | None:
    rows = list(chain.from_iterable(arrays))
    if not all(arrays) or set(map(type, rows)) != {list}:
        return None
    widths = set(map(len, rows))
    if len(widths) != 1:
        return None
    width = widths.pop()
    if any(len(q.get("option", ())) != width for q in queries):
        return None
    out = []
    try:
        for q, answers in zip(queries, arrays, strict=True):
            shares = map(truediv, map(sum, zip(*answers, strict=True)), repeat(len(answers)))
            out.append(dict(zip(option_keys(q["tag"], width), shares, strict=True)))
    except TypeError:  # a value that is no number: aggregate_tag says what it makes of it
        return None
    return out


_FAST: dict[str, Callable[[list[dict[str, Any]], list[list[Any]]], list[Any] | None]] = {
    "single-slider": _slider_means,
    "multi-choice": _choice_shares,
    "multi-slider": _label_means,
    "multi-select": _select_shares,
}


def aggregate(trials: dict[str, dict[str, Any]], ind: dict[str, Any]) -> dict[str, Any]:
    """The whole mean document: metadata copied, then one entry per stimulus in ind order."""
    out: dict[str, Any] = {k: ind[k] for k in META_KEYS if k in ind}
    for sid, stimulus in ind.items():
        if sid in META_KEYS or sid not in trials or not isinstance(stimulus, dict):
            continue
        queries = {q["tag"]: q for q in trials[sid].get("queries", []) if "tag" in q}
        entry = {}
        for tag, responses in stimulus.items():
            if tag in queries and isinstance(responses, list):
                value = aggregate_tag(queries[tag], responses)
                if value is not None:
                    entry[tag] = value
        out[sid] = entry
    return out
