"""The command line as users run it: exit codes, output formats, configuration, no tracebacks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

VALID = ROOT / "examples" / "coggym" / "valid"
BROKEN = ROOT / "examples" / "coggym" / "broken"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert "Traceback" not in proc.stderr + proc.stdout
    return proc


@pytest.fixture
def experiment(tmp_path: Path) -> Path:
    target = tmp_path / "exp"
    shutil.copytree(VALID, target)
    return target


def _break_count(folder: Path) -> None:
    """Give trial_1's confidence slider one response too few."""
    ind = json.loads((folder / "human_data_ind.json").read_text())
    ind["trial_1"]["goal_confidence"].pop()
    (folder / "human_data_ind.json").write_text(json.dumps(ind, indent=2))


def test_version() -> None:
    proc = run("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("humanjudge 0.")


def test_valid_example_exits_0() -> None:
    proc = run("validate", str(VALID))
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout == "No problems in 5 files.\n"


def test_broken_example_exits_1_with_compiler_style_lines() -> None:
    proc = run("validate", str(BROKEN), cwd=ROOT)
    assert proc.returncode == 1
    first = proc.stdout.splitlines()[0]
    file, line, col, rest = first.split(":", 3)
    assert file.startswith("examples/coggym/broken/") and line.isdigit() and col.isdigit()
    assert rest.split()[0] in ("error", "warning")


def test_json_format(experiment: Path) -> None:
    _break_count(experiment)
    proc = run("validate", "--format", "json", str(experiment), cwd=experiment)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    summary = doc["summary"]
    assert {k: summary[k] for k in ("files", "errors", "warnings", "skipped")} == {
        "files": 5,
        "errors": 3,
        "warnings": 0,
        "skipped": 0,
    }
    # The configuration that applied: the empty one the test suite puts above every test folder.
    assert [Path(p).name for p in summary["configuration"]] == ["humanjudge.toml"]
    by_code = {(f["code"], f["pointer"]) for f in doc["findings"]}
    assert ("coggym/response-count", "/trial_1/goal_confidence") in by_code
    assert ("coggym/judgment-count", "/judgment_count") in by_code
    assert ("coggym/mean-value", "/trial_1/goal_confidence") in by_code
    finding = next(f for f in doc["findings"] if f["code"] == "coggym/response-count")
    assert finding == {
        "code": "coggym/response-count",
        "severity": "error",
        "message": "2 responses, participants_info.count is 3",
        "file": "human_data_ind.json",
        "pointer": "/trial_1/goal_confidence",
        "line": 26,
        "column": 5,
    }
    assert json.loads((experiment / "human_data_ind.json").read_text())["trial_1"]["goal_confidence"] == [95, 70]


def test_select_ignore_and_strict(experiment: Path) -> None:
    _break_count(experiment)
    only = json.loads(run("validate", "--format", "json", "--select", "coggym/response-count", str(experiment)).stdout)
    assert {f["code"] for f in only["findings"]} == {"coggym/response-count"}
    proc = run(
        "validate",
        "--ignore",
        "coggym/response-count,coggym/judgment-count",
        "--ignore",
        "coggym/mean-value",
        str(experiment),
    )
    assert proc.returncode == 0, proc.stdout
    (experiment / "human_data_mean.json").unlink()
    (experiment / "human_data_ind.json").write_text(
        (experiment / "human_data_ind.json").read_text().replace('"judgment_count": 30,', "")
    )
    proc = run("validate", "--select", "coggym/metadata-missing", str(experiment))
    assert proc.returncode == 1 and "error coggym/metadata-missing no judgment_count" in proc.stdout  # a "must"
    proc = run("validate", "--select", "dataset/missing-companion", str(experiment))
    assert proc.returncode == 0 and "warning dataset/missing-companion no human_data_mean.json" in proc.stdout
    assert run("validate", "--strict", "--select", "dataset/missing-companion", str(experiment)).returncode == 1


def test_configuration_is_found_walking_up(experiment: Path) -> None:
    _break_count(experiment)
    (experiment.parent / "pyproject.toml").write_text(
        '[project]\nname = "data"\n\n[tool.humanjudge]\nignore = ["coggym/judgment-count"]\n'
        '[tool.humanjudge.severity]\n"coggym/mean-value" = "warning"\n'
        '[tool.humanjudge.coggym]\nresponse-count = "at-most"\n'
    )
    doc = json.loads(run("validate", "--format", "json", str(experiment)).stdout)
    assert [(f["code"], f["severity"]) for f in doc["findings"]] == [("coggym/mean-value", "warning")]


def test_per_file_ignores(experiment: Path) -> None:
    _break_count(experiment)
    (experiment / "humanjudge.toml").write_text(
        '[per-file-ignores]\n"human_data_*.json" = ["coggym/response-count", "coggym/judgment-count"]\n'
    )
    doc = json.loads(run("validate", "--format", "json", str(experiment)).stdout)
    assert {f["code"] for f in doc["findings"]} == {"coggym/mean-value"}


def test_max_per_code_from_configuration_and_flag(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(BROKEN, broken)
    full = json.loads(run("validate", "--format", "json", str(broken)).stdout)
    means = [f for f in full["findings"] if f["code"] == "coggym/mean-value"]
    assert len(means) == 3
    (broken / "humanjudge.toml").write_text("max-per-code = 1\n")
    doc = json.loads(run("validate", "--format", "json", str(broken)).stdout)
    listed = [f for f in doc["findings"] if f["code"] == "coggym/mean-value"]
    assert listed[1:] == [means[0]] and listed[0]["more"] == 2 and listed[0]["line"] is None
    assert "2 more coggym/mean-value findings in this file are not listed" in listed[0]["message"]
    totals = ("files", "errors", "warnings")
    assert [doc["summary"][k] for k in totals] == [full["summary"][k] for k in totals]  # unlisted ones count
    doc = json.loads(run("validate", "--format", "json", "--max-per-code", "0", str(broken)).stdout)
    assert doc["findings"] == full["findings"]
    (broken / "humanjudge.toml").write_text("max-per-code = -1\n")
    proc = run("validate", str(broken))
    assert proc.returncode == 2 and "max-per-code must be an integer >= 0" in proc.stderr


def test_the_findings_listed_past_the_limit_are_the_first_by_pointer(tmp_path: Path) -> None:
    from humanjudge_schema.config import Config
    from humanjudge_schema.engine import Context

    path = tmp_path / "a.json"
    ctx = Context(Config(max_per_code=2))
    for k in [12, 3, 10, 7, 2, 9, 11, 1, 8, 4, 0, 6, 5]:  # found in no particular order
        ctx.add("schema/type", path, f"/{k}", f"bad {k}")
    checkpoint = ctx.checkpoint()
    ctx.add("schema/type", path, "/0", "bad 0, again")  # forgotten below
    ctx.rollback(checkpoint)
    found = [(f.pointer, f.more) for f in ctx.findings()]
    assert found == [("", 11), ("/0", 0), ("/1", 0)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("validate", "does/not/exist"), "no such file or folder"),
        (("validate", "--kind", "nope", "x"), "Invalid value for '--kind'"),
        (("rules", "coggym/no-such-rule"), "no rule or family 'coggym/no-such-rule'"),
        (("validate",), "Missing argument"),
    ],
)
def test_usage_errors_exit_2(args: tuple[str, ...], message: str) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_unknown_file_kind_exits_2(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    proc = run("validate", str(tmp_path / "notes.txt"))
    assert proc.returncode == 2 and "not a file of a known format" in proc.stderr


def test_bad_configuration_exits_2(experiment: Path) -> None:
    (experiment / "humanjudge.toml").write_text('selct = ["coggym"]\n')
    proc = run("validate", str(experiment))
    assert proc.returncode == 2 and "unknown key 'selct'" in proc.stderr
    (experiment / "humanjudge.toml").write_text("[severity\n")
    proc = run("validate", str(experiment))
    assert proc.returncode == 2 and "invalid TOML" in proc.stderr


def test_unreadable_file_is_a_finding(experiment: Path) -> None:
    (experiment / "human_data_mean.json").unlink()
    (experiment / "human_data_mean.json").symlink_to(experiment / "gone.json")
    doc = json.loads(run("validate", "--format", "json", str(experiment)).stdout)
    assert [(f["code"], f["file"]) for f in doc["findings"]] == [
        ("parse/unreadable", str(experiment / "human_data_mean.json"))
    ]


def test_a_file_is_checked_with_its_experiment(experiment: Path) -> None:
    _break_count(experiment)
    doc = json.loads(run("validate", "--format", "json", str(experiment / "trial.jsonl")).stdout)
    assert doc["summary"]["files"] == 5
    assert "coggym/response-count" in {f["code"] for f in doc["findings"]}


def test_rules_lists_and_explains() -> None:
    listing = run("rules").stdout
    assert "coggym/response-count" in listing and "parse/duplicate-key" in listing
    explained = run("rules", "coggym/response-count").stdout
    assert explained.startswith("coggym/response-count (error):")
    assert "Bad:" in explained and "Good:" in explained


def test_aggregate_writes_checks_and_refuses_to_overwrite(experiment: Path) -> None:
    proc = run("aggregate", str(experiment))
    assert proc.returncode == 2 and "--force" in proc.stderr
    assert run("aggregate", "--check", str(experiment)).returncode == 0
    before = (experiment / "human_data_mean.json").read_bytes()
    ind = json.loads((experiment / "human_data_ind.json").read_text())
    ind["trial_1"]["goal_confidence"] = [10, 20, 30]
    (experiment / "human_data_ind.json").write_text(json.dumps(ind))
    proc = run("aggregate", "--check", str(experiment))
    assert proc.returncode == 1 and "coggym/mean-value" in proc.stdout
    assert (experiment / "human_data_mean.json").read_bytes() == before
    proc = run("aggregate", "--force", str(experiment))
    assert proc.returncode == 0
    mean = json.loads((experiment / "human_data_mean.json").read_text())
    assert mean["trial_1"]["goal_confidence"] == 20.0
    assert mean["trial_1"]["agent_goal"] == {"agent_goal_1": 0.6667, "agent_goal_3": 0.3333}  # right: kept as stored
    assert list(mean)[:2] == ["participants_info", "judgment_count"]
    assert run("validate", str(experiment)).returncode == 0
    assert not list(experiment.glob(".*.tmp"))


def test_a_file_that_cannot_be_written_is_one_line_and_exit_2(experiment: Path, tmp_path: Path) -> None:
    dataset = next((ROOT / "examples" / "textjudge" / "valid").glob("*.json"))
    missing = tmp_path / "no-such-folder" / "out.json"
    for args in (
        ("aggregate", "--force", "-o", str(missing), str(experiment)),
        ("aggregate", "-o", str(missing), str(dataset)),
        ("render", "-o", str(missing), str(dataset)),
    ):
        proc = run(*args)
        assert proc.returncode == 2, args
        # render checks its target before any work, as export and report do
        why = f"{missing.parent} is not a folder" if args[0] == "render" else "No such file or directory"
        assert proc.stderr.strip() == f"humanjudge: cannot write {missing}: {why}", args
        assert "internal error" not in proc.stderr


def test_schema_command() -> None:
    listing = run("schema").stdout
    assert "coggym/v1/trial" in listing
    printed = json.loads(run("schema", "coggym/v1/trial").stdout)
    assert printed["$id"].endswith("coggym/v1/trial.schema.json")
    path = run("schema", "--path", "trial").stdout.strip()
    assert Path(path).is_file()


def test_folder_without_datasets_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    proc = run("validate", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr == f"humanjudge: {tmp_path}: no dataset files here\n"


def test_configuration_created_between_two_runs_is_seen(experiment: Path) -> None:
    from humanjudge_schema import validate

    _break_count(experiment)
    assert "coggym/response-count" in {f.code for f in validate([experiment]).findings}
    (experiment / "humanjudge.toml").write_text('ignore = ["coggym/response-count"]\n')
    assert "coggym/response-count" not in {f.code for f in validate([experiment]).findings}


_BLAS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}),
        ({"OMP_NUM_THREADS": "3"}, {"OMP_NUM_THREADS": "3"}),
        ({"OPENBLAS_NUM_THREADS": "4"}, {"OPENBLAS_NUM_THREADS": "4"}),
        ({"MKL_NUM_THREADS": "2"}, {"MKL_NUM_THREADS": "2"}),
    ],
)
def test_the_console_asks_blas_for_one_thread_unless_the_user_chose(
    given: dict[str, str], expected: dict[str, str]
) -> None:
    """The console command sets the BLAS threads before numpy is imported, only where the user
    set none of the variables; a program importing the library is left as it is."""
    probe = (
        "import os, sys\n"
        "import humanjudge_schema.commands as c\n"
        "def shown(**_):\n"
        f"    print({{k: os.environ[k] for k in {_BLAS!r} if k in os.environ}}, 'numpy' in sys.modules)\n"
        "c.cli.main = shown\n"
        "c.main(sys.argv[1:] or None)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in _BLAS} | given
    console = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert console.stdout.strip() == f"{expected!r} False"
    library = subprocess.run(
        [sys.executable, "-c", probe, "stats"], env=env, capture_output=True, text=True, check=True
    )
    assert library.stdout.strip() == f"{given!r} False"


@pytest.mark.parametrize("chosen", [None, "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_"])
def test_the_console_export_keeps_its_heap_unless_the_user_chose(chosen: str | None, tmp_path: Path) -> None:
    """The console's export asks glibc to keep freed memory (heap.keep_freed) where the user set
    none of glibc's variables; called from Python, the export leaves the heap as it is."""
    from humanjudge_schema import heap

    if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
        assert heap.keep_freed({}) is False
        return
    assert heap.keep_freed({"MALLOC_TOP_PAD_": "0"}) is False
    probe = (
        "import sys\n"
        "import humanjudge_schema.heap as heap\n"
        "real = heap.keep_freed\n"
        "def seen(*a):\n"
        "    print('asked', real(*a), file=sys.stderr)\n"
        "    return True\n"
        "heap.keep_freed = seen\n"
        "from humanjudge_schema.commands import main\n"
        "mode, sys.argv = sys.argv[1], ['humanjudge', *sys.argv[2:]]\n"
        "main(None if mode == 'console' else sys.argv[1:])\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")} | ({chosen: "1000000"} if chosen else {})
    args = ["export", str(ROOT / "examples" / "coggym" / "valid"), "-o", str(tmp_path / "rows.jsonl"), "--force"]
    console = subprocess.run([sys.executable, "-c", probe, "console", *args], env=env, capture_output=True, text=True)
    assert console.returncode == 0, console.stderr
    assert f"asked {chosen is None}" in console.stderr
    library = subprocess.run([sys.executable, "-c", probe, "library", *args], env=env, capture_output=True, text=True)
    assert library.returncode == 0, library.stderr
    assert "asked" not in library.stderr


def test_the_console_freezes_what_a_paused_block_leaves_alive() -> None:
    """Run as the console command, what a paused block leaves alive is frozen at its end (the
    next collections do not walk it) and the collector is enabled again; an inner block waits for
    the outer one; called from Python, nothing is frozen (gcpause.freeze_kept)."""
    probe = (
        "import gc, sys\n"
        "import humanjudge_schema.commands as c\n"
        "from humanjudge_schema.gcpause import paused\n"
        "def shown(**_):\n"
        "    before = gc.get_freeze_count()\n"
        "    with paused():\n"
        "        with paused():\n"
        "            kept = [[] for _ in range(5000)]\n"
        "        inner = gc.get_freeze_count() - before\n"
        "    print(inner, gc.get_freeze_count() - before >= 5000, gc.isenabled(), len(kept))\n"
        "c.cli.main = shown\n"
        "c.main(sys.argv[1:] or None)\n"
    )
    console = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert console.stdout.split() == ["0", "True", "True", "5000"]
    library = subprocess.run([sys.executable, "-c", probe, "stats"], capture_output=True, text=True, check=True)
    assert library.stdout.split() == ["0", "False", "True", "5000"]
