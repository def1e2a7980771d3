"""What a unit lacks before any of it is read: files that are Git LFS pointers instead of data, and
companion files the format has but the folder does not. Both are findings, so that a green
result always means the data was there to be checked."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from . import catalog
from . import codes as _codes  # noqa: F401  (the dataset/ codes this module reports)
from .engine import Context
from .kinds import LFS_POINTER, Unit, head


def _lfs_pointer(path: Path) -> bool:
    data = head(path, len(LFS_POINTER))
    return data is not None and data.startswith(LFS_POINTER)


def screen(unit: Unit, ctx: Context) -> Unit:
    """Report LFS pointers and missing companions; return the unit without its LFS pointers, so
    the format's reader never parses a pointer as data (one finding, not a cascade)."""
    pointers = [f for f in unit.files if _lfs_pointer(f)]
    for f in pointers:
        message = "a Git LFS pointer, not the data: nothing in it was checked (run `git lfs pull`)"
        ctx.add("parse/lfs-pointer", f, "", message)
    present = {f.name for f in unit.files}
    # Files whose absence says nothing (instruction.jsonl: flow ids naming no module are reported
    # either way; accuracies.csv exists for one HALIE task only) declare no `without`.
    declared = [f for f in catalog.get(unit.family).files if f.without is not None]
    missing = sorted((f for f in declared if f.name not in present), key=lambda f: not f.required)
    if missing:
        anchor = next((f for f in unit.files if any(d.name == f.name for d in declared)), unit.files[0])
        # One finding for the unit: an error when the format requires one of the files.
        code = "dataset/missing-file" if any(f.required for f in missing) else "dataset/missing-companion"
        names = ", ".join(f.name for f in missing)
        effects = "; ".join(dict.fromkeys(str(f.without) for f in missing))
        ctx.add(code, anchor, "", f"no {names} in {unit.root.name or unit.root}/: {effects}")
    if not pointers:
        return unit
    return replace(unit, files=tuple(f for f in unit.files if f not in pointers))
