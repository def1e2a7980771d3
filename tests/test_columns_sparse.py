"""The profiles x values matrix of the statistics (columns.Sparse) kept as its entries, as the
largest questions keep it (a slider of thousands of values over many profiles), against the same
matrix made whole: its products with many samples, and its Gram matrix, the latter exact (counts
are integers), with blocks of pairs as small as a few entries; made by a BLAS or from the pairs
of entries, the Gram matrix is the same bits, and a matrix of shares (counts over each row's
size) has the exact Gram matrix of its counts divided once per cell."""

from __future__ import annotations

import numpy as np
import pytest

from humanjudge_schema.judgments import columns


def _matrix(rng: np.random.Generator, profiles: int, values: int, density: float) -> np.ndarray:
    dense = rng.integers(1, 9, size=(profiles, values)).astype(np.float64)
    dense[rng.random((profiles, values)) >= density] = 0
    return dense


@pytest.mark.parametrize("pair", [0, 10**9], ids=["pairs", "blas"])
@pytest.mark.parametrize("block", [1, 5, 64, 1 << 22])
@pytest.mark.parametrize("seed", range(6))
def test_a_matrix_kept_as_entries_gives_what_the_whole_matrix_gives(
    pair: int, block: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(seed)
    profiles, values = int(rng.integers(1, 40)), int(rng.integers(1, 60))
    dense = _matrix(rng, profiles, values, float(rng.choice([0.05, 0.3, 1.0])))
    rows, cols = np.nonzero(dense)  # row by row, as the profiles' entries come
    monkeypatch.setattr(columns, "_DENSE", block)
    monkeypatch.setattr(columns, "_PAIR", pair)
    kept = columns.Sparse(rows, cols, dense[rows, cols], (profiles, values))
    if block < profiles * values:
        assert kept.dense is None
    assert np.array_equal(kept.gram(), dense @ dense.T)
    w = rng.multinomial(50, np.full(profiles, 1 / profiles), size=7).astype(np.float64)
    assert np.allclose(kept.times(w), w @ dense)
    assert np.allclose(kept.times_t(w @ dense), (w @ dense) @ dense.T)
    assert np.allclose(kept.squares(w), ((w @ dense) ** 2).sum(axis=1))


def _exact_gram(counts: np.ndarray) -> np.ndarray:
    whole = counts.astype(np.int64)
    return (whole @ whole.T).astype(np.float64)  # integers: exact


@pytest.mark.parametrize("top", [9, 5000], ids=["float32", "float64"])  # row sums below 4,096 or not
@pytest.mark.parametrize("seed", range(8))
def test_the_gram_matrix_of_shares_is_exact_and_the_same_bits_either_way(
    seed: int, top: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(seed)
    profiles, values = int(rng.integers(1, 50)), int(rng.integers(1, 300))
    counts = rng.integers(1, top, size=(profiles, values)).astype(np.float64)
    counts[rng.random((profiles, values)) >= float(rng.choice([0.02, 0.2, 0.9]))] = 0
    rows, cols = np.nonzero(counts)
    sizes = counts.sum(axis=1)
    sizes[sizes == 0] = 1
    want = _exact_gram(counts) / np.outer(sizes, sizes)
    made = []
    for pair, block in ((0, 1 << 22), (10**9, 1 << 22), (10**9, 7), (0, 7)):
        monkeypatch.setattr(columns, "_PAIR", pair)
        monkeypatch.setattr(columns, "_DENSE", block)
        shares = columns.Sparse(rows, cols, counts[rows, cols], (profiles, values), per_row=sizes)
        made.append(shares.gram())
        assert np.allclose(shares.times(np.eye(profiles)), counts / sizes[:, None])
    for g in made:
        assert np.array_equal(g, want)


def test_an_entry_given_twice_adds_up_either_way(monkeypatch: pytest.MonkeyPatch) -> None:
    rows, cols, data = np.array([0, 0, 0, 1, 1]), np.array([0, 0, 1, 0, 1]), np.array([1.0, 2.0, 1.0, 4.0, 1.0])
    whole = np.array([[3.0, 1.0], [4.0, 1.0]])
    for pair in (0, 10**9):
        monkeypatch.setattr(columns, "_PAIR", pair)
        assert np.array_equal(columns.Sparse(rows, cols, data, (2, 2)).gram(), whole @ whole.T)
