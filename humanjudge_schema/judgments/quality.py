"""Quality checks over a dataset's judgments: what no single value shows, but the judgments of a
question show together. Each is a rule of the `quality` family, a warning, documented and listed
like every rule; each finding is at the file and pointer (and line) of a judgment it is about.

The checks read every judgment once (`Gathered`), so they cost about what `humanjudge export`
costs: `humanjudge stats` runs them, and `humanjudge validate --quality` adds them to validation.

Raters are compared only where they are persons (`Judgments.rater_kind`): a TextJudge score's
position names no annotator, and a CogGym participant's position is theirs across stimuli only
when every response array holds every participant. Aggregate rows (stored means and majorities)
are no rater's answers and are never compared, nor are the answers to a question whose raters
judge no shared object (a self-assessment, their own response: `view.Question.shared`) checked for
agreement below chance, straight-lining or an outlying rater.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Hashable, Iterator
from itertools import pairwise
from typing import Any

from ..gcpause import paused
from ..registry import rule, rules_of
from . import raters
from .agreement import alpha
from .coefficients import dominant
from .gather import AnswerSource, Gathered, GatheredQuestion, Key, Place, Repeat
from .summary import quoted_value
from .view import Judgments

# A question's agreement is judged when at least this many items have two values or more.
MIN_PAIRABLE_ITEMS = 10
# A rater's answers are compared when they cover at least this many items of a question
# (straight-lining) or of the dataset (a repeated answer vector), and when what they show would
# happen by chance less often than this, answers drawn from the question's own distribution of
# answers (ten "no" in a row on a yes/no question where most answers are "no" is no pattern),
# among all the raters compared: one in a thousand for the dataset, not for each rater, or a
# dataset of many raters would always have some (Bonferroni: each chance times the number of
# raters, or pairs of raters, compared).
MIN_RATER_ITEMS = raters.MIN_ITEMS
MIN_VECTOR_ANSWERS = 20
# A rater straight-lines when one answer is at least this share of their answers to a question.
STRAIGHT_SHARE = 0.95
CHANCE = 1e-3
Hit = tuple[Key, str]  # the judgment a finding is about (located once every rule has run), message
# An item is sparse when its judgments, times this, are at most the median of its question's
# items, and that median is at least SPARSE_MIN_MEDIAN.
SPARSE_RATIO = 4
SPARSE_MIN_MEDIAN = 4


def check(view: Judgments, gathered: Gathered | None = None) -> list[tuple[str, AnswerSource, str]]:
    """(code, where, message) of every quality finding of a dataset, rule by rule (`gathered`:
    the pass over its judgments, when the caller made it already)."""
    gathered = gathered or Gathered.of(view)
    with paused():  # the checks make a container per answer (gcpause.py)
        hits = [(r.code, key, message) for r in rules_of("quality") for key, message in r(gathered)]  # type: ignore[attr-defined]
    places = gathered.locate(key for _, key, _ in hits) if hits else {}
    # a judgment not found again (its file changed since the pass): the finding stays, at the dataset
    return [
        (code, places.get(key) or AnswerSource(view.dataset, "", None, key[1]), message) for code, key, message in hits
    ]


def _compared(g: Gathered, *, shared: bool = True) -> Iterator[tuple[str, GatheredQuestion]]:
    """The questions whose raters are persons, with each rater's answers (`answered`); with
    `shared`, only those whose raters judge a shared object."""
    if g.view.persons:  # else a position names no one across items
        for name, q in g.questions.items():
            if q.answered is not None and q.raters and (not shared or g.view.shared(name)):
                yield name, q


def _item(place: Place) -> str:
    """An item as a message names it: with its option, where it has one."""
    item, option = place
    return f"{item!r}" + (f" ({option})" if option != "" else "")


@rule(
    "quality/below-chance",
    "the raters of a question agree no better than chance",
    severity="warning",
    why="Krippendorff's alpha at or below 0 means the raters' answers to an item are no closer to "
    "each other than answers drawn at random from all answers. With enough items to judge (at "
    f"least {MIN_PAIRABLE_ITEMS} with two answers or more) that is seldom what raters do: it is "
    "usually a scale reversed for some raters, a column shifted by one row, or labels mixed up. "
    "Any correlation reported against such judgments is a correlation with noise. Not reported "
    "where one answer dominates (so uneven a spread of answers that chance alone would disagree "
    "at most half as often as over an even spread, and Gwet's AC above 0): there alpha is low "
    "because chance agreement is high, and the statistics say so.",
    bad="fluency, 420 items x 3 ratings from 1 to 5: alpha -0.016",
    good="informativeness, 420 items x 3 ratings: alpha 0.285",
)
def below_chance(g: Gathered) -> Iterator[Hit]:
    for name, q in g.questions.items():
        pairable = int((q.tally.counts().sizes >= 2).sum())
        if q.level is None or pairable < MIN_PAIRABLE_ITEMS or not g.view.shared(name):
            continue
        try:
            value = alpha(q.tally, q.level)
        except ValueError:  # values that do not suit the level: the statistics say so
            continue
        if value is not None and value <= 0 and not dominant(q.tally, q.level, value):
            yield (
                ("question", name),
                f"the raters of {name!r} agree no better than chance: Krippendorff's alpha ({q.level}) is "
                f"{value:.3f} over {pairable} items",
            )


@rule(
    "quality/straight-lining",
    "a rater gives one answer to nearly every item of a question",
    severity="warning",
    why="A rater who gives the same answer to nearly every one of many items (at least "
    f"{STRAIGHT_SHARE:.0%} of at least {MIN_RATER_ITEMS}) while other raters' answers vary was "
    "usually not reading them: the answers carry no information about the items, and they pull "
    "the question's mean and agreement toward that answer. A few different answers among many "
    "do not clear a rater (a slip, or the one item that was plainly different); an answer most "
    "raters give to the same items is no pattern, so it is reported only when answers drawn at "
    "random from each item's own answers would give it that often less than once in a thousand "
    "among all the raters of the dataset tested: that chance times the number of raters tested, "
    f"a rater once per question of varied answers where they answered at least {MIN_RATER_ITEMS} "
    "items (Bonferroni's correction, as for an outlying rater), so that one rater among many is "
    "not reported for what chance alone gives some rater.",
    bad="worker 17: helpfulness 3 on 39 of their 40 items; other workers answer 1 to 5",
    good="worker 17: helpfulness 3, 4, 2, 5, ...",
)
def straight_lining(g: Gathered) -> Iterator[Hit]:
    import numpy as np

    # where every answer is the same, nothing tells one rater from the others
    tested = {name: (q, raters.modal_of(q)) for name, q in _compared(g) if len(q.tally.distribution()) > 1}
    # the raters tested: each with enough items of a question whose answers vary
    compared = sum(int((found.items >= MIN_RATER_ITEMS).sum()) for _, found in tested.values())
    for name, (q, found) in tested.items():
        many = (found.items >= MIN_RATER_ITEMS) & (found.times >= STRAIGHT_SHARE * found.items)
        for r in np.flatnonzero(many).tolist():
            n, value, times = int(found.items[r]), q.tally.counts().values[found.value[r]], int(found.times[r])
            if _as_often(_chances(q, r, int(found.value[r])), n - times) * compared >= CHANCE:
                continue
            rater = q.raters[r]
            told = f"all {n}" if times == n else f"{times} of their {n}"
            share = q.tally.distribution()[value] / q.tally.judgments
            yield (
                ("rater", name, rater),
                f"rater {rater!r} answers {quoted_value(value)} to {told} items of {name!r}, while "
                f"{1 - share:.0%} of the question's answers are something else",
            )


def _chances(q: GatheredQuestion, rater: int, value: int) -> list[float]:
    """For each item the rater answered, the share of its answers that are `value`."""
    import numpy as np

    assert q.answered is not None
    c = q.tally.counts()
    mine = q.answered.unit[q.answered.rater == rater]
    mine = mine[mine >= 0]
    at, given = raters.entries_at(c, mine, value)
    return (np.where(given, c.count[at], 0) / c.sizes[mine]).tolist()  # type: ignore[no-any-return]


def _as_often(chances: list[float], misses: int) -> float:
    """The chance that answers drawn at random from each item's own answers give the value to
    all but at most `misses` of the rater's items (a sum of unlike Bernoulli draws, counted
    exactly over the few misses allowed); `chances`: each item's share of answers that are it."""
    chance = [1.0] + [0.0] * misses  # chance[j]: j items so far answered otherwise
    for p in chances:
        for j in range(misses, 0, -1):
            chance[j] = chance[j] * p + chance[j - 1] * (1 - p)
        chance[0] *= p
        if sum(chance) < 1e-12:
            break
    return sum(chance)


@rule(
    "quality/outlying-rater",
    "a rater agrees with the other raters of the same items far less than they agree with each other",
    severity="warning",
    why="Where raters are persons and answers are categories (nominal or ordinal), each rater's "
    "agreement with the other raters of the same items is set beside how often those others "
    "agree with each other on the same items (docs/stats.md#raters). A rater far below, over "
    f"many items (at least {MIN_RATER_ITEMS} shared with two other raters or more), answers "
    "another question than the others did: a reversed scale, instructions misread, or answers "
    "given at random. Far below means a gap that chance would give less than once in a thousand "
    "among all the raters of the dataset compared, were it chance which of an item's raters gave "
    "which of its answers (Hoeffding's bound, times the number of raters and questions compared), "
    "so a rater who is only unlucky on a few items, or one among hundreds who is a little below, "
    "is not reported.",
    bad="worker 9 agrees with the other workers of the same topics in 8% of pairs, where they agree "
    "with each other in 61%, over 62 topics",
    good="worker 9 agrees with the others in 55% of pairs, where they agree with each other in 61%",
)
def outlying_rater(g: Gathered) -> Iterator[Hit]:
    compared = [
        r
        for name, q in _compared(g)
        if q.level in raters.MATCHED
        for r in raters.of_question(name, q)
        if r.shared >= MIN_RATER_ITEMS and r.agreement is not None
    ]
    for r in compared:
        if r.shortfall * len(compared) < CHANCE:
            yield (
                ("rater", r.question, r.rater),
                f"rater {r.rater!r} agrees with the other raters of the same items of {r.question!r} in "
                f"{r.agreement:.0%} of pairs, where those raters agree with each other in {r.others:.0%}, "
                f"over {r.shared} items",
            )


@rule(
    "quality/repeated-rater",
    "two raters give the same answers, item for item",
    severity="warning",
    why="Two raters whose every answer to every question agrees, over many answers (at least "
    f"{MIN_VECTOR_ANSWERS}, not all one value), are almost always one participant counted twice: "
    "a response merged twice, or a row copied. The duplicate inflates the number of raters and "
    "their agreement.",
    bad="participants 4 and 31: the same 60 slider values, in the same order",
    good="participants 4 and 31: answers that differ somewhere",
)
def repeated_rater(g: Gathered) -> Iterator[Hit]:
    import numpy as np

    alike = _alike(g)
    if not alike:
        return
    vectors: dict[Hashable, dict[tuple[str, Place], Hashable]] = {rater: {} for rater in alike}
    # The chance that two raters give one answer to an item is the sum of the squared shares of
    # that item's answers; a match of two whole vectors must be rare among all pairs of raters.
    matching: dict[Hashable, float] = dict.fromkeys(alike, 0.0)
    for name, q in _compared(g, shared=False):
        c = q.tally.counts()
        per_item = np.add.reduceat((c.count / c.sizes[c.unit]) ** 2, c.starts) if len(c.unit) else np.zeros(0)
        logs = np.log(np.maximum(per_item, 1e-300)).tolist()
        codes = [k for k, rater in enumerate(q.raters) if rater in vectors]
        a = q.answered
        assert a is not None
        rows = np.flatnonzero(np.isin(a.rater, codes))
        for r, u, v, p in zip(*(column[rows].tolist() for column in a[:4]), strict=True):
            rater = q.raters[r]
            vectors[rater][(name, a.places[p])] = c.values[v]
            matching[rater] += logs[u] if u >= 0 else 0.0
    everyone = len({rater for q in g.questions.values() for rater in q.raters})
    pairs = math.log(max(everyone * (everyone - 1) / 2, 1))
    seen: dict[frozenset[Any], Hashable] = {}
    for rater, vector in vectors.items():
        if len(vector) < MIN_VECTOR_ANSWERS or len(set(vector.values())) < 2:
            continue
        if pairs + matching[rater] >= math.log(CHANCE):
            continue  # answers so alike across raters that two whole vectors may match by chance
        key = frozenset(vector.items())
        earlier = seen.setdefault(key, rater)
        if earlier != rater:
            yield (
                ("rater", next(iter(vector))[0], rater),  # in the first question they answer
                f"rater {rater!r} gives the same {len(vector)} answers as rater {earlier!r}, item for item: "
                "one participant counted twice?",
            )


def _alike(g: Gathered) -> list[Hashable]:
    """The raters, in order, whose answers to each question are the same values as often as
    another rater's: only they can give the same answers, item for item, as someone else. The
    counts are made with numpy; the answers of the others are never compared item by item."""
    import numpy as np

    counts: dict[Hashable, list[tuple[str, bytes]]] = {}
    for name, q in _compared(g, shared=False):
        pairs = q.rater_values()
        rater = pairs.rater
        data = np.stack([pairs.value, pairs.times], axis=1).astype("<i8").tobytes()
        cuts = np.flatnonzero(np.r_[True, rater[1:] != rater[:-1], True]).tolist()
        for a, b in pairwise(cuts):
            counts.setdefault(q.raters[int(rater[a])], []).append((name, data[a * 16 : b * 16]))
    shared = Counter(tuple(c) for c in counts.values())
    return [rater for rater, c in counts.items() if shared[tuple(c)] > 1]


@rule(
    "quality/sparse-item",
    "an item has far fewer judgments than the other items of its question",
    severity="warning",
    why="When most items of a question are judged by many raters and one by very few (at most a "
    f"{SPARSE_RATIO}th of the median, and the median is at least {SPARSE_MIN_MEDIAN}), that item's "
    "aggregate rests on too little, and the missing judgments were often lost in a merge or an "
    "export.",
    bad="item 57: 1 rating; the question's items have 10 (median)",
    good="item 57: 10 ratings",
)
def sparse_item(g: Gathered) -> Iterator[Hit]:
    import numpy as np

    for name, q in g.questions.items():
        c = q.tally.counts()
        if not len(c.sizes):
            continue
        median = statistics.median(c.sizes.tolist())
        if median < SPARSE_MIN_MEDIAN:
            continue
        for k in np.flatnonzero(c.sizes * SPARSE_RATIO <= median).tolist():
            unit: Any = c.units[k]
            n = int(c.sizes[k])
            judgments = "judgment" if n == 1 else "judgments"
            yield (
                ("item", name, unit),
                f"item {_item(unit)} has {n} {judgments} of {name!r}; the question's items have {median:g} (median)",
            )


@rule(
    "quality/repeated-answer",
    "a rater answers the same item more than once",
    severity="warning",
    why="Where raters are persons, each rater's answer to an item is one vote in its agreement. "
    "A rater who answers the same item twice (a worker given two tasks of one topic, a row "
    "merged twice) would count twice, and their two answers to one item would be taken for two "
    "raters agreeing or disagreeing. Agreement, distributions and raters per item count the "
    "first answer in file order only; the finding names both places, so that the second can be "
    "looked at. A null is no answer: a task left blank and then answered is answered once.",
    bad="worker w7 rates topic 2024-10001 in the essay task and again in the news task",
    good="each worker rates a topic once",
)
def repeated_answer(g: Gathered) -> Iterator[Hit]:
    seen: dict[tuple[Hashable, Place], list[Repeat]] = {}
    for again in g.repeats:
        seen.setdefault((again.rater, again.place), []).append(again)
    for (rater, place), repeats in seen.items():
        first = repeats[0]
        where = first.where.pointer + (f" (line {first.where.line})" if first.where.line is not None else "")
        questions = len({r.question for r in repeats})
        asked = f"{questions} questions" if questions > 1 else repr(first.question)
        yield (
            ("answer", first.question, rater, place),
            f"rater {rater!r} answers item {_item(place)} twice ({asked}; again at {where}): agreement "
            "counts the first answer only, this one",
        )
