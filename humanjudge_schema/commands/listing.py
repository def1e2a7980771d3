"""The commands that list what humanjudge knows: formats, rule codes, schemas."""

from __future__ import annotations

import click

from .common import fail


@click.command()
def formats() -> None:
    """List the formats humanjudge knows, their files and where each comes from: built in, an
    installed plug-in, or a declaration (shipped, named by the configuration, or beside the data,
    as found from the working folder)."""
    from pathlib import Path

    from ..catalog import declared_near
    from ..catalog import formats as catalog
    from ..config import ConfigError

    try:
        declared_near([Path.cwd()])
    except ConfigError as exc:
        fail(str(exc))
    known = list(catalog().values())
    width = max((len(fmt.name) for fmt in known), default=0)
    for fmt in known:
        files = ", ".join(f.name for f in fmt.files) or (f"any *{fmt.one_file.suffix}" if fmt.one_file else "")
        click.echo(f"{fmt.name:<{width}}  {fmt.title}: {files}  ({fmt.origin})")


@click.command()
@click.argument("code", required=False)
def rules(code: str | None) -> None:
    """List every rule code, or the codes of a family or prefix (coggym, parse), or explain one
    code with a bad and a good example."""
    from ..rulebook import closest, load_all

    registry = load_all()
    doc = registry.get(code) if code is not None else None
    if doc is not None:
        click.echo(f"{doc.code} ({doc.severity.value}): {doc.summary}\n\n{doc.why}\n")
        click.echo("Bad:\n" + _indent(doc.bad) + "\n\nGood:\n" + _indent(doc.good))
        return
    prefix = (code or "").rstrip("/")
    listed = sorted(c for c in registry if not prefix or c.startswith(prefix + "/"))
    if not listed:
        near = closest(prefix, limit=3)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        fail(f"no rule or family {code!r}{hint}")
    width = max(len(c) for c in listed)
    for c in listed:
        entry = registry[c]
        click.echo(f"{c:<{width}}  {entry.severity.value:<7}  {entry.summary}")


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


@click.command()
@click.argument("name", required=False)
@click.option("--path", "show_path", is_flag=True, help="Print where the schema file is.")
def schema(name: str | None, show_path: bool) -> None:
    """List the shipped JSON Schemas, or print one (e.g. coggym/v1/trial)."""
    from ..schemas import available, schema_path

    names = available()
    if name is None:
        width = max(map(len, names), default=0)  # a plug-in's names can be longer than any built-in one
        for n in names:
            click.echo(f"{n:<{width}}  {schema_path(n)}")
        return
    matches = [n for n in names if n == name or n.startswith(name + "/") or n.endswith("/" + name)]
    if len(matches) != 1:
        fail(f"no single schema named {name!r}; choose one of: {', '.join(matches or names)}")
    path = schema_path(matches[0])
    click.echo(str(path) if show_path else path.read_text(encoding="utf-8"), nl=show_path)
