"""The composite GitHub Action: its metadata is valid, inputs reach its scripts only through the
environment, it leaves the job's environment as it found it, and its steps, run with bash the way
the runner runs them (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_PATH, GITHUB_ENV and the
workspace simulated in a temporary folder), annotate, summarise, set outputs, write SARIF and
fail on errors. On a pull request the step sees every change (deletions and renames too) and
takes the configuration from the base branch.

The install step needs the package registry; it runs where the registry is reachable (CI).
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema.commands.action.inputs import NOT_FOR_THE_ACTION, ArgsError, Options, _parser, parse_args
from humanjudge_schema.finding import Finding, Severity
from humanjudge_schema.report.github import fenced as _fenced
from humanjudge_schema.report.github import summary
from humanjudge_schema.validation import Result

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
            "GITHUB_ENV": self.root / "env",
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
    assert outputs == {"errors": str(len(commands)), "warnings": "0", "sarif": "reports/humanjudge.sarif", "report": ""}
    summary = runner.summary()
    assert f"**{len(commands)} errors, 0 warnings in 5 files.**" in summary
    assert "| <code>exp2/human_data_ind.json</code> | 6 | 0 |" in summary  # one misnamed tag is one finding
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
    assert runner.outputs() == {"errors": "0", "warnings": "0", "sarif": "", "report": ""}
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
    assert runner.outputs() == {"errors": "", "warnings": "", "sarif": "", "report": ""}  # no SARIF file to upload
    assert not (runner.workspace / "out.sarif").exists()


def test_an_unbalanced_quote_in_an_input(runner: Runner) -> None:
    proc = runner.validate(HUMANJUDGE_PATHS="'data")
    assert proc.returncode == 2
    assert "::error title=humanjudge::cannot read the paths or args input: No closing quotation" in proc.stdout


# --- the job's environment is left as it was --------------------------------------------------


COMMAND = r"(?:^|\$\(|[;|&])\s*"  # where a word of a script starts a command


def test_no_step_changes_the_jobs_environment() -> None:
    steps = action()["runs"]["steps"]
    (setup,) = (s for s in steps if str(s.get("uses", "")).startswith("actions/setup-python@"))
    assert setup["with"]["update-environment"] is False  # the job's python and pip stay the job's
    for s in steps:
        script = s.get("run", "")
        assert "GITHUB_PATH" not in script and "GITHUB_ENV" not in script, s.get("name")
        # A Python started in the workspace without -I imports a pip/, venv/ or humanjudge_schema/
        # folder of the checked-out repository before the real one.
        for python, first in re.findall(COMMAND + r'"(\$[\w/]*(?:python|PYTHON))"[ \t]+(\S+)', script, re.M):
            assert first == "-I", f"{python} {first} in step {s.get('name')!r}"
    scripts = "\n".join(s.get("run", "") for s in steps)
    started = re.findall(COMMAND + r'"\$[\w/]*(?:python|PYTHON)"[ \t]', scripts, re.M)
    assert len(started) == 4  # the key, the venv, pip and the validation
    install = step("install")
    assert install["env"]["HUMANJUDGE_BASE_PYTHON"] == "${{ steps.prepare.outputs.python }}"
    assert step("prepare")["env"]["HUMANJUDGE_SETUP_PYTHON"] == "${{ steps.python.outputs.python-path }}"
    assert step("validate")["env"]["HUMANJUDGE_PYTHON"] == "${{ steps.install.outputs.python }}"


def test_what_the_install_step_downloads_is_cached() -> None:
    steps = action()["runs"]["steps"]
    restore = next(s for s in steps if str(s.get("uses", "")).startswith("actions/cache/restore@"))
    save = next(s for s in steps if str(s.get("uses", "")).startswith("actions/cache/save@"))
    order = [s.get("id") or s.get("uses") for s in steps]
    assert order.index(restore["id"]) < order.index("install") < order.index(save["uses"]) < order.index("validate")
    assert restore["with"]["path"] == save["with"]["path"] == "${{ steps.prepare.outputs.cache }}"
    assert restore["with"]["key"] == save["with"]["key"] == "${{ steps.prepare.outputs.key }}"
    assert save["if"] == f"steps.{restore['id']}.outputs.cache-hit != 'true'"
    assert step("install")["env"]["PIP_CACHE_DIR"] == "${{ steps.prepare.outputs.cache }}"


def test_the_cache_key_names_the_os_the_python_and_the_version(runner: Runner) -> None:
    # A module of the checked-out repository that shadows the standard library is never run.
    (runner.workspace / "hashlib.py").write_text("raise SystemExit('the workspace was imported')\n")
    keys = {}
    for version in ("", "0.2.0", ">=0.2,<0.3"):
        proc = runner.run(
            "prepare", HUMANJUDGE_VERSION=version, HUMANJUDGE_SETUP_PYTHON=sys.executable, RUNNER_OS="Linux"
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        out = runner.outputs()
        keys[version] = out["key"]
        assert out["python"] == sys.executable
        assert out["cache"] == str(runner.root / "temp" / "humanjudge-pip-cache")
    assert runner.outputs()["spec"] == "humanjudge-schema>=0.2,<0.3"
    python = f"{sys.implementation.name}{platform.python_version()}"
    for key in keys.values():
        assert key.startswith(f"humanjudge-pip-v1-Linux-{platform.machine()}-{python}-"), key
        assert "," not in key  # a cache key holds no commas
    assert len(set(keys.values())) == 3
    assert runner.outputs()["restore-key"] == f"humanjudge-pip-v1-Linux-{platform.machine()}-{python}-"
    assert runner.files["GITHUB_PATH"].read_text() == "" and runner.files["GITHUB_ENV"].read_text() == ""


def test_without_python_version_the_runners_python_is_used(runner: Runner) -> None:
    proc = runner.run("prepare", HUMANJUDGE_VERSION="", HUMANJUDGE_SETUP_PYTHON="")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert runner.outputs()["python"] == (shutil.which("python3") or shutil.which("python"))
    assert runner.outputs()["spec"] == str(ROOT)


def test_install_then_validate(runner: Runner) -> None:
    if not registry_reachable():
        pytest.skip("the package registry is not reachable: the install step cannot run")
    shutil.copytree(EXAMPLES / "broken", runner.workspace / "exp")
    (runner.workspace / "pip").mkdir()  # a folder named like a module, as a dataset repository may hold
    (runner.workspace / "pip" / "__main__.py").write_text("raise SystemExit('the workspace was imported')\n")
    prepare = runner.run("prepare", HUMANJUDGE_VERSION="", HUMANJUDGE_SETUP_PYTHON="")
    assert prepare.returncode == 0, prepare.stdout + prepare.stderr
    out = runner.outputs()
    install = runner.run(
        "install", HUMANJUDGE_BASE_PYTHON=out["python"], HUMANJUDGE_SPEC=out["spec"], PIP_CACHE_DIR=out["cache"]
    )
    assert install.returncode == 0, install.stdout + install.stderr
    python = runner.outputs()["python"]
    assert Path(python).is_file() and str(runner.root / "temp") in python
    assert runner.files["GITHUB_PATH"].read_text() == "" and runner.files["GITHUB_ENV"].read_text() == ""
    proc = runner.validate(HUMANJUDGE_PYTHON=python)
    assert proc.returncode == 1
    assert runner.outputs()["errors"] == "10"


def test_the_validate_step_never_imports_from_the_workspace(runner: Runner) -> None:
    shutil.copytree(EXAMPLES / "broken", runner.workspace / "exp")
    for name in ("humanjudge_schema", "orjson"):
        (runner.workspace / name).mkdir()
        (runner.workspace / name / "__init__.py").write_text("raise SystemExit('the workspace was imported')\n")
    proc = runner.validate()
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert runner.outputs()["errors"] == "10"


# --- counts ------------------------------------------------------------------------------------


def _json_summary(cwd: Path, *args: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "validate", "--format", "json", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    assert proc.returncode in (0, 1), proc.stderr
    summary: dict[str, Any] = json.loads(proc.stdout)["summary"]
    return summary


def test_counts_include_the_findings_past_max_per_code(runner: Runner) -> None:
    shutil.copytree(EXAMPLES / "broken", runner.workspace / "exp")
    proc = runner.validate(HUMANJUDGE_PATHS="exp", HUMANJUDGE_ARGS="--max-per-code 1")
    assert proc.returncode == 1
    expected = _json_summary(runner.workspace, "--max-per-code", "1", "exp")
    annotations = [line for line in proc.stdout.splitlines() if line.startswith("::error ")]
    assert len(annotations) < expected["errors"] == 10  # some findings only counted, not listed
    assert runner.outputs() == {"errors": str(expected["errors"]), "warnings": "0", "sarif": "", "report": ""}
    assert "**10 errors, 0 warnings in 5 files.**" in runner.summary()
    assert "| <code>coggym/mean-value</code> | error | 3 |" in runner.summary()


def test_the_jobs_option_runs_in_worker_processes(runner: Runner) -> None:
    shutil.copytree(EXAMPLES / "broken", runner.workspace / "a")
    shutil.copytree(EXAMPLES / "broken", runner.workspace / "b")
    proc = runner.validate(HUMANJUDGE_ARGS="--jobs 2")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert runner.outputs()["errors"] == "20"


# --- deletions and renames -----------------------------------------------------------------------


def test_a_pull_request_that_deletes_a_file_of_an_experiment(pull_request: tuple[Runner, str]) -> None:
    runner, base = pull_request
    ws = runner.workspace
    (ws / "exp1" / "instruction.jsonl").unlink()
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    expected = _json_summary(ws, "exp1")
    assert expected["errors"] > 0
    assert runner.outputs()["errors"] == str(expected["errors"])
    annotated = {m for m in re.findall(r"^::error file=([^,]+)", proc.stdout, re.M)}
    assert annotated == {"exp1/config.json"}  # the flow names instructions that are gone
    summary = runner.summary()
    assert f"in {expected['files']} files." in summary
    assert (
        "Deleted or renamed away: <code>exp1/instruction.jsonl</code>: the rest of its dataset was checked." in summary
    )


def test_a_pull_request_that_renames_files(pull_request: tuple[Runner, str]) -> None:
    runner, base = pull_request
    ws = runner.workspace
    git(ws, "mv", "exp1/trial.jsonl", "exp1/trial.jsonl.old")  # the experiment loses its trials
    (ws / "judge").mkdir()
    git(ws, "mv", "textjudge/tj.json", "judge/tj.json")
    shutil.copy(CASES / "textjudge" / "invalid" / "schema-id-boolean" / "dataset.json", ws / "judge" / "tj.json")
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    annotated = {m for m in re.findall(r"^::error file=([^,]+)", proc.stdout, re.M)}
    assert annotated == {"exp1/config.json", "judge/tj.json"}  # both sides of both renames
    assert "dataset/missing-file" in runner.summary()
    assert "in 5 files." in runner.summary()  # exp1's four files and the dataset


@pytest.mark.parametrize("config_from", ["base", "head"])
def test_a_pull_request_that_deletes_whole_datasets(pull_request: tuple[Runner, str], config_from: str) -> None:
    runner, _ = pull_request
    ws = runner.workspace
    (ws / "exp2" / "humanjudge.toml").write_text('ignore = ["coggym/unknown-tag"]\n')
    commit(ws)
    base = git(ws, "rev-parse", "HEAD")
    shutil.rmtree(ws / "exp2")  # its configuration with it
    for name in ("trial.jsonl", "instruction.jsonl", "human_data_ind.json", "human_data_mean.json"):
        (ws / "exp1" / name).unlink()  # config.json alone is no experiment
    (ws / "textjudge" / "tj.json").unlink()
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_CONFIG_FROM=config_from)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert runner.outputs() == {"errors": "0", "warnings": "0", "sarif": "", "report": ""}
    summary = runner.summary()
    assert "Nothing to check: the datasets this pull request changes are deleted whole." in summary
    for gone in ("exp1/trial.jsonl", "exp2/trial.jsonl", "textjudge/tj.json"):
        assert f"<code>{gone}</code>: nothing of its dataset is left to check." in summary
    assert "<code>exp2/humanjudge.toml</code> (deleted)" in summary


# --- the configuration comes from the base branch ----------------------------------------------

BROKEN_IND = EXAMPLES / "broken" / "human_data_ind.json"


def _configured(pull_request: tuple[Runner, str]) -> tuple[Runner, str]:
    """The base branch ignores one code for the whole repository and another in exp2; the pull
    request breaks both experiments, ignores everything at the top and deletes exp2's file."""
    runner, _ = pull_request
    ws = runner.workspace
    (ws / "pyproject.toml").write_text(
        '[project]\nname = "data"\n\n[tool.humanjudge]\nignore = ["coggym/slider-value"]\n'
    )
    (ws / "exp2" / "humanjudge.toml").write_text('ignore = ["coggym/misnamed-tag"]\n')
    commit(ws)
    base = git(ws, "rev-parse", "HEAD")
    shutil.copy(BROKEN_IND, ws / "exp1" / "human_data_ind.json")
    shutil.copy(BROKEN_IND, ws / "exp2" / "human_data_ind.json")
    (ws / "pyproject.toml").write_text('[project]\nname = "data"\n\n[tool.humanjudge]\nignore = ["coggym", "parse"]\n')
    (ws / "exp2" / "humanjudge.toml").unlink()
    commit(ws)
    return runner, base


def _codes_of(proc: subprocess.CompletedProcess[str], file: str) -> set[str]:
    return set(re.findall(rf"^::error file={re.escape(file)},.*title=([^:]+)::", proc.stdout, re.M))


@pytest.mark.parametrize("paths", ["", "."], ids=["changed-files", "whole-repository"])
def test_a_pull_request_cannot_switch_its_own_check_off(pull_request: tuple[Runner, str], paths: str) -> None:
    runner, base = _configured(pull_request)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_PATHS=paths)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # Each experiment is checked with its nearest configuration file as the base branch has it.
    exp1, exp2 = _codes_of(proc, "exp1/human_data_ind.json"), _codes_of(proc, "exp2/human_data_ind.json")
    assert "coggym/slider-value" not in exp1 and "coggym/misnamed-tag" in exp1 and len(exp1) == 5
    assert "coggym/misnamed-tag" not in exp2 and "coggym/slider-value" in exp2 and len(exp2) == 5
    assert runner.outputs()["errors"] == "14"  # and two coggym/mean-value in each experiment
    summary = runner.summary()
    assert "| <code>exp1/human_data_ind.json</code> | 5 | 0 |" in summary
    assert "| <code>exp2/human_data_ind.json</code> | 5 | 0 |" in summary
    assert "### This pull request changes the configuration" in summary
    assert "the base branch's configuration (`config-from: base`)" in summary
    assert '\n-ignore = ["coggym/slider-value"]\n+ignore = ["coggym", "parse"]\n' in summary
    assert "<code>exp2/humanjudge.toml</code> (deleted)" in summary
    used = "<code>exp2/humanjudge.toml</code>, <code>pyproject.toml</code>"
    assert f"Configuration: {used}, as on the base branch (`{base[:12]}`)." in summary
    assert re.search(r"^::notice title=humanjudge::this pull request changes the configuration", proc.stdout, re.M)


def test_config_from_head_uses_the_pull_requests_configuration(pull_request: tuple[Runner, str]) -> None:
    runner, base = _configured(pull_request)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_CONFIG_FROM="head")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert runner.outputs()["errors"] == "0"
    summary = runner.summary()
    assert "the pull request's configuration (`config-from: head`)" in summary
    assert '+ignore = ["coggym", "parse"]' in summary
    # the new settings govern the whole repository: every dataset was checked with them
    assert "No problems in 11 files." in summary


def test_without_a_configuration_on_the_base_branch_the_defaults_apply(pull_request: tuple[Runner, str]) -> None:
    runner, base = pull_request
    ws = runner.workspace
    shutil.copy(BROKEN_IND, ws / "exp2" / "human_data_ind.json")
    (ws / "humanjudge.toml").write_text('ignore = ["coggym", "parse"]\n')
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 1
    assert runner.outputs()["errors"] == "8"  # six in human_data_ind.json, two coggym/mean-value
    summary = runner.summary()
    assert "Configuration: the defaults (the base branch has no configuration file for these datasets)." in summary
    assert "<code>humanjudge.toml</code> (added)" in summary


def test_a_pyproject_change_outside_the_settings_is_not_a_configuration_change(
    pull_request: tuple[Runner, str],
) -> None:
    runner, _ = pull_request
    ws = runner.workspace
    (ws / "pyproject.toml").write_text(
        '[project]\nname = "data"\n\n[tool.humanjudge]\nignore = ["coggym/slider-value"]\n'
    )
    commit(ws)
    base = git(ws, "rev-parse", "HEAD")
    (ws / "pyproject.toml").write_text(
        '[project]\nname = "data"\nversion = "2"\n\n[tool.humanjudge]\nignore = ["coggym/slider-value"]\n'
    )
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 0
    assert "changes the configuration" not in runner.summary() + proc.stdout


def test_a_broken_configuration_on_the_base_branch_is_a_usage_error(pull_request: tuple[Runner, str]) -> None:
    runner, _ = pull_request
    ws = runner.workspace
    (ws / "humanjudge.toml").write_text("ignore = [\n")
    commit(ws)
    base = git(ws, "rev-parse", "HEAD")
    (ws / "humanjudge.toml").write_text("ignore = []\n")
    shutil.copy(BROKEN_IND, ws / "exp2" / "human_data_ind.json")
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 2
    assert re.search(
        rf"^::error title=humanjudge::.*invalid TOML.*the base branch's version, {base[:12]}", proc.stdout, re.M
    )


def test_the_config_option_reads_the_base_branchs_file(pull_request: tuple[Runner, str]) -> None:
    runner, _ = pull_request
    ws = runner.workspace
    (ws / "ci").mkdir()
    (ws / "ci" / "checks.toml").write_text('ignore = ["coggym/slider-value"]\n')
    commit(ws)
    base = git(ws, "rev-parse", "HEAD")
    (ws / "ci" / "checks.toml").write_text('ignore = ["coggym", "parse"]\n')
    shutil.copy(BROKEN_IND, ws / "exp2" / "human_data_ind.json")
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_ARGS="--config ci/checks.toml")
    assert proc.returncode == 1
    assert runner.outputs()["errors"] == "7"  # coggym/slider-value left out
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_ARGS="--config ci/new.toml")
    assert proc.returncode == 2 and "the base branch does not have" in proc.stdout


def test_a_wrong_config_from_is_a_usage_error(pull_request: tuple[Runner, str]) -> None:
    runner, base = pull_request
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_CONFIG_FROM="main")
    assert proc.returncode == 2
    assert "::error title=humanjudge::config-from input: 'main' is neither" in proc.stdout


# --- the args input --------------------------------------------------------------------------------


def test_args_are_read_as_the_command_reads_them() -> None:
    args = "--strict --select coggym,parse --select=schema --ignore coggym/no-human-data -j2 --max-per-code 3"
    options = parse_args(
        [*args.split(), "--kind", "coggym", "--config", "x.toml", "--skip-unknown", "--no-progress", "-v"]
    )
    assert options == Options(
        kind="coggym",
        strict=True,
        select=("coggym", "parse", "schema"),
        ignore=("coggym/no-human-data",),
        config=Path("x.toml"),
        jobs=2,
        skip_unknown=True,
        max_per_code=3,
        verbose=True,
    )
    assert parse_args([]) == Options()
    assert parse_args(["--isolated"]).isolated


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "json"], "--format is not for the action"),
        (["--show-settings"], "--show-settings is not for the action"),
        (["--stric"], "no such option: --stric"),
        (["data/"], "paths go in the paths input"),
        (["--jobs", "-1"], "'-1' is below 0"),
        (["--kind", "nope"], "invalid choice: 'nope'"),
        (["--isolated", "--config", "a.toml"], "exclude each other"),
    ],
)
def test_args_the_action_refuses(args: list[str], message: str) -> None:
    with pytest.raises(ArgsError, match=re.escape(message)):
        parse_args(args)


def test_every_option_of_the_command_is_known_to_the_action() -> None:
    from humanjudge_schema.commands.validate import validate as command

    known = {o for a in _parser()._actions for o in a.option_strings} | set(NOT_FOR_THE_ACTION)
    for param in command.params:
        for name in [*param.opts, *param.secondary_opts]:
            if name.startswith("-"):
                assert name in known, f"humanjudge validate {name} is neither read nor refused by the action"


# --- the summary cannot be forged ----------------------------------------------------------------


def test_control_characters_in_the_summary_are_escaped(runner: Runner) -> None:
    (runner.workspace / "odd").mkdir()
    name = "bad\nname\u202e|x\x1b.json"
    shutil.copy(CASES / "textjudge" / "invalid" / "schema-id-boolean" / "dataset.json", runner.workspace / "odd" / name)
    proc = runner.validate(HUMANJUDGE_PATHS="odd")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    summary = runner.summary()
    assert "\u202e" not in summary and "\x1b" not in summary
    shown = "<code>odd/bad\\nname\\u202e&#124;x\\x1b.json</code>"
    rows = [line for line in summary.splitlines() if "name" in line]
    assert rows and all(shown in row for row in rows)
    assert not any(line.startswith("name") for line in summary.splitlines())
    for row in rows:
        assert row.startswith("| ") and row.endswith(" |")
    assert "::error file=odd/bad%0Aname\u202e|x\x1b.json" in proc.stdout  # workflow commands escape newlines


def test_a_message_cannot_write_a_line_of_the_summary() -> None:
    f = Finding("schema/type", Severity.ERROR, "x\r\n## Passed\u2028- [x] all\x00good", "a.json", "/a\nb", 1, 1)
    text = summary(Result([f], 1))
    row = next(line for line in text.splitlines() if "Passed" in line)
    assert "x\\r\\n## Passed\\u2028- &#91;x&#93; all\\x00good" in row and "<code>/a\\nb</code>" in row
    assert not any(line.startswith(("## Passed", "- [x]")) for line in text.splitlines())


def test_a_fenced_block_no_line_can_close() -> None:
    text = "a\n```\n````\n<b>\x1b[31m"
    block = _fenced(text, "diff")
    assert block.startswith("`````diff\n") and block.endswith("\n`````")
    assert "\x1b" not in block and "\\x1b[31m" in block


def test_the_report_input_writes_the_report_and_a_table_per_question(runner: Runner) -> None:
    ws = runner.workspace
    shutil.copytree(EXAMPLES / "valid", ws / "exp")
    proc = runner.validate(HUMANJUDGE_PATHS="exp", HUMANJUDGE_REPORT="reports/judgments.html")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Report written to judgments.html" in proc.stdout
    assert runner.outputs()["report"] == "reports/judgments.html"
    html = (ws / "reports" / "judgments.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html
    summary = runner.summary()
    assert "### The judgments" in summary
    assert "| <code>exp</code> | goal_confidence | interval | 1 | 3 | 3 / 3 / 3 |" in summary


def test_a_report_that_cannot_be_written_leaves_validation_standing(runner: Runner) -> None:
    ws = runner.workspace
    shutil.copytree(EXAMPLES / "valid", ws / "exp")
    (ws / "taken").write_text("a file where the report's folder should be\n")
    proc = runner.validate(HUMANJUDGE_PATHS="exp", HUMANJUDGE_REPORT="taken/judgments.html")
    assert proc.returncode == 0
    assert "::warning title=humanjudge::no report:" in proc.stdout
    assert "No problems" in proc.stdout


def test_the_summary_names_a_dataset_without_judgments(runner: Runner) -> None:
    ws = runner.workspace
    shutil.copytree(EXAMPLES / "valid", ws / "exp")
    shutil.copytree(EXAMPLES / "valid", ws / "means")
    (ws / "means" / "human_data_ind.json").unlink()
    # without trials, the stored means (aggregate rows) cannot be placed under a question either
    (ws / "means" / "trial.jsonl").unlink()
    proc = runner.validate(HUMANJUDGE_PATHS="exp\nmeans", HUMANJUDGE_REPORT="report.html")
    assert runner.outputs()["report"] == "report.html", proc.stdout + proc.stderr
    summary = runner.summary()
    assert "| <code>exp</code> | goal_confidence | interval |" in summary
    assert "- <code>means</code>: no judgments: no individual data file human_data_ind.json (only " in summary
