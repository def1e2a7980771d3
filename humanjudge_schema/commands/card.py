"""`humanjudge card`: a Croissant dataset card written from the data, or a card checked against it."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .common import FormatName, bootstrap_options, check_output, fail, force_option

if TYPE_CHECKING:
    from ..card import Described


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the card to this file (default: standard output). The card names the data files by their "
    "path relative to this file's folder (on standard output: to the current folder).",
)
@force_option
@click.option(
    "--check",
    "card",
    type=click.Path(path_type=Path),  # a folder is read as any card is, and refused as a finding
    metavar="CARD",
    help="Compare this card (written by hand, by a hub or by `humanjudge card`) with the data instead of "
    "writing one: each contradiction is a card/ finding; exit code 1 on errors.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
    help="Output format of --check's findings, as validate's.",
)
@click.option("--strict", is_flag=True, help="With --check: warnings (fields left to fill in) fail too (exit code 1).")
@click.option(
    "--validate",
    "validate_card",
    is_flag=True,
    help="Also validate the written card with mlcroissant (needs -o and pip install 'humanjudge-schema[card]').",
)
@click.option("--kind", type=FormatName(), help="Treat the paths as this format instead of recognising them.")
@click.option("-q", "--quiet", is_flag=True, help="Print no findings of the data and no summary on stderr.")
@bootstrap_options
def card(
    paths: tuple[Path, ...],
    output: Path | None,
    force: bool,
    card: Path | None,
    fmt: str,
    strict: bool,
    validate_card: bool,
    kind: str | None,
    quiet: bool,
    samples: int,
    seed: int,
) -> None:
    """Write a Croissant 1.0 card (JSON-LD, with the Responsible-AI fields) for a dataset, or for a
    repository of datasets.

    Paths that hold one dataset (an experiment folder, a task folder, a file set or a file) get
    its card; paths that hold several (a folder of experiments, of TextJudge files) get one card
    of them all: each file once in its distribution, each dataset's record sets named under its
    path, and each computed RAI field a section per dataset. A dataset whose data is not there
    (a Git LFS pointer) is left out, and said to be. The card has the dataset's name, description,
    citation and URL where its files state them and a `FILL IN:` placeholder where they do not,
    one FileObject per data file (size, SHA-256), record sets that read the judgments from the
    original files where Croissant can express their layout, and rai:annotationsPerItem,
    rai:annotatorDemographics, rai:dataAnnotationAnalysis and rai:dataCollectionMissingData
    computed from the judgments (the figures of `humanjudge stats` with the same --samples and
    --seed). The data is validated first, as export does: the findings go to standard error and
    the exit code is validate's.

    With --check CARD, compare CARD with the data: a file the dataset does not hold or the card
    leaves out, a size or hash that is not the file's, a number of annotations per item, of
    annotators, of records or of missing answers the data does not show, and each field left to
    fill in (`humanjudge rules card` lists the card/ codes).
    """
    from ..config import ConfigError
    from ..kinds import UsageError

    if card is not None and (output is not None or validate_card):
        fail("--check reads a card: -o and --validate write and validate one")
    if validate_card and output is None:
        fail("--validate needs -o FILE: mlcroissant reads the card from a file")
    if validate_card:
        from ..judgments.export import missing

        if why := missing("mlcroissant", "card", "--validate"):
            fail(why)
    try:
        found = _described(paths, kind)
        if card is not None:
            _check(card, found, fmt, strict)
        _write(found, paths, kind, output, force, quiet, samples, seed, validate_card)
    except (UsageError, ConfigError) as exc:
        fail(str(exc))


def _described(paths: tuple[Path, ...], kind: str | None) -> Described:
    """The dataset under the paths, or the repository of datasets; anything else is a usage error."""
    from ..card import CardError, datasets

    try:
        return datasets(list(paths), kind)
    except CardError as exc:
        fail(str(exc))


def _check(card: Path, found: Described, fmt: str, strict: bool) -> None:
    from ..card.compare import compare_parts
    from ..card.parts import part
    from ..config import discover
    from ..report import render
    from ..validation import Result

    config = discover(found.datasets[0][0].root if found.folder is None else found.folder)
    parts = [part(u, v, found.folder, samples=1, seed=0) for u, v in found.datasets]
    findings = compare_parts(
        card, parts, max_document_bytes=config.max_document_bytes, max_per_code=config.max_per_code
    )
    result = Result(findings, files=1 + sum(len(u.files) for u, _ in found.datasets))
    click.echo(render(result, fmt), nl=False)
    if fmt == "github" and os.environ.get("GITHUB_STEP_SUMMARY"):
        from ..report.github import append_to, summary

        append_to(os.environ["GITHUB_STEP_SUMMARY"], summary(result))
    sys.exit(1 if result.errors or (strict and result.warnings) else 0)


def _write(
    found: Described,
    paths: tuple[Path, ...],
    kind: str | None,
    output: Path | None,
    force: bool,
    quiet: bool,
    samples: int,
    seed: int,
    validate_card: bool,
) -> None:
    from ..card import CardError
    from ..card.build import build_parts, dumps
    from ..card.parts import part
    from ..finding import escape_control
    from ..readers.files import display_path
    from ..validation import validate as run
    from ..writing import WriteError, write_atomic

    inputs = [f for unit, _ in found.datasets for f in unit.files]
    if output is not None:
        check_output(output, inputs, force)
    result = run(list(paths), kind=kind)
    if not quiet and result.findings:
        from dataclasses import replace

        from ..report import render

        click.echo(render(replace(result, skipped=()), "text"), nl=False, err=True)
    base = output.parent if output is not None else Path.cwd()
    try:
        parts = [part(u, v, found.folder, samples=samples, seed=seed) for u, v in found.datasets]
        text = dumps(build_parts(parts, base=base, left=found.left))
    except CardError as exc:
        fail(str(exc))
    if output is None:
        click.echo(text, nl=False)
        sys.stdout.flush()
    else:
        try:
            write_atomic(output, text.encode("utf-8"), inputs)
        except WriteError as exc:
            fail(str(exc))
        if not quiet:
            lines = [f"wrote the card of {display_path(found.datasets[0][0].root)} to {output}"]
            if found.folder is not None:
                under = display_path(found.folder)
                lines = [f"wrote the card of {len(found.datasets)} datasets under {under} to {output}"]
                lines += [f"left out {name}: {why}" for name, why in found.left]
            for said in lines:
                click.echo(escape_control(said), err=True)
    failed = bool(result.errors)
    if validate_card and output is not None:
        failed = _validated(output) or failed
    sys.exit(1 if failed else 0)


def _validated(output: Path) -> bool:
    """Whether mlcroissant finds errors in the card written at `output`; its findings go to stderr."""
    from ..card.croissant import validate

    errors, warnings = validate(output)
    for said in errors:
        click.echo(f"mlcroissant: error: {said}", err=True)
    for said in warnings:
        click.echo(f"mlcroissant: warning: {said}", err=True)
    if not errors:
        click.echo(f"mlcroissant: {len(warnings)} warnings, no errors", err=True)
    return bool(errors)
