"""`humanjudge card`: the Croissant card of each format's example, what mlcroissant makes of it
(valid, and the records it loads are export's rows), its RAI figures against `stats`, and
`card --check` finding contradictions planted in a card."""

from __future__ import annotations

import hashlib
import json
import math
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from humanjudge_schema.commands import cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# One dataset of each format: (format, the example's path under examples/).
DATASETS = {
    "coggym": "coggym/valid",
    "halie": "halie/valid/crossword",
    "study1": "study1/valid",
    "textjudge": "textjudge/valid/dataset.json",
}


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _copy(fmt: str, tmp_path: Path) -> Path:
    """The format's example, copied: a card is written beside it, and a check may change a copy."""
    source = EXAMPLES / DATASETS[fmt]
    target = tmp_path / "data" / source.name
    target.parent.mkdir(parents=True)
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        shutil.copy(source, target)
    return target


def _card(fmt: str, tmp_path: Path, *extra: str) -> tuple[Path, Path, dict[str, Any]]:
    data = _copy(fmt, tmp_path)
    out = tmp_path / "croissant.json"
    result = _invoke("card", str(data), "-o", str(out), "-q", *extra)
    assert result.exit_code == 0, result.output
    return data, out, json.loads(out.read_text(encoding="utf-8"))


# --- what the card is ----------------------------------------------------------------------------


def test_the_card_is_croissant_with_rai_fields(tmp_path: Path) -> None:
    data, out, card = _card("coggym", tmp_path)
    assert card["@type"] == "sc:Dataset" and card["conformsTo"] == "http://mlcommons.org/croissant/1.0"
    assert card["@context"]["rai"] == "http://mlcommons.org/croissant/RAI/"
    config = json.loads((data / "config.json").read_text())
    assert card["name"] == config["experimentName"]
    assert card["description"].startswith(config["description"])
    names = sorted(f["name"] for f in card["distribution"])
    assert names == sorted(p.name for p in data.iterdir() if p.is_file())
    for entry in card["distribution"]:
        path = out.parent / entry["contentUrl"]
        assert entry["contentSize"] == f"{path.stat().st_size} B"
        assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    # every array holds every participant: raters are persons, counted from the judgments
    demographics = card["rai:annotatorDemographics"]
    assert demographics[0] == "annotators: 3 persons (distinct rater ids of the individual judgments)"
    info = json.loads((data / "human_data_ind.json").read_text())["participants_info"]
    assert f"participants_info.count: {info['count']}" in demographics


@pytest.mark.parametrize("fmt", ["halie", "study1"])
def test_what_the_files_do_not_carry_is_a_placeholder_never_invented(fmt: str, tmp_path: Path) -> None:
    _, _, card = _card(fmt, tmp_path)
    for key in ("name", "description", "citeAs", "url", "license"):
        assert card[key].startswith("FILL IN:"), key
    assert card["rai:dataAnnotationPlatform"][0].startswith("FILL IN:")


def test_textjudge_name_and_url_come_from_the_file(tmp_path: Path) -> None:
    data, _, card = _card("textjudge", tmp_path)
    top = json.loads(data.read_text())
    assert card["name"] == top["dataset"] and card["url"] == top["dataset_url"]


def test_the_card_is_written_the_same_way_twice_keys_sorted_text_unescaped(tmp_path: Path) -> None:
    data = _copy("coggym", tmp_path)
    config = json.loads((data / "config.json").read_text())
    config["experimentName"] = "Étude ☃ \u2028 line"
    (data / "config.json").write_text(json.dumps(config))
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        assert _invoke("card", str(data), "-o", str(out), "-q").exit_code in (0, 1)
    text = first.read_text(encoding="utf-8")
    assert text == second.read_text(encoding="utf-8")
    assert "Étude ☃" in text and "\\u00c9" not in text
    card = json.loads(text)
    assert list(card) == sorted(card)
    assert card["name"] == "Étude ☃ \u2028 line"


def test_a_folder_of_several_datasets_gets_one_card_of_them_all(tmp_path: Path) -> None:
    result = _invoke("card", str(EXAMPLES / "halie" / "valid"), "-q", "--samples", "20")
    assert result.exit_code == 0, result.stderr  # it refused a folder of several datasets
    doc = json.loads(result.stdout)
    assert [line for line in doc["rai:annotationsPerItem"].splitlines() if line.startswith("dataset ")] == [
        f'dataset "{name}":' for name in ("crossword", "dialogue", "metaphor", "question", "summarization")
    ]
    # tests/test_card_repository.py has the rest


def test_a_dataset_without_judgments_gets_a_card_of_its_files_that_says_why(tmp_path: Path) -> None:
    data = _copy("coggym", tmp_path)
    (data / "human_data_ind.json").unlink()
    (data / "human_data_mean.json").unlink()
    out = tmp_path / "c.json"
    result = _invoke("card", str(data), "-o", str(out))
    assert result.exit_code == 0, result.output  # a release without its data files warns
    doc = json.loads(out.read_text())
    why = "no judgments: no individual data file human_data_ind.json"
    assert doc["rai:annotationsPerItem"].startswith(why) and doc["rai:dataCollectionMissingData"].startswith(why)
    assert {f["name"] for f in doc["distribution"]} >= {"trial.jsonl", "config.json"}
    checked = _invoke("card", "--check", str(out), str(data))
    assert "card/annotations-per-item" not in checked.output


def test_a_git_lfs_pointer_gets_no_card(tmp_path: Path) -> None:
    data = _copy("coggym", tmp_path)
    (data / "human_data_ind.json").write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64 + "\nsize 12345\n"
    )
    (data / "human_data_mean.json").unlink()
    result = _invoke("card", str(data), "-o", str(tmp_path / "c.json"))
    assert result.exit_code == 2 and not (tmp_path / "c.json").exists()
    assert "Git LFS pointer" in result.stderr


def test_the_python_api_gives_the_card_and_the_findings(tmp_path: Path) -> None:
    from humanjudge_schema.card import CardError, card, check, dataset

    data = _copy("study1", tmp_path)
    doc = card(data, base=tmp_path, samples=50)
    assert doc["distribution"][0]["contentUrl"].startswith("data/")
    out = tmp_path / "c.json"
    out.write_text(json.dumps(doc))
    assert {f.code for f in check(out, data)} == {"card/unfilled"}
    repository = card(EXAMPLES / "halie" / "valid", samples=20)  # several datasets: one card of them
    assert {rs["@id"].split("/")[0] for rs in repository["recordSet"]} >= {"question", "dialogue"}
    with pytest.raises(CardError, match="the paths hold 5"):  # one dataset asked for, five found
        dataset([EXAMPLES / "halie" / "valid"])


def test_the_output_is_refused_as_export_refuses_it(tmp_path: Path) -> None:
    data = _copy("study1", tmp_path)
    out = tmp_path / "card.json"
    out.write_text("{}")
    result = _invoke("card", str(data), "-o", str(out))
    assert result.exit_code == 2 and "exists: use --force" in result.stderr
    link = tmp_path / "link.json"
    link.symlink_to(out)
    result = _invoke("card", str(data), "-o", str(link), "--force")
    assert result.exit_code == 2 and out.read_text() == "{}"
    assert _invoke("card", str(data), "-o", str(out), "--force", "-q").exit_code == 0
    assert json.loads(out.read_text())["@type"] == "sc:Dataset"


def test_check_and_output_exclude_each_other(tmp_path: Path) -> None:
    result = _invoke("card", str(EXAMPLES / "study1" / "valid"), "--check", "x.json", "-o", "y.json")
    assert result.exit_code == 2 and "--check reads a card" in result.stderr


# --- the RAI figures are stats' figures ----------------------------------------------------------

_NUM = r"-?\d+(?:\.\d+)?"
_ALPHA = re.compile(rf"Krippendorff's alpha \((\w+)\) ({_NUM}), 95% interval \[({_NUM}), ({_NUM})\]")
_OBSERVED = re.compile(rf"observed agreement ({_NUM})")
_AC = re.compile(rf"Gwet's AC[12](?: \((\w+) weights\))? ({_NUM}), 95% interval \[({_NUM}), ({_NUM})\]")


@pytest.mark.parametrize("fmt", sorted(DATASETS))
def test_the_rai_figures_equal_stats_json(fmt: str, tmp_path: Path) -> None:
    from humanjudge_schema.card.rai import MISSING, PER_ITEM

    data, _, card = _card(fmt, tmp_path, "--samples", "200", "--seed", "7")
    stats = json.loads(_invoke("stats", str(data), "--format", "json", "--samples", "200", "--seed", "7").stdout)
    (ds,) = stats["datasets"]
    questions = {q["question"]: q for q in ds["questions"]}

    def r(x: float) -> float:
        return round(x, 4)

    per_item = {json.loads(m["q"]): m for m in PER_ITEM.finditer(card["rai:annotationsPerItem"])}
    missing = {json.loads(m["q"]): int(m["missing"]) for m in MISSING.finditer(card["rai:dataCollectionMissingData"])}
    assert set(missing) == set(questions)
    analysis = {}
    for line in card["rai:dataAnnotationAnalysis"]:
        if line.startswith('"') and "alpha" in line:
            name, _, rest = line.partition(": ")
            analysis[json.loads(name)] = rest
    for name, q in questions.items():
        assert missing[name] == q["missing"]
        if q["raters_per_item"] is not None:
            m = per_item[name]
            stated = (int(m["min"]), float(m["median"]), int(m["max"]))
            spread = q["raters_per_item"]
            assert stated == (spread["min"], float(spread["median"]), spread["max"])
        if q["alpha"] is None:
            continue
        alpha = _ALPHA.search(analysis[name])
        assert alpha is not None and alpha.group(1) == q["level"]
        assert [float(x) for x in alpha.groups()[1:]] == [r(q["alpha"]), *map(r, q["alpha_ci"])]
        observed = _OBSERVED.search(analysis[name])
        assert observed is not None and float(observed.group(1)) == r(q["agreement"]["observed"])
        ac = _AC.search(analysis[name])
        assert ac is not None
        assert [float(x) for x in ac.groups()[1:]] == [r(q["agreement"]["ac"]), *map(r, q["agreement"]["ac_ci"])]
    counts = Counter(flag["code"] for flag in ds["quality"])
    stated_counts = {
        line.split(":")[0]: int(line.split(": ")[1].split()[0])
        for line in card["rai:dataAnnotationAnalysis"]
        if line.startswith("quality/") and "finding" in line and "of the quality checks" in line
    }
    assert stated_counts == dict(counts)


def test_annotators_are_the_distinct_persons(tmp_path: Path) -> None:
    data, _, card = _card("study1", tmp_path)
    rows = [json.loads(line) for line in _invoke("export", str(data), "--to", "jsonl", "-q").stdout.splitlines()]
    persons = {r["rater"] for r in rows if r["role"] == "individual" and r["rater_kind"] == "person"}
    assert card["rai:annotatorDemographics"][0].startswith(f"annotators: {len(persons)} persons")


# --- what mlcroissant makes of the card ----------------------------------------------------------


@pytest.fixture(scope="module")
def mlcroissant() -> Any:
    return pytest.importorskip("mlcroissant")


# What mlcroissant's own dependencies warn of (rdflib's deprecations) is not this project's to fix.
THEIRS = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")


@THEIRS
@pytest.mark.parametrize("fmt", sorted(DATASETS))
def test_mlcroissant_validates_the_card(fmt: str, tmp_path: Path, mlcroissant: Any) -> None:
    from humanjudge_schema.card.croissant import validate

    _, out, _ = _card(fmt, tmp_path)
    errors, warnings = validate(out)
    assert errors == []
    assert all("is recommended" in w for w in warnings), warnings


@THEIRS
def test_validate_option_runs_mlcroissant(tmp_path: Path, mlcroissant: Any) -> None:
    data = _copy("study1", tmp_path)
    result = _invoke("card", str(data), "-o", str(tmp_path / "c.json"), "--validate")
    assert result.exit_code == 0 and "mlcroissant: " in result.stderr and "no errors" in result.stderr


def _plain(value: Any) -> Any:
    """A value as mlcroissant gives it, as export writes it: text for bytes, None for NaN, floats
    for numbers (3 and 3.0 are one answer)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    if hasattr(value, "item"):  # a numpy scalar
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value


def written_card(tmp_path: Path, *paths: Path) -> tuple[Path, dict[str, Any]]:
    """The card of the paths, written into a folder beside the data (not the data's own)."""
    out = tmp_path / "cards" / "card.json"
    out.parent.mkdir(exist_ok=True)
    result = _invoke("card", *map(str, paths), "-o", str(out), "-q", "--samples", "20", "--force")
    assert result.exit_code == 0, result.output
    return out, json.loads(out.read_text(encoding="utf-8"))


def loaded_and_exported(out: Path, data: Path, mlcroissant: Any) -> Iterator[tuple[str, Counter[Any], Counter[Any]]]:
    """Per record set of judgments (and per question of a record set of a TextJudge file's
    instances): the records mlcroissant loads and export's rows of the same dataset, question and
    role, each as (item, rater, value) for the fields the record set has. A record with no value
    (an empty cell) or with a value its description says is not a judgment is no row; a stored
    aggregate's record set is compared with the rows of its kind. In a repository's card, a record
    set's @id begins with its dataset's path, and only that dataset's rows are compared."""
    from humanjudge_schema.card.rai import COUNTED, RECORDS, unquoted

    card = json.loads(out.read_text(encoding="utf-8"))
    dataset = mlcroissant.Dataset(jsonld=str(out))
    rows = [json.loads(line) for line in _invoke("export", str(data), "--to", "jsonl", "-q").stdout.splitlines()]
    for rs in card["recordSet"]:
        prefix = rs["@id"].rpartition("/")[0]
        mine = [r for r in rows if not prefix or Path(r["dataset"]).as_posix().endswith(prefix)]
        if COUNTED.match(rs["description"]) and "per instance" in rs["description"]:
            yield from _instances(rs, dataset.records(rs["@id"]), mine)
            continue
        found = RECORDS.match(rs["description"])
        if found is None:
            continue
        question, role = unquoted(found["q"]), "individual" if found["role"] == "judgment" else "aggregate"
        names = [f["name"] for f in rs["field"]]
        skipped = re.search(r"A value of (-?\d+) means the question was not asked", rs["description"])
        not_asked = float(skipped.group(1)) if skipped else None
        loaded: Counter[Any] = Counter()
        for record in dataset.records(rs["@id"]):
            values = {key.rsplit("/", 1)[-1]: _plain(v) for key, v in record.items()}
            if values["value"] is None or values["value"] == not_asked:
                continue
            loaded[tuple(values[n] if n == "value" else str(values[n]) for n in names)] += 1
        # one record set per kind of stored aggregate (mean_human, majority_human), which its
        # rows' pointers end with
        stored = re.search(r"records \((\w+)\)", rs["description"])
        exported = Counter(
            tuple(_plain(r[n]) if n == "value" else str(r[n]) for n in names)
            for r in mine
            if r["question"] == question and r["role"] == role and r["value"] is not None
            if stored is None or r["pointer"].endswith("/" + stored.group(1))
        )
        yield rs["@id"], loaded, exported


_PART = re.compile(r'^the (?P<kind>individual scores|\w+) of (?P<q>".*")$')


def _instances(
    rs: dict[str, Any], records: Any, rows: list[dict[str, Any]]
) -> Iterator[tuple[str, Counter[Any], Counter[Any]]]:
    """A record set of a TextJudge file's instances, per question: (item, value) of each score
    in its lists, or of each stored aggregate of a kind, as loaded and as exported."""
    from humanjudge_schema.card.rai import unquoted

    item = next(f["@id"] for f in rs["field"] if f["name"] == "item")
    parts = [(f["@id"], _PART.match(f["description"])) for f in rs["field"] if f["name"] != "item"]
    loaded: dict[str, Counter[Any]] = {ident: Counter() for ident, _ in parts}
    for record in records:
        for ident, _ in parts:
            value = record[ident]
            for v in value if isinstance(value, (list, tuple)) else [value]:
                if _plain(v) is not None:
                    loaded[ident][(str(_plain(record[item])), _plain(v))] += 1
    for ident, found in parts:
        assert found is not None, ident
        question, kind = unquoted(found["q"]), found["kind"]
        individual = kind == "individual scores"
        exported = Counter(
            (str(r["item"]), _plain(r["value"]))
            for r in rows
            if r["question"] == question and r["value"] is not None
            if r["role"] == ("individual" if individual else "aggregate")
            if individual or r["pointer"].endswith("/" + kind)
        )
        yield ident, loaded[ident], exported


@THEIRS
@pytest.mark.parametrize("fmt", ["halie", "study1", "textjudge"])
def test_the_records_mlcroissant_loads_are_exports_rows(fmt: str, tmp_path: Path, mlcroissant: Any) -> None:
    data, out, _ = _card(fmt, tmp_path)
    compared = 0
    for name, loaded, exported in loaded_and_exported(out, data, mlcroissant):
        assert loaded == exported, name
        assert sum(loaded.values()) > 0, name
        compared += 1
    assert compared >= 2


@THEIRS
def test_coggym_points_at_export_instead(tmp_path: Path, mlcroissant: Any) -> None:
    """An item is an object key and a rater a position in CogGym's files: no record set of
    judgments, the trials instead, and the description says where the judgments are."""
    from humanjudge_schema.card.rai import RECORDS

    data, out, card = _card("coggym", tmp_path)
    assert not any(RECORDS.match(rs["description"]) for rs in card["recordSet"])
    assert "`humanjudge export" in card["description"]
    ids = [json.loads(line)["id"] for line in (data / "trial.jsonl").read_text().splitlines() if line.strip()]
    loaded = [r["trials/id"].decode() for r in mlcroissant.Dataset(jsonld=str(out)).records("trials")]
    assert loaded == ids


# --- card --check --------------------------------------------------------------------------------


def _check(card: Path, data: Path, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    result = _invoke("card", "--check", str(card), str(data), "--format", "json", *extra)
    return result.exit_code, json.loads(result.stdout)["findings"]


@pytest.mark.parametrize("fmt", sorted(DATASETS))
def test_a_generated_card_checks_clean(fmt: str, tmp_path: Path) -> None:
    data, out, card = _card(fmt, tmp_path)
    code, findings = _check(out, data)
    assert code == 0
    # only what is left to the author, each at its placeholder
    assert {f["code"] for f in findings} == {"card/unfilled"}
    for f in findings:
        assert f["severity"] == "warning" and f["line"] is not None
    filled = _filled(card)
    out.write_text(json.dumps(filled, indent=2, ensure_ascii=False), encoding="utf-8")
    assert _check(out, data) == (0, [])


def _filled(node: Any) -> Any:
    if isinstance(node, str):
        return "Written by the author." if node.startswith("FILL IN:") else node
    if isinstance(node, list):
        return [_filled(v) for v in node if not (isinstance(v, str) and v.startswith("FILL IN:"))] or ["Written."]
    if isinstance(node, dict):
        return {k: _filled(v) for k, v in node.items()}
    return node


def test_check_finds_each_planted_contradiction(tmp_path: Path) -> None:
    data, out, card = _card("study1", tmp_path)
    card = _filled(card)
    files = card["distribution"]
    files[0]["contentSize"] = f"{int(files[0]['contentSize'].split()[0]) + 1} B"
    files[1]["sha256"] = "0" * 64
    renamed = files[2]["contentUrl"]
    files[2]["contentUrl"] = files[2]["name"] = files[2]["@id"] = "gone.jsonl.gz"
    per_item = card["rai:annotationsPerItem"].splitlines()
    per_item[0] = re.sub(r"max (\d+)", lambda m: f"max {int(m.group(1)) + 2}", per_item[0])
    card["rai:annotationsPerItem"] = "\n".join(per_item)
    card["rai:annotatorDemographics"][0] = "annotators: 999 persons"
    card["recordSet"][0]["description"] = re.sub(
        r": (\d+) records", lambda m: f": {int(m.group(1)) + 1} records", card["recordSet"][0]["description"]
    )
    missing = card["rai:dataCollectionMissingData"].splitlines()
    missing[1] = re.sub(r": (\d+) missing", lambda m: f": {int(m.group(1)) + 5} missing", missing[1])
    card["rai:dataCollectionMissingData"] = "\n".join(missing)
    out.write_text(json.dumps(card, indent=2, ensure_ascii=False), encoding="utf-8")

    code, findings = _check(out, data)
    assert code == 1
    found = {(f["code"], f["pointer"]) for f in findings}
    assert found == {
        ("card/file-size", "/distribution/0/contentSize"),
        ("card/file-hash", "/distribution/1/sha256"),
        ("card/missing-file", "/distribution/2"),
        ("card/unlisted-file", "/distribution"),
        ("card/annotations-per-item", "/rai:annotationsPerItem"),
        ("card/annotator-count", "/rai:annotatorDemographics/0"),
        ("card/record-count", "/recordSet/0/description"),
        ("card/missing-answers", "/rai:dataCollectionMissingData"),
    }
    unlisted = next(f for f in findings if f["code"] == "card/unlisted-file")
    assert unlisted["severity"] == "warning" and Path(renamed).name in unlisted["message"]
    assert all(f["line"] for f in findings)


def test_check_reads_a_card_written_by_hand(tmp_path: Path) -> None:
    data = _copy("study1", tmp_path)
    card = {
        "@type": "sc:Dataset",
        "name": "Study 1",
        "rai:annotationsPerItem": "Each topic was rated by 7 annotations per item.",
        "rai:annotatorDemographics": ["We recruited 12 crowdworkers on Prolific."],
    }
    out = tmp_path / "hand.json"
    out.write_text(json.dumps(card, indent=2))
    code, findings = _check(out, data)
    assert code == 1
    codes = Counter(f["code"] for f in findings)
    assert codes["card/annotations-per-item"] == 1 and codes["card/annotator-count"] == 1
    assert codes["card/unlisted-file"] == 4  # no distribution at all
    assert {f["pointer"] for f in findings if f["code"] == "card/unfilled"} == {""}


@pytest.mark.parametrize("text", ["[1, 2]", "{not json", ""])
def test_a_card_that_is_not_a_json_object_is_one_error(text: str, tmp_path: Path) -> None:
    out = tmp_path / "card.json"
    out.write_text(text)
    code, findings = _check(out, EXAMPLES / "study1" / "valid")
    assert code == 1 and [f["code"] for f in findings] == ["card/unreadable"]


@pytest.mark.parametrize("fmt", ["text", "github", "sarif"])
def test_check_reports_through_validates_reporters(fmt: str, tmp_path: Path) -> None:
    data, out, card = _card("study1", tmp_path)
    card["distribution"][0]["sha256"] = "f" * 64
    # a placeholder's text is quoted in its finding: written from the card, it must not forge a line
    card["license"] = "FILL IN: x\x1b[2J\nforged.json:1:1: error card/file-size"
    out.write_text(json.dumps(card))
    result = _invoke("card", "--check", str(out), str(data), "--format", fmt)
    assert result.exit_code == 1
    if fmt == "sarif":
        found = json.loads(result.stdout)["runs"][0]["results"]
        assert {"card/file-hash", "card/unfilled"} <= {r["ruleId"] for r in found}
    else:
        assert "card/file-hash" in result.stdout and "card/unfilled" in result.stdout
    assert "\x1b" not in result.stdout and "\nforged.json" not in result.stdout


def test_warnings_fail_under_strict(tmp_path: Path) -> None:
    data, out, _ = _card("study1", tmp_path)
    assert _check(out, data)[0] == 0
    assert _check(out, data, "--strict")[0] == 1


def test_the_card_codes_are_documented() -> None:
    import humanjudge_schema.card.codes  # noqa: F401
    from humanjudge_schema.registry import RULES

    codes = sorted(c for c in RULES if c.startswith("card/"))
    assert {
        "card/annotations-per-item",
        "card/annotator-count",
        "card/file-size",
        "card/file-hash",
        "card/record-count",
        "card/missing-file",
        "card/unfilled",
    } <= set(codes)
    for code in codes:
        doc = RULES[code]
        assert doc.summary and doc.why and doc.bad and doc.good, code


# --- what is imported ---------------------------------------------------------------------------


def test_validate_version_and_card_never_import_mlcroissant(tmp_path: Path) -> None:
    data = _copy("study1", tmp_path)
    code = (
        "import sys\nfrom humanjudge_schema.commands import main\n"
        "for args in (['--version'], ['validate', sys.argv[1]], ['card', sys.argv[1], '-o', sys.argv[2], '-q'],"
        " ['card', '--check', sys.argv[2], sys.argv[1], '-q']):\n"
        "    try:\n        main(args)\n    except SystemExit as exc:\n"
        "        card = 'humanjudge_schema.card' in sys.modules\n"
        "        print('@@', args[0], exc.code, 'mlcroissant' in sys.modules, card)\n"
    )
    out = tmp_path / "card.json"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(data), str(out)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    said = [line for line in proc.stdout.splitlines() if line.startswith("@@ ")]
    assert said == [
        "@@ --version 0 False False",
        "@@ validate 0 False False",
        "@@ card 0 False True",
        "@@ card 0 False True",
    ], proc.stderr


@pytest.mark.parametrize(
    ("stated", "cited"),
    [
        ("doi:10.1016/j.cognition.2021.104890", "https://doi.org/10.1016/j.cognition.2021.104890"),
        ("https://dx.doi.org/10.1016/j.cognition.2021.104890", "https://doi.org/10.1016/j.cognition.2021.104890"),
        ("10.1111/example.doi.12345", None),  # the template's example: coggym/paper-doi reports it
        ("https://doi.org/N/A", None),
    ],
)
def test_the_card_cites_a_paperdoi_only_where_the_rule_takes_it_for_a_doi(
    tmp_path: Path, stated: str, cited: str | None
) -> None:
    from humanjudge_schema.card import card

    data = _copy("coggym", tmp_path)
    config = json.loads((data / "config.json").read_text())
    config["paperDOI"] = stated
    (data / "config.json").write_text(json.dumps(config))
    doc = card(data, base=tmp_path, samples=20)
    if cited is None:
        assert doc["url"].startswith("FILL IN:") and stated not in doc["citeAs"]
    else:
        assert doc["url"] == cited
