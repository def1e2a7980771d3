"""writing.py: what a write refuses before anything is written (devices, pipes, sockets,
folders, links, a path leading outside the folder it must stay in), and what a write interrupted
by a signal leaves behind (the old file, and no temporary file)."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema import writing
from humanjudge_schema.writing import WriteError, check_target, open_atomic, write_atomic

from .conftest import ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="devices, FIFOs, sockets and signals of POSIX")


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --- what is refused before anything is written ---------------------------------------------------
# The devices are made in the test's folder: a write that is not refused (the code before these
# tests) must not replace the machine's /dev/null.


def _device(tmp_path: Path) -> Path:
    path = tmp_path / "null"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root")
    return path


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _socket(tmp_path: Path) -> Path:
    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
    return path


def _folder(tmp_path: Path) -> Path:
    path = tmp_path / "folder"
    path.mkdir()
    return path


NOT_FILES = {
    "character device": (_device, "is a character device, not a regular file"),
    "fifo": (_fifo, "is a named pipe (FIFO), not a regular file"),
    "socket": (_socket, "is a socket, not a regular file"),
    "folder": (_folder, "is a folder, not a regular file"),
}


def _state(path: Path) -> tuple[int, int, int]:
    st = os.lstat(path)
    return st.st_mode, st.st_ino, st.st_rdev


@pytest.mark.parametrize("kind", sorted(NOT_FILES))
@pytest.mark.parametrize("how", ["check_target", "write_atomic", "open_atomic"])
def test_a_target_that_is_not_a_regular_file_is_refused(kind: str, how: str, tmp_path: Path) -> None:
    make, message = NOT_FILES[kind]
    target = make(tmp_path)
    before = _state(target)
    folder_before = sorted(os.listdir(target.parent))
    entered = False
    with pytest.raises(WriteError, match=f"^{target} {message}".replace("(", r"\(").replace(")", r"\)")):
        if how == "check_target":
            check_target(target)
        elif how == "write_atomic":
            write_atomic(target, b"new")
        else:
            with open_atomic(target) as f:
                entered = True
                f.write(b"new")
    assert not entered  # refused before the block runs
    assert _state(target) == before
    assert sorted(os.listdir(target.parent)) == folder_before


DEVICE_TARGETS = {
    "render": ["render", "{dataset}", "-o", "{device}"],
    "aggregate": ["aggregate", "{dataset}", "-o", "{device}"],
    "export": ["export", "{dataset}", "-o", "{device}", "--force"],
}


@pytest.mark.parametrize("command", sorted(DEVICE_TARGETS))
def test_the_command_line_refuses_a_device(command: str, tmp_path: Path) -> None:
    device = _device(tmp_path)
    dataset = ROOT / "examples" / "textjudge" / "valid" / "dataset.json"
    args = [a.format(dataset=dataset, device=device) for a in DEVICE_TARGETS[command]]
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *args], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1:] == [
        f"humanjudge: {device} is a character device, not a regular file; name a file to write"
    ]
    assert stat.S_ISCHR(os.lstat(device).st_mode) and _leftovers(tmp_path) == []


def _outside(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A workspace with a folder `sub` that is a link to a folder outside it."""
    workspace, outside = tmp_path / "workspace", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (workspace / "sub").symlink_to(outside)
    return workspace, outside, workspace / "sub" / "summary.md"


def test_a_folder_that_leads_outside_within_is_refused(tmp_path: Path) -> None:
    workspace, outside, target = _outside(tmp_path)
    for call in (
        lambda: check_target(target, within=workspace),
        lambda: write_atomic(target, b"x", within=workspace),
    ):
        with pytest.raises(WriteError, match=rf"^{target} leads outside {workspace} \(to {outside}/summary\.md\)"):
            call()
    assert list(outside.iterdir()) == []
    write_atomic(target, b"x")  # without `within`, links of folders are followed as usual
    assert (outside / "summary.md").read_bytes() == b"x"


def test_a_path_inside_within_is_written(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    (workspace / "real").mkdir(parents=True)
    (workspace / "inner").symlink_to(workspace / "real")  # a link that stays inside is fine
    write_atomic(workspace / "inner" / "out.txt", b"ok", within=workspace)
    assert (workspace / "real" / "out.txt").read_bytes() == b"ok"
    with pytest.raises(WriteError, match="leads outside"):
        write_atomic(workspace / ".." / "escaped.txt", b"no", within=workspace)
    assert not (tmp_path / "escaped.txt").exists()


def test_a_device_put_in_place_during_the_write_is_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    with pytest.raises(WriteError, match=r"is a named pipe \(FIFO\), not a regular file"), open_atomic(target) as f:
        f.write(b"new")
        os.mkfifo(target)
    assert stat.S_ISFIFO(os.lstat(target).st_mode) and _leftovers(tmp_path) == []


def test_a_folder_swapped_for_a_link_during_the_write_is_refused(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "workspace", tmp_path / "outside"
    (workspace / "sub").mkdir(parents=True)
    outside.mkdir()
    target = workspace / "sub" / "out.txt"
    changed = "its folder changed while it was written"
    with pytest.raises(WriteError, match=changed), open_atomic(target, within=workspace) as f:
        f.write(b"new")
        (workspace / "sub").rename(workspace / "was-sub")
        (workspace / "sub").symlink_to(outside)
    assert list(outside.iterdir()) == [] and _leftovers(workspace / "was-sub") == []


def test_the_signature_the_action_calls() -> None:
    import inspect

    params = inspect.signature(write_atomic).parameters
    assert list(params) == ["path", "data", "inputs", "within"]
    assert params["within"].kind is inspect.Parameter.KEYWORD_ONLY and params["within"].default is None
    assert inspect.signature(open_atomic).parameters["within"].kind is inspect.Parameter.KEYWORD_ONLY


# --- interrupted writes ---------------------------------------------------------------------------

_SLOW_WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from humanjudge_schema.writing import open_atomic

    with open_atomic(Path(sys.argv[1])) as f:
        for _ in range(600):
            f.write(b"new content " * 1000)
            f.flush()
            time.sleep(0.05)
    """
)


def _export_dataset(tmp_path: Path) -> Path:
    """A TextJudge dataset whose export takes a few seconds."""
    import json

    instance = {"id": "0", "instance": "x", "annotations": {"q": {"individual_human_scores": ["a", "b", "c"] * 20}}}
    dataset = {
        "dataset": "d",
        "dataset_url": "https://example.org",
        "annotations": [
            {"metric": "q", "category": "categorical", "labels_list": ["a", "b", "c"], "prompt": "{{ instance }}"}
        ],
        "instances": [dict(instance, id=str(i)) for i in range(40000)],
    }
    path = tmp_path / "data" / "big.json"
    path.parent.mkdir()
    path.write_text(json.dumps(dataset))
    return path


def _wait_for_tmp(folder: Path, proc: subprocess.Popen[bytes], grown: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        tmps = [p for p in folder.iterdir() if p.name.endswith(".tmp")]
        if tmps and tmps[0].stat().st_size >= grown:
            return
        time.sleep(0.01)
    pytest.fail(f"no temporary file grew to {grown} bytes (exit code {proc.poll()})")


STOPS = {"SIGTERM": (signal.SIGTERM, 143, "stopped by SIGTERM"), "SIGINT": (signal.SIGINT, 130, "interrupted")}


@pytest.mark.parametrize("name", sorted(STOPS))
def test_a_killed_export_leaves_the_old_file_and_no_temporary_file(name: str, tmp_path: Path) -> None:
    signum, code, message = STOPS[name]
    dataset = _export_dataset(tmp_path)
    out = tmp_path / "out.csv"
    out.write_bytes(b"old content\n")
    with (tmp_path / "stderr").open("wb") as err:  # a pipe nobody reads would fill up
        proc = subprocess.Popen(
            [sys.executable, "-m", "humanjudge_schema", "export", str(dataset), "-o", str(out), "--force"],
            stdout=subprocess.PIPE,
            stderr=err,
            cwd=tmp_path,
        )
        _wait_for_tmp(tmp_path, proc, 1 << 20)
        proc.send_signal(signum)
        stdout, _ = proc.communicate(timeout=60)
    stderr = (tmp_path / "stderr").read_text()
    assert (proc.returncode, stderr.splitlines()[-1:]) == (code, [f"humanjudge: {message}"])
    assert "Traceback" not in stderr and stdout == b""
    assert out.read_bytes() == b"old content\n"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])  # SIGINT already raised KeyboardInterrupt
def test_a_library_write_stopped_by_a_signal_leaves_nothing(name: str, tmp_path: Path) -> None:
    signum = getattr(signal, name)
    out = tmp_path / "out.bin"
    out.write_bytes(b"old")
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_WRITER, str(out)], stderr=subprocess.PIPE, cwd=tmp_path)
    _wait_for_tmp(tmp_path, proc, 50_000)
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode != 0
    assert stderr.decode().rstrip().splitlines()[-1].startswith("humanjudge_schema.writing.Interrupted")
    assert out.read_bytes() == b"old" and _leftovers(tmp_path) == []


def test_the_handlers_are_restored(tmp_path: Path) -> None:
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    with open_atomic(tmp_path / "x") as f:
        assert signal.getsignal(signal.SIGTERM) is writing._raise_interrupted
        f.write(b"x")
    assert {s: signal.getsignal(s) for s in before} == before


# --- standard output that cannot be written -------------------------------------------------------

EXAMPLE = ROOT / "examples" / "textjudge" / "valid"
COMMANDS = {
    "validate": ["validate", str(EXAMPLE)],
    "stats": ["stats", str(EXAMPLE)],
    "export": ["export", str(EXAMPLE)],
    "render": ["render", str(EXAMPLE / "dataset.json")],
}


def _command(name: str, stdout: Any, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *COMMANDS[name]],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        **kwargs,
    )


def _one_line(stderr: str) -> str:
    assert "Traceback" not in stderr and "Exception ignored" not in stderr and "internal error" not in stderr
    return stderr.splitlines()[-1]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_full_disk_on_standard_output_is_one_line(name: str) -> None:
    with open("/dev/full", "wb") as full:
        proc = _command(name, full)
    assert proc.returncode == 2
    assert _one_line(proc.stderr) == "humanjudge: cannot write to standard output: No space left on device"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_closed_standard_output_is_not_success(name: str) -> None:
    proc = _command(name, None, preexec_fn=lambda: os.close(1))  # `humanjudge ... >&-`
    assert proc.returncode == 2
    assert _one_line(proc.stderr) == "humanjudge: cannot write to standard output: Bad file descriptor"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_reader_that_goes_away_ends_the_command_quietly(name: str) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "humanjudge_schema", *COMMANDS[name]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    proc.stdout.close()  # `| head -0`: nobody reads what it writes
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 141  # 128 + SIGPIPE, what a shell reports for Unix tools
    assert b"Traceback" not in stderr and b"Exception ignored" not in stderr and b"Broken pipe" not in stderr
