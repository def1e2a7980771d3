"""HALIE: `humanjudge validate` on crossword task folders of several shapes (about 25 MB of event
blocks each), side by side with the floor (the csv module reading the three files, each row's cells
typed as its schema declares and the row validated by jsonschema-rs: benchmarks/floor.py), with
the csv module alone, and with check-jsonschema validating the same typed rows written as JSON
arrays (it cannot read CSV) against the same row schemas; and, when it is installed, with
frictionless validating event_blocks.csv against the equivalent Table Schema.

    pip install -e '.[bench]'
    python benchmarks/bench_halie.py                           # every shape
    python benchmarks/bench_halie.py --shape long-sessions     # one (repeat --shape for more)
    python benchmarks/bench_halie.py --no-cj                   # without check-jsonschema: quick
    python benchmarks/bench_halie.py --data TASK_FOLDER        # another task folder, as one shape
    python -m venv /tmp/bench && /tmp/bench/bin/pip install frictionless   # optional, then
    python benchmarks/bench_halie.py --frictionless /tmp/bench/bin/frictionless

Each shape is written first if missing by benchmarks/gen_halie.py --preset <shape> into
benchmarks/data/halie-<shape>/: `baseline` (sessions of 10 to 50 event blocks), `short-sessions`
(1 to 3 blocks each: tens of thousands of sessions), `long-sessions` (2,000 to 5,000 blocks
each: a dozen sessions).

Targets, on every shape: within 2x of the floor, at least 30x faster than check-jsonschema;
faster than frictionless.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from gen_halie import PRESETS
from harness import DATA, HERE, ROOT, Shape, array_schema, generate, pick, report, run_shapes, shape_options, tool

FILES = {"event_blocks.csv": "event-blocks", "survey_responses.csv": "survey-responses", "accuracies.csv": "accuracies"}
TASKS = ("crossword", "dialogue", "metaphor", "question", "summarization")


def table_schema(json_schema: dict[str, object]) -> dict[str, object]:
    """The frictionless Table Schema that says what the row schema says (types, required,
    enums, bounds, patterns), so both tools check the same things."""
    fields = []
    required = set(json_schema.get("required", []))  # type: ignore[arg-type]
    for name, prop in json_schema["properties"].items():  # type: ignore[attr-defined]
        kind = prop.get("type", "string")
        field: dict[str, object] = {"name": name, "type": {"array": "string"}.get(kind, kind)}
        if kind == "boolean":
            field.update(trueValues=["True"], falseValues=["False"])
        constraints: dict[str, object] = {}
        if name in required:
            constraints["required"] = True
        if "enum" in prop:
            constraints["enum"] = prop["enum"]
        for key in ("minimum", "maximum"):
            if key in prop:
                constraints[key] = prop[key]
        if "pattern" in prop:
            constraints["pattern"] = prop["pattern"].replace("$(?!\\n)", "$").strip("^$")
        if constraints:
            field["constraints"] = constraints
        fields.append(field)
    return {"fields": fields}


def cj_commands(cj: str, folder: Path, task: str) -> list[list[str]]:
    """check-jsonschema once per file, on its rows typed as the floor types them (one JSON array
    per file, written next to the folder), against an array of the file's row schema."""
    aside = folder.parent / f"{folder.name}.check-jsonschema"
    csvs = [folder / name for name in FILES if (folder / name).exists()]
    typed = [aside / f"{c.stem}.json" for c in csvs]
    if not all(t.exists() and t.stat().st_mtime >= c.stat().st_mtime for t, c in zip(typed, csvs, strict=True)):
        floor = [sys.executable, str(HERE / "floor.py"), "halie", str(folder), "--task", task]
        subprocess.run([*floor, "--write-json", str(aside)], check=True)
    out = []
    for c, t in zip(csvs, typed, strict=True):
        schema = ROOT / "schemas" / "halie" / "v1" / task / f"{FILES[c.name]}.schema.json"
        wrapper = array_schema(schema, aside / f"{FILES[c.name]}-array.schema.json")
        out.append([cj, "--schemafile", str(wrapper), str(t)])
    return out


def frictionless_command(frictionless: str | None, folder: Path, task: str) -> dict[str, list[list[str]]]:
    if frictionless is None:
        return {}
    row_schema = json.loads((ROOT / "schemas" / "halie" / "v1" / task / "event-blocks.schema.json").read_text())
    schema_file = folder.parent / f"{folder.name}.check-jsonschema" / "event-blocks.tableschema.json"
    schema_file.parent.mkdir(parents=True, exist_ok=True)
    schema_file.write_text(json.dumps(table_schema(row_schema), indent=1))
    # --trusted: frictionless refuses absolute paths otherwise (and exits at once)
    events = folder / "event_blocks.csv"
    return {"frictionless": [[frictionless, "validate", "--trusted", "--schema", str(schema_file), str(events)]]}


def shape(
    name: str, folder: Path, what: str, hj: str, cj: str, fl: str | None, task: str, preset: str | None = None
) -> Shape:
    def prepare(force: bool) -> None:
        if preset is not None:
            generate("gen_halie.py", folder, folder / "accuracies.csv", "--preset", preset, force=force)

    return Shape(
        name=name,
        what=what,
        path=folder,
        humanjudge=[hj, "validate", str(folder)],
        floor=["halie", str(folder), "--task", task],
        cj=lambda: cj_commands(cj, folder, task),
        prepare=prepare,
        others=lambda: frictionless_command(fl, folder, task),
    )


def main() -> None:
    ap = shape_options(__doc__, list(PRESETS))
    ap.add_argument("--frictionless", default=shutil.which("frictionless") or "/tmp/bench/bin/frictionless")
    args = ap.parse_args()
    hj, cj = tool("humanjudge"), tool("check-jsonschema")
    fl = args.frictionless if Path(args.frictionless).is_file() or shutil.which(args.frictionless) else None
    if fl is None:
        print(f"frictionless not found at {args.frictionless}: left out")
    if args.data is not None:
        if not (args.data / "event_blocks.csv").exists():
            sys.exit(f"{args.data}: no event_blocks.csv there")
        task = args.data.name if args.data.name in TASKS else "crossword"
        shapes = [shape(args.data.name, args.data, str(args.data), hj, cj, fl, task)]
    else:
        every = {
            name: shape(
                name,
                DATA / f"halie-{name}",
                f"crossword, {p['mb']:g} MB of event blocks, {p['blocks']} blocks per session",
                hj,
                cj,
                fl,
                "crossword",
                preset=name,
            )
            for name, p in PRESETS.items()
        }
        shapes = pick(every, args)
    report(run_shapes("halie", shapes, args), args.json)


if __name__ == "__main__":
    main()
