"""`humanjudge card` of a declared dataset: the card's name, description and home page come from
the declaration; each data file Croissant can read gets a record set whose fields are typed by its
record schema (a CSV or TSV file with a header, a headerless one read a line at a time, JSON
Lines, JSON with its records under a pointer), and a file it cannot read says why; a block whose
judgments are plain fields of a record gets a record set of judgments as the built-in formats
have them. mlcroissant validates the card, and the records it loads are the files' rows and
export's judgments; `card --check` finds what was planted in a declared dataset's card, or in
its section of a repository's. The six corpus datasets of the shipped declarations are checked
the same way (they skip without the corpus)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from humanjudge_schema.card.rai import RECORDS

from .conftest import ROOT, corpus
from .test_card import EXAMPLES, THEIRS, _check, _invoke, _plain, loaded_and_exported, written_card

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SHIPPED = ROOT / "humanjudge_schema" / "formats" / "declared" / "shipped"

# A dataset of every layout a card describes, or says it cannot: a headerless TSV of judgments,
# a headerless TSV with an empty number cell, JSON with records under /votes/*, JSON keyed by
# item, JSON Lines with a nested object and a list, and three files Croissant's reader cannot
# read as they are written (a quote character that is text, `;` between cells, a headerless
# table holding a comma).
MIXED = """declaration = 1
name = "mixed-layouts"
title = "Mixed layouts"
description = "One file of each layout a card describes."
source = "https://example.org/mixed"

[files.ratings]
name = "ratings.tsv"
type = "tsv"
header = false
columns = ["item", "rater", "score"]
record = { type = "object", required = ["item", "rater", "score"], properties = { item = { type = "string" }, \
rater = { type = "string" }, score = { type = "integer" } } }

[files.extra]
name = "extra.tsv"
type = "tsv"
header = false
columns = ["key", "weight", "count"]
required = false
record = { type = "object", properties = { key = { type = "string" }, weight = { type = "number" }, \
count = { type = "integer" } } }

[files.votes]
name = "votes.json"
type = "json"
records = "/votes/*"
record = { type = "object", required = ["id", "judge", "pick"], properties = { id = { type = "string" }, \
judge = { type = "string" }, pick = { enum = ["x", "y"] }, meta = { type = "object", \
properties = { ms = { type = "integer" } } } } }

[files.items]
name = "items.json"
type = "json"
records = "/*"
required = false
record = { type = "object", properties = { text = { type = "string" }, "word count" = { type = "integer" } } }

[files.notes]
name = "notes.jsonl"
type = "jsonl"
record = { type = "object", required = ["item", "by", "grade"], properties = { item = { type = "string" }, \
by = { type = "string" }, grade = { type = "number" }, detail = { type = "object", \
properties = { why = { type = "string" } } }, tags = { type = "array" } } }

[files.quoted]
name = "quoted.csv"
type = "csv"
quoting = false
required = false
record = { type = "object", properties = { a = { type = "string" }, b = { type = "string" } } }

[files.semi]
name = "semi.csv"
type = "csv"
delimiter = ";"
required = false
record = { type = "object", properties = { a = { type = "string" }, b = { type = "integer" } } }

[files.commas]
name = "commas.tsv"
type = "tsv"
header = false
columns = ["a", "b"]
required = false
record = { type = "object", properties = { a = { type = "string" }, b = { type = "string" } } }

[questions.quality]
level = "ordinal"
values = [1, 2, 3]

[questions.choice]
level = "nominal"
values = ["x", "y"]

[questions.grade]
level = "interval"

[[judgments]]
file = "ratings"
item = "item"
rater = "rater"
question = "quality"
value = "score"

[[judgments]]
file = "votes"
item = "id"
rater = "judge"
question = "choice"
value = "pick"

[[judgments]]
file = "notes"
item = "item"
rater = "by"
question = "grade"
value = "grade"
"""
MIXED_FILES = {
    "ratings.tsv": "i1\tr1\t3\ni1\tr2\t2\ni2\tr1\t1\ni2\tr2\t1\n",
    "extra.tsv": "k1\t0.5\t4\nk2\t\t7\n",
    "votes.json": json.dumps(
        {
            "votes": [
                {"id": "v1", "judge": "j1", "pick": "x", "meta": {"ms": 120}},
                {"id": "v1", "judge": "j2", "pick": "y"},
                {"id": "v2", "judge": "j1", "pick": "y", "meta": {"ms": 80}},
            ]
        }
    ),
    "items.json": json.dumps({"i1": {"text": "first item", "word count": 2}, "i2": {"text": "second"}}),
    "notes.jsonl": "".join(
        json.dumps(r) + "\n"
        for r in (
            {"item": "n1", "by": "a", "grade": 2.5, "detail": {"why": "fine"}, "tags": ["t"]},
            {"item": "n1", "by": "b", "grade": 3},
            {"item": "n2", "by": "a", "grade": 1, "detail": {"why": "short"}},
        )
    ),
    "quoted.csv": 'a,b\n"x,y\n',
    "semi.csv": "a;b\nx;1\n",
    "commas.tsv": "a\tb,c\n",
}


def _example(tmp_path: Path) -> Path:
    """The declared example (examples/declared/valid), copied."""
    data = tmp_path / "data" / "sentiment"
    shutil.copytree(EXAMPLES / "declared" / "valid", data)
    return data


def _mixed(tmp_path: Path) -> Path:
    data = tmp_path / "data" / "mixed"
    data.mkdir(parents=True)
    (data / "humanjudge-format.toml").write_text(MIXED, encoding="utf-8")
    for name, text in MIXED_FILES.items():
        (data / name).write_text(text, encoding="utf-8")
    return data


def _record_sets(card: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {rs["@id"]: rs for rs in card["recordSet"]}


def _files(card: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["@id"]: f for f in card["distribution"]}


# --- what the card says --------------------------------------------------------------------------


def test_name_and_description_come_from_the_declaration(tmp_path: Path) -> None:
    data = _example(tmp_path)
    _, card = written_card(tmp_path, data)
    declared = tomllib.loads((data / "humanjudge-format.toml").read_text(encoding="utf-8"))
    assert card["name"] == declared["title"] == "Sentiment labels (example)"
    assert card["description"] == declared["description"]  # every judgment is in a record set: no note
    # what the declaration does not say stays the author's to write
    for key in ("citeAs", "url", "license"):
        assert card[key].startswith("FILL IN:"), key

    _, card = written_card(tmp_path, _mixed(tmp_path))
    assert card["name"] == "Mixed layouts" and card["url"] == "https://example.org/mixed"  # its `source`
    assert card["description"] == "One file of each layout a card describes."


def test_a_record_set_per_file_each_field_typed_by_its_record_schema(tmp_path: Path) -> None:
    data = _example(tmp_path)
    _, card = written_card(tmp_path, data)
    sets = _record_sets(card)
    assert list(sets) == ["sentiment", "sentiment.majority", "labels", "summary"]
    labels = sets["labels"]
    assert labels["description"].startswith("One record per row of labels.csv: 11 records. Fields: review, worker")
    assert [(f["name"], f["dataType"]) for f in labels["field"]] == [
        ("review", "sc:Text"),
        ("worker", "sc:Text"),
        ("label", "sc:Text"),
        ("seconds", "sc:Float"),
    ]
    assert [(f["name"], f["dataType"]) for f in sets["summary"]["field"]][-1] == ("labels", "sc:Integer")
    for f in labels["field"]:
        assert f["source"] == {"fileObject": {"@id": "labels.csv"}, "extract": {"column": f["name"]}}
    # the judgments as the built-in formats' record sets have them: item, rater, value
    judged = sets["sentiment"]
    assert judged["description"].startswith(
        'One record per judgment of "sentiment": 11 records. Fields: item, rater, value'
    )
    assert [f["source"]["extract"]["column"] for f in judged["field"]] == ["review", "worker", "label"]
    assert sets["sentiment.majority"]["description"].startswith(
        'One record per stored aggregate of "sentiment": 4 records (majority)'
    )
    # each file once, with its size and hash
    files = _files(card)
    assert sorted(files) == ["humanjudge-format.toml", "labels.csv", "summary.csv"]
    for name, entry in files.items():
        assert entry["contentSize"] == f"{(data / name).stat().st_size} B"
        assert entry["sha256"] == hashlib.sha256((data / name).read_bytes()).hexdigest()
    assert files["labels.csv"]["encodingFormat"] == "text/csv"


def test_every_layout_is_a_record_set_or_says_why_not(tmp_path: Path) -> None:
    _, card = written_card(tmp_path, _mixed(tmp_path))
    sets, files = _record_sets(card), _files(card)
    assert list(sets) == ["quality", "choice", "grade", "ratings", "extra", "votes", "items", "notes"]
    typed = {rs: [(f["name"], f["dataType"]) for f in sets[rs]["field"]] for rs in sets}
    # a headerless table: text, read a line at a time, a column by a regular expression; an
    # empty number cell would be no number, so its column is text
    assert files["ratings.tsv"]["encodingFormat"] == "text/plain"
    assert "no header row" in files["ratings.tsv"]["description"]
    assert typed["ratings"] == [("item", "sc:Text"), ("rater", "sc:Text"), ("score", "sc:Integer")]
    assert sets["ratings"]["field"][2]["source"] == {
        "fileObject": {"@id": "ratings.tsv"},
        "extract": {"fileProperty": "lines"},
        "transform": {"regex": r"^(?:[^\t]*\t){2}([^\t]*)"},
    }
    assert typed["extra"] == [("key", "sc:Text"), ("weight", "sc:Text"), ("count", "sc:Integer")]
    # JSON: one JSONPath to the records for every field, each picked by a transform
    assert typed["votes"] == [("id", "sc:Text"), ("judge", "sc:Text"), ("pick", "sc:Text"), ("meta.ms", "sc:Integer")]
    assert {json.dumps(f["source"]["extract"]) for f in sets["votes"]["field"]} == {'{"jsonPath": "$.\'votes\'[*]"}'}
    assert sets["votes"]["field"][3]["source"]["transform"] == {"jsonPath": "'meta'.'ms'"}
    assert sets["items"]["field"][0]["source"]["extract"] == {"jsonPath": "$.*"}  # records keyed by item
    assert "the key each record is under (@1)" in sets["items"]["description"]
    assert typed["items"] == [("text", "sc:Text"), ("word count", "sc:Integer")]
    # JSON Lines: a column per key, a key below it by a transform; a list is no field
    assert typed["notes"] == [("item", "sc:Text"), ("by", "sc:Text"), ("grade", "sc:Float"), ("detail.why", "sc:Text")]
    assert sets["notes"]["field"][3]["source"]["transform"] == {"jsonPath": "'why'"}
    assert 'Not fields: "tags" (a list)' in sets["notes"]["description"]
    # what Croissant's reader would read otherwise than the file is written: said, not described
    assert "quoting = false" in files["quoted.csv"]["description"]
    assert "parted by ';'" in files["semi.csv"]["description"]
    assert "comma" in files["commas.tsv"]["description"] and files["commas.tsv"]["encodingFormat"].endswith("values")
    for name in ("quoted.csv", "semi.csv", "commas.tsv"):
        assert files[name]["description"].startswith("No record set reads this file: ")
    # the judgments of each layout a record set reads
    for rs, file in (("quality", "ratings.tsv"), ("choice", "votes.json"), ("grade", "notes.jsonl")):
        assert [f["name"] for f in sets[rs]["field"]] == ["item", "rater", "value"]
        assert {f["source"]["fileObject"]["@id"] for f in sets[rs]["field"]} == {file}


def test_judgments_no_field_can_read_are_said_in_the_description(tmp_path: Path) -> None:
    data = _mixed(tmp_path)
    text = (data / "humanjudge-format.toml").read_text(encoding="utf-8")
    (data / "humanjudge-format.toml").write_text(text.replace('item = "id"', 'item = ["id", "judge"]'))
    _, card = written_card(tmp_path, data)
    assert "choice" not in _record_sets(card) and "votes" in _record_sets(card)
    assert card["description"].endswith(
        "No record set holds these judgments one per record: those of /judgments/1 (in votes): an item is made "
        "of several fields (id, judge), which a field cannot join. Where a record set reads their file, it reads "
        "them as the file writes them; `humanjudge export mixed --to jsonl` writes the judgments as one record per "
        "judgment."
    )


def test_a_declaration_with_errors_gets_its_names_and_no_record_set(tmp_path: Path) -> None:
    data = _example(tmp_path)
    text = (data / "humanjudge-format.toml").read_text(encoding="utf-8")
    (data / "humanjudge-format.toml").write_text(text.replace('value = "label"', 'value = "labelx"'))
    out = tmp_path / "card.json"
    result = _invoke("card", str(data), "-o", str(out), "-q", "--samples", "20")
    assert result.exit_code == 1  # validate's: the declaration's error
    card = json.loads(out.read_text(encoding="utf-8"))
    assert card["name"] == "Sentiment labels (example)" and card["recordSet"] == []
    assert "Its declaration has errors" in card["description"]


# --- card --check --------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [_example, _mixed], ids=["example", "mixed"])
def test_a_written_card_checks_clean(make: Any, tmp_path: Path) -> None:
    data = make(tmp_path)
    out, _ = written_card(tmp_path, data)
    code, findings = _check(out, data)
    assert code == 0 and {f["code"] for f in findings} == {"card/unfilled"}


def test_check_finds_a_row_count_and_a_file_changed_since(tmp_path: Path) -> None:
    data = _mixed(tmp_path)
    out, card = written_card(tmp_path, data)
    with (data / "ratings.tsv").open("a", encoding="utf-8") as f:
        f.write("i3\tr1\t2\n")
    code, findings = _check(out, data)
    assert code == 1
    index = {rs["@id"]: i for i, rs in enumerate(card["recordSet"])}
    file = [f["@id"] for f in card["distribution"]].index("ratings.tsv")
    found = {(f["code"], f["pointer"]) for f in findings if f["code"] != "card/unfilled"}
    assert found == {
        ("card/file-size", f"/distribution/{file}/contentSize"),
        ("card/file-hash", f"/distribution/{file}/sha256"),
        ("card/record-count", f"/recordSet/{index['quality']}/description"),  # 5 judgments of "quality"
        ("card/record-count", f"/recordSet/{index['ratings']}/description"),  # 5 lines of ratings.tsv
        ("card/annotations-per-item", "/rai:annotationsPerItem"),  # i3 has one now
    }


def test_check_finds_what_was_planted_in_a_declared_datasets_section(tmp_path: Path) -> None:
    sentiment, mixed = _example(tmp_path), _mixed(tmp_path)
    repo = sentiment.parent
    out, card = written_card(tmp_path, repo)
    assert sorted(_record_sets(card)) == sorted(
        [f"sentiment/{rs}" for rs in ("sentiment", "sentiment.majority", "labels", "summary")]
        + [f"mixed/{rs}" for rs in ("quality", "choice", "grade", "ratings", "extra", "votes", "items", "notes")]
    )
    assert sorted(_files(card)) == sorted(
        [f"sentiment/{n}" for n in ("labels.csv", "summary.csv", "humanjudge-format.toml")]
        + [f"mixed/{n}" for n in (*MIXED_FILES, "humanjudge-format.toml")]
    )
    assert mixed.name in card["description"] and "Sentiment labels (example)" in card["description"]
    code, findings = _check(out, repo)
    assert code == 0 and {f["code"] for f in findings} == {"card/unfilled"}

    per_item = card["rai:annotationsPerItem"].splitlines()
    at = per_item.index('dataset "sentiment":') + 1
    per_item[at] = re.sub(r"max (\d+)", lambda m: f"max {int(m.group(1)) + 2}", per_item[at])
    card["rai:annotationsPerItem"] = "\n".join(per_item)
    missing = card["rai:dataCollectionMissingData"].splitlines()
    at = missing.index('dataset "mixed":') + 1
    missing[at] = re.sub(r": (\d+) missing", lambda m: f": {int(m.group(1)) + 3} missing", missing[at])
    card["rai:dataCollectionMissingData"] = "\n".join(missing)
    r = [rs["@id"] for rs in card["recordSet"]].index("mixed/votes")
    said = card["recordSet"][r]["description"]
    card["recordSet"][r]["description"] = re.sub(r": (\d+) records", lambda m: f": {int(m.group(1)) + 1} records", said)
    out.write_text(json.dumps(card, indent=2, ensure_ascii=False), encoding="utf-8")

    code, findings = _check(out, repo)
    assert code == 1
    found = {(f["code"], f["pointer"]) for f in findings if f["code"] != "card/unfilled"}
    assert found == {
        ("card/annotations-per-item", "/rai:annotationsPerItem"),
        ("card/missing-answers", "/rai:dataCollectionMissingData"),
        ("card/record-count", f"/recordSet/{r}/description"),
    }
    (per_item,) = [f for f in findings if f["code"] == "card/annotations-per-item"]
    assert per_item["message"].startswith("'sentiment': the card states min 2, median 3, max 5")


# --- what mlcroissant makes of it ----------------------------------------------------------------


@pytest.fixture(scope="module")
def mlcroissant() -> Any:
    return pytest.importorskip("mlcroissant")


def _typed(text: str | None, data_type: str) -> Any:
    if text is None:
        return None
    if data_type == "sc:Integer":
        return int(text) if text else None
    if data_type == "sc:Float":
        return float(text) if text else None
    return text


def _cell(line: str, field: dict[str, Any]) -> str:
    """What a field's regular expression takes of a line (the line, where it has none)."""
    regex = field["source"].get("transform", {}).get("regex")
    found = re.match(regex, line) if regex else None
    return line if found is None else found.group(1)


_STEP = re.compile(r"\[\*\]|\.\*|'([^']*)'|\"([^\"]*)\"")


def _steps(path: str) -> list[str | None]:
    """A JSONPath of the card as steps: a key, or None for every element."""
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in _STEP.finditer(path)]


def _at(value: Any, steps: list[str | None]) -> Iterator[Any]:
    if not steps:
        yield value
        return
    step, rest = steps[0], steps[1:]
    if step is None:
        for v in value.values() if isinstance(value, dict) else value:
            yield from _at(v, rest)
    elif isinstance(value, dict) and step in value:
        yield from _at(value[step], rest)
    else:
        yield None


def _rows(out: Path, card: dict[str, Any], rs: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The rows of a record set's file read with the standard library, each as the record set's
    fields give it (a column; a cell a regular expression takes from a line; a value a path
    leads to), typed by its data type: what mlcroissant must load."""
    fields = rs["field"]
    (file_id,) = {f["source"]["fileObject"]["@id"] for f in fields}
    entry = _files(card)[file_id]
    path = out.parent / entry["contentUrl"]
    kind = entry["encodingFormat"]
    if kind in ("text/csv", "text/tab-separated-values"):
        text = path.read_text(encoding="utf-8-sig")
        table = csv.DictReader(io.StringIO(text, newline=""), delimiter="," if kind == "text/csv" else "\t")
        return [
            tuple(_typed(row[f["source"]["extract"]["column"]] or None, f["dataType"]) for f in fields) for row in table
        ]
    if kind == "text/plain":
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [tuple(_typed(_cell(line, f), f["dataType"]) for f in fields) for line in lines]
    if kind == "application/jsonlines":
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        steps = [
            [f["source"]["extract"]["column"], *_steps(f["source"].get("transform", {}).get("jsonPath", ""))]
            for f in fields
        ]
        return [tuple(_as(next(_at(r, s)), f["dataType"]) for s, f in zip(steps, fields, strict=True)) for r in records]
    data = json.loads(path.read_text(encoding="utf-8"))
    (extract,) = {f["source"]["extract"]["jsonPath"] for f in fields}
    nodes = list(_at(data, _steps(extract)))
    paths = [_steps(f["source"]["transform"]["jsonPath"]) for f in fields]
    return [tuple(_as(next(_at(node, s)), f["dataType"]) for s, f in zip(paths, fields, strict=True)) for node in nodes]


def _as(value: Any, data_type: str) -> Any:
    """A JSON value as a field of its type has it: a value that is not of its record schema's
    type (PandaLM's `true` where its schema says text, which validate reports) is read as text."""
    return str(value) if data_type == "sc:Text" and value is not None and not isinstance(value, str) else value


def _same(out: Path, card: dict[str, Any], dataset: Any, rs: dict[str, Any], limit: int | None = None) -> int:
    """The records mlcroissant loads of a record set are the file's rows (the first `limit`)."""
    expected = [tuple(map(_plain, row)) for row in _rows(out, card, rs)][:limit]
    loaded = []
    for k, record in enumerate(dataset.records(rs["@id"])):
        if limit is not None and k >= limit:
            break
        loaded.append(tuple(_plain(record[f["@id"]]) for f in rs["field"]))
    assert loaded == expected, rs["@id"]
    return len(loaded)


@THEIRS
@pytest.mark.parametrize("make", [_example, _mixed], ids=["example", "mixed"])
def test_mlcroissant_validates_it_and_loads_the_rows_and_exports_judgments(
    make: Any, tmp_path: Path, mlcroissant: Any
) -> None:
    from humanjudge_schema.card.croissant import validate

    data = make(tmp_path)
    out, card = written_card(tmp_path, data)
    errors, warnings = validate(out)
    assert errors == [] and all("is recommended" in w for w in warnings), warnings
    dataset = mlcroissant.Dataset(jsonld=str(out))
    for rs in card["recordSet"]:
        assert _same(out, card, dataset, rs) > 0
    compared = set()
    for name, loaded, exported in loaded_and_exported(out, data, mlcroissant):
        assert loaded == exported and sum(loaded.values()) > 0, name
        compared.add(name)
    assert compared == {rs["@id"] for rs in card["recordSet"] if RECORDS.match(rs["description"])}
    assert len(compared) == (2 if make is _example else 3)


PARQUET = """declaration = 1
name = "parquet-ratings"
title = "Parquet ratings"

[files.ratings]
name = "ratings.parquet"
type = "parquet"
record = { type = "object", properties = { item = { type = "string" }, rater = { type = "string" }, \
score = { type = "integer" }, meta = { type = "object", properties = { ms = { type = "integer" } } } } }

[[judgments]]
file = "ratings"
item = "item"
rater = "rater"
question = "score"
value = "score"
"""


@THEIRS
def test_a_parquet_file_is_a_record_set_of_its_rows(tmp_path: Path, mlcroissant: Any) -> None:
    pa = pytest.importorskip("pyarrow")
    parquet = pytest.importorskip("pyarrow.parquet")
    from humanjudge_schema.card.croissant import validate

    data = tmp_path / "data" / "pq"
    data.mkdir(parents=True)
    (data / "humanjudge-format.toml").write_text(PARQUET, encoding="utf-8")
    rows = {
        "item": ["a", "a", "b"],
        "rater": ["r1", "r2", "r1"],
        "score": [1, 2, 3],
        "meta": [{"ms": 5}, {"ms": 6}, {"ms": 7}],
    }
    parquet.write_table(pa.table(rows), data / "ratings.parquet")
    out, card = written_card(tmp_path, data)
    assert _files(card)["ratings.parquet"]["encodingFormat"] == "application/x-parquet"
    sets = _record_sets(card)
    assert list(sets) == ["score", "ratings"]
    assert sets["ratings"]["description"].startswith("One record per row of ratings.parquet: 3 records.")
    fields = sets["ratings"]["field"]
    assert [(f["name"], f["dataType"]) for f in fields][2:] == [("score", "sc:Integer"), ("meta.ms", "sc:Integer")]
    assert fields[3]["source"] == {
        "fileObject": {"@id": "ratings.parquet"},
        "extract": {"column": "meta"},
        "transform": {"jsonPath": "'ms'"},
    }
    errors, _ = validate(out)
    assert errors == []
    loaded = [
        tuple(_plain(record[f["@id"]]) for f in fields)
        for record in mlcroissant.Dataset(jsonld=str(out)).records("ratings")
    ]
    assert loaded == [("a", "r1", 1.0, 5.0), ("a", "r2", 2.0, 6.0), ("b", "r1", 3.0, 7.0)]
    for name, got, exported in loaded_and_exported(out, data, mlcroissant):
        assert got == exported and sum(got.values()) == 3, name


# --- the corpus ----------------------------------------------------------------------------------

# Per dataset of a shipped declaration: its record sets, and the files no record set reads (why).
CORPUS = {
    "convabuse-long": (["responses"], {}),
    "gal-adultcontent2-triplets": (["rating", "rating.label", "labels", "gold", "categories", "costs"], {}),
    "lewidi-multipico-dev": (["items"], {"MP_annotators_meta.json": "NaN is not JSON"}),
    "mqm-ted-ende": (["errors"], {"mqm_ted_ende.avg_seg_scores.tsv": "parted by runs of spaces and tabs"}),
    "pandalm-testset": (["comparisons"], {}),
    "squality-human-eval": (["responses"], {}),
}


@THEIRS
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_a_shipped_declarations_dataset_gets_a_card_mlcroissant_reads(
    name: str, tmp_path: Path, mlcroissant: Any
) -> None:
    from humanjudge_schema.card import card as card_of
    from humanjudge_schema.card import check
    from humanjudge_schema.card.build import dumps
    from humanjudge_schema.card.croissant import validate

    data = corpus("tables", name)
    doc = card_of(data, samples=20, base=tmp_path)
    out = tmp_path / "croissant.json"
    out.write_text(dumps(doc), encoding="utf-8")
    declared = tomllib.loads((SHIPPED / f"{name}.toml").read_text(encoding="utf-8"))
    assert doc["name"] == declared["title"] and doc["url"] == declared["source"]
    assert doc["description"].startswith(declared["description"])
    sets, unread = CORPUS[name]
    assert [rs["@id"] for rs in doc["recordSet"]] == sets
    files = _files(doc)
    data_files = sorted(p.name for p in data.iterdir() if p.suffix != ".md" and p.name != "README.txt")
    assert sorted(files) == data_files  # each once
    for file_id, entry in files.items():
        assert entry["contentSize"] == f"{(data / file_id).stat().st_size} B"
        assert entry["sha256"] == hashlib.sha256((data / file_id).read_bytes()).hexdigest()
        why = unread.get(file_id)
        assert (why is None) == ("description" not in entry or not entry["description"].startswith("No record set"))
        if why is not None:
            assert why in entry["description"], entry["description"]
    errors, warnings = validate(out)
    assert errors == [] and all("is recommended" in w for w in warnings), warnings
    assert {f.code for f in check(out, data)} == {"card/unfilled"}
    dataset = mlcroissant.Dataset(jsonld=str(out))
    for rs in doc["recordSet"]:  # the first rows of the large files
        assert _same(out, doc, dataset, rs, limit=300) > 0
