"""docs/architecture.md is the map of the package, and it matches the package: every module of
`humanjudge_schema/` has a row of its own in the map's tables, its path relative to the package
in backticks in the first cell (`judgments/view.py`), and every module path the page names
exists.

A package's `__init__.py` is named like any other module, by its path (`judgments/__init__.py`;
the package's own is `__init__.py`): importing a package runs it, so it says what the package
hands out. A folder without one (`readers/`) has nothing to name. On the page, a path is read as
a module path when its first folder is one of the package's (`formats/coggym/answers.py`, not
`tests/test_layout.py`) or when it fills the first cell of a row; a path holding a placeholder
(`formats/<name>/model.py`) names no module.
"""

from __future__ import annotations

import re
from pathlib import Path

from .conftest import ROOT

PACKAGE = ROOT / "humanjudge_schema"
PAGE = ROOT / "docs" / "architecture.md"

_ROW = re.compile(r"^\| `([^`]+\.py)` \|", re.MULTILINE)
# a path of folders and a module, not inside a longer path or a placeholder
_PATH = re.compile(r"(?<![\w/<>.-])([A-Za-z_][\w]*(?:/[\w]+)*\.py)\b")


def _modules() -> set[str]:
    return {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")}


def _map() -> str:
    """The section "## The map", up to the next section of its level."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("\n## The map")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _rows() -> list[str]:
    return _ROW.findall(_map())


def _named_paths() -> set[str]:
    """Every path on the page that names a module of the package."""
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir()} | {r.split("/")[0] for r in _rows() if "/" in r}
    found = {m for m in _PATH.findall(PAGE.read_text(encoding="utf-8")) if "/" in m and m.split("/")[0] in folders}
    return found | set(_rows())


def test_every_module_has_a_row_in_the_map() -> None:
    missing = sorted(_modules() - set(_rows()))
    assert missing == [], f"modules docs/architecture.md's map does not name (add a row each): {missing}"


def test_every_module_has_one_row() -> None:
    rows = _rows()
    assert sorted(r for r in set(rows) if rows.count(r) > 1) == []


def test_every_module_path_on_the_page_exists() -> None:
    gone = sorted(_named_paths() - _modules())
    assert gone == [], f"docs/architecture.md names modules that do not exist: {gone}"


def test_the_reader_of_the_page_sees_paths_and_rows(tmp_path: Path) -> None:
    text = (
        "## The map\n\n| module | what |\n|---|---|\n| `judgments/view.py` | the rows |\n\n"
        "See `formats/<name>/model.py`, tests/test_layout.py and formats/coggym/answers.py.\n\n## Decisions\n"
    )
    assert _ROW.findall(text) == ["judgments/view.py"]
    assert _PATH.findall(text) == ["judgments/view.py", "tests/test_layout.py", "formats/coggym/answers.py"]
