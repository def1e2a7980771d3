"""One cause, one finding, and no location lost: the CogGym rules that fold a cascade into one
finding (coggym/flat-option-keys, coggym/misnamed-tag, a run of per-option keys as one
coggym/unknown-tag, a multi-slider stored as one object per participant as one
coggym/response-shape, stimuli_count not checked while trial.jsonl does not parse) still report every
place the rules reported before they did. The findings before are computed at test time, by the
package as it was in the commit before the first of those changes (read with `git archive`), on
every CogGym case, the bundled examples and, when present, the real corpus."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import validate
from humanjudge_schema.finding import escape_token
from humanjudge_schema.formats.coggym.keys import sort_keys, spell

from .conftest import CASES, CORPUS, ROOT

Location = tuple[str, str]  # (file, JSON pointer)


def _git(*args: str) -> bytes:
    git = shutil.which("git")
    if git is None:
        pytest.skip("needs git to read the package as it was")
    done = subprocess.run([git, "-C", str(ROOT), *args], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"needs the repository's history: git {args[0]} failed")
    return done.stdout


@pytest.fixture(scope="module")
def before(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package and its schemas as they were before the first of these changes."""
    added = _git("log", "--diff-filter=A", "--format=%H", "--", "humanjudge_schema/formats/coggym/keys.py")
    first = added.decode().split()
    if not first:
        pytest.skip("the commit that made these changes is not in this checkout's history")
    tree = tmp_path_factory.mktemp("before")
    archive = tree / "before.tar"
    archive.write_bytes(_git("archive", "--format=tar", f"{first[-1]}^", "humanjudge_schema", "schemas"))
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    # Its own distribution, first on the path, so that it reads the entry points of the formats it
    # has, not those of the installed package (a format added since would not load in it).
    formats = sorted(
        p.name for p in (tree / "humanjudge_schema" / "formats").iterdir() if (p / "__init__.py").is_file()
    )
    dist = tree / "humanjudge_schema-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: humanjudge-schema\nVersion: 0\n")
    lines = [f"{name} = humanjudge_schema.formats.{name}:FORMAT" for name in formats]
    (dist / "entry_points.txt").write_text("[humanjudge_schema.formats]\n" + "\n".join(lines) + "\n")
    return tree


def _run(code: Path, folders: list[Path], cwd: Path) -> list[dict[str, Any]]:
    """The findings of `humanjudge validate --kind coggym --format json` run with the package at
    `code`, the same way for the package before and now."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "validate", "--kind", "coggym", "--format", "json",
         "--max-per-code", "0", *map(str, folders)],
        capture_output=True, check=False, cwd=cwd, env=env,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr.decode()
    findings: list[dict[str, Any]] = json.loads(done.stdout)["findings"]
    return findings


_RANGE = re.compile(r"(\S+)_1 \.\.\. \1_(\d+)")


def _named(message: str) -> set[str]:
    """The keys a message names: quoted or bare words, and every key of a range `a_1 ... a_N`."""
    names = set(re.findall(r"'([^']*)'", message)) | set(re.findall(r"[\w.-]+", message))
    for stem, last in _RANGE.findall(message):
        names.update(f"{stem}_{k}" for k in range(1, int(last) + 1))
    return names


_ANSWERS = re.compile(r"positions (\d+) \.\.\. (\d+), labels (.*?);")


def _answers(ptr: str, message: str) -> set[str]:
    """The answers a message about a whole response array names: `positions 0 ... 4, labels 'a',
    'b'` names /0 ... /4 and each label of each."""
    m = _ANSWERS.search(message)
    if m is None:
        return set()
    labels = re.findall(r"'([^']*)'", m.group(3))
    positions = [f"{ptr}/{k}" for k in range(int(m.group(1)), int(m.group(2)) + 1)]
    return set(positions) | {f"{at}/{escape_token(label)}" for at in positions for label in labels}


def _parent(ptr: str) -> str:
    return ptr[: ptr.rindex("/")] if "/" in ptr else ""


def _reported(findings: Iterable[dict[str, Any]]) -> set[Location]:
    """Every location findings report: their pointers, the object holding each (a missing tag is
    reported at its stimulus), and the members of that object their messages name."""
    out: set[Location] = set()
    for f in findings:
        file, ptr = f["file"], f["pointer"]
        out.add((file, ptr))
        if ptr:
            holder = _parent(ptr)
            out.add((file, holder))
            out.update((file, f"{holder}/{escape_token(name)}") for name in _named(f["message"]))
            out.update((file, at) for at in _answers(ptr, f["message"]))
    return out


def _lost(code: Path, folders: list[Path], cwd: Path) -> list[Location]:
    # A check that could not be made (coggym/not-checked) is no finding about the data: when the
    # check can now be made, its own finding, if any, is at the same place.
    was = {(f["file"], f["pointer"]) for f in _run(code, folders, cwd) if f["code"] != "coggym/not-checked"}
    now = _reported(_run(ROOT, folders, cwd))
    return sorted(was - now)


def test_no_location_of_a_case_or_example_is_lost(before: Path, tmp_path: Path) -> None:
    folders = sorted(p for p in (CASES / "coggym").glob("*/*") if p.is_dir())
    folders += [ROOT / "examples" / "coggym" / "broken", ROOT / "examples" / "coggym" / "valid"]
    assert _lost(before, folders, tmp_path) == []


def test_no_location_of_the_real_experiments_is_lost(before: Path, tmp_path: Path) -> None:
    root = CORPUS / "coggym"
    if not root.exists():
        pytest.skip("needs the real published CogGym experiments")
    assert _lost(before, [root], tmp_path) == []


def test_the_broken_example_says_each_cause_once() -> None:
    findings = validate([ROOT / "examples" / "coggym" / "broken"]).findings
    codes = [f.code for f in findings]
    assert "coggym/misnamed-tag" in codes
    assert "coggym/missing-tag" not in codes and "coggym/unknown-tag" not in codes
    assert len(findings) == 10


# --- how the keys of one stimulus are sorted ----------------------------------------------------


def _query(kind: str, tag: str, options: int | None = None) -> dict[str, Any]:
    q: dict[str, Any] = {"type": kind, "tag": tag}
    if options is not None:
        q["option"] = [f"option {k}" for k in range(options)]
    return q


def _sort(stimulus: dict[str, Any], *queries: dict[str, Any]) -> Any:
    return sort_keys(None, "t1", stimulus, {q["tag"]: q for q in queries})  # type: ignore[arg-type]


def test_a_tag_ending_in_digits_is_matched_not_parsed() -> None:
    stray = _sort({"state_prob_50_1": [1], "state_prob_50_2": [0]}, _query("multi-select", "state_prob_50", 2))
    assert stray.flat == {"state_prob_50": ["state_prob_50_1", "state_prob_50_2"]}
    assert stray.unknown == [] and stray.runs == {} and stray.misnamed == {}


def test_per_option_keys_stop_at_the_option_count() -> None:
    stray = _sort({"goal_1": [1], "goal_2": [0], "goal_3": [0]}, _query("multi-select", "goal", 2))
    assert stray.flat == {"goal": ["goal_1", "goal_2"]}
    assert stray.unknown == ["goal_3"]


def test_a_tag_that_is_there_has_no_per_option_keys() -> None:
    """Yoon2020Polite keeps `judgment` and adds a column: an unknown key, nothing else."""
    stray = _sort({"judgment": [1], "judgment_selected_option": [1]}, _query("multi-choice", "judgment", 2))
    assert stray.unknown == ["judgment_selected_option"] and stray.explained == set()


def test_per_option_keys_under_another_name_need_the_option_count() -> None:
    rating = _query("multi-slider", "statement_rating", 3)
    three = {"statement_probs_1": [1], "statement_probs_2": [1], "statement_probs_3": [1]}
    assert _sort(three, rating).flat == {"statement_rating": list(three)}
    two = {"statement_probs_1": [1], "statement_probs_2": [1]}
    stray = _sort(two, rating)
    assert stray.flat == {} and stray.runs == {"statement_probs": list(two)}


def test_a_run_is_no_misspelt_tag_and_a_word_of_a_tag_is() -> None:
    stray = _sort({"strategy": ["a"], "x_1": [1], "x_2": [1]}, _query("textbox", "strategy_description"))
    assert stray.misnamed == {"strategy": "strategy_description"}
    assert stray.runs == {"x": ["x_1", "x_2"]} and stray.unknown == []


def test_one_missing_tag_is_spelt_by_one_key_only() -> None:
    stray = _sort({"confidance": [1], "confidence_": [2]}, _query("single-slider", "confidence"))
    assert list(stray.misnamed.values()) == ["confidence"] and len(stray.unknown) == 1


def test_every_key_is_named() -> None:
    """A finding that stands for several keys names each, so each key's place can be found in it."""
    assert spell(["a_1", "a_2", "a_3"]) == "a_1, a_2, a_3"
    assert spell(["a_1", "a_3", "a_4"]) == "a_1, a_3, a_4"
