"""Tasks, retrieval topics and LLM responses: unique where they must be, topics that resolve,
reference lists that line up."""

from __future__ import annotations

from collections.abc import Iterator

from ....engine import Hit
from ....registry import rule
from ..model import RETRIEVAL, Study


@rule(
    "study1/duplicate-response",
    "a response UUID names one task, and one LLM response",
    why="The writing log refers to a task by its response UUID; with two tasks of one UUID its "
    "snapshots belong to both. LLM responses have UUIDs of their own, distinct from each other "
    "and from the task UUIDs.",
    bad='{"response": "ae54d7e0-...", "topic": "2024-105741", ...}\n{"response": "ae54d7e0-...", "topic": "2024-145979", ...}',
    good='{"response": "ae54d7e0-...", ...}\n{"response": "b4ca1720-...", ...}',
    scope="study",
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
    scope="study",
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
    scope="study",
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
    scope="study",
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
    scope="study",
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
    scope="study",
)
def duplicate_reference(study: Study) -> Iterator[Hit]:
    for r in study.topics:
        for j, ref, first in r.repeated_ids:
            yield study.retrieval_doc, f"/{r.index}/references_ids/{j}", f"{ref!r} is already reference {first}"
