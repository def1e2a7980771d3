"""CogGym experiments: a folder of config.json, trial.jsonl, instruction.jsonl,
human_data_ind.json and human_data_mean.json.

Every rule here runs only on documents that passed their schema, so it indexes without guarding
against wrong types; it yields (document, pointer, message) and the engine does the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import Any

from ..aggregate import META_KEYS, aggregate_tag, choice_counts, choice_index, option_key
from ..engine import Context, Hit
from ..finding import pointer
from ..kinds import Unit
from ..numbers import fmt_number as _fmt
from ..numbers import same_value
from ..registry import rule
from ..sources import BROKEN, JsonDocument, JsonlDocument, load

SCHEMA = "coggym/v1/"
# Query types whose mean a mean file must hold; the others' aggregates are optional.
_MEAN_REQUIRED = frozenset({"single-slider", "multi-choice", "multi-slider"})
_URL_PREFIXES = ("http://", "https://", "data:", "//")


@dataclass
class Experiment:
    folder: Path
    tolerance: float
    at_most: bool  # response arrays may be shorter than participants_info.count
    config: JsonDocument | None = None
    trial_doc: JsonlDocument | None = None
    module_doc: JsonlDocument | None = None
    ind: JsonDocument | None = None
    mean: JsonDocument | None = None
    # id -> (record index, record), schema-valid records only, first occurrence of an id
    trials: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    modules: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    # Ids of every record, valid or not: a record that fails its schema still exists, and
    # references to it must not be reported as dangling.
    trial_ids: set[str] = field(default_factory=set)
    module_ids: set[str] = field(default_factory=set)

    @property
    def trials_complete(self) -> bool:
        """Every trial record passed its schema: totals over all trials can be computed."""
        return self.trial_doc is not None and len(self.trials) == len(self.trial_doc.records) == len(self.trial_ids)

    def queries(self, trial_id: str) -> dict[str, dict[str, Any]]:
        """tag -> query of a trial (the first query with that tag)."""
        out: dict[str, dict[str, Any]] = {}
        for q in self.trials[trial_id][1].get("queries", []):
            if "tag" in q and q["type"] != "text-instruction":
                out.setdefault(q["tag"], q)
        return out

    def responses(self) -> Iterator[tuple[str, str, dict[str, Any], list[Any]]]:
        """(stimulus id, tag, query, responses) for every tag of a known trial in the ind file."""
        if self.ind is None:
            return
        for sid, stimulus in self.ind.data.items():
            if sid in META_KEYS or sid not in self.trials:
                continue
            queries = self.queries(sid)
            for tag, responses in stimulus.items():
                if tag in queries:
                    yield sid, tag, queries[tag], responses


def _load_jsonl(
    ctx: Context, path: Path | None, schema: str
) -> tuple[JsonlDocument | None, dict[str, tuple[int, dict[str, Any]]], set[str]]:
    if path is None:
        return None, {}, set()
    doc, problems = load(path)
    ctx.problems(path, problems, doc)
    valid: dict[str, tuple[int, dict[str, Any]]] = {}
    if not isinstance(doc, JsonlDocument):
        return None, valid, set()
    ids = {r["id"] for r in doc.records if isinstance(r, dict) and isinstance(r.get("id"), str)}
    for i, record in enumerate(doc.records):
        if record is not BROKEN and ctx.schema(schema, doc, record, f"/{i}"):
            valid.setdefault(record["id"], (i, record))
    return doc, valid, ids


def _load_json(ctx: Context, path: Path | None, schema: str) -> JsonDocument | None:
    if path is None:
        return None
    doc, problems = load(path)
    ctx.problems(path, problems, doc)
    if isinstance(doc, JsonDocument) and ctx.schema(schema, doc, doc.data):
        return doc
    return None


def load_experiment(unit: Unit, ctx: Context) -> Experiment:
    """Read, parse and schema-check the experiment's files (findings go to ctx)."""
    mode = ctx.config.option("coggym", "response-count", "exact")
    exp = Experiment(unit.root, ctx.config.tolerance, mode == "at-most")
    exp.config = _load_json(ctx, unit.file("config.json"), SCHEMA + "config")
    exp.trial_doc, exp.trials, exp.trial_ids = _load_jsonl(ctx, unit.file("trial.jsonl"), SCHEMA + "trial")
    exp.module_doc, exp.modules, exp.module_ids = _load_jsonl(
        ctx, unit.file("instruction.jsonl"), SCHEMA + "instruction"
    )
    exp.ind = _load_json(ctx, unit.file("human_data_ind.json"), SCHEMA + "human-data-ind")
    exp.mean = _load_json(ctx, unit.file("human_data_mean.json"), SCHEMA + "human-data-mean")
    return exp


def check(unit: Unit, ctx: Context) -> None:
    exp = load_experiment(unit, ctx)
    for r in RULES:
        ctx.run(r, exp)


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
    for doc, name in ((exp.trial_doc, "trial.jsonl"), (exp.module_doc, "instruction.jsonl")):
        if doc is None:
            continue
        for i, record in enumerate(doc.records):
            rid = record.get("id") if isinstance(record, dict) else None
            if not isinstance(rid, str):
                continue
            if rid in seen:
                yield doc, f"/{i}/id", f"id {rid!r} is already used in {seen[rid]}"
            else:
                seen[rid] = f"{name} line {doc.lines[i]}"


@rule(
    "coggym/duplicate-tag",
    "the queries of one trial have distinct tags",
    why="Responses are stored per tag: two queries with one tag write into the same array, and "
    "nobody can tell which answer belongs to which question.",
    bad='"queries": [{"type": "textbox", "tag": "why"}, {"type": "single-slider", "tag": "why", ...}]',
    good='"queries": [{"type": "textbox", "tag": "why"}, {"type": "single-slider", "tag": "how_sure", ...}]',
)
def duplicate_tag(exp: Experiment) -> Iterator[Hit]:
    for i, trial in exp.trials.values():
        seen: set[str] = set()
        for qi, q in enumerate(trial.get("queries", [])):
            tag = q.get("tag")
            if tag is None or q["type"] == "text-instruction":
                continue
            if tag in seen:
                yield (
                    exp.trial_doc,
                    f"/{i}/queries/{qi}/tag",
                    f"tag {tag!r} is used by two queries of trial {trial['id']!r}",
                )
            seen.add(tag)


@rule(
    "coggym/dimension-count",
    "a stimulus has one dimension per media_url",
    why="`dimension[k]` sizes `media_url[k]`; a list of another length leaves media unsized or sizes the wrong one.",
    bad='{"input_type": "img", "media_url": ["a.png", "b.png"], "dimension": [{"width": 400, "height": 300}]}',
    good='{"input_type": "img", "media_url": ["a.png", "b.png"], "dimension": [{"width": 400, "height": 300}, {"width": 400, "height": 300}]}',
)
def dimension_count(exp: Experiment) -> Iterator[Hit]:
    for i, trial in exp.trials.values():
        for si, stimulus in enumerate(trial.get("stimuli", [])):
            if "dimension" in stimulus:
                n, m = len(stimulus["dimension"]), len(stimulus.get("media_url", []))
                if n != m:
                    yield exp.trial_doc, f"/{i}/stimuli/{si}/dimension", f"{n} dimensions for {m} media_url entries"


def _all_queries(exp: Experiment) -> Iterator[tuple[JsonlDocument, str, dict[str, Any], bool]]:
    """(document, pointer, query, is quiz) for every query of the trials and the quiz modules."""
    for i, trial in exp.trials.values():
        for qi, q in enumerate(trial.get("queries", [])):
            yield exp.trial_doc, f"/{i}/queries/{qi}", q, False  # type: ignore[misc]
    # Only a comprehension quiz's queries are checked by the schema; queries on other module
    # types are not part of the format and are left alone.
    for i, module in exp.modules.values():
        if module["type"] == "comprehension_quiz":
            for qi, q in enumerate(module.get("queries", [])):
                yield exp.module_doc, f"/{i}/queries/{qi}", q, True  # type: ignore[misc]


@rule(
    "coggym/slider-config",
    "min < max, and label values and default_value within [min, max]",
    why="A slider whose range is empty or whose labels sit outside it cannot be drawn as the "
    "experimenters meant, and its recorded values cannot be interpreted.",
    bad='"slider_config": {"min": 100, "max": 0, "labels": [{"value": 150, "label": "sure"}]}',
    good='"slider_config": {"min": 0, "max": 100, "labels": [{"value": 100, "label": "sure"}]}',
)
def slider_config(exp: Experiment) -> Iterator[Hit]:
    for doc, ptr, q, _ in _all_queries(exp):
        cfg = q.get("slider_config")
        if not isinstance(cfg, dict) or "min" not in cfg or "max" not in cfg:
            continue
        lo, hi = cfg["min"], cfg["max"]
        if lo >= hi:
            yield doc, f"{ptr}/slider_config/max", f"max {hi!r} is not above min {lo!r}"
            continue
        for li, label in enumerate(cfg.get("labels", [])):
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
        if q["type"] == "multi-choice" and "answer" in q:
            n = len(q.get("option", []))
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
    if exp.trial_doc is None:
        return
    for i, module in exp.modules.values():
        if module["type"] == "test_trial" and module["stimuli_id"] not in exp.trial_ids:
            yield exp.module_doc, f"/{i}/stimuli_id", f"{module['stimuli_id']!r} is not a trial id"


# --- config.json -------------------------------------------------------------------------------


def _blocks(flow: list[Any]) -> Iterator[tuple[str, list[Any], dict[str, Any]]]:
    """(pointer of the blocks list, blocks, the object holding it), for both flow layouts."""
    for fi, entry in enumerate(flow):
        if "blocks" in entry:
            yield f"/experimentFlow/{fi}/blocks", entry["blocks"], entry
        for si, seq in enumerate(entry.get("sequences", [])):
            yield f"/experimentFlow/{fi}/sequences/{si}/blocks", seq["blocks"], seq


@rule(
    "coggym/flow-id",
    "every id in the experiment flow is a trial or an instruction module",
    why="The flow is what participants see; an id that names nothing is a screen that is "
    "silently skipped (or crashes the experiment).",
    bad='"experimentFlow": [{"blocks": [["intro", "trial_99"]]}]',
    good='"experimentFlow": [{"blocks": [["intro", "trial_1"]]}]',
)
def flow_id(exp: Experiment) -> Iterator[Hit]:
    if exp.config is None or exp.trial_doc is None:
        return
    known = exp.trial_ids | exp.module_ids
    for ptr, blocks, _ in _blocks(exp.config.data["experimentFlow"]):
        for bi, block in enumerate(blocks):
            for k, ident in enumerate(block):
                if ident not in known:
                    where = "trial.jsonl" + (" or instruction.jsonl" if exp.module_doc else "")
                    yield exp.config, f"{ptr}/{bi}/{k}", f"{ident!r} is not an id in {where}"


@rule(
    "coggym/block-randomization",
    "block_randomization has one flag per block",
    why="Flag k says whether block k is shuffled; with a list of another length some blocks "
    "have no flag and the experiment software guesses.",
    bad='{"blocks": [["a"], ["b"]], "block_randomization": [true]}',
    good='{"blocks": [["a"], ["b"]], "block_randomization": [true, false]}',
)
def block_randomization(exp: Experiment) -> Iterator[Hit]:
    if exp.config is None:
        return
    for ptr, blocks, holder in _blocks(exp.config.data["experimentFlow"]):
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
    if exp.config is None or exp.trial_doc is None or "stimuli_count" not in exp.config.data:
        return
    stated, actual = exp.config.data["stimuli_count"], len(exp.trial_doc.records)
    if stated != actual:
        yield exp.config, "/stimuli_count", f"stimuli_count is {stated}, trial.jsonl has {actual} trials"


@rule(
    "coggym/response-types",
    "responseType lists the trials' query types, and only used ones",
    why="responseType is how the experiment is found and described; it must name every kind of "
    "response the trials collect, and nothing that no trial or quiz uses.",
    bad='"responseType": ["multi-choice"]  (the trials use single-slider)',
    good='"responseType": ["single-slider"]',
)
def response_types(exp: Experiment) -> Iterator[Hit]:
    if exp.config is None or not exp.trials_complete or "responseType" not in exp.config.data:
        return
    used = {q["type"] for _, _, q, _ in _all_queries(exp)}
    stated = exp.config.data["responseType"]
    # Quiz questions may be listed but need not be: they check comprehension, not the response.
    collecting = {q["type"] for _, _, q, quiz in _all_queries(exp) if not quiz} - {"text-instruction"}
    for k, kind in enumerate(stated):
        if kind not in used:
            yield exp.config, f"/responseType/{k}", f"{kind!r} is used by no query"
    for kind in sorted(collecting - set(stated)):
        yield exp.config, "/responseType", f"{kind!r} queries collect responses but are not listed"


def _media(exp: Experiment) -> Iterator[tuple[str, str, bool]]:
    """(pointer, relative url, file exists) for every local media reference of the trials."""
    for i, trial in exp.trials.values():
        for si, stimulus in enumerate(trial.get("stimuli", [])):
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
    severity="warning",
    why="Both human data files should say how many people took part and how many judgments "
    "they hold; without it the response counts cannot be checked. Real releases omit them, so "
    "this is a warning.",
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
    for doc in (exp.ind, exp.mean):
        info = doc.data.get("participants_info") if doc is not None else None
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
        a, b = exp.ind.data.get(key), exp.mean.data.get(key)
        if a is None or b is None or a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            for sub in sorted(a.keys() | b.keys()):
                if a.get(sub) != b.get(sub):
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
    if query["type"] == "single-slider" and query.get("slider_config", {}).get("num_clicks", 1) > 1:
        return sum(len(r) if isinstance(r, list) else 1 for r in responses)
    return len(responses)


@rule(
    "coggym/judgment-count",
    "judgment_count is the number of individual ratings in the ind file",
    why="judgment_count is what a reader quotes as the size of the data; it is defined as one per "
    "answer (nulls included), one per click when num_clicks > 1, one per multi-select row and one "
    "per label value of a multi-slider, over the keys that are query tags.",
    bad='"judgment_count": 10  (two trials, four participants, one slider each: 8 ratings)',
    good='"judgment_count": 8',
)
def judgment_count(exp: Experiment) -> Iterator[Hit]:
    if exp.ind is None or "judgment_count" not in exp.ind.data or not exp.trials_complete:
        return
    actual = sum(judgment_count_of(q, r) for _, _, q, r in exp.responses())
    stated = exp.ind.data["judgment_count"]
    if stated != actual:
        yield exp.ind, "/judgment_count", f"judgment_count is {stated}, the file holds {actual} individual ratings"


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
    if exp.trial_doc is None:
        return
    for doc in _data_docs(exp):
        for sid in doc.data:
            if sid not in META_KEYS and sid not in exp.trial_ids:
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
    for tid, (i, _) in exp.trials.items():
        if tid not in exp.ind.data and exp.queries(tid):
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
    if exp.trial_doc is None:
        return
    for doc in _data_docs(exp):
        for sid, stimulus in doc.data.items():
            if sid in META_KEYS or sid not in exp.trials:
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
        if sid in META_KEYS or sid not in exp.trials:
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
    'the stimuli break it; such a project sets `coggym.response-count = "at-most"`.',
    bad='"participants_info": {"count": 4, ...}, "trial_1": {"rating": [3, 5, 4]}',
    good='"participants_info": {"count": 4, ...}, "trial_1": {"rating": [3, 5, 4, 2]}',
)
def response_count(exp: Experiment) -> Iterator[Hit]:
    if exp.ind is None or "participants_info" not in exp.ind.data:
        return
    n = exp.ind.data["participants_info"]["count"]
    for sid, tag, q, responses in exp.responses():
        for suffix, m in _count_of(q, responses):
            if m != n and not (exp.at_most and m < n):
                yield exp.ind, pointer(sid, tag) + suffix, f"{m} responses, participants_info.count is {n}"


def _shape_problem(kind: str, query: dict[str, Any], r: Any) -> str | None:
    """Why a response does not fit its query type, or None."""
    number = (int, float)
    if kind == "single-slider":
        clicks = query.get("slider_config", {}).get("num_clicks", 1)
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
        allowed = _SHAPE_TYPES.get(kind)
        if kind == "single-slider" and q.get("slider_config", {}).get("num_clicks", 1) > 1:
            allowed = _LIST
        if allowed is not None and set(map(type, responses)) <= allowed and kind != "multi-slider":
            continue  # every element has an allowed type: the common case, decided in C
        for k, r in enumerate(responses):
            problem = _shape_problem(kind, q, r)
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
        if q["type"] not in ("multi-choice", "ranking"):
            continue
        n = len(q.get("option", []))
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
        if q["type"] not in ("multi-choice", "ranking"):
            continue
        options = q.get("option", [])
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
        if q["type"] != "multi-select":
            continue
        n = len(q.get("option", []))
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
        if q["type"] != "ranking":
            continue
        n = len(q.get("option", []))
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
        clicks = q.get("slider_config", {}).get("num_clicks", 1)
        if q["type"] != "single-slider" or clicks == 1:
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
        if q["type"] not in ("single-slider", "multi-slider"):
            continue
        lo, hi = q["slider_config"]["min"], q["slider_config"]["max"]
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
        if q["type"] != "multi-slider":
            continue
        options = [str(o) for o in q.get("option", [])]
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
    """The keys a mean object of this query may have, or None when the mean is a number/free."""
    if q["type"] in ("multi-choice", "multi-slider", "multi-select"):
        return [option_key(q["tag"], k) for k in range(1, len(q.get("option", [])) + 1)]
    return None


@rule(
    "coggym/mean-key",
    "mean keys match the trial's tags and option positions",
    why="A mean file mirrors the ind file: tag -> number for sliders, tag -> {tag_K: value} for "
    "choices (K = option position, 1-based). Keys are matched against the known tags and option "
    "counts, never parsed, because tags can themselves end in _<digits>.",
    bad='"option": ["a", "b"]; "goal": {"goal_1": 0.5, "goal_3": 0.5}',
    good='"goal": {"goal_1": 0.5, "goal_2": 0.5}',
)
def mean_key(exp: Experiment) -> Iterator[Hit]:
    if exp.mean is None or exp.trial_doc is None:
        return
    for sid, stimulus in exp.mean.data.items():
        if sid in META_KEYS or sid not in exp.trials:
            continue
        queries = exp.queries(sid)
        for tag, value in stimulus.items():
            q = queries.get(tag)
            if q is None:
                continue  # coggym/unknown-tag
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
            for key in value:
                if key not in keys:
                    yield exp.mean, pointer(sid, tag, key), f"{key!r} is not {tag}_K for an option K in 1..{len(keys)}"
            if q["type"] == "multi-slider":
                for key in keys:
                    if key not in value:
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
    for sid, tag, q, responses in exp.responses():
        if q["type"] not in _MEAN_REQUIRED or not responses:
            continue
        if sid not in exp.mean.data:
            yield exp.mean, "", f"no mean for stimulus {sid!r}"
        elif tag not in exp.mean.data[sid]:
            yield exp.mean, pointer(sid), f"no mean for tag {tag!r}"


def _choice_mismatches(
    q: dict[str, Any], stored: dict[str, Any], responses: list[Any], tol: float
) -> list[tuple[str, str]]:
    counts, total = choice_counts(responses)
    keys = {option_key(q["tag"], k + 1): k for k in range(len(q.get("option", [])))}
    values = [v for key, v in stored.items() if key in keys and isinstance(v, (int, float))]
    # A proportion never exceeds 1; below that, a file whose every value is its count is a
    # count file (1 of 1, 0 of 3). Otherwise every value is read as a proportion.
    as_counts = any(v > 1 for v in values) or (
        bool(values) and all(same_value(v, counts[keys[key]], 0) for key, v in stored.items() if key in keys)
    )
    kind = "count" if as_counts else "proportion"
    out = []
    for key, k in keys.items():
        want = counts[k] if as_counts else (counts[k] / total if total else None)
        if key in stored:
            if not same_value(stored[key], want, 0 if as_counts else tol):
                out.append((key, f"{kind} {_fmt(stored[key])}, the responses give {_fmt(want)}"))
        elif counts[k]:
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
        stored_entry = exp.mean.data.get(sid)
        if not isinstance(stored_entry, dict) or tag not in stored_entry:
            continue
        stored = stored_entry[tag]
        base = pointer(sid, tag)
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


RULES = [
    duplicate_id,
    duplicate_tag,
    dimension_count,
    slider_config,
    answer,
    test_trial_stimulus,
    flow_id,
    block_randomization,
    stimuli_count,
    response_types,
    media_missing,
    media_not_shipped,
    metadata_missing,
    age_sentinel,
    metadata_mismatch,
    judgment_count,
    unknown_stimulus,
    no_human_data,
    unknown_tag,
    missing_tag,
    response_count,
    response_shape,
    bare_choice_index,
    choice_index_rule,
    choice_text,
    multi_select_row,
    ranking,
    num_clicks,
    slider_value,
    multi_slider_labels,
    mean_key,
    mean_missing,
    mean_value,
]
