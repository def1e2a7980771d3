"""The rules of declared formats, by theme; importing this package registers them in the order
the check runs them (scope "dataset": each looks at the `Model` of one dataset)."""

from __future__ import annotations

from . import aggregates, answers, declaration, files, mapping  # noqa: F401
