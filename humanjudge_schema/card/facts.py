"""What a card states about a dataset's judgments, computed once: the statistics `humanjudge stats`
prints (judgments.stats.describe, the same samples and seed giving the same numbers) and the counts
of one more pass over the rows (judgments and stored aggregates per question, the raters who are
persons, the files each question's judgments are in)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..judgments.summary import DatasetStats, QuestionStats
from ..judgments.view import Judgments


@dataclass
class Facts:
    """The figures of one dataset that a card states and `card --check` compares."""

    dataset: str
    format: str
    stats: DatasetStats  # describe(view): what `humanjudge stats` gives of it
    samples: int
    seed: int
    rater_kind: str
    # per question: its individual judgments (missing answers included), its stored aggregates
    individual: Counter[str] = field(default_factory=Counter)
    aggregates: Counter[str] = field(default_factory=Counter)
    # per (question, what the aggregate's pointer ends with: mean_human, majority_human, ...)
    stored: Counter[tuple[str, str]] = field(default_factory=Counter)
    # (question, role) -> the files its rows come from
    files: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    # distinct raters of the individual judgments, where raters are persons (None: they are not)
    persons: int | None = None
    # per (question, role): the types of its values other than None, for the record sets' data types
    types: dict[tuple[str, str], set[type]] = field(default_factory=dict)
    # why the dataset has no figures, where its files hold no judgment ("no judgments: no
    # individual data file human_data_ind.json (only human_data_mean.json)")
    none: str | None = None
    _by_name: dict[str, QuestionStats] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, view: Judgments, *, samples: int = 1000, seed: int = 0) -> Facts:
        from ..gcpause import paused
        from ..judgments.stats import describe

        stats = describe(view, samples=samples, seed=seed)
        facts = cls(view.dataset, view.format, stats, samples, seed, view.rater_kind)
        raters: set[Any] = set()
        with paused():  # a batch is many small containers (gcpause.py)
            for batch in view.in_batches():
                columns = zip(
                    batch.rows("question"),
                    batch.rows("role"),
                    batch.rows("rater"),
                    batch.rows("rater_kind"),
                    batch.rows("file"),
                    batch.rows("value"),
                    batch.rows("pointer"),
                    strict=True,
                )
                for question, role, rater, kind, file, value, at in columns:
                    if role == "individual":
                        facts.individual[question] += 1
                        if kind == "person":
                            raters.add(rater)
                    else:
                        facts.aggregates[question] += 1
                        facts.stored[question, at.rpartition("/")[2]] += 1
                    facts.files.setdefault((question, role), set()).add(file)
                    if value is not None:
                        facts.types.setdefault((question, role), set()).add(type(value))
        if view.rater_kind == "person":
            facts.persons = len(raters)
        if not facts.individual and not facts.aggregates:
            facts.none = view.note or "no judgments"
        return facts

    def questions(self) -> tuple[QuestionStats, ...]:
        """The questions of the statistics, in their order."""
        return self.stats.questions

    def question(self, name: str) -> QuestionStats | None:
        """The first question of that name (looked up in one step: a card may name thousands)."""
        if self._by_name is None:
            self._by_name = {}
            for q in self.questions():
                self._by_name.setdefault(q.question, q)
        return self._by_name.get(name)
