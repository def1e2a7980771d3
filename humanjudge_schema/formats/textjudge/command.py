"""`humanjudge render`, a command of the TextJudge format alone: the prompts its templates make
from each instance. The catalog declaration names it, and the command line offers it."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ...commands.common import fail


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

    from ...writing import WriteError, check_target, write_atomic
    from .prompts import DatasetError, TemplateError, render_prompts

    if output is not None and output.resolve() == dataset.resolve():
        fail(f"{output} is the dataset itself; write the prompts elsewhere")
    try:
        if output is not None:
            check_target(output, [dataset])
    except WriteError as exc:
        fail(str(exc))
    try:
        prompts = list(render_prompts(dataset, metric, prompt_field, instance_id))
    except DatasetError as exc:
        fail(str(exc))
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
            fail(str(exc))
        click.echo(f"wrote {len(prompts)} prompt{'' if len(prompts) == 1 else 's'} to {output}", err=True)
