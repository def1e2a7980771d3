"""The card as mlcroissant reads it: the one module that imports mlcroissant (the `card` extra),
for `humanjudge card --validate` and the tests. Writing and checking a card never need it."""

from __future__ import annotations

import logging
from pathlib import Path


def validate(path: Path) -> tuple[list[str], list[str]]:
    """The errors and warnings mlcroissant reports for the card at `path`, as `mlcroissant
    validate --jsonld` reports them."""
    import warnings

    # mlcroissant logs its warnings through absl as well as returning them: said once, by the
    # caller; what its own dependencies warn of (rdflib's deprecations) is not the card's
    logging.getLogger("absl").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        import mlcroissant  # type: ignore[import-untyped]

        try:
            dataset = mlcroissant.Dataset(jsonld=str(path))
        except mlcroissant.ValidationError as exc:
            return [line.strip(" -") for line in str(exc).splitlines() if line.strip(" -")], []
    issues = dataset.metadata.ctx.issues
    return sorted(map(str, issues.errors)), sorted(map(str, issues.warnings))
