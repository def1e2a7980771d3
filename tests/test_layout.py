"""The package's layout is its architecture (docs/architecture.md): the imports between its modules
form no cycle, and only a format's own folder names that format. Both are read from the source
with `ast`: imports at the top, inside functions and under `if TYPE_CHECKING:` (a type the
checker needs ties two modules as surely as a call does), and the modules named by
`importlib.import_module("humanjudge_schema....")`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from humanjudge_schema import catalog

PACKAGE = Path(__file__).resolve().parent.parent / "humanjudge_schema"


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


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
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
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
