"""What every command shares: the one-line failure, comma lists, the format option's type, the
options and the check of -o that export, stats and report share, and the documents `validate`
keeps so that the console command can leave them to the operating system."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click


class FormatName(click.ParamType):  # type: ignore[type-arg]
    """A format of the catalog, looked up only when the option is given: reading the installed
    formats would slow every start, `--version` and `--help` included."""

    name = "format"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "FORMAT"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from contextlib import suppress
        from pathlib import Path

        from ..catalog import declared_near, names

        if value not in names():  # a format declared where the command runs
            with suppress(ValueError):  # the configuration's error is said when the paths are read
                declared_near([Path.cwd()])
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


# What the last dataset a command read holds: the documents of the last file `validate` checked,
# the last view `stats` read, the Reading of `export` and `report` (reading.Reading.kept). Freeing a
# 50 MB dataset's millions of objects (and the collector's last pass over them) costs up to a tenth
# of a run; the console command leaves them to the operating system instead (see commands.main).
PARSED: list[object] = []
# Whether the command runs as the console command (commands.main), not called from Python: what
# is the process's own (its heap, heap.py) is then the command's to set.
CONSOLE: list[bool] = [False]


def kept_last(views: Iterable[Any]) -> Iterator[Any]:
    """The views, the one handed on last kept in PARSED (each before it is let go as the next
    one comes, as a loop over them would)."""
    for view in views:
        PARSED[:] = [view]
        yield view


_Command = TypeVar("_Command", bound=Callable[..., Any])


def jobs_option(said: str) -> Callable[[_Command], _Command]:
    """-j / --jobs N of a command that works dataset by dataset (validate, export, stats, report):
    N processes, 0 one per CPU core; `said` is what the command does with them."""
    return click.option("-j", "--jobs", type=click.IntRange(min=0), default=1, show_default=True, help=said)


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


def judged(
    paths: tuple[Path, ...],
    kind: str | None,
    skip_unknown: bool = False,
    before_failing: Callable[[], None] | None = None,
    found: Sequence[Any] | None = None,
) -> list[Any]:
    """The datasets under the paths whose format declares judgments, as `judgments.Dataset`s:
    export, stats and report never answer with an empty table for data they could not read.
    Each dataset ends in its judgments or in one line on stderr that says why it has none: here
    for a format that declares no judgments, and as `judgments.views` reaches it for a dataset
    whose files hold none. When no dataset has any, the run stops with exit code 2: here when no
    format declares judgments, else once the last dataset has been read, after `before_failing`
    (a command that checks the datasets as it reads them says its findings there). `found`: the
    units a `reading.Reading` of the paths found, which are not looked for again."""
    from ..judgments import Dataset, units

    with_view, without = units(list(paths), kind=kind, skip_unknown=skip_unknown, found=found)
    for unit in without:
        _say(unit.root, f"the {unit.family} format declares no judgments")
    if not with_view and without:
        fail("none of these datasets is of a format that declares its judgments")
    told = _Told(len(with_view), paths, before_failing)
    # a dataset of stored aggregates only is read and exported, and said to have no agreement
    return [Dataset(unit, told, lambda u, note: _say(u.root, note)) for unit in with_view]


def _say(where: Path, what: str) -> None:
    from ..finding import escape_control
    from ..progress import clear
    from ..readers.files import display_path

    clear()  # a bar being drawn would share the line
    # A path from the data stays on its one line.
    click.echo(f"humanjudge: {escape_control(display_path(where))}: {escape_control(what)}", err=True)


class _Told:
    """What `judgments.views` says of each dataset of one run, heard once per dataset: why one
    holds no judgment goes to stderr, and when the last has been heard and none held any, the
    run fails (exit 2) before anything is written: a report is written only after every dataset,
    export's file only as a whole (on standard output its header line has gone out already)."""

    def __init__(
        self, datasets: int, paths: tuple[Path, ...], before_failing: Callable[[], None] | None = None
    ) -> None:
        self.left, self.paths, self.some = datasets, paths, False
        self.before_failing = before_failing
        # a dataset read twice is told of once; a folder may hold datasets of two formats
        self.heard: set[tuple[str, Path]] = set()

    def __call__(self, unit: Any, why: str | None) -> None:
        if (unit.family, unit.root) in self.heard:
            return
        self.heard.add((unit.family, unit.root))
        self.left -= 1
        if why is None:
            self.some = True
        else:
            _say(unit.root, f"no judgments: {why}")
        if self.left == 0 and not self.some:
            from ..readers.files import display_path

            named = ", ".join(map(display_path, self.paths)) if len(self.paths) <= 3 else f"the {len(self.paths)} paths"
            if self.before_failing is not None:
                self.before_failing()
            fail(f"no judgments in {named}")


progress_option = click.option(
    "--progress/--no-progress",
    default=None,
    help="Show a progress bar on stderr. Default: only on a terminal, outside CI, for runs over half a second.",
)
force_option = click.option("--force", is_flag=True, help="Overwrite the file -o names if it exists.")


def check_output(output: Path, inputs: Iterable[Path], force: bool, refused_name: str | None = None) -> None:
    """Refuse, before any work, a target that cannot or must not be written: in a folder that is
    not there or not writable, a link, what is not a regular file, one of the `inputs` the output
    is computed from (writing.check_target), a name the command writes no such file under
    (`refused_name` says why), or an existing file without --force. Every command that writes a
    file the user names (export, report, render) checks it here, so they refuse alike."""
    from ..writing import WriteError, check_target

    if not output.parent.is_dir():
        fail(f"cannot write {output}: {output.parent} is not a folder")
    if not os.access(output.parent, os.W_OK | os.X_OK):
        fail(f"cannot write {output}: no permission to write in {output.parent}")
    try:
        check_target(output, inputs)
    except WriteError as exc:
        fail(str(exc))
    if refused_name is not None:
        fail(refused_name)
    if output.exists() and not force:
        fail(f"{output} exists: use --force to overwrite it")
