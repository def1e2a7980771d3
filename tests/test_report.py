"""`humanjudge report`: one self-contained page, opened in a real browser when one is installed
(Debian's chromium; `.ci/run` installs it; driven by tests/browser.py) with no console errors and
the expected tables and plots, its contents fixed beside it, its summary sorted and filtered, and
nothing past its edge at 1,280 pixels; a screenshot is taken."""

from __future__ import annotations

import re
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest

from humanjudge_schema import judgments

from .browser import BROWSER, Page
from .conftest import CORPUS, ROOT

EXAMPLES = ROOT / "examples"


def _report(tmp_path: Path, *paths: Path, samples: int = 1000) -> tuple[subprocess.CompletedProcess[str], Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    out = tmp_path / "report.html"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "humanjudge_schema",
            "report",
            *map(str, paths),
            "-o",
            str(out),
            "--samples",
            str(samples),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc, out


@pytest.fixture(scope="module")
def example_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    return _report(tmp_path_factory.mktemp("report"), EXAMPLES)


def test_the_report_is_one_self_contained_page(example_report: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    proc, out = example_report
    assert proc.returncode == 1  # the broken examples have errors: the exit code is validate's
    datasets = len(list(judgments.datasets([EXAMPLES])))  # every example dataset has judgments
    assert "wrote" in proc.stdout and f" {datasets} datasets" in proc.stdout
    html = out.read_text(encoding="utf-8")
    # nothing is fetched: no stylesheet, image, font or frame from anywhere, and its one script is in it
    assert not re.search(r"<(link|img|iframe)\b", html)
    assert html.count("<script") == 1 and "<script>" in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and not re.search(r"url\((?!#)", html)  # only clip paths within the page
    # a section per dataset, a plot per question with answers to plot
    views = list(judgments.datasets([EXAMPLES]))
    assert html.count('<section id="d') == len(views)
    questions = sum(len({r.question for r in v.rows()}) for v in views)
    assert html.count('<div class="question" id="') == questions
    # free text with many distinct answers has no plot, nor a question of stored aggregates only
    answered = sum(len({r.question for r in v.rows() if r.role == "individual"}) for v in views)
    assert html.count("<svg") >= answered - 6
    # the findings of the broken examples, grouped by code
    assert "<code>coggym/mean-value</code></a></span> (3)" in html and "textjudge/template-variable" in html


def test_the_report_is_the_same_for_the_same_data(tmp_path: Path) -> None:
    first, a = _report(tmp_path / "a", EXAMPLES / "textjudge" / "valid")
    second, b = _report(tmp_path / "b", EXAMPLES / "textjudge" / "valid")
    assert first.returncode == second.returncode == 0
    assert a.read_bytes() == b.read_bytes()


def test_the_report_never_overwrites_an_input(tmp_path: Path) -> None:
    target = EXAMPLES / "textjudge" / "valid" / "dataset.json"
    before = target.read_bytes()
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "report", str(target.parent), "-o", str(target)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2 and "which the output is computed from" in proc.stderr
    assert target.read_bytes() == before


@pytest.mark.skipif(BROWSER is None, reason="no Chromium installed (apt-get install chromium)")
def test_the_report_opens_in_a_browser_without_errors(
    example_report: tuple[subprocess.CompletedProcess[str], Path], tmp_path: Path
) -> None:
    _, out = example_report
    shot = tmp_path / "report.png"
    with Page(out.as_uri()) as page:
        assert page.errors() == []
        assert page.run("document.querySelectorAll('svg').length") == out.read_text(encoding="utf-8").count("<svg")
        assert page.run("document.querySelector('h1').textContent") == "humanjudge report"
        # every link of the page (the contents, the summary, the codes, the way back to the top) leads to an id on it
        ids = set(page.run("[...document.querySelectorAll('[id]')].map(e => e.id)"))
        links = set(page.run("[...document.querySelectorAll('a[href^=\"#\"]')].map(a => a.hash.slice(1))"))
        assert {"top", "d0", "d0-q0", "summary", "reading"} <= links and links <= ids
        page.screenshot(shot)
    assert shot.stat().st_size > 20_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"  # not a blank page


def _pages(tmp_path: Path, examples: Path) -> list[Path]:
    """The report of the examples, and of JUDGE-BENCH and CogGym where the corpus is there (long
    names, many datasets, experiments without judgments)."""
    pages = [examples]
    if (CORPUS / "judgebench").exists() and (CORPUS / "coggym").exists():
        pages.append(_report(tmp_path / "corpus", CORPUS / "judgebench", CORPUS / "coggym", samples=20)[1])
    return pages


# In the page: the values of one column of the summary, in the rows' order (visible rows only).
_COLUMN = """[...document.querySelectorAll('#datasets tbody tr')].filter(r => !r.hidden)
  .map(r => r.cells[%d].getAttribute('data-v'))"""
# Every element that reaches past the page's right edge, and every cell of a figure or a format
# whose text takes more than one line (a column's name may take two).
_OVERFLOW = """(() => {
  document.querySelectorAll('details').forEach(d => d.open = true);
  const width = document.documentElement.clientWidth, out = [];
  for (const e of document.querySelectorAll('main *, #contents *')) {
    const r = e.getBoundingClientRect();
    if (r.width && r.right > width + 0.5) out.push(e.tagName + '.' + e.className + ' ' + Math.round(r.right));
  }
  const lines = cell => {  // the lines its text takes: the distinct tops of its text's boxes
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT), tops = new Set();
    for (let t = walk.nextNode(); t; t = walk.nextNode()) {
      const range = document.createRange(); range.selectNodeContents(t);
      for (const r of range.getClientRects()) if (r.width) tops.add(Math.round(r.top));
    }
    return tops.size; };
  const wrapped = [...document.querySelectorAll(
    '#datasets td.n, #datasets td.fmt, table.options td + td, table.disputed td.n')]
    .filter(c => lines(c) > 1).map(c => c.textContent);
  return {overflow: out.slice(0, 10), wrapped: wrapped.slice(0, 10),
          scroll: document.documentElement.scrollWidth - width};
})()"""


@pytest.mark.skipif(BROWSER is None, reason="no Chromium installed (apt-get install chromium)")
def test_the_report_navigates_sorts_filters_and_fits_1280_pixels(
    example_report: tuple[subprocess.CompletedProcess[str], Path], tmp_path: Path
) -> None:
    for out in _pages(tmp_path, example_report[1]):
        with Page(out.as_uri(), width=1280, height=900) as page:
            assert page.errors() == []
            # the contents stay beside the page as it scrolls, and lead to each dataset
            assert page.run("getComputedStyle(document.getElementById('contents')).position") == "fixed"
            last = page.run("document.querySelectorAll('#datasets tbody tr').length") - 1
            page.run(f"document.querySelector('#contents a[href=\"#d{last}\"]').click()")
            assert page.run("window.scrollY") > 0
            assert abs(page.run(f"document.getElementById('d{last}').getBoundingClientRect().top")) < 5
            assert page.run("document.getElementById('contents').getBoundingClientRect().top") == 0
            # a click on a column's head sorts by it, a second click the other way; a missing value last
            heads = page.run("[...document.querySelectorAll('#datasets thead button')].map(b => b.textContent)")
            assert heads == [*HEADS]
            for column, name in enumerate(HEADS):
                page.run(f"document.querySelectorAll('#datasets thead button')[{column}].click()")
                rising = page.run(_COLUMN % column)
                page.run(f"document.querySelectorAll('#datasets thead button')[{column}].click()")
                falling = page.run(_COLUMN % column)
                assert _ordered(rising, 1) and _ordered(falling, -1), name
            # the filter keeps the datasets whose name, format or question names hold the words
            kept = page.run(
                "(() => { const box = document.getElementById('filter'); box.value = 'TextJudge';"
                " box.dispatchEvent(new Event('input')); return [...document.querySelectorAll('#datasets tbody tr')]"
                ".map(r => [r.hidden, r.getAttribute('data-text').includes('textjudge')]); })()"
            )
            assert all(hidden != holds for hidden, holds in kept) and 0 < sum(h for _, h in kept) < len(kept)
            shown = [row for row in kept if not row[0]]
            hidden = page.run("[...document.querySelectorAll('main > section[id^=d]')].filter(s => s.hidden).length")
            assert hidden == last + 1 - len(shown)
            page.run(
                "(() => { const box = document.getElementById('filter'); box.value = '';"
                " box.dispatchEvent(new Event('input')); })()"
            )
            # nothing reaches past the edge at 1,280 pixels, and no figure or name of a column wraps
            found = page.run(_OVERFLOW)
            assert found == {"overflow": [], "wrapped": [], "scroll": 0}, out


HEADS = ("dataset", "format", "questions", "judgments", "lowest alpha", "errors", "warnings", "quality findings")


def _ordered(values: list[str], direction: int) -> bool:
    """Whether the values are sorted (numbers as numbers), missing ones ("") last."""
    given = [v for v in values if v != ""]
    if values[len(given) :] != [""] * (len(values) - len(given)):
        return False
    keys = [float(v) if _number(v) else v for v in given]
    return all((a <= b) if direction > 0 else (a >= b) for a, b in pairwise(keys))


def _number(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True
