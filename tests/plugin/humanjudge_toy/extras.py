"""What the toy format brings beside its rules: an aggregation (the mean rating of each item, in
means.json) and a command of its own, `humanjudge toy-count`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from humanjudge_schema.aggregate import AggregateError
from humanjudge_schema.writing import check_target, write_atomic


def _means(folder: Path) -> dict[str, float]:
    ratings: dict[str, list[int]] = {}
    for line in (folder / "ratings.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if isinstance(record.get("rating"), int):
            ratings.setdefault(record["item"], []).append(record["rating"])
    return {item: sum(values) / len(values) for item, values in sorted(ratings.items())}


def aggregate(folder: Path, *, check: bool, output: Path | None) -> tuple[str, int]:
    if not (folder / "ratings.jsonl").is_file():
        raise AggregateError(f"{folder}: no ratings.jsonl")
    means = _means(folder)
    target = output or folder / "means.json"
    if check:
        stored = json.loads(target.read_text(encoding="utf-8")) if target.is_file() else None
        return ("means.json is up to date", 0) if stored == means else ("means.json differs", 1)
    check_target(target, [folder / "ratings.jsonl"])
    write_atomic(target, json.dumps(means).encode())
    return f"wrote the means of {len(means)} items to {target.name}", 0


@click.command("toy-count")
@click.argument("folder", type=click.Path(path_type=Path, exists=True, file_okay=False))
def count(folder: Path) -> None:
    """Count the ratings of a toy dataset."""
    lines = (folder / "ratings.jsonl").read_text(encoding="utf-8").splitlines()
    click.echo(f"{len(lines)} ratings")
