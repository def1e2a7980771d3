"""Write a large, valid HALIE crossword task of a given shape: about --mb megabytes of event
blocks, in sessions of --blocks event blocks each (a number or a range such as 10-50).

    python benchmarks/gen_halie.py OUT_FOLDER [--preset baseline]
    python benchmarks/gen_halie.py OUT_FOLDER --mb 25 --blocks 2000-5000
    python benchmarks/gen_halie.py --list        # the presets

The rows look like the released ones (written the way pandas writes them): quoted cells with
commas and line breaks, list literals in query_type, empty clue_type cells; survey_responses.csv
and accuracies.csv have one row per session, so every cross-file rule runs and the folder is
valid. The presets are the shapes benchmarks/bench_halie.py runs: `baseline` is the task the
benchmark used before it had shapes (25 MB, sessions of 10 to 50 blocks, about 2,000 sessions),
`short-sessions` has 1 to 3 blocks per session (tens of thousands of sessions, and survey and
accuracy files as many rows long), `long-sessions` a dozen sessions of thousands of blocks.
"""

from __future__ import annotations

import argparse
import csv
import random
from pathlib import Path
from typing import Any

PRESETS: dict[str, dict[str, Any]] = {
    "baseline": {"mb": 25.0, "blocks": "10-50"},
    "short-sessions": {"mb": 25.0, "blocks": "1-3"},
    "long-sessions": {"mb": 25.0, "blocks": "2000-5000"},
}
# The format's facts (the released files): session_id = "{prompt}_{worker_id}_{raw model}", and
# each prompt belongs to one prompt_dataset.
RAW_MODEL = {
    "Davinci": "davinci",
    "InstructDavinci": "text-davinci",
    "InstructBabbage": "text-babbage",
    "Jumbo": "ai2-jumbo",
}
PROMPT_DATASET = {61: "NYT-1", 151: "ELECT", 173: "NYT-2", 187: "SIT", 191: "LOVE"}

LABELS = ["exact", "close", "lexical", "meaning", "question", "completion", "command", "keyword", "phrase"]
CLUES = ["knowledge", "definition", "sense", "wordplay", "cross-ref", "phrase"]
WORDS = [
    "river",
    "capital",
    "word",
    "opposite",
    "synonym",
    "letter",
    "puzzle",
    "answer",
    "city",
    "famous",
    "bird",
    "small",
    "large",
    "ancient",
    "modern",
    "persian",
    "language",
    "country",
    "song",
    "movie",
    "actor",
    "sport",
    "island",
    "color",
    "number",
    "month",
    "planet",
    "tree",
    "animal",
    "music",
    "dance",
    "water",
    "mountain",
    "desert",
    "ocean",
    "bridge",
    "castle",
    "garden",
    "winter",
    "summer",
    "autumn",
    "spring",
]
EVENTS = [
    "name", "session_id", "worker_id", "model", "prompt", "elapsed_time", "num_queries", "num_events", "order_id",
    "prompt_dataset", "user_query", "completion", "query_type", "query_index", "clue_num", "clue_direction",
    "clue_type",
]  # fmt: skip
SURVEY = [
    "session_id", "worker_id", "model", "prompt", "prompt_dataset", "fluency", "helpfulness", "ease", "joy",
    "helpfulness_freetext", "change_freetext", "adjectives",
]  # fmt: skip
ACCURACIES = ["session_id", "worker_id", "model", "prompt", "prompt_dataset", "letter_accuracy", "clue_accuracy"]


def text(rng: random.Random, words: int) -> str:
    out = " ".join(rng.choice(WORDS) for _ in range(words))
    if rng.random() < 0.3:
        out += ", " + " ".join(rng.choice(WORDS) for _ in range(words // 2))
    if rng.random() < 0.1:
        out += "\n" + " ".join(rng.choice(WORDS) for _ in range(words // 2))
    return out.capitalize() + "."


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=Path, nargs="?")
    ap.add_argument("--preset", choices=PRESETS, default="baseline", help="the shape to start from")
    ap.add_argument("--list", action="store_true", help="print the presets and exit")
    ap.add_argument("--mb", type=float, help="approximate size of event_blocks.csv")
    ap.add_argument("--blocks", help="event blocks per session: a number or a range such as 10-50")
    ap.add_argument("--seed", type=int, default=4)
    args = ap.parse_args()
    if args.list:
        for name, shape in PRESETS.items():
            print(f"{name:<16} --mb {shape['mb']} --blocks {shape['blocks']}")
        return
    if args.folder is None:
        ap.error("give the folder to write")
    for key, value in PRESETS[args.preset].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    lo, _, hi = args.blocks.partition("-")
    fewest, most = int(lo), int(hi or lo)
    rng = random.Random(args.seed)
    args.folder.mkdir(parents=True, exist_ok=True)
    target = int(args.mb * 1e6)
    with (
        open(args.folder / "event_blocks.csv", "w", newline="", encoding="utf-8") as ev,
        open(args.folder / "survey_responses.csv", "w", newline="", encoding="utf-8") as sv,
        open(args.folder / "accuracies.csv", "w", newline="", encoding="utf-8") as ac,
    ):
        events, survey, accuracies = csv.writer(ev), csv.writer(sv), csv.writer(ac)
        events.writerow(EVENTS)
        survey.writerow(SURVEY)
        accuracies.writerow(ACCURACIES)
        session = blocks = 0
        while ev.tell() < target:
            worker = f"{rng.getrandbits(128):032x}"
            model = rng.choice(list(RAW_MODEL))
            prompt = rng.choice(list(PROMPT_DATASET))
            sid = f"{prompt}_{worker}_{RAW_MODEL[model]}"
            for order in range(rng.randint(fewest, most)):
                queries = rng.choice([1, 1, 1, 1, 2])
                types = rng.sample(LABELS, rng.randint(1, 3))
                events.writerow([
                    f"crossword-{order:02d}", sid, worker, model, prompt, 0.0, queries, queries + rng.randint(1, 4),
                    order, PROMPT_DATASET[prompt], text(rng, rng.randint(2, 6)), text(rng, rng.randint(10, 40)),
                    repr(types), f"{order:02d}", rng.randint(1, 40), rng.choice(["across", "down"]),
                    rng.choice(CLUES) if rng.random() < 0.2 else "",
                ])  # fmt: skip
                blocks += 1
            joy = rng.choice([-1, 1, 2, 3, 4, 5])
            survey.writerow([
                sid, worker, model, prompt, PROMPT_DATASET[prompt],
                rng.randint(1, 5), rng.randint(1, 5), rng.randint(1, 5),
                joy, text(rng, 12), text(rng, 8) if rng.random() < 0.7 else "", "helpful, fast",
            ])  # fmt: skip
            accuracies.writerow([sid, worker, model, prompt, PROMPT_DATASET[prompt], rng.random(), rng.random()])
            session += 1
    size = (args.folder / "event_blocks.csv").stat().st_size
    print(f"{args.folder}: {session} sessions, {blocks} event blocks, event_blocks.csv {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
