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
