"""Which JSON files a folder walk takes for TextJudge datasets: those whose top-level object has
one of the format's keys, however the key is written (escapes) and however long the values
before it, and no other (a key of a nested object is not the file's). Each case is run through
`humanjudge validate --skip-unknown` on a folder of its own, and through the format's test on
the whole file's bytes, as code that holds a file in memory calls it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from humanjudge_schema import catalog

REST = {"schema/required": 4}  # dataset_url, expert_annotator, original_prompt, annotations missing
LFS = b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"0" * 64 + b"\nsize 123456\n"
LONG_STRING = json.dumps("x" * 100_000)
# 100 KB of nested arrays and objects, with brackets and escaped quotes inside its strings
LONG_ARRAY = json.dumps([[i, {"a": "]}", "b": ['\\"[{']}] for i in range(4000)])
DEEP = "[" * 10 + "1" + "]" * 10  # deeper than the scan skips in one step, many times over below
TREES = ", ".join([DEEP] * 20_000)
MEMBERS = "".join(f'"k{i}": [{i}, {{"a": "x"}}], ' for i in range(200))


def dataset(before: str, key: str = '"instances"') -> bytes:
    """A dataset with only `dataset` and `key` of its keys, after the members `before`."""
    return ("{" + before + key + ': [], "dataset": "d"}').encode()


# name: (the file's bytes, its findings when it is taken for a dataset; None: it is left out)
CASES: dict[str, tuple[bytes, dict[str, int] | None]] = {
    "escaped-key": (dataset("", '"\\u0069nstances"'), REST),
    "escaped-key-upper-hex": (dataset("", '"i\\u006Es\\u0074ances"'), REST),
    "escaped-key-after-many-members": (dataset(MEMBERS, '"\\u0069nstances"'), REST),
    "long-string-first": (dataset(f'"description": {LONG_STRING}, '), REST),
    "long-array-first": (dataset(f'"extra": {LONG_ARRAY}, '), REST),
    "string-of-many-escapes-first": (dataset('"note": "' + '\\"' * 5000 + '", '), REST),
    "many-members-first": (dataset(MEMBERS), REST),
    "deep-values-first": (dataset(f'"trees": [{TREES}], '), REST),
    "byte-order-mark": (b"\xef\xbb\xbf " + dataset(""), {"parse/bom": 1, **REST}),
    "white-space": (b'\n\t \r\n{\n  "dataset": "d",\n  "instances"\n  :\n  []\n}\n', REST),
    "truncated-after-key": (b'{"instances": [', {"parse/invalid-json": 1}),
    "lfs-pointer": (LFS, {"parse/lfs-pointer": 1}),
    "key-only-nested": (b'{"meta": {"instances": 1}}', None),
    "keys-only-nested-in-a-long-value": (('{"items": [' + '{"annotations": [1]}, ' * 8000 + "1]}").encode(), None),
    "key-after-a-break": (b'{"a": [1}, "instances": []}', None),
    "key-after-deep-values-and-a-break": (dataset(f'"trees": [{TREES}}}, '), None),
    "array-at-top-level": (b'[{"instances": []}]', None),
    "long-first-value-no-key": (('{"description": ' + LONG_STRING + ', "n": 1}').encode(), None),
    "key-names-as-values": (b'{"kind": "instances", "of": ["annotations", "dataset_url"]}', None),
}


def looks_like(data: bytes) -> bool:
    one = catalog.get("textjudge").one_file
    assert one is not None
    return bool(one.looks_like(data))


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_walk_takes_exactly_the_datasets(name: str, tmp_path: Path) -> None:
    data, expected = CASES[name]
    (tmp_path / f"{name}.json").write_bytes(data)
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "validate", "--skip-unknown", "--format", "json", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    if expected is None:
        assert proc.returncode == 0
        assert out["summary"]["files"] == 0 and out["findings"] == []
        assert out["skipped"] == [{"file": f"{name}.json", "reason": "JSON that is not a TextJudge dataset"}]
    else:
        assert proc.returncode == 1
        assert out["summary"]["files"] == 1 and out["skipped"] == []
        assert Counter(f["code"] for f in out["findings"]) == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_test_on_a_whole_file_in_memory(name: str) -> None:
    data, expected = CASES[name]
    if name == "lfs-pointer":  # claimed by the walk itself, whatever the format's test says
        assert not looks_like(data)
        return
    assert looks_like(data) is (expected is not None)


def test_the_start_of_a_file_does_not_tell_until_the_key_is_read() -> None:
    one = catalog.get("textjudge").one_file
    assert one is not None
    data = CASES["long-string-first"][0]
    assert one.looks_like(data[:65536]) is None  # inside the first value: read on
    assert one.looks_like(data[: data.index(b'"instances"') + 13]) is True
    assert one.looks_like(b'{"dataset": "d", "instances_seen": 1') is None
    assert one.looks_like(b'{"dataset": "d", "n": {"instances": 1}}') is False  # the object ends
    assert one.looks_like(b'{"dataset": "d", "n": {"instances": 1}, ') is None
    assert one.looks_like(b'{"dataset": "d", "n": 1}') is None  # no key named at all: not read on
    assert one.looks_like(b'["instances"]') is False


def test_any_key_names_and_their_escapes() -> None:
    from humanjudge_schema.readers.topkeys import has_key

    names = {"a/b", "café", "🙂"}
    assert has_key(b'{"x": 1, "a\\/b": 2}', names) is True
    assert has_key(b'{"x": 1, "caf\\u00E9": 2}', names) is True
    assert has_key('{"x": 1, "café": 2}'.encode(), names) is True
    assert has_key(b'{"x": 1, "\\ud83d\\ude42": 2}', names) is True
    assert has_key(b'{"x": {"a/b": 1}, "\\ud83d\\ude41": 2}', names) is False
