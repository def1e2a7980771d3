"""The aggregates a declaration may say a file stores, recomputed from an item's judgments: the
mean, the majority (every value of the largest count), the distribution of the answers, and
whether a stored distribution is it."""

from __future__ import annotations

import math
from typing import Any

from ...numbers import fmt_number, same_value
from .fields import cast, key, same, text


def number(value: Any) -> int | float | None:
    """A value as a number: a number, or a text that reads as one ("3.5" in a JSON string);
    None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    found = cast(value, "number") if isinstance(value, str) else None
    return found if isinstance(found, (int, float)) else None


def mean(values: list[int | float]) -> float:
    return math.fsum(values) / len(values)


def ranked(values: list[Any], scale: tuple[Any, ...] | None) -> list[Any]:
    """Values from the lowest to the highest: in the order of the question's scale where it
    gives one (an ordinal scale need not sort as its texts do), else numbers by size, then
    texts."""

    def place(value: Any) -> tuple[int, float, str]:
        if scale is not None:
            at = next((k for k, v in enumerate(scale) if same(value, v)), None)
            if at is not None:
                return (0, at, "")
        found = number(value)
        return (1, found, "") if found is not None else (2, 0, text(value))

    return sorted(values, key=place)


def majority(values: list[Any]) -> list[Any]:
    """The values given most often (several where they tie), in the order first given."""
    counts: dict[Any, int] = {}
    first: dict[Any, Any] = {}
    for v in values:
        k = key(v)
        counts[k] = counts.get(k, 0) + 1
        first.setdefault(k, v)
    top = max(counts.values(), default=0)
    return [first[k] for k, n in counts.items() if n == top]


def distribution(values: list[Any]) -> dict[Any, float]:
    """Each value's share of the answers."""
    counts: dict[Any, int] = {}
    for v in values:
        k = key(v)
        counts[k] = counts.get(k, 0) + 1
    return {k: n / len(values) for k, n in counts.items()}


def _same_key(key: str, value: Any) -> bool:
    """A stored key names a value: as its text, or as the same number ("1.0" is 1 and "1")."""
    if key == str(value):
        return True
    try:
        return float(key) == float(value)
    except (TypeError, ValueError):
        return False


def soft_label_mismatch(stored: dict[str, Any], shares: dict[Any, float], tolerance: float) -> str | None:
    """What is wrong with a stored distribution, or None."""
    for label, share in stored.items():
        value = next((v for v in shares if _same_key(label, v)), None)
        exact = 0.0 if value is None else shares[value]
        if not isinstance(share, (int, float)) or isinstance(share, bool):
            return f"the share of {label!r} is {share!r}, not a number"
        if not same_value(share, exact, tolerance):
            return f"{label!r} is stored as {fmt_number(share)}, the share of its answers is {fmt_number(exact)}"
    unlisted = [v for v in shares if not any(_same_key(k, v) for k in stored)]
    if unlisted:
        return f"no share is stored for {', '.join(map(repr, unlisted))}, which raters answered"
    return None
