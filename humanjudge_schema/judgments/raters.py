"""Each rater of a question, where raters are persons: how many items they judged, how often they
give their own most common answer (the modal share), and how often they agree with the other
raters of the same items, beside how often those others agree with each other (leave-one-out).

Every figure comes from the pass over the judgments (`Gathered`): a rater's answers (one per item,
the first in file order) and each item's value counts. With n_i the raters of item i, m_i(v) how
many of them answer v, and v_r rater r's answer:

    s_ri = (m_i(v_r) - 1) / (n_i - 1)                    r's agreement on item i: the share of
                                                         the other raters of i who answer v_r
    e_ri = (sum_v m_i(v)(m_i(v) - 1) - 2(m_i(v_r) - 1))  the other raters' agreement on item i:
           / ((n_i - 1)(n_i - 2))                        the share of their pairs that agree

    agreement = mean of s_ri, others = mean of e_ri, over the items r shares with two others or
    more (a pair among the others is needed for e_ri), each item counted once, as stats' `agree`.

Both are exact, and cost one look-up per answer. If which of an item's raters gave which of its
answers is chance (raters alike), d_ri = e_ri - s_ri has mean 0 on every item: summed over the
item's raters, s and e both give the item's share of agreeing pairs. d_ri lies in a range known
from the item's answers, (max_v m_i(v) - min_v m_i(v)) n_i / ((n_i - 1)(n_i - 2)) wide (0 where
every rater gives one answer, or every answer differs: such an item tells nothing), so
Hoeffding's inequality bounds the chance that r falls t = sum_i d_ri below the others by luck
alone: exp(-2 t^2 / sum_i width_i^2) (`shortfall`). It needs no model of how answers spread.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, NamedTuple

from .columns import Counts
from .gather import Gathered, GatheredQuestion
from .summary import RaterRow, json_key

# A question's raters are compared when they judged at least this many items (see docs/stats.md).
MIN_ITEMS = 20


class Rater(NamedTuple):
    """One rater's figures on one question."""

    rater: Hashable
    question: str
    items: int  # items the rater answered
    modal: Hashable  # their most common answer (the first given, of equally common ones)
    modal_share: float  # its share of their answers
    shared: int  # items the rater shares with at least two other raters
    agreement: float | None  # mean share of the other raters of those items who give r's answer
    others: float | None  # mean share of the pairs of those other raters that agree
    spread: float = 0.0  # the sum over the shared items of the squared width of e_ri - s_ri

    @property
    def shortfall(self) -> float:
        """Hoeffding's bound on the chance of an agreement this far below the others' (1: none)."""
        if self.agreement is None or self.others is None or self.agreement >= self.others or not self.spread:
            return 1.0
        gap = self.shared * (self.others - self.agreement)
        return math.exp(-2 * gap * gap / self.spread)


# The levels at which two raters giving the same answer is agreement: a slider's or free text's
# exact matches say little, so their raters get a modal share and no agreement.
MATCHED = ("nominal", "ordinal")


class Modal(NamedTuple):
    """Per rater of a question (by code): how many items they answered, their most common
    answer's value code (the first given, of equally common ones) and how often they give it."""

    items: Any
    value: Any
    times: Any


def modal_of(q: GatheredQuestion) -> Modal:
    """Each rater's items and most common answer, counted with numpy from the answers' codes."""
    import numpy as np

    assert q.answered is not None
    pairs = q.rater_values()
    order = np.lexsort((pairs.first, -pairs.times, pairs.rater))  # per rater: most common first, then first given
    top = order[np.r_[True, pairs.rater[order][1:] != pairs.rater[order][:-1]]]
    return Modal(np.bincount(q.answered.rater, minlength=len(q.raters)), pairs.value[top], pairs.times[top])


def entries_at(c: Counts, unit: Any, value: Any) -> tuple[Any, Any]:
    """Where each (unit, value) pair is among the entries of `c` (clipped to the last entry), and
    whether it is there."""
    import numpy as np

    width = max(len(c.values), 1)
    entries = c.unit * width + c.value
    key = unit * width + value
    at = np.minimum(np.searchsorted(entries, key), len(entries) - 1)
    return at, entries[at] == key


def of_question(name: str, q: GatheredQuestion, compare: bool = True) -> Iterator[Rater]:
    """Each rater's figures on one question, raters in the order they first come; agreement only
    at the MATCHED levels, and only where the raters judge a shared object (`compare`). Computed
    for every rater at once from the answers' codes (gather.py)."""
    import numpy as np

    if q.answered is None or not q.raters:
        return
    a, c = q.answered, q.tally.counts()
    found = modal_of(q)
    # per answer counted (on an item of three raters or more): its rater, and its s_ri, e_ri and
    # squared width of e_ri - s_ri
    r, weights = np.zeros(0, dtype=np.int64), (np.zeros(0),) * 3
    if q.level in MATCHED and compare and len(c.unit):
        n = c.sizes.astype(np.float64)
        m = c.count.astype(np.float64)
        given = np.add.reduceat(m * (m - 1), c.starts)  # agreeing ordered pairs per item
        with np.errstate(divide="ignore", invalid="ignore"):
            width = (np.maximum.reduceat(m, c.starts) - np.minimum.reduceat(m, c.starts)) * n / ((n - 1) * (n - 2))
        at, ok = entries_at(c, a.unit, a.value)
        ok &= (a.unit >= 0) & (np.where(a.unit >= 0, n[a.unit], 0) >= 3)
        r, u, mine = a.rater[ok], a.unit[ok], m[at[ok]]
        ni = n[u]
        weights = ((mine - 1) / (ni - 1), (given[u] - 2 * (mine - 1)) / ((ni - 1) * (ni - 2)), width[u] ** 2)
    count = len(q.raters)
    shared = np.bincount(r, minlength=count).tolist()
    agree, other, spread = (np.bincount(r, weights=w, minlength=count).tolist() for w in weights)
    modal = zip(found.items.tolist(), found.value.tolist(), found.times.tolist(), strict=True)
    for rater, (items, value, times), k, agreement, others, squared in zip(
        q.raters, modal, shared, agree, other, spread, strict=True
    ):
        mean, others_mean = (agreement / k, others / k) if k else (None, None)
        yield Rater(rater, name, items, c.values[value], times / items, k, mean, others_mean, squared)


def of_dataset(g: Gathered) -> list[Rater]:
    """Every rater's figures on every question of a dataset whose raters are persons (else none)."""
    if not g.view.persons:
        return []
    return [r for name, q in g.questions.items() for r in of_question(name, q, g.view.shared(name))]


# Why a dataset's raters have no rows, by the kind of its raters (`Judgments.rater_kind`).
NOT_PERSONS = {
    "position": "raters are positions within an item, no one across items",
    "none": "the dataset names no rater",
}


def table(g: Gathered) -> tuple[list[RaterRow], str | None]:
    """What `stats --raters` adds to a dataset: every rater's row on every question, its shares
    rounded to 4 decimals as shown, with their Dawid-Skene accuracy and confusion (competence.py)
    on the questions it applies to (nominal, raters who are persons and judge a shared object);
    and why there are none where raters are not persons (else None)."""
    from .competence import of_question as competence_of

    found: dict[tuple[str, Hashable], tuple[float, dict[str, dict[str, float]]]] = {}
    for name, q in g.questions.items():
        if g.view.persons and g.view.shared(name) and (estimates := competence_of(q)) is not None:
            labels = [json_key(label) for label in estimates.labels]
            for rater, accuracy, matrix in zip(
                estimates.raters, estimates.accuracy.tolist(), estimates.confusion.tolist(), strict=True
            ):
                rounded = [[round(x, 4) for x in of_c] for of_c in matrix]
                confusion = {c: dict(zip(labels, of_c, strict=True)) for c, of_c in zip(labels, rounded, strict=True)}
                found[name, rater] = (round(accuracy, 4), confusion)
    rows = []
    for r in of_dataset(g):
        agreement, others = (None if x is None else round(x, 4) for x in (r.agreement, r.others))
        figures = found.get((r.question, r.rater), (None, None))
        rows.append(
            RaterRow(
                r.rater, r.question, r.items, r.modal, round(r.modal_share, 4), r.shared, agreement, others, *figures
            )
        )
    return rows, NOT_PERSONS.get(g.view.rater_kind)


def _first(rows: list[RaterRow], n: int, key: Callable[[RaterRow], float]) -> tuple[list[RaterRow], int]:
    """The n first rows in the order of `key`, and how many are left out."""
    rows = sorted(rows, key=key)
    return rows[:n], max(len(rows) - n, 0)


def lowest_agreement(rows: Sequence[RaterRow], n: int) -> tuple[list[RaterRow], int]:
    """The n rows of the raters furthest below the others' agreement (below it, over at least
    MIN_ITEMS shared items), and how many such rows are left out."""
    kept = [
        r
        for r in rows
        if r.agreement is not None
        and r.others_agreement is not None
        and r.shared_items >= MIN_ITEMS
        and r.agreement < r.others_agreement
    ]
    return _first(kept, n, lambda r: (r.agreement or 0.0) - (r.others_agreement or 0.0))


def lowest_competence(rows: Sequence[RaterRow], n: int) -> tuple[list[RaterRow], int]:
    """The n rows of the lowest competence (Dawid-Skene accuracy) over at least MIN_ITEMS
    items, and how many such rows are left out."""
    return _first(
        [r for r in rows if r.competence is not None and r.items >= MIN_ITEMS], n, lambda r: r.competence or 0.0
    )


def highest_modal_share(rows: Sequence[RaterRow], n: int) -> tuple[list[RaterRow], int]:
    """The n rows of the highest modal share over at least MIN_ITEMS items, and how many such
    rows are left out."""
    return _first([r for r in rows if r.items >= MIN_ITEMS], n, lambda r: -r.modal_share)


__all__ = [
    "MIN_ITEMS",
    "Rater",
    "entries_at",
    "highest_modal_share",
    "lowest_agreement",
    "lowest_competence",
    "of_dataset",
    "of_question",
    "table",
]
