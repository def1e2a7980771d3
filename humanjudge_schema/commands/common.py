"""What every command shares: the one-line failure, comma lists, the format option's type, and the
documents `validate` keeps so that the console command can leave them to the operating system."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import click


class FormatName(click.ParamType):  # type: ignore[type-arg]
    """A format of the catalog, looked up only when the option is given: reading the installed
    formats would slow every start, `--version` and `--help` included."""

    name = "format"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "FORMAT"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from ..catalog import names

        if value not in names():
            self.fail(f"{value!r} is not a format; choose from {', '.join(names())}", param, ctx)
        return str(value)


def fail(message: str) -> NoReturn:
    from ..finding import escape_control

    # The message may quote a path or a value from the data: it stays one line.
    click.echo(f"humanjudge: {escape_control(message)}", err=True)
    sys.exit(2)


def split(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(v.strip() for item in values for v in item.split(",") if v.strip())


# The documents of the last file `validate` checked. Freeing a 50 MB dataset's millions of objects
# takes 0.1 s, about a tenth of the whole run; the console command leaves them to the operating
# system instead (see commands.main).
PARSED: list[object] = []


def bootstrap_options(command: Any) -> Any:
    """The options `stats` and `report` share: --samples and --seed of the bootstrap."""
    command = click.option(
        "--seed",
        type=int,
        default=0,
        show_default=True,
        help="Seed of the bootstrap: the same seed, the same interval.",
    )(command)
    return click.option(
        "--samples",
        type=click.IntRange(min=1),
        default=1000,
        show_default=True,
        help="Bootstrap samples for alpha's 95% interval.",
    )(command)


def judged(paths: tuple[Path, ...], kind: str | None, skip_unknown: bool = False) -> list[Any]:
    """The datasets under the paths whose format declares judgments; a note on stderr for each
    other one, and a usage error (exit 2) when there is none: export, stats and report never
    answer with an empty table for data they could not read."""
    from ..judgments import units
    from ..readers.files import display_path

    with_view, without = units(list(paths), kind=kind, skip_unknown=skip_unknown)
    for unit in without:
        click.echo(f"humanjudge: {display_path(unit.root)}: the {unit.family} format declares no judgments", err=True)
    if not with_view and without:
        fail("none of these datasets is of a format that declares its judgments")
    return with_view
