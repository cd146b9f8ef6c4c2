"""Search budget: after this many searches in a turn the next step must answer from what it
read (a small model otherwise pages through results until the chain cap)."""

from __future__ import annotations

from memgpt_local.agent.policy.base import MemoryView, Policy
from memgpt_local.agent.turn import StepRecord, Turn
from memgpt_local.config import SearchBudgetSettings
from memgpt_local.schemas import NewMessage

REASON = "search budget"


class SearchBudget(Policy):
    name = "search_budget"

    def __init__(self, settings: SearchBudgetSettings):
        self.searches = settings.searches

    def after_step(self, turn: Turn, step: StepRecord, memory: MemoryView) -> list[NewMessage]:
        if step.outcome.searched and turn.searches >= self.searches:
            turn.require_reply(REASON)
        return []
