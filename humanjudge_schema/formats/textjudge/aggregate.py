"""TextJudge aggregation, defined once: continuous and graded scores by their arithmetic mean,
categorical ones by majority vote. The rules `textjudge/mean-value` and `textjudge/majority-value`
compare against it, and `humanjudge aggregate DATASET.json` writes it (`aggregate_dataset`).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from ...engine import schema_errors
from ...kinds import LFS_POINTER, Unit
from ...numbers import decimals, same_value
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


def _new_mean(stored: float, exact: float) -> float | int:
    d = decimals(stored)
    if d:  # keep the dataset's rounding
        return round(exact, d)
    # 3.0 is written 3, as people write a whole mean; not past 2**53, where a float's integer is
    # no longer exact (and past 2**64 a JSON writer refuses it)
    return int(exact) if exact.is_integer() and abs(exact) <= 2**53 else exact


def _new_majority(winners: list[Any], decl: dict[str, Any]) -> Any:
    if decl["category"] == "categorical":
        for label in decl["labels_list"]:
            if label in winners:
                return label
    return winners[0]


def corrections(data: dict[str, Any], tolerance: float) -> list[tuple[str, Any, Any]]:
    """(pointer, stored, recomputed) of every mean_human and majority_human that differs from
    the aggregate of its individual scores, by the same comparison as the rules."""
    metrics = {d["metric"]: d for d in data["annotations"]}
    out: list[tuple[str, Any, Any]] = []
    for i, inst in enumerate(data["instances"]):
        for m, s in inst["annotations"].items():
            decl = metrics.get(m)
            if decl is None:
                continue
            exact = mean_fix(s, decl, tolerance)
            if exact is not None:
                out.append((score_pointer(i, m, "mean_human"), s["mean_human"], _new_mean(s["mean_human"], exact)))
            top = majority_fix(s, decl)
            if top is not None:
                out.append((score_pointer(i, m, "majority_human"), s["majority_human"], _new_majority(top[0], decl)))
    return out


_WS_COLON = re.compile(r"[ \t\n\r]*:[ \t\n\r]*")


def patch(text: str, changes: list[tuple[str, Any]]) -> str:
    """Replace the values at the given object-member pointers, keeping every other byte."""
    from ...readers.locate import locate

    scan = json.decoder.scanstring  # type: ignore[attr-defined]
    decoder = json.JSONDecoder()
    offsets = locate(text, [p for p, _ in changes])
    spans = []
    for ptr, value in changes:
        key_at = offsets[ptr]
        _, idx = scan(text, key_at + 1)
        start = _WS_COLON.match(text, idx).end()  # type: ignore[union-attr]
        _, end = decoder.raw_decode(text, start)
        spans.append((start, end, orjson.dumps(value).decode()))
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


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
    corrected mean keeps the stored number of decimals.
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
    from ...aggregate import blocking, not_recomputable, verdict
    from ...validation import check_unit

    if not check:
        check_target(output or path, [] if in_place else [path])
    findings = check_unit(Unit("textjudge", path, (path,)), config)
    # Prompt templates and few-shot example ids play no part in an aggregate.
    stops = blocking(findings, [path], (*AGGREGATE_CODES, "textjudge/template-", "textjudge/fsp-example-id"))
    file = display_path(path)
    # A stored aggregate is computed from the scores beside it: /instances/i/annotations/metric.
    unverified = not_recomputable(_stored_aggregates(doc.data), stops, lambda p: [(file, p.rsplit("/", 1)[0])])
    said = verdict(findings, stops, unverified, file=file, compared=AGGREGATE_CODES, files=1, check=check)
    if said is not None:
        return said
    fixes = corrections(doc.data, config.tolerance)
    text = patch(doc.raw.decode("utf-8"), [(p, new) for p, _, new in fixes])
    data = text.encode("utf-8")
    if isinstance(raw, bytes) and raw.startswith(b"\xef\xbb\xbf"):
        data = b"\xef\xbb\xbf" + data
    target = path if in_place else output
    assert target is not None
    write_atomic(target, data)
    n = len(fixes)
    return f"wrote {target} ({n} value{'' if n == 1 else 's'} corrected)", 0
