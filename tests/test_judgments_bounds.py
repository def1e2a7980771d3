"""The judgments commands on hostile data: `report` and `stats` on datasets built to cost (many
questions, many distinct labels, numbers near the largest double, labels full of `$`), each run
as a child process whose address space is capped (RLIMIT_AS) under a probe that reads its peak
resident memory with wait4, as tests/test_matrix.py runs validate. Every row asserts the exit
code, that no traceback reaches the user, a time bound and a peak-memory bound; the measured
numbers are in docs/hostile-input.md ("The judgments commands"). Print them again with

    python -m tests.test_judgments_bounds

The page itself is checked too: a plot's ids are its own, no bidirectional mark is shown, and
the overview counts the quality findings the cards show.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema.judgments import agreement
from humanjudge_schema.judgments.agreement import Tally, alpha

from .helpers import Measured, measured, profile_counts, resample

ADDRESS_SPACE = 3 << 30  # matplotlib and numpy map more than validate alone
TIMEOUT = 300
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def run_cli(*args: str, cwd: Path) -> Measured:
    """`python -m humanjudge_schema ARGS` with its address space capped: its exit code, output,
    wall time and own peak resident memory."""
    return measured(args, cwd=cwd, limit=ADDRESS_SPACE, timeout=TIMEOUT)


# --- datasets -------------------------------------------------------------------------------


def _dataset(annotations: list[dict[str, Any]], instances: list[dict[str, Any]], name: str = "Generated") -> bytes:
    data = {
        "dataset": name,
        "dataset_url": "https://example.org",
        "expert_annotator": "false",
        "original_prompt": False,
        "annotations": annotations,
        "instances": instances,
    }
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def _score(category: str, scores: list[Any]) -> dict[str, Any]:
    """A score object whose aggregate is right: the mean, or a most frequent label."""
    if category == "categorical":
        return {"majority_human": Counter(scores).most_common(1)[0][0], "individual_human_scores": scores}
    return {"mean_human": sum(scores) / len(scores), "individual_human_scores": scores}


def questions(n: int, instances: int = 5, raters: int = 3, seed: int = 0) -> bytes:
    """A valid TextJudge dataset of `n` metrics (graded 1-5, labels yes/no/maybe, continuous
    1-5 in turn), each scored by `raters` on `instances` instances: n questions to plot."""
    rng = random.Random(seed)
    metrics: list[dict[str, Any]] = []
    for m in range(n):
        category = ("graded", "categorical", "continuous")[m % 3]
        metric: dict[str, Any] = {"metric": f"metric {m}", "category": category, "prompt": "Rate {{ instance }}"}
        if category == "categorical":
            metric["labels_list"] = ["yes", "no", "maybe"]
        else:
            metric |= {"worst": 1, "best": 5}
        metrics.append(metric)

    def answer(category: str) -> Any:
        if category == "categorical":
            return rng.choice(["yes", "no", "maybe"])
        return rng.randint(1, 5) if category == "graded" else round(rng.uniform(1, 5), 2)

    rows = [
        {
            "id": f"i{i}",
            "instance": f"text {i}",
            "annotations": {
                m["metric"]: _score(m["category"], [answer(m["category"]) for _ in range(raters)]) for m in metrics
            },
        }
        for i in range(instances)
    ]
    return _dataset(metrics, rows)


def labels(n: int, per_item: int = 100) -> bytes:
    """One categorical question with `n` distinct labels, `per_item` of them on each item."""
    names = [f"label {k}" for k in range(n)]
    rows = [
        {"id": i, "instance": "x", "annotations": {"m": _score("categorical", names[start : start + per_item])}}
        for i, start in enumerate(range(0, n, per_item))
    ]
    metric = {"metric": "m", "category": "categorical", "prompt": "{{ instance }}", "labels_list": names}
    return _dataset([metric], rows)


HUGE = ([1e308, -1e308, 1.7e308], [1e308, 1e307, 1e306])


def huge() -> bytes:
    """Two continuous questions whose scores are near the largest double (HUGE), three items
    each, the scores of each item in another order."""
    metrics = [
        {
            "metric": "signed",
            "category": "continuous",
            "prompt": "{{ instance }}",
            "worst": -1.79e308,
            "best": 1.79e308,
        },
        {"metric": "positive", "category": "continuous", "prompt": "{{ instance }}", "worst": 0, "best": 1.79e308},
    ]
    rows = [
        {
            "id": i,
            "instance": "x",
            "annotations": {
                name: {"mean_human": 0, "individual_human_scores": values[i:] + values[:i]}
                for name, values in zip(("signed", "positive"), HUGE, strict=True)
            },
        }
        for i in range(3)
    ]
    return _dataset(metrics, rows)


DOLLARS = ["$\\foo$", "$x^{$", "$" + "\\frac{" * 30 + "$", "Pay $5 or $10", "$$", "\\$"]


def dollars() -> bytes:
    """Labels that are maths to matplotlib unless it is told otherwise, as values and names."""
    metrics = [
        {"metric": label, "category": "categorical", "prompt": "{{ instance }}", "labels_list": DOLLARS}
        for label in DOLLARS
    ]
    rows = [
        {
            "id": i,
            "instance": "x",
            "annotations": {
                m["metric"]: _score("categorical", [DOLLARS[(i + k) % 6] for k in range(3)]) for m in metrics
            },
        }
        for i in range(6)
    ]
    return _dataset(metrics, rows)


# --- the rows -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    name: str
    build: Callable[[], bytes]
    command: tuple[str, ...]  # DATA stands for the dataset's folder
    seconds: float  # bounds
    rss_mb: float

    def run(self, tmp: Path) -> tuple[Measured, Path]:
        data = tmp / "data"
        data.mkdir()
        (data / "dataset.json").write_bytes(self.build())
        args = [str(data) if a == "DATA" else a for a in self.command]
        return run_cli(*args, cwd=tmp), tmp


ROWS = [
    Row("report on 1,000 questions", lambda: questions(1000), ("report", "DATA", "-o", "out.html"), 90, 500),
    Row("report on 3,000 questions", lambda: questions(3000), ("report", "DATA", "-o", "out.html"), 180, 600),
    Row("stats on 100,000 labels", lambda: labels(100_000), ("stats", "--format", "json", "DATA"), 15, 600),
    Row("stats on numbers near the largest double", huge, ("stats", "--format", "json", "DATA"), 20, 300),
    Row("report on numbers near the largest double", huge, ("report", "DATA", "-o", "out.html"), 30, 500),
    Row("report on labels of `$`", dollars, ("report", "DATA", "-o", "out.html"), 30, 500),
]
SLOW = {"report on 3,000 questions"}  # measured for the docs, not run by the tests


def _validate_rc(tmp: Path) -> int:
    return subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "validate", str(tmp / "data")], capture_output=True, timeout=120
    ).returncode


def _strict_json(text: str) -> Any:
    def refuse(token: str) -> None:
        raise ValueError(f"{token} in the JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("row", [r for r in ROWS if r.name not in SLOW], ids=lambda r: r.name)
def test_bounded(row: Row, tmp_path: Path) -> None:
    run, tmp = row.run(tmp_path)
    assert "Traceback" not in run.err and "internal error" not in run.err, run.err[-2000:]
    assert len(run.err.splitlines()) <= 1, run.err[-2000:]
    assert run.seconds < row.seconds, f"{run.seconds:.1f} s"
    assert run.rss_mb < row.rss_mb, f"{run.rss_mb:.0f} MB"
    if row.command[0] == "report":
        assert run.rc == _validate_rc(tmp)  # the exit code is validate's
        page = (tmp / "out.html").read_text(encoding="utf-8")
        assert len(page) < 8_000_000
    else:
        assert run.rc == 0
        found = _strict_json(run.out)  # no NaN, no Infinity
        questions = found["datasets"][0]["questions"]
        if row.build is huge:
            assert all(q["alpha"] is not None or q.get("note") for q in questions)
            assert questions[0]["distribution"]["max"] == 1.7e308


def test_a_page_of_many_questions_draws_a_bounded_number_of_plots(tmp_path: Path) -> None:
    from humanjudge_schema.judgments import html

    run, tmp = ROWS[0].run(tmp_path)
    assert run.rc == 0
    page = (tmp / "out.html").read_text(encoding="utf-8")
    assert page.count("<svg") == html.PLOTTED
    assert page.count('<table class="answers">') == 1000 - html.PLOTTED
    assert f"at most {html.PLOTTED} plots: the answers of the other {1000 - html.PLOTTED} questions" in page
    _assert_own_ids(page)


def _assert_own_ids(page: str) -> None:
    ids = re.findall(r'\sid="([^"]*)"', page)
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    referred = set(re.findall(r'(?:url\(#|href="#)([^)"]*)', page))
    assert referred and referred <= set(ids)


def _report(tmp: Path, data: bytes, folder: str = "data") -> str:
    (tmp / folder).mkdir()
    (tmp / folder / "dataset.json").write_bytes(data)
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "report", str(tmp / folder), "-o", str(tmp / "out.html")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
    return (tmp / "out.html").read_text(encoding="utf-8")


def test_identical_plots_share_no_id(tmp_path: Path) -> None:
    """Six questions with the same answers: one drawing, included six times, each with its own
    ids, every reference resolving within the page."""
    metrics = [
        {"metric": f"q{k}", "category": "graded", "prompt": "{{ instance }}", "worst": 1, "best": 5} for k in range(6)
    ]
    rows = [
        {"id": i, "instance": "x", "annotations": {m["metric"]: _score("graded", [i + 1, i + 2, 3]) for m in metrics}}
        for i in range(3)
    ]
    page = _report(tmp_path, _dataset(metrics, rows))
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    assert len(svgs) == 6
    assert len({re.sub(r"p\d+-", "", svg) for svg in svgs}) == 1  # the same drawing
    _assert_own_ids(page)
    assert "<!--" not in page  # matplotlib's comments repeat the labels


def test_no_bidirectional_mark_is_shown(tmp_path: Path) -> None:
    label = "ye\u202es"
    metrics = [
        {"metric": f"flu{ch}ency", "category": "categorical", "prompt": "{{ instance }}", "labels_list": [label, "no"]}
        for ch in BIDI
    ]
    rows = [
        {
            "id": i,
            "instance": "x",
            "annotations": {m["metric"]: _score("categorical", [label, "no", label]) for m in metrics},
        }
        for i in range(3)
    ]
    page = _report(tmp_path, _dataset(metrics, rows, name="Gen\u2067erated"), folder="da\u202eta\u2066")
    assert not set(page) & set(BIDI)
    assert "fluency" in page and "data" in page


def test_the_overview_counts_the_quality_findings(tmp_path: Path) -> None:
    """A dataset without a validation finding whose judgments have quality findings (a sparse
    item of each question): the page says how many, where a reader looks first."""
    metrics = [
        {"metric": f"q{k}", "category": "graded", "prompt": "{{ instance }}", "worst": 1, "best": 5} for k in range(3)
    ]
    rows = [
        {
            "id": i,
            "instance": "x",
            "annotations": {m["metric"]: _score("graded", [1 + (i + r) % 5 for r in range(10)]) for m in metrics},
        }
        for i in range(12)
    ]
    rows.append({"id": 99, "instance": "x", "annotations": {m["metric"]: _score("graded", [3]) for m in metrics}})
    page = _report(tmp_path, _dataset(metrics, rows))
    overview = page[page.index("<h1>") : page.index("<section")]
    assert "no problems" in overview
    said = re.search(r"(\d+) quality findings</span> in the judgments", overview)
    assert said and int(said.group(1)) == page.count('<p class="flag"><a href="#code-quality-') >= 3
    assert page.count('<p class="flag"><a href="#code-quality-sparse-item"') == 3


def test_huge_numbers_through_report(tmp_path: Path) -> None:
    page = _report(tmp_path, huge())
    assert "not plotted: the values are too far apart for a double" in page  # the signed question
    assert page.count("<svg") == 1  # the positive one is drawn
    shown = re.sub(r"<[^>]*>", " ", page).lower()  # the text of the page and of its plots, not their markup
    assert "nan" not in shown.replace("nano", "") and "inf" not in shown.replace("info", "")


@pytest.mark.parametrize("values", HUGE, ids=["signed", "positive"])
def test_huge_numbers_give_statistics(values: list[float]) -> None:
    tally = Tally()
    for i in range(3):
        for k, v in enumerate(values[i:] + values[:i]):
            tally.add(k, v)
    got = alpha(tally, "interval")
    assert got is not None and -1.5 < got < 1
    # alpha does not change when every value is halved: the same items, at a scale without overflow
    small = Tally()
    for i in range(3):
        for k, v in enumerate(values[i:] + values[:i]):
            small.add(k, v / 2**1000)
    assert got == pytest.approx(alpha(small, "interval"), abs=1e-12)
    summary = tally.numeric_summary()
    assert summary is not None and summary["min"] == min(values) and summary["max"] == max(values)
    assert min(values) < summary["mean"] < max(values)


def test_a_nominal_sample_of_private_and_shared_labels_is_the_alpha_of_its_items() -> None:
    """The nominal sums split labels held by one profile from labels several share: each sample's
    alpha must be the alpha of the items drawn, tallied afresh."""
    rng = random.Random(3)
    for _ in range(30):
        shared = [f"s{k}" for k in range(rng.randint(0, 4))]
        items = [
            [rng.choice([*shared, f"own {u} {j}"]) for j in range(rng.randint(2, 5))] for u in range(rng.randint(2, 12))
        ]
        tally = Tally()
        for u, values in enumerate(items):
            for v in values:
                tally.add(u, v)
        pairable = agreement._pairable(tally, "nominal", None)
        draws = random.Random(rng.random())
        for _ in range(20):
            weights = resample(pairable, draws)
            drawn = Tally()
            for u, p in enumerate(p for p, w in enumerate(weights) for _ in range(w)):
                for value, n in profile_counts(pairable, p):
                    drawn.add(u, value, n)
            want, got = alpha(drawn, "nominal"), pairable.estimate(weights)
            assert got == (None if want is None else pytest.approx(want, abs=1e-12))


TABLE_HEADER = "| command | time (s) | peak memory (MB) | bound (s / MB) | page (MB) |"


def test_the_docs_table_lists_the_rows_and_their_bounds() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "hostile-input.md").read_text(encoding="utf-8")
    lines = text[text.index(TABLE_HEADER) :].splitlines()[2:]
    lines = lines[: next(i for i, line in enumerate(lines) if not line.startswith("|"))]
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]
    assert [(c[0], c[3]) for c in cells] == [(r.name, f"{r.seconds:g} / {r.rss_mb:g}") for r in ROWS]


if __name__ == "__main__":  # the table of docs/hostile-input.md
    import tempfile

    print(TABLE_HEADER)
    print("|---|---:|---:|---:|---:|")
    for row in ROWS:
        with tempfile.TemporaryDirectory() as folder:
            run, tmp = row.run(Path(folder))
            page = tmp / "out.html"
            size = f"{page.stat().st_size / 1e6:.1f}" if page.exists() else ""
            print(f"| {row.name} | {run.seconds:.1f} | {run.rss_mb:.0f} | {row.seconds:g} / {row.rss_mb:g} | {size} |")
