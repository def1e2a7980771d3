"""The toy format's judgments: one row per rating, the row's line in ratings.jsonl. A format
gives its judgments this way to get `export`, `stats`, `report` and `validate --quality`."""

from __future__ import annotations

import json
from collections.abc import Iterator

from humanjudge_schema.judgments import Judgment, Judgments, Question
from humanjudge_schema.kinds import Unit


def judgments(unit: Unit) -> Judgments:
    path = unit.file("ratings.jsonl")
    dataset = str(unit.root)

    def rows() -> Iterator[Judgment]:  # read anew by each command that asks
        if path is None:
            return
        for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            try:
                record = json.loads(line)
            except ValueError:  # validation reports the line
                continue
            if isinstance(record, dict) and "rating" in record:
                where = (str(path), f"/{index}/rating", index + 1)  # file, pointer, line
                yield Judgment("toy", dataset, record.get("item", ""), "", "rating", "", record["rating"], *where)

    return Judgments("toy", dataset, rows, {"rating": Question("rating", "interval")}, raters="none")
