"""Croissant dataset cards from the data (`humanjudge card`): a Croissant 1.0 JSON-LD document per
dataset whose Responsible-AI fields are computed from the judgments (build.py, rai.py), and the
check of a card, written by anyone, against the data it describes (compare.py, codes card/*).

Neither needs mlcroissant: a card is JSON written and read with the standard library.

from humanjudge_schema.card import card, check
doc = card("data/exp1")                          # the card as a dict (json.dumps it as you like)
findings = check("croissant.json", "data/exp1")  # Finding records, as validate's
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    from ..judgments import units, views, why_none
    from ..readers.files import display_path

    with_view, without = units([Path(p) for p in paths], kind=kind)
    found = with_view + without
    if len(found) != 1:
        shown = ", ".join(display_path(u.root) for u in found[:3]) + (" ..." if len(found) > 3 else "")
        raise CardError(f"a card describes one dataset; the paths hold {len(found)}" + (f": {shown}" if found else ""))
    unit = found[0]
    if without:
        raise CardError(f"{display_path(unit.root)}: the {unit.family} format declares no judgments")
    view = next(views([unit]), None)
    if view is None:
        raise CardError(f"{display_path(unit.root)}: no judgments: its format's reader gives no view of it")
    if not any(len(batch) for batch in view.in_batches()):
        why = why_none(unit, view)
        if "Git LFS pointer" in why:  # nothing can be said of data that is not there
            raise CardError(f"{display_path(unit.root)}: no judgments: {why}")
        view.note = f"no judgments: {why}"
    return unit, view


def card(
    path: Path | str, *, kind: str | None = None, samples: int = 1000, seed: int = 0, base: Path | str | None = None
) -> dict[str, Any]:
    """The Croissant card of the one dataset under `path`, as `humanjudge card` writes it; its
    files are named relative to `base` (default: the current folder), where the card will be."""
    from .build import build

    unit, view = dataset([path], kind)
    return build(unit, view, base=Path(base) if base is not None else Path.cwd(), samples=samples, seed=seed)


def check(card_file: Path | str, path: Path | str, *, kind: str | None = None) -> list[Finding]:
    """What `humanjudge card --check card_file path` finds: the card/ findings, sorted."""
    from .compare import compare

    unit, view = dataset([path], kind)
    return compare(Path(card_file), unit, view)


__all__ = ["CardError", "card", "check", "dataset"]
