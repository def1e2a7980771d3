"""The floor of a benchmark: what any validator of the same files must at least do, run as a
process of its own so that it pays the same start-up as the command it is compared with.

    python benchmarks/floor.py textjudge DATASET.json
    python benchmarks/floor.py coggym EXPERIMENT_FOLDER
    python benchmarks/floor.py study1 FOLDER
    python benchmarks/floor.py halie TASK_FOLDER [--task crossword]
    python benchmarks/floor.py halie TASK_FOLDER --write-json OUT_FOLDER   # see bench_halie.py

Each file is read and parsed the plainest fast way (orjson for JSON and for each line of JSON
Lines, gzip for .gz, the csv module for CSV), and every parsed value is validated with
jsonschema-rs against the project's schema of that file (schemas/<format>/v1/): the whole
document for a JSON file, each line for JSON Lines, each row for CSV, its cells first turned into
the types the row schema declares (integer and number parsed, True/False, list literals, an
empty cell left out; each distinct text of a column converted once). Nothing else: no duplicate
keys, no line numbers, no rule, no message. With --parse-only it only reads and parses (the
csv module alone for CSV), which is less than any validator can do.

The collector is disabled and the process ends without freeing what it parsed, as
`humanjudge validate` does. It prints the number of values it validated and how many were invalid,
and exits 1 when any was (a floor that rejects the data is not the floor of a valid run).
"""

from __future__ import annotations

import argparse
import ast
import csv
import gc
import gzip
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import orjson

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"


def validator(name: str) -> Any:
    """A jsonschema-rs validator of schemas/<name>.schema.json (no remote references)."""
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    return jsonschema_rs.validator_for(schema)


def lines(path: Path) -> Iterator[bytes]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:  # type: ignore[operator]
        for line in f:
            if line.strip():
                yield line


def json_file(path: Path, schema: str | None) -> tuple[int, int]:
    doc = orjson.loads(path.read_bytes())
    return 1, int(schema is not None and not validator(schema).is_valid(doc))


def jsonl_file(path: Path, schema: str | None) -> tuple[int, int]:
    is_valid = validator(schema).is_valid if schema is not None else None
    n = bad = 0
    for line in lines(path):
        value = orjson.loads(line)
        n += 1
        if is_valid is not None and not is_valid(value):
            bad += 1
    return n, bad


# --- CSV: cells typed by the row schema -------------------------------------------------------

_ITEMS = re.compile(r"'([^'\\]*)'")
_SIMPLE = re.compile(r"\[(?:'[^'\\]*'(?:, '[^'\\]*')*)?\]")


def _array(text: str) -> Any:
    if _SIMPLE.fullmatch(text):
        return _ITEMS.findall(text)
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _number(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _boolean(text: str) -> Any:
    return {"True": True, "False": False}.get(text, text)


def _converter(prop: dict[str, Any]) -> Callable[[str], Any] | None:
    kinds = prop.get("type", [])
    kinds = {kinds} if isinstance(kinds, str) else set(kinds)
    if "array" in kinds:
        return _array
    if kinds & {"integer", "number"}:
        return _number
    if "boolean" in kinds:
        return _boolean
    return None


def _typed_rows(path: Path, schema: str) -> Iterator[dict[str, Any]]:
    """The rows of a CSV file as dicts of JSON values: an empty cell left out, the others of the
    columns the schema types converted once per distinct text (a dict per column remembers them:
    the same 0.0, 1 or ['exact'] comes back on many rows)."""
    with open(SCHEMAS / f"{schema}.schema.json", encoding="utf-8") as f:
        props = json.load(f)["properties"]
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        typed = []
        for name in header:
            fn = _converter(props.get(name, {}))
            if fn is not None:
                typed.append((name, fn, {}))
        for cells in reader:
            row = {k: c for k, c in zip(header, cells, strict=False) if c}  # a short row: fewer cells
            for name, fn, seen in typed:
                cell = row.get(name)
                if cell is not None:
                    value = seen.get(cell, seen)
                    if value is seen:
                        value = seen[cell] = fn(cell)
                    row[name] = value
            yield row


def csv_file(path: Path, schema: str | None) -> tuple[int, int]:
    if schema is None:
        with open(path, newline="", encoding="utf-8") as f:
            return sum(1 for _ in csv.reader(f)), 0
    is_valid = validator(schema).is_valid
    n = bad = 0
    for row in _typed_rows(path, schema):
        n += 1
        if not is_valid(row):
            bad += 1
    return n, bad


def csv_rows(path: Path, schema: str) -> list[dict[str, Any]]:
    """The rows of a CSV file as csv_file types them (for writing them as JSON)."""
    return list(_typed_rows(path, schema))


# --- the formats ------------------------------------------------------------------------------

STUDY1 = {
    "study1_tasks.jsonl.gz": "study1/v1/tasks",
    "study1_retrieval.jsonl.gz": "study1/v1/retrieval",
    "study1_responses_llm.jsonl.gz": "study1/v1/responses-llm",
    "study1_responses_human.jsonl.gz": "study1/v1/responses-human",
}
COGGYM = {
    "config.json": "coggym/v1/config",
    "trial.jsonl": "coggym/v1/trial",
    "instruction.jsonl": "coggym/v1/instruction",
    "human_data_ind.json": "coggym/v1/human-data-ind",
    "human_data_mean.json": "coggym/v1/human-data-mean",
}
HALIE = {
    "event_blocks.csv": "event-blocks",
    "survey_responses.csv": "survey-responses",
    "accuracies.csv": "accuracies",
}


def files(fmt: str, path: Path, task: str) -> list[tuple[Path, str]]:
    """(file, schema name) of every file the floor reads."""
    if fmt == "textjudge":
        return [(path, "textjudge/v1/dataset")]
    table = {"coggym": COGGYM, "study1": STUDY1}.get(fmt)
    if table is not None:
        return [(path / name, schema) for name, schema in table.items() if (path / name).exists()]
    return [(path / name, f"halie/v1/{task}/{schema}") for name, schema in HALIE.items() if (path / name).exists()]


def check(path: Path, schema: str | None) -> tuple[int, int]:
    name = path.name
    if name.endswith(".csv"):
        return csv_file(path, schema)
    if name.endswith(".jsonl") or name.endswith(".jsonl.gz"):
        return jsonl_file(path, schema)
    return json_file(path, schema)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("format", choices=("textjudge", "coggym", "study1", "halie"))
    ap.add_argument("path", type=Path)
    ap.add_argument("--task", default="crossword", help="halie: the task whose schemas apply")
    ap.add_argument("--parse-only", action="store_true", help="read and parse, validate nothing")
    ap.add_argument("--write-json", type=Path, help="halie: write each CSV file's typed rows as a JSON array there")
    args = ap.parse_args()
    gc.disable()
    todo = files(args.format, args.path, args.task)
    if not todo:
        sys.exit(f"nothing to read in {args.path}")
    if args.write_json:
        args.write_json.mkdir(parents=True, exist_ok=True)
        for path, schema in todo:
            (args.write_json / (path.stem + ".json")).write_bytes(orjson.dumps(csv_rows(path, schema)))
        return
    n = bad = 0
    for path, schema in todo:
        a, b = check(path, None if args.parse_only else schema)
        n, bad = n + a, bad + b
    done = "parsed" if args.parse_only else "validated"
    print(f"{n} values {done} in {len(todo)} files, {bad} invalid", flush=True)
    os._exit(1 if bad else 0)


if __name__ == "__main__":
    main()
