"""The report's plots, written as SVG by judgments/plots.py: well-formed whatever the labels
hold (markup, control characters, lone surrogates, maths), bars as long as their counts and a
histogram's bars summing to its judgments, round ticks that cover the data, the same bytes for
the same data, and the page of the examples drawn with every kind of plot."""

from __future__ import annotations

import math
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from humanjudge_schema import validate
from humanjudge_schema.judgments import html, plots, units, views

from .conftest import ROOT

SVG = "{http://www.w3.org/2000/svg}"


def _parsed(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def _rects(root: ET.Element) -> list[dict[str, float]]:
    return [{k: float(v) for k, v in r.attrib.items() if k != "fill"} for r in root.iter(f"{SVG}rect")]


def _texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


@given(labels=st.lists(st.text(max_size=80), min_size=1, max_size=30), title=st.text(max_size=40))
def test_any_label_makes_well_formed_svg_that_shows_it_as_text(labels: list[str], title: str) -> None:
    counts = [(label, k + 1) for k, label in enumerate(labels)]
    root = _parsed(plots.bars(counts, title))
    said = " ".join(_texts(root))
    for label, _ in plots.shown(counts)[:5]:
        for word in plots._label(label).split():
            if not any(plots._unfit(c) for c in word):
                assert word in said


def test_markup_and_maths_in_labels_are_text() -> None:
    svg = plots.bars([("<script>alert(1)</script>", 2), ("$x^{$", 1), ('a"b&c', 1), ("\x01\ud800", 1)], "<b>q</b>")
    assert "<script" not in svg and "<b>" not in svg
    root = _parsed(svg)
    texts = _texts(root)
    assert "<script>alert(1)</script>" in texts and "$x^{$" in texts and 'a"b&c' in texts and "<b>q</b>" in texts
    assert "\ufffd\ufffd" in texts


def test_bars_are_as_long_as_their_counts_and_the_longest_leaves_room_for_its_count() -> None:
    counts = [("yes", 139), ("no", 128), ("maybe", 3), ("", 0)]
    root = _parsed(plots.bars(counts, ""))
    widths = [r["width"] for r in _rects(root)]
    per = widths[0] / 139
    assert widths == pytest.approx([n * per for _, n in counts], abs=0.01)
    right = float(root.attrib["viewBox"].split()[2]) - plots._RIGHT
    longest = _rects(root)[0]
    assert longest["x"] + longest["width"] + plots.text_width("139", plots.COUNT_SIZE) <= right
    assert [t for t in _texts(root) if t.isdigit()][:4] == ["139", "128", "3", "0"]  # the counts, in order


def test_shares_of_a_total_are_written_beside_the_counts() -> None:
    texts = _texts(_parsed(plots.bars([("a", 3), ("b", 1)], "", total=4, xlabel="answers that tick it (of 4)")))
    assert "3 (75%)" in texts and "1 (25%)" in texts and "answers that tick it (of 4)" in texts


def test_a_histogram_has_its_bins_and_its_judgments() -> None:
    counts = [(1.5, 3), (2.25, 10), (4.0, 1), (7.5, 6)]
    root = _parsed(plots.histogram(counts, ""))
    rects = _rects(root)
    assert len(rects) == 3  # four bins from 1.5 to 7.5 of width 1.5; the third holds no answer
    heights = [r["height"] for r in rects]
    per = heights[0] / 13  # 1.5 and 2.25 share the first bin
    assert heights == pytest.approx([13 * per, 1 * per, 6 * per], abs=0.01)
    one = _rects(_parsed(plots.histogram([(3.0, 5)], "")))
    assert len(one) == 1  # a single value: one bin around it


@pytest.mark.parametrize(
    ("low", "high", "integer", "expected"),
    [
        (0, 139, True, [0, 50, 100, 150]),
        (0, 4, True, [0, 1, 2, 3, 4]),
        (0, 1, True, [0, 1]),
        (1.5, 7.5, False, [0, 2, 4, 6, 8]),
        (0.001, 0.0013, False, [0.001, 0.0011, 0.0012, 0.0013]),
        (-3, 3, False, [-4, -2, 0, 2, 4]),
    ],
)
def test_ticks_are_round_and_cover_the_values(low: float, high: float, integer: bool, expected: list[float]) -> None:
    assert plots.ticks(low, high, integer=integer) == expected


@given(
    low=st.floats(-1e12, 1e12, allow_nan=False),
    span=st.floats(1e-6, 1e12, allow_nan=False),
    integer=st.booleans(),
)
@example(low=114150644021.0, span=6.103515625e-05, integer=False)  # a step near the spacing of doubles there
def test_ticks_cover_any_span_in_at_most_six_steps(low: float, span: float, integer: bool) -> None:
    high = low + span
    marks = plots.ticks(low, high, integer=integer)
    assert 2 <= len(marks) <= 6
    slack = (marks[1] - marks[0]) * 1e-9  # a tick within a billionth of a step of the data is at it
    assert marks[0] <= low + slack and marks[-1] >= high - slack


def test_numbers_beyond_a_double_are_refused() -> None:
    with pytest.raises(ValueError):
        plots.histogram([(-1.7e308, 1), (1.7e308, 1)], "")


@given(
    values=st.lists(
        st.tuples(st.floats(allow_nan=False, allow_infinity=False), st.integers(1, 10**6)), min_size=1, max_size=30
    )
)
def test_a_histogram_of_any_numbers_is_drawn_or_refused_never_broken(values: list[tuple[float, int]]) -> None:
    """Denormal, nearly equal or huge numbers: a histogram whose every coordinate is a number, or a
    ValueError the report shows as its table ("not plotted: ...")."""
    try:
        svg = plots.histogram(values, "")
    except ValueError:
        return
    root = _parsed(svg)
    for element in root.iter():
        for name, value in element.attrib.items():
            if name in ("x", "y", "x1", "y1", "x2", "y2", "width", "height") and element.tag != f"{SVG}svg":
                assert math.isfinite(float(value)), (name, value)
    assert sum(r["height"] for r in _rects(root)) > 0


def test_text_widths_grow_with_the_text_and_wide_characters_count_double() -> None:
    assert plots.text_width("ii") < plots.text_width("ab") < plots.text_width("WW")
    assert plots.text_width("漢字") == pytest.approx(2 * plots.text_width("漢"))
    assert plots.text_width("漢") > plots.text_width("a")


def test_the_same_data_gives_the_same_bytes() -> None:
    rng = random.Random(4)
    counts = [(f"label {k}", rng.randrange(100)) for k in range(30)]
    assert plots.bars(counts, "q") == plots.bars(list(counts), "q")
    numbers = [(rng.random() * 10, rng.randrange(1, 9)) for _ in range(50)]
    assert plots.histogram(numbers, "") == plots.histogram(list(numbers), "")


def test_the_page_of_the_examples(tmp_path: Path) -> None:
    examples = ROOT / "examples"
    result = validate([examples])
    target = tmp_path / "page.html"
    html.write_report(lambda: result, views(units([examples])[0]), target, samples=50)
    page = target.read_text(encoding="utf-8")
    svgs = re.findall(r"<svg .*?</svg>", page, re.S)
    assert len(svgs) >= 20  # the examples' labels, scales, histograms, options
    for svg in svgs:
        _parsed(svg)
    again = tmp_path / "again.html"
    html.write_report(lambda: result, views(units([examples])[0]), again, samples=50)
    assert again.read_bytes() == target.read_bytes()
