"""TextJudge / JUDGE-BENCH datasets: one JSON file each, of any name."""

from __future__ import annotations

from ...catalog import Aggregation, Format, OneFile
from ...readers.topkeys import has_key

_KEYS = frozenset({"annotations", "instances", "dataset_url", "expert_annotator"})


def looks_like(data: bytes) -> bool | None:
    """A JSON object with one of the format's keys at its top level, in any order, however it is
    written. A TextJudge folder also holds other JSON (questions.json, package.json, test
    expectations): those are left out. None: these bytes, the start of a file, do not tell yet;
    for a whole file, that is no."""
    return has_key(data, _KEYS)


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
