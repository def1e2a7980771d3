"""A run of TextJudge instances read in C-level passes (flatten.py) gives the rows, in the order,
the view gives reading it instance by instance, whatever the run holds: flatten takes the shapes
it knows and leaves the others to the loop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from humanjudge_schema.formats.textjudge import judgments as textjudge_view
from humanjudge_schema.formats.textjudge.flatten import by_metric, flatten
from humanjudge_schema.judgments import datasets
from humanjudge_schema.judgments.view import Judgments, Needs

from .conftest import CORPUS, ROOT


def _rows(path: Path) -> list[tuple[Any, ...]]:
    return [tuple(r) for view in datasets([path], kind="textjudge") for r in view.rows()]


def _both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    fast = _rows(path)
    with monkeypatch.context() as m:
        m.setattr(textjudge_view, "flatten", lambda instances, offset, pointers=True: None)
        slow = _rows(path)
    return fast, slow


def _files() -> list[Path]:
    found = sorted((ROOT / "tests" / "cases" / "textjudge").rglob("*.json"))
    found += sorted((ROOT / "examples" / "textjudge").rglob("*.json"))
    return [p for p in found if p.name != "expected.json"]


@pytest.mark.parametrize("path", _files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_case_gives_the_rows_of_the_loop(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _both(path, monkeypatch)
    assert fast == slow


def test_the_corpus_gives_the_rows_of_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = CORPUS / "judgebench"
    if not folder.is_dir():
        pytest.skip(f"no corpus at {folder}")
    fast, slow = _both(folder, monkeypatch)
    assert fast == slow and len(fast) > 100_000


_scalar = st.one_of(
    st.integers(-3, 7), st.sampled_from(["Yes", "No", "a/b~c"]), st.none(), st.booleans(), st.floats(0, 5)
)
_score = st.one_of(_scalar, st.lists(_scalar, max_size=2), st.dictionaries(st.just("x"), _scalar, max_size=1))
_scores_object = st.fixed_dictionaries(
    {},
    optional={
        "individual_human_scores": st.one_of(
            st.lists(_score, max_size=4), st.lists(_scalar, min_size=1, max_size=5), _scalar
        ),
        "mean_human": st.one_of(_scalar, st.lists(_scalar, max_size=1)),
        "majority_human": _scalar,
    },
)
_instance = st.one_of(
    st.fixed_dictionaries(
        {"annotations": st.dictionaries(st.sampled_from(["fluency", "a/b", "c~d"]), _scores_object, max_size=3)},
        optional={"id": st.one_of(st.integers(0, 9), st.text(max_size=2), st.none(), st.booleans(), st.floats(0, 1))},
    ),
    st.just([]),
    st.just({"id": 1}),
    st.just({"id": 2, "annotations": []}),
    st.fixed_dictionaries({"id": st.integers(0, 9), "annotations": st.dictionaries(st.just("m"), _scalar, max_size=1)}),
)

# the shape flatten takes, with what it must still leave out (an aggregate that is no value)
_usual = st.fixed_dictionaries(
    {
        "id": st.one_of(st.integers(0, 9), st.text(max_size=2)),
        "annotations": st.dictionaries(
            st.sampled_from(["fluency", "a/b", "c~d"]),
            st.fixed_dictionaries(
                {"individual_human_scores": st.lists(_scalar, min_size=1, max_size=5)},
                optional={"mean_human": st.one_of(_scalar, st.lists(_scalar, max_size=1)), "majority_human": _scalar},
            ),
            max_size=3,
        ),
    }
)


@given(instances=st.one_of(st.lists(_usual, max_size=6), st.lists(_instance, max_size=6)))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_run_gives_the_rows_of_the_loop(instances: list[Any], tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("flat") / "dataset.json"
    path.write_text(json.dumps({"annotations": [{"metric": "fluency"}], "instances": instances}))
    fast = _rows(path)
    original = textjudge_view.flatten
    textjudge_view.flatten = lambda instances, offset, pointers=True: None  # type: ignore[assignment]
    try:
        slow = _rows(path)
    finally:
        textjudge_view.flatten = original
    assert fast == slow


def test_the_usual_shape_is_flattened_and_an_unusual_one_left_to_the_loop() -> None:
    usual = [{"id": 7, "annotations": {"a/b": {"mean_human": 2.5, "individual_human_scores": [2, 3]}}}]
    individual, stored = flatten(usual, 40) or ({}, {})
    assert individual["pointer"] == [
        "/instances/40/annotations/a~1b/individual_human_scores/0",
        "/instances/40/annotations/a~1b/individual_human_scores/1",
    ]
    assert individual["item"] == [7, 7] and individual["rater"] == [0, 1] and individual["value"] == [2, 3]
    assert stored == {
        "item": [7],
        "question": ["a/b"],
        "value": [2.5],
        "pointer": ["/instances/40/annotations/a~1b/mean_human"],
    }
    assert flatten([{"annotations": {"a": {"individual_human_scores": []}}, "id": 1}], 0) is None
    assert flatten([{"annotations": {"a": {"individual_human_scores": [[1]]}}, "id": 1}], 0) is None
    assert flatten([{"annotations": {"a": {"individual_human_scores": [1]}}}], 0) is None  # no id


@pytest.mark.parametrize("loop", [False, True])
def test_a_pass_without_pointers_leaves_out_only_theirs(loop: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The statistics' pass asks for no pointers (view.Needs): the individual judgments come
    without theirs, the stored aggregates and every other column as they are."""
    if loop:
        monkeypatch.setattr(textjudge_view, "flatten", lambda instances, offset, pointers=True: None)
    folder = ROOT / "examples" / "textjudge"
    for view in datasets([folder], kind="textjudge"):
        rows = [tuple(r) for r in view.rows()]
        bare = _pass_rows(view, Needs(pointer=False))
        assert rows == [tuple(r) for r in view.rows()]  # a pass's needs are its own
        expected = [(*r[:8], "", *r[9:]) if r[10] == "individual" else r for r in rows]
        assert bare == expected and any(r[10] == "individual" for r in rows)


@given(instances=st.one_of(st.lists(_usual, max_size=6), st.lists(_instance, max_size=6)), offset=st.integers(0, 50))
def test_by_metric_gives_each_metrics_rows_of_flatten(instances: list[Any], offset: int) -> None:
    """Metric by metric (a pass that needs no order across questions): each metric's rows as
    flatten gives them, in their order, the metrics in the order they first come; the stored
    aggregates the same but for their pointers; the same runs left to the loop."""
    flat, grouped = flatten(instances, offset, pointers=False), by_metric(instances)
    assert (flat is None) == (grouped is None)
    if flat is None or grouped is None:
        return
    individual, stored = flat
    assert grouped[1] == {column: values for column, values in stored.items() if column != "pointer"}
    names = individual.get("question", [])
    assert [metric for metric, _ in grouped[0]] == list(dict.fromkeys(names))
    for metric, columns in grouped[0]:
        mine = [k for k, name in enumerate(names) if name == metric]
        assert set(columns) == {"item", "rater", "value"}
        for column, values in columns.items():
            assert list(values) == [individual[column][k] for k in mine]


def test_a_pass_without_pointers_or_order_gives_each_question_its_rows() -> None:
    """Without pointers and order, a run of the usual shape comes a batch per metric: the rows
    of each question in file order, the same rows in all (the stored aggregates' too, without
    their pointers)."""
    path = ROOT / "examples" / "textjudge" / "valid" / "dataset.json"
    for view in datasets([path], kind="textjudge"):
        ordered = _pass_rows(view, Needs(pointer=False))
        batches = list(view.in_batches(Needs(pointer=False, order=False)))
        grouped = [t for b in batches for t in b.tuples()]
        assert any("question" in b.same for b in batches)
        # the aggregates without their pointers, as the individual judgments
        ordered = [(*r[:8], "", *r[9:]) for r in ordered]
        assert sorted(grouped, key=repr) == sorted(ordered, key=repr) and grouped != ordered
        for question in {r[4] for r in ordered}:
            assert [r for r in grouped if r[4] == question] == [r for r in ordered if r[4] == question]


def _unordered_rows(path: Path) -> list[tuple[Any, ...]]:
    """The rows as the statistics' pass takes them: without pointers, question by question."""
    out = []
    for view in datasets([path], kind="textjudge"):
        out += _pass_rows(view, Needs(pointer=False, order=False))
    return out


def _pass_rows(view: Judgments, needs: Needs) -> list[tuple[Any, ...]]:
    """The rows of a pass with these needs."""
    return [t for b in view.in_batches(needs) for t in b.tuples()]


@pytest.mark.parametrize("path", _files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_file_read_in_runs_unchecked_gives_the_rows_read_whole(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pass that needs no order across questions (the statistics') reads a large file's runs
    without the instances' schema check, which would only send it to the whole file: the rows of
    the file read whole, for every case, valid or not (in another order: each run's stored
    aggregates come after its own scores)."""
    from humanjudge_schema.formats.textjudge import stream

    monkeypatch.setattr(stream, "STREAM_FROM", 1 << 40)
    whole = _unordered_rows(path)
    monkeypatch.setattr(stream, "STREAM_FROM", 0)
    monkeypatch.setattr(stream, "RUN_BYTES", 200)
    assert sorted(_unordered_rows(path), key=repr) == sorted(whole, key=repr)


def test_scores_are_scalars_when_checked_on_their_bytes() -> None:
    """flatten._scalars: true exactly when every score is a scalar, whatever the texts hold
    (brackets and braces in a label send it to the look score by score) and for integers beyond
    what the JSON writer takes."""
    from humanjudge_schema.formats.textjudge.flatten import _scalars

    assert _scalars([[1, 2.5, "a", None, True], ["b"]])
    assert _scalars([["[x]", "{y}"], [2**70]])
    assert not _scalars([[1, [2]], ["a"]])
    assert not _scalars([[1], [{"a": 1}]])
    assert not _scalars([["[", []]])
    assert not _scalars([[2**70, {}]])
