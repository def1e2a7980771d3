"""Configuration: `[tool.humanjudge]` in pyproject.toml, or a humanjudge.toml, found by walking
up from the checked files (nearest wins), then overridden by command-line flags."""

from __future__ import annotations

import fnmatch
import functools
import os
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import catalog
from .finding import Severity
from .readers.files import DEFAULT_MAX_DOCUMENT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class ConfigError(ValueError):
    """The configuration cannot be used; the message names the file and the key."""


class FormatsError(ConfigError):
    """The configuration's `formats` name a declaration that cannot be a format."""


# The keys of every configuration; each format's name is a key too, for its own options.
_KEYS = {
    "select",
    "ignore",
    "severity",
    "per-file-ignores",
    "tolerance",
    "max-per-code",
    "max-document-bytes",
    "quality",
    "diff",
    "formats",
}


def _matches(code: str, patterns: tuple[str, ...]) -> bool:
    return any(code == p or code.startswith(p.rstrip("/") + "/") for p in patterns)


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ()  # code prefixes; empty means every code
    ignore: tuple[str, ...] = ()
    severities: dict[str, Severity | None] = field(default_factory=dict)
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    tolerance: float = 1e-9
    # findings of one code listed per file; the rest are counted in one more finding (0: all)
    max_per_code: int = 1000
    # JSON and JSON Lines files are read whole, and parsing takes several times a file's size
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    # the quality/ checks read every judgment again after validation: asked for, not by default
    quality: bool = False
    # [tool.humanjudge.diff] fail-on: when `humanjudge diff` fails (failon.py)
    diff_fail_on: tuple[str, ...] = ()
    root: Path | None = None  # folder of the config file: per-file patterns are relative to it
    source: Path | None = None
    # declaration files of formats (`formats`, relative to the configuration's folder)
    formats: tuple[Path, ...] = ()

    def wants(self, code: str, path: Path | None = None) -> bool:
        if self.select and not _matches(code, self.select):
            return False
        if _matches(code, self.ignore):
            return False
        if path is not None and self.per_file_ignores:
            rel = _relative(path, self.root)
            for pattern, codes in self.per_file_ignores:
                if fnmatch.fnmatch(rel, pattern) and _matches(code, codes):
                    return False
        return True

    def severity(self, code: str, default: Severity) -> Severity | None:
        # the most specific entry wins: "coggym/mean-value" over "coggym"
        matching = [key for key in self.severities if _matches(code, (key,))]
        return self.severities[max(matching, key=len)] if matching else default

    def option(self, family: str, name: str) -> Any:
        """A format's option: as configured, else the default its declaration gives."""
        configured = self.options.get(family, {})
        if name in configured:
            return configured[name]
        declared = catalog.get(family).option(name)
        if declared is None:
            raise KeyError(f"{family} has no option {name!r}")
        return declared.default

    def with_flags(
        self,
        select: tuple[str, ...] | None,
        ignore: tuple[str, ...],
        max_per_code: int | None = None,
        quality: bool | None = None,
    ) -> Config:
        return replace(
            self,
            select=select if select else self.select,
            ignore=self.ignore + ignore,
            max_per_code=self.max_per_code if max_per_code is None else max_per_code,
            quality=self.quality if quality is None else quality,
        )


_DEFAULTS = Config()


def _relative(path: Path, root: Path | None) -> str:
    base = root or Path.cwd()
    try:
        return Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()
    except ValueError:
        return path.as_posix()


def _codes(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of rule codes or prefixes")
    return tuple(value)


def _known_codes(selectors: Iterable[str], where: str) -> None:
    from .rulebook import UnknownCode, check_selectors

    try:
        check_selectors(selectors, where)
    except UnknownCode as exc:
        raise ConfigError(str(exc)) from None


def _format_options(table: dict[str, Any], where: str) -> dict[str, dict[str, Any]]:
    """Each format's table, checked against the options its declaration lists."""
    options: dict[str, dict[str, Any]] = {}
    for name, fmt in catalog.formats().items():
        sub = table.get(name, {})
        if not isinstance(sub, dict):
            raise ConfigError(f"{where}: {name} must be a table")
        for key, value in sub.items():
            option = fmt.option(key)
            if option is None:
                raise ConfigError(f"{where}: unknown option {name}.{key}")
            if not isinstance(value, option.kind) or isinstance(value, bool):
                raise ConfigError(f"{where}: {name}.{key} has the wrong type ({value!r})")
            if option.choices and value not in option.choices:
                choices = " or ".join(f'"{c}"' for c in option.choices)
                raise ConfigError(f"{where}: {name}.{key} must be {choices}")
        options[name] = dict(sub)
    return options


def _diff_table(table: Any, where: str) -> tuple[str, ...]:
    """`[tool.humanjudge.diff]`: fail-on, a list of --fail-on conditions."""
    from .failon import parse

    if not isinstance(table, dict):
        raise ConfigError(f"{where}: diff must be a table")
    unknown = sorted(set(table) - {"fail-on"})
    if unknown:
        raise ConfigError(f"{where}: diff: unknown key {unknown[0]!r} (known: fail-on)")
    entries = table.get("fail-on", [])
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise ConfigError(f"{where}: diff.fail-on must be a list of strings")
    try:
        parse(entries)
    except ValueError as exc:
        raise ConfigError(f"{where}: diff.fail-on: {exc}") from None
    return tuple(entries)


def _formats(value: Any, source: Path, where: str) -> tuple[Path, ...]:
    """`formats`: declaration files of formats, each made known to the catalog here, so that the
    rest of the configuration (and every walk after it) may name their formats."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FormatsError(f"{where}: formats must be a list of declaration files")
    paths = tuple(source.parent / v for v in value)
    for given, path in zip(value, paths, strict=True):
        if not path.is_file():
            raise FormatsError(f"{where}: formats: {given!r} is not a file (paths are relative to {source.name})")
    try:
        catalog.declare(paths, within=source.parent)
    except catalog.CatalogError as exc:
        raise FormatsError(f"{where}: formats: {exc}") from None
    return paths


def parse_config(table: dict[str, Any], source: Path) -> Config:
    where = f"{source}: [tool.humanjudge]" if source.name == "pyproject.toml" else str(source)
    declared = _formats(table.get("formats", []), source, where)
    known = _KEYS | set(catalog.names())
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")
    severities: dict[str, Severity | None] = {}
    for code, sev in table.get("severity", {}).items():
        if sev not in ("error", "warning"):
            raise ConfigError(f'{where}: severity of {code!r} must be "error" or "warning", not {sev!r}')
        severities[code] = Severity(sev)
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{where}: per-file-ignores must be a table of glob = [codes]")
    tolerance = table.get("tolerance", _DEFAULTS.tolerance)
    if not isinstance(tolerance, (int, float)) or isinstance(tolerance, bool) or tolerance < 0:
        raise ConfigError(f"{where}: tolerance must be a number >= 0")
    max_per_code = table.get("max-per-code", _DEFAULTS.max_per_code)
    if not isinstance(max_per_code, int) or isinstance(max_per_code, bool) or max_per_code < 0:
        raise ConfigError(f"{where}: max-per-code must be an integer >= 0 (0: list every finding)")
    max_document_bytes = table.get("max-document-bytes", _DEFAULTS.max_document_bytes)
    if not isinstance(max_document_bytes, int) or isinstance(max_document_bytes, bool) or max_document_bytes < 1:
        raise ConfigError(f"{where}: max-document-bytes must be an integer > 0")
    quality = table.get("quality", _DEFAULTS.quality)
    if not isinstance(quality, bool):
        raise ConfigError(f"{where}: quality must be true or false")
    options = _format_options(table, where)
    diff_fail_on = _diff_table(table.get("diff", {}), where)
    select = _codes(table.get("select", []), f"{where}: select")
    ignore = _codes(table.get("ignore", []), f"{where}: ignore")
    per_file = tuple((k, _codes(v, f"{where}: per-file-ignores")) for k, v in pfi.items())
    _known_codes(select, f"{where}: select")
    _known_codes(ignore, f"{where}: ignore")
    _known_codes(severities, f"{where}: severity")
    for glob, codes in per_file:
        _known_codes(codes, f"{where}: per-file-ignores {glob!r}")
    return Config(
        select=select,
        ignore=ignore,
        severities=severities,
        per_file_ignores=per_file,
        tolerance=float(tolerance),
        max_per_code=max_per_code,
        max_document_bytes=max_document_bytes,
        options=options,
        quality=quality,
        diff_fail_on=diff_fail_on,
        root=source.parent,
        source=source,
        formats=declared,
    )


CONFIG_BYTES = 4 * 1024 * 1024  # a configuration file at most: real ones are a few hundred bytes


def config_bytes(path: Path, *, cut: bool = False) -> bytes:
    """A configuration file's bytes; a FIFO, a device or, unless `cut` (then its first
    CONFIG_BYTES are read), a file larger than CONFIG_BYTES (a link to /dev/zero or to a log, in a
    pull request) is refused unread (OSError)."""
    with open(path, "rb", opener=lambda p, flags: os.open(p, flags | getattr(os, "O_NONBLOCK", 0))) as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path.name} is not a regular file")
        if info.st_size > CONFIG_BYTES and not cut:
            raise OSError(f"{info.st_size:,} bytes, more than a configuration file holds ({CONFIG_BYTES:,})")
        return f.read(CONFIG_BYTES)


def _read(path: Path) -> str:
    return config_bytes(path).decode("utf-8")


def formats_listed(data: bytes, name: str) -> list[str]:
    """The declaration files a configuration file's bytes list in `formats`, as written there
    (relative to its folder): of a humanjudge.toml the whole file, of a pyproject.toml its
    [tool.humanjudge]. Nothing for bytes that are no such configuration (its reading says why)."""
    try:
        table: Any = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []
    if name == "pyproject.toml":
        tool = table.get("tool")
        table = tool.get("humanjudge") if isinstance(tool, dict) else None
    listed = table.get("formats") if isinstance(table, dict) else None
    return [v for v in listed if isinstance(v, str)] if isinstance(listed, list) else []


def load_file(path: Path) -> Config:
    try:
        data = tomllib.loads(_read(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("humanjudge", {})
    return parse_config(data, path)


@functools.cache
def _find_in(folder: Path) -> Path | None:
    for name in ("humanjudge.toml", "pyproject.toml"):
        candidate = folder / name
        if candidate.exists():  # a FIFO or a device under the name is refused by load_file, not passed over
            if name == "pyproject.toml":
                try:
                    tool = tomllib.loads(_read(candidate)).get("tool", {})
                except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                    return candidate  # let load_file report it
                if "humanjudge" not in tool:
                    continue
            return candidate
    parent = folder.parent
    return None if parent == folder else _find_in(parent)


def forget() -> None:
    """Drop the remembered configuration files (a new run sees files created since)."""
    _find_in.cache_clear()


def discover(start: Path) -> Config:
    """The configuration that applies to a file or folder: the nearest one above it."""
    folder = start.resolve()
    if not folder.is_dir():
        folder = folder.parent
    found = _find_in(folder)
    return load_file(found) if found else Config()
