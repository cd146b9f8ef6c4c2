"""Search first: when memory holds more than the context shows, the first step after a user's
message must search it (a small model otherwise answers from nothing)."""

from __future__ import annotations

from typing import ClassVar

from memgpt_local.agent.policy.base import MemoryView, Policy, StepPlan
from memgpt_local.agent.turn import StepRecord, Turn
from memgpt_local.schemas import NewMessage

MARK = "search first"


class SearchFirst(Policy):
    """Marks the turns that must search in ``start``; a subclass changes which."""

    name = "search_first"
    mark: ClassVar[str] = MARK

    def start(self, turn: Turn, memory: MemoryView) -> list[NewMessage]:
        if turn.question is not None and memory.beyond_context():
            turn.marks.add(self.mark)
        return []

    def plan(self, turn: Turn, plan: StepPlan) -> StepPlan:
        if self.mark in turn.marks and not turn.steps and not plan.last and not plan.reply_only:
            return plan.only("search", reason=self.mark)
        return plan

    def after_step(self, turn: Turn, step: StepRecord, memory: MemoryView) -> list[NewMessage]:
        if self.mark in turn.marks and step.index == 0:
            turn.require_step(self.mark)  # the search's results must be read, whatever the heartbeat
        return []
