"""The Action's inputs: the paths, and the `args` input read as options of `humanjudge validate`."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from ... import catalog

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover
    pass


def split_lines(text: str) -> list[str]:
    """Paths or arguments from a multi-line input: one or more per line, shell-quoted."""
    return [word for line in text.splitlines() for word in shlex.split(line, comments=True)]


class ArgsError(ValueError):
    """The `args` input cannot be used; the message says why."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ArgsError(message)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is below 0")
    return value


def _parser() -> _Parser:
    # The options of `humanjudge validate` that mean something in a workflow, spelt as the
    # command spells them (a test compares the two lists).
    parser = _Parser(prog="args", add_help=False, allow_abbrev=False)
    parser.add_argument("--kind", choices=catalog.names())
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--quality", action="store_true", default=None)
    parser.add_argument("--select", action="append", default=[])
    parser.add_argument("--ignore", action="append", default=[])
    parser.add_argument("--config", type=Path)
    parser.add_argument("--isolated", action="store_true")
    parser.add_argument("-j", "--jobs", type=_count, default=1)
    parser.add_argument("--skip-unknown", action="store_true")
    parser.add_argument("--max-per-code", type=_count)
    parser.add_argument("-v", "--verbose", action="store_true")
    # A job log is not a terminal: there is never a bar to draw, so both spellings are accepted.
    parser.add_argument("--progress", "--no-progress", action="store_true")
    parser.add_argument("--group", dest="group", action="store_true", default=True)
    parser.add_argument("--no-group", dest="group", action="store_false")
    return parser


# Options of `humanjudge validate` that the action refuses, and why.
NOT_FOR_THE_ACTION = {
    "--format": "the action writes annotations, the job summary and (with the sarif input) SARIF itself",
    "--show-settings": "it checks nothing; run `humanjudge validate --show-settings` locally",
    "--base": "on a pull request the action checks every changed file against the pull request's base commit itself",
}


def _codes(values: list[str]) -> tuple[str, ...]:
    return tuple(v.strip() for item in values for v in item.split(",") if v.strip())


@dataclass(frozen=True)
class Options:
    """What the `args` input asks of `humanjudge validate`."""

    kind: str | None = None
    strict: bool = False
    quality: bool | None = None  # None: as configured
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    config: Path | None = None
    isolated: bool = False
    jobs: int = 1
    skip_unknown: bool = False
    max_per_code: int | None = None
    verbose: bool = False
    group: bool = True  # alike findings shown once with their count (report/groups.py)


def parse_args(argv: Sequence[str]) -> Options:
    """The `args` input, read the way `humanjudge validate` reads its options."""
    known, rest = _parser().parse_known_args(list(argv))
    for word in rest:
        name = word.split("=", 1)[0]
        if name in NOT_FOR_THE_ACTION:
            raise ArgsError(f"{name} is not for the action: {NOT_FOR_THE_ACTION[name]}")
        if word.startswith("-") and word != "-":
            raise ArgsError(f"no such option: {name}")
        raise ArgsError(f"{word!r} looks like a path: paths go in the paths input, not in args")
    if known.isolated and known.config is not None:
        raise ArgsError("--isolated and --config exclude each other")
    return Options(
        kind=known.kind,
        strict=known.strict,
        quality=known.quality,
        select=_codes(known.select),
        ignore=_codes(known.ignore),
        config=known.config,
        isolated=known.isolated,
        jobs=known.jobs,
        skip_unknown=known.skip_unknown,
        max_per_code=known.max_per_code,
        verbose=known.verbose,
        group=known.group,
    )
