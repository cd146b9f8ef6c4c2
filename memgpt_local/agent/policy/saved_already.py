"""Saved already: a user's turn whose memory edit changed nothing must reply next.

Told to save facts about the user before replying, a 1.5B model appended the same lines again
and again ("Name: Priya", "Pets: Biscuit") until the chain cap, each told "Already in human:
nothing was changed ... reply now": the next step may only reply.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import MemoryView, Policy
from memgpt_local.agent.turn import StepRecord, Turn
from memgpt_local.schemas import NewMessage


class SavedAlready(Policy):
    name = "saved_already"

    def after_step(self, turn: Turn, step: StepRecord, memory: MemoryView) -> list[NewMessage]:
        if turn.question is not None and step.outcome.unchanged:
            turn.require_reply("nothing new to save")
        return []
