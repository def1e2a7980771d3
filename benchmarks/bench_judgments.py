"""What the judgments commands cost beside `humanjudge validate`, on the large generated data of
every format (the baseline shape of each format's benchmark; study 1: the published files when
the corpus is beside the checkout):

    pip install -e '.[bench,test]'
    python benchmarks/bench_judgments.py              # every format
    python benchmarks/bench_judgments.py --format coggym --repeat 1
    python benchmarks/bench_judgments.py --format coggym --options 2000 --options 10000

With TextJudge, its shapes of a continuous metric too (gen_textjudge.CONTINUOUS, each its own
row named after its preset): `mixed-cont4` (60,000 object instances, four labels, four grades
and four distinct floats each: as many values as judgments in one question), `cont20-40`
(10,000 string instances of 20-40 distinct floats each) and `cont4-dec1` (100,000 instances of
four floats of one decimal: 1,001 values, shared between items).

Per data set, best of --repeat runs, in alternation: validate; export to CSV, to JSON Lines and
to Parquet (into a file; Parquet where pyarrow is installed); stats and report with the default
bootstrap of 1,000 samples, as issue 26's targets are stated (--samples: the earlier runs in
docs/performance.md used 200). Printed: seconds, peak MB, the number of judgments exported, and
each command's time as a multiple of validate's.

With --options N, three CogGym experiments more, each of one trial whose one query has N options
answered by 50 participants (written by tests/test_parts_cost.py): a multi-select (`select-N`),
a ranking (`rank-N`) and a multi-slider of N labels (`label-N`), whose answers are split into N
parts with figures of their own (docs/stats.md, "Options and labels"; docs/performance.md).

With --floor, what export cannot go below, measured in this process after the runs: the one
reading of the files that checks every dataset and gives its judgments (reading.Reading: the
findings and every batch of every dataset), plus writing the rows with the fastest writer
found: pyarrow's CSV writer and Parquet writer given Arrow tables built beforehand (not timed;
Arrow quotes every text cell, a few per cent more bytes than ours), plus the CPU time of
importing pyarrow and what it imports to convert Python values (pandas, where installed), which
a command that writes with it pays (`(pyarrow import)`), and for JSON Lines orjson
given each row as a dict built beforehand (not timed: `floor jsonl`), and the bytes export wrote,
written again (`floor bytes`: no writer can go below holding them). And the floors of `stats`
and `report`: the reading of each, with the batches as the statistics' pass takes them (without
pointers; question by question where the raters are not persons), nothing coded or computed:
`(stats' reading)` reads the files as `stats` does (no check), `(report's reading)` checks them
as it reads, as `report` does.
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import sys
import tempfile
import time
from importlib.util import find_spec
from pathlib import Path

import bench_coggym
import bench_halie
import bench_textjudge
from gen_textjudge import CONTINUOUS
from harness import DATA, ROOT, probe, side_by_side, tool

STUDY1 = ROOT.parent / "shared" / "corpus" / "study1" / "raw"
FORMATS = ["textjudge", "coggym", "halie", "study1"]
PARTICIPANTS = 50  # who answer each query of many options (--options)


def data_sets(hj: str, cj: str) -> dict[str, Path]:
    """format -> the folder or file to run on, written first when missing."""
    out: dict[str, Path] = {}
    tj = bench_textjudge.shape("baseline", DATA / "textjudge-baseline" / "dataset.json", "", hj, cj, preset="baseline")
    tj.prepare(False)
    out["textjudge"] = tj.path
    cg = bench_coggym.shape("baseline", DATA / "coggym-baseline", "", hj, cj, preset="baseline")
    cg.prepare(False)
    out["coggym"] = cg.path
    ha = bench_halie.shape("baseline", DATA / "halie-baseline", "", hj, cj, None, "crossword", preset="baseline")
    ha.prepare(False)
    out["halie"] = ha.path
    if STUDY1.is_dir():
        out["study1"] = STUDY1
    for name in CONTINUOUS:
        found = bench_textjudge.shape(name, DATA / f"textjudge-{name}" / "dataset.json", "", hj, cj, preset=name)
        found.prepare(False)
        out[name] = found.path
    return out


def option_sets(options: list[int]) -> dict[str, Path]:
    """part kind and options -> a CogGym experiment of one query of that many options, written
    first when missing."""
    sys.path.insert(0, str(ROOT))
    from tests.test_parts_cost import experiment

    out: dict[str, Path] = {}
    for n in options:
        for kind in ("select", "rank", "label"):
            folder = DATA / f"coggym-{kind}-{n}x{PARTICIPANTS}"
            if not (folder / "human_data_mean.json").exists():  # written last
                experiment(folder, kind, n, PARTICIPANTS)
            out[f"{kind}-{n}"] = folder
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--format", action="append", choices=FORMATS)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--samples", type=int, default=1000, help="bootstrap samples of stats and report")
    ap.add_argument("--floor", action="store_true", help="also measure the floor of export (see above)")
    ap.add_argument("--options", type=int, action="append", default=[], help="also queries of N options (see above)")
    args = ap.parse_args()
    hj, cj = tool("humanjudge"), tool("check-jsonschema")
    sets = data_sets(hj, cj) | option_sets(args.options)
    out = Path(tempfile.mkdtemp(prefix="humanjudge-bench-"))
    atexit.register(shutil.rmtree, out, True)  # the outputs are large: gone when the script ends
    print(f"{'format':<12} {'command':<14} {'seconds':>8} {'MB':>6} {'x validate':>10}")
    for fmt, path in sets.items():
        family = "textjudge" if fmt in CONTINUOUS else fmt
        if args.format and family in FORMATS and family not in args.format:
            continue
        commands = {
            "validate": [hj, "validate", str(path)],
            "export csv": [hj, "export", str(path), "-o", str(out / "rows.csv"), "--force"],
            "export jsonl": [hj, "export", str(path), "--to", "jsonl", "-o", str(out / "rows.jsonl"), "--force"],
            "export parquet": [hj, "export", str(path), "-o", str(out / "rows.parquet"), "--force"],
            "stats": [hj, "stats", str(path), "--samples", str(args.samples), "--format", "json"],
            "report": [
                hj,
                "report",
                str(path),
                "--samples",
                str(args.samples),
                "-o",
                str(out / "report.html"),
                "--force",
            ],
        }
        if find_spec("pyarrow") is None:
            del commands["export parquet"]
        figures = side_by_side({label: ([cmd], args.repeat) for label, cmd in commands.items()})
        failed = [f"{label} (exit {f.rc})" for label, f in figures.items() if f.rc > 1]
        if failed:  # a figure of a command that stopped early is no figure (a full disk, a bug)
            sys.exit(f"{fmt}: {', '.join(failed)} failed; run it by hand to see why")
        base = figures["validate"].cpu
        for label, f in figures.items():
            print(f"{fmt:<12} {label:<14} {f.wall:>8.2f} {f.mb:>6.0f} {f.cpu / base:>10.1f}")
        rows = sum(1 for _ in (out / "rows.csv").open()) - 1
        print(f"{fmt:<12} {'(rows)':<14} {rows:>8,}")
        if args.floor and "export parquet" in commands:
            for label, seconds in floor(path, out).items():
                print(f"{fmt:<12} {label:<14} {seconds:>8.2f} {'':>6} {seconds / base:>10.1f}")
        sys.stdout.flush()


def floor(path: Path, out: Path) -> dict[str, float]:
    """CPU seconds of the reading that checks the datasets and gives their batches, and of that
    reading plus writing each output with the fastest writer (the rows as `floor ...`)."""
    import orjson
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    from humanjudge_schema import judgments
    from humanjudge_schema.gcpause import paused
    from humanjudge_schema.judgments.export import COLUMNS, arrow_schema, arrow_table, typed
    from humanjudge_schema.judgments.view import every
    from humanjudge_schema.reading import Reading

    schema = arrow_schema()
    reading = csv = parquet = dicts = 0.0
    with (
        paused(),
        open(out / "floor.csv", "wb") as c,
        open(out / "floor.parquet", "wb") as p,
        open(out / "floor-orjson.jsonl", "wb", buffering=1 << 20) as j,
    ):
        csv_writer, parquet_writer = pcsv.CSVWriter(c, schema), pq.ParquetWriter(p, schema)
        start = time.process_time()
        checked = Reading([path])
        found = judgments.units([path])[0]
        reading += time.process_time() - start
        batches = (b for view in judgments.views(found, checked.view, every) for b in view.in_batches())
        while True:
            start = time.process_time()
            batch = next(batches, None)
            reading += time.process_time() - start
            if batch is None:
                break
            given = typed(batch)
            table = arrow_table(pa, schema, given)
            rows = [dict(zip(COLUMNS, row, strict=True)) for row in zip(*map(given.column, COLUMNS), strict=True)]
            start = time.process_time()
            for row in rows:
                j.write(orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE))
            dicts += time.process_time() - start
            del rows
            start = time.process_time()
            csv_writer.write_table(table)
            csv += time.process_time() - start
            start = time.process_time()
            parquet_writer.write_table(table)
            parquet += time.process_time() - start
        start = time.process_time()
        checked.result()
        reading += time.process_time() - start
        csv_writer.close()
        parquet_writer.close()
    jsonl = 0.0
    with open(out / "rows.jsonl", "rb") as source, open(out / "floor.jsonl", "wb") as target:
        while chunk := source.read(1 << 24):
            start = time.process_time()
            target.write(chunk)
            jsonl += time.process_time() - start
    # a command that writes with pyarrow imports it (with numpy), and pyarrow imports pandas where
    # installed when it first converts a Python list: their CPU time is in those floors
    load = "import pyarrow as pa, pyarrow.csv, pyarrow.parquet; pa.array([0])"
    imported = min(probe([sys.executable, "-c", load])[1] for _ in range(3))
    bare = min(probe([sys.executable, "-c", "pass"])[1] for _ in range(3))
    csv, parquet = csv + imported - bare, parquet + imported - bare
    return {
        "(one reading)": reading,
        "(stats' reading)": _pass_reading(path, checked=False),
        "(report's reading)": _pass_reading(path, checked=True),
        "(pyarrow import)": imported - bare,
        "floor csv": reading + csv,
        "floor jsonl": reading + dicts,
        "floor bytes": reading + jsonl,
        "floor parquet": reading + parquet,
    }


def _pass_reading(path: Path, checked: bool) -> float:
    """CPU seconds of reading the datasets with their batches as the statistics' pass takes them,
    checking them as they are read (`report`) or not (`stats`)."""
    from humanjudge_schema import judgments
    from humanjudge_schema.gcpause import paused
    from humanjudge_schema.judgments.gather import needs
    from humanjudge_schema.reading import Reading

    start = time.process_time()
    with paused():
        found = judgments.units([path])[0]
        reading = Reading([path]) if checked else None
        for view in judgments.views(found, reading.view if reading else None):
            for _ in view.in_batches(needs(view)):
                pass
        if reading is not None:
            reading.result()
    return time.process_time() - start


if __name__ == "__main__":
    main()
