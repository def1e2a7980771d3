"""The tidy view of the judgments (CogGym, TextJudge and what every format shares), `humanjudge
export` and `humanjudge stats`: row counts against the formats' own definitions and independent
counts, pointers that lead back to the value, alpha against the `krippendorff` package."""

from __future__ import annotations

import csv
import io
import json
import math
import random
import subprocess
import sys
import tracemalloc
import warnings
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest

from humanjudge_schema import catalog, judgments, validate
from humanjudge_schema.config import Config
from humanjudge_schema.engine import Context
from humanjudge_schema.finding import split_pointer
from humanjudge_schema.formats.coggym.model import load_experiment
from humanjudge_schema.judgments.export import as_text
from humanjudge_schema.judgments.stats import dataset_stats, describe
from humanjudge_schema.judgments.view import COLUMNS, FIELDS
from humanjudge_schema.kinds import survey

from .conftest import ROOT, corpus

EXAMPLES = ROOT / "examples"


def _resolve(data: Any, ptr: str) -> Any:
    for token in split_pointer(ptr):
        data = data[int(token)] if isinstance(data, list) else data[token]
    return data


def _units(path: Path) -> list[Any]:
    return survey([path], skip_empty=True).units


# --- CogGym: exactly judgment_count's ratings --------------------------------------------------


def _coggym_checked(path: Path) -> None:
    units = [u for u in _units(path) if u.family == "coggym"]
    assert units
    accepted = 0
    for unit in units:
        view = catalog.get("coggym").view(unit)
        every = list(view.rows())
        rows = [r for r in every if r.role == "individual"]
        exp = load_experiment(unit, Context(Config(), root=unit.root))
        mean = json.loads(exp.mean.path.read_bytes()) if exp.mean else {}
        for row in every[len(rows) :]:  # the stored aggregates come after, and are the mean file's values
            assert row.role == "aggregate" and (row.rater, row.rater_kind) == ("", "none"), unit.root
            assert row.file.endswith("human_data_mean.json") and _resolve(mean, row.pointer) == row.value
        assert len(rows) == exp.ratings.tags, unit.root  # the model's count of judgment_count's ratings
        codes = {f.code for f in validate([unit.root]).findings}
        if "judgment_count" in exp.ind_data and not codes & {"coggym/judgment-count", "coggym/not-checked"}:
            # the validator accepts the stated count: the rows are exactly that many
            assert len(rows) == exp.ind_data["judgment_count"] or exp.ratings.others, unit.root
            accepted += 1
        ind = json.loads(exp.ind.path.read_bytes()) if exp.ind else {}
        for row in rows[:: max(1, len(rows) // 50)]:
            stored = _resolve(ind, row.pointer)
            if view.questions[row.question].level == "interval":
                assert stored == row.value
            assert (
                row.dataset == str(unit.root.relative_to(Path.cwd())) if unit.root.is_relative_to(Path.cwd()) else True
            )
    assert accepted


def test_coggym_rows_are_the_judgment_count_of_the_example() -> None:
    _coggym_checked(EXAMPLES / "coggym" / "valid")
    view = catalog.get("coggym").view(_units(EXAMPLES / "coggym" / "valid")[0])
    rows = [r for r in view.rows() if r.role == "individual"]
    by_question = defaultdict(list)
    for row in rows:
        by_question[row.question].append(row)
    # a slider clicked three times: one rating per click, the click as option
    assert {r.option for r in by_question["speed_estimates"]} == {1, 2, 3}
    # a multi-slider's rating: one per label value, the label as option
    assert {type(r.option) for r in by_question["statement_rating"]} == {str}
    # a multi-choice answer is its option index; a ranking the indices from first to last
    assert all(isinstance(r.value, int) for r in by_question["agent_goal"])
    assert all(isinstance(r.value, list) for r in by_question["goal_ranking"])
    assert view.questions["agent_goal"].level == "nominal" and view.questions["speed_estimates"].level == "interval"


def test_coggym_rows_are_the_judgment_count_in_the_corpus() -> None:
    _coggym_checked(corpus("coggym"))


def _clicks_folder(tmp_path: Path) -> tuple[Path, dict[str, Any], str]:
    """The CogGym example with a single slider of two clicks, one response without clicks: the
    folder, the slider's query and its stimulus."""
    folder = tmp_path / "exp"
    (folder).mkdir()
    source = EXAMPLES / "coggym" / "valid"
    for f in source.iterdir():
        if f.is_file():
            (folder / f.name).write_bytes(f.read_bytes())
    trials = [json.loads(line) for line in (folder / "trial.jsonl").read_text().splitlines() if line.strip()]
    slider = next(q for t in trials for q in t["queries"] if q["type"] == "single-slider")
    slider["slider_config"]["num_clicks"] = 2
    (folder / "trial.jsonl").write_text("".join(json.dumps(t) + "\n" for t in trials))
    ind = json.loads((folder / "human_data_ind.json").read_text())
    sid = next(t["id"] for t in trials if slider in t["queries"])
    ind[sid][slider["tag"]] = [[1, 2], None, [3, 4]]
    (folder / "human_data_ind.json").write_text(json.dumps(ind))
    return folder, slider, sid


def test_coggym_clicks_are_one_row_each(tmp_path: Path) -> None:
    folder, slider, sid = _clicks_folder(tmp_path)
    rows = [
        r for r in judgments.rows([folder]) if r.question == slider["tag"] and r.item == sid and r.role == "individual"
    ]
    assert [(r.rater, r.option, r.value, r.pointer) for r in rows] == [
        (0, 1, 1, f"/{sid}/{slider['tag']}/0/0"),
        (0, 2, 2, f"/{sid}/{slider['tag']}/0/1"),
        (1, "", None, f"/{sid}/{slider['tag']}/1"),
        (2, 1, 3, f"/{sid}/{slider['tag']}/2/0"),
        (2, 2, 4, f"/{sid}/{slider['tag']}/2/1"),
    ]


# --- TextJudge: exactly the individual scores --------------------------------------------------


def _scores(data: dict[str, Any]) -> int:
    return sum(
        len(s["individual_human_scores"])
        for inst in data["instances"]
        for s in inst["annotations"].values()
        if isinstance(s.get("individual_human_scores"), list)
    )


def _aggregates(data: dict[str, Any]) -> int:
    return sum(
        1
        for inst in data["instances"]
        for s in inst["annotations"].values()
        for name in ("mean_human", "majority_human")
        if not isinstance(s.get(name, []), (dict, list))
    )


def _textjudge_checked(path: Path) -> int:
    checked = 0
    for unit in _units(path):
        if unit.family != "textjudge" or unit.files[0].read_bytes().startswith(b"version https://git-lfs"):
            continue
        data = json.loads(unit.files[0].read_bytes())
        every = list(catalog.get("textjudge").view(unit).rows())
        rows = [r for r in every if r.role == "individual"]
        assert len(rows) == _scores(data), unit.root
        assert {r.rater_kind for r in rows} <= {"position"}
        stored = [r for r in every if r.role == "aggregate"]
        assert len(stored) == _aggregates(data), unit.root
        for row in stored[:: max(1, len(stored) // 40)]:
            assert _resolve(data, row.pointer) == row.value and (row.rater, row.rater_kind) == ("", "none")
            assert row.pointer.rsplit("/", 1)[1] in ("mean_human", "majority_human")
        for row in rows[:: max(1, len(rows) // 40)]:
            assert _resolve(data, row.pointer) == row.value
            assert data["instances"][int(split_pointer(row.pointer)[1])]["id"] == row.item
        checked += 1
    return checked


def test_textjudge_rows_are_the_individual_scores() -> None:
    assert _textjudge_checked(EXAMPLES / "textjudge") == 2


def test_textjudge_rows_are_the_individual_scores_in_the_corpus() -> None:
    assert _textjudge_checked(corpus("judgebench")) >= 10


def _big_dataset(tmp_path: Path, instances: int = 40_000) -> Path:
    decl = {"metric": "fluency", "category": "graded", "worst": 1, "best": 5, "prompt": "Rate: {{ instance }}"}
    data = {
        "dataset": "big",
        "dataset_url": "",
        "expert_annotator": "false",
        "original_prompt": False,
        "annotations": [decl],
        "instances": [
            {
                "id": i,
                "instance": f"sentence {i}",
                "annotations": {"fluency": {"mean_human": 3, "individual_human_scores": [2, 3, 4]}},
            }
            for i in range(instances)
        ],
    }
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data))
    return path


def test_a_large_dataset_is_read_in_bounded_memory(tmp_path: Path) -> None:
    path = _big_dataset(tmp_path)
    size = path.stat().st_size
    assert size > 4 * 1024 * 1024  # read in runs, not whole
    tracemalloc.start()
    roles = Counter(row.role for row in judgments.rows([path]))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert roles == {"individual": 120_000, "aggregate": 40_000}
    # Parsed whole, these instances take about ten times the file's size; run by run, the file
    # and a few runs of them.
    assert peak < 3 * size, (peak, size)


# --- every format: the shape, export and stats -------------------------------------------------


def test_every_format_declares_a_view_and_every_example_has_judgments() -> None:
    for name, fmt in catalog.formats().items():
        # a shipped declaration's data is the corpus (tests/test_declared_corpus.py)
        if fmt.judgments is None or fmt.declared_by is not None:
            continue
        views = [v for v in judgments.datasets([EXAMPLES / name / "valid"])]
        # the example of the format that reads declarations is a format it declares
        assert views and all(v.format == name or fmt.declares is not None for v in views)
        assert sum(1 for v in views for _ in v.rows()) > 0, name


def _cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "humanjudge_schema", *args], capture_output=True, timeout=300)


def test_export_writes_every_row_in_every_format(tmp_path: Path) -> None:
    expected = list(judgments.rows([EXAMPLES]))
    as_csv = _cli("export", str(EXAMPLES))
    assert as_csv.returncode == 1  # the broken examples have errors: they go to stderr
    assert b"error coggym/mean-value" in as_csv.stderr and b"error" not in as_csv.stdout[:200]
    table = list(csv.DictReader(io.StringIO(as_csv.stdout.decode())))
    assert len(table) == len(expected) and list(table[0]) == list(COLUMNS)
    built_in = {name for name, f in catalog.formats().items() if f.declared_by is None and f.declares is None}
    assert {r["format"] for r in table} == built_in - {"toy"} | {"example-sentiment", "example-sentiment-broken"}
    lines = _cli("export", str(EXAMPLES / "textjudge" / "valid"), "--to", "jsonl")
    assert lines.returncode == 0
    assert lines.stderr == b"wrote 17 judgments and 8 stored aggregates from 1 dataset to standard output\n"
    first = json.loads(lines.stdout.splitlines()[0])
    assert first["value"] == 5 and first["rater"] == 0 and first["line"] is None
    # without --to, the extension of -o says the format; else CSV
    valid = EXAMPLES / "coggym" / "valid"
    heads = (("rows.jsonl", b'{"format":"coggym"'), ("rows.CSV", b"format,dataset"), ("rows", b"format,"))
    for name, head in heads:
        assert _cli("export", str(valid), "-o", str(tmp_path / name)).returncode == 0
        assert (tmp_path / name).read_bytes().startswith(head), name
    out = tmp_path / "rows.parquet"
    pq = pytest.importorskip("pyarrow.parquet")
    assert _cli("export", str(valid), "-o", str(out)).returncode == 0
    assert pq.read_table(out).num_rows == sum(1 for _ in judgments.rows([valid]))
    assert _cli("export", str(valid), "--to", "csv", "-o", str(out), "--force").returncode == 0  # said: CSV it is
    assert out.read_bytes().startswith(b"format,dataset")


def test_export_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    missing = _cli("export", str(tmp_path / "nothing"))
    assert missing.returncode == 2 and b"no such file or folder" in missing.stderr and not missing.stdout
    parquet = _cli("export", str(EXAMPLES), "--to", "parquet")
    assert parquet.returncode == 2 and b"--to parquet needs -o FILE" in parquet.stderr
    target = EXAMPLES / "textjudge" / "valid" / "dataset.json"
    before = target.read_bytes()
    for to in ("csv", "jsonl", "parquet"):
        into_input = _cli("export", str(target.parent), "--to", to, "-o", str(target))
        assert into_input.returncode == 2 and b"which the output is computed from" in into_input.stderr
        assert target.read_bytes() == before


def _krippendorff(view: Any, question: str, level: str) -> float | None:
    """The `krippendorff` package's alpha over a raters x items matrix built from the rows."""
    krippendorff = pytest.importorskip("krippendorff")
    units: dict[Any, list[Any]] = defaultdict(list)
    for row in view.rows():
        if row.question == question and row.value is not None and row.role == "individual":
            units[(row.item, row.option)].append(row.value)
    width = max(map(len, units.values()))
    matrix = [[values[k] if k < len(values) else math.nan for values in units.values()] for k in range(width)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level))


def test_alpha_agrees_with_the_krippendorff_package_on_real_data() -> None:
    compared = 0
    for unit in _units(corpus("coggym")):
        view = catalog.get("coggym").view(unit)
        for q in dataset_stats(view, samples=20).to_json()["questions"]:
            if q["level"] == "interval" and q["alpha"] is not None and q["items"] >= 5:
                assert q["alpha"] == pytest.approx(_krippendorff(view, q["question"], "interval"), abs=1e-9)
                compared += 1
    for unit in _units(corpus("judgebench")):
        if unit.files[0].read_bytes().startswith(b"version https://git-lfs"):
            continue
        view = catalog.get("textjudge").view(unit)
        for q in dataset_stats(view, samples=20).to_json()["questions"]:
            if q["level"] in ("nominal", "ordinal", "interval") and q["alpha"] is not None and q["items"] >= 5:
                if q["level"] != "nominal" and not all(
                    isinstance(k, str) and _is_number(k) for k in q["distribution"].get("counts", {"0": 0})
                ):
                    continue
                assert q["alpha"] == pytest.approx(_krippendorff(view, q["question"], q["level"]), abs=1e-9), (
                    unit.root,
                    q["question"],
                )
                compared += 1
    assert compared >= 10


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_stats_json_has_the_documented_shape_and_is_reproducible() -> None:
    first = _cli("stats", str(EXAMPLES / "textjudge" / "valid"), "--format", "json")
    again = _cli("stats", str(EXAMPLES / "textjudge" / "valid"), "--format", "json")
    assert first.returncode == 0 and first.stdout == again.stdout  # the bootstrap is seeded
    data = json.loads(first.stdout)
    (ds,) = data["datasets"]
    assert ds["format"] == "textjudge" and ds["dataset"].endswith("dataset.json")
    fluency = next(q for q in ds["questions"] if q["question"] == "fluency")
    assert set(fluency) >= {
        "question",
        "level",
        "items",
        "judgments",
        "raters_per_item",
        "alpha",
        "alpha_ci",
        "distribution",
    }
    assert fluency["level"] == "ordinal" and fluency["judgments"] == 9 and fluency["items"] == 3
    assert fluency["raters_per_item"] == {"min": 3, "median": 3, "max": 3}
    lo, hi = fluency["alpha_ci"]
    assert lo <= fluency["alpha"] <= hi
    assert sum(fluency["distribution"]["counts"].values()) == 9
    assert ds["quality"] == []  # and the quality/ checks find nothing in the example


def test_stats_text_names_every_question() -> None:
    out = _cli("stats", str(EXAMPLES / "coggym" / "valid"))
    assert out.returncode == 0
    text = out.stdout.decode()
    for question in ("agent_goal", "goal_confidence", "speed_estimates", "strategy_description"):
        assert f"  {question}" in text
    assert "alpha" in text.splitlines()[1]


def test_the_python_api_gives_one_role_when_asked() -> None:
    every = list(judgments.rows([EXAMPLES / "textjudge" / "valid"]))
    mine = list(judgments.rows([EXAMPLES / "textjudge" / "valid"], role="individual"))
    stored = list(judgments.rows([EXAMPLES / "textjudge" / "valid"], role="aggregate"))
    assert (len(mine), len(stored)) == (17, 8) and Counter(mine + stored) == Counter(every)
    assert {r.role for r in mine} == {"individual"} and {r.rater for r in stored} == {""}


def test_the_python_api_is_lazy_and_offers_a_dataframe() -> None:
    rows = judgments.rows([EXAMPLES / "textjudge" / "valid"])
    assert iter(rows) is rows  # a generator: nothing is read before it is asked for
    first = next(rows)
    assert first.format == "textjudge" and first.question == "fluency"
    pd = pytest.importorskip("pandas")
    frame = judgments.dataframe([EXAMPLES / "textjudge" / "valid"])
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == list(COLUMNS)  # as the export
    scores = frame[frame.role == "individual"]
    assert len(scores) == 17 and scores.groupby("question").size().to_dict() == {"fluency": 9, "grammatical": 8}
    assert frame.role.value_counts().to_dict() == {"individual": 17, "aggregate": 8}


# --- the quality checks in validate --------------------------------------------------------------

QUALITY_CASE = ROOT / "tests" / "cases" / "textjudge" / "invalid" / "quality-below-chance"


def test_quality_checks_run_when_asked_and_only_then() -> None:
    asked = _cli("validate", "--isolated", "--quality", "--format", "json", str(QUALITY_CASE))
    plain = _cli("validate", "--isolated", "--format", "json", str(QUALITY_CASE))
    configured = _cli("validate", "--format", "json", str(QUALITY_CASE))  # its humanjudge.toml says quality = true
    codes = [[f["code"] for f in json.loads(p.stdout)["findings"]] for p in (asked, plain, configured)]
    assert codes == [["quality/below-chance"], [], ["quality/below-chance"]]
    finding = json.loads(asked.stdout)["findings"][0]
    assert finding["severity"] == "warning" and finding["line"] == 23 and "alpha (ordinal) is -" in finding["message"]
    assert asked.returncode == plain.returncode == 0  # warnings: the exit code is still 0


def test_quality_findings_on_a_streamed_format_have_their_line(tmp_path: Path) -> None:
    import gzip

    folder = tmp_path / "study"
    folder.mkdir()
    for f in (EXAMPLES / "study1" / "valid").iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    tasks = folder / "study1_tasks.jsonl.gz"
    records = [json.loads(line) for line in gzip.decompress(tasks.read_bytes()).splitlines() if line.strip()]
    result = validate([folder], quality=True)
    assert not [f for f in result.findings if f.code.startswith("quality/")]  # the example is fine
    (folder / "humanjudge.toml").write_text("quality = 1\n")
    bad = _cli("validate", str(folder))
    assert bad.returncode == 2 and b"quality must be true or false" in bad.stderr
    assert records  # the example has tasks to rate


def _random_batches(rng: random.Random, trial: int) -> list[Any]:
    """(rows, column batch) pairs of random rows; some columns shared by the whole batch."""
    from humanjudge_schema.judgments.view import Batch

    pieces = ["a", "b c", "x,y", 'q"r', "line\nbreak", "cr\r", "", " lead", "é", "1.5", "ünï\u2028"]
    batches = []
    for _ in range(rng.randint(1, 3)):
        rows = []
        for r in range(rng.randint(1, 20)):
            value = rng.choice([rng.choice(pieces), rng.randint(-5, 100), rng.random() * 10, None, True, [1, 0]])
            if trial % 2:
                value = rng.choice([rng.randint(1, 5), rng.random(), "label"])  # columns that need no quoting
            dataset = rng.choice(["ds", "d,s"]) if trial % 5 == 0 else "ds"
            item = rng.choice([rng.randint(0, 9), rng.choice(pieces)]) if trial % 3 == 0 else r
            line = r if trial % 2 else rng.choice([None, r])
            kinds = (rng.choice(["individual", "aggregate"]), rng.choice(["person", "position", "none"]))
            rows.append(("fmt", dataset, item, rng.randint(0, 5), "q1", "", value, "file", f"/p/{r}", line, *kinds))
        batches.append((rows, _shared(Batch.of_rows(rows), rng)))
    return batches


def _shared(batch: Any, rng: random.Random) -> Any:
    """The batch with some of the columns that hold one value given once."""
    from humanjudge_schema.judgments.view import Batch

    batch = Batch({}, {name: batch.rows(name) for name in judgments.FIELDS})  # every column a list
    for name in judgments.FIELDS:
        column = batch.lists[name]
        if len(batch.lists) > 1 and column.count(column[0]) == len(column) and rng.random() < 0.7:
            batch = Batch({**batch.same, name: column[0]}, {k: v for k, v in batch.lists.items() if k != name})
    return batch


def _typed(value: Any, csv: bool = False) -> tuple[Any, Any, Any]:
    """The typed columns of a value, by their definition (as the csv module is given them)."""
    number = value if type(value) in (int, float) else None
    flag = value if type(value) is bool else None
    text = value if type(value) is str else None
    return (number, None if flag is None else as_text(flag), text) if csv else (number, flag, text)


def test_csv_batches_are_written_as_the_csv_module_writes_them() -> None:
    """Columns are joined in C; the bytes must be the csv module's, quoting included (a cell with
    a carriage return is quoted too, which the csv module of Python 3.11 does not do with "\\n"
    lines), and read back as the cells."""
    from humanjudge_schema.judgments.export import as_text, write_csv

    rng = random.Random(3)
    shared = quoted = 0
    for trial in range(300):
        batches = _random_batches(rng, trial)
        ours = io.StringIO()
        assert write_csv([b for _, b in batches], ours) == sum(len(rows) for rows, _ in batches)
        reference = io.StringIO()
        writer = csv.writer(reference, lineterminator="\n")
        writer.writerow(COLUMNS)
        cells = [(*row[:6], as_text(row[6]), *row[7:], *_typed(row[6], True)) for rows, _ in batches for row in rows]
        writer.writerows(cells)
        if "\r" not in reference.getvalue():
            assert ours.getvalue() == reference.getvalue(), trial
        back = list(csv.reader(io.StringIO(ours.getvalue(), newline="")))
        assert back[1:] == [["" if c is None else str(c) for c in row] for row in cells], trial
        shared += any(b.same for _, b in batches)
        quoted += not all(_needs_no_quoting(rows) for rows, _ in batches)
    assert shared > 100 and quoted > 50  # both kinds of column, and cells to quote, were written


def test_jsonl_batches_are_one_orjson_object_per_row() -> None:
    from humanjudge_schema.judgments.export import write_jsonl

    rng = random.Random(5)
    for trial in range(200):
        batches = _random_batches(rng, trial)
        ours = io.BytesIO()
        assert write_jsonl([b for _, b in batches], ours) == sum(len(rows) for rows, _ in batches)
        rows = [row for rows, _ in batches for row in rows]
        objects = (dict(zip(COLUMNS, (*row, *_typed(row[6])), strict=True)) for row in rows)
        assert ours.getvalue() == b"".join(orjson.dumps(o) + b"\n" for o in objects)
        assert [tuple(json.loads(line).values())[: len(FIELDS)] for line in ours.getvalue().splitlines()] == rows


def test_jsonl_writes_integers_beyond_64_bits() -> None:
    """orjson writes no integer beyond 64 bits; such a score is still written, as JSON has it."""
    from humanjudge_schema.judgments.export import write_jsonl
    from humanjudge_schema.judgments.view import Batch

    rows = [("fmt", "ds", 1, 0, "q", "", 2**70, "f", "/0", None), ("fmt", "ds", 2, 0, "q", "", "é", "f", "/1", None)]
    out = io.BytesIO()
    write_jsonl([Batch.of_rows(rows)], out)
    assert [json.loads(line)["value"] for line in out.getvalue().splitlines()] == [2**70, "é"]
    assert b'"value":1180591620717411303424,' in out.getvalue()


def _needs_no_quoting(batch: list[tuple[Any, ...]]) -> bool:
    """Whether a batch has no cell the csv module would quote or write empty."""
    return all(
        c is not None and not (isinstance(c, str) and set(c) & set(',"\r\n')) and not isinstance(c, (bool, list))
        for row in batch
        for c in row
    )


def _gathered_row_by_row(view: Any, rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    """What one pass keeps per question, computed a row at a time from its definition: aggregate
    rows are counted and nothing more; where raters are persons, only a rater's answer to an item
    that counts is kept (`first_answers`; the others still found where a finding's judgment is
    looked up), and a rater and item with no answer are one missing answer."""
    from humanjudge_schema.judgments.gather import first_answers

    rated = [view.persons and r[3] != "" and r[10] != "aggregate" for r in rows]
    counts = first_answers(  # (question, rater, unit) -> the row of the answer that counts
        ((r[4], r[3], (r[2], r[5])), r[6]) if p else (None, None) for r, p in zip(rows, rated, strict=True)
    )
    out: dict[str, Any] = {}
    for k, (_, _, item, rater, question, option, value, file, pointer, line, role, _) in enumerate(rows):
        where = (file, pointer, line, question)
        if question not in out:
            declared = view.questions.get(question)
            level = declared.level if declared else None
            out[question] = {"level": level, "first": None, "counts": {}, "missing": 0, "unit_first": {}}
            out[question] |= {"by_rater": {}, "rater_first": {}, "aggregates": 0, "pairs": set()}
        q = out[question]
        if role == "aggregate":
            q["aggregates"] += 1
            continue
        q["first"] = q["first"] or where
        unit = (item, option)
        if value is not None:
            q["unit_first"].setdefault(unit, where)
            if view.persons and rater != "":
                q["rater_first"].setdefault(rater, where)
        if rated[k]:
            q["pairs"].add((rater, unit))
            if counts.get((question, rater, unit)) != k:
                continue
        if value is None:
            q["missing"] += 1
            continue
        value = tuple(value) if isinstance(value, list) else value
        if not (isinstance(value, float) and math.isnan(value)):
            q["counts"].setdefault(unit, {}).setdefault(value, 0)
            q["counts"][unit][value] += 1
        if rated[k]:
            q["by_rater"].setdefault(rater, {})[unit] = value
    for question, rater, unit in counts:
        out[question]["pairs"].discard((rater, unit))
    for q in out.values():
        q["missing"] += len(q["pairs"])  # a rater and item with no answer: one missing answer
    return out


@pytest.mark.parametrize("raters", [True, False, "person", "position", "none"])
@pytest.mark.parametrize(
    "chunk, long", [(None, None), (1, 1), (7, 10**9)], ids=["as-is", "row-chunks-slices", "chunks-sorted"]
)
def test_one_pass_over_column_batches_keeps_what_a_row_by_row_pass_keeps(
    raters: Any, chunk: int | None, long: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pass counts a batch's columns in C; what it keeps, in order, must be the definition's:
    whether values are coded a row or 7 rows at a time (gather._CHUNK) and a batch's questions
    cut into runs always or never (view.LONG)."""
    from humanjudge_schema.judgments import gather, view
    from humanjudge_schema.judgments.gather import Gathered
    from humanjudge_schema.judgments.view import Batch, Judgments, Question

    if chunk is not None:
        monkeypatch.setattr(gather, "_CHUNK", chunk)
        monkeypatch.setattr(view, "LONG", long)
        monkeypatch.setattr(view, "RUNS", 0 if long == 1 else 16)

    rng = random.Random(11)
    for trial in range(60):
        questions = {"q1": Question("q1", "nominal"), "q2": Question("q2", "interval")}
        rows = [
            (
                "fmt",
                "ds",
                rng.choice([0, 1, 2, "x"]),
                rng.choice([0, 1, 2, 3, ""]),
                rng.choice(["q1", "q2", "q3"]),
                rng.choice(["", 1, "label"]),
                rng.choice([None, 1, 1.0, 2, True, "a", [0, 1], math.nan, 2.5]),
                rng.choice(["f1", "f2"]) if trial % 2 else "f1",
                f"/{r}",
                rng.choice([None, r]),
                rng.choice(["individual", "individual", "aggregate"]),
                "",
            )
            for r in range(rng.randint(1, 120))
        ]
        cut = sorted(rng.sample(range(len(rows) + 1), 2))
        pieces = [rows[: cut[0]], rows[cut[0] : cut[1]], rows[cut[1] :]]
        batches = [_shared(Batch.of_rows(p), rng) for p in pieces if p]
        view = Judgments("fmt", "ds", questions=questions, raters=raters, batches=lambda b=batches: iter(b))
        got = Gathered.of(view)
        want = _gathered_row_by_row(view, rows)
        assert list(got.questions) == list(want), trial
        keys = []
        for name, q in got.questions.items():
            w = want[name]
            assert (q.level, q.missing, q.aggregates) == (w["level"], w["missing"], w["aggregates"]), trial
            per_item = {unit: dict(counts) for unit, counts in q.tally.per_item().items()}
            assert per_item == w["counts"] and list(per_item) == list(w["counts"]), trial
            assert list(q.by_rater.items()) == list(w["by_rater"].items()), trial
            assert [list(a) for a in q.by_rater.values()] == [list(a) for a in w["by_rater"].values()], trial
            keys += [("question", name)] if w["first"] else []
            keys += [("item", name, u) for u in w["unit_first"]]
            keys += [("rater", name, r) for r in w["rater_first"]]
        # where each judgment a finding may be about is: located afterwards, in one pass
        where = {key: tuple(place) for key, place in got.locate(keys).items()}
        expected = {("question", name): w["first"] for name, w in want.items() if w["first"]}
        expected |= {("item", name, u): x for name, w in want.items() for u, x in w["unit_first"].items()}
        expected |= {("rater", name, r): x for name, w in want.items() for r, x in w["rater_first"].items()}
        assert where == expected, trial
        assert got.locate([("rater", "q1", "nobody")]) == {}  # a key of no judgment is not found


def test_a_rater_counted_twice_is_found_and_the_same_values_on_other_items_are_not() -> None:
    """Raters with the same values as often (one a shuffle of another) are compared item by item;
    only the copy is reported, naming the rater it copies, at its first answer."""
    from humanjudge_schema.judgments.gather import Gathered
    from humanjudge_schema.judgments.quality import check
    from humanjudge_schema.judgments.view import Batch, Judgments, Question

    rng = random.Random(5)
    answers = {f"w{r}": [rng.randint(1, 5) for _ in range(30)] for r in range(6)}
    answers["copy"] = list(answers["w2"])
    answers["shuffled"] = rng.sample(answers["w3"], 30)
    assert answers["shuffled"] != answers["w3"]
    rows = [
        ("fmt", "ds", item, rater, "q", "", value, "f", f"/{rater}/{item}", None)
        for rater, values in answers.items()
        for item, value in enumerate(values)
    ]
    questions = {"q": Question("q", "ordinal")}
    view = Judgments("fmt", "ds", questions=questions, batches=lambda: iter([Batch.of_rows(rows)]))
    found = [(code, where.pointer, message) for code, where, message in check(view, Gathered.of(view))]
    assert found[0][0] == "quality/below-chance"  # random answers: at chance, as they are
    assert found[1:] == [
        (
            "quality/repeated-rater",
            "/copy/0",
            "rater 'copy' gives the same 30 answers as rater 'w2', item for item: one participant counted twice?",
        )
    ]


def test_a_question_whose_values_have_no_order_says_why_it_has_no_alpha(tmp_path: Path) -> None:
    """A text score among the numbers of a graded metric: no alpha, and stats, the report and the
    job summary say why, instead of a blank or a wrong reason."""
    from humanjudge_schema.report.github import questions_table

    data = json.loads((EXAMPLES / "textjudge" / "valid" / "dataset.json").read_bytes())
    data["instances"][1]["annotations"]["fluency"]["individual_human_scores"][0] = "fluent\nenough"
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps(data))
    first = data["instances"][0]["annotations"]["fluency"]["individual_human_scores"][0]
    why = f"the values mix kinds that have no common order (number {first}, str 'fluent\\nenough')"
    text = _cli("stats", str(path)).stdout.decode()
    assert f"  fluency: no alpha: {why}\n" in text  # the line break shown, not made
    found = json.loads(_cli("stats", str(path), "--format", "json").stdout)["datasets"]
    fluency = next(q for q in found[0]["questions"] if q["question"] == "fluency")
    assert (fluency["alpha"], fluency["note"]) == (None, why)
    (view,) = judgments.datasets([path])
    summary = questions_table([describe(view, samples=20)])
    assert "| none: the values mix kinds that have no common order (number" in summary
    page = tmp_path / "report.html"
    assert _cli("report", str(path), "-o", str(page)).returncode == 1  # the score is an error
    assert "alpha: not computed: the values mix kinds that have no common order" in page.read_text()


@pytest.mark.parametrize(
    ("fmt", "setting", "code"),
    [
        ("textjudge", "max-document-bytes = 200", "parse/too-large"),
        ("coggym", "max-document-bytes = 200", "parse/too-large"),
        ("study1", "[study1]\nmax-decompressed-bytes = 200", "parse/decompressed-too-large"),
    ],
)
def test_the_view_reads_a_dataset_with_its_own_configuration(tmp_path: Path, fmt: str, setting: str, code: str) -> None:
    """A limit the dataset's configuration sets holds for its judgments as for its validation (the
    views read with the defaults before, so a limit raised above them gave no rows, silently, for
    files validate read): here lowered, so that validate refuses the file and the view reads none."""
    import shutil

    folder = tmp_path / fmt
    shutil.copytree(EXAMPLES / fmt / "valid", folder)
    assert sum(1 for _ in judgments.rows([folder])) > 0
    (folder / "humanjudge.toml").write_text(setting + "\n")
    assert code in {f.code for f in validate([folder]).findings}
    assert list(judgments.rows([folder])) == []


def test_rows_given_one_at_a_time_share_only_columns_of_one_text() -> None:
    """Batch.of_rows gives a column of one text (or None) once; numbers equal by == but not alike
    (1 and True, 0.0 and -0.0) and the values stay one per row."""
    from humanjudge_schema.judgments.view import Batch

    rows = [
        ("f", "d", 1, "r", "q", "", "same", "file", "/0", None),
        ("f", "d", True, "r", "q", "", "same", "file", "/1", None),
    ]
    batch = Batch.of_rows(rows)
    assert batch.same == {
        "format": "f",
        "dataset": "d",
        "rater": "r",
        "question": "q",
        "option": "",
        "file": "file",
        "line": None,
        "role": "individual",
        "rater_kind": "",
    }
    assert batch.lists["item"] == [1, True] and batch.lists["value"] == ["same", "same"]
    assert list(batch.tuples()) == [(*row, "individual", "") for row in rows]
    floats = Batch.of_rows([(*rows[0][:2], 0.0, *rows[0][3:]), (*rows[0][:2], -0.0, *rows[0][3:])])
    assert [math.copysign(1, x) for x in floats.lists["item"]] == [1, -1]


def test_runs_of_names_are_the_runs_or_none() -> None:
    """view.long_runs finds each run's end with a few comparisons: it gives the runs exactly, or
    None where a name comes back inside what looked like a run, or the runs are short."""
    from itertools import groupby

    from humanjudge_schema.judgments import view

    rng = random.Random(5)
    found = 0
    for _ in range(3000):
        names = []
        for _ in range(rng.randint(1, 12)):
            names += [rng.choice("abc")] * rng.choice([1, 2, 3, 40, 300])
        runs = view.long_runs(names)
        want, at = [], 0
        for _, group in groupby(names):
            n = len(list(group))
            want.append((at, at + n))
            at += n
        if runs is not None:
            found += 1
            assert runs == want
        elif len(want) <= view.RUNS:  # few runs: only a name coming back in a skipped stretch
            assert any(b - a > 2 for a, b in want)
    assert found > 2000
    # a name back inside a stretch the doubling steps over: seen by the count
    assert view.long_runs(["a"] * 3 + ["b"] + ["a"] * 60) in (None, [(0, 3), (3, 4), (4, 64)])
    assert view.long_runs(["a"] * 5 + ["b"] + ["a"] * 2 + ["c"] * 56) in (None, [(0, 5), (5, 6), (6, 8), (8, 64)])
    assert view.long_runs(["a", "b"] * 100) is None  # many short runs


@pytest.mark.parametrize("raters", [True, "position"])
def test_columns_given_as_their_runs_are_gathered_as_their_rows(raters: Any) -> None:
    """A batch's items given as their runs (view.Repeated), its places as runs counting from 0
    (view.Counting) keep what the same columns as plain lists keep: the same values first, in
    the same order (1, 1.0 and True are one value: the first given is kept), the same raters;
    also where some batches give them as plain lists, or other raters, or one rater for the
    batch, among batches of runs (a view's first batch is made before the pass says what it
    needs)."""
    from humanjudge_schema.judgments.gather import Gathered
    from humanjudge_schema.judgments.view import Batch, Counting, Judgments, Question, Repeated

    rng = random.Random(5)
    for trial in range(40):
        batches, plain = [], []
        for _ in range(rng.randint(1, 4)):
            runs = rng.randint(0, 12)
            items = [rng.choice([0, 1, 1.0, True, 2, "x"]) for _ in range(runs)]
            lengths = [rng.randint(1, 5) for _ in range(runs)]
            if not runs:
                continue
            pool = [None, 1, 2, 3, "a"] if trial % 2 else ["a", "b", None, [1, 2], 2.5]
            values = [rng.choice(pool) for _ in range(sum(lengths))]
            same = {"format": "fmt", "dataset": "ds", "file": "f", "pointer": "", "line": None}
            same |= {"question": rng.choice(["q1", "q2"]), "option": "", "role": "individual", "rater_kind": ""}
            rows = [i for i, n in zip(items, lengths, strict=True) for _ in range(n)]
            given: dict[str, Any] = {"item": Repeated(items, lengths), "rater": Counting(lengths), "value": values}
            assert list(given["item"]) == rows and given["rater"].rows() == [r for n in lengths for r in range(n)]
            assert len(given["item"]) == len(given["rater"]) == len(rows)
            if rng.random() < 0.3:  # a batch of plain rows among batches of runs
                given["item"] = rows
            if rng.random() < 0.3:  # places as a plain list, or raters of other names, among runs
                places = list(given["rater"])
                given["rater"] = places if rng.random() < 0.5 else [rng.choice([*places, "ann", 7]) for _ in places]
            elif rng.random() < 0.2:  # one rater for the whole batch, beside batches of places
                same["rater"] = "ann"
                del given["rater"]
            batches.append(Batch(same, given))
            plain.append(Batch(same, {name: list(column) for name, column in given.items()}))
            assert Batch(same, given).lists == plain[-1].lists  # any other reader gets the rows
        questions = {"q1": Question("q1", "nominal"), "q2": Question("q2", "ordinal")}
        got, want = (
            Gathered.of(Judgments("fmt", "ds", questions=questions, raters=raters, batches=lambda b=b: iter(b)))
            for b in (batches, plain)
        )
        assert list(got.questions) == list(want.questions), trial
        for name, q in got.questions.items():
            w = want.questions[name]
            assert q.missing == w.missing, trial
            assert list(q.tally.per_item().items()) == list(w.tally.per_item().items()), trial
            assert [(type(k), k) for k in q.tally.per_item()] == [(type(k), k) for k in w.tally.per_item()], trial
            assert [(type(v), v) for v in q.tally.distribution()] == [(type(v), v) for v in w.tally.distribution()]
            assert list(q.by_rater.items()) == list(w.by_rater.items()), trial


def test_every_form_of_a_column_answers_as_its_rows_do() -> None:
    """A column given as its runs (Counting, Repeated) answers `rows`, `runs`, `factorize` and
    `part` as the plain list of its rows does (Listed, the reference): its runs are its rows, its
    codes and distinct values the same, and a cut keeps its runs where it begins and ends where
    runs do, else is the rows of the cut."""
    from humanjudge_schema.judgments.view import Counting, Listed, Repeated

    rng = random.Random(3)
    for trial in range(900):
        lengths = [rng.randint(0, 4) for _ in range(rng.randint(0, 8))]
        values = [rng.choice(["a", "b", 1, 1.0, True]) for _ in lengths]
        column = [Counting(lengths), Repeated(values, lengths), Listed(Repeated(values, lengths).rows())][trial % 3]
        rows = column.rows()
        plain = Listed(list(rows))
        heads, runs = column.runs()
        assert (heads if runs is None else [v for v, n in zip(heads, runs, strict=True) for _ in range(n)]) == rows
        codes, distinct = column.factorize()
        want_codes, want_distinct = plain.factorize()
        assert codes.tolist() == want_codes.tolist() and distinct == want_distinct, trial
        ends = [sum(lengths[:k]) for k in range(len(lengths) + 1)]
        start = rng.randint(0, len(column))
        stop = rng.randint(start, len(column))
        cut = column.part(start, stop)
        assert cut.rows() == rows[start:stop]
        if (start in ends and stop in ends) or type(column) is Listed:
            assert type(cut) is type(column) and len(cut) == stop - start
        else:
            assert type(cut) is Listed


def test_coggym_batches_give_their_participants_as_runs(tmp_path: Path) -> None:
    """A CogGym batch's raters are each response array's places counting from 0: given also as
    their runs (view.Counting), the same rows; a click slider's raters (a response's place for
    each of its clicks) are not, and come as a plain list."""
    from humanjudge_schema.judgments import datasets
    from humanjudge_schema.judgments.view import Counting, Listed

    example = ROOT / "examples" / "coggym" / "valid"
    batches = [b for v in datasets([example], kind="coggym") for b in v.in_batches() if "rater" in b.lists]
    assert {type(b.column("rater")) for b in batches} == {Listed}  # it has a slider of three clicks
    # the same experiment with every click slider made one of one click (its first)
    folder = tmp_path / "one-click"
    folder.mkdir()
    for f in example.iterdir():
        if f.is_file():
            (folder / f.name).write_bytes(f.read_bytes())
    trials = [json.loads(line) for line in (folder / "trial.jsonl").read_text().splitlines() if line.strip()]
    ind = json.loads((folder / "human_data_ind.json").read_text())
    for trial in trials:
        for q in trial["queries"]:
            if q["type"] == "single-slider" and q["slider_config"].get("num_clicks", 1) > 1:
                q["slider_config"]["num_clicks"] = 1
                for answers in (a for sid, a in ind.items() if isinstance(a, dict) and q["tag"] in a):
                    answers[q["tag"]] = [r[0] if isinstance(r, list) else r for r in answers[q["tag"]]]
    (folder / "trial.jsonl").write_text("".join(json.dumps(t) + "\n" for t in trials))
    (folder / "human_data_ind.json").write_text(json.dumps(ind))
    batches = [b for v in datasets([folder], kind="coggym") for b in v.in_batches() if "rater" not in b.same]
    assert batches and {type(b.column("rater")) for b in batches} == {Counting}
    for batch in batches:
        raters = batch.column("rater")
        assert isinstance(raters, Counting) and batch.lists["rater"] == [r for n in raters.lengths for r in range(n)]
