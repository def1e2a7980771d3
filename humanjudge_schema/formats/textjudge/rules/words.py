"""How the TextJudge rules word and place what they find."""

from __future__ import annotations

from typing import Any

from ....numbers import fmt_number


def scores_list(values: list[Any], limit: int = 10) -> str:
    if len(values) <= limit:
        return "[" + ", ".join(map(fmt_number, values)) + "]"
    return "[" + ", ".join(map(fmt_number, values[:limit])) + f", ... ({len(values)} scores)]"


def names(values: Any, limit: int = 6) -> str:
    items = [repr(v) for v in values]
    return ", ".join(items[:limit]) + (", ..." if len(items) > limit else "")
