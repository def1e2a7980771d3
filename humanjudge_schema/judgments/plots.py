"""Distribution plots as inline SVG, drawn with matplotlib (the `report` extra). Imported only by
`humanjudge report`: matplotlib takes half a second to import, and nothing else needs it.

The SVG carries its text as paths (no font to load) and no date or random ids, so a report is
self-contained and the same data gives the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Hashable, Sequence
from typing import Any

import matplotlib

matplotlib.use("svg")

import matplotlib.pyplot as plt  # after choosing the backend

plt.rcParams.update(
    {
        "svg.fonttype": "path",
        "svg.hashsalt": "humanjudge",
        "font.size": 8,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }
)

COLOR = "#3b6ea5"
SHOWN_VALUES = 20  # bars of a categorical plot; the rest are summed in one bar


def _label(value: Hashable, width: int = 24) -> str:
    text = str(list(value)) if isinstance(value, tuple) else str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _svg(fig: Any) -> str:
    out = io.StringIO()
    # no <metadata> block: no date (the same data, the same bytes), no creator links
    fig.savefig(out, format="svg", bbox_inches="tight", metadata=dict.fromkeys(("Date", "Creator", "Format", "Type")))
    plt.close(fig)
    text = out.getvalue()
    return text[text.index("<svg") :]  # the XML declaration and doctype do not belong in HTML


def bars(counts: Sequence[tuple[Hashable, int]], title: str) -> str:
    """A horizontal bar per value (in the order given), the most frequent SHOWN_VALUES of many."""
    shown = list(counts)
    if len(shown) > SHOWN_VALUES:
        top = sorted(shown, key=lambda vc: -vc[1])[: SHOWN_VALUES - 1]
        rest = sum(n for _, n in shown) - sum(n for _, n in top)
        shown = [*top, (f"{len(counts) - len(top)} others", rest)]
    fig, ax = plt.subplots(figsize=(4.2, 0.35 + 0.22 * len(shown)))
    labels = [_label(v) for v, _ in shown]
    ax.barh(range(len(shown)), [n for _, n in shown], color=COLOR)
    ax.set_yticks(range(len(shown)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("judgments")
    ax.set_title(title, loc="left", fontsize=8)
    return _svg(fig)


def histogram(counts: Sequence[tuple[float, int]], title: str) -> str:
    """A histogram of numeric answers, each value weighted by how often it was given."""
    fig, ax = plt.subplots(figsize=(4.2, 1.8))
    values = [float(v) for v, _ in counts]
    weights = [n for _, n in counts]
    bins = min(20, max(1, len(values)))
    ax.hist(values, bins=bins, weights=weights, color=COLOR)
    ax.set_xlabel("answer")
    ax.set_ylabel("judgments")
    ax.set_title(title, loc="left", fontsize=8)
    return _svg(fig)
