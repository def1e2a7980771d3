"""A declaration is data, and in a pull request hostile data: the record schema it names is read
only from beside it (never through a link out, never a pipe or a device), and a
declaration that is a pipe or a device is refused unread. A declaration beside a dataset of a
built-in format adds a check to the built-in one and takes none away."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from humanjudge_schema import validate

from . import test_action
from .conftest import ROOT

EXAMPLES = ROOT / "examples"

DECLARATION = """declaration = 1
name = "hostile-{n}"

[files.r]
name = "r.csv"
type = "csv"
schema = "{schema}"

[[judgments]]
file = "r"
item = "item"
rater = "rater"
question = "q"
value = "label"
"""
SCHEMA = '{"type": "object", "properties": {"item": {}, "rater": {}, "label": {}}}'


def _folder(tmp_path: Path, schema: str, n: int = 0) -> Path:
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    (data / "r.csv").write_text("item,rater,label\na,r1,1\n")
    (data / "humanjudge-format.toml").write_text(DECLARATION.format(schema=schema, n=n))
    return data


@pytest.mark.parametrize(
    ("schema", "said"),
    [
        ("../outside.json", "a file beside humanjudge-format.toml"),
        ("{outside}", "a file beside humanjudge-format.toml"),
        ("link.json", "a file beside humanjudge-format.toml"),
        ("fifo.json", "named pipe"),
        ("/dev/zero", "a file beside humanjudge-format.toml"),
    ],
)
def test_a_record_schema_outside_the_folder_or_not_a_file_is_not_read(tmp_path: Path, schema: str, said: str) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(SCHEMA)
    data = _folder(tmp_path, schema.format(outside=outside))
    (data / "link.json").symlink_to(outside)
    os.mkfifo(data / "fifo.json")
    found = [f for f in validate([data]).findings if f.code == "declared/record-schema"]
    assert [f.pointer for f in found] == ["/files/r/schema"] and said in found[0].message


def test_a_record_schema_beside_the_declaration_is_read_and_part_of_the_dataset(tmp_path: Path) -> None:
    data = _folder(tmp_path, "r.schema.json")
    (data / "r.schema.json").write_text(SCHEMA)
    assert validate([data]).findings == []
    (data / "schemas").mkdir()
    (data / "r.schema.json").rename(data / "schemas" / "r.json")
    (data / "humanjudge-format.toml").write_text(DECLARATION.format(schema="schemas/r.json", n=1))
    found = [(f.code, f.pointer) for f in validate([data]).findings if f.code.startswith("declared/")]
    assert found == [("declared/record-schema", "/files/r/schema")]


@pytest.mark.parametrize("what", ["fifo", "device"])
def test_a_declaration_that_is_a_pipe_or_a_device_is_refused_unread(tmp_path: Path, what: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "r.csv").write_text("item,rater,label\na,r1,1\n")
    if what == "fifo":
        os.mkfifo(data / "humanjudge-format.toml")
    else:
        (data / "humanjudge-format.toml").symlink_to("/dev/zero")
    result = validate([data / "humanjudge-format.toml"], kind="declared")
    assert [f.code for f in result.findings] == ["declared/invalid-toml"]
    assert "not a regular file" in result.findings[0].message


@pytest.mark.parametrize("ref", ["https://example.com/r.json", "file:///etc/hostname"])
def test_a_record_schema_may_not_refer_out(tmp_path: Path, ref: str) -> None:
    data = _folder(tmp_path, "r.schema.json")
    (data / "r.schema.json").write_text(f'{{"$ref": "{ref}"}}')
    found = [f for f in validate([data]).findings if f.code == "declared/record-schema"]
    assert [f.pointer for f in found] == ["/files/r"] and "refused to fetch" in found[0].message


PERMISSIVE = """declaration = 1
name = "permissive"

[files.ind]
name = "human_data_ind.json"
type = "json"
records = "/*"
record = {}

[[judgments]]
file = "ind"
item = "@1"
rater = "@1"
question = "q"
value = "@1"
"""


def test_a_declaration_beside_a_builtin_dataset_adds_a_check_and_takes_none_away(tmp_path: Path) -> None:
    experiment = tmp_path / "exp"
    shutil.copytree(EXAMPLES / "coggym" / "broken", experiment)
    alone = validate([experiment])
    (experiment / "humanjudge-format.toml").write_text(PERMISSIVE)
    both = validate([experiment])
    builtin = sorted((f.code, f.file, f.pointer) for f in alone.findings)
    assert sorted((f.code, f.file, f.pointer) for f in both.findings if not f.code.startswith("declared/")) == builtin
    assert both.files == alone.files + 1  # the declaration; human_data_ind.json counted once
    rows = [(f.code, f.file, f.pointer, f.message) for f in both.findings]
    assert len(rows) == len(set(rows))  # the duplicate key both checks find is said once


STRICT = """declaration = 1
name = "{name}"

[files.ratings]
name = "ratings.csv"
type = "csv"

[files.ratings.record]
type = "object"
required = ["item", "rater", "label"]
properties.item = {{ type = "string" }}
properties.rater = {{ type = "string" }}
properties.label = {{ type = "integer"{maximum} }}

[[judgments]]
file = "ratings"
item = "item"
rater = "rater"
question = "label"
value = "label"
"""


def _configured(root: Path, name: str = "strict-ratings") -> Path:
    (root / "strict.toml").write_text(STRICT.format(name=name, maximum=", maximum = 1"))
    (root / "humanjudge.toml").write_text('formats = ["strict.toml"]\n')
    (root / "data").mkdir()
    (root / "data" / "ratings.csv").write_text("item,rater,label\na,r1,1\na,r2,5\n")
    return root / "data"


def test_a_nearer_declaration_of_a_name_does_not_replace_the_farther_one(tmp_path: Path) -> None:
    data = _configured(tmp_path)
    (data / "humanjudge-format.toml").write_text(STRICT.format(name="strict-ratings", maximum=""))
    found = sorted((f.code, f.file.rsplit("/", 1)[-1], f.pointer) for f in validate([data], cwd=str(tmp_path)).findings)
    assert found == [
        ("declared/name-taken", "humanjudge-format.toml", "/name"),
        ("schema/maximum", "ratings.csv", "/1/label"),
    ]


def test_a_declaration_beside_the_data_may_not_take_a_shipped_name(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "ratings.csv").write_text("item,rater,label\na,r1,1\n")
    (data / "humanjudge-format.toml").write_text(STRICT.format(name="mqm-ted-ende", maximum=""))
    found = [f for f in validate([data]).findings if f.code == "declared/name-taken"]
    assert [f.pointer for f in found] == ["/name"] and "shipped with humanjudge-schema" in found[0].message


def _pull_request(tmp_path: Path) -> tuple[test_action.Runner, str, Path]:
    """A repository whose configuration declares `strict-ratings` (label at most 1), a valid
    CSV committed as the base, and the pull request's CSV with a 5 (not committed yet): the
    Action's runner, the base commit, the data folder."""
    runner = test_action.runner.__wrapped__(tmp_path)  # type: ignore[attr-defined]
    test_action.git(runner.workspace, "init", "-q")
    data = _configured(runner.workspace)
    (data / "ratings.csv").write_text("item,rater,label\na,r1,1\na,r2,0\n")
    test_action.commit(runner.workspace)
    base = test_action.git(runner.workspace, "rev-parse", "HEAD")
    (data / "ratings.csv").write_text("item,rater,label\na,r1,1\na,r2,5\n")
    return runner, base, data


def test_a_pull_request_cannot_relax_a_declaration_beside_the_data_it_breaks(tmp_path: Path) -> None:
    runner, base, data = _pull_request(tmp_path)
    (data / "humanjudge-format.toml").write_text(STRICT.format(name="strict-ratings", maximum=""))
    test_action.commit(data.parent)
    proc = runner.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 1, proc.stdout + proc.stderr

    assert "title=schema/maximum" in proc.stdout and "title=declared/name-taken" in proc.stdout


def test_a_pull_request_that_breaks_a_configured_declared_csv_is_checked(tmp_path: Path) -> None:
    """The Action sorts the changed files into datasets before any walk: a CSV of a format the
    configuration declares is one of them."""
    runner, base, data = _pull_request(tmp_path)
    test_action.commit(data.parent)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_DIFF="false")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "file=data/ratings.csv,line=3,col=6,title=schema/maximum" in proc.stdout


def test_a_pull_request_that_changes_a_declaration_says_so_first(tmp_path: Path) -> None:
    runner, base, data = _pull_request(tmp_path)
    (data.parent / "strict.toml").write_text(STRICT.format(name="strict-ratings", maximum=", maximum = 9"))
    test_action.commit(data.parent)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_DIFF="false")
    assert (
        "::warning title=humanjudge::this pull request changes the declaration of a format (strict.toml)" in proc.stdout
    )
    summary = runner.summary()
    assert "### This pull request changes how a format is declared" in summary
    assert '+properties.label = { type = "integer", maximum = 9 }' in summary
