"""`validate --show-settings`: which configuration file applies to each dataset, and what it
resolves to once the command-line flags are applied."""

from __future__ import annotations

from pathlib import Path

import orjson

from .config import Config, discover, forget
from .kinds import survey
from .readers.files import display_path


def _toml(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    return orjson.dumps(value, default=str).decode()


def resolved(config: Config) -> list[str]:
    """The settings of a configuration, one `key = value` line each, in TOML syntax."""
    lines = [
        f"select = {_toml(config.select)}" + ("  # every code" if not config.select else ""),
        f"ignore = {_toml(config.ignore)}",
        f"severity = {_toml({k: v.value if v else None for k, v in config.severities.items()})}",
        f"per-file-ignores = {_toml(dict(config.per_file_ignores))}",
        f"tolerance = {config.tolerance!r}",
        f"max-per-code = {config.max_per_code}",
        f"max-document-bytes = {config.max_document_bytes}",
    ]
    for family, options in sorted(config.options.items()):
        lines += [f"{family}.{key} = {_toml(value)}" for key, value in sorted(options.items())]
    return lines


def describe(
    paths: list[Path],
    kind: str | None,
    config: Config | None,
    select: tuple[str, ...] | None,
    ignore: tuple[str, ...],
    max_per_code: int | None,
) -> str:
    """For each dataset under the paths: the configuration file that applies (or none) and the
    resolved settings; datasets that share a configuration are listed together."""
    forget()
    groups: dict[tuple[Path | None, bool], tuple[Config, list[str]]] = {}
    for unit in survey(paths, kind).units:
        found = config or discover(unit.root)
        key = (found.source, config is not None)
        groups.setdefault(key, (found, []))[1].append(f"{display_path(unit.root)} ({unit.family})")
    out: list[str] = []
    for (source, given), (found, units) in groups.items():
        if source is not None:
            origin = f"{display_path(source)}" + (" (--config)" if given else "")
        else:
            origin = "none: --isolated, the defaults" if given else "none found: the defaults"
        out.append(f"configuration: {origin}")
        out += [f"  dataset: {u}" for u in units]
        out += [f"  {line}" for line in resolved(found.with_flags(select, ignore, max_per_code))]
    return "\n".join(out) + "\n"
