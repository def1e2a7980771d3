"""Dawid-Skene estimates of rater competence (judgments/competence.py), held to crowd-kit's
`DawidSkene` to 1e-6: on random answers, on a tie, on the nominal questions of the corpus whose
raters are persons, and on Get-Another-Label's AdultContent2 with its gold labels."""

from __future__ import annotations

import csv
import io
import json
import os
import random
import warnings
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from humanjudge_schema import judgments
from humanjudge_schema.commands import cli
from humanjudge_schema.judgments import competence, raters
from humanjudge_schema.judgments.gather import Gathered, GatheredQuestion
from humanjudge_schema.judgments.html_raters import raters_section
from humanjudge_schema.judgments.summary import DatasetStats
from humanjudge_schema.judgments.view import COLUMNS, Batch, Judgments, Level, Question

from .conftest import CASES, ROOT, corpus

Answer = tuple[Hashable, Hashable, Hashable]  # rater, item, label


def _crowdkit() -> Any:
    """crowd-kit's DawidSkene. CI installs it without its pins (.ci/run), and these comparisons
    must run there; elsewhere they skip without it."""
    if os.environ.get("HUMANJUDGE_NEEDS_CROWDKIT"):
        import crowdkit.aggregation as aggregation
    else:
        aggregation = pytest.importorskip("crowdkit.aggregation")
    return aggregation


def _theirs(answers: Sequence[Answer]) -> Any:
    """crowd-kit's fit of the answers (its warnings, of pandas' deprecations, silenced)."""
    import pandas as pd

    aggregation = _crowdkit()
    frame = pd.DataFrame(list(answers), columns=["worker", "task", "label"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return aggregation.DawidSkene().fit(frame)


def _view(answers: Sequence[Answer], level: Level = "nominal") -> Judgments:
    rows = [("fmt", "ds", item, rater, "q", "", label, "f", "", None) for rater, item, label in answers]
    return Judgments(
        "fmt", "ds", questions={"q": Question("q", level)}, raters="person", batches=lambda: iter([Batch.of_rows(rows)])
    )


def _ours(answers: Sequence[Answer]) -> competence.Estimates:
    found = competence.of_question(Gathered.of(_view(answers)).questions["q"])
    assert found is not None
    return found


def _answers(q: GatheredQuestion) -> list[Answer]:
    """A gathered question's answers that count (one per rater and item), as (rater, item, label),
    an item (a place: item and option) written as text for pandas."""
    assert q.answered is not None
    a, c = q.answered, q.tally.counts()
    return [
        (q.raters[r], str(c.units[u]), c.values[v])
        for r, u, v in zip(a.rater.tolist(), a.unit.tolist(), a.value.tolist(), strict=True)
    ]


def _assert_agree(ours: competence.Estimates, theirs: Any, task: Any = lambda place: place[0]) -> None:
    """Every estimate within 1e-6 of crowd-kit's, and the same estimated labels and rounds;
    `task`: crowd-kit's name of an item of ours."""
    tasks = list(map(task, ours.places))
    posterior = theirs.probas_.reindex(index=tasks, columns=ours.labels).to_numpy()
    assert np.abs(posterior - ours.posterior).max() < 1e-6
    assert np.abs(theirs.priors_.reindex(ours.labels).to_numpy() - ours.prior).max() < 1e-6
    errors = theirs.errors_  # (worker, answer) x true label; answers a worker never gave are absent
    for k, rater in enumerate(ours.raters):
        mine = errors.xs(rater, level="worker").reindex(index=ours.labels, columns=ours.labels, fill_value=0.0)
        assert np.abs(mine.to_numpy().T - ours.confusion[k]).max() < 1e-6, rater
    labels = [ours.labels[k] for k in ours.estimated().tolist()]
    assert labels == theirs.labels_.reindex(tasks).tolist()
    assert ours.rounds == len(theirs.loss_history_)


def _random(rng: random.Random) -> list[Answer]:
    """Raters of random skill labelling items of random true labels."""
    labels = [f"l{k}" for k in reversed(range(rng.randint(2, 5)))]
    raters = [(f"r{k}", rng.random()) for k in range(rng.randint(3, 25))]
    out = []
    for item in range(rng.randint(10, 150)):
        truth = rng.choice(labels)
        for rater, skill in rng.sample(raters, rng.randint(1, min(len(raters), 6))):
            out.append((rater, f"i{item}", truth if rng.random() < skill else rng.choice(labels)))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_crowdkit_agrees_on_random_answers(seed: int) -> None:
    answers = _random(random.Random(f"dawid-skene {seed}"))
    _assert_agree(_ours(answers), _theirs(answers))


@pytest.mark.parametrize("first", ["a", "b"])
def test_a_tie_goes_to_the_label_first_given_as_in_crowdkit(first: str) -> None:
    # two raters who always disagree, alike in every way: every item is half a, half b
    other = "b" if first == "a" else "a"
    answers = [("r1", "i1", first), ("r2", "i1", other), ("r1", "i2", other), ("r2", "i2", first)]
    ours = _ours(answers)
    assert ours.posterior.tolist() == [[0.5, 0.5], [0.5, 0.5]]
    assert [ours.labels[k] for k in ours.estimated().tolist()] == [first, first]
    _assert_agree(ours, _theirs(answers))


def test_perfect_raters_are_certain_and_accurate() -> None:
    answers = [(r, i, "yes" if i % 3 else "no") for r in ("a", "b", "c") for i in range(12)]
    ours = _ours(answers)
    assert ours.labels == ["no", "yes"]  # item 0 is the first
    assert ours.accuracy.tolist() == pytest.approx([1.0, 1.0, 1.0])
    assert ours.prior.tolist() == pytest.approx([1 / 3, 2 / 3])
    assert np.allclose(ours.confusion, np.eye(2), atol=1e-9)


def test_a_rater_who_always_answers_one_label_is_right_only_on_it() -> None:
    # a and b are right; c answers yes to everything: c's accuracy is the share of yes items
    answers = [(r, i, "yes" if i < 9 else "no") for r in ("a", "b") for i in range(12)]
    answers += [("c", i, "yes") for i in range(12)]
    ours = _ours(answers)
    accuracy = dict(zip(ours.raters, ours.accuracy.tolist(), strict=True))
    assert accuracy["c"] == pytest.approx(9 / 12, abs=1e-6)
    assert accuracy["a"] == pytest.approx(1.0, abs=1e-6)
    c = ours.raters.index("c")
    assert ours.labels == ["yes", "no"]
    assert np.allclose(ours.confusion[c], [[1.0, 0.0], [1.0, 0.0]], atol=1e-6)  # rows: true yes, no


@pytest.mark.parametrize(
    ("level", "answers"),
    [
        ("ordinal", [("a", 1, 1), ("b", 1, 2)]),  # not nominal
        ("nominal", [("a", 1, "x"), ("b", 1, "x"), ("a", 2, "x")]),  # one label
        ("nominal", [("a", 1, "x"), ("b", 2, "y"), ("a", 3, "y")]),  # no item of two answers
    ],
)
def test_no_estimates_where_they_do_not_apply(level: Level, answers: list[Answer]) -> None:
    assert competence.of_question(Gathered.of(_view(answers, level)).questions["q"]) is None


def test_a_question_of_too_many_cells_gets_none(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = [("a", 1, "x"), ("b", 1, "y"), ("a", 2, "z")]
    monkeypatch.setattr(competence, "MAX_CELLS", 2 * 3 * 3 - 1)
    assert competence.of_question(Gathered.of(_view(answers)).questions["q"]) is None


# --- real data -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("folder", "question"),
    [
        (("halie", "data", "std", "question"), "user_answer"),
        (("coggym", "lance-ying__coggym", "EML", "Yoon2020Polite", "exp1"), "judgment"),
    ],
)
def test_crowdkit_agrees_on_the_corpus(folder: tuple[str, ...], question: str) -> None:
    (view,) = judgments.datasets([corpus(*folder)])
    q = Gathered.of(view).questions[question]
    ours = competence.of_question(q)
    assert ours is not None
    _assert_agree(ours, _theirs(_answers(q)), str)


GAL = ("tables", "gal-adultcontent2-triplets")


def _gal(name: str) -> list[list[str]]:
    text = corpus(*GAL, name).read_text(encoding="utf-8")
    return [line.split("\t") for line in text.splitlines() if line]


def _adultcontent2() -> list[Answer]:
    """Get-Another-Label's AdultContent2 (worker, site, label), read here as the file is: a
    worker's first label of a site counts, as in the package."""
    first: dict[tuple[str, str], str] = {}
    for worker, site, label in _gal("labels.txt"):
        first.setdefault((worker, site), label)
    return [(worker, site, label) for (worker, site), label in first.items()]


def test_adultcontent2_against_the_gold_labels(record_property: Any) -> None:
    """The estimated labels and the majority's, against the gold labels of the sites that have
    them; docs/stats.md states both figures."""
    answers = _adultcontent2()
    ours = _ours(answers)
    gold = dict(map(tuple, _gal("gold.txt")))  # type: ignore[arg-type]
    estimated = dict(zip(ours.places, (ours.labels[k] for k in ours.estimated().tolist()), strict=True))
    majority = _majority(answers)
    judged = [(site, label) for site, label in gold.items() if (site, "") in estimated]
    right = sum(estimated[site, ""] == label for site, label in judged)
    right_by_majority = sum(majority[site] == label for site, label in judged)
    record_property("dawid_skene_right", f"{right} of {len(judged)}")
    record_property("majority_right", f"{right_by_majority} of {len(judged)}")
    print(f"AdultContent2 gold: Dawid-Skene {right}/{len(judged)}, majority {right_by_majority}/{len(judged)}")
    assert (len(judged), right, right_by_majority) == (333, 256, 253)
    assert ours.rounds == 2


def test_crowdkit_agrees_on_adultcontent2() -> None:
    answers = _adultcontent2()
    _assert_agree(_ours(answers), _theirs(answers))


def _majority(answers: Sequence[Answer]) -> dict[Hashable, Hashable]:
    """Each item's most common label, the first given of equally common ones."""
    counts: dict[Hashable, Counter[Hashable]] = {}
    for _, item, label in answers:
        counts.setdefault(item, Counter())[label] += 1
    return {item: c.most_common(1)[0][0] for item, c in counts.items()}


# --- where the estimates are shown -------------------------------------------------------------

OUTLYING = CASES / "coggym" / "invalid" / "quality-outlying-rater"  # a nominal question, rater 0 always differs


def _stats(*args: str) -> str:
    result = CliRunner().invoke(cli, ["stats", *args], catch_exceptions=False)
    assert result.exit_code == 0
    return result.stdout


def test_stats_raters_gives_each_row_of_a_nominal_question_its_competence() -> None:
    (ds,) = json.loads(_stats(str(OUTLYING), "--raters", "--format", "json"))["datasets"]
    competence = {r["rater"]: r["competence"] for r in ds["raters"]}
    assert competence[0] == 0.0 and min(v for k, v in competence.items() if k != 0) > 0.9
    confusion = ds["raters"][0]["confusion"]  # true label -> answer -> probability
    assert set(confusion) == set(confusion["0"]) == {"0", "1", "2"}
    assert all(abs(sum(row.values()) - 1) < 1e-3 and row[label] == 0.0 for label, row in confusion.items())
    text = _stats(str(OUTLYING), "--raters")
    listed = text.split("lowest competence, Dawid-Skene (at least 20 items):\n")[1].splitlines()
    assert listed[0].split() == ["rater", "question", "items", "modal", "share", "competence"]
    assert listed[1].split() == ["0", "goal", "24", "1", "33%", "0%"]


def test_no_competence_where_no_question_is_nominal() -> None:
    study1 = str(CASES / "study1" / "valid" / "minimal")
    (ds,) = json.loads(_stats(study1, "--raters", "--format", "json"))["datasets"]
    assert ds["raters"] and all("competence" not in r and "confusion" not in r for r in ds["raters"])
    assert "competence" not in _stats(study1, "--raters")


def test_the_report_lists_the_least_competent() -> None:
    (view,) = judgments.datasets([OUTLYING])
    rows, note = raters.table(Gathered.of(view))
    html = raters_section(DatasetStats("d", "f", (), raters=tuple(rows), raters_note=note))
    after = html.split("Lowest competence, Dawid-Skene (at least 20 items):")[1]
    assert after.index("<td>0</td><td>goal</td><td>24</td><td>1</td><td>33%</td><td>0%</td>") < after.index("</table>")
    plain = raters_section(DatasetStats("d", "f", (), raters=tuple(replace(r, competence=None) for r in rows)))
    assert "competence" not in plain


def _export(tmp_path: Path, name: str, *args: str) -> tuple[bytes, str]:
    out = tmp_path / name
    result = CliRunner().invoke(cli, ["export", *args, "-o", str(out)], catch_exceptions=False)
    return out.read_bytes(), result.stderr


def test_export_estimates_follow_the_rows_one_per_item(tmp_path: Path) -> None:
    plain, _ = _export(tmp_path, "plain.csv", str(OUTLYING))
    estimated, said = _export(tmp_path, "estimates.csv", str(OUTLYING), "--estimates")
    assert estimated.startswith(plain)  # the rows as they were, then the estimates
    assert "wrote 120 judgments, 50 stored aggregates and 24 estimates from 1 dataset" in said
    rows = list(csv.DictReader(io.StringIO(estimated[len(plain) :].decode(), newline=""), fieldnames=COLUMNS))
    (view,) = judgments.datasets([OUTLYING])
    found = competence.of_question(Gathered.of(view).questions["goal"])
    assert found is not None
    labels = [found.labels[k] for k in found.estimated().tolist()]
    assert [(r["item"], r["question"], r["value"]) for r in rows] == [
        (item, "goal", str(label)) for (item, _), label in zip(found.places, labels, strict=True)
    ]
    assert {(r["role"], r["rater"], r["rater_kind"], r["file"]) for r in rows} == {("estimate", "", "none", "")}


def test_export_estimates_of_a_dataset_without_a_nominal_question_add_nothing(tmp_path: Path) -> None:
    study1 = str(CASES / "study1" / "valid" / "minimal")
    plain, _ = _export(tmp_path, "plain.jsonl", study1)
    estimated, said = _export(tmp_path, "estimates.jsonl", study1, "--estimates")
    assert estimated == plain and "and 0 estimates" in said


def test_export_estimates_to_parquet(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    _export(tmp_path, "e.parquet", str(OUTLYING), "--estimates")
    roles = Counter(pq.read_table(tmp_path / "e.parquet").column("role").to_pylist())
    assert roles == {"individual": 120, "aggregate": 50, "estimate": 24}


def test_the_competence_table_of_docs_stats_is_the_commands_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(corpus("coggym", "lance-ying__coggym"))
    printed = _stats("--raters", "EML/Yoon2020Polite/exp1")
    page = (ROOT / "docs" / "stats.md").read_text(encoding="utf-8")
    assert f"$ humanjudge stats --raters EML/Yoon2020Polite/exp1\n{printed.rstrip()}\n```" in page
