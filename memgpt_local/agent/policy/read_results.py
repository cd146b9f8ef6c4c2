"""Read results: a search always gets another step, so its results are read.

A small model often searches without asking for a heartbeat; the results would then be
stored and never seen before the turn ends.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import MemoryView, Policy
from memgpt_local.agent.turn import StepRecord, Turn
from memgpt_local.schemas import NewMessage


class ReadResults(Policy):
    name = "read_results"

    def after_step(self, turn: Turn, step: StepRecord, memory: MemoryView) -> list[NewMessage]:
        if step.outcome.searched:
            turn.require_step("read the search results")
        return []
