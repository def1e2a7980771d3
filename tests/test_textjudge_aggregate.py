"""`humanjudge aggregate DATASET.json`: --check lists the validator's own mean and majority
findings; -o writes a corrected copy in which only the wrong values changed; the input is
overwritten only with --in-place."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from humanjudge_schema import validate
from humanjudge_schema.formats.textjudge.aggregate import corrections, patch

from .conftest import CASES, ROOT

BROKEN = ROOT / "examples" / "textjudge" / "broken" / "dataset.json"
MEAN = CASES / "textjudge" / "invalid" / "mean-value" / "dataset.json"
MAJORITY = CASES / "textjudge" / "invalid" / "majority-value" / "dataset.json"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "aggregate", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )
    assert "Traceback" not in proc.stderr + proc.stdout
    return proc


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    target = tmp_path / "dataset.json"
    shutil.copyfile(MAJORITY, target)
    data = json.loads(target.read_text())
    data["instances"][0]["annotations"]["fluency"]["mean_human"] = 4.75  # [4, 5] -> 4.5
    target.write_text(json.dumps(data, indent=4) + "\n")
    return target


def test_check_lists_the_validators_findings_and_writes_nothing(dataset: Path) -> None:
    before = dataset.read_bytes()
    proc = run("--check", "dataset.json", cwd=dataset.parent)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert [line.split()[2] for line in lines[:-1]] == [
        "textjudge/mean-value",
        "textjudge/majority-value",
        "textjudge/majority-value",
    ]
    assert lines[0].startswith("dataset.json:")
    assert lines[-1] == "3 errors, 0 warnings in 1 file."
    assert dataset.read_bytes() == before
    assert list(dataset.parent.iterdir()) == [dataset]


def test_check_on_a_correct_dataset(tmp_path: Path) -> None:
    proc = run("--check", str(CASES / "textjudge" / "valid" / "rounded-means" / "dataset.json"))
    assert proc.returncode == 0
    assert proc.stdout.strip() == "No problems in 1 file."


def test_output_is_a_corrected_copy_that_changes_only_the_wrong_values(dataset: Path) -> None:
    out = dataset.parent / "fixed.json"
    before = dataset.read_bytes()
    proc = run(str(dataset), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"wrote {out} (3 values corrected)"
    assert dataset.read_bytes() == before
    old, new = before.decode().splitlines(), out.read_text().splitlines()
    changed = [(a.strip(), b.strip()) for a, b in zip(old, new, strict=True) if a != b]
    assert len(old) == len(new)
    assert changed == [
        ('"mean_human": 4.75,', '"mean_human": 4.5,'),  # 2 decimals stored: 4.50 written as 4.5
        ('"majority_human": "no",', '"majority_human": "yes",'),
        ('"majority_human": 2,', '"majority_human": 1,'),
    ]
    assert validate([out], kind="textjudge").findings == []


def test_a_corrected_mean_takes_the_files_decimals(tmp_path: Path) -> None:
    out = tmp_path / "fixed.json"
    assert run(str(MEAN), "-o", str(out)).returncode == 0
    # 2.88 is replaced; the file's other mean, 3.333, shows that it rounds to 3 decimals
    assert json.loads(out.read_text())["instances"][0]["annotations"]["fluency"]["mean_human"] == 3.667


def test_in_place(dataset: Path) -> None:
    proc = run(str(dataset), "--in-place")
    assert proc.returncode == 0 and "3 values corrected" in proc.stdout
    assert validate([dataset], kind="textjudge").findings == []
    again = run(str(dataset), "--in-place")
    assert again.returncode == 0 and "0 values corrected" in again.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "say where to write the corrected dataset"),
        (("-o", "{input}"), "is the input: use --in-place"),
        (("-o", "{dir}/x.json", "--in-place"), "not both"),
        (("--force", "--in-place"), "--force is for -o FILE"),
        (("-o", "{dir}/exists.json"), "exists.json exists: use --force to overwrite it"),
    ],
)
def test_the_input_is_never_overwritten_unless_asked(dataset: Path, args: tuple[str, ...], message: str) -> None:
    before = dataset.read_bytes()
    (dataset.parent / "exists.json").write_text("{}\n")
    filled = [a.format(input=dataset, dir=dataset.parent) for a in args]
    proc = run(str(dataset), *filled)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert dataset.read_bytes() == before


def test_not_a_valid_dataset(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"annotations": [{"metric": "m"}], "instances": []}')
    proc = run(str(bad), "--check")
    assert proc.returncode == 2 and "not a valid TextJudge dataset" in proc.stderr
    lfs = tmp_path / "data.json"
    lfs.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n")
    proc = run(str(lfs), "-o", str(tmp_path / "out.json"))
    assert proc.returncode == 2 and "Git LFS pointer" in proc.stderr
    proc = run(str(tmp_path), "--in-place")  # a folder is a CogGym experiment
    assert proc.returncode == 2 and "--in-place is for TextJudge" in proc.stderr


def test_the_broken_example_is_fixed_but_its_template_is_not(tmp_path: Path) -> None:
    out = tmp_path / "fixed.json"
    assert run(str(BROKEN), "-o", str(out)).returncode == 0
    assert [f.code for f in validate([out], kind="textjudge").findings] == ["textjudge/template-variable"]


def test_ties_keep_a_correct_majority_and_pick_the_first_declared_label() -> None:
    data = json.loads(MAJORITY.read_text())
    data["annotations"][1]["labels_list"] = ["no", "yes"]
    data["instances"][0]["annotations"]["grammatical"] = {
        "majority_human": "maybe",
        "individual_human_scores": ["yes", "no"],
    }
    data["instances"][1]["annotations"]["grammatical"] = {
        "majority_human": "yes",
        "individual_human_scores": ["yes", "no"],
    }
    fixes = corrections(data, 1e-9)
    assert (fixes[0][0], fixes[0][2]) == ("/instances/0/annotations/grammatical/majority_human", "no")
    assert all("/instances/1/annotations/grammatical" not in p for p, _, _ in fixes)


def test_patch_keeps_every_other_byte() -> None:
    text = '{"a": {"mean_human" :  2.88 , "x": "y"},\n "b": [1,\t2]}'
    assert patch(text, [("/a/mean_human", 3.67)]) == '{"a": {"mean_human" :  3.67 , "x": "y"},\n "b": [1,\t2]}'


def test_means_near_the_largest_double_are_written(tmp_path: Path) -> None:
    data = json.loads((CASES / "textjudge" / "valid" / "rounded-means" / "dataset.json").read_text())
    data["annotations"][0].update(category="continuous", worst=-1.79e308, best=1.79e308)
    for k, instance in enumerate(data["instances"]):
        scores = [1e308, -1e308, 1.7e308] if k % 2 == 0 else [1e308, 1e307, 1e306]
        instance["annotations"]["fluency"].update(individual_human_scores=scores, mean_human=1e308)
    source, out = tmp_path / "huge.json", tmp_path / "fixed.json"
    source.write_text(json.dumps(data))
    proc = run(str(source), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    means = [i["annotations"]["fluency"]["mean_human"] for i in json.loads(out.read_text())["instances"]]
    assert means == pytest.approx([1.7e308 / 3, 3.7e307, 1.7e308 / 3, 3.7e307, 1.7e308 / 3], rel=1e-12)
    assert validate([out]).findings == []
