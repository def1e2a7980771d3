"""No judgment vanishes without a word: every dataset export, stats and report are given ends in
its judgments or in one line on stderr that says why it has none, and a run in which no dataset
has any stops with exit code 2 (docs/judgments.md, "Datasets without judgments")."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from humanjudge_schema import validate
from humanjudge_schema.commands import cli

from .conftest import ROOT, corpus
from .helpers import majority_only, tiny_dataset

EXAMPLES = ROOT / "examples"
POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    "size 5242880\n"
)
LFS = "not the data (run `git lfs pull`)"


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _experiment(tmp_path: Path, name: str = "exp", means: bool = True) -> Path:
    """The example experiment; without `means`, without its stored means, which are judgments
    too (aggregates: tests/test_judgments_roles.py)."""
    folder = tmp_path / name
    shutil.copytree(EXAMPLES / "coggym" / "valid", folder, ignore=shutil.ignore_patterns("assets"))
    if not means:
        (folder / "human_data_mean.json").unlink()
    return folder


def _schema_errors(path: Path) -> int:
    return sum(f.count for f in validate([path.parent]).findings if f.file.endswith(path.name) and "schema/" in f.code)


# --- the datasets without judgments, each with the words that say why ----------------------------


def textjudge_lfs(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "data.json").write_text(POINTER)
    return "data.json", f"a Git LFS pointer, {LFS}"


def coggym_lfs(tmp_path: Path) -> tuple[str, str]:
    (_experiment(tmp_path, means=False) / "human_data_ind.json").write_text(POINTER)
    return "exp", f"human_data_ind.json is a Git LFS pointer, {LFS}"


def coggym_mean_only(tmp_path: Path) -> tuple[str, str]:
    folder = tmp_path / "exp"
    folder.mkdir()
    shutil.copy(EXAMPLES / "coggym" / "valid" / "human_data_mean.json", folder)
    return "exp", "no individual data file human_data_ind.json (only human_data_mean.json)"


def coggym_schema(tmp_path: Path) -> tuple[str, str]:
    """Every response array is a string: the individual file's judgment_count says 30, but not one
    array can be read."""
    ind = _experiment(tmp_path, means=False) / "human_data_ind.json"
    data = json.loads(ind.read_text())
    for stimulus, tags in data.items():
        if isinstance(tags, dict) and stimulus != "participants_info":
            data[stimulus] = dict.fromkeys(tags, "see the spreadsheet")
    ind.write_text(json.dumps(data, indent=2))
    n = _schema_errors(ind)
    assert n >= 7  # one per array
    return "exp", f"human_data_ind.json breaks its schema ({n} errors; humanjudge validate lists them)"


def coggym_unknown_tags(tmp_path: Path) -> tuple[str, str]:
    """The responses are filed under tags the trials do not have (agent_goal_1 for agent_goal), as
    in a published example experiment."""
    ind = _experiment(tmp_path, means=False) / "human_data_ind.json"
    data = json.loads(ind.read_text())
    for stimulus, tags in data.items():
        if isinstance(tags, dict) and stimulus != "participants_info":
            data[stimulus] = {f"{tag}_1": answers for tag, answers in tags.items()}
    ind.write_text(json.dumps(data, indent=2))
    return "exp", (
        "none of the 7 response arrays of human_data_ind.json is under a tag of its trial in trial.jsonl "
        "(humanjudge validate lists them: coggym/unknown-stimulus, coggym/unknown-tag)"
    )


def textjudge_majority_only(tmp_path: Path) -> tuple[str, str]:
    """Only the majority label of each instance, as in a published safety benchmark."""
    majority_only(tmp_path)
    return "safety.json", "only aggregates stored (majority_human) and no individual scores"


def study1_without_tasks(tmp_path: Path) -> tuple[str, str]:
    shutil.copytree(EXAMPLES / "study1" / "valid", tmp_path / "study1")
    (tmp_path / "study1" / "study1_tasks.jsonl.gz").unlink()
    others = "study1_responses_human.jsonl.gz, study1_responses_llm.jsonl.gz, study1_retrieval.jsonl.gz"
    return "study1", f"no study1_tasks.jsonl.gz, the file of the ratings (only {others})"


def halie_crossword_without_survey(tmp_path: Path) -> tuple[str, str]:
    shutil.copytree(EXAMPLES / "halie" / "valid" / "crossword", tmp_path / "crossword")
    (tmp_path / "crossword" / "survey_responses.csv").unlink()
    return "crossword", "no survey_responses.csv, and the crossword task's event_blocks.csv holds no judgments"


CASES: list[Callable[[Path], tuple[str, str]]] = [
    textjudge_lfs,
    coggym_lfs,
    coggym_mean_only,
    coggym_schema,
    coggym_unknown_tags,
    study1_without_tasks,
    halie_crossword_without_survey,
]
COMMANDS = {
    "export": ["export"],
    "stats": ["stats"],
    "report": ["report", "-o", "page.html"],
}


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # paths on stderr as findings show them: relative
    return tmp_path


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.__name__)
def test_a_dataset_without_judgments_says_why_and_the_run_stops(
    here: Path, case: Callable[[Path], tuple[str, str]], command: str
) -> None:
    path, why = case(here)
    result = _invoke(*COMMANDS[command], path)
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.startswith("humanjudge: ")]
    assert lines == [f"humanjudge: {path}: no judgments: {why}", f"humanjudge: no judgments in {path}"]
    assert result.stdout == ""  # never an empty table, not even export's header line
    assert not (here / "page.html").exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_mixed_run_gives_the_good_rows_and_names_the_bad_dataset(here: Path, command: str) -> None:
    good = here / "good.json"
    shutil.copy(EXAMPLES / "textjudge" / "valid" / "dataset.json", good)
    bad, why = textjudge_lfs(here)
    checked = _invoke("validate", "good.json", bad)
    result = _invoke(*COMMANDS[command], "good.json", bad)
    assert result.exit_code == (0 if command == "stats" else checked.exit_code)
    said = [line for line in result.stderr.splitlines() if line.startswith("humanjudge: ")]
    assert said == [f"humanjudge: {bad}: no judgments: {why}"]
    if command == "export":
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        assert rows and {r["dataset"] for r in rows} == {"good.json"}
        alone = _invoke("export", "good.json").stdout
        assert result.stdout == alone
    elif command == "stats":
        assert "good.json (textjudge)" in result.stdout and bad not in result.stdout
    else:
        page = (here / "page.html").read_text()
        assert "good.json" in page and "No judgments." not in page


def test_export_writes_no_file_when_no_dataset_has_judgments(here: Path) -> None:
    bad, _ = textjudge_lfs(here)
    result = _invoke("export", bad, "-o", "rows.csv")
    assert result.exit_code == 2 and not (here / "rows.csv").exists()
    assert list(here.glob(".rows.csv.*")) == []  # nor a half-written one


def test_a_dataset_is_read_once(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a dataset up to its first judgment to know it has one does not read it again."""
    from humanjudge_schema.formats.coggym import judgments as view

    loaded: list[Path] = []
    load = view.load_experiment
    monkeypatch.setattr(view, "load_experiment", lambda unit, ctx: loaded.append(unit.root) or load(unit, ctx))
    _experiment(here, "a")
    coggym_mean_only(here)
    result = _invoke("stats", "a", "exp", "--format", "json")
    assert result.exit_code == 0
    assert [d["dataset"] for d in json.loads(result.stdout)["datasets"]] == ["a"]
    assert sorted(p.name for p in loaded) == ["a", "exp"]


def test_the_library_still_hands_on_every_dataset(tmp_path: Path) -> None:
    """Called from Python on plain units, `views` gives every dataset's view, judgments or not."""
    from humanjudge_schema import judgments

    path, _ = textjudge_majority_only(tmp_path)
    (view,) = judgments.datasets([tmp_path / path])
    assert {row.role for row in view.rows()} == {"aggregate"}  # its stored majorities only
    assert view.none is not None and view.none() == "only aggregates stored (majority_human) and no individual scores"


# --- the real datasets ----------------------------------------------------------------------------


def test_the_real_datasets_without_judgments(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the lines say of published data is true of its files: an experiment of the CogGym
    release that ships only its means, the example experiment whose response arrays are filed
    under tags its trials do not have (agent_goal_1, ... for agent_goal), and a JUDGE-BENCH file
    that is a Git LFS pointer."""
    root = corpus()
    monkeypatch.chdir(root)
    mean_only = Path("coggym/lance-ying__coggym/EML/Bass2022Partial/exp1")
    example = Path("coggym/lance-ying__example_coggym/ying2025understanding/exp1")
    pointer = Path("judgebench/dmg-illc+JUDGE-BENCH/data/chatbot_arena_conversations/data.json")
    assert sorted(p.name for p in mean_only.iterdir()) == ["human_data_mean.json"]
    assert pointer.read_bytes().startswith(POINTER[:40].encode())
    ind = json.loads((example / "human_data_ind.json").read_text())
    trials = [json.loads(line) for line in (example / "trial.jsonl").read_text().splitlines()]
    tags = {t["id"]: {q.get("tag") for q in t.get("queries", [])} for t in trials}
    arrays = [(sid, tag) for sid, v in ind.items() if isinstance(v, dict) and sid != "participants_info" for tag in v]
    assert ind["judgment_count"] == 11886 and not any(tag in tags.get(sid, ()) for sid, tag in arrays)
    result = _invoke("stats", str(mean_only), str(example), str(pointer))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"humanjudge: {mean_only}: no judgments: no individual data file human_data_ind.json "
        "(only human_data_mean.json)",
        f"humanjudge: {example}: no judgments: none of the {len(arrays)} response arrays of human_data_ind.json "
        "is under a tag of its trial in trial.jsonl (humanjudge validate lists them: coggym/unknown-stimulus, "
        "coggym/unknown-tag)",
        f"humanjudge: {pointer}: no judgments: a Git LFS pointer, {LFS}",
        f"humanjudge: no judgments in {mean_only}, {example}, {pointer}",
    ]


def _instances(instances: list[object] | None) -> dict[str, object]:
    data = tiny_dataset("Is it ok? {{ instance }}")
    if instances is None:
        del data["instances"]
    else:
        data["instances"] = instances
    return data


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (_instances([]), "no instances"),
        (_instances(None), "no instances array (humanjudge validate lists the schema errors)"),
        (
            _instances([{"id": 1, "instance": "x", "annotations": {"ok": {"individual_human_scores": [{"a": 1}]}}}]),
            "every individual score is an object or an array (humanjudge validate lists the schema errors)",
        ),
        (_instances([{"id": 1, "instance": "x", "annotations": {}}]), "no instance holds individual_human_scores"),
        ('{"dataset": "cut short", "instances": [', "the file is not JSON (1 error; humanjudge validate lists them)"),
    ],
    ids=["no-instances", "no-instances-array", "objects-for-scores", "no-scores", "not-json"],
)
def test_what_a_textjudge_file_without_scores_holds_instead(here: Path, content: object, why: str) -> None:
    (here / "data.json").write_text(content if isinstance(content, str) else json.dumps(content))
    result = _invoke("stats", "data.json")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"humanjudge: data.json: no judgments: {why}",
        "humanjudge: no judgments in data.json",
    ]


def test_dataframe_without_pandas_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from humanjudge_schema import judgments

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pandas" else real(name, *a))
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'humanjudge-schema\[pandas\]'"):
        judgments.dataframe([EXAMPLES / "textjudge" / "valid"])


def test_two_datasets_of_one_folder_are_told_of_each(tmp_path: Path) -> None:
    """A folder can hold datasets of two formats: each is heard, and with none holding a
    judgment the run still stops with exit 2."""
    from types import SimpleNamespace

    from humanjudge_schema.commands.common import _Told

    told = _Told(2, (tmp_path,))
    told(SimpleNamespace(family="coggym", root=tmp_path), "no individual data file")
    with pytest.raises(SystemExit) as stopped:
        told(SimpleNamespace(family="study1", root=tmp_path), "no study1_tasks.jsonl.gz")
    assert stopped.value.code == 2
