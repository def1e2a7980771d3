"""The package's layout is its architecture (docs/architecture.md): the imports between its modules
form no cycle, and only a format's own folder names that format. Both are read from the source
with `ast`: imports at the top, inside functions and under `if TYPE_CHECKING:` (a type the
checker needs ties two modules as surely as a call does), and the modules named by
`importlib.import_module("humanjudge_schema....")`."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from humanjudge_schema import catalog

PACKAGE = Path(__file__).resolve().parent.parent / "humanjudge_schema"


def _module(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _from(node: ast.ImportFrom, package: str) -> str:
    """The module a `from ... import` reads from, a relative one resolved against `package` (the
    importing module's package: the module itself for an `__init__.py`)."""
    base = node.module or ""
    if node.level:
        anchor = package.split(".")
        anchor = anchor[: len(anchor) - node.level + 1]
        base = ".".join(anchor + ([base] if base else []))
    return base


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The package's modules this file imports."""
    name = _module(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if _imported_by_name(node):
            targets = [node.args[0].value]  # type: ignore[attr-defined]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _from(node, package)
            # `from . import x` imports the submodule x when there is one
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def _imported_by_name(node: ast.AST) -> bool:
    """importlib.import_module("humanjudge_schema....") with the name written out."""
    return (
        isinstance(node, ast.Call)
        and ast.unparse(node.func).endswith("import_module")
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and str(node.args[0].value).startswith("humanjudge_schema.")
    )


def _graph() -> dict[str, set[str]]:
    files = {_module(p): p for p in PACKAGE.rglob("*.py")}
    return {name: _imports(path, set(files)) for name, path in files.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_reader_of_the_graph_sees_lazy_and_relative_imports() -> None:
    graph = _graph()
    assert "humanjudge_schema.registry" in graph["humanjudge_schema.engine"]
    assert "humanjudge_schema.readers.files" in graph["humanjudge_schema.readers.jsonfile"]
    # a function-level import counts: the imports a cycle hides behind are still imports
    assert any("humanjudge_schema.rulebook" in deps for deps in graph.values())
    # so do a type the checker needs and a module loaded by its written name
    assert "humanjudge_schema.config" in graph["humanjudge_schema.engine"]  # under TYPE_CHECKING
    assert "humanjudge_schema.judgments.quality" in graph["humanjudge_schema.rulebook"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles() -> None:
    assert _cycles(_graph()) == []


BUILT_IN = sorted(name for name, fmt in catalog.formats().items() if fmt.module.startswith("humanjudge_schema."))


@pytest.mark.parametrize("fmt", BUILT_IN)
def test_only_the_format_folder_imports_the_format(fmt: str) -> None:
    own = f"humanjudge_schema.formats.{fmt}"
    outside = {
        name: sorted(d for d in deps if d == own or d.startswith(own + "."))
        for name, deps in _graph().items()
        if not (name == own or name.startswith(own + "."))
    }
    # The package's face hands on one format's public API, loaded on first use (docs/api.md:
    # `from humanjudge_schema import render_prompts`); nothing else outside the folder names it.
    if fmt == "textjudge":
        assert outside.pop("humanjudge_schema") == [f"{own}.prompts"]
    assert {name: deps for name, deps in outside.items() if deps} == {}


def _folder(module: str) -> str:
    """The folder a module belongs to, as the map of docs/architecture.md draws them: a folder of
    the package (`readers`, `judgments`, `report`, `commands`, ...: its subfolders included) or a
    format's folder (`formats/<name>`, its `rules/` included); a module at the top of the package
    is a node of its own."""
    parts = module.split(".")
    if len(parts) < 2 or not (PACKAGE / parts[1]).is_dir():
        return module
    return ".".join(parts[: 3 if parts[1] == "formats" and len(parts) > 2 else 2])


def _folder_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for name, deps in graph.items():
        for dep in deps:
            if (_folder(name), _folder(dep)) not in ALLOWED and _folder(name) != _folder(dep):
                out.setdefault(_folder(name), set()).add(_folder(dep))
    return out


# Imports between folders that close a loop and are not broken yet, each with its reason: none.
ALLOWED: set[tuple[str, str]] = set()


def test_the_folder_reader_sees_folders() -> None:
    assert _folder("humanjudge_schema.judgments.html") == "humanjudge_schema.judgments"
    assert _folder("humanjudge_schema.commands.action.step") == "humanjudge_schema.commands"
    assert _folder("humanjudge_schema.formats.coggym.rules.means") == "humanjudge_schema.formats.coggym"
    assert _folder("humanjudge_schema.validation") == "humanjudge_schema.validation"
    folders = {"a.x": {"b.y"}, "b.y": {"a.z"}}  # no loop between modules, one between folders
    assert _cycles(folders) == [] and _cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b"]]


def test_no_loops_between_folders() -> None:
    """A folder's modules may import another folder's, or be imported by it, not both: the
    judgments' report page does not import validation, which runs the judgments' quality checks."""
    assert _cycles(_folder_graph(_graph())) == []


FORMATS = PACKAGE / "formats"


def _entry_points_in_pyproject() -> dict[str, str]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib

    table = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    points: dict[str, str] = table["project"]["entry-points"][catalog.GROUP]
    return points


@pytest.mark.parametrize("folder", sorted(p.name for p in FORMATS.iterdir() if (p / "__init__.py").is_file()))
def test_every_format_folder_is_registered_and_installed(folder: str) -> None:
    """A folder of formats/ without its entry point is silently not a format: `humanjudge
    formats` lists the others. The line in pyproject.toml declares it, and the installed
    metadata holds it only once the package is installed again (`pip install -e .`)."""
    declared = f"humanjudge_schema.formats.{folder}:FORMAT"
    points = _entry_points_in_pyproject()
    assert points.get(folder) == declared, (
        f'add `{folder} = "{declared}"` under [project.entry-points."{catalog.GROUP}"] in pyproject.toml'
    )
    installed = dict(catalog.entry_points(catalog.GROUP))
    assert installed.get(folder) == declared, f"pyproject.toml declares {folder}: reinstall (pip install -e .)"
    assert catalog.formats()[folder].name == folder


def _runs_rules(path: Path) -> list[int]:
    """The lines where a module picks rules from the registry or runs one through the context."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            called = ast.unparse(node.func)
            if called.rpartition(".")[2] in ("rules_of", "scopes_of") or called == "ctx.run":
                lines.append(node.lineno)
    return lines


def test_a_formats_rules_run_in_its_check_only() -> None:
    """One dispatch: a rule declares what it looks at (`scope` on @rule) and the format's check.py
    alone asks the registry for its rules and runs them; the model only hands over what it reads."""
    assert _runs_rules(FORMATS / "coggym" / "check.py")  # the reader finds them
    elsewhere = {
        str(p.relative_to(PACKAGE)): lines
        for p in sorted(FORMATS.rglob("*.py"))
        if p.name != "check.py" and (lines := _runs_rules(p))
    }
    assert elsewhere == {}


def _equal_to_the_formats(path: Path, names: set[str]) -> list[int]:
    """Lines of a test that compare something, for equality, with a written list of every
    built-in format: such a test fails as soon as a format is added."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
            for side in (node.left, *node.comparators):
                elements = side.keys if isinstance(side, ast.Dict) else getattr(side, "elts", [])
                written = {e.value for e in elements if isinstance(e, ast.Constant)}
                if isinstance(side, (ast.List, ast.Set, ast.Tuple, ast.Dict)) and names <= written:
                    lines.append(node.lineno)
    return lines


def test_no_test_writes_out_the_set_of_formats(tmp_path: Path) -> None:
    """The tests read the set of formats from the catalog: a fifth format, copied into formats/
    with its entry point, its examples and its cases, needs no edit of another test."""
    sample = tmp_path / "test_sample.py"
    sample.write_text('def test_x(names):\n    assert sorted(names) == ["a-format", "another"]\n')
    assert _equal_to_the_formats(sample, {"a-format", "another"}) == [2]  # the reader finds one
    found = {
        p.name: lines
        for p in sorted((PACKAGE.parent / "tests").glob("test_*.py"))
        if (lines := _equal_to_the_formats(p, set(BUILT_IN)))
    }
    assert found == {}


def _classes(package: Path) -> dict[str, list[str]]:
    """Each class name the package's modules define, at any depth (in a function, in a class),
    with where: `module:line`."""
    out: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                out.setdefault(node.name, []).append(f"{_module(path, package)}:{node.lineno}")
    return out


def _defined_twice(package: Path) -> dict[str, list[str]]:
    return {name: places for name, places in _classes(package).items() if len(places) > 1}


def _private(name: str) -> bool:
    """A name that starts with one underscore: its module's own (a dunder name is not)."""
    return name.startswith("_") and not name.startswith("__")


def _dotted(node: ast.expr) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"]; None for anything but names and attributes."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(names)]


def _private_reach(path: Path, package: Path, modules: set[str]) -> list[str]:
    """Where a module takes another module's underscore name: `from .x import _name` (or
    `from <package>.x import _name`), or `x._name` where `x` is a module of the package it
    imported. A private attribute of anything else (os._exit, a namedtuple's `_replace`) is not
    the package's."""
    root = package.name
    name = _module(path, package)
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound: dict[str, str] = {}  # a name the module binds to a module of the package
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == root or alias.name.startswith(root + "."):
                    # `import a.b` binds `a`; `import a.b as c` binds `c` to `a.b`
                    bound[alias.asname or root] = alias.name if alias.asname else root
        elif isinstance(node, ast.ImportFrom):
            base = _from(node, here)
            if not (base == root or base.startswith(root + ".")):
                continue
            for alias in node.names:
                if _private(alias.name):
                    out.append(f"{name}:{node.lineno}: from {base} import {alias.name}")
                elif f"{base}.{alias.name}" in modules:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        names = _dotted(node.value)
        if names is None or names[0] not in bound:
            continue
        module: str | None = bound[names[0]]
        for part in names[1:]:
            module = f"{module}.{part}" if f"{module}.{part}" in modules else None
            if module is None:
                break
        if module is not None and module != name:
            out.append(f"{name}:{node.lineno}: {'.'.join(names)}.{node.attr} ({module})")
    return out


def _private_reaches(package: Path) -> list[str]:
    modules = {_module(p, package) for p in package.rglob("*.py")}
    return [found for p in sorted(package.rglob("*.py")) for found in _private_reach(p, package, modules)]


def _sample_package(tmp_path: Path) -> Path:
    package = tmp_path / PACKAGE.name
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "a.py").write_text("class Part:\n    pass\n\n\ndef _helper():\n    pass\n")
    (package / "b.py").write_text(
        "import os\n"
        "from collections import namedtuple\n"
        f"import {PACKAGE.name}.sub.a\n"
        "from . import sub\n"
        "from .sub import a as alias, _helper\n"
        "from .sub.a import __doc__\n\n\n"
        "def f():\n"
        f"    from {PACKAGE.name}.sub.a import _helper\n\n"
        "    class Part:\n"
        "        pass\n\n"
        "    Pair = namedtuple('Pair', 'x y')\n"
        "    Pair(1, 2)._replace(x=0)\n"
        "    alias._helper()\n"
        f"    {PACKAGE.name}.sub.a._helper()\n"
        "    sub.a._helper()\n"
        "    alias.Part._private\n"
        "    os._exit(0)\n"
    )
    return package


def test_the_class_reader_finds_a_name_defined_twice(tmp_path: Path) -> None:
    package = _sample_package(tmp_path)
    assert _defined_twice(package) == {"Part": [f"{PACKAGE.name}.b:12", f"{PACKAGE.name}.sub.a:1"]}


def test_no_class_name_is_defined_twice() -> None:
    """One name per concept: a class name means one thing in the package, whichever module
    is read (a nested class counts: it is read under its name as much as a top-level one)."""
    assert _defined_twice(PACKAGE) == {}


def test_the_private_reader_finds_private_reach(tmp_path: Path) -> None:
    package = _sample_package(tmp_path)
    root = PACKAGE.name
    assert _private_reaches(package) == [
        f"{root}.b:5: from {root}.sub import _helper",
        f"{root}.b:10: from {root}.sub.a import _helper",
        f"{root}.b:17: alias._helper ({root}.sub.a)",
        f"{root}.b:18: {root}.sub.a._helper ({root}.sub.a)",
        f"{root}.b:19: sub.a._helper ({root}.sub.a)",
    ]


def test_no_module_takes_another_modules_underscore_names() -> None:
    """An underscore name is its module's own: a module that needs another's uses a public
    name, so that what a module may change without a look elsewhere is read from its names."""
    assert _private_reaches(PACKAGE) == []
