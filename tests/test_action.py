"""The composite GitHub Action: its metadata is valid, inputs reach its scripts only through the
environment, and its steps, run with bash the way the runner runs them (GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY, GITHUB_PATH and the workspace simulated in a temporary folder), annotate,
summarise, set outputs, write SARIF and fail on errors.

The install step needs the package registry; it runs where the registry is reachable (CI).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .conftest import CASES, ROOT
from .test_precommit import registry_reachable
from .test_reporters import _assert_valid_sarif

ACTION = ROOT / "action.yml"
EXAMPLES = ROOT / "examples" / "coggym"
BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None or shutil.which("git") is None, reason="needs bash and git")


def action() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml")
    loaded: dict[str, Any] = yaml.safe_load(ACTION.read_text())
    return loaded


def step(step_id: str) -> dict[str, Any]:
    return next(s for s in action()["runs"]["steps"] if s.get("id") == step_id)


def test_metadata_is_valid_against_the_schema_check_jsonschema_ships() -> None:
    check = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    if not Path(check).exists():
        pytest.skip("check-jsonschema is not installed")
    proc = subprocess.run(
        [check, "--builtin-schema", "vendor.github-actions", str(ACTION)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_inputs_reach_the_scripts_only_through_the_environment() -> None:
    meta = action()
    assert meta["runs"]["using"] == "composite"
    used = ""
    for s in meta["runs"]["steps"]:
        if "run" in s:
            assert "${{" not in s["run"], f"expression inside the script of step {s.get('name')!r}"
            assert s["shell"] == "bash"
        used += json.dumps(s.get("env", {})) + json.dumps(s.get("with", {})) + json.dumps(s.get("if", ""))
    for name in meta["inputs"]:
        assert re.search(rf"inputs\.{re.escape(name)}\b", used), f"input {name!r} is not used"
    for name, output in meta["outputs"].items():
        assert output["value"] == f"${{{{ steps.validate.outputs.{name} }}}}"


# --- the runner, simulated -----------------------------------------------------------------


@dataclass
class Runner:
    root: Path
    workspace: Path

    @property
    def files(self) -> dict[str, Path]:
        return {
            "GITHUB_OUTPUT": self.root / "output",
            "GITHUB_STEP_SUMMARY": self.root / "summary.md",
            "GITHUB_PATH": self.root / "path",
        }

    def env(self, **inputs: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "HUMANJUDGE_", "RUNNER_"))}
        env.update({k: str(v) for k, v in self.files.items()})
        env.update(
            CI="true",
            GITHUB_ACTIONS="true",
            GITHUB_WORKSPACE=str(self.workspace),
            GITHUB_ACTION_PATH=str(ROOT),
            RUNNER_TEMP=str(self.root / "temp"),
        )
        env.update(inputs)
        return env

    def run(self, step_id: str, **inputs: str) -> subprocess.CompletedProcess[str]:
        """Run one step's script as the runner does: `bash --noprofile --norc -eo pipefail FILE`."""
        script = self.root / f"{step_id}.sh"
        script.write_text(step(step_id)["run"])
        assert BASH is not None
        proc = subprocess.run(
            [BASH, "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=self.workspace,
            env=self.env(**inputs),
            capture_output=True,
            text=True,
            timeout=1800,
        )
        assert "Traceback" not in proc.stdout + proc.stderr
        return proc

    def validate(self, **inputs: str) -> subprocess.CompletedProcess[str]:
        inputs.setdefault("HUMANJUDGE_PYTHON", sys.executable)
        return self.run("validate", **inputs)

    def outputs(self) -> dict[str, str]:
        lines = self.files["GITHUB_OUTPUT"].read_text().splitlines()
        return dict(line.split("=", 1) for line in lines)

    def summary(self) -> str:
        return self.files["GITHUB_STEP_SUMMARY"].read_text()


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.fixture
def runner(tmp_path: Path) -> Runner:
    root = tmp_path / "runner"
    (root / "temp").mkdir(parents=True)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    r = Runner(root, workspace)
    for f in r.files.values():
        f.touch()
    return r


@pytest.fixture
def pull_request(runner: Runner) -> tuple[Runner, str]:
    """A repository with two valid experiments and a TextJudge dataset committed on the base."""
    ws = runner.workspace
    git(ws, "init", "-q")
    shutil.copytree(EXAMPLES / "valid", ws / "exp1")
    shutil.copytree(EXAMPLES / "valid", ws / "exp2")
    (ws / "textjudge").mkdir()
    shutil.copy(CASES / "textjudge" / "valid" / "schema-all-categories" / "dataset.json", ws / "textjudge" / "tj.json")
    (ws / "README.md").write_text("data\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "base")
    return runner, git(ws, "rev-parse", "HEAD")


def commit(ws: Path) -> None:
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "change")


def test_a_pull_request_that_breaks_an_experiment(pull_request: tuple[Runner, str]) -> None:
    runner, base = pull_request
    ws = runner.workspace
    shutil.copy(EXAMPLES / "broken" / "human_data_ind.json", ws / "exp2" / "human_data_ind.json")
    (ws / "package.json").write_text('{"name": "x"}\n')  # changed, a JSON file, not a dataset
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_SARIF="reports/humanjudge.sarif")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    commands = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert commands and all(
        re.match(r"::error file=exp2/human_data_(ind|mean)\.json,line=\d+,col=\d+,", c) for c in commands
    )
    outputs = runner.outputs()
    assert outputs == {"errors": str(len(commands)), "warnings": "0", "sarif": "reports/humanjudge.sarif"}
    summary = runner.summary()
    assert f"**{len(commands)} errors, 0 warnings in 5 files.**" in summary
    assert "| <code>exp2/human_data_ind.json</code> | 7 | 0 |" in summary
    assert "this pull request changes" in summary
    sarif = json.loads((ws / "reports" / "humanjudge.sarif").read_text())
    _assert_valid_sarif(sarif)
    assert len(sarif["runs"][0]["results"]) == len(commands)


def test_a_pull_request_that_touches_no_dataset(pull_request: tuple[Runner, str]) -> None:
    runner, base = pull_request
    (runner.workspace / "README.md").write_text("more\n")
    commit(runner.workspace)
    proc = runner.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert runner.outputs() == {"errors": "0", "warnings": "0", "sarif": ""}
    assert "No dataset files changed in this pull request." in runner.summary()


def test_a_clean_pull_request_passes(pull_request: tuple[Runner, str]) -> None:
    runner, base = pull_request
    ws = runner.workspace
    trial = (ws / "exp1" / "trial.jsonl").read_text()
    (ws / "exp1" / "trial.jsonl").write_text(trial.replace('"required": true', '"required": false', 1))
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_ARGS="--strict")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "No problems in 5 files."
    assert runner.outputs()["errors"] == "0"


def test_a_shallow_checkout_fetches_the_base(pull_request: tuple[Runner, str], tmp_path: Path) -> None:
    runner, base = pull_request
    origin = runner.workspace
    shutil.copy(EXAMPLES / "broken" / "human_data_mean.json", origin / "exp1" / "human_data_mean.json")
    commit(origin)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{origin}", str(clone))
    assert subprocess.run(["git", "cat-file", "-e", f"{base}^{{commit}}"], cwd=clone).returncode != 0
    runner.workspace = clone
    proc = runner.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "::error file=exp1/human_data_mean.json" in proc.stdout
    assert "coggym/mean-value" in runner.summary()


def test_paths_and_args_inputs(runner: Runner) -> None:
    ws = runner.workspace
    shutil.copytree(EXAMPLES / "broken", ws / "data" / "my experiment")
    shutil.copytree(EXAMPLES / "valid", ws / "data" / "other")
    proc = runner.validate(
        HUMANJUDGE_PATHS="'data/my experiment'\n",
        HUMANJUDGE_ARGS="--ignore coggym/mean-value\n--ignore parse  # comments are allowed",
    )
    assert proc.returncode == 1
    summary = runner.summary()
    assert "in 5 files" in summary and "data/my experiment/config.json" in summary
    assert "coggym/mean-value" not in summary and "parse/duplicate-key" not in summary
    assert "data/other" not in proc.stdout


def test_no_base_and_no_paths_means_the_whole_repository(runner: Runner) -> None:
    shutil.copytree(EXAMPLES / "valid", runner.workspace / "a")
    shutil.copytree(EXAMPLES / "valid", runner.workspace / "b")
    proc = runner.validate()
    assert proc.returncode == 0
    assert "No problems in 10 files." in runner.summary()


def test_a_usage_error_fails_with_one_annotation(runner: Runner) -> None:
    shutil.copytree(EXAMPLES / "valid", runner.workspace / "a")
    proc = runner.validate(HUMANJUDGE_ARGS="--kind nope", HUMANJUDGE_SARIF="out.sarif")
    assert proc.returncode == 2
    assert re.search(r"^::error title=humanjudge::.*--kind", proc.stdout, re.M)
    assert "Could not validate" in runner.summary()
    assert runner.outputs() == {"errors": "", "warnings": "", "sarif": ""}  # no SARIF file to upload
    assert not (runner.workspace / "out.sarif").exists()


def test_an_unbalanced_quote_in_an_input(runner: Runner) -> None:
    proc = runner.validate(HUMANJUDGE_PATHS="'data")
    assert proc.returncode == 2
    assert "::error title=humanjudge::cannot read the paths or args input: No closing quotation" in proc.stdout


def test_install_then_validate(runner: Runner) -> None:
    if not registry_reachable():
        pytest.skip("the package registry is not reachable: the install step cannot run")
    shutil.copytree(EXAMPLES / "broken", runner.workspace / "exp")
    install = runner.run("install", HUMANJUDGE_VERSION="")
    assert install.returncode == 0, install.stdout + install.stderr
    python = runner.outputs()["python"]
    assert Path(python).is_file() and str(runner.root / "temp") in python
    assert runner.files["GITHUB_PATH"].read_text().strip() == str(Path(python).parent)
    proc = runner.validate(HUMANJUDGE_PYTHON=python)
    assert proc.returncode == 1
    assert runner.outputs()["errors"] == "11"
