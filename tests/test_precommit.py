"""The pre-commit hooks: the manifest is valid, every hook's entry gives the right verdict on the
files pre-commit would pass it, and `pre-commit try-repo` against this checkout, the way a
dataset maintainer tries the hooks, passes a valid dataset and fails a broken one.

The try-repo test installs the hooks' environments from the package registry; it runs wherever
the registry is reachable (CI) and is skipped elsewhere.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import catalog
from humanjudge_schema.commands.action.pull_request import dataset_file

from .conftest import CASES, ROOT

MANIFEST = ROOT / ".pre-commit-hooks.yaml"
EXAMPLES = ROOT / "examples" / "coggym"
TEXTJUDGE_VALID = CASES / "textjudge" / "valid" / "schema-all-categories" / "dataset.json"
TEXTJUDGE_BROKEN = CASES / "textjudge" / "invalid" / "schema-id-boolean" / "dataset.json"
BIN = Path(sys.executable).parent
LISTS = " (--format json lists them).\n"


@functools.cache
def registry_reachable() -> bool:
    """Whether pip's package index answers (CI: yes; an offline machine: no)."""
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
    try:
        with urllib.request.urlopen(f"{index}/pip/", timeout=10) as response:
            return bool(response.status == 200)
    except (OSError, ValueError):
        return False


def hooks() -> list[dict[str, Any]]:
    yaml = pytest.importorskip("yaml")
    loaded: list[dict[str, Any]] = yaml.safe_load(MANIFEST.read_text())
    return loaded


def _pre_commit() -> list[str]:
    pytest.importorskip("pre_commit")
    return [sys.executable, "-m", "pre_commit"]


def test_manifest_is_valid() -> None:
    proc = subprocess.run([*_pre_commit(), "validate-manifest", str(MANIFEST)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_humanjudge_hooks_take_every_file_and_let_the_catalog_decide() -> None:
    """The manifest is static: a `files` pattern there would be a copy of the catalog's that a new
    format (built-in or plug-in) leaves stale. The humanjudge hooks take every file, and
    --skip-unknown leaves out what no installed format claims (the next tests run them)."""
    by_id = {h["id"]: h for h in hooks()}
    for hook_id in ("humanjudge", "humanjudge-schema"):
        hook = by_id[hook_id]
        assert "files" not in hook and "exclude" not in hook and hook["types_or"] == ["file", "symlink"]
        assert hook["require_serial"] is True  # one process sees every file of an experiment
        assert "--skip-unknown" in hook["entry"] and "--base HEAD" in hook["entry"]
    # the Action's changed-file filter is the catalog's pattern, computed when it runs
    pattern = re.compile(catalog.file_pattern())
    assert dataset_file().pattern == pattern.pattern
    fixed = [f.name for fmt in catalog.formats().values() for f in fmt.files]
    assert fixed  # the catalog's formats decide the pattern: a new format's files are taken too
    for name in (*fixed, "jb.json", "data/topical_chat.json"):
        assert pattern.search(name) and pattern.search(f"some/folder/{name}"), name
    for name in ("notes.txt", "trial.jsonl.bak", "old_trial.jsonl", "event_blocks.csv.gz", "x.jsonl"):
        assert not pattern.search(name), name


def test_every_hook_is_documented() -> None:
    text = (ROOT / "docs" / "integrations.md").read_text()
    for hook in hooks():
        assert f"id: {hook['id']}" in text or f"`{hook['id']}`" in text, hook["id"]


# --- each entry run on the files pre-commit would pass it (offline) --------------------------


def _repository(root: Path, *, broken: bool) -> Path:
    shutil.copytree(EXAMPLES / ("broken" if broken else "valid"), root / "experiments" / "exp 1")
    (root / "judgebench").mkdir(parents=True)
    shutil.copy(TEXTJUDGE_BROKEN if broken else TEXTJUDGE_VALID, root / "judgebench" / "dataset.json")
    (root / "README.md").write_text("# data\n")
    (root / "notes.txt").write_text("not data\n")
    return root


def _selected(hook: dict[str, Any], root: Path) -> list[str]:
    """The files pre-commit passes a hook: `files` and `exclude` on the path, `types` on its tags."""
    from identify.identify import tags_from_path

    files = re.compile(hook.get("files", ""))
    exclude = re.compile(hook.get("exclude", "^$"))
    types = set(hook.get("types", ["file"]))
    types_or = set(hook.get("types_or", ()))
    out = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() or p.is_symlink()):
        name = path.relative_to(root).as_posix()
        tags = tags_from_path(str(path))
        if files.search(name) and not exclude.search(name) and types <= tags and (not types_or or types_or & tags):
            out.append(name)
    return out


def _run_entry(
    hook: dict[str, Any], root: Path, extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str] | None:
    files = _selected(hook, root)
    if not files:
        return None
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **(extra or {})}
    command = [*shlex.split(hook["entry"]), *hook.get("args", []), *files]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.skipif(shutil.which("bash") is None, reason="the check-jsonschema hooks run bash")
@pytest.mark.parametrize("broken", [False, True], ids=["valid", "broken"])
def test_each_entry_on_the_files_it_is_given(tmp_path: Path, broken: bool) -> None:
    if not (BIN / "check-jsonschema").exists() or not (BIN / "humanjudge").exists():
        pytest.skip("humanjudge and check-jsonschema must be installed beside this Python")
    root = _repository(tmp_path, broken=broken)
    verdicts = {}
    for hook in hooks():
        proc = _run_entry(hook, root)
        if proc is not None:
            assert "Traceback" not in proc.stdout + proc.stderr, hook["id"]
            verdicts[hook["id"]] = proc.returncode
            if hook["id"] == "humanjudge":
                output = proc.stdout
    fails = 1 if broken else 0
    assert verdicts == {
        "humanjudge": fails,
        "humanjudge-schema": fails,  # broken: a duplicate key and a schema error
        "check-jsonschema-coggym-config": 0,
        "check-jsonschema-coggym-human-data-ind": 0,  # duplicate keys pass check-jsonschema silently
        "check-jsonschema-coggym-human-data-mean": 0,
        "check-jsonschema-textjudge": fails,
    }
    if broken:
        assert "experiments/exp 1/human_data_mean.json" in output and "coggym/mean-value" in output
        assert "judgebench/dataset.json" in output and "schema/type" in output
    else:  # README.md, notes.txt and the experiment's media are left out, and counted
        assert output == "No problems in 6 files.\n4 files left out: 4 a data file of no known format" + LISTS


def test_the_humanjudge_hook_skips_json_that_is_not_data(tmp_path: Path) -> None:
    if not (BIN / "humanjudge").exists():
        pytest.skip("humanjudge must be installed beside this Python")
    root = _repository(tmp_path, broken=False)
    (root / "package.json").write_text('{"name": "not-a-dataset"}\n')
    (root / ".vscode").mkdir()
    (root / ".vscode" / "settings.json").write_text("{}\n")
    (hook,) = (h for h in hooks() if h["id"] == "humanjudge")
    assert "package.json" in _selected(hook, root)
    proc = _run_entry(hook, root)
    json = "2 JSON that is not a TextJudge dataset"
    assert proc is not None and (proc.returncode, proc.stdout, proc.stderr) == (
        0,
        f"No problems in 6 files.\n6 files left out: 4 a data file of no known format, {json}" + LISTS,
        "",
    )
    shutil.rmtree(root / "experiments")
    (root / "judgebench" / "dataset.json").unlink()
    proc = _run_entry(hook, root)  # nothing left but files of no known format: passed, and said
    assert proc is not None and (proc.returncode, proc.stdout) == (
        0,
        f"No problems in 0 files.\n4 files left out: {json}, 2 a data file of no known format" + LISTS,
    )


def test_the_humanjudge_hook_takes_a_plugin_formats_files(tmp_path: Path) -> None:
    """A format installed beside humanjudge is checked by the hook with no edit of the manifest:
    the installed catalog, not a pattern in it, says which files belong to a dataset."""
    if not (BIN / "humanjudge").exists():
        pytest.skip("humanjudge must be installed beside this Python")
    site = tmp_path / "site"
    shutil.copytree(ROOT / "tests" / "plugin" / "humanjudge_toy", site / "humanjudge_toy")
    (site / "humanjudge_toy-0.1.dist-info").mkdir()
    (site / "humanjudge_toy-0.1.dist-info" / "entry_points.txt").write_text(
        "[humanjudge_schema.formats]\ntoy = humanjudge_toy:FORMAT\n"
    )
    root = _repository(tmp_path / "repo", broken=False)
    (root / "study").mkdir()
    (root / "study" / "items.json").write_text('{"a": "first item"}\n')
    (root / "study" / "ratings.jsonl").write_text('{"item": "a", "rating": 9}\n')
    (hook,) = (h for h in hooks() if h["id"] == "humanjudge")
    assert "study/ratings.jsonl" in _selected(hook, root)
    proc = _run_entry(hook, root, {"PYTHONPATH": str(site)})
    assert proc is not None and proc.returncode == 1, proc
    assert "study/ratings.jsonl:1:" in proc.stdout and "toy/rating-range" in proc.stdout
    assert proc.stdout.splitlines()[-2] == "1 error, 0 warnings in 8 files."


# --- pre-commit try-repo, as a maintainer runs it -------------------------------------------


def _try_repo(repo: Path, store: Path) -> tuple[int, str, dict[str, str]]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(store), "PRE_COMMIT_COLOR": "never"}
    env.pop("PRE_COMMIT", None)
    proc = subprocess.run(
        [*_pre_commit(), "try-repo", str(ROOT), "--all-files", "--color", "never"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    verdicts = dict(re.findall(r"^(.+?)\.{3,}(?:\(no files to check\))?(Passed|Failed|Skipped)$", proc.stdout, re.M))
    return proc.returncode, proc.stdout + proc.stderr, verdicts


def _git_repository(root: Path, *, broken: bool) -> Path:
    _repository(root, broken=broken)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    return root


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_try_repo_on_a_valid_and_a_broken_dataset(tmp_path: Path) -> None:
    _pre_commit()
    if not registry_reachable():
        pytest.skip("the package registry is not reachable: pre-commit cannot install the hooks")
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    store = tmp_path / "store"
    code, output, verdicts = _try_repo(_git_repository(tmp_path / "valid", broken=False), store)
    assert code == 0, output
    assert set(verdicts.values()) == {"Passed"} and len(verdicts) == len(hooks()), output

    code, output, verdicts = _try_repo(_git_repository(tmp_path / "broken", broken=True), store)
    assert code == 1
    assert verdicts["humanjudge validate"] == "Failed", output
    assert verdicts["humanjudge validate (schemas only)"] == "Failed", output
    assert verdicts["check-jsonschema (CogGym human_data_ind.json)"] == "Passed", output
    assert "coggym/mean-value" in output and "parse/duplicate-key" in output and "schema/type" in output
