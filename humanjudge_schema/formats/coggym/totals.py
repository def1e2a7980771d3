"""Totals over a whole CogGym experiment, computed once for every rule that needs them (the
Experiment's `types`, `response_types` and `ratings`): the query types, what responseType should
list, and the ratings judgment_count counts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .aggregation import META_KEYS
from .answers import ratings_of
from .parts import Records, broken_of

if TYPE_CHECKING:
    from ...readers.jsonfile import JsonDocument, JsonlDocument


class _Placed(Protocol):
    @property
    def sid(self) -> str: ...

    @property
    def tag(self) -> str: ...


class Totalled(Protocol):
    """What of the experiment (model.Experiment) the totals are computed from; a protocol, so
    that this module, which the model imports, imports nothing of it."""

    settings: dict[str, Any]
    trial_records: Records
    module_records: Records
    ind: JsonDocument | None
    ind_data: dict[str, Any]

    @property
    def layouts(self) -> Sequence[_Placed]: ...

    @property
    def trial_doc(self) -> JsonlDocument | None: ...

    @property
    def trials(self) -> dict[str, tuple[int, dict[str, Any]]]: ...

    @property
    def types(self) -> QueryTypes: ...

    def queries(self, trial_id: str) -> dict[str, dict[str, Any]]: ...

    def tags_complete(self, trial_id: str) -> bool: ...


@dataclass
class QueryTypes:
    used: set[str] = field(default_factory=set)  # the type of every readable query, trial or quiz
    collecting: set[str] = field(default_factory=set)  # the types of trial queries that collect responses
    unread: list[str] = field(default_factory=list)  # records holding a query whose type cannot be read


def total_query_types(exp: Totalled) -> QueryTypes:
    out = QueryTypes()
    trials, modules = exp.trial_records, exp.module_records
    out.unread += [f"trial.jsonl line {line}" for line in trials.unread]
    for i, trial in trials.readable:
        queries = trial.get("queries")
        if not isinstance(queries, list):
            if "queries" in broken_of(trial):
                out.unread.append(trials.where(i, "trial.jsonl"))
            continue
        kinds = [q.get("type") if isinstance(q, dict) else None for q in queries]
        if None in kinds:
            out.unread.append(trials.where(i, "trial.jsonl"))
        out.used.update(k for k in kinds if k is not None)
        out.collecting.update(k for k in kinds if k is not None and k != "text-instruction")
    # Quiz questions count as used (they may be listed) but need not be listed.
    out.unread += [f"instruction.jsonl line {line}" for line in modules.unread]
    for i, module in modules.readable:
        kind = module.get("type")
        if kind is None and ("queries" in module or "queries" in broken_of(module)):
            out.unread.append(modules.where(i, "instruction.jsonl"))  # it may be a quiz
        elif kind == "comprehension_quiz":
            queries = module.get("queries")
            kinds = (
                [q.get("type") if isinstance(q, dict) else None for q in queries]
                if isinstance(queries, list)
                else [None]
            )
            if None in kinds:
                out.unread.append(modules.where(i, "instruction.jsonl"))
            out.used.update(k for k in kinds if k is not None)
    return out


@dataclass
class ResponseTypes:
    """config.json's responseType against the query types."""

    unused: list[tuple[int, str]] = field(default_factory=list)  # (position, listed type no query uses)
    missing: list[str] = field(default_factory=list)  # types of collecting queries that are not listed
    undecided: list[str] = field(default_factory=list)  # types either way, had the unread been read
    unread: list[str] = field(default_factory=list)  # what could not be read


def total_response_types(exp: Totalled) -> ResponseTypes:
    out = ResponseTypes()
    stated = exp.settings.get("responseType")
    if exp.trial_doc is None or not isinstance(stated, list):
        return out
    types = exp.types
    for k, kind in enumerate(stated):
        if isinstance(kind, str) and kind not in types.used:
            if types.unread:  # an unread query may be of that type
                out.undecided.append(kind)
            else:
                out.unused.append((k, kind))
    out.unread = [f"the queries of {where}" for where in types.unread]
    out.missing = sorted(types.collecting - {k for k in stated if isinstance(k, str)})
    if not all(isinstance(k, str) for k in stated):  # a broken entry may be the one that lists them
        out.undecided += out.missing
        out.missing = []
        out.unread.append("an entry of responseType")
    return out


@dataclass
class Ratings:
    """The individual ratings of the ind file, counted as judgment_count counts them."""

    tags: int = 0  # in the arrays of query tags: judgment_count's definition
    others: int = 0  # elements of the arrays under keys that are no tag (or of no trial)
    unread: list[str] = field(default_factory=list)  # parts whose count cannot be known


def total_ratings(exp: Totalled) -> Ratings:
    out = Ratings()
    if exp.ind is None:
        return out
    # a multi-slider stored as one object per participant: one rating per label of each object
    layouts = {(layout.sid, layout.tag) for layout in exp.layouts}
    for sid, stimulus in exp.ind.data.items():
        if sid in META_KEYS:
            continue
        if not isinstance(stimulus, dict) or (sid not in exp.trials and not exp.trial_records.ids_complete):
            out.unread.append(f"stimulus {sid!r}")  # or the trial whose id is unreadable
            continue
        if sid not in exp.trials:
            out.others += sum(len(v) for v in stimulus.values() if isinstance(v, list))
            continue
        queries, complete = exp.queries(sid), exp.tags_complete(sid)
        intact = exp.ind_data.get(sid)
        for tag, responses in stimulus.items():
            q = queries.get(tag)
            if q is None:
                if not complete:  # it may be the tag of a query whose tag is unreadable
                    out.unread.append(f"{sid}/{tag}")
                elif isinstance(responses, list):
                    out.others += len(responses)
            elif (sid, tag) in layouts:
                out.tags += sum(map(len, responses))
            elif (n := ratings_of(q, responses, tag in broken_of(intact))) is None:
                out.unread.append(f"{sid}/{tag}")
            else:
                out.tags += n
    return out
