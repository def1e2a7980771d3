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
from ..keys import spell
from ..model import Experiment
from ..parts import broken_of


def _data_docs(exp: Experiment) -> Iterator[JsonDocument]:
    yield from (d for d in (exp.ind, exp.mean) if d is not None)


def _asks(record: dict[str, Any]) -> bool | None:
    """Whether a trial asks anything (has a query other than text-instruction); None when that
    depends on a query whose type cannot be read."""
    queries = record.get("queries")
    if not isinstance(queries, list):
        return None if "queries" in broken_of(record) else False
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
    scope="experiment",
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
    scope="experiment",
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
    "any other key is data no question defines (often a leftover column of the export). A run of "
    "per-option keys `x_1` ... `x_N` of a name that is no tag is one finding, at its first key. The "
    "per-option keys of a tag the stimulus lacks are coggym/flat-option-keys, and a key that looks "
    "like such a tag is coggym/misnamed-tag.",
    bad='"trial_1": {"rating": [3, 4], "rating_selected_option": [1, 1]}',
    good='"trial_1": {"rating": [3, 4]}',
    scope="experiment",
)
def unknown_tag(exp: Experiment) -> Iterator[Hit]:
    # Keys that are a tag's per-option keys or a tag misspelt are reported as such, below.
    for stray in exp.stray:
        known = f"its tags: {', '.join(stray.tags)}" if stray.tags else "it has no tagged queries"
        for key in stray.unknown:
            yield stray.doc, pointer(stray.sid, key), f"{key!r} is not a tag of trial {stray.sid!r} ({known})"
        for stem, keys in stray.runs.items():
            yield (
                stray.doc,
                pointer(stray.sid, keys[0]),
                f"{spell(keys)} are {len(keys)} per-option keys of {stem!r}, which is not a tag of trial "
                f"{stray.sid!r} ({known})",
            )


@rule(
    "coggym/missing-tag",
    "every tagged question of a stimulus has responses",
    why="Each question a participant answered has a response array in the ind file; a missing "
    "tag means a column was lost in the export. A tag whose data is there under other keys is "
    "coggym/flat-option-keys or coggym/misnamed-tag instead.",
    bad='trial: tags "goal" and "confidence"; ind: "trial_1": {"goal": [...]}',
    good='"trial_1": {"goal": [...], "confidence": [...]}',
    scope="experiment",
)
def missing_tag(exp: Experiment) -> Iterator[Hit]:
    if exp.ind is None:
        return
    # A tag stored under other keys (per-option keys, a misspelt name) is reported as such, below.
    explained = {stray.sid: stray.explained for stray in exp.stray if stray.doc is exp.ind}
    for sid, stimulus in exp.ind.data.items():
        if sid in META_KEYS or not isinstance(stimulus, dict):
            continue
        for tag in exp.queries(sid):
            if tag not in stimulus and tag not in explained.get(sid, ()):
                yield exp.ind, pointer(sid), f"no responses for tag {tag!r} of trial {sid!r}"


@rule(
    "coggym/flat-option-keys",
    "a tag is stored as one key per option instead of under its tag",
    why="`<tag>_1` ... `<tag>_N` are the names of a tag's option means inside the mean file's "
    "object for that tag. Stored beside the stimulus's tags instead of the tag itself, they leave "
    "the tag with no data for any reader of the format, and each key is no tag: one cause, "
    "reported once per stimulus and tag, at its first key, with every key named.",
    bad='ind: "trial_1": {"goal_1": [0, 1], "goal_2": [1, 0]}  (trial_1 asks "goal" with 2 options)',
    good='ind: "trial_1": {"goal": [[0, 1], [1, 0]]}; mean: "trial_1": {"goal": {"goal_1": 0.5, "goal_2": 0.5}}',
    scope="experiment",
)
def flat_option_keys(exp: Experiment) -> Iterator[Hit]:
    for stray in exp.stray:
        for tag, keys in stray.flat.items():
            where = (
                "the individual file keeps one array per tag"
                if stray.doc is exp.ind
                else f"the mean file keeps them in one object under {tag!r}"
            )
            named = "" if keys[0].startswith(tag + "_") else ", under another name"
            yield (
                stray.doc,
                pointer(stray.sid, keys[0]),
                f"{tag} is stored as {len(keys)} per-option keys {spell(keys)}{named} (the mean file's key names); {where}",
            )


@rule(
    "coggym/misnamed-tag",
    "a key that is no tag looks like a tag the stimulus lacks",
    why="A key that is no tag of the trial, beside a tag of the trial with no data, is most often "
    "that tag misspelt or renamed in the export: one cause, reported once, at the key, instead "
    "of a missing tag and an unknown key.",
    bad='trial tags "strategy_description" and "goal"; ind: "trial_1": {"goal": [...], "strategy": [...]}',
    good='"trial_1": {"goal": [...], "strategy_description": [...]}',
    scope="experiment",
)
def misnamed_tag(exp: Experiment) -> Iterator[Hit]:
    for stray in exp.stray:
        for key, tag in stray.misnamed.items():
            yield (
                stray.doc,
                pointer(stray.sid, key),
                f"{key!r} is not a tag of trial {stray.sid!r}; it looks like its tag {tag!r}, which is absent",
            )
