"""`humanjudge render`, a command of the TextJudge format alone: the prompts its templates make
from each instance. The catalog declaration names it, and the command line offers it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

import click

from ...commands.common import check_output, fail, force_option

if TYPE_CHECKING:
    from .prompts import Prompt


@click.command()
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
@force_option
def render(
    dataset: Path,
    metric: str | None,
    prompt_field: str,
    instance_id: str | None,
    fmt: str,
    output: Path | None,
    force: bool,
) -> None:
    """Render the prompts of a TextJudge dataset from its instances.

    Templates are checked before anything runs and rendered in Jinja's sandbox; a template that
    reaches for Python internals, calls functions or names a field an instance lacks is refused
    (exit code 1), and so is a prompt over 1 MB. With --format jsonl, each line is
    {"id", "metric", "prompt"}, one per instance and metric. Prompts are written as they are
    rendered: -o FILE appears whole or not at all; on standard output, a prompt refused half-way
    ends the output there (exit code 1).
    """
    from ...writing import WriteError, open_atomic
    from .prompts import DatasetError, TemplateError, render_prompts

    if output is not None:
        check_output(output, [dataset], force)  # as export and report check theirs, before any work
    try:
        prompts = render_prompts(dataset, metric, prompt_field, instance_id)  # checks everything first
        if output is None:
            count = _write(prompts, fmt, sys.stdout.buffer)
            sys.stdout.flush()
        else:
            with open_atomic(output, [dataset]) as f:
                count = _write(prompts, fmt, f)
    except (DatasetError, WriteError) as exc:
        fail(str(exc))
    except TemplateError as exc:
        click.echo(f"humanjudge: {exc}", err=True)
        sys.exit(1)
    if output is not None:
        click.echo(f"wrote {count} prompt{'' if count == 1 else 's'} to {output}", err=True)


def _write(prompts: Iterator[Prompt], fmt: str, out: IO[bytes]) -> int:
    """Write the prompts one by one, as they are rendered: memory holds one prompt at a time."""
    import orjson

    count = 0
    for p in prompts:
        if fmt == "jsonl":
            out.write(orjson.dumps({"id": p.id, "metric": p.metric, "prompt": p.prompt}) + b"\n")
        else:
            text = p.prompt if p.prompt.endswith("\n") else p.prompt + "\n"
            out.write(f"==> id {p.id!r}, metric {p.metric!r} <==\n{text}\n".encode())
        count += 1
    return count
