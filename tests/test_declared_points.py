"""The values a question lets its raters choose, taken from what each format declares (the
schemas of study 1 and HALIE, a CogGym multi-choice's options), so that a question every rater
answered alike has Gwet's AC 1: chance agreement counts the values nobody chose."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema.judgments import datasets
from humanjudge_schema.judgments.stats import describe
from humanjudge_schema.schemas import points

from .conftest import ROOT
from .helpers import study1_folder


@pytest.mark.parametrize(
    ("schema", "field", "expected"),
    [
        ("study1/v1/tasks", "query_answerable", (-1, 0, 1)),  # an enum through $defs, null left out
        ("study1/v1/tasks", "references_quality", (1, 2, 3, 4, 5)),  # whole numbers, minimum to maximum
        ("halie/v1/dialogue/survey-responses", "quality", (1, 2, 3, 4, 5)),  # numbers with multipleOf 1
        ("halie/v1/metaphor/event-blocks", "apt", (0, 0.5, 1)),
        ("halie/v1/summarization/event-blocks", "original_consistency", (False, True)),
        ("halie/v1/crossword/survey-responses", "joy", (-1, 1, 2, 3, 4, 5)),  # its if/then rules out 0
        ("halie/v1/question/event-blocks", "user_answer", ("a", "b", "c", "d")),
        ("halie/v1/summarization/event-blocks", "original_relevance_third_party", None),  # a mean: unbounded
        ("halie/v1/question/event-blocks", "no_such_column", None),
    ],
)
def test_points_are_what_the_schema_allows(schema: str, field: str, expected: Any) -> None:
    assert points(schema, field) == expected


def _question(folder: Path, name: str) -> dict[str, Any]:
    (view,) = datasets([folder])
    found = {q["question"]: q for q in describe(view, samples=50).to_json()["questions"]}
    return found[name]


def _one_value(q: dict[str, Any], value: Any) -> None:
    assert q["alpha"] is None and q["note"].startswith(f"every judgment is {value!r}: with one value")
    assert q["agreement"]["observed"] == 1.0 and q["agreement"]["ac"] == 1.0


def test_study1_ratings_take_their_points_from_the_schema(tmp_path: Path) -> None:
    tasks = [(topic, worker, 1.0) for topic in ("2024-1", "2024-2") for worker in ("w1", "w2", "w3")]
    folder = study1_folder(tmp_path / "s", tasks)
    (view,) = datasets([folder])
    assert view.questions["query_answerable"].order == (-1, 0, 1)
    assert view.questions["references_quality"].order == (1, 2, 3, 4, 5)
    _one_value(_question(folder, "query_answerable"), 1.0)  # as real files write it
    _one_value(_question(folder, "references_quality"), 1.0)


def test_a_multi_choice_answered_alike_has_ac_1(tmp_path: Path) -> None:
    folder = tmp_path / "exp"
    shutil.copytree(ROOT / "examples" / "coggym" / "valid", folder)
    ind = json.loads((folder / "human_data_ind.json").read_text())
    ind["trial_1"]["agent_goal"] = [{"idx": 0, "option_text": "Red box"}] * 3
    (folder / "human_data_ind.json").write_text(json.dumps(ind))
    (view,) = datasets([folder])
    assert view.questions["agent_goal"].order == (0, 1, 2)  # the indices of its three options
    _one_value(_question(folder, "agent_goal"), 0)


def test_a_halie_choice_answered_alike_has_ac_1(tmp_path: Path) -> None:
    folder = tmp_path / "question"
    shutil.copytree(ROOT / "examples" / "halie" / "valid" / "question", folder)
    path = folder / "event_blocks.csv"
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row["user_answer"] = "a"
    with path.open("w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=list(rows[0]))
        out.writeheader()
        out.writerows(rows)
    (view,) = datasets([folder])
    assert view.questions["user_answer"].order == ("a", "b", "c", "d")
    _one_value(_question(folder, "user_answer"), "a")


def test_a_value_that_means_not_asked_is_no_choice() -> None:
    (view,) = datasets([ROOT / "examples" / "halie" / "valid" / "crossword"])
    assert view.questions["joy"].order == (1, 2, 3, 4, 5)
    assert view.questions["fluency"].order == (1, 2, 3, 4, 5)
