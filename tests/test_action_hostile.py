"""The GitHub Action against a hostile pull request: nothing the pull request commits (a
`matplotlibrc`, a test file, a link where the report or the SARIF file goes, a configuration file
with a 2 MB line) runs code in the step, changes what it reports, writes outside the workspace
or gets uploaded as this run's report; and the job summary stays within GitHub's 1 MiB.

The steps run as in tests/test_action.py: bash, the runner's files simulated in a folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from humanjudge_schema.finding import Finding, Severity
from humanjudge_schema.report.github import SUMMARY_LIMIT, cell, summary
from humanjudge_schema.validation import Result

from . import test_action
from .test_action import EXAMPLES, Runner, commit

runner, pull_request = test_action.runner, test_action.pull_request  # the fixtures, shared

MATPLOTLIBRC = "figure.hooks: unittest.__main__:main\nfont.size: 40\nlines.linewidth: 9\n"


def _hostile_commit(ws: Path, marker: Path) -> None:
    """Broken data, a matplotlibrc whose figure hook runs unittest's main (which imports the
    folder's test_*.py), and such a test file that leaves a marker."""
    shutil.copy(EXAMPLES / "broken" / "human_data_ind.json", ws / "exp2" / "human_data_ind.json")
    (ws / "matplotlibrc").write_text(MATPLOTLIBRC)
    (ws / "test_pwn.py").write_text(
        textwrap.dedent(f"""
        import pathlib
        pathlib.Path({str(marker)!r}).write_text("the pull request ran code")
        """)
    )
    commit(ws)


def test_a_matplotlibrc_in_the_pull_request_runs_nothing(pull_request: tuple[Runner, str], tmp_path: Path) -> None:
    runner, base = pull_request
    marker = tmp_path / "marker"
    _hostile_commit(runner.workspace, marker)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_REPORT="report.html")
    assert not marker.exists(), "the pull request's code ran in the validate step"
    assert proc.returncode == 1, proc.stdout + proc.stderr
    outputs = runner.outputs()
    errors = int(outputs["errors"])
    assert errors > 0 and outputs["report"] == "report.html"
    assert f"**{errors} errors, 0 warnings in 5 files.**" in runner.summary()
    assert "Report written to report.html" in proc.stdout


def _plot_in(folder: Path, env: dict[str, str]) -> bytes:
    code = "from humanjudge_schema.judgments import plots; print(plots.bars([('a', 3), ('$x^{$', 1)], 'q'))"
    proc = subprocess.run(
        [sys.executable, "-I", "-c", code], cwd=folder, env=env, capture_output=True, check=True, timeout=120
    )
    return proc.stdout


def test_no_rc_file_of_the_folder_or_the_user_changes_a_plot(tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    clean.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MPL", "MATPLOTLIB"))}
    expected = _plot_in(clean, env)
    hostile = tmp_path / "hostile"
    (hostile / "config").mkdir(parents=True)
    (hostile / "matplotlibrc").write_text(MATPLOTLIBRC)
    (hostile / "config" / "matplotlibrc").write_text(MATPLOTLIBRC)
    (hostile / "elsewhere.rc").write_text(MATPLOTLIBRC)
    configured = dict(env, MPLCONFIGDIR=str(hostile / "config"), MATPLOTLIBRC=str(hostile / "elsewhere.rc"))
    assert _plot_in(hostile, configured) == expected
    assert b"<svg" in expected


def test_a_matplotlibrc_that_never_ends_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "matplotlibrc").symlink_to("/dev/zero")
    code = "from humanjudge_schema.judgments import plots; print(len(plots.bars([('a', 1)], 'q')))"
    proc = subprocess.run([sys.executable, "-I", "-c", code], cwd=tmp_path, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) > 1000


# --- what the step writes -----------------------------------------------------------------------


def test_a_link_at_the_report_path_is_removed_not_uploaded(pull_request: tuple[Runner, str]) -> None:
    runner, base = pull_request
    ws = runner.workspace
    (ws / "report.html").symlink_to(".git/config")
    (ws / "exp2" / "config.json").write_text((ws / "exp2" / "config.json").read_text() + "\n")  # a dataset changes
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_REPORT="report.html")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "::warning title=humanjudge::no report: " in proc.stdout and "symbolic link" in proc.stdout
    assert "(not this run's) was removed" in proc.stdout
    assert not os.path.lexists(ws / "report.html")
    assert runner.outputs()["report"] == ""  # so the upload step does not run
    assert (ws / ".git" / "config").read_text().startswith("[core]")


@pytest.mark.parametrize("change_data", [True, False])
def test_a_committed_report_is_never_taken_for_this_runs(pull_request: tuple[Runner, str], change_data: bool) -> None:
    runner, base = pull_request
    ws = runner.workspace
    (ws / "report.html").write_text("<p>all green, trust me</p>\n")
    if change_data:
        (ws / "exp2" / "config.json").write_text((ws / "exp2" / "config.json").read_text() + "\n")
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base, HUMANJUDGE_REPORT="report.html")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    if change_data:  # replaced by this run's
        page = (ws / "report.html").read_text()
        assert page.startswith("<!DOCTYPE html>") and "trust me" not in page
        assert runner.outputs()["report"] == "report.html"
    else:  # nothing to check, no report: the committed one is removed, and nothing is uploaded
        assert not (ws / "report.html").exists()
        assert runner.outputs()["report"] == ""


@pytest.mark.parametrize("input_name", ["HUMANJUDGE_SARIF", "HUMANJUDGE_REPORT"])
def test_a_folder_linked_out_of_the_workspace_is_refused(runner: Runner, tmp_path: Path, input_name: str) -> None:
    ws = runner.workspace
    shutil.copytree(EXAMPLES / "valid", ws / "exp")
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "out").symlink_to(outside)
    proc = runner.validate(HUMANJUDGE_PATHS="exp", **{input_name: "out/deep/file"})
    assert list(outside.iterdir()) == [], "the step wrote outside the workspace"
    assert "leads outside the workspace" in proc.stdout
    outputs = runner.outputs()
    assert outputs["sarif"] == outputs["report"] == ""
    # SARIF asked for and not written fails the step; a report that cannot be made is a warning
    assert proc.returncode == (2 if input_name == "HUMANJUDGE_SARIF" else 0)


def test_a_sarif_path_that_is_a_link_fails_the_step_and_is_removed(runner: Runner, tmp_path: Path) -> None:
    ws = runner.workspace
    shutil.copytree(EXAMPLES / "valid", ws / "exp")
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    (ws / "results.sarif").symlink_to(victim)
    proc = runner.validate(HUMANJUDGE_PATHS="exp", HUMANJUDGE_SARIF="results.sarif")
    assert proc.returncode == 2
    assert "::error title=humanjudge::no SARIF file:" in proc.stdout
    assert victim.read_text() == "keep me\n"
    assert not os.path.lexists(ws / "results.sarif")
    assert runner.outputs()["sarif"] == ""


def test_a_sarif_path_that_is_a_device_is_refused(runner: Runner) -> None:
    ws = runner.workspace
    shutil.copytree(EXAMPLES / "valid", ws / "exp")
    proc = runner.validate(HUMANJUDGE_PATHS="exp", HUMANJUDGE_SARIF="/dev/null")
    assert proc.returncode == 2
    assert "::error title=humanjudge::no SARIF file:" in proc.stdout
    assert Path("/dev/null").is_char_device()


# --- the job summary ----------------------------------------------------------------------------


def test_markup_in_a_cell_is_shown_as_text() -> None:
    text = cell("![pixel](https://example.org/p.png) [click](https://example.org) __init__.py *b* <img src=x> a|b")
    for markup in ("![", "](", "[", "__", "*", "<img", "|"):
        assert markup not in text
    assert "human_data_ind.json" in cell("human_data_ind.json")  # an underscore in a word is no emphasis


def test_a_cell_quoting_a_huge_value_is_cut() -> None:
    text = cell("x" * 2_000_000)
    assert len(text) < 3000 and "1,998,000 more characters" in text


def test_the_summary_stays_within_githubs_limit() -> None:
    findings = [
        Finding("schema/type", Severity.ERROR, "y" * 5000, f"data/file{i % 50_000}.json", f"/{i}", i)
        for i in range(200_000)
    ]
    note = "\n".join("z" * 100 for _ in range(30_000))  # 3 MB of notes
    text = summary(Result(findings, 50_000), note=note)
    assert len(text.encode()) <= SUMMARY_LIMIT
    assert "**200000 errors, 0 warnings in 50000 files.**" in text
    assert "more bytes of these notes not shown" in text
    assert "more findings not listed" in text or "more bytes of the summary not shown" in text


def test_a_two_megabyte_configuration_line_keeps_the_summary_small(pull_request: tuple[Runner, str]) -> None:
    runner, base = pull_request
    ws = runner.workspace
    (ws / "pyproject.toml").write_text("[tool.humanjudge]\nignore = ['" + "a" * 2_000_000 + "']\n")
    shutil.copy(EXAMPLES / "broken" / "human_data_ind.json", ws / "exp2" / "human_data_ind.json")
    commit(ws)
    proc = runner.validate(HUMANJUDGE_BASE=base)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    text = runner.summary()
    assert len(text.encode()) < SUMMARY_LIMIT
    errors = int(runner.outputs()["errors"])
    assert "more characters" in text and f"**{errors} errors, 0 warnings in 5 files.**" in text and errors > 0


# --- configuration files ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["device", "fifo", "huge"])
def test_a_configuration_file_that_is_no_file_or_too_large_is_refused_unread(tmp_path: Path, kind: str) -> None:
    shutil.copytree(EXAMPLES / "valid", tmp_path / "exp")
    config = tmp_path / "exp" / ("pyproject.toml" if kind == "huge" else "humanjudge.toml")
    if kind == "device":
        config.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(config)
    else:
        config.write_text("[tool.humanjudge]\nignore = ['" + "a" * 5_000_000 + "']\n")
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "validate", "exp"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    why = "more than a configuration file holds" if kind == "huge" else "is not a regular file"
    assert proc.stderr.startswith(f"humanjudge: {config}: cannot read: ") and why in proc.stderr
    assert proc.stderr.count("\n") == 1
