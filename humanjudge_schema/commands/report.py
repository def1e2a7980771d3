"""`humanjudge report`: a page people would rather look at than read."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .common import FormatName, bootstrap_options, fail, judged


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    help="The HTML file to write (one self-contained page).",
)
@click.option("--kind", type=FormatName(), help="Treat the paths as this format instead of recognising them.")
@bootstrap_options
def report(paths: tuple[Path, ...], output: Path, kind: str | None, samples: int, seed: int) -> None:
    """Write one HTML page about the datasets: what validation found, and per question the
    distribution of the answers, the agreement and the quality findings.

    The page is self-contained (plots are inline SVG; nothing is fetched). Needs matplotlib:
    pip install 'humanjudge-schema[report]'. The exit code is validate's.
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        fail("report needs matplotlib: pip install 'humanjudge-schema[report]'")
    from ..config import ConfigError
    from ..judgments import views
    from ..judgments.html import write_report
    from ..kinds import UsageError
    from ..validation import validate as run
    from ..writing import WriteError

    try:
        result = run(list(paths), kind=kind)
        found = write_report(result, views(judged(paths, kind)), output, samples=samples, seed=seed)
    except (UsageError, ConfigError, WriteError) as exc:
        fail(str(exc))
    counts = [(len(found), "dataset"), (result.errors, "error"), (result.warnings, "warning")]
    click.echo(f"wrote {output}: " + ", ".join(f"{n} {word}{'' if n == 1 else 's'}" for n, word in counts))
    sys.exit(1 if result.errors else 0)
