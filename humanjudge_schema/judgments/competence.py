"""Rater competence where raters are persons and a question is nominal: the Dawid-Skene model
(Dawid and Skene 1979, "Maximum likelihood estimation of observer error-rates using the EM
algorithm"), fitted by expectation-maximisation.

Each item has one true label, label c with probability prior_c; rater r, shown an item whose
label is c, answers y with probability confusion_r[c, y]. The fit, as crowd-kit's `DawidSkene`
does it (its defaults: 100 rounds, 1e-5), so that both agree to 1e-6 (tests/test_competence.py):

- start: each item's labels in the shares its raters gave them (majority vote);
- prior_c: the mean over items of P(label c);
- confusion_r[c, y]: the sum of P(label c) over the items r answered y, at least 1e-10, divided
  by its sum over the answers r gave (an answer r never gave has probability 0);
- P(item i is c), proportional to prior_c (at least 1e-10) times confusion_r[c, y_ri] over the
  raters of i, in logarithms;
- stop after 100 rounds (each: the item probabilities, then prior and confusion), or as soon as a
  round raises the evidence lower bound per answer by less than 1e-5.

A rater's `accuracy` is the expected share of their answers that are the item's true label: the
mean, over their answers, of the probability of the label they gave. An item's estimated label is
its most probable one; of labels equally probable (within 1e-9, rounding), the first given, as
of a rater's equally common answers (raters.py). crowd-kit takes the first of its columns, which
pandas orders by the item-label pairs' counts, the first given first among equal counts.

numpy, not crowd-kit: crowd-kit imports pandas, scikit-learn and nltk to load its classifiers and
asks for transformers, hundreds of megabytes for a fit of a few array operations per round;
it is the tests' reference instead, as irrCAC is for the agreement coefficients.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, NamedTuple

from .columns import renumber
from .gather import GatheredQuestion, Place

ROUNDS = 100  # crowd-kit's n_iter
TOLERANCE = 1e-5  # crowd-kit's tol: the least gain of the bound per answer that goes on
FLOOR = 1e-10  # crowd-kit's _EPS: the least probability of a given answer, and of a label's prior
TIE = 1e-9  # labels this close in probability are equally probable
# The fit keeps a raters x labels x labels array: a question with more cells (1,000 raters of
# 100 labels) gets no estimates.
MAX_CELLS = 10_000_000


def fit(rater: Any, item: Any, answer: Any, raters: int, items: int, labels: int) -> tuple[Any, Any, Any, int]:
    """Dawid-Skene on answers given as codes: rater r (0 to raters - 1) answered label `answer`
    to item `item`, one answer per rater and item; every item and rater has an answer. Returns
    the probability of each label of each item (items x labels), each rater's confusion (raters
    x true label x answer), the labels' prior, and the rounds run."""
    import numpy as np

    row = rater * labels + answer  # the row of r's matrix (answer x true label) an answer reads
    by_item = np.argsort(item, kind="stable")
    item_starts = np.searchsorted(item[by_item], np.arange(items))
    by_row = np.argsort(row, kind="stable")
    rows, row_starts = np.unique(row[by_row], return_index=True)

    def per_item(x: Any) -> Any:
        return np.add.reduceat(x[by_item], item_starts, axis=0)

    def confusion_of(posterior: Any) -> Any:
        cells: Any = np.zeros((raters * labels, labels))
        cells[rows] = np.maximum(np.add.reduceat(posterior[item[by_row]], row_starts, axis=0), FLOOR)
        cells = cells.reshape(raters, labels, labels)
        return cells / cells.sum(axis=1, keepdims=True)

    def logs_of(confusion: Any) -> Any:
        with np.errstate(divide="ignore"):  # an answer never given: never read
            return np.log(confusion.reshape(raters * labels, labels))

    posterior = per_item(np.eye(labels)[answer])
    posterior /= posterior.sum(axis=1, keepdims=True)
    prior, confusion = posterior.mean(axis=0), confusion_of(posterior)
    bound, rounds = -np.inf, 0
    while rounds < ROUNDS:
        rounds += 1
        logs = logs_of(confusion)
        likely = np.log(np.maximum(prior, FLOOR)) + per_item(logs[row])
        posterior = np.exp(likely - likely.max(axis=1, keepdims=True))
        posterior /= posterior.sum(axis=1, keepdims=True)
        prior, confusion = posterior.mean(axis=0), confusion_of(posterior)
        logs = logs_of(confusion)
        joint = (posterior[item] * (logs[row] + np.log(np.maximum(prior, FLOOR)))).sum()
        clipped = np.maximum(posterior, FLOOR)
        gained = (joint - (clipped * np.log(clipped)).sum()) / len(item)
        if gained - bound < TOLERANCE:
            break
        bound = gained
    return posterior, confusion.transpose(0, 2, 1), prior, rounds


class Estimates(NamedTuple):
    """A nominal question's Dawid-Skene estimates: its labels (in the order first given), its items
    (`places`) with the probability of each label (items x labels), its raters with their
    confusion (true label x answer) and accuracy, the labels' prior, and the rounds run."""

    labels: list[Hashable]
    places: list[Place]
    posterior: Any
    raters: list[Hashable]
    confusion: Any
    accuracy: Any
    prior: Any
    rounds: int

    def estimated(self) -> Any:
        """Each item's estimated label, as its index in `labels`: the most probable, the first of
        equally probable ones."""
        import numpy as np

        best = self.posterior.max(axis=1, keepdims=True)
        return np.argmax(self.posterior >= best - TIE, axis=1)


def of_question(q: GatheredQuestion) -> Estimates | None:
    """The estimates of a question's answers where it is nominal, raters are persons (its
    `answered`), it has two labels or more and at most MAX_CELLS cells, and some item has two
    answers (where none has, no rater is ever compared with another); else None."""
    import numpy as np

    if q.level != "nominal" or q.answered is None:
        return None
    a, c = q.answered, q.tally.counts()
    counted = np.asarray([v == v for v in c.values] + [False], dtype=bool)  # not NaN
    keep = (a.unit >= 0) & counted[a.value]
    item, item_of = renumber(a.unit[keep])
    rater, rater_of = renumber(a.rater[keep])
    given, label_of = renumber(a.value[keep])
    labels = [c.values[k] for k in label_of.tolist()]
    if len(labels) < 2 or len(rater_of) * len(labels) ** 2 > MAX_CELLS or np.bincount(item).max() < 2:
        return None
    posterior, confusion, prior, rounds = fit(rater, item, given, len(rater_of), len(item_of), len(labels))
    accuracy = np.bincount(rater, weights=posterior[item, given]) / np.bincount(rater)
    places, raters = [c.units[k] for k in item_of.tolist()], [q.raters[k] for k in rater_of.tolist()]
    return Estimates(labels, places, posterior, raters, confusion, accuracy, prior, rounds)


__all__ = ["MAX_CELLS", "Estimates", "fit", "of_question"]
