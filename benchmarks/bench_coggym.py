"""CogGym: `humanjudge validate` (every file, schema and every rule) on experiments of several
shapes, side by side with the floor (orjson parsing config.json, trial.jsonl line by line and the
two human-data files, jsonschema-rs validating each against its schema: benchmarks/floor.py) and
with check-jsonschema and the same schemas on the same files (trial.jsonl written as one JSON
array for it), and the start-up time of both.

    pip install -e '.[bench]'
    python benchmarks/bench_coggym.py                        # every shape
    python benchmarks/bench_coggym.py --shape many-small     # one (repeat --shape for more)
    python benchmarks/bench_coggym.py --no-cj                # without check-jsonschema: quick
    python benchmarks/bench_coggym.py --data EXPERIMENT      # another experiment, as one shape

Each shape is written first if missing by benchmarks/gen_coggym.py --preset <shape> into
benchmarks/data/coggym-<shape>/: `baseline` (700 trials x 500 participants), `few-large` (50
trials x 7,000 participants), `many-small` (10,000 trials x 20 participants).

Targets, on every shape: within 2x of the floor, at least 30x faster than check-jsonschema;
`humanjudge --version` at most half the start-up time of `check-jsonschema --version`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gen_coggym import PRESETS
from harness import (
    DATA,
    ROOT,
    Shape,
    array_schema,
    generate,
    jsonl_as_json,
    measure,
    pick,
    report,
    row,
    run_shapes,
    shape_options,
    tool,
)

SCHEMAS = ROOT / "schemas" / "coggym" / "v1"
JSON_FILES = {
    "config.json": "config",
    "human_data_ind.json": "human-data-ind",
    "human_data_mean.json": "human-data-mean",
}
JSONL_FILES = {"trial.jsonl": "trial", "instruction.jsonl": "instruction"}


def cj_commands(cj: str, folder: Path) -> list[list[str]]:
    """check-jsonschema once per file of the experiment, each with its schema."""
    aside = folder.parent / f"{folder.name}.check-jsonschema"
    out = []
    for name, schema in JSON_FILES.items():
        if (folder / name).exists():
            out.append([cj, "--schemafile", str(SCHEMAS / f"{schema}.schema.json"), str(folder / name)])
    for name, schema in JSONL_FILES.items():
        if (folder / name).exists():
            records = jsonl_as_json(folder / name, aside / f"{Path(name).stem}.json")
            wrapper = array_schema(SCHEMAS / f"{schema}.schema.json", aside / f"{schema}-array.schema.json")
            out.append([cj, "--schemafile", str(wrapper), str(records)])
    return out


def shape(name: str, folder: Path, what: str, hj: str, cj: str, preset: str | None = None) -> Shape:
    def prepare(force: bool) -> None:
        if preset is not None:
            generate("gen_coggym.py", folder, folder / "human_data_ind.json", "--preset", preset, force=force)

    return Shape(
        name=name,
        what=what,
        path=folder,
        humanjudge=[hj, "validate", str(folder)],
        floor=["coggym", str(folder)],
        cj=lambda: cj_commands(cj, folder),
        prepare=prepare,
    )


def main() -> None:
    ap = shape_options(__doc__, list(PRESETS))
    ap.add_argument("--no-startup", action="store_true", help="leave the start-up comparison out")
    args = ap.parse_args()
    hj, cj = tool("humanjudge"), tool("check-jsonschema")
    if args.data is not None:
        if not (args.data / "trial.jsonl").exists():
            sys.exit(f"{args.data}: no trial.jsonl there")
        shapes = [shape(args.data.name, args.data, str(args.data), hj, cj)]
    else:
        every = {
            name: shape(
                name,
                DATA / f"coggym-{name}",
                f"{p['trials']:,} trials x {p['participants']:,} participants",
                hj,
                cj,
                preset=name,
            )
            for name, p in PRESETS.items()
        }
        shapes = pick(every, args)
    results = run_shapes("coggym", shapes, args)
    if not args.no_startup:
        v1, _, _ = measure([hj, "--version"], 10)
        v2, _, _ = measure([cj, "--version"], 10)
        print()
        print(row("humanjudge --version", v1, 0))
        print(row("check-jsonschema --version", v2, 0))
        print(f"\n  start-up ratio: {v1 / v2:.2f} (target <= 0.5)")
        results["startup"] = {"version_s": v1, "cj_version_s": v2, "startup_ratio": v1 / v2}
    report(results, args.json)


if __name__ == "__main__":
    main()
