"""What a change does beyond the judgments themselves: the statistics of a question in each
version (judgments/stats.py, computed only for the questions that changed), and each version's
validation findings (validation.py)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..finding import Finding
from ..judgments.view import Batch, Judgments
from .model import Figures, FindingChange
from .pairing import shown_under


def measure(view: Judgments, questions: set[str], samples: int, seed: int) -> dict[str, Figures]:
    """The figures of the named questions of one version (one more reading of its judgments,
    keeping only those questions)."""
    from ..judgments.stats import dataset_stats

    only = replace(view, read=None, batches=lambda: _only(view, questions))
    found = dataset_stats(only, samples=samples, seed=seed, values=True)
    out = {}
    for q in found.questions:
        spread, ci, ac_ci = q.raters_per_item, q.alpha_ci, q.agreement.ac_ci
        out[q.question] = Figures(
            items=q.items,
            judgments=q.judgments,
            raters_per_item=None if spread is None else [spread.min, spread.median, spread.max],
            alpha=q.alpha,
            alpha_ci=None if ci is None else list(ci),
            ac=q.agreement.ac,
            ac_ci=None if ac_ci is None else list(ac_ci),
            distribution=dict(q.values or ()),
        )
    return out


def _only(view: Judgments, questions: set[str]) -> Iterator[Batch]:
    for batch in view.in_batches():
        if "question" in batch.same:  # one question: the batch is kept or left whole, no row looked at
            if batch.same["question"] in questions:
                yield batch
            continue
        keep = list(map(questions.__contains__, batch.rows("question")))
        if any(keep):
            yield batch if all(keep) else batch.kept(keep)


def tvd(old: dict[Any, int], new: dict[Any, int]) -> float | None:
    """The total variation distance between two distributions of answers (0: the same shares,
    1: no answer in common)."""
    n_old, n_new = sum(old.values()), sum(new.values())
    if not n_old or not n_new:
        return None
    return 0.5 * sum(abs(old.get(v, 0) / n_old - new.get(v, 0) / n_new) for v in old.keys() | new.keys())


def overlap(a: list[float] | None, b: list[float] | None) -> bool:
    """Whether two intervals overlap (True when either is unknown: nothing to flag). Bounds
    within TOUCHING of each other touch: the same figure computed from sums in another order
    differs in its last bits (-0.5 and -0.5000000000000004), and that is no change."""
    if a is None or b is None:
        return True
    return a[0] <= b[1] + TOUCHING and b[0] <= a[1] + TOUCHING


TOUCHING = 1e-9


def findings_of(found: list[Finding], root: Path) -> list[FindingChange]:
    """A unit's validation findings, their files relative to the version's root."""
    shown = shown_under(root)
    return [
        FindingChange(f.code, f.severity.value, shown(f.file), f.pointer, f.line, f.message, f.count) for f in found
    ]


def not_matching(file: str, pointer: str, findings: list[FindingChange]) -> bool:
    """Whether the new version's validation finds an error at a stored aggregate (at its pointer,
    above it or below it, in its file): the aggregate rules (a mean that is not the mean of the
    individual scores, a majority that is not a most frequent one) report there."""
    for f in findings:
        if f.file != file or f.severity != "error":
            continue
        p = f.pointer
        near = p == pointer or pointer.startswith(p.rstrip("/") + "/") or p.startswith(pointer + "/")
        if near and p not in ("", "/"):
            return True
    return False
