"""What every evaluation task provides, and what the runner and baselines rely on.

A task turns options (seed, n, split, points) into ``Case``s: one question with its gold
answer and everything the agent must remember to answer it. The runner puts that memory into
a fresh store (``Task.build_memory``), either once per shared corpus (``Case.corpus`` names it;
the built file is copied for every episode) or per episode, and asks the question. Baselines
ask the same question with the memory laid out in one fixed prompt (``Task.fixed_context``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np

from memgpt_local.eval.scoring import contains_any, rouge_l
from memgpt_local.schemas import NewMessage

if TYPE_CHECKING:  # tasks make cases without loading SQLite; the runner passes them a store
    from memgpt_local.memory import MemoryStore

Embed = Callable[[Sequence[str]], np.ndarray]
"""Vectors for texts (the runner's cache of corpus embeddings); rows match the texts."""


@dataclass(frozen=True)
class Options:
    """What a task needs to generate its cases."""

    seed: int = 0
    n: int = 10
    long: bool = False
    points: tuple[int, ...] | None = None  # None: the task's defaults
    wording: int = 0  # 0: the paper's phrasing; 1: other record formats and question wordings

    @property
    def split(self) -> str:
        return split_name(self.long, self.wording)


WORDINGS = (0, 1)
"""Each task words its records and questions two ways: the same data, other sentences. A
result that holds only for one phrasing is no result, so a report shows both side by side."""


def split_name(long: bool, wording: int) -> str:
    """ "standard", "long", "standard-reworded", "long-reworded"."""
    if wording not in WORDINGS:
        raise ValueError(f"wording must be one of {WORDINGS}, got {wording}")
    return ("long" if long else "standard") + ("-reworded" if wording else "")


@dataclass(frozen=True)
class Case:
    task: str
    split: str
    point: int  # nesting level, corpus size, or number of past sessions
    index: int
    seed: int
    question: str
    answers: tuple[str, ...]  # the gold answer first, then accepted variants
    gold_text: str  # the reference for ROUGE-L
    asked_at: datetime | None = None  # when the question is asked (None: now)
    corpus: str | None = None  # key of a memory shared by many cases (built once, copied)
    gold_marker: str | None = None  # text that only the gold passage starts with (doc-qa)
    persona: str | None = None  # core memory blocks (None: the packaged defaults)
    human: str | None = None
    payload: Any = field(default=None, compare=False, repr=False)

    @property
    def answer(self) -> str:
        return self.answers[0]

    def describe(self) -> dict[str, Any]:
        return {"question": self.question, "gold": self.answer}


@dataclass
class Score:
    correct: bool
    rouge: float


def score_answer(case: Case, reply: str) -> Score:
    """Accuracy by normalized containment of any accepted answer; ROUGE-L recall of the gold text."""
    return Score(correct=contains_any(reply, case.answers), rouge=rouge_l(reply, case.gold_text).recall)


@dataclass(frozen=True)
class FixedContext:
    """Memory written into one prompt for a baseline.

    ``items`` are the units truncation removes (pairs, messages, documents); ``keep`` says
    which end survives when they do not all fit; ``gold`` holds the indices of the items that
    contain the answer, to report whether it was still in the prompt.
    """

    instructions: str
    items: tuple[str, ...] = ()
    keep: Literal["first", "last"] = "first"
    gold: frozenset[int] = frozenset()
    heading: str = ""


class Task(Protocol):
    name: str
    point_name: str  # what ``Case.point`` measures, for tables and charts
    baselines: tuple[str, ...]  # the baseline methods that apply
    baseline_store: bool  # whether ``fixed_context`` reads the built memory (else it gets None)

    def default_points(self, long: bool) -> tuple[int, ...]: ...

    def cases(self, options: Options) -> list[Case]:
        """Every case for these options, in a fixed order (index outer, point inner)."""
        ...

    def build_memory(self, store: MemoryStore, agent_id: int, case: Case, embed: Embed) -> None:
        """Put what the agent must remember into ``store`` (for a corpus: the shared part)."""
        ...

    def fixed_context(self, case: Case, store: MemoryStore | None = None, agent_id: int | None = None) -> FixedContext:
        """The truncation baseline's prompt material (``store`` holds ``build_memory``'s data
        when ``baseline_store`` is true)."""
        ...


@runtime_checkable
class HistoryTask(Task, Protocol):
    """A task whose memory is a past conversation (the ``summary-only`` baseline summarizes it)."""

    def past_messages(self, case: Case) -> list[NewMessage]:
        """The past conversation of ``case``, oldest first."""
        ...
