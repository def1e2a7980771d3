"""Study 1: `humanjudge validate` on the real study-1 files (the writing log is 3.7 MB of gzip,
235 MB of JSON Lines) side by side with the floor (gzip and orjson, one line at a time, and
jsonschema-rs validating each record against its file's schema: benchmarks/floor.py), with the
read-and-parse alone, and with check-jsonschema validating the same records written as one JSON
array per file (it cannot read JSON Lines) against the same schemas.

    pip install -e '.[bench]'
    python benchmarks/bench_study1.py [--data ../shared/corpus/study1/raw] [--no-cj]

There is one shape, `real`: the published files (185,015 snapshots of 903 responses, 903 tasks,
301 topics). There is no generator for this format: one that makes valid data must keep every
cross-file fact of the real files (each response a task, each task's topic in retrieval, a
response's snapshots contiguous with timestamps that never decrease, citations within the
topic's references), and the real files already are the large case the format has.

Targets: within 2x of the floor, at least 30x faster than check-jsonschema; peak memory below
150 MB (the log is streamed). On the real files `humanjudge validate` exits 1: two citations
of the published log are out of range, a true finding (docs/conformance-study1-halie.md).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from harness import DATA, ROOT, Shape, array_schema, jsonl_as_json, pick, report, run_shapes, shape_options, tool

CORPUS = Path(os.environ.get("HUMANJUDGE_CORPUS", ROOT.parent / "shared" / "corpus"))
HUMAN = "study1_responses_human.jsonl.gz"
FILES = {
    "study1_tasks.jsonl.gz": "tasks",
    "study1_retrieval.jsonl.gz": "retrieval",
    "study1_responses_llm.jsonl.gz": "responses-llm",
    HUMAN: "responses-human",
}


def cj_commands(cj: str, folder: Path, name: str) -> list[list[str]]:
    aside = DATA / f"study1-{name}.check-jsonschema"
    out = []
    for file, schema in FILES.items():
        if (folder / file).exists():
            records = jsonl_as_json(folder / file, aside / f"{file.removesuffix('.jsonl.gz')}.json")
            wrapper = array_schema(
                ROOT / "schemas" / "study1" / "v1" / f"{schema}.schema.json", aside / f"{schema}-array.schema.json"
            )
            out.append([cj, "--schemafile", str(wrapper), str(records)])
    return out


def main() -> None:
    ap = shape_options(__doc__, ["real"], repeat=3)
    ap.set_defaults(data=CORPUS / "study1" / "raw")
    args = ap.parse_args()
    if not (args.data / HUMAN).exists():
        sys.exit(f"no {HUMAN} in {args.data} (give the folder of the study-1 files with --data)")
    hj, cj = tool("humanjudge"), tool("check-jsonschema")
    real = Shape(
        name="real",
        what=f"the published files in {args.data}",
        path=args.data,
        humanjudge=[hj, "validate", str(args.data)],
        floor=["study1", str(args.data)],
        cj=lambda: cj_commands(cj, args.data, "real"),
    )
    results = run_shapes("study1", pick({"real": real}, args), args)
    ours = results["real"]["humanjudge"]["mb"]  # type: ignore[index]
    print(f"\n  peak memory of humanjudge: {ours:.0f} MB (target < 150 MB)")
    report(results, args.json)


if __name__ == "__main__":
    main()
