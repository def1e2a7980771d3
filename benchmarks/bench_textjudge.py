"""TextJudge: `humanjudge validate` (schema and every rule) against `check-jsonschema --schemafile`
with the same schema on the same large dataset.

    pip install -e '.[bench]'
    python benchmarks/bench_textjudge.py         # generates benchmarks/data/textjudge-large.json first

Targets: validate at least 30x faster than check-jsonschema, with a peak memory no higher.
"""

from __future__ import annotations

from pathlib import Path

from harness import generate, measure, options, report, row, tool

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def main() -> None:
    args = options(__doc__, HERE / "data" / "textjudge-large.json", 3).parse_args()
    generate("gen_textjudge.py", args.data, args.data)
    hj = tool("humanjudge")
    cj = tool("check-jsonschema")
    schema = ROOT / "schemas" / "textjudge" / "v1" / "dataset.schema.json"
    mb = args.data.stat().st_size / 1e6
    cj_repeat = max(1, args.repeat - 1)  # a run of check-jsonschema takes about 25 s

    print(f"{args.data.name}: {mb:.1f} MB; best of {args.repeat} runs (check-jsonschema: {cj_repeat})\n")
    ours, ours_mem, rc1 = measure([hj, "validate", str(args.data)], args.repeat)
    theirs, theirs_mem, rc2 = measure([cj, "--schemafile", str(schema), str(args.data)], cj_repeat)
    print(row("humanjudge validate (schema + all rules)", ours, ours_mem, f"exit {rc1}"))
    print(row("check-jsonschema --schemafile (schema only)", theirs, theirs_mem, f"exit {rc2}"))
    speedup, memory = theirs / ours, ours_mem / theirs_mem
    print(f"\n  speed-up vs check-jsonschema: {speedup:.1f}x (target >= 30x)")
    print(f"  peak memory vs check-jsonschema: {memory:.2f} (target <= 1)")
    report(
        {
            "file_mb": mb,
            "humanjudge_s": ours,
            "humanjudge_mb": ours_mem,
            "humanjudge_exit": rc1,
            "check_jsonschema_s": theirs,
            "check_jsonschema_mb": theirs_mem,
            "check_jsonschema_exit": rc2,
            "speedup": speedup,
            "memory_ratio": memory,
        },
        args.json,
    )


if __name__ == "__main__":
    main()
