"""`humanjudge report`: one self-contained page, opened in a real browser when one is installed
(Debian's chromium; `.ci/run` installs it), with no console errors and the expected tables and
plots; a screenshot is kept beside the page."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from humanjudge_schema import judgments

from .conftest import ROOT

EXAMPLES = ROOT / "examples"
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def _report(tmp_path: Path, *paths: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    out = tmp_path / "report.html"
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "report", *map(str, paths), "-o", str(out)],
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
    # nothing is fetched: no script, no stylesheet, image, font or frame from anywhere
    assert not re.search(r"<(script|link|img|iframe)\b", html)
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
    assert "coggym/mean-value</span> (3)" in html and "textjudge/template-variable" in html


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
    assert BROWSER is not None
    shot = out.with_suffix(".png")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]
    dom = subprocess.run([BROWSER, *flags, "--dump-dom", out.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []
    rendered = dom.stdout
    assert rendered.count("<svg") == out.read_text(encoding="utf-8").count("<svg")
    assert rendered.count("<table") >= 2 and "<h1>humanjudge report</h1>" in rendered
    # every link of the page (the contents, the overview, the way back to the top) leads to an id on it
    ids = set(re.findall(r'\sid="([^"]+)"', rendered))
    links = set(re.findall(r'<a [^>]*href="#([^"]+)"', rendered))
    assert {"top", "d0", "d0-q0"} <= links and links <= ids
    taken = subprocess.run(
        [BROWSER, *flags, f"--screenshot={shot}", "--window-size=1280,2400", out.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert taken.returncode == 0 and shot.stat().st_size > 20_000  # a page with plots, not a blank one
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
