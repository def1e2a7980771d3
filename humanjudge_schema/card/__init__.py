"""Croissant dataset cards from the data (`humanjudge card`): a Croissant 1.0 JSON-LD document per
dataset whose Responsible-AI fields are computed from the judgments (build.py, rai.py), and the
check of a card, written by anyone, against the data it describes (compare.py, codes card/*).

Neither needs mlcroissant: a card is JSON written and read with the standard library.

from humanjudge_schema.card import card, check
doc = card("data/exp1")                          # the card as a dict (json.dumps it as you like)
doc = card("data/")                              # several datasets: one card of the repository
findings = check("croissant.json", "data/exp1")  # Finding records, as validate's
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import CardError

if TYPE_CHECKING:
    from ..finding import Finding
    from ..judgments.view import Judgments
    from ..kinds import Unit


def dataset(paths: list[Path | str], kind: str | None = None) -> tuple[Unit, Judgments]:
    """The one dataset under the paths and its judgments; CardError for none, several, one of a
    format without judgments or one whose data is not there (a Git LFS pointer). A dataset whose
    files hold no judgment (a CogGym release of its mean file only) is described all the same: its
    files, and why it has no figures (the view's `note`, which the card's RAI fields state)."""
    from ..readers.files import display_path

    found, _ = _units(paths, kind)
    if len(found) != 1:
        shown = ", ".join(display_path(u.root) for u in found[:3]) + (" ..." if len(found) > 3 else "")
        raise CardError(f"a card describes one dataset; the paths hold {len(found)}" + (f": {shown}" if found else ""))
    view = _judged(found[0])
    if isinstance(view, str):
        raise CardError(f"{display_path(found[0].root)}: {view}")
    return found[0], view


def datasets(paths: list[Path | str], kind: str | None = None) -> Described:
    """The datasets under the paths a card describes: one dataset's (`dataset`), or, where the paths
    hold several, a repository's, every dataset with judgments (or files to describe) under the
    folder the paths share; a dataset whose data is not there (a Git LFS pointer) or whose format
    declares no judgments is left out, with why. CardError where none is left."""
    from ..readers.files import display_path
    from .files import file_id

    found, folder = _units(paths, kind)
    if len(found) == 1:
        unit, view = dataset(paths, kind)
        return Described([(unit, view)], [], None)
    kept: list[tuple[Unit, Judgments]] = []
    left: list[tuple[str, str]] = []
    for unit in found:
        judged = _judged(unit)
        if isinstance(judged, str):  # named under the folder: the card says no path of the machine it was made on
            left.append((file_id(unit.root, folder), judged))
        else:
            kept.append((unit, judged))
    if not kept:
        raise CardError(f"no dataset under {display_path(folder)} can be described: " + "; ".join(w for _, w in left))
    return Described(kept, left, folder)


class Described(NamedTuple):
    """What a card describes: its datasets and their judgments, those left out of a repository's
    card (its path, and why), and the repository's folder (None for one dataset's card)."""

    datasets: list[tuple[Unit, Judgments]]
    left: list[tuple[str, str]]
    folder: Path | None


def _units(paths: list[Path | str], kind: str | None) -> tuple[list[Unit], Path]:
    """Every dataset under the paths, and the folder they share."""
    import os

    from ..judgments import units

    given = [Path(p) for p in paths]
    with_view, without = units(given, kind=kind)
    found = sorted(with_view + without, key=lambda u: str(u.root))
    folders = [p if p.is_dir() else p.parent for p in given]
    return found, Path(os.path.commonpath([os.path.abspath(f) for f in folders])) if folders else Path.cwd()


def _judged(unit: Unit) -> Judgments | str:
    """A dataset's judgments, or why no card can describe it."""
    from .. import catalog
    from ..judgments import views, why_none

    if catalog.get(unit.family).judgments is None:
        return f"the {unit.family} format declares no judgments"
    view = next(views([unit]), None)
    if view is None:
        return "no judgments: its format's reader gives no view of it"
    if not any(len(batch) for batch in view.in_batches()):
        why = why_none(unit, view)
        if "Git LFS pointer" in why:  # nothing can be said of data that is not there
            return f"no judgments: {why}"
        view.note = f"no judgments: {why}"
    return view


def card(
    path: Path | str, *, kind: str | None = None, samples: int = 1000, seed: int = 0, base: Path | str | None = None
) -> dict[str, Any]:
    """The Croissant card of the dataset under `path`, or of the repository of datasets under it,
    as `humanjudge card` writes it; its files are named relative to `base` (default: the current
    folder), where the card will be."""
    from .build import build_parts
    from .parts import part

    found = datasets([path], kind)
    parts = [part(u, v, found.folder, samples=samples, seed=seed) for u, v in found.datasets]
    return build_parts(parts, base=Path(base) if base is not None else Path.cwd(), left=found.left)


def check(card_file: Path | str, path: Path | str, *, kind: str | None = None) -> list[Finding]:
    """What `humanjudge card --check card_file path` finds: the card/ findings, sorted."""
    from .compare import compare_parts
    from .parts import part

    found = datasets([path], kind)
    parts = [part(u, v, found.folder, samples=1, seed=0) for u, v in found.datasets]
    return compare_parts(Path(card_file), parts)


__all__ = ["CardError", "Described", "card", "check", "dataset", "datasets"]
