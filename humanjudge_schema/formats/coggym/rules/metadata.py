"""Rules on the metadata of human_data_ind.json and human_data_mean.json (participants_info,
judgment_count), on the citation config.json carries (paperDOI, the experiment's name, its
description, the people to credit), on a release without its instruction modules, and on the
checks over the whole experiment that could not be made."""

from __future__ import annotations

import os
from collections.abc import Iterator

from ....doi import doi_problem
from ....engine import Hit
from ....finding import pointer
from ....registry import rule
from ..aggregation import META_KEYS
from ..model import Experiment
from ..parts import broken_of
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
            broken = broken_of(a) | broken_of(b)  # the schema reports those; a comparison would repeat it
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
    "unknown and the check is not made. So are the values of a per-option mean whose keys do not "
    "tell which option each stands for (neither `<tag>_K` nor the options' texts, and not one per "
    "option in order: coggym/mean-key reports the keys). The schema error or the key is what to "
    "fix; this warning says which check is still to come, so that a run never looks more complete "
    "than it was.",
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
    if exp.wants("coggym/mean-value"):
        # imported here: the rule modules are imported, and their rules run, in theme order
        from .means import unread_means

        for at, message in unread_means(exp):
            yield exp.mean, at, message


# --- the citation config.json carries ---------------------------------------------------------


@rule(
    "coggym/paper-doi",
    "paperDOI is the paper's DOI, bare or as a doi.org address",
    severity="warning",
    why="paperDOI is how a user of the data finds and cites the paper; a dataset card reads it "
    "as the citation. A DOI is `10.<registrant>/<suffix>`, written bare, after `doi:`, or after "
    "`https://doi.org/` (or `dx.doi.org`); the rule reports a value of another form, with the "
    "reason: empty, a stand-in for 'none' (`https://doi.org/N/A`: leave the key out when the "
    "paper has no DOI), an address on another site, or no DOI at all. Whether a well-formed DOI "
    "belongs to the paper cannot be told from its text (`10.1111` is Wiley's real prefix, and a "
    "suffix may be any string), and the tool never opens a network connection to resolve it. So "
    "only two kinds of placeholder are reported, both certain: the example DOI of the CogGym "
    "documentation and template, `10.1111/example.doi.12345`, copied unchanged; and the test "
    "prefixes of Crossref (`10.5555`) and DataCite (`10.5072`), under which no DOI is registered. "
    "Other made-up DOIs (`10.0000/example`) are not recognised. An experiment with no paperDOI "
    "is not reported: it may be unpublished.",
    bad='"paperDOI": "https://doi.org/N/A"   "paperDOI": "https://doi.org/10.1111/example.doi.12345"',
    good='"paperDOI": "https://doi.org/10.1016/j.cognition.2021.104890"  (or no paperDOI)',
)
def paper_doi(exp: Experiment) -> Iterator[Hit]:
    value = exp.settings.get("paperDOI")
    if isinstance(value, str) and (problem := doi_problem(value)) is not None:
        yield exp.config, "/paperDOI", problem


def _named(value: object) -> bool:
    """Whether a list of names (or, for the uninterpreted `authors`, a string) names anyone."""
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, list) and any(isinstance(v, str) and v.strip() for v in value)


@rule(
    "coggym/citation-missing",
    "config.json names the experiment, describes it and names the people who made it",
    severity="warning",
    why="The experiment's name, its description and its people (`contributors`, which the "
    "format documents, or `authors`, which real releases write instead) are what a catalogue, a "
    "dataset card or a citation shows of the experiment; the format lists them in config.json. "
    "The rule reports each that is missing or empty (a name that is only spaces is empty). A "
    "missing experimentName is a schema error, reported as such; so is a value of the wrong type.",
    bad='{"experimentName": "", "contributors": [], "experimentFlow": [...]}',
    good='{"experimentName": "Inferring goals (Exp 1)", "description": "Participants watch ...", '
    '"contributors": ["Jane Doe"], "experimentFlow": [...]}',
)
def citation_missing(exp: Experiment) -> Iterator[Hit]:
    if exp.config is None:
        return  # dataset/missing-companion says config.json is not there
    settings, broken = exp.settings, broken_of(exp.settings)
    for key in ("experimentName", "description"):
        value = settings.get(key)
        if isinstance(value, str) and not value.strip():
            yield exp.config, pointer(key), f"{key} is empty"
        elif key == "description" and key not in settings and key not in broken:
            yield exp.config, "", "no description of the experiment"
    people = [k for k in ("contributors", "authors") if k in settings]
    if not any(_named(settings[k]) for k in people) and "contributors" not in broken:
        if people:
            yield exp.config, pointer(people[0]), f"{people[0]} names nobody"
        else:
            yield exp.config, "", "no contributors (nor authors): the experiment names nobody to credit"


@rule(
    "coggym/no-instructions",
    "the experiment has its instruction.jsonl",
    severity="warning",
    why="instruction.jsonl holds what participants read before the trials (instructions, "
    "comprehension quizzes, test trials): without it the release does not say what people were "
    "told, and the flow's ids that name modules cannot be told from misspelt trial ids "
    "(coggym/flow-id reports each of them as unknown; this warning names the cause once). "
    "Checked when config.json and trial.jsonl are there: without a flow nothing would show a "
    "module, and without trial.jsonl the experiment cannot be read at all (dataset/missing-file).",
    bad="exp1/config.json, trial.jsonl, human_data_ind.json  (no instruction.jsonl)",
    good="exp1/config.json, trial.jsonl, instruction.jsonl, human_data_ind.json",
)
def no_instructions(exp: Experiment) -> Iterator[Hit]:
    if exp.config is None or exp.trial_doc is None or exp.module_doc is not None:
        return
    # A file that is there but could not be read (a Git LFS pointer, a pipe) is reported as such.
    if os.path.lexists(exp.folder / "instruction.jsonl"):
        return
    yield (
        exp.config,
        "",
        f"no instruction.jsonl in {exp.folder.name or exp.folder}/: what participants were told before the trials is "
        "not in the release, and flow ids that name modules read as unknown ids",
    )
