"""HALIE interaction data: per task folder, event_blocks.csv, survey_responses.csv and (crossword
only) accuracies.csv, checked together."""

from __future__ import annotations

from ...catalog import DatasetFile, Format

_SESSIONS = "the sessions could not be compared across files"

FORMAT = Format(
    name="halie",
    title="HALIE interaction data",
    intro="One folder per task (crossword, dialogue, metaphor, question, summarization) with CSV files: "
    "`event_blocks.csv`, `survey_responses.csv` and, for some tasks, `accuracies.csv`. Each row "
    "is checked against its task's schema after every cell is read as the type its column "
    "declares; the files of a folder are then checked against each other.",
    check="humanjudge_schema.formats.halie.check:check",
    judgments="humanjudge_schema.formats.halie.judgments:judgments",
    checked="humanjudge_schema.formats.halie.judgments:checked",
    files=(
        DatasetFile("event_blocks.csv", "halie/v1/*/event-blocks", "each row", required=True, without=_SESSIONS),
        DatasetFile(
            "survey_responses.csv", "halie/v1/*/survey-responses", "each row", required=True, without=_SESSIONS
        ),
        # Only the crossword task has it: whether it belongs is known from the headers, later.
        DatasetFile("accuracies.csv", "halie/v1/*/accuracies", "each row"),
    ),
)
