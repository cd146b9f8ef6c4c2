"""Recap: when the search budget ends a turn's searching, the turn's best hits are shown again
right before the reply.

A small model answers from the last thing it read; after paging on to a page of noise or an
empty one it says it found nothing, though the answer was the first hit it saw. With question
focus the hits are ordered by similarity to the user's question.
"""

from __future__ import annotations

from memgpt_local import events
from memgpt_local.agent.policy.base import MemoryView, Policy
from memgpt_local.agent.policy.hits import best_hits
from memgpt_local.agent.policy.search_budget import REASON as BUDGET
from memgpt_local.agent.turn import StepRecord, Turn
from memgpt_local.config import RecapSettings
from memgpt_local.functions.results import format_hits
from memgpt_local.schemas import NewMessage


class Recap(Policy):
    name = "recap"

    def __init__(self, settings: RecapSettings):
        self.hits = settings.hits

    def after_step(self, turn: Turn, step: StepRecord, memory: MemoryView) -> list[NewMessage]:
        if turn.reply_reason != BUDGET or self.name in turn.marks:
            return []
        turn.marks.add(self.name)
        top = best_hits(turn, memory.embed, self.hits)
        if not top:
            return []
        body = (
            "Searching is over for this turn; reply to the user now. The best results of your searches "
            "(best first):\n" + "\n".join(format_hits(top, first=1, per_item=300))
        )
        return [events.system_event("search recap", body, when=turn.clock())]
