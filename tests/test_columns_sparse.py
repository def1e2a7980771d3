"""The profiles x values matrix of the statistics (columns.Sparse) kept as its entries, as the
largest questions keep it (a slider of thousands of values over many profiles), against the same
matrix made whole: its products with many samples, and its Gram matrix, the latter exact (counts
are integers), with blocks of pairs as small as a few entries."""

from __future__ import annotations

import numpy as np
import pytest

from humanjudge_schema.judgments import columns


def _matrix(rng: np.random.Generator, profiles: int, values: int, density: float) -> np.ndarray:
    dense = rng.integers(1, 9, size=(profiles, values)).astype(np.float64)
    dense[rng.random((profiles, values)) >= density] = 0
    return dense


@pytest.mark.parametrize("block", [1, 5, 64, 1 << 22])
@pytest.mark.parametrize("seed", range(6))
def test_a_matrix_kept_as_entries_gives_what_the_whole_matrix_gives(
    block: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(seed)
    profiles, values = int(rng.integers(1, 40)), int(rng.integers(1, 60))
    dense = _matrix(rng, profiles, values, float(rng.choice([0.05, 0.3, 1.0])))
    rows, cols = np.nonzero(dense)  # row by row, as the profiles' entries come
    monkeypatch.setattr(columns, "_DENSE", block)
    kept = columns.Sparse(rows, cols, dense[rows, cols], (profiles, values))
    if block < profiles * values:
        assert kept.dense is None
    assert np.array_equal(kept.gram(), dense @ dense.T)
    w = rng.multinomial(50, np.full(profiles, 1 / profiles), size=7).astype(np.float64)
    assert np.allclose(kept.times(w), w @ dense)
    assert np.allclose(kept.times_t(w @ dense), (w @ dense) @ dense.T)
    assert np.allclose(kept.squares(w), ((w @ dense) ** 2).sum(axis=1))
