"""The `humanjudge` command line: every command in one place, each a call into the library, and
every way one can fail ends in a one-line message and exit code 2.

Standard output too: as the console command, a write to it that fails (a full disk, /dev/full,
`>&-`) is `humanjudge: cannot write to standard output: <reason>` and exit code 2; a reader that
goes away (`| head -1`) ends the command quietly with 141, as SIGPIPE ends Unix tools. A stop
(Ctrl-C, or SIGTERM and SIGHUP during a write, see writing.open_atomic) is one line and 128 + the
signal's number: 130 and 143.

The commands that apply to every format are modules of this package; a format's own commands
(the TextJudge format's `render`) are named by its declaration (catalog.Format.commands) and
looked up only when asked for, so that starting `humanjudge validate` reads no catalog.
"""

from __future__ import annotations

import errno
import io
import os
import sys
from collections.abc import MutableMapping
from typing import Any, NoReturn

import click

from .._version import __version__
from ..gcpause import freeze_kept
from .aggregate import aggregate
from .card import card
from .common import CONSOLE, PARSED, fail
from .diff import diff
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

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:  # click would print "Aborted!" and exit 1
            raise _Stopped(getattr(exc, "signum", _SIGINT)) from None


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

    Exit codes: 0 no errors, 1 errors found, 2 usage error, unreadable input or output that cannot
    be written; 130 and 143 stopped by Ctrl-C or SIGTERM, 141 the reader of the output went away.
    """


for _command in (validate, export, stats, report, formats, rules, aggregate, schema, diff, card):
    cli.add_command(_command)


class _Stopped(Exception):
    """Ctrl-C, or a signal writing.open_atomic turned into an exception: the command stops."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_SIGINT = 2  # its number on every system Python runs on; `signal` is imported only to name another


def _stop(signum: int) -> NoReturn:
    import signal

    message = "interrupted" if signum == _SIGINT else f"stopped by {signal.Signals(signum).name}"
    click.echo(f"humanjudge: {message}", err=True)
    sys.exit(128 + signum)


class _StdoutFailed(Exception):
    """A write to standard output failed. Only the console command's standard output raises it,
    so that main tells it apart from any other error (an OSError says nothing of its file)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.errno, error.strerror)
        self.errno = error.errno
        self.strerror = error.strerror or str(error)


class _Stdout(io.RawIOBase):
    """File descriptor 1 (None when the command started with it closed) as the console command
    writes to it: the first failed write raises _StdoutFailed, and what is written after it is
    dropped, so that the flush at exit does not report it again."""

    def __init__(self, fd: int | None) -> None:
        super().__init__()
        self._fd = fd
        self._failed = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        if self._fd is None:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        return self._fd

    def isatty(self) -> bool:
        return self._fd is not None and os.isatty(self._fd)

    def write(self, data: Any) -> int:
        size = memoryview(data).nbytes
        if self._failed:
            return size
        try:
            return os.write(self.fileno(), data)
        except OSError as exc:
            self._failed = True
            raise _StdoutFailed(exc) from None


def _guard_stdout() -> None:
    """Put standard output behind _Stdout, keeping its encoding and line buffering (buffered even
    under PYTHONUNBUFFERED: every command flushes what it writes); an output stream that is not a
    plain file (a test's capture) is left as it is."""
    out = sys.stdout
    if out is None:
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(_Stdout(None)), encoding="utf-8")
        return
    if not isinstance(out, io.TextIOWrapper) or not isinstance(out.buffer, (io.BufferedWriter, io.FileIO)):
        return
    try:
        fd = out.fileno()
        out.flush()
    except (OSError, ValueError):
        return
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(_Stdout(fd), buffer_size=1 << 16),
        encoding=out.encoding,
        errors=out.errors,
        line_buffering=out.line_buffering,
        write_through=out.write_through,
    )


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


# The variables by which a user chooses how many threads the BLAS under numpy starts (OpenBLAS
# reads the first set, in this order; MKL its own and OMP_NUM_THREADS).
_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread(environ: MutableMapping[str, str]) -> None:
    """Ask the BLAS under numpy for one thread, unless the user chose a number. The statistics'
    matrix products are small (samples x profiles, profiles x profiles): a second BLAS thread
    waits for work by spinning, which on CogGym's data cost 15% of stats' CPU time and saved no
    wall time (docs/performance.md). Set before numpy is first imported, which reads it once;
    only by the console command: a program that imports the library keeps its own setting."""
    if not any(name in environ for name in _BLAS_THREADS):
        environ["OPENBLAS_NUM_THREADS"] = environ["MKL_NUM_THREADS"] = "1"


def main(argv: list[str] | None = None) -> Any:
    console = argv is None
    if console:
        _guard_stdout()
        one_blas_thread(os.environ)
        freeze_kept()  # the parsed files and columns are not walked again (gcpause.py)
        CONSOLE[0] = True
    try:
        try:
            return cli.main(args=argv, prog_name="humanjudge")
        finally:
            if console and sys.stdout is not None:
                sys.stdout.flush()  # a failure to write the end of the output is reported, too
    except SystemExit as exc:
        if console and PARSED:  # run as the console command, not called from Python
            _exit_now(exc.code)
        raise
    except _Stopped as exc:
        _stop(exc.signum)
    except KeyboardInterrupt as exc:  # before or after the command ran
        _stop(getattr(exc, "signum", _SIGINT))
    except _StdoutFailed as exc:
        if exc.errno == errno.EPIPE:  # the reader went away: quiet, as SIGPIPE ends Unix tools
            sys.exit(128 + 13)
        fail(f"cannot write to standard output: {exc.strerror}")
    except BrokenPipeError:
        sys.exit(128 + 13)
    except Exception as exc:  # the promise: one line and exit 2, never a traceback
        from ..catalog import CatalogError

        if isinstance(exc, CatalogError):  # a broken installation or plug-in, not a bug
            fail(str(exc))
        fail(f"internal error: {exc!r} (please report it)")
