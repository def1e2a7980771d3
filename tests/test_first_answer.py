"""Which answer of a rater to an item counts: the first one given (docs/judgments.md, "One answer
per rater per item"). A null is no answer: a null and then a value counts the value and repeats
nothing; two values count the first, and the second is a `quality/repeated-answer`. The pass over
the judgments (numpy) and the lookup of where a finding is are held to `first_answers`."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from humanjudge_schema import judgments
from humanjudge_schema.commands import cli
from humanjudge_schema.formats.study1.judgments import RATINGS
from humanjudge_schema.judgments.gather import Gathered, first_answers
from humanjudge_schema.judgments.quality import check
from humanjudge_schema.judgments.stats import dataset_stats
from humanjudge_schema.judgments.view import Batch, Judgments, Question

from .conftest import corpus
from .helpers import study1_folder

TASKS = "study1_tasks.jsonl.gz"
REPEATED = "quality/repeated-answer"
# (topic, worker, rating of every question): three workers on four topics, ratings that vary
RATED = [
    ("2024-1", "a", 1.0),
    ("2024-1", "b", 2.0),
    ("2024-1", "c", 2.0),
    ("2024-2", "a", 3.0),
    ("2024-2", "b", 3.0),
    ("2024-2", "c", 4.0),
    ("2024-3", "a", 5.0),
    ("2024-3", "b", 5.0),
    ("2024-3", "c", 5.0),
    ("2024-4", "a", 1.0),
    ("2024-4", "b", 2.0),
    ("2024-4", "c", 1.0),
]


_folder = study1_folder


def _view(folder: Path) -> Judgments:
    (view,) = judgments.datasets([folder])
    return view


def _stats(folder: Path) -> list[dict[str, Any]]:
    return [q.to_json() for q in dataset_stats(_view(folder), samples=50).questions]


def _repeats(folder: Path) -> list[tuple[str, str]]:
    """(pointer, message) of each repeated-answer finding."""
    return [(where.pointer, message) for code, where, message in check(_view(folder)) if code == REPEATED]


def _with(at: int, *tasks: tuple[str, str, float | None]) -> list[tuple[str, str, float | None]]:
    return RATED[:at] + list(tasks) + RATED[at + 1 :]


@pytest.mark.parametrize("order", ["null-first", "null-second"])
def test_a_null_beside_an_answer_is_no_answer(tmp_path: Path, order: str) -> None:
    """Worker a's two tasks of topic 2024-1, one null: the rating counts as if the null task were
    not there (counts, distribution, alpha, missing), and nothing is repeated."""
    null, rated = ("2024-1", "a", None), RATED[0]
    both = _with(0, *((null, rated) if order == "null-first" else (rated, null)))
    plain = _stats(_folder(tmp_path / "plain", RATED))
    found = _stats(_folder(tmp_path / "both", both))
    assert found == plain
    assert [q["judgments"] for q in found] == [12] * 8 and {q["missing"] for q in found} == {0}
    assert found[0]["distribution"] == plain[0]["distribution"] and found[0]["alpha"] is not None
    assert _repeats(tmp_path / "both") == []


def test_two_answers_count_the_first_and_are_a_repeat(tmp_path: Path) -> None:
    """Worker a: a null, then 1.0, then 4.0 on topic 2024-1; worker b: 3.0, then 1.0 on 2024-2.
    The first answer given counts (as if the others were not there), and each second one is a
    repeat named at the first."""
    tasks = [
        ("2024-1", "a", None),
        ("2024-1", "a", 1.0),
        ("2024-1", "a", 4.0),
        *RATED[1:4],
        ("2024-2", "b", 3.0),
        ("2024-2", "b", 1.0),
        *RATED[5:],
    ]
    assert _stats(_folder(tmp_path / "twice", tasks)) == _stats(_folder(tmp_path / "plain", RATED))
    repeats = _repeats(tmp_path / "twice")
    assert [pointer for pointer, _ in repeats] == ["/1/query_answerable", "/6/query_answerable"]
    named = [("'a'", "'2024-1'", "again at /2/query_answerable (line 3)"), ("'b'", "'2024-2'", "again at /7/")]
    for (_, message), words in zip(repeats, named, strict=True):
        assert all(w in message for w in words), message


def test_a_rater_with_nulls_only_is_one_missing_answer(tmp_path: Path) -> None:
    tasks = [*RATED, ("2024-1", "d", None), ("2024-1", "d", None)]
    found = _stats(_folder(tmp_path / "blank", tasks))
    assert {(q["judgments"], q["missing"]) for q in found} == {(12, 1)}
    assert _repeats(tmp_path / "blank") == []


def test_export_writes_every_row_the_nulls_too(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "both", _with(0, ("2024-1", "a", None), RATED[0]))
    out = tmp_path / "rows.jsonl"
    CliRunner().invoke(cli, ["export", str(folder), "-o", str(out)], catch_exceptions=False)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 13 * 8
    mine = [(r["pointer"], r["value"]) for r in rows if r["item"] == "2024-1" and r["rater"] == "a"]
    assert mine == [(f"/{k}/{name}", value) for k, value in ((0, None), (1, 1.0)) for name in RATINGS]


# --- the pass over the judgments, held to first_answers -------------------------------------------


def _rows(seed: int, pool: tuple[Any, ...] = (None, None, 1, 2, 3)) -> list[tuple[Any, ...]]:
    """Rows of two questions in a random order: raters answer items again, some with None."""
    rng = random.Random(seed)
    rows = []
    for k in range(rng.randrange(20, 200)):
        value = rng.choice(pool)
        item, rater, question = f"t{rng.randrange(8)}", f"w{rng.randrange(6)}", rng.choice(["q1", "q2"])
        rows.append(("fmt", "ds", item, rater, question, "", value, "f", f"/{k}", k + 1))
    return rows


@pytest.mark.parametrize("seed", range(40))
def test_the_pass_counts_what_first_answers_says(seed: int) -> None:
    _the_pass_counts_what_first_answers_says(_rows(seed))


# What counts as no answer is one definition, view.NO_ANSWER: widened to an empty text ("a
# rater's first non-empty answer counts"), the pass, its fast paths (numbers, labels, mixed
# values) and the lookup of where a finding is follow the reference, with no other edit. The
# test rebinds the name where each module imported it; in the source it is one line of view.py.
WIDER = frozenset({None, ""})
POOLS = [(None, "", "", 1, 2, 3), (None, "", "", "a", "b"), (None, "", 1.5, 2.5), ("", "", "a", 1)]


@pytest.mark.parametrize("pool", POOLS, ids=["numbers", "labels", "floats", "mixed"])
@pytest.mark.parametrize("seed", range(8))
def test_a_wider_definition_of_no_answer_is_one_edit(
    seed: int, pool: tuple[Any, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    from humanjudge_schema.judgments import agreement, gather, view

    for module in (view, gather, agreement):
        monkeypatch.setattr(module, "NO_ANSWER", WIDER)
    _the_pass_counts_what_first_answers_says(_rows(seed, pool))
    assert first_answers([("k", ""), ("k", None), ("k", "x"), ("k", "y")]) == {"k": 2}


def _the_pass_counts_what_first_answers_says(rows: list[tuple[Any, ...]]) -> None:
    from humanjudge_schema.judgments.view import answered

    cut = len(rows) // 2  # two batches: a null in the first, the answer in the second
    view = Judgments(
        "fmt",
        "ds",
        questions={"q1": Question("q1", "ordinal"), "q2": Question("q2", "ordinal")},
        batches=lambda: iter([Batch.of_rows(rows[:cut]), Batch.of_rows(rows[cut:])]),
    )
    gathered = Gathered.of(view)
    expected_repeats = set()
    first: dict[tuple[str, Any, Any], int] = {}  # (question, rater, item) -> the row that counts
    for name, q in gathered.questions.items():
        mine = [r for r in rows if r[4] == name]
        counts = first_answers(((r[3], r[2]), r[6]) for r in mine)
        pairs = {(r[3], r[2]) for r in mine}
        by_rater: dict[Any, dict[Any, Any]] = {}
        for (rater, item), i in counts.items():
            by_rater.setdefault(rater, {})[(item, "")] = mine[i][6]
            first[(name, rater, item)] = mine[i][9] - 1
        assert q.by_rater == by_rater
        assert q.missing == len(pairs - counts.keys())
        per_item = Counter((mine[i][2], mine[i][6]) for i in counts.values())
        assert {(u[0], v): n for u, c in q.tally.per_item().items() for v, n in c.items()} == per_item
        expected_repeats |= {
            (name, r[3], r[2], r[8]) for i, r in enumerate(mine) if answered(r[6]) and counts[(r[3], r[2])] != i
        }
    assert {(a.question, a.rater, a.place[0], a.where.pointer) for a in gathered.repeats} == expected_repeats
    # each finding is at the answer that counts of the question of the rater's first repeat
    again: dict[tuple[Any, Any], str] = {}
    for a in gathered.repeats:
        again.setdefault((a.rater, a.place[0]), a.question)
    found = sorted(where.pointer for code, where, _ in check(view, gathered) if code == REPEATED)
    assert found == sorted(f"/{first[(name, rater, item)]}" for (rater, item), name in again.items())


def test_first_answers_skips_none() -> None:
    rows = [("k", None), ("j", 2), ("k", 1), ("k", 5), ("j", None), ("n", None)]
    assert first_answers(rows) == {"j": 1, "k": 2}


# --- the real study-1 files ------------------------------------------------------------------------


def test_study1_corpus_counts_the_rating_after_a_null_task() -> None:
    """Worker 76074975-... holds two tasks of topic 2024-213817: line 226 null, line 228 rated.
    The rating counts: 828 judgments per question; and neither that topic nor 2024-152259 (rated
    at line 151, null at line 153) is a repeated answer."""
    view = _view(corpus("study1", "raw"))
    gathered = Gathered.of(view)
    stats = {q.question: q for q in dataset_stats(view, samples=5, gathered=gathered).questions}
    answerable = stats["query_answerable"]
    assert answerable.judgments == 828 and answerable.missing == 23
    assert answerable.alpha is not None and round(answerable.alpha, 5) == 0.03214
    repeated = [message for code, _, message in check(view, gathered) if code == REPEATED]
    assert len(repeated) == 50
    assert not [m for m in repeated if "'2024-213817'" in m or "'2024-152259'" in m]
