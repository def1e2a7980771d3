"""CogGym experiments: a folder of config.json, trial.jsonl, instruction.jsonl,
human_data_ind.json and human_data_mean.json.

Each document (each record of a JSON Lines file) is checked against its schema, then read into
the model part by part: where a schema error lies, the object holding it is replaced by a `Part`
that keeps every member that is intact, so a trial whose `option` is misspelt still has its id,
its stimuli, its other queries and the tag of that query. Rules read only what the model hands
them and skip a part that is absent or broken: the schema error is the one finding of its
cause, and no other finding is lost to it. Rules yield (document, pointer, message); the engine
does the rest.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import Any

import orjson

from ...engine import Context, Hit, schema_errors
from ...finding import escape_token, pointer
from ...kinds import Unit
from ...numbers import fmt_number as _fmt
from ...numbers import same_value
from ...readers.jsonfile import BROKEN, JsonDocument, JsonlDocument, load
from ...registry import rule, rules_of
from .aggregate import META_KEYS, aggregate_tag, choice_counts, choice_index, option_key

SCHEMA = "coggym/v1/"
# Query types whose mean a mean file must hold; the others' aggregates are optional.
_MEAN_REQUIRED = frozenset({"single-slider", "multi-choice", "multi-slider"})
_URL_PREFIXES = ("http://", "https://", "data:", "//")


# --- the model: what is intact of each document ---------------------------------------------


class Part(dict[str, Any]):
    """What is intact of an object that failed its schema: the members with no schema error at
    or under them, and what is intact of the containers read piece by piece (queries, stimuli,
    flow blocks, the human data's stimuli). `broken` names every member that has an error at or
    under it and every required member that is absent."""

    __slots__ = ("broken",)

    def __init__(self, members: dict[str, Any], broken: frozenset[str]) -> None:
        super().__init__(members)
        self.broken = broken


_INTACT: frozenset[str] = frozenset()


def _broken(obj: Any) -> frozenset[str]:
    return obj.broken if isinstance(obj, Part) else _INTACT


def _keys(obj: dict[str, Any]) -> list[str]:
    """Every member name of an object as read, intact or not (broken scalars are left out of a
    Part's members but are still keys of the object)."""
    broken = _broken(obj)
    return list(obj) + [k for k in broken if k not in obj] if broken else list(obj)


_REQUIRED = re.compile(r'(".*") is a required property')


@dataclass
class _Damage:
    """Where a value's schema errors lie: every pointer at or above an error, the values that
    are themselves wrong (an error at their own pointer other than a missing member: the wrong
    type, too few items), and the required members absent from each object."""

    under: set[str] = field(default_factory=set)
    wrong: set[str] = field(default_factory=set)
    # the messages of the required errors of each object, read only for the objects kept
    required: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, errors: list[tuple[str, str, str]]) -> _Damage:
        under: set[str] = set()
        wrong: set[str] = set()
        required: dict[str, list[str]] = {}
        for code, ptr, message in errors:  # a file broken everywhere has millions: kept lean
            if code == "schema/required":
                required.setdefault(ptr, []).append(message)
            else:
                wrong.add(ptr)
            while ptr not in under:
                under.add(ptr)
                if not ptr:
                    break
                ptr = ptr[: ptr.rindex("/")]
        return cls(under, wrong, required)

    def absent(self, ptr: str) -> set[str]:
        """The required members the object at ptr lacks, as the schema's messages name them."""
        names = set()
        for message in self.required.get(ptr, ()):
            if m := _REQUIRED.fullmatch(message):
                with contextlib.suppress(orjson.JSONDecodeError):
                    names.add(orjson.loads(m.group(1)))
        return names


Cleaner = Callable[[Any, str, _Damage], Any]


def _part(
    value: Any, ptr: str, damage: _Damage, keep: dict[str, Cleaner] | None = None, other: Cleaner | None = None
) -> Any:
    """`value` itself when no error lies at or under it; else, for an object whose errors lie
    in its members (or are members it lacks), a Part of its intact members plus what `keep` (by
    name) or `other` (any other name) keeps of the broken ones; else None."""
    if ptr not in damage.under:
        return value
    if not isinstance(value, dict) or ptr in damage.wrong:
        return None
    members: dict[str, Any] = {}
    broken = damage.absent(ptr)
    for key, member in value.items():
        at = f"{ptr}/{escape_token(key)}"
        if at not in damage.under:
            members[key] = member
            continue
        broken.add(key)
        clean = keep.get(key, other) if keep else other
        kept = clean(member, at, damage) if clean is not None else None
        if kept is not None:
            members[key] = kept
    return Part(members, frozenset(broken))


def _each(clean: Cleaner) -> Cleaner:
    """A cleaner for a list whose errors lie in its elements: positions are kept, a broken
    element becomes what `clean` keeps of it (None when nothing). A list that is itself wrong
    (too short, not a list) is dropped: its length means nothing."""

    def run(value: Any, ptr: str, damage: _Damage) -> Any:
        if not isinstance(value, list) or ptr in damage.wrong:
            return None
        return [clean(x, f"{ptr}/{i}", damage) for i, x in enumerate(value)]

    return run


def _fields(keep: dict[str, Cleaner] | None = None, other: Cleaner | None = None) -> Cleaner:
    return functools.partial(_part, keep=keep, other=other)


_slider = _fields({"labels": _each(_fields())})
_query = _fields({"slider_config": _slider})
_queries = _each(_query)
_trial = _fields({"stimuli": _each(_fields()), "queries": _queries})
_module = _fields({"queries": _queries})
_ids = _each(_each(_part))  # blocks: lists of ids; a broken id becomes None
_config = _fields(
    {
        "responseType": _each(_part),
        "experimentFlow": _each(_fields({"blocks": _ids, "sequences": _each(_fields({"blocks": _ids}))})),
    }
)
# Human data: a stimulus keeps its intact tags; an ind response array with an error inside is
# left out (rules that only count its elements read it as read, see Experiment.response_lists);
# a mean object keeps its intact option keys.
_metadata: dict[str, Cleaner] = {"participants_info": _fields(), "judgment_count": lambda *_: None}
_ind = _fields(_metadata, other=_fields())
_mean = _fields(_metadata, other=_fields(other=_fields()))


@dataclass
class Records:
    """The records of one JSON Lines file as the model reads them."""

    doc: JsonlDocument | None = None
    # (record index, record) of every record that is an object, with only its intact parts
    readable: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    # id -> (record index, record): the first record of each id that can be read
    by_id: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    # lines whose record did not parse or is not an object
    unread: list[int] = field(default_factory=list)
    # lines of records that can be read but have no readable id
    anonymous: list[int] = field(default_factory=list)

    @property
    def ids_complete(self) -> bool:
        """Every record's id can be read: an id not among them is certainly not in the file."""
        return not self.unread and not self.anonymous


def _load_jsonl(ctx: Context, path: Path | None, schema: str, clean: Cleaner) -> Records:
    out = Records()
    if path is None:
        return out
    doc, problems = load(path, ctx.config.max_document_bytes)
    ctx.problems(path, problems, doc)
    if not isinstance(doc, JsonlDocument):
        return out
    out.doc = doc
    for i, record in enumerate(doc.records):
        if record is not BROKEN:
            errors = schema_errors(schema, record)
            if errors:
                for code, ptr, message in errors:
                    ctx.add(code, doc, f"/{i}{ptr}", message)
                record = clean(record, "", _Damage.of(errors))
        if not isinstance(record, dict):
            out.unread.append(doc.lines[i])
            continue
        out.readable.append((i, record))
        rid = record.get("id")
        if isinstance(rid, str):
            out.by_id.setdefault(rid, (i, record))
        else:
            out.anonymous.append(doc.lines[i])
    return out


def _load_json(ctx: Context, path: Path | None, schema: str, clean: Cleaner) -> tuple[JsonDocument | None, Any]:
    """The document and what is intact of it; (None, {}) when it is absent, does not parse or
    is not an object."""
    if path is None:
        return None, {}
    doc, problems = load(path, ctx.config.max_document_bytes)
    ctx.problems(path, problems, doc)
    if not isinstance(doc, JsonDocument):
        return None, {}
    errors = schema_errors(schema, doc.data)
    for code, ptr, message in errors:
        ctx.add(code, doc, ptr, message)
    data = clean(doc.data, "", _Damage.of(errors)) if errors else doc.data
    if not isinstance(data, dict):
        return None, {}
    return doc, data


@dataclass
class Experiment:
    """One experiment as the rules see it. Documents are kept whenever they parse (findings
    point into them); what rules read is the intact part of each (`settings`, `trials`,
    `ind_data`, ...), never a value that broke its schema."""

    folder: Path
    tolerance: float
    at_most: bool  # response arrays may be shorter than participants_info.count
    config: JsonDocument | None = None
    settings: dict[str, Any] = field(default_factory=dict)  # the intact part of config.json
    trial_records: Records = field(default_factory=Records)
    module_records: Records = field(default_factory=Records)
    ind: JsonDocument | None = None
    ind_data: dict[str, Any] = field(default_factory=dict)
    mean: JsonDocument | None = None
    mean_data: dict[str, Any] = field(default_factory=dict)
    # whether a configuration selects a code: a check that cannot be done is reported only
    # when the check itself was asked for
    wants: Callable[[str], bool] = lambda code: True

    @property
    def trial_doc(self) -> JsonlDocument | None:
        return self.trial_records.doc

    @property
    def module_doc(self) -> JsonlDocument | None:
        return self.module_records.doc

    @property
    def trials(self) -> dict[str, tuple[int, dict[str, Any]]]:
        """id -> (record index, record): the first trial of each id, with only its intact parts."""
        return self.trial_records.by_id

    @property
    def modules(self) -> dict[str, tuple[int, dict[str, Any]]]:
        return self.module_records.by_id

    @property
    def trial_ids(self) -> set[str]:
        return set(self.trial_records.by_id)

    @property
    def module_ids(self) -> set[str]:
        return set(self.module_records.by_id)

    @property
    def ids_complete(self) -> bool:
        """Every trial and module record has an id that can be read: a reference to an id that
        is not there is then certainly dangling."""
        return self.trial_records.ids_complete and self.module_records.ids_complete

    @functools.cached_property
    def types(self) -> QueryTypes:
        return _query_types(self)

    @functools.cached_property
    def ratings(self) -> Ratings:
        return _ratings(self)

    @functools.cached_property
    def _tags(self) -> tuple[dict[str, dict[str, dict[str, Any]]], set[str]]:
        tags: dict[str, dict[str, dict[str, Any]]] = {}
        complete = set()
        for tid, (_, trial) in self.trials.items():
            out: dict[str, dict[str, Any]] = {}
            whole = isinstance(trial.get("queries"), list)
            for q in trial.get("queries", []) if whole else ():
                kind = q.get("type") if isinstance(q, dict) else None
                if kind is None:
                    whole = False
                elif kind != "text-instruction":
                    if "tag" in q:
                        out.setdefault(q["tag"], q)
                    else:
                        whole = False
            tags[tid] = out
            if whole:
                complete.add(tid)
        return tags, complete

    def queries(self, trial_id: str) -> dict[str, dict[str, Any]]:
        """tag -> query of a trial (the first query with that tag), for every query whose type
        and tag can be read; {} for an unknown trial."""
        return self._tags[0].get(trial_id, {})

    def tags_complete(self, trial_id: str) -> bool:
        """Every query of the trial has a readable type and, where its type needs one, a
        readable tag: a key that is not among `queries` is then certainly no tag."""
        return trial_id in self._tags[1]

    def responses(self) -> Iterator[tuple[str, str, dict[str, Any], list[Any]]]:
        """(stimulus id, tag, query, responses) for every intact response array of a tag of a
        known trial in the ind file."""
        tags = self._tags[0]
        for sid, stimulus in self.ind_data.items():
            queries = tags.get(sid)
            if not queries or not isinstance(stimulus, dict) or sid in META_KEYS:
                continue
            for tag, responses in stimulus.items():
                if tag in queries:
                    yield sid, tag, queries[tag], responses

    def response_lists(self) -> Iterator[tuple[str, str, dict[str, Any], list[Any]]]:
        """Like `responses`, but also every array with a schema error inside it, as read: for
        rules that only count elements, which an error inside one does not change."""
        if self.ind is None:
            return
        tags = self._tags[0]
        for sid, stimulus in self.ind.data.items():
            queries = tags.get(sid)
            if not queries or not isinstance(stimulus, dict) or sid in META_KEYS:
                continue
            for tag, responses in stimulus.items():
                if tag in queries and isinstance(responses, list):
                    yield sid, tag, queries[tag], responses

    def quiz_queries(self) -> Iterator[tuple[int, int, dict[str, Any]]]:
        """(record index, query position, query) of every readable query of a comprehension quiz.
        Only a quiz's queries are checked by the schema; queries on other module types are not
        part of the format and are left alone."""
        for i, module in self.module_records.readable:
            if module.get("type") == "comprehension_quiz":
                for qi, q in _objects(module.get("queries")):
                    yield i, qi, q

    def trial_queries(self) -> Iterator[tuple[int, int, dict[str, Any]]]:
        """(record index, query position, query) of every readable query of every trial."""
        for i, trial in self.trial_records.readable:
            for qi, q in _objects(trial.get("queries")):
                yield i, qi, q


def _objects(items: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """(position, object) of the objects of a list that can be read (a broken element is None)."""
    if isinstance(items, list):
        for k, x in enumerate(items):
            if isinstance(x, dict):
                yield k, x


def load_experiment(unit: Unit, ctx: Context) -> Experiment:
    """Read, parse and schema-check the experiment's files (findings go to ctx)."""
    mode = ctx.config.option("coggym", "response-count")
    exp = Experiment(unit.root, ctx.config.tolerance, mode == "at-most", wants=ctx.config.wants)
    exp.config, exp.settings = _load_json(ctx, unit.file("config.json"), SCHEMA + "config", _config)
    exp.trial_records = _load_jsonl(ctx, unit.file("trial.jsonl"), SCHEMA + "trial", _trial)
    exp.module_records = _load_jsonl(ctx, unit.file("instruction.jsonl"), SCHEMA + "instruction", _module)
    exp.ind, exp.ind_data = _load_json(ctx, unit.file("human_data_ind.json"), SCHEMA + "human-data-ind", _ind)
    exp.mean, exp.mean_data = _load_json(ctx, unit.file("human_data_mean.json"), SCHEMA + "human-data-mean", _mean)
    return exp


def check(unit: Unit, ctx: Context) -> None:
    exp = load_experiment(unit, ctx)
    for r in rules_of("coggym"):
        ctx.run(r, exp)


def _where(records: Records, i: int, name: str) -> str:
    doc = records.doc
    return f"{name} line {doc.lines[i]}" if doc is not None else name


def _clicks(q: dict[str, Any]) -> int | None:
    """num_clicks of a slider query (1 when absent); None when its slider_config cannot be read."""
    cfg = q.get("slider_config")
    if not isinstance(cfg, dict):
        return None
    if "num_clicks" in cfg:
        clicks: int = cfg["num_clicks"]
        return clicks
    return None if "num_clicks" in _broken(cfg) else 1


def _asks(record: dict[str, Any]) -> bool | None:
    """Whether a trial asks anything (has a query other than text-instruction); None when that
    depends on a query whose type cannot be read."""
    queries = record.get("queries")
    if not isinstance(queries, list):
        return None if "queries" in _broken(record) else False
    unknown = False
    for q in queries:
        kind = q.get("type") if isinstance(q, dict) else None
        if kind is None:
            unknown = True
        elif kind != "text-instruction":
            return True
    return None if unknown else False


@dataclass
class QueryTypes:
    used: set[str] = field(default_factory=set)  # the type of every readable query, trial or quiz
    collecting: set[str] = field(default_factory=set)  # the types of trial queries that collect responses
    unread: list[str] = field(default_factory=list)  # records holding a query whose type cannot be read


def _query_types(exp: Experiment) -> QueryTypes:
    out = QueryTypes()
    trials, modules = exp.trial_records, exp.module_records
    out.unread += [f"trial.jsonl line {line}" for line in trials.unread]
    for i, trial in trials.readable:
        queries = trial.get("queries")
        if not isinstance(queries, list):
            if "queries" in _broken(trial):
                out.unread.append(_where(trials, i, "trial.jsonl"))
            continue
        kinds = [q.get("type") if isinstance(q, dict) else None for q in queries]
        if None in kinds:
            out.unread.append(_where(trials, i, "trial.jsonl"))
        out.used.update(k for k in kinds if k is not None)
        out.collecting.update(k for k in kinds if k is not None and k != "text-instruction")
    # Quiz questions count as used (they may be listed) but need not be listed.
    out.unread += [f"instruction.jsonl line {line}" for line in modules.unread]
    for i, module in modules.readable:
        kind = module.get("type")
        if kind is None and ("queries" in module or "queries" in _broken(module)):
            out.unread.append(_where(modules, i, "instruction.jsonl"))  # it may be a quiz
        elif kind == "comprehension_quiz":
            queries = module.get("queries")
            kinds = (
                [q.get("type") if isinstance(q, dict) else None for q in queries]
                if isinstance(queries, list)
                else [None]
            )
            if None in kinds:
                out.unread.append(_where(modules, i, "instruction.jsonl"))
            out.used.update(k for k in kinds if k is not None)
    return out


@dataclass
class Ratings:
    """The individual ratings of the ind file, counted as judgment_count counts them."""

    tags: int = 0  # in the arrays of query tags: judgment_count's definition
    others: int = 0  # elements of the arrays under keys that are no tag (or of no trial)
    unread: list[str] = field(default_factory=list)  # parts whose count cannot be known


def _ratings(exp: Experiment) -> Ratings:
    out = Ratings()
    if exp.ind is None:
        return out
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
            elif not isinstance(responses, list) or not _countable(q, responses, tag in _broken(intact)):
                out.unread.append(f"{sid}/{tag}")
            else:
                out.tags += judgment_count_of(q, responses)
    return out


def _countable(q: dict[str, Any], responses: list[Any], broken: bool) -> bool:
    """Whether judgment_count_of gives the number of ratings of an array. One per element does,
    even when an element breaks the schema; a count inside the elements (num_clicks, the labels of
    a multi-slider) does when the containers it counts are there, whatever their contents."""
    if q["type"] == "single-slider":
        clicks = _clicks(q)
        return clicks is not None and (clicks == 1 or not broken or not any(isinstance(r, dict) for r in responses))
    if q["type"] == "multi-slider" and broken:
        return all(isinstance(r, dict) and r and all(isinstance(v, list) for v in r.values()) for r in responses)
    return True


def _some(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


# --- trial.jsonl and instruction.jsonl -------------------------------------------------------


@rule(
    "coggym/duplicate-id",
    "trial and module ids are unique",
    why="The flow, the human data and test trials refer to trials and instruction modules by id; "
    "with two records of one id, every reference is ambiguous and one record's data is lost.",
    bad='{"id": "t1", ...}\n{"id": "t1", ...}',
    good='{"id": "t1", ...}\n{"id": "t2", ...}',
)
def duplicate_id(exp: Experiment) -> Iterator[Hit]:
    seen: dict[str, str] = {}
    for records, name in ((exp.trial_records, "trial.jsonl"), (exp.module_records, "instruction.jsonl")):
        for i, record in records.readable:
            rid = record.get("id")
            if not isinstance(rid, str):
                continue
            if rid in seen:
                yield records.doc, f"/{i}/id", f"id {rid!r} is already used in {seen[rid]}"
            else:
                seen[rid] = _where(records, i, name)


@rule(
    "coggym/duplicate-tag",
    "the queries of one trial have distinct tags",
    why="Responses are stored per tag: two queries with one tag write into the same array, and "
    "nobody can tell which answer belongs to which question.",
    bad='"queries": [{"type": "textbox", "tag": "why"}, {"type": "single-slider", "tag": "why", ...}]',
    good='"queries": [{"type": "textbox", "tag": "why"}, {"type": "single-slider", "tag": "how_sure", ...}]',
)
def duplicate_tag(exp: Experiment) -> Iterator[Hit]:
    for i, trial in exp.trial_records.readable:
        seen: set[str] = set()
        for qi, q in _objects(trial.get("queries")):
            tag = q.get("tag")
            if tag is None or q.get("type", "text-instruction") == "text-instruction":
                continue
            if tag in seen:
                where = f"trial {trial['id']!r}" if "id" in trial else "the trial"
                yield exp.trial_doc, f"/{i}/queries/{qi}/tag", f"tag {tag!r} is used by two queries of {where}"
            seen.add(tag)


@rule(
    "coggym/dimension-count",
    "a stimulus has one dimension per media_url",
    why="`dimension[k]` sizes `media_url[k]`; a list of another length leaves media unsized or sizes the wrong one.",
    bad='{"input_type": "img", "media_url": ["a.png", "b.png"], "dimension": [{"width": 400, "height": 300}]}',
    good='{"input_type": "img", "media_url": ["a.png", "b.png"], "dimension": [{"width": 400, "height": 300}, {"width": 400, "height": 300}]}',
)
def dimension_count(exp: Experiment) -> Iterator[Hit]:
    for i, trial in exp.trial_records.readable:
        for si, stimulus in _objects(trial.get("stimuli")):
            if "dimension" in stimulus and "media_url" not in _broken(stimulus):
                n, m = len(stimulus["dimension"]), len(stimulus.get("media_url", []))
                if n != m:
                    yield exp.trial_doc, f"/{i}/stimuli/{si}/dimension", f"{n} dimensions for {m} media_url entries"


def _all_queries(exp: Experiment) -> Iterator[tuple[JsonlDocument, str, dict[str, Any], bool]]:
    """(document, pointer, query, is quiz) for every readable query of the trials and quizzes."""
    for i, qi, q in exp.trial_queries():
        yield exp.trial_doc, f"/{i}/queries/{qi}", q, False  # type: ignore[misc]
    for i, qi, q in exp.quiz_queries():
        yield exp.module_doc, f"/{i}/queries/{qi}", q, True  # type: ignore[misc]


def _range(q: dict[str, Any]) -> tuple[float, float] | None:
    """(min, max) of a slider query, or None when they cannot be read."""
    cfg = q.get("slider_config")
    if isinstance(cfg, dict) and "min" in cfg and "max" in cfg:
        return cfg["min"], cfg["max"]
    return None


@rule(
    "coggym/slider-config",
    "min < max, and label values and default_value within [min, max]",
    why="A slider whose range is empty or whose labels sit outside it cannot be drawn as the "
    "experimenters meant, and its recorded values cannot be interpreted. An empty range is "
    "reported once, here: its labels and the answers given on it are not checked against it.",
    bad='"slider_config": {"min": 100, "max": 0, "labels": [{"value": 150, "label": "sure"}]}',
    good='"slider_config": {"min": 0, "max": 100, "labels": [{"value": 100, "label": "sure"}]}',
)
def slider_config(exp: Experiment) -> Iterator[Hit]:
    for doc, ptr, q, _ in _all_queries(exp):
        bounds = _range(q)
        if bounds is None:
            continue
        lo, hi = bounds
        if lo >= hi:
            yield doc, f"{ptr}/slider_config/max", f"max {hi!r} is not above min {lo!r}"
            continue
        cfg = q["slider_config"]
        for li, label in _objects(cfg.get("labels")):
            if "value" in label and not lo <= label["value"] <= hi:
                yield (
                    doc,
                    f"{ptr}/slider_config/labels/{li}/value",
                    f"label value {label['value']!r} is outside [{lo}, {hi}]",
                )
        default = cfg.get("default_value")
        if default is not None and not lo <= default <= hi:
            yield doc, f"{ptr}/slider_config/default_value", f"default_value {default!r} is outside [{lo}, {hi}]"


@rule(
    "coggym/answer",
    "a multi-choice answer is an index of the query's options",
    why="`answer` is the 0-based index of the correct option: out of range, it marks every "
    "participant wrong. (A comprehension-quiz question without an answer is a schema error.)",
    bad='{"type": "multi-choice", "tag": "q1", "option": ["yes", "no"], "answer": 2}',
    good='{"type": "multi-choice", "tag": "q1", "option": ["yes", "no"], "answer": 1}',
)
def answer(exp: Experiment) -> Iterator[Hit]:
    for doc, ptr, q, _ in _all_queries(exp):
        if q.get("type") == "multi-choice" and "answer" in q and "option" in q:
            n = len(q["option"])
            if not 0 <= q["answer"] < n:
                yield doc, f"{ptr}/answer", f"answer {q['answer']!r} is not an index of the {n} options"


@rule(
    "coggym/test-trial-stimulus",
    "a test_trial module shows an existing trial",
    why="A test trial replays a trial of trial.jsonl by its id; an unknown id shows nothing.",
    bad='{"id": "practice", "type": "test_trial", "stimuli_id": "no_such_trial"}',
    good='{"id": "practice", "type": "test_trial", "stimuli_id": "trial_1"}',
)
def test_trial_stimulus(exp: Experiment) -> Iterator[Hit]:
    if exp.trial_doc is None or not exp.trial_records.ids_complete:
        return
    for i, module in exp.module_records.readable:
        if module.get("type") == "test_trial" and "stimuli_id" in module and module["stimuli_id"] not in exp.trials:
            yield exp.module_doc, f"/{i}/stimuli_id", f"{module['stimuli_id']!r} is not a trial id"


# --- config.json -------------------------------------------------------------------------------


def _blocks(exp: Experiment) -> Iterator[tuple[str, list[Any], dict[str, Any]]]:
    """(pointer of the blocks list, blocks, the object holding it) of every readable blocks list,
    for both flow layouts. A block or an id that broke its schema is None."""
    for fi, entry in _objects(exp.settings.get("experimentFlow")):
        if isinstance(entry.get("blocks"), list):
            yield f"/experimentFlow/{fi}/blocks", entry["blocks"], entry
        for si, seq in _objects(entry.get("sequences")):
            if isinstance(seq.get("blocks"), list):
                yield f"/experimentFlow/{fi}/sequences/{si}/blocks", seq["blocks"], seq


def _flow_ids(exp: Experiment) -> Iterator[tuple[str, str]]:
    """(pointer, id) of every readable id in the flow's blocks."""
    for ptr, blocks, _ in _blocks(exp):
        for bi, block in enumerate(blocks):
            if isinstance(block, list):
                for k, ident in enumerate(block):
                    if isinstance(ident, str):
                        yield f"{ptr}/{bi}/{k}", ident


def _unused(exp: Experiment) -> list[tuple[JsonlDocument, int, str, str]]:
    """(document, record index, kind, id) of every trial and module the flow never shows; [] when
    the flow cannot be read whole. A trial that a test_trial module replays is shown."""
    settings = exp.settings
    if exp.config is None or "experimentFlow" not in settings or "experimentFlow" in _broken(settings):
        return []
    shown = {ident for _, ident in _flow_ids(exp)}
    shown.update(
        m["stimuli_id"] for _, m in exp.module_records.readable if m.get("type") == "test_trial" and "stimuli_id" in m
    )
    out = []
    for records, kind in ((exp.trial_records, "trial"), (exp.module_records, "module")):
        for ident, (i, _) in records.by_id.items():
            if ident not in shown and records.doc is not None:
                out.append((records.doc, i, kind, ident))
    return out


@rule(
    "coggym/flow-id",
    "every id in the experiment flow is a trial or an instruction module",
    why="The flow is what participants see; an id that names nothing is a screen that is "
    "silently skipped (or crashes the experiment). When some trials or modules are in no block, "
    "the message names them: the id in the flow is often one of them, misspelt.",
    bad='"experimentFlow": [{"blocks": [["intro", "trial_99"]]}]',
    good='"experimentFlow": [{"blocks": [["intro", "trial_1"]]}]',
)
def flow_id(exp: Experiment) -> Iterator[Hit]:
    if exp.config is None or exp.trial_doc is None or not exp.ids_complete:
        return
    known = exp.trial_ids | exp.module_ids
    where = "trial.jsonl" + (" or instruction.jsonl" if exp.module_doc else "")
    dangling = [(ptr, ident) for ptr, ident in _flow_ids(exp) if ident not in known]
    if not dangling:
        return
    unused = [ident for _, _, _, ident in _unused(exp)]
    hint = f" (in no block: {_some([repr(u) for u in unused])})" if unused else ""
    for ptr, ident in dangling:
        yield exp.config, ptr, f"{ident!r} is not an id in {where}{hint}"


@rule(
    "coggym/unused-id",
    "every trial and instruction module is shown by the experiment flow",
    severity="warning",
    why="A trial or module that no block of config.json's experimentFlow names (nor, for a "
    "trial, a test_trial module) is never shown: participants never see it, and any data it "
    "seems to have came from elsewhere. Checked only when the whole flow can be read; while "
    "the flow names ids that do not exist, coggym/flow-id names the unused ones instead.",
    bad='trial.jsonl: "trial_1", "trial_2", "trial_3"; "experimentFlow": [{"blocks": [["trial_1", "trial_2"]]}]',
    good='"experimentFlow": [{"blocks": [["trial_1", "trial_2", "trial_3"]]}]',
)
def unused_id(exp: Experiment) -> Iterator[Hit]:
    if exp.ids_complete and exp.trial_doc is not None:
        known = exp.trial_ids | exp.module_ids
        if any(ident not in known for _, ident in _flow_ids(exp)):
            return  # coggym/flow-id names the unused ids: the flow's unknown id is often one of them
    for doc, i, kind, ident in _unused(exp):
        yield doc, f"/{i}/id", f"{kind} {ident!r} is in no block of config.json's experimentFlow: it is never shown"


@rule(
    "coggym/block-randomization",
    "block_randomization has one flag per block",
    why="Flag k says whether block k is shuffled; with a list of another length some blocks "
    "have no flag and the experiment software guesses.",
    bad='{"blocks": [["a"], ["b"]], "block_randomization": [true]}',
    good='{"blocks": [["a"], ["b"]], "block_randomization": [true, false]}',
)
def block_randomization(exp: Experiment) -> Iterator[Hit]:
    for ptr, blocks, holder in _blocks(exp):
        flags = holder.get("block_randomization")
        if isinstance(flags, list) and len(flags) != len(blocks):  # a single bool applies to all
            yield (
                exp.config,
                ptr.rsplit("/", 1)[0] + "/block_randomization",
                f"{len(flags)} flags for {len(blocks)} blocks",
            )


@rule(
    "coggym/stimuli-count",
    "stimuli_count is the number of trials",
    why="Catalogues and loaders read stimuli_count without opening trial.jsonl; a wrong count "
    "misdescribes the experiment.",
    bad='"stimuli_count": 40  (trial.jsonl has 60 trials)',
    good='"stimuli_count": 60',
)
def stimuli_count(exp: Experiment) -> Iterator[Hit]:
    if exp.trial_doc is None or "stimuli_count" not in exp.settings:
        return
    stated, actual = exp.settings["stimuli_count"], len(exp.trial_doc.records)
    if stated != actual:
        yield exp.config, "/stimuli_count", f"stimuli_count is {stated}, trial.jsonl has {actual} trials"


@dataclass
class _ResponseTypes:
    unused: list[tuple[int, str]] = field(default_factory=list)  # (position, listed type no query uses)
    missing: list[str] = field(default_factory=list)  # types of collecting queries that are not listed
    undecided: list[str] = field(default_factory=list)  # types either way, had the unread been read
    unread: list[str] = field(default_factory=list)  # what could not be read


def _response_type_checks(exp: Experiment) -> _ResponseTypes:
    out = _ResponseTypes()
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


@rule(
    "coggym/response-types",
    "responseType lists the trials' query types, and only used ones",
    why="responseType is how the experiment is found and described; it must name every kind of "
    "response the trials collect, and nothing that no trial or quiz uses.",
    bad='"responseType": ["multi-choice"]  (the trials use single-slider)',
    good='"responseType": ["single-slider"]',
)
def response_types(exp: Experiment) -> Iterator[Hit]:
    checks = _response_type_checks(exp)
    for k, kind in checks.unused:
        yield exp.config, f"/responseType/{k}", f"{kind!r} is used by no query"
    for kind in checks.missing:
        yield exp.config, "/responseType", f"{kind!r} queries collect responses but are not listed"


def _media(exp: Experiment) -> Iterator[tuple[str, str, bool]]:
    """(pointer, relative url, file exists) for every local media reference of the trials."""
    for i, trial in exp.trial_records.readable:
        for si, stimulus in _objects(trial.get("stimuli")):
            for k, url in enumerate(stimulus.get("media_url", [])):
                if not url.startswith(_URL_PREFIXES):
                    yield f"/{i}/stimuli/{si}/media_url/{k}", url, (exp.folder / url.lstrip("/")).is_file()


@rule(
    "coggym/media-missing",
    "a media file the trials reference is missing",
    why="The experiment ships its media, but not this file: the trial shows a broken image or video.",
    bad='"media_url": ["assets/clip_3.mp4"]  (assets/ has clip_1 and clip_2 only)',
    good='"media_url": ["assets/clip_2.mp4"]',
)
def media_missing(exp: Experiment) -> Iterator[Hit]:
    refs = list(_media(exp))
    if any(ok for _, _, ok in refs):
        for ptr, url, ok in refs:
            if not ok:
                yield exp.trial_doc, ptr, f"{url!r} does not exist in the experiment folder"


@rule(
    "coggym/media-not-shipped",
    "none of the media the trials reference is in the folder",
    severity="warning",
    why="Experiments are often published without their media (hosted elsewhere, or too "
    "large); then no reference can be checked. One warning, at the first reference.",
    bad='"media_url": ["assets/clip_1.mp4"]  (no assets/ folder)',
    good='"media_url": ["assets/clip_1.mp4"]  (assets/clip_1.mp4 present)',
)
def media_not_shipped(exp: Experiment) -> Iterator[Hit]:
    refs = list(_media(exp))
    if refs and not any(ok for _, _, ok in refs):
        yield (
            exp.trial_doc,
            refs[0][0],
            f"no referenced media file is in the folder ({len(refs)} references, e.g. {refs[0][1]!r})",
        )


# --- human_data_ind.json and human_data_mean.json: metadata ------------------------------------


@rule(
    "coggym/metadata-missing",
    "participants_info or judgment_count is missing",
    why="The format says both human data files must say how many people took part "
    "(participants_info) and how many judgments they hold (judgment_count); without them the "
    "response counts cannot be checked. Some real releases omit them: a project that accepts "
    'that lowers the code in its configuration, `[tool.humanjudge.severity]` `"coggym/metadata-missing" '
    '= "warning"`.',
    bad='{"trial_1": {...}}',
    good='{"participants_info": {"count": 40, "age": 35.1, "gender": {"female": 21, "male": 19}}, "judgment_count": 80, "trial_1": {...}}',
)
def metadata_missing(exp: Experiment) -> Iterator[Hit]:
    for doc in (exp.ind, exp.mean):
        if doc is not None:
            for key in META_KEYS:
                if key not in doc.data:
                    yield doc, "", f"no {key}"


@rule(
    "coggym/age-sentinel",
    "participants_info.age is -1 or 0, a stand-in for 'unknown'",
    severity="warning",
    why="Real releases write -1 or 0 when the age was not recorded; read as numbers, they make "
    "the sample look like newborns. null says 'unknown' in JSON.",
    bad='"participants_info": {"count": 49, "age": -1, ...}',
    good='"participants_info": {"count": 49, "age": null, ...}',
)
def age_sentinel(exp: Experiment) -> Iterator[Hit]:
    for doc, data in ((exp.ind, exp.ind_data), (exp.mean, exp.mean_data)):
        info = data.get("participants_info")
        if isinstance(info, dict) and info.get("age") in (-1, 0) and not isinstance(info.get("age"), bool):
            yield doc, "/participants_info/age", f"age {info['age']!r} reads as a number; use null for 'unknown'"


@rule(
    "coggym/metadata-mismatch",
    "ind and mean files agree on participants_info and judgment_count",
    why="The two files describe the same participants and the same judgments; when they "
    "disagree, one of them is stale.",
    bad='ind: "judgment_count": 80   mean: "judgment_count": 76',
    good='ind: "judgment_count": 80   mean: "judgment_count": 80',
)
def metadata_mismatch(exp: Experiment) -> Iterator[Hit]:
    if exp.ind is None or exp.mean is None:
        return
    for key in META_KEYS:
        a, b = exp.ind_data.get(key), exp.mean_data.get(key)
        if a is None or b is None or a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            broken = _broken(a) | _broken(b)  # the schema reports those; a comparison would repeat it
            for sub in sorted(a.keys() | b.keys()):
                if sub not in broken and a.get(sub) != b.get(sub):
                    yield (
                        exp.mean,
                        pointer(key, sub) if sub in b else pointer(key),
                        (f"{key}.{sub} is {_short(b.get(sub))} here, {_short(a.get(sub))} in human_data_ind.json"),
                    )
        else:
            yield exp.mean, pointer(key), f"{key} is {_short(b)} here, {_short(a)} in human_data_ind.json"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def judgment_count_of(query: dict[str, Any], responses: list[Any]) -> int:
    """The number of individual ratings in one tag's responses, as judgment_count counts them:
    one per answer (nulls included), one per click when num_clicks > 1, one per multi-select row,
    and one per label value for multi-slider."""
    if query["type"] == "multi-slider":
        return sum(len(v) for r in responses if isinstance(r, dict) for v in r.values() if isinstance(v, list))
    if query["type"] == "single-slider" and (_clicks(query) or 1) > 1:
        return sum(len(r) if isinstance(r, list) else 1 for r in responses)
    return len(responses)


@rule(
    "coggym/judgment-count",
    "judgment_count is the number of individual ratings in the ind file",
    why="judgment_count is what a reader quotes as the size of the data; it is defined as one per "
    "answer (nulls included), one per click when num_clicks > 1, one per multi-select row and one "
    "per label value of a multi-slider, over the keys that are query tags. A count that also takes "
    "in the arrays under keys that are no tags is not reported again: coggym/unknown-tag and "
    "coggym/unknown-stimulus report those keys. An answer that breaks the schema still counts; "
    "when a part the total needs cannot be read (a query whose tag is broken, a response that is "
    "not an array), coggym/not-checked says so instead.",
    bad='"judgment_count": 10  (two trials, four participants, one slider each: 8 ratings)',
    good='"judgment_count": 8',
)
def judgment_count(exp: Experiment) -> Iterator[Hit]:
    if "judgment_count" not in exp.ind_data or exp.trial_doc is None:
        return
    ratings = exp.ratings
    stated = exp.ind_data["judgment_count"]
    if ratings.unread or stated == ratings.tags:
        return
    if ratings.others and stated == ratings.tags + ratings.others:
        return  # it counts the keys that are no tags: coggym/unknown-tag and unknown-stimulus report them
    also = f" ({ratings.tags + ratings.others} counting the keys that are no tags)" if ratings.others else ""
    yield (
        exp.ind,
        "/judgment_count",
        f"judgment_count is {stated}, the file holds {ratings.tags} individual ratings{also}",
    )


@rule(
    "coggym/not-checked",
    "a check over the whole experiment could not be made",
    severity="warning",
    why="judgment_count is compared with a total over every response, and responseType with the "
    "types of every query. When a part such a total needs breaks its schema (a query whose type "
    "or tag cannot be read, a response that is not an array, a record that is not an object), "
    "the total is unknown and the check is not made. The schema error is what to fix; this "
    "warning says which check is still to come, so that a run never looks more complete than it was.",
    bad='trial.jsonl: {"id": "t1", "queries": [{"type": "single-slider", "tag": 7, ...}]}; human_data_ind.json: "judgment_count": 8',
    good='{"id": "t1", "queries": [{"type": "single-slider", "tag": "confidence", ...}]}',
)
def not_checked(exp: Experiment) -> Iterator[Hit]:
    if exp.wants("coggym/judgment-count") and "judgment_count" in exp.ind_data and exp.trial_doc is not None:
        unread = exp.ratings.unread
        if unread:
            yield (
                exp.ind,
                "/judgment_count",
                f"judgment_count could not be checked: the responses or queries of {_some(unread)} cannot be read",
            )
    if exp.wants("coggym/response-types"):
        checks = _response_type_checks(exp)
        if checks.undecided:
            yield (
                exp.config,
                "/responseType",
                f"responseType could not be checked for {_some([repr(k) for k in checks.undecided])}: "
                f"{_some(checks.unread)} cannot be read",
            )


# --- human_data_ind.json: structure against the trials -----------------------------------------


def _data_docs(exp: Experiment) -> Iterator[JsonDocument]:
    yield from (d for d in (exp.ind, exp.mean) if d is not None)


@rule(
    "coggym/unknown-stimulus",
    "every stimulus key of the human data is a trial id",
    why="Human data for a stimulus that trial.jsonl does not define cannot be interpreted: its "
    "questions and options are unknown.",
    bad='{"trial_9": {"rating": [3, 4]}}  (trial.jsonl has trial_1..trial_8)',
    good='{"trial_8": {"rating": [3, 4]}}',
)
def unknown_stimulus(exp: Experiment) -> Iterator[Hit]:
    if exp.trial_doc is None or not exp.trial_records.ids_complete:
        return
    for doc in _data_docs(exp):
        for sid in doc.data:
            if sid not in META_KEYS and sid not in exp.trials:
                yield doc, pointer(sid), f"{sid!r} is not a trial id in trial.jsonl"


@rule(
    "coggym/no-human-data",
    "a trial with questions has no human data",
    severity="warning",
    why="Practice and attention-check trials often have no stored responses, which is fine; "
    "for any other trial it means data was lost in the export.",
    bad='trial.jsonl: {"id": "trial_7", "queries": [{"type": "textbox", "tag": "why", ...}]}  (no "trial_7" in human_data_ind.json)',
    good='human_data_ind.json: {"trial_7": {"why": ["...", "..."]}}',
)
def no_human_data(exp: Experiment) -> Iterator[Hit]:
    if exp.ind is None:
        return
    for tid, (i, trial) in exp.trials.items():
        if tid not in exp.ind.data and _asks(trial):
            yield exp.trial_doc, f"/{i}/id", f"trial {tid!r} has questions but no responses in human_data_ind.json"


@rule(
    "coggym/unknown-tag",
    "every response key of a stimulus is a tag of that trial",
    why="The seed format says the keys of a stimulus must match the tags of its trial's queries; "
    "any other key is data no question defines (often a leftover column of the export).",
    bad='"trial_1": {"rating": [3, 4], "rating_selected_option": [1, 1]}',
    good='"trial_1": {"rating": [3, 4]}',
)
def unknown_tag(exp: Experiment) -> Iterator[Hit]:
    for doc in _data_docs(exp):
        for sid, stimulus in doc.data.items():
            # With a query whose tag cannot be read, any key may be that tag: the schema error
            # is the finding.
            if sid in META_KEYS or not isinstance(stimulus, dict) or not exp.tags_complete(sid):
                continue
            tags = exp.queries(sid)
            for key in stimulus:
                if key not in tags:
                    known = f"its tags: {', '.join(sorted(tags))}" if tags else "it has no tagged queries"
                    yield doc, pointer(sid, key), f"{key!r} is not a tag of trial {sid!r} ({known})"


@rule(
    "coggym/missing-tag",
    "every tagged question of a stimulus has responses",
    why="Each question a participant answered has a response array in the ind file; a missing "
    "tag means a column was lost in the export.",
    bad='trial: tags "goal" and "confidence"; ind: "trial_1": {"goal": [...]}',
    good='"trial_1": {"goal": [...], "confidence": [...]}',
)
def missing_tag(exp: Experiment) -> Iterator[Hit]:
    if exp.ind is None:
        return
    for sid, stimulus in exp.ind.data.items():
        if sid in META_KEYS or not isinstance(stimulus, dict):
            continue
        for tag in exp.queries(sid):
            if tag not in stimulus:
                yield exp.ind, pointer(sid), f"no responses for tag {tag!r} of trial {sid!r}"


# --- human_data_ind.json: responses ----------------------------------------------------------


def _count_of(query: dict[str, Any], responses: list[Any]) -> list[tuple[str, int]]:
    """(pointer suffix, number of participants) of each participant array of one tag."""
    if query["type"] == "multi-slider":
        return [
            (f"/{k}/{pointer(label)[1:]}", len(v))
            for k, r in enumerate(responses)
            if isinstance(r, dict)
            for label, v in r.items()
            if isinstance(v, list)
        ]
    return [("", len(responses))]


@rule(
    "coggym/response-count",
    "every response array has participants_info.count elements",
    why="One element per participant is the format's promise ('if there were 4 participants, each "
    "response array will contain 4 elements'). Designs where each participant sees a subset of "
    'the stimuli break it; such a project sets `coggym.response-count = "at-most"`. An array '
    "with a malformed answer inside is still counted.",
    bad='"participants_info": {"count": 4, ...}, "trial_1": {"rating": [3, 5, 4]}',
    good='"participants_info": {"count": 4, ...}, "trial_1": {"rating": [3, 5, 4, 2]}',
)
def response_count(exp: Experiment) -> Iterator[Hit]:
    info = exp.ind_data.get("participants_info")
    if not isinstance(info, dict) or "count" not in info:
        return
    n = info["count"]
    for sid, tag, q, responses in exp.response_lists():
        for suffix, m in _count_of(q, responses):
            if m != n and not (exp.at_most and m < n):
                yield exp.ind, pointer(sid, tag) + suffix, f"{m} responses, participants_info.count is {n}"


def _shape_problem(kind: str, clicks: int, r: Any) -> str | None:
    """Why a response does not fit its query type, or None."""
    number = (int, float)
    if kind == "single-slider":
        if clicks > 1:
            return None if isinstance(r, list) else f"expected a list of {clicks} values (num_clicks), got {_short(r)}"
        return (
            None
            if r is None or (isinstance(r, number) and not isinstance(r, bool))
            else f"expected a number, got {_short(r)}"
        )
    if kind == "multi-choice":
        return (
            None
            if isinstance(r, (dict, int)) and not isinstance(r, bool)
            else f"expected {{idx, option_text}}, got {_short(r)}"
        )
    if kind == "multi-select":
        return None if isinstance(r, list) else f"expected a row of 0/1 per option, got {_short(r)}"
    if kind == "multi-slider":
        return None if isinstance(r, dict) and "idx" not in r else f"expected {{label: [values]}}, got {_short(r)}"
    if kind == "textbox":
        return None if r is None or isinstance(r, str) else f"expected text, got {_short(r)}"
    if kind == "ranking":
        return (
            None
            if isinstance(r, list) and all(isinstance(x, dict) and "rank" in x for x in r)
            else f"expected a list of {{idx, option_text, rank}}, got {_short(r)}"
        )
    return None


@rule(
    "coggym/response-shape",
    "each response has the shape its query type stores",
    why="A consumer reads a slider answer as a number, a choice as {idx, option_text} and so on; "
    "a response of another shape (often a tag reused for a different question) breaks it.",
    bad='query "rating" is a single-slider; "rating": [{"idx": 0, "option_text": "yes"}]',
    good='"rating": [72, 40]',
)
def response_shape(exp: Experiment) -> Iterator[Hit]:
    for sid, tag, q, responses in exp.responses():
        kind = q["type"]
        if kind == "multi-slider" and len(responses) != 1:
            yield (
                exp.ind,
                pointer(sid, tag),
                f"a multi-slider stores one object of label arrays, found {len(responses)} elements",
            )
        clicks = _clicks(q) if kind == "single-slider" else 1
        if clicks is None:
            continue  # the shape depends on num_clicks, which the schema reports as broken
        allowed = _SHAPE_TYPES.get(kind)
        if clicks > 1:
            allowed = _LIST
        if allowed is not None and set(map(type, responses)) <= allowed and kind != "multi-slider":
            continue  # every element has an allowed type: the common case, decided in C
        for k, r in enumerate(responses):
            problem = _shape_problem(kind, clicks, r)
            if problem:
                yield exp.ind, pointer(sid, tag, k), problem


_LIST = frozenset({list})
_SLIDER_TYPES = frozenset({int, float, type(None), list})
_SHAPE_TYPES = {
    "single-slider": frozenset({int, float, type(None)}),
    "multi-choice": frozenset({dict, int}),
    "multi-select": _LIST,
    "textbox": frozenset({str, type(None)}),
}


@rule(
    "coggym/bare-choice-index",
    "a multi-choice answer is a bare index instead of {idx, option_text}",
    severity="warning",
    why="The format stores a choice as {idx, option_text} so that the chosen text can be checked "
    "against the option; a bare 0-based integer (seen in real releases) cannot be.",
    bad='"choice": [0, 2, 1]',
    good='"choice": [{"idx": 0, "option_text": "red"}, ...]',
)
def bare_choice_index(exp: Experiment) -> Iterator[Hit]:
    for sid, tag, q, responses in exp.responses():
        if q["type"] == "multi-choice":
            bare = [k for k, r in enumerate(responses) if isinstance(r, int) and not isinstance(r, bool)]
            if bare:
                yield (
                    exp.ind,
                    pointer(sid, tag, bare[0]),
                    f"{len(bare)} answers are bare indices, e.g. {responses[bare[0]]!r}",
                )


def _choices(q: dict[str, Any], sid: str, tag: str, responses: list[Any]) -> Iterator[tuple[str, Any]]:
    """(pointer, answer) of every choice of a multi-choice or ranking, built only on demand."""
    if q["type"] == "ranking":
        for k, r in enumerate(responses):
            if isinstance(r, list):
                for j, x in enumerate(r):
                    yield f"{pointer(sid, tag, k)}/{j}", x
    else:
        for k, r in enumerate(responses):
            yield pointer(sid, tag, k), r


_IDX_TEXT = itemgetter("idx", "option_text")


def _distinct_pairs(q: dict[str, Any], responses: list[Any]) -> set[Any] | None:
    """The distinct (idx, option_text) of a multi-choice's answers, or None when they are not all
    {idx, option_text} objects (then the slow path looks at each)."""
    if q["type"] != "multi-choice":
        return None
    try:
        return set(map(_IDX_TEXT, responses))
    except (TypeError, KeyError):
        return None


@rule(
    "coggym/choice-index",
    "a chosen idx is an index of the query's options",
    why="idx is 0-based into the trial's option list; out of range, the answer names no option.",
    bad='"option": ["yes", "no"]; "choice": [{"idx": 2, "option_text": "maybe"}]',
    good='"choice": [{"idx": 1, "option_text": "no"}]',
)
def choice_index_rule(exp: Experiment) -> Iterator[Hit]:
    for sid, tag, q, responses in exp.responses():
        if q["type"] not in ("multi-choice", "ranking") or "option" not in q:
            continue
        n = len(q["option"])
        pairs = _distinct_pairs(q, responses)
        if pairs is not None and all(type(i) is int and 0 <= i < n for i, _ in pairs):
            continue
        for ptr, r in _choices(q, sid, tag, responses):
            idx = choice_index(r)
            if idx is not None and not 0 <= idx < n:
                yield (
                    exp.ind,
                    ptr + ("/idx" if isinstance(r, dict) else ""),
                    f"idx {idx} is not an index of the {n} options",
                )


@rule(
    "coggym/choice-text",
    "option_text is the text of option idx",
    why="option_text repeats the chosen option so the data can be read on its own; when it "
    "differs, either idx or the options were changed after collection.",
    bad='"option": ["red", "blue"]; {"idx": 1, "option_text": "red"}',
    good='{"idx": 1, "option_text": "blue"}',
)
def choice_text(exp: Experiment) -> Iterator[Hit]:
    for sid, tag, q, responses in exp.responses():
        if q["type"] not in ("multi-choice", "ranking") or "option" not in q:
            continue
        options = q["option"]
        pairs = _distinct_pairs(q, responses)
        if pairs is not None and all(
            not (type(i) is int and 0 <= i < len(options)) or t == options[i] for i, t in pairs
        ):
            continue
        for ptr, r in _choices(q, sid, tag, responses):
            if isinstance(r, dict) and "option_text" in r and isinstance(r.get("idx"), int):
                idx = r["idx"]
                if 0 <= idx < len(options) and r["option_text"] != options[idx]:
                    yield exp.ind, ptr + "/option_text", f"{r['option_text']!r} is not option {idx} ({options[idx]!r})"


@rule(
    "coggym/multi-select-row",
    "a multi-select row has one 0 or 1 per option",
    why="Row k of a multi-select is a one-hot encoding over the options; another length or "
    "another value cannot be mapped back to options. All-zero rows (nothing selected) are fine.",
    bad='"option": ["a", "b", "c"]; "picked": [[0, 1], [0, 2, 1]]',
    good='"picked": [[0, 1, 0], [0, 1, 1]]',
)
def multi_select_row(exp: Experiment) -> Iterator[Hit]:
    for sid, tag, q, responses in exp.responses():
        if q["type"] != "multi-select" or "option" not in q:
            continue
        n = len(q["option"])
        if (
            set(map(type, responses)) <= _LIST
            and set(map(len, responses)) <= {n}
            and set(chain.from_iterable(responses)) <= {0, 1}
        ):
            continue
        for k, row in enumerate(responses):
            if not isinstance(row, list):
                continue
            if len(row) != n:
                yield exp.ind, pointer(sid, tag, k), f"{len(row)} values for {n} options"
            elif any(v not in (0, 1) or isinstance(v, bool) for v in row):
                yield exp.ind, pointer(sid, tag, k), f"values must be 0 or 1, got {_short(row)}"


@rule(
    "coggym/ranking",
    "a ranking ranks every option once, with ranks 1..n",
    why="A participant ranks all items: each option index appears once and the ranks are "
    "1..n. Anything else cannot be turned into an order.",
    bad='"option": ["a", "b"]; [[{"idx": 0, "option_text": "a", "rank": 1}, {"idx": 0, "option_text": "a", "rank": 1}]]',
    good='[[{"idx": 1, "option_text": "b", "rank": 1}, {"idx": 0, "option_text": "a", "rank": 2}]]',
)
def ranking(exp: Experiment) -> Iterator[Hit]:
    for sid, tag, q, responses in exp.responses():
        if q["type"] != "ranking" or "option" not in q:
            continue
        n = len(q["option"])
        for k, r in enumerate(responses):
            if not isinstance(r, list) or not all(isinstance(x, dict) for x in r):
                continue
            idxs = sorted(x.get("idx") for x in r if isinstance(x.get("idx"), int))
            ranks = sorted(x.get("rank") for x in r if isinstance(x.get("rank"), int))
            if idxs != list(range(n)):
                yield exp.ind, pointer(sid, tag, k), f"ranks options {idxs}, expected each of 0..{n - 1} once"
            elif ranks != list(range(1, n + 1)):
                yield exp.ind, pointer(sid, tag, k), f"ranks are {ranks}, expected 1..{n}"


@rule(
    "coggym/num-clicks",
    "with num_clicks N, each participant gives N values",
    why="slider_config.num_clicks = N means every participant answers N times; an inner array of "
    "another length is a lost or extra click.",
    bad='"num_clicks": 3; "estimate": [[10, 20, 30], [15, 25]]',
    good='"estimate": [[10, 20, 30], [15, 25, 35]]',
)
def num_clicks(exp: Experiment) -> Iterator[Hit]:
    for sid, tag, q, responses in exp.responses():
        clicks = _clicks(q) if q["type"] == "single-slider" else None
        if clicks is None or clicks == 1:
            continue
        for k, r in enumerate(responses):
            if isinstance(r, list) and len(r) != clicks:
                yield exp.ind, pointer(sid, tag, k), f"{len(r)} values, num_clicks is {clicks}"


def _slider_arrays(q: dict[str, Any], responses: list[Any]) -> Iterator[tuple[tuple[object, ...], list[Any]]]:
    """(path below the tag, list of values) of every array of slider values of one tag."""
    if q["type"] == "multi-slider":
        for k, r in enumerate(responses):
            if isinstance(r, dict):
                for label, values in r.items():
                    if isinstance(values, list):
                        yield (k, label), values
        return
    if list in set(map(type, responses)):
        for k, r in enumerate(responses):
            if isinstance(r, list):
                yield (k,), r
    yield (), [r for r in responses if not isinstance(r, list)] if _LIST & set(map(type, responses)) else responses


def _within(values: list[Any], lo: float, hi: float) -> bool:
    numbers = [v for v in values if v is not None] if None in values else values
    try:
        return not numbers or (lo <= min(numbers) and max(numbers) <= hi)
    except TypeError:  # mixed types: the schema or response-shape reports them
        return True


@rule(
    "coggym/slider-value",
    "slider answers lie within [min, max] of the slider",
    why="A value outside the slider's range cannot have been given on that slider: the data was "
    "rescaled or belongs to another question. null (an 'I don't know' answer) is allowed.",
    bad='"slider_config": {"min": 0, "max": 100}; "confidence": [95, 130]',
    good='"confidence": [95, 100]',
)
def slider_value(exp: Experiment) -> Iterator[Hit]:
    for sid, tag, q, responses in exp.responses():
        bounds = _range(q) if q["type"] in ("single-slider", "multi-slider") else None
        if bounds is None or bounds[0] >= bounds[1]:
            continue  # an empty range is coggym/slider-config's one finding, not one per answer
        lo, hi = bounds
        for path, values in _slider_arrays(q, responses):
            if _within(values, lo, hi):
                continue
            if not path and len(values) != len(responses):
                continue  # scalars mixed with lists: response-shape reports it
            for j, v in enumerate(values):
                if isinstance(v, (int, float)) and not isinstance(v, bool) and not lo <= v <= hi:
                    yield exp.ind, pointer(sid, tag, *path, j), f"{v!r} is outside the slider's range [{lo}, {hi}]"


@rule(
    "coggym/multi-slider-labels",
    "a multi-slider's labels are the query's options",
    why="A multi-slider stores one array per slider, keyed by the option label; a label that is "
    "not an option (or a missing one) cannot be matched to its slider.",
    bad='"option": ["Hole 1", "Hole 2"]; [{"Hole 1": [...], "Hole 3": [...]}]',
    good='[{"Hole 1": [...], "Hole 2": [...]}]',
)
def multi_slider_labels(exp: Experiment) -> Iterator[Hit]:
    for sid, tag, q, responses in exp.responses():
        if q["type"] != "multi-slider" or "option" not in q:
            continue
        options = [str(o) for o in q["option"]]
        for k, r in enumerate(responses):
            if not isinstance(r, dict) or "idx" in r:
                continue
            for label in r:
                if label not in options:
                    yield exp.ind, pointer(sid, tag, k, label), f"{label!r} is not an option of the multi-slider"
            for label in options:
                if label not in r:
                    yield exp.ind, pointer(sid, tag, k), f"no values for option {label!r}"


# --- human_data_mean.json ---------------------------------------------------------------------


def _mean_keys(q: dict[str, Any]) -> list[str] | None:
    """The keys a mean object of this query may have, or None when the mean is a number/free.
    The query must have its options (see `_means_readable`)."""
    if q["type"] in _OPTION_MEANS:
        return [option_key(q["tag"], k) for k in range(1, len(q["option"]) + 1)]
    return None


_OPTION_MEANS = frozenset({"multi-choice", "multi-slider", "multi-select"})


def _means_readable(q: dict[str, Any]) -> bool:
    """Whether the query has what its mean keys are made from: options for the per-option types."""
    return q["type"] not in _OPTION_MEANS or "option" in q


def _stray_keys(value: dict[str, Any], keys: list[str]) -> list[str]:
    """The keys of a mean object that are no option key, in the object's order."""
    known = set(keys)
    if value.keys() <= known and not _broken(value):  # the common case, decided in C
        return []
    return [k for k in _keys(value) if k not in known]


@rule(
    "coggym/mean-key",
    "mean keys match the trial's tags and option positions",
    why="A mean file mirrors the ind file: tag -> number for sliders, tag -> {tag_K: value} for "
    "choices (K = option position, 1-based). Keys are matched against the known tags and option "
    "counts, never parsed, because tags can themselves end in _<digits>. A key that is no option "
    "key while an option key is missing is one misnumbered key: it is reported once, at the key, "
    "naming the missing ones, and its values are not compared until the keys match.",
    bad='"option": ["a", "b"]; "goal": {"goal_1": 0.5, "goal_3": 0.5}',
    good='"goal": {"goal_1": 0.5, "goal_2": 0.5}',
)
def mean_key(exp: Experiment) -> Iterator[Hit]:
    if exp.mean is None or exp.trial_doc is None:
        return
    for sid, stimulus in exp.mean_data.items():
        if sid in META_KEYS or not isinstance(stimulus, dict):
            continue
        queries = exp.queries(sid)
        for tag, value in stimulus.items():
            q = queries.get(tag)
            if q is None or not _means_readable(q):
                continue  # coggym/unknown-tag, or the schema error that broke the options
            keys = _mean_keys(q)
            if keys is None:
                if q["type"] == "single-slider" and not (value is None or isinstance(value, (int, float))):
                    yield exp.mean, pointer(sid, tag), f"the mean of a single-slider is a number, got {_short(value)}"
                continue
            if not isinstance(value, dict):
                yield (
                    exp.mean,
                    pointer(sid, tag),
                    f"expected {{{keys[0] if keys else tag + '_1'}: ...}} per option, got {_short(value)}",
                )
                continue
            missing = (
                [k for k in keys if k not in value and k not in _broken(value)] if q["type"] == "multi-slider" else []
            )
            stray = _stray_keys(value, keys)
            note = f"; no mean for {_some([repr(k) for k in missing])}" if missing else ""
            for key in stray:
                yield (
                    exp.mean,
                    pointer(sid, tag, key),
                    f"{key!r} is not {tag}_K for an option K in 1..{len(keys)}{note}",
                )
            if not stray:
                for key in missing:
                    yield exp.mean, pointer(sid, tag), f"no mean for {key!r}"


@rule(
    "coggym/mean-missing",
    "every slider and choice question with responses has a mean",
    why="For single-slider, multi-choice and multi-slider questions the mean file is the "
    "summary people use; a stimulus or tag left out of it is silently missing from analyses.",
    bad='ind: "trial_2": {"rating": [3, 4]}; mean: no "trial_2"',
    good='mean: "trial_2": {"rating": 3.5}',
)
def mean_missing(exp: Experiment) -> Iterator[Hit]:
    if exp.mean is None:
        return
    absent: set[str] = set()
    for sid, tag, q, responses in exp.response_lists():
        if q["type"] not in _MEAN_REQUIRED or not responses:
            continue
        stored = exp.mean.data.get(sid)
        if stored is None and sid not in exp.mean.data:
            if sid not in absent:  # one finding per stimulus, not one per tag
                absent.add(sid)
                yield exp.mean, "", f"no mean for stimulus {sid!r}"
        elif isinstance(stored, dict) and tag not in stored:
            yield exp.mean, pointer(sid), f"no mean for tag {tag!r}"


def _choice_mismatches(
    q: dict[str, Any], stored: dict[str, Any], responses: list[Any], tol: float
) -> list[tuple[str, str]]:
    counts, total = choice_counts(responses)
    keys = {option_key(q["tag"], k + 1): k for k in range(len(q["option"]))}
    values = [v for key, v in stored.items() if key in keys and isinstance(v, (int, float))]
    # A proportion never exceeds 1; below that, a file whose every value is its count is a
    # count file (1 of 1, 0 of 3). Otherwise every value is read as a proportion.
    as_counts = any(v > 1 for v in values) or (
        bool(values) and all(same_value(v, counts[keys[key]], 0) for key, v in stored.items() if key in keys)
    )
    kind = "count" if as_counts else "proportion"
    out = []
    broken = _broken(stored)
    for key, k in keys.items():
        want = counts[k] if as_counts else (counts[k] / total if total else None)
        if key in stored:
            if not same_value(stored[key], want, 0 if as_counts else tol):
                out.append((key, f"{kind} {_fmt(stored[key])}, the responses give {_fmt(want)}"))
        elif counts[k] and key not in broken:
            out.append(("", f"no {key!r}, but {counts[k]} of {total} answers chose option {k + 1}"))
    return out


@rule(
    "coggym/mean-value",
    "mean values are the aggregates of the individual responses",
    why="The mean file is derived data: every value must be what the ind file gives (a mean, or "
    "a choice proportion or count), exactly, after rounding to the stored number of decimals, "
    "or within the configured `tolerance`. A difference means one of the files is stale.",
    bad='ind: "rating": [2, 6, 3]; mean: "rating": 2.88',
    good='mean: "rating": 3.67',
)
def mean_value(exp: Experiment) -> Iterator[Hit]:
    if exp.mean is None:
        return
    for sid, tag, q, responses in exp.responses():
        stored_entry = exp.mean_data.get(sid)
        if not isinstance(stored_entry, dict) or tag not in stored_entry or not _means_readable(q):
            continue
        stored = stored_entry[tag]
        base = pointer(sid, tag)
        if isinstance(stored, dict) and q["type"] in _OPTION_MEANS and _stray_keys(stored, _mean_keys(q) or []):
            continue  # coggym/mean-key: values are compared once the keys name the options
        if q["type"] == "multi-choice":
            if isinstance(stored, dict):
                for key, message in _choice_mismatches(q, stored, responses, exp.tolerance):
                    yield exp.mean, base + (pointer(key) if key else ""), message
            continue
        if q["type"] == "single-slider" and not set(map(type, responses)) <= _SLIDER_TYPES:
            continue  # a malformed answer: response-shape reports it, no mean can be computed
        try:
            exact = aggregate_tag(q, responses)
        except TypeError:  # a malformed value inside a click list or a label array: response-shape's
            continue
        if exact is None and q["type"] != "single-slider":
            continue
        if isinstance(exact, dict):
            if not isinstance(stored, dict):
                continue  # coggym/mean-key
            for key, want in exact.items():
                if key not in stored:
                    continue
                ok = same_value(stored[key], want, exp.tolerance)
                if not ok and q["type"] == "multi-select" and want is not None:
                    rows = sum(isinstance(r, list) for r in responses)
                    ok = same_value(stored[key], want * rows, 0)  # counts instead of proportions
                if not ok:
                    yield exp.mean, pointer(sid, tag, key), f"{_fmt(stored[key])}, the responses give {_fmt(want)}"
        elif (isinstance(stored, (int, float)) or stored is None) and not same_value(stored, exact, exp.tolerance):
            if exact is None:
                yield exp.mean, base, f"{_fmt(stored)}, but every answer is null: the mean is null"
            else:
                yield exp.mean, base, f"{_fmt(stored)}, the mean of the responses is {_fmt(exact)}"
