"""One reply: a user's turn ends once its answer has gone out, and a login once its greeting has.

A small model asks for another step after replying and then sends a second message ("Message
sent. I'm here to help you with any questions you have."), or the same one again: a user got
two or three messages per turn. The model does its searching and memory edits before it
replies (the system prompt says so); a reply the guards hold back is not an answer, so the
turn goes on after it.
"""

from __future__ import annotations

from memgpt_local.agent.policy.base import MemoryView, Policy
from memgpt_local.agent.turn import StepRecord, Turn
from memgpt_local.schemas import NewMessage


class OneReply(Policy):
    name = "one_reply"

    def after_step(self, turn: Turn, step: StepRecord, memory: MemoryView) -> list[NewMessage]:
        if step.outcome.user_message and (turn.question is not None or turn.kind == "login"):
            turn.end("the user has the answer" if turn.question is not None else "the user was greeted")
        return []
