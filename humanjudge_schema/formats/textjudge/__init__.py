"""TextJudge / JUDGE-BENCH datasets: one JSON file each, of any name."""

from __future__ import annotations

import re

from ...catalog import Aggregation, Format, OneFile

_KEYS = re.compile(rb'"(?:annotations|instances|dataset_url|expert_annotator)"\s*:')


def looks_like(head: bytes) -> bool:
    """A JSON object naming one of the format's top-level keys early on. A TextJudge folder also
    holds other JSON (questions.json, package.json, test expectations): those are left out."""
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") and bool(_KEYS.search(head))


FORMAT = Format(
    name="textjudge",
    title="TextJudge / JUDGE-BENCH datasets",
    intro="A TextJudge dataset is one JSON file of any name: the metrics it annotates (with the prompt "
    "template an LLM judge is given), and the instances with their individual human scores and "
    "their aggregates. A JSON file is recognised as a dataset by its keys.",
    check="humanjudge_schema.formats.textjudge.check:check",
    judgments="humanjudge_schema.formats.textjudge.judgments:judgments",
    checked="humanjudge_schema.formats.textjudge.judgments:checked",
    aggregation=Aggregation(
        "humanjudge_schema.formats.textjudge.aggregate:aggregate_dataset",
        what="a TextJudge dataset (.json)",
        plural="TextJudge dataset files",
        folder=False,
        flags=("in_place", "force"),
    ),
    commands=("humanjudge_schema.formats.textjudge.command:render",),
    one_file=OneFile(
        ".json", "textjudge/v1/dataset", looks_like, "a dataset `.json` file", "JSON that is not a TextJudge dataset"
    ),
)
