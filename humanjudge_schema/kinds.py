"""Which dataset is this? Paths become units: the files of one dataset, checked together (a
folder of fixed file names, or one file of a one-file format), as the catalog of formats
declares them. File names decide first, content second."""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import catalog

_SKIP_DIRS = frozenset({"node_modules", "__pycache__", "site-packages"})


@dataclass(frozen=True)
class Unit:
    """Files checked together because rules span them."""

    family: str
    root: Path  # the folder, or the file for one-file formats
    files: tuple[Path, ...]
    # Folders beside this dataset's folder, among datasets, that hold none: a walk reports
    # them with the first dataset of their folder (coverage.py).
    beside: tuple[Path, ...] = ()
    # Where the dataset has a file, something else that is not read: a link, a folder, a device
    # (only where links are not followed; coverage.py reports each).
    refused: tuple[Path, ...] = ()
    # Data files in the dataset's folder that no format claims (found by a walk without --kind):
    # each is reported as no part of the dataset (coverage.py), not among the files left out.
    extras: tuple[Path, ...] = ()
    # When the dataset was named by one of its files rather than reached by a walk: the paths of
    # its folder the user named. Of what the folder holds that is no part of the dataset, only
    # these are reported (coverage.py); None: all of it, the folder was walked.
    named: tuple[Path, ...] | None = None

    def file(self, name: str) -> Path | None:
        return next((f for f in self.files if f.name == name), None)


class UsageError(ValueError):
    """A path the tool cannot use: the message is for the user, exit code 2."""


@dataclass(frozen=True)
class Skipped:
    """A file a folder walk left out, and why."""

    path: Path
    reason: str


@dataclass
class Survey:
    """What a set of paths holds: the units to check, and every other file seen on the way."""

    units: list[Unit]
    skipped: list[Skipped] = field(default_factory=list)


def format_of_name(name: str, folder: Path | None = None) -> str | None:
    """The folder format a fixed file name belongs to (in this folder, where given: a declared
    format claims files only within its own)."""
    return next(
        (
            fmt.name
            for fmt in catalog.formats().values()
            if fmt.file(name) is not None and (folder is None or fmt.applies(folder))
        ),
        None,
    )


def head(path: Path, size: int = 65536) -> bytes | None:
    """The first bytes of a regular file, or None for anything else (a FIFO, a device, a folder,
    an unreadable file), which is refused before a byte of it is read."""
    from .readers.files import Problem, open_regular

    opened = open_regular(path)
    if isinstance(opened, Problem):
        return None
    with opened as f:
        try:
            return f.read(size)
        except OSError:
            return None


LFS_POINTER = b"version https://git-lfs.github.com/spec/"


def _one_file_dataset(fmt: catalog.Format, path: Path) -> bool:
    """Whether a file is claimed for a one-file format: it looks like one of its datasets, or it
    is a Git LFS pointer, which stands for a dataset that is not there and must not pass unseen."""
    one_file = fmt.one_file
    assert one_file is not None
    if not path.name.endswith(one_file.suffix):
        return False
    return _decides(path, lambda data: _claimed(one_file, data))


def _claimed(one_file: catalog.OneFile, data: bytes) -> bool | None:
    """Whether these bytes (a file's first, or all of them) are a dataset of the one-file format,
    or a Git LFS pointer, which stands for one that is not there and must not pass unseen."""
    return True if data.startswith(LFS_POINTER) else one_file.looks_like(data)


def one_file_format(name: str, data: bytes) -> str | None:
    """The one-file format of a file of this name holding all of these bytes (a blob read from
    git, say), as a walk would recognise it."""
    for fmt in _one_file_formats(None):
        assert fmt.one_file is not None
        if name.endswith(fmt.one_file.suffix) and _claimed(fmt.one_file, data):
            return fmt.name
    return None


def _decides(path: Path, test: Callable[[bytes], bool | None]) -> bool:
    """test(the file's first bytes), 64 KiB of them, or the whole file if shorter. While the test
    cannot tell from the bytes read (None), sixteen times as many are read (each test starts
    over: at most a fifteenth more work than one), up to the max-document-bytes default: as much
    as validate would read of a dataset. None at the end of the file, or there, is no."""
    from .readers.files import DEFAULT_MAX_DOCUMENT

    size = 65536
    while True:
        data = head(path, size)
        if data is None:
            return False
        seen = test(data)
        if seen is not None or len(data) < size or size >= DEFAULT_MAX_DOCUMENT:
            return bool(seen)
        size = min(16 * size, DEFAULT_MAX_DOCUMENT)


def claims_by_content(fmt: catalog.Format, path: Path, links: bool = True) -> bool:
    """Whether a file whose name alone does not claim its folder (config.json) claims it by what
    it holds: a JSON object with every top-level key its schema requires. A CogGym config names
    its experiment and its flow (`experimentName`, `experimentFlow`); the config.json of another
    project seldom has both. A file reached through a link is not read where links are not
    followed."""
    declared = fmt.file(path.name)
    if declared is not None and not declared.claims and declared.looks_like is not None:
        return (links or not not_a_file(path)) and head(path, 0) is not None and declared.looks_like(path)
    keys = _required_keys(declared.schema) if declared is not None and not declared.claims else ()
    if not keys or (not links and not_a_file(path)):
        return False
    return _decides(path, lambda data: _has_keys(data, keys))


@functools.cache
def _required_keys(schema: str) -> tuple[str, ...]:
    """The top-level keys a schema requires; none for a schema the content chooses (`*`)."""
    from .schemas import load_schema

    if "*" in schema:
        return ()
    required = load_schema(schema).get("required", [])
    return tuple(k for k in required if isinstance(k, str))


def _has_keys(data: bytes, keys: tuple[str, ...]) -> bool | None:
    """Whether `data` is a JSON object with each of `keys` at its top level (has_key, key by key)."""
    from .readers.topkeys import has_key

    for key in keys:
        found = has_key(data, (key,))
        if not found:
            return found
    return True


def _companions(fmt: catalog.Format, path: Path) -> tuple[str, ...]:
    """The names of the files beside a one-file dataset that are part of it (a declaration's
    data files)."""
    one_file = fmt.one_file
    return () if one_file is None or one_file.companions is None else one_file.companions(path)


def _one_file_formats(kind: str | None) -> list[catalog.Format]:
    return [f for f in catalog.formats().values() if f.one_file is not None and kind in (None, f.name)]


# Files a walk reports when it leaves them out: those that could hold data. Documentation, code
# and media (a CogGym experiment's assets/) are not data files and pass without a word.
_DATA_SUFFIXES = (".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".gz", ".parquet")


def _data_like(name: str) -> bool:
    return name.lower().endswith(_DATA_SUFFIXES)


# What a dataset folder may hold beside its format's files without a word: documentation and
# licences, configuration, hidden files (Git's, the system's), media (which the data may
# reference: the format's rules check the references) and the media folder assets/. Anything
# else is reported as no part of the dataset (coverage.py). Data files are decided by the walk
# (_units_in_folder): one that no format claims is the dataset's extra file (Unit.extras); a
# link, and under --kind every data file not of that format, is among the files it leaves out.
_DOC_STEMS = ("readme", "license", "licence", "copying", "notice", "citation", "authors", "contributors", "changelog")
_DOC_SUFFIXES = (".md", ".markdown", ".rst", ".pdf")  # documents whatever their name (a SOURCE.md)
_CONFIG_NAMES = frozenset({"humanjudge.toml", "pyproject.toml"})
_IMAGES = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp")
_MEDIA_SUFFIXES: tuple[str, ...] = (*_IMAGES, ".mp4", ".webm", ".mov", ".ogg", ".mp3", ".wav", ".m4a")
MEDIA_FOLDERS = frozenset({"assets"})


def unremarked(name: str, folder: bool) -> bool:
    """Whether a file or folder in a dataset folder, not part of its format, passes without a
    finding of coverage.py's look at the folder: it may sit there, or it is a data file, which
    the walk decides (Unit.extras, or the files it leaves out), so that a file is reported once."""
    lower = name.lower()
    if name.startswith(".") or (folder and (lower in MEDIA_FOLDERS or name in _SKIP_DIRS)):
        return True
    if folder:
        return False
    if name in catalog.declaration_names():  # checked on its own, as a declaration
        return True
    return (
        lower.startswith(_DOC_STEMS)
        or lower.endswith(_DOC_SUFFIXES)
        or lower in _CONFIG_NAMES
        or lower.endswith(_MEDIA_SUFFIXES)
        or _data_like(name)
    )


def format_file(name: str) -> bool:
    """Whether a name is a file of some folder format (checked with its dataset)."""
    return format_of_name(name) is not None


def _why_left_out(path: Path, kind: str | None, links: bool = True) -> str:
    family = format_of_name(path.name)
    if family is not None and kind is not None and family != kind:
        return f"a {family} file (--kind {kind})"
    what = None if links else not_a_file(path)
    if what is not None:
        return f"{what}, not followed"
    data = head(path, len(LFS_POINTER))
    if data is None:
        return "not a regular file" if path.exists() or path.is_symlink() else "gone"
    for fmt in _one_file_formats(None):
        assert fmt.one_file is not None
        if path.name.endswith(fmt.one_file.suffix):
            return f"not a {kind} file" if kind not in (None, fmt.name) else fmt.one_file.not_one
    return "a data file of no known format"


def not_a_file(path: Path) -> str | None:
    """What stands at `path` when it is not a regular file reached without a link: "a link", "a
    folder", "a named pipe (FIFO)"...; None for a regular file or nothing at all."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a link"
    return "a folder" if stat.S_ISDIR(mode) else "a special file (a pipe, a device or a socket)"


def linked_folder(path: Path) -> Path | None:
    """The first folder on the way to `path` that is a link, if any: what the path names then
    lies wherever the link leads. Only the folders named below the working folder count (those
    above it, a home folder reached through a link, are the user's, not the data's)."""
    if path.is_absolute():
        try:
            below = path.relative_to(Path.cwd())
        except ValueError:
            return None
        return next((Path.cwd() / p for p in reversed(below.parents) if (Path.cwd() / p).is_symlink()), None)
    return next((p for p in reversed(path.parents) if p.name not in ("", ".", "..") and p.is_symlink()), None)


def _units_in_folder(
    folder: Path, names: list[str], kind: str | None, links: bool = True, extras: bool = False
) -> tuple[list[Unit], list[Skipped]]:
    """The units of one folder, and the data files left out. With `extras` (no --kind), a data
    file in a dataset's folder that no format claims is that dataset's (Unit.extras)."""
    present = set(names)
    units: list[Unit] = []
    for name in [n for n in names if n in catalog.declaration_names()]:
        # a declaration beside the data: its format is known from here on; one that cannot be a
        # format is a dataset of the format that declares such files, whose check says why
        try:
            catalog.declare([folder / name], within=folder)
        except catalog.CatalogError:
            owner = next(f for f in catalog.formats().values() if f.declaration == name)
            if kind in (None, owner.name):
                units.append(Unit(owner.name, folder / name, (folder / name,)))
    for fmt in catalog.formats().values():
        if not fmt.files or kind not in (None, fmt.name) or not fmt.applies(folder):
            continue
        mine = _named(fmt, names, present)
        # A name that does not claim the folder alone (config.json) counts when --kind says so,
        # or when what the file holds is the format's (a CogGym experiment of only its config).
        if (
            any(fmt.claims(n) for n in mine)
            or (kind == fmt.name and mine)
            or any(claims_by_content(fmt, folder / n, links) for n in mine)
        ):
            refused = () if links else tuple(folder / n for n in mine if not_a_file(folder / n))
            files = tuple(folder / n for n in mine if folder / n not in refused)
            units.append(Unit(fmt.name, folder, files, refused=refused))
    units = _nearest_declared(units)
    claimed = {f.name for u in units for f in (*u.files, *u.refused)}
    for fmt in _one_file_formats(kind):
        for name in names:
            if not links and name not in claimed and not_a_file(folder / name):
                continue  # a link is not followed to see what it holds: left out below
            # Even under --kind, a walk takes only files that look like datasets (a TextJudge
            # folder also holds other JSON: questions.json, package.json, test expectations).
            # A file named explicitly is taken as told.
            if name not in claimed and _one_file_dataset(fmt, folder / name):
                taken = [n for n in _companions(fmt, folder / name) if n in present and n not in claimed]
                units.append(Unit(fmt.name, folder / name, (folder / name, *(folder / n for n in taken))))
                claimed.update([name, *taken])
    left = [n for n in names if n not in claimed and _data_like(n)]
    # A data file in a dataset's folder that no format claims is the extra file of that dataset
    # (of the first folder format's, when two share the folder), not a file the walk leaves out.
    # Under --kind, which takes the files of one format only, every other data file is left out
    # as "not a <kind> file", as before: which format, if any, claims it is not the question.
    at = next((i for i, u in enumerate(units) if u.root == folder), None) if extras else None
    if at is not None:
        stray = [n for n in left if _no_format_claims(folder / n, kind)]
        if stray:
            units[at] = replace(units[at], extras=tuple(folder / n for n in stray))
            left = [n for n in left if n not in stray]
    skipped = [Skipped(folder / n, _why_left_out(folder / n, kind, links)) for n in left]
    return units, skipped


def _nearest_declared(units: list[Unit]) -> list[Unit]:
    """The units of a folder without those of a format declared for every folder (a shipped
    declaration) whose files a format declared for this one claims too: the declaration beside
    the data, or the configuration's, says what they are."""
    local = {f for u in units if catalog.get(u.family).within is not None for f in u.files}
    if not local:
        return units
    return [
        u
        for u in units
        if not (catalog.get(u.family).declared_by and catalog.get(u.family).within is None and local & set(u.files))
    ]


def _named(fmt: catalog.Format, names: list[str], present: set[str]) -> list[str]:
    """The names of a folder that are files of the format, in the order it declares them (the
    names a glob matches in name order)."""
    mine = [f.name for f in fmt.files if not f.glob and f.name in present]
    for f in fmt.files:
        if f.glob:
            mine += [n for n in names if f.matches(n) and n not in mine]
    return mine


def _no_format_claims(path: Path, kind: str | None) -> bool:
    """Whether a data file the walk did not take (looking for `kind`'s files only, or for every
    format's) is a regular file that no format claims. A link stays among the files left out,
    as elsewhere in a walk."""
    if not_a_file(path) or format_file(path.name):
        return False
    # Looking for every format, the walk has asked each one-file format already.
    return kind is None or not any(_one_file_dataset(f, path) for f in _one_file_formats(None))


def _unit_of_file(path: Path, kind: str | None, links: bool = True, extras: bool = False) -> Unit | None:
    """The unit of a file named on its own (as `kind`, when given); `extras` as in _units_in_folder."""
    name, folder = path.name, path.parent
    family = kind
    if family is None:
        family = format_of_name(name, folder)
        if family is not None and not catalog.get(family).claims(name):
            siblings = [f.name for f in catalog.get(family).files if f.claims]
            taken = any((folder / s).exists() for s in siblings) or claims_by_content(catalog.get(family), path, links)
            family = family if taken else None
        if family is None and (links or not not_a_file(path)):
            family = next((f.name for f in _one_file_formats(None) if _one_file_dataset(f, path)), None)
        if family is None:
            return None
    if catalog.get(family).one_file is not None:
        if not links and not_a_file(path):
            return Unit(family, path, (), refused=(path,))
        beside = [folder / n for n in _companions(catalog.get(family), path) if (folder / n).is_file()]
        return Unit(family, path, (path, *beside))
    names = sorted(os.listdir(folder)) if folder.is_dir() else [name]
    units = [u for u in _units_in_folder(folder, names, family, links, extras)[0] if u.family == family]
    if units:
        return units[0]
    return (
        Unit(family, folder, (), refused=(path,)) if not links and not_a_file(path) else Unit(family, folder, (path,))
    )


def _nothing_here(path: Path, kind: str | None, skipped: list[Skipped]) -> UsageError:
    if kind is not None:
        others = survey([path], skip_empty=True).units
        found = sorted({u.family for u in others})
        hint = f"; it holds {', '.join(found)} data (drop --kind, or choose another)" if found else ""
        return UsageError(f"{path}: nothing of format {kind} here{hint}")
    if not skipped:
        return UsageError(f"{path}: no dataset files here")
    return UsageError(f"{path}: no dataset of a known format here ({tally(skipped)}; use --kind to say which format)")


def tally(skipped: list[Skipped]) -> str:
    """The summary of the files left out, by reason: "3 files left out: 2 JSON that is not a
    TextJudge dataset, 1 a data file of no known format"."""
    reasons: dict[str, int] = {}
    for s in skipped:
        reasons[s.reason] = reasons.get(s.reason, 0) + 1
    n = len(skipped)
    parts = ", ".join(f"{count} {reason}" for reason, count in sorted(reasons.items(), key=lambda kv: -kv[1]))
    return f"{n} file{'' if n == 1 else 's'} left out: {parts}"


def survey(
    paths: list[Path],
    kind: str | None = None,
    *,
    skip_empty: bool = False,
    known: Mapping[Path, str] | None = None,
    links: bool = True,
) -> Survey:
    """Every unit under the given paths, each once, in a stable order, and the files left out.

    A file is checked with the rest of its unit (a CogGym trial.jsonl with its experiment), since
    the rules span files. Raises UsageError for a path that does not exist, a file of no known
    format, or a path where nothing of the format (or of any format) is found, unless
    `skip_empty`.

    `known` gives the format a file was (in an earlier commit): it is checked as that format
    whatever it holds now, so that emptying or disguising a dataset cannot take it out of the
    check. With `links` False no link is followed: a dataset's file that is a link, a folder or
    a special file, or that lies in a linked folder, is refused (Unit.refused), not read.

    A dataset named by one of its files is checked whole, but of what else its folder holds only
    the paths named are reported (Unit.named): the user asked about those files, not the folder.
    """
    seen: dict[tuple[str, Path], Unit] = {}
    skipped: list[Skipped] = []
    catalog.declared_near(paths)
    if kind is not None and kind not in catalog.names():
        raise UsageError(f"{kind!r} is not a format; choose from {', '.join(catalog.names())}")
    for path in paths:
        if not path.exists() and not path.is_symlink():
            raise UsageError(f"{path}: no such file or folder")
        was = (known or {}).get(path)
        family = kind or was
        through = None if links else linked_folder(path)
        # A link whose name says its format is refused with the rest of its dataset, below.
        if through is not None or (not links and path.is_symlink() and (family or format_of_name(path.name)) is None):
            found = _behind_link(through or path, family or format_of_name(path.name))
            if found is None:
                skipped.append(Skipped(path, "a link, not followed"))
            else:
                seen.setdefault((found.family, found.root), found)
            continue
        if path.is_dir() and was is None and (links or not path.is_symlink()):
            here: list[Skipped] = []
            found_any = False
            walked: dict[Path, list[Path]] = {}  # folder -> its sub-folders
            met: list[Unit] = []
            for folder, dirs, names in os.walk(path, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
                walked[Path(folder)] = [Path(folder, d) for d in dirs]
                units, left = _units_in_folder(Path(folder), sorted(names), kind, links, kind is None)
                here += left
                met += units
                for unit in units:
                    found_any = True
                    _keep(seen, unit)
            for key, strays in _beside(walked, met).items():
                seen[key] = replace(seen[key], beside=strays)
            skipped += here
            if not found_any and not skip_empty:
                raise _nothing_here(path, kind, here)
        else:
            found = _unit_of_file(path, family, links, kind is None)
            if found is None:
                if skip_empty:
                    skipped.append(Skipped(path, _why_left_out(path, kind, links)))
                    continue
                raise UsageError(
                    f"{path}: not a file of a known format (use --kind to say which: {', '.join(catalog.names())})"
                )
            _keep(seen, replace(found, named=()))
    units = [_named_in(u, paths) for u in sorted(seen.values(), key=lambda u: (str(u.root), u.family))]
    claimed = {f for u in units for f in (*u.files, *u.refused, *u.extras)}
    return Survey(units, sorted({s for s in skipped if s.path not in claimed}, key=lambda s: str(s.path)))


def _keep(seen: dict[tuple[str, Path], Unit], unit: Unit) -> None:
    """Keep a unit once. A dataset both walked and named by one of its files is the walk's: what
    else its folder holds is reported."""
    key = (unit.family, unit.root)
    had = seen.get(key)
    if had is None or (had.named is not None and unit.named is None):
        seen[key] = unit


def _named_in(unit: Unit, paths: list[Path]) -> Unit:
    """A unit named by one of its files, with the paths named in its folder (Unit.named); one
    named by every one of its files is the dataset named whole, and reported as walked (the
    Action names a dataset so where a configuration file lies inside the folder it was given)."""
    if unit.named is None:
        return unit
    if unit.files and set(unit.files) <= set(paths):
        return replace(unit, named=None)
    return replace(unit, named=tuple(p for p in paths if p.parent == unit.root))


def _behind_link(link: Path, family: str | None) -> Unit | None:
    """The unit of a file reached through `link` (itself, or a folder on its way), refused whole:
    what it holds is wherever the link leads. None when nothing says which format it is."""
    return None if family is None else Unit(family, link, (), refused=(link,))


def _beside(walked: dict[Path, list[Path]], units: list[Unit]) -> dict[tuple[str, Path], tuple[Path, ...]]:
    """The folders of a walk that sit beside dataset folders (experiments of a study) and hold
    no dataset, by the dataset they are reported with: the first of their folder. A dataset's own
    sub-folders are not among them: coverage.py reports what a dataset folder holds."""
    roots = {u.root for u in units if catalog.get(u.family).files}
    holding: set[Path] = set()
    for u in units:
        where = u.root if u.root in roots else u.root.parent
        holding.add(where)
        holding.update(where.parents)
    out: dict[tuple[str, Path], tuple[Path, ...]] = {}
    for folder, subs in walked.items():
        datasets = sorted(d for d in subs if d in roots)
        if not datasets or folder in roots:
            continue
        # A link to a folder is not followed by a walk, here as everywhere, and not reported.
        strays = tuple(
            d for d in subs if d not in holding and d.name.lower() not in MEDIA_FOLDERS and not d.is_symlink()
        )
        if strays:
            first = min((u for u in units if u.root == datasets[0]), key=lambda u: u.family)
            out[(first.family, first.root)] = strays
    return out


def find_units(paths: list[Path], kind: str | None = None) -> list[Unit]:
    """The units of `survey` (which see)."""
    return survey(paths, kind).units
