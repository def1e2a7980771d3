"""The workflow and pre-commit snippets of docs/integrations.md work when copied as they are: each
is a whole file that GitHub's and pre-commit's schemas accept, every input it gives the action
exists, every hook it names exists, and the options it passes are ones the tools accept on a
real dataset."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema.commands.action.inputs import NOT_FOR_THE_ACTION, _parser, parse_args, split_lines

from .conftest import ROOT

DOCS = ROOT / "docs" / "integrations.md"
EXAMPLES = ROOT / "examples" / "coggym"
ACTION = re.compile(r"^[A-Za-z0-9_.-]+/humanjudge-schema@")


def _yaml() -> Any:
    return pytest.importorskip("yaml")


def snippets() -> list[str]:
    return re.findall(r"^```yaml\n(.*?)^```", DOCS.read_text(), re.S | re.M)


def workflows() -> list[dict[str, Any]]:
    loaded = [_yaml().safe_load(s) for s in snippets()]
    return [w for w in loaded if "jobs" in w]


def pre_commit_configs() -> list[dict[str, Any]]:
    loaded = [_yaml().safe_load(s) for s in snippets()]
    return [c for c in loaded if "repos" in c]


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = _yaml().safe_load((ROOT / "action.yml").read_text())
    return loaded


def manifest() -> dict[str, dict[str, Any]]:
    hooks = _yaml().safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    return {h["id"]: h for h in hooks}


def test_every_snippet_is_a_whole_file() -> None:
    assert len(snippets()) == len(workflows()) + len(pre_commit_configs()) >= 6
    assert len(workflows()) >= 3 and len(pre_commit_configs()) >= 3


def test_the_workflows_are_valid_against_githubs_schema(tmp_path: Path) -> None:
    check = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    if not Path(check).exists():
        pytest.skip("check-jsonschema is not installed")
    files = []
    for i, text in enumerate(s for s in snippets() if "jobs:" in s):
        files.append(tmp_path / f"workflow-{i}.yml")
        files[-1].write_text(text)
    proc = subprocess.run(
        [check, "--builtin-schema", "vendor.github-workflows", *map(str, files)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _action_steps() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [
        (job, s)
        for w in workflows()
        for job in w["jobs"].values()
        for s in job["steps"]
        if ACTION.match(str(s.get("uses", "")))
    ]


def test_the_workflows_give_the_action_only_its_inputs() -> None:
    meta = action()
    steps = _action_steps()
    assert len(steps) >= 2
    for job, s in steps:
        given = s.get("with", {})
        assert set(given) <= set(meta["inputs"]), set(given) - set(meta["inputs"])
        parse_args(split_lines(str(given.get("args", ""))))  # raises on an option the action refuses
        used = re.findall(rf"steps\.{re.escape(s.get('id', '-'))}\.outputs\.([\w-]+)", str(job))
        assert set(used) <= set(meta["outputs"]), used


def test_the_inputs_table_lists_every_input_with_its_default() -> None:
    text = DOCS.read_text()
    table = text[text.index("Inputs:") :].split("\n\n")[1]
    rows = dict(re.findall(r"^\| `([\w-]+)` \|([^|]*)\|", table, re.M))
    inputs = action()["inputs"]
    assert set(rows) == set(inputs)
    for name, meta in inputs.items():
        if meta.get("default"):
            assert f"`{meta['default']}`" in rows[name], name
    args = text[text.index("| `args` |") :].split("\n")[0]
    quiet = {"--progress", "--no-progress"}  # accepted and meaningless in a job log: not worth a word
    for option in {o for a in _parser()._actions for o in a.option_strings if o.startswith("--")} - quiet:
        assert f"`{option}`" in args, option
    for option in NOT_FOR_THE_ACTION:
        assert f"`{option}`" in args, option


def test_the_commands_in_the_workflows_run(tmp_path: Path) -> None:
    commands = [
        s["run"]
        for w in workflows()
        for job in w["jobs"].values()
        for s in job["steps"]
        if "humanjudge validate" in str(s.get("run", ""))
    ]
    assert commands
    for broken in (False, True):
        root = tmp_path / ("broken" if broken else "valid")
        shutil.copytree(EXAMPLES / ("broken" if broken else "valid"), root / "data" / "exp1")
        for line in commands:
            argv = shlex.split(line)
            assert argv[0] == "humanjudge"
            proc = subprocess.run(
                [sys.executable, "-m", "humanjudge_schema", *argv[1:]], cwd=root, capture_output=True, text=True
            )
            assert proc.returncode == (1 if broken else 0), proc.stdout + proc.stderr
            assert ("::error file=data/exp1/" in proc.stdout) is broken


def test_the_pre_commit_configurations_are_valid(tmp_path: Path) -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib")
    hooks = manifest()
    for i, text in enumerate(s for s in snippets() if s.startswith("repos:")):
        path = tmp_path / f"config-{i}.yaml"
        path.write_text(text)
        config = clientlib.load_config(str(path))  # raises on a key or value pre-commit refuses
        for repo in config["repos"]:
            assert repo["repo"] == "https://github.com/OWNER/humanjudge-schema"
            for hook in repo["hooks"]:
                assert hook["id"] in hooks, hook["id"]
                for key in ("files", "exclude"):
                    if key in hook:
                        re.compile(hook[key])


def test_the_hook_arguments_in_the_docs_are_accepted(tmp_path: Path) -> None:
    hooks = manifest()
    given = [
        (hooks[h["id"]], h.get("args", []))
        for c in pre_commit_configs()
        for repo in c["repos"]
        for h in repo["hooks"]
        if h.get("args") and hooks[h["id"]]["entry"].startswith("humanjudge ")
    ]
    assert given
    for broken in (False, True):
        root = tmp_path / ("broken" if broken else "valid")
        shutil.copytree(EXAMPLES / ("broken" if broken else "valid"), root)
        files = sorted(p.name for p in root.iterdir() if p.is_file())
        for hook, args in given:
            entry = shlex.split(hook["entry"])
            proc = subprocess.run(
                [sys.executable, "-m", "humanjudge_schema", *entry[1:], *args, *files],
                cwd=root,
                capture_output=True,
                text=True,
            )
            assert proc.returncode == (1 if broken else 0), proc.stdout + proc.stderr
