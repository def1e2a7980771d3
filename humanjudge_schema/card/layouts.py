"""Where each built-in format keeps what a card says: its name, description, citation and URL, and
how a Croissant record set reads its judgments from the original files.

This is the one place outside formats/ that knows the built-in formats' files: a card describes
the bytes as published, so it needs their layout, which the formats' views (made for reading, not
for describing) do not declare. A format not named here says what it knows through its catalog
entry's `card` (catalog.Format.card: every declared format's is formats/declared/card.py): its
metadata, the record sets reading its files, and where a record set of each question's judgments
reads them, which is made here as the built-in formats' are. A format with neither (a plug-in)
gets a card with its files, its RAI figures and placeholders for the rest, and no record set.

What Croissant can express: one record per line of a JSON Lines file or per row of a CSV file,
each field a column (`extract.column`); in a JSON file, one record per match of a JSONPath, the
fields' paths giving lists of equal length (mlcroissant evaluates them with jsonpath-rw, which
returns values, never object keys or array positions, and steps back up with `parent`).
- study 1: every rating of study1_tasks.jsonl.gz (item = topic, rater = worker): all judgments.
- HALIE: the survey's answers (item = session_id, rater = worker_id; dialogue's turn ratings,
  whose item is the session and the turn together, are not) and the question task's answers
  (item = question_id); the event blocks' other judgments have an item made of two columns.
- TextJudge: a record per instance, in two record sets (one per role): the instance's id, and per
  metric its individual scores (a list, a score per rater position) or its stored aggregates.
  Every field reads the same JSONPath (`$.instances[*]`, one value per instance) and picks its
  part with a transform: mlcroissant reads a JSON file into one table for all the record sets
  that read it, whose columns must then be of one length, so the file is named once in the
  distribution. A score's rater is its position in its list, which JSONPath cannot give.
- CogGym: none. An item is a stimulus id that is an object key in human_data_ind.json and a
  rater is a position in an array; JSONPath gives neither. The card describes the trials
  (trial.jsonl, one record per trial) and says that `humanjudge export` gives the judgments.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..doi import doi_url
from ..kinds import Unit
from ..readers.files import DEFAULT_MAX_DOCUMENT, read_bytes
from .facts import Facts
from .rai import placeholder, quoted


@dataclass
class Layout:
    """What a format's files say of the dataset, and the record sets that read its judgments."""

    metadata: dict[str, Any] = field(default_factory=dict)
    record_sets: list[dict[str, Any]] = field(default_factory=list)
    participants: dict[str, Any] | None = None  # a CogGym experiment's participants_info
    # where the judgments are, when no record set can read them
    note: str | None = None
    # the records of each record set that holds other than one per judgment (@id -> how many),
    # which `card --check` compares with the number its description states
    records: dict[str, int] = field(default_factory=dict)
    # what a file's FileObject says beyond its size and hash, by its @id (a declared file's
    # encoding format, and why no record set reads it)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)


# HALIE survey cells whose value says the question was not asked (the crossword task's `joy`)
NOT_ASKED = {"joy": -1}
NO_CITATION = "the files carry no citation: take it from where the data was published"


def layout(unit: Unit, facts: Facts, ids: dict[Path, str]) -> Layout:
    """The layout of a dataset; `ids` gives each data file's `@id` in the card's distribution."""
    found = _LAYOUTS.get(unit.family, _described)(unit, facts, ids)
    defaults = {
        "name": placeholder("the dataset's name (the files carry none)"),
        "description": placeholder("what the dataset is: the items, the questions asked, who answered them"),
        "citeAs": placeholder(NO_CITATION),
        "url": placeholder("the dataset's home page (a URL)"),
        "license": placeholder("the license of the data (e.g. https://creativecommons.org/licenses/by/4.0/)"),
    }
    found.metadata = {**defaults, **{k: v for k, v in found.metadata.items() if v}}
    return found


def _described(unit: Unit, facts: Facts, ids: dict[Path, str]) -> Layout:
    """The layout a format's catalog entry gives (catalog.Format.card), with a record set of each
    question's judgments where it says where one reads them."""
    from .. import catalog

    hook = catalog.get(unit.family).card
    if hook is None:
        return Layout(note=f"`humanjudge export {unit.root.name}` writes the judgments as one table")
    said: dict[str, Any] = catalog.load(hook)(unit, ids)
    out = Layout(
        dict(said.get("metadata") or {}),
        note=said.get("note"),
        records=dict(said.get("records") or {}),
        files=dict(said.get("files") or {}),
    )
    for where in said.get("judgments") or ():
        question, role, stored = where["question"], where["role"], where.get("stored")
        n = facts.individual[question] if role == "individual" else facts.stored[question, stored or ""]
        if n and _only_in(facts, question, where["file"], role):
            out.record_sets.append(_judgment_set(facts, question, role, where["sources"], stored))
    out.record_sets += said.get("recordSet") or []
    return out


def _json(path: Path | None) -> Any:
    if path is None:
        return None
    import orjson

    raw = read_bytes(path, DEFAULT_MAX_DOCUMENT)  # bounded as validate reads it by default
    if not isinstance(raw, bytes):
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _coggym(unit: Unit, facts: Facts, ids: dict[Path, str]) -> Layout:
    config = _json(unit.file("config.json"))
    config = config if isinstance(config, dict) else {}
    ind = _json(unit.file("human_data_ind.json"))
    info = ind.get("participants_info") if isinstance(ind, dict) else None
    doi = doi_url(config.get("paperDOI"))
    citation = _text(config.get("citation"))
    words = [w for key in ("taskType", "keywords") for w in config.get(key) or () if isinstance(w, str)]
    authors = [a for a in config.get("authors") or () if isinstance(a, str) and a.strip()]
    metadata: dict[str, Any] = {
        "name": _text(config.get("experimentName")),
        "description": _text(config.get("description")),
        "citeAs": f"{citation} {doi}" if citation and doi and doi not in citation else citation or doi,
        "url": doi,
        "license": _text(config.get("license")),
        "keywords": sorted(set(words)),
        "creator": [{"@type": "sc:Person", "name": a} for a in authors],
        "datePublished": str(config["year"]) if isinstance(config.get("year"), int) else None,
    }
    out = Layout(metadata, participants=info if isinstance(info, dict) else None)
    trials = unit.file("trial.jsonl")
    if trials is not None and trials in ids:
        source = {"fileObject": {"@id": ids[trials]}, "extract": {"column": "id"}}
        out.record_sets.append(
            {
                "@type": "cr:RecordSet",
                "@id": "trials",
                "name": "trials",
                "description": "One record per trial of trial.jsonl: its id (a stimulus of the judgments).",
                "field": [_field("trials", "id", "sc:Text", source, "the trial's id")],
            }
        )
    out.note = (
        "The judgments are in human_data_ind.json, keyed by stimulus id and by a participant's position in "
        f"each array, which a Croissant record set cannot read; `humanjudge export {unit.root.name} --to jsonl` "
        "writes them as one record per judgment."
    )
    return out


def _textjudge(unit: Unit, facts: Facts, ids: dict[Path, str]) -> Layout:
    path = unit.files[0]
    top = _json(path)
    top = top if isinstance(top, dict) else {}
    name = _text(top.get("dataset"))
    url = _text(top.get("dataset_url"))
    metadata: dict[str, Any] = {
        "name": name,
        "citeAs": name,  # the format's `dataset` names the source with its authors and venue
        "url": url if url and url.startswith(("https://", "http://")) else None,
        "license": _text(top.get("license")),
    }
    out = Layout(metadata)
    file_id = ids.get(path)
    instances = top.get("instances")
    if file_id is None or not isinstance(instances, list):
        return out
    metrics = [q.question for q in facts.questions() if not ("'" in q.question and '"' in q.question)]
    scores = [(m, "individual_human_scores") for m in metrics if facts.individual[m]]
    stored = [
        (m, kind)
        for m in metrics
        for kind in ("mean_human", "majority_human")
        if facts.aggregates[m] and _stores(top, m, kind)
    ]
    for role, parts in (("individual", scores), ("aggregate", stored)):
        if parts:
            rs = _instances(facts, role, file_id, parts, len(instances))
            out.record_sets.append(rs)
            out.records[rs["@id"]] = len(instances)
    return out


# What a TextJudge file's record sets are called, per role.
INSTANCE_SETS = {"individual": "judgments", "aggregate": "aggregates"}


def _instances(facts: Facts, role: str, file_id: str, parts: list[tuple[str, str]], n: int) -> dict[str, Any]:
    """The record set of one role of a TextJudge file: a record per instance, its id and a field
    per (metric, what of it); each field reads the instance and picks its part with a transform."""
    rs = INSTANCE_SETS[role]
    individual = role == "individual"
    what = "its individual scores (a list, a score per rater position)" if individual else "its stored aggregates"
    description = (
        f"One record per instance: {n} records. Fields: item (the instance's id) and, per metric, {what}; "
        "`humanjudge export` writes the same values one row per " + ("judgment." if individual else "stored aggregate.")
    )
    source = {"fileObject": {"@id": file_id}, "extract": {"jsonPath": "$.instances[*]"}}
    fields = [_field(rs, "item", "sc:Text", {**source, "transform": {"jsonPath": "id"}}, "the instance's id")]
    taken = {"item"}
    for metric, kind in parts:
        key = f"'{metric}'" if "'" not in metric else f'"{metric}"'
        name = metric if individual else f"{metric}.{kind}"
        unique, k = _safe(name), 1
        while unique in taken:
            k += 1
            unique = f"{_safe(name)}_{k}"
        taken.add(unique)
        typed = _data_type(facts.types.get((metric, role), set()))
        about = f"the individual scores of {quoted(metric)}" if individual else f"the {kind} of {quoted(metric)}"
        found = {**source, "transform": {"jsonPath": f"annotations.{key}.{kind}"}}
        made = _field(rs, unique, typed, found, about)
        made["name"] = name
        if individual:
            made["repeated"] = True
        fields.append(made)
    return {"@type": "cr:RecordSet", "@id": rs, "name": rs, "description": description, "field": fields}


def _stores(top: dict[str, Any], metric: str, stored: str) -> bool:
    for instance in top.get("instances") or ():
        annotations = instance.get("annotations") if isinstance(instance, dict) else None
        scores = annotations.get(metric) if isinstance(annotations, dict) else None
        if isinstance(scores, dict) and stored in scores:
            return True
    return False


def _study1(unit: Unit, facts: Facts, ids: dict[Path, str]) -> Layout:
    out = Layout({"citeAs": placeholder(NO_CITATION)})
    tasks = unit.file("study1_tasks.jsonl.gz")
    if tasks is None or tasks not in ids:
        return out
    for q in facts.questions():
        name = q.question
        if facts.individual[name] and facts.files.get((name, "individual")) and _only_in(facts, name, tasks):
            columns = {"item": "topic", "rater": "worker", "value": name}
            rs = _judgments(facts, name, "individual", ids[tasks], columns, column=True)
            rs["description"] += " A record whose value is null is a missing answer."
            out.record_sets.append(rs)
    return out


def _only_in(facts: Facts, question: str, path: Path, role: str = "individual") -> bool:
    files = facts.files.get((question, role), set())
    return len(files) == 1 and Path(next(iter(files))).name == path.name


def _halie(unit: Unit, facts: Facts, ids: dict[Path, str]) -> Layout:
    from ..readers.csvfile import read_header

    out = Layout({"citeAs": placeholder(NO_CITATION)})
    for name, item in (("survey_responses.csv", "session_id"), ("event_blocks.csv", "question_id")):
        path = unit.file(name)
        if path is None or path not in ids:
            continue
        header = read_header(path)
        columns = set(header) if isinstance(header, list) else set()
        if item not in columns or "worker_id" not in columns:
            continue
        for q in facts.questions():
            question = q.question
            # a turn's ratings (dialogue) have the session and the turn for item: two columns
            per_turn = "turn_id" in columns and question != "quality"
            if question not in columns or per_turn or not _only_in(facts, question, path):
                continue
            if name == "event_blocks.csv" and question != "user_answer":  # other block judgments: two columns
                continue
            places = {"item": item, "rater": "worker_id", "value": question}
            rs = _judgments(facts, question, "individual", ids[path], places, column=True)
            rs["description"] += " A row whose cell is empty loads as a record with no value: not a judgment."
            if question in NOT_ASKED and name == "survey_responses.csv":
                said = f" A value of {NOT_ASKED[question]} means the question was not asked: not a judgment."
                rs["description"] += said
            out.record_sets.append(rs)
    return out


def _judgments(
    facts: Facts,
    question: str,
    role: str,
    file_id: str,
    places: dict[str, str],
    stored: str | None = None,
    *,
    column: bool = False,
) -> dict[str, Any]:
    """The record set of one question's judgments (or of one kind of its stored aggregates), each
    field a column (`column`) or a JSONPath of the file."""
    sources = {
        name: {"fileObject": {"@id": file_id}, "extract": {"column": place} if column else {"jsonPath": place}}
        for name, place in places.items()
    }
    return _judgment_set(facts, question, role, sources, stored)


def _judgment_set(
    facts: Facts, question: str, role: str, sources: dict[str, dict[str, Any]], stored: str | None = None
) -> dict[str, Any]:
    """The record set of one question's judgments (or of one kind of its stored aggregates): a
    field per column of export (item, rater, value) read from its Croissant source."""
    what = "judgment" if role == "individual" else "stored aggregate"
    n = facts.individual[question] if role == "individual" else facts.stored[question, stored or ""]
    rs = _safe(question if stored is None else f"{question}.{stored}")
    description = (
        f"One record per {what} of {quoted(question)}: {n} records"
        + (f" ({stored})" if stored else "")
        + ". Fields: "
        + ", ".join(sources)
        + " (the columns of `humanjudge export` of the same names)."
    )
    data_type = _data_type(facts.types.get((question, role), set()))
    kinds = {"item": ("sc:Text", "the item judged"), "rater": ("sc:Text", "the rater")}
    fields = []
    for name, source in sources.items():
        typed, about = kinds.get(name, (data_type, "the answer"))
        fields.append(_field(rs, name, typed, source, about))
    return {"@type": "cr:RecordSet", "@id": rs, "name": rs, "description": description, "field": fields}


def _field(rs: str, name: str, data_type: str, source: dict[str, Any], about: str) -> dict[str, Any]:
    return {
        "@type": "cr:Field",
        "@id": f"{rs}/{name}",
        "name": name,
        "description": about,
        "dataType": data_type,
        "source": source,
    }


def _data_type(types: set[type]) -> str:
    if types and all(t is bool for t in types):
        return "sc:Boolean"
    if types and all(t in (int, float) for t in types):
        return "sc:Float"
    return "sc:Text"


def _safe(name: str) -> str:
    """A record set's @id: the question's name with anything but letters, digits, `_`, `-` and `.`
    made `_` (its real name is in its description)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "_"


_LAYOUTS: dict[str, Callable[[Unit, Facts, dict[Path, str]], Layout]] = {
    "coggym": _coggym,
    "textjudge": _textjudge,
    "study1": _study1,
    "halie": _halie,
}
