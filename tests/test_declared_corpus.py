"""The six shipped declarations on their public datasets (../shared/corpus/tables): every
judgment exported (the rows equal a count made here from the file with csv or json, not through
the package), every stored aggregate recomputes (one planted wrong in a copy is found at its
line), and alpha equals the `krippendorff` package's on a question of each. Skips without the
corpus."""

from __future__ import annotations

import csv
import json
import math
import shutil
import warnings
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path
from typing import Any

import krippendorff
import pytest

from humanjudge_schema import validate
from humanjudge_schema.judgments import datasets, rows
from humanjudge_schema.judgments.stats import describe

from .conftest import corpus


def _table(name: str) -> Path:
    return corpus("tables", name)


def _counts(path: Path) -> Counter[tuple[str, str]]:
    """(role, question) -> rows, as the package exports them."""
    return Counter((r.role, r.question) for r in rows([path]))


def _copy(name: str, tmp_path: Path) -> Path:
    folder = tmp_path / name
    shutil.copytree(_table(name), folder)
    for f in folder.iterdir():
        f.chmod(0o644)
    return folder


def _found(folder: Path) -> list[tuple[str, str, int | None]]:
    return [(f.code, Path(f.file).name, f.line) for f in validate([folder]).findings if f.code.startswith("declared/")]


def _package_alpha(by_rater: dict[Any, dict[Any, Any]], level: str, domain: Iterable[Hashable] | None = None) -> float:
    """The `krippendorff` package's alpha of raters' answers (rater -> item -> value)."""
    items = sorted({i for answers in by_rater.values() for i in answers}, key=str)
    data = [[answers.get(i, math.nan) for i in items] for answers in by_rater.values()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=domain))


def _ours(path: Path, question: str) -> float | None:
    (view,) = datasets([path])
    found = {q.question: q for q in describe(view, samples=20).questions}
    return found[question].alpha


def _first(
    triples: Iterable[tuple[Any, Any, Any]], code: Callable[[Any], Any] = lambda v: v
) -> dict[Any, dict[Any, Any]]:
    """rater -> item -> the first answer, as the statistics keep a rater's repeated answers."""
    out: dict[Any, dict[Any, Any]] = {}
    for rater, item, value in triples:
        out.setdefault(rater, {}).setdefault(item, code(value))
    return out


# --- MQM, TED en-de ---------------------------------------------------------------------------


def _mqm_rows(folder: Path) -> list[dict[str, str]]:
    with open(folder / "mqm_ted_ende.tsv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def test_mqm_every_segment_score_is_exported() -> None:
    folder = _table("mqm-ted-ende")
    scores = [line.split() for line in (folder / "mqm_ted_ende.avg_seg_scores.tsv").read_text().splitlines()[1:]]
    pairs = {(r["system"], r["seg_id"], r["rater"]) for r in _mqm_rows(folder)}
    stored = [s for s in scores if s[1] != "None"]
    assert _counts(folder) == {("individual", "mqm"): len(pairs), ("aggregate", "mqm"): len(stored)}
    assert len(pairs) == 7406 and len(stored) == 7406


def test_mqm_scores_recompute_and_a_wrong_one_is_found_at_its_line(tmp_path: Path) -> None:
    folder = _copy("mqm-ted-ende", tmp_path)
    assert _found(folder) == []
    scores = folder / "mqm_ted_ende.avg_seg_scores.tsv"
    lines = scores.read_text().splitlines(keepends=True)
    at = next(k for k, line in enumerate(lines) if k > 100 and line.split()[1] not in ("None", "-0.000000"))
    system, score, seg = lines[at].split()
    lines[at] = f"{system}\t{float(score) - 1:.6f} {seg}\n"
    scores.write_text("".join(lines))
    assert _found(folder) == [("declared/mean", scores.name, at + 1)]


def test_mqm_has_no_alpha_where_the_package_has_none() -> None:
    folder = _table("mqm-ted-ende")
    by_rater = _first((r["rater"], (r["system"], r["seg_id"]), 0.0) for r in _mqm_rows(folder))
    with pytest.raises(ValueError):  # no item has two raters: nothing is pairable
        _package_alpha(by_rater, "interval")
    assert _ours(folder, "mqm") is None


# --- ConvAbuse --------------------------------------------------------------------------------


def _convabuse() -> list[dict[str, str]]:
    with open(_table("convabuse-long") / "ConvAbuseEMNLPfull.csv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _severity(row: dict[str, str]) -> int:
    (value,) = [int(k) for k in ("1", "0", "-1", "-2", "-3") if row[f"is_abuse.{k}"] == "1"]
    return value


def test_convabuse_every_answer_is_exported() -> None:
    table = _convabuse()
    chosen = {
        q: sum(any(r[c] == "1" for c in r if c.startswith(q + ".")) for r in table)
        for q in ("type", "target", "direction")
    }
    expected = {("individual", "severity"): len(table), **{("individual", q): n for q, n in chosen.items()}}
    assert _counts(_table("convabuse-long")) == expected
    assert len(table) == 12768


def test_convabuse_severity_alpha_is_the_packages() -> None:
    def item(r: dict[str, str]) -> tuple[str, ...]:
        return (r["conv_id"], r["prev_agent"], r["prev_user"], r["agent"], r["user"])

    by_rater = _first((r["annotator_id"], item(r), _severity(r)) for r in _convabuse())
    expected = _package_alpha(by_rater, "ordinal", [-3, -2, -1, 0, 1])
    assert _ours(_table("convabuse-long"), "severity") == pytest.approx(expected, abs=1e-9)


# --- LeWiDi MultiPICo -------------------------------------------------------------------------


def _lewidi(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "MP_dev.json").read_text(encoding="utf-8"))
    return data


def test_lewidi_every_annotation_and_soft_label_is_exported() -> None:
    folder = _table("lewidi-multipico-dev")
    items = _lewidi(folder)
    annotations = sum(len(v["annotations"]) for v in items.values())
    shares = sum(len(v["soft_label"]) for v in items.values())
    assert _counts(folder) == {("individual", "irony"): annotations, ("aggregate", "irony"): shares}
    assert annotations == 15178


@pytest.mark.parametrize(
    ("field", "code", "wrong"),
    [
        ("soft_label", "declared/soft-label", lambda v: {"0.0": 0.1, "1.0": 0.9}),
        ("number of annotations", "declared/count", lambda v: v + 1),
        ("annotators", "declared/raters", lambda v: v + ",Ann999"),
    ],
)
def test_lewidi_stored_aggregates_recompute_and_a_wrong_one_is_found_at_its_line(
    tmp_path: Path, field: str, code: str, wrong: Callable[[Any], Any]
) -> None:
    folder = _copy("lewidi-multipico-dev", tmp_path)
    assert [f for f in _found(folder) if f[0] != "declared/reference"] == []
    data = folder / "MP_dev.json"
    items = _lewidi(folder)
    key = list(items)[100]
    items[key][field] = wrong(items[key][field])
    text = json.dumps(items, indent=4, ensure_ascii=False)
    data.write_text(text, encoding="utf-8")
    field_line = text[: text.index(f'"{field}"', text.index(f'"{key}": {{'))].count("\n") + 1
    assert [f for f in _found(folder) if f[0] != "declared/reference"] == [(code, data.name, field_line)]


def test_lewidi_every_rater_is_described_once_the_demographics_read(tmp_path: Path) -> None:
    """The demographics file holds NaN, which is no JSON (parse/non-finite-number): nothing of it
    can be compared, and no reference is reported; with null in its place, every rater is there."""
    folder = _copy("lewidi-multipico-dev", tmp_path)
    codes = Counter(f.code for f in validate([folder]).findings)
    assert codes["parse/non-finite-number"] == 5 and codes["declared/reference"] == 0
    meta = folder / "MP_annotators_meta.json"
    meta.write_text(meta.read_text().replace("NaN", "null"))
    assert _found(folder) == []
    items = _lewidi(folder)
    key = next(iter(items))
    items[key]["annotations"]["Ann999"] = "1"
    (folder / "MP_dev.json").write_text(json.dumps(items, indent=4))
    assert [f[0] for f in _found(folder) if f[0] == "declared/reference"] == ["declared/reference"]


def test_lewidi_irony_alpha_is_the_packages() -> None:
    folder = _table("lewidi-multipico-dev")
    triples = (
        (rater, key, int(value)) for key, v in _lewidi(folder).items() for rater, value in v["annotations"].items()
    )
    expected = _package_alpha(_first(triples), "nominal")
    assert _ours(folder, "irony") == pytest.approx(expected, abs=1e-9)


# --- SQuALITY ---------------------------------------------------------------------------------


def _squality(folder: Path) -> list[dict[str, Any]]:
    lines = (folder / "all-responses.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _reviews(folder: Path) -> list[tuple[tuple[str, str, str], dict[str, Any]]]:
    return [
        ((p["passage-id"], q, s), review)
        for p in _squality(folder)
        for q, systems in p["questions"].items()
        for s, response in systems.items()
        for review in response["reviews"]
    ]


def test_squality_every_rating_rank_and_mean_is_exported() -> None:
    folder = _table("squality-human-eval")
    reviews = _reviews(folder)
    expected: Counter[tuple[str, str]] = Counter()
    for _, review in reviews:
        for dimension in ("correctness", "selection", "overall"):
            expected["individual", dimension] += f"{dimension}-rating" in review
            expected["individual", f"{dimension}-rank"] += f"{dimension}-rank" in review
    for p in _squality(folder):
        for systems in p["questions"].values():
            for response in systems.values():
                for dimension in ("correctness", "selection", "overall"):
                    expected["aggregate", dimension] += f"{dimension}-rating" in response["overall"]
    assert _counts(folder) == expected
    assert sum(n for (role, _), n in expected.items() if role == "individual") == 5400


def test_squality_means_recompute_and_a_wrong_one_is_found_at_its_line(tmp_path: Path) -> None:
    folder = _copy("squality-human-eval", tmp_path)
    assert _found(folder) == []
    data = folder / "all-responses.jsonl"
    lines = data.read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(lines[7])
    record["questions"]["2"]["bart-dpr"]["overall"]["selection-rating"] += 10
    lines[7] = json.dumps(record) + "\n"
    data.write_text("".join(lines), encoding="utf-8")
    assert _found(folder) == [("declared/mean", data.name, 8)]


def test_squality_overall_alpha_is_the_packages() -> None:
    folder = _table("squality-human-eval")
    triples = ((r["worker_id"], item, r["overall-rating"]) for item, r in _reviews(folder))
    expected = _package_alpha(_first(triples), "interval")
    assert _ours(folder, "overall") == pytest.approx(expected, abs=1e-9)


# --- PandaLM ----------------------------------------------------------------------------------


def test_pandalm_every_preference_is_exported_and_its_alpha_is_the_packages() -> None:
    folder = _table("pandalm-testset")
    records = json.loads((folder / "testset-v1.json").read_text(encoding="utf-8"))
    triples = [(k, r["idx"], r[f"annotator{k}"]) for r in records for k in (1, 2, 3) if f"annotator{k}" in r]
    assert _counts(folder) == {("individual", "preference"): len(triples)} == {("individual", "preference"): 2997}
    expected = _package_alpha(_first(triples), "nominal")
    assert _ours(folder, "preference") == pytest.approx(expected, abs=1e-9)


# --- Get-Another-Label AdultContent2 ----------------------------------------------------------


def _gal(name: str) -> list[list[str]]:
    text = (_table("gal-adultcontent2-triplets") / name).read_text(encoding="utf-8")
    return [line.split("\t") for line in text.splitlines() if line]


def test_gal_every_label_and_gold_label_is_exported() -> None:
    folder = _table("gal-adultcontent2-triplets")
    assert _counts(folder) == {
        ("individual", "rating"): len(_gal("labels.txt")),
        ("aggregate", "rating"): len(_gal("gold.txt")),
    }
    assert len(_gal("labels.txt")) == 92721


def test_gal_repeated_labels_are_found_and_alpha_is_the_packages() -> None:
    folder = _table("gal-adultcontent2-triplets")
    labels = _gal("labels.txt")
    pairs = Counter((w, i) for w, i, _ in labels)
    repeats = sum(n - 1 for n in pairs.values() if n > 1)
    found = [f for f in validate([folder], max_per_code=0).findings if f.code == "declared/one-answer"]
    assert len(found) == repeats == 2922
    codes = {"G": 0, "P": 1, "R": 2, "X": 3}  # the package counts numbers; nominal alpha is the same
    expected = _package_alpha(_first(((w, i, label) for w, i, label in labels), codes.__getitem__), "nominal")
    assert _ours(folder, "rating") == pytest.approx(expected, abs=1e-9)
