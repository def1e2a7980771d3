"""Generate the format reference (one page per family) from the shipped JSON Schemas, and the rule
reference from the registry, so that neither can drift from what the validator does.

Two ways to run it:

- as a MkDocs hook (`hooks: [docs/gen.py]` in mkdocs.yml): the pages are added to the build,
  nothing is written into docs/;
- as a script, `python docs/gen.py OUT_DIR`, which writes the same pages as files to read or diff.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from humanjudge_schema import catalog, schemas
from humanjudge_schema.registry import RuleDoc, anchor
from humanjudge_schema.rulebook import load_all

_TYPE_KEYWORDS = {
    "string": ("minLength", "maxLength", "pattern"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "array": ("items", "prefixItems", "minItems", "maxItems", "uniqueItems"),
    "object": ("minProperties", "maxProperties", "additionalProperties"),
}


# --- small formatting helpers --------------------------------------------------------------


def _cell(text: str) -> str:
    """Text inside a Markdown table cell: one line, no column breaks."""
    return " ".join(text.replace("|", "\\|").split())


def _json(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _anchor(*parts: str) -> str:
    return "-".join(p.replace("/", "-").replace("_", "-").lower() for p in parts)


def _fenced(text: str, lang: str = "") -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{lang}\n{text}\n{fence}"


# --- what a file of each schema is ---------------------------------------------------------


def file_of(name: str) -> tuple[str, str]:
    """(the file a schema validates, how much of it) for a schema name like coggym/v1/trial."""
    fmt = catalog.formats().get(name.split("/", 1)[0])
    described = fmt.describes(name) if fmt is not None else None
    return described or ("(no file name)", "each document")


def _check_jsonschema(name: str, scope: str) -> str:
    if scope == "each row":
        return (
            "cannot check CSV: a cell is text until it is read as its column's type; "
            "use `humanjudge validate --select parse,schema`"
        )
    command = f'`check-jsonschema --schemafile "$(humanjudge schema --path {name})" FILE`'
    if scope.startswith("each line"):
        how = "[how](../integrations.md#check-jsonschema)"
        return f"{command}, with each record written to a JSON file of its own ({how})"
    return command


# --- one schema ----------------------------------------------------------------------------


class _Renderer:
    def __init__(self, name: str, schema: dict[str, Any]) -> None:
        self.name = name
        self.schema = schema
        self.defs: dict[str, Any] = schema.get("$defs", {})

    def link(self, ref: str) -> str:
        target = ref.removeprefix("#/$defs/")
        return f"[{target}](#{_anchor(self.name, target)})"

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        ref = node.get("$ref", "")
        if ref.startswith("#/$defs/") and len(node) == 1:
            resolved: dict[str, Any] = self.defs[ref.removeprefix("#/$defs/")]
            return resolved
        return node

    def type_of(self, node: Any) -> str:
        if node is True or node == {}:
            return "any"
        if node is False:
            return "nothing (not allowed)"
        if "$ref" in node and "type" not in node:
            return self.link(node["$ref"])
        types = node.get("type")
        names = types if isinstance(types, list) else [types] if types else []
        out = []
        for t in names:
            if t == "array" and isinstance(node.get("items"), dict) and len(names) == 1:
                out.append(f"array of {self.type_of(node['items'])}")
            elif t == "object" and isinstance(node.get("additionalProperties"), dict) and len(names) == 1:
                out.append(f"object of {self.type_of(node['additionalProperties'])}")
            else:
                out.append(str(t))
        if not out:
            if "enum" in node or "const" in node:
                return "value"
            return "any"
        text = " or ".join(out)
        if "$ref" in node:
            text += f", and {self.link(node['$ref'])}"
        return text

    def constraints(self, node: Any) -> list[str]:
        if not isinstance(node, dict):
            return []
        types = node.get("type")
        names = types if isinstance(types, list) else [types] if types else []
        out = []
        if "enum" in node:
            out.append("one of " + ", ".join(_code(_json(v)) for v in node["enum"]))
        if "const" in node:
            out.append(f"exactly {_code(_json(node['const']))}")
        for json_type, keywords in _TYPE_KEYWORDS.items():
            parts = self._typed(node, keywords, len(names) == 1)
            if not parts:
                continue
            if len(names) > 1:
                out.append(f"as {'an' if json_type[0] in 'aeiou' else 'a'} {json_type}: " + ", ".join(parts))
            else:
                out.extend(parts)
        if "default" in node:
            out.append(f"default {_code(_json(node['default']))}")
        return out

    def _typed(self, node: dict[str, Any], keywords: tuple[str, ...], single: bool) -> list[str]:
        parts = []
        for kw in keywords:
            if kw not in node:
                continue
            value = node[kw]
            if kw == "minLength":
                parts.append(f"at least {value} character{'s' if value != 1 else ''}")
            elif kw == "maxLength":
                parts.append(f"at most {value} characters")
            elif kw == "pattern":
                parts.append(f"matches {_code(value)}")
            elif kw == "minimum":
                parts.append(f"≥ {value}")
            elif kw == "maximum":
                parts.append(f"≤ {value}")
            elif kw == "exclusiveMinimum":
                parts.append(f"> {value}")
            elif kw == "exclusiveMaximum":
                parts.append(f"< {value}")
            elif kw == "multipleOf":
                parts.append(f"a multiple of {value}")
            elif kw == "minItems":
                parts.append(f"at least {value} item{'s' if value != 1 else ''}")
            elif kw == "maxItems":
                parts.append(f"at most {value} items")
            elif kw == "uniqueItems" and value:
                parts.append("no duplicates")
            elif kw == "minProperties":
                parts.append(f"at least {value} key{'s' if value != 1 else ''}")
            elif kw == "maxProperties":
                parts.append(f"at most {value} keys")
            elif kw == "prefixItems":
                parts.append("items " + ", ".join(self.type_of(v) for v in value) + " in this order")
            elif kw == "items" and isinstance(value, dict):
                if not single:
                    parts.append(f"items: {self.type_of(value)}")
                if "$ref" not in value:
                    for c in self.constraints(value):
                        parts.append(f"items of {c}" if c.startswith("items") else f"items: {c}")
            elif kw == "additionalProperties":
                if value is False:
                    parts.append("no other keys")
                elif isinstance(value, dict) and not single:
                    parts.append(f"values: {self.type_of(value)}")
                elif isinstance(value, dict) and "$ref" not in value:
                    parts.extend(f"values: {c}" for c in self.constraints(value))
        return parts

    def describe(self, node: dict[str, Any]) -> str:
        title, text = node.get("title", ""), node.get("description", "")
        words = f"**{title}.** {text}" if title and text else title or text
        if node.get("examples"):
            words += " E.g. " + ", ".join(_code(_json(v, 60)) for v in node["examples"][:3]) + "."
        return _cell(words)

    def table(self, node: dict[str, Any]) -> list[str]:
        props: dict[str, Any] = node.get("properties", {})
        pattern_props: dict[str, Any] = node.get("patternProperties", {})
        extra = node.get("additionalProperties")
        if not props and not pattern_props and not isinstance(extra, dict):
            return []
        required = set(node.get("required", []))
        rows = ["| field | type | required | constraints | description |", "|---|---|---|---|---|"]
        for key, sub in props.items():
            rows.append(
                f"| {_code(key)} | {_cell(self.type_of(sub))} | {'yes' if key in required else ''} "
                f"| {_cell('; '.join(self.constraints(sub)))} | {self.describe(sub)} |"
            )
        for pattern, sub in pattern_props.items():
            rows.append(
                f"| keys matching {_code(pattern)} | {_cell(self.type_of(sub))} | "
                f"| {_cell('; '.join(self.constraints(sub)))} | {self.describe(sub)} |"
            )
        if isinstance(extra, dict):
            label = "any other key" if props or pattern_props else "every key"
            rows.append(
                f"| *{label}* | {_cell(self.type_of(extra))} | "
                f"| {_cell('; '.join(self.constraints(extra)))} | {self.describe(extra)} |"
            )
        return rows

    def condition(self, cond: dict[str, Any]) -> str:
        phrases = []
        described = set()
        for key, sub in cond.get("properties", {}).items():
            described.add(key)
            if "const" in sub:
                phrases.append(f"`{key}` is {_code(_json(sub['const']))}")
            elif "enum" in sub:
                phrases.append(f"`{key}` is one of " + ", ".join(_code(_json(v)) for v in sub["enum"]))
            else:
                what = self.type_of(sub)
                more = self.constraints(sub)
                phrases.append(f"`{key}` is {what}" + (f" ({', '.join(more)})" if more else ""))
        for key in cond.get("required", []):
            if key not in described:
                phrases.append(f"`{key}` is present")
        if "type" in cond:
            kind = self.type_of({"type": cond["type"]})
            phrases.append(f"the value is {'an' if kind[0] in 'aeiou' else 'a'} {kind}")
        leftover = set(cond) - {"properties", "required", "type"}
        if leftover or not phrases:
            return _code(_json(cond, 200))
        return " and ".join(phrases)

    def consequence(self, node: dict[str, Any]) -> str:
        target = self.resolve(node)
        phrases = []
        if target.get("required"):
            phrases.append("requires " + ", ".join(f"`{k}`" for k in target["required"]))
        for key, sub in target.get("properties", {}).items():
            more = self.constraints(sub)
            phrases.append(f"`{key}` must be {self.type_of(sub)}" + (f" ({', '.join(more)})" if more else ""))
        if "$ref" in target and target is node:
            phrases.append(f"must match {self.link(target['$ref'])}")
        phrases.extend(self.constraints({k: v for k, v in target.items() if k != "type"}))
        if "if" in target:
            phrases.extend(self.conditions(target))
        text = ", ".join(phrases) or "no further requirement"
        if "$ref" in node and target is not node:
            text += f" (see {self.link(node['$ref'])})"
        return text

    def conditions(self, node: dict[str, Any]) -> list[str]:
        out = []
        branches = [node] + [b for b in node.get("allOf", []) if isinstance(b, dict)]
        for branch in branches:
            if "if" not in branch:
                continue
            when = self.condition(branch["if"])
            if "then" in branch:
                out.append(f"when {when}: {self.consequence(branch['then'])}")
                if "else" in branch:
                    out.append(f"otherwise: {self.consequence(branch['else'])}")
            elif "else" in branch:
                out.append(f"unless {when}: {self.consequence(branch['else'])}")
        return out

    def section(self, node: dict[str, Any], level: int) -> list[str]:
        lines: list[str] = []
        kind = self.type_of({k: v for k, v in node.items() if k in ("type", "items", "additionalProperties")})
        if not node.get("properties") and kind != "any":
            constraints = self.constraints(node)
            lines += [f"Type: {kind}" + (f"; {'; '.join(constraints)}" if constraints else "") + ".", ""]
        rows = self.table(node)
        if rows:
            lines += [*rows, ""]
            if node.get("additionalProperties") is False:
                lines += ["No other keys are allowed.", ""]
            elif "additionalProperties" not in node and node.get("properties"):
                lines += ["Other keys are allowed and not interpreted.", ""]
        conds = self.conditions(node)
        if conds:
            lines += ["Conditions:", ""] + [f"- {c}" for c in conds] + [""]
        return lines

    def render(self) -> list[str]:
        file, scope = file_of(self.name)
        schema = self.schema
        lines = [
            f"## {_code(self.name)}: {schema.get('title', '')} {{#{_anchor(self.name)}}}",
            "",
            schema.get("description", ""),
            "",
            "| | |",
            "|---|---|",
            f"| validates | {file}, {scope} |",
            f"| `$id` | {_code(schema.get('$id', ''))} |",
            f"| in the package | `schemas/{self.name}.schema.json` |",
            f"| print it | `humanjudge schema {self.name}` |",
            f"| check-jsonschema | {_check_jsonschema(self.name, scope)} |",
            "",
        ]
        lines += self.section(schema, 3)
        for def_name, sub in self.defs.items():
            lines += [f"### {_code(def_name)} {{#{_anchor(self.name, def_name)}}}", ""]
            if sub.get("title") or sub.get("description"):
                lines += [self.describe({k: sub[k] for k in ("title", "description") if k in sub}), ""]
            lines += self.section(sub, 4)
        for example in schema.get("examples", [])[:1]:
            lines += ["### Example", "", _fenced(json.dumps(example, indent=2, ensure_ascii=False), "json"), ""]
        return lines


# --- pages ---------------------------------------------------------------------------------


def format_page(family: str, names: list[str], rules: dict[str, RuleDoc]) -> str:
    fmt = catalog.formats().get(family)
    title, intro = (fmt.title, fmt.intro) if fmt is not None else (family, "")
    lines = [
        f"# {title}",
        "",
        "<!-- Generated from the JSON Schemas in schemas/ by docs/gen.py; do not edit. -->",
        "",
        intro,
        "",
        "Validate with `humanjudge validate PATH` (a folder or any of its files). The reference "
        "below is generated from the shipped JSON Schemas, the single source of truth for structure.",
        "",
        "| schema | validates |",
        "|---|---|",
    ]
    for name in names:
        file, scope = file_of(name)
        lines.append(f"| [{_code(name)}](#{_anchor(name)}) | {file}, {scope} |")
    codes = sorted(c for c in rules if c.startswith(family + "/"))
    if codes:
        lines += ["", "## Rules beyond the schema", "", "| code | severity | checks that |", "|---|---|---|"]
        for code in codes:
            doc = rules[code]
            lines.append(
                f"| [{_code(code)}](../rules.md#{anchor(code)}) | {doc.severity.value} | {_cell(doc.summary)} |"
            )
    lines.append("")
    for name in names:
        lines += _Renderer(name, schemas.load_schema(name)).render()
    return "\n".join(lines).rstrip() + "\n"


def rules_page(rules: dict[str, RuleDoc]) -> str:
    families: dict[str, list[str]] = {}
    for code in sorted(rules):
        families.setdefault(code.split("/", 1)[0], []).append(code)
    order = ["parse", "schema", "dataset", *catalog.names(), "engine"]
    ordered = [f for f in order if f in families] + sorted(f for f in families if f not in order)
    lines = [
        "# Rule reference",
        "",
        "<!-- Generated from the rule registry by docs/gen.py; do not edit. -->",
        "",
        "Every finding has one of these codes. Codes are stable: never renamed, never reused. "
        "`humanjudge rules CODE` prints the same entry; `--select`, `--ignore` and the `severity` "
        "table of the [configuration](configuration.md) take codes or their family prefix.",
        "",
        "| code | severity | summary |",
        "|---|---|---|",
    ]
    for family in ordered:
        for code in families[family]:
            doc = rules[code]
            lines.append(f"| [{_code(code)}](#{anchor(code)}) | {doc.severity.value} | {_cell(doc.summary)} |")
    for family in ordered:
        lines += ["", f"## {family}", ""]
        for code in families[family]:
            doc = rules[code]
            lines += [
                f"### {_code(code)} {{#{anchor(code)}}}",
                "",
                f"**{doc.severity.value}**: {doc.summary}",
                "",
                doc.why,
                "",
                "Bad:",
                "",
                _fenced(doc.bad, "text"),
                "",
                "Good:",
                "",
                _fenced(doc.good, "text"),
                "",
            ]
    return "\n".join(lines).rstrip() + "\n"


def by_family() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name in schemas.available():
        out.setdefault(name.split("/", 1)[0], []).append(name)
    return out


def pages() -> dict[str, str]:
    """Every generated page: path under docs/ -> Markdown."""
    rules = load_all()
    out = {f"formats/{family}.md": format_page(family, names, rules) for family, names in by_family().items()}
    out["rules.md"] = rules_page(rules)
    return out


# --- the MkDocs hook -----------------------------------------------------------------------


def _listed(nav: Any) -> Iterator[str]:
    if isinstance(nav, str):
        yield nav
    elif isinstance(nav, list):
        for item in nav:
            yield from _listed(item)
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from _listed(value)


def on_config(config: Any) -> Any:
    """Add any page missing from the nav (a new family, a new report in docs/) to its last
    section, so that no page is ever left out of the site."""
    nav = config["nav"]
    if nav is None:
        return config
    listed = set(_listed(nav))
    docs = Path(config["docs_dir"])
    present = sorted({p.relative_to(docs).as_posix() for p in docs.rglob("*.md")} | set(pages()))
    missing = [p for p in present if p not in listed]
    if missing:
        last = nav[-1] if nav and isinstance(nav[-1], dict) and len(nav[-1]) == 1 else None
        section = next(iter(last.values())) if last else None
        if isinstance(section, list):
            section.extend(missing)
        else:
            nav.append({"More": missing})
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for path, text in pages().items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=text))
    return files


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python docs/gen.py OUT_DIR")
    out_dir = Path(sys.argv[1])
    for path, text in pages().items():
        target = out_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(target)
