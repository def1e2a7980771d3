"""`humanjudge report`: a page people would rather look at than read."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import click

from .common import (
    PARSED,
    FormatName,
    bootstrap_options,
    check_output,
    fail,
    force_option,
    jobs_option,
    judged,
    progress_option,
)
from .stats import JOBS

SUFFIXES = (".html", ".htm")


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    help="The HTML file to write (one self-contained page): a .html or .htm name.",
)
@force_option
@click.option("--kind", type=FormatName(), help="Treat the paths as this format instead of recognising them.")
@bootstrap_options
@jobs_option(JOBS)
@progress_option
def report(
    paths: tuple[Path, ...],
    output: Path,
    force: bool,
    kind: str | None,
    samples: int,
    seed: int,
    jobs: int,
    progress: bool | None,
) -> None:
    """Write one HTML page about the datasets: what validation found, and per question the
    distribution of the answers, the agreement and the quality findings.

    The page is self-contained (plots are inline SVG; nothing is fetched). The exit code is
    validate's.
    """
    from ..config import ConfigError
    from ..judgments.describe_jobs import described
    from ..judgments.html import shown, write_page
    from ..kinds import UsageError
    from ..progress import on_stderr, views
    from ..reading import Reading, read_in_worker
    from ..rulebook import load_all
    from ..workers import jobs_of
    from ..writing import WriteError

    try:
        # each dataset checked as its judgments are read: its files are read once
        reading = Reading(list(paths), kind=kind)
        why: dict[tuple[str, Path], str] = {}
        datasets = [_heard(d, why) for d in judged(paths, kind, found=reading.units)]
        inputs = [f for unit in reading.units for f in unit.files]  # those without judgments too
        html = output.suffix.lower() in SUFFIXES
        check_output(
            output,
            inputs,
            force,
            None if html else f"-o {output}: the report is an HTML page; name a .html or .htm file",
        )
        bar = on_stderr(progress, "reading ")
        if jobs_of(jobs) > 1 and len(datasets) > 1:  # checked and described in workers, the plots here
            # each worker checks its dataset as it reads it, and hands its findings back
            checked = (read_in_worker, reading.record)
            job = partial(shown, samples=samples, seed=seed)
            found = list(described(datasets, jobs=jobs_of(jobs), bar=bar, job=job, checked=checked))
        else:
            found = [shown(view, samples=samples, seed=seed) for view in views(datasets, bar, reading.view)]
        result = reading.result()  # complete once every view has been read
        if jobs_of(jobs) > 1:  # the rules were loaded in the workers: their codes' documentation, here
            load_all()
        PARSED[:] = [reading]  # its last dataset left to the exit (common.PARSED)
        write_page(result, _every(reading.units, found, why), output, inputs)
    except (UsageError, ConfigError, WriteError) as exc:
        fail(str(exc))
    flags = sum(len(ds.stats.quality or ()) for ds in found)  # as the page's overview counts them
    counts = [
        (len(found), "dataset"),
        (result.errors, "error"),
        (result.warnings, "warning"),
        (flags, "quality finding"),
    ]
    click.echo(f"wrote {output}: " + ", ".join(f"{n} {word}{'' if n == 1 else 's'}" for n, word in counts))
    sys.exit(1 if result.errors else 0)


def _heard(dataset: Any, why: dict[tuple[str, Path], str]) -> Any:
    """The dataset (`judgments.Dataset`), with why it holds no judgment kept in `why` as it is
    told (the page shows it under the dataset)."""
    from dataclasses import replace

    told = dataset.told

    def heard(unit: Any, said: str | None) -> None:
        if said is not None:
            why[(unit.family, unit.root)] = said
        told(unit, said)

    return replace(dataset, told=heard)


def _every(units: Sequence[Any], found: Sequence[Any], why: dict[tuple[str, Path], str]) -> list[Any]:
    """Every dataset of the run in order, each with a row and a section of its own: those read
    (`found`, `html.Shown`) and those without judgments (`html.unread`), whose findings are then
    under them rather than among files of no dataset."""
    from ..judgments.html import unread
    from ..readers.files import display_path

    by_files = {shown.files: shown for shown in found}
    out = []
    for unit in units:
        files = tuple(display_path(f) for f in unit.files)
        shown = by_files.get(files)
        if shown is None:
            said = why.get((unit.family, unit.root), f"the {unit.family} format declares no judgments")
            shown = unread(display_path(unit.root), unit.family, files, said)
        out.append(shown)
    return out
