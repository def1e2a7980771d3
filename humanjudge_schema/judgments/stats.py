"""Per dataset and question: how many items and judgments, raters per item, the distribution of
the answers, Krippendorff's alpha with a bootstrap interval (agreement.py), and beside it the
observed agreement and Gwet's AC with its interval, drawn from the same samples (coefficients.py).

An item here is what the raters judged together: the row's item and, for answers made of parts
(a multi-slider's labels, the clicks of a slider), its option. A missing answer (None) is not a
judgment for agreement; it is counted apart. Lists (a multi-select row, a ranking) are compared
whole.
"""

from __future__ import annotations

import math
from dataclasses import replace

from .agreement import Tally, alpha, bootstrap
from .coefficients import dominant, figures, gwet_resamples
from .gather import Gathered, GatheredQuestion
from .parts import split
from .summary import Agreement, DatasetStats, Distribution, QualityFinding, QuestionStats, RatersPerItem, json_key
from .view import Judgments, Level, Question

# Why an answer made of parts has no alpha as a whole: its parts have theirs (`options`).
WHOLE = {
    "select": "a multi-select row is not compared whole: each option is a yes/no question of its own (options)",
    "rank": "a ranking is not compared whole: each option's place is an ordinal judgment of its own (options)",
}
# Up to this many distinct values, the answers of a question without a level (free text) are
# listed value by value; beyond, only how many distinct values there are.
LISTED_VALUES = 20
# The parts of a question's answers (options, labels) that get every figure; the others get their
# counts, not alpha and agreement, whose bootstrap costs milliseconds a part: a question of
# thousands of options then costs about what reading it costs (docs/performance.md).
FIGURED_PARTS = 200


def dataset_stats(
    view: Judgments, *, samples: int = 1000, seed: int = 0, values: bool = False, gathered: Gathered | None = None
) -> DatasetStats:
    """The statistics of one dataset's questions, without the quality findings; with `values`,
    each question also has `values`, every distinct answer and its count (for plots).
    `gathered`: the pass over its judgments, when the caller made it already."""
    gathered = gathered or Gathered.of(view)
    questions = tuple(
        _question(name, q, samples, seed, values, view.questions.get(name)) for name, q in gathered.questions.items()
    )
    return DatasetStats(view.dataset, view.format, questions)


def describe(
    view: Judgments,
    *,
    samples: int = 1000,
    seed: int = 0,
    values: bool = False,
    raters: bool = False,
    disputed: int = 0,
) -> DatasetStats:
    """A dataset's statistics (`dataset_stats`) and the findings of the quality checks, from one
    pass over its judgments: what `stats`, `report` and the Action show; with `raters`, the
    raters table too (`raters.table`: `raters` and `raters_note`), from the same pass; with
    `disputed`, each question with alpha has its that many most disputed items (disputed.py)."""
    from .quality import check

    gathered = Gathered.of(view)
    found = dataset_stats(view, samples=samples, seed=seed, values=values, gathered=gathered)
    if disputed:
        from .disputed import disputed as most_disputed

        found = replace(found, questions=most_disputed(gathered, found.questions, disputed))
    quality = tuple(
        QualityFinding(code, where.question, message, where.file, where.pointer, where.line)
        for code, where, message in check(view, gathered)
    )
    if not raters:
        return replace(found, quality=quality)
    from .raters import table

    rows, note = table(gathered)
    return replace(found, quality=quality, raters=tuple(rows), raters_note=note)


def _question(
    name: str,
    q: GatheredQuestion,
    samples: int,
    seed: int,
    values: bool,
    declared: Question | None = None,
    *,
    counted_only: str | None = None,
) -> QuestionStats:
    """A question's figures; with `counted_only`, why it has its counts only (no alpha, no
    agreement)."""
    tally = q.tally
    spread = tally.raters_per_item()
    if declared is not None and not declared.shared:  # raters of objects of their own
        why = declared.why or "each rater answers about something of their own"
        counted_only = f"{why}, not an object its raters share: no agreement to compute"
    found = QuestionStats(
        question=name,
        level=q.level,
        items=tally.items,
        judgments=tally.judgments,
        missing=q.missing,
        raters_per_item=None if spread is None else RatersPerItem(*spread),
        alpha=None,
        alpha_ci=None,
        agreement=Agreement(),
        agreement_note=None,
        level_note=None if declared is None else declared.level_note,
        distribution=_distribution(tally, q.level),
        note=counted_only,
        values=tuple(tally.distribution().items()) if values else None,
        options=_options(q, declared, samples, seed, values) if declared and declared.parts else None,
    )
    if counted_only is None and q.level is not None:
        found = _figured(found, tally, q.level, samples, seed, declared)
    if found.alpha is None and not found.note:
        found = replace(found, note=_why_no_alpha(q, declared))
    return found


def _figured(
    found: QuestionStats, tally: Tally, level: Level, samples: int, seed: int, declared: Question | None
) -> QuestionStats:
    """The question with alpha, its interval, the agreement beside it and the note where one
    answer dominates; or with why they are not computed (`note`)."""
    value: float | None = None
    ci: tuple[float, float] | None = None
    note = None
    resamples = None
    try:
        value = alpha(tally, level)
        if value is not None:
            resamples = gwet_resamples(tally, level)  # AC of the same samples as alpha
            ci = bootstrap(tally, level, samples=samples, seed=seed, each=resamples.add)
    except ValueError as exc:  # values that do not suit the level: say so, compute nothing
        note = str(exc)
    if not all(x is None or math.isfinite(x) for x in (value, *(ci or ()))):  # no NaN or Infinity in the JSON
        value, ci, note = None, None, "values too large to compare"
    found = replace(found, alpha=value, alpha_ci=ci, note=note)
    if note:
        return found
    scale = None if declared is None else declared.order  # one answer everywhere: AC over these
    agreement = figures(tally, level, resamples=resamples, samples=samples, seed=seed, categories=scale)
    return replace(found, agreement=agreement, agreement_note=dominant(tally, level, value, agreement))


def _options(
    q: GatheredQuestion, declared: Question, samples: int, seed: int, values: bool
) -> tuple[QuestionStats, ...]:
    """The figures of each part of the question's answers (parts.py): a multi-select's options,
    a ranking's, a multi-slider's labels; each entry is a question's, with its `option`."""
    assert declared.parts is not None
    found, unsplit = split(q.tally, declared.parts, declared.labels, q.level)
    kind = "labels" if declared.parts == "label" else "options"
    past = f"only the first {FIGURED_PARTS} of the question's {len(found)} {kind} get alpha and agreement"
    left_out = f"{unsplit} answers that are not a row of its options are left out" if unsplit else None
    # the values a part can take, where the declaration says: an option of a multi-select row is
    # ticked or not; an option of a ranking of known options takes one of their places
    scale: tuple[int, ...] | None = (0, 1) if declared.parts == "select" else None
    if declared.parts == "rank" and declared.labels:
        scale = tuple(range(1, len(declared.labels) + 1))
    out = []
    for k, part in enumerate(found):
        entry = _question(
            f"{declared.name}: {part.label}",
            GatheredQuestion(part.level, tally=part.tally),
            samples,
            seed,
            values,
            Question(part.label, part.level, scale),
            counted_only=None if k < FIGURED_PARTS else past,
        )
        out.append(replace(entry, option=part.label, level_note=left_out))
    return tuple(out)


def _why_no_alpha(q: GatheredQuestion, declared: Question | None = None) -> str:
    """Why a question has no alpha, in words: every null alpha says why (stats' text, the JSON's
    `note`, the report)."""
    tally = q.tally
    if q.level is None and declared is not None and declared.parts in WHOLE:
        return WHOLE[declared.parts]
    if q.level is None:
        return "no level of measurement: its answers are free text or whole lists, which agreement does not compare"
    if not tally.judgments:
        if q.aggregates:
            return "stored aggregates only (means or majorities over raters the file does not name): no agreement"
        return "no judgments"
    spread = tally.raters_per_item()
    if spread is None or spread[2] < 2:
        return "no item has two judgments: agreement needs two raters of one item"
    counts = tally.distribution()
    if len(counts) == 1:
        (value,) = counts
        return f"every judgment is {value!r}: with one value there is nothing to agree or disagree on"
    return "fewer than two values can be paired within an item"


def _distribution(tally: Tally, level: Level | None) -> Distribution:
    if level in ("interval", "ratio"):
        summary = tally.numeric_summary()
        if summary is not None:
            return Distribution(numbers=summary)
    counts = tally.distribution()
    if level is None and len(counts) > LISTED_VALUES:
        return Distribution(distinct=len(counts))
    return Distribution(counts={json_key(value): n for value, n in counts.items()})
