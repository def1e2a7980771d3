"""`humanjudge aggregate` for a CogGym experiment: validate it, then write its
human_data_mean.json from the individual responses, or with --check compare the stored one. The
aggregation itself is `aggregation.py`, which the mean rules read too."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ...aggregate import AggregateError, Source, blocking, not_recomputable, verdict
from ...writing import check_target, write_atomic
from .aggregation import META_KEYS, aggregate

if TYPE_CHECKING:
    from ...kinds import Unit

_COGGYM_AGGREGATE = ("coggym/mean-value", "coggym/mean-key", "coggym/mean-missing")


def aggregate_experiment(
    folder: Path, *, check: bool = False, force: bool = False, output: Path | None = None
) -> tuple[str, int]:
    """Recompute human_data_mean.json of an experiment; returns (message, exit code).

    The experiment is validated first. While trial.jsonl or human_data_ind.json has errors,
    nothing is written (exit code 1, the errors and the stored values they make impossible to
    recompute). With check, nothing is written either: the stored means are compared by the
    same rules `humanjudge validate` uses, and the differences, with every stored value that
    cannot be recomputed, are the message (exit code 1 if any).
    """
    from ...config import discover
    from ...engine import Context
    from ...kinds import survey
    from ...validation import check_unit
    from .model import load_experiment

    units = [u for u in survey([folder], "coggym", skip_empty=True).units if u.root == folder]
    if not units:
        raise AggregateError(f"{folder}: no CogGym experiment here (no trial.jsonl or human data)")
    unit: Unit = units[0]
    target = output or folder / "human_data_mean.json"
    inputs = [folder / "trial.jsonl", folder / "human_data_ind.json"]
    if not check:
        check_target(target, inputs)
    config = discover(folder)
    findings = check_unit(unit, config)
    stops = blocking(findings, inputs)
    mean = unit.file("human_data_mean.json")
    stored = _stored_means(mean) if mean is not None else []
    unverified = not_recomputable(stored, stops, _coggym_sources(unit)) if stops else []
    file = _display(mean) if mean is not None else "human_data_mean.json"
    said = verdict(
        findings, stops, unverified, file=file, compared=_COGGYM_AGGREGATE, files=len(unit.files), check=check
    )
    if said is not None:
        return said
    exp = load_experiment(unit, Context(config))
    if exp.ind is None or not exp.trials:
        raise AggregateError(
            f"{folder}: needs a valid trial.jsonl and human_data_ind.json "
            f"(run `humanjudge validate {folder}` to see what is wrong)"
        )
    if target.exists() and not force:
        raise AggregateError(f"{target} exists: use --force to overwrite it, or --check to compare")
    trials = {tid: rec for tid, (_, rec) in exp.trials.items()}
    data = orjson.dumps(aggregate(trials, exp.ind.data), option=orjson.OPT_INDENT_2) + b"\n"
    write_atomic(target, data)
    return f"wrote {target}", 0


def _display(path: Path | None) -> str:
    from ...readers.files import display_path

    return display_path(path) if path is not None else ""


def _stored_means(path: Path) -> list[str]:
    """Pointers of every stored mean (stimulus and tag) of a mean file that parses."""
    from ...finding import pointer
    from ...readers.jsonfile import JsonDocument, load

    doc, _ = load(path)
    if not isinstance(doc, JsonDocument) or not isinstance(doc.data, dict):
        return []
    return [
        pointer(sid, tag)
        for sid, entry in doc.data.items()
        if sid not in META_KEYS and isinstance(entry, dict)
        for tag in entry
    ]


def _coggym_sources(unit: Unit) -> Source:
    """For a stored mean /stimulus/tag: its responses in the ind file, and its trial's record."""
    from ...finding import pointer, split_pointer
    from ...readers.files import display_path
    from ...readers.jsonfile import JsonlDocument, load

    index: dict[str, int] = {}
    trial = unit.file("trial.jsonl")
    if trial is not None:
        doc, _ = load(trial)
        if isinstance(doc, JsonlDocument):
            for i, record in enumerate(doc.records):
                if isinstance(record, dict) and isinstance(record.get("id"), str):
                    index.setdefault(record["id"], i)
    ind = display_path(unit.root / "human_data_ind.json")
    trials = display_path(unit.root / "trial.jsonl")

    def sources(ptr: str) -> list[tuple[str, str]]:
        sid, tag = split_pointer(ptr)[:2]
        found = [(ind, pointer(sid, tag))]
        # a stimulus with no trial record: the trial file as a whole is its source
        found.append((trials, f"/{index[sid]}" if sid in index else ""))
        return found

    return sources
