"""`humanjudge aggregate` for a CogGym experiment: validate it, then write its
human_data_mean.json from the individual responses, or with --check compare the stored one. The
aggregation itself is `aggregation.py`, which the mean rules read too."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ...aggregate import (
    AggregateError,
    Rounding,
    Source,
    blocking,
    concerning,
    not_recomputable,
    replace_spans,
    value_spans,
    verdict,
)
from ...finding import Finding
from ...numbers import same_value
from ...writing import check_target, write_atomic
from .aggregation import META_KEYS, aggregate, choice_counts, option_key

if TYPE_CHECKING:
    from ...kinds import Unit
    from .model import Experiment

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
    stops = concerning(blocking(findings, inputs), _concerns)
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
    fresh = aggregate(trials, exp.ind.data)
    if exp.mean is None:  # no file to correct: the whole of it is written
        write_atomic(target, orjson.dumps(fresh, option=orjson.OPT_INDENT_2) + b"\n")
        return f"wrote {target}", 0
    wrong = [f.pointer for f in findings if f.code == "coggym/mean-value" and f.file == file]
    text = exp.mean.raw.decode("utf-8")
    edits = _corrections(exp, fresh, wrong)
    rounding = Rounding.of(text[a:b] for a, b in value_spans(text, _stored_numbers(exp.mean_data)).values())
    spans = value_spans(text, [p for p, _ in edits])
    data = replace_spans(text, [(*spans[p], rounding.text(v)) for p, v in edits]).encode("utf-8")
    if exp.mean.path.read_bytes().startswith(b"\xef\xbb\xbf"):
        data = b"\xef\xbb\xbf" + data
    write_atomic(target, data)
    n = len(edits)
    wrote = f"wrote {target} ({n} value{'' if n == 1 else 's'} corrected)"
    rest = sorted(
        (f for f in findings if f.code in _COGGYM_AGGREGATE and f.file == file and f.pointer not in dict(edits)),
        key=Finding.sort_key,
    )
    if not rest:
        return wrote, 0
    from ...report.text import render
    from ...validation import Result

    shown = render(Result(rest, len(unit.files))).splitlines()[:-1]
    note = (
        f"{len(rest)} finding{'' if len(rest) == 1 else 's'} about {file} left as stored: a value is "
        "replaced where it stands, never a key added, renamed or removed:"
    )
    return "\n".join([wrote, note, *shown]), 1


def _corrections(exp: Experiment, fresh: dict[str, Any], wrong: list[str]) -> list[tuple[str, Any]]:
    """(pointer, recomputed value) of every wrong stored value that stands where the format puts
    it (`/stimulus/tag`, `/stimulus/tag/tag_K`), as the file stores it (a count where its choice
    means are counts). The others (a mean under a misspelt key, an object where a number should
    be) are left as they are."""
    from ...finding import split_pointer

    edits = []
    for ptr in dict.fromkeys(wrong):
        parts = split_pointer(ptr)
        stored, new = _at(exp.mean_data, parts), _at(fresh, parts)
        if not (_scalar(stored) and _scalar(new)) or len(parts) not in (2, 3):
            continue
        if len(parts) == 3 and _counts(exp, parts[0], parts[1]):
            new = _count(exp, parts[0], parts[1], parts[2])
        edits.append((ptr, new))
    return edits


_MISSING = object()


def _at(doc: Any, parts: list[str]) -> Any:
    for part in parts:
        if not isinstance(doc, dict) or part not in doc:
            return _MISSING
        doc = doc[part]
    return doc


def _scalar(x: Any) -> bool:
    return x is None or (isinstance(x, (int, float)) and not isinstance(x, bool))


def _counts(exp: Experiment, sid: str, tag: str) -> bool:
    """Whether a multi-choice mean is stored as counts, as coggym/mean-value reads it: a value
    over 1, or every value its option's count."""
    q = exp.queries(sid).get(tag)
    stored = exp.mean_data[sid][tag]
    if q is None or q["type"] != "multi-choice" or not isinstance(stored, dict):
        return False
    counts, _ = choice_counts(exp.ind.data[sid][tag] if exp.ind is not None else [])
    keys = {option_key(tag, k + 1): k for k in range(len(q.get("option", [])))}
    values = {key: v for key, v in stored.items() if key in keys and _scalar(v) and v is not None}
    return any(v > 1 for v in values.values()) or (
        bool(values) and all(same_value(v, counts[keys[key]], 0) for key, v in values.items())
    )


def _count(exp: Experiment, sid: str, tag: str, key: str) -> int:
    assert exp.ind is not None
    counts, _ = choice_counts(exp.ind.data[sid][tag])
    q = exp.queries(sid)[tag]
    index = {option_key(tag, k + 1): k for k in range(len(q.get("option", [])))}
    return counts[index[key]] if key in index else 0


def _stored_numbers(data: dict[str, Any]) -> list[str]:
    """Pointers of every number stored as a mean (not the metadata): the file's rounding is theirs."""
    from ...finding import pointer

    out = []
    for sid, entry in data.items():
        if sid in META_KEYS or not isinstance(entry, dict):
            continue
        for tag, value in entry.items():
            if isinstance(value, dict):
                out += [pointer(sid, tag, key) for key, v in value.items() if isinstance(v, (int, float))]
            elif isinstance(value, (int, float)):
                out.append(pointer(sid, tag))
    return out


def _concerns(finding: Finding) -> bool:
    """Whether an error is about what a mean is computed from: a stimulus's responses in
    human_data_ind.json, or a trial's record, its id or queries, in trial.jsonl. The
    participants' metadata, a trial's stimuli or media are not."""
    from ...finding import split_pointer

    parts = split_pointer(finding.pointer)
    if not parts:
        return False
    if finding.file.endswith("trial.jsonl"):
        return len(parts) == 1 or parts[1] in ("id", "queries")
    return parts[0] not in META_KEYS


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
