"""The crowdsourced RAG writing study ("study 1"): four gzipped JSON Lines files, checked together."""

from __future__ import annotations

from ...catalog import DatasetFile, Format, Option
from ...readers.limits import GZ_MAX_DECOMPRESSED as DEFAULT_MAX_DECOMPRESSED

_LINE = "each line (after decompression)"

FORMAT = Format(
    name="study1",
    title="Study 1 (crowdsourced RAG writing)",
    intro="Four gzip-compressed JSON Lines files, one record a line: `study1_tasks.jsonl.gz`, "
    "`study1_retrieval.jsonl.gz`, `study1_responses_human.jsonl.gz` and "
    "`study1_responses_llm.jsonl.gz`. The files of one folder are checked together: topics, "
    "responses and styles must resolve across them.",
    check="humanjudge_schema.formats.study1.check:check",
    judgments="humanjudge_schema.formats.study1.judgments:judgments",
    checked="humanjudge_schema.formats.study1.judgments:checked",
    files=(
        DatasetFile(
            "study1_tasks.jsonl.gz",
            "study1/v1/tasks",
            _LINE,
            required=True,
            without="responses could not be matched with their tasks, topics and styles",
        ),
        DatasetFile(
            "study1_retrieval.jsonl.gz",
            "study1/v1/retrieval",
            _LINE,
            required=True,
            without="topics and citation indices could not be checked against the references",
        ),
        DatasetFile(
            "study1_responses_human.jsonl.gz",
            "study1/v1/responses-human",
            _LINE,
            required=True,
            without="the tasks' writing logs were not checked",
        ),
        DatasetFile(
            "study1_responses_llm.jsonl.gz",
            "study1/v1/responses-llm",
            _LINE,
            required=True,
            without="the LLM responses were not checked against the tasks",
        ),
    ),
    options=(
        Option(
            "max-decompressed-bytes",
            int,
            DEFAULT_MAX_DECOMPRESSED,
            "refuse to decompress a .jsonl.gz past this many bytes (gzip bombs)",
        ),
    ),
)
