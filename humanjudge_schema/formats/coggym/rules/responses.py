"""Rules on the responses of human_data_ind.json: how many there are, their shape, and each kind
of answer against its query (choices, multi-select rows, rankings, clicks, slider values).

What is asked of every answer is answered by `answers` (the quick look in C, then the walk), so
each rule here says only what is wrong and where."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain, compress, repeat
from operator import getitem, not_
from typing import Any

from ....engine import Hit
from ....finding import pointer
from ....registry import rule
from ..aggregation import choice_index
from ..answers import Facts, outside, shape_of, slider_arrays, unsettled
from ..model import Experiment, Response
from ..parts import clicks_of, slider_range
from .phrasing import short


def _count_of(query: dict[str, Any], responses: list[Any]) -> list[tuple[str, int]]:
    """(pointer suffix, number of participants) of each participant array of one tag."""
    if query["type"] == "multi-slider":
        return [
            (f"/{k}/{pointer(label)[1:]}", len(v))
            for k, r in enumerate(responses)
            if isinstance(r, dict)
            for label, v in r.items()
            if isinstance(v, list)
        ]
    return [("", len(responses))]


@rule(
    "coggym/response-count",
    "every response array has participants_info.count elements",
    why="One element per participant is the format's promise ('if there were 4 participants, each "
    "response array will contain 4 elements'). Designs where each participant sees a subset of "
    'the stimuli break it; such a project sets `coggym.response-count = "at-most"`. An array '
    "with a malformed answer inside is still counted.",
    bad='"participants_info": {"count": 4, ...}, "trial_1": {"rating": [3, 5, 4]}',
    good='"participants_info": {"count": 4, ...}, "trial_1": {"rating": [3, 5, 4, 2]}',
    scope="experiment",
)
def response_count(exp: Experiment) -> Iterator[Hit]:
    info = exp.ind_data.get("participants_info")
    if not isinstance(info, dict) or "count" not in info:
        return
    n = info["count"]
    for sid, tag, q, responses in _uncounted(exp.response_lists(), n, exp.at_most):
        for suffix, m in _count_of(q, responses):
            if m != n and not (exp.at_most and m < n):
                yield exp.ind, pointer(sid, tag) + suffix, f"{m} responses, participants_info.count is {n}"


def _uncounted(tags: list[Response], n: Any, at_most: bool) -> list[Response]:
    """The tags response-count must look at one by one: none when every array (every label's
    array of a multi-slider) has n elements, or at most n where that is allowed, counted in C."""
    if not tags:
        return []
    _, _, queries, arrays = zip(*tags, strict=True)
    sliders = list(map("multi-slider".__eq__, map(getitem, queries, repeat("type"))))
    plain = list(compress(arrays, map(not_, sliders)))
    answers = list(chain.from_iterable(compress(arrays, sliders)))
    if set(map(type, answers)) - {dict}:
        return tags
    labels = list(chain.from_iterable(map(dict.values, answers)))
    if set(map(type, labels)) - {list}:
        return tags
    counts = set(map(len, plain)) | set(map(len, labels))
    return tags if counts - {n} and not (at_most and max(counts) <= n) else []


@rule(
    "coggym/response-shape",
    "each response has the shape its query type stores",
    why="A consumer reads a slider answer as a number, a choice as {idx, option_text} and so on; "
    "a response of another shape (often a tag reused for a different question) breaks it. A "
    "multi-slider stored as one object of numbers per participant is one finding for the tag, "
    "not a schema error per participant and label.",
    bad='query "rating" is a single-slider; "rating": [{"idx": 0, "option_text": "yes"}]',
    good='"rating": [72, 40]',
    scope="experiment",
)
def response_shape(exp: Experiment) -> Iterator[Hit]:
    for layout in exp.layouts:  # numbers where the schema wants arrays: one cause per tag (layout.py)
        n = layout.answers
        yield (
            exp.ind,
            pointer(layout.sid, layout.tag),
            f"a multi-slider stores one object of label arrays, found {n} elements, one object of numbers "
            f"per participant (positions 0 ... {n - 1}, labels {', '.join(map(repr, layout.labels))}; "
            f"{layout.errors} schema errors)",
        )
    for sid, tag, q, responses in unsettled(exp.responses(), exp.alike(), _fits):
        kind = q["type"]
        if kind == "multi-slider" and len(responses) != 1:
            yield (
                exp.ind,
                pointer(sid, tag),
                f"a multi-slider stores one object of label arrays, found {len(responses)} elements",
            )
        clicks = clicks_of(q) if kind == "single-slider" else 1
        if clicks is None:
            continue  # the shape depends on num_clicks, which the schema reports as broken
        shape = shape_of(kind, clicks)
        if shape is None:
            continue
        for k in shape.misfits(responses):
            yield exp.ind, pointer(sid, tag, k), f"expected {shape.expected}, got {short(responses[k])}"


def _fits(facts: Facts, arrays: list[Any]) -> bool:
    """Whether every answer of these arrays has its shape (and a multi-slider one answer)."""
    kind, clicks, _, _ = facts
    shape = shape_of(kind, clicks) if clicks is not None else None
    if kind == "multi-slider" and set(map(len, arrays)) != {1}:
        return False
    return shape is None or shape.fits_all(arrays)


@rule(
    "coggym/bare-choice-index",
    "a multi-choice answer is a bare index instead of {idx, option_text}",
    severity="warning",
    why="The format stores a choice as {idx, option_text} so that the chosen text can be checked "
    "against the option; a bare 0-based integer (seen in real releases) cannot be.",
    bad='"choice": [0, 2, 1]',
    good='"choice": [{"idx": 0, "option_text": "red"}, ...]',
    scope="experiment",
)
def bare_choice_index(exp: Experiment) -> Iterator[Hit]:
    for choices in exp.choices_where(None):
        if choices.query["type"] == "multi-choice":
            bare = choices.bare()
            if bare:
                yield (
                    exp.ind,
                    pointer(choices.sid, choices.tag, bare[0]),
                    f"{len(bare)} answers are bare indices, e.g. {choices.answers[bare[0]]!r}",
                )


def _out_of_range(choice: Any, options: list[Any]) -> bool:
    """A choice whose idx is no index of the options."""
    idx = choice_index(choice)
    return idx is not None and not 0 <= idx < len(options)


@rule(
    "coggym/choice-index",
    "a chosen idx is an index of the query's options",
    why="idx is 0-based into the trial's option list; out of range, the answer names no option.",
    bad='"option": ["yes", "no"]; "choice": [{"idx": 2, "option_text": "maybe"}]',
    good='"choice": [{"idx": 1, "option_text": "no"}]',
    scope="experiment",
)
def choice_index_rule(exp: Experiment) -> Iterator[Hit]:
    for choices in exp.choices_where(_out_of_range):
        if "option" not in choices.query:
            continue
        options = choices.query["option"]
        for ptr, choice in choices.where(_out_of_range, options):
            yield (
                exp.ind,
                ptr + ("/idx" if isinstance(choice, dict) else ""),
                f"idx {choice_index(choice)} is not an index of the {len(options)} options",
            )


def _other_text(choice: Any, options: list[Any]) -> bool:
    """A choice whose option_text is not the text of the option its idx names."""
    if not isinstance(choice, dict) or "option_text" not in choice or not isinstance(choice.get("idx"), int):
        return False
    idx = choice["idx"]
    return 0 <= idx < len(options) and bool(choice["option_text"] != options[idx])


@rule(
    "coggym/choice-text",
    "option_text is the text of option idx",
    why="option_text repeats the chosen option so the data can be read on its own; when it "
    "differs, either idx or the options were changed after collection.",
    bad='"option": ["red", "blue"]; {"idx": 1, "option_text": "red"}',
    good='{"idx": 1, "option_text": "blue"}',
    scope="experiment",
)
def choice_text(exp: Experiment) -> Iterator[Hit]:
    for choices in exp.choices_where(_other_text):
        if "option" not in choices.query:
            continue
        options = choices.query["option"]
        for ptr, choice in choices.where(_other_text, options):
            idx, text = choice["idx"], choice["option_text"]
            yield exp.ind, ptr + "/option_text", f"{text!r} is not option {idx} ({options[idx]!r})"


def _row_problem(row: Any, n: int) -> str | None:
    """What is wrong with a multi-select row of n options (a list, or the same values as a tuple)."""
    if len(row) != n:
        return f"{len(row)} values for {n} options"
    if any(v not in (0, 1) or isinstance(v, bool) for v in row):
        return f"values must be 0 or 1, got {short(row)}"
    return None


def _rows_fine(facts: Facts, arrays: list[Any]) -> bool:
    """Whether every answer is a row and no distinct row of them all has a problem."""
    n, rows = facts[3], list(chain.from_iterable(arrays))
    if n is None or set(map(type, rows)) - {list}:
        return False
    try:
        distinct = set(map(tuple, rows))
    except TypeError:  # a row holding an object
        return False
    return not any(_row_problem(row, n) for row in distinct)


@rule(
    "coggym/multi-select-row",
    "a multi-select row has one 0 or 1 per option",
    why="Row k of a multi-select is a one-hot encoding over the options; another length or "
    "another value cannot be mapped back to options. All-zero rows (nothing selected) are fine.",
    bad='"option": ["a", "b", "c"]; "picked": [[0, 1], [0, 2, 1]]',
    good='"picked": [[0, 1, 0], [0, 1, 1]]',
    scope="experiment",
)
def multi_select_row(exp: Experiment) -> Iterator[Hit]:
    for sid, tag, q, responses in unsettled(exp.responses_of("multi-select"), exp.alike("multi-select"), _rows_fine):
        if "option" not in q:
            continue
        for k, problem in exp.rows_where(responses, _row_problem, len(q["option"])):
            yield exp.ind, pointer(sid, tag, k), problem


@rule(
    "coggym/ranking",
    "a ranking ranks every option once, with ranks 1..n",
    why="A participant ranks all items: each option index appears once and the ranks are "
    "1..n. Anything else cannot be turned into an order.",
    bad='"option": ["a", "b"]; [[{"idx": 0, "option_text": "a", "rank": 1}, {"idx": 0, "option_text": "a", "rank": 1}]]',
    good='[[{"idx": 1, "option_text": "b", "rank": 1}, {"idx": 0, "option_text": "a", "rank": 2}]]',
    scope="experiment",
)
def ranking(exp: Experiment) -> Iterator[Hit]:
    for sid, tag, q, responses in exp.responses_of("ranking"):
        if "option" not in q:
            continue
        n = len(q["option"])
        for k, r in enumerate(responses):
            if not isinstance(r, list) or not all(isinstance(x, dict) for x in r):
                continue
            idxs = sorted(x.get("idx") for x in r if isinstance(x.get("idx"), int))
            ranks = sorted(x.get("rank") for x in r if isinstance(x.get("rank"), int))
            if idxs != list(range(n)):
                yield exp.ind, pointer(sid, tag, k), f"ranks options {idxs}, expected each of 0..{n - 1} once"
            elif ranks != list(range(1, n + 1)):
                yield exp.ind, pointer(sid, tag, k), f"ranks are {ranks}, expected 1..{n}"


@rule(
    "coggym/num-clicks",
    "with num_clicks N, each participant gives N values",
    why="slider_config.num_clicks = N means every participant answers N times; an inner array of "
    "another length is a lost or extra click.",
    bad='"num_clicks": 3; "estimate": [[10, 20, 30], [15, 25]]',
    good='"estimate": [[10, 20, 30], [15, 25, 35]]',
    scope="experiment",
)
def num_clicks(exp: Experiment) -> Iterator[Hit]:
    for sid, tag, q, responses in unsettled(exp.responses_of("single-slider"), exp.alike("single-slider"), _clicks_fit):
        clicks = clicks_of(q)
        if clicks is None or clicks == 1:
            continue
        for k, r in enumerate(responses):
            if isinstance(r, list) and len(r) != clicks:
                yield exp.ind, pointer(sid, tag, k), f"{len(r)} values, num_clicks is {clicks}"


def _clicks_fit(facts: Facts, arrays: list[Any]) -> bool:
    """Whether no answer is a list of another length than num_clicks (or num_clicks is 1 or
    cannot be read, and the rule has nothing to say)."""
    clicks = facts[1]
    if clicks is None or clicks == 1:
        return True
    answers = list(chain.from_iterable(arrays))
    return set(map(type, answers)) <= {list} and set(map(len, answers)) <= {clicks}


@rule(
    "coggym/slider-value",
    "slider answers lie within [min, max] of the slider",
    why="A value outside the slider's range cannot have been given on that slider: the data was "
    "rescaled or belongs to another question. null (an 'I don't know' answer) is allowed.",
    bad='"slider_config": {"min": 0, "max": 100}; "confidence": [95, 130]',
    good='"confidence": [95, 100]',
    scope="experiment",
)
def slider_value(exp: Experiment) -> Iterator[Hit]:
    sliders = ("single-slider", "multi-slider")
    for sid, tag, q, responses in unsettled(exp.responses_of(*sliders), exp.alike(*sliders), _within):
        bounds = slider_range(q)
        if bounds is None or bounds[0] >= bounds[1]:
            continue  # an empty range is coggym/slider-config's one finding, not one per answer
        lo, hi = bounds
        for path, values in slider_arrays(q["type"], responses):
            if not path and len(values) != len(responses):
                continue  # scalars mixed with lists: response-shape reports it
            for j in outside(values, lo, hi):
                yield exp.ind, pointer(sid, tag, *path, j), f"{values[j]!r} is outside the slider's range [{lo}, {hi}]"


def _within(facts: Facts, arrays: list[Any]) -> bool:
    """Whether every value of these answers lies within the range, by the minimum and the
    maximum of all of them (a null, a text, a list among numbers, an empty array: no)."""
    kind, _, bounds, _ = facts
    if bounds is None:
        return False
    if kind == "multi-slider":
        answers = list(chain.from_iterable(arrays))
        if set(map(type, answers)) - {dict}:
            return False
        arrays = list(chain.from_iterable(map(dict.values, answers)))
    if not all(arrays) or set(map(type, arrays)) - {list}:
        return False
    try:
        return bool(bounds[0] <= min(map(min, arrays)) and max(map(max, arrays)) <= bounds[1])
    except (TypeError, ValueError):
        return False


@rule(
    "coggym/multi-slider-labels",
    "a multi-slider's labels are the query's options",
    why="A multi-slider stores one array per slider, keyed by the option label; a label that is "
    "not an option (or a missing one) cannot be matched to its slider.",
    bad='"option": ["Hole 1", "Hole 2"]; [{"Hole 1": [...], "Hole 3": [...]}]',
    good='[{"Hole 1": [...], "Hole 2": [...]}]',
    scope="experiment",
)
def multi_slider_labels(exp: Experiment) -> Iterator[Hit]:
    for sid, tag, q, responses in exp.responses_of("multi-slider"):
        if "option" not in q:
            continue
        options = [str(o) for o in q["option"]]
        known = set(options)  # a label looked up in a set: 50,000 labels were 29 s in a list
        for k, r in enumerate(responses):
            if not isinstance(r, dict) or "idx" in r:
                continue
            for label in r:
                if label not in known:
                    yield exp.ind, pointer(sid, tag, k, label), f"{label!r} is not an option of the multi-slider"
            for label in options:
                if label not in r:
                    yield exp.ind, pointer(sid, tag, k), f"no values for option {label!r}"
