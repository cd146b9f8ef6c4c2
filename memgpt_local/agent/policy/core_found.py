"""Core found: a search whose results show the core-memory line the user's question asks about
makes the next step reply.

The turn's core notice (``core_at_question``) quotes such a line, and a 1.5B model still
searched; its results began "Core memory lines that match: [human] Brother: Pestia ...", and it
ran the same search again before it answered (eval chat seed 14: "What's my brother's name?"
and "Which band did I see live a while ago?", each repeat a step of 10-20 s). Once a search
result shows a line the question asks about, the answer is in view: the next step may only
reply. A search that does not show one leaves the model free to search on.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import MemoryView, Policy, reply_before
from memgpt_local.agent.policy.core_at_question import lines_asked_about
from memgpt_local.agent.turn import StepRecord, Turn
from memgpt_local.schemas import NewMessage

REASON = "the search showed the core memory line asked about"


class CoreFound(Policy):
    name = "core_found"

    def after_step(self, turn: Turn, step: StepRecord, memory: MemoryView) -> list[NewMessage]:
        if not step.outcome.searched or not turn.question:
            return []
        lines = lines_asked_about(turn.question, memory, before=reply_before(turn, memory))  # "[human] Brother: Pestia"
        if any(line.split("] ", 1)[-1] in step.outcome.text for line in lines):
            turn.require_reply(REASON)
        return []
