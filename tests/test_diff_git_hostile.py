"""`humanjudge diff --git` on a commit made to harm: hand-made trees (a link and a folder under one
name, links that lead out through other links), blobs that are large or many, and a stop in the
middle. The old version is written into a temporary folder of its own and nothing else: nothing
outside it is written or read, its size is bounded, and it is removed however the diff ends."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema.diff import git
from humanjudge_schema.diff.git import GitError, export

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_CONFIG_NOSYSTEM": "1",
}

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="links and signals of POSIX")


@dataclass(frozen=True)
class Link:
    text: str


Entries = list[tuple[str, Any]]  # (name, bytes | Link | Entries); a name may come twice


def _git(repo: Path, *args: str, data: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=repo, input=data, check=True, capture_output=True, env=ENV)
    return done.stdout.decode().strip()


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    return repo


def _commit(repo: Path, entries: Entries) -> str:
    """A commit of the tree the entries describe, built by hand (git mktree takes what git
    add never makes: a link and a folder under one name)."""
    blobs: dict[bytes, str] = {}

    def blob(data: bytes) -> str:
        if data not in blobs:
            blobs[data] = _git(repo, "hash-object", "-w", "--stdin", data=data)
        return blobs[data]

    def tree(entries: Entries) -> str:
        lines = []
        for name, value in entries:
            if isinstance(value, list):
                lines.append(f"040000 tree {tree(value)}\t{name}")
            elif isinstance(value, Link):
                lines.append(f"120000 blob {blob(value.text.encode())}\t{name}")
            else:
                lines.append(f"100644 blob {blob(value)}\t{name}")
        return _git(repo, "mktree", data="".join(line + "\n" for line in lines).encode())

    return _git(repo, "commit-tree", tree(entries), "-m", "hand-made")


def _humanjudge(repo: Path, temp: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    temp.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *args],
        cwd=repo,
        env={**ENV, "TMPDIR": str(temp), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _left(temp: Path) -> list[Path]:
    return sorted(temp.glob("humanjudge-diff-*"))


def _dataset(ids: list[str]) -> bytes:
    doc = json.loads((EXAMPLES / "textjudge/valid/dataset.json").read_text())
    base = doc["instances"][0]
    doc["instances"] = [
        {"id": i, "instance": base["instance"], "annotations": {"fluency": {"individual_human_scores": [4, 5]}}}
        for i in ids
    ]
    doc["annotations"] = [a for a in doc["annotations"] if a["metric"] == "fluency"]
    return json.dumps(doc).encode()


def _all_inside(into: Path) -> None:
    """Every link under `into` leads inside it."""
    for folder, dirs, names in os.walk(into):
        for name in (*dirs, *names):
            path = Path(folder, name)
            if path.is_symlink():
                assert path.resolve().is_relative_to(into.resolve()), path


def test_a_link_through_a_link_writes_nothing_outside(tmp_path: Path) -> None:
    # L -> ../.. is the top of the folder; M -> L/a/b/../../../../.. counts as inside, letter by
    # letter, and is three folders above it: the folder M of the same tree would be written there
    repo = _repo(tmp_path)
    home = tmp_path / "home"
    planted: Entries = [("home", [(".gitconfig", b"[core]\n\tpager = touch pwned\n")]), ("planted.json", b"{}")]
    sha = _commit(repo, [("a", [("b", [("L", Link("../..")), ("M", Link("L/a/b/" + "../" * 5)), ("M", planted)])])])
    done = _humanjudge(repo, tmp_path / "t", "diff", "--git", sha, HOME=str(home))
    assert not (home / ".gitconfig").exists()
    assert not (tmp_path / "planted.json").exists()
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert not _left(tmp_path / "t")


def test_a_name_listed_twice_is_refused(tmp_path: Path) -> None:
    # z.json is a link to the top of the folder and a folder; w.json in it, a link and a folder
    # too, counts as four folders deep but stands at the top: its ../../.. leads three above it
    repo = _repo(tmp_path)
    inner: Entries = [("w.json", Link("../../..")), ("w.json", [("planted.json", b"{}")])]
    sha = _commit(repo, [("a", [("b", [("c", [("z.json", Link("../../..")), ("z.json", inner)])])])])
    into = tmp_path / "t/u/into"
    with pytest.raises(GitError, match="twice"):
        export(repo, sha, ["."], into)
    assert not (tmp_path / "planted.json").exists()
    assert not into.exists()  # refused before anything is written


def test_a_link_cannot_read_a_file_outside_into_the_examples(tmp_path: Path) -> None:
    secret = tmp_path / "secret/dataset.json"
    secret.parent.mkdir()
    secret.write_bytes(_dataset(["SECRET-1", "SECRET-2"]))
    repo = _repo(tmp_path)
    through = "L/a/b/" + "../" * 5 + "secret/dataset.json"  # inside, letter by letter
    links: Entries = [("L", Link("../..")), ("x.json", Link(through)), ("y.json", Link(str(secret)))]
    sha = _commit(repo, [("a", [("b", links)])])
    (repo / "a/b").mkdir(parents=True)
    for name in ("x.json", "y.json"):
        (repo / "a/b" / name).write_bytes(_dataset(["i0", "i1"]))
    done = _humanjudge(repo, tmp_path / "t", "diff", "--git", sha, "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    assert "SECRET" not in done.stdout + done.stderr
    assert not _left(tmp_path / "t")


def _sizes(into: Path) -> dict[str, int]:
    """The regular files under `into`, with their sizes."""
    out = {}
    for folder, _, names in os.walk(into):
        for name in names:
            path = Path(folder, name)
            if not path.is_symlink():
                out[path.relative_to(into).as_posix()] = path.stat().st_size
    return out


def test_only_what_the_diff_reads_is_written(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    dataset, config = _dataset(["i0"]), b"[tool.humanjudge]\nmax-per-code = 7\n"
    large = bytes(1 << 20)
    sha = _commit(
        repo,
        [
            ("big", [(f"copy{i}.bin", large) for i in range(20)]),
            ("data", [("dataset.json", dataset), ("notes.bin", large), ("view.svg", Link("../big/copy0.bin"))]),
            ("pyproject.toml", config),
            ("src", [("tool.py", large)]),
        ],
    )
    into = tmp_path / "out"
    export(repo, sha, ["."], into)
    # the dataset file with its bytes, the configuration on the way to it, the names of what its
    # folder holds beside it; nothing of the rest but the folders beside its folder
    assert _sizes(into) == {"data/dataset.json": len(dataset), "pyproject.toml": len(config), "data/notes.bin": 0}
    assert sorted(p.name for p in into.iterdir()) == ["big", "data", "pyproject.toml", "src"]
    assert not any((into / "big").iterdir()) and not any((into / "src").iterdir())
    assert (into / "data/view.svg").is_symlink() and not (into / "data/view.svg").exists()  # leads to nothing written
    _all_inside(into)


def test_a_version_beyond_the_bounds_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo(tmp_path)
    sha = _commit(repo, [("data", [(f"copy{i}.json", bytes(1000)) for i in range(40)])])
    monkeypatch.setattr(git, "MAX_TOTAL", 10_000)
    with pytest.raises(GitError, match="more than 10,000 bytes"):
        export(repo, sha, ["."], tmp_path / "a")
    monkeypatch.setattr(git, "MAX_TOTAL", 1 << 30)
    monkeypatch.setattr(git, "MAX_FILES", 30)
    with pytest.raises(GitError, match="more than 30 files"):
        export(repo, sha, ["."], tmp_path / "b")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_a_blob_over_the_bound_among_thousands_is_refused_at_once(tmp_path: Path) -> None:
    # git's output fills the pipe while the names of thousands of blobs wait to be written to it
    repo = _repo(tmp_path)
    sha = _commit(repo, [("a.json", bytes(2000)), ("b", [(f"o{i}.json", b"{}") for i in range(5000)])])
    script = (
        "import sys\nimport humanjudge_schema.diff.git as g\ng.MAX_BLOB = 1000\n"
        "from humanjudge_schema.commands import main\nmain(['diff', '--git', sys.argv[1]])\n"
    )
    temp = tmp_path / "t"
    temp.mkdir()
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", script, sha],
        cwd=repo,
        env={**ENV, "TMPDIR": str(temp)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "a.json is 2,000 bytes" in done.stderr and "Traceback" not in done.stderr
    assert time.monotonic() - start < 30
    assert not _left(temp)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_during_the_export_leaves_no_folder(tmp_path: Path, signum: int) -> None:
    repo = _repo(tmp_path)
    sha = _commit(repo, [("d", [(f"f{i:05}.json", b"{}") for i in range(40_000)])])
    temp = tmp_path / "t"
    temp.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "humanjudge_schema", "diff", "--git", sha],
        cwd=repo,
        env={**ENV, "TMPDIR": str(temp)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if any(len(os.listdir(d)) > 200 for d in temp.glob("humanjudge-diff-*/*/d")):
                break  # files are being written
            time.sleep(0.005)
        assert proc.poll() is None, "the export ended before it could be stopped"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signum, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert not _left(temp)


def test_what_a_dataset_folder_holds_is_judged_alike(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    shutil.copytree(EXAMPLES / "coggym/valid", repo / "exp1")
    (repo / "exp1/analysis.py").write_text("print('means')\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "one")
    ind = json.loads((repo / "exp1/human_data_ind.json").read_text())
    ind["trial_1"]["goal_confidence"][0] = 70
    (repo / "exp1/human_data_ind.json").write_text(json.dumps(ind))
    done = _humanjudge(repo, tmp_path / "t", "diff", "--git", "HEAD", "--format", "json", "--samples", "5")
    assert done.returncode == 0, done.stderr
    (found,) = json.loads(done.stdout)["datasets"]
    assert found["status"] == "changed"
    # the names of the files beside the dataset's, and of its media in assets/, are in the old
    # version: what is said of them (or of their absence) is neither introduced nor fixed
    said = {f["code"] for f in found["findings_new"] + found["findings_fixed"]}
    assert said == {"coggym/mean-value"}, said
    assert not _left(tmp_path / "t")
