"""Answers made of parts: a multi-select's options, a ranking's options and a multi-slider's labels
each get the figures of a question of their own (`options` in stats' JSON), computed as the same
figures of a question whose judgments are those parts."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from humanjudge_schema.commands import cli
from humanjudge_schema.judgments.agreement import Tally, alpha
from humanjudge_schema.judgments.coefficients import gwet, observed
from humanjudge_schema.judgments.parts import split
from humanjudge_schema.judgments.stats import dataset_stats
from humanjudge_schema.judgments.view import Judgment, Judgments, Question

from .conftest import ROOT

EXAMPLE = ROOT / "examples" / "coggym" / "valid"


def _view(question: Question, rows: list[tuple[Any, Any, Any, Any]]) -> Judgments:
    """A dataset of one question: rows of (item, rater, option, value)."""
    made = [
        Judgment("test", "d", item, rater, question.name, option, value, "f", f"/{k}")
        for k, (item, rater, option, value) in enumerate(rows)
    ]
    return Judgments("test", "d", read=lambda: iter(made), questions={question.name: question})


def _tally(pairs: list[tuple[Any, Any]]) -> Tally:
    tally = Tally()
    for item, value in pairs:
        tally.add(item, value)
    return tally


def test_two_rows_that_differ_in_one_option_agree_on_the_others() -> None:
    """[0,1,0,0,0] against [0,1,1,0,0]: scored whole, total disagreement; per option, the raters
    agree on four options of five."""
    rows = [("s1", 0, "", [0, 1, 0, 0, 0]), ("s1", 1, "", [0, 1, 1, 0, 0])]
    q = Question("picked", None, parts="select", labels=("a", "b", "c", "d", "e"))
    found = dataset_stats(_view(q, rows), samples=20).to_json()["questions"][0]
    assert found["alpha"] is None and "each option is a yes/no question" in found["note"]
    options = {o["option"]: o for o in found["options"]}
    assert list(options) == ["a", "b", "c", "d", "e"]
    assert [options[k]["agreement"]["observed"] for k in "abcde"] == [1.0, 1.0, 0.0, 1.0, 1.0]
    assert options["c"]["distribution"] == {"counts": {"0": 1, "1": 1}}
    assert all(o["level"] == "nominal" and o["judgments"] == 2 for o in options.values())
    assert options["b"]["question"] == "picked: b"


def test_each_option_has_the_figures_of_its_yes_no_question() -> None:
    """An option's alpha, observed agreement and AC1 equal those of a question whose judgments are
    that option's ticks, computed directly."""
    rows = [
        ("s1", 0, "", [1, 0, 1]),
        ("s1", 1, "", [1, 1, 1]),
        ("s1", 2, "", [0, 0, 1]),
        ("s2", 0, "", [0, 0, 0]),
        ("s2", 1, "", [0, 1, 0]),
        ("s3", 0, "", [1, 1, 0]),
        ("s3", 1, "", [1, 1, 0]),
        ("s3", 2, "", [1, 0, 0]),
    ]
    q = Question("picked", None, parts="select")
    found = dataset_stats(_view(q, rows), samples=50).to_json()["questions"][0]["options"]
    assert [o["option"] for o in found] == ["option 1", "option 2", "option 3"]  # no labels declared
    for k, entry in enumerate(found):
        direct = _tally([(item, row[k]) for item, _, _, row in rows])
        assert math.isclose(entry["alpha"], alpha(direct, "nominal"), abs_tol=1e-12)  # type: ignore[arg-type]
        assert math.isclose(entry["agreement"]["observed"], observed(direct), abs_tol=1e-12)  # type: ignore[arg-type]
        assert math.isclose(entry["agreement"]["ac"], gwet(direct, "nominal"), abs_tol=1e-12)  # type: ignore[arg-type]
        assert entry["items"] == 3 and entry["judgments"] == 8


def test_a_ranking_is_judged_by_each_options_place() -> None:
    """A ranking's value is its options' indices from first to last; option k's judgment is its
    place (1 first), ordinal."""
    rows = [("s1", 0, "", [1, 0, 2]), ("s1", 1, "", [0, 1, 2]), ("s1", 2, "", [2, 0, 1])]
    q = Question("order", None, parts="rank", labels=("Key", "Exit", "Food"))
    found = {o["option"]: o for o in dataset_stats(_view(q, rows), samples=20).to_json()["questions"][0]["options"]}
    assert found["Key"]["distribution"] == {"counts": {"1": 1, "2": 2}}
    assert found["Exit"]["distribution"] == {"counts": {"1": 1, "2": 1, "3": 1}}
    assert found["Food"]["distribution"] == {"counts": {"1": 1, "3": 2}}
    assert {o["level"] for o in found.values()} == {"ordinal"}


def test_a_multi_slider_label_is_a_question_on_the_questions_scale() -> None:
    rows = [
        ("s1", 0, "hungry", 10),
        ("s1", 1, "hungry", 12),
        ("s1", 0, "lost", 80),
        ("s1", 1, "lost", 20),
        ("s2", 0, "hungry", 50),
        ("s2", 1, "hungry", 52),
        ("s2", 0, "lost", 40),
        ("s2", 1, "lost", 90),
    ]
    q = Question("rating", "interval", parts="label")
    whole = dataset_stats(_view(q, rows), samples=20).to_json()["questions"][0]
    assert whole["alpha"] is not None  # the labels together are still a question
    found = {o["option"]: o for o in whole["options"]}
    assert list(found) == ["hungry", "lost"] and {o["level"] for o in found.values()} == {"interval"}
    hungry = _tally([((i, o), v) for i, _, o, v in rows if o == "hungry"])
    assert math.isclose(found["hungry"]["alpha"], alpha(hungry, "interval"), abs_tol=1e-12)  # type: ignore[arg-type]
    assert found["hungry"]["alpha"] > 0.9 > found["lost"]["alpha"]


def test_rows_that_are_not_rows_of_the_options_are_left_out_and_said() -> None:
    tally = _tally([("s1", (0, 1)), ("s1", (0, 1, 1)), ("s1", (0, 2)), ("s2", (1, 1)), ("s2", ("x", 1))])
    found, unsplit = split(tally, "select", ("a", "b"))
    assert unsplit == 3
    assert [p.tally.judgments for p in found] == [2, 2]
    ranked, unsplit = split(_tally([("s1", (0, 0)), ("s1", (1, 0)), ("s1", (0, 5))]), "rank", ("a", "b"))
    assert unsplit == 2 and [p.tally.distribution() for p in ranked] == [{2: 1}, {1: 1}]


def _experiment(tmp_path: Path, rows: list[list[int]], options: list[list[str]] | None = None) -> Path:
    """The example experiment with the multi-select's rows replaced (and its options, per trial)."""
    folder = tmp_path / "exp"
    shutil.copytree(EXAMPLE, folder)
    ind = json.loads((folder / "human_data_ind.json").read_text())
    ind["trial_2"]["places_visited"] = rows
    (folder / "human_data_ind.json").write_text(json.dumps(ind))
    if options is not None:
        lines = [json.loads(line) for line in (folder / "trial.jsonl").read_text().splitlines()]
        for record in lines:
            for query in record.get("queries", []):
                if query.get("type") == "multi-select":
                    query["option"] = options.pop(0)
        (folder / "trial.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    return folder


def test_coggym_multi_select_options_are_named_by_the_trial(tmp_path: Path) -> None:
    folder = _experiment(tmp_path, [[1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 0, 1]])
    out = CliRunner().invoke(cli, ["stats", str(folder), "--format", "json", "--samples", "20"])
    assert out.exit_code == 0, out.output
    (question,) = [q for q in json.loads(out.output)["datasets"][0]["questions"] if q["question"] == "places_visited"]
    assert question["level"] is None and question["alpha"] is None
    found = {o["option"]: o for o in question["options"]}
    assert list(found) == ["Kitchen", "Garden", "Attic", "Cellar"]
    assert found["Kitchen"]["agreement"]["observed"] == 1.0 and found["Kitchen"]["distribution"] == {"counts": {"1": 3}}
    assert found["Garden"]["distribution"] == {"counts": {"1": 2, "0": 1}}
    text = CliRunner().invoke(cli, ["stats", str(folder), "--samples", "20"]).output
    assert "\n    Kitchen " in text and "places_visited: Kitchen: no alpha: every judgment is 1" in text


def test_coggym_options_that_differ_between_trials_are_numbered(tmp_path: Path) -> None:
    """A tag whose trials list different options names its parts by position, not by the first
    trial's labels."""
    folder = _experiment(tmp_path, [[1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 0, 1]])
    trials = [json.loads(line) for line in (folder / "trial.jsonl").read_text().splitlines()]
    copy = json.loads(json.dumps(next(t for t in trials if t["id"] == "trial_2")))
    copy["id"] = "trial_9"
    for query in copy["queries"]:
        if query.get("type") == "multi-select":
            query["option"] = ["Roof", "Garden", "Attic", "Cellar"]
    (folder / "trial.jsonl").write_text("".join(json.dumps(t) + "\n" for t in [*trials, copy]))
    out = CliRunner().invoke(cli, ["stats", str(folder), "--format", "json", "--samples", "20"])
    (question,) = [q for q in json.loads(out.output)["datasets"][0]["questions"] if q["question"] == "places_visited"]
    assert [o["option"] for o in question["options"]] == ["option 1", "option 2", "option 3", "option 4"]


def test_the_report_tables_each_option(tmp_path: Path) -> None:
    folder = _experiment(tmp_path, [[1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 0, 1]])
    page = tmp_path / "r.html"
    out = CliRunner().invoke(cli, ["report", str(folder), "-o", str(page), "--samples", "20"])
    assert out.exit_code == 1 and "2 errors" in out.output  # the mean file no longer matches the rows
    html = page.read_text()
    assert "<caption>per option (nominal)</caption>" in html
    assert "<tr><td>Kitchen</td><td>3</td><td>-</td><td>100%</td><td>1.000</td></tr>" in html
    assert "<caption>per label (interval)</caption>" in html and "<td>It is hungry</td>" in html
