"""The judgments of a CogGym experiment: one row per individual rating, exactly as
`judgment_count` counts them (answers.ratings_of): one per answer (null "I don't know"
answers included, as None), one per click when num_clicks > 1, one per multi-select row, one per
label value of a multi-slider.

item = the stimulus id, rater = the participant's position in the response array (for a
multi-slider, in the label's array): a person across the experiment where every array holds
`participants_info.count` answers (position k is then the same participant everywhere), else a
position within one array only. question = the query tag, option = the click number (1-based)
or the multi-slider label.

The values of human_data_mean.json are aggregate rows (no rater), after the individual ones: a
tag's mean with option empty, an option's proportion or mean (`tag_K`) with option K (1-based,
as the key has it). A multi-choice answer's value is its option index (0-based `idx`, as
stored); a multi-select row's is the row; a ranking's is the option indices from first to last.
Only what the model reads as intact is exported, through the same loader the check uses.

Those three store places in the query's option list, so the same stored numbers under reordered
options are other answers. A pass that reads without "positions" (`view.Needs`: the diff)
gets each of them as the options it names (diff.model.Named: a choice's text, a ranking's texts
from first to last, the texts a row selects), where the options are distinct texts and the answer
names only options of the list; any other answer as stored, to be compared by place.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from itertools import chain, repeat
from pathlib import Path
from typing import Any

from ...config import discover
from ...engine import Context
from ...finding import escape_token, pointer
from ...judgments.view import (
    EVERY,
    Batch,
    ByItem,
    Column,
    Counting,
    ItemRun,
    JudgmentCounts,
    Judgments,
    Level,
    Needs,
    Parts,
    Question,
    RaterKind,
    positions,
)
from ...kinds import Unit
from ...readers.files import display_path
from .aggregation import META_KEYS, choices
from .answers import ratings_of
from .model import Experiment, load_experiment
from .parts import broken_of, clicks_of

# The measurement level each query type implies for agreement; None: no level (free text, and
# rankings taken whole).
LEVELS: dict[str, Level | None] = {
    "single-slider": "interval",
    "multi-slider": "interval",
    "multi-choice": "nominal",
    "multi-select": None,  # a row is not compared whole: each option is a yes/no question (PARTS)
    "ranking": None,
    "textbox": None,
}
# The query types whose answers are made of parts that are judgments of their own (view.Parts).
PARTS: dict[str, Parts] = {"multi-select": "select", "ranking": "rank", "multi-slider": "label"}


IND, TRIALS = "human_data_ind.json", "trial.jsonl"
_BATCH = 8192


def judgments(unit: Unit) -> Judgments:
    ctx = Context(discover(unit.root), root=unit.root)
    return _view(unit, load_experiment(unit, ctx), ctx)  # read as validate reads it


def checked(unit: Unit, ctx: Context) -> Judgments:
    """The experiment checked into ctx and its judgments, read from the model the check built."""
    from .check import checked as check

    return _view(unit, check(unit, ctx), ctx)


def _view(unit: Unit, exp: Experiment, ctx: Context) -> Judgments:
    questions = _questions(exp)
    kind: RaterKind = "person" if _everyone(exp) else "position"
    return Judgments(
        "coggym",
        display_path(unit.root),
        questions=questions,
        raters=kind,
        batches=lambda needs: _all_batches(exp, kind, needs),
        none=lambda: _why_none(unit, exp, ctx),
        items=lambda needs: ByItem(_item_runs(exp, kind, needs), _mean_batches(exp)),
    )


def _questions(exp: Experiment) -> dict[str, Question]:
    """Each tag's question, as its first trial declares it; a multi-select's or a ranking's
    options name its parts where every trial of the tag lists the same ones, and a multi-choice's
    indices are its points where every trial of the tag has as many options."""
    questions: dict[str, Question] = {}
    labels: dict[str, tuple[str, ...] | None] = {}
    counts: dict[str, int | None] = {}
    for _, (_, record) in exp.trials.items():
        for q in record.get("queries") or ():
            if not (isinstance(q, dict) and isinstance(q.get("tag"), str) and q.get("type") in LEVELS):
                continue
            tag = q["tag"]
            questions.setdefault(tag, Question(tag, LEVELS[q["type"]], parts=PARTS.get(q["type"])))
            options = q.get("option")
            named = tuple(options) if isinstance(options, list) and all(isinstance(o, str) for o in options) else None
            labels[tag] = named if labels.setdefault(tag, named) == named else None
            count = len(options) if isinstance(options, list) else None
            counts[tag] = count if counts.setdefault(tag, count) == count else None
    for tag, q in questions.items():
        if q.parts in ("select", "rank") and labels.get(tag):
            questions[tag] = replace(q, labels=labels[tag])
        elif q.level == "nominal" and counts.get(tag):
            # a multi-choice answer is an option's index: every index is a choice the raters had
            questions[tag] = replace(q, order=tuple(range(counts[tag] or 0)))
    return questions


def _why_none(unit: Unit, exp: Experiment, ctx: Context) -> str:
    """Why the experiment gave no row, from what loading it found (only asked when it gave none)."""
    if unit.file(IND) is None:
        others = ", ".join(sorted(f.name for f in unit.files))
        return f"no individual data file {IND}" + (f" (only {others})" if others else "")
    if exp.ind is None:
        return _unread(IND, ctx)
    if exp.trial_doc is None or not exp.trials:
        trials = "no trial.jsonl" if unit.file(TRIALS) is None else _unread(TRIALS, ctx)
        return f"{trials}: no response can be placed under a question"
    arrays = [
        (sid, tag)
        for sid, stimulus in exp.ind.data.items()
        if sid not in META_KEYS and isinstance(stimulus, dict)
        for tag in stimulus
    ]
    if not arrays:
        return f"{IND} holds no response array"
    if not any(tag in exp.queries(sid) for sid, tag in arrays):
        return (
            f"none of the {len(arrays)} response arrays of {IND} is under a tag of its trial in {TRIALS} "
            "(humanjudge validate lists them: coggym/unknown-stimulus, coggym/unknown-tag)"
        )
    if _errors(IND, ctx, "schema/"):
        return _unread(IND, ctx)
    return f"every response array of {IND} under a tag of its trial is empty"


def _errors(name: str, ctx: Context, prefix: str) -> int:
    return sum(f.count for f in ctx.findings() if Path(f.file).name == name and f.code.startswith(prefix))


def _unread(name: str, ctx: Context) -> str:
    """What kept a file of the experiment from being read: its parse errors, else its schema's."""
    for prefix, what in (("parse/", "cannot be read"), ("schema/", "breaks its schema")):
        if n := _errors(name, ctx, prefix):
            return f"{name} {what} ({n} error{'' if n == 1 else 's'}; humanjudge validate lists them)"
    return f"{name} cannot be read (humanjudge validate says why)"


def _everyone(exp: Experiment) -> bool:
    """Whether every response array holds every participant, in which case a position is the
    same participant in every array (else participants saw subsets, and positions name no one)."""
    count = exp.ind_data.get("participants_info", {}).get("count") if isinstance(exp.ind_data, dict) else None
    if not isinstance(count, int):
        return False
    for _, _, q, responses in exp.response_lists():
        if q["type"] == "multi-slider":  # one object: an array per label
            arrays = [v for r in responses if isinstance(r, dict) for v in r.values()]
            if not all(isinstance(v, list) and len(v) == count for v in arrays):
                return False
        elif len(responses) != count:
            return False
    return True


def _all_batches(exp: Experiment, kind: str, needs: Needs) -> Iterator[Batch]:
    yield from _batches(exp, kind, _stimuli(exp), needs)
    yield from _mean_batches(exp, needs)


def _stimuli(exp: Experiment) -> list[str]:
    """The stimuli of human_data_ind.json that have rows: under a trial of trial.jsonl."""
    if exp.ind is None:
        return []
    trials = exp.trials
    return [
        sid
        for sid, stimulus in exp.ind.data.items()
        if sid not in META_KEYS and isinstance(stimulus, dict) and sid in trials
    ]


_RUN = 256  # stimuli compared at a time (diff)


def _item_runs(exp: Experiment, kind: str, needs: Needs) -> Iterator[ItemRun]:
    """The view's items: a stimulus an item, compared as its answers, the queries of its trial
    and the answers that broke their schema (what its rows are made from)."""
    sids = _stimuli(exp)
    for start in range(0, len(sids), _RUN):
        run = sids[start : start + _RUN]
        content = [_content(exp, sid) for sid in run]

        def rows(a: int, b: int, run: list[str] = run) -> Iterator[Batch]:
            return _batches(exp, kind, run[a:b], needs)

        def tally(a: int, b: int, run: list[str] = run) -> JudgmentCounts:
            return _tally(exp, run[a:b])

        yield ItemRun(run, content, rows, tally)


def _content(exp: Experiment, sid: str) -> tuple[Any, ...]:
    assert exp.ind is not None
    broken = broken_of(exp.ind_data.get(sid))
    return exp.ind.data[sid], exp.queries(sid), sorted(broken) if broken else None


def _tally(exp: Experiment, sids: list[str]) -> JudgmentCounts:
    """What the rows of these stimuli add up to (view.JudgmentCounts), from their arrays' lengths: as
    many rows as judgment_count counts (ratings_of), and a rater per position of the longest
    array under the tag (for a multi-slider, the longest of its labels' arrays)."""
    assert exp.ind is not None
    counts: dict[str, int] = {}
    widest: dict[str, int] = {}
    for sid in sids:
        queries, intact = exp.queries(sid), exp.ind_data.get(sid)
        for tag, responses in exp.ind.data[sid].items():
            q = queries.get(tag)
            if q is None or not (n := ratings_of(q, responses, tag in broken_of(intact))):
                continue
            if q["type"] == "multi-slider":
                lists = [v for r in responses if isinstance(r, dict) for v in r.values() if isinstance(v, list)]
                width = max(map(len, lists))
            else:
                width = len(responses)
            counts[tag] = counts.get(tag, 0) + n
            widest[tag] = max(widest.get(tag, 0), width)
    return JudgmentCounts(counts, {(tag, r) for tag, n in widest.items() for r in range(n)})


def _mean_batches(exp: Experiment, needs: Needs = EVERY) -> Iterator[Batch]:
    """The stored aggregates of human_data_mean.json, under the stimuli and tags of the trials;
    each pointer "" where the pass needs none (`_batches`)."""
    if exp.mean is None or not isinstance(exp.mean.data, dict):
        return
    same: dict[str, Any] = {
        "format": "coggym",
        "dataset": display_path(exp.folder),
        "file": display_path(exp.mean.path),
    }
    same |= {"line": None, "role": "aggregate", "rater": "", "rater_kind": "none"}
    located = needs.pointer
    names: tuple[str, ...] = ("item", "question", "option", "value", "pointer")
    if not located:
        same["pointer"], names = "", names[:-1]
    lists: dict[str, list[Any]] = {name: [] for name in names}
    for sid, stimulus in exp.mean.data.items():
        if sid in META_KEYS or not isinstance(stimulus, dict) or sid not in exp.trials:
            continue
        queries = exp.queries(sid)
        for tag, stored in stimulus.items():
            if tag not in queries:
                continue
            parts = stored.items() if isinstance(stored, dict) else [("", stored)]
            for key, value in parts:
                if not (value is None or type(value) in (int, float)):
                    continue  # not a mean or a proportion: the schema reports it
                prefix = f"{tag}_"
                option: str | int = key
                if key.startswith(prefix) and key[len(prefix) :].isdigit():
                    option = int(key[len(prefix) :])
                cells = (
                    (sid, tag, option, value, pointer(sid, tag, *([key] if key else [])))
                    if located
                    else (sid, tag, option, value)
                )
                for name, cell in zip(names, cells, strict=True):
                    lists[name].append(cell)
    if lists["value"]:
        yield Batch(same, lists)


def _batches(exp: Experiment, kind: str, sids: list[str], needs: Needs = EVERY) -> Iterator[Batch]:
    """The individual rows of these stimuli (`_stimuli`), a batch of about _BATCH rows at a time;
    where the pass needs no pointers (`view.Needs`) each is "" (a string per row is most of the
    view's time)."""
    if exp.ind is None:
        return
    shared: dict[str, Any] = {"format": "coggym", "dataset": display_path(exp.folder)}
    shared |= {"file": display_path(exp.ind.path), "line": None, "role": "individual", "rater_kind": kind}
    names = ("item", "rater", "question", "option", "value")

    def begun() -> tuple[dict[str, Any], dict[str, list[Any]], list[int] | None]:
        # "rater" holds the parts of raters until the batch is done (`done`); while every part
        # counts from 0 (a participant's place; a click slider's do not), their lengths too
        if needs.pointer:
            return shared, {name: [] for name in (*names, "pointer")}, []
        return shared | {"pointer": ""}, {name: [] for name in names}, []

    def adders(lists: dict[str, list[Any]]) -> tuple[Any, ...]:
        located = lists["pointer"].extend if "pointer" in lists else None
        return (*(lists[name].append if name == "rater" else lists[name].extend for name in names), located)

    def done(lists: dict[str, list[Any]], counted: list[int] | None) -> dict[str, list[Any] | Column]:
        parts = lists["rater"]
        return {**lists, "rater": list(chain.from_iterable(parts)) if counted is None else Counting(counted)}

    same, lists, counted = begun()
    items, raters, tags, options, values, located = adders(lists)
    for sid in sids:
        queries, intact = exp.queries(sid), exp.ind_data.get(sid)
        named = not needs.positions
        for tag, responses in exp.ind.data[sid].items():
            q = queries.get(tag)
            if q is None or ratings_of(q, responses, tag in broken_of(intact)) is None:
                continue
            base = pointer(sid, tag) + "/"
            for option, who, answers, paths in _ratings(q, responses, named):
                n = len(answers)
                items(repeat(sid, n))
                raters(who)
                if counted is not None:
                    if type(who) is range and who.start == 0:
                        counted.append(n)
                    else:
                        counted = None
                tags(repeat(tag, n))
                options(repeat(option, n))
                values(answers)
                if located is not None:
                    located(map(base.__add__, paths))
            if len(lists["value"]) >= _BATCH:
                yield Batch(same, done(lists, counted))
                same, lists, counted = begun()
                items, raters, tags, options, values, located = adders(lists)
    if lists["value"]:
        yield Batch(same, done(lists, counted))


def _ratings(q: dict[str, Any], responses: list[Any], named: bool) -> Iterator[tuple[str | int, Any, list[Any], Any]]:
    """(option, raters, values, paths below the tag) of one tag's ratings, by option: a list of
    values at a time, so that the rows are made in C; with `named`, answers that store places in
    the options as the options they name (`_named`)."""
    kind = q["type"]
    if kind == "multi-slider":
        for o, answer in enumerate(responses):
            if isinstance(answer, dict):
                for label, values in answer.items():
                    if isinstance(values, list):
                        where = f"{o}/{escape_token(label)}/"
                        yield label, range(len(values)), values, map(where.__add__, positions(len(values)))
        return
    if kind == "single-slider" and (clicks_of(q) or 1) > 1 and list in set(map(type, responses)):
        for j, answer in enumerate(responses):
            if isinstance(answer, list):
                yield from ((k + 1, [j], [v], [f"{j}/{k}"]) for k, v in enumerate(answer))
            else:
                yield "", [j], [answer], [str(j)]
        return
    if kind == "multi-choice":
        values = choices(responses)
    elif kind == "ranking":
        values = list(map(_ranked, responses))
    else:
        values = responses
    if named and kind in _PLACES:
        values = _named(kind, q.get("option"), values)
    yield "", range(len(values)), values, positions(len(values))


_PLACES = ("multi-choice", "multi-select", "ranking")  # answers that store places in the options


def _named(kind: str, listed: Any, values: list[Any]) -> list[Any]:
    """Answers (as the view gives them) that store places in the options, as the options they
    name; where the options are not distinct texts, or an answer names a place outside them (or
    a multi-select row is not one 0 or 1 per option), as stored."""
    from ...diff.model import Named

    if not (isinstance(listed, list) and set(map(type, listed)) <= {str} and len(set(listed)) == len(listed)):
        return values
    options = tuple(listed)
    n = len(options)
    out: list[Any] = []
    for value in values:
        if kind == "multi-choice":
            ok = type(value) is int and 0 <= value < n
            out.append(Named(value, options[value], options) if ok else value)
        elif kind == "ranking":
            ok = type(value) is list and all(type(i) is int and 0 <= i < n for i in value)
            names = [options[i] for i in value] if ok else []
            out.append(Named(value, names, options, tuple(names)) if ok else value)
        else:  # multi-select: the options checked, in the list's order; compared as a set
            ok = type(value) is list and len(value) == n and set(map(type, value)) <= {int} and set(value) <= {0, 1}
            names = [o for o, checked in zip(options, value, strict=True) if checked] if ok else []
            out.append(Named(value, names, options, frozenset(names)) if ok else value)
    return out


def _ranked(answer: Any) -> list[int] | None:
    """The option indices of a ranking from first to last, or None when it cannot be read."""
    if not isinstance(answer, list):
        return None
    try:
        return [item["idx"] for item in sorted(answer, key=lambda item: item["rank"])]
    except (TypeError, KeyError):
        return None
