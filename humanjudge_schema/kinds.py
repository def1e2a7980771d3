"""Which dataset is this? Paths become units: a CogGym experiment folder, a study-1 file set, a
HALIE task folder, or one TextJudge dataset file. File names decide first, content second."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

FAMILIES = ("coggym", "textjudge", "study1", "halie")

COGGYM_FILES = ("config.json", "trial.jsonl", "instruction.jsonl", "human_data_ind.json", "human_data_mean.json")
STUDY1_FILES = (
    "study1_tasks.jsonl.gz",
    "study1_retrieval.jsonl.gz",
    "study1_responses_human.jsonl.gz",
    "study1_responses_llm.jsonl.gz",
)
HALIE_FILES = ("event_blocks.csv", "survey_responses.csv", "accuracies.csv")
# config.json alone is too common a name to claim a folder for CogGym.
_COGGYM_MARKERS = frozenset(COGGYM_FILES) - {"config.json"}
_SKIP_DIRS = frozenset({"node_modules", "__pycache__", "site-packages"})
_TEXTJUDGE_KEYS = re.compile(rb'"(?:annotations|instances|dataset_url|expert_annotator)"\s*:')


@dataclass(frozen=True)
class Unit:
    """Files checked together because rules span them."""

    family: str
    root: Path  # the folder, or the file for one-file formats
    files: tuple[Path, ...]

    def file(self, name: str) -> Path | None:
        return next((f for f in self.files if f.name == name), None)


class UsageError(ValueError):
    """A path the tool cannot use: the message is for the user, exit code 2."""


def _looks_like_textjudge(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
    except OSError:
        return False
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") and bool(_TEXTJUDGE_KEYS.search(head))


def _units_in_folder(folder: Path, names: list[str], kind: str | None) -> list[Unit]:
    present = set(names)
    units: list[Unit] = []
    if kind in (None, "coggym") and (present & _COGGYM_MARKERS or (kind and "config.json" in present)):
        files = tuple(folder / n for n in COGGYM_FILES if n in present)
        units.append(Unit("coggym", folder, files))
    if kind in (None, "study1") and present & set(STUDY1_FILES):
        units.append(Unit("study1", folder, tuple(folder / n for n in STUDY1_FILES if n in present)))
    if kind in (None, "halie") and present & set(HALIE_FILES):
        units.append(Unit("halie", folder, tuple(folder / n for n in HALIE_FILES if n in present)))
    if kind in (None, "textjudge"):
        claimed = set(COGGYM_FILES) if any(u.family == "coggym" for u in units) else set()
        for name in names:
            if name.endswith(".json") and name not in claimed:
                path = folder / name
                # Even under --kind textjudge, a walk takes only files that look like datasets:
                # a TextJudge folder also holds other JSON (questions.json, package.json, test
                # expectations, Git LFS pointers). A file named explicitly is taken as told.
                if _looks_like_textjudge(path):
                    units.append(Unit("textjudge", path, (path,)))
    return units


def _unit_of_file(path: Path, kind: str | None) -> Unit | None:
    name, folder = path.name, path.parent
    family = kind
    if family is None:
        if name in _COGGYM_MARKERS or (name == "config.json" and any((folder / m).exists() for m in _COGGYM_MARKERS)):
            family = "coggym"
        elif name in STUDY1_FILES:
            family = "study1"
        elif name in HALIE_FILES:
            family = "halie"
        elif name.endswith(".json") and _looks_like_textjudge(path):
            family = "textjudge"
        else:
            return None
    if family == "textjudge":
        return Unit("textjudge", path, (path,))
    names = sorted(os.listdir(folder)) if folder.is_dir() else [name]
    units = [u for u in _units_in_folder(folder, names, family) if u.family == family]
    return units[0] if units else Unit(family, folder, (path,))


def find_units(paths: list[Path], kind: str | None = None) -> list[Unit]:
    """Every unit under the given paths, each once, in a stable order.

    A file is checked with the rest of its unit (a CogGym trial.jsonl with its experiment), since
    the rules span files. Raises UsageError for a path that does not exist or a file of no known
    format.
    """
    seen: dict[tuple[str, Path], Unit] = {}
    for path in paths:
        if not path.exists() and not path.is_symlink():
            raise UsageError(f"{path}: no such file or folder")
        if path.is_dir():
            for folder, dirs, names in os.walk(path, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
                for unit in _units_in_folder(Path(folder), sorted(names), kind):
                    seen.setdefault((unit.family, unit.root), unit)
        else:
            found = _unit_of_file(path, kind)
            if found is None:
                raise UsageError(
                    f"{path}: not a file of a known format (use --kind to say which: {', '.join(FAMILIES)})"
                )
            seen.setdefault((found.family, found.root), found)
    return sorted(seen.values(), key=lambda u: (str(u.root), u.family))
