"""The HALIE rules, a module per theme. Importing them registers them; the modules are imported
in the order their rules were written, the order the check runs them in (`rules_of`)."""

from __future__ import annotations

# isort: off
from . import files, sessions, ids, events, survey, late  # noqa: F401
# isort: on
