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

import math
from collections import Counter
from operator import itemgetter
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


def choice_index(answer: Any) -> int | None:
    """The option index an answer chose: its idx, or the answer itself when it is a bare index."""
    if isinstance(answer, dict):
        answer = answer.get("idx")
    return answer if isinstance(answer, int) and not isinstance(answer, bool) else None


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
