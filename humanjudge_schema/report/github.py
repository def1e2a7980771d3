"""GitHub Actions: findings as workflow commands (annotations), a Markdown job summary, step
outputs, and the step that the composite action in action.yml runs.

GitHub turns `::error file=...,line=...::message` lines into annotations, but shows only ten of
each type per step; the job summary is where every finding is listed. Everything a dataset
author controls (file names, messages quoting their values) is escaped, so no finding can end a
command early or start a new one.

`python -m humanjudge_schema.report.github` is the action's validation step: it reads its inputs
from environment variables (never from text pasted into a script), runs `humanjudge validate`,
and writes annotations, the summary, the outputs and, on request, a SARIF file.
"""

from __future__ import annotations

import html
import os
import re
import shlex
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from ..finding import Finding, Severity
from ..kinds import COGGYM_FILES, HALIE_FILES, STUDY1_FILES
from ..validation import Result

# The files a pull request may change that belong to a dataset: every name the formats fix, and
# any .json file (a TextJudge dataset can have any name; `--skip-unknown` drops the others).
# .pre-commit-hooks.yaml uses the same pattern for its `humanjudge` hooks (a test keeps them equal).
_FIXED_NAMES = sorted(n for n in {*COGGYM_FILES, *STUDY1_FILES, *HALIE_FILES} if not n.endswith(".json"))
DATASET_FILE = re.compile(r"(^|/)(" + "|".join(map(re.escape, _FIXED_NAMES)) + r")$|\.json$")

ANNOTATIONS_SHOWN = 10  # per type and step: GitHub's limit
SUMMARY_LIMIT = 1024 * 1024  # bytes a step summary may hold
_SUMMARY_BUDGET = SUMMARY_LIMIT - 64 * 1024  # room for what other steps add


def escape_data(text: str) -> str:
    """Escape the message of a workflow command."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value (file, title) of a workflow command."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(finding: Finding) -> str:
    """One finding as a workflow command: `::error file=F,line=L,col=C,title=CODE::message`."""
    props = []
    if finding.file:
        props.append(f"file={escape_property(finding.file)}")
        if finding.line is not None:
            props.append(f"line={finding.line}")
            if finding.column is not None:
                props.append(f"col={finding.column}")
    props.append(f"title={escape_property(finding.code)}")
    at = f" (at {finding.pointer})" if finding.pointer else ""
    return f"::{finding.severity.value} {','.join(props)}::{escape_data(finding.message + at)}"


def render(result: Result) -> str:
    """Every finding as a workflow command, then the one-line tally."""
    lines = [command(f) for f in result.findings]
    lines.append(_tally(result))
    return "\n".join(lines) + "\n"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _tally(result: Result) -> str:
    files = _plural(result.files, "file")
    if not result.findings:
        return f"No problems in {files}."
    return f"{_plural(result.errors, 'error')}, {_plural(result.warnings, 'warning')} in {files}."


def _cell(text: object) -> str:
    """Text for a Markdown table cell: no HTML, no column breaks, one line."""
    value = html.escape(str(text), quote=False).replace("|", "&#124;")
    return " ".join(value.splitlines()) if "\n" in value or "\r" in value else value


def _code(text: str) -> str:
    return f"<code>{_cell(text)}</code>" if text else ""


def summary(result: Result, *, title: str = "humanjudge validate", note: str = "") -> str:
    """The job summary in Markdown: the tally, counts per code and per file, then every finding.

    The list is cut only where GitHub's 1 MiB limit on a step summary would be passed, and then
    says how many findings it leaves out; the counts above it are always complete.
    """
    out = [f"## {_cell(title)}", "", f"**{_tally(result)}**", ""]
    if note:
        out += [note, ""]
    if not result.findings:
        return "\n".join(out)
    by_code: Counter[tuple[str, Severity]] = Counter()
    for f in result.findings:
        by_code[f.code, f.severity] += f.count
    out += ["| code | severity | findings |", "|---|---|---:|"]
    for (code, severity), n in sorted(by_code.items(), key=lambda item: (-item[1], item[0][0])):
        out.append(f"| {_code(code)} | {severity.value} | {n} |")
    per_file: dict[str, list[int]] = {}
    for f in result.findings:
        counts = per_file.setdefault(f.file, [0, 0])
        counts[f.severity is Severity.WARNING] += f.count
    out += ["", "| file | errors | warnings |", "|---|---:|---:|"]
    for file, (errors, warnings) in sorted(per_file.items()):
        out.append(f"| {_code(file) or '(no file)'} | {errors} | {warnings} |")
    shown = result.errors > ANNOTATIONS_SHOWN or result.warnings > ANNOTATIONS_SHOWN
    out += [
        "",
        f"<details{' open' if len(result.findings) <= 50 else ''}>"
        f"<summary>All {len(result.findings)} findings</summary>",
        "",
    ]
    if shown:
        out += ["GitHub shows only the first 10 annotations of each type; this list has them all.", ""]
    out += [
        "| file | line | severity | code | message | pointer |",
        "|---|---:|---|---|---|---|",
    ]
    size = sum(len(line.encode()) + 1 for line in out)
    for i, f in enumerate(result.findings):
        where = "" if f.line is None else f"{f.line}" + ("" if f.column is None else f":{f.column}")
        row = (
            f"| {_code(f.file)} | {where} | {f.severity.value} | {_code(f.code)} | {_cell(f.message)} "
            f"| {_code(f.pointer)} |"
        )
        size += len(row.encode()) + 1
        if size > _SUMMARY_BUDGET:
            left = len(result.findings) - i
            out.append(
                f"\n{_plural(left, 'more finding')} not listed: a step summary holds at most 1 MiB. "
                "The job log has every finding; run `humanjudge validate` locally or upload the SARIF file."
            )
            break
        out.append(row)
    out += ["", "</details>", ""]
    return "\n".join(out)


def append_to(path: str | os.PathLike[str], text: str) -> None:
    """Append to a file GitHub reads after the step (GITHUB_STEP_SUMMARY, GITHUB_OUTPUT)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(text if text.endswith("\n") else text + "\n")


def outputs(values: Mapping[str, object]) -> str:
    """Step outputs in the GITHUB_OUTPUT syntax (single-line values only)."""
    lines = []
    for key, value in values.items():
        text = str(value)
        if "\n" in text or "\r" in text:
            raise ValueError(f"output {key!r} must be one line")
        lines.append(f"{key}={text}")
    return "\n".join(lines) + "\n"


# --- the action's step -----------------------------------------------------------------------


def _split(text: str) -> list[str]:
    """Paths or arguments from a multi-line input: one or more per line, shell-quoted."""
    return [word for line in text.splitlines() for word in shlex.split(line, comments=True)]


def changed_files(base: str, cwd: Path) -> list[str]:
    """Dataset files the pull request adds or changes, relative to the repository root.

    The checkout may be shallow: the base commit is fetched when it is missing.
    """

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)

    if git("cat-file", "-e", f"{base}^{{commit}}").returncode != 0:
        fetched = git("fetch", "--no-tags", "--depth=1", "origin", base)
        if fetched.returncode != 0:
            raise RuntimeError(f"cannot fetch the base commit {base}: {fetched.stderr.strip()}")
    diff = git("diff", "--name-only", "--no-renames", "--diff-filter=ACMR", "-z", base, "HEAD")
    if diff.returncode != 0:
        raise RuntimeError(f"git diff failed: {diff.stderr.strip()}")
    names = [n for n in diff.stdout.split("\0") if n]
    return sorted(n for n in names if DATASET_FILE.search(n) and (cwd / n).is_file())


def _result_from_json(doc: Mapping[str, object]) -> Result:
    findings = [
        Finding(
            f["code"],
            Severity(f["severity"]),
            f["message"],
            f["file"],
            f.get("pointer", ""),
            f.get("line"),
            f.get("column"),
        )
        for f in doc["findings"]  # type: ignore[attr-defined]
    ]
    summary_ = doc["summary"]
    return Result(findings, int(summary_["files"]))  # type: ignore[index]


def run_step(env: Mapping[str, str]) -> int:
    """The action's validation step; returns the exit code of the step."""
    import orjson

    workspace = Path(env.get("GITHUB_WORKSPACE") or os.getcwd())
    sarif = env.get("HUMANJUDGE_SARIF", "").strip()
    base = env.get("HUMANJUDGE_BASE", "").strip()
    summary_file = env.get("GITHUB_STEP_SUMMARY")
    output_file = env.get("GITHUB_OUTPUT")
    note = ""

    def finish(result: Result | None, code: int, message: str = "") -> int:
        if message:
            print(f"::error title=humanjudge::{escape_data(message)}")
        if summary_file:
            if result is None:
                append_to(summary_file, f"## humanjudge validate\n\n**Could not validate:** {_cell(message)}\n")
            else:
                append_to(summary_file, summary(result, note=note))
        if output_file:
            errors = "" if result is None else result.errors
            warnings = "" if result is None else result.warnings
            written = sarif if result is not None and sarif and (workspace / sarif).is_file() else ""
            append_to(output_file, outputs({"errors": errors, "warnings": warnings, "sarif": written}))
        return code

    try:
        paths = _split(env.get("HUMANJUDGE_PATHS", ""))
        args = _split(env.get("HUMANJUDGE_ARGS", ""))
    except ValueError as exc:  # an unbalanced quote
        return finish(None, 2, f"cannot read the paths or args input: {exc}")
    if not paths:
        if base:
            try:
                paths = changed_files(base, workspace)
            except RuntimeError as exc:
                return finish(None, 2, str(exc))
            args = ["--skip-unknown", *args]
            if not paths:
                note = "No dataset files changed in this pull request."
                print(note)
                return finish(Result([], 0), 0)
            note = "Checked the datasets this pull request changes, each one whole."
        else:
            paths = ["."]
    command_line = [sys.executable, "-m", "humanjudge_schema", "validate", *args, "--format", "json", "--", *paths]
    proc = subprocess.run(command_line, cwd=workspace, capture_output=True, text=True, check=False)
    if proc.stderr:
        sys.stderr.write(proc.stderr)
    if proc.returncode not in (0, 1):
        message = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit code {proc.returncode}"
        return finish(None, proc.returncode or 2, message)
    result = _result_from_json(orjson.loads(proc.stdout))
    sys.stdout.write(render(result))
    if sarif:
        from .sarif import render as render_sarif

        target = workspace / sarif
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_sarif(result), encoding="utf-8")
        print(f"SARIF written to {sarif}")
    return finish(result, proc.returncode)


def main() -> int:
    return run_step(os.environ)


if __name__ == "__main__":
    sys.exit(main())
