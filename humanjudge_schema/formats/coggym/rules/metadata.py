"""Rules on the metadata of human_data_ind.json and human_data_mean.json (participants_info,
judgment_count), and on the checks over the whole experiment that could not be made."""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....finding import pointer
from ....registry import rule
from ..aggregation import META_KEYS
from ..model import Experiment
from ..parts import _broken
from .config import unparsed_trials
from .phrasing import short, some


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
                        (f"{key}.{sub} is {short(b.get(sub))} here, {short(a.get(sub))} in human_data_ind.json"),
                    )
        else:
            yield exp.mean, pointer(key), f"{key} is {short(b)} here, {short(a)} in human_data_ind.json"


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
    why="judgment_count is compared with a total over every response, stimuli_count with the "
    "number of trials, and responseType with the types of every query. When a part such a total "
    "needs breaks its schema (a query whose type or tag cannot be read, a response that is not an "
    "array, a record that is not an object) or a line of trial.jsonl does not parse, the total is "
    "unknown and the check is not made. The schema error is what to fix; this "
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
                f"judgment_count could not be checked: the responses or queries of {some(unread)} cannot be read",
            )
    if exp.wants("coggym/stimuli-count") and "stimuli_count" in exp.settings and (lines := unparsed_trials(exp)):
        yield (
            exp.config,
            "/stimuli_count",
            f"stimuli_count could not be checked: trial.jsonl line{'s' if len(lines) > 1 else ''} "
            f"{some([str(n) for n in lines])} did not parse, and a line that does not parse may hold one "
            "trial, none or several",
        )
    if exp.wants("coggym/response-types"):
        listing = exp.response_types
        if listing.undecided:
            yield (
                exp.config,
                "/responseType",
                f"responseType could not be checked for {some([repr(k) for k in listing.undecided])}: "
                f"{some(listing.unread)} cannot be read",
            )
