"""Raters where they are persons: each rater's items, modal share and agreement with the other
raters of the same items (judgments/raters.py), the quality checks built on them
(quality/straight-lining, quality/outlying-rater), `stats --raters` and the report's section."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from humanjudge_schema import judgments
from humanjudge_schema.commands import cli
from humanjudge_schema.judgments import raters
from humanjudge_schema.judgments.gather import Gathered
from humanjudge_schema.judgments.html_raters import raters_section
from humanjudge_schema.judgments.quality import check
from humanjudge_schema.judgments.summary import DatasetStats, RaterRow
from humanjudge_schema.judgments.view import Batch, Judgments, Level, Question, RaterKind

from .conftest import CASES, ROOT, corpus


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _view(answers: dict[str, dict[Any, Any]], level: Level = "ordinal", kind: RaterKind = "person") -> Judgments:
    """One question "q": rater -> item -> answer, each answer at /rater/item."""
    rows = [
        ("fmt", "ds", item, rater, "q", "", value, "f", f"/{rater}/{item}", None)
        for rater, given in answers.items()
        for item, value in given.items()
    ]
    return Judgments(
        "fmt", "ds", questions={"q": Question("q", level)}, raters=kind, batches=lambda: iter([Batch.of_rows(rows)])
    )


def _found(view: Judgments, code: str) -> list[tuple[str, str]]:
    return [(where.pointer, message) for c, where, message in check(view) if c == code]


# --- the figures -----------------------------------------------------------------------------------


def test_the_worked_example_of_docs_stats() -> None:
    """docs/stats.md#raters: r shares three items with x, y (and z on the third)."""
    view = _view(
        {
            "r": {1: 1, 2: 3, 3: 2},
            "x": {1: 1, 2: 1, 3: 2},
            "y": {1: 2, 2: 1, 3: 2},
            "z": {3: 1},
        }
    )
    (r, *_) = raters.of_dataset(Gathered.of(view))
    assert (r.rater, r.items, r.shared) == ("r", 3, 3)
    assert r.agreement == pytest.approx((1 / 2 + 0 + 2 / 3) / 3)  # 7/18
    assert r.others == pytest.approx((0 + 1 + 1 / 3) / 3)  # 4/9
    assert (r.modal, r.modal_share) == (1, pytest.approx(1 / 3))  # three answers, each once: the first
    # e - s lies in a range 1.5 wide on items 1 and 2 (three raters, two answers alike), 4/3 on item 3
    assert r.spread == pytest.approx(2 * 1.5**2 + (4 / 3) ** 2)
    assert r.shortfall == pytest.approx(math.exp(-2 * (3 * (4 / 9 - 7 / 18)) ** 2 / r.spread))


def test_agreement_is_the_mean_over_raters_of_the_items_pair_agreement() -> None:
    """Averaged over an item's raters, s_ri is the item's share of agreeing pairs: the figures
    are the ones stats' `agree` averages, seen from each rater."""
    rng = random.Random(3)
    answers = {f"w{k}": {i: rng.choice("abc") for i in range(6)} for k in range(5)}
    g = Gathered.of(_view(answers, "nominal"))
    rows = list(raters.of_question("q", g.questions["q"]))
    per_item = g.questions["q"].tally.per_item()
    for item in range(6):
        counts = per_item[(item, "")]
        pairs = sum(m * (m - 1) for m in counts.values()) / (5 * 4)
        each = [(counts[answers[r.rater][item]] - 1) / 4 for r in rows]  # type: ignore[index]
        assert sum(each) / 5 == pytest.approx(pairs)
        # and the others' agreement, r left out, averages to it too: e - s has mean 0 over the raters
        agreeing = sum(m * (m - 1) for m in counts.values())
        left_out = [(agreeing - 2 * (counts[answers[r.rater][item]] - 1)) / (4 * 3) for r in rows]  # type: ignore[index]
        assert sum(left_out) / 5 == pytest.approx(pairs)


def test_items_with_fewer_than_two_other_raters_are_not_shared() -> None:
    view = _view({"r": {1: 1, 2: 1}, "x": {1: 1, 2: 2}, "y": {2: 2}})
    r = next(r for r in raters.of_dataset(Gathered.of(view)) if r.rater == "r")
    assert (r.items, r.shared, r.agreement, r.others) == (2, 1, 0.0, 1.0)
    lone = _view({"r": {1: 1}})
    (only,) = raters.of_dataset(Gathered.of(lone))
    assert (only.shared, only.agreement, only.others, only.shortfall) == (0, None, None, 1.0)


def test_raters_that_are_positions_have_no_table() -> None:
    view = _view({"0": {1: 1, 2: 2}, "1": {1: 1, 2: 2}}, kind="position")
    assert raters.table(Gathered.of(view)) == ([], "raters are positions within an item, no one across items")


# --- quality/straight-lining -----------------------------------------------------------------------


def _crowd(n_items: int, seed: int = 1) -> dict[str, dict[Any, Any]]:
    """Four raters who answer every item, 1 to 5 at random."""
    rng = random.Random(seed)
    return {f"w{k}": {i: rng.randint(1, 5) for i in range(n_items)} for k in range(4)}


def test_one_answer_to_nearly_every_item_is_straight_lining() -> None:
    answers = _crowd(24)
    answers["s"] = {i: 3 if i != 7 else 4 for i in range(24)}  # 23 of 24
    found = _found(_view(answers), "quality/straight-lining")
    assert [pointer for pointer, _ in found] == ["/s/0"]
    assert found[0][1].startswith("rater 's' answers 3 to 23 of their 24 items of 'q', while ")
    answers["s"] = dict.fromkeys(range(24), 3)
    assert "answers 3 to all 24 items of 'q'" in _found(_view(answers), "quality/straight-lining")[0][1]


def test_a_rater_whose_answers_vary_or_who_judged_few_items_is_not_straight_lining() -> None:
    answers = _crowd(24)
    answers["s"] = {i: 3 if i % 5 else 4 for i in range(24)}  # 19 of 24: 79%
    assert _found(_view(answers), "quality/straight-lining") == []
    answers = _crowd(19)
    answers["s"] = dict.fromkeys(range(19), 3)  # every answer alike, but 19 items only
    assert _found(_view(answers), "quality/straight-lining") == []


def test_the_answer_the_others_give_to_the_same_items_is_no_straight_lining() -> None:
    """A yes/no question where nearly every answer is yes: a rater who says yes 30 times is no
    pattern (each item's own answers would give it as often by chance)."""
    rng = random.Random(2)
    answers = {f"w{k}": {i: "yes" if rng.random() < 0.97 else "no" for i in range(30)} for k in range(4)}
    answers["s"] = dict.fromkeys(range(30), "yes")
    assert _found(_view(answers, "nominal"), "quality/straight-lining") == []


# --- quality/outlying-rater ------------------------------------------------------------------------


def _agreeing(n_items: int) -> dict[str, dict[Any, Any]]:
    """Five raters who give each item its answer, but for one of them now and then."""
    return {f"w{k}": {i: (i % 3 if (i + k) % 6 else (i + 1) % 3) for i in range(n_items)} for k in range(5)}


def test_a_rater_far_below_the_others_is_reported_with_the_figures() -> None:
    answers = _agreeing(30)
    answers["o"] = {i: (i + 1 + i % 2) % 3 for i in range(30)}  # never the item's answer, and not one answer
    found = _found(_view(answers, "nominal"), "quality/outlying-rater")
    assert [pointer for pointer, _ in found] == ["/o/0"]
    r = next(r for r in raters.of_dataset(Gathered.of(_view(answers, "nominal"))) if r.rater == "o")
    assert found[0][1] == (
        f"rater 'o' agrees with the other raters of the same items of 'q' in {r.agreement:.0%} of pairs, "
        f"where those raters agree with each other in {r.others:.0%}, over 30 items"
    )
    assert _found(_view(answers, "nominal"), "quality/straight-lining") == []  # their answers vary


def test_a_rater_a_little_below_or_over_few_items_or_on_a_slider_is_not_reported() -> None:
    answers = _agreeing(30)
    answers["o"] = {i: (i % 3 if i % 3 else (i + 1) % 3) for i in range(30)}  # a third of the items
    assert _found(_view(answers, "nominal"), "quality/outlying-rater") == []
    answers = _agreeing(19)
    answers["o"] = {i: (i + 1) % 3 for i in range(19)}  # always apart, but 19 items
    assert _found(_view(answers, "nominal"), "quality/outlying-rater") == []
    answers = _agreeing(30)
    answers["o"] = {i: (i + 1) % 3 for i in range(30)}
    assert _found(_view(answers, "interval"), "quality/outlying-rater") == []  # exact matches say little
    assert _found(_view(answers, "nominal", kind="position"), "quality/outlying-rater") == []


def test_random_raters_are_not_outlying() -> None:
    rng = random.Random(7)
    answers = {f"w{k}": {i: rng.randint(1, 5) for i in range(60)} for k in range(12)}
    assert _found(_view(answers), "quality/outlying-rater") == []


# --- stats --raters and the report ------------------------------------------------------------------


def test_stats_prints_the_raters_only_when_asked() -> None:
    case = str(CASES / "coggym" / "invalid" / "quality-outlying-rater")
    plain = json.loads(_invoke("stats", case, "--format", "json").stdout)["datasets"][0]
    assert "raters" not in plain and "raters_note" not in plain
    (ds,) = json.loads(_invoke("stats", case, "--raters", "--format", "json").stdout)["datasets"]
    assert ds["raters_note"] is None and len(ds["raters"]) == 5
    first = ds["raters"][0]
    assert first == {
        "rater": 0,
        "question": "goal",
        "items": 24,
        "modal": 1,
        "modal_share": 0.3333,
        "shared_items": 24,
        "agreement": first["agreement"],
        "others_agreement": first["others_agreement"],
        "competence": 0.0,  # a nominal question: Dawid-Skene (tests/test_competence.py)
        "confusion": first["confusion"],
    }
    assert first["agreement"] < 0.05 < 0.85 < first["others_agreement"]
    text = _invoke("stats", case, "--raters").stdout
    assert "  raters: 5 raters, 5 rows of a rater and a question" in text
    worst = text.split("furthest below")[1].splitlines()[2]
    assert worst.split()[:2] == ["0", "goal"]
    assert "  raters:" not in _invoke("stats", case).stdout


def test_stats_says_in_one_line_where_raters_are_not_persons() -> None:
    path = str(ROOT / "examples" / "textjudge" / "valid" / "dataset.json")
    text = _invoke("stats", path, "--raters").stdout
    assert text.count("raters not compared") == 1
    assert "  raters not compared: raters are positions within an item, no one across items\n" in text
    (ds,) = json.loads(_invoke("stats", path, "--raters", "--format", "json").stdout)["datasets"]
    assert ds["raters"] == [] and ds["raters_note"].startswith("raters are positions")


def test_the_text_lists_the_first_rows_and_counts_the_others() -> None:
    from humanjudge_schema.commands.stats import RATERS_SHOWN, _raters

    rows = tuple(RaterRow(f"w{k}", "q", 30, 1, 0.5, 30, k / 100, 0.5) for k in range(RATERS_SHOWN + 3))
    lines = _raters(rows, None)
    assert lines.count("    (3 more)") == 2
    assert lines[3].split()[0] == "w0"  # the furthest below first


def test_the_report_section_reads_only_the_dataset_statistics() -> None:
    assert raters_section(DatasetStats("d", "f", ())) == ""
    note = raters_section(DatasetStats("d", "f", (), raters=(), raters_note="the dataset names no rater"))
    assert "Raters are not compared: the dataset names no rater." in note
    row = RaterRow("<b>w\u202e1</b>", "q", 25, (1, 2), 0.96, 25, 0.1, 0.6)
    html = raters_section(DatasetStats("d", "f", (), raters=(row,)))
    assert "&lt;b&gt;w1&lt;/b&gt;" in html and "<b>" not in html  # escaped, bidirectional mark gone
    assert html.count("<tr><td>") == 2 and "<td>[1, 2]</td>" in html and "<td>96%</td>" in html


# --- on the corpus ----------------------------------------------------------------------------------

WORKER = "76074975-c49a-36df-8fbc-c6f0d9f3bb97"  # 245 of the 903 tasks


def _study1() -> Judgments:
    (view,) = judgments.datasets([corpus("study1", "raw")])
    return view


def test_study1_straight_lining_and_outlying_raters() -> None:
    found = sorted((c, w.question, m.split("'")[1]) for c, w, m in check(_study1()) if c != "quality/repeated-answer")
    # references_extra and references_omission rate the worker's own response: no rater is
    # compared there (docs/conformance-study1-halie.md)
    assert found == [
        ("quality/outlying-rater", "query_answerable", "3e77e7a2-9c85-3de2-a200-2139bb6bfec1"),
        ("quality/straight-lining", "query_controversial", WORKER),
    ]


def test_the_worker_of_a_quarter_of_the_tasks_answers_one_value_to_nearly_every_topic() -> None:
    g = Gathered.of(_study1())
    mine = {r.question: r for r in raters.of_dataset(g) if r.rater == WORKER}
    assert mine["references_extra"].items == 194  # topics: a worker's first answer to each (a null is none)
    assert round(mine["references_extra"].modal_share * 194) == 193
    assert round(mine["references_omission"].modal_share * 194) == 193
    assert round(mine["query_controversial"].modal_share * 194) == 188
    assert mine["worker_knowledge"].modal_share < 0.95  # answers that vary: not reported


def test_halie_has_no_straight_lining_or_outlying_rater() -> None:
    for view in judgments.datasets([corpus("halie", "data")]):
        codes = {c for c, _, _ in check(view)}
        assert not codes & {"quality/straight-lining", "quality/outlying-rater"}, view.dataset


def test_coggym_has_one_outlying_participant_and_no_straight_lining() -> None:
    found = [
        (Path(view.dataset).parent.name, code, where.pointer)
        for view in judgments.datasets([corpus("coggym")])
        for code, where, _ in check(view)
        if code in ("quality/straight-lining", "quality/outlying-rater")
    ]
    # participant 15 gives the answer at most 6 of the other 48 give on 13 of the 32 items
    assert found == [("Yoon2020Polite", "quality/outlying-rater", "/trial_004/judgment/15")]


def test_the_section_of_a_real_dataset(tmp_path: Path) -> None:
    g = Gathered.of(_study1())
    rows, note = raters.table(g)
    html = raters_section(DatasetStats("d", "f", (), raters=tuple(rows), raters_note=note))
    assert html.count("<tr>") == 2 * 11  # two lists of ten, each with its header
    assert "3e77e7a2-9c85-3de2-a200-2139bb6bfec1" in html and "… and 78 more rows." in html


def test_the_report_has_a_raters_section_per_dataset(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from humanjudge_schema.commands import cli

    page = tmp_path / "report.html"
    examples = Path(__file__).parent.parent / "examples"
    done = CliRunner().invoke(
        cli, ["report", str(examples / "study1" / "valid"), str(examples / "textjudge" / "valid"), "-o", str(page)]
    )
    assert done.exit_code == 0, done.output
    html = page.read_text(encoding="utf-8")
    assert html.count("<h3>Raters</h3>") == 2
    assert "4 raters, 32 rows of a rater and a question" in html  # study 1's workers
    assert "Raters are not compared: raters are positions within an item" in html  # TextJudge's positions


def test_agreement_is_given_only_where_the_same_answer_is_agreement() -> None:
    """A slider's or free text's exact matches say little: those raters get a modal share only."""
    from click.testing import CliRunner

    from humanjudge_schema.commands import cli

    examples = Path(__file__).parent.parent / "examples"
    done = CliRunner().invoke(
        cli, ["stats", "--raters", "--format", "json", "--samples", "5", str(examples / "coggym" / "valid")]
    )
    assert done.exit_code == 0, done.output
    (found,) = json.loads(done.stdout)["datasets"]
    level = {q["question"]: q["level"] for q in found["questions"]}
    rows = found["raters"]
    assert {level[r["question"]] for r in rows} == {"nominal", "interval", None}
    for r in rows:
        assert (r["agreement"] is None) == (level[r["question"]] not in raters.MATCHED)
        assert r["modal_share"] is not None
