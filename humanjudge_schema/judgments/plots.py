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
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

COLOR = "#3b6ea5"
SHOWN_VALUES = 20  # bars of a categorical plot; the rest are summed in one bar
WIDTH = 4.2 * 72  # a figure's width, in points
BAR = 0.22 * 72  # the height of a bar's row
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
        yield fig


def _width(texts: Sequence[str]) -> float:
    """The width of the widest text, in points, at the plots' font size (call in the rc context)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    prop = FontProperties(size=_SETTINGS["font.size"])
    return max((text_to_path.get_text_width_height_descent(t, prop, ismath=False)[0] for t in texts), default=0.0)


def _label(value: Hashable, width: int = 24) -> str:
    text = str(list(value)) if isinstance(value, tuple) else str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _svg(fig: Any) -> str:
    out = io.StringIO()
    # no <metadata> block: no date (the same data, the same bytes), no creator links
    fig.savefig(out, format="svg", metadata=dict.fromkeys(("Date", "Creator", "Format", "Type")))
    text = out.getvalue()
    return text[text.index("<svg") :]  # the XML declaration and doctype do not belong in HTML


def bars(counts: Sequence[tuple[Hashable, int]], title: str) -> str:
    """A horizontal bar per value (in the order given), the most frequent SHOWN_VALUES of many."""
    shown = list(counts)
    if len(shown) > SHOWN_VALUES:
        top = sorted(shown, key=lambda vc: -vc[1])[: SHOWN_VALUES - 1]
        rest = sum(n for _, n in shown) - sum(n for _, n in top)
        shown = [*top, (f"{len(counts) - len(top)} others", rest)]
    labels = [_label(v) for v, _ in shown]
    with _mpl.rc_context(rc=_RC):
        left = _width(labels) + _TICK + 6
    with _figure(BAR * (len(shown) + 0.6), left, title) as fig:
        (ax,) = fig.axes
        ax.barh(range(len(shown)), [n for _, n in shown], color=COLOR)
        ax.set_yticks(range(len(shown)), labels)
        ax.invert_yaxis()
        ax.set_xlabel("judgments")
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
        ax.set_xlabel("answer")
        ax.set_ylabel("judgments")
        ax.set_title(title, loc="left", fontsize=8)
        return _svg(fig)
