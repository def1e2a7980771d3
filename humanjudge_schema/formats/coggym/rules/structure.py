"""Rules on the structure of the human data against the trials: its stimuli are trials, its keys
are the trials' tags, and every trial with questions has data."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....engine import Hit
from ....finding import pointer
from ....readers.jsonfile import JsonDocument
from ....registry import rule
from ..aggregation import META_KEYS
from ..model import Experiment
from ..parts import _broken


def _data_docs(exp: Experiment) -> Iterator[JsonDocument]:
    yield from (d for d in (exp.ind, exp.mean) if d is not None)


def _asks(record: dict[str, Any]) -> bool | None:
    """Whether a trial asks anything (has a query other than text-instruction); None when that
    depends on a query whose type cannot be read."""
    queries = record.get("queries")
    if not isinstance(queries, list):
        return None if "queries" in _broken(record) else False
    unknown = False
    for q in queries:
        kind = q.get("type") if isinstance(q, dict) else None
        if kind is None:
            unknown = True
        elif kind != "text-instruction":
            return True
    return None if unknown else False


@rule(
    "coggym/unknown-stimulus",
    "every stimulus key of the human data is a trial id",
    why="Human data for a stimulus that trial.jsonl does not define cannot be interpreted: its "
    "questions and options are unknown.",
    bad='{"trial_9": {"rating": [3, 4]}}  (trial.jsonl has trial_1..trial_8)',
    good='{"trial_8": {"rating": [3, 4]}}',
)
def unknown_stimulus(exp: Experiment) -> Iterator[Hit]:
    if exp.trial_doc is None or not exp.trial_records.ids_complete:
        return
    for doc in _data_docs(exp):
        for sid in doc.data:
            if sid not in META_KEYS and sid not in exp.trials:
                yield doc, pointer(sid), f"{sid!r} is not a trial id in trial.jsonl"


@rule(
    "coggym/no-human-data",
    "a trial with questions has no human data",
    severity="warning",
    why="Practice and attention-check trials often have no stored responses, which is fine; "
    "for any other trial it means data was lost in the export.",
    bad='trial.jsonl: {"id": "trial_7", "queries": [{"type": "textbox", "tag": "why", ...}]}  (no "trial_7" in human_data_ind.json)',
    good='human_data_ind.json: {"trial_7": {"why": ["...", "..."]}}',
)
def no_human_data(exp: Experiment) -> Iterator[Hit]:
    if exp.ind is None:
        return
    for tid, (i, trial) in exp.trials.items():
        if tid not in exp.ind.data and _asks(trial):
            yield exp.trial_doc, f"/{i}/id", f"trial {tid!r} has questions but no responses in human_data_ind.json"


@rule(
    "coggym/unknown-tag",
    "every response key of a stimulus is a tag of that trial",
    why="The seed format says the keys of a stimulus must match the tags of its trial's queries; "
    "any other key is data no question defines (often a leftover column of the export).",
    bad='"trial_1": {"rating": [3, 4], "rating_selected_option": [1, 1]}',
    good='"trial_1": {"rating": [3, 4]}',
)
def unknown_tag(exp: Experiment) -> Iterator[Hit]:
    for doc in _data_docs(exp):
        for sid, stimulus in doc.data.items():
            # With a query whose tag cannot be read, any key may be that tag: the schema error
            # is the finding.
            if sid in META_KEYS or not isinstance(stimulus, dict) or not exp.tags_complete(sid):
                continue
            tags = exp.queries(sid)
            for key in stimulus:
                if key not in tags:
                    known = f"its tags: {', '.join(sorted(tags))}" if tags else "it has no tagged queries"
                    yield doc, pointer(sid, key), f"{key!r} is not a tag of trial {sid!r} ({known})"


@rule(
    "coggym/missing-tag",
    "every tagged question of a stimulus has responses",
    why="Each question a participant answered has a response array in the ind file; a missing "
    "tag means a column was lost in the export.",
    bad='trial: tags "goal" and "confidence"; ind: "trial_1": {"goal": [...]}',
    good='"trial_1": {"goal": [...], "confidence": [...]}',
)
def missing_tag(exp: Experiment) -> Iterator[Hit]:
    if exp.ind is None:
        return
    for sid, stimulus in exp.ind.data.items():
        if sid in META_KEYS or not isinstance(stimulus, dict):
            continue
        for tag in exp.queries(sid):
            if tag not in stimulus:
                yield exp.ind, pointer(sid), f"no responses for tag {tag!r} of trial {sid!r}"
