"""What every command that recomputes stored aggregates shares: it refuses to write while the
data it computes from has errors, and says which stored values it could not recompute. The
aggregates themselves are each format's own (its declaration's `aggregation`, catalog.Aggregation)."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import orjson

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


def concerning(stops: list[Finding], concerns: Callable[[Finding], bool]) -> list[Finding]:
    """The blocking errors that concern the judgments an aggregate is computed from: an error
    elsewhere in an input (a missing `expert_annotator`, a participant's age) cannot make a mean
    wrong, so it stops nothing. An error about a file as a whole (it could not be read) always
    concerns them."""
    return [f for f in stops if (f.pointer == "" and f.code.startswith(("parse/", "dataset/"))) or concerns(f)]


# --- writing in place -------------------------------------------------------------------------

_WS_COLON = re.compile(r"[ \t\n\r]*:[ \t\n\r]*")
_NUMBER = re.compile(r"-?\d+(?:\.(\d+))?([eE][-+]?\d+)?\Z")


def value_spans(text: str, pointers: Iterable[str]) -> dict[str, tuple[int, int]]:
    """(start, end) in `text` of the value each pointer names (object members and array items);
    a pointer the text does not hold is left out."""
    from .readers.locate import locate

    scan = json.decoder.scanstring  # type: ignore[attr-defined]
    decoder = json.JSONDecoder()
    out = {}
    for ptr, at in locate(text, pointers).items():
        start = at
        if ptr and text[at] == '"':  # an object member's key, or a string in an array
            _, idx = scan(text, at + 1)
            colon = _WS_COLON.match(text, idx)
            if colon is not None:
                start = colon.end()
        _, end = decoder.raw_decode(text, start)
        out[ptr] = (start, end)
    return out


def replace_spans(text: str, edits: Iterable[tuple[int, int, str]]) -> str:
    """The text with each (start, end) span replaced, every other character kept."""
    parts, at = [], 0
    for start, end, new in sorted(edits):
        parts += [text[at:start], new]
        at = end
    parts.append(text[at:])
    return "".join(parts)


@dataclass(frozen=True, slots=True)
class Rounding:
    """How a file writes its stored aggregates, read from their text: the most decimals a value
    that is not whole shows (None: none shows any, the file does not round), whether it keeps
    trailing zeros (`2.50`), and how it writes a whole value (`3`, `3.0`)."""

    decimals: int | None
    fixed: bool
    whole: str  # what follows the digits of a whole value: "", ".0", ".00"

    @classmethod
    def of(cls, tokens: Iterable[str]) -> Rounding:
        """The rounding of the number tokens of a file's stored aggregates (other tokens ignored)."""
        decimals: int | None = None
        fixed = False
        wholes: Counter[str] = Counter()
        for token in tokens:
            m = _NUMBER.match(token)
            if m is None or m.group(2):
                continue
            fraction = m.group(1) or ""
            if fraction.strip("0"):
                decimals = max(decimals or 0, len(fraction))
                fixed = fixed or fraction.endswith("0")
            else:
                wholes["." + fraction if fraction else ""] += 1
        whole = wholes.most_common(1)[0][0] if wholes else ("." + "0" * decimals if fixed and decimals else "")
        return cls(decimals, fixed, whole)

    def text(self, x: float | None) -> str:
        """x as the file writes its aggregates: rounded to its decimals, without a float artefact
        (`3.33`, never `3.3300000000000001`), a whole value as it writes those."""
        if x is None:
            return "null"
        if isinstance(x, int):
            return f"{x}{self.whole}" if abs(x) <= 2**53 else str(x)
        if not math.isfinite(x) or abs(x) >= 1e15:  # no decimals to keep; a float's integer may be inexact
            return orjson.dumps(x).decode()
        if self.decimals is not None:
            x = round(x, self.decimals)
        if x.is_integer():
            return f"{int(x)}{self.whole}"  # also -0.0: a mean of 0 has no sign
        if self.decimals is None:
            return orjson.dumps(x).decode()
        out = f"{x:.{self.decimals}f}"
        return out if self.fixed else out.rstrip("0")
