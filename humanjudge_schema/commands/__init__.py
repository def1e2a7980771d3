"""The `humanjudge` command line: every command in one place, each a call into the library, and
every way one can fail ends in a one-line message and exit code 2.

The commands that apply to every format are modules of this package; a format's own commands
(the TextJudge format's `render`) are named by its declaration (catalog.Format.commands) and
looked up only when asked for, so that starting `humanjudge validate` reads no catalog.
"""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

import click

from .._version import __version__
from .aggregate import aggregate
from .common import PARSED, fail
from .export import export
from .listing import formats, rules, schema
from .report import report
from .stats import stats
from .validate import validate


class _Commands(click.Group):
    """The built-in commands, and the formats' own ones found through the catalog."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_format_commands()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        return _format_commands().get(cmd_name)


def _format_commands() -> dict[str, click.Command]:
    from ..catalog import formats as catalog
    from ..catalog import load

    out: dict[str, click.Command] = {}
    for fmt in catalog().values():
        for target in fmt.commands:
            command = load(target)
            out[command.name or target.rpartition(":")[2]] = command
    return out


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="humanjudge", message="%(prog)s %(version)s")
def cli() -> None:
    """Check that datasets of human judgments are what their format promises.

    Formats: CogGym experiments, TextJudge / JUDGE-BENCH datasets, the crowdsourced RAG writing
    study (study1_*.jsonl.gz) and HALIE interaction data (CSV), and any installed plug-in
    (`humanjudge formats` lists them). Every finding has a file, a line, a JSON pointer and a
    stable rule code (`humanjudge rules` lists them).

    Exit codes: 0 no errors, 1 errors found, 2 usage error or unreadable input.
    """


for _command in (validate, export, stats, report, formats, rules, aggregate, schema):
    cli.add_command(_command)


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
        if argv is None and PARSED:  # run as the console command, not called from Python
            _exit_now(exc.code)
        raise
    except KeyboardInterrupt:
        fail("interrupted")
    except BrokenPipeError:
        sys.exit(0)
    except Exception as exc:  # the promise: one line and exit 2, never a traceback
        from ..catalog import CatalogError

        if isinstance(exc, CatalogError):  # a broken installation or plug-in, not a bug
            fail(str(exc))
        fail(f"internal error: {exc!r} (please report it)")
