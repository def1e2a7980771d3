"""What a unit lacks before any of it is read: files that are Git LFS pointers instead of data, and
companion files the format has but the folder does not. Both are findings, so that a green
result always means the data was there to be checked."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .engine import Context
from .kinds import LFS_POINTER, Unit, head
from .registry import register

register(
    "parse/lfs-pointer",
    "the file is a Git LFS pointer, not the data",
    why="A repository that stores data with Git LFS holds a three-line pointer in place of each "
    "file until `git lfs pull` fetches it (CI checkouts and clones without git-lfs see only the "
    "pointer). Nothing of the dataset was checked, so the run must not pass.",
    bad="version https://git-lfs.github.com/spec/v1\noid sha256:4d7a...\nsize 5242880",
    good='{"dataset": "...", "instances": [...]}  (after `git lfs pull`)',
)
register(
    "dataset/missing-file",
    "a file the format requires is not in the dataset",
    why="The format's rules span its files; without this one, the others cannot be read as "
    "the format means (human data without its trials has no questions, a study-1 log without "
    "its tasks no workers). The message says which checks did not run.",
    bad="exp1/human_data_ind.json  (no trial.jsonl beside it)",
    good="exp1/trial.jsonl, exp1/human_data_ind.json, ...",
)
register(
    "dataset/missing-companion",
    "a companion file is not in the dataset, so the checks that need it did not run",
    severity="warning",
    why="The dataset can be valid without this file (an experiment before data collection has "
    "no human data), but every check that reads it across files was skipped: the message says "
    "which, so a green result is not mistaken for a complete one.",
    bad="exp1/trial.jsonl, exp1/human_data_ind.json  (no human_data_mean.json)",
    good="exp1/trial.jsonl, exp1/human_data_ind.json, exp1/human_data_mean.json",
)

# family -> file -> (required, what does not run without it). A file not listed is optional
# and its absence changes nothing (instruction.jsonl: flow ids that name no module are reported
# by coggym/flow-id either way; accuracies.csv exists for one HALIE task only).
COMPANIONS: dict[str, dict[str, tuple[bool, str]]] = {
    "coggym": {
        "trial.jsonl": (True, "nothing in the other files could be read against the trials' questions and options"),
        "config.json": (False, "the experiment flow, stimuli_count and responseType were not checked"),
        "human_data_ind.json": (False, "the responses and judgment_count were not checked, nor the means recomputed"),
        "human_data_mean.json": (False, "the means were not compared with the individual responses"),
    },
    "study1": {
        "study1_tasks.jsonl.gz": (True, "responses could not be matched with their tasks, topics and styles"),
        "study1_retrieval.jsonl.gz": (True, "topics and citation indices could not be checked against the references"),
        "study1_responses_human.jsonl.gz": (True, "the tasks' writing logs were not checked"),
        "study1_responses_llm.jsonl.gz": (True, "the LLM responses were not checked against the tasks"),
    },
    "halie": {
        "event_blocks.csv": (True, "the sessions could not be compared across files"),
        "survey_responses.csv": (True, "the sessions could not be compared across files"),
    },
}


def _lfs_pointer(path: Path) -> bool:
    data = head(path, len(LFS_POINTER))
    return data is not None and data.startswith(LFS_POINTER)


def screen(unit: Unit, ctx: Context) -> Unit:
    """Report LFS pointers and missing companions; return the unit without its LFS pointers, so
    the format's reader never parses a pointer as data (one finding, not a cascade)."""
    pointers = [f for f in unit.files if _lfs_pointer(f)]
    for f in pointers:
        message = "a Git LFS pointer, not the data: nothing in it was checked (run `git lfs pull`)"
        ctx.add("parse/lfs-pointer", f, "", message)
    present = {f.name for f in unit.files}
    expected = COMPANIONS.get(unit.family, {})
    anchor = next((f for f in unit.files if f.name in expected), unit.files[0] if unit.files else unit.root)
    missing = [(name, req, why) for name, (req, why) in expected.items() if name not in present]
    if missing:
        # One finding for the unit: an error when the format requires one of the files.
        code = "dataset/missing-file" if any(req for _, req, _ in missing) else "dataset/missing-companion"
        names = ", ".join(name for name, _, _ in missing)
        effects = "; ".join(dict.fromkeys(why for _, _, why in missing))
        ctx.add(code, anchor, "", f"no {names} in {unit.root.name or unit.root}/: {effects}")
    if not pointers:
        return unit
    return replace(unit, files=tuple(f for f in unit.files if f not in pointers))
