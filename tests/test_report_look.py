"""What `humanjudge report` shows of the answers, asserted on the page: the count at the end of
each bar, every point of a scale (the empty ones too) labelled as integers, a bar per option of a
multi-select question, sample answers of free text, the errors and warnings of each dataset in the
overview, dataset names as they were given, and long labels wrapped rather than cut."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from humanjudge_schema.judgments import html_answers, plots

from .conftest import ROOT

EXAMPLES = ROOT / "examples"


def _textjudge(metrics: list[dict[str, Any]], scores: dict[str, list[list[Any]]]) -> bytes:
    """A TextJudge dataset: each metric's scores, a list of the raters' scores per instance."""
    instances = [
        {
            "id": i,
            "instance": "x",
            "annotations": {name: _score(per[i]) for name, per in scores.items()},
        }
        for i in range(len(next(iter(scores.values()))))
    ]
    data = {
        "dataset": "Look",
        "dataset_url": "https://example.org",
        "expert_annotator": "false",
        "original_prompt": False,
        "annotations": metrics,
        "instances": instances,
    }
    return json.dumps(data).encode("utf-8")


def _score(scores: list[Any]) -> dict[str, Any]:
    """A score object whose aggregate is right: the mean, or a most frequent label."""
    if isinstance(scores[0], str):
        return {"majority_human": Counter(scores).most_common(1)[0][0], "individual_human_scores": scores}
    return {"mean_human": sum(scores) / len(scores), "individual_human_scores": scores}


def _report(cwd: Path, *paths: str) -> tuple[subprocess.CompletedProcess[str], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "report", *paths, "-o", "out.html", "--samples", "50"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc, (cwd / "out.html").read_text(encoding="utf-8")


def _labels(page: str) -> list[str]:
    """What each plot says of its bars (its aria-label), in page order."""
    return re.findall(r'<div class="plot" role="img" aria-label="([^"]*)">', page)


def test_a_scale_shows_every_point_with_its_count(tmp_path: Path) -> None:
    graded = {"metric": "graded", "category": "graded", "prompt": "{{ instance }}", "worst": 1, "best": 6}
    labels = {"metric": "label", "category": "categorical", "prompt": "{{ instance }}", "labels_list": ["yes", "no"]}
    (tmp_path / "data").mkdir()
    scores: dict[str, list[list[Any]]] = {
        "graded": [[1, 3, 5], [1, 4, 5], [5, 5, 1.0]],
        "label": [["yes", "no"], ["yes", "yes"], ["no", "no"]],
    }
    (tmp_path / "data" / "dataset.json").write_bytes(_textjudge([graded, labels], scores))
    proc, page = _report(tmp_path, "data")
    assert proc.returncode == 0, proc.stderr
    # nobody chose 2 nor the end point 6: their bars are there, empty; 1.0 is the point 1; the
    # labels in the order the metric declares them
    assert _labels(page) == ["1: 3; 2: 0; 3: 1; 4: 1; 5: 4; 6: 0", "yes: 3; no: 3"]
    # the name of the dataset as it was given, not the absolute path of the folder
    assert str(tmp_path) not in page and "data/dataset.json" in page


def test_a_declared_scale_shows_its_points_nobody_chose() -> None:
    shown = html_answers.Plots().of([(2, 3), (3, 1)], "ordinal", [1, 2, 3, 4, 5])
    assert 'aria-label="1: 0; 2: 3; 3: 1; 4: 0; 5: 0"' in shown


def test_a_wide_slider_is_a_histogram_and_a_narrow_one_a_bar_per_point() -> None:
    plotted = html_answers.Plots()
    narrow = plotted.of([(0.0, 2), (3.0, 1), (6.0, 4)], "interval")
    assert 'aria-label="0: 2; 1: 0; 2: 0; 3: 1; 4: 0; 5: 0; 6: 4"' in narrow
    wide = plotted.of([(0, 2), (37, 1), (100, 4)], "interval")
    assert "<svg" in wide and "aria-label" not in wide


def test_a_multi_select_question_has_a_bar_per_option(tmp_path: Path) -> None:
    shown = html_answers.Plots().of([((0, 1, 0, 0, 0), 253), ((0, 1, 0, 1, 0), 87), ((0, 0, 0, 0, 0), 2)], "nominal")
    assert 'aria-label="option 1: 0; option 2: 340; option 3: 0; option 4: 87; option 5: 0"' in shown
    # the bundled CogGym example: its multi-select question, one bar per option
    proc, page = _report(tmp_path, str(EXAMPLES / "coggym" / "valid"))
    assert proc.returncode == 0, proc.stderr
    assert "option 1: 1; option 2: 2; option 3: 0; option 4: 0" in _labels(page)


def test_free_text_shows_five_samples_escaped_and_shortened() -> None:
    values = [(f"<b>answer {k}</b> " + "long " * 100, 1) for k in range(30)]
    shown = html_answers.Plots().of(values, None)
    assert "<svg" not in shown and "30 distinct answers in 30 judgments" in shown
    samples = re.findall(r"<li>(.*?)</li>", shown)
    assert len(samples) == html_answers.SAMPLES
    assert samples[0].startswith("&lt;b&gt;answer 0&lt;/b&gt;") and "<b>" not in shown
    assert all(len(s) <= html_answers.SAMPLE_CHARS + 20 for s in samples) and samples[0].endswith("…")


def test_the_overview_counts_the_errors_and_warnings_of_each_dataset(tmp_path: Path) -> None:
    proc, page = _report(tmp_path, str(EXAMPLES / "coggym" / "broken"), str(EXAMPLES / "textjudge" / "valid"))
    assert proc.returncode == 1
    said = re.search(r"(\d+) errors, (\d+) warnings", proc.stdout)
    assert said
    overview = page[page.index('<table class="summary') : page.index('<section id="reading"')]
    rows = re.findall(r'<tr data-order="\d+" data-target="d\d+"[^>]*>(.*?)</tr>', overview)
    assert len(rows) == 2
    cells = [[int(n) for n in re.findall(r'<td class="n" data-v="\d+">(?:<span class="\w+">)?(\d+)', r)] for r in rows]
    assert sum(c[2] for c in cells) == int(said.group(1)) > 0  # errors
    assert sum(c[3] for c in cells) == int(said.group(2))  # warnings
    assert cells[1][2:4] == [0, 0]  # the valid dataset


def test_a_long_label_is_wrapped_not_cut() -> None:
    label = plots._label("the raters were asked whether the summary is faithful to the source")
    assert label.split("\n") == ["the raters were asked", "whether the summary is", "faithful to the source"]
    longer = plots._label("word " * 40)
    assert longer.count("\n") == plots.LABEL_LINES - 1 and longer.endswith("…")
    assert plots._label("short") == "short"


def test_declared_labels_keep_their_order_and_many_labels_are_described_as_drawn() -> None:
    plotted = html_answers.Plots()
    labels = plotted.of([("good", 2), ("bad", 1), ("odd", 1)], "ordinal", ["bad", "ok", "good"])
    assert 'aria-label="bad: 1; ok: 0; good: 2; odd: 1"' in labels
    many = [(f"label {k}", k + 1) for k in range(30)]
    described = re.search(r'aria-label="([^"]*)"', plotted.of(many, "nominal"))
    assert described and described.group(1).endswith("11 others: 66")
    assert described.group(1).count(";") == plots.SHOWN_VALUES - 1
