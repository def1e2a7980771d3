"""Rules on trial.jsonl and instruction.jsonl on their own: ids, tags, stimuli, sliders, answers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....engine import Hit
from ....readers.jsonfile import JsonlDocument
from ....registry import rule
from ..model import Experiment
from ..parts import broken_of, objects, slider_range


@rule(
    "coggym/duplicate-id",
    "trial and module ids are unique",
    why="The flow, the human data and test trials refer to trials and instruction modules by id; "
    "with two records of one id, every reference is ambiguous and one record's data is lost.",
    bad='{"id": "t1", ...}\n{"id": "t1", ...}',
    good='{"id": "t1", ...}\n{"id": "t2", ...}',
    scope="experiment",
)
def duplicate_id(exp: Experiment) -> Iterator[Hit]:
    seen: dict[str, str] = {}
    for records, name in ((exp.trial_records, "trial.jsonl"), (exp.module_records, "instruction.jsonl")):
        for i, record in records.readable:
            rid = record.get("id")
            if not isinstance(rid, str):
                continue
            if rid in seen:
                yield records.doc, f"/{i}/id", f"id {rid!r} is already used in {seen[rid]}"
            else:
                seen[rid] = records.where(i, name)


@rule(
    "coggym/duplicate-tag",
    "the queries of one trial have distinct tags",
    why="Responses are stored per tag: two queries with one tag write into the same array, and "
    "nobody can tell which answer belongs to which question.",
    bad='"queries": [{"type": "textbox", "tag": "why"}, {"type": "single-slider", "tag": "why", ...}]',
    good='"queries": [{"type": "textbox", "tag": "why"}, {"type": "single-slider", "tag": "how_sure", ...}]',
    scope="experiment",
)
def duplicate_tag(exp: Experiment) -> Iterator[Hit]:
    for i, trial in exp.trial_records.readable:
        seen: set[str] = set()
        for qi, q in objects(trial.get("queries")):
            tag = q.get("tag")
            if tag is None or q.get("type", "text-instruction") == "text-instruction":
                continue
            if tag in seen:
                where = f"trial {trial['id']!r}" if "id" in trial else "the trial"
                yield exp.trial_doc, f"/{i}/queries/{qi}/tag", f"tag {tag!r} is used by two queries of {where}"
            seen.add(tag)


@rule(
    "coggym/dimension-count",
    "a stimulus has one dimension per media_url",
    why="`dimension[k]` sizes `media_url[k]`; a list of another length leaves media unsized or sizes the wrong one.",
    bad='{"input_type": "img", "media_url": ["a.png", "b.png"], "dimension": [{"width": 400, "height": 300}]}',
    good='{"input_type": "img", "media_url": ["a.png", "b.png"], "dimension": [{"width": 400, "height": 300}, {"width": 400, "height": 300}]}',
    scope="experiment",
)
def dimension_count(exp: Experiment) -> Iterator[Hit]:
    for i, trial in exp.trial_records.readable:
        for si, stimulus in objects(trial.get("stimuli")):
            if "dimension" in stimulus and "media_url" not in broken_of(stimulus):
                n, m = len(stimulus["dimension"]), len(stimulus.get("media_url", []))
                if n != m:
                    yield exp.trial_doc, f"/{i}/stimuli/{si}/dimension", f"{n} dimensions for {m} media_url entries"


def _all_queries(exp: Experiment) -> Iterator[tuple[JsonlDocument, int, int, dict[str, Any]]]:
    """(document, record index, query position, query) for every readable query of the trials
    and quizzes."""
    trials, quizzes = exp.trial_doc, exp.module_doc
    for i, qi, q in exp.trial_queries():
        yield trials, i, qi, q  # type: ignore[misc]
    for i, qi, q in exp.quiz_queries():
        yield quizzes, i, qi, q  # type: ignore[misc]


@rule(
    "coggym/slider-config",
    "min < max, and label values and default_value within [min, max]",
    why="A slider whose range is empty or whose labels sit outside it cannot be drawn as the "
    "experimenters meant, and its recorded values cannot be interpreted. An empty range is "
    "reported once, here: its labels and the answers given on it are not checked against it.",
    bad='"slider_config": {"min": 100, "max": 0, "labels": [{"value": 150, "label": "sure"}]}',
    good='"slider_config": {"min": 0, "max": 100, "labels": [{"value": 100, "label": "sure"}]}',
    scope="experiment",
)
def slider_config(exp: Experiment) -> Iterator[Hit]:
    for doc, i, qi, q in _all_queries(exp):
        bounds = slider_range(q)
        if bounds is None:
            continue
        lo, hi = bounds
        if lo >= hi:
            yield doc, f"/{i}/queries/{qi}/slider_config/max", f"max {hi!r} is not above min {lo!r}"
            continue
        cfg = q["slider_config"]
        for li, label in objects(cfg.get("labels")):
            if "value" in label and not lo <= label["value"] <= hi:
                yield (
                    doc,
                    f"/{i}/queries/{qi}/slider_config/labels/{li}/value",
                    f"label value {label['value']!r} is outside [{lo}, {hi}]",
                )
        default = cfg.get("default_value")
        if default is not None and not lo <= default <= hi:
            yield (
                doc,
                f"/{i}/queries/{qi}/slider_config/default_value",
                f"default_value {default!r} is outside [{lo}, {hi}]",
            )


@rule(
    "coggym/answer",
    "a multi-choice answer is an index of the query's options",
    why="`answer` is the 0-based index of the correct option: out of range, it marks every "
    "participant wrong. (A comprehension-quiz question without an answer is a schema error.)",
    bad='{"type": "multi-choice", "tag": "q1", "option": ["yes", "no"], "answer": 2}',
    good='{"type": "multi-choice", "tag": "q1", "option": ["yes", "no"], "answer": 1}',
    scope="experiment",
)
def answer(exp: Experiment) -> Iterator[Hit]:
    for doc, i, qi, q in _all_queries(exp):
        if q.get("type") == "multi-choice" and "answer" in q and "option" in q:
            n = len(q["option"])
            if not 0 <= q["answer"] < n:
                yield doc, f"/{i}/queries/{qi}/answer", f"answer {q['answer']!r} is not an index of the {n} options"


@rule(
    "coggym/test-trial-stimulus",
    "a test_trial module shows an existing trial",
    why="A test trial replays a trial of trial.jsonl by its id; an unknown id shows nothing.",
    bad='{"id": "practice", "type": "test_trial", "stimuli_id": "no_such_trial"}',
    good='{"id": "practice", "type": "test_trial", "stimuli_id": "trial_1"}',
    scope="experiment",
)
def test_trial_stimulus(exp: Experiment) -> Iterator[Hit]:
    if exp.trial_doc is None or not exp.trial_records.ids_complete:
        return
    for i, module in exp.module_records.readable:
        if module.get("type") == "test_trial" and "stimuli_id" in module and module["stimuli_id"] not in exp.trials:
            yield exp.module_doc, f"/{i}/stimuli_id", f"{module['stimuli_id']!r} is not a trial id"
