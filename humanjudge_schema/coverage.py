"""What a unit lacks before any of it is read: files that are Git LFS pointers instead of data, and
companion files the format has but the folder does not; and what its folder holds that is no
part of it: files the format does not know, and folders beside it, among datasets, that hold
none. All are findings, so that a green result always means the data was there to be checked,
and nothing in a dataset's folder went unseen."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from . import catalog
from . import codes as _codes  # noqa: F401  (the dataset/ codes this module reports)
from .engine import Context
from .kinds import LFS_POINTER, Unit, format_file, head, not_a_file, survey, unremarked


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
    for path in unit.refused:
        ctx.add("dataset/not-a-file", path, "", _refused(unit, path))
    present = {f.name for f in (*unit.files, *unit.refused)}
    # Files whose absence says nothing (instruction.jsonl: flow ids naming no module are reported
    # either way; accuracies.csv exists for one HALIE task only) declare no `without`.
    declared = [f for f in catalog.get(unit.family).files if f.without is not None]
    missing = sorted((f for f in declared if not any(map(f.matches, present))), key=lambda f: not f.required)
    if missing and unit.files:
        anchor = next((f for f in unit.files if any(d.matches(f.name) for d in declared)), unit.files[0])
        # One finding for the unit: an error when the format requires one of the files.
        code = "dataset/missing-file" if any(f.required for f in missing) else "dataset/missing-companion"
        names = ", ".join(f.name for f in missing)
        effects = "; ".join(dict.fromkeys(str(f.without) for f in missing))
        ctx.add(code, anchor, "", f"no {names} in {unit.root.name or unit.root}/: {effects}")
    _strays(unit, ctx)
    if not pointers:
        return unit
    return replace(unit, files=tuple(f for f in unit.files if f not in pointers))


def _refused(unit: Unit, path: Path) -> str:
    what = not_a_file(path) or "a link"
    if path == unit.root and catalog.get(unit.family).files:
        said = f"{what} in place of the dataset's folder"
    else:
        said = f"{what} where the dataset has a file"
    why = "not followed: it could lead to another dataset or out of the repository" if what == "a link" else "not read"
    declared = catalog.get(unit.family).file(path.name)
    effects = f"; {declared.without}" if declared is not None and declared.without else ""
    return f"{said}: {why}{effects}"


def _strays(unit: Unit, ctx: Context) -> None:
    """Report what the unit's folder holds that is no part of the dataset, and the folders a
    walk found beside it that hold no dataset."""
    if catalog.get(unit.family).files and unit.root.is_dir() and unit.root not in unit.refused:
        for path, is_folder in sorted(_no_part(unit)):
            if path in unit.refused:
                continue
            what = "folder" if is_folder else "file"
            ctx.add(
                "dataset/extra-file",
                path,
                "",
                f"a {what} that is no part of the {unit.family} dataset in {unit.root.name or unit.root}/: "
                "not checked (its format's files, documentation, media and assets/ may sit there)",
            )
    for folder in unit.beside:
        ctx.add(
            "dataset/not-a-dataset",
            folder,
            "",
            f"a folder beside the datasets of {folder.parent.name or folder.parent}/ that holds none: "
            "nothing in it was checked",
        )


def _no_part(unit: Unit) -> list[tuple[Path, bool]]:
    """(path, is a folder) of what the unit's folder holds that is no part of it and is reported:
    the data files no format claims, as the walk found them (kinds.py), and what else lies there;
    of those, only the paths the user named when the dataset was named by one of its files."""
    if unit.named == ():
        return []
    found = [(path, False) for path in unit.extras] + _extras(unit.root)
    return found if unit.named is None else [(p, folder) for p, folder in found if p in unit.named]


def _extras(root: Path) -> list[tuple[Path, bool]]:
    """(path, is a folder) of everything in a dataset folder that is not one of a format's files
    and may not sit there unremarked; a sub-folder that holds a dataset is checked on its own. A
    link is left alone, as a walk leaves it: a shared assets/ is often one."""
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return []
    out = []
    for e in entries:
        if e.is_symlink():
            continue
        folder = e.is_dir(follow_symlinks=False)
        if (not folder and format_file(e.name)) or unremarked(e.name, folder):
            continue
        if folder and survey([Path(e.path)], skip_empty=True).units:
            continue
        out.append((Path(e.path), folder))
    return out
