"""A format from another package: installed through the entry-point group, it gets everything a
built-in format gets (detection, --kind, configuration, rules, SARIF metadata, docs, the file
pattern of the hooks and the Action), through the command line, end to end."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from humanjudge_schema import catalog

from .conftest import ROOT

PLUGIN = ROOT / "tests" / "plugin" / "humanjudge_toy"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder on which the plug-in is installed as pip installs a package: its code, and a
    dist-info folder whose entry_points.txt registers its format."""
    site = tmp_path_factory.mktemp("site")
    shutil.copytree(PLUGIN, site / "humanjudge_toy")
    info = site / "humanjudge_toy-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: humanjudge-toy\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[humanjudge_schema.formats]\ntoy = humanjudge_toy:FORMAT\n")
    return site


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "items.json").write_text('{"a": "first item", "b": "second item"}\n')
    (folder / "ratings.jsonl").write_text(
        '{"item": "a", "rating": 4}\n{"item": "b", "rating": 9}\n{"item": "zz", "rating": 2}\n{"item": "a"}\n'
    )
    return folder


def run(site: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in proc.stdout + proc.stderr
    return proc


def test_the_plugin_format_is_listed(site: Path) -> None:
    listed = run(site, "formats").stdout.splitlines()
    toy = next(line for line in listed if line.split()[0] == "toy")
    assert toy.split(None, 1)[1] == "Toy ratings: ratings.jsonl, items.json  (plug-in humanjudge_toy:FORMAT)"
    # the formats every process knows: those declared beside some test's data are this one's alone
    everywhere = [name for name, fmt in catalog.formats().items() if fmt.within is None]
    assert [line.split()[0] for line in listed] == sorted([*everywhere, "toy"])


def test_a_plugin_dataset_is_found_and_checked_like_a_built_in_one(site: Path, dataset: Path) -> None:
    proc = run(site, "validate", "--format", "json", str(dataset.parent), cwd=dataset.parent)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert [(f["code"], f["file"], f["pointer"], f["line"], f["severity"]) for f in doc["findings"]] == [
        ("toy/rating-range", "study/ratings.jsonl", "/1/rating", 2, "error"),
        ("toy/unknown-item", "study/ratings.jsonl", "/2/item", 3, "warning"),
        ("schema/required", "study/ratings.jsonl", "/3", 4, "error"),
    ]
    assert doc["summary"]["files"] == 2


def test_kind_configuration_and_companions_apply_to_the_plugin(site: Path, dataset: Path) -> None:
    assert run(site, "validate", "--kind", "toy", str(dataset / "ratings.jsonl")).returncode == 1
    (dataset / "humanjudge.toml").write_text('[toy]\nmax-rating = 10\n[severity]\n"toy" = "warning"\n')
    doc = json.loads(run(site, "validate", "--format", "json", str(dataset)).stdout)
    assert {f["code"] for f in doc["findings"]} == {"toy/unknown-item", "schema/required"}
    (dataset / "humanjudge.toml").write_text("[toy]\nmax-ratin = 10\n")
    proc = run(site, "validate", str(dataset))
    assert proc.returncode == 2 and "unknown option toy.max-ratin" in proc.stderr
    (dataset / "humanjudge.toml").unlink()
    (dataset / "items.json").unlink()
    doc = json.loads(run(site, "validate", "--format", "json", str(dataset)).stdout)
    missing = [f for f in doc["findings"] if f["code"] == "dataset/missing-companion"]
    assert [m["message"] for m in missing] == ["no items.json in study/: ratings were not matched with items"]


def test_the_plugin_rules_are_documented_and_in_sarif(site: Path, dataset: Path) -> None:
    assert run(site, "rules", "toy").stdout.splitlines() == [
        "toy/rating-range  error    a rating is at most max-rating",
        "toy/unknown-item  warning  a rating names an item of items.json",
    ]
    assert run(site, "rules", "toy/unknown-itm").stderr.startswith("humanjudge: no rule or family 'toy/unknown-itm'")
    sarif = json.loads(run(site, "validate", "--format", "sarif", str(dataset)).stdout)
    rules = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert {"toy/rating-range", "toy/unknown-item"} <= rules
    schemas = run(site, "schema").stdout
    assert "toy/v1/rating" in schemas and "toy/v1/items" in schemas


def test_the_plugin_files_are_in_the_hook_and_action_pattern_and_the_docs(site: Path) -> None:
    code = (
        "import re, sys; sys.path.insert(0, 'docs'); import gen\n"
        "from humanjudge_schema import catalog, rulebook\n"
        "p = re.compile(catalog.file_pattern())\n"
        "print(bool(p.search('x/ratings.jsonl')), bool(p.search('x/items.json')))\n"
        "page = gen.format_page('toy', ['toy/v1/items', 'toy/v1/rating'], rulebook.load_all())\n"
        "print(page.splitlines()[0]); print('`ratings.jsonl`' in page)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.splitlines() == ["True True", "# Toy ratings", "True"], out.stderr


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            "broken = humanjudge_missing:FORMAT",
            "humanjudge: the format 'broken' (humanjudge_missing:FORMAT) cannot be loaded: "
            "ModuleNotFoundError(\"No module named 'humanjudge_missing'\")",
        ),
        (
            "notaformat = json:dumps",
            "humanjudge: entry point notaformat = 'json:dumps' of group humanjudge_schema.formats is not a Format",
        ),
        (
            "coggym2 = humanjudge_schema.formats.coggym:FORMAT",
            "humanjudge: entry point 'coggym2' declares a format named 'coggym'",
        ),
    ],
)
def test_a_broken_plugin_is_one_line_and_exit_2(tmp_path: Path, entry: str, message: str) -> None:
    info = tmp_path / "bad-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bad\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[humanjudge_schema.formats]\n{entry}\n")
    proc = run(tmp_path, "validate", str(ROOT / "examples" / "coggym" / "valid"))
    assert (proc.returncode, proc.stdout, proc.stderr.splitlines()) == (2, "", [message])


def test_the_plugin_aggregates_and_brings_its_own_command(site: Path, dataset: Path) -> None:
    assert "toy-count" in run(site, "--help").stdout
    assert run(site, "toy-count", str(dataset)).stdout == "4 ratings\n"
    assert run(site, "aggregate", "--check", str(dataset)).returncode == 1  # no means.json yet
    done = run(site, "aggregate", str(dataset))
    assert done.returncode == 0 and done.stdout == "wrote the means of 3 items to means.json\n"
    assert json.loads((dataset / "means.json").read_text()) == {"a": 4.0, "b": 9.0, "zz": 2.0}
    assert run(site, "aggregate", "--check", str(dataset)).stdout == "means.json is up to date\n"
    refused = run(site, "aggregate", "--force", str(dataset))
    said = "--force is for CogGym experiments and TextJudge dataset files, not toy ratings folders"
    assert refused.returncode == 2 and said in refused.stderr


def test_entry_points_are_read_as_importlib_metadata_reads_them(site: Path) -> None:
    """The catalog reads entry_points.txt itself (importlib.metadata is slow to import): with the
    plug-in on the path, and a second copy of it later on the path that must lose, it finds what
    importlib.metadata finds."""
    code = (
        "import json, sys; from importlib.metadata import entry_points; from humanjudge_schema import catalog; "
        "g = catalog.GROUP; print(json.dumps([sorted(catalog.entry_points(g)), "
        "sorted([p.name, p.value] for p in entry_points(group=g))]))"
    )
    shadow = site.parent / "shadow"
    info = shadow / "humanjudge_toy-0.2.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "entry_points.txt").write_text("[humanjudge_schema.formats]\ntoy = elsewhere:FORMAT\n")
    path = os.pathsep.join([str(site), str(shadow), os.environ.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": path}, capture_output=True, text=True, check=True
    ).stdout
    ours, theirs = json.loads(out)
    installed = [f for f in catalog.formats().values() if f.declared_by is None]  # declared ones are data
    assert ours == theirs and ["toy", "humanjudge_toy:FORMAT"] in ours and len(ours) == len(installed) + 1


def test_a_format_without_judgments_is_said_so_never_an_empty_table(site: Path, dataset: Path) -> None:
    plain, checked = run(site, "validate", str(dataset)), run(site, "validate", "--quality", str(dataset))
    assert (checked.returncode, checked.stdout) == (plain.returncode, plain.stdout) and "toy/" in plain.stdout
    assert checked.stderr.endswith("study: the toy format declares no judgments: no quality checks\n")
    assert "no quality checks" not in plain.stderr  # not asked for: nothing to say
    for command in (["export"], ["stats"]):
        proc = run(site, *command, str(dataset))
        assert proc.returncode == 2, command
        assert "the toy format declares no judgments" in proc.stderr
        assert "none of these datasets is of a format that declares its judgments" in proc.stderr
        assert "format,dataset" not in proc.stdout and "question" not in proc.stdout


def test_a_plugin_format_with_judgments_gets_export_and_stats(tmp_path: Path, dataset: Path) -> None:
    """Declared with `judgments=`, the toy format's ratings are exported and counted like a
    built-in format's (the view is tests/plugin/humanjudge_toy/judgments.py, docs/plugins.md)."""
    site = tmp_path / "site"
    shutil.copytree(PLUGIN, site / "humanjudge_toy")
    info = site / "humanjudge_toy-0.1.dist-info"
    info.mkdir()
    (info / "entry_points.txt").write_text("[humanjudge_schema.formats]\ntoy = humanjudge_toy:WITH_JUDGMENTS\n")
    exported = run(site, "export", str(dataset))
    assert exported.returncode == 1  # item zz is unknown, a line lacks its rating: validate's findings
    rows = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert [(r["item"], r["value"], r["pointer"], r["line"]) for r in rows] == [
        ("a", "4", "/0/rating", "1"),
        ("b", "9", "/1/rating", "2"),
        ("zz", "2", "/2/rating", "3"),
    ]
    stats = json.loads(run(site, "stats", str(dataset), "--format", "json").stdout)["datasets"]
    (question,) = stats[0]["questions"]
    assert (question["question"], question["level"], question["items"], question["judgments"]) == (
        "rating",
        "interval",
        3,
        3,
    )
    assert question["alpha"] is None  # one rating per item: no agreement to measure
    checked = run(site, "validate", "--quality", str(dataset))
    assert "declares no judgments" not in checked.stderr


def test_the_documented_view_is_the_toy_formats() -> None:
    code = (PLUGIN / "judgments.py").read_text(encoding="utf-8")
    view = code[code.index("def judgments(") :].strip()
    assert view in (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
