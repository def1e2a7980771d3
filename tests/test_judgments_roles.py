"""What each judgment row is and who gave it: its role (one rater's answer, or an aggregate the
file stores) and what its rater id means (a person across the dataset, a position within one
item, or no rater); agreement over one answer per rater per item (docs/judgments.md)."""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from humanjudge_schema import judgments, validate
from humanjudge_schema.commands import cli
from humanjudge_schema.judgments import NO_AGREEMENT, Dataset, views
from humanjudge_schema.judgments.gather import Gathered
from humanjudge_schema.judgments.quality import check
from humanjudge_schema.judgments.stats import dataset_stats
from humanjudge_schema.judgments.view import FIELDS, Batch, Judgment, Judgments, Question

from .conftest import ROOT, corpus
from .helpers import majority_only

EXAMPLES = ROOT / "examples"
CASES = ROOT / "tests" / "cases"


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _rows(path: Path) -> list[Judgment]:
    return list(judgments.rows([path]))


def _resolve(data: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        data = data[int(token)] if isinstance(data, list) else data[token.replace("~1", "/").replace("~0", "~")]
    return data


# --- the roles, format by format -----------------------------------------------------------------


def test_textjudge_stores_its_means_and_majorities_as_aggregates() -> None:
    path = EXAMPLES / "textjudge" / "valid" / "dataset.json"
    data = json.loads(path.read_text())
    rows = _rows(path)
    stored = [r for r in rows if r.role == "aggregate"]
    expected = [
        (inst["id"], metric, name, scores[name])
        for inst in data["instances"]
        for metric, scores in inst["annotations"].items()
        for name in ("mean_human", "majority_human")
        if name in scores
    ]
    assert [(r.item, r.question, r.pointer.rsplit("/", 1)[1], r.value) for r in stored] == expected
    assert all(_resolve(data, r.pointer) == r.value and (r.rater, r.rater_kind) == ("", "none") for r in stored)
    scores = [r for r in rows if r.role == "individual"]
    assert scores and {r.rater_kind for r in scores} == {"position"}


def test_coggym_stores_its_mean_file_as_aggregates() -> None:
    folder = EXAMPLES / "coggym" / "valid"
    mean = json.loads((folder / "human_data_mean.json").read_text())
    stored = [r for r in _rows(folder) if r.role == "aggregate"]
    assert stored and all(r.file.endswith("human_data_mean.json") for r in stored)
    assert all(_resolve(mean, r.pointer) == r.value and (r.rater, r.rater_kind) == ("", "none") for r in stored)
    # a tag's mean has no option; an option's proportion (agent_goal_3) has its number
    assert {(r.question, r.option) for r in stored} >= {("goal_confidence", ""), ("agent_goal", 3)}


def test_halie_third_party_ratings_are_aggregates_of_no_one() -> None:
    rows = _rows(EXAMPLES / "halie" / "valid" / "metaphor")
    third = [r for r in rows if r.question in ("apt", "specific", "imageable")]
    assert third and {(r.role, r.rater, r.rater_kind) for r in third} == {("aggregate", "", "none")}
    survey = [r for r in rows if r.role == "individual"]
    assert survey and all(r.rater != "" and r.rater_kind == "person" for r in survey)
    rows = _rows(EXAMPLES / "halie" / "valid" / "summarization")
    third = [r for r in rows if r.question.endswith("_third_party")]
    assert third and {(r.role, r.rater) for r in third} == {("aggregate", "")}
    users = [r for r in rows if r.question == "original_consistency"]
    assert users and {(r.role, r.rater_kind) for r in users} == {("individual", "person")}


def test_halie_corpus_metaphor_ratings_are_never_the_writers() -> None:
    rows = _rows(corpus("halie", "data", "std", "metaphor"))
    third = [r for r in rows if r.question in ("apt", "specific", "imageable")]
    assert len(third) > 1000 and {(r.role, r.rater) for r in third} == {("aggregate", "")}
    # the writer's own answers are their survey's
    assert {r.file.rsplit("/", 1)[1] for r in rows if r.role == "individual"} == {"survey_responses.csv"}


def test_export_appends_role_and_rater_kind_after_the_earlier_columns(tmp_path: Path) -> None:
    result = _invoke("export", str(EXAMPLES / "textjudge" / "valid"))
    table = list(csv.reader(io.StringIO(result.stdout)))
    earlier = ["format", "dataset", "item", "rater", "question", "option", "value", "file", "pointer", "line"]
    assert table[0][: len(earlier)] == earlier and table[0][len(earlier) :][:2] == ["role", "rater_kind"]
    assert list(FIELDS[:12]) == [*earlier, "role", "rater_kind"]
    assert Counter(row[10] for row in table[1:]) == {"individual": 17, "aggregate": 8}


# --- a dataset of aggregates only ----------------------------------------------------------------


def test_a_dataset_of_majorities_only_is_exported_and_says_no_agreement(tmp_path: Path) -> None:
    path = majority_only(tmp_path)
    result = _invoke("export", str(path), "--to", "jsonl")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.exit_code == 0 and [(r["item"], r["value"], r["role"]) for r in rows] == [
        (k, "yes", "aggregate") for k in range(3)
    ]
    told: list[Any] = []
    (unit,) = judgments.units([path])[0]
    (view,) = views([Dataset(unit, lambda u, why: told.append(why), lambda u, note: told.append(note))])
    note = "only aggregates stored (majority_human) and no individual scores: agreement cannot be computed"
    assert told == [None, note] and view.note == note
    assert len(list(view.rows())) == 3  # the rows read to know it are handed on
    gathered = Gathered.of(view)
    (q,) = gathered.questions.values()
    assert (q.aggregates, q.tally.judgments, q.by_rater) == (3, 0, {})
    stats = dataset_stats(view, samples=5).questions[0]
    assert (stats.judgments, stats.alpha) == (0, None)
    shown = _invoke("stats", str(path))
    assert shown.exit_code == 0
    assert f"humanjudge: {path}: {note}" in shown.stderr.splitlines()  # said on stderr, once
    assert shown.stderr.count(note) == 1


def test_a_dataset_with_scores_gets_no_note(tmp_path: Path) -> None:
    path = EXAMPLES / "textjudge" / "valid" / "dataset.json"
    told: list[Any] = []
    (unit,) = judgments.units([path])[0]
    (view,) = views([Dataset(unit, lambda u, why: told.append(why), lambda u, note: told.append(note))])
    assert told == [None] and view.note is None
    gathered = Gathered.of(view)
    assert {name: q.aggregates for name, q in gathered.questions.items()} == {"fluency": 5, "grammatical": 3}
    assert gathered.questions["fluency"].tally.judgments == 9  # the scores only


# --- what a rater id means -----------------------------------------------------------------------


def test_a_plugin_may_still_say_raters_with_a_bool() -> None:
    assert Judgments("toy", "ds", raters=True).rater_kind == "person"
    assert Judgments("toy", "ds", raters=False).rater_kind == "none"
    assert Judgments("toy", "ds").persons and not Judgments("toy", "ds", raters="position").persons
    with pytest.raises(ValueError, match="raters is one of person, position, none"):
        _ = Judgments("toy", "ds", raters="people").rater_kind  # type: ignore[arg-type]


def test_rows_of_a_plugin_get_the_kind_of_their_view() -> None:
    rows = [Judgment("toy", "ds", 1, "w1", "q", "", 3, "f", "/0"), Judgment("toy", "ds", 1, "", "q", "", 3, "f", "/1")]
    view = Judgments("toy", "ds", lambda: iter(rows), raters=True)
    assert [(r.role, r.rater_kind) for r in view.rows()] == [("individual", "person"), ("individual", "none")]
    batch = Batch(
        {"format": "toy", "dataset": "ds", "option": "", "file": "f", "line": None},
        {"item": [1, 2], "rater": ["a", ""], "question": ["q", "q"], "value": [1, 2], "pointer": ["/0", "/1"]},
    )
    view = Judgments("toy", "ds", batches=lambda: iter([batch]), raters="position")
    assert [r.rater_kind for r in view.rows()] == ["position", "none"]


def _partial(tmp_path: Path, case: str) -> Path:
    """A copy of a CogGym case in which one response array lacks its last participant."""
    folder = tmp_path / case
    shutil.copytree(CASES / "coggym" / "invalid" / case, folder)
    ind = json.loads((folder / "human_data_ind.json").read_text())
    ind["trial_12"]["confidence"].pop()
    (folder / "human_data_ind.json").write_text(json.dumps(ind))
    return folder


@pytest.mark.parametrize("case", ["quality-straight-lining", "quality-repeated-rater"])
def test_rater_checks_run_only_where_raters_are_persons(tmp_path: Path, case: str) -> None:
    code = "quality/" + case.removeprefix("quality-")
    whole = CASES / "coggym" / "invalid" / case
    (view,) = judgments.datasets([whole])
    assert view.rater_kind == "person" and code in {c for c, _, _ in check(view)}
    (view,) = judgments.datasets([_partial(tmp_path, case)])
    assert view.rater_kind == "position"
    assert code not in {c for c, _, _ in check(view)}  # position k is no one across stimuli
    assert {r.rater_kind for r in view.rows() if r.role == "individual"} == {"position"}


def test_coggym_corpus_has_both_kinds_of_rater() -> None:
    kinds = {
        Path(v.dataset).parent.name + "/" + Path(v.dataset).name: v.rater_kind
        for v in judgments.datasets([corpus("coggym")])
    }
    assert kinds["Gerstenberg2018What/exp1a"] == "position" and "person" in kinds.values()


# --- one answer per rater per item ---------------------------------------------------------------


def test_agreement_counts_a_raters_first_answer_to_an_item_only() -> None:
    rows = [
        ("fmt", "ds", "t1", "w1", "q", "", 1, "f", "/0", 1),
        ("fmt", "ds", "t1", "w2", "q", "", 1, "f", "/1", 2),
        ("fmt", "ds", "t1", "w1", "q", "", 5, "f", "/2", 3),  # w1 again: left out
        ("fmt", "ds", "t2", "w1", "q", "", 2, "f", "/3", 4),
    ]
    view = Judgments(
        "fmt", "ds", questions={"q": Question("q", "ordinal")}, batches=lambda: iter([Batch.of_rows(rows)])
    )
    gathered = Gathered.of(view)
    q = gathered.questions["q"]
    assert dict(q.tally.per_item()[("t1", "")]) == {1: 2} and q.by_rater["w1"] == {("t1", ""): 1, ("t2", ""): 2}
    (repeat,) = gathered.repeats
    assert (repeat.rater, repeat.place, repeat.where.pointer, repeat.where.line) == ("w1", ("t1", ""), "/2", 3)
    found = check(view, gathered)
    assert [(code, where.pointer) for code, where, _ in found] == [("quality/repeated-answer", "/0")]
    assert "'w1'" in found[0][2] and "'t1'" in found[0][2] and "/2 (line 3)" in found[0][2]
    # where raters are positions, nothing is a repeat: two scores at one position are two scores
    view = Judgments("fmt", "ds", questions=view.questions, raters="position", batches=view.batches)
    assert dict(Gathered.of(view).questions["q"].tally.per_item()[("t1", "")]) == {1: 2, 5: 1}


def test_the_repeated_answer_case_names_both_places() -> None:
    folder = CASES / "study1" / "invalid" / "quality-repeated-answer"
    found = [f for f in validate([folder]).findings if f.code == "quality/repeated-answer"]
    assert [(f.pointer, f.line) for f in found] == [("/0/query_answerable", 1)]
    assert "again at /1/query_answerable (line 2)" in found[0].message and "8 questions" in found[0].message
    with gzip.open(folder / "study1_tasks.jsonl.gz", "rt") as lines:
        first, second = (json.loads(next(lines)) for _ in range(2))
    assert first["worker"] == second["worker"] and first["topic"] == second["topic"]


def test_study1_corpus_one_answer_per_worker_per_topic() -> None:
    (view,) = judgments.datasets([corpus("study1", "raw")])
    gathered = Gathered.of(view)
    # 52 topics where a worker holds two tasks; in 2 of them one task is null: answered once
    assert len({(r.rater, r.place) for r in gathered.repeats}) == 50
    stats = {q.question: q for q in dataset_stats(view, samples=5, gathered=gathered).questions}
    assert stats["query_answerable"].alpha == pytest.approx(0.0321, abs=5e-4)
    assert stats["worker_satisfaction"].judgments == 828
    assert stats["worker_satisfaction"].alpha is None  # the worker's own response: no agreement
    flagged = [c for c, _, _ in check(view, gathered) if c == "quality/repeated-answer"]
    assert len(flagged) == 50


# --- typed values --------------------------------------------------------------------------------


def test_each_value_is_also_in_the_column_of_its_type(tmp_path: Path) -> None:
    """A number is in value_number, a boolean in value_bool, a text in value_text (the others
    null); a list only in value. Parquet has the types; pandas reads CSV and JSON Lines back to
    a float column of numbers a researcher averages as it is."""
    pd = pytest.importorskip("pandas")
    pq = pytest.importorskip("pyarrow.parquet")
    folder = EXAMPLES / "halie" / "valid" / "summarization"
    expected = list(judgments.rows([folder]))
    for to in ("csv", "jsonl", "parquet"):
        assert _invoke("export", str(folder), "-o", str(tmp_path / f"rows.{to}")).exit_code == 0
    table = pq.read_table(tmp_path / "rows.parquet")
    types = {name: str(table.schema.field(name).type) for name in ("value", "value_number", "value_bool", "value_text")}
    assert types == {"value": "string", "value_number": "double", "value_bool": "bool", "value_text": "string"}
    frames = {
        "parquet": table.to_pandas(),
        "csv": pd.read_csv(tmp_path / "rows.csv", dtype={"value_text": str}),
        "jsonl": pd.read_json(tmp_path / "rows.jsonl", lines=True, dtype={"value_text": str}),
    }
    numbers = [r.value for r in expected if type(r.value) in (int, float)]
    flags = [r.value for r in expected if type(r.value) is bool]
    texts = [r.value for r in expected if type(r.value) is str]
    assert numbers and flags and texts
    for to, frame in frames.items():
        assert str(frame["value_number"].dtype) == "float64", to
        assert frame["value_number"].dropna().tolist() == numbers, to
        assert frame["value_number"].mean() == pytest.approx(sum(numbers) / len(numbers)), to
        assert [bool(v) for v in frame["value_bool"].dropna()] == flags, to
        assert frame["value_text"].dropna().tolist() == texts, to


def test_a_list_is_only_in_value_and_a_batch_of_one_type_shares_its_list() -> None:
    from humanjudge_schema.judgments.export import typed

    rows = [("f", "d", 1, 0, "q", "", [1, 0], "x", "/0", None), ("f", "d", 1, 1, "q", "", 3, "x", "/1", None)]
    batch = typed(Batch.of_rows(rows))
    assert [batch.rows(name) for name in ("value_number", "value_bool", "value_text")] == [
        [None, 3],
        [None, None],
        [None, None],
    ]
    scores = Batch.of_rows([("f", "d", 1, k, "q", "", 2.5, "x", f"/{k}", None) for k in range(3)])
    batch = typed(scores)
    assert batch.lists["value_number"] is scores.lists["value"]  # no list is made for it
    assert batch.same["value_bool"] is None and batch.same["value_text"] is None


def _noted(path: Path) -> tuple[list[Any], Judgments]:
    told: list[Any] = []
    (unit,) = judgments.units([path])[0]
    (view,) = views([Dataset(unit, lambda u, why: told.append(why), lambda u, note: told.append(note))])
    return told, view


def test_stored_aggregates_alone_say_why_there_is_no_agreement(tmp_path: Path) -> None:
    """A HALIE metaphor folder without its survey holds the third parties' ratings only; a CogGym
    experiment whose individual file is a Git LFS pointer, its means only."""
    metaphor = tmp_path / "metaphor"
    shutil.copytree(EXAMPLES / "halie" / "valid" / "metaphor", metaphor)
    (metaphor / "survey_responses.csv").unlink()
    told, view = _noted(metaphor)
    assert told == [None, "no cell a worker answered in event_blocks.csv: agreement cannot be computed"]
    assert {r.role for r in view.rows()} == {"aggregate"}
    experiment = tmp_path / "exp"
    shutil.copytree(EXAMPLES / "coggym" / "valid", experiment, ignore=shutil.ignore_patterns("assets"))
    (experiment / "human_data_ind.json").write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64 + "\nsize 5242880\n"
    )
    told, view = _noted(experiment)
    assert told == [
        None,
        f"human_data_ind.json is a Git LFS pointer, not the data (run `git lfs pull`): {NO_AGREEMENT}",
    ]
    assert {(r.role, r.file.rsplit("/", 1)[1]) for r in view.rows()} == {("aggregate", "human_data_mean.json")}
