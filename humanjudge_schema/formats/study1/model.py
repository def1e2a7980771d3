"""What the study-1 rules read: the four files of a folder, streamed, and the facts kept of them.

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

from ...engine import Context
from ...kinds import Unit
from ...readers.gzjsonl import BROKEN, GzipJsonLines, StreamedDocument
from ...schemas import validator

SCHEMA = "study1/v1/"
TASKS, RETRIEVAL = "study1_tasks.jsonl.gz", "study1_retrieval.jsonl.gz"
HUMAN, LLM = "study1_responses_human.jsonl.gz", "study1_responses_llm.jsonl.gz"
# A citation: 0-based reference indices in brackets, `[0, 10]`; a trailing comma is tolerated
# (`[11,1516,]` is read as 11 and 1516).
_CITATION = re.compile(r"\[\s*\d+\s*(?:,\s*\d+\s*)*,?\s*\]")
_DIGITS = re.compile(r"\d+")
MAX_FINAL_TEXTS = 64  # distinct texts remembered at a run's final timestamp
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
class SnapshotRun:
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
    # the tasks' records that are objects, as (index, line, record): their ratings are the
    # judgments' view's rows (judgments.py), read from here instead of from the file again
    rated: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)
    topics: list[Record] = field(default_factory=list)
    llm: list[Record] = field(default_factory=list)
    runs: list[SnapshotRun] = field(default_factory=list)
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
        if type(value) is dict:
            study.rated.append((index, line, value))


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


class _LogRuns:
    """Cuts the writing log into runs as its records stream by; keeps only the facts of each run."""

    def __init__(self, study: Study, doc: StreamedDocument) -> None:
        self.study, self.doc = study, doc
        self.seen: dict[str, int] = {}  # response -> first index of its first run
        self.run: SnapshotRun | None = None
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
            run = self.run = SnapshotRun(response, index, earlier=self.seen.get(response), topic=topic)
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
                if len(self.finals) < MAX_FINAL_TEXTS:
                    self.finals.add(hash(text))
            self.previous_ts = ts
        self.last = (index, line, raw, text)


def _read_human(ctx: Context, study: Study, path: Path) -> None:
    runs: _LogRuns | None = None
    for doc, index, line, value, raw in _read(ctx, study, path, "responses-human"):
        if runs is None:
            runs = _LogRuns(study, doc)
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
