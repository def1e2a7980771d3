"""The `humanjudge` command. The only module that imports click; everything it does is a call
into the library, and every way it can fail ends in a one-line message and exit code 2."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from ._version import __version__


class _FormatName(click.ParamType):  # type: ignore[type-arg]
    """A format of the catalog, looked up only when the option is given: reading the installed
    formats would slow every start, `--version` and `--help` included."""

    name = "format"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "FORMAT"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from .catalog import names

        if value not in names():
            self.fail(f"{value!r} is not a format; choose from {', '.join(names())}", param, ctx)
        return str(value)


def _fail(message: str) -> NoReturn:
    from .finding import escape_control

    # The message may quote a path or a value from the data: it stays one line.
    click.echo(f"humanjudge: {escape_control(message)}", err=True)
    sys.exit(2)


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(v.strip() for item in values for v in item.split(",") if v.strip())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="humanjudge", message="%(prog)s %(version)s")
def cli() -> None:
    """Check that datasets of human judgments are what their format promises.

    Formats: CogGym experiments, TextJudge / JUDGE-BENCH datasets, the crowdsourced RAG writing
    study (study1_*.jsonl.gz) and HALIE interaction data (CSV). Every finding has a file, a line,
    a JSON pointer and a stable rule code (`humanjudge rules` lists them).

    Exit codes: 0 no errors, 1 errors found, 2 usage error or unreadable input.
    """


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--kind",
    type=_FormatName(),
    help="Treat the paths as this format instead of recognising them by name and content "
    "(`humanjudge formats` lists them).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
    help="Output format: github prints workflow commands (annotations) and, when GITHUB_STEP_SUMMARY is set, "
    "appends a Markdown summary of every finding to it; sarif is SARIF 2.1.0 for code scanning.",
)
@click.option("--strict", is_flag=True, help="Warnings fail too (exit code 1).")
@click.option(
    "--select",
    multiple=True,
    metavar="CODES",
    help="Only these codes or prefixes (comma-separated; replaces the configured list).",
)
@click.option(
    "--ignore",
    multiple=True,
    metavar="CODES",
    help="Skip these codes or prefixes (comma-separated; added to the configured list).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Use this pyproject.toml or humanjudge.toml instead of searching for one.",
)
@click.option(
    "--isolated",
    is_flag=True,
    help="Use no configuration file: the defaults and the flags only.",
)
@click.option(
    "--show-settings",
    is_flag=True,
    help="Print which configuration file applies to each dataset and the settings it resolves to; check nothing.",
)
@click.option("-v", "--verbose", is_flag=True, help="Also say on stderr which configuration files were used.")
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="Check this many datasets at a time, in separate processes (0: one per CPU core).",
)
@click.option(
    "--skip-unknown",
    is_flag=True,
    help="Skip files of no known format instead of failing (for hooks that pass every changed file).",
)
@click.option(
    "--max-per-code",
    type=click.IntRange(min=0),
    metavar="N",
    help="List at most N findings of one code per file; the rest are counted in one more finding "
    "(0: list every one). Default: the configuration's max-per-code, else 1000.",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show a progress bar on stderr. Default: only on a terminal, outside CI, for runs over half a second.",
)
def validate(
    paths: tuple[Path, ...],
    kind: str | None,
    fmt: str,
    strict: bool,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    config_file: Path | None,
    isolated: bool,
    show_settings: bool,
    verbose: bool,
    jobs: int,
    skip_unknown: bool,
    max_per_code: int | None,
    progress: bool | None,
) -> None:
    """Validate dataset files and folders.

    A folder is searched recursively for every experiment, dataset and file set it holds; a file
    is checked together with the other files of its dataset (its experiment folder, say), since
    the rules span files.
    """
    from .config import Config, ConfigError, load_file
    from .kinds import UsageError
    from .progress import Bar, wanted
    from .report import render
    from .rulebook import UnknownCode, check_selectors
    from .validation import validate as run

    if isolated and config_file:
        _fail("--isolated and --config exclude each other")
    try:
        check_selectors(_split(select), "--select")
        check_selectors(_split(ignore), "--ignore")
        config = load_file(config_file) if config_file else Config() if isolated else None
        if show_settings:
            from .settings import describe

            settings = describe(list(paths), kind, config, _split(select) or None, _split(ignore), max_per_code)
            click.echo(settings, nl=False)
            return
    except (UsageError, ConfigError, UnknownCode) as exc:
        _fail(str(exc))
    bar = Bar(sys.stderr) if progress or (progress is None and wanted(sys.stderr)) else None
    try:
        result = run(
            list(paths),
            kind=kind,
            config=config,
            select=_split(select) or None,
            ignore=_split(ignore),
            jobs=jobs,
            skip_unknown=skip_unknown,
            progress=bar,
            keep=_PARSED,
            max_per_code=max_per_code,
        )
    except (UsageError, ConfigError) as exc:
        _fail(str(exc))
    if verbose:
        used = ", ".join(map(str, result.configs)) or "none (the defaults)"
        click.echo(f"humanjudge: configuration: {used}", err=True)
    click.echo(render(result, fmt), nl=False)
    if fmt == "github" and os.environ.get("GITHUB_STEP_SUMMARY"):
        from .report.github import append_to, summary

        append_to(os.environ["GITHUB_STEP_SUMMARY"], summary(result))
    sys.exit(1 if result.errors or (strict and result.warnings) else 0)


@cli.command()
def formats() -> None:
    """List the formats humanjudge knows (the built-in ones and any installed plug-in) and their files."""
    from .catalog import formats as catalog

    for fmt in catalog().values():
        files = ", ".join(f.name for f in fmt.files) or (f"any *{fmt.one_file.suffix}" if fmt.one_file else "")
        click.echo(f"{fmt.name:<10} {fmt.title}: {files}")


@cli.command()
@click.argument("code", required=False)
def rules(code: str | None) -> None:
    """List every rule code, or the codes of a family or prefix (coggym, parse), or explain one
    code with a bad and a good example."""
    from .rulebook import closest, load_all

    registry = load_all()
    doc = registry.get(code) if code is not None else None
    if doc is not None:
        click.echo(f"{doc.code} ({doc.severity.value}): {doc.summary}\n\n{doc.why}\n")
        click.echo("Bad:\n" + _indent(doc.bad) + "\n\nGood:\n" + _indent(doc.good))
        return
    prefix = (code or "").rstrip("/")
    listed = sorted(c for c in registry if not prefix or c.startswith(prefix + "/"))
    if not listed:
        near = closest(prefix, limit=3)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        _fail(f"no rule or family {code!r}{hint}")
    width = max(len(c) for c in listed)
    for c in listed:
        entry = registry[c]
        click.echo(f"{c:<{width}}  {entry.severity.value:<7}  {entry.summary}")


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


@cli.command()
@click.argument("experiment", metavar="PATH", type=click.Path(path_type=Path, exists=True))
@click.option("--check", is_flag=True, help="Report how the stored aggregates differ; write nothing.")
@click.option("--force", is_flag=True, help="Overwrite an existing human_data_mean.json (CogGym).")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write here instead of EXPERIMENT/human_data_mean.json; for a TextJudge dataset, where the "
    "corrected copy goes.",
)
@click.option("--in-place", is_flag=True, help="Overwrite the TextJudge dataset itself with the corrected copy.")
def aggregate(experiment: Path, check: bool, force: bool, output: Path | None, in_place: bool) -> None:
    """Recompute aggregates from the individual data.

    PATH is a CogGym experiment folder (writes human_data_mean.json) or a TextJudge dataset .json
    file (recomputes mean_human and majority_human; the corrected copy goes to -o FILE, or over
    the input with --in-place; only the wrong values change).
    """
    from .aggregate import AggregateError
    from .formats.coggym.aggregate import aggregate_experiment
    from .writing import WriteError

    try:
        if experiment.is_dir():
            if in_place:
                raise AggregateError("--in-place is for TextJudge dataset files, not CogGym experiments")
            message, code = aggregate_experiment(experiment, check=check, force=force, output=output)
        elif experiment.suffix == ".json":
            from .formats.textjudge.rules import aggregate_dataset

            if force:
                raise AggregateError("--force is for CogGym experiments; use -o FILE or --in-place")
            message, code = aggregate_dataset(experiment, check=check, output=output, in_place=in_place)
        else:
            raise AggregateError(f"{experiment}: not a CogGym experiment folder or a TextJudge dataset (.json)")
    except (AggregateError, WriteError) as exc:
        _fail(str(exc))
    click.echo(message)
    sys.exit(code)


@cli.command()
@click.argument("dataset", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--metric", help="Only this metric (default: every metric with the chosen prompt).")
@click.option(
    "--prompt-field",
    default="prompt",
    show_default=True,
    metavar="FIELD",
    help="The template to render: prompt, prompt_fsp or prompt_paraphrase_N.",
)
@click.option("--instance", "instance_id", metavar="ID", help="Only the instance with this id.")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "jsonl"]), default="text", show_default=True, help="Output format."
)
@click.option(
    "-o", "--output", type=click.Path(path_type=Path, dir_okay=False), help="Write to this file (atomically)."
)
def render(
    dataset: Path, metric: str | None, prompt_field: str, instance_id: str | None, fmt: str, output: Path | None
) -> None:
    """Render the prompts of a TextJudge dataset from its instances.

    Templates are checked before anything runs and rendered in Jinja's sandbox; a template that
    reaches for Python internals, calls functions or names a field an instance lacks is refused
    (exit code 1), and so is a prompt over 1 MB. With --format jsonl, each line is
    {"id", "metric", "prompt"}, one per instance and metric.
    """
    import orjson

    from .formats.textjudge.prompts import DatasetError, TemplateError, render_prompts
    from .writing import WriteError, check_target, write_atomic

    if output is not None and output.resolve() == dataset.resolve():
        _fail(f"{output} is the dataset itself; write the prompts elsewhere")
    try:
        if output is not None:
            check_target(output, [dataset])
    except WriteError as exc:
        _fail(str(exc))
    try:
        prompts = list(render_prompts(dataset, metric, prompt_field, instance_id))
    except DatasetError as exc:
        _fail(str(exc))
    except TemplateError as exc:
        click.echo(f"humanjudge: {exc}", err=True)
        sys.exit(1)
    chunks: list[bytes] = []
    for p in prompts:
        if fmt == "jsonl":
            chunks.append(orjson.dumps({"id": p.id, "metric": p.metric, "prompt": p.prompt}) + b"\n")
        else:
            text = p.prompt if p.prompt.endswith("\n") else p.prompt + "\n"
            chunks.append(f"==> id {p.id!r}, metric {p.metric!r} <==\n{text}\n".encode())
    data = b"".join(chunks)
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        try:
            write_atomic(output, data)
        except WriteError as exc:
            _fail(str(exc))
        click.echo(f"wrote {len(prompts)} prompt{'' if len(prompts) == 1 else 's'} to {output}", err=True)


@cli.command()
@click.argument("name", required=False)
@click.option("--path", "show_path", is_flag=True, help="Print where the schema file is.")
def schema(name: str | None, show_path: bool) -> None:
    """List the shipped JSON Schemas, or print one (e.g. coggym/v1/trial)."""
    from .schemas import available, schema_path

    names = available()
    if name is None:
        for n in names:
            click.echo(f"{n:<36} {schema_path(n)}")
        return
    matches = [n for n in names if n == name or n.startswith(name + "/") or n.endswith("/" + name)]
    if len(matches) != 1:
        _fail(f"no single schema named {name!r}; choose one of: {', '.join(matches or names)}")
    path = schema_path(matches[0])
    click.echo(str(path) if show_path else path.read_text(encoding="utf-8"), nl=show_path)


# The documents of the last file `validate` checked. Freeing a 50 MB dataset's millions of objects
# takes 0.1 s, about a tenth of the whole run; the console command leaves them to the operating
# system instead (see main).
_PARSED: list[object] = []


def _exit_now(code: object) -> NoReturn:
    """Exit like sys.exit(code) without freeing the heap: flush the output, then os._exit."""
    status = code if isinstance(code, int) else (0 if code is None else 1)
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass
    os._exit(status)


def main(argv: list[str] | None = None) -> Any:
    try:
        return cli.main(args=argv, prog_name="humanjudge")
    except SystemExit as exc:
        if argv is None and _PARSED:  # run as the console command, not called from Python
            _exit_now(exc.code)
        raise
    except KeyboardInterrupt:
        _fail("interrupted")
    except BrokenPipeError:
        sys.exit(0)
    except Exception as exc:  # the promise: one line and exit 2, never a traceback
        from .catalog import CatalogError

        if isinstance(exc, CatalogError):  # a broken installation or plug-in, not a bug
            _fail(str(exc))
        _fail(f"internal error: {exc!r} (please report it)")
