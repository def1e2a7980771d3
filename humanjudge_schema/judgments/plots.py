"""Distribution plots as inline SVG, drawn with matplotlib (the `report` extra). Imported only by
`humanjudge report`: matplotlib takes half a second to import, and nothing else needs it.

matplotlib is configured by this module alone. Left to itself it reads a `matplotlibrc` from the
working folder (a pull request's checkout, in the GitHub Action), from MATPLOTLIBRC and from the
user's configuration folder, and some of its settings run code (`figure.hooks` imports and calls
any installed function on every figure made through pyplot). So matplotlib is imported from an
empty folder with MATPLOTLIBRC naming its own default file, pyplot is never used (a `Figure` is
drawn by the SVG canvas directly: no hooks, no backend to resolve), and every figure is drawn
inside an rc context of the package's defaults plus the settings below, whatever the process's
rcParams hold. Maths syntax is off: a label `Pay $5 or $10` is that text, never TeX.

The SVG carries its text as paths (no font to load) and no date or random ids, so a report is
self-contained and the same data gives the same bytes. Each figure is laid out from the widths of
its labels (measured as text paths, not drawn), so it is drawn once: cropping it to what was drawn
(`bbox_inches="tight"`) drew it twice, and doubled the cost of a plot.
"""

from __future__ import annotations

import importlib.util
import io
import os
import sys
import tempfile
import textwrap
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

COLOR = "#3b6ea5"
SHOWN_VALUES = 20  # bars of a categorical plot; the rest are summed in one bar
WIDTH = 4.2 * 72  # a figure's width, in points
BAR = 0.22 * 72  # the height of a bar's row
LINE = 9.6  # the height of a line of a label, in points
LINE_CHARS = 26  # characters on a line of a bar's label: a longer label is wrapped
LABEL_LINES = 3  # lines of a bar's label: the last is shortened beyond them
COUNT_SIZE = 7.0  # the size of the counts written at the end of the bars
# Room, in points, for what lies outside the axes: a tick and its pad, the axis label under the
# tick labels, the title above, and what the last tick label overhangs on the right.
_TICK = 3.5 + 3.5
_BELOW = _TICK + 9.6 + 4 + 9.6 + 4
_TITLE = 14.0
_RIGHT = 12.0

# What the report's plots change from matplotlib's defaults.
_SETTINGS: dict[str, Any] = {
    "svg.fonttype": "path",
    "svg.hashsalt": "humanjudge",
    "font.size": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "text.usetex": False,
    "text.parse_math": False,  # '$x^{$' is a label, not maths to parse (or fail on)
    "axes.formatter.use_mathtext": False,
    "figure.hooks": [],
}


def _import() -> Any:
    """matplotlib, imported so that no rc file but its own is read (see the module's doc)."""
    if "matplotlib" in sys.modules:  # imported by the program using the library: the rc context covers it
        return sys.modules["matplotlib"]
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("report needs matplotlib: pip install 'humanjudge-schema[report]'")
    own = Path(next(iter(spec.submodule_search_locations)), "mpl-data", "matplotlibrc")
    before_cwd, before_rc = os.getcwd(), os.environ.get("MATPLOTLIBRC")
    with tempfile.TemporaryDirectory(prefix="humanjudge-mpl-") as empty:
        os.chdir(empty)  # the first place matplotlib looks for a matplotlibrc
        os.environ["MATPLOTLIBRC"] = str(own)  # the second: its own defaults, before the user's folder
        try:
            import matplotlib
        finally:
            os.chdir(before_cwd)
            if before_rc is None:
                os.environ.pop("MATPLOTLIBRC", None)
            else:
                os.environ["MATPLOTLIBRC"] = before_rc
    return matplotlib


_mpl = _import()
from matplotlib.backends.backend_svg import FigureCanvasSVG  # noqa: E402  (after the import above)
from matplotlib.figure import Figure  # noqa: E402

# The package's own defaults (never the rc file read at import), without the backend, which
# rc_context leaves alone: the SVG canvas is chosen explicitly.
_RC = {k: v for k, v in _mpl.rcParamsDefault.items() if k != "backend"} | _SETTINGS


@contextmanager
def _figure(height: float, left: float, title: str) -> Iterator[Any]:
    """A figure of the plots' width and `height` points, and its axes, `left` points from its
    left edge and room for the axis label below and the title above."""
    with _mpl.rc_context(rc=_RC):
        top = 4.0 + (_TITLE if title else 0.0)
        fig = Figure(figsize=(WIDTH / 72, (height + _BELOW + top) / 72))
        FigureCanvasSVG(fig)
        full = height + _BELOW + top
        left = min(left, WIDTH / 2)  # labels of unusually wide glyphs are cut rather than the bars
        fig.add_axes((left / WIDTH, _BELOW / full, 1 - (left + _RIGHT) / WIDTH, height / full))
        # Not cleared after: clearing a figure makes its axes anew, a tenth of a plot's cost, to
        # free what the cyclic collector frees anyway.
        yield fig


def _width(texts: Sequence[str], size: float = _SETTINGS["font.size"]) -> float:
    """The width of the widest text, in points, at `size` (call in the rc context)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    prop = FontProperties(size=size)
    return max((text_to_path.get_text_width_height_descent(t, prop, ismath=False)[0] for t in texts), default=0.0)


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


def _svg(fig: Any) -> str:
    out = io.StringIO()
    # no <metadata> block: no date (the same data, the same bytes), no creator links
    fig.savefig(out, format="svg", metadata=dict.fromkeys(("Date", "Creator", "Format", "Type")))
    text = out.getvalue()
    return text[text.index("<svg") :]  # the XML declaration and doctype do not belong in HTML


def shown(counts: Sequence[tuple[Hashable, int]]) -> list[tuple[Hashable, int]]:
    """The bars of a plot of `counts`: one per value, or, of more than SHOWN_VALUES, the most
    frequent and one bar of the others."""
    if len(counts) <= SHOWN_VALUES:
        return list(counts)
    top = sorted(counts, key=lambda vc: -vc[1])[: SHOWN_VALUES - 1]
    rest = sum(n for _, n in counts) - sum(n for _, n in top)
    return [*top, (f"{len(counts) - len(top)} others", rest)]


def bars(counts: Sequence[tuple[Hashable, int]], title: str, *, total: int | None = None, xlabel: str = "") -> str:
    """A horizontal bar per value (in the order given), the most frequent SHOWN_VALUES of many,
    its count written at its end; with `total`, each count is also a share of it (the options
    of a multi-select question, each ticked by a share of the answers)."""
    drawn = shown(counts)
    labels = [_label(v) for v, _ in drawn]
    said = [f"{n}" + (f" ({n / total:.0%})" if total else "") for _, n in drawn]
    lines = max((label.count("\n") + 1 for label in labels), default=1)
    row = max(BAR, LINE * lines + 4)
    with _mpl.rc_context(rc=_RC):
        left = _width([line for label in labels for line in label.split("\n")]) + _TICK + 6
        room = _width(said, COUNT_SIZE) + 4  # for the widest count, right of its bar
    with _figure(row * (len(drawn) + 0.6), left, title) as fig:
        from matplotlib.ticker import MaxNLocator

        (ax,) = fig.axes
        ax.barh(range(len(drawn)), [n for _, n in drawn], color=COLOR, height=max(0.5, 0.8 * BAR / row))
        ax.set_yticks(range(len(drawn)), labels)
        ax.invert_yaxis()
        most = max((n for _, n in drawn), default=0) or 1
        inside = WIDTH * ax.get_position().width  # the axes' width, in points
        ax.set_xlim(0, most * inside / max(inside - room, inside / 2))
        ax.xaxis.set_major_locator(MaxNLocator("auto", integer=True, steps=[1, 2, 2.5, 5, 10]))
        for k, text in enumerate(said):
            ax.annotate(text, (drawn[k][1], k), xytext=(2, 0), textcoords="offset points", va="center", size=COUNT_SIZE)
        ax.set_xlabel(xlabel or "judgments")
        ax.set_title(title, loc="left", fontsize=8)
        return _svg(fig)


def histogram(counts: Sequence[tuple[float, int]], title: str) -> str:
    """A histogram of numeric answers, each value weighted by how often it was given."""
    with _mpl.rc_context(rc=_RC):  # room for the y label and the widest count
        left = 9.6 + 4 + _width([f"{sum(n for _, n in counts)}.0"]) + _TICK + 2
    with _figure(1.8 * 72 - _BELOW - 6, left, title) as fig:
        (ax,) = fig.axes
        values = [float(v) for v, _ in counts]
        weights = [n for _, n in counts]
        bins = min(20, max(1, len(values)))
        ax.hist(values, bins=bins, weights=weights, color=COLOR)
        from matplotlib.ticker import MaxNLocator

        ax.yaxis.set_major_locator(MaxNLocator("auto", integer=True, steps=[1, 2, 2.5, 5, 10]))
        ax.set_xlabel("answer")
        ax.set_ylabel("judgments")
        ax.set_title(title, loc="left", fontsize=8)
        return _svg(fig)
