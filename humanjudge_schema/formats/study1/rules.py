"""The crowdsourced RAG writing study ("study 1"): four gzipped JSON Lines files, checked together.

study1_tasks.jsonl.gz        one task per (topic, style): a worker writes one response
study1_retrieval.jsonl.gz    one record per topic: the query and its 20 references
study1_responses_llm.jsonl.gz  one GPT-4o baseline response per (topic, style)
study1_responses_human.jsonl.gz  the writing log: snapshots of every response, ~300 ms apart

Every file is read as a stream, once, in that order. The writing log is the big one (235 MB
decompressed): nothing of it is kept but a few facts per run of snapshots (a run is the
consecutive lines of one response) and the records a finding points at, so memory stays flat
whatever its size. Rules then decide on those facts; they yield (document, pointer, message).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...engine import Context, Hit
from ...kinds import Unit
from ...readers.gzjsonl import BROKEN, GzipJsonLines, StreamedDocument
from ...registry import rule, rules_of
from ...schemas import validator

SCHEMA = "study1/v1/"
TASKS, RETRIEVAL = "study1_tasks.jsonl.gz", "study1_retrieval.jsonl.gz"
HUMAN, LLM = "study1_responses_human.jsonl.gz", "study1_responses_llm.jsonl.gz"
# A citation: 0-based reference indices in brackets, `[0, 10]`; a trailing comma is tolerated
# (`[11,1516,]` is read as 11 and 1516).
_CITATION = re.compile(r"\[\s*\d+\s*(?:,\s*\d+\s*)*,?\s*\]")
_DIGITS = re.compile(r"\d+")
_MAX_FINAL_TEXTS = 64  # distinct texts remembered at a run's final timestamp
_DOCS = {TASKS: "tasks_doc", RETRIEVAL: "retrieval_doc", LLM: "llm_doc", HUMAN: "human_doc"}


@dataclass(frozen=True)
class Record:
    """What the rules need of a task, a retrieval topic or an LLM response."""

    index: int
    response: str | None
    topic: str | None
    style: str | None
    references: int | None = None  # retrieval: the number of reference ids
    texts: int | None = None  # retrieval: the number of reference texts
    repeated_ids: tuple[tuple[int, str, int], ...] = ()  # retrieval: (position, id, first position)
    citations: tuple[tuple[str, int], ...] = ()  # LLM: (citation, largest index)


@dataclass
class Run:
    """Consecutive snapshots of one response in the writing log."""

    response: str
    first: int  # record index of the first snapshot
    last: int = -1  # record index of the last snapshot
    pairs: dict[tuple[str | None, str | None], int] = field(default_factory=dict)  # (topic, style) -> first index
    topic: str | None = None
    final_texts: int = 0  # distinct texts at the run's largest timestamp
    final_timestamp: Any = None
    final: int = -1  # record index of the last snapshot at the final timestamp
    citations: tuple[tuple[str, int], ...] = ()  # of the last snapshot's text
    earlier: int | None = None  # first index of an earlier run of the same response


@dataclass
class Study:
    folder: Path
    tasks_doc: StreamedDocument | None = None
    retrieval_doc: StreamedDocument | None = None
    llm_doc: StreamedDocument | None = None
    human_doc: StreamedDocument | None = None
    complete: dict[str, bool] = field(default_factory=dict)  # file name -> read to its end
    tasks: list[Record] = field(default_factory=list)
    topics: list[Record] = field(default_factory=list)
    llm: list[Record] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    decreases: list[tuple[int, Any, Any]] = field(default_factory=list)  # (index, timestamp, previous)

    def task_of(self) -> dict[str, Record]:
        """response UUID -> its (first) task."""
        out: dict[str, Record] = {}
        for t in self.tasks:
            if t.response is not None:
                out.setdefault(t.response, t)
        return out

    def references(self) -> dict[str, int]:
        """topic -> number of references, for topics whose reference list is known."""
        out: dict[str, int] = {}
        for r in self.topics:
            if r.topic is not None and r.references is not None:
                out.setdefault(r.topic, r.references)
        return out

    def known_topics(self) -> set[str] | None:
        """Every topic of the retrieval file, or None when it was not read completely."""
        if self.retrieval_doc is None or not self.complete.get(RETRIEVAL):
            return None
        return {r.topic for r in self.topics if r.topic is not None}


def _str(record: Any, key: str) -> str | None:
    value = record.get(key) if isinstance(record, dict) else None
    return value if isinstance(value, str) else None


def citations(text: str) -> tuple[tuple[str, int], ...]:
    """(citation as written, its largest index) for every citation in a text."""
    out = []
    for m in _CITATION.finditer(text):
        digits = _DIGITS.findall(m.group())
        out.append((m.group(), max(int(d) if len(d) <= 9 else 10**9 for d in digits)))
    return tuple(out)


def _read(
    ctx: Context, study: Study, path: Path, schema: str
) -> Iterator[tuple[StreamedDocument, int, int, Any, bytes]]:
    """The records of one file, schema-checked; parse problems and schema errors go to ctx."""
    limit = ctx.config.option("study1", "max-decompressed-bytes")
    stream = GzipJsonLines(path, limit)
    doc = StreamedDocument(path)
    setattr(study, _DOCS[path.name], doc)
    check = validator(SCHEMA + schema)
    for index, line, value, raw in stream:
        if value is BROKEN:
            doc.remember(index, line, raw)
            continue
        if not check.is_valid(value):
            doc.remember(index, line, raw)
            ctx.schema(SCHEMA + schema, doc, value, f"/{index}")
        yield doc, index, line, value, raw
    ctx.problems(path, stream.problems)
    study.complete[path.name] = stream.complete


def _read_tasks(ctx: Context, study: Study, path: Path) -> None:
    for doc, index, line, value, raw in _read(ctx, study, path, "tasks"):
        study.tasks.append(Record(index, _str(value, "response"), _str(value, "topic"), _str(value, "style")))
        doc.remember(index, line, raw)


def _read_retrieval(ctx: Context, study: Study, path: Path) -> None:
    for doc, index, line, value, _ in _read(ctx, study, path, "retrieval"):
        ids = value.get("references_ids") if isinstance(value, dict) else None
        texts = value.get("references_texts") if isinstance(value, dict) else None
        repeated: list[tuple[int, str, int]] = []
        if isinstance(ids, list):
            first: dict[str, int] = {}
            for j, ref in enumerate(ids):
                if isinstance(ref, str):
                    if ref in first:
                        repeated.append((j, ref, first[ref]))
                    else:
                        first[ref] = j
        record = Record(
            index,
            None,
            _str(value, "topic"),
            None,
            len(ids) if isinstance(ids, list) else None,
            len(texts) if isinstance(texts, list) else None,
            tuple(repeated),
        )
        study.topics.append(record)
        # The bytes of a retrieval record are large (20 passages): keep only its line.
        doc.remember(index, line)


def _read_llm(ctx: Context, study: Study, path: Path) -> None:
    for doc, index, line, value, raw in _read(ctx, study, path, "responses-llm"):
        text = _str(value, "text")
        cited = citations(text) if text is not None else ()
        study.llm.append(
            Record(index, _str(value, "response"), _str(value, "topic"), _str(value, "style"), citations=cited)
        )
        doc.remember(index, line, raw)


class _Runs:
    """Cuts the writing log into runs as its records stream by; keeps only the facts of each run."""

    def __init__(self, study: Study, doc: StreamedDocument) -> None:
        self.study, self.doc = study, doc
        self.seen: dict[str, int] = {}  # response -> first index of its first run
        self.run: Run | None = None
        self.last: tuple[int, int, bytes, str | None] | None = None  # the previous snapshot
        self.previous_ts: Any = None
        self.finals: set[int] = set()  # hashes of the texts at the run's largest timestamp
        self.final: tuple[int, int, bytes] | None = None  # the last snapshot at that timestamp

    def close(self) -> None:
        if self.run is None or self.last is None:
            return
        index, line, raw, text = self.last
        self.run.last = index
        self.run.final_texts = len(self.finals)
        if self.final is not None:
            self.run.final = self.final[0]
            self.doc.remember(*self.final)
        self.run.citations = citations(text) if text is not None else ()
        self.doc.remember(index, line, raw)
        self.study.runs.append(self.run)

    def add(self, index: int, line: int, value: Any, raw: bytes) -> None:
        response = value.get("response") if isinstance(value, dict) else None
        if not isinstance(response, str):
            return
        topic, style, text = _str(value, "topic"), _str(value, "style"), _str(value, "text")
        ts = value.get("timestamp")
        if not isinstance(ts, (int, float)) or isinstance(ts, bool):
            ts = None
        run = self.run
        if run is None or response != run.response:
            self.close()
            run = self.run = Run(response, index, earlier=self.seen.get(response), topic=topic)
            self.seen.setdefault(response, index)
            self.doc.remember(index, line, raw)
            self.previous_ts, self.finals, self.final = None, set(), None
        if (topic, style) not in run.pairs:
            run.pairs[(topic, style)] = index
            self.doc.remember(index, line, raw)
        if ts is not None:
            if self.previous_ts is not None and ts < self.previous_ts:
                self.study.decreases.append((index, ts, self.previous_ts))
                self.doc.remember(index, line, raw)
            if run.final_timestamp is None or ts > run.final_timestamp:
                run.final_timestamp, self.finals = ts, set()
            if ts == run.final_timestamp:
                self.final = (index, line, raw)
                if len(self.finals) < _MAX_FINAL_TEXTS:
                    self.finals.add(hash(text))
            self.previous_ts = ts
        self.last = (index, line, raw, text)


def _read_human(ctx: Context, study: Study, path: Path) -> None:
    runs: _Runs | None = None
    for doc, index, line, value, raw in _read(ctx, study, path, "responses-human"):
        if runs is None:
            runs = _Runs(study, doc)
        runs.add(index, line, value, raw)
    if runs is not None:
        runs.close()


def load_study(unit: Unit, ctx: Context) -> Study:
    """Read, parse and schema-check the files (findings go to ctx), keeping what the rules need."""
    study = Study(unit.root)
    for name, read in ((TASKS, _read_tasks), (RETRIEVAL, _read_retrieval), (LLM, _read_llm), (HUMAN, _read_human)):
        path = unit.file(name)
        if path is not None:
            read(ctx, study, path)
    return study


def check(unit: Unit, ctx: Context) -> None:
    study = load_study(unit, ctx)
    for r in rules_of("study1"):
        ctx.run(r, study)


# --- tasks, retrieval and LLM responses -------------------------------------------------------


@rule(
    "study1/duplicate-response",
    "a response UUID names one task, and one LLM response",
    why="The writing log refers to a task by its response UUID; with two tasks of one UUID its "
    "snapshots belong to both. LLM responses have UUIDs of their own, distinct from each other "
    "and from the task UUIDs.",
    bad='{"response": "ae54d7e0-...", "topic": "2024-105741", ...}\n{"response": "ae54d7e0-...", "topic": "2024-145979", ...}',
    good='{"response": "ae54d7e0-...", ...}\n{"response": "b4ca1720-...", ...}',
)
def duplicate_response(study: Study) -> Iterator[Hit]:
    seen: dict[str, str] = {}
    for doc, records, name in ((study.tasks_doc, study.tasks, "task"), (study.llm_doc, study.llm, "LLM response")):
        for r in records:
            if r.response is None:
                continue
            if r.response in seen:
                yield doc, f"/{r.index}/response", f"response {r.response!r} is already the {seen[r.response]}"
            else:
                seen[r.response] = f"{name} of record {r.index}"


@rule(
    "study1/duplicate-topic",
    "a topic appears once in the retrieval file",
    why="Citations are resolved against a topic's references; with two records of one topic nobody "
    "can tell which reference list the workers saw.",
    bad='{"topic": "2024-105741", ...}\n{"topic": "2024-105741", ...}',
    good='{"topic": "2024-105741", ...}\n{"topic": "2024-145979", ...}',
)
def duplicate_topic(study: Study) -> Iterator[Hit]:
    seen: dict[str, int] = {}
    for r in study.topics:
        if r.topic is None:
            continue
        if r.topic in seen:
            yield study.retrieval_doc, f"/{r.index}/topic", f"topic {r.topic!r} is already record {seen[r.topic]}"
        else:
            seen[r.topic] = r.index


@rule(
    "study1/duplicate-task",
    "one task, and one LLM response, per topic and style",
    why="The study assigns each (topic, style) pair to one worker, and the LLM baseline answers "
    "each pair once; a second task or baseline for a pair is a duplicated or mislabelled record.",
    bad='{"topic": "2024-105741", "style": "essay", ...}\n{"topic": "2024-105741", "style": "essay", ...}',
    good='{"topic": "2024-105741", "style": "essay", ...}\n{"topic": "2024-105741", "style": "news", ...}',
)
def duplicate_task(study: Study) -> Iterator[Hit]:
    for doc, records, name in ((study.tasks_doc, study.tasks, "task"), (study.llm_doc, study.llm, "LLM response")):
        seen: dict[tuple[str, str], int] = {}
        for r in records:
            if r.topic is None or r.style is None:
                continue
            key = (r.topic, r.style)
            if key in seen:
                yield (
                    doc,
                    f"/{r.index}",
                    f"a second {name} for topic {r.topic!r} in style {r.style!r} (the first is record {seen[key]})",
                )
            else:
                seen[key] = r.index


@rule(
    "study1/unknown-topic",
    "every task and LLM response topic is a topic of the retrieval file",
    why="A response is written for a topic's query and cites its references; a topic the retrieval "
    "file does not have leaves both unknown.",
    bad='tasks: {"topic": "2024-999999", ...}  (not in study1_retrieval.jsonl.gz)',
    good='tasks: {"topic": "2024-105741", ...}  (a retrieval topic)',
)
def unknown_topic(study: Study) -> Iterator[Hit]:
    known = study.known_topics()
    if known is None:
        return
    for doc, records in ((study.tasks_doc, study.tasks), (study.llm_doc, study.llm)):
        for r in records:
            if r.topic is not None and r.topic not in known:
                yield doc, f"/{r.index}/topic", f"topic {r.topic!r} is not in {RETRIEVAL}"


@rule(
    "study1/reference-alignment",
    "references_ids and references_texts have the same length",
    why="The two lists are aligned: the text at index i is the passage of the id at index i. With "
    "lists of different lengths, every citation past the first gap points at the wrong passage.",
    bad='{"references_ids": [20 ids], "references_texts": [19 texts]}',
    good='{"references_ids": [20 ids], "references_texts": [20 texts]}',
)
def reference_alignment(study: Study) -> Iterator[Hit]:
    for r in study.topics:
        if r.references is not None and r.texts is not None and r.references != r.texts:
            yield (
                study.retrieval_doc,
                f"/{r.index}/references_texts",
                f"{r.texts} texts for {r.references} reference ids",
            )


@rule(
    "study1/duplicate-reference",
    "a topic's reference ids are distinct",
    why="Each of a topic's references is a different retrieved passage; the same id twice means "
    "the list was assembled wrongly, and citations of either index are ambiguous.",
    bad='"references_ids": ["msmarco_v2.1_doc_13_1647729865#1_3617399591", "msmarco_v2.1_doc_13_1647729865#1_3617399591", ...]',
    good='"references_ids": ["msmarco_v2.1_doc_13_1647729865#1_3617399591", "msmarco_v2.1_doc_13_1647729865#0_3617397938", ...]',
)
def duplicate_reference(study: Study) -> Iterator[Hit]:
    for r in study.topics:
        for j, ref, first in r.repeated_ids:
            yield study.retrieval_doc, f"/{r.index}/references_ids/{j}", f"{ref!r} is already reference {first}"


# --- the writing log ----------------------------------------------------------------------------


@rule(
    "study1/unknown-response",
    "every response of the writing log is a task",
    why="Snapshots are the writing of one task's worker; a response UUID that no task has cannot "
    "be tied to a worker, a topic or the survey answers.",
    bad='log: {"response": "00000000-0000-0000-0000-000000000000", ...}  (no such task)',
    good='log: {"response": "ae54d7e0-62df-3e53-9bea-3e107a6e5801", ...}  (a task)',
)
def unknown_response(study: Study) -> Iterator[Hit]:
    if study.tasks_doc is None or not study.complete.get(TASKS):
        return
    tasks = study.task_of()
    for run in study.runs:
        if run.response not in tasks and run.earlier is None:
            yield study.human_doc, f"/{run.first}/response", f"response {run.response!r} is not a task in {TASKS}"


@rule(
    "study1/task-mismatch",
    "a snapshot's topic and style are its task's",
    why="The log repeats the task's topic and style on every snapshot; a snapshot that disagrees "
    "belongs to another task or was relabelled, and analyses by topic or style split it wrongly.",
    bad='task: {"response": "ae54d7e0-...", "topic": "2024-105741", "style": "bullet"}; log: {"response": "ae54d7e0-...", "style": "essay", ...}',
    good='log: {"response": "ae54d7e0-...", "topic": "2024-105741", "style": "bullet", ...}',
)
def task_mismatch(study: Study) -> Iterator[Hit]:
    tasks = study.task_of()
    for run in study.runs:
        task = tasks.get(run.response)
        if task is None:
            continue
        for (topic, style), index in run.pairs.items():
            if topic is not None and task.topic is not None and topic != task.topic:
                yield study.human_doc, f"/{index}/topic", f"topic {topic!r}, but the task's topic is {task.topic!r}"
            if style is not None and task.style is not None and style != task.style:
                yield study.human_doc, f"/{index}/style", f"style {style!r}, but the task's style is {task.style!r}"


@rule(
    "study1/no-snapshots",
    "every task has snapshots in the writing log",
    why="A task's response text exists only in the writing log; a task without snapshots has no response at all.",
    bad="tasks: 903 records; log: snapshots of 902 responses",
    good="tasks: 903 records; log: snapshots of the same 903 responses",
)
def no_snapshots(study: Study) -> Iterator[Hit]:
    if study.human_doc is None or not study.complete.get(HUMAN):
        return
    logged = {run.response for run in study.runs}
    for r in study.tasks:
        if r.response is not None and r.response not in logged:
            yield study.tasks_doc, f"/{r.index}/response", f"no snapshot of response {r.response!r} in {HUMAN}"


@rule(
    "study1/snapshots-not-contiguous",
    "a response's snapshots are consecutive lines",
    why="The log is written response by response; snapshots of one response split by another's "
    "are a merge of two logs or a sorting accident, and the order of the writing is lost.",
    bad="lines 1-40: response A; lines 41-80: response B; lines 81-90: response A again",
    good="lines 1-50: response A; lines 51-90: response B",
)
def snapshots_not_contiguous(study: Study) -> Iterator[Hit]:
    for run in study.runs:
        if run.earlier is not None:
            yield (
                study.human_doc,
                f"/{run.first}/response",
                f"snapshots of response {run.response!r} resume here after other responses (they start at record {run.earlier})",
            )


@rule(
    "study1/timestamp-order",
    "a response's snapshot timestamps never decrease",
    why="Snapshots are taken in order while the worker writes; a timestamp smaller than the one "
    "before puts the writing out of order (the text shown as final may not be the last).",
    bad='{"timestamp": 1728671105900, ...}\n{"timestamp": 1728671105600, ...}',
    good='{"timestamp": 1728671105600, ...}\n{"timestamp": 1728671105900, ...}',
)
def timestamp_order(study: Study) -> Iterator[Hit]:
    for index, ts, previous in study.decreases:
        yield (
            study.human_doc,
            f"/{index}/timestamp",
            f"timestamp {ts!r} is earlier than the snapshot before ({previous!r})",
        )


@rule(
    "study1/citation-range",
    "citation indices are within the topic's references",
    why="Responses cite references by 0-based index, `[0, 10]`; a topic has 20 references, so "
    "an index of 20 or more cites nothing (often a typo: `[1516]` for `[15, 16]`). The final text "
    "of every human response (its last snapshot) and every LLM response is checked.",
    bad='"text": "... are at risk [0,21]."  (topic with 20 references)',
    good='"text": "... are at risk [0, 12]."',
)
def citation_range(study: Study) -> Iterator[Hit]:
    refs = study.references()
    found: list[tuple[StreamedDocument | None, int, str | None, tuple[tuple[str, int], ...]]] = [
        (study.human_doc, run.last, run.topic, run.citations) for run in study.runs
    ]
    found += [(study.llm_doc, r.index, r.topic, r.citations) for r in study.llm]
    for doc, index, topic, cited in found:
        n = refs.get(topic) if topic is not None else None
        if n is None:
            continue
        for text, largest in cited:
            if largest >= n:
                yield (
                    doc,
                    f"/{index}/text",
                    f"citation {text} cites reference {largest}; topic {topic!r} has {n} (0 to {n - 1})",
                )


@rule(
    "study1/ambiguous-final-text",
    "several different texts share a response's final timestamp",
    severity="warning",
    why="The submitted text of a response is its last snapshot; when snapshots with different "
    "texts share the final timestamp, which one was submitted depends on their order in the file. "
    "The last line is taken.",
    bad='{"timestamp": 1728551131680, "text": "... final."}\n{"timestamp": 1728551131680, "text": "... final.\\n"}',
    good='{"timestamp": 1728551131600, "text": "... final"}\n{"timestamp": 1728551131680, "text": "... final."}',
)
def ambiguous_final_text(study: Study) -> Iterator[Hit]:
    for run in study.runs:
        if run.final_texts > 1:
            many = f"{run.final_texts}" if run.final_texts < _MAX_FINAL_TEXTS else f"{_MAX_FINAL_TEXTS} or more"
            yield (
                study.human_doc,
                f"/{run.final}/timestamp",
                f"{many} different texts share the final timestamp {run.final_timestamp!r} of response {run.response!r}; "
                "the last line is taken as the submitted text",
            )
