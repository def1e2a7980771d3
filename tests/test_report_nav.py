"""What the report is navigated by, asserted on the page: a row and a section per dataset (one
without judgments too, its findings under it rather than among files of no dataset), a note said
once per format, each code linked to its documentation on the page, the guide to the figures
with its thresholds and sources, and each question's most disputed items with where they are.
tests/test_report.py opens the page in a browser."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from humanjudge_schema.registry import anchor
from humanjudge_schema.rulebook import load_all

from .conftest import ROOT, corpus
from .test_disputed import SCORES, _textjudge

EXAMPLES = ROOT / "examples"


def _report(cwd: Path, *paths: Path | str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "report", *map(str, paths), "-o", "out.html", "--samples", "20"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
    return (cwd / "out.html").read_text(encoding="utf-8")


def _rows(page: str) -> list[tuple[str, str]]:
    """The summary's rows: (the section each leads to, the row's cells)."""
    body = page[page.index('<table class="summary sortable"') :]
    body = body[body.index("<tbody>") : body.index("</tbody>")]
    return re.findall(r'<tr data-order="\d+" data-target="(d\d+)"[^>]*>(.*?)</tr>', body)


def _section(page: str, anchor_id: str) -> str:
    start = page.index(f'<section id="{anchor_id}">')
    return page[start : page.index("</section>", start)]


def _errors(cells: str) -> int:
    return int(re.findall(r'<td class="n" data-v="([^"]*)"', cells)[3])


def test_a_dataset_without_judgments_has_its_row_and_its_findings(tmp_path: Path) -> None:
    for name in ("a", "b"):
        shutil.copytree(EXAMPLES / "coggym" / "broken", tmp_path / name)
    for name in ("human_data_ind.json", "human_data_mean.json"):  # no judgments, nor stored means
        (tmp_path / "b" / name).unlink()
    page = _report(tmp_path, "a", "b")
    rows = _rows(page)
    assert [target for target, _ in rows] == ["d0", "d1"]
    assert "(no judgments)" in rows[1][1] and "(no judgments)" not in rows[0][1]
    b = _section(page, "d1")
    assert "No judgments: no individual data file human_data_ind.json" in b
    assert all(_errors(cells) > 0 for _, cells in rows)  # each experiment's errors in its own row
    assert 'id="other"' not in page and "b/config.json" in b


def test_every_experiment_of_a_collection_has_its_own_row(tmp_path: Path) -> None:
    collection = corpus("coggym")
    page = _report(tmp_path, collection)
    rows = _rows(page)
    experiments = {p.parent for p in collection.rglob("human_data_mean.json")}
    assert len(rows) == len(experiments) > 10
    assert 'id="other"' not in page  # no findings pooled under "other files"
    assert sum(_errors(cells) for _, cells in rows) == int(re.search(r"(\d+) errors</span>", page).group(1))


def test_a_note_of_every_dataset_of_a_format_is_said_once(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        shutil.copytree(EXAMPLES / "textjudge" / "valid", tmp_path / name)
    page = _report(tmp_path, "a", "b", "c")
    assert page.count("Raters are not compared") == 1
    assert "<strong>textjudge</strong> (3 datasets): Raters are not compared" in page
    for k in range(3):
        assert '<a href="#note-0">the note on textjudge</a>' in _section(page, f"d{k}")


def test_each_code_links_to_its_documentation_on_the_page(tmp_path: Path) -> None:
    page = _report(tmp_path, EXAMPLES / "coggym" / "broken", EXAMPLES / "textjudge" / "broken")
    rules = load_all()
    linked = set(re.findall(r'<a href="#code-([^"]+)" title="[^"]*"><code>([^<]+)</code></a>', page))
    assert {code for _, code in linked} >= {"coggym/mean-value", "textjudge/template-variable"}
    for slug, code in linked:
        assert slug == anchor(code)
        start = page.index(f'<div class="code" id="code-{slug}">')
        entry = page[start : page.index("</div>", start)]
        assert rules[code].summary in entry and f"rules.md#{anchor(code)}" in entry


def test_the_guide_gives_the_thresholds_and_their_sources(tmp_path: Path) -> None:
    page = _report(tmp_path, EXAMPLES / "textjudge" / "valid")
    guide = _section(page, "reading")
    assert "alpha &ge; .800" in guide and ".667 &le; alpha &lt; .800" in guide
    assert "Krippendorff (2004, p.&nbsp;241)" in guide and "Krippendorff, K. (2004)" in guide
    assert "Gwet, K. L. (2008)" in guide and "Landis, J. R., &amp; Koch" in guide
    listed = re.findall(r'<a href="#([a-z]+)">', page[page.index('<ul class="sections">') :][:400])
    assert listed[:2] == ["summary", "reading"]


def test_a_question_shows_its_most_disputed_items_and_where_they_are(tmp_path: Path) -> None:
    _textjudge(tmp_path, SCORES)
    page = _report(tmp_path, "data")
    card = page[page.index('<div class="question" id="d0-q0">') :]
    assert "Most disputed items: 5 of 6 items with two answers or more" in card
    rows = re.findall(r"<tr><td>([^<]*)<br><small class=\"where\">(.*?)</small></td>", card)
    assert rows[0][0] == "i2" and "dataset.json" in rows[0][1]
    assert "/instances/2/annotations/graded/individual_human_scores/0" in rows[0][1]
