"""CogGym: `humanjudge validate` (schema and every rule) against `check-jsonschema --schemafile`
with the same ind schema on the same large experiment, and start-up time of both.

    pip install -e '.[bench]'
    python benchmarks/bench_coggym.py            # generates benchmarks/data/coggym-large first

Targets: validate at least 20x faster than check-jsonschema; `humanjudge --version` at most half
the start-up time of `check-jsonschema --version`.
"""

from __future__ import annotations

from pathlib import Path

from harness import generate, measure, options, report, row, tool

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def main() -> None:
    args = options(__doc__, HERE / "data" / "coggym-large", 3).parse_args()
    generate("gen_coggym.py", args.data, args.data / "human_data_ind.json")
    hj = tool("humanjudge")
    cj = tool("check-jsonschema")
    ind = args.data / "human_data_ind.json"
    schema = ROOT / "schemas" / "coggym" / "v1" / "human-data-ind.schema.json"
    mb = ind.stat().st_size / 1e6

    print(f"human_data_ind.json: {mb:.1f} MB; best of {args.repeat} runs\n")
    ours, ours_mem, rc1 = measure([hj, "validate", str(args.data)], args.repeat)
    ours_ind, ours_ind_mem, _ = measure([hj, "validate", "--select", "parse,schema", str(ind)], args.repeat)
    theirs, theirs_mem, rc2 = measure([cj, "--schemafile", str(schema), str(ind)], max(1, args.repeat - 1))
    print(row("humanjudge validate (schema + all rules)", ours, ours_mem, f"exit {rc1}"))
    print(row("humanjudge validate --select parse,schema", ours_ind, ours_ind_mem))
    print(row("check-jsonschema --schemafile (schema only)", theirs, theirs_mem, f"exit {rc2}"))
    print(f"\n  speed-up, full validation vs check-jsonschema: {theirs / ours:.1f}x (target >= 20x)")

    v1, _, _ = measure([hj, "--version"], 10)
    v2, _, _ = measure([cj, "--version"], 10)
    print()
    print(row("humanjudge --version", v1, 0))
    print(row("check-jsonschema --version", v2, 0))
    print(f"\n  start-up ratio: {v1 / v2:.2f} (target <= 0.5)")
    report(
        {
            "ind_mb": mb,
            "humanjudge_s": ours,
            "humanjudge_mb": ours_mem,
            "humanjudge_schema_only_s": ours_ind,
            "check_jsonschema_s": theirs,
            "check_jsonschema_mb": theirs_mem,
            "speedup": theirs / ours,
            "version_s": v1,
            "cj_version_s": v2,
            "startup_ratio": v1 / v2,
        },
        args.json,
    )


if __name__ == "__main__":
    main()
