"""`--jobs`: several processes give the same bytes as one; the progress bar shows only on a
terminal, outside CI."""

from __future__ import annotations

import io
import json
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from humanjudge_schema import validate, workers
from humanjudge_schema.progress import Bar, wanted

from .conftest import CASES, ROOT

EXAMPLES = ROOT / "examples" / "coggym"


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of several datasets: clean and broken experiments, each broken differently, and
    TextJudge datasets, so that findings come from many units."""
    root = tmp_path_factory.mktemp("many")
    for i in range(3):
        shutil.copytree(EXAMPLES / "valid", root / f"valid-{i}")
        shutil.copytree(EXAMPLES / "broken", root / f"broken-{i}")
        ind = json.loads((root / f"valid-{i}" / "human_data_ind.json").read_text())
        del ind["trial_1"]["goal_confidence"][: i + 1]
        (root / f"valid-{i}" / "human_data_ind.json").write_text(json.dumps(ind, indent=1))
    for case in ("valid/schema-all-categories", "invalid/schema-id-boolean", "invalid/duplicate-id"):
        source = CASES / "textjudge" / case / "dataset.json"
        if source.is_file():
            target = root / "textjudge" / case.replace("/", "-")
            target.mkdir(parents=True)
            shutil.copy(source, target / "dataset.json")
    return root


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "humanjudge_schema", *args], cwd=cwd, capture_output=True, timeout=300)


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_two_jobs_print_the_same_bytes_as_one(many: Path, fmt: str) -> None:
    one = run("validate", "--format", fmt, "-j", "1", ".", cwd=many)
    two = run("validate", "--format", fmt, "--jobs", "2", ".", cwd=many)
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout
    assert one.stdout.count(b"coggym/response-count") >= 3
    assert two.stderr == b""  # no progress bar when stderr is not a terminal


def test_library_jobs_agree(many: Path) -> None:
    serial = validate([many], cwd=str(many))
    parallel = validate([many], cwd=str(many), jobs=0)  # one process per core
    assert serial == parallel
    assert serial.files >= 30 and serial.errors > 0


def test_one_path_as_a_string(many: Path) -> None:
    assert validate(str(many / "valid-0")) == validate([many / "valid-0"])


def test_jobs_must_not_be_negative(many: Path) -> None:
    proc = run("validate", "-j", "-1", ".", cwd=many)
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr


# --- the progress bar ----------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_only_on_a_terminal_outside_ci() -> None:
    assert wanted(_Terminal(), {})
    assert not wanted(_Terminal(), {"CI": "true"})
    assert not wanted(_Terminal(), {"TERM": "dumb"})
    assert not wanted(io.StringIO(), {})


def test_the_bar_draws_and_clears(many: Path) -> None:
    stream = _Terminal()
    bar = Bar(stream, delay=0.0, interval=0.01)
    result = validate([many], progress=bar)
    text = stream.getvalue()
    assert result.errors > 0
    assert "\r[" in text and "datasets" in text
    assert text.endswith("\r\x1b[K")  # the line is cleared before the report is printed
    assert f"{bar.units}/{bar.units} datasets" in text


def test_a_short_run_draws_nothing(many: Path) -> None:
    stream = _Terminal()
    validate([many / "valid-0"], progress=Bar(stream, delay=60.0))
    assert stream.getvalue() == ""


def _group(pgid: int) -> list[int]:
    """The processes still in a process group (Linux: field 5 of /proc/PID/stat)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(stat.parent.name))
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_an_interrupted_parallel_run_leaves_no_worker_behind(tmp_path: Path) -> None:
    import os
    import signal
    import time

    instance = {"id": "0", "instance": "x", "annotations": {"q": {"individual_human_scores": ["a", "b", "c"] * 20}}}
    dataset = {
        "dataset": "d",
        "dataset_url": "https://example.org",
        "annotations": [
            {"metric": "q", "category": "categorical", "labels_list": ["a", "b", "c"], "prompt": "{{ instance }}"}
        ],
        "instances": [dict(instance, id=str(i)) for i in range(20000)],
    }
    for n in range(6):
        (tmp_path / f"d{n}.json").write_text(json.dumps(dataset))
    proc = subprocess.Popen(
        [sys.executable, "-m", "humanjudge_schema", "validate", "--jobs", "2", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: the workers are in it too
    )
    deadline = time.monotonic() + 30
    while len(_group(proc.pid)) < 3 and time.monotonic() < deadline:  # the command and two workers
        time.sleep(0.05)
    assert len(_group(proc.pid)) >= 3, "the workers never started"
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C at a terminal reaches the whole group
    _, err = proc.communicate(timeout=30)
    time.sleep(0.5)
    assert proc.returncode != 0
    assert _group(proc.pid) == []
    assert b"Traceback" not in err


# --- export --jobs --------------------------------------------------------------------------


def _textjudge(scores: dict[str, object], n: int) -> dict[str, object]:
    instance = {"id": "0", "instance": "x", "annotations": {"q": scores}}
    return {
        "dataset": "d",
        "dataset_url": "https://example.org",
        "annotations": [
            {"metric": "q", "category": "categorical", "labels_list": ["a", "b", "c"], "prompt": "{{ instance }}"}
        ],
        "instances": [dict(instance, id=str(i)) for i in range(n)],
    }


@pytest.fixture(scope="module")
def exported(many: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`many` with what export says a line of on stderr: a dataset of stored majorities only
    (no agreement) and a Git LFS pointer (no judgments)."""
    root = tmp_path_factory.mktemp("exported")
    shutil.copytree(many, root / "many")
    (root / "majority").mkdir()
    (root / "majority" / "dataset.json").write_text(json.dumps(_textjudge({"majority_human": "a"}, 3)))
    (root / "pointer").mkdir()
    lfs = "version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64 + "\nsize 5\n"
    (root / "pointer" / "dataset.json").write_text(lfs)
    return root


@pytest.mark.parametrize("to", ["csv", "jsonl", "parquet"])
def test_export_with_two_jobs_writes_the_bytes_of_one(exported: Path, tmp_path: Path, to: str) -> None:
    if to == "parquet":
        pytest.importorskip("pyarrow")
    one = run("export", str(exported), "--to", to, "-o", f"one.{to}", "-j", "1", cwd=tmp_path)
    two = run("export", str(exported), "--to", to, "-o", f"two.{to}", "--jobs", "2", cwd=tmp_path)
    assert one.returncode == two.returncode == 1
    assert (tmp_path / f"one.{to}").read_bytes() == (tmp_path / f"two.{to}").read_bytes()
    assert one.stderr.replace(f"one.{to}".encode(), b"") == two.stderr.replace(f"two.{to}".encode(), b"")
    assert b"agreement cannot be computed" in one.stderr
    assert b"Git LFS pointer" in one.stderr and b"from 10 datasets" in one.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"one.{to}", f"two.{to}"]  # the parts are gone
    if to == "csv":  # the rows of every dataset, in the order one job writes them
        assert (tmp_path / "one.csv").read_bytes().count(b"\n") > 200


def test_export_with_jobs_on_standard_output(exported: Path) -> None:
    one = run("export", ".", "--to", "jsonl", cwd=exported)
    two = run("export", ".", "--to", "jsonl", "-j", "0", cwd=exported)  # one per core
    assert one.stdout == two.stdout and one.stdout.count(b"\n") == 206 + 81
    assert one.stderr == two.stderr


def test_export_with_jobs_and_no_judgments_writes_nothing(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "dataset.json").write_text(json.dumps(_textjudge({"individual_human_scores": []}, 2)))
    proc = run("export", ".", "-o", "rows.csv", "-j", "2", cwd=tmp_path)
    assert proc.returncode == 2 and b"no judgments in" in proc.stderr
    assert b"Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "c"]  # no file, no parts


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_an_interrupted_parallel_export_leaves_no_worker_and_no_file_behind(tmp_path: Path) -> None:
    data = _four(tmp_path)

    def writing(_: int) -> bool:  # the export's workers are writing their parts
        return any(tmp_path.glob(".humanjudge-export-*/*"))

    _interrupted(["export", "-j", "2", "-q", str(data), "-o", "rows.csv"], tmp_path, writing)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]  # no rows.csv, no parts


def _four(tmp_path: Path) -> Path:
    """A folder of four TextJudge datasets that take a worker a second or two each."""
    data = tmp_path / "data"
    data.mkdir()
    for n in range(4):
        (data / f"d{n}.json").write_text(json.dumps(_textjudge({"individual_human_scores": ["a", "b"] * 40}, 8000)))
    return data


def _interrupted(args: list[str], cwd: Path, running: Callable[[int], bool]) -> None:
    """Run the command in a process group of its own, press Ctrl-C once `running(pid)` holds, and
    check that it ends with exit code 130, no traceback and no process of its group left."""
    import os
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "humanjudge_schema", *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: the workers are in it too
    )
    deadline = time.monotonic() + 60
    while not running(proc.pid) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    assert running(proc.pid), "the workers never started"
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C at a terminal reaches the whole group
    _, err = proc.communicate(timeout=30)
    time.sleep(0.5)
    assert proc.returncode == 130, err
    assert _group(proc.pid) == []
    assert b"Traceback" not in err


# --- stats --jobs and report --jobs ---------------------------------------------------------


@pytest.mark.parametrize(
    ("folder", "args"),
    [
        ("examples", ("--format", "text")),
        ("examples", ("--format", "json", "--raters")),
        ("tests/cases", ("--format", "text", "--raters")),
        ("tests/cases", ("--format", "json")),
    ],
)
def test_stats_with_jobs_prints_the_bytes_of_one(folder: str, args: tuple[str, ...]) -> None:
    one = run("stats", folder, *args, "-j", "1", cwd=ROOT)
    two = run("stats", folder, *args, "--jobs", "2", cwd=ROOT)
    assert one.returncode == two.returncode == 0
    assert one.stdout == two.stdout and one.stderr == two.stderr
    assert b"Traceback" not in two.stderr
    if folder == "tests/cases":  # datasets said to hold no judgments or no agreement, in dataset order
        assert two.stderr.count(b"no judgments:") > 10 and b"agreement cannot be computed" in two.stderr


def test_stats_with_jobs_and_a_dataset_without_judgments(exported: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "dataset.json").write_text(json.dumps(_textjudge({"individual_human_scores": []}, 2)))
    shutil.copytree(EXAMPLES / "valid", tmp_path / "valid")
    for args in (("--format", "text"), ("--format", "json")):
        one = run("stats", ".", *args, cwd=tmp_path)
        two = run("stats", ".", *args, "-j", "2", cwd=tmp_path)
        assert one.returncode == two.returncode == 0
        assert (one.stdout, one.stderr) == (two.stdout, two.stderr)
        assert two.stderr.startswith(b"humanjudge: empty/dataset.json: no judgments:")
    assert [d["format"] for d in json.loads(one.stdout)["datasets"]] == ["coggym"]
    # the majority-only and LFS-pointer datasets of `exported`, told of in order among the others
    one, two = run("stats", str(exported), cwd=tmp_path), run("stats", str(exported), "-j", "0", cwd=tmp_path)
    assert one.returncode == two.returncode == 0
    assert (one.stdout, one.stderr) == (two.stdout, two.stderr)
    assert b"Git LFS pointer" in two.stderr and b"agreement cannot be computed" in two.stderr


def test_stats_with_jobs_and_no_judgments_anywhere(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "dataset.json").write_text(json.dumps(_textjudge({"individual_human_scores": []}, 2)))
    one, two = run("stats", ".", cwd=tmp_path), run("stats", ".", "-j", "2", cwd=tmp_path)
    assert one.returncode == two.returncode == 2
    assert one.stderr == two.stderr and one.stdout == two.stdout == b""
    assert two.stderr.count(b"no judgments:") == 2 and b"no judgments in ." in two.stderr
    assert b"Traceback" not in two.stderr


@pytest.mark.parametrize("folder", ["examples", "exported"])
def test_report_with_jobs_writes_the_page_of_one(folder: str, exported: Path, tmp_path: Path) -> None:
    where = ROOT / "examples" if folder == "examples" else exported
    one = run("report", str(where), "-o", str(tmp_path / "one.html"), "-j", "1", cwd=where)
    two = run("report", str(where), "-o", str(tmp_path / "two.html"), "--jobs", "2", cwd=where)
    assert one.returncode == two.returncode == 1  # validate's: the broken examples
    assert (tmp_path / "one.html").read_bytes() == (tmp_path / "two.html").read_bytes()
    assert one.stdout.replace(b"one.html", b"") == two.stdout.replace(b"two.html", b"")
    assert one.stderr == two.stderr and b"Traceback" not in two.stderr
    assert b"<svg" in (tmp_path / "two.html").read_bytes()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("command", ["stats", "report"])
def test_an_interrupted_parallel_description_leaves_no_worker_behind(command: str, tmp_path: Path) -> None:
    data = _four(tmp_path)
    args = ["-o", "report.html"] if command == "report" else []

    def working(pid: int) -> bool:  # the command and two workers
        return len(_group(pid)) >= 3

    _interrupted([command, "-j", "2", str(data), *args], tmp_path, working)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]  # no report.html


def _signals() -> tuple[object, bool]:
    return signal.getsignal(signal.SIGINT), signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="no signal masks here")
def test_workers_start_with_ctrl_c_held_back_then_ignore_it() -> None:
    """A worker starts with Ctrl-C held back (a Ctrl-C as it forks would otherwise interrupt the
    Python code a new process runs first, with a traceback), then ignores it; the main process's
    mask is what it was."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    with workers.pool(1) as running:
        handler, held = running.apply(_signals)
    assert handler == signal.SIG_IGN
    assert not held
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before
