"""export, stats and report behave like the tools people know: the target of -o is checked before
any work, an existing file is replaced only with --force, export says what it wrote (on stderr),
a progress bar moves on a terminal and never elsewhere, and CSV can be made safe to open in a
spreadsheet."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from humanjudge_schema import progress
from humanjudge_schema.commands import cli

from .conftest import CASES, ROOT
from .helpers import tiny_dataset

EXAMPLES = ROOT / "examples"
TEXTJUDGE = EXAMPLES / "textjudge" / "valid"
BROKEN = EXAMPLES / "textjudge" / "broken"


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert "Traceback" not in proc.stderr + proc.stdout
    return proc


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validation and reading judgments fail the test: a refusal comes before any work."""

    def work(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the command started working before refusing")

    monkeypatch.setattr("humanjudge_schema.validation.validate", work)
    monkeypatch.setattr("humanjudge_schema.judgments.views", work)


# --- -o is checked first ------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["export", "report"])
def test_a_target_in_no_folder_is_refused_before_any_work(command: str, tmp_path: Path, no_work: None) -> None:
    (tmp_path / "file").write_text("")
    name = "x.csv" if command == "export" else "x.html"
    for target in (tmp_path / "missing" / name, tmp_path / "file" / name):
        out = _invoke(command, str(TEXTJUDGE), "-o", str(target))
        assert out.exit_code == 2
        assert out.stderr == f"humanjudge: cannot write {target}: {target.parent} is not a folder\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize(("command", "name"), [("export", "rows.csv"), ("report", "report.html")])
def test_an_existing_file_is_replaced_only_with_force(command: str, name: str, tmp_path: Path) -> None:
    target = tmp_path / name
    target.write_text("keep me")
    refused = _run(command, str(TEXTJUDGE), "-o", str(target))
    assert refused.returncode == 2 and refused.stderr == f"humanjudge: {target} exists: use --force to overwrite it\n"
    assert target.read_text() == "keep me"
    forced = _run(command, str(TEXTJUDGE), "-o", str(target), "--force")
    assert forced.returncode == 0 and target.read_text() != "keep me"


@pytest.mark.parametrize("command", ["export", "report"])
def test_a_link_is_refused_before_any_work(command: str, tmp_path: Path, no_work: None) -> None:
    real = tmp_path / "real.html"
    real.write_text("keep me")
    link = tmp_path / ("rows.csv" if command == "export" else "report.html")
    link.symlink_to(real)
    out = _invoke(command, str(TEXTJUDGE), "-o", str(link), "--force")
    assert out.exit_code == 2 and "is a symbolic link" in out.stderr
    assert real.read_text() == "keep me" and link.is_symlink()


@pytest.mark.parametrize("command", ["export", "report"])
def test_what_is_not_a_regular_file_is_refused_before_any_work(command: str, tmp_path: Path, no_work: None) -> None:
    fifo = tmp_path / ("rows.csv" if command == "export" else "report.html")
    os.mkfifo(fifo)
    out = _invoke(command, str(TEXTJUDGE), "-o", str(fifo), "--force")
    assert out.exit_code == 2 and out.stderr.startswith(f"humanjudge: {fifo} is a named pipe (FIFO), not a regular")
    assert fifo.is_fifo()


@pytest.mark.parametrize("command", ["export", "report"])
def test_an_input_is_refused_before_any_work_whatever_its_name(command: str, no_work: None) -> None:
    out = _invoke(command, str(TEXTJUDGE), "-o", str(TEXTJUDGE / "dataset.json"), "--force")
    assert out.exit_code == 2 and "which the output is computed from" in out.stderr


def test_an_extension_no_writer_has_is_a_usage_error_unless_to_says(tmp_path: Path) -> None:
    for command, hint in (("export", "choose one with --to"), ("report", "name a .html or .htm file")):
        out = _run(command, str(TEXTJUDGE), "-o", str(tmp_path / "rows.xlsx"))
        assert out.returncode == 2 and "rows.xlsx" in out.stderr and hint in out.stderr, command
    assert not list(tmp_path.iterdir())
    said = _run("export", str(TEXTJUDGE), "--to", "csv", "-o", str(tmp_path / "rows.xlsx"))
    plain = _run("export", str(TEXTJUDGE), "-o", str(tmp_path / "rows"))  # no extension: CSV
    assert said.returncode == plain.returncode == 0
    assert (tmp_path / "rows.xlsx").read_bytes() == (tmp_path / "rows").read_bytes()
    assert (tmp_path / "rows").read_bytes().startswith(b"format,dataset,")


# --- what export says ---------------------------------------------------------------------------


def test_export_says_on_stderr_what_it_wrote(tmp_path: Path) -> None:
    target = tmp_path / "rows.csv"
    to_file = _run("export", str(TEXTJUDGE), "-o", str(target))
    assert (to_file.returncode, to_file.stdout) == (0, "")
    assert to_file.stderr == f"wrote 17 judgments and 8 stored aggregates from 1 dataset to {target}\n"
    to_stdout = _run("export", str(TEXTJUDGE), str(BROKEN))
    assert to_stdout.returncode == 1 and to_stdout.stdout.startswith("format,dataset,")
    assert "wrote" not in to_stdout.stdout and "error textjudge/mean-value" not in to_stdout.stdout
    assert to_stdout.stderr.endswith("wrote 22 judgments and 11 stored aggregates from 2 datasets to standard output\n")
    assert len(list(csv.reader(io.StringIO(to_stdout.stdout)))) == 1 + 33


def test_quiet_silences_the_findings_and_the_summary_not_the_exit_code() -> None:
    loud, quiet = _run("export", str(BROKEN)), _run("export", str(BROKEN), "-q")
    assert "error textjudge/mean-value" in loud.stderr
    assert (quiet.returncode, quiet.stderr, quiet.stdout) == (1, "", loud.stdout)


def test_the_files_left_out_are_counted_with_a_hint_export_can_follow(tmp_path: Path) -> None:
    (tmp_path / "dataset.json").write_bytes((TEXTJUDGE / "dataset.json").read_bytes())
    (tmp_path / "notes.jsonl").write_text('{"a": 1}\n')
    out = _run("export", str(tmp_path), "-o", str(tmp_path / "rows.csv"))
    assert out.returncode == 0
    left = [line for line in out.stderr.splitlines() if "left out" in line]
    assert left == ["1 file left out: 1 a data file of no known format (humanjudge validate --format json lists them)."]
    assert "--format json lists them" not in _run("export", "--help").stdout  # what the hint names is validate's


# --- progress -----------------------------------------------------------------------------------


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """stderr taken for a terminal, and the bar drawn at once and on every batch."""
    monkeypatch.setattr(progress, "wanted", lambda stream, environ=None: True)
    monkeypatch.setattr(progress.Bar, "DELAY", 0.0)
    monkeypatch.setattr(progress.Bar, "INTERVAL", 0.0)


@pytest.fixture
def large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A TextJudge dataset of 1.7 MB, read in runs of instances (as from 4 MB): several batches."""
    monkeypatch.setattr("humanjudge_schema.formats.textjudge.stream.STREAM_FROM", 64 * 1024)
    data = tiny_dataset("Is it fluent? {{ instance }}")
    one = data["instances"][0]
    data["instances"] = [
        {**one, "id": k, "instance": f"sentence {k} " + "x" * 300, "annotations": {"ok": {**one["annotations"]["ok"]}}}
        for k in range(4000)
    ]
    path = tmp_path / "large.json"
    path.write_text(json.dumps(data))
    return path


def _counts(stderr: str, label: str) -> list[int]:
    """The judgments each drawing of the bar says were read, while the dataset was not done."""
    drawn = [line for line in stderr.split("\r") if line.startswith(label + "[") and "0/1 datasets" in line]
    return [int(line.split("  ")[-2].split()[0].replace(",", "")) for line in drawn if "judgments" in line]


def test_stats_draws_a_bar_that_moves_within_one_dataset(terminal: None, large: Path) -> None:
    out = _invoke("stats", str(large), "--samples", "2")
    assert out.exit_code == 0
    counts = _counts(out.stderr, "reading ")
    assert len(counts) > 1 and counts == sorted(counts) and counts[0] < 4000  # moved before the end
    assert "reading [########################] 100%  1/1 datasets" in out.stderr
    assert "8,000 judgments" in out.stderr and out.stderr.endswith("\r\x1b[K")  # cleared before the table
    assert "\x1b" not in out.stdout and out.stdout.startswith(f"{large} (textjudge)")


def test_export_and_report_draw_their_passes(terminal: None, large: Path, tmp_path: Path) -> None:
    exported = _invoke("export", str(large), "-o", str(tmp_path / "rows.csv"))
    assert exported.exit_code == 0
    # one pass: the dataset is checked as its judgments are read and written
    assert "\rchecking [" not in exported.stderr and "\rexporting [" in exported.stderr
    assert len(_counts(exported.stderr, "exporting ")) > 1
    wrote = f"\r\x1b[Kwrote 4,000 judgments and 4,000 stored aggregates from 1 dataset to {tmp_path / 'rows.csv'}\n"
    assert exported.stderr.endswith(wrote)
    reported = _invoke("report", str(large), "-o", str(tmp_path / "report.html"), "--samples", "2")
    assert reported.exit_code == 0 and "\rchecking [" not in reported.stderr
    assert len(_counts(reported.stderr, "reading ")) > 1


def test_a_dataset_without_judgments_is_named_on_a_line_of_its_own(terminal: None, large: Path, tmp_path: Path) -> None:
    (tmp_path / "pointer.json").write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64 + "\nsize 5\n"
    )
    out = _invoke("stats", str(tmp_path / "pointer.json"), str(large), "--samples", "2")
    assert out.exit_code == 0
    said = next(part for part in out.stderr.split("\n") if "no judgments" in part)
    assert said.split("\r")[-1].startswith("\x1b[Khumanjudge: "), repr(said)  # the bar cleared first


def test_no_progress_draws_nothing_even_on_a_terminal(terminal: None, large: Path) -> None:
    out = _invoke("stats", str(large), "--samples", "2", "--no-progress")
    assert out.exit_code == 0 and out.stderr == ""


def test_no_bar_when_stderr_is_not_a_terminal_unless_asked(
    large: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress.Bar, "DELAY", 0.0)  # a bar would show at once
    monkeypatch.delenv("CI", raising=False)
    target = str(tmp_path / "rows.csv")
    for args in (["stats", str(large), "--samples", "2"], ["export", str(large), "-q", "-o", target]):
        default = _invoke(*args)
        assert default.exit_code == 0 and default.stderr == "", args  # CliRunner's stderr is no terminal
        asked = _invoke(*args, "--progress", "--force") if args[0] == "export" else _invoke(*args, "--progress")
        assert asked.exit_code == 0 and "datasets" in asked.stderr and "\r" in asked.stderr, args


# --- CSV and spreadsheets -----------------------------------------------------------------------


@pytest.fixture
def formulas(tmp_path: Path) -> Path:
    """A dataset whose labels a spreadsheet would run, beside numbers with a sign."""
    labels = ['=HYPERLINK("http://x","y")', "+1+2", "-2+3", "@SUM(A1)", "\tx", "\r=1", "-1", "plain"]
    data = tiny_dataset("{{ instance }}")
    data["annotations"][0]["labels_list"] = labels
    data["annotations"].append({"metric": "score", "category": "graded", "prompt": "{{ instance }}", "worst": -1})
    data["instances"][0]["annotations"] = {
        "ok": {"majority_human": "plain", "individual_human_scores": labels},
        "score": {"mean_human": -0.75, "individual_human_scores": [-1, -0.5]},
    }
    path = tmp_path / "=cmd.json"
    path.write_text(json.dumps(data))
    return path


def _cells(path: Path, *args: str) -> list[dict[str, str]]:
    out = subprocess.run(
        [sys.executable, "-m", "humanjudge_schema", "export", path.name, *args], cwd=path.parent, capture_output=True
    )
    assert out.returncode in (0, 1), out.stderr
    return list(csv.DictReader(io.StringIO(out.stdout.decode(), newline="")))


def test_no_formulas_neutralises_text_cells_and_keeps_numbers(formulas: Path) -> None:
    written = ['=HYPERLINK("http://x","y")', "+1+2", "-2+3", "@SUM(A1)", "\tx", "\r=1", "-1", "plain", "-1", "-0.5"]
    written += ["plain", "-0.75"]  # the scores, then the stored aggregates
    assert [r["value"] for r in _cells(formulas)] == written  # by default, every value as it is
    rows = _cells(formulas, "--no-formulas")
    assert [r["value"] for r in rows] == [
        '\'=HYPERLINK("http://x","y")',
        "'+1+2",
        "'-2+3",
        "'@SUM(A1)",
        "'\tx",
        "'\r=1",
        "-1",  # text that is a number is no formula
        "plain",
        "-1",
        "-0.5",
        "plain",
        "-0.75",
    ]
    assert {r["file"] for r in rows} == {"'=cmd.json"}  # a file name is text too
    assert rows[0]["item"] == "1" and rows[0]["pointer"].startswith("/instances/0/")


def test_no_formulas_is_for_csv_only(formulas: Path) -> None:
    out = _run("export", str(formulas), "--to", "jsonl", "--no-formulas")
    assert out.returncode == 2 and out.stderr == "humanjudge: --no-formulas is for CSV, not jsonl\n"


# --- what to install ----------------------------------------------------------------------------


def test_report_needs_no_plotting_library(tmp_path: Path) -> None:
    """The plots are SVG the package writes: a report is drawn where no plotting library is
    installed (an import of one fails here) and imports none."""
    code = (
        "import sys\nfor name in ('matplotlib', 'plotly', 'bokeh'):\n    sys.modules[name] = None\n"
        "from humanjudge_schema.commands import main\n"
        f"try:\n    main(['report', {str(TEXTJUDGE)!r}, '-o', 'x.html', '--samples', '5'])\n"
        "except SystemExit as exc:\n    print(exc.code)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.stdout.endswith("\n0\n"), proc.stderr
    assert (tmp_path / "x.html").read_text(encoding="utf-8").count("<svg") >= 1


def test_what_is_missing_says_which_extra_to_install() -> None:
    from humanjudge_schema.judgments.export import missing

    assert missing("json", "all", "dataframe()") is None
    assert missing("no_such_module_here", "all", "dataframe()") == (
        "dataframe() needs no_such_module_here: pip install 'humanjudge-schema[all]'"
    )


def test_the_all_extra_installs_what_every_command_may_need() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(extras["all"]) == {*extras["report"], *extras["parquet"], *extras["pandas"]}
    assert any(dep.startswith("pandas") for dep in extras["all"])


def test_stats_text_escapes_control_characters_in_names(tmp_path: Path) -> None:
    data = json.loads((CASES / "textjudge" / "valid" / "rounded-means" / "dataset.json").read_text())
    hostile = "flu\x1b[2K\rency\n  faked  row\u202e"
    data["annotations"][0]["metric"] = hostile
    for instance in data["instances"]:
        instance["annotations"][hostile] = instance["annotations"].pop("fluency")
    (tmp_path / "data.json").write_text(json.dumps(data))
    result = CliRunner().invoke(cli, ["stats", str(tmp_path / "data.json")])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\r" not in result.output and "\u202e" not in result.output
    assert "flu\\x1b[2K\\rency\\n  faked  row\\u202e" in result.output
    assert not any(line.startswith("  faked") for line in result.output.splitlines())
