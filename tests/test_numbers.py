"""When a stored aggregate counts as the recomputed one."""

from __future__ import annotations

import pytest

from humanjudge_schema.numbers import same_value


@pytest.mark.parametrize(
    ("stored", "exact", "tolerance", "same"),
    [
        (91.5, 91.5, 0, True),  # exact
        (3.67, 11 / 3, 0, True),  # rounded half-up to the stored 2 decimals
        (2.675, 2.6749999, 0, True),  # any rounding mode of x.xx5
        (0.3333, 1 / 3, 0, True),
        (2.88, 11 / 3, 0, False),  # wrong, whatever the rounding
        (1.0, 0.5, 0, False),  # a whole number is not a rounded proportion
        (4, 4.5, 0, False),
        (40.0, 40.4, 0, False),
        (4, 4.0, 0, True),
        (40.0, 40.4, 0.5, True),  # the configured tolerance
        (None, None, 0, True),  # all-null slider: the mean is null
        (3.0, None, 0, False),
        (None, 3.0, 0, False),
        (True, 1, 0, False),  # a boolean is not a number here
        ("3.5", 3.5, 0, False),
    ],
)
def test_same_value(stored: object, exact: object, tolerance: float, same: bool) -> None:
    assert same_value(stored, exact, tolerance) is same
