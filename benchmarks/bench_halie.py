"""HALIE: `humanjudge validate` on a large generated crossword task (about 25 MB of event blocks)
side by side with the read-and-parse floor (the csv module alone reading the same file) and with
frictionless validating the same CSV against the equivalent Table Schema.

    pip install -e '.[bench]'                    # frictionless goes into its own venv, e.g.
    python -m venv /tmp/bench && /tmp/bench/bin/pip install frictionless
    python benchmarks/bench_halie.py [--frictionless /tmp/bench/bin/frictionless]

The data is generated first if missing (benchmarks/gen_halie.py into benchmarks/data/, which git
ignores). Targets: within 3x of the floor; faster than frictionless.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from harness import generate, measure, options, report, row, tool

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

FLOOR = """
import csv, sys
n = 0
with open(sys.argv[1], newline="", encoding="utf-8") as f:
    for cells in csv.reader(f):
        n += 1
print(n)
"""


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


def main() -> None:
    ap = options(__doc__, HERE / "data" / "halie-large", 5)
    ap.add_argument("--frictionless", default=shutil.which("frictionless") or "/tmp/bench/bin/frictionless")
    args = ap.parse_args()
    events = args.data / "event_blocks.csv"
    generate("gen_halie.py", args.data, events)
    hj = tool("humanjudge")
    from humanjudge_schema.schemas import load_schema

    schema_file = HERE / "data" / "halie-crossword-event-blocks.tableschema.json"
    schema_file.write_text(json.dumps(table_schema(load_schema("halie/v1/crossword/event-blocks")), indent=1))
    mb = events.stat().st_size / 1e6
    with open(events, newline="", encoding="utf-8") as f:
        rows = sum(1 for _ in f)  # lines, for the header only

    print(f"event_blocks.csv: {mb:.1f} MB, {rows} lines; best of {args.repeat} runs\n")
    floor, floor_mem, _ = measure([sys.executable, "-c", FLOOR, str(events)], args.repeat)
    ours, ours_mem, rc = measure([hj, "validate", str(args.data)], args.repeat)
    one, one_mem, _ = measure([hj, "validate", str(events)], args.repeat)
    startup, _, _ = measure([hj, "--version"], args.repeat)
    print(row("floor: csv module reads event_blocks.csv", floor, floor_mem))
    print(row("humanjudge validate <task folder>", ours, ours_mem, f"exit {rc}, {mb / ours:.0f} MB/s"))
    print(row("humanjudge validate event_blocks.csv", one, one_mem))
    print(row("humanjudge --version (start-up)", startup, 0))
    results: dict[str, object] = {
        "mb": mb,
        "floor_s": floor,
        "floor_mb": floor_mem,
        "humanjudge_s": ours,
        "humanjudge_mb": ours_mem,
        "humanjudge_file_s": one,
        "startup_s": startup,
        "ratio_to_floor": ours / floor,
    }
    if Path(args.frictionless).exists() or shutil.which(args.frictionless):
        # --trusted: frictionless refuses absolute paths otherwise (and exits at once)
        command = [args.frictionless, "validate", "--trusted", "--schema", str(schema_file), str(events)]
        theirs, theirs_mem, rc2 = measure(command, max(1, args.repeat - 2))
        if rc2 != 0:
            sys.exit(f"frictionless failed (exit {rc2}): run {' '.join(command)}")
        print(row("frictionless validate --schema (same checks)", theirs, theirs_mem, f"exit {rc2}"))
        results.update(frictionless_s=theirs, frictionless_mb=theirs_mem, speedup=theirs / ours)
        print(f"\n  frictionless / humanjudge: {theirs / ours:.1f}x (target > 1)")
    else:
        print(f"\n  frictionless not found at {args.frictionless}: skipped")
    print(f"  humanjudge / floor: {ours / floor:.2f}x (target <= 3)")
    report(results, args.json)


if __name__ == "__main__":
    main()
