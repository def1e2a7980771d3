"""What `humanjudge report` costs per question and per plot, on TextJudge datasets of many small
questions (benchmarks/gen_questions.py: 1,000 and 3,000 by default, 5 items of 3 raters each):

    pip install -e '.[bench]'
    python benchmarks/bench_report.py                     # 1,000 and 3,000 questions
    python benchmarks/bench_report.py --questions 1000 --repeat 1

Per data set, in fresh processes, best of --repeat runs in alternation: `validate`, `stats
--format json` and `report` (both with the default 1,000 bootstrap samples), CPU seconds (user +
system), peak MB, and the page's size. Then, in this process, the page alone (`html.page` on
the statistics computed once) with the plots timed apart: how many drawings were made (a drawing
is made once per distinct distribution: `Plots.drawn`) and included (at most `html.PLOTTED`),
what a drawing costs laid out and written (`plots.bars` and `plots.histogram`) and of that what
joining its pieces costs (`plots._svg`), and what the rest of the page costs per question (its
card, or the table of its answers beyond the plotted ones).
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import DATA, ROOT, generate, side_by_side, tool


def data(questions: int, force: bool) -> Path:
    folder = DATA / f"report-{questions}"
    out = folder / "dataset.json"
    generate("gen_questions.py", out, out, "--questions", str(questions), force=force)
    return folder


def timed(fn: Callable[..., Any], spent: list[float]) -> Callable[..., Any]:
    """`fn`, its CPU time added to spent[0] and its calls counted in spent[1]."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[0] += time.process_time() - start
            spent[1] += 1

    return wrapper


def page_alone(folder: Path, repeat: int) -> dict[str, float]:
    """The page of the folder's datasets drawn in this process, best of `repeat`: CPU seconds
    of the whole page, of its drawings and of their SVG writing, and how many there were."""
    sys.path.insert(0, str(ROOT))
    from humanjudge_schema import validate
    from humanjudge_schema.judgments import html, plots, views
    from humanjudge_schema.judgments import units as found_units

    result = validate([folder])
    with tempfile.TemporaryDirectory() as tmp:
        described = html.write_report(
            lambda: result, views(found_units([folder])[0]), Path(tmp, "page.html"), samples=1000
        )
    best: dict[str, float] = {}
    originals = plots.bars, plots.histogram, plots._svg
    try:
        for _ in range(repeat):
            drawing, svg = [0.0, 0], [0.0, 0]
            plots.bars, plots.histogram = (timed(f, drawing) for f in originals[:2])
            plots._svg = timed(originals[2], svg)
            start = time.process_time()
            shown = html.page(result, described)
            whole = time.process_time() - start
            if not best or whole < best["page"]:
                plotted = shown.count('<div class="plot"')
                best = {"page": whole, "drawings": drawing[1], "drawing": drawing[0], "svg": svg[0]}
                best |= {"plotted": plotted, "questions": sum(len(d.stats.questions) for d in described)}
    finally:
        plots.bars, plots.histogram, plots._svg = originals
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=int, action="append", help="questions of a data set (repeatable)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--regenerate", action="store_true")
    args = ap.parse_args()
    hj = tool("humanjudge")
    out = Path(tempfile.mkdtemp(prefix="humanjudge-bench-"))
    atexit.register(shutil.rmtree, out, True)  # the outputs are large: gone when the script ends
    print(f"{'questions':>9} {'command':<10} {'CPU s':>7} {'MB':>6} {'ms/question':>11}")
    for n in args.questions or [1000, 3000]:
        folder = data(n, args.regenerate)
        page = out / f"report-{n}.html"
        commands = {
            "validate": [hj, "validate", str(folder)],
            "stats": [hj, "stats", str(folder), "--format", "json"],
            "report": [hj, "report", str(folder), "-o", str(page), "--force"],
        }
        figures = side_by_side({label: ([cmd], args.repeat) for label, cmd in commands.items()})
        for label, f in figures.items():
            print(f"{n:>9} {label:<10} {f.cpu:>7.2f} {f.mb:>6.0f} {1000 * f.cpu / n:>11.2f}")
        alone = page_alone(folder, args.repeat)
        cards = alone["page"] - alone["drawing"]
        per = 1000 * alone["drawing"] / max(1, alone["drawings"])
        print(
            f"{n:>9} page: {alone['page']:.2f} s CPU, {page.stat().st_size / 1e6:.1f} MB; "
            f"{alone['drawings']:.0f} drawings for {alone['plotted']:.0f} plots, {alone['drawing']:.2f} s "
            f"({per:.1f} ms a drawing, of which SVG {1000 * alone['svg'] / max(1, alone['drawings']):.1f} ms); "
            f"the rest {cards:.2f} s ({1000 * cards / alone['questions']:.2f} ms a question)"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
