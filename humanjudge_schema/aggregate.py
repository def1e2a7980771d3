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
import os
import stat
import tempfile
from collections import Counter
from operator import itemgetter
from pathlib import Path
from typing import Any

import orjson

META_KEYS = ("participants_info", "judgment_count")
_IDX = itemgetter("idx")


class AggregateError(ValueError):
    """The experiment cannot be aggregated; the message says why."""


class WriteError(AggregateError):
    """A file cannot be written (no such folder, no permission, the disk full); nothing of it is
    left behind."""


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


def _mode_for(path: Path) -> int:
    """The permissions the written file gets: those of the file it replaces, or what a plain
    open() would give a new file (mkstemp's temporary file is private to its owner)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomic(path: Path, data: bytes) -> None:
    """Write a file so that readers see the old content or the new, never half of it."""
    mode = _mode_for(path)
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


def aggregate_experiment(
    folder: Path, *, check: bool = False, force: bool = False, output: Path | None = None
) -> tuple[str, int]:
    """Recompute human_data_mean.json of an experiment; returns (message, exit code).

    With check, nothing is written: the stored means are compared by the same rules
    `humanjudge validate` uses, and the differences are the message (exit code 1 if any).
    """
    from .config import discover
    from .engine import Context
    from .kinds import Unit, find_units
    from .rules import coggym

    units = [u for u in find_units([folder], "coggym") if u.root == folder]
    if not units:
        raise AggregateError(f"{folder}: no CogGym experiment here (no trial.jsonl or human data)")
    unit: Unit = units[0]
    config = discover(folder)
    if check:
        from .report.text import render
        from .validation import Result, check_unit

        findings = check_unit(
            unit, config.with_flags(("coggym/mean-value", "coggym/mean-key", "coggym/mean-missing"), ())
        )
        return render(Result(findings, len(unit.files))).rstrip("\n"), 1 if findings else 0
    exp = coggym.load_experiment(unit, Context(config))
    if exp.ind is None or not exp.trials:
        raise AggregateError(
            f"{folder}: needs a valid trial.jsonl and human_data_ind.json "
            f"(run `humanjudge validate {folder}` to see what is wrong)"
        )
    target = output or folder / "human_data_mean.json"
    if target.exists() and not force:
        raise AggregateError(f"{target} exists: use --force to overwrite it, or --check to compare")
    trials = {tid: rec for tid, (_, rec) in exp.trials.items()}
    data = orjson.dumps(aggregate(trials, exp.ind.data), option=orjson.OPT_INDENT_2) + b"\n"
    write_atomic(target, data)
    return f"wrote {target}", 0
