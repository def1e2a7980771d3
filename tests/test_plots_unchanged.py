"""The report's figures are not cleared after they are drawn (plots._figure): the page is the one
drawn with every figure cleared, whatever was drawn before it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT

pytest.importorskip("matplotlib")

from humanjudge_schema import validate
from humanjudge_schema.judgments import html, plots, units, views  # needs matplotlib

FIGURE = plots._figure


@contextmanager
def _cleared(height: float, left: float, title: str) -> Iterator[Any]:
    """A figure cleared once drawn, as every figure was before."""
    with FIGURE(height, left, title) as fig:
        try:
            yield fig
        finally:
            fig.clear()


def _page(folder: Path, target: Path) -> bytes:
    result = validate([folder])
    html.write_report(lambda: result, views(units([folder])[0]), target, samples=50)
    return target.read_bytes()


def test_the_page_is_the_page_of_cleared_figures(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    examples = ROOT / "examples"
    now = _page(examples, tmp_path / "now.html")
    monkeypatch.setattr(plots, "_figure", _cleared)
    before = _page(examples, tmp_path / "before.html")
    assert now == before
    assert now.count(b'<div class="plot"') >= 20  # the examples' labels, scales, histograms, options


def test_a_plot_is_the_same_whatever_was_drawn_before_it() -> None:
    labels = [("yes", 5), ("no", 7), ("a label long enough to be wrapped on two lines", 3)]
    first = plots.bars(labels, "", total=15, xlabel="answers that tick it (of 15)")
    for k in range(5):  # figures of other shapes, left to the collector
        plots.histogram([(1.5, 2 + k), (2.25, 1), (40.0, 3)], "")
        plots.bars([(str(v), v + k) for v in range(12)], "")
    assert plots.bars(labels, "", total=15, xlabel="answers that tick it (of 15)") == first
