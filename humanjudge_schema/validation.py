"""One call from paths to findings: find the units, check each with its family's rules."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from .config import Config, discover
from .engine import Context
from .finding import Finding, Severity
from .kinds import Unit, find_units


@dataclass(frozen=True)
class Result:
    findings: list[Finding]
    files: int

    @property
    def errors(self) -> int:
        return sum(f.severity is Severity.ERROR for f in self.findings)

    @property
    def warnings(self) -> int:
        return sum(f.severity is Severity.WARNING for f in self.findings)


def check_unit(unit: Unit, config: Config, cwd: str | None = None) -> list[Finding]:
    module = importlib.import_module(f"humanjudge_schema.rules.{unit.family}")
    ctx = Context(config, cwd, unit.root)
    module.check(unit, ctx)
    return ctx.findings()


def validate(
    paths: list[Path | str],
    *,
    kind: str | None = None,
    config: Config | None = None,
    select: tuple[str, ...] | None = None,
    ignore: tuple[str, ...] = (),
    cwd: str | None = None,
) -> Result:
    """Validate files and folders. Configuration is found next to each unit unless given."""
    units = find_units([Path(p) for p in paths], kind)
    findings: list[Finding] = []
    for unit in units:
        cfg = (config or discover(unit.root)).with_flags(select, ignore)
        findings.extend(check_unit(unit, cfg, cwd))
    findings.sort(key=Finding.sort_key)
    return Result(findings, sum(len(u.files) for u in units))
