"""Two versions compared: the datasets paired (pairing.py), each pair's judgments matched
(match.py), the statistics of the questions that changed, and the findings of each version."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .. import catalog
from ..config import Config, discover
from ..engine import Document
from ..gcpause import paused
from ..judgments.view import Batch, JudgmentCounts, Judgments, Needs
from ..reading import read_checked
from .align import Alignment, Removed, find, mapped, renamed
from .figures import findings_of, measure, not_matching, overlap, tvd
from .items import Duplicates, Lockstep
from .lines import add_lines
from .match import Changes, Matcher, Rest, Side, same
from .model import KINDS, STATUSES, DatasetDiff, Diff, Example, QuestionDiff, plain
from .pairing import Pair, datasets, identical, pair, shown_under

# the fields of an aggregate example, in diff --format json
AGGREGATE: tuple[str, ...] = ("kind", "question", "item", "option", "aggregate", "old", "new")
AGGREGATE += ("file", "pointer", "line", "side", "matches")
# What the matching pass reads: answers compared by the options they name, not the places they
# store (model.Named)
NAMED = Needs(positions=False)
POSITIONS = "raters are positions within an item (the n-th score), not persons: a rater added or removed is a position"


@dataclass(frozen=True)
class Asked:
    """What every dataset of one comparison is compared with (see `compare`)."""

    examples: int
    samples: int
    seed: int
    stats: str
    by_item: bool
    align: bool


def compare(
    old_root: Path,
    new_root: Path,
    paths: Sequence[str] = (".",),
    *,
    examples: int = 5,
    samples: int = 200,
    seed: int = 0,
    stats: str = "auto",
    kind: str | None = None,
    config: Config | None = None,
    old_label: str | None = None,
    new_label: str | None = None,
    told: Callable[[str], None] | None = None,
    files: tuple[str, str] | None = None,
    by_item: bool = True,
    links: bool = True,
    align: bool = True,
) -> Diff:
    """Compare the datasets under `paths` (relative to each root) in two versions. The datasets
    whose files are byte for byte the same are unchanged, and not read. `config` (default: the
    one found for each dataset in the new version) validates both versions alike. With `files`,
    the one file named in each root is compared, whatever their names. `by_item` False matches
    every judgment row by row even where the format gives its items (items.py): the same answer,
    for the tests to compare with. With `links` False no link is followed to find a dataset
    (pairing.datasets): what a hostile change links to is not what is compared. With `align`
    False raters that are places are matched by place only (align.py)."""
    if files is not None:  # two files, compared as one dataset whatever their names
        old, new = datasets(old_root, files[:1], kind), datasets(new_root, files[1:], kind)
        if len(old) == len(new) == 1 and next(iter(old))[0] == next(iter(new))[0]:
            old = {next(iter(new)): next(iter(old.values()))}
    else:
        old, new = datasets(old_root, paths, kind, links), datasets(new_root, paths, kind, links)
    out = Diff(old_label or str(old_root), new_label or str(new_root), examples=examples)
    asked = Asked(examples, samples, seed, stats, by_item, align)
    for p in pair(old, new):
        if told is not None:
            told(p.new_name or p.old_name or "")
        cfg = config or discover(new_root / (p.new_name or p.old_name or "."))
        out.datasets.append(_dataset(p, (old_root, new_root), cfg, asked))
    out.datasets.sort(key=lambda d: STATUSES.index(d.status))  # stable: path order within a status
    return out


# With stats="auto", the statistics of a question are computed again when at least this share of
# its judgments changed: they cost a reading of both versions and a bootstrap over every item,
# and a smaller change cannot move them much (a judgment in a hundred moves alpha by about that).
MATERIAL = 0.01


def _dataset(p: Pair, roots: tuple[Path, Path], config: Config, asked: Asked) -> DatasetDiff:
    name = p.new_name if p.new_name is not None else p.old_name
    assert name is not None
    status = "removed" if p.new is None else "added" if p.old is None else "changed"
    out = DatasetDiff(name, p.family, status, old_dataset=p.old_name)  # type: ignore[arg-type]
    if p.old is not None and p.new is not None and identical(p.old, p.new):
        out.status = "unchanged"
        return out
    # Each version is checked as the matching pass reads its judgments: its files are read once,
    # and the lines of the examples are found in the documents its check parsed
    parsed: list[Document] = []
    (old_view, old_done), (new_view, new_done) = (
        (None, list) if u is None else read_checked(u, config, keep=parsed) for u in (p.old, p.new)
    )
    both = (old_view, new_view) if old_view is not None and new_view is not None else None
    m = _match((old_view, new_view), roots, asked, early=asked.align and both is not None)
    kinds = {v.rater_kind for v in (old_view, new_view) if v is not None}
    out.rater_kind = "position" if "position" in kinds else next(iter(kinds), None)
    old_findings, new_findings = findings_of(old_done(), roots[0]), findings_of(new_done(), roots[1])
    out.questions = _questions(m)
    stopped = m.changes.stopped
    if both is not None and (stopped or (asked.align and _may_shift(out.questions, m))):
        # matched again with the old raters' places aligned with the new ones' (align.py) where
        # that needs fewer edits than the places as they are: as matched, or, where that matching
        # stopped early, as tabulated (an estimate, which the matching has the last word on)
        alignment = find(*both)
        if alignment is not None:
            again = _match(both, roots, asked, alignment=alignment)
            if _edits(again) < (alignment.edits[0] if stopped else _edits(m)):
                out.alignment, m = alignment, again
        if stopped and out.alignment is None:  # no alignment after all: matched by place, to the end
            m = _match(both, roots, asked)
        out.questions = _questions(m)
    out.judgments = (sum(m.old.counts.values()), sum(m.new.counts.values()))
    if out.alignment is not None:
        _old_places(out.questions, out.alignment)
    if out.rater_kind == "position":
        aligned = "; the versions' positions are aligned by their answers"
        shifts = ", and a score removed from the middle of an item moves the later ones"
        out.notes.append(POSITIONS + (aligned if out.alignment is not None else shifts))
    if out.rater_kind == "person" and out.alignment is None and _shifted(out.questions):
        out.notes.append(
            "raters are numbered by their place (0, 1, 2, ...): when a rater other than the last is "
            "removed, the later ones move up one place, and their judgments show as changed"
        )
    if m.changes.moved:
        out.notes.append(_moved(m.changes.moved, out.questions))
    moved = (p.old_name, p.new_name) if p.old_name != p.new_name and p.old_name and p.new_name else None
    out.findings_new, out.findings_fixed = _findings(old_findings, new_findings, moved)
    # whether a stored aggregate matches is known where the format checks its aggregates
    checked = catalog.get(p.family).aggregation is not None
    _aggregates(out, m, new_findings, asked.examples, checked)
    add_lines(out, *roots, parsed)
    if both is not None and asked.stats != "never":
        _measure(out.questions, both, m, asked)
    return out


def _match(
    views: tuple[Judgments | None, Judgments | None],
    roots: tuple[Path, Path],
    asked: Asked,
    early: bool = False,
    alignment: Alignment | None = None,
) -> Matcher:
    """The versions' judgments matched: item by item where both views give their items
    (items.py), `asked.by_item` and no `alignment`, else row by row, the old raters renamed by
    `alignment` if given. With `early`, the matching stops (`Changes.stopped`) where so many
    judgments change that places may have shifted (`_Early`)."""
    itemized = [view for view in views if view is not None and view.items]
    if asked.by_item and alignment is None and len(itemized) == 2:
        step = Lockstep(*(view.by_item(NAMED) for view in itemized))
        try:
            return _run([Side(_shown(step.side(k), roots[k]), step.places[k]) for k in (0, 1)], asked, early)
        except Duplicates:  # a version names an item twice: every row matched instead
            pass
    batches = [iter(()) if view is None else view.in_batches(NAMED) for view in views]
    if alignment is not None:
        batches[0] = renamed(batches[0], alignment)
    return _run([Side(_shown(batches[k], roots[k])) for k in (0, 1)], asked, early)


def _run(sides: list[Side], asked: Asked, early: bool) -> Matcher:
    old, new = sides
    changes = Changes(asked.examples)
    matcher = Matcher(old, new, changes, _Early(old, changes) if early else None)
    with paused():  # the pass keeps millions of keys alive (gcpause.py)
        matcher.run()
    return matcher


def _may_shift(questions: list[QuestionDiff], m: Matcher) -> bool:
    """Whether places shifted could explain a change: judgments changed, and numbered raters
    removed or added at the end, or a share of the judgments (MATERIAL) changed. Only then is
    an alignment looked for (align.py): it costs a reading of both versions."""
    changed = sum(q.changed for q in questions)
    if not changed:
        return False
    ends = [r for q in questions for r in (*q.raters_removed, *q.raters_added)]
    if ends:
        return all(type(r) is int for r in ends)
    shown = [e.rater for q in questions for e in q.examples]
    most = max(sum(m.old.counts.values()), sum(m.new.counts.values()))
    return changed >= MATERIAL * most and all(type(r) is int for r in shown)


# A matching stops early, for an alignment to be looked for, once this many judgments changed,
# and at least this share of those it compared: a change of values rarely does that, a place
# removed from the middle always (each later place reads as changed). Stopped, it costs nothing
# of what it would have spent on every changed judgment; not stopped, the change is looked at once
# the matching is done (`_may_shift`).
EARLY, EARLY_SHARE = 1024, 0.25


class _Early:
    """Whether a matching stops early (EARLY): asked at each of its steps, so counters first."""

    def __init__(self, old: Side, changes: Changes) -> None:
        self.old, self.changes = old, changes
        self.numbered: bool | None = None

    def __call__(self) -> bool:
        changed = self.changes.changed
        if changed < EARLY or changed < EARLY_SHARE * self.old.taken:
            return False
        if self.numbered is None:  # raters numbered by place, as the examples so far show
            found = [e.rater for kinds in self.changes.examples.values() for listed in kinds.values() for e in listed]
            self.numbered = bool(found) and all(type(r) is int for r in found)
        return self.numbered


def _edits(m: Matcher) -> int:
    return sum(n for counts in m.changes.counts.values() for n in counts.values())


def _old_places(questions: list[QuestionDiff], alignment: Alignment) -> None:
    """The raters of an aligned matching named as each version names them: what was removed by
    its old place (its pointer is in the old file), a change by its new place, with the old one
    beside it where it moved."""
    old_of = alignment.old_of()

    def old(rater: Any) -> Any:
        return rater.old if isinstance(rater, Removed) else old_of.get(rater, rater)

    def named(e: Example) -> Example:
        if e.kind == "removed":
            return replace(e, rater=old(e.rater))
        if e.kind == "changed" and old(e.rater) != e.rater:
            return replace(e, old_rater=old(e.rater))
        return e

    for q in questions:
        q.raters_removed = _sorted({old(r) for r in q.raters_removed})
        q.examples = [named(e) for e in q.examples]


def _shifted(questions: list[QuestionDiff]) -> bool:
    """Whether a question lost numbered raters and has changed judgments: the sign of a rater
    removed from the middle of arrays that hold every rater by place."""
    return any(q.changed and q.raters_removed and all(isinstance(r, int) for r in q.raters_removed) for q in questions)


def _moved(found: dict[str, set[Any]], questions: list[QuestionDiff]) -> str:
    """The note on options that changed under stored answers: the questions in the dataset's
    order, the first items of each in sorted order (the matching comes upon them in no order)."""
    order = {q.question: k for k, q in enumerate(questions)}

    def where(question: str) -> str:
        items = _sorted(found[question])
        first = ", ".join(map(str, items[:3])) + (", …" if len(items) > 3 else "")
        return f"{question} in {len(items):,} item{'' if len(items) == 1 else 's'} ({first})"

    named = sorted(found, key=lambda q: order.get(q, len(order)))
    return (
        f"options changed (reordered, renamed, added or removed) under stored answers: {'; '.join(map(where, named))}. "
        "An answer that stores an option's place is compared by the option it names; stored aggregates (keyed by "
        "an option's place) and the statistics are compared as stored"
    )


def _shown(batches: Iterator[Batch | JudgmentCounts | Rest], root: Path) -> Iterator[Batch | JudgmentCounts | Rest]:
    """The batches with their files shown relative to the version's root."""
    shown = shown_under(root)
    for batch in batches:
        yield batch if isinstance(batch, (JudgmentCounts, Rest)) else mapped(batch, "file", shown)


def _questions(m: Matcher) -> list[QuestionDiff]:
    """Each question of either version, in the order first seen (old, then new), with what
    matching found, and a question removed whole beside one added whole over the same (item,
    rater, option) keys paired as one renamed."""
    old, new, changes = m.old, m.new, m.changes
    items_old, items_new = _by_question(old.item_set), _by_question(new.item_set)
    raters_old, raters_new = _by_question(old.rater_set), _by_question(new.rater_set)
    out: dict[str, QuestionDiff] = {}
    listed = changes.examples
    for name in dict.fromkeys([*old.counts, *new.counts]):
        counts = changes.counts.get(name, Counter())
        q = out[name] = QuestionDiff(name, counts["added"], counts["removed"], counts["changed"])
        q.examples = [e for kind in KINDS for e in listed.get(name, {}).get(kind, [])]
        olds, news = items_old.get(name, set()), items_new.get(name, set())
        q.items_added, q.items_removed = _sorted(news - olds), _sorted(olds - news)
        olds, news = raters_old.get(name, set()) - {""}, raters_new.get(name, set()) - {""}
        q.raters_added, q.raters_removed = _sorted(news - olds), _sorted(olds - news)
    # a question removed whole and one added whole, with the same judgments (item, rater,
    # option and value) under the other name, are one question renamed
    gone = [n for n in out if n in old.counts and n not in new.counts]
    came = [n for n in out if n in new.counts and n not in old.counts]
    for was in gone:
        content = changes.sums["removed", was]
        match = [n for n in came if old.counts[was] == new.counts[n] and changes.sums["added", n] == content]
        if len(match) == 1:
            came.remove(match[0])
            out[match[0]] = QuestionDiff(match[0], renamed_from=was)
            del out[was]
    return list(out.values())


def _by_question(pairs: set[tuple[str, Any]]) -> dict[str, set[Any]]:
    out: dict[str, set[Any]] = {}
    for name, value in pairs:
        out.setdefault(name, set()).add(value)
    return out


def _sorted(values: set[Any]) -> list[Any]:
    return sorted(values, key=lambda v: (type(v).__name__, v if isinstance(v, (int, float, str)) else repr(v)))


def _findings(old: list[Any], new: list[Any], moved: tuple[str, str] | None) -> tuple[list[Any], list[Any]]:
    """The findings of one version only, matched by (code, file, pointer); a moved dataset's old
    files are compared as if under its new path."""

    def key(f: Any, rename: bool) -> tuple[str, str, str]:
        file = f.file
        if rename and moved is not None and (file == moved[0] or file.startswith(moved[0] + "/")):
            file = moved[1] + file[len(moved[0]) :]
        return f.code, file, f.pointer

    olds = {key(f, True) for f in old}
    news = {key(f, False) for f in new}
    return [f for f in new if key(f, False) not in olds], [f for f in old if key(f, True) not in news]


def _aggregates(out: DatasetDiff, m: Matcher, new_findings: list[Any], examples: int, checked: bool) -> None:
    """The stored aggregates removed, changed and added, matched by key, in that order, each kind in
    the order of the version it is shown in (the old one for what was removed)."""
    agg, old, new = out.aggregates, m.old.aggregates, m.new.aggregates
    changed = [key for key in old if key in new and not same(old[key][0], new[key][0])]
    found = [
        *sorted((old[key][4], "removed", key) for key in old if key not in new),
        *sorted((new[key][4], "changed", key) for key in changed),
        *sorted((new[key][4], "added", key) for key in new if key not in old),
    ]
    for _, kind, key in found:  # the ordinals are unique: the keys are never compared
        was, now = old.get(key), new.get(key)
        setattr(agg, kind, getattr(agg, kind) + 1)
        where = now if now is not None else was
        assert where is not None
        matches = None if now is None or not checked else not not_matching(now[1], now[2], new_findings)
        agg.not_matching += matches is False
        if len(agg.examples) < examples or (matches is False and len(agg.examples) < 2 * examples):
            values = [None if stored is None else plain(stored[0]) for stored in (was, now)]
            shown = (kind, *key, *values, *where[1:4], "old" if now is None else "new", matches)
            agg.examples.append(dict(zip(AGGREGATE, shown, strict=True)))


def _measure(questions: list[QuestionDiff], views: tuple[Judgments, Judgments], m: Matcher, asked: Asked) -> None:
    """The statistics of each question that changed, in both versions (with stats="auto", of
    those where at least MATERIAL of the judgments changed)."""
    measured = []
    for q in questions:
        if q.empty or (q.renamed_from and not q.changed):
            continue
        total = max(m.old.counts.get(q.renamed_from or q.question, 0), m.new.counts.get(q.question, 0), 1)
        share = (q.removed + q.changed + q.added) / total  # of its judgments, touched by the change
        if asked.stats == "auto" and share < MATERIAL:
            q.note = (
                f"statistics not computed again: {share:.2%} of its judgments changed "
                f"(under {MATERIAL:.0%}; --stats always computes them)"
            )
        else:
            measured.append(q)
    if not measured:
        return
    names = {q.question for q in measured} | {q.renamed_from for q in measured if q.renamed_from}
    olds, news = (measure(view, names, asked.samples, asked.seed) for view in views)
    for q in measured:
        q.old, q.new = olds.get(q.renamed_from or q.question), news.get(q.question)
        if q.old is not None and q.new is not None:
            q.tvd = tvd(q.old.distribution, q.new.distribution)
            q.flagged = not overlap(q.old.alpha_ci, q.new.alpha_ci) or not overlap(q.old.ac_ci, q.new.ac_ci)
