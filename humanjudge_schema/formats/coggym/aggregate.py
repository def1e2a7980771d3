"""CogGym aggregation, defined once: the `coggym/mean-value` rule compares against it and
`humanjudge aggregate` writes it.

Per query type (the seed's rules):
- single-slider: the arithmetic mean of the non-null values (every click when num_clicks > 1);
  null when there is none.
- multi-choice: {tag_K: proportion of the answers that chose option K}, K = idx + 1, written for
  every chosen option; a stored file may hold counts instead, which the rule accepts.
- multi-slider: {tag_K: mean of the values for option K's label}.
- multi-select: {tag_K: proportion of the rows that selected option K}.
- textbox and ranking: no aggregate.
"""

from __future__ import annotations

import math
from collections import Counter
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ...aggregate import AggregateError, Source, blocking, not_recomputable, verdict
from ...writing import check_target, write_atomic

if TYPE_CHECKING:
    from ...kinds import Unit

META_KEYS = ("participants_info", "judgment_count")
_IDX = itemgetter("idx")


def _mean(values: list[Any]) -> float | None:
    numbers = [v for v in values if v is not None] if None in values else values
    if not numbers:
        return None
    try:
        return math.fsum(numbers) / len(numbers)
    except OverflowError:  # values near the largest double: their sum is not one, their mean is
        return math.fsum(v / len(numbers) for v in numbers)


def option_key(tag: str, k: int) -> str:
    """The mean-file key of option K (1-based) of a tag."""
    return f"{tag}_{k}"


def choice_index(answer: Any) -> int | None:
    if isinstance(answer, dict):
        answer = answer.get("idx")
    return answer if isinstance(answer, int) and not isinstance(answer, bool) else None


def choice_counts(responses: list[Any]) -> tuple[Counter[int], int]:
    try:  # all {idx, ...} objects: count in C
        counts = Counter(map(_IDX, responses))
        if all(type(k) is int for k in counts):
            return counts, sum(counts.values())
    except (TypeError, KeyError):
        pass
    counts = Counter()
    for r in responses:
        idx = choice_index(r)
        if idx is not None:
            counts[idx] += 1
    return counts, sum(counts.values())


def aggregate_tag(query: dict[str, Any], responses: list[Any]) -> Any:
    """The aggregate of one tag's responses; None means the type has no aggregate."""
    kind, tag = query["type"], query["tag"]
    options = query.get("option", [])
    if kind == "single-slider":
        if list not in set(map(type, responses)):
            return _mean(responses)
        return _mean([v for r in responses for v in (r if isinstance(r, list) else [r])])
    if kind == "multi-choice":
        counts, total = choice_counts(responses)
        return {option_key(tag, i + 1): counts[i] / total for i in sorted(counts) if total}
    if kind == "multi-slider":
        labels = responses[0] if responses and isinstance(responses[0], dict) else {}
        return {option_key(tag, i + 1): _mean(labels.get(str(label), [])) for i, label in enumerate(options)}
    if kind == "multi-select":
        rows = [r for r in responses if isinstance(r, list)]
        if not rows:
            return None
        if set(map(len, rows)) == {len(options)}:
            columns = [sum(c) for c in zip(*rows, strict=True)]  # in C
        else:
            columns = [sum(r[i] for r in rows if i < len(r)) for i in range(len(options))]
        return {option_key(tag, i + 1): columns[i] / len(rows) for i in range(len(options))}
    return None


def aggregate(trials: dict[str, dict[str, Any]], ind: dict[str, Any]) -> dict[str, Any]:
    """The whole mean document: metadata copied, then one entry per stimulus in ind order."""
    out: dict[str, Any] = {k: ind[k] for k in META_KEYS if k in ind}
    for sid, stimulus in ind.items():
        if sid in META_KEYS or sid not in trials or not isinstance(stimulus, dict):
            continue
        queries = {q["tag"]: q for q in trials[sid].get("queries", []) if "tag" in q}
        entry = {}
        for tag, responses in stimulus.items():
            if tag in queries and isinstance(responses, list):
                value = aggregate_tag(queries[tag], responses)
                if value is not None:
                    entry[tag] = value
        out[sid] = entry
    return out


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
    from . import rules as coggym

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
    exp = coggym.load_experiment(unit, Context(config))
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
