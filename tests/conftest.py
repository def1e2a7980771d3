from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases"
# The real published datasets live beside the checkout, never inside it.
CORPUS = Path(os.environ.get("HUMANJUDGE_CORPUS", ROOT.parent / "shared" / "corpus"))


def corpus(*parts: str) -> Path:
    """A path in the real-data corpus; skips the test when the corpus is not there."""
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real-data corpus not found at {path}")
    return path
