"""Nothing passes silently: a misspelt code, a path that matches nothing, a file left out, a Git
LFS pointer, a dataset missing its companion files or a configuration file outside the project
each end in a finding or a one-line usage error, never in "No problems"."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from humanjudge_schema import validate
from humanjudge_schema.config import ConfigError, load_file
from humanjudge_schema.kinds import UsageError

from .conftest import ROOT

BROKEN = ROOT / "examples" / "coggym" / "broken"
VALID = ROOT / "examples" / "coggym" / "valid"
LFS = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
)


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert "Traceback" not in proc.stderr + proc.stdout
    return proc


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


# --- a typo never turns the check off ----------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "value", "suggestion"),
    [
        ("--select", "coggym/respons-count", "coggym/response-count"),
        ("--select", "cogym", "coggym"),
        ("--ignore", "cogym", "coggym"),
        ("--ignore", "coggym/response-count,parse/duplicat-key", "parse/duplicate-key"),
    ],
)
def test_an_unknown_code_on_the_command_line_is_a_usage_error(flag: str, value: str, suggestion: str) -> None:
    line = one_line_error(run("validate", flag, value, str(BROKEN)))
    bad = next(v for v in value.split(",") if v != "coggym/response-count")
    assert line == (
        f"humanjudge: {flag}: {bad!r} is not a rule code or prefix (did you mean {suggestion}?); "
        "`humanjudge rules` lists them"
    )


@pytest.mark.parametrize(
    ("toml", "where", "bad", "suggestion"),
    [
        ('select = ["cogym"]\n', "select", "cogym", "coggym"),
        ('ignore = ["coggym/respons-count"]\n', "ignore", "coggym/respons-count", "coggym/response-count"),
        ('[severity]\n"coggym/mean-valu" = "warning"\n', "severity", "coggym/mean-valu", "coggym/mean-value"),
        (
            '[per-file-ignores]\n"legacy/**" = ["coggym/respons-count"]\n',
            "per-file-ignores 'legacy/**'",
            "coggym/respons-count",
            "coggym/response-count",
        ),
    ],
)
def test_an_unknown_code_in_the_configuration_is_a_usage_error(
    tmp_path: Path, toml: str, where: str, bad: str, suggestion: str
) -> None:
    exp = tmp_path / "exp"
    shutil.copytree(BROKEN, exp)
    (exp / "humanjudge.toml").write_text(toml)
    line = one_line_error(run("validate", str(exp)))
    assert line == (
        f"humanjudge: {exp / 'humanjudge.toml'}: {where}: {bad!r} is not a rule code or prefix "
        f"(did you mean {suggestion}?); `humanjudge rules` lists them"
    )


def test_the_same_check_in_pyproject_names_the_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.humanjudge]\nselect = ["cogym"]\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml: \[tool.humanjudge\]: select: 'cogym'"):
        load_file(tmp_path / "pyproject.toml")


def test_the_library_refuses_unknown_codes_too() -> None:
    with pytest.raises(UsageError, match="select: 'cogym' is not a rule code or prefix"):
        validate([BROKEN], select=("cogym",))


def test_known_codes_and_prefixes_still_work() -> None:
    codes = {f.code for f in validate([BROKEN], select=("coggym/response-count", "parse")).findings}
    assert codes == {"coggym/response-count", "parse/duplicate-key"}
    assert "coggym/response-count" not in {f.code for f in validate([BROKEN], ignore=("coggym/",)).findings}


def test_rules_lists_a_family_and_suggests_for_a_typo() -> None:
    listing = run("rules", "coggym").stdout.splitlines()
    assert listing and all(line.startswith("coggym/") for line in listing)
    assert any(line.startswith("coggym/response-count ") for line in listing)
    line = one_line_error(run("rules", "coggym/respons-count"))
    assert line.startswith("humanjudge: no rule or family 'coggym/respons-count'; did you mean coggym/response-count")


# --- nothing is skipped without saying so -------------------------------------------------------


def test_a_git_lfs_pointer_is_an_error_under_any_dataset_name(tmp_path: Path) -> None:
    (tmp_path / "arena").mkdir()
    (tmp_path / "arena" / "data.json").write_text(LFS)
    result = validate([tmp_path / "arena"], cwd=str(tmp_path))
    assert [(f.code, f.file, f.severity.value) for f in result.findings] == [
        ("parse/lfs-pointer", "arena/data.json", "error")
    ]
    exp = tmp_path / "exp"
    shutil.copytree(VALID, exp)
    (exp / "human_data_ind.json").write_text(LFS)
    findings = validate([exp], cwd=str(tmp_path)).findings
    # One finding: the pointer is never parsed as data (no parse/invalid-json cascade).
    assert [(f.code, f.file) for f in findings if f.file == "exp/human_data_ind.json"] == [
        ("parse/lfs-pointer", "exp/human_data_ind.json")
    ]
    assert not [f for f in findings if f.code.startswith("parse/") and f.code != "parse/lfs-pointer"]


def test_a_folder_walk_says_what_it_left_out(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples" / "textjudge" / "valid", tmp_path / "data")
    (tmp_path / "data" / "questions.json").write_text('{"questions": []}')
    (tmp_path / "data" / "scores.csv").write_text("a,b\n1,2\n")
    (tmp_path / "data" / "README.md").write_text("not data")
    proc = run("validate", str(tmp_path / "data"))
    assert proc.returncode == 0
    data = tmp_path / "data"
    assert proc.stdout.splitlines()[-1] == (
        f"2 files left out: {data / 'questions.json'} (JSON that is not a TextJudge dataset), "
        f"{data / 'scores.csv'} (a data file of no known format)."
    )
    doc = json.loads(run("validate", "--format", "json", str(tmp_path / "data")).stdout)
    assert doc["summary"]["skipped"] == 2
    assert doc["skipped"] == [
        {"file": str(tmp_path / "data" / "questions.json"), "reason": "JSON that is not a TextJudge dataset"},
        {"file": str(tmp_path / "data" / "scores.csv"), "reason": "a data file of no known format"},
    ]


def test_a_path_or_kind_that_matches_nothing_is_a_usage_error(tmp_path: Path) -> None:
    line = one_line_error(run("validate", "--kind", "halie", str(VALID)))
    assert (
        line
        == f"humanjudge: {VALID}: nothing of format halie here; it holds coggym data (drop --kind, or choose another)"
    )
    (tmp_path / "other.json").write_text("{}")
    line = one_line_error(run("validate", str(tmp_path)))
    assert line == (
        f"humanjudge: {tmp_path}: no dataset of a known format here (1 file left out: 1 JSON that is not a "
        "TextJudge dataset; use --kind to say which format)"
    )


def test_skip_unknown_still_passes_an_empty_selection(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text("{}")
    proc = run("validate", "--skip-unknown", str(tmp_path / "notes.json"))
    assert proc.returncode == 0
    assert proc.stdout.splitlines() == [
        "No problems in 0 files.",
        f"1 file left out: {tmp_path / 'notes.json'} (JSON that is not a TextJudge dataset).",
    ]


@pytest.mark.parametrize(
    ("source", "keep", "at", "code", "message"),
    [
        (
            VALID,
            ["human_data_ind.json"],
            "human_data_ind.json",
            "dataset/missing-file",
            "no trial.jsonl, config.json, human_data_mean.json in exp/: nothing in the other files could be read "
            "against the trials' questions and options; the experiment flow, stimuli_count and responseType were "
            "not checked; the means were not compared with the individual responses",
        ),
        (
            VALID,
            ["trial.jsonl", "config.json", "instruction.jsonl", "human_data_ind.json", "assets"],
            "config.json",  # the first of the experiment's files
            "dataset/missing-companion",
            "no human_data_mean.json in exp/: the means were not compared with the individual responses",
        ),
        (
            ROOT / "examples" / "halie" / "valid" / "question",
            ["event_blocks.csv"],
            "event_blocks.csv",
            "dataset/missing-file",
            "no survey_responses.csv in exp/: the sessions could not be compared across files",
        ),
    ],
)
def test_a_dataset_missing_companions_says_which_and_what_did_not_run(
    tmp_path: Path, source: Path, keep: list[str], at: str, code: str, message: str
) -> None:
    exp = tmp_path / "exp"
    exp.mkdir()
    for name in keep:
        (shutil.copytree if (source / name).is_dir() else shutil.copy)(source / name, exp / name)
    findings = validate([exp / keep[0]], cwd=str(tmp_path)).findings
    assert [(f.code, f.file, f.pointer, f.message) for f in findings] == [(code, f"exp/{at}", "", message)]


def test_a_lone_study1_file_is_an_error(tmp_path: Path) -> None:
    shutil.copy(ROOT / "examples" / "study1" / "valid" / "study1_responses_human.jsonl.gz", tmp_path)
    result = validate([tmp_path / "study1_responses_human.jsonl.gz"], cwd=str(tmp_path))
    assert [(f.code, f.file) for f in result.findings] == [("dataset/missing-file", "study1_responses_human.jsonl.gz")]
    assert result.findings[0].message.startswith(
        "no study1_tasks.jsonl.gz, study1_retrieval.jsonl.gz, study1_responses_llm.jsonl.gz in "
    )
    assert result.errors == 1


# --- configuration is visible and can be switched off ------------------------------------------


@pytest.fixture
def stray(tmp_path: Path) -> Path:
    """A project below a folder whose humanjudge.toml would switch checks off."""
    (tmp_path / "humanjudge.toml").write_text('ignore = ["coggym/flow-id"]\n')
    exp = tmp_path / "project" / "exp"
    shutil.copytree(BROKEN, exp)
    return exp


def test_show_settings_names_the_file_and_the_resolved_settings(stray: Path) -> None:
    proc = run("validate", "--show-settings", "--max-per-code", "7", str(stray))
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[0] == f"configuration: {stray.parent.parent / 'humanjudge.toml'}"
    assert lines[1] == f"  dataset: {stray} (coggym)"
    assert '  ignore = ["coggym/flow-id"]' in lines and "  max-per-code = 7" in lines


def test_isolated_uses_no_configuration_file(stray: Path) -> None:
    configured = json.loads(run("validate", "--format", "json", str(stray)).stdout)
    isolated = json.loads(run("validate", "--isolated", "--format", "json", str(stray)).stdout)
    assert configured["summary"]["configuration"] == [str(stray.parent.parent / "humanjudge.toml")]
    assert isolated["summary"]["configuration"] == []
    assert isolated["summary"]["errors"] == configured["summary"]["errors"] + 1
    assert "coggym/flow-id" in {f["code"] for f in isolated["findings"]}
    assert "isolated" in run("validate", "--show-settings", "--isolated", str(stray)).stdout


def test_verbose_output_names_the_configuration_file(stray: Path) -> None:
    proc = run("validate", "-v", str(stray))
    assert f"humanjudge: configuration: {stray.parent.parent / 'humanjudge.toml'}\n" in proc.stderr


def test_the_repository_is_immune_to_a_configuration_above_it(tmp_path: Path) -> None:
    # The checkout's pyproject.toml holds [tool.humanjudge]: the search stops there.
    (tmp_path / "humanjudge.toml").write_text('ignore = ["coggym"]\n')
    clone = tmp_path / "clone"
    clone.mkdir()
    shutil.copy(ROOT / "pyproject.toml", clone)
    shutil.copytree(BROKEN, clone / "examples" / "coggym" / "broken")
    inside = validate([clone / "examples" / "coggym" / "broken"])
    assert inside.errors == validate([BROKEN]).errors == 10
    assert inside.configs == (clone / "pyproject.toml",)


# --- writing never loses data ------------------------------------------------------------------


def test_aggregate_refuses_to_write_from_invalid_data(tmp_path: Path) -> None:
    exp = tmp_path / "exp"
    shutil.copytree(BROKEN, exp)
    before = (exp / "human_data_mean.json").read_bytes()
    proc = run("aggregate", "--force", str(exp), cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert (
        "exp/human_data_ind.json:27:5: error coggym/response-count 2 responses, participants_info.count is 3"
        in lines[1]
    )
    # the duplicate key in participants_info and judgment_count concern no mean: they stop nothing
    assert not any("parse/duplicate-key" in line or "judgment-count" in line for line in lines)
    assert "  exp/human_data_mean.json: /trial_1/goal_confidence" in lines
    assert lines[-1] == "Nothing was written: fix the errors above first (`humanjudge validate` lists them all)."
    assert (exp / "human_data_mean.json").read_bytes() == before
    assert sorted(p.name for p in exp.iterdir()) == sorted(p.name for p in BROKEN.iterdir())


def test_aggregate_check_lists_what_it_cannot_recompute(tmp_path: Path) -> None:
    exp = tmp_path / "exp"
    shutil.copytree(BROKEN, exp)
    proc = run("aggregate", "--check", str(exp), cwd=tmp_path)
    assert proc.returncode == 1
    # statement_rating's mean is recomputed (and found wrong): no finding concerns that tag
    assert "3 stored values in exp/human_data_mean.json cannot be recomputed" in proc.stdout
    assert "  exp/human_data_mean.json: /trial_1/statement_rating\n" not in proc.stdout
    recomputed = "coggym/mean-value 55, the responses give 53.3333 (at /trial_1/statement_rating/statement_rating_1)"
    assert recomputed in proc.stdout
    assert "exp/human_data_ind.json:134:9: error coggym/slider-value" in proc.stdout
    assert "No problems" not in proc.stdout


def test_aggregate_writes_once_the_inputs_are_valid(tmp_path: Path) -> None:
    exp = tmp_path / "exp"
    shutil.copytree(VALID, exp)
    (exp / "human_data_mean.json").unlink()
    proc = run("aggregate", str(exp))
    assert proc.returncode == 0 and proc.stdout == f"wrote {exp / 'human_data_mean.json'}\n"
    written = json.loads((exp / "human_data_mean.json").read_text())
    assert written["trial_2"]["speed_estimates"] == pytest.approx(35 / 9)  # the stored example rounds it
    assert run("aggregate", "--check", str(exp)).returncode == 0


@pytest.mark.parametrize("name", ["trial.jsonl", "human_data_ind.json"])
def test_aggregate_never_writes_over_an_input(tmp_path: Path, name: str) -> None:
    exp = tmp_path / "exp"
    shutil.copytree(VALID, exp)
    before = (exp / name).read_bytes()
    line = one_line_error(run("aggregate", "--force", "-o", str(exp / name), str(exp)))
    assert line == f"humanjudge: {exp / name} is {name}, which the output is computed from; write elsewhere"
    assert (exp / name).read_bytes() == before


def test_writers_never_follow_a_link(tmp_path: Path) -> None:
    exp = tmp_path / "exp"
    shutil.copytree(VALID, exp)
    outside = tmp_path / "outside.json"
    outside.write_text("precious")
    (exp / "human_data_mean.json").unlink()
    (exp / "human_data_mean.json").symlink_to(outside)
    line = one_line_error(run("aggregate", "--force", str(exp)))
    assert line == f"humanjudge: {exp / 'human_data_mean.json'} is a symbolic link; name the file itself"
    assert outside.read_text() == "precious" and (exp / "human_data_mean.json").is_symlink()
    link = tmp_path / "prompts.txt"
    link.symlink_to(outside)
    line = one_line_error(
        run("render", str(ROOT / "examples" / "textjudge" / "valid" / "dataset.json"), "-o", str(link))
    )
    assert line == f"humanjudge: {link} is a symbolic link; name the file itself"
    assert outside.read_text() == "precious"


def test_textjudge_aggregate_refuses_while_scores_are_invalid(tmp_path: Path) -> None:
    data = json.loads((ROOT / "examples" / "textjudge" / "valid" / "dataset.json").read_text())
    data["instances"][0]["annotations"]["fluency"]["individual_human_scores"][0] = 9  # outside 1..5
    data["instances"][0]["annotations"]["fluency"]["mean_human"] = 1.0
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps(data, indent=2))
    before = path.read_bytes()
    proc = run("aggregate", "--in-place", str(path), cwd=tmp_path)
    assert proc.returncode == 1
    assert "error textjudge/score-range" in proc.stdout
    assert "  dataset.json: /instances/0/annotations/fluency/mean_human" in proc.stdout.splitlines()
    assert path.read_bytes() == before
    check = run("aggregate", "--check", str(path), cwd=tmp_path)
    assert check.returncode == 1 and "cannot be recomputed" in check.stdout and "textjudge/score-range" in check.stdout


# --- on the real corpus ------------------------------------------------------------------------


def test_every_json_file_of_judge_bench_is_checked_or_reported() -> None:
    from .conftest import corpus

    root = corpus("judgebench", "dmg-illc+JUDGE-BENCH")
    result = validate([root], cwd=str(root))
    assert result.files + len(result.skipped) == len(list(root.rglob("*.json"))) == 22
    assert [(s.path.relative_to(root).as_posix(), s.reason) for s in result.skipped] == [
        ("data/recipe_crowd_sourcing_data/questions.json", "JSON that is not a TextJudge dataset")
    ]
    arena = validate([root / "data" / "chatbot_arena_conversations"], cwd=str(root))
    assert [(f.code, f.file) for f in arena.findings] == [
        ("parse/lfs-pointer", "data/chatbot_arena_conversations/data.json")
    ]
    assert arena.errors == 1


def test_aggregate_refuses_the_broken_corpus_experiment(tmp_path: Path) -> None:
    from .conftest import corpus

    exp = tmp_path / "exp1"
    shutil.copytree(corpus("coggym", "lance-ying__example_coggym", "ying2025understanding", "exp1"), exp)
    before = (exp / "human_data_mean.json").read_bytes()
    check = run("aggregate", "--check", str(exp))
    assert check.returncode == 1 and "No problems" not in check.stdout
    forced = run("aggregate", "--force", str(exp))
    assert forced.returncode == 1 and forced.stdout.splitlines()[-1].startswith("Nothing was written")
    assert (exp / "human_data_mean.json").read_bytes() == before


# --- output cannot be forged, and every name can be printed -------------------------------------


def test_a_usage_error_quoting_a_path_stays_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "a\nhumanjudge: fake"
    folder.mkdir()
    (folder / "notes.txt").write_text("x")
    line = one_line_error(run("validate", str(folder)))
    assert line.endswith("a\\nhumanjudge: fake: no dataset files here")


def test_a_file_name_that_is_not_utf8_is_printed_as_escapes(tmp_path: Path) -> None:
    folder = tmp_path / b"exp\xff".decode("utf-8", "surrogateescape")
    shutil.copytree(BROKEN, folder)
    doc = json.loads(run("validate", "--format", "json", str(folder), cwd=tmp_path).stdout)
    assert {f["file"].split("/")[0] for f in doc["findings"]} == {"exp\\xff"}
    assert json.loads(run("validate", "--format", "sarif", str(folder), cwd=tmp_path).stdout)["runs"]


def test_max_document_bytes_from_the_configuration_reaches_the_readers(tmp_path: Path) -> None:
    shutil.copy(ROOT / "examples" / "textjudge" / "valid" / "dataset.json", tmp_path)
    (tmp_path / "humanjudge.toml").write_text("max-document-bytes = 100\n")
    findings = validate([tmp_path / "dataset.json"], cwd=str(tmp_path)).findings
    assert [(f.code, f.file) for f in findings] == [("parse/too-large", "dataset.json")]
    assert "max-document-bytes = 100" in run("validate", "--show-settings", str(tmp_path)).stdout
