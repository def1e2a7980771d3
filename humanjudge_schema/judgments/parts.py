"""The parts of an answer that are judgments of their own (view.Parts), each as a question of its
own: a multi-select's options (did the rater tick it: 1 or 0, nominal), a ranking's options (the
place the rater gave it, 1 first, ordinal) and a multi-slider's labels (the value on the
question's scale). Scoring a multi-select row whole would make [0, 1, 0, 0] against [0, 1, 1, 0]
a total disagreement although the raters agree on three options of four; per option, each
agreement is counted where it is.

The parts are read from the question's value counts per item (its `Tally`), so they cost work per
distinct answer of an item, not per judgment, and need no second pass over the files.

>>> from .agreement import Tally
from .columns import code, counts, renumber
>>> tally = Tally()
>>> for item, row in [("a", (0, 1)), ("a", (0, 1)), ("b", (1, 1)), ("b", (0, 1))]:
...     tally.add(item, row)
>>> [(p.label, p.tally.distribution()) for p in split(tally, "select", ("x", "y"))[0]]
[('x', {0: 3, 1: 1}), ('y', {1: 4})]
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from .agreement import Tally
from .columns import code, counts, renumber
from .view import Level, Parts

# The level of each part of an answer; a "label" part keeps its question's.
LEVELS: dict[str, Level] = {"select": "nominal", "rank": "ordinal"}


@dataclass(frozen=True)
class Part:
    """One part: its label (an option's text, else "option N", 1-based; a multi-slider's label as
    the data names it), its level and its value counts per item."""

    label: str
    level: Level | None
    tally: Tally


def split(
    tally: Tally, parts: Parts, labels: Sequence[str] | None = None, level: Level | None = None
) -> tuple[list[Part], int]:
    """The parts of a question's answers, and how many answers could not be split (a row whose
    length or values are not those of its question's options: validation reports them)."""
    import numpy as np

    if parts == "label":
        return _labels(tally, level)
    c = tally.counts()
    width = len(labels) if labels else None
    rows = [_cells(value, parts, width) for value in c.values]  # once per distinct answer
    split_ok = np.asarray([row is not None for row in rows], dtype=bool)
    unsplit = int(c.count[~split_ok[c.value]].sum()) if len(c.value) else 0
    options = sorted({option for row in rows if row is not None for option, _ in row})
    names = list(labels or ())
    out = []
    for k in options:
        cell = np.asarray([dict(row or ()).get(k, -1) for row in rows], dtype=np.int64)
        given = cell[c.value] >= 0 if len(c.value) else np.zeros(0, dtype=bool)
        value, value_of = code(cell[c.value][given].tolist())
        unit, kept = renumber(c.unit[given])
        found = Tally.of_counts(counts([c.units[u] for u in kept.tolist()], value_of, unit, value, c.count[given]))
        out.append(Part(names[k] if k < len(names) else f"option {k + 1}", LEVELS[parts], found))
    return out, unsplit


def _cells(value: Hashable, parts: Parts, width: int | None) -> list[tuple[int, int]] | None:
    """(option, its value) of one answer: a row's ticks, or the places of a ranking's options."""
    if not isinstance(value, tuple) or (width is not None and len(value) != width):
        return None
    if any(type(v) is not int for v in value):
        return None
    if parts == "select":
        return list(enumerate(value)) if all(v in (0, 1) for v in value) else None
    if len(set(value)) != len(value) or (width is not None and not all(0 <= v < width for v in value)):
        return None
    return [(option, place) for place, option in enumerate(value, start=1)]


def _labels(tally: Tally, level: Level | None) -> tuple[list[Part], int]:
    """A multi-slider's labels: the items of a question are (item, label) pairs already."""
    c = tally.counts()
    names = [unit[1] if isinstance(unit, tuple) and len(unit) == 2 else "" for unit in c.units]
    label, label_of = code(names)
    label, first = renumber(label)  # labels in the order their first item comes
    out = []
    for k, name in enumerate(label_of[i] for i in first.tolist()):
        if name == "":
            continue
        mine = label[c.unit] == k
        unit, kept = renumber(c.unit[mine])
        part = Tally.of_counts(
            counts([c.units[u] for u in kept.tolist()], c.values, unit, c.value[mine], c.count[mine])
        )
        out.append(Part(str(name), level, part))
    return out, 0
