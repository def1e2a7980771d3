"""Figures the docs quote from real data are the tool's: each is computed here by the command the
page describes, on the corpus, and must stand in the page as the tool prints it today. A change
that moves a figure fails here until the page says the new one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from .conftest import ROOT, corpus


def _stats(*args: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "humanjudge_schema", "stats", "--format", "json", *args]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def _page(name: str) -> str:
    return " ".join((ROOT / "docs" / name).read_text().split())  # line breaks as spaces


def test_halie_user_answer_alpha_as_the_pages_quote_it() -> None:
    """docs/stats.md and docs/conformance-study1-halie.md quote the question task's agreement."""
    found = _stats(str(corpus("halie", "data", "std", "question")))
    (question,) = (q for d in found["datasets"] for q in d["questions"] if q["question"] == "user_answer")
    low, high = question["alpha_ci"]
    quoted = f"alpha {question['alpha']:.3f} [{low:.3f}, {high:.3f}]"
    assert (question["items"], question["judgments"]) == (31, 3641)
    for page in ("stats.md", "conformance-study1-halie.md"):
        assert quoted in _page(page), f"docs/{page} does not quote {quoted}"


def test_the_coggym_experiments_whose_raters_are_compared() -> None:
    """docs/conformance-coggym.md names the experiments where `stats --raters` compares raters."""
    found = _stats("--raters", str(corpus("coggym")))
    compared = [Path(d["dataset"]) for d in found["datasets"] if d.get("raters")]
    page = _page("conformance-coggym.md")
    assert f"compared only in the {len(compared)} experiments" in page
    for folder in compared:
        assert folder.parent.name in page and folder.name in page, folder


def _validate(*args: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "humanjudge_schema", "validate", "--format", "json", *args]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def _quality(path: Path) -> list[dict[str, Any]]:
    return [f for f in _validate("--quality", str(path))["findings"] if f["code"].startswith("quality/")]


WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


def _figures(message: str) -> list[str]:
    """The numbers a finding's message gives (shares, counts), which the page must quote."""
    import re

    return re.findall(r"\d+(?:\.\d+)?%?", re.sub(r"'[^']*'", "", message))  # not in names


def test_the_coggym_quality_findings_as_the_page_judges_them() -> None:
    found = _quality(corpus("coggym"))
    sparse = [f for f in found if f["code"] == "quality/sparse-item"]
    (outlier,) = (f for f in found if f["code"] == "quality/outlying-rater")
    assert len(found) == len(sparse) + 1
    page = _page("conformance-coggym.md")
    said = f"they report {WORDS[len(found)]} warnings, {WORDS[len(sparse)]} `quality/sparse-item` and one"
    assert said in page
    for f in sparse:  # the item, its judgments and the question's median
        item = f["pointer"].split("/")[1]
        assert f"`{item}`" in page and all(n in page for n in _figures(f["message"])), f["message"]
    assert f"`{outlier['pointer']}`" in page
    assert all(n in page for n in _figures(outlier["message"])), outlier["message"]


def test_the_study1_and_halie_findings_as_the_page_counts_them() -> None:
    page = _page("conformance-study1-halie.md")
    for folder in (corpus("study1", "raw"), corpus("halie")):
        summary = _validate(str(folder))["summary"]
        said = f"# {summary['errors']} errors, {summary['warnings']} warnings in {summary['files']} files"
        assert said in page, said
    found = _quality(corpus("study1"))
    codes = [f["code"] for f in found]
    assert f"`quality/repeated-answer`, {codes.count('quality/repeated-answer')} times" in page
    for code in ("quality/straight-lining", "quality/outlying-rater"):
        assert codes.count(code) == 1 and f"`{code}`, once" in page, code
    for f in found:
        if f["code"] != "quality/repeated-answer":  # the line, the pointer or the figures of each
            assert f"line {f['line']}" in page or f"`{f['pointer']}" in page, f
            assert all(n in page for n in _figures(f["message"])), f["message"]
    assert not _quality(corpus("halie")) and "reports nothing on the five task folders" in page


def test_the_textjudge_quality_finding_as_the_page_gives_it() -> None:
    bench = corpus("judgebench")
    (finding,) = _quality(bench)
    assert finding["file"].endswith("newsroom/newsroom.json")
    found = _stats(str(corpus("judgebench", "dmg-illc+JUDGE-BENCH", "data", "newsroom")))
    (fluency,) = (q for d in found["datasets"] for q in d["questions"] if q["question"] == "Fluency")
    low, high = fluency["alpha_ci"]
    page = _page("conformance-textjudge.md")
    assert "reports one `quality/below-chance`" in page
    quoted = f"alpha (ordinal) is {fluency['alpha']:.3f} over the {fluency['items']} summaries"
    assert quoted in page and f"[{low:.3f}, {high:.3f}]" in page, quoted
    stats = _page("stats.md")  # the case the dominance note leaves reported
    agreement = fluency["agreement"]
    same = f"the same answer in {agreement['observed']:.0%} of pairs"
    said = f"alpha {fluency['alpha']:.3f} over ratings from 1 to 5, {same}"
    assert said in stats and f"AC2 (ordinal weights) {agreement['ac']:.3f}" in stats, said
    counts = list(fluency["distribution"]["counts"].values())  # of 1 to 5, in order
    assert f"{', '.join(map(str, counts[:-1]))} and {counts[-1]} ratings of 1 to 5" in stats
