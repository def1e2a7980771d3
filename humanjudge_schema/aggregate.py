"""What every command that recomputes stored aggregates shares: it refuses to write while the
data it computes from has errors, and says which stored values it could not recompute. The
aggregates themselves are each format's own (its declaration's `aggregation`, catalog.Aggregation)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .finding import Finding, Severity


class AggregateError(ValueError):
    """The dataset cannot be aggregated; the message says why."""


def blocking(findings: list[Finding], inputs: list[Path], allowed: tuple[str, ...] = ()) -> list[Finding]:
    """The errors in the files an aggregate is computed from (codes or prefixes in `allowed`
    aside: the ones a write corrects, and those about parts it does not read): while any
    remains, nothing may be written from them."""
    from .readers.files import display_path

    names = {display_path(p) for p in inputs}
    return [f for f in findings if f.severity is Severity.ERROR and f.file in names and not f.code.startswith(allowed)]


Source = Callable[[str], list[tuple[str, str]]]


def not_recomputable(stored: list[str], stops: list[Finding], source: Source) -> list[str]:
    """The stored aggregates (pointers) whose source values lie under a blocking finding:
    `source` gives, for a stored pointer, the (file, pointer) of the data it is computed from.
    A finding about a whole file counts only when the file could not be read at all."""
    out = []
    for ptr in stored:
        roots = source(ptr)
        for f in stops:
            if f.pointer == "" and not f.code.startswith(("parse/", "dataset/")):
                continue
            if any(f.file == file and (_under(r, f.pointer) or _under(f.pointer, r)) for file, r in roots):
                out.append(ptr)
                break
    return out


def _under(ptr: str, prefix: str) -> bool:
    return ptr == prefix or ptr.startswith(prefix + "/") or not prefix


def refusal(stops: list[Finding], unverified: list[str], file: str, wrote: bool) -> str:
    """The report of a command that cannot compute its output: the findings that stop it, then
    every stored value it could not recompute."""
    from .report.text import render
    from .validation import Result

    lines = [render(Result(stops, 0)).splitlines()[:-1]] if stops else [[]]
    out = list(lines[0])
    if unverified:
        n = len(unverified)
        out.append(
            f"{n} stored value{'' if n == 1 else 's'} in {file} cannot be recomputed, because the data "
            f"{'it comes' if n == 1 else 'they come'} from has the errors above:"
        )
        out += [f"  {file}: {ptr}" for ptr in unverified]
    if not wrote:
        out.append("Nothing was written: fix the errors above first (`humanjudge validate` lists them all).")
    return "\n".join(out)


def verdict(
    findings: list[Finding],
    stops: list[Finding],
    unverified: list[str],
    *,
    file: str,
    compared: tuple[str, ...],
    files: int,
    check: bool,
) -> tuple[str, int] | None:
    """What a recomputing command says instead of writing, as (message, exit code): with check,
    the stored aggregates that differ (codes in `compared`), the errors that stop it and every
    value it cannot recompute; without, the refusal while errors stop it. None: it may write."""
    from .report.text import render
    from .validation import Result

    if check:
        shown = sorted([f for f in findings if f.code in compared] + stops, key=Finding.sort_key)
        report = render(Result(shown, files)).splitlines()
        if unverified:
            report[-1:-1] = refusal([], unverified, file, wrote=True).splitlines()
        return "\n".join(report), 1 if shown else 0
    if stops:
        return refusal(stops, unverified, file, wrote=False), 1
    return None
