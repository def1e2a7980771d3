"""The fast paths of the TextJudge checks change how fast a dataset is checked, never what is
found:

- checked in runs of instances (textjudge_stream.py), every case, corpus dataset and generated
  dataset has the findings it has when parsed whole, and the runs really were used;
- the bulk checks over columns (textjudge_columns.py) keep every score object where a rule
  finds something: rules over the kept objects find what they find over all objects.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import validate
from humanjudge_schema.finding import Finding
from humanjudge_schema.formats.textjudge import check as textjudge_check
from humanjudge_schema.formats.textjudge import columns as textjudge_columns
from humanjudge_schema.formats.textjudge import model as textjudge_model
from humanjudge_schema.formats.textjudge import stream as textjudge_stream

from .conftest import CORPUS, corpus

REPO = Path(__file__).resolve().parent.parent
CASES = sorted((REPO / "tests" / "cases" / "textjudge").glob("*/*/"))
JUDGEBENCH = CORPUS / "judgebench" / "dmg-illc+JUDGE-BENCH"


def _rows(findings: list[Finding]) -> list[tuple[Any, ...]]:
    return [
        (f.code, f.severity.value, f.file, f.pointer, f.line, f.column, f.message, f.more)
        for f in sorted(findings, key=lambda f: (f.sort_key(), f.message))
    ]


def _whole(path: Path, monkeypatch: pytest.MonkeyPatch, limit: int | None = None) -> list[tuple[Any, ...]]:
    monkeypatch.setattr(textjudge_stream, "STREAM_FROM", 1 << 62)
    return _rows(validate([path], kind="textjudge", max_per_code=limit).findings)


def _in_runs(
    path: Path, monkeypatch: pytest.MonkeyPatch, run_bytes: int, limit: int | None = None
) -> tuple[list[tuple[Any, ...]], bool]:
    """The findings, checked in runs of about run_bytes, and whether the runs were used (the file
    was never checked whole instead)."""
    whole = []
    real = textjudge_check._whole

    def spy(*args: Any) -> Any:
        whole.append(args)
        return real(*args)

    monkeypatch.setattr(textjudge_stream, "STREAM_FROM", 0)
    monkeypatch.setattr(textjudge_stream, "RUN_BYTES", run_bytes)
    monkeypatch.setattr(textjudge_check, "_whole", spy)
    findings = _rows(validate([path], kind="textjudge", max_per_code=limit).findings)
    return findings, not whole


def _dataset_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.json") if p.name != "expected.json")


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
@pytest.mark.parametrize("run_bytes", [1, 400])
@pytest.mark.parametrize("limit", [None, 1])
def test_runs_find_what_the_whole_file_finds_in_every_case(
    case: Path, run_bytes: int, limit: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a limit of one finding per code, counts noted in runs before a give-up must be
    forgotten with the findings."""
    for path in _dataset_files(case):
        whole = _whole(path, monkeypatch, limit)
        runs, _ = _in_runs(path, monkeypatch, run_bytes, limit)
        assert runs == whole, path


def test_a_small_run_size_makes_many_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    path = _dataset_files(REPO / "tests" / "cases" / "textjudge" / "invalid" / "duplicate-id")[0]
    starts: list[int] = []
    make = textjudge_model.Run.__init__

    def spy(self: textjudge_model.Run, ds: textjudge_model.Dataset, instances: list[Any], offset: int = 0) -> None:
        starts.append(offset)
        make(self, ds, instances, offset)

    monkeypatch.setattr(textjudge_model.Run, "__init__", spy)
    _, used = _in_runs(path, monkeypatch, 1)
    n = len(json.loads(path.read_text())["instances"])
    assert used and n > 1 and starts == list(range(n))  # one instance a run


def test_runs_are_used_for_clean_and_for_rule_breaking_datasets(monkeypatch: pytest.MonkeyPatch) -> None:
    used = {}
    for case in CASES:
        for path in _dataset_files(case):
            used[f"{case.parent.name}/{case.name}"] = _in_runs(path, monkeypatch, 1)[1]
    # a dataset that parses and passes the schema is checked in runs whatever the rules find
    assert used["valid/majority-ties"]
    assert used["invalid/majority-value"]
    assert used["invalid/template-variable-wmt23-target"]
    assert used["invalid/duplicate-id"]
    # a schema error or a duplicate key sends the file to the whole path, which reports it
    assert not used["invalid/schema-instance-without-id"]
    assert sum(used.values()) > len(used) // 2


def test_runs_find_what_the_whole_file_finds_in_the_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    corpus("judgebench", "dmg-illc+JUDGE-BENCH")
    files = [p for p in _dataset_files(JUDGEBENCH) if p.stat().st_size < 50_000_000]
    checked = 0
    for path in files:
        if path.read_bytes().startswith(b"version https://git-lfs"):
            continue
        whole = _whole(path, monkeypatch)
        runs, used = _in_runs(path, monkeypatch, 20_000)
        assert runs == whole, path
        checked += used
    assert checked >= 10


# --- generated datasets ----------------------------------------------------------------------

LABELS = [["Yes", "No"], ["yes", "no", "maybe"], ["A", "B", "C", "D", "E", "F"], ["v", "w", "x", "y", "z"], ["only"]]


def _score(rng: random.Random, decl: dict[str, Any]) -> dict[str, Any]:
    n = rng.choice([0, 1, 2, 3, 5, 8])
    if decl["category"] == "categorical":
        pool = decl["labels_list"] + [decl["labels_list"][0].upper(), "Unknown", 3, 1.5]
        weights = [10] * len(decl["labels_list"]) + [4, 1, 1, 1]
        scores = rng.choices(pool, weights=weights, k=n)
    else:
        lo, hi = sorted((decl["worst"], decl["best"]))
        pool = [lo, hi, (lo + hi) // 2, lo - 1, hi + 2, 2.5, "3"]
        scores = rng.choices(pool, weights=[8, 8, 8, 1, 1, 1, 1], k=n)
    obj: dict[str, Any] = {"individual_human_scores": scores}
    strings = [x for x in scores if isinstance(x, str)]
    numbers = [x for x in scores if not isinstance(x, str)]
    roll = rng.random()
    if decl["category"] == "categorical":
        if roll < 0.6 and strings:
            obj["majority_human"] = max(set(strings), key=strings.count)
        elif roll < 0.75:
            obj["majority_human"] = rng.choice([*decl["labels_list"], "yes", None, 2])
        elif roll < 0.85:
            obj["mean_human"] = 0.5
        elif roll < 0.9:
            obj["majority_human"] = strings[0] if strings else "Yes"
    else:
        if roll < 0.6 and numbers and len(numbers) == len(scores):
            obj["mean_human"] = sum(numbers) / len(numbers)
        elif roll < 0.7 and numbers and len(numbers) == len(scores):
            obj["mean_human"] = round(sum(numbers) / len(numbers), 2)
        elif roll < 0.85:
            obj["mean_human"] = rng.choice([1, 2.88, 100])
        if rng.random() < 0.3:
            obj["majority_human"] = rng.choice([None, 2, 2.5, "x", *(numbers[:1])])
    # the schema's part: a mean where there are numbers, else a mean or a majority
    if "mean_human" not in obj and (numbers or "majority_human" not in obj):
        if decl["category"] == "categorical" and not numbers:
            obj["majority_human"] = decl["labels_list"][-1]
        else:
            obj["mean_human"] = 3
    return obj


def _generated(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    decls: list[dict[str, Any]] = []
    for k in range(rng.randint(1, 4)):
        category = rng.choice(["categorical", "graded", "continuous"])
        decl: dict[str, Any] = {"metric": f"m{k}", "category": category, "prompt": "Rate: {{ text }}"}
        if category == "categorical":
            decl["labels_list"] = rng.choice(LABELS)
        else:
            decl["worst"], decl["best"] = rng.choice([(1, 5), (5, 1), (0, 100)])
        decls.append(decl)
    if rng.random() < 0.3:
        decls[0]["prompt_fsp"] = "Examples.\n{{ text }} {{ other }}"
        decls[0]["fsp_examples_id"] = [0, 7, "x"]
    instances = []
    for i in range(rng.randint(1, 60)):
        annotations = {d["metric"]: _score(rng, d) for d in decls if rng.random() < 0.95}
        if rng.random() < 0.05:
            annotations["M0"] = {"individual_human_scores": [], "mean_human": 1}
        text: Any = {"text": f"t{i}" + rng.choice(["", "é", "日本", "\U0001f600"])}  # columns count characters
        text = text if rng.random() < 0.9 else {"other": 1, "text": None}
        ident: Any = rng.choice([i, i, i, i - 1, str(i)])
        instances.append({"id": ident, "instance": text, "annotations": annotations})
    return {
        "dataset": "Generated (test)",
        "dataset_url": "https://example.org",
        "expert_annotator": "false",
        "original_prompt": False,
        "annotations": decls,
        "instances": instances,
    }


@pytest.mark.parametrize("seed", range(60))
def test_generated_datasets_find_the_same_both_ways(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "dataset.json"
    indent = None if seed % 2 else 2
    # on one line or many, the characters beyond ASCII as they are or escaped
    path.write_text(json.dumps(_generated(seed), indent=indent, ensure_ascii=seed % 3 != 0), encoding="utf-8")
    whole = _whole(path, monkeypatch)
    runs, used = _in_runs(path, monkeypatch, 1 + seed * 37 % 500)
    assert used
    assert runs == whole

    # and every object kept: the screens drop only objects where rules find nothing
    monkeypatch.setattr(textjudge_stream, "STREAM_FROM", 1 << 62)
    monkeypatch.setattr(textjudge_model, "kept", _every_object)
    assert _rows(validate([path], kind="textjudge").findings) == whole


def _every_object(cols: list[textjudge_columns.MetricColumn], screen: Any) -> Any:
    for col in cols:
        for k in range(len(col)):
            yield col.rows[k], col.metric, col.decl, col.objs[k]


def test_the_generated_datasets_break_every_score_rule(tmp_path: Path) -> None:
    """The generator is worth the comparison only if the rules find things in its datasets."""
    found = set()
    for seed in range(60):
        path = tmp_path / f"d{seed}.json"
        path.write_text(json.dumps(_generated(seed)), encoding="utf-8")
        found |= {f.code for f in validate([path], kind="textjudge").findings}
    for code in (
        "score-type",
        "missing-aggregate",
        "graded-not-integer",
        "score-range",
        "unknown-label",
        "label-case",
        "mean-value",
        "majority-value",
        "empty-scores",
        "duplicate-id",
        "missing-metric",
        "undeclared-metric",
        "fsp-example-id",
        "instance-field-type",
        "template-variable",
    ):
        assert f"textjudge/{code}" in found, code


def test_a_nested_instances_array_is_not_taken_for_the_dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _generated(3)
    data["annotations"][0]["instances"] = [{"id": 1}, {"id": 2}]  # an extra key, before the real one
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    runs, used = _in_runs(path, monkeypatch, 1)
    assert not used
    assert runs == _whole(path, monkeypatch)


def test_a_string_that_looks_like_a_boundary_is_not_cut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _generated(5)
    for inst in data["instances"]:
        inst["instance"]["text"] = 'a}, {"id": 3, "b": [{"c": 1}, {"d": 2}]}, {'
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    whole = _whole(path, monkeypatch)
    for run_bytes in (1, 50, 300):
        assert _in_runs(path, monkeypatch, run_bytes)[0] == whole
