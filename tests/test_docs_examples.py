"""Every ```python block of README.md and docs/*.md runs, in a folder where the paths the blocks
name exist: `data/exp1` a CogGym experiment, `data/judgebench` and `data/newsroom` TextJudge
datasets, `data/halie` and `data/study1` datasets of those formats, `release-1/` and
`release-2/` two versions of a dataset, `ci/humanjudge.toml` a configuration.

A block that cannot run alone (a signature, an excerpt of a plug-in's package) says so on the
line before it, with why: `<!-- not run: an excerpt of tests/plugin/humanjudge_toy/check.py -->`."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import NamedTuple

import pytest

from .conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLES = ROOT / "examples"
# the names the blocks use, and the example each stands for
FOLDERS = {
    "data/exp1": "coggym/valid",
    "data/judgebench": "textjudge/valid",
    "data/newsroom": "textjudge/valid",
    "data/halie": "halie/valid",
    "data/study1": "study1/valid",
    "release-1": "textjudge/valid",
    "release-2": "textjudge/valid",
}
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
_NOT_RUN = re.compile(r"<!-- not run: (.+?) -->")


class Block(NamedTuple):
    page: str  # relative to the repository
    line: int  # of the opening fence
    code: str
    not_run: str | None  # why, where the line before the fence says it is not run


def blocks() -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            before = text[: match.start()].rstrip("\n").rpartition("\n")[2]
            why = _NOT_RUN.fullmatch(before.strip())
            line = text.count("\n", 0, match.start()) + 1
            found.append(Block(str(page.relative_to(ROOT)), line, match.group(1), why and why.group(1)))
    return found


BLOCKS = blocks()
RUN = [b for b in BLOCKS if b.not_run is None]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, example in FOLDERS.items():
        shutil.copytree(EXAMPLES / example, tmp_path / name)
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "humanjudge.toml").write_text('[severity]\n"coggym/mean-value" = "warning"\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("block", RUN, ids=[f"{b.page}:{b.line}" for b in RUN])
def test_the_example_runs(block: Block, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = compile(block.code, f"{block.page}:{block.line}", "exec", dont_inherit=True)  # as a file of its own
    exec(code, {"__name__": "__example__"})
    capsys.readouterr()  # what it prints is for a reader


def test_the_blocks_are_found_and_those_not_run_say_why() -> None:
    assert {b.page for b in RUN} >= {"README.md", "docs/api.md", "docs/export.md"}
    for block in BLOCKS:
        assert block.not_run is None or len(block.not_run.split()) >= 3, block[:2]
        for named in re.findall(r"tests/\S+\.py", block.not_run or ""):  # the code it is taken from
            assert (ROOT / named).is_file(), (block[:2], named)
    assert len(RUN) > len(BLOCKS) - len(RUN)  # what is not run stays the exception
