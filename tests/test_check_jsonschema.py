"""The shipped schemas work unchanged with check-jsonschema, offline, and give the same verdict as
the schema stage of `humanjudge validate --select schema` on every schema-level fixture.

What check-jsonschema can check: JSON documents (CogGym config.json and the two human-data
files, TextJudge datasets). JSON Lines (trial.jsonl, instruction.jsonl) and gzipped JSON Lines
(study1_*.jsonl.gz) it cannot read, but each record is a JSON document: here every record is
written to a file of its own and checked, which is what a user of check-jsonschema would have to
do. CSV (HALIE) it cannot check at all: a cell is a string until it is coerced by the type its
property declares, which is humanjudge's reader's job; the HALIE schemas are still checked
against their metaschema here. Duplicate keys, NaN and blank lines are parse findings, not
schema findings, and check-jsonschema does not report them.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from humanjudge_schema import catalog, schemas
from humanjudge_schema.readers.jsonfile import BROKEN, parse, parse_jsonl

from .conftest import CASES

CHECK_JSONSCHEMA = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
pytestmark = pytest.mark.skipif(not Path(CHECK_JSONSCHEMA).exists(), reason="check-jsonschema is not installed")

# Any attempt to download something fails: the schemas must be usable offline.
OFFLINE = {
    **os.environ,
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
    "NO_PROXY": "",
    "no_proxy": "",
}

# Every file of fixed name whose schema is known from its name, from the catalog: JSON, JSON Lines
# and gzip JSON Lines (check-jsonschema reads no CSV, so HALIE is left out).
# A declared format's record schemas are held in memory, and a declaration is TOML: neither is
# a file check-jsonschema reads.
SHIPPED = {
    name: fmt
    for name, fmt in catalog.formats().items()
    if not fmt.schemas and fmt.declared_by is None and (fmt.one_file is None or fmt.one_file.suffix == ".json")
}
BY_NAME = {
    f.name: f.schema
    for fmt in SHIPPED.values()  # the formats whose schemas ship with humanjudge-schema
    for f in fmt.files
    if "*" not in f.schema and f.name.endswith((".json", ".jsonl", ".jsonl.gz"))
}
FAMILIES = tuple(
    name for name, fmt in SHIPPED.items() if fmt.one_file is not None or any(f.name in BY_NAME for f in fmt.files)
)


def check_jsonschema(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CHECK_JSONSCHEMA, *args], capture_output=True, text=True, env=OFFLINE, timeout=600, check=False
    )


def test_every_schema_passes_its_metaschema_in_check_jsonschema() -> None:
    paths = [str(schemas.schema_path(n)) for n in schemas.available()]
    proc = check_jsonschema("--check-metaschema", *paths)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _cases(family: str) -> list[Path]:
    valid = sorted(p for p in (CASES / family / "valid").glob("*") if p.is_dir())
    invalid = sorted(p for p in (CASES / family / "invalid").glob("schema-*") if p.is_dir())
    return valid + invalid


def _schema_of(family: str, path: Path) -> str | None:
    if family == "textjudge":
        return "textjudge/v1/dataset" if path.suffix == ".json" and path.name != "expected.json" else None
    return BY_NAME.get(path.name)


Key = tuple[str, int | None]  # (file relative to the family folder, record index or None)


def _instances(family: str, out: Path) -> tuple[dict[str, list[tuple[Key, Path]]], int]:
    """Write every document (or record) of the fixtures to its own JSON file, grouped by schema."""
    groups: dict[str, list[tuple[Key, Path]]] = defaultdict(list)
    count = 0
    for case in _cases(family):
        for path in sorted(case.iterdir()):
            name = _schema_of(family, path)
            if name is None:
                continue
            rel = path.relative_to(CASES / family).as_posix()
            raw = path.read_bytes()
            if path.suffix == ".gz":
                raw = gzip.decompress(raw)
            if ".jsonl" in path.name:
                doc, _ = parse_jsonl(path, raw)
                for i, (record, (start, end)) in enumerate(zip(doc.records, doc.spans, strict=True)):
                    if record is BROKEN:
                        continue
                    target = out / f"{count}.json"
                    target.write_bytes(raw[start:end])
                    groups[name].append(((rel, i), target))
                    count += 1
            else:
                data, _ = parse(raw)
                if data is BROKEN:
                    continue
                groups[name].append(((rel, None), path))
                count += 1
    return groups, count


def _their_verdicts(groups: dict[str, list[tuple[Key, Path]]]) -> dict[Key, bool]:
    verdicts: dict[Key, bool] = {}
    for name, items in groups.items():
        proc = check_jsonschema(
            "-o", "json", "--schemafile", str(schemas.schema_path(name)), *(str(p) for _, p in items)
        )
        assert proc.returncode in (0, 1), proc.stdout + proc.stderr
        report = json.loads(proc.stdout)
        assert report["parse_errors"] == [], report["parse_errors"]
        failed = {e["filename"] for e in report["errors"]}
        for key, path in items:
            verdicts[key] = str(path) in failed
    return verdicts


def _our_verdicts(family: str, keys: list[Key]) -> dict[Key, bool]:
    cases = [str(c.relative_to(CASES / family)) for c in _cases(family)]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "humanjudge_schema",
            "validate",
            "--select=schema",
            "--format=json",
            f"--kind={family}",
            *cases,
        ],
        cwd=CASES / family,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    failing: set[Key] = set()
    for f in json.loads(proc.stdout)["findings"]:
        assert f["code"].startswith("schema/"), f
        record = f["pointer"].split("/")[1] if ".jsonl" in f["file"] else None
        failing.add((f["file"], None if record is None else int(record)))
    return {key: key in failing for key in keys}


@pytest.mark.parametrize("family", FAMILIES)
def test_check_jsonschema_agrees_with_the_schema_stage(family: str, tmp_path: Path) -> None:
    groups, count = _instances(family, tmp_path)
    if count == 0:
        pytest.skip(f"no schema-level fixtures for {family}")
    theirs = _their_verdicts(groups)
    ours = _our_verdicts(family, list(theirs))
    disagree = {key: (ours[key], theirs[key]) for key in theirs if ours[key] != theirs[key]}
    assert disagree == {}, "(file, record): (humanjudge fails it, check-jsonschema fails it)"
    # the fixtures exercise both verdicts
    assert any(theirs.values()) and not all(theirs.values())


def test_a_schema_prints_for_piping_into_check_jsonschema(tmp_path: Path) -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "schema", "textjudge/v1/dataset"],
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout
    assert printed == schemas.schema_path("textjudge/v1/dataset").read_bytes()
    (tmp_path / "dataset.schema.json").write_bytes(printed)
    where = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "schema", "--path", "textjudge/v1/dataset"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    assert Path(where) == schemas.schema_path("textjudge/v1/dataset")
    bad = CASES / "textjudge" / "invalid" / "schema-id-boolean" / "dataset.json"
    good = CASES / "textjudge" / "valid" / "schema-all-categories" / "dataset.json"
    for schemafile in (where, str(tmp_path / "dataset.schema.json")):
        assert check_jsonschema("--schemafile", schemafile, str(good)).returncode == 0
        assert check_jsonschema("--schemafile", schemafile, str(bad)).returncode == 1
