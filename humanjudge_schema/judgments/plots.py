"""Distribution plots as inline SVG, written directly: a bar chart and a histogram are a few
rectangles, lines and texts, which this module lays out itself.

A plotting library costs what these two figures do not need: matplotlib took 0.7 s of CPU to
import and 40 ms to draw a figure, and it reads configuration from places a pull request can
write to (a `matplotlibrc` in the working folder, some of whose settings run code), which the
report had to fence off. Written here, a figure costs a fraction of a millisecond and reads
nothing. Its text is text (the page's font, selectable, found by a search), every piece of it
from the data escaped, and no piece of it can start markup; the same data gives the same bytes.

Text is laid out without a font at hand: its width is estimated from the characters (a narrow
`i`, a wide `W`, a double width for East Asian wide characters), a little generously, so that a
label fits the room kept for it in any common sans-serif font.
"""

from __future__ import annotations

import math
import textwrap
import unicodedata
from collections.abc import Hashable, Sequence
from html import escape

COLOR = "#3b6ea5"
INK = "#222"  # axes, ticks and text
SHOWN_VALUES = 20  # bars of a categorical plot; the rest are summed in one bar
WIDTH = 4.2 * 72  # a figure's width, in points
BAR = 0.22 * 72  # the height of a bar's row
LINE = 9.6  # the height of a line of a label, in points
LINE_CHARS = 26  # characters on a line of a bar's label: a longer label is wrapped
LABEL_LINES = 3  # lines of a bar's label: the last is shortened beyond them
SIZE = 8.0  # the size of text
COUNT_SIZE = 7.0  # the size of the counts written at the end of the bars
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
# Room, in points, for what lies outside the axes: a tick and its pad, the axis label under the
# tick labels, the title above, and what the last tick label overhangs on the right.
_TICK = 3.5 + 3.5
_BELOW = _TICK + 9.6 + 4 + 9.6 + 4
_TITLE = 14.0
_RIGHT = 12.0
_HISTOGRAM = 1.8 * 72  # a histogram's height, in points

# Advance widths of a sans-serif font, in ems, by character (DejaVu Sans and Helvetica are within
# a tenth of these); characters not listed take _WIDE for East Asian wide ones, else _OTHER.
_EMS = {
    **dict.fromkeys("abcdeghknopqsuvxyz", 0.58),
    **dict.fromkeys("ABCDEFGHJKLNOPQRSTUVXYZ&", 0.72),
    **dict.fromkeys("0123456789#$+<=>?^_~", 0.64),
    **dict.fromkeys("iljI.,:;'|!`", 0.3),
    **dict.fromkeys('frt()[]{} -"/\\*', 0.4),
    **dict.fromkeys("mwMW@%", 0.9),
}
_WIDE = 1.0
_OTHER = 0.7


def _em(char: str) -> float:
    return _EMS.get(char) or (_WIDE if unicodedata.east_asian_width(char) in "WF" else _OTHER)


def text_width(text: str, size: float = SIZE) -> float:
    """An estimate of the width of `text` at `size`, in points (see the module's doc)."""
    return size * sum(map(_em, text))


def _xml(text: str) -> str:
    """Text from the data as SVG text: markup escaped, what XML may not hold (control
    characters, lone surrogates) shown as U+FFFD."""
    return escape("".join("\ufffd" if _unfit(c) else c for c in text), quote=True)


def _unfit(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cs") and char not in "\t\n"


def _label(value: Hashable, width: int = LINE_CHARS) -> str:
    """A value as a bar's label: wrapped on up to LABEL_LINES lines of `width` characters, the
    last shortened if the text is longer."""
    text = str(list(value)) if isinstance(value, tuple) else str(value)
    text = " ".join(text[: width * LABEL_LINES * 2].split())  # whitespace as one space: one line of text
    if len(text) <= width:
        return text
    lines = textwrap.wrap(text, width, break_on_hyphens=False) or [""]
    if len(lines) > LABEL_LINES:
        lines = lines[:LABEL_LINES]
        lines[-1] = lines[-1][: width - 1] + "…"
    return "\n".join(lines)


def shown(counts: Sequence[tuple[Hashable, int]]) -> list[tuple[Hashable, int]]:
    """The bars of a plot of `counts`: one per value, or, of more than SHOWN_VALUES, the most
    frequent and one bar of the others."""
    if len(counts) <= SHOWN_VALUES:
        return list(counts)
    top = sorted(counts, key=lambda vc: -vc[1])[: SHOWN_VALUES - 1]
    rest = sum(n for _, n in counts) - sum(n for _, n in top)
    return [*top, (f"{len(counts) - len(top)} others", rest)]


def ticks(low: float, high: float, *, integer: bool = False, most: int = 6) -> list[float]:
    """Round values from at most `low` to at least `high`, at most `most` of them (a step of 1, 2,
    2.5 or 5 times a power of ten; with `integer`, whole steps only)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError("the values are too far apart to be plotted")
    if high <= low:
        high = low + 1
    power = 10.0 ** math.floor(math.log10((high - low) / 10))
    steps = [m * power * 10**k for k in range(4) for m in (1, 2, 2.5, 5)]
    if integer:
        steps = [s for s in steps if s >= 1 and float(s).is_integer()] or [1.0]
    for step in steps:
        digits = max(0, 2 - math.floor(math.log10(step)))  # a step's figures, and one more

        def mark(k: int, step: float = step, digits: int = digits) -> float:
            return round(k * step, digits) + 0.0  # 0.30000000000000004 as 0.3

        near = step * 1e-9  # a tick within a billionth of a step of the data is at it
        first = math.floor(low / step + 1e-9)
        last = math.ceil(high / step - 1e-9)
        # where a step is near the spacing of doubles at the values' size (a span of 1e-4 at
        # 1e11), k * step rounds past them: one step more at either end, and they are covered
        first -= mark(first) > low + near
        last += mark(last) < high - near
        if last - first + 1 <= most and mark(first) <= low + near and mark(last) >= high - near:
            marks = [mark(k) for k in range(first, last + 1)]
            return [m for m in marks if math.isfinite(m)]  # near the largest double, a step beyond it is not
    raise ValueError("no ticks for these values")  # not reached: the last step covers any span


def number(x: float) -> str:
    """A tick's label: 3 for 3.0, 0.25, 1e+06 for a million and more."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e6 else f"{x:g}"


def _f(x: float) -> str:
    """A coordinate, in points, as short as is exact to a hundredth."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _svg(width: float, height: float, parts: list[str]) -> str:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(width)}pt" height="{_f(height)}pt" '
        f'viewBox="0 0 {_f(width)} {_f(height)}" font-family="{FONT}" font-size="{_f(SIZE)}" fill="{INK}">'
    )
    return head + "".join(parts) + "</svg>"


def _text(x: float, y: float, said: str, *, anchor: str = "start", size: float | None = None) -> str:
    """Text whose middle is at height y (a label's lines, one under the other, centred there)."""
    lines = said.split("\n")
    attributes = f' text-anchor="{anchor}"' if anchor != "start" else ""
    attributes += f' font-size="{_f(size)}"' if size is not None else ""
    if len(lines) == 1:
        return f'<text x="{_f(x)}" y="{_f(y)}" dominant-baseline="central"{attributes}>{_xml(said)}</text>'
    top = y - LINE * (len(lines) - 1) / 2
    spans = "".join(f'<tspan x="{_f(x)}" y="{_f(top + LINE * k)}">{_xml(line)}</tspan>' for k, line in enumerate(lines))
    return f'<text dominant-baseline="central"{attributes}>{spans}</text>'


def _line(x1: float, y1: float, x2: float, y2: float) -> str:
    return f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" stroke="{INK}" stroke-width="0.8"/>'


def _rect(x: float, y: float, width: float, height: float) -> str:
    return f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(width)}" height="{_f(height)}" fill="{COLOR}"/>'


def _frame(left: float, top: float, right: float, bottom: float, title: str) -> list[str]:
    """The left and bottom axis lines, and the title above the axes."""
    parts = [_line(left, top, left, bottom), _line(left, bottom, right, bottom)]
    if title:
        parts.append(_text(left, top - _TITLE / 2 - 2, title))
    return parts


def _x_axis(
    left: float, right: float, bottom: float, values: list[float], scale: float, low: float, label: str
) -> list[str]:
    parts = []
    for v in values:
        x = left + (v - low) * scale
        said = number(v)
        half = text_width(said) / 2
        at = min(x, WIDTH - half - 1)  # the last label moved in rather than cut at the edge
        parts += [_line(x, bottom, x, bottom + 3.5), _text(at, bottom + _TICK + 4, said, anchor="middle")]
    parts.append(_text((left + right) / 2, bottom + _BELOW - 8, label, anchor="middle"))
    return parts


def bars(counts: Sequence[tuple[Hashable, int]], title: str, *, total: int | None = None, xlabel: str = "") -> str:
    """A horizontal bar per value (in the order given), the most frequent SHOWN_VALUES of many,
    its count written at its end; with `total`, each count is also a share of it (the options
    of a multi-select question, each ticked by a share of the answers)."""
    drawn = shown(counts)
    labels = [_label(v) for v, _ in drawn]
    said = [f"{n}" + (f" ({n / total:.0%})" if total else "") for _, n in drawn]
    lines = max((label.count("\n") + 1 for label in labels), default=1)
    row = max(BAR, LINE * lines + 4)
    widest = max((text_width(line) for label in labels for line in label.split("\n")), default=0.0)
    left = min(widest + _TICK + 6, WIDTH / 2)  # labels of unusually wide glyphs are cut rather than the bars
    top = 4.0 + (_TITLE if title else 0.0)
    height = row * (len(drawn) + 0.6)
    right, bottom = WIDTH - _RIGHT, top + height
    room = max((text_width(s, COUNT_SIZE) for s in said), default=0.0) + 4  # for the widest count
    most = max((n for _, n in drawn), default=0) or 1
    inside = right - left
    scale = max(inside - room, inside / 2) / most  # the longest bar leaves room for its count
    marks = [m for m in ticks(0, inside / scale, integer=True) if m * scale <= inside + 0.01]
    parts = _frame(left, top, right, bottom, title)
    thick = max(0.5, 0.8 * BAR / row) * row
    for k, ((_, n), label) in enumerate(zip(drawn, labels, strict=True)):
        middle = top + row * (k + 0.8)
        parts.append(_line(left - 3.5, middle, left, middle))
        parts.append(_text(left - _TICK, middle, label, anchor="end"))
        parts.append(_rect(left, middle - thick / 2, n * scale, thick))
        parts.append(_text(left + n * scale + 2, middle, said[k], size=COUNT_SIZE))
    parts += _x_axis(left, right, bottom, marks, scale, 0.0, xlabel or "judgments")
    return _svg(WIDTH, bottom + _BELOW, parts)


def histogram(counts: Sequence[tuple[float, int]], title: str) -> str:
    """A histogram of numeric answers, each value weighted by how often it was given: at most 20
    bins of equal width from the least answer to the largest (one bin a unit wide around a
    single value)."""
    values = [float(v) for v, _ in counts]
    if not all(map(math.isfinite, values)):
        raise ValueError("a value is not a finite number")
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    if not math.isfinite(high - low):
        raise ValueError("the values are too far apart to be plotted")
    if high - low <= max(abs(low), abs(high)) * 1e-12 or high - low < 1e-300:
        # one value, or values a double barely tells apart: one bin around them, as wide as its
        # value can be told from its neighbours
        half = max(0.5, abs(low) * 1e-6)
        low, high = low - half, low + half
    bins = min(20, max(1, len(values)))
    width = (high - low) / bins
    heights = [0] * bins
    for v, (_, n) in zip(values, counts, strict=True):
        heights[min(int((v - low) / width), bins - 1)] += n
    total = sum(heights)
    left = 9.6 + 4 + text_width(f"{total}.0") + _TICK + 2
    top = 4.0 + (_TITLE if title else 0.0)
    plot = _HISTOGRAM - _BELOW - 6
    xs = ticks(low, high)
    xs = [x for x in xs if low - 1e-9 * abs(high - low) <= x <= high + 1e-9 * abs(high - low)]
    # room on the right for half the last tick's label, which sits at the right end when it is high
    right, bottom = WIDTH - max(_RIGHT, text_width(number(xs[-1])) / 2 + 2 if xs else 0.0), top + plot
    ys = ticks(0, max(heights) or 1, integer=True)
    xscale = (right - left) / (high - low)
    yscale = plot / ys[-1]
    parts = _frame(left, top, right, bottom, title)
    for k, n in enumerate(heights):
        if n:
            x = left + k * width * xscale
            parts.append(_rect(x, bottom - n * yscale, width * xscale, n * yscale))
    parts += _x_axis(left, right, bottom, xs, xscale, low, "answer")
    for y in ys:
        at = bottom - y * yscale
        parts += [_line(left - 3.5, at, left, at), _text(left - _TICK, at, number(y), anchor="end")]
    parts.append(
        f'<text transform="translate(9.6 {_f((top + bottom) / 2)}) rotate(-90)" text-anchor="middle" '
        f'dominant-baseline="central">judgments</text>'
    )
    return _svg(WIDTH, bottom + _BELOW, parts)
