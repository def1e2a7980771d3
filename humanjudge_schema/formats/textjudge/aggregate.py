"""TextJudge aggregation, defined once: continuous and graded scores by their arithmetic mean,
categorical ones by majority vote. The rules `textjudge/mean-value` and `textjudge/majority-value`
compare against it, and `humanjudge aggregate DATASET.json` writes it (`aggregate_dataset`).
"""

from __future__ import annotations

import math
import os
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from ...aggregate import Rounding, replace_spans, value_spans
from ...engine import schema_errors
from ...finding import Finding, split_pointer
from ...kinds import LFS_POINTER, Unit
from ...numbers import same_value
from ...readers.files import display_path, read_bytes
from ...readers.jsonfile import JsonDocument, document
from .model import score_pointer
from .prompts import SCHEMA, usable

NUMERIC = frozenset({"continuous", "graded"})
AGGREGATE_CODES = ("textjudge/mean-value", "textjudge/majority-value")


def is_number(x: Any) -> bool:
    """A JSON number (a boolean is none)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def label_map(decl: dict[str, Any]) -> tuple[set[str], dict[str, str]]:
    """A categorical declaration's labels, and each case-folded spelling -> its label (the first
    declared, when two differ only in case)."""
    labels = set(decl["labels_list"])
    folded: dict[str, str] = {}
    for label in decl["labels_list"]:
        folded.setdefault(label.casefold(), label)
    return labels, folded


def _canonical(x: Any, labels: set[str], folded: dict[str, str]) -> Any:
    if not isinstance(x, str) or x in labels:
        return x
    return folded.get(x.casefold(), x)


def exact_mean(scores: list[Any]) -> float | None:
    """The arithmetic mean of non-empty numeric scores, else None."""
    if not scores or not all(map(is_number, scores)):
        return None
    return math.fsum(scores) / len(scores)


def most_frequent(scores: list[Any], decl: dict[str, Any]) -> tuple[list[Any], int] | None:
    """The most frequent scores (ties included, in first-seen order, labels in their declared
    spelling) and their count; None when the scores are empty or of the wrong type."""
    if not scores:
        return None
    if decl["category"] == "categorical":
        if not all(isinstance(x, str) for x in scores):
            return None
        labels, folded = label_map(decl)
        scores = [_canonical(x, labels, folded) for x in scores]
    elif not all(map(is_number, scores)):
        return None
    counts = Counter(scores)
    top = max(counts.values())
    return [x for x, c in counts.items() if c == top], top


def mean_fix(s: dict[str, Any], decl: dict[str, Any], tolerance: float) -> float | None:
    """The exact mean when the stored mean_human differs from it, else None."""
    if decl["category"] not in NUMERIC or not is_number(s.get("mean_human")):
        return None
    exact = exact_mean(s["individual_human_scores"])
    if exact is None or same_value(s["mean_human"], exact, tolerance):
        return None
    return exact


def majority_fix(s: dict[str, Any], decl: dict[str, Any]) -> tuple[list[Any], int] | None:
    """The most frequent scores when the stored majority_human is none of them, else None."""
    majority = s.get("majority_human")
    if majority is None:
        return None
    categorical = decl["category"] == "categorical"
    if (categorical and not isinstance(majority, str)) or (not categorical and not is_number(majority)):
        return None  # textjudge/score-type
    top = most_frequent(s["individual_human_scores"], decl)
    if top is None:
        return None
    if categorical:
        labels, folded = label_map(decl)
        majority = _canonical(majority, labels, folded)
    return None if majority in top[0] else top


# --- writing it -----------------------------------------------------------------------------


def _new_majority(winners: list[Any], decl: dict[str, Any]) -> Any:
    if decl["category"] == "categorical":
        for label in decl["labels_list"]:
            if label in winners:
                return label
    return winners[0]


def corrections(data: dict[str, Any], tolerance: float) -> list[tuple[str, Any, Any]]:
    """(pointer, stored, recomputed) of every mean_human and majority_human that differs from
    the aggregate of its individual scores, by the same comparison as the rules; a mean is the
    exact one (`Rounding` rounds it as the file does when it is written)."""
    metrics = {d["metric"]: d for d in data["annotations"]}
    out: list[tuple[str, Any, Any]] = []
    for i, inst in enumerate(data["instances"]):
        for m, s in inst["annotations"].items():
            decl = metrics.get(m)
            if decl is None:
                continue
            exact = mean_fix(s, decl, tolerance)
            if exact is not None:
                out.append((score_pointer(i, m, "mean_human"), s["mean_human"], exact))
            top = majority_fix(s, decl)
            if top is not None:
                out.append((score_pointer(i, m, "majority_human"), s["majority_human"], _new_majority(top[0], decl)))
    return out


def patch(text: str, changes: list[tuple[str, Any]], rounding: Rounding | None = None) -> str:
    """Replace the values at the given pointers, keeping every other byte; a mean (a float) is
    written as `rounding` says (`file_rounding`), by default as the values it replaces are."""
    spans = value_spans(text, [p for p, _ in changes])
    if rounding is None:
        rounding = Rounding.of(text[a:b] for a, b in spans.values())
    edits = []
    for ptr, value in changes:
        new = rounding.text(value) if isinstance(value, float) else orjson.dumps(value).decode()
        edits.append((*spans[ptr], new))
    return replace_spans(text, edits)


def file_rounding(text: str, means: list[str]) -> Rounding:
    """How the file writes its means, from the text of every stored mean (`Rounding`): the
    most decimals any shows, so that a mean whose own text shows fewer (2.9 of a file that
    rounds to 2 decimals) does not make the file round less."""
    return Rounding.of(text[a:b] for a, b in value_spans(text, means).values())


def _mean_pointers(data: dict[str, Any]) -> list[str]:
    return [p for p in _stored_aggregates(data) if p.endswith("/mean_human")]


def concerns(finding: Finding) -> bool:
    """Whether a finding is about what a stored aggregate is computed from: a score object, an
    instance or the instances (above it), a metric's declaration (its name, category or
    labels). A missing `expert_annotator`, an instance's text or a prompt template are not."""
    parts = split_pointer(finding.pointer)
    if parts[:1] == ["instances"]:
        return len(parts) < 3 or parts[2] == "annotations"
    if parts[:1] == ["annotations"]:
        return len(parts) < 3 or parts[2] in ("metric", "category", "labels_list")
    return False


def _stored_aggregates(data: dict[str, Any]) -> list[str]:
    """Pointers of every stored mean_human and majority_human."""
    return [
        score_pointer(i, m, key)
        for i, inst in enumerate(data["instances"])
        for m, s in inst["annotations"].items()
        if isinstance(s, dict)
        for key in ("mean_human", "majority_human")
        if key in s
    ]


def aggregate_dataset(
    path: Path, *, check: bool = False, output: Path | None = None, in_place: bool = False, force: bool = False
) -> tuple[str, int]:
    """Recompute mean_human and majority_human of a TextJudge dataset; returns (message, exit
    code).

    With check, nothing is written: the differences are the validator's own mean-value and
    majority-value findings (exit code 1 if any). Otherwise the corrected dataset goes to
    `output` (an existing file only with force, as every writer), or over the input only with
    in_place; only the wrong values change, every other byte of the file stays as it was, and a
    corrected mean is rounded as the file rounds its means (`file_rounding`). Errors stop it only
    when they concern what the aggregates are computed from (`concerns`).
    """
    from ...aggregate import AggregateError
    from ...config import discover
    from ...writing import check_target, write_atomic

    if output is not None and in_place:
        raise AggregateError("give either -o/--output or --in-place, not both")
    if not check and output is None and not in_place:
        raise AggregateError(
            f"say where to write the corrected dataset: -o FILE, or --in-place "
            f"to overwrite {path} (--check only lists the differences)"
        )
    if output is not None and output.resolve() == path.resolve():
        raise AggregateError(f"{output} is the input: use --in-place to overwrite it")
    if force and output is None:
        raise AggregateError("--force is for -o FILE, to replace an existing file (--in-place overwrites the input)")
    if not check and output is not None:
        check_target(output, [path])  # a link, a device or a folder is refused as such, first
        if os.path.lexists(output) and not force:
            raise AggregateError(f"{output} exists: use --force to overwrite it")
    config = discover(path)
    raw = read_bytes(path, config.max_document_bytes)
    if isinstance(raw, bytes) and raw.startswith(LFS_POINTER):
        raise AggregateError(f"{path}: a Git LFS pointer, not the dataset (run `git lfs pull`)")
    doc, problems = document(path, raw)
    if not isinstance(doc, JsonDocument):
        first = problems[0].message if problems else "not JSON"
        raise AggregateError(f"{path}: {first}")
    if not usable(doc.data, schema_errors(SCHEMA, doc.data)):
        raise AggregateError(
            f"{path}: not a valid TextJudge dataset (run `humanjudge validate {path}` to see what is wrong)"
        )
    from ...aggregate import blocking, concerning, not_recomputable, verdict
    from ...validation import check_unit

    if not check:
        check_target(output or path, [] if in_place else [path])
    findings = check_unit(Unit("textjudge", path, (path,)), config)
    # Prompt templates and few-shot example ids play no part in an aggregate.
    stops = concerning(blocking(findings, [path], AGGREGATE_CODES), concerns)
    file = display_path(path)
    # A stored aggregate is computed from the scores beside it: /instances/i/annotations/metric.
    unverified = not_recomputable(_stored_aggregates(doc.data), stops, lambda p: [(file, p.rsplit("/", 1)[0])])
    said = verdict(findings, stops, unverified, file=file, compared=AGGREGATE_CODES, files=1, check=check)
    if said is not None:
        return said
    fixes = corrections(doc.data, config.tolerance)
    text = doc.raw.decode("utf-8")
    rounding = file_rounding(text, _mean_pointers(doc.data)) if fixes else None
    text = patch(text, [(p, new) for p, _, new in fixes], rounding)
    data = text.encode("utf-8")
    if isinstance(raw, bytes) and raw.startswith(b"\xef\xbb\xbf"):
        data = b"\xef\xbb\xbf" + data
    target = path if in_place else output
    assert target is not None
    write_atomic(target, data)
    n = len(fixes)
    return f"wrote {target} ({n} value{'' if n == 1 else 's'} corrected)", 0
