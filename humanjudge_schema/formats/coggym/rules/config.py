"""Rules on config.json against the other files: the flow's ids and blocks, stimuli_count,
responseType, and the media the trials reference."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....engine import Hit
from ....readers.jsonfile import BROKEN, JsonlDocument
from ....registry import rule
from ..model import Experiment
from ..parts import broken_of, objects
from .phrasing import some


def unparsed_trials(exp: Experiment) -> list[int]:
    """The lines of trial.jsonl that did not parse."""
    doc = exp.trial_doc
    return [] if doc is None else [line for r, line in zip(doc.records, doc.lines, strict=True) if r is BROKEN]


def _blocks(exp: Experiment) -> Iterator[tuple[str, list[Any], dict[str, Any]]]:
    """(pointer of the blocks list, blocks, the object holding it) of every readable blocks list,
    for both flow layouts. A block or an id that broke its schema is None."""
    for fi, entry in objects(exp.settings.get("experimentFlow")):
        if isinstance(entry.get("blocks"), list):
            yield f"/experimentFlow/{fi}/blocks", entry["blocks"], entry
        for si, seq in objects(entry.get("sequences")):
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


def _dangling(exp: Experiment) -> list[tuple[str, str]]:
    """(pointer, id) of every id in the flow that is no trial and no module; [] when that cannot
    be known (trial.jsonl is absent, or a record's id cannot be read)."""
    if exp.trial_doc is None or not exp.ids_complete:
        return []
    known = exp.trial_ids | exp.module_ids
    return [(ptr, ident) for ptr, ident in _flow_ids(exp) if ident not in known]


def _unused(exp: Experiment) -> list[tuple[JsonlDocument, int, str, str]]:
    """(document, record index, kind, id) of every trial and module the flow never shows; [] when
    the flow cannot be read whole. A trial that a test_trial module replays is shown."""
    settings = exp.settings
    if exp.config is None or "experimentFlow" not in settings or "experimentFlow" in broken_of(settings):
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
    scope="experiment",
)
def flow_id(exp: Experiment) -> Iterator[Hit]:
    if exp.config is None:
        return
    dangling = _dangling(exp)
    if not dangling:
        return
    where = "trial.jsonl" + (" or instruction.jsonl" if exp.module_doc else "")
    unused = [ident for _, _, _, ident in _unused(exp)]
    hint = f" (in no block: {some([repr(u) for u in unused])})" if unused else ""
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
    scope="experiment",
)
def unused_id(exp: Experiment) -> Iterator[Hit]:
    if _dangling(exp):
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
    scope="experiment",
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
    "misdescribes the experiment. While a line of trial.jsonl does not parse, the number of trials "
    "is unknown: the count is not checked, and coggym/not-checked says so.",
    bad='"stimuli_count": 40  (trial.jsonl has 60 trials)',
    good='"stimuli_count": 60',
    scope="experiment",
)
def stimuli_count(exp: Experiment) -> Iterator[Hit]:
    if exp.trial_doc is None or "stimuli_count" not in exp.settings or unparsed_trials(exp):
        return  # a line that did not parse may be one trial, none or several: coggym/not-checked says so
    stated, actual = exp.settings["stimuli_count"], len(exp.trial_doc.records)
    if stated != actual:
        yield exp.config, "/stimuli_count", f"stimuli_count is {stated}, trial.jsonl has {actual} trials"


@rule(
    "coggym/response-types",
    "responseType lists the trials' query types, and only used ones",
    why="responseType is how the experiment is found and described; it must name every kind of "
    "response the trials collect, and nothing that no trial or quiz uses.",
    bad='"responseType": ["multi-choice"]  (the trials use single-slider)',
    good='"responseType": ["single-slider"]',
    scope="experiment",
)
def response_types(exp: Experiment) -> Iterator[Hit]:
    listing = exp.response_types
    for k, kind in listing.unused:
        yield exp.config, f"/responseType/{k}", f"{kind!r} is used by no query"
    for kind in listing.missing:
        yield exp.config, "/responseType", f"{kind!r} queries collect responses but are not listed"


@rule(
    "coggym/media-missing",
    "a media file the trials reference is missing",
    why="The experiment ships its media, but not this file: the trial shows a broken image or video.",
    bad='"media_url": ["assets/clip_3.mp4"]  (assets/ has clip_1 and clip_2 only)',
    good='"media_url": ["assets/clip_2.mp4"]',
    scope="experiment",
)
def media_missing(exp: Experiment) -> Iterator[Hit]:
    refs = exp.media
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
    scope="experiment",
)
def media_not_shipped(exp: Experiment) -> Iterator[Hit]:
    refs = exp.media
    if refs and not any(ok for _, _, ok in refs):
        yield (
            exp.trial_doc,
            refs[0][0],
            f"no referenced media file is in the folder ({len(refs)} references, e.g. {refs[0][1]!r})",
        )
