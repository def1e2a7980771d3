"""The documentation: the generated references cover every schema, field and code, and the site
builds with warnings as errors, the way CI builds it."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from humanjudge_schema import __all__ as public_names
from humanjudge_schema import schemas
from humanjudge_schema.rulebook import load_all

from .conftest import ROOT

DOCS = ROOT / "docs"
BUILD_COMMAND = "python -m pip install -e '.[docs]' && mkdocs build --strict"


def gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("humanjudge_docs_gen", DOCS / "gen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    generated: dict[str, str] = gen().pages()
    return generated


def _properties(node: Any) -> set[str]:
    """Every property name a schema declares, at any depth."""
    out: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                out.update(value)
            if key not in ("examples", "enum", "const", "default"):
                out |= _properties(value)
    elif isinstance(node, list):
        for value in node:
            out |= _properties(value)
    return out


def test_a_page_per_family_and_every_schema_on_it(pages: dict[str, str]) -> None:
    names = schemas.available()
    families = sorted({n.split("/")[0] for n in names})
    assert sorted(p for p in pages if p.startswith("formats/")) == [f"formats/{f}.md" for f in families]
    for name in names:
        page = pages[f"formats/{name.split('/')[0]}.md"]
        schema = schemas.load_schema(name)
        assert f"## `{name}`: {schema['title']}" in page, name
        assert schema["description"] in page, name
        for prop in _properties(schema):
            assert f"`{prop}`" in page, (name, prop)
        for definition in schema.get("$defs", {}):
            assert f"### `{definition}`" in page, (name, definition)


def test_every_code_in_the_rule_reference(pages: dict[str, str]) -> None:
    page = pages["rules.md"]
    for code, doc in load_all().items():
        anchor = code.replace("/", "-").replace("_", "-").lower()
        assert f"### `{code}` {{#{anchor}}}" in page, code
        assert doc.why in page and doc.bad in page and doc.good in page, code
        assert f"**{doc.severity.value}**: {doc.summary}" in page, code


def test_each_family_page_lists_its_codes(pages: dict[str, str]) -> None:
    for code in load_all():
        family = code.split("/")[0]
        if f"formats/{family}.md" in pages:
            assert f"[`{code}`](../rules.md#" in pages[f"formats/{family}.md"], code


def test_the_generator_runs_as_a_script(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(DOCS / "gen.py"), str(tmp_path)], check=True, capture_output=True)
    assert (tmp_path / "rules.md").is_file() and (tmp_path / "formats" / "coggym.md").is_file()
    assert not (DOCS / "formats").exists() and not (DOCS / "rules.md").exists()  # nothing generated is kept


def test_every_page_is_in_the_nav() -> None:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    written = set(gen()._listed(config["nav"]))
    for page in ("index.md", "integrations.md", "api.md", "rules.md", "configuration.md", "performance.md"):
        assert page in written, page
    for page in ("architecture.md", "conventions-schemas.md", "textjudge-compatibility.md", "conformance-coggym.md"):
        assert page in written, page
    # a page added to docs/ later joins the nav's last section at build time
    built = gen().on_config({"nav": config["nav"], "docs_dir": str(DOCS)})
    listed = set(gen()._listed(built["nav"]))
    for page in DOCS.glob("*.md"):
        assert page.name in listed, page.name
    assert {f"formats/{f}.md" for f in gen().by_family()} <= listed


def test_the_api_page_covers_the_public_api() -> None:
    text = (DOCS / "api.md").read_text()
    for name in public_names:
        assert f"`{name}`" in text or f"## `{name}" in text, name


def test_the_readme_has_the_build_command() -> None:
    assert BUILD_COMMAND in (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "mkdocs build --strict" in ci and "'.[docs]'" in ci


def test_mkdocs_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    site = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not re.search(r"^WARNING", proc.stderr, re.M), proc.stderr
    for page in [*DOCS.glob("*.md"), "formats/coggym.md", "formats/halie.md", "rules.md"]:
        stem = Path(page).relative_to(DOCS).with_suffix("") if isinstance(page, Path) else Path(page).with_suffix("")
        target = site / "index.html" if str(stem) == "index" else site / stem / "index.html"
        assert target.is_file(), target
    assert not (site / "gen.py").exists()
    rules = (site / "rules" / "index.html").read_text()
    assert 'id="coggym-response-count"' in rules
