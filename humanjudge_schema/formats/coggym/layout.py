"""One wrong answer layout repeated for every participant, read as one cause.

A multi-slider's responses are one object mapping each option label to an array of every
participant's ratings. Stored as one object per participant (`[{"It is lost": 80}, {"It is
lost": 60}, ...]`), each rating breaks the schema where an array is expected: as many schema
errors as participants times labels, all of one cause. The model's loader hands the schema errors
of human_data_ind.json to `fold` before they are reported: the errors under such a tag become
one `FoldedTag`, reported by coggym/answer-layout; the response array is left out of what the rules
read either way (its schema errors are its damage).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ...finding import split_pointer
from .totals import QueryTypes

Error = tuple[str, str, str]  # (code, pointer, message) as the schema check gives them


class Folded(Protocol):
    """What of the experiment (model.Experiment) `fold` reads and adds to; a protocol, so that
    this module, which the model imports, imports nothing of it."""

    @property
    def types(self) -> QueryTypes: ...

    @property
    def layouts(self) -> list[FoldedTag]: ...

    def queries(self, trial_id: str) -> dict[str, dict[str, Any]]: ...


@dataclass(frozen=True)
class FoldedTag:
    """A multi-slider tag of one stimulus whose answers are one object per participant."""

    sid: str
    tag: str
    answers: int  # elements of the response array: one per participant
    labels: tuple[str, ...]  # the labels of those objects, in the order first seen
    errors: int  # the schema errors it stands for


def _number(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _per_participant(value: Any) -> bool:
    """Whether a response array holds one object of numbers per participant (two at least)."""
    return (
        isinstance(value, list)
        and len(value) > 1
        and all(isinstance(x, dict) and x and all(map(_number, x.values())) for x in value)
    )


def fold(exp: Folded, data: Any, errors: list[Error]) -> list[Error]:
    """The schema errors of the ind file to report one by one; those under a multi-slider tag
    stored as one object per participant are added to `exp.layouts` instead, one per tag."""
    if not isinstance(data, dict) or "multi-slider" not in exp.types.used:
        return errors
    decided: dict[str, tuple[str, str] | None] = {}  # "/sid/tag" as written -> (sid, tag) when folded
    groups: dict[tuple[str, str], int] = {}
    shown: list[Error] = []
    for error in errors:
        parts = error[1].split("/", 3)  # a file broken everywhere has millions: read each once
        if len(parts) == 4:
            head = f"/{parts[1]}/{parts[2]}"
            if head not in decided:
                decided[head] = _folded(exp, data, head)
            key = decided[head]
            if key is not None:
                groups[key] = groups.get(key, 0) + 1
                continue
        shown.append(error)
    for (sid, tag), count in groups.items():
        answers = data[sid][tag]
        labels = tuple(dict.fromkeys(label for answer in answers for label in answer))
        exp.layouts.append(FoldedTag(sid, tag, len(answers), labels, count))
    return shown


def _folded(exp: Folded, data: dict[str, Any], head: str) -> tuple[str, str] | None:
    """(stimulus id, tag) of the response array at `head` when it is a multi-slider's stored as
    one object per participant."""
    sid, tag = split_pointer(head)
    stimulus = data.get(sid)
    query = exp.queries(sid).get(tag)
    multi_slider = query is not None and query.get("type") == "multi-slider"
    if multi_slider and isinstance(stimulus, dict) and _per_participant(stimulus.get(tag)):
        return sid, tag
    return None
