"""Small helpers several test modules share."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from humanjudge_schema.finding import Finding

SENTENCE = "Bees share food locations with a waggle dance [0, 3]. "


def log_line(k: int, text: str) -> bytes:
    """Snapshot k of a study-1 writing log: one response, 300 ms after the snapshot before."""
    record = {
        "response": "41099caa-0d8a-5c07-ae18-b41a8567db38",
        "topic": "2024-10001",
        "style": "essay",
        "timestamp": 1728671105500 + 300 * k,
        "text": text,
    }
    return orjson.dumps(record) + b"\n"


def writing_log(snapshots: int) -> bytes:
    """study1_responses_human.jsonl.gz, decompressed: one response written in `snapshots` steps from an empty text."""
    return b"".join(log_line(k, SENTENCE * (k % 5)) for k in range(snapshots))


def majority_only(folder: Path) -> Path:
    """A TextJudge dataset of three instances holding only their majority label (every
    individual_human_scores empty), as a published safety benchmark is: `folder/safety.json`."""
    data = tiny_dataset("Is it safe? {{ instance }}")
    data["instances"] *= 3
    for k, instance in enumerate(data["instances"]):
        instance = data["instances"][k] = json.loads(json.dumps(instance))
        instance["id"] = k
        instance["annotations"]["ok"]["individual_human_scores"] = []
    path = folder / "safety.json"
    path.write_text(json.dumps(data))
    return path


def tiny_dataset(prompt: str, instance: Any = "The cat sat on the mat.") -> dict[str, Any]:
    """A valid one-instance TextJudge dataset whose only metric uses this prompt template."""
    return {
        "dataset": "Example (Doe et al., 2024)",
        "dataset_url": "https://example.org",
        "expert_annotator": "false",
        "original_prompt": False,
        "annotations": [{"metric": "ok", "category": "categorical", "prompt": prompt, "labels_list": ["yes", "no"]}],
        "instances": [
            {
                "id": 1,
                "instance": instance,
                "annotations": {"ok": {"majority_human": "yes", "individual_human_scores": ["yes"]}},
            }
        ],
    }


def counts_in(findings: Sequence[Finding], file: str) -> Counter[tuple[str, str]]:
    """(code, severity) -> how many findings of one file."""
    return Counter((f.code, f.severity.value) for f in findings if f.file == file)


def assert_found(findings: Sequence[Finding], file: str, ptr: str, line: int, column: int, words: str) -> None:
    """Exactly one finding at this pointer of this file, at this position, saying these words."""
    [found] = [f for f in findings if f.file == file and f.pointer == ptr]
    assert (found.line, found.column) == (line, column)
    assert words in found.message


Expected = dict[str, dict[tuple[str, str], int]]
Spots = list[tuple[str, str, int, int, str]]


def conformance_tests(expected: Expected, spots: Spots) -> tuple[Callable[..., None], ...]:
    """The tests of a corpus module whose `findings` fixture validates a real folder: each file's
    counts by (code, severity) are `expected[file]`, no other file has findings, and each
    (file, pointer, line, column, words) of `spots` is found there."""

    @pytest.mark.parametrize("file", sorted(expected))
    def test_findings_of_a_real_file(findings: list[Finding], file: str) -> None:
        assert counts_in(findings, file) == Counter(expected[file])

    def test_every_finding_is_in_a_known_file(findings: list[Finding]) -> None:
        assert {f.file for f in findings} <= set(expected)

    @pytest.mark.parametrize(("file", "ptr", "line", "column", "words"), spots, ids=[p for _, p, *_ in spots])
    def test_positions_and_messages(
        findings: list[Finding], file: str, ptr: str, line: int, column: int, words: str
    ) -> None:
        assert_found(findings, file, ptr, line, column, words)

    return test_findings_of_a_real_file, test_every_finding_is_in_a_known_file, test_positions_and_messages


# --- a command measured in a child process ----------------------------------------------------

# The command runs under a small probe process: a child's ru_maxrss starts from the resident size
# of the process that forked it, so forking it from pytest would add pytest's memory to every
# measurement. The probe adds about 10 MB, the same for every case.
PROBE = """
import json, os, resource, subprocess, sys, time
limit, timeout, out, err = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
with open(out, "wb") as o, open(err, "wb") as e:
    started = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "humanjudge_schema", *sys.argv[5:]], stdin=subprocess.DEVNULL,
                         stdout=o, stderr=e, preexec_fn=cap)
    killed = False
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - started > timeout:
            p.kill()
            killed = True
            pid, status, usage = os.wait4(p.pid, 0)
            break
        time.sleep(0.002)
    seconds = time.perf_counter() - started
rss = usage.ru_maxrss / (1 << 20 if sys.platform == "darwin" else 1 << 10)  # bytes on macOS, KiB elsewhere
print(json.dumps({"rc": os.waitstatus_to_exitcode(status), "seconds": seconds, "rss_mb": rss, "killed": killed}))
"""


@dataclass
class Measured:
    """A command's run in a capped child: its exit code, output, wall time and own peak memory."""

    rc: int
    out: str
    err: str
    seconds: float
    rss_mb: float


def measured(args: Sequence[str], *, cwd: Path, limit: int, timeout: float) -> Measured:
    """`python -m humanjudge_schema ARGS` in `cwd` with its address space capped at `limit`
    bytes, measured by the probe."""
    out, err = cwd / ".hj-stdout", cwd / ".hj-stderr"
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, str(limit), str(timeout), str(out), str(err), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout + 30,
    )
    taken: dict[str, Any] = json.loads(probe.stdout)
    assert not taken["killed"], f"killed after {timeout} s"
    run = Measured(
        taken["rc"], out.read_text(encoding="utf-8"), err.read_text(encoding="utf-8"), taken["seconds"], taken["rss_mb"]
    )
    out.unlink()
    err.unlink()
    return run


def study1_folder(path: Path, tasks: Sequence[tuple[str, str, float | None]]) -> Path:
    """A study-1 folder whose tasks file holds these (topic, worker, rating of every question)
    tasks, in this order (None: every rating null)."""
    import gzip

    from humanjudge_schema.formats.study1.judgments import RATINGS

    lines = [
        json.dumps({"response": f"r{k}", "worker": w, "topic": t, "style": "essay"} | dict.fromkeys(RATINGS, v))
        for k, (t, w, v) in enumerate(tasks)
    ]
    path.mkdir()
    (path / "study1_tasks.jsonl.gz").write_bytes(gzip.compress("\n".join(lines).encode() + b"\n"))
    return path


def resample(pairable: Any, rng: random.Random) -> list[int]:
    """How many items of each profile one resample of a question's pairable items (`agreement`'s
    `_pairable`) holds, its items drawn one by one with `rng.choices`: to check a sample's alpha
    against the alpha of the items drawn."""
    population = pairable.items.tolist()
    drawn = Counter(rng.choices(population, k=len(population)))
    return [drawn[p] for p in range(len(pairable.weights))]


def profile_counts(pairable: Any, profile: int) -> list[tuple[Any, int]]:
    """The values of an item of a profile of a question's pairable items, each with its count."""
    ends = [*pairable.starts[1:].tolist(), len(pairable.count)]
    a, b = int(pairable.starts[profile]), ends[profile]
    places, counts = pairable.value[a:b].tolist(), pairable.count[a:b].astype(int).tolist()
    return [(pairable.values[i], n) for i, n in zip(places, counts, strict=True)]
