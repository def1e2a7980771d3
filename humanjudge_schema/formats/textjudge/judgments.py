"""The judgments of a TextJudge dataset: one row per individual score, and one per stored
aggregate (`mean_human`, `majority_human`: role "aggregate", no rater).

item = the instance's id, rater = the score's position in `individual_human_scores` (the format
names no annotators: a rater is a position within one instance, never the same person across
instances), question = the metric, option empty. A large file is read a run of instances at a
time, as the check reads it, so memory stays bounded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from itertools import repeat
from pathlib import Path
from typing import Any

from ...config import discover
from ...engine import Context
from ...finding import escape_token
from ...judgments.view import (
    Batch,
    ByItem,
    FirstPass,
    ItemRun,
    JudgmentCounts,
    Judgments,
    Level,
    Needs,
    Question,
    positions,
    tally_of,
)
from ...kinds import Unit
from ...readers.files import display_path, read_bytes
from ...readers.jsonfile import JsonDocument, document
from . import stream
from .check import opened
from .flatten import AGGREGATES, SCALARS, by_metric, flatten
from .flatten import tally as flatten_tally

# The measurement level each category implies for agreement.
LEVELS: dict[str, Level] = {"categorical": "nominal", "graded": "ordinal", "continuous": "interval"}


def judgments(unit: Unit) -> Judgments:
    path = unit.files[0]
    limit = discover(unit.root).max_document_bytes  # the file is read as validate reads it
    seen = _Seen()
    # the file opened once for its declarations and the first pass over its judgments, whose
    # needs are known when that pass begins (late: `passes` is bound below)
    found = _opened(path, limit, seen, lambda: passes.needs)
    top, runs = found if found is not None else (None, iter(()))
    passes = _passes(top, runs, path, limit, seen)
    return _view(unit, _declared(top), passes, seen.why)


def checked(unit: Unit, ctx: Context) -> Judgments:
    """The dataset checked into ctx and its judgments, in one reading: the view's first pass
    over its batches (or its items) reads the runs the check reads, as the check goes
    (check.opened)."""
    path = unit.files[0]
    seen = _Seen()
    top, runs = opened(path, ctx)  # runs hold instances only where top is an object
    seen.unread = None if isinstance(top, dict) else _NOT_AN_OBJECT
    passes = _passes(top, runs, path, ctx.config.max_document_bytes, seen)
    # a file that is not JSON: why, in the words of a reading of it, only when it is asked
    why = seen.why if top is not None else partial(_unread, path, ctx.config.max_document_bytes)
    return _view(unit, _declared(top), passes, why)


def _passes(top: Any, runs: Iterator[tuple[list[Any], int]], path: Path, limit: int, seen: _Seen) -> FirstPass:
    """The passes over the file's runs of instances: the first reads `runs`, a later one reads
    the file anew; each gives batches, or items (`_by_item`)."""
    if not isinstance(top, dict):
        runs = iter(())  # a later reading finds why there are none (seen)

    def again(needs: Needs) -> Iterator[tuple[list[Any], int]]:
        found = _opened(path, limit, seen, lambda: needs)
        return iter(()) if found is None else found[1]

    return FirstPass(runs, again, partial(_batches_of, top, path=path, seen=seen))


def _view(
    unit: Unit,
    questions: dict[str, Question],
    passes: FirstPass,
    why: Callable[[], str | None],
) -> Judgments:
    # A score's position in individual_human_scores names no annotator: raters are not compared.
    return Judgments(
        "textjudge",
        display_path(unit.root),
        questions=questions,
        raters="position",
        batches=passes,
        none=why,
        items=partial(_by_item, passes, unit.files[0]),
    )


def _unread(path: Path, limit: int) -> str:
    """Why a file that is not JSON gives no judgment (the check reported what it is)."""
    seen = _Seen()
    _opened(path, limit, seen)
    return seen.unread or "the file cannot be read"


class _Seen:
    """What the last pass over a file that gave no score met on its way: why it gave none."""

    def __init__(self) -> None:
        self.unread: str | None = "the file was not read"
        self.instances: int | None = None  # None: no instances array
        self.aggregates: set[str] = set()
        self.unscored = False  # a list of individual scores none of which is a score

    def why(self) -> str | None:
        if self.unread is not None:
            return self.unread
        if self.instances is None:
            return "no instances array (humanjudge validate lists the schema errors)"
        if not self.instances:
            return "no instances"
        if self.unscored:
            return "every individual score is an object or an array (humanjudge validate lists the schema errors)"
        if self.aggregates:
            return f"only aggregates stored ({', '.join(sorted(self.aggregates))}) and no individual scores"
        return "no instance holds individual_human_scores"


_NOT_AN_OBJECT = "its top level is not an object (humanjudge validate lists the schema errors)"


def _opened(
    path: Path, limit: int, seen: _Seen | None = None, needs: Callable[[], Needs] | None = None
) -> tuple[dict[str, Any], Iterator[tuple[list[Any], int]]] | None:
    """The top-level object and its runs of instances, or None when the file cannot be read
    (`seen` says why). A run the instances' schema refuses is read again with the whole file,
    whose rows are the same but come in another order (each run's stored aggregates after its
    own scores, the whole file's after all of them): so for a pass that needs the file's order
    (`needs()`, asked as the runs are read), not for one that takes each question's rows apart."""
    seen = seen or _Seen()
    raw = read_bytes(path, limit)
    if not isinstance(raw, bytes):
        seen.unread = f"the file cannot be read: {raw.message}"
        return None
    if len(raw) >= stream.STREAM_FROM:
        try:
            ordered = (lambda: needs().order) if needs is not None else None
            doc, runs = stream.open_in_runs(path, raw, checked=ordered)
            seen.unread = None
            return doc.data, _guarded(runs, path, raw)
        except stream.GiveUp:
            pass
    whole, problems = document(path, raw)
    if not isinstance(whole, JsonDocument):
        n = len(problems)
        seen.unread = f"the file is not JSON ({n} error{'' if n == 1 else 's'}; humanjudge validate lists them)"
        return None
    if not isinstance(whole.data, dict):
        seen.unread = _NOT_AN_OBJECT
        return None
    seen.unread = None
    instances = whole.data.get("instances")
    return whole.data, iter([(instances if isinstance(instances, list) else [], 0)])


def _guarded(runs: Iterator[tuple[list[Any], int]], path: Path, raw: bytes) -> Iterator[tuple[list[Any], int]]:
    """The runs, until one does not parse: then the whole file, from the instance after the last
    one given (the whole path reads what the runs could not)."""
    done = 0
    try:
        for instances, offset in runs:
            yield instances, offset
            done = offset + len(instances)
    except stream.GiveUp:
        doc, _ = document(path, raw)
        if isinstance(doc, JsonDocument) and isinstance(doc.data, dict) and isinstance(doc.data.get("instances"), list):
            yield doc.data["instances"][done:], done


def _declared(data: Any) -> dict[str, Question]:
    """The metrics the top-level object declares."""
    if not isinstance(data, dict):
        return {}
    out: dict[str, Question] = {}
    for decl in data.get("annotations") or ():
        if isinstance(decl, dict) and isinstance(decl.get("metric"), str):
            out.setdefault(decl["metric"], _question(decl))
    return out


def _points(decl: dict[str, Any], level: Level | None) -> tuple[Any, ...] | None:
    """The points a metric declares, worst to best, where it declares them: its labels_list
    (labels), or the integers from worst to best of a graded scale (at most 101 of them), so that
    a point nobody chose is still shown (the report)."""
    labels = decl.get("labels_list")
    if level == "nominal" and isinstance(labels, list) and labels and all(isinstance(x, str) for x in labels):
        return tuple(labels)
    worst, best = decl.get("worst"), decl.get("best")
    if level == "ordinal" and type(worst) is int and type(best) is int and abs(best - worst) <= 100:
        return tuple(range(min(worst, best), max(worst, best) + 1))
    return None


def _question(decl: dict[str, Any]) -> Question:
    """A metric's question: its level from its category, or, where it declares none, from what
    its declaration shows, with a note saying so (agreement at a level the file does not state)."""
    name = decl["metric"]
    level = LEVELS.get(decl.get("category"))  # type: ignore[arg-type]
    if level is not None or decl.get("category") is not None:
        return Question(name, level, _points(decl, level))
    worst, best = decl.get("worst"), decl.get("best")
    scale: list[float] = [x for x in (worst, best) if isinstance(x, (int, float)) and not isinstance(x, bool)]
    said = "no category declared"
    if isinstance(decl.get("labels_list"), list) and decl["labels_list"]:
        return Question(name, "nominal", _points(decl, "nominal"), level_note=f"{said}: nominal, from its labels_list")
    if len(scale) == 2 and all(isinstance(x, int) for x in scale):  # 1 to 6; 0.0 to 1.0 is continuous
        note = f"{said}: ordinal, from its integer scale {worst} to {best}"
        return Question(name, "ordinal", _points(decl, "ordinal"), level_note=note)
    if len(scale) == 2:
        return Question(name, "interval", level_note=f"{said}: interval, from its scale {worst} to {best}")
    return Question(name, None, level_note=f"{said}, and no scale or labels to tell its level from")


def _sames(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """What every individual judgment, and every aggregate, of the file shares."""
    dataset = file = display_path(path)
    same = {"format": "textjudge", "dataset": dataset, "option": "", "file": file, "line": None}
    individual = same | {"role": "individual", "rater_kind": "position"}
    aggregate = same | {"role": "aggregate", "rater_kind": "none", "rater": ""}
    return individual, aggregate


def _batches_of(
    top: Any, runs: Iterator[tuple[list[Any], int]], needs: Needs, *, path: Path, seen: _Seen
) -> Iterator[Batch]:
    """One batch per run of the file's instances (`_run_batches`), and its aggregates'. What a
    file without scores holds instead is noted in `seen`."""
    seen.instances = 0 if isinstance(top, dict) and isinstance(top.get("instances"), list) else None
    seen.aggregates, seen.unscored = set(), False
    sames = _sames(path)
    for instances, offset in runs:
        if seen.instances is not None:
            seen.instances += len(instances)
        yield from _run_batches(instances, offset, sames, seen, needs)


def _by_item(passes: FirstPass, path: Path, needs: Needs) -> ByItem:
    """The view's items: each run of instances, an instance an item (`_item_of`), compared
    whole. (What a file without scores holds instead is noted by a pass over its batches only:
    it is asked after a pass that gave no row.)"""
    return ByItem(_item_runs(passes.source(needs), path, needs))


def _item_runs(runs: Iterator[tuple[list[Any], int]], path: Path, needs: Needs) -> Iterator[ItemRun]:
    sames = _sames(path)
    for instances, offset in runs:
        items = list(map(_item_of, instances))

        def rows(start: int, stop: int, instances: list[Any] = instances, offset: int = offset) -> Iterator[Batch]:
            return _run_batches(instances[start:stop], offset + start, sames, _Seen(), needs)

        def tally(start: int, stop: int, instances: list[Any] = instances) -> JudgmentCounts:
            part = instances[start:stop]
            quick = flatten_tally(part)
            return quick if quick is not None else tally_of(_run_batches(part, 0, sames, _Seen(), needs))

        yield ItemRun(items, instances, rows, tally)


def _item_of(inst: Any) -> str | int:
    """An instance's item: its id, where it is a string or an integer, else ""."""
    ident = inst.get("id") if isinstance(inst, dict) else None
    return ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else ""


def _run_batches(
    instances: list[Any],
    offset: int,
    sames: tuple[dict[str, Any], dict[str, Any]],
    seen: _Seen,
    needs: Needs,
) -> Iterator[Batch]:
    """The batches of a run of instances, the first at `offset` in the file: each list of scores
    becomes its rows in C-level extends; the individual judgments without their pointers where the
    pass does not need them, and a batch per metric where it needs neither pointers nor the
    file's order across questions (`view.Needs`)."""
    same_individual, same_aggregate = sames
    pointers = needs.pointer
    unplaced = same_individual if pointers else same_individual | {"pointer": ""}
    grouping = not pointers and not needs.order
    grouped = by_metric(instances) if grouping else None
    if grouped is not None:  # a pass that takes each question's rows apart: a batch per metric
        for metric, columns in grouped[0]:
            yield Batch(unplaced | {"question": metric}, columns)
        if grouped[1]:
            yield Batch(same_aggregate | {"pointer": ""}, grouped[1])
        return
    flat = flatten(instances, offset, pointers)  # the usual shape, in C-level passes
    if flat is not None:
        if flat[0]:
            yield Batch(unplaced, flat[0])
        if flat[1]:
            yield Batch(same_aggregate, flat[1])
        return
    items: list[Any] = []
    raters: list[int] = []
    metrics: list[str] = []
    values: list[Any] = []
    located: list[str] = []
    stored: dict[str, list[Any]] = {"item": [], "question": [], "value": [], "pointer": []}
    for i, inst in enumerate(instances, offset):
        if not isinstance(inst, dict) or not isinstance(inst.get("annotations"), dict):
            continue
        item = _item_of(inst)
        for metric, scores in inst["annotations"].items():
            if isinstance(scores, dict) and (held := [a for a in AGGREGATES if a in scores]):
                _aggregates(stored, item, i, metric, scores, held)
            listed = scores.get("individual_human_scores") if isinstance(scores, dict) else None
            if not isinstance(listed, list) or not listed:
                if isinstance(scores, dict):  # why there may be no scores: said only if none
                    seen.aggregates.update(a for a in AGGREGATES if a in scores)
                continue
            n = len(listed)
            places: Any = range(n)
            texts: Any = positions(n)
            if not SCALARS.issuperset(map(type, listed)):  # not a score: the schema reports it
                places = [j for j, x in enumerate(listed) if not isinstance(x, (dict, list))]
                listed = [listed[j] for j in places]
                texts, n = map(str, places), len(places)
                seen.unscored |= not n
            base = f"/instances/{i}/annotations/{escape_token(metric)}/individual_human_scores/"
            items.extend(repeat(item, n))
            raters.extend(places)
            metrics.extend(repeat(metric, n))
            values.extend(listed)
            if pointers:
                located.extend(map(base.__add__, texts))
    if values:
        lists = {"item": items, "rater": raters, "question": metrics, "value": values}
        yield Batch(unplaced, lists | {"pointer": located} if pointers else lists)
    if stored["value"] and grouping:  # as by_metric gives them: without pointers
        del stored["pointer"]
        yield Batch(same_aggregate | {"pointer": ""}, stored)
    elif stored["value"]:
        yield Batch(same_aggregate, stored)


def _aggregates(
    stored: dict[str, list[Any]], item: Any, i: int, metric: str, scores: dict[str, Any], held: list[str]
) -> None:
    """The aggregate rows of one score object: each stored aggregate that is a value (an object
    or an array there is a schema error, not a value)."""
    base = f"/instances/{i}/annotations/{escape_token(metric)}/"
    for name in held:
        value = scores[name]
        if type(value) in SCALARS:
            stored["item"].append(item)
            stored["question"].append(metric)
            stored["value"].append(value)
            stored["pointer"].append(base + name)
