"""`humanjudge aggregate` changes only what is wrong: each wrong value is replaced where it stands
(indentation, key order, line endings and number style kept), rounded as the file rounds its
means; errors that do not concern the aggregated judgments do not stop it."""

from __future__ import annotations

import difflib
import json
import shutil
from pathlib import Path

import pytest

from humanjudge_schema import validate
from humanjudge_schema.aggregate import Rounding

from .conftest import CASES, corpus
from .test_textjudge_aggregate import run

ABOODY = ("coggym", "lance-ying__coggym", "EML", "Aboody2025Inferring", "exp1")
EXAMPLE = ("judgebench", "dmg-illc+JUDGE-BENCH", "data", "example.json")


@pytest.mark.parametrize(
    ("stored", "value", "written"),
    [
        (["2.88", "2.58"], 10 / 3, "3.33"),
        (["3", "2.58"], 10 / 3, "3.33"),  # a whole mean among 2-decimal ones: the file's 2
        (["30.825", "70.9"], 31.358974358974358, "31.359"),  # 70.9 is 70.900: the most decimals
        (["2.88"], 3.0, "3"),
        (["2.88", "4.0"], 3.0, "3.0"),  # a whole mean as the file writes those
        (["2.50", "1.25"], 2.5, "2.50"),  # trailing zeros kept
        (["3", "4"], 10 / 3, "3.3333333333333335"),  # a file that does not round
        (["0.25"], -0.001, "0"),
        (["0.25"], None, "null"),
        (["0.25", "3"], 7, "7"),
    ],
)
def test_a_value_is_written_as_the_file_writes_its_means(stored: list[str], value: float, written: str) -> None:
    assert Rounding.of(stored).text(value) == written


def _changed(old: str, new: str) -> list[str]:
    """The changed lines of a line diff, as `git diff` counts them."""
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
    return [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]


def test_coggym_force_changes_the_wrong_means_and_nothing_else(tmp_path: Path) -> None:
    exp = tmp_path / "exp1"
    shutil.copytree(corpus(*ABOODY), exp)
    mean_file = exp / "human_data_mean.json"
    before = mean_file.read_text()
    ind = json.loads((exp / "human_data_ind.json").read_text())
    # the first participant's answers change: every slider mean of the experiment is now wrong
    for sid, entry in ind.items():
        if sid.startswith("trial_"):
            for values in entry.values():
                values[0] = 100 - values[0]
    (exp / "human_data_ind.json").write_text(json.dumps(ind))
    wrong = [f for f in validate([exp]).findings if f.code == "coggym/mean-value"]
    assert len(wrong) > 30

    proc = run(str(exp), "--force")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = mean_file.read_text()
    changed = _changed(before, after)
    assert len(changed) == 2 * len(wrong)  # each wrong mean's line, out and in
    assert len(after.splitlines()) == len(before.splitlines())
    assert after.startswith('{\n "participants_info": {\n  "count": 40,')  # its 1-space indent
    news = [line.split(": ")[1].rstrip(",") for line in changed if line.startswith("+")]
    assert all(len(n.partition(".")[2]) <= 3 for n in news)  # rounded as the file: 3 decimals
    assert [f for f in validate([exp]).findings if f.code.startswith("coggym/mean")] == []


def test_coggym_a_value_is_corrected_byte_for_byte(tmp_path: Path) -> None:
    exp = tmp_path / "exp1"
    shutil.copytree(corpus(*ABOODY), exp)
    mean_file = exp / "human_data_mean.json"
    original = mean_file.read_bytes()
    mean_file.write_bytes(original.replace(b'"left_knowledge": 30.825', b'"left_knowledge": 31'))
    proc = run(str(exp), "--force")
    assert proc.returncode == 0 and "1 value corrected" in proc.stdout, proc.stdout + proc.stderr
    assert mean_file.read_bytes() == original


def test_textjudge_example_is_corrected_despite_its_unrelated_errors(tmp_path: Path) -> None:
    source = tmp_path / "example.json"
    shutil.copyfile(corpus(*EXAMPLE), source)
    out = tmp_path / "fixed.json"
    proc = run(str(source), "-o", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr  # a missing expert_annotator stops nothing
    changed = _changed(source.read_text(), out.read_text())
    assert len(changed) == 2 * 4
    assert [line[1:].strip() for line in changed if line.startswith("+")] == [
        '"mean_human": 3.67,',
        '"mean_human": 3.33,',
        '"mean_human": 3.67,',
        '"mean_human": 3.33,',
    ]
    codes = {f.code for f in validate([out]).findings}
    assert codes == {"schema/required"}  # expert_annotator and original_prompt, as before


def test_textjudge_a_whole_wrong_mean_takes_the_files_decimals(tmp_path: Path) -> None:
    data = json.loads((CASES / "textjudge" / "valid" / "rounded-means" / "dataset.json").read_text())
    scores = data["instances"][0]["annotations"]["fluency"]
    scores.update(individual_human_scores=[3, 3, 4], mean_human=3)
    source, out = tmp_path / "dataset.json", tmp_path / "fixed.json"
    source.write_text(json.dumps(data, indent=2))
    proc = run(str(source), "-o", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the file's means show up to 3 decimals (2.333), its whole ones as 5
    changed = [line.replace(" ", "") for line in _changed(source.read_text(), out.read_text())]
    assert changed == ['-"mean_human":3,', '+"mean_human":3.333,']


def test_textjudge_an_error_in_the_scores_still_stops_it_and_is_named(tmp_path: Path) -> None:
    data = json.loads((CASES / "textjudge" / "valid" / "rounded-means" / "dataset.json").read_text())
    del data["expert_annotator"]  # unrelated: not what stops it
    data["instances"][0]["annotations"]["fluency"]["individual_human_scores"][0] = "high"
    source, out = tmp_path / "dataset.json", tmp_path / "fixed.json"
    source.write_text(json.dumps(data, indent=2))
    proc = run(str(source), "-o", str(out))
    assert proc.returncode == 1 and not out.exists()
    assert "/instances/0/annotations/fluency/individual_human_scores/0" in proc.stdout
    assert "expert_annotator" not in proc.stdout
