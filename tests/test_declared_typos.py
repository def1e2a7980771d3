"""A declaration's typo never passes unseen: a file name or glob that names nothing beside it, a
question no block asks, an aggregates block that finds no stored value. And the stored values
are compared as the rules compare answers: a mean written as text is a number, an ordinal tie is
broken in the order of its scale, not of its texts. The shipped declarations' index is current."""

from __future__ import annotations

import json
from pathlib import Path

from humanjudge_schema import validate
from humanjudge_schema.formats.declared.made import INDEX, index, shipped

HEAD = """declaration = 1
name = "{name}"

[files.ratings]
name = "{file}"
type = "csv"

[files.ratings.record]
type = "object"
required = ["item", "rater", "label"]
properties.item = {{ type = "string" }}
properties.rater = {{ type = "string" }}
properties.label = {{ type = "{kind}" }}
"""
JUDGED = """
[[judgments]]
file = "ratings"
item = "item"
rater = "rater"
question = "label"
value = "label"
"""


def _folder(tmp_path: Path, declaration: str, **files: str) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    (data / "humanjudge-format.toml").write_text(declaration)
    for name, text in files.items():
        (data / name.replace("_", ".")).write_text(text)
    return data


def _found(data: Path) -> list[tuple[str, str, str]]:
    return [(f.code, f.file.rsplit("/", 1)[-1], f.pointer) for f in validate([data]).findings]


def test_a_misspelt_file_name_is_a_missing_file_at_its_name(tmp_path: Path) -> None:
    data = _folder(
        tmp_path,
        HEAD.format(name="typo-file", file="ratngs.csv", kind="integer") + JUDGED,
        ratings_csv="item,rater,label\na,r1,1\n",
    )
    found = validate([data]).findings
    missing = [f for f in found if f.code == "dataset/missing-file"]
    assert [(f.file.rsplit("/", 1)[-1], f.pointer) for f in missing] == [
        ("humanjudge-format.toml", "/files/ratings/name")
    ]
    assert "did you mean 'ratings.csv'?" in missing[0].message
    assert validate([data]).errors >= 1


def test_a_declaration_above_its_datasets_finds_their_files_below(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "part1").mkdir(parents=True)
    (root / "humanjudge-format.toml").write_text(HEAD.format(name="above", file="ratings.csv", kind="integer") + JUDGED)
    (root / "part1" / "ratings.csv").write_text("item,rater,label\na,r1,1\na,r2,1\n")
    assert [f for f in validate([root / "humanjudge-format.toml"]).findings if f.code == "dataset/missing-file"] == []
    (root / "part1" / "ratings.csv").rename(root / "part1" / "other.csv")
    found = [f for f in validate([root / "humanjudge-format.toml"]).findings if f.code == "dataset/missing-file"]
    assert [f.pointer for f in found] == ["/files/ratings/name"] and "or in a folder below it" in found[0].message


def test_a_question_no_block_asks_is_an_unknown_field(tmp_path: Path) -> None:
    scale = '\n[questions.labl]\nlevel = "nominal"\nvalues = [0, 1]\n'
    data = _folder(
        tmp_path,
        HEAD.format(name="typo-question", file="ratings.csv", kind="integer") + scale + JUDGED,
        ratings_csv="item,rater,label\na,r1,1\na,r2,5\n",
    )
    found = validate([data]).findings
    assert [(f.code, f.pointer) for f in found] == [("declared/unknown-field", "/questions/labl")]
    assert "no judgments block asks 'labl'" in found[0].message and "did you mean 'label'?" in found[0].message


AGGREGATE = """
[files.means]
name = "means.csv"
type = "csv"

[files.means.record]
type = "object"
required = ["item"]
properties.item = {{ type = "string" }}
properties.mean = {{ type = "string" }}
properties.top = {{ type = "string" }}

[questions.label]
level = "ordinal"
values = ["low", "mid", "high"]

[[aggregates]]
file = "means"
item = "item"
question = "label"
value = "{column}"
recompute = "{recompute}"
{extra}"""


def _aggregated(
    tmp_path: Path, kind: str, ratings: str, means: str, column: str, recompute: str, extra: str = ""
) -> Path:
    declaration = (
        HEAD.format(name=f"agg-{recompute}", file="ratings.csv", kind=kind)
        + AGGREGATE.format(column=column, recompute=recompute, extra=extra)
        + JUDGED
    )
    if kind != "string":
        declaration = declaration.replace('[questions.label]\nlevel = "ordinal"\nvalues = ["low", "mid", "high"]\n', "")
    return _folder(tmp_path, declaration, ratings_csv=ratings, means_csv=means)


def test_a_mean_stored_as_text_is_compared_as_a_number(tmp_path: Path) -> None:
    ratings = "item,rater,label\na,r1,1\na,r2,2\nb,r1,3\nb,r2,3\nc,r1,1\nc,r2,1\n"
    data = _aggregated(tmp_path, "integer", ratings, 'item,mean\na,"1.5"\nb,3.5\nc,one\n', "mean", "mean")
    found = validate([data]).findings
    assert [(f.code, f.pointer) for f in found] == [("declared/mean", "/1/mean"), ("declared/mean", "/2/mean")]
    assert "the mean of the 2 judgments of label for item 'b' is 3" in found[0].message
    assert "not a number" in found[1].message


def test_an_ordinal_tie_is_broken_in_the_order_of_its_scale(tmp_path: Path) -> None:
    # "high" < "low" < "mid" as texts; on the scale low < mid < high
    ratings = "item,rater,label\na,r1,low\na,r2,high\nb,r1,mid\nb,r2,high\n"
    data = _aggregated(tmp_path, "string", ratings, "item,top\na,low\nb,high\n", "top", "majority", 'tie = "lowest"\n')
    found = validate([data]).findings
    assert [(f.code, f.pointer) for f in found] == [("declared/majority", "/1/top")]
    assert "'mid'" in found[0].message


def test_an_aggregates_block_that_finds_nothing_is_no_judgment(tmp_path: Path) -> None:
    ratings = "item,rater,label\na,r1,1\na,r2,2\n"
    data = _aggregated(tmp_path, "integer", ratings, "item\na\n", "mean", "mean")
    found = validate([data]).findings
    assert [(f.code, f.pointer) for f in found] == [("declared/no-judgment", "/aggregates/0")]
    assert "makes no stored value of means" in found[0].message


def test_the_shipped_index_is_current() -> None:
    paths = shipped()
    written = json.loads((paths[0].parent / INDEX).read_text())
    assert written == json.loads(json.dumps(index(paths))), "run python -m humanjudge_schema.formats.declared.made"


def test_a_boolean_column_takes_true_and_false_as_json_and_pandas_write_them(tmp_path: Path) -> None:
    declaration = HEAD.format(name="booleans", file="ratings.csv", kind="boolean") + JUDGED
    data = _folder(tmp_path, declaration, ratings_csv="item,rater,label\na,r1,true\na,r2,False\nb,r1,yes\n")
    found = validate([data]).findings
    assert [(f.code, f.pointer) for f in found] == [("schema/type", "/2/label")]  # "yes" is no boolean
