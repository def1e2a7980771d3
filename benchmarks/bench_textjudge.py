"""TextJudge: `humanjudge validate` (schema and every rule) on datasets of several shapes, side by
side with the floor (orjson parsing the file and jsonschema-rs validating it against the same
dataset schema: benchmarks/floor.py) and with `check-jsonschema --schemafile` and the same schema.

    pip install -e '.[bench]'
    python benchmarks/bench_textjudge.py                     # every shape
    python benchmarks/bench_textjudge.py --shape lab60-voc3  # one (repeat --shape for more)
    python benchmarks/bench_textjudge.py --no-cj             # without check-jsonschema: quick
    python benchmarks/bench_textjudge.py --data DATASET.json # another file, as one shape

Each shape is written first if missing by benchmarks/gen_textjudge.py --preset <shape> into
benchmarks/data/textjudge-<shape>/dataset.json (python benchmarks/gen_textjudge.py --list shows
them): labels per instance 3, 20, 60 and 100; 2, 3, 10 and 40 distinct labels; string labels (a
categorical metric and its majority) and integer labels (a graded metric and its mean and
majority); string and object instances.

Targets, on every shape: within 2x of the floor, at least 30x faster than check-jsonschema.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gen_textjudge import PRESETS
from harness import DATA, ROOT, Shape, generate, pick, report, run_shapes, shape_options, tool

SCHEMA = ROOT / "schemas" / "textjudge" / "v1" / "dataset.schema.json"


def describe(shape: dict[str, object]) -> str:
    labels = "string" if shape["label_type"] == "str" else "integer"
    graded = f", plus {shape['graded']} grades" if shape["graded"] != "0" else ""
    return (
        f"{shape['instances']:,} {shape['instance']} instances x {shape['labels']} {labels} labels "
        f"of {shape['vocab']}{graded}"
    )


def shape(name: str, path: Path, what: str, hj: str, cj: str, preset: str | None = None) -> Shape:
    def prepare(force: bool) -> None:
        if preset is not None:
            generate("gen_textjudge.py", path, path, "--preset", preset, force=force)

    return Shape(
        name=name,
        what=what,
        path=path,
        humanjudge=[hj, "validate", str(path)],
        floor=["textjudge", str(path)],
        cj=lambda: [[cj, "--schemafile", str(SCHEMA), str(path)]],
        prepare=prepare,
    )


def main() -> None:
    args = shape_options(__doc__, list(PRESETS)).parse_args()
    hj, cj = tool("humanjudge"), tool("check-jsonschema")
    if args.data is not None:
        if not args.data.is_file():
            sys.exit(f"{args.data}: no such file")
        shapes = [shape(args.data.name, args.data, str(args.data), hj, cj)]
    else:
        every = {
            name: shape(name, DATA / f"textjudge-{name}" / "dataset.json", describe(p), hj, cj, preset=name)
            for name, p in PRESETS.items()
        }
        shapes = pick(every, args)
    report(run_shapes("textjudge", shapes, args), args.json)


if __name__ == "__main__":
    main()
