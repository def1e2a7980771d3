"""The parts of an answer that are judgments of their own (view.Parts), each as a question of its
own: a multi-select's options (did the rater tick it: 1 or 0, nominal), a ranking's options (the
place the rater gave it, 1 first, ordinal) and a multi-slider's labels (the value on the
question's scale). Scoring a multi-select row whole would make [0, 1, 0, 0] against [0, 1, 1, 0]
a total disagreement although the raters agree on three options of four; per option, each
agreement is counted where it is.

The parts are read from the question's value counts per item (its `Tally`), so they cost work per
distinct answer of an item, not per judgment, and need no second pass over the files. Every part
is counted in one pass over those answers (`_tallies`), so a question of thousands of options
costs what its answers hold, not options x answers.

>>> from .agreement import Tally
>>> tally = Tally()
>>> for item, row in [("a", (0, 1)), ("a", (0, 1)), ("b", (1, 1)), ("b", (0, 1))]:
...     tally.add(item, row)
>>> [(p.label, p.tally.distribution()) for p in split(tally, "select", ("x", "y"))[0]]
[('x', {0: 3, 1: 1}), ('y', {1: 4})]
"""

from __future__ import annotations

from array import array as array_of
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from .agreement import Tally
from .columns import Counts, code, counts, renumber
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

    c = tally.counts()
    if parts == "label":
        return _labels(c, level), 0
    width = len(labels) if labels else None
    rows = [_cells(value, parts, width) for value in c.values]  # once per distinct answer
    split_ok = np.asarray([row is not None for row in rows], dtype=bool)
    unsplit = int(c.count[~split_ok[c.value]].sum()) if len(c.value) else 0
    kept = [row for row in rows if row is not None]
    options = sorted(set(chain.from_iterable(o for o, _ in kept)))
    index = {option: k for k, option in enumerate(options)}
    # the cells of the distinct answers, one after the other, and then those of every entry (an
    # item's answer: the cells of its distinct answer), grouped by option
    length = np.asarray([0 if row is None else len(row[0]) for row in rows], dtype=np.int64)
    option = np.fromiter(map(index.__getitem__, chain.from_iterable(o for o, _ in kept)), dtype=np.int64)
    cell = np.frombuffer(array_of("q", chain.from_iterable(v for _, v in kept)), dtype=np.int64)
    sizes = length[c.value]  # each entry's cells, from the first cell of its distinct answer
    entry = np.repeat(np.arange(len(sizes)), sizes)
    within = np.arange(len(entry)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    at = np.repeat((np.cumsum(length) - length)[c.value], sizes) + within
    by_option = np.argsort(option[at], kind="stable")  # an option's entries stay in their order
    at = at[by_option]
    found = _tallies(c, option[at], entry[by_option], cell[at], len(options))
    names = list(labels or ())
    out = [
        Part(names[k] if 0 <= k < len(names) else f"option {k + 1}", LEVELS[parts], part)
        for k, part in zip(options, found, strict=True)
    ]
    return out, unsplit


def _cells(value: Hashable, parts: Parts, width: int | None) -> tuple[Sequence[int], Sequence[int]] | None:
    """The options of one answer and the value of each: a row's ticks, or the places of a
    ranking's options; None for an answer that is not a row of options."""
    if not isinstance(value, tuple) or (width is not None and len(value) != width):
        return None
    if set(map(type, value)) - {int}:
        return None
    if parts == "select":
        return (range(len(value)), value) if set(value) <= {0, 1} else None
    if len(set(value)) != len(value) or (width is not None and not all(0 <= v < width for v in value)):
        return None
    return value, range(1, len(value) + 1)


def _labels(c: Counts, level: Level | None) -> list[Part]:
    """A multi-slider's labels: the items of a question are (item, label) pairs already."""
    import numpy as np

    names = [unit[1] if isinstance(unit, tuple) and len(unit) == 2 else "" for unit in c.units]
    label, label_of = code(names)
    label, first = renumber(label)  # labels in the order their first item comes
    of_entry = label[c.unit]
    by_label = np.argsort(of_entry, kind="stable")  # a label's entries stay in their order
    found = _tallies(c, of_entry[by_label], by_label, c.value[by_label], len(first), c.values)
    named = (label_of[i] for i in first.tolist())
    return [Part(str(name), level, part) for name, part in zip(named, found, strict=True) if name != ""]


def _tallies(
    c: Counts, part: Any, entry: Any, value: Any, parts: int, values: list[Hashable] | None = None
) -> list[Tally]:
    """The tally of each of `parts` parts, from cells given grouped by part: each cell an entry
    of `c` (ascending within its part) and the part's value there, an integer. Each part is a
    question of its own, as `columns.counts` would make it: its items numbered by their first
    entry, its values by their first cell; with `values`, the cells are codes of those values
    (a multi-slider's), and a part's values are those it holds, in the question's order."""
    import numpy as np

    # One Counts of every part: its items are the (part, item) pairs and its values the (part,
    # value) pairs, numbered part by part as each part numbers its own (the cells come grouped by
    # part, so the order they first come in is part by part); each part is then a slice of it.
    units = len(c.units)
    item, item_of = renumber(part * units + c.unit[entry])
    low = int(value.min()) if len(value) else 0
    span = int(value.max()) - low + 1 if len(value) else 1
    pairs = part * span + (value - low)
    if values is None:
        given, given_of = renumber(pairs)
    else:
        given_of, given = np.unique(pairs, return_inverse=True)
    held = (given_of % span + low).tolist()
    found = counts(
        [c.units[u] for u in (item_of % units).tolist()],
        held if values is None else [values[v] for v in held],
        item,
        given.reshape(-1),
        c.count[entry],
    )
    # where each part's items, values and entries begin, and each code and start within its part
    item_part, value_part = item_of // units, given_of // span
    items, kinds = (np.searchsorted(p, np.arange(parts + 1)) for p in (item_part, value_part))
    entries = np.searchsorted(found.unit, items)
    entry_part = item_part[found.unit]
    unit = found.unit - items[entry_part]
    codes = found.value - kinds[entry_part]
    starts = found.starts - entries[item_part]
    out = []
    for k in range(parts):
        (a, b), (u, v), (w, x) = entries[k : k + 2], items[k : k + 2], kinds[k : k + 2]
        at = Counts(
            found.units[u:v], found.values[w:x], unit[a:b], codes[a:b], found.count[a:b], starts[u:v], found.sizes[u:v]
        )
        out.append(Tally.of_counts(at))
    return out
