"""The answers of a question as the report shows them (html.py lays out the rest of the page).

- Labels: a bar per answer, its count at its end.
- A scale of few integer points (a graded metric 1-5, a slider 1-6): a bar per point of the
  scale, the points nobody chose included, labelled as integers; the scale is the points the
  question declares, where it does, else the integers from its least to its largest answer.
- Multi-select (every answer a list of 0 and 1): a bar per option, the answers that tick it and
  their share of all answers, instead of a bar per pattern of ticks.
- Sliders and continuous scores over many points: a histogram.
- Free text (no level, many distinct answers): how many, and up to SAMPLES of them.

The cost is bounded (docs/hostile-input.md): a plot is drawn once per distinct drawing, at most
PLOTTED plots are on a page, and every other question shows a table of at most TABLED_VALUES
answers. A plot's SVG holds no id (plots.py writes none), so a drawing included twice is valid.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from html import escape
from typing import Any, cast

from . import plots

# Plots on one page (each 2-6 KB); the questions after them show their answers as a table, so
# that the page's size is bounded whatever the number of questions.
PLOTTED = 200
# Answers listed in such a table, and the characters shown of a value or a message.
TABLED_VALUES = 8
VALUE_CHARS = 80
MESSAGE_CHARS = 1000
# Answers of free text shown as samples, and their characters.
SAMPLES = 5
SAMPLE_CHARS = 200
# An integer scale of at most this many points has a bar per point; a wider one, a histogram.
SCALE_POINTS = 11

# The marks that reorder bidirectional text (embeddings, overrides, isolates, the directional
# marks): shown text could otherwise read in an order other than its own.
_BIDI = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C])


def count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def text(value: object, limit: int | None = None) -> str:
    """Text from the data as the page shows it: without bidirectional marks, at most `limit`
    characters, escaped."""
    said = str(value) if limit is None else _cut(str(value), limit)
    return escape(said.translate(_BIDI))


class Plots:
    """The plots of one page. A plot shows only the answers (its card names the question), so
    questions with the same answers share one drawing; at most PLOTTED are included, and every
    other question gets a table of its answers."""

    def __init__(self) -> None:
        self.drawn: dict[tuple[Any, ...], str] = {}  # the drawing -> its SVG
        self.included = 0
        self.tabled = 0  # questions shown as a table because the page had its plots

    def of(self, answers: Sequence[tuple[Hashable, int]], level: str | None, scale: Sequence[Any] | None = None) -> str:
        """The plot of a question's answers (each distinct answer and its count) at its level;
        `scale`: its points, worst to best, where it declares them."""
        values = list(answers)
        if not values:
            return ""
        numbers = all(_number(v) for v, _ in values)
        if (ticks := _ticks(values)) is not None:
            return self._bars(values, ticks, sum(n for _, n in values))
        if numbers and (points := _scale(values, scale, level)) is not None:
            return self._bars(values, points)
        if level is None and len(values) > plots.SHOWN_VALUES:
            return _samples(values)  # free text: a bar per answer says nothing
        if numbers and level in ("interval", "ratio"):
            numeric = cast("list[tuple[float, int]]", values)
            if not math.isfinite(float(max(v for v, _ in numeric)) - float(min(v for v, _ in numeric))):
                return _answers(values, "not plotted: the values are too far apart for a double")
            return self._include(values, ("histogram", *_keyed(values)), lambda: plots.histogram(numeric, ""), "")
        shown = [(_shown(v), n) for v, n in _ordered(values, scale)]
        return self._bars(values, shown)

    def _bars(self, values: list[tuple[Hashable, int]], bars: list[tuple[Hashable, int]], total: int = 0) -> str:
        """A bar per entry of `bars`; with `total`, the options of a multi-select question, each
        ticked by a share of the `total` answers."""
        xlabel = f"answers that tick it (of {total})" if total else ""
        described = "; ".join(f"{_cut(label(v), VALUE_CHARS)}: {n}" for v, n in plots.shown(bars))
        return self._include(
            values,
            ("bars", total, *_keyed(bars)),
            lambda: plots.bars(bars, "", total=total, xlabel=xlabel),
            described,
        )

    def _include(self, values: list[tuple[Hashable, int]], key: tuple[Any, ...], draw: Any, described: str) -> str:
        if self.included >= PLOTTED:
            self.tabled += 1
            return _answers(values, "")
        if key not in self.drawn:
            try:
                self.drawn[key] = draw()
            except (ValueError, OverflowError) as exc:  # values a plot cannot lay out
                return _answers(values, f"not plotted: {exc}")
        self.included += 1
        label = f' aria-label="{text(described, MESSAGE_CHARS)}"' if described else ""
        return f'<div class="plot" role="img"{label}>{self.drawn[key]}</div>'


def _number(value: Hashable) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _integral(value: Any) -> bool:
    """Whether a value is an integer (1, or 1.0) that a double holds exactly."""
    return _number(value) and abs(value) <= 2**53 and (isinstance(value, int) or value.is_integer())


def _keyed(values: list[tuple[Hashable, int]]) -> tuple[tuple[str, Hashable, int], ...]:
    """Values as a key of a drawing: 1 and 1.0 and True are not one drawing."""
    return tuple((type(v).__name__, v, n) for v, n in values)


def _ticks(values: list[tuple[Hashable, int]]) -> list[tuple[Hashable, int]] | None:
    """The answers that tick each option, where every answer is a list of 0 and 1 of one length
    (a multi-select question); else None."""
    rows = [(v, n) for v, n in values if isinstance(v, tuple)]
    sizes = {len(v) for v, _ in rows}
    if len(rows) != len(values) or len(sizes) != 1 or (size := sizes.pop()) < 2:
        return None
    if not all(_number(x) and x in (0, 1) for v, _ in rows for x in v):
        return None
    return [(f"option {k + 1}", sum(n * int(v[k]) for v, n in rows)) for k in range(size)]


def _scale(values: list[tuple[Hashable, int]], declared: Any, level: str | None) -> list[tuple[Hashable, int]] | None:
    """A bar per point of an integer scale of few points, those nobody chose included: the
    declared scale (a list of its points, worst to best) and any answer outside it, or the
    integers from the least answer to the largest; None where the answers are not on such a
    scale (or are labels: a nominal question's numbers are shown as they come)."""
    if level is None or not all(_integral(v) for v, _ in values):
        return None
    counts: Counter[int] = Counter()
    for v, n in values:
        counts[int(v)] += n  # type: ignore[call-overload]
    scaled = isinstance(declared, (list, tuple)) and 0 < len(declared) <= SCALE_POINTS
    if scaled and all(_integral(p) for p in declared):
        points = [int(p) for p in declared]
    elif level != "nominal" and max(counts) - min(counts) < SCALE_POINTS:
        points = list(range(min(counts), max(counts) + 1))
    elif level == "nominal" and len(counts) <= SCALE_POINTS:
        return sorted(counts.items())  # integer labels, as they are
    else:
        return None
    outside = sorted(set(counts) - set(points))
    if len(points) + len(outside) > SCALE_POINTS + 2:
        return None
    return [(p, counts.get(p, 0)) for p in [*points, *outside]]


def _ordered(values: list[tuple[Hashable, int]], declared: Any) -> list[tuple[Hashable, int]]:
    """Labels in the order the question declares (worst to best), those nobody chose included,
    then any answer outside it; as they come without such an order."""
    if not isinstance(declared, (list, tuple)) or not 0 < len(declared) <= plots.SHOWN_VALUES:
        return values
    try:
        counts = dict(values)
        points = list(dict.fromkeys(declared))
        chosen = set(points)
    except TypeError:  # an unhashable point: no order to follow
        return values
    return [(p, counts.get(p, 0)) for p in points] + [(v, n) for v, n in values if v not in chosen]


def _cut(said: str, limit: int) -> str:
    return said if len(said) <= limit else said[: limit - 1] + "…"


def _shown(value: Hashable) -> Hashable:
    """A value as a label: without bidirectional marks, an integer written as one (1.0 as 1)."""
    if isinstance(value, str):
        return value.translate(_BIDI)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return tuple(map(_shown, value)) if isinstance(value, tuple) else value


def _answers(values: list[tuple[Hashable, int]], note: str) -> str:
    """The most frequent answers as a table, the others counted."""
    top = sorted(values, key=lambda vc: -vc[1])[:TABLED_VALUES]
    rows = [f'<tr><td>{text(label(v), VALUE_CHARS)}</td><td class="n">{n}</td></tr>' for v, n in top]
    if len(values) > len(top):
        rest = sum(n for _, n in values) - sum(n for _, n in top)
        rows.append(f'<tr><td>{count(len(values) - len(top), "other value")}</td><td class="n">{rest}</td></tr>')
    said = f"<p>{text(note, MESSAGE_CHARS)}</p>" if note else ""
    return f'{said}<table class="answers"><tr><th>answer</th><th>judgments</th></tr>{"".join(rows)}</table>'


def _samples(values: list[tuple[Hashable, int]]) -> str:
    """Free text: how many distinct answers, and the SAMPLES most frequent (the first ones where
    none repeats), shortened."""
    top = sorted(values, key=lambda vc: -vc[1])[:SAMPLES]
    items = "".join(
        f"<li>{text(label(v), SAMPLE_CHARS)}" + (f" <small>({n}×)</small>" if n > 1 else "") + "</li>" for v, n in top
    )
    total = sum(n for _, n in values)
    return (
        f'<p class="facts">Free text: {count(len(values), "distinct answer")} in {count(total, "judgment")}; '
        f'{"the most frequent" if top[0][1] > 1 else "the first"} {len(top)}:</p><ul class="samples">{items}</ul>'
    )


def label(value: Hashable) -> str:
    """A value as the page writes it: a list as a list, a whole float as an integer."""
    value = _shown(value)
    return str(list(value)) if isinstance(value, tuple) else str(value)
